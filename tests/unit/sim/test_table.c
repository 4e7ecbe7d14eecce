/* Tests for cluster-adapters/sim/table.c: the JSONPath subset of printer columns, Kubernetes'
 * HumanDuration, and the Table kubectl get receives. */
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/table.h"
#include "testing.h"

#include <string.h>

static const char *text(json_object *v)
{
    return v ? json_object_get_string(v) : "(none)";
}

static void test_jsonpath(void)
{
    json_object *o = json_tokener_parse(
        "{\"metadata\":{\"name\":\"rb\"},\"spec\":{\"workload\":{\"manifests\":[{\"x\":1},"
        "{\"kind\":\"PodGroup\"},{\"kind\":\"Deployment\"}]}},\"status\":{\"conditions\":["
        "{\"type\":\"FullyApplied\",\"status\":\"True\"},{\"type\":\"Scheduled\","
        "\"status\":\"False\"}]}}");
    CU_ASSERT_STRING_EQUAL(text(sim_jsonpath_first(o, ".metadata.name")), "rb");
    CU_ASSERT_STRING_EQUAL(
        text(sim_jsonpath_first(o, ".status.conditions[?(@.type==\"Scheduled\")].status")),
        "False");
    CU_ASSERT_STRING_EQUAL(
        text(sim_jsonpath_first(o, ".status.conditions[?(@.type==\"FullyApplied\")].status")),
        "True");
    CU_ASSERT_PTR_NULL(sim_jsonpath_first(o, ".status.conditions[?(@.type==\"Nope\")].status"));
    /* [*] yields the first element that has the rest of the path. */
    CU_ASSERT_STRING_EQUAL(text(sim_jsonpath_first(o, ".spec.workload.manifests[*].kind")),
                           "PodGroup");
    CU_ASSERT_STRING_EQUAL(text(sim_jsonpath_first(o, ".spec.workload.manifests[2].kind")),
                           "Deployment");
    CU_ASSERT_PTR_NULL(sim_jsonpath_first(o, ".spec.workload.manifests[3].kind"));
    CU_ASSERT_PTR_NULL(sim_jsonpath_first(o, ".spec.missing"));
    json_object_put(o);
}

static void test_human_duration(void)
{
    static const struct {
        long long s;
        const char *want;
    } cases[] = {{-5, "<invalid>"},  {0, "0s"},        {119, "119s"},  {120, "2m"},
                 {125, "2m5s"},      {599, "9m59s"},   {600, "10m"},   {10799, "179m"},
                 {10800, "3h"},      {11100, "3h5m"},  {28800, "8h"},  {172799, "47h"},
                 {172800, "2d"},     {176400, "2d1h"}, {691200, "8d"}, {63072000, "2y"},
                 {63158400, "2y1d"}, {252288000, "8y"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[32];
        sim_human_duration(cases[i].s, buf, sizeof(buf));
        if (strcmp(buf, cases[i].want) != 0)
            fprintf(stderr, "%lld: %s, want %s\n", cases[i].s, buf, cases[i].want);
        CU_ASSERT_STRING_EQUAL(buf, cases[i].want);
    }
}

static void test_rb_table(void)
{
    const struct sim_resource *rb =
        sim_resource_find("work.karmada.io", 15, "v1alpha2", 8, "resourcebindings", 16);
    CU_ASSERT(sim_table_supported(rb));
    CU_ASSERT(!sim_table_supported(sim_resource_find("", 0, "v1", 2, "namespaces", 10)));
    json_object *items = json_tokener_parse(
        "[{\"metadata\":{\"name\":\"a\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
        "\"status\":{\"conditions\":[{\"type\":\"Scheduled\",\"status\":\"False\"}]}}]");
    json_object *meta = json_tokener_parse("{\"resourceVersion\":\"7\"}");
    json_object *t = sim_table_new(rb, items, meta, 1767225600 + 300); /* 5 min later */
    CU_ASSERT_STRING_EQUAL(
        json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
        "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":"
        "\"7\"},\"columnDefinitions\":[{\"name\":\"Name\",\"type\":\"string\",\"format\":\"name\","
        "\"description\":\"Name must be unique within a namespace.\",\"priority\":0},{\"name\":"
        "\"SCHEDULED\",\"type\":\"string\",\"format\":\"\",\"description\":\"\",\"priority\":0},"
        "{\"name\":\"FULLYAPPLIED\",\"type\":\"string\",\"format\":\"\",\"description\":\"\","
        "\"priority\":0},{\"name\":\"AGE\",\"type\":\"date\",\"format\":\"\",\"description\":\"\","
        "\"priority\":0}],\"rows\":[{\"cells\":[\"a\",\"False\",null,\"5m\"],\"object\":{\"kind\":"
        "\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"name\":\"a\","
        "\"creationTimestamp\":\"2026-01-01T00:00:00Z\"}}}]}");
    json_object_put(t);
    json_object_put(meta);
    json_object_put(items);
}

static CU_TestInfo tests[] = {
    {"JSONPath subset of printer columns", test_jsonpath},
    {"HumanDuration", test_human_duration},
    {"RB Table", test_rb_table},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/table", tests)
