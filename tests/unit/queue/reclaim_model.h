/* A world for the reclaim search's tests and benchmark: clusters with room, running gangs with
 * their shares per cluster, a pending gang, a simple placement dry run (replicas counted per
 * cluster against what is free there), and a naive reference model of the search that tries
 * every subset of the running gangs, smallest first, in preference order. Slow and obviously
 * right; it shares no code with queue/reclaim.c (usage and admission come from model.h). */
#ifndef MUSTER_TESTS_QUEUE_RECLAIM_MODEL_H
#define MUSTER_TESTS_QUEUE_RECLAIM_MODEL_H

#include "model.h"

#include "queue/reclaim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RM_CLUSTERS_MAX 64
#define RM_GANGS_MAX 16

struct rm_gang {
    struct queue_entry *e;
    int64_t started;
    struct queue_resvec share[RM_CLUSTERS_MAX]; /* by cluster */
};

struct rm_world {
    struct queue_tree *t;
    size_t nclusters;
    struct queue_resvec room[RM_CLUSTERS_MAX];
    struct rm_gang g[RM_GANGS_MAX];
    size_t ngangs;
    /* the pending gang */
    const struct queue_node *queue;
    int32_t priority;
    struct queue_resvec per;
    uint32_t replicas;
    uint32_t allowed[RM_CLUSTERS_MAX];
    size_t nallowed;
    int spread; /* replicas may spread over the allowed clusters; else all in one */
    int64_t now;
    struct queue_resvec fleet; /* as given to queue_tree_set_fleet, if it was */
    int lending;               /* as given to queue_tree_set_lending */
    uint64_t cooling_gangs[RM_GANGS_MAX];
    size_t ncooling_gangs;
    const struct queue_node *cooling_queues[8];
    size_t ncooling_queues;
    long fits_calls;
};

/* How many replicas of per fit in have + extra (extra may be NULL). */
static inline int64_t rm_replicas_in(const struct queue_resvec *per, const struct queue_resvec *have,
                                     const struct queue_resvec *extra)
{
    int64_t n = INT64_MAX;
    for (uint32_t k = 0; k < per->len; k++) {
        int64_t free_ = queue_resvec_get(have, per->items[k].id) +
                        (extra ? queue_resvec_get(extra, per->items[k].id) : 0);
        int64_t c = free_ < 0 ? 0 : free_ / per->items[k].milli;
        if (c < n)
            n = c;
    }
    return n;
}

/* The placement dry run: replicas per allowed cluster from room + freed. */
static inline int rm_fits(void *ud, const struct queue_reclaim_try *tr)
{
    struct rm_world *w = ud;
    int64_t sum = 0, most = 0;
    w->fits_calls++;
    for (size_t i = 0; i < w->nallowed; i++) {
        uint32_t c = w->allowed[i];
        int64_t n = rm_replicas_in(&w->per, &w->room[c], tr ? &tr->freed[c] : NULL);
        sum += n;
        most = n > most ? n : most;
    }
    return (w->spread ? sum : most) >= (int64_t)w->replicas;
}

static inline void rm_request(const struct rm_world *w, struct queue_reclaim_req *req)
{
    memset(req, 0, sizeof(*req));
    req->queue = w->queue;
    req->priority = w->priority;
    req->per_replica = &w->per;
    req->replicas = w->replicas;
    req->allowed = w->allowed;
    req->nallowed = w->nallowed;
    req->room = w->room;
    req->nclusters = w->nclusters;
    req->now = w->now;
    req->fits = rm_fits;
    req->ud = (void *)w;
    req->cooling_gangs = w->cooling_gangs;
    req->ncooling_gangs = w->ncooling_gangs;
    req->cooling_queues = w->cooling_queues;
    req->ncooling_queues = w->ncooling_queues;
}

/* Records gang i in the engine's index from w->g[i]. */
static inline int rm_gang_record(struct rm_world *w, size_t i)
{
    struct queue_reclaim_share sh[RM_CLUSTERS_MAX];
    size_t n = 0;
    for (size_t c = 0; c < w->nclusters; c++)
        if (w->g[i].share[c].len)
            sh[n++] = (struct queue_reclaim_share){(uint32_t)c, &w->g[i].share[c]};
    return queue_reclaim_gang_set(w->t, w->g[i].e, w->g[i].started, sh, n);
}

