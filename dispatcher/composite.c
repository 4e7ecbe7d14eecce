/* Composite gang placement: a branch and bound over a tree's leaves (see composite.h). */
#include "dispatcher/composite.h"
#include "dispatcher/composite_int.h"

#include "queue/errors.h"
#include "queue/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int disp_composite_score_cmp(const struct disp_composite_score *a,
                             const struct disp_composite_score *b)
{
    if (a->pods != b->pods)
        return a->pods > b->pods ? -1 : 1;
    if (a->prefs_met != b->prefs_met)
        return a->prefs_met > b->prefs_met ? -1 : 1;
    if (a->clusters != b->clusters)
        return a->clusters < b->clusters ? -1 : 1;
    if (a->opened != b->opened)
        return a->opened < b->opened ? -1 : 1;
    return 0;
}

void disp_composite_result_close(struct disp_composite_result *r)
{
    muster_free(r->cluster);
    r->cluster = NULL;
    r->n = 0;
}

void disp__composite_why(struct disp_composite_result *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof(out->why), fmt, ap);
    va_end(ap);
}

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? COMP_UNBOUNDED : r;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? COMP_UNBOUNDED : r;
}

static uint64_t whole_nodes(const struct disp_cluster_cap *c)
{
    uint64_t w = 0;
    for (uint32_t i = 0; i < c->ngrades; i++)
        w += c->grades[i].nodes;
    return w;
}

/* ---- set-up ---- */

static int check_tree(const struct karmada_group_tree *t, struct disp_composite_result *out)
{
    if (!t || !t->g || t->n == 0 || t->n > KARMADA_GROUPS_MAX) {
        disp__composite_why(out, "the group tree is empty or has more than %d groups",
                            KARMADA_GROUPS_MAX);
        return MUSTER_EINVAL;
    }
    if (t->g[0].parent != -1) {
        disp__composite_why(out, "group %s is first but has a parent", t->g[0].name);
        return MUSTER_EINVAL;
    }
    for (uint32_t i = 1; i < t->n; i++)
        if (t->g[i].parent < 0 || (uint32_t)t->g[i].parent >= i) {
            disp__composite_why(out, "group %s: its parent must come before it", t->g[i].name);
            return MUSTER_EINVAL;
        }
    for (uint32_t i = 0; i < t->n; i++) {
        const struct karmada_group *g = &t->g[i];
        if (!memchr(g->name, 0, sizeof(g->name))) {
            disp__composite_why(out, "group %u: its name is not terminated", i);
            return MUSTER_EINVAL;
        }
        if (g->ntopo > KARMADA_GROUP_TOPO_MAX) {
            disp__composite_why(out, "group %s has more than %d topology constraints", g->name,
                                KARMADA_GROUP_TOPO_MAX);
            return MUSTER_EINVAL;
        }
        for (uint32_t j = 0; j < g->ntopo; j++)
            if ((g->topo[j].mode != KARMADA_TOPO_PACK && g->topo[j].mode != KARMADA_TOPO_SPREAD) ||
                !g->topo[j].level[0] || !memchr(g->topo[j].level, 0, sizeof(g->topo[j].level))) {
                disp__composite_why(
                    out, "group %s: topology constraint %u has no level or an unknown mode",
                    g->name, j);
                return MUSTER_EINVAL;
            }
    }
    return 0;
}

static uint32_t level_of(struct comp_search *s, const char *name)
{
    if (strcmp(name, "cluster") == 0)
        return COMP_LEVEL_CLUSTER;
    for (uint32_t l = 1; l < s->nlevels; l++)
        if (strcmp(s->levels[l], name) == 0)
            return l;
    if (s->nlevels >= COMP_NLEVELS)
        return UINT32_MAX;
    s->levels[s->nlevels] = name;
    return s->nlevels++;
}

/* Domain ids per level: clusters with equal values share one. */
static int intern_domains(struct comp_search *s)
{
    const struct disp_composite_in *in = s->in;
    for (uint32_t l = 0; l < s->nlevels; l++) {
        s->dom[l] = muster_calloc(s->ncl ? s->ncl : 1, sizeof(int32_t));
        s->dname[l] = muster_calloc(s->ncl ? s->ncl : 1, sizeof(char *));
        if (!s->dom[l] || !s->dname[l])
            return MUSTER_ENOMEM;
        for (uint32_t c = 0; c < s->ncl; c++) {
            if (l == COMP_LEVEL_CLUSTER) {
                s->dom[l][c] = (int32_t)c;
                s->dname[l][c] = in->clusters[c].name;
                continue;
            }
            const char *v = in->level_value ? in->level_value(in->ud, c, s->levels[l]) : NULL;
            int32_t id = -1;
            for (uint32_t k = 0; v && k < s->ndom[l] && id < 0; k++)
                if (strcmp(s->dname[l][k], v) == 0)
                    id = (int32_t)k;
            if (v && id < 0) {
                id = (int32_t)s->ndom[l];
                s->dname[l][s->ndom[l]++] = v;
            }
            s->dom[l][c] = id;
        }
        if (l == COMP_LEVEL_CLUSTER)
            s->ndom[l] = s->ncl;
    }
    return 0;
}

static int add_con(struct comp_search *s, uint32_t g, uint32_t level, enum karmada_topo_mode mode,
                   uint32_t k, int required)
{
    struct comp_con *c = &s->con[s->ncon++];
    memset(c, 0, sizeof(*c));
    c->g = g;
    c->level = level;
    c->mode = mode;
    c->k = k;
    c->required = required;
    c->dom = -1;
    if (mode == KARMADA_TOPO_SPREAD) {
        c->cnt = muster_calloc(s->ndom[level] ? s->ndom[level] : 1, sizeof(uint32_t));
        if (!c->cnt)
            return MUSTER_ENOMEM;
    }
    s->nprefs += !required;
    return 0;
}

static int copy_cluster(struct comp_cluster *dst, const struct disp_cluster_cap *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->cap.name = src->name;
    if (queue_resvec_copy(&dst->cap.free, &src->free))
        return MUSTER_ENOMEM;
    if (src->ngrades) {
        dst->cap.grades = muster_calloc(src->ngrades, sizeof(struct disp_grade));
        if (!dst->cap.grades)
            return MUSTER_ENOMEM;
        dst->cap.ngrades = src->ngrades;
        for (uint32_t i = 0; i < src->ngrades; i++) {
            dst->cap.grades[i].nodes = src->grades[i].nodes;
            if (queue_resvec_copy(&dst->cap.grades[i].min, &src->grades[i].min))
                return MUSTER_ENOMEM;
        }
    }
    if (disp_cluster_cap_copy_parts(&dst->cap, src))
        return MUSTER_ENOMEM;
    dst->whole = whole_nodes(&dst->cap);
    return 0;
}

