/* Tests for cluster-adapters/kube/jsonwrite.c: the text written is byte for byte what json-c
 * prints for the tree it stands for (JSON_C_TO_STRING_PLAIN, with and without
 * JSON_C_TO_STRING_NOSLASHESCAPE), across the stack buffer's growth and out of memory. */
#include "cluster-adapters/kube/jsonwrite.h"
#include "cluster-adapters/kube/jsonparse.h"
#include "cluster-adapters/kube/resources.h"
#include "queue/mem.h"
#include "queue/resource.h"
#include "testing.h"

#include <json-c/json.h>
#include <stdint.h>
#include <string.h>

static const char *const tricky[] = {
    "",
    "plain-name",
    "quote \" and backslash \\",
    "slash / and nvidia.com/gpu",
    "\b\f\n\r\t",
    "\x01\x02\x1f\x7f end",     /* below 0x20 as \u00xx, lower case; 0x7f as it is */
    "caf\xc3\xa9 \xe2\x9c\x93", /* UTF-8 as it is */
    "</script>&<>",
};

static void check_str(const char *s, int slash)
{
    char stack[4]; /* small: every string but the empty one grows onto the heap */
    struct kube_jw w;
    kube_jw_init(&w, stack, sizeof stack, slash);
    kube_jw_str(&w, s);
    json_object *o = json_object_new_string(s);
    const char *want = json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | (slash ? 0 : JSON_C_TO_STRING_NOSLASHESCAPE));
    CU_ASSERT_FALSE(w.bad);
    CU_ASSERT_STRING_EQUAL(w.buf, want);
    CU_ASSERT_EQUAL(w.len, strlen(want));
    json_object_put(o);
    kube_jw_free(&w);
}

static void test_strings_as_json_c(void)
{
    for (size_t i = 0; i < sizeof tricky / sizeof *tricky; i++) {
        check_str(tricky[i], 0);
        check_str(tricky[i], 1);
    }
}

/* An object of every tricky key and value, numbers included, against json-c's print. */
static void test_object_as_json_c(void)
{
    for (int slash = 0; slash < 2; slash++) {
        char stack[64];
        struct kube_jw w;
        kube_jw_init(&w, stack, sizeof stack, slash);
        json_object *o = json_object_new_object();
        kube_jw_raw(&w, "{", 1);
        const int64_t nums[] = {0, -1, 42, INT64_MAX, INT64_MIN};
        for (size_t i = 0; i < sizeof tricky / sizeof *tricky; i++) {
            char key[64];
            snprintf(key, sizeof key, "k%zu/%s", i, tricky[i]);
            if (i)
                kube_jw_raw(&w, ",", 1);
            kube_jw_key(&w, key);
            if (i < sizeof nums / sizeof *nums) {
                kube_jw_int64(&w, nums[i]);
                json_object_object_add(o, key, json_object_new_int64(nums[i]));
            } else {
                kube_jw_str(&w, tricky[i]);
                json_object_object_add(o, key, json_object_new_string(tricky[i]));
            }
        }
        kube_jw_raw(&w, "}", 1);
        const char *want = json_object_to_json_string_ext(
            o, JSON_C_TO_STRING_PLAIN | (slash ? 0 : JSON_C_TO_STRING_NOSLASHESCAPE));
        CU_ASSERT_FALSE(w.bad);
        CU_ASSERT_STRING_EQUAL(w.buf, want);
        /* and it parses back to the same document */
        json_object *back = json_tokener_parse(w.buf);
        CU_ASSERT_TRUE(json_object_equal(back, o));
        json_object_put(back);
        json_object_put(o);
        kube_jw_free(&w);
    }
}

static void test_resvec_as_json_c(void)
{
    struct queue_resnames *names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    struct queue_resvec v;
    queue_resvec_init(&v);
    uint32_t cpu, gpu, mem;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "cpu", 3, &cpu), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "nvidia.com/gpu", 14, &gpu), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "memory", 6, &mem), 0);
    for (int round = 0; round < 2; round++) {
        for (int slash = 0; slash < 2; slash++) {
            char stack[8];
            struct kube_jw w;
            kube_jw_init(&w, stack, sizeof stack, slash);
            kube_resvec_write(&w, names, &v);
            json_object *o = kube_resvec_json(names, &v);
            const char *want = json_object_to_json_string_ext(
                o, JSON_C_TO_STRING_PLAIN | (slash ? 0 : JSON_C_TO_STRING_NOSLASHESCAPE));
            CU_ASSERT_FALSE(w.bad);
            CU_ASSERT_STRING_EQUAL(w.buf, want);
            json_object_put(o);
            kube_jw_free(&w);
        }
        /* round 0: the empty vector ("{}"); round 1: three quantities, one name with a '/' */
        CU_ASSERT_EQUAL(queue_resvec_set(&v, cpu, 1500), 0);
        CU_ASSERT_EQUAL(queue_resvec_set(&v, gpu, 8000), 0);
        CU_ASSERT_EQUAL(queue_resvec_set(&v, mem, INT64_C(64) * 1024 * 1024 * 1024 * 1000), 0);
    }
    queue_resvec_close(&v);
    queue_resnames_free(names);
}

