/* Placement of a gang read as a tree of groups (issue 20; the tree is karmada/groups.h, the
 * search dispatcher/composite.c): the dispatch cycle's place() hands a gang with a tree here, and
 * its shares become the pods of the leaves each cluster got. Groups are never split between
 * clusters, topology constraints hold, and a gang that does not fit says which level fails where
 * (docs/composite.md). */
#include "dispatcher/controller/ctl_int.h"

#include "cluster-adapters/karmada/workload_groups.h"
#include "dispatcher/composite.h"

struct level_ctx {
    struct ctl *c;
    const uint32_t *idx; /* the candidates' indexes in the fleet */
};

static const char *level_of(void *ud, uint32_t cluster, const char *level)
{
    const struct level_ctx *x = ud;
    return karmada_group_level_value(x->c->fleet.cl[x->idx[cluster]].obj, level);
}

uint32_t ctl__tree_shares(const struct karmada_group_tree *t, const int32_t *cluster, uint32_t ncl,
                          int64_t target, struct ctl_tree_share *out)
{
    uint32_t n = 0;
    int64_t taken = 0;
    for (uint32_t i = 0; i < t->n && taken < target; i++) {
        if (cluster[i] < 0 || (uint32_t)cluster[i] >= ncl || t->g[i].pods == 0)
            continue;
        if (taken + t->g[i].pods > target)
            return 0; /* a group would be cut to meet the count: not this placement */
        uint32_t j = 0;
        while (j < n && out[j].cluster != (uint32_t)cluster[i])
            j++;
        if (j == n)
            out[n++] = (struct ctl_tree_share){(uint32_t)cluster[i], 0};
        out[j].pods += t->g[i].pods;
        taken += t->g[i].pods;
    }
    return taken == target ? n : 0;
}

int ctl__place_tree(struct ctl *c, struct binding *b, const struct disp_cluster_cap *caps,
                    const uint32_t *idx, uint32_t n)
{
    struct level_ctx x = {c, idx};
    struct disp_composite_in in = {.tree = &b->tree,
                                   .clusters = caps,
                                   .nclusters = n,
                                   .level_value = level_of,
                                   .ud = &x,
                                   .names = c->names};
    struct disp_composite_result r;
    memset(&r, 0, sizeof r);
    int rc = n ? disp_composite_place(&in, &r) : 0;
    if (rc == MUSTER_ENOMEM) {
        disp_composite_result_close(&r);
        return rc;
    }
    if (rc || !n || !r.placed) {
        if (!n)
            ctl__set_reason(b, "NoClusterFit", "no allowed Ready cluster can hold a group of it");
        else
            ctl__set_reason(b, rc ? "Unschedulable" : "NoClusterFit", "%s", r.why);
        disp_composite_result_close(&r);
        return 0;
    }
    struct ctl_tree_share ts[256];
    /* Several shapes (a Volcano Job's tasks, a LeaderWorkerSet's leader and workers) go whole
     * to one cluster (the root is indivisible for them, workload_groups.c): one share of all
     * its replicas, every pod counted by its own shape when the cycle reserves it. */
    int64_t target = b->ncomp == 1 ? b->comp[0].replicas : 0;
    for (uint32_t i = 0; b->ncomp > 1 && i < b->ncomp; i++)
        target += b->comp[i].replicas;
    uint32_t got = ctl__tree_shares(&b->tree, r.cluster, n, target, ts);
    if (b->ncomp > 1 && got == 1)
        ts[0].pods = (uint64_t)b->replicas;
    else if (b->ncomp > 1)
        got = 0;
    disp_composite_result_close(&r);
    if (!got) {
        /* Fewer groups than the gang asks for fit (the search places what it can, at least the
         * tree's min_count; only a gang admitted at its minimum takes fewer, elastic.c). */
        ctl__set_reason(b, "NoClusterFit",
                        "only part of its %" PRId64 " pods can be placed in whole groups "
                        "over the allowed Ready clusters",
                        target);
        return 0;
    }
    if (ctl__shares_reserve(b, got))
        return MUSTER_ENOMEM;
    for (uint32_t i = 0; i < got; i++) {
        snprintf(b->shares[i].cluster, sizeof b->shares[i].cluster, "%s",
                 c->fleet.cl[idx[ts[i].cluster]].name);
        b->shares[i].replicas = (int32_t)ts[i].pods;
    }
    b->nshares = got;
    return 1;
}
