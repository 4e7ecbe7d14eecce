/* Tests for cluster-adapters/sim/execution.c and the member's status reflection (member.c):
 * Karmada's execution controller (pkg/controllers/execution/execution_controller.go) and object
 * watcher (pkg/util/objectwatcher/objectwatcher.go), the work status controller
 * (pkg/controllers/status/work_status_controller.go), and Volcano's gang rules in a member. */
#include "cluster-adapters/sim/member.h"
#include "karmada_fixture.h"

static const char yaml[] = "clusters:\n"
                           "  - name: m\n"
                           "    nodes: [{count: 2, allocatable: {cpu: \"4\", pods: \"10\"}}]\n"
                           "objects:\n"
                           "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n";

static const char *member_min(struct fx *f, const char *group)
{
    static char out[32];
    json_object *pg = fx_member(f, "m", "PodGroup", group);
    snprintf(out, sizeof(out), "%s", pg ? fx_at(pg, "spec|minMember") : "absent");
    json_object_put(pg);
    return out;
}

/* A managed PodGroup comes and goes with its Work (the finalizer); an update reaches it. */
static void test_managed_create_update_delete(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    char w[2048];
    fx_podgroup_work(w, sizeof(w), "pg-work", "m", "g", 2, "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "2");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg-work", "status|conditions|1|type"), "Applied");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg-work", "status|conditions|1|reason"),
        "AppliedSuccessful");
    /* A re-dispatch with another minMember updates the member's PodGroup. */
    fx_podgroup_work(w, sizeof(w), "pg-work", "m", "g", 3, "", 1, 1);
    json_object *o = json_tokener_parse(w);
    CU_ASSERT_EQUAL(sim_store_update(f.s, FX_WORK, "karmada-es-m", "pg-work", o, 0, NULL, NULL), 0);
    json_object_put(o);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "3");
    /* Deleted: the execution controller deletes the member object, then the finalizer. */
    CU_ASSERT_EQUAL(
        sim_store_delete(f.s, FX_WORK, "karmada-es-m", "pg-work", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-m"), 0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "absent");
    fx_stop(&f);
}

/* The leaks Karmada has: a Work without the finalizer goes at once and its object stays; with
 * the finalizer, an unmanaged object stays too. */
static void test_leaks_without_finalizer_or_label(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    char w[2048];
    fx_podgroup_work(w, sizeof(w), "no-fin", "m", "a", 1, "", 0, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_EQUAL(
        sim_store_delete(f.s, FX_WORK, "karmada-es-m", "no-fin", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-m"), 0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "a"), "1");
    fx_podgroup_work(w, sizeof(w), "unmanaged", "m", "b", 1, "", 1, 0);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_EQUAL(
        sim_store_delete(f.s, FX_WORK, "karmada-es-m", "unmanaged", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-m"), 0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "b"), "1");
    fx_stop(&f);
}

/* objectWatcherImpl.allowUpdate: an existing unmanaged object is not updated (Applied=False
 * with Karmada's message) unless the manifest says conflict-resolution overwrite. */
static void test_conflict_resolution(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    char w[2048];
    fx_podgroup_work(w, sizeof(w), "old", "m", "g", 1, "", 0, 0);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_EQUAL(
        sim_store_delete(f.s, FX_WORK, "karmada-es-m", "old", NULL, NULL, 0, NULL, NULL), 0);
    fx_podgroup_work(w, sizeof(w), "new", "m", "g", 4, "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "1");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "new", "status|conditions|1|status"), "False");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "new", "status|conditions|1|reason"),
        "AppliedFailed");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "new", "status|conditions|1|message"),
        "Failed to apply all manifests (0/1): resource(kind=PodGroup, team/g) already exists in "
        "the cluster m and the work.karmada.io/conflict-resolution strategy value is empty, "
        "Karmada will not manage this resource");
    CU_ASSERT_EQUAL(
        fx_patch(&f, FX_WORK, "karmada-es-m", "new",
                 "{\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":"
                 "\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\",\"metadata\":{"
                 "\"name\":\"g\",\"namespace\":\"team\",\"labels\":{\"karmada.io/"
                 "managed\":\"true\"},\"annotations\":{\"work.karmada.io/"
                 "conflict-resolution\":\"overwrite\",\"work.karmada.io/name\":\"new\","
                 "\"work.karmada.io/namespace\":\"karmada-es-m\"}},\"spec\":{"
                 "\"minMember\":4}}]}}}"),
        0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "4");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "new", "status|conditions|1|status"), "True");
    fx_stop(&f);
}

/* handleWorkDelete: a NotReady cluster keeps the Work (and its object) until it is Ready; a
 * suspended Work reaches nothing. */
static void test_not_ready_and_suspended(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    char w[2048];
    fx_podgroup_work(w, sizeof(w), "pgw", "m", "g", 1, "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_EQUAL(sim_karmada_set_ready(f.k, "m", 0), 0);
    CU_ASSERT_EQUAL(
        sim_store_delete(f.s, FX_WORK, "karmada-es-m", "pgw", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-m"), 1);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "1");
    CU_ASSERT_EQUAL(sim_karmada_set_ready(f.k, "m", 1), 0);
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-m"), 0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "absent");
    fx_podgroup_work(w, sizeof(w), "held", "m", "h", 1, "", 1, 1);
    json_object *o = json_tokener_parse(w);
    json_object_object_add(json_object_object_get(o, "spec"), "suspendDispatching",
                           json_object_new_boolean(1));
    CU_ASSERT_EQUAL(sim_store_create(f.s, FX_WORK, "karmada-es-m", o, fx_now(), 0, NULL, NULL), 0);
    json_object_put(o);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "h"), "absent");
    /* updateWorkDispatchingConditionIfNeeded: Dispatching False, and nothing applied */
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "held", "status|conditions|0|type"), "Dispatching");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "held", "status|conditions|0|status"), "False");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "held", "status|conditions|0|reason"),
        "SuspendDispatching");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "held", "status|conditions|1|type"), "");
    fx_stop(&f);
}

