/* Tests for queue/admit.c: the admission rule (capability along the path, guarantee
 * protection, borrowing, states), usage upkeep, and the explain sentences. */
#include "helpers.h"
#include "testing.h"

static char msg[512];

static const char *explain(struct queue_tree *t, const struct queue_limit *why)
{
    CU_ASSERT(queue_limit_explain(t, why, msg, sizeof(msg)) > 0);
    return msg;
}

static int try_admit(struct queue_tree *t, uint64_t id, const char *q, const char *req,
                     struct queue_limit *why)
{
    struct queue_entry *e = add(t, id, q, 0, (int64_t)id, req);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    return queue_entry_admit(t, e, why);
}

static void test_capability_along_path(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    CU_ASSERT_EQUAL(mkq(t, "research", NULL, "", "", "nvidia.com/gpu=64"), 0);
    CU_ASSERT_EQUAL(mkq(t, "nlp", "research", "", "", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "cv", "research", "", "", "nvidia.com/gpu=16"), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "nlp", "nvidia.com/gpu=52", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 2, "cv", "nvidia.com/gpu=8", &why), 0);
    CU_ASSERT_EQUAL(use_of(t, "research", "nvidia.com/gpu"), 60000);
    CU_ASSERT_EQUAL(use_of(t, "root", "nvidia.com/gpu"), 60000);
    /* 60 of 64 used on research: 8 more does not fit there although cv has room. */
    CU_ASSERT_EQUAL(try_admit(t, 3, "cv", "nvidia.com/gpu=8", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_CAPABILITY);
    CU_ASSERT_STRING_EQUAL(explain(t, &why), "queue research: nvidia.com/gpu 60 of 64 in use, "
                                             "needs 8");
    /* cv's own capability is met first, from the leaf up. */
    CU_ASSERT_EQUAL(try_admit(t, 4, "cv", "nvidia.com/gpu=12", &why), MUSTER_ELIMIT);
    CU_ASSERT_STRING_EQUAL(explain(t, &why), "queue research/cv: nvidia.com/gpu 8 of 16 in use, "
                                             "needs 12");
    CU_ASSERT_EQUAL(try_admit(t, 5, "nlp", "nvidia.com/gpu=4", &why), 0);
    CU_ASSERT_EQUAL(use_of(t, "research", "nvidia.com/gpu"), 64000);
    queue_tree_free(t);
}

static void test_explain_matches_issue_example(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    CU_ASSERT_EQUAL(mkq(t, "research", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "nlp", "research", "", "", "nvidia.com/gpu=64,memory=1Ti"), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "nlp", "nvidia.com/gpu=60,memory=100Gi", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 2, "nlp", "nvidia.com/gpu=8,memory=1Gi", &why), MUSTER_ELIMIT);
    CU_ASSERT_STRING_EQUAL(explain(t, &why), "queue research/nlp: nvidia.com/gpu 60 of 64 in use, "
                                             "needs 8");
    CU_ASSERT_EQUAL(try_admit(t, 3, "nlp", "memory=1000Gi", &why), MUSTER_ELIMIT);
    CU_ASSERT_STRING_EQUAL(explain(t, &why), "queue research/nlp: memory 100Gi of 1Ti in use, "
                                             "needs 1000Gi");
    queue_tree_free(t);
}

/* root 100 GPUs; a (g 60) uses 50; b (g 40) has b1 (g 30) and b2 (g 10). */
static struct queue_tree *guarantee_tree(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_spec s;
    spec_init(&s, "root", NULL);
    vec_of(t, &s.capability, "nvidia.com/gpu=100");
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    spec_close(&s);
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "nvidia.com/gpu=60", "nvidia.com/gpu=60", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "nvidia.com/gpu=40", "nvidia.com/gpu=40", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b1", "b", "nvidia.com/gpu=30", "nvidia.com/gpu=30", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b2", "b", "nvidia.com/gpu=10", "nvidia.com/gpu=10", ""), 0);
    return t;
}

