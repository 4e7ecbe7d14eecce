/* Tests for cluster-adapters/karmada/gang.c: the commit protocol's objects built from the
 * detector-shaped RB + template fixtures (tests/fixtures/workloads/), every Work, PodGroup and
 * OverridePolicy checked against its reference CRD, the overriders applied to the template the way
 * the hub applies them (RFC 6902), and every RB patch merged onto the RB (RFC 7386) and the result
 * checked against the ResourceBinding CRD. */
#include "cluster-adapters/karmada/gang.h"
#include "cluster-adapters/karmada/workload_prune.h"

#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/karmada/patch.h"
#include "queue/errors.h"
#include "queue/mem.h"
#include "fixtures.h"
#include "testing.h"

#include <regex.h>
#include <string.h>

/* The patch builders return 0 or a MUSTER_* code with the patch in an out parameter; the tests
 * read the patch, NULL when the builder failed. */
static json_object *built_;
#define PATCH(f, ...) (built_ = NULL, f(__VA_ARGS__, &built_) ? NULL : built_)
#define PATCH0(f) (built_ = NULL, f(&built_) ? NULL : built_)

enum { RB, WORK, PODGROUP, POLICY, NSCHEMAS };
static struct kube_schema *schemas[NSCHEMAS];
static const struct {
    const char *file, *version;
} crds[NSCHEMAS] = {
    {"karmada_work.karmada.io_resourcebindings.yaml", "v1alpha2"},
    {"karmada_work.karmada.io_works.yaml", "v1alpha1"},
    {"volcano_scheduling.volcano.sh_podgroups.yaml", "v1beta1"},
    {"karmada_policy.karmada.io_overridepolicies.yaml", "v1alpha1"},
};

static void valid_as(int which, json_object *o)
{
    fx_valid_as(&schemas[which], crds[which].file, crds[which].version, o);
}

static struct queue_resnames *names;
static struct karmada_workload w;
static json_object *rb, *tmpl;

/* ---- fixtures and helpers ---- */

/* A Work and the PodGroup it carries, each against its CRD. */
static void valid_work(json_object *work)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(work);
    valid_as(WORK, work);
    json_object *m = NULL, *spec = NULL, *wl = NULL;
    CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(work, "spec", &spec) &&
                         json_object_object_get_ex(spec, "workload", &wl) &&
                         json_object_object_get_ex(wl, "manifests", &m));
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(m), 1);
    valid_as(PODGROUP, json_object_array_get_idx(m, 0));
}

static const char *s_at(json_object *o, const char *path)
{
    json_object *v = fx_at(o, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "<none>";
}

static void equal_json(json_object *got, const char *want_text)
{
    json_object *want = json_tokener_parse(want_text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    int eq = json_object_equal(got, want);
    if (!eq)
        fprintf(stderr, "\n got: %s\nwant: %s\n",
                json_object_to_json_string_ext(got, JSON_C_TO_STRING_PLAIN |
                                                        JSON_C_TO_STRING_NOSLASHESCAPE),
                json_object_to_json_string_ext(want, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    CU_ASSERT_TRUE(eq);
    json_object_put(want);
}

static void reread(void);

/* Reads fixture pair `kind` into rb, tmpl and w. */
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
    reread();
}

static void reread(void)
{
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

static struct karmada_gang_input input(const struct karmada_gang_share *shares, uint32_t n)
{
    struct karmada_gang_input in = {.rb = rb,
                                    .w = &w,
                                    .names = names,
                                    .shares = shares,
                                    .nshares = n,
                                    .pod_scheduler = "volcano",
                                    .tmpl = tmpl};
    return in;
}

static json_object *merged(json_object *target, json_object *patch)
{
    json_object *out = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(patch);
    CU_ASSERT_EQUAL_FATAL(sim_merge_patch(target, patch, &out), 0);
    return out;
}

/* Applies the plaintext overriders of the policy's rule for cluster to tmpl, as Karmada (and
 * the sim's binding controller) does, and returns the overridden template. */
static json_object *overridden(json_object *policy, const char *cluster)
{
    json_object *rules = fx_at(policy, "spec/overrideRules"), *ops = json_object_new_array();
    for (size_t r = 0; r < json_object_array_length(rules); r++) {
        json_object *rule = json_object_array_get_idx(rules, r);
        if (fx_at(rule, "targetCluster") &&
            strcmp(s_at(rule, "targetCluster/clusterNames/0"), cluster) != 0)
            continue;
        json_object *plain = fx_at(rule, "overriders/plaintext");
        for (size_t p = 0; p < json_object_array_length(plain); p++) {
            json_object *o = json_object_array_get_idx(plain, p), *op = json_object_new_object();
            json_object_object_add(op, "op", json_object_new_string(s_at(o, "operator")));
            json_object_object_add(op, "path", json_object_new_string(s_at(o, "path")));
            json_object_object_add(op, "value", json_object_get(fx_at(o, "value")));
            json_object_array_add(ops, op);
        }
    }
    CU_ASSERT_EQUAL(json_object_array_length(ops), 2);
    json_object *out = NULL;
    char err[256] = "";
    int rc = sim_json_patch(tmpl, ops, &out, err, sizeof(err));
    if (rc)
        fprintf(stderr, "\njson patch: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object_put(ops);
    return out;
}

static int dns_subdomain(const char *s)
{
    regex_t re;
    CU_ASSERT_EQUAL_FATAL(
        regcomp(&re, "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
                REG_EXTENDED | REG_NOSUB),
        0);
    int ok = regexec(&re, s, 0, NULL, 0) == 0 && strlen(s) <= 253;
    regfree(&re);
    return ok;
}

/* ---- names ---- */

static void test_names(void)
{
    char a[KARMADA_GANG_NAME_MAX + 1], b[KARMADA_GANG_NAME_MAX + 1];
    CU_ASSERT_EQUAL(karmada_gang_podgroup_name("web-deployment", a, sizeof(a)), 0);
    CU_ASSERT_STRING_EQUAL(a, "muster-web-deployment");
    CU_ASSERT_EQUAL(karmada_gang_policy_name("web-deployment", a, sizeof(a)), 0);
    CU_ASSERT_STRING_EQUAL(a, "muster-web-deployment");
    CU_ASSERT_EQUAL(karmada_gang_work_name("team-a", "web-deployment", a, sizeof(a)), 0);
    CU_ASSERT_STRING_EQUAL(a, "muster-pg-team-a.web-deployment");
    /* Same RB name in two namespaces: two Works in the same karmada-es-<cluster>. */
    CU_ASSERT_EQUAL(karmada_gang_work_name("team-b", "web-deployment", b, sizeof(b)), 0);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);

    /* Two 300-character names that differ only past the cut. */
    char long1[301], long2[301];
    memset(long1, 'x', 300);
    long1[300] = '\0';
    memcpy(long2, long1, sizeof(long1));
    long2[299] = 'y';
    long1[245] = long2[245] = '-'; /* where the cut falls: the '-' must not end the kept part */
    CU_ASSERT_EQUAL(karmada_gang_podgroup_name(long1, a, sizeof(a)), 0);
    CU_ASSERT_EQUAL(karmada_gang_podgroup_name(long2, b, sizeof(b)), 0);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    CU_ASSERT_TRUE(strlen(a) <= KARMADA_GANG_NAME_MAX && strlen(b) <= KARMADA_GANG_NAME_MAX);
    CU_ASSERT_TRUE(dns_subdomain(a) && dns_subdomain(b));
    CU_ASSERT_NSTRING_EQUAL(a, "muster-xxx", 10);
    CU_ASSERT_EQUAL(strspn(a + strlen(a) - 10, "0123456789abcdef"), 10);
    /* Stable: the same name again gives the same cut. */
    char again[KARMADA_GANG_NAME_MAX + 1];
    CU_ASSERT_EQUAL(karmada_gang_podgroup_name(long1, again, sizeof(again)), 0);
    CU_ASSERT_STRING_EQUAL(a, again);
    CU_ASSERT_EQUAL(karmada_gang_work_name("team-a", long1, a, sizeof(a)), 0);
    CU_ASSERT_EQUAL(karmada_gang_work_name("team-a", long2, b, sizeof(b)), 0);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    CU_ASSERT_EQUAL(strlen(a), KARMADA_GANG_NAME_MAX);
    CU_ASSERT_TRUE(dns_subdomain(a) && dns_subdomain(b));
    /* A dot at the cut is trimmed too. */
    long1[245] = 'x';
    long1[246] = '.';
    CU_ASSERT_EQUAL(karmada_gang_policy_name(long1, a, sizeof(a)), 0);
    CU_ASSERT_TRUE(dns_subdomain(a));

    char small[8];
    CU_ASSERT_EQUAL(karmada_gang_podgroup_name("web-deployment", small, sizeof(small)),
                    MUSTER_ENOSPC);
    CU_ASSERT_STRING_EQUAL(small, "");
    CU_ASSERT_EQUAL(karmada_gang_podgroup_name("", a, sizeof(a)), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(karmada_gang_work_name(NULL, "x", a, sizeof(a)), MUSTER_EINVAL);
}

/* ---- Works ---- */

static void test_deployment_work(void)
{
    load("deployment");
    CU_ASSERT_TRUE(karmada_gang_needs_objects(&w));
    struct karmada_gang_share shares[] = {{"member1", 3}, {"member2", 1}};
    struct karmada_gang_input in = input(shares, 2);
    char why[256];
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), 0);

    json_object *work = karmada_gang_podgroup_work(&in, 0);
    valid_work(work);
    /* Karmada's CreateOrUpdateWork shape: the execution controller's finalizer on the Work,
     * karmada.io/managed and the Work's name and namespace on the manifest; muster's own
     * binding-uid label and never the RB's permanent id; not suspended. */
    equal_json(work,
               "{\"apiVersion\":\"work.karmada.io/v1alpha1\",\"kind\":\"Work\","
               "\"metadata\":{\"name\":\"muster-pg-team-a.web-deployment\","
               "\"namespace\":\"karmada-es-member1\","
               "\"labels\":{\"app.kubernetes.io/managed-by\":\"muster\","
               "\"scheduling.muster.io/binding-uid\":\"0e2d7c4a-3b1f-4a6e-8d9c-2f3e4a5b6c7d\"},"
               "\"annotations\":{\"scheduling.muster.io/binding\":\"team-a/web-deployment\"},"
               "\"finalizers\":[\"karmada.io/execution-controller\"]},"
               "\"spec\":{\"workload\":{\"manifests\":[{"
               "\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\","
               "\"metadata\":{\"name\":\"muster-web-deployment\",\"namespace\":\"team-a\","
               "\"labels\":{\"app.kubernetes.io/managed-by\":\"muster\","
               "\"scheduling.muster.io/binding-uid\":\"0e2d7c4a-3b1f-4a6e-8d9c-2f3e4a5b6c7d\","
               "\"karmada.io/managed\":\"true\"},"
               "\"annotations\":{\"scheduling.muster.io/binding\":\"team-a/web-deployment\","
               "\"work.karmada.io/name\":\"muster-pg-team-a.web-deployment\","
               "\"work.karmada.io/namespace\":\"karmada-es-member1\"}},"
               "\"spec\":{\"minMember\":3,\"minResources\":{\"cpu\":\"6\",\"memory\":\"12Gi\"},"
               "\"queue\":\"team-a\"}}]}}}");
    CU_ASSERT_PTR_NULL(strstr(json_object_to_json_string(work), "permanent-id"));
    json_object_put(work);

    work = karmada_gang_podgroup_work(&in, 1);
    valid_work(work);
    CU_ASSERT_STRING_EQUAL(s_at(work, "metadata/namespace"), "karmada-es-member2");
    CU_ASSERT_PTR_NULL(fx_at(work, "spec/suspendDispatching"));
    json_object *pg = fx_at(work, "spec/workload/manifests/0");
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(pg, "spec/minMember")), 1);
    CU_ASSERT_STRING_EQUAL(s_at(pg, "spec/minResources/cpu"), "2");
    CU_ASSERT_STRING_EQUAL(s_at(pg, "spec/minResources/memory"), "4Gi");
    json_object *wns = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(fx_at(pg, "metadata/annotations"),
                                             KARMADA_GANG_WORK_NAMESPACE_ANNOTATION, &wns));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(wns), "karmada-es-member2");
    json_object_put(work);

    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 2)); /* no such share */

    /* The request vector is muster's allocation: when it fails, no half-built Work. */
    muster_mem_fail_after(0);
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 0));
    muster_mem_fail_after(-1);
    muster_mem_reset();
}

