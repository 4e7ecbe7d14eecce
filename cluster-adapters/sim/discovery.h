/* Discovery and OpenAPI documents as kube-apiserver serves them, built from the resource
 * table: /api/v1, /apis, /apis/G, /apis/G/V, /openapi/v3 and /openapi/v3/<gv path>. */
#ifndef MUSTER_SIM_DISCOVERY_H
#define MUSTER_SIM_DISCOVERY_H

#include "cluster-adapters/sim/resources.h"

#include <json-c/json.h>

/* Each returns a new object owned by the caller, or NULL when nothing is served there. served
 * is the set of table rows the server serves (SIM_API_ALL: all). */

/* APIResourceList for group ("" for core) and version, with the /status subresources; its
 * "resources" array is empty when the group-version is not served. */
json_object *sim_discovery_resource_list(sim_api_set served, const char *group,
                                         const char *version);

/* The APIGroup entry for group (without kind/apiVersion), versions in table order, which puts
 * the preferred version first; NULL when the group is not served. */
json_object *sim_discovery_group(sim_api_set served, const char *group);

/* APIGroupList of every non-core group. */
json_object *sim_discovery_group_list(sim_api_set served);

/* The OpenAPI v3 root index: {"paths": {"apis/G/V": {"serverRelativeURL": ...}}}. */
json_object *sim_openapi_root(sim_api_set served);

/* The OpenAPI v3 document of one group-version (gv_path is "api/v1" or "apis/G/V"), or NULL.
 * It declares each resource's operations with their x-kubernetes-group-version-kind and the
 * fieldValidation parameter, which is what kubectl looks for before it sends objects. */
json_object *sim_openapi_gv(sim_api_set served, const char *gv_path);

#endif
