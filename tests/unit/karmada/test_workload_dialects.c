/* Tests for cluster-adapters/karmada/workload_dialects.c's hub PodGroups: the PodGroup the pods
 * name, looked up through struct karmada_workload_hub, sets the gang size, a coscheduling
 * timeout, Volcano's queue and priority class, each where no earlier row of docs/workload.md's
 * table decides. Fixtures: tests/fixtures/workloads/cosched (the pods) and hub-podgroup-*.yaml
 * (Volcano's https://volcano.sh/en/docs/podgroup/ example; scheduler-plugins'
 * site/content/en/docs/plugins/coscheduling.md "nginx" PodGroup), each validated against its
 * vendored CRD. */
#include "cluster-adapters/karmada/workload.h"
#include "cluster-adapters/karmada/workload_prune.h"

#include "cluster-adapters/kube/schema.h"
#include "queue/errors.h"
#include "fixtures.h"
#include "testing.h"

#include <stdarg.h>
#include <string.h>

static struct queue_resnames *names;
static struct karmada_workload w;

/* What the lookup is asked and answers: a stand-in for the controller's informers. */
static struct {
    json_object *pg; /* borrowed; NULL: none */
    int served;
    int calls;
    enum karmada_workload_dialect d;
    char ns[64], name[64];
} hub_state;

static json_object *lookup(void *ud, enum karmada_workload_dialect d, const char *ns,
                           const char *name, int *served)
{
    CU_ASSERT_PTR_EQUAL(ud, &hub_state);
    hub_state.calls++;
    hub_state.d = d;
    snprintf(hub_state.ns, sizeof hub_state.ns, "%s", ns);
    snprintf(hub_state.name, sizeof hub_state.name, "%s", name);
    *served = hub_state.served;
    return hub_state.pg;
}

static const struct karmada_workload_hub hub = {lookup, &hub_state, NULL, NULL};

static void begin(void)
{
    names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&w), 0);
    memset(&hub_state, 0, sizeof hub_state);
    hub_state.served = 1;
}

static void end(void)
{
    karmada_workload_close(&w);
    queue_resnames_free(names);
    names = NULL;
}

/* The cosched fixture pair: a Deployment of 6 replicas whose pods carry the label
 * scheduling.x-k8s.io/pod-group: nginx, in namespace team-s. */
static void pair(json_object **rb, json_object **tmpl)
{
    char p[1024];
    fx_path(p, sizeof p, "tests/fixtures/workloads/cosched-rb.json");
    *rb = json_object_from_file(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*rb);
    *tmpl = fx_load_yaml("tests/fixtures/workloads/cosched.yaml");
}

/* Sets root.k1...kn = val (taking val), creating objects on the way; val NULL deletes. */
static void put(json_object *root, json_object *val, ...)
{
    va_list ap;
    va_start(ap, val);
    const char *key = va_arg(ap, const char *);
    json_object *cur = root;
    for (;;) {
        const char *next = va_arg(ap, const char *);
        if (!next) {
            if (val)
                json_object_object_add(cur, key, val);
            else
                json_object_object_del(cur, key);
            break;
        }
        json_object *child = NULL;
        if (!json_object_object_get_ex(cur, key, &child) ||
            !json_object_is_type(child, json_type_object)) {
            child = json_object_new_object();
            json_object_object_add(cur, key, child);
        }
        cur = child;
        key = next;
    }
    va_end(ap);
}

#define POD_LABEL(t, key, val)                                                                     \
    put((t), (val), "spec", "template", "metadata", "labels", (key), NULL)
#define POD_ANN(t, key, val)                                                                       \
    put((t), (val), "spec", "template", "metadata", "annotations", (key), NULL)

/* The pods name the Volcano PodGroup flyte-task-pg instead of the coscheduling one. */
static void to_volcano(json_object *tmpl)
{
    POD_LABEL(tmpl, KARMADA_WORKLOAD_COSCHED_GROUP, NULL);
    POD_ANN(tmpl, KARMADA_WORKLOAD_VOLCANO_GROUP, json_object_new_string("flyte-task-pg"));
}

static int rd(json_object *rb, json_object *tmpl)
{
    return karmada_workload_read_hub(&w, names, rb, tmpl, &hub);
}

