/* Tests for cluster-adapters/karmada/gang_split.c: a JobSet or LeaderWorkerSet placed group by
 * group over several clusters (issue 20). Karmada sends such a kind whole to every cluster
 * (pkg/controllers/binding/common.go ensureWork: no ReviseReplica for either kind), so each
 * cluster's rule of the OverridePolicy is applied to the template here as Karmada applies it
 * (RFC 6902 through the simulator's patch code) and the result checked, group count, offsets and
 * all, against the kind's own CRD; every Work, PodGroup and policy against theirs. */
#include "cluster-adapters/karmada/gang.h"
#include "cluster-adapters/karmada/gang_split.h"

#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/sim/patch.h"
#include "queue/errors.h"
#include "fixtures.h"
#include "testing.h"

#include <stdlib.h>
#include <string.h>

enum { WORK, PODGROUP, COSCHED_PG, POLICY, JOBSET, LWS, NSCHEMAS };
static struct kube_schema *schemas[NSCHEMAS];
static const struct {
    const char *file, *version;
} crds[NSCHEMAS] = {
    {"karmada_work.karmada.io_works.yaml", "v1alpha1"},
    {"volcano_scheduling.volcano.sh_podgroups.yaml", "v1beta1"},
    {"schedulerplugins_scheduling.x-k8s.io_podgroups.yaml", "v1alpha1"},
    {"karmada_policy.karmada.io_overridepolicies.yaml", "v1alpha1"},
    {"jobset_jobset.x-k8s.io_jobsets.yaml", "v1alpha2"},
    {"lws_leaderworkerset.x-k8s.io_leaderworkersets.yaml", "v1"},
};

static void valid_as(int which, json_object *o)
{
    fx_valid_as(&schemas[which], crds[which].file, crds[which].version, o);
}

static struct queue_resnames *names;
static struct karmada_workload w;
static json_object *rb, *tmpl;

/* ---- fixtures and helpers ---- */

