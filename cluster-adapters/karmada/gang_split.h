/* Issue 20: a JobSet or LeaderWorkerSet placed group by group over several clusters. Karmada
 * has no replica interpreter for either kind, so its binding controller sends the whole template
 * to every cluster of spec.clusters (pkg/controllers/binding/common.go ensureWork) and then
 * applies the OverridePolicies per cluster. muster therefore writes, per cluster, a rule that
 * sets the cluster's group count, and a gang object that covers exactly the groups placed there
 * (docs/gangobj.md, "Split by groups"). The public entry points are gang.h's: with
 * karmada_gang_input.split set, karmada_gang_input_check, karmada_gang_podgroup_work and
 * karmada_gang_override_policy come here. Pure: json-c in, new json-c out. */
#ifndef MUSTER_KARMADA_GANG_SPLIT_H
#define MUSTER_KARMADA_GANG_SPLIT_H

#include "cluster-adapters/karmada/gang.h"
#include "cluster-adapters/karmada/groups.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* On every pod template of a split set, per cluster: the global index of the cluster's first
 * group of the set, and the set's groups over the whole placement, so a process computes its
 * global rank as (offset + the controller's own index) x group pods + its index in the group
 * (docs/gangobj.md says why muster numbers nothing else). */
#define KARMADA_GANG_GROUP_OFFSET_ANNOTATION "scheduling.muster.io/group-offset"
#define KARMADA_GANG_GROUP_TOTAL_ANNOTATION "scheduling.muster.io/group-total"

/* The pod labels that tell groups apart (JobSet api/jobset/v1alpha2/jobset_types.go, LWS
 * api/leaderworkerset/v1/leaderworkerset_types.go): a Volcano PodGroup's subGroupPolicy
 * selects by them. */
#define KARMADA_JOBSET_NAME_LABEL "jobset.sigs.k8s.io/jobset-name"
#define KARMADA_JOBSET_REPLICATED_JOB_LABEL "jobset.sigs.k8s.io/replicatedjob-name"
#define KARMADA_JOBSET_JOB_INDEX_LABEL "jobset.sigs.k8s.io/job-index"
#define KARMADA_LWS_NAME_LABEL "leaderworkerset.sigs.k8s.io/name"
#define KARMADA_LWS_GROUP_INDEX_LABEL "leaderworkerset.sigs.k8s.io/group-index"

/* The subGroupPolicy name of a LeaderWorkerSet's one set. */
#define KARMADA_GANG_LWS_SET_NAME "group"
#define KARMADA_GANG_SPLIT_SETS_MAX KARMADA_WORKLOAD_COMPONENTS_MAX

/* One set of groups as the template asks for it. */
struct karmada_gang_set {
    char name[KARMADA_WORKLOAD_NAME_MAX + 1]; /* the replicated job; KARMADA_GANG_LWS_SET_NAME */
    uint32_t groups;     /* JobSet: the replicated job's replicas (default 1); LWS: spec.replicas */
    uint32_t group_pods; /* JobSet: one Job's pods, parallelism (default 1) capped by completions;
                            LWS: leaderWorkerTemplate.size (default 1), leader included */
};

/* 1 when w's kind can be split by groups (JobSet, LeaderWorkerSet), else 0. */
int karmada_gang_split_kind(const struct karmada_workload *w);

/* The sets of tmpl (a JobSet or LeaderWorkerSet of kind w->kind) into sets[0..cap), their
 * count in *n, in template order: the order karmada_gang_input.split's columns follow.
 * Returns 0, or MUSTER_EINVAL (another kind, no replicatedJobs, a count out of range) or
 * MUSTER_ENOSPC (more than cap sets). */
int karmada_gang_split_sets(const struct karmada_workload *w, json_object *tmpl,
                            struct karmada_gang_set *sets, uint32_t cap, uint32_t *n);

/* A composite placement of w's group tree turned into the split's cells (issue 20). t is the
 * tree karmada/workload_groups.c builds: for a JobSet, under the root one inner group per
 * replicated job that runs, named as it, each with one leaf per Job (under a hub Workload's
 * CompositePodGroup templates, a Job's leaf is under its composite's group instead, and its
 * name, "<replicated job>-<index>", says its replicated job); for a LeaderWorkerSet, under
 * the root one group per replica, a leaf of the whole group or an indivisible inner group of a
 * leader leaf and a workers leaf. share_of[g] (t->n entries) is the share a leaf's pods go to
 * (0..nshares-1) or -1 when it is not placed; inner groups' entries are not read. Fills
 * split[nshares * nsets] (groups; min_groups = groups: the commit is all or nothing, so every
 * placed group must run; group_min 0, every pod, unless a JobSet's leaves hold fewer, a Workload
 * API pod group template's minCount) and replicas[nshares] (the pods of each share's
 * groups: its karmada_gang_share.replicas). Returns 0 or MUSTER_EINVAL: not a JobSet or LWS, nsets
 * not the template's, a leaf whose replicated job the template does not have or whose pods are
 * not its group's, a share index out of range, or an LWS group's leaves in different shares. */
int karmada_gang_split_from_tree(const struct karmada_workload *w, json_object *tmpl,
                                 const struct karmada_group_tree *t, const int32_t *share_of,
                                 uint32_t nshares, struct karmada_gang_split *split, uint32_t nsets,
                                 int32_t *replicas);

/* 1 when in makes objects at all: the kinds of karmada_gang_needs_objects, or a split. */
int karmada_gang_input_needs_objects(const struct karmada_gang_input *in);

/* The checks of a split input, which karmada_gang_input_check runs after the RB's (call that):
 * the kind splits, nsets is the template's set count, every share names a cluster and runs at
 * least one group, shares[i].replicas = the pods of its groups, per set the groups over all
 * shares are at most the template's (fewer: the rest run nowhere), min_groups <= groups,
 * group_min <= the group's pods, each set's pod request is known, and every share's dialect is
 * Volcano, coscheduling or none (YuniKorn's task groups, or any other dialect's gang, are not
 * written per group here). Returns 0 or MUSTER_EINVAL with a sentence in
 * why[0..cap). */
int karmada_gang_split_check(const struct karmada_gang_input *in, char *why, size_t cap);

/* shares[i]'s PodGroup Work, shaped as karmada_gang_podgroup_work's, for exactly its groups:
 * minMember = sum over sets of min_groups x group_min (at least 1), minResources the same pods'
 * requests, queue and priorityClassName as there; for Volcano also spec.subGroupPolicy, one
 * entry per set with groups there: name (the replicated job's, or "group"), labelSelector
 * (the JobSet's and replicated job's name labels; the LWS's name label), matchLabelKeys (the
 * job-index label; the group-index label), subGroupSize = group_min, minSubGroups =
 * min_groups. A coscheduling share gets minMember, minResources and scheduleTimeoutSeconds
 * only: scheduler-plugins' PodGroup has no subgroups. NULL as karmada_gang_podgroup_work. */
json_object *karmada_gang_split_podgroup_work(const struct karmada_gang_input *in, uint32_t i);

/* The OverridePolicy of a split, named and marked as karmada_gang_override_policy's, with one
 * rule per share (targetCluster.clusterNames [cluster]) whose plaintext `add` overriders set
 * the count of every set (JobSet /spec/replicatedJobs/<j>/replicas, 0 included; LWS
 * /spec/replicas) and, on every pod template of a set with groups there, the annotations
 * KARMADA_GANG_GROUP_OFFSET_ANNOTATION and KARMADA_GANG_GROUP_TOTAL_ANNOTATION plus the share's
 * dialect's pointer to its group (Volcano: the group-name annotation and schedulerName;
 * coscheduling: the pod-group label; none: nothing). The offsets follow share order, so the
 * caller keeps the shares in one order over a gang's attempts. Every cluster has a rule here, a
 * member of dialect none included (its count): judge the barrier with
 * karmada_gang_rendered_judge (no dialects), never letting a Work go out before it names the
 * policy, or that member would run the whole template. NULL when karmada_gang_input_check fails
 * or on ENOMEM. */
json_object *karmada_gang_split_override_policy(const struct karmada_gang_input *in);

#endif
