/* Every ResourceBinding, Work and Cluster the simulated hub writes validates against the
 * OpenAPI v3 schemas Karmada publishes (tests/fixtures/sim): a structural-schema walker where
 * unknown fields are errors unless the schema preserves them. */
#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/scenario.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static json_object *definitions; /* Cluster's OpenAPI definitions, for $ref */
static int problems;

static void problem(const char *path, const char *what)
{
    fprintf(stderr, "schema: %s: %s\n", path, what);
    problems++;
}

static json_object *member(json_object *o, const char *k)
{
    json_object *v = NULL;
    return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v)
               ? v
               : NULL;
}

static int flag(json_object *schema, const char *k)
{
    json_object *v = member(schema, k);
    return v && json_object_get_boolean(v);
}

static void validate(json_object *schema, json_object *v, const char *path);

/* The Kubernetes types Karmada's definitions refer to without including them. */
static json_object *builtin_ref(const char *name)
{
    static json_object *quantity, *any, *condition;
    if (!quantity) {
        quantity = json_tokener_parse("{\"x-kubernetes-int-or-string\":true}");
        any = json_tokener_parse(
            "{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}");
        condition = json_tokener_parse(
            "{\"type\":\"object\",\"required\":[\"type\",\"status\",\"lastTransitionTime\","
            "\"reason\",\"message\"],\"properties\":{\"type\":{\"type\":\"string\"},\"status\":"
            "{\"type\":\"string\",\"enum\":[\"True\",\"False\",\"Unknown\"]},"
            "\"observedGeneration\":{\"type\":\"integer\"},\"lastTransitionTime\":{\"type\":"
            "\"string\",\"format\":\"date-time\"},\"reason\":{\"type\":\"string\"},\"message\":"
            "{\"type\":\"string\"}}}");
    }
    if (strcmp(name, "io.k8s.apimachinery.pkg.api.resource.Quantity") == 0)
        return quantity;
    if (strcmp(name, "io.k8s.apimachinery.pkg.apis.meta.v1.Condition") == 0)
        return condition;
    if (strncmp(name, "io.k8s.", 7) == 0)
        return any; /* ObjectMeta, Taint, references: not what the sim is checked for */
    return NULL;
}

static json_object *resolve(json_object *schema, const char *path)
{
    json_object *ref = member(schema, "$ref");
    if (!ref)
        return schema;
    const char *r = json_object_get_string(ref);
    const char *prefix = "#/definitions/";
    if (strncmp(r, prefix, strlen(prefix)) != 0) {
        problem(path, "unsupported $ref");
        return NULL;
    }
    json_object *d = member(definitions, r + strlen(prefix));
    if (!d)
        d = builtin_ref(r + strlen(prefix));
    if (!d)
        problem(path, "dangling $ref");
    return d;
}

static int type_ok(const char *type, json_object *v)
{
    if (strcmp(type, "object") == 0)
        return json_object_is_type(v, json_type_object);
    if (strcmp(type, "array") == 0)
        return json_object_is_type(v, json_type_array);
    if (strcmp(type, "string") == 0)
        return json_object_is_type(v, json_type_string);
    if (strcmp(type, "integer") == 0)
        return json_object_is_type(v, json_type_int);
    if (strcmp(type, "number") == 0)
        return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
    if (strcmp(type, "boolean") == 0)
        return json_object_is_type(v, json_type_boolean);
    return 0;
}

static void validate(json_object *schema, json_object *v, const char *path)
{
    schema = resolve(schema, path);
    if (!schema)
        return;
    char sub[512];
    json_object *any_of = member(schema, "anyOf");
    if (flag(schema, "x-kubernetes-int-or-string")) {
        if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_string))
            problem(path, "not an int or string");
        return;
    }
    if (any_of) {
        int before = problems, ok = 0;
        for (size_t i = 0; i < json_object_array_length(any_of) && !ok; i++) {
            int mark = problems;
            validate(json_object_array_get_idx(any_of, i), v, path);
            ok = problems == mark;
            problems = mark;
        }
        problems = before;
        if (!ok)
            problem(path, "matches no anyOf branch");
    }
    json_object *type = member(schema, "type");
    if (type && !type_ok(json_object_get_string(type), v)) {
        snprintf(sub, sizeof(sub), "is %s, schema wants %s",
                 json_type_to_name(json_object_get_type(v)), json_object_get_string(type));
        problem(path, sub);
        return;
    }
    json_object *en = member(schema, "enum");
    if (en) {
        int found = 0;
        for (size_t i = 0; i < json_object_array_length(en); i++)
            found |= json_object_equal(json_object_array_get_idx(en, i), v);
        if (!found)
            problem(path, "not one of the enum values");
    }
    if (json_object_is_type(v, json_type_array)) {
        json_object *items = member(schema, "items");
        for (size_t i = 0; items && i < json_object_array_length(v); i++) {
            snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
            validate(items, json_object_array_get_idx(v, i), sub);
        }
        return;
    }
    if (!json_object_is_type(v, json_type_object))
        return;
    json_object *req = member(schema, "required");
    for (size_t i = 0; req && i < json_object_array_length(req); i++) {
        const char *k = json_object_get_string(json_object_array_get_idx(req, i));
        if (!member(v, k)) {
            snprintf(sub, sizeof(sub), "required field %s is missing", k);
            problem(path, sub);
        }
    }
    json_object *props = member(schema, "properties");
    json_object *addl = member(schema, "additionalProperties");
    int preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
    json_object_object_foreach(v, k, val)
    {
        /* ObjectMeta is validated by the API machinery, not the CRD schema. */
        if (path[0] == '\0' && strcmp(k, "metadata") == 0)
            continue;
        snprintf(sub, sizeof(sub), "%s.%s", path, k);
        json_object *ps = member(props, k);
        if (ps)
            validate(ps, val, sub);
        else if (addl && json_object_is_type(addl, json_type_object))
            validate(addl, val, sub);
        else if (!preserve && !(addl && json_object_get_boolean(addl)))
            problem(sub, "unknown field");
    }
}

