/* Karmada's ResourceBinding status controller (private to the simulator's Karmada; see
 * karmada_int.h). */
#ifndef MUSTER_SIM_RBSTATUS_H
#define MUSTER_SIM_RBSTATUS_H

#include "cluster-adapters/sim/karmada_int.h"

/* Reconcile of the RB ns/name: rebuilds status.aggregatedStatus and the FullyApplied condition
 * from every Work labelled with its permanent id, and writes them when they changed. Does
 * nothing for an RB being deleted, and nothing at all when one of those Works lacks the RB's
 * own manifest (Karmada's abort). */
void sim__aggregate_binding(struct sim_karmada *k, const char *ns, const char *name);

/* 1 when an RB event passes the controller's predicate (scheduled: status.lastScheduledTime;
 * created, or its spec.resource.resourceVersion changed). Work status changes trigger
 * sim__aggregate_binding regardless. */
int sim__rbstatus_wants(const struct sim_event *ev);

#endif