/* The JSON text at path, strings unquoted ("<none>" when absent). */
static const char *t_at(json_object *o, const char *path)
{
    json_object *v = fx_at(o, path);
    if (!v)
        return "<none>";
    return json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void load(const char *kind)
{
    char rel[256], path[1024], err[256];
    json_object_put(rb);
    json_object_put(tmpl);
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s-rb.json", kind);
    fx_path(path, sizeof(path), rel);
    rb = json_object_from_file(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s.yaml", kind);
    fx_path(path, sizeof(path), rel);
    json_object *docs = NULL;
    CU_ASSERT_EQUAL_FATAL(kube_yaml_read(path, &docs, err, sizeof(err)), 0);
    tmpl = json_object_get(json_object_array_get_idx(docs, 0));
    json_object_put(docs);
    if (!names) {
        names = queue_resnames_new();
        CU_ASSERT_PTR_NOT_NULL_FATAL(names);
        CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&w), 0);
    }
    int rc = karmada_workload_read(&w, names, rb, tmpl);
    if (rc)
        fprintf(stderr, "\n%s\n", w.message);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static struct karmada_gang_input input(const struct karmada_gang_share *shares, uint32_t n,
                                       const struct karmada_gang_split *split, uint32_t nsets)
{
    struct karmada_gang_input in = {.rb = rb,
                                    .w = &w,
                                    .names = names,
                                    .shares = shares,
                                    .nshares = n,
                                    .pod_scheduler = "volcano",
                                    .tmpl = tmpl,
                                    .split = split,
                                    .nsets = nsets};
    return in;
}

/* The template as Karmada renders it for cluster: every overrider of every rule targeting it
 * (none without a target: a split's rules are all per cluster), applied as one JSON patch. */
static json_object *rendered_for(json_object *policy, const char *cluster)
{
    json_object *rules = fx_at(policy, "spec/overrideRules"), *ops = json_object_new_array();
    for (size_t r = 0; r < json_object_array_length(rules); r++) {
        json_object *rule = json_object_array_get_idx(rules, r);
        CU_ASSERT_PTR_NOT_NULL(fx_at(rule, "targetCluster"));
        CU_ASSERT_EQUAL(json_object_array_length(fx_at(rule, "targetCluster/clusterNames")), 1);
        if (strcmp(t_at(rule, "targetCluster/clusterNames/0"), cluster) != 0)
            continue;
        json_object *plain = fx_at(rule, "overriders/plaintext");
        for (size_t p = 0; p < json_object_array_length(plain); p++) {
            json_object *o = json_object_array_get_idx(plain, p), *op = json_object_new_object();
            json_object_object_add(op, "op", json_object_new_string(t_at(o, "operator")));
            json_object_object_add(op, "path", json_object_new_string(t_at(o, "path")));
            json_object_object_add(op, "value", json_object_get(fx_at(o, "value")));
            json_object_array_add(ops, op);
        }
    }
    json_object *out = NULL;
    char err[256] = "";
    int rc = sim_json_patch(tmpl, ops, &out, err, sizeof(err));
    if (rc)
        fprintf(stderr, "\njson patch: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object_put(ops);
    return out;
}

/* The one manifest of a Work. */
static json_object *manifest(json_object *work)
{
    return fx_at(work, "spec/workload/manifests/0");
}

#define POD0 "spec/replicatedJobs/0/template/spec/template"

/* ---- tests ---- */

/* Issue 20's training job: 4 shards of 8 one-GPU pods, 2 in each cluster. Each cluster's copy
 * runs 2 Jobs, knows its first global shard, and its PodGroup gangs 16 pods as 2 subgroups of
 * 8 told apart by JobSet's job-index label. */
static void test_jobset_two_clusters(void)
{
    load("jobset-shards");
    struct karmada_gang_share shares[] = {{"east", 16}, {"west", 16}};
    struct karmada_gang_split split[] = {{2, 2, 0}, {2, 2, 0}};
    struct karmada_gang_input in = input(shares, 2, split, 1);
    char why[256];
    int rc = karmada_gang_input_check(&in, why, sizeof(why));
    if (rc)
        fprintf(stderr, "\n%s\n", why);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_TRUE(karmada_gang_input_needs_objects(&in));

    json_object *op = karmada_gang_override_policy(&in);
    valid_as(POLICY, op);
    CU_ASSERT_STRING_EQUAL(t_at(op, "metadata/name"), "muster-train-jobset");
    CU_ASSERT_STRING_EQUAL(t_at(op, "spec/resourceSelectors/0/kind"), "JobSet");
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(op, "spec/overrideRules")), 2);
    static const char *const cl[] = {"east", "west"}, *const offset[] = {"0", "2"};
    for (int c = 0; c < 2; c++) {
        json_object *js = rendered_for(op, cl[c]);
        valid_as(JOBSET, js);
        CU_ASSERT_STRING_EQUAL(t_at(js, "spec/replicatedJobs/0/replicas"), "2");
        json_object *ann = fx_at(js, POD0 "/metadata/annotations"), *v = NULL;
        CU_ASSERT_TRUE(json_object_object_get_ex(ann, KARMADA_GANG_GROUP_OFFSET_ANNOTATION, &v));
        CU_ASSERT_STRING_EQUAL(json_object_get_string(v), offset[c]);
        CU_ASSERT_TRUE(json_object_object_get_ex(ann, KARMADA_GANG_GROUP_TOTAL_ANNOTATION, &v));
        CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "4");
        CU_ASSERT_TRUE(json_object_object_get_ex(ann, KARMADA_GANG_GROUP_NAME_ANNOTATION, &v));
        CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "muster-train-jobset");
        CU_ASSERT_STRING_EQUAL(t_at(js, POD0 "/metadata/labels/app"), "train"); /* kept */
        CU_ASSERT_STRING_EQUAL(t_at(js, POD0 "/spec/schedulerName"), "volcano");
        /* the user's pod spec is untouched but for the scheduler */
        CU_ASSERT_STRING_EQUAL(t_at(js, POD0 "/spec/containers/0/name"), "trainer");
        json_object_put(js);

        json_object *work = karmada_gang_podgroup_work(&in, (uint32_t)c);
        valid_as(WORK, work);
        json_object *pg = manifest(work);
        valid_as(PODGROUP, pg);
        char ns[64];
        snprintf(ns, sizeof(ns), "karmada-es-%s", cl[c]);
        CU_ASSERT_STRING_EQUAL(t_at(work, "metadata/namespace"), ns);
        CU_ASSERT_STRING_EQUAL(t_at(pg, "metadata/name"), "muster-train-jobset");
        CU_ASSERT_TRUE(
            json_object_object_get_ex(fx_at(pg, "metadata/labels"), "karmada.io/managed", &v));
        CU_ASSERT_STRING_EQUAL(v ? json_object_get_string(v) : "", "true");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/minMember"), "16");
        json_object *mr = fx_at(pg, "spec/minResources");
        CU_ASSERT_TRUE(json_object_object_get_ex(mr, "nvidia.com/gpu", &v));
        CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "16");
        CU_ASSERT_STRING_EQUAL(t_at(mr, "cpu"), "16");
        CU_ASSERT_STRING_EQUAL(t_at(mr, "memory"), "64Gi");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/queue"), "default");
        CU_ASSERT_EQUAL(json_object_array_length(fx_at(pg, "spec/subGroupPolicy")), 1);
        json_object *sg = fx_at(pg, "spec/subGroupPolicy/0");
        CU_ASSERT_STRING_EQUAL(t_at(sg, "name"), "shard");
        json_object *ml = fx_at(sg, "labelSelector/matchLabels");
        CU_ASSERT_EQUAL(json_object_object_length(ml), 2);
        CU_ASSERT_TRUE(json_object_object_get_ex(ml, KARMADA_JOBSET_NAME_LABEL, &v));
        CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "train");
        CU_ASSERT_TRUE(json_object_object_get_ex(ml, KARMADA_JOBSET_REPLICATED_JOB_LABEL, &v));
        CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "shard");
        CU_ASSERT_STRING_EQUAL(t_at(sg, "matchLabelKeys"), "[\"jobset.sigs.k8s.io/job-index\"]");
        CU_ASSERT_STRING_EQUAL(t_at(sg, "subGroupSize"), "8");
        CU_ASSERT_STRING_EQUAL(t_at(sg, "minSubGroups"), "2");
        json_object_put(work);
    }
    json_object_put(op);
}

/* A JobSet whose replicated jobs land in different clusters: the one a cluster does not run is
 * set to 0 there (JobSet allows it) and its pods are not pointed anywhere; each PodGroup has the
 * subgroups of what runs there only. */