static void deployment_work(struct fx *f, const char *name, int replicas, const char *sched,
                            const char *group)
{
    char w[2048];
    snprintf(
        w, sizeof(w),
        "{\"metadata\":{\"name\":\"%s\",\"finalizers\":[\"karmada.io/execution-controller\"]},"
        "\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
        "\"Deployment\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"team\",\"labels\":{"
        "\"karmada.io/managed\":\"true\"},\"annotations\":{\"work.karmada.io/name\":\"%s\","
        "\"work.karmada.io/namespace\":\"karmada-es-m\"}},\"spec\":{\"replicas\":%d,"
        "\"template\":{\"metadata\":{\"annotations\":{%s%s%s}},\"spec\":{%s%s%s"
        "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}}}]}}}",
        name, name, name, replicas, group ? "\"scheduling.k8s.io/group-name\":\"" : "",
        group ? group : "", group ? "\"" : "", sched ? "\"schedulerName\":\"" : "",
        sched ? sched : "", sched ? "\"," : "");
    CU_ASSERT_EQUAL(fx_create(f, FX_WORK, "karmada-es-m", w), 0);
}

static const char *phase(struct fx *f, const char *work)
{
    return fx_field(f, FX_WORK, "karmada-es-m", work, "status|manifestStatuses|0|status|phase");
}

static const char *ready(struct fx *f, const char *work)
{
    return fx_field(f, FX_WORK, "karmada-es-m", work,
                    "status|manifestStatuses|0|status|readyReplicas");
}

/* Volcano gangs only pods that ask for it (schedulerName volcano) and name a PodGroup; the
 * PodGroup is Inqueue once admitted, Running once minMember pods run, Pending while its
 * minResources cannot fit; the Work reflects the member object's status. */
