/* A gang placed as a tree of groups (dispatcher/controller/treeplace.c), without a hub: how the
 * leaves the composite search placed become the gang's shares. */
#include "dispatcher/controller/ctl_int.h"
#include "cluster-adapters/karmada/gang_split.h"
#include "cluster-adapters/karmada/workload_groups.h"
#include "karmada/fixtures.h"
#include "dispatcher/composite.h"
#include "testing.h"

/* A root and nleaves leaves of pods[i] pods each. */
static void tree(struct karmada_group_tree *t, const uint32_t *pods, uint32_t nleaves)
{
    t->n = nleaves + 1;
    t->g = muster_calloc(t->n, sizeof(*t->g));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t->g);
    t->g[0].parent = -1;
    t->g[0].min_count = nleaves;
    for (uint32_t i = 1; i < t->n; i++) {
        t->g[i].parent = 0;
        t->g[i].pods = pods[i - 1];
        t->g[i].min_count = pods[i - 1];
        t->g[i].indivisible = 1;
    }
}

/* 4 shards of 8 over two clusters, two each: two shares of 16, in order of first use. */
static void test_shares_per_cluster(void)
{
    struct karmada_group_tree t = {0};
    tree(&t, (const uint32_t[]){8, 8, 8, 8}, 4);
    const int32_t at[] = {-1, 1, 0, 1, 0}; /* the root (never placed itself), then the leaves */
    struct ctl_tree_share out[2];
    CU_ASSERT_EQUAL(ctl__tree_shares(&t, at, 2, 32, out), 2);
    CU_ASSERT_EQUAL(out[0].cluster, 1);
    CU_ASSERT_EQUAL(out[0].pods, 16);
    CU_ASSERT_EQUAL(out[1].cluster, 0);
    CU_ASSERT_EQUAL(out[1].pods, 16);
    karmada_group_tree_close(&t);
}

/* The count asked for is met with whole leaves only: fewer placed, or a leaf that would have
 * to be cut, is no placement; a smaller count (a gang at its minimum) takes leaves in order. */
static void test_whole_leaves_only(void)
{
    struct karmada_group_tree t = {0};
    tree(&t, (const uint32_t[]){8, 8, 8}, 3);
    struct ctl_tree_share out[3];
    const int32_t two[] = {-1, 0, -1, 1};
    CU_ASSERT_EQUAL(ctl__tree_shares(&t, two, 2, 24, out), 0); /* 16 placed of 24 */
    CU_ASSERT_EQUAL(ctl__tree_shares(&t, two, 2, 16, out), 2); /* its minimum: both placed */
    CU_ASSERT_EQUAL(out[0].pods + out[1].pods, 16);
    const int32_t all[] = {-1, 0, 0, 0};
    CU_ASSERT_EQUAL(ctl__tree_shares(&t, all, 1, 12, out), 0); /* 12 would cut a shard */
    CU_ASSERT_EQUAL(ctl__tree_shares(&t, all, 1, 8, out), 1);
    CU_ASSERT_EQUAL(out[0].pods, 8);
    const int32_t bad[] = {-1, 5, 0, 0}; /* a candidate index out of range is not taken */
    CU_ASSERT_EQUAL(ctl__tree_shares(&t, bad, 1, 24, out), 0);
    karmada_group_tree_close(&t);
}

/* A split JobSet or LeaderWorkerSet (issue 20): the cells are derived from the shares, in their
 * order, each share's whole groups all required; a share that is not whole groups is no split. */
static void test_split_from_shares(void)
{
    struct share sh[3] = {{.cluster = "east", .replicas = 16}, {.cluster = "west", .replicas = 8},
                          {.cluster = "north", .replicas = 8}};
    struct binding b = {.shares = sh, .nshares = 3, .ncomp = 1};
    struct karmada_gang_split cells[3] = {{9, 9, 9}, {9, 9, 9}, {9, 9, 9}};
    CU_ASSERT_EQUAL(ctl__split_fill(&b, cells), 0); /* not split: nothing filled */
    CU_ASSERT_EQUAL(cells[0].groups, 9);
    b.split_pods = 8;
    CU_ASSERT_EQUAL_FATAL(ctl__split_fill(&b, cells), 1);
    CU_ASSERT_EQUAL(cells[0].groups, 2);
    CU_ASSERT_EQUAL(cells[0].min_groups, 2);
    CU_ASSERT_EQUAL(cells[0].group_min, 0); /* every pod of a group */
    CU_ASSERT_EQUAL(cells[1].groups, 1);
    CU_ASSERT_EQUAL(cells[2].groups, 1);
    sh[1].replicas = 12; /* a group cut: refused, the cells as they were */
    cells[0].groups = 7;
    CU_ASSERT_EQUAL(ctl__split_fill(&b, cells), 0);
    CU_ASSERT_EQUAL(cells[0].groups, 7);
    sh[1].replicas = 0;
    CU_ASSERT_EQUAL(ctl__split_fill(&b, cells), 0);
}

/* What a share reserves of each shape: a split LeaderWorkerSet's share one leader and size-1
 * workers per group; a gang of several shapes otherwise whole; one shape, the share. */
static void test_share_comp_pods(void)
{
    struct comp comp[2] = {{.replicas = 3}, {.replicas = 9}};
    struct share sh = {.cluster = "east", .replicas = 8};
    struct binding b = {.ncomp = 2, .comp = comp, .kind = KARMADA_WORKLOAD_KIND_LWS};
    CU_ASSERT_EQUAL(ctl__share_comp_pods(&b, &sh, 0), 3); /* whole: not split */
    CU_ASSERT_EQUAL(ctl__share_comp_pods(&b, &sh, 1), 9);
    b.split_pods = 4; /* 2 groups of a leader and 3 workers */
    CU_ASSERT_EQUAL(ctl__share_comp_pods(&b, &sh, 0), 2);
    CU_ASSERT_EQUAL(ctl__share_comp_pods(&b, &sh, 1), 6);
    b.ncomp = 1;
    CU_ASSERT_EQUAL(ctl__share_comp_pods(&b, &sh, 0), 8);
}

/* A member of five nodes of 4 GPUs (32 CPUs, 256Gi, 110 pods), as composite-20gpu.yaml. */
static void gpu_cluster(struct queue_resnames *names, struct disp_cluster_cap *cl,
                        struct disp_grade *gr, const char *name)
{
    static const struct {
        const char *r;
        int64_t milli;
    } node[] = {{"cpu", 32000},
                {"memory", 256LL * 1073741824 * 1000},
                {"pods", 110000},
                {"nvidia.com/gpu", 4000}};
    memset(cl, 0, sizeof *cl);
    memset(gr, 0, sizeof *gr);
    cl->name = name;
    for (size_t i = 0; i < sizeof node / sizeof node[0]; i++) {
        uint32_t id;
        CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, node[i].r, strlen(node[i].r), &id), 0);
        CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&gr->min, id, node[i].milli), 0);
        CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&cl->free, id, node[i].milli * 5), 0);
    }
    gr->nodes = 5;
    cl->grades = gr;
    cl->ngrades = 1;
}

