/* Tests for cluster-adapters/karmada/workload_groups.c: the group tree of each source read from
 * the upstream examples in tests/fixtures/workloads/ (JobSet's paralleljobs, LWS's
 * multi-template, Volcano's tf-example-gpu, the deployment fixture cut by group-size): shape,
 * min_count per level, pods and requests per leaf; the topology annotations; every refusal; a
 * Cluster's value per level. */
#include "cluster-adapters/karmada/workload_groups.h"
#include "cluster-adapters/karmada/workload_prune.h"

#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/kube/yaml.h"
#include "queue/errors.h"
#include "queue/mem.h"
#include "fixtures.h"
#include "testing.h"

#include <string.h>

static struct queue_resnames *names;
static struct karmada_workload w;
static struct karmada_group_tree t;
static struct karmada_groups_error err;
static json_object *rb, *tmpl;

/* Loads the fixture pair <name>-rb.json and <name>.yaml into rb and tmpl. */
static void load(const char *name)
{
    char rel[256], p[1024], e[256];
    names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&w), 0);
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s-rb.json", name);
    fx_path(p, sizeof(p), rel);
    rb = json_object_from_file(p);
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s.yaml", name);
    fx_path(p, sizeof(p), rel);
    json_object *docs = NULL;
    if (kube_yaml_read(p, &docs, e, sizeof(e)))
        fprintf(stderr, "\n%s\n", e);
    tmpl = json_object_get(json_object_array_get_idx(docs, 0));
    json_object_put(docs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmpl);
}

static void unload(void)
{
    karmada_group_tree_close(&t);
    karmada_workload_close(&w);
    queue_resnames_free(names);
    json_object_put(rb);
    json_object_put(tmpl);
    names = NULL;
    rb = tmpl = NULL;
}

/* Reads the workload, then its tree: the tree's return code. */
static int rd(void)
{
    int rc = karmada_workload_read(&w, names, rb, tmpl);
    if (rc)
        fprintf(stderr, "\nworkload read: %s\n", w.message);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    rc = karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl);
    if (rc && err.reason == KARMADA_WORKLOAD_OK)
        CU_FAIL("a failed read must set its reason");
    return rc;
}

static int64_t res(const struct queue_resvec *v, const char *name)
{
    uint32_t id;
    if (queue_resnames_find(names, name, strlen(name), &id))
        return 0;
    return queue_resvec_get(v, id);
}

static json_object *annotations(json_object *obj)
{
    json_object *meta = NULL, *a = NULL;
    json_object_object_get_ex(obj, "metadata", &meta);
    if (!json_object_object_get_ex(meta, "annotations", &a)) {
        a = json_object_new_object();
        json_object_object_add(meta, "annotations", a);
    }
    return a;
}

static void annotate(json_object *obj, const char *key, const char *val)
{
    if (val)
        json_object_object_add(annotations(obj), key, json_object_new_string(val));
    else
        json_object_object_del(annotations(obj), key);
}

/* The index of the group named name, -1 when none. */
static int find(const char *name)
{
    for (uint32_t i = 0; i < t.n; i++)
        if (strcmp(t.g[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* The tree's shape holds for every tree: parents before children, leaves with pods and a pod
 * vector counting "pods" 1, inner groups without, min_count within the children or pods, names
 * unique. */
static void check_shape(void)
{
    CU_ASSERT_FATAL(t.n > 0);
    CU_ASSERT_EQUAL(t.g[0].parent, -1);
    for (uint32_t i = 0; i < t.n; i++) {
        const struct karmada_group *g = &t.g[i];
        uint32_t children = 0;
        for (uint32_t j = i + 1; j < t.n; j++)
            children += t.g[j].parent == (int32_t)i;
        if (i > 0)
            CU_ASSERT(g->parent >= 0 && (uint32_t)g->parent < i);
        if (g->pods > 0) {
            CU_ASSERT_EQUAL(children, 0);
            CU_ASSERT(g->min_count <= g->pods);
            CU_ASSERT_EQUAL(res(&g->pod, "pods"), 1000);
            CU_ASSERT(g->indivisible);
        } else {
            CU_ASSERT(children > 0);
            CU_ASSERT(g->min_count >= 1 && g->min_count <= children);
            CU_ASSERT_EQUAL(g->pod.len, 0);
        }
        for (uint32_t j = 0; j < i; j++)
            CU_ASSERT(strcmp(g->name, t.g[j].name) != 0);
    }
}

/* ---- JobSet ---- */

static void test_jobset(void)
{
    load("jobset"); /* paralleljobs: workers (1 Job × 4 pods of 1 CPU), driver (1 × 1 of 500m) */
    CU_ASSERT_EQUAL(rd(), 0);
    check_shape();
    CU_ASSERT_EQUAL(t.n, 5);
    CU_ASSERT_STRING_EQUAL(t.g[0].name, "JobSet/paralleljobs");
    CU_ASSERT_EQUAL(t.g[0].min_count, 2);
    CU_ASSERT_EQUAL(t.g[0].source, KARMADA_GROUP_SOURCE_JOBSET);
    CU_ASSERT(t.g[0].indivisible); /* a JobSet is placed single-cluster (Karmada cannot divide) */
    int wk = find("workers"), w0 = find("workers-0"), d0 = find("driver-0");
    CU_ASSERT_FATAL(wk > 0 && w0 > 0 && d0 > 0);
    CU_ASSERT_EQUAL(t.g[wk].parent, 0);
    CU_ASSERT_FALSE(t.g[wk].indivisible); /* Jobs of a replicated job may part */
    CU_ASSERT_EQUAL(t.g[wk].min_count, 1);
    CU_ASSERT_EQUAL(t.g[w0].parent, wk);
    CU_ASSERT_EQUAL(t.g[w0].pods, 4);
    CU_ASSERT_EQUAL(t.g[w0].min_count, 4);
    CU_ASSERT_EQUAL(res(&t.g[w0].pod, "cpu"), 1000);
    CU_ASSERT_EQUAL(res(&t.g[w0].pod, "memory"), 1024 * MI);
    CU_ASSERT_EQUAL(t.g[d0].pods, 1);
    CU_ASSERT_EQUAL(res(&t.g[d0].pod, "cpu"), 500);

    /* 4 shards × 8 pods (issue 20's example): parallelism above completions is capped */
    json_object *rj0 = json_object_array_get_idx(
        json_object_object_get(json_object_object_get(tmpl, "spec"), "replicatedJobs"), 0);
    json_object *js = json_object_object_get(json_object_object_get(rj0, "template"), "spec");
    json_object_object_add(rj0, "replicas", json_object_new_int(4));
    json_object_object_add(js, "parallelism", json_object_new_int(10));
    json_object_object_add(js, "completions", json_object_new_int(8));
    CU_ASSERT_EQUAL(rd(), 0);
    check_shape();
    CU_ASSERT_EQUAL(t.n, 1 + 1 + 4 + 1 + 1);
    wk = find("workers");
    CU_ASSERT_EQUAL(t.g[wk].min_count, 4);
    for (int j = 0; j < 4; j++) {
        char nm[16];
        snprintf(nm, sizeof(nm), "workers-%d", j);
        int at = find(nm);
        CU_ASSERT_FATAL(at > 0);
        CU_ASSERT_EQUAL(t.g[at].pods, 8);
        CU_ASSERT_EQUAL(t.g[at].parent, wk);
        CU_ASSERT_EQUAL(t.g[at].source, KARMADA_GROUP_SOURCE_JOBSET);
    }
    CU_ASSERT_EQUAL(find("workers-4"), -1);

    /* a replicated job with no pods is no group */
    json_object_object_add(rj0, "replicas", json_object_new_int(0));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 3);
    CU_ASSERT_EQUAL(t.g[0].min_count, 1);
    CU_ASSERT_EQUAL(find("workers"), -1);

    /* past the cap: refused, not allocated */
    json_object_object_add(rj0, "replicas", json_object_new_int(2000));
    json_object_object_add(js, "parallelism", json_object_new_int(1));
    CU_ASSERT_EQUAL(rd(), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT(fx_has(err.message, "more than 1023 groups, muster's limit"));
    CU_ASSERT_EQUAL(t.n, 0);
    CU_ASSERT_PTR_NULL(t.g);

    /* a replicated job named like another's Job */
    json_object_object_add(rj0, "replicas", json_object_new_int(2));
    json_object *rj1 = json_object_array_get_idx(
        json_object_object_get(json_object_object_get(tmpl, "spec"), "replicatedJobs"), 1);
    json_object_object_add(rj1, "name", json_object_new_string("workers-1"));
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT(fx_has(err.message, "workers-1 has the name of a Job of replicated job workers"));
    /* ... and one whose Jobs stop before that index is fine */
    json_object_object_add(rj1, "name", json_object_new_string("workers-2"));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT(find("workers-2") > 0 && find("workers-2-0") > 0);

    /* a name no group can have */
    json_object_object_add(rj1, "name", json_object_new_string("Driver"));
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "\"Driver\" is not a DNS-1123 label"));
    json_object_object_add(rj1, "name", json_object_new_string("driver"));

    /* group-size on a JobSet, which has groups of its own (workload.c refuses it first for
     * two replicated jobs: the read here is the one before the annotation) */
    CU_ASSERT_EQUAL(rd(), 0);
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "1");
    CU_ASSERT_EQUAL(karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT(fx_has(err.message, "a JobSet is already made of groups"));
    unload();
}

/* ---- LeaderWorkerSet ---- */

static void test_lws(void)
{
    load("lws"); /* 3 groups of size 4, leader and workers asking 50m each */
    CU_ASSERT_EQUAL(rd(), 0);
    check_shape();
    CU_ASSERT_EQUAL(t.n, 4);
    CU_ASSERT_STRING_EQUAL(t.g[0].name, "LeaderWorkerSet/leaderworkerset-multi-template");
    CU_ASSERT_EQUAL(t.g[0].min_count, 3);
    for (int i = 1; i <= 3; i++) {
        CU_ASSERT_EQUAL(t.g[i].pods, 4);
        CU_ASSERT_EQUAL(t.g[i].min_count, 4);
        CU_ASSERT_EQUAL(t.g[i].source, KARMADA_GROUP_SOURCE_LWS);
        CU_ASSERT_EQUAL(res(&t.g[i].pod, "cpu"), 50);
    }
    CU_ASSERT(find("group-2") == 3);

    /* a leader asking more than a worker: each group an indivisible pair of leaves */
    json_object *lwt =
        json_object_object_get(json_object_object_get(tmpl, "spec"), "leaderWorkerTemplate");
    json_object *ctr = json_object_array_get_idx(
        json_object_object_get(
            json_object_object_get(json_object_object_get(lwt, "leaderTemplate"), "spec"),
            "containers"),
        0);
    json_object *req = json_object_object_get(json_object_object_get(ctr, "resources"), "requests");
    json_object_object_add(req, "cpu", json_object_new_string("2"));
    CU_ASSERT_EQUAL(rd(), 0);
    check_shape();
    CU_ASSERT_EQUAL(t.n, 1 + 3 * 3);
    int g1 = find("group-1"), l1 = find("group-1-leader"), w1 = find("group-1-workers");
    CU_ASSERT_FATAL(g1 > 0 && l1 > 0 && w1 > 0);
    CU_ASSERT(t.g[g1].indivisible);
    CU_ASSERT_EQUAL(t.g[g1].min_count, 2);
    CU_ASSERT_EQUAL(t.g[g1].pods, 0);
    CU_ASSERT_EQUAL(t.g[l1].parent, g1);
    CU_ASSERT_EQUAL(t.g[l1].pods, 1);
    CU_ASSERT_EQUAL(res(&t.g[l1].pod, "cpu"), 2000);
    CU_ASSERT_EQUAL(t.g[w1].pods, 3);
    CU_ASSERT_EQUAL(t.g[w1].min_count, 3);
    CU_ASSERT_EQUAL(res(&t.g[w1].pod, "cpu"), 50);

    /* size 1: the leader alone, one leaf */
    json_object_object_add(lwt, "size", json_object_new_int(1));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 4);
    CU_ASSERT_EQUAL(t.g[1].pods, 1);
    CU_ASSERT_EQUAL(res(&t.g[1].pod, "cpu"), 2000);

    /* group-level topology lands on each leader+workers group, not on its leaves */
    json_object_object_add(lwt, "size", json_object_new_int(4));
    annotate(tmpl, KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED, "zone");
    CU_ASSERT_EQUAL(rd(), 0);
    g1 = find("group-1");
    l1 = find("group-1-leader");
    CU_ASSERT_EQUAL(t.g[g1].ntopo, 1);
    CU_ASSERT_STRING_EQUAL(t.g[g1].topo[0].level, "zone");
    CU_ASSERT_EQUAL(t.g[l1].ntopo, 0);
    CU_ASSERT_EQUAL(t.g[0].ntopo, 0);

    /* no replicas: nothing to place, no tree */
    json_object_object_add(json_object_object_get(tmpl, "spec"), "replicas",
                           json_object_new_int(0));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 0);
    unload();
}

