/* What muster reads from a ResourceBinding and its resource template (DESIGN.md, "What muster
 * reads from a workload"): kind, queue, gang size, gang placement, priority, requests, allowed
 * clusters, scheduler name, permanent id and suspension. Pure: json-c objects in, a struct out. */
#ifndef MUSTER_KARMADA_WORKLOAD_H
#define MUSTER_KARMADA_WORKLOAD_H

#include "queue/resource.h"
#include "queue/tree.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* Caps on what one binding may carry; past them the binding is refused as invalid, so a hostile
 * or broken object can neither grow the struct nor make a cluster check slow. */
#define KARMADA_WORKLOAD_COMPONENTS_MAX 32 /* spec.components entries (Volcano Job tasks) */
#define KARMADA_WORKLOAD_LIST_MAX 1024     /* entries of any list in the placement */
#define KARMADA_WORKLOAD_AFFINITIES_MAX 16 /* spec.placement.clusterAffinities groups */
#define KARMADA_WORKLOAD_NAME_MAX 253      /* names: priority class, scheduler, component */
#define KARMADA_WORKLOAD_LABEL_VALUE_MAX 63
#define KARMADA_WORKLOAD_MSG_MAX 320 /* the sentence for an RB condition message */

/* The annotations muster defines on a workload (template first, then the RB). */
#define KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION "scheduling.muster.io/min-member"
#define KARMADA_WORKLOAD_PLACEMENT_ANNOTATION "scheduling.muster.io/placement"
/* "true": partial admission, opt in: when the whole gang does not fit but its min-member does,
 * the minimum may be admitted and the gang grown towards its replicas (docs/workload.md). */
#define KARMADA_WORKLOAD_ELASTIC_ANNOTATION "scheduling.muster.io/elastic"
/* Cuts a divisible one-component workload into groups of N pods that placement never splits
 * between clusters (issue 20: a tensor-parallel shard). */
#define KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION "scheduling.muster.io/group-size"
#define KARMADA_WORKLOAD_PERMANENT_ID_LABEL "resourcebinding.karmada.io/permanent-id"
#define KARMADA_WORKLOAD_DEFAULT_SCHEDULER "default-scheduler"
/* The queue keys of DESIGN.md in order of precedence, as an X-macro: the read looks for them on
 * the template's and the binding's labels and annotations, workload_prune.c keeps them. */
#define KARMADA_WORKLOAD_QUEUE_KEYS(X)                                                             \
    X("scheduling.volcano.sh/queue-name")                                                          \
    X("volcano.sh/queue-name")                                                                     \
    X(KARMADA_WORKLOAD_KUEUE_QUEUE_KEY)                                                            \
    X(KARMADA_WORKLOAD_YUNIKORN_QUEUE_KEY)
/* YuniKorn's queue is a dotted path in its tree (root.org.team), which muster resolves in its
 * own tree (dispatcher/controller/tenancy.c). */
#define KARMADA_WORKLOAD_YUNIKORN_QUEUE_KEY "yunikorn.apache.org/queue"
/* Kueue's queue name is a LocalQueue of the workload's namespace, which muster maps to one of
 * its queues (a queue's localQueues, dispatcher/controller/tenancy.c). */
#define KARMADA_WORKLOAD_KUEUE_QUEUE_KEY "kueue.x-k8s.io/queue-name"

enum karmada_workload_kind {
    KARMADA_WORKLOAD_KIND_NONE,        /* not a kind muster handles: leave the RB alone */
    KARMADA_WORKLOAD_KIND_VCJOB,       /* batch.volcano.sh/v1alpha1 Job */
    KARMADA_WORKLOAD_KIND_JOB,         /* batch/v1 Job */
    KARMADA_WORKLOAD_KIND_DEPLOYMENT,  /* apps/v1 Deployment */
    KARMADA_WORKLOAD_KIND_POD,         /* v1 Pod */
    KARMADA_WORKLOAD_KIND_STATEFULSET, /* apps/v1 StatefulSet (appended: the ledger keeps kinds) */
    /* Issue 19's kinds, read from their templates by workload_kinds.c; each goes whole to one
     * cluster (Karmada has no replica reviser for any of them). */
    KARMADA_WORKLOAD_KIND_JOBSET,     /* jobset.x-k8s.io/v1alpha2 JobSet */
    KARMADA_WORKLOAD_KIND_LWS,        /* leaderworkerset.x-k8s.io/v1 LeaderWorkerSet */
    KARMADA_WORKLOAD_KIND_PYTORCHJOB, /* kubeflow.org/v1 PyTorchJob */
    KARMADA_WORKLOAD_KIND_MPIJOB,     /* kubeflow.org/v1 MPIJob */
    KARMADA_WORKLOAD_KIND_RAYCLUSTER, /* ray.io/v1 RayCluster */
    KARMADA_WORKLOAD_KIND_RAYJOB,     /* ray.io/v1 RayJob */
    /* trainer.kubeflow.org/v1alpha1 TrainJob: its pods come from the (Cluster)TrainingRuntime
     * it names, looked up on the hub (workload_trainjob.c) */
    KARMADA_WORKLOAD_KIND_TRAINJOB,
};

