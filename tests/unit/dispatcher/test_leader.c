/* Tests for dispatcher/leader.c against an embedded muster-sim hub on the test's loop, with short
 * durations (lease 1 s, renew deadline 0.6 s, retry 0.2 s): one elector acquires and renews; of
 * two, exactly one leads and never both at once; a leader whose client dies steps down by its
 * renew deadline and the other takes over after the lease expires, never overlapping; a release
 * hands over at once; a 409 (on create and on update) is not leadership. Every test ends with the
 * loop closing with no live handle. */
#include "cluster-adapters/kube/client.h"
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/hub.h"
#include "dispatcher/leader.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"
#include "testing.h"
#include "hub_testing.h"

#include <signal.h>
#include <string.h>
#include <time.h>

#define LEASE_MS 1000
#define RENEW_MS 600
#define RETRY_MS 200
#define SLOP_MS 300 /* loop and scheduling jitter allowed on a busy machine */
#define LEASE_PATH "/apis/coordination.k8s.io/v1/namespaces/muster-system/leases/musterd"

struct cand {
    const char *id;
    struct kube_client *kc;
    struct disp_leader *el;
    int leading, starts, stops;
    uint64_t started_at, stopped_at;
    int client_closed, el_closed;
};

struct env {
    uv_loop_t loop;
    uv_timer_t tick;
    struct sim_hub *hub;
    struct kube_config cfg[2]; /* one per candidate, so one can be cut off */
    char *saved_server;        /* candidate 0's real server while it is cut off */
    char scenario[512];
    struct cand c[2];
    int overlap; /* both led at once at some tick */
    int hub_done;
};

static struct env *cur;
static const char *access_log; /* the next env_start's hub logs every request here */

static void on_started(void *ud)
{
    struct cand *c = ud;
    CU_ASSERT_FALSE(c->leading);
    c->leading = 1;
    c->starts++;
    c->started_at = uv_now(&cur->loop);
    if (cur->c[0].leading && cur->c[1].leading)
        cur->overlap = 1;
}

static void on_stopped(void *ud)
{
    struct cand *c = ud;
    CU_ASSERT_TRUE(c->leading);
    c->leading = 0;
    c->stops++;
    c->stopped_at = uv_now(&cur->loop);
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
}