static void test_guarantee_protection(void)
{
    struct queue_tree *t = guarantee_tree();
    struct queue_limit why;
    CU_ASSERT_EQUAL(try_admit(t, 1, "a", "nvidia.com/gpu=50", &why), 0);
    /* b1 taking 35 would leave 15 free while a is owed 10 and b2 is owed 10. */
    CU_ASSERT_EQUAL(try_admit(t, 2, "b1", "nvidia.com/gpu=35", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_GUARANTEE);
    CU_ASSERT_PTR_EQUAL(why.queue, queue_tree_root(t));
    CU_ASSERT_STRING_EQUAL(explain(t, &why),
                           "queue root: nvidia.com/gpu 50 of 100 in use and 20 held for other "
                           "queues' guarantees, needs 35");
    /* Within its own guarantee b1 always gets in. */
    CU_ASSERT_EQUAL(try_admit(t, 3, "b1", "nvidia.com/gpu=30", &why), 0);
    /* a borrowing beyond its guarantee may not eat b2's unused 10. */
    CU_ASSERT_EQUAL(try_admit(t, 4, "a", "nvidia.com/gpu=15", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_GUARANTEE);
    CU_ASSERT_EQUAL(try_admit(t, 5, "a", "nvidia.com/gpu=10", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 6, "b2", "nvidia.com/gpu=10", &why), 0);
    CU_ASSERT_EQUAL(use_of(t, "root", "nvidia.com/gpu"), 100000);
    queue_tree_free(t);
}

/* With lending on, the unused guarantee of a reclaimable queue (the default) is not held:
 * another queue may use it, and its owner gets it back through reclaim. reclaimable: false
 * keeps it held, and lending off (a new tree) holds every guarantee. */
static void test_lending_unused_guarantees(void)
{
    struct queue_tree *t = guarantee_tree();
    struct queue_limit why;
    CU_ASSERT_EQUAL(queue_tree_lending(t), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "a", "nvidia.com/gpu=60", &why), 0);
    /* a may not borrow b's idle 40 while nothing is lent */
    CU_ASSERT_EQUAL(try_admit(t, 2, "a", "nvidia.com/gpu=30", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_GUARANTEE);
    CU_ASSERT_EQUAL(queue_tree_set_lending(t, 1), 0);
    CU_ASSERT_EQUAL(queue_tree_lending(t), 1);
    /* b2 keeps its 10 held; b1's 30 is lent */
    struct queue_spec s = *queue_node_spec(queue_tree_find(t, "b2"));
    s.reclaimable = QUEUE_NOT_RECLAIMABLE;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    CU_ASSERT_EQUAL(try_admit(t, 3, "a", "nvidia.com/gpu=31", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_GUARANTEE);
    CU_ASSERT_STRING_EQUAL(explain(t, &why),
                           "queue root: nvidia.com/gpu 60 of 100 in use and 10 held for other "
                           "queues' guarantees, needs 31");
    CU_ASSERT_EQUAL(try_admit(t, 4, "a", "nvidia.com/gpu=30", &why), 0);
    /* b1 now finds its guarantee lent: only reclaim brings it back */
    CU_ASSERT_EQUAL(try_admit(t, 5, "b1", "nvidia.com/gpu=1", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_GUARANTEE);
    CU_ASSERT_EQUAL(try_admit(t, 6, "b2", "nvidia.com/gpu=10", &why), 0);
    /* lending off again: b1's guarantee is held, and a's borrowing stays as admitted */
    CU_ASSERT_EQUAL(queue_tree_set_lending(t, 0), 0);
    CU_ASSERT_EQUAL(use_of(t, "a", "nvidia.com/gpu"), 90000);
    queue_tree_free(t);
}

static int64_t lent_of(struct queue_tree *t, const char *queue, const char *res)
{
    struct queue_status st;
    uint32_t id;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_find(queue_tree_resnames(t), res, strlen(res), &id), 0);
    CU_ASSERT_EQUAL_FATAL(queue_node_status(t, queue_tree_find(t, queue), &st), 0);
    int64_t v = queue_resvec_get(&st.lent, id);
    queue_status_close(&st);
    return v;
}

/* status.lent is guarantee - held where positive: the unused guarantee that is not held for
 * the queue, so others may be admitted into it. Nothing while the tree does not lend or the
 * queue is not reclaimable; an inner queue's counts its subtree's. */
static void test_status_lent(void)
{
    struct queue_tree *t = guarantee_tree();
    struct queue_limit why;
    CU_ASSERT_EQUAL(try_admit(t, 1, "b1", "nvidia.com/gpu=12", &why), 0);
    CU_ASSERT_EQUAL(lent_of(t, "b1", "nvidia.com/gpu"), 0);
    CU_ASSERT_EQUAL(lent_of(t, "b", "nvidia.com/gpu"), 0);
    CU_ASSERT_EQUAL(queue_tree_set_lending(t, 1), 0);
    CU_ASSERT_EQUAL(lent_of(t, "b1", "nvidia.com/gpu"), 18000); /* 30 - 12 */
    CU_ASSERT_EQUAL(lent_of(t, "b2", "nvidia.com/gpu"), 10000);
    CU_ASSERT_EQUAL(lent_of(t, "b", "nvidia.com/gpu"), 28000); /* 40 - 12 */
    CU_ASSERT_EQUAL(lent_of(t, "a", "nvidia.com/gpu"), 60000);
    CU_ASSERT_EQUAL(lent_of(t, "root", "nvidia.com/gpu"), 0); /* root guarantees nothing */
    /* b2 keeps its guarantee: it lends nothing, and b's figure loses it */
    struct queue_spec s = *queue_node_spec(queue_tree_find(t, "b2"));
    s.reclaimable = QUEUE_NOT_RECLAIMABLE;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    CU_ASSERT_EQUAL(lent_of(t, "b2", "nvidia.com/gpu"), 0);
    CU_ASSERT_EQUAL(lent_of(t, "b", "nvidia.com/gpu"), 18000);
    /* a guarantee in use is not lent; usage above it lends nothing either */
    CU_ASSERT_EQUAL(try_admit(t, 2, "a", "nvidia.com/gpu=70", &why), 0);
    CU_ASSERT_EQUAL(lent_of(t, "a", "nvidia.com/gpu"), 0);
    CU_ASSERT_EQUAL(queue_tree_set_lending(t, 0), 0);
    CU_ASSERT_EQUAL(lent_of(t, "b1", "nvidia.com/gpu"), 0);
    CU_ASSERT_EQUAL(lent_of(t, "b", "nvidia.com/gpu"), 0);
    queue_tree_free(t);
}

static void test_guarantee_inside_subtree(void)
{
    /* b1 borrowing within b must leave b2's guarantee alone even when b has no capability. */
    struct queue_tree *t = guarantee_tree();
    struct queue_limit why;
    /* a is owed 60 and b2 10, so b1 may hold 30 of the 100 and not one more. */
    CU_ASSERT_EQUAL(try_admit(t, 1, "b1", "nvidia.com/gpu=31", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_GUARANTEE);
    CU_ASSERT_EQUAL(try_admit(t, 2, "b1", "nvidia.com/gpu=30", &why), 0);
    CU_ASSERT_EQUAL(use_of(t, "b", "nvidia.com/gpu"), 30000);
    CU_ASSERT_EQUAL(try_admit(t, 3, "b1", "nvidia.com/gpu=1", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_GUARANTEE);
    /* Once a uses its guarantee, what it held is no longer free for b1 either. */
    CU_ASSERT_EQUAL(try_admit(t, 4, "a", "nvidia.com/gpu=60", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 5, "b1", "nvidia.com/gpu=1", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(try_admit(t, 6, "b2", "nvidia.com/gpu=10", &why), 0);
    CU_ASSERT_EQUAL(use_of(t, "root", "nvidia.com/gpu"), 100000);
    queue_tree_free(t);
    t = guarantee_tree();
    CU_ASSERT_EQUAL(try_admit(t, 1, "a", "nvidia.com/gpu=60", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 2, "b1", "nvidia.com/gpu=31", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(try_admit(t, 3, "b1", "nvidia.com/gpu=30", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 4, "b2", "nvidia.com/gpu=10", &why), 0);
    queue_tree_free(t);
}

static void test_borrowing_visible(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    struct queue_status st;
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "cpu=10", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "cpu=10", ""), 0);
    struct queue_resvec fleet = {0};
    vec_of(t, &fleet, "cpu=20");
    CU_ASSERT_EQUAL(queue_tree_set_fleet(t, &fleet), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "a", "cpu=16", &why), 0); /* b is idle: a borrows 6 */
    CU_ASSERT_EQUAL(queue_node_status(t, queue_tree_find(t, "a"), &st), 0);
    uint32_t cpu;
    CU_ASSERT_EQUAL(queue_resnames_find(queue_tree_resnames(t), "cpu", 3, &cpu), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&st.borrowed, cpu), 6000);
    CU_ASSERT_EQUAL(queue_resvec_get(&st.allocated, cpu), 16000);
    CU_ASSERT_EQUAL(st.admitted, 1);
    CU_ASSERT_DOUBLE_EQUAL(st.share, 1.6, 1e-9);
    queue_status_close(&st);
    CU_ASSERT_EQUAL(try_admit(t, 2, "b", "cpu=4", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 3, "b", "cpu=1", &why), MUSTER_ELIMIT);
    CU_ASSERT_STRING_EQUAL(explain(t, &why), "fleet: cpu 20 of 20 in use, needs 1");
    /* Capacity released by a is usable by b at once. */
    queue_entry_remove(t, queue_tree_entry(t, 1));
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, 3), &why), 0);
    queue_resvec_close(&fleet);
    queue_tree_free(t);
}

static void test_states(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    CU_ASSERT_EQUAL(mkq(t, "org", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "team", "org", "", "", ""), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "team", "cpu=1", &why), 0);
    struct queue_spec s;
    spec_init(&s, "org", NULL);
    s.state = QUEUE_CLOSED;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    /* A Closed ancestor closes its whole subtree; the entry still waits, it is not lost. */
    CU_ASSERT_EQUAL(try_admit(t, 2, "team", "cpu=1", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_STATE);
    CU_ASSERT_STRING_EQUAL(explain(t, &why), "queue org is Closed: it admits no new work");
    CU_ASSERT_PTR_NOT_NULL(queue_tree_entry(t, 2));
    s.state = QUEUE_OPEN;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    spec_init(&s, "team", "org");
    s.state = QUEUE_DRAINING;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, 2), &why), MUSTER_ELIMIT);
    CU_ASSERT_STRING_EQUAL(explain(t, &why), "queue org/team is Draining: it admits no new work");
    /* Draining is deleted when its admitted work is gone. */
    CU_ASSERT_FALSE(queue_node_drained(queue_tree_find(t, "team")));
    queue_entry_remove(t, queue_tree_entry(t, 1));
    CU_ASSERT_TRUE(queue_node_drained(queue_tree_find(t, "team")));
    CU_ASSERT_FALSE(queue_node_drained(queue_tree_find(t, "org")));
    queue_tree_free(t);
}