/* The keys of other gang dialects read from the pod metadata (the pod template's, a Pod's own),
 * docs/workload.md "Gang dialects". workload_prune.c keeps them. */
#define KARMADA_WORKLOAD_YK_TASK_GROUPS "yunikorn.apache.org/task-groups"
#define KARMADA_WORKLOAD_YK_TASK_GROUP_NAME "yunikorn.apache.org/task-group-name"
#define KARMADA_WORKLOAD_YK_POLICY "yunikorn.apache.org/schedulingPolicyParameters"
#define KARMADA_WORKLOAD_KUEUE_GROUP_NAME "kueue.x-k8s.io/pod-group-name"         /* label */
#define KARMADA_WORKLOAD_KUEUE_GROUP_TOTAL "kueue.x-k8s.io/pod-group-total-count" /* annotation */
#define KARMADA_WORKLOAD_COSCHED_GROUP "scheduling.x-k8s.io/pod-group"            /* label */
#define KARMADA_WORKLOAD_VOLCANO_GROUP "scheduling.k8s.io/group-name"             /* annotation */
/* The pod spec field naming a Workload API PodGroup (Kubernetes 1.36 core/v1
 * PodSpec.SchedulingGroup, PodSchedulingGroup.PodGroupName; feature gate GenericWorkload). */
#define KARMADA_WORKLOAD_SCHEDULING_GROUP "schedulingGroup"
#define KARMADA_WORKLOAD_POD_META_KEYS(X)                                                          \
    X(KARMADA_WORKLOAD_YK_TASK_GROUPS)                                                             \
    X(KARMADA_WORKLOAD_YK_TASK_GROUP_NAME)                                                         \
    X(KARMADA_WORKLOAD_YK_POLICY)                                                                  \
    X(KARMADA_WORKLOAD_KUEUE_GROUP_NAME)                                                           \
    X(KARMADA_WORKLOAD_KUEUE_GROUP_TOTAL)                                                          \
    X(KARMADA_WORKLOAD_COSCHED_GROUP)                                                              \
    X(KARMADA_WORKLOAD_VOLCANO_GROUP)
#define KARMADA_WORKLOAD_TASK_GROUPS_MAX 32     /* entries of yunikorn.apache.org/task-groups */
#define KARMADA_WORKLOAD_DIALECT_TEXT_MAX 16384 /* bytes of a JSON or parameter annotation */

/* Which dialect named a gang or a group on the pods, beside muster's own annotation and a
 * Volcano Job's minAvailable (both KARMADA_WORKLOAD_DIALECT_NONE). */
enum karmada_workload_dialect {
    KARMADA_WORKLOAD_DIALECT_NONE,
    KARMADA_WORKLOAD_DIALECT_YUNIKORN,     /* task groups: min member = Σ minMember */
    KARMADA_WORKLOAD_DIALECT_KUEUE,        /* pod group name + total count (issue 20) */
    KARMADA_WORKLOAD_DIALECT_COSCHEDULING, /* a scheduler-plugins PodGroup named by label */
    KARMADA_WORKLOAD_DIALECT_VOLCANO,      /* a Volcano PodGroup named by group-name */
    /* the Kubernetes Workload API (scheduling.k8s.io/v1beta1 in 1.37, v1alpha2 in 1.36): a
     * PodGroup named by the pod spec's schedulingGroup.podGroupName */
    KARMADA_WORKLOAD_DIALECT_WORKLOAD_API,
};

