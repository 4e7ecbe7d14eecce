/* Tests for cluster-adapters/kube/yaml.c: YAML documents typed as Kubernetes decodes them, every
 * refusal with its file and line, the size and depth bounds, and allocation failures. */
#include "cluster-adapters/kube/yaml.h"
#include "queue/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_yaml_scalars(void)
{
    static const char text[] = "a: 1\nb: -2\nc: 1.5\nd: true\ne: ~\nf: \"1\"\ng: 0x1f\n"
                               "h: 1e3\ni: 99999999999999999999\nj: '~'\nk: yes\nl: !!str 7\n"
                               "---\n---\n[x, {y: null}]\n";
    json_object *docs = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(kube_yaml_parse(text, strlen(text), "t", &docs, err, sizeof err), 0);
    CU_ASSERT_EQUAL(json_object_array_length(docs), 2);
    json_object *m = json_object_array_get_idx(docs, 0);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN),
                           "{\"a\":1,\"b\":-2,\"c\":1.5,\"d\":true,\"e\":null,\"f\":\"1\","
                           "\"g\":31,\"h\":1000.0,\"i\":1e+20,\"j\":\"~\",\"k\":\"yes\","
                           "\"l\":\"7\"}");
    json_object_put(docs);
    static const char alias[] = "a: &x 1\nb: *x\n";
    CU_ASSERT_EQUAL(kube_yaml_parse(alias, strlen(alias), "t", &docs, err, sizeof err),
                    MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "t:2: YAML aliases are not supported"));
    static const char dup[] = "a: 1\na: 2\n";
    CU_ASSERT_EQUAL(kube_yaml_parse(dup, strlen(dup), "t", &docs, err, sizeof err), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "duplicate mapping key"));
    static const char bad[] = "a: [1, 2\n";
    CU_ASSERT_EQUAL(kube_yaml_parse(bad, strlen(bad), "t", &docs, err, sizeof err), MUSTER_EINVAL);
    CU_ASSERT_PTR_NULL(docs);
}

/* Every document of a stream, an empty one skipped; a scenario-like mapping keeps its nesting. */
static void test_documents(void)
{
    static const char text[] = "clusters:\n  - name: c1\n    nodes:\n      - {count: 4, "
                               "allocatable: {cpu: \"16\", pods: \"110\"}}\n---\n---\nkind: x\n";
    json_object *docs = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(kube_yaml_parse(text, strlen(text), "s", &docs, err, sizeof err), 0);
    CU_ASSERT_EQUAL(json_object_array_length(docs), 2);
    CU_ASSERT_STRING_EQUAL(
        json_object_to_json_string_ext(json_object_array_get_idx(docs, 0), JSON_C_TO_STRING_PLAIN),
        "{\"clusters\":[{\"name\":\"c1\",\"nodes\":[{\"count\":4,\"allocatable\":{\"cpu\":"
        "\"16\",\"pods\":\"110\"}}]}]}");
    json_object_put(docs);
    /* a key that is no scalar */
    static const char cplx[] = "? [a]\n: 1\n";
    CU_ASSERT_EQUAL(kube_yaml_parse(cplx, strlen(cplx), "s", &docs, err, sizeof err),
                    MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "s:1: mapping keys must be scalars"));
    CU_ASSERT_PTR_NULL(docs);
}

/* Nesting beyond KUBE_YAML_MAX_DEPTH and text beyond KUBE_YAML_MAX_BYTES are refused, not
 * recursed into or read. */
static void test_bounds(void)
{
    size_t n = KUBE_YAML_MAX_DEPTH + 8;
    char *deep = malloc(2 * n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    json_object *docs = NULL;
    char err[256];
    CU_ASSERT_EQUAL(kube_yaml_parse(deep, 2 * n, "d", &docs, err, sizeof err), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nested too deeply"));
    CU_ASSERT_PTR_NULL(docs);
    free(deep);
    CU_ASSERT_EQUAL(
        kube_yaml_parse("a: 1\n", (size_t)KUBE_YAML_MAX_BYTES + 1, "big", &docs, err, sizeof err),
        MUSTER_ELIMIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "big: more than"));
    CU_ASSERT_PTR_NULL(docs);
}

/* A file: read whole, or its problem named with the path. */
static void test_read_file(void)
{
    const char *dir = getenv("MUSTER_TEST_TMP");
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/test_yaml.%ld.yaml", dir ? dir : "/tmp", (long)getpid());
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("a: [1, two]\n", f);
    fclose(f);
    json_object *docs = NULL;
    CU_ASSERT_EQUAL_FATAL(kube_yaml_read(path, &docs, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(
        json_object_to_json_string_ext(json_object_array_get_idx(docs, 0), JSON_C_TO_STRING_PLAIN),
        "{\"a\":[1,\"two\"]}");
    json_object_put(docs);
    unlink(path);
    CU_ASSERT_EQUAL(kube_yaml_read(path, &docs, err, sizeof err), MUSTER_ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
    CU_ASSERT_PTR_NULL(docs);
}

/* Every allocation may fail: ENOMEM or the right tree, never a crash or a leak (ASan). */
static void test_allocation_failures(void)
{
    static const char text[] = "a: {b: [1, \"x\", {c: d}]}\n---\ne: f\n";
    int done = 0;
    for (long n = 0; n < 10000 && !done; n++) {
        json_object *docs = NULL;
        char err[256];
        muster_mem_fail_after(n);
        int rc = kube_yaml_parse(text, strlen(text), "m", &docs, err, sizeof err);
        muster_mem_fail_after(-1);
        if (rc == 0) {
            done = 1;
            CU_ASSERT_EQUAL(json_object_array_length(docs), 2);
        } else {
            CU_ASSERT_EQUAL(rc, MUSTER_ENOMEM);
            CU_ASSERT_PTR_NULL(docs);
        }
        json_object_put(docs);
        muster_mem_reset();
    }
    CU_ASSERT(done);
}

static CU_TestInfo tests[] = {
    {"YAML scalars and refusals", test_yaml_scalars},
    {"documents of a stream; keys must be scalars", test_documents},
    {"depth and size bounds", test_bounds},
    {"a file read, a missing one named", test_read_file},
    {"allocation failures", test_allocation_failures},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/yaml", tests)