/* ---- Volcano Job ---- */

static json_object *task(int i)
{
    return json_object_array_get_idx(
        json_object_object_get(json_object_object_get(tmpl, "spec"), "tasks"), (size_t)i);
}

static void test_vcjob(void)
{
    load("vcjob-tasks"); /* ps: 1, worker: 3 (1 GPU each); job minAvailable 4 */
    CU_ASSERT_EQUAL(rd(), 0);
    check_shape();
    CU_ASSERT_EQUAL(t.n, 3);
    CU_ASSERT_STRING_EQUAL(t.g[0].name, "Volcano Job/tensorflow-benchmark-gpu");
    CU_ASSERT_EQUAL(t.g[0].min_count, 2); /* every task */
    CU_ASSERT(t.g[0].indivisible);
    int ps = find("ps"), wk = find("worker");
    CU_ASSERT_FATAL(ps > 0 && wk > 0);
    CU_ASSERT_EQUAL(t.g[ps].pods, 1);
    CU_ASSERT_EQUAL(t.g[ps].min_count, 1);
    CU_ASSERT_EQUAL(t.g[wk].pods, 3);
    CU_ASSERT_EQUAL(t.g[wk].min_count, 3);
    CU_ASSERT_EQUAL(res(&t.g[wk].pod, "nvidia.com/gpu"), 1000);
    CU_ASSERT_EQUAL(t.g[wk].source, KARMADA_GROUP_SOURCE_VCJOB_TASK);

    /* task minimums below the job's: raised in task order up to the job's minAvailable */
    json_object_object_add(task(1), "minAvailable", json_object_new_int(1));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.g[find("ps")].min_count, 1);
    CU_ASSERT_EQUAL(t.g[find("worker")].min_count, 3); /* 1 + 1 raised to 4 in all */
    json_object_object_add(json_object_object_get(tmpl, "spec"), "minAvailable",
                           json_object_new_int(3));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.g[find("worker")].min_count, 2);
    json_object_object_add(task(0), "minAvailable", json_object_new_int(0));
    json_object_object_add(json_object_object_get(tmpl, "spec"), "minAvailable",
                           json_object_new_int(1));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.g[find("ps")].min_count, 0); /* Volcano lets the ps wait */
    CU_ASSERT_EQUAL(t.g[find("worker")].min_count, 1);

    /* a task without replicas is no group */
    json_object_object_add(task(0), "replicas", json_object_new_int(0));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 2);
    CU_ASSERT_EQUAL(find("ps"), -1);
    CU_ASSERT_EQUAL(t.g[0].min_count, 1);
    json_object_object_add(task(0), "replicas", json_object_new_int(1));

    /* a task name Volcano's admission would refuse */
    json_object_object_add(task(0), "name", json_object_new_string("PS"));
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "spec.tasks[0].name \"PS\" is not a DNS-1123 label"));
    json_object_object_add(task(0), "name", json_object_new_string("ps"));

    /* a spread needs a gang that may leave one cluster; a Volcano Job may not */
    annotate(rb, KARMADA_GROUPS_SPREAD_PREFERRED, "zone:2");
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT(fx_has(err.message, "binding annotation scheduling.muster.io/spread-preferred"));
    CU_ASSERT(fx_has(err.message, "goes whole to one cluster"));
    unload();
}

/* ---- group-size ---- */

static void test_group_size(void)
{
    load("deployment"); /* 4 replicas of 2 CPU, 4Gi; spread, Divided */
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 0); /* no annotation: no groups */
    CU_ASSERT_PTR_NULL(t.g);

    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "2");
    CU_ASSERT_EQUAL(rd(), 0);
    check_shape();
    CU_ASSERT_EQUAL(t.n, 3);
    CU_ASSERT_STRING_EQUAL(t.g[0].name, "Deployment/web");
    CU_ASSERT_EQUAL(t.g[0].min_count, 2);
    CU_ASSERT_FALSE(t.g[0].indivisible); /* spread */
    CU_ASSERT_EQUAL(t.g[0].source, KARMADA_GROUP_SOURCE_GROUP_SIZE);
    CU_ASSERT_STRING_EQUAL(t.g[2].name, "group-1");
    CU_ASSERT_EQUAL(t.g[2].pods, 2);
    CU_ASSERT_EQUAL(t.g[2].min_count, 2);
    CU_ASSERT_EQUAL(res(&t.g[2].pod, "cpu"), 2000);
    CU_ASSERT_EQUAL(res(&t.g[2].pod, "memory"), 4096 * MI);

    /* min-member 3 of groups of 2: two groups hold it */
    annotate(tmpl, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, "3");
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "1");
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 5);
    CU_ASSERT_EQUAL(t.g[0].min_count, 3);
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "2");
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.g[0].min_count, 2);
    annotate(tmpl, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, "1");
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.g[0].min_count, 1);
    annotate(tmpl, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, NULL);

    /* single-cluster: the root goes whole */
    annotate(tmpl, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, "single-cluster");
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT(t.g[0].indivisible);
    annotate(tmpl, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, "spread");

    /* the binding's annotation when the template has none */
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, NULL);
    annotate(rb, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "4");
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 2);
    CU_ASSERT_EQUAL(t.g[1].pods, 4);

    /* the cap: 2,000 groups of one */
    annotate(rb, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "1");
    json_object_object_add(json_object_object_get(tmpl, "spec"), "replicas",
                           json_object_new_int(2000));
    json_object_object_add(json_object_object_get(rb, "spec"), "replicas",
                           json_object_new_int(2000));
    CU_ASSERT_EQUAL(rd(), MUSTER_ELIMIT);
    CU_ASSERT(fx_has(err.message, "more than 1023 groups, muster's limit"));
    CU_ASSERT_PTR_NULL(t.g);
    json_object_object_add(json_object_object_get(tmpl, "spec"), "replicas",
                           json_object_new_int(1023));
    json_object_object_add(json_object_object_get(rb, "spec"), "replicas",
                           json_object_new_int(1023));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, KARMADA_GROUPS_MAX);

    /* scaled to 0: nothing to place */
    json_object_object_add(json_object_object_get(rb, "spec"), "replicas", json_object_new_int(0));
    json_object_object_add(json_object_object_get(tmpl, "spec"), "replicas",
                           json_object_new_int(0));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 0);
    unload();
}

