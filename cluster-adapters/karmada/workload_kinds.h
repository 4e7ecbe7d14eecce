/* Reading issue 19's workload kinds: JobSet, LeaderWorkerSet, Kubeflow PyTorchJob and MPIJob,
 * KubeRay RayCluster and RayJob (docs/workload.md, "Issue 19's kinds"). Each lists its pods as
 * several pod templates with counts; the template is read directly, because Karmada's detector
 * gives their RB no replicas or requirements (and components only with the
 * MultiplePodTemplatesScheduling gate, for the kinds a customization interprets). Pure: json-c in,
 * the components of struct karmada_workload out. */
#ifndef MUSTER_KARMADA_WORKLOAD_KINDS_H
#define MUSTER_KARMADA_WORKLOAD_KINDS_H

#include "cluster-adapters/karmada/workload.h"

#include <json-c/json.h>

/* The kind of apiVersion + kind among this module's, KARMADA_WORKLOAD_KIND_NONE otherwise. */
enum karmada_workload_kind karmada__workload_kinds_of(const char *api_version, const char *kind);

/* 1 when kind is one of this module's. */
int karmada__workload_kinds_handles(enum karmada_workload_kind kind);

/* The kind's name for messages ("JobSet", "LeaderWorkerSet", ...), NULL when not this module's. */
const char *karmada__workload_kinds_name(enum karmada_workload_kind kind);

/* The API resource (plural) the kind is served as, for a member's apiEnablements; NULL when not
 * this module's. */
const char *karmada__workload_kinds_resource(enum karmada_workload_kind kind);

/* For workload.c's read_components: fills w's components from tmpl, one per pod template, named
 * as Karmada's component interpreter names them, with the pods the member will run and each
 * pod's effective request; when the RB's spec (rb_spec) has spec.components (Karmada's
 * interpretation under MultiplePodTemplatesScheduling), they must pair with the template's by
 * count and name (else the binding is stale) and their requests count too (the larger of the
 * two per resource). Sets w->kind_min for a kind whose gang is less than the whole. Returns 0 or
 * a negative MUSTER_* code with w's reason and message. */
int karmada__workload_kinds_read(struct karmada_workload *w, struct queue_resnames *names,
                                 json_object *rb_spec, json_object *tmpl);

/* The pod spec whose priorityClassName stands for the workload's (the first pod template:
 * the JobSet's first replicated job, the leader, the master, the launcher, the Ray head), and
 * *where names it for messages. NULL when absent. */
json_object *karmada__workload_kinds_priority_pod(const struct karmada_workload *w,
                                                  json_object *tmpl, const char **where);

/* For workload_trainjob.c: a count at obj[key] (dflt when absent, else a non-negative int32,
 * at least 1 when positive); one component of replicas pods of podspec, checked and raised to
 * the pod's effective request; the RB's spec.components paired with w's, as for the kinds
 * above. Each returns 0 or a negative MUSTER_* code with w's reason and message. */
int karmada__workload_kinds_count(struct karmada_workload *w, json_object *obj, const char *key,
                                  int32_t dflt, int positive, const char *path, int32_t *out);
int karmada__workload_kinds_add(struct karmada_workload *w, struct queue_resnames *names,
                                const char *name, int64_t replicas, json_object *podspec,
                                const char *path);
int karmada__workload_kinds_pair(struct karmada_workload *w, struct queue_resnames *names,
                                 json_object *rb_spec);

/* What in a JobSet's spec (jobset.x-k8s.io/v1alpha2, spec of tmpl) a copy of it in each of
 * several clusters (split, 0), or a copy at fewer Jobs than it has (fewer, 1), would break, as
 * JobSet's controller runs each copy alone (kubernetes-sigs/jobset pkg/controllers/
 * success_policy.go numJobsExpectedToSucceed, jobset_controller.go executeSuccessPolicy;
 * pkg/webhooks/jobset_webhook.go validateCoordinator):
 *   - spec.coordinator: one pod of the whole JobSet; each copy would name its own, and a copy
 *     holding fewer Jobs of its replicated job than its jobIndex is refused at create;
 *   - successPolicy operator All with targetReplicatedJobs that leave out a replicated job
 *     with Jobs: a copy holding none of the targets' Jobs expects 0 and completes (and deletes
 *     its running Jobs) at once;
 *   - (split only) operator Any: the first Job to succeed ends the JobSet, which a copy cannot
 *     do for the others.
 * 1 with the reason in why, else 0. */
int karmada__jobset_copy_breaks(json_object *tmpl, int fewer, char *why, size_t cap);

/* Defined in workload.c, shared with this module. */
int karmada__workload_int32(json_object *v, int32_t *out);

/* A Volcano Job task's partitionPolicy (Volcano v1.14, volcano-sh/apis
 * pkg/apis/batch/v1alpha1/job.go PartitionPolicySpec): its pods in total partitions of size
 * pods each, every partition a gang of its own in the member (Volcano's job controller writes
 * them as the PodGroup's subGroupPolicy), min of them needed (0: unset). total 0: no policy. */
struct karmada__vcjob_partition {
    int32_t total, size, min;
};

/* Task i of a Volcano Job with replicas pods: its partitionPolicy checked as Volcano's admission
 * checks it (pkg/webhooks/admission/jobs/validate/admit_job.go validatePartitionPolicy: replicas
 * = totalPartitions x partitionSize; an explicit minAvailable equal to minPartitions x
 * partitionSize when minPartitions is set) into *part, and its minAvailable as Volcano's
 * mutating webhook defaults it (mutate_job.go: minPartitions x partitionSize when minPartitions
 * is set, else the task's replicas) into *min, at most replicas. 0, or MUSTER_EINVAL with the
 * reason in msg. */
int karmada__vcjob_task_min(json_object *task, size_t i, int32_t replicas,
                            struct karmada__vcjob_partition *part, int32_t *min, char *msg,
                            size_t cap);
int karmada__workload_raise_to_pod(struct karmada_workload *w, struct queue_resnames *names,
                                   json_object *podspec, const char *path,
                                   struct karmada_workload_component *c);

#endif