/* A gang of several RBs (the dispatcher's pod groups): a member's policy points its pods at the
 * lead's PodGroup (group_rb_name), and the lead's PodGroup holds every pod, its minResources the
 * gang's summed request (gang_request) rather than share x the lead's own pod. Kueue's plain-pod
 * example, a Pod of 3 CPUs, leading a gang of 2 whose other Pod asks 2 CPUs. */
static void test_pod_group(void)
{
    load("kueue-pod");
    struct karmada_gang_share one[] = {{"member1", 1}};
    struct karmada_gang_input in = input(one, 1);
    in.group_rb_name = "lead-pod";
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT_STRING_EQUAL(s_at(op, "metadata/name"), "muster-sample-pod-x7k2q-pod");
    CU_ASSERT_PTR_NOT_NULL(strstr(json_object_to_json_string(op), "\"muster-lead-pod\""));
    json_object_put(op);

    uint32_t cpu;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "cpu", 3, &cpu), 0);
    struct queue_resvec sum = {0};
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&sum, cpu, 5000), 0);
    struct karmada_gang_share both[] = {{"member1", 2}};
    w.replicas = 2;
    w.components[0].replicas = 2;
    w.min_member = 2;
    in = input(both, 1);
    in.gang_request = &sum;
    json_object *work = karmada_gang_podgroup_work(&in, 0);
    valid_work(work);
    json_object *pg = fx_at(work, "spec/workload/manifests/0");
    CU_ASSERT_STRING_EQUAL(s_at(pg, "metadata/name"), "muster-sample-pod-x7k2q-pod");
    equal_json(fx_at(pg, "spec"), "{\"minMember\":2,\"minResources\":{\"cpu\":\"5\"},"
                                  "\"queue\":\"user-queue\"}");
    json_object_put(work);
    in.gang_request = NULL; /* without it: 2 x the lead's own 3 CPUs */
    work = karmada_gang_podgroup_work(&in, 0);
    CU_ASSERT_STRING_EQUAL(s_at(work, "spec/workload/manifests/0/spec/minResources/cpu"), "6");
    json_object_put(work);
    queue_resvec_close(&sum);
    reread();
}

/* A gang smaller than its replicas: each cluster's group holds ceil(share x min / replicas). */
static void test_job_work_min_member(void)
{
    load("job"); /* parallelism 3, min-member 2, PriorityClass high-priority, queue batch */
    struct karmada_gang_share one[] = {{"member1", 3}};
    struct karmada_gang_input in = input(one, 1);
    json_object *work = karmada_gang_podgroup_work(&in, 0);
    valid_work(work);
    json_object *pg = fx_at(work, "spec/workload/manifests/0");
    equal_json(fx_at(pg, "spec"), "{\"minMember\":2,\"minResources\":{\"cpu\":\"1500m\","
                                  "\"memory\":\"3Gi\",\"nvidia.com/gpu\":\"3\"},"
                                  "\"queue\":\"batch\",\"priorityClassName\":\"high-priority\"}");
    CU_ASSERT_STRING_EQUAL(s_at(pg, "metadata/namespace"), "team-b");
    json_object_put(work);

    struct karmada_gang_share two[] = {{"member1", 2}, {"member2", 1}};
    in = input(two, 2);
    int32_t sum = 0;
    for (uint32_t i = 0; i < 2; i++) {
        work = karmada_gang_podgroup_work(&in, i);
        valid_work(work);
        int32_t m = json_object_get_int(fx_at(work, "spec/workload/manifests/0/spec/minMember"));
        CU_ASSERT_EQUAL(m, i == 0 ? 2 : 1);
        sum += m;
        json_object_put(work);
    }
    CU_ASSERT_TRUE(sum >= w.min_member); /* every group holding means the gang holds */
}