/* A JobSet of two replicated jobs with placement spread (tests/fixtures/workloads/jobset-sets:
 * 4 shards of 8 and 2 evaluators of 4 one-GPU pods, 40 GPUs) over two members of 20 GPUs
 * (issue 20): the tree's placement, counted as treeplace.c's split_shares counts it, runs 2
 * shards and 1 evaluator in each, no Job cut; the counts go on the row's clusters with each
 * share, and the split rebuilt from the shares (a restart) is the same, each replicated job
 * reserved by its own pods. With wl (jobset-workload, structured by the hub Workload
 * workload-jobset.yaml) each set's groups hold gmin[j] pods, the template's minCount, in both
 * the placement's cells and the rebuilt ones. */
static void jobset_two_sets(const char *name, const char *wl, const uint32_t gmin[2])
{
    struct queue_resnames *names = queue_resnames_new();
    struct karmada_workload w;
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&w), 0);
    char rel[128];
    snprintf(rel, sizeof rel, "tests/fixtures/workloads/%s-rb.json", name);
    json_object *rb = fx_load_json(rel);
    snprintf(rel, sizeof rel, "tests/fixtures/workloads/%s.yaml", name);
    json_object *tmpl = fx_load_yaml(rel);
    json_object *wlobj = wl ? fx_load_yaml(wl) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmpl);
    CU_ASSERT_FATAL(!wl || wlobj);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_read(&w, names, rb, tmpl), 0);
    CU_ASSERT_EQUAL(w.placement, KARMADA_WORKLOAD_SPREAD);
    struct karmada_group_tree t = {0};
    struct karmada_groups_error gerr;
    const struct karmada_groups_wl hub = {wlobj, 1, 1, "scheduling.k8s.io/v1beta1"};
    CU_ASSERT_EQUAL_FATAL(karmada_workload_groups_read_wl(&t, &gerr, names, &w, rb, tmpl, &hub), 0);
    CU_ASSERT_EQUAL(t.g[0].indivisible, 0); /* spread: the root may part */

    struct disp_cluster_cap cl[2];
    struct disp_grade gr[2];
    gpu_cluster(names, &cl[0], &gr[0], "east");
    gpu_cluster(names, &cl[1], &gr[1], "west");
    struct disp_composite_in in = {.tree = &t, .clusters = cl, .nclusters = 2, .names = names};
    struct disp_composite_result r;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_EQUAL_FATAL(r.placed, 1);
    /* shares in order of each cluster's first leaf, as split_shares orders them */
    int32_t share_of[KARMADA_GROUPS_MAX], share_at[2] = {-1, -1};
    uint32_t cand[2], nsh = 0;
    for (uint32_t g = 0; g < t.n; g++) {
        share_of[g] = -1;
        if (!t.g[g].pods)
            continue;
        CU_ASSERT_FATAL(r.cluster[g] == 0 || r.cluster[g] == 1); /* every Job placed, whole */
        if (share_at[r.cluster[g]] < 0) {
            cand[nsh] = (uint32_t)r.cluster[g];
            share_at[r.cluster[g]] = (int32_t)nsh++;
        }
        share_of[g] = share_at[r.cluster[g]];
    }
    CU_ASSERT_EQUAL_FATAL(nsh, 2);
    struct karmada_gang_split cells[4];
    int32_t replicas[2];
    CU_ASSERT_EQUAL_FATAL(
        karmada_gang_split_from_tree(&w, tmpl, &t, share_of, 2, cells, 2, replicas), 0);
    for (uint32_t i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(cells[i * 2].groups, 2);     /* shards */
        CU_ASSERT_EQUAL(cells[i * 2 + 1].groups, 1); /* evaluators */
        CU_ASSERT_EQUAL(replicas[i], 20);
        CU_ASSERT_EQUAL(cells[i * 2].group_min, gmin[0]);
        CU_ASSERT_EQUAL(cells[i * 2 + 1].group_min, gmin[1]);
    }

    struct comp comp[2] = {{.replicas = w.components[0].replicas},
                           {.replicas = w.components[1].replicas}};
    CU_ASSERT_EQUAL(comp[0].replicas, 32);
    CU_ASSERT_EQUAL(comp[1].replicas, 8);
    struct share sh[2];
    memset(sh, 0, sizeof sh);
    for (uint32_t i = 0; i < 2; i++) {
        snprintf(sh[i].cluster, sizeof sh[i].cluster, "%s", cl[cand[i]].name);
        sh[i].replicas = replicas[i];
        for (uint32_t j = 0; j < 2; j++)
            sh[i].groups[j] = (uint16_t)cells[i * 2 + j].groups;
    }
    struct binding b = {.kind = KARMADA_WORKLOAD_KIND_JOBSET, .split_pods = 8, .split_sets = 2,
                        .ncomp = 2, .comp = comp, .tree = t, .shares = sh, .nshares = 2};
    CU_ASSERT_EQUAL(ctl__split_nsets(&b), 2);
    CU_ASSERT_EQUAL(ctl__share_comp_pods(&b, &sh[0], 0), 16);
    CU_ASSERT_EQUAL(ctl__share_comp_pods(&b, &sh[0], 1), 4);
    char text[512];
    ctl__clusters_text(&b, text, sizeof text);
    json_object *row = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    CU_ASSERT_EQUAL(json_object_array_length(row), 2);
    json_object *e = json_object_array_get_idx(row, 0);
    CU_ASSERT_STRING_EQUAL(kube_json_str(e, "name"), sh[0].cluster);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(kube_json_get(e, "groups"),
                                                          JSON_C_TO_STRING_PLAIN),
                           "[2,1]");
    json_object_put(row);

    struct karmada_gang_split again[4];
    memset(again, 0, sizeof again);
    CU_ASSERT_EQUAL_FATAL(ctl__split_fill(&b, again), 1);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(again[i].groups, cells[i].groups);
        CU_ASSERT_EQUAL(again[i].min_groups, cells[i].groups);
        CU_ASSERT_EQUAL(again[i].group_min, gmin[i % 2]);
    }
    /* counts that do not hold a share's replicas, or none kept for two sets: no split (its
     * objects are then never written, protocol.c) */
    sh[1].groups[1] = 2;
    CU_ASSERT_EQUAL(ctl__split_fill(&b, again), 0);
    sh[1].groups[1] = 1;
    memset(sh[0].groups, 0, sizeof sh[0].groups);
    memset(sh[1].groups, 0, sizeof sh[1].groups);
    CU_ASSERT_EQUAL(ctl__split_fill(&b, again), 0);
    ctl__clusters_text(&b, text, sizeof text);
    CU_ASSERT_PTR_NULL(strstr(text, "groups")); /* nothing recorded, nothing written */

    disp_composite_result_close(&r);
    for (uint32_t i = 0; i < 2; i++) {
        queue_resvec_close(&cl[i].free);
        queue_resvec_close(&gr[i].min);
        disp_cluster_cap_close_parts(&cl[i]);
    }
    karmada_group_tree_close(&t);
    json_object_put(rb);
    json_object_put(tmpl);
    json_object_put(wlobj);
    karmada_workload_close(&w);
    queue_resnames_free(names);
}

static void test_jobset_two_sets_placed(void)
{
    static const uint32_t every_pod[2] = {0, 0};
    jobset_two_sets("jobset-sets", NULL, every_pod);
}

/* The same JobSet structured by the Workload API: a shard's Job a gang of 6 of its 8 pods, an
 * evaluator's of 3 of its 4 (issue 20). */
static void test_jobset_workload_placed(void)
{
    static const uint32_t mins[2] = {6, 3};
    jobset_two_sets("jobset-workload", "tests/fixtures/workloads/workload-jobset.yaml", mins);
}

