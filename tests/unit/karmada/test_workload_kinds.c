/* Tests for cluster-adapters/karmada/workload_kinds.c: each of issue 19's kinds read from its
 * upstream example (tests/fixtures/workloads/<kind>.yaml, the RB as Karmada's detector makes it
 * with its default feature gates: no replicas, requirements or components), each template valid
 * against its project's CRD, Karmada's InterpretComponent vectors for PyTorchJob, RayCluster and
 * RayJob read back (the RB carrying Karmada's components, as with MultiplePodTemplatesScheduling),
 * the defaults, the refusals and the pruned informer copy. */
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

static void begin(void)
{
    names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&w), 0);
}

static void end(void)
{
    karmada_workload_close(&w);
    queue_resnames_free(names);
    names = NULL;
}

static void pair(const char *name, json_object **rb, json_object **tmpl)
{
    char rel[256], p[1024];
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s-rb.json", name);
    fx_path(p, sizeof(p), rel);
    *rb = json_object_from_file(p);
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s.yaml", name);
    json_object *docs = fx_load_docs(rel);
    *tmpl = json_object_get(json_object_array_get_idx(docs, 0));
    json_object_put(docs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*rb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*tmpl);
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
    return karmada_workload_read(&w, names, rb, tmpl);
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

/* The pruned informer copy reads as the whole template. */
static void check_pruned(json_object *rb, json_object *tmpl)
{
    int32_t replicas = w.replicas, min = w.min_member;
    int64_t cpu = res(&w.gang, "cpu");
    json_object *p = karmada_workload_prune_template(tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, p), 0);
    CU_ASSERT_EQUAL(w.replicas, replicas);
    CU_ASSERT_EQUAL(w.min_member, min);
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), cpu);
    json_object_put(p);
}

/* ---- the fixtures against their CRDs ---- */

static void test_fixtures_validate(void)
{
    static const struct {
        const char *fixture, *crd, *version;
    } cases[] = {
        {"jobset", "jobset_jobset.x-k8s.io_jobsets.yaml", "v1alpha2"},
        {"lws", "lws_leaderworkerset.x-k8s.io_leaderworkersets.yaml", "v1"},
        {"pytorchjob", "kubeflow_kubeflow.org_pytorchjobs.yaml", "v1"},
        {"mpijob", "kubeflow_kubeflow.org_mpijobs.yaml", "v1"},
        {"raycluster", "kuberay_ray.io_rayclusters.yaml", "v1"},
        {"rayjob", "kuberay_ray.io_rayjobs.yaml", "v1"},
    };
    char p[1024], err[512];
    fx_path(p, sizeof(p),
            "tests/fixtures/reference/crds/karmada_work.karmada.io_resourcebindings.yaml");
    struct kube_schema *rbs = NULL;
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1alpha2", &rbs, err, sizeof(err)), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char rel[256];
        snprintf(rel, sizeof(rel), "tests/fixtures/reference/crds/%s", cases[i].crd);
        fx_path(p, sizeof(p), rel);
        struct kube_schema *s = NULL;
        int rc = kube_schema_load_crd(p, cases[i].version, &s, err, sizeof(err));
        if (rc)
            fprintf(stderr, "\n%s: %s", cases[i].crd, err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        json_object *rb, *tmpl;
        pair(cases[i].fixture, &rb, &tmpl);
        struct kube_schema_errors errs;
        kube_schema_errors_init(&errs);
        rc = kube_schema_validate(s, tmpl, &errs);
        for (size_t e = 0; e < errs.count; e++)
            fprintf(stderr, "\n%s.yaml: %s", cases[i].fixture, errs.msgs[e]);
        CU_ASSERT_EQUAL(rc, 0);
        kube_schema_errors_close(&errs);
        kube_schema_errors_init(&errs);
        rc = kube_schema_validate(rbs, rb, &errs);
        for (size_t e = 0; e < errs.count; e++)
            fprintf(stderr, "\n%s-rb.json: %s", cases[i].fixture, errs.msgs[e]);
        CU_ASSERT_EQUAL(rc, 0);
        /* a wrong type where the kind's own structure is: the trimmed CRD still catches it */
        json_object *bad = copy(tmpl);
        set(bad, "spec", json_object_new_string("not an object"));
        kube_schema_errors_close(&errs);
        kube_schema_errors_init(&errs);
        CU_ASSERT_NOT_EQUAL(kube_schema_validate(s, bad, &errs), 0);
        kube_schema_errors_close(&errs);
        json_object_put(bad);
        json_object_put(rb);
        json_object_put(tmpl);
        kube_schema_free(s);
    }
    kube_schema_free(rbs);
}