static void test_release_and_requeue(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "", "cpu=10"), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "a", "cpu=6,memory=1Gi", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 2, "a", "cpu=6", &why), MUSTER_ELIMIT);
    struct queue_entry *e1 = queue_tree_entry(t, 1);
    CU_ASSERT_EQUAL(queue_entry_state(e1), QUEUE_ENTRY_ADMITTED);
    CU_ASSERT_EQUAL(queue_entry_requeue(t, e1), 0);
    CU_ASSERT_EQUAL(queue_entry_state(e1), QUEUE_ENTRY_PENDING);
    CU_ASSERT_EQUAL(use_of(t, "a", "cpu"), 0);
    CU_ASSERT_EQUAL(use_of(t, "root", "memory"), 0);
    CU_ASSERT_EQUAL(queue_entry_requeue(t, e1), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, 2), &why), 0);
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, 2), &why), MUSTER_EINVAL);
    queue_entry_remove(t, queue_tree_entry(t, 2));
    CU_ASSERT_EQUAL(use_of(t, "root", "cpu"), 0);
    CU_ASSERT_PTR_NULL(queue_tree_entry(t, 2));
    queue_tree_free(t);
}

static void test_overcommitted_fleet_keeps_own_guarantee(void)
{
    /* The fleet shrank below the sum of guarantees: a queue still gets its own guarantee when
     * the capacity is physically there. */
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "cpu=60", "cpu=60", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "cpu=40", "cpu=40", ""), 0);
    struct queue_resvec fleet = {0};
    vec_of(t, &fleet, "cpu=80");
    CU_ASSERT_EQUAL(queue_tree_set_fleet(t, &fleet), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "a", "cpu=50", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 2, "b", "cpu=30", &why), 0);
    CU_ASSERT_EQUAL(try_admit(t, 3, "a", "cpu=1", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_CAPABILITY);
    queue_resvec_close(&fleet);
    queue_tree_free(t);
}

