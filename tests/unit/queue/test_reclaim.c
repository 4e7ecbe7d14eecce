/* Tests for queue/reclaim.c: one test per rule of the victim search (who may lend, in what
 * order, the smallest set, never in vain, within-queue priority, minRuntime, floors, cooling,
 * the hierarchy), the index of running gangs, the sentences, and allocation failures. */
#include "helpers.h"
#include "reclaim_model.h"
#include "testing.h"

static struct queue_tree *t;
static struct rm_world w;
static struct queue_reclaim *rc;
static char msg[1024];

static void setup(size_t nclusters, const char *room)
{
    t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    memset(&w, 0, sizeof(w));
    w.t = t;
    w.nclusters = nclusters;
    for (size_t c = 0; c < nclusters; c++)
        vec_of(t, &w.room[c], room);
    rc = queue_reclaim_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
}

static void teardown(void)
{
    for (size_t c = 0; c < RM_CLUSTERS_MAX; c++)
        queue_resvec_close(&w.room[c]);
    for (size_t i = 0; i < w.ngangs; i++)
        for (size_t c = 0; c < RM_CLUSTERS_MAX; c++)
            queue_resvec_close(&w.g[i].share[c]);
    queue_resvec_close(&w.per);
    queue_reclaim_free(rc);
    queue_tree_free(t);
}

/* A running gang of `queue`: n0 replicas of per in cluster c0 and n1 in c1 (c1 < 0: none). */
static struct queue_entry *run(uint64_t id, const char *queue, int32_t prio, int64_t started,
                               const char *per, uint32_t c0, int64_t n0, int c1, int64_t n1)
{
    struct queue_resvec p = {0}, req = {0};
    vec_of(t, &p, per);
    struct rm_gang *g = &w.g[w.ngangs];
    for (uint32_t k = 0; k < p.len; k++) {
        queue_resvec_set(&g->share[c0], p.items[k].id, p.items[k].milli * n0);
        if (c1 >= 0)
            queue_resvec_set(&g->share[c1], p.items[k].id, p.items[k].milli * n1);
        queue_resvec_set(&req, p.items[k].id, p.items[k].milli * (n0 + (c1 >= 0 ? n1 : 0)));
    }
    struct queue_entry_spec es = {id, queue, prio, (int64_t)id, &req};
    struct queue_error err;
    CU_ASSERT_EQUAL_FATAL(queue_entry_add_admitted(t, &es, &g->e, &err), 0);
    g->started = started;
    CU_ASSERT_EQUAL_FATAL(rm_gang_record(&w, w.ngangs), 0);
    w.ngangs++;
    queue_resvec_close(&p);
    queue_resvec_close(&req);
    return g->e;
}

/* The pending gang: replicas of per in `queue`, allowed clusters as a digit string ("01"). */
static void pending(const char *queue, int32_t prio, const char *per, uint32_t replicas,
                    const char *allowed, int spread)
{
    w.queue = queue_tree_find(t, queue);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w.queue);
    w.priority = prio;
    vec_of(t, &w.per, per);
    w.replicas = replicas;
    w.nallowed = 0;
    for (const char *c = allowed; *c; c++)
        w.allowed[w.nallowed++] = (uint32_t)(*c - '0');
    w.spread = spread;
}

static int search(void)
{
    struct queue_reclaim_req req;
    rm_request(&w, &req);
    return queue_reclaim_search(rc, t, &req);
}

static uint64_t victim(size_t i)
{
    const struct queue_reclaim_victim *v = queue_reclaim_victim(rc, i);
    return v ? queue_entry_id(v->gang) : 0;
}

static const char *wait_text(void)
{
    CU_ASSERT(queue_reclaim_explain_wait(rc, t, msg, sizeof(msg)) > 0);
    return msg;
}

static const char *victim_text(size_t i)
{
    CU_ASSERT(queue_reclaim_explain_victim(rc, t, i, msg, sizeof(msg)) > 0);
    return msg;
}

static int smallest(void)
{
    struct queue_reclaim_stats st;
    queue_reclaim_stats(rc, &st);
    return st.smallest;
}

