/* Tests for cluster-adapters/karmada/gang_dialects.c and the dialect writers of gang.c: each
 * member's dialect detected from its Cluster's status.apiEnablements, the coscheduling PodGroup
 * Work checked against scheduler-plugins' CRD, the Workload API's against a schema written from
 * Kubernetes' types.go, the per-cluster OverridePolicy rules (coscheduling
 * label, YuniKorn annotations, none) checked against Karmada's CRD and applied to the template as
 * Karmada applies them (RFC 6902), and the barrier judged for a member of dialect none. */
#include "cluster-adapters/karmada/gang_dialects.h"

#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/sim/patch.h"
#include "queue/errors.h"
#include "fixtures.h"
#include "testing.h"

#include <string.h>

enum { WORK, VOLCANO_PG, COSCHED_PG, POLICY, WL_PG, WL_PG_A2, NSCHEMAS };
static struct kube_schema *schemas[NSCHEMAS];
static const struct {
    const char *file, *version;
} crds[NSCHEMAS] = {
    {"karmada_work.karmada.io_works.yaml", "v1alpha1"},
    {"volcano_scheduling.volcano.sh_podgroups.yaml", "v1beta1"},
    {"schedulerplugins_scheduling.x-k8s.io_podgroups.yaml", "v1alpha1"},
    {"karmada_policy.karmada.io_overridepolicies.yaml", "v1alpha1"},
    /* written from Kubernetes' types.go: no CRD exists for the built-in type; 1.37's version
     * and 1.36's */
    {"kubernetes_scheduling.k8s.io_podgroups.yaml", "v1beta1"},
    {"kubernetes_scheduling.k8s.io_podgroups.yaml", "v1alpha2"},
};

static void valid_as(int which, json_object *o)
{
    fx_valid_as(&schemas[which], crds[which].file, crds[which].version, o);
}

static struct queue_resnames *names;
static struct karmada_workload w;
static json_object *rb, *tmpl;

static const char *s_at(json_object *o, const char *path)
{
    json_object *v = fx_at(o, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "<none>";
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
    CU_ASSERT_EQUAL_FATAL(karmada_workload_read(&w, names, rb, tmpl), 0);
}

static struct karmada_gang_input input(const struct karmada_gang_share *shares,
                                       const enum karmada_gang_dialect *d, uint32_t n)
{
    return (struct karmada_gang_input){.rb = rb,
                                       .w = &w,
                                       .names = names,
                                       .shares = shares,
                                       .nshares = n,
                                       .pod_scheduler = "volcano",
                                       .tmpl = tmpl,
                                       .dialects = d,
                                       .gang_timeout_s = 300};
}

/* The template as Karmada renders it for cluster: every rule that targets it (or every
 * cluster) applied in order (pkg/util/overridemanager). *nops gets the overriders applied. */
static json_object *overridden(json_object *policy, const char *cluster, size_t *nops)
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
    *nops = json_object_array_length(ops);
    json_object *out = NULL;
    char err[256] = "";
    int rc = sim_json_patch(tmpl, ops, &out, err, sizeof(err));
    if (rc)
        fprintf(stderr, "\njson patch: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object_put(ops);
    return out;
}

/* A Cluster whose status.apiEnablements lists gvs[i] with resources res[i]. */
static json_object *cluster_with(const char *const *gvs, const char *const *res, size_t n)
{
    json_object *c = json_object_new_object(), *st = json_object_new_object(),
                *en = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_new_object(), *rs = json_object_new_array(),
                    *r = json_object_new_object();
        json_object_object_add(r, "name", json_object_new_string(res[i]));
        json_object_object_add(r, "kind", json_object_new_string("X"));
        json_object_array_add(rs, r);
        json_object_object_add(e, "groupVersion", json_object_new_string(gvs[i]));
        json_object_object_add(e, "resources", rs);
        json_object_array_add(en, e);
    }
    json_object_object_add(st, "apiEnablements", en);
    json_object_object_add(c, "status", st);
    return c;
}

/* ---- detection ---- */

