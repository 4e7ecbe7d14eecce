/* Private sharing between gang.c, gang_split.c and gang_nettopo.c: the builders both use, so a Work, a policy
 * and an overrider are shaped in one place. Every builder takes gang.c's sticky failure flag
 * (*bad set on any failure; whatever was built is still returned for the caller's one release).
 * Not for use outside cluster-adapters/karmada/gang*.c. */
#ifndef MUSTER_KARMADA_GANG_INT_H
#define MUSTER_KARMADA_GANG_INT_H

#include "cluster-adapters/karmada/gang.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* A new apiVersion/kind object named name in ns with the labels and annotation every object
 * muster creates for in's RB carries; *meta points at its metadata. */
/* Writes the reason (printf-style, cut at cap; why NULL or cap 0: none) and returns
 * MUSTER_EINVAL: the one way the gang builders refuse an input. */
__attribute__((format(printf, 3, 4))) int karmada__why_not(char *why, size_t cap,
                                                           const char *fmt, ...);

json_object *karmada__gang_new_marked(const char *api_version, const char *kind, const char *name,
                                      const char *ns, const struct karmada_gang_input *in,
                                      json_object **meta, int *bad);

/* The tier name for share i's member (group 1: the groups' scope, else the share's), or NULL
 * when its member reads no tier names (net_topo[i] without bit 2) or none was stated by name:
 * what karmada_nettopo_write takes (gang_nettopo.c). */
const char *karmada__topo_name(const struct karmada_gang_input *in, uint32_t i, int group);

/* root, or NULL after releasing it when bad is set or root is NULL. */
json_object *karmada__gang_done(json_object *root, int bad);

/* Appends the plaintext overrider {path, operator: add, value} to list, taking value (NULL
 * value: failure). */
void karmada__gang_overrider(json_object *list, const char *path, json_object *value, int *bad);

/* Appends to list the overriders that put keys[0..n) = vals[0..n) into metadata.<field>
 * (annotations or labels) of the pod template pod, found at JSON pointer base in the template:
 * one key each when the map exists, else the whole map, else metadata {field: map}. */
void karmada__gang_meta_overriders_at(json_object *list, json_object *pod, const char *base,
                                      const char *field, const char *const *keys,
                                      const char *const *vals, size_t n, int *bad);

/* The OverridePolicy named name for in's template (labels, annotation, owner reference,
 * resourceSelectors) with an empty spec.overrideRules at *rules. */
json_object *karmada__gang_policy_new(const struct karmada_gang_input *in, const char *name,
                                      json_object **rules, int *bad);

#endif
