/* karmada/groups.c: a group tree's storage. */
#include "cluster-adapters/karmada/groups.h"

#include "queue/mem.h"
#include "testing.h"

static void test_close(void)
{
    struct karmada_group_tree t = {0};
    karmada_group_tree_close(&t); /* an empty tree closes */
    CU_ASSERT_PTR_NULL(t.g);
    t.g = muster_calloc(2, sizeof(*t.g));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.g);
    t.n = 2;
    t.g[0].parent = -1;
    t.g[1].parent = 0;
    t.g[1].pods = 8;
    CU_ASSERT_EQUAL(queue_resvec_set(&t.g[1].pod, 0, 1000), 0);
    karmada_group_tree_close(&t); /* the leaf's vector goes with it (ASan: no leak) */
    CU_ASSERT_PTR_NULL(t.g);
    CU_ASSERT_EQUAL(t.n, 0);
}

static CU_TestInfo tests[] = {
    {"a tree closes with its leaves' vectors", test_close},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/groups", tests)