enum karmada_workload_placement {
    KARMADA_WORKLOAD_SINGLE_CLUSTER, /* every replica in one cluster (the default) */
    KARMADA_WORKLOAD_SPREAD,         /* replicas divided over clusters, all or nothing */
};

/* Why a read failed, beside the MUSTER_* code: what the caller does with the RB. */
enum karmada_workload_reason {
    KARMADA_WORKLOAD_OK,
    KARMADA_WORKLOAD_UNSUPPORTED, /* a kind muster does not handle: the webhook and watch skip it */
    KARMADA_WORKLOAD_INVALID, /* a value is malformed or out of range: it waits with the message */
    KARMADA_WORKLOAD_REFUSED, /* well formed, but asks for what muster will not do (spread
                              Volcano Job, spread without Divided): it waits with the message */
};

enum karmada_workload_priority_from {
    KARMADA_WORKLOAD_PRIORITY_DEFAULT, /* neither below: priority 0 */
    KARMADA_WORKLOAD_PRIORITY_RB,      /* spec.schedulePriority.priority, in priority */
    KARMADA_WORKLOAD_PRIORITY_CLASS,   /* a PriorityClass name in priority_class, for the caller to
                                       resolve on the hub (priority stays 0 until it does) */
};

/* One pod shape of the gang: replicas pods each requesting request. */
struct karmada_workload_component {
    char name[KARMADA_WORKLOAD_NAME_MAX + 1]; /* "" for a single-template workload */
    int32_t replicas;
    struct queue_resvec request; /* per replica; ids in the caller's queue_resnames */
};

/* The result of one read. The caller owns the struct: _init once, read as often as needed
 * (each read overwrites the last and reuses the memory _init reserved), _close once. */
struct karmada_workload {
    enum karmada_workload_reason reason;
    char message[KARMADA_WORKLOAD_MSG_MAX]; /* on failure: a sentence fit for a condition */

    enum karmada_workload_kind kind;
    char queue[QUEUE_NAME_MAX + 1];
    int queue_explicit;       /* 0 when nothing named a queue and queue is "default" */
    const char *queue_source; /* where the name came from, static: "template label
                                 volcano.sh/queue-name", "spec.queue", "default", ... */

    int32_t replicas;              /* the whole gang: sum of the components' replicas */
    int32_t min_member;            /* pods that must run for the gang to count as started */
    const char *min_member_source; /* static: "annotation ...", "spec.minAvailable", "replicas" */
    int elastic; /* 1: the elastic annotation says "true" and min_member < replicas, so the gang
                    may be admitted at min_member and grown; 0 otherwise */
    /* group-size: the pods of one group, which go to one cluster together; 1 (the default):
     * no groups. The replicas are a whole number of groups. */
    int32_t group_size;
    enum karmada_workload_placement placement;
    /* The gang size the kind itself implies (workload_kinds.c: a LeaderWorkerSet's group size),
     * 0 when it has none; read after muster's annotation. */
    int32_t kind_min;
    const char *kind_min_source; /* static */

    /* The gang as another dialect states it on the pods (docs/workload.md, "Gang dialects"):
     * every dialect present is validated; dialect is the first in the order YuniKorn, Kueue,
     * coscheduling, Volcano PodGroup. group_name is the Kueue, coscheduling or Volcano group
     * the pods name (the last two live on the hub: see group_found), group_total the
     * Kueue total count (0: none), task_groups / task_group_min the YuniKorn task groups and
     * their Σ minMember, task_group the pod's task-group-name; gang_timeout_s YuniKorn's
     * placeholderTimeoutInSeconds (0: unset), gang_soft 1 for gangSchedulingStyle Soft. */
    enum karmada_workload_dialect dialect;
    char group_name[KARMADA_WORKLOAD_NAME_MAX + 1];
    int32_t group_total;
    uint32_t task_groups;
    int32_t task_group_min;
    char task_group[KARMADA_WORKLOAD_NAME_MAX + 1];
    int32_t gang_timeout_s;
    int gang_soft;
    /* The hub's PodGroup that group_name names, for the coscheduling and Volcano dialects, when
     * read through karmada_workload_read_hub (workload_dialects.c): group_found 1 when read, 0
     * when the hub serves the kind and has no such PodGroup (coscheduling only: a Volcano read
     * waits for its PodGroup), -1 when not looked up; group_min its spec.minMember (0: unset);
     * group_queue and group_priority_class Volcano's spec.queue (its default "default" reads as
     * unset) and spec.priorityClassName, "" when unset. A coscheduling PodGroup's
     * scheduleTimeoutSeconds goes to gang_timeout_s. */
    int group_found;
    int32_t group_min;
    char group_queue[QUEUE_NAME_MAX + 1];
    char group_priority_class[KARMADA_WORKLOAD_NAME_MAX + 1];

