/* The objects of the dispatch commit protocol (DESIGN.md, "Dependent PodGroups, by kind" and
 * "The commit protocol"): per target cluster a Work carrying a Volcano PodGroup, one
 * OverridePolicy per RB that points the member's pods at their group, and reading what Karmada
 * rendered of them; the RB patches of each step are in patch.h. Pure: json-c objects in, new
 * json-c objects out; no I/O, no clock. docs/gangobj.md shows each object. */
#ifndef MUSTER_KARMADA_GANG_H
#define MUSTER_KARMADA_GANG_H

#include "cluster-adapters/karmada/workload.h"
#include "queue/resource.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#define KARMADA_GANG_MANAGED_BY_LABEL "app.kubernetes.io/managed-by"
#define KARMADA_GANG_MANAGED_BY_VALUE "muster"
#define KARMADA_GANG_BINDING_ANNOTATION                                                            \
    "scheduling.muster.io/binding" /* "namespace/name" of the RB */
/* The RB's metadata.uid, on every object muster creates: muster's own key, never Karmada's
 * resourcebinding.karmada.io/permanent-id (docs/gangobj.md says why). */
#define KARMADA_GANG_BINDING_UID_LABEL "scheduling.muster.io/binding-uid"
/* What Karmada's CreateOrUpdateWork puts on a Work and its manifest (ctrlutil/work.go). */
#define KARMADA_GANG_WORK_FINALIZER "karmada.io/execution-controller"
#define KARMADA_MANAGED_LABEL "karmada.io/managed"
#define KARMADA_GANG_WORK_NAME_ANNOTATION "work.karmada.io/name"
#define KARMADA_GANG_WORK_NAMESPACE_ANNOTATION "work.karmada.io/namespace"
/* On a rendered Work: the OverridePolicies applied to it, JSON [{policyName, overriders}]. */
#define KARMADA_GANG_APPLIED_OVERRIDES_ANNOTATION "policy.karmada.io/applied-overrides"
#define KARMADA_GANG_GROUP_NAME_ANNOTATION "scheduling.k8s.io/group-name"
#define KARMADA_GANG_APPLIED_PLACEMENT_ANNOTATION "policy.karmada.io/applied-placement"
#define KARMADA_GANG_NAME_MAX 253
/* Karmada's own message on Scheduled=True, so `kubectl get rb` reads the same either way. */
#define KARMADA_GANG_SCHEDULED_MESSAGE "Binding has been scheduled successfully."

/* The gang object a member understands (gang_dialects.h: detection, names, overrides;
 * docs/gangobj.md, "Dialects"). VOLCANO is 0 so a share built without one is written as before. */
enum karmada_gang_dialect {
    KARMADA_GANG_DIALECT_VOLCANO = 0,  /* scheduling.volcano.sh/v1beta1 PodGroup in a Work */
    KARMADA_GANG_DIALECT_COSCHEDULING, /* scheduling.x-k8s.io/v1alpha1 PodGroup in a Work */
    KARMADA_GANG_DIALECT_YUNIKORN,     /* no object: task-group annotations on the pods */
    KARMADA_GANG_DIALECT_NONE, /* no gang in the member: only gangs of min-member 1 go there */
    /* the Kubernetes Workload API (GenericWorkload): a scheduling.k8s.io PodGroup in a Work,
     * in the version its member serves (enum karmada_gang_wl_version), named by the pods'
     * spec.schedulingGroup.podGroupName */
    KARMADA_GANG_DIALECT_WORKLOAD_API
};

/* Which version of the Workload API's PodGroup a Workload API member gets: the one its API
 * server serves (gang_dialects.h, karmada_gang_wl_version_detect). V1BETA1 is 0 so a share
 * built without one is written in the current release's version. */
enum karmada_gang_wl_version {
    KARMADA_GANG_WL_V1BETA1 = 0, /* Kubernetes 1.37: scheduling.k8s.io/v1beta1 */
    KARMADA_GANG_WL_V1ALPHA2     /* Kubernetes 1.36: scheduling.k8s.io/v1alpha2 */
};

struct karmada_gang_share {
    const char *cluster;
    int32_t replicas;
};

/* Issue 20: one set of groups in one cluster of a placement made group by group. A set is one
 * JobSet replicated job (its groups are its Jobs) or a LeaderWorkerSet's groups (one set: leader
 * + workers each). Karmada sends such a kind whole to every cluster of spec.clusters, so the
 * OverridePolicy sets each cluster's count and the cluster's gang object covers exactly its
 * groups (gang_split.h, docs/gangobj.md "Split by groups"). */
