/* Every ResourceBinding, Work and Cluster the simulated hub writes validates against the
 * OpenAPI v3 schemas Karmada publishes (tests/fixtures/reference/crds), checked by
 * cluster-adapters/kube/schema: unknown fields are errors unless the schema preserves them. */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/scenario.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static int problems;

/* The reference schemas in the repository (tests/fixtures/reference/crds). */
static struct kube_schema *load(const char *file, const char *version_or_definition, int swagger)
{
    char path[1024], err[512];
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(path, sizeof(path), "%s/tests/fixtures/reference/crds/%s", src ? src : ".", file);
    struct kube_schema *s = NULL;
    int rc = swagger ? kube_schema_load_swagger(path, version_or_definition, &s, err, sizeof(err))
                     : kube_schema_load_crd(path, version_or_definition, &s, err, sizeof(err));
    if (rc)
        fprintf(stderr, "schema: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return s;
}

/* Counts and prints what is wrong with obj against s. */
static int check(const struct kube_schema *s, json_object *obj, const char *what)
{
    struct kube_schema_errors errs;
    kube_schema_errors_init(&errs);
    int rc = kube_schema_validate(s, obj, &errs);
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "schema: %s: %s\n", what, errs.msgs[i]);
    int n = rc ? (int)(errs.count + errs.dropped) : 0;
    kube_schema_errors_close(&errs);
    return n;
}

static time_t fixed_now(void)
{
    return 1790000000;
}

static const struct sim_resource *R(const char *group, const char *version, const char *plural)
{
    return sim_resource_find(group, strlen(group), version, strlen(version), plural,
                             strlen(plural));
}

static const char scenario[] =
    "clusters:\n"
    "  - name: c1\n"
    "    labels: {zone: a}\n"
    "    region: r1\n"
    "    taints: [{key: gpu, effect: NoSchedule}]\n"
    "    nodes: [{count: 2, allocatable: {cpu: \"8\", memory: 32Gi, pods: \"10\", nvidia.com/gpu: "
    "\"2\"}}]\n"
    "  - {name: c2, ready: false, nodes: [{allocatable: {cpu: \"4\", memory: 8Gi}}]}\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec:\n"
    "      schedulerName: muster\n"
    "      resourceSelectors: [{apiVersion: apps/v1, kind: Deployment},\n"
    "                          {apiVersion: batch.volcano.sh/v1alpha1, kind: Job}]\n"
    "      placement: {clusterAffinity: {clusterNames: [c1]},\n"
    "                  replicaScheduling: {replicaSchedulingType: Divided}}\n"
    "  - apiVersion: apps/v1\n"
    "    kind: Deployment\n"
    "    metadata: {name: web, namespace: team}\n"
    "    spec:\n"
    "      replicas: 2\n"
    "      template:\n"
    "        spec:\n"
    "          priorityClassName: high\n"
    "          nodeSelector: {zone: a}\n"
    "          tolerations: [{key: gpu, operator: Exists}]\n"
    "          containers: [{name: a, resources: {requests: {cpu: \"1\", memory: 1Gi}}}]\n"
    "  - apiVersion: batch.volcano.sh/v1alpha1\n"
    "    kind: Job\n"
    "    metadata: {name: mpi, namespace: team}\n"
    "    spec:\n"
    "      minAvailable: 3\n"
    "      tasks:\n"
    "        - {name: master, replicas: 1, template: {spec: {containers: [{name: m, resources: "
    "{requests: {cpu: \"1\"}}}]}}}\n"
    "        - {name: worker, replicas: 2, minAvailable: 2, template: {spec: {containers: [{name: "
    "w, resources: {requests: {cpu: \"2\", nvidia.com/gpu: \"1\"}}}]}}}\n";

