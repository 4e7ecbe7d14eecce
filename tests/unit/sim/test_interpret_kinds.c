/* Tests for cluster-adapters/sim/interpret_kinds.c: issue 19's kinds in the simulated hub. The
 * detector gives their RBs no replicas or requirements, and components only under
 * MultiplePodTemplatesScheduling and only where a thirdparty customization of Karmada's
 * interprets them (PyTorchJob, RayCluster, RayJob: named and counted as Karmada's own vectors,
 * tests/fixtures/reference/examples); the member runs the pods each controller would. */
#include "karmada_fixture.h"

#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/interpret_kinds.h"

static const char yaml[] =
    "clusters:\n"
    "  - name: m\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"64\", pods: \"100\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec:\n"
    "      schedulerName: muster\n"
    "      resourceSelectors: [{apiVersion: ray.io/v1, kind: RayCluster},\n"
    "                          {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet}]\n";

/* case 1 of Karmada's RayCluster vectors, plus numOfHosts 2 on its worker group */
static const char raycluster[] =
    "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"metadata\":{\"name\":\"rc\"},"
    "\"spec\":{\"headGroupSpec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"h\","
    "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}},\"workerGroupSpecs\":[{\"groupName\":"
    "\"small-group\",\"replicas\":3,\"numOfHosts\":2,\"template\":{\"spec\":{\"containers\":[{"
    "\"name\":\"w\",\"resources\":{\"requests\":{\"cpu\":\"500m\"}}}]}}}]}}";

static const char jobset[] =
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"metadata\":{\"name\":"
    "\"js\"},\"spec\":{\"replicatedJobs\":[{\"name\":\"workers\",\"replicas\":2,\"template\":{"
    "\"spec\":{\"parallelism\":4,\"completions\":3,\"template\":{\"spec\":{\"containers\":[{"
    "\"name\":\"w\"}]}}}}},{\"name\":\"driver\",\"template\":{\"spec\":{\"template\":{\"spec\":{"
    "\"containers\":[{\"name\":\"d\"}]}}}}}]}}";

#define FX_RAYCLUSTER fx_res("ray.io", "v1", "rayclusters")
#define FX_JOBSET fx_res("jobset.x-k8s.io", "v1alpha2", "jobsets")

static void test_rb_gate(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_create(&f, FX_RAYCLUSTER, "team", raycluster), 0);
    CU_ASSERT_EQUAL(fx_create(&f, FX_JOBSET, "team", jobset), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "rc-raycluster", "spec|resource|kind"),
                           "RayCluster");
    static const char *const rbs[] = {"rc-raycluster", "js-jobset"};
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", rbs[i], "spec|components"), "");
        CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", rbs[i], "spec|replicas"), "");
        CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", rbs[i], "spec|replicaRequirements"),
                               "");
    }
    fx_stop(&f);

    struct sim_karmada_options on = {.multiple_pod_templates = 1};
    fx_start(&f, yaml, &on);
    CU_ASSERT_EQUAL(fx_create(&f, FX_RAYCLUSTER, "team", raycluster), 0);
    CU_ASSERT_EQUAL(fx_create(&f, FX_JOBSET, "team", jobset), 0);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_RB, "team", "rc-raycluster", "spec|components|0|name"), "ray-head");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_RB, "team", "rc-raycluster", "spec|components|1|name"), "small-group");
    /* Karmada's Lua counts replicas, not numOfHosts */
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_RB, "team", "rc-raycluster", "spec|components|1|replicas"), "3");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "rc-raycluster",
                                    "spec|components|1|replicaRequirements|resourceRequest|cpu"),
                           "500m");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "rc-raycluster", "spec|replicas"), "");
    /* no customization interprets a JobSet */
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "js-jobset", "spec|components"), "");
    fx_stop(&f);
}

/* The member's pods, as the controllers run them. */
static void test_pods(void)
{
    struct pod_set sets[16];
    json_object *o = json_tokener_parse(raycluster);
    CU_ASSERT_TRUE(sim__is_kind19(o));
    CU_ASSERT_EQUAL_FATAL(sim__workload_pods(o, sets, 16), 2);
    CU_ASSERT_EQUAL(sets[0].replicas, 1);
    CU_ASSERT_EQUAL(sets[1].replicas, 6); /* 3 replicas × numOfHosts 2 */
    json_object_put(o);
    o = json_tokener_parse(jobset);
    CU_ASSERT_EQUAL_FATAL(sim__workload_pods(o, sets, 16), 2);
    CU_ASSERT_EQUAL(sets[0].replicas, 6); /* 2 Jobs × min(parallelism 4, completions 3) */
    CU_ASSERT_EQUAL(sets[1].replicas, 1);
    CU_ASSERT_EQUAL(sim__workload_pods(o, sets, 1), 1);
    json_object_put(o);
    o = json_tokener_parse("{\"apiVersion\":\"jobset.x-k8s.io/v1alpha1\",\"kind\":\"JobSet\"}");
    CU_ASSERT_FALSE(sim__is_kind19(o));
    CU_ASSERT_EQUAL(sim__workload_pods(o, sets, 16), 0);
    json_object_put(o);
}

static CU_TestInfo tests[] = {
    {"RB: no replicas; components under the gate where Karmada interprets them", test_rb_gate},
    {"member pods as the controllers run them", test_pods},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/interpret_kinds", tests)
