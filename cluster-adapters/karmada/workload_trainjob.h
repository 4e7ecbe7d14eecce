/* Reading a Kubeflow Trainer TrainJob (trainer.kubeflow.org/v1alpha1; docs/workload.md,
 * "Kubeflow Trainer's TrainJob"). A TrainJob states no pods of its own: the Trainer controller
 * builds a JobSet from the (Cluster)TrainingRuntime named in spec.runtimeRef, with the
 * TrainJob's spec.trainer.numNodes and resourcesPerNode merged into the trainer's replicated
 * job. So the read looks the runtime up on the hub, through the caller's
 * struct karmada_workload_hub, and counts the pods that JobSet will run. Pure: json-c in, the
 * components of struct karmada_workload out. */
#ifndef MUSTER_KARMADA_WORKLOAD_TRAINJOB_H
#define MUSTER_KARMADA_WORKLOAD_TRAINJOB_H

#include "cluster-adapters/karmada/workload.h"

#include <json-c/json.h>

/* The runtime's group and the label the Trainer marks each replicated job's role with
 * (kubeflow/trainer pkg/constants/constants.go LabelTrainJobAncestor). */
#define KARMADA_TRAINJOB_GROUP "trainer.kubeflow.org"
#define KARMADA_TRAINJOB_ANCESTOR_LABEL "trainer.kubeflow.org/trainjob-ancestor-step"

/* For workload.c's read_components: looks the TrainJob's runtime up through hub (keeping a
 * reference in w->runtime) and fills w's components, one per replicated job of the runtime's
 * JobSet template, named as the job, with the pods the Trainer's JobSet runs and each pod's
 * effective request; the RB's spec.components (rb_spec), if any, pair by name. Returns 0, or a
 * negative MUSTER_* code with w's reason and message: REFUSED when the runtime is not on the
 * hub (the RB waits for it) or was not looked up, INVALID when a field is malformed. */
int karmada__workload_trainjob_read(struct karmada_workload *w, struct queue_resnames *names,
                                    json_object *rb_spec, json_object *tmpl,
                                    const struct karmada_workload_hub *hub);

#endif
