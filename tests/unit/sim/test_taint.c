/* Tests for cluster-adapters/sim/taint.c, cluster.c and gracefuleviction.c: Karmada's NoExecute
 * taint manager (pkg/controllers/cluster/taint_manager.go,
 * ResourceBindingSpec.GracefulEvictCluster, helper.GetMatchingTolerations /
 * GetMinTolerationTimeWithCurrentTime), its gates (the Failover feature gate,
 * --enable-no-execute-taint-eviction), the cluster controller's NoSchedule taints by condition
 * (cluster_controller.go taintClusterByCondition) and the graceful eviction controller
 * (gracefuleviction/evictiontask.go assessEvictionTasks). */
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

/* The fixture's clock as the controllers write it. */
static const char *now_str(void)
{
    static char ts[32];
    sim_format_time(fx_clock, ts, sizeof(ts));
    return ts;
}

static const char *rb(struct fx *f, const char *path)
{
    return fx_field(f, FX_RB, "team", "web-deployment", path);
}

static void test_eviction(void)
{
    struct fx f;
    struct sim_karmada_options on = {.failover = 1, .taint_eviction = 1};
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
    /* The graceful eviction controller stamps the task (the taint manager does not). */
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|creationTimestamp"), now_str());
    /* A graceful task keeps the evicted cluster's Work (ObtainBindingSpecExistingClusters). */
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-n"), 1);
    /* The last cluster: spec.clusters goes (omitempty), a second task comes. */
    taint(&f, "m", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters"), "");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|1|fromCluster"), "m");
    fx_stop(&f);
}

static void test_tolerated_or_disabled(void)
{
    struct fx f;
    struct sim_karmada_options on = {.failover = 1, .taint_eviction = 1};
    fx_start(&f, yaml, &on);
    dispatch(&f, "[{\\\"key\\\":\\\"maintenance\\\",\\\"operator\\\":\\\"Exists\\\"}]");
    CU_ASSERT_PTR_NOT_NULL(
        strstr(rb(&f, "metadata|annotations|policy.karmada.io/applied-placement"), "maintenance"));
    taint(&f, "n", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters|1|name"), "n");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks"), "");
    fx_stop(&f);

    /* --enable-no-execute-taint-eviction defaults to false; the Failover gate too, and without
     * it karmada-controller-manager does not start the taint manager at all. */
    struct sim_karmada_options half[] = {{.taint_eviction = 1}, {.failover = 1}};
    for (size_t i = 0; i < 3; i++) {
        fx_start(&f, yaml, i < 2 ? &half[i] : NULL);
        dispatch(&f, "[]");
        taint(&f, "n", "NoExecute");
        CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters|1|name"), "n");
        CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks"), "");
        fx_stop(&f);
    }

    /* A tainted cluster evicts an RB placed there later, too. */
    fx_start(&f, yaml, &on);
    taint(&f, "m", "NoExecute");
    dispatch(&f, "[]");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters"), "[{\"name\":\"n\",\"replicas\":1}]");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|fromCluster"), "m");
    fx_stop(&f);
}

/* The taint manager looks at neither suspension nor schedulerName: an RB muster holds (its
 * scheduler, scheduling suspended) is evicted like any other. Purge mode: the RB's
 * spec.failover.cluster.purgeMode, else the flag's (Gracefully by default). */
