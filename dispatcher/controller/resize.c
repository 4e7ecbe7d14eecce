/* After dispatch, a gang that shrinks: fewer replicas or smaller requests give their capacity
 * back at once (the ledger, then the engine and the clusters' reservations, then the hub's
 * PodGroups and spec.clusters), and a gang scaled to 0 holds nothing (docs/dispatcher.md,
 * "Scale down"). A gang that grows gets the difference admitted as an admission of its own:
 * a delta recorded on its row, waiting in the engine, placed preferring the gang's clusters,
 * then folded into the gang and dispatched through the commit protocol ("Scale up"). */
#include "dispatcher/controller/ctl_int.h"

/* What a gang read again asks for, against what it holds. Pure. */
enum ctl_resize ctl__resize_judge(const struct ctl_resize_side *was,
                                  const struct ctl_resize_side *now)
{
    if (now->replicas == 0)
        return RESIZE_ZERO;
    if (now->ncomp != was->ncomp || now->replicas > was->replicas ||
        !queue_resvec_fits(now->gang, was->gang, NULL))
        return RESIZE_GROW;
    int same = now->replicas == was->replicas && queue_resvec_cmp(now->gang, was->gang) == 0;
    for (uint32_t i = 0; i < now->ncomp; i++) {
        if (now->comp[i].replicas > was->comp[i].replicas ||
            !queue_resvec_fits(&now->comp[i].req, &was->comp[i].req, NULL))
            return RESIZE_GROW;
        same = same && now->comp[i].replicas == was->comp[i].replicas &&
               queue_resvec_cmp(&now->comp[i].req, &was->comp[i].req) == 0;
    }
    return same ? RESIZE_SAME : RESIZE_SHRINK;
}

/* The placement of a gang shrunk to `replicas` in total: the last-placed shares give up their
 * replicas first, so the gang keeps its first, roomiest clusters and leaves the partly filled
 * last one (a spread placement fills the roomiest clusters first and puts the remainder last:
 * what is kept is what a placement of the smaller gang would pick). Shares left with none are
 * moved to sh[kept..n), in order. Returns how many are kept (at least 1 while replicas > 0).
 * Pure. */
uint32_t ctl__shares_shrink(struct share *sh, uint32_t n, int32_t replicas)
{
    int64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += sh[i].replicas;
    int64_t give = total - replicas;
    for (uint32_t i = n; i-- > 0 && give > 0;) {
        int32_t g = give < sh[i].replicas ? (int32_t)give : sh[i].replicas;
        sh[i].replicas -= g;
        give -= g;
    }
    uint32_t kept = 0;
    while (kept < n && sh[kept].replicas > 0)
        kept++;
    return kept;
}

/* A gang of groups (issue 20) shrinks by whole groups: whole shares first, the smallest first
 * (ties: the last placed), as many as fit in what is given up, so the most clusters come free
 * whole (fewer PodGroups, a cluster's whole room for the next gang); the rest from the last
 * placed share left, which still holds more than that. Every share keeps whole groups. Shares
 * left with none are moved to sh[kept..n), the others keep their order. Shares that are not all
 * whole groups, or a size that is not, are shrunk as ctl__shares_shrink does. Pure. */
uint32_t ctl__shares_shrink_groups(struct share *sh, uint32_t n, int32_t replicas, int32_t group)
{
    int64_t total = 0;
    int whole = group > 1 && replicas % group == 0;
    for (uint32_t i = 0; i < n; i++) {
        total += sh[i].replicas;
        whole = whole && sh[i].replicas % group == 0;
    }
    if (!whole)
        return ctl__shares_shrink(sh, n, replicas);
    int64_t give = total - replicas;
    for (;;) {
        uint32_t best = n;
        for (uint32_t i = n; i-- > 0;)
            if (sh[i].replicas > 0 && sh[i].replicas <= give &&
                (best == n || sh[i].replicas < sh[best].replicas))
                best = i;
        if (best == n)
            break;
        give -= sh[best].replicas;
        sh[best].replicas = 0;
    }
    for (uint32_t i = n; i-- > 0 && give > 0;) {
        int32_t g = give < sh[i].replicas ? (int32_t)give : sh[i].replicas;
        sh[i].replicas -= g;
        give -= g;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (sh[i].replicas == 0)
            continue;
        if (i != kept) {
            /* the dropped ones after the kept, in their order */
            struct share t = sh[i];
            memmove(&sh[kept + 1], &sh[kept], (i - kept) * sizeof(*sh));
            sh[kept] = t;
        }
        kept++;
    }
    return kept;
}

int ctl__grow_delta(const struct ctl_resize_side *was, const struct ctl_resize_side *now,
                    struct queue_resvec *delta, int32_t *dreplicas)
{
    queue_resvec_clear(delta);
    *dreplicas = now->replicas > was->replicas ? now->replicas - was->replicas : 0;
    for (uint32_t i = 0; i < now->gang->len; i++) {
        const struct queue_res *r = &now->gang->items[i];
        int64_t d = r->milli - queue_resvec_get(was->gang, r->id);
        if (d > 0 && queue_resvec_set(delta, r->id, d)) {
            queue_resvec_clear(delta);
            return MUSTER_ENOMEM;
        }
    }
    return 0;
}

