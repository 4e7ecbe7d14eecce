/* Tests for cluster-adapters/karmada/workload.c: each kind's fixture pair
 * (tests/fixtures/workloads/), every row of DESIGN.md's "What muster reads from a workload", every
 * refusal, cluster matching, overflow. */
#include "cluster-adapters/karmada/gang.h"
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/karmada/workload.h"
#include "cluster-adapters/karmada/workload_clusters.h"
#include "cluster-adapters/karmada/workload_prune.h"

#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/karmada/webhook.h"
#include "queue/errors.h"
#include "queue/mem.h"
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

/* A fixture pair: tests/fixtures/workloads/<name>-rb.json and <name>.yaml. */
static void pair(const char *name, json_object **rb, json_object **tmpl)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s-rb.json", name);
    *rb = fx_load_json(rel);
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s.yaml", name);
    *tmpl = fx_load_yaml(rel);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*rb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*tmpl);
}

static json_object *parse(const char *text)
{
    json_object *o = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL(o);
    return o;
}

/* Sets root.k1.k2...kn = val (taking val's reference), creating objects on the way; val NULL
 * deletes the key. The key list ends with NULL. */
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

static json_object *str(const char *s)
{
    return json_object_new_string(s);
}

static json_object *num(int64_t v)
{
    return json_object_new_int64(v);
}

static json_object *copy(json_object *o)
{
    json_object *c = NULL;
    json_object_deep_copy(o, &c, NULL);
    return c;
}

static json_object *jfind(json_object *o, const char *k)
{
    json_object *v = NULL;
    json_object_object_get_ex(o, k, &v);
    return v;
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

/* A fresh copy of a fixture RB and template with one annotation set on the template. */
static void with_tmpl_annotation(json_object *tmpl, const char *key, const char *value)
{
    put(tmpl, value ? str(value) : NULL, "metadata", "annotations", key, NULL);
}

/* ---- the fixtures themselves ---- */

static void test_fixtures_validate(void)
{
    char p[1024], err[512];
    fx_path(p, sizeof(p),
            "tests/fixtures/reference/crds/karmada_work.karmada.io_resourcebindings.yaml");
    struct kube_schema *rbs = NULL, *jobs = NULL;
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1alpha2", &rbs, err, sizeof(err)), 0);
    fx_path(p, sizeof(p), "tests/fixtures/reference/crds/volcano_batch.volcano.sh_jobs.yaml");
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1alpha1", &jobs, err, sizeof(err)), 0);
    static const char *const kinds[] = {"deployment", "job",          "pod",
                                        "vcjob",      "vcjob-tasks",  "statefulset",
                                        "cosched",    "yunikorn-job", "kueue-pod"};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        json_object *rb, *tmpl;
        pair(kinds[i], &rb, &tmpl);
        struct kube_schema_errors errs;
        kube_schema_errors_init(&errs);
        int rc = kube_schema_validate(rbs, rb, &errs);
        for (size_t e = 0; e < errs.count; e++)
            fprintf(stderr, "\n%s-rb.json: %s", kinds[i], errs.msgs[e]);
        CU_ASSERT_EQUAL(rc, 0);
        if (strncmp(kinds[i], "vcjob", 5) == 0) {
            rc = kube_schema_validate(jobs, tmpl, &errs);
            for (size_t e = 0; e < errs.count; e++)
                fprintf(stderr, "\n%s.yaml: %s", kinds[i], errs.msgs[e]);
            CU_ASSERT_EQUAL(rc, 0);
        }
        kube_schema_errors_close(&errs);
        json_object_put(rb);
        json_object_put(tmpl);
    }
    kube_schema_free(rbs);
    kube_schema_free(jobs);
}

/* ---- one test per kind: every field read from the fixture pair ---- */

static void test_deployment(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_OK);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_DEPLOYMENT);
    CU_ASSERT_EQUAL(karmada_workload_kind_of(rb), KARMADA_WORKLOAD_KIND_DEPLOYMENT);
    CU_ASSERT_STRING_EQUAL(w.queue, "team-a");
    CU_ASSERT_TRUE(w.queue_explicit);
    CU_ASSERT_STRING_EQUAL(w.queue_source, "template label kueue.x-k8s.io/queue-name");
    CU_ASSERT_EQUAL(w.replicas, 4);
    CU_ASSERT_EQUAL(w.min_member, 4);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "replicas");
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SPREAD);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_RB);
    CU_ASSERT_EQUAL(w.priority, 1000);
    CU_ASSERT_EQUAL(w.ncomponents, 1);
    CU_ASSERT_STRING_EQUAL(w.components[0].name, "");
    CU_ASSERT_EQUAL(w.components[0].replicas, 4);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "cpu"), 2000);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "memory"), 4 * GI);
    CU_ASSERT_EQUAL(w.gang.len, 2);
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 8000);
    CU_ASSERT_EQUAL(res(&w.gang, "memory"), 16 * GI);
    CU_ASSERT_STRING_EQUAL(w.scheduler_name, "muster");
    CU_ASSERT_TRUE(karmada_workload_assigns(&w, "muster"));
    CU_ASSERT_FALSE(karmada_workload_assigns(&w, "default-scheduler"));
    CU_ASSERT_STRING_EQUAL(w.permanent_id, "b7f3a1c9-2d4e-4f6a-8b0c-9d1e2f3a4b5c");
    CU_ASSERT_EQUAL(w.suspend_scheduling, 1);
    CU_ASSERT_EQUAL(w.suspend_dispatching, -1);

    char why[256];
    json_object *m1 = parse("{\"metadata\":{\"name\":\"member1\"}}");
    json_object *m3 = parse("{\"metadata\":{\"name\":\"member3\"}}");
    json_object *m4 = parse("{\"metadata\":{\"name\":\"member4\"}}");
    CU_ASSERT_TRUE(karmada_workload_explain_cluster(&w, m1, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "");
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, m3, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "member3: excluded by spec.placement.clusterAffinity.exclude");
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, m4, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "member4: not in spec.placement.clusterAffinity.clusterNames");
    CU_ASSERT_FALSE(karmada_workload_allows_cluster(&w, m3));
    json_object_put(m1);
    json_object_put(m3);
    json_object_put(m4);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_batch_job(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("job", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_JOB);
    CU_ASSERT_STRING_EQUAL(w.queue, "batch");
    CU_ASSERT_STRING_EQUAL(w.queue_source, "template annotation scheduling.volcano.sh/queue-name");
    CU_ASSERT_EQUAL(w.replicas, 3); /* the Job's parallelism, as Karmada's interpreter reports */
    CU_ASSERT_EQUAL(w.min_member, 2);
    CU_ASSERT_STRING_EQUAL(w.min_member_source,
                           "template annotation scheduling.muster.io/min-member");
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SINGLE_CLUSTER);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_CLASS);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "high-priority");
    CU_ASSERT_EQUAL(w.priority, 0);
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 1500);
    CU_ASSERT_EQUAL(res(&w.gang, "memory"), 3 * GI);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 3000);
    CU_ASSERT_STRING_EQUAL(w.scheduler_name, "default-scheduler");
    CU_ASSERT_FALSE(karmada_workload_assigns(&w, "muster")); /* resume mode */
    CU_ASSERT_EQUAL(w.suspend_scheduling, 1);
    CU_ASSERT_EQUAL(w.suspend_dispatching, 0);
    json_object *oc = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(w.suspension);
    CU_ASSERT_TRUE(json_object_object_get_ex(w.suspension, "dispatchingOnClusters", &oc));

    /* The shared Cluster fixture: gpu=a100, region=eu-west-1, taint maintenance=planned. */
    json_object *c = fx_load_json("tests/fixtures/objects/cluster.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    char why[256];
    CU_ASSERT_TRUE(karmada_workload_explain_cluster(&w, c, why, sizeof(why)));
    put(c, str("us-east-1"), "metadata", "labels", "region", NULL);
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, c, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "member1: label region does not satisfy In [eu-west-1 "
                                "eu-central-1] (spec.placement.clusterAffinity.labelSelector)");
    put(c, str("eu-central-1"), "metadata", "labels", "region", NULL);
    CU_ASSERT_TRUE(karmada_workload_allows_cluster(&w, c));
    put(c, str("yes"), "metadata", "labels", "decommissioned", NULL);
    CU_ASSERT_FALSE(karmada_workload_allows_cluster(&w, c));
    put(c, NULL, "metadata", "labels", "decommissioned", NULL);
    put(c, str("h100"), "metadata", "labels", "gpu", NULL);
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, c, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "member1: label gpu is not a100 "
                                "(spec.placement.clusterAffinity.labelSelector)");
    put(c, str("a100"), "metadata", "labels", "gpu", NULL);
    CU_ASSERT_TRUE(karmada_workload_allows_cluster(&w, c));

    /* Without the toleration the maintenance taint keeps the job out. */
    put(rb, NULL, "spec", "placement", "clusterTolerations", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, c, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "member1: taint maintenance=planned:NoSchedule is not tolerated "
                                "by spec.placement.clusterTolerations");
    json_object_put(c);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_pod(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("pod", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_POD);
    CU_ASSERT_STRING_EQUAL(w.queue, "default");
    CU_ASSERT_FALSE(w.queue_explicit);
    CU_ASSERT_STRING_EQUAL(w.queue_source, "default");
    CU_ASSERT_EQUAL(w.replicas, 1);
    CU_ASSERT_EQUAL(w.min_member, 1);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_DEFAULT);
    CU_ASSERT_EQUAL(w.priority, 0);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "");
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 250);
    CU_ASSERT_EQUAL(res(&w.gang, "memory"), 64 * MI);
    CU_ASSERT_STRING_EQUAL(w.scheduler_name, "default-scheduler"); /* absent in the RB */
    CU_ASSERT_EQUAL(w.suspend_scheduling, -1);
    CU_ASSERT_EQUAL(w.suspend_dispatching, -1);
    CU_ASSERT_PTR_NULL(w.suspension);
    CU_ASSERT_STRING_EQUAL(w.permanent_id, "d1e2f3a4-b5c6-4d7e-8f9a-0b1c2d3e4f5a");

    /* fieldSelector: provider In (aws, gcp), zone NotIn (eu-west-1c). */
    json_object *c = parse("{\"metadata\":{\"name\":\"m\"},"
                           "\"spec\":{\"provider\":\"aws\",\"zones\":[\"eu-west-1a\"]}}");
    char why[256];
    CU_ASSERT_TRUE(karmada_workload_allows_cluster(&w, c));
    put(c, str("azure"), "spec", "provider", NULL);
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, c, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "m: field provider does not satisfy In "
                                "(spec.placement.clusterAffinity.fieldSelector)");
    put(c, NULL, "spec", "provider", NULL);
    CU_ASSERT_FALSE(karmada_workload_allows_cluster(&w, c)); /* In needs the field */
    put(c, str("gcp"), "spec", "provider", NULL);
    json_object *zones = json_object_new_array();
    json_object_array_add(zones, str("eu-west-1a"));
    json_object_array_add(zones, str("eu-west-1c"));
    put(c, zones, "spec", "zones", NULL);
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, c, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "m: field zone does not satisfy NotIn "
                                "(spec.placement.clusterAffinity.fieldSelector)");
    put(c, NULL, "spec", "zones", NULL);
    CU_ASSERT_TRUE(karmada_workload_allows_cluster(&w, c)); /* no zones: NotIn holds */
    json_object_put(c);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_volcano_job(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("vcjob", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_VCJOB);
    CU_ASSERT_STRING_EQUAL(karmada_workload_kind_name(w.kind), "Volcano Job");
    CU_ASSERT_STRING_EQUAL(w.queue, "research"); /* spec.queue beats the label */
    CU_ASSERT_STRING_EQUAL(w.queue_source, "spec.queue");
    CU_ASSERT_EQUAL_FATAL(w.ncomponents, 2);
    CU_ASSERT_STRING_EQUAL(w.components[0].name, "task-1");
    CU_ASSERT_EQUAL(w.components[0].replicas, 2);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "cpu"), 100);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "memory"), 128 * MI);
    CU_ASSERT_STRING_EQUAL(w.components[1].name, "task-2");
    /* The component says 3 (the task's minAvailable); the job runs all 4 of its replicas. */
    CU_ASSERT_EQUAL(w.components[1].replicas, 4);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "cpu"), 200);
    CU_ASSERT_EQUAL(w.replicas, 6);
    CU_ASSERT_EQUAL(w.min_member, 5);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "spec.minAvailable");
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 2 * 100 + 4 * 200);
    CU_ASSERT_EQUAL(res(&w.gang, "memory"), 2 * 128 * MI + 4 * 256 * MI);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SINGLE_CLUSTER);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_CLASS);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "research-high");
    CU_ASSERT_TRUE(karmada_workload_assigns(&w, "muster"));

    /* The RB's components are exactly Karmada's interpretation of the job (case 1 of the
     * reference vectors). */
    json_object *docs = NULL;
    char p[1024], err[256];
    fx_path(p, sizeof(p),
            "tests/fixtures/reference/examples/karmada_vcjob_interpretcomponent-test.yaml");
    CU_ASSERT_EQUAL_FATAL(kube_yaml_read(p, &docs, err, sizeof(err)), 0);
    json_object *out = NULL, *comps = NULL, *spec = NULL;
    json_object_object_get_ex(json_object_array_get_idx(docs, 0), "output", &out);
    json_object_object_get_ex(out, "components", &comps);
    json_object_object_get_ex(rb, "spec", &spec);
    json_object *rbcomps = NULL;
    json_object_object_get_ex(spec, "components", &rbcomps);
    CU_ASSERT_TRUE(json_object_equal(comps, rbcomps));
    json_object_put(docs);

    /* The NoExecute-only toleration tolerates a NoExecute taint, not a NoSchedule one; a
     * PreferNoSchedule taint never keeps work out. */
    json_object *c = parse("{\"metadata\":{\"name\":\"member2\"},\"spec\":{\"taints\":["
                           "{\"key\":\"cluster.karmada.io/not-ready\",\"effect\":\"NoExecute\"},"
                           "{\"key\":\"busy\",\"effect\":\"PreferNoSchedule\"}]}}");
    CU_ASSERT_TRUE(karmada_workload_allows_cluster(&w, c));
    json_object *t = parse("{\"key\":\"gpu-broken\",\"value\":\"1\",\"effect\":\"NoSchedule\"}");
    json_object *taints = NULL, *cspec = NULL;
    json_object_object_get_ex(c, "spec", &cspec);
    json_object_object_get_ex(cspec, "taints", &taints);
    json_object_array_add(taints, t);
    CU_ASSERT_FALSE(karmada_workload_allows_cluster(&w, c));
    json_object_put(c);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* A Volcano Job's RB as Karmada makes it by default (MultiplePodTemplatesScheduling off): no
 * components, replicas or replicaRequirements. The gang comes from the template, Volcano's own
 * tf-example-gpu.yaml: 1 ps (1 CPU) + 3 workers (1 CPU, 1 GPU), minAvailable 4. */