static void test_muster_rb_and_purge_mode(void)
{
    struct fx f;
    struct sim_karmada_options on = {.failover = 1, .taint_eviction = 1};
    fx_start(&f, yaml, &on);
    dispatch(&f, "[]");
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "web-deployment",
                             "{\"spec\":{\"schedulerName\":\"muster\",\"suspension\":"
                             "{\"scheduling\":true,\"dispatching\":true}}}"),
                    0);
    taint(&f, "n", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters"), "[{\"name\":\"m\",\"replicas\":1}]");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|purgeMode"), "Gracefully");
    fx_stop(&f);

    struct sim_karmada_options directly = {
        .failover = 1, .taint_eviction = 1, .taint_purge_directly = 1};
    fx_start(&f, yaml, &directly);
    dispatch(&f, "[]");
    taint(&f, "n", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|purgeMode"), "Directly");
    /* A Directly purged cluster keeps no Work (ObtainBindingSpecExistingClusters). */
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-n"), 0);
    fx_stop(&f);

    fx_start(&f, yaml, &directly);
    dispatch(&f, "[]");
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "web-deployment",
                             "{\"spec\":{\"failover\":{\"cluster\":{\"decisionConditions\":{}}}}}"),
                    0);
    taint(&f, "n", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|purgeMode"), "Gracefully");
    fx_stop(&f);
}

/* tolerationSeconds counts from the taint's timeAdded: evicted once it has run out (the tick);
 * a taint without timeAdded is tolerated for ever (GetMinTolerationTimeWithCurrentTime skips
 * it). */
static void test_toleration_seconds(void)
{
    struct fx f;
    struct sim_karmada_options on = {.failover = 1, .taint_eviction = 1};
    fx_start(&f, yaml, &on);
    dispatch(&f, "[{\\\"key\\\":\\\"maintenance\\\",\\\"operator\\\":\\\"Exists\\\","
                 "\\\"effect\\\":\\\"NoExecute\\\",\\\"tolerationSeconds\\\":30}]");
    char patch[256];
    char ts[32];
    sim_format_time(fx_clock, ts, sizeof(ts));
    snprintf(patch, sizeof(patch),
             "{\"spec\":{\"taints\":[{\"key\":\"maintenance\",\"effect\":\"NoExecute\","
             "\"timeAdded\":\"%s\"}]}}",
             ts);
    CU_ASSERT_EQUAL(fx_patch(&f, FX_CLUSTER, NULL, "n", patch), 0);
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters|1|name"), "n");
    fx_clock += 29;
    sim_karmada_tick(f.k);
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters|1|name"), "n");
    fx_clock += 1;
    sim_karmada_tick(f.k);
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters"), "[{\"name\":\"m\",\"replicas\":1}]");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|fromCluster"), "n");
    fx_stop(&f);

    fx_start(&f, yaml, &on);
    dispatch(&f, "[{\\\"key\\\":\\\"maintenance\\\",\\\"operator\\\":\\\"Exists\\\","
                 "\\\"tolerationSeconds\\\":30}]");
    taint(&f, "n", "NoExecute"); /* no timeAdded */
    fx_clock += 3600;
    sim_karmada_tick(f.k);
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|clusters|1|name"), "n");
    fx_stop(&f);
}

static const char *cluster(struct fx *f, const char *name, const char *path)
{
    return fx_field(f, FX_CLUSTER, NULL, name, path);
}

/* taintClusterByCondition: Ready False adds cluster.karmada.io/not-ready:NoSchedule, Unknown
 * swaps it for unreachable, True removes both; other taints stay; never NoExecute. The member
 * going NotReady reports False/ClusterNotReachable; Unknown is the health monitor's. */
static void test_cluster_controller_taints(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints"), "");
    taint(&f, "n", "NoExecute");
    CU_ASSERT_EQUAL(sim_karmada_set_ready(f.k, "n", SIM_CLUSTER_UNREACHABLE), 0);
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "status|conditions|1|type"), "Ready");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "status|conditions|1|status"), "False");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "status|conditions|1|reason"), "ClusterNotReachable");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints|0|key"), "maintenance");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints|1|key"), "cluster.karmada.io/not-ready");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints|1|effect"), "NoSchedule");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints|1|timeAdded"), now_str());
    CU_ASSERT_EQUAL(sim_karmada_set_ready(f.k, "n", SIM_CLUSTER_UNKNOWN), 0);
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "status|conditions|1|status"), "Unknown");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "status|conditions|1|reason"), "ClusterStatusUnknown");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "status|conditions|1|message"),
                           "Cluster status controller stopped posting cluster status.");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints|1|key"), "cluster.karmada.io/unreachable");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints|2|key"), "");
    CU_ASSERT_EQUAL(sim_karmada_set_ready(f.k, "n", SIM_CLUSTER_READY), 0);
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "status|conditions|1|status"), "True");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints|0|key"), "maintenance");
    CU_ASSERT_STRING_EQUAL(cluster(&f, "n", "spec|taints|1|key"), "");
    /* Whoever writes the condition: a client's /status patch is acted on the same way. */
    CU_ASSERT_EQUAL(fx_patch_status(&f, FX_CLUSTER, NULL, "m",
                                    "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
                                    "\"False\",\"reason\":\"ClusterNotReady\"}]}}"),
                    0);
    CU_ASSERT_STRING_EQUAL(cluster(&f, "m", "spec|taints|0|key"), "cluster.karmada.io/not-ready");
    fx_stop(&f);
}

