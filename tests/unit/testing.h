/* Shared scaffolding for the CUnit test executables: one suite per file, run by one macro. */
#ifndef MUSTER_TESTS_TESTING_H
#define MUSTER_TESTS_TESTING_H

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* MUSTER_TEST_MAIN(name, tests): runs the NULL-terminated CU_TestInfo array `tests` as one
 * suite and exits non-zero when any assertion failed. */
#define MUSTER_TEST_MAIN(suite_name, test_array)                                                   \
    int main(void)                                                                                 \
    {                                                                                              \
        CU_SuiteInfo suites_[] = {{suite_name, NULL, NULL, NULL, NULL, test_array}, CU_SUITE_INFO_NULL}; \
        if (CU_initialize_registry() != CUE_SUCCESS)                                               \
            return 2;                                                                              \
        if (CU_register_suites(suites_) != CUE_SUCCESS)                                            \
            return 2;                                                                              \
        CU_basic_set_mode(CU_BRM_VERBOSE);                                                         \
        CU_basic_run_tests();                                                                      \
        unsigned failed_ = CU_get_number_of_failures() + CU_get_number_of_tests_failed();          \
        CU_cleanup_registry();                                                                     \
        return failed_ ? 1 : 0;                                                                    \
    }

/* A scratch path under the build tree (MUSTER_TEST_TMP), unique per process and name. */
static inline void test_tmp_path(char *buf, size_t cap, const char *name)
{
    const char *dir = getenv("MUSTER_TEST_TMP");
    snprintf(buf, cap, "%s/%ld-%s", dir ? dir : "/tmp", (long)getpid(), name);
}

#endif
