/* Every hub path muster uses for a Karmada object: a ResourceBinding and its status, a Work in
 * a member's execution namespace (karmada-es-<cluster>), the Works of an RB by label, and an
 * OverridePolicy. The dispatcher asks for these and never spells a Karmada group, version or
 * resource itself. Pure: names in, text out. */
#ifndef MUSTER_KARMADA_PATHS_H
#define MUSTER_KARMADA_PATHS_H

#include <stddef.h>

/* Karmada's execution namespace of a member cluster is this prefix and the cluster's name. */
#define KARMADA_PATH_EXECUTION_PREFIX "karmada-es-"
/* The RB's status subresource, for a kube_request's subresource (the RB path + "/status"). */
#define KARMADA_PATH_RB_STATUS "status"

/* Each writes a REST path into buf[0..cap) with a NUL and returns 0, MUSTER_EINVAL (a needed
 * name NULL or empty) or MUSTER_ENOSPC (cap too small; buf then holds no usable path). */

/* /apis/work.karmada.io/v1alpha2/namespaces/<ns>/resourcebindings/<name> */
int karmada_path_rb(char *buf, size_t cap, const char *ns, const char *name);

/* The same + "/status": where the RB's conditions are patched. */
int karmada_path_rb_status(char *buf, size_t cap, const char *ns, const char *name);

/* /apis/work.karmada.io/v1alpha1/namespaces/karmada-es-<cluster>/works[/<name>]: one Work, or
 * the collection of the member's Works when name is NULL. */
int karmada_path_work(char *buf, size_t cap, const char *cluster, const char *name);

/* /apis/work.karmada.io/v1alpha1/works: every Work of the hub, for a list by label selector. */
int karmada_path_works(char *buf, size_t cap);

/* The label selector that lists the Works Karmada rendered for one RB:
 * resourcebinding.karmada.io/permanent-id=<permanent_id>. */
int karmada_path_works_selector(char *buf, size_t cap, const char *permanent_id);

/* /apis/policy.karmada.io/v1alpha1/namespaces/<ns>/overridepolicies[/<name>]: one policy, or
 * the namespace's collection when name is NULL. */
int karmada_path_policy(char *buf, size_t cap, const char *ns, const char *name);

/* karmada-es-<cluster> into buf: a member's execution namespace (the key of its Works in an
 * informer). 0, MUSTER_EINVAL or MUSTER_ENOSPC. */
int karmada_path_execution_namespace(char *buf, size_t cap, const char *cluster);

/* The cluster whose execution namespace ns is (a pointer into ns), or NULL when ns is not one
 * (no karmada-es- prefix, or nothing after it). */
const char *karmada_path_execution_cluster(const char *ns);

#endif
