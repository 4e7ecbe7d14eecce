/* A naive reference model of the queue engine, for the property test and the benchmark's
 * yardstick. It keeps its own entries, recomputes usage and held capacity from scratch on every
 * decision, ranks queues by sorting, and scans every pending entry: slow and obviously right. */
#ifndef MUSTER_TESTS_QUEUE_MODEL_H
#define MUSTER_TESTS_QUEUE_MODEL_H

#include "queue/idmap.h"
#include "queue/resource.h"
#include "queue/tree.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_UNLIMITED INT64_MAX

struct model_entry {
    int live, admitted, skipped;
    uint64_t id;
    const struct queue_node *leaf;
    int32_t prio;
    int64_t created;
    const struct queue_resvec *req; /* borrowed from the caller; must outlive the entry */
};

struct model_node {
    const struct queue_node *q;
    int parent;     /* index, -1 for root */
    int open_path;  /* every queue from here to root is Open */
    long rank;      /* DFS position among leaves, -1 when unreachable */
    int cblocked;   /* StrictFIFO head skipped this cycle */
    double share;
    int64_t *use, *held, *inner;
};

struct model {
    struct queue_tree *t;
    struct model_entry *e; /* indexed by id */
    size_t cap;
    struct queue_resvec fleet;
    int lending; /* as queue_tree_set_lending: reclaimable queues' unused guarantees not held */
    /* scratch, rebuilt by model_snapshot */
    struct model_node *n;
    size_t nn, ncap;
    uint32_t R;
    int64_t *dense;
    const struct queue_node **cblocked; /* leaves skipped-blocked this cycle */
    size_t ncb, cbcap;
    struct queue_idmap index; /* node pointer -> index + 1 */
    uint64_t *live;           /* ids of live entries, in no order */
    uint32_t *lpos;           /* id -> index in live */
    size_t nlive;
};

static inline void model_init(struct model *m, struct queue_tree *t, size_t max_id)
{
    memset(m, 0, sizeof(*m));
    m->t = t;
    m->cap = max_id + 1;
    m->e = calloc(m->cap, sizeof(*m->e));
    m->live = calloc(m->cap, sizeof(*m->live));
    m->lpos = calloc(m->cap, sizeof(*m->lpos));
}

static inline void model_close(struct model *m)
{
    free(m->e);
    free(m->live);
    free(m->lpos);
    free(m->n);
    free(m->dense);
    free(m->cblocked);
    queue_resvec_close(&m->fleet);
    queue_idmap_close(&m->index);
}

static inline void model_add(struct model *m, uint64_t id, const struct queue_node *leaf,
                             int32_t prio, int64_t created, const struct queue_resvec *req,
                             int admitted)
{
    m->e[id] = (struct model_entry){1, admitted, 0, id, leaf, prio, created, req};
    m->lpos[id] = (uint32_t)m->nlive;
    m->live[m->nlive++] = id;
}

static inline void model_remove(struct model *m, uint64_t id)
{
    m->e[id].live = 0;
    uint32_t i = m->lpos[id];
    m->live[i] = m->live[--m->nlive];
    m->lpos[m->live[i]] = i;
}

static inline void model_cycle_begin(struct model *m)
{
    for (size_t i = 0; i < m->nlive; i++)
        m->e[m->live[i]].skipped = 0;
    m->ncb = 0;
}

static inline int model_walk_cb(void *ud, const struct queue_node *q)
{
    struct model *m = ud;
    if (m->nn == m->ncap) {
        m->ncap = m->ncap ? m->ncap * 2 : 64;
        m->n = realloc(m->n, m->ncap * sizeof(*m->n));
    }
    int parent = -1;
    for (size_t i = 0; i < m->nn; i++)
        if (m->n[i].q == queue_node_parent(q))
            parent = (int)i;
    m->n[m->nn++] = (struct model_node){.q = q, .parent = parent, .rank = -1};
    return 0;
}

static inline int model_index(const struct model *m, const struct queue_node *q)
{
    uintptr_t v = (uintptr_t)queue_idmap_get(&m->index, (uint64_t)(uintptr_t)q);
    return v ? (int)v - 1 : -1;
}

