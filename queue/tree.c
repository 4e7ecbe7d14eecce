/* The queue tree's structure: queues, their specs and the validation rules (see tree.h). */
#include "queue/tree.h"

#include "queue/errors.h"
#include "queue/mem.h"
#include "queue/quantity.h"
#include "queue/tree_int.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const state_names[] = {"Open", "Closed", "Draining"};
static const char *const strategy_names[] = {"BestEffortFIFO", "StrictFIFO"};
static const char *const within_names[] = {"Never", "LowerPriority"};
static const char *const on_loss_names[] = {"Requeue", "Replace"};

const char *queue_state_name(enum queue_state s)
{
    return (unsigned)s < 3 ? state_names[s] : "Unknown";
}

const char *queue_strategy_name(enum queue_strategy s)
{
    return (unsigned)s < 2 ? strategy_names[s] : "Unknown";
}

const char *queue_within_name(enum queue_within w)
{
    return (unsigned)w < 2 ? within_names[w] : "Unknown";
}

const char *queue_on_loss_name(enum queue_on_loss l)
{
    return (unsigned)l < 2 ? on_loss_names[l] : "Unknown";
}

int queue_on_loss_parse(const char *s, enum queue_on_loss *out)
{
    for (int i = 0; i < 2; i++) {
        if (strcmp(s, on_loss_names[i]) == 0) {
            *out = (enum queue_on_loss)i;
            return 0;
        }
    }
    return MUSTER_EINVAL;
}

int queue_within_parse(const char *s, enum queue_within *out)
{
    for (int i = 0; i < 2; i++) {
        if (strcmp(s, within_names[i]) == 0) {
            *out = (enum queue_within)i;
            return 0;
        }
    }
    return MUSTER_EINVAL;
}

int queue_state_parse(const char *s, enum queue_state *out)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, state_names[i]) == 0) {
            *out = (enum queue_state)i;
            return 0;
        }
    }
    return MUSTER_EINVAL;
}

int queue_strategy_parse(const char *s, enum queue_strategy *out)
{
    for (int i = 0; i < 2; i++) {
        if (strcmp(s, strategy_names[i]) == 0) {
            *out = (enum queue_strategy)i;
            return 0;
        }
    }
    return MUSTER_EINVAL;
}

__attribute__((format(printf, 4, 5))) static int fail(struct queue_error *err, int code,
                                                       const char *field, const char *fmt, ...)
{
    if (err) {
        snprintf(err->field, sizeof(err->field), "%s", field);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

int queue__grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t n = *cap ? *cap * 2 : 4;
    while (n < need)
        n *= 2;
    void *p = muster_realloc(*arr, (size_t)n * elem);
    if (!p)
        return MUSTER_ENOMEM;
    *arr = p;
    *cap = n;
    return 0;
}

int queue__leaf(const struct queue_node *q)
{
    return q->nkids == 0;
}

int queue_name_valid(const char *s, size_t n)
{
    if (!s || n == 0 || n > 63)
        return 0;
    /* A DNS subdomain: dot-separated labels, each starting and ending with a letter or digit
     * ("a..b", "a.-b" and "a-.b" are not names a Volcano Queue could take). */
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        int edge = i == 0 || i == n - 1 || s[i - 1] == '.' || s[i + 1] == '.';
        if (!alnum && !(c == '-' && !edge) &&
            !(c == '.' && i > 0 && i < n - 1 && s[i - 1] != '.' && s[i - 1] != '-' &&
              s[i + 1] != '-'))
            return 0;
    }
    return 1;
}

static void fmt_qty(char *buf, size_t cap, int64_t milli)
{
    if (queue_qty_format_auto(milli, buf, cap) < 0)
        snprintf(buf, cap, "%lldm", (long long)milli);
}

static const char *rname(const struct queue_tree *t, uint32_t id)
{
    const char *n = queue_resnames_name(t->names, id);
    return n ? n : "?";
}

/* ---- lookup ---- */

