/* Fair order: request shapes, per-leaf buckets of pending entries kept in heaps, the active
 * children of every queue kept sorted by share, and the pick of the next entry (see tree.h).
 *
 * Two things keep a pick from looking at what cannot fit. Every queue knows the least each
 * resource is asked for by the active buckets below it (minneed), and the pick carries the room
 * left on its path (capability minus usage, the tightest so far), so a subtree whose smallest
 * gang is larger than the room is skipped whole, and a bucket too big for the room is passed
 * over without a check. What still fails is stopped by a guarantee hold: such a bucket is
 * "blocked" on that queue and comes back only when capacity is released below it (admissions
 * never make room for anyone else) or a spec changes. */
#include "queue/errors.h"
#include "queue/mem.h"
#include "queue/tree.h"
#include "queue/tree_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- shapes ---- */

int queue__shape_get(struct queue_tree *t, const struct queue_resvec *req,
                     struct queue_shape **out)
{
    uint64_t h = queue_resvec_hash(req);
    struct queue_shape *head = queue_idmap_get(&t->shapes, h);
    for (struct queue_shape *s = head; s; s = s->next) {
        if (queue_resvec_cmp(&s->req, req) == 0) {
            s->refs++;
            *out = s;
            return 0;
        }
    }
    struct queue_shape *s = muster_calloc(1, sizeof(*s));
    if (!s)
        return MUSTER_ENOMEM;
    if (queue_resvec_copy(&s->req, req) || queue_idmap_put(&t->shapes, h, s)) {
        queue_resvec_close(&s->req);
        muster_free(s);
        return MUSTER_ENOMEM;
    }
    s->hash = h;
    s->uid = ++t->next_uid;
    s->refs = 1;
    s->next = head;
    *out = s;
    return 0;
}

void queue__shape_unref(struct queue_tree *t, struct queue_shape *s)
{
    if (--s->refs)
        return;
    struct queue_shape *head = queue_idmap_get(&t->shapes, s->hash);
    if (head == s) {
        if (s->next)
            (void)queue_idmap_put(&t->shapes, s->hash, s->next); /* replaces: no allocation */
        else
            queue_idmap_del(&t->shapes, s->hash);
    } else {
        for (struct queue_shape *p = head; p; p = p->next) {
            if (p->next == s) {
                p->next = s->next;
                break;
            }
        }
    }
    queue_resvec_close(&s->req);
    muster_free(s);
}

/* ---- keys ---- */

/* Higher priority, then older, then lower id. */
static int entry_before(const struct queue_entry *a, const struct queue_entry *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->created != b->created)
        return a->created < b->created;
    return a->id < b->id;
}

/* Lower weighted share, then higher priority, then name. */
int queue__node_cmp(const struct queue_node *a, const struct queue_node *b)
{
    if (a->share != b->share)
        return a->share < b->share ? -1 : 1;
    if (a->spec.priority != b->spec.priority)
        return a->spec.priority > b->spec.priority ? -1 : 1;
    return strcmp(a->spec.name, b->spec.name);
}

static int bucket_before(const struct queue_bucket *a, const struct queue_bucket *b)
{
    return entry_before(a->heap[0], b->heap[0]);
}

/* ---- heaps ---- */

static void heap_set(struct queue_bucket *b, uint32_t i, struct queue_entry *e)
{
    b->heap[i] = e;
    e->idx = i;
}

static void sift_up(struct queue_bucket *b, uint32_t i)
{
    struct queue_entry *e = b->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!entry_before(e, b->heap[p]))
            break;
        heap_set(b, i, b->heap[p]);
        i = p;
    }
    heap_set(b, i, e);
}