static void test_volcano_job_without_components(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("vcjob-tasks", &rb, &tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_VCJOB);
    CU_ASSERT_EQUAL_FATAL(w.ncomponents, 2);
    CU_ASSERT_STRING_EQUAL(w.components[0].name, "ps");
    CU_ASSERT_EQUAL(w.components[0].replicas, 1);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "cpu"), 1000);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "nvidia.com/gpu"), 0);
    CU_ASSERT_STRING_EQUAL(w.components[1].name, "worker");
    CU_ASSERT_EQUAL(w.components[1].replicas, 3);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "cpu"), 1000);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "nvidia.com/gpu"), 1000);
    CU_ASSERT_EQUAL(w.replicas, 4);
    CU_ASSERT_EQUAL(w.min_member, 4);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "spec.minAvailable");
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 4000);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 3000);
    CU_ASSERT_STRING_EQUAL(w.queue, "research");

    /* GPUs written as limits only (the usual form) count as requests, as the member's API
     * server defaults them. */
    json_object *t2 = copy(tmpl);
    json_object *tasks = jfind(jfind(t2, "spec"), "tasks");
    json_object *ctr = json_object_array_get_idx(
        jfind(jfind(jfind(json_object_array_get_idx(tasks, 1), "template"), "spec"), "containers"),
        0);
    put(ctr, parse("{\"cpu\":\"1\"}"), "resources", "requests", NULL);
    put(ctr, parse("{\"nvidia.com/gpu\":\"2\",\"cpu\":\"4\"}"), "resources", "limits", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t2), 0);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "nvidia.com/gpu"), 2000);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "cpu"), 1000); /* the request stands */
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 6000);

    /* No job minAvailable: Volcano's default, the sum of the tasks' minAvailable (each the
     * task's replicas when unset). */
    put(t2, NULL, "spec", "minAvailable", NULL);
    put(json_object_array_get_idx(tasks, 1), num(2), "minAvailable", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t2), 0);
    CU_ASSERT_EQUAL(w.min_member, 1 + 2);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "the tasks' minAvailable");
    put(json_object_array_get_idx(tasks, 1), NULL, "minAvailable", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t2), 0);
    CU_ASSERT_EQUAL(w.min_member, 4);

    /* A task without a name is task-<i>, as Karmada's componentResource names it; a task
     * minAvailable above its replicas is refused. */
    put(json_object_array_get_idx(tasks, 0), NULL, "name", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, t2), 0);
    CU_ASSERT_STRING_EQUAL(w.components[0].name, "task-0");
    put(json_object_array_get_idx(tasks, 1), num(5), "minAvailable", NULL);
    CU_ASSERT_EQUAL(rd(rb, t2), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "spec.tasks[1].minAvailable"));
    json_object_put(t2);

    /* The pruned template reads the same. */
    json_object *pruned = karmada_workload_prune_template(tmpl);
    CU_ASSERT_EQUAL_FATAL(rd(rb, pruned), 0);
    CU_ASSERT_EQUAL(w.replicas, 4);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 3000);
    json_object_put(pruned);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* A member's PodGroup support, from its Cluster's status.apiEnablements. */
static void test_cluster_podgroups(void)
{
    json_object *c = fx_load_json("tests/fixtures/objects/cluster.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(karmada_workload_cluster_serves_podgroups(c), 1);
    CU_ASSERT_EQUAL(karmada_workload_cluster_serves(c, "batch.volcano.sh/v1alpha1", "jobs"), 1);
    CU_ASSERT_EQUAL(karmada_workload_cluster_serves(c, "batch/v1", "jobs"), 0);
    json_object *en = jfind(jfind(c, "status"), "apiEnablements");
    json_object_array_del_idx(en, 1, 1); /* Volcano's scheduling group gone: no PodGroup CRD */
    CU_ASSERT_EQUAL(karmada_workload_cluster_serves_podgroups(c), 0);
    json_object_array_del_idx(en, 0, 1); /* and its Job CRD */
    CU_ASSERT_EQUAL(karmada_workload_cluster_serves(c, "batch.volcano.sh/v1alpha1", "jobs"), 0);
    put(c, NULL, "status", "apiEnablements", NULL); /* not reported: not judged */
    CU_ASSERT_EQUAL(karmada_workload_cluster_serves_podgroups(c), -1);
    CU_ASSERT_EQUAL(karmada_workload_cluster_serves(c, "batch.volcano.sh/v1alpha1", "jobs"), -1);
    json_object_put(c);
}

/* Every case of Karmada's own InterpretComponent vectors, read as the RB Karmada would write. */
static void test_reference_vectors(void)
{
    begin();
    json_object *rb0, *tmpl0, *docs = NULL;
    pair("vcjob", &rb0, &tmpl0);
    char p[1024], err[256];
    fx_path(p, sizeof(p),
            "tests/fixtures/reference/examples/karmada_vcjob_interpretcomponent-test.yaml");
    CU_ASSERT_EQUAL_FATAL(kube_yaml_read(p, &docs, err, sizeof(err)), 0);
    size_t n = json_object_array_length(docs);
    CU_ASSERT_EQUAL(n, 5);
    for (size_t i = 0; i < n; i++) {
        json_object *doc = json_object_array_get_idx(docs, i), *obj = NULL, *out = NULL,
                    *comps = NULL;
        json_object_object_get_ex(doc, "observedObj", &obj);
        json_object_object_get_ex(doc, "output", &out);
        json_object_object_get_ex(out, "components", &comps);
        json_object *rb = copy(rb0), *tmpl = copy(obj);
        put(rb, copy(comps), "spec", "components", NULL);
        int rc = rd(rb, tmpl);
        size_t nc = json_object_array_length(comps);
        if (nc == 0) { /* "VCJob with empty or nil tasks" */
            CU_ASSERT_EQUAL(rc, MUSTER_EINVAL);
            CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
            CU_ASSERT_TRUE(fx_has(w.message, "no spec.tasks"));
        } else {
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_EQUAL(w.ncomponents, nc);
            CU_ASSERT_STRING_EQUAL(w.queue, "default");
            int64_t total = 0;
            for (size_t k = 0; k < nc && k < w.ncomponents; k++) {
                json_object *c = json_object_array_get_idx(comps, k), *v = NULL, *rr = NULL,
                            *req = NULL, *cpu = NULL;
                json_object_object_get_ex(c, "name", &v);
                CU_ASSERT_STRING_EQUAL(w.components[k].name, json_object_get_string(v));
                json_object_object_get_ex(c, "replicas", &v);
                CU_ASSERT_EQUAL(w.components[k].replicas, json_object_get_int(v));
                total += json_object_get_int(v);
                json_object_object_get_ex(c, "replicaRequirements", &rr);
                json_object_object_get_ex(rr, "resourceRequest", &req);
                json_object_object_get_ex(req, "cpu", &cpu);
                CU_ASSERT_EQUAL(res(&w.components[k].request, "cpu") > 0, cpu != NULL);
            }
            CU_ASSERT_EQUAL(w.replicas, total);
            CU_ASSERT_EQUAL(w.min_member, total); /* no spec.minAvailable: the whole job */
        }
        json_object_put(rb);
        json_object_put(tmpl);
    }
    json_object_put(docs);
    json_object_put(rb0);
    json_object_put(tmpl0);
    end();
}

/* ---- the table, row by row ---- */

static void expect_queue(json_object *rb, json_object *tmpl, const char *queue, const char *src)
{
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_STRING_EQUAL(w.queue, queue);
    CU_ASSERT_STRING_EQUAL(w.queue_source, src);
    CU_ASSERT_TRUE(w.queue_explicit);
}

static void test_queue_row(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("pod", &rb, &tmpl);
    put(rb, str("r-yk"), "metadata", "annotations", "yunikorn.apache.org/queue", NULL);
    expect_queue(rb, tmpl, "r-yk", "binding annotation yunikorn.apache.org/queue");
    put(rb, str("r-kueue"), "metadata", "labels", "kueue.x-k8s.io/queue-name", NULL);
    expect_queue(rb, tmpl, "r-kueue", "binding label kueue.x-k8s.io/queue-name");
    /* The template wins over the binding, whatever the key. */
    put(tmpl, str("t-yk"), "metadata", "annotations", "yunikorn.apache.org/queue", NULL);
    expect_queue(rb, tmpl, "t-yk", "template annotation yunikorn.apache.org/queue");
    /* Within one object, keys in the table's order; a label before an annotation of one key. */
    put(tmpl, str("t-vol"), "metadata", "labels", "volcano.sh/queue-name", NULL);
    expect_queue(rb, tmpl, "t-vol", "template label volcano.sh/queue-name");
    put(tmpl, str("t-sched-a"), "metadata", "annotations", "scheduling.volcano.sh/queue-name",
        NULL);
    expect_queue(rb, tmpl, "t-sched-a", "template annotation scheduling.volcano.sh/queue-name");
    put(tmpl, str("t-sched-l"), "metadata", "labels", "scheduling.volcano.sh/queue-name", NULL);
    expect_queue(rb, tmpl, "t-sched-l", "template label scheduling.volcano.sh/queue-name");

    put(tmpl, str("Team_A"), "metadata", "labels", "scheduling.volcano.sh/queue-name", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_STRING_EQUAL(w.message,
                           "template label scheduling.volcano.sh/queue-name: \"Team_A\" is not a "
                           "valid queue name (lowercase letters, digits, '-' and '.', at most 63)");
    put(tmpl, num(7), "metadata", "labels", "scheduling.volcano.sh/queue-name", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(w.message,
                           "template labels scheduling.volcano.sh/queue-name: must be a string");
    json_object_put(rb);
    json_object_put(tmpl);

    /* Volcano Job: spec.queue first; "" is unset and falls through to the labels. */
    pair("vcjob", &rb, &tmpl);
    put(tmpl, str(""), "spec", "queue", NULL);
    expect_queue(rb, tmpl, "ignored-by-spec-queue", "template label volcano.sh/queue-name");
    put(tmpl, num(3), "spec", "queue", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(w.message, "the Volcano Job's spec.queue: must be a string");
    /* spec.queue is a Volcano Job's field only: a Deployment's spec.queue means nothing. */
    json_object_put(rb);
    json_object_put(tmpl);
    pair("deployment", &rb, &tmpl);
    put(tmpl, str("sneaky"), "spec", "queue", NULL);
    expect_queue(rb, tmpl, "team-a", "template label kueue.x-k8s.io/queue-name");
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_min_member_row(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl);
    put(rb, str("2"), "metadata", "annotations", KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.min_member, 2);
    CU_ASSERT_STRING_EQUAL(w.min_member_source,
                           "binding annotation " KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, "3");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.min_member, 3);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, "4");
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.min_member, 4);

    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, "5");
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_STRING_EQUAL(w.message, "template annotation scheduling.muster.io/min-member: 5 is "
                                      "more than the workload's 4 replicas");
    CU_ASSERT_STRING_EQUAL(karmada_workload_condition_reason(w.reason), "Unschedulable");
    static const char *const bad[] = {"0", "-1", "2x", "", " 3", "+3", "99999999999", "3.0"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, bad[i]);
        CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
        CU_ASSERT_TRUE(fx_has(w.message, "is not a positive whole number"));
    }
    put(tmpl, num(3), "metadata", "annotations", KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(w.message, "template annotations scheduling.muster.io/min-member: "
                                      "must be a string");
    json_object_put(rb);
    json_object_put(tmpl);

    pair("vcjob", &rb, &tmpl);
    put(tmpl, num(7), "spec", "minAvailable", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(w.message, "the Volcano Job's spec.minAvailable 7 is more than its 6 "
                                      "replicas");
    /* Volcano's unset: its admission's default, the tasks' minAvailable added up (2 + 3) */
    put(tmpl, num(0), "spec", "minAvailable", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.min_member, 5);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "the tasks' minAvailable");
    put(tmpl, num(-1), "spec", "minAvailable", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    put(tmpl, num(4), "spec", "minAvailable", NULL);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION,
                         "6"); /* the annotation first */
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.min_member, 6);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* Issue 20's group-size: whole groups of a divisible workload; a count that is not, replicas
 * that are not whole groups, and a kind of several pod templates are refused. */
