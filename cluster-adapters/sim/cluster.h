/* Karmada's cluster controller, the part that taints (private to the simulator's Karmada; see
 * karmada_int.h). */
#ifndef MUSTER_SIM_CLUSTER_H
#define MUSTER_SIM_CLUSTER_H

#include "cluster-adapters/sim/karmada_int.h"

#define TAINT_NOT_READY "cluster.karmada.io/not-ready"     /* TaintClusterNotReady */
#define TAINT_UNREACHABLE "cluster.karmada.io/unreachable" /* TaintClusterUnreachable */

/* taintClusterByCondition on a Cluster event (whoever wrote the condition: the member's status
 * reports, the health monitor, or a client patching /status): Ready False adds the
 * not-ready NoSchedule taint and drops the unreachable one, Unknown the other way round, True
 * drops both, no Ready condition adds not-ready. One write of spec.taints when they change. */
void sim__cluster_taint_by_condition(struct sim_karmada *k, const struct sim_event *ev);

#endif
