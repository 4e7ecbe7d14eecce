/* Tests for dispatcher/metrics.c: the exposition text of counters, gauges and histograms exactly,
 * label escaping, cumulative buckets ending in +Inf = count, the series cap and its counter,
 * forgetting a cluster, the NULL registry, and allocation failures. */
#include "dispatcher/metrics.h"

#include "queue/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <math.h>
#include <string.h>

/* The registry's whole page, owned by the caller. */
static char *render(const struct disp_metrics *m)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    CU_ASSERT_EQUAL(disp_metrics_render(m, &buf, &len, &cap), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    CU_ASSERT_EQUAL(strlen(buf), len);
    return buf;
}

static void contains(const char *text, const char *want)
{
    int ok = strstr(text, want) != NULL;
    if (!ok)
        fprintf(stderr, "\nmissing:\n%s\n", want);
    CU_ASSERT(ok);
}

static void lacks(const char *text, const char *unwanted)
{
    CU_ASSERT_PTR_NULL(strstr(text, unwanted));
}

static void test_counters_and_gauges_exact(void)
{
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    disp_metrics_admission(m, "team-a");
    disp_metrics_admission(m, "team-a");
    disp_metrics_admission(m, "team-b");
    disp_metrics_rollback(m, "gang-timeout");
    disp_metrics_requeue(m);
    disp_metrics_requeue(m);
    disp_metrics_ledger_commit(m);
    disp_metrics_ledger_commit(m);
    disp_metrics_ledger_commit(m);
    disp_metrics_cluster_capacity(m, "member1", "cpu", 64000);
    disp_metrics_cluster_capacity(m, "member1", "memory", 1073741824LL * 1000);
    disp_metrics_cluster_capacity(m, "member1", "cpu", 62500); /* replaces */
    disp_metrics_cluster_reserved(m, "member1", "nvidia.com/gpu", 8000);
    char *t = render(m);
    contains(t, "# HELP muster_admissions_total Workloads admitted by the dispatch cycle, by "
                "leaf queue.\n"
                "# TYPE muster_admissions_total counter\n"
                "muster_admissions_total{queue=\"team-a\"} 2\n"
                "muster_admissions_total{queue=\"team-b\"} 1\n"
                "# HELP muster_rollbacks_total Dispatched gangs rolled back from every cluster, "
                "by reason.\n"
                "# TYPE muster_rollbacks_total counter\n"
                "muster_rollbacks_total{reason=\"gang-timeout\"} 1\n"
                "# HELP muster_requeues_total Rolled-back workloads put back in their queue with "
                "back-off.\n"
                "# TYPE muster_requeues_total counter\n"
                "muster_requeues_total 2\n"
                "# HELP muster_releases_total ");
    contains(t, "# TYPE muster_cluster_capacity gauge\n"
                "muster_cluster_capacity{cluster=\"member1\",resource=\"cpu\"} 62.5\n"
                "muster_cluster_capacity{cluster=\"member1\",resource=\"memory\"} 1073741824\n"
                "# HELP muster_cluster_reserved ");
    contains(t, "muster_cluster_reserved{cluster=\"member1\",resource=\"nvidia.com/gpu\"} 8\n");
    /* A family with no series yet still declares itself; unlabelled counters show 0. */
    contains(t, "# TYPE muster_watch_restarts_total counter\n# HELP ");
    contains(t, "\nmuster_metrics_dropped_series_total 0\n");
    contains(t, "# TYPE muster_ledger_commits_total counter\nmuster_ledger_commits_total 3\n");
    CU_ASSERT_EQUAL(t[strlen(t) - 1], '\n');
    muster_free(t);

    /* Appending: what the buffer held stays in front. */
    char *buf = muster_strdup("# queue gauges\n");
    size_t len = strlen(buf), cap = len + 1;
    CU_ASSERT_EQUAL(disp_metrics_render(m, &buf, &len, &cap), 0);
    CU_ASSERT_EQUAL(strncmp(buf, "# queue gauges\n# HELP muster_admissions_total", 45), 0);
    CU_ASSERT_EQUAL(strlen(buf), len);
    muster_free(buf);
    disp_metrics_free(m);
}

