/* Tests for cluster-adapters/sim/discovery.c and resources.c: the documents kubectl discovers
 * resources from, field by field as kube-apiserver serves them. */
#include "cluster-adapters/sim/discovery.h"
#include "cluster-adapters/sim/resources.h"
#include "testing.h"

#include <string.h>

static const char *js(json_object *o)
{
    return json_object_to_json_string_ext(o,
                                          JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void test_resource_list(void)
{
    json_object *l = sim_discovery_resource_list(SIM_API_ALL, "work.karmada.io", "v1alpha2");
    CU_ASSERT_STRING_EQUAL(
        js(l),
        "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"work.karmada.io/"
        "v1alpha2\",\"resources\":[{\"name\":\"resourcebindings\",\"singularName\":"
        "\"resourcebinding\",\"namespaced\":true,\"kind\":\"ResourceBinding\",\"verbs\":["
        "\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\",\"create\",\"update\","
        "\"watch\"],\"shortNames\":[\"rb\"],\"categories\":[\"karmada-io\"]},{\"name\":"
        "\"resourcebindings/status\",\"singularName\":\"\",\"namespaced\":true,\"kind\":"
        "\"ResourceBinding\",\"verbs\":[\"get\",\"patch\",\"update\"]},{\"name\":"
        "\"clusterresourcebindings\",\"singularName\":\"clusterresourcebinding\",\"namespaced\":"
        "false,\"kind\":\"ClusterResourceBinding\",\"verbs\":[\"delete\",\"deletecollection\","
        "\"get\",\"list\",\"patch\",\"create\",\"update\",\"watch\"],\"shortNames\":[\"crb\"],"
        "\"categories\":[\"karmada-io\"]},{\"name\":\"clusterresourcebindings/status\","
        "\"singularName\":\"\",\"namespaced\":false,\"kind\":\"ClusterResourceBinding\","
        "\"verbs\":[\"get\",\"patch\",\"update\"]}]}");
    json_object_put(l);
    /* The core group's list has no apiVersion field, as /api/v1 on the real server. */
    l = sim_discovery_resource_list(SIM_API_ALL, "", "v1");
    CU_ASSERT_PTR_NULL(json_object_object_get(l, "apiVersion"));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(l, "groupVersion")), "v1");
    json_object_put(l);
    /* PodGroups have no status subresource (Volcano's CRD says subresources: {}). */
    l = sim_discovery_resource_list(SIM_API_ALL, "scheduling.volcano.sh", "v1beta1");
    CU_ASSERT_PTR_NULL(strstr(js(l), "podgroups/status"));
    CU_ASSERT_PTR_NOT_NULL(strstr(js(l), "queues/status"));
    json_object_put(l);
    l = sim_discovery_resource_list(SIM_API_ALL, "nope.io", "v1");
    CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(l, "resources")), 0);
    json_object_put(l);
}

static void test_groups(void)
{
    json_object *g = sim_discovery_group(SIM_API_ALL, "work.karmada.io");
    CU_ASSERT_STRING_EQUAL(js(g), "{\"name\":\"work.karmada.io\",\"versions\":[{\"groupVersion\":"
                                  "\"work.karmada.io/v1alpha2\",\"version\":\"v1alpha2\"},{"
                                  "\"groupVersion\":\"work.karmada.io/v1alpha1\",\"version\":"
                                  "\"v1alpha1\"}],\"preferredVersion\":{\"groupVersion\":"
                                  "\"work.karmada.io/v1alpha2\",\"version\":\"v1alpha2\"}}");
    json_object_put(g);
    CU_ASSERT_PTR_NULL(sim_discovery_group(SIM_API_ALL, "nope.io"));
    json_object *list = sim_discovery_group_list(SIM_API_ALL);
    json_object *groups = json_object_object_get(list, "groups");
    char names[640] = "";
    for (size_t i = 0; i < json_object_array_length(groups); i++) {
        strncat(names,
                json_object_get_string(
                    json_object_object_get(json_object_array_get_idx(groups, i), "name")),
                sizeof(names) - strlen(names) - 2);
        strcat(names, " ");
    }
    CU_ASSERT_STRING_EQUAL(
        names, "apps batch rbac.authorization.k8s.io "
               "admissionregistration.k8s.io coordination.k8s.io "
               "scheduling.k8s.io "
               "cluster.karmada.io work.karmada.io policy.karmada.io "
               "batch.volcano.sh scheduling.volcano.sh topology.volcano.sh "
               "jobset.x-k8s.io leaderworkerset.x-k8s.io kubeflow.org ray.io trainer.kubeflow.org "
               "scheduling.x-k8s.io ");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(list, "kind")),
                           "APIGroupList");
    json_object_put(list);
}

