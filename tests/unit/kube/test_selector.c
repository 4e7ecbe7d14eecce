/* Label selectors (cluster-adapters/kube/selector.c): the apiserver's checks and apimachinery's
 * matching, the cases taken from k8s.io/apimachinery's labels and validation tests. */
#include "cluster-adapters/kube/selector.h"
#include "queue/errors.h"
#include "testing.h"

#include <json-c/json.h>
#include <string.h>

static json_object *parse(const char *s)
{
    json_object *o = json_tokener_parse(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

/* The check's code for text, and its message in why. */
static int check(const char *text, char *why, size_t cap)
{
    json_object *o = parse(text);
    why[0] = '\0';
    int rc = kube_selector_check(o, "spec.namespaceSelector", why, cap);
    json_object_put(o);
    return rc;
}

static void test_keys_and_values(void)
{
    CU_ASSERT_TRUE(kube_label_key_valid("team"));
    CU_ASSERT_TRUE(kube_label_key_valid("kubernetes.io/metadata.name"));
    CU_ASSERT_TRUE(kube_label_key_valid("a.b-c/X_y.z"));
    CU_ASSERT_FALSE(kube_label_key_valid(""));
    CU_ASSERT_FALSE(kube_label_key_valid("/x"));
    CU_ASSERT_FALSE(kube_label_key_valid("x/"));
    CU_ASSERT_FALSE(kube_label_key_valid("Upper.io/x")); /* the prefix is a DNS subdomain */
    CU_ASSERT_FALSE(kube_label_key_valid("-x"));
    CU_ASSERT_FALSE(kube_label_key_valid("a/b/c"));
    char long_name[70];
    memset(long_name, 'a', 64);
    long_name[64] = '\0';
    CU_ASSERT_FALSE(kube_label_key_valid(long_name));
    long_name[63] = '\0';
    CU_ASSERT_TRUE(kube_label_key_valid(long_name));
    CU_ASSERT_TRUE(kube_label_value_valid(""));
    CU_ASSERT_TRUE(kube_label_value_valid("v1.2_x-y"));
    CU_ASSERT_FALSE(kube_label_value_valid("a b"));
    CU_ASSERT_FALSE(kube_label_value_valid("x-"));
    CU_ASSERT_FALSE(kube_label_value_valid(NULL));
}

static void test_check(void)
{
    char why[256];
    CU_ASSERT_EQUAL(check("{}", why, sizeof why), 0);
    CU_ASSERT_EQUAL(check("{\"matchLabels\":{\"team\":\"nlp\"},\"matchExpressions\":[{\"key\":"
                          "\"tier\",\"operator\":\"In\",\"values\":[\"gpu\",\"cpu\"]},{\"key\":"
                          "\"x\",\"operator\":\"Exists\"}]}",
                          why, sizeof why),
                    0);
    CU_ASSERT_EQUAL(check("[]", why, sizeof why), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(check("{\"matchLabel\":{}}", why, sizeof why), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "spec.namespaceSelector.matchLabel: unknown field"));
    CU_ASSERT_EQUAL(check("{\"matchLabels\":{\"team\":1}}", why, sizeof why), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "matchLabels.team: must be a label value"));
    CU_ASSERT_EQUAL(check("{\"matchLabels\":{\"bad key\":\"x\"}}", why, sizeof why), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(
        check("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\"}]}", why, sizeof why),
        MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(why, "matchExpressions[0].values: must be non-empty for operator In"));
    CU_ASSERT_EQUAL(check("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\","
                          "\"values\":[\"b\"]}]}",
                          why, sizeof why),
                    MUSTER_EINVAL);
    CU_ASSERT_EQUAL(check("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Gt\","
                          "\"values\":[\"1\"]}]}",
                          why, sizeof why),
                    MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "operator: must be In, NotIn, Exists or DoesNotExist"));
    CU_ASSERT_EQUAL(check("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\","
                          "\"values\":[\"ok\",\"not ok\"]}]}",
                          why, sizeof why),
                    MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "values[1]"));
    /* bounded: 65 labels */
    char big[4096];
    size_t at = (size_t)snprintf(big, sizeof big, "{\"matchLabels\":{");
    for (int i = 0; i < 65; i++)
        at += (size_t)snprintf(big + at, sizeof big - at, "%s\"k%d\":\"v\"", i ? "," : "", i);
    snprintf(big + at, sizeof big - at, "}}");
    CU_ASSERT_EQUAL(check(big, why, sizeof why), MUSTER_ELIMIT);
}