static void test_group_size_row(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl); /* 4 replicas */
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.group_size, 1);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "2");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.group_size, 2);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "4");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.group_size, 4);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "3");
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "4 replicas are not a whole number of groups of 3"));
    static const char *const bad[] = {"0", "-2", "two", ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, bad[i]);
        CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
        CU_ASSERT_TRUE(fx_has(w.message, "is not a positive whole number"));
    }
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_elastic_row(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl); /* 4 replicas */
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.elastic, 0);
    /* elastic without a minimum below the replicas: nothing to grow, a plain gang */
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_ELASTIC_ANNOTATION, "true");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.elastic, 0);
    put(tmpl, str("2"), "metadata", "annotations", KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.elastic, 1);
    CU_ASSERT_EQUAL(w.min_member, 2);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_ELASTIC_ANNOTATION, "false");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.elastic, 0);
    /* the template's first, then the binding's */
    put(tmpl, json_object_new_object(), "metadata", "annotations", NULL);
    put(tmpl, str("2"), "metadata", "annotations", KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, NULL);
    put(rb, str("true"), "metadata", "annotations", KARMADA_WORKLOAD_ELASTIC_ANNOTATION, NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.elastic, 1);
    static const char *const bad[] = {"yes", "True", "1", ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_ELASTIC_ANNOTATION, bad[i]);
        CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
        CU_ASSERT_TRUE(fx_has(w.message, "is neither \"true\" nor \"false\""));
        CU_ASSERT_EQUAL(w.elastic, 0);
    }
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_placement_row(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, "single-cluster");
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SINGLE_CLUSTER);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SINGLE_CLUSTER); /* the default */
    put(rb, str("spread"), "metadata", "annotations", KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.placement,
                    KARMADA_WORKLOAD_SPREAD); /* the binding's, when the template is silent */

    /* spread without Divided */
    put(rb, str("Duplicated"), "spec", "placement", "replicaScheduling", "replicaSchedulingType",
        NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_STRING_EQUAL(w.message, "placement spread needs spec.placement.replicaScheduling."
                                      "replicaSchedulingType Divided (it is Duplicated): set it "
                                      "in the PropagationPolicy or use single-cluster");
    CU_ASSERT_STRING_EQUAL(karmada_workload_condition_reason(w.reason), "Unschedulable");
    put(rb, NULL, "spec", "placement", "replicaScheduling", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_TRUE(fx_has(w.message, "(it is unset)"));
    put(rb, str("Sideways"), "spec", "placement", "replicaScheduling", "replicaSchedulingType",
        NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, "everywhere");
    put(rb, str("Divided"), "spec", "placement", "replicaScheduling", "replicaSchedulingType",
        NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_STRING_EQUAL(w.message, "template annotation scheduling.muster.io/placement: "
                                      "\"everywhere\" is neither single-cluster nor spread");
    json_object_put(rb);
    json_object_put(tmpl);

    /* A Volcano Job is never spread, even with Divided. */
    pair("vcjob", &rb, &tmpl);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, "spread");
    put(rb, str("Divided"), "spec", "placement", "replicaScheduling", "replicaSchedulingType",
        NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_VCJOB);
    CU_ASSERT_TRUE(fx_has(w.message, "placement spread is refused for a Volcano Job: Volcano "
                                     "wires its tasks together (master address, world size, "
                                     "ranks) from each cluster's copy alone"));
    json_object_put(rb);
    json_object_put(tmpl);

    /* A JobSet splits, unless a copy of it in each cluster would break what JobSet's
     * controller does with the whole (jobset.yaml: workers and a driver). */
    pair("jobset", &rb, &tmpl);
    with_tmpl_annotation(tmpl, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, "spread");
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SPREAD);
    static const struct {
        const char *key, *value, *says;
    } breaks[] = {
        {"coordinator", "{\"replicatedJob\":\"driver\",\"jobIndex\":0}",
         "placement spread is refused for this JobSet: its spec.coordinator names one pod of "
         "the whole JobSet, which each copy in a cluster would name again in itself"},
        {"successPolicy", "{\"operator\":\"All\",\"targetReplicatedJobs\":[\"driver\"]}",
         "its successPolicy counts only the Jobs of targetReplicatedJobs, not workers's: a "
         "copy in a cluster without their Jobs would expect none and complete at once"},
        {"successPolicy", "{\"operator\":\"Any\"}",
         "its successPolicy operator Any ends the JobSet at the first Job to succeed"},
    };
    json_object *jspec = json_object_object_get(tmpl, "spec");
    for (size_t i = 0; i < sizeof breaks / sizeof *breaks; i++) {
        json_object_object_add(jspec, breaks[i].key, json_tokener_parse(breaks[i].value));
        CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
        CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
        CU_ASSERT_TRUE(fx_has(w.message, breaks[i].says));
        if (!fx_has(w.message, breaks[i].says))
            fprintf(stderr, "\n%zu: %s\n", i, w.message);
        json_object_object_del(jspec, breaks[i].key);
    }
    /* targets naming every replicated job count every Job, as no targets do */
    json_object_object_add(jspec, "successPolicy",
                           json_tokener_parse("{\"operator\":\"All\",\"targetReplicatedJobs\":"
                                              "[\"driver\",\"workers\"]}"));
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SPREAD);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_priority_row(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("pod", &rb, &tmpl);
    put(rb, str("from-rb"), "spec", "replicaRequirements", "priorityClassName", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_CLASS);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "from-rb");
    put(tmpl, str("from-template"), "spec", "priorityClassName", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "from-template");
    put(rb, num(-5), "spec", "schedulePriority", "priority", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_RB);
    CU_ASSERT_EQUAL(w.priority, -5);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "");
    put(rb, NULL, "spec", "schedulePriority", "priority", NULL); /* omitempty: 0 */
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_RB);
    CU_ASSERT_EQUAL(w.priority, 0);
    put(rb, str("high"), "spec", "schedulePriority", "priority", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(w.message, "spec.schedulePriority.priority: must be a 32-bit integer");
    put(rb, num(3000000000LL), "spec", "schedulePriority", "priority", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    put(rb, NULL, "spec", "schedulePriority", NULL);
    put(tmpl, str("Bad_Class"), "spec", "priorityClassName", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(w.message, "the template's spec.priorityClassName: \"Bad_Class\" is "
                                      "not a PriorityClass name");
    json_object_put(rb);
    json_object_put(tmpl);

    /* A Deployment names it in its pod template. */
    pair("deployment", &rb, &tmpl);
    put(rb, NULL, "spec", "schedulePriority", NULL);
    put(tmpl, str("web-critical"), "spec", "template", "spec", "priorityClassName", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_CLASS);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "web-critical");
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* ---- refusals of malformed input ---- */

static void expect_invalid(json_object *rb, json_object *tmpl, int code, const char *msg)
{
    CU_ASSERT_EQUAL(rd(rb, tmpl), code);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_TRUE(fx_has(w.message, msg));
    /* nothing half-read survives a failure */
    CU_ASSERT_EQUAL(w.ncomponents, 0);
    CU_ASSERT_EQUAL(w.gang.len, 0);
    CU_ASSERT_PTR_NULL(w.affinity);
    CU_ASSERT_PTR_NULL(w.suspension);
}

static void test_bad_requests(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl);
    put(rb, str("lots"), "spec", "replicaRequirements", "resourceRequest", "cpu", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL,
                   "spec.replicaRequirements.resourceRequest.cpu: not a Kubernetes quantity");
    put(rb, str("-1"), "spec", "replicaRequirements", "resourceRequest", "cpu", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL,
                   "spec.replicaRequirements.resourceRequest.cpu: must not be negative");
    put(rb, str("9E"), "spec", "replicaRequirements", "resourceRequest", "cpu", NULL);
    expect_invalid(rb, tmpl, MUSTER_ERANGE,
                   "spec.replicaRequirements.resourceRequest.cpu: quantity too large");
    put(rb, str("2"), "spec", "replicaRequirements", "resourceRequest", "cpu", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);

    put(rb, num(-1), "spec", "replicas", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.replicas: -1 is negative");
    put(rb, str("4"), "spec", "replicas", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.replicas: must be a 32-bit integer");
    put(rb, num(3000000000LL), "spec", "replicas", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.replicas: must be a 32-bit integer");
    put(rb, json_object_new_double(4.0), "spec", "replicas", NULL); /* kube-openapi: 4.0 is 4 */
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.replicas, 4);
    put(rb, json_object_new_double(4.5), "spec", "replicas", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.replicas: must be a 32-bit integer");
    put(rb, NULL, "spec", "replicas", NULL); /* omitted: 0, an empty gang */
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.replicas, 0);
    CU_ASSERT_EQUAL(w.gang.len, 0);
    json_object_put(rb);
    json_object_put(tmpl);

    pair("vcjob", &rb, &tmpl);
    json_object *spec = NULL, *comps = NULL;
    json_object_object_get_ex(rb, "spec", &spec);
    json_object_object_get_ex(spec, "components", &comps);
    json_object *c1 = json_object_array_get_idx(comps, 1);
    put(c1, num(-2), "replicas", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.components[1].replicas: -2 is negative");
    put(c1, num(3), "replicas", NULL);
    put(c1, str("task-1"), "name", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.components[1].name: task-1 appears twice");
    put(c1, NULL, "name", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.components[1].name: must be a name");
    put(c1, str("task-3"), "name", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL,
                   "spec.components[1] is task-3 but the Volcano Job's task 1 is task-2; the "
                   "binding is stale");
    put(c1, str("task-2"), "name", NULL);
    put(c1, str("1Ki"), "replicaRequirements", "resourceRequest", "pods", NULL);
    put(c1, str("x"), "replicaRequirements", "resourceRequest", "memory", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL,
                   "spec.components[1].replicaRequirements.resourceRequest.memory");
    put(c1, str("256Mi"), "replicaRequirements", "resourceRequest", "memory", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    /* A task with fewer replicas than its minAvailable, and a task count the RB does not know. */
    json_object *tasks = NULL, *tspec = NULL;
    json_object_object_get_ex(tmpl, "spec", &tspec);
    json_object_object_get_ex(tspec, "tasks", &tasks);
    put(json_object_array_get_idx(tasks, 1), num(2), "replicas", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL,
                   "the Volcano Job's task task-2 has 2 replicas, fewer than its minAvailable 3");
    put(json_object_array_get_idx(tasks, 1), num(4), "replicas", NULL);
    json_object_array_add(tasks, parse("{\"name\":\"task-3\",\"replicas\":1}"));
    expect_invalid(rb, tmpl, MUSTER_EINVAL,
                   "spec.components has 2 entries but the Volcano Job has 3 tasks");
    json_object_array_del_idx(tasks, 2, 1);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    /* More components than muster holds. */
    for (int i = 2; i <= KARMADA_WORKLOAD_COMPONENTS_MAX; i++) {
        char name[16];
        snprintf(name, sizeof(name), "t%d", i);
        json_object *c = json_object_new_object();
        put(c, str(name), "name", NULL);
        put(c, num(1), "replicas", NULL);
        json_object_array_add(comps, c);
    }
    expect_invalid(rb, tmpl, MUSTER_ELIMIT, "spec.components: 33 entries, more than");
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_unknown_kind_and_identity(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl);
    json_object *sts = copy(rb);
    put(sts, str("DaemonSet"), "spec", "resource", "kind", NULL);
    CU_ASSERT_EQUAL(karmada_workload_kind_of(sts), KARMADA_WORKLOAD_KIND_NONE);
    CU_ASSERT_EQUAL(rd(sts, NULL), MUSTER_EINVAL); /* no template needed to say no */
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_UNSUPPORTED);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_NONE);
    CU_ASSERT_TRUE(fx_has(w.message, "apps/v1 DaemonSet is not a kind muster queues"));
    CU_ASSERT_PTR_NULL(karmada_workload_condition_reason(w.reason));
    put(sts, str("Job"), "spec", "resource", "kind", NULL); /* apps/v1 Job: no such kind */
    CU_ASSERT_EQUAL(rd(sts, NULL), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_UNSUPPORTED);
    put(sts, str("batch/v1beta1"), "spec", "resource", "apiVersion", NULL);
    CU_ASSERT_EQUAL(karmada_workload_kind_of(sts), KARMADA_WORKLOAD_KIND_NONE);
    json_object_put(sts);
    CU_ASSERT_EQUAL(karmada_workload_kind_of(NULL), KARMADA_WORKLOAD_KIND_NONE);

    expect_invalid(rb, NULL, MUSTER_EINVAL, "the resource template web is missing");
    json_object *other = copy(tmpl);
    put(other, str("api"), "metadata", "name", NULL);
    expect_invalid(rb, other, MUSTER_EINVAL,
                   "the resource template is not apps/v1 Deployment web named in spec.resource");
    put(other, str("web"), "metadata", "name", NULL);
    put(other, str("00000000-0000-4000-8000-000000000000"), "metadata", "uid", NULL);
    expect_invalid(rb, other, MUSTER_EINVAL, "namespace or uid differs");
    put(other, str("batch/v1"), "apiVersion", NULL);
    put(other, NULL, "metadata", "uid", NULL);
    expect_invalid(rb, other, MUSTER_EINVAL, "is not apps/v1 Deployment web");
    json_object_put(other);

    json_object *arr = json_object_new_array();
    expect_invalid(arr, tmpl, MUSTER_EINVAL, "the binding is not a JSON object");
    json_object_put(arr);
    json_object *bad = copy(rb);
    put(bad, str("work.karmada.io/v1alpha1"), "apiVersion", NULL);
    expect_invalid(bad, tmpl, MUSTER_EINVAL, "apiVersion: must be work.karmada.io/v1alpha2");
    put(bad, NULL, "apiVersion", NULL); /* list items come without apiVersion and kind */
    put(bad, NULL, "kind", NULL);
    CU_ASSERT_EQUAL(rd(bad, tmpl), 0);
    put(bad, str("Work"), "kind", NULL);
    expect_invalid(bad, tmpl, MUSTER_EINVAL, "kind: must be ResourceBinding");
    put(bad, str("ClusterResourceBinding"), "kind", NULL);
    CU_ASSERT_EQUAL(rd(bad, tmpl), 0);
    put(bad, NULL, "spec", "resource", "name", NULL);
    expect_invalid(bad, tmpl, MUSTER_EINVAL, "spec.resource: apiVersion, kind and name");
    put(bad, NULL, "spec", NULL);
    expect_invalid(bad, tmpl, MUSTER_EINVAL, "spec: missing or not an object");
    json_object_put(bad);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_overflow(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl);
    /* the RB's figures decide here, not the template's containers */
    put(json_object_array_get_idx(
            json_object_object_get(
                json_object_object_get(
                    json_object_object_get(json_object_object_get(tmpl, "spec"), "template"),
                    "spec"),
                "containers"),
            0),
        NULL, "resources", NULL);
    /* 1Pi of memory is 1.1e18 milli-units: ten replicas of it do not fit in int64. */
    put(rb, str("1Pi"), "spec", "replicaRequirements", "resourceRequest", "memory", NULL);
    put(rb, num(10), "spec", "replicas", NULL);
    expect_invalid(rb, tmpl, MUSTER_ERANGE,
                   "the gang's request for memory overflows: 10 replicas cannot be added up");
    put(rb, num(8), "spec", "replicas", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(res(&w.gang, "memory"), 8 * 1125899906842624LL * 1000);
    put(rb, num(INT32_MAX), "spec", "replicas", NULL);
    put(rb, str("4"), "spec", "replicaRequirements", "resourceRequest", "memory", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), (int64_t)INT32_MAX * 2000);
    json_object_put(rb);
    json_object_put(tmpl);

    /* Across components: each fits, the sum does not; and the replica count itself. */
    pair("vcjob", &rb, &tmpl);
    json_object *spec = NULL, *comps = NULL, *tasks = NULL, *tspec = NULL;
    json_object_object_get_ex(rb, "spec", &spec);
    json_object_object_get_ex(spec, "components", &comps);
    json_object_object_get_ex(tmpl, "spec", &tspec);
    json_object_object_get_ex(tspec, "tasks", &tasks);
    for (int i = 0; i < 2; i++) {
        json_object *c = json_object_array_get_idx(comps, i);
        put(c, str("5Pi"), "replicaRequirements", "resourceRequest", "memory", NULL);
        put(c, num(1), "replicas", NULL);
        put(json_object_array_get_idx(tasks, i), num(1), "replicas", NULL);
        put(json_object_array_get_idx(tasks, i), num(1), "minAvailable", NULL);
        json_object *ctrs = json_object_object_get(
            json_object_object_get(
                json_object_object_get(json_object_array_get_idx(tasks, i), "template"), "spec"),
            "containers");
        put(json_object_array_get_idx(ctrs, 0), NULL, "resources", NULL);
    }
    put(tmpl, num(1), "spec", "minAvailable", NULL);
    expect_invalid(rb, tmpl, MUSTER_ERANGE,
                   "the gang's request for memory overflows: 1 replicas "
                   "of task-2");
    for (int i = 0; i < 2; i++) {
        json_object *c = json_object_array_get_idx(comps, i);
        put(c, str("1"), "replicaRequirements", "resourceRequest", "memory", NULL);
        put(c, num(INT32_MAX - 1), "replicas", NULL);
        put(json_object_array_get_idx(tasks, i), NULL, "replicas", NULL);
    }
    expect_invalid(rb, tmpl, MUSTER_ERANGE, "the workload has more than 2147483647 replicas");

    /* Each component within the per-request limit, the gang over it. */
    for (int i = 0; i < 2; i++) {
        json_object *c = json_object_array_get_idx(comps, i);
        put(c, num(1), "replicas", NULL);
        json_object *req = json_object_new_object();
        for (int r = 0; r < 40; r++) {
            char name[48];
            snprintf(name, sizeof(name), "example.com/c%d-r%d", i, r);
            json_object_object_add(req, name, str("1"));
        }
        put(c, req, "replicaRequirements", "resourceRequest", NULL);
    }
    expect_invalid(rb, tmpl, MUSTER_ELIMIT, "the workload requests more than 64 distinct");
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* ---- allowed clusters ---- */

static json_object *cluster(const char *name, const char *labels, const char *taints)
{
    char buf[1024];
    snprintf(buf, sizeof(buf),
             "{\"metadata\":{\"name\":\"%s\",\"labels\":%s},"
             "\"spec\":{\"taints\":%s}}",
             name, labels, taints);
    return parse(buf);
}

static int allows(const char *labels, const char *taints)
{
    json_object *c = cluster("c", labels, taints);
    int ok = karmada_workload_allows_cluster(&w, c);
    json_object_put(c);
    return ok;
}

static void set_placement(json_object *rb, const char *placement)
{
    put(rb, parse(placement), "spec", "placement", NULL);
}

static void test_label_selector(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("pod", &rb, &tmpl);
    set_placement(rb, "{\"clusterAffinity\":{\"labelSelector\":{\"matchExpressions\":["
                      "{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"gold\",\"silver\"]},"
                      "{\"key\":\"env\",\"operator\":\"NotIn\",\"values\":[\"dev\"]},"
                      "{\"key\":\"gpu\",\"operator\":\"Exists\"},"
                      "{\"key\":\"cordoned\",\"operator\":\"DoesNotExist\",\"values\":[]}]}}}");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_TRUE(allows("{\"tier\":\"gold\",\"gpu\":\"\"}", "[]"));
    CU_ASSERT_TRUE(allows("{\"tier\":\"silver\",\"gpu\":\"a100\",\"env\":\"prod\"}", "[]"));
    CU_ASSERT_FALSE(allows("{\"tier\":\"bronze\",\"gpu\":\"a100\"}", "[]")); /* In */
    CU_ASSERT_FALSE(allows("{\"gpu\":\"a100\"}", "[]"));                     /* In, absent */
    CU_ASSERT_FALSE(allows("{\"tier\":\"gold\",\"gpu\":\"1\",\"env\":\"dev\"}", "[]")); /* NotIn */
    CU_ASSERT_FALSE(allows("{\"tier\":\"gold\"}", "[]"));                               /* Exists */
    CU_ASSERT_FALSE(allows("{\"tier\":\"gold\",\"gpu\":\"1\",\"cordoned\":\"\"}", "[]"));

    /* clusterAffinities: any group will do (Karmada falls back group by group). */
    set_placement(rb, "{\"clusterAffinities\":["
                      "{\"affinityName\":\"primary\",\"clusterNames\":[\"a\"]},"
                      "{\"affinityName\":\"backup\",\"labelSelector\":{\"matchLabels\":"
                      "{\"tier\":\"backup\"}}}]}");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    json_object *a = cluster("a", "{}", "[]"), *b = cluster("b", "{\"tier\":\"backup\"}", "[]");
    json_object *z = cluster("z", "{}", "[]");
    char why[256];
    CU_ASSERT_TRUE(karmada_workload_allows_cluster(&w, a));
    CU_ASSERT_TRUE(karmada_workload_allows_cluster(&w, b));
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, z, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "z: matches none of spec.placement.clusterAffinities");
    json_object_put(a);
    json_object_put(b);
    json_object_put(z);

    /* No placement at all: every well-formed, untainted cluster. */
    put(rb, NULL, "spec", "placement", NULL);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_TRUE(allows("{}", "[]"));
    CU_ASSERT_FALSE(allows("{}", "[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]"));

    /* Malformed clusters are never allowed. */
    CU_ASSERT_FALSE(karmada_workload_allows_cluster(&w, NULL));
    json_object *c = parse("{\"metadata\":{}}");
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, c, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "a cluster without metadata.name");
    json_object_put(c);
    CU_ASSERT_FALSE(allows("[\"x\"]", "[]"));
    CU_ASSERT_FALSE(allows("{}", "{\"key\":\"k\"}"));
    CU_ASSERT_FALSE(allows("{}", "[{\"effect\":\"NoSchedule\"}]"));
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_taints_and_tolerations(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("pod", &rb, &tmpl);
    set_placement(rb, "{\"clusterTolerations\":["
                      "{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"ml\","
                      "\"effect\":\"NoSchedule\"},"
                      "{\"key\":\"flaky\",\"operator\":\"Exists\"},"
                      "{\"key\":\"plain\",\"value\":\"v\"}]}");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_TRUE(allows("{}", "[{\"key\":\"dedicated\",\"value\":\"ml\","
                                "\"effect\":\"NoSchedule\"}]"));
    CU_ASSERT_FALSE(allows("{}", "[{\"key\":\"dedicated\",\"value\":\"web\","
                                 "\"effect\":\"NoSchedule\"}]")); /* value differs */
    CU_ASSERT_FALSE(allows("{}", "[{\"key\":\"dedicated\",\"value\":\"ml\","
                                 "\"effect\":\"NoExecute\"}]")); /* effect differs */
    CU_ASSERT_TRUE(allows("{}", "[{\"key\":\"flaky\",\"value\":\"x\",\"effect\":\"NoExecute\"},"
                                "{\"key\":\"flaky\",\"effect\":\"NoSchedule\"}]"));
    CU_ASSERT_TRUE(allows("{}", "[{\"key\":\"plain\",\"value\":\"v\",\"effect\":\"NoExecute\"}]"));
    CU_ASSERT_FALSE(allows("{}", "[{\"key\":\"plain\",\"effect\":\"NoExecute\"}]"));
    CU_ASSERT_TRUE(allows("{}", "[{\"key\":\"other\",\"effect\":\"PreferNoSchedule\"}]"));
    CU_ASSERT_FALSE(allows("{}", "[{\"key\":\"other\",\"effect\":\"NoSchedule\"}]"));

    /* An empty key with Exists tolerates everything. */
    set_placement(rb, "{\"clusterTolerations\":[{\"operator\":\"Exists\"}]}");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_TRUE(allows("{}", "[{\"key\":\"a\",\"effect\":\"NoSchedule\"},"
                                "{\"key\":\"b\",\"value\":\"c\",\"effect\":\"NoExecute\"}]"));
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* When a NoExecute taint stops being tolerated (karmada_workload_noexecute), as Karmada's
 * taint manager judges it: no matching toleration, a timed one from timeAdded, a forever one. */
static int64_t noexec(const char *taints, int *found, char *taint, size_t cap)
{
    json_object *c = cluster("c", "{}", taints);
    int64_t until = -1;
    *found = karmada_workload_noexecute(&w, c, &until, taint, cap);
    json_object_put(c);
    return until;
}

static void test_noexecute_deadline(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("pod", &rb, &tmpl);
    set_placement(rb, "{\"clusterTolerations\":["
                      "{\"key\":\"timed\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                      "\"tolerationSeconds\":30},"
                      "{\"key\":\"timed\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                      "\"tolerationSeconds\":60},"
                      "{\"key\":\"forever\",\"operator\":\"Exists\"}]}");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    int found;
    char t[96];
    /* not tolerated at all: lost from the start */
    CU_ASSERT_EQUAL(noexec("[{\"key\":\"other\",\"value\":\"x\",\"effect\":\"NoExecute\"}]", &found,
                           t, sizeof t),
                    0);
    CU_ASSERT_TRUE(found);
    CU_ASSERT_STRING_EQUAL(t, "other=x:NoExecute");
    /* the least tolerationSeconds, from timeAdded (2026-11-26T21:00:00Z) */
    int64_t added = INT64_C(1795726800000);
    CU_ASSERT_EQUAL(noexec("[{\"key\":\"timed\",\"effect\":\"NoExecute\","
                           "\"timeAdded\":\"2026-11-26T21:00:00Z\"}]",
                           &found, t, sizeof t),
                    added + 30000);
    CU_ASSERT_TRUE(found);
    /* a timed toleration of a taint without timeAdded: Karmada skips it, tolerated for ever */
    noexec("[{\"key\":\"timed\",\"effect\":\"NoExecute\"}]", &found, t, sizeof t);
    CU_ASSERT_FALSE(found);
    /* tolerated for ever; NoSchedule taints are no NoExecute loss */
    noexec("[{\"key\":\"forever\",\"effect\":\"NoExecute\"},"
           "{\"key\":\"other\",\"effect\":\"NoSchedule\"}]",
           &found, t, sizeof t);
    CU_ASSERT_FALSE(found);
    /* without tolerations (NULL): every NoExecute taint counts */
    json_object *c = cluster("c", "{}", "[{\"key\":\"forever\",\"effect\":\"NoExecute\"}]");
    int64_t until = -1;
    CU_ASSERT_TRUE(karmada_workload_noexecute(NULL, c, &until, NULL, 0));
    CU_ASSERT_EQUAL(until, 0);
    json_object_put(c);

    /* the Ready condition and since when */
    c = parse("{\"metadata\":{\"name\":\"m2\"},\"status\":{\"conditions\":["
              "{\"type\":\"Ready\",\"status\":\"False\","
              "\"lastTransitionTime\":\"2026-11-26T21:00:05Z\"}]}}");
    CU_ASSERT_FALSE(karmada_workload_cluster_ready(c, &until));
    CU_ASSERT_EQUAL(until, added + 5000);
    json_object_put(c);
    c = parse("{\"metadata\":{\"name\":\"m2\"},\"status\":{\"conditions\":["
              "{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    CU_ASSERT_TRUE(karmada_workload_cluster_ready(c, &until));
    CU_ASSERT_EQUAL(until, 0);
    json_object_put(c);

    /* an eviction task names the cluster it evicts from */
    char why[128];
    c = parse("{\"spec\":{\"gracefulEvictionTasks\":[{\"fromCluster\":\"m2\","
              "\"reason\":\"TaintUntolerated\",\"producer\":\"TaintManager\"}]}}");
    CU_ASSERT_TRUE(karmada_workload_evicted_from(c, "m2", why, sizeof why));
    CU_ASSERT_STRING_EQUAL(why, "TaintUntolerated by TaintManager");
    CU_ASSERT_FALSE(karmada_workload_evicted_from(c, "m1", why, sizeof why));
    json_object_put(c);
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

static void test_bad_placement_refused(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("pod", &rb, &tmpl);
    static const struct {
        const char *placement, *msg;
    } cases[] = {
        {"{\"clusterAffinity\":{\"clusterNames\":\"a\"}}",
         "spec.placement.clusterAffinity.clusterNames: must be a list of strings"},
        {"{\"clusterAffinity\":{\"exclude\":[1]}}",
         "spec.placement.clusterAffinity.exclude[0]: must be a string"},
        {"{\"clusterAffinity\":{\"labelSelector\":{\"matchLabels\":{\"a\":1}}}}",
         "spec.placement.clusterAffinity.labelSelector.matchLabels.a: must be a string"},
        {"{\"clusterAffinity\":{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"a\","
         "\"operator\":\"Gt\",\"values\":[\"1\"]}]}}}",
         "matchExpressions[0].operator: must be In, NotIn, Exists or DoesNotExist"},
        {"{\"clusterAffinity\":{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"a\","
         "\"operator\":\"In\"}]}}}",
         "matchExpressions[0].values: must be a list of strings"},
        {"{\"clusterAffinity\":{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"a\","
         "\"operator\":\"NotIn\",\"values\":[]}]}}}",
         "matchExpressions[0].values: must not be empty for this operator"},
        {"{\"clusterAffinity\":{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"a\","
         "\"operator\":\"Exists\",\"values\":[\"x\"]}]}}}",
         "matchExpressions[0].values: must be empty for operator Exists"},
        {"{\"clusterAffinity\":{\"labelSelector\":{\"matchExpressions\":[{\"operator\":"
         "\"Exists\"}]}}}",
         "matchExpressions[0].key: must be a non-empty string"},
        {"{\"clusterAffinity\":{\"fieldSelector\":{\"matchExpressions\":[{\"key\":\"name\","
         "\"operator\":\"In\",\"values\":[\"x\"]}]}}}",
         "fieldSelector.matchExpressions[0].key: must be provider, region or zone"},
        {"{\"clusterAffinity\":{\"fieldSelector\":{\"matchExpressions\":[{\"key\":\"region\","
         "\"operator\":\"Exists\"}]}}}",
         "fieldSelector.matchExpressions[0].operator: must be In or NotIn"},
        {"{\"clusterAffinities\":[{\"clusterNames\":[\"a\"]},\"b\"]}",
         "spec.placement.clusterAffinities[1]: must be an object"},
        {"{\"clusterTolerations\":{}}", "spec.placement.clusterTolerations: must be a list"},
        {"{\"clusterTolerations\":[{\"key\":\"a\",\"operator\":\"Maybe\"}]}",
         "clusterTolerations[0].operator: must be Equal or Exists"},
        {"{\"clusterTolerations\":[{\"key\":\"a\",\"operator\":\"Exists\",\"value\":\"v\"}]}",
         "clusterTolerations[0].value: must be empty for operator Exists"},
        {"{\"clusterTolerations\":[{\"value\":\"v\"}]}",
         "clusterTolerations[0]: an empty key needs operator Exists"},
        {"{\"clusterTolerations\":[{\"key\":\"a\",\"effect\":\"Sometimes\"}]}",
         "clusterTolerations[0].effect: must be NoSchedule, PreferNoSchedule or NoExecute"},
        {"{\"clusterTolerations\":[{\"key\":7}]}", "clusterTolerations[0].key: must be a string"},
        {"[]", "spec.placement: must be an object"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set_placement(rb, cases[i].placement);
        expect_invalid(rb, tmpl, MUSTER_EINVAL, cases[i].msg);
    }
    json_object *big = json_object_new_array();
    for (int i = 0; i <= KARMADA_WORKLOAD_LIST_MAX; i++)
        json_object_array_add(big, str("c"));
    put(rb, big, "spec", "placement", "clusterAffinity", "clusterNames", NULL);
    expect_invalid(rb, tmpl, MUSTER_ELIMIT, "1025 entries, more than 1024");
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* The shared hub fixtures: objects/resourcebinding.json (a Volcano Job with components and a
 * GPU selector) against objects/cluster.json (member1, tainted for maintenance). */
static void test_shared_objects(void)
{
    begin();
    json_object *rb = fx_load_json("tests/fixtures/objects/resourcebinding.json");
    json_object *c = fx_load_json("tests/fixtures/objects/cluster.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    json_object *tmpl = parse("{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
                              "\"metadata\":{\"name\":\"train-llm\",\"namespace\":\"team-a\"},"
                              "\"spec\":{\"tasks\":[{\"name\":\"master\",\"replicas\":1},"
                              "{\"name\":\"worker\",\"replicas\":4}]}}");
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.replicas, 5);
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 500 + 4 * 8000);
    CU_ASSERT_EQUAL(res(&w.gang, "memory"), 1 * GI + 4 * 64 * GI);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 8000);
    CU_ASSERT_EQUAL(w.priority, 1000);
    CU_ASSERT_EQUAL(w.suspend_scheduling, 0);
    CU_ASSERT_EQUAL(w.suspend_dispatching, 1);
    CU_ASSERT_STRING_EQUAL(w.permanent_id, ""); /* that fixture has only the policy's id */
    char why[256];
    CU_ASSERT_FALSE(karmada_workload_explain_cluster(&w, c, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "member1: taint maintenance=planned:NoSchedule is not tolerated "
                                "by spec.placement.clusterTolerations");
    json_object_put(rb);
    json_object_put(c);
    json_object_put(tmpl);
    end();
}

static void test_links(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("job", &rb, &tmpl);
    put(rb, str(""), "spec", "schedulerName", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_STRING_EQUAL(w.scheduler_name, "default-scheduler");
    CU_ASSERT_FALSE(karmada_workload_assigns(&w, NULL));
    put(rb, num(5), "spec", "schedulerName", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.schedulerName: must be a string");
    put(rb, str("my scheduler"), "spec", "schedulerName", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.schedulerName: not a scheduler name");
    put(rb, str("muster"), "spec", "schedulerName", NULL);
    put(rb, str("-bad-"), "metadata", "labels", KARMADA_WORKLOAD_PERMANENT_ID_LABEL, NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "label resourcebinding.karmada.io/permanent-id");
    put(rb, NULL, "metadata", "labels", KARMADA_WORKLOAD_PERMANENT_ID_LABEL, NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_STRING_EQUAL(w.permanent_id, "");
    put(rb, str("yes"), "spec", "suspension", "scheduling", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.suspension.scheduling: must be true or false");
    put(rb, json_object_new_boolean(0), "spec", "suspension", "scheduling", NULL);
    put(rb, json_object_new_array(), "spec", "suspension", "dispatchingOnClusters", NULL);
    expect_invalid(rb, tmpl, MUSTER_EINVAL, "spec.suspension.dispatchingOnClusters");
    put(rb, NULL, "spec", "suspension", "dispatchingOnClusters", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.suspend_scheduling, 0);
    CU_ASSERT_EQUAL(w.suspend_dispatching, 0);
    /* The reference outlives the caller's copy of the RB. */
    json_object *susp = w.suspension;
    json_object_put(rb);
    CU_ASSERT_EQUAL(json_object_get_boolean(json_object_object_get(susp, "dispatching")), 0);
    json_object_put(tmpl);
    end();
}

/* ---- pruned objects read as the whole ones ---- */

static void same_vec(const struct queue_resvec *a, const struct queue_resvec *b)
{
    CU_ASSERT_EQUAL(a->len, b->len);
    for (uint32_t i = 0; i < a->len && i < b->len; i++) {
        CU_ASSERT_EQUAL(a->items[i].id, b->items[i].id);
        CU_ASSERT_EQUAL(a->items[i].milli, b->items[i].milli);
    }
}

/* Everything a read gives, compared field by field; what = the case, for the log. */
static void same_workload(const struct karmada_workload *a, const struct karmada_workload *b,
                          const char *what)
{
    int ok = a->reason == b->reason && strcmp(a->message, b->message) == 0 && a->kind == b->kind;
    if (!ok)
        fprintf(stderr, "\n%s: whole %d \"%s\", pruned %d \"%s\"\n", what, a->reason, a->message,
                b->reason, b->message);
    CU_ASSERT(ok);
    if (a->reason != KARMADA_WORKLOAD_OK || b->reason != KARMADA_WORKLOAD_OK)
        return;
    CU_ASSERT_STRING_EQUAL(a->queue, b->queue);
    CU_ASSERT_EQUAL(a->queue_explicit, b->queue_explicit);
    CU_ASSERT_PTR_EQUAL(a->queue_source, b->queue_source);
    CU_ASSERT_EQUAL(a->replicas, b->replicas);
    CU_ASSERT_EQUAL(a->min_member, b->min_member);
    CU_ASSERT_PTR_EQUAL(a->min_member_source, b->min_member_source);
    CU_ASSERT_EQUAL(a->placement, b->placement);
    CU_ASSERT_EQUAL(a->priority_from, b->priority_from);
    CU_ASSERT_EQUAL(a->priority, b->priority);
    CU_ASSERT_STRING_EQUAL(a->priority_class, b->priority_class);
    CU_ASSERT_EQUAL(a->ncomponents, b->ncomponents);
    for (uint32_t i = 0; i < a->ncomponents && i < b->ncomponents; i++) {
        CU_ASSERT_STRING_EQUAL(a->components[i].name, b->components[i].name);
        CU_ASSERT_EQUAL(a->components[i].replicas, b->components[i].replicas);
        same_vec(&a->components[i].request, &b->components[i].request);
    }
    same_vec(&a->gang, &b->gang);
    CU_ASSERT_STRING_EQUAL(a->scheduler_name, b->scheduler_name);
    CU_ASSERT_STRING_EQUAL(a->permanent_id, b->permanent_id);
    CU_ASSERT_EQUAL(a->dialect, b->dialect);
    CU_ASSERT_STRING_EQUAL(a->group_name, b->group_name);
    CU_ASSERT_EQUAL(a->group_total, b->group_total);
    CU_ASSERT_EQUAL(a->task_groups, b->task_groups);
    CU_ASSERT_EQUAL(a->task_group_min, b->task_group_min);
    CU_ASSERT_STRING_EQUAL(a->task_group, b->task_group);
    CU_ASSERT_EQUAL(a->gang_timeout_s, b->gang_timeout_s);
    CU_ASSERT_EQUAL(a->gang_soft, b->gang_soft);
    CU_ASSERT_EQUAL(a->suspend_scheduling, b->suspend_scheduling);
    CU_ASSERT_EQUAL(a->suspend_dispatching, b->suspend_dispatching);
    CU_ASSERT(json_object_equal(a->suspension, b->suspension));
    CU_ASSERT(json_object_equal(a->affinity, b->affinity));
    CU_ASSERT(json_object_equal(a->affinities, b->affinities));
    CU_ASSERT(json_object_equal(a->tolerations, b->tolerations));
}

/* Reads (rb, tmpl) whole and as the informers cache them, and compares; neither input changes
 * but for the binding's pruned fields. Takes both references. */
static void check_pruned(json_object *rb, json_object *tmpl, const char *what)
{
    static struct karmada_workload whole;
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&whole), 0);
    char *before = strdup(json_object_to_json_string(tmpl));
    int rc_whole = karmada_workload_read(&whole, names, rb, tmpl);
    json_object *rbc = copy(rb);
    json_object *prb = karmada_workload_prune_binding(rbc);
    json_object_put(rbc);
    json_object *ptmpl = karmada_workload_prune_template(tmpl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(prb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ptmpl);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string(tmpl), before);
    free(before);
    /* the template's original goes before the read, as it does from the informer's cache */
    json_object_put(tmpl);
    int rc_pruned = rd(prb, ptmpl);
    CU_ASSERT_EQUAL(rc_whole, rc_pruned);
    same_workload(&whole, &w, what);
    json_object *v;
    CU_ASSERT_EQUAL(karmada_webhook_rb_verdict(rb), karmada_webhook_rb_verdict(prb));
    CU_ASSERT(!json_object_object_get_ex(jfind(prb, "metadata"), "managedFields", &v));
    CU_ASSERT(!json_object_object_get_ex(jfind(prb, "metadata"), "ownerReferences", &v));
    karmada_workload_close(&whole);
    karmada_workload_close(&w);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&w), 0);
    json_object_put(prb);
    json_object_put(ptmpl);
    json_object_put(rb);
}

/* A copy of fixture pair kind's template with val put at the path (NULL-terminated keys). */
#define VARIANT(kind, val, ...)                                                                    \
    do {                                                                                           \
        json_object *rb_, *t_;                                                                     \
        pair(kind, &rb_, &t_);                                                                     \
        put(t_, val, __VA_ARGS__, NULL);                                                           \
        check_pruned(rb_, t_, #__VA_ARGS__);                                                       \
    } while (0)

static void test_pruned_reads_equal(void)
{
    begin();
    static const char *const kinds[] = {"deployment",  "job",          "pod",       "vcjob",
                                        "statefulset", "yunikorn-job", "kueue-pod", "cosched"};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        json_object *rb, *tmpl;
        pair(kinds[k], &rb, &tmpl);
        /* what a real hub adds, none of which is read */
        put(tmpl, parse("[{\"manager\":\"kubectl\",\"fieldsV1\":{\"f:spec\":{}}}]"), "metadata",
            "managedFields", NULL);
        put(tmpl, str("{\"big\":\"json\"}"), "metadata", "annotations",
            "kubectl.kubernetes.io/last-applied-configuration", NULL);
        put(tmpl, parse("{\"replicas\":3,\"conditions\":[{\"type\":\"Available\"}]}"), "status",
            NULL);
        put(rb, parse("[{\"manager\":\"karmada\",\"fieldsV1\":{}}]"), "metadata", "managedFields",
            NULL);
        put(rb, parse("[{\"kind\":\"Deployment\",\"name\":\"x\",\"uid\":\"u\"}]"), "metadata",
            "ownerReferences", NULL);
        check_pruned(rb, tmpl, kinds[k]);
    }
    /* every key the read looks for, on the template, as a string and as something else */
    static const char *const keys[] = {"scheduling.volcano.sh/queue-name",
                                       "volcano.sh/queue-name",
                                       "kueue.x-k8s.io/queue-name",
                                       "yunikorn.apache.org/queue",
                                       KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION,
                                       KARMADA_WORKLOAD_PLACEMENT_ANNOTATION,
                                       KARMADA_WORKLOAD_ELASTIC_ANNOTATION};
    for (size_t k = 0; k < 4; k++)
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
            VARIANT(kinds[k], str("2"), "metadata", "labels", keys[i]);
            VARIANT(kinds[k], str("single-cluster"), "metadata", "annotations", keys[i]);
            VARIANT(kinds[k], str("q-1"), "metadata", "annotations", keys[i]);
            VARIANT(kinds[k], num(3), "metadata", "annotations", keys[i]);
        }
    /* the same keys on the binding, and Karmada's own labels and annotations beside them */
    for (size_t k = 0; k < 4; k++)
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
            json_object *rb, *tmpl;
            pair(kinds[k], &rb, &tmpl);
            put(rb, str("q-2"), "metadata", "labels", keys[i], NULL);
            put(rb, str("x"), "metadata", "labels", "app", NULL);
            put(rb, str("to-muster"), "metadata", "annotations",
                "propagationpolicy.karmada.io/name", NULL);
            put(rb, str("{\"clusterAffinity\":{}}"), "metadata", "annotations",
                "policy.karmada.io/applied-placement", NULL);
            put(rb, str("1"), "metadata", "annotations", keys[i], NULL);
            check_pruned(rb, tmpl, "binding labels and annotations");
            pair(kinds[k], &rb, &tmpl);
            put(rb, num(4), "metadata", "annotations", keys[i], NULL);
            check_pruned(rb, tmpl, "binding annotation of the wrong type");
        }
    {
        json_object *rb, *tmpl;
        pair("deployment", &rb, &tmpl);
        put(rb, str("not a label value!"), "metadata", "labels",
            KARMADA_WORKLOAD_PERMANENT_ID_LABEL, NULL);
        check_pruned(rb, tmpl, "bad permanent id");
        pair("deployment", &rb, &tmpl);
        put(rb, NULL, "metadata", "labels", KARMADA_WORKLOAD_PERMANENT_ID_LABEL, NULL);
        check_pruned(rb, tmpl, "no permanent id");
    }
    {
        json_object *rb, *tmpl; /* the skip label, on a binding with nothing else */
        pair("job", &rb, &tmpl);
        put(rb, str("true"), "metadata", "labels", KARMADA_WEBHOOK_SKIP_LABEL, NULL);
        CU_ASSERT_EQUAL(karmada_webhook_rb_verdict(rb), KARMADA_WEBHOOK_SKIP_LABEL_SET);
        check_pruned(rb, tmpl, "skip label");
    }
    /* priority classes where each kind names them, well formed or not */
    VARIANT("deployment", str("high"), "spec", "template", "spec", "priorityClassName");
    VARIANT("job", str("Not_A_Name"), "spec", "template", "spec", "priorityClassName");
    VARIANT("job", num(7), "spec", "template", "spec", "priorityClassName");
    VARIANT("pod", str("high"), "spec", "priorityClassName");
    VARIANT("vcjob", NULL, "spec", "priorityClassName");
    VARIANT("vcjob", num(1), "spec", "priorityClassName");
    /* the Volcano Job's own fields */
    VARIANT("vcjob", num(0), "spec", "minAvailable");
    VARIANT("vcjob", num(99), "spec", "minAvailable");
    VARIANT("vcjob", str("x"), "spec", "minAvailable");
    VARIANT("vcjob", NULL, "spec", "queue");
    VARIANT("vcjob", str(""), "spec", "queue");
    VARIANT("vcjob", num(1), "spec", "queue");
    VARIANT("vcjob", parse("[]"), "spec", "tasks");
    VARIANT("vcjob", parse("{}"), "spec", "tasks");
    VARIANT("vcjob",
            parse("[{\"name\":\"task-1\",\"replicas\":9,\"template\":{}},"
                  "{\"name\":\"task-2\",\"replicas\":1}]"),
            "spec", "tasks");
    VARIANT("vcjob", parse("[{\"name\":\"task-1\",\"replicas\":\"2\"},{\"replicas\":4}]"), "spec",
            "tasks");
    VARIANT("vcjob", parse("[7,null]"), "spec", "tasks");
    /* identity */
    VARIANT("deployment", str("other"), "metadata", "name");
    VARIANT("deployment", str("other-ns"), "metadata", "namespace");
    VARIANT("deployment", str("other-uid"), "metadata", "uid");
    VARIANT("deployment", str("apps/v2"), "apiVersion");
    VARIANT("deployment", str("StatefulSet"), "kind");
    VARIANT("pod", parse("[]"), "spec");
    {
        json_object *rb, *tmpl; /* JSON null where an object is read */
        pair("job", &rb, &tmpl);
        json_object_object_add(jfind(tmpl, "spec"), "template", NULL);
        check_pruned(rb, tmpl, "job: null spec.template");
        pair("vcjob", &rb, &tmpl);
        json_object_object_add(jfind(tmpl, "spec"), "tasks", NULL);
        check_pruned(rb, tmpl, "vcjob: null spec.tasks");
        pair("pod", &rb, &tmpl);
        json_object_object_add(jfind(tmpl, "metadata"), "annotations", NULL);
        check_pruned(rb, tmpl, "pod: null annotations");
    }
    VARIANT("deployment", str("x"), "metadata", "labels");
    end();
}

/* The template as cached holds no pod spec beyond the containers' resources (read for the
 * effective requests) and the scheduler named (karmada_gang_policy_redundant), no status or
 * foreign metadata, and shares nothing it would not need. */
static void test_pruned_template_is_small(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("vcjob", &rb, &tmpl);
    json_object *p = karmada_workload_prune_template(tmpl);
    CU_ASSERT_STRING_EQUAL(
        json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
        "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":"
        "\"test-job\",\"namespace\":\"research\",\"uid\":\"2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e\","
        "\"resourceVersion\":\"12001\",\"labels\":{\"volcano.sh/queue-name\":"
        "\"ignored-by-spec-queue\"}},\"spec\":{\"priorityClassName\":\"research-high\","
        "\"schedulerName\":\"volcano\",\"minAvailable\":5,\"queue\":\"research\",\"tasks\":[{\"name\":\"task-1\",\"replicas\":2,"
        "\"minAvailable\":2,\"template\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{"
        "\"cpu\":\"100m\","
        "\"memory\":\"128Mi\"}}}]}}},{\"name\":\"task-2\",\"replicas\":4,\"minAvailable\":3,"
        "\"template\":{\"spec\":{"
        "\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"200m\",\"memory\":\"256Mi\"}}}]}}}"
        "]}}");
    json_object_put(p);
    json_object_put(tmpl);
    json_object_put(rb);
    pair("deployment", &rb, &tmpl);
    put(tmpl, parse("{\"labels\":{\"app\":\"web\"},\"annotations\":{\"a\":\"b\"}}"), "spec",
        "template", "metadata", NULL);
    p = karmada_workload_prune_template(tmpl);
    CU_ASSERT_STRING_EQUAL(
        json_object_to_json_string_ext(jfind(p, "spec"), JSON_C_TO_STRING_PLAIN),
        "{\"template\":{\"metadata\":{\"labels\":{},\"annotations\":{}},\"spec\":{\"containers\":[{"
        "\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":\"4Gi\"}}}]}}}");
    CU_ASSERT_STRING_EQUAL(
        json_object_to_json_string_ext(jfind(jfind(p, "metadata"), "annotations"),
                                       JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
        "{\"scheduling.muster.io/placement\":\"spread\"}");
    json_object_put(p);
    json_object_put(tmpl);
    json_object_put(rb);
    end();
}

/* ---- StatefulSet and the gang dialects (issue 19) ---- */

/* The pod template's metadata of a fixture template, for putting dialect keys on it. */
#define POD_ANN(t, key, val)                                                                       \
    put((t), (val), "spec", "template", "metadata", "annotations", (key), NULL)
#define POD_LABEL(t, key, val)                                                                     \
    put((t), (val), "spec", "template", "metadata", "labels", (key), NULL)

/* A copy of fixture pair name, changed by edit, read whole and pruned (check_pruned), and then
 * read again for the caller's asserts: returns the read's code. */
static int read_variant(const char *name, void (*edit)(json_object *rb, json_object *tmpl))
{
    json_object *rb, *tmpl;
    pair(name, &rb, &tmpl);
    if (edit)
        edit(rb, tmpl);
    check_pruned(copy(rb), copy(tmpl), name);
    int rc = rd(rb, tmpl);
    json_object_put(rb);
    json_object_put(tmpl);
    return rc;
}

static void sts_ordered(json_object *rb, json_object *t)
{
    (void)rb;
    put(t, NULL, "spec", "podManagementPolicy", NULL);
}

static void sts_ordered_one(json_object *rb, json_object *t)
{
    sts_ordered(rb, t);
    with_tmpl_annotation(t, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, "1");
}

static void sts_bad_policy(json_object *rb, json_object *t)
{
    (void)rb;
    put(t, str("Sometimes"), "spec", "podManagementPolicy", NULL);
}

static void sts_priority(json_object *rb, json_object *t)
{
    (void)rb;
    put(t, str("web-high"), "spec", "template", "spec", "priorityClassName", NULL);
    put(t, parse("[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]"),
        "spec", "template", "spec", "containers", NULL);
}

static void test_statefulset(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("statefulset", &rb, &tmpl);
    CU_ASSERT_EQUAL(karmada_workload_kind_of(rb), KARMADA_WORKLOAD_KIND_STATEFULSET);
    CU_ASSERT_EQUAL_FATAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_STATEFULSET);
    CU_ASSERT_STRING_EQUAL(karmada_workload_kind_name(w.kind), "StatefulSet");
    CU_ASSERT_EQUAL(w.replicas, 3);
    CU_ASSERT_EQUAL(w.min_member, 3);
    CU_ASSERT_EQUAL(w.ncomponents, 1);
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 1500);
    CU_ASSERT_EQUAL(res(&w.gang, "memory"), 3 * 256 * MI);
    CU_ASSERT_STRING_EQUAL(w.queue, "default");
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_NONE);
    /* the webhook holds it like the other kinds */
    put(rb, NULL, "spec", "suspension", NULL);
    CU_ASSERT_EQUAL(karmada_webhook_rb_verdict(rb), KARMADA_WEBHOOK_HELD);
    json_object_put(rb);
    json_object_put(tmpl);

    /* OrderedReady (the default) with a gang of 3: refused, saying what to change */
    CU_ASSERT_EQUAL(read_variant("statefulset", sts_ordered), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_TRUE(fx_has(w.message, "set spec.podManagementPolicy: Parallel"));
    CU_ASSERT_EQUAL(read_variant("statefulset", sts_ordered_one), 0);
    CU_ASSERT_EQUAL(w.min_member, 1);
    CU_ASSERT_EQUAL(read_variant("statefulset", sts_bad_policy), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_TRUE(fx_has(w.message, "podManagementPolicy: must be OrderedReady or Parallel"));
    /* the pod template's priority class and limits, as for a Deployment */
    CU_ASSERT_EQUAL(read_variant("statefulset", sts_priority), 0);
    CU_ASSERT_EQUAL(w.priority_from, KARMADA_WORKLOAD_PRIORITY_CLASS);
    CU_ASSERT_STRING_EQUAL(w.priority_class, "web-high");
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 3000);
    end();
}

static const char *yk_text;
static void yk_groups(json_object *rb, json_object *t)
{
    (void)rb;
    POD_ANN(t, KARMADA_WORKLOAD_YK_TASK_GROUPS, str(yk_text));
}
static void yk_policy_text(json_object *rb, json_object *t)
{
    (void)rb;
    POD_ANN(t, KARMADA_WORKLOAD_YK_POLICY, yk_text ? str(yk_text) : NULL);
}
static void yk_group_name(json_object *rb, json_object *t)
{
    (void)rb;
    POD_ANN(t, KARMADA_WORKLOAD_YK_TASK_GROUP_NAME, str(yk_text));
}
static void yk_muster_wins(json_object *rb, json_object *t)
{
    (void)rb;
    with_tmpl_annotation(t, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, "2");
}
static void yk_not_string(json_object *rb, json_object *t)
{
    (void)rb;
    POD_ANN(t, KARMADA_WORKLOAD_YK_TASK_GROUPS, num(4));
}

/* YuniKorn's own example (tests/fixtures/workloads/yunikorn-job.yaml), then each value wrong. */
static void test_yunikorn(void)
{
    begin();
    CU_ASSERT_EQUAL_FATAL(read_variant("yunikorn-job", NULL), 0);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_YUNIKORN);
    CU_ASSERT_EQUAL(w.replicas, 4);
    CU_ASSERT_EQUAL(w.min_member, 4);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "pod annotation yunikorn.apache.org/task-groups");
    CU_ASSERT_EQUAL(w.task_groups, 1);
    CU_ASSERT_EQUAL(w.task_group_min, 4);
    CU_ASSERT_STRING_EQUAL(w.task_group, "sched-style");
    CU_ASSERT_EQUAL(w.gang_timeout_s, 60);
    CU_ASSERT_EQUAL(w.gang_soft, 0);

    /* two groups: Σ minMember; 1 + 2 = 3 of 4 replicas */
    yk_text = "[{\"name\":\"driver\",\"minMember\":1,\"minResource\":{\"cpu\":\"1\"}},"
              "{\"name\":\"sched-style\",\"minMember\":2,\"minResource\":{\"cpu\":\"1\"},"
              "\"nodeSelector\":{},\"tolerations\":[]}]";
    CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_groups), 0);
    CU_ASSERT_EQUAL(w.min_member, 3);
    CU_ASSERT_EQUAL(w.task_groups, 2);

    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"[{\"name\":\"a\",\"minMember\":3,\"minResource\":{}},"
         "{\"name\":\"sched-style\",\"minMember\":2,\"minResource\":{}}]",
         "minMember add up to 5, more than the workload's 4 replicas"},
        {"[{\"name\":\"sched-style\",\"minMember\":0,\"minResource\":{}}]",
         "minMember must be a whole number above 0"},
        {"[{\"name\":\"sched-style\",\"minMember\":-1,\"minResource\":{}}]",
         "minMember must be a whole number above 0"},
        {"[{\"name\":\"sched-style\",\"minMember\":2}]", "minResource must be an object"},
        {"[{\"minMember\":2,\"minResource\":{}}]", "task-groups[0].name: must be a name"},
        {"[{\"name\":\"sched-style\",\"minMember\":1,\"minResource\":{}},"
         "{\"name\":\"sched-style\",\"minMember\":1,\"minResource\":{}}]",
         "task group sched-style appears twice"},
        {"{\"name\":\"x\"}", "not a JSON list of task groups"},
        {"[{\"name\":\"x\",", "not a JSON list of task groups"},
        {"[1]", "task-groups[0]: must be an object"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        yk_text = bad[i].text;
        CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_groups), MUSTER_EINVAL);
        CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
        CU_ASSERT_TRUE(fx_has(w.message, bad[i].msg));
    }
    CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_not_string), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "yunikorn.apache.org/task-groups: must be a string"));

    /* the scheduling policy: YuniKorn's default style is Soft; unknown keys ignored */
    yk_text = NULL;
    CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_policy_text), 0);
    CU_ASSERT_EQUAL(w.gang_soft, 1);
    CU_ASSERT_EQUAL(w.gang_timeout_s, 0);
    yk_text = "unknownPara=x  gangSchedulingStyle=Soft placeholderTimeoutInSeconds=30";
    CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_policy_text), 0);
    CU_ASSERT_EQUAL(w.gang_soft, 1);
    CU_ASSERT_EQUAL(w.gang_timeout_s, 30);
    static const struct {
        const char *text, *msg;
    } badp[] = {
        {"placeholderTimeoutInSeconds=oneSecond", "placeholderTimeoutInSeconds must be a whole"},
        {"placeholderTimeoutInSeconds=-5", "placeholderTimeoutInSeconds must be a whole"},
        {"gangSchedulingStyle=abc", "gangSchedulingStyle must be Hard or Soft"},
        {"placeholderTimeoutInSeconds=50=25", "is not key=value"},
        {"gangSchedulingStyle", "is not key=value"},
    };
    for (size_t i = 0; i < sizeof(badp) / sizeof(badp[0]); i++) {
        yk_text = badp[i].text;
        CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_policy_text), MUSTER_EINVAL);
        CU_ASSERT_TRUE(fx_has(w.message, badp[i].msg));
    }
    /* the pod's task group must be one the list defines */
    yk_text = "other";
    CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_group_name), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "other is not one of the task groups"));
    yk_text = "Not a name";
    CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_group_name), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "is not a task group name"));
    /* muster's own annotation comes first; the task groups are still validated and recorded */
    CU_ASSERT_EQUAL(read_variant("yunikorn-job", yk_muster_wins), 0);
    CU_ASSERT_EQUAL(w.min_member, 2);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_YUNIKORN);
    CU_ASSERT_EQUAL(w.task_group_min, 4);
    end();
}

