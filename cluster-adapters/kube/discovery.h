/* API discovery: reads /api and /apis to map an apiVersion + kind to its REST resource. */
#ifndef MUSTER_KUBE_DISCOVERY_H
#define MUSTER_KUBE_DISCOVERY_H

#include "cluster-adapters/kube/client.h"

#include <stddef.h>

/* Caps on what discovery accepts from the server. */
#define KUBE_DISCOVERY_MAX_GROUP_VERSIONS 512
#define KUBE_DISCOVERY_MAX_RESOURCES 8192

struct kube_api_resource {
    char *group; /* "" for the core group */
    char *version;
    char *kind;
    char *resource; /* plural, e.g. "resourcebindings" */
    int namespaced;
    int has_status; /* a "<resource>/status" subresource exists */
};

/* Caller-allocated; fields are private. Holds no libuv handle. */
struct kube_discovery {
    struct kube_client *client;
    struct kube_api_resource *res; /* the table readers see */
    size_t n;
    struct kube_api_resource *next; /* being built by a refresh */
    size_t next_n, next_cap;
    int pending; /* requests of the running refresh */
    int err;     /* the first failure of the running refresh */
    int refreshing;
    void (*cb)(int err, void *ud);
    void *ud;
};

/* Prepares d to discover through client (which must outlive d). Returns 0. */
int kube_discovery_init(struct kube_discovery *d, struct kube_client *client);

/* Reads /api, /api/<v> for each core version, /apis, and /apis/<group>/<version> for every
 * version of every group, then replaces the table and runs cb(err, ud). Like client-go, a group
 * version that fails (an aggregated API that is down, say) is left out and its error is passed to
 * cb, but the rest of the table is still installed. Returns 0, MUSTER_EBUSY when a refresh is
 * already running, or the error of the first request (then cb never runs). */
int kube_discovery_refresh(struct kube_discovery *d, void (*cb)(int err, void *ud), void *ud);

/* The resource serving kind in api_version ("v1", "apps/v1", "work.karmada.io/v1alpha2"), or
 * NULL. Borrowed until the next refresh completes or kube_discovery_close. */
const struct kube_api_resource *kube_discovery_find(const struct kube_discovery *d,
                                                    const char *api_version, const char *kind);

/* Writes the REST path of an object (name non-NULL) or collection of kind into buf. ns is ignored
 * for cluster-scoped kinds. Returns 0, MUSTER_ENOENT for an unknown kind, or MUSTER_ENOSPC. */
int kube_discovery_path(const struct kube_discovery *d, const char *api_version, const char *kind,
                        const char *ns, const char *name, char *buf, size_t cap);

/* Frees the table. Returns MUSTER_EBUSY (and does nothing) while a refresh is running; close
 * from its callback or after it. */
int kube_discovery_close(struct kube_discovery *d);

#endif