static void test_gating_and_podgroup_phases(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    /* Pods naming a group but left to the default scheduler run ungated. */
    deployment_work(&f, "plain", 1, NULL, "nowhere");
    CU_ASSERT_STRING_EQUAL(ready(&f, "plain"), "1");
    /* Volcano's pods wait for their PodGroup... */
    deployment_work(&f, "gang", 3, "volcano", "g");
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "0");
    char w[2048];
    fx_podgroup_work(w, sizeof(w), "pg", "m", "g", 3, "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    /* ... and run together once it is there. */
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "3");
    CU_ASSERT_STRING_EQUAL(phase(&f, "pg"), "Running");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg", "status|manifestStatuses|0|identifier|kind"),
        "PodGroup");
    /* A PodGroup whose pods are not there yet: Inqueue when its minResources fit... */
    fx_podgroup_work(w, sizeof(w), "pg2", "m", "g2", 2, "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_STRING_EQUAL(phase(&f, "pg2"), "Inqueue");
    /* ... Pending when they cannot. */
    CU_ASSERT_EQUAL(
        fx_patch(&f, FX_WORK, "karmada-es-m", "pg2",
                 "{\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":"
                 "\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\",\"metadata\":{"
                 "\"name\":\"g2\",\"namespace\":\"team\",\"labels\":{\"karmada.io/"
                 "managed\":\"true\"},\"annotations\":{\"work.karmada.io/name\":\"pg2\","
                 "\"work.karmada.io/namespace\":\"karmada-es-m\"}},\"spec\":{"
                 "\"minMember\":2,\"minResources\":{\"cpu\":\"64\"}}}]}}}"),
        0);
    CU_ASSERT_STRING_EQUAL(phase(&f, "pg2"), "Pending");
    /* The member's objects are served with the status the member reports. */
    json_object *pg = fx_member(&f, "m", "PodGroup", "g");
    CU_ASSERT_STRING_EQUAL(fx_at(pg, "status|phase"), "Running");
    json_object_put(pg);
    fx_stop(&f);
}

/* A Deployment Work whose pods carry scheduler-plugins' pod-group label (group g), and a Work
 * with a coscheduling PodGroup g of min_member. */
static void cosched_deployment_work(struct fx *f, const char *name, int replicas)
{
    char w[2048];
    snprintf(w, sizeof(w),
             "{\"metadata\":{\"name\":\"%s\",\"finalizers\":[\"karmada.io/execution-controller\"]},"
             "\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
             "\"Deployment\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"team\",\"labels\":{"
             "\"karmada.io/managed\":\"true\"},\"annotations\":{\"work.karmada.io/name\":\"%s\","
             "\"work.karmada.io/namespace\":\"karmada-es-m\"}},\"spec\":{\"replicas\":%d,"
             "\"template\":{\"metadata\":{\"labels\":{\"scheduling.x-k8s.io/pod-group\":\"g\"}},"
             "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
             "\"1\"}}}]}}}}]}}}",
             name, name, name, replicas);
    CU_ASSERT_EQUAL(fx_create(f, FX_WORK, "karmada-es-m", w), 0);
}

static void cosched_podgroup_work(struct fx *f, const char *work, int min_member)
{
    char w[2048];
    snprintf(w, sizeof(w),
             "{\"metadata\":{\"name\":\"%s\",\"finalizers\":[\"karmada.io/"
             "execution-controller\"]},\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":"
             "\"scheduling.x-k8s.io/v1alpha1\",\"kind\":\"PodGroup\",\"metadata\":{\"name\":"
             "\"g\",\"namespace\":\"team\",\"labels\":{\"karmada.io/managed\":\"true\"},"
             "\"annotations\":{\"work.karmada.io/name\":\"%s\",\"work.karmada.io/namespace\":"
             "\"karmada-es-m\"}},\"spec\":{\"minMember\":%d,\"scheduleTimeoutSeconds\":60}}]}}}",
             work, work, min_member);
    CU_ASSERT_EQUAL(fx_create(f, FX_WORK, "karmada-es-m", w), 0);
}

/* scheduler-plugins' Coscheduling in a member that runs it (scenario coscheduling: true): pods
 * labelled with their group wait in PreFilter until the PodGroup exists, then minMember start
 * together (Permit); the group's phase is its controller's (Pending, Running). A member without
 * the plugin ignores the label. */