/* The group-size refusals the tree reader makes itself (a caller whose read is older than the
 * annotations it passes gets the same sentences as workload.c gives). */
static void test_group_size_refusals(void)
{
    load("deployment");
    CU_ASSERT_EQUAL(karmada_workload_read(&w, names, rb, tmpl), 0);
    static const char *const bad[] = {"0", "-2", "2x", "", "99999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, bad[i]);
        CU_ASSERT_EQUAL(karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl), MUSTER_EINVAL);
        CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_INVALID);
        CU_ASSERT(fx_has(err.message, "is not a positive whole number"));
    }
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "3");
    CU_ASSERT_EQUAL(karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "4 replicas are not a whole number of groups of 3"));
    json_object_object_add(annotations(tmpl), KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION,
                           json_object_new_int(2));
    CU_ASSERT_EQUAL(karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "template annotation scheduling.muster.io/group-size: must be a "
                                  "string"));
    CU_ASSERT_EQUAL(t.n, 0);
    unload();

    load("pytorchjob"); /* several pod templates that go whole: no groups, no group-size */
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 0);
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "1");
    CU_ASSERT_EQUAL(karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT(fx_has(err.message, "a PyTorchJob goes whole to one cluster"));
    unload();
}

/* ---- topology annotations ---- */

static void test_topology(void)
{
    load("deployment");
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "1");
    annotate(tmpl, KARMADA_GROUPS_TOPOLOGY_REQUIRED, "region");
    annotate(rb, KARMADA_GROUPS_TOPOLOGY_PREFERRED, "topology.kubernetes.io/zone");
    annotate(tmpl, KARMADA_GROUPS_SPREAD_REQUIRED, "muster.io/fabric:2");
    annotate(rb, KARMADA_GROUPS_SPREAD_PREFERRED, "zone:4");
    annotate(tmpl, KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED, "cluster");
    annotate(rb, KARMADA_GROUPS_GROUP_TOPOLOGY_PREFERRED, "zone");
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.n, 5);
    const struct karmada_group *r = &t.g[0];
    CU_ASSERT_EQUAL_FATAL(r->ntopo, 4);
    CU_ASSERT_STRING_EQUAL(r->topo[0].level, "region");
    CU_ASSERT_EQUAL(r->topo[0].mode, KARMADA_TOPO_PACK);
    CU_ASSERT_EQUAL(r->topo[0].required, 1);
    CU_ASSERT_STRING_EQUAL(r->topo[1].level, "topology.kubernetes.io/zone");
    CU_ASSERT_EQUAL(r->topo[1].required, 0);
    CU_ASSERT_STRING_EQUAL(r->topo[2].level, "muster.io/fabric");
    CU_ASSERT_EQUAL(r->topo[2].mode, KARMADA_TOPO_SPREAD);
    CU_ASSERT_EQUAL(r->topo[2].min_domains, 2);
    CU_ASSERT_EQUAL(r->topo[2].required, 1);
    CU_ASSERT_STRING_EQUAL(r->topo[3].level, "zone");
    CU_ASSERT_EQUAL(r->topo[3].min_domains, 4);
    CU_ASSERT_EQUAL(r->topo[3].required, 0);
    for (uint32_t i = 1; i < t.n; i++) {
        CU_ASSERT_EQUAL_FATAL(t.g[i].ntopo, 2);
        CU_ASSERT_STRING_EQUAL(t.g[i].topo[0].level, "cluster");
        CU_ASSERT_EQUAL(t.g[i].topo[0].required, 1);
        CU_ASSERT_EQUAL(t.g[i].topo[0].mode, KARMADA_TOPO_PACK);
        CU_ASSERT_STRING_EQUAL(t.g[i].topo[1].level, "zone");
        CU_ASSERT_EQUAL(t.g[i].topo[1].required, 0);
    }

    /* the template's wins over the binding's */
    annotate(rb, KARMADA_GROUPS_TOPOLOGY_REQUIRED, "zone");
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_STRING_EQUAL(t.g[0].topo[0].level, "region");

    /* more domains than groups */
    annotate(rb, KARMADA_GROUPS_SPREAD_PREFERRED, "zone:5");
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT(fx_has(err.message,
                     "a spread over 5 zones needs at least as many groups, and the gang "
                     "has 4"));
    annotate(rb, KARMADA_GROUPS_SPREAD_PREFERRED, NULL);

    /* packed into one region and spread over two: contradictory */
    annotate(tmpl, KARMADA_GROUPS_SPREAD_REQUIRED, "region:2");
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT(fx_has(err.message, "the gang in one region cannot spread over 2 regions"));
    annotate(tmpl, KARMADA_GROUPS_TOPOLOGY_REQUIRED, "cluster");
    annotate(tmpl, KARMADA_GROUPS_SPREAD_REQUIRED, "zone:2");
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "the gang in one cluster cannot spread over 2 zones"));
    annotate(tmpl, KARMADA_GROUPS_SPREAD_REQUIRED, NULL);

    /* malformed values, each named */
    static const struct {
        const char *key, *val, *says;
    } bad[] = {
        {KARMADA_GROUPS_TOPOLOGY_REQUIRED, "", "is not a topology level"},
        {KARMADA_GROUPS_TOPOLOGY_REQUIRED, "Region!", "is not a topology level"},
        {KARMADA_GROUPS_TOPOLOGY_PREFERRED, "zone:2", "is not a topology level"},
        {KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED, "-bad.example/x", "is not a topology level"},
        {KARMADA_GROUPS_GROUP_TOPOLOGY_PREFERRED,
         "a-very-long-prefix.example.com/and-a-rather-long-name-after-it-too", "at most 63"},
        {KARMADA_GROUPS_SPREAD_REQUIRED, "zone", "is not <level>:<count>"},
        {KARMADA_GROUPS_SPREAD_REQUIRED, "zone:", "is not <level>:<count>"},
        {KARMADA_GROUPS_SPREAD_REQUIRED, "zone:x2", "is not <level>:<count>"},
        {KARMADA_GROUPS_SPREAD_REQUIRED, "zone:-2", "is not <level>:<count>"},
        {KARMADA_GROUPS_SPREAD_PREFERRED, "zone:1", "the count must be at least 2"},
        {KARMADA_GROUPS_SPREAD_PREFERRED, ":2", "is not a topology level"},
        {KARMADA_GROUPS_SPREAD_PREFERRED, "a:b:2", "is not <level>:<count>"},
    };
    annotate(tmpl, KARMADA_GROUPS_TOPOLOGY_REQUIRED, NULL);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        annotate(tmpl, bad[i].key, bad[i].val);
        CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
        CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_INVALID);
        CU_ASSERT(fx_has(err.message, "template annotation"));
        CU_ASSERT(fx_has(err.message, bad[i].key));
        CU_ASSERT(fx_has(err.message, bad[i].says));
        CU_ASSERT_EQUAL(t.n, 0);
        annotate(tmpl, bad[i].key, NULL);
    }
    json_object_object_add(annotations(rb), KARMADA_GROUPS_SPREAD_REQUIRED, json_object_new_int(2));
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message,
                     "binding annotation scheduling.muster.io/spread-required: must be "
                     "a string"));
    annotate(rb, KARMADA_GROUPS_SPREAD_REQUIRED, NULL);

    /* topology without groups: nothing to place by it */
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, NULL);
    annotate(tmpl, KARMADA_GROUPS_TOPOLOGY_REQUIRED, "region");
    annotate(rb, KARMADA_GROUPS_TOPOLOGY_PREFERRED, NULL);
    annotate(rb, KARMADA_GROUPS_GROUP_TOPOLOGY_PREFERRED, NULL);
    annotate(tmpl, KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED, NULL);
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT(fx_has(err.message, "a Deployment has no groups to place; set "
                                  "scheduling.muster.io/group-size"));
    unload();

    /* a JobSet's groups: the level on its Jobs, not on the replicated jobs */
    load("jobset");
    annotate(tmpl, KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED, "muster.io/fabric");
    annotate(tmpl, KARMADA_GROUPS_TOPOLOGY_REQUIRED, "region");
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.g[0].ntopo, 1);
    CU_ASSERT_EQUAL(t.g[find("workers")].ntopo, 0);
    CU_ASSERT_EQUAL(t.g[find("workers-0")].ntopo, 1);
    CU_ASSERT_STRING_EQUAL(t.g[find("driver-0")].topo[0].level, "muster.io/fabric");
    unload();
}

/* ---- levels and a Cluster's values ---- */

