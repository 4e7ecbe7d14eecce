/* One gang, several RBs (docs/dispatcher.md, "One gang, several RBs"): the Pods of a Kueue pod
 * group (or of a coscheduling, Volcano or Workload API PodGroup larger than one Pod) are one RB
 * each, and are admitted, placed and released together. The group waits until all its pods are
 * present; then one member, the lead, holds the gang: its read is folded with the others' (the
 * summed request, every pod's component), it alone is in the engine, its row carries the gang's
 * request, and its commit protocol patches every member's RB. The members' rows follow the
 * lead's (LW_MEMBER). */
#include "dispatcher/controller/ctl_int.h"

static const char *const dialect_names[] = {
    [KARMADA_WORKLOAD_DIALECT_NONE] = "none",
    [KARMADA_WORKLOAD_DIALECT_YUNIKORN] = "yunikorn",
    [KARMADA_WORKLOAD_DIALECT_KUEUE] = "kueue",
    [KARMADA_WORKLOAD_DIALECT_COSCHEDULING] = "coscheduling",
    [KARMADA_WORKLOAD_DIALECT_VOLCANO] = "volcano",
    [KARMADA_WORKLOAD_DIALECT_WORKLOAD_API] = "workload-api",
};

int ctl__pg_key(const struct karmada_workload *w, const char *ns, char *key, size_t cap,
                int32_t *total)
{
    int32_t t = 0;
    if (!w || !ns || !key || cap == 0 || !w->group_name[0])
        return 0;
    if (w->dialect == KARMADA_WORKLOAD_DIALECT_KUEUE)
        t = w->group_total;
    else if ((w->dialect == KARMADA_WORKLOAD_DIALECT_COSCHEDULING ||
              w->dialect == KARMADA_WORKLOAD_DIALECT_VOLCANO ||
              w->dialect == KARMADA_WORKLOAD_DIALECT_WORKLOAD_API) &&
             w->kind == KARMADA_WORKLOAD_KIND_POD && w->group_found == 1)
        t = w->group_min;
    /* A group within the RB (a Pod of total 1, a StatefulSet's pods) is the RB's own gang. */
    if (t <= 1 || t <= w->replicas ||
        (size_t)w->dialect >= sizeof dialect_names / sizeof *dialect_names)
        return 0;
    int n = snprintf(key, cap, "%s/%s/%s", ns, dialect_names[w->dialect], w->group_name);
    if (n < 0 || (size_t)n >= cap) {
        key[0] = '\0';
        return 0;
    }
    if (total)
        *total = t;
    return 1;
}

int ctl__pg_complete(const char *name, uint32_t present, int32_t total, char *why, size_t cap)
{
    if (total > 0 && present == (uint32_t)total)
        return 1;
    if (why && cap) {
        if (total > 0 && present > (uint32_t)total)
            snprintf(why, cap,
                     "pod group %s: %" PRIu32 " pods name a group of %" PRId32
                     "; it is queued once only %" PRId32 " do",
                     name, present, total, total);
        else
            snprintf(why, cap,
                     "pod group %s: %" PRIu32 " of %" PRId32
                     " pods present; the gang is queued once all are",
                     name, present, total);
    }
    return 0;
}

