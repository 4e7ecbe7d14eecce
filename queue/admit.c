/* Admission: usage and held capacity along the path, the can-admit rule, entries' lifecycle,
 * and the sentence that explains a refusal (see tree.h). */
#include "queue/errors.h"
#include "queue/mem.h"
#include "queue/quantity.h"
#include "queue/tree.h"
#include "queue/tree_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int path_open(const struct queue_node *q, const struct queue_node **closed)
{
    for (; q; q = q->parent) {
        if (q->spec.state != QUEUE_OPEN) {
            *closed = q;
            return 0;
        }
    }
    return 1;
}

int queue_tree_can_admit(const struct queue_tree *t, const struct queue_node *q,
                         const struct queue_resvec *req, struct queue_limit *why)
{
    struct queue_limit lim = {.kind = QUEUE_LIMIT_NONE, .queue = q};
    const struct queue_node *closed;
    /* dh[i]: how much the held amount of the level below grows if req is admitted. */
    int64_t dh[QUEUE_REQUEST_RES_MAX];
    int ok = 1;

    if (!queue__leaf(q)) {
        lim.kind = QUEUE_LIMIT_NOT_LEAF;
        ok = 0;
    } else if (!path_open(q, &closed)) {
        lim.kind = QUEUE_LIMIT_STATE;
        lim.queue = closed;
        ok = 0;
    } else if (req->len > QUEUE_REQUEST_RES_MAX) {
        lim.kind = QUEUE_LIMIT_TOO_MANY;
        ok = 0;
    }
    for (const struct queue_node *x = q; ok && x; x = x->parent) {
        for (uint32_t i = 0; i < req->len; i++) {
            uint32_t r = req->items[i].id;
            int64_t need = req->items[i].milli, use, inner;
            if (r >= t->rcap) { /* a name the tree has never seen: nothing limits it */
                dh[i] = 0;
                continue;
            }
            int64_t cap = queue__cap_eff(t, x, r);
            if (__builtin_add_overflow(x->use[r], need, &use)) {
                lim = (struct queue_limit){QUEUE_LIMIT_OVERFLOW, x, r, x->use[r], 0, cap, need};
                ok = 0;
                break;
            }
            if (use > cap) {
                lim = (struct queue_limit){QUEUE_LIMIT_CAPABILITY, x, r, x->use[r], 0, cap, need};
                ok = 0;
                break;
            }
            int64_t grow = x == q ? need : dh[i];
            if (__builtin_add_overflow(x->inner[r], grow, &inner)) {
                lim = (struct queue_limit){QUEUE_LIMIT_OVERFLOW, x, r, x->use[r], 0, cap, need};
                ok = 0;
                break;
            }
            /* Growth of the held total must fit: that is what protects unused guarantees of
             * other queues. When nothing grows (the request stays inside guarantees all the
             * way up), only the plain capability rule applies, so an overcommitted fleet does
             * not lock a queue out of its own guarantee. */
            if (grow > 0 && inner > cap) {
                /* held: what the others' unused guarantees need after this admission */
                lim = (struct queue_limit){QUEUE_LIMIT_GUARANTEE, x, r, x->use[r],
                                           inner - use, cap, need};
                ok = 0;
                break;
            }
            dh[i] = max64(x->gua[r], inner) - x->held[r];
        }
    }
    if (why)
        *why = lim;
    return ok;
}

/* Adds (sign 1) or removes (sign -1) req along the path from leaf to root, keeping held and
 * inner exact. O(depth × resources in req); no allocation. */
void queue__usage_apply(struct queue_tree *t, struct queue_node *leaf,
                        const struct queue_resvec *req, int sign)
{
    int64_t dh[QUEUE_REQUEST_RES_MAX];
    for (struct queue_node *x = leaf; x; x = x->parent) {
        for (uint32_t i = 0; i < req->len && i < QUEUE_REQUEST_RES_MAX; i++) {
            uint32_t r = req->items[i].id;
            int64_t d = sign * req->items[i].milli;
            x->use[r] += d;
            x->inner[r] += x == leaf ? d : dh[i];
            int64_t held = max64(x->gua[r], x->inner[r]);
            dh[i] = held - x->held[r];
            x->held[r] = held;
        }
        queue__share_update(t, x);
    }
}

static void recompute_node(struct queue_tree *t, struct queue_node *q)
{
    for (uint32_t k = 0; k < q->nkids; k++)
        recompute_node(t, q->kids[k]);
    for (uint32_t r = 0; r < t->rcap; r++) {
        if (q->nkids == 0) {
            q->inner[r] = q->use[r];
        } else {
            int64_t use = 0, inner = 0;
            for (uint32_t k = 0; k < q->nkids; k++) {
                /* validation and admission keep these in range; saturate rather than wrap */
                if (__builtin_add_overflow(use, q->kids[k]->use[r], &use))
                    use = INT64_MAX;
                if (__builtin_add_overflow(inner, q->kids[k]->held[r], &inner))
                    inner = INT64_MAX;
            }
            q->use[r] = use;
            q->inner[r] = inner;
        }
        q->held[r] = max64(q->gua[r], q->inner[r]);
    }
    queue__share_update(t, q);
}