static void close_cluster(struct comp_cluster *c)
{
    queue_resvec_close(&c->cap.free);
    for (uint32_t i = 0; c->cap.grades && i < c->cap.ngrades; i++)
        queue_resvec_close(&c->cap.grades[i].min);
    muster_free(c->cap.grades);
    disp_cluster_cap_close_parts(&c->cap);
}

static int same_cluster(const struct comp_search *s, uint32_t a, uint32_t b)
{
    const struct disp_cluster_cap *x = &s->cl[a].cap, *y = &s->cl[b].cap;
    if (queue_resvec_cmp(&x->free, &y->free) || x->ngrades != y->ngrades || x->npart != y->npart)
        return 0;
    for (uint32_t i = 0; i < x->ngrades; i++)
        if (x->grades[i].nodes != y->grades[i].nodes ||
            queue_resvec_cmp(&x->grades[i].min, &y->grades[i].min))
            return 0;
    for (uint32_t i = 0; i < x->npart; i++)
        if (queue_resvec_cmp(&x->part[i], &y->part[i]))
            return 0;
    for (uint32_t l = 1; l < s->nlevels; l++)
        if (s->dom[l][a] != s->dom[l][b])
            return 0;
    return 1;
}

static void part_room(struct comp_search *s, uint32_t c)
{
    const struct disp_cluster_cap *cap = &s->cl[c].cap;
    for (uint32_t r = 0; r < s->nres; r++) {
        int64_t sum = 0;
        for (uint32_t i = 0; i < cap->npart && sum != COMP_UNBOUNDED; i++) {
            int present = 0;
            for (uint32_t j = 0; j < cap->part[i].len && !present; j++)
                present = cap->part[i].items[j].id == s->res[r];
            int64_t v = queue_resvec_get(&cap->part[i], s->res[r]);
            sum = present ? sat_add(sum, v > 0 ? v : 0) : COMP_UNBOUNDED;
        }
        int64_t *at = &s->proom[(size_t)c * s->nres + r];
        if (*at == COMP_UNBOUNDED)
            s->pinf[r]--;
        else
            s->pfin[r] -= *at;
        *at = sum;
        if (sum == COMP_UNBOUNDED)
            s->pinf[r]++;
        else
            s->pfin[r] = sat_add(s->pfin[r], sum);
    }
}

static int64_t pod_need(const struct karmada_group *g, uint32_t id)
{
    int64_t v = queue_resvec_get(&g->pod, id);
    return v > 0 ? v : 0;
}

/* Whether leaf position d may use cluster c at all, whatever else is placed: every required
 * constraint on it or above it needs a value of its level there. */
int disp__composite_static_ok(const struct comp_search *s, uint32_t d, uint32_t c)
{
    for (uint32_t i = s->lcon_at[d]; i < s->lcon_at[d + 1]; i++) {
        const struct comp_con *k = &s->con[s->lcon[i]];
        if (k->required && s->dom[k->level][c] < 0)
            return 0;
    }
    return 1;
}

struct byfree {
    int64_t free;
    uint32_t c;
};

static int cmp_by_free(const void *a, const void *b)
{
    const struct byfree *x = a, *y = b;
    if (x->free != y->free)
        return x->free > y->free ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}

static int setup_shapes(struct comp_search *s);

