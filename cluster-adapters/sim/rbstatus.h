/* Karmada's ResourceBinding status controller: aggregatedStatus and FullyApplied from the
 * RB's Works. (private to the simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_RBSTATUS_H
#define MUSTER_SIM_RBSTATUS_H

#include "cluster-adapters/sim/karmada_int.h"

void sim__aggregate(struct sim_karmada *k, const char *cluster, json_object *work,
                    const struct unit *u);
void sim__set_fully_applied(struct sim_karmada *k, json_object *rb, json_object *status,
                            json_object *agg);

#endif