/* ---- a JobSet at fewer Jobs (issue 20, docs/composite.md "A JobSet at fewer Jobs") */

/* A member of `nodes` nodes of 4 GPUs (32 CPUs, 256Gi, 110 pods), as composite-20gpu.yaml. */
static void gpu_nodes(struct queue_resnames *names, struct disp_cluster_cap *cl,
                      struct disp_grade *gr, const char *name, uint64_t nodes)
{
    gpu_cluster(names, cl, gr, name);
    for (uint32_t k = 0; k < cl->free.len; k++)
        cl->free.items[k].milli = cl->free.items[k].milli / 5 * (int64_t)nodes;
    gr->nodes = nodes;
}

/* jobset-workload.yaml (4 shards x 8 one-GPU pods, 2 evaluators x 4, spread) structured by the
 * Workload wl (JSON), placed by the composite search over east and west of the given nodes, and
 * counted as split_shares counts it into b (its shares and groups on the row's clusters). */
struct jsmin {
    struct queue_resnames *names;
    struct karmada_workload w;
    json_object *rb, *tmpl, *wl;
    struct karmada_group_tree t;
    struct disp_cluster_cap cl[2];
    struct disp_grade gr[2];
    struct disp_composite_result r;
    struct comp comp[2];
    struct share sh[2];
    struct binding b;
    struct karmada_gang_split cells[4];
};

static void jsmin_open(struct jsmin *x, const char *wl, uint64_t east, uint64_t west)
{
    memset(x, 0, sizeof *x);
    x->names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->names);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_init(&x->w), 0);
    x->rb = fx_load_json("tests/fixtures/workloads/jobset-workload-rb.json");
    x->tmpl = fx_load_yaml("tests/fixtures/workloads/jobset-workload.yaml");
    x->wl = json_tokener_parse(wl);
    CU_ASSERT_FATAL(x->rb && x->tmpl && x->wl);
    CU_ASSERT_EQUAL_FATAL(karmada_workload_read(&x->w, x->names, x->rb, x->tmpl), 0);
    struct karmada_groups_error gerr;
    const struct karmada_groups_wl hub = {x->wl, 1, 1, "scheduling.k8s.io/v1beta1"};
    CU_ASSERT_EQUAL_FATAL(
        karmada_workload_groups_read_wl(&x->t, &gerr, x->names, &x->w, x->rb, x->tmpl, &hub), 0);
    gpu_nodes(x->names, &x->cl[0], &x->gr[0], "east", east);
    gpu_nodes(x->names, &x->cl[1], &x->gr[1], "west", west);
    struct disp_composite_in in = {
        .tree = &x->t, .clusters = x->cl, .nclusters = 2, .names = x->names};
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &x->r), 0);
    for (uint32_t j = 0; j < 2; j++) {
        x->comp[j].replicas = x->w.components[j].replicas;
        CU_ASSERT_EQUAL_FATAL(queue_resvec_copy(&x->comp[j].req, &x->w.components[j].request), 0);
    }
    x->b = (struct binding){.kind = KARMADA_WORKLOAD_KIND_JOBSET,
                            .assign = 1,
                            .split_pods = 8,
                            .split_sets = 2,
                            .ncomp = 2,
                            .comp = x->comp,
                            .tree = x->t,
                            .shares = x->sh,
                            .replicas = x->w.replicas};
    CU_ASSERT_EQUAL_FATAL(queue_resvec_copy(&x->b.gang, &x->w.gang), 0);
    if (!x->r.placed)
        return;
    int32_t share_of[KARMADA_GROUPS_MAX], share_at[2] = {-1, -1};
    uint32_t cand[2], nsh = 0;
    for (uint32_t g = 0; g < x->t.n; g++) {
        share_of[g] = -1;
        if (!x->t.g[g].pods || x->r.cluster[g] < 0)
            continue;
        if (share_at[x->r.cluster[g]] < 0) {
            cand[nsh] = (uint32_t)x->r.cluster[g];
            share_at[x->r.cluster[g]] = (int32_t)nsh++;
        }
        share_of[g] = share_at[x->r.cluster[g]];
    }
    int32_t replicas[2];
    CU_ASSERT_EQUAL_FATAL(
        karmada_gang_split_from_tree(&x->w, x->tmpl, &x->t, share_of, nsh, x->cells, 2, replicas),
        0);
    for (uint32_t i = 0; i < nsh; i++) {
        snprintf(x->sh[i].cluster, sizeof x->sh[i].cluster, "%s", x->cl[cand[i]].name);
        x->sh[i].replicas = replicas[i];
        for (uint32_t j = 0; j < 2; j++)
            x->sh[i].groups[j] = (uint16_t)x->cells[i * 2 + j].groups;
    }
    x->b.nshares = nsh;
}

static void jsmin_close(struct jsmin *x)
{
    disp_composite_result_close(&x->r);
    for (uint32_t i = 0; i < 2; i++) {
        queue_resvec_close(&x->cl[i].free);
        queue_resvec_close(&x->gr[i].min);
        disp_cluster_cap_close_parts(&x->cl[i]);
        queue_resvec_close(&x->comp[i].req);
    }
    queue_resvec_close(&x->b.gang);
    karmada_group_tree_close(&x->t);
    json_object_put(x->rb);
    json_object_put(x->tmpl);
    json_object_put(x->wl);
    karmada_workload_close(&x->w);
    queue_resnames_free(x->names);
}

/* The Jobs placed per replicated job over both shares. */
static void jsmin_jobs(const struct jsmin *x, uint32_t *shards, uint32_t *evals)
{
    *shards = *evals = 0;
    for (uint32_t i = 0; i < x->b.nshares; i++) {
        *shards += x->sh[i].groups[0];
        *evals += x->sh[i].groups[1];
    }
}

/* The counts the row keeps (its clusters' text) read back as a restart reads them, and the
 * split rebuilt from them: the same cells. */
static void jsmin_row_rebuilt(struct jsmin *x)
{
    char text[512];
    ctl__clusters_text(&x->b, text, sizeof text);
    json_object *row = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    struct share back[2];
    memset(back, 0, sizeof back);
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(row), x->b.nshares);
    for (uint32_t i = 0; i < x->b.nshares; i++) {
        json_object *e = json_object_array_get_idx(row, i);
        snprintf(back[i].cluster, sizeof back[i].cluster, "%s", kube_json_str(e, "name"));
        back[i].replicas = json_object_get_int(kube_json_get(e, "replicas"));
        json_object *g = kube_json_get(e, "groups");
        for (uint32_t j = 0; j < 2; j++)
            back[i].groups[j] = (uint16_t)json_object_get_int(json_object_array_get_idx(g, j));
        CU_ASSERT_STRING_EQUAL(back[i].cluster, x->sh[i].cluster);
        CU_ASSERT_EQUAL(back[i].replicas, x->sh[i].replicas);
    }
    json_object_put(row);
    struct binding rb = x->b; /* the binding read again at its whole size, the row's shares */
    rb.shares = back;
    struct karmada_gang_split again[4];
    memset(again, 0, sizeof again);
    CU_ASSERT_EQUAL_FATAL(ctl__split_fill(&rb, again), 1);
    for (uint32_t i = 0; i < x->b.nshares * 2; i++) {
        CU_ASSERT_EQUAL(again[i].groups, x->cells[i].groups);
        CU_ASSERT_EQUAL(again[i].min_groups, x->cells[i].groups);
        CU_ASSERT_EQUAL(again[i].group_min, x->cells[i].group_min);
    }
    char s1[256] = "", s2[256] = "";
    CU_ASSERT_EQUAL(ctl__jobset_min_sentence(&x->b, s1, sizeof s1),
                    ctl__jobset_min_sentence(&rb, s2, sizeof s2));
    CU_ASSERT_STRING_EQUAL(s1, s2);
}

