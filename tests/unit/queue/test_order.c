/* Tests for queue/order.c: fair order across queues, order within a queue, StrictFIFO versus
 * BestEffortFIFO, cycle skips, and blocking that lifts when capacity returns. */
#include "helpers.h"
#include "testing.h"

static uint64_t next_id(struct queue_tree *t)
{
    struct queue_entry *e = queue_cycle_next(t);
    return e ? queue_entry_id(e) : 0;
}

/* Picks and admits; returns the id admitted or 0. */
static uint64_t admit_next(struct queue_tree *t)
{
    struct queue_entry *e = queue_cycle_next(t);
    if (!e)
        return 0;
    CU_ASSERT_EQUAL(queue_entry_admit(t, e, NULL), 0);
    return queue_entry_id(e);
}

static void test_lowest_share_first(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "cpu=10", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "cpu=10", ""), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "a", 0, 1, "cpu=5"));
    CU_ASSERT_EQUAL(admit_next(t), 1);
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "a", 0, 2, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 3, "b", 0, 3, "cpu=1"));
    CU_ASSERT_EQUAL(admit_next(t), 3); /* b at share 0 goes before a at 0.5 */
    CU_ASSERT_EQUAL(admit_next(t), 2);
    CU_ASSERT_EQUAL(admit_next(t), 0);
    queue_tree_free(t);
}

static void test_weight_priority_name(void)
{
    struct queue_spec s;
    /* Equal shares: higher queue priority first, then name. */
    struct queue_tree *t = queue_tree_new();
    spec_init(&s, "zeta", NULL);
    s.priority = 5;
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, NULL), 0);
    CU_ASSERT_EQUAL(mkq(t, "alpha", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "beta", NULL, "", "", ""), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "beta", 0, 1, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "alpha", 0, 2, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 3, "zeta", 0, 3, "cpu=1"));
    CU_ASSERT_EQUAL(next_id(t), 3);
    queue_entry_remove(t, queue_tree_entry(t, 3));
    CU_ASSERT_EQUAL(next_id(t), 2);
    queue_tree_free(t);
}

static void test_weighted_share(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_spec s;
    spec_init(&s, "heavy", NULL);
    s.weight = 2;
    vec_of(t, &s.deserved, "cpu=10");
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, NULL), 0);
    spec_close(&s);
    CU_ASSERT_EQUAL(mkq(t, "light", NULL, "", "cpu=10", ""), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "heavy", 0, 1, "cpu=8"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "light", 0, 2, "cpu=5"));
    CU_ASSERT_EQUAL(admit_next(t), 1); /* tie at 0: by name, heavy first */
    CU_ASSERT_EQUAL(admit_next(t), 2);
    /* heavy: 8/10/2 = 0.4, light: 5/10 = 0.5, so heavy goes first again. */
    CU_ASSERT_PTR_NOT_NULL(add(t, 3, "light", 0, 3, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 4, "heavy", 0, 4, "cpu=1"));
    CU_ASSERT_EQUAL(admit_next(t), 4);
    queue_tree_free(t);
}

static void test_within_queue_priority_then_age(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL(add(t, 10, "default", 0, 100, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 11, "default", 5, 300, "cpu=2"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 12, "default", 0, 50, "cpu=3"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 9, "default", 0, 50, "cpu=4"));
    CU_ASSERT_EQUAL(queue_entry_position(t, queue_tree_entry(t, 11)), 1);
    CU_ASSERT_EQUAL(queue_entry_position(t, queue_tree_entry(t, 9)), 2);
    CU_ASSERT_EQUAL(queue_entry_position(t, queue_tree_entry(t, 12)), 3);
    CU_ASSERT_EQUAL(queue_entry_position(t, queue_tree_entry(t, 10)), 4);
    CU_ASSERT_EQUAL(admit_next(t), 11);
    CU_ASSERT_EQUAL(admit_next(t), 9);
    CU_ASSERT_EQUAL(admit_next(t), 12);
    CU_ASSERT_EQUAL(admit_next(t), 10);
    CU_ASSERT_EQUAL(queue_entry_position(t, queue_tree_entry(t, 10)), 0);
    queue_tree_free(t);
}

static struct queue_tree *fifo_tree(enum queue_strategy strategy)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_spec s;
    spec_init(&s, "q", NULL);
    s.strategy = strategy;
    vec_of(t, &s.capability, "nvidia.com/gpu=8");
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, NULL), 0);
    spec_close(&s);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "q", 0, 1, "nvidia.com/gpu=6"));
    CU_ASSERT_EQUAL(admit_next(t), 1);
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "q", 0, 2, "nvidia.com/gpu=4")); /* head: does not fit */
    CU_ASSERT_PTR_NOT_NULL(add(t, 3, "q", 0, 3, "nvidia.com/gpu=2")); /* fits */
    return t;
}

