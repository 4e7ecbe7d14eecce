/* Tests for queue/errors.c: every code has a distinct message and name. */
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static void test_strerror_table(void)
{
    CU_ASSERT_STRING_EQUAL(muster_strerror(MUSTER_EINVAL), "invalid argument");
    CU_ASSERT_STRING_EQUAL(muster_errname(MUSTER_ERANGE), "ERANGE");
    CU_ASSERT_STRING_EQUAL(muster_strerror(12345), "unknown error");
    CU_ASSERT(MUSTER_EINVAL < 0);
    CU_ASSERT(MUSTER_EPROTO < 0);
    CU_ASSERT(strcmp(muster_strerror(MUSTER_ENOENT), muster_strerror(MUSTER_EEXIST)) != 0);
}

static CU_TestInfo tests[] = {
    {"strerror table", test_strerror_table},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/errors", tests)
