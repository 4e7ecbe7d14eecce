/* Which bindings let their trees go once a loop iteration's events are over (cool.c): one that
 * only waits both, a running or finished gang its RB (session 15), one in play or with
 * anything in flight neither (a running one is looked at again until it is idle), and a running
 * one not before muster has reconciled with the hub.
 * The controller here is empty: its informers hold nothing, so a tree let go reads back NULL. */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

#include <json-c/json.h>
#include <string.h>

static struct ctl c;

static void mk(struct binding *b, enum bstate st)
{
    memset(b, 0, sizeof *b);
    b->st = st;
    b->key = "ns/rb";
    b->rb = json_object_new_object();
    b->tmpl = json_object_new_object();
    ctl__cool_later(&c, b);
}

static void drop(struct binding *b)
{
    json_object_put(b->rb);
    json_object_put(b->tmpl);
    b->rb = b->tmpl = NULL;
}

static void test_who_lets_go(void)
{
    c.reconciled = 1;
    struct binding pend, run, done, disp, busy, unwritten, gone;
    mk(&pend, B_PENDING);
    mk(&run, B_RUNNING);
    mk(&done, B_DONE);
    mk(&disp, B_DISPATCHED);
    mk(&busy, B_RUNNING);
    busy.inflight = 1; /* a request of its own in flight: judged against the RB it was sent for */
    mk(&unwritten, B_RUNNING);
    unwritten.lw_pending = 1;
    mk(&gone, B_RUNNING);
    gone.gone = 1;
    CU_ASSERT_EQUAL(c.cool.n, 7);
    ctl__cool_run(&c);
    /* a running gang whose request or row is on its way stays on the list (nothing else brings
     * it back once its last RB event is past); every other one leaves it */
    CU_ASSERT_EQUAL(c.cool.n, 2);
    CU_ASSERT_PTR_NULL(pend.rb);
    CU_ASSERT_PTR_NULL(pend.tmpl);
    CU_ASSERT_PTR_NULL(run.rb);
    CU_ASSERT_PTR_NOT_NULL(run.tmpl); /* the template it was decided on stays */
    CU_ASSERT_PTR_NULL(done.rb);
    CU_ASSERT_PTR_NOT_NULL(done.tmpl);
    CU_ASSERT_PTR_NOT_NULL(disp.rb); /* still starting: in play */
    CU_ASSERT_PTR_NOT_NULL(busy.rb);
    CU_ASSERT_PTR_NOT_NULL(unwritten.rb);
    CU_ASSERT_PTR_NOT_NULL(gone.rb);
    /* read again from the informer, which holds none here */
    CU_ASSERT_PTR_NULL(ctl__rb(&c, &run));
    CU_ASSERT_PTR_NULL(ctl__rb_of(&c, &done));
    /* ... and lets go once its request is answered and its row written */
    busy.inflight = 0;
    unwritten.lw_pending = 0;
    ctl__cool_run(&c);
    CU_ASSERT_PTR_NULL(busy.rb);
    CU_ASSERT_PTR_NULL(unwritten.rb);
    CU_ASSERT_EQUAL(c.cool.n, 0);
    struct binding *all[] = {&pend, &run, &done, &disp, &busy, &unwritten, &gone};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        drop(all[i]);
}

/* Until reconciled, reconcile.c judges each binding by the RB it holds against its row: a
 * running one keeps it (a waiting one still lets go: it is read through ctl__rb there). */
static void test_not_before_reconciled(void)
{
    c.reconciled = 0;
    struct binding run, pend;
    mk(&run, B_RUNNING);
    mk(&pend, B_PENDING);
    ctl__cool_run(&c);
    CU_ASSERT_PTR_NOT_NULL(run.rb);
    CU_ASSERT_PTR_NULL(pend.rb);
    c.reconciled = 1;
    ctl__cool_later(&c, &run);
    ctl__cool_run(&c);
    CU_ASSERT_PTR_NULL(run.rb);
    drop(&run);
    drop(&pend);
    muster_free(c.cool.v);
    c.cool.v = NULL;
    c.cool.cap = 0;
}

static CU_TestInfo tests[] = {
    {"who lets its trees go", test_who_lets_go},
    {"a running gang keeps its RB until reconciled", test_not_before_reconciled},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/cool", tests)
