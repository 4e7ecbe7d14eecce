/* Tests for dispatcher/placement.c: node-by-node fit, reservations within a cycle, single-cluster
 * best fit and spread over the fewest clusters, all or nothing. */
#include "dispatcher/placement.h"
#include "queue/errors.h"
#include "testing.h"

enum { CPU, MEM, GPU };

static struct queue_resvec vec3(int64_t cpu, int64_t mem_gi, int64_t gpu)
{
    struct queue_resvec v = {0};
    queue_resvec_set(&v, CPU, cpu * 1000);
    queue_resvec_set(&v, MEM, mem_gi * 1073741824LL * 1000);
    queue_resvec_set(&v, GPU, gpu * 1000);
    return v;
}

static void cluster_close(struct disp_cluster_cap *c)
{
    queue_resvec_close(&c->free);
    disp_cluster_cap_close_parts(c);
    for (uint32_t g = 0; g < c->ngrades; g++)
        queue_resvec_close(&c->grades[g].min);
}

static void test_fit_in_sum_but_not_node_by_node(void)
{
    /* 16 GPUs free, but on 4 nodes of 4: an 8-GPU replica fits in the sum and on no node. */
    struct disp_grade g[1] = {{vec3(32, 256, 4), 4}};
    struct disp_cluster_cap c = {
        .name = "a", .free = vec3(128, 1024, 16), .grades = g, .ngrades = 1};
    struct queue_resvec big = vec3(8, 64, 8), small = vec3(8, 64, 2);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &big), 0);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &small), 8);
    /* Without models only the sum bounds it. */
    struct disp_cluster_cap flat = {
        .name = "b", .free = vec3(128, 1024, 16), .grades = NULL, .ngrades = 0};
    CU_ASSERT_EQUAL(disp_cluster_fits(&flat, &big), 2);
    queue_resvec_close(&big);
    queue_resvec_close(&small);
    queue_resvec_close(&flat.free);
    cluster_close(&c);
}

static void test_models_from_zero(void)
{
    /* Karmada's models start at a minimum of 0: [0,1) [1,2) [2,4) [4,8) [8,inf) GPUs. Two
     * nodes with 4 GPUs free (grade 3), none in the other grades. Grades without nodes bound
     * nothing and do not lift the bound; grade 0 describes GPUs with a minimum of 0 (-1). */
    struct disp_grade g[5] = {{{0}, 0}, {{0}, 0}, {{0}, 0}, {{0}, 2}, {{0}, 0}};
    queue_resvec_set(&g[0].min, GPU, -1);
    queue_resvec_set(&g[1].min, GPU, 1000);
    queue_resvec_set(&g[2].min, GPU, 2000);
    queue_resvec_set(&g[3].min, GPU, 4000);
    queue_resvec_set(&g[4].min, GPU, 8000);
    struct disp_cluster_cap c = {.name = "a", .free = vec3(64, 512, 8), .grades = g, .ngrades = 5};
    struct queue_resvec big = vec3(2, 8, 8), three = vec3(1, 1, 3), two = vec3(1, 1, 2);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &big), 0);   /* 8 in the sum, 4 per node */
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &three), 2); /* one per node */
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &two), 4);
    /* A grade that describes nothing the replica asks for, with no nodes, lifts no bound. */
    struct disp_grade g2[2] = {{{0}, 0}, {{0}, 2}};
    queue_resvec_set(&g2[0].min, CPU, 1);
    queue_resvec_set(&g2[1].min, GPU, 4000);
    struct disp_cluster_cap c2 = {
        .name = "b", .free = vec3(64, 512, 8), .grades = g2, .ngrades = 2};
    struct queue_resvec gpu8 = {0};
    queue_resvec_set(&gpu8, GPU, 8000);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c2, &gpu8), 0);
    queue_resvec_close(&gpu8);
    cluster_close(&c2);
    /* Nodes with no GPU free (grade 0) hold no GPU replica. */
    g[3].nodes = 0;
    g[0].nodes = 2;
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &two), 0);
    queue_resvec_close(&big);
    queue_resvec_close(&three);
    queue_resvec_close(&two);
    cluster_close(&c);
}

