/* A dispatched gang that shrinks (dispatcher/controller/resize.c), without a hub: how a gang
 * read again is judged, which shares give up replicas, and the resize steps' order. */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

static struct queue_resnames *names;

static void vec(struct queue_resvec *v, int64_t cpu, int64_t mem)
{
    uint32_t c, m;
    queue_resvec_clear(v);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "cpu", 3, &c), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "memory", 6, &m), 0);
    if (cpu)
        queue_resvec_set(v, c, cpu);
    if (mem)
        queue_resvec_set(v, m, mem);
}

/* A one-component gang of r replicas of (cpu, mem) each. */
struct side {
    struct comp comp;
    struct queue_resvec gang;
    struct ctl_resize_side s;
};

static void side(struct side *x, int32_t r, int64_t cpu, int64_t mem)
{
    memset(x, 0, sizeof *x);
    vec(&x->comp.req, cpu, mem);
    x->comp.replicas = r;
    vec(&x->gang, cpu * r, mem * r);
    x->s = (struct ctl_resize_side){r, 1, &x->gang, &x->comp};
}

static void side_close(struct side *x)
{
    queue_resvec_close(&x->comp.req);
    queue_resvec_close(&x->gang);
}

static void test_judge(void)
{
    names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    struct side was, now;
    side(&was, 8, 1000, 2000);
    side(&now, 4, 1000, 2000);
    CU_ASSERT_EQUAL(ctl__resize_judge(&was.s, &now.s), RESIZE_SHRINK); /* fewer replicas */
    side_close(&now);
    side(&now, 8, 500, 2000);
    CU_ASSERT_EQUAL(ctl__resize_judge(&was.s, &now.s), RESIZE_SHRINK); /* smaller requests */
    side_close(&now);
    side(&now, 8, 1000, 2000);
    CU_ASSERT_EQUAL(ctl__resize_judge(&was.s, &now.s), RESIZE_SAME);
    side_close(&now);
    side(&now, 9, 1000, 2000);
    CU_ASSERT_EQUAL(ctl__resize_judge(&was.s, &now.s), RESIZE_GROW); /* scale up */
    side_close(&now);
    /* fewer replicas, but each asks more of one resource: a node may not hold it; growth */
    side(&now, 4, 3000, 1000);
    CU_ASSERT_EQUAL(ctl__resize_judge(&was.s, &now.s), RESIZE_GROW);
    side_close(&now);
    side(&now, 0, 1000, 2000);
    CU_ASSERT_EQUAL(ctl__resize_judge(&was.s, &now.s), RESIZE_ZERO);
    side_close(&now);
    side_close(&was);
    queue_resnames_free(names);
}

static void test_shares_shrink(void)
{
    /* spread over three clusters, the remainder last: the last-placed give up first */
    struct share sh[3];
    memset(sh, 0, sizeof sh);
    snprintf(sh[0].cluster, sizeof sh[0].cluster, "c1");
    snprintf(sh[1].cluster, sizeof sh[1].cluster, "c2");
    snprintf(sh[2].cluster, sizeof sh[2].cluster, "c3");
    sh[0].replicas = 4;
    sh[1].replicas = 4;
    sh[2].replicas = 1;
    CU_ASSERT_EQUAL(ctl__shares_shrink(sh, 3, 9), 3); /* nothing to give */
    CU_ASSERT_EQUAL(ctl__shares_shrink(sh, 3, 6), 2); /* c3 left, c2 gives 2 */
    CU_ASSERT_EQUAL(sh[0].replicas, 4);
    CU_ASSERT_EQUAL(sh[1].replicas, 2);
    CU_ASSERT_EQUAL(sh[2].replicas, 0);
    CU_ASSERT_EQUAL(ctl__shares_shrink(sh, 2, 1), 1); /* down to the first cluster */
    CU_ASSERT_EQUAL(sh[0].replicas, 1);
    CU_ASSERT_STRING_EQUAL(sh[0].cluster, "c1");
}