static void test_fixtures_validate(void)
{
    static const struct {
        const char *fixture, *crd, *version;
    } cases[] = {
        {"hub-podgroup-volcano", "volcano_scheduling.volcano.sh_podgroups.yaml", "v1beta1"},
        {"hub-podgroup-cosched", "schedulerplugins_scheduling.x-k8s.io_podgroups.yaml", "v1alpha1"},
        /* the Workload API's, against the schemas written from Kubernetes' types.go */
        {"hub-podgroup-workload-api", "kubernetes_scheduling.k8s.io_podgroups.yaml", "v1alpha2"},
        {"hub-podgroup-workload-api-v1beta1", "kubernetes_scheduling.k8s.io_podgroups.yaml",
         "v1beta1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rel[256], p[1024], err[512];
        snprintf(rel, sizeof rel, "tests/fixtures/reference/crds/%s", cases[i].crd);
        fx_path(p, sizeof p, rel);
        struct kube_schema *s = NULL;
        CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, cases[i].version, &s, err, sizeof err), 0);
        snprintf(rel, sizeof rel, "tests/fixtures/workloads/%s.yaml", cases[i].fixture);
        json_object *pg = fx_load_yaml(rel);
        struct kube_schema_errors errs;
        kube_schema_errors_init(&errs);
        int rc = kube_schema_validate(s, pg, &errs);
        for (size_t e = 0; e < errs.count; e++)
            fprintf(stderr, "\n%s: %s", cases[i].fixture, errs.msgs[e]);
        CU_ASSERT_EQUAL(rc, 0);
        kube_schema_errors_close(&errs);
        /* the CRD refuses what the reader refuses: a minMember (minCount) that is no integer */
        if (strstr(cases[i].fixture, "workload-api"))
            put(pg, json_object_new_string("three"), "spec", "schedulingPolicy", "gang", "minCount",
                NULL);
        else
            put(pg, json_object_new_string("three"), "spec", "minMember", NULL);
        kube_schema_errors_init(&errs);
        CU_ASSERT_NOT_EQUAL(kube_schema_validate(s, pg, &errs), 0);
        kube_schema_errors_close(&errs);
        json_object_put(pg);
        kube_schema_free(s);
    }
}

/* Flyte's case: the Volcano PodGroup sets the gang size, the queue and the priority class. */
static void test_volcano(void)
{
    begin();
    json_object *rb, *tmpl;
    pair(&rb, &tmpl);
    to_volcano(tmpl);
    json_object *pg = fx_load_yaml("tests/fixtures/workloads/hub-podgroup-volcano.yaml");
    hub_state.pg = pg;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(hub_state.calls, 1);
    CU_ASSERT_EQUAL(hub_state.d, KARMADA_WORKLOAD_DIALECT_VOLCANO);
    CU_ASSERT_STRING_EQUAL(hub_state.ns, "team-s");
    CU_ASSERT_STRING_EQUAL(hub_state.name, "flyte-task-pg");
    CU_ASSERT_EQUAL(w.group_found, 1);
    CU_ASSERT_EQUAL(w.replicas, 6);
    CU_ASSERT_EQUAL(w.min_member, 4);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "the hub's Volcano PodGroup spec.minMember");
    CU_ASSERT_STRING_EQUAL(w.queue, "research");
    CU_ASSERT_EQUAL(w.queue_explicit, 1);
    CU_ASSERT_STRING_EQUAL(w.queue_source, "the hub's Volcano PodGroup spec.queue");
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_CLASS);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "high-prio");

    /* what the workload names itself comes first: its queue label, its priority class, its
     * min-member annotation */
    put(tmpl, json_object_new_string("batch"), "metadata", "labels", "volcano.sh/queue-name", NULL);
    put(tmpl, json_object_new_string("low-prio"), "spec", "template", "spec", "priorityClassName",
        NULL);
    put(tmpl, json_object_new_string("2"), "metadata", "annotations",
        KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_STRING_EQUAL(w.queue, "batch");
    CU_ASSERT_STRING_EQUAL(w.priority_class, "low-prio");
    CU_ASSERT_EQUAL(w.min_member, 2);
    CU_ASSERT_EQUAL(w.group_found, 1); /* read and validated all the same */

    /* Volcano's CRD defaults spec.queue to "default": that names nothing */
    json_object_put(tmpl);
    tmpl = fx_load_yaml("tests/fixtures/workloads/cosched.yaml");
    to_volcano(tmpl);
    put(pg, json_object_new_string("default"), "spec", "queue", NULL);
    put(pg, NULL, "spec", "priorityClassName", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_STRING_EQUAL(w.queue, "default");
    CU_ASSERT_EQUAL(w.queue_explicit, 0);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_DEFAULT);
    /* minMember 0 (Volcano's unset) states no gang: muster's own default, every replica */
    put(pg, json_object_new_int(0), "spec", "minMember", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.min_member, 6);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "replicas");
    json_object_put(pg);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* A Volcano PodGroup not (yet) on the hub: the RB waits for it, as Volcano's pods wait for
 * theirs; a hub that does not serve the kind at all: the name alone, as before. */