static void test_jobset_sets_apart(void)
{
    load("jobset"); /* workers: 1 Job of 4 pods; driver: 1 Job of 1 pod */
    struct karmada_gang_share shares[] = {{"member1", 1}, {"member2", 4}};
    struct karmada_gang_split split[] = {{0, 0, 0},
                                         {1, 1, 0}, /* member1: the driver */
                                         {1, 1, 0},
                                         {0, 0, 0}}; /* member2: the workers */
    struct karmada_gang_input in = input(shares, 2, split, 2);
    char why[256];
    CU_ASSERT_EQUAL_FATAL(karmada_gang_input_check(&in, why, sizeof(why)), 0);
    json_object *op = karmada_gang_override_policy(&in);
    valid_as(POLICY, op);
    json_object *m1 = rendered_for(op, "member1"), *m2 = rendered_for(op, "member2");
    valid_as(JOBSET, m1);
    valid_as(JOBSET, m2);
    CU_ASSERT_STRING_EQUAL(t_at(m1, "spec/replicatedJobs/0/replicas"), "0");
    CU_ASSERT_STRING_EQUAL(t_at(m1, "spec/replicatedJobs/1/replicas"), "1");
    CU_ASSERT_STRING_EQUAL(t_at(m2, "spec/replicatedJobs/0/replicas"), "1");
    CU_ASSERT_STRING_EQUAL(t_at(m2, "spec/replicatedJobs/1/replicas"), "0");
    /* the template's pods have no metadata: it is added whole */
    CU_ASSERT_STRING_EQUAL(t_at(m1, POD0 "/metadata"), "<none>");
    CU_ASSERT_STRING_EQUAL(
        t_at(m1, "spec/replicatedJobs/1/template/spec/template/spec/schedulerName"), "volcano");
    CU_ASSERT_STRING_EQUAL(t_at(m2, POD0 "/spec/schedulerName"), "volcano");
    CU_ASSERT_STRING_EQUAL(
        t_at(m2, "spec/replicatedJobs/1/template/spec/template/spec/schedulerName"), "<none>");
    json_object_put(m1);
    json_object_put(m2);

    json_object *w1 = karmada_gang_podgroup_work(&in, 0), *w2 = karmada_gang_podgroup_work(&in, 1);
    valid_as(WORK, w1);
    valid_as(PODGROUP, manifest(w1));
    valid_as(PODGROUP, manifest(w2));
    CU_ASSERT_STRING_EQUAL(t_at(manifest(w1), "spec/minMember"), "1");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(w1), "spec/minResources/cpu"), "500m");
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(manifest(w1), "spec/subGroupPolicy")), 1);
    CU_ASSERT_STRING_EQUAL(t_at(manifest(w1), "spec/subGroupPolicy/0/name"), "driver");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(w1), "spec/subGroupPolicy/0/subGroupSize"), "1");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(w2), "spec/minMember"), "4");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(w2), "spec/minResources/cpu"), "4");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(w2), "spec/subGroupPolicy/0/name"), "workers");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(w2), "spec/subGroupPolicy/0/subGroupSize"), "4");
    json_object_put(w1);
    json_object_put(w2);
    json_object_put(op);
}

static void node(struct karmada_group *g, uint32_t at, const char *name, int32_t parent,
                 uint32_t pods);

/* The string at key of the object at path (keys with '/' cannot be a path step). */
static const char *key_at(json_object *o, const char *path, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(fx_at(o, path), key, &v))
        return "<none>";
    return json_object_get_string(v);
}

/* A JobSet of two replicated jobs, each split over both clusters (issue 20): 4 shards of 8 and
 * 2 evaluators of 4 go 2 + 1 to each. Each cluster's copy runs 2 shards and 1 evaluator, each
 * replicated job with its own offset and total; each PodGroup gangs all 20 pods as one
 * subgroup per replicated job. The tree's placement gives the same cells. */
static void test_jobset_sets_split(void)
{
    load("jobset-sets");
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SPREAD);
    struct karmada_gang_share shares[] = {{"east", 20}, {"west", 20}};
    struct karmada_gang_split split[] = {{2, 2, 0}, {1, 1, 0}, {2, 2, 0}, {1, 1, 0}};
    struct karmada_gang_input in = input(shares, 2, split, 2);
    char why[256];
    int rc = karmada_gang_input_check(&in, why, sizeof(why));
    if (rc)
        fprintf(stderr, "\n%s\n", why);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object *op = karmada_gang_override_policy(&in);
    valid_as(POLICY, op);
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(op, "spec/overrideRules")), 2);
    static const char *const cl[] = {"east", "west"}, *const soff[] = {"0", "2"},
                             *const eoff[] = {"0", "1"};
#define POD1 "spec/replicatedJobs/1/template/spec/template"
    for (int c = 0; c < 2; c++) {
        json_object *js = rendered_for(op, cl[c]);
        valid_as(JOBSET, js);
        CU_ASSERT_STRING_EQUAL(t_at(js, "spec/replicatedJobs/0/replicas"), "2");
        CU_ASSERT_STRING_EQUAL(t_at(js, "spec/replicatedJobs/1/replicas"), "1");
        CU_ASSERT_STRING_EQUAL(
            key_at(js, POD0 "/metadata/annotations", KARMADA_GANG_GROUP_OFFSET_ANNOTATION), soff[c]);
        CU_ASSERT_STRING_EQUAL(
            key_at(js, POD0 "/metadata/annotations", KARMADA_GANG_GROUP_TOTAL_ANNOTATION), "4");
        CU_ASSERT_STRING_EQUAL(
            key_at(js, POD1 "/metadata/annotations", KARMADA_GANG_GROUP_OFFSET_ANNOTATION), eoff[c]);
        CU_ASSERT_STRING_EQUAL(
            key_at(js, POD1 "/metadata/annotations", KARMADA_GANG_GROUP_TOTAL_ANNOTATION), "2");
        CU_ASSERT_STRING_EQUAL(
            key_at(js, POD1 "/metadata/annotations", KARMADA_GANG_GROUP_NAME_ANNOTATION),
            "muster-sets-jobset");
        CU_ASSERT_STRING_EQUAL(t_at(js, POD0 "/metadata/labels/app"), "train"); /* kept */
        CU_ASSERT_STRING_EQUAL(t_at(js, POD1 "/spec/schedulerName"), "volcano");
        json_object_put(js);

        json_object *work = karmada_gang_podgroup_work(&in, (uint32_t)c);
        valid_as(WORK, work);
        json_object *pg = manifest(work);
        valid_as(PODGROUP, pg);
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/minMember"), "20");
        CU_ASSERT_STRING_EQUAL(key_at(pg, "spec/minResources", "nvidia.com/gpu"), "20");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/minResources/cpu"), "18"); /* 16 x 1 + 4 x 500m */
        CU_ASSERT_EQUAL(json_object_array_length(fx_at(pg, "spec/subGroupPolicy")), 2);
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/0/name"), "shard");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/0/subGroupSize"), "8");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/0/minSubGroups"), "2");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/1/name"), "eval");
        CU_ASSERT_STRING_EQUAL(
            key_at(pg, "spec/subGroupPolicy/1/labelSelector/matchLabels",
                   KARMADA_JOBSET_REPLICATED_JOB_LABEL),
            "eval");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/1/subGroupSize"), "4");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/1/minSubGroups"), "1");
        json_object_put(work);
    }