int ctl__gang_at(const struct comp *comp, uint32_t ncomp, int32_t replicas,
                 struct queue_resvec *out)
{
    queue_resvec_clear(out);
    if (ncomp != 1 || replicas < 0 || replicas > comp[0].replicas)
        return MUSTER_EINVAL;
    for (uint32_t i = 0; i < comp[0].req.len; i++) {
        const struct queue_res *r = &comp[0].req.items[i];
        int64_t m;
        if (__builtin_mul_overflow(r->milli, (int64_t)replicas, &m)) {
            queue_resvec_clear(out);
            return MUSTER_ERANGE;
        }
        if (m != 0 && queue_resvec_set(out, r->id, m)) {
            queue_resvec_clear(out);
            return MUSTER_ENOMEM;
        }
    }
    return 0;
}

static const struct ctl_grow_room *room_of(const struct ctl_grow_room *room, uint32_t nroom,
                                           const char *cluster)
{
    for (uint32_t i = 0; i < nroom; i++)
        if (strcmp(room[i].cluster, cluster) == 0)
            return &room[i];
    return NULL;
}

int32_t ctl__shares_grow(struct share *sh, uint32_t *n, uint32_t cap,
                         const struct ctl_grow_room *room, uint32_t nroom, int32_t add)
{
    /* a dry run first, so a delta that does not fit leaves the shares as they were */
    int32_t left = add;
    uint32_t added = 0;
    for (uint32_t i = 0; i < *n && left > 0; i++) {
        const struct ctl_grow_room *r = room_of(room, nroom, sh[i].cluster);
        if (r && r->fits > 0)
            left -= r->fits < left ? r->fits : left;
    }
    for (uint32_t i = 0; i < nroom && left > 0; i++) {
        int used = 0;
        for (uint32_t j = 0; j < *n && !used; j++)
            used = strcmp(sh[j].cluster, room[i].cluster) == 0;
        if (used || room[i].fits <= 0)
            continue;
        if (*n + added >= cap)
            break;
        left -= room[i].fits < left ? room[i].fits : left;
        added++;
    }
    if (left > 0)
        return left;
    left = add;
    uint32_t was_n = *n;
    for (uint32_t i = 0; i < was_n && left > 0; i++) {
        const struct ctl_grow_room *r = room_of(room, nroom, sh[i].cluster);
        if (!r || r->fits <= 0)
            continue;
        int32_t g = r->fits < left ? r->fits : left;
        sh[i].replicas += g;
        left -= g;
    }
    for (uint32_t i = 0; i < nroom && left > 0; i++) {
        int used = 0;
        for (uint32_t j = 0; j < was_n && !used; j++)
            used = strcmp(sh[j].cluster, room[i].cluster) == 0;
        if (used || room[i].fits <= 0)
            continue;
        struct share *x = &sh[(*n)++];
        memset(x, 0, sizeof *x);
        snprintf(x->cluster, sizeof x->cluster, "%s", room[i].cluster);
        x->replicas = room[i].fits < left ? room[i].fits : left;
        left -= x->replicas;
    }
    return 0;
}

void ctl__grow_wait_message(char *buf, size_t cap, int32_t dreplicas, const char *why)
{
    snprintf(buf, cap, "scale up by %" PRId32 " replica%s waits: %s", dreplicas,
             dreplicas == 1 ? "" : "s", why);
}

/* What the binding read last, moved aside while it is read again (binding_read frees it). */
struct read_kept {
    struct comp *comp;
    uint32_t ncomp;
    struct queue_resvec gang;
    int32_t replicas, min_member, priority;
    int assign, spread, needs_objects;
    enum karmada_workload_kind kind;
    const char *queue; /* interned */
    json_object *tmpl;
};

static void read_keep(struct binding *b, struct read_kept *k)
{
    k->comp = b->comp;
    k->ncomp = b->ncomp;
    k->gang = b->gang;
    k->replicas = b->replicas;
    k->min_member = b->min_member;
    k->priority = b->priority;
    k->assign = b->assign;
    k->spread = b->spread;
    k->needs_objects = b->needs_objects;
    k->kind = b->kind;
    k->queue = b->queue;
    k->tmpl = json_object_get(b->tmpl);
    b->comp = NULL;
    b->ncomp = 0;
    memset(&b->gang, 0, sizeof b->gang);
}

static void read_drop(struct read_kept *k)
{
    for (uint32_t i = 0; i < k->ncomp; i++)
        queue_resvec_close(&k->comp[i].req);
    muster_free(k->comp);
    queue_resvec_close(&k->gang);
    json_object_put(k->tmpl);
}

/* The binding goes back to what it read before (the new read is not followed). */
static void read_restore(struct binding *b, struct read_kept *k)
{
    ctl__binding_clear_read(b);
    b->comp = k->comp;
    b->ncomp = k->ncomp;
    b->gang = k->gang;
    b->replicas = k->replicas;
    b->min_member = k->min_member;
    b->priority = k->priority;
    b->assign = k->assign;
    b->spread = k->spread;
    b->needs_objects = k->needs_objects;
    b->kind = k->kind;
    b->queue = k->queue;
    json_object_put(b->tmpl);
    b->tmpl = k->tmpl;
}

/* Growth: the delta's record on the row, its engine entry, its admission. */
char *ctl__grow_record(struct ctl *c, const struct ctl_grow *g)
{
    json_object *o = json_object_new_object();
    json_object *req = kube_resvec_json(c->names, &g->req);
    char *txt = NULL;
    if (o && req) {
        json_object_object_add(o, "replicas", json_object_new_int(g->replicas));
        json_object_object_add(o, "request", json_object_get(req));
        json_object_object_add(o, "since", json_object_new_int64(g->since));
        const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        txt = t ? muster_strdup(t) : NULL;
    }
    json_object_put(req);
    json_object_put(o);
    return txt;
}

static uint64_t grow_id(const struct binding *b)
{
    return CTL_GROW_ID | (uint64_t)b->ledger_id;
}

