/* Tests for dispatcher/composite.c: groups split only at their boundaries, min_count at each
 * level, required and preferred region/zone constraints, spread over zones, the explanations,
 * and a few hundred random small cases against the naive every-assignment search
 * (composite_model.h). */
#include "dispatcher/composite.h"
#include "queue/errors.h"
#include "queue/mem.h"
#include "testing.h"
#include "composite_model.h"

#include <string.h>

enum { CPU, MEM, GPU };

#define GI (1073741824LL * 1000)

struct fleet {
    struct disp_cluster_cap cl[CM_CLUSTERS_MAX];
    struct disp_grade gr[CM_CLUSTERS_MAX][2];
    const char *region[CM_CLUSTERS_MAX];
    const char *zone[CM_CLUSTERS_MAX];
    uint32_t n;
};

static struct queue_resnames *names;

static const char *level_value(void *ud, uint32_t c, const char *level)
{
    const struct fleet *f = ud;
    if (strcmp(level, "region") == 0)
        return f->region[c];
    if (strcmp(level, "zone") == 0)
        return f->zone[c];
    return NULL;
}

static struct queue_resvec node_vec(int64_t gpus)
{
    struct queue_resvec v = {0};
    queue_resvec_set(&v, CPU, 16 * gpus * 1000);
    queue_resvec_set(&v, MEM, 128 * gpus * GI);
    queue_resvec_put(&v, GPU, gpus * 1000);
    return v;
}

/* A cluster of `nodes` nodes of `gpus` GPUs each, all free, in region/zone. */
static void add_cluster(struct fleet *f, const char *name, uint64_t nodes, int64_t gpus,
                        const char *region, const char *zone)
{
    uint32_t c = f->n++;
    struct disp_cluster_cap *cl = &f->cl[c];
    memset(cl, 0, sizeof(*cl));
    cl->name = name;
    f->gr[c][0].min = node_vec(gpus);
    f->gr[c][0].nodes = nodes;
    cl->free = node_vec(gpus * (int64_t)nodes);
    cl->grades = f->gr[c];
    cl->ngrades = 1;
    f->region[c] = region;
    f->zone[c] = zone;
}

static void fleet_close(struct fleet *f)
{
    for (uint32_t c = 0; c < f->n; c++) {
        queue_resvec_close(&f->cl[c].free);
        for (uint32_t g = 0; g < f->cl[c].ngrades; g++)
            queue_resvec_close(&f->gr[c][g].min);
        disp_cluster_cap_close_parts(&f->cl[c]);
    }
    f->n = 0;
}

struct tree {
    struct karmada_group g[CM_GROUPS_MAX];
    struct karmada_group_tree t;
};

static uint32_t add_group(struct tree *t, const char *name, int32_t parent, uint32_t min_count,
                          int indivisible)
{
    uint32_t i = t->t.n++;
    struct karmada_group *g = &t->g[i];
    memset(g, 0, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "%.63s", name);
    g->parent = parent;
    g->min_count = min_count;
    g->indivisible = indivisible;
    t->t.g = t->g;
    return i;
}

/* A leaf of `pods` pods of `gpus` GPUs each (and 8 cpu, 64Gi per GPU). */
static uint32_t add_leaf(struct tree *t, const char *name, int32_t parent, uint32_t pods,
                         int64_t gpus)
{
    uint32_t i = add_group(t, name, parent, pods, 1);
    struct karmada_group *g = &t->g[i];
    g->pods = pods;
    queue_resvec_set(&g->pod, CPU, 8 * gpus * 1000);
    queue_resvec_set(&g->pod, MEM, 64 * gpus * GI);
    queue_resvec_set(&g->pod, GPU, gpus * 1000);
    return i;
}

static void add_topo(struct tree *t, uint32_t g, const char *level, enum karmada_topo_mode mode,
                     uint32_t k, int required)
{
    struct karmada_group_topo *tp = &t->g[g].topo[t->g[g].ntopo++];
    memset(tp, 0, sizeof(*tp));
    snprintf(tp->level, sizeof(tp->level), "%.63s", level);
    tp->mode = mode;
    tp->min_domains = k;
    tp->required = required;
}

static void tree_close(struct tree *t)
{
    for (uint32_t i = 0; i < t->t.n; i++)
        queue_resvec_close(&t->g[i].pod);
    t->t.n = 0;
}

static struct disp_composite_in input(struct tree *t, struct fleet *f)
{
    return (struct disp_composite_in){.tree = &t->t,
                                      .clusters = f->cl,
                                      .nclusters = f->n,
                                      .level_value = level_value,
                                      .ud = f,
                                      .names = names};
}

/* The engine's answer is valid by the model's own check, scores what it says, and (for small
 * enough cases) equals the naive best. */