static void test_levels(void)
{
    static const char *const good[] = {
        "cluster",          "region", "zone",    "topology.kubernetes.io/zone",
        "muster.io/fabric", "rack",   "Rack_1.a"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        CU_ASSERT(karmada_group_level_valid(good[i], strlen(good[i])));
    static const char *const bad[] = {"",    "/zone", "zone/", "Example.com/x",
                                      "a b", "-x",    "x-",    "a/b/c"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CU_ASSERT_FALSE(karmada_group_level_valid(bad[i], strlen(bad[i])));
    CU_ASSERT_FALSE(karmada_group_level_valid("zone\0x", 6));
    char longkey[80];
    memset(longkey, 'a', sizeof(longkey));
    CU_ASSERT(karmada_group_level_valid(longkey, 63));
    CU_ASSERT_FALSE(karmada_group_level_valid(longkey, 64));
    CU_ASSERT_FALSE(karmada_group_level_valid(NULL, 0));
}

static void test_cluster_values(void)
{
    char p[1024];
    fx_path(p, sizeof(p), "tests/fixtures/objects/cluster.json");
    json_object *c = json_object_from_file(p); /* member1: eu-west-1, zones a and b */
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(karmada_group_level_value(c, "cluster"), "member1");
    CU_ASSERT_STRING_EQUAL(karmada_group_level_value(c, "region"), "eu-west-1");
    CU_ASSERT_STRING_EQUAL(karmada_group_level_value(c, "zone"), "eu-west-1a");
    CU_ASSERT_STRING_EQUAL(karmada_group_level_value(c, "gpu"), "a100");
    CU_ASSERT_PTR_NULL(karmada_group_level_value(c, "topology.kubernetes.io/zone"));
    /* "region" is the field, even when a label of that name says otherwise */
    json_object *meta = json_object_object_get(c, "metadata");
    json_object *spec = json_object_object_get(c, "spec");
    json_object_object_add(json_object_object_get(meta, "labels"), "region",
                           json_object_new_string("elsewhere"));
    CU_ASSERT_STRING_EQUAL(karmada_group_level_value(c, "region"), "eu-west-1");
    /* the deprecated spec.zone, when set, before spec.zones */
    json_object_object_add(spec, "zone", json_object_new_string("z9"));
    CU_ASSERT_STRING_EQUAL(karmada_group_level_value(c, "zone"), "z9");
    json_object_object_add(spec, "zone", json_object_new_string(""));
    CU_ASSERT_STRING_EQUAL(karmada_group_level_value(c, "zone"), "eu-west-1a");
    /* absent, empty or of the wrong type: no value, in no domain */
    json_object_object_del(spec, "zones");
    CU_ASSERT_PTR_NULL(karmada_group_level_value(c, "zone"));
    json_object_object_add(spec, "zones", json_object_new_string("eu-west-1a"));
    CU_ASSERT_PTR_NULL(karmada_group_level_value(c, "zone"));
    json_object_object_add(spec, "region", json_object_new_string(""));
    CU_ASSERT_PTR_NULL(karmada_group_level_value(c, "region"));
    json_object_object_add(json_object_object_get(meta, "labels"), "gpu", json_object_new_int(1));
    CU_ASSERT_PTR_NULL(karmada_group_level_value(c, "gpu"));
    json_object_object_add(meta, "labels", json_object_new_string("x"));
    CU_ASSERT_PTR_NULL(karmada_group_level_value(c, "gpu"));
    CU_ASSERT_PTR_NULL(karmada_group_level_value(NULL, "cluster"));
    CU_ASSERT_PTR_NULL(karmada_group_level_value(c, NULL));
    json_object_put(c);
}

/* Every allocation the read makes can fail: the tree is then empty and nothing leaks (ASan). */
static void test_out_of_memory(void)
{
    load("jobset");
    CU_ASSERT_EQUAL(rd(), 0);
    int failed_once = 0;
    for (long k = 0; k < 64; k++) {
        muster_mem_fail_after(k);
        int rc = karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl);
        muster_mem_fail_after(-1);
        if (rc == 0) {
            CU_ASSERT_EQUAL(t.n, 5);
            break;
        }
        failed_once = 1;
        CU_ASSERT_EQUAL(rc, MUSTER_ENOMEM);
        CU_ASSERT_STRING_EQUAL(err.message, "out of memory");
        CU_ASSERT_EQUAL(t.n, 0);
        CU_ASSERT_PTR_NULL(t.g);
    }
    CU_ASSERT(failed_once);
    muster_mem_reset();
    unload();
}

/* A read of a template that changed since (or of another object): each field is checked again,
 * as the caller may hold a workload read from an older version. */
static int again(void)
{
    return karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl);
}

static void test_stale(void)
{
    load("vcjob-tasks");
    CU_ASSERT_EQUAL(rd(), 0);
    json_object_object_add(task(1), "minAvailable", json_object_new_string("x"));
    CU_ASSERT_EQUAL(again(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "the Volcano Job's spec.tasks[1].minAvailable: must be a whole "
                                  "number from 0 to the task's 3 replicas"));
    json_object_object_add(task(1), "minAvailable", json_object_new_int(4));
    CU_ASSERT_EQUAL(again(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message,
                     "spec.tasks[1].minAvailable: must be a whole number from 0 to the task's 3"));
    json_object_object_del(task(1), "minAvailable");
    json_object *tasks = json_object_object_get(json_object_object_get(tmpl, "spec"), "tasks");
    json_object_array_add(tasks, json_object_get(task(0)));
    CU_ASSERT_EQUAL(again(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "the Volcano Job has 3 tasks but the workload read has 2"));
    CU_ASSERT_EQUAL(t.n, 0);
    unload();

    load("jobset");
    CU_ASSERT_EQUAL(rd(), 0);
    json_object *rjs =
        json_object_object_get(json_object_object_get(tmpl, "spec"), "replicatedJobs");
    json_object *rj1 = json_object_array_get_idx(rjs, 1);
    json_object_object_add(rj1, "replicas", json_object_new_int(-1));
    CU_ASSERT_EQUAL(again(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "the JobSet's spec.replicatedJobs[1].replicas: must be a 32-bit "
                                  "integer of at least 0"));
    json_object_object_add(rj1, "replicas", json_object_new_int(1));
    json_object_object_add(rj1, "name", json_object_new_string("coordinator"));
    CU_ASSERT_EQUAL(again(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "spec.replicatedJobs[1] is not the workload read's"));
    json_object_array_del_idx(rjs, 1, 1);
    CU_ASSERT_EQUAL(again(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "the JobSet has 1 replicated jobs but the workload read has 2"));
    unload();

    load("lws");
    CU_ASSERT_EQUAL(rd(), 0);
    json_object *lwt =
        json_object_object_get(json_object_object_get(tmpl, "spec"), "leaderWorkerTemplate");
    json_object_object_add(lwt, "size", json_object_new_int(0));
    CU_ASSERT_EQUAL(again(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "the LeaderWorkerSet's spec.leaderWorkerTemplate.size: must be a "
                                  "32-bit integer of at least 1"));
    json_object_object_add(lwt, "size", json_object_new_int(4));
    snprintf(w.components[1].name, sizeof(w.components[1].name), "workers");
    CU_ASSERT_EQUAL(again(), MUSTER_EINVAL);
    CU_ASSERT(fx_has(err.message, "the LeaderWorkerSet is not the workload read"));
    CU_ASSERT_EQUAL(t.n, 0);
    unload();
}

/* "pods" counted on every leaf needs a name in the table; a full table says so. */
static void test_names_full(void)
{
    load("deployment");
    annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, "2");
    CU_ASSERT_EQUAL(karmada_workload_read(&w, names, rb, tmpl), 0);
    char nm[32];
    uint32_t id;
    int rc = 0;
    for (int i = 0; rc == 0; i++) {
        snprintf(nm, sizeof(nm), "example.com/r%d", i);
        rc = queue_resnames_intern(names, nm, strlen(nm), &id);
    }
    CU_ASSERT_EQUAL(rc, MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(again(), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT(fx_has(err.message, "the resource name table is full"));
    CU_ASSERT_EQUAL(t.n, 0);
    unload();
}

/* The informers cache pruned templates and bindings (workload_prune.c): the tree read from them
 * is the tree read from the whole objects, annotations, tasks and replicated jobs included. */
static void same_tree_pruned(const char *fixture, const char *group_size)
{
    load(fixture);
    if (group_size)
        annotate(tmpl, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, group_size);
    annotate(tmpl, KARMADA_GROUPS_TOPOLOGY_REQUIRED, "region");
    annotate(rb, KARMADA_GROUPS_TOPOLOGY_PREFERRED, "zone");
    annotate(tmpl, KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED, "muster.io/fabric");
    annotate(rb, KARMADA_GROUPS_GROUP_TOPOLOGY_PREFERRED, "cluster");
    annotate(tmpl, KARMADA_GROUPS_SPREAD_PREFERRED, "topology.kubernetes.io/zone:2");
    annotate(rb, KARMADA_GROUPS_SPREAD_REQUIRED, "zone:2");
    if (strcmp(fixture, "deployment") != 0) { /* the single-cluster kinds cannot spread */
        annotate(tmpl, KARMADA_GROUPS_SPREAD_PREFERRED, NULL);
        annotate(rb, KARMADA_GROUPS_SPREAD_REQUIRED, NULL);
    }
    CU_ASSERT_EQUAL_FATAL(rd(), 0);
    struct karmada_group_tree whole = t;
    t.g = NULL;
    t.n = 0;
    json_object *rb_copy = NULL;
    CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(rb, &rb_copy, NULL), 0);
    json_object *ptmpl = karmada_workload_prune_template(tmpl);
    json_object *prb = karmada_workload_prune_binding(rb_copy);
    json_object_put(rb_copy);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ptmpl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(prb);
    CU_ASSERT_EQUAL(karmada_workload_read(&w, names, prb, ptmpl), 0);
    CU_ASSERT_EQUAL(karmada_workload_groups_read(&t, &err, names, &w, prb, ptmpl), 0);
    CU_ASSERT_EQUAL_FATAL(t.n, whole.n);
    CU_ASSERT(whole.g[0].ntopo >= 2);
    for (uint32_t i = 0; i < t.n; i++) {
        const struct karmada_group *a = &whole.g[i], *b = &t.g[i];
        CU_ASSERT_STRING_EQUAL(a->name, b->name);
        CU_ASSERT(a->parent == b->parent && a->min_count == b->min_count && a->pods == b->pods &&
                  a->indivisible == b->indivisible && a->source == b->source);
        CU_ASSERT_EQUAL(queue_resvec_cmp(&a->pod, &b->pod), 0);
        CU_ASSERT_EQUAL_FATAL(a->ntopo, b->ntopo);
        CU_ASSERT_EQUAL(memcmp(a->topo, b->topo, a->ntopo * sizeof(a->topo[0])), 0);
    }
    karmada_group_tree_close(&whole);
    json_object_put(ptmpl);
    json_object_put(prb);
    unload();
}

