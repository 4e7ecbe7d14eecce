/* Tests for cluster-adapters/kube/json.c: each getter on the right type, the wrong type, an
 * absent key, a JSON null, and a NULL or non-object o. */
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/errors.h"
#include "testing.h"

#include <json-c/json.h>
#include <stdint.h>
#include <string.h>

static const char doc_text[] =
    "{\"metadata\":{\"name\":\"job-1\",\"namespace\":\"team-a\",\"labels\":{\"q\":\"gpu\"},"
    "\"generation\":7},\"spec\":{\"suspend\":true,\"replicas\":3,\"ratio\":0.5,\"n\":\"4\","
    "\"big\":9223372036854775807,\"neg\":-12,\"none\":null,\"off\":false,"
    "\"items\":[1,2]},\"s\":\"text\"}";

static struct json_object *doc(void)
{
    struct json_object *o = json_tokener_parse(doc_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

static void test_str_obj_arr(void)
{
    struct json_object *o = doc(), *md = kube_json_obj(o, "metadata");
    CU_ASSERT_PTR_NOT_NULL(md);
    CU_ASSERT_STRING_EQUAL(kube_json_str(md, "name"), "job-1");
    CU_ASSERT_PTR_NULL(kube_json_str(md, "generation")); /* an int is not a string */
    CU_ASSERT_PTR_NULL(kube_json_str(md, "labels"));
    CU_ASSERT_PTR_NULL(kube_json_str(md, "absent"));
    CU_ASSERT_PTR_NULL(kube_json_obj(o, "s")); /* a string is not an object */
    CU_ASSERT_PTR_NULL(kube_json_obj(o, "absent"));
    struct json_object *spec = kube_json_obj(o, "spec");
    CU_ASSERT_PTR_NOT_NULL(kube_json_arr(spec, "items"));
    CU_ASSERT_PTR_NULL(kube_json_arr(spec, "replicas"));
    CU_ASSERT_PTR_NULL(kube_json_obj(spec, "items"));
    CU_ASSERT_PTR_NULL(kube_json_get(spec, "none")); /* null reads as absent */
    CU_ASSERT_PTR_NOT_NULL(kube_json_get(spec, "off"));
    json_object_put(o);
}

static void test_null_and_non_object(void)
{
    struct json_object *s = json_object_new_string("x"), *a = json_object_new_array();
    CU_ASSERT_PTR_NULL(kube_json_get(NULL, "k"));
    CU_ASSERT_PTR_NULL(kube_json_str(NULL, "k"));
    CU_ASSERT_PTR_NULL(kube_json_obj(s, "k"));
    CU_ASSERT_PTR_NULL(kube_json_arr(a, "k"));
    CU_ASSERT_EQUAL(kube_json_bool(NULL, "k"), KUBE_JSON_ABSENT);
    int64_t v = 5;
    CU_ASSERT_EQUAL(kube_json_int64(NULL, "k", &v), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(v, 5);
    CU_ASSERT_PTR_NULL(kube_json_path(s, "k", NULL));
    json_object_put(s);
    json_object_put(a);
}

static void test_bool(void)
{
    struct json_object *o = doc(), *spec = kube_json_obj(o, "spec");
    CU_ASSERT_EQUAL(kube_json_bool(spec, "suspend"), 1);
    CU_ASSERT_EQUAL(kube_json_bool(spec, "off"), 0);
    CU_ASSERT_EQUAL(kube_json_bool(spec, "absent"), KUBE_JSON_ABSENT);
    CU_ASSERT_EQUAL(kube_json_bool(spec, "none"), KUBE_JSON_ABSENT);
    CU_ASSERT_EQUAL(kube_json_bool(spec, "replicas"), KUBE_JSON_ABSENT); /* 3 is not true */
    json_object_put(o);
}

static void test_int64(void)
{
    struct json_object *o = doc(), *spec = kube_json_obj(o, "spec");
    int64_t v = 0;
    CU_ASSERT_EQUAL(kube_json_int64(spec, "replicas", &v), 0);
    CU_ASSERT_EQUAL(v, 3);
    CU_ASSERT_EQUAL(kube_json_int64(spec, "neg", &v), 0);
    CU_ASSERT_EQUAL(v, -12);
    CU_ASSERT_EQUAL(kube_json_int64(spec, "big", &v), 0);
    CU_ASSERT_EQUAL(v, INT64_MAX);
    v = 42;
    CU_ASSERT_EQUAL(kube_json_int64(spec, "ratio", &v), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(kube_json_int64(spec, "n", &v), MUSTER_EINVAL); /* "4" is a string */
    CU_ASSERT_EQUAL(kube_json_int64(spec, "absent", &v), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(kube_json_int64(spec, "none", &v), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(v, 42);
    json_object_put(o);
}

static void test_path(void)
{
    struct json_object *o = doc();
    CU_ASSERT_STRING_EQUAL(kube_json_path_str(o, "metadata", "labels", "q", NULL), "gpu");
    CU_ASSERT_STRING_EQUAL(kube_json_path_str(o, "metadata", "namespace", NULL), "team-a");
    CU_ASSERT_PTR_NULL(kube_json_path_str(o, "metadata", "generation", NULL));
    CU_ASSERT_PTR_NULL(kube_json_path(o, "metadata", "nope", "q", NULL));
    CU_ASSERT_PTR_NULL(kube_json_path(o, "s", "deeper", NULL)); /* through a string */
    CU_ASSERT_PTR_EQUAL(kube_json_path(o, "spec", NULL), kube_json_obj(o, "spec"));
    const char *keys[] = {"metadata", "labels", "q"};
    CU_ASSERT_STRING_EQUAL(json_object_get_string(kube_json_pathv(o, keys, 3)), "gpu");
    CU_ASSERT_PTR_EQUAL(kube_json_pathv(o, keys, 2), kube_json_path(o, "metadata", "labels", NULL));
    CU_ASSERT_PTR_EQUAL(kube_json_pathv(o, keys, 0), o); /* the empty path */
    const char *short_keys[] = {"metadata", NULL, "ignored"};
    CU_ASSERT_PTR_EQUAL(kube_json_pathv(o, short_keys, 3), kube_json_obj(o, "metadata"));
    json_object_put(o);
}

static void test_build(void)
{
    int bad = 0;
    json_object *root = json_object_new_object();
    json_object *md = kube_json_add_obj(root, "metadata", &bad);
    kube_json_add_str(md, "name", "web", &bad);
    json_object *list = kube_json_add(root, "items", json_object_new_array(), &bad);
    kube_json_push(list, json_object_new_int(7), &bad);
    CU_ASSERT_FALSE(bad);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN),
                           "{\"metadata\":{\"name\":\"web\"},\"items\":[7]}");
    /* a failed constructor (NULL) sets the flag; every later add is refused and released */
    CU_ASSERT_PTR_NULL(kube_json_add_str(md, "namespace", NULL, &bad));
    CU_ASSERT_TRUE(bad);
    CU_ASSERT_PTR_NULL(kube_json_add_obj(root, "spec", &bad));
    CU_ASSERT_PTR_NULL(kube_json_push(list, json_object_new_int(8), &bad));
    CU_ASSERT_PTR_NULL(kube_json_get(root, "spec"));
    CU_ASSERT_EQUAL(json_object_array_length(list), 1);
    /* a NULL parent fails too */
    bad = 0;
    CU_ASSERT_PTR_NULL(kube_json_add_obj(NULL, "x", &bad));
    CU_ASSERT_TRUE(bad);
    json_object_put(root);
}

static void test_has_str(void)
{
    json_object *l = json_tokener_parse("[\"a\", 1, \"bc\"]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_TRUE(kube_json_has_str(l, "a"));
    CU_ASSERT_TRUE(kube_json_has_str(l, "bc"));
    CU_ASSERT_FALSE(kube_json_has_str(l, "b"));
    CU_ASSERT_FALSE(kube_json_has_str(l, "1")); /* a number is no string */
    CU_ASSERT_FALSE(kube_json_has_str(l, NULL));
    CU_ASSERT_FALSE(kube_json_has_str(NULL, "a"));
    json_object *o = json_tokener_parse("{\"a\":\"a\"}");
    CU_ASSERT_FALSE(kube_json_has_str(o, "a")); /* not an array */
    json_object_put(o);
    json_object_put(l);
}

static CU_TestInfo tests[] = {
    {"a string in an array", test_has_str},
    {"string, object, array: the type or NULL", test_str_obj_arr},
    {"NULL and non-object documents", test_null_and_non_object},
    {"bool: true, false, absent", test_bool},
    {"int64: integers only, absent told apart", test_int64},
    {"paths of N keys", test_path},
    {"building with a sticky failure flag", test_build},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/json", tests)