/* A growth that fails leaves the flag set and the text cut, never a write past the buffer, and
 * every allocation is given back. */
static void test_out_of_memory(void)
{
    struct muster_mem_stats st;
    muster_mem_reset();
    muster_mem_fail_after(0);
    char stack[8];
    struct kube_jw w;
    kube_jw_init(&w, stack, sizeof stack, 0);
    kube_jw_str(&w, "a string longer than the stack buffer");
    CU_ASSERT_TRUE(w.bad);
    kube_jw_int64(&w, 7); /* sticky: nothing more is written */
    CU_ASSERT_TRUE(strlen(w.buf) < sizeof stack);
    kube_jw_free(&w);
    muster_mem_fail_after(-1);
    muster_mem_stats(&st);
    CU_ASSERT_EQUAL(st.allocs, st.frees);
    muster_mem_reset();
    kube_jw_init(&w, stack, sizeof stack, 0);
    kube_jw_str(&w, NULL); /* a failed constructor's NULL fails, as kube_json_add_str */
    CU_ASSERT_TRUE(w.bad);
    kube_jw_free(&w);
}

/* Whole objects (the repository's fixtures of every kind muster reads or writes, and a tree of
 * every JSON type) print as json-c prints them, parsed by json-c or by muster's parser. */
static void check_tree(json_object *o)
{
    for (int slash = 0; slash < 2; slash++) {
        char stack[128];
        struct kube_jw w;
        kube_jw_init(&w, stack, sizeof stack, slash);
        kube_jw_json(&w, o);
        const char *want = json_object_to_json_string_ext(
            o, JSON_C_TO_STRING_PLAIN | (slash ? 0 : JSON_C_TO_STRING_NOSLASHESCAPE));
        CU_ASSERT_FALSE(w.bad);
        CU_ASSERT_STRING_EQUAL(w.buf, want);
        kube_jw_free(&w);
    }
}

static void test_trees_as_json_c(void)
{
    static const char *const files[] = {"cluster.json",           "clusterresourcebinding.json",
                                        "overridepolicy.json",    "podgroup.json",
                                        "propagationpolicy.json", "queue.json",
                                        "resourcebinding.json",   "work-podgroup.json"};
    const char *src = getenv("MUSTER_SOURCE_DIR");
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/fixtures/objects/%s", src ? src : ".", files[i]);
        json_object *o = json_object_from_file(path);
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        check_tree(o);
        json_object_put(o);
    }
    json_object *o = json_tokener_parse(
        "{\"n\":null,\"t\":true,\"f\":false,\"i\":-42,\"big\":9223372036854775807,"
        "\"d\":2.50,\"e\":1e3,\"s\":\"a/b\\n\\u0001\",\"a\":[],\"o\":{},"
        "\"nest\":[[1,{\"k/\":[null]}],\"x\"]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    json_object_object_add(o, "u", json_object_new_uint64(UINT64_MAX));
    json_object_object_add(o, "nul", NULL);
    json_object_object_add(o, "dbl", json_object_new_double(0.1));
    check_tree(o);
    json_object_put(o);
    /* muster's parser keeps a number's text (json_object_new_double_s) and shares its keys */
    static const char text[] = "{\"d\":2.50,\"e\":1E3,\"i\":7,\"s\":\"x\",\"l\":[0.5,-0]}";
    char err[128];
    CU_ASSERT_EQUAL_FATAL(kube_json_parse(text, sizeof text - 1, 64, &o, err, sizeof err), 0);
    check_tree(o);
    json_object_put(o);
    char stack[8];
    struct kube_jw w;
    kube_jw_init(&w, stack, sizeof stack, 0);
    kube_jw_json(&w, NULL);
    CU_ASSERT_STRING_EQUAL(w.buf, "null");
    kube_jw_free(&w);
}

static CU_TestInfo tests[] = {
    {"trees print as json-c prints them", test_trees_as_json_c},
    {"strings escaped as json-c prints them", test_strings_as_json_c},
    {"an object of keys, strings and numbers as json-c prints it", test_object_as_json_c},
    {"a resource vector as kube_resvec_json prints", test_resvec_as_json_c},
    {"out of memory: sticky, cut, nothing leaked", test_out_of_memory},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/jsonwrite", tests)
