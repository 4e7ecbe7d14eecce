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

static CU_TestInfo tests[] = {
    {"maxPerMinute: a queue that lost that many in the last minute cools", test_queue_rate_limit},
    {"cooldown counts from re-admission", test_gang_cooldown_from_readmission},
    {"searches per cycle are bounded, and not repeated in vain", test_search_bound},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/reclaim", tests)
