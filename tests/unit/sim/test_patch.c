/* Tests for cluster-adapters/sim/patch.c: RFC 7386 appendix A and RFC 6902 appendix A cases. */
#include "cluster-adapters/sim/patch.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static void check_merge(const char *target, const char *patch, const char *want)
{
    json_object *t = json_tokener_parse(target), *p = json_tokener_parse(patch);
    json_object *w = json_tokener_parse(want), *out = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_merge_patch(t, p, &out), 0);
    if (!json_object_equal(out, w))
        fprintf(stderr, "merge %s + %s = %s, want %s\n", target, patch,
                json_object_to_json_string(out), want);
    CU_ASSERT(json_object_equal(out, w));
    json_object_put(t);
    json_object_put(p);
    json_object_put(w);
    json_object_put(out);
}

static void test_merge_rfc7386(void)
{
    /* RFC 7386 appendix A, every row. */
    check_merge("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    check_merge("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}");
    check_merge("{\"a\":\"b\"}", "{\"a\":null}", "{}");
    check_merge("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}");
    check_merge("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    check_merge("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}");
    check_merge("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}",
                "{\"a\":{\"b\":\"d\"}}");
    check_merge("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}");
    check_merge("[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]");
    check_merge("{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]");
    check_merge("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}");
    check_merge("[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}");
    check_merge("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}");
    /* What muster does to an RB: merging into suspension keeps its other fields. */
    check_merge("{\"spec\":{\"suspension\":{\"dispatching\":true}}}",
                "{\"spec\":{\"suspension\":{\"scheduling\":true}}}",
                "{\"spec\":{\"suspension\":{\"dispatching\":true,\"scheduling\":true}}}");
}

/* Applies ops to doc; want NULL means the patch must fail with MUSTER_EINVAL. */
static void check_json(const char *doc, const char *ops, const char *want)
{
    json_object *d = json_tokener_parse(doc), *o = json_tokener_parse(ops), *out = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    char err[256] = "";
    int rc = sim_json_patch(d, o, &out, err, sizeof(err));
    if (!want) {
        CU_ASSERT_EQUAL(rc, MUSTER_EINVAL);
        CU_ASSERT(err[0] != '\0');
        CU_ASSERT_PTR_NULL(out);
    } else {
        CU_ASSERT_EQUAL(rc, 0);
        json_object *w = json_tokener_parse(want);
        if (!json_object_equal(out, w))
            fprintf(stderr, "json patch %s on %s = %s, want %s (%s)\n", ops, doc,
                    json_object_to_json_string(out), want, err);
        CU_ASSERT(json_object_equal(out, w));
        json_object_put(w);
    }
    json_object_put(d);
    json_object_put(o);
    json_object_put(out);
}

static void test_json_patch_rfc6902(void)
{
    /* A.1 - A.16 of RFC 6902. */
    check_json("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
               "{\"baz\":\"qux\",\"foo\":\"bar\"}");
    check_json("{\"foo\":[\"bar\",\"baz\"]}",
               "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
               "{\"foo\":[\"bar\",\"qux\",\"baz\"]}");
    check_json("{\"baz\":\"qux\",\"foo\":\"bar\"}", "[{\"op\":\"remove\",\"path\":\"/baz\"}]",
               "{\"foo\":\"bar\"}");
    check_json("{\"foo\":[\"bar\",\"qux\",\"baz\"]}", "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]",
               "{\"foo\":[\"bar\",\"baz\"]}");
    check_json("{\"baz\":\"qux\",\"foo\":\"bar\"}",
               "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
               "{\"baz\":\"boo\",\"foo\":\"bar\"}");
    check_json("{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}",
               "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]",
               "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}");
    check_json("{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
               "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
               "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}");
    check_json("{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
               "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},"
               "{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
               "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}");
    check_json("{\"baz\":\"qux\"}", "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]",
               NULL);
    check_json("{\"foo\":\"bar\"}",
               "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]",
               "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}");
    check_json("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]",
               NULL);
    check_json("{\"/\":9,\"~1\":10}", "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]",
               "{\"/\":9,\"~1\":10}");
    check_json("{\"/\":9,\"~1\":10}", "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]",
               NULL);
    check_json("{\"foo\":[\"bar\"]}", "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\"]}]",
               "{\"foo\":[\"bar\",[\"abc\"]]}");
    /* copy, root replace, out of range, unknown op, atomicity (first op must not stick). */
    check_json("{\"a\":{\"b\":1}}", "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/c\"}]",
               "{\"a\":{\"b\":1},\"c\":{\"b\":1}}");
    check_json("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"b\":2}}]",
               "{\"b\":2}");
    check_json("{\"a\":[1]}", "[{\"op\":\"add\",\"path\":\"/a/5\",\"value\":2}]", NULL);
    check_json("{\"a\":[1]}", "[{\"op\":\"remove\",\"path\":\"/a/1\"}]", NULL);
    check_json("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"/b\",\"value\":2}]", NULL);
    check_json("{\"a\":1}", "[{\"op\":\"frob\",\"path\":\"/a\"}]", NULL);
    check_json("{\"a\":{}}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b\"}]", NULL);
    check_json("{\"a\":1}", "{\"op\":\"add\"}", NULL);
    /* test against null, as evanphx/json-patch v4 (kube-apiserver's) reads it: a missing
     * member or a null one passes; a missing parent or an index out of range fails */
    check_json("{\"status\":{}}", "[{\"op\":\"test\",\"path\":\"/status/conditions\","
               "\"value\":null}]", "{\"status\":{}}");
    check_json("{\"status\":{\"c\":null}}", "[{\"op\":\"test\",\"path\":\"/status/c\","
               "\"value\":null}]", "{\"status\":{\"c\":null}}");
    check_json("{\"status\":{\"c\":[]}}", "[{\"op\":\"test\",\"path\":\"/status/c\","
               "\"value\":null}]", NULL);
    check_json("{\"a\":1}", "[{\"op\":\"test\",\"path\":\"/status/conditions\","
               "\"value\":null}]", NULL);
    check_json("{\"c\":[1]}", "[{\"op\":\"test\",\"path\":\"/c/1\",\"value\":null}]",
               NULL);
    check_json("{\"c\":[{\"t\":\"A\"}]}",
               "[{\"op\":\"test\",\"path\":\"/c/0/t\",\"value\":\"A\"},"
               "{\"op\":\"add\",\"path\":\"/c/-\",\"value\":{\"t\":\"B\"}}]",
               "{\"c\":[{\"t\":\"A\"},{\"t\":\"B\"}]}");
    check_json("{\"spec\":{\"suspension\":{\"dispatching\":true}}}",
               "[{\"op\":\"add\",\"path\":\"/spec/suspension/scheduling\",\"value\":true},"
               "{\"op\":\"test\",\"path\":\"/spec/x\",\"value\":1}]",
               NULL);
}

