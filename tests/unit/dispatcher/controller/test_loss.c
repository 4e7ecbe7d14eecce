/* A cluster lost under a dispatched gang, without a hub: the judgment of a cluster's state
 * against the grace period, NoExecute taints and Karmada's evictions, and the decision of the
 * queue's onClusterLoss (docs/dispatcher.md, "A cluster lost"). */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

#define MINUTE (60 * 1000)

/* A Ready cluster, nothing tainted or evicted, the default grace of 5 minutes. */
static struct ctl_loss_facts healthy(void)
{
    return (struct ctl_loss_facts){.ready = 1, .grace_ms = 5 * MINUTE, .now = 100 * MINUTE};
}

static void test_not_ready_past_the_grace_period(void)
{
    struct ctl_loss_facts f = healthy();
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NONE);
    f.ready = 0;
    f.not_ready_since = f.now - 5 * MINUTE + 1; /* one ms short of the grace */
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NONE);
    f.not_ready_since = f.now - 5 * MINUTE;
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NOT_READY);
    f.grace_ms = 2000; /* --cluster-lost-grace=2s */
    f.not_ready_since = f.now - 1999;
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NONE);
    f.not_ready_since = f.now - 2000;
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NOT_READY);
    f.not_ready_since = 0; /* not known: never judged lost by time */
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NONE);
    f = healthy();
    f.not_ready_since = f.now - 60 * MINUTE; /* Ready again: the old transition means nothing */
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NONE);
}

static void test_no_execute_taints(void)
{
    struct ctl_loss_facts f = healthy();
    f.noexec = 1;
    f.noexec_until = 0; /* not tolerated at all: lost at once, Ready or not */
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NO_EXECUTE);
    f.noexec_until = f.now + 30000; /* tolerationSeconds still running */
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NONE);
    f.now += 30000;
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NO_EXECUTE);
    f.noexec = 0; /* tolerated for ever: no NoExecute loss whatever the time */
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NONE);
}

static void test_eviction_comes_first(void)
{
    struct ctl_loss_facts f = healthy();
    f.evicted = 1;
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_EVICTED);
    f.ready = 0;
    f.not_ready_since = f.now - 10 * MINUTE;
    f.noexec = 1;
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_EVICTED);
    f.evicted = 0; /* a NoExecute taint is named before the NotReady under it */
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NO_EXECUTE);
    f.noexec = 0;
    CU_ASSERT_EQUAL(ctl__cluster_lost(&f), CTL_LOSS_NOT_READY);
}

static void test_policy_decides(void)
{
    CU_ASSERT_EQUAL(ctl__loss_decide(QUEUE_ON_LOSS_REQUEUE, 1, 1), CTL_LOSS_REQUEUE);
    CU_ASSERT_EQUAL(ctl__loss_decide(QUEUE_ON_LOSS_REQUEUE, 1, 0), CTL_LOSS_REQUEUE);
    CU_ASSERT_EQUAL(ctl__loss_decide(QUEUE_ON_LOSS_REPLACE, 1, 1), CTL_LOSS_REPLACE);
    /* nowhere to go: requeued as Requeue would */
    CU_ASSERT_EQUAL(ctl__loss_decide(QUEUE_ON_LOSS_REPLACE, 1, 0), CTL_LOSS_REQUEUE);
    /* resume mode: Karmada's scheduler places it, muster cannot place a share */
    CU_ASSERT_EQUAL(ctl__loss_decide(QUEUE_ON_LOSS_REPLACE, 0, 1), CTL_LOSS_REQUEUE);
}

static void test_texts(void)
{
    char buf[32];
    ctl__duration_text(5 * MINUTE, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "5m0s");
    ctl__duration_text(2400, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "2s");
    ctl__duration_text(3723000, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1h2m3s");
    ctl__duration_text(-5, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "0s");
    CU_ASSERT_STRING_EQUAL(ctl__loss_trigger_name(CTL_LOSS_NOT_READY), "NotReady");
    CU_ASSERT_STRING_EQUAL(ctl__loss_trigger_name(CTL_LOSS_NO_EXECUTE), "NoExecute");
    CU_ASSERT_STRING_EQUAL(ctl__loss_trigger_name(CTL_LOSS_EVICTED), "Evicted");
}

/* After a Replace rewrote spec.clusters of a lifted RB, a cached RB from before (lifted too) is
 * not judged until the watch shows the RB placed as the shares say. */
static void test_rb_behind_until_the_watch_catches_up(void)
{
    struct share sh[2] = {{.cluster = "east", .replicas = 4}, {.cluster = "north", .replicas = 2}};
    struct binding b;
    memset(&b, 0, sizeof b);
    b.shares = sh;
    b.nshares = 2;
    b.rb_behind = 1;
    b.rb = json_tokener_parse("{\"spec\":{\"clusters\":[{\"name\":\"east\",\"replicas\":4},"
                              "{\"name\":\"west\",\"replicas\":2}]}}");
    ctl__loss_rb_seen(&b); /* from before the Replace: west was lost */
    CU_ASSERT_EQUAL(b.rb_behind, 1);
    json_object_put(b.rb);
    b.rb = json_tokener_parse("{\"spec\":{\"clusters\":[{\"name\":\"east\",\"replicas\":4},"
                              "{\"name\":\"north\",\"replicas\":1}]}}");
    ctl__loss_rb_seen(&b); /* replicas differ */
    CU_ASSERT_EQUAL(b.rb_behind, 1);
    json_object_put(b.rb);
    b.rb = json_tokener_parse("{\"spec\":{\"clusters\":[{\"name\":\"north\",\"replicas\":2},"
                              "{\"name\":\"east\",\"replicas\":4}]}}");
    ctl__loss_rb_seen(&b); /* the Replace's placement, in any order */
    CU_ASSERT_EQUAL(b.rb_behind, 0);
    json_object_put(b.rb);
}

static CU_TestInfo tests[] = {
    {"NotReady is lost past the grace period", test_not_ready_past_the_grace_period},
    {"NoExecute taints: untolerated, timed, for ever", test_no_execute_taints},
    {"Karmada's eviction, then NoExecute, then NotReady", test_eviction_comes_first},
    {"onClusterLoss decides: Requeue, Replace if placed", test_policy_decides},
    {"durations and trigger names", test_texts},
    {"a replaced RB is judged once the watch shows it", test_rb_behind_until_the_watch_catches_up},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/loss", tests)