static void test_detect(void)
{
    static const char *const vc = "scheduling.volcano.sh/v1beta1",
                             *co = "scheduling.x-k8s.io/v1alpha1", *apps = "apps/v1",
                             *wl = "scheduling.k8s.io/v1alpha2", *wlb = "scheduling.k8s.io/v1beta1";
    struct {
        const char *gvs[3], *res[3];
        size_t n;
        enum karmada_gang_dialect want;
    } cases[] = {
        {{apps, vc}, {"deployments", "podgroups"}, 2, KARMADA_GANG_DIALECT_VOLCANO},
        {{apps, co}, {"deployments", "podgroups"}, 2, KARMADA_GANG_DIALECT_COSCHEDULING},
        /* both: Volcano first */
        {{co, vc}, {"podgroups", "podgroups"}, 2, KARMADA_GANG_DIALECT_VOLCANO},
        /* the group without its podgroups (Volcano's queues alone) is no dialect */
        {{apps, vc}, {"deployments", "queues"}, 2, KARMADA_GANG_DIALECT_NONE},
        {{apps}, {"deployments"}, 1, KARMADA_GANG_DIALECT_NONE},
        /* the Workload API's alpha podgroups (its workloads alone are no PodGroup to write) */
        {{apps, wl}, {"deployments", "podgroups"}, 2, KARMADA_GANG_DIALECT_WORKLOAD_API},
        {{apps, wl}, {"deployments", "workloads"}, 2, KARMADA_GANG_DIALECT_NONE},
        {{"scheduling.k8s.io/v1", apps},
         {"podgroups", "deployments"},
         2,
         KARMADA_GANG_DIALECT_NONE},
        /* 1.37's beta podgroups, alone or beside 1.36's */
        {{apps, wlb}, {"deployments", "podgroups"}, 2, KARMADA_GANG_DIALECT_WORKLOAD_API},
        {{wl, wlb}, {"podgroups", "podgroups"}, 2, KARMADA_GANG_DIALECT_WORKLOAD_API},
        {{apps, wlb}, {"deployments", "workloads"}, 2, KARMADA_GANG_DIALECT_NONE},
        /* after Volcano and coscheduling, installed on purpose */
        {{wl, co}, {"podgroups", "podgroups"}, 2, KARMADA_GANG_DIALECT_COSCHEDULING},
        {{wl, vc}, {"podgroups", "podgroups"}, 2, KARMADA_GANG_DIALECT_VOLCANO},
        {{wlb, co}, {"podgroups", "podgroups"}, 2, KARMADA_GANG_DIALECT_COSCHEDULING},
        /* an empty list is a report: none */
        {{NULL}, {NULL}, 0, KARMADA_GANG_DIALECT_NONE},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *c = cluster_with(cases[i].gvs, cases[i].res, cases[i].n);
        enum karmada_gang_dialect got = karmada_gang_dialect_detect(c);
        if (got != cases[i].want)
            fprintf(stderr, "\ncase %zu: %s\n", i, karmada_gang_dialect_name(got));
        CU_ASSERT_EQUAL(got, cases[i].want);
        json_object_put(c);
    }
    /* No apiEnablements at all (not collected yet): not judged, as before dialects. */
    json_object *bare = json_tokener_parse("{\"status\":{}}");
    CU_ASSERT_EQUAL(karmada_gang_dialect_detect(bare), KARMADA_GANG_DIALECT_VOLCANO);
    json_object_put(bare);
}

/* The version a Workload API member gets: v1beta1 when it serves it, else v1alpha2 when it
 * serves that, else v1beta1 (an override on a member whose apiEnablements say nothing). */