static void kq_total(json_object *rb, json_object *t)
{
    (void)rb;
    put(t, yk_text ? str(yk_text) : NULL, "metadata", "annotations",
        KARMADA_WORKLOAD_KUEUE_GROUP_TOTAL, NULL);
}
static void kq_name(json_object *rb, json_object *t)
{
    (void)rb;
    put(t, yk_text ? str(yk_text) : NULL, "metadata", "labels", KARMADA_WORKLOAD_KUEUE_GROUP_NAME,
        NULL);
}

/* Kueue's plain-pod group example (tests/fixtures/workloads/kueue-pod.yaml). */
static void test_kueue(void)
{
    begin();
    CU_ASSERT_EQUAL_FATAL(read_variant("kueue-pod", NULL), 0);
    CU_ASSERT_EQUAL(w.kind, KARMADA_WORKLOAD_KIND_POD);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_KUEUE);
    CU_ASSERT_STRING_EQUAL(w.group_name, "sample-group");
    CU_ASSERT_EQUAL(w.group_total, 2);
    /* a group of two Pods is two RBs: this one's gang is itself until issue 20 */
    CU_ASSERT_EQUAL(w.min_member, 1);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "replicas");
    CU_ASSERT_STRING_EQUAL(w.queue, "user-queue");
    CU_ASSERT_EQUAL(res(&w.gang, "cpu"), 3000);
    yk_text = "1";
    CU_ASSERT_EQUAL(read_variant("kueue-pod", kq_total), 0);
    CU_ASSERT_EQUAL(w.group_total, 1);
    CU_ASSERT_STRING_EQUAL(w.min_member_source,
                           "pod annotation kueue.x-k8s.io/pod-group-total-count");
    static const char *const bad[] = {"0", "two", "-1", "99999999999", ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        yk_text = bad[i];
        CU_ASSERT_EQUAL(read_variant("kueue-pod", kq_total), MUSTER_EINVAL);
        CU_ASSERT_TRUE(fx_has(w.message, "pod-group-total-count: \""));
    }
    yk_text = NULL;
    CU_ASSERT_EQUAL(read_variant("kueue-pod", kq_total), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "a Kueue pod group needs both"));
    CU_ASSERT_EQUAL(read_variant("kueue-pod", kq_name), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "a Kueue pod group needs both"));
    yk_text = "-bad-";
    CU_ASSERT_EQUAL(read_variant("kueue-pod", kq_name), MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(w.message, "is not a group name"));
    end();
}