/* A group-size gang (issue 20) below its replicas: each cluster's part of min-member in whole
 * groups. 3 groups of 4 as 2 + 1 with min-member 8 (2 groups): 8 and 4, where pods alone would
 * give 6 and 3 (a group and a half, a group cut in the member). */
static void test_group_size_min_member(void)
{
    load("deployment");
    w.replicas = 12;
    w.components[0].replicas = 12;
    w.min_member = 8;
    w.group_size = 4;
    struct karmada_gang_share two[] = {{"member1", 8}, {"member2", 4}};
    struct karmada_gang_input in = input(two, 2);
    int32_t want[] = {8, 4}, sum = 0;
    for (uint32_t i = 0; i < 2; i++) {
        json_object *work = karmada_gang_podgroup_work(&in, i);
        valid_work(work);
        int32_t m = json_object_get_int(fx_at(work, "spec/workload/manifests/0/spec/minMember"));
        CU_ASSERT_EQUAL(m, want[i]);
        sum += m;
        json_object_put(work);
    }
    CU_ASSERT_TRUE(sum >= w.min_member);
    /* 4 groups as 2 + 2 with min-member 4 (1 group): a group in each */
    w.replicas = 16;
    w.components[0].replicas = 16;
    w.min_member = 4;
    struct karmada_gang_share even[] = {{"member1", 8}, {"member2", 8}};
    in = input(even, 2);
    for (uint32_t i = 0; i < 2; i++) {
        json_object *work = karmada_gang_podgroup_work(&in, i);
        CU_ASSERT_EQUAL(json_object_get_int(fx_at(work, "spec/workload/manifests/0/spec/minMember")), 4);
        json_object_put(work);
    }
    w.group_size = 1;
    reread();
}

static void test_input_check(void)
{
    load("deployment");
    char why[256];
    struct karmada_gang_share wrong_sum[] = {{"member1", 3}};
    struct karmada_gang_input in = input(wrong_sum, 1);
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "add up to 3 replicas, the gang has 4"));
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 0));
    CU_ASSERT_PTR_NULL(karmada_gang_override_policy(&in));

    struct karmada_gang_share zero[] = {{"member1", 4}, {"member2", 0}};
    in = input(zero, 2);
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "member2"));

    struct karmada_gang_share ok[] = {{"member1", 4}};
    in = input(ok, 1);
    in.tmpl = NULL;
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NULL(karmada_gang_override_policy(&in));

    /* Without the RB's uid muster could not label its objects with it. */
    json_object *uid = json_object_get(fx_at(rb, "metadata/uid"));
    json_object_object_del(fx_at(rb, "metadata"), "uid");
    in = input(ok, 1);
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "metadata.uid"));
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 0));
    json_object_object_add(fx_at(rb, "metadata"), "uid", uid);

    /* Without the permanent id muster could not find the Works Karmada renders (the barrier
     * check): refuse to build them. */
    json_object_object_del(fx_at(rb, "metadata/labels"), KARMADA_WORKLOAD_PERMANENT_ID_LABEL);
    reread();
    in = input(ok, 1);
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), MUSTER_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "permanent-id"));
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 0));
}

/* ---- OverridePolicy ---- */

static void test_deployment_policy(void)
{
    load("deployment");
    struct karmada_gang_share shares[] = {{"member1", 3}, {"member2", 1}};
    struct karmada_gang_input in = input(shares, 2);
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    /* The pod template has metadata (labels) but no annotations: the whole object is added.
     * One rule with no targetCluster: the same for every cluster, whatever the placement. */
    const char *rule = "{\"overriders\":{"
                       "\"plaintext\":[{\"path\":\"/spec/template/metadata/annotations\","
                       "\"operator\":\"add\",\"value\":{\"scheduling.k8s.io/group-name\":"
                       "\"muster-web-deployment\"}},{\"path\":\"/spec/template/spec/"
                       "schedulerName\",\"operator\":\"add\",\"value\":\"volcano\"}]}}";
    char want[4096];
    snprintf(want, sizeof(want),
             "{\"apiVersion\":\"policy.karmada.io/v1alpha1\",\"kind\":\"OverridePolicy\","
             "\"metadata\":{\"name\":\"muster-web-deployment\",\"namespace\":\"team-a\","
             "\"labels\":{\"app.kubernetes.io/managed-by\":\"muster\","
             "\"scheduling.muster.io/binding-uid\":\"0e2d7c4a-3b1f-4a6e-8d9c-2f3e4a5b6c7d\"},"
             "\"annotations\":{\"scheduling.muster.io/binding\":\"team-a/web-deployment\"},"
             "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
             "\"name\":\"web\",\"uid\":\"6a1f0c2e-0d4b-4f5e-9a3c-1b2d3e4f5a6b\"}]},"
             "\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
             "\"Deployment\",\"namespace\":\"team-a\",\"name\":\"web\"}],"
             "\"overrideRules\":[%s]}}",
             rule);
    equal_json(op, want);
    /* The same policy whatever the placement. */
    struct karmada_gang_share other[] = {{"member3", 4}};
    struct karmada_gang_input in2 = input(other, 1);
    json_object *op2 = karmada_gang_override_policy(&in2);
    CU_ASSERT_TRUE(json_object_equal(op, op2));
    json_object_put(op2);
    json_object *t = overridden(op, "member2");
    json_object *ann = fx_at(t, "spec/template/metadata/annotations");
    json_object *v = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(ann, KARMADA_GANG_GROUP_NAME_ANNOTATION, &v));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "muster-web-deployment");
    CU_ASSERT_STRING_EQUAL(s_at(t, "spec/template/spec/schedulerName"), "volcano");
    CU_ASSERT_STRING_EQUAL(s_at(t, "spec/template/metadata/labels/app"), "web");
    json_object_put(t);
    json_object_put(op);
}

/* A user's pod-template annotation survives the overrider. */
static void test_existing_annotation_kept(void)
{
    load("deployment");
    json_object *ann = json_object_new_object();
    json_object_object_add(ann, "prometheus.io/scrape", json_object_new_string("true"));
    json_object_object_add(fx_at(tmpl, "spec/template/metadata"), "annotations", ann);
    struct karmada_gang_share shares[] = {{"member1", 4}};
    struct karmada_gang_input in = input(shares, 1);
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    json_object *plain = fx_at(op, "spec/overrideRules/0/overriders/plaintext");
    equal_json(json_object_array_get_idx(plain, 0),
               "{\"path\":\"/spec/template/metadata/annotations/scheduling.k8s.io~1group-name\","
               "\"operator\":\"add\",\"value\":\"muster-web-deployment\"}");
    json_object *t = overridden(op, "member1");
    equal_json(fx_at(t, "spec/template/metadata/annotations"),
               "{\"prometheus.io/scrape\":\"true\","
               "\"scheduling.k8s.io/group-name\":\"muster-web-deployment\"}");
    json_object_put(t);
    json_object_put(op);
}

/* A template that already names muster's PodGroup and its scheduler needs no policy; one that
 * differs in either, or names another group, does. */
