/* Karmada's NoExecute taint manager (private to the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_TAINT_H
#define MUSTER_SIM_TAINT_H

#include "cluster-adapters/sim/karmada_int.h"

/* With options.taint_eviction: evicts rb (as stored) from the first cluster of its
 * spec.clusters whose NoExecute taints its applied placement does not tolerate. */
void sim__taint_check_binding(struct sim_karmada *k, json_object *rb);

/* With options.taint_eviction: a Cluster event whose spec.taints changed to hold a NoExecute
 * taint evicts every RB scheduled there that does not tolerate it. */
void sim__taint_cluster_changed(struct sim_karmada *k, const struct sim_event *ev);

#endif
