/* Tests for queue/tree.c: the tree's structure and every validation rule, with its message. */
#include "helpers.h"
#include "testing.h"

static struct queue_error err;

static uint64_t next_id(struct queue_tree *t)
{
    struct queue_entry *e = queue_cycle_next(t);
    return e ? queue_entry_id(e) : 0;
}

static int create(struct queue_tree *t, const char *name, const char *parent, const char *g,
                  const char *d, const char *c)
{
    struct queue_spec s;
    spec_init(&s, name, parent);
    vec_of(t, &s.guarantee, g);
    vec_of(t, &s.deserved, d);
    vec_of(t, &s.capability, c);
    memset(&err, 0, sizeof(err));
    int rc = queue_tree_create(t, &s, &err);
    spec_close(&s);
    return rc;
}

static void test_new_tree_has_root_and_default(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(queue_tree_count(t), 2);
    struct queue_node *d = queue_tree_find(t, "default");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_EQUAL(queue_node_parent(d), queue_tree_root(t));
    CU_ASSERT_STRING_EQUAL(queue_node_name(queue_tree_root(t)), "root");
    CU_ASSERT_EQUAL(queue_tree_remove(t, "default", &err), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(queue_tree_remove(t, "root", &err), MUSTER_EINVAL);
    queue_tree_free(t);
}

static void test_names_unique_and_valid(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(create(t, "research", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(create(t, "research", NULL, "", "", ""), MUSTER_EEXIST);
    CU_ASSERT_STRING_EQUAL(err.msg, "queue research already exists");
    CU_ASSERT_EQUAL(create(t, "Research", NULL, "", "", ""), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "name");
    CU_ASSERT_EQUAL(create(t, "-x", NULL, "", "", ""), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(create(t, "a/b", NULL, "", "", ""), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(create(t, "", NULL, "", "", ""), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(create(t, "team.nlp-2", "research", "", "", ""), 0);
    CU_ASSERT_EQUAL(create(t, "x", "nope", "", "", ""), MUSTER_ENOENT);
    CU_ASSERT_STRING_EQUAL(err.msg, "parent queue nope does not exist");
    queue_tree_free(t);
}

static void test_guarantee_deserved_capability_order(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(create(t, "a", NULL, "nvidia.com/gpu=16", "nvidia.com/gpu=8", ""),
                    MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "guarantee.nvidia.com/gpu");
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "guarantee of a (nvidia.com/gpu 16) is above its deserved "
                           "(nvidia.com/gpu 8)");
    CU_ASSERT_EQUAL(create(t, "a", NULL, "", "cpu=64", "cpu=32"), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "deserved.cpu");
    CU_ASSERT_EQUAL(create(t, "a", NULL, "cpu=8", "", ""), MUSTER_EINVAL); /* deserved 0 */
    CU_ASSERT_EQUAL(create(t, "a", NULL, "cpu=-1", "cpu=4", ""), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "guarantee.cpu");
    CU_ASSERT_EQUAL(create(t, "a", NULL, "cpu=8", "cpu=16", "cpu=32"), 0);
    queue_tree_free(t);
}

static void test_child_capability_within_parent(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(create(t, "org-x", NULL, "", "", "cpu=64"), 0);
    CU_ASSERT_EQUAL(create(t, "mid", "org-x", "", "", ""), 0);
    CU_ASSERT_EQUAL(create(t, "team-a", "mid", "", "", "cpu=80"), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "capability.cpu");
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "capability of team-a (cpu 80) is above its ancestor org-x (cpu 64)");
    CU_ASSERT_EQUAL(create(t, "team-a", "org-x", "", "", "cpu=80"), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "capability of team-a (cpu 80) is above its parent org-x (cpu 64)");
    CU_ASSERT_EQUAL(create(t, "team-a", "mid", "", "", "cpu=64,memory=1Ti"), 0);

    /* Lowering a parent below a child's capability names the child. */
    struct queue_spec s;
    spec_init(&s, "org-x", NULL);
    vec_of(t, &s.capability, "cpu=32");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "capability of team-a (cpu 64) is above the capability of "
                                    "org-x (cpu 32)");
    spec_close(&s);
    queue_tree_free(t);
}

static void test_children_guarantees_within_parent(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(create(t, "research", NULL, "nvidia.com/gpu=64", "nvidia.com/gpu=64", ""), 0);
    CU_ASSERT_EQUAL(create(t, "nlp", "research", "nvidia.com/gpu=40", "nvidia.com/gpu=40", ""), 0);
    CU_ASSERT_EQUAL(create(t, "cv", "research", "nvidia.com/gpu=32", "nvidia.com/gpu=32", ""),
                    MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.msg, "guarantees of the children of research add up to "
                                    "nvidia.com/gpu 72, above its guarantee (nvidia.com/gpu 64)");
    CU_ASSERT_EQUAL(create(t, "cv", "research", "nvidia.com/gpu=24", "nvidia.com/gpu=32", ""), 0);
    /* Root bounds its children's guarantees by its capability once it has one. */
    struct queue_spec s;
    spec_init(&s, "root", NULL);
    vec_of(t, &s.capability, "nvidia.com/gpu=32");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "guarantee.nvidia.com/gpu");
    vec_of(t, &s.capability, "nvidia.com/gpu=128");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), 0);
    spec_close(&s);
    /* Shrinking a parent's guarantee below its children's sum is refused. */
    spec_init(&s, "research", NULL);
    vec_of(t, &s.guarantee, "nvidia.com/gpu=50");
    vec_of(t, &s.deserved, "nvidia.com/gpu=64");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    spec_close(&s);
    queue_tree_free(t);
}