/* The proof: A's 16-GPU gang must spread over clusters 0 and 1; B borrowed them all.
 * B's gangs there go, whole, newest first, and only as many as A needs; B's gang in cluster 2
 * (its newest) stays. */
static void test_reclaims_newest_whole_gangs_in_usable_clusters(void)
{
    setup(3, "cpu=0,nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "nvidia.com/gpu=16", "nvidia.com/gpu=16", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "nvidia.com/gpu=4", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(2, "b", 0, 5, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(3, "b", 0, 2, "nvidia.com/gpu=4", 1, 1, -1, 0);
    run(4, "b", 0, 6, "nvidia.com/gpu=4", 1, 1, -1, 0);
    run(6, "b", 0, 3, "nvidia.com/gpu=2", 0, 1, -1, 0);
    run(7, "b", 0, 4, "nvidia.com/gpu=2", 1, 1, -1, 0);
    run(5, "b", 0, 9, "nvidia.com/gpu=8", 2, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 4, "01", 1);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_VICTIMS);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 4);
    /* newest first among the sets of four that work: 4 (t6), 2 (t5), 3 (t2), 1 (t1) */
    CU_ASSERT_EQUAL(victim(0), 4);
    CU_ASSERT_EQUAL(victim(1), 2);
    CU_ASSERT_EQUAL(victim(2), 3);
    CU_ASSERT_EQUAL(victim(3), 1);
    CU_ASSERT(smallest());
    CU_ASSERT_STRING_EQUAL(wait_text(), "waiting for 16 nvidia.com/gpu to be reclaimed from b "
                                        "(4 gangs preempting)");
    CU_ASSERT_STRING_EQUAL(victim_text(0),
                           "preempted to reclaim for a, which stays within its deserved share: b "
                           "uses nvidia.com/gpu 28 of its deserved 4, the only queue that may "
                           "lend; its gangs go lowest priority (0 here) then newest first; frees "
                           "nvidia.com/gpu 4 where the waiting gang may run");
    teardown();
}

/* Lending on: B is admitted into A's idle guarantee (A is reclaimable by default); when A
 * wants it, the queue rules refuse (the fleet is full) until B's gangs are gone, and the search
 * gives them back. */
static void test_lent_guarantee_comes_back(void)
{
    setup(2, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(queue_tree_set_lending(t, 1), 0);
    struct queue_resvec fleet = {0};
    vec_of(t, &fleet, "nvidia.com/gpu=32");
    CU_ASSERT_EQUAL(queue_tree_set_fleet(t, &fleet), 0);
    queue_resvec_close(&fleet);
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "nvidia.com/gpu=16", "nvidia.com/gpu=16", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "nvidia.com/gpu=8", ""), 0);
    struct queue_entry *e = add(t, 1, "b", 0, 1, "nvidia.com/gpu=16");
    CU_ASSERT_EQUAL(queue_entry_admit(t, e, NULL), 0); /* 16: b's 8 and 8 of the idle fleet */
    e = add(t, 2, "b", 0, 2, "nvidia.com/gpu=16");
    CU_ASSERT_EQUAL(queue_entry_admit(t, e, NULL), 0); /* and a's lent guarantee */
    struct queue_resvec sh = {0};
    vec_of(t, &sh, "nvidia.com/gpu=16");
    struct queue_reclaim_share s0 = {0, &sh}, s1 = {1, &sh};
    CU_ASSERT_EQUAL(queue_reclaim_gang_set(t, queue_tree_entry(t, 1), 1, &s0, 1), 0);
    CU_ASSERT_EQUAL(queue_reclaim_gang_set(t, queue_tree_entry(t, 2), 2, &s1, 1), 0);
    queue_resvec_close(&sh);
    pending("a", 0, "nvidia.com/gpu=8", 2, "01", 1);
    struct queue_limit why;
    struct queue_resvec total = {0};
    vec_of(t, &total, "nvidia.com/gpu=16");
    CU_ASSERT_FALSE(queue_tree_can_admit(t, w.queue, &total, &why));
    queue_resvec_close(&total);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 1);
    CU_ASSERT_EQUAL(victim(0), 2); /* the newest; one is enough, spread over one cluster */
    teardown();
}

