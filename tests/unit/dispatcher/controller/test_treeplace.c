/* A gang placed as a tree of groups (dispatcher/controller/treeplace.c), without a hub: how the
 * leaves the composite search placed become the gang's shares. */
#include "dispatcher/controller/ctl_int.h"
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

static CU_TestInfo tests[] = {
    {"the leaves' pods per cluster, in order of first use", test_shares_per_cluster},
    {"whole leaves only, up to the count asked for", test_whole_leaves_only},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/treeplace", tests)
