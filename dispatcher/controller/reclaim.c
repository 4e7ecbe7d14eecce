/* Reclaim and preemption, the dispatcher's side (issue 18, docs/reclaim.md): the running gangs
 * in the victim search's index (queue/reclaim.c), with clusters under stable small ids, and the
 * pure rules the dispatcher owns because it owns the clock: which queues and gangs are cooling
 * (preemption.maxPerMinute, preemption.cooldown) and when a pending gang is searched for. */
#include "dispatcher/controller/ctl_int.h"

#include "queue/reclaim.h"

/* ---- pure rules (tests/unit/dispatcher/controller/test_reclaim.c) ---- */

int ctl__reclaim_queue_cooling(const int64_t *preempted_at, size_t n, int64_t now,
                               uint32_t max_per_minute)
{
    if (max_per_minute == 0)
        return 0;
    uint32_t in_minute = 0;
    for (size_t i = 0; i < n; i++) {
        /* the last minute is (now - 60 s, now]: a preemption exactly a minute ago has left it */
        if (preempted_at[i] > now - CTL_RECLAIM_MINUTE_MS && preempted_at[i] <= now &&
            ++in_minute >= max_per_minute)
            return 1;
    }
    return 0;
}

int ctl__reclaim_gang_cooling(int64_t preempted_at, int64_t admitted_at, int64_t now,
                              int64_t cooldown_ms)
{
    if (preempted_at <= 0 || cooldown_ms <= 0)
        return 0;
    /* It cools from when it runs again: a gang that waited longer than the cool-down to be
     * re-admitted has had no run at all since, and must get one. Not re-admitted yet: it is
     * not running, so it is no candidate anyway; counted from the preemption. */
    int64_t from = admitted_at > preempted_at ? admitted_at : preempted_at;
    return now - from < cooldown_ms;
}

int ctl__reclaim_should_search(const struct ctl_reclaim_memo *m, uint64_t change_seq,
                               uint32_t searched_this_cycle)
{
    if (searched_this_cycle >= CTL_RECLAIM_SEARCHES_PER_CYCLE)
        return 0;
    /* Its last search found nothing: nothing has changed that could make one find something
     * (a gang started or left, a cluster's room or a queue changed). */
    return !(m->searched && m->found_nothing && m->change_seq == change_seq);
}

int64_t ctl__reclaim_hold_ms(const struct ctl *c)
{
    return c->opt.reclaim_hold_ms ? (int64_t)c->opt.reclaim_hold_ms : CTL_RECLAIM_HOLD_MS;
}

/* ---- stable cluster ids ---- */

/* The id of the cluster named name in the search's index: assigned on first sight and never
 * reused, so it stays valid while a gang holding a share there is recorded, whatever
 * c->fleet.cl does (a removed cluster is swapped with the last). A cluster that comes back gets
 * its old id. -1 when all QUEUE_RECLAIM_CLUSTERS_MAX ids are taken or on allocation failure. */
static int32_t cluster_id(struct ctl *c, const char *name)
{
    for (uint32_t i = 0; i < c->rcl.n; i++)
        if (strcmp(c->rcl.names[i], name) == 0)
            return (int32_t)i;
    if (c->rcl.n >= QUEUE_RECLAIM_CLUSTERS_MAX)
        return -1;
    if (c->rcl.n == c->rcl.cap) {
        uint32_t cap = c->rcl.cap ? c->rcl.cap * 2 : 16;
        if (cap > QUEUE_RECLAIM_CLUSTERS_MAX)
            cap = QUEUE_RECLAIM_CLUSTERS_MAX;
        void *v = muster_realloc(c->rcl.names, cap * sizeof *c->rcl.names);
        if (!v)
            return -1;
        c->rcl.names = v;
        c->rcl.cap = cap;
    }
    snprintf(c->rcl.names[c->rcl.n], sizeof c->rcl.names[0], "%s", name);
    return (int32_t)c->rcl.n++;
}

int32_t ctl__reclaim_cluster_id(struct ctl *c, const char *name)
{
    return cluster_id(c, name);
}