static void test_most_over_share_queue_first(void)
{
    setup(1, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=16", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "nvidia.com/gpu=4", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "c", NULL, "", "nvidia.com/gpu=4", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=4", 0, 1, -1, 0); /* b: 8 of 4, share 2 */
    run(2, "b", 0, 2, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(3, "c", 5, 1, "nvidia.com/gpu=4", 0, 1, -1, 0); /* c: 12 of 4, share 3 */
    run(4, "c", 5, 3, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(5, "c", 5, 2, "nvidia.com/gpu=4", 0, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 1);
    CU_ASSERT_EQUAL(victim(0), 4); /* c's newest, although c's gangs have the higher priority */
    pending("a", 0, "nvidia.com/gpu=4", 3, "0", 0); /* 12: c may give 8 (its floor), then b */
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 3);
    CU_ASSERT_EQUAL(victim(2), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(victim_text(2), "b uses nvidia.com/gpu 8 of its deserved 4, "
                                                  "the 2nd most over its share of the 2 queues"));
    CU_ASSERT_PTR_NOT_NULL(strstr(victim_text(0), "c uses nvidia.com/gpu 12 of its deserved 4, "
                                                  "the most over its share of the 2 queues "
                                                  "that may lend"));
    teardown();
}

static void test_lowest_priority_then_newest(void)
{
    setup(1, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "nvidia.com/gpu=1", ""), 0);
    run(1, "b", 1, 30, "nvidia.com/gpu=4", 0, 1, -1, 0); /* newest, but priority 1 */
    run(2, "b", 0, 10, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(3, "b", 0, 20, "nvidia.com/gpu=4", 0, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 1);
    CU_ASSERT_EQUAL(victim(0), 3);
    pending("a", 0, "nvidia.com/gpu=4", 2, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 2);
    CU_ASSERT_EQUAL(victim(0), 3);
    CU_ASSERT_EQUAL(victim(1), 2);
    teardown();
}

/* Fewer victims beat preference: one old 8-GPU gang rather than newer small ones. */
static void test_smallest_set(void)
{
    setup(2, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "nvidia.com/gpu=1", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=8", 0, 1, -1, 0);
    run(2, "b", 0, 5, "nvidia.com/gpu=2", 0, 1, -1, 0);
    run(3, "b", 0, 6, "nvidia.com/gpu=2", 0, 1, -1, 0);
    run(4, "b", 0, 7, "nvidia.com/gpu=2", 0, 1, -1, 0);
    run(5, "b", 0, 8, "nvidia.com/gpu=2", 1, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=8", 1, "01", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 1);
    CU_ASSERT_EQUAL(victim(0), 1);
    CU_ASSERT(smallest());
    teardown();
}

/* Room freed where the gang may not run does not count. */
static void test_other_clusters_do_not_count(void)
{
    setup(2, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "nvidia.com/gpu=1", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=8", 1, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NO_CANDIDATES);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 0);
    CU_ASSERT_STRING_EQUAL(wait_text(), "nothing to reclaim: no running gang that may be "
                                        "preempted holds what it asks for in a cluster it may "
                                        "use");
    /* A gang across both clusters counts for its part in the usable one. */
    run(2, "b", 0, 2, "nvidia.com/gpu=2", 0, 2, 1, 2);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 1);
    CU_ASSERT_EQUAL(victim(0), 2);
    CU_ASSERT_EQUAL(queue_reclaim_victim(rc, 0)->freed[0], 4000);
    teardown();
}

/* Past 16 allowed clusters a search walks each lender's whole list instead of merging its
 * per-cluster lists: same answer. A gang in two allowed clusters is ranked once. */
static void test_many_allowed_clusters(void)
{
    setup(20, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=64", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=4", 3, 1, 17, 1);
    run(2, "b", 0, 2, "nvidia.com/gpu=4", 19, 1, -1, 0);
    run(3, "b", 0, 3, "nvidia.com/gpu=2", 5, 1, -1, 0);
    const char *all = "0123456789:;<=>?@ABC"; /* '0' + 0..19 */
    pending("a", 0, "nvidia.com/gpu=4", 3, all, 1);
    CU_ASSERT_EQUAL(w.nallowed, 20);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 2);
    CU_ASSERT_EQUAL(victim(0), 2);
    CU_ASSERT_EQUAL(victim(1), 1);
    pending("a", 0, "nvidia.com/gpu=4", 3, "3AC5", 1); /* 3, 17, 19, 5: merged */
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 2);
    CU_ASSERT_EQUAL(victim(0), 2);
    CU_ASSERT_EQUAL(victim(1), 1);
    struct queue_reclaim_stats st;
    queue_reclaim_stats(rc, &st);
    CU_ASSERT_EQUAL(st.candidates, 3);
    teardown();
}

/* Never in vain: if the gang would not fit with every candidate gone, nothing is preempted. */
static void test_nothing_preempted_in_vain(void)
{
    setup(2, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=64", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "", ""), 0); /* all it uses is borrowed */
    run(1, "b", 0, 1, "nvidia.com/gpu=8", 0, 1, -1, 0);
    run(2, "b", 0, 2, "nvidia.com/gpu=8", 1, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=8", 2, "01", 0); /* 16 in one cluster: none has 16 */
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NONE_HELPS);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 0);
    CU_ASSERT(smallest());
    CU_ASSERT_STRING_EQUAL(wait_text(), "preempting would not help: it would not fit even with "
                                        "every gang that may be preempted gone");
    pending("a", 0, "nvidia.com/gpu=8", 2, "01", 1); /* spread: it fits with both gone */
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 2);
    teardown();
}