static size_t node_pos(const struct queue_tree *t, const char *name, int *found)
{
    size_t lo = 0, hi = t->nnodes;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(t->nodes[mid]->spec.name, name);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

struct queue_node *queue_tree_find(const struct queue_tree *t, const char *name)
{
    int found;
    if (!name)
        return NULL;
    size_t i = node_pos(t, name, &found);
    return found ? t->nodes[i] : NULL;
}

struct queue_node *queue_tree_root(const struct queue_tree *t)
{
    return t->root;
}

size_t queue_tree_count(const struct queue_tree *t)
{
    return t->nnodes;
}

struct queue_resnames *queue_tree_resnames(struct queue_tree *t)
{
    return t->names;
}

const char *queue_node_name(const struct queue_node *q)
{
    return q->spec.name;
}

const struct queue_node *queue_node_parent(const struct queue_node *q)
{
    return q->parent;
}

const struct queue_spec *queue_node_spec(const struct queue_node *q)
{
    return &q->spec;
}

size_t queue_node_children(const struct queue_node *q)
{
    return q->nkids;
}

int queue_node_path(const struct queue_node *q, char *buf, size_t cap)
{
    const struct queue_node *chain[QUEUE_DEPTH_MAX + 1];
    size_t n = 0, len = 0;
    if (cap == 0)
        return MUSTER_ENOSPC;
    if (!q->parent)
        return snprintf(buf, cap, "%s", q->spec.name) < (int)cap ? (int)strlen(buf) : MUSTER_ENOSPC;
    for (; q->parent && n < QUEUE_DEPTH_MAX + 1; q = q->parent)
        chain[n++] = q;
    buf[0] = '\0';
    while (n--) {
        int w = snprintf(buf + len, cap - len, "%s%s", len ? "/" : "", chain[n]->spec.name);
        if (w < 0 || (size_t)w >= cap - len)
            return MUSTER_ENOSPC;
        len += (size_t)w;
    }
    return (int)len;
}

/* ---- specs and dense arrays ---- */

static void spec_close(struct queue_spec *s)
{
    muster_free((char *)s->name);
    muster_free((char *)s->parent);
    queue_resvec_close(&s->guarantee);
    queue_resvec_close(&s->deserved);
    queue_resvec_close(&s->capability);
    memset(s, 0, sizeof(*s));
}

static int spec_copy(struct queue_spec *dst, const struct queue_spec *src, const char *parent)
{
    memset(dst, 0, sizeof(*dst));
    dst->name = muster_strdup(src->name);
    dst->parent = parent ? muster_strdup(parent) : NULL;
    dst->weight = src->weight;
    dst->priority = src->priority;
    dst->state = src->state;
    dst->strategy = src->strategy;
    dst->reclaimable = src->reclaimable;
    dst->within_queue = src->within_queue;
    dst->min_runtime = src->min_runtime;
    dst->max_per_minute = src->max_per_minute;
    dst->cooldown = src->cooldown;
    dst->on_cluster_loss = src->on_cluster_loss;
    if (!dst->name || (parent && !dst->parent) ||
        queue_resvec_copy(&dst->guarantee, &src->guarantee) ||
        queue_resvec_copy(&dst->deserved, &src->deserved) ||
        queue_resvec_copy(&dst->capability, &src->capability)) {
        spec_close(dst);
        return MUSTER_ENOMEM;
    }
    return 0;
}

static uint32_t vec_max_id(const struct queue_resvec *v)
{
    return v->len ? v->items[v->len - 1].id + 1 : 0;
}

static void node_point_dense(struct queue_node *q, int64_t *block, uint32_t w)
{
    q->use = block;
    q->held = block + w;
    q->inner = block + 2 * (size_t)w;
    q->gua = block + 3 * (size_t)w;
    q->cap = block + 4 * (size_t)w;
    q->minneed = block + 5 * (size_t)w;
    q->maxslack = block + 6 * (size_t)w;
}

static void node_load_limits(struct queue_tree *t, struct queue_node *q)
{
    for (uint32_t r = 0; r < t->rcap; r++) {
        q->gua[r] = 0;
        q->cap[r] = QUEUE_UNLIMITED;
    }
    /* gua is what is held for the queue while unused: nothing when the tree lends unused
     * guarantees and the queue lets its own be lent (it gets it back through reclaim). */
    int lent = t->lending && q->spec.reclaimable == QUEUE_RECLAIMABLE;
    for (uint32_t i = 0; i < q->spec.guarantee.len && !lent; i++)
        q->gua[q->spec.guarantee.items[i].id] = q->spec.guarantee.items[i].milli;
    for (uint32_t i = 0; i < q->spec.capability.len; i++)
        q->cap[q->spec.capability.items[i].id] = q->spec.capability.items[i].milli;
}

/* Columns [used, width) come into use: nothing below any queue asks for them yet, so their
 * summaries start at "may fit" everywhere (0), never at stale values. */
static void mark_used(struct queue_tree *t, uint32_t width)
{
    if (width <= t->used)
        return;
    for (size_t i = 0; i < t->nnodes; i++) {
        for (uint32_t r = t->used; r < width; r++) {
            t->nodes[i]->minneed[r] = 0;
            t->nodes[i]->maxslack[r] = 0;
        }
    }
    t->used = width;
}

/* Widens every dense array to hold resource ids below width. Allocates, so it runs when a new
 * name first appears in a spec or request, never while admitting. */
int queue__ensure_width(struct queue_tree *t, uint32_t width)
{
    if (width <= t->rcap) {
        mark_used(t, width);
        return 0;
    }
    uint32_t w = t->rcap ? t->rcap : 8;
    while (w < width)
        w *= 2;
    int64_t *fleet = muster_malloc(w * sizeof(*fleet));
    int64_t *room = muster_malloc(3 * (QUEUE_DEPTH_MAX + 2) * (size_t)w * sizeof(*room));
    int64_t **blocks = muster_calloc(t->nnodes ? t->nnodes : 1, sizeof(*blocks));
    int fail_alloc = !fleet || !room || !blocks;
    for (size_t i = 0; !fail_alloc && i < t->nnodes; i++) {
        blocks[i] = muster_malloc(QUEUE_DENSE_ARRAYS * (size_t)w * sizeof(int64_t));
        fail_alloc = !blocks[i];
    }
    if (fail_alloc) {
        for (size_t i = 0; blocks && i < t->nnodes; i++)
            muster_free(blocks[i]);
        muster_free(blocks);
        muster_free(fleet);
        muster_free(room);
        return MUSTER_ENOMEM;
    }
    muster_free(t->room);
    t->room = room;
    for (uint32_t r = 0; r < w; r++)
        fleet[r] = r < t->rcap ? t->fleet[r] : QUEUE_UNLIMITED;
    muster_free(t->fleet);
    t->fleet = fleet;
    for (size_t i = 0; i < t->nnodes; i++) {
        struct queue_node *q = t->nodes[i];
        int64_t *b = blocks[i];
        for (uint32_t r = 0; r < w; r++) {
            int old = r < t->rcap;
            b[r] = old ? q->use[r] : 0;
            b[w + r] = old ? q->held[r] : 0;
            b[2 * w + r] = old ? q->inner[r] : 0;
            b[3 * w + r] = old ? q->gua[r] : 0;
            b[4 * w + r] = old ? q->cap[r] : QUEUE_UNLIMITED;
            /* a new column: nothing below asks for that resource yet, so 0 (may fit) */
            b[5 * w + r] = old ? q->minneed[r] : 0;
            b[6 * w + r] = old ? q->maxslack[r] : 0;
        }
        muster_free(q->use);
        node_point_dense(q, b, w);
    }
    muster_free(blocks);
    t->rcap = w;
    mark_used(t, width);
    return 0;
}

static struct queue_node *node_new(struct queue_tree *t, const struct queue_spec *spec,
                                   const char *parent)
{
    struct queue_node *q = muster_calloc(1, sizeof(*q));
    if (!q)
        return NULL;
    int64_t *block =
        muster_calloc(QUEUE_DENSE_ARRAYS * (size_t)(t->rcap ? t->rcap : 1), sizeof(int64_t));
    if (!block || spec_copy(&q->spec, spec, parent)) {
        muster_free(block);
        muster_free(q);
        return NULL;
    }
    node_point_dense(q, block, t->rcap);
    for (uint32_t r = 0; r < t->rcap; r++)
        q->minneed[r] = QUEUE_UNLIMITED;
    q->uid = ++t->next_uid;
    q->act_idx = -1;
    q->gleaf_idx = -1;
    node_load_limits(t, q);
    return q;
}

static void node_free(struct queue_node *q)
{
    spec_close(&q->spec);
    muster_free(q->use);
    muster_free(q->kids);
    muster_free(q->act);
    muster_free(q->bkts);
    muster_free(q->bact);
    muster_free(q->blocked);
    muster_free(q->gangs);
    for (uint32_t c = 0; c < q->ncl; c++)
        muster_free(q->cl[c].g);
    muster_free(q->cl);
    queue_resvec_close(&q->gmax);
    muster_free(q);
}

static int kid_insert(struct queue_node *p, struct queue_node *q)
{
    /* act holds at most every kid: room made here means act_insert never fails later. */
    if (queue__grow((void **)&p->kids, &p->kcap, p->nkids + 1, sizeof(*p->kids)) ||
        queue__grow((void **)&p->act, &p->acap, p->nkids + 1, sizeof(*p->act)))
        return MUSTER_ENOMEM;
    uint32_t i = 0;
    while (i < p->nkids && strcmp(p->kids[i]->spec.name, q->spec.name) < 0)
        i++;
    memmove(&p->kids[i + 1], &p->kids[i], (p->nkids - i) * sizeof(*p->kids));
    p->kids[i] = q;
    p->nkids++;
    q->parent = p;
    return 0;
}

static void kid_remove(struct queue_node *p, struct queue_node *q)
{
    for (uint32_t i = 0; i < p->nkids; i++) {
        if (p->kids[i] == q) {
            memmove(&p->kids[i], &p->kids[i + 1], (p->nkids - i - 1) * sizeof(*p->kids));
            p->nkids--;
            break;
        }
    }
    q->parent = NULL;
}

static void set_depths(struct queue_node *q, uint32_t depth)
{
    q->depth = depth;
    for (uint32_t i = 0; i < q->nkids; i++)
        set_depths(q->kids[i], depth + 1);
}

static uint32_t subtree_height(const struct queue_node *q)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i < q->nkids; i++) {
        uint32_t k = subtree_height(q->kids[i]) + 1;
        if (k > h)
            h = k;
    }
    return h;
}