static void check_valid(const struct disp_composite_in *in, const struct disp_composite_result *r)
{
    CU_ASSERT_FATAL(r->placed);
    struct disp_composite_score sc;
    CU_ASSERT_FATAL(cm_valid(in, r->cluster, &sc));
    CU_ASSERT_EQUAL(cm_cmp(&sc, &r->score), 0);
}

static uint32_t leaves_in(const struct tree *t, const struct disp_composite_result *r, int32_t c)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->t.n; i++)
        n += t->g[i].pods && r->cluster[i] == c;
    return n;
}

static void test_split_at_boundary(void)
{
    /* 4 shards × 8 one-GPU pods over two clusters of 20 GPUs (5 nodes of 4): 2 shards each. */
    struct fleet f = {0};
    add_cluster(&f, "east", 5, 4, "us", "a");
    add_cluster(&f, "west", 5, 4, "us", "b");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 4, 0);
    char nm[4][16];
    for (int i = 0; i < 4; i++) {
        snprintf(nm[i], sizeof nm[i], "shard-%d", i);
        add_leaf(&t, nm[i], root, 8, 1);
    }
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT(r.complete);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 0), 2);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 1), 2);
    CU_ASSERT_EQUAL(r.score.pods, 32);
    CU_ASSERT_EQUAL(r.score.clusters, 2);
    CU_ASSERT_EQUAL(r.score.opened, 8); /* 32 GPUs on 4-GPU nodes, each node filled */
    /* today's divisible spread fills the roomiest first and cuts a shard: 20 + 12 */
    struct disp_share sh[2];
    struct queue_resvec one = {0};
    queue_resvec_set(&one, CPU, 8000);
    queue_resvec_set(&one, MEM, 64 * GI);
    queue_resvec_set(&one, GPU, 1000);
    CU_ASSERT_EQUAL(disp_place(f.cl, f.n, &one, 32, DISP_SPREAD, sh), 2);
    CU_ASSERT_NOT_EQUAL(sh[0].replicas % 8, 0);
    queue_resvec_close(&one);
    disp_composite_result_close(&r);

    /* an inner indivisible group (leader + workers) never splits either: 2 groups of 1 + 7
     * pods in clusters of 10: each group in one cluster */
    tree_close(&t);
    fleet_close(&f);
    add_cluster(&f, "a", 10, 1, "us", "a");
    add_cluster(&f, "b", 10, 1, "us", "b");
    root = (int32_t)add_group(&t, "lws", -1, 2, 0);
    for (int i = 0; i < 2; i++) {
        int32_t g = (int32_t)add_group(&t, i ? "group-1" : "group-0", root, 2, 1);
        add_leaf(&t, i ? "leader-1" : "leader-0", g, 1, 1);
        add_leaf(&t, i ? "workers-1" : "workers-0", g, 7, 1);
    }
    in = input(&t, &f);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(r.cluster[2], r.cluster[3]);
    CU_ASSERT_EQUAL(r.cluster[5], r.cluster[6]);
    CU_ASSERT_NOT_EQUAL(r.cluster[2], r.cluster[5]);
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

static uint64_t whole(const struct fleet *f)
{
    uint64_t w = 0;
    for (uint32_t c = 0; c < f->n; c++)
        for (uint32_t g = 0; g < f->cl[c].ngrades; g++)
            w += f->gr[c][g].nodes;
    return w;
}

/* disp_composite_reserve takes the placement out of the snapshot as the search counted it, so
 * the next gang in the cycle sees the room left; all or nothing. */
