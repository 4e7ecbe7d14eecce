/* Karmada's NoExecute taint manager (private to the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_TAINT_H
#define MUSTER_SIM_TAINT_H

#include "cluster-adapters/sim/karmada_int.h"

/* 1 when karmada-controller-manager would run the taint manager and let it evict: the Failover
 * feature gate and --enable-no-execute-taint-eviction. */
int sim__taint_manager_on(const struct sim_karmada *k);

/* An RB event (rb as stored): evicts rb from the first cluster of its spec.clusters whose
 * NoExecute taints its applied placement does not tolerate, or no longer tolerates. */
void sim__taint_check_binding(struct sim_karmada *k, json_object *rb);

/* A Cluster event whose spec.taints changed to hold a NoExecute taint: syncCluster, every RB
 * scheduled there that does not tolerate it is evicted. */
void sim__taint_cluster_changed(struct sim_karmada *k, const struct sim_event *ev);

/* Time passed (the hub's tick): syncCluster again for every cluster with a NoExecute taint, so
 * tolerations with tolerationSeconds run out (Karmada requeues the cluster every 10 s and each
 * binding for when its toleration ends). */
void sim__taint_tick(struct sim_karmada *k);

#endif