static json_object *load_yaml(const char *name)
{
    char path[1024];
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(path, sizeof(path), "%s/tests/fixtures/sim/%s", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    json_object *docs = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(sim_yaml_parse_all(path, buf, n, &docs, err, sizeof(err)), 0);
    return docs;
}

/* The openAPIV3Schema of `version` in a CRD file. */
static json_object *crd_schema(json_object *docs, const char *version)
{
    json_object *crd = json_object_array_get_idx(docs, 0);
    json_object *versions = member(member(crd, "spec"), "versions");
    for (size_t i = 0; i < json_object_array_length(versions); i++) {
        json_object *v = json_object_array_get_idx(versions, i);
        if (strcmp(json_object_get_string(member(v, "name")), version) == 0)
            return member(member(v, "schema"), "openAPIV3Schema");
    }
    return NULL;
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
    json_object *rb_crd = load_yaml("karmada_work.karmada.io_resourcebindings.yaml");
    json_object *work_crd = load_yaml("karmada_work.karmada.io_works.yaml");
    json_object *defs_doc =
        load_yaml("karmada_cluster.karmada.io_v1alpha1_openapi_definitions.json");
    definitions = json_object_array_get_idx(defs_doc, 0);
    json_object *rb_schema = crd_schema(rb_crd, "v1alpha2");
    json_object *work_schema = crd_schema(work_crd, "v1alpha1");
    json_object *cluster_schema =
        member(definitions, "com.github.karmada-io.karmada.pkg.apis.cluster.v1alpha1.Cluster");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb_schema);
    CU_ASSERT_PTR_NOT_NULL_FATAL(work_schema);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cluster_schema);

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

    struct {
        const struct sim_resource *r;
        json_object *schema;
        size_t want;
    } kinds[] = {
        {rbr, rb_schema, 2},
        {R("work.karmada.io", "v1alpha1", "works"), work_schema, 2},
        {R("cluster.karmada.io", "v1alpha1", "clusters"), cluster_schema, 2},
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        json_object *list = NULL;
        CU_ASSERT_EQUAL(sim_store_list(s, kinds[i].r, NULL, NULL, &list, NULL), 0);
        json_object *items = json_object_object_get(list, "items");
        CU_ASSERT_EQUAL(json_object_array_length(items), kinds[i].want);
        for (size_t j = 0; j < json_object_array_length(items); j++) {
            int before = problems;
            json_object *o = json_object_array_get_idx(items, j);
            validate(kinds[i].schema, o, "");
            if (problems != before)
                fprintf(stderr, "  in %s %s\n", kinds[i].r->kind, sim_meta_str(o, "name"));
        }
        json_object_put(list);
    }
    CU_ASSERT_EQUAL(problems, 0);

    /* The walker itself rejects what it should. */
    int before = problems;
    json_object *bad = json_tokener_parse(
        "{\"apiVersion\":\"work.karmada.io/v1alpha2\",\"kind\":\"ResourceBinding\",\"metadata\":{},"
        "\"spec\":{\"resource\":{\"kind\":\"Deployment\",\"name\":\"x\",\"apiVersion\":\"apps/"
        "v1\"},"
        "\"replicas\":\"two\",\"bogus\":1,\"clusters\":[{\"replicas\":1}]}}");
    validate(rb_schema, bad, "");
    CU_ASSERT_EQUAL(problems - before, 3); /* replicas type, unknown field, clusters[0].name */
    problems = before;
    json_object_put(bad);

    sim_karmada_free(k);
    sim_store_free(s);
    json_object_put(rb_crd);
    json_object_put(work_crd);
    json_object_put(defs_doc);
}

static CU_TestInfo tests[] = {
    {"RBs, Works and Clusters validate against Karmada's schemas", test_generated_objects_validate},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/schema", tests)