static void sift_down(struct queue_bucket *b, uint32_t i)
{
    struct queue_entry *e = b->heap[i];
    for (;;) {
        uint32_t l = 2 * i + 1, best = i;
        struct queue_entry *be = e;
        if (l < b->len && entry_before(b->heap[l], be)) {
            best = l;
            be = b->heap[l];
        }
        if (l + 1 < b->len && entry_before(b->heap[l + 1], be))
            best = l + 1;
        if (best == i)
            break;
        heap_set(b, i, b->heap[best]);
        i = best;
    }
    heap_set(b, i, e);
}

static int heap_push(struct queue_bucket *b, struct queue_entry *e)
{
    if (queue__grow((void **)&b->heap, &b->cap, b->len + 1, sizeof(*b->heap)))
        return MUSTER_ENOMEM;
    heap_set(b, b->len++, e);
    sift_up(b, b->len - 1);
    return 0;
}

static void heap_remove(struct queue_bucket *b, uint32_t i)
{
    struct queue_entry *last = b->heap[--b->len];
    if (i == b->len)
        return;
    heap_set(b, i, last);
    sift_up(b, i);
    sift_down(b, last->idx);
}

/* ---- active sets ---- */

static int node_active(const struct queue_node *q)
{
    return q->spec.state == QUEUE_OPEN && (q->nkids ? q->nact > 0 : q->nbact > 0);
}

static int bucket_active(const struct queue_bucket *b)
{
    return b->len > 0 && !b->blocked_on && !b->cycle_blocked;
}

static void act_remove(struct queue_node *p, struct queue_node *q)
{
    uint32_t i = (uint32_t)q->act_idx;
    memmove(&p->act[i], &p->act[i + 1], (p->nact - i - 1) * sizeof(*p->act));
    p->nact--;
    for (uint32_t k = i; k < p->nact; k++)
        p->act[k]->act_idx = (int32_t)k;
    q->act_idx = -1;
}

static int act_insert(struct queue_node *p, struct queue_node *q)
{
    if (queue__grow((void **)&p->act, &p->acap, p->nact + 1, sizeof(*p->act)))
        return MUSTER_ENOMEM;
    uint32_t lo = 0, hi = p->nact;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (queue__node_cmp(p->act[mid], q) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&p->act[lo + 1], &p->act[lo], (p->nact - lo) * sizeof(*p->act));
    p->act[lo] = q;
    p->nact++;
    for (uint32_t k = lo; k < p->nact; k++)
        p->act[k]->act_idx = (int32_t)k;
    return 0;
}

static void bact_remove(struct queue_node *l, struct queue_bucket *b)
{
    uint32_t i = (uint32_t)b->act_idx;
    memmove(&l->bact[i], &l->bact[i + 1], (l->nbact - i - 1) * sizeof(*l->bact));
    l->nbact--;
    for (uint32_t k = i; k < l->nbact; k++)
        l->bact[k]->act_idx = (int32_t)k;
    b->act_idx = -1;
}

static int bact_insert(struct queue_node *l, struct queue_bucket *b)
{
    if (queue__grow((void **)&l->bact, &l->bacap, l->nbact + 1, sizeof(*l->bact)))
        return MUSTER_ENOMEM;
    uint32_t lo = 0, hi = l->nbact;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (bucket_before(l->bact[mid], b))
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&l->bact[lo + 1], &l->bact[lo], (l->nbact - lo) * sizeof(*l->bact));
    l->bact[lo] = b;
    l->nbact++;
    for (uint32_t k = lo; k < l->nbact; k++)
        l->bact[k]->act_idx = (int32_t)k;
    return 0;
}

/* Puts b where it belongs in its leaf's active list (or out of it). An insertion that cannot
 * allocate leaves the bucket out for now; the next rebuild or cycle brings it back. A bucket
 * that joins may fit where the others did not, so the no-fit marks above it go. */
static void bucket_place(struct queue_bucket *b)
{
    if (b->act_idx >= 0)
        bact_remove(b->leaf, b);
    if (bucket_active(b) && bact_insert(b->leaf, b) == 0)
        for (struct queue_node *q = b->leaf; q; q = q->parent)
            q->nofit = 0;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
}

