/* The rules the dispatcher owns for reclaim (dispatcher/controller/reclaim.c, docs/reclaim.md):
 * which queues are cooling (preemption.maxPerMinute), which gangs are cooling
 * (preemption.cooldown, counted from re-admission), and when a pending gang is searched for. */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

#define SEC 1000
#define MINUTE_ (60 * SEC)

static void test_queue_rate_limit(void)
{
    int64_t now = 100 * MINUTE_;
    int64_t at[] = {now - 59 * SEC, now - 30 * SEC, now - MINUTE_, now - 2 * MINUTE_, now + SEC};
    /* no limit */
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(at, 5, now, 0), 0);
    /* two in the last minute: a minute ago has left it, the future does not count */
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(at, 5, now, 1), 1);
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(at, 5, now, 2), 1);
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(at, 5, now, 3), 0);
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(at, 0, now, 1), 0);
    /* one ms later the oldest of the two is 59.999 s old: still in */
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(at, 5, now + 1, 2), 1);
    /* 31 s later both have left the minute; the one that was ahead of the clock has come */
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(at, 5, now + 31 * SEC, 2), 0);
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(at, 5, now + 31 * SEC, 1), 1);
}

static void test_gang_cooldown_from_readmission(void)
{
    int64_t pre = 10 * MINUTE_;
    /* never preempted, or no cool-down */
    CU_ASSERT_EQUAL(ctl__reclaim_gang_cooling(0, 0, pre, 5 * MINUTE_), 0);
    CU_ASSERT_EQUAL(ctl__reclaim_gang_cooling(pre, pre + SEC, pre + 2 * SEC, 0), 0);
    /* re-admitted a minute after its preemption: cools 5 minutes from then */
    int64_t again = pre + MINUTE_;
    CU_ASSERT_EQUAL(ctl__reclaim_gang_cooling(pre, again, again + 5 * MINUTE_ - 1, 5 * MINUTE_), 1);
    CU_ASSERT_EQUAL(ctl__reclaim_gang_cooling(pre, again, again + 5 * MINUTE_, 5 * MINUTE_), 0);
    /* waited longer than the cool-down to run again: it still gets its cool-down of running */
    again = pre + 10 * MINUTE_;
    CU_ASSERT_EQUAL(ctl__reclaim_gang_cooling(pre, again, again + SEC, 5 * MINUTE_), 1);
    /* an admission from before the preemption is not a re-admission */
    CU_ASSERT_EQUAL(ctl__reclaim_gang_cooling(pre, pre - MINUTE_, pre + 4 * MINUTE_, 5 * MINUTE_),
                    1);
    CU_ASSERT_EQUAL(ctl__reclaim_gang_cooling(pre, pre - MINUTE_, pre + 5 * MINUTE_, 5 * MINUTE_),
                    0);
}

static void test_search_bound(void)
{
    struct ctl_reclaim_memo m = {0};
    /* never searched: yes, within the cycle's budget */
    CU_ASSERT_EQUAL(ctl__reclaim_should_search(&m, 7, 0), 1);
    CU_ASSERT_EQUAL(ctl__reclaim_should_search(&m, 7, CTL_RECLAIM_SEARCHES_PER_CYCLE - 1), 1);
    CU_ASSERT_EQUAL(ctl__reclaim_should_search(&m, 7, CTL_RECLAIM_SEARCHES_PER_CYCLE), 0);
    /* found nothing: not again until the index changes */
    m = (struct ctl_reclaim_memo){.searched = 1, .found_nothing = 1, .change_seq = 7};
    CU_ASSERT_EQUAL(ctl__reclaim_should_search(&m, 7, 0), 0);
    CU_ASSERT_EQUAL(ctl__reclaim_should_search(&m, 8, 0), 1);
    /* found victims last time (they may not have gone yet): searched again */
    m.found_nothing = 0;
    CU_ASSERT_EQUAL(ctl__reclaim_should_search(&m, 7, 0), 1);
}

/* A preemption as evict() leaves it in the ledger: the victim's row rolled back at `at` with
 * its reason, the next row pending. */
