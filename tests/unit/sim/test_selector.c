/* Tests for cluster-adapters/sim/selector.c: the operators of labels.Parse and
 * fields.ParseSelector, matching, and rejected syntax. */
#include "cluster-adapters/sim/selector.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static json_object *obj_with_labels(const char *labels)
{
    char buf[512];
    snprintf(buf, sizeof(buf),
             "{\"metadata\":{\"name\":\"web\",\"namespace\":\"prod\",\"labels\":%s}}", labels);
    return json_tokener_parse(buf);
}

/* 1 when sel matches labels, 0 when not, -1 when sel does not parse. */
static int label_match(const char *sel, const char *labels)
{
    struct sim_selector *s = NULL;
    char err[256];
    if (sim_selector_parse_labels(sel, &s, err, sizeof(err)) < 0)
        return -1;
    json_object *o = obj_with_labels(labels);
    int m = sim_selector_matches(s, o);
    json_object_put(o);
    sim_selector_free(s);
    return m;
}

static void test_label_operators(void)
{
    const char *l = "{\"app\":\"web\",\"tier\":\"front\",\"gpus\":\"4\"}";
    CU_ASSERT_EQUAL(label_match("", l), 1);
    CU_ASSERT_EQUAL(label_match("app=web", l), 1);
    CU_ASSERT_EQUAL(label_match("app==web", l), 1);
    CU_ASSERT_EQUAL(label_match("app=db", l), 0);
    CU_ASSERT_EQUAL(label_match("app!=db", l), 1);
    CU_ASSERT_EQUAL(label_match("missing!=x", l), 1); /* != matches an absent label */
    CU_ASSERT_EQUAL(label_match("app in (db, web)", l), 1);
    CU_ASSERT_EQUAL(label_match("app in (db)", l), 0);
    CU_ASSERT_EQUAL(label_match("app notin (db,cache)", l), 1);
    CU_ASSERT_EQUAL(label_match("missing notin (x)", l), 1);
    CU_ASSERT_EQUAL(label_match("tier", l), 1);
    CU_ASSERT_EQUAL(label_match("missing", l), 0);
    CU_ASSERT_EQUAL(label_match("!missing", l), 1);
    CU_ASSERT_EQUAL(label_match("!tier", l), 0);
    CU_ASSERT_EQUAL(label_match("gpus>2", l), 1);
    CU_ASSERT_EQUAL(label_match("gpus<2", l), 0);
    CU_ASSERT_EQUAL(label_match("app=web, tier in (front,back),!missing", l), 1);
    CU_ASSERT_EQUAL(label_match("app=web,tier=back", l), 0);
    CU_ASSERT_EQUAL(label_match("example.com/role=x", "{\"example.com/role\":\"x\"}"), 1);
    CU_ASSERT_EQUAL(label_match("app=web", "null"), 0);
    CU_ASSERT_EQUAL(label_match("!app", "null"), 1);
}

static void test_label_syntax_errors(void)
{
    CU_ASSERT_EQUAL(label_match("app in web", "{}"), -1);
    CU_ASSERT_EQUAL(label_match("app in (web", "{}"), -1);
    CU_ASSERT_EQUAL(label_match("app=web,", "{}"), -1);
    CU_ASSERT_EQUAL(label_match("=web", "{}"), -1);
    CU_ASSERT_EQUAL(label_match("gpus>x", "{}"), -1);
    CU_ASSERT_EQUAL(label_match("app=web tier=x", "{}"), -1);
}

static void test_fields(void)
{
    struct sim_selector *s = NULL;
    char err[256];
    json_object *o = obj_with_labels("{}");
    CU_ASSERT_EQUAL(sim_selector_parse_fields("metadata.name=web,metadata.namespace!=dev", &s, err,
                                              sizeof(err)),
                    0);
    CU_ASSERT_EQUAL(sim_selector_count(s), 2);
    CU_ASSERT_STRING_EQUAL(sim_selector_key(s, 1), "metadata.namespace");
    CU_ASSERT_STRING_EQUAL(sim_selector_equals(s, "metadata.name"), "web");
    CU_ASSERT_PTR_NULL(sim_selector_equals(s, "metadata.namespace"));
    CU_ASSERT_EQUAL(sim_selector_matches(s, o), 1);
    sim_selector_free(s);
    CU_ASSERT_EQUAL(sim_selector_parse_fields("metadata.name==db", &s, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(sim_selector_matches(s, o), 0);
    sim_selector_free(s);
    CU_ASSERT_EQUAL(sim_selector_parse_fields("metadata.name", &s, err, sizeof(err)),
                    MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "invalid selector"));
    json_object_put(o);
}

static CU_TestInfo tests[] = {
    {"label operators", test_label_operators},
    {"label syntax errors", test_label_syntax_errors},
    {"field selectors", test_fields},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/selector", tests)
