/* Whether the placement of a ResourceBinding read by karmada_workload_read allows a member
 * cluster (clusterAffinity, clusterAffinities, clusterTolerations against a Karmada Cluster), why
 * not, and which APIs a member serves. Pure: json-c objects in, an answer out. */
#ifndef MUSTER_KARMADA_WORKLOAD_CLUSTERS_H
#define MUSTER_KARMADA_WORKLOAD_CLUSTERS_H

#include "cluster-adapters/karmada/workload.h"

#include <json-c/json.h>
#include <stddef.h>

/* 1 when the RB last read successfully into w allows cluster (a cluster.karmada.io/v1alpha1
 * Cluster: metadata.name, metadata.labels, spec.provider/region/zones, spec.taints), else 0.
 * Allowed means: clusterAffinity matches (clusterNames, exclude, labelSelector, fieldSelector),
 * some clusterAffinities group matches when there are groups, and every NoSchedule/NoExecute
 * taint is tolerated by spec.placement.clusterTolerations. A malformed cluster is not allowed.
 * Readiness and capacity are not judged here. */
int karmada_workload_allows_cluster(const struct karmada_workload *w, json_object *cluster);

/* karmada_workload_allows_cluster, and when the cluster is not allowed a sentence saying why in
 * why[0..cap) ("member2: excluded by spec.placement.clusterAffinity.exclude"); why is "" when
 * allowed. */
int karmada_workload_explain_cluster(const struct karmada_workload *w, json_object *cluster,
                                     char *why, size_t cap);

/* Whether a member serves Volcano's PodGroups, from its Cluster's status.apiEnablements (what
 * Karmada's cluster status controller found the member serving): 1 when it lists
 * scheduling.volcano.sh/v1beta1 podgroups, 0 when it lists APIs but not that one (a gang that
 * needs a PodGroup must not go there), -1 when it reports none at all (not collected yet; a
 * Ready member always has them on a real hub, so the caller does not judge). */
int karmada_workload_cluster_serves_podgroups(json_object *cluster);

/* The same for any resource: resource (plural) in group_version ("batch.volcano.sh/v1alpha1"
 * jobs: a Volcano Job's own kind, which the member must serve for its Work to apply). */
int karmada_workload_cluster_serves(json_object *cluster, const char *group_version,
                                    const char *resource);

/* A member's Ready condition (status.conditions, type Ready): 1 when its status is True, else 0
 * (False, Unknown, or no such condition). *since_ms is its lastTransitionTime in unix ms, 0
 * when absent or unreadable. */
int karmada_workload_cluster_ready(json_object *cluster, int64_t *since_ms);

/* The cluster's NoExecute taints (spec.taints) against the RB read into w (its
 * spec.placement.clusterTolerations; w NULL or without tolerations: none), with Kubernetes'
 * toleration semantics as Karmada's taint manager applies them: 1 when some NoExecute taint
 * is not tolerated for ever, with *until_ms the earliest time one stops being tolerated (0: one
 * is not tolerated at all; else the taint's timeAdded plus the least tolerationSeconds of the
 * tolerations that match it) and that taint named in taint[0..cap) ("key=value:NoExecute").
 * A taint without timeAdded that a toleration with tolerationSeconds matches is tolerated for
 * ever, as Karmada skips it. 0 when every NoExecute taint is tolerated for ever, or none. */
int karmada_workload_noexecute(const struct karmada_workload *w, json_object *cluster,
                               int64_t *until_ms, char *taint, size_t cap);

/* 1 when the RB's spec.gracefulEvictionTasks holds a task evicting it from cluster (Karmada's
 * taint manager, application failover, the descheduler), with its reason and producer in
 * why[0..cap) ("TaintUntolerated by TaintManager"); else 0. */
int karmada_workload_evicted_from(json_object *rb, const char *cluster, char *why, size_t cap);

/* Cross-file internal of karmada_workload_read: validates spec.placement's clusterAffinity,
 * clusterAffinities and clusterTolerations of the RB being read (spec borrowed) and keeps
 * references to them in w for the matching above. Returns 0, or MUSTER_EINVAL / MUSTER_ELIMIT
 * with w->reason INVALID and a sentence in w->message. */
int karmada__workload_check_clusters(struct karmada_workload *w, json_object *spec);

#endif