static void test_grow_delta(void)
{
    names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    uint32_t cpu, mem;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "cpu", 3, &cpu), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "memory", 6, &mem), 0);
    struct side was, now;
    struct queue_resvec d = {0};
    int32_t dr = -1;
    /* scale up from 4 to 7: the delta is 3 replicas' worth */
    side(&was, 4, 1000, 2000);
    side(&now, 7, 1000, 2000);
    CU_ASSERT_EQUAL(ctl__grow_delta(&was.s, &now.s, &d, &dr), 0);
    CU_ASSERT_EQUAL(dr, 3);
    CU_ASSERT_EQUAL(queue_resvec_get(&d, cpu), 3000);
    CU_ASSERT_EQUAL(queue_resvec_get(&d, mem), 6000);
    /* the gang's entry grown by the delta is exactly what it now asks for */
    struct queue_resvec sum = {0};
    CU_ASSERT_EQUAL(queue_resvec_copy(&sum, &was.gang), 0);
    CU_ASSERT_EQUAL(queue_resvec_add(&sum, &d), 0);
    CU_ASSERT_EQUAL(queue_resvec_cmp(&sum, &now.gang), 0);
    side_close(&now);
    /* fewer replicas, more cpu each: no replicas to add, the cpu grows, the memory that shrank
     * is not a negative delta (the entry is grown by no more than what the delta admitted) */
    side(&now, 2, 3000, 1000);
    CU_ASSERT_EQUAL(ctl__grow_delta(&was.s, &now.s, &d, &dr), 0);
    CU_ASSERT_EQUAL(dr, 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&d, cpu), 2000);
    CU_ASSERT_EQUAL(queue_resvec_get(&d, mem), 0);
    CU_ASSERT_FALSE(queue_resvec_any_negative(&d));
    side_close(&now);
    /* the same gang: nothing to admit */
    side(&now, 4, 1000, 2000);
    CU_ASSERT_EQUAL(ctl__grow_delta(&was.s, &now.s, &d, &dr), 0);
    CU_ASSERT_EQUAL(dr, 0);
    CU_ASSERT_EQUAL(d.len, 0);
    side_close(&now);

    /* an elastic gang at its minimum: min-member x the per-replica request */
    struct queue_resvec at = {0};
    CU_ASSERT_EQUAL(ctl__gang_at(&was.comp, 1, 2, &at), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&at, cpu), 2000);
    CU_ASSERT_EQUAL(queue_resvec_get(&at, mem), 4000);
    CU_ASSERT_EQUAL(ctl__gang_at(&was.comp, 1, 4, &at), 0);
    CU_ASSERT_EQUAL(queue_resvec_cmp(&at, &was.gang), 0);
    CU_ASSERT_EQUAL(ctl__gang_at(&was.comp, 1, 5, &at), MUSTER_EINVAL); /* above the gang */
    CU_ASSERT_EQUAL(ctl__gang_at(&was.comp, 2, 2, &at), MUSTER_EINVAL); /* several components */
    CU_ASSERT_EQUAL(at.len, 0);
    struct comp big = {.replicas = 4};
    CU_ASSERT_EQUAL(queue_resvec_set(&big.req, cpu, INT64_MAX / 2), 0);
    CU_ASSERT_EQUAL(ctl__gang_at(&big, 1, 3, &at), MUSTER_ERANGE);
    queue_resvec_close(&big.req);
    queue_resvec_close(&at);
    queue_resvec_close(&sum);
    queue_resvec_close(&d);
    side_close(&was);
    queue_resnames_free(names);
}

static void share_set(struct share *s, const char *cluster, int32_t r)
{
    memset(s, 0, sizeof *s);
    snprintf(s->cluster, sizeof s->cluster, "%s", cluster);
    s->replicas = r;
}