/* ---- the naive model ---- */

struct rm_answer {
    int found;          /* a set helps (possibly the empty one) */
    size_t n;           /* its size */
    size_t idx[RM_GANGS_MAX]; /* gang indexes, in preference order */
    size_t ncands;      /* gangs eligible alone */
    long subsets;       /* sets tried */
};

struct rm_model {
    struct rm_world *w;
    struct model m;
    int pq;                     /* model index of the pending gang's queue */
    int64_t total[64];          /* the request, by resource id */
    uint32_t R;
    int eligible[RM_GANGS_MAX];
    int within[RM_GANGS_MAX];
    int lca[RM_GANGS_MAX];      /* model index of the lowest common ancestor */
    size_t order[RM_GANGS_MAX]; /* eligible gangs in preference order */
    size_t nord;
};

static inline int rm_counted(const struct queue_spec *s, uint32_t r)
{
    return s->deserved.len == 0 || queue_resvec_get(&s->deserved, r) > 0;
}

static inline int rm_asked(const struct rm_world *w, uint32_t r)
{
    return queue_resvec_get(&w->per, r) > 0;
}

static inline int rm_depth(const struct model *m, int i)
{
    int d = 0;
    for (; m->n[i].parent >= 0; i = m->n[i].parent)
        d++;
    return d;
}

static inline int rm_lca(const struct model *m, int a, int b)
{
    int da = rm_depth(m, a), db = rm_depth(m, b);
    for (; da > db; da--)
        a = m->n[a].parent;
    for (; db > da; db--)
        b = m->n[b].parent;
    while (a != b) {
        a = m->n[a].parent;
        b = m->n[b].parent;
    }
    return a;
}

/* Queue i stays within its deserved share with the whole request added. */
static inline int rm_within_deserved(const struct rm_model *rm, int i)
{
    const struct queue_spec *s = queue_node_spec(rm->m.n[i].q);
    for (uint32_t k = 0; k < rm->w->per.len; k++) {
        uint32_t r = rm->w->per.items[k].id;
        if (rm_counted(s, r) &&
            rm->m.n[i].use[r] + rm->total[r] > queue_resvec_get(&s->deserved, r))
            return 0;
    }
    return 1;
}

/* Queue i is over its deserved share in something the request asks for. */
static inline int rm_over(const struct rm_model *rm, int i)
{
    const struct queue_spec *s = queue_node_spec(rm->m.n[i].q);
    for (uint32_t k = 0; k < rm->w->per.len; k++) {
        uint32_t r = rm->w->per.items[k].id;
        if (rm_counted(s, r) && rm->m.n[i].use[r] > queue_resvec_get(&s->deserved, r))
            return 1;
    }
    return 0;
}

static inline int rm_useful(const struct rm_world *w, size_t g)
{
    for (size_t a = 0; a < w->nallowed; a++)
        for (uint32_t k = 0; k < w->per.len; k++)
            if (queue_resvec_get(&w->g[g].share[w->allowed[a]], w->per.items[k].id) > 0)
                return 1;
    return 0;
}

static inline double rm_share(const struct rm_model *rm, size_t g)
{
    return rm->m.n[model_index(&rm->m, queue_entry_queue(rm->w->g[g].e))].share;
}

/* Preference: across queues before within; most over-share queue, name; lower priority,
 * newer, higher id. */
static inline int rm_before(const struct rm_model *rm, size_t a, size_t b)
{
    const struct rm_world *w = rm->w;
    if (rm->within[a] != rm->within[b])
        return rm->within[b];
    double sa = rm_share(rm, a), sb = rm_share(rm, b);
    if (sa != sb)
        return sa > sb;
    int c = strcmp(queue_node_name(queue_entry_queue(w->g[a].e)),
                   queue_node_name(queue_entry_queue(w->g[b].e)));
    if (c)
        return c < 0;
    int32_t pa = queue_entry_priority(w->g[a].e), pb = queue_entry_priority(w->g[b].e);
    if (pa != pb)
        return pa < pb;
    if (w->g[a].started != w->g[b].started)
        return w->g[a].started > w->g[b].started;
    return queue_entry_id(w->g[a].e) > queue_entry_id(w->g[b].e);
}