static void test_grades_and_resources(void)
{
    /* Two grades; the small one does not describe GPUs, so only CPU bounds its nodes. */
    struct disp_grade g[2] = {{{0}, 10}, {vec3(64, 512, 8), 2}};
    queue_resvec_set(&g[0].min, CPU, 16000);
    struct disp_cluster_cap c = {
        .name = "a", .free = vec3(1000, 10000, 100), .grades = g, .ngrades = 2};
    struct queue_resvec r = vec3(16, 1, 1);
    /* grade 0: 10 nodes x 1; grade 1: 2 nodes x min(4 cpu, 8 gpu) = 8 */
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &r), 18);
    struct queue_resvec nothing = {0};
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &nothing), UINT64_MAX);
    queue_resvec_close(&r);
    cluster_close(&c);
}

static void test_empty_grade_zero(void)
{
    /* Karmada's default models start with grade 0: cpu [0,1), memory [0,4Gi). Its minimums
     * are all 0, so its vector is empty; with no node in it, it must not make the cluster
     * unbounded: 4 nodes of grade 4 (8 cpu) hold no 20-cpu replica. */
    struct disp_grade g[2] = {{{0}, 0}, {vec3(8, 64, 0), 4}};
    struct disp_cluster_cap c = {.name = "a", .free = vec3(64, 256, 0), .grades = g, .ngrades = 2};
    struct queue_resvec big = vec3(20, 0, 0), small = vec3(2, 0, 0);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &big), 0);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &small), 16);
    CU_ASSERT_EQUAL(disp_cluster_reserve(&c, &big, 1), MUSTER_ERANGE);
    queue_resvec_close(&big);
    queue_resvec_close(&small);
    cluster_close(&c);
}

static void test_reservations_within_a_cycle(void)
{
    struct disp_grade g[1] = {{vec3(32, 256, 8), 3}};
    struct disp_cluster_cap c = {.name = "a", .free = vec3(96, 768, 24), .grades = g, .ngrades = 1};
    struct queue_resvec r = vec3(8, 64, 2);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &r), 12);
    /* 4 a node: two nodes taken, the second only a quarter (3 more fit on it) */
    CU_ASSERT_EQUAL(disp_cluster_reserve(&c, &r, 5), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&c.free, GPU), 14000);
    CU_ASSERT_EQUAL(c.grades[0].nodes, 1);
    CU_ASSERT_EQUAL(c.npart, 1);
    CU_ASSERT_EQUAL(queue_resvec_get(&c.part[0], GPU), 6000);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &r), 7); /* never more than is left */
    CU_ASSERT_EQUAL(disp_cluster_reserve(&c, &r, 8), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_resvec_get(&c.free, GPU), 14000); /* refused: nothing changed */
    CU_ASSERT_EQUAL(c.grades[0].nodes, 1);
    CU_ASSERT_EQUAL(c.npart, 1);
    CU_ASSERT_EQUAL(disp_cluster_reserve(&c, &r, 7), 0);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &r), 0);
    CU_ASSERT_EQUAL(c.npart, 0); /* the part-taken node is full and forgotten */
    queue_resvec_close(&r);
    cluster_close(&c);
}

/* One-GPU replicas on 8-GPU nodes pack eight to a node, as the member's scheduler packs them,
 * rather than taking a whole node each; a whole-node replica afterwards is offered only the
 * nodes nothing was put on. */
