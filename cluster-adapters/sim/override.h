/* Karmada's override manager and the binding controller's policy handlers (private to the
 * simulator's Karmada; see karmada_int.h). */
#ifndef MUSTER_SIM_OVERRIDE_H
#define MUSTER_SIM_OVERRIDE_H

#include "cluster-adapters/sim/karmada_int.h"

/* Applies, to *tmpl (replaced when patched), the plaintext overriders of every OverridePolicy
 * in ns that selects it and targets cluster, in name order, as the informer cache holds them;
 * each rule applied is appended to applied as {"policyName", "overriders"}. */
void sim__apply_overrides(struct sim_karmada *k, const char *ns, const char *cluster,
                          json_object **tmpl, json_object *applied);

/* An OverridePolicy event from the store: delivered to the cache, the index and the policy
 * handlers at once, or after options.override_lag_ms (sim_karmada_override_sync). */
void sim__override_event(struct sim_karmada *k, const struct sim_event *ev);

/* A sim_store_each callback: caches and indexes a policy stored before the watch began. */
void sim__override_seed(void *data, json_object *op);

/* Frees the cache, the pending events and the index. */
void sim__override_free(struct sim_karmada *k);

/* A sorted set of strings: add (0 or MUSTER_ENOMEM), remove, membership, free. */
int sim__keyset_add(struct keyset *ks, const char *key);
void sim__keyset_remove(struct keyset *ks, const char *key);
int sim__keyset_has(const struct keyset *ks, const char *key);
void sim__keyset_free(struct keyset *ks);

#endif