/* ---- the Kubernetes Workload API ---- */

static json_object *wlobj; /* the hub Workload of jobset-workload (workload-jobset.yaml) */

static void load_wl(void)
{
    char p[1024], e[256];
    json_object *docs = NULL;
    load("jobset-workload");
    fx_path(p, sizeof(p), "tests/fixtures/workloads/workload-jobset.yaml");
    if (kube_yaml_read(p, &docs, e, sizeof(e)))
        fprintf(stderr, "\n%s\n", e);
    wlobj = json_object_get(json_object_array_get_idx(docs, 0));
    json_object_put(docs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(wlobj);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_read(&w, names, rb, tmpl), 0);
}

static void unload_wl(void)
{
    unload();
    json_object_put(wlobj);
    wlobj = NULL;
}

/* The tree of the JobSet with the hub lookup's result: the read's return code. */
static int rd_wl(json_object *obj, int served, uint32_t found)
{
    const struct karmada_groups_wl wl = {obj, served, found, "scheduling.k8s.io/v1beta1"};
    int rc = karmada_workload_groups_read_wl(&t, &err, names, &w, rb, tmpl, &wl);
    if (rc) {
        CU_ASSERT_EQUAL(t.n, 0);
        CU_ASSERT(err.reason == KARMADA_WORKLOAD_INVALID || err.reason == KARMADA_WORKLOAD_REFUSED);
    }
    return rc;
}

/* pod group template i of the fixture's Workload */
static json_object *pgt(size_t i)
{
    json_object *spec = NULL, *a = NULL;
    json_object_object_get_ex(wlobj, "spec", &spec);
    json_object_object_get_ex(spec, "podGroupTemplates", &a);
    return json_object_array_get_idx(a, i);
}

static void set_policy(size_t i, const char *json)
{
    json_object_object_add(pgt(i), "schedulingPolicy", json_tokener_parse(json));
}

static json_object *rj_job_template(size_t i)
{
    json_object *spec = NULL, *rjs = NULL, *tt = NULL;
    json_object_object_get_ex(tmpl, "spec", &spec);
    json_object_object_get_ex(spec, "replicatedJobs", &rjs);
    json_object_object_get_ex(json_object_array_get_idx(rjs, i), "template", &tt);
    return tt;
}

/* The fixtures stand for real objects: the JobSet valid against JobSet's CRD, the Workload against
 * the schema written from types.go in both versions (kubernetes_scheduling.k8s.io_workloads.yaml),
 * which refuses what the API server would. */
/* wlobj validated against s as the version s is for (the schema checks apiVersion too) */
static int wl_valid(const struct kube_schema *s, struct kube_schema_errors *errs)
{
    json_object_object_add(wlobj, "apiVersion", json_object_new_string(kube_schema_api_version(s)));
    return kube_schema_validate(s, wlobj, errs);
}

static void test_workload_api_fixtures_valid(void)
{
    char p[1024], e[512];
    struct kube_schema *js = NULL, *beta = NULL, *alpha = NULL;
    fx_path(p, sizeof(p), "tests/fixtures/reference/crds/jobset_jobset.x-k8s.io_jobsets.yaml");
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1alpha2", &js, e, sizeof(e)), 0);
    fx_path(p, sizeof(p),
            "tests/fixtures/reference/crds/kubernetes_scheduling.k8s.io_workloads.yaml");
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1beta1", &beta, e, sizeof(e)), 0);
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1alpha2", &alpha, e, sizeof(e)), 0);
    load_wl();
    struct kube_schema_errors errs;
    kube_schema_errors_init(&errs);
    CU_ASSERT_EQUAL(kube_schema_validate(js, tmpl, &errs), 0);
    CU_ASSERT_EQUAL(wl_valid(beta, &errs), 0);
    CU_ASSERT_EQUAL(wl_valid(alpha, &errs), 0);
    static const char *const bad[] = {"{\"gang\":{\"minCount\":0}}",
                                      "{\"gang\":{\"minCount\":6},\"basic\":{}}", "{}",
                                      "{\"gang\":{}}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        set_policy(0, bad[i]);
        CU_ASSERT_EQUAL(wl_valid(beta, &errs), MUSTER_EINVAL);
        CU_ASSERT_EQUAL(wl_valid(alpha, &errs), MUSTER_EINVAL);
    }
    set_policy(0, "{\"basic\":{}}");
    CU_ASSERT_EQUAL(wl_valid(alpha, &errs), 0);
    CU_ASSERT_EQUAL(wl_valid(beta, &errs), 0);
    /* v1alpha2 requires the templates; v1beta1 allows composite ones instead */
    json_object *spec = NULL;
    json_object_object_get_ex(wlobj, "spec", &spec);
    json_object_object_del(spec, "podGroupTemplates");
    CU_ASSERT_EQUAL(wl_valid(alpha, &errs), MUSTER_EINVAL);
    json_object_object_add(spec, "compositePodGroupTemplates",
                           json_tokener_parse("[{\"name\":\"all\",\"schedulingPolicy\":"
                                              "{\"basic\":{}},\"podGroupTemplates\":[{\"name\":"
                                              "\"shard\",\"schedulingPolicy\":{\"basic\":{}}}]}]"));
    CU_ASSERT_EQUAL(wl_valid(beta, &errs), 0);
    kube_schema_errors_close(&errs);
    kube_schema_free(js);
    kube_schema_free(beta);
    kube_schema_free(alpha);
    unload_wl();
}

/* Each Job one PodGroup of its replicated job's template: the JobSet's shape under the
 * Workload, the leaves' minimums the templates' minCounts (6 of 8, 3 of 4). */
static void test_workload_api(void)
{
    load_wl();
    CU_ASSERT_EQUAL(karmada_workload_groups_wants_wl(&w, tmpl), 1);
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    check_shape();
    CU_ASSERT_EQUAL_FATAL(t.n, 9);
    CU_ASSERT_STRING_EQUAL(t.g[0].name, "Workload/wlsets-wl");
    CU_ASSERT_EQUAL(t.g[0].min_count, 2);
    CU_ASSERT_EQUAL(t.g[0].indivisible, 0); /* placement spread */
    for (uint32_t i = 0; i < t.n; i++)
        CU_ASSERT_EQUAL(t.g[i].source, KARMADA_GROUP_SOURCE_WORKLOAD);
    int shard = find("shard"), eval = find("eval");
    CU_ASSERT_FATAL(shard > 0 && eval > 0);
    CU_ASSERT_EQUAL(t.g[shard].min_count, 4);
    CU_ASSERT_EQUAL(t.g[shard].indivisible, 0);
    CU_ASSERT_EQUAL(t.g[eval].min_count, 2);
    static const char *const shards[] = {"shard-0", "shard-1", "shard-2", "shard-3"};
    for (size_t i = 0; i < 4; i++) {
        int g = find(shards[i]);
        CU_ASSERT_FATAL(g > 0);
        CU_ASSERT_EQUAL(t.g[g].parent, shard);
        CU_ASSERT_EQUAL(t.g[g].pods, 8);
        CU_ASSERT_EQUAL(t.g[g].min_count, 6);
        CU_ASSERT_EQUAL(t.g[g].indivisible, 1);
        CU_ASSERT_EQUAL(res(&t.g[g].pod, "nvidia.com/gpu"), 1000);
    }
    for (int i = 0; i < 2; i++) {
        int g = find(i ? "eval-1" : "eval-0");
        CU_ASSERT_FATAL(g > 0);
        CU_ASSERT_EQUAL(t.g[g].parent, eval);
        CU_ASSERT_EQUAL(t.g[g].pods, 4);
        CU_ASSERT_EQUAL(t.g[g].min_count, 3);
    }
    /* the 1.36 Workload has the same fields: the same tree */
    json_object_object_add(wlobj, "apiVersion",
                           json_object_new_string("scheduling.k8s.io/v1alpha2"));
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), 0);
    CU_ASSERT_EQUAL(t.n, 9);
    /* basic: no all or nothing, one pod is its minimum */
    set_policy(1, "{\"basic\":{}}");
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    CU_ASSERT_EQUAL(t.g[find("eval-1")].min_count, 1);
    CU_ASSERT_EQUAL(t.g[find("shard-1")].min_count, 6);
    /* a replicated job naming no template keeps every pod, as a JobSet's */
    annotate(rj_job_template(1), KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION, NULL);
    CU_ASSERT_EQUAL(karmada_workload_groups_wants_wl(&w, tmpl), 1);
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    CU_ASSERT_EQUAL(t.g[find("eval-0")].min_count, 4);
    CU_ASSERT_EQUAL(t.g[find("shard-0")].min_count, 6);
    /* naming none at all: the JobSet's own tree, no Workload read */
    annotate(rj_job_template(0), KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION, NULL);
    CU_ASSERT_EQUAL(karmada_workload_groups_wants_wl(&w, tmpl), 0);
    CU_ASSERT_EQUAL_FATAL(rd_wl(NULL, 0, 0), 0);
    CU_ASSERT_EQUAL(t.g[0].source, KARMADA_GROUP_SOURCE_JOBSET);
    CU_ASSERT_STRING_EQUAL(t.g[0].name, "JobSet/wlsets");
    CU_ASSERT_EQUAL(t.g[find("shard-0")].min_count, 8);
    unload_wl();
}

/* A missing, ambiguous or malformed Workload, or a template it does not have: refused with
 * the sentence the RB's condition carries. */