void queue__recompute_held(struct queue_tree *t)
{
    recompute_node(t, t->root);
}

void queue__share_update(struct queue_tree *t, struct queue_node *q)
{
    const struct queue_resvec *d = &q->spec.deserved;
    double share = 0;
    if (d->len == 0) {
        uint32_t n = queue_resnames_count(t->names);
        for (uint32_t r = 0; r < n && r < t->rcap; r++)
            if (q->use[r] > 0)
                share = INFINITY;
    } else {
        for (uint32_t i = 0; i < d->len; i++) {
            int64_t des = d->items[i].milli;
            if (des > 0) {
                double s = (double)q->use[d->items[i].id] / (double)des;
                if (s > share)
                    share = s;
            }
        }
    }
    q->share = share / (double)q->spec.weight;
}

/* ---- entries ---- */

struct queue_entry *queue_tree_entry(const struct queue_tree *t, uint64_t id)
{
    return queue_idmap_get(&t->entries, id);
}

uint64_t queue_entry_id(const struct queue_entry *e)
{
    return e->id;
}

enum queue_entry_state queue_entry_state(const struct queue_entry *e)
{
    return (enum queue_entry_state)e->state;
}

const struct queue_node *queue_entry_queue(const struct queue_entry *e)
{
    return e->leaf;
}

const struct queue_resvec *queue_entry_request(const struct queue_entry *e)
{
    return &e->shape->req;
}

int32_t queue_entry_priority(const struct queue_entry *e)
{
    return e->prio;
}

int64_t queue_entry_created(const struct queue_entry *e)
{
    return e->created;
}

/* msg may hold one %s, filled with arg (a queue name); it is always one of the literals below. */
__attribute__((format(printf, 4, 0))) static int entry_fail(struct queue_error *err, int code,
                                                             const char *field, const char *msg,
                                                             const char *arg)
{
    if (err) {
        snprintf(err->field, sizeof(err->field), "%s", field);
        snprintf(err->msg, sizeof(err->msg), msg, arg ? arg : "");
    }
    return code;
}

