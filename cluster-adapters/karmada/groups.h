/* A gang as a tree of groups (issue 20, KEP-6012's CompositePodGroup): what a workload says of
 * its structure, read from its template (karmada/workload_groups.c), and what placement
 * (dispatcher/composite.c) splits only at group boundaries. Pure data: no I/O.
 *
 * The tree is a flat array, parents before children, g[0] the root. A leaf is a pod set (pods
 * pods of one request); an inner group is a set of child groups. Every group has min_count: of
 * an inner group, how many of its children must be placed for it to count as placed; of a leaf,
 * how many of its pods its member-side gang object guarantees (its minMember). An indivisible
 * group goes to one cluster whole (every leaf is, by default; an inner group may be too).
 *
 * Topology levels name a property of a member Cluster that groups clusters into domains:
 *   "cluster"  each cluster its own domain;
 *   "region"   the Cluster's spec.region;
 *   "zone"     the Cluster's spec.zone (spec.zones[0] when only that is set);
 *   any other  the value of that Cluster label (topology.kubernetes.io/zone, muster.io/fabric).
 * A cluster without a value for the level is in no domain of it: a required pack or spread at
 * that level cannot use it. */
#ifndef MUSTER_KARMADA_GROUPS_H
#define MUSTER_KARMADA_GROUPS_H

#include "queue/resource.h"

#include <stdint.h>

#define KARMADA_GROUP_NAME_MAX 63
#define KARMADA_GROUP_LEVEL_MAX 63 /* a level's name: "region", or a label key's name part */
#define KARMADA_GROUPS_MAX 1024    /* groups in one tree, root included; past it: refused */
#define KARMADA_GROUP_TOPO_MAX 4   /* constraints on one group */

/* The annotations (template first, then the RB) that state topology for a gang, each one
 * constraint on the root ("the whole gang") or on every innermost group ("each group"):
 *   scheduling.muster.io/topology-required: "region"     the whole gang in one region
 *   scheduling.muster.io/topology-preferred: "zone"      the whole gang in one zone if it can
 *   scheduling.muster.io/group-topology-required: "zone" each innermost group in one zone
 *                                                          (default: each in one cluster)
 *   scheduling.muster.io/group-topology-preferred: ...
 *   scheduling.muster.io/spread-required: "zone:2"       the gang's groups over >= 2 zones
 *   scheduling.muster.io/spread-preferred: "zone:2" */
#define KARMADA_GROUPS_TOPOLOGY_REQUIRED "scheduling.muster.io/topology-required"
#define KARMADA_GROUPS_TOPOLOGY_PREFERRED "scheduling.muster.io/topology-preferred"
#define KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED "scheduling.muster.io/group-topology-required"
#define KARMADA_GROUPS_GROUP_TOPOLOGY_PREFERRED "scheduling.muster.io/group-topology-preferred"
#define KARMADA_GROUPS_SPREAD_REQUIRED "scheduling.muster.io/spread-required"
#define KARMADA_GROUPS_SPREAD_PREFERRED "scheduling.muster.io/spread-preferred"

enum karmada_topo_mode {
    KARMADA_TOPO_PACK,   /* all of the group's placed pods within one domain of the level */
    KARMADA_TOPO_SPREAD, /* the group's placed children over at least min_domains domains */
};

struct karmada_group_topo {
    char level[KARMADA_GROUP_LEVEL_MAX + 1];
    enum karmada_topo_mode mode;
    uint32_t min_domains; /* SPREAD only */
    int required;         /* 1: never broken; 0: preferred, broken only when nothing else fits */
};

/* Where a group came from, for the reason an operator reads and for the member-side objects. */
enum karmada_group_source {
    KARMADA_GROUP_SOURCE_GROUP_SIZE, /* scheduling.muster.io/group-size */
    KARMADA_GROUP_SOURCE_VCJOB_TASK, /* a Volcano Job task */
    KARMADA_GROUP_SOURCE_JOBSET,     /* a JobSet replicated job (inner) or one of its Jobs (leaf) */
    KARMADA_GROUP_SOURCE_LWS,        /* a LeaderWorkerSet group: leader + workers */
    KARMADA_GROUP_SOURCE_WORKLOAD,   /* a Kubernetes Workload API pod group */
};

struct karmada_group {
    char name[KARMADA_GROUP_NAME_MAX + 1]; /* unique in the tree: "shard-3", "workers-0" */
    int32_t parent;                        /* index of the parent; -1 for g[0], the root */
    enum karmada_group_source source;
    uint32_t min_count;     /* inner: children that must be placed; leaf: its minMember */
    uint32_t pods;          /* leaf: pods in the set (>= 1); inner: 0 */
    struct queue_resvec pod; /* leaf: one pod's request, counting "pods" 1; inner: empty */
    int indivisible;        /* goes to one cluster whole (1 for every leaf by default) */
    struct karmada_group_topo topo[KARMADA_GROUP_TOPO_MAX];
    uint32_t ntopo;
};

struct karmada_group_tree {
    struct karmada_group *g; /* g[0] the root; a parent's index is below its children's */
    uint32_t n;
};

/* Frees the tree's groups and their vectors; t is then empty. */
void karmada_group_tree_close(struct karmada_group_tree *t);

#endif
