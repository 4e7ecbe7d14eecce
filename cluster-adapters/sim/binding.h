/* Karmada's binding controller: RBs rendered into Works (with OverridePolicies applied),
 * Works no longer wanted removed. (private to the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_BINDING_H
#define MUSTER_SIM_BINDING_H

#include "cluster-adapters/sim/karmada_int.h"

void sim__index_override(struct sim_karmada *k, const struct sim_event *ev);
void sim__index_override_existing(void *data, json_object *op);
void sim__index_work(struct sim_karmada *k, const struct sim_event *ev);
void sim__keyset_free(struct keyset *ks);
void sim__overrides_changed(struct sim_karmada *k, const struct sim_event *ev);
void sim__prune_works(struct sim_karmada *k, const char *pid, json_object *keep);
void sim__sync_binding(struct sim_karmada *k, json_object *rb);
void sim__work_name(json_object *rb, char *buf, size_t cap);

#endif
