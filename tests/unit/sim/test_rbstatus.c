/* Tests for cluster-adapters/sim/rbstatus.c: Karmada's RB status aggregation
 * (pkg/util/helper/workstatus.go AggregateResourceBindingWorkStatus, assembleWorkStatus,
 * GetManifestIndex), its abort on a permanent-id-labelled Work without the RB's manifest, the
 * rb_status predicate (pkg/controllers/status/common.go) and the health of a batch Job. */
#include "cluster-adapters/sim/rbstatus.h"
#include "karmada_fixture.h"

static const char yaml[] =
    "clusters:\n"
    "  - name: m\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"2\", pods: \"10\"}}]\n"
    "  - name: n\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"2\", pods: \"10\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec: {resourceSelectors: [{apiVersion: batch/v1, kind: Job}]}\n"
    "  - apiVersion: batch/v1\n"
    "    kind: Job\n"
    "    metadata: {name: etl, namespace: team}\n"
    "    spec:\n"
    "      parallelism: 4\n"
    "      template: {spec: {containers: [{name: e, resources: {requests: {cpu: \"1\"}}}]}}\n";

static const char *agg(struct fx *f, const char *path)
{
    return fx_field(f, FX_RB, "team", "etl-job", path);
}

/* Aggregation: one entry per Work, applied, the member's Job status; a batch Job is Healthy
 * even with pods Pending. A Work labelled with the RB's permanent id that lacks the RB's own
 * manifest stops every later aggregation; without it, aggregation resumes. */
static void test_aggregation_and_abort(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "etl-job",
                             "{\"spec\":{\"clusters\":[{\"name\":\"m\",\"replicas\":4}],"
                             "\"suspension\":{\"scheduling\":false}}}"),
                    0);
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|0|clusterName"), "m");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|0|applied"), "true");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|0|status|active"), "2");
    /* healthy.go: no health interpreter for batch/v1 Job, so Healthy with 2 pods Pending. */
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|0|health"), "Healthy");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|conditions|0|type"), "FullyApplied");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|conditions|0|status"), "True");

    /* muster's old PodGroup Work, labelled with the RB's permanent id. */
    char pid[4096], w[8192], label[4200];
    snprintf(pid, sizeof(pid), "%s",
             agg(&f, "metadata|labels|resourcebinding.karmada.io/permanent-id"));
    snprintf(label, sizeof(label), "\"resourcebinding.karmada.io/permanent-id\":\"%s\"", pid);
    fx_podgroup_work(w, sizeof(w), "etl-pg", "m", "etl-m", 4, label, 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    /* The share grows to the whole cluster and then to two clusters: nothing reaches the RB. */
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "etl-job",
                             "{\"spec\":{\"clusters\":[{\"name\":\"m\",\"replicas\":1}]}}"),
                    0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_WORK, "karmada-es-m",
                                    fx_work_named(&f, "karmada-es-m", "etl-"),
                                    "status|manifestStatuses|0|status|active"),
                           "1");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|0|status|active"), "2");
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "etl-job",
                             "{\"spec\":{\"clusters\":[{\"name\":\"m\",\"replicas\":1},"
                             "{\"name\":\"n\",\"replicas\":1}]}}"),
                    0);
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|1"), "");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|conditions|0|status"), "True");
    /* The label gone (muster's own label instead), aggregation resumes with the next change. */
    CU_ASSERT_EQUAL(fx_patch(&f, FX_WORK, "karmada-es-m", "etl-pg",
                             "{\"metadata\":{\"labels\":{\"resourcebinding.karmada.io/"
                             "permanent-id\":null,\"scheduling.muster.io/binding-uid\":\"u\"}}}"),
                    0);
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "etl-job",
                             "{\"spec\":{\"clusters\":[{\"name\":\"m\",\"replicas\":2},"
                             "{\"name\":\"n\",\"replicas\":1}]}}"),
                    0);
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|0|clusterName"), "m");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|0|status|active"), "2");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|1|clusterName"), "n");
    fx_stop(&f);
}

/* A Work not applied yet (a NotReady cluster) is an entry without applied, health Unknown, and
 * FullyApplied is False with Karmada's message. */
static void test_not_applied_entry(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(sim_karmada_set_ready(f.k, "n", 0), 0);
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "etl-job",
                             "{\"spec\":{\"clusters\":[{\"name\":\"m\",\"replicas\":2},"
                             "{\"name\":\"n\",\"replicas\":2}]}}"),
                    0);
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|1|clusterName"), "n");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|1|applied"), "");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|aggregatedStatus|1|health"), "Unknown");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|conditions|0|status"), "False");
    CU_ASSERT_STRING_EQUAL(agg(&f, "status|conditions|0|message"),
                           "Failed to apply all works, see status.aggregatedStatus for details");
    fx_stop(&f);
}

/* bindingPredicateFn: RB events count only once status.lastScheduledTime is set, on create or
 * when spec.resource.resourceVersion changed. */
static void test_binding_predicate(void)
{
    json_object *unscheduled =
        json_tokener_parse("{\"spec\":{\"resource\":{\"resourceVersion\":\"5\"}}}");
    json_object *scheduled = json_tokener_parse(
        "{\"spec\":{\"resource\":{\"resourceVersion\":\"5\"}},\"status\":{\"lastScheduledTime\":"
        "\"2026-11-26T00:00:00Z\"}}");
    json_object *moved = json_tokener_parse(
        "{\"spec\":{\"resource\":{\"resourceVersion\":\"6\"}},\"status\":{\"lastScheduledTime\":"
        "\"2026-11-26T00:00:00Z\"}}");
    struct sim_event ev = {SIM_EVENT_ADDED, 1, FX_RB, unscheduled, NULL};
    CU_ASSERT_EQUAL(sim__rbstatus_wants(&ev), 0);
    ev.obj = scheduled;
    CU_ASSERT_EQUAL(sim__rbstatus_wants(&ev), 1);
    ev.type = SIM_EVENT_MODIFIED;
    ev.prev = scheduled;
    CU_ASSERT_EQUAL(sim__rbstatus_wants(&ev), 0);
    ev.obj = moved;
    CU_ASSERT_EQUAL(sim__rbstatus_wants(&ev), 1);
    ev.type = SIM_EVENT_DELETED;
    CU_ASSERT_EQUAL(sim__rbstatus_wants(&ev), 0);
    json_object_put(unscheduled);
    json_object_put(scheduled);
    json_object_put(moved);
}

static CU_TestInfo tests[] = {
    {"aggregation; its abort on a labelled Work without the RB's manifest",
     test_aggregation_and_abort},
    {"a Work not applied: no applied, health Unknown, FullyApplied False", test_not_applied_entry},
    {"the rb_status predicate wants lastScheduledTime", test_binding_predicate},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/rbstatus", tests)
