/* What the workload readers' tests share: fixture files under the source tree (read as JSON or
 * YAML, the way kubectl and the sim read them) and a substring check that says what it missed. */
#ifndef MUSTER_TESTS_KARMADA_FIXTURES_H
#define MUSTER_TESTS_KARMADA_FIXTURES_H

#include "cluster-adapters/kube/schema.h"
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
    if (kube_schema_read_yaml(p, &docs, err, sizeof(err)))
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

#endif