int ctl__pg_sum(const struct queue_resvec *const *reqs, uint32_t n, struct queue_resvec *out)
{
    queue_resvec_clear(out);
    for (uint32_t i = 0; i < n; i++) {
        int rc = queue_resvec_add(out, reqs[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static size_t bucket(const char *key)
{
    return queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, key) & (CTL_PG_BUCKETS - 1);
}

static struct ctl_pgroup *group_get(struct ctl *c, const char *key, int create)
{
    if (!c->pgroups) {
        if (!create)
            return NULL;
        c->pgroups = muster_calloc(CTL_PG_BUCKETS, sizeof(*c->pgroups));
        if (!c->pgroups)
            return NULL;
    }
    size_t h = bucket(key);
    for (struct ctl_pgroup *g = c->pgroups[h]; g; g = g->next)
        if (strcmp(g->key, key) == 0)
            return g;
    if (!create)
        return NULL;
    struct ctl_pgroup *g = muster_calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    snprintf(g->key, sizeof g->key, "%s", key);
    const char *s = strchr(g->key, '/');
    s = s ? strchr(s + 1, '/') : NULL;
    g->name = s ? s + 1 : g->key;
    g->next = c->pgroups[h];
    c->pgroups[h] = g;
    return g;
}

static void group_drop_if_empty(struct ctl *c, struct ctl_pgroup *g)
{
    if (g->n)
        return;
    struct ctl_pgroup **p = &c->pgroups[bucket(g->key)];
    while (*p && *p != g)
        p = &(*p)->next;
    if (*p)
        *p = g->next;
    muster_free(g->m);
    muster_free(g->in);
    muster_free(g);
}

static void group_remove(struct ctl_pgroup *g, struct binding *b)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (g->m[i] == b) {
            g->m[i] = g->m[--g->n];
            break;
        }
    for (uint32_t i = 0; i < g->nin; i++)
        if (g->in[i] == b) {
            memmove(&g->in[i], &g->in[i + 1], (g->nin - i - 1) * sizeof(*g->in));
            g->nin--;
            break;
        }
}

/* A member is present once its pending row is written (a replaced row's member has none until
 * the new one is) and it is read, queued and not in back-off: the gang may then be queued for
 * it. */
static int present(const struct binding *m, const struct binding *asking)
{
    return m->ledger_id && !m->gone &&
           (m == asking || m->st == B_PENDING || (m->pg && m->pg->lead == m && m->st == B_BACKOFF));
}

/* The lead's row carries what its entry asks for: the gang's sum once folded, its own after. */
static void row_request(struct ctl *c, struct binding *b, const char *reason)
{
    struct lwrite *w = ctl__lw_add(c, b, LW_MEMBER, "pending");
    if (w)
        w->request = ctl__request_text(c, &b->gang);
    if (!w || !w->request) {
        ctl__fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    w->row.request = w->request;
    snprintf(w->reason, sizeof w->reason, "%s", reason);
    w->row.reason = w->reason;
}

int ctl__pg_fold(struct ctl *c, struct binding *b)
{
    struct ctl_pgroup *g = b->pg;
    (void)c;
    if (!g || g->lead != b || !g->nin)
        return 0;
    b->pg_own_replicas = b->replicas;
    uint32_t ncomp = 0;
    for (uint32_t i = 0; i < g->nin; i++)
        ncomp += g->in[i]->ncomp;
    struct comp *comp = muster_calloc(ncomp ? ncomp : 1, sizeof(*comp));
    if (!comp)
        return MUSTER_ENOMEM;
    struct queue_resvec sum = {0};
    const struct queue_resvec **reqs = muster_calloc(g->nin, sizeof(*reqs));
    int32_t replicas = 0;
    uint32_t k = 0;
    int rc = reqs ? 0 : MUSTER_ENOMEM;
    for (uint32_t i = 0; i < g->nin && !rc; i++) {
        struct binding *m = g->in[i];
        /* the lead's own read is b's; a member's is its own (only the lead is folded) */
        for (uint32_t j = 0; j < m->ncomp && !rc && k < ncomp; j++, k++) {
            comp[k].replicas = m->comp[j].replicas;
            rc = queue_resvec_copy(&comp[k].req, &m->comp[j].req);
        }
        replicas += m->replicas;
        reqs[i] = &m->gang;
    }
    if (!rc)
        rc = ctl__pg_sum(reqs, g->nin, &sum);
    muster_free(reqs);
    if (rc) {
        for (uint32_t j = 0; j < k; j++)
            queue_resvec_close(&comp[j].req);
        muster_free(comp);
        queue_resvec_close(&sum);
        return rc;
    }
    for (uint32_t i = 0; i < b->ncomp; i++)
        queue_resvec_close(&b->comp[i].req);
    muster_free(b->comp);
    b->comp = comp;
    b->ncomp = k;
    queue_resvec_close(&b->gang);
    b->gang = sum;
    b->replicas = replicas;
    b->min_member = replicas;
    /* Each Pod is indivisible and the gang goes to one member, as MultiKueue sends a pod group
     * to one worker. */
    b->spread = 0;
    b->elastic = 0;
    b->group_size = 1;
    b->pg_folded = 1;
    return 0;
}

/* Every member of g that is present waits, told why. */
static void wait_all(struct ctl *c, struct ctl_pgroup *g, const char *why)
{
    for (uint32_t i = 0; i < g->n; i++) {
        struct binding *m = g->m[i];
        if (m->gone || !m->ledger_id || m->st > B_PENDING || m->st < B_BACKOFF)
            continue;
        ctl__set_reason(m, "Unschedulable", "%s", why);
        if (m->st != B_BACKOFF)
            ctl__set_state(c, m, B_PENDING);
    }
}

/* The lead of a gang not yet admitted goes back to its own read; the members wait again. */
static void unform(struct ctl *c, struct ctl_pgroup *g)
{
    struct binding *lead = g->lead;
    g->lead = NULL;
    g->nin = 0;
    if (!lead)
        return;
    if (lead->st != B_PENDING && lead->st != B_BACKOFF) {
        lead->pg_folded = 0;
        return;
    }
    ctl__engine_forget(c, lead);
    lead->pg_folded = 0;
    if (!lead->gone && ctl__rb(c, lead) && ctl__binding_read(c, lead) == 0 && lead->ledger_id)
        row_request(c, lead, "its pod group lost a member while it waited");
}

static struct binding *pick_lead(struct ctl_pgroup *g, const struct binding *asking)
{
    struct binding *lead = NULL;
    for (uint32_t i = 0; i < g->n; i++) {
        struct binding *m = g->m[i];
        if (!present(m, asking))
            continue;
        if (!lead || m->created_at < lead->created_at ||
            (m->created_at == lead->created_at && strcmp(m->key, lead->key) < 0))
            lead = m;
    }
    return lead;
}

int ctl__pg_gate(struct ctl *c, struct binding *b)
{
    struct ctl_pgroup *g = b->pg;
    if (!g)
        return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n; i++)
        n += (uint32_t)present(g->m[i], b);
    char why[KARMADA_WORKLOAD_MSG_MAX];
    int whole = ctl__pg_complete(g->name, n, g->total, why, sizeof why);
    if (g->lead && g->lead->st >= B_ADMITTED && g->lead->st != B_DONE) {
        /* admitted or dispatched already: a member queued again is an excess pod */
        if (b == g->lead)
            return 0;
        ctl__set_reason(b, "Unschedulable", "pod group %s: its gang holds %" PRId32 " pods already",
                        g->name, g->total);
        ctl__set_state(c, b, B_PENDING);
        return 1;
    }
    if (!whole) {
        unform(c, g);
        wait_all(c, g, why);
        if (b->st != B_BACKOFF) {
            ctl__set_reason(b, "Unschedulable", "%s", why);
            ctl__set_state(c, b, B_PENDING);
        }
        return 1;
    }
    /* formed around members that are all still there (none parked, replaced or gone since) */
    int stale = !g->lead || !present(g->lead, b) || g->nin != n;
    for (uint32_t i = 0; !stale && i < g->nin; i++)
        stale = !present(g->in[i], b);
    if (stale) {
        unform(c, g);
        struct binding *lead = pick_lead(g, b);
        if (!lead)
            return 1;
        g->lead = lead;
        g->nin = 0;
        g->in[g->nin++] = lead;
        for (uint32_t i = 0; i < g->n; i++)
            if (g->m[i] != lead && present(g->m[i], b))
                g->in[g->nin++] = g->m[i];
        if (ctl__pg_fold(c, lead)) {
            ctl__fatal(c, "out of memory");
            return 1;
        }
        row_request(c, lead, "queued as the gang of its pod group");
        ctl__logf(c, "pod group %s: all %" PRId32 " pods present, queued as one gang led by %s",
                  g->key, g->total, lead->key);
    }
    struct binding *lead = g->lead;
    snprintf(why, sizeof why, "pod group %s: queued as one gang of %" PRId32 " pods with %s",
             g->name, g->total, lead->key);
    for (uint32_t i = 0; i < g->n; i++) {
        struct binding *m = g->m[i];
        if (m != lead && present(m, b)) {
            ctl__set_reason(m, "Unschedulable", "%s", why);
            ctl__set_state(c, m, B_PENDING);
        }
    }
    if (b == lead)
        return 0;
    if (lead->st != B_PENDING || !queue_tree_entry(c->t, (uint64_t)lead->ledger_id))
        ctl__engine_add(c, lead);
    return 1;
}

void ctl__pg_abandon(struct ctl *c, struct binding *lead, const char *why)
{
    struct ctl_pgroup *g = lead->pg;
    if (!g || g->lead != lead)
        return;
    for (uint32_t i = 0; i < g->nin; i++) {
        struct binding *m = g->in[i];
        if (m == lead || m->gone || !m->ledger_id || m->st == B_DONE)
            continue;
        struct lwrite *w = ctl__lw_add(c, m, LW_MEMBER_UNDO, "pending");
        if (!w) {
            ctl__fatal(c, "out of memory");
            return;
        }
        w->row.id = m->ledger_id;
        w->row.clusters = "[]";
        snprintf(w->reason, sizeof w->reason,
                 "pod group %s: its lead %s went before the gang was dispatched (%s)", g->name,
                 lead->key, why);
        w->row.reason = w->reason;
        ctl__set_reason(m, "Unschedulable", "%s", w->reason);
        m->step = S_NONE;
        ctl__set_state(c, m, B_UNDO); /* the undo starts once the row is committed */
    }
    g->lead = NULL;
    g->nin = 0;
    lead->pg_folded = 0;
}

void ctl__pg_member_changed(struct ctl *c, struct binding *b)
{
    struct ctl_pgroup *g = b->pg;
    if (!g || !g->lead || g->lead == b || (g->lead->st != B_PENDING && g->lead->st != B_BACKOFF))
        return;
    unform(c, g); /* the lead's sum had the member's old request: formed anew once it is back */
}

void ctl__pg_note(struct ctl *c, struct binding *b, const struct karmada_workload *w)
{
    char ns[QUEUE_NAME_MAX + 1], key[CTL_PG_KEY_MAX];
    const char *nm;
    ctl__split_key(b->key, ns, sizeof ns, &nm);
    int32_t total = 0;
    int in = ctl__pg_key(w, ns, key, sizeof key, &total);
    if (b->pg && (!in || strcmp(b->pg->key, key) != 0))
        ctl__pg_leave(c, b, "its pods name another group now");
    if (!in)
        return;
    if (!b->pg) {
        struct ctl_pgroup *g = group_get(c, key, 1);
        if (!g)
            return; /* out of memory: queued on its own, as before composite gangs */
        if (g->n == g->cap) {
            uint32_t cap = g->cap ? g->cap * 2 : 4;
            struct binding **m = muster_realloc(g->m, cap * sizeof(*m));
            struct binding **gin = m ? muster_realloc(g->in, cap * sizeof(*gin)) : NULL;
            if (m)
                g->m = m;
            if (!gin) {
                group_drop_if_empty(c, g);
                return;
            }
            g->in = gin;
            g->cap = cap;
        }
        g->m[g->n++] = b;
        b->pg = g;
    }
    b->pg->total = total;
}

uint32_t ctl__pg_rbs(struct binding *b, struct binding ***out)
{
    static struct binding *one[1];
    if (b->pg && b->pg->lead == b && b->pg_folded && b->pg->nin) {
        *out = b->pg->in;
        return b->pg->nin;
    }
    one[0] = b;
    *out = one;
    return 1;
}

void ctl__pg_mirror(struct ctl *c, struct binding *lead, enum bstate st, const char *state,
                    const char *reason)
{
    struct ctl_pgroup *g = lead->pg;
    if (!g || g->lead != lead || !lead->pg_folded)
        return;
    for (uint32_t i = 0; i < g->nin; i++) {
        struct binding *m = g->in[i];
        if (m == lead || !m->ledger_id || m->st == B_DONE || m->gone)
            continue;
        struct lwrite *w = ctl__lw_add(c, m, LW_MEMBER, state);
        if (!w) {
            ctl__fatal(c, "out of memory");
            return;
        }
        w->row.id = m->ledger_id;
        if (st == B_ADMITTED) {
            m->barrier = lead->barrier;
            m->user_dispatching = ctl__rb_dispatching(ctl__rb(c, m));
            ctl__act_w(c, m)->admitted_at = ctl__act(lead)->admitted_at;
            w->row.barrier = m->barrier;
            w->row.user_dispatching = m->user_dispatching;
            w->row.admitted_at = ctl__act(m)->admitted_at;
            w->row.gang_lead = lead->ledger_id; /* a restart knows the lead counts it */
            char one[CTL_CLUSTER_NAME_MAX + 64];
            snprintf(one, sizeof one, "[{\"name\":\"%s\",\"replicas\":%" PRId32 "}]",
                     lead->nshares ? lead->shares[0].cluster : "", m->replicas);
            w->clusters = muster_strdup(one);
            w->row.clusters = w->clusters;
            if (!w->clusters) {
                ctl__fatal(c, "out of memory");
                return;
            }
        }
        if (st == B_DISPATCHED) {
            w->row.dispatched_at = ctl__act(lead)->dispatched_at;
            ctl__act_w(c, m)->dispatched_at = w->row.dispatched_at;
        }
        if (st == B_PENDING) {
            /* gang_lead stays: a restart before the undo is over undoes this RB itself rather
             * than adopt its placement as someone else's (reconcile.c) */
            w->row.clusters = "[]";
        }
        snprintf(w->reason, sizeof w->reason, "pod group %s: %s", g->name,
                 reason && reason[0] ? reason : state);
        w->row.reason = w->reason;
        if (st == B_DONE)
            queue_idmap_del(&c->byid, (uint64_t)m->ledger_id);
        if (st == B_PENDING)
            ctl__set_reason(m, "Unschedulable", "pod group %s: %s", g->name, reason ? reason : "");
        ctl__set_state(c, m, st);
    }
}

int ctl__pg_restore(struct ctl *c, struct binding *lead, struct binding **members, uint32_t n)
{
    struct ctl_pgroup *g = lead->pg;
    if (!g)
        return MUSTER_EINVAL;
    g->lead = lead;
    g->nin = 0;
    g->in[g->nin++] = lead;
    for (uint32_t i = 0; i < n; i++)
        if (members[i]->pg == g && members[i] != lead && g->nin < g->cap)
            g->in[g->nin++] = members[i];
    return ctl__pg_fold(c, lead);
}

void ctl__pg_leave(struct ctl *c, struct binding *b, const char *why)
{
    struct ctl_pgroup *g = b->pg;
    if (!g)
        return;
    struct binding *lead = g->lead;
    group_remove(g, b);
    b->pg = NULL;
    if (lead == b) {
        /* the lead went: before admission the others wait again; once admitted its release
         * took the members with it (ctl__release) */
        g->lead = NULL;
        b->pg_folded = 0;
        char w[KARMADA_WORKLOAD_MSG_MAX];
        uint32_t n = 0;
        for (uint32_t i = 0; i < g->n; i++)
            n += (uint32_t)present(g->m[i], NULL);
        if (!ctl__pg_complete(g->name, n, g->total, w, sizeof w))
            wait_all(c, g, w);
        for (uint32_t i = 0; i < g->n; i++) /* the gang may form again around another lead */
            if (present(g->m[i], NULL)) {
                ctl__engine_add(c, g->m[i]);
                break;
            }
    } else if (lead && lead->st == B_ADMITTED) {
        char msg[256];
        snprintf(msg, sizeof msg, "pod group %s: member %s %s before the gang was dispatched",
                 g->name, b->key, why);
        ctl__rollback(c, lead, msg);
    } else if (lead && (lead->st == B_PENDING || lead->st == B_BACKOFF)) {
        unform(c, g);
        char w[KARMADA_WORKLOAD_MSG_MAX];
        uint32_t n = 0;
        for (uint32_t i = 0; i < g->n; i++)
            n += (uint32_t)present(g->m[i], NULL);
        ctl__pg_complete(g->name, n, g->total, w, sizeof w);
        wait_all(c, g, w);
    }
    group_drop_if_empty(c, g);
}

void ctl__pg_forget(struct ctl *c, struct binding *b)
{
    struct ctl_pgroup *g = b->pg;
    if (!g)
        return;
    if (g->lead == b)
        g->lead = NULL;
    group_remove(g, b);
    b->pg = NULL;
    group_drop_if_empty(c, g);
}

void ctl__pg_close(struct ctl *c)
{
    if (!c->pgroups)
        return;
    for (size_t i = 0; i < CTL_PG_BUCKETS; i++)
        for (struct ctl_pgroup *g = c->pgroups[i], *nx; g; g = nx) {
            nx = g->next;
            muster_free(g->m);
            muster_free(g->in);
            muster_free(g);
        }
    muster_free(c->pgroups);
    c->pgroups = NULL;
}