static void test_hub_requests(void)
{
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    disp_metrics_hub_request(m, "patch", 200);
    disp_metrics_hub_request(m, "patch", 200);
    disp_metrics_hub_request(m, "patch", 409); /* an answer, not an error */
    disp_metrics_hub_request(m, "create", 0);  /* no response */
    disp_metrics_hub_request(m, "get", 503);
    disp_metrics_hub_request(m, "get", 404);
    disp_metrics_hub_request(m, "watch", 7); /* nonsense code reads as no response */
    disp_metrics_watch_restart(m, "resourcebindings");
    char *t = render(m);
    contains(t, "# TYPE muster_hub_requests_total counter\n"
                "muster_hub_requests_total{verb=\"patch\",code=\"200\"} 2\n"
                "muster_hub_requests_total{verb=\"patch\",code=\"409\"} 1\n"
                "muster_hub_requests_total{verb=\"create\",code=\"0\"} 1\n"
                "muster_hub_requests_total{verb=\"get\",code=\"503\"} 1\n"
                "muster_hub_requests_total{verb=\"get\",code=\"404\"} 1\n"
                "muster_hub_requests_total{verb=\"watch\",code=\"0\"} 1\n");
    contains(t, "# TYPE muster_hub_request_errors_total counter\n"
                "muster_hub_request_errors_total{verb=\"create\"} 1\n"
                "muster_hub_request_errors_total{verb=\"get\"} 1\n"
                "muster_hub_request_errors_total{verb=\"watch\"} 1\n# HELP ");
    lacks(t, "muster_hub_request_errors_total{verb=\"patch\"}");
    contains(t, "muster_watch_restarts_total{resource=\"resourcebindings\"} 1\n");
    muster_free(t);
    disp_metrics_free(m);
}

static void test_label_escaping(void)
{
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    disp_metrics_release(m, "a \"quoted\" back\\slash\nnewline");
    char *t = render(m);
    contains(t, "muster_releases_total{reason=\"a \\\"quoted\\\" back\\\\slash\\nnewline\"} 1\n");
    muster_free(t);
    disp_metrics_free(m);

    struct disp_metrics_text x = {0};
    disp_metrics_text_label(&x, "q\"\\\n");
    CU_ASSERT_STRING_EQUAL(x.p, "q\\\"\\\\\\n");
    muster_free(x.p);
}

static void test_histogram_buckets(void)
{
    size_t n;
    const double *b = disp_metrics_buckets(&n);
    CU_ASSERT_EQUAL(n, 18);
    CU_ASSERT_DOUBLE_EQUAL(b[0], 0.001, 0);
    CU_ASSERT_DOUBLE_EQUAL(b[n - 1], 600, 0);
    for (size_t i = 1; i < n; i++)
        CU_ASSERT(b[i] > b[i - 1]);

    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    disp_metrics_cycle(m, 0.0005); /* le 0.001 */
    disp_metrics_cycle(m, 0.001);  /* on the bound: le 0.001 too */
    disp_metrics_cycle(m, 0.003);  /* le 0.005 */
    disp_metrics_cycle(m, 2);      /* le 2.5 */
    disp_metrics_cycle(m, 900);    /* above the last bound: only +Inf */
    disp_metrics_cycle(m, NAN);    /* ignored */
    char *t = render(m);
    contains(t, "# HELP muster_cycle_duration_seconds Duration of one dispatch cycle.\n"
                "# TYPE muster_cycle_duration_seconds histogram\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.001\"} 2\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.0025\"} 2\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.005\"} 3\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.01\"} 3\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.025\"} 3\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.05\"} 3\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.1\"} 3\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.25\"} 3\n"
                "muster_cycle_duration_seconds_bucket{le=\"0.5\"} 3\n"
                "muster_cycle_duration_seconds_bucket{le=\"1\"} 3\n"
                "muster_cycle_duration_seconds_bucket{le=\"2.5\"} 4\n"
                "muster_cycle_duration_seconds_bucket{le=\"5\"} 4\n"
                "muster_cycle_duration_seconds_bucket{le=\"10\"} 4\n"
                "muster_cycle_duration_seconds_bucket{le=\"30\"} 4\n"
                "muster_cycle_duration_seconds_bucket{le=\"60\"} 4\n"
                "muster_cycle_duration_seconds_bucket{le=\"120\"} 4\n"
                "muster_cycle_duration_seconds_bucket{le=\"300\"} 4\n"
                "muster_cycle_duration_seconds_bucket{le=\"600\"} 4\n"
                "muster_cycle_duration_seconds_bucket{le=\"+Inf\"} 5\n"
                "muster_cycle_duration_seconds_sum 902.0045\n"
                "muster_cycle_duration_seconds_count 5\n");
    /* The other histograms are there, empty. */
    contains(t, "muster_admission_wait_seconds_bucket{le=\"+Inf\"} 0\n"
                "muster_admission_wait_seconds_sum 0\n"
                "muster_admission_wait_seconds_count 0\n");
    muster_free(t);

    disp_metrics_admission_wait(m, 12.5);
    disp_metrics_dispatch_latency(m, 0.02);
    t = render(m);
    contains(t, "muster_admission_wait_seconds_bucket{le=\"10\"} 0\n"
                "muster_admission_wait_seconds_bucket{le=\"30\"} 1\n");
    contains(t, "muster_dispatch_latency_seconds_bucket{le=\"0.025\"} 1\n");
    contains(t, "muster_dispatch_latency_seconds_sum 0.02\n");
    muster_free(t);
    disp_metrics_free(m);
}