static void test_reserve_placement(void)
{
    struct fleet f = {0};
    add_cluster(&f, "east", 5, 4, "us", "a");
    add_cluster(&f, "west", 6, 4, "us", "b");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 4, 0);
    char nm[4][16];
    for (int i = 0; i < 4; i++) {
        snprintf(nm[i], sizeof nm[i], "shard-%d", i);
        add_leaf(&t, nm[i], root, 8, 1);
    }
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r, again;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FATAL(r.placed);
    uint64_t before = whole(&f);
    CU_ASSERT_EQUAL(disp_composite_reserve(&t.t, &r, f.cl, f.n), 0);
    CU_ASSERT_EQUAL(before - whole(&f), r.score.opened);
    CU_ASSERT_EQUAL(queue_resvec_get(&f.cl[0].free, GPU) + queue_resvec_get(&f.cl[1].free, GPU),
                    (44 - 32) * 1000);
    /* the same gang again: 12 GPUs are left, so nothing */
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &again), 0);
    CU_ASSERT_FALSE(again.placed);
    disp_composite_result_close(&again);
    /* reserving it twice does not fit: nothing more is taken */
    uint64_t w = whole(&f);
    int64_t g0 = queue_resvec_get(&f.cl[0].free, GPU), g1 = queue_resvec_get(&f.cl[1].free, GPU);
    uint32_t p0 = f.cl[0].npart, p1 = f.cl[1].npart;
    CU_ASSERT_EQUAL(disp_composite_reserve(&t.t, &r, f.cl, f.n), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(whole(&f), w);
    CU_ASSERT_EQUAL(queue_resvec_get(&f.cl[0].free, GPU), g0);
    CU_ASSERT_EQUAL(queue_resvec_get(&f.cl[1].free, GPU), g1);
    CU_ASSERT_EQUAL(f.cl[0].npart, p0);
    CU_ASSERT_EQUAL(f.cl[1].npart, p1);
    /* a result for another tree is refused */
    CU_ASSERT_EQUAL(disp_composite_reserve(&t.t, &r, f.cl, 1), MUSTER_EINVAL);
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

static void test_reserve_as_placed(void)
{
    /* Two nodes of 8 GPUs and 16 free: two 8-GPU pods fit, a third does not, though each alone
     * would: a leaf never counts room another leaf took. */
    struct fleet f = {0};
    add_cluster(&f, "only", 2, 8, "us", "a");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 2, 0);
    add_leaf(&t, "s0", root, 1, 8);
    add_leaf(&t, "s1", root, 1, 8);
    add_leaf(&t, "s2", root, 1, 8);
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(r.score.pods, 2);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 0), 2);
    disp_composite_result_close(&r);
    /* all three required: nothing */
    t.g[0].min_count = 3;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 0), 0);
    CU_ASSERT(strstr(r.why, "3 of 3") != NULL);
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

static void test_min_count_levels(void)
{
    /* root needs 2 of 3 shards; each shard needs 2 of its 3 workers (4 GPUs each). 20 GPUs on
     * 5 nodes of 4: one shard whole (12) and one at its minimum (8). */
    struct fleet f = {0};
    add_cluster(&f, "one", 5, 4, "us", "a");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 2, 0);
    char nm[3][4][16];
    int32_t shard[3];
    for (int s = 0; s < 3; s++) {
        snprintf(nm[s][0], sizeof nm[s][0], "shard-%d", s);
        shard[s] = (int32_t)add_group(&t, nm[s][0], root, 2, 0);
        for (int w = 1; w <= 3; w++) {
            snprintf(nm[s][w], sizeof nm[s][w], "s%d-w%d", s, w);
            add_leaf(&t, nm[s][w], shard[s], 1, 4);
        }
    }
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT(r.complete);
    CU_ASSERT_EQUAL(r.score.pods, 5);
    uint32_t full = 0, minimum = 0, none = 0;
    for (int s = 0; s < 3; s++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < t.t.n; i++)
            k += t.g[i].parent == shard[s] && r.cluster[i] >= 0;
        full += k == 3;
        minimum += k == 2;
        none += k == 0;
    }
    CU_ASSERT_EQUAL(full, 1);
    CU_ASSERT_EQUAL(minimum, 1);
    CU_ASSERT_EQUAL(none, 1); /* never a shard of 1 worker: below its min_count */
    disp_composite_result_close(&r);

    /* 12 GPUs: 3 workers, so no 2 shards of 2: nothing at all */
    fleet_close(&f);
    add_cluster(&f, "one", 3, 4, "us", "a");
    in = input(&t, &f);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    for (uint32_t i = 0; i < t.t.n; i++)
        CU_ASSERT_EQUAL(r.cluster[i], DISP_COMPOSITE_NONE);
    CU_ASSERT_STRING_EQUAL(r.why, "no set of allowed clusters holds the gang's 2 of 3 groups "
                                  "node by node under its constraints");
    disp_composite_result_close(&r);

    /* a shard min_count above its workers: it can never be placed, and the root needs it */
    t.g[shard[0]].min_count = 4;
    t.g[0].min_count = 3;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    CU_ASSERT_STRING_EQUAL(r.why, "group shard-0 needs 4 of its children and has only 3");
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

/* A Workload's CompositePodGroup templates as levels (karmada/workload_groups.c): the root over a
 * composite "all" (minGroupCount 2) over "training" (minGroupCount 3 of 4 shard Jobs of 8
 * one-GPU pods) and "evaluation" (basic: 1 of 2 Jobs of 4). Each inner level's minimum holds:
 * never fewer than 3 shards, and at least one evaluator. */