struct karmada_gang_split {
    uint32_t groups;     /* the set's groups this cluster runs: the count written there (0: none) */
    uint32_t min_groups; /* of them, how many must run (the subgroup gang's minSubGroups);
                            <= groups */
    uint32_t group_min;  /* pods of one group that must run (the group tree's leaf min_count);
                            0: every pod of the group */
};

struct karmada_member_topo; /* gang_nettopo.h */

struct karmada_gang_input {
    json_object *rb;                         /* the ResourceBinding as read (borrowed) */
    const struct karmada_workload *w;        /* what karmada_workload_read found in it */
    const struct queue_resnames *names;      /* resource names for w's vectors */
    const struct karmada_gang_share *shares; /* the placement: one entry per target cluster */
    uint32_t nshares;
    const char *pod_scheduler; /* schedulerName the OverridePolicy sets (NULL: "volcano") */
    json_object *tmpl;         /* the resource template spec.resource names, as read
                                  (borrowed): the OverridePolicy must know which pod-template
                                  annotations already exist */
    /* dialects[i] is shares[i]'s cluster's dialect; NULL: every one Volcano */
    const enum karmada_gang_dialect *dialects;
    /* wl_versions[i]: the Workload API version shares[i]'s member serves, read for a
     * KARMADA_GANG_DIALECT_WORKLOAD_API share; NULL: every one v1beta1 */
    const enum karmada_gang_wl_version *wl_versions;
    int32_t gang_timeout_s; /* the gang timeout: a coscheduling PodGroup's
                               scheduleTimeoutSeconds, YuniKorn's placeholderTimeoutInSeconds
                               (0: left out) */
    /* A gang made of several RBs (a Kueue pod group of plain Pods): the name of the RB whose
     * PodGroup the pods join (the gang's lead); NULL: in->rb's own. */
    const char *group_rb_name;
    /* ... and, on the lead's input, the gang's whole request (its pods may differ in shape):
     * the PodGroup's minResources when one share holds the whole gang. NULL: share x the
     * per-replica request. */
    const struct queue_resvec *gang_request;
    /* Issue 20, a JobSet or LeaderWorkerSet placed group by group (gang_split.h). NULL: the
     * kind goes whole to one cluster and gets no objects, as before. Else nshares x nsets
     * entries, split[i * nsets + j] being shares[i]'s part of set j (JobSet: spec.replicatedJobs[j]
     * in template order; LeaderWorkerSet: nsets 1), and shares[i].replicas the pods of its
     * groups. */
    const struct karmada_gang_split *split;
    uint32_t nsets;
    /* Issue 20, topology inside a member (gang_nettopo.h): what the workload asks of each
     * member's racks (NULL: nothing), and net_topo[i] 1 when shares[i]'s member has Volcano's
     * HyperNodes (NULL: none has). Written in Volcano PodGroups only, only where net_topo[i]:
     * spec.networkTopology for the share, subGroupPolicy[].networkTopology for each group. */
    const struct karmada_member_topo *member_topo;
    const uint8_t *net_topo;
    /* The names of member_topo's tiers stated by name (KARMADA_NETTOPO_TIER_NAMED), written as
     * highestTierName only where net_topo[i] also has bit 2 (the member's Volcano reads names:
     * karmada_member_topo_names_detect); elsewhere such a scope is left out. NULL: none. */
    const struct karmada_member_topo_names *topo_names;
};

/* Object names, written to buf[0..cap) with a NUL:
 *   PodGroup       "muster-<rb name>"                 (in the template's namespace, per member)
 *   Work           "muster-pg-<rb namespace>.<rb name>" (in karmada-es-<cluster>)
 *   OverridePolicy "muster-<rb name>"                 (in the RB's namespace)
 * Work namespaces are shared by every RB of the hub, so the Work name carries the RB's namespace
 * (a DNS label: no '.', so the first '.' ends it unambiguously). A name longer than
 * KARMADA_GANG_NAME_MAX is cut and ends in "-" and 10 hex digits of a 64-bit FNV-1a hash of the
 * whole name, so two long names that share their first 240 characters still differ. Returns 0,
 * MUSTER_EINVAL (empty or NULL rb_name / rb_namespace) or MUSTER_ENOSPC (cap too small for the
 * result; buf then holds ""). */
int karmada_gang_podgroup_name(const char *rb_name, char *buf, size_t cap);
int karmada_gang_work_name(const char *rb_namespace, const char *rb_name, char *buf, size_t cap);
int karmada_gang_policy_name(const char *rb_name, char *buf, size_t cap);

