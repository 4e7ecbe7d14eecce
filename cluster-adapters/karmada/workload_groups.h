/* A workload's gang as a tree of groups (issue 20; the tree is karmada/groups.h): built from
 * what the workload says of its structure (Volcano Job tasks, JobSet replicated jobs,
 * LeaderWorkerSet groups, muster's group-size annotation) and from muster's topology annotations,
 * and the value a member Cluster has for a topology level. Pure: json-c in, a tree out
 * (docs/workload.md, "Group trees (issue 20)"). */
#ifndef MUSTER_KARMADA_WORKLOAD_GROUPS_H
#define MUSTER_KARMADA_WORKLOAD_GROUPS_H

#include "cluster-adapters/karmada/groups.h"
#include "cluster-adapters/karmada/workload.h"

#include <json-c/json.h>
#include <stddef.h>

/* Why a tree could not be built: reason INVALID (a malformed or out-of-range value, or past
 * KARMADA_GROUPS_MAX) or REFUSED (well formed, but not something muster can place as groups),
 * and a sentence fit for the RB's Scheduled=False condition (Unschedulable), as the workload
 * readers write theirs. */
struct karmada_groups_error {
    enum karmada_workload_reason reason;
    char message[KARMADA_WORKLOAD_MSG_MAX];
};

/* Builds t from the workload w, a successful karmada_workload_read of the same rb and tmpl (w
 * gives the components, their per-pod requests, the gang size and the placement; rb and tmpl are
 * read for what w does not keep: the structure of the kind and the annotations). t is closed
 * first (a zeroed tree is fine) and owned by the caller after: karmada_group_tree_close.
 * Every leaf's pod vector counts "pods" 1, interned in names.
 *
 * A workload with no group structure gets an empty tree (t->n 0): the caller keeps its one-gang
 * path. Returns 0, or a negative code with err filled and t empty:
 *   MUSTER_EINVAL  reason INVALID (a field, named in the message) or REFUSED;
 *   MUSTER_ELIMIT  reason INVALID: more than KARMADA_GROUPS_MAX groups;
 *   MUSTER_ERANGE  reason INVALID: a count overflows;
 *   MUSTER_ENOMEM  (reason INVALID, message "out of memory"): retry, the workload is not at
 *                  fault. */
int karmada_workload_groups_read(struct karmada_group_tree *t, struct karmada_groups_error *err,
                                 struct queue_resnames *names, const struct karmada_workload *w,
                                 json_object *rb, json_object *tmpl);

/* 1 when s[0..len) is a topology level muster accepts: "cluster", "region", "zone", or a valid
 * Kubernetes label key of at most KARMADA_GROUP_LEVEL_MAX characters (topology.kubernetes.io/zone,
 * muster.io/fabric). */
int karmada_group_level_valid(const char *s, size_t len);

/* The value of a member Cluster (a cluster.karmada.io/v1alpha1 Cluster, borrowed) for level:
 * "cluster" its metadata.name, "region" its spec.region, "zone" its spec.zone or else
 * spec.zones[0], any other level its metadata.labels[level]. The string is owned by cluster;
 * NULL when the cluster has no value (absent, empty, or not a string): it is then in no domain
 * of that level. */
const char *karmada_group_level_value(json_object *cluster, const char *level);

#endif
