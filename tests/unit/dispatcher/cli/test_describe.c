/* Tests for dispatcher/cli/describe.c (musterctl's binding and queue views): name checks before
 * a name becomes a path segment, the bindings table, and the describe pages. */
#include "dispatcher/cli/describe.h"
#include "queue/errors.h"
#include "testing.h"

#include <json-c/json.h>
#include <string.h>

static int check(enum cli_kind k, const char *name)
{
    char err[256] = "";
    int rc = cli_name_check(k, name, err, sizeof(err));
    if (rc)
        CU_ASSERT(strstr(err, name) == err || strlen(name) > 128);
    return rc;
}

static void test_names(void)
{
    CU_ASSERT_EQUAL(check(CLI_KIND_QUEUE, "team-a"), 0);
    CU_ASSERT_EQUAL(check(CLI_KIND_QUEUE, "a.b"), 0);
    static const char *const bad_queues[] = {
        "../queues/authz-target", "../audit", "..", ".", "a/b", "A", "a%2Fb", "", "a..b"};
    for (size_t i = 0; i < sizeof(bad_queues) / sizeof(bad_queues[0]); i++)
        CU_ASSERT_EQUAL(check(CLI_KIND_QUEUE, bad_queues[i]), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(check(CLI_KIND_BINDING, "team-vision/dist-1-job"), 0);
    CU_ASSERT_EQUAL(check(CLI_KIND_BINDING, "ns/a.b"), 0);
    static const char *const bad_bindings[] = {
        "no-slash", "../../audit", "ns/..", "ns/.", "a.b/name", "ns/a/b", "/name", "ns/", "NS/x"};
    for (size_t i = 0; i < sizeof(bad_bindings) / sizeof(bad_bindings[0]); i++)
        CU_ASSERT_EQUAL(check(CLI_KIND_BINDING, bad_bindings[i]), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(check(CLI_KIND_CLUSTER, "gpu-east"), 0);
    CU_ASSERT_EQUAL(check(CLI_KIND_CLUSTER, "../bindings"), MUSTER_EINVAL);
}

/* Runs fn into a temporary file and returns what it wrote (static storage). */
static const char *captured(FILE *f)
{
    static char buf[8192];
    rewind(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static const char binding[] =
    "{\"namespace\":\"team\",\"name\":\"job-1\",\"uid\":\"u1\",\"queue\":\"nlp\",\"state\":"
    "\"pending\",\"request\":{\"cpu\":\"4\",\"nvidia.com/gpu\":\"2\"},\"priority\":5,"
    "\"createdAtMs\":1700000000000,\"updatedAtMs\":1700000001000,\"clusters\":[],\"position\":3,"
    "\"reason\":\"QuotaExceeded: nlp has 0 of 2 GPUs free\",\"history\":[{\"id\":7,\"state\":"
    "\"rolled_back\",\"queue\":\"nlp\",\"reason\":\"gang timeout\",\"createdAtMs\":1,"
    "\"updatedAtMs\":2,\"clusters\":[{\"name\":\"east\",\"replicas\":2}]},{\"id\":9,\"state\":"
    "\"pending\",\"queue\":\"nlp\",\"createdAtMs\":3,\"updatedAtMs\":4,\"clusters\":[]}]}";

static void test_bindings_table(void)
{
    struct json_object *b = json_tokener_parse(binding);
    struct json_object *items = json_object_new_array();
    json_object_array_add(items, b);
    FILE *f = tmpfile(), *e = tmpfile();
    CU_ASSERT_EQUAL(cli_bindings_table(items, 0, f, e), 0);
    const char *t = captured(f);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(t, "NAMESPACE   NAME    QUEUE   STATE     PRIORITY   POSITION\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "team        job-1   nlp     pending   5          3\n"));
    f = tmpfile();
    CU_ASSERT_EQUAL(cli_bindings_table(items, 1, f, e), 0);
    t = captured(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "CLUSTERS   REQUEST"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "<none>     cpu=4,nvidia.com/gpu=2   QuotaExceeded"));
    json_object_put(items);
    items = json_object_new_array();
    f = tmpfile();
    CU_ASSERT_EQUAL(cli_bindings_table(items, 0, f, e), 0);
    CU_ASSERT_STRING_EQUAL(captured(f), "");
    CU_ASSERT_STRING_EQUAL(captured(e), "No resources found.\n");
    json_object_put(items);
}

static void test_describe(void)
{
    struct json_object *b = json_tokener_parse(binding);
    FILE *f = tmpfile();
    cli_describe_binding(b, f);
    const char *t = captured(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Name:         team/job-1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Position:     3\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Reason:       QuotaExceeded: nlp has 0 of 2 GPUs free\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Created:      2023-11-14T22:13:20Z\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "History:\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "  7    rolled_back   nlp     east:2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "gang timeout\n"));
    json_object_put(b);
    struct json_object *q = json_tokener_parse(
        "{\"name\":\"nlp\",\"parent\":\"research\",\"weight\":2,\"priority\":0,\"state\":\"Open\","
        "\"queueingStrategy\":\"BestEffortFIFO\",\"gangTimeoutSeconds\":300,\"guarantee\":"
        "{\"nvidia.com/gpu\":\"4\"},\"deserved\":{},\"capability\":{},\"metadata\":"
        "{\"resourceVersion\":\"3\"},\"status\":{\"allocated\":{\"nvidia.com/gpu\":\"2\"},"
        "\"pending\":1,\"admitted\":2,\"share\":null}}");
    f = tmpfile();
    cli_describe_queue(q, f);
    t = captured(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Parent:       research\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Gang timeout: 300s\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Guarantee:    nvidia.com/gpu=4\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Deserved:     <none>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "  Allocated:  nvidia.com/gpu=2\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "  Share:      -\n"));
    /* a server from before issue 18: the defaults, and no counts */
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Reclaimable:  true\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Preemption:   withinQueue=Never, minRuntime=0s, "
                                     "maxPerMinute=0, cooldown=0s\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "  Lent:       <none>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "  Preempted:  made 0, suffered 0\n"));
    CU_ASSERT_STRING_EQUAL(cli_queue_reclaim_mark(q), "-");
    json_object_put(q);

    q = json_tokener_parse(
        "{\"name\":\"a\",\"reclaimable\":false,\"preemption\":{\"withinQueue\":"
        "\"LowerPriority\",\"minRuntime\":\"10m\",\"maxPerMinute\":4,\"cooldown\":\"1m30s\"},"
        "\"status\":{\"borrowed\":{},\"lent\":{\"nvidia.com/gpu\":\"4\"},"
        "\"preemptions\":{\"made\":2,\"suffered\":7}}}");
    f = tmpfile();
    cli_describe_queue(q, f);
    t = captured(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Reclaimable:  false\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "Preemption:   withinQueue=LowerPriority, minRuntime=10m, "
                                     "maxPerMinute=4, cooldown=1m30s\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "  Borrowed:   <none>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "  Lent:       nvidia.com/gpu=4\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "  Preempted:  made 2, suffered 7\n"));
    CU_ASSERT_STRING_EQUAL(cli_queue_reclaim_mark(q), "lends");
    char cell[32];
    CU_ASSERT_STRING_EQUAL(cli_queue_preempted(q, cell, sizeof(cell)), "2/7");
    CU_ASSERT_STRING_EQUAL(cli_queue_preemption(q, CLI_PREEMPT_MAX_PER_MINUTE), "4");
    json_object_put(q);
    q = json_tokener_parse("{\"status\":{\"borrowed\":{\"cpu\":\"1\"},\"lent\":{\"gpu\":\"1\"}}}");
    CU_ASSERT_STRING_EQUAL(cli_queue_reclaim_mark(q), "borrows,lends");
    json_object_put(q);
    q = json_tokener_parse("{\"status\":{\"borrowed\":{\"cpu\":\"1\"},\"lent\":{}}}");
    CU_ASSERT_STRING_EQUAL(cli_queue_reclaim_mark(q), "borrows");
    CU_ASSERT_STRING_EQUAL(cli_queue_preemption(q, CLI_PREEMPT_WITHIN_QUEUE), "Never");
    CU_ASSERT_STRING_EQUAL(cli_queue_preemption(q, CLI_PREEMPT_COOLDOWN), "0s");
    CU_ASSERT_STRING_EQUAL(cli_queue_preempted(q, cell, sizeof(cell)), "0/0");
    json_object_put(q);
}

/* A queue's tenancy as -o wide and describe print it. */
static void test_tenancy_text(void)
{
    char buf[256];
    struct json_object *q = json_tokener_parse(
        "{\"namespaceSelector\":{\"matchLabels\":{\"org\":\"research\"},\"matchExpressions\":"
        "[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]},{\"key\":\"x\","
        "\"operator\":\"NotIn\",\"values\":[\"c\"]},{\"key\":\"y\",\"operator\":\"Exists\"},"
        "{\"key\":\"z\",\"operator\":\"DoesNotExist\"}]},\"namespaceLimits\":{\"gangs\":2,"
        "\"resources\":{\"nvidia.com/gpu\":\"8\"}},\"localQueues\":[\"lab/gpu\",\"team/gpu\"]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_STRING_EQUAL(cli_queue_selector_text(q, buf, sizeof buf),
                           "org=research,tier in (a,b),x notin (c),y,!z");
    CU_ASSERT_STRING_EQUAL(cli_queue_ns_limits_text(q, buf, sizeof buf),
                           "gangs=2,nvidia.com/gpu=8");
    CU_ASSERT_STRING_EQUAL(cli_queue_local_queues_text(q, buf, sizeof buf), "lab/gpu,team/gpu");
    CU_ASSERT_PTR_NULL(cli_queue_owner_limits_text(q, buf, sizeof buf));
    char tiny[8];
    CU_ASSERT_EQUAL(strlen(cli_queue_selector_text(q, tiny, sizeof tiny)), 7); /* cut, ended */
    json_object_put(q);
    q = json_tokener_parse("{\"namespaceSelector\":{}}");
    CU_ASSERT_STRING_EQUAL(cli_queue_selector_text(q, buf, sizeof buf), "<all>");
    CU_ASSERT_PTR_NULL(cli_queue_ns_limits_text(q, buf, sizeof buf));
    CU_ASSERT_PTR_NULL(cli_queue_local_queues_text(q, buf, sizeof buf));
    json_object_put(q);
    q = json_tokener_parse("{\"name\":\"x\"}");
    CU_ASSERT_PTR_NULL(cli_queue_selector_text(q, buf, sizeof buf)); /* its parent's */
    json_object_put(q);
}

static CU_TestInfo tests[] = {
    {"names are checked before they become path segments", test_names},
    {"bindings table, wide, empty", test_bindings_table},
    {"describe binding and queue", test_describe},
    {"a queue's tenancy in a table cell", test_tenancy_text},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/cli/describe", tests)
