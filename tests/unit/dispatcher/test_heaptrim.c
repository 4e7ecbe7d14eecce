/* The heap trimmer's rule (heaptrim_due) and its timer's life on a loop. */
#include "dispatcher/heaptrim.h"

#include "testing.h"

#include <stdlib.h>
#include <string.h>

#define MIB (1024u * 1024)

static void test_due(void)
{
    /* a burst left a third of a 300 MiB heap free, and it changed since the last look */
    CU_ASSERT_TRUE(heaptrim_due(300 * MIB, 200 * MIB, 280 * MIB, 250 * MIB));
    /* the same heap, untouched since the last look: its free pages were returned already */
    CU_ASSERT_FALSE(heaptrim_due(300 * MIB, 200 * MIB, 300 * MIB, 200 * MIB));
    /* only the in-use bytes moved: something was allocated or freed */
    CU_ASSERT_TRUE(heaptrim_due(300 * MIB, 201 * MIB, 300 * MIB, 200 * MIB));
    /* free, but under HEAPTRIM_MIN_FREE */
    CU_ASSERT_FALSE(heaptrim_due(40 * MIB, 40 * MIB - HEAPTRIM_MIN_FREE + 1, 0, 0));
    CU_ASSERT_TRUE(heaptrim_due(40 * MIB, 40 * MIB - HEAPTRIM_MIN_FREE, 0, 0));
    /* over the minimum, but under an eighth of a large heap */
    CU_ASSERT_FALSE(heaptrim_due(800 * MIB, 800 * MIB - 99 * MIB, 0, 0));
    CU_ASSERT_TRUE(heaptrim_due(800 * MIB, 700 * MIB, 0, 0));
    /* nonsense from the allocator's counters is no reason to trim */
    CU_ASSERT_FALSE(heaptrim_due(10 * MIB, 20 * MIB, 0, 0));
}

/* The timer neither keeps the loop alive nor outlives its close: the loop closes cleanly. */
static void test_timer_life(void)
{
    uv_loop_t loop;
    CU_ASSERT_FATAL(uv_loop_init(&loop) == 0);
    struct heaptrim h;
    heaptrim_start(&h, &loop);
    CU_ASSERT_EQUAL(uv_run(&loop, UV_RUN_DEFAULT), 0); /* returns: nothing keeps it alive */
    heaptrim_close(&h);
    heaptrim_close(&h); /* twice is harmless (daemon.c closes it on both paths) */
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(h.trims, 0);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
}

static int ticked;
static void stop_after(uv_timer_t *t)
{
    ticked = 1;
    uv_stop(t->loop);
}

/* A heap with a lot freed since the last look is trimmed at the next tick (where there is a
 * glibc heap to trim: not under ASan). */
static void test_trims_after_free(void)
{
    uv_loop_t loop;
    CU_ASSERT_FATAL(uv_loop_init(&loop) == 0);
    struct heaptrim h;
    heaptrim_start(&h, &loop);
    /* 64 MiB in blocks under glibc's mmap threshold, every other one freed: the survivors
     * pin the heap's top, so only malloc_trim returns the freed pages */
    enum { N = 2048, SZ = 32 * 1024 };
    char **v = malloc(N * sizeof *v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    for (int i = 0; i < N; i++) {
        v[i] = malloc(SZ);
        memset(v[i], 1, SZ);
    }
    for (int i = 0; i < N; i += 2) {
        free(v[i]);
        v[i] = NULL;
    }
    uv_timer_t stop;
    uv_timer_init(&loop, &stop);
    uv_timer_start(&stop, stop_after, HEAPTRIM_INTERVAL_MS + 200, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_TRUE(ticked);
    CU_ASSERT_EQUAL(h.trims, HEAPTRIM_ACTIVE ? 1u : 0u);
    for (int i = 0; i < N; i++)
        free(v[i]);
    free(v);
    heaptrim_close(&h);
    uv_close((uv_handle_t *)&stop, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
}

static CU_TestInfo tests[] = {
    {"the rule: enough free, and something changed since the last look", test_due},
    {"the timer does not keep the loop alive and closes cleanly", test_timer_life},
    {"a heap with a lot freed is trimmed at the next tick", test_trims_after_free},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/heaptrim", tests)
