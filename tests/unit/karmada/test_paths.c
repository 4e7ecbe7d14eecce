/* karmada/paths.c: the hub paths of Karmada's objects. */
#include "cluster-adapters/karmada/paths.h"

#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static void test_rb(void)
{
    char buf[256];
    CU_ASSERT_EQUAL(karmada_path_rb(buf, sizeof buf, "team-a", "job-1-job"), 0);
    CU_ASSERT_STRING_EQUAL(
        buf, "/apis/work.karmada.io/v1alpha2/namespaces/team-a/resourcebindings/job-1-job");
    CU_ASSERT_EQUAL(karmada_path_rb_status(buf, sizeof buf, "team-a", "job-1-job"), 0);
    CU_ASSERT_STRING_EQUAL(
        buf, "/apis/work.karmada.io/v1alpha2/namespaces/team-a/resourcebindings/job-1-job/status");
    CU_ASSERT_EQUAL(karmada_path_rb(buf, sizeof buf, "", "x"), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(karmada_path_rb(buf, sizeof buf, "ns", NULL), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(karmada_path_rb(buf, 20, "team-a", "job-1-job"), MUSTER_ENOSPC);
    char small[80];
    CU_ASSERT_EQUAL(karmada_path_rb_status(small, sizeof small, "team-a", "job-1-job"),
                    MUSTER_ENOSPC);
}

static void test_works(void)
{
    char buf[256];
    CU_ASSERT_EQUAL(karmada_path_work(buf, sizeof buf, "member1", "muster-pg-a.b"), 0);
    CU_ASSERT_STRING_EQUAL(
        buf, "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works/muster-pg-a.b");
    CU_ASSERT_EQUAL(karmada_path_work(buf, sizeof buf, "member1", NULL), 0);
    CU_ASSERT_STRING_EQUAL(buf,
                           "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works");
    CU_ASSERT_EQUAL(karmada_path_work(buf, sizeof buf, "", "x"), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(karmada_path_works(buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "/apis/work.karmada.io/v1alpha1/works");
    CU_ASSERT_EQUAL(karmada_path_works_selector(buf, sizeof buf, "7f3c"), 0);
    CU_ASSERT_STRING_EQUAL(buf, "resourcebinding.karmada.io/permanent-id=7f3c");
    CU_ASSERT_EQUAL(karmada_path_works_selector(buf, sizeof buf, ""), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(karmada_path_works_selector(buf, 10, "7f3c"), MUSTER_ENOSPC);
    CU_ASSERT_STRING_EQUAL(buf, "");
}

static void test_policy(void)
{
    char buf[256];
    CU_ASSERT_EQUAL(karmada_path_policy(buf, sizeof buf, "team-a", "muster-job"), 0);
    CU_ASSERT_STRING_EQUAL(
        buf, "/apis/policy.karmada.io/v1alpha1/namespaces/team-a/overridepolicies/muster-job");
    CU_ASSERT_EQUAL(karmada_path_policy(buf, sizeof buf, "team-a", NULL), 0);
    CU_ASSERT_STRING_EQUAL(buf,
                           "/apis/policy.karmada.io/v1alpha1/namespaces/team-a/overridepolicies");
    CU_ASSERT_EQUAL(karmada_path_policy(buf, sizeof buf, NULL, "x"), MUSTER_EINVAL);
}

static void test_execution_namespace(void)
{
    char buf[32];
    CU_ASSERT_EQUAL(karmada_path_execution_namespace(buf, sizeof buf, "member2"), 0);
    CU_ASSERT_STRING_EQUAL(buf, "karmada-es-member2");
    CU_ASSERT_EQUAL(karmada_path_execution_namespace(buf, 12, "member2"), MUSTER_ENOSPC);
    CU_ASSERT_EQUAL(karmada_path_execution_namespace(buf, sizeof buf, NULL), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(karmada_path_execution_cluster("karmada-es-member2"), "member2");
    CU_ASSERT_PTR_NULL(karmada_path_execution_cluster("karmada-es-"));
    CU_ASSERT_PTR_NULL(karmada_path_execution_cluster("team-a"));
    CU_ASSERT_PTR_NULL(karmada_path_execution_cluster(NULL));
}

static CU_TestInfo tests[] = {
    {"resourcebinding and its status", test_rb},
    {"works: one, a member's, all, by permanent id", test_works},
    {"overridepolicy", test_policy},
    {"execution namespace both ways", test_execution_namespace},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/paths", tests)
