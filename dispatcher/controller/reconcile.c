/* Start-up reconciliation: the ledger against the hub, each live row resumed, re-admitted or
 * undone; and the orphan sweep of gang objects nobody owns. */
#include "dispatcher/controller/ctl_int.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

static void readmit(struct ctl *c, struct binding *b);

struct live_row {
    char binding[CTL_KEY_MAX];
    char uid[CTL_UID_MAX];
    char queue[QUEUE_NAME_MAX + 1];
    char state[16];
    char *clusters;
    char *request; /* dispatched and running rows only: what the engine holds for them */
    char *loss;    /* a pending row requeued after a cluster was lost: its loss record */
    char *grow;    /* dispatched and running rows: a scale-up still waiting (schema/0006) */
    int64_t id, created_at, admitted_at, dispatched_at, attempt, not_before;
    int64_t gang_lead; /* a pod group member's lead row (schema/0011), 0 none */
    int barrier, user_dispatching, assign;
};

struct live_rows {
    struct live_row *v;
    size_t n, cap;
};

static int live_cb(void *ud, const struct store_ledger_row *r)
{
    struct live_rows *l = ud;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        struct live_row *n = muster_realloc(l->v, cap * sizeof(*n));
        if (!n)
            return MUSTER_ENOMEM;
        l->v = n;
        l->cap = cap;
    }
    struct live_row *x = &l->v[l->n];
    memset(x, 0, sizeof(*x));
    snprintf(x->binding, sizeof x->binding, "%s", r->binding);
    snprintf(x->uid, sizeof x->uid, "%s", r->uid ? r->uid : "");
    snprintf(x->queue, sizeof x->queue, "%s", r->queue);
    snprintf(x->state, sizeof x->state, "%s", r->state);
    x->clusters = muster_strdup(r->clusters ? r->clusters : "[]");
    if (!x->clusters)
        return MUSTER_ENOMEM;
    if (strcmp(r->state, "dispatched") == 0 || strcmp(r->state, "running") == 0) {
        x->request = muster_strdup(r->request ? r->request : "{}");
        if (!x->request) {
            muster_free(x->clusters);
            return MUSTER_ENOMEM;
        }
    }
    if (r->loss && strcmp(r->state, "pending") == 0 && !(x->loss = muster_strdup(r->loss))) {
        muster_free(x->clusters);
        return MUSTER_ENOMEM;
    }
    /* an admitted row's too: a partial admission's rest, recorded before any request */
    if (r->grow && (x->request || strcmp(r->state, "admitted") == 0) &&
        !(x->grow = muster_strdup(r->grow))) {
        muster_free(x->clusters);
        muster_free(x->request);
        return MUSTER_ENOMEM;
    }
    x->id = r->id;
    x->created_at = r->created_at;
    x->admitted_at = r->admitted_at;
    x->dispatched_at = r->dispatched_at;
    x->attempt = r->attempt;
    x->not_before = r->not_before;
    x->barrier = r->barrier;
    x->user_dispatching = r->user_dispatching;
    x->assign = !r->mode || strcmp(r->mode, "assign") == 0;
    x->gang_lead = r->gang_lead;
    l->n++;
    return 0;
}

static void shares_from_json(struct binding *b, json_object *arr)
{
    size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
    if (!n) {
        /* a pending row's "[]": none, as a binding never placed holds (a share allocated for
         * nothing was 150 bytes of every pending binding after a restart, issue 22) */
        muster_free(b->shares);
        b->shares = NULL;
        b->nshares = 0;
        return;
    }
    if (n > 256 || ctl__shares_reserve(b, (uint32_t)n)) {
        b->nshares = 0;
        return;
    }
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        const char *name = kube_json_str(e, "name");
        json_object *r = kube_json_get(e, "replicas");
        if (!name || strlen(name) >= CTL_CLUSTER_NAME_MAX)
            continue;
        snprintf(b->shares[k].cluster, sizeof b->shares[k].cluster, "%s", name);
        b->shares[k].replicas = r ? json_object_get_int(r) : 0;
        /* a split's groups per set (the row's; spec.clusters has none): a count out of range
         * leaves them all unrecorded, which ctl__split_fill refuses for several sets */
        json_object *g = kube_json_get(e, "groups");
        size_t ng = json_object_is_type(g, json_type_array) ? json_object_array_length(g) : 0;
        for (size_t j = 0; j < ng && j < CTL_SPLIT_SETS_MAX; j++) {
            json_object *v = json_object_array_get_idx(g, j);
            int64_t x = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
            if (x < 0 || x > UINT16_MAX || ng > CTL_SPLIT_SETS_MAX) {
                memset(b->shares[k].groups, 0, sizeof b->shares[k].groups);
                break;
            }
            b->shares[k].groups[j] = (uint16_t)x;
        }
        k++;
    }
    b->nshares = k;
}

/* muster's PodGroup Works for b on the hub, as the watch sees them (the OverridePolicy stays
 * for the RB's life, so it says nothing about a dispatch). */
static int has_objects(struct ctl *c, struct binding *b)
{
    char ns[256], wname[KARMADA_GANG_NAME_MAX + 1];
    const char *name;
    ctl__split_key(b->key, ns, sizeof ns, &name);
    karmada_gang_work_name(ns, name, wname, sizeof wname);
    json_object *cl = kube_json_path(ctl__rb(c, b), "spec", "clusters", NULL);
    for (uint32_t i = 0; i < b->nshares; i++) {
        char wns[CTL_CLUSTER_NAME_MAX + 16];
        karmada_path_execution_namespace(wns, sizeof wns, b->shares[i].cluster);
        if (kube_informer_get(&c->works, wns, wname))
            return 1;
    }
    for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
        const char *cn = kube_json_str(json_object_array_get_idx(cl, i), "name");
        char wns[CTL_CLUSTER_NAME_MAX + 16];
        if (cn && strlen(cn) < CTL_CLUSTER_NAME_MAX) {
            karmada_path_execution_namespace(wns, sizeof wns, cn);
            if (kube_informer_get(&c->works, wns, wname))
                return 1;
        }
    }
    return 0;
}