/* assessEvictionTasks: a task goes once its RB is scheduled (schedulerObservedGeneration =
 * generation) and every cluster left is Healthy, or once it is older than the timeout
 * (gracePeriodSeconds, else 10 minutes); suppressDeletion true keeps it. */
static void test_graceful_eviction_controller(void)
{
    struct fx f;
    struct sim_karmada_options on = {.failover = 1, .taint_eviction = 1};
    fx_start(&f, yaml, &on);
    dispatch(&f, "[]");
    taint(&f, "n", "NoExecute");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|fromCluster"), "n");
    fx_clock += 600;
    sim_karmada_tick(f.k);
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|fromCluster"), "n");
    fx_clock += 1;
    sim_karmada_tick(f.k);
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks"), "");
    /* The evicted cluster's Work goes with the task. */
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-n"), 0);
    fx_stop(&f);

    fx_start(&f, yaml, &on);
    dispatch(&f, "[]");
    taint(&f, "n", "NoExecute");
    char st[256];
    snprintf(
        st, sizeof(st),
        "{\"status\":{\"schedulerObservedGeneration\":%s,\"aggregatedStatus\":[{\"clusterName\":"
        "\"m\",\"applied\":true,\"health\":\"Healthy\"}]}}",
        rb(&f, "metadata|generation"));
    CU_ASSERT_EQUAL(fx_patch_status(&f, FX_RB, "team", "web-deployment", st), 0);
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks"), "");
    fx_stop(&f);

    fx_start(&f, yaml, &on);
    dispatch(&f, "[]");
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "web-deployment",
                             "{\"spec\":{\"gracefulEvictionTasks\":[{\"fromCluster\":\"x\","
                             "\"reason\":\"r\",\"producer\":\"p\",\"suppressDeletion\":true},"
                             "{\"fromCluster\":\"y\",\"reason\":\"r\",\"producer\":\"p\","
                             "\"gracePeriodSeconds\":5}]}}"),
                    0);
    fx_clock += 6;
    sim_karmada_tick(f.k);
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|0|fromCluster"), "x");
    CU_ASSERT_STRING_EQUAL(rb(&f, "spec|gracefulEvictionTasks|1|fromCluster"), "");
    fx_stop(&f);
}

static CU_TestInfo tests[] = {
    {"NoExecute taints evict untolerating RBs with a graceful task", test_eviction},
    {"tolerated taints and the defaults (off) evict nothing", test_tolerated_or_disabled},
    {"muster's RBs are evicted too; purge modes", test_muster_rb_and_purge_mode},
    {"tolerationSeconds from the taint's timeAdded", test_toleration_seconds},
    {"cluster controller: NoSchedule taints by the Ready condition",
     test_cluster_controller_taints},
    {"graceful eviction controller: stamp, healthy, timeout, suppressDeletion",
     test_graceful_eviction_controller},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/taint", tests)