static int setup(struct comp_search *s, struct disp_composite_result *out)
{
    const struct karmada_group_tree *t = s->in->tree;
    s->g = t->g;
    s->n = t->n;
    s->ncl = s->in->nclusters;
    s->budget = s->in->budget ? s->in->budget : DISP_COMPOSITE_BUDGET;
    uint32_t n = s->n, ncl = s->ncl;
    s->nch = muster_calloc(n, sizeof(uint32_t));
    s->need = muster_calloc(n, sizeof(uint32_t));
    s->und = muster_calloc(n, sizeof(uint32_t));
    s->pl = muster_calloc(n, sizeof(uint32_t));
    s->chd = muster_calloc(n, sizeof(uint32_t));
    s->leaf = muster_calloc(n, sizeof(uint32_t));
    if (!s->nch || !s->need || !s->und || !s->pl || !s->chd || !s->leaf)
        return MUSTER_ENOMEM;
    for (uint32_t i = 1; i < n; i++)
        s->nch[s->g[i].parent]++;
    for (uint32_t i = 0; i < n; i++) {
        const struct karmada_group *g = &s->g[i];
        if (s->nch[i] == 0) {
            if (g->pods == 0) {
                disp__composite_why(out, "group %s has no children and no pods", g->name);
                return MUSTER_EINVAL;
            }
            s->leaf[s->nl++] = i;
        } else if (g->pods) {
            disp__composite_why(out, "group %s has both children and pods of its own", g->name);
            return MUSTER_EINVAL;
        }
        s->need[i] = g->min_count ? g->min_count : 1;
    }
    /* undecided leaves per group */
    for (uint32_t d = 0; d < s->nl; d++)
        for (int32_t x = (int32_t)s->leaf[d]; x >= 0; x = s->g[x].parent)
            s->und[x]++;
    /* levels, then constraints (an indivisible inner group packs at "cluster") */
    s->nlevels = 1;
    s->levels[0] = "cluster";
    uint32_t maxcon = 0;
    for (uint32_t i = 0; i < n; i++) {
        maxcon += s->g[i].ntopo + 1;
        for (uint32_t j = 0; j < s->g[i].ntopo; j++)
            if (level_of(s, s->g[i].topo[j].level) == UINT32_MAX) {
                disp__composite_why(out, "the tree names more than %d topology levels",
                                    DISP_COMPOSITE_LEVELS_MAX);
                return MUSTER_EINVAL;
            }
    }
    int rc = intern_domains(s);
    if (rc)
        return rc;
    s->con = muster_calloc(maxcon, sizeof(struct comp_con));
    if (!s->con)
        return MUSTER_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const struct karmada_group *g = &s->g[i];
        if (g->indivisible && s->nch[i]) {
            rc = add_con(s, i, COMP_LEVEL_CLUSTER, KARMADA_TOPO_PACK, 0, 1);
            if (rc)
                return rc;
        }
        for (uint32_t j = 0; j < g->ntopo; j++) {
            const struct karmada_group_topo *tp = &g->topo[j];
            rc = add_con(s, i, level_of(s, tp->level), tp->mode,
                         tp->min_domains ? tp->min_domains : 1, tp->required != 0);
            if (rc)
                return rc;
        }
    }
    /* per leaf: the constraints on it and its ancestors (a group's are contiguous in con[],
     * added in group order) */
    uint32_t total = 0;
    uint32_t *first = muster_calloc(n + 1, sizeof(uint32_t));
    s->lcon_at = muster_calloc(s->nl + 1, sizeof(uint32_t));
    if (!first || !s->lcon_at) {
        muster_free(first);
        return MUSTER_ENOMEM;
    }
    for (uint32_t k = 0; k < s->ncon; k++)
        first[s->con[k].g + 1]++;
    for (uint32_t i = 0; i < n; i++)
        first[i + 1] += first[i];
    for (uint32_t d = 0; d < s->nl; d++)
        for (int32_t x = (int32_t)s->leaf[d]; x >= 0; x = s->g[x].parent)
            total += first[x + 1] - first[x];
    s->lcon = muster_calloc(total ? total : 1, sizeof(uint32_t));
    if (!s->lcon) {
        muster_free(first);
        return MUSTER_ENOMEM;
    }
    total = 0;
    for (uint32_t d = 0; d < s->nl; d++) {
        s->lcon_at[d] = total;
        for (int32_t x = (int32_t)s->leaf[d]; x >= 0; x = s->g[x].parent)
            for (uint32_t k = first[x]; k < first[x + 1]; k++)
                s->lcon[total++] = k;
    }
    s->lcon_at[s->nl] = total;
    muster_free(first);
    /* working clusters and their symmetry classes */
    s->cl = muster_calloc(ncl ? ncl : 1, sizeof(struct comp_cluster));
    if (!s->cl)
        return MUSTER_ENOMEM;
    for (uint32_t c = 0; c < ncl; c++) {
        if (copy_cluster(&s->cl[c], &s->in->clusters[c]))
            return MUSTER_ENOMEM;
        s->cl[c].cls = c;
        s->cl[c].clsnext = UINT32_MAX;
        for (uint32_t p = 0; p < c; p++)
            if (s->cl[p].cls == p && same_cluster(s, p, c)) {
                s->cl[c].cls = p;
                uint32_t last = p;
                while (s->cl[last].clsnext != UINT32_MAX)
                    last = s->cl[last].clsnext;
                s->cl[last].clsnext = c;
                break;
            }
        if (!s->cl[c].cap.ngrades)
            s->nodeless = 1;
    }
    /* the resources the bounds count */
    for (uint32_t d = 0; d < s->nl; d++) {
        const struct queue_resvec *p = &s->g[s->leaf[d]].pod;
        for (uint32_t i = 0; i < p->len; i++) {
            uint32_t r = 0;
            while (r < s->nres && s->res[r] != p->items[i].id)
                r++;
            if (r == s->nres && s->nres < COMP_RES_MAX && p->items[i].milli > 0)
                s->res[s->nres++] = p->items[i].id;
        }
    }
    uint32_t nr = s->nres ? s->nres : 1;
    s->asg = muster_calloc(s->nl, sizeof(int32_t));
    s->best_asg = muster_calloc(s->nl, sizeof(int32_t));
    s->fitany = muster_calloc(s->nl, sizeof(int));
    s->same_prev = muster_calloc(s->nl, sizeof(int));
    s->rem_pods = muster_calloc(s->nl + 1, sizeof(uint64_t));
    s->rem_dem = muster_calloc((size_t)(s->nl + 1) * nr, sizeof(int64_t));
    s->maxnode = muster_calloc(nr, sizeof(int64_t));
    s->freeinit = muster_calloc((size_t)(ncl ? ncl : 1) * nr, sizeof(int64_t));
    s->order = muster_calloc((size_t)(ncl ? ncl : 1) * nr, sizeof(uint32_t));
    s->proom = muster_calloc((size_t)(ncl ? ncl : 1) * nr, sizeof(int64_t));
    s->ustack = muster_calloc(ncl ? ncl : 1, sizeof(uint32_t));
    s->stamp = muster_calloc(ncl ? ncl : 1, sizeof(uint64_t));
    s->ustack_greedy = muster_calloc(s->nl, sizeof(uint32_t));
    s->u = muster_calloc(s->nl, sizeof(struct comp_undo));
    s->cand = muster_calloc((size_t)s->nl * (ncl ? ncl : 1), sizeof(struct comp_cand));
    if (!s->asg || !s->best_asg || !s->fitany || !s->same_prev || !s->rem_pods || !s->rem_dem ||
        !s->maxnode || !s->freeinit || !s->order || !s->proom || !s->ustack || !s->stamp ||
        !s->ustack_greedy || !s->u || !s->cand)
        return MUSTER_ENOMEM;
    uint32_t maxgrades = 0;
    for (uint32_t c = 0; c < ncl; c++)
        if (s->cl[c].cap.ngrades > maxgrades)
            maxgrades = s->cl[c].cap.ngrades;
    for (uint32_t d = 0; d < s->nl; d++) {
        s->u[d].nodes = muster_calloc(maxgrades ? maxgrades : 1, sizeof(uint64_t));
        if (!s->u[d].nodes)
            return MUSTER_ENOMEM;
    }
    for (uint32_t d = 0; d < s->nl; d++) {
        const struct karmada_group *lg = &s->g[s->leaf[d]];
        if (d > 0) {
            const struct karmada_group *pg = &s->g[s->leaf[d - 1]];
            s->same_prev[d] = pg->parent == lg->parent && pg->pods == lg->pods &&
                              !queue_resvec_cmp(&pg->pod, &lg->pod) && pg->ntopo == lg->ntopo &&
                              !memcmp(pg->topo, lg->topo, sizeof(pg->topo[0]) * lg->ntopo);
        }
        if (s->same_prev[d]) {
            s->fitany[d] = s->fitany[d - 1];
        } else {
            for (uint32_t c = 0; c < ncl && !s->fitany[d]; c++)
                s->fitany[d] = disp__composite_static_ok(s, d, c) &&
                               disp_cluster_fits(&s->cl[c].cap, &lg->pod) >= lg->pods;
        }
        s->asg[d] = DISP_COMPOSITE_NONE;
    }
    for (uint32_t d = s->nl; d-- > 0;) {
        const struct karmada_group *lg = &s->g[s->leaf[d]];
        s->rem_pods[d] = s->rem_pods[d + 1] + (s->fitany[d] ? lg->pods : 0);
        for (uint32_t r = 0; r < s->nres; r++)
            s->rem_dem[(size_t)d * nr + r] =
                sat_add(s->rem_dem[(size_t)(d + 1) * nr + r],
                        s->fitany[d] ? sat_mul(pod_need(lg, s->res[r]), lg->pods) : 0);
    }
    for (uint32_t r = 0; r < s->nres; r++) {
        int64_t most = 0;
        for (uint32_t c = 0; c < ncl; c++) {
            const struct disp_cluster_cap *cap = &s->cl[c].cap;
            s->freeinit[(size_t)c * nr + r] = queue_resvec_get(&cap->free, s->res[r]);
            for (uint32_t gi = 0; gi < cap->ngrades; gi++) {
                if (!cap->grades[gi].nodes)
                    continue;
                int present = 0;
                for (uint32_t j = 0; j < cap->grades[gi].min.len && !present; j++)
                    present = cap->grades[gi].min.items[j].id == s->res[r];
                int64_t v = queue_resvec_get(&cap->grades[gi].min, s->res[r]);
                if (!present)
                    most = COMP_UNBOUNDED;
                else if (most != COMP_UNBOUNDED && v > most)
                    most = v;
            }
        }
        s->maxnode[r] = most;
        struct byfree *bf = muster_calloc(ncl ? ncl : 1, sizeof(*bf));
        if (!bf)
            return MUSTER_ENOMEM;
        for (uint32_t c = 0; c < ncl; c++)
            bf[c] = (struct byfree){s->freeinit[(size_t)c * nr + r], c};
        qsort(bf, ncl, sizeof(*bf), cmp_by_free);
        for (uint32_t c = 0; c < ncl; c++)
            s->order[(size_t)r * ncl + c] = bf[c].c;
        muster_free(bf);
    }
    for (uint32_t c = 0; c < ncl; c++)
        part_room(s, c);
    return setup_shapes(s);
}

