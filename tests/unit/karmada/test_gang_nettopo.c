/* Tests for cluster-adapters/karmada/gang_nettopo.c: the member-topology annotations, a member's
 * HyperNodes read from its Cluster's apiEnablements, and Volcano's networkTopology fields in the
 * PodGroups gang.c and gang_split.c write (only for members that have HyperNodes), every object
 * validated against the vendored Volcano PodGroup CRD (volcano master, which has them). */
#include "cluster-adapters/karmada/gang_nettopo.h"

#include "cluster-adapters/karmada/gang.h"
#include "cluster-adapters/karmada/gang_split.h"
#include "cluster-adapters/karmada/workload_prune.h"
#include "cluster-adapters/kube/schema.h"
#include "queue/errors.h"
#include "fixtures.h"
#include "testing.h"

#include <stdarg.h>
#include <string.h>

enum { WORK, PODGROUP, NSCHEMAS };
static struct kube_schema *schemas[NSCHEMAS];
static const struct {
    const char *file, *version;
} crds[NSCHEMAS] = {
    {"karmada_work.karmada.io_works.yaml", "v1alpha1"},
    {"volcano_scheduling.volcano.sh_podgroups.yaml", "v1beta1"},
};

static void valid_as(int which, json_object *o)
{
    fx_valid_as(&schemas[which], crds[which].file, crds[which].version, o);
}

static struct queue_resnames *names;
static struct karmada_workload w;
static json_object *rb, *tmpl;