static void test_policy_redundant(void)
{
    load("deployment");
    struct karmada_gang_share shares[] = {{"member1", 3}, {"member2", 1}};
    struct karmada_gang_input in = input(shares, 2);
    CU_ASSERT_EQUAL(karmada_gang_policy_redundant(&in), 0);
    json_object *ann = json_object_new_object();
    json_object_object_add(ann, "prometheus.io/scrape", json_object_new_string("true"));
    json_object_object_add(ann, KARMADA_GANG_GROUP_NAME_ANNOTATION,
                           json_object_new_string("muster-web-deployment"));
    json_object_object_add(fx_at(tmpl, "spec/template/metadata"), "annotations", ann);
    reread();
    in = input(shares, 2);
    /* the group named, the scheduler not */
    CU_ASSERT_EQUAL(karmada_gang_policy_redundant(&in), 0);
    json_object *ps = fx_at(tmpl, "spec/template/spec");
    json_object_object_add(ps, "schedulerName", json_object_new_string("volcano"));
    reread();
    in = input(shares, 2);
    CU_ASSERT_EQUAL(karmada_gang_policy_redundant(&in), 1);
    /* and the policy it replaces would indeed change nothing */
    json_object *op = karmada_gang_override_policy(&in);
    json_object *t = overridden(op, "member1");
    CU_ASSERT_TRUE(json_object_equal(t, tmpl));
    json_object_put(t);
    json_object_put(op);
    /* another scheduler configured for the members */
    in.pod_scheduler = "volcano-gpu";
    CU_ASSERT_EQUAL(karmada_gang_policy_redundant(&in), 0);
    in.pod_scheduler = "volcano";
    /* another group's name (a hub PodGroup's, read as the gang's size elsewhere) */
    json_object_object_add(ann, KARMADA_GANG_GROUP_NAME_ANNOTATION,
                           json_object_new_string("muster-other-deployment"));
    CU_ASSERT_EQUAL(karmada_gang_policy_redundant(&in), 0);
    json_object_object_add(ann, KARMADA_GANG_GROUP_NAME_ANNOTATION,
                           json_object_new_string("muster-web-deployment"));
    CU_ASSERT_EQUAL(karmada_gang_policy_redundant(&in), 1);
    /* no template: nothing to judge */
    in.tmpl = NULL;
    CU_ASSERT_EQUAL(karmada_gang_policy_redundant(&in), 0);
    CU_ASSERT_EQUAL(karmada_gang_policy_redundant(NULL), 0);
    load("deployment");
}

/* Another policy stands over a template naming its own group only when it selects the template
 * as Karmada selects and writes at, above or below a path muster's policy writes. */
static void test_policy_contested(void)
{
    load("deployment");
    struct karmada_gang_share shares[] = {{"member1", 4}};
    struct karmada_gang_input in = input(shares, 1);
    json_object *mine = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mine);
    static const struct {
        const char *policy;
        int contested;
    } cases[] = {
        /* the scheduler, for every Deployment */
        {"{\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}],"
         "\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":\"/spec/template/spec/"
         "schedulerName\",\"operator\":\"replace\",\"value\":\"x\"}]}}]}}",
         1},
        /* the whole pod template, above muster's paths */
        {"{\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
         "\"name\":\"web\"}],\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":"
         "\"/spec/template\",\"operator\":\"replace\",\"value\":{}}]}}]}}",
         1},
        /* no selectors: everything in its namespace */
        {"{\"spec\":{\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":\"/spec/template/"
         "spec/schedulerName\",\"operator\":\"remove\"}]}}]}}",
         1},
        /* the deprecated spec.overriders */
        {"{\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
         "\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}}}],\"overriders\":{\"plaintext\":"
         "[{\"path\":\"/spec/template/spec/schedulerName\",\"operator\":\"add\",\"value\":\"x\"}]}}}",
         1},
        /* another path of the template */
        {"{\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}],"
         "\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":\"/spec/template/spec/"
         "containers/0/image\",\"operator\":\"replace\",\"value\":\"m\"}]}}]}}",
         0},
        /* a sibling key: /spec/template/spec/schedulerNameX is not below schedulerName */
        {"{\"spec\":{\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":\"/spec/template/"
         "spec/schedulerNameX\",\"operator\":\"add\",\"value\":1}]}}]}}",
         0},
        /* another Deployment by name, another kind, another namespace */
        {"{\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
         "\"name\":\"other\"}],\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":"
         "\"/spec/template\",\"operator\":\"replace\",\"value\":{}}]}}]}}",
         0},
        {"{\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\"}],"
         "\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":\"/spec/template\","
         "\"operator\":\"replace\",\"value\":{}}]}}]}}",
         0},
        {"{\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
         "\"namespace\":\"team-b\"}],\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":"
         "\"/spec/template\",\"operator\":\"replace\",\"value\":{}}]}}]}}",
         0},
        /* the object's own annotations (annotationsOverrider), not the pod template's */
        {"{\"spec\":{\"overrideRules\":[{\"overriders\":{\"annotationsOverrider\":[{\"operator\":"
         "\"add\",\"value\":{\"a\":\"b\"}}]}}]}}",
         0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_object *other = json_tokener_parse(cases[i].policy);
        CU_ASSERT_PTR_NOT_NULL_FATAL(other);
        int got = karmada_gang_policy_contested(mine, other, tmpl);
        if (got != cases[i].contested)
            fprintf(stderr, "\ncase %zu: contested %d, want %d\n", i, got, cases[i].contested);
        CU_ASSERT_EQUAL(got, cases[i].contested);
        json_object_put(other);
    }
    CU_ASSERT_EQUAL(karmada_gang_policy_contested(NULL, mine, tmpl), 0);
    json_object_put(mine);
}

/* A batch Job whose pod template has no metadata at all: the overrider adds metadata whole. */
static void test_job_policy_without_pod_metadata(void)
{
    load("job");
    CU_ASSERT_PTR_NULL(fx_at(tmpl, "spec/template/metadata"));
    struct karmada_gang_share shares[] = {{"member1", 3}};
    struct karmada_gang_input in = input(shares, 1);
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    CU_ASSERT_STRING_EQUAL(s_at(op, "spec/overrideRules/0/overriders/plaintext/0/path"),
                           "/spec/template/metadata");
    json_object *t = overridden(op, "member1");
    equal_json(fx_at(t, "spec/template/metadata"),
               "{\"annotations\":{\"scheduling.k8s.io/group-name\":\"muster-etl-job\"}}");
    CU_ASSERT_STRING_EQUAL(s_at(t, "spec/template/spec/schedulerName"), "volcano");
    CU_ASSERT_STRING_EQUAL(s_at(t, "spec/template/spec/restartPolicy"), "Never");
    json_object_put(t);
    json_object_put(op);
}

static void test_pod_paths(void)
{
    load("pod");
    struct karmada_gang_share shares[] = {{"member3", 1}};
    struct karmada_gang_input in = input(shares, 1);
    in.pod_scheduler = "volcano-custom";
    json_object *work = karmada_gang_podgroup_work(&in, 0);
    valid_work(work);
    CU_ASSERT_STRING_EQUAL(s_at(work, "spec/workload/manifests/0/spec/queue"), "default");
    json_object_put(work);

    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    equal_json(fx_at(op, "spec/overrideRules/0/overriders/plaintext"),
               "[{\"path\":\"/metadata/annotations\",\"operator\":\"add\",\"value\":"
               "{\"scheduling.k8s.io/group-name\":\"muster-debug-pod\"}},"
               "{\"path\":\"/spec/schedulerName\",\"operator\":\"add\","
               "\"value\":\"volcano-custom\"}]");
    json_object *t = overridden(op, "member3");
    CU_ASSERT_STRING_EQUAL(s_at(t, "spec/schedulerName"), "volcano-custom");
    json_object *v = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(fx_at(t, "metadata/annotations"),
                                             KARMADA_GANG_GROUP_NAME_ANNOTATION, &v));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "muster-debug-pod");
    CU_ASSERT_STRING_EQUAL(s_at(t, "metadata/name"), "debug");
    json_object_put(t);
    json_object_put(op);

    /* With annotations on the Pod: one key under them, the others kept. */
    json_object *ann = json_object_new_object();
    json_object_object_add(ann, "owner", json_object_new_string("sre"));
    json_object_object_add(fx_at(tmpl, "metadata"), "annotations", ann);
    op = karmada_gang_override_policy(&in);
    valid_as(POLICY, op);
    CU_ASSERT_STRING_EQUAL(s_at(op, "spec/overrideRules/0/overriders/plaintext/0/path"),
                           "/metadata/annotations/scheduling.k8s.io~1group-name");
    t = overridden(op, "member3");
    equal_json(fx_at(t, "metadata/annotations"),
               "{\"owner\":\"sre\",\"scheduling.k8s.io/group-name\":\"muster-debug-pod\"}");
    json_object_put(t);
    json_object_put(op);
}

