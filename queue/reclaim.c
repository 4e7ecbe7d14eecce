/* The reclaim victim search (see reclaim.h and docs/reclaim.md).
 *
 * A search runs in three passes over one ranked list of candidates:
 *   1. rank: the queues that may lend (over their deserved share, on the far side of the
 *      lowest common ancestor with the pending gang's queue) by share, most over first, then
 *      the pending gang's own queue when withinQueue allows it; in each, the running gangs in
 *      victim order (kept sorted per leaf), keeping those that may go and hold something the
 *      pending gang asks for in a cluster it may use;
 *   2. greedy: take candidates in order, skipping those that would take a queue below its
 *      floor, until the gang fits; then drop, from the back, any victim it fits without. That
 *      answer is sound and has no victim it does not need;
 *   3. exact: try every set of 1, 2, ... candidates in preference order, pruned by the floors
 *      and by what the rest of the list could free at most, so the first set that fits is the
 *      smallest and, among the smallest, the first in preference order. It is bounded by a
 *      work budget; when the budget runs out the greedy answer stands, marked not proven.
 * Each set is checked cheaply first (what it frees plus the room, summed over the allowed
 * clusters, must cover the request), then by the queue rules with its usage released, then by
 * the caller's placement dry run. */
#include "queue/reclaim.h"

#include "queue/errors.h"
#include "queue/mem.h"
#include "queue/quantity.h"
#include "queue/tree_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the index of running gangs ---- */

/* Victim order within a queue: lower priority, then newer, then higher id first. */
static int gang_before(const struct queue__gang *a, const struct queue__gang *b)
{
    if (a->prio != b->prio)
        return a->prio < b->prio;
    if (a->started != b->started)
        return a->started > b->started;
    return a->id > b->id;
}

static void gang_free(struct queue__gang *g)
{
    for (uint32_t i = 0; g && i < g->nshares; i++)
        queue_resvec_close(&g->shares[i].res);
    if (g)
        muster_free(g->shares);
    muster_free(g);
}

void queue__gang_drop(struct queue_entry *e)
{
    gang_free(e->gang);
    e->gang = NULL;
}

static void gleaf_remove(struct queue_tree *t, struct queue_node *leaf)
{
    uint32_t i = (uint32_t)leaf->gleaf_idx;
    t->gleaves[i] = t->gleaves[--t->ngleaves];
    t->gleaves[i]->gleaf_idx = (int32_t)i;
    leaf->gleaf_idx = -1;
}

/* A list a gang is in: its leaf's whole list (ALL) or the list of one cluster. Each gang keeps
 * its place in each, so it leaves them without a search. */
#define ALL UINT32_MAX

static uint32_t *pos_in(struct queue__gang *g, uint32_t c)
{
    if (c == ALL)
        return &g->idx;
    for (uint32_t i = 0; i < g->nshares; i++)
        if (g->shares[i].cluster == c)
            return &g->shares[i].pos;
    return &g->idx; /* unreachable: a gang is only in the lists of its clusters */
}

static void list_insert(struct queue__gang **arr, uint32_t *n, struct queue__gang *g, uint32_t c)
{
    uint32_t lo = 0, hi = *n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (gang_before(arr[mid], g))
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&arr[lo + 1], &arr[lo], (*n - lo) * sizeof(*arr));
    arr[lo] = g;
    (*n)++;
    for (uint32_t j = lo; j < *n; j++)
        *pos_in(arr[j], c) = j;
}

static void list_remove(struct queue__gang **arr, uint32_t *n, uint32_t at, uint32_t c)
{
    memmove(&arr[at], &arr[at + 1], (*n - at - 1) * sizeof(*arr));
    (*n)--;
    for (uint32_t j = at; j < *n; j++)
        *pos_in(arr[j], c) = j;
}

void queue__gang_forget(struct queue_tree *t, struct queue_entry *e)
{
    struct queue__gang *g = e->gang;
    if (!g)
        return;
    struct queue_node *leaf = e->leaf;
    list_remove(leaf->gangs, &leaf->ngangs, g->idx, ALL);
    for (uint32_t i = 0; i < g->nshares; i++) {
        struct queue__glist *l = &leaf->cl[g->shares[i].cluster];
        list_remove(l->g, &l->n, g->shares[i].pos, g->shares[i].cluster);
    }
    if (leaf->ngangs == 0) {
        gleaf_remove(t, leaf);
        queue_resvec_clear(&leaf->gmax);
    }
    t->ngangs--;
    queue__gang_drop(e);
}

void queue_reclaim_gang_clear(struct queue_tree *t, struct queue_entry *e)
{
    queue__gang_forget(t, e);
}

uint64_t queue_reclaim_gang_count(const struct queue_tree *t)
{
    return t->ngangs;
}

/* Room in leaf's lists for one more gang with these shares. */
static int lists_reserve(struct queue_tree *t, struct queue_node *leaf,
                         const struct queue_reclaim_share *shares, size_t n)
{
    uint32_t ncl = leaf->ncl;
    for (size_t i = 0; i < n; i++)
        if (shares[i].cluster + 1 > ncl)
            ncl = shares[i].cluster + 1;
    if (ncl > leaf->ncl) {
        struct queue__glist *cl = muster_realloc(leaf->cl, ncl * sizeof(*cl));
        if (!cl)
            return MUSTER_ENOMEM;
        memset(&cl[leaf->ncl], 0, (ncl - leaf->ncl) * sizeof(*cl));
        leaf->cl = cl;
        leaf->ncl = ncl;
    }
    for (size_t i = 0; i < n; i++) {
        struct queue__glist *l = &leaf->cl[shares[i].cluster];
        if (queue__grow((void **)&l->g, &l->cap, l->n + 1, sizeof(*l->g)))
            return MUSTER_ENOMEM;
    }
    if (queue__grow((void **)&leaf->gangs, &leaf->gcap, leaf->ngangs + 1, sizeof(*leaf->gangs)) ||
        queue__grow((void **)&t->gleaves, &t->glcap, t->ngleaves + 1, sizeof(*t->gleaves)))
        return MUSTER_ENOMEM;
    return 0;
}