/* The RB's spec.clusters is b's placement: the same clusters with the same replicas. */
static int rb_placed_as_ledger(struct ctl *c, const struct binding *b)
{
    json_object *rb = ctl__rb_of(c, b);
    json_object *cl = kube_json_path(rb, "spec", "clusters", NULL);
    if (b->nshares == 0 || ctl__rb_nclusters(rb) != b->nshares)
        return 0;
    for (size_t i = 0; i < b->nshares; i++) {
        json_object *e = json_object_array_get_idx(cl, i);
        const char *n = kube_json_str(e, "name");
        json_object *r = kube_json_get(e, "replicas");
        int found = 0;
        for (uint32_t j = 0; n && j < b->nshares && !found; j++)
            found = strcmp(n, b->shares[j].cluster) == 0 &&
                    (r ? json_object_get_int(r) : 0) ==
                        (b->pg_folded ? b->pg_own_replicas : b->shares[j].replicas);
        if (!found)
            return 0;
    }
    return 1;
}

/* A pod group's lead (podgroup.c): every other member's RB on the lead's cluster, lifted, with
 * muster's barrier down, and (with want_policy) its OverridePolicy listed. 1 for a plain gang. */
static int members_lifted(struct ctl *c, struct binding *b, int want_policy)
{
    struct binding **rbs;
    uint32_t n = ctl__pg_rbs(b, &rbs);
    for (uint32_t i = 0; i < n; i++) {
        struct binding *m = rbs[i];
        if (m == b || m->gone)
            continue;
        if (want_policy) {
            char ns[256], pname[KARMADA_GANG_NAME_MAX + 1];
            const char *name;
            ctl__split_key(m->key, ns, sizeof ns, &name);
            karmada_gang_policy_name(name, pname, sizeof pname);
            if (!kube_informer_get(&c->policies, ns, pname))
                return 0;
            continue;
        }
        if (!ctl__rb(c, m) || !b->nshares || ctl__rb_nclusters(ctl__rb(c, m)) != 1 ||
            !ctl__rb_lists_cluster(ctl__rb(c, m), b->shares[0].cluster) ||
            kube_json_bool(kube_json_path(ctl__rb(c, m), "spec", "suspension", NULL),
                           "scheduling") == 1 ||
            (ctl__rb_dispatching(ctl__rb(c, m)) == 1 && m->user_dispatching != 1))
            return 0;
    }
    return 1;
}

/* The PodGroup a PodGroup Work carries: spec of its one manifest. */
static json_object *work_podgroup_spec(json_object *work)
{
    json_object *ms = kube_json_path(work, "spec", "workload", NULL);
    ms = kube_json_get(ms, "manifests");
    if (!ms || !json_object_is_type(ms, json_type_array) || json_object_array_length(ms) == 0)
        return NULL;
    return kube_json_get(json_object_array_get_idx(ms, 0), "spec");
}

/* This attempt's gang objects are on the hub and done, as the watches show them (step 2 over):
 * the OverridePolicy is listed, and every share's PodGroup Work is there, not being deleted,
 * Applied, and holding the PodGroup this attempt asks for. The PodGroup is compared because an
 * earlier attempt's Work of another size keeps the same name; only its spec, because Karmada's
 * Work webhook adds labels and annotations to the manifest. */
static int objects_done(struct ctl *c, struct binding *b)
{
    char ns[256], pname[KARMADA_GANG_NAME_MAX + 1];
    const char *name;
    ctl__split_key(b->key, ns, sizeof ns, &name);
    karmada_gang_policy_name(name, pname, sizeof pname);
    json_object *pol = kube_informer_get(&c->policies, ns, pname);
    if (b->nshares == 0 || b->nshares > 256 || !members_lifted(c, b, 1))
        return 0;
    struct karmada_gang_share gs[256];
    struct karmada_gang_input in;
    ctl__fill_gang_input(c, b, &in, gs);
    if (!pol && !ctl__policy_skip_now(c, b))
        return 0;
    int done = 1;
    if (in.split) {
        /* a split's policy carries this attempt's counts and offsets, which an earlier
         * attempt's (kept on the hub) may not: its rules are compared too */
        json_object *want = karmada_gang_override_policy(&in);
        done = want && json_object_equal(kube_json_path(pol, "spec", "overrideRules", NULL),
                                         kube_json_path(want, "spec", "overrideRules", NULL));
        json_object_put(want);
    }
    for (uint32_t i = 0; done && i < b->nshares; i++) {
        if (!karmada_gang_share_has_work(&in, i))
            continue;
        json_object *have = ctl__own_work(c, b, b->shares[i].cluster);
        json_object *want = karmada_gang_podgroup_work(&in, i);
        json_object *hs = work_podgroup_spec(have), *ws = work_podgroup_spec(want);
        done = karmada_gang_work_applied(have) && hs && ws && json_object_equal(hs, ws);
        json_object_put(want);
    }
    return done;
}

/* A lifted, dispatched binding whose hub still holds more than its row: a shrink the ledger
 * recorded and musterd died before the hub heard all of it. spec.clusters lists every share of
 * the row with at least its replicas and is not the row's placement, or a PodGroup Work there
 * still carries a PodGroup other than the row's shares build. The clusters it lists beyond the
 * row's become the ones whose Works go last. */