static void test_generated_objects_validate(void)
{
    struct kube_schema *rb_schema =
        load("karmada_work.karmada.io_resourcebindings.yaml", "v1alpha2", 0);
    struct kube_schema *work_schema = load("karmada_work.karmada.io_works.yaml", "v1alpha1", 0);
    struct kube_schema *cluster_schema =
        load("karmada_cluster.karmada.io_v1alpha1_openapi_definitions.json",
             "com.github.karmada-io.karmada.pkg.apis.cluster.v1alpha1.Cluster", 1);

    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10000, &s), 0);
    json_object *ns = json_tokener_parse("{\"metadata\":{\"name\":\"default\"}}");
    sim_store_create(s, R("", "v1", "namespaces"), NULL, ns, fixed_now(), 0, NULL, NULL);
    json_object_put(ns);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(
        sim_scenario_parse("t", scenario, strlen(scenario), &scn, err, sizeof(err)), 0);
    struct sim_karmada *k = NULL;
    int rc = sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err));
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object_put(scn);

    /* Place both RBs so Works exist, one with suspended dispatching. */
    const struct sim_resource *rbr = R("work.karmada.io", "v1alpha2", "resourcebindings");
    static const char *const names[] = {"web-deployment", "mpi-job"};
    for (int i = 0; i < 2; i++) {
        json_object *cur = NULL, *copy = NULL;
        CU_ASSERT_EQUAL_FATAL(sim_store_get(s, rbr, "team", names[i], &cur, NULL), 0);
        json_object_deep_copy(cur, &copy, NULL);
        json_object *spec = json_object_object_get(copy, "spec");
        json_object_object_add(spec, "clusters",
                               json_tokener_parse("[{\"name\":\"c1\",\"replicas\":2}]"));
        json_object_object_add(spec, "suspension",
                               json_tokener_parse(i ? "{\"scheduling\":false,\"dispatching\":true}"
                                                    : "{\"scheduling\":false}"));
        CU_ASSERT_EQUAL(sim_store_update(s, rbr, "team", names[i], copy, 0, NULL, NULL), 0);
        json_object_put(copy);
        json_object_put(cur);
    }

    /* A PodGroup Work for web's share in c1, as muster writes it; the member reports the
     * PodGroup's status back through the Work. */
    json_object *web = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_get(s, rbr, "team", "web-deployment", &web, NULL), 0);
    const char *pid = json_object_get_string(json_object_object_get(
        json_object_object_get(json_object_object_get(web, "metadata"), "labels"),
        "resourcebinding.karmada.io/permanent-id"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(pid);
    char pgwork[2048];
    snprintf(pgwork, sizeof(pgwork),
             "{\"apiVersion\":\"work.karmada.io/v1alpha1\",\"kind\":\"Work\",\"metadata\":{"
             "\"name\":\"web-deployment-pg\",\"namespace\":\"karmada-es-c1\",\"finalizers\":"
             "[\"karmada.io/execution-controller\"],\"labels\":{"
             "\"scheduling.muster.io/binding-uid\":\"%.8s\"}},\"spec\":{\"workload\":{"
             "\"manifests\":[{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":"
             "\"PodGroup\",\"metadata\":{\"name\":\"web-deployment-c1\",\"namespace\":"
             "\"team\",\"labels\":{\"karmada.io/managed\":\"true\"},\"annotations\":{"
             "\"work.karmada.io/name\":\"web-deployment-pg\",\"work.karmada.io/namespace\":"
             "\"karmada-es-c1\"}},\"spec\":{\"minMember\":2,\"minResources\":{\"cpu\":\"2\","
             "\"memory\":\"2Gi\"},\"queue\":\"default\"}}]}}}",
             pid);
    json_object_put(web);
    json_object *pgw = json_tokener_parse(pgwork);
    const struct sim_resource *workr = R("work.karmada.io", "v1alpha1", "works");
    CU_ASSERT_EQUAL(sim_store_create(s, workr, "karmada-es-c1", pgw, fixed_now(), 0, NULL, NULL),
                    0);
    json_object_put(pgw);
    sim_karmada_flush(k);
    sim_karmada_tick(k);
    json_object *served = NULL;
    CU_ASSERT_EQUAL_FATAL(
        sim_store_get(s, workr, "karmada-es-c1", "web-deployment-pg", &served, NULL), 0);
    json_object *ms =
        json_object_object_get(json_object_object_get(served, "status"), "manifestStatuses");
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(ms), 1);
    json_object *reported = json_object_object_get(json_object_array_get_idx(ms, 0), "status");
    CU_ASSERT_PTR_NOT_NULL_FATAL(reported);
    CU_ASSERT_PTR_NOT_NULL(json_object_object_get(reported, "phase"));
    /* The PodGroup as the member holds it: the manifest with the status it reports. */
    json_object *pg = NULL;
    json_object_deep_copy(
        json_object_array_get_idx(
            json_object_object_get(
                json_object_object_get(json_object_object_get(served, "spec"), "workload"),
                "manifests"),
            0),
        &pg, NULL);
    json_object_object_add(pg, "status", json_object_get(reported));
    struct kube_schema *pg_schema =
        load("volcano_scheduling.volcano.sh_podgroups.yaml", "v1beta1", 0);
    CU_ASSERT_EQUAL(check(pg_schema, pg, "member PodGroup"), 0);
    kube_schema_free(pg_schema);
    json_object_put(pg);
    json_object_put(served);

    struct {
        const struct sim_resource *r;
        const struct kube_schema *schema;
        size_t want;
    } kinds[] = {
        {rbr, rb_schema, 2},
        {workr, work_schema, 3},
        {R("cluster.karmada.io", "v1alpha1", "clusters"), cluster_schema, 2},
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        json_object *list = NULL;
        CU_ASSERT_EQUAL(sim_store_list(s, kinds[i].r, NULL, NULL, &list, NULL), 0);
        json_object *items = json_object_object_get(list, "items");
        CU_ASSERT_EQUAL(json_object_array_length(items), kinds[i].want);
        for (size_t j = 0; j < json_object_array_length(items); j++) {
            json_object *o = json_object_array_get_idx(items, j);
            problems += check(kinds[i].schema, o, sim_meta_str(o, "name"));
        }
        json_object_put(list);
    }
    CU_ASSERT_EQUAL(problems, 0);

    /* The validator rejects what it should. */
    json_object *bad = json_tokener_parse(
        "{\"apiVersion\":\"work.karmada.io/v1alpha2\",\"kind\":\"ResourceBinding\",\"metadata\":{},"
        "\"spec\":{\"resource\":{\"kind\":\"Deployment\",\"name\":\"x\",\"apiVersion\":\"apps/"
        "v1\"},"
        "\"replicas\":\"two\",\"bogus\":1,\"clusters\":[{\"replicas\":1}]}}");
    /* replicas type, unknown field, clusters[0].name */
    CU_ASSERT_EQUAL(check(rb_schema, bad, "deliberately bad RB"), 3);
    json_object_put(bad);

    sim_karmada_free(k);
    sim_store_free(s);
    kube_schema_free(rb_schema);
    kube_schema_free(work_schema);
    kube_schema_free(cluster_schema);
}

static CU_TestInfo tests[] = {
    {"RBs, Works, Clusters and member PodGroups validate against the reference schemas",
     test_generated_objects_validate},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/schema", tests)