/* The floors of a set (gang indexes): no queue on a victim's side below the common ancestor
 * goes below its guarantee in anything, nor below its deserved in what it borrows and the
 * request asks for. */
static inline int rm_floors_ok(const struct rm_model *rm, const size_t *set, size_t n)
{
    for (size_t x = 0; x < rm->m.nn; x++) {
        const struct queue_spec *s = queue_node_spec(rm->m.n[x].q);
        for (uint32_t r = 0; r < rm->R; r++) {
            int64_t taken = 0;
            for (size_t j = 0; j < n; j++) {
                size_t g = set[j];
                if (rm->within[g])
                    continue;
                int leaf = model_index(&rm->m, queue_entry_queue(rm->w->g[g].e));
                for (int y = leaf; y != rm->lca[g]; y = rm->m.n[y].parent)
                    if (y == (int)x)
                        taken += queue_resvec_get(queue_entry_request(rm->w->g[g].e), r);
            }
            if (!taken)
                continue;
            int64_t use = rm->m.n[x].use[r];
            int64_t gua = queue_resvec_get(&s->guarantee, r);
            int64_t des = queue_resvec_get(&s->deserved, r);
            if (use - taken < gua)
                return 0;
            if (rm_asked(rm->w, r) && rm_counted(s, r) && use > des && use - taken < des)
                return 0;
        }
    }
    return 1;
}

/* Queue rules with the set gone (model.h recomputes from scratch), then the dry run. */
static inline int rm_helps(struct rm_model *rm, const size_t *set, size_t n)
{
    struct rm_world *w = rm->w;
    for (size_t j = 0; j < n; j++)
        rm->m.e[queue_entry_id(w->g[set[j]].e)].admitted = 0;
    model_snapshot(&rm->m);
    struct queue_resvec tot = {0};
    for (uint32_t k = 0; k < w->per.len; k++)
        queue_resvec_set(&tot, w->per.items[k].id, rm->total[w->per.items[k].id]);
    int ok = model_can_admit(&rm->m, model_index(&rm->m, w->queue), &tot);
    queue_resvec_close(&tot);
    for (size_t j = 0; j < n; j++)
        rm->m.e[queue_entry_id(w->g[set[j]].e)].admitted = 1;
    model_snapshot(&rm->m);
    if (!ok)
        return 0;
    struct queue_resvec freed[RM_CLUSTERS_MAX];
    const struct queue_entry *vict[RM_GANGS_MAX];
    memset(freed, 0, sizeof(freed));
    for (size_t j = 0; j < n; j++) {
        vict[j] = w->g[set[j]].e;
        for (size_t c = 0; c < w->nclusters; c++)
            queue_resvec_add(&freed[c], &w->g[set[j]].share[c]);
    }
    struct queue_reclaim_try tr = {vict, n, freed, w->nclusters};
    long calls = w->fits_calls;
    ok = rm_fits(w, &tr);
    w->fits_calls = calls; /* the model's dry runs are not the engine's */
    for (size_t c = 0; c < w->nclusters; c++)
        queue_resvec_close(&freed[c]);
    return ok;
}

static inline int rm_valid(struct rm_model *rm, const size_t *set, size_t n)
{
    return rm_floors_ok(rm, set, n) && rm_helps(rm, set, n);
}