#undef POD1
    json_object_put(op);

    /* the cells from a placement of the tree: shard-0, -1 and eval-0 east, the rest west */
    struct karmada_group g[9];
    node(g, 0, "sets", -1, 0);
    node(g, 1, "shard", 0, 0);
    for (uint32_t j = 0; j < 4; j++) {
        char nm[16];
        snprintf(nm, sizeof(nm), "shard-%u", j);
        node(g, 2 + j, nm, 1, 8);
    }
    node(g, 6, "eval", 0, 0);
    node(g, 7, "eval-0", 6, 4);
    node(g, 8, "eval-1", 6, 4);
    struct karmada_group_tree t = {.g = g, .n = 9};
    int32_t share_of[9] = {-1, -1, 0, 0, 1, 1, -1, 0, 1};
    struct karmada_gang_split got[4];
    int32_t replicas[2];
    CU_ASSERT_EQUAL_FATAL(
        karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, got, 2, replicas), 0);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(got[i].groups, split[i].groups);
        CU_ASSERT_EQUAL(got[i].min_groups, split[i].min_groups);
    }
    CU_ASSERT_EQUAL(replicas[0], 20);
    CU_ASSERT_EQUAL(replicas[1], 20);
    /* a count that does not match a share's replicas is refused */
    struct karmada_gang_split off[] = {{3, 3, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}};
    in = input(shares, 2, off, 2);
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "cluster east: a share of 20 replicas, its groups have 28"));
}

/* The same JobSet structured by the Workload API (jobset-workload.yaml, issue 20): each Job is
 * one PodGroup of its replicated job's template, a shard's a gang of 6 of its 8 pods, an
 * evaluator's of 3 of its 4. The tree's leaves carry those minimums into the cells, and each
 * cluster's PodGroup, valid against Volcano's CRD, holds its groups at them: subgroups of 6 and 3,
 * minMember 2 x 6 + 3 and those pods' requests. */
static void test_jobset_workload_split(void)
{
    load("jobset-workload");
    struct karmada_group g[9];
    node(g, 0, "Workload/wlsets-wl", -1, 0);
    node(g, 1, "shard", 0, 0);
    for (uint32_t j = 0; j < 4; j++) {
        char nm[16];
        snprintf(nm, sizeof(nm), "shard-%u", j);
        node(g, 2 + j, nm, 1, 8);
        g[2 + j].min_count = 6;
    }
    node(g, 6, "eval", 0, 0);
    node(g, 7, "eval-0", 6, 4);
    node(g, 8, "eval-1", 6, 4);
    g[7].min_count = g[8].min_count = 3;
    struct karmada_group_tree t = {.g = g, .n = 9};
    int32_t share_of[9] = {-1, -1, 0, 0, 1, 1, -1, 0, 1};
    struct karmada_gang_split split[4];
    int32_t replicas[2];
    CU_ASSERT_EQUAL_FATAL(
        karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 2, replicas), 0);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(split[i].groups, i % 2 ? 1 : 2);
        CU_ASSERT_EQUAL(split[i].min_groups, split[i].groups);
        CU_ASSERT_EQUAL(split[i].group_min, i % 2 ? 3 : 6);
    }
    struct karmada_gang_share shares[] = {{"east", replicas[0]}, {"west", replicas[1]}};
    CU_ASSERT_EQUAL(replicas[0], 20); /* every pod runs: the minimum is the gang's, not the share */
    struct karmada_gang_input in = input(shares, 2, split, 2);
    char why[256];
    int rc = karmada_gang_input_check(&in, why, sizeof(why));
    if (rc)
        fprintf(stderr, "\n%s\n", why);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    for (uint32_t c = 0; c < 2; c++) {
        json_object *work = karmada_gang_podgroup_work(&in, c);
        valid_as(WORK, work);
        json_object *pg = manifest(work);
        valid_as(PODGROUP, pg);
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/minMember"), "15");
        CU_ASSERT_STRING_EQUAL(key_at(pg, "spec/minResources", "nvidia.com/gpu"), "15");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/0/name"), "shard");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/0/subGroupSize"), "6");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/0/minSubGroups"), "2");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/1/name"), "eval");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/1/subGroupSize"), "3");
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/subGroupPolicy/1/minSubGroups"), "1");
        json_object_put(work);
    }
}