static void test_coscheduling_gating(void)
{
    static const char cos_yaml[] =
        "clusters:\n"
        "  - name: m\n"
        "    volcano: false\n"
        "    coscheduling: true\n"
        "    nodes: [{count: 2, allocatable: {cpu: \"4\", pods: \"10\"}}]\n"
        "objects:\n"
        "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n";
    struct fx f;
    fx_start(&f, cos_yaml, NULL);
    cosched_deployment_work(&f, "gang", 3);
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "0");
    cosched_podgroup_work(&f, "pg", 3);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg", "status|conditions|1|status"), "True");
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "3");
    CU_ASSERT_STRING_EQUAL(phase(&f, "pg"), "Running");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg", "status|manifestStatuses|0|status|running"),
        "3");
    json_object *pg = fx_member(&f, "m", "PodGroup", "g");
    CU_ASSERT_STRING_EQUAL(fx_at(pg, "apiVersion"), "scheduling.x-k8s.io/v1alpha1");
    json_object_put(pg);
    fx_stop(&f);
    /* a group larger than what fits: none of its pods start, the group stays Pending */
    fx_start(&f, cos_yaml, NULL);
    cosched_podgroup_work(&f, "pg", 9);
    cosched_deployment_work(&f, "gang", 9);
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "0");
    CU_ASSERT_STRING_EQUAL(phase(&f, "pg"), "Pending");
    fx_stop(&f);
    /* a member without the plugin (and without the CRD) runs labelled pods ungated */
    fx_start(&f, yaml, NULL);
    cosched_deployment_work(&f, "gang", 3);
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "3");
    fx_stop(&f);
    /* a karmada-apiserver without the CRD (scenario hubCoscheduling: false): the execution
     * controller's RESTMapper cannot map the PodGroup, so its Work never applies, though the
     * member serves it */
    fx_start(&f, cos_yaml, NULL);
    sim_karmada_set_hub_hidden(
        f.k, ~sim_api_without(SIM_API_ALL, "scheduling.x-k8s.io", "v1alpha1", "podgroups"));
    cosched_podgroup_work(&f, "pg", 3);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg", "status|conditions|1|message"),
        "Failed to apply all manifests (0/1): no matches for kind \"PodGroup\" in version "
        "\"scheduling.x-k8s.io/v1alpha1\"");
    json_object *none = fx_member(&f, "m", "PodGroup", "g");
    CU_ASSERT_PTR_NULL(none);
    json_object_put(none);
    fx_stop(&f);
}

static void wl_deployment_work(struct fx *f, const char *name, int replicas)
{
    char w[2048];
    snprintf(w, sizeof(w),
             "{\"metadata\":{\"name\":\"%s\",\"finalizers\":[\"karmada.io/execution-controller\"]},"
             "\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
             "\"Deployment\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"team\",\"labels\":{"
             "\"karmada.io/managed\":\"true\"},\"annotations\":{\"work.karmada.io/name\":\"%s\","
             "\"work.karmada.io/namespace\":\"karmada-es-m\"}},\"spec\":{\"replicas\":%d,"
             "\"template\":{\"spec\":{\"schedulingGroup\":{\"podGroupName\":\"g\"},"
             "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
             "\"1\"}}}]}}}}]}}}",
             name, name, name, replicas);
    CU_ASSERT_EQUAL(fx_create(f, FX_WORK, "karmada-es-m", w), 0);
}

static void wl_podgroup_work(struct fx *f, const char *work, int min_count, const char *version)
{
    char w[2048];
    snprintf(w, sizeof(w),
             "{\"metadata\":{\"name\":\"%s\",\"finalizers\":[\"karmada.io/"
             "execution-controller\"]},\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":"
             "\"scheduling.k8s.io/%s\",\"kind\":\"PodGroup\",\"metadata\":{\"name\":"
             "\"g\",\"namespace\":\"team\",\"labels\":{\"karmada.io/managed\":\"true\"},"
             "\"annotations\":{\"work.karmada.io/name\":\"%s\",\"work.karmada.io/namespace\":"
             "\"karmada-es-m\"}},\"spec\":{\"schedulingPolicy\":{\"gang\":{\"minCount\":%d}}}}]}}}",
             work, version, work, min_count);
    CU_ASSERT_EQUAL(fx_create(f, FX_WORK, "karmada-es-m", w), 0);
}

/* kube-scheduler's GangScheduling plugin in a member serving the Workload API (scenario
 * workloadAPI: true, Kubernetes 1.37's v1beta1; workloadAPI: v1alpha2, 1.36's): pods naming a
 * PodGroup in spec.schedulingGroup wait until it exists, then its gang.minCount start together;
 * the group reports PodGroupInitiallyScheduled (v1beta1) or PodGroupScheduled (v1alpha2), no
 * phase. A member without the API runs such pods ungated. */