/* Recomputes q's minneed and maxslack from its active buckets (leaf) or active children; true
 * if either changed. Allocation-free: names beyond the stack buffer are summarised in place. */
static int summary_recompute(const struct queue_tree *t, struct queue_node *q)
{
    /* Columns come into use with summaries reset (tree.c, mark_used), so none is stale. */
    uint32_t n = t->used;
    int64_t fresh[2 * QUEUE_REQUEST_RES_MAX * 4];
    int inplace = 2 * n > sizeof(fresh) / sizeof(fresh[0]);
    int64_t *m = inplace ? q->minneed : fresh, *x = inplace ? q->maxslack : fresh + n;
    int changed = inplace;
    for (uint32_t r = 0; r < n; r++) {
        m[r] = QUEUE_UNLIMITED;
        x[r] = 0;
    }
    if (q->nkids) {
        for (uint32_t k = 0; k < q->nact; k++) {
            const struct queue_node *c = q->act[k];
            for (uint32_t r = 0; r < n; r++) {
                if (c->minneed[r] < m[r])
                    m[r] = c->minneed[r];
                int64_t s = sat_add(c->held[r] - c->inner[r], c->maxslack[r]);
                if (s > x[r])
                    x[r] = s;
            }
        }
    } else {
        for (uint32_t k = 0; k < q->nbact; k++) {
            const struct queue_bucket *b = q->bact[k];
            const struct queue_resvec *req = b->shape ? &b->shape->req : &b->heap[0]->shape->req;
            uint32_t j = 0;
            for (uint32_t r = 0; r < n; r++) {
                int64_t need = 0;
                if (j < req->len && req->items[j].id == r)
                    need = req->items[j++].milli;
                if (need < m[r])
                    m[r] = need;
            }
        }
    }
    if (!inplace) {
        for (uint32_t r = 0; r < n; r++) {
            if (q->minneed[r] != m[r] || q->maxslack[r] != x[r]) {
                q->minneed[r] = m[r];
                q->maxslack[r] = x[r];
                changed = 1;
            }
        }
    }
    return changed;
}

/* After q's buckets or children changed: its summary, then membership and summaries up the
 * tree, stopping where nothing changed. Positions of queues whose share did not change stay
 * right, so this never re-sorts. */
static void activate_up(const struct queue_tree *t, struct queue_node *q)
{
    int changed = summary_recompute(t, q);
    for (; q->parent; q = q->parent) {
        int want = node_active(q), in = q->act_idx >= 0;
        if (want != in) {
            if (in)
                act_remove(q->parent, q);
            else if (act_insert(q->parent, q))
                return;
        } else if (!changed || !in) {
            return;
        }
        changed = summary_recompute(t, q->parent);
    }
}

/* Re-sorts every queue from q up after their shares changed, fixing membership and summaries. */
void queue__order_refresh_up(struct queue_tree *t, struct queue_node *q)
{
    summary_recompute(t, q);
    for (; q->parent; q = q->parent) {
        if (q->act_idx >= 0)
            act_remove(q->parent, q);
        if (node_active(q))
            (void)act_insert(q->parent, q);
        summary_recompute(t, q->parent);
    }
}

/* ---- blocking ---- */

static void unregister(struct queue_bucket *b)
{
    struct queue_node *on = b->blocked_on;
    uint32_t i = b->blocked_idx;
    on->blocked[i] = on->blocked[--on->nblocked];
    on->blocked[i]->blocked_idx = i;
    b->blocked_on = NULL;
}