/* A JobSet at fewer Jobs (issue 20, docs/composite.md): jobset-workload under a Workload of
 * composites ("training" over the shards, "evaluation" over the evaluators), admitted at 3 of
 * its 4 shards and both evaluators over two clusters (shard-3 left out), then at 3 shards and 1
 * evaluator in one cluster. Each copy's replicated jobs count only its Jobs, the offsets run
 * over the Jobs admitted and the totals count them; every object validates against its CRD. */
static void fewer_jobs_case(const int32_t *share_of, uint32_t nsh, const char *const *cl,
                            const char *const (*want)[4])
{
    struct karmada_group g[9];
    node(g, 0, "Workload/wlsets-wl", -1, 0);
    node(g, 1, "training", 0, 0);
    node(g, 2, "evaluation", 0, 0);
    g[1].min_count = 3;
    g[2].min_count = 1;
    for (uint32_t j = 0; j < 4; j++) {
        char nm[16];
        snprintf(nm, sizeof(nm), "shard-%u", j);
        node(g, 3 + j, nm, 1, 8);
        g[3 + j].min_count = 6;
    }
    node(g, 7, "eval-0", 2, 4);
    node(g, 8, "eval-1", 2, 4);
    g[7].min_count = g[8].min_count = 3;
    struct karmada_group_tree t = {.g = g, .n = 9};
    struct karmada_gang_split split[4];
    int32_t replicas[2];
    CU_ASSERT_EQUAL_FATAL(
        karmada_gang_split_from_tree(&w, tmpl, &t, share_of, nsh, split, 2, replicas), 0);
    struct karmada_gang_share shares[2];
    for (uint32_t c = 0; c < nsh; c++)
        shares[c] = (struct karmada_gang_share){cl[c], replicas[c]};
    struct karmada_gang_input in = input(shares, nsh, split, 2);
    char why[256];
    int rc = karmada_gang_input_check(&in, why, sizeof(why));
    if (rc)
        fprintf(stderr, "\n%s\n", why);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    for (uint32_t c = 0; c < nsh; c++) {
        json_object *js = rendered_for(op, cl[c]);
        valid_as(JOBSET, js);
        /* want[c]: shard replicas, eval replicas, shard offset/total, eval offset/total */
        CU_ASSERT_STRING_EQUAL(t_at(js, "spec/replicatedJobs/0/replicas"), want[c][0]);
        CU_ASSERT_STRING_EQUAL(t_at(js, "spec/replicatedJobs/1/replicas"), want[c][1]);
        char ot[32];
        snprintf(ot, sizeof(ot), "%s/%s",
                 key_at(js, POD0 "/metadata/annotations", KARMADA_GANG_GROUP_OFFSET_ANNOTATION),
                 key_at(js, POD0 "/metadata/annotations", KARMADA_GANG_GROUP_TOTAL_ANNOTATION));
        CU_ASSERT_STRING_EQUAL(ot, want[c][2]);
        snprintf(ot, sizeof(ot), "%s/%s",
                 key_at(js, "spec/replicatedJobs/1/template/spec/template/metadata/annotations",
                        KARMADA_GANG_GROUP_OFFSET_ANNOTATION),
                 key_at(js, "spec/replicatedJobs/1/template/spec/template/metadata/annotations",
                        KARMADA_GANG_GROUP_TOTAL_ANNOTATION));
        CU_ASSERT_STRING_EQUAL(ot, want[c][3]);
        json_object_put(js);
        json_object *work = karmada_gang_podgroup_work(&in, c);
        valid_as(WORK, work);
        json_object *pg = manifest(work);
        valid_as(PODGROUP, pg);
        char mm[16];
        long shards = strtol(want[c][0], NULL, 10), evals = strtol(want[c][1], NULL, 10);
        snprintf(mm, sizeof(mm), "%ld", shards * 6 + evals * 3);
        CU_ASSERT_STRING_EQUAL(t_at(pg, "spec/minMember"), mm);
        json_object_put(work);
    }
    json_object_put(op);
}

static void test_jobset_fewer_jobs(void)
{
    load("jobset-workload");
    /* shard-0, shard-1, eval-0 east; shard-2, eval-1 west; shard-3 nowhere */
    static const int32_t two[9] = {-1, -1, -1, 0, 0, 1, -1, 0, 1};
    static const char *const cl2[] = {"east", "west"};
    static const char *const want2[2][4] = {{"2", "1", "0/3", "0/2"}, {"1", "1", "2/3", "1/2"}};
    fewer_jobs_case(two, 2, cl2, want2);
    /* all in one cluster (no spread): 3 shards, 1 evaluator */
    static const int32_t one[9] = {-1, -1, -1, 0, 0, 0, -1, 0, -1};
    static const char *const cl1[] = {"east"};
    static const char *const want1[1][4] = {{"3", "1", "0/3", "0/1"}};
    fewer_jobs_case(one, 1, cl1, want1);
}

/* A LeaderWorkerSet of 3 groups of 4 (leader + 3 workers, 50m each): 2 groups in east, 1 in
 * west; east's gang needs only 1 group of at least 3 pods. */
