/* Start-up reconciliation's decisions, without a hub: what a live ledger row becomes from what
 * the hub shows (docs/dispatcher.md, "Crash recovery"). */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

/* A pending row whose RB is held and carries nothing of a dispatch. */
static struct ctl_recon_facts pending_clean(void)
{
    return (struct ctl_recon_facts){
        .st = B_PENDING, .assign = 1, .scheduling = 1, .now = 1000, .queued = 1};
}

/* A dispatched row whose RB carries its whole placement, released, with Scheduled=True. */
static struct ctl_recon_facts dispatched_whole(void)
{
    return (struct ctl_recon_facts){.st = B_DISPATCHED,
                                    .assign = 1,
                                    .scheduling = 0,
                                    .nclusters = 2,
                                    .now = 1000,
                                    .whole = 1,
                                    .scheduled_true = 1};
}

static void test_rb_gone_releases_whatever_the_state(void)
{
    static const enum bstate sts[] = {B_PENDING, B_ADMITTED, B_DISPATCHED, B_RUNNING};
    for (size_t i = 0; i < sizeof sts / sizeof sts[0]; i++) {
        struct ctl_recon_facts f = dispatched_whole();
        f.st = sts[i];
        f.rb_gone = 1;
        CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_RELEASE);
    }
}

static void test_pending(void)
{
    struct ctl_recon_facts f = pending_clean();
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_WAIT);
    f.queued = 0; /* its queue was gone at the start-up load */
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_QUEUE);
    f = pending_clean();
    f.not_before = 5000; /* rolled back, in back-off */
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_BACKOFF);
    f = pending_clean();
    f.unreadable = 1;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_PARK);
}

static void test_pending_with_traces_of_a_dispatch(void)
{
    /* a crash mid-rollback: still held, but muster's Works exist */
    struct ctl_recon_facts f = pending_clean();
    f.has_objects = 1;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_UNDO);
    /* held, with clusters written: undone */
    f = pending_clean();
    f.nclusters = 1;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_UNDO);
    /* resume mode: Karmada's clusters on a held RB are not muster's to undo */
    f.assign = 0;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_WAIT);
    /* released with clusters and no back-off: another replica dispatched it; adopted */
    f = pending_clean();
    f.scheduling = 0;
    f.nclusters = 2;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_ADOPT);
    /* the same after a rollback of ours (a back-off): undone, not adopted */
    f.not_before = 500;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_UNDO);
    /* released without clusters: undone (held again) */
    f = pending_clean();
    f.scheduling = 0;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_UNDO);
}

static void test_admitted_resumes(void)
{
    struct ctl_recon_facts f = dispatched_whole();
    f.st = B_ADMITTED;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_FORWARD);
    f.unreadable = 1; /* the decision stands: the protocol finishes or rolls back */
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_FORWARD);
}

static void test_dispatched(void)
{
    struct ctl_recon_facts f = dispatched_whole();
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_FOLLOW);
    f.st = B_RUNNING;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_FOLLOW);
    f.scheduled_true = 0; /* the crash came before the last step */
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_STATUS);
    f.assign = 0; /* resume mode: the Karmada scheduler writes Scheduled */
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_FOLLOW);
    f = dispatched_whole();
    f.whole = 0; /* the hub lost part of the placement (or it is held again) */
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_READMIT);
}

/* A cluster lost (docs/dispatcher.md, "A cluster lost"), musterd killed after the decision was
 * committed and before the hub heard of it. Requeue: the rolledback and pending rows are in,
 * the hub still carries the lifted placement. The pending row is due at once (not_before is the
 * loss's time, no back-off) but not 0: the dispatch is undone, not adopted as another replica's.
 * Replace: the row is admitted again with the new placement over the old, lifted one: the
 * protocol resumes from what the hub shows (forward_resume). */
static void test_half_done_loss(void)
{
    struct ctl_recon_facts f = pending_clean();
    f.scheduling = 0;
    f.nclusters = 1;
    f.has_objects = 1;
    f.not_before = f.now - 5; /* the loss's time: due */
    f.queued = 0;
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_UNDO);
    f.not_before = 0; /* a row never rolled back, over a lifted placement: another replica's */
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_ADOPT);
    f = dispatched_whole();
    f.st = B_ADMITTED;
    f.whole = 0; /* lifted, but placed as before the loss, not as the row says */
    CU_ASSERT_EQUAL(ctl__reconcile_decide(&f), RECON_FORWARD);
}

static CU_TestInfo tests[] = {
    {"an RB gone releases, whatever the row says", test_rb_gone_releases_whatever_the_state},
    {"pending rows", test_pending},
    {"pending rows with traces of a dispatch", test_pending_with_traces_of_a_dispatch},
    {"admitted rows resume the protocol", test_admitted_resumes},
    {"dispatched and running rows", test_dispatched},
    {"a cluster lost, half done: Requeue undone, Replace resumed", test_half_done_loss},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/reconcile", tests)