static inline int64_t model_cap(const struct model *m, int i, uint32_t r)
{
    const struct queue_spec *s = queue_node_spec(m->n[i].q);
    int64_t c = MODEL_UNLIMITED;
    for (uint32_t k = 0; k < s->capability.len; k++)
        if (s->capability.items[k].id == r)
            c = s->capability.items[k].milli;
    if (m->n[i].parent < 0) {
        for (uint32_t k = 0; k < m->fleet.len; k++)
            if (m->fleet.items[k].id == r && m->fleet.items[k].milli < c)
                c = m->fleet.items[k].milli;
    }
    return c;
}

/* What is held for q while unused: its guarantee, unless the tree lends it. */
static inline int64_t model_gua(const struct model *m, const struct queue_node *q, uint32_t r)
{
    const struct queue_spec *s = queue_node_spec(q);
    if (m->lending && s->reclaimable == QUEUE_RECLAIMABLE)
        return 0;
    return queue_resvec_get(&s->guarantee, r);
}

static inline int model_node_cmp(const struct model_node *a, const struct model_node *b)
{
    if (a->share != b->share)
        return a->share < b->share ? -1 : 1;
    int32_t pa = queue_node_spec(a->q)->priority, pb = queue_node_spec(b->q)->priority;
    if (pa != pb)
        return pa > pb ? -1 : 1;
    return strcmp(queue_node_name(a->q), queue_node_name(b->q));
}

static inline void model_rank(struct model *m, int i, long *next)
{
    /* Children sorted by (share, priority, name) with a plain selection sort. */
    int kids[4096];
    int nk = 0;
    for (size_t k = 0; k < m->nn; k++)
        if (m->n[k].parent == i && m->n[k].open_path && nk < 4096)
            kids[nk++] = (int)k;
    if (nk == 0 && queue_node_children(m->n[i].q) == 0) {
        m->n[i].rank = (*next)++;
        return;
    }
    for (int a = 0; a < nk; a++) {
        int best = a;
        for (int b = a + 1; b < nk; b++)
            if (model_node_cmp(&m->n[kids[b]], &m->n[kids[best]]) < 0)
                best = b;
        int tmp = kids[a];
        kids[a] = kids[best];
        kids[best] = tmp;
        model_rank(m, kids[a], next);
    }
}

/* Usage, held amounts, shares and ranks, all from scratch. */
static inline void model_snapshot(struct model *m)
{
    m->nn = 0;
    queue_tree_walk(m->t, model_walk_cb, m);
    queue_idmap_close(&m->index);
    for (size_t i = 0; i < m->nn; i++)
        queue_idmap_put(&m->index, (uint64_t)(uintptr_t)m->n[i].q, (void *)(uintptr_t)(i + 1));
    m->R = queue_resnames_count(queue_tree_resnames(m->t));
    size_t R = m->R ? m->R : 1;
    free(m->dense);
    m->dense = calloc(m->nn * 3 * R, sizeof(int64_t));
    for (size_t i = 0; i < m->nn; i++) {
        m->n[i].use = m->dense + i * 3 * R;
        m->n[i].held = m->n[i].use + R;
        m->n[i].inner = m->n[i].held + R;
        int open = queue_node_spec(m->n[i].q)->state == QUEUE_OPEN;
        m->n[i].open_path = open && (m->n[i].parent < 0 || m->n[m->n[i].parent].open_path);
        /* A skipped StrictFIFO head holds its queue only while the queue is StrictFIFO. */
        m->n[i].cblocked = 0;
        for (size_t k = 0; k < m->ncb; k++)
            if (m->cblocked[k] == m->n[i].q &&
                queue_node_spec(m->n[i].q)->strategy == QUEUE_STRICT_FIFO)
                m->n[i].cblocked = 1;
    }
    for (size_t li = 0; li < m->nlive; li++) {
        const struct model_entry *e = &m->e[m->live[li]];
        if (!e->admitted)
            continue;
        for (int i = model_index(m, e->leaf); i >= 0; i = m->n[i].parent)
            for (uint32_t k = 0; k < e->req->len; k++)
                m->n[i].use[e->req->items[k].id] += e->req->items[k].milli;
    }
    /* Walk order is parents first, so the reverse visits children first. */
    for (size_t j = m->nn; j-- > 0;) {
        struct model_node *x = &m->n[j];
        const struct queue_spec *s = queue_node_spec(x->q);
        for (uint32_t r = 0; r < m->R; r++) {
            int64_t inner = 0;
            if (queue_node_children(x->q) == 0) {
                inner = x->use[r];
            } else {
                for (size_t k = 0; k < m->nn; k++)
                    if (m->n[k].parent == (int)j)
                        inner += m->n[k].held[r];
            }
            int64_t g = model_gua(m, x->q, r);
            x->inner[r] = inner;
            x->held[r] = inner > g ? inner : g;
        }
        double share = 0;
        if (s->deserved.len == 0) {
            for (uint32_t r = 0; r < m->R; r++)
                if (x->use[r] > 0)
                    share = INFINITY;
        } else {
            for (uint32_t k = 0; k < s->deserved.len; k++) {
                if (s->deserved.items[k].milli > 0) {
                    double v = (double)x->use[s->deserved.items[k].id] /
                               (double)s->deserved.items[k].milli;
                    if (v > share)
                        share = v;
                }
            }
        }
        x->share = share / (double)s->weight;
    }
    long next = 0;
    if (m->n[0].open_path)
        model_rank(m, 0, &next);
}