static void test_vcjob_gets_no_objects(void)
{
    load("vcjob");
    CU_ASSERT_FALSE(karmada_gang_needs_objects(&w));
    /* The whole job to one cluster: every task's replicas (2 + 4), not the components' 2 + 3. */
    CU_ASSERT_EQUAL(w.replicas, 6);
    struct karmada_gang_share shares[] = {{"member1", 6}};
    struct karmada_gang_input in = input(shares, 1);
    char why[256];
    int rc = karmada_gang_input_check(&in, why, sizeof(why));
    if (rc)
        fprintf(stderr, "\n%s\n", why);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 0));
    CU_ASSERT_PTR_NULL(karmada_gang_override_policy(&in));
    /* It is still placed and released with the same RB patches. */
    json_object *p = PATCH(karmada_patch_assign, &in, 1);
    json_object *out = merged(rb, p);
    equal_json(fx_at(out, "spec/clusters"), "[{\"name\":\"member1\",\"replicas\":6}]");
    valid_as(RB, out);
    json_object_put(out);
    json_object_put(p);
}

/* ---- RB patches ---- */

static void test_assign_patch(void)
{
    load("deployment");
    struct karmada_gang_share shares[] = {{"member1", 3}, {"member2", 1}};
    struct karmada_gang_input in = input(shares, 2);
    json_object *p = PATCH(karmada_patch_assign, &in, 1);
    json_object *out = merged(rb, p);
    valid_as(RB, out);
    equal_json(fx_at(out, "spec/clusters"),
               "[{\"name\":\"member1\",\"replicas\":3},{\"name\":\"member2\",\"replicas\":1}]");
    CU_ASSERT_TRUE(json_object_get_boolean(fx_at(out, "spec/suspension/scheduling")));
    CU_ASSERT_TRUE(json_object_get_boolean(fx_at(out, "spec/suspension/dispatching")));
    /* The annotation is spec.placement's JSON text, as karmada-scheduler writes it. */
    json_object *ann = fx_at(out, "metadata/annotations"), *text = NULL;
    CU_ASSERT_TRUE_FATAL(
        json_object_object_get_ex(ann, KARMADA_GANG_APPLIED_PLACEMENT_ANNOTATION, &text));
    json_object *placement = json_tokener_parse(json_object_get_string(text));
    CU_ASSERT_TRUE(json_object_equal(placement, fx_at(rb, "spec/placement")));
    CU_ASSERT_PTR_NULL(strchr(json_object_get_string(text), ' '));
    json_object_put(placement);
    CU_ASSERT_EQUAL(json_object_object_length(ann), 3); /* the policy's two are kept */
    json_object_put(out);
    json_object_put(p);

    /* No barrier: the patch says nothing about suspension. */
    p = PATCH(karmada_patch_assign, &in, 0);
    CU_ASSERT_PTR_NULL(fx_at(p, "spec/suspension"));
    out = merged(rb, p);
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/suspension/dispatching"));
    valid_as(RB, out);
    json_object_put(out);
    json_object_put(p);

    /* The Job RB's dispatchingOnClusters survives the barrier. */
    load("job");
    struct karmada_gang_share one[] = {{"member2", 3}};
    in = input(one, 1);
    p = PATCH(karmada_patch_assign, &in, 1);
    out = merged(rb, p);
    valid_as(RB, out);
    CU_ASSERT_TRUE(json_object_get_boolean(fx_at(out, "spec/suspension/dispatching")));
    CU_ASSERT_STRING_EQUAL(s_at(out, "spec/suspension/dispatchingOnClusters/clusterNames/0"),
                           "member2");
    json_object_put(out);
    json_object_put(p);
}

/* Step 4 restores dispatching to what the user had: absent, false or true. */
static void test_release_restores_dispatching(void)
{
    load("deployment");
    struct karmada_gang_share shares[] = {{"member1", 4}};
    struct karmada_gang_input in = input(shares, 1);
    json_object *p = PATCH(karmada_patch_assign, &in, 1);
    json_object *barred = merged(rb, p);
    json_object_put(p);
    static const struct {
        enum karmada_dispatching user;
        const char *want; /* JSON of spec.suspension after step 4 */
    } cases[] = {
        {KARMADA_DISPATCHING_REMOVE, "{\"scheduling\":false}"},
        {KARMADA_DISPATCHING_FALSE, "{\"scheduling\":false,\"dispatching\":false}"},
        {KARMADA_DISPATCHING_TRUE, "{\"scheduling\":false,\"dispatching\":true}"},
        {KARMADA_DISPATCHING_KEEP,
         "{\"scheduling\":false,\"dispatching\":true}"}, /* not muster's barrier */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        p = PATCH(karmada_patch_release, cases[i].user);
        json_object *out = merged(barred, p);
        equal_json(fx_at(out, "spec/suspension"), cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(fx_at(out, "spec/clusters"));
        valid_as(RB, out);
        json_object_put(out);
        json_object_put(p);
    }
    p = PATCH(karmada_patch_release, KARMADA_DISPATCHING_KEEP);
    equal_json(p, "{\"spec\":{\"suspension\":{\"scheduling\":false}}}");
    json_object_put(p);
    CU_ASSERT_PTR_NULL(PATCH(karmada_patch_release, (enum karmada_dispatching)7));

    /* assign+lift: the placement and the suspension lifted in one patch, no barrier */
    p = PATCH(karmada_patch_assign_lift, &in);
    equal_json(fx_at(p, "spec/suspension"), "{\"scheduling\":false}");
    json_object *lifted = merged(rb, p);
    equal_json(fx_at(lifted, "spec/clusters"), "[{\"name\":\"member1\",\"replicas\":4}]");
    valid_as(RB, lifted);
    json_object_put(lifted);
    json_object_put(p);
    p = PATCH(karmada_patch_assign_lift, NULL);
    CU_ASSERT_PTR_NULL(p);

    p = PATCH0(karmada_patch_resume);
    equal_json(p, "{\"spec\":{\"suspension\":{\"scheduling\":false}}}");
    json_object *out = merged(rb, p);
    valid_as(RB, out);
    json_object_put(out);
    json_object_put(p);
    json_object_put(barred);
}

static void test_rollback_patches(void)
{
    load("job"); /* the user has dispatching false and dispatchingOnClusters */
    struct karmada_gang_share shares[] = {{"member1", 3}};
    struct karmada_gang_input in = input(shares, 1);
    json_object *p = PATCH(karmada_patch_assign, &in, 1);
    json_object *placed = merged(rb, p);
    json_object_put(p);
    p = PATCH(karmada_patch_release, KARMADA_DISPATCHING_FALSE);
    json_object *released = merged(placed, p);
    json_object_put(p);
    json_object_put(placed);

    p = PATCH0(karmada_patch_rollback_barrier);
    equal_json(p, "{\"spec\":{\"suspension\":{\"dispatching\":true}}}");
    json_object *barred = merged(released, p);
    valid_as(RB, barred);
    CU_ASSERT_TRUE(json_object_get_boolean(fx_at(barred, "spec/suspension/dispatching")));
    json_object_put(p);

    p = PATCH(karmada_patch_rollback_clear, KARMADA_DISPATCHING_FALSE);
    json_object *out = merged(barred, p);
    valid_as(RB, out);
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/clusters"));
    json_object *ann = fx_at(out, "metadata/annotations");
    CU_ASSERT_FALSE(
        json_object_object_get_ex(ann, KARMADA_GANG_APPLIED_PLACEMENT_ANNOTATION, NULL));
    CU_ASSERT_TRUE(json_object_object_get_ex(ann, "propagationpolicy.karmada.io/name", NULL));
    equal_json(fx_at(out, "spec/suspension"),
               "{\"scheduling\":true,\"dispatching\":false,"
               "\"dispatchingOnClusters\":{\"clusterNames\":[\"member2\"]}}");
    /* Back to exactly the RB as the detector and webhook left it. */
    CU_ASSERT_TRUE(json_object_equal(out, rb));
    json_object_put(out);
    json_object_put(p);

    p = PATCH(karmada_patch_rollback_clear, KARMADA_DISPATCHING_REMOVE);
    out = merged(barred, p);
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/suspension/dispatching"));
    valid_as(RB, out);
    json_object_put(out);
    /* The taint manager evicted a cluster (spec.gracefulEvictionTasks): the whole gang is taken
     * back, and the tasks with it, or the next placement would meet them again. */
    json_object *evicted = NULL;
    json_object_deep_copy(barred, &evicted, NULL);
    json_object_object_add(
        fx_at(evicted, "spec"), "gracefulEvictionTasks",
        json_tokener_parse("[{\"fromCluster\":\"member1\",\"reason\":\"TaintUntolerated\","
                           "\"producer\":\"TaintManager\"}]"));
    valid_as(RB, evicted);
    out = merged(evicted, p);
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/gracefulEvictionTasks"));
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/clusters"));
    valid_as(RB, out);
    json_object_put(out);
    json_object_put(evicted);
    json_object_put(p);
    CU_ASSERT_PTR_NULL(PATCH(karmada_patch_rollback_clear, (enum karmada_dispatching)7));
    json_object_put(released);
    json_object_put(barred);
}

/* ---- status ---- */

static json_object *condition(json_object *o, const char *type)
{
    json_object *conds = fx_at(o, "status/conditions");
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        if (strcmp(s_at(c, "type"), type) == 0)
            return c;
    }
    return NULL;
}