static void workload_api_gating(const char *scenario_value, const char *version,
                                const char *condition)
{
    char wl_yaml[512];
    snprintf(wl_yaml, sizeof wl_yaml,
             "clusters:\n"
             "  - name: m\n"
             "    volcano: false\n"
             "    workloadAPI: %s\n"
             "    nodes: [{count: 2, allocatable: {cpu: \"4\", pods: \"10\"}}]\n"
             "objects:\n"
             "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n",
             scenario_value);
    struct fx f;
    fx_start(&f, wl_yaml, NULL);
    wl_deployment_work(&f, "gang", 3);
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "0");
    wl_podgroup_work(&f, "pg", 3, version);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg", "status|conditions|1|status"), "True");
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "3");
    CU_ASSERT_STRING_EQUAL(phase(&f, "pg"), "");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_WORK, "karmada-es-m", "pg",
                                    "status|manifestStatuses|0|status|conditions|0|type"),
                           condition);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_WORK, "karmada-es-m", "pg",
                                    "status|manifestStatuses|0|status|conditions|0|status"),
                           "True");
    json_object *pg = fx_member(&f, "m", "PodGroup", "g");
    char av[64];
    snprintf(av, sizeof av, "scheduling.k8s.io/%s", version);
    CU_ASSERT_STRING_EQUAL(fx_at(pg, "apiVersion"), av);
    json_object_put(pg);
    fx_stop(&f);
    /* a gang larger than what fits: none of its pods start, the condition False */
    fx_start(&f, wl_yaml, NULL);
    wl_podgroup_work(&f, "pg", 9, version);
    wl_deployment_work(&f, "gang", 9);
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "0");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_WORK, "karmada-es-m", "pg",
                                    "status|manifestStatuses|0|status|conditions|0|reason"),
                           "Unschedulable");
    fx_stop(&f);
    /* the other version's PodGroup is not served there: its Work does not apply */
    fx_start(&f, wl_yaml, NULL);
    wl_podgroup_work(&f, "pg", 3, strcmp(version, "v1beta1") == 0 ? "v1alpha2" : "v1beta1");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg", "status|conditions|1|status"), "False");
    fx_stop(&f);
    /* a member without the API runs the pods ungated */
    fx_start(&f, yaml, NULL);
    wl_deployment_work(&f, "gang", 3);
    CU_ASSERT_STRING_EQUAL(ready(&f, "gang"), "3");
    fx_stop(&f);
}

static void test_workload_api_gating(void)
{
    workload_api_gating("true", "v1beta1", "PodGroupInitiallyScheduled");
    workload_api_gating("v1alpha2", "v1alpha2", "PodGroupScheduled");
    workload_api_gating("v1beta1", "v1beta1", "PodGroupInitiallyScheduled");
}

/* A batch Job that finishes reports the Job controller's Complete condition. */
static void test_job_completes(void)
{
    struct fx f;
    fx_clock = 1790000000;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(
        fx_create(&f, FX_WORK, "karmada-es-m",
                  "{\"metadata\":{\"name\":\"j\",\"finalizers\":[\"karmada.io/"
                  "execution-controller\"]},\"spec\":{\"workload\":{\"manifests\":[{\"apiVersion\":"
                  "\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\",\"namespace\":"
                  "\"team\",\"labels\":{\"karmada.io/managed\":\"true\"},\"annotations\":{"
                  "\"sim.muster.io/duration\":\"30s\",\"work.karmada.io/name\":\"j\","
                  "\"work.karmada.io/namespace\":\"karmada-es-m\"}},\"spec\":{\"parallelism\":2,"
                  "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}}]}}}"),
        0);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "j", "status|manifestStatuses|0|status|active"), "2");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "j", "status|manifestStatuses|0|status|conditions"),
        "");
    fx_clock += 31;
    sim_karmada_tick(f.k);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_WORK, "karmada-es-m", "j",
                                    "status|manifestStatuses|0|status|conditions|0|type"),
                           "Complete");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_WORK, "karmada-es-m", "j",
                                    "status|manifestStatuses|0|status|conditions|0|status"),
                           "True");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "j", "status|manifestStatuses|0|status|succeeded"),
        "2");
    fx_stop(&f);
}

/* A manifest whose kind cannot be applied: on a member without Volcano, its API server
 * answers 404 (client-go's generic NotFound message); on a hub without the PodGroup CRD, the
 * RESTMapper finds no kind (meta.NoKindMatchError). Either way Applied=False and nothing
 * reaches the member. */