static void cs_add_volcano(json_object *rb, json_object *t)
{
    (void)rb;
    POD_ANN(t, KARMADA_WORKLOAD_VOLCANO_GROUP, str("flyte-task-pg"));
}
static void cs_only_volcano(json_object *rb, json_object *t)
{
    cs_add_volcano(rb, t);
    POD_LABEL(t, KARMADA_WORKLOAD_COSCHED_GROUP, NULL);
}
static void cs_bad_name(json_object *rb, json_object *t)
{
    (void)rb;
    POD_LABEL(t, KARMADA_WORKLOAD_COSCHED_GROUP, str("bad name"));
}
static void cs_on_vcjob(json_object *rb, json_object *t)
{
    (void)rb;
    put(t, str("ignored"), "metadata", "labels", KARMADA_WORKLOAD_COSCHED_GROUP, NULL);
}

static void kq_sts(json_object *rb, json_object *t)
{
    (void)rb;
    POD_LABEL(t, KARMADA_WORKLOAD_KUEUE_GROUP_NAME, str("statefulset-web-3f2a1"));
    POD_ANN(t, KARMADA_WORKLOAD_KUEUE_GROUP_TOTAL, str(yk_text));
}

/* Kueue's StatefulSet webhook puts the pod group on the pod template, total = replicas
 * (kubernetes-sigs/kueue pkg/controller/jobs/statefulset/statefulset_webhook.go). */