    enum karmada_workload_priority_from priority_from;
    int32_t priority;
    char priority_class[KARMADA_WORKLOAD_NAME_MAX + 1];

    uint32_t ncomponents;
    struct karmada_workload_component components[KARMADA_WORKLOAD_COMPONENTS_MAX];
    /* Σ replicas × request over the components: the whole gang, what the queue admits. */
    struct queue_resvec gang;

    char
        scheduler_name[KARMADA_WORKLOAD_NAME_MAX + 1]; /* "" in the RB reads as default-scheduler */
    char
        permanent_id[KARMADA_WORKLOAD_LABEL_VALUE_MAX + 1]; /* "" until Karmada's webhook sets it */

    /* spec.suspension as found: -1 absent, 0 false, 1 true. suspension holds a reference to the
     * RB's object (NULL when absent) so callers can copy dispatchingOnClusters when they merge. */
    int suspend_scheduling;
    int suspend_dispatching;
    json_object *suspension;

    /* References into the RB, validated by the read, for karmada_workload_allows_cluster. */
    json_object *affinity;    /* spec.placement.clusterAffinity or NULL */
    json_object *affinities;  /* spec.placement.clusterAffinities or NULL */
    json_object *tolerations; /* spec.placement.clusterTolerations or NULL */
    /* A TrainJob's (Cluster)TrainingRuntime as looked up on the hub, a reference kept until the
     * next read or _close (its first replicated job's pods name the priority class) */
    json_object *runtime;

    /* Reserved by _init for the template's pod requests (a container's requests and limits, the
     * pod's sum), so a read allocates nothing. */
    struct queue_resvec scratch[3];
};

/* Prepares w for reads, reserving every resource vector at QUEUE_REQUEST_RES_MAX entries so
 * reads never allocate. Returns 0 or MUSTER_ENOMEM (w is then safe to _close). */
int karmada_workload_init(struct karmada_workload *w);

/* Frees what w owns and drops its references into the last RB read. Safe on a zeroed struct and
 * after a failed _init. */
void karmada_workload_close(struct karmada_workload *w);

/* The kind of the template an RB binds (spec.resource apiVersion and kind), without validating
 * anything else: lets the webhook decide cheaply whether the RB is muster's to hold. */
enum karmada_workload_kind karmada_workload_kind_of(json_object *rb);

/* For issue 19's kinds (JobSet, LeaderWorkerSet, PyTorchJob, MPIJob, RayCluster, RayJob,
 * TrainJob): the API a member must serve for the kind's Work to apply there (Karmada's
 * APIEnablement plugin checks it; muster's assign mode bypasses that plugin), as a group/version
 * and a resource, and a bit of its own (KARMADA_WORKLOAD_KIND_API_BIT) for a per-cluster mask.
 * Returns 0, or MUSTER_ENOENT for the other kinds. */
int karmada_workload_kind_api(enum karmada_workload_kind kind, const char **group_version,
                              const char **resource);
#define KARMADA_WORKLOAD_KIND_API_BIT(kind)                                                        \
    ((kind) >= KARMADA_WORKLOAD_KIND_JOBSET && (kind) <= KARMADA_WORKLOAD_KIND_TRAINJOB            \
         ? 1u << ((kind)-KARMADA_WORKLOAD_KIND_JOBSET)                                             \
         : 0u)

/* The kind's name for messages: "Volcano Job", "Job", "Deployment", "Pod", "StatefulSet",
 * "unhandled kind". */
const char *karmada_workload_kind_name(enum karmada_workload_kind kind);

/* Sets w's reason and its message (a sentence fit for a condition) and returns code: how the
 * readers of workload.c and workload_clusters.c fail. */