/* The delta's engine entry leaves the engine (cancelled, asked again, or folded). */
static void grow_unqueue(struct ctl *c, struct binding *b)
{
    struct queue_entry *e = b->ledger_id ? queue_tree_entry(c->t, grow_id(b)) : NULL;
    if (!e)
        return;
    queue_entry_remove(c->t, e);
    c->grows_waiting--;
}

static void grow_free(struct binding *b)
{
    if (!b->grow)
        return;
    queue_resvec_close(&b->grow->req);
    muster_free(b->grow);
    b->grow = NULL;
}

int ctl__grow_cancel(struct ctl *c, struct binding *b)
{
    if (!b->grow)
        return 0;
    grow_unqueue(c, b);
    grow_free(b);
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
    return 1;
}

void ctl__grow_queued(struct ctl *c, struct binding *b)
{
    struct ctl_grow *g = b->grow;
    if (!g || !b->ledger_id || (b->st != B_DISPATCHED && b->st != B_RUNNING) ||
        queue_tree_entry(c->t, grow_id(b)))
        return;
    /* same queue and priority as the gang; in line from when it was asked for */
    struct queue_entry_spec es = {.id = grow_id(b),
                                  .queue = b->queue,
                                  .priority = b->priority,
                                  .created_at = g->since,
                                  .request = &g->req};
    struct queue_entry *e;
    struct queue_error qe;
    if (queue_entry_add(c->t, &es, &e, &qe)) {
        ctl__notice(c, "warning", "%s: its scale up cannot wait in queue %s: %s", b->key, b->queue,
                    qe.msg);
        return;
    }
    c->grows_waiting++;
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
    ctl__kick(c);
}