static int nodes_insert(struct queue_tree *t, struct queue_node *q)
{
    int found;
    size_t i = node_pos(t, q->spec.name, &found);
    if (t->nnodes == t->ncap) {
        size_t cap = t->ncap ? t->ncap * 2 : 16;
        struct queue_node **n = muster_realloc(t->nodes, cap * sizeof(*n));
        if (!n)
            return MUSTER_ENOMEM;
        t->nodes = n;
        t->ncap = cap;
    }
    memmove(&t->nodes[i + 1], &t->nodes[i], (t->nnodes - i) * sizeof(*t->nodes));
    t->nodes[i] = q;
    t->nnodes++;
    return 0;
}

static void nodes_remove(struct queue_tree *t, const char *name)
{
    int found;
    size_t i = node_pos(t, name, &found);
    if (found) {
        memmove(&t->nodes[i], &t->nodes[i + 1], (t->nnodes - i - 1) * sizeof(*t->nodes));
        t->nnodes--;
    }
}

/* ---- validation ---- */

/* The capability for r that bounds a queue whose parent is p: the nearest ancestor from p up
 * that sets it. `self`/`self_spec` stand in for one queue's not-yet-applied spec. */
static const struct queue_node *nearest_cap(const struct queue_node *p, uint32_t r,
                                            const struct queue_node *self,
                                            const struct queue_spec *self_spec, int64_t *value)
{
    for (; p; p = p->parent) {
        const struct queue_spec *s = p == self ? self_spec : &p->spec;
        for (uint32_t i = 0; i < s->capability.len; i++) {
            if (s->capability.items[i].id == r) {
                *value = s->capability.items[i].milli;
                return p;
            }
        }
    }
    return NULL;
}