static void test_openapi(void)
{
    json_object *root = sim_openapi_root(SIM_API_ALL);
    json_object *paths = json_object_object_get(root, "paths");
    CU_ASSERT_STRING_EQUAL(js(json_object_object_get(paths, "apis/work.karmada.io/v1alpha2")),
                           "{\"serverRelativeURL\":\"/openapi/v3/apis/work.karmada.io/v1alpha2?"
                           "hash=muster-sim-1\"}");
    CU_ASSERT_PTR_NOT_NULL(json_object_object_get(paths, "api/v1"));
    json_object_put(root);
    json_object *doc = sim_openapi_gv(SIM_API_ALL, "apis/work.karmada.io/v1alpha2");
    json_object *item = json_object_object_get(
        json_object_object_get(doc, "paths"),
        "/apis/work.karmada.io/v1alpha2/namespaces/{namespace}/resourcebindings/{name}");
    json_object *patch = json_object_object_get(item, "patch");
    /* kubectl looks for exactly these before sending fieldValidation=Strict. */
    CU_ASSERT_STRING_EQUAL(js(json_object_object_get(patch, "x-kubernetes-group-version-kind")),
                           "{\"group\":\"work.karmada.io\",\"kind\":\"ResourceBinding\","
                           "\"version\":\"v1alpha2\"}");
    CU_ASSERT_PTR_NOT_NULL(strstr(js(patch), "\"name\":\"fieldValidation\""));
    json_object_put(doc);
    CU_ASSERT_PTR_NULL(sim_openapi_gv(SIM_API_ALL, "apis/nope.io/v1"));
}

static void test_lookup(void)
{
    const struct sim_resource *r = sim_resource_by_kind("batch.volcano.sh/v1alpha1", "Job");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(r->plural, "jobs");
    CU_ASSERT_STRING_EQUAL(r->short_names[0], "vcjob");
    CU_ASSERT_PTR_EQUAL(sim_resource_by_kind("batch/v1", "Job"),
                        sim_resource_find("batch", 5, "v1", 2, "jobs", 4));
    CU_ASSERT_PTR_NULL(sim_resource_by_kind("v1", "Job"));
    char av[64];
    CU_ASSERT_EQUAL(sim_resource_api_version(sim_resource_by_kind("v1", "Pod"), av, sizeof(av)), 0);
    CU_ASSERT_STRING_EQUAL(av, "v1");
    CU_ASSERT(sim_resource_api_version(r, av, 4) < 0);
}

/* A karmada-apiserver without Volcano's PodGroup CRD (--no-podgroup-crd): podgroups are gone
 * from every document, queues (their own CRD) stay; with neither, the group is gone. */
static void test_without_crd(void)
{
    const struct sim_resource *pg =
        sim_resource_find("scheduling.volcano.sh", 21, "v1beta1", 7, "podgroups", 9);
    sim_api_set s = sim_api_without(SIM_API_ALL, "scheduling.volcano.sh", "v1beta1", "podgroups");
    CU_ASSERT(!sim_api_has(s, pg));
    CU_ASSERT(sim_api_has(s, sim_resource_by_kind("scheduling.volcano.sh/v1beta1", "Queue")));
    json_object *l = sim_discovery_resource_list(s, "scheduling.volcano.sh", "v1beta1");
    CU_ASSERT_PTR_NULL(strstr(js(l), "\"podgroups\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(js(l), "\"queues\""));
    json_object_put(l);
    json_object *doc = sim_openapi_gv(s, "apis/scheduling.volcano.sh/v1beta1");
    CU_ASSERT_PTR_NULL(strstr(js(doc), "podgroups"));
    json_object_put(doc);
    s = sim_api_without(s, "scheduling.volcano.sh", NULL, NULL);
    CU_ASSERT_PTR_NULL(sim_discovery_group(s, "scheduling.volcano.sh"));
    json_object *list = sim_discovery_group_list(s);
    CU_ASSERT_PTR_NULL(strstr(js(list), "scheduling.volcano.sh"));
    CU_ASSERT_PTR_NOT_NULL(strstr(js(list), "batch.volcano.sh"));
    json_object_put(list);
    json_object *root = sim_openapi_root(s);
    CU_ASSERT_PTR_NULL(strstr(js(root), "scheduling.volcano.sh"));
    json_object_put(root);
}

static CU_TestInfo tests[] = {
    {"APIResourceList with subresources", test_resource_list},
    {"APIGroup and APIGroupList", test_groups},
    {"OpenAPI v3 index and group-version documents", test_openapi},
    {"resource lookups", test_lookup},
    {"a resource left out as if its CRD were missing", test_without_crd},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/discovery", tests)