static void test_kueue_statefulset(void)
{
    begin();
    yk_text = "3";
    CU_ASSERT_EQUAL(read_variant("statefulset", kq_sts), 0);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_KUEUE);
    CU_ASSERT_EQUAL(w.min_member, 3);
    CU_ASSERT_STRING_EQUAL(w.min_member_source,
                           "pod annotation kueue.x-k8s.io/pod-group-total-count");
    yk_text = "2";
    CU_ASSERT_EQUAL(read_variant("statefulset", kq_sts), 0);
    CU_ASSERT_EQUAL(w.min_member, 2);
    yk_text = "5"; /* more than this RB: recorded for issue 20, the gang is every replica */
    CU_ASSERT_EQUAL(read_variant("statefulset", kq_sts), 0);
    CU_ASSERT_EQUAL(w.group_total, 5);
    CU_ASSERT_EQUAL(w.min_member, 3);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "replicas");
    end();
}

/* PodGroups named from the pods: recorded and validated; the hub PodGroup is not read yet. */
static void test_named_groups(void)
{
    begin();
    CU_ASSERT_EQUAL_FATAL(read_variant("cosched", NULL), 0);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_COSCHEDULING);
    CU_ASSERT_STRING_EQUAL(w.group_name, "nginx");
    CU_ASSERT_EQUAL(w.min_member, 6);
    CU_ASSERT_STRING_EQUAL(w.min_member_source, "replicas");
    CU_ASSERT_EQUAL(read_variant("cosched", cs_add_volcano), 0);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_COSCHEDULING); /* first match */
    CU_ASSERT_EQUAL(read_variant("cosched", cs_only_volcano), 0);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_VOLCANO);
    CU_ASSERT_STRING_EQUAL(w.group_name, "flyte-task-pg");
    CU_ASSERT_EQUAL(read_variant("cosched", cs_bad_name), MUSTER_EINVAL);
    CU_ASSERT_TRUE(
        fx_has(w.message, "scheduling.x-k8s.io/pod-group: \"bad name\" is not a PodGroup"));
    /* a Volcano Job's own labels are no pod metadata: nothing read */
    CU_ASSERT_EQUAL(read_variant("vcjob", cs_on_vcjob), 0);
    CU_ASSERT_EQUAL(w.dialect, KARMADA_WORKLOAD_DIALECT_NONE);
    end();
}