static void test_workload_api_refusals(void)
{
    load_wl();
    /* the gang waits for its Workload, as kube-scheduler keeps a missing PodGroup's pods */
    CU_ASSERT_EQUAL(rd_wl(NULL, 1, 0), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "waiting for the Workload (scheduling.k8s.io/v1beta1) whose "
                           "spec.controllerRef names JobSet wlsets to be created on the hub: its "
                           "replicated jobs name pod group templates (annotation "
                           "scheduling.k8s.io/group-template-name)");
    CU_ASSERT_EQUAL(rd_wl(NULL, 0, 0), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "the hub serves no scheduling.k8s.io Workloads"));
    CU_ASSERT_EQUAL(karmada_workload_groups_read(&t, &err, names, &w, rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "its Workload was not looked up"));
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 2), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_STRING_EQUAL(err.message, "2 Workloads' spec.controllerRef name JobSet wlsets: one "
                                        "Workload must structure it");
    /* a template the Workload does not have */
    annotate(rj_job_template(0), KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION, "shards");
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "the JobSet's replicated job shard names pod group template shards "
                           "(annotation scheduling.k8s.io/group-template-name), which Workload "
                           "wlsets-wl does not have (its spec.podGroupTemplates: shard, eval)");
    annotate(rj_job_template(0), KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION, "");
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "spec.replicatedJobs[0].template annotation"));
    annotate(rj_job_template(0), KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION, "shard");
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), 0);
    /* a gang larger than one Job: its PodGroups could never start */
    set_policy(0, "{\"gang\":{\"minCount\":9}}");
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_INVALID);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "Workload wlsets-wl: pod group template shard's gang minCount 9 is "
                           "more than the 8 pods of each Job of replicated job shard, so its "
                           "PodGroups could never be scheduled");
    static const char *const bad[] = {"{\"gang\":{\"minCount\":0}}",
                                      "{\"gang\":{\"minCount\":\"6\"}}",
                                      "{\"gang\":{}}",
                                      "{\"gang\":{\"minCount\":6},\"basic\":{}}",
                                      "{}",
                                      "{\"basic\":true}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        set_policy(0, bad[i]);
        CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), MUSTER_EINVAL);
        CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_INVALID);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "Workload wlsets-wl: pod group template shard"));
    }
    set_policy(0, "{\"gang\":{\"minCount\":8}}");
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), 0);
    /* an empty compositePodGroupTemplates is none: the pod group templates make the groups */
    json_object *spec = NULL;
    json_object_object_get_ex(wlobj, "spec", &spec);
    json_object_object_add(spec, "compositePodGroupTemplates", json_object_new_array());
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), 0);
    json_object_object_del(spec, "compositePodGroupTemplates");
    json_object_object_add(spec, "podGroupTemplates", json_object_new_string("shard"));
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "Workload wlsets-wl: spec.podGroupTemplates must be a list");
    unload_wl();
}

/* ---- CompositePodGroup templates (KEP-6012) ---- */

/* The fixture's Workload with spec.compositePodGroupTemplates json instead of its pod group
 * templates (json NULL: workload-jobset-composite.yaml's). */
static void load_cwl(const char *json)
{
    char p[1024], e[256];
    json_object *docs = NULL;
    if (tmpl)
        unload_wl(); /* a test's previous Workload */
    load_wl();
    json_object_put(wlobj);
    fx_path(p, sizeof(p), "tests/fixtures/workloads/workload-jobset-composite.yaml");
    if (kube_yaml_read(p, &docs, e, sizeof(e)))
        fprintf(stderr, "\n%s\n", e);
    wlobj = json_object_get(json_object_array_get_idx(docs, 0));
    json_object_put(docs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(wlobj);
    if (json) {
        json_object *spec = NULL;
        json_object_object_get_ex(wlobj, "spec", &spec);
        json_object_object_add(spec, "compositePodGroupTemplates", json_tokener_parse(json));
    }
}

/* rd_wl refuses with reason and exactly the sentence msg */
static void refused(enum karmada_workload_reason reason, const char *msg)
{
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, reason);
    CU_ASSERT_STRING_EQUAL(err.message, msg);
    if (strcmp(err.message, msg) != 0)
        fprintf(stderr, "\n  got: %s\n", err.message);
}

#define SHARD_T "{\"name\":\"shard\",\"schedulingPolicy\":{\"gang\":{\"minCount\":6}}}"
#define EVAL_T "{\"name\":\"eval\",\"schedulingPolicy\":{\"gang\":{\"minCount\":3}}}"

/* Each composite template one group over the Jobs of the replicated jobs naming a pod group
 * template it lists, its min_count the gang's minGroupCount; the Jobs after every inner group,
 * in replicated job order. */
static void test_workload_api_composite(void)
{
    load_cwl(NULL);
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    check_shape();
    CU_ASSERT_EQUAL_FATAL(t.n, 9);
    CU_ASSERT_STRING_EQUAL(t.g[0].name, "Workload/wlsets-wl");
    CU_ASSERT_EQUAL(t.g[0].min_count, 2); /* the JobSet is one object: both composites */
    CU_ASSERT_EQUAL(t.g[0].indivisible, 0);
    for (uint32_t i = 0; i < t.n; i++)
        CU_ASSERT_EQUAL(t.g[i].source, KARMADA_GROUP_SOURCE_WORKLOAD);
    int training = find("training"), evaluation = find("evaluation");
    CU_ASSERT_EQUAL_FATAL(training, 1);
    CU_ASSERT_EQUAL_FATAL(evaluation, 2);
    CU_ASSERT_EQUAL(t.g[training].parent, 0);
    CU_ASSERT_EQUAL(t.g[training].min_count, 3); /* gang.minGroupCount: 3 of its 4 Jobs */
    CU_ASSERT_EQUAL(t.g[training].indivisible, 0);
    /* basic: its Jobs are independent gangs, but every one of them is meant to run, so none
     * may be left out of the JobSet */
    CU_ASSERT_EQUAL(t.g[evaluation].min_count, 2);
    CU_ASSERT_EQUAL(find("shard"), -1);            /* no replicated job level under a composite */
    static const char *const leaves[] = {"shard-0", "shard-1", "shard-2",
                                         "shard-3", "eval-0",  "eval-1"};
    for (size_t i = 0; i < 6; i++) {
        int g = find(leaves[i]);
        CU_ASSERT_EQUAL_FATAL(g, (int)(3 + i));
        CU_ASSERT_EQUAL(t.g[g].parent, i < 4 ? training : evaluation);
        CU_ASSERT_EQUAL(t.g[g].pods, i < 4 ? 8 : 4);
        CU_ASSERT_EQUAL(t.g[g].min_count, i < 4 ? 6 : 3);
        CU_ASSERT_EQUAL(t.g[g].indivisible, 1);
        CU_ASSERT_EQUAL(res(&t.g[g].pod, "nvidia.com/gpu"), 1000);
    }

    /* a JobSet whose copy at fewer Jobs would break runs whole: every composite needs all its
     * children (JobSet's coordinator; a success policy counting only some replicated jobs) */
    json_object *jspec = json_object_object_get(tmpl, "spec");
    json_object_object_add(jspec, "coordinator",
                           json_tokener_parse("{\"replicatedJob\":\"shard\",\"jobIndex\":0}"));
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    CU_ASSERT_EQUAL(t.g[find("training")].min_count, 4);
    CU_ASSERT_EQUAL(t.g[find("evaluation")].min_count, 2);
    json_object_object_del(jspec, "coordinator");
    json_object_object_add(
        jspec, "successPolicy",
        json_tokener_parse("{\"operator\":\"All\",\"targetReplicatedJobs\":[\"shard\"]}"));
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    CU_ASSERT_EQUAL(t.g[find("training")].min_count, 4);
    /* targets that name every replicated job, or operator Any: a copy at fewer Jobs keeps both */
    json_object_object_add(
        jspec, "successPolicy",
        json_tokener_parse("{\"operator\":\"All\",\"targetReplicatedJobs\":[\"shard\",\"eval\"]}"));
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    CU_ASSERT_EQUAL(t.g[find("training")].min_count, 3);
    json_object_object_add(jspec, "successPolicy", json_tokener_parse("{\"operator\":\"Any\"}"));
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    CU_ASSERT_EQUAL(t.g[find("training")].min_count, 3);
    json_object_object_del(jspec, "successPolicy");
    unload_wl();

    /* nested: a composite over both, at depth 1; the pod group templates at depth 3 */
    load_cwl("[{\"name\":\"all\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":2}},"
             "\"compositePodGroupTemplates\":["
             "{\"name\":\"training\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":4}},"
             "\"podGroupTemplates\":[" SHARD_T "]},"
             "{\"name\":\"evaluation\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":1}},"
             "\"podGroupTemplates\":[" EVAL_T "]}]}]");
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    check_shape();
    CU_ASSERT_EQUAL_FATAL(t.n, 10);
    CU_ASSERT_EQUAL(t.g[0].min_count, 1);
    CU_ASSERT_EQUAL(find("all"), 1);
    CU_ASSERT_EQUAL(t.g[1].min_count, 2);
    CU_ASSERT_EQUAL(t.g[find("training")].parent, 1);
    CU_ASSERT_EQUAL(t.g[find("training")].min_count, 4);
    CU_ASSERT_EQUAL(t.g[find("evaluation")].parent, 1);
    CU_ASSERT_EQUAL(t.g[find("shard-3")].parent, find("training"));
    CU_ASSERT_EQUAL(t.g[find("eval-1")].parent, find("evaluation"));
    /* one composite listing both templates: its children are the Jobs of both */
    load_cwl("[{\"name\":\"all\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":5}},"
             "\"podGroupTemplates\":[" SHARD_T "," EVAL_T "]}]");
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    check_shape();
    CU_ASSERT_EQUAL_FATAL(t.n, 8);
    CU_ASSERT_EQUAL(t.g[1].min_count, 5);
    for (uint32_t i = 2; i < 8; i++)
        CU_ASSERT_EQUAL(t.g[i].parent, 1);
    CU_ASSERT_EQUAL(t.g[find("eval-0")].min_count, 3);
    /* a replicated job naming no template: its own group of whole Jobs under the root */
    load_cwl("[{\"name\":\"training\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":4}},"
             "\"podGroupTemplates\":[" SHARD_T "]}]");
    annotate(rj_job_template(1), KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION, NULL);
    CU_ASSERT_EQUAL_FATAL(rd_wl(wlobj, 1, 1), 0);
    check_shape();
    CU_ASSERT_EQUAL_FATAL(t.n, 9);
    CU_ASSERT_EQUAL(t.g[0].min_count, 2);
    int eval = find("eval");
    CU_ASSERT_EQUAL_FATAL(eval, 2);
    CU_ASSERT_EQUAL(t.g[eval].parent, 0);
    CU_ASSERT_EQUAL(t.g[eval].min_count, 2);
    CU_ASSERT_EQUAL(t.g[find("eval-0")].parent, eval);
    CU_ASSERT_EQUAL(t.g[find("eval-0")].min_count, 4);
    CU_ASSERT_EQUAL(find("eval-0"), 7); /* after shard-0..3: replicated job order */
    unload_wl();
}

