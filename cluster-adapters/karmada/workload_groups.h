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

/* The Kubernetes Workload API as a source of the tree (docs/workload.md, "The Kubernetes Workload
 * API"): the annotation KEP-5547 puts on a Job to name the pod group template, in its parent's
 * Workload, that the Job's own PodGroup is made from. muster reads it on a JobSet's replicated
 * job templates (spec.replicatedJobs[].template.metadata.annotations). */
#define KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION "scheduling.k8s.io/group-template-name"

/* What the caller found on the hub for a template that names pod group templates: the Workload
 * (scheduling.k8s.io v1beta1 or v1alpha2, the same spec.podGroupTemplates in both) whose
 * spec.controllerRef names the template, in the template's namespace. */
struct karmada_groups_wl {
    json_object *workload; /* borrowed; NULL: none found */
    int served;            /* 1: the hub serves Workloads (in the version named) */
    uint32_t found;        /* Workloads whose controllerRef names the template (> 1: ambiguous) */
    const char *version;   /* "scheduling.k8s.io/v1beta1" or ".../v1alpha2", for messages */
};

/* 1 when tmpl (read into w) structures its gang by the Workload API: a JobSet one of whose
 * replicated job templates carries KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION. The caller then
 * looks the Workload up and passes it to karmada_workload_groups_read_wl. */
int karmada_workload_groups_wants_wl(const struct karmada_workload *w, json_object *tmpl);

/* karmada_workload_groups_read, with the hub's Workload for a template that wants one (wl NULL:
 * not looked up; karmada_workload_groups_read is this with NULL). Such a JobSet's tree is the
 * JobSet's shape with the Workload as its root (source WORKLOAD): a leaf per Job, each Job one
 * runtime PodGroup of the template its replicated job names, so the leaf's min_count is that
 * template's schedulingPolicy.gang.minCount (basic: 1); a replicated job naming no template keeps
 * every pod. A Workload of spec.compositePodGroupTemplates (KEP-6012) puts a level per composite
 * template between the root and the Jobs of the pod group templates it lists, its min_count the
 * template's gang.minGroupCount (basic: 1) over those child groups (docs/workload.md,
 * "CompositePodGroup"). Beyond karmada_workload_groups_read's failures, each with a sentence:
 *   REFUSED  the Workload is not on the hub (the gang waits for it, as kube-scheduler keeps the
 *            pods of a missing PodGroup pending), the hub serves no Workloads, not looked up,
 *            a composite template named like a replicated job or one of its Jobs;
 *   INVALID  several Workloads name the template, a template name the Workload does not have
 *            (or has under two composites), a policy with both or neither of gang and basic, a
 *            minCount below 1 or above the pods of one Job, a malformed spec.podGroupTemplates;
 *            both template lists set, composite templates nested past WorkloadMaxTreeDepth (4),
 *            a minGroupCount below 1 or above the composite's child groups, a composite with
 *            no child groups, two composites of one name. */
int karmada_workload_groups_read_wl(struct karmada_group_tree *t, struct karmada_groups_error *err,
                                    struct queue_resnames *names, const struct karmada_workload *w,
                                    json_object *rb, json_object *tmpl,
                                    const struct karmada_groups_wl *wl);

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
