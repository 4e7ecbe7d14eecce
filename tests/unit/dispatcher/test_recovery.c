/* Tests for dispatcher/recovery.c: the engine rebuilt from SQLite at start-up, and refusals of
 * rows that do not hold up. */
#include "dispatcher/recovery.h"
#include "dispatcher/errors.h"
#include "testing.h"

#include <string.h>
#include <unistd.h>

static char path[512];
static char err[512];

static struct store *fresh(const char *name)
{
    struct store *s = NULL;
    test_tmp_path(path, sizeof(path), name);
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(store_open(path, NULL, &s, err, sizeof(err)), 0);
    return s;
}

static void put_queue(struct store *s, const char *name, const char *parent, const char *g,
                      const char *d, const char *c)
{
    struct store_queue q = {.name = name,
                            .parent = parent,
                            .weight = 1,
                            .state = "Open",
                            .queueing_strategy = "BestEffortFIFO",
                            .guarantee = g,
                            .deserved = d,
                            .capability = c,
                            .gang_timeout_ms = 300000,
                            .resource_version = 1,
                            .created_at = 1,
                            .updated_at = 1,
                            .on_cluster_loss = "Requeue"};
    CU_ASSERT_EQUAL(store_queue_put(s, &q), 0);
}

static void put_row(struct store *s, const char *binding, const char *queue, const char *req,
                    const char *state)
{
    struct store_ledger_row r = {.binding = binding,
                                 .uid = "uid",
                                 .queue = queue,
                                 .request = req,
                                 .state = state,
                                 .clusters = "[]",
                                 .reason = "",
                                 .created_at = 10,
                                 .admitted_at = strcmp(state, "pending") ? 20 : 0,
                                 .updated_at = 30};
    CU_ASSERT_EQUAL(store_ledger_insert(s, &r, NULL), 0);
}

static int64_t use_of(struct queue_tree *t, const char *q, const char *res)
{
    struct queue_status st;
    uint32_t id;
    if (queue_resnames_find(queue_tree_resnames(t), res, strlen(res), &id))
        return -1;
    CU_ASSERT_EQUAL_FATAL(queue_node_status(t, queue_tree_find(t, q), &st), 0);
    int64_t v = queue_resvec_get(&st.allocated, id);
    queue_status_close(&st);
    return v;
}