static void test_shares_grow(void)
{
    struct share sh[4];
    uint32_t n = 2;
    share_set(&sh[0], "c1", 4);
    share_set(&sh[1], "c2", 2);
    /* c9 has the most room, but the gang's own clusters come first, in their order */
    struct ctl_grow_room room[] = {{"c9", 10}, {"c2", 1}, {"c1", 2}, {"c3", 5}};
    CU_ASSERT_EQUAL(ctl__shares_grow(sh, &n, 4, room, 4, 3), 0);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(sh[0].replicas, 6);
    CU_ASSERT_EQUAL(sh[1].replicas, 3);
    /* the gang's clusters are full: a new share in room's order (the allowed clusters) */
    room[1].fits = room[2].fits = 0;
    CU_ASSERT_EQUAL(ctl__shares_grow(sh, &n, 4, room, 4, 12), 0);
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_STRING_EQUAL(sh[2].cluster, "c9");
    CU_ASSERT_EQUAL(sh[2].replicas, 10);
    CU_ASSERT_STRING_EQUAL(sh[3].cluster, "c3");
    CU_ASSERT_EQUAL(sh[3].replicas, 2);
    /* does not fit: the shares are left as they were, the shortfall said */
    struct share before[4];
    memcpy(before, sh, sizeof sh);
    n = 2;
    CU_ASSERT_EQUAL(ctl__shares_grow(sh, &n, 4, room, 4, 20), 5);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(memcmp(before, sh, sizeof sh), 0);
    /* no room for another share: what the gang's clusters and the capacity allow only */
    n = 2;
    CU_ASSERT_EQUAL(ctl__shares_grow(sh, &n, 3, room, 4, 12), 2);
    CU_ASSERT_EQUAL(n, 2);
    /* a cluster not in room (not allowed any more) takes nothing */
    struct ctl_grow_room only[] = {{"c3", 1}};
    n = 2;
    CU_ASSERT_EQUAL(ctl__shares_grow(sh, &n, 4, only, 1, 1), 0);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(sh[0].replicas, 6);
    CU_ASSERT_STRING_EQUAL(sh[2].cluster, "c3");
    CU_ASSERT_EQUAL(sh[2].replicas, 1);
}

static void test_grow_wait_message(void)
{
    char m[128];
    ctl__grow_wait_message(m, sizeof m, 4,
                           "queue research/nlp: nvidia.com/gpu 60 of 64 in use, needs 8");
    CU_ASSERT_STRING_EQUAL(m, "scale up by 4 replicas waits: queue research/nlp: nvidia.com/gpu "
                              "60 of 64 in use, needs 8");
    ctl__grow_wait_message(m, sizeof m, 1, "no cluster fits");
    CU_ASSERT_STRING_EQUAL(m, "scale up by 1 replica waits: no cluster fits");
}

static struct binding mk(enum bstate st, int needs_objects, uint32_t ndropped)
{
    struct binding b;
    memset(&b, 0, sizeof b);
    b.st = st;
    b.assign = 1;
    b.needs_objects = needs_objects;
    static struct ctl_act act; /* one binding at a time: each mk starts it afresh */
    memset(&act, 0, sizeof act);
    act.ndropped = ndropped;
    b.act = &act;
    return b;
}

static void test_steps(void)
{
    /* the PodGroups shrink first, then spec.clusters, then the Works of clusters left */
    struct binding b = mk(B_RUNNING, 1, 1);
    b.step = S_RESIZE_WORKS;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_RESIZE_CLUSTERS);
    b.step = S_RESIZE_CLUSTERS;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_RESIZE_DROP);
    b.step = S_RESIZE_DROP;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
    /* no cluster left: over after spec.clusters */
    b = mk(B_DISPATCHED, 1, 0);
    b.step = S_RESIZE_CLUSTERS;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
    /* a Volcano Job: spec.clusters only, no Works of muster's */
    b = mk(B_DISPATCHED, 0, 0);
    b.step = S_RESIZE_CLUSTERS;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
    /* released mid-way (finished, its RB went): its Works go, nothing more is resized */
    b = mk(B_DONE, 1, 1);
    b.step = S_RESIZE_WORKS;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_R_WORKS);
    b.step = S_RESIZE_CLUSTERS;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_R_WORKS);
}

static void test_reconcile_finishes_a_resize(void)
{
    /* the ledger says the smaller gang, the hub still the larger one: the resize steps run,
     * not a readmit (which would raise the barrier over running shares) */
    struct ctl_recon_facts f = {.st = B_RUNNING,
                                .assign = 1,
                                .scheduling = 0,
                                .nclusters = 2,
                                .whole = 0,
                                .scheduled_true = 1,
                                .resize_due = 1};
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_RESIZE);
    f.st = B_DISPATCHED;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_RESIZE);
    f.resize_due = 0;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_READMIT);
    f.rb_gone = 1, f.resize_due = 1;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_RELEASE);
}

/* After muster's own spec.clusters rewrite of a shrunk gang, an RB cached from before it (a
 * PodGroup Work's event may ask for a look first) is muster's old placement, not someone
 * else's change: only an RB at or after the rewrite's answer is judged. */
