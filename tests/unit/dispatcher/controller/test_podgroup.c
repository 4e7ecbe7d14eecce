/* One gang made of several RBs (dispatcher/controller/podgroup.c), without a hub: the group key
 * a Pod's read gives, the "all members present" judgement and the summed request. The Kueue
 * Pod is Kueue's plain-pod group example (tests/fixtures/workloads/kueue-pod.yaml, from
 * kubernetes-sigs/kueue site/static/examples/pods-kueue/kueue-pod-group.yaml), read by the real
 * workload reader. */
#include "dispatcher/controller/ctl_int.h"
#include "karmada/fixtures.h"
#include "testing.h"

static void test_key_kueue_fixture(void)
{
    struct queue_resnames *names = queue_resnames_new();
    struct karmada_workload w;
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&w), 0);
    json_object *rb = fx_load_json("tests/fixtures/workloads/kueue-pod-rb.json");
    json_object *tmpl = fx_load_yaml("tests/fixtures/workloads/kueue-pod.yaml");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmpl);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_read(&w, names, rb, tmpl), 0);
    char key[CTL_PG_KEY_MAX];
    int32_t total = 0;
    /* a group of 2 Pods, one RB each: this RB is one member of a gang of 2 */
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "team-k", key, sizeof key, &total), 1);
    CU_ASSERT_STRING_EQUAL(key, "team-k/kueue/sample-group");
    CU_ASSERT_EQUAL(total, 2);
    /* the same group name in another namespace is another group */
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "team-j", key, sizeof key, &total), 1);
    CU_ASSERT_STRING_EQUAL(key, "team-j/kueue/sample-group");
    /* a buffer too small for the key: no group rather than a cut key two groups could share */
    char tiny[8];
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "team-k", tiny, sizeof tiny, &total), 0);
    CU_ASSERT_STRING_EQUAL(tiny, "");
    json_object_put(rb);
    json_object_put(tmpl);
    karmada_workload_close(&w);
    queue_resnames_free(names);
}

/* What the reader leaves for a Pod of one replica in a group of dialect d. */
static struct karmada_workload pod_of(enum karmada_workload_dialect d, const char *group,
                                      int32_t total, int32_t hub_min)
{
    struct karmada_workload w;
    memset(&w, 0, sizeof w);
    w.kind = KARMADA_WORKLOAD_KIND_POD;
    w.replicas = 1;
    w.dialect = d;
    snprintf(w.group_name, sizeof w.group_name, "%s", group);
    w.group_total = total;
    w.group_found = hub_min ? 1 : -1;
    w.group_min = hub_min;
    return w;
}

static void test_key_rules(void)
{
    char key[CTL_PG_KEY_MAX];
    int32_t total = 0;
    struct karmada_workload w = pod_of(KARMADA_WORKLOAD_DIALECT_KUEUE, "g", 1, 0);
    /* a Pod of total 1 is a gang of its own */
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 0);
    /* a StatefulSet whose pod template Kueue marked with total = replicas: within the RB */
    w = pod_of(KARMADA_WORKLOAD_DIALECT_KUEUE, "g", 3, 0);
    w.kind = KARMADA_WORKLOAD_KIND_STATEFULSET;
    w.replicas = 3;
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 0);
    /* coscheduling: the hub's PodGroup of minMember 3 named by one Pod */
    w = pod_of(KARMADA_WORKLOAD_DIALECT_COSCHEDULING, "nginx", 0, 3);
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 1);
    CU_ASSERT_STRING_EQUAL(key, "ns/coscheduling/nginx");
    CU_ASSERT_EQUAL(total, 3);
    /* ... not looked up (or not on the hub): no gang of several RBs to wait for */
    w = pod_of(KARMADA_WORKLOAD_DIALECT_COSCHEDULING, "nginx", 0, 0);
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 0);
    /* a Deployment naming a PodGroup larger than itself is refused by the reader, never joined */
    w = pod_of(KARMADA_WORKLOAD_DIALECT_VOLCANO, "flyte", 0, 3);
    w.kind = KARMADA_WORKLOAD_KIND_DEPLOYMENT;
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 0);
    /* Volcano and the Workload API name their groups apart from coscheduling's */
    w = pod_of(KARMADA_WORKLOAD_DIALECT_VOLCANO, "nginx", 0, 2);
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 1);
    CU_ASSERT_STRING_EQUAL(key, "ns/volcano/nginx");
    w = pod_of(KARMADA_WORKLOAD_DIALECT_WORKLOAD_API, "nginx", 0, 2);
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 1);
    CU_ASSERT_STRING_EQUAL(key, "ns/workload-api/nginx");
    /* YuniKorn's task groups are within one RB; no group name, no group */
    w = pod_of(KARMADA_WORKLOAD_DIALECT_YUNIKORN, "tg", 4, 0);
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 0);
    w = pod_of(KARMADA_WORKLOAD_DIALECT_KUEUE, "", 3, 0);
    CU_ASSERT_EQUAL(ctl__pg_key(&w, "ns", key, sizeof key, &total), 0);
    CU_ASSERT_EQUAL(ctl__pg_key(NULL, "ns", key, sizeof key, &total), 0);
}