static void test_small_replicas_pack_whole_ones_keep_whole_nodes(void)
{
    struct disp_grade g[1] = {{vec3(64, 512, 8), 4}};
    struct disp_cluster_cap c = {
        .name = "a", .free = vec3(256, 2048, 32), .grades = g, .ngrades = 1};
    struct queue_resvec one = vec3(1, 8, 1), whole = vec3(32, 256, 8);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &one), 32);
    for (int i = 0; i < 9; i++)
        CU_ASSERT_EQUAL(disp_cluster_reserve(&c, &one, 1), 0);
    /* nine single GPUs: one node full, one with a GPU used */
    CU_ASSERT_EQUAL(c.grades[0].nodes, 2);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &one), 23);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &whole), 2);
    CU_ASSERT_EQUAL(disp_cluster_reserve(&c, &whole, 3), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(disp_cluster_reserve(&c, &whole, 2), 0);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &whole), 0);
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &one), 7); /* the part-taken node */
    /* the summary still bounds: it says 32 - 9 - 16 = 7 as well */
    CU_ASSERT_EQUAL(queue_resvec_get(&c.free, GPU), 7000);
    queue_resvec_close(&one);
    queue_resvec_close(&whole);
    cluster_close(&c);
}

/* More part-taken nodes than are kept: the remainder is dropped, so room is under-counted,
 * never over-counted. A replica of 3 GPUs goes twice on an 8-GPU node and leaves 2 GPUs that
 * no further one fits: each pair of them leaves such a node behind. */
static void test_part_taken_nodes_are_bounded(void)
{
    struct disp_grade g[1] = {{vec3(64, 512, 8), 20}};
    struct disp_cluster_cap c = {
        .name = "a", .free = vec3(1280, 10240, 160), .grades = g, .ngrades = 1};
    struct queue_resvec three = vec3(20, 8, 3);
    for (int i = 0; i < 2 * (DISP_PARTIAL_MAX + 2); i++)
        CU_ASSERT_EQUAL(disp_cluster_reserve(&c, &three, 1), 0);
    CU_ASSERT_EQUAL(c.npart, DISP_PARTIAL_MAX);
    /* DISP_PARTIAL_MAX nodes hold two each; past the bound, each took a node of its own */
    CU_ASSERT_EQUAL(c.grades[0].nodes, 20 - DISP_PARTIAL_MAX - 4);
    struct queue_resvec one = vec3(1, 8, 1);
    /* whole nodes hold 8 each, the kept part-taken ones 2 each (the summary says 100) */
    CU_ASSERT_EQUAL(disp_cluster_fits(&c, &one),
                    (20 - DISP_PARTIAL_MAX - 4) * 8 + 2 * DISP_PARTIAL_MAX);
    queue_resvec_close(&one);
    queue_resvec_close(&three);
    cluster_close(&c);
}

static void test_single_cluster_best_fit(void)
{
    struct disp_cluster_cap cs[3] = {
        {.name = "big", .free = vec3(800, 6400, 80), .grades = NULL, .ngrades = 0},
        {.name = "snug", .free = vec3(100, 800, 10), .grades = NULL, .ngrades = 0},
        {.name = "also-snug", .free = vec3(100, 800, 10), .grades = NULL, .ngrades = 0},
    };
    struct queue_resvec r = vec3(8, 64, 2);
    struct disp_share out[3];
    CU_ASSERT_EQUAL(disp_place(cs, 3, &r, 4, DISP_SINGLE_CLUSTER, out), 1);
    CU_ASSERT_EQUAL(out[0].cluster, 2); /* least left over, ties by name */
    CU_ASSERT_EQUAL(out[0].replicas, 4);
    CU_ASSERT_EQUAL(disp_place(cs, 3, &r, 6, DISP_SINGLE_CLUSTER, out), 1);
    CU_ASSERT_EQUAL(out[0].cluster, 0);
    CU_ASSERT_EQUAL(disp_place(cs, 3, &r, 41, DISP_SINGLE_CLUSTER, out), 0);
    for (int i = 0; i < 3; i++)
        queue_resvec_close(&cs[i].free);
    queue_resvec_close(&r);
}

