/* Gang dialects without a hub (dispatcher/controller/dialects.c): a cluster's dialect is the
 * operator's override when the store holds one, else the one detected from its
 * status.apiEnablements; the overrides are read again from the store, and a member that comes to
 * speak none (or one again) changes where gangs may go. End to end: integration/dispatch_dialects
 * and dispatch_prereq. */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

static void fleet(struct ctl *c, struct store *s, FILE *log)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->log = log;
    c->fleet.epoch = 1;
    for (int a = 0; a < CTL_HUB_APIS; a++)
        c->pre.hub_api[a] = -1; /* as ctl_new: the hub not asked yet */
    c->fleet.capcl = c->fleet.ncl = 3;
    c->fleet.cl = muster_calloc(3, sizeof(*c->fleet.cl));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->fleet.cl);
    const char *names[] = {"east", "west", "south"};
    enum karmada_gang_dialect d[] = {KARMADA_GANG_DIALECT_VOLCANO,
                                     KARMADA_GANG_DIALECT_COSCHEDULING, KARMADA_GANG_DIALECT_NONE};
    for (int i = 0; i < 3; i++) {
        snprintf(c->fleet.cl[i].name, sizeof c->fleet.cl[i].name, "%s", names[i]);
        c->fleet.cl[i].dialect_detected = d[i];
        ctl__cluster_dialect_apply(c, &c->fleet.cl[i]);
    }
}

static void test_override_and_detection(void)
{
    struct store *s = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(store_open(":memory:", NULL, &s, err, sizeof err), 0);
    FILE *log = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    struct ctl c;
    fleet(&c, s, log);
    int over = -1;
    CU_ASSERT_EQUAL(ctl__cluster_dialect(&c, "west", &over), KARMADA_GANG_DIALECT_COSCHEDULING);
    CU_ASSERT_EQUAL(over, 0);
    CU_ASSERT_EQUAL(ctl__cluster_dialect(&c, "nowhere", &over), KARMADA_GANG_DIALECT_VOLCANO);
    /* south detected as none: gangs that need a member-side gang are kept out */
    CU_ASSERT_EQUAL(c.fleet.cl[2].no_podgroups, 1);
    CU_ASSERT_EQUAL(c.fleet.cl[0].no_podgroups + c.fleet.cl[1].no_podgroups, 0);
    CU_ASSERT_TRUE(ctl__cluster_lacks(&c.fleet.cl[2], 1));
    /* the hub answers that it lacks scheduler-plugins' CRD: west's PodGroup Works could never
     * be applied (Karmada maps them with the hub's RESTMapper), so west is as good as none;
     * east (Volcano: judged for every gang at once, cycle.c) is not touched */
    c.pre.hub_api[CTL_HUB_COSCHEDULING] = 0;
    ctl__cluster_dialect_apply(&c, &c.fleet.cl[1]);
    ctl__cluster_dialect_apply(&c, &c.fleet.cl[0]);
    CU_ASSERT_EQUAL(c.fleet.cl[1].no_podgroups, 1);
    CU_ASSERT_EQUAL(c.fleet.cl[0].no_podgroups, 0);
    CU_ASSERT_FALSE(
        ctl__hub_serves(&c, KARMADA_GANG_DIALECT_COSCHEDULING, KARMADA_GANG_WL_V1BETA1));
    CU_ASSERT_EQUAL(ctl__hub_api_of(KARMADA_GANG_DIALECT_WORKLOAD_API, KARMADA_GANG_WL_V1ALPHA2),
                    CTL_HUB_WL_V1ALPHA2);
    CU_ASSERT_EQUAL(ctl__hub_api_of(KARMADA_GANG_DIALECT_YUNIKORN, KARMADA_GANG_WL_V1BETA1),
                    CTL_HUB_APIS);
    c.pre.hub_api[CTL_HUB_COSCHEDULING] = 1;
    ctl__cluster_dialect_apply(&c, &c.fleet.cl[1]);
    CU_ASSERT_EQUAL(c.fleet.cl[1].no_podgroups, 0);

    /* the operator: south is YuniKorn, east none */
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "south", "yunikorn", 1), 0);
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "east", "none", 1), 0);
    uint64_t epoch = c.fleet.epoch;
    CU_ASSERT_EQUAL(ctl__dialects_refresh(&c), 0);
    CU_ASSERT_EQUAL(ctl__cluster_dialect(&c, "south", &over), KARMADA_GANG_DIALECT_YUNIKORN);
    CU_ASSERT_EQUAL(over, 1);
    CU_ASSERT_EQUAL(ctl__cluster_dialect(&c, "east", &over), KARMADA_GANG_DIALECT_NONE);
    CU_ASSERT_EQUAL(over, 1);
    CU_ASSERT_EQUAL(c.fleet.cl[0].no_podgroups, 1);
    CU_ASSERT_EQUAL(c.fleet.cl[2].no_podgroups, 0);
    CU_ASSERT_TRUE(c.fleet.epoch > epoch); /* where gangs may go changed */
    /* an override outlives a new detection: east's apiEnablements still show Volcano */
    c.fleet.cl[0].dialect_detected = KARMADA_GANG_DIALECT_VOLCANO;
    CU_ASSERT_EQUAL(ctl__cluster_dialect_apply(&c, &c.fleet.cl[0]), KARMADA_GANG_DIALECT_NONE);
    /* an override for a cluster not (yet) in the fleet holds when it comes */
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "north", "coscheduling", 2), 0);
    CU_ASSERT_EQUAL(ctl__dialects_refresh(&c), 0);
    CU_ASSERT_EQUAL(ctl__cluster_dialect(&c, "north", &over), KARMADA_GANG_DIALECT_COSCHEDULING);
    CU_ASSERT_EQUAL(over, 1);

    /* cleared: detected again, and nothing changes when nothing did */
    CU_ASSERT_EQUAL(store_cluster_dialect_put(s, "east", NULL, 3), 0);
    CU_ASSERT_EQUAL(ctl__dialects_refresh(&c), 0);
    CU_ASSERT_EQUAL(ctl__cluster_dialect(&c, "east", &over), KARMADA_GANG_DIALECT_VOLCANO);
    CU_ASSERT_EQUAL(over, 0);
    CU_ASSERT_EQUAL(c.fleet.cl[0].no_podgroups, 0);
    epoch = c.fleet.epoch;
    CU_ASSERT_EQUAL(ctl__dialects_refresh(&c), 0);
    CU_ASSERT_EQUAL(c.fleet.epoch, epoch);
    CU_ASSERT_EQUAL(c.ndov, 2);

    /* a store that fails keeps the overrides read last */
    store_close(s);
    c.s = NULL;
    CU_ASSERT_NOT_EQUAL(ctl__dialects_refresh(&c), 0);
    CU_ASSERT_EQUAL(ctl__cluster_dialect(&c, "south", &over), KARMADA_GANG_DIALECT_YUNIKORN);
    muster_free(c.dov);
    muster_free(c.fleet.cl);
    fclose(log);
}

static CU_TestInfo tests[] = {
    {"override over detection, read again from the store", test_override_and_detection},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/dialects", tests)