static void test_lws(void)
{
    load("lws");
    struct karmada_gang_share shares[] = {{"east", 8}, {"west", 4}};
    struct karmada_gang_split split[] = {{2, 1, 3}, {1, 1, 0}};
    struct karmada_gang_input in = input(shares, 2, split, 1);
    char why[256];
    CU_ASSERT_EQUAL_FATAL(karmada_gang_input_check(&in, why, sizeof(why)), 0);
    json_object *op = karmada_gang_override_policy(&in);
    valid_as(POLICY, op);
    static const char *const cl[] = {"east", "west"}, *const count[] = {"2", "1"},
                             *const offset[] = {"0", "2"};
    for (int c = 0; c < 2; c++) {
        json_object *lws = rendered_for(op, cl[c]);
        valid_as(LWS, lws);
        CU_ASSERT_STRING_EQUAL(t_at(lws, "spec/replicas"), count[c]);
        CU_ASSERT_STRING_EQUAL(t_at(lws, "spec/leaderWorkerTemplate/size"), "4");
        static const char *const tp[] = {"spec/leaderWorkerTemplate/leaderTemplate",
                                         "spec/leaderWorkerTemplate/workerTemplate"};
        for (int p = 0; p < 2; p++) {
            char path[128];
            snprintf(path, sizeof(path), "%s/metadata/annotations", tp[p]);
            json_object *ann = fx_at(lws, path), *v = NULL;
            CU_ASSERT_TRUE(
                json_object_object_get_ex(ann, KARMADA_GANG_GROUP_OFFSET_ANNOTATION, &v));
            CU_ASSERT_STRING_EQUAL(v ? json_object_get_string(v) : "", offset[c]);
            CU_ASSERT_TRUE(json_object_object_get_ex(ann, KARMADA_GANG_GROUP_TOTAL_ANNOTATION, &v));
            CU_ASSERT_STRING_EQUAL(v ? json_object_get_string(v) : "", "3");
            snprintf(path, sizeof(path), "%s/spec/schedulerName", tp[p]);
            CU_ASSERT_STRING_EQUAL(t_at(lws, path), "volcano");
        }
        json_object_put(lws);
    }
    json_object *e = karmada_gang_podgroup_work(&in, 0), *wst = karmada_gang_podgroup_work(&in, 1);
    valid_as(WORK, e);
    valid_as(PODGROUP, manifest(e));
    valid_as(PODGROUP, manifest(wst));
    /* 1 group of 3 pods: the leader and 2 workers */
    CU_ASSERT_STRING_EQUAL(t_at(manifest(e), "spec/minMember"), "3");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(e), "spec/minResources/cpu"), "150m");
    json_object *sg = fx_at(manifest(e), "spec/subGroupPolicy/0"), *v = NULL;
    CU_ASSERT_STRING_EQUAL(t_at(sg, "name"), KARMADA_GANG_LWS_SET_NAME);
    CU_ASSERT_TRUE(json_object_object_get_ex(fx_at(sg, "labelSelector/matchLabels"),
                                             KARMADA_LWS_NAME_LABEL, &v));
    CU_ASSERT_STRING_EQUAL(v ? json_object_get_string(v) : "", "leaderworkerset-multi-template");
    CU_ASSERT_STRING_EQUAL(t_at(sg, "matchLabelKeys"),
                           "[\"leaderworkerset.sigs.k8s.io/group-index\"]");
    CU_ASSERT_STRING_EQUAL(t_at(sg, "subGroupSize"), "3");
    CU_ASSERT_STRING_EQUAL(t_at(sg, "minSubGroups"), "1");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(wst), "spec/minMember"), "4");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(wst), "spec/minResources/cpu"), "200m");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(wst), "spec/subGroupPolicy/0/subGroupSize"), "4");
    json_object_put(e);
    json_object_put(wst);
    json_object_put(op);
}

/* A coscheduling member gets a PodGroup without subgroups (its type has none) and the pod-group
 * label; a member of no gang dialect gets its count and offsets only, and no Work. */
static void test_dialects(void)
{
    load("jobset-shards");
    struct karmada_gang_share shares[] = {{"east", 24}, {"west", 8}};
    struct karmada_gang_split split[] = {{3, 3, 0}, {1, 1, 0}};
    enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_COSCHEDULING, KARMADA_GANG_DIALECT_NONE};
    struct karmada_gang_input in = input(shares, 2, split, 1);
    in.dialects = d;
    in.gang_timeout_s = 300;
    CU_ASSERT_EQUAL_FATAL(karmada_gang_input_check(&in, NULL, 0), 0);
    json_object *work = karmada_gang_podgroup_work(&in, 0);
    valid_as(WORK, work);
    valid_as(COSCHED_PG, manifest(work));
    CU_ASSERT_STRING_EQUAL(t_at(manifest(work), "apiVersion"), "scheduling.x-k8s.io/v1alpha1");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(work), "spec/minMember"), "24");
    CU_ASSERT_STRING_EQUAL(t_at(manifest(work), "spec/scheduleTimeoutSeconds"), "300");
    CU_ASSERT_PTR_NULL(fx_at(manifest(work), "spec/subGroupPolicy"));
    CU_ASSERT_PTR_NULL(fx_at(manifest(work), "spec/queue"));
    json_object_put(work);
    CU_ASSERT_FALSE(karmada_gang_share_has_work(&in, 1));
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 1));

    json_object *op = karmada_gang_override_policy(&in);
    valid_as(POLICY, op);
    json_object *east = rendered_for(op, "east"), *west = rendered_for(op, "west");
    valid_as(JOBSET, east);
    valid_as(JOBSET, west);
    CU_ASSERT_STRING_EQUAL(t_at(east, "spec/replicatedJobs/0/replicas"), "3");
    json_object *v = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(fx_at(east, POD0 "/metadata/labels"),
                                             "scheduling.x-k8s.io/pod-group", &v));
    CU_ASSERT_STRING_EQUAL(v ? json_object_get_string(v) : "", "muster-train-jobset");
    CU_ASSERT_STRING_EQUAL(t_at(east, POD0 "/spec/schedulerName"), "<none>");
    CU_ASSERT_STRING_EQUAL(t_at(west, "spec/replicatedJobs/0/replicas"), "1");
    json_object *ann = fx_at(west, POD0 "/metadata/annotations");
    CU_ASSERT_TRUE(json_object_object_get_ex(ann, KARMADA_GANG_GROUP_OFFSET_ANNOTATION, &v));
    CU_ASSERT_STRING_EQUAL(v ? json_object_get_string(v) : "", "3");
    CU_ASSERT_FALSE(json_object_object_get_ex(ann, KARMADA_GANG_GROUP_NAME_ANNOTATION, NULL));
    CU_ASSERT_STRING_EQUAL(t_at(west, POD0 "/spec/schedulerName"), "<none>");
    CU_ASSERT_EQUAL(json_object_object_length(fx_at(west, POD0 "/metadata/labels")), 1);
    json_object_put(east);
    json_object_put(west);
    json_object_put(op);
}