static void test_volcano_missing(void)
{
    begin();
    json_object *rb, *tmpl;
    pair(&rb, &tmpl);
    to_volcano(tmpl);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_STRING_EQUAL(karmada_workload_condition_reason(w.reason), "Unschedulable");
    CU_ASSERT_TRUE(fx_has(w.message, "waiting for the Volcano PodGroup team-s/flyte-task-pg"));
    CU_ASSERT_TRUE(fx_has(w.message, "scheduling.k8s.io/group-name"));
    hub_state.served = 0;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.group_found, -1);
    CU_ASSERT_EQUAL(w.min_member, 6);
    /* no hub at all: karmada_workload_read looks nothing up */
    hub_state.served = 1;
    hub_state.calls = 0;
    CU_ASSERT_EQUAL_FATAL(karmada_workload_read(&w, names, rb, tmpl), 0);
    CU_ASSERT_EQUAL(hub_state.calls, 0);
    CU_ASSERT_EQUAL(w.group_found, -1);
    /* the group muster makes in each member for this RB is muster's, not the hub's: not looked
     * up, nothing to wait for; any other name still is */
    struct karmada_workload_hub own = hub;
    own.own_group = "flyte-task-pg";
    CU_ASSERT_EQUAL_FATAL(karmada_workload_read_hub(&w, names, rb, tmpl, &own), 0);
    CU_ASSERT_EQUAL(hub_state.calls, 0);
    CU_ASSERT_EQUAL(w.group_found, -1);
    CU_ASSERT_EQUAL(w.min_member, 6);
    own.own_group = "muster-flyte-task-pg";
    CU_ASSERT_EQUAL(karmada_workload_read_hub(&w, names, rb, tmpl, &own), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(hub_state.calls, 1);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_cosched(void)
{
    begin();
    json_object *rb, *tmpl;
    pair(&rb, &tmpl);
    json_object *pg = fx_load_yaml("tests/fixtures/workloads/hub-podgroup-cosched.yaml");
    hub_state.pg = pg;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(hub_state.d, KARMADA_WORKLOAD_DIALECT_COSCHEDULING);
    CU_ASSERT_STRING_EQUAL(hub_state.name, "nginx");
    CU_ASSERT_EQUAL(w.group_found, 1);
    CU_ASSERT_EQUAL(w.min_member, 3);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "the hub's coscheduling PodGroup spec.minMember");
    CU_ASSERT_EQUAL(w.gang_timeout_s, 10);
    CU_ASSERT_EQUAL(w.gang_soft, 0);
    CU_ASSERT_STRING_EQUAL(w.queue, "default"); /* coscheduling names no queue */
    /* a coscheduling PodGroup not on the hub: scheduler-plugins schedules such pods alone, so
     * there is no gang to read and muster's default stands */
    hub_state.pg = NULL;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.group_found, 0);
    CU_ASSERT_EQUAL(w.min_member, 6);
    CU_ASSERT_EQUAL(w.gang_timeout_s, 0);
    /* YuniKorn on the same pods comes first (the first dialect found): no lookup */
    hub_state.pg = pg;
    hub_state.calls = 0;
    POD_ANN(tmpl, KARMADA_WORKLOAD_YK_POLICY,
            json_object_new_string("placeholderTimeoutInSeconds=30 gangSchedulingStyle=Hard"));
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(hub_state.calls, 0);
    CU_ASSERT_EQUAL(w.gang_timeout_s, 30);
    json_object_put(pg);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* A plain Pod naming a coscheduling PodGroup of minMember 3 (separate Pods, one RB each): not
 * refused as a Deployment of fewer replicas is; its own part is its Pod, the group is recorded
 * for the dispatcher to join the RBs. */
