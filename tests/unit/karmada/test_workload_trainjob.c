/* Tests for cluster-adapters/karmada/workload_trainjob.c: Kubeflow Trainer TrainJobs read with
 * their runtimes looked up through a fixture hub. Fixtures are Kubeflow Trainer's own
 * (tests/fixtures/workloads/trainjob.yaml, its TrainingRuntime, the shipped torch-distributed
 * and deepspeed-distributed ClusterTrainingRuntimes), each valid against the vendored CRDs. */
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

/* The fixture hub: runtimes by (scope, name), what the read asked for. */
static struct {
    json_object *ns_rt[2], *cl_rt[2]; /* TrainingRuntimes (team), ClusterTrainingRuntimes */
    int served;
    int asked_cluster;
    char asked_ns[64], asked_name[256];
    int asks;
} hubst;

static json_object *find(json_object *const *v, const char *name)
{
    for (int i = 0; i < 2; i++) {
        const char *n = v[i] ? json_object_get_string(json_object_object_get(
                                   json_object_object_get(v[i], "metadata"), "name"))
                             : NULL;
        if (n && strcmp(n, name) == 0)
            return v[i];
    }
    return NULL;
}

static json_object *pg_lookup(void *ud, enum karmada_workload_dialect d, const char *ns,
                              const char *name, int *served)
{
    (void)ud, (void)d, (void)ns, (void)name;
    *served = 0;
    return NULL;
}

static json_object *rt_lookup(void *ud, int cluster_scoped, const char *ns, const char *name,
                              int *served)
{
    (void)ud;
    hubst.asks++;
    hubst.asked_cluster = cluster_scoped;
    snprintf(hubst.asked_ns, sizeof hubst.asked_ns, "%s", ns ? ns : "");
    snprintf(hubst.asked_name, sizeof hubst.asked_name, "%s", name);
    *served = hubst.served;
    if (!hubst.served)
        return NULL;
    if (cluster_scoped)
        return find(hubst.cl_rt, name);
    return ns && strcmp(ns, "team") == 0 ? find(hubst.ns_rt, name) : NULL;
}

static const struct karmada_workload_hub hub = {pg_lookup, NULL, rt_lookup, NULL};

static json_object *rb0, *tj0;

static void begin(void)
{
    names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&w), 0);
    memset(&hubst, 0, sizeof hubst);
    hubst.served = 1;
    hubst.ns_rt[0] =
        fx_load_yaml("tests/fixtures/workloads/trainingruntime-torch-with-dataset-init.yaml");
    hubst.cl_rt[0] =
        fx_load_yaml("tests/fixtures/workloads/clustertrainingruntime-torch-distributed.yaml");
    hubst.cl_rt[1] =
        fx_load_yaml("tests/fixtures/workloads/clustertrainingruntime-deepspeed-distributed.yaml");
    char p[1024];
    fx_path(p, sizeof p, "tests/fixtures/workloads/trainjob-rb.json");
    rb0 = json_object_from_file(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb0);
    tj0 = fx_load_yaml("tests/fixtures/workloads/trainjob.yaml");
}

static void end(void)
{
    karmada_workload_close(&w);
    queue_resnames_free(names);
    names = NULL;
    for (int i = 0; i < 2; i++) {
        json_object_put(hubst.ns_rt[i]);
        json_object_put(hubst.cl_rt[i]);
    }
    json_object_put(rb0);
    json_object_put(tj0);
}

/* o.k1.k2... (NULL-terminated keys; a key of digits indexes an array) */
static json_object *at(json_object *o, ...)
{
    va_list ap;
    va_start(ap, o);
    for (const char *k = o ? va_arg(ap, const char *) : NULL; o && k;
         k = va_arg(ap, const char *)) {
        if (json_object_is_type(o, json_type_array))
            o = json_object_array_get_idx(o, (size_t)strtoul(k, NULL, 10));
        else if (!json_object_object_get_ex(o, k, &o))
            o = NULL;
    }
    va_end(ap);
    return o;
}

static json_object *copy(json_object *o)
{
    json_object *c = NULL;
    json_object_deep_copy(o, &c, NULL);
    return c;
}

static void set(json_object *obj, const char *key, json_object *val)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(obj);
    if (val)
        json_object_object_add(obj, key, val);
    else
        json_object_object_del(obj, key);
}

static int rd(json_object *rb, json_object *tmpl)
{
    return karmada_workload_read_hub(&w, names, rb, tmpl, &hub);
}

