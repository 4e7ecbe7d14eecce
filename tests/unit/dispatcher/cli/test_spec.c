/* musterctl apply's comparison (dispatcher/cli/spec.c): defaults for absent fields, quantities
 * as text, durations by value, the tenancy fields as JSON, unknown fields always different. */
#include "dispatcher/cli/spec.h"
#include "testing.h"

#include <json-c/json.h>

static int same(const char *want, const char *cur)
{
    json_object *w = json_tokener_parse(want), *c = json_tokener_parse(cur);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    int r = cli_spec_same(w, c);
    json_object_put(w);
    json_object_put(c);
    return r;
}

/* What the server returns for a queue created with only a name and a parent. */
#define SERVED                                                                                     \
    "{\"name\":\"q\",\"parent\":\"root\",\"weight\":1,\"priority\":0,\"state\":\"Open\","          \
    "\"queueingStrategy\":\"BestEffortFIFO\",\"guarantee\":{},\"deserved\":{},"                    \
    "\"capability\":{\"cpu\":\"8\"},\"gangTimeoutSeconds\":300,\"onClusterLoss\":\"Requeue\","     \
    "\"reclaimable\":true,\"preemption\":{\"withinQueue\":\"Never\",\"minRuntime\":\"10m\","       \
    "\"maxPerMinute\":0,\"cooldown\":\"0s\"}"

static void test_defaults_and_values(void)
{
    const char *cur = SERVED "}";
    CU_ASSERT_TRUE(same("{\"name\":\"q\",\"capability\":{\"cpu\":8},"
                        "\"preemption\":{\"minRuntime\":\"600s\"}}",
                        cur)); /* 8 is "8", 600s is 10m, the rest defaults */
    CU_ASSERT_FALSE(same("{\"name\":\"q\",\"capability\":{\"cpu\":\"9\"},"
                         "\"preemption\":{\"minRuntime\":\"10m\"}}",
                         cur));
    CU_ASSERT_FALSE(same("{\"name\":\"q\",\"capability\":{\"cpu\":\"8\"},\"weight\":2,"
                         "\"preemption\":{\"minRuntime\":\"10m\"}}",
                         cur));
    CU_ASSERT_FALSE(same("{\"name\":\"q\",\"capability\":{\"cpu\":\"8\"},\"colour\":\"red\","
                         "\"preemption\":{\"minRuntime\":\"10m\"}}",
                         cur)); /* unknown: the server judges it */
}

static void test_tenancy_fields(void)
{
    const char *cur = SERVED ",\"namespaceSelector\":{\"matchLabels\":{\"org\":\"a\"}}}";
    const char *base = "{\"name\":\"q\",\"capability\":{\"cpu\":\"8\"},"
                       "\"preemption\":{\"minRuntime\":\"10m\"}";
    char want[512];
    snprintf(want, sizeof want, "%s,\"namespaceSelector\":{\"matchLabels\":{\"org\":\"a\"}}}",
             base);
    CU_ASSERT_TRUE(same(want, cur));
    snprintf(want, sizeof want, "%s,\"namespaceSelector\":{\"matchLabels\":{\"org\":\"b\"}}}",
             base);
    CU_ASSERT_FALSE(same(want, cur));
    snprintf(want, sizeof want, "%s}", base);
    CU_ASSERT_FALSE(same(want, cur)); /* dropped from the file: removed by the PUT */
    snprintf(want, sizeof want, "%s,\"namespaceSelector\":null}", base);
    CU_ASSERT_TRUE(same(want, SERVED "}")); /* null is none */
}

static CU_TestInfo tests[] = {
    {"defaults, quantities as text, durations by value, unknown fields", test_defaults_and_values},
    {"the tenancy fields as JSON; absent and null are none", test_tenancy_fields},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/cli/spec", tests)