static void block(struct queue_tree *t, struct queue_bucket *b, struct queue_node *on)
{
    /* on is the queue whose guarantee hold (or int64 limit) the bucket's head met. */
    if (queue__grow((void **)&on->blocked, &on->blcap, on->nblocked + 1, sizeof(*on->blocked))) {
        /* Cannot remember where it is blocked: set it aside for this cycle instead. */
        if (!b->cycle_blocked &&
            !queue__grow((void **)&t->cblocked, &t->cbcap, t->ncblocked + 1,
                         sizeof(*t->cblocked))) {
            b->cycle_blocked = 1;
            t->cblocked[t->ncblocked++] = b;
        }
    } else {
        b->blocked_on = on;
        b->blocked_idx = on->nblocked;
        on->blocked[on->nblocked++] = b;
    }
    bucket_place(b);
    activate_up(t, b->leaf);
}

static void unblock_node(struct queue_tree *t, struct queue_node *x)
{
    while (x->nblocked) {
        struct queue_bucket *b = x->blocked[x->nblocked - 1];
        unregister(b);
        bucket_place(b);
        activate_up(t, b->leaf);
    }
}

void queue__unblock_path(struct queue_tree *t, struct queue_node *leaf)
{
    t->room_epoch++; /* capacity came back: room may have grown under every ancestor */
    for (struct queue_node *x = leaf; x; x = x->parent)
        unblock_node(t, x);
}

void queue__unblock_all(struct queue_tree *t)
{
    for (size_t i = 0; i < t->nnodes; i++) {
        struct queue_node *x = t->nodes[i];
        while (x->nblocked)
            unregister(x->blocked[x->nblocked - 1]);
    }
}

/* ---- buckets ---- */

static uint64_t bucket_key(const struct queue_node *leaf, const struct queue_shape *s)
{
    return (uint64_t)leaf->uid << 32 | s->uid;
}

static struct queue_bucket *bucket_get(struct queue_tree *t, struct queue_node *leaf,
                                       struct queue_shape *shape)
{
    int strict = leaf->spec.strategy == QUEUE_STRICT_FIFO;
    if (strict) {
        if (leaf->nbkts)
            return leaf->bkts[0];
    } else {
        struct queue_bucket *b = queue_idmap_get(&t->buckets, bucket_key(leaf, shape));
        if (b)
            return b;
    }
    struct queue_bucket *b = muster_calloc(1, sizeof(*b));
    /* bact holds at most every bucket: room made here means bact_insert never fails later. */
    if (!b ||
        queue__grow((void **)&leaf->bkts, &leaf->bkcap, leaf->nbkts + 1, sizeof(*leaf->bkts)) ||
        queue__grow((void **)&leaf->bact, &leaf->bacap, leaf->nbkts + 1, sizeof(*leaf->bact))) {
        muster_free(b);
        return NULL;
    }
    b->leaf = leaf;
    b->shape = strict ? NULL : shape;
    b->act_idx = -1;
    if (!strict && queue_idmap_put(&t->buckets, bucket_key(leaf, shape), b)) {
        muster_free(b);
        return NULL;
    }
    b->all_idx = leaf->nbkts;
    leaf->bkts[leaf->nbkts++] = b;
    return b;
}

static void bucket_free(struct queue_tree *t, struct queue_bucket *b)
{
    struct queue_node *leaf = b->leaf;
    if (b->blocked_on)
        unregister(b);
    if (b->act_idx >= 0)
        bact_remove(leaf, b);
    if (b->cycle_blocked) {
        for (uint32_t i = 0; i < t->ncblocked; i++) {
            if (t->cblocked[i] == b) {
                t->cblocked[i] = t->cblocked[--t->ncblocked];
                break;
            }
        }
    }
    leaf->bkts[b->all_idx] = leaf->bkts[--leaf->nbkts];
    leaf->bkts[b->all_idx]->all_idx = b->all_idx;
    if (b->shape)
        queue_idmap_del(&t->buckets, bucket_key(leaf, b->shape));
    muster_free(b->heap);
    muster_free(b);
}

static void bucket_maybe_free(struct queue_tree *t, struct queue_bucket *b)
{
    if (b->len == 0 && !b->cycle_blocked)
        bucket_free(t, b);
}