/* v = per x n, every resource (no overflow in any: 0, else MUSTER_ERANGE). */
static int resvec_times(struct queue_resvec *v, const struct queue_resvec *per, int64_t n)
{
    queue_resvec_clear(v);
    for (uint32_t i = 0; i < per->len; i++) {
        int64_t m;
        if (__builtin_mul_overflow(per->items[i].milli, n, &m))
            return MUSTER_ERANGE;
        int err = queue_resvec_set(v, per->items[i].id, m);
        if (err)
            return err;
    }
    return 0;
}

void ctl__reclaim_record(struct ctl *c, struct binding *b)
{
    if (!c->opt.reclaim || !b->ledger_id || b->st != B_RUNNING)
        return;
    struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    if (!e || queue_entry_state(e) != QUEUE_ENTRY_ADMITTED)
        return;
    uint32_t n = b->assign ? b->nshares : 0;
    if (n > 256)
        n = 256; /* a gang spans at most the clusters placement looks at */
    struct queue_resvec res[256];
    struct queue_reclaim_share sh[256];
    uint32_t k = 0;
    int err = 0;
    for (uint32_t i = 0; i < n && !err; i++) {
        int32_t id = cluster_id(c, b->shares[i].cluster);
        if (id < 0) {
            err = MUSTER_ENOSPC;
            break;
        }
        queue_resvec_init(&res[k]);
        /* A gang of several components (a Volcano Job) goes whole to one cluster. */
        err = b->ncomp == 1 ? resvec_times(&res[k], &b->comp[0].req, b->shares[i].replicas)
                            : queue_resvec_copy(&res[k], &b->gang);
        sh[k].cluster = (uint32_t)id;
        sh[k].res = &res[k];
        k++;
    }
    const struct ctl_act *a = ctl__act(b);
    if (!err)
        err = queue_reclaim_gang_set(c->t, e, a->dispatched_at ? a->dispatched_at : a->admitted_at,
                                     sh, k); /* durable: the same after a restart */
    for (uint32_t i = 0; i < k; i++)
        queue_resvec_close(&res[i]);
    if (err) {
        /* Not a victim then: reclaim finds less, nothing is wrong with the gang. */
        queue_reclaim_gang_clear(c->t, e);
        ctl__logf(c, "reclaim: %s is not in the victim index: %s", b->key, muster_strerror(err));
    }
    c->rcl.change_seq++;
}

void ctl__reclaim_close(struct ctl *c)
{
    muster_free(c->rcl.names);
    c->rcl.names = NULL;
    c->rcl.n = c->rcl.cap = 0;
    queue_reclaim_free(c->rcl.rc);
    c->rcl.rc = NULL;
    muster_free(c->rcl.hist);
    c->rcl.hist = NULL;
    muster_free(c->rcl.cnt);
    c->rcl.cnt = NULL;
}

/* ---- the search, after the engine's pass ---- */

/* b waits for the room preempted for it: its sentence stays, and it is not searched for. */
static int beneficiary_waits(struct ctl *c, struct binding *b, int64_t now)
{
    const struct ctl_act *a = ctl__act(b);
    if (!a->rc_until || now >= a->rc_until || !a->rc_wait)
        return 0;
    ctl__set_reason(b, "Unschedulable", "%s", a->rc_wait);
    return 1;
}

void ctl__reclaim_consider(struct ctl *c, struct binding *b)
{
    int64_t now = now_ms(c);
    if (beneficiary_waits(c, b, now) || !b->assign || b->ncomp != 1 || !b->ledger_id)
        return; /* several components (a Volcano Job): see docs/reclaim.md, known limits */
    if (now < c->rcl.busy_until)
        return; /* one preemption at a time: its room is its beneficiary's */
    for (uint32_t i = 0; i < c->rcl.nwant; i++)
        if (c->rcl.want[i] == (uint64_t)b->ledger_id)
            return;
    if (!ctl__reclaim_should_search(&ctl__act(b)->rcm, c->rcl.change_seq, c->rcl.nwant))
        return;
    c->rcl.want[c->rcl.nwant++] = (uint64_t)b->ledger_id;
    c->cyc.wanted = 1; /* the cycle runs the search, after its pass */
    ctl__kick(c);
}

/* The dry run's context: b's usable clusters, by fleet index and stable id. */
struct dry {
    struct ctl *c;
    struct binding *b;
    uint32_t n;
    uint32_t fleet[256];
    uint32_t id[256];
};