static int64_t res(const struct queue_resvec *v, const char *name)
{
    uint32_t id;
    if (queue_resnames_find(names, name, strlen(name), &id))
        return 0;
    return queue_resvec_get(v, id);
}

static void expect_comp(uint32_t i, const char *name, int32_t replicas, int64_t cpu, int64_t mem)
{
    CU_ASSERT_FATAL(i < w.ncomponents);
    CU_ASSERT_STRING_EQUAL(w.components[i].name, name);
    CU_ASSERT_EQUAL(w.components[i].replicas, replicas);
    CU_ASSERT_EQUAL(res(&w.components[i].request, "cpu"), cpu);
    CU_ASSERT_EQUAL(res(&w.components[i].request, "memory"), mem);
}

/* A TrainJob on runtime (kind, name) with numNodes (-1: unset) and no resourcesPerNode. */
static json_object *trainjob_on(const char *kind, const char *name, int nodes)
{
    json_object *t = copy(tj0);
    json_object *ref = at(t, "spec", "runtimeRef", NULL);
    set(ref, "kind", kind ? json_object_new_string(kind) : NULL);
    set(ref, "name", json_object_new_string(name));
    json_object *tr = at(t, "spec", "trainer", NULL);
    set(tr, "resourcesPerNode", NULL);
    set(tr, "numNodes", nodes >= 0 ? json_object_new_int(nodes) : NULL);
    return t;
}

/* ---- the fixtures against Kubeflow Trainer's CRDs ---- */

static void test_fixtures_validate(void)
{
    begin();
    static const struct {
        const char *fixture, *crd;
    } cases[] = {
        {"trainjob.yaml", "kubeflow_trainer.kubeflow.org_trainjobs.yaml"},
        {"trainingruntime-torch-with-dataset-init.yaml",
         "kubeflow_trainer.kubeflow.org_trainingruntimes.yaml"},
        {"clustertrainingruntime-torch-distributed.yaml",
         "kubeflow_trainer.kubeflow.org_clustertrainingruntimes.yaml"},
        {"clustertrainingruntime-deepspeed-distributed.yaml",
         "kubeflow_trainer.kubeflow.org_clustertrainingruntimes.yaml"},
    };
    char rel[256], p[1024], err[512];
    fx_path(p, sizeof p,
            "tests/fixtures/reference/crds/karmada_work.karmada.io_resourcebindings.yaml");
    struct kube_schema *rbs = NULL;
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1alpha2", &rbs, err, sizeof err), 0);
    struct kube_schema_errors errs;
    kube_schema_errors_init(&errs);
    CU_ASSERT_EQUAL(kube_schema_validate(rbs, rb0, &errs), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(rel, sizeof rel, "tests/fixtures/reference/crds/%s", cases[i].crd);
        fx_path(p, sizeof p, rel);
        struct kube_schema *s = NULL;
        CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1alpha1", &s, err, sizeof err), 0);
        snprintf(rel, sizeof rel, "tests/fixtures/workloads/%s", cases[i].fixture);
        json_object *o = fx_load_yaml(rel);
        kube_schema_errors_close(&errs);
        kube_schema_errors_init(&errs);
        int rc = kube_schema_validate(s, o, &errs);
        for (size_t e = 0; rc && e < errs.count; e++)
            fprintf(stderr, "\n%s: %s", cases[i].fixture, errs.msgs[e]);
        CU_ASSERT_EQUAL(rc, 0);
        /* the trimmed schema still checks: a negative numNodes, a runtime's spec no object */
        json_object *bad = copy(o);
        if (i == 0)
            set(at(bad, "spec", "trainer", NULL), "numNodes", json_object_new_int(-1));
        else
            set(bad, "spec", json_object_new_string("not an object"));
        kube_schema_errors_close(&errs);
        kube_schema_errors_init(&errs);
        CU_ASSERT_NOT_EQUAL(kube_schema_validate(s, bad, &errs), 0);
        json_object_put(bad);
        json_object_put(o);
        kube_schema_free(s);
    }
    kube_schema_errors_close(&errs);
    kube_schema_free(rbs);
    end();
}

/* ---- the upstream example ---- */