static void test_replayed_admissions_and_overflow(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "", "cpu=4"), 0);
    struct queue_resvec v = {0};
    vec_of(t, &v, "cpu=6");
    struct queue_entry_spec es = {7, "a", 0, 1, &v};
    struct queue_entry *e;
    /* The ledger says it was admitted: it counts even above a capability lowered since. */
    CU_ASSERT_EQUAL(queue_entry_add_admitted(t, &es, &e, NULL), 0);
    CU_ASSERT_EQUAL(use_of(t, "a", "cpu"), 6000);
    CU_ASSERT_EQUAL(try_admit(t, 8, "a", "cpu=1", &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(mkq(t, "big", NULL, "", "", ""), 0);
    uint32_t cpu;
    CU_ASSERT_EQUAL(queue_resnames_find(queue_tree_resnames(t), "cpu", 3, &cpu), 0);
    queue_resvec_clear(&v);
    CU_ASSERT_EQUAL(queue_resvec_set(&v, cpu, INT64_MAX - 10), 0);
    es = (struct queue_entry_spec){9, "big", 0, 1, &v};
    CU_ASSERT_EQUAL(queue_entry_add(t, &es, &e, NULL), 0);
    CU_ASSERT_EQUAL(queue_entry_admit(t, e, &why), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(why.kind, QUEUE_LIMIT_OVERFLOW);
    CU_ASSERT_EQUAL(use_of(t, "root", "cpu"), 6000); /* nothing wrapped */
    queue_resvec_close(&v);
    queue_tree_free(t);
}

static void test_entry_errors(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_error err;
    struct queue_resvec v = {0};
    struct queue_entry *e;
    CU_ASSERT_EQUAL(mkq(t, "p", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "c", "p", "", "", ""), 0);
    vec_of(t, &v, "cpu=1");
    struct queue_entry_spec es = {1, "nope", 0, 0, &v};
    CU_ASSERT_EQUAL(queue_entry_add(t, &es, &e, &err), MUSTER_ENOENT);
    CU_ASSERT_STRING_EQUAL(err.msg, "queue nope does not exist");
    es.queue = "p";
    CU_ASSERT_EQUAL(queue_entry_add(t, &es, &e, &err), MUSTER_ENOTLEAF);
    es.queue = "c";
    CU_ASSERT_EQUAL(queue_entry_add(t, &es, &e, &err), 0);
    CU_ASSERT_EQUAL(queue_entry_add(t, &es, &e, &err), MUSTER_EEXIST);
    es.id = 2;
    queue_resvec_clear(&v);
    CU_ASSERT_EQUAL(queue_entry_add(t, &es, &e, &err), MUSTER_EINVAL);
    uint32_t cpu;
    CU_ASSERT_EQUAL(queue_resnames_find(queue_tree_resnames(t), "cpu", 3, &cpu), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&v, cpu, -5), 0);
    CU_ASSERT_EQUAL(queue_entry_add(t, &es, &e, &err), MUSTER_EINVAL);
    queue_resvec_close(&v);
    queue_tree_free(t);
}

/* Resources a queue has no deserved value for do not count in its share (as in Volcano's
 * proportion plugin): GPU teams need not declare CPU deserved to stay in line. */
static void test_share_counts_deserved_resources(void)
{
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    struct queue_status st;
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "a", "nvidia.com/gpu=2,cpu=64", &why), 0);
    CU_ASSERT_EQUAL(queue_node_status(t, queue_tree_find(t, "a"), &st), 0);
    CU_ASSERT_DOUBLE_EQUAL(st.share, 0.25, 1e-12);
    queue_status_close(&st);
    /* No deserved at all: idle is 0, anything in use is borrowed (infinite share). */
    CU_ASSERT_EQUAL(try_admit(t, 2, "default", "cpu=1", &why), 0);
    CU_ASSERT_EQUAL(queue_node_status(t, queue_tree_find(t, "default"), &st), 0);
    CU_ASSERT(st.share > 1e300);
    queue_status_close(&st);
    queue_tree_free(t);
}

