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
        CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", rbs[i], "spec|replicaRequirements"), "");
    }
    fx_stop(&f);

    struct sim_karmada_options on = {.multiple_pod_templates = 1};
    fx_start(&f, yaml, &on);
    CU_ASSERT_EQUAL(fx_create(&f, FX_RAYCLUSTER, "team", raycluster), 0);
    CU_ASSERT_EQUAL(fx_create(&f, FX_JOBSET, "team", jobset), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "rc-raycluster", "spec|components|0|name"),
                           "ray-head");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "rc-raycluster", "spec|components|1|name"),
                           "small-group");
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
    CU_ASSERT_EQUAL_FATAL(sim__workload_pods(NULL, o, sets, 16), 2);
    CU_ASSERT_EQUAL(sets[0].replicas, 1);
    CU_ASSERT_EQUAL(sets[1].replicas, 6); /* 3 replicas × numOfHosts 2 */
    json_object_put(o);
    o = json_tokener_parse(jobset);
    CU_ASSERT_EQUAL_FATAL(sim__workload_pods(NULL, o, sets, 16), 2);
    CU_ASSERT_EQUAL(sets[0].replicas, 6); /* 2 Jobs × min(parallelism 4, completions 3) */
    CU_ASSERT_EQUAL(sets[1].replicas, 1);
    CU_ASSERT_EQUAL(sim__workload_pods(NULL, o, sets, 1), 1);
    json_object_put(o);
    o = json_tokener_parse("{\"apiVersion\":\"jobset.x-k8s.io/v1alpha1\",\"kind\":\"JobSet\"}");
    CU_ASSERT_FALSE(sim__is_kind19(o));
    CU_ASSERT_EQUAL(sim__workload_pods(NULL, o, sets, 16), 0);
    json_object_put(o);
}

/* Where the member's scheduler reads the pods' group: the first pod template that runs pods (a
 * split JobSet's replicated job set to 0 runs none), a LeaderWorkerSet's leader template (its
 * worker template when it has none). */
static void test_pod_meta(void)
{
    json_object *o = json_tokener_parse(
        "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"spec\":{"
        "\"replicatedJobs\":[{\"name\":\"a\",\"replicas\":0,\"template\":{\"spec\":{\"template\":"
        "{\"metadata\":{\"labels\":{\"x\":\"a\"}},\"spec\":{}}}}},{\"name\":\"b\",\"template\":{"
        "\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"x\":\"b\"}},\"spec\":{}}}}}]}}");
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string(sim__kind19_pod_meta(o)),
                           "{ \"labels\": { \"x\": \"b\" } }");
    json_object_put(o);
    o = json_tokener_parse(
        "{\"apiVersion\":\"leaderworkerset.x-k8s.io/v1\",\"kind\":\"LeaderWorkerSet\",\"spec\":{"
        "\"replicas\":2,\"leaderWorkerTemplate\":{\"size\":3,\"leaderTemplate\":{\"metadata\":{"
        "\"labels\":{\"x\":\"l\"}},\"spec\":{}},\"workerTemplate\":{\"metadata\":{\"labels\":{"
        "\"x\":\"w\"}},\"spec\":{}}}}}");
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string(sim__kind19_pod_meta(o)),
                           "{ \"labels\": { \"x\": \"l\" } }");
    json_object_object_del(json_object_object_get(json_object_object_get(o, "spec"),
                                                  "leaderWorkerTemplate"),
                           "leaderTemplate");
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string(sim__kind19_pod_meta(o)),
                           "{ \"labels\": { \"x\": \"w\" } }");
    json_object_put(o);
    o = json_tokener_parse(raycluster);
    CU_ASSERT_PTR_NULL(sim__kind19_pod_meta(o));
    json_object_put(o);
}

/* The status each controller reports, and Karmada's health of it. */
static void test_status_health(void)
{
    static const struct {
        const char *obj;
        int all_running, done;
        const char *health, *has;
    } cases[] = {
        /* no health interpreter: healthy whatever it reports */
        {"{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\"}", 0, 0, "Healthy",
         NULL},
        {"{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\"}", 0, 1, "Healthy",
         "\"type\":\"Completed\""},
        {"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"MPIJob\"}", 0, 1, "Healthy",
         "\"type\":\"Succeeded\""},
        /* PyTorchJob: conditions and none Failed */
        {"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\"}", 0, 0, "Healthy",
         "\"type\":\"Created\""},
        {"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\"}", 1, 0, "Healthy",
         "\"type\":\"Running\""},
        /* RayCluster: head ready and provisioned */
        {"{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\"}", 0, 0, "Unhealthy", NULL},
        {"{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\"}", 1, 0, "Healthy",
         "\"type\":\"HeadPodReady\""},
        /* RayJob: Running, or Complete and SUCCEEDED */
        {"{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\"}", 0, 0, "Unhealthy",
         "\"jobDeploymentStatus\":\"Initializing\""},
        {"{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\"}", 1, 0, "Healthy",
         "\"jobDeploymentStatus\":\"Running\""},
        {"{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\"}", 0, 1, "Healthy",
         "\"jobStatus\":\"SUCCEEDED\""},
        {"{\"apiVersion\":\"leaderworkerset.x-k8s.io/v1\",\"kind\":\"LeaderWorkerSet\","
         "\"spec\":{\"replicas\":3}}",
         1, 0, "Healthy", "\"readyReplicas\":3"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *o = json_tokener_parse(cases[i].obj), *st = json_object_new_object();
        CU_ASSERT_EQUAL(sim__kind19_status(o, st, cases[i].all_running, cases[i].done, NULL), 1);
        const char *text = json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN);
        if (cases[i].has && !strstr(text, cases[i].has))
            fprintf(stderr, "\ncase %zu: %s lacks %s", i, text, cases[i].has);
        CU_ASSERT_TRUE(!cases[i].has || strstr(text, cases[i].has) != NULL);
        CU_ASSERT_STRING_EQUAL(sim__kind19_health(o, st), cases[i].health);
        json_object_put(st);
        json_object_put(o);
    }
    json_object *d = json_tokener_parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}");
    json_object *st = json_object_new_object();
    CU_ASSERT_EQUAL(sim__kind19_status(d, st, 1, 0, NULL), 0);
    CU_ASSERT_PTR_NULL(sim__kind19_health(d, st));
    json_object_put(st);
    json_object_put(d);
}

