/* Tests for cluster-adapters/sim/quantity.c: queue/quantity underneath, and Karmada's MaxInt64
 * resource-model maximum as "unbounded". */
#include "cluster-adapters/sim/quantity.h"
#include "queue/errors.h"
#include "testing.h"

static void test_parse_and_format(void)
{
    int64_t m;
    char buf[32];
    CU_ASSERT_EQUAL(sim_qty_parse("32Gi", &m), 0);
    CU_ASSERT_EQUAL(m, 32LL * 1073741824 * 1000);
    CU_ASSERT_EQUAL(sim_qty_parse("1.5e3", &m), 0); /* exponents too, since the shared parser */
    CU_ASSERT_EQUAL(m, 1500000);
    CU_ASSERT_EQUAL(sim_qty_parse("9223372036854775807", &m), 0);
    CU_ASSERT_EQUAL(m, SIM_QTY_INF);
    CU_ASSERT_EQUAL(sim_qty_parse("9223372036854775806", &m), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(sim_qty_parse("lots", &m), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(sim_qty_parse(NULL, &m), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(sim_qty_format(SIM_QTY_INF, buf, sizeof(buf)), 0);
    CU_ASSERT_STRING_EQUAL(buf, "9223372036854775807");
    CU_ASSERT_EQUAL(sim_qty_format(500, buf, sizeof(buf)), 0);
    CU_ASSERT_STRING_EQUAL(buf, "500m");
    CU_ASSERT_EQUAL(sim_qty_format(2LL * 1073741824 * 1000, buf, sizeof(buf)), 0);
    CU_ASSERT_STRING_EQUAL(buf, "2Gi");
    CU_ASSERT_EQUAL(sim_qty_format(SIM_QTY_INF, buf, 4), MUSTER_ENOSPC);
}

static CU_TestInfo tests[] = {
    {"parse and format", test_parse_and_format},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/quantity", tests)