/* Reads reuse what _init reserved: no allocation through muster's allocator per read, and a read
 * of a smaller workload leaves nothing of a bigger one behind. */
static void test_memory(void)
{
    muster_mem_reset();
    muster_mem_fail_after(0);
    struct karmada_workload f;
    CU_ASSERT_EQUAL(karmada_workload_init(&f), MUSTER_ENOMEM);
    karmada_workload_close(&f);
    muster_mem_reset();

    begin();
    json_object *vrb, *vtmpl, *prb, *ptmpl;
    pair("vcjob", &vrb, &vtmpl);
    pair("pod", &prb, &ptmpl);
    CU_ASSERT_EQUAL(rd(vrb, vtmpl), 0); /* interns the names once */
    CU_ASSERT_EQUAL(rd(prb, ptmpl), 0);
    struct muster_mem_stats before, after;
    muster_mem_stats(&before);
    for (int i = 0; i < 100; i++) {
        CU_ASSERT_EQUAL(rd(vrb, vtmpl), 0);
        CU_ASSERT_EQUAL(w.ncomponents, 2);
        CU_ASSERT_EQUAL(rd(prb, ptmpl), 0);
    }
    muster_mem_stats(&after);
    CU_ASSERT_EQUAL(after.allocs, before.allocs);
    CU_ASSERT_EQUAL(w.ncomponents, 1);
    CU_ASSERT_EQUAL(w.components[1].request.len, 0);
    CU_ASSERT_STRING_EQUAL(w.components[1].name, "");
    json_object_put(vrb);
    json_object_put(vtmpl);
    json_object_put(prb);
    json_object_put(ptmpl);
    end();
}

