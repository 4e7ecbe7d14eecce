/* The API resources the simulated hub serves: one static table, read by discovery and routing. */
#ifndef MUSTER_SIM_RESOURCES_H
#define MUSTER_SIM_RESOURCES_H

#include <stddef.h>
#include <stdint.h>

struct sim_resource {
    const char *group; /* "" for the core group */
    const char *version;
    const char *plural;
    const char *singular;
    const char *kind;
    const char *list_kind;
    int namespaced;
    int has_status;     /* a /status subresource exists: main writes keep status, status writes
                           keep everything else */
    int has_generation; /* metadata.generation is maintained */
    const char *short_names[3]; /* NULL-terminated */
    const char *categories[2];  /* NULL-terminated */
    int has_scale;              /* a /scale subresource (autoscaling/v1 Scale; scale.h) exists */
};

/* The number of resources and the i-th one (NULL when i is out of range). */
size_t sim_resource_count(void);
const struct sim_resource *sim_resource_at(size_t i);

/* The resource served at group/version/plural, or NULL. group is "" for the core API. Lengths are
 * explicit because callers pass slices of a request path. */
const struct sim_resource *sim_resource_find(const char *group, size_t glen, const char *version,
                                             size_t vlen, const char *plural, size_t plen);

/* The resource for apiVersion ("apps/v1", "v1") and kind, or NULL. */
const struct sim_resource *sim_resource_by_kind(const char *api_version, const char *kind);

/* The index of r in the table (r must come from this table). */
size_t sim_resource_index(const struct sim_resource *r);

/* Writes "group/version" (or "version" for core) into buf of cap bytes; returns 0 or
 * MUSTER_ENOSPC. */
int sim_resource_api_version(const struct sim_resource *r, char *buf, size_t cap);

/* A set of table rows (bit i: sim_resource_at(i)): what one API server serves. The hub serves
 * every row unless a CRD is left out (--no-podgroup-crd); a member serves what a plain
 * Kubernetes cluster with or without Volcano would (docs/sim.md, "Clusters"). */
typedef uint64_t sim_api_set;
#define SIM_API_ALL (~(sim_api_set)0)

/* 1 when s holds r. */
int sim_api_has(sim_api_set s, const struct sim_resource *r);

/* s without the rows of group whose version and plural match (a NULL one matches any). */
sim_api_set sim_api_without(sim_api_set s, const char *group, const char *version,
                            const char *plural);

#endif