static void test_multi_step(void)
{
    begin();
    CU_ASSERT_EQUAL_FATAL(rd(rb0, tj0), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_TRAINJOB);
    CU_ASSERT_STRING_EQUAL(karmada_workload_kind_name(w.kind), "TrainJob");
    /* the namespaced runtime, looked up in the TrainJob's namespace */
    CU_ASSERT_EQUAL(hubst.asks, 1);
    CU_ASSERT_EQUAL(hubst.asked_cluster, 0);
    CU_ASSERT_STRING_EQUAL(hubst.asked_ns, "team");
    CU_ASSERT_STRING_EQUAL(hubst.asked_name, "torch-with-dataset-init");
    /* one dataset initializer pod, then numNodes 2 nodes with resourcesPerNode's requests */
    CU_ASSERT_EQUAL_FATAL(w.ncomponents, 2);
    expect_comp(0, "dataset-initializer", 1, 0, 0);
    expect_comp(1, "node", 2, 2000, 4 * GI);
    CU_ASSERT_EQUAL(w.replicas, 3);
    CU_ASSERT_EQUAL(w.min_member, 3); /* the whole TrainJob is the gang */
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 4000);
    CU_ASSERT_EQUAL(res(&w.gang, "memory"), 8 * GI);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SINGLE_CLUSTER);
    /* the borrowed runtime is not changed by the merge */
    CU_ASSERT_PTR_NULL(at(hubst.ns_rt[0], "spec", "template", "spec", "replicatedJobs", "1",
                          "template", "spec", "template", "spec", "containers", "0", "resources",
                          NULL));
    /* the informer's pruned copy reads the same */
    json_object *p = karmada_workload_prune_template(tj0);
    CU_ASSERT_EQUAL_FATAL(rd(rb0, p), 0);
    CU_ASSERT_EQUAL(w.replicas, 3);
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 4000);
    json_object_put(p);
    /* limits alone count where requests are absent: the runtime's own GPU limit stays, the
     * TrainJob's requests win key by key */
    json_object *t = copy(tj0);
    json_object *ctr = at(hubst.ns_rt[0], "spec", "template", "spec", "replicatedJobs", "1",
                          "template", "spec", "template", "spec", "containers", "0", NULL);
    set(ctr, "resources",
        json_tokener_parse("{\"requests\": {\"cpu\": \"1\", \"memory\": \"16Gi\"}, "
                           "\"limits\": {\"nvidia.com/gpu\": 1}}"));
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(1, "node", 2, 2000, 4 * GI);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "nvidia.com/gpu"), 1000);
    /* without resourcesPerNode the runtime's own requests */
    set(at(t, "spec", "trainer", NULL), "resourcesPerNode", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(1, "node", 2, 1000, 16 * GI);
    /* a priority class from the runtime's first replicated job */
    set(at(hubst.ns_rt[0], "spec", "template", "spec", "replicatedJobs", "0", "template", "spec",
           "template", "spec", NULL),
        "priorityClassName", json_object_new_string("train-high"));
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_CLASS);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "train-high");
    json_object_put(t);
    end();
}

/* ---- the counts: numNodes, mlPolicy.numNodes, parallelism, MPI's node job ---- */