/* Without a split nothing changes: these kinds go whole to one cluster and get no objects. */
static void test_no_split(void)
{
    load("jobset-shards");
    struct karmada_gang_share one[] = {{"east", 32}};
    struct karmada_gang_input in = input(one, 1, NULL, 0);
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, NULL, 0), 0);
    CU_ASSERT_FALSE(karmada_gang_input_needs_objects(&in));
    CU_ASSERT_PTR_NULL(karmada_gang_override_policy(&in));
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 0));
    struct karmada_gang_set sets[4];
    uint32_t n = 0;
    CU_ASSERT_EQUAL(karmada_gang_split_sets(&w, tmpl, sets, 4, &n), 0);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(sets[0].name, "shard");
    CU_ASSERT_EQUAL(sets[0].groups, 4);
    CU_ASSERT_EQUAL(sets[0].group_pods, 8);
    CU_ASSERT_EQUAL(karmada_gang_split_sets(&w, tmpl, sets, 0, &n), MUSTER_ENOSPC);
}

/* A group of tree t (stack-held: no pod vectors, nothing to close). */
static void node(struct karmada_group *g, uint32_t at, const char *name, int32_t parent,
                 uint32_t pods)
{
    memset(&g[at], 0, sizeof(g[at]));
    snprintf(g[at].name, sizeof(g[at].name), "%s", name);
    g[at].parent = parent;
    g[at].pods = pods;
    g[at].min_count = pods;
    g[at].indivisible = 1;
}

/* A composite placement of the JobSet's tree (root, the replicated job, a leaf per Job) gives the
 * split and the shares' replicas that pass the check and build east's 2 shards. */
static void test_from_tree_jobset(void)
{
    load("jobset-shards");
    struct karmada_group g[6];
    node(g, 0, "train", -1, 0);
    node(g, 1, "shard", 0, 0);
    for (uint32_t j = 0; j < 4; j++) {
        char nm[16];
        snprintf(nm, sizeof(nm), "shard-%u", j);
        node(g, 2 + j, nm, 1, 8);
    }
    struct karmada_group_tree t = {.g = g, .n = 6};
    int32_t share_of[6] = {-1, -1, 1, 0, 1, 0}; /* shard-1 and -3 in share 0 */
    struct karmada_gang_split split[2];
    int32_t replicas[2];
    CU_ASSERT_EQUAL_FATAL(
        karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas), 0);
    CU_ASSERT_EQUAL(split[0].groups, 2);
    CU_ASSERT_EQUAL(split[0].min_groups, 2);
    CU_ASSERT_EQUAL(split[0].group_min, 0);
    CU_ASSERT_EQUAL(split[1].groups, 2);
    CU_ASSERT_EQUAL(replicas[0], 16);
    CU_ASSERT_EQUAL(replicas[1], 16);
    struct karmada_gang_share shares[] = {{"east", replicas[0]}, {"west", replicas[1]}};
    struct karmada_gang_input in = input(shares, 2, split, 1);
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, NULL, 0), 0);
    /* one shard not placed (a tree whose minCount lets it out): 3 run */
    share_of[5] = -1;
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas), 0);
    CU_ASSERT_EQUAL(split[0].groups, 1);
    CU_ASSERT_EQUAL(replicas[0], 8);
    /* faults: a share out of range, a leaf of another size, a replicated job the template lacks */
    share_of[5] = 2;
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas),
                    MUSTER_EINVAL);
    share_of[5] = 0;
    g[5].pods = 7;
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas),
                    MUSTER_EINVAL);
    g[5].pods = 8;
    /* under a CompositePodGroup template's group (not a replicated job's name): each Job's own
     * name says its replicated job */
    snprintf(g[1].name, sizeof(g[1].name), "other");
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas), 0);
    CU_ASSERT_EQUAL(split[0].groups, 2);
    CU_ASSERT_EQUAL(replicas[1], 16);
    /* a Job named after neither */
    snprintf(g[3].name, sizeof(g[3].name), "other-1");
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas),
                    MUSTER_EINVAL);
    snprintf(g[3].name, sizeof(g[3].name), "shard-x");
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas),
                    MUSTER_EINVAL);
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 2, replicas),
                    MUSTER_EINVAL);
}

/* A LeaderWorkerSet's groups: a group of a leader leaf and a workers leaf goes where its leaves
 * go, together or not at all. */