/* Whether labels satisfy sel, both as JSON text; why gets the failing term. */
static int matches(const char *sel, const char *labels, char *why, size_t cap)
{
    json_object *s = parse(sel);
    json_object *l = labels ? parse(labels) : NULL;
    char w[256];
    CU_ASSERT_EQUAL(kube_selector_check(s, "sel", w, sizeof w), 0);
    int m = kube_selector_matches(s, l, why, cap);
    json_object_put(s);
    json_object_put(l);
    return m;
}

static void test_match(void)
{
    char why[256] = "";
    CU_ASSERT_TRUE(matches("{}", NULL, why, sizeof why)); /* empty selects everything */
    CU_ASSERT_TRUE(kube_selector_matches(NULL, NULL, NULL, 0));
    CU_ASSERT_TRUE(matches("{\"matchLabels\":{\"team\":\"nlp\"}}", "{\"team\":\"nlp\",\"x\":\"y\"}",
                           why, sizeof why));
    CU_ASSERT_FALSE(
        matches("{\"matchLabels\":{\"team\":\"nlp\"}}", "{\"team\":\"cv\"}", why, sizeof why));
    CU_ASSERT_STRING_EQUAL(why, "label team is not nlp");
    CU_ASSERT_FALSE(matches("{\"matchLabels\":{\"team\":\"nlp\"}}", NULL, why, sizeof why));
    const char *in = "{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":"
                     "[\"gpu\",\"tpu\"]}]}";
    CU_ASSERT_TRUE(matches(in, "{\"tier\":\"tpu\"}", why, sizeof why));
    CU_ASSERT_FALSE(matches(in, "{\"tier\":\"cpu\"}", why, sizeof why));
    CU_ASSERT_STRING_EQUAL(why, "label tier does not satisfy In [gpu tpu]");
    CU_ASSERT_FALSE(matches(in, "{}", why, sizeof why)); /* In needs the label */
    const char *notin = "{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"NotIn\","
                        "\"values\":[\"gpu\"]}]}";
    CU_ASSERT_TRUE(matches(notin, "{}", why, sizeof why)); /* NotIn holds without the label */
    CU_ASSERT_TRUE(matches(notin, "{\"tier\":\"cpu\"}", why, sizeof why));
    CU_ASSERT_FALSE(matches(notin, "{\"tier\":\"gpu\"}", why, sizeof why));
    const char *ex = "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\"},{\"key\":"
                     "\"b\",\"operator\":\"DoesNotExist\"}]}";
    CU_ASSERT_TRUE(matches(ex, "{\"a\":\"\"}", why, sizeof why));
    CU_ASSERT_FALSE(matches(ex, "{\"a\":\"1\",\"b\":\"2\"}", why, sizeof why));
    CU_ASSERT_STRING_EQUAL(why, "label b does not satisfy DoesNotExist");
    CU_ASSERT_FALSE(matches(ex, "{\"b\":\"2\"}", why, sizeof why));
    CU_ASSERT_STRING_EQUAL(why, "label a does not satisfy Exists");
}

static CU_TestInfo tests[] = {
    {"label keys and values", test_keys_and_values},
    {"a selector checked as the apiserver does", test_check},
    {"matching as apimachinery does", test_match},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/selector", tests)
