/* The member clusters: each one's nodes, the shares it runs (first fit, gangs all or nothing,
 * scripted durations), what it reports, and the Cluster object's status. (private to the
 * simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_MEMBER_H
#define MUSTER_SIM_MEMBER_H

#include "cluster-adapters/sim/karmada_int.h"

void sim__cluster_sync(struct sim_karmada *k, struct cluster *c);
void sim__deps_reset(struct cluster *c);
struct cluster *sim__find_cluster(struct sim_karmada *k, const char *name);

/* A member's status.apiEnablements for the APIs it serves, as Karmada's cluster status
 * controller writes them (getAPIEnablements). New reference. */
json_object *sim__api_enablements(sim_api_set api);
const char *sim__health_of(const struct unit *u);
void sim__mwork_free(struct mwork *mw);
json_object *sim__share_status(const struct unit *u, const char *ts_start, const char *ts_done);
int sim__str_cmp(const void *a, const void *b);

/* The gang of a Volcano Job as the member's Volcano makes it: spec.minAvailable, or when it is
 * unset (0) what Volcano's mutating webhook writes there (pkg/webhooks/admission/jobs/mutate/
 * mutate_job.go: mutateSpec defaults each task's minAvailable to minPartitions x partitionSize
 * when its partitionPolicy sets minPartitions (Volcano v1.14), else to its replicas, and
 * patchDefaultMinAvailable sums them). */
int64_t sim__vcjob_min_available(json_object *job);

/* A member object's key, "namespace/name/Kind/apiVersion", into buf. */
void sim__member_key(json_object *obj, char *buf, size_t cap);

/* The member object of c under key (borrowed), or NULL. */
json_object *sim__member_get(struct cluster *c, const char *key);

/* The status the member last reported for the object under key (borrowed), or NULL. */
json_object *sim__member_status(struct cluster *c, const char *key);

/* Creates or replaces (obj != NULL, borrowed) or removes (obj NULL) c's member object under key,
 * and syncs the member (deferred mode: marks it). A replaced object keeps its running share. */
void sim__member_apply(struct sim_karmada *k, struct cluster *c, const char *key, json_object *obj);

/* helper.GetManifestIndex: the index of the manifest of work with that apiVersion, kind,
 * namespace and name, or -1. */
int sim__manifest_index(json_object *work, const char *av, const char *kind, const char *ns,
                        const char *name);

#endif