static void test_from_tree_lws(void)
{
    load("lws"); /* 3 groups of 4 */
    struct karmada_group g[10];
    node(g, 0, "lws", -1, 0);
    for (uint32_t i = 0; i < 3; i++) {
        char nm[32];
        snprintf(nm, sizeof(nm), "group-%u", i);
        node(g, 1 + 3 * i, nm, 0, 0);
        snprintf(nm, sizeof(nm), "group-%u-leader", i);
        node(g, 2 + 3 * i, nm, (int32_t)(1 + 3 * i), 1);
        snprintf(nm, sizeof(nm), "group-%u-workers", i);
        node(g, 3 + 3 * i, nm, (int32_t)(1 + 3 * i), 3);
    }
    struct karmada_group_tree t = {.g = g, .n = 10};
    int32_t share_of[10] = {-1, -1, 1, 1, -1, 0, 0, -1, 1, 1};
    struct karmada_gang_split split[2];
    int32_t replicas[2];
    CU_ASSERT_EQUAL_FATAL(
        karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas), 0);
    CU_ASSERT_EQUAL(split[0].groups, 1);
    CU_ASSERT_EQUAL(split[1].groups, 2);
    CU_ASSERT_EQUAL(replicas[0], 4);
    CU_ASSERT_EQUAL(replicas[1], 8);
    share_of[6] = 1; /* group-1's workers away from its leader */
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, split, 1, replicas),
                    MUSTER_EINVAL);
    /* groups as single leaves of size pods */
    struct karmada_group h[4];
    node(h, 0, "lws", -1, 0);
    node(h, 1, "group-0", 0, 4);
    node(h, 2, "group-1", 0, 4);
    node(h, 3, "group-2", 0, 4);
    struct karmada_group_tree u = {.g = h, .n = 4};
    int32_t of[4] = {-1, 0, -1, 0};
    CU_ASSERT_EQUAL(karmada_gang_split_from_tree(&w, tmpl, &u, of, 2, split, 1, replicas), 0);
    CU_ASSERT_EQUAL(split[0].groups, 2);
    CU_ASSERT_EQUAL(split[1].groups, 0);
    CU_ASSERT_EQUAL(replicas[0], 8);
}

/* Each fault of a split is refused with a sentence naming it. */
static void test_check(void)
{
    load("jobset-shards");
    static const struct {
        struct karmada_gang_split a, b;
        int32_t ra, rb;
        uint32_t nsets;
        enum karmada_gang_dialect db;
        const char *says;
    } cases[] = {
        {{3, 3, 0}, {2, 2, 0}, 24, 16, 1, 0, "5 of shard's groups are placed, the template has 4"},
        {{2, 2, 0}, {2, 2, 0}, 16, 12, 1, 0, "cluster west: a share of 12 replicas, its groups"},
        {{2, 3, 0}, {2, 2, 0}, 16, 16, 1, 0, "cluster east: 3 of shard's groups must run but 2"},
        {{2, 2, 9}, {2, 2, 0}, 16, 16, 1, 0, "shard: 9 pods of a group must run, a group has 8"},
        {{2, 2, 0}, {0, 0, 0}, 16, 1, 1, 0, "cluster west runs no group"},
        {{2, 2, 0}, {2, 2, 0}, 16, 16, 2, 0, "the split has 2 sets of groups, the template 1"},
        {{2, 2, 0}, {2, 2, 0}, 16, 16, 1, KARMADA_GANG_DIALECT_YUNIKORN, "speaks yunikorn"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct karmada_gang_share shares[] = {{"east", cases[k].ra}, {"west", cases[k].rb}};
        struct karmada_gang_split split[4] = {cases[k].a, cases[k].b, cases[k].b, cases[k].b};
        enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_VOLCANO, cases[k].db};
        struct karmada_gang_input in = input(shares, 2, split, cases[k].nsets);
        in.dialects = d;
        char why[256] = "";
        CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), MUSTER_EINVAL);
        if (!strstr(why, cases[k].says))
            fprintf(stderr, "\ncase %zu: \"%s\" lacks \"%s\"", k, why, cases[k].says);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, cases[k].says));
        CU_ASSERT_PTR_NULL(karmada_gang_override_policy(&in));
        CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 0));
    }
    /* a Deployment is divided by Karmada itself: no split by groups */
    load("deployment");
    struct karmada_gang_share shares[] = {{"east", 2}, {"west", 2}};
    struct karmada_gang_split split[] = {{1, 1, 0}, {1, 1, 0}};
    struct karmada_gang_input in = input(shares, 2, split, 1);
    char why[256] = "";
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "JobSets and LeaderWorkerSets only"));
}

static void test_cleanup(void)
{
    for (int i = 0; i < NSCHEMAS; i++) {
        kube_schema_free(schemas[i]);
        schemas[i] = NULL;
    }
    json_object_put(rb);
    json_object_put(tmpl);
    rb = tmpl = NULL;
    karmada_workload_close(&w);
    queue_resnames_free(names);
    names = NULL;
}

static CU_TestInfo tests[] = {
    {"a JobSet at fewer Jobs: its objects count only the Jobs admitted", test_jobset_fewer_jobs},
    {"JobSet: 2 shards per cluster, counts, offsets, PodGroup subgroups", test_jobset_two_clusters},
    {"JobSet: replicated jobs in different clusters (0 elsewhere)", test_jobset_sets_apart},
    {"JobSet: two replicated jobs each split over both clusters", test_jobset_sets_split},
    {"JobSet structured by a Workload: each PodGroup at the templates' minCounts",
     test_jobset_workload_split},
    {"LeaderWorkerSet: groups per cluster, a partial minimum", test_lws},
    {"coscheduling and no-gang members", test_dialects},
    {"no split: today's whole-to-one-cluster", test_no_split},
    {"faults refused with a reason", test_check},
    {"a composite placement of a JobSet's tree as the split", test_from_tree_jobset},
    {"a composite placement of a LeaderWorkerSet's tree as the split", test_from_tree_lws},
    {"cleanup", test_cleanup},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/gang_split", tests)
