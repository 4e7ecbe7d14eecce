/* Karmada's binding controller: RBs rendered into Works (with OverridePolicies applied),
 * Works no longer wanted removed. (private to the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_BINDING_H
#define MUSTER_SIM_BINDING_H

#include "cluster-adapters/sim/karmada_int.h"

void sim__index_work(struct sim_karmada *k, const struct sim_event *ev);
void sim__prune_works(struct sim_karmada *k, const char *pid, json_object *keep);
void sim__sync_binding(struct sim_karmada *k, json_object *rb);
void sim__work_name(json_object *rb, char *buf, size_t cap);

/* The "namespace/name" keys of the Works labelled with permanent id pid (the label index), in a
 * new array *keys the caller frees with muster_free. Returns how many (0: none, *keys NULL). */
size_t sim__binding_work_keys(struct sim_karmada *k, const char *pid,
                              char (**keys)[2 * NAME_MAX_LEN]);

/* helper.ObtainBindingSpecExistingClusters: spec.clusters plus the clusters of graceful eviction
 * tasks not purged Directly, as a new JSON array (TargetCluster objects or names). */
json_object *sim__binding_existing_clusters(json_object *rb);

#endif
