/* YuniKorn's Soft gang style (dispatcher/controller/soft.c), without a hub: when a gang's
 * guarantee lapses and the sentence it is admitted with. The style and timeout come from the
 * pods' yunikorn.apache.org/schedulingPolicyParameters, as in the "gang-app-timeout" example of
 * YuniKorn's gang scheduling guide (apache/yunikorn-site docs/user_guide/gang_scheduling.md,
 * "Gang scheduling Styles"). */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

/* What the workload reader leaves for a YuniKorn gang of task groups summing to min. */
static struct karmada_workload yk(int soft, int32_t timeout_s, int32_t min)
{
    struct karmada_workload w;
    memset(&w, 0, sizeof w);
    w.dialect = KARMADA_WORKLOAD_DIALECT_YUNIKORN;
    w.task_groups = 1;
    w.task_group_min = min;
    w.min_member = min;
    w.replicas = 4;
    w.gang_soft = soft;
    w.gang_timeout_s = timeout_s;
    return w;
}

static void test_deadline(void)
{
    const int64_t t0 = 1700000000000;
    struct karmada_workload w = yk(1, 2, 4);
    CU_ASSERT_EQUAL(ctl__soft_deadline(&w, t0), t0 + 2000);
    /* no timeout given: YuniKorn's default of 15 minutes */
    w = yk(1, 0, 4);
    CU_ASSERT_EQUAL(ctl__soft_deadline(&w, t0), t0 + 900 * 1000);
    /* Hard never lapses */
    w = yk(0, 2, 4);
    CU_ASSERT_EQUAL(ctl__soft_deadline(&w, t0), 0);
    /* a gang of one has no guarantee to give up */
    w = yk(1, 2, 1);
    CU_ASSERT_EQUAL(ctl__soft_deadline(&w, t0), 0);
    /* the policy alone, without task groups, is no YuniKorn gang */
    w = yk(1, 2, 4);
    w.task_groups = 0;
    CU_ASSERT_EQUAL(ctl__soft_deadline(&w, t0), 0);
    /* another dialect's gang (a coscheduling PodGroup's timeout is the member's business) */
    w = yk(1, 2, 4);
    w.dialect = KARMADA_WORKLOAD_DIALECT_COSCHEDULING;
    CU_ASSERT_EQUAL(ctl__soft_deadline(&w, t0), 0);
    /* no creation time known */
    w = yk(1, 2, 4);
    CU_ASSERT_EQUAL(ctl__soft_deadline(&w, 0), 0);
}

static void test_lapsed(void)
{
    CU_ASSERT_FALSE(ctl__soft_lapsed(0, 5000)); /* no deadline */
    CU_ASSERT_FALSE(ctl__soft_lapsed(3000, 2999));
    CU_ASSERT_TRUE(ctl__soft_lapsed(3000, 3000));
    CU_ASSERT_TRUE(ctl__soft_lapsed(3000, 9000));
    CU_ASSERT_FALSE(ctl__soft_lapsed(3000, 0)); /* an admitted gang without its admission time */
}

static void test_reason(void)
{
    struct binding b;
    memset(&b, 0, sizeof b);
    b.created_at = 10000;
    b.soft_at = 12000;
    b.replicas = 1;
    char buf[256];
    ctl__soft_reason(buf, sizeof buf, &b, 0);
    CU_ASSERT_STRING_EQUAL(buf, "admitted without the gang guarantee (min-member 1): YuniKorn "
                                "gangSchedulingStyle Soft, its placeholder timeout of 2 s passed");
    struct ctl_grow g;
    memset(&g, 0, sizeof g);
    g.replicas = 3;
    b.grow = &g;
    ctl__soft_reason(buf, sizeof buf, &b, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "timeout of 2 s passed; 1 of 4 replicas, 3 more wait as a "
                                       "scale up"));
}

static CU_TestInfo tests[] = {
    {"when a Soft gang's guarantee lapses", test_deadline},
    {"lapsed at a time", test_lapsed},
    {"the admission's sentence", test_reason},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/soft", tests)
