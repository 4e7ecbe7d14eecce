/* Tests for cluster-adapters/kube/resources.c: JSON resource maps in and out, and every way they
 * are bad. */
#include "cluster-adapters/kube/resources.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static struct queue_resnames *names;
static char err[256];

static int parse(const char *text, struct queue_resvec *v)
{
    err[0] = '\0';
    return kube_resvec_parse_text(names, text, "guarantee", v, err, sizeof(err));
}

static int64_t get(const struct queue_resvec *v, const char *name)
{
    uint32_t id;
    if (queue_resnames_find(names, name, strlen(name), &id))
        return -1;
    return queue_resvec_get(v, id);
}

static void test_parses_quantities(void)
{
    struct queue_resvec v = {0};
    names = queue_resnames_new();
    CU_ASSERT_EQUAL(parse("{\"cpu\":\"1500m\",\"memory\":\"2Gi\",\"nvidia.com/gpu\":8}", &v), 0);
    CU_ASSERT_EQUAL(v.len, 3);
    CU_ASSERT_EQUAL(get(&v, "cpu"), 1500);
    CU_ASSERT_EQUAL(get(&v, "memory"), 2LL * 1024 * 1024 * 1024 * 1000);
    CU_ASSERT_EQUAL(get(&v, "nvidia.com/gpu"), 8000);
    CU_ASSERT_EQUAL(parse("{}", &v), 0);
    CU_ASSERT_EQUAL(v.len, 0);
    queue_resvec_close(&v);
    queue_resnames_free(names);
}

static void test_rejects_bad_input(void)
{
    struct queue_resvec v = {0};
    names = queue_resnames_new();
    CU_ASSERT_EQUAL(parse("[1,2]", &v), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "guarantee: must be an object of resource quantities");
    CU_ASSERT_EQUAL(parse("{\"cpu\":", &v), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "guarantee: not valid JSON");
    CU_ASSERT_EQUAL(parse("{\"cpu\":\"lots\"}", &v), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "guarantee.cpu: not a Kubernetes quantity (e.g. 500m, 4, 16Gi)");
    CU_ASSERT_EQUAL(parse("{\"cpu\":\"-1\"}", &v), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "guarantee.cpu: must not be negative");
    CU_ASSERT_EQUAL(parse("{\"cpu\":\"9E\"}", &v), MUSTER_ERANGE);
    CU_ASSERT_STRING_EQUAL(err, "guarantee.cpu: quantity too large");
    CU_ASSERT_EQUAL(parse("{\"cpu\":9223372036854775807}", &v), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(parse("{\"cpu\":1.5}", &v), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "guarantee.cpu: quantity must be a string");
    CU_ASSERT_EQUAL(parse("{\"Bad Name\":\"1\"}", &v), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "guarantee.Bad Name: not a valid resource name");
    CU_ASSERT_EQUAL(parse("{\"cpu\":{\"x\":1}}", &v), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(v.len, 0); /* a failure leaves nothing half-filled */
    queue_resvec_close(&v);
    queue_resnames_free(names);
}

static void test_round_trip(void)
{
    struct queue_resvec v = {0}, w = {0};
    names = queue_resnames_new();
    CU_ASSERT_EQUAL(parse("{\"cpu\":\"0.5\",\"memory\":\"1536Mi\",\"pods\":\"110\"}", &v), 0);
    json_object *o = kube_resvec_json(names, &v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                           "{\"cpu\":\"500m\",\"memory\":\"1536Mi\",\"pods\":\"110\"}");
    CU_ASSERT_EQUAL(kube_resvec_parse(names, o, "", &w, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(queue_resvec_cmp(&v, &w), 0);
    json_object_put(o);
    queue_resvec_close(&v);
    queue_resvec_close(&w);
    queue_resnames_free(names);
}

static void test_too_many_names(void)
{
    struct queue_resvec v = {0};
    names = queue_resnames_new();
    char buf[64];
    int rc = 0;
    for (int i = 0; i < QUEUE_RESNAMES_MAX + 1 && rc == 0; i++) {
        snprintf(buf, sizeof(buf), "{\"example.com/r%d\":\"1\"}", i);
        rc = parse(buf, &v);
    }
    CU_ASSERT_EQUAL(rc, MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(queue_resnames_count(names), QUEUE_RESNAMES_MAX);
    queue_resvec_close(&v);
    queue_resnames_free(names);
}

/* A capability of "0" is a limit of nothing; dropped, it would read as no limit at all. */
static void test_limits_keep_zero(void)
{
    struct queue_resvec v = {0};
    names = queue_resnames_new();
    CU_ASSERT_EQUAL(kube_resvec_parse_limits_text(names, "{\"nvidia.com/gpu\":\"0\",\"cpu\":\"4\"}",
                                                  "capability", &v, err, sizeof(err)),
                    0);
    CU_ASSERT_EQUAL(v.len, 2);
    uint32_t gpu;
    CU_ASSERT_EQUAL(queue_resnames_find(names, "nvidia.com/gpu", 14, &gpu), 0);
    int listed = 0;
    for (uint32_t i = 0; i < v.len; i++)
        listed |= v.items[i].id == gpu && v.items[i].milli == 0;
    CU_ASSERT_TRUE(listed);
    json_object *out = kube_resvec_json(names, &v);
    json_object *g = json_object_object_get(out, "nvidia.com/gpu");
    CU_ASSERT_STRING_EQUAL(g ? json_object_get_string(g) : "", "0");
    json_object_put(out);
    /* elsewhere a zero is the same as absent */
    CU_ASSERT_EQUAL(parse("{\"nvidia.com/gpu\":\"0\"}", &v), 0);
    CU_ASSERT_EQUAL(v.len, 0);
    queue_resvec_close(&v);
    queue_resnames_free(names);
}

static CU_TestInfo tests[] = {
    {"parses quantities", test_parses_quantities},
    {"rejects bad input", test_rejects_bad_input},
    {"round trip", test_round_trip},
    {"bounded resource names", test_too_many_names},
    {"capability keeps a listed zero", test_limits_keep_zero},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/resources", tests)