static void test_spread_fewest_clusters_all_or_nothing(void)
{
    struct disp_cluster_cap cs[3] = {
        {.name = "a", .free = vec3(1000, 10000, 12), .grades = NULL, .ngrades = 0}, /* 6 replicas */
        {.name = "b", .free = vec3(1000, 10000, 10), .grades = NULL, .ngrades = 0}, /* 5 */
        {.name = "c", .free = vec3(1000, 10000, 6), .grades = NULL, .ngrades = 0},  /* 3 */
    };
    struct queue_resvec r = vec3(1, 1, 2);
    struct disp_share out[3];
    CU_ASSERT_EQUAL(disp_place(cs, 3, &r, 10, DISP_SPREAD, out), 2);
    CU_ASSERT_EQUAL(out[0].cluster, 0);
    CU_ASSERT_EQUAL(out[0].replicas, 6);
    CU_ASSERT_EQUAL(out[1].cluster, 1);
    CU_ASSERT_EQUAL(out[1].replicas, 4);
    CU_ASSERT_EQUAL(disp_place(cs, 3, &r, 14, DISP_SPREAD, out), 3);
    CU_ASSERT_EQUAL(disp_place(cs, 3, &r, 15, DISP_SPREAD, out), 0); /* never half a gang */
    CU_ASSERT_EQUAL(disp_place(cs, 3, &r, 5, DISP_SPREAD, out), 1);  /* one cluster if it can */
    CU_ASSERT_EQUAL(disp_place(cs, 0, &r, 1, DISP_SPREAD, out), 0);
    for (int i = 0; i < 3; i++)
        queue_resvec_close(&cs[i].free);
    queue_resvec_close(&r);
}

/* disp_place_fits decides from the fits it is given, not from the clusters' rooms: the same
 * choice as disp_place when they are the clusters' fits, and another when they say other. */
static void test_place_from_given_fits(void)
{
    struct disp_cluster_cap cs[3] = {
        {.name = "a", .free = vec3(1000, 10000, 12), .grades = NULL, .ngrades = 0},
        {.name = "b", .free = vec3(1000, 10000, 10), .grades = NULL, .ngrades = 0},
        {.name = "c", .free = vec3(1000, 10000, 6), .grades = NULL, .ngrades = 0},
    };
    struct queue_resvec r = vec3(1, 1, 2);
    uint64_t fits[3];
    for (int i = 0; i < 3; i++)
        fits[i] = disp_cluster_fits(&cs[i], &r);
    struct disp_share a[3], b[3];
    for (uint64_t n = 1; n <= 15; n++) {
        for (int m = 0; m < 2; m++) {
            enum disp_spread mode = m ? DISP_SPREAD : DISP_SINGLE_CLUSTER;
            uint32_t na = disp_place(cs, 3, &r, n, mode, a);
            uint32_t nb = disp_place_fits(cs, fits, 3, n, mode, b);
            CU_ASSERT_EQUAL(na, nb);
            for (uint32_t i = 0; i < na && i < nb; i++) {
                CU_ASSERT_EQUAL(a[i].cluster, b[i].cluster);
                CU_ASSERT_EQUAL(a[i].replicas, b[i].replicas);
            }
        }
    }
    uint64_t other[3] = {0, 0, 4}; /* a cycle's reservations took a and b */
    CU_ASSERT_EQUAL(disp_place_fits(cs, other, 3, 4, DISP_SINGLE_CLUSTER, b), 1);
    CU_ASSERT_EQUAL(b[0].cluster, 2);
    CU_ASSERT_EQUAL(disp_place_fits(cs, other, 3, 5, DISP_SPREAD, b), 0);
    for (int i = 0; i < 3; i++)
        queue_resvec_close(&cs[i].free);
    queue_resvec_close(&r);
}