static void test_no_cycles_and_moves(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(create(t, "a", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(create(t, "b", "a", "", "", ""), 0);
    CU_ASSERT_EQUAL(create(t, "c", "b", "", "", ""), 0);
    struct queue_spec s;
    spec_init(&s, "a", "c");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_ECYCLE);
    CU_ASSERT_STRING_EQUAL(err.msg, "moving a under c would make a cycle");
    spec_init(&s, "a", "a");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_ECYCLE);
    spec_init(&s, "c", "a"); /* a legal move */
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), 0);
    CU_ASSERT_STRING_EQUAL(queue_node_name(queue_node_parent(queue_tree_find(t, "c"))), "a");
    char path[64];
    CU_ASSERT(queue_node_path(queue_tree_find(t, "c"), path, sizeof(path)) > 0);
    CU_ASSERT_STRING_EQUAL(path, "a/c");
    spec_init(&s, "default", "a");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    spec_init(&s, "root", "a");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    queue_tree_free(t);
}

static void test_depth_limit(void)
{
    struct queue_tree *t = queue_tree_new();
    char name[16], parent[16] = "root";
    int rc = 0, made = 0;
    for (int i = 0; i < QUEUE_DEPTH_MAX + 2 && rc == 0; i++) {
        snprintf(name, sizeof(name), "q%d", i);
        rc = create(t, name, parent, "", "", "");
        made += rc == 0;
        snprintf(parent, sizeof(parent), "%s", name);
    }
    CU_ASSERT_EQUAL(rc, MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(made, QUEUE_DEPTH_MAX);
    queue_tree_free(t);
}

static void test_remove_rules(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(create(t, "a", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(create(t, "b", "a", "", "", ""), 0);
    CU_ASSERT_EQUAL(queue_tree_remove(t, "a", &err), MUSTER_ENOTEMPTY);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "b", 0, 1, "cpu=1"));
    CU_ASSERT_EQUAL(queue_tree_remove(t, "b", &err), MUSTER_EBUSY);
    CU_ASSERT_STRING_EQUAL(err.msg, "queue b holds 1 pending and 0 admitted entries");
    /* A queue holding work cannot become a parent: work lives in leaves. */
    CU_ASSERT_EQUAL(create(t, "c", "b", "", "", ""), MUSTER_EBUSY);
    queue_entry_remove(t, queue_tree_entry(t, 1));
    CU_ASSERT_EQUAL(queue_tree_remove(t, "b", &err), 0);
    CU_ASSERT_EQUAL(queue_tree_remove(t, "a", &err), 0);
    CU_ASSERT_EQUAL(queue_tree_remove(t, "a", &err), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(queue_tree_count(t), 2);
    queue_tree_free(t);
}

static void test_weight_and_enums(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_spec s;
    spec_init(&s, "w", NULL);
    s.weight = 0;
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "weight");
    s.weight = 3;
    s.state = (enum queue_state)7;
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, &err), MUSTER_EINVAL);
    enum queue_state st;
    enum queue_strategy sg;
    CU_ASSERT_EQUAL(queue_state_parse("Draining", &st), 0);
    CU_ASSERT_EQUAL(st, QUEUE_DRAINING);
    CU_ASSERT_EQUAL(queue_state_parse("open", &st), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(queue_strategy_parse("StrictFIFO", &sg), 0);
    CU_ASSERT_EQUAL(sg, QUEUE_STRICT_FIFO);
    CU_ASSERT_STRING_EQUAL(queue_strategy_name(QUEUE_BEST_EFFORT_FIFO), "BestEffortFIFO");
    queue_tree_free(t);
}

