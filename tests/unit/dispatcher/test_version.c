/* Tests for dispatcher/version.c: the version is the project's, not the fallback. */
#include "dispatcher/version.h"
#include "testing.h"

#include <string.h>

static void test_version(void)
{
    const char *v = disp_version();
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_STRING_NOT_EQUAL(v, "0.0.0-dev"); /* CMake passed PROJECT_VERSION */
    CU_ASSERT_PTR_NOT_NULL(strchr(v, '.'));
}

static CU_TestInfo tests[] = {
    {"version from the build", test_version},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/version", tests)