static void test_counts(void)
{
    begin();
    /* 01-multi-node.yaml: torch-distributed (kind defaulted: a ClusterTrainingRuntime), 3 nodes */
    json_object *t = trainjob_on(NULL, "torch-distributed", 3);
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    CU_ASSERT_EQUAL(hubst.asked_cluster, 1);
    CU_ASSERT_STRING_EQUAL(hubst.asked_name, "torch-distributed");
    CU_ASSERT_EQUAL_FATAL(w.ncomponents, 1);
    expect_comp(0, "node", 3, 0, 0);
    CU_ASSERT_EQUAL(w.min_member, 3);
    json_object_put(t);
    /* numNodes unset: the runtime's mlPolicy.numNodes, default 1 */
    t = trainjob_on("ClusterTrainingRuntime", "torch-distributed", -1);
    json_object *ml = at(hubst.cl_rt[0], "spec", "mlPolicy", NULL);
    set(ml, "numNodes", json_object_new_int(4));
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(0, "node", 4, 0, 0);
    set(ml, "numNodes", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(0, "node", 1, 0, 0);
    /* no mlPolicy: the trainer job's parallelism, numNodes still wins (plainml.go); the
     * trainer job runs 1 replica whatever replicatedJobs[].replicas says (builder.go) */
    json_object *keep = json_object_get(ml);
    set(at(hubst.cl_rt[0], "spec", NULL), "mlPolicy", NULL);
    json_object *rj = at(hubst.cl_rt[0], "spec", "template", "spec", "replicatedJobs", "0", NULL);
    set(rj, "replicas", json_object_new_int(3));
    set(at(rj, "template", "spec", NULL), "parallelism", json_object_new_int(5));
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(0, "node", 5, 0, 0);
    json_object_put(t);
    t = trainjob_on("ClusterTrainingRuntime", "torch-distributed", 2);
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(0, "node", 2, 0, 0);
    /* a job of no Trainer role keeps its replicas × parallelism; numNodes 0 runs no node */
    set(at(rj, "template", "metadata", "labels", NULL),
        "trainer.kubeflow.org/trainjob-ancestor-step", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(0, "node", 15, 0, 0);
    json_object_put(t);
    set(at(hubst.cl_rt[0], "spec", NULL), "mlPolicy", keep);
    set(at(rj, "template", "metadata", "labels", NULL),
        "trainer.kubeflow.org/trainjob-ancestor-step", json_object_new_string("trainer"));
    t = trainjob_on(NULL, "torch-distributed", 0);
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(0, "node", 0, 0, 0);
    json_object_put(t);

    /* deepspeed-distributed, MPI with runLauncherAsNode: the launcher is one node, the "node"
     * job numNodes - 1 (mpi.go), both with resourcesPerNode (trainingruntime.go) */
    t = trainjob_on("ClusterTrainingRuntime", "deepspeed-distributed", 4);
    set(at(t, "spec", "trainer", NULL), "resourcesPerNode",
        json_tokener_parse("{\"limits\": {\"nvidia.com/gpu\": 2}}"));
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    CU_ASSERT_EQUAL_FATAL(w.ncomponents, 2);
    expect_comp(0, "node", 3, 0, 0);
    expect_comp(1, "launcher", 1, 0, 0);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "nvidia.com/gpu"), 2000);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "nvidia.com/gpu"), 2000);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 8000);
    CU_ASSERT_EQUAL(w.min_member, 4);
    /* one node: the "node" job keeps one (max(numNodes-1, 1)) */
    set(at(t, "spec", "trainer", NULL), "numNodes", json_object_new_int(1));
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(0, "node", 1, 0, 0);
    /* without runLauncherAsNode the "node" job is numNodes and only the launcher (the trainer)
     * gets resourcesPerNode */
    set(at(hubst.cl_rt[1], "spec", "mlPolicy", "mpi", NULL), "runLauncherAsNode",
        json_object_new_boolean(0));
    set(at(t, "spec", "trainer", NULL), "numNodes", json_object_new_int(4));
    CU_ASSERT_EQUAL_FATAL(rd(rb0, t), 0);
    expect_comp(0, "node", 4, 0, 0);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "nvidia.com/gpu"), 0);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "nvidia.com/gpu"), 2000);
    json_object_put(t);
    end();
}

/* ---- the runtime on the hub: missing, not served, not looked up ---- */