static void test_wl_version_detect(void)
{
    static const char *const wl = "scheduling.k8s.io/v1alpha2", *wlb = "scheduling.k8s.io/v1beta1",
                             *apps = "apps/v1";
    struct {
        const char *gvs[3], *res[3];
        size_t n;
        enum karmada_gang_wl_version want;
    } cases[] = {
        {{apps, wlb}, {"deployments", "podgroups"}, 2, KARMADA_GANG_WL_V1BETA1},
        {{apps, wl}, {"deployments", "podgroups"}, 2, KARMADA_GANG_WL_V1ALPHA2},
        {{wl, wlb}, {"podgroups", "podgroups"}, 2, KARMADA_GANG_WL_V1BETA1},
        {{wlb, wl}, {"podgroups", "podgroups"}, 2, KARMADA_GANG_WL_V1BETA1},
        /* beta workloads alone are no beta PodGroup: the alpha podgroups are what it serves */
        {{wlb, wl}, {"workloads", "podgroups"}, 2, KARMADA_GANG_WL_V1ALPHA2},
        {{apps}, {"deployments"}, 1, KARMADA_GANG_WL_V1BETA1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *c = cluster_with(cases[i].gvs, cases[i].res, cases[i].n);
        enum karmada_gang_wl_version got = karmada_gang_wl_version_detect(c);
        if (got != cases[i].want)
            fprintf(stderr, "\ncase %zu: %s\n", i, karmada_gang_wl_api_version(got));
        CU_ASSERT_EQUAL(got, cases[i].want);
        json_object_put(c);
    }
    json_object *bare = json_tokener_parse("{\"status\":{}}");
    CU_ASSERT_EQUAL(karmada_gang_wl_version_detect(bare), KARMADA_GANG_WL_V1BETA1);
    json_object_put(bare);
    CU_ASSERT_STRING_EQUAL(karmada_gang_wl_api_version(KARMADA_GANG_WL_V1BETA1),
                           "scheduling.k8s.io/v1beta1");
    CU_ASSERT_STRING_EQUAL(karmada_gang_wl_api_version(KARMADA_GANG_WL_V1ALPHA2),
                           "scheduling.k8s.io/v1alpha2");
    CU_ASSERT_STRING_EQUAL(karmada_gang_wl_scheduled_condition(KARMADA_GANG_WL_V1BETA1),
                           "PodGroupInitiallyScheduled");
    CU_ASSERT_STRING_EQUAL(karmada_gang_wl_scheduled_condition(KARMADA_GANG_WL_V1ALPHA2),
                           "PodGroupScheduled");
    CU_ASSERT_PTR_NULL(karmada_gang_wl_api_version((enum karmada_gang_wl_version)7));
}

static void test_names_parse(void)
{
    const char *all[] = {"volcano", "coscheduling", "yunikorn", "none", "workload-api"};
    for (int i = 0; i < 5; i++) {
        enum karmada_gang_dialect d;
        CU_ASSERT_EQUAL(karmada_gang_dialect_parse(all[i], &d), 0);
        CU_ASSERT_STRING_EQUAL(karmada_gang_dialect_name(d), all[i]);
        CU_ASSERT_EQUAL(karmada_gang_dialect_gangs(d), i != 3);
        CU_ASSERT_EQUAL(karmada_gang_dialect_has_work(d), i < 2 || i == 4);
    }
    CU_ASSERT_EQUAL(karmada_gang_dialect_parse("workload_api", &(enum karmada_gang_dialect){0}),
                    MUSTER_EINVAL);
    enum karmada_gang_dialect d = KARMADA_GANG_DIALECT_YUNIKORN;
    CU_ASSERT_EQUAL(karmada_gang_dialect_parse("Volcano", &d), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(karmada_gang_dialect_parse("", &d), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(karmada_gang_dialect_parse(NULL, &d), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(d, KARMADA_GANG_DIALECT_YUNIKORN); /* untouched on failure */
    CU_ASSERT_PTR_NULL(karmada_gang_dialect_name((enum karmada_gang_dialect)9));
}

/* ---- the coscheduling PodGroup Work ---- */

static void test_cosched_work(void)
{
    load("deployment"); /* 4 x (2 CPU, 4Gi) */
    struct karmada_gang_share shares[] = {{"vc1", 3}, {"co1", 1}};
    enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_VOLCANO,
                                     KARMADA_GANG_DIALECT_COSCHEDULING};
    struct karmada_gang_input in = input(shares, d, 2);
    CU_ASSERT_TRUE(karmada_gang_share_has_work(&in, 0) && karmada_gang_share_has_work(&in, 1));
    json_object *vw = karmada_gang_podgroup_work(&in, 0), *cw = karmada_gang_podgroup_work(&in, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(vw);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cw);
    valid_as(WORK, vw);
    valid_as(WORK, cw);
    json_object *vpg = fx_at(vw, "spec/workload/manifests/0"),
                *cpg = fx_at(cw, "spec/workload/manifests/0");
    valid_as(VOLCANO_PG, vpg);
    valid_as(COSCHED_PG, cpg);
    CU_ASSERT_STRING_EQUAL(s_at(vpg, "apiVersion"), "scheduling.volcano.sh/v1beta1");
    CU_ASSERT_STRING_EQUAL(s_at(cpg, "apiVersion"), "scheduling.x-k8s.io/v1alpha1");
    CU_ASSERT_STRING_EQUAL(s_at(cpg, "kind"), "PodGroup");
    CU_ASSERT_STRING_EQUAL(s_at(cpg, "metadata/name"), "muster-web-deployment");
    CU_ASSERT_STRING_EQUAL(s_at(cw, "metadata/namespace"), "karmada-es-co1");
    /* the Karmada shapes as for Volcano's */
    CU_ASSERT_STRING_EQUAL(s_at(cw, "metadata/finalizers/0"), "karmada.io/execution-controller");
    json_object *lab = fx_at(cpg, "metadata/labels"), *v = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(lab, "karmada.io/managed", &v));
    CU_ASSERT_TRUE(json_object_object_get_ex(lab, "scheduling.muster.io/binding-uid", &v));
    CU_ASSERT_FALSE(json_object_object_get_ex(lab, "resourcebinding.karmada.io/permanent-id", &v));
    /* minMember = the share, minResources = the share's, the gang timeout; no Volcano queue */
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(cpg, "spec/minMember")), 1);
    CU_ASSERT_STRING_EQUAL(s_at(cpg, "spec/minResources/cpu"), "2");
    CU_ASSERT_STRING_EQUAL(s_at(cpg, "spec/minResources/memory"), "4Gi");
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(cpg, "spec/scheduleTimeoutSeconds")), 300);
    CU_ASSERT_PTR_NULL(fx_at(cpg, "spec/queue"));
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(vpg, "spec/minMember")), 3);
    CU_ASSERT_PTR_NULL(fx_at(vpg, "spec/scheduleTimeoutSeconds"));
    json_object_put(vw);
    json_object_put(cw);
    /* no timeout: none written */
    in.gang_timeout_s = 0;
    cw = karmada_gang_podgroup_work(&in, 1);
    CU_ASSERT_PTR_NULL(fx_at(cw, "spec/workload/manifests/0/spec/scheduleTimeoutSeconds"));
    json_object_put(cw);
}