/* Both patches copy only what they change: the input is left as it was (so a stored object
 * can be patched in place of a deep copy) and what no operation touched is shared. */
static void test_patches_copy_on_write(void)
{
    static const char doc_text[] =
        "{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\"}},\"spec\":{\"list\":[{\"k\":1},"
        "{\"k\":2}],\"keep\":{\"deep\":{\"v\":1}}}}";
    json_object *doc = json_tokener_parse(doc_text);
    json_object *ops = json_tokener_parse(
        "[{\"op\":\"add\",\"path\":\"/spec/list/1/k\",\"value\":3},"
        "{\"op\":\"remove\",\"path\":\"/metadata/labels/x\"},"
        "{\"op\":\"add\",\"path\":\"/spec/list/-\",\"value\":{\"k\":4}},"
        "{\"op\":\"move\",\"from\":\"/spec/list/0\",\"path\":\"/metadata/moved\"}]");
    json_object *out = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(sim_json_patch(doc, ops, &out, err, sizeof(err)), 0);
    json_object *was = json_tokener_parse(doc_text);
    CU_ASSERT(json_object_equal(doc, was));
    json_object *want = json_tokener_parse(
        "{\"metadata\":{\"name\":\"a\",\"labels\":{},\"moved\":{\"k\":1}},\"spec\":{\"list\":["
        "{\"k\":3},{\"k\":4}],\"keep\":{\"deep\":{\"v\":1}}}}");
    CU_ASSERT(json_object_equal(out, want));
    json_object *keep_in = json_object_object_get(json_object_object_get(doc, "spec"), "keep");
    json_object *keep_out = json_object_object_get(json_object_object_get(out, "spec"), "keep");
    CU_ASSERT_PTR_EQUAL(keep_in, keep_out);
    json_object_put(out);
    json_object_put(want);

    /* A failing operation leaves the input alone too. */
    json_object *bad = json_tokener_parse("[{\"op\":\"replace\",\"path\":\"/spec/keep/deep/v\","
                                          "\"value\":2},{\"op\":\"test\",\"path\":\"/x\","
                                          "\"value\":1}]");
    out = NULL;
    CU_ASSERT_EQUAL(sim_json_patch(doc, bad, &out, err, sizeof(err)), MUSTER_EINVAL);
    CU_ASSERT(json_object_equal(doc, was));
    json_object_put(bad);

    json_object *merge = json_tokener_parse("{\"spec\":{\"keep\":{\"deep\":{\"v\":5}}}}");
    CU_ASSERT_EQUAL(sim_merge_patch(doc, merge, &out), 0);
    CU_ASSERT(json_object_equal(doc, was));
    CU_ASSERT_PTR_EQUAL(json_object_object_get(out, "metadata"),
                        json_object_object_get(doc, "metadata"));
    json_object_put(out);
    json_object_put(merge);
    json_object_put(was);
    json_object_put(ops);
    json_object_put(doc);
}

static CU_TestInfo tests[] = {
    {"merge patch: RFC 7386 appendix A", test_merge_rfc7386},
    {"JSON patch: RFC 6902 appendix A and errors", test_json_patch_rfc6902},
    {"patches copy on write: the input stays, untouched values are shared",
     test_patches_copy_on_write},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/patch", tests)
