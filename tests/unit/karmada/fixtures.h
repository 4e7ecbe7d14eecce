/* What the workload readers' tests share: fixture files under the source tree (read as JSON or
 * YAML, the way kubectl and the sim read them) and a substring check that says what it missed. */
#ifndef MUSTER_TESTS_KARMADA_FIXTURES_H
#define MUSTER_TESTS_KARMADA_FIXTURES_H

#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "testing.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GI (1024LL * 1024 * 1024 * 1000)
#define MI (1024LL * 1024 * 1000)

/* rel (a path from the source tree's root) under MUSTER_SOURCE_DIR, or the working directory. */
static inline void fx_path(char *buf, size_t cap, const char *rel)
{
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(buf, cap, "%s/%s", src ? src : ".", rel);
}

/* A JSON fixture, owned by the caller; NULL (said on stderr) when it cannot be read. */
static inline json_object *fx_load_json(const char *rel)
{
    char p[1024];
    fx_path(p, sizeof(p), rel);
    json_object *o = json_object_from_file(p);
    if (!o)
        fprintf(stderr, "\ncannot read %s\n", p);
    return o;
}

/* Every document of a YAML fixture as an array, owned by the caller; NULL when unreadable. */
static inline json_object *fx_load_docs(const char *rel)
{
    char p[1024], err[256];
    fx_path(p, sizeof(p), rel);
    json_object *docs = NULL;
    if (kube_yaml_read(p, &docs, err, sizeof(err)))
        fprintf(stderr, "\n%s\n", err);
    return docs;
}

/* The first document of a YAML fixture, owned by the caller; the test stops when there is none. */
static inline json_object *fx_load_yaml(const char *rel)
{
    json_object *docs = fx_load_docs(rel);
    json_object *doc = json_object_get(json_object_array_get_idx(docs, 0));
    json_object_put(docs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    return doc;
}

/* 1 when haystack holds needle; else 0, and both on stderr. */
static inline int fx_has(const char *haystack, const char *needle)
{
    if (!haystack || !strstr(haystack, needle)) {
        fprintf(stderr, "\n\"%s\" does not contain \"%s\"\n", haystack ? haystack : "(null)",
                needle);
        return 0;
    }
    return 1;
}

/* Validates o against a vendored CRD (tests/fixtures/reference/crds/<file>) at version, loaded
 * into *slot the first time; every schema error on stderr. */
static inline void fx_valid_as(struct kube_schema **slot, const char *file, const char *version,
                               json_object *o)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    if (!*slot) {
        char rel[256], path[1024], err[512];
        snprintf(rel, sizeof(rel), "tests/fixtures/reference/crds/%s", file);
        fx_path(path, sizeof(path), rel);
        CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(path, version, slot, err, sizeof(err)), 0);
    }
    struct kube_schema_errors errs;
    kube_schema_errors_init(&errs);
    int rc = kube_schema_validate(*slot, o, &errs);
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "\n%s: %s", file, errs.msgs[i]);
    CU_ASSERT_EQUAL(rc, 0);
    kube_schema_errors_close(&errs);
}

/* The value at a slash-separated path ("spec/replicatedJobs/0/replicas"): object keys, and
 * indexes where the value is an array; NULL when absent. */
static inline json_object *fx_at(json_object *o, const char *path)
{
    char key[256];
    while (o && *path) {
        const char *slash = strchr(path, '/');
        size_t len = slash ? (size_t)(slash - path) : strlen(path);
        snprintf(key, sizeof(key), "%.*s", (int)len, path);
        if (json_object_is_type(o, json_type_array))
            o = json_object_array_get_idx(o, (size_t)strtoul(key, NULL, 10));
        else if (!json_object_object_get_ex(o, key, &o))
            o = NULL;
        path += len + (slash ? 1 : 0);
    }
    return o;
}

#endif
