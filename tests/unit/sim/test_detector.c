/* Tests for cluster-adapters/sim/detector.c: Karmada's resource detector
 * (pkg/detector/detector.go): the Volcano Job RB with the MultiplePodTemplatesScheduling gate
 * off and on (pkg/features/features.go), MergePolicySuspension on template changes
 * (pkg/util/binding.go), and the binding controller's finalizer on the RB. */
#include "karmada_fixture.h"

static const char yaml[] =
    "clusters:\n"
    "  - name: m\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"10\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec:\n"
    "      schedulerName: muster\n"
    "      resourceSelectors: [{apiVersion: batch.volcano.sh/v1alpha1, kind: Job},\n"
    "                          {apiVersion: apps/v1, kind: Deployment}]\n";

static const char vcjob[] =
    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":"
    "\"mpi\"},\"spec\":{\"minAvailable\":3,\"tasks\":[{\"name\":\"w\",\"replicas\":3,"
    "\"template\":{\"spec\":{\"containers\":[{\"name\":\"w\",\"resources\":{\"requests\":"
    "{\"cpu\":\"1\"}}}]}}}]}}";

static const char deploy[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
    "\"spec\":{\"replicas\":2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
    "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}}}";

/* applyReplicaInterpretation: components only with the gate; without it no replica fields. */
static void test_volcano_job_gate(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_create(&f, FX_VCJOB, "team", vcjob), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "mpi-job", "spec|resource|kind"), "Job");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "mpi-job", "spec|components"), "");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "mpi-job", "spec|replicas"), "");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "mpi-job", "spec|replicaRequirements"), "");
    fx_stop(&f);

    struct sim_karmada_options on = {.multiple_pod_templates = 1};
    fx_start(&f, yaml, &on);
    CU_ASSERT_EQUAL(fx_create(&f, FX_VCJOB, "team", vcjob), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "mpi-job", "spec|components|0|name"), "w");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "mpi-job", "spec|components|0|replicas"),
                           "1");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "mpi-job", "spec|replicas"), "");
    fx_stop(&f);
}

/* MergePolicySuspension: a template change resets dispatching (and dispatchingOnClusters) to
 * the policy's and keeps scheduling; a status-only write of the template changes nothing. */
static void test_merge_policy_suspension(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_create(&f, FX_DEPLOY, "team", deploy), 0);
    /* muster's barrier (commit step 3). */
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "web-deployment",
                             "{\"spec\":{\"suspension\":{\"dispatching\":true,"
                             "\"dispatchingOnClusters\":{\"clusterNames\":[\"m\"]}}}}"),
                    0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "web-deployment", "spec|suspension"),
                           "{\"scheduling\":true,\"dispatching\":true,\"dispatchingOnClusters\":{"
                           "\"clusterNames\":[\"m\"]}}");
    /* Only the template's status: no ApplyPolicy. */
    CU_ASSERT_EQUAL(fx_patch_status(&f, FX_DEPLOY, "team", "web", "{\"status\":{\"replicas\":2}}"),
                    0);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_RB, "team", "web-deployment", "spec|suspension|dispatching"), "true");
    /* A label on the template: the policy has no suspension, so dispatching goes. */
    CU_ASSERT_EQUAL(
        fx_patch(&f, FX_DEPLOY, "team", "web", "{\"metadata\":{\"labels\":{\"x\":\"1\"}}}"), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "web-deployment", "spec|suspension"),
                           "{\"scheduling\":true}");
    /* A policy with suspension.dispatching: that is what the next change re-imposes. */
    CU_ASSERT_EQUAL(fx_patch(&f, fx_res("policy.karmada.io", "v1alpha1", "propagationpolicies"),
                             "team", "pp", "{\"spec\":{\"suspension\":{\"dispatching\":false}}}"),
                    0);
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "web-deployment",
                             "{\"spec\":{\"suspension\":{\"dispatching\":true}}}"),
                    0);
    CU_ASSERT_EQUAL(fx_patch(&f, FX_DEPLOY, "team", "web", "{\"spec\":{\"replicas\":3}}"), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "web-deployment", "spec|suspension"),
                           "{\"dispatching\":false,\"scheduling\":true}");
    fx_stop(&f);
}

struct seen {
    int marked, deleted;
};

static void watch_rb(void *data, const struct sim_event *ev)
{
    struct seen *s = data;
    if (strcmp(ev->res->plural, "resourcebindings") != 0)
        return;
    if (ev->type == SIM_EVENT_MODIFIED && sim_meta_str(ev->obj, "deletionTimestamp") &&
        !sim_meta_str(ev->prev, "deletionTimestamp"))
        s->marked++;
    if (ev->type == SIM_EVENT_DELETED)
        s->deleted += s->marked; /* counted only after the mark */
}

/* BuildResourceBinding adds the binding controller's finalizer: deleting the template shows
 * the RB with a deletionTimestamp before it goes. */
static void test_binding_finalizer(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_create(&f, FX_DEPLOY, "team", deploy), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "web-deployment", "metadata|finalizers"),
                           "[\"karmada.io/binding-controller\"]");
    struct seen s = {0, 0};
    struct sim_store_watch *w = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_watch(f.s, sim_store_rv(f.s), watch_rb, &s, &w, NULL), 0);
    CU_ASSERT_EQUAL(sim_store_delete(f.s, FX_DEPLOY, "team", "web", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(s.marked, 1);
    CU_ASSERT_EQUAL(s.deleted, 1);
    CU_ASSERT_EQUAL(sim_store_get(f.s, FX_RB, "team", "web-deployment", NULL, NULL), MUSTER_ENOENT);
    sim_store_unwatch(f.s, w);
    fx_stop(&f);
}

static CU_TestInfo tests[] = {
    {"Volcano Job RB: MultiplePodTemplatesScheduling off and on", test_volcano_job_gate},
    {"MergePolicySuspension on template changes", test_merge_policy_suspension},
    {"the RB carries the binding controller's finalizer", test_binding_finalizer},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/detector", tests)