static void test_fits_now_needs_nothing(void)
{
    setup(1, "nvidia.com/gpu=8");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "nvidia.com/gpu=1", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=8", 0, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=8", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NOT_NEEDED);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 0);
    CU_ASSERT_STRING_EQUAL(wait_text(), "fits without preempting anything");
    teardown();
}

/* withinQueue: Never (default) preempts nothing of the gang's own queue; LowerPriority
 * preempts lower priority only, never equal or higher. */
static void test_within_queue_priority(void)
{
    setup(1, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=4", ""), 0);
    run(1, "a", 0, 1, "nvidia.com/gpu=4", 0, 1, -1, 0);
    pending("a", 5, "nvidia.com/gpu=4", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NOT_ENTITLED);
    CU_ASSERT_STRING_EQUAL(wait_text(), "may not reclaim: queue a would use nvidia.com/gpu 4 + 4 "
                                        "of its deserved 4");

    struct queue_spec s = *queue_node_spec(queue_tree_find(t, "a"));
    s.within_queue = QUEUE_WITHIN_LOWER_PRIORITY;
    CU_ASSERT_EQUAL(queue_tree_update(t, &s, NULL), 0);
    w.queue = queue_tree_find(t, "a");
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_VICTIMS);
    CU_ASSERT_EQUAL(victim(0), 1);
    CU_ASSERT_EQUAL(queue_reclaim_victim(rc, 0)->kind, QUEUE_RECLAIM_WITHIN_QUEUE);
    CU_ASSERT_STRING_EQUAL(victim_text(0), "preempted by a priority 5 gang of its own queue a "
                                           "(preemption.withinQueue: LowerPriority): its "
                                           "priority 0 is lower; frees nvidia.com/gpu 4 where "
                                           "the waiting gang may run");
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0); /* equal priority: never */
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NOT_ENTITLED);
    teardown();
}