/* reclaimable and preemption (withinQueue, minRuntime, maxPerMinute, cooldown): a zeroed spec
 * gets the documented defaults (true, Never, 0, 0 = no limit, 0), bad values are refused
 * naming the field, and values are kept. */
static void test_reclaim_fields(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_spec s;
    spec_init(&s, "r", NULL);
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, &err), 0);
    const struct queue_spec *got = queue_node_spec(queue_tree_find(t, "r"));
    CU_ASSERT_EQUAL(got->reclaimable, QUEUE_RECLAIMABLE);
    CU_ASSERT_EQUAL(got->within_queue, QUEUE_WITHIN_NEVER);
    CU_ASSERT_EQUAL(got->min_runtime, 0);
    CU_ASSERT_EQUAL(got->max_per_minute, 0);
    CU_ASSERT_EQUAL(got->cooldown, 0);

    s.reclaimable = (enum queue_reclaimable)2;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "reclaimable");
    CU_ASSERT_STRING_EQUAL(err.msg, "reclaimable must be true or false");
    s.reclaimable = QUEUE_NOT_RECLAIMABLE;
    s.within_queue = (enum queue_within)5;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "preemption.withinQueue");
    s.within_queue = QUEUE_WITHIN_LOWER_PRIORITY;
    s.min_runtime = -1;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "preemption.minRuntime");
    CU_ASSERT_STRING_EQUAL(err.msg, "preemption.minRuntime must not be negative");
    s.min_runtime = 600000;
    s.max_per_minute = -1;
    CU_ASSERT_EQUAL(queue_tree_validate(t, &s, 1, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "preemption.maxPerMinute");
    CU_ASSERT_STRING_EQUAL(err.msg, "preemption.maxPerMinute must be between 0 (no limit) and "
                                    "10000 gangs");
    s.max_per_minute = QUEUE_PREEMPT_PER_MINUTE_MAX + 1;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "preemption.maxPerMinute");
    s.max_per_minute = QUEUE_PREEMPT_PER_MINUTE_MAX;
    s.cooldown = -5;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "preemption.cooldown");
    CU_ASSERT_STRING_EQUAL(err.msg, "preemption.cooldown must not be negative");
    /* refused updates changed nothing */
    got = queue_node_spec(queue_tree_find(t, "r"));
    CU_ASSERT_EQUAL(got->max_per_minute, 0);
    CU_ASSERT_EQUAL(got->cooldown, 0);
    s.cooldown = 120000;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), 0);
    got = queue_node_spec(queue_tree_find(t, "r"));
    CU_ASSERT_EQUAL(got->reclaimable, QUEUE_NOT_RECLAIMABLE);
    CU_ASSERT_EQUAL(got->within_queue, QUEUE_WITHIN_LOWER_PRIORITY);
    CU_ASSERT_EQUAL(got->min_runtime, 600000);
    CU_ASSERT_EQUAL(got->max_per_minute, QUEUE_PREEMPT_PER_MINUTE_MAX);
    CU_ASSERT_EQUAL(got->cooldown, 120000);

    enum queue_within w;
    CU_ASSERT_EQUAL(queue_within_parse("LowerPriority", &w), 0);
    CU_ASSERT_EQUAL(w, QUEUE_WITHIN_LOWER_PRIORITY);
    CU_ASSERT_EQUAL(queue_within_parse("Never", &w), 0);
    CU_ASSERT_EQUAL(w, QUEUE_WITHIN_NEVER);
    CU_ASSERT_EQUAL(queue_within_parse("lowerPriority", &w), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(queue_within_name(QUEUE_WITHIN_LOWER_PRIORITY), "LowerPriority");
    CU_ASSERT_STRING_EQUAL(queue_within_name((enum queue_within)9), "Unknown");
    queue_tree_free(t);
}

