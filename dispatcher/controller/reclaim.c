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
    if (!err)
        err = queue_reclaim_gang_set(c->t, e, b->dispatched_at ? b->dispatched_at : b->admitted_at,
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
}