static void test_text_double(void)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {{0.1, "0.1"},        {1.0 / 3, "0.3333333333333333"},
                 {600, "600"},        {1e21, "1e+21"},
                 {-2.5, "-2.5"},      {INFINITY, "+Inf"},
                 {-INFINITY, "-Inf"}, {NAN, "NaN"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct disp_metrics_text x = {0};
        disp_metrics_text_double(&x, cases[i].v);
        CU_ASSERT_STRING_EQUAL(x.p, cases[i].want);
        muster_free(x.p);
    }
}

static void test_series_cap(void)
{
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    char q[32];
    for (int i = 0; i < DISP_METRICS_SERIES_MAX + 10; i++) {
        snprintf(q, sizeof(q), "q%d", i);
        disp_metrics_admission(m, q);
    }
    /* Existing series still count at the cap; only new ones are refused. */
    disp_metrics_admission(m, "q0");
    char big[DISP_METRICS_LABEL_MAX + 2];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    disp_metrics_rollback(m, big); /* too long: dropped, not cut */
    char *t = render(m);
    contains(t, "muster_admissions_total{queue=\"q0\"} 2\n");
    snprintf(q, sizeof(q), "{queue=\"q%d\"} 1\n", DISP_METRICS_SERIES_MAX - 1);
    contains(t, q);
    snprintf(q, sizeof(q), "{queue=\"q%d\"}", DISP_METRICS_SERIES_MAX);
    lacks(t, q);
    contains(t, "\nmuster_metrics_dropped_series_total 11\n");
    lacks(t, "muster_rollbacks_total{");
    muster_free(t);
    disp_metrics_free(m);
}

static void test_cluster_forget(void)
{
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const char *clusters[] = {"member1", "member2", "member3"};
    for (int c = 0; c < 3; c++) {
        disp_metrics_cluster_capacity(m, clusters[c], "cpu", 1000 * (c + 1));
        disp_metrics_cluster_reserved(m, clusters[c], "cpu", 500);
    }
    disp_metrics_cluster_forget(m, "member2");
    disp_metrics_cluster_forget(m, "no-such-cluster");
    /* The index still finds the survivors after the compaction. */
    disp_metrics_cluster_capacity(m, "member3", "cpu", 9000);
    char *t = render(m);
    lacks(t, "member2");
    contains(t, "muster_cluster_capacity{cluster=\"member1\",resource=\"cpu\"} 1\n"
                "muster_cluster_capacity{cluster=\"member3\",resource=\"cpu\"} 9\n"
                "# HELP muster_cluster_reserved");
    contains(t, "muster_cluster_reserved{cluster=\"member1\",resource=\"cpu\"} 0.5\n"
                "muster_cluster_reserved{cluster=\"member3\",resource=\"cpu\"} 0.5\n");
    muster_free(t);
    disp_metrics_free(m);
}