int queue_reclaim_gang_set(struct queue_tree *t, struct queue_entry *e, int64_t started_at,
                           const struct queue_reclaim_share *shares, size_t n)
{
    if (e->state != QUEUE_ENTRY_ADMITTED || n > QUEUE_RECLAIM_CLUSTERS_MAX)
        return MUSTER_EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (shares[i].cluster >= QUEUE_RECLAIM_CLUSTERS_MAX || !shares[i].res ||
            queue_resvec_any_negative(shares[i].res))
            return MUSTER_EINVAL;
        for (size_t j = 0; j < i; j++)
            if (shares[j].cluster == shares[i].cluster)
                return MUSTER_EINVAL;
    }
    /* Everything that can fail first, so a failure keeps the old record. */
    struct queue__gang *g = muster_calloc(1, sizeof(*g));
    if (!g)
        return MUSTER_ENOMEM;
    g->shares = n ? muster_calloc(n, sizeof(*g->shares)) : NULL;
    struct queue_node *leaf = e->leaf;
    const struct queue_resvec *req = &e->shape->req;
    int fail = (n && !g->shares) ||
               queue_resvec_reserve(&leaf->gmax, leaf->gmax.len + req->len) ||
               lists_reserve(t, leaf, shares, n);
    for (size_t i = 0; !fail && i < n; i++) {
        g->shares[i].cluster = shares[i].cluster;
        g->cmask |= 1ULL << (shares[i].cluster % 64);
        fail = queue_resvec_copy(&g->shares[i].res, shares[i].res) != 0;
        g->nshares = (uint32_t)i + 1;
    }
    if (fail) {
        gang_free(g);
        return MUSTER_ENOMEM;
    }
    queue__gang_forget(t, e);
    for (uint32_t i = 0; i < req->len; i++) /* reserved above: cannot fail */
        if (req->items[i].milli > queue_resvec_get(&leaf->gmax, req->items[i].id))
            (void)queue_resvec_set(&leaf->gmax, req->items[i].id, req->items[i].milli);
    g->e = e;
    g->started = started_at;
    g->id = e->id;
    g->prio = e->prio;
    e->gang = g;
    list_insert(leaf->gangs, &leaf->ngangs, g, ALL);
    for (uint32_t i = 0; i < g->nshares; i++) {
        struct queue__glist *l = &leaf->cl[g->shares[i].cluster];
        list_insert(l->g, &l->n, g, g->shares[i].cluster);
    }
    if (leaf->gleaf_idx < 0) {
        leaf->gleaf_idx = (int32_t)t->ngleaves;
        t->gleaves[t->ngleaves++] = leaf;
    }
    t->ngangs++;
    return 0;
}

/* ---- the search's workspace ---- */

/* Up to this many allowed clusters a search merges a lender's per-cluster lists; beyond, it
 * walks the lender's whole list (the merge costs a comparison per allowed cluster per gang). */
#define QUEUE_RECLAIM_MERGE_MAX 16

/* A queue that may lend: its leaf and, for a queue across the tree, the rows of the queues
 * from it up to (not including) the lowest common ancestor with the pending gang's queue,
 * whose floors its victims must respect. */
struct lender {
    struct queue_node *q;
    enum queue_reclaim_kind kind;
    uint32_t slot0, nslots; /* in rc->slotlist */
};

struct cand {
    struct queue__gang *g;
    uint32_t li;    /* in rc->lenders */
    uint8_t in_set; /* in rc->set */
    uint8_t rel;    /* its usage is released in the tree right now (rc->rel) */
};

struct queue_reclaim {
    enum queue_reclaim_outcome outcome;
    struct queue_reclaim_stats stats;

    /* the request, for the search and the sentences */
    const struct queue_node *queue;
    int32_t priority;
    uint32_t nres;
    uint32_t rid[QUEUE_REQUEST_RES_MAX];
    int64_t total[QUEUE_REQUEST_RES_MAX];
    int64_t shortfall[QUEUE_REQUEST_RES_MAX];
    /* Freed by the current set in the allowed clusters. 128 bits: up to 4,096 victims' shares,
     * each up to int64, add up exactly and subtract back exactly. */
    __int128 agg[QUEUE_REQUEST_RES_MAX];
    struct queue_resvec totalv;
    /* the first queue on the path that would go above its deserved share (NOT_ENTITLED) */
    const struct queue_node *over_q;
    uint32_t over_r;
    int64_t over_use, over_des;

    uint8_t *allowed; /* by cluster */
    uint64_t amask;   /* bit c % 64 of each allowed cluster c */
    size_t nclusters, clcap;
    struct queue_resvec *freed; /* by cluster, for the dry run */
    size_t frcap;

    struct lender *lenders;
    uint32_t nlenders, lcap;
    struct cand *cands;
    uint32_t ncands, ccap;
    int64_t *contrib; /* ncands x nres */
    int64_t *sufmax;  /* (ncands + 1) x nres: the most any candidate from i on frees */
    size_t contrib_cap, sufmax_cap;

    uint32_t *slotlist;
    uint32_t nslotlist, slcap;
    uint32_t nslots;
    int64_t *rows; /* per slot: taken[width] then lim[width] */
    size_t rowcap;
    uint32_t width;
    uint32_t levels; /* queues up the gang's path that stay within their deserved share */

    uint32_t gl_li, gl_j; /* where ranking goes on: lender, gang in it */
    /* With few allowed clusters, a lender's gangs are merged from its lists for those
     * clusters (cursor per allowed cluster) rather than walked whole. */
    int merge;
    uint32_t *cur;             /* per allowed cluster: next place in the lender's list */
    struct queue__gang **head; /* per allowed cluster: the gang there, NULL when done */
    size_t curcap, headcap;
    int exhausted;        /* every gang of every lender has been ranked */
    uint32_t max_cands;

    uint32_t *rel; /* candidates whose usage is released in the tree */
    uint32_t nrel, relcap;
    uint32_t *set; /* candidate indexes, ascending */
    uint32_t nset, setcap;
    uint32_t *best;
    uint32_t nbest, bestcap;
    const struct queue_entry **vict;
    uint32_t vcap;
    struct queue_reclaim_victim *victims;
    uint32_t nvictims, vicap;

    /* during a search only */
    struct queue_tree *t;
    const struct queue_reclaim_req *req;
    uint32_t max_nodes, max_fits;
    int budget_out;
    int fill_back; /* dry runs of the fill-back are not budgeted: at most one per victim */
};

struct queue_reclaim *queue_reclaim_new(void)
{
    return muster_calloc(1, sizeof(struct queue_reclaim));
}

void queue_reclaim_free(struct queue_reclaim *rc)
{
    if (!rc)
        return;
    queue_resvec_close(&rc->totalv);
    for (size_t c = 0; c < rc->frcap; c++)
        queue_resvec_close(&rc->freed[c]);
    muster_free(rc->freed);
    muster_free(rc->allowed);
    muster_free(rc->lenders);
    muster_free(rc->cands);
    muster_free(rc->contrib);
    muster_free(rc->sufmax);
    muster_free(rc->slotlist);
    muster_free(rc->rows);
    muster_free(rc->set);
    muster_free(rc->rel);
    muster_free(rc->cur);
    muster_free(rc->head);
    muster_free(rc->best);
    muster_free(rc->vict);
    muster_free(rc->victims);
    muster_free(rc);
}

