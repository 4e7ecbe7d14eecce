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

/* A Cluster object with spec.region and a zone label (NULL: without). */
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
    {"a split's cells derived from its shares", test_split_from_shares},
    {"each shape of a share reserved", test_share_comp_pods},
    {"the leaves' pods per cluster, in order of first use", test_shares_per_cluster},
    {"whole leaves only, up to the count asked for", test_whole_leaves_only},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/treeplace", tests)
