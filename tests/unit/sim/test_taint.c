/* Tests for cluster-adapters/sim/taint.c: Karmada's NoExecute taint manager
 * (pkg/controllers/cluster/taint_manager.go, ResourceBindingSpec.GracefulEvictCluster). */
#include "karmada_fixture.h"

static const char yaml[] =
    "clusters:\n"
    "  - name: m\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"10\"}}]\n"
    "  - name: n\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"10\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]}\n"
    "  - apiVersion: apps/v1\n"
    "    kind: Deployment\n"
    "    metadata: {name: web, namespace: team}\n"
    "    spec:\n"
    "      replicas: 2\n"
    "      template: {spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}}\n";

/* What muster writes at dispatch: placement, with the applied-placement annotation the taint
 * manager reads its tolerations from. */
static void dispatch(struct fx *f, const char *tolerations)
{
    char patch[1024];
    snprintf(patch, sizeof(patch),
             "{\"metadata\":{\"annotations\":{\"policy.karmada.io/applied-placement\":"
             "\"{\\\"clusterTolerations\\\":%s}\"}},\"spec\":{\"clusters\":[{\"name\":\"m\","
             "\"replicas\":1},{\"name\":\"n\",\"replicas\":1}],\"suspension\":{\"scheduling\":"
             "false}}}",
             tolerations);
    CU_ASSERT_EQUAL(fx_patch(f, FX_RB, "team", "web-deployment", patch), 0);
}

static void taint(struct fx *f, const char *cluster, const char *effect)
{
    char patch[256];
    snprintf(patch, sizeof(patch),
             "{\"spec\":{\"taints\":[{\"key\":\"maintenance\",\"value\":\"yes\",\"effect\":"
             "\"%s\"}]}}",
             effect);
    CU_ASSERT_EQUAL(fx_patch(f, FX_CLUSTER, NULL, cluster, patch), 0);
}

static const char *rb(struct fx *f, const char *path)
{
    return fx_field(f, FX_RB, "team", "web-deployment", path);
}

static void test_eviction(void)
{
    struct fx f;
    struct sim_karmada_options on = {.taint_eviction = 1};
    fx_start(&f, yaml, &on);
    dispatch(&f, "[]");
    /* NoSchedule evicts nothing. */
    taint(&f, "n", "NoSchedule");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters|1|name"), "n");
    /* NoExecute, not tolerated: n leaves spec.clusters with a graceful eviction task. */
    taint(&f, "n", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters"), "[{\"name\":\"m\",\"replicas\":1}]");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|fromCluster"), "n");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|purgeMode"), "Gracefully");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|reason"), "TaintUntolerated");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|producer"), "TaintManager");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|replicas"), "1");
    /* A graceful task keeps the evicted cluster's Work (ObtainBindingSpecExistingClusters). */
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-n"), 1);
    fx_stop(&f);
}

static void test_tolerated_or_disabled(void)
{
    struct fx f;
    struct sim_karmada_options on = {.taint_eviction = 1};
    fx_start(&f, yaml, &on);
    dispatch(&f, "[{\\\"key\\\":\\\"maintenance\\\",\\\"operator\\\":\\\"Exists\\\"}]");
    CU_ASSERT_PTR_NOT_NULL(
        strstr(rb(&f, "metadata|annotations|policy.karmada.io/applied-placement"), "maintenance"));
    taint(&f, "n", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters|1|name"), "n");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks"), "");
    fx_stop(&f);

    /* --enable-no-execute-taint-eviction defaults to false. */
    fx_start(&f, yaml, NULL);
    dispatch(&f, "[]");
    taint(&f, "n", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters|1|name"), "n");
    fx_stop(&f);

    /* A tainted cluster evicts an RB placed there later, too. */
    fx_start(&f, yaml, &on);
    taint(&f, "m", "NoExecute");
    dispatch(&f, "[]");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters"), "[{\"name\":\"n\",\"replicas\":1}]");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|fromCluster"), "m");
    fx_stop(&f);
}

static CU_TestInfo tests[] = {
    {"NoExecute taints evict untolerating RBs with a graceful task", test_eviction},
    {"tolerated taints and the default (off) evict nothing", test_tolerated_or_disabled},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/taint", tests)