static void test_status_scheduled(void)
{
    char path[1024];
    fx_path(path, sizeof(path), "tests/fixtures/objects/resourcebinding.json");
    json_object *scheduled = json_object_from_file(path); /* Scheduled=True, FullyApplied */
    CU_ASSERT_PTR_NOT_NULL_FATAL(scheduled);
    json_object *p = PATCH(karmada_patch_status_scheduled, scheduled, "2026-11-22T03:00:00Z");
    json_object *out = merged(scheduled, p);
    valid_as(RB, out);
    json_object *c = condition(out, "Scheduled");
    /* Already True: the transition time is kept. */
    CU_ASSERT_STRING_EQUAL(s_at(c, "lastTransitionTime"), "2026-11-21T09:12:46Z");
    CU_ASSERT_STRING_EQUAL(s_at(c, "message"), KARMADA_GANG_SCHEDULED_MESSAGE);
    CU_ASSERT_STRING_EQUAL(s_at(out, "status/lastScheduledTime"), "2026-11-22T03:00:00Z");
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(out, "status/schedulerObservedGeneration")), 3);
    CU_ASSERT_TRUE(
        json_object_equal(condition(out, "FullyApplied"), condition(scheduled, "FullyApplied")));
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(out, "status/conditions")), 2);
    json_object_put(out);
    json_object_put(p);

    /* From waiting (False): the status flips and the transition time is now. */
    CU_ASSERT_EQUAL(
        karmada_patch_waiting(scheduled, "QuotaExceeded", "queue full", "2026-11-22T02:00:00Z", &p),
        0);
    json_object *waiting = merged(scheduled, p);
    json_object_put(p);
    p = PATCH(karmada_patch_status_scheduled, waiting, "2026-11-22T03:00:00Z");
    equal_json(p, "{\"status\":{\"conditions\":[{\"type\":\"Scheduled\",\"status\":\"True\","
                  "\"reason\":\"Success\",\"message\":\"Binding has been scheduled "
                  "successfully.\",\"lastTransitionTime\":\"2026-11-22T03:00:00Z\","
                  "\"observedGeneration\":3},{\"type\":\"FullyApplied\",\"status\":\"False\","
                  "\"reason\":\"FullyAppliedFailed\",\"message\":\"Failed to apply all "
                  "works, see status.aggregatedStatus for details\","
                  "\"lastTransitionTime\":\"2026-11-21T09:13:02+01:00\"}],"
                  "\"schedulerObservedGeneration\":3,"
                  "\"lastScheduledTime\":\"2026-11-22T03:00:00Z\"},"
                  "\"metadata\":{\"resourceVersion\":\"184467\"}}");
    out = merged(waiting, p);
    valid_as(RB, out);
    json_object_put(out);
    json_object_put(p);
    json_object_put(waiting);

    /* A fresh RB (no status at all) gets one condition. */
    load("deployment");
    p = PATCH(karmada_patch_status_scheduled, rb, "2026-11-22T03:00:00Z");
    out = merged(rb, p);
    valid_as(RB, out);
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(out, "status/conditions")), 1);
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(out, "status/schedulerObservedGeneration")), 1);
    json_object_put(out);
    json_object_put(p);
    json_object_put(scheduled);
}