static int grow_bytes(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 256;
    while (n < need)
        n *= 2;
    void *q = muster_realloc(*p, n);
    if (!q)
        return MUSTER_ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

/* ---- rules ---- */

/* Resources a queue's share counts: those its deserved names, or all when it names none (its
 * share is then infinite while it uses anything: all it uses is borrowed). */
static int counted(const struct queue_node *q, uint32_t r)
{
    return q->spec.deserved.len == 0 || queue_resvec_get(&q->spec.deserved, r) > 0;
}

/* X lends when it is over its deserved share in some resource the pending gang asks for. */
static int over_share(const struct queue_reclaim *rc, const struct queue_node *x)
{
    for (uint32_t k = 0; k < rc->nres; k++) {
        uint32_t r = rc->rid[k];
        if (r < rc->width && counted(x, r) &&
            x->use[r] > queue_resvec_get(&x->spec.deserved, r))
            return 1;
    }
    return 0;
}

static int asked(const struct queue_reclaim *rc, uint32_t r)
{
    for (uint32_t k = 0; k < rc->nres; k++)
        if (rc->rid[k] == r)
            return 1;
    return 0;
}

/* The row of X's floors: how much its victims may take of each resource. Never below its
 * guarantee in anything; never below its deserved in what it borrows and the gang asks for. */
static int slot_of(struct queue_reclaim *rc, struct queue_node *x, uint32_t *out)
{
    if (x->rc_mark == rc->t->rc_epoch) {
        *out = x->rc_slot;
        return 0;
    }
    uint32_t s = rc->nslots, w = rc->width;
    if (grow_bytes((void **)&rc->rows, &rc->rowcap, (size_t)(s + 1) * 2 * w * sizeof(int64_t)))
        return MUSTER_ENOMEM;
    int64_t *tk = rc->rows + (size_t)s * 2 * w, *lm = tk + w;
    for (uint32_t r = 0; r < w; r++) {
        /* the guarantee itself, lent or not: reclaim never takes a queue below it */
        int64_t use = x->use[r], g = queue_resvec_get(&x->spec.guarantee, r);
        tk[r] = 0;
        lm[r] = use > g ? use - g : 0;
        if (asked(rc, r) && counted(x, r)) {
            int64_t d = queue_resvec_get(&x->spec.deserved, r);
            if (use > d && use - d < lm[r])
                lm[r] = use - d;
        }
    }
    x->rc_mark = rc->t->rc_epoch;
    x->rc_slot = s;
    rc->nslots++;
    *out = s;
    return 0;
}

/* True when candidate i can join the current set (alone: as if the set were empty) without
 * taking a queue below its floor. */
static int floor_fits(const struct queue_reclaim *rc, uint32_t i, int alone)
{
    const struct lender *l = &rc->lenders[rc->cands[i].li];
    const struct queue_resvec *req = &rc->cands[i].g->e->shape->req;
    for (uint32_t s = 0; s < l->nslots; s++) {
        const int64_t *tk = rc->rows + (size_t)rc->slotlist[l->slot0 + s] * 2 * rc->width;
        const int64_t *lm = tk + rc->width;
        for (uint32_t k = 0; k < req->len; k++) {
            uint32_t r = req->items[k].id;
            if ((alone ? 0 : tk[r]) + req->items[k].milli > lm[r])
                return 0;
        }
    }
    return 1;
}

static int floor_ok(const struct queue_reclaim *rc, uint32_t i)
{
    return floor_fits(rc, i, 0);
}

static void set_take(struct queue_reclaim *rc, uint32_t i, int sign)
{
    const struct lender *l = &rc->lenders[rc->cands[i].li];
    const struct queue_resvec *req = &rc->cands[i].g->e->shape->req;
    for (uint32_t s = 0; s < l->nslots; s++) {
        int64_t *tk = rc->rows + (size_t)rc->slotlist[l->slot0 + s] * 2 * rc->width;
        for (uint32_t k = 0; k < req->len; k++)
            tk[req->items[k].id] += sign * req->items[k].milli;
    }
    const int64_t *c = rc->contrib + (size_t)i * rc->nres;
    for (uint32_t k = 0; k < rc->nres; k++)
        rc->agg[k] += sign * (__int128)c[k];
}

/* Adds candidate i to the set (kept ascending: i is never below the last unless refilled). */
static void set_add(struct queue_reclaim *rc, uint32_t i)
{
    uint32_t p = rc->nset;
    while (p > 0 && rc->set[p - 1] > i) {
        rc->set[p] = rc->set[p - 1];
        p--;
    }
    rc->set[p] = i;
    rc->nset++;
    rc->cands[i].in_set = 1;
    set_take(rc, i, 1);
}

static void set_del_at(struct queue_reclaim *rc, uint32_t p)
{
    rc->cands[rc->set[p]].in_set = 0;
    set_take(rc, rc->set[p], -1);
    memmove(&rc->set[p], &rc->set[p + 1], (rc->nset - p - 1) * sizeof(*rc->set));
    rc->nset--;
}

static int covers(const struct queue_reclaim *rc)
{
    for (uint32_t k = 0; k < rc->nres; k++)
        if (rc->agg[k] < rc->shortfall[k])
            return 0;
    return 1;
}

static void release(struct queue_reclaim *rc, uint32_t i, int sign)
{
    struct queue_entry *e = rc->cands[i].g->e;
    queue__usage_apply(rc->t, e->leaf, &e->shape->req, -sign);
}

/* The queue rules with the set's usage released. The tree is brought to the set lazily: what
 * left the set since the last check is put back, what joined is released, so a check costs the
 * changes, not the set. Releasing and putting back restore every amount exactly (integer
 * sums), shares included; restore_all() puts everything back before the search returns. */
static int admits(struct queue_reclaim *rc)
{
    for (uint32_t j = 0; j < rc->nrel;) {
        uint32_t i = rc->rel[j];
        if (rc->cands[i].in_set) {
            j++;
            continue;
        }
        release(rc, i, -1);
        rc->cands[i].rel = 0;
        rc->rel[j] = rc->rel[--rc->nrel];
    }
    for (uint32_t p = 0; p < rc->nset; p++) {
        uint32_t i = rc->set[p];
        if (!rc->cands[i].rel) {
            release(rc, i, 1);
            rc->cands[i].rel = 1;
            rc->rel[rc->nrel++] = i;
        }
    }
    return queue_tree_can_admit(rc->t, rc->queue, &rc->totalv, NULL);
}

static void restore_all(struct queue_reclaim *rc)
{
    while (rc->nrel) {
        uint32_t i = rc->rel[--rc->nrel];
        release(rc, i, -1);
        rc->cands[i].rel = 0;
    }
}

static int dry_run(struct queue_reclaim *rc)
{
    if (rc->stats.fits_calls >= rc->max_fits && !rc->fill_back) {
        rc->budget_out = 1;
        return 0;
    }
    for (size_t c = 0; c < rc->nclusters; c++)
        queue_resvec_clear(&rc->freed[c]);
    for (uint32_t p = 0; p < rc->nset; p++) {
        const struct queue__gang *g = rc->cands[rc->set[p]].g;
        rc->vict[p] = g->e;
        for (uint32_t s = 0; s < g->nshares; s++)
            if (g->shares[s].cluster < rc->nclusters)
                /* freed was reserved for every resource name: no allocation, no failure but
                 * an overflow, which would mean no fit anyway */
                if (queue_resvec_add(&rc->freed[g->shares[s].cluster], &g->shares[s].res))
                    return 0;
    }
    struct queue_reclaim_try tr = {rc->vict, rc->nset, rc->freed, rc->nclusters};
    rc->stats.fits_calls++;
    return rc->req->fits(rc->req->ud, &tr) ? 1 : 0;
}

/* The whole test of the current set: room, queue rules, placement. */
static int helps(struct queue_reclaim *rc)
{
    return covers(rc) && admits(rc) && dry_run(rc);
}

/* ---- ranking ---- */

static int cooling_gang(const struct queue_reclaim_req *req, uint64_t id)
{
    size_t lo = 0, hi = req->ncooling_gangs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (req->cooling_gangs[mid] == id)
            return 1;
        if (req->cooling_gangs[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static const struct queue_node *lca(const struct queue_node *a, const struct queue_node *b)
{
    while (a->depth > b->depth)
        a = a->parent;
    while (b->depth > a->depth)
        b = b->parent;
    while (a != b) {
        a = a->parent;
        b = b->parent;
    }
    return a;
}

/* Most over its share first, then name: the order queues lend in. */
static int lender_cmp(const void *pa, const void *pb)
{
    const struct lender *a = pa, *b = pb;
    if (a->q->share != b->q->share)
        return a->q->share > b->q->share ? -1 : 1;
    return strcmp(a->q->spec.name, b->q->spec.name);
}

/* How far up its path the pending gang's queue may reclaim: the number of queues from its leaf
 * up that stay within their deserved share with the gang admitted (root never counts). */
static uint32_t entitled_levels(struct queue_reclaim *rc)
{
    uint32_t n = 0;
    rc->over_q = NULL;
    for (const struct queue_node *x = rc->queue; x->parent; x = x->parent, n++) {
        for (uint32_t k = 0; k < rc->nres; k++) {
            uint32_t r = rc->rid[k];
            int64_t use = r < rc->width ? x->use[r] : 0, d;
            if (!counted(x, r))
                continue;
            d = queue_resvec_get(&x->spec.deserved, r);
            if (use > d || rc->total[k] > d - use) {
                rc->over_q = x;
                rc->over_r = r;
                rc->over_use = use;
                rc->over_des = d;
                return n;
            }
        }
    }
    return n;
}

static int add_lender(struct queue_reclaim *rc, struct queue_node *v, enum queue_reclaim_kind k)
{
    if (queue__grow((void **)&rc->lenders, &rc->lcap, rc->nlenders + 1, sizeof(*rc->lenders)))
        return MUSTER_ENOMEM;
    struct lender *l = &rc->lenders[rc->nlenders++];
    l->q = v;
    l->kind = k;
    l->slot0 = l->nslots = 0;
    return 0;
}

static int lender_slots(struct queue_reclaim *rc, struct lender *l)
{
    const struct queue_node *top = lca(l->q, rc->queue);
    l->slot0 = rc->nslotlist;
    for (struct queue_node *x = l->q; x != top; x = x->parent) {
        uint32_t s;
        if (slot_of(rc, x, &s) ||
            queue__grow((void **)&rc->slotlist, &rc->slcap, rc->nslotlist + 1,
                        sizeof(*rc->slotlist)))
            return MUSTER_ENOMEM;
        rc->slotlist[rc->nslotlist++] = s;
        l->nslots++;
    }
    return 0;
}

static int rank_lenders(struct queue_reclaim *rc)
{
    struct queue_tree *t = rc->t;
    uint32_t levels = rc->levels = entitled_levels(rc);
    struct queue_node *own = NULL;
    for (uint32_t i = 0; i < t->ngleaves; i++) {
        struct queue_node *v = t->gleaves[i];
        if (v->rc_cool == t->rc_epoch)
            continue;
        if (v == rc->queue) {
            if (v->spec.within_queue == QUEUE_WITHIN_LOWER_PRIORITY)
                own = v;
            continue;
        }
        const struct queue_node *top = lca(v, rc->queue);
        /* The queues below the common ancestor on the gang's side gain; all must stay within
         * their deserved share. Those on the victim's side lose; all must be over theirs. */
        if (rc->queue->depth - top->depth > levels)
            continue;
        int lends = 1;
        for (const struct queue_node *x = v; lends && x != top; x = x->parent)
            lends = over_share(rc, x);
        if (lends && add_lender(rc, v, QUEUE_RECLAIM_ACROSS_QUEUES))
            return MUSTER_ENOMEM;
    }
    if (rc->nlenders > 1)
        qsort(rc->lenders, rc->nlenders, sizeof(*rc->lenders), lender_cmp);
    for (uint32_t i = 0; i < rc->nlenders; i++)
        if (lender_slots(rc, &rc->lenders[i]))
            return MUSTER_ENOMEM;
    /* Within its own queue last, as Kueue does: borrowed capacity goes back before a queue
     * turns on its own gangs. */
    if (own && add_lender(rc, own, QUEUE_RECLAIM_WITHIN_QUEUE))
        return MUSTER_ENOMEM;
    rc->stats.queues = rc->nlenders;
    return 0;
}

/* Appends gang g of lender li when it may go and frees something useful; 1 when appended. */
static int consider(struct queue_reclaim *rc, uint32_t li, struct queue__gang *g)
{
    const struct queue_reclaim_req *req = rc->req;
    const struct lender *l = &rc->lenders[li];
    int64_t ran;
    if (!(g->cmask & rc->amask) || cooling_gang(req, g->id))
        return 0;
    if (l->q->spec.min_runtime > 0 &&
        (__builtin_sub_overflow(req->now, g->started, &ran) || ran < l->q->spec.min_runtime))
        return 0;
    uint32_t i = rc->ncands;
    int64_t *c = rc->contrib + (size_t)i * rc->nres;
    int useful = 0;
    for (uint32_t k = 0; k < rc->nres; k++)
        c[k] = 0;
    for (uint32_t s = 0; s < g->nshares; s++) {
        if (g->shares[s].cluster >= rc->nclusters || !rc->allowed[g->shares[s].cluster])
            continue;
        for (uint32_t k = 0; k < rc->nres; k++) {
            int64_t m = queue_resvec_get(&g->shares[s].res, rc->rid[k]), sum;
            if (m <= 0)
                continue;
            /* shares come from the caller: saturate rather than wrap */
            c[k] = __builtin_add_overflow(c[k], m, &sum) ? INT64_MAX : sum;
            useful = 1;
        }
    }
    if (!useful)
        return 0;
    rc->cands[i] = (struct cand){g, li, 0, 0};
    /* A gang that alone would take its queue below a floor is in no valid set. */
    if (!floor_fits(rc, i, 1))
        return 0;
    rc->ncands++;
    return 1;
}

/* The next gang of lender q in victim order, NULL when none is left: merged from its lists
 * for the allowed clusters (each gang once), or from its whole list. */
static struct queue__gang *next_gang(struct queue_reclaim *rc, const struct queue_node *q)
{
    if (!rc->merge)
        return rc->gl_j < q->ngangs ? q->gangs[rc->gl_j++] : NULL;
    const uint32_t *allowed = rc->req->allowed;
    size_t na = rc->req->nallowed;
    if (rc->gl_j == 0) { /* a new lender: the head of each of its lists */
        rc->gl_j = 1;
        for (size_t i = 0; i < na; i++) {
            uint32_t c = allowed[i];
            rc->cur[i] = 0;
            rc->head[i] = c < q->ncl && q->cl[c].n ? q->cl[c].g[0] : NULL;
        }
    }
    for (;;) {
        struct queue__gang *best = NULL;
        size_t bi = 0;
        for (size_t i = 0; i < na; i++) {
            if (rc->head[i] && (!best || gang_before(rc->head[i], best))) {
                best = rc->head[i];
                bi = i;
            }
        }
        if (!best)
            return NULL;
        const struct queue__glist *l = &q->cl[allowed[bi]];
        rc->head[bi] = ++rc->cur[bi] < l->n ? l->g[rc->cur[bi]] : NULL;
        if (best->rc_seen != rc->t->rc_epoch) {
            best->rc_seen = rc->t->rc_epoch;
            return best;
        }
    }
}

/* Ranks more candidates, in preference order, until there are `upto` (at most the window) or
 * none is left. Lazy: a search that finds its victims among the first lenders never looks at
 * the gangs of the others. */
static void gather(struct queue_reclaim *rc, uint32_t upto)
{
    if (upto > rc->max_cands)
        upto = rc->max_cands;
    while (rc->ncands < upto && rc->gl_li < rc->nlenders) {
        const struct lender *l = &rc->lenders[rc->gl_li];
        struct queue__gang *g = next_gang(rc, l->q);
        /* victim order is priority first: past the pending gang's priority nothing of its own
         * queue may go */
        if (!g || (l->kind == QUEUE_RECLAIM_WITHIN_QUEUE && g->prio >= rc->priority)) {
            rc->gl_li++;
            rc->gl_j = 0;
            continue;
        }
        rc->stats.visited++;
        consider(rc, rc->gl_li, g);
    }
    rc->exhausted = rc->gl_li == rc->nlenders;
    rc->stats.candidates = rc->ncands;
    rc->stats.truncated = !rc->exhausted;
}

/* sufmax[i]: the most any one candidate from i on frees, per resource (the exact search's
 * bound). */
static void sufmax_build(struct queue_reclaim *rc)
{
    for (uint32_t k = 0; k < rc->nres; k++)
        rc->sufmax[(size_t)rc->ncands * rc->nres + k] = 0;
    for (uint32_t i = rc->ncands; i-- > 0;) {
        for (uint32_t k = 0; k < rc->nres; k++) {
            int64_t a = rc->contrib[(size_t)i * rc->nres + k];
            int64_t b = rc->sufmax[(size_t)(i + 1) * rc->nres + k];
            rc->sufmax[(size_t)i * rc->nres + k] = a > b ? a : b;
        }
    }
}

/* ---- greedy, then exact ---- */

static int greedy(struct queue_reclaim *rc, int *took_all)
{
    *took_all = 1;
    for (uint32_t i = 0; !rc->budget_out; i++) {
        if (i == rc->ncands)
            gather(rc, i + 1);
        if (i == rc->ncands)
            break;
        if (!floor_ok(rc, i)) {
            *took_all = 0;
            continue;
        }
        set_add(rc, i);
        if (helps(rc))
            return 1;
    }
    return 0;
}

/* Drops, from the back, every victim the gang fits without: none left is in vain. It runs to
 * the end whatever the budget says (one dry run per victim at most), so that an answer never
 * holds a victim it does not need. */
static void fill_back(struct queue_reclaim *rc)
{
    rc->fill_back = 1;
    for (uint32_t p = rc->nset - 1; p-- > 0;) {
        uint32_t i = rc->set[p];
        set_del_at(rc, p);
        if (!helps(rc))
            set_add(rc, i);
    }
    rc->fill_back = 0;
}

static void set_clear(struct queue_reclaim *rc)
{
    while (rc->nset)
        set_del_at(rc, rc->nset - 1);
}

static int64_t times_sat(int64_t a, uint32_t n)
{
    int64_t r;
    return __builtin_mul_overflow(a, (int64_t)n, &r) ? INT64_MAX : r;
}

/* Every set of `left` more candidates from `from` on, in preference order; 1 when one helps
 * (left in rc->set). */
static int dfs(struct queue_reclaim *rc, uint32_t from, uint32_t left)
{
    if (left == 0)
        return helps(rc);
    for (uint32_t i = from; i + left <= rc->ncands; i++) {
        if (rc->budget_out)
            return 0;
        /* What the rest could free at most: if that cannot cover the shortfall, neither can
         * any later start, since sufmax only falls. */
        int64_t *sm = rc->sufmax + (size_t)i * rc->nres;
        int reach = 1;
        for (uint32_t k = 0; reach && k < rc->nres; k++) {
            if (rc->agg[k] + times_sat(sm[k], left) < rc->shortfall[k])
                reach = 0;
        }
        if (!reach)
            return 0;
        if (!floor_ok(rc, i))
            continue;
        if (++rc->stats.nodes > rc->max_nodes) {
            rc->budget_out = 1;
            return 0;
        }
        set_add(rc, i);
        if (dfs(rc, i + 1, left - 1))
            return 1;
        set_del_at(rc, rc->nset - 1);
    }
    return 0;
}

static void keep_best(struct queue_reclaim *rc)
{
    memcpy(rc->best, rc->set, rc->nset * sizeof(*rc->set));
    rc->nbest = rc->nset;
}

/* ---- the search ---- */

static int prepare(struct queue_reclaim *rc, struct queue_tree *t,
                   const struct queue_reclaim_req *req)
{
    const struct queue_resvec *pr = req->per_replica;
    if (!req->queue || !queue__leaf(req->queue) || !pr || pr->len == 0 ||
        pr->len > QUEUE_REQUEST_RES_MAX || queue_resvec_any_negative(pr) || req->replicas == 0 ||
        !req->fits || req->nclusters > QUEUE_RECLAIM_CLUSTERS_MAX ||
        (req->nclusters && !req->room) || (req->nallowed && !req->allowed) ||
        (req->ncooling_gangs && !req->cooling_gangs) ||
        (req->ncooling_queues && !req->cooling_queues))
        return MUSTER_EINVAL;
    for (size_t i = 0; i < req->nallowed; i++)
        if (req->allowed[i] >= req->nclusters)
            return MUSTER_EINVAL;
    rc->t = t;
    rc->req = req;
    rc->queue = req->queue;
    rc->priority = req->priority;
    rc->width = t->rcap;
    rc->nres = pr->len;
    rc->max_nodes = req->max_nodes ? req->max_nodes : QUEUE_RECLAIM_NODES_DEFAULT;
    rc->max_fits = req->max_fits ? req->max_fits : QUEUE_RECLAIM_FITS_DEFAULT;
    rc->max_cands = req->max_candidates ? req->max_candidates : QUEUE_RECLAIM_WINDOW_DEFAULT;
    if (rc->max_cands > QUEUE_RECLAIM_CANDIDATES_MAX)
        rc->max_cands = QUEUE_RECLAIM_CANDIDATES_MAX;
    if (queue_resvec_reserve(&rc->totalv, pr->len))
        return MUSTER_ENOMEM;
    queue_resvec_clear(&rc->totalv);
    for (uint32_t k = 0; k < pr->len; k++) {
        rc->rid[k] = pr->items[k].id;
        if (__builtin_mul_overflow(pr->items[k].milli, (int64_t)req->replicas, &rc->total[k]))
            return MUSTER_ERANGE;
        rc->totalv.items[k].id = pr->items[k].id;
        rc->totalv.items[k].milli = rc->total[k];
        rc->agg[k] = 0;
    }
    rc->totalv.len = pr->len;
    /* Clusters: which the gang may use, and the room there now. */
    if (grow_bytes((void **)&rc->allowed, &rc->clcap, req->nclusters + 1))
        return MUSTER_ENOMEM;
    memset(rc->allowed, 0, req->nclusters);
    rc->nclusters = req->nclusters;
    rc->merge = req->nallowed <= QUEUE_RECLAIM_MERGE_MAX;
    if (rc->merge &&
        (grow_bytes((void **)&rc->cur, &rc->curcap, (req->nallowed + 1) * sizeof(*rc->cur)) ||
         grow_bytes((void **)&rc->head, &rc->headcap, (req->nallowed + 1) * sizeof(*rc->head))))
        return MUSTER_ENOMEM;
    rc->amask = 0;
    for (size_t i = 0; i < req->nallowed; i++) {
        rc->allowed[req->allowed[i]] = 1;
        rc->amask |= 1ULL << (req->allowed[i] % 64);
    }
    for (uint32_t k = 0; k < rc->nres; k++) {
        int64_t room = 0;
        for (size_t c = 0; c < req->nclusters; c++) {
            int64_t m = rc->allowed[c] ? queue_resvec_get(&req->room[c], rc->rid[k]) : 0;
            if (m > 0 && __builtin_add_overflow(room, m, &room))
                room = INT64_MAX;
        }
        rc->shortfall[k] = rc->total[k] > room ? rc->total[k] - room : 0;
    }
    if (req->nclusters > rc->frcap) {
        struct queue_resvec *f = muster_realloc(rc->freed, req->nclusters * sizeof(*f));
        if (!f)
            return MUSTER_ENOMEM;
        for (size_t c = rc->frcap; c < req->nclusters; c++)
            queue_resvec_init(&f[c]);
        rc->freed = f;
        rc->frcap = req->nclusters;
    }
    uint32_t names = queue_resnames_count(t->names);
    for (size_t c = 0; c < req->nclusters; c++)
        if (queue_resvec_reserve(&rc->freed[c], names))
            return MUSTER_ENOMEM;
    /* Everything a search may need from here to its answer is reserved now, so that once the
     * callback has run nothing can fail (libuv's rule: an error means no callback ran). */
    const uint32_t n = QUEUE_RECLAIM_CANDIDATES_MAX + 1;
    if (queue__grow((void **)&rc->vict, &rc->vcap, n, sizeof(*rc->vict)) ||
        queue__grow((void **)&rc->set, &rc->setcap, n, sizeof(*rc->set)) ||
        queue__grow((void **)&rc->best, &rc->bestcap, n, sizeof(*rc->best)) ||
        queue__grow((void **)&rc->victims, &rc->vicap, n, sizeof(*rc->victims)) ||
        queue__grow((void **)&rc->rel, &rc->relcap, n, sizeof(*rc->rel)) ||
        queue__grow((void **)&rc->cands, &rc->ccap, n, sizeof(*rc->cands)) ||
        grow_bytes((void **)&rc->contrib, &rc->contrib_cap, n * rc->nres * sizeof(int64_t)) ||
        grow_bytes((void **)&rc->sufmax, &rc->sufmax_cap, (n + 1) * rc->nres * sizeof(int64_t)))
        return MUSTER_ENOMEM;
    t->rc_epoch++;
    /* The caller's pointers are the tree's own nodes, which t lets us change. */
    for (size_t i = 0; i < req->ncooling_queues; i++) {
        struct queue_node *q = queue_tree_find(t, req->cooling_queues[i]->spec.name);
        if (q)
            q->rc_cool = t->rc_epoch;
    }
    return 0;
}

static void finish(struct queue_reclaim *rc, const uint32_t *set, uint32_t n)
{
    for (uint32_t p = 0; p < n; p++) {
        const struct cand *c = &rc->cands[set[p]];
        rc->victims[p] = (struct queue_reclaim_victim){
            c->g->e, rc->lenders[c->li].kind, set[p], c->li,
            rc->contrib + (size_t)set[p] * rc->nres};
    }
    rc->nvictims = n;
    rc->outcome = QUEUE_RECLAIM_VICTIMS;
}

/* True when no set of fewer than n gangs can cover the shortfall: a resource is short by more
 * than n - 1 times the most any gang still unranked (bounded by its queue's gmax) or ranked
 * (sufmax) could free. Proves an answer of size n smallest without ranking every gang. */
static int none_smaller(const struct queue_reclaim *rc, uint32_t n)
{
    if (n <= 1)
        return 1;
    for (uint32_t k = 0; k < rc->nres; k++) {
        if (rc->shortfall[k] <= 0)
            continue;
        int64_t most = rc->sufmax[k];
        for (uint32_t li = rc->gl_li; li < rc->nlenders; li++) {
            int64_t m = queue_resvec_get(&rc->lenders[li].q->gmax, rc->rid[k]);
            most = m > most ? m : most;
        }
        if (times_sat(most, n - 1) < rc->shortfall[k])
            return 1;
    }
    return 0;
}

/* Everything after the ranking of lenders: no allocation, no failure. */
static void decide(struct queue_reclaim *rc)
{
    if (helps(rc)) {
        rc->outcome = QUEUE_RECLAIM_NOT_NEEDED;
        rc->stats.smallest = 1;
        rc->stats.truncated = rc->nlenders > 0; /* nothing was ranked */
        return;
    }
    gather(rc, 1);
    if (rc->ncands == 0) {
        /* Not even its own leaf may gain: say so rather than "nothing to take". */
        rc->outcome = rc->levels == 0 ? QUEUE_RECLAIM_NOT_ENTITLED : QUEUE_RECLAIM_NO_CANDIDATES;
        rc->stats.smallest = rc->exhausted;
        return;
    }
    int took_all, found = greedy(rc, &took_all);
    if (found) {
        fill_back(rc);
        keep_best(rc);
    }
    set_clear(rc);
    if (!found && took_all && !rc->budget_out) {
        /* All the candidates in the window together do not fit, and fewer free less. */
        rc->stats.smallest = rc->exhausted;
        return;
    }
    /* One victim: no smaller set exists, and the first single that helps is at or before the
     * greedy's, so the candidates ranked so far are all the exact search needs. */
    if (!(found && rc->nbest == 1))
        gather(rc, rc->max_cands);
    sufmax_build(rc);
    uint32_t most = found ? rc->nbest : rc->ncands;
    for (uint32_t s = 1; s <= most && !rc->budget_out; s++) {
        if (dfs(rc, 0, s)) {
            /* sizes below s were all tried: over every gang, or over the window */
            rc->stats.smallest = rc->exhausted || none_smaller(rc, s);
            /* the window was cut short for a single victim: more unranked than it says */
            rc->stats.truncated = !rc->exhausted;
            finish(rc, rc->set, rc->nset);
            set_clear(rc);
            return;
        }
        set_clear(rc);
    }
    if (found) {
        finish(rc, rc->best, rc->nbest);
        rc->stats.smallest = none_smaller(rc, rc->nbest);
    } else {
        rc->stats.smallest = !rc->budget_out && rc->exhausted;
    }
}

int queue_reclaim_search(struct queue_reclaim *rc, struct queue_tree *t,
                         const struct queue_reclaim_req *req)
{
    memset(&rc->stats, 0, sizeof(rc->stats));
    rc->nlenders = rc->ncands = rc->nslots = rc->nslotlist = rc->nset = rc->nbest = 0;
    rc->nvictims = rc->nrel = rc->gl_li = rc->gl_j = 0;
    rc->budget_out = rc->exhausted = 0;
    rc->outcome = QUEUE_RECLAIM_NONE_HELPS;
    int err = prepare(rc, t, req);
    if (!err)
        err = rank_lenders(rc);
    if (err)
        return err;
    decide(rc);
    restore_all(rc);
    return 0;
}

enum queue_reclaim_outcome queue_reclaim_outcome(const struct queue_reclaim *rc)
{
    return rc->outcome;
}

size_t queue_reclaim_count(const struct queue_reclaim *rc)
{
    return rc->nvictims;
}

const struct queue_reclaim_victim *queue_reclaim_victim(const struct queue_reclaim *rc, size_t i)
{
    return i < rc->nvictims ? &rc->victims[i] : NULL;
}

void queue_reclaim_stats(const struct queue_reclaim *rc, struct queue_reclaim_stats *out)
{
    *out = rc->stats;
}

/* ---- sentences ---- */

/* Appends to buf at *len, keeping track of truncation in *len (never past cap - 1). */
__attribute__((format(printf, 4, 5))) static void put(char *buf, size_t cap, size_t *len,
                                                      const char *fmt, ...)
{
    if (*len >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len = n < 0 ? cap : *len + (size_t)n;
}

static int done_len(size_t len, size_t cap)
{
    return len >= cap ? MUSTER_ENOSPC : (int)len;
}

static const char *res_name(const struct queue_tree *t, uint32_t r)
{
    const char *n = queue_resnames_name(t->names, r);
    return n ? n : "?";
}

static void put_path(char *buf, size_t cap, size_t *len, const struct queue_node *q)
{
    char path[512];
    if (queue_node_path(q, path, sizeof(path)) < 0)
        snprintf(path, sizeof(path), "%s", q->spec.name);
    put(buf, cap, len, "%s", path);
}

static void put_qty(char *buf, size_t cap, size_t *len, int64_t milli)
{
    char q[QUEUE_QTY_STR_MAX];
    if (queue_qty_format_auto(milli, q, sizeof(q)) < 0)
        snprintf(q, sizeof(q), "%lldm", (long long)milli);
    put(buf, cap, len, "%s", q);
}

static void put_freed(const struct queue_reclaim *rc, const struct queue_tree *t, char *buf,
                      size_t cap, size_t *len, const int64_t *freed)
{
    int any = 0;
    put(buf, cap, len, "frees ");
    for (uint32_t k = 0; k < rc->nres; k++) {
        if (freed[k] <= 0)
            continue;
        put(buf, cap, len, "%s%s ", any ? ", " : "", res_name(t, rc->rid[k]));
        put_qty(buf, cap, len, freed[k]);
        any = 1;
    }
    put(buf, cap, len, " where the waiting gang may run");
}

static const char *ordinal(uint32_t n)
{
    static const char *const s[] = {"th", "st", "nd", "rd"};
    return n % 100 >= 11 && n % 100 <= 13 ? "th" : n % 10 <= 3 ? s[n % 10] : "th";
}

int queue_reclaim_explain_victim(const struct queue_reclaim *rc, const struct queue_tree *t,
                                 size_t i, char *buf, size_t cap)
{
    if (i >= rc->nvictims)
        return MUSTER_EINVAL;
    if (cap == 0)
        return MUSTER_ENOSPC;
    const struct queue_reclaim_victim *v = &rc->victims[i];
    const struct queue_node *q = v->gang->leaf;
    size_t len = 0;
    buf[0] = '\0';
    if (v->kind == QUEUE_RECLAIM_WITHIN_QUEUE) {
        put(buf, cap, &len, "preempted by a priority %d gang of its own queue ", rc->priority);
        put_path(buf, cap, &len, q);
        put(buf, cap, &len, " (preemption.withinQueue: LowerPriority): its priority %d is lower; ",
            v->gang->prio);
        put_freed(rc, t, buf, cap, &len, v->freed);
        return done_len(len, cap);
    }
    uint32_t lenders = rc->nlenders;
    if (lenders && rc->lenders[lenders - 1].kind == QUEUE_RECLAIM_WITHIN_QUEUE)
        lenders--;
    put(buf, cap, &len, "preempted to reclaim for ");
    put_path(buf, cap, &len, rc->queue);
    put(buf, cap, &len, ", which stays within its deserved share: ");
    put_path(buf, cap, &len, q);
    for (uint32_t k = 0; k < rc->nres; k++) {
        uint32_t r = rc->rid[k];
        int64_t d = queue_resvec_get(&q->spec.deserved, r);
        if (r < t->rcap && counted(q, r) && q->use[r] > d) {
            put(buf, cap, &len, " uses %s ", res_name(t, r));
            put_qty(buf, cap, &len, q->use[r]);
            put(buf, cap, &len, " of its deserved ");
            put_qty(buf, cap, &len, d);
            break;
        }
    }
    if (lenders == 1)
        put(buf, cap, &len, ", the only queue that may lend");
    else if (v->queue_rank == 0)
        put(buf, cap, &len, ", the most over its share of the %u queues that may lend", lenders);
    else
        put(buf, cap, &len, ", the %u%s most over its share of the %u queues that may lend",
            v->queue_rank + 1, ordinal(v->queue_rank + 1), lenders);
    put(buf, cap, &len, "; its gangs go lowest priority (%d here) then newest first; ",
        v->gang->prio);
    put_freed(rc, t, buf, cap, &len, v->freed);
    return done_len(len, cap);
}

/* The resource the wait is about: the one the clusters lack most for this gang, or, when room
 * is not what is short (a queue limit is), the one the victims free most of. */
static uint32_t main_resource(const struct queue_reclaim *rc, int64_t *amount)
{
    uint32_t best = 0;
    double score = -1;
    for (uint32_t k = 0; k < rc->nres; k++) {
        int64_t freed = 0;
        for (uint32_t p = 0; p < rc->nvictims; p++)
            freed += rc->victims[p].freed[k];
        double s = rc->total[k] > 0 ? (double)(rc->shortfall[k] > 0 ? rc->shortfall[k] : 0) /
                                          (double)rc->total[k]
                                    : 0;
        s = s > 0 ? 1 + s : (rc->total[k] > 0 ? (double)freed / (double)rc->total[k] / 2 : 0);
        if (s > score) {
            score = s;
            best = k;
            *amount = freed;
        }
    }
    return best;
}

int queue_reclaim_explain_wait(const struct queue_reclaim *rc, const struct queue_tree *t,
                               char *buf, size_t cap)
{
    if (cap == 0)
        return MUSTER_ENOSPC;
    size_t len = 0;
    buf[0] = '\0';
    switch (rc->outcome) {
    case QUEUE_RECLAIM_NOT_NEEDED:
        put(buf, cap, &len, "fits without preempting anything");
        break;
    case QUEUE_RECLAIM_VICTIMS: {
        int64_t amount = 0;
        uint32_t k = main_resource(rc, &amount);
        put(buf, cap, &len, "waiting for ");
        put_qty(buf, cap, &len, amount);
        put(buf, cap, &len, " %s to be reclaimed from ", res_name(t, rc->rid[k]));
        uint32_t shown = 0, more = 0;
        for (uint32_t p = 0; p < rc->nvictims; p++) {
            const struct queue_node *q = rc->victims[p].gang->leaf;
            int seen = 0;
            for (uint32_t j = 0; j < p && !seen; j++)
                seen = rc->victims[j].gang->leaf == q;
            if (seen)
                continue;
            if (shown == 3) {
                more++;
                continue;
            }
            put(buf, cap, &len, "%s", shown ? ", " : "");
            put_path(buf, cap, &len, q);
            shown++;
        }
        if (more)
            put(buf, cap, &len, " and %u more queue%s", more, more == 1 ? "" : "s");
        put(buf, cap, &len, " (%u gang%s preempting)", rc->nvictims, rc->nvictims == 1 ? "" : "s");
        break;
    }
    case QUEUE_RECLAIM_NOT_ENTITLED:
        put(buf, cap, &len, "may not reclaim: ");
        if (rc->over_q) {
            uint32_t k = 0;
            while (k + 1 < rc->nres && rc->rid[k] != rc->over_r)
                k++;
            put(buf, cap, &len, "queue ");
            put_path(buf, cap, &len, rc->over_q);
            put(buf, cap, &len, " would use %s ", res_name(t, rc->over_r));
            put_qty(buf, cap, &len, rc->over_use);
            put(buf, cap, &len, " + ");
            put_qty(buf, cap, &len, rc->total[k]);
            put(buf, cap, &len, " of its deserved ");
            put_qty(buf, cap, &len, rc->over_des);
        }
        break;
    case QUEUE_RECLAIM_NO_CANDIDATES:
        put(buf, cap, &len, "nothing to reclaim: no running gang that may be preempted holds "
            "what it asks for in a cluster it may use");
        break;
    default:
        if (rc->stats.smallest)
            put(buf, cap, &len, "preempting would not help: it would not fit even with every "
                "gang that may be preempted gone");
        else
            put(buf, cap, &len, "no set of gangs to preempt found within the search's budget "
                "(%u candidates)", rc->stats.candidates);
        break;
    }
    return done_len(len, cap);
}