static void test_missing_api(void)
{
    static const char plain[] = "clusters:\n"
                                "  - name: m\n"
                                "    volcano: false\n"
                                "    nodes: [{count: 1, allocatable: {cpu: \"4\", pods: \"10\"}}]\n"
                                "objects:\n"
                                "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n";
    struct fx f;
    fx_start(&f, plain, NULL);
    char w[2048];
    fx_podgroup_work(w, sizeof(w), "pg-work", "m", "g", 2, "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "absent");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg-work", "status|conditions|1|message"),
        "Failed to apply all manifests (0/1): the server could not find the requested resource");
    /* A Deployment applies, but pods asking for Volcano's scheduler stay Pending there: no
     * scheduler of that name runs in the member. The default scheduler's run. */
    deployment_work(&f, "solo", 1, "volcano", NULL);
    CU_ASSERT_STRING_EQUAL(ready(&f, "solo"), "0");
    deployment_work(&f, "plain", 1, NULL, NULL);
    CU_ASSERT_STRING_EQUAL(ready(&f, "plain"), "1");
    fx_stop(&f);

    struct sim_karmada_options o = {.no_podgroup_crd = 1};
    fx_start(&f, yaml, &o);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_STRING_EQUAL(member_min(&f, "g"), "absent");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg-work", "status|conditions|1|reason"),
        "AppliedFailed");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg-work", "status|conditions|1|message"),
        "Failed to apply all manifests (0/1): no matches for kind \"PodGroup\" in version "
        "\"scheduling.volcano.sh/v1beta1\"");
    fx_stop(&f);
}

/* A Volcano Job's gang as the member's Volcano makes it: spec.minAvailable, else what its
 * mutating webhook writes (mutate_job.go mutateSpec, patchDefaultMinAvailable): the tasks'
 * minAvailable summed, each defaulting to minPartitions x partitionSize (Volcano v1.14) when set,
 * else to the task's replicas. */
static void test_vcjob_min_available(void)
{
    static const struct {
        const char *json;
        int64_t gang;
    } cases[] = {
        {"{\"spec\":{\"minAvailable\":3,\"tasks\":[{\"replicas\":5}]}}", 3},
        {"{\"spec\":{\"tasks\":[{\"replicas\":1},{\"replicas\":5}]}}", 6},
        {"{\"spec\":{\"tasks\":[{\"replicas\":1},{\"replicas\":5,\"minAvailable\":2}]}}", 3},
        {"{\"spec\":{\"minAvailable\":0,\"tasks\":[{\"replicas\":1},{\"replicas\":32,"
         "\"partitionPolicy\":{\"totalPartitions\":4,\"partitionSize\":8,\"minPartitions\":2}}]}}",
         17},
        {"{\"spec\":{\"tasks\":[{\"replicas\":32,\"partitionPolicy\":{\"totalPartitions\":4,"
         "\"partitionSize\":8}}]}}",
         32},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *job = json_tokener_parse(cases[i].json);
        CU_ASSERT_PTR_NOT_NULL_FATAL(job);
        CU_ASSERT_EQUAL(sim__vcjob_min_available(job), cases[i].gang);
        json_object_put(job);
    }
}

static CU_TestInfo tests[] = {
    {"a Volcano Job's gang: minAvailable as Volcano's webhook defaults it",
     test_vcjob_min_available},
    {"managed objects: created, updated, deleted through the finalizer",
     test_managed_create_update_delete},
    {"leaks: no finalizer, or an unmanaged object", test_leaks_without_finalizer_or_label},
    {"conflict resolution: refused update, overwrite", test_conflict_resolution},
    {"NotReady cluster keeps the deleting Work; suspended Works reach nothing",
     test_not_ready_and_suspended},
    {"Volcano gating by schedulerName and group; PodGroup phases", test_gating_and_podgroup_phases},
    {"coscheduling gating by the pod-group label; its PodGroup phases", test_coscheduling_gating},
    {"Workload API gating by spec.schedulingGroup, v1beta1 and v1alpha2", test_workload_api_gating},
    {"a finished Job reports Complete", test_job_completes},
    {"a kind the member or the hub does not serve is not applied", test_missing_api},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/execution", tests)