static void test_composite_levels(void)
{
    struct fleet f = {0};
    add_cluster(&f, "one", 3, 8, "us", "a"); /* 24 GPUs: 3 shards, no evaluator beside them */
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "Workload/wl", -1, 1, 0);
    int32_t all = (int32_t)add_group(&t, "all", root, 2, 0);
    int32_t training = (int32_t)add_group(&t, "training", all, 3, 0);
    int32_t evaluation = (int32_t)add_group(&t, "evaluation", all, 1, 0);
    static const char *const nm[] = {"shard-0", "shard-1", "shard-2",
                                     "shard-3", "eval-0",  "eval-1"};
    for (int i = 0; i < 6; i++)
        add_leaf(&t, nm[i], i < 4 ? training : evaluation, i < 4 ? 8 : 4, 1);
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    for (uint32_t i = 0; i < t.t.n; i++)
        CU_ASSERT_EQUAL(r.cluster[i], DISP_COMPOSITE_NONE);
    CU_ASSERT_STRING_EQUAL(r.why, "no set of allowed clusters holds the gang's 1 of 1 groups "
                                  "node by node under its constraints");
    disp_composite_result_close(&r);

    /* 4 nodes: 3 shards and evaluators, never 4 shards (all 32 GPUs) with no evaluator */
    fleet_close(&f);
    add_cluster(&f, "one", 4, 8, "us", "a");
    in = input(&t, &f);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    uint32_t shards = 0, evals = 0;
    for (uint32_t i = 0; i < t.t.n; i++) {
        shards += t.g[i].parent == training && r.cluster[i] >= 0;
        evals += t.g[i].parent == evaluation && r.cluster[i] >= 0;
    }
    CU_ASSERT_EQUAL(shards, 3);
    CU_ASSERT(evals >= 1);
    disp_composite_result_close(&r);

    /* the evaluation composite a gang of both: 3 shards + 2 evaluators, all 32 GPUs */
    t.g[evaluation].min_count = 2;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 0), 5);
    disp_composite_result_close(&r);
    /* training's minGroupCount above what is left beside them: nothing */
    t.g[training].min_count = 4;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

static void test_region_zone(void)
{
    /* 4 × 8-GPU pods. west: w1 holds 3, w2 1; east: e1 2, e2 2. Required one region. */
    struct fleet f = {0};
    add_cluster(&f, "w1", 3, 8, "west", "w-a");
    add_cluster(&f, "e1", 2, 8, "east", "e-a");
    add_cluster(&f, "e2", 2, 8, "east", "e-b");
    add_cluster(&f, "x", 8, 8, NULL, NULL); /* no region: a required level cannot use it */
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 4, 0);
    char nm[4][16];
    for (int i = 0; i < 4; i++) {
        snprintf(nm[i], sizeof nm[i], "s%d", i);
        add_leaf(&t, nm[i], root, 1, 8);
    }
    add_topo(&t, 0, "region", KARMADA_TOPO_PACK, 0, 1);
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 1), 2);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 2), 2);
    disp_composite_result_close(&r);
    /* without it, x alone holds all four: one cluster */
    t.g[0].ntopo = 0;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 3), 4);
    disp_composite_result_close(&r);
    /* preferred one zone beats fewest clusters: zone e-a gets three clusters of room */
    fleet_close(&f);
    add_cluster(&f, "a1", 2, 8, "east", "za");
    add_cluster(&f, "a2", 1, 8, "east", "za");
    add_cluster(&f, "a3", 1, 8, "east", "za");
    add_cluster(&f, "b1", 3, 8, "east", "zb");
    add_cluster(&f, "c1", 1, 8, "east", "zc");
    in = input(&t, &f);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(r.score.clusters, 2); /* b1 and a1, or a1 and b1: no preference */
    disp_composite_result_close(&r);
    add_topo(&t, 0, "zone", KARMADA_TOPO_PACK, 0, 0);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(r.score.prefs_met, 1);
    CU_ASSERT_EQUAL(r.score.clusters, 3);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 0) + leaves_in(&t, &r, 1) + leaves_in(&t, &r, 2), 4);
    disp_composite_result_close(&r);
    /* a preference that cannot be met costs nothing required: broken, placed anyway */
    t.g[0].min_count = 4;
    fleet_close(&f);
    add_cluster(&f, "a1", 2, 8, "east", "za");
    add_cluster(&f, "b1", 2, 8, "east", "zb");
    in = input(&t, &f);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(r.score.prefs_met, 0);
    CU_ASSERT_EQUAL(r.score.pods, 4);
    disp_composite_result_close(&r);
    /* each group in one zone (required, on the leaves) is met by a cluster with a zone, and
     * never by one without */
    t.g[0].ntopo = 0;
    for (uint32_t i = 1; i < t.t.n; i++)
        add_topo(&t, i, "zone", KARMADA_TOPO_PACK, 0, 1);
    add_cluster(&f, "nozone", 8, 8, "east", NULL);
    in = input(&t, &f);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 2), 0);
    CU_ASSERT_EQUAL(r.score.clusters, 2);
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