static const char *t_at(json_object *o, const char *path)
{
    json_object *v = fx_at(o, path);
    if (!v)
        return "<none>";
    return json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

/* kind's fixture pair, with the annotations given (key, value pairs; NULL-terminated) added to
 * the template (on_rb: to the binding instead). */
static void load(const char *kind, int on_rb, ...)
{
    char rel[256];
    json_object_put(rb);
    json_object_put(tmpl);
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s-rb.json", kind);
    rb = fx_load_json(rel);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    snprintf(rel, sizeof(rel), "tests/fixtures/workloads/%s.yaml", kind);
    tmpl = fx_load_yaml(rel);
    json_object *meta = json_object_object_get(on_rb ? rb : tmpl, "metadata");
    json_object *ann = json_object_object_get(meta, "annotations");
    if (!ann) {
        ann = json_object_new_object();
        json_object_object_add(meta, "annotations", ann);
    }
    va_list ap;
    va_start(ap, on_rb);
    const char *k;
    while ((k = va_arg(ap, const char *)))
        json_object_object_add(ann, k, json_object_new_string(va_arg(ap, const char *)));
    va_end(ap);
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

/* ---- reading the annotations ---- */

static void test_read(void)
{
    struct karmada_member_topo t;
    char why[512];
    load("deployment", 0, KARMADA_NETTOPO_REQUIRED, "2", NULL);
    CU_ASSERT_EQUAL(karmada_member_topo_read(&t, &w, 0, rb, tmpl, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(t.share.tier, 2);
    CU_ASSERT_EQUAL(t.share.required, 1);
    CU_ASSERT_EQUAL(t.group.tier, 0);

    load("deployment", 1, KARMADA_NETTOPO_PREFERRED, "1", NULL); /* on the binding */
    CU_ASSERT_EQUAL(karmada_member_topo_read(&t, &w, 0, rb, tmpl, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(t.share.tier, 1);
    CU_ASSERT_EQUAL(t.share.required, 0);

    load("deployment", 0, NULL); /* nothing asked: nothing, whatever the kind */
    CU_ASSERT_EQUAL(karmada_member_topo_read(&t, &w, 0, rb, tmpl, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(t.share.tier + t.group.tier, 0);

    /* the template wins over the binding */
    load("deployment", 1, KARMADA_NETTOPO_REQUIRED, "3", NULL);
    json_object_object_add(
        json_object_object_get(json_object_object_get(tmpl, "metadata"), "annotations"),
        KARMADA_NETTOPO_REQUIRED, json_object_new_string("1"));
    CU_ASSERT_EQUAL(karmada_member_topo_read(&t, &w, 0, rb, tmpl, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(t.share.tier, 1);

    /* a split JobSet may ask it of each group too */
    load("jobset-shards", 0, KARMADA_NETTOPO_GROUP_REQUIRED, "1", KARMADA_NETTOPO_PREFERRED, "2",
         NULL);
    CU_ASSERT_EQUAL(karmada_member_topo_read(&t, &w, 1, rb, tmpl, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(t.group.tier, 1);
    CU_ASSERT_EQUAL(t.group.required, 1);
    CU_ASSERT_EQUAL(t.share.tier, 2);
    CU_ASSERT_EQUAL(t.share.required, 0);
}

/* The informers cache pruned templates and bindings (workload_prune.c): the annotations
 * survive on both, so what musterd reads is what the user wrote. */
static void test_read_pruned(void)
{
    static const char *const keys[] = {KARMADA_NETTOPO_REQUIRED, KARMADA_NETTOPO_PREFERRED,
                                       KARMADA_NETTOPO_GROUP_REQUIRED,
                                       KARMADA_NETTOPO_GROUP_PREFERRED};
    for (int on_rb = 0; on_rb < 2; on_rb++)
        for (size_t i = 0; i < 4; i++) {
            load("jobset-shards", on_rb, keys[i], "3", NULL);
            json_object *pt = karmada_workload_prune_template(tmpl);
            json_object *pr = karmada_workload_prune_binding(rb); /* in place: rb is loaded again */
            struct karmada_member_topo t;
            char why[512];
            CU_ASSERT_EQUAL(karmada_member_topo_read(&t, &w, 1, pr, pt, why, sizeof(why)), 0);
            CU_ASSERT_EQUAL(i < 2 ? t.share.tier : t.group.tier, 3);
            CU_ASSERT_EQUAL(i < 2 ? t.share.required : t.group.required, i % 2 == 0);
            json_object_put(pt);
            json_object_put(pr);
        }
}

static void expect_refused(int split, const char *needle)
{
    struct karmada_member_topo t;
    char why[512] = "";
    CU_ASSERT_EQUAL(karmada_member_topo_read(&t, &w, split, rb, tmpl, why, sizeof(why)),
                    MUSTER_EINVAL);
    CU_ASSERT_TRUE(fx_has(why, needle));
    CU_ASSERT_EQUAL(t.share.tier + t.group.tier, 0);
}

static void test_refused(void)
{
    /* "rack" is a tier name since session 11 (test_names); these are neither */
    static const char *const bad[] = {"0", "17", "-1", "1x", "", "rack-", "le af", "_x",
                                      "a234567890123456789012345678901234567890123456789012345678901234"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        load("deployment", 0, KARMADA_NETTOPO_REQUIRED, bad[i], NULL);
        expect_refused(0, "is not a HyperNode tier: a whole number from 1");
    }
    load("deployment", 0, KARMADA_NETTOPO_REQUIRED, "1", KARMADA_NETTOPO_PREFERRED, "2", NULL);
    expect_refused(0, "one mode (hard or soft) per scope");
    load("vcjob", 0, KARMADA_NETTOPO_REQUIRED, "1", NULL);
    expect_refused(0, "state its spec.networkTopology");
    load("jobset-shards", 0, KARMADA_NETTOPO_REQUIRED, "1", NULL);
    expect_refused(0, "a JobSet kept whole gets no PodGroup from muster");
    load("deployment", 0, KARMADA_NETTOPO_GROUP_PREFERRED, "1", NULL);
    expect_refused(0, "Use " KARMADA_NETTOPO_PREFERRED " for each cluster's share");
}

/* ---- detection ---- */

static json_object *cluster_serving(const char *gv, const char *resource)
{
    char txt[512];
    snprintf(txt, sizeof(txt),
             "{\"metadata\":{\"name\":\"east\"},\"status\":{\"apiEnablements\":["
             "{\"groupVersion\":\"scheduling.volcano.sh/v1beta1\",\"resources\":[{\"name\":"
             "\"podgroups\",\"kind\":\"PodGroup\"}]},"
             "{\"groupVersion\":\"%s\",\"resources\":[{\"name\":\"%s\",\"kind\":\"X\"}]}]}}",
             gv, resource);
    json_object *o = json_tokener_parse(txt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

static void test_detect(void)
{
    json_object *k = cluster_serving("topology.volcano.sh/v1alpha1", "hypernodes");
    CU_ASSERT_EQUAL(karmada_member_topo_detect(k), 1);
    json_object_put(k);
    k = cluster_serving("nodeinfo.volcano.sh/v1alpha1", "numatopologies"); /* not the one */
    CU_ASSERT_EQUAL(karmada_member_topo_detect(k), 0);
    json_object_put(k);
    k = cluster_serving("topology.volcano.sh/v1alpha2", "hypernodes"); /* not a version known */
    CU_ASSERT_EQUAL(karmada_member_topo_detect(k), 0);
    json_object_put(k);
    k = json_tokener_parse("{\"metadata\":{\"name\":\"east\"},\"status\":{}}");
    CU_ASSERT_EQUAL(karmada_member_topo_detect(k), 0); /* none reported yet: nothing written */
    json_object_put(k);
}

/* ---- the PodGroups ---- */

/* A Deployment gang over two members, east with HyperNodes and west without: east's PodGroup
 * says hard within tier 2, west's says nothing; preferred writes soft. */
static void test_podgroup_share(void)
{
    load("deployment", 0, KARMADA_NETTOPO_REQUIRED, "2", NULL);
    struct karmada_member_topo t;
    char why[512];
    CU_ASSERT_EQUAL_FATAL(karmada_member_topo_read(&t, &w, 0, rb, tmpl, why, sizeof(why)), 0);
    int32_t half = w.replicas / 2;
    struct karmada_gang_share shares[] = {{"east", w.replicas - half}, {"west", half}};
    const uint8_t net[] = {1, 0};
    struct karmada_gang_input in = {.rb = rb,
                                    .w = &w,
                                    .names = names,
                                    .shares = shares,
                                    .nshares = half ? 2 : 1,
                                    .tmpl = tmpl,
                                    .member_topo = &t,
                                    .net_topo = net};
    CU_ASSERT_EQUAL_FATAL(karmada_gang_input_check(&in, why, sizeof(why)), 0);
    CU_ASSERT_FATAL(half > 0);
    json_object *east = karmada_gang_podgroup_work(&in, 0);
    json_object *west = karmada_gang_podgroup_work(&in, 1);
    valid_as(WORK, east);
    valid_as(WORK, west);
    json_object *pe = fx_at(east, "spec/workload/manifests/0");
    json_object *pw = fx_at(west, "spec/workload/manifests/0");
    valid_as(PODGROUP, pe);
    valid_as(PODGROUP, pw);
    CU_ASSERT_STRING_EQUAL(t_at(pe, "spec/networkTopology/mode"), "hard");
    CU_ASSERT_STRING_EQUAL(t_at(pe, "spec/networkTopology/highestTierAllowed"), "2");
    CU_ASSERT_PTR_NULL(fx_at(pw, "spec/networkTopology"));
    json_object_put(east);
    json_object_put(west);

    t.share.required = 0;
    east = karmada_gang_podgroup_work(&in, 0);
    pe = fx_at(east, "spec/workload/manifests/0");
    valid_as(PODGROUP, pe);
    CU_ASSERT_STRING_EQUAL(t_at(pe, "spec/networkTopology/mode"), "soft");
    json_object_put(east);

    /* without the member's HyperNodes known (net_topo NULL), or without the topology: none */
    in.net_topo = NULL;
    east = karmada_gang_podgroup_work(&in, 0);
    CU_ASSERT_PTR_NULL(fx_at(east, "spec/workload/manifests/0/spec/networkTopology"));
    json_object_put(east);
    in.net_topo = net;
    in.member_topo = NULL;
    east = karmada_gang_podgroup_work(&in, 0);
    CU_ASSERT_PTR_NULL(fx_at(east, "spec/workload/manifests/0/spec/networkTopology"));
    json_object_put(east);

    /* a coscheduling member has no such field: nothing, even with HyperNodes */
    in.member_topo = &t;
    const enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_COSCHEDULING,
                                           KARMADA_GANG_DIALECT_VOLCANO};
    in.dialects = d;
    east = karmada_gang_podgroup_work(&in, 0);
    CU_ASSERT_STRING_EQUAL(t_at(east, "spec/workload/manifests/0/apiVersion"),
                           "scheduling.x-k8s.io/v1alpha1");
    CU_ASSERT_PTR_NULL(fx_at(east, "spec/workload/manifests/0/spec/networkTopology"));
    json_object_put(east);
}

/* The training job split by groups: 2 shards in each member. East (HyperNodes) keeps its share
 * within tier 2 if it can and each shard on one tier-1 switch, hard; west gets neither. */
static void test_podgroup_split(void)
{
    load("jobset-shards", 0, KARMADA_NETTOPO_GROUP_REQUIRED, "1", KARMADA_NETTOPO_PREFERRED, "2",
         NULL);
    struct karmada_member_topo t;
    char why[512];
    CU_ASSERT_EQUAL_FATAL(karmada_member_topo_read(&t, &w, 1, rb, tmpl, why, sizeof(why)), 0);
    struct karmada_gang_share shares[] = {{"east", 16}, {"west", 16}};
    struct karmada_gang_split split[] = {{2, 2, 0}, {2, 2, 0}};
    const uint8_t net[] = {1, 0};
    struct karmada_gang_input in = {.rb = rb,
                                    .w = &w,
                                    .names = names,
                                    .shares = shares,
                                    .nshares = 2,
                                    .tmpl = tmpl,
                                    .split = split,
                                    .nsets = 1,
                                    .member_topo = &t,
                                    .net_topo = net};
    int rc = karmada_gang_input_check(&in, why, sizeof(why));
    if (rc)
        fprintf(stderr, "\n%s\n", why);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object *east = karmada_gang_podgroup_work(&in, 0);
    json_object *west = karmada_gang_podgroup_work(&in, 1);
    valid_as(WORK, east);
    json_object *pe = fx_at(east, "spec/workload/manifests/0");
    json_object *pw = fx_at(west, "spec/workload/manifests/0");
    valid_as(PODGROUP, pe);
    valid_as(PODGROUP, pw);
    CU_ASSERT_STRING_EQUAL(t_at(pe, "spec/networkTopology/mode"), "soft");
    CU_ASSERT_STRING_EQUAL(t_at(pe, "spec/networkTopology/highestTierAllowed"), "2");
    CU_ASSERT_STRING_EQUAL(t_at(pe, "spec/subGroupPolicy/0/networkTopology/mode"), "hard");
    CU_ASSERT_STRING_EQUAL(t_at(pe, "spec/subGroupPolicy/0/networkTopology/highestTierAllowed"),
                           "1");
    CU_ASSERT_STRING_EQUAL(t_at(pe, "spec/subGroupPolicy/0/subGroupSize"), "8"); /* as before */
    CU_ASSERT_PTR_NULL(fx_at(pw, "spec/networkTopology"));
    CU_ASSERT_PTR_NOT_NULL(fx_at(pw, "spec/subGroupPolicy/0"));
    CU_ASSERT_PTR_NULL(fx_at(pw, "spec/subGroupPolicy/0/networkTopology"));
    json_object_put(east);
    json_object_put(west);
}

/* ---- tiers by name (highestTierName, Volcano v1.14.0) ---- */

static void test_names(void)
{
    load("jobset-shards", 0, KARMADA_NETTOPO_GROUP_REQUIRED, "leaf", KARMADA_NETTOPO_PREFERRED,
         "spine.v2", NULL);
    struct karmada_member_topo t;
    struct karmada_member_topo_names nm;
    char why[512];
    CU_ASSERT_EQUAL_FATAL(karmada_member_topo_read_names(&t, &nm, &w, 1, rb, tmpl, why, sizeof(why)),
                          0);
    CU_ASSERT_EQUAL(t.group.tier, KARMADA_NETTOPO_TIER_NAMED);
    CU_ASSERT_TRUE(t.group.required);
    CU_ASSERT_EQUAL(t.share.tier, KARMADA_NETTOPO_TIER_NAMED);
    CU_ASSERT_FALSE(t.share.required);
    CU_ASSERT_STRING_EQUAL(nm.group, "leaf");
    CU_ASSERT_STRING_EQUAL(nm.share, "spine.v2");
    /* the binding's read keeps no name, only that there is one */
    struct karmada_member_topo t2;
    CU_ASSERT_EQUAL(karmada_member_topo_read(&t2, &w, 1, rb, tmpl, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(memcmp(&t, &t2, sizeof t), 0);

    /* east reads names (bit 2), mid has HyperNodes but an older Volcano, west has none */
    struct karmada_gang_share shares[] = {{"east", 16}, {"mid", 8}, {"west", 8}};
    struct karmada_gang_split split[] = {{2, 2, 0}, {1, 1, 0}, {1, 1, 0}};
    const uint8_t net[] = {3, 1, 0};
    struct karmada_gang_input in = {.rb = rb,
                                    .w = &w,
                                    .names = names,
                                    .shares = shares,
                                    .nshares = 3,
                                    .tmpl = tmpl,
                                    .split = split,
                                    .nsets = 1,
                                    .member_topo = &t,
                                    .net_topo = net,
                                    .topo_names = &nm};
    int rc = karmada_gang_input_check(&in, why, sizeof(why));
    if (rc)
        fprintf(stderr, "\n%s\n", why);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object *pg[3];
    for (uint32_t i = 0; i < 3; i++) {
        pg[i] = karmada_gang_podgroup_work(&in, i);
        valid_as(WORK, pg[i]);
        valid_as(PODGROUP, fx_at(pg[i], "spec/workload/manifests/0"));
    }
    json_object *pe = fx_at(pg[0], "spec/workload/manifests/0/spec");
    CU_ASSERT_STRING_EQUAL(t_at(pe, "networkTopology/mode"), "soft");
    CU_ASSERT_STRING_EQUAL(t_at(pe, "networkTopology/highestTierName"), "spine.v2");
    CU_ASSERT_PTR_NULL(fx_at(pe, "networkTopology/highestTierAllowed")); /* never both */
    CU_ASSERT_STRING_EQUAL(t_at(pe, "subGroupPolicy/0/networkTopology/mode"), "hard");
    CU_ASSERT_STRING_EQUAL(t_at(pe, "subGroupPolicy/0/networkTopology/highestTierName"), "leaf");
    /* an older Volcano would prune the name and keep a tierless hard: nothing is written */
    for (uint32_t i = 1; i < 3; i++) {
        CU_ASSERT_PTR_NULL(fx_at(pg[i], "spec/workload/manifests/0/spec/networkTopology"));
        CU_ASSERT_PTR_NULL(
            fx_at(pg[i], "spec/workload/manifests/0/spec/subGroupPolicy/0/networkTopology"));
    }
    for (uint32_t i = 0; i < 3; i++)
        json_object_put(pg[i]);
    /* without the names (not read again), nothing for the named scopes either */
    in.topo_names = NULL;
    json_object *e = karmada_gang_podgroup_work(&in, 0);
    CU_ASSERT_PTR_NULL(fx_at(e, "spec/workload/manifests/0/spec/networkTopology"));
    json_object_put(e);

    /* a number and a name in one gang: each scope as it is stated */
    load("jobset-shards", 0, KARMADA_NETTOPO_GROUP_REQUIRED, "1", KARMADA_NETTOPO_REQUIRED, "rack",
         NULL);
    CU_ASSERT_EQUAL_FATAL(karmada_member_topo_read_names(&t, &nm, &w, 1, rb, tmpl, why, sizeof(why)),
                          0);
    CU_ASSERT_EQUAL(t.group.tier, 1);
    CU_ASSERT_STRING_EQUAL(nm.group, "");
    in.rb = rb; /* load freed the last pair */
    in.tmpl = tmpl;
    in.topo_names = &nm;
    in.nshares = 2;
    shares[1].replicas = 16;
    split[1] = (struct karmada_gang_split){2, 2, 0};
    e = karmada_gang_podgroup_work(&in, 0);
    valid_as(PODGROUP, fx_at(e, "spec/workload/manifests/0"));
    CU_ASSERT_STRING_EQUAL(t_at(e, "spec/workload/manifests/0/spec/networkTopology/highestTierName"),
                           "rack");
    CU_ASSERT_STRING_EQUAL(
        t_at(e, "spec/workload/manifests/0/spec/subGroupPolicy/0/networkTopology/highestTierAllowed"),
        "1");
    json_object_put(e);
    /* mid (no names) still gets the numbered group scope */
    e = karmada_gang_podgroup_work(&in, 1);
    CU_ASSERT_PTR_NULL(fx_at(e, "spec/workload/manifests/0/spec/networkTopology"));
    CU_ASSERT_STRING_EQUAL(
        t_at(e, "spec/workload/manifests/0/spec/subGroupPolicy/0/networkTopology/highestTierAllowed"),
        "1");
    json_object_put(e);
}

static json_object *cluster_labelled(const char *label, const char *gv)
{
    char txt[640];
    snprintf(txt, sizeof(txt),
             "{\"metadata\":{\"name\":\"east\",\"labels\":{%s}},\"status\":{\"apiEnablements\":["
             "{\"groupVersion\":\"topology.volcano.sh/v1alpha1\",\"resources\":[{\"name\":"
             "\"hypernodes\",\"kind\":\"HyperNode\"}]},"
             "{\"groupVersion\":\"%s\",\"resources\":[{\"name\":\"nodeshards\",\"kind\":"
             "\"NodeShard\"}]}]}}",
             label, gv);
    json_object *o = json_tokener_parse(txt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

static void test_names_detect(void)
{
    /* Volcano v1.14's chart installs NodeShards: names read */
    json_object *k = cluster_labelled("", "shard.volcano.sh/v1alpha1");
    CU_ASSERT_EQUAL(karmada_member_topo_names_detect(k), 1);
    json_object_put(k);
    /* v1.12 / v1.13: HyperNodes alone say nothing of names */
    k = cluster_labelled("", "other.volcano.sh/v1alpha1");
    CU_ASSERT_EQUAL(karmada_member_topo_names_detect(k), 0);
    CU_ASSERT_EQUAL(karmada_member_topo_detect(k), 1);
    json_object_put(k);
    /* the operator's label, either way, over the detection */
    k = cluster_labelled("\"" KARMADA_NETTOPO_NAMES_LABEL "\":\"true\"", "other.volcano.sh/v1alpha1");
    CU_ASSERT_EQUAL(karmada_member_topo_names_detect(k), 1);
    json_object_put(k);
    k = cluster_labelled("\"" KARMADA_NETTOPO_NAMES_LABEL "\":\"false\"", "shard.volcano.sh/v1alpha1");
    CU_ASSERT_EQUAL(karmada_member_topo_names_detect(k), 0);
    json_object_put(k);
    /* any other value: as if absent */
    k = cluster_labelled("\"" KARMADA_NETTOPO_NAMES_LABEL "\":\"yes\"", "shard.volcano.sh/v1alpha1");
    CU_ASSERT_EQUAL(karmada_member_topo_names_detect(k), 1);
    json_object_put(k);
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
    {"tiers by name: read, written only where the member reads names", test_names},
    {"tiers by name: the member's Volcano told apart", test_names_detect},
    {"the annotations: tiers, scopes, template before binding", test_read},
    {"the annotations survive the informers' pruning", test_read_pruned},
    {"faulty or unusable annotations refused with a reason", test_refused},
    {"HyperNodes in apiEnablements", test_detect},
    {"a share's networkTopology, only where HyperNodes are", test_podgroup_share},
    {"a split's share and subgroup networkTopology", test_podgroup_split},
    {"cleanup", test_cleanup},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/gang_nettopo", tests)
