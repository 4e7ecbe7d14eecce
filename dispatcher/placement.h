/* Gang placement over one snapshot of the clusters: how many replicas of a size each cluster
 * holds node by node, and where a whole gang goes (one cluster, best fit; or spread over the
 * fewest clusters). Pure: no I/O, no clock; the dispatch cycle builds the snapshot. */
#ifndef MUSTER_DISPATCHER_PLACEMENT_H
#define MUSTER_DISPATCHER_PLACEMENT_H

#include "queue/resource.h"

#include <stdint.h>

/* Nodes of one resource-model grade: `nodes` nodes, each with at least `min` free. A resource
 * the grade describes with a minimum of 0 is given as -1 in min (a queue_resvec keeps no
 * zeros): its nodes are counted as holding none of it, while a resource absent from min is
 * one the grade does not describe and does not bound. */
struct disp_grade {
    struct queue_resvec min;
    uint64_t nodes;
};

/* One Ready cluster allowed for the gang, as the cycle's snapshot sees it. The caller owns the
 * vectors. free is allocatable - allocated - allocating - muster's own in-flight reservations.
 * Without grades (no resource models), only free bounds the fit. */
#define DISP_PARTIAL_MAX 8

struct disp_cluster_cap {
    const char *name;
    struct queue_resvec free;
    struct disp_grade *grades; /* ascending by size, as Karmada's models are */
    uint32_t ngrades;
    /* Nodes this snapshot's reservations took only part of: what each still holds of its
     * grade's minimum (a described resource used up stays as 0). Reservations fill these
     * first, as a packing member scheduler does; one more than DISP_PARTIAL_MAX is dropped,
     * so room is only ever under-counted. Filled by disp_cluster_reserve; the caller closes
     * them (disp_cluster_cap_close_parts). */
    struct queue_resvec part[DISP_PARTIAL_MAX];
    uint32_t npart;
};

/* Closes c's part-taken nodes (npart becomes 0). */
void disp_cluster_cap_close_parts(struct disp_cluster_cap *c);

/* Copies src's part-taken nodes into dst (whose own are closed first). 0 or MUSTER_ENOMEM
 * (then dst has none). */
int disp_cluster_cap_copy_parts(struct disp_cluster_cap *dst, const struct disp_cluster_cap *src);

/* Replicas of size `replica` that fit in c: the least of the summary bound (free / replica,
 * per resource) and, with models, the node-by-node bound (per grade: nodes x how many replicas
 * one node of the grade's minimum holds). A resource a grade does not describe does not bound
 * its nodes. A replica asking for nothing fits without bound (UINT64_MAX). */
uint64_t disp_cluster_fits(const struct disp_cluster_cap *c, const struct queue_resvec *replica);

/* Takes n replicas of `replica` out of c (the cycle's reservation): out of free, and out of
 * the nodes: part-taken nodes first, then whole nodes of the grades, smallest grade first,
 * the last node's remainder kept as a part-taken node. So a later fit in the same cycle is
 * never promised capacity this one took (it may be told less than is there, never more), and
 * small replicas pack as many to a node as the node holds. Returns 0, MUSTER_ERANGE when c
 * does not hold n, or MUSTER_ENOMEM (nothing changes either way). */
int disp_cluster_reserve(struct disp_cluster_cap *c, const struct queue_resvec *replica,
                         uint64_t n);

enum disp_spread { DISP_SINGLE_CLUSTER, DISP_SPREAD };

struct disp_share {
    uint32_t cluster; /* index into the clusters given */
    uint64_t replicas;
};

/* Places `replicas` replicas of `replica` over clusters[0..n). Single-cluster: the cluster that
 * holds them all with the least room left over (fewest further replicas of this size), ties by
 * name. Spread: the fewest clusters that together hold them, the roomiest first, each taking
 * all it holds but the last. Writes at most n shares into out and returns how many (1 for
 * single-cluster), or 0 when the whole gang does not fit: never part of it. Only the first 1024
 * clusters are considered. */
uint32_t disp_place(const struct disp_cluster_cap *clusters, uint32_t n,
                    const struct queue_resvec *replica, uint64_t replicas, enum disp_spread mode,
                    struct disp_share *out);

/* disp_place_fits in whole groups of `group` replicas (issue 20's group-size): a cluster holds
 * fits[i] / group groups, every share is a multiple of group, so no group is split between
 * clusters; replicas must be a multiple of group. group 1 is disp_place_fits. */
uint32_t disp_place_groups(const struct disp_cluster_cap *clusters, const uint64_t *fits,
                           uint32_t n, uint64_t replicas, uint64_t group, enum disp_spread mode,
                           struct disp_share *out);

/* disp_place with fits[i] = disp_cluster_fits(&clusters[i], replica) already known (the
 * dispatch cycle remembers them per cluster while its room does not change): the same
 * choice, without the node-by-node arithmetic. At most 1024 clusters are considered. */
uint32_t disp_place_fits(const struct disp_cluster_cap *clusters, const uint64_t *fits, uint32_t n,
                         uint64_t replicas, enum disp_spread mode, struct disp_share *out);

#endif
