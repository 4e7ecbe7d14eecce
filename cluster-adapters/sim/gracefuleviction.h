/* Karmada's graceful eviction controller (private to the simulator's Karmada; see
 * karmada_int.h). */
#ifndef MUSTER_SIM_GRACEFULEVICTION_H
#define MUSTER_SIM_GRACEFULEVICTION_H

#include "cluster-adapters/sim/karmada_int.h"

/* An RB event (any, status included, as the controller's predicate passes every update of an
 * RB with tasks): syncBinding on the RB as stored. */
void sim__graceful_eviction_event(struct sim_karmada *k, const struct sim_event *ev);

/* Time passed: syncBinding again for the RBs with tasks, so tasks time out. */
void sim__graceful_eviction_tick(struct sim_karmada *k);

#endif