static void test_complete(void)
{
    char why[256];
    CU_ASSERT_EQUAL(ctl__pg_complete("sample-group", 2, 3, why, sizeof why), 0);
    CU_ASSERT_STRING_EQUAL(why,
                           "pod group sample-group: 2 of 3 pods present; the gang is queued once "
                           "all are");
    CU_ASSERT_EQUAL(ctl__pg_complete("sample-group", 3, 3, why, sizeof why), 1);
    /* more Pods than the total: Kueue would not admit the excess either; none is guessed at */
    CU_ASSERT_EQUAL(ctl__pg_complete("g", 4, 3, why, sizeof why), 0);
    CU_ASSERT_STRING_EQUAL(why,
                           "pod group g: 4 pods name a group of 3; it is queued once only 3 do");
    CU_ASSERT_EQUAL(ctl__pg_complete("g", 0, 3, NULL, 0), 0);
    CU_ASSERT_EQUAL(ctl__pg_complete("g", 0, 0, why, sizeof why), 0);
}

static void test_sum(void)
{
    struct queue_resnames *names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    uint32_t cpu, gpu;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "cpu", 3, &cpu), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "nvidia.com/gpu", 14, &gpu), 0);
    struct queue_resvec a = {0}, b = {0}, c = {0}, out = {0};
    CU_ASSERT_EQUAL(queue_resvec_set(&a, cpu, 1000), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&a, gpu, 1000), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&b, cpu, 3000), 0); /* a member of another shape */
    CU_ASSERT_EQUAL(queue_resvec_set(&c, cpu, 500), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&c, gpu, 2000), 0);
    const struct queue_resvec *reqs[] = {&a, &b, &c};
    CU_ASSERT_EQUAL(ctl__pg_sum(reqs, 3, &out), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&out, cpu), 4500);
    CU_ASSERT_EQUAL(queue_resvec_get(&out, gpu), 3000);
    /* summed again from scratch: what it held before is not added to */
    CU_ASSERT_EQUAL(ctl__pg_sum(reqs, 1, &out), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&out, cpu), 1000);
    CU_ASSERT_EQUAL(ctl__pg_sum(reqs, 0, &out), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&out, cpu), 0);
    /* a sum past int64 is an error, not a wrapped request */
    CU_ASSERT_EQUAL(queue_resvec_set(&b, cpu, INT64_MAX - 10), 0);
    CU_ASSERT_NOT_EQUAL(ctl__pg_sum(reqs, 2, &out), 0);
    queue_resvec_close(&a);
    queue_resvec_close(&b);
    queue_resvec_close(&c);
    queue_resvec_close(&out);
    queue_resnames_free(names);
}

static CU_TestInfo tests[] = {
    {"group key of Kueue's plain-pod example", test_key_kueue_fixture},
    {"group key per dialect and kind", test_key_rules},
    {"every member present", test_complete},
    {"the summed request", test_sum},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/podgroup", tests)