static void test_strict_blocks_behind_head(void)
{
    struct queue_tree *t = fifo_tree(QUEUE_STRICT_FIFO);
    CU_ASSERT_EQUAL(next_id(t), 0);
    /* When the head fits again, it goes first. */
    queue_entry_remove(t, queue_tree_entry(t, 1));
    CU_ASSERT_EQUAL(admit_next(t), 2);
    CU_ASSERT_EQUAL(admit_next(t), 3);
    queue_tree_free(t);
}

static void test_best_effort_lets_smaller_pass(void)
{
    struct queue_tree *t = fifo_tree(QUEUE_BEST_EFFORT_FIFO);
    CU_ASSERT_EQUAL(admit_next(t), 3);
    CU_ASSERT_EQUAL(next_id(t), 0);
    queue_entry_remove(t, queue_tree_entry(t, 1));
    CU_ASSERT_EQUAL(admit_next(t), 2);
    queue_tree_free(t);
}

static void test_strategy_change_regroups(void)
{
    struct queue_tree *t = fifo_tree(QUEUE_STRICT_FIFO);
    CU_ASSERT_EQUAL(next_id(t), 0);
    struct queue_spec s;
    spec_init(&s, "q", NULL);
    s.strategy = QUEUE_BEST_EFFORT_FIFO;
    vec_of(t, &s.capability, "nvidia.com/gpu=8");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    spec_close(&s);
    CU_ASSERT_EQUAL(admit_next(t), 3);
    queue_tree_free(t);
}

static void test_hierarchy_level_by_level(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(mkq(t, "org1", NULL, "", "cpu=100", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "org2", NULL, "", "cpu=100", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "t1", "org1", "", "cpu=10", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "t2", "org2", "", "cpu=50", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "t3", "org2", "", "cpu=50", ""), 0);
    /* t1 gets far over its own share but org1 stays below org2. */
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "t1", 0, 1, "cpu=20"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "t2", 0, 2, "cpu=40"));
    CU_ASSERT_EQUAL(admit_next(t), 1); /* org1 < org2 by name at 0 */
    CU_ASSERT_EQUAL(admit_next(t), 2); /* org1 at .2, org2 at 0 */
    CU_ASSERT_PTR_NOT_NULL(add(t, 3, "t1", 0, 3, "cpu=1")); /* t1 share 2.0 */
    CU_ASSERT_PTR_NOT_NULL(add(t, 4, "t3", 0, 4, "cpu=1")); /* t3 share 0 */
    CU_ASSERT_EQUAL(next_id(t), 3); /* org1 .2 < org2 .4 decides, not the leaves */
    queue_tree_free(t);
}

static void test_skip_in_cycle(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "default", 0, 1, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "default", 0, 2, "cpu=1"));
    queue_cycle_begin(t);
    struct queue_entry *e = queue_cycle_next(t);
    CU_ASSERT_EQUAL(queue_entry_id(e), 1);
    queue_cycle_skip(t, e);
    CU_ASSERT_EQUAL(next_id(t), 2);
    queue_cycle_skip(t, queue_tree_entry(t, 2));
    CU_ASSERT_EQUAL(next_id(t), 0);
    CU_ASSERT_EQUAL(queue_entry_position(t, queue_tree_entry(t, 2)), 2);
    /* A skipped entry can still be removed. */
    queue_entry_remove(t, queue_tree_entry(t, 2));
    queue_cycle_begin(t);
    CU_ASSERT_EQUAL(next_id(t), 1);
    queue_tree_free(t);

    /* In a StrictFIFO queue a skipped head holds the queue for the cycle. */
    t = queue_tree_new();
    struct queue_spec s;
    spec_init(&s, "q", NULL);
    s.strategy = QUEUE_STRICT_FIFO;
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "q", 0, 1, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "q", 0, 2, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 3, "default", 0, 3, "cpu=1"));
    queue_cycle_begin(t);
    e = queue_cycle_next(t);
    CU_ASSERT_EQUAL(queue_entry_id(e), 3); /* default < q by name */
    queue_cycle_skip(t, e);
    e = queue_cycle_next(t);
    CU_ASSERT_EQUAL(queue_entry_id(e), 1);
    queue_cycle_skip(t, e);
    CU_ASSERT_EQUAL(next_id(t), 0);
    queue_cycle_begin(t);
    CU_ASSERT_EQUAL(admit_next(t), 3);
    CU_ASSERT_EQUAL(admit_next(t), 1);
    CU_ASSERT_EQUAL(admit_next(t), 2);
    queue_tree_free(t);
}

static void test_closed_queue_entries_wait(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_spec s;
    spec_init(&s, "c", NULL);
    s.state = QUEUE_CLOSED;
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "c", 0, 1, "cpu=1"));
    CU_ASSERT_EQUAL(next_id(t), 0);
    s.state = QUEUE_OPEN;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    CU_ASSERT_EQUAL(next_id(t), 1);
    queue_tree_free(t);
}