static void test_cosched_min_member_scaled(void)
{
    load("job"); /* parallelism 3, a gang of 2 */
    struct karmada_gang_share shares[] = {{"co1", 2}, {"co2", 1}};
    enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_COSCHEDULING,
                                     KARMADA_GANG_DIALECT_COSCHEDULING};
    struct karmada_gang_input in = input(shares, d, 2);
    json_object *w0 = karmada_gang_podgroup_work(&in, 0);
    valid_as(COSCHED_PG, fx_at(w0, "spec/workload/manifests/0"));
    /* ceil(2 x 2 / 3) = 2 */
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(w0, "spec/workload/manifests/0/spec/minMember")), 2);
    json_object_put(w0);
    /* every member coscheduling: one rule for all, the label added with the pod's metadata (the
     * Job's pod template has none), and no schedulerName */
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(op, "spec/overrideRules")), 1);
    CU_ASSERT_PTR_NULL(fx_at(op, "spec/overrideRules/0/targetCluster"));
    size_t nops;
    json_object *out = overridden(op, "co1", &nops);
    CU_ASSERT_EQUAL(nops, 1);
    json_object *l = fx_at(out, "spec/template/metadata/labels"), *v = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(l, "scheduling.x-k8s.io/pod-group", &v));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "muster-etl-job");
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/template/spec/schedulerName"));
    json_object_put(out);
    json_object_put(op);
}

/* ---- the Workload API's PodGroup Work ---- */