static void test_null_registry_and_allocation_failure(void)
{
    /* Every update is a no-op without a registry; rendering none appends nothing. */
    disp_metrics_admission(NULL, "a");
    disp_metrics_requeue(NULL);
    disp_metrics_cycle(NULL, 1);
    disp_metrics_hub_request(NULL, "get", 200);
    disp_metrics_cluster_capacity(NULL, "c", "cpu", 1);
    disp_metrics_cluster_forget(NULL, "c");
    disp_metrics_free(NULL);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    CU_ASSERT_EQUAL(disp_metrics_render(NULL, &buf, &len, &cap), 0);
    CU_ASSERT_EQUAL(len, 0);
    muster_free(buf);

    /* A series that cannot be allocated is counted as dropped, and the registry goes on. */
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    muster_mem_fail_after(0);
    disp_metrics_admission(m, "a");
    muster_mem_fail_after(-1);
    disp_metrics_admission(m, "b");
    /* A page that cannot grow is an error, and the buffer is still the caller's to free. */
    muster_mem_fail_after(0);
    buf = NULL, len = 0, cap = 0;
    CU_ASSERT_EQUAL(disp_metrics_render(m, &buf, &len, &cap), MUSTER_ENOMEM);
    muster_mem_fail_after(-1);
    muster_free(buf);
    char *t = render(m);
    contains(t, "muster_admissions_total{queue=\"b\"} 1\n");
    lacks(t, "queue=\"a\"");
    contains(t, "\nmuster_metrics_dropped_series_total 1\n");
    muster_free(t);
    disp_metrics_free(m);
    muster_mem_reset();
}

static void leader_read(void *ud, struct disp_metrics_leader *out)
{
    *out = *(const struct disp_metrics_leader *)ud;
}

/* The leader election's families come from the source at every render, after the rest. */
static void test_leader_source(void)
{
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    char *t = render(m);
    lacks(t, "muster_leader_");
    muster_free(t);
    struct disp_metrics_leader l = {.is_leader = 0,
                                    .attempts = 7,
                                    .writes = 5,
                                    .conflicts = 1,
                                    .failures = 2,
                                    .transitions = 0,
                                    .follower_reloads = 3};
    disp_metrics_leader_source(m, leader_read, &l);
    t = render(m);
    contains(t, "# HELP muster_leader_is_leader ");
    contains(t, "\n# TYPE muster_leader_is_leader gauge\nmuster_leader_is_leader 0\n");
    contains(t, "# TYPE muster_leader_attempts_total counter\nmuster_leader_attempts_total 7\n");
    contains(t, "# TYPE muster_leader_writes_total counter\nmuster_leader_writes_total 5\n");
    contains(t, "# TYPE muster_leader_conflicts_total counter\nmuster_leader_conflicts_total 1\n");
    contains(t, "# TYPE muster_leader_failures_total counter\nmuster_leader_failures_total 2\n");
    contains(t, "# TYPE muster_leader_transitions_total counter\n"
                "muster_leader_transitions_total 0\n");
    contains(t, "# TYPE muster_follower_reloads_total counter\n"
                "muster_follower_reloads_total 3\n");
    CU_ASSERT(strstr(t, "muster_metrics_dropped_series_total") < strstr(t, "muster_leader_"));
    muster_free(t);
    l.is_leader = 1;
    l.transitions = 1;
    t = render(m);
    contains(t, "\nmuster_leader_is_leader 1\n");
    contains(t, "\nmuster_leader_transitions_total 1\n");
    muster_free(t);
    disp_metrics_leader_source(NULL, leader_read, &l); /* a NULL registry: nothing */
    disp_metrics_free(m);
}