/* The room victims free in cluster k, node by node, as a lower bound: each replica of a
 * victim's share leaves at least its per-replica request free on the node it ran on. So each
 * victim share there is one more grade (its request, its replicas), and its whole is added to
 * the free sum; what the node had free besides is not counted twice. */
static int dry_grades(struct dry *d, const struct queue_reclaim_try *try, const struct cluster *k,
                      struct disp_grade *g, uint32_t cap, uint32_t *ng)
{
    for (size_t v = 0; v < try->nvictims; v++) {
        struct binding *vb = queue_idmap_get(&d->c->byid, queue_entry_id(try->victims[v]));
        for (uint32_t s = 0; vb && s < vb->nshares; s++) {
            if (strcmp(vb->shares[s].cluster, k->name) != 0 || vb->ncomp == 0)
                continue;
            if (*ng >= cap)
                return 0; /* more victim shares than grades: fewer counted, never more */
            g[*ng].min = vb->ncomp == 1 ? vb->comp[0].req : vb->gang; /* borrowed */
            g[*ng].nodes = vb->ncomp == 1 ? (uint64_t)vb->shares[s].replicas : 1;
            (*ng)++;
        }
    }
    return 0;
}

/* The replicas a search frees room for: an elastic gang's minimum (it is admitted at that, and
 * grows later without preempting anyone), a JobSet at fewer Jobs' minimum (its engine entry
 * holds that, ctl__engine_request: each level's min_count Jobs of the fewest pods; one
 * replicated job, the only JobSet that searches, so every Job is one shape), else the whole
 * gang. */
static int32_t search_replicas(const struct binding *b)
{
    if (b->split_pods && ctl__jobset_min(b)) {
        int64_t m = ctl__tree_min_pods(&b->tree, 0);
        return m >= 1 && m < b->comp[0].replicas ? (int32_t)m : b->comp[0].replicas;
    }
    int32_t min = ctl__elastic_min(b); /* a group minimum's whole groups (issue 20) */
    return b->elastic && min >= 1 && min < b->comp[0].replicas ? min : b->comp[0].replicas;
}

/* dry_fits for a gang read as a tree of groups (issue 20): the composite search place() runs
 * at admission (ctl__tree_fits), over the same clusters with the victims' room added, so its
 * required topology and whole groups are judged as they will be. */
static int dry_tree(struct dry *d, const struct queue_reclaim_try *try)
{
    struct ctl *c = d->c;
    struct disp_cluster_cap *tc = muster_calloc(d->n ? d->n : 1, sizeof(*tc));
    struct disp_grade *g = muster_calloc((size_t)(d->n ? d->n : 1) * 64, sizeof(*g));
    uint32_t built = 0;
    int ok = tc && g;
    for (uint32_t i = 0; i < d->n && ok; i++) {
        const struct cluster *k = &c->fleet.cl[d->fleet[i]];
        struct disp_grade *gi = g + (size_t)i * 64;
        uint32_t ng = 0;
        for (uint32_t j = 0; j < k->cap.ngrades && ng < 64; j++)
            gi[ng++] = k->cap.grades[j]; /* borrowed */
        dry_grades(d, try, k, gi, 64, &ng);
        tc[i] = (struct disp_cluster_cap){.name = k->name, .grades = gi, .ngrades = ng};
        built = i + 1;
        ok = !queue_resvec_copy(&tc[i].free, &k->cap.free) &&
             (d->id[i] >= try->nclusters ||
              !queue_resvec_add(&tc[i].free, &try->freed[d->id[i]])) &&
             !disp_cluster_cap_copy_parts(&tc[i], &k->cap);
    }
    int fits = ok && d->n && ctl__tree_fits(c, d->b, tc, d->fleet, d->n) == 1;
    for (uint32_t i = 0; i < built; i++) {
        queue_resvec_close(&tc[i].free);
        disp_cluster_cap_close_parts(&tc[i]);
    }
    muster_free(tc);
    muster_free(g);
    return fits;
}

/* queue_reclaim_req.fits: place() on the snapshot with the victims' room added, through the
 * same disp_cluster_fits and disp_place_fits, over the clusters place() would use. */