/* The JSON patch applied as the hub does (RFC 6902, sim/patch.c); NULL when a test fails. */
static json_object *jpatched(json_object *target, json_object *ops)
{
    json_object *out = NULL;
    char err[256] = "";
    CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
    /* on the wire as musterd sends it */
    json_object *wire = json_tokener_parse(json_object_to_json_string_ext(
        ops, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    int rc = sim_json_patch(target, wire, &out, err, sizeof(err));
    json_object_put(wire);
    return rc ? NULL : out;
}

/* A copy of o with the value at the JSON pointer set to v (taken): an array entry replaced,
 * an object member or "-" added. */
static json_object *with(json_object *o, const char *ptr, json_object *v)
{
    const char *last = strrchr(ptr, '/');
    int entry = last && last[1] >= '0' && last[1] <= '9';
    json_object *ops = json_object_new_array(), *op = json_object_new_object();
    json_object_object_add(op, "op", json_object_new_string(entry ? "replace" : "add"));
    json_object_object_add(op, "path", json_object_new_string(ptr));
    json_object_object_add(op, "value", v);
    json_object_array_add(ops, op);
    json_object *out = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(sim_json_patch(o, ops, &out, err, sizeof(err)), 0);
    json_object_put(ops);
    return out;
}

static void test_status_scheduled_ops(void)
{
    char path[1024];
    fx_path(path, sizeof(path), "tests/fixtures/objects/resourcebinding.json");
    json_object *read = json_object_from_file(path); /* Scheduled=True at 0, FullyApplied at 1 */
    CU_ASSERT_PTR_NOT_NULL_FATAL(read);
    json_object *ops = PATCH(karmada_patch_status_scheduled_ops, read, "2026-11-22T03:00:00Z");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
    CU_ASSERT_EQUAL(karmada_patch_status_scheduled_ops(read, NULL, &built_), MUSTER_EINVAL);

    /* Karmada aggregated meanwhile: FullyApplied flipped and aggregatedStatus changed. The
     * patch still applies (no resourceVersion), keeps both and replaces only Scheduled. */
    json_object *fa = json_tokener_parse(
        "{\"type\":\"FullyApplied\",\"status\":\"True\",\"reason\":\"FullyAppliedSuccess\","
        "\"message\":\"All works have been successfully applied\","
        "\"lastTransitionTime\":\"2026-11-22T02:59:59Z\"}");
    json_object *now = with(read, "/status/conditions/1", json_object_get(fa));
    json_object *tmp = with(now, "/status/aggregatedStatus", json_object_new_array());
    json_object_put(now);
    now = tmp;
    json_object *out = jpatched(now, ops);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    valid_as(RB, out);
    json_object *c = condition(out, "Scheduled");
    CU_ASSERT_STRING_EQUAL(s_at(c, "lastTransitionTime"), "2026-11-21T09:12:46Z"); /* kept */
    CU_ASSERT_STRING_EQUAL(s_at(c, "message"), KARMADA_GANG_SCHEDULED_MESSAGE);
    CU_ASSERT_STRING_EQUAL(s_at(out, "status/lastScheduledTime"), "2026-11-22T03:00:00Z");
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(out, "status/schedulerObservedGeneration")), 3);
    CU_ASSERT_TRUE(json_object_equal(condition(out, "FullyApplied"), fa));
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(out, "status/aggregatedStatus")), 0);
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(out, "status/conditions")), 2);
    json_object_put(out);
    json_object_put(now);

    /* The Scheduled condition changed since the read (muster's own Scheduled=False landed):
     * the test fails, as the apiserver's 422, and nothing is written. */
    now = with(read, "/status/conditions/0/status", json_object_new_string("False"));
    CU_ASSERT_PTR_NULL(jpatched(now, ops));
    json_object_put(now);
    /* The spec changed (a new generation): read again. */
    now = with(read, "/metadata/generation", json_object_new_int64(4));
    CU_ASSERT_PTR_NULL(jpatched(now, ops));
    json_object_put(now);
    json_object_put(ops);

    /* Read with FullyApplied only: its type is tested at its index and Scheduled appended;
     * FullyApplied rewritten meanwhile stays as Karmada wrote it. */
    json_object *noscheduled = with(read, "/status/conditions", json_tokener_parse("[]"));
    tmp = with(noscheduled, "/status/conditions/-", json_object_get(condition(read, "FullyApplied")));
    json_object_put(noscheduled);
    noscheduled = tmp;
    ops = PATCH(karmada_patch_status_scheduled_ops, noscheduled, "2026-11-22T03:00:00Z");
    now = with(noscheduled, "/status/conditions/0", json_object_get(fa));
    out = jpatched(now, ops);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    valid_as(RB, out);
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(out, "status/conditions")), 2);
    CU_ASSERT_TRUE(json_object_equal(fx_at(out, "status/conditions/0"), fa));
    CU_ASSERT_STRING_EQUAL(s_at(out, "status/conditions/1/type"), "Scheduled");
    CU_ASSERT_STRING_EQUAL(s_at(out, "status/conditions/1/lastTransitionTime"),
                           "2026-11-22T03:00:00Z");
    json_object_put(out);
    json_object_put(now);
    /* ... but a list whose entries moved is read again */
    now = with(noscheduled, "/status/conditions/0/type", json_object_new_string("Other"));
    CU_ASSERT_PTR_NULL(jpatched(now, ops));
    json_object_put(now);
    json_object_put(ops);
    json_object_put(noscheduled);

    /* Read with a status but no list: added; a FullyApplied written meanwhile fails the test
     * rather than being replaced. */
    json_object *nolist = json_tokener_parse("{\"apiVersion\":\"work.karmada.io/v1alpha2\","
                                             "\"kind\":\"ResourceBinding\",\"metadata\":{"
                                             "\"name\":\"x\",\"namespace\":\"y\","
                                             "\"generation\":2},\"spec\":{},\"status\":{}}");
    ops = PATCH(karmada_patch_status_scheduled_ops, nolist, "2026-11-22T03:00:00Z");
    out = jpatched(nolist, ops);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(out, "status/conditions")), 1);
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(out, "status/conditions/0/observedGeneration")), 2);
    json_object_put(out);
    now = with(nolist, "/status/conditions", json_tokener_parse("[]"));
    tmp = with(now, "/status/conditions/-", json_object_get(fa));
    CU_ASSERT_PTR_NULL(jpatched(tmp, ops));
    json_object_put(tmp);
    json_object_put(now);
    json_object_put(ops);

    /* No status at all (as created): the status is added whole; one written meanwhile fails. */
    json_object_object_del(nolist, "status");
    ops = PATCH(karmada_patch_status_scheduled_ops, nolist, "2026-11-22T03:00:00Z");
    out = jpatched(nolist, ops);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_STRING_EQUAL(s_at(out, "status/conditions/0/type"), "Scheduled");
    CU_ASSERT_STRING_EQUAL(s_at(out, "status/lastScheduledTime"), "2026-11-22T03:00:00Z");
    json_object_put(out);
    now = with(nolist, "/status", json_tokener_parse("{\"conditions\":[]}"));
    CU_ASSERT_PTR_NULL(jpatched(now, ops));
    json_object_put(now);
    json_object_put(ops);
    json_object_put(nolist);
    json_object_put(fa);
    json_object_put(read);
}

/* A rendered Work as Karmada's binding controller writes it: in karmada-es-<cluster>, labelled
 * with the RB's permanent id, suspendDispatching from the RB, applied-overrides when a policy
 * was in the render (pkg/controllers/binding/common.go RecordAppliedOverrides). */
static json_object *rendered(const char *cluster, int suspended, const char *policy)
{
    char text[1024], ann[512] = "{}";
    if (policy)
        snprintf(ann, sizeof(ann),
                 "{\"policy.karmada.io/applied-overrides\":\"[{\\\"policyName\\\":\\\"other\\\","
                 "\\\"overriders\\\":{}},{\\\"policyName\\\":\\\"%s\\\",\\\"overriders\\\":{}}]\"}",
                 policy);
    snprintf(text, sizeof(text),
             "{\"apiVersion\":\"work.karmada.io/v1alpha1\",\"kind\":\"Work\",\"metadata\":{"
             "\"name\":\"web-6b7c\",\"namespace\":\"karmada-es-%s\",\"labels\":{"
             "\"resourcebinding.karmada.io/permanent-id\":\"b7f3a1c9\"},\"annotations\":%s},"
             "\"spec\":{\"suspendDispatching\":%s,\"workload\":{\"manifests\":[]}}}",
             cluster, ann, suspended ? "true" : "false");
    json_object *o = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    valid_as(WORK, o);
    return o;
}

static void test_rendered_barrier(void)
{
    struct karmada_gang_share shares[] = {{"member1", 3}, {"member2", 1}};
    const char *pol = "muster-web-deployment";
    char why[256];
    json_object *items = json_object_new_array();
    /* nothing rendered yet */
    CU_ASSERT_EQUAL(karmada_gang_rendered_judge(items, shares, 2, pol, why, sizeof(why)),
                    KARMADA_GANG_RENDERED_MISSING);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "member1"));
    json_object_array_add(items, rendered("member1", 1, pol));
    CU_ASSERT_EQUAL(karmada_gang_rendered_judge(items, shares, 2, pol, why, sizeof(why)),
                    KARMADA_GANG_RENDERED_MISSING);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "member2"));
    /* member2 suspended but rendered from a cache without muster's policy: wait */
    json_object_array_add(items, rendered("member2", 1, NULL));
    CU_ASSERT_EQUAL(karmada_gang_rendered_judge(items, shares, 2, pol, why, sizeof(why)),
                    KARMADA_GANG_RENDERED_WAIT);
    json_object_array_put_idx(items, 1, rendered("member2", 1, pol));
    CU_ASSERT_EQUAL(karmada_gang_rendered_judge(items, shares, 2, pol, NULL, 0),
                    KARMADA_GANG_RENDERED_READY);
    /* muster's own Work in the list (a hand-made permanent-id label) is not the rendered one */
    json_object *mine = rendered("member1", 0, NULL);
    json_object_object_add(fx_at(mine, "metadata/labels"), KARMADA_GANG_BINDING_UID_LABEL,
                           json_object_new_string("u"));
    json_object_array_add(items, mine);
    CU_ASSERT_EQUAL(karmada_gang_rendered_judge(items, shares, 2, pol, NULL, 0),
                    KARMADA_GANG_RENDERED_READY);
    /* the detector reset dispatching after the policy was in: released, pods name the group */
    json_object_array_put_idx(items, 0, rendered("member1", 0, pol));
    CU_ASSERT_EQUAL(karmada_gang_rendered_work(json_object_array_get_idx(items, 0), pol),
                    KARMADA_GANG_RENDERED_OPEN);
    CU_ASSERT_EQUAL(karmada_gang_rendered_judge(items, shares, 2, pol, NULL, 0),
                    KARMADA_GANG_RENDERED_READY);
    /* ... and before: the barrier vanished, roll back, whatever the other clusters show */
    json_object_array_put_idx(items, 0, rendered("member1", 0, NULL));
    json_object_array_put_idx(items, 1, rendered("member2", 1, NULL));
    CU_ASSERT_EQUAL(karmada_gang_rendered_judge(items, shares, 2, pol, why, sizeof(why)),
                    KARMADA_GANG_RENDERED_VANISHED);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "member1"));
    /* a Work being deleted counts as missing */
    json_object *dying = rendered("member1", 1, pol);
    json_object_object_add(fx_at(dying, "metadata"), "deletionTimestamp",
                           json_object_new_string("2026-11-22T03:00:00Z"));
    CU_ASSERT_EQUAL(karmada_gang_rendered_work(dying, pol), KARMADA_GANG_RENDERED_MISSING);
    json_object_put(dying);
    CU_ASSERT_EQUAL(karmada_gang_rendered_work(NULL, pol), KARMADA_GANG_RENDERED_MISSING);
    json_object_put(items);
}