struct check_ctx {
    const struct queue_tree *t;
    const struct queue_node *self; /* NULL when creating */
    const struct queue_spec *spec;
    struct queue_error *err;
};

/* Every capability in the subtree of q (q's own spec replaced) within its nearest ancestor's. */
static int check_caps_below(const struct check_ctx *c, const struct queue_node *q)
{
    for (uint32_t k = 0; k < q->nkids; k++) {
        const struct queue_node *kid = q->kids[k];
        for (uint32_t i = 0; i < kid->spec.capability.len; i++) {
            uint32_t r = kid->spec.capability.items[i].id;
            int64_t mine = kid->spec.capability.items[i].milli, bound;
            const struct queue_node *a = nearest_cap(q, r, c->self, c->spec, &bound);
            if (a && mine > bound) {
                char x[QUEUE_QTY_STR_MAX], y[QUEUE_QTY_STR_MAX], field[96];
                fmt_qty(x, sizeof(x), mine);
                fmt_qty(y, sizeof(y), bound);
                snprintf(field, sizeof(field), "capability.%s", rname(c->t, r));
                return fail(c->err, MUSTER_EINVAL, field,
                            "capability of %s (%s %s) is above the capability of %s (%s %s)",
                            kid->spec.name, rname(c->t, r), x,
                            a == c->self ? c->spec->name : a->spec.name, rname(c->t, r), y);
            }
        }
        int rc = check_caps_below(c, kid);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_vector_signs(const struct queue_tree *t, const struct queue_resvec *v,
                              const char *what, struct queue_error *err)
{
    for (uint32_t i = 0; i < v->len; i++) {
        if (v->items[i].milli < 0) {
            char field[96];
            snprintf(field, sizeof(field), "%s.%s", what, rname(t, v->items[i].id));
            return fail(err, MUSTER_EINVAL, field, "%s of %s must not be negative", what,
                        rname(t, v->items[i].id));
        }
        if (!queue_resnames_name(t->names, v->items[i].id))
            return fail(err, MUSTER_EINVAL, what, "%s names an unknown resource id", what);
    }
    return 0;
}

/* guarantee <= deserved <= capability, resource by resource. */
static int check_ordering(const struct queue_tree *t, const struct queue_spec *s,
                          struct queue_error *err)
{
    char x[QUEUE_QTY_STR_MAX], y[QUEUE_QTY_STR_MAX], field[96];
    for (uint32_t i = 0; i < s->guarantee.len; i++) {
        uint32_t r = s->guarantee.items[i].id;
        int64_t g = s->guarantee.items[i].milli, d = queue_resvec_get(&s->deserved, r);
        if (g > d) {
            fmt_qty(x, sizeof(x), g);
            fmt_qty(y, sizeof(y), d);
            snprintf(field, sizeof(field), "guarantee.%s", rname(t, r));
            return fail(err, MUSTER_EINVAL, field,
                        "guarantee of %s (%s %s) is above its deserved (%s %s)", s->name,
                        rname(t, r), x, rname(t, r), y);
        }
    }
    for (uint32_t i = 0; i < s->deserved.len; i++) {
        uint32_t r = s->deserved.items[i].id;
        int64_t d = s->deserved.items[i].milli;
        for (uint32_t j = 0; j < s->capability.len; j++) {
            if (s->capability.items[j].id == r && d > s->capability.items[j].milli) {
                fmt_qty(x, sizeof(x), d);
                fmt_qty(y, sizeof(y), s->capability.items[j].milli);
                snprintf(field, sizeof(field), "deserved.%s", rname(t, r));
                return fail(err, MUSTER_EINVAL, field,
                            "deserved of %s (%s %s) is above its capability (%s %s)", s->name,
                            rname(t, r), x, rname(t, r), y);
            }
        }
    }
    return 0;
}

/* What bounds the sum of the children's guarantees of p: p's guarantee, or for root (which
 * nothing guarantees) its capability. */
static int64_t guarantee_bound(const struct queue_node *p, const struct queue_spec *ps, uint32_t r)
{
    if (!p->parent) {
        int64_t c = queue_resvec_get(&ps->capability, r);
        for (uint32_t i = 0; i < ps->capability.len; i++)
            if (ps->capability.items[i].id == r)
                return c;
        return QUEUE_UNLIMITED;
    }
    return queue_resvec_get(&ps->guarantee, r);
}

static int check_guarantee_sum(const struct check_ctx *c, const struct queue_node *p,
                               const struct queue_spec *ps, uint32_t r)
{
    int64_t sum = 0, bound = guarantee_bound(p, ps, r);
    int has_self = 0, overflow = 0;
    for (uint32_t k = 0; k < p->nkids; k++) {
        const struct queue_node *kid = p->kids[k];
        const struct queue_spec *ks = kid == c->self ? c->spec : &kid->spec;
        has_self |= kid == c->self;
        overflow |= __builtin_add_overflow(sum, queue_resvec_get(&ks->guarantee, r), &sum);
    }
    if (p != c->self && !has_self)
        overflow |= __builtin_add_overflow(sum, queue_resvec_get(&c->spec->guarantee, r), &sum);
    if (overflow)
        return fail(c->err, MUSTER_ERANGE, "guarantee", "guarantees of the children of %s add "
                    "up to more than muster can count", ps->name);
    if (sum <= bound)
        return 0;
    char x[QUEUE_QTY_STR_MAX], y[QUEUE_QTY_STR_MAX], field[96];
    fmt_qty(x, sizeof(x), sum);
    fmt_qty(y, sizeof(y), bound);
    snprintf(field, sizeof(field), "guarantee.%s", rname(c->t, r));
    return fail(c->err, MUSTER_EINVAL, field,
                "guarantees of the children of %s add up to %s %s, above its %s (%s %s)",
                ps->name, rname(c->t, r), x, p->parent ? "guarantee" : "capability",
                rname(c->t, r), y);
}

int queue_tree_validate(const struct queue_tree *t, const struct queue_spec *spec, int exists,
                        struct queue_error *err)
{
    if (!spec->name || !queue_name_valid(spec->name, strlen(spec->name)))
        return fail(err, MUSTER_EINVAL, "name",
                    "queue name must be 1-63 lowercase letters, digits, '-' or '.' (a DNS "
                    "subdomain: each dot-separated part starts and ends with a letter or "
                    "digit)");
    const struct queue_node *self = queue_tree_find(t, spec->name);
    if (exists && !self)
        return fail(err, MUSTER_ENOENT, "name", "queue %s does not exist", spec->name);
    if (!exists && self)
        return fail(err, MUSTER_EEXIST, "name", "queue %s already exists", spec->name);
    int is_root = strcmp(spec->name, QUEUE_ROOT) == 0;
    const struct queue_node *p = NULL;
    if (is_root) {
        if (spec->parent && spec->parent[0])
            return fail(err, MUSTER_EINVAL, "parent", "root has no parent");
    } else {
        const char *pname = spec->parent && spec->parent[0] ? spec->parent : QUEUE_ROOT;
        p = queue_tree_find(t, pname);
        if (!p)
            return fail(err, MUSTER_ENOENT, "parent", "parent queue %s does not exist", pname);
        if (strcmp(spec->name, QUEUE_DEFAULT) == 0 && p != t->root)
            return fail(err, MUSTER_EINVAL, "parent", "queue default must stay under root");
        for (const struct queue_node *a = p; self && a; a = a->parent)
            if (a == self)
                return fail(err, MUSTER_ECYCLE, "parent",
                            "moving %s under %s would make a cycle", spec->name, pname);
        uint32_t height = self ? subtree_height(self) : 0;
        if (p->depth + 1 + height > QUEUE_DEPTH_MAX)
            return fail(err, MUSTER_ELIMIT, "parent", "the tree would be deeper than %d levels",
                        QUEUE_DEPTH_MAX);
        /* A move carries the subtree's usage to the new ancestors: none may go above its
         * capability, as no admission could have put it there. */
        for (const struct queue_node *a = p; self && self->parent != p && a; a = a->parent) {
            int shared = 0;
            for (const struct queue_node *x = self->parent; x; x = x->parent)
                shared |= x == a;
            for (uint32_t r = 0; !shared && r < t->rcap; r++) {
                int64_t sum;
                if (!self->use[r])
                    continue;
                if (__builtin_add_overflow(a->use[r], self->use[r], &sum) ||
                    sum > queue__cap_eff(t, a, r)) {
                    char x[QUEUE_QTY_STR_MAX], y[QUEUE_QTY_STR_MAX];
                    fmt_qty(x, sizeof(x), self->use[r]);
                    fmt_qty(y, sizeof(y), queue__cap_eff(t, a, r) - a->use[r]);
                    return fail(err, MUSTER_EINVAL, "parent",
                                "moving %s under %s would put %s above its capability: %s %s "
                                "in use below %s, %s left", spec->name, pname, a->spec.name,
                                rname(t, r), x, spec->name, y);
                }
            }
        }
        if (p->nkids == 0 && (p->pending || p->admitted))
            return fail(err, MUSTER_EBUSY, "parent",
                        "queue %s holds work; work lives only in leaf queues, so it cannot get "
                        "children until its work is gone", p->spec.name);
    }
    if (spec->weight < 1 || spec->weight > 1000000)
        return fail(err, MUSTER_EINVAL, "weight", "weight must be between 1 and 1000000");
    if ((unsigned)spec->state > QUEUE_DRAINING)
        return fail(err, MUSTER_EINVAL, "state", "state must be Open, Closed or Draining");
    if ((unsigned)spec->strategy > QUEUE_STRICT_FIFO)
        return fail(err, MUSTER_EINVAL, "queueingStrategy",
                    "queueingStrategy must be BestEffortFIFO or StrictFIFO");
    if ((unsigned)spec->reclaimable > QUEUE_NOT_RECLAIMABLE)
        return fail(err, MUSTER_EINVAL, "reclaimable", "reclaimable must be true or false");
    if ((unsigned)spec->within_queue > QUEUE_WITHIN_LOWER_PRIORITY)
        return fail(err, MUSTER_EINVAL, "preemption.withinQueue",
                    "preemption.withinQueue must be Never or LowerPriority");
    if (spec->min_runtime < 0)
        return fail(err, MUSTER_EINVAL, "preemption.minRuntime",
                    "preemption.minRuntime must not be negative");
    if (spec->max_per_minute < 0 || spec->max_per_minute > QUEUE_PREEMPT_PER_MINUTE_MAX)
        return fail(err, MUSTER_EINVAL, "preemption.maxPerMinute",
                    "preemption.maxPerMinute must be between 0 (no limit) and %d gangs",
                    QUEUE_PREEMPT_PER_MINUTE_MAX);
    if (spec->cooldown < 0)
        return fail(err, MUSTER_EINVAL, "preemption.cooldown",
                    "preemption.cooldown must not be negative");
    if ((unsigned)spec->on_cluster_loss > QUEUE_ON_LOSS_REPLACE)
        return fail(err, MUSTER_EINVAL, "onClusterLoss",
                    "onClusterLoss must be Requeue or Replace");
    int rc = check_vector_signs(t, &spec->guarantee, "guarantee", err);
    if (!rc)
        rc = check_vector_signs(t, &spec->deserved, "deserved", err);
    if (!rc)
        rc = check_vector_signs(t, &spec->capability, "capability", err);
    if (!rc)
        rc = check_ordering(t, spec, err);
    if (rc)
        return rc;

    struct check_ctx c = {t, self, spec, err};
    /* Own capability within the nearest ancestor's. */
    for (uint32_t i = 0; p && i < spec->capability.len; i++) {
        uint32_t r = spec->capability.items[i].id;
        int64_t bound;
        const struct queue_node *a = nearest_cap(p, r, self, spec, &bound);
        if (a && spec->capability.items[i].milli > bound) {
            char x[QUEUE_QTY_STR_MAX], y[QUEUE_QTY_STR_MAX], field[96];
            fmt_qty(x, sizeof(x), spec->capability.items[i].milli);
            fmt_qty(y, sizeof(y), bound);
            snprintf(field, sizeof(field), "capability.%s", rname(t, r));
            return fail(err, MUSTER_EINVAL, field,
                        "capability of %s (%s %s) is above its %s %s (%s %s)", spec->name,
                        rname(t, r), x, a == p ? "parent" : "ancestor", a->spec.name,
                        rname(t, r), y);
        }
    }
    /* Descendants' capabilities within the new limits (a move can tighten them too). */
    if (self) {
        rc = check_caps_below(&c, self);
        if (rc)
            return rc;
    }
    /* Guarantees: this queue's among its siblings, and its children's within it. */
    for (uint32_t i = 0; p && i < spec->guarantee.len; i++) {
        rc = check_guarantee_sum(&c, p, &p->spec, spec->guarantee.items[i].id);
        if (rc)
            return rc;
    }
    for (uint32_t k = 0; self && k < self->nkids; k++) {
        const struct queue_spec *ks = &self->kids[k]->spec;
        for (uint32_t i = 0; i < ks->guarantee.len; i++) {
            rc = check_guarantee_sum(&c, self, spec, ks->guarantee.items[i].id);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* ---- changes ---- */

static int width_for(struct queue_tree *t, const struct queue_spec *s)
{
    uint32_t w = vec_max_id(&s->guarantee);
    uint32_t d = vec_max_id(&s->deserved), c = vec_max_id(&s->capability);
    w = d > w ? d : w;
    w = c > w ? c : w;
    return queue__ensure_width(t, w);
}

/* After any change to specs or shape: held amounts, shares and fair order from scratch. Rare
 * (operator actions), so simplicity wins over incremental upkeep here. */
static void settle(struct queue_tree *t)
{
    queue__recompute_held(t);
    queue__unblock_all(t);
    queue__order_rebuild(t);
}

int queue_tree_create(struct queue_tree *t, const struct queue_spec *spec, struct queue_error *err)
{
    t->version++;
    int rc = queue_tree_validate(t, spec, 0, err);
    if (rc)
        return rc;
    if (width_for(t, spec))
        return fail(err, MUSTER_ENOMEM, "", "out of memory");
    struct queue_node *p = queue_tree_find(t, spec->parent && spec->parent[0] ? spec->parent
                                                                            : QUEUE_ROOT);
    struct queue_node *q = node_new(t, spec, p->spec.name);
    if (!q)
        return fail(err, MUSTER_ENOMEM, "", "out of memory");
    if (nodes_insert(t, q)) {
        node_free(q);
        return fail(err, MUSTER_ENOMEM, "", "out of memory");
    }
    if (kid_insert(p, q)) {
        nodes_remove(t, q->spec.name);
        node_free(q);
        return fail(err, MUSTER_ENOMEM, "", "out of memory");
    }
    q->depth = p->depth + 1;
    /* p stopped being a leaf: it can hold no buckets now (validation made sure it was empty). */
    queue__leaf_free_buckets(t, p);
    settle(t);
    return 0;
}

int queue_tree_update(struct queue_tree *t, const struct queue_spec *spec, struct queue_error *err)
{
    t->version++;
    int rc = queue_tree_validate(t, spec, 1, err);
    if (rc)
        return rc;
    if (width_for(t, spec))
        return fail(err, MUSTER_ENOMEM, "", "out of memory");
    struct queue_node *q = queue_tree_find(t, spec->name);
    struct queue_node *np = q->parent ? queue_tree_find(t, spec->parent && spec->parent[0]
                                                               ? spec->parent
                                                               : QUEUE_ROOT)
                                      : NULL;
    struct queue_spec copy;
    if (spec_copy(&copy, spec, np ? np->spec.name : NULL))
        return fail(err, MUSTER_ENOMEM, "", "out of memory");
    int moving = np && np != q->parent;
    /* Everything that can fail comes first, so a failure leaves the queue as it was. */
    if (moving &&
        (queue__grow((void **)&np->kids, &np->kcap, np->nkids + 1, sizeof(*np->kids)) ||
         queue__grow((void **)&np->act, &np->acap, np->nkids + 1, sizeof(*np->act)))) {
        spec_close(&copy);
        return fail(err, MUSTER_ENOMEM, "", "out of memory");
    }
    if (copy.strategy != q->spec.strategy && queue__leaf(q) &&
        queue__leaf_rebucket(t, q, copy.strategy)) {
        spec_close(&copy);
        return fail(err, MUSTER_ENOMEM, "", "out of memory while regrouping entries");
    }
    if (moving) {
        /* Usage and counts leave the old ancestors and join the new ones. */
        struct queue_node *old = q->parent;
        for (struct queue_node *a = old; a; a = a->parent) {
            a->pending -= q->pending;
            a->admitted -= q->admitted;
        }
        kid_remove(old, q);
        if (old->nkids == 0) /* old is a leaf now, and leaves count only their own entries */
            memset(old->use, 0, t->rcap * sizeof(*old->use));
        (void)kid_insert(np, q); /* room reserved above */
        for (struct queue_node *a = np; a; a = a->parent) {
            a->pending += q->pending;
            a->admitted += q->admitted;
        }
        queue__leaf_free_buckets(t, np);
        set_depths(q, np->depth + 1);
    }
    spec_close(&q->spec);
    q->spec = copy;
    node_load_limits(t, q);
    settle(t);
    return 0;
}

int queue_tree_remove(struct queue_tree *t, const char *name, struct queue_error *err)
{
    t->version++;
    struct queue_node *q = queue_tree_find(t, name);
    if (!q)
        return fail(err, MUSTER_ENOENT, "name", "queue %s does not exist", name ? name : "");
    if (q == t->root || strcmp(name, QUEUE_DEFAULT) == 0)
        return fail(err, MUSTER_EINVAL, "name", "queue %s cannot be deleted", name);
    if (q->nkids)
        return fail(err, MUSTER_ENOTEMPTY, "name", "queue %s has %u child queue(s)", name,
                    q->nkids);
    if (q->pending || q->admitted)
        return fail(err, MUSTER_EBUSY, "name", "queue %s holds %llu pending and %llu admitted "
                    "entries", name, (unsigned long long)q->pending,
                    (unsigned long long)q->admitted);
    queue__leaf_free_buckets(t, q);
    kid_remove(q->parent, q);
    nodes_remove(t, name);
    node_free(q);
    settle(t);
    return 0;
}

int queue_tree_set_fleet(struct queue_tree *t, const struct queue_resvec *fleet)
{
    t->version++;
    if (queue__ensure_width(t, vec_max_id(fleet)))
        return MUSTER_ENOMEM;
    for (uint32_t r = 0; r < t->rcap; r++)
        t->fleet[r] = QUEUE_UNLIMITED;
    for (uint32_t i = 0; i < fleet->len; i++)
        t->fleet[fleet->items[i].id] = fleet->items[i].milli;
    settle(t);
    return 0;
}

uint64_t queue_tree_version(const struct queue_tree *t)
{
    return t->version;
}

int queue_tree_set_lending(struct queue_tree *t, int on)
{
    t->version++;
    t->lending = on != 0;
    for (size_t i = 0; i < t->nnodes; i++)
        node_load_limits(t, t->nodes[i]);
    settle(t);
    return 0;
}

int queue_tree_lending(const struct queue_tree *t)
{
    return t->lending;
}

struct queue_tree *queue_tree_new(void)
{
    struct queue_tree *t = muster_calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->room_epoch = 1; /* a node's nofit of 0 never matches */
    /* a pending gang's entry holds its id: the map needs no copy of it */
    queue_idmap_init_keyed(&t->entries, offsetof(struct queue_entry, id));
    queue_idmap_init(&t->buckets);
    queue_idmap_init(&t->shapes);
    t->names = queue_resnames_new();
    struct queue_spec root = {.name = QUEUE_ROOT, .weight = 1};
    struct queue_spec dflt = {.name = QUEUE_DEFAULT, .parent = QUEUE_ROOT, .weight = 1};
    if (!t->names || queue__ensure_width(t, 8))
        goto fail;
    t->root = node_new(t, &root, NULL);
    if (!t->root || nodes_insert(t, t->root)) {
        if (t->root && !queue_tree_find(t, QUEUE_ROOT))
            node_free(t->root);
        t->root = NULL;
        goto fail;
    }
    if (queue_tree_create(t, &dflt, NULL))
        goto fail;
    return t;
fail:
    queue_tree_free(t);
    return NULL;
}

static void free_entry_cb(void *ud, void *val)
{
    struct queue_entry *e = val;
    queue__gang_drop(e); /* the leaves' arrays go with the nodes */
    queue__entry_free(ud, e);
}

static void free_shapes_cb(void *ud, void *val)
{
    (void)ud;
    for (struct queue_shape *s = val, *next; s; s = next) {
        next = s->next;
        queue_resvec_close(&s->req);
        muster_free(s);
    }
}

void queue_tree_free(struct queue_tree *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nnodes; i++)
        queue__leaf_free_buckets(t, t->nodes[i]);
    queue_idmap_each(&t->entries, free_entry_cb, t);
    queue_idmap_close(&t->entries);
    queue__entry_blocks_free(t);
    for (size_t i = 0; i < t->nnodes; i++)
        node_free(t->nodes[i]);
    queue_idmap_close(&t->buckets);
    queue_idmap_each(&t->shapes, free_shapes_cb, NULL); /* those entries still held */
    queue_idmap_close(&t->shapes);
    muster_free(t->nodes);
    muster_free(t->fleet);
    muster_free(t->room);
    muster_free(t->skipped);
    muster_free(t->cblocked);
    muster_free(t->gleaves);
    queue_resnames_free(t->names);
    muster_free(t);
}

/* Parents before children, siblings by name. */
static int walk_from(const struct queue_node *q, int (*cb)(void *, const struct queue_node *),
                     void *ud)
{
    int rc = cb(ud, q);
    for (uint32_t i = 0; !rc && i < q->nkids; i++)
        rc = walk_from(q->kids[i], cb, ud);
    return rc;
}

int queue_tree_walk(const struct queue_tree *t, int (*cb)(void *ud, const struct queue_node *q),
                    void *ud)
{
    return walk_from(t->root, cb, ud);
}

int queue_node_drained(const struct queue_node *q)
{
    return q->spec.state == QUEUE_DRAINING && q->nkids == 0 && q->admitted == 0;
}

int queue_node_status(const struct queue_tree *t, const struct queue_node *q,
                      struct queue_status *st)
{
    memset(st, 0, sizeof(*st));
    uint32_t n = queue_resnames_count(t->names);
    for (uint32_t r = 0; r < n && r < t->rcap; r++) {
        int64_t d = queue_resvec_get(&q->spec.deserved, r);
        int64_t g = queue_resvec_get(&q->spec.guarantee, r);
        /* held is max(guarantee, usage) below q, with a lent guarantee counted as 0: what of
         * the guarantee it does not cover is what others may be admitted into. */
        if (queue_resvec_set(&st->allocated, r, q->use[r]) ||
            queue_resvec_set(&st->held, r, q->held[r]) ||
            queue_resvec_set(&st->borrowed, r, q->use[r] > d ? q->use[r] - d : 0) ||
            queue_resvec_set(&st->lent, r, g > q->held[r] ? g - q->held[r] : 0)) {
            queue_status_close(st);
            return MUSTER_ENOMEM;
        }
    }
    st->pending = q->pending;
    st->admitted = q->admitted;
    st->share = q->share;
    return 0;
}

void queue_status_close(struct queue_status *st)
{
    queue_resvec_close(&st->allocated);
    queue_resvec_close(&st->borrowed);
    queue_resvec_close(&st->lent);
    queue_resvec_close(&st->held);
}