static void test_pod_of_larger_group(void)
{
    begin();
    char p[1024];
    fx_path(p, sizeof p, "tests/fixtures/workloads/pod-rb.json");
    json_object *rb = json_object_from_file(p);
    json_object *tmpl = fx_load_yaml("tests/fixtures/workloads/pod.yaml");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmpl);
    put(tmpl, json_object_new_string("nginx"), "metadata", "labels", KARMADA_WORKLOAD_COSCHED_GROUP,
        NULL);
    json_object *pg = fx_load_yaml("tests/fixtures/workloads/hub-podgroup-cosched.yaml");
    put(pg, json_object_new_int(3), "spec", "minMember", NULL);
    hub_state.pg = pg;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_POD);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_COSCHEDULING);
    CU_ASSERT_STRING_EQUAL(w.group_name, "nginx");
    CU_ASSERT_EQUAL(w.group_found, 1);
    CU_ASSERT_EQUAL(w.group_min, 3);
    CU_ASSERT_EQUAL(w.replicas, 1);
    CU_ASSERT_EQUAL(w.min_member, 1);
    CU_ASSERT_TRUE(fx_has(w.min_member_source, "one Pod of the hub PodGroup's group"));
    /* a Deployment of fewer replicas than the PodGroup is still refused (test_invalid) */
    hub_state.pg = NULL;
    json_object_put(pg);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* Malformed PodGroups keep the RB waiting with a sentence naming the PodGroup and the field. */
