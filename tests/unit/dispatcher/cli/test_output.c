/* Tests for dispatcher/cli/output.c (musterctl's formats): table layout, JSON -> YAML with its
 * quoting, YAML files -> JSON (types, documents, errors, caps), the round trip, and every muster
 * allocation made to fail in turn. */
#include "dispatcher/cli/output.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What fn wrote to a FILE, as a string the caller frees. */
static char *capture_yaml(struct json_object *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    cli_yaml_print(v, f);
    fclose(f);
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static void test_table(void)
{
    static const char *const hdr[] = {"NAME", "PARENT", "GPU"};
    struct cli_table *t = cli_table_new(3, hdr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    const char *r1[] = {"research", "root", "17/32"};
    const char *r2[] = {"nlp", NULL, "1/-"};
    CU_ASSERT_EQUAL(cli_table_add(t, r1), 0);
    CU_ASSERT_EQUAL(cli_table_add(t, r2), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cli_table_print(t, f);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "NAME       PARENT   GPU\n"
                                "research   root     17/32\n"
                                "nlp        <none>   1/-\n");
    free(buf);
    cli_table_free(t);
    cli_table_free(NULL);
}

static void test_yaml_print(void)
{
    struct json_object *v = json_tokener_parse(
        "{\"name\": \"nlp\", \"parent\": null, \"weight\": 2, \"on\": true,"
        " \"deserved\": {\"nvidia.com/gpu\": \"16\", \"memory\": \"1Ti\"}, \"capability\": {},"
        " \"tags\": [], \"msg\": \"a: b # c\", \"empty\": \"\", \"t\": \"true\", \"neg\": \"-x\","
        " \"nl\": \"x\\ny\", \"share\": 0.5, \"inf\": Infinity,"
        " \"items\": [{\"a\": 1, \"b\": [\"x\", {\"c\": \"d\"}]}, [1, 2], \"s\"]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    char *y = capture_yaml(v);
    CU_ASSERT_STRING_EQUAL(y, "name: nlp\n"
                              "parent: null\n"
                              "weight: 2\n"
                              "\"on\": true\n"
                              "deserved:\n"
                              "  nvidia.com/gpu: \"16\"\n"
                              "  memory: 1Ti\n"
                              "capability: {}\n"
                              "tags: []\n"
                              "msg: \"a: b # c\"\n"
                              "empty: \"\"\n"
                              "t: \"true\"\n"
                              "neg: \"-x\"\n"
                              "nl: \"x\\ny\"\n"
                              "share: 0.5\n"
                              "\"inf\": .inf\n" /* strtod reads "inf": quoted */
                              "items:\n"
                              "- a: 1\n"
                              "  b:\n"
                              "  - x\n"
                              "  - c: d\n"
                              "- - 1\n"
                              "  - 2\n"
                              "- s\n");
    free(y);
    json_object_put(v);

    struct json_object *s = json_object_new_string("12");
    y = capture_yaml(s);
    CU_ASSERT_STRING_EQUAL(y, "\"12\"\n");
    free(y);
    json_object_put(s);
}

/* What cli_yaml_print writes, cli_yaml_load reads back as the same JSON. */
static void test_round_trip(void)
{
    struct json_object *v = json_tokener_parse(
        "{\"items\": [{\"name\": \"a\", \"parent\": null, \"weight\": 3, \"share\": 0.25,"
        " \"q\": {\"cpu\": \"8\", \"memory\": \"1.5Gi\", \"x\": \"0x10\", \"y\": \"1e3\","
        " \"z\": \"null\", \"w\": \"yes\", \"u\": \"caf\\u00e9 \\\"q\\\" \\\\ \\t\"},"
        " \"l\": [true, false, -7, \"\", {}, []]}]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    char *y = capture_yaml(v);
    char path[512];
    test_tmp_path(path, sizeof(path), "round.yaml");
    write_file(path, y);
    struct json_object *docs;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(cli_yaml_load(path, &docs, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(json_object_array_length(docs), 1);
    CU_ASSERT_TRUE(json_object_equal(json_object_array_get_idx(docs, 0), v));
    if (!json_object_equal(json_object_array_get_idx(docs, 0), v))
        fprintf(stderr, "\n%s\n%s\n", y,
                json_object_to_json_string(json_object_array_get_idx(docs, 0)));
    json_object_put(docs);
    free(y);
    json_object_put(v);
    remove(path);
}

static void test_yaml_load(void)
{
    char path[512], err[256];
    struct json_object *docs;
    test_tmp_path(path, sizeof(path), "load.yaml");
    write_file(path, "# comment\n"
                     "- name: ml\n"
                     "  weight: 3\n"
                     "  d: {cpu: 8, gpu: \"4\", f: 1.5, t: true, n: ~, e: }\n"
                     "---\n"
                     "name: one\n"
                     "---\n"
                     "---\n"
                     "items: [x]\n");
    CU_ASSERT_EQUAL_FATAL(cli_yaml_load(path, &docs, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(docs, JSON_C_TO_STRING_PLAIN),
                           "[[{\"name\":\"ml\",\"weight\":3,\"d\":{\"cpu\":8,\"gpu\":\"4\","
                           "\"f\":1.5,\"t\":true,\"n\":null,\"e\":null}}],{\"name\":\"one\"},"
                           "null,{\"items\":[\"x\"]}]");
    json_object_put(docs);

    write_file(path, "name: [unclosed\n");
    CU_ASSERT_EQUAL(cli_yaml_load(path, &docs, err, sizeof(err)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NULL(docs);
    CU_ASSERT_EQUAL(strncmp(err, path, strlen(path)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ":2:1: "));

    write_file(path, "? [a, b]\n: c\n");
    CU_ASSERT_EQUAL(cli_yaml_load(path, &docs, err, sizeof(err)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "a mapping key must be a string"));

    /* Aliases expanding 9^9 times are cut off by the node cap, not followed. */
    write_file(path, "a: &a [x, x, x, x, x, x, x, x, x]\n"
                     "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                     "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                     "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                     "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                     "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n");
    CU_ASSERT_EQUAL(cli_yaml_load(path, &docs, err, sizeof(err)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "too many nodes"));
    remove(path);

    test_tmp_path(path, sizeof(path), "absent.yaml");
    CU_ASSERT_EQUAL(cli_yaml_load(path, &docs, err, sizeof(err)), MUSTER_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file"));
}

/* Every muster allocation of a table and of a load fails in turn: ENOMEM, nothing leaks (ASan). */
static void test_alloc_failures(void)
{
    static const char *const hdr[] = {"A", "B"};
    const char *row[] = {"x", "y"};
    char path[512], err[256];
    test_tmp_path(path, sizeof(path), "oom.yaml");
    char big[8192];
    size_t n = 0;
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(big + n, sizeof(big) - n, "- {name: q%d, w: %d}\n", i, i);
    write_file(path, big);
    int done = 0;
    for (long k = 0; !done && k < 10000; k++) {
        muster_mem_fail_after(k);
        struct cli_table *t = cli_table_new(2, hdr);
        int rc = t ? 0 : MUSTER_ENOMEM;
        for (int i = 0; !rc && i < 40; i++)
            rc = cli_table_add(t, row);
        cli_table_free(t);
        struct json_object *docs = NULL;
        int lrc = cli_yaml_load(path, &docs, err, sizeof(err));
        muster_mem_fail_after(-1);
        CU_ASSERT_TRUE(rc == 0 || rc == MUSTER_ENOMEM);
        CU_ASSERT_TRUE(lrc == 0 || lrc == MUSTER_ENOMEM);
        CU_ASSERT_TRUE(lrc != 0 || docs != NULL);
        done = rc == 0 && lrc == 0;
        json_object_put(docs);
    }
    muster_mem_reset();
    CU_ASSERT_TRUE(done);
    remove(path);
}

/* One cell of a map (a table's GUARANTEE, describe's Request): keys and values joined, cut at
 * the buffer, NULL for what has nothing to show. */
static void test_map_text(void)
{
    struct json_object *o = json_tokener_parse(
        "{\"req\":{\"cpu\":\"8\",\"nvidia.com/gpu\":\"2\"},\"none\":{},\"str\":\"x\"}");
    char buf[64], small[8];
    CU_ASSERT_STRING_EQUAL(cli_map_text(o, "req", buf, sizeof(buf)), "cpu=8,nvidia.com/gpu=2");
    CU_ASSERT_STRING_EQUAL(cli_map_text(o, "req", small, sizeof(small)), "cpu=8,n"); /* cut */
    CU_ASSERT_PTR_NULL(cli_map_text(o, "none", buf, sizeof(buf)));
    CU_ASSERT_PTR_NULL(cli_map_text(o, "str", buf, sizeof(buf)));
    CU_ASSERT_PTR_NULL(cli_map_text(o, "absent", buf, sizeof(buf)));
    CU_ASSERT_PTR_NULL(cli_map_text(NULL, "req", buf, sizeof(buf)));
    json_object_put(o);
}

static CU_TestInfo tests[] = {
    {"table columns and <none>", test_table},
    {"JSON to YAML, quoting and layout", test_yaml_print},
    {"YAML printed reads back as the same JSON", test_round_trip},
    {"YAML files: types, documents, errors, alias cap", test_yaml_load},
    {"allocation failures", test_alloc_failures},
    {"a map as one cell", test_map_text},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/cli/output", tests)
