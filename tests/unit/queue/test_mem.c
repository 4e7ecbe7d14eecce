/* Tests for queue/mem.c: counting and failure injection. */
#include "queue/mem.h"
#include "testing.h"

#include <string.h>

static void test_counts_and_injects(void)
{
    muster_mem_reset();
    void *a = muster_malloc(10);
    char *s = muster_strdup("muster");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_STRING_EQUAL(s, "muster");
    struct muster_mem_stats st;
    muster_mem_stats(&st);
    CU_ASSERT_EQUAL(st.allocs, 2);
    muster_mem_fail_after(1); /* one more succeeds, then every one fails */
    void *b = muster_calloc(2, 8);
    void *c = muster_malloc(1);
    void *d = muster_realloc(NULL, 4);
    CU_ASSERT_PTR_NOT_NULL(b);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT_PTR_NULL(muster_strndup("x", 1));
    muster_mem_stats(&st);
    CU_ASSERT_EQUAL(st.failed, 3);
    muster_mem_fail_after(-1);
    void *e = muster_realloc(a, 100); /* a failed realloc would have kept a; this one works */
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    muster_free(e);
    muster_free(b);
    muster_free((void *)s);
    muster_free(NULL);
    muster_mem_stats(&st);
    CU_ASSERT_EQUAL(st.frees, 3);
    muster_mem_reset();
}

static CU_TestInfo tests[] = {
    {"counts and injects failures", test_counts_and_injects},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/mem", tests)