/* The template's containers as the member's API server defaults them: a missing request takes
 * the limit. GPUs written as limits alone must count, or the queue hands them out twice. */
static void test_limits_count_as_requests(void)
{
    begin();
    json_object *rb, *tmpl;
    pair("deployment", &rb, &tmpl); /* 4 replicas; RB and template: 2 cpu, 4Gi */
    json_object *pod = json_object_object_get(
        json_object_object_get(json_object_object_get(tmpl, "spec"), "template"), "spec");
    json_object *ctrs = json_object_object_get(pod, "containers");
    json_object *web = json_object_array_get_idx(ctrs, 0);
    put(web, str("2"), "resources", "limits", "nvidia.com/gpu", NULL);
    put(web, str("3"), "resources", "limits", "cpu", NULL); /* a listed request stands */
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "nvidia.com/gpu"), 2000);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "cpu"), 2000);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 8000);

    /* an explicit request of 0 stands too */
    put(web, str("0"), "resources", "requests", "nvidia.com/gpu", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), 0);
    put(web, NULL, "resources", "requests", "nvidia.com/gpu", NULL);

    /* a second container with limits only is added; the RB (from requests) said 2 cpu */
    json_object *side = parse("{\"name\":\"side\",\"image\":\"x\",\"resources\":{\"limits\":"
                              "{\"cpu\":\"500m\",\"memory\":\"1Gi\"}}}");
    json_object_array_add(ctrs, side);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "cpu"), 2500);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "memory"), 5LL * 1024 * 1024 * 1024 * 1000);

    /* an init container counts when it is larger than the containers together */
    put(pod,
        parse("[{\"name\":\"fetch\",\"image\":\"x\",\"resources\":{\"limits\":"
              "{\"nvidia.com/gpu\":\"4\",\"cpu\":\"1\"}}}]"),
        "initContainers", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "nvidia.com/gpu"), 4000);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "cpu"), 2500);
    check_pruned(copy(rb), copy(tmpl), "limits, containers, an init container"); /* as cached */

    /* the RB's figure wins where it is larger (it is what Karmada places with) */
    put(rb, str("8"), "spec", "replicaRequirements", "resourceRequest", "cpu", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "cpu"), 8000);

    /* a malformed quantity in the template is refused with its path */
    put(web, str("lots"), "resources", "limits", "nvidia.com/gpu", NULL);
    CU_ASSERT_NOT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(w.message, "containers[0].resources.limits"));
    json_object_put(rb);
    json_object_put(tmpl);

    /* a Volcano Job task: per component */
    pair("vcjob", &rb, &tmpl);
    json_object *tasks = json_object_object_get(json_object_object_get(tmpl, "spec"), "tasks");
    json_object *t2 = json_object_array_get_idx(
        json_object_object_get(
            json_object_object_get(
                json_object_object_get(json_object_array_get_idx(tasks, 1), "template"), "spec"),
            "containers"),
        0);
    put(t2, str("1"), "resources", "limits", "nvidia.com/gpu", NULL);
    CU_ASSERT_EQUAL(rd(rb, tmpl), 0);
    CU_ASSERT_EQUAL(res(&w.components[0].request, "nvidia.com/gpu"), 0);
    CU_ASSERT_EQUAL(res(&w.components[1].request, "nvidia.com/gpu"), 1000);
    CU_ASSERT_EQUAL(res(&w.gang, "nvidia.com/gpu"), (int64_t)w.components[1].replicas * 1000);
    check_pruned(copy(rb), copy(tmpl), "a Volcano Job task's limits");
    json_object_put(rb);
    json_object_put(tmpl);
    end();
}

/* A pruned PodGroup Work reads as the whole one does (Applied, the member PodGroup's phase, the
 * manifest's spec, the labels and annotations that name the binding) and lost only the rest. */
static void test_pruned_work(void)
{
    json_object *whole = fx_load_json("tests/fixtures/objects/work-podgroup.json");
    json_object *work = fx_load_json("tests/fixtures/objects/work-podgroup.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
    CU_ASSERT_PTR_NOT_NULL_FATAL(work);
    json_object *md = jfind(work, "metadata");
    json_object_object_add(md, "managedFields", json_object_new_array());
    json_object_object_add(md, "ownerReferences", json_object_new_array());
    /* a real Volcano PodGroup's status carries more than its phase */
    json_object *mst = kube_json_get(
        json_object_array_get_idx(kube_json_path(work, "status", "manifestStatuses", NULL), 0),
        "status");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mst);
    json_object_object_add(mst, "running", json_object_new_int(2));
    json_object_object_add(mst, "conditions",
                           json_tokener_parse("[{\"type\":\"Scheduled\",\"status\":\"True\","
                                              "\"transitionID\":\"x\"}]"));
    json_object *p = karmada_workload_prune_work(work);
    CU_ASSERT_PTR_EQUAL_FATAL(p, work); /* in place, a new reference */
    json_object_put(p);
    CU_ASSERT_EQUAL(karmada_gang_work_applied(work), karmada_gang_work_applied(whole));
    CU_ASSERT_EQUAL(karmada_gang_work_applied(work), 1);
    CU_ASSERT_STRING_EQUAL(karmada_gang_work_podgroup_phase(work), "Inqueue");
    json_object *m = kube_json_path(work, "spec", "workload", "manifests", NULL);
    json_object *mw = kube_json_path(whole, "spec", "workload", "manifests", NULL);
    CU_ASSERT_FATAL(json_object_array_length(m) == 1);
    json_object *m0 = json_object_array_get_idx(m, 0), *mw0 = json_object_array_get_idx(mw, 0);
    CU_ASSERT_TRUE(json_object_equal(kube_json_get(m0, "spec"), kube_json_get(mw0, "spec")));
    CU_ASSERT_STRING_EQUAL(kube_json_str(m0, "kind"), "PodGroup");
    CU_ASSERT_PTR_NULL(kube_json_get(m0, "metadata"));
    json_object *ms0 =
        json_object_array_get_idx(kube_json_path(work, "status", "manifestStatuses", NULL), 0);
    CU_ASSERT_PTR_NULL(kube_json_get(ms0, "identifier"));
    CU_ASSERT_PTR_NULL(kube_json_get(ms0, "health"));
    CU_ASSERT_STRING_EQUAL(
        json_object_to_json_string_ext(kube_json_get(ms0, "status"), JSON_C_TO_STRING_PLAIN),
        "{\"phase\":\"Inqueue\"}");
    /* the conditions keep which, whether and the sentence; not the reason or the time */
    json_object *c0 =
        json_object_array_get_idx(kube_json_path(work, "status", "conditions", NULL), 0);
    json_object *cw0 =
        json_object_array_get_idx(kube_json_path(whole, "status", "conditions", NULL), 0);
    CU_ASSERT_STRING_EQUAL(kube_json_str(c0, "type"), kube_json_str(cw0, "type"));
    CU_ASSERT_STRING_EQUAL(kube_json_str(c0, "status"), kube_json_str(cw0, "status"));
    CU_ASSERT_STRING_EQUAL(kube_json_str(c0, "message"), kube_json_str(cw0, "message"));
    CU_ASSERT_PTR_NULL(kube_json_get(c0, "reason"));
    CU_ASSERT_PTR_NULL(kube_json_get(c0, "lastTransitionTime"));
    CU_ASSERT_PTR_NULL(kube_json_get(md, "managedFields"));
    CU_ASSERT_PTR_NULL(kube_json_get(md, "ownerReferences"));
    CU_ASSERT_TRUE(json_object_equal(kube_json_get(md, "labels"),
                                     kube_json_get(jfind(whole, "metadata"), "labels")));
    CU_ASSERT_TRUE(json_object_equal(kube_json_get(md, "annotations"),
                                     kube_json_get(jfind(whole, "metadata"), "annotations")));
    CU_ASSERT_STRING_EQUAL(kube_json_str(md, "name"), "train-llm-podgroup-7d9f8c6b5");
    json_object_put(work);
    json_object_put(whole);
    /* a Workload API PodGroup has no phase: its conditions are what is read, and stay */
    json_object *wl = json_tokener_parse(
        "{\"status\":{\"manifestStatuses\":[{\"status\":{\"conditions\":[{\"type\":"
        "\"PodGroupScheduled\",\"status\":\"True\"}]}}]}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(wl);
    json_object_put(karmada_workload_prune_work(wl));
    CU_ASSERT_STRING_EQUAL(karmada_gang_work_podgroup_phase(wl), "Running");
    json_object_put(wl);
    /* not a Work's shape: left as it is */
    json_object *odd = json_tokener_parse("{\"spec\": 3, \"status\": [1]}");
    json_object *po = karmada_workload_prune_work(odd);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(po, JSON_C_TO_STRING_PLAIN),
                           "{\"spec\":3,\"status\":[1]}");
    json_object_put(po);
    json_object_put(odd);
}

static CU_TestInfo tests[] = {
    {"a pruned PodGroup Work reads as the whole one", test_pruned_work},
    {"fixtures validate against the reference CRDs", test_fixtures_validate},
    {"Deployment", test_deployment},
    {"batch/v1 Job", test_batch_job},
    {"Pod", test_pod},
    {"Volcano Job", test_volcano_job},
    {"Volcano Job without components (Karmada's default)", test_volcano_job_without_components},
    {"Karmada's Volcano Job component vectors", test_reference_vectors},
    {"a member's PodGroup support from apiEnablements", test_cluster_podgroups},
    {"queue row", test_queue_row},
    {"min-member row", test_min_member_row},
    {"elastic row", test_elastic_row},
    {"group-size row", test_group_size_row},
    {"placement row and refusals", test_placement_row},
    {"priority row", test_priority_row},
    {"bad requests and replicas", test_bad_requests},
    {"unknown kind and identity", test_unknown_kind_and_identity},
    {"overflow", test_overflow},
    {"label selector and affinity groups", test_label_selector},
    {"taints and tolerations", test_taints_and_tolerations},
    {"a lost member: NoExecute deadlines, Ready, eviction tasks", test_noexecute_deadline},
    {"malformed placement refused", test_bad_placement_refused},
    {"shared hub objects", test_shared_objects},
    {"scheduler name, permanent id, suspension", test_links},
    {"no allocation per read", test_memory},
    {"limits count where requests are missing", test_limits_count_as_requests},
    {"pruned templates and bindings read as the whole ones", test_pruned_reads_equal},
    {"StatefulSet", test_statefulset},
    {"YuniKorn task groups and scheduling policy", test_yunikorn},
    {"Kueue pod groups", test_kueue},
    {"Kueue pod groups on a StatefulSet", test_kueue_statefulset},
    {"coscheduling and Volcano PodGroups named by the pods", test_named_groups},
    {"a pruned template keeps only what is read", test_pruned_template_is_small},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/workload", tests)
