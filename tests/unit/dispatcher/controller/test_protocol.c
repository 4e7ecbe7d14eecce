/* The commit protocol's step transitions, without a hub: which step follows which, for each
 * mode and kind, for a binding released mid-way, and for an undo. */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

static struct binding mk(enum bstate st, int assign, int needs_objects, enum step step)
{
    struct binding b;
    memset(&b, 0, sizeof b);
    b.st = st;
    b.assign = assign;
    b.needs_objects = needs_objects;
    b.step = step;
    b.key = "ns/rb"; /* the informers of an empty controller hold no RB under it */
    return b;
}

/* a controller whose informers hold nothing: a binding without its own RB tree reads none */
static struct ctl empty_ctl;

/* Walks the steps from b's current one until the protocol is over, as step_done does for a
 * binding whose every request succeeds and whose barrier check finds the Works ready. */
static int walk(struct binding *b, enum step *seen, int max)
{
    int n = 0;
    while (b->step != S_NONE && n < max) {
        seen[n++] = b->step;
        b->step = ctl__step_next(b);
    }
    return n;
}

static void test_forward_assign_with_objects(void)
{
    struct binding b = mk(B_ADMITTED, 1, 1, S_NONE);
    b.step = ctl__forward_first(&b);
    enum step seen[16];
    int n = walk(&b, seen, 16);
    static const enum step want[] = {S_OBJECTS, S_APPLIED, S_ASSIGN, S_BARRIER, S_LIFT, S_STATUS};
    CU_ASSERT_EQUAL_FATAL(n, 6);
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL(seen[i], want[i]);
}

static void test_forward_assign_without_objects(void)
{
    /* a Volcano Job: no Works of muster's, one patch places and lifts */
    struct binding b = mk(B_ADMITTED, 1, 0, S_NONE);
    b.step = ctl__forward_first(&b);
    CU_ASSERT_EQUAL(b.step, S_ASSIGN_LIFT);
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_STATUS);
    b.step = S_STATUS;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
}

static void test_forward_resume(void)
{
    /* another scheduler places it: muster only lifts the hold */
    struct binding b = mk(B_ADMITTED, 0, 1, S_NONE);
    b.step = ctl__forward_first(&b);
    CU_ASSERT_EQUAL(b.step, S_RESUME);
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
}

static void test_status_read_after_conflict(void)
{
    struct binding b = mk(B_DISPATCHED, 1, 1, S_STATUS_READ);
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_STATUS);
}

static void test_released_mid_forward(void)
{
    /* Finished or deleted while the forward steps ran: whatever step was acknowledged, the
     * next is deleting the Works it made, never the lift. */
    static const enum step fwd[] = {S_OBJECTS, S_APPLIED, S_ASSIGN, S_BARRIER};
    for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++) {
        struct binding b = mk(B_DONE, 1, 1, fwd[i]);
        CU_ASSERT_EQUAL(ctl__step_next(&b), S_R_WORKS);
        b.needs_objects = 0;
        CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
    }
    /* the status still goes to an RB that stays; the delete follows it */
    struct binding b = mk(B_DONE, 1, 1, S_STATUS);
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_R_WORKS);
    b = mk(B_DISPATCHED, 1, 1, S_STATUS);
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
    b = mk(B_DONE, 1, 1, S_R_WORKS);
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
}

static void test_undo(void)
{
    json_object *rb = json_tokener_parse("{\"spec\":{\"clusters\":[{\"name\":\"m1\","
                                         "\"replicas\":2}]}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    /* placed on the hub: barrier, clear, then muster's Works */
    struct binding b = mk(B_UNDO, 1, 1, S_NONE);
    b.rb = rb;
    b.step = ctl__undo_first(&empty_ctl, &b);
    enum step seen[16];
    int n = walk(&b, seen, 16);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(seen[0], S_U_BARRIER);
    CU_ASSERT_EQUAL(seen[1], S_U_CLEAR);
    CU_ASSERT_EQUAL(seen[2], S_U_DELETE);
    /* muster's shares known though the hub lists none: still the barrier first */
    struct share sh = {.cluster = "m1", .replicas = 2};
    b = mk(B_UNDO, 1, 1, S_NONE);
    b.shares = &sh;
    b.nshares = 1;
    CU_ASSERT_EQUAL(ctl__undo_first(&empty_ctl, &b), S_U_BARRIER);
    /* nothing placed anywhere: only the Works' deletes */
    b = mk(B_UNDO, 1, 1, S_NONE);
    CU_ASSERT_EQUAL(ctl__undo_first(&empty_ctl, &b), S_U_DELETE);
    b.step = S_U_DELETE;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
    /* no Works of muster's (a Volcano Job) or resume mode: one patch clears it */
    b = mk(B_UNDO, 1, 0, S_NONE);
    b.rb = rb;
    CU_ASSERT_EQUAL(ctl__undo_first(&empty_ctl, &b), S_U_CLEAR);
    b.step = S_U_CLEAR;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
    b = mk(B_UNDO, 0, 1, S_NONE);
    b.rb = rb;
    CU_ASSERT_EQUAL(ctl__undo_first(&empty_ctl, &b), S_U_CLEAR);
    b.step = S_U_CLEAR;
    CU_ASSERT_EQUAL(ctl__step_next(&b), S_NONE);
    json_object_put(rb);
}

static void test_every_walk_ends(void)
{
    /* From every step, in every mode and state, the protocol ends within a bounded number of
     * steps and never lifts a released binding. */
    static const enum bstate sts[] = {B_UNDO, B_ADMITTED, B_DISPATCHED, B_DONE};
    for (int s = 0; s <= S_RESIZE_DROP; s++)
        for (size_t k = 0; k < sizeof sts / sizeof sts[0]; k++)
            for (int mode = 0; mode < 4; mode++) {
                struct binding b = mk(sts[k], mode & 1, (mode >> 1) & 1, (enum step)s);
                enum step seen[32];
                int n = walk(&b, seen, 32);
                CU_ASSERT(n < 10);
                CU_ASSERT_EQUAL(b.step, S_NONE);
                for (int i = 1; sts[k] == B_DONE && i < n; i++)
                    CU_ASSERT(seen[i] != S_LIFT && seen[i] != S_ASSIGN_LIFT);
            }
}

static CU_TestInfo tests[] = {
    {"forward: assign mode with gang objects", test_forward_assign_with_objects},
    {"forward: assign mode without objects", test_forward_assign_without_objects},
    {"forward: resume mode", test_forward_resume},
    {"a 409 on the status read again", test_status_read_after_conflict},
    {"released mid-way: delete, never lift", test_released_mid_forward},
    {"undo", test_undo},
    {"every walk ends", test_every_walk_ends},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/protocol", tests)