static void test_min_runtime(void)
{
    setup(1, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=8", ""), 0);
    struct queue_spec s;
    spec_init(&s, "b", NULL);
    s.min_runtime = 100;
    CU_ASSERT_EQUAL(queue_tree_create(t, &s, NULL), 0);
    spec_close(&s);
    run(1, "b", 0, 50, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(2, "b", 0, 10, "nvidia.com/gpu=4", 0, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    w.now = 120; /* gang 1 has run 70 of 100: not yet; gang 2 has run 110 */
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(victim(0), 2);
    w.now = 140;
    pending("a", 0, "nvidia.com/gpu=4", 2, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NONE_HELPS);
    w.now = 150;
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 2);
    teardown();
}

/* A lender keeps its deserved share of what it borrows and the gang asks for, and its
 * guarantee of everything. */
static void test_floors(void)
{
    setup(1, "cpu=0,nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "cpu=64,nvidia.com/gpu=16", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "cpu=64,nvidia.com/gpu=8", ""), 0);
    run(1, "b", 0, 1, "cpu=8,nvidia.com/gpu=4", 0, 1, -1, 0);
    run(2, "b", 0, 2, "cpu=8,nvidia.com/gpu=8", 0, 1, -1, 0);
    /* b uses 12 GPUs of 8 deserved: it may lose 4, so only gang 1 */
    pending("a", 0, "nvidia.com/gpu=8", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NONE_HELPS);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 1);
    CU_ASSERT_EQUAL(victim(0), 1);
    teardown();
    /* cpu: b uses 16 of a 40 guarantee, so no gang of b may go, although b borrows GPUs */
    setup(1, "cpu=0,nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "cpu=64,nvidia.com/gpu=16", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "cpu=40", "cpu=64,nvidia.com/gpu=4", ""), 0);
    run(1, "b", 0, 1, "cpu=8,nvidia.com/gpu=4", 0, 2, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NO_CANDIDATES);
    teardown();
}

static void test_cooling(void)
{
    setup(1, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "nvidia.com/gpu=1", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "c", NULL, "", "nvidia.com/gpu=1", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(2, "b", 0, 2, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(3, "c", 0, 3, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(4, "c", 0, 0, "nvidia.com/gpu=4", 0, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(victim(0), 2); /* b and c both 8 of 1: b by name, then its newest */
    w.cooling_gangs[w.ncooling_gangs++] = 2;
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(victim(0), 1);
    w.cooling_queues[w.ncooling_queues++] = queue_tree_find(t, "b");
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(victim(0), 3);
    w.cooling_queues[w.ncooling_queues++] = queue_tree_find(t, "c");
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NO_CANDIDATES);
    teardown();
}

/* Across the tree the rule holds at every level below the common ancestor: org1 is at its
 * deserved share, so its team a may take back only what its sibling b borrowed, not what c in
 * org2 borrowed, however far over its share c is. */
static void test_hierarchy(void)
{
    setup(1, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "org1", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "a", "org1", "", "nvidia.com/gpu=4", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", "org1", "", "nvidia.com/gpu=4", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "org2", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "c", "org2", "", "nvidia.com/gpu=1", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(3, "b", 0, 0, "nvidia.com/gpu=4", 0, 1, -1, 0);
    run(2, "c", 0, 9, "nvidia.com/gpu=4", 0, 2, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 1);
    CU_ASSERT_EQUAL(victim(0), 1);
    /* with b's gangs cooling nothing else may go */
    w.cooling_gangs[w.ncooling_gangs++] = 1;
    w.cooling_gangs[w.ncooling_gangs++] = 3;
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_outcome(rc), QUEUE_RECLAIM_NO_CANDIDATES);
    teardown();
}

static void test_index_lifecycle(void)
{
    setup(2, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "", ""), 0);
    struct queue_entry *p = add(t, 9, "b", 0, 9, "nvidia.com/gpu=1");
    struct queue_resvec v = {0};
    vec_of(t, &v, "nvidia.com/gpu=1");
    struct queue_reclaim_share sh[2] = {{0, &v}, {0, &v}};
    CU_ASSERT_EQUAL(queue_reclaim_gang_set(t, p, 0, sh, 1), MUSTER_EINVAL); /* pending */
    CU_ASSERT_EQUAL(queue_entry_admit(t, p, NULL), 0);
    CU_ASSERT_EQUAL(queue_reclaim_gang_set(t, p, 0, sh, 2), MUSTER_EINVAL); /* cluster twice */
    sh[1].cluster = QUEUE_RECLAIM_CLUSTERS_MAX;
    CU_ASSERT_EQUAL(queue_reclaim_gang_set(t, p, 0, sh, 2), MUSTER_EINVAL);
    sh[1].cluster = 1;
    CU_ASSERT_EQUAL(queue_reclaim_gang_set(t, p, 0, sh, 2), 0);
    CU_ASSERT_EQUAL(queue_reclaim_gang_set(t, p, 3, sh, 1), 0); /* replaces */
    CU_ASSERT_EQUAL(queue_reclaim_gang_count(t), 1);
    struct queue_entry *e1 = run(1, "b", 0, 1, "nvidia.com/gpu=1", 0, 1, -1, 0);
    struct queue_entry *e2 = run(2, "b", 0, 2, "nvidia.com/gpu=1", 0, 1, -1, 0);
    CU_ASSERT_EQUAL(queue_reclaim_gang_count(t), 3);
    CU_ASSERT_EQUAL(queue_entry_requeue(t, e1), 0); /* rolled back: no longer running */
    CU_ASSERT_EQUAL(queue_reclaim_gang_count(t), 2);
    queue_reclaim_gang_clear(t, p);
    queue_reclaim_gang_clear(t, p);
    CU_ASSERT_EQUAL(queue_reclaim_gang_count(t), 1);
    queue_entry_remove(t, e2);
    w.ngangs = 0; /* their entries are gone; the shares are closed below */
    for (size_t i = 0; i < 2; i++)
        for (size_t c = 0; c < RM_CLUSTERS_MAX; c++)
            queue_resvec_close(&w.g[i].share[c]);
    CU_ASSERT_EQUAL(queue_reclaim_gang_count(t), 0);
    queue_resvec_close(&v);
    teardown();
}

/* The search releases usage to ask the queue rules, and puts it back exactly. */
static void test_tree_unchanged(void)
{
    setup(1, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "org", NULL, "nvidia.com/gpu=4", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "a", "org", "nvidia.com/gpu=4", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=3", 0, 1, -1, 0);
    run(2, "b", 0, 2, "nvidia.com/gpu=5", 0, 1, -1, 0);
    struct queue_status before[4], after[4];
    const char *names[4] = {"root", "org", "a", "b"};
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(queue_node_status(t, queue_tree_find(t, names[i]), &before[i]), 0);
    pending("a", 0, "nvidia.com/gpu=8", 1, "0", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL(queue_reclaim_count(rc), 2);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(queue_node_status(t, queue_tree_find(t, names[i]), &after[i]), 0);
        CU_ASSERT_EQUAL(queue_resvec_cmp(&before[i].allocated, &after[i].allocated), 0);
        CU_ASSERT_EQUAL(queue_resvec_cmp(&before[i].held, &after[i].held), 0);
        CU_ASSERT(before[i].share == after[i].share);
        queue_status_close(&before[i]);
        queue_status_close(&after[i]);
    }
    teardown();
}

static void test_bad_requests(void)
{
    setup(2, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "org", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "a", "org", "", "nvidia.com/gpu=8", ""), 0);
    pending("org", 0, "nvidia.com/gpu=4", 1, "0", 0); /* not a leaf */
    CU_ASSERT_EQUAL(search(), MUSTER_EINVAL);
    pending("a", 0, "nvidia.com/gpu=4", 0, "0", 0); /* no replicas */
    CU_ASSERT_EQUAL(search(), MUSTER_EINVAL);
    pending("a", 0, "nvidia.com/gpu=4", 1, "2", 0); /* cluster out of range */
    CU_ASSERT_EQUAL(search(), MUSTER_EINVAL);
    pending("a", 0, "nvidia.com/gpu=4", 1, "0", 0);
    w.per.items[0].milli = INT64_MAX / 2;
    w.replicas = 3;
    CU_ASSERT_EQUAL(search(), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(w.fits_calls, 0);
    CU_ASSERT_EQUAL(queue_reclaim_explain_victim(rc, t, 0, msg, sizeof(msg)), MUSTER_EINVAL);
    /* Shares are the caller's word: huge ones saturate rather than wrap. */
    CU_ASSERT_EQUAL(mkq(t, "b", "org", "", "", ""), 0);
    struct queue_entry *e = run(1, "b", 0, 1, "nvidia.com/gpu=4", 0, 1, 1, 1);
    struct queue_resvec huge = {0};
    vec_of(t, &huge, "nvidia.com/gpu=4");
    huge.items[0].milli = INT64_MAX - 1;
    struct queue_reclaim_share sh[2] = {{0, &huge}, {1, &huge}};
    CU_ASSERT_EQUAL(queue_reclaim_gang_set(t, e, 1, sh, 2), 0);
    queue_resvec_close(&huge);
    pending("a", 0, "nvidia.com/gpu=4", 1, "01", 0);
    CU_ASSERT_EQUAL(search(), 0);
    CU_ASSERT_EQUAL_FATAL(queue_reclaim_count(rc), 1);
    CU_ASSERT_EQUAL(queue_reclaim_victim(rc, 0)->freed[0], INT64_MAX);
    teardown();
}

/* Every allocation of a search failing in turn: either it fails before the dry run was ever
 * asked, or it gives the same answer. */
static void test_allocation_failures(void)
{
    setup(2, "nvidia.com/gpu=0");
    CU_ASSERT_EQUAL(mkq(t, "a", NULL, "", "nvidia.com/gpu=8", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "b", NULL, "", "", ""), 0);
    CU_ASSERT_EQUAL(mkq(t, "c", "", "", "", ""), 0);
    run(1, "b", 0, 1, "nvidia.com/gpu=4", 0, 1, 1, 1);
    run(2, "c", 0, 2, "nvidia.com/gpu=4", 1, 1, -1, 0);
    pending("a", 0, "nvidia.com/gpu=4", 2, "01", 1);
    int ok = 0;
    for (long k = 0; k < 200 && !ok; k++) {
        queue_reclaim_free(rc);
        rc = NULL;
        muster_mem_fail_after(k);
        rc = queue_reclaim_new();
        long calls = w.fits_calls;
        int r = rc ? search() : MUSTER_ENOMEM;
        muster_mem_fail_after(-1);
        if (r) {
            CU_ASSERT_EQUAL(r, MUSTER_ENOMEM);
            CU_ASSERT_EQUAL(w.fits_calls, calls);
            continue;
        }
        ok = 1;
        CU_ASSERT_EQUAL(queue_reclaim_count(rc), 1);
        CU_ASSERT_EQUAL(victim(0), 1);
    }
    CU_ASSERT(ok);
    if (!rc)
        rc = queue_reclaim_new();
    teardown();
}

static CU_TestInfo tests[] = {
    {"reclaims newest whole gangs in usable clusters", test_reclaims_newest_whole_gangs_in_usable_clusters},
    {"a lent guarantee comes back", test_lent_guarantee_comes_back},
    {"most over-share queue first", test_most_over_share_queue_first},
    {"lowest priority, then newest", test_lowest_priority_then_newest},
    {"the smallest set", test_smallest_set},
    {"other clusters do not count", test_other_clusters_do_not_count},
    {"many allowed clusters", test_many_allowed_clusters},
    {"nothing preempted in vain", test_nothing_preempted_in_vain},
    {"fits now: nothing needed", test_fits_now_needs_nothing},
    {"withinQueue: Never and LowerPriority", test_within_queue_priority},
    {"minRuntime", test_min_runtime},
    {"floors: deserved and guarantee", test_floors},
    {"cooling gangs and queues", test_cooling},
    {"hierarchy: every level below the common ancestor", test_hierarchy},
    {"index of running gangs", test_index_lifecycle},
    {"tree unchanged by a search", test_tree_unchanged},
    {"bad requests", test_bad_requests},
    {"allocation failures", test_allocation_failures},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/reclaim", tests)