/* Issue 20's group-size: 4 shards of 8 one-GPU pods over two clusters of 20 GPUs. Spread fills
 * the roomiest first and cuts a shard (20 + 12); in whole groups it is 16 + 16 and no shard is
 * cut. A cluster too small for one group takes none; a group no cluster holds places nothing. */
static void test_groups_never_split(void)
{
    struct disp_cluster_cap cs[3] = {
        {.name = "east", .free = vec3(1000, 10000, 20), .grades = NULL, .ngrades = 0},
        {.name = "west", .free = vec3(1000, 10000, 20), .grades = NULL, .ngrades = 0},
        {.name = "tiny", .free = vec3(1000, 10000, 7), .grades = NULL, .ngrades = 0},
    };
    struct queue_resvec r = vec3(1, 1, 1);
    uint64_t fits[3];
    for (int i = 0; i < 3; i++)
        fits[i] = disp_cluster_fits(&cs[i], &r);
    struct disp_share out[3];
    CU_ASSERT_EQUAL_FATAL(disp_place_fits(cs, fits, 3, 32, DISP_SPREAD, out), 2);
    CU_ASSERT_EQUAL(out[0].replicas, 20); /* today's spread: a shard cut 4 + 4 */
    CU_ASSERT_EQUAL(out[1].replicas, 12);
    CU_ASSERT_EQUAL_FATAL(disp_place_groups(cs, fits, 3, 32, 8, DISP_SPREAD, out), 2);
    CU_ASSERT_EQUAL(out[0].replicas, 16);
    CU_ASSERT_EQUAL(out[1].replicas, 16);
    CU_ASSERT_EQUAL(out[0].replicas % 8, 0);
    /* 5 shards: 16 + 16 + tiny cannot take a whole one: nothing */
    CU_ASSERT_EQUAL(disp_place_groups(cs, fits, 3, 40, 8, DISP_SPREAD, out), 0);
    /* a group larger than any cluster: nothing, though the sum would hold it */
    CU_ASSERT_EQUAL(disp_place_groups(cs, fits, 3, 24, 24, DISP_SPREAD, out), 0);
    CU_ASSERT_EQUAL(disp_place_fits(cs, fits, 3, 24, DISP_SPREAD, out), 2);
    /* replicas that are not whole groups are refused, group 1 is plain spread */
    CU_ASSERT_EQUAL(disp_place_groups(cs, fits, 3, 30, 8, DISP_SPREAD, out), 0);
    CU_ASSERT_EQUAL(disp_place_groups(cs, fits, 3, 32, 1, DISP_SPREAD, out), 2);
    CU_ASSERT_EQUAL(out[0].replicas, 20);
    /* single-cluster with groups: the whole gang in one cluster, as before */
    CU_ASSERT_EQUAL(disp_place_groups(cs, fits, 3, 16, 8, DISP_SINGLE_CLUSTER, out), 1);
    CU_ASSERT_EQUAL(out[0].replicas, 16);
    for (int i = 0; i < 3; i++)
        queue_resvec_close(&cs[i].free);
    queue_resvec_close(&r);
}

static CU_TestInfo tests[] = {
    {"fits in sum but not node by node", test_fit_in_sum_but_not_node_by_node},
    {"models from a minimum of 0 (Karmada's grades)", test_models_from_zero},
    {"grades and resources they do not describe", test_grades_and_resources},
    {"an empty grade 0 bounds nothing", test_empty_grade_zero},
    {"reservations within a cycle", test_reservations_within_a_cycle},
    {"small replicas pack, whole ones keep whole nodes",
     test_small_replicas_pack_whole_ones_keep_whole_nodes},
    {"part-taken nodes are bounded", test_part_taken_nodes_are_bounded},
    {"single-cluster best fit", test_single_cluster_best_fit},
    {"spread over the fewest clusters, all or nothing", test_spread_fewest_clusters_all_or_nothing},
    {"placement from given fits", test_place_from_given_fits},
    {"group-size: whole groups only, none split between clusters", test_groups_never_split},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/placement", tests)
