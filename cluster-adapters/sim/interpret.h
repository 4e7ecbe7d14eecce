/* Karmada's built-in resource interpreters as the simulated hub needs them: per-replica
 * requests of a pod template, the Volcano Job components, the pod sets of a workload. (private to
 * the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_INTERPRET_H
#define MUSTER_SIM_INTERPRET_H

#include "cluster-adapters/sim/karmada_int.h"

int sim__is_workload(const struct sim_resource *r);
/* The pod sets of obj; k (may be NULL) looks up what a TrainJob's pods come from. */
size_t sim__workload_pods(struct sim_karmada *k, json_object *obj, struct pod_set *out, size_t max);

#endif