static void slots_update(struct comp_search *s, uint32_t c)
{
    for (uint32_t k = 0; k < s->nshapes; k++) {
        uint64_t f = disp_cluster_fits(&s->cl[c].cap, &s->shape[k]->pod);
        s->slots[(size_t)k * s->ncl + c] = f == UINT64_MAX ? UINT64_MAX : f / s->shape[k]->pods;
    }
}

struct byslots {
    uint64_t slots;
    uint32_t c;
};

static int cmp_by_slots(const void *a, const void *b)
{
    const struct byslots *x = a, *y = b;
    if (x->slots != y->slots)
        return x->slots > y->slots ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}

/* The leaf shapes, what each cluster holds of them, and how many of each are left from each
 * depth on: the room bound (room_bound) that cuts a branch whose minimum cannot fit. */
static int setup_shapes(struct comp_search *s)
{
    uint32_t nl = s->nl, ncl = s->ncl ? s->ncl : 1;
    s->shape_of = muster_calloc(nl, sizeof(uint32_t));
    s->rem_shape = muster_calloc((size_t)(nl + 1) * COMP_SHAPES_MAX, sizeof(uint32_t));
    s->rem_free_pods = muster_calloc(nl + 1, sizeof(uint64_t));
    s->rem_free_leaves = muster_calloc(nl + 1, sizeof(uint32_t));
    s->root_ok = muster_calloc(ncl, 1);
    if (!s->shape_of || !s->rem_shape || !s->rem_free_pods || !s->rem_free_leaves || !s->root_ok)
        return MUSTER_ENOMEM;
    for (uint32_t d = 0; d < nl; d++) {
        const struct karmada_group *lg = &s->g[s->leaf[d]];
        uint32_t k = 0;
        while (k < s->nshapes &&
               (s->shape[k]->pods != lg->pods || queue_resvec_cmp(&s->shape[k]->pod, &lg->pod)))
            k++;
        if (k == s->nshapes && k < COMP_SHAPES_MAX)
            s->shape[s->nshapes++] = lg;
        s->shape_of[d] = k < COMP_SHAPES_MAX ? k : COMP_SHAPES_MAX;
    }
    for (uint32_t d = nl; d-- > 0;) {
        memcpy(&s->rem_shape[(size_t)d * COMP_SHAPES_MAX],
               &s->rem_shape[(size_t)(d + 1) * COMP_SHAPES_MAX],
               COMP_SHAPES_MAX * sizeof(uint32_t));
        s->rem_free_pods[d] = s->rem_free_pods[d + 1];
        s->rem_free_leaves[d] = s->rem_free_leaves[d + 1];
        if (!s->fitany[d])
            continue;
        if (s->shape_of[d] < COMP_SHAPES_MAX) {
            s->rem_shape[(size_t)d * COMP_SHAPES_MAX + s->shape_of[d]]++;
        } else {
            s->rem_free_pods[d] += s->g[s->leaf[d]].pods;
            s->rem_free_leaves[d]++;
        }
    }
    size_t ns = (size_t)(s->nshapes ? s->nshapes : 1) * ncl;
    s->slots = muster_calloc(ns, sizeof(uint64_t));
    s->slots0 = muster_calloc(ns, sizeof(uint64_t));
    s->sorder = muster_calloc(ns, sizeof(uint32_t));
    s->srank = muster_calloc(ns, sizeof(uint32_t));
    s->run_end = muster_calloc(nl ? nl : 1, sizeof(uint32_t));
    struct byslots *bs = muster_calloc(ncl, sizeof(*bs));
    if (!s->slots || !s->slots0 || !s->sorder || !s->srank || !s->run_end || !bs) {
        muster_free(bs);
        return MUSTER_ENOMEM;
    }
    for (uint32_t c = 0; c < s->ncl; c++)
        slots_update(s, c);
    memcpy(s->slots0, s->slots, ns * sizeof(uint64_t));
    for (uint32_t k = 0; k < s->nshapes; k++) {
        for (uint32_t c = 0; c < s->ncl; c++)
            bs[c] = (struct byslots){s->slots0[(size_t)k * s->ncl + c], c};
        qsort(bs, s->ncl, sizeof(*bs), cmp_by_slots);
        for (uint32_t c = 0; c < s->ncl; c++) {
            s->sorder[(size_t)k * s->ncl + c] = bs[c].c;
            s->srank[(size_t)k * s->ncl + bs[c].c] = c;
        }
    }
    muster_free(bs);
    for (uint32_t d = nl; d-- > 0;)
        s->run_end[d] = d + 1 < nl && s->same_prev[d + 1] ? s->run_end[d + 1] : d;
    return 0;
}