void queue__leaf_free_buckets(struct queue_tree *t, struct queue_node *leaf)
{
    while (leaf->nbkts)
        bucket_free(t, leaf->bkts[leaf->nbkts - 1]);
}

/* After the head of b changed. A StrictFIFO bucket blocked on its old head may fit now. */
static void head_changed(struct queue_tree *t, struct queue_bucket *b)
{
    if (!b->shape && b->blocked_on)
        unregister(b);
    bucket_place(b);
    activate_up(t, b->leaf);
}

int queue__bucket_insert(struct queue_tree *t, struct queue_entry *e)
{
    struct queue_bucket *b = bucket_get(t, e->leaf, e->shape);
    if (!b)
        return MUSTER_ENOMEM;
    struct queue_entry *head = b->len ? b->heap[0] : NULL;
    if (heap_push(b, e)) {
        bucket_maybe_free(t, b);
        return MUSTER_ENOMEM;
    }
    e->bucket = b;
    if (b->heap[0] != head)
        head_changed(t, b);
    return 0;
}

void queue__bucket_remove(struct queue_tree *t, struct queue_entry *e, int quiet)
{
    if (e->skipped) {
        uint32_t i = e->idx;
        t->skipped[i] = t->skipped[--t->nskipped];
        t->skipped[i]->idx = i;
        e->skipped = 0;
        e->bucket = NULL;
        return;
    }
    struct queue_bucket *b = e->bucket;
    int was_head = b->heap[0] == e;
    heap_remove(b, e->idx);
    e->bucket = NULL;
    if (was_head) {
        if (!b->shape && b->blocked_on && b->len)
            unregister(b); /* a StrictFIFO bucket blocked on its old head */
        bucket_place(b);
        if (!quiet) /* quiet: the caller refreshes the whole path next */
            activate_up(t, b->leaf);
    }
    bucket_maybe_free(t, b);
}

/* Regroups leaf's pending entries for `strategy` in two phases: everything that can fail is
 * allocated first, with the leaf untouched; then the old buckets go and the new ones take the
 * entries without a single allocation. So a failure changes nothing. */