static void test_invalid(void)
{
    static const struct {
        int volcano;
        const char *field, *json, *says;
    } cases[] = {
        {0, "minMember", "7", "spec.minMember 7 (PodGroup nginx) is more than the workload's 6"},
        {0, "minMember", "\"3\"", "spec.minMember must be a whole number"},
        {0, "minMember", "-1", "spec.minMember must be a whole number"},
        {0, "scheduleTimeoutSeconds", "1.5", "spec.scheduleTimeoutSeconds must be a whole"},
        {0, "minResources", "[]", "spec.minResources must be an object"},
        {1, "queue", "\"Not A Queue\"", "spec.queue must be a name"},
        {1, "queue", "7", "spec.queue must be a name"},
        {1, "priorityClassName", "\"UPPER\"", "spec.priorityClassName must be a name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        begin();
        json_object *rb, *tmpl;
        pair(&rb, &tmpl);
        json_object *pg;
        if (cases[i].volcano) {
            to_volcano(tmpl);
            pg = fx_load_yaml("tests/fixtures/workloads/hub-podgroup-volcano.yaml");
        } else {
            pg = fx_load_yaml("tests/fixtures/workloads/hub-podgroup-cosched.yaml");
        }
        put(pg, json_tokener_parse(cases[i].json), "spec", cases[i].field, NULL);
        hub_state.pg = pg;
        CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
        CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
        CU_ASSERT_TRUE(fx_has(w.message, cases[i].volcano ? "the hub's Volcano PodGroup"
                                                          : "the hub's coscheduling PodGroup"));
        CU_ASSERT_TRUE(fx_has(w.message, cases[i].volcano ? "flyte-task-pg" : "nginx"));
        CU_ASSERT_TRUE(fx_has(w.message, cases[i].says));
        json_object_put(pg);
        json_object_put(rb);
        json_object_put(tmpl);
        end();
    }
}

/* The pods name a Workload API PodGroup in their pod spec instead of the coscheduling one. */
static void to_workload_api(json_object *tmpl, const char *name)
{
    POD_LABEL(tmpl, KARMADA_WORKLOAD_COSCHED_GROUP, NULL);
    put(tmpl, json_object_new_string(name), "spec", "template", "spec", "schedulingGroup",
        "podGroupName", NULL);
}

/* Kubernetes 1.36's Workload API: the PodGroup's gang.minCount is the gang, basic is none; a
 * PodGroup not there yet is waited for, as kube-scheduler's pods wait for theirs. */
static void test_workload_api(void)
{
    begin();
    json_object *rb, *tmpl;
    pair(&rb, &tmpl);
    to_workload_api(tmpl, "training-pg-0");
    json_object *pg = fx_load_yaml("tests/fixtures/workloads/hub-podgroup-workload-api.yaml");
    hub_state.pg = pg;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_WORKLOAD_API);
    CU_ASSERT_EQUAL(hub_state.d, KARMADA_WORKLOAD_DIALECT_WORKLOAD_API);
    CU_ASSERT_STRING_EQUAL(hub_state.ns, "team-s");
    CU_ASSERT_STRING_EQUAL(hub_state.name, "training-pg-0");
    CU_ASSERT_EQUAL(w.min_member, 4);
    CU_ASSERT_STRING_EQUAL(w.min_member_source,
                           "the hub's Workload API PodGroup spec.schedulingPolicy");
    /* the informers' pruned template keeps the reference */
    json_object *pruned = karmada_workload_prune_template(tmpl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pruned);
    hub_state.calls = 0;
    CU_ASSERT_EQUAL_FATAL(rd(rb, pruned), 0);
    CU_ASSERT_EQUAL(hub_state.calls, 1);
    CU_ASSERT_EQUAL(w.min_member, 4);
    json_object_put(pruned);
    /* basic: standard scheduling, no all-or-nothing */
    put(pg, NULL, "spec", "schedulingPolicy", "gang", NULL);
    put(pg, json_object_new_object(), "spec", "schedulingPolicy", "basic", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.min_member, 1);
    /* both, or neither */
    put(pg, json_tokener_parse("{\"minCount\": 2}"), "spec", "schedulingPolicy", "gang", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_TRUE(
        fx_has(w.message, "spec.schedulingPolicy must set exactly one of gang and basic"));
    put(pg, NULL, "spec", "schedulingPolicy", "basic", NULL);
    put(pg, json_tokener_parse("{\"minCount\": 0}"), "spec", "schedulingPolicy", "gang", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "gang.minCount must be a whole number above 0"));
    put(pg, json_tokener_parse("{\"minCount\": 9}"), "spec", "schedulingPolicy", "gang", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "9 (PodGroup training-pg-0) is more than the workload's 6"));
    /* not there yet: waits, naming it */
    hub_state.pg = NULL;
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_TRUE(fx_has(w.message, "waiting for the Workload API PodGroup team-s/training-pg-0 "
                                     "that its pods name (spec.schedulingGroup.podGroupName)"));
    /* a hub without the API (feature gate off): the reference alone */
    hub_state.served = 0;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.min_member, 6);
    /* a malformed reference */
    to_workload_api(tmpl, "Not_A_Name");
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "spec.schedulingGroup.podGroupName: \"Not_A_Name\""));
    put(tmpl, json_object_new_string("x"), "spec", "template", "spec", "schedulingGroup", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    json_object_put(pg);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* Kubernetes 1.37's v1beta1 PodGroup reads as 1.36's: the hub lookup answers whichever version
 * the hub serves (dispatcher/controller/hubgroups.c), and the spec muster reads is the same. A
 * pod template with no metadata at all still names its PodGroup in its spec. */
static void test_workload_api_v1beta1(void)
{
    begin();
    json_object *rb, *tmpl;
    pair(&rb, &tmpl);
    to_workload_api(tmpl, "training-pg-0");
    json_object *pg =
        fx_load_yaml("tests/fixtures/workloads/hub-podgroup-workload-api-v1beta1.yaml");
    hub_state.pg = pg;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_WORKLOAD_API);
    CU_ASSERT_STRING_EQUAL(hub_state.name, "training-pg-0");
    CU_ASSERT_EQUAL(w.min_member, 4);
    /* a malformed beta PodGroup is refused as the alpha one is */
    put(pg, json_object_new_object(), "spec", "schedulingPolicy", "basic", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_TRUE(
        fx_has(w.message, "spec.schedulingPolicy must set exactly one of gang and basic"));
    put(pg, NULL, "spec", "schedulingPolicy", "basic", NULL);
    /* no labels nor annotations on the pod template */
    put(tmpl, NULL, "spec", "template", "metadata", NULL);
    hub_state.calls = 0;
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(hub_state.calls, 1);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_WORKLOAD_API);
    CU_ASSERT_EQUAL(w.min_member, 4);
    json_object_put(pg);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static CU_TestInfo tests[] = {
    {"a Pod of a larger coscheduling group", test_pod_of_larger_group},
    {"hub PodGroup fixtures validate against their CRDs", test_fixtures_validate},
    {"a Volcano PodGroup sets gang size, queue and priority class", test_volcano},
    {"a missing Volcano PodGroup waits; an unserved kind and muster's own are skipped",
     test_volcano_missing},
    {"a coscheduling PodGroup sets gang size and timeout", test_cosched},
    {"malformed hub PodGroups are refused with a sentence", test_invalid},
    {"a Workload API PodGroup (1.36) sets the gang size", test_workload_api},
    {"a Workload API PodGroup (1.37, v1beta1) sets it too; no pod metadata",
     test_workload_api_v1beta1},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/workload_dialects", tests)