static int resize_due(struct ctl *c, struct binding *b)
{
    if (!b->assign || b->nshares == 0 ||
        kube_json_bool(kube_json_path(ctl__rb(c, b), "spec", "suspension", NULL), "scheduling") ==
            1)
        return 0;
    json_object *cl = kube_json_path(ctl__rb(c, b), "spec", "clusters", NULL);
    size_t n = ctl__rb_nclusters(ctl__rb(c, b));
    int covers = 1;
    for (uint32_t i = 0; covers && i < b->nshares; i++) {
        int found = 0;
        for (size_t j = 0; !found && j < n; j++) {
            json_object *e = json_object_array_get_idx(cl, j);
            const char *name = kube_json_str(e, "name");
            json_object *r = kube_json_get(e, "replicas");
            found = name && strcmp(name, b->shares[i].cluster) == 0 &&
                    (r ? json_object_get_int(r) : 0) >= b->shares[i].replicas;
        }
        covers = found;
    }
    if (!covers)
        return 0;
    int due = !rb_placed_as_ledger(c, b);
    if (!due && b->needs_objects && b->nshares <= 256) {
        struct karmada_gang_share gs[256];
        struct karmada_gang_input in;
        ctl__fill_gang_input(c, b, &in, gs);
        for (uint32_t i = 0; !due && i < b->nshares; i++) {
            json_object *have = work_podgroup_spec(ctl__own_work(c, b, b->shares[i].cluster));
            json_object *want = karmada_gang_podgroup_work(&in, i);
            json_object *ws = work_podgroup_spec(want);
            due = have && ws && !json_object_equal(have, ws);
            json_object_put(want);
        }
    }
    if (b->act)
        b->act->ndropped = 0;
    for (size_t j = 0; due && j < n; j++) {
        const char *name = kube_json_str(json_object_array_get_idx(cl, j), "name");
        int mine = 0;
        for (uint32_t i = 0; name && i < b->nshares; i++)
            mine |= strcmp(name, b->shares[i].cluster) == 0;
        if (!name || mine || strlen(name) >= CTL_CLUSTER_NAME_MAX)
            continue;
        struct ctl_act *a = ctl__act_w(c, b);
        char(*d)[CTL_CLUSTER_NAME_MAX] = muster_realloc(a->dropped, (a->ndropped + 1) * sizeof(*d));
        if (!d)
            return 0; /* out of memory: the orphan sweep deletes those Works */
        a->dropped = d;
        snprintf(a->dropped[a->ndropped++], CTL_CLUSTER_NAME_MAX, "%s", name);
    }
    return due;
}

/* Runs b's dispatch from step st (a barrier check starts its back-off afresh). */
void ctl__forward_from(struct ctl *c, struct binding *b, enum step st)
{
    if (b->act)
        b->act->recheck_ms = 0;
    b->step = st;
    ctl__step_run(c, b);
}

/* An admitted binding after a restart, or a dispatched one taken back to admitted (readmit):
 * the ledger says admitted, but the hub may be any number of steps further, up to the lift
 * (musterd died before the "dispatched" row was committed). The dispatch goes on from the first
 * step the hub does not show done, and a step it shows is not sent again: a second placement
 * patch on a lifted RB would raise muster's dispatching barrier over shares already released,
 * and lift it again.
 *  - Lifted: placed as the ledger says, the scheduling suspension gone and, with gang objects,
 *    muster's barrier down (the lift does both in one patch). Placement comes only after every
 *    PodGroup Work applied, so it proves them made. The row becomes dispatched; Scheduled=True
 *    follows.
 *  - Placed with the barrier (or held again) over objects that are done: from the barrier check
 *    (step 4), which lets the lift go once the rendered Works carry the policy.
 *  - Objects done, not placed: from the placement patch (step 3).
 *  - Else from the objects (step 2: creates that meet what exists patch it to this body).
 * A binding admitted before its hold landed and whose user kept dispatching suspended looks
 * lifted once placed; the lift would have changed nothing there, and the rendered Works stay
 * suspended until the user lifts them (Karmada renders the policy in then). */
void ctl__forward_resume(struct ctl *c, struct binding *b)
{
    int placed = b->assign && rb_placed_as_ledger(c, b);
    int lifted = kube_json_bool(kube_json_path(ctl__rb(c, b), "spec", "suspension", NULL),
                                "scheduling") != 1;
    if (b->assign)
        lifted = lifted && placed;
    if (b->assign && b->needs_objects)
        lifted = lifted && (ctl__rb_dispatching(ctl__rb(c, b)) != 1 || b->user_dispatching == 1);
    lifted = lifted && members_lifted(c, b, 0); /* a pod group is lifted whole or not at all */
    if (lifted) {
        ctl__mark_dispatched(c, b);
        ctl__forward_from(c, b, b->assign ? S_STATUS : S_NONE);
        /* running already, as likely as not: no event may come to say so */
        ctl__check_progress(c, b);
        return;
    }
    if (b->assign && b->needs_objects && objects_done(c, b)) {
        /* a gang whose template names its PodGroup is placed and lifted in one patch: placed
         * and not lifted, it was held again, and that patch lifts it. Without its policy on the
         * hub it is judged as one made without it (no_policy is not on the row). */
        if (!ctl__policy_listed(c, b))
            ctl__policy_memo(c, b);
        enum step next = ctl__assign_step(c, b);
        ctl__forward_from(c, b, next == S_ASSIGN && placed ? S_BARRIER : next);
    } else
        ctl__forward_from(c, b, ctl__forward_first(b));
}

/* A dispatched binding whose hub state is not whole at start-up (not placed as its row says,
 * or held again): the row goes back to admitted, and the protocol runs again once that is
 * committed. A crash in the middle then resumes an admitted dispatch (forward_resume) instead of
 * finding a row that says dispatched over an RB that may carry muster's barrier again. A row
 * adopted from the hub has no barrier of muster's: what the RB has now is the user's. */