int queue__leaf_rebucket(struct queue_tree *t, struct queue_node *leaf,
                         enum queue_strategy strategy)
{
    size_t n = 0;
    for (uint32_t i = 0; i < leaf->nbkts; i++)
        n += leaf->bkts[i]->len;
    struct queue_entry **all = muster_malloc((n ? n : 1) * sizeof(*all));
    struct queue_bucket **fresh = muster_calloc(n ? n : 1, sizeof(*fresh));
    struct queue_idmap by_shape;
    queue_idmap_init(&by_shape);
    uint32_t nfresh = 0;
    int rc = all && fresh ? 0 : MUSTER_ENOMEM;
    n = 0;
    for (uint32_t i = 0; !rc && i < leaf->nbkts; i++)
        for (uint32_t j = 0; j < leaf->bkts[i]->len; j++)
            all[n++] = leaf->bkts[i]->heap[j];
    /* Phase 1: one new bucket per shape (or one in all for StrictFIFO), heaps sized. */
    for (size_t i = 0; !rc && i < n; i++) {
        uint64_t key = strategy == QUEUE_STRICT_FIFO ? 0 : all[i]->shape->uid;
        struct queue_bucket *b = queue_idmap_get(&by_shape, key);
        if (!b) {
            b = muster_calloc(1, sizeof(*b));
            if (!b || queue_idmap_put(&by_shape, key, b)) {
                muster_free(b);
                rc = MUSTER_ENOMEM;
                break;
            }
            b->leaf = leaf;
            b->shape = strategy == QUEUE_STRICT_FIFO ? NULL : all[i]->shape;
            b->act_idx = -1;
            fresh[nfresh++] = b;
        }
        b->cap++; /* counted now, allocated below */
    }
    for (uint32_t i = 0; !rc && i < nfresh; i++) {
        fresh[i]->heap = muster_malloc(fresh[i]->cap * sizeof(*fresh[i]->heap));
        if (!fresh[i]->heap)
            rc = MUSTER_ENOMEM;
    }
    if (!rc && (queue__grow((void **)&leaf->bkts, &leaf->bkcap, nfresh, sizeof(*leaf->bkts)) ||
                queue__grow((void **)&leaf->bact, &leaf->bacap, nfresh, sizeof(*leaf->bact)) ||
                queue_idmap_reserve(&t->buckets, nfresh)))
        rc = MUSTER_ENOMEM;
    if (rc) {
        for (uint32_t i = 0; fresh && i < nfresh; i++) {
            muster_free(fresh[i]->heap);
            muster_free(fresh[i]);
        }
        queue_idmap_close(&by_shape);
        muster_free(fresh);
        muster_free(all);
        return rc;
    }
    /* Phase 2: nothing below allocates. */
    for (uint32_t i = 0; i < leaf->nbkts; i++)
        leaf->bkts[i]->len = 0;
    queue__leaf_free_buckets(t, leaf);
    for (uint32_t i = 0; i < nfresh; i++) {
        struct queue_bucket *b = fresh[i];
        b->all_idx = leaf->nbkts;
        leaf->bkts[leaf->nbkts++] = b;
        if (b->shape)
            (void)queue_idmap_put(&t->buckets, bucket_key(leaf, b->shape), b); /* reserved */
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t key = strategy == QUEUE_STRICT_FIFO ? 0 : all[i]->shape->uid;
        struct queue_bucket *b = queue_idmap_get(&by_shape, key);
        heap_set(b, b->len++, all[i]);
        sift_up(b, b->len - 1);
        all[i]->bucket = b;
    }
    for (uint32_t i = 0; i < nfresh; i++)
        bucket_place(fresh[i]);
    activate_up(t, leaf);
    queue_idmap_close(&by_shape);
    muster_free(fresh);
    muster_free(all);
    return 0;
}

/* ---- rebuild ---- */


static int cmp_nodes(const void *a, const void *b)
{
    return queue__node_cmp(*(struct queue_node *const *)a, *(struct queue_node *const *)b);
}

static int cmp_buckets(const void *a, const void *b)
{
    const struct queue_bucket *x = *(struct queue_bucket *const *)a;
    const struct queue_bucket *y = *(struct queue_bucket *const *)b;
    if (x == y)
        return 0;
    return bucket_before(x, y) ? -1 : 1;
}

static void rebuild_node(const struct queue_tree *t, struct queue_node *q)
{
    if (q->nkids) {
        for (uint32_t k = 0; k < q->nkids; k++)
            rebuild_node(t, q->kids[k]);
        q->nact = 0;
        if (queue__grow((void **)&q->act, &q->acap, q->nkids, sizeof(*q->act)) == 0) {
            for (uint32_t k = 0; k < q->nkids; k++)
                if (node_active(q->kids[k]))
                    q->act[q->nact++] = q->kids[k];
            if (q->nact > 1)
                qsort(q->act, q->nact, sizeof(*q->act), cmp_nodes);
        }
        for (uint32_t k = 0; k < q->nkids; k++)
            q->kids[k]->act_idx = -1;
        for (uint32_t k = 0; k < q->nact; k++)
            q->act[k]->act_idx = (int32_t)k;
    } else {
        q->nbact = 0;
        if (queue__grow((void **)&q->bact, &q->bacap, q->nbkts, sizeof(*q->bact)) == 0) {
            for (uint32_t i = 0; i < q->nbkts; i++)
                if (bucket_active(q->bkts[i]))
                    q->bact[q->nbact++] = q->bkts[i];
            if (q->nbact > 1)
                qsort(q->bact, q->nbact, sizeof(*q->bact), cmp_buckets);
        }
        for (uint32_t i = 0; i < q->nbkts; i++)
            q->bkts[i]->act_idx = -1;
        for (uint32_t i = 0; i < q->nbact; i++)
            q->bact[i]->act_idx = (int32_t)i;
    }
    summary_recompute(t, q);
}