/* The row's waiting delta written (or cleared, record ""), before the engine hears of it. */
static void grow_write(struct ctl *c, struct binding *b, const char *reason)
{
    struct lwrite *w = ctl__lw_add(c, b, LW_GROW_ASK, ctl__state_names[b->st]);
    if (!w) {
        ctl__fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    w->grow = b->grow ? ctl__grow_record(c, b->grow) : muster_strdup("");
    if (!w->grow) {
        ctl__fatal(c, "out of memory");
        return;
    }
    snprintf(w->reason, sizeof w->reason, "%s", reason);
    w->row.reason = w->reason;
    ctl__publish_binding(c, b, ctl__state_names[b->st], w->reason);
}

/* b (at what it holds) now asks for d more replicas, req more in all. */
static int grow_ask(struct ctl *c, struct binding *b, int32_t d, const struct queue_resvec *req)
{
    struct ctl_grow *g = b->grow;
    if (g && g->replicas == d && queue_resvec_cmp(&g->req, req) == 0)
        return 0; /* the same ask, seen again */
    if (g) {
        grow_unqueue(c, b); /* asked again: queued again once written */
    } else {
        g = muster_calloc(1, sizeof(*g));
        if (!g)
            return MUSTER_ENOMEM;
        g->since = now_ms(c);
        b->grow = g;
    }
    if (queue_resvec_copy(&g->req, req)) {
        grow_free(b);
        return MUSTER_ENOMEM;
    }
    g->replicas = d;
    g->admitted = 0;
    char reason[128];
    snprintf(reason, sizeof reason,
             "scale up by %" PRId32 " replica%s asked (from %" PRId32 " to %" PRId32
             "): waits for its admission",
             d, d == 1 ? "" : "s", b->replicas, b->replicas + d);
    grow_write(c, b, reason);
    ctl__notice(c, "info", "%s: %s", b->key, reason);
    return 0;
}

/* Scaled back to what it holds while its delta waited. */
static void grow_withdrawn(struct ctl *c, struct binding *b)
{
    ctl__grow_cancel(c, b);
    grow_write(c, b, "scale up withdrawn: it asks for what it holds");
    /* nothing waits any more: the RB's Scheduled=False for the delta becomes True again */
    ctl__set_reason(b, "", "%s", "");
    if (ctl__rb(c, b) && !b->gone)
        ctl__send_scheduled(c, b);
}

/* Only more replicas of the same single shape in assign mode are admitted as a delta: a Volcano
 * Job goes whole to one cluster and a changed shape would change the running pods. */
static int grow_shape_same(const struct binding *b, const struct read_kept *k)
{
    return b->assign && k->assign && b->ncomp == 1 && k->ncomp == 1 && b->replicas > k->replicas &&
           k->replicas > 0 && queue_resvec_cmp(&b->comp[0].req, &k->comp[0].req) == 0 &&
           strcmp(k->queue, b->queue) == 0 && k->priority == b->priority && k->kind == b->kind;
}

/* A dispatched gang read again asks for more: the delta is asked for and b goes back to what
 * it holds. 1 when handled so (k restored or dropped), 0 when not a growth a delta covers. */
static int grow_judged(struct ctl *c, struct binding *b, struct read_kept *k)
{
    if (!grow_shape_same(b, k))
        return 0;
    struct ctl_resize_side was = {k->replicas, k->ncomp, &k->gang, k->comp},
                           now = {b->replicas, b->ncomp, &b->gang, b->comp};
    struct queue_resvec d = {0};
    int32_t dr = 0;
    int rc = ctl__grow_delta(&was, &now, &d, &dr);
    read_restore(b, k);
    if (rc || grow_ask(c, b, dr, &d))
        ctl__fatal(c, "out of memory");
    queue_resvec_close(&d);
    return 1;
}

/* At start-up: b was read at its new size; the row holds `held` replicas (row_gang). b goes
 * back to what it holds and the difference waits as a delta (restored, or asked now). */
static void grow_from_row(struct ctl *c, struct binding *b, const struct queue_resvec *row_gang,
                          int32_t held)
{
    struct queue_resvec at = {0};
    uint32_t pods;
    /* the replica's shape counts a pod each for placement; the queues do not (binding_read) */
    int rc = queue_resnames_intern(c->names, "pods", 4, &pods);
    if (!rc)
        rc = ctl__gang_at(b->comp, b->ncomp, held, &at);
    if (!rc && queue_resvec_get(&b->gang, pods) == 0)
        rc = queue_resvec_set(&at, pods, 0);
    if (rc || queue_resvec_cmp(&at, row_gang) != 0) {
        queue_resvec_close(&at);
        return; /* not the same shape: followed as admitted, as before */
    }
    int32_t want = b->replicas;
    struct ctl_resize_side was = {held, 1, &at, b->comp}, now = {want, 1, &b->gang, b->comp};
    struct queue_resvec d = {0};
    int32_t dr = 0;
    rc = ctl__grow_delta(&was, &now, &d, &dr);
    queue_resvec_close(&b->gang);
    b->gang = at; /* what it holds */
    b->replicas = held;
    b->comp[0].replicas = held;
    if (rc || grow_ask(c, b, dr, &d))
        ctl__fatal(c, "out of memory");
    queue_resvec_close(&d);
}

void ctl__grow_restore(struct ctl *c, struct binding *b, const char *record)
{
    if (!record || b->grow)
        return;
    json_object *o = json_tokener_parse(record);
    json_object *r = kube_json_get(o, "replicas"), *s = kube_json_get(o, "since");
    struct ctl_grow *g = muster_calloc(1, sizeof(*g));
    char err[128];
    if (!g || !r ||
        kube_resvec_parse(c->names, kube_json_get(o, "request"), "request", &g->req, err,
                          sizeof err)) {
        if (g)
            queue_resvec_close(&g->req);
        muster_free(g);
        json_object_put(o);
        return; /* asked again from what the RB says (ctl__resize_from_row) */
    }
    g->replicas = json_object_get_int(r);
    g->since = s ? json_object_get_int64(s) : now_ms(c);
    b->grow = g;
    json_object_put(o);
    ctl__grow_queued(c, b);
}

/* While the delta waits the RB's condition and the API say why; the running part runs on. */
static void grow_waits(struct ctl *c, struct binding *b, const char *reason, const char *why)
{
    char m[KARMADA_WORKLOAD_MSG_MAX];
    ctl__grow_wait_message(m, sizeof m, b->grow->replicas, why);
    ctl__set_reason(b, reason, "%s", m);
    if (b->cond_dirty && !b->side_inflight && ctl__rb(c, b) && !b->gone) {
        ctl__publish_binding(c, b, ctl__state_names[b->st], m);
        ctl__send_condition(c, b);
    }
}

/* The clusters the delta may use, and how many more replicas of its shape each holds in this
 * cycle's snapshot: a spread gang any allowed Ready cluster, a single-cluster one only its own
 * (it stays whole in one cluster); a tree gang's within its required topology and in whole
 * groups. */
static uint32_t grow_room(struct ctl *c, struct binding *b, struct ctl_grow_room *room,
                          uint32_t cap)
{
    uint32_t n = 0;
    /* A gang of groups (issue 20) grows in whole groups; one with a required topology only in
     * the clusters it uses, where every pack and spread it holds stays held. */
    int32_t unit = b->tree.n > 1 && b->group_size > 1 ? (int32_t)b->group_size : 1;
    int tree_required = 0;
    for (uint32_t i = 0; i < b->tree.n && unit > 1; i++)
        for (uint32_t j = 0; j < b->tree.g[i].ntopo; j++)
            tree_required |= b->tree.g[i].topo[j].required;
    /* a tree gang grows within its required topology: where its groups already are decides */
    json_object *kept[256];
    uint32_t nk = 0;
    for (uint32_t j = 0; b->tree.n && j < b->nshares && nk < 256; j++) {
        struct cluster *k = ctl__cluster_find(c, b->shares[j].cluster);
        if (k)
            kept[nk++] = k->obj;
    }
    for (uint32_t i = 0; i < c->fleet.ncl && n < cap; i++) {
        struct cluster *k = &c->fleet.cl[i];
        int used = 0;
        for (uint32_t j = 0; j < b->nshares && !used; j++)
            used = strcmp(b->shares[j].cluster, k->name) == 0;
        if (!k->ready || (!b->spread && !used) || (b->needs_objects && k->no_podgroups) ||
            (ctl__mtopo_required(b) && k->no_nettopo) ||
            (ctl__mtopo_names_required(b) && k->no_tiernames) || !ctl__cluster_allows(c, b, k) ||
            ctl__cluster_lost_to(c, b, k) || !ctl__tree_cluster_ok(&b->tree, kept, nk, k->obj))
            continue;
        if (!used && tree_required)
            continue;
        uint64_t f = disp_cluster_fits(&k->cap, &b->comp[0].req);
        f -= f % (uint64_t)unit; /* whole groups only: a share stays whole groups */
        room[n].cluster = k->name;
        room[n++].fits = f > INT32_MAX ? INT32_MAX : (int32_t)f;
    }
    /* a group-size gang grows by whole groups (its delta is some) */
    if (b->tree.n && b->group_size > 1)
        ctl__grow_rooms_whole(room, n, b->group_size);
    return n;
}

void ctl__grow_rooms_whole(struct ctl_grow_room *room, uint32_t n, int32_t group)
{
    for (uint32_t i = 0; group > 1 && i < n; i++)
        room[i].fits -= room[i].fits % group;
}

int ctl__grow_offer(struct ctl *c, struct queue_entry *e)
{
    struct binding *b = queue_idmap_get(&c->byid, queue_entry_id(e) & ~CTL_GROW_ID);
    struct ctl_grow *g = b ? b->grow : NULL;
    if (!g || g->admitted || (b->st != B_DISPATCHED && b->st != B_RUNNING) || b->step != S_NONE ||
        b->inflight || b->lw_pending || ctl__act(b)->reread_due || ctl__act(b)->loss ||
        b->rb_behind || b->nshares == 0 || b->nshares > 256)
        return 1; /* judged once what is in flight is over */
    /* the gang as it asks now (the RB and template are the newest): what the delta admits */
    struct read_kept k;
    read_keep(b, &k);
    if (ctl__binding_read(c, b) || !grow_shape_same(b, &k) ||
        b->replicas != k.replicas + g->replicas) {
        read_restore(b, &k);
        return 1; /* it changed again: its event asks again (ctl__resize_check) */
    }
    struct ctl_grow_room room[256] = {{NULL, 0}};
    uint32_t nroom = grow_room(c, b, room, 256);
    struct share sh[256];
    uint32_t n = b->nshares;
    memcpy(sh, b->shares, n * sizeof(*sh));
    int32_t left = ctl__shares_grow(sh, &n, 256, room, nroom, g->replicas);
    if (left > 0) {
        read_restore(b, &k);
        char why[KARMADA_WORKLOAD_MSG_MAX], holds[160] = "";
        for (uint32_t i = 0; i < nroom && i < 4; i++) {
            size_t l = strlen(holds);
            snprintf(holds + l, sizeof holds - l, "%s%s holds %" PRId32, i ? ", " : "",
                     room[i].cluster, room[i].fits);
        }
        char groups[64] = "";
        if (b->tree.n > 1 && b->group_size > 1)
            snprintf(groups, sizeof groups, " in whole groups of %" PRId32, b->group_size);
        snprintf(why, sizeof why, "no %s holds %" PRId32 " more replicas%s node by node (%s)",
                 b->spread ? "set of its allowed Ready clusters" : "room in its cluster",
                 g->replicas, groups, nroom ? holds : "no allowed Ready cluster");
        grow_waits(c, b, "NoClusterFit", why);
        return 1;
    }
    struct queue_limit lim;
    if (queue_entry_admit(c->t, e, &lim)) {
        read_restore(b, &k);
        char why[256];
        queue_limit_explain(c->t, &lim, why, sizeof why);
        grow_waits(c, b, "QuotaExceeded", why);
        return 1;
    }
    read_drop(&k);
    int32_t was = b->replicas - g->replicas;
    /* the grown placement: the shares that grew are seen running again (their PodGroup
     * changes); the clusters' snapshot takes the added replicas at once */
    int32_t added[256] = {0};
    for (uint32_t i = 0; i < n; i++)
        added[i] = sh[i].replicas - (i < b->nshares ? b->shares[i].replicas : 0);
    char onto[128] = "";
    ctl__shares_untrack(c, b);
    if (ctl__shares_reserve(b, n)) {
        ctl__fatal(c, "out of memory");
        return 0;
    }
    memcpy(b->shares, sh, n * sizeof(*sh));
    for (uint32_t i = 0; i < n; i++) {
        if (!added[i])
            continue;
        b->shares[i].running = 0;
        size_t l = strlen(onto);
        snprintf(onto + l, sizeof onto - l, "%s%s", l ? ", " : "", b->shares[i].cluster);
    }
    ctl__shares_track(c, b);
    for (uint32_t i = 0; i < n; i++) {
        struct cluster *kc = added[i] ? ctl__cluster_find(c, b->shares[i].cluster) : NULL;
        struct share d = b->shares[i];
        d.replicas = added[i];
        if (kc)
            ctl__cap_take(c, kc, b, &d);
    }
    g->admitted = 1;
    c->growing++;
    int64_t now = now_ms(c);
    ctl__act_w(c, b)->admitted_at = now;
    b->step = S_NONE;
    if (b->needs_objects) {
        b->barrier = 1;
        b->user_dispatching = ctl__rb_dispatching(ctl__rb(c, b));
    }
    ctl__set_state(c, b, B_ADMITTED);
    struct lwrite *w = ctl__lw_add(c, b, LW_GROW, "admitted");
    if (!w || ctl__lw_fill_new(c, w, b) || !(w->grow = muster_strdup(""))) {
        ctl__fatal(c, "out of memory");
        return 0;
    }
    /* an update of the live row: admitted again, grown, the delta cleared */
    w->row.id = b->ledger_id;
    w->row.binding = w->row.uid = w->row.queue = NULL;
    w->row.admitted_at = now;
    snprintf(w->reason, sizeof w->reason,
             "scaled up from %" PRId32 " to %" PRId32 " replicas: %" PRId32
             " more admitted on %.100s",
             was, b->replicas, g->replicas, onto);
    w->row.reason = w->reason;
    ctl__set_reason(b, "", "%s", "");
    c->st.resized++;
    ctl__publish_binding(c, b, "admitted", w->reason);
    ctl__notice(c, "info", "%s: %s", b->key, w->reason);
    b->rb_behind = 1; /* muster rewrites spec.clusters: the cached RB is from before */
    return 0;
}

void ctl__grows_fold(struct ctl *c)
{
    if (!c->growing)
        return;
    c->growing = 0;
    for (struct binding *b = c->active.next; b != &c->active; b = b->next) {
        if (!b->grow || !b->grow->admitted)
            continue;
        grow_unqueue(c, b);
        struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
        struct queue_error qe;
        if (e && queue_entry_resize(c->t, e, &b->gang, &qe))
            ctl__notice(c, "warning", "%s: queue %s could not count its grown size: %s", b->key,
                        b->queue, qe.msg);
        grow_free(b);
    }
}

static int dropped_add(struct ctl *c, struct binding *b, const char *cluster)
{
    struct ctl_act *a = ctl__act_w(c, b);
    for (uint32_t i = 0; i < a->ndropped; i++)
        if (strcmp(a->dropped[i], cluster) == 0)
            return 0;
    char(*d)[CTL_CLUSTER_NAME_MAX] = muster_realloc(a->dropped, (a->ndropped + 1) * sizeof(*d));
    if (!d)
        return MUSTER_ENOMEM;
    a->dropped = d;
    snprintf(a->dropped[a->ndropped++], CTL_CLUSTER_NAME_MAX, "%s", cluster);
    return 0;
}

/* A dispatched gang scaled to 0: its row is released ("scaled to 0") and a pending row takes
 * its place in line in the same transaction, and the hub is undone as a rollback undoes it
 * (barrier, spec.clusters cleared with the hold back, muster's PodGroup Works deleted): Karmada
 * divides a Deployment's replicas by spec.clusters, so a placement left behind would keep the
 * member's old replicas, and a later scale up would reach the members without the queue. Once
 * undone it waits parked, holding nothing, until it is scaled up (queued as new). The pending
 * row carries not_before = now: a pending row with a dispatched hub and no back-off would be
 * taken for another replica's dispatch and adopted at start-up, not undone. */
static void scaled_to_zero(struct ctl *c, struct binding *b)
{
    ctl__engine_forget(c, b);
    struct lwrite *w = ctl__lw_add(c, b, LW_ZERO_OLD, "released");
    if (!w) {
        ctl__fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    snprintf(w->reason, sizeof w->reason, "scaled to 0");
    w->row.reason = w->reason;
    queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    b->ledger_id = 0;
    if (!b->barrier)
        b->user_dispatching = ctl__rb_dispatching(ctl__rb(c, b));
    b->barrier = 1;
    b->not_before = now_ms(c);
    struct lwrite *n = ctl__lw_add(c, b, LW_ROLLBACK_NEW, "pending");
    if (!n || ctl__lw_fill_new(c, n, b)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    n->row.barrier = 1;
    n->row.user_dispatching = b->user_dispatching;
    ctl__set_reason(b, CTL_REASON_SCALED_TO_ZERO, "scaled to 0: holds nothing");
    ctl__set_state(c, b, B_UNDO);
    b->step = S_NONE;
    c->st.released++;
    if (c->opt.metrics)
        disp_metrics_release(c->opt.metrics, "scaled to 0");
    ctl__publish_binding(c, b, "released", "scaled to 0");
    ctl__notice(c, "info", "%s scaled to 0: released, its placement undone", b->key);
}

/* The row says what the gang holds now; the engine and the clusters follow once it is
 * committed (ledger_flush: ctl__resize_apply). */
static void shrunk(struct ctl *c, struct binding *b, int32_t was_replicas)
{
    int had_delta = ctl__grow_cancel(c, b); /* it asks for less than it holds: nothing to add */
    ctl__shares_untrack(c, b); /* the clusters it held are rebuilt, the dropped ones too */
    if (b->act)
        b->act->ndropped = 0;
    if (b->assign && b->ncomp == 1) {
        /* a group-size gang gives up whole groups (docs/composite.md, "Scale down") */
        uint32_t kept = b->tree.n > 1 && b->group_size > 1
                            ? ctl__shares_shrink_groups(b->shares, b->nshares, b->replicas,
                                                        b->group_size)
                            : ctl__shares_shrink(b->shares, b->nshares, b->replicas);
        for (uint32_t i = kept; i < b->nshares; i++)
            if (dropped_add(c, b, b->shares[i].cluster)) {
                ctl__fatal(c, "out of memory");
                return;
            }
        b->nshares = kept;
    } else if (b->assign && b->nshares == 1) {
        b->shares[0].replicas = b->replicas; /* a Volcano Job: whole in one cluster */
    }
    struct lwrite *w = ctl__lw_add(c, b, LW_RESIZE, ctl__state_names[b->st]);
    if (!w || ctl__lw_fill_new(c, w, b)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    /* an update of the live row: only state, clusters, reason and request */
    w->row.id = b->ledger_id;
    w->row.binding = w->row.uid = w->row.queue = NULL;
    if (had_delta && !(w->grow = muster_strdup(""))) {
        ctl__fatal(c, "out of memory");
        return;
    }
    if (was_replicas != b->replicas)
        snprintf(w->reason, sizeof w->reason,
                 "scaled down from %" PRId32 " to %" PRId32 " replicas", was_replicas, b->replicas);
    else
        snprintf(w->reason, sizeof w->reason, "its requests shrank (%" PRId32 " replicas)",
                 b->replicas);
    w->row.reason = w->reason;
    c->st.resized++;
    ctl__publish_binding(c, b, ctl__state_names[b->st], w->reason);
    ctl__notice(c, "info", "%s %s: capacity released", b->key, w->reason);
}

/* A resize of a dispatched gang that is not followed: the gang runs on as placed and says why
 * on its RB's Scheduled condition (as a waiting scale up does), in the API and the log, once per
 * sentence. A group-size gang scaled to a size that is no whole number of groups, or below its
 * min-member, reads as it would at admission (refused there too); a gang split by groups is not
 * re-split in place. */
static void resize_refused(struct ctl *c, struct binding *b, const char *why, int32_t held)
{
    char m[KARMADA_WORKLOAD_MSG_MAX];
    if (strncmp(why, CTL_RESIZE_REFUSED, sizeof CTL_RESIZE_REFUSED - 1) == 0)
        snprintf(m, sizeof m, "%s", why); /* said already (a read that left the reason as it was) */
    else
        snprintf(m, sizeof m, CTL_RESIZE_REFUSED "%s; it runs on as placed (%" PRId32 " replicas)",
                 why, held);
    if (strcmp(ctl__binding_reason(b), "Unschedulable") == 0 &&
        strcmp(ctl__binding_msg(b), m) == 0)
        return;
    ctl__set_reason(b, "Unschedulable", "%s", m);
    ctl__publish_binding(c, b, ctl__state_names[b->st], m);
    ctl__notice(c, "warning", "%s: %s", b->key, m);
    if (b->cond_dirty && !b->side_inflight && ctl__rb(c, b) && !b->gone)
        ctl__send_condition(c, b);
}

/* A refused resize no longer stands (scaled back, or to a size that is followed): the RB's
 * condition says Scheduled again. */
int ctl__resize_refused_on_rb(json_object *rb)
{
    json_object *conds = kube_json_path(rb, "status", "conditions", NULL);
    size_t n = json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *k = json_object_array_get_idx(conds, i);
        const char *type = kube_json_path_str(k, "type", NULL);
        const char *msg = kube_json_path_str(k, "message", NULL);
        if (type && strcmp(type, "Scheduled") == 0)
            return msg && strncmp(msg, CTL_RESIZE_REFUSED, sizeof CTL_RESIZE_REFUSED - 1) == 0;
    }
    return 0;
}

static void resize_refusal_over(struct ctl *c, struct binding *b)
{
    /* the RB's own word too: a musterd started since the refusal has it only there */
    if (strncmp(ctl__binding_msg(b), CTL_RESIZE_REFUSED, sizeof CTL_RESIZE_REFUSED - 1) != 0 &&
        !ctl__resize_refused_on_rb(ctl__rb(c, b)))
        return;
    ctl__set_reason(b, "", "%s", "");
    if (ctl__rb(c, b) && !b->gone)
        ctl__send_scheduled(c, b);
}

void ctl__resize_unreadable(struct ctl *c, struct binding *b)
{
    char why[KARMADA_WORKLOAD_MSG_MAX];
    snprintf(why, sizeof why, "%s", ctl__binding_msg(b));
    int32_t held = 0;
    for (uint32_t i = 0; i < b->nshares; i++)
        held += b->shares[i].replicas;
    if (why[0])
        resize_refused(c, b, why, held);
}

int ctl__reread_owed(const struct binding *b)
{
    return ctl__act(b)->reread_due && b->step == S_NONE && !b->inflight && !b->lw_pending &&
           !b->gone && (b->st == B_DISPATCHED || b->st == B_RUNNING);
}

int ctl__resize_check(struct ctl *c, struct binding *b, int template_changed)
{
    if (b->st != B_DISPATCHED && b->st != B_RUNNING)
        return 0;
    json_object *rb = ctl__rb(c, b);
    if (!rb)
        return 0; /* unreadable (ctl__check_progress): generation 0 would read as a change */
    json_object *g = kube_json_path(rb, "metadata", "generation", NULL);
    int64_t gen = g ? json_object_get_int64(g) : 0;
    if (!template_changed && !ctl__act(b)->reread_due && gen == b->generation)
        return 0;
    if (b->step != S_NONE || b->inflight || b->lw_pending) {
        ctl__act_w(c, b)->reread_due = 1; /* looked at again when the step in flight is over */
        return 0;
    }
    if (b->act)
        b->act->reread_due = 0;
    struct read_kept k;
    int32_t was_replicas = b->replicas;
    uint32_t was_split = b->split_pods, was_sets = b->split_sets;
    read_keep(b, &k);
    int rc = ctl__binding_read(c, b);
    b->generation = gen;
    struct ctl_resize_side was = {k.replicas, k.ncomp, &k.gang, k.comp},
                           now = {b->replicas, b->ncomp, &b->gang, b->comp};
    if (!rc && k.ncomp == 0 && b->ledger_id) {
        /* never read since it was loaded (unreadable at start-up: a size not followed then):
         * judged against what its row holds, as at start-up */
        read_drop(&k);
        struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
        struct queue_resvec held = {0};
        if (e && !queue_resvec_copy(&held, queue_entry_request(e))) {
            resize_refusal_over(c, b);
            ctl__resize_from_row(c, b, &held);
        }
        queue_resvec_close(&held);
        return 0;
    }
    enum ctl_resize r = rc ? RESIZE_SAME : ctl__resize_judge(&was, &now);
    /* the read's own sentence, before read_restore puts back what it held */
    char refused[KARMADA_WORKLOAD_MSG_MAX] = "";
    if (rc == MUSTER_EINVAL)
        snprintf(refused, sizeof refused, "%s", ctl__binding_msg(b));
    if (!rc && (was_split || b->split_pods) && r != RESIZE_ZERO && r != RESIZE_SAME) {
        /* a split by groups is never re-split in place (its member copies keep their counts
         * and offsets: docs/gangobj.md): followed as admitted, as placed */
        ctl__logf(c, "%s: resized while dispatched split by groups; followed as placed", b->key);
        snprintf(refused, sizeof refused,
                 "a %s split by groups is not resized in place (each cluster's copy keeps its "
                 "groups, offsets and group-total: docs/composite.md, \"Scale down\")",
                 karmada_workload_kind_name(b->kind));
        r = RESIZE_SAME;
    }
    /* only what it asks for: its queue, priority, kind and mode are the row's */
    if (!rc && (strcmp(k.queue, b->queue) != 0 || k.priority != b->priority || k.kind != b->kind ||
                k.assign != b->assign))
        r = RESIZE_SAME;
    if (r == RESIZE_GROW && grow_judged(c, b, &k))
        return 0; /* the delta is recorded first, and waits; the gang keeps what it holds */
    if (r == RESIZE_GROW)
        ctl__logf(c,
                  "%s: grew while dispatched (%" PRId32 " replicas, was %" PRId32
                  "); followed as admitted (only more replicas of one shape are re-admitted)",
                  b->key, b->replicas, was_replicas);
    if (!rc && r == RESIZE_SAME && b->grow)
        grow_withdrawn(c, b); /* scaled back to what it holds */
    if (rc || r == RESIZE_SAME || r == RESIZE_GROW) {
        read_restore(b, &k);
        b->split_pods = was_split; /* its objects are built as it was placed */
        b->split_sets = was_sets;
        if (refused[0])
            resize_refused(c, b, refused, was_replicas);
        else if (!rc)
            resize_refusal_over(c, b);
        return 0;
    }
    read_drop(&k);
    if (r == RESIZE_ZERO) {
        scaled_to_zero(c, b);
    } else {
        resize_refusal_over(c, b);
        shrunk(c, b, was_replicas);
    }
    return 1;
}

/* The resized row is committed: the engine holds what the row says, the clusters reserve the
 * smaller shares, and the hub follows (assign mode: the PodGroup Works, then spec.clusters,
 * then the Works of clusters left). A binding released or rolled back meanwhile left the
 * engine and its clusters already. */
void ctl__resize_apply(struct ctl *c, struct binding *b)
{
    if (b->st != B_DISPATCHED && b->st != B_RUNNING)
        return;
    struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    struct queue_error qe;
    if (e && queue_entry_resize(c->t, e, &b->gang, &qe))
        ctl__notice(c, "warning", "%s: queue %s could not count its new size: %s", b->key, b->queue,
                    qe.msg);
    ctl__shares_track(c, b);
    ctl__reclaim_record(c, b); /* the resize took it out of the victim index: its new shares */
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
    ctl__kick(c);
    ctl__resize_resume(c, b);
}

void ctl__resize_resume(struct ctl *c, struct binding *b)
{
    if (!b->assign || b->nshares == 0)
        return;
    if (b->step != S_NONE || b->inflight) {
        ctl__act_w(c, b)->resize_owed = 1; /* after the step in flight (step_done) */
        return;
    }
    if (b->act)
        b->act->resize_owed = 0;
    b->step = b->needs_objects ? S_RESIZE_WORKS : S_RESIZE_CLUSTERS;
    ctl__step_run(c, b);
}

/* At start-up, a dispatched or running row whose RB asks for less than the row holds: the
 * workload was scaled down (or to 0) while no musterd led, so no event will say so. Judged on
 * the whole request (the row keeps no per-replica one) and the replicas its shares hold. */
void ctl__resize_from_row(struct ctl *c, struct binding *b, const struct queue_resvec *row_gang)
{
    if (b->split_pods)
        return; /* a split is not resized in place (ctl__resize_check) */
    int32_t held = 0;
    for (uint32_t i = 0; i < b->nshares; i++)
        held += b->shares[i].replicas;
    /* A growth is judged whatever is in flight (Scheduled=True still to write, say): b must go
     * back to what it holds before any step builds from its read, and the delta only waits. */
    if (b->assign && b->ncomp == 1 && b->replicas > held && held > 0) {
        grow_from_row(c, b, row_gang, held); /* scaled up while no musterd led, or waiting */
        return;
    }
    /* from here its row's delta, if any, no longer stands: it asks for no more */
    if (b->step != S_NONE || b->inflight || b->lw_pending) {
        ctl__grow_cancel(c, b); /* the row's record goes with its next update */
        return;
    }
    if (b->replicas == 0) {
        scaled_to_zero(c, b); /* released: the delta with it */
        return;
    }
    if (queue_resvec_cmp(&b->gang, row_gang) == 0 || !queue_resvec_fits(&b->gang, row_gang, NULL) ||
        (b->assign && b->replicas > held)) {
        if (b->grow)
            grow_withdrawn(c, b);
        return; /* the same, or grown otherwise: followed as admitted */
    }
    shrunk(c, b, b->assign ? held : b->replicas); /* the delta cancelled, cleared on the row */
}

void ctl__grows_sweep(struct ctl *c)
{
    if (!c->grows_waiting)
        return;
    for (struct binding *b = c->active.next; b != &c->active; b = b->next) {
        struct queue_entry *e = b->grow && !b->grow->admitted && b->ledger_id
                                    ? queue_tree_entry(c->t, grow_id(b))
                                    : NULL;
        struct queue_limit why;
        if (!e || (b->st != B_DISPATCHED && b->st != B_RUNNING) ||
            queue_tree_can_admit(c->t, queue_entry_queue(e), queue_entry_request(e), &why))
            continue; /* the queues would take it: the cycle places it, or says why not */
        char msg[KARMADA_WORKLOAD_MSG_MAX];
        if (queue_limit_explain(c->t, &why, msg, sizeof msg) < 0 && !msg[0])
            snprintf(msg, sizeof msg, "does not fit its queue");
        /* at root the limit may be the Ready fleet's capacity: no room, no quota (loop.c) */
        grow_waits(c, b, strncmp(msg, "fleet: ", 7) == 0 ? "NoClusterFit" : "QuotaExceeded", msg);
    }
}
