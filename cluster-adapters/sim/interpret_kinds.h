/* Issue 19's kinds in the simulated hub (docs/sim.md): the pods each runs in a member, as its
 * controller runs them, and the components Karmada's thirdparty customizations give its RB under
 * MultiplePodTemplatesScheduling (PyTorchJob, RayCluster, RayJob; none for JobSet, LWS or the v1
 * MPIJob). Private to the simulator's Karmada (karmada_int.h). */
#ifndef MUSTER_SIM_INTERPRET_KINDS_H
#define MUSTER_SIM_INTERPRET_KINDS_H

#include "cluster-adapters/sim/karmada_int.h"

/* 1 when obj (apiVersion, kind) is one of issue 19's kinds. */
int sim__is_kind19(json_object *obj);

/* The pod sets obj runs (at most max); 0 when it is none of issue 19's kinds. A TrainJob's are
 * its runtime's, looked up in k's store (k NULL: none); their specs stay valid until the next
 * call with k. */
size_t sim__kind19_pods(struct sim_karmada *k, json_object *obj, struct pod_set *out, size_t max);

/* The metadata of the first pod template of a JobSet or LeaderWorkerSet that runs pods (a
 * JobSet's replicated job set to 0 in this member runs none), borrowed from obj; NULL for the
 * other kinds or when it has none. Where the member's scheduler looks for the pods' group
 * (docs/gangobj.md, "Split by groups": every running template of a split points at the
 * cluster's one PodGroup). */
json_object *sim__kind19_pod_meta(json_object *obj);

/* Karmada's spec.components for obj, a new array, or NULL when no customization of Karmada's
 * interprets its components. */
json_object *sim__kind19_components(json_object *obj);

/* Adds to st the status obj's controller reports, given whether every pod runs and whether it
 * finished (its scripted duration passed): a JobSet's Completed condition, a Kubeflow job's
 * Created, Running and Succeeded, a RayJob's jobDeploymentStatus and jobStatus, a RayCluster's
 * HeadPodReady and RayClusterProvisioned, a LeaderWorkerSet's replicas and readyReplicas. ts stamps
 * the conditions (may be NULL). 0 when obj is none of issue 19's kinds (st untouched). */
int sim__kind19_status(json_object *obj, json_object *st, int all_running, int done,
                       const char *ts);

/* Karmada's health of obj with status st: "Healthy" or "Unhealthy" as the kind's
 * healthInterpretation says (PyTorchJob, RayCluster, RayJob), "Healthy" for the kinds without
 * one (JobSet, LeaderWorkerSet, the v1 MPIJob: work_status_controller.go interpretHealth);
 * NULL when obj is none of issue 19's kinds. */
const char *sim__kind19_health(json_object *obj, json_object *st);

#endif