static void test_resize_admitted(void)
{
    /* A dispatched gang scaled down gives back at once; scaled up it holds what its delta was
     * admitted for. A queue never holds more than it admitted. */
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    struct queue_error err;
    CU_ASSERT_EQUAL(mkq(t, "org", NULL, "", "", "nvidia.com/gpu=16"), 0);
    CU_ASSERT_EQUAL(mkq(t, "a", "org", "", "", ""), 0);
    CU_ASSERT_EQUAL(try_admit(t, 1, "a", "nvidia.com/gpu=12,cpu=12", &why), 0);
    struct queue_entry *waiting = add(t, 2, "a", 0, 2, "nvidia.com/gpu=8");
    CU_ASSERT_PTR_NOT_NULL_FATAL(waiting);
    CU_ASSERT_EQUAL(queue_entry_admit(t, waiting, &why), MUSTER_ELIMIT);
    struct queue_resvec v = {0};
    vec_of(t, &v, "nvidia.com/gpu=4,cpu=4");
    CU_ASSERT_EQUAL(queue_entry_resize(t, queue_tree_entry(t, 1), &v, &err), 0);
    CU_ASSERT_EQUAL(use_of(t, "a", "nvidia.com/gpu"), 4000);
    CU_ASSERT_EQUAL(use_of(t, "root", "cpu"), 4000);
    CU_ASSERT_EQUAL(queue_resvec_cmp(queue_entry_request(queue_tree_entry(t, 1)), &v), 0);
    /* the room it gave back lets the waiting gang in */
    queue_cycle_begin(t);
    CU_ASSERT_PTR_EQUAL(queue_cycle_next(t), waiting);
    CU_ASSERT_EQUAL(queue_entry_admit(t, waiting, &why), 0);
    CU_ASSERT_EQUAL(use_of(t, "org", "nvidia.com/gpu"), 12000);
    /* growing: the delta admitted as an entry of its own, then folded in */
    struct queue_entry *delta = add(t, 3, "a", 0, 3, "nvidia.com/gpu=4");
    CU_ASSERT_EQUAL(queue_entry_admit(t, delta, &why), 0);
    queue_entry_remove(t, delta);
    vec_of(t, &v, "nvidia.com/gpu=8,cpu=4");
    CU_ASSERT_EQUAL(queue_entry_resize(t, queue_tree_entry(t, 1), &v, &err), 0);
    CU_ASSERT_EQUAL(use_of(t, "org", "nvidia.com/gpu"), 16000);
    CU_ASSERT_EQUAL(use_of(t, "a", "cpu"), 4000);
    /* refused: pending entries, empty and negative requests; nothing changes */
    queue_entry_remove(t, waiting);
    struct queue_entry *p = add(t, 4, "a", 0, 4, "cpu=1");
    CU_ASSERT_EQUAL(queue_entry_resize(t, p, &v, &err), MUSTER_EINVAL);
    struct queue_resvec empty = {0};
    CU_ASSERT_EQUAL(queue_entry_resize(t, queue_tree_entry(t, 1), &empty, &err), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(use_of(t, "org", "nvidia.com/gpu"), 8000);
    queue_resvec_close(&v);
    queue_tree_free(t);
}

static void test_version(void)
{
    /* Every change a queue's status can show moves the version; reading does not. */
    struct queue_tree *t = queue_tree_new();
    struct queue_limit why;
    uint64_t v = queue_tree_version(t);
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "", "cpu=10"), 0);
    CU_ASSERT(queue_tree_version(t) > v);
    v = queue_tree_version(t);
    struct queue_entry *e = add(t, 1, "a", 0, 1, "cpu=4");
    CU_ASSERT(queue_tree_version(t) > v);
    v = queue_tree_version(t);
    struct queue_status st;
    memset(&st, 0, sizeof(st));
    CU_ASSERT_EQUAL(queue_node_status(t, queue_tree_find(t, "a"), &st), 0);
    queue_status_close(&st);
    CU_ASSERT(queue_tree_can_admit(t, queue_tree_find(t, "a"), queue_entry_request(e), &why));
    CU_ASSERT_EQUAL(queue_tree_version(t), v);
    CU_ASSERT_EQUAL(queue_entry_admit(t, e, &why), 0);
    CU_ASSERT(queue_tree_version(t) > v);
    v = queue_tree_version(t);
    struct queue_resvec r = {0};
    vec_of(t, &r, "cpu=2");
    CU_ASSERT_EQUAL(queue_entry_resize(t, e, &r, NULL), 0);
    CU_ASSERT(queue_tree_version(t) > v);
    v = queue_tree_version(t);
    CU_ASSERT_EQUAL(queue_entry_requeue(t, e), 0);
    CU_ASSERT(queue_tree_version(t) > v);
    v = queue_tree_version(t);
    queue_entry_remove(t, e);
    CU_ASSERT(queue_tree_version(t) > v);
    v = queue_tree_version(t);
    CU_ASSERT_EQUAL(queue_tree_set_fleet(t, &r), 0);
    CU_ASSERT(queue_tree_version(t) > v);
    queue_resvec_close(&r);
    queue_tree_free(t);
}

