/* dispatcher/demo.c: the workload stream's close. musterd closes it at SIGTERM, when a create
 * it sent may still be on the wire; the generator must outlive that request's answer (its
 * callback counts the create in the generator). The hub runs in-process with a response
 * latency, so a request is surely in flight when the close comes. */
#include "cluster-adapters/kube/client.h"
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/hub.h"
#include "dispatcher/demo.h"
#include "testing.h"
#include "hub_testing.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct env {
    uv_loop_t loop;
    uv_timer_t wake;
    struct sim_hub *hub;
    struct kube_config kcfg;
    struct kube_client *kube;
    int kube_closed;
};

static void on_wake(uv_timer_t *h)
{
    (void)h;
}

/* Runs the loop until pred(e, arg) holds or ms pass; returns pred's last value. */
static int pump_until(struct env *e, int (*pred)(struct env *e, void *arg), void *arg, int ms)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (pred(e, arg))
            return 1;
        uv_run(&e->loop, UV_RUN_ONCE);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (el > ms)
            return pred(e, arg);
    }
}

static void env_start(struct env *e, unsigned latency_ms)
{
    memset(e, 0, sizeof(*e));
    signal(SIGPIPE, SIG_IGN);
    const char *src = getenv("MUSTER_SOURCE_DIR");
    char scenario[1024];
    snprintf(scenario, sizeof scenario, "%s/deploy/scenarios/demo.yaml", src ? src : ".");
    CU_ASSERT_EQUAL_FATAL(uv_loop_init(&e->loop), 0);
    uv_timer_init(&e->loop, &e->wake);
    uv_timer_start(&e->wake, on_wake, 5, 5);
    struct sim_hub_config hc = {
        .server = {.host = "127.0.0.1", .fault_latency_ms = latency_ms}, .scenario = scenario};
    test_hub_start(&e->loop, &hc, &e->hub);
    test_hub_kubeconfig(e->hub, "test", &e->kcfg);
    struct kube_client_opts ko = {.qps = -1};
    CU_ASSERT_EQUAL_FATAL(kube_client_new(&e->loop, &e->kcfg, &ko, &e->kube), 0);
}

static void env_stop(struct env *e)
{
    if (!e->kube_closed)
        kube_client_close(e->kube, NULL, NULL);
    sim_hub_shutdown(e->hub, NULL, NULL);
    uv_close((uv_handle_t *)&e->wake, NULL);
    uv_run(&e->loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&e->loop), 0);
    sim_hub_free(e->hub);
    kube_config_close(&e->kcfg);
}

static int on_the_wire(struct env *e, void *arg)
{
    (void)arg;
    struct kube_client_stats st;
    kube_client_stats(e->kube, &st);
    return st.inflight > 0;
}

/* What the client still held when the generator said it was done. */
struct done_seen {
    struct kube_client *kube; /* NULL: the client may be gone by then, do not look */
    int done;
    int inflight, queued;
};

static void gen_done(void *ud)
{
    struct done_seen *d = ud;
    d->done++;
    if (d->kube) {
        struct kube_client_stats st;
        kube_client_stats(d->kube, &st);
        d->inflight = (int)st.inflight;
        d->queued = (int)st.queued;
    }
}

static int done_set(struct env *e, void *arg)
{
    (void)e;
    return ((struct done_seen *)arg)->done != 0;
}

static int client_idle(struct env *e, void *arg)
{
    (void)arg;
    struct kube_client_stats st;
    kube_client_stats(e->kube, &st);
    return st.inflight == 0 && st.queued == 0;
}

/* The regression (ASan: heap-use-after-free in created_cb at musterd's SIGTERM): the generator
 * closed while its create waits for the hub's answer is freed only after that answer. */
static void test_close_waits_for_requests(void)
{
    struct env e;
    env_start(&e, 300);
    struct disp_demo_gen *g;
    struct disp_demo_gen_options o = {.rate = 20, .seed = 7};
    CU_ASSERT_EQUAL_FATAL(disp_demo_gen_start(&e.loop, e.kube, &o, &g), 0);
    CU_ASSERT_FATAL(pump_until(&e, on_the_wire, NULL, 5000));
    struct done_seen d = {.kube = e.kube};
    disp_demo_gen_close_then(g, gen_done, &d);
    /* the hub answers 300 ms later, with the client still open: a success, counted in g */
    CU_ASSERT_FATAL(pump_until(&e, done_set, &d, 5000));
    CU_ASSERT_EQUAL(d.done, 1);
    CU_ASSERT_EQUAL(d.inflight, 0);
    CU_ASSERT_EQUAL(d.queued, 0);
    CU_ASSERT(pump_until(&e, client_idle, NULL, 2000));
    env_stop(&e);
}

static void kube_closed(void *ud)
{
    *(int *)ud = 1;
}

static int both_done(struct env *e, void *arg)
{
    return e->kube_closed && ((struct done_seen *)arg)->done;
}

/* musterd's order: the generator closes, then the client, whose close cancels the create on the
 * wire; the generator is still freed (LeakSanitizer in the ASan build) and says so once. */
static void test_close_then_client_close(void)
{
    struct env e;
    env_start(&e, 300);
    struct disp_demo_gen *g;
    struct disp_demo_gen_options o = {.rate = 20, .seed = 7};
    CU_ASSERT_EQUAL_FATAL(disp_demo_gen_start(&e.loop, e.kube, &o, &g), 0);
    CU_ASSERT_FATAL(pump_until(&e, on_the_wire, NULL, 5000));
    struct done_seen d = {0};
    disp_demo_gen_close_then(g, gen_done, &d);
    kube_client_close(e.kube, kube_closed, &e.kube_closed);
    CU_ASSERT_FATAL(pump_until(&e, both_done, &d, 5000));
    CU_ASSERT_EQUAL(d.done, 1);
    env_stop(&e);
}

/* Nothing in flight: the generator goes as soon as its timer has closed. */
static void test_close_idle(void)
{
    struct env e;
    env_start(&e, 0);
    struct disp_demo_gen *g;
    struct disp_demo_gen_options o = {.rate = 1, .seed = 7};
    CU_ASSERT_EQUAL_FATAL(disp_demo_gen_start(&e.loop, e.kube, &o, &g), 0);
    struct done_seen d = {.kube = e.kube};
    disp_demo_gen_close_then(g, gen_done, &d);
    CU_ASSERT_FATAL(pump_until(&e, done_set, &d, 2000));
    CU_ASSERT_EQUAL(d.done, 1);
    CU_ASSERT_EQUAL(d.inflight, 0);
    env_stop(&e);
}

static CU_TestInfo tests[] = {
    {"close waits for the requests on the wire", test_close_waits_for_requests},
    {"close, then the client's close cancels them", test_close_then_client_close},
    {"close with nothing in flight", test_close_idle},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/demo", tests)