static inline void rm_model_init(struct rm_model *rm, struct rm_world *w)
{
    memset(rm, 0, sizeof(*rm));
    rm->w = w;
    uint64_t max_id = 0;
    for (size_t i = 0; i < w->ngangs; i++)
        if (queue_entry_id(w->g[i].e) > max_id)
            max_id = queue_entry_id(w->g[i].e);
    model_init(&rm->m, w->t, (size_t)max_id + 1);
    for (size_t i = 0; i < w->ngangs; i++) {
        const struct queue_entry *e = w->g[i].e;
        model_add(&rm->m, queue_entry_id(e), queue_entry_queue(e), queue_entry_priority(e),
                  queue_entry_created(e), queue_entry_request(e), 1);
    }
    queue_resvec_copy(&rm->m.fleet, &w->fleet);
    rm->m.lending = w->lending;
    model_snapshot(&rm->m);
    rm->R = rm->m.R;
    rm->pq = model_index(&rm->m, w->queue);
    for (uint32_t k = 0; k < w->per.len; k++)
        rm->total[w->per.items[k].id] = w->per.items[k].milli * (int64_t)w->replicas;
}

static inline void rm_model_close(struct rm_model *rm)
{
    model_close(&rm->m);
}

/* Which gangs may go at all, and in what order. */
static inline void rm_rank(struct rm_model *rm)
{
    struct rm_world *w = rm->w;
    rm->nord = 0;
    for (size_t g = 0; g < w->ngangs; g++) {
        const struct queue_node *v = queue_entry_queue(w->g[g].e);
        const struct queue_spec *vs = queue_node_spec(v);
        int ok = rm_useful(w, g);
        for (size_t c = 0; c < w->ncooling_gangs; c++)
            ok &= w->cooling_gangs[c] != queue_entry_id(w->g[g].e);
        for (size_t c = 0; c < w->ncooling_queues; c++)
            ok &= w->cooling_queues[c] != v;
        if (vs->min_runtime > 0 && w->now - w->g[g].started < vs->min_runtime)
            ok = 0;
        int vi = model_index(&rm->m, v);
        rm->within[g] = v == w->queue;
        if (rm->within[g]) {
            ok &= vs->within_queue == QUEUE_WITHIN_LOWER_PRIORITY &&
                  queue_entry_priority(w->g[g].e) < w->priority;
        } else if (ok) {
            int l = rm->lca[g] = rm_lca(&rm->m, vi, rm->pq);
            for (int x = rm->pq; ok && x != l; x = rm->m.n[x].parent)
                ok = rm_within_deserved(rm, x);
            for (int x = vi; ok && x != l; x = rm->m.n[x].parent)
                ok = rm_over(rm, x);
        }
        size_t one[1] = {g};
        ok = ok && rm_floors_ok(rm, one, 1);
        rm->eligible[g] = ok;
        if (ok)
            rm->order[rm->nord++] = g;
    }
    for (size_t a = 1; a < rm->nord; a++) /* insertion sort by preference */
        for (size_t b = a; b > 0 && rm_before(rm, rm->order[b], rm->order[b - 1]); b--) {
            size_t tmp = rm->order[b];
            rm->order[b] = rm->order[b - 1];
            rm->order[b - 1] = tmp;
        }
}

/* Every subset, by size, then in preference order (lexicographic over rm->order). */
static inline void rm_solve(struct rm_model *rm, struct rm_answer *ans)
{
    memset(ans, 0, sizeof(*ans));
    rm_rank(rm);
    ans->ncands = rm->nord;
    size_t n = rm->nord;
    for (size_t k = 0; k <= n; k++) {
        size_t pos[RM_GANGS_MAX], set[RM_GANGS_MAX];
        for (size_t j = 0; j < k; j++)
            pos[j] = j;
        for (;;) {
            for (size_t j = 0; j < k; j++)
                set[j] = rm->order[pos[j]];
            ans->subsets++;
            if (rm_valid(rm, set, k)) {
                ans->found = 1;
                ans->n = k;
                memcpy(ans->idx, set, k * sizeof(*set));
                return;
            }
            /* next combination of k out of n */
            size_t j = k;
            while (j > 0 && pos[j - 1] == n - k + j - 1)
                j--;
            if (j == 0)
                break;
            pos[j - 1]++;
            for (size_t x = j; x < k; x++)
                pos[x] = pos[x - 1] + 1;
        }
    }
}

#endif