/* Entries come from blocks of 1,024 and freed ones are reused (queue__entry_alloc): through
 * several blocks and churn, each id finds its own entry with its own fields, and the tree
 * frees every block. */
static void test_entries_many_and_reused(void)
{
    struct muster_mem_stats before, after;
    muster_mem_stats(&before);
    struct queue_tree *t = queue_tree_new();
    enum { N = 2600 };
    for (uint64_t id = 1; id <= N; id++)
        CU_ASSERT_PTR_NOT_NULL_FATAL(add(t, id, "default", (int32_t)(id % 7), (int64_t)id,
                                         id % 2 ? "cpu=1" : "cpu=2"));
    for (uint64_t id = 2; id <= N; id += 2)
        queue_entry_remove(t, queue_tree_entry(t, id));
    for (uint64_t id = N + 1; id <= N + N / 2; id++) /* into the freed ones, then a new block */
        CU_ASSERT_PTR_NOT_NULL_FATAL(add(t, id, "default", 3, (int64_t)id, "cpu=3"));
    for (uint64_t id = 1; id <= N + N / 2; id++) {
        struct queue_entry *e = queue_tree_entry(t, id);
        if (id <= N && id % 2 == 0) {
            CU_ASSERT_PTR_NULL(e);
            continue;
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(queue_entry_id(e), id);
    }
    /* every one still there can be admitted (its fields intact: queue, request) */
    struct queue_limit why;
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, 1), &why), 0);
    CU_ASSERT_EQUAL(queue_entry_admit(t, queue_tree_entry(t, N + N / 2), &why), 0);
    queue_tree_free(t);
    muster_mem_stats(&after);
    CU_ASSERT_EQUAL(after.allocs - before.allocs, after.frees - before.frees);
}

static CU_TestInfo tests[] = {
    {"entries through several blocks, freed ones reused", test_entries_many_and_reused},
    {"capability along the path", test_capability_along_path},
    {"explain matches the issue's example", test_explain_matches_issue_example},
    {"guarantee protection", test_guarantee_protection},
    {"lending unused guarantees", test_lending_unused_guarantees},
    {"status.lent: unused guarantee not held", test_status_lent},
    {"guarantee inside a subtree", test_guarantee_inside_subtree},
    {"borrowing is visible", test_borrowing_visible},
    {"Closed and Draining", test_states},
    {"release and requeue", test_release_and_requeue},
    {"resize an admitted entry", test_resize_admitted},
    {"the version moves with every change, not with reads", test_version},
    {"overcommitted fleet keeps own guarantee", test_overcommitted_fleet_keeps_own_guarantee},
    {"replayed admissions and overflow", test_replayed_admissions_and_overflow},
    {"entry errors", test_entry_errors},
    {"share counts resources with a deserved value", test_share_counts_deserved_resources},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/admit", tests)