static void test_workload_api_work(void)
{
    load("deployment"); /* 4 x (2 CPU, 4Gi), the whole the gang */
    struct karmada_gang_share shares[] = {{"vc1", 3}, {"wl1", 1}};
    enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_VOLCANO,
                                     KARMADA_GANG_DIALECT_WORKLOAD_API};
    struct karmada_gang_input in = input(shares, d, 2);
    CU_ASSERT_TRUE(karmada_gang_share_has_work(&in, 1));
    json_object *ww = karmada_gang_podgroup_work(&in, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ww);
    valid_as(WORK, ww);
    json_object *pg = fx_at(ww, "spec/workload/manifests/0");
    valid_as(WL_PG, pg);
    /* no versions given: 1.37's */
    CU_ASSERT_STRING_EQUAL(s_at(pg, "apiVersion"), "scheduling.k8s.io/v1beta1");
    CU_ASSERT_STRING_EQUAL(s_at(pg, "kind"), "PodGroup");
    CU_ASSERT_STRING_EQUAL(s_at(pg, "metadata/name"), "muster-web-deployment");
    CU_ASSERT_STRING_EQUAL(s_at(pg, "metadata/namespace"), "team-a");
    CU_ASSERT_STRING_EQUAL(s_at(ww, "metadata/namespace"), "karmada-es-wl1");
    /* the Karmada shapes as for the others: the execution controller's finalizer, managed */
    CU_ASSERT_STRING_EQUAL(s_at(ww, "metadata/finalizers/0"), "karmada.io/execution-controller");
    json_object *v = NULL;
    CU_ASSERT_TRUE(
        json_object_object_get_ex(fx_at(pg, "metadata/labels"), "karmada.io/managed", &v));
    /* the gang policy: minCount = the member's share; nothing the API does not have */
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(pg, "spec/schedulingPolicy/gang/minCount")), 1);
    CU_ASSERT_EQUAL(json_object_object_length(fx_at(pg, "spec")), 1);
    CU_ASSERT_PTR_NULL(fx_at(pg, "spec/schedulingPolicy/basic"));
    json_object_put(ww);
    /* the schema written from types.go refuses what the API server would */
    json_object *bad =
        json_tokener_parse("{\"apiVersion\":\"scheduling.k8s.io/v1alpha2\",\"kind\":\"PodGroup\","
                           "\"metadata\":{\"name\":\"x\"},\"spec\":{\"schedulingPolicy\":{\"gang\":"
                           "{\"minCount\":0},\"basic\":{}},\"minMember\":3}}");
    struct kube_schema_errors errs;
    json_object *basic = json_tokener_parse("{\"spec\":{\"schedulingPolicy\":{\"basic\":{}}}}");
    for (int k = WL_PG; k <= WL_PG_A2; k++) {
        valid_as(k, basic); /* loads it */
        kube_schema_errors_init(&errs);
        CU_ASSERT_NOT_EQUAL(kube_schema_validate(schemas[k], bad, &errs), 0);
        CU_ASSERT_TRUE(errs.count >= 2); /* minCount below 1, both policies, an unknown field */
        kube_schema_errors_close(&errs);
    }
    json_object_put(basic);
    json_object_put(bad);
    /* what each version renamed is refused by the other's schema: v1alpha2's template
     * reference and topology constraints are v1beta1's workloadRef and topology */
    static const char *const a2 =
        "{\"spec\":{\"podGroupTemplateRef\":{\"workload\":{\"workloadName\":\"w\","
        "\"podGroupTemplateName\":\"t\"}},\"schedulingPolicy\":{\"basic\":{}},"
        "\"schedulingConstraints\":{\"topologyConstraints\":[{\"topologyKey\":\"rack\"}]}}}";
    static const char *const b1 =
        "{\"spec\":{\"workloadRef\":{\"workloadName\":\"w\",\"templateName\":\"t\"},"
        "\"schedulingPolicy\":{\"gang\":{\"minCount\":2}},\"schedulingConstraints\":"
        "{\"topology\":[{\"key\":\"rack\"}]},\"disruptionMode\":{\"single\":{}},"
        "\"priorityClassName\":\"high\",\"priority\":1000,\"preemptionPolicy\":\"Never\","
        "\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"t\"}]}}";
    struct {
        const char *text;
        int schema, ok;
    } renamed[] = {{a2, WL_PG_A2, 1}, {a2, WL_PG, 0}, {b1, WL_PG, 1}, {b1, WL_PG_A2, 0}};
    for (size_t k = 0; k < sizeof renamed / sizeof renamed[0]; k++) {
        json_object *o = json_tokener_parse(renamed[k].text);
        kube_schema_errors_init(&errs);
        int rc = kube_schema_validate(schemas[renamed[k].schema], o, &errs);
        if ((rc == 0) != renamed[k].ok)
            fprintf(stderr, "\nrenamed case %zu: rc %d\n", k, rc);
        CU_ASSERT_EQUAL(rc == 0, renamed[k].ok);
        kube_schema_errors_close(&errs);
        json_object_put(o);
    }
    /* v1beta1's unions: one disruption mode, a claim naming exactly one source */
    static const char *const b1bad[] = {
        "{\"spec\":{\"schedulingPolicy\":{\"basic\":{}},\"disruptionMode\":{\"single\":{},"
        "\"all\":{}}}}",
        "{\"spec\":{\"schedulingPolicy\":{\"basic\":{}},\"resourceClaims\":[{\"name\":\"g\","
        "\"resourceClaimName\":\"a\",\"resourceClaimTemplateName\":\"b\"}]}}",
        "{\"spec\":{\"schedulingPolicy\":{\"basic\":{}},\"preemptionPolicy\":\"Always\"}}",
        "{\"spec\":{\"schedulingPolicy\":{\"basic\":{}},\"priority\":1000000001}}",
    };
    for (size_t k = 0; k < sizeof b1bad / sizeof b1bad[0]; k++) {
        json_object *o = json_tokener_parse(b1bad[k]);
        kube_schema_errors_init(&errs);
        CU_ASSERT_NOT_EQUAL(kube_schema_validate(schemas[WL_PG], o, &errs), 0);
        kube_schema_errors_close(&errs);
        json_object_put(o);
    }
    /* a member serving 1.36's version gets 1.36's PodGroup, the same spec, valid there */
    enum karmada_gang_wl_version vs[] = {KARMADA_GANG_WL_V1BETA1, KARMADA_GANG_WL_V1ALPHA2};
    in.wl_versions = vs;
    ww = karmada_gang_podgroup_work(&in, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ww);
    valid_as(WORK, ww);
    pg = fx_at(ww, "spec/workload/manifests/0");
    valid_as(WL_PG_A2, pg);
    CU_ASSERT_STRING_EQUAL(s_at(pg, "apiVersion"), "scheduling.k8s.io/v1alpha2");
    CU_ASSERT_STRING_EQUAL(s_at(pg, "kind"), "PodGroup");
    CU_ASSERT_STRING_EQUAL(s_at(pg, "metadata/name"), "muster-web-deployment");
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(pg, "spec/schedulingPolicy/gang/minCount")), 1);
    CU_ASSERT_EQUAL(json_object_object_length(fx_at(pg, "spec")), 1);
    json_object_put(ww);
    /* the Volcano share is not touched by a version */
    ww = karmada_gang_podgroup_work(&in, 0);
    CU_ASSERT_STRING_EQUAL(s_at(ww, "spec/workload/manifests/0/apiVersion"),
                           "scheduling.volcano.sh/v1beta1");
    json_object_put(ww);
    /* the minCount scaled as the others' minMember: a gang of 2 of 3, 2 pods here: ceil(4/3) */
    load("job");
    struct karmada_gang_share two[] = {{"wl1", 2}, {"wl2", 1}};
    enum karmada_gang_dialect dd[] = {KARMADA_GANG_DIALECT_WORKLOAD_API,
                                      KARMADA_GANG_DIALECT_WORKLOAD_API};
    in = input(two, dd, 2);
    ww = karmada_gang_podgroup_work(&in, 0);
    valid_as(WL_PG, fx_at(ww, "spec/workload/manifests/0"));
    CU_ASSERT_EQUAL(json_object_get_int(
                        fx_at(ww, "spec/workload/manifests/0/spec/schedulingPolicy/gang/minCount")),
                    2);
    json_object_put(ww);
    /* every member Workload API: one rule, the pods' schedulingGroup, no schedulerName */
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(op, "spec/overrideRules")), 1);
    CU_ASSERT_PTR_NULL(fx_at(op, "spec/overrideRules/0/targetCluster"));
    size_t nops;
    json_object *out = overridden(op, "wl2", &nops);
    CU_ASSERT_EQUAL(nops, 1);
    CU_ASSERT_STRING_EQUAL(s_at(out, "spec/template/spec/schedulingGroup/podGroupName"),
                           "muster-etl-job");
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/template/spec/schedulerName"));
    json_object_put(out);
    /* a schedulingGroup the template already names (the hub's group) is replaced */
    json_object_object_add(fx_at(tmpl, "spec/template/spec"), "schedulingGroup",
                           json_tokener_parse("{\"podGroupName\":\"hub-pg\"}"));
    out = overridden(op, "wl1", &nops);
    CU_ASSERT_STRING_EQUAL(s_at(out, "spec/template/spec/schedulingGroup/podGroupName"),
                           "muster-etl-job");
    json_object_put(out);
    json_object_put(op);
}