/* 1 when the kind gets PodGroup Works + an OverridePolicy (Deployment, batch Job, Pod), 0 for
 * a Volcano Job (its member's Volcano makes the PodGroup) and for kinds muster does not handle. */
int karmada_gang_needs_objects(const struct karmada_workload *w);

/* Checks that in can build the objects of its kind: rb with metadata name, namespace and uid
 * and spec.resource (apiVersion, kind, name), w, names, 1..n shares with a cluster name and
 * positive replicas that add up to w->replicas, w->permanent_id set (the barrier check finds
 * the Works Karmada renders by it), and for kinds that need objects one component and a
 * template object. Returns 0 or MUSTER_EINVAL, with a sentence in why[0..cap) when why is not
 * NULL. Call it once before step 1 of the protocol: the builders below return NULL for the same
 * faults, and after a passing check NULL from them means only out of memory. With in->split set
 * the share checks are karmada_gang_split_check's instead (gang_split.h), and
 * karmada_gang_podgroup_work and karmada_gang_override_policy build the split's objects. */
int karmada_gang_input_check(const struct karmada_gang_input *in, char *why, size_t cap);

/* The Work (work.karmada.io/v1alpha1) carrying one scheduling.volcano.sh/v1beta1 PodGroup for
 * shares[i], shaped as Karmada's own CreateOrUpdateWork shapes a Work (see docs/gangobj.md for
 * the whole object): namespace karmada-es-<cluster>, finalizer KARMADA_GANG_WORK_FINALIZER, labels
 * KARMADA_GANG_MANAGED_BY_LABEL and KARMADA_GANG_BINDING_UID_LABEL (the RB's uid), annotation
 * KARMADA_GANG_BINDING_ANNOTATION, no suspendDispatching (the PodGroup goes to the member at once).
 * The PodGroup, named karmada_gang_podgroup_name in the template's namespace, carries the same
 * labels plus KARMADA_MANAGED_LABEL "true" and the annotations KARMADA_GANG_WORK_NAME_ANNOTATION
 * and KARMADA_GANG_WORK_NAMESPACE_ANNOTATION (the Work's own), with minMember = ceil(share x
 * min_member / replicas) (the share itself for a whole gang; at least 1), minResources = share x
 * the per-replica request, queue = w->queue, priorityClassName = w->priority_class when set. New
 * object owned by the caller; NULL when karmada_gang_input_check fails, i >= nshares, the kind
 * needs no objects, minResources overflows, or on ENOMEM. */
json_object *karmada_gang_podgroup_work(const struct karmada_gang_input *in, uint32_t i);

/* 1 when shares[i] gets a PodGroup Work (its dialect is Volcano or coscheduling), 0 when its
 * member gets none (YuniKorn, none): karmada_gang_podgroup_work returns NULL for those, and the
 * dispatcher neither creates, waits for nor reads a Work there. A coscheduling share's Work
 * carries a scheduling.x-k8s.io/v1alpha1 PodGroup (minMember as above, minResources,
 * scheduleTimeoutSeconds = in->gang_timeout_s when set; no queue: the type has none). */
int karmada_gang_share_has_work(const struct karmada_gang_input *in, uint32_t i);

/* The OverridePolicy (policy.karmada.io/v1alpha1), one per RB, in the template's namespace,
 * labelled KARMADA_GANG_MANAGED_BY_LABEL + KARMADA_GANG_BINDING_UID_LABEL, annotated
 * KARMADA_GANG_BINDING_ANNOTATION, owned (ownerReference, no controller) by the template so the
 * hub's garbage collector removes it with the template. resourceSelectors names the template; ONE
 * overrideRules entry without targetCluster (every cluster: the group has the same name everywhere)
 * with two plaintext `add` overriders: the pod-template annotation
 * KARMADA_GANG_GROUP_NAME_ANNOTATION = the PodGroup name, and schedulerName = in->pod_scheduler.
 * Paths are under /spec/template for Deployment and Job, at the top for a Pod; the annotation is
 * added as the one key when the template's annotations object exists (so the others survive), else
 * as a whole annotations (or metadata) object. muster never deletes it on release or rollback: that
 * would re-render the Works, and a Job's or Pod's pod template cannot change in a member. New
 * object owned by the caller; NULL for kinds that need none, when karmada_gang_input_check fails,
 * or on ENOMEM.
 * When the shares do not all speak one of Volcano or coscheduling, the rules are per cluster
 * instead (targetCluster.clusterNames = [the share's cluster]), each in its member's dialect:
 * Volcano as above; coscheduling the pod label scheduling.x-k8s.io/pod-group = the PodGroup name
 * and no schedulerName (the member's default profile runs the plugin, docs/gangobj.md); YuniKorn
 * the annotations app-id, task-group-name, task-groups (minMember = the share's) and
 * schedulingPolicyParameters, and schedulerName yunikorn; none no rule. All coscheduling: one
 * rule without targetCluster, as for all Volcano. */
