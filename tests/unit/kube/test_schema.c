/* Tests for cluster-adapters/kube/schema.c: the reference CRDs load, a CRD or swagger file that
 * cannot be loaded says why, and allocation failures (validation: test_schema_validate.c). */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"
#include "schema_fixtures.h"
#include "testing.h"

#include <json-c/json_pointer.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

static void test_reference_present(void)
{
    char dir[1024];
    crd_path(dir, sizeof dir, "SOURCES.md");
    struct stat st;
    if (!getenv("MUSTER_SOURCE_DIR") || stat(dir, &st) != 0) {
        fprintf(stderr,
                "\nreference CRDs missing: %s not found (MUSTER_SOURCE_DIR=%s). They are "
                "part of the repository: tests/fixtures/reference/crds.\n",
                dir, getenv("MUSTER_SOURCE_DIR") ? getenv("MUSTER_SOURCE_DIR") : "(unset)");
        CU_FAIL_FATAL("reference CRDs not found in the checkout");
    }
}

static void test_load_reference(void)
{
    static const struct {
        const char *file, *version, *api_version, *kind;
    } crds[] = {
        {RB_CRD, "v1alpha2", "work.karmada.io/v1alpha2", "ResourceBinding"},
        {RB_CRD, "v1alpha1", "work.karmada.io/v1alpha1", "ResourceBinding"},
        {CRB_CRD, "v1alpha2", "work.karmada.io/v1alpha2", "ClusterResourceBinding"},
        {WORK_CRD, "v1alpha1", "work.karmada.io/v1alpha1", "Work"},
        {OP_CRD, "v1alpha1", "policy.karmada.io/v1alpha1", "OverridePolicy"},
        {PP_CRD, "v1alpha1", "policy.karmada.io/v1alpha1", "PropagationPolicy"},
        {PG_CRD, "v1beta1", "scheduling.volcano.sh/v1beta1", "PodGroup"},
        {QUEUE_CRD, "v1beta1", "scheduling.volcano.sh/v1beta1", "Queue"},
        {VCJOB_CRD, "v1alpha1", "batch.volcano.sh/v1alpha1", "Job"},
        {CLUSTER_DEFS, CLUSTER_DEF, "cluster.karmada.io/v1alpha1", "Cluster"},
    };
    for (size_t i = 0; i < sizeof crds / sizeof crds[0]; i++) {
        struct kube_schema *s = load(crds[i].file, crds[i].version);
        CU_ASSERT_STRING_EQUAL(kube_schema_api_version(s), crds[i].api_version);
        CU_ASSERT_STRING_EQUAL(kube_schema_kind(s), crds[i].kind);
        kube_schema_free(s);
    }
    kube_schema_free(NULL);
}

static void test_load_errors(void)
{
    char path[1024], err[512];
    struct kube_schema *s = (struct kube_schema *)&s;
    crd_path(path, sizeof path, RB_CRD);
    CU_ASSERT_EQUAL(kube_schema_load_crd(path, "v9", &s, err, sizeof err), MUSTER_ENOENT);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no version v9 (the CRD has: v1alpha1, v1alpha2)"));
    crd_path(path, sizeof path, "no-such-crd.yaml");
    CU_ASSERT_EQUAL(kube_schema_load_crd(path, "v1", &s, err, sizeof err), MUSTER_ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-crd.yaml"));
    crd_path(path, sizeof path, CLUSTER_DEFS);
    CU_ASSERT_EQUAL(kube_schema_load_swagger(path, "Nope", &s, err, sizeof err), MUSTER_ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no definition Nope"));
    fixture_path(path, sizeof path, "resourcebinding.json");
    CU_ASSERT_EQUAL(kube_schema_load_crd(path, "v1", &s, err, sizeof err), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no CustomResourceDefinition document"));

    test_tmp_path(path, sizeof path, "bad-crd.yaml");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
          "spec:\n  group: g.io\n  names: {kind: K}\n  versions:\n  - name: v1\n"
          "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n"
          "          spec: {type: map}\n",
          f);
    fclose(f);
    CU_ASSERT_EQUAL(kube_schema_load_crd(path, "v1", &s, err, sizeof err), MUSTER_EINVAL);
    CU_ASSERT_PTR_NULL(s);
    char want[1200];
    snprintf(want, sizeof want,
             "%s: versions[v1].schema.openAPIV3Schema.properties.spec: unknown type \"map\"", path);
    CU_ASSERT_STRING_EQUAL(err, want);
    remove(path);
}

/* Every allocation in load and validate may fail: the result is ENOMEM or success, never a
 * crash or a leak (ASan checks the latter). */
static void test_allocation_failures(void)
{
    char path[1024], err[512];
    crd_path(path, sizeof path, WORK_CRD);
    json_object *bad = with("work-podgroup.json", "/spec/foo", json_object_new_int(1));
    int loaded = 0, validated = 0;
    for (long n = 0; n < 100000 && !(loaded && validated); n++) {
        struct kube_schema *s = NULL;
        muster_mem_fail_after(n);
        int rc = kube_schema_load_crd(path, "v1alpha1", &s, err, sizeof err);
        if (rc == 0) {
            loaded = 1;
            struct kube_schema_errors e;
            kube_schema_errors_init(&e);
            int vr = kube_schema_validate(s, bad, &e);
            CU_ASSERT(vr == MUSTER_EINVAL || vr == MUSTER_ENOMEM);
            if (vr == MUSTER_EINVAL) {
                validated = 1;
                CU_ASSERT_EQUAL(e.count, 1);
            }
            kube_schema_errors_close(&e);
        } else {
            CU_ASSERT_EQUAL(rc, MUSTER_ENOMEM);
            CU_ASSERT_PTR_NULL(s);
        }
        kube_schema_free(s);
        muster_mem_reset();
    }
    muster_mem_fail_after(-1);
    CU_ASSERT(loaded && validated);
    json_object_put(bad);
}

static void test_bad_arguments(void)
{
    struct kube_schema_errors e;
    kube_schema_errors_init(&e);
    CU_ASSERT_EQUAL(kube_schema_validate(NULL, NULL, &e), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(kube_schema_load_crd(NULL, "v1", NULL, NULL, 0), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(kube_schema_kind(NULL), "");
    kube_schema_errors_close(&e);
}

static CU_TestInfo tests[] = {
    {"reference folder present", test_reference_present},
    {"load every reference CRD and the Cluster definition", test_load_reference},
    {"load errors name the file and what is wrong", test_load_errors},
    {"allocation failures", test_allocation_failures},
    {"bad arguments", test_bad_arguments},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/schema", tests)