/* ---- one test per kind ---- */

static void test_jobset(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("jobset", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_JOBSET);
    CU_ASSERT_STRING_EQUAL(karmada_workload_kind_name(w.kind), "JobSet");
    CU_ASSERT_EQUAL(w.ncomponents, 2);
    expect_comp(0, "workers", 4, 1000, GI);
    expect_comp(1, "driver", 1, 500, 512 * MI);
    CU_ASSERT_EQUAL(w.replicas, 5);
    CU_ASSERT_EQUAL(w.min_member, 5); /* the whole JobSet is the gang */
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 4500);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SINGLE_CLUSTER);
    check_pruned(rb, tmpl);

    /* replicas × parallelism, completions capping parallelism, defaults of 1 */
    json_object *t = copy(tmpl);
    json_object *rj0 = at(t, "spec", "replicatedJobs", "0", NULL);
    set(rj0, "replicas", json_object_new_int(3));
    set(at(rj0, "template", "spec", NULL), "completions", json_object_new_int(2));
    json_object *rj1 = at(t, "spec", "replicatedJobs", "1", NULL);
    set(at(rj1, "template", "spec", NULL), "parallelism", NULL);
    set(at(rj1, "template", "spec", NULL), "completions", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    expect_comp(0, "workers", 6, 1000, GI);
    expect_comp(1, "driver", 1, 500, 512 * MI);
    CU_ASSERT_EQUAL(w.replicas, 7);
    /* GPUs written as limits alone count */
    json_object *ctr = at(rj1, "template", "spec", "template", "spec", "containers", "0", NULL);
    set(at(ctr, "resources", NULL), "limits", json_tokener_parse("{\"nvidia.com/gpu\": 2}"));
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 2000);
    /* a priority class from the first replicated job's pods */
    set(at(rj0, "template", "spec", "template", "spec", NULL), "priorityClassName",
        json_object_new_string("high"));
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_CLASS);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "high");
    /* refusals: a repeated name, a negative count, no pod spec, none at all */
    set(rj1, "name", json_object_new_string("workers"));
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "workers appears twice"));
    set(rj1, "name", NULL);
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "spec.replicatedJobs[1].name"));
    set(rj1, "name", json_object_new_string("driver"));
    set(rj0, "replicas", json_object_new_int(-1));
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "spec.replicatedJobs[0].replicas"));
    set(rj0, "replicas", json_object_new_int(1));
    set(at(rj1, "template", "spec", "template", NULL), "spec", NULL);
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "spec.replicatedJobs[1].template.spec.template.spec"));
    set(at(t, "spec", NULL), "replicatedJobs", json_object_new_array());
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_TRUE(fx_has(w.message, "nothing to run"));
    json_object_put(t);

    /* spread splits a JobSet by its Jobs (issue 20), of several replicated jobs as of one */
    json_object *t2 = copy(tmpl);
    set(at(t2, "metadata", NULL), "annotations",
        json_tokener_parse("{\"scheduling.muster.io/placement\": \"spread\"}"));
    CU_ASSERT_EQUAL_FATAL(rd(rb, t2), 0);
    CU_ASSERT_EQUAL(w.ncomponents, 2);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SPREAD);
    json_object_array_del_idx(at(t2, "spec", "replicatedJobs", NULL), 1, 1);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t2), 0);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SPREAD);
    /* muster's min-member annotation still sets a smaller gang */
    set(at(t2, "metadata", NULL), "annotations",
        json_tokener_parse("{\"scheduling.muster.io/min-member\": \"2\"}"));
    CU_ASSERT_EQUAL_FATAL(rd(rb, t2), 0);
    CU_ASSERT_EQUAL(w.min_member, 2);
    json_object_put(t2);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_lws(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("lws", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_LWS);
    CU_ASSERT_EQUAL(w.ncomponents, 2);
    expect_comp(0, "leader", 3, 50, 0);
    expect_comp(1, "worker", 9, 50, 0);
    CU_ASSERT_EQUAL(w.replicas, 12);
    CU_ASSERT_EQUAL(w.min_member, 4); /* one leader+workers group */
    CU_ASSERT_TRUE(fx_has(w.min_member_source, "size"));
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 600);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SINGLE_CLUSTER);
    check_pruned(rb, tmpl);

    json_object *t = copy(tmpl);
    /* spread opts in to a split by groups (issue 20) */
    set(at(t, "metadata", NULL), "annotations",
        json_tokener_parse("{\"scheduling.muster.io/placement\": \"spread\"}"));
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SPREAD);
    set(at(t, "metadata", NULL), "annotations", NULL);
    json_object *lwt = at(t, "spec", "leaderWorkerTemplate", NULL);
    /* without a leaderTemplate the leader is a worker pod */
    set(at(lwt, "workerTemplate", "spec", "containers", "0", "resources", NULL), "requests",
        json_tokener_parse("{\"cpu\": \"2\"}"));
    set(lwt, "leaderTemplate", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    expect_comp(0, "leader", 3, 2000, 0);
    expect_comp(1, "worker", 9, 2000, 0);
    /* one group: the gang is the whole; size and replicas default to 1 */
    set(at(t, "spec", NULL), "replicas", json_object_new_int(1));
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    CU_ASSERT_EQUAL(w.replicas, 4);
    CU_ASSERT_EQUAL(w.min_member, 4);
    set(at(t, "spec", NULL), "replicas", NULL);
    set(lwt, "size", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    expect_comp(0, "leader", 1, 2000, 0);
    expect_comp(1, "worker", 0, 2000, 0);
    CU_ASSERT_EQUAL(w.replicas, 1);
    set(lwt, "size", json_object_new_int(0));
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "size: must be a positive"));
    set(lwt, "size", json_object_new_int(2));
    set(lwt, "workerTemplate", NULL);
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "workerTemplate.spec"));
    json_object_put(t);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_pytorchjob(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("pytorchjob", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_PYTORCHJOB);
    CU_ASSERT_EQUAL(w.ncomponents, 2);
    expect_comp(0, "master", 1, 0, 0);
    expect_comp(1, "worker", 1, 0, 0);
    /* the GPUs are written as limits alone: they count */
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 2000);
    CU_ASSERT_EQUAL(w.min_member, 2);
    check_pruned(rb, tmpl);

    json_object *t = copy(tmpl);
    json_object *specs = at(t, "spec", "pytorchReplicaSpecs", NULL);
    set(at(specs, "Worker", NULL), "replicas", json_object_new_int(3));
    set(at(specs, "Master", NULL), "replicas", NULL); /* the operator's default: 1 */
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    CU_ASSERT_EQUAL(w.replicas, 4);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 4000);
    set(specs, "Chief", json_object_get(at(specs, "Worker", NULL)));
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "Chief"));
    json_object_put(t);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_mpijob(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("mpijob", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_MPIJOB);
    CU_ASSERT_EQUAL(w.ncomponents, 2);
    expect_comp(0, "Launcher", 1, 1000, 2 * GI); /* limits alone, as the API server defaults */
    expect_comp(1, "Worker", 2, 2000, 4 * GI);
    CU_ASSERT_EQUAL(w.replicas, 3);
    CU_ASSERT_EQUAL(w.min_member, 3);
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 5000);
    check_pruned(rb, tmpl);
    /* SetDefaults_MPIJob: a Worker without replicas runs none */
    json_object *t = copy(tmpl);
    set(at(t, "spec", "mpiReplicaSpecs", "Worker", NULL), "replicas", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    CU_ASSERT_EQUAL(w.replicas, 1);
    json_object_put(t);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_ray(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("raycluster", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_RAYCLUSTER);
    expect_comp(0, "ray-head", 1, 1000, 5 * GI);
    expect_comp(1, "workergroup", 1, 1000, GI);
    CU_ASSERT_EQUAL(w.min_member, 2);
    check_pruned(rb, tmpl);
    /* numOfHosts: a multi-host replica is that many pods (Karmada's interpreter counts one) */
    json_object *t = copy(tmpl);
    json_object *g = at(t, "spec", "workerGroupSpecs", "0", NULL);
    set(g, "replicas", json_object_new_int(2));
    set(g, "numOfHosts", json_object_new_int(4));
    set(g, "groupName", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    expect_comp(1, "worker-1", 8, 1000, GI);
    CU_ASSERT_EQUAL(w.replicas, 9);
    set(g, "replicas", NULL); /* KubeRay's default: 0 */
    CU_ASSERT_EQUAL_FATAL(rd(rb, t), 0);
    CU_ASSERT_EQUAL(w.replicas, 1);
    set(at(t, "spec", NULL), "headGroupSpec", NULL);
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "spec.headGroupSpec.template.spec"));
    json_object_put(t);
    json_object_put(rb);
    json_object_put(tmpl);

    pair("rayjob", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_RAYJOB);
    expect_comp(0, "ray-head", 1, 1000, 2 * GI);
    expect_comp(1, "small-group", 1, 200, 0);
    CU_ASSERT_EQUAL(w.replicas, 2);
    check_pruned(rb, tmpl);
    t = copy(tmpl);
    set(at(t, "spec", NULL), "rayClusterSpec", NULL);
    set(at(t, "spec", NULL), "clusterSelector", json_tokener_parse("{\"ray.io/cluster\": \"a\"}"));
    CU_ASSERT_EQUAL(rd(rb, t), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_TRUE(fx_has(w.message, "clusterSelector"));
    json_object_put(t);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* ---- Karmada's InterpretComponent vectors: with its components in the RB ---- */

/* The vectors where muster and Karmada's Lua disagree, by case name, and why muster's read
 * stands (docs/workload.md, "Issue 19's kinds"). */
static const struct {
    const char *name, *why;
} differs[] = {
    /* the CRD types replicas as an integer; the Lua's tonumber takes "2" */
    {"PyTorchJob with replicas as string numbers", "must be a"},
    {"PyTorchJob with nil/empty replicas (should default to 1)", "must be a"}, /* replicas: "" */
    /* nothing to run: muster refuses rather than queue an empty gang */
    {"PyTorchJob with empty pytorchReplicaSpecs", "nothing to run"},
    /* a replica type without a pod template cannot run */
    {"PyTorchJob with nil template (should handle gracefully)", "pod template's spec is missing"},
};

static void vectors(const char *file, const char *fixture, const char *objkey, size_t ncases)
{
    json_object *rb0, *tmpl0;
    pair(fixture, &rb0, &tmpl0);
    json_object *docs = fx_load_docs(file);
    CU_ASSERT_PTR_NOT_NULL_FATAL(docs);
    CU_ASSERT_EQUAL(json_object_array_length(docs), ncases);
    for (size_t i = 0; i < json_object_array_length(docs); i++) {
        json_object *doc = json_object_array_get_idx(docs, i);
        const char *cname = json_object_get_string(at(doc, "name", NULL));
        json_object *obj = copy(at(doc, objkey, NULL));
        json_object *comps = at(doc, "output", "components", NULL);
        json_object *rb = copy(rb0);
        /* the template stands where the fixture's did: Karmada names it in spec.resource */
        json_object *md = at(obj, "metadata", NULL);
        set(md, "name", json_object_get(at(tmpl0, "metadata", "name", NULL)));
        set(md, "namespace", json_object_get(at(tmpl0, "metadata", "namespace", NULL)));
        set(at(rb, "spec", NULL), "components", copy(comps));
        int rc = rd(rb, obj);
        const char *want_fail = NULL;
        for (size_t d = 0; d < sizeof(differs) / sizeof(differs[0]); d++)
            if (cname && strcmp(cname, differs[d].name) == 0)
                want_fail = differs[d].why;
        if (want_fail) {
            CU_ASSERT_EQUAL(rc, MUSTER_EINVAL);
            CU_ASSERT_TRUE(fx_has(w.message, want_fail));
        } else {
            if (rc)
                fprintf(stderr, "\n%s: %s", cname, w.message);
            CU_ASSERT_EQUAL(rc, 0);
            size_t nc = json_object_array_length(comps);
            CU_ASSERT_EQUAL(w.ncomponents, nc);
            for (size_t k = 0; k < nc && k < w.ncomponents; k++) {
                json_object *c = json_object_array_get_idx(comps, k);
                CU_ASSERT_STRING_EQUAL(w.components[k].name,
                                       json_object_get_string(at(c, "name", NULL)));
                CU_ASSERT_EQUAL(w.components[k].replicas,
                                json_object_get_int(at(c, "replicas", NULL)));
                /* Karmada's request is a floor: muster's is never below it */
                json_object *cpu = at(c, "replicaRequirements", "resourceRequest", "cpu", NULL);
                if (cpu)
                    CU_ASSERT_TRUE(res(&w.components[k].request, "cpu") > 0);
            }
        }
        /* components that do not pair are a stale binding */
        if (!want_fail && json_object_array_length(comps) > 0) {
            json_object *c0 = json_object_array_get_idx(at(rb, "spec", "components", NULL), 0);
            set(c0, "name", json_object_new_string("renamed"));
            CU_ASSERT_EQUAL(rd(rb, obj), MUSTER_EINVAL);
            CU_ASSERT_TRUE(fx_has(w.message, "stale"));
        }
        json_object_put(rb);
        json_object_put(obj);
    }
    json_object_put(docs);
    json_object_put(rb0);
    json_object_put(tmpl0);
}

static void test_reference_vectors(void)
{
    begin();
    vectors("tests/fixtures/reference/examples/karmada_pytorchjob_interpretcomponent-test.yaml",
            "pytorchjob", "observedObj", 9);
    vectors("tests/fixtures/reference/examples/karmada_raycluster_interpretcomponent-test.yaml",
            "raycluster", "desiredObj", 4);
    vectors("tests/fixtures/reference/examples/karmada_rayjob_interpretcomponent-test.yaml",
            "rayjob", "desiredObj", 5);
    end();
}

/* A component's request in the RB above the template's counts (Karmada's may include what the
 * template read does not, e.g. pod overhead). */
static void test_rb_request_counts(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("raycluster", &rb, &tmpl);
    set(at(rb, "spec", NULL), "components",
        json_tokener_parse("[{\"name\": \"ray-head\", \"replicas\": 1, \"replicaRequirements\": "
                           "{\"resourceRequest\": {\"cpu\": \"3\"}}}, {\"name\": "
                           "\"workergroup\", \"replicas\": 1}]"));
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    expect_comp(0, "ray-head", 1, 3000, 5 * GI);
    expect_comp(1, "workergroup", 1, 1000, GI);
    set(at(rb, "spec", NULL), "components",
        json_tokener_parse("[{\"name\": \"ray-head\", \"replicas\": 1}]"));
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "stale"));
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static CU_TestInfo tests[] = {
    {"fixtures validate against their projects' CRDs", test_fixtures_validate},
    {"JobSet", test_jobset},
    {"LeaderWorkerSet", test_lws},
    {"PyTorchJob", test_pytorchjob},
    {"MPIJob", test_mpijob},
    {"RayCluster and RayJob", test_ray},
    {"Karmada's PyTorchJob, RayCluster and RayJob component vectors", test_reference_vectors},
    {"an RB component's request counts", test_rb_request_counts},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/workload_kinds", tests)