static const char WL_ONE_LEVEL[] =
    "{\"apiVersion\":\"scheduling.k8s.io/v1beta1\",\"kind\":\"Workload\","
    "\"metadata\":{\"namespace\":\"team\",\"name\":\"wlsets-wl\"},"
    "\"spec\":{\"controllerRef\":{\"apiGroup\":\"jobset.x-k8s.io\",\"kind\":\"JobSet\","
    "\"name\":\"wlsets\"},\"compositePodGroupTemplates\":["
    "{\"name\":\"training\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":3}},"
    "\"podGroupTemplates\":[{\"name\":\"shard\",\"schedulingPolicy\":{\"gang\":{\"minCount\":6}}}]}"
    ","
    "{\"name\":\"evaluation\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":1}},"
    "\"podGroupTemplates\":[{\"name\":\"eval\",\"schedulingPolicy\":{\"gang\":{\"minCount\":3}}}]}"
    "]}}";

/* Two levels: "all" needs both composites under it, "training" 3 of its 4 shard Jobs and
 * "evaluation" both evaluator Jobs. */
static const char WL_TWO_LEVELS[] =
    "{\"apiVersion\":\"scheduling.k8s.io/v1beta1\",\"kind\":\"Workload\","
    "\"metadata\":{\"namespace\":\"team\",\"name\":\"wlsets-wl\"},"
    "\"spec\":{\"controllerRef\":{\"apiGroup\":\"jobset.x-k8s.io\",\"kind\":\"JobSet\","
    "\"name\":\"wlsets\"},\"compositePodGroupTemplates\":["
    "{\"name\":\"all\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":2}},"
    "\"compositePodGroupTemplates\":["
    "{\"name\":\"training\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":3}},"
    "\"podGroupTemplates\":[{\"name\":\"shard\",\"schedulingPolicy\":{\"gang\":{\"minCount\":6}}}]}"
    ","
    "{\"name\":\"evaluation\",\"schedulingPolicy\":{\"gang\":{\"minGroupCount\":2}},"
    "\"podGroupTemplates\":[{\"name\":\"eval\",\"schedulingPolicy\":{\"gang\":{\"minCount\":3}}}]}"
    "]}]}}";

/* 40 GPUs asked, 32 free (east 20, west 12): the most Jobs that fit, 3 shards and both
 * evaluators (4 shards would leave evaluation below its 1), admitted at that with every level at
 * least its minimum; the request counts only those Jobs; the row's counts rebuild it. */
static void test_jobset_fewer_jobs(void)
{
    struct jsmin x;
    jsmin_open(&x, WL_ONE_LEVEL, 5, 3);
    CU_ASSERT_EQUAL(ctl__jobset_min(&x.b), 1);
    CU_ASSERT_EQUAL_FATAL(x.r.placed, 1);
    uint32_t shards, evals, held;
    jsmin_jobs(&x, &shards, &evals);
    CU_ASSERT_EQUAL(shards, 3);
    CU_ASSERT_EQUAL(evals, 2);
    CU_ASSERT_EQUAL(ctl__jobset_jobs(&x.b, &held), 6);
    CU_ASSERT_EQUAL(held, 5);
    CU_ASSERT_EQUAL(ctl__jobset_partial(&x.b), 1);
    CU_ASSERT_EQUAL(x.sh[0].replicas + x.sh[1].replicas, 32);
    /* no Job cut, each cluster's Jobs whole */
    CU_ASSERT_EQUAL(x.sh[0].replicas, x.sh[0].groups[0] * 8 + x.sh[0].groups[1] * 4);
    CU_ASSERT_EQUAL(x.sh[1].replicas, x.sh[1].groups[0] * 8 + x.sh[1].groups[1] * 4);
    char s[256];
    CU_ASSERT_EQUAL_FATAL(ctl__jobset_min_sentence(&x.b, s, sizeof s), 1);
    CU_ASSERT_STRING_EQUAL(s, "admitted at 5 of its 6 Jobs (composite training needs 3 of 4, "
                              "composite evaluation needs 1 of 2): the whole does not fit; a "
                              "JobSet's replicatedJobs cannot grow in place, so the other 1 "
                              "does not run");
    struct queue_resvec req = {0};
    CU_ASSERT_EQUAL_FATAL(ctl__jobset_request(&x.b, &req), 0);
    uint32_t gpu, cpu;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(x.names, "nvidia.com/gpu", 14, &gpu), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(x.names, "cpu", 3, &cpu), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&x.b.gang, gpu), 40000);
    CU_ASSERT_EQUAL(queue_resvec_get(&req, gpu), 32000);
    CU_ASSERT_EQUAL(queue_resvec_get(&req, cpu), 24 * 1000 + 8 * 500);
    queue_resvec_close(&req);
    jsmin_row_rebuilt(&x);
    jsmin_close(&x);
}

/* A composite under a composite: with 32 GPUs free the same 3 shards and 2 evaluators; with 24
 * (east 20, west 4) 3 shards and 1 evaluator would hold 28 and 3 shards alone break evaluation's
 * 2, 2 shards training's 3: nothing is placed, never a level below its minimum. */
static void test_jobset_fewer_two_levels(void)
{
    struct jsmin x;
    jsmin_open(&x, WL_TWO_LEVELS, 5, 3);
    CU_ASSERT_EQUAL(ctl__jobset_min(&x.b), 1);
    CU_ASSERT_EQUAL_FATAL(x.r.placed, 1);
    uint32_t shards, evals;
    jsmin_jobs(&x, &shards, &evals);
    CU_ASSERT_EQUAL(shards, 3);
    CU_ASSERT_EQUAL(evals, 2);
    char s[256];
    CU_ASSERT_EQUAL_FATAL(ctl__jobset_min_sentence(&x.b, s, sizeof s), 1);
    CU_ASSERT_STRING_EQUAL(s, "admitted at 5 of its 6 Jobs (composite training needs 3 of 4): "
                              "the whole does not fit; a JobSet's replicatedJobs cannot grow in "
                              "place, so the other 1 does not run");
    jsmin_row_rebuilt(&x);
    jsmin_close(&x);

    jsmin_open(&x, WL_TWO_LEVELS, 5, 1);
    CU_ASSERT_EQUAL(x.r.placed, 0);
    CU_ASSERT_EQUAL(x.b.nshares, 0);
    CU_ASSERT_EQUAL(ctl__jobset_partial(&x.b), 0);
    jsmin_close(&x);
}

/* Room for the whole: every Job placed, not a JobSet at fewer Jobs (no sentence, the whole
 * request); and a Workload without composites needs every Job. */
