/* A naive reference for dispatcher/composite.c, shared by its unit test and the benchmark: every
 * assignment of leaves to clusters (or to none) is tried, each checked against the definition of
 * a valid placement in composite.h and scored, and the best score kept. Slow and obviously
 * right: it shares no code with composite.c; the capacity model (disp_cluster_reserve, leaves in
 * tree order) is the one both are defined over. */
#ifndef MUSTER_TESTS_DISPATCHER_COMPOSITE_MODEL_H
#define MUSTER_TESTS_DISPATCHER_COMPOSITE_MODEL_H

#include "dispatcher/composite.h"

#include <stdlib.h>
#include <string.h>

#define CM_CLUSTERS_MAX 8
#define CM_GROUPS_MAX 32

static inline int cm_under(const struct karmada_group_tree *t, uint32_t x, uint32_t g)
{
    int32_t y = (int32_t)x;
    while (y >= 0 && y != (int32_t)g)
        y = t->g[y].parent;
    return y >= 0;
}

static inline int cm_is_leaf(const struct karmada_group_tree *t, uint32_t g)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->g[i].parent == (int32_t)g)
            return 0;
    return 1;
}

/* The cluster's value for a level ("cluster": its own name), or NULL. */
static inline const char *cm_value(const struct disp_composite_in *in, uint32_t c,
                                   const char *level)
{
    if (strcmp(level, "cluster") == 0)
        return in->clusters[c].name;
    return in->level_value ? in->level_value(in->ud, c, level) : NULL;
}

/* Checks asg (a cluster or -1 per group index; inner groups ignored) against composite.h's
 * definition; 1 and *sc when valid. */
static inline int cm_valid(const struct disp_composite_in *in, const int32_t *asg,
                           struct disp_composite_score *sc)
{
    const struct karmada_group_tree *t = in->tree;
    memset(sc, 0, sizeof(*sc));
    /* capacity, node by node, leaves in tree order */
    struct disp_cluster_cap cap[CM_CLUSTERS_MAX];
    struct disp_grade grades[CM_CLUSTERS_MAX][8];
    int ok = 1;
    uint64_t before = 0, after = 0;
    for (uint32_t c = 0; c < in->nclusters; c++) {
        memset(&cap[c], 0, sizeof(cap[c]));
        cap[c].name = in->clusters[c].name;
        queue_resvec_copy(&cap[c].free, &in->clusters[c].free);
        cap[c].grades = grades[c];
        cap[c].ngrades = in->clusters[c].ngrades;
        for (uint32_t g = 0; g < cap[c].ngrades; g++) {
            grades[c][g].nodes = in->clusters[c].grades[g].nodes;
            before += grades[c][g].nodes;
            memset(&grades[c][g].min, 0, sizeof(grades[c][g].min));
            queue_resvec_copy(&grades[c][g].min, &in->clusters[c].grades[g].min);
        }
        disp_cluster_cap_copy_parts(&cap[c], &in->clusters[c]);
    }
    for (uint32_t i = 0; i < t->n && ok; i++)
        if (cm_is_leaf(t, i) && asg[i] >= 0) {
            ok = disp_cluster_reserve(&cap[asg[i]], &t->g[i].pod, t->g[i].pods) == 0;
            sc->pods += t->g[i].pods;
        }
    for (uint32_t c = 0; c < in->nclusters; c++) {
        for (uint32_t g = 0; g < cap[c].ngrades; g++) {
            after += grades[c][g].nodes;
            queue_resvec_close(&grades[c][g].min);
        }
        queue_resvec_close(&cap[c].free);
        disp_cluster_cap_close_parts(&cap[c]);
    }
    sc->opened = before - after;
    if (!ok)
        return 0;
    int placed[CM_GROUPS_MAX] = {0};
    for (uint32_t g = 0; g < t->n; g++)
        for (uint32_t x = 0; x < t->n; x++)
            if (cm_is_leaf(t, x) && asg[x] >= 0 && cm_under(t, x, g))
                placed[g] = 1;
    if (!placed[0])
        return 0;
    for (uint32_t c = 0; c < in->nclusters; c++)
        for (uint32_t x = 0; x < t->n; x++)
            if (cm_is_leaf(t, x) && asg[x] == (int32_t)c) {
                sc->clusters++;
                break;
            }
    for (uint32_t g = 0; g < t->n; g++) {
        const struct karmada_group *gr = &t->g[g];
        sc->prefs += gr->ntopo;
        for (uint32_t j = 0; j < gr->ntopo; j++)
            sc->prefs -= gr->topo[j].required != 0;
        if (!placed[g]) {
            for (uint32_t j = 0; j < gr->ntopo; j++)
                sc->prefs_met += !gr->topo[j].required;
            continue;
        }
        if (!cm_is_leaf(t, g)) {
            uint32_t kids = 0, need = gr->min_count ? gr->min_count : 1;
            for (uint32_t x = 0; x < t->n; x++)
                kids += t->g[x].parent == (int32_t)g && placed[x];
            if (kids < need)
                return 0;
            int32_t one = -1;
            for (uint32_t x = 0; x < t->n && gr->indivisible; x++)
                if (cm_is_leaf(t, x) && asg[x] >= 0 && cm_under(t, x, g)) {
                    if (one >= 0 && one != asg[x])
                        return 0;
                    one = asg[x];
                }
        }
        for (uint32_t j = 0; j < gr->ntopo; j++) {
            const struct karmada_group_topo *tp = &gr->topo[j];
            const char *vals[CM_GROUPS_MAX];
            uint32_t nv = 0, distinct = 0;
            int unvalued = 0;
            for (uint32_t x = 0; x < t->n; x++)
                if (cm_is_leaf(t, x) && asg[x] >= 0 && cm_under(t, x, g)) {
                    const char *v = cm_value(in, (uint32_t)asg[x], tp->level);
                    if (!v) {
                        unvalued = 1;
                        continue;
                    }
                    int seen = 0;
                    for (uint32_t k = 0; k < nv && !seen; k++)
                        seen = strcmp(vals[k], v) == 0;
                    if (!seen)
                        distinct++;
                    vals[nv++] = v;
                }
            uint32_t k = tp->min_domains ? tp->min_domains : 1;
            int met = tp->mode == KARMADA_TOPO_PACK ? !unvalued && distinct == 1 : distinct >= k;
            if (tp->required && (!met || unvalued))
                return 0;
            sc->prefs_met += !tp->required && met;
        }
    }
    return 1;
}