static void teardown(struct comp_search *s)
{
    muster_free(s->shape_of);
    muster_free(s->rem_shape);
    muster_free(s->rem_free_pods);
    muster_free(s->rem_free_leaves);
    muster_free(s->root_ok);
    muster_free(s->slots);
    muster_free(s->slots0);
    muster_free(s->sorder);
    muster_free(s->srank);
    muster_free(s->run_end);
    muster_free(s->nch);
    muster_free(s->need);
    muster_free(s->und);
    muster_free(s->pl);
    muster_free(s->chd);
    muster_free(s->leaf);
    for (uint32_t i = 0; s->con && i < s->ncon; i++)
        muster_free(s->con[i].cnt);
    muster_free(s->con);
    muster_free(s->lcon);
    muster_free(s->lcon_at);
    for (uint32_t l = 0; l < COMP_NLEVELS; l++) {
        muster_free(s->dom[l]);
        muster_free((void *)s->dname[l]);
    }
    for (uint32_t c = 0; s->cl && c < s->ncl; c++)
        close_cluster(&s->cl[c]);
    muster_free(s->cl);
    for (uint32_t d = 0; s->u && d < s->nl; d++) {
        queue_resvec_close(&s->u[d].free);
        for (uint32_t i = 0; i < DISP_PARTIAL_MAX; i++)
            queue_resvec_close(&s->u[d].part[i]);
        muster_free(s->u[d].nodes);
    }
    muster_free(s->u);
    muster_free(s->asg);
    muster_free(s->best_asg);
    muster_free(s->fitany);
    muster_free(s->same_prev);
    muster_free(s->rem_pods);
    muster_free(s->rem_dem);
    muster_free(s->maxnode);
    muster_free(s->freeinit);
    muster_free(s->order);
    muster_free(s->proom);
    muster_free(s->ustack);
    muster_free(s->stamp);
    muster_free(s->ustack_greedy);
    muster_free(s->cand);
}

/* ---- the search ---- */

/* The symmetry order at depth d: clusters by what they held of the leaf's shape at the start,
 * most first, ties by index (identity for an untracked shape). Identical sibling leaves take
 * clusters in non-decreasing rank, and of identical unused clusters only the first in this
 * order is tried: both keep the lexicographically least of every set of equivalent placements,
 * so together they lose no best. Ordering by room makes the first ranks the ones the search
 * tries first, so the restriction rarely hides room it needs. The rank depth d may start at. */
static uint32_t sym_lowest(const struct comp_search *s, uint32_t d)
{
    if (!s->same_prev[d])
        return 0;
    int32_t prev = s->asg[d - 1];
    if (prev < 0)
        return s->ncl; /* the sibling before is not placed: neither is this one */
    uint32_t k = s->shape_of[d];
    return k < COMP_SHAPES_MAX ? s->srank[(size_t)k * s->ncl + (uint32_t)prev] : (uint32_t)prev;
}

/* A leaf decided (placed or not) or undone: the counts of undecided and placed leaves up the
 * tree, and of each group's dead children (all decided, none placed). */
static void tree_apply(struct comp_search *s, uint32_t li, int placed, int undo)
{
    for (int32_t x = (int32_t)li; x >= 0;) {
        int32_t p = s->g[x].parent;
        if (undo) {
            int was_placed = placed && s->pl[x] == 1;
            int was_dead = !placed && s->und[x] == 0 && s->pl[x] == 0;
            s->und[x]++;
            s->pl[x] -= placed ? 1 : 0;
            if (p == 0 && was_placed)
                s->chp_root--;
            if (p >= 0 && was_dead)
                s->chd[p]--;
        } else {
            s->und[x]--;
            s->pl[x] += placed ? 1 : 0;
            if (p == 0 && placed && s->pl[x] == 1)
                s->chp_root++;
            if (p >= 0 && !placed && s->und[x] == 0 && s->pl[x] == 0)
                s->chd[p]++;
        }
        x = p;
    }
}

/* After a decision at depth d: can every group above it still meet its min_count and its
 * required spreads? A group with a placed leaf must; the root must. */
static int still_possible(const struct comp_search *s, uint32_t d)
{
    for (int32_t x = s->g[s->leaf[d]].parent; x >= 0; x = s->g[x].parent)
        if ((s->pl[x] > 0 || x == 0) && s->nch[x] - s->chd[x] < s->need[x])
            return 0;
    for (uint32_t i = s->lcon_at[d]; i < s->lcon_at[d + 1]; i++) {
        const struct comp_con *k = &s->con[s->lcon[i]];
        if (k->required && k->mode == KARMADA_TOPO_SPREAD && s->pl[k->g] > 0 &&
            k->distinct + s->und[k->g] < k->k)
            return 0;
    }
    return 1;
}

static int allowed(const struct comp_search *s, uint32_t d, uint32_t c)
{
    for (uint32_t i = s->lcon_at[d]; i < s->lcon_at[d + 1]; i++) {
        const struct comp_con *k = &s->con[s->lcon[i]];
        int32_t dm = s->dom[k->level][c];
        if (!k->required)
            continue;
        if (dm < 0 || (k->mode == KARMADA_TOPO_PACK && k->n > 0 && k->dom != dm))
            return 0;
    }
    return 1;
}

static void con_apply(struct comp_search *s, uint32_t d, uint32_t c, int undo)
{
    for (uint32_t i = s->lcon_at[d]; i < s->lcon_at[d + 1]; i++) {
        struct comp_con *k = &s->con[s->lcon[i]];
        int32_t dm = s->dom[k->level][c];
        if (k->mode == KARMADA_TOPO_PACK) {
            if (!undo && k->n == 0)
                k->dom = dm;
            int bad = dm < 0 || dm != k->dom;
            if (undo) {
                k->n--;
                if (bad && --k->bad == 0 && !k->required)
                    s->packs_broken--;
                if (k->n == 0)
                    k->dom = -1;
            } else {
                k->n++;
                if (bad && k->bad++ == 0 && !k->required)
                    s->packs_broken++;
            }
        } else if (dm >= 0) {
            if (undo)
                k->distinct -= --k->cnt[dm] == 0;
            else
                k->distinct += k->cnt[dm]++ == 0;
        }
    }
}