static void test_jobset_whole_when_it_fits(void)
{
    struct jsmin x;
    jsmin_open(&x, WL_ONE_LEVEL, 5, 5);
    CU_ASSERT_EQUAL_FATAL(x.r.placed, 1);
    uint32_t shards, evals, held;
    jsmin_jobs(&x, &shards, &evals);
    CU_ASSERT_EQUAL(shards, 4);
    CU_ASSERT_EQUAL(evals, 2);
    CU_ASSERT_EQUAL(ctl__jobset_jobs(&x.b, &held), 6);
    CU_ASSERT_EQUAL(held, 6);
    CU_ASSERT_EQUAL(ctl__jobset_partial(&x.b), 0);
    char s[256] = "untouched";
    CU_ASSERT_EQUAL(ctl__jobset_min_sentence(&x.b, s, sizeof s), 0);
    CU_ASSERT_STRING_EQUAL(s, "untouched");
    struct queue_resvec req = {0};
    CU_ASSERT_EQUAL_FATAL(ctl__jobset_request(&x.b, &req), 0);
    CU_ASSERT_EQUAL(queue_resvec_cmp(&req, &x.b.gang), 0);
    queue_resvec_close(&req);
    x.b.assign = 0; /* Karmada's scheduler places it: never at fewer Jobs */
    CU_ASSERT_EQUAL(ctl__jobset_min(&x.b), 0);
    jsmin_close(&x);

    /* the Workload of plain pod group templates (workload-jobset.yaml): the root needs every
     * Job, as a JobSet does */
    struct jsmin y;
    memset(&y, 0, sizeof y);
    json_object *plain = fx_load_yaml("tests/fixtures/workloads/workload-jobset.yaml");
    CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
    jsmin_open(&y, json_object_to_json_string(plain), 5, 3);
    json_object_put(plain);
    CU_ASSERT_EQUAL(ctl__jobset_min(&y.b), 0);
    CU_ASSERT_EQUAL(ctl__jobset_partial(&y.b), 0);
    jsmin_close(&y);
}

/* Stepping down for the queues: the minimum's request (3 shards, 1 evaluator: training's 3 and
 * evaluation's minGroupCount 1), then from every Job one at a time, the last in tree order whose level
 * keeps its min_count (an evaluator, then a shard), never below either composite; the tree of
 * the Jobs kept is a tree of the same names, each level needing no more than it kept. */
static void test_jobset_step_down(void)
{
    struct jsmin x;
    jsmin_open(&x, WL_ONE_LEVEL, 5, 5);
    uint32_t gpu;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(x.names, "nvidia.com/gpu", 14, &gpu), 0);
    struct queue_resvec req = {0};
    CU_ASSERT_EQUAL_FATAL(ctl__jobset_leaves_request(&x.b, NULL, &req), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&req, gpu), 28000);
    uint8_t keep[KARMADA_GROUPS_MAX];
    memset(keep, 1, x.t.n);
    CU_ASSERT_EQUAL_FATAL(ctl__jobset_leaves_request(&x.b, keep, &req), 0);
    CU_ASSERT_EQUAL(queue_resvec_cmp(&req, &x.b.gang), 0); /* every Job: the whole */
    static const char *const gone[] = {"eval-1", "shard-3"};
    for (uint32_t k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL_FATAL(ctl__jobset_step_down(&x.t, keep), 1);
        for (uint32_t g = 0; g < x.t.n; g++)
            if (strcmp(x.t.g[g].name, gone[k]) == 0)
                CU_ASSERT_EQUAL(keep[g], 0);
    }
    CU_ASSERT_EQUAL(ctl__jobset_step_down(&x.t, keep), 0); /* at the minimum */
    CU_ASSERT_EQUAL_FATAL(ctl__jobset_leaves_request(&x.b, keep, &req), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&req, gpu), 28000);
    queue_resvec_close(&req);
    struct karmada_group buf[16];
    uint32_t n = ctl__jobset_view(&x.t, keep, buf, 16);
    CU_ASSERT_EQUAL_FATAL(n, 7); /* the root, 2 composites, 3 shards, 1 evaluator */
    CU_ASSERT_EQUAL(buf[0].parent, -1);
    uint32_t leaves = 0;
    for (uint32_t g = 1; g < n; g++) {
        CU_ASSERT(buf[g].parent >= 0 && (uint32_t)buf[g].parent < g);
        leaves += buf[g].pods > 0;
        if (strcmp(buf[g].name, "training") == 0)
            CU_ASSERT_EQUAL(buf[g].min_count, 3);
        if (strcmp(buf[g].name, "evaluation") == 0)
            CU_ASSERT_EQUAL(buf[g].min_count, 1);
    }
    CU_ASSERT_EQUAL(leaves, 4);
    /* the search over that tree places all 4 Jobs, no more */
    struct karmada_group_tree v = {buf, n};
    struct disp_composite_in in = {.tree = &v, .clusters = x.cl, .nclusters = 2, .names = x.names};
    struct disp_composite_result r;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_EQUAL(r.placed, 1);
    CU_ASSERT_EQUAL(r.score.pods, 28);
    disp_composite_result_close(&r);
    memset(keep, 0, x.t.n);
    CU_ASSERT_EQUAL(ctl__jobset_view(&x.t, keep, buf, 16), 0); /* no Job: no tree */
    CU_ASSERT_EQUAL(ctl__jobset_view(&x.t, keep, buf, 2), 0);  /* no room */
    jsmin_close(&x);
}

/* ---- a tree admitted at its minimum (issue 20, docs/composite.md "Admitted at its minimum") */

enum { T_GPU, T_PODS };

/* A cluster of `nodes` nodes of 4 GPUs (and 110 pods) each, all free. */
static void min_gpu_cluster(struct disp_cluster_cap *cl, struct disp_grade *g, const char *name,
                        uint64_t nodes)
{
    memset(cl, 0, sizeof(*cl));
    memset(g, 0, sizeof(*g));
    cl->name = name;
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&g->min, T_GPU, 4000), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&g->min, T_PODS, 110000), 0);
    g->nodes = nodes;
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&cl->free, T_GPU, 4000 * (int64_t)nodes), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&cl->free, T_PODS, 110000 * (int64_t)nodes), 0);
    cl->grades = g;
    cl->ngrades = 1;
}

static void min_cluster_close(struct disp_cluster_cap *cl)
{
    queue_resvec_close(&cl->free);
    for (uint32_t i = 0; i < cl->ngrades; i++)
        queue_resvec_close(&cl->grades[i].min);
    disp_cluster_cap_close_parts(cl);
}

/* A group-size tree: leaves of `size` one-GPU pods, the root needing min of them. */
static void gs_tree(struct karmada_group_tree *t, uint32_t leaves, uint32_t size, uint32_t min)
{
    t->n = leaves + 1;
    t->g = muster_calloc(t->n, sizeof(*t->g));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t->g);
    snprintf(t->g[0].name, sizeof t->g[0].name, "Deployment/tp");
    t->g[0].parent = -1;
    t->g[0].min_count = min;
    t->g[0].source = KARMADA_GROUP_SOURCE_GROUP_SIZE;
    for (uint32_t i = 1; i < t->n; i++) {
        snprintf(t->g[i].name, sizeof t->g[i].name, "group-%u", i - 1);
        t->g[i].parent = 0;
        t->g[i].source = KARMADA_GROUP_SOURCE_GROUP_SIZE;
        t->g[i].pods = size;
        t->g[i].min_count = size;
        t->g[i].indivisible = 1;
        CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&t->g[i].pod, T_GPU, 1000), 0);
        CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&t->g[i].pod, T_PODS, 1000), 0);
    }
}

static int quota_all(void *ud, int32_t size)
{
    (void)ud;
    (void)size;
    return 1;
}

static int quota_upto(void *ud, int32_t size)
{
    return size <= *(const int32_t *)ud;
}