static int dry_fits(void *ud, const struct queue_reclaim_try *try)
{
    struct dry *d = ud;
    if (d->b->tree.n)
        return dry_tree(d, try);
    struct ctl *c = d->c;
    struct binding *b = d->b;
    struct disp_cluster_cap caps[256];
    uint64_t fits[256];
    struct disp_share out[256];
    struct disp_grade g[64];
    int ok = 1;
    for (uint32_t i = 0; i < d->n && ok; i++) {
        const struct cluster *k = &c->fleet.cl[d->fleet[i]];
        uint32_t ng = 0;
        for (uint32_t j = 0; j < k->cap.ngrades && ng < 64; j++)
            g[ng++] = k->cap.grades[j]; /* borrowed */
        dry_grades(d, try, k, g, 64, &ng);
        struct disp_cluster_cap t = {.name = k->name, .grades = g, .ngrades = ng};
        ok = !queue_resvec_copy(&t.free, &k->cap.free) &&
             (d->id[i] >= try->nclusters || !queue_resvec_add(&t.free, &try->freed[d->id[i]])) &&
             !disp_cluster_cap_copy_parts(&t, &k->cap);
        if (ok)
            fits[i] = disp_cluster_fits(&t, &b->comp[0].req);
        caps[i] = k->cap; /* disp_place_fits reads names and fits only past this point */
        queue_resvec_close(&t.free);
        disp_cluster_cap_close_parts(&t);
    }
    if (!ok || !d->n)
        return 0; /* out of memory: not known to fit, so nothing is preempted for it */
    uint64_t want = (uint64_t)search_replicas(b),
             group = b->group_size > 1 ? (uint64_t)b->group_size : 1;
    return disp_place_groups(caps, fits, d->n, want, want % group ? 1 : group,
                             b->spread ? DISP_SPREAD : DISP_SINGLE_CLUSTER, out) > 0;
}

static int hist_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The cooling gangs (ids ascending, *ng) and queues (*nq) as the history says at now. */
static void cooling(struct ctl *c, int64_t now, uint64_t *gangs, size_t *ng,
                    const struct queue_node **queues, size_t *nq)
{
    int64_t at[CTL_RECLAIM_HISTORY];
    *ng = *nq = 0;
    for (uint32_t i = 0; i < c->rcl.nhist; i++) {
        const struct ctl_rc_hist *h = &c->rcl.hist[i];
        const struct queue_node *q = queue_tree_find(c->t, h->queue);
        const struct queue_spec *sp = q ? queue_node_spec(q) : NULL;
        struct binding *vb = ctl__find_key(c, h->key);
        if (sp && vb && vb->ledger_id && ctl__act(vb)->preempted_at == h->at &&
            ctl__reclaim_gang_cooling(ctl__act(vb)->preempted_at, ctl__act(vb)->admitted_at, now,
                                      sp->cooldown))
            gangs[(*ng)++] = (uint64_t)vb->ledger_id;
        if (!q || !sp || !sp->max_per_minute)
            continue;
        int seen = 0;
        for (size_t j = 0; j < *nq && !seen; j++)
            seen = queues[j] == q;
        if (seen)
            continue;
        size_t n = 0;
        for (uint32_t j = 0; j < c->rcl.nhist; j++)
            if (strcmp(c->rcl.hist[j].queue, h->queue) == 0)
                at[n++] = c->rcl.hist[j].at;
        if (ctl__reclaim_queue_cooling(at, n, now, (uint32_t)sp->max_per_minute))
            queues[(*nq)++] = q;
    }
    qsort(gangs, *ng, sizeof *gangs, hist_cmp_u64);
}

static int count_add(struct ctl *c, const char *queue, int64_t made, int64_t suffered)
{
    for (uint32_t i = 0; i < c->rcl.ncnt; i++) {
        if (strcmp(c->rcl.cnt[i].queue, queue) == 0) {
            c->rcl.cnt[i].made += made;
            c->rcl.cnt[i].suffered += suffered;
            return 0;
        }
    }
    if (c->rcl.ncnt == c->rcl.capcnt) {
        uint32_t cap = c->rcl.capcnt ? c->rcl.capcnt * 2 : 8;
        void *v = muster_realloc(c->rcl.cnt, cap * sizeof *c->rcl.cnt);
        if (!v)
            return MUSTER_ENOMEM;
        c->rcl.cnt = v;
        c->rcl.capcnt = cap;
    }
    struct ctl_rc_count *n = &c->rcl.cnt[c->rcl.ncnt++];
    snprintf(n->queue, sizeof n->queue, "%s", queue);
    n->made = made;
    n->suffered = suffered;
    return 0;
}