void queue__order_rebuild(struct queue_tree *t)
{
    t->room_epoch++;
    t->root->act_idx = -1;
    rebuild_node(t, t->root);
}

/* ---- the cycle ---- */

void queue_cycle_begin(struct queue_tree *t)
{
    while (t->ncblocked) {
        struct queue_bucket *b = t->cblocked[--t->ncblocked];
        b->cycle_blocked = 0;
        bucket_place(b);
        activate_up(t, b->leaf);
        bucket_maybe_free(t, b);
    }
    /* Back into their buckets; one that cannot get memory stays set aside, compacted in place,
     * and is tried again next cycle. */
    uint32_t kept = 0, n = t->nskipped;
    t->nskipped = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct queue_entry *e = t->skipped[i];
        e->skipped = 0;
        if (queue__bucket_insert(t, e)) {
            e->skipped = 1;
            e->idx = kept;
            t->skipped[kept++] = e;
        }
    }
    t->nskipped = kept;
}

/* The pick walks down in fair order carrying, per resource, three numbers for the path so far
 * (each n wide, one set per depth in t->room):
 *   cap:  the least capability room (capability - usage, never below 0) of the queues above;
 *   acc:  the sum of slack (held - inner: unused guarantee) of the queues from root down;
 *   gmin: the least, over those queues X, of max(0, capability - inner) - acc(X).
 * A request fits a leaf L exactly when need <= cap(L) and need <= gmin(L) + acc(L): the first is
 * the capability rule, the second the guarantee rule, since what an admission adds to the held
 * amount at X is the need minus the slack of the queues below X on its path. So the pick never
 * tries a gang that cannot go; a subtree is skipped when even its smallest gangs (minneed) are
 * above either room, the guarantee room widened by the most slack below it (maxslack). */
struct room {
    int64_t *cap, *acc, *gmin;
};

static struct room room_level(const struct queue_tree *t, uint32_t depth)
{
    int64_t *base = t->room + (size_t)depth * 3 * t->rcap;
    return (struct room){base, base + t->rcap, base + 2 * (size_t)t->rcap};
}

/* q's room from the room above it (above.cap == NULL for root). */
static void room_at(const struct queue_tree *t, const struct queue_node *q, struct room above,
                    struct room out, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++) {
        int64_t cap = queue__cap_eff(t, q, r);
        int64_t croom = cap - q->use[r], groom = cap - q->inner[r];
        croom = croom < 0 ? 0 : croom;
        groom = groom < 0 ? 0 : groom;
        int64_t acc = sat_add(above.cap ? above.acc[r] : 0, q->held[r] - q->inner[r]);
        int64_t g = sat_sub(groom, acc);
        out.cap[r] = above.cap && above.cap[r] < croom ? above.cap[r] : croom;
        out.acc[r] = acc;
        out.gmin[r] = above.cap && above.gmin[r] < g ? above.gmin[r] : g;
    }
}

/* Whether anything under q could fit: its smallest gangs within the capability room, and within
 * the guarantee room that the slack of the queues below could at most add. */
static int subtree_may_fit(const struct queue_node *q, struct room rm, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++) {
        int64_t need = q->minneed[r];
        if (need > rm.cap[r] || need > sat_add(sat_add(rm.gmin[r], rm.acc[r]), q->maxslack[r]))
            return 0;
    }
    return 1;
}

static int req_fits(const struct queue_resvec *req, struct room rm)
{
    for (uint32_t i = 0; i < req->len; i++) {
        uint32_t r = req->items[i].id;
        int64_t need = req->items[i].milli;
        if (need > rm.cap[r] || need > sat_add(rm.gmin[r], rm.acc[r]))
            return 0;
    }
    return 1;
}

#define PICK_RESTART ((struct queue_entry *)1)

