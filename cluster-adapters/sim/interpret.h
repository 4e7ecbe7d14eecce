/* Karmada's built-in resource interpreters as the simulated hub needs them: per-replica
 * requests of a pod template, the Volcano Job components, the pod sets of a workload. (private to
 * the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_INTERPRET_H
#define MUSTER_SIM_INTERPRET_H

#include "cluster-adapters/sim/karmada_int.h"

int sim__is_workload(const struct sim_resource *r);
size_t sim__workload_pods(json_object *obj, struct pod_set *out, size_t max);

#endif