json_object *karmada_gang_override_policy(const struct karmada_gang_input *in);

/* 1 when the template already reads as muster's OverridePolicy for in would make it: every
 * plaintext overrider of every rule adds a value the template holds at that path, equal. Such a
 * template names muster's PodGroup (muster-<RB name>) and its scheduler itself, so its Works are
 * right whatever Karmada's override manager has cached, and the dispatch needs neither the policy
 * nor the barrier that waits for it (docs/gangobj.md, "A template that names its PodGroup").
 * 0 for a split (its counts are in the policy), when no policy can be built, and on ENOMEM. */
int karmada_gang_policy_redundant(const struct karmada_gang_input *in);
/* The same judgment of a policy already built (op, borrowed; NULL: 0) against tmpl. */
int karmada_gang_policy_in_template(json_object *op, json_object *tmpl);

/* 1 when other, an OverridePolicy or ClusterOverridePolicy not muster's, selects tmpl as
 * Karmada's override manager selects (pkg/util/selector.go ResourceSelectorPriority: apiVersion
 * and kind, the namespace when set, the name when set; no selectors select everything; a label
 * selector counts as selecting, the pruned template keeping no labels to test it on) and one of
 * its plaintext overriders writes a path at, above or below one that mine (muster's policy for
 * tmpl, borrowed) writes. Karmada applies muster's policy last (a name selector sorts after
 * every other, pkg/util/overridemanager/overridemanager.go), so with it muster's values win;
 * without it other's would: the template's own group name and scheduler are then no proof. */
int karmada_gang_policy_contested(json_object *mine, json_object *other, json_object *tmpl);

/* Reading muster's own PodGroup Works as Karmada reports them (borrowed objects):
 * karmada_gang_work_applied: 1 when the Work is not being deleted and its condition Applied is True
 *   (the execution controller created or updated the PodGroup in the member).
 * karmada_gang_work_podgroup_phase: the member PodGroup's status.phase as Karmada reflects the
 * whole status into status.manifestStatuses[0].status ("Pending", "Inqueue", "Running", ...), or
 *   NULL when not reported. Borrowed from work. */
int karmada_gang_work_applied(json_object *work);
const char *karmada_gang_work_podgroup_phase(json_object *work);

/* The barrier as the Works Karmada rendered for an RB show it (step 4 of the protocol). */
enum karmada_gang_rendered {
    KARMADA_GANG_RENDERED_READY, /* suspendDispatching true, muster's policy in applied-overrides */
    KARMADA_GANG_RENDERED_OPEN, /* released, but with the policy in: its pods name their PodGroup */
    KARMADA_GANG_RENDERED_WAIT, /* suspended, the policy not rendered in yet: check again */
    KARMADA_GANG_RENDERED_MISSING, /* no Work for the cluster (or one being deleted): check again */
    KARMADA_GANG_RENDERED_VANISHED /* released without the policy: pods without their group went out
                                    */
};

/* The state of one rendered Work (NULL: MISSING) against policy, muster's OverridePolicy name. */
enum karmada_gang_rendered karmada_gang_rendered_work(json_object *work, const char *policy);

/* The barrier over the placement: items are the Works listed by the RB's permanent-id label
 * (a JSON array; muster's own, labelled KARMADA_GANG_BINDING_UID_LABEL, are ignored), and each
 * share's cluster is judged on the Work in karmada-es-<cluster>. Returns VANISHED if any cluster's
 * is; else the first MISSING or WAIT; else READY (READY and OPEN Works alike let the lift go). why
 * (may be NULL) names the cluster that decided and what it showed. */
enum karmada_gang_rendered karmada_gang_rendered_judge(json_object *items,
                                                       const struct karmada_gang_share *shares,
                                                       uint32_t n, const char *policy, char *why,
                                                       size_t cap);
/* The same with each share's dialect (dialects NULL: every one Volcano): a share of dialect
 * none has no rule in the policy, so its rendered Work is judged by its suspension alone
 * (READY suspended, OPEN released). */
enum karmada_gang_rendered
karmada_gang_rendered_judge_dialects(json_object *items, const struct karmada_gang_share *shares,
                                     const enum karmada_gang_dialect *dialects, uint32_t n,
                                     const char *policy, char *why, size_t cap);

#endif