/* What cannot be read as a tree: refused with the sentence the RB's condition carries. */
static void test_workload_api_composite_refusals(void)
{
    load_cwl(NULL);
    json_object *spec = NULL;
    json_object_object_get_ex(wlobj, "spec", &spec);
    json_object_object_add(spec, "podGroupTemplates", json_tokener_parse("[" SHARD_T "]"));
    refused(KARMADA_WORKLOAD_INVALID, "Workload wlsets-wl sets both spec.podGroupTemplates and "
                                      "spec.compositePodGroupTemplates: exactly one must be set");
    json_object_object_add(spec, "podGroupTemplates", json_object_new_array());
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), 0); /* an empty list is none */
    load_cwl("{\"name\":\"training\"}");
    refused(KARMADA_WORKLOAD_INVALID,
            "Workload wlsets-wl: spec.compositePodGroupTemplates must be a list");
    /* deeper than WorkloadMaxTreeDepth: pod group templates at depth 5 */
    load_cwl("[{\"name\":\"a\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
             "[{\"name\":\"b\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
             "[{\"name\":\"c\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
             "[{\"name\":\"d\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[" SHARD_T "," EVAL_T "]}]}]}]}]");
    refused(KARMADA_WORKLOAD_INVALID,
            "Workload wlsets-wl: composite pod group template d is at depth 4: with its pod "
            "groups below it the tree is deeper than 4 levels (WorkloadMaxTreeDepth)");
    /* depth 4 exactly (3 composites, then the pod group templates) is read */
    load_cwl("[{\"name\":\"a\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
             "[{\"name\":\"b\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
             "[{\"name\":\"c\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[" SHARD_T "," EVAL_T "]}]}]}]");
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), 0);
    CU_ASSERT_EQUAL(t.g[find("shard-0")].parent, find("c"));
    /* a template name the Workload does not have */
    load_cwl("[{\"name\":\"training\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[" SHARD_T ",{\"name\":\"evals\",\"schedulingPolicy\":{\"basic\":{}}}]}]");
    refused(KARMADA_WORKLOAD_INVALID,
            "the JobSet's replicated job eval names pod group template eval (annotation "
            "scheduling.k8s.io/group-template-name), which Workload wlsets-wl does not have (its "
            "composite templates' podGroupTemplates: training/shard, training/evals)");
    /* the same name under two composites: which one is its parent is not said */
    load_cwl("[{\"name\":\"x\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[" SHARD_T "," EVAL_T "]},{\"name\":\"y\",\"schedulingPolicy\":{\"basic\":{}},"
             "\"podGroupTemplates\":[" SHARD_T "]}]");
    refused(KARMADA_WORKLOAD_INVALID,
            "the JobSet's replicated job shard names pod group template shard, which Workload "
            "wlsets-wl has under both composite templates x and y");
    load_cwl("[{\"name\":\"x\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[" SHARD_T "]},{\"name\":\"x\",\"schedulingPolicy\":{\"basic\":{}},"
             "\"podGroupTemplates\":[" EVAL_T "]}]");
    refused(KARMADA_WORKLOAD_INVALID, "Workload wlsets-wl has two composite pod group templates "
                                      "named x: muster names each group after its template");
    /* minGroupCount below 1, above its children, not a number; a policy of both or neither */
    static const char *const badmin[] = {"{\"gang\":{\"minGroupCount\":0}}",
                                         "{\"gang\":{\"minGroupCount\":\"3\"}}", "{\"gang\":{}}"};
    for (size_t i = 0; i < sizeof(badmin) / sizeof(badmin[0]); i++) {
        char j[512];
        snprintf(j, sizeof(j),
                 "[{\"name\":\"all\",\"schedulingPolicy\":%s,\"podGroupTemplates\":[" SHARD_T
                 "," EVAL_T "]}]",
                 badmin[i]);
        load_cwl(j);
        refused(KARMADA_WORKLOAD_INVALID,
                "Workload wlsets-wl: composite pod group template all's "
                "schedulingPolicy.gang.minGroupCount must be a 32-bit integer of at least 1");
    }
    static const char *const badpol[] = {"{\"gang\":{\"minGroupCount\":1},\"basic\":{}}", "{}",
                                         "{\"basic\":true}"};
    for (size_t i = 0; i < sizeof(badpol) / sizeof(badpol[0]); i++) {
        char j[512];
        snprintf(j, sizeof(j),
                 "[{\"name\":\"all\",\"schedulingPolicy\":%s,\"podGroupTemplates\":[" SHARD_T
                 "," EVAL_T "]}]",
                 badpol[i]);
        load_cwl(j);
        refused(KARMADA_WORKLOAD_INVALID,
                "Workload wlsets-wl: composite pod group template all's schedulingPolicy must "
                "set exactly one of gang and basic");
    }
    load_cwl(NULL);
    json_object *tr = NULL, *sp = NULL;
    json_object_object_get_ex(wlobj, "spec", &spec);
    json_object_object_get_ex(spec, "compositePodGroupTemplates", &tr);
    json_object_object_get_ex(json_object_array_get_idx(tr, 0), "schedulingPolicy", &sp);
    json_object_object_add(sp, "gang", json_tokener_parse("{\"minGroupCount\":5}"));
    refused(KARMADA_WORKLOAD_INVALID,
            "Workload wlsets-wl: composite pod group template training's gang minGroupCount 5 "
            "is more than its 4 child groups, so its CompositePodGroup could never be "
            "scheduled");
    json_object_object_add(sp, "gang", json_tokener_parse("{\"minGroupCount\":4}"));
    CU_ASSERT_EQUAL(rd_wl(wlobj, 1, 1), 0);
    /* a composite with no children at all, or none the JobSet makes */
    load_cwl("[{\"name\":\"all\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[" SHARD_T "," EVAL_T "]},{\"name\":\"empty\",\"schedulingPolicy\":{\"basic\":{}}}]");
    refused(KARMADA_WORKLOAD_INVALID,
            "Workload wlsets-wl: composite pod group template empty sets neither "
            "podGroupTemplates nor compositePodGroupTemplates");
    load_cwl("[{\"name\":\"all\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[" SHARD_T "," EVAL_T "]},{\"name\":\"spare\",\"schedulingPolicy\":{\"basic\":{}},"
             "\"podGroupTemplates\":[{\"name\":\"idle\",\"schedulingPolicy\":{\"basic\":{}}}]}]");
    refused(KARMADA_WORKLOAD_INVALID,
            "Workload wlsets-wl: composite pod group template spare would have no child groups: "
            "no replicated job of the JobSet names a pod group template under it");
    /* a composite named like a replicated job or one of its Jobs: the tree's names must differ */
    static const char *const clash[] = {"shard", "eval-1"};
    for (size_t i = 0; i < 2; i++) {
        char j[512], m[512];
        snprintf(j, sizeof(j),
                 "[{\"name\":\"%s\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
                 "[" SHARD_T "," EVAL_T "]}]",
                 clash[i]);
        load_cwl(j);
        snprintf(m, sizeof(m),
                 "Workload wlsets-wl: composite pod group template %s has the name of replicated "
                 "job %s or one of its Jobs: muster names each group after its template or Job; "
                 "rename one of them",
                 clash[i], i ? "eval" : "shard");
        refused(KARMADA_WORKLOAD_REFUSED, m);
    }
    load_cwl("[{\"name\":\"No\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[" SHARD_T "," EVAL_T "]}]");
    refused(KARMADA_WORKLOAD_INVALID,
            "Workload wlsets-wl: a composite pod group template's name must be a DNS label");
    /* a pod group template under a composite is checked as one at the top is */
    load_cwl("[{\"name\":\"all\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
             "[{\"name\":\"shard\",\"schedulingPolicy\":{\"gang\":{\"minCount\":9}}}," EVAL_T
             "]}]");
    refused(KARMADA_WORKLOAD_INVALID,
            "Workload wlsets-wl: pod group template shard's gang minCount 9 is more than the 8 "
            "pods of each Job of replicated job shard, so its PodGroups could never be "
            "scheduled");
    unload_wl();
}

