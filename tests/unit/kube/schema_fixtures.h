/* What the schema module's tests share (test_schema.c: loading; test_schema_validate.c:
 * validation): the reference CRDs and fixtures, and expectations on validation results. */
#ifndef MUSTER_TESTS_KUBE_SCHEMA_FIXTURES_H
#define MUSTER_TESTS_KUBE_SCHEMA_FIXTURES_H

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/schema.h"
#include "queue/errors.h"
#include "testing.h"

#include <json-c/json_pointer.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_CRD "karmada_work.karmada.io_resourcebindings.yaml"
#define CRB_CRD "karmada_work.karmada.io_clusterresourcebindings.yaml"
#define WORK_CRD "karmada_work.karmada.io_works.yaml"
#define OP_CRD "karmada_policy.karmada.io_overridepolicies.yaml"
#define PP_CRD "karmada_policy.karmada.io_propagationpolicies.yaml"
#define PG_CRD "volcano_scheduling.volcano.sh_podgroups.yaml"
#define QUEUE_CRD "volcano_scheduling.volcano.sh_queues.yaml"
#define VCJOB_CRD "volcano_batch.volcano.sh_jobs.yaml"
#define CLUSTER_DEFS "karmada_cluster.karmada.io_v1alpha1_openapi_definitions.json"
#define CLUSTER_DEF "com.github.karmada-io.karmada.pkg.apis.cluster.v1alpha1.Cluster"

#define QUANTITY_RE                                                                                \
    "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+("   \
    "\\.[0-9]*)?)|(\\.[0-9]+))))?$"

/* The reference CRDs are part of the repository (tests/fixtures/reference/README.md), so their
 * absence is a broken checkout and fails loudly instead of skipping. */
static inline void ref_path(char *buf, size_t cap, const char *file)
{
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(buf, cap, "%s/tests/fixtures/reference/%s", src ? src : ".", file);
}

static inline void crd_path(char *buf, size_t cap, const char *file)
{
    char rel[256];
    snprintf(rel, sizeof rel, "crds/%s", file);
    ref_path(buf, cap, rel);
}

static inline void fixture_path(char *buf, size_t cap, const char *file)
{
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(buf, cap, "%s/tests/fixtures/objects/%s", src ? src : ".", file);
}

static inline struct kube_schema *load(const char *file, const char *version)
{
    char path[1024], err[512];
    crd_path(path, sizeof path, file);
    struct kube_schema *s = NULL;
    int rc = strstr(file, ".json") ? kube_schema_load_swagger(path, version, &s, err, sizeof err)
                                   : kube_schema_load_crd(path, version, &s, err, sizeof err);
    if (rc)
        fprintf(stderr, "\nload %s %s: %s (%s)\n", file, version, err, kube_errname(rc));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(kube_schema_unchecked_patterns(s), 0);
    return s;
}

static inline json_object *fixture(const char *file)
{
    char path[1024];
    fixture_path(path, sizeof path, file);
    json_object *o = json_object_from_file(path);
    if (!o)
        fprintf(stderr, "\nfixture %s: %s\n", path, json_util_get_last_err());
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

static inline void print_errors(const char *what, const struct kube_schema_errors *e)
{
    fprintf(stderr, "\n%s: %zu error(s)\n", what, e->count);
    for (size_t i = 0; i < e->count; i++)
        fprintf(stderr, "  %s\n", e->msgs[i]);
}

static inline void expect_valid(const struct kube_schema *s, json_object *obj, const char *what)
{
    struct kube_schema_errors e;
    kube_schema_errors_init(&e);
    int rc = kube_schema_validate(s, obj, &e);
    if (rc)
        print_errors(what, &e);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(e.count, 0);
    kube_schema_errors_close(&e);
}

/* Validates and expects exactly the given messages (NULL-terminated), in any order. */
static inline void expect_errors(const struct kube_schema *s, json_object *obj, const char *what,
                                 ...)
{
    struct kube_schema_errors e;
    kube_schema_errors_init(&e);
    int rc = kube_schema_validate(s, obj, &e);
    CU_ASSERT_EQUAL(rc, MUSTER_EINVAL);
    va_list ap;
    va_start(ap, what);
    size_t want = 0;
    int ok = 1;
    for (const char *m = va_arg(ap, const char *); m; m = va_arg(ap, const char *)) {
        want++;
        int found = 0;
        for (size_t i = 0; i < e.count; i++)
            found |= !strcmp(e.msgs[i], m);
        if (!found) {
            fprintf(stderr, "\n%s: missing expected error: %s", what, m);
            ok = 0;
        }
    }
    va_end(ap);
    if (want != e.count)
        ok = 0;
    if (!ok)
        print_errors(what, &e);
    CU_ASSERT(ok);
    kube_schema_errors_close(&e);
}

/* A copy of fixture `file` with the value at JSON pointer `ptr` replaced by `value` (owned;
 * NULL sets JSON null). */
static inline json_object *with(const char *file, const char *ptr, json_object *value)
{
    json_object *o = fixture(file);
    CU_ASSERT_EQUAL_FATAL(json_pointer_set(&o, ptr, value), 0);
    return o;
}

/* A copy of fixture `file` without key `key` of the object at `parent`. */
static inline json_object *without(const char *file, const char *parent, const char *key)
{
    json_object *o = fixture(file), *p = NULL;
    CU_ASSERT_EQUAL_FATAL(json_pointer_get(o, parent, &p), 0);
    CU_ASSERT_FATAL(json_object_object_get_ex(p, key, NULL));
    json_object_object_del(p, key);
    return o;
}

#endif