static void env_start(struct env *e, unsigned latency_ms)
{
    memset(e, 0, sizeof(*e));
    cur = e;
    signal(SIGPIPE, SIG_IGN);
    test_tmp_path(e->scenario, sizeof(e->scenario), "leader-scenario.yaml");
    FILE *f = fopen(e->scenario, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("objects:\n  - {apiVersion: v1, kind: Namespace, metadata: {name: muster-system}}\n", f);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(uv_loop_init(&e->loop), 0);
    uv_timer_init(&e->loop, &e->tick);
    struct sim_hub_config hc = {
        .server = {.host = "127.0.0.1", .fault_latency_ms = latency_ms, .access_log = access_log},
        .scenario = e->scenario};
    test_hub_start(&e->loop, &hc, &e->hub);
    for (int i = 0; i < 2; i++)
        test_hub_kubeconfig(e->hub, "leader-test", &e->cfg[i]);
    char err[512] = "";
    static const char *const ids[2] = {"musterd-a_1", "musterd-b_2"};
    for (int i = 0; i < 2; i++) {
        struct cand *c = &e->c[i];
        c->id = ids[i];
        CU_ASSERT_EQUAL_FATAL(kube_client_new(&e->loop, &e->cfg[i], NULL, &c->kc), 0);
        struct disp_leader_options o = {.identity = c->id,
                                        .lease_duration_ms = LEASE_MS,
                                        .renew_deadline_ms = RENEW_MS,
                                        .retry_period_ms = RETRY_MS,
                                        .on_started_leading = on_started,
                                        .on_stopped_leading = on_stopped,
                                        .ud = c};
        CU_ASSERT_EQUAL_FATAL(disp_leader_new(&e->loop, c->kc, &o, &c->el, err, sizeof(err)), 0);
    }
}

/* Runs the loop until pred holds or timeout_ms pass; checks for overlap at every wake-up. */
static int run_until(struct env *e, int (*pred)(struct env *e), uint64_t timeout_ms)
{
    uv_update_time(&e->loop);
    uint64_t end = uv_now(&e->loop) + timeout_ms;
    while (!(pred && pred(e)) && uv_now(&e->loop) < end) {
        uv_timer_start(&e->tick, on_tick, 10, 0);
        uv_run(&e->loop, UV_RUN_ONCE);
        if (e->c[0].leading && e->c[1].leading)
            e->overlap = 1;
    }
    return pred ? pred(e) : 1;
}

static void on_el_closed(void *ud)
{
    ((struct cand *)ud)->el_closed = 1;
}

static void on_kc_closed(void *ud)
{
    ((struct cand *)ud)->client_closed = 1;
}

static void on_hub_done(void *ud)
{
    ((struct env *)ud)->hub_done = 1;
}

static void env_stop(struct env *e)
{
    for (int i = 0; i < 2; i++) {
        struct cand *c = &e->c[i];
        if (c->el && !c->el_closed)
            disp_leader_close(c->el, on_el_closed, c);
        if (c->kc && !c->client_closed)
            kube_client_close(c->kc, on_kc_closed, c);
    }
    sim_hub_shutdown(e->hub, on_hub_done, e);
    uv_close((uv_handle_t *)&e->tick, NULL);
    uv_run(&e->loop, UV_RUN_DEFAULT);
    CU_ASSERT(e->c[0].el_closed && e->c[1].el_closed && e->hub_done);
    CU_ASSERT_EQUAL(uv_loop_close(&e->loop), 0); /* no live handle */
    sim_hub_free(e->hub);
    if (e->saved_server) {
        muster_free(e->cfg[0].server);
        e->cfg[0].server = e->saved_server;
    }
    kube_config_close(&e->cfg[0]);
    kube_config_close(&e->cfg[1]);
    remove(e->scenario);
    cur = NULL;
}

/* ---- reading the lease through a third client ---- */

struct got {
    int done, err;
    json_object *body;
};

static void on_got(int err, const struct kube_response *resp, void *ud)
{
    struct got *g = ud;
    g->done = 1;
    g->err = err;
    g->body = resp->body ? json_object_get(resp->body) : NULL;
}

static struct got *pending_got;
static int got_done(struct env *e)
{
    (void)e;
    return pending_got->done;
}

/* GET or write the lease with candidate c's client; returns the object (caller puts it). */
static json_object *lease_call(struct env *e, struct cand *c, enum kube_verb verb, const char *body,
                               int *err)
{
    struct got g = {0};
    struct kube_request r = {.verb = verb,
                             .path = verb == KUBE_CREATE
                                         ? "/apis/coordination.k8s.io/v1/namespaces/"
                                           "muster-system/leases"
                                         : LEASE_PATH,
                             .body = body};
    CU_ASSERT_EQUAL_FATAL(kube_request(c->kc, &r, on_got, &g), 0);
    pending_got = &g;
    run_until(e, got_done, 5000);
    CU_ASSERT_FATAL(g.done);
    *err = g.err;
    return g.body;
}

static const char *spec_str(json_object *lease, const char *k)
{
    json_object *s = NULL, *v = NULL;
    if (!json_object_object_get_ex(lease, "spec", &s) || !json_object_object_get_ex(s, k, &v))
        return NULL;
    return json_object_get_string(v);
}

static int64_t spec_int(json_object *lease, const char *k)
{
    json_object *s = NULL, *v = NULL;
    if (!json_object_object_get_ex(lease, "spec", &s) || !json_object_object_get_ex(s, k, &v))
        return -1;
    return json_object_get_int64(v);
}

/* ---- predicates ---- */

static int a_leads(struct env *e)
{
    return e->c[0].leading;
}

static int b_leads(struct env *e)
{
    return e->c[1].leading;
}

static int someone_leads(struct env *e)
{
    return e->c[0].leading || e->c[1].leading;
}

static int a_stopped(struct env *e)
{
    return e->c[0].stops > 0;
}

/* ---- tests ---- */

static void test_one_acquires(void)
{
    char log[512];
    test_tmp_path(log, sizeof(log), "leader-access.log");
    remove(log);
    access_log = log;
    struct env e;
    env_start(&e, 0);
    access_log = NULL;
    CU_ASSERT_EQUAL(disp_leader_start(e.c[0].el), 0);
    CU_ASSERT_EQUAL(disp_leader_start(e.c[0].el), MUSTER_EINVAL);
    CU_ASSERT_FATAL(run_until(&e, a_leads, 2000));
    CU_ASSERT_TRUE(disp_leader_is_leader(e.c[0].el));
    CU_ASSERT_STRING_EQUAL(disp_leader_holder(e.c[0].el), "musterd-a_1");
    int err;
    json_object *l1 = lease_call(&e, &e.c[1], KUBE_GET, NULL, &err);
    CU_ASSERT_EQUAL(err, 0);
    CU_ASSERT_STRING_EQUAL(spec_str(l1, "holderIdentity"), "musterd-a_1");
    CU_ASSERT_EQUAL(spec_int(l1, "leaseDurationSeconds"), 1);
    CU_ASSERT_EQUAL(spec_int(l1, "leaseTransitions"), 0);
    const char *acq = spec_str(l1, "acquireTime");
    CU_ASSERT(acq && strlen(acq) == 27 && acq[26] == 'Z' && acq[19] == '.'); /* MicroTime */
    /* It keeps leading and renews: renewTime moves, acquireTime stays, one start. */
    run_until(&e, NULL, 3 * LEASE_MS);
    CU_ASSERT_TRUE(e.c[0].leading);
    CU_ASSERT_EQUAL(e.c[0].starts, 1);
    CU_ASSERT_EQUAL(e.c[0].stops, 0);
    json_object *l2 = lease_call(&e, &e.c[1], KUBE_GET, NULL, &err);
    CU_ASSERT_STRING_EQUAL(spec_str(l2, "acquireTime"), spec_str(l1, "acquireTime"));
    CU_ASSERT_STRING_NOT_EQUAL(spec_str(l2, "renewTime"), spec_str(l1, "renewTime"));
    struct disp_leader_stats st;
    disp_leader_stats(e.c[0].el, &st);
    CU_ASSERT(st.writes >= 10); /* about one renewal per retry period */
    CU_ASSERT_EQUAL(st.conflicts, 0);
    json_object_put(l1);
    json_object_put(l2);
    env_stop(&e);
    CU_ASSERT_EQUAL(e.c[0].stops, 1); /* close ends leadership */

    /* Every request the electors made is one deploy/karmada/rbac.yaml grants: leases get
     * (GET), create (POST to the collection) and update (PUT), in muster-system. */
    FILE *f = fopen(log, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[2048];
    int n = 0;
    const char *coll = "/apis/coordination.k8s.io/v1/namespaces/muster-system/leases";
    while (fgets(line, sizeof(line), f)) {
        char method[16] = "", path[1024] = "";
        const char *q = strchr(line, '"');
        CU_ASSERT_FATAL(q && sscanf(q + 1, "%15s %1023s", method, path) == 2);
        int get_or_put = (strcmp(method, "GET") == 0 || strcmp(method, "PUT") == 0) &&
                         strcmp(path, LEASE_PATH) == 0;
        int post = strcmp(method, "POST") == 0 && strcmp(path, coll) == 0;
        if (!get_or_put && !post)
            fprintf(stderr, "request outside the ClusterRole: %s %s\n", method, path);
        CU_ASSERT(get_or_put || post);
        n++;
    }
    fclose(f);
    CU_ASSERT(n > 10);
    remove(log);
}

static void test_two_one_leads(void)
{
    struct env e;
    env_start(&e, 0);
    CU_ASSERT_EQUAL(disp_leader_start(e.c[0].el), 0);
    CU_ASSERT_EQUAL(disp_leader_start(e.c[1].el), 0);
    CU_ASSERT_FATAL(run_until(&e, someone_leads, 2000));
    run_until(&e, NULL, 3 * LEASE_MS);
    CU_ASSERT_FALSE(e.overlap);
    CU_ASSERT_EQUAL(e.c[0].leading + e.c[1].leading, 1);
    CU_ASSERT_EQUAL(e.c[0].starts + e.c[1].starts, 1); /* no flapping */
    int w = e.c[0].leading ? 0 : 1;
    /* Both see the same holder. */
    CU_ASSERT_STRING_EQUAL(disp_leader_holder(e.c[1 - w].el), e.c[w].id);
    env_stop(&e);
}

static void test_takeover_after_death(void)
{
    struct env e;
    env_start(&e, 0);
    disp_leader_start(e.c[0].el);
    CU_ASSERT_FATAL(run_until(&e, a_leads, 2000));
    disp_leader_start(e.c[1].el);
    run_until(&e, NULL, 2 * LEASE_MS);
    CU_ASSERT_TRUE(e.c[0].leading);
    CU_ASSERT_FALSE(e.c[1].leading);
    /* A is cut off from the hub: the client builds each URL from its kubeconfig, so pointing
     * that at a closed port makes every request from now on fail to connect, as when the
     * process hangs or the network splits. (Its elector and client stay valid.) */
    uint64_t died = uv_now(&e.loop);
    e.saved_server = e.cfg[0].server;
    e.cfg[0].server = muster_strdup("http://127.0.0.1:1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e.cfg[0].server);
    /* A stops by its renew deadline (counted from its last successful renewal). */
    CU_ASSERT_FATAL(run_until(&e, a_stopped, RENEW_MS + SLOP_MS));
    CU_ASSERT(e.c[0].stopped_at <= died + RENEW_MS + SLOP_MS);
    /* B takes over once the lease expired in its eyes, and never before A stopped. */
    CU_ASSERT_FATAL(run_until(&e, b_leads, LEASE_MS + 2 * RETRY_MS + SLOP_MS));
    CU_ASSERT(e.c[1].started_at >= e.c[0].stopped_at);
    CU_ASSERT(e.c[1].started_at - died <= LEASE_MS + 2 * RETRY_MS + SLOP_MS);
    CU_ASSERT_FALSE(e.overlap);
    int err;
    json_object *l = lease_call(&e, &e.c[1], KUBE_GET, NULL, &err);
    CU_ASSERT_STRING_EQUAL(spec_str(l, "holderIdentity"), "musterd-b_2");
    CU_ASSERT_EQUAL(spec_int(l, "leaseTransitions"), 1);
    json_object_put(l);
    env_stop(&e);
}

/* A frozen leader (SIGSTOP, a stalled VM): when it thaws, the loop runs its overdue timers in due
 * order and the dispatch loop's may come before the renew deadline's. disp_leader_is_leader
 * says 0 from the moment the deadline has passed by the clock, before on_stopped_leading. */
static void test_frozen_leader_fenced(void)
{
    struct env e;
    env_start(&e, 0);
    disp_leader_start(e.c[0].el);
    CU_ASSERT_FATAL(run_until(&e, a_leads, 2000));
    run_until(&e, NULL, 2 * RETRY_MS);
    CU_ASSERT_TRUE(disp_leader_is_leader(e.c[0].el));
    struct timespec nap = {0, (RENEW_MS + 100) * 1000000L};
    nanosleep(&nap, NULL);          /* the loop does not run: frozen */
    CU_ASSERT_TRUE(e.c[0].leading); /* on_stopped_leading has not run yet */
    CU_ASSERT_EQUAL(e.c[0].stops, 0);
    CU_ASSERT_FALSE(disp_leader_is_leader(e.c[0].el)); /* but the fence is down */
    CU_ASSERT(run_until(&e, a_stopped, SLOP_MS));
    env_stop(&e);
}

static int released;
static int release_err = 1;
static void on_released(void *ud, int err)
{
    (void)ud;
    released++;
    release_err = err;
}

static int is_released(struct env *e)
{
    (void)e;
    return released > 0;
}

static void test_release_hands_over(void)
{
    struct env e;
    env_start(&e, 0);
    disp_leader_start(e.c[0].el);
    CU_ASSERT_FATAL(run_until(&e, a_leads, 2000));
    disp_leader_start(e.c[1].el);
    run_until(&e, NULL, LEASE_MS);
    released = 0;
    uint64_t at = uv_now(&e.loop);
    CU_ASSERT_EQUAL(disp_leader_release(e.c[0].el, on_released, NULL), 0);
    CU_ASSERT_FALSE(e.c[0].leading); /* on_stopped_leading ran before the write */
    CU_ASSERT_EQUAL(e.c[0].stops, 1);
    CU_ASSERT_EQUAL(disp_leader_release(e.c[0].el, on_released, NULL), MUSTER_EINVAL);
    CU_ASSERT_FATAL(run_until(&e, is_released, 2000));
    CU_ASSERT_EQUAL(release_err, 0);
    /* B takes over at its next retry, far sooner than the lease duration. */
    CU_ASSERT_FATAL(run_until(&e, b_leads, RETRY_MS + SLOP_MS));
    CU_ASSERT(e.c[1].started_at - at < LEASE_MS);
    /* The released elector stays out. */
    run_until(&e, NULL, 2 * RETRY_MS);
    CU_ASSERT_EQUAL(e.c[0].starts, 1);
    CU_ASSERT_FALSE(e.overlap);
    int err;
    json_object *l = lease_call(&e, &e.c[1], KUBE_GET, NULL, &err);
    CU_ASSERT_STRING_EQUAL(spec_str(l, "holderIdentity"), "musterd-b_2");
    CU_ASSERT_EQUAL(spec_int(l, "leaseTransitions"), 1);
    json_object_put(l);
    /* A second release is refused. */
    CU_ASSERT_EQUAL(disp_leader_release(e.c[0].el, on_released, NULL), MUSTER_EINVAL);
    env_stop(&e);
}

static void test_release_not_leading(void)
{
    struct env e;
    env_start(&e, 0);
    released = 0;
    release_err = 1;
    CU_ASSERT_EQUAL(disp_leader_release(e.c[1].el, on_released, NULL), 0);
    CU_ASSERT_EQUAL(released, 0); /* from the loop, not from the call */
    CU_ASSERT_FATAL(run_until(&e, is_released, 1000));
    CU_ASSERT_EQUAL(release_err, 0);
    CU_ASSERT_EQUAL(disp_leader_start(e.c[1].el), MUSTER_EINVAL);
    int err;
    json_object *l = lease_call(&e, &e.c[0], KUBE_GET, NULL, &err);
    CU_ASSERT_EQUAL(err, MUSTER_ENOENT); /* nothing was written */
    json_object_put(l);
    env_stop(&e);
}

/* With every request delayed 50 ms, two candidates that start together both read the same
 * lease before either write lands: one write wins, the other gets a 409 and does not lead. */
static void conflict_case(int with_ghost)
{
    struct env e;
    env_start(&e, 50);
    if (with_ghost) {
        /* An expired holder: both wait out its lease, then both update it at once. */
        int err;
        json_object *g = lease_call(
            &e, &e.c[0], KUBE_CREATE,
            "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":"
            "{\"name\":\"musterd\",\"namespace\":\"muster-system\"},\"spec\":{\"holderIdentity\":"
            "\"ghost\",\"leaseDurationSeconds\":1,\"leaseTransitions\":4}}",
            &err);
        CU_ASSERT_EQUAL_FATAL(err, 0);
        json_object_put(g);
    }
    disp_leader_start(e.c[0].el);
    disp_leader_start(e.c[1].el);
    CU_ASSERT_FATAL(run_until(&e, someone_leads, 3000));
    run_until(&e, NULL, 2 * LEASE_MS);
    CU_ASSERT_FALSE(e.overlap);
    CU_ASSERT_EQUAL(e.c[0].starts + e.c[1].starts, 1);
    struct disp_leader_stats s0, s1;
    disp_leader_stats(e.c[0].el, &s0);
    disp_leader_stats(e.c[1].el, &s1);
    CU_ASSERT_EQUAL(s0.conflicts + s1.conflicts, 1);
    struct disp_leader_stats *loser = e.c[0].leading ? &s1 : &s0;
    CU_ASSERT_EQUAL(loser->conflicts, 1);
    CU_ASSERT_EQUAL(loser->writes, 0);
    int err;
    json_object *l = lease_call(&e, &e.c[0], KUBE_GET, NULL, &err);
    CU_ASSERT_EQUAL(spec_int(l, "leaseTransitions"), with_ghost ? 5 : 0);
    json_object_put(l);
    env_stop(&e);
}

static void test_conflict_on_create(void)
{
    conflict_case(0);
}

static void test_conflict_on_update(void)
{
    conflict_case(1);
}

static int has_attempted(struct env *e)
{
    struct disp_leader_stats st;
    disp_leader_stats(e->c[0].el, &st);
    return st.attempts > 0;
}

/* A release that waits for a request in flight, then a close before it finishes: the release's
 * callback runs once, with MUSTER_ECANCELED, and everything is freed (the loop closes clean). */
static void test_close_during_release(void)
{
    struct env e;
    env_start(&e, 50); /* every response 50 ms late: the first GET is still in flight */
    disp_leader_start(e.c[0].el);
    CU_ASSERT_FATAL(run_until(&e, has_attempted, 1000));
    released = 0;
    release_err = 1;
    CU_ASSERT_EQUAL(disp_leader_release(e.c[0].el, on_released, NULL), 0);
    disp_leader_close(e.c[0].el, on_el_closed, &e.c[0]);
    CU_ASSERT_EQUAL(released, 0); /* not from inside close */
    env_stop(&e);
    CU_ASSERT_EQUAL(released, 1);
    CU_ASSERT_EQUAL(release_err, MUSTER_ECANCELED);
    CU_ASSERT_EQUAL(e.c[0].starts, 0);
}

/* A listener that accepts connections and never answers: a hub that hangs. */
struct blackhole {
    uv_tcp_t listener;
    uv_tcp_t conns[4];
    int nconns;
    int port;
};

static void on_blackhole_conn(uv_stream_t *l, int status)
{
    struct blackhole *b = l->data;
    if (status != 0 || b->nconns == 4)
        return;
    uv_tcp_t *c = &b->conns[b->nconns];
    uv_tcp_init(l->loop, c);
    if (uv_accept(l, (uv_stream_t *)c) == 0)
        b->nconns++;
    else
        uv_close((uv_handle_t *)c, NULL);
}

static void blackhole_start(uv_loop_t *loop, struct blackhole *b)
{
    memset(b, 0, sizeof(*b));
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_init(loop, &b->listener);
    b->listener.data = b;
    CU_ASSERT_EQUAL_FATAL(uv_tcp_bind(&b->listener, (struct sockaddr *)&a, 0), 0);
    CU_ASSERT_EQUAL_FATAL(uv_listen((uv_stream_t *)&b->listener, 8, on_blackhole_conn), 0);
    struct sockaddr_in got;
    int len = sizeof(got);
    uv_tcp_getsockname(&b->listener, (struct sockaddr *)&got, &len);
    b->port = ntohs(got.sin_port);
}

static void blackhole_stop(struct blackhole *b)
{
    uv_close((uv_handle_t *)&b->listener, NULL);
    for (int i = 0; i < b->nconns; i++)
        uv_close((uv_handle_t *)&b->conns[i], NULL);
}

/* A release against a hub that hangs still calls back within the renew deadline (cancelled),
 * well inside a pod's grace period. */
static void test_release_bounded(void)
{
    struct env e;
    env_start(&e, 0);
    disp_leader_start(e.c[0].el);
    CU_ASSERT_FATAL(run_until(&e, a_leads, 2000));
    struct blackhole b;
    blackhole_start(&e.loop, &b);
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", b.port);
    /* Wait for the renewal in flight (if any) to end, then cut A over to the black hole. */
    run_until(&e, NULL, 50);
    e.saved_server = e.cfg[0].server;
    e.cfg[0].server = muster_strdup(url);
    released = 0;
    release_err = 1;
    uint64_t at = uv_now(&e.loop);
    CU_ASSERT_EQUAL(disp_leader_release(e.c[0].el, on_released, NULL), 0);
    CU_ASSERT_FATAL(run_until(&e, is_released, 2 * RENEW_MS + SLOP_MS));
    CU_ASSERT(uv_now(&e.loop) - at <= 2 * RENEW_MS + SLOP_MS);
    CU_ASSERT_EQUAL(release_err, MUSTER_ECANCELED);
    blackhole_stop(&b);
    env_stop(&e);
}

/* Each allocation of disp_leader_new fails in turn: MUSTER_ENOMEM, nothing left behind. */
static void test_alloc_failure(void)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct kube_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    const char *kc = "apiVersion: v1\nkind: Config\n"
                     "clusters: [{name: s, cluster: {server: \"http://127.0.0.1:1\"}}]\n"
                     "contexts: [{name: s, context: {cluster: s, user: s}}]\n"
                     "current-context: s\nusers: [{name: s, user: {}}]\n";
    char err[256];
    CU_ASSERT_EQUAL_FATAL(kube_config_parse(&cfg, kc, strlen(kc), "x", NULL, err, sizeof(err)), 0);
    struct kube_client *client;
    CU_ASSERT_EQUAL_FATAL(kube_client_new(&loop, &cfg, NULL, &client), 0);
    struct disp_leader_options o = {0};
    struct disp_leader *l = NULL;
    muster_mem_fail_after(0);
    int rc = disp_leader_new(&loop, client, &o, &l, err, sizeof(err));
    muster_mem_fail_after(-1);
    CU_ASSERT_EQUAL(rc, MUSTER_ENOMEM);
    CU_ASSERT_PTR_NULL(l);
    kube_client_close(client, NULL, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
    kube_config_close(&cfg);
}

static void test_bad_options(void)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct kube_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    const char *kc = "apiVersion: v1\nkind: Config\n"
                     "clusters: [{name: s, cluster: {server: \"http://127.0.0.1:1\"}}]\n"
                     "contexts: [{name: s, context: {cluster: s, user: s}}]\n"
                     "current-context: s\nusers: [{name: s, user: {}}]\n";
    char err[256];
    CU_ASSERT_EQUAL_FATAL(kube_config_parse(&cfg, kc, strlen(kc), "x", NULL, err, sizeof(err)), 0);
    struct kube_client *client;
    CU_ASSERT_EQUAL_FATAL(kube_client_new(&loop, &cfg, NULL, &client), 0);
    struct disp_leader *l = NULL;
    struct disp_leader_options o = {.lease_duration_ms = 1500};
    CU_ASSERT_EQUAL(disp_leader_new(&loop, client, &o, &l, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "whole seconds"));
    o = (struct disp_leader_options){
        .lease_duration_ms = 2000, .renew_deadline_ms = 2000, .retry_period_ms = 100};
    CU_ASSERT_EQUAL(disp_leader_new(&loop, client, &o, &l, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "must hold"));
    CU_ASSERT_PTR_NULL(l);
    /* Defaults: muster-system/musterd, 15 s / 10 s / 2 s, identity hostname_pid. */
    o = (struct disp_leader_options){0};
    CU_ASSERT_EQUAL_FATAL(disp_leader_new(&loop, client, &o, &l, err, sizeof(err)), 0);
    char pid[32];
    snprintf(pid, sizeof(pid), "_%ld", (long)getpid());
    const char *id = disp_leader_identity(l);
    CU_ASSERT(strlen(id) > strlen(pid) && strcmp(id + strlen(id) - strlen(pid), pid) == 0);
    CU_ASSERT_STRING_EQUAL(disp_leader_holder(l), "");
    disp_leader_close(l, NULL, NULL);
    kube_client_close(client, NULL, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
    kube_config_close(&cfg);
}

static CU_TestInfo tests[] = {
    {"one elector acquires and renews", test_one_acquires},
    {"two electors: exactly one leads", test_two_one_leads},
    {"the leader dies: it steps down by its deadline, the other takes over",
     test_takeover_after_death},
    {"a frozen leader is fenced by the clock before its deadline timer runs",
     test_frozen_leader_fenced},
    {"release hands over at once", test_release_hands_over},
    {"release while not leading writes nothing", test_release_not_leading},
    {"a 409 on create is not leadership", test_conflict_on_create},
    {"a 409 on update is not leadership", test_conflict_on_update},
    {"close while a release waits: its callback runs, cancelled", test_close_during_release},
    {"a release against a hung hub ends within the renew deadline", test_release_bounded},
    {"allocation failure in disp_leader_new", test_alloc_failure},
    {"options: durations in order, whole seconds, defaults", test_bad_options},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/leader", tests)