/* The admission rule, written from its definition over the from-scratch amounts: usage plus
 * request within every capability on the path, and held growth within it too. */
static inline int model_can_admit(const struct model *m, int leaf, const struct queue_resvec *req)
{
    if (queue_node_children(m->n[leaf].q) || !m->n[leaf].open_path)
        return 0;
    for (uint32_t k = 0; k < req->len; k++) {
        uint32_t r = req->items[k].id;
        int64_t need = req->items[k].milli, grow = need;
        for (int i = leaf; i >= 0; i = m->n[i].parent) {
            const struct model_node *x = &m->n[i];
            int64_t cap = model_cap(m, i, r), use, inner;
            if (__builtin_add_overflow(x->use[r], need, &use) || use > cap)
                return 0;
            if (__builtin_add_overflow(x->inner[r], grow, &inner))
                return 0;
            if (grow > 0 && inner > cap)
                return 0;
            int64_t g = model_gua(m, x->q, r);
            grow = (inner > g ? inner : g) - x->held[r];
        }
    }
    return 1;
}

static inline int model_entry_before(const struct model_entry *a, const struct model_entry *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->created != b->created)
        return a->created < b->created;
    return a->id < b->id;
}

/* The decision: scan every pending entry, keep the admissible one that comes first. Returns
 * its id or 0. Call model_snapshot first. */
static inline uint64_t model_pick(struct model *m)
{
    /* StrictFIFO leaves offer only their head. */
    const struct model_entry **head = calloc(m->nn, sizeof(*head));
    for (size_t li = 0; li < m->nlive; li++) {
        const struct model_entry *e = &m->e[m->live[li]];
        if (e->admitted || e->skipped)
            continue;
        int i = model_index(m, e->leaf);
        if (!head[i] || model_entry_before(e, head[i]))
            head[i] = e;
    }
    const struct model_entry *best = NULL;
    long best_rank = -1;
    for (size_t li = 0; li < m->nlive; li++) {
        const struct model_entry *e = &m->e[m->live[li]];
        if (e->admitted || e->skipped)
            continue;
        int i = model_index(m, e->leaf);
        long rank = m->n[i].rank;
        if (rank < 0 || m->n[i].cblocked)
            continue;
        if (queue_node_spec(m->n[i].q)->strategy == QUEUE_STRICT_FIFO && head[i] != e)
            continue;
        if (best && (rank > best_rank || (rank == best_rank && !model_entry_before(e, best))))
            continue;
        if (!model_can_admit(m, i, e->req))
            continue;
        best = e;
        best_rank = rank;
    }
    free(head);
    return best ? best->id : 0;
}

static inline void model_skip(struct model *m, uint64_t id)
{
    struct model_entry *e = &m->e[id];
    if (queue_node_spec(e->leaf)->strategy == QUEUE_STRICT_FIFO) {
        if (m->ncb == m->cbcap) {
            m->cbcap = m->cbcap ? m->cbcap * 2 : 16;
            m->cblocked = realloc(m->cblocked, m->cbcap * sizeof(*m->cblocked));
        }
        m->cblocked[m->ncb++] = e->leaf;
    } else {
        e->skipped = 1;
    }
}

#endif