static void test_spread_zones(void)
{
    /* a alone holds the gang; a required spread over 2 zones sends part of it to z2 */
    struct fleet f = {0};
    add_cluster(&f, "a", 8, 8, "r", "z1");
    add_cluster(&f, "b", 8, 8, "r", "z2");
    add_cluster(&f, "c", 8, 8, "r", "z1");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 4, 0);
    char nm[4][16];
    for (int i = 0; i < 4; i++) {
        snprintf(nm[i], sizeof nm[i], "s%d", i);
        add_leaf(&t, nm[i], root, 1, 8);
    }
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_EQUAL(r.score.clusters, 1);
    disp_composite_result_close(&r);
    add_topo(&t, 0, "zone", KARMADA_TOPO_SPREAD, 2, 1);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(r.score.clusters, 2);
    CU_ASSERT(leaves_in(&t, &r, 1) >= 1);
    disp_composite_result_close(&r);
    /* preferred: the same, since preferences rank above the cluster count */
    t.g[0].topo[0].required = 0;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(r.score.prefs_met, 1);
    CU_ASSERT(leaves_in(&t, &r, 1) >= 1);
    disp_composite_result_close(&r);
    /* three zones required, two exist: the reason says so */
    t.g[0].topo[0].required = 1;
    t.g[0].topo[0].min_domains = 3;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    CU_ASSERT_STRING_EQUAL(r.why,
                           "the whole gang must spread over 3 zones and the allowed clusters "
                           "have 2: z1");
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

static void test_explanations(void)
{
    /* a shard of 8 one-GPU pods; the most one cluster holds is 6 */
    struct fleet f = {0};
    add_cluster(&f, "gpu-west", 4, 1, "us-west", "a");
    add_cluster(&f, "gpu-east", 6, 1, "us-east", "b");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 2, 0);
    add_leaf(&t, "shard-0", root, 4, 1);
    add_leaf(&t, "shard-3", root, 8, 1);
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    CU_ASSERT_STRING_EQUAL(r.why, "group shard-3 (8 × {cpu: 8, memory: 64Gi, nvidia.com/gpu: 1}) "
                                  "fits in no single cluster: largest free block is 6 on "
                                  "gpu-east; the gang needs 2 of its 2 groups, 1 fit");
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);

    /* no region holds the whole gang */
    add_cluster(&f, "e1", 2, 8, "us-east", "a");
    add_cluster(&f, "e2", 1, 8, "us-east", "b");
    add_cluster(&f, "w1", 2, 8, "us-west", "c");
    root = (int32_t)add_group(&t, "job", -1, 4, 0);
    char nm[4][16];
    for (int i = 0; i < 4; i++) {
        snprintf(nm[i], sizeof nm[i], "s%d", i);
        add_leaf(&t, nm[i], root, 1, 8);
    }
    add_topo(&t, 0, "region", KARMADA_TOPO_PACK, 0, 1);
    in = input(&t, &f);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    CU_ASSERT(r.complete);
    CU_ASSERT_STRING_EQUAL(
        r.why, "no region holds the whole gang: us-east holds 3 of 4 groups (4 needed)");
    disp_composite_result_close(&r);

    /* the groups fit only where a required level has no value */
    fleet_close(&f);
    add_cluster(&f, "big", 8, 8, NULL, "a");
    add_cluster(&f, "small", 1, 1, "us-east", "a");
    in = input(&t, &f);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    CU_ASSERT(strstr(r.why, "group s0 (1 × {") == r.why);
    CU_ASSERT(strstr(r.why, "fits only in clusters without a region") != NULL);
    disp_composite_result_close(&r);

    /* no level values at all (no callback): a required region has nowhere to go */
    in.level_value = NULL;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    CU_ASSERT_STRING_EQUAL(
        r.why, "the whole gang must be in one region and no allowed cluster has a region");
    disp_composite_result_close(&r);

    /* a budget too small to find anything says so */
    fleet_close(&f);
    t.g[0].ntopo = 0;
    add_cluster(&f, "a", 2, 8, "r", "a");
    add_cluster(&f, "b", 2, 8, "r", "b");
    in = input(&t, &f);
    in.budget = 2;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FALSE(r.placed);
    CU_ASSERT_FALSE(r.complete);
    CU_ASSERT_EQUAL(r.steps, 2);
    CU_ASSERT_STRING_EQUAL(r.why, "no placement of the gang (4 of 4 groups) found within the "
                                  "search budget of 2 steps");
    disp_composite_result_close(&r);
    /* and a malformed tree is refused */
    t.g[2].parent = 3;
    in.budget = 0;
    CU_ASSERT_EQUAL(disp_composite_place(&in, &r), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(r.why, "group s1: its parent must come before it");
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

static void test_budget_keeps_best(void)
{
    /* at the bound the best found so far is returned, and it is the same every time */
    struct fleet f = {0};
    static const char *cn[6] = {"c0", "c1", "c2", "c3", "c4", "c5"};
    for (int c = 0; c < 6; c++)
        add_cluster(&f, cn[c], 3 + (uint64_t)c % 3, 8, c < 3 ? "r0" : "r1", c % 2 ? "z0" : "z1");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 10, 0);
    char nm[12][16];
    for (int i = 0; i < 12; i++) {
        snprintf(nm[i], sizeof nm[i], "s%d", i);
        add_leaf(&t, nm[i], root, 1 + (uint32_t)i % 3, 1 + i % 4);
    }
    struct disp_composite_in in = input(&t, &f);
    in.budget = 40;
    struct disp_composite_result a, b;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &a), 0);
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &b), 0);
    CU_ASSERT_FALSE(a.complete);
    CU_ASSERT_EQUAL(a.steps, 40);
    CU_ASSERT_EQUAL(a.placed, b.placed);
    CU_ASSERT(memcmp(a.cluster, b.cluster, t.t.n * sizeof(int32_t)) == 0);
    if (a.placed)
        check_valid(&in, &a);
    disp_composite_result_close(&a);
    disp_composite_result_close(&b);
    tree_close(&t);
    fleet_close(&f);
}