/* Tenancy's gauges: counted from zero each time, bounded, the rest summed under "_other". */
static void test_namespace_gauges(void)
{
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    disp_metrics_namespace_add(m, "nlp", "team-a", 1);
    disp_metrics_namespace_add(m, "nlp", "team-a", 1);
    disp_metrics_namespace_add(m, "nlp", "team-b", 0);
    char *t = render(m);
    contains(t, "muster_namespace_gangs{queue=\"nlp\",namespace=\"team-a\"} 2\n");
    contains(t, "muster_namespace_pending{queue=\"nlp\",namespace=\"team-b\"} 1\n");
    muster_free(t);
    disp_metrics_namespaces_reset(m); /* a new count: what left is gone */
    disp_metrics_namespace_add(m, "nlp", "team-b", 1);
    t = render(m);
    lacks(t, "team-a");
    contains(t, "muster_namespace_gangs{queue=\"nlp\",namespace=\"team-b\"} 1\n");
    muster_free(t);
    disp_metrics_namespaces_reset(m);
    char ns[32];
    for (int i = 0; i < DISP_METRICS_NS_SERIES_MAX + 5; i++) {
        snprintf(ns, sizeof ns, "ns%d", i);
        disp_metrics_namespace_add(m, "q", ns, 1);
    }
    disp_metrics_namespace_add(m, "q", "ns0", 1); /* an existing series still counts */
    t = render(m);
    contains(t, "muster_namespace_gangs{queue=\"q\",namespace=\"ns0\"} 2\n");
    snprintf(ns, sizeof ns, "namespace=\"ns%d\"} 1\n", DISP_METRICS_NS_SERIES_MAX - 2);
    contains(t, ns);
    snprintf(ns, sizeof ns, "namespace=\"ns%d\"}", DISP_METRICS_NS_SERIES_MAX - 1);
    lacks(t, ns);
    contains(t, "muster_namespace_gangs{queue=\"_other\",namespace=\"_other\"} 6\n");
    contains(t, "\nmuster_metrics_dropped_series_total 0\n");
    muster_free(t);
    disp_metrics_free(m);
}

/* The heap's split: what is in use grows by what is allocated and held, and both gauges are
 * on the page with their TYPE lines. */
static long heap_gauge(const char *text, const char *name)
{
    const char *p = strstr(text, name);
    while (p && p[strlen(name)] != ' ')
        p = strstr(p + 1, name);
    return p ? strtol(p + strlen(name) + 1, NULL, 10) : -1;
}

static void test_heap_gauges(void)
{
    struct disp_metrics *m = disp_metrics_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    char *t = render(m);
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
    /* malloc is not glibc's (AddressSanitizer's): no figures rather than wrong ones */
    CU_ASSERT_PTR_NULL(strstr(t, "muster_heap_"));
    muster_free(t);
    disp_metrics_free(m);
    return;
#endif
    contains(t, "# TYPE muster_heap_in_use_bytes gauge\n");
    contains(t, "# TYPE muster_heap_free_bytes gauge\n");
    long used = heap_gauge(t, "\nmuster_heap_in_use_bytes"),
         free0 = heap_gauge(t, "\nmuster_heap_free_bytes");
    CU_ASSERT(used > 0);
    CU_ASSERT(free0 >= 0);
    muster_free(t);
    void *held = malloc(256 << 10); /* under the mmap threshold: from the heap */
    CU_ASSERT_PTR_NOT_NULL_FATAL(held);
    memset(held, 1, 256 << 10);
    t = render(m);
    CU_ASSERT(heap_gauge(t, "\nmuster_heap_in_use_bytes") >= used + (256 << 10));
    muster_free(t);
    free(held);
    disp_metrics_free(m);
}

static CU_TestInfo tests[] = {
    {"the heap's in-use and free gauges", test_heap_gauges},
    {"leader election source", test_leader_source},
    {"counters and gauges, exact text", test_counters_and_gauges_exact},
    {"hub requests by verb and code, errors", test_hub_requests},
    {"label values escaped", test_label_escaping},
    {"histogram buckets cumulative, +Inf = count", test_histogram_buckets},
    {"float values: shortest round trip, Inf, NaN", test_text_double},
    {"series cap and the dropped counter", test_series_cap},
    {"forgetting a cluster", test_cluster_forget},
    {"per-namespace gauges: reset, bounded, _other", test_namespace_gauges},
    {"NULL registry, allocation failures", test_null_registry_and_allocation_failure},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/metrics", tests)
