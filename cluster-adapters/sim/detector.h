/* Karmada's resource detector: templates claimed by a PropagationPolicy get a ResourceBinding.
 * (private to the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_DETECTOR_H
#define MUSTER_SIM_DETECTOR_H

#include "cluster-adapters/sim/karmada_int.h"

void sim__detect(struct sim_karmada *k, json_object *obj);
void sim__forget_workload(struct sim_karmada *k, json_object *obj);
void sim__policy_changed(struct sim_karmada *k, json_object *policy);
int sim__selector_matches(json_object *sel, json_object *obj);

#endif