/* A request an entry may carry: at least one resource, none negative, known names. */
static int request_check(struct queue_tree *t, const struct queue_resvec *req,
                         struct queue_error *err)
{
    if (req->len == 0 || queue_resvec_any_negative(req))
        return entry_fail(err, MUSTER_EINVAL, "request",
                          "request must name at least one resource and none negative%s", NULL);
    if (req->len > QUEUE_REQUEST_RES_MAX)
        return entry_fail(err, MUSTER_ELIMIT, "request",
                          "request names more resources than muster handles in one gang%s",
                          NULL);
    for (uint32_t i = 0; i < req->len; i++)
        if (!queue_resnames_name(t->names, req->items[i].id))
            return entry_fail(err, MUSTER_EINVAL, "request", "unknown resource id%s", NULL);
    if (queue__ensure_width(t, req->items[req->len - 1].id + 1))
        return entry_fail(err, MUSTER_ENOMEM, "", "out of memory%s", NULL);
    return 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define ENTRY_OWN_ALLOCATION 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENTRY_OWN_ALLOCATION 1
#endif
#endif
#define QUEUE_ENTRY_BLOCK 1024

struct queue_entry *queue__entry_alloc(struct queue_tree *t)
{
#ifdef ENTRY_OWN_ALLOCATION
    (void)t;
    return muster_calloc(1, sizeof(struct queue_entry));
#else
    struct queue_entry *e = t->efree;
    if (e) {
        memcpy(&t->efree, e, sizeof t->efree);
    } else {
        if (!t->neblocks || t->eused == QUEUE_ENTRY_BLOCK) {
            if (t->neblocks == t->ebcap &&
                queue__grow((void **)&t->eblocks, &t->ebcap, t->neblocks + 1,
                            sizeof(*t->eblocks)))
                return NULL;
            struct queue_entry *blk = muster_malloc(QUEUE_ENTRY_BLOCK * sizeof(*blk));
            if (!blk)
                return NULL;
            t->eblocks[t->neblocks++] = blk;
            t->eused = 0;
        }
        e = &t->eblocks[t->neblocks - 1][t->eused++];
    }
    memset(e, 0, sizeof(*e));
    return e;
#endif
}

void queue__entry_free(struct queue_tree *t, struct queue_entry *e)
{
#ifdef ENTRY_OWN_ALLOCATION
    (void)t;
    muster_free(e);
#else
    if (!e)
        return;
    memcpy(e, &t->efree, sizeof t->efree); /* the free list's link, in its first bytes */
    t->efree = e;
#endif
}

void queue__entry_blocks_free(struct queue_tree *t)
{
    for (uint32_t i = 0; i < t->neblocks; i++)
        muster_free(t->eblocks[i]);
    muster_free(t->eblocks);
    t->eblocks = NULL;
    t->neblocks = t->ebcap = t->eused = 0;
    t->efree = NULL;
}

static int entry_new(struct queue_tree *t, const struct queue_entry_spec *spec,
                     struct queue_entry **out, struct queue_error *err)
{
    const struct queue_resvec *req = spec->request;
    if (queue_idmap_get(&t->entries, spec->id))
        return entry_fail(err, MUSTER_EEXIST, "id", "entry id already present%s", NULL);
    struct queue_node *q = queue_tree_find(t, spec->queue);
    if (!q)
        return entry_fail(err, MUSTER_ENOENT, "queue", "queue %s does not exist", spec->queue);
    if (!queue__leaf(q))
        return entry_fail(err, MUSTER_ENOTLEAF, "queue",
                          "queue %s has child queues; work must name a leaf queue", spec->queue);
    int rc = request_check(t, req, err);
    if (rc)
        return rc;
    struct queue_entry *e = queue__entry_alloc(t);
    if (!e)
        return entry_fail(err, MUSTER_ENOMEM, "", "out of memory%s", NULL);
    e->id = spec->id;
    e->created = spec->created_at;
    e->prio = spec->priority;
    e->leaf = q;
    if (queue__shape_get(t, req, &e->shape) || queue_idmap_put(&t->entries, e->id, e)) {
        if (e->shape)
            queue__shape_unref(t, e->shape);
        queue__entry_free(t, e);
        return entry_fail(err, MUSTER_ENOMEM, "", "out of memory%s", NULL);
    }
    *out = e;
    return 0;
}

static void count(struct queue_node *q, int64_t pending, int64_t admitted)
{
    for (; q; q = q->parent) {
        q->pending += (uint64_t)pending;
        q->admitted += (uint64_t)admitted;
    }
}

int queue_entry_add(struct queue_tree *t, const struct queue_entry_spec *spec,
                    struct queue_entry **out, struct queue_error *err)
{
    t->version++;
    struct queue_entry *e;
    int rc = entry_new(t, spec, &e, err);
    if (rc)
        return rc;
    e->state = QUEUE_ENTRY_PENDING;
    if (queue__bucket_insert(t, e)) {
        queue_idmap_del(&t->entries, e->id);
        queue__shape_unref(t, e->shape);
        queue__entry_free(t, e);
        return entry_fail(err, MUSTER_ENOMEM, "", "out of memory%s", NULL);
    }
    count(e->leaf, 1, 0);
    if (out)
        *out = e;
    return 0;
}

int queue_entry_add_admitted(struct queue_tree *t, const struct queue_entry_spec *spec,
                             struct queue_entry **out, struct queue_error *err)
{
    t->version++;
    struct queue_entry *e;
    int rc = entry_new(t, spec, &e, err);
    if (rc)
        return rc;
    e->state = QUEUE_ENTRY_ADMITTED;
    queue__usage_apply(t, e->leaf, &e->shape->req, 1);
    count(e->leaf, 0, 1);
    queue__order_refresh_up(t, e->leaf);
    if (out)
        *out = e;
    return 0;
}

static void release(struct queue_tree *t, struct queue_entry *e)
{
    /* A gang that no longer holds capacity is no one's victim. */
    queue__gang_forget(t, e);
    queue__usage_apply(t, e->leaf, &e->shape->req, -1);
    count(e->leaf, 0, -1);
    queue__order_refresh_up(t, e->leaf);
    /* Capacity came back on every queue of the path: whatever was blocked there may fit. */
    queue__unblock_path(t, e->leaf);
}

void queue_entry_remove(struct queue_tree *t, struct queue_entry *e)
{
    t->version++;
    if (e->state == QUEUE_ENTRY_ADMITTED) {
        release(t, e);
    } else {
        queue__bucket_remove(t, e, 0);
        count(e->leaf, -1, 0);
    }
    queue_idmap_del(&t->entries, e->id);
    queue__shape_unref(t, e->shape);
    queue__entry_free(t, e);
}

int queue_entry_resize(struct queue_tree *t, struct queue_entry *e,
                       const struct queue_resvec *request, struct queue_error *err)
{
    t->version++;
    if (e->state != QUEUE_ENTRY_ADMITTED)
        return entry_fail(err, MUSTER_EINVAL, "state", "only an admitted entry is resized%s",
                          NULL);
    int rc = request_check(t, request, err);
    if (rc)
        return rc;
    struct queue_shape *old = e->shape, *shape;
    if (queue__shape_get(t, request, &shape))
        return entry_fail(err, MUSTER_ENOMEM, "", "out of memory%s", NULL);
    /* Its size changed: as a reclaim victim it is another gang now. */
    queue__gang_forget(t, e);
    queue__usage_apply(t, e->leaf, &old->req, -1);
    queue__usage_apply(t, e->leaf, &shape->req, 1);
    e->shape = shape;
    queue__shape_unref(t, old);
    queue__order_refresh_up(t, e->leaf);
    /* What it gave back (if anything) may let a waiting entry of the path in. */
    queue__unblock_path(t, e->leaf);
    return 0;
}

int queue_entry_admit(struct queue_tree *t, struct queue_entry *e, struct queue_limit *why)
{
    t->version++;
    if (e->state != QUEUE_ENTRY_PENDING)
        return MUSTER_EINVAL;
    if (!queue_tree_can_admit(t, e->leaf, &e->shape->req, why))
        return MUSTER_ELIMIT;
    queue__bucket_remove(t, e, 1);
    e->state = QUEUE_ENTRY_ADMITTED;
    queue__usage_apply(t, e->leaf, &e->shape->req, 1);
    count(e->leaf, -1, 1);
    queue__order_refresh_up(t, e->leaf);
    return 0;
}

int queue_entry_requeue(struct queue_tree *t, struct queue_entry *e)
{
    t->version++;
    if (e->state != QUEUE_ENTRY_ADMITTED)
        return MUSTER_EINVAL;
    release(t, e);
    e->state = QUEUE_ENTRY_PENDING;
    count(e->leaf, 1, 0);
    if (queue__bucket_insert(t, e)) {
        /* Out of memory: keep it admitted rather than lose it; the caller retries. */
        count(e->leaf, -1, 0);
        queue__usage_apply(t, e->leaf, &e->shape->req, 1);
        count(e->leaf, 0, 1);
        queue__order_refresh_up(t, e->leaf);
        e->state = QUEUE_ENTRY_ADMITTED;
        return MUSTER_ENOMEM;
    }
    return 0;
}

/* ---- explain ---- */

int queue_limit_explain(const struct queue_tree *t, const struct queue_limit *why, char *buf,
                        size_t cap)
{
    char path[512], a[QUEUE_QTY_STR_MAX], b[QUEUE_QTY_STR_MAX], c[QUEUE_QTY_STR_MAX],
        d[QUEUE_QTY_STR_MAX];
    int n;
    if (cap == 0)
        return MUSTER_ENOSPC;
    if (why->queue == NULL || queue_node_path(why->queue, path, sizeof(path)) < 0)
        snprintf(path, sizeof(path), "%s", why->queue ? why->queue->spec.name : "?");
    const char *res = queue_resnames_name(t->names, why->resource);
    res = res ? res : "?";
    queue_qty_format_auto(why->in_use, a, sizeof(a));
    queue_qty_format_auto(why->limit, b, sizeof(b));
    queue_qty_format_auto(why->need, c, sizeof(c));
    queue_qty_format_auto(why->held, d, sizeof(d));
    switch (why->kind) {
    case QUEUE_LIMIT_NONE:
        n = snprintf(buf, cap, "queue %s: fits", path);
        break;
    case QUEUE_LIMIT_CAPABILITY:
        if (!why->queue->parent && t->fleet[why->resource] < why->queue->cap[why->resource])
            n = snprintf(buf, cap, "fleet: %s %s of %s in use, needs %s", res, a, b, c);
        else
            n = snprintf(buf, cap, "queue %s: %s %s of %s in use, needs %s", path, res, a, b, c);
        break;
    case QUEUE_LIMIT_GUARANTEE:
        n = snprintf(buf, cap,
                     "queue %s: %s %s of %s in use and %s held for other queues' guarantees, "
                     "needs %s", path, res, a, b, d, c);
        break;
    case QUEUE_LIMIT_STATE:
        n = snprintf(buf, cap, "queue %s is %s: it admits no new work", path,
                     queue_state_name(why->queue->spec.state));
        break;
    case QUEUE_LIMIT_NOT_LEAF:
        n = snprintf(buf, cap, "queue %s has child queues: work must name a leaf queue", path);
        break;
    case QUEUE_LIMIT_TOO_MANY:
        n = snprintf(buf, cap, "the request names more than %d resources",
                     QUEUE_REQUEST_RES_MAX);
        break;
    default:
        n = snprintf(buf, cap, "queue %s: %s usage would overflow", path, res);
        break;
    }
    return n < 0 || (size_t)n >= cap ? MUSTER_ENOSPC : n;
}