static void hist_add(struct ctl *c, const struct binding *vb, int64_t now)
{
    if (!c->rcl.hist) {
        c->rcl.hist = muster_calloc(CTL_RECLAIM_HISTORY, sizeof *c->rcl.hist);
        if (!c->rcl.hist)
            return; /* no history: nothing cools, the search's own rules still hold */
    }
    struct ctl_rc_hist *h = &c->rcl.hist[c->rcl.hist_at];
    snprintf(h->key, sizeof h->key, "%s", vb->key);
    snprintf(h->queue, sizeof h->queue, "%s", vb->queue);
    h->at = now;
    c->rcl.hist_at = (c->rcl.hist_at + 1) % CTL_RECLAIM_HISTORY;
    if (c->rcl.nhist < CTL_RECLAIM_HISTORY)
        c->rcl.nhist++;
}

/* ---- the history after a restart ---- */

struct hist_load {
    struct ctl_rc_hist *ring;
    uint32_t n;
};

/* Rows come newest first: filled from the ring's end down, moved to its front after. */
static int hist_load_row(void *ud, const struct store_ledger_row *r)
{
    struct hist_load *l = ud;
    if (l->n >= CTL_RECLAIM_HISTORY)
        return 1;
    struct ctl_rc_hist *h = &l->ring[CTL_RECLAIM_HISTORY - 1 - l->n++];
    snprintf(h->key, sizeof h->key, "%s", r->binding);
    snprintf(h->queue, sizeof h->queue, "%s", r->queue);
    h->at = r->updated_at;
    return 0;
}

int ctl__reclaim_history_read(struct store *s, struct ctl_rc_hist *ring, uint32_t *nhist,
                              uint32_t *hist_at)
{
    struct hist_load l = {.ring = ring};
    int err = store_ledger_foreach_preempted(s, CTL_RECLAIM_HISTORY, hist_load_row, &l);
    if (err < 0)
        l.n = 0;
    memmove(ring, ring + (CTL_RECLAIM_HISTORY - l.n), l.n * sizeof *ring);
    *nhist = l.n;
    *hist_at = l.n % CTL_RECLAIM_HISTORY;
    return err < 0 ? err : 0;
}

void ctl__reclaim_history_load(struct ctl *c)
{
    if (!c->opt.reclaim)
        return;
    if (!c->rcl.hist && !(c->rcl.hist = muster_calloc(CTL_RECLAIM_HISTORY, sizeof *c->rcl.hist))) {
        ctl__logf(c, "reclaim: no memory for the preemption history: nothing cools until the "
                     "next preemption");
        return;
    }
    int err = ctl__reclaim_history_read(c->s, c->rcl.hist, &c->rcl.nhist, &c->rcl.hist_at);
    if (err)
        /* The search's own rules still hold; only the rate limits and cool-downs of the
         * preemptions before the restart are forgotten. */
        ctl__logf(c, "reclaim: reading the preemption history: %s: nothing cools until the next "
                     "preemption",
                  muster_strerror(err));
    /* Oldest first: a gang's preempted_at ends as its latest preemption, as evict() leaves it. */
    for (uint32_t i = 0; i < c->rcl.nhist; i++) {
        struct binding *vb = ctl__find_key(c, c->rcl.hist[i].key);
        if (vb && c->rcl.hist[i].at > ctl__act(vb)->preempted_at)
            ctl__act_w(c, vb)->preempted_at = c->rcl.hist[i].at;
    }
    if (c->rcl.nhist)
        ctl__logf(c, "reclaim: %" PRIu32 " preemptions read back from the ledger for the cooling "
                     "rules",
                  c->rcl.nhist);
}

/* Preempts vb for b: the rollback protocol on a running gang, requeued in its place without
 * back-off, held for the hold (--reclaim-hold: the room is b's), Preempted. */
