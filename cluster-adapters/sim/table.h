/* Server-side printing: meta.k8s.io/v1 Table responses built from a resource's printer columns
 * (the CRDs' additionalPrinterColumns), which is what kubectl get asks for and prints. */
#ifndef MUSTER_SIM_TABLE_H
#define MUSTER_SIM_TABLE_H

#include <json-c/json.h>
#include <time.h>

struct sim_resource;

/* 1 when r has printer columns (resources without them are answered with plain lists, which
 * kubectl prints as NAME and AGE, as it would a CRD's default table). */
int sim_table_supported(const struct sim_resource *r);

/* A Table of the objects in items (borrowed), ages relative to now; list_meta (borrowed, may
 * be NULL) becomes the Table's metadata. Caller owns the result. */
json_object *sim_table_new(const struct sim_resource *r, json_object *items, json_object *list_meta,
                           time_t now);

/* The first value a simple JSONPath (".a.b", "[*]", "[N]", "[?(@.k==\"v\")]") selects in obj,
 * or NULL. Exposed for tests. */
json_object *sim_jsonpath_first(json_object *obj, const char *path);

/* Kubernetes' HumanDuration ("45s", "5m3s", "3h", "2d5h", "1y20d") into buf. */
void sim_human_duration(long long seconds, char *buf, size_t cap);

#endif