int disp__composite_place_leaf(struct comp_search *s, uint32_t d, uint32_t c)
{
    struct comp_cluster *cl = &s->cl[c];
    struct comp_undo *u = &s->u[d];
    const struct karmada_group *lg = &s->g[s->leaf[d]];
    if (queue_resvec_copy(&u->free, &cl->cap.free)) {
        s->err = MUSTER_ENOMEM;
        return 0;
    }
    for (uint32_t i = 0; i < cl->cap.npart; i++)
        if (queue_resvec_copy(&u->part[i], &cl->cap.part[i])) {
            s->err = MUSTER_ENOMEM;
            return 0;
        }
    u->npart = cl->cap.npart;
    for (uint32_t i = 0; i < cl->cap.ngrades; i++)
        u->nodes[i] = cl->cap.grades[i].nodes;
    u->whole = cl->whole;
    int rc = disp_cluster_reserve(&cl->cap, &lg->pod, lg->pods);
    if (rc) {
        if (rc != MUSTER_ERANGE)
            s->err = rc;
        return 0;
    }
    cl->whole = whole_nodes(&cl->cap);
    s->opened += u->whole - cl->whole;
    if (cl->leaves++ == 0)
        s->ustack[s->nused++] = c;
    s->placed_pods += lg->pods;
    part_room(s, c);
    slots_update(s, c);
    con_apply(s, d, c, 0);
    tree_apply(s, s->leaf[d], 1, 0);
    s->asg[d] = (int32_t)c;
    return 1;
}

void disp__composite_unplace_leaf(struct comp_search *s, uint32_t d, uint32_t c)
{
    struct comp_cluster *cl = &s->cl[c];
    struct comp_undo *u = &s->u[d];
    const struct karmada_group *lg = &s->g[s->leaf[d]];
    tree_apply(s, s->leaf[d], 1, 1);
    con_apply(s, d, c, 1);
    s->placed_pods -= lg->pods;
    if (--cl->leaves == 0)
        s->nused--;
    s->opened -= u->whole - cl->whole;
    /* the saved state goes back by swapping, so undoing allocates nothing */
    struct queue_resvec tmp = cl->cap.free;
    cl->cap.free = u->free;
    u->free = tmp;
    for (uint32_t i = 0; i < DISP_PARTIAL_MAX; i++) {
        tmp = cl->cap.part[i];
        cl->cap.part[i] = u->part[i];
        u->part[i] = tmp;
    }
    cl->cap.npart = u->npart;
    /* what lies past npart must hold nothing: reserve writes there without closing */
    for (uint32_t i = u->npart; i < DISP_PARTIAL_MAX; i++)
        queue_resvec_close(&cl->cap.part[i]);
    for (uint32_t i = 0; i < cl->cap.ngrades; i++)
        cl->cap.grades[i].nodes = u->nodes[i];
    cl->whole = u->whole;
    part_room(s, c);
    slots_update(s, c);
    s->asg[d] = DISP_COMPOSITE_NONE;
}

static void score_now(const struct comp_search *s, struct disp_composite_score *sc)
{
    sc->pods = s->placed_pods;
    sc->clusters = s->nused;
    sc->opened = s->opened;
    sc->prefs = s->nprefs;
    sc->prefs_met = 0;
    for (uint32_t i = 0; i < s->ncon; i++) {
        const struct comp_con *k = &s->con[i];
        if (k->required)
            continue;
        if (s->pl[k->g] == 0)
            sc->prefs_met++;
        else if (k->mode == KARMADA_TOPO_PACK)
            sc->prefs_met += k->bad == 0;
        else
            sc->prefs_met += k->distinct >= k->k;
    }
}

/* Upper bounds on the pods and the leaves still placeable from depth d: of each shape, no
 * more than are left nor than the clusters the root's required constraints still allow hold
 * of it node by node (each shape counted as if alone). Fills root_ok. */
static void room_bound(struct comp_search *s, uint32_t d, uint64_t *pods, uint64_t *leaves)
{
    /* root_ok changes only when a required pack of the root takes or leaves its domain */
    int32_t key[KARMADA_GROUP_TOPO_MAX + 1];
    uint32_t nk = 0;
    for (uint32_t i = s->lcon_at[0]; i < s->lcon_at[1] && nk <= KARMADA_GROUP_TOPO_MAX; i++) {
        const struct comp_con *k = &s->con[s->lcon[i]];
        if (k->g == 0 && k->required && k->mode == KARMADA_TOPO_PACK)
            key[nk++] = k->n > 0 ? k->dom : -1;
    }
    int same = s->root_valid;
    for (uint32_t i = 0; i < nk && same; i++)
        same = key[i] == s->root_key[i];
    for (uint32_t c = 0; c < s->ncl && !same; c++) {
        uint8_t ok = 1;
        for (uint32_t i = s->lcon_at[0]; i < s->lcon_at[1] && ok; i++) {
            const struct comp_con *k = &s->con[s->lcon[i]];
            if (k->g != 0 || !k->required)
                continue;
            int32_t dm = s->dom[k->level][c];
            ok = dm >= 0 && !(k->mode == KARMADA_TOPO_PACK && k->n > 0 && k->dom != dm);
        }
        s->root_ok[c] = ok;
    }
    memcpy(s->root_key, key, nk * sizeof(key[0]));
    s->root_valid = 1;
    *pods = s->rem_free_pods[d];
    *leaves = s->rem_free_leaves[d];
    /* the run of identical siblings d is in may only go on from its last leaf's rank */
    uint32_t rk = s->shape_of[d], from = sym_lowest(s, d);
    uint64_t run = s->fitany[d] && rk < COMP_SHAPES_MAX ? s->run_end[d] - d + 1 : 0;
    for (uint32_t k = 0; k < s->nshapes; k++) {
        uint64_t left = s->rem_shape[(size_t)d * COMP_SHAPES_MAX + k], room = 0;
        if (!left)
            continue;
        const uint64_t *sl = &s->slots[(size_t)k * s->ncl];
        for (uint32_t c = 0; c < s->ncl && room < left; c++)
            if (s->root_ok[c])
                room = sl[c] > left ? left : room + sl[c];
        uint64_t m = room < left ? room : left;
        if (k == rk && run && from > 0) {
            uint64_t rroom = 0;
            for (uint32_t i = from; i < s->ncl && rroom < run; i++) {
                uint32_t c = s->sorder[(size_t)k * s->ncl + i];
                if (s->root_ok[c])
                    rroom = sl[c] > run ? run : rroom + sl[c];
            }
            uint64_t alt = (rroom < run ? rroom : run) + (left - run);
            m = alt < m ? alt : m;
        }
        *pods += m * s->shape[k]->pods;
        *leaves += m;
    }
}

/* Fewest clusters the remaining leaves of each shape fit in, node by node: the used clusters'
 * room, then unused ones the root allows, roomiest first (root_ok as room_bound left it). */