static void evict(struct ctl *c, struct binding *vb, const struct binding *b, int within,
                  int64_t now)
{
    /* The ledger's reason column keeps the first 255 bytes; the condition has it whole. */
    char why[QUEUE_NAME_MAX + CTL_KEY_MAX + 96];
    if (within)
        snprintf(why, sizeof why,
                 "preempted by a priority %" PRId32 " gang of its queue %s (binding %s)",
                 b->priority, b->queue, b->key);
    else
        snprintf(why, sizeof why, "preempted to reclaim for %s (binding %s)", b->queue, b->key);
    size_t at = c->lw.n;
    ctl__rollback_preempted(c, vb, why);
    if (c->lw.n != at + 2)
        return; /* out of memory: ctl__fatal ran */
    /* Not re-admitted into the room freed for b before b: its new pending row waits. */
    vb->not_before = now + ctl__reclaim_hold_ms(c);
    c->lw.v[at + 1].row.not_before = vb->not_before;
    ctl__act_w(c, vb)->preempted_at = now;
    /* The rolledback row's time is the preemption's: start-up rebuilds the history from it. */
    c->lw.v[at].row.updated_at = now;
    ctl__set_reason(vb, "Preempted", "%s", why);
    hist_add(c, vb, now);
    if (count_add(c, vb->queue, 0, 1) || count_add(c, b->queue, 1, 0)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    if (c->opt.metrics)
        disp_metrics_preemption(c->opt.metrics, vb->queue, within ? "priority" : "reclaim");
    ctl__publish_binding(c, vb, "preempted", why);
    ctl__notice(c, "warning", "%s %s", vb->key, why);
}

/* One search for b; its victims preempted. */
static void search_for(struct ctl *c, struct binding *b, int64_t now)
{
    struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    if (!e || b->st != B_PENDING || queue_entry_state(e) != QUEUE_ENTRY_PENDING)
        return;
    if (!c->rcl.rc && !(c->rcl.rc = queue_reclaim_new()))
        return;
    struct dry d = {.c = c, .b = b};
    for (uint32_t i = 0; i < c->fleet.ncl && i < 256; i++) {
        if (!ctl__place_usable(c, b, i))
            continue;
        int32_t id = cluster_id(c, c->fleet.cl[i].name);
        if (id < 0)
            continue;
        d.fleet[d.n] = i;
        d.id[d.n++] = (uint32_t)id;
    }
    size_t ncl = c->rcl.n;
    struct queue_resvec *room = muster_calloc(ncl ? ncl : 1, sizeof *room);
    uint64_t *gangs = muster_malloc(CTL_RECLAIM_HISTORY * sizeof *gangs);
    const struct queue_node **queues = muster_malloc(CTL_RECLAIM_HISTORY * sizeof *queues);
    if (!room || !gangs || !queues)
        goto out;
    for (uint32_t i = 0; i < d.n; i++)
        room[d.id[i]] = c->fleet.cl[d.fleet[i]].cap.free; /* borrowed: read only */
    size_t ng, nq;
    cooling(c, now, gangs, &ng, queues, &nq);
    struct queue_reclaim_req req = {
        .queue = queue_entry_queue(e),
        .priority = b->priority,
        .per_replica = &b->comp[0].req,
        .replicas = (uint32_t)search_replicas(b),
        .allowed = d.id,
        .nallowed = d.n,
        .room = room,
        .nclusters = ncl,
        .now = now,
        .fits = dry_fits,
        .ud = &d,
        .cooling_gangs = gangs,
        .ncooling_gangs = ng,
        .cooling_queues = queues,
        .ncooling_queues = nq,
    };
    struct ctl_act *a = ctl__act_w(c, b);
    a->rcm.searched = 1;
    a->rcm.change_seq = c->rcl.change_seq;
    a->rcm.found_nothing = 1;
    int err = d.n ? queue_reclaim_search(c->rcl.rc, c->t, &req) : MUSTER_EINVAL;
    if (err || queue_reclaim_outcome(c->rcl.rc) != QUEUE_RECLAIM_VICTIMS) {
        /* Said once per change of the index (the memo): why reclaim does not help it. */
        char no[KARMADA_WORKLOAD_MSG_MAX] = "";
        if (!err)
            queue_reclaim_explain_wait(c->rcl.rc, c->t, no, sizeof no);
        ctl__logf(c, "reclaim: nothing preempted for %s (%" PRIu64 " running gangs indexed): %s",
                  b->key, queue_reclaim_gang_count(c->t), err ? muster_strerror(err) : no);
        goto out;
    }
    a->rcm.found_nothing = 0;
    /* Read and explained before the first eviction changes the tree. */
    char wait[KARMADA_WORKLOAD_MSG_MAX];
    if (queue_reclaim_explain_wait(c->rcl.rc, c->t, wait, sizeof wait) < 0 && !wait[0])
        snprintf(wait, sizeof wait, "waiting for capacity to be reclaimed");
    size_t nv = queue_reclaim_count(c->rcl.rc);
    struct binding **vbs = muster_malloc(nv * sizeof *vbs);
    int *within = muster_malloc(nv * sizeof *within);
    if (!vbs || !within) {
        muster_free(vbs);
        muster_free(within);
        goto out;
    }
    for (size_t i = 0; i < nv; i++) {
        const struct queue_reclaim_victim *v = queue_reclaim_victim(c->rcl.rc, i);
        vbs[i] = queue_idmap_get(&c->byid, queue_entry_id(v->gang));
        within[i] = v->kind == QUEUE_RECLAIM_WITHIN_QUEUE;
        /* A victim with a step in flight (a shrink) is not rolled back under it: the whole
         * set or nothing, so nothing goes in vain; searched again next cycle. */
        if (!vbs[i] || vbs[i]->st != B_RUNNING || vbs[i]->step != S_NONE || vbs[i]->inflight)
            nv = 0;
    }
    for (size_t i = 0; i < nv; i++) {
        char ex[512];
        int r = queue_reclaim_explain_victim(c->rcl.rc, c->t, i, ex, sizeof ex);
        if (r >= 0 || r == MUSTER_ENOSPC)
            ctl__logf(c, "reclaim: %s for %s: %s", vbs[i]->key, b->key, ex);
    }
    for (size_t i = 0; i < nv; i++)
        evict(c, vbs[i], b, within[i], now);
    if (!nv) {
        muster_free(vbs);
        muster_free(within);
        goto out;
    }
    muster_free(vbs);
    muster_free(within);
    muster_free(a->rc_wait);
    a->rc_wait = muster_strdup(wait);
    a->rc_until = now + ctl__reclaim_hold_ms(c);
    c->rcl.busy_until = a->rc_until;
    ctl__set_reason(b, "Unschedulable", "%s", wait);
    /* The condition may never show it (written after a grace, and the room often comes
     * sooner): the log keeps what the gang waited for. */
    ctl__logf(c, "reclaim: %s waits: %s", b->key, wait);
    c->rcl.change_seq++;
out:
    muster_free(room);
    muster_free(gangs);
    muster_free(queues);
}

void ctl__reclaim_run(struct ctl *c)
{
    int64_t now = now_ms(c);
    uint32_t n = c->rcl.nwant;
    c->rcl.nwant = 0;
    for (uint32_t i = 0; i < n && now >= c->rcl.busy_until; i++) {
        struct binding *b = queue_idmap_get(&c->byid, c->rcl.want[i]);
        if (b)
            search_for(c, b, now);
    }
}

void ctl__reclaim_restored(struct ctl *c, const struct binding *b)
{
    int64_t now = now_ms(c);
    if (!c->opt.reclaim || b->not_before <= now)
        return;
    int64_t hold = ctl__reclaim_hold_ms(c);
    int64_t until = b->not_before < now + hold ? b->not_before : now + hold;
    if (until > c->rcl.busy_until)
        c->rcl.busy_until = until;
}

int ctl__reclaim_flush_counts(struct ctl *c, int64_t now)
{
    for (uint32_t i = 0; i < c->rcl.ncnt; i++) {
        const struct ctl_rc_count *k = &c->rcl.cnt[i];
        int err = store_preemptions_add(c->s, k->queue, k->made, k->suffered, now);
        if (err == MUSTER_ECONFLICT)
            continue; /* the queue went meanwhile: its counts with it */
        if (err)
            return err;
    }
    return 0;
}

void ctl__reclaim_counted(struct ctl *c)
{
    for (uint32_t i = 0; i < c->rcl.ncnt && c->opt.preempted; i++)
        c->opt.preempted(c->opt.preempted_ud, c->rcl.cnt[i].queue, c->rcl.cnt[i].made,
                         c->rcl.cnt[i].suffered);
    c->rcl.ncnt = 0;
}
