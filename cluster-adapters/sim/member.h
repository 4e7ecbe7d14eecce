/* The member clusters: each one's nodes, the shares it runs (first fit, gangs all or nothing,
 * scripted durations), what it reports, and the Cluster object's status. (private to the
 * simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_MEMBER_H
#define MUSTER_SIM_MEMBER_H

#include "cluster-adapters/sim/karmada_int.h"

void sim__cluster_sync(struct sim_karmada *k, struct cluster *c);
void sim__deps_reset(struct cluster *c);
struct cluster *sim__find_cluster(struct sim_karmada *k, const char *name);
const char *sim__health_of(const struct unit *u);
int sim__mirror_work(struct cluster *c, const struct sim_event *ev);
void sim__mwork_free(struct mwork *mw);
json_object *sim__share_status(const struct unit *u, const char *ts_start);
int sim__str_cmp(const void *a, const void *b);

#endif