/* What Karmada reflects of a Workload API PodGroup is its conditions: PodGroupScheduled
 * (v1alpha2) or PodGroupInitiallyScheduled (v1beta1) True reads as Running, as a Volcano or
 * coscheduling phase does. */
static void test_workload_api_running(void)
{
    static const struct {
        const char *status, *want;
    } cases[] = {
        {"{\"phase\":\"Running\"}", "Running"},
        {"{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"True\","
         "\"reason\":\"Scheduled\"}]}",
         "Running"},
        {"{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"False\","
         "\"reason\":\"Unschedulable\"}]}",
         "Pending"},
        {"{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"Unknown\"}]}", "Pending"},
        /* v1beta1's name for it (kubernetes/kubernetes#139743), after another condition */
        {"{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"False\"},"
         "{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"True\"}]}",
         "Running"},
        {"{\"conditions\":[{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"False\","
         "\"reason\":\"Unschedulable\"}]}",
         "Pending"},
        {"{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\"}]}", NULL},
        {"{\"conditions\":[{\"type\":\"Other\",\"status\":\"True\"}]}", NULL},
        {"{}", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"status\":{\"manifestStatuses\":[{\"status\":%s}]}}",
                 cases[i].status);
        json_object *work = json_tokener_parse(text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(work);
        const char *got = karmada_gang_work_podgroup_phase(work);
        if (cases[i].want) {
            CU_ASSERT_STRING_EQUAL(got ? got : "<null>", cases[i].want);
        } else {
            CU_ASSERT_PTR_NULL(got);
        }
        json_object_put(work);
    }
}

/* ---- the OverridePolicy over members of several dialects ---- */

static void test_mixed_policy(void)
{
    load("deployment");
    struct karmada_gang_share shares[] = {{"vc1", 1}, {"co1", 1}, {"yk1", 2}};
    enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_VOLCANO,
                                     KARMADA_GANG_DIALECT_COSCHEDULING,
                                     KARMADA_GANG_DIALECT_YUNIKORN};
    struct karmada_gang_input in = input(shares, d, 3);
    CU_ASSERT_FALSE(karmada_gang_share_has_work(&in, 2));
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 2)); /* YuniKorn: no object */
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    json_object *rules = fx_at(op, "spec/overrideRules");
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(rules), 3);
    for (size_t i = 0; i < 3; i++)
        CU_ASSERT_STRING_EQUAL(
            s_at(json_object_array_get_idx(rules, i), "targetCluster/clusterNames/0"),
            shares[i].cluster);
    size_t nops;
    /* Volcano: the group-name annotation (added as an object: the template has none) */
    json_object *out = overridden(op, "vc1", &nops);
    CU_ASSERT_EQUAL(nops, 2);
    json_object *v = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(fx_at(out, "spec/template/metadata/annotations"),
                                             "scheduling.k8s.io/group-name", &v));
    CU_ASSERT_STRING_EQUAL(s_at(out, "spec/template/spec/schedulerName"), "volcano");
    json_object_put(out);
    /* coscheduling: the pod-group label next to the template's own */
    out = overridden(op, "co1", &nops);
    CU_ASSERT_EQUAL(nops, 1);
    json_object *l = fx_at(out, "spec/template/metadata/labels");
    CU_ASSERT_STRING_EQUAL(s_at(l, "app"), "web");
    CU_ASSERT_TRUE(json_object_object_get_ex(l, "scheduling.x-k8s.io/pod-group", &v));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "muster-web-deployment");
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/template/metadata/annotations"));
    json_object_put(out);
    /* YuniKorn: the task group of the share (minMember 2, the per-pod request) */
    out = overridden(op, "yk1", &nops);
    CU_ASSERT_EQUAL(nops, 2);
    json_object *a = fx_at(out, "spec/template/metadata/annotations");
    CU_ASSERT_STRING_EQUAL(s_at(out, "spec/template/spec/schedulerName"), "yunikorn");
    CU_ASSERT_TRUE(json_object_object_get_ex(a, KARMADA_GANG_YK_TASK_GROUP_NAME, &v));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "muster");
    CU_ASSERT_TRUE(json_object_object_get_ex(a, KARMADA_GANG_YK_APP_ID, &v));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "muster-pg-team-a.web-deployment");
    CU_ASSERT_TRUE(json_object_object_get_ex(a, KARMADA_GANG_YK_POLICY, &v));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v),
                           "placeholderTimeoutInSeconds=300 gangSchedulingStyle=Hard");
    CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(a, KARMADA_GANG_YK_TASK_GROUPS, &v));
    json_object *tg = json_tokener_parse(json_object_get_string(v));
    CU_ASSERT_PTR_NOT_NULL_FATAL(tg);
    CU_ASSERT_EQUAL(json_object_array_length(tg), 1);
    CU_ASSERT_STRING_EQUAL(s_at(tg, "0/name"), "muster");
    CU_ASSERT_EQUAL(json_object_get_int(fx_at(tg, "0/minMember")), 2);
    CU_ASSERT_STRING_EQUAL(s_at(tg, "0/minResource/cpu"), "2");
    CU_ASSERT_STRING_EQUAL(s_at(tg, "0/minResource/memory"), "4Gi");
    json_object_put(tg);
    json_object_put(out);
    json_object_put(op);
}

