/* Karmada's execution controller (private to the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_EXECUTION_H
#define MUSTER_SIM_EXECUTION_H

#include "cluster-adapters/sim/karmada_int.h"

/* Reconcile of one Work of cluster c (work borrowed, as stored): a Work being deleted has its
 * managed member objects deleted and loses the execution finalizer (when c is Ready); a
 * dispatched Work of a Ready cluster has its manifests created or updated in the member (an
 * unmanaged existing object only under conflict resolution "overwrite") and its Applied
 * condition set. A Work deleted without the finalizer never comes here: its objects stay. */
void sim__execution_reconcile(struct sim_karmada *k, struct cluster *c, json_object *work);

/* Reconciles every Work of c again (after c turned Ready). */
void sim__execution_resync(struct sim_karmada *k, struct cluster *c);

/* c's member objects, each with the status its member reports, as a new JSON array. */
json_object *sim__execution_objects(struct cluster *c);

#endif