static uint32_t clusters_lb_shapes(const struct comp_search *s, uint32_t d)
{
    uint32_t lb = s->nused;
    for (uint32_t k = 0; k < s->nshapes; k++) {
        uint64_t left = s->rem_shape[(size_t)d * COMP_SHAPES_MAX + k];
        const uint64_t *sl = &s->slots[(size_t)k * s->ncl];
        for (uint32_t i = 0; i < s->nused && left; i++) {
            uint32_t c = s->ustack[i];
            if (s->root_ok[c])
                left = sl[c] >= left ? 0 : left - sl[c];
        }
        uint32_t more = 0;
        for (uint32_t i = 0; i < s->ncl && left; i++) {
            uint32_t c = s->sorder[(size_t)k * s->ncl + i];
            if (s->cl[c].leaves || !s->root_ok[c])
                continue;
            if (s->slots0[(size_t)k * s->ncl + c] == 0)
                break;
            left = s->slots0[(size_t)k * s->ncl + c] >= left
                       ? 0
                       : left - s->slots0[(size_t)k * s->ncl + c];
            more++;
        }
        if (left)
            return UINT32_MAX;
        if (s->nused + more > lb)
            lb = s->nused + more;
    }
    return lb;
}

/* Fewest clusters the remaining demand can still be placed in, all of it: the used ones' free
 * room, then unused clusters roomiest first, resource by resource (the summary bound). */
static uint32_t clusters_lb(const struct comp_search *s, uint32_t d)
{
    uint32_t lb = s->nused, nr = s->nres;
    for (uint32_t r = 0; r < nr; r++) {
        int64_t need = s->rem_dem[(size_t)d * nr + r];
        if (need == COMP_UNBOUNDED)
            continue;
        for (uint32_t i = 0; i < s->nused && need > 0; i++) {
            int64_t f = queue_resvec_get(&s->cl[s->ustack[i]].cap.free, s->res[r]);
            need -= f > 0 ? f : 0;
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < s->ncl && need > 0; i++) {
            uint32_t c = s->order[(size_t)r * s->ncl + i];
            if (s->cl[c].leaves)
                continue;
            int64_t f = s->freeinit[(size_t)c * nr + r];
            if (f <= 0)
                break;
            need -= f;
            k++;
        }
        if (need > 0)
            return UINT32_MAX; /* the whole fleet does not hold it */
        if (s->nused + k > lb)
            lb = s->nused + k;
    }
    return lb;
}

/* Whole nodes the remaining demand opens at least: what part-taken room cannot hold, in the
 * largest whole node there is. */
static uint64_t opened_lb(const struct comp_search *s, uint32_t d)
{
    if (s->nodeless)
        return 0;
    uint64_t lb = 0;
    uint32_t nr = s->nres;
    for (uint32_t r = 0; r < nr; r++) {
        int64_t need = s->rem_dem[(size_t)d * nr + r], room = s->pfin[r];
        if (need == COMP_UNBOUNDED || s->maxnode[r] == COMP_UNBOUNDED || s->maxnode[r] <= 0 ||
            s->pinf[r])
            continue;
        if (room == COMP_UNBOUNDED || need <= room)
            continue;
        uint64_t k = (uint64_t)((need - room + s->maxnode[r] - 1) / s->maxnode[r]);
        if (k > lb)
            lb = k;
    }
    return lb;
}

/* 1 when no completion of the current partial placement (with `extra` more clusters) can
 * beat the best found. */
static int cut(const struct comp_search *s, uint32_t d, int extra, int full, uint64_t rest_pods)
{
    if (!s->have)
        return 0;
    uint64_t ubp = s->placed_pods + rest_pods;
    if (ubp != s->best.pods)
        return ubp < s->best.pods;
    uint32_t ubpref = s->nprefs - s->packs_broken;
    if (ubpref != s->best.prefs_met)
        return ubpref < s->best.prefs_met;
    /* When every leaf still undecided that fits somewhere must be placed to tie, the remaining
     * demand is known, and so are bounds on the clusters and nodes it needs. */
    full = full && s->placed_pods + s->rem_pods[d] == s->best.pods;
    uint32_t lbc = s->nused + (uint32_t)extra;
    if (full) {
        lbc = clusters_lb(s, d);
        uint32_t lbs = lbc == UINT32_MAX ? lbc : clusters_lb_shapes(s, d);
        if (lbs == UINT32_MAX)
            return 1;
        lbc = lbs > lbc ? lbs : lbc;
    }
    if (lbc != s->best.clusters)
        return lbc > s->best.clusters;
    uint64_t lbo = s->opened + (full ? opened_lb(s, d) : 0);
    return lbo >= s->best.opened;
}

/* Preferred packs first in the order clusters are tried, since preferences rank above the
 * cluster count: minus the preferred packs a cluster would break. (Sending a leaf to a new
 * domain for a spread early costs clusters in the first placements found; the search finds the
 * spread without the hint.) */
static int pref_gain(const struct comp_search *s, uint32_t d, uint32_t c)
{
    int gain = 0;
    for (uint32_t i = s->lcon_at[d]; i < s->lcon_at[d + 1]; i++) {
        const struct comp_con *k = &s->con[s->lcon[i]];
        int32_t dm = s->dom[k->level][c];
        if (k->mode == KARMADA_TOPO_PACK && !k->required)
            gain -= dm < 0 || (k->n > 0 && dm != k->dom);
    }
    return gain;
}

static int cmp_cand(const void *a, const void *b)
{
    const struct comp_cand *x = a, *y = b;
    if (x->gain != y->gain)
        return x->gain > y->gain ? -1 : 1;
    if (x->used != y->used)
        return x->used ? -1 : 1;
    if (x->fit != y->fit)
        return (x->used ? x->fit < y->fit : x->fit > y->fit) ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}

static void solution(struct comp_search *s)
{
    if (s->pl[0] == 0)
        return;
    struct disp_composite_score sc;
    score_now(s, &sc);
    if (s->have && disp_composite_score_cmp(&sc, &s->best) >= 0)
        return;
    s->best = sc;
    s->have = 1;
    memcpy(s->best_asg, s->asg, s->nl * sizeof(int32_t));
}