/* The size a gang with a group minimum is admitted at: the most whole groups the search placed
 * that the queues take, whole when all, never below the minimum; 0 below it. */
static void test_admit_size(void)
{
    int32_t q = 24;
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 32, quota_all, NULL), 32); /* whole */
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 24, quota_all, NULL), 24); /* 3 of 4 fit */
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 16, quota_all, NULL), 16); /* the minimum */
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 8, quota_all, NULL), 0);   /* below it */
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 0, quota_all, NULL), 0);
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 32, quota_upto, &q), 24); /* the queues */
    q = 20; /* 20 is no whole number of groups above 16: the minimum */
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 32, quota_upto, &q), 16);
    q = 0; /* the engine offered the entry, which holds the minimum: that is admitted */
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 32, quota_upto, &q), 16);
    /* a placement that is not whole groups above the minimum is counted down to them */
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 8, 30, quota_all, NULL), 24);
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 16, 0, 32, quota_all, NULL), 0); /* bad input */
    CU_ASSERT_EQUAL(ctl__tree_admit_size(32, 40, 8, 32, quota_all, NULL), 0);
}

/* The fewest pods each level can be placed with: leaves whole, an inner group its min_count
 * smallest children's minimums, at two levels. */
static void test_min_pods_two_levels(void)
{
    struct karmada_group_tree t = {0};
    gs_tree(&t, 4, 8, 2);
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 0), 16);
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 1), 8); /* a leaf: its pods, never cut */
    t.g[0].min_count = 4;
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 0), 32);
    t.g[0].min_count = 0; /* at least one child */
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 0), 8);
    karmada_group_tree_close(&t);
    /* root (2 of 3) -> a (2 of leaves 4, 2, 8), b (1 of leaves 8, 8), c (3 of leaves 1, 1, 1):
     * a 6, b 8, c 3; the root the two smallest, 3 + 6 */
    static const struct {
        int32_t parent;
        uint32_t min, pods;
    } gs[] = {{-1, 2, 0}, {0, 2, 0}, {1, 4, 4}, {1, 2, 2}, {1, 8, 8}, {0, 1, 0},
              {5, 8, 8},  {5, 8, 8}, {0, 3, 0}, {8, 1, 1}, {8, 1, 1}, {8, 1, 1}};
    t.n = sizeof gs / sizeof gs[0];
    t.g = muster_calloc(t.n, sizeof(*t.g));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.g);
    for (uint32_t i = 0; i < t.n; i++) {
        t.g[i].parent = gs[i].parent;
        t.g[i].min_count = gs[i].min;
        t.g[i].pods = gs[i].pods;
    }
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 1), 6);
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 5), 8);
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 8), 3);
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 0), 9);
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 99), 0);
    karmada_group_tree_close(&t);
}

/* Which binding goes the group-minimum path: a group-size tree in assign mode whose root needs
 * fewer groups than it has; its minimum is whole groups (min-member 12 of groups of 8: 16). */
static void test_tree_min_gate(void)
{
    struct comp comp = {.replicas = 32};
    struct binding b = {.assign = 1,
                        .ncomp = 1,
                        .comp = &comp,
                        .min_member = 12,
                        .kind = KARMADA_WORKLOAD_KIND_DEPLOYMENT};
    gs_tree(&b.tree, 4, 8, 2);
    CU_ASSERT_EQUAL(ctl__tree_min(&b), 1);
    CU_ASSERT_EQUAL(ctl__elastic_min(&b), 16);
    CU_ASSERT_EQUAL(ctl__elastic_unit(&b), 8);
    b.tree.g[0].min_count = 4; /* every group: all or nothing, as before */
    CU_ASSERT_EQUAL(ctl__tree_min(&b), 0);
    CU_ASSERT_EQUAL(ctl__elastic_min(&b), 12);
    CU_ASSERT_EQUAL(ctl__elastic_unit(&b), 1);
    b.tree.g[0].min_count = 2;
    b.assign = 0; /* Karmada's scheduler places it: muster does not cut it */
    CU_ASSERT_EQUAL(ctl__tree_min(&b), 0);
    b.assign = 1;
    b.tree.g[0].source = KARMADA_GROUP_SOURCE_JOBSET;
    CU_ASSERT_EQUAL(ctl__tree_min(&b), 0);
    karmada_group_tree_close(&b.tree);
    CU_ASSERT_EQUAL(ctl__tree_min(&b), 0); /* no tree */
}

/* 4 groups of 8 one-GPU pods, the root needing 2, over two clusters of 5 four-GPU nodes of
 * which one is full: the whole does not fit, the search places the 2 groups the free cluster
 * holds, the gang is admitted at its minimum, and the tree of its first 2 groups is placed
 * whole there, none cut. With one group's room anywhere nothing is admitted, and the reason
 * names the level. */
static void test_admitted_at_minimum(void)
{
    struct disp_cluster_cap cl[2];
    struct disp_grade g[2];
    struct queue_resnames *nm = queue_resnames_new();
    uint32_t id;
    CU_ASSERT_PTR_NOT_NULL_FATAL(nm);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(nm, "nvidia.com/gpu", 14, &id), 0);
    CU_ASSERT_EQUAL_FATAL(id, T_GPU);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(nm, "pods", 4, &id), 0);
    CU_ASSERT_EQUAL_FATAL(id, T_PODS);
    min_gpu_cluster(&cl[0], &g[0], "east", 0); /* full */
    min_gpu_cluster(&cl[1], &g[1], "west", 5);
    struct karmada_group_tree t = {0};
    gs_tree(&t, 4, 8, 2);
    struct disp_composite_in in = {.tree = &t, .clusters = cl, .nclusters = 2, .names = nm};
    struct disp_composite_result r;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_EQUAL_FATAL(r.placed, 1);
    CU_ASSERT_EQUAL(r.score.pods, 16);
    struct ctl_tree_share out[2];
    CU_ASSERT_EQUAL(ctl__tree_shares(&t, r.cluster, 2, 32, out), 0); /* not whole */
    int32_t at = ctl__tree_admit_size(32, (int32_t)ctl__tree_min_pods(&t, 0), 8,
                                      (int64_t)r.score.pods, quota_all, NULL);
    CU_ASSERT_EQUAL(at, 16);
    disp_composite_result_close(&r);
    /* placed as the tree of its first 2 groups (treeplace.c's view): all placed, in west */
    struct karmada_group_tree view = t;
    view.n = 1 + (uint32_t)at / 8;
    in.tree = &view;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_EQUAL_FATAL(r.placed, 1);
    CU_ASSERT_EQUAL(r.score.pods, 16);
    CU_ASSERT_EQUAL_FATAL(ctl__tree_shares(&view, r.cluster, 2, at, out), 1);
    CU_ASSERT_EQUAL(out[0].cluster, 1);
    CU_ASSERT_EQUAL(out[0].pods, 16);
    disp_composite_result_close(&r);
    /* west holds one group only: not even the minimum, nothing placed, the root level named */
    min_cluster_close(&cl[1]);
    min_gpu_cluster(&cl[1], &g[1], "west", 3);
    in.tree = &t;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_EQUAL(r.placed, 0);
    CU_ASSERT_EQUAL(
        ctl__tree_admit_size(32, 16, 8, r.placed ? (int64_t)r.score.pods : 0, quota_all, NULL), 0);
    CU_ASSERT_STRING_EQUAL(r.why, "no set of allowed clusters holds the gang's 2 of 4 groups "
                                  "node by node under its constraints");
    disp_composite_result_close(&r);
    karmada_group_tree_close(&t);
    min_cluster_close(&cl[0]);
    min_cluster_close(&cl[1]);
    queue_resnames_free(nm);
}