/* Depth-first in fair order under q (at depth d, its room computed). Returns the entry, NULL
 * when nothing under q fits, or PICK_RESTART after blocking a bucket (the lists changed). */
static struct queue_entry *pick_under(struct queue_tree *t, struct queue_node *q, uint32_t d,
                                      uint32_t n)
{
    struct room rm = room_level(t, d);
    if (!q->nkids) {
        for (uint32_t i = 0; i < q->nbact; i++) {
            struct queue_bucket *b = q->bact[i];
            struct queue_entry *e = b->heap[0];
            if (!req_fits(&e->shape->req, rm))
                continue;
            struct queue_limit why;
            if (queue_tree_can_admit(t, q, &e->shape->req, &why))
                return e;
            /* The room said yes and the rule said no: only int64 limits get here. Set the
             * bucket aside until capacity comes back, rather than try it forever. */
            block(t, b, (struct queue_node *)why.queue);
            return PICK_RESTART;
        }
        return NULL;
    }
    struct room below = room_level(t, d + 1);
    for (uint32_t k = 0; k < q->nact; k++) {
        struct queue_node *kid = q->act[k];
        if (kid->nofit == t->room_epoch)
            continue;
        room_at(t, kid, rm, below, n);
        struct queue_entry *e = subtree_may_fit(kid, below, n) ? pick_under(t, kid, d + 1, n)
                                                               : NULL;
        if (e)
            return e;
        kid->nofit = t->room_epoch;
    }
    return NULL;
}

struct queue_entry *queue_cycle_next(struct queue_tree *t)
{
    uint32_t n = t->used;
    for (;;) {
        struct queue_node *root = t->root;
        if (!node_active(root) || root->nofit == t->room_epoch)
            return NULL;
        struct room rm = room_level(t, 0);
        room_at(t, root, (struct room){NULL, NULL, NULL}, rm, n);
        if (!subtree_may_fit(root, rm, n))
            return NULL;
        struct queue_entry *e = pick_under(t, root, 0, n);
        if (!e)
            root->nofit = t->room_epoch;
        if (e != PICK_RESTART)
            return e;
    }
}

int queue_cycle_skip(struct queue_tree *t, struct queue_entry *e)
{
    if (e->state != QUEUE_ENTRY_PENDING || e->skipped)
        return MUSTER_EINVAL;
    if (e->leaf->spec.strategy == QUEUE_STRICT_FIFO) {
        struct queue_bucket *b = e->bucket;
        if (b->cycle_blocked)
            return 0;
        if (queue__grow((void **)&t->cblocked, &t->cbcap, t->ncblocked + 1, sizeof(*t->cblocked)))
            return MUSTER_ENOMEM;
        b->cycle_blocked = 1;
        t->cblocked[t->ncblocked++] = b;
        bucket_place(b);
        activate_up(t, b->leaf);
        return 0;
    }
    if (queue__grow((void **)&t->skipped, &t->skcap, t->nskipped + 1, sizeof(*t->skipped)))
        return MUSTER_ENOMEM;
    queue__bucket_remove(t, e, 0);
    e->skipped = 1;
    e->idx = t->nskipped;
    t->skipped[t->nskipped++] = e;
    return 0;
}

uint64_t queue_entry_position(const struct queue_tree *t, const struct queue_entry *e)
{
    if (e->state != QUEUE_ENTRY_PENDING)
        return 0;
    const struct queue_node *leaf = e->leaf;
    uint64_t ahead = 0;
    for (uint32_t i = 0; i < leaf->nbkts; i++)
        for (uint32_t j = 0; j < leaf->bkts[i]->len; j++)
            ahead += entry_before(leaf->bkts[i]->heap[j], e);
    for (uint32_t i = 0; i < t->nskipped; i++)
        ahead += t->skipped[i]->leaf == leaf && entry_before(t->skipped[i], e);
    return ahead + 1;
}