/* A member of dialect none gets no rule (and no Work); an annotation the template has already
 * survives the YuniKorn keys, added one by one. */
static void test_none_and_existing_annotations(void)
{
    load("deployment");
    json_object *pm = fx_at(tmpl, "spec/template/metadata"), *ann = json_object_new_object();
    json_object_object_add(ann, "team", json_object_new_string("a"));
    json_object_object_add(pm, "annotations", ann);
    struct karmada_gang_share shares[] = {{"yk1", 3}, {"none1", 1}};
    enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_YUNIKORN, KARMADA_GANG_DIALECT_NONE};
    struct karmada_gang_input in = input(shares, d, 2);
    CU_ASSERT_PTR_NULL(karmada_gang_podgroup_work(&in, 1));
    json_object *op = karmada_gang_override_policy(&in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    valid_as(POLICY, op);
    CU_ASSERT_EQUAL(json_object_array_length(fx_at(op, "spec/overrideRules")), 1);
    size_t nops;
    json_object *out = overridden(op, "none1", &nops);
    CU_ASSERT_EQUAL(nops, 0);
    CU_ASSERT_PTR_NULL(fx_at(out, "spec/template/spec/schedulerName"));
    json_object_put(out);
    out = overridden(op, "yk1", &nops);
    CU_ASSERT_EQUAL(nops, 5); /* four keys, then schedulerName */
    json_object *a = fx_at(out, "spec/template/metadata/annotations");
    CU_ASSERT_STRING_EQUAL(s_at(a, "team"), "a");
    CU_ASSERT_EQUAL(json_object_object_length(a), 5);
    json_object_put(out);
    json_object_put(op);
}

