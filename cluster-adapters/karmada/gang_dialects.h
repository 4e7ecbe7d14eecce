/* Which gang object each member cluster understands (issue 19, "Write"): detected from the
 * Cluster's status.apiEnablements, or set by the operator; and the names of the dialects in the
 * admin API. The objects themselves are built by gang.c. docs/gangobj.md, "Dialects". */
#ifndef MUSTER_KARMADA_GANG_DIALECTS_H
#define MUSTER_KARMADA_GANG_DIALECTS_H

#include "cluster-adapters/karmada/gang.h"

#include <json-c/json.h>

/* What a coscheduling member's pods carry to join their group (scheduler-plugins
 * apis/scheduling/v1alpha1/types.go, PodGroupLabel). */
#define KARMADA_GANG_COSCHED_LABEL "scheduling.x-k8s.io/pod-group"
/* The Kubernetes Workload API's PodGroup in each version served (kubernetes/kubernetes
 * staging/src/k8s.io/api/scheduling/<version>/types.go) and the condition its scheduler sets
 * once the gang's pods are bound: 1.36's v1alpha2 PodGroupConditionTypeScheduled, renamed
 * PodGroupInitiallyScheduled in 1.37's v1beta1 (kubernetes/kubernetes#139743; v1alpha2 was
 * removed in 1.37). */
#define KARMADA_GANG_WL_API_VERSION "scheduling.k8s.io/v1beta1"
#define KARMADA_GANG_WL_API_VERSION_V1ALPHA2 "scheduling.k8s.io/v1alpha2"
#define KARMADA_GANG_WL_SCHEDULED "PodGroupInitiallyScheduled"
#define KARMADA_GANG_WL_SCHEDULED_V1ALPHA2 "PodGroupScheduled"
/* YuniKorn's gang annotations (yunikorn-k8shim pkg/common/constants). */
#define KARMADA_GANG_YK_APP_ID "yunikorn.apache.org/app-id"
#define KARMADA_GANG_YK_TASK_GROUP_NAME "yunikorn.apache.org/task-group-name"
#define KARMADA_GANG_YK_TASK_GROUPS "yunikorn.apache.org/task-groups"
#define KARMADA_GANG_YK_POLICY "yunikorn.apache.org/schedulingPolicyParameters"
#define KARMADA_GANG_YK_SCHEDULER "yunikorn"
/* The one task group muster writes per member: the member's share of the gang. */
#define KARMADA_GANG_YK_GROUP "muster"

/* "volcano", "coscheduling", "yunikorn", "none", "workload-api" (NULL for a value outside the
 * enum). */
const char *karmada_gang_dialect_name(enum karmada_gang_dialect d);

/* The dialect named s (exactly one of the names above) into *out: 0, or MUSTER_EINVAL. */
int karmada_gang_dialect_parse(const char *s, enum karmada_gang_dialect *out);

/* The dialect a Cluster's status.apiEnablements shows, in muster's order of preference:
 * Volcano (scheduling.volcano.sh/v1beta1 podgroups) first, as before dialects existed and
 * because Volcano also queues by the PodGroup's queue; then coscheduling
 * (scheduling.x-k8s.io/v1alpha1 podgroups), a scheduler installed on purpose; then the
 * Kubernetes Workload API (scheduling.k8s.io/v1beta1 or v1alpha2 podgroups, served with the
 * GenericWorkload gate by the member's own API server); else none. A Cluster that reports
 * no apiEnablements at all (not collected yet) reads as Volcano: it is not judged, as before.
 * YuniKorn has no CRD, so it is never detected: an operator sets it. */
enum karmada_gang_dialect karmada_gang_dialect_detect(json_object *cluster);

/* The Workload API version a Cluster's status.apiEnablements show it serves: v1beta1
 * (Kubernetes 1.37) when it lists scheduling.k8s.io/v1beta1 podgroups, else v1alpha2 (1.36) when
 * it lists scheduling.k8s.io/v1alpha2 podgroups, else v1beta1 (apiEnablements say nothing: the
 * current release, for an operator's workload-api override). */
enum karmada_gang_wl_version karmada_gang_wl_version_detect(json_object *cluster);

/* "scheduling.k8s.io/v1beta1" or "scheduling.k8s.io/v1alpha2" (NULL outside the enum), and the
 * PodGroup condition that version's scheduler sets True once the gang is bound. */
const char *karmada_gang_wl_api_version(enum karmada_gang_wl_version v);
const char *karmada_gang_wl_scheduled_condition(enum karmada_gang_wl_version v);

/* 1 when a member of dialect d gets a PodGroup Work (Volcano, coscheduling, Workload API). */
int karmada_gang_dialect_has_work(enum karmada_gang_dialect d);

/* 1 when a member of dialect d gangs the pods muster sends it (every dialect but none). */
int karmada_gang_dialect_gangs(enum karmada_gang_dialect d);

#endif