static void dfs(struct comp_search *s, uint32_t d)
{
    if (s->err || s->stopped)
        return;
    if (d == s->nl) {
        solution(s);
        return;
    }
    if (s->steps >= s->budget) {
        s->stopped = 1;
        return;
    }
    s->steps++;
    uint64_t rest_pods, rest_leaves;
    room_bound(s, d, &rest_pods, &rest_leaves);
    if (s->nch[0] && s->chp_root < s->need[0] && rest_leaves < s->need[0] - s->chp_root)
        return; /* the root's minimum no longer fits */
    if (cut(s, d, 0, 1, rest_pods))
        return;
    const struct karmada_group *lg = &s->g[s->leaf[d]];
    uint32_t shape = s->shape_of[d];
    uint32_t lowest = sym_lowest(s, d);
    struct comp_cand *cand = &s->cand[(size_t)d * s->ncl];
    uint32_t nc = 0;
    int new_ok = !cut(s, d, 1, 0, rest_pods);
    for (uint32_t i = lowest; s->fitany[d] && i < s->ncl; i++) {
        uint32_t c = shape < COMP_SHAPES_MAX ? s->sorder[(size_t)shape * s->ncl + i] : i;
        int used = s->cl[c].leaves > 0;
        if (!used && !new_ok)
            continue;
        if (!used) { /* of identical unused clusters, only the first */
            uint32_t rep = s->cl[c].cls;
            if (s->stamp[rep] == s->steps)
                continue;
            s->stamp[rep] = s->steps;
        }
        if (!allowed(s, d, c))
            continue;
        /* in leaves of this shape, as the room bound keeps them */
        uint64_t f = shape < COMP_SHAPES_MAX
                         ? s->slots[(size_t)shape * s->ncl + c]
                         : disp_cluster_fits(&s->cl[c].cap, &lg->pod) / lg->pods;
        if (f == 0)
            continue;
        cand[nc++] = (struct comp_cand){c, f, used, pref_gain(s, d, c)};
    }
    qsort(cand, nc, sizeof(*cand), cmp_cand);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t c = cand[i].c;
        if (!cand[i].used && cut(s, d, 1, 0, rest_pods))
            break; /* the best found since may have closed the door to another cluster */
        if (!disp__composite_place_leaf(s, d, c)) {
            if (s->err)
                return;
            continue;
        }
        if (still_possible(s, d))
            dfs(s, d + 1);
        disp__composite_unplace_leaf(s, d, c);
        if (s->err || s->stopped)
            return;
    }
    tree_apply(s, s->leaf[d], 0, 0);
    if (still_possible(s, d))
        dfs(s, d + 1);
    tree_apply(s, s->leaf[d], 0, 1);
}

int disp_composite_place(const struct disp_composite_in *in, struct disp_composite_result *out)
{
    memset(out, 0, sizeof(*out));
    int rc = check_tree(in->tree, out);
    if (rc)
        return rc;
    if (in->nclusters > DISP_COMPOSITE_CLUSTERS_MAX || (in->nclusters && !in->clusters)) {
        disp__composite_why(out, "more than %d clusters", DISP_COMPOSITE_CLUSTERS_MAX);
        return MUSTER_EINVAL;
    }
    out->cluster = muster_malloc(in->tree->n * sizeof(int32_t));
    if (!out->cluster)
        return MUSTER_ENOMEM;
    out->n = in->tree->n;
    for (uint32_t i = 0; i < out->n; i++)
        out->cluster[i] = DISP_COMPOSITE_NONE;
    struct comp_search s;
    memset(&s, 0, sizeof(s));
    s.in = in;
    rc = setup(&s, out);
    if (!rc) {
        dfs(&s, 0);
        rc = s.err;
    }
    if (!rc) {
        out->steps = s.steps;
        out->complete = !s.stopped;
        if (s.have) {
            out->placed = 1;
            out->score = s.best;
            for (uint32_t d = 0; d < s.nl; d++)
                out->cluster[s.leaf[d]] = s.best_asg[d];
        } else {
            rc = disp__composite_explain(&s, out);
        }
    }
    teardown(&s);
    if (rc == MUSTER_ENOMEM) {
        out->placed = 0;
        for (uint32_t i = 0; i < out->n; i++)
            out->cluster[i] = DISP_COMPOSITE_NONE;
    }
    return rc;
}

/* A cluster's room before disp_composite_reserve touched it. */
struct comp_saved {
    struct disp_cluster_cap cap; /* free and parts; grades' nodes in nodes */
    uint64_t *nodes;
    int taken; /* a leaf went here: saved is being or was filled */
    int saved; /* filled: what to put back */
};

static void saved_close(struct comp_saved *sv, uint32_t n)
{
    for (uint32_t c = 0; sv && c < n; c++) {
        queue_resvec_close(&sv[c].cap.free);
        disp_cluster_cap_close_parts(&sv[c].cap);
        muster_free(sv[c].nodes);
    }
    muster_free(sv);
}

int disp_composite_reserve(const struct karmada_group_tree *t,
                           const struct disp_composite_result *r, struct disp_cluster_cap *clusters,
                           uint32_t n)
{
    if (!t || !r || r->n != t->n || (n && !clusters))
        return MUSTER_EINVAL;
    if (!r->placed)
        return 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (r->cluster[i] >= (int32_t)n || (r->cluster[i] >= 0 && !t->g[i].pods))
            return MUSTER_EINVAL;
    struct comp_saved *sv = muster_calloc(n ? n : 1, sizeof(*sv));
    if (!sv)
        return MUSTER_ENOMEM;
    int rc = 0;
    for (uint32_t i = 0; i < t->n && !rc; i++) {
        int32_t c = r->cluster[i];
        if (c < 0)
            continue;
        struct comp_saved *v = &sv[c];
        if (!v->taken) { /* first leaf here: keep what to put back */
            v->taken = 1;
            v->nodes =
                muster_calloc(clusters[c].ngrades ? clusters[c].ngrades : 1, sizeof(uint64_t));
            if (!v->nodes || queue_resvec_copy(&v->cap.free, &clusters[c].free) ||
                disp_cluster_cap_copy_parts(&v->cap, &clusters[c])) {
                rc = MUSTER_ENOMEM;
                break;
            }
            for (uint32_t g = 0; g < clusters[c].ngrades; g++)
                v->nodes[g] = clusters[c].grades[g].nodes;
            v->saved = 1;
        }
        rc = disp_cluster_reserve(&clusters[c], &t->g[i].pod, t->g[i].pods);
    }
    for (uint32_t c = 0; rc && c < n; c++) {
        if (!sv[c].saved)
            continue;
        /* put back: swapped in, so it cannot fail for memory */
        struct queue_resvec tmp = clusters[c].free;
        clusters[c].free = sv[c].cap.free;
        sv[c].cap.free = tmp;
        disp_cluster_cap_close_parts(&clusters[c]);
        memcpy(clusters[c].part, sv[c].cap.part, sizeof(clusters[c].part));
        clusters[c].npart = sv[c].cap.npart;
        memset(sv[c].cap.part, 0, sizeof(sv[c].cap.part));
        sv[c].cap.npart = 0;
        for (uint32_t g = 0; g < clusters[c].ngrades; g++)
            clusters[c].grades[g].nodes = sv[c].nodes[g];
    }
    saved_close(sv, n);
    return rc;
}