/* onClusterLoss: Requeue by default, Replace kept, anything else refused naming the field. */
static void test_on_cluster_loss(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_spec s;
    spec_init(&s, "l", NULL);
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, &err), 0);
    CU_ASSERT_EQUAL(queue_node_spec(queue_tree_find(t, "l"))->on_cluster_loss,
                    QUEUE_ON_LOSS_REQUEUE);
    s.on_cluster_loss = (enum queue_on_loss)2;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.field, "onClusterLoss");
    s.on_cluster_loss = QUEUE_ON_LOSS_REPLACE;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &err), 0);
    CU_ASSERT_EQUAL(queue_node_spec(queue_tree_find(t, "l"))->on_cluster_loss,
                    QUEUE_ON_LOSS_REPLACE);
    enum queue_on_loss l = QUEUE_ON_LOSS_REQUEUE;
    CU_ASSERT_EQUAL(queue_on_loss_parse("Replace", &l), 0);
    CU_ASSERT_EQUAL(l, QUEUE_ON_LOSS_REPLACE);
    CU_ASSERT_EQUAL(queue_on_loss_parse("Requeue", &l), 0);
    CU_ASSERT_EQUAL(l, QUEUE_ON_LOSS_REQUEUE);
    CU_ASSERT_EQUAL(queue_on_loss_parse("replace", &l), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(queue_on_loss_name(QUEUE_ON_LOSS_REPLACE), "Replace");
    CU_ASSERT_STRING_EQUAL(queue_on_loss_name((enum queue_on_loss)7), "Unknown");
    queue_tree_free(t);
}

static int count_cb(void *ud, const struct queue_node *q)
{
    (void)q;
    (*(int *)ud)++;
    return 0;
}

static void test_walk_order(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(create(t, "b", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(create(t, "a", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(create(t, "a1", "a", "", "", ""), 0);
    int n = 0;
    CU_ASSERT_EQUAL(queue_tree_walk(t, count_cb, &n), 0);
    CU_ASSERT_EQUAL(n, 5);
    queue_tree_free(t);
}

static void test_allocation_failures_leave_tree_intact(void)
{
    /* Every allocation inside a create may fail; the tree must stay valid and unchanged. */
    for (long k = 0; k < 40; k++) {
        struct queue_tree *t = queue_tree_new();
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        struct queue_spec s;
        spec_init(&s, "a", NULL);
        vec_of(t, &s.capability, "cpu=4,memory=8Gi,example.com/foo=1");
        muster_mem_fail_after(k);
        int rc = queue_tree_create(t, &s, &err);
        muster_mem_fail_after(-1);
        CU_ASSERT(rc == 0 || rc == MUSTER_ENOMEM);
        CU_ASSERT_EQUAL(queue_tree_count(t), rc == 0 ? 3 : 2);
        CU_ASSERT_EQUAL(queue_tree_find(t, "a") != NULL, rc == 0);
        spec_close(&s);
        queue_tree_free(t);
    }
}

/* Moving a parent's last child away leaves the parent a leaf that keeps the child's usage. */
static void test_move_last_child_phantom_usage(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(mkq(t, "p", NULL, "", "", "cpu=10"), 0);
    CU_ASSERT_EQUAL(mkq(t, "a", "p", "", "", ""), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "a", 0, 1, "cpu=5"));
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, 1), NULL), 0);
    struct queue_spec s;
    spec_init(&s, "a", "root");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    CU_ASSERT_EQUAL(use_of(t, "p", "cpu"), 0);
    CU_ASSERT_EQUAL(use_of(t, "root", "cpu"), 5000);
    /* p is now an empty leaf with cap 10 but its phantom 5 blocks a 6 */
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "p", 0, 2, "cpu=6"));
    CU_ASSERT_EQUAL(next_id(t), 2);
    queue_tree_free(t);
}

/* Children's guarantees that add up beyond int64 under an unlimited root are refused. */
static void test_guarantee_sum_overflow(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "cpu=5e15", "cpu=5e15", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "cpu=5e15", "cpu=5e15", ""), MUSTER_ERANGE);
    CU_ASSERT_PTR_NULL(queue_tree_find(t, "b"));
    queue_tree_free(t);
}