static void test_rb_older_than_resize(void)
{
    static struct ctl c0; /* b holds its RB: nothing is read from the informers */
    struct binding b;
    struct ctl_act act = {0};
    memset(&b, 0, sizeof b);
    b.act = &act;
    b.rb = json_tokener_parse("{\"metadata\":{\"resourceVersion\":\"41\"}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b.rb);
    CU_ASSERT_FALSE(ctl__rb_older_than_resize(&c0, &b)); /* no rewrite yet */
    act.resize_rv = 42;
    CU_ASSERT_TRUE(ctl__rb_older_than_resize(&c0, &b));
    act.resize_rv = 41;
    CU_ASSERT_FALSE(ctl__rb_older_than_resize(&c0, &b)); /* the rewrite's own answer */
    act.resize_rv = 40;
    CU_ASSERT_FALSE(ctl__rb_older_than_resize(&c0, &b));
    json_object_put(b.rb);
    b.rb = json_tokener_parse("{\"metadata\":{}}");
    act.resize_rv = 42;
    CU_ASSERT_FALSE(ctl__rb_older_than_resize(&c0, &b)); /* no version: judged */
    json_object_put(b.rb);
}

/* An RB change met while a step or a ledger write was out is judged once both are over; the
 * ledger write's commit must count too (a dispatched gang's RB may not change again, and its
 * waiting delta is not offered until the change is judged). */
static void test_reread_owed(void)
{
    struct binding b;
    memset(&b, 0, sizeof b);
    b.st = B_RUNNING;
    CU_ASSERT_FALSE(ctl__reread_owed(&b)); /* nothing put off: no ctl_act read as zero */
    struct ctl_act act = {0};
    b.act = &act;
    act.reread_due = 1;
    b.lw_pending = 1;
    CU_ASSERT_FALSE(ctl__reread_owed(&b)); /* the write is still out */
    b.lw_pending = 0;
    CU_ASSERT_TRUE(ctl__reread_owed(&b));
    b.step = S_STATUS;
    CU_ASSERT_FALSE(ctl__reread_owed(&b));
    b.step = S_NONE, b.inflight = 1;
    CU_ASSERT_FALSE(ctl__reread_owed(&b));
    b.inflight = 0, b.st = B_DISPATCHED;
    CU_ASSERT_TRUE(ctl__reread_owed(&b));
    b.st = B_ADMITTED;
    CU_ASSERT_FALSE(ctl__reread_owed(&b)); /* not yet dispatched: read as admitted */
    b.st = B_RUNNING, b.gone = 1;
    CU_ASSERT_FALSE(ctl__reread_owed(&b));
}

/* A group-size gang (issue 20) grows by whole groups: 16 more pods in groups of 8 where its
 * cluster has room for 13 and another for 21 go 8 + 8, not 13 + 3 (a group cut in two). */
static void test_shares_grow_whole_groups(void)
{
    struct share sh[3];
    uint32_t n = 1;
    share_set(&sh[0], "c1", 8);
    struct ctl_grow_room room[] = {{"c1", 13}, {"c2", 21}, {"c3", 7}};
    ctl__grow_rooms_whole(room, 3, 8);
    CU_ASSERT_EQUAL(room[0].fits, 8);
    CU_ASSERT_EQUAL(room[1].fits, 16);
    CU_ASSERT_EQUAL(room[2].fits, 0); /* less than a group: none */
    CU_ASSERT_EQUAL(ctl__shares_grow(sh, &n, 3, room, 3, 16), 0);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(sh[0].replicas, 16);
    CU_ASSERT_STRING_EQUAL(sh[1].cluster, "c2");
    CU_ASSERT_EQUAL(sh[1].replicas, 8);
    for (uint32_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL(sh[i].replicas % 8, 0);
    /* 3 groups more do not fit in whole groups (8 + 8 + 0 of room left after the above) */
    CU_ASSERT_EQUAL(ctl__shares_grow(sh, &n, 3, room, 3, 32), 8);
    struct ctl_grow_room one[] = {{"c1", 5}};
    ctl__grow_rooms_whole(one, 1, 1); /* groups of one pod: unchanged */
    CU_ASSERT_EQUAL(one[0].fits, 5);
}

/* A group-size gang (issue 20) shrinks by whole groups, freeing whole clusters first. */
static void test_shares_shrink_groups(void)
{
    struct share sh[3];
    /* 4 groups of 4 as 2 + 2, scaled to 12: no share is small enough to go whole; the last
     * placed gives up a group (2 + 1) */
    share_set(&sh[0], "c1", 8);
    share_set(&sh[1], "c2", 8);
    CU_ASSERT_EQUAL(ctl__shares_shrink_groups(sh, 2, 12, 4), 2);
    CU_ASSERT_EQUAL(sh[0].replicas, 8);
    CU_ASSERT_EQUAL(sh[1].replicas, 4);
    CU_ASSERT_EQUAL(ctl__shares_shrink_groups(sh, 2, 12, 4), 2); /* nothing to give */
    /* then to 4: c2's group goes whole, then one of c1's (not 0 + 4 + ... a cut) */
    CU_ASSERT_EQUAL(ctl__shares_shrink_groups(sh, 2, 4, 4), 1);
    CU_ASSERT_STRING_EQUAL(sh[0].cluster, "c1");
    CU_ASSERT_EQUAL(sh[0].replicas, 4);
    CU_ASSERT_EQUAL(sh[1].replicas, 0);
    /* 1 + 2 groups scaled to 2 groups: the first cluster's single group frees it whole, where
     * the last-placed-first order would keep both clusters (4 + 4) */
    share_set(&sh[0], "c1", 4);
    share_set(&sh[1], "c2", 8);
    CU_ASSERT_EQUAL(ctl__shares_shrink_groups(sh, 2, 8, 4), 1);
    CU_ASSERT_STRING_EQUAL(sh[0].cluster, "c2");
    CU_ASSERT_EQUAL(sh[0].replicas, 8);
    CU_ASSERT_STRING_EQUAL(sh[1].cluster, "c1");
    CU_ASSERT_EQUAL(sh[1].replicas, 0);
    /* 1 + 1 + 2 groups to 2: both single groups go (the smallest first), one cluster left */
    share_set(&sh[0], "c1", 4);
    share_set(&sh[1], "c2", 4);
    share_set(&sh[2], "c3", 8);
    CU_ASSERT_EQUAL(ctl__shares_shrink_groups(sh, 3, 8, 4), 1);
    CU_ASSERT_STRING_EQUAL(sh[0].cluster, "c3");
    CU_ASSERT_EQUAL(sh[0].replicas, 8);
    CU_ASSERT_STRING_EQUAL(sh[1].cluster, "c1");
    CU_ASSERT_STRING_EQUAL(sh[2].cluster, "c2");
    /* 3 + 1 groups to 2: the single group goes whole, then one of the three */
    share_set(&sh[0], "c1", 12);
    share_set(&sh[1], "c2", 4);
    CU_ASSERT_EQUAL(ctl__shares_shrink_groups(sh, 2, 8, 4), 1);
    CU_ASSERT_STRING_EQUAL(sh[0].cluster, "c1");
    CU_ASSERT_EQUAL(sh[0].replicas, 8);
    /* shares that are not whole groups (or a size that is not): the plain order */
    share_set(&sh[0], "c1", 4);
    share_set(&sh[1], "c2", 6);
    CU_ASSERT_EQUAL(ctl__shares_shrink_groups(sh, 2, 8, 4), 2);
    CU_ASSERT_EQUAL(sh[0].replicas, 4);
    CU_ASSERT_EQUAL(sh[1].replicas, 4);
    share_set(&sh[0], "c1", 4);
    share_set(&sh[1], "c2", 8);
    CU_ASSERT_EQUAL(ctl__shares_shrink_groups(sh, 2, 10, 4), 2);
    CU_ASSERT_EQUAL(sh[0].replicas, 4);
    CU_ASSERT_EQUAL(sh[1].replicas, 6);
}

static CU_TestInfo tests[] = {
    {"growth in whole groups", test_shares_grow_whole_groups},
    {"a gang read again: same, shrunk, grown, zero", test_judge},
    {"the last-placed shares give up first", test_shares_shrink},
    {"a gang of groups shrinks by whole groups", test_shares_shrink_groups},
    {"growth: the delta's request, an elastic gang's minimum", test_grow_delta},
    {"growth: the gang's own clusters first, then the others allowed", test_shares_grow},
    {"growth: why a delta waits", test_grow_wait_message},
    {"resize steps", test_steps},
    {"start-up finishes a half-done resize", test_reconcile_finishes_a_resize},
    {"an RB older than muster's own shrink is not someone else's change", test_rb_older_than_resize},
    {"an RB change put off is judged once the step and the write are over", test_reread_owed},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/resize", tests)