/* Two levels, each with a minimum: 3 shards (the root needs 2), each of 3 leaves of 4 pods (a
 * shard needs 2). 16 GPUs free: 2 shards at their minimum (4 leaves, 16 pods) are placed and
 * the search never goes below a shard's minimum; 12 free: nothing. */
static void test_two_level_minimum(void)
{
    struct disp_cluster_cap cl[1];
    struct disp_grade g[1];
    struct karmada_group_tree t = {0};
    t.n = 13;
    t.g = muster_calloc(t.n, sizeof(*t.g));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.g);
    snprintf(t.g[0].name, sizeof t.g[0].name, "JobSet/train");
    t.g[0].parent = -1;
    t.g[0].min_count = 2;
    for (uint32_t s = 0, i = 1; s < 3; s++) {
        uint32_t sh = i++;
        snprintf(t.g[sh].name, sizeof t.g[sh].name, "shard-%u", s);
        t.g[sh].parent = 0;
        t.g[sh].min_count = 2;
        for (uint32_t l = 0; l < 3; l++, i++) {
            snprintf(t.g[i].name, sizeof t.g[i].name, "shard-%u-%u", s, l);
            t.g[i].parent = (int32_t)sh;
            t.g[i].pods = 4;
            t.g[i].min_count = 4;
            t.g[i].indivisible = 1;
            CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&t.g[i].pod, T_GPU, 1000), 0);
            CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&t.g[i].pod, T_PODS, 1000), 0);
        }
    }
    CU_ASSERT_EQUAL(ctl__tree_min_pods(&t, 0), 16);
    min_gpu_cluster(&cl[0], &g[0], "east", 4);
    struct disp_composite_in in = {.tree = &t, .clusters = cl, .nclusters = 1};
    struct disp_composite_result r;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_EQUAL_FATAL(r.placed, 1);
    CU_ASSERT_EQUAL(r.score.pods, 16);
    uint32_t per[3] = {0};
    for (uint32_t i = 1; i < t.n; i++)
        if (t.g[i].pods && r.cluster[i] >= 0)
            per[(i - 1) / 4]++;
    uint32_t shards = 0;
    for (uint32_t s = 0; s < 3; s++) {
        CU_ASSERT(per[s] == 0 || per[s] >= 2); /* a shard placed has its minimum */
        shards += per[s] > 0;
    }
    CU_ASSERT_EQUAL(shards, 2);
    CU_ASSERT_EQUAL(ctl__tree_admit_size(36, 16, 4, (int64_t)r.score.pods, quota_all, NULL), 16);
    disp_composite_result_close(&r);
    min_cluster_close(&cl[0]);
    min_gpu_cluster(&cl[0], &g[0], "east", 3);
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_EQUAL(r.placed, 0);
    CU_ASSERT_STRING_EQUAL(r.why, "no set of allowed clusters holds the gang's 2 of 3 groups "
                                  "node by node under its constraints");
    disp_composite_result_close(&r);
    min_cluster_close(&cl[0]);
    karmada_group_tree_close(&t);
}

/* A Volcano Job's minimum as a tree: each task at its min_count, a task of 0 left out, the root
 * needing every task left; none when the minimum is the whole or the tree is not a job's. */
static void test_vcjob_min_tree(void)
{
    struct karmada_group_tree t = {0};
    gs_tree(&t, 3, 4, 3); /* ps, worker, eval: 4 pods each */
    for (uint32_t i = 0; i < t.n; i++)
        t.g[i].source = KARMADA_GROUP_SOURCE_VCJOB_TASK;
    t.g[1].min_count = 1;
    t.g[2].min_count = 2;
    t.g[3].min_count = 0;
    struct karmada_group buf[4];
    struct karmada_group_tree m;
    CU_ASSERT_EQUAL(ctl__vcjob_min_tree(&t, buf, 4, &m), 3);
    CU_ASSERT_EQUAL_FATAL(m.n, 3);
    CU_ASSERT_PTR_EQUAL(m.g, buf);
    CU_ASSERT_EQUAL(m.g[0].min_count, 2);
    CU_ASSERT_EQUAL(m.g[1].pods, 1);
    CU_ASSERT_STRING_EQUAL(m.g[1].name, "group-0");
    CU_ASSERT_EQUAL(m.g[2].pods, 2);
    CU_ASSERT_EQUAL(m.g[2].parent, 0);
    CU_ASSERT_EQUAL(t.g[0].min_count, 3); /* t is unchanged */
    CU_ASSERT_EQUAL(t.g[1].pods, 4);
    CU_ASSERT_EQUAL(ctl__vcjob_min_tree(&t, buf, 2, &m), 0); /* no room */
    for (uint32_t i = 1; i < t.n; i++)
        t.g[i].min_count = 4;
    CU_ASSERT_EQUAL(ctl__vcjob_min_tree(&t, buf, 4, &m), 0); /* the minimum is the whole */
    CU_ASSERT_EQUAL(m.n, 0);
    t.g[1].min_count = 0;
    t.g[2].min_count = 0;
    t.g[3].min_count = 0;
    CU_ASSERT_EQUAL(ctl__vcjob_min_tree(&t, buf, 4, &m), 0); /* nothing needed: no tree */
    t.g[1].min_count = 1;
    t.g[0].source = KARMADA_GROUP_SOURCE_GROUP_SIZE;
    CU_ASSERT_EQUAL(ctl__vcjob_min_tree(&t, buf, 4, &m), 0); /* not a Volcano Job's */
    karmada_group_tree_close(&t);

    /* a task of partitions (Volcano v1.14): one leaf there, of the partitions its minimum
     * needs, named after the task, each pod its partitions' shape */
    struct karmada_group g[5];
    memset(g, 0, sizeof g);
    static const struct {
        const char *name;
        int32_t parent;
        uint32_t min, pods;
    } shape[5] = {{"Volcano Job/j", -1, 2, 0},
                  {"ps", 0, 1, 1},
                  {"worker", 0, 3, 0},
                  {"worker-0", 2, 4, 4},
                  {"worker-1", 2, 0, 4}};
    for (int i = 0; i < 5; i++) {
        snprintf(g[i].name, sizeof g[i].name, "%s", shape[i].name);
        g[i].parent = shape[i].parent;
        g[i].min_count = shape[i].min;
        g[i].pods = shape[i].pods;
        g[i].indivisible = 1;
        g[i].source = KARMADA_GROUP_SOURCE_VCJOB_TASK;
    }
    struct karmada_group_tree pt = {.g = g, .n = 5};
    CU_ASSERT_EQUAL(ctl__vcjob_min_tree(&pt, buf, 4, &m), 5);
    CU_ASSERT_EQUAL_FATAL(m.n, 3);
    CU_ASSERT_EQUAL(m.g[0].min_count, 2);
    CU_ASSERT_STRING_EQUAL(m.g[2].name, "worker");
    CU_ASSERT_EQUAL(m.g[2].pods, 4);
    CU_ASSERT_EQUAL(m.g[2].min_count, 4);
    CU_ASSERT_EQUAL(m.g[2].parent, 0);
    g[4].min_count = 4; /* both partitions needed: the minimum is the whole */
    CU_ASSERT_EQUAL(ctl__vcjob_min_tree(&pt, buf, 4, &m), 0);
    g[4].min_count = 0;
    g[3].parent = 1; /* a partition under a leaf: not a job's tree */
    CU_ASSERT_EQUAL(ctl__vcjob_min_tree(&pt, buf, 4, &m), 0);
}