/* Strategy change with allocation failures: leaves must stay consistent (run under ASan). */
static void test_rebucket_alloc_failure(void)
{
    for (long k = 0; k < 40; k++) {
        struct queue_tree *t = queue_tree_new();
        CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "", ""), 0);
        for (int i = 1; i <= 6; i++) {
            char req[32];
            snprintf(req, sizeof(req), "cpu=%d", i);
            add(t, (uint64_t)i, "a", 0, i, req);
        }
        struct queue_spec s;
        spec_init(&s, "a", NULL);
        s.strategy = QUEUE_STRICT_FIFO;
        s.priority = 3;
        muster_mem_fail_after(k);
        int rc = queue_tree_update(t, &s, NULL);
        muster_mem_reset();
        if (rc) {
            /* On failure, nothing should have changed. */
            const struct queue_spec *now = queue_node_spec(queue_tree_find(t, "a"));
            CU_ASSERT_EQUAL(now->priority, 0);
        }
        /* every entry still pickable */
        int n = 0;
        struct queue_entry *e;
        while ((e = queue_cycle_next(t)) != NULL) {
            CU_ASSERT_EQUAL(queue_entry_admit(t, e, NULL), 0);
            n++;
        }
        CU_ASSERT_EQUAL(n, 6);
        for (int i = 1; i <= 6; i++)
            queue_entry_remove(t, queue_tree_entry(t, (uint64_t)i));
        spec_close(&s);
        queue_tree_free(t);
    }
}

/* A move may not carry usage above a new ancestor's capability. */
static void test_move_checks_new_ancestors(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_error e;
    CU_ASSERT_EQUAL(mkq(t, "small", NULL, "", "", "cpu=4"), 0);
    CU_ASSERT_EQUAL(mkq(t, "x", "small", "", "", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "busy", NULL, "", "", ""), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 1, "busy", 0, 1, "cpu=3"));
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, 1), NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(add(t, 2, "x", 0, 2, "cpu=2"));
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, 2), NULL), 0);
    struct queue_spec s;
    spec_init(&s, "busy", "small");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &e), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "moving busy under small would put small above its "
                                  "capability: cpu 3 in use below busy, 2 left");
    CU_ASSERT_STRING_EQUAL(queue_node_name(queue_node_parent(queue_tree_find(t, "busy"))),
                           "root");
    queue_entry_remove(t, queue_tree_entry(t, 2));
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, &e), 0);
    CU_ASSERT_EQUAL(use_of(t, "small", "cpu"), 3000);
    queue_tree_free(t);
}

/* issue 23: queue names are DNS subdomains */
static void test_queue_names(void)
{
    static const char *const ok[] = {"a", "team-a", "a.b", "a-b.c-d", "a1.b2.c3", "0"};
    static const char *const bad[] = {"a..b", "a.-b", "a-.b", "-a", "a-",  ".a",
                                      "a.",   "A",    "a_b",  "",   "a b", "a/b"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        CU_ASSERT_TRUE(queue_name_valid(ok[i], strlen(ok[i])));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (queue_name_valid(bad[i], strlen(bad[i])))
            fprintf(stderr, "accepted: %s\n", bad[i]);
        CU_ASSERT_FALSE(queue_name_valid(bad[i], strlen(bad[i])));
    }
    char n64[65];
    memset(n64, 'a', 64);
    n64[64] = '\0';
    CU_ASSERT_FALSE(queue_name_valid(n64, 64));
    CU_ASSERT_TRUE(queue_name_valid(n64, 63));
}

static CU_TestInfo tests[] = {
    {"queue names are DNS subdomains", test_queue_names},
    {"new tree has root and default", test_new_tree_has_root_and_default},
    {"names unique and valid", test_names_unique_and_valid},
    {"guarantee <= deserved <= capability", test_guarantee_deserved_capability_order},
    {"child capability within parent", test_child_capability_within_parent},
    {"children's guarantees within parent", test_children_guarantees_within_parent},
    {"no cycles; moves", test_no_cycles_and_moves},
    {"depth limit", test_depth_limit},
    {"remove rules", test_remove_rules},
    {"weight and enums", test_weight_and_enums},
    {"reclaimable and preemption fields", test_reclaim_fields},
    {"onClusterLoss: Requeue by default, Replace, refused otherwise", test_on_cluster_loss},
    {"walk order", test_walk_order},
    {"allocation failures leave tree intact", test_allocation_failures_leave_tree_intact},
    {"moving the last child leaves no phantom usage", test_move_last_child_phantom_usage},
    {"guarantee sums beyond int64 are refused", test_guarantee_sum_overflow},
    {"strategy change under allocation failure", test_rebucket_alloc_failure},
    {"a move checks the new ancestors' capability", test_move_checks_new_ancestors},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/tree", tests)
