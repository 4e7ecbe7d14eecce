/* Composite gang placement (issue 20, KEP-6012): where each group of a gang's tree goes, over
 * one snapshot of the allowed Ready clusters, split only at group boundaries. Pure: no I/O, no
 * clock; the dispatch cycle builds the snapshot (placement.h) and reads the tree
 * (cluster-adapters/karmada/groups.h).
 *
 * What a placement is. Every leaf of the tree (a pod set) goes whole to one cluster, or is not
 * placed. It is valid when:
 *   - capacity: reserving each placed leaf's pods (disp_cluster_reserve, node by node) in its
 *     cluster, leaves in tree order, never fails, so no two groups count the same node's room;
 *   - min_count: a group is placed when one of its leaves is; every placed inner group has at
 *     least max(min_count, 1) placed children, and the root is placed (all or nothing);
 *   - an indivisible inner group's placed leaves are all in one cluster (every leaf is);
 *   - every required constraint of a placed group is met. PACK at a level: all its placed
 *     leaves in clusters with one value of the level. SPREAD at a level over k: its placed
 *     leaves' clusters have at least k distinct values of the level. A required constraint
 *     never uses a cluster without a value for its level. The level "cluster" is the cluster
 *     itself. A constraint on a group that is not placed holds trivially.
 * A leaf always goes to one cluster, whatever its indivisible flag says: a pod set is one
 * member-side gang object. A workload to be cut is cut into leaves by its reader (group-size).
 *
 * Which valid placement: the best by this objective, compared in order (docs/composite.md):
 *   1. the most pods placed (the min_count is the floor; every child is wanted);
 *   2. the most preferred constraints met, counted over all groups (one not placed counts as
 *      met). Preferences rank above the cluster count: a user who wrote one expects it honoured
 *      when it costs nothing required, and fewest clusters is muster's taste, not theirs;
 *   3. the fewest clusters used;
 *   4. the tightest fit: the fewest whole free nodes opened. A cluster's whole free nodes are
 *      the sum of its grades' node counts (disp_grade.nodes); a placement opens the number by
 *      which the reservations lower that sum over all clusters. Pods that go to nodes already
 *      part-taken, or fill what one node holds, open none; a cluster without resource models
 *      has no whole nodes and opens none;
 *   then the first found in the search's order (deterministic).
 *
 * The search is a depth-first branch and bound over the leaves in tree order: a leaf tries the
 * clusters that break no preferred pack first, and among them the clusters the gang already
 * uses (best fit first), then unused ones (roomiest first; of unused clusters identical in room
 * and level values only the first), then "not placed". A
 * branch is cut when a bound on the objective (pods still placeable, preferences not yet
 * broken, clusters used plus those the remaining demand needs at least, whole nodes opened
 * plus what the remaining demand needs beyond part-taken room) cannot beat the best found;
 * identical sibling leaves take clusters in non-decreasing order of room. A step is one leaf
 * decision tried. At the budget the search stops and returns the best placement found so far (or
 * none), with complete = 0: the same input gives the same answer, never a clock's. */
#ifndef MUSTER_DISPATCHER_COMPOSITE_H
#define MUSTER_DISPATCHER_COMPOSITE_H

#include "cluster-adapters/karmada/groups.h"
#include "dispatcher/placement.h"
#include "queue/resource.h"

#include <stdint.h>

#define DISP_COMPOSITE_BUDGET 5000       /* search steps when the caller gives 0 */
#define DISP_COMPOSITE_CLUSTERS_MAX 1024 /* more allowed clusters are refused (EINVAL) */
#define DISP_COMPOSITE_LEVELS_MAX 8      /* distinct levels one tree names, "cluster" aside */
#define DISP_COMPOSITE_NONE (-1)         /* a leaf not placed; every inner group */
#define DISP_COMPOSITE_WHY_MAX 512

/* The value of topology level `level` ("region", "zone", a label key) for clusters[cluster],
 * or NULL when the cluster has none. The string must stay valid until disp_composite_place
 * returns. Called once per cluster and level the tree names. */
typedef const char *(*disp_composite_level_fn)(void *ud, uint32_t cluster, const char *level);

struct disp_composite_in {
    const struct karmada_group_tree *tree;
    const struct disp_cluster_cap *clusters; /* allowed Ready clusters; read, never changed */
    uint32_t nclusters;
    disp_composite_level_fn level_value; /* NULL: no cluster has a value for any level */
    void *ud;
    const struct queue_resnames *names; /* resource names for the explanation; NULL: ids */
    uint64_t budget;                    /* search steps; 0: DISP_COMPOSITE_BUDGET */
};

/* A valid placement's objective; disp_composite_score_cmp orders it. */
struct disp_composite_score {
    uint64_t pods;      /* placed */
    uint32_t prefs_met; /* preferred constraints met */
    uint32_t prefs;     /* preferred constraints in the tree */
    uint32_t clusters;  /* used */
    uint64_t opened;    /* whole free nodes opened */
};

struct disp_composite_result {
    int placed;       /* 1: cluster[] holds a valid placement; 0: nothing is placed */
    int complete;     /* 1: the search ran out of branches, so the placement is the best there
                         is; 0: the budget stopped it first */
    uint64_t steps;   /* search steps taken */
    int32_t *cluster; /* tree->n entries: a leaf's cluster index, or DISP_COMPOSITE_NONE */
    uint32_t n;
    struct disp_composite_score score;
    /* Why nothing is placed, for the RB's condition; "" when placed. */
    char why[DISP_COMPOSITE_WHY_MAX];
};

/* < 0 when a is better than b, 0 when equal, > 0 when worse (the objective above). */
int disp_composite_score_cmp(const struct disp_composite_score *a,
                             const struct disp_composite_score *b);

/* Places in->tree over in->clusters (see the top of this file). Fills *out (the caller closes
 * it with disp_composite_result_close, whatever the return). Returns 0 (placed or not: see
 * out->placed and out->why), MUSTER_EINVAL for a malformed tree (empty, a parent not before
 * its child, a leaf of 0 pods, an inner group with pods, an unknown constraint mode, more than
 * DISP_COMPOSITE_LEVELS_MAX levels) or too many clusters, with the reason in out->why, or
 * MUSTER_ENOMEM (then nothing is placed). */
int disp_composite_place(const struct disp_composite_in *in, struct disp_composite_result *out);

void disp_composite_result_close(struct disp_composite_result *r);

/* Takes r's placement out of clusters[0..n) (the clusters it was placed over, in the same
 * order): each placed leaf's pods reserved in its cluster, leaves in tree order, as the search
 * counted them, so a gang placed next in the same cycle is never promised the same room.
 * All or nothing: 0; MUSTER_ERANGE when a cluster no longer holds its leaves (the snapshot
 * changed since), MUSTER_EINVAL when r does not fit t or n, MUSTER_ENOMEM; then nothing is
 * taken. */
int disp_composite_reserve(const struct karmada_group_tree *t,
                           const struct disp_composite_result *r, struct disp_cluster_cap *clusters,
                           uint32_t n);

#endif