static void preempted_row(struct store *s, const char *key, const char *queue, int64_t at)
{
    struct store_ledger_row r = {.binding = key,
                                 .queue = queue,
                                 .request = "{\"nvidia.com/gpu\":\"4\"}",
                                 .state = "running",
                                 .created_at = 1,
                                 .admitted_at = 1,
                                 .updated_at = 1};
    int64_t id = 0;
    CU_ASSERT_EQUAL_FATAL(store_ledger_insert(s, &r, &id), 0);
    struct store_ledger_row up = {.id = id,
                                  .state = "rolledback",
                                  .reason = "preempted to reclaim for a (binding team/big)",
                                  .updated_at = at};
    struct store_ledger_row next = r;
    next.state = "pending";
    next.updated_at = at;
    struct store_ledger_row batch[2] = {up, next};
    CU_ASSERT_EQUAL_FATAL(store_ledger_write_batch(s, batch, 2), 0);
}

/* A restart reads the history back from the ledger: the rate limit and the cool-down hold as
 * they did before it. */
static void test_history_after_restart(void)
{
    struct store *s = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(store_open(":memory:", NULL, &s, err, sizeof err), 0);
    struct ctl_rc_hist *ring = calloc(CTL_RECLAIM_HISTORY, sizeof *ring);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ring);
    uint32_t n = 99, at = 99;
    /* nothing preempted yet */
    CU_ASSERT_EQUAL(ctl__reclaim_history_read(s, ring, &n, &at), 0);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(at, 0);

    int64_t now = 100 * MINUTE_;
    preempted_row(s, "team/b1", "b", now - 2 * MINUTE_);
    preempted_row(s, "team/b2", "b", now - 30 * SEC);
    preempted_row(s, "team/c1", "c", now - 10 * SEC);
    CU_ASSERT_EQUAL(ctl__reclaim_history_read(s, ring, &n, &at), 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(at, 3);
    /* oldest first, as the ring was written */
    CU_ASSERT_STRING_EQUAL(ring[0].key, "team/b1");
    CU_ASSERT_STRING_EQUAL(ring[1].key, "team/b2");
    CU_ASSERT_STRING_EQUAL(ring[2].key, "team/c1");
    CU_ASSERT_STRING_EQUAL(ring[2].queue, "c");
    CU_ASSERT_EQUAL(ring[1].at, now - 30 * SEC);
    /* b lost one gang in the last minute: with maxPerMinute 1 it cools, as before the restart */
    int64_t b_at[2] = {ring[0].at, ring[1].at};
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(b_at, 2, now, 1), 1);
    CU_ASSERT_EQUAL(ctl__reclaim_queue_cooling(b_at, 2, now, 2), 0);
    /* b2, preempted 30 s ago and not run since, cools for a cool-down of 1 min */
    CU_ASSERT_EQUAL(ctl__reclaim_gang_cooling(ring[1].at, 0, now, MINUTE_), 1);

    /* more than the ring holds: the newest CTL_RECLAIM_HISTORY, oldest first, next slot 0 */
    for (int i = 0; i < CTL_RECLAIM_HISTORY; i++) {
        char key[32];
        snprintf(key, sizeof key, "team/g%d", i);
        preempted_row(s, key, "b", now + i);
    }
    CU_ASSERT_EQUAL(ctl__reclaim_history_read(s, ring, &n, &at), 0);
    CU_ASSERT_EQUAL_FATAL(n, CTL_RECLAIM_HISTORY);
    CU_ASSERT_EQUAL(at, 0);
    CU_ASSERT_STRING_EQUAL(ring[0].key, "team/g0");
    CU_ASSERT_EQUAL(ring[0].at, now);
    CU_ASSERT_STRING_EQUAL(ring[CTL_RECLAIM_HISTORY - 1].key, "team/g511");
    free(ring);
    store_close(s);
}

static CU_TestInfo tests[] = {
    {"maxPerMinute: a queue that lost that many in the last minute cools", test_queue_rate_limit},
    {"cooldown counts from re-admission", test_gang_cooldown_from_readmission},
    {"searches per cycle are bounded, and not repeated in vain", test_search_bound},
    {"the history read back from the ledger after a restart", test_history_after_restart},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/reclaim", tests)