/* The composite fixture and what the API server refuses of a composite, by the schema. */
static void test_workload_api_composite_schema(void)
{
    char p[1024], e[512];
    struct kube_schema *beta = NULL;
    fx_path(p, sizeof(p),
            "tests/fixtures/reference/crds/kubernetes_scheduling.k8s.io_workloads.yaml");
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(p, "v1beta1", &beta, e, sizeof(e)), 0);
    struct kube_schema_errors errs;
    kube_schema_errors_init(&errs);
    load_cwl(NULL);
    CU_ASSERT_EQUAL(wl_valid(beta, &errs), 0);
    static const char *const ok[] = {
        "[{\"name\":\"a\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
        "[{\"name\":\"b\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
        "[{\"name\":\"c\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":2}},"
        "\"podGroupTemplates\":[" SHARD_T "," EVAL_T "]}]}]}]"};
    static const char *const bad[] = {
        "[{\"name\":\"a\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":0}},"
        "\"podGroupTemplates\":[" SHARD_T "]}]",
        "[{\"name\":\"a\",\"schedulingPolicy\":{\"gang\":{}},\"podGroupTemplates\":[" SHARD_T "]}]",
        "[{\"name\":\"a\",\"schedulingPolicy\":{},\"podGroupTemplates\":[" SHARD_T "]}]",
        "[{\"name\":\"a\",\"podGroupTemplates\":[" SHARD_T "]}]",
        "[{\"name\":\"a\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
        "[{\"name\":\"s\",\"schedulingPolicy\":{\"gang\":{\"minCount\":0}}}]}]",
        /* a composite at depth 4 */
        "[{\"name\":\"a\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
        "[{\"name\":\"b\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
        "[{\"name\":\"c\",\"schedulingPolicy\":{\"basic\":{}},\"compositePodGroupTemplates\":"
        "[{\"name\":\"d\",\"schedulingPolicy\":{\"basic\":{}},\"podGroupTemplates\":"
        "[" SHARD_T "]}]}]}]}]"};
    json_object *spec = NULL;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        load_cwl(ok[i]);
        CU_ASSERT_EQUAL(wl_valid(beta, &errs), 0);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        load_cwl(bad[i]);
        CU_ASSERT_EQUAL(wl_valid(beta, &errs), MUSTER_EINVAL);
    }
    json_object_object_get_ex(wlobj, "spec", &spec);
    CU_ASSERT_PTR_NOT_NULL(spec);
    kube_schema_errors_close(&errs);
    kube_schema_free(beta);
    unload_wl();
}

/* Volcano v1.14's partitionPolicy on a task (volcano-sh/apis job.go PartitionPolicySpec; the
 * admission's checks in pkg/webhooks/admission/jobs/validate/admit_job.go
 * validatePartitionPolicy, the default minAvailable in mutate/mutate_job.go). */
static json_object *partition_policy(int total, int size, int min)
{
    json_object *pp = json_object_new_object();
    json_object_object_add(pp, "totalPartitions", json_object_new_int(total));
    json_object_object_add(pp, "partitionSize", json_object_new_int(size));
    if (min >= 0)
        json_object_object_add(pp, "minPartitions", json_object_new_int(min));
    return pp;
}

static void test_vcjob_partitions(void)
{
    load("vcjob-tasks"); /* ps: 1, worker: 3 (1 GPU each); job minAvailable 4 */
    json_object *spec = json_object_object_get(tmpl, "spec");
    json_object_object_del(spec, "minAvailable");
    json_object_object_add(task(1), "replicas", json_object_new_int(8));
    json_object_object_add(task(1), "partitionPolicy", partition_policy(2, 4, 1));
    CU_ASSERT_EQUAL(rd(), 0);
    check_shape();
    /* the job's minimum: ps 1 + worker's minPartitions x partitionSize 4 (Volcano's defaults) */
    CU_ASSERT_EQUAL(w.min_member, 5);
    CU_ASSERT_EQUAL(t.n, 5); /* root, ps, worker, worker-0, worker-1 */
    int wk = find("worker"), p0 = find("worker-0"), p1 = find("worker-1");
    CU_ASSERT_FATAL(wk > 0 && p0 > wk && p1 > p0);
    CU_ASSERT_EQUAL(t.g[0].min_count, 2); /* every task */
    CU_ASSERT_EQUAL(t.g[wk].pods, 0);
    CU_ASSERT_EQUAL(t.g[wk].min_count, 2); /* every partition is placed ... */
    CU_ASSERT(t.g[wk].indivisible);
    CU_ASSERT_EQUAL(t.g[p0].parent, wk);
    CU_ASSERT_EQUAL(t.g[p0].pods, 4);
    CU_ASSERT_EQUAL(t.g[p0].min_count, 4); /* ... the minimum needs one whole partition */
    CU_ASSERT_EQUAL(t.g[p1].min_count, 0);
    CU_ASSERT_EQUAL(res(&t.g[p1].pod, "nvidia.com/gpu"), 1000);

    /* a job minimum above the tasks' takes the next partition whole */
    json_object_object_add(spec, "minAvailable", json_object_new_int(6));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(t.g[find("worker-1")].min_count, 4);
    json_object_object_del(spec, "minAvailable");

    /* no minPartitions: the task's minAvailable is its replicas, every partition needed */
    json_object_object_add(task(1), "partitionPolicy", partition_policy(2, 4, -1));
    CU_ASSERT_EQUAL(rd(), 0);
    CU_ASSERT_EQUAL(w.min_member, 9);
    CU_ASSERT_EQUAL(t.g[find("worker-1")].min_count, 4);

    /* what Volcano's admission refuses, refused with its reason */
    static const struct {
        int total, size, min, min_available;
        const char *says;
    } bad[] = {
        {3, 4, 1, -1, "its 8 replicas are not totalPartitions 3 x partitionSize 4"},
        {0, 4, 1, -1, "partitionPolicy.totalPartitions: must be a 32-bit integer of at least 1"},
        {2, 0, 1, -1, "partitionPolicy.partitionSize: must be a 32-bit integer of at least 1"},
        {2, 4, 3, -1, "minPartitions 3 is more than its totalPartitions 2"},
        {2, 4, 1, 5, "minAvailable 5 is not minPartitions 1 x partitionSize 4"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_object_object_add(task(1), "partitionPolicy",
                               partition_policy(bad[i].total, bad[i].size, bad[i].min));
        if (bad[i].min_available >= 0)
            json_object_object_add(task(1), "minAvailable",
                                   json_object_new_int(bad[i].min_available));
        int rc = karmada_workload_read(&w, names, rb, tmpl);
        CU_ASSERT_EQUAL(rc, MUSTER_EINVAL);
        CU_ASSERT_EQUAL(w.reason, KARMADA_WORKLOAD_INVALID);
        if (!fx_has(w.message, bad[i].says))
            fprintf(stderr, "\n%zu: %s\n", i, w.message);
        CU_ASSERT(fx_has(w.message, bad[i].says));
        json_object_object_del(task(1), "minAvailable");
    }
    json_object_object_add(task(1), "partitionPolicy", json_object_new_string("two"));
    CU_ASSERT_EQUAL(karmada_workload_read(&w, names, rb, tmpl), MUSTER_EINVAL);
    CU_ASSERT(fx_has(w.message, "spec.tasks[1].partitionPolicy: must be an object"));

    /* a task named like another's partition */
    json_object_object_add(task(1), "partitionPolicy", partition_policy(2, 4, 1));
    json_object_object_add(task(0), "name", json_object_new_string("worker-1"));
    CU_ASSERT_EQUAL(rd(), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(err.reason, KARMADA_WORKLOAD_REFUSED);
    CU_ASSERT(fx_has(err.message, "task worker-1 has the name of a partition of task worker"));
    json_object_object_add(task(0), "name", json_object_new_string("ps"));

    /* the informers' pruned template keeps the policy: the same tree */
    json_object *pruned = karmada_workload_prune_template(tmpl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pruned);
    json_object *pp = NULL;
    CU_ASSERT(json_object_object_get_ex(
        json_object_array_get_idx(
            json_object_object_get(json_object_object_get(pruned, "spec"), "tasks"), 1),
        "partitionPolicy", &pp));
    CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(pp, "minPartitions")), 1);
    json_object_put(pruned);
    unload();
}

static void test_pruned(void)
{
    same_tree_pruned("deployment", "2");
    same_tree_pruned("vcjob-tasks", NULL);
    same_tree_pruned("jobset", NULL);
    same_tree_pruned("lws", NULL);
}

static CU_TestInfo tests[] = {
    {"JobSet: a group per replicated job, a leaf per Job", test_jobset},
    {"LeaderWorkerSet: a group per replica, split when the leader differs", test_lws},
    {"Volcano Job: a leaf per task, the job's minimum on the leaves", test_vcjob},
    {"Volcano Job v1.14: a task's partitions as its groups, minPartitions its minimum",
     test_vcjob_partitions},
    {"group-size: replicas / N leaves, the root's min from min-member", test_group_size},
    {"group-size refusals", test_group_size_refusals},
    {"topology annotations", test_topology},
    {"topology levels", test_levels},
    {"a Cluster's value per level", test_cluster_values},
    {"out of memory at every allocation", test_out_of_memory},
    {"the informers' pruned objects give the same tree", test_pruned},
    {"a read older than its objects", test_stale},
    {"a full resource name table", test_names_full},
    {"the Workload API: a JobSet's Jobs as its pod groups, each template's minCount",
     test_workload_api},
    {"the Workload API: missing, ambiguous or malformed Workloads refused",
     test_workload_api_refusals},
    {"the Workload API fixtures valid against their schemas", test_workload_api_fixtures_valid},
    {"the Workload API: CompositePodGroup templates as levels, minGroupCount their min",
     test_workload_api_composite},
    {"the Workload API: CompositePodGroup templates that cannot be read refused",
     test_workload_api_composite_refusals},
    {"the Workload API: the composite fixture valid, bad composites refused by the schema",
     test_workload_api_composite_schema},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/workload_groups", tests)