static void readmit(struct ctl *c, struct binding *b)
{
    if (b->assign && b->needs_objects && !b->barrier) {
        b->barrier = 1;
        b->user_dispatching = ctl__rb_dispatching(ctl__rb(c, b));
    }
    ctl__act_w(c, b)->resume = 1; /* the committed row resumes from the hub (ledger_flush) */
    ctl__set_state(c, b, B_ADMITTED);
    ctl__lw_admitted(c, b, LW_ADMIT, ctl__act(b)->admitted_at);
}

static int rb_scheduled_true(json_object *rb)
{
    json_object *conds = kube_json_path(rb, "status", "conditions", NULL);
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
        json_object *cd = json_object_array_get_idx(conds, i);
        const char *t = kube_json_str(cd, "type"), *st = kube_json_str(cd, "status");
        if (t && st && strcmp(t, "Scheduled") == 0)
            return strcmp(st, "True") == 0;
    }
    return 0;
}

/* What start-up reconciliation does with one live ledger row, from what the hub shows. Pure:
 * tests/unit/dispatcher/controller/test_reconcile.c. */
enum ctl_recon ctl__reconcile_decide(const struct ctl_recon_facts *f)
{
    if (f->rb_gone)
        return RECON_RELEASE; /* the RB went (or is going) while muster was not running */
    if (f->unreadable && f->st == B_PENDING)
        return RECON_PARK;
    switch (f->st) {
    case B_PENDING: {
        int clean = f->scheduling == 1 && (!f->assign || f->nclusters == 0) && !f->has_objects;
        if (!clean && f->scheduling != 1 && f->nclusters > 0 && f->not_before == 0)
            return RECON_ADOPT;
        if (!clean)
            return RECON_UNDO;
        if (f->not_before > f->now)
            return RECON_BACKOFF;
        return f->queued ? RECON_WAIT : RECON_QUEUE;
    }
    case B_ADMITTED:
        return RECON_FORWARD;
    default:
        if (f->resize_due)
            return RECON_RESIZE; /* the ledger says the smaller gang: the hub follows it */
        if (!f->whole)
            return RECON_READMIT;
        return !f->scheduled_true && f->assign ? RECON_STATUS : RECON_FOLLOW;
    }
}

/* A dispatched or running row followed: its waiting scale-up back in the engine, and a gang
 * resized while no musterd led acted on (shrunk, or grown: a delta asked for). */
static void follow_row(struct ctl *c, struct binding *b, const struct live_row *r, int unreadable)
{
    if (!r->request || (b->st != B_DISPATCHED && b->st != B_RUNNING))
        return;
    ctl__grow_restore(c, b, r->grow);
    if (unreadable) {
        /* asks for what cannot be read (a size that is no whole number of groups, below its
         * min-member): not a scale to 0, it runs on as placed and says why (resize.c) */
        ctl__resize_unreadable(c, b);
        return;
    }
    struct queue_resvec was = {0};
    char err[128];
    if (kube_resvec_parse_text(c->names, r->request, "request", &was, err, sizeof err) == 0)
        ctl__resize_from_row(c, b, &was);
    queue_resvec_close(&was);
}

/* Start-up: the binding of a live row (found, or made for it), given the row's identity and
 * times, and its RB as the hub lists it now (*rb NULL when gone; *uid its uid). NULL when out of
 * memory (fatal said). */
static struct binding *row_binding(struct ctl *c, const struct live_row *r, json_object **rb,
                                   const char **uid)
{
    char ns[256];
    const char *name;
    ctl__split_key(r->binding, ns, sizeof ns, &name);
    *rb = kube_informer_get(&c->rbs, ns, name);
    struct binding *b = ctl__find_key(c, r->binding);
    if (!b && !(b = ctl__binding_new(c, r->binding, ctl__rb_tkey_len(*rb)))) {
        ctl__fatal(c, "out of memory");
        return NULL;
    }
    *uid = *rb ? kube_json_str(kube_json_get(*rb, "metadata"), "uid") : NULL;
    ctl__byid_set(c, b, r->id);
    b->created_at = r->created_at;
    if (b->act || r->admitted_at || r->dispatched_at) {
        ctl__act_w(c, b)->admitted_at = r->admitted_at;
        ctl__act_w(c, b)->dispatched_at = r->dispatched_at;
    }
    b->attempt = r->attempt;
    b->barrier = r->barrier;
    b->user_dispatching = r->user_dispatching;
    ctl__binding_set_ids(b, r->uid, NULL); /* out of memory: "", as a row without one */
    return b;
}

/* Start-up: a member of an admitted pod group (its row names its lead's): restored holding
 * nothing of its own (the lead's row and entry hold the gang), judged with its lead. One whose
 * RB went is released; its lead, if not dispatched yet, is rolled back (reconcile_row). */
static void reconcile_member(struct ctl *c, struct live_row *r)
{
    json_object *rb;
    const char *uid;
    struct binding *b = row_binding(c, r, &rb, &uid);
    if (!b)
        return;
    b->nshares = 0;
    enum bstate st = strcmp(r->state, "admitted") == 0     ? B_ADMITTED
                     : strcmp(r->state, "dispatched") == 0 ? B_DISPATCHED
                                                           : B_RUNNING;
    if (!rb || (r->uid[0] && uid && strcmp(uid, r->uid) != 0) ||
        kube_json_path(rb, "metadata", "deletionTimestamp", NULL)) {
        struct lwrite *w = ctl__lw_add(c, b, LW_MEMBER, "released");
        if (!w) {
            ctl__fatal(c, "out of memory");
            return;
        }
        w->row.id = b->ledger_id;
        snprintf(w->reason, sizeof w->reason, "deleted while muster was not running");
        w->row.reason = w->reason;
        queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
        ctl__set_state(c, b, B_DONE);
        b->gone = !rb;
        return;
    }
    json_object *keep = json_object_get(rb);
    json_object_put(b->rb);
    b->rb = keep;
    b->allow_epoch = 0;
    ctl__binding_read(c, b);                /* joins its group */
    ctl__binding_set_queue(c, b, r->queue); /* out of memory: "", a queue that is not found */
    b->assign = r->assign;
    ctl__set_state(c, b, st);
}