/* The barrier: no rule names a member of dialect none, so its Work is judged by its suspension
 * alone; a Volcano member's still needs the policy. */
static void test_barrier_none(void)
{
    json_object *items = json_tokener_parse(
        "[{\"metadata\":{\"name\":\"w\",\"namespace\":\"karmada-es-none1\"},"
        "\"spec\":{\"suspendDispatching\":true}},"
        "{\"metadata\":{\"name\":\"w\",\"namespace\":\"karmada-es-vc1\",\"annotations\":{"
        "\"policy.karmada.io/applied-overrides\":\"[{\\\"policyName\\\":\\\"muster-x\\\"}]\"}},"
        "\"spec\":{\"suspendDispatching\":true}}]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(items);
    struct karmada_gang_share shares[] = {{"none1", 1}, {"vc1", 1}};
    enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_NONE, KARMADA_GANG_DIALECT_VOLCANO};
    char why[200];
    CU_ASSERT_EQUAL(
        karmada_gang_rendered_judge_dialects(items, shares, d, 2, "muster-x", why, sizeof(why)),
        KARMADA_GANG_RENDERED_READY);
    /* judged as Volcano everywhere, none1's Work waits for a policy no rule brings */
    CU_ASSERT_EQUAL(karmada_gang_rendered_judge(items, shares, 2, "muster-x", why, sizeof(why)),
                    KARMADA_GANG_RENDERED_WAIT);
    /* released without the policy: a none member is OPEN, a Volcano one VANISHED */
    json_object_object_add(fx_at(items, "0/spec"), "suspendDispatching",
                           json_object_new_boolean(0));
    CU_ASSERT_EQUAL(
        karmada_gang_rendered_judge_dialects(items, shares, d, 2, "muster-x", why, sizeof(why)),
        KARMADA_GANG_RENDERED_READY);
    d[0] = KARMADA_GANG_DIALECT_VOLCANO;
    CU_ASSERT_EQUAL(
        karmada_gang_rendered_judge_dialects(items, shares, d, 2, "muster-x", why, sizeof(why)),
        KARMADA_GANG_RENDERED_VANISHED);
    json_object_put(items);
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
    {"dialect detected from apiEnablements, Volcano first", test_detect},
    {"Workload API version detected: v1beta1, else v1alpha2", test_wl_version_detect},
    {"dialect names parse and print", test_names_parse},
    {"coscheduling PodGroup Work beside a Volcano one, valid", test_cosched_work},
    {"coscheduling: minMember scaled, one rule, the label", test_cosched_min_member_scaled},
    {"Workload API PodGroup Work beside a Volcano one, valid; schedulingGroup",
     test_workload_api_work},
    {"Workload API: PodGroup(Initially)Scheduled reads as Running", test_workload_api_running},
    {"members of three dialects: one rule each, applied", test_mixed_policy},
    {"none: no rule, no Work; existing annotations kept", test_none_and_existing_annotations},
    {"the barrier over a member of dialect none", test_barrier_none},
    {"cleanup", test_cleanup},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/gang_dialects", tests)