static json_object *cluster(const char *name, const char *region, const char *zone)
{
    char txt[256];
    snprintf(txt, sizeof txt,
             "{\"metadata\":{\"name\":\"%s\",\"labels\":{%s%s%s}},\"spec\":{%s%s%s}}", name,
             zone ? "\"topology.kubernetes.io/zone\":\"" : "", zone ? zone : "", zone ? "\"" : "",
             region ? "\"region\":\"" : "", region ? region : "", region ? "\"" : "");
    json_object *o = json_tokener_parse(txt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

static void topo(struct karmada_group *g, const char *level, enum karmada_topo_mode mode,
                 uint32_t k, int required)
{
    struct karmada_group_topo *t = &g->topo[g->ntopo++];
    snprintf(t->level, sizeof t->level, "%s", level);
    t->mode = mode;
    t->min_domains = k;
    t->required = required;
}

/* Moving part of a placed tree (a lost cluster's Replace, a scale up): a cluster may take more
 * groups only where the required topology allows, judged against the clusters that keep
 * groups; preferred constraints do not restrict it. */
static void test_move_within_required_topology(void)
{
    struct karmada_group_tree t = {0};
    tree(&t, (const uint32_t[]){8, 8, 8, 8}, 4);
    json_object *e1 = cluster("east-a", "us-east", "z1"), *e2 = cluster("east-b", "us-east", "z2"),
                *w1 = cluster("west-a", "us-west", "z3"), *nr = cluster("bare", NULL, NULL);
    json_object *kept[] = {e1};
    /* no constraint: anywhere */
    CU_ASSERT_TRUE(ctl__tree_cluster_ok(&t, kept, 1, w1));
    CU_ASSERT_TRUE(ctl__tree_cluster_ok(&t, kept, 1, nr));
    /* the whole gang in one region, required: only where the kept groups' region is */
    topo(&t.g[0], "region", KARMADA_TOPO_PACK, 0, 1);
    CU_ASSERT_TRUE(ctl__tree_cluster_ok(&t, kept, 1, e2));
    CU_ASSERT_FALSE(ctl__tree_cluster_ok(&t, kept, 1, w1));
    CU_ASSERT_FALSE(ctl__tree_cluster_ok(&t, kept, 1, nr)); /* no region: no domain of it */
    CU_ASSERT_TRUE(ctl__tree_cluster_ok(&t, NULL, 0, w1));  /* nothing kept: any region */
    /* preferred only: not a restriction */
    t.g[0].topo[0].required = 0;
    CU_ASSERT_TRUE(ctl__tree_cluster_ok(&t, kept, 1, w1));
    /* each group in one zone, required: a cluster without a zone cannot hold one */
    t.g[0].ntopo = 0;
    for (uint32_t i = 1; i < t.n; i++)
        topo(&t.g[i], "topology.kubernetes.io/zone", KARMADA_TOPO_PACK, 0, 1);
    CU_ASSERT_TRUE(ctl__tree_cluster_ok(&t, kept, 1, w1)); /* its own zone is fine */
    CU_ASSERT_FALSE(ctl__tree_cluster_ok(&t, kept, 1, nr));

    /* afterwards, the clusters among themselves: one region, required */
    for (uint32_t i = 1; i < t.n; i++)
        t.g[i].ntopo = 0;
    topo(&t.g[0], "region", KARMADA_TOPO_PACK, 0, 1);
    json_object *split[] = {e1, w1}, *together[] = {e1, e2}, *with_bare[] = {e1, nr};
    CU_ASSERT_FALSE(ctl__tree_required_ok(&t, split, 2));
    CU_ASSERT_TRUE(ctl__tree_required_ok(&t, together, 2));
    CU_ASSERT_FALSE(ctl__tree_required_ok(&t, with_bare, 2));
    t.g[0].topo[0].required = 0;
    CU_ASSERT_TRUE(ctl__tree_required_ok(&t, split, 2)); /* preferred: not judged */
    t.g[0].ntopo = 0;
    /* each group in one zone, required: every cluster with a zone */
    for (uint32_t i = 1; i < t.n; i++)
        topo(&t.g[i], "topology.kubernetes.io/zone", KARMADA_TOPO_PACK, 0, 1);
    CU_ASSERT_TRUE(ctl__tree_required_ok(&t, split, 2));
    CU_ASSERT_FALSE(ctl__tree_required_ok(&t, with_bare, 2));
    /* the groups over at least 2 zones, required: counted over the clusters afterwards */
    for (uint32_t i = 1; i < t.n; i++)
        t.g[i].ntopo = 0;
    topo(&t.g[0], "topology.kubernetes.io/zone", KARMADA_TOPO_SPREAD, 2, 1);
    json_object *one[] = {e1, e1, nr}, *two[] = {e1, e2}, *same[] = {e1, e1};
    CU_ASSERT_FALSE(ctl__tree_required_ok(&t, one, 3)); /* bare has no zone: not a domain */
    CU_ASSERT_TRUE(ctl__tree_required_ok(&t, two, 2));
    CU_ASSERT_FALSE(ctl__tree_required_ok(&t, same, 2));
    t.g[0].topo[0].required = 0;
    CU_ASSERT_TRUE(ctl__tree_required_ok(&t, same, 2)); /* preferred: not judged */
    struct karmada_group_tree empty = {0};
    CU_ASSERT_TRUE(ctl__tree_required_ok(&empty, same, 2));
    CU_ASSERT_TRUE(ctl__tree_cluster_ok(&empty, kept, 1, nr));
    json_object_put(e1);
    json_object_put(e2);
    json_object_put(w1);
    json_object_put(nr);
    karmada_group_tree_close(&t);
}

static CU_TestInfo tests[] = {
    {"a moved group stays within the required topology", test_move_within_required_topology},
    {"a Volcano Job's minimum as a tree", test_vcjob_min_tree},
    {"the size admitted with a group minimum", test_admit_size},
    {"the minimum's pods at two levels", test_min_pods_two_levels},
    {"which gangs have a group minimum", test_tree_min_gate},
    {"a tree admitted at its minimum, or not at all", test_admitted_at_minimum},
    {"a minimum at two levels", test_two_level_minimum},
    {"a split's cells derived from its shares", test_split_from_shares},
    {"each shape of a share reserved", test_share_comp_pods},
    {"the leaves' pods per cluster, in order of first use", test_shares_per_cluster},
    {"whole leaves only, up to the count asked for", test_whole_leaves_only},
    {"a JobSet of two replicated jobs split, its counts on the row", test_jobset_two_sets_placed},
    {"a JobSet structured by a Workload: each set's groups at its template's minCount",
     test_jobset_workload_placed},
    {"a JobSet at the most Jobs that fit, its row's counts rebuilt", test_jobset_fewer_jobs},
    {"a JobSet at fewer Jobs: never below a composite's minimum at two levels",
     test_jobset_fewer_two_levels},
    {"a JobSet whole when the whole fits; without composites every Job",
     test_jobset_whole_when_it_fits},
    {"a JobSet at fewer Jobs steps down for its queues, never below a level",
     test_jobset_step_down},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/treeplace", tests)