__attribute__((format(printf, 4, 5))) int karmada_workload_fail(struct karmada_workload *w,
                                                                enum karmada_workload_reason reason,
                                                                int code, const char *fmt, ...);

/* Reads rb (a work.karmada.io/v1alpha2 ResourceBinding or ClusterResourceBinding) and tmpl (the
 * resource template spec.resource names) into w; both are borrowed, and w keeps references to
 * parts of rb until the next read or _close. Resource names are interned in names (the queue
 * tree's table), which is the only thing a read may allocate.
 * Returns 0 with w->reason KARMADA_WORKLOAD_OK, or on failure a negative code with w->reason and a
 * sentence in w->message that names the field and what is wrong:
 *   MUSTER_EINVAL  reason UNSUPPORTED (kind not handled), INVALID or REFUSED;
 *   MUSTER_ERANGE  reason INVALID: replicas or the gang request overflow;
 *   MUSTER_ELIMIT  reason INVALID: over a KARMADA_WORKLOAD_* cap or too many resource names;
 *   MUSTER_ENOMEM  interning a resource name failed.
 * After a failure only reason, message and kind are meaningful. */
int karmada_workload_read(struct karmada_workload *w, struct queue_resnames *names, json_object *rb,
                          json_object *tmpl);

/* How a read finds the PodGroup the pods name on the hub (docs/workload.md, "Gang dialects"):
 * podgroup returns the PodGroup of dialect d (KARMADA_WORKLOAD_DIALECT_COSCHEDULING: a
 * scheduling.x-k8s.io/v1alpha1 PodGroup; _VOLCANO: scheduling.volcano.sh/v1beta1;
 * _WORKLOAD_API: scheduling.k8s.io/v1beta1 or v1alpha2, whichever the hub serves: the spec
 * read is the same in both) named name in
 * namespace ns, borrowed, or NULL when there is none; it sets *served to 0 when the hub does
 * not serve that kind at all (the CRD is not installed), 1 otherwise. */
struct karmada_workload_hub {
    json_object *(*podgroup)(void *ud, enum karmada_workload_dialect d, const char *ns,
                             const char *name, int *served);
    void *ud;
    /* A TrainJob's runtime (docs/workload.md, "Kubeflow Trainer's TrainJob"): the
     * trainer.kubeflow.org/v1alpha1 ClusterTrainingRuntime (cluster_scoped 1, ns NULL) or the
     * TrainingRuntime in ns named name, borrowed, or NULL when there is none; *served as for
     * podgroup. NULL: no runtime is looked up, and a TrainJob cannot be read. */
    json_object *(*runtime)(void *ud, int cluster_scoped, const char *ns, const char *name,
                            int *served);
    /* The name of the PodGroup muster itself makes in each member for this RB (muster-<RB
     * name>, gang.h), or NULL. Pods naming it name muster's own group, not one on the hub: it is
     * not looked up (docs/gangobj.md, "A template that names its PodGroup"). */
    const char *own_group;
};

/* karmada_workload_read, and the PodGroup the pods name looked up through hub (NULL: not looked
 * up, as karmada_workload_read does). Beside karmada_workload_read's failures: a Volcano or
 * Workload API PodGroup that the hub serves but does not hold fails with reason REFUSED (the RB
 * waits with a sentence naming it, as Volcano's pods wait for theirs); a PodGroup whose fields are
 * malformed, or whose minMember is above the replicas, with INVALID. */
int karmada_workload_read_hub(struct karmada_workload *w, struct queue_resnames *names,
                              json_object *rb, json_object *tmpl,
                              const struct karmada_workload_hub *hub);

/* 1 when w's scheduler name is scheduler (muster's --scheduler-name): assign mode; 0: resume. */
int karmada_workload_assigns(const struct karmada_workload *w, const char *scheduler);

/* The RB condition reason for a failed read: "Unschedulable" for INVALID and REFUSED, NULL for
 * OK and UNSUPPORTED (no condition is written on an RB muster leaves alone). */
const char *karmada_workload_condition_reason(enum karmada_workload_reason reason);

/* s[0..n) as a whole decimal number, no sign, at most INT32_MAX, into *out: 0, or -1 (atoi
 * would take "4x" and "-1"). Every count muster reads from an annotation goes through it. */
int karmada_workload_parse_count(const char *s, size_t n, int32_t *out);

#endif