/* More leaf shapes than the room bound tracks (16): the rest are searched without it, in index
 * order, and still placed validly and in the fewest clusters. */
static void test_many_shapes(void)
{
    struct fleet f = {0};
    add_cluster(&f, "small", 4, 8, "r", "a");
    add_cluster(&f, "big", 40, 8, "r", "b");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 18, 0);
    char nm[18][16];
    for (int i = 0; i < 18; i++) { /* 18 shapes: 1 to 18 pods of 1 GPU, 171 in all */
        snprintf(nm[i], sizeof nm[i], "s%d", i);
        add_leaf(&t, nm[i], root, 1 + (uint32_t)i, 1);
    }
    struct disp_composite_in in = input(&t, &f);
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    check_valid(&in, &r);
    CU_ASSERT_EQUAL(r.score.clusters, 1);
    CU_ASSERT_EQUAL(leaves_in(&t, &r, 1), 18);
    disp_composite_result_close(&r);
    tree_close(&t);
    fleet_close(&f);
}

/* Every allocation failing in turn: 0 or MUSTER_ENOMEM, never a leak, nothing placed on a
 * failure; a placement and a refusal with its explanation (which reserves too). */
static void test_out_of_memory(void)
{
    struct fleet f = {0};
    add_cluster(&f, "e1", 2, 8, "us-east", "a");
    add_cluster(&f, "e2", 1, 8, "us-east", "b");
    add_cluster(&f, "w1", 2, 8, "us-west", "c");
    struct tree t = {0};
    int32_t root = (int32_t)add_group(&t, "job", -1, 3, 0);
    char nm[4][16];
    for (int i = 0; i < 4; i++) {
        snprintf(nm[i], sizeof nm[i], "s%d", i);
        add_leaf(&t, nm[i], root, 1, 8);
    }
    add_topo(&t, 0, "region", KARMADA_TOPO_PACK, 0, 1);
    struct disp_composite_in in = input(&t, &f);
    for (int pass = 0; pass < 2; pass++) {
        t.g[0].min_count = pass ? 4 : 3; /* 3 fit in us-east; 4 fit nowhere */
        int clean = 0;
        for (long k = 0; k < 100000 && !clean; k++) {
            struct muster_mem_stats st;
            struct disp_composite_result r;
            muster_mem_reset();
            muster_mem_fail_after(k);
            int rc = disp_composite_place(&in, &r);
            muster_mem_fail_after(-1);
            muster_mem_stats(&st);
            CU_ASSERT(rc == 0 || rc == MUSTER_ENOMEM);
            if (rc)
                CU_ASSERT_FALSE(r.placed);
            clean = st.failed == 0;
            if (clean) {
                CU_ASSERT_EQUAL(rc, 0);
                CU_ASSERT_EQUAL(r.placed, !pass);
            }
            disp_composite_result_close(&r);
            muster_mem_stats(&st);
            CU_ASSERT_EQUAL(st.allocs, st.frees);
        }
        CU_ASSERT(clean);
    }
    /* taking a placement out of the snapshot: all of it, or on a failure nothing */
    t.g[0].min_count = 3;
    struct disp_composite_result r;
    CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
    CU_ASSERT_FATAL(r.placed);
    uint64_t w = whole(&f);
    int clean = 0;
    for (long k = 0; k < 100000 && !clean; k++) {
        struct muster_mem_stats st;
        muster_mem_reset();
        muster_mem_fail_after(k);
        int rc = disp_composite_reserve(&t.t, &r, f.cl, f.n);
        muster_mem_fail_after(-1);
        muster_mem_stats(&st);
        clean = st.failed == 0;
        CU_ASSERT_EQUAL(rc, clean ? 0 : MUSTER_ENOMEM);
        CU_ASSERT_EQUAL(whole(&f), clean ? w - r.score.opened : w);
        CU_ASSERT_EQUAL(st.allocs - st.frees,
                        clean ? (unsigned long)(f.cl[0].npart + f.cl[1].npart) : 0);
    }
    CU_ASSERT(clean);
    disp_composite_result_close(&r);
    muster_mem_reset();
    tree_close(&t);
    fleet_close(&f);
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A random small world: 1-4 clusters of 1-2 grades, some nodes part-taken, some clusters twins
 * of the one before, levels sometimes missing; a tree of up to 6 leaves in 1-2 levels, some
 * twins of the leaf before, with random min_counts and constraints. */
static void random_case(uint64_t *s, struct fleet *f, struct tree *t, char nm[][16])
{
    static const char *cn[5] = {"k0", "k1", "k2", "k3", "k4"};
    static const char *rg[3] = {"r0", "r1", NULL};
    static const char *zn[4] = {"z0", "z1", "z2", NULL};
    uint32_t ncl = 1 + (uint32_t)(rnd(s) % 4), maxleaves = ncl == 4 ? 5 : 6;
    for (uint32_t c = 0; c < ncl; c++) {
        if (c > 0 && rnd(s) % 4 == 0) { /* a twin: identical room and levels */
            struct disp_cluster_cap *p = &f->cl[c - 1], *cl = &f->cl[c];
            *cl = *p;
            cl->name = cn[c];
            memset(&cl->free, 0, sizeof(cl->free));
            queue_resvec_copy(&cl->free, &p->free);
            cl->grades = f->gr[c];
            for (uint32_t g = 0; g < p->ngrades; g++) {
                f->gr[c][g].nodes = f->gr[c - 1][g].nodes;
                memset(&f->gr[c][g].min, 0, sizeof(f->gr[c][g].min));
                queue_resvec_copy(&f->gr[c][g].min, &f->gr[c - 1][g].min);
            }
            cl->npart = 0;
            memset(cl->part, 0, sizeof(cl->part));
            disp_cluster_cap_copy_parts(cl, p);
            f->region[c] = f->region[c - 1];
            f->zone[c] = f->zone[c - 1];
            f->n++;
            continue;
        }
        int64_t gpus = 1 << (rnd(s) % 4);
        add_cluster(f, cn[c], 1 + rnd(s) % 3, gpus, rg[rnd(s) % 3], zn[rnd(s) % 4]);
        struct disp_cluster_cap *cl = &f->cl[c];
        if (rnd(s) % 3 == 0) { /* a second, smaller grade */
            f->gr[c][1] = f->gr[c][0];
            f->gr[c][0].min = node_vec(gpus > 1 ? gpus / 2 : 1);
            f->gr[c][0].nodes = 1 + rnd(s) % 2;
            cl->ngrades = 2;
            struct queue_resvec more =
                node_vec((gpus > 1 ? gpus / 2 : 1) * (int64_t)f->gr[c][0].nodes);
            queue_resvec_add(&cl->free, &more);
            queue_resvec_close(&more);
        }
        if (rnd(s) % 3 == 0) { /* a part-taken node from an earlier reservation */
            struct queue_resvec p = node_vec(1 + (int64_t)(rnd(s) % 3));
            queue_resvec_add(&cl->free, &p);
            cl->part[cl->npart++] = p;
        }
        if (rnd(s) % 4 == 0) { /* the summary, not the nodes, is the bound */
            int64_t g = queue_resvec_get(&cl->free, GPU);
            queue_resvec_set(&cl->free, GPU, g > 1000 ? g - 1000 : g);
        }
    }
    static const char *lv[3] = {"region", "zone", "cluster"};
    uint32_t root = add_group(t, "root", -1, 0, 0);
    uint32_t nleaves = 0, ki = 0, nkids = 1 + (uint32_t)(rnd(s) % 2);
    uint32_t pods = 1;
    int64_t gpus = 1;
    for (uint32_t k = 0; k < nkids + 1 && nleaves < maxleaves; k++) {
        snprintf(nm[ki], 16, "g%u", ki);
        if (rnd(s) % 2) {
            uint32_t twins = 1 + (uint32_t)(rnd(s) % 3); /* identical siblings */
            pods = 1 + (uint32_t)(rnd(s) % 3);
            gpus = 1 + (int64_t)(rnd(s) % 4);
            for (uint32_t j = 0; j < twins && nleaves < maxleaves; j++, nleaves++) {
                snprintf(nm[ki], 16, "g%u", ki);
                add_leaf(t, nm[ki++], (int32_t)root, pods, gpus);
            }
            continue;
        }
        uint32_t g = add_group(t, nm[ki++], (int32_t)root, 0, rnd(s) % 3 == 0);
        uint32_t nl = 1 + (uint32_t)(rnd(s) % 2);
        for (uint32_t j = 0; j < nl && nleaves < maxleaves; j++) {
            snprintf(nm[ki], 16, "g%u", ki);
            add_leaf(t, nm[ki++], (int32_t)g, 1 + (uint32_t)(rnd(s) % 2),
                     1 + (int64_t)(rnd(s) % 4));
            nleaves++;
        }
        t->g[g].min_count = (uint32_t)(rnd(s) % 3); /* 0 counts as 1; 2 may exceed nl */
        if (rnd(s) % 3 == 0)
            add_topo(t, g, lv[rnd(s) % 3], rnd(s) % 2 ? KARMADA_TOPO_PACK : KARMADA_TOPO_SPREAD,
                     1 + (uint32_t)(rnd(s) % 2), (int)(rnd(s) % 2));
    }
    uint32_t kids = 0;
    for (uint32_t i = 1; i < t->t.n; i++)
        kids += t->g[i].parent == (int32_t)root;
    t->g[root].min_count = 1 + (uint32_t)(rnd(s) % kids);
    for (uint32_t j = 0, nt = (uint32_t)(rnd(s) % 3); j < nt; j++)
        add_topo(t, root, lv[rnd(s) % 3], rnd(s) % 2 ? KARMADA_TOPO_PACK : KARMADA_TOPO_SPREAD,
                 1 + (uint32_t)(rnd(s) % 3), (int)(rnd(s) % 2));
}

static void test_random_agreement(void)
{
    uint64_t seed = 0x2545f4914f6cdd1dULL;
    int placed = 0, cases = 600;
    for (int i = 0; i < cases; i++) {
        struct fleet f = {0};
        struct tree t = {0};
        char nm[CM_GROUPS_MAX][16];
        random_case(&seed, &f, &t, nm);
        struct disp_composite_in in = input(&t, &f);
        struct disp_composite_result r;
        struct disp_composite_score best = {0};
        int32_t basg[CM_GROUPS_MAX];
        int found = cm_solve(&in, &best, basg);
        CU_ASSERT_EQUAL_FATAL(disp_composite_place(&in, &r), 0);
        CU_ASSERT(r.complete);
        CU_ASSERT_EQUAL(r.placed, found);
        if (r.placed != found || (found && cm_cmp(&best, &r.score) != 0))
            fprintf(stderr,
                    "case %d: engine placed %d pods %llu prefs %u clusters %u opened %llu; "
                    "naive found %d pods %llu prefs %u clusters %u opened %llu\n",
                    i, r.placed, (unsigned long long)r.score.pods, r.score.prefs_met,
                    r.score.clusters, (unsigned long long)r.score.opened, found,
                    (unsigned long long)best.pods, best.prefs_met, best.clusters,
                    (unsigned long long)best.opened);
        if (found && r.placed) {
            check_valid(&in, &r);
            CU_ASSERT_EQUAL(cm_cmp(&best, &r.score), 0);
            placed++;
        }
        if (!r.placed)
            CU_ASSERT(r.why[0] != 0);
        disp_composite_result_close(&r);
        tree_close(&t);
        fleet_close(&f);
    }
    fprintf(stderr, "random: %d of %d placed\n", placed, cases);
    /* the cases must exercise both outcomes, or they prove little */
    CU_ASSERT(placed > cases / 4);
    CU_ASSERT(placed < cases);
}

static CU_TestInfo tests[] = {
    {"split at group boundaries", test_split_at_boundary},
    {"reservations as leaves are placed", test_reserve_as_placed},
    {"the placement taken out of the snapshot", test_reserve_placement},
    {"min_count at each level", test_min_count_levels},
    {"CompositePodGroup levels: each composite's minGroupCount", test_composite_levels},
    {"required and preferred region and zone", test_region_zone},
    {"spread over zones", test_spread_zones},
    {"explanations", test_explanations},
    {"at the budget, the best so far", test_budget_keeps_best},
    {"more leaf shapes than the bound tracks", test_many_shapes},
    {"out of memory", test_out_of_memory},
    {"random cases agree with the naive search", test_random_agreement},
    CU_TEST_INFO_NULL,
};

static int setup_names(void)
{
    names = queue_resnames_new();
    uint32_t id;
    queue_resnames_intern(names, "cpu", 3, &id);
    queue_resnames_intern(names, "memory", 6, &id);
    queue_resnames_intern(names, "nvidia.com/gpu", 14, &id);
    return 0;
}

int main(void)
{
    setup_names();
    CU_SuiteInfo suites[] = {{"dispatcher/composite", NULL, NULL, NULL, NULL, tests},
                             CU_SUITE_INFO_NULL};
    if (CU_initialize_registry() != CUE_SUCCESS || CU_register_suites(suites) != CUE_SUCCESS)
        return 2;
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    queue_resnames_free(names);
    return failed ? 1 : 0;
}