/* muster's PodGroup Work as Karmada reports it: Applied, and the member PodGroup's whole status
 * reflected into manifestStatuses (no reflect interpreter for PodGroup: reflectWholeStatus). */
static void test_work_status_read(void)
{
    load("deployment");
    struct karmada_gang_share shares[] = {{"member1", 4}};
    struct karmada_gang_input in = input(shares, 1);
    json_object *work = karmada_gang_podgroup_work(&in, 0);
    CU_ASSERT_FALSE(karmada_gang_work_applied(work));
    CU_ASSERT_PTR_NULL(karmada_gang_work_podgroup_phase(work));
    json_object_object_add(
        work, "status",
        json_tokener_parse("{\"conditions\":[{\"type\":\"Applied\",\"status\":\"True\","
                           "\"reason\":\"AppliedSuccessful\",\"message\":\"ok\","
                           "\"lastTransitionTime\":\"2026-11-22T03:00:00Z\"}],"
                           "\"manifestStatuses\":[{\"identifier\":{\"ordinal\":0,\"group\":"
                           "\"scheduling.volcano.sh\",\"version\":\"v1beta1\",\"kind\":"
                           "\"PodGroup\",\"resource\":\"podgroups\",\"namespace\":\"team-a\","
                           "\"name\":\"muster-web-deployment\"},\"status\":{\"phase\":"
                           "\"Inqueue\",\"running\":0}}]}"));
    valid_as(WORK, work);
    CU_ASSERT_TRUE(karmada_gang_work_applied(work));
    CU_ASSERT_STRING_EQUAL(karmada_gang_work_podgroup_phase(work), "Inqueue");
    json_object_object_add(fx_at(work, "metadata"), "deletionTimestamp",
                           json_object_new_string("2026-11-22T03:00:00Z"));
    CU_ASSERT_FALSE(karmada_gang_work_applied(work)); /* being deleted: not this attempt's */
    json_object_put(work);
}

/* Every object and patch of the protocol, as one text, from the current rb, tmpl and w. */
static char *protocol_text(void)
{
    struct karmada_gang_share shares[] = {{"member1", 1}, {"member2", (int32_t)w.replicas - 1}};
    uint32_t n = w.replicas > 1 ? 2 : 1;
    if (n == 1)
        shares[0].replicas = w.replicas;
    struct karmada_gang_input in = input(shares, n);
    char why[256];
    CU_ASSERT_EQUAL(karmada_gang_input_check(&in, why, sizeof(why)), 0);
    json_object *all = json_object_new_array();
    for (uint32_t i = 0; i < n; i++)
        json_object_array_add(all, karmada_gang_podgroup_work(&in, i));
    json_object_array_add(all, karmada_gang_override_policy(&in));
    json_object_array_add(all, PATCH(karmada_patch_assign, &in, 1));
    json_object_array_add(all, PATCH(karmada_patch_status_scheduled, rb, "2026-01-01T00:00:00Z"));
    char *text = strdup(json_object_to_json_string_ext(all, JSON_C_TO_STRING_PLAIN));
    json_object_put(all);
    return text;
}

/* What the informers cache (karmada_workload_prune_template, _prune_binding) builds the same
 * objects and patches as the whole template and binding, whatever shape the pod's metadata
 * has. */
static void check_pruned_objects(const char *what)
{
    char *whole = protocol_text();
    json_object *pt = karmada_workload_prune_template(tmpl);
    json_object *prb = NULL;
    CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(rb, &prb, NULL), 0);
    json_object *p = karmada_workload_prune_binding(prb);
    json_object_put(prb);
    json_object_put(tmpl);
    json_object_put(rb);
    tmpl = pt;
    rb = p;
    reread();
    char *pruned = protocol_text();
    if (strcmp(whole, pruned) != 0)
        fprintf(stderr, "\n%s:\nwhole  %s\npruned %s\n", what, whole, pruned);
    CU_ASSERT_STRING_EQUAL(whole, pruned);
    free(whole);
    free(pruned);
}

static void test_pruned_objects_equal(void)
{
    static const char *const kinds[] = {"deployment", "job", "pod"};
    for (int k = 0; k < 3; k++) {
        load(kinds[k]);
        check_pruned_objects(kinds[k]);
        /* with the pod's annotations present */
        load(kinds[k]);
        json_object *pod = k == 2 ? tmpl : fx_at(tmpl, "spec/template");
        json_object *md = fx_at(pod, "metadata");
        if (!md) {
            md = json_object_new_object();
            json_object_object_add(pod, "metadata", md);
        }
        json_object *ann = json_object_new_object();
        json_object_object_add(ann, "prometheus.io/scrape", json_object_new_string("true"));
        json_object_object_add(md, "annotations", ann);
        check_pruned_objects(kinds[k]);
        /* pod metadata without annotations; for the Pod, its own metadata */
        load(kinds[k]);
        pod = k == 2 ? tmpl : fx_at(tmpl, "spec/template");
        if (!fx_at(pod, "metadata"))
            json_object_object_add(pod, "metadata", json_object_new_object());
        json_object_object_del(fx_at(pod, "metadata"), "annotations");
        check_pruned_objects(kinds[k]);
        /* with what a real hub adds to the binding */
        load(kinds[k]);
        json_object_object_add(fx_at(rb, "metadata"), "managedFields",
                               json_tokener_parse("[{\"manager\":\"karmada\"}]"));
        check_pruned_objects(kinds[k]);
    }
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
    {"names: prefixed, namespaced Works, long names cut and hashed apart", test_names},
    {"Deployment: one PodGroup Work per share, exact", test_deployment_work},
    {"Job: min-member below the gang scales per share", test_job_work_min_member},
    {"group-size: each share's min-member in whole groups", test_group_size_min_member},
    {"a pod group of several RBs: the lead's PodGroup, a member's policy", test_pod_group},
    {"input check refuses what would build wrong objects", test_input_check},
    {"Deployment OverridePolicy, applied to the template", test_deployment_policy},
    {"an existing pod-template annotation survives", test_existing_annotation_kept},
    {"a template naming muster's PodGroup and scheduler needs no policy", test_policy_redundant},
    {"another policy over the same paths stands in the way", test_policy_contested},
    {"Job without pod-template metadata", test_job_policy_without_pod_metadata},
    {"Pod paths", test_pod_paths},
    {"Volcano Job: neither Work nor policy", test_vcjob_gets_no_objects},
    {"step 2: clusters, applied placement, barrier", test_assign_patch},
    {"step 4 restores dispatching; resume", test_release_restores_dispatching},
    {"rollback: barrier, then clear back to the held RB", test_rollback_patches},
    {"Scheduled=True: other conditions kept, transition time only on flip", test_status_scheduled},
    {"Scheduled=True as a JSON patch: Karmada's writes meanwhile kept, a changed read is 422",
     test_status_scheduled_ops},
    {"the barrier judged on the rendered Works", test_rendered_barrier},
    {"PodGroup Work status: Applied and the member PodGroup's phase", test_work_status_read},
    {"pruned template and binding build the same objects", test_pruned_objects_equal},
    {"cleanup", test_cleanup},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/gang", tests)