/* The objective of composite.h, written again: < 0 when a is better. */
static inline int cm_cmp(const struct disp_composite_score *a, const struct disp_composite_score *b)
{
    if (a->pods != b->pods)
        return a->pods > b->pods ? -1 : 1;
    if (a->prefs_met != b->prefs_met)
        return a->prefs_met > b->prefs_met ? -1 : 1;
    if (a->clusters != b->clusters)
        return a->clusters < b->clusters ? -1 : 1;
    return a->opened < b->opened ? -1 : a->opened > b->opened;
}

/* Every assignment: 1 and the best score in *best (its assignment in best_asg, per group
 * index) when one is valid. */
static inline int cm_solve(const struct disp_composite_in *in, struct disp_composite_score *best,
                           int32_t *best_asg)
{
    const struct karmada_group_tree *t = in->tree;
    uint32_t leaves[CM_GROUPS_MAX], nl = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (cm_is_leaf(t, i))
            leaves[nl++] = i;
    int32_t asg[CM_GROUPS_MAX];
    uint32_t digit[CM_GROUPS_MAX] = {0};
    int found = 0;
    for (;;) {
        for (uint32_t i = 0; i < t->n; i++)
            asg[i] = -1;
        for (uint32_t k = 0; k < nl; k++)
            asg[leaves[k]] = digit[k] == in->nclusters ? -1 : (int32_t)digit[k];
        struct disp_composite_score sc;
        if (cm_valid(in, asg, &sc) && (!found || cm_cmp(&sc, best) < 0)) {
            *best = sc;
            memcpy(best_asg, asg, t->n * sizeof(*asg));
            found = 1;
        }
        uint32_t k = 0;
        while (k < nl && ++digit[k] > in->nclusters)
            digit[k++] = 0;
        if (k == nl)
            break;
    }
    return found;
}

#endif