static void test_runtime_missing(void)
{
    begin();
    json_object *t = trainjob_on("TrainingRuntime", "no-such-runtime", 2);
    CU_ASSERT_EQUAL(rd(rb0, t), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_STRING_EQUAL(karmada_workload_condition_reason(w.reason), "Unschedulable");
    CU_ASSERT_TRUE(fx_has(w.message, "waiting for the TrainingRuntime no-such-runtime in namespace "
                                     "team that the TrainJob names (spec.runtimeRef) to be created "
                                     "on the hub"));
    json_object_put(t);
    /* a ClusterTrainingRuntime is not a TrainingRuntime of the same name */
    t = trainjob_on("TrainingRuntime", "torch-distributed", 2);
    CU_ASSERT_EQUAL(rd(rb0, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "waiting for the TrainingRuntime torch-distributed"));
    json_object_put(t);
    /* the hub without the CRD */
    hubst.served = 0;
    CU_ASSERT_EQUAL(rd(rb0, tj0), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_TRUE(fx_has(w.message, "the hub serves no trainer.kubeflow.org runtimes"));
    hubst.served = 1;
    /* karmada_workload_read looks nothing up */
    CU_ASSERT_EQUAL(karmada_workload_read(&w, names, rb0, tj0), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_TRUE(fx_has(w.message, "which this read does not look up"));
    /* and once the runtime is there, the same TrainJob reads */
    CU_ASSERT_EQUAL(rd(rb0, tj0), 0);
    CU_ASSERT_EQUAL(w.replicas, 3);
    end();
}

/* ---- refusals ---- */

static void expect_invalid(json_object *rb, json_object *t, const char *needle)
{
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_TRUE(fx_has(w.message, needle));
}

static void test_refusals(void)
{
    begin();
    json_object *t = copy(tj0);
    json_object *ref = at(t, "spec", "runtimeRef", NULL);
    set(ref, "name", NULL);
    expect_invalid(rb0, t, "spec.runtimeRef.name");
    set(ref, "name", json_object_new_string("Not_A_Name"));
    expect_invalid(rb0, t, "spec.runtimeRef.name");
    set(ref, "name", json_object_new_string("torch-with-dataset-init"));
    set(ref, "kind", json_object_new_string("JobSet"));
    expect_invalid(rb0, t, "spec.runtimeRef.kind");
    set(ref, "kind", json_object_new_string("TrainingRuntime"));
    set(ref, "apiGroup", json_object_new_string("example.com"));
    expect_invalid(rb0, t, "spec.runtimeRef.apiGroup");
    set(ref, "apiGroup", NULL); /* defaulted */
    CU_ASSERT_EQUAL(rd(rb0, t), 0);
    json_object *tr = at(t, "spec", "trainer", NULL);
    set(tr, "numNodes", json_object_new_int(-2));
    expect_invalid(rb0, t, "spec.trainer.numNodes");
    set(tr, "numNodes", json_object_new_string("2"));
    expect_invalid(rb0, t, "spec.trainer.numNodes");
    set(tr, "numNodes", json_object_new_int(2));
    set(tr, "resourcesPerNode", json_object_new_string("4 cpus"));
    expect_invalid(rb0, t, "spec.trainer.resourcesPerNode");
    set(tr, "resourcesPerNode", json_tokener_parse("{\"requests\": {\"cpu\": \"lots\"}}"));
    expect_invalid(rb0, t, "cpu");
    set(tr, "resourcesPerNode", NULL);
    CU_ASSERT_EQUAL(rd(rb0, t), 0);
    /* the runtime's own faults name it */
    json_object *rtspec = at(hubst.ns_rt[0], "spec", NULL);
    json_object *rjs = json_object_get(at(rtspec, "template", "spec", "replicatedJobs", NULL));
    set(at(rtspec, "template", "spec", NULL), "replicatedJobs", json_object_new_array());
    expect_invalid(rb0, t,
                   "TrainingRuntime torch-with-dataset-init has no "
                   "spec.template.spec.replicatedJobs");
    set(at(rtspec, "template", "spec", NULL), "replicatedJobs", rjs);
    set(at(rjs, "0", NULL), "replicas", json_object_new_int(-1));
    expect_invalid(rb0, t,
                   "TrainingRuntime torch-with-dataset-init "
                   "spec.template.spec.replicatedJobs[0].replicas");
    set(at(rjs, "0", NULL), "replicas", json_object_new_int(1));
    set(at(rtspec, "mlPolicy", NULL), "numNodes", json_object_new_int(-1));
    expect_invalid(rb0, t, "spec.mlPolicy.numNodes");
    set(at(rtspec, "mlPolicy", NULL), "numNodes", json_object_new_int(1));
    /* spread is refused: Karmada divides no TrainJob */
    json_object *rb = copy(rb0);
    json_object *md = at(rb, "metadata", NULL);
    set(md, "annotations", json_tokener_parse("{\"scheduling.muster.io/placement\": \"spread\"}"));
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_TRUE(fx_has(w.message, "placement spread is refused for a TrainJob"));
    json_object_put(rb);
    /* an RB with components (as MultiplePodTemplatesScheduling would, had Karmada a component
     * interpreter for it) pairs by name, else it is stale */
    rb = copy(rb0);
    set(at(rb, "spec", NULL), "components",
        json_tokener_parse("[{\"name\": \"node\", \"replicas\": 2}, "
                           "{\"name\": \"dataset-initializer\", \"replicas\": 1, "
                           "\"replicaRequirements\": {\"resourceRequest\": {\"cpu\": \"3\"}}}]"));
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    expect_comp(0, "dataset-initializer", 1, 3000, 0);
    set(at(rb, "spec", NULL), "components", json_tokener_parse("[{\"name\": \"trainer\"}]"));
    expect_invalid(rb, t, "the binding is stale");
    json_object_put(rb);
    json_object_put(t);
    end();
}

static CU_TestInfo tests[] = {
    {"fixtures validate against Kubeflow Trainer's CRDs", test_fixtures_validate},
    {"the multi-step example on its TrainingRuntime", test_multi_step},
    {"numNodes, mlPolicy.numNodes, parallelism and MPI's node job", test_counts},
    {"a runtime missing, not served or not looked up", test_runtime_missing},
    {"refusals", test_refusals},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/workload_trainjob", tests)