static void test_many_pending_nothing_fits(void)
{
    /* 200,000 entries of 4 shapes in a full queue: the picks find nothing, then a release
     * lets exactly the fitting shape through. */
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "", "nvidia.com/gpu=8"), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "a", 0, 0, "nvidia.com/gpu=8"));
    CU_ASSERT_EQUAL(admit_next(t), 1);
    static const char *shapes[] = {"nvidia.com/gpu=1", "nvidia.com/gpu=2", "nvidia.com/gpu=4",
                                   "nvidia.com/gpu=8"};
    struct queue_resvec v[4] = {{0}};
    for (int i = 0; i < 4; i++)
        vec_of(t, &v[i], shapes[i]);
    for (uint64_t id = 2; id < 200002; id++) {
        struct queue_entry_spec es = {id, "a", 0, (int64_t)id, &v[(id * 7) % 4]};
        CU_ASSERT_EQUAL_FATAL(queue_entry_add(t, &es, NULL, NULL), 0);
    }
    for (int i = 0; i < 100; i++)
        CU_ASSERT_EQUAL(next_id(t), 0);
    queue_entry_remove(t, queue_tree_entry(t, 1));
    uint64_t got = admit_next(t);
    CU_ASSERT_EQUAL(got, 2); /* the oldest, whatever its shape, now fits */
    for (int i = 0; i < 4; i++)
        queue_resvec_close(&v[i]);
    queue_tree_free(t);
}

/* A resource name first seen in a request, after other leaves' summaries were computed. */
static void test_stale_minneed_new_name(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "", ""), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "default", 0, 1, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "b", 0, 2, "nvidia.com/gpu=1")); /* new name */
    struct queue_entry *e = queue_cycle_next(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(queue_entry_id(e), 2);
    CU_ASSERT_EQUAL(queue_entry_admit(t, e, NULL), 0);
    /* entry 1 fits (nothing limits anything) */
    CU_ASSERT_TRUE(queue_tree_can_admit(t, queue_tree_find(t, "default"),
                                        queue_entry_request(queue_tree_entry(t, 1)), NULL));
    CU_ASSERT_EQUAL(next_id(t), 1);
    queue_tree_free(t);
}

/* Adding entries under allocation failure: the tree stays usable, nothing lost. */
static void test_add_alloc_failure(void)
{
    for (long k = 0; k < 30; k++) {
        struct queue_tree *t = queue_tree_new();
        CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "", ""), 0);
        int ok = 0;
        for (int i = 1; i <= 6; i++) {
            char req[32];
            snprintf(req, sizeof(req), "cpu=%d", i);
            struct queue_resvec v = {0};
            vec_of(t, &v, req);
            muster_mem_fail_after(k);
            struct queue_entry_spec es = {(uint64_t)i, "a", 0, i, &v};
            struct queue_entry *e;
            int rc = queue_entry_add(t, &es, &e, NULL);
            muster_mem_reset();
            queue_resvec_close(&v);
            ok += rc == 0;
        }
        int n = 0;
        struct queue_entry *e;
        queue_cycle_begin(t); /* "the next rebuild or cycle brings it back" */
        while ((e = queue_cycle_next(t)) != NULL) {
            CU_ASSERT_EQUAL(queue_entry_admit(t, e, NULL), 0);
            n++;
        }
        CU_ASSERT_EQUAL(n, ok);
        queue_tree_free(t);
    }
}

/* A skip that cannot allocate says so instead of returning the same entry forever. */
static void test_skip_alloc_failure(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "default", 0, 1, "cpu=1"));
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "default", 0, 2, "cpu=2"));
    struct queue_entry *e = queue_cycle_next(t);
    muster_mem_fail_after(0);
    CU_ASSERT_EQUAL(queue_cycle_skip(t, e), MUSTER_ENOMEM);
    muster_mem_reset();
    CU_ASSERT_EQUAL(queue_cycle_skip(t, e), 0);
    CU_ASSERT_EQUAL(queue_cycle_skip(t, e), MUSTER_EINVAL); /* already aside */
    CU_ASSERT_EQUAL(next_id(t), 2);
    queue_tree_free(t);
}

static CU_TestInfo tests[] = {
    {"lowest share first", test_lowest_share_first},
    {"priority then name at equal share", test_weight_priority_name},
    {"weighted share", test_weighted_share},
    {"within a queue: priority, age, id", test_within_queue_priority_then_age},
    {"StrictFIFO blocks behind its head", test_strict_blocks_behind_head},
    {"BestEffortFIFO lets smaller pass", test_best_effort_lets_smaller_pass},
    {"strategy change regroups", test_strategy_change_regroups},
    {"hierarchy decides level by level", test_hierarchy_level_by_level},
    {"skip within a cycle", test_skip_in_cycle},
    {"Closed queue's entries wait", test_closed_queue_entries_wait},
    {"many pending, nothing fits", test_many_pending_nothing_fits},
    {"a resource name first seen late", test_stale_minneed_new_name},
    {"adds under allocation failure stay pickable", test_add_alloc_failure},
    {"a skip that cannot allocate says so", test_skip_alloc_failure},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/order", tests)