static void test_loads_tree_and_ledger(void)
{
    struct store *s = fresh("recovery-ok.db");
    CU_ASSERT_EQUAL(store_begin(s), 0);
    /* Children written before their parents: the loader sorts it out. */
    put_queue(s, "nlp", "research", "{\"nvidia.com/gpu\":\"8\"}", "{\"nvidia.com/gpu\":\"16\"}",
              "{}");
    put_queue(s, "research", NULL, "{\"nvidia.com/gpu\":\"32\"}", "{\"nvidia.com/gpu\":\"32\"}",
              "{\"nvidia.com/gpu\":\"64\"}");
    put_queue(s, "root", NULL, "{}", "{}", "{\"nvidia.com/gpu\":\"128\"}");
    CU_ASSERT_EQUAL(store_commit(s), 0);
    put_row(s, "ns/a", "nlp", "{\"nvidia.com/gpu\":\"4\",\"cpu\":\"8\"}", "admitted");
    put_row(s, "ns/b", "nlp", "{\"nvidia.com/gpu\":\"4\",\"cpu\":\"8\"}", "pending");
    put_row(s, "ns/c", "nlp", "{\"nvidia.com/gpu\":\"2\"}", "running");
    put_row(s, "ns/d", "gone", "{\"nvidia.com/gpu\":\"1\"}", "pending");
    put_row(s, "ns/e", "research", "{\"nvidia.com/gpu\":\"1\"}", "pending"); /* not a leaf */
    put_row(s, "ns/f", "nlp", "{\"nvidia.com/gpu\":\"1\"}", "released");
    put_row(s, "ns/g", "nlp", "{}", "pending"); /* scaled to 0: holds nothing, not queued */

    struct queue_tree *t = queue_tree_new();
    struct disp_load_stats st;
    CU_ASSERT_EQUAL(disp_load(s, t, &st, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(st.queues, 4); /* root and default are stored by the schema itself */
    CU_ASSERT_EQUAL(st.pending, 1);
    CU_ASSERT_EQUAL(st.admitted, 2);
    CU_ASSERT_EQUAL(st.orphans, 2);
    CU_ASSERT_EQUAL(queue_tree_count(t), 4); /* root, default, research, nlp */
    CU_ASSERT_EQUAL(use_of(t, "nlp", "nvidia.com/gpu"), 6000);
    CU_ASSERT_EQUAL(use_of(t, "root", "cpu"), 8000);
    struct queue_entry *b = queue_tree_entry(t, 2); /* ledger id 2 is ns/b */
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(queue_entry_state(b), QUEUE_ENTRY_PENDING);
    CU_ASSERT_EQUAL(queue_entry_created(b), 10);
    CU_ASSERT_PTR_NULL(queue_tree_entry(t, 6)); /* released rows are history */
    CU_ASSERT_PTR_NULL(queue_tree_entry(t, 7)); /* nor is a row that holds nothing queued */
    /* The loaded spec is live: research's capability binds. */
    struct queue_limit why;
    CU_ASSERT_TRUE(queue_tree_can_admit(t, queue_tree_find(t, "nlp"),
                                        queue_entry_request(b), &why));
    queue_tree_free(t);
    store_close(s);
}

static void test_refuses_bad_rows(void)
{
    struct store *s = fresh("recovery-bad-queue.db");
    put_queue(s, "a", NULL, "{\"cpu\":\"8\"}", "{\"cpu\":\"4\"}", "{}");
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(disp_load(s, t, NULL, err, sizeof(err)), MUSTER_ESTORE);
    CU_ASSERT_STRING_EQUAL(err, "queue a in the database: guarantee.cpu: guarantee of a (cpu 8) "
                                "is above its deserved (cpu 4)");
    queue_tree_free(t);
    store_close(s);

    s = fresh("recovery-bad-qty.db");
    put_queue(s, "a", NULL, "{}", "{\"cpu\":\"four\"}", "{}");
    t = queue_tree_new();
    CU_ASSERT_EQUAL(disp_load(s, t, NULL, err, sizeof(err)), MUSTER_ESTORE);
    CU_ASSERT_STRING_EQUAL(err, "queue a in the database: deserved.cpu: not a Kubernetes "
                                "quantity (e.g. 500m, 4, 16Gi)");
    queue_tree_free(t);
    store_close(s);

    s = fresh("recovery-bad-request.db");
    put_row(s, "ns/secret-job", "default", "{\"cpu\":\"-3\"}", "pending");
    t = queue_tree_new();
    CU_ASSERT_EQUAL(disp_load(s, t, NULL, err, sizeof(err)), MUSTER_ESTORE);
    CU_ASSERT_STRING_EQUAL(err, "ledger row 1 in the database: request.cpu: must not be negative");
    CU_ASSERT_PTR_NULL(strstr(err, "secret-job")); /* rows are named by id, not content */
    queue_tree_free(t);
    store_close(s);
}

static void test_reload_is_identical(void)
{
    /* Load, close, load again: same entries, same usage (start-up is a pure function). */
    struct store *s = fresh("recovery-twice.db");
    put_queue(s, "team", NULL, "{}", "{\"cpu\":\"10\"}", "{\"cpu\":\"100\"}");
    char b[32];
    for (int i = 0; i < 200; i++) {
        snprintf(b, sizeof(b), "ns/job-%d", i);
        put_row(s, b, "team", i % 3 ? "{\"cpu\":\"1\"}" : "{\"cpu\":\"2\",\"memory\":\"1Gi\"}",
                i % 4 ? "pending" : "admitted");
    }
    int64_t use[2];
    for (int round = 0; round < 2; round++) {
        struct queue_tree *t = queue_tree_new();
        struct disp_load_stats st;
        CU_ASSERT_EQUAL(disp_load(s, t, &st, err, sizeof(err)), 0);
        CU_ASSERT_EQUAL(st.pending, 150);
        CU_ASSERT_EQUAL(st.admitted, 50);
        use[round] = use_of(t, "team", "cpu");
        queue_tree_free(t);
        store_close(s);
        CU_ASSERT_EQUAL_FATAL(store_open(path, NULL, &s, err, sizeof(err)), 0);
    }
    CU_ASSERT_EQUAL(use[0], use[1]);
    /* 50 admitted rows: every 4th; i % 3 == 0 of those ask 2 CPUs. */
    int64_t want = 0;
    for (int i = 0; i < 200; i += 4)
        want += i % 3 ? 1000 : 2000;
    CU_ASSERT_EQUAL(use[0], want);
    store_close(s);
}

/* A row's reclaim and preemption fields reach the engine's spec (durations in ms). */
static void test_reclaim_fields_reach_engine(void)
{
    struct queue_tree *t = queue_tree_new();
    struct store_queue q = {.name = "a",
                            .parent = "root",
                            .weight = 1,
                            .state = "Open",
                            .queueing_strategy = "BestEffortFIFO",
                            .guarantee = "{}",
                            .deserved = "{}",
                            .capability = "{}",
                            .gang_timeout_ms = 300000,
                            .not_reclaimable = 1,
                            .within_queue = "LowerPriority",
                            .min_runtime_ms = 600000,
                            .preempt_per_minute = 3,
                            .preempt_cooldown_ms = 90000};
    struct queue_spec sp;
    char why[256];
    CU_ASSERT_EQUAL_FATAL(disp_queue_spec_from_row(queue_tree_resnames(t), &q, &sp, why,
                                                   sizeof(why)), 0);
    CU_ASSERT_EQUAL(sp.reclaimable, QUEUE_NOT_RECLAIMABLE);
    CU_ASSERT_EQUAL(sp.within_queue, QUEUE_WITHIN_LOWER_PRIORITY);
    CU_ASSERT_EQUAL(sp.min_runtime, 600000);
    CU_ASSERT_EQUAL(sp.max_per_minute, 3);
    CU_ASSERT_EQUAL(sp.cooldown, 90000);
    disp_queue_spec_close(&sp);
    q.within_queue = "Sometimes";
    CU_ASSERT_EQUAL(disp_queue_spec_from_row(queue_tree_resnames(t), &q, &sp, why, sizeof(why)),
                    MUSTER_EINVAL);
    q.within_queue = NULL; /* NULL is Never, and a zeroed row is every default */
    q.not_reclaimable = 0;
    CU_ASSERT_EQUAL_FATAL(disp_queue_spec_from_row(queue_tree_resnames(t), &q, &sp, why,
                                                   sizeof(why)), 0);
    CU_ASSERT_EQUAL(sp.reclaimable, QUEUE_RECLAIMABLE);
    CU_ASSERT_EQUAL(sp.within_queue, QUEUE_WITHIN_NEVER);
    disp_queue_spec_close(&sp);
    queue_tree_free(t);
}

static CU_TestInfo tests[] = {
    {"reclaim fields reach the engine", test_reclaim_fields_reach_engine},
    {"loads the tree and the live ledger", test_loads_tree_and_ledger},
    {"refuses bad rows with a clear message", test_refuses_bad_rows},
    {"reload is identical", test_reload_is_identical},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/recovery", tests)