/* A TrainJob's pods are its runtime's, found in the hub's store, as Kubeflow Trainer builds the
 * JobSet: MPI with runLauncherAsNode, numNodes 4: the "node" job 3 pods, the launcher (the
 * trainer) 1, both with resourcesPerNode merged into their "node" container; a TrainJob whose
 * runtime is missing runs nothing; it reports Complete when done and is Healthy (no Karmada
 * customization). */
static void test_trainjob(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL_FATAL(
        fx_create(&f, fx_res("trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes"), NULL,
                  "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":"
                  "\"ClusterTrainingRuntime\",\"metadata\":{\"name\":\"mpi\"},\"spec\":{"
                  "\"mlPolicy\":{\"numNodes\":1,\"mpi\":{\"runLauncherAsNode\":true}},"
                  "\"template\":{\"spec\":{\"replicatedJobs\":[{\"name\":\"node\",\"template\":{"
                  "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"node\"}]}}}}},"
                  "{\"name\":\"launcher\",\"template\":{\"metadata\":{\"labels\":{"
                  "\"trainer.kubeflow.org/trainjob-ancestor-step\":\"trainer\"}},\"spec\":{"
                  "\"template\":{\"spec\":{\"containers\":[{\"name\":\"node\",\"resources\":{"
                  "\"requests\":{\"cpu\":\"1\"}}}]}}}}}]}}}}"),
        0);
    json_object *tj = json_tokener_parse(
        "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\",\"metadata\":{"
        "\"name\":\"t\",\"namespace\":\"team\"},\"spec\":{\"runtimeRef\":{\"name\":\"mpi\"},"
        "\"trainer\":{\"numNodes\":4,\"resourcesPerNode\":{\"limits\":{\"nvidia.com/gpu\":2}}}}}");
    struct pod_set sets[16];
    CU_ASSERT_EQUAL_FATAL(sim__workload_pods(f.k, tj, sets, 16), 2);
    CU_ASSERT_EQUAL(sets[0].replicas, 3);
    CU_ASSERT_EQUAL(sets[1].replicas, 1);
    json_object *c0 =
        json_object_array_get_idx(sim__get_path(sets[0].spec, "containers", NULL, NULL), 0);
    json_object *c1 =
        json_object_array_get_idx(sim__get_path(sets[1].spec, "containers", NULL, NULL), 0);
    CU_ASSERT_EQUAL(json_object_get_int(sim__get_path(c0, "resources", "limits", "nvidia.com/gpu")),
                    2);
    CU_ASSERT_EQUAL(json_object_get_int(sim__get_path(c1, "resources", "limits", "nvidia.com/gpu")),
                    2);
    CU_ASSERT_STRING_EQUAL(sim__get_str(c1, "resources", "requests", "cpu"), "1");
    /* the runtime in the store is not changed by the merge */
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, fx_res("trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes"), NULL,
                 "mpi", "spec|mlPolicy|numNodes"),
        "1");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, fx_res("trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes"), NULL,
                 "mpi",
                 "spec|template|spec|replicatedJobs|0|template|spec|template|"
                 "spec|containers|0|resources"),
        "");
    /* no store, or no such runtime: no pods */
    CU_ASSERT_EQUAL(sim__workload_pods(NULL, tj, sets, 16), 0);
    json_object_object_add(sim__get_path(tj, "spec", "runtimeRef", NULL), "name",
                           json_object_new_string("gone"));
    CU_ASSERT_EQUAL(sim__workload_pods(f.k, tj, sets, 16), 0);
    /* status and health: Complete when done; healthy without a customization */
    json_object *st = json_object_new_object();
    CU_ASSERT_EQUAL(sim__kind19_status(tj, st, 1, 1, NULL), 1);
    json_object *cond = json_object_array_get_idx(sim__get_path(st, "conditions", NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(sim__get_str(cond, "type", NULL, NULL), "Complete");
    CU_ASSERT_STRING_EQUAL(sim__kind19_health(tj, st), "Healthy");
    CU_ASSERT_PTR_NULL(sim__kind19_components(tj));
    json_object_put(st);
    json_object_put(tj);
    fx_stop(&f);
}

static CU_TestInfo tests[] = {
    {"RB: no replicas; components under the gate where Karmada interprets them", test_rb_gate},
    {"member pods as the controllers run them", test_pods},
    {"the pod template whose group the member's scheduler reads", test_pod_meta},
    {"status per controller, health per Karmada's customizations", test_status_health},
    {"a TrainJob's pods from its runtime on the hub, Complete, no components", test_trainjob},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/interpret_kinds", tests)