/* Start-up: b, a live row that is the lead of an admitted pod group (other live rows name it),
 * formed again with those members. */
static void restore_lead(struct ctl *c, struct binding *b, const struct live_rows *l)
{
    struct binding *ms[256];
    uint32_t n = 0;
    for (size_t i = 0; i < l->n && n < 256; i++) {
        if (l->v[i].gang_lead != b->ledger_id || strcmp(l->v[i].state, "pending") == 0)
            continue;
        struct binding *m = ctl__find_key(c, l->v[i].binding);
        if (m && m->ledger_id == l->v[i].id && m->st != B_DONE)
            ms[n++] = m;
    }
    if (n && ctl__pg_restore(c, b, ms, n))
        ctl__fatal(c, "out of memory");
}

/* After every row: an admitted member whose lead was not formed again (its lead's RB went, or
 * its row is no longer live) waits again, undoing what the protocol did to its RB when the gang
 * never ran; a dispatched or running one is released (its lead's row held the gang's usage). */
static void orphan_member(struct ctl *c, const struct live_row *r)
{
    struct binding *b = ctl__find_key(c, r->binding);
    if (!b || b->ledger_id != r->id || b->st < B_ADMITTED || b->st > B_RUNNING)
        return;
    struct binding *lead = b->pg ? b->pg->lead : NULL;
    if (lead && lead->ledger_id == r->gang_lead && lead->pg_folded)
        return;
    int undo = b->st == B_ADMITTED;
    struct lwrite *w =
        ctl__lw_add(c, b, undo ? LW_MEMBER_UNDO : LW_MEMBER, undo ? "pending" : "released");
    if (!w) {
        ctl__fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    snprintf(w->reason, sizeof w->reason,
             "its pod group's lead went while muster was not running%s",
             undo ? ", before the gang was dispatched" : "");
    w->row.reason = w->reason;
    if (undo) {
        w->row.clusters = "[]";
        ctl__set_reason(b, "Unschedulable", "%s", w->reason);
        ctl__set_state(c, b, B_UNDO);
    } else {
        queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
        ctl__set_state(c, b, B_DONE);
    }
}

static void reconcile_row(struct ctl *c, struct live_row *r, const struct live_rows *l)
{
    json_object *rb;
    const char *uid;
    struct binding *b = row_binding(c, r, &rb, &uid);
    if (!b)
        return;
    b->not_before = r->not_before;
    b->assign = r->assign;
    ctl__binding_set_queue(c, b, r->queue); /* out of memory: "", a queue that is not found */
    json_object *cl = json_tokener_parse(r->clusters);
    shares_from_json(b, cl);
    json_object_put(cl);
    ctl__loss_restore(c, b, r->loss);
    ctl__reclaim_restored(c, b);
    enum bstate st = strcmp(r->state, "pending") == 0      ? B_PENDING
                     : strcmp(r->state, "admitted") == 0   ? B_ADMITTED
                     : strcmp(r->state, "dispatched") == 0 ? B_DISPATCHED
                                                           : B_RUNNING;
    ctl__set_state(c, b, st);
    struct ctl_recon_facts f = {.st = st,
                                .rb_gone =
                                    !rb || (r->uid[0] && uid && strcmp(uid, r->uid) != 0) ||
                                    kube_json_path(rb, "metadata", "deletionTimestamp", NULL)};
    if (!f.rb_gone) {
        json_object *keep = json_object_get(rb);
        json_object_put(b->rb);
        b->rb = keep;
        b->allow_epoch = 0;
        f.unreadable = ctl__binding_read(c, b) != 0;
        if (st != B_PENDING && b->pg)
            restore_lead(c, b, l); /* a pod group's lead: its members, as their rows say */
        if (!f.unreadable || st != B_PENDING) {
            /* binding_read took the queue from the workload; the row's is what the engine
             * holds */
            ctl__binding_set_queue(c, b, r->queue);
            b->assign = r->assign;
        }
        f.assign = b->assign;
        f.scheduling = kube_json_bool(kube_json_path(rb, "spec", "suspension", NULL), "scheduling");
        f.nclusters = ctl__rb_nclusters(rb);
        /* looked up only where it decides: a million pending rows at start-up */
        f.has_objects = st == B_PENDING && f.scheduling == 1 && (!b->assign || f.nclusters == 0) &&
                        has_objects(c, b);
        f.not_before = b->not_before;
        f.now = now_ms(c);
        f.queued = queue_tree_entry(c->t, (uint64_t)b->ledger_id) != NULL;
        f.whole = f.scheduling != 1 && (!b->assign || f.nclusters == b->nshares);
        for (uint32_t i = 0; f.whole && b->assign && i < b->nshares; i++)
            f.whole = ctl__rb_lists_cluster(rb, b->shares[i].cluster);
        f.whole = f.whole && members_lifted(c, b, 0);
        /* a resize not followed said False after the dispatch's True was written */
        f.scheduled_true = rb_scheduled_true(rb) || ctl__resize_refused_on_rb(rb);
        f.resize_due = (st == B_DISPATCHED || st == B_RUNNING) && resize_due(c, b);
    }
    enum ctl_recon d = ctl__reconcile_decide(&f);
    if (d == RECON_ADOPT && r->gang_lead)
        d = RECON_UNDO; /* a member of a gang rolled back before its undo was over */
    if (!f.rb_gone && st == B_ADMITTED && b->pg && b->pg->lead == b &&
        b->pg->nin < (uint32_t)b->pg->total) {
        /* a member went while muster was not running, before the gang was dispatched */
        ctl__rollback(c, b, "a member of its pod group went while muster was not running");
        return;
    }
    switch (d) {
    case RECON_RELEASE:
        b->needs_objects = 1; /* its Works go too */
        ctl__release(c, b, "deleted while muster was not running");
        b->gone = !rb;
        return;
    case RECON_PARK:
        ctl__engine_forget(c, b);
        ctl__set_state(c, b, B_PARKED);
        ctl__hold_if_needed(c, b);
        return;
    case RECON_ADOPT: {
        /* Dispatched on the hub while this row says pending: another replica's decision (a
         * database that was not the leader's), not a rollback of ours (those carry a
         * back-off). Adopted as it stands rather than pulled from a running gang. */
        ctl__engine_forget(c, b);
        shares_from_json(b, kube_json_path(rb, "spec", "clusters", NULL));
        if (!b->assign)
            b->nshares = 0;
        struct lwrite *w = ctl__lw_add(c, b, LW_ADOPT_ROW, "dispatched");
        if (!w) {
            ctl__fatal(c, "out of memory");
            return;
        }
        int64_t now = now_ms(c);
        struct ctl_act *a = ctl__act_w(c, b);
        a->admitted_at = a->dispatched_at = now;
        w->row.id = b->ledger_id;
        if (ctl__lw_set_clusters(w, b)) {
            ctl__fatal(c, "out of memory");
            return;
        }
        w->row.admitted_at = now;
        w->row.dispatched_at = now;
        snprintf(w->reason, sizeof w->reason, "adopted from the hub at start-up");
        w->row.reason = w->reason;
        ctl__set_state(c, b, B_DISPATCHED);
        return;
    }
    case RECON_UNDO:
        ctl__engine_forget(c, b);
        ctl__undo_start(c, b);
        return;
    case RECON_BACKOFF:
        ctl__engine_forget(c, b);
        ctl__set_state(c, b, B_BACKOFF);
        return;
    case RECON_QUEUE:
        ctl__engine_add(c, b); /* the start-up load left it out: its queue is gone; parks it */
        return;
    case RECON_WAIT:
        if (b->pg) {
            /* a pod group's member: the start-up load queued its row alone; the group decides
             * (its lead alone is queued once every member is present) */
            ctl__engine_forget(c, b);
            ctl__engine_add(c, b);
        } else if (b->elastic || (b->split_pods && ctl__jobset_min(b))) {
            ctl__engine_add(c, b); /* loaded with its row's whole request: it waits at its min */
        }
        return;
    case RECON_FORWARD:
        ctl__elastic_restore(c, b, r->grow); /* admitted at its minimum: back to what it holds */
        ctl__forward_resume(c, b);
        return;
    case RECON_READMIT:
        ctl__elastic_restore(c, b, r->grow);
        readmit(c, b);
        return;
    case RECON_STATUS:
        /* The ledger said dispatched before Scheduled=True was written (the last step): a
         * crash between leaves it to do (or a waiting scale-up wrote Scheduled=False). */
        follow_row(c, b, r, f.unreadable); /* first: a grown gang goes back to what it holds */
        b->step = S_STATUS;
        ctl__step_run(c, b);
        ctl__check_progress(c, b);
        return;
    case RECON_FOLLOW:
        ctl__check_progress(c, b);
        follow_row(c, b, r, f.unreadable);
        ctl__reclaim_record(c, b); /* a running row: in the victim index again */
        return;
    case RECON_RESIZE:
        ctl__resize_resume(c, b); /* then followed: step_done reads it again */
        return;
    }
}

struct last_row {
    char state[16];
    char uid[CTL_UID_MAX];
    int found;
};

static int last_cb(void *ud, const struct store_ledger_row *r)
{
    struct last_row *l = ud;
    snprintf(l->state, sizeof l->state, "%s", r->state);
    snprintf(l->uid, sizeof l->uid, "%s", r->uid ? r->uid : "");
    l->found = 1;
    return 0;
}

/* An RB without a live row: finished before, muster's own dispatch the ledger does not know
 * (another replica's, or a lost database: adopted as it stands), or new. */
static void reconcile_rb(void *ud, json_object *rb)
{
    struct ctl *c = ud;
    ctl__cool_point(c); /* a start-up over a million RBs holds no million trees */
    char key[CTL_KEY_MAX];
    obj_key(rb, key, sizeof key);
    /* The RB watch's first events made a binding for every RB before this ran (rb_upsert
     * waits for reconciliation): those without a live row are decided here, not skipped. */
    struct binding *b = ctl__find_key(c, key);
    if ((b && (b->ledger_id || b->st != B_WAIT_TEMPLATE || b->inflight || b->lw_pending)) ||
        karmada_workload_kind_of(rb) == KARMADA_WORKLOAD_KIND_NONE || ctl__rb_skipped(rb) ||
        kube_json_path(rb, "metadata", "deletionTimestamp", NULL))
        return; /* (one being deleted is not queued: rb_upsert's rule) */
    const char *uid = kube_json_str(kube_json_get(rb, "metadata"), "uid");
    struct last_row last = {{0}, {0}, 0};
    store_ledger_foreach_binding(c->s, key, last_cb, &last);
    if (!b) {
        b = ctl__binding_new(c, key, ctl__rb_tkey_len(rb));
        if (!b) {
            ctl__fatal(c, "out of memory");
            return;
        }
        c->st.seen++;
    }
    json_object *keep = json_object_get(rb);
    json_object_put(b->rb);
    b->rb = keep;
    b->allow_epoch = 0;
    ctl__binding_set_ids(b, uid, NULL); /* out of memory: "", as an RB without one */
    if (last.found && strcmp(last.state, "released") == 0 && uid && strcmp(last.uid, uid) == 0) {
        ctl__set_state(c, b, B_DONE);
        /* A job that finished at once was released before its dispatch's last step, the
         * Scheduled=True status, was acknowledged, and musterd died between: it is still due
         * on an RB muster placed (a resume-mode RB is Karmada's scheduler's to tell). */
        const char *sn = kube_json_str(kube_json_get(rb, "spec"), "schedulerName");
        if (ctl__rb_nclusters(rb) > 0 &&
            kube_json_bool(kube_json_path(rb, "spec", "suspension", NULL), "scheduling") != 1 &&
            !rb_scheduled_true(rb) && sn && strcmp(sn, c->scheduler) == 0) {
            b->step = S_STATUS;
            ctl__step_run(c, b);
        }
        return;
    }
    ctl__set_state(c, b, B_WAIT_TEMPLATE);
    if (ctl__binding_read(c, b)) {
        ctl__binding_try_queue(c, b);
        return;
    }
    int sched = kube_json_bool(kube_json_path(rb, "spec", "suspension", NULL), "scheduling");
    size_t ncl = ctl__rb_nclusters(rb);
    if (ncl && sched != 1) {
        /* Dispatched, by muster (assign: nobody else places these) or by Karmada's scheduler
         * after muster lifted the hold (resume): count it as admitted and follow it. */
        shares_from_json(b, kube_json_path(rb, "spec", "clusters", NULL));
        if (!b->assign)
            b->nshares = 0;
        struct lwrite *w = ctl__lw_add(c, b, LW_ADOPT, "dispatched");
        if (!w || ctl__lw_fill_new(c, w, b)) {
            ctl__fatal(c, "out of memory");
            return;
        }
        int64_t now = now_ms(c);
        struct ctl_act *a = ctl__act_w(c, b);
        a->admitted_at = a->dispatched_at = now;
        w->row.admitted_at = now;
        w->row.dispatched_at = now;
        snprintf(w->reason, sizeof w->reason, "adopted from the hub at start-up");
        w->row.reason = w->reason;
        ctl__set_state(c, b, B_DISPATCHED);
        ctl__notice(c, "info",
                    "%s: adopted as dispatched to %zu cluster(s): the ledger had no row "
                    "for it",
                    key, ncl);
        return;
    }
    if (ncl && b->assign) {
        /* A dispatch of muster's that never finished: undone before it waits again. */
        shares_from_json(b, kube_json_path(rb, "spec", "clusters", NULL));
        b->barrier = 1;
        b->user_dispatching = -1;
        ctl__set_state(c, b, B_UNDO);
        struct lwrite *w = ctl__lw_add(c, b, LW_NEW, "pending");
        if (!w || ctl__lw_fill_new(c, w, b)) {
            ctl__fatal(c, "out of memory");
            return;
        }
        w->row.barrier = 1;
        w->row.user_dispatching = -1;
        return;
    }
    ctl__binding_try_queue(c, b);
}

/* Deletes a muster object no binding waits for (404 counts as done); a failure is left to the
 * next sweep. */
void ctl__orphan_delete(struct ctl *c, const char *path)
{
    struct request_ctx *rq = muster_malloc(sizeof(*rq));
    if (!rq)
        return;
    *rq = (struct request_ctx){c, NULL, S_NONE, MUSTER_ENOENT, 1, KUBE_DELETE, 0, NULL, NULL};
    struct kube_request req = {.verb = KUBE_DELETE, .path = path, .discard_body = 1};
    if (kube_request(c->kube, &req, ctl__on_response, rq))
        muster_free(rq);
    else
        c->st.orphans_deleted++;
}

static int binding_owns(struct binding *b, const char *cluster)
{
    if (!b || b->gone)
        return 0;
    if (b->st == B_UNDO)
        return 1; /* its undo deletes them */
    if (b->st < B_ADMITTED || b->st > B_RUNNING || !b->assign)
        return 0;
    if (!cluster)
        return 1;
    for (uint32_t i = 0; i < b->nshares; i++)
        if (strcmp(b->shares[i].cluster, cluster) == 0)
            return 1;
    return 0;
}

/* The binding a muster object was made for, if it is the same RB (its binding-uid label). */
static struct binding *owner_of(struct ctl *c, json_object *md)
{
    const char *key =
        kube_json_str(kube_json_get(md, "annotations"), KARMADA_GANG_BINDING_ANNOTATION);
    const char *uid = kube_json_str(kube_json_get(md, "labels"), KARMADA_GANG_BINDING_UID_LABEL);
    struct binding *b = key ? ctl__find_key(c, key) : NULL;
    if (b && ctl__uid_other(b, uid))
        return NULL; /* a new RB under the old name: the object was the old one's */
    return b;
}

static void orphan_work(void *ud, json_object *wk)
{
    struct ctl *c = ud;
    json_object *md = kube_json_get(wk, "metadata");
    const char *key =
        kube_json_str(kube_json_get(md, "annotations"), KARMADA_GANG_BINDING_ANNOTATION);
    const char *ns = kube_json_str(md, "namespace"), *name = kube_json_str(md, "name");
    const char *cluster = karmada_path_execution_cluster(ns);
    if (!cluster || !name || kube_json_get(md, "deletionTimestamp"))
        return;
    if (binding_owns(owner_of(c, md), cluster))
        return;
    char path[KUBE_MAX_URL_BYTES / 4];
    if (karmada_path_work(path, sizeof path, cluster, name) == 0) {
        ctl__notice(c, "info",
                    "deleting orphan PodGroup Work %s/%s (binding %s holds no share there)", ns,
                    name, key ? key : "unknown");
        ctl__orphan_delete(c, path);
    }
}

/* An OverridePolicy stays while its RB exists (deleting it would re-render the RB's Works, and
 * a Job's or Pod's pod template cannot change in a member): only one whose RB (by uid) is gone
 * is an orphan. The template's garbage collection usually removes it first. */
static void orphan_policy(void *ud, json_object *op)
{
    struct ctl *c = ud;
    /* the walk thaws every policy (they are packed, one per running gang: loop.c) and holds
     * op for the call: the ones before it go as it goes, not all at the end */
    if (c->policies.nthawed >= CTL_COOL_BATCH)
        kube_informer_trim(&c->policies);
    json_object *md = kube_json_get(op, "metadata");
    const char *key =
        kube_json_str(kube_json_get(md, "annotations"), KARMADA_GANG_BINDING_ANNOTATION);
    const char *uid = kube_json_str(kube_json_get(md, "labels"), KARMADA_GANG_BINDING_UID_LABEL);
    const char *ns = kube_json_str(md, "namespace"), *name = kube_json_str(md, "name");
    if (!ns || !name || !key)
        return;
    char rns[256];
    const char *rname;
    ctl__split_key(key, rns, sizeof rns, &rname);
    /* a binding that knows its RB and its uid answers without thawing the RB (a running gang
     * holds no tree: cool.c) */
    struct binding *b = ctl__find_key(c, key);
    char ub[CTL_UID_MAX];
    if (b && !b->gone && uid && strcmp(ctl__uid(b, ub), uid) == 0)
        return;
    json_object *rb = kube_informer_get(&c->rbs, rns, rname);
    const char *rb_uid = kube_json_str(kube_json_get(rb, "metadata"), "uid");
    if (rb && (!uid || !rb_uid || strcmp(uid, rb_uid) == 0))
        return;
    char path[KUBE_MAX_URL_BYTES / 4];
    if (karmada_path_policy(path, sizeof path, ns, name) == 0) {
        ctl__notice(c, "info", "deleting orphan OverridePolicy %s/%s (binding %s is gone)", ns,
                    name, key);
        ctl__orphan_delete(c, path);
    }
}

void ctl__orphans_sweep(struct ctl *c)
{
    ctl__prereq_check(c);
    c->sweep.last_orphans = now_ms(c);
    kube_informer_foreach(&c->works, orphan_work, c);
    kube_informer_foreach(&c->policies, orphan_policy, c);
}

void ctl__reconcile(struct ctl *c)
{
    if (!c->leading || c->reconciled || c->stopping)
        return;
    struct live_rows l = {0};
    int rc = store_ledger_foreach_live(c->s, live_cb, &l);
    if (rc) {
        for (size_t i = 0; i < l.n; i++) {
            muster_free(l.v[i].clusters);
            muster_free(l.v[i].request);
            muster_free(l.v[i].loss);
            muster_free(l.v[i].grow);
        }
        muster_free(l.v);
        ctl__fatal(c, "reading the live ledger");
        return;
    }
    ctl__timeouts_refresh(c);
    ctl__tenancy_refresh(c);
    ctl__dialects_refresh(c); /* another musterd may have led since this one read them */
    /* an admitted pod group's members first: their lead is formed again around them */
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i].gang_lead && strcmp(l.v[i].state, "pending") != 0)
            reconcile_member(c, &l.v[i]);
    for (size_t i = 0; i < l.n; i++) {
        ctl__cool_point(c); /* a million pending rows hold no million trees */
        if (!l.v[i].gang_lead || strcmp(l.v[i].state, "pending") == 0)
            reconcile_row(c, &l.v[i], &l);
    }
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i].gang_lead && strcmp(l.v[i].state, "pending") != 0)
            orphan_member(c, &l.v[i]);
    for (size_t i = 0; i < l.n; i++) {
        muster_free(l.v[i].clusters);
        muster_free(l.v[i].request);
        muster_free(l.v[i].loss);
        muster_free(l.v[i].grow);
    }
    muster_free(l.v);
    kube_informer_foreach(&c->rbs, reconcile_rb, c);
    ctl__reclaim_history_load(c);
    c->reconciled = 1;
    c->fleet.all_stale = 1; /* the rows' shares and requests were read after they were tracked */
    /* the start-up load put every pending row in the engine: a namespace that a selector no
     * longer admits (changed while no musterd led) is parked now */
    ctl__tenancy_rejudge(c, NULL);
    size_t resumed = 0, undone = 0;
    for (size_t i = 0; i < c->nbuckets; i++)
        for (struct binding *b = c->bykey[i]; b; b = b->hnext) {
            resumed += b->st == B_ADMITTED;
            undone += b->st == B_UNDO;
            /* a gang made without its policy whose template changed while no musterd ran */
            ctl__policy_follow(c, b, 1);
        }
    /* the running gangs' RB trees and the policies thawed above go before the trim */
    ctl__cool_reconciled(c);
    ctl__cool_run(c);
        /* The start-up's lists, rows and thawed objects were transient: give their pages back, so
         * the resident size is what the bindings hold (glibc keeps freed memory otherwise). */
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    ctl__logf(
        c,
        "reconciled with the hub: %zu live ledger rows, %zu bindings, %u clusters; resuming %zu "
        "half-done dispatches, undoing %zu",
        l.n, c->nbindings, c->fleet.ncl, resumed, undone);
    /* Orphans are judged after this iteration's ledger writes land (the flush), at the first
     * tick. */
    c->sweep.last_orphans = 0;
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
    ctl__kick(c);
}
