/* musterd's runtime (see daemon.h). */
#include "dispatcher/daemon.h"

#include "cluster-adapters/kube/kubeconfig.h"

#include "dispatcher/demo.h"
#include "dispatcher/demo_hub.h"
#include "dispatcher/events.h"
#include "dispatcher/leader.h"
#include "dispatcher/recovery.h"
#include "dispatcher/metrics.h"
#include "dispatcher/errors.h"
#include "queue/mem.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct daemon {
    const struct daemon_options *o;
    struct store *s;
    struct queue_tree **t;
    uv_loop_t loop;
    uv_signal_t sigint, sigterm;
    uv_timer_t stop_timer, summary, refresh;
    uv_timer_t deadline; /* the end of the grace period: whatever is still open is closed */
    int forced;          /* the deadline closed handles their owners had not */
    struct kube_config kcfg;
    int kcfg_loaded;
    struct kube_client *kube;
    struct disp_demo_hub *hub; /* --demo: muster-sim, our child process */
    struct api_server *api;
    struct ctl *ctl;
    struct disp_events *events;
    struct disp_metrics *metrics;
    struct disp_demo_gen *gen;
    struct kube_client *lease_kube; /* its own client: renewals never wait behind dispatch */
    struct disp_leader *el;
    int leading, was_follower;
    /* a follower's last reload: the store's data_version then, and when the next may start */
    int64_t loaded_version;
    int have_loaded_version;
    uint64_t next_reload_ms;
    uint64_t reloads; /* for muster_follower_reloads_total */
    uint64_t transitions; /* times it started leading, for muster_leader_transitions_total */
    FILE *out;
    uint64_t names_refused; /* resource names refused when the summary last said so */
    int stopping, rc;
    uint64_t started;
};

static void hub_closed(void *ud)
{
    (void)ud;
}

static void kube_closed(void *ud)
{
    (void)ud;
}

static void api_closed(void *ud)
{
    (void)ud;
}

static void close_rest(struct daemon *d);

static void elector_closed(void *ud)
{
    struct daemon *d = ud;
    if (d->lease_kube)
        kube_client_close(d->lease_kube, NULL, NULL);
    d->lease_kube = NULL;
    close_rest(d);
}

static void lease_released(void *ud, int err)
{
    struct daemon *d = ud;
    if (err)
        fprintf(stderr, "musterd: releasing the Lease: %s (it expires by itself)\n",
                muster_strerror(err));
    else
        fprintf(d->out, "musterd: Lease released\n");
    disp_leader_close(d->el, elector_closed, d);
    d->el = NULL;
}

/* After the controller has let its requests finish and flushed the ledger: the Lease is
 * released (a follower takes over at its next retry), then everything else closes, and the
 * loop ends once no handle is left. */
static void ctl_stopped(void *ud)
{
    struct daemon *d = ud;
    if (d->el) {
        if (disp_leader_release(d->el, lease_released, d) == 0)
            return;
        disp_leader_close(d->el, elector_closed, d);
        d->el = NULL;
        return;
    }
    close_rest(d);
}

static void close_rest(struct daemon *d)
{
    if (d->api)
        api_server_close(d->api, api_closed, d);
    d->api = NULL;
    if (d->gen)
        disp_demo_gen_close(d->gen);
    d->gen = NULL;
    if (d->kube)
        kube_client_close(d->kube, kube_closed, d);
    d->kube = NULL;
    /* the hub goes last: the controller and the client are done with it by now */
    if (d->hub)
        disp_demo_hub_stop(d->hub, hub_closed, d);
    d->hub = NULL;
    uv_close((uv_handle_t *)&d->sigint, NULL);
    uv_close((uv_handle_t *)&d->sigterm, NULL);
    uv_close((uv_handle_t *)&d->stop_timer, NULL);
    uv_close((uv_handle_t *)&d->summary, NULL);
    uv_close((uv_handle_t *)&d->refresh, NULL);
}

static void walk_force_close(uv_handle_t *h, void *arg)
{
    struct daemon *d = arg;
    if (h == (uv_handle_t *)&d->deadline || uv_is_closing(h))
        return;
    fprintf(stderr, "musterd: still open at the end of the grace period: %s; closing it\n",
            uv_handle_type_name(h->type));
    uv_close(h, NULL);
}

/* The grace period (and the Lease's release) is over and the loop still has work: a client that
 * holds a connection, a hub that does not answer. Exiting on time matters more than a tidy close
 * (the kubelet's SIGKILL follows), and the ledger was flushed when the stop began. Every handle is
 * closed here, without its owner's callback, so the owners must not be freed afterwards. */
static void on_deadline(uv_timer_t *h)
{
    struct daemon *d = h->data;
    d->forced = 1;
    uv_walk(h->loop, walk_force_close, d);
}

static void begin_stop(struct daemon *d)
{
    if (d->stopping)
        return;
    d->stopping = 1;
    uint64_t grace = d->o->grace_ms ? d->o->grace_ms : 10000;
    /* The Lease is released after the grace period's requests, and the release may take two
     * renew deadlines against a hub that hangs (docs/operations.md, terminationGracePeriod):
     * the backstop leaves it that long. The API does not wait for it (below). */
    uint64_t release = d->o->leader_elect
                           ? 2 * (d->o->renew_deadline_ms ? d->o->renew_deadline_ms
                                                          : DISP_LEADER_RENEW_DEADLINE_MS_DEFAULT)
                           : 0;
    /* The deadline never keeps the loop alive by itself: a tidy stop ends the loop before it. */
    uv_timer_start(&d->deadline, on_deadline, grace + release, 0);
    uv_unref((uv_handle_t *)&d->deadline);
    /* Clients get most of the grace period to finish, then their connections are cut, so the
     * API is closed before the deadline needs to force anything. */
    if (d->api)
        api_server_drain(d->api, grace - grace / 4);
    uv_timer_stop(&d->summary);
    uv_timer_stop(&d->refresh);
    uv_timer_stop(&d->stop_timer);
    if (d->gen) {
        disp_demo_gen_close(d->gen);
        d->gen = NULL;
    }
    if (d->ctl)
        ctl_stop(d->ctl, d->o->grace_ms ? d->o->grace_ms : 10000, ctl_stopped, d);
    else
        ctl_stopped(d);
}

static void on_signal(uv_signal_t *h, int signum)
{
    struct daemon *d = h->data;
    fprintf(d->out, "musterd: %s: finishing the requests in flight, then stopping\n",
            signum == SIGTERM ? "SIGTERM" : "SIGINT");
    fflush(d->out);
    begin_stop(d);
}

static void on_stop_timer(uv_timer_t *h)
{
    begin_stop(h->data);
}

/* ---- leadership ---- */

static const char *h_reason(void *ud, int64_t id)
{
    struct daemon *d = ud;
    struct api_dispatcher h;
    if (!d->ctl || !d->leading)
        return NULL;
    ctl_api_hooks(d->ctl, &h);
    return h.binding_reason(h.ud, id);
}

static json_object *h_clusters(void *ud)
{
    struct daemon *d = ud;
    struct api_dispatcher h;
    if (!d->ctl)
        return json_object_new_array();
    ctl_api_hooks(d->ctl, &h);
    return h.clusters(h.ud);
}

static int h_dialects_changed(void *ud)
{
    struct daemon *d = ud;
    struct api_dispatcher h;
    if (!d->ctl)
        return 0; /* the next leader's controller reads them at start */
    ctl_api_hooks(d->ctl, &h);
    return h.dialects_changed(h.ud);
}

static int h_synced(void *ud)
{
    struct daemon *d = ud;
    /* a follower is ready to serve reads */
    return !d->leading || (d->ctl && ctl_synced(d->ctl));
}

static void h_queues_changed(void *ud, const char *name)
{
    struct daemon *d = ud;
    struct api_dispatcher h;
    if (!d->ctl)
        return;
    ctl_api_hooks(d->ctl, &h);
    h.queues_changed(h.ud, name);
}

static int h_leading(void *ud)
{
    return ((struct daemon *)ud)->leading;
}

/* The hub prerequisites the leader's controller found missing, for /readyz (NULL: none). A
 * follower checks nothing: it does not dispatch. */
static const char *h_degraded(void *ud)
{
    struct daemon *d = ud;
    struct api_dispatcher h;
    if (!d->ctl || !d->leading)
        return NULL;
    ctl_api_hooks(d->ctl, &h);
    return h.degraded(h.ud);
}

/* --webhook-tenancy on: the leader's controller judges a new RB's namespace; a follower (or a
 * controller not started yet) holds it, and the leader parks it if its queue refuses it. */
static int h_webhook_refuse(void *ud, json_object *rb, char *why, size_t cap)
{
    struct daemon *d = ud;
    struct api_dispatcher h;
    if (!d->ctl || !d->leading)
        return 0;
    ctl_api_hooks(d->ctl, &h);
    return h.webhook_refuse ? h.webhook_refuse(h.ud, rb, why, cap) : 0;
}

static int start_dispatching(struct daemon *d);

/* A follower's admin API reads the engine it loaded; the leader changes the store under it.
 * Every retry period a follower reloads queues and ledger from the store (the leader's
 * commits, read through SQLite's WAL), so its reads lag the leader's by at most that; but
 * only when the leader has committed since (SQLite's data_version), and, since a reload reads
 * the whole ledger (seconds at a million rows), no sooner than 4 x the last reload's time after
 * it: a standby stays idle under an idle leader and under a busy one spends at most a fifth of
 * a core keeping up. */
static void on_refresh(uv_timer_t *h)
{
    struct daemon *d = h->data;
    if (d->leading || d->stopping || !d->api)
        return;
    int64_t version = 0;
    int have_version = store_data_version(d->s, &version) == 0;
    if (have_version && d->have_loaded_version && version == d->loaded_version)
        return;
    uv_update_time(h->loop);
    if (uv_now(h->loop) < d->next_reload_ms)
        return;
    uint64_t t0 = uv_hrtime();
    struct queue_tree *t = queue_tree_new();
    if (t)
        queue_tree_set_lending(t, d->o->reclaim);
    char err[512];
    int rc = t ? disp_load(d->s, t, NULL, err, sizeof err) : MUSTER_ENOMEM;
    if (rc) {
        fprintf(stderr, "musterd: following: reloading the store: %s\n",
                t ? err : "out of memory");
        queue_tree_free(t);
        return;
    }
    api_server_reload(d->api, t);
    queue_tree_free(*d->t);
    *d->t = t;
    d->loaded_version = version;
    d->have_loaded_version = have_version;
    d->reloads++;
    uv_update_time(h->loop);
    d->next_reload_ms = uv_now(h->loop) + 4 * ((uv_hrtime() - t0) / 1000000);
}

static void on_started_leading(void *ud)
{
    struct daemon *d = ud;
    if (d->stopping)
        return;
    fprintf(d->out, "musterd: leading (Lease %s/%s held by %s)\n",
            d->o->lease_namespace ? d->o->lease_namespace : DISP_LEADER_NAMESPACE_DEFAULT,
            d->o->lease_name ? d->o->lease_name : DISP_LEADER_NAME_DEFAULT,
            disp_leader_identity(d->el));
    fflush(d->out);
    /* The engine a follower loaded may predate the old leader's last decisions: rebuild it
     * from the store, then reconcile with the hub (which adopts whatever the store lacks). */
    uv_timer_stop(&d->refresh);
    struct queue_tree *t = queue_tree_new();
    if (t)
        queue_tree_set_lending(t, d->o->reclaim);
    char err[512];
    struct disp_load_stats ls;
    int rc = t ? disp_load(d->s, t, &ls, err, sizeof err) : MUSTER_ENOMEM;
    if (rc) {
        fprintf(stderr, "musterd: rebuilding the engine from the store: %s\n",
                t ? err : "out of memory");
        queue_tree_free(t);
        d->rc = rc;
        begin_stop(d);
        return;
    }
    if (d->api)
        api_server_reload(d->api, t);
    queue_tree_free(*d->t);
    *d->t = t;
    d->leading = 1;
    d->transitions++;
    rc = start_dispatching(d);
    if (rc) {
        d->rc = rc;
        begin_stop(d);
    }
}

static void on_stopped_leading(void *ud)
{
    struct daemon *d = ud;
    int was = d->leading;
    d->leading = 0;
    if (d->ctl)
        ctl_set_leading(d->ctl, 0);
    if (!was || d->stopping)
        return;
    /* Another musterd may lead now: stop writing at once and exit, to come back as a follower
     * with a fresh view (client-go components do the same). */
    fprintf(stderr, "musterd: lost the Lease: stopping\n");
    d->rc = MUSTER_EBUSY;
    begin_stop(d);
}

/* muster_leader_* at scrape time. Without --leader-elect the elector's counters stay 0. */
static void leader_metrics(void *ud, struct disp_metrics_leader *out)
{
    struct daemon *d = ud;
    struct disp_leader_stats st = {0};
    if (d->el)
        disp_leader_stats(d->el, &st);
    *out = (struct disp_metrics_leader){.is_leader = d->leading,
                                        .attempts = st.attempts,
                                        .writes = st.writes,
                                        .conflicts = st.conflicts,
                                        .failures = st.failures,
                                        .transitions = d->transitions,
                                        .follower_reloads = d->reloads};
}

static uint64_t demo_backlog(void *ud)
{
    struct daemon *d = ud;
    struct ctl_stats st;
    if (!d->ctl)
        return UINT64_MAX;
    ctl_get_stats(d->ctl, &st);
    return st.pending + st.parked;
}

/* A full resource-name table refuses every new name, wherever it comes from (a queue spec, a
 * cluster's capacity, a workload): said in the log whenever more were refused since. */
static void names_summary(struct daemon *d)
{
    const struct queue_resnames *rn = queue_tree_resnames(*d->t);
    uint64_t refused = queue_resnames_refused(rn);
    if (refused == d->names_refused)
        return;
    d->names_refused = refused;
    fprintf(stderr,
            "musterd: the resource name table is full (%u of %d names): %" PRIu64
            " new names refused so far; queue specs and cluster capacities naming a new "
            "resource are refused until a restart forgets the unused names\n",
            queue_resnames_count(rn), QUEUE_RESNAMES_MAX, refused);
}

static void on_summary(uv_timer_t *h)
{
    struct daemon *d = h->data;
    struct ctl_stats st;
    names_summary(d);
    if (!d->ctl) {
        fprintf(d->out, "musterd: following (Lease held by %s)\n",
                d->el && disp_leader_holder(d->el)[0] ? disp_leader_holder(d->el) : "nobody");
        fflush(d->out);
        return;
    }
    ctl_get_stats(d->ctl, &st);
    fprintf(d->out,
            "musterd: %s: %llu pending, %llu parked | admitted %llu, dispatched %llu, running "
            "%llu, rolled back %llu, released %llu | cycle %.2f ms (max %.2f) | hub errors %llu | "
            "ledger commits %llu\n",
            ctl_synced(d->ctl) ? "synced" : "syncing", (unsigned long long)st.pending,
            (unsigned long long)st.parked, (unsigned long long)st.admitted,
            (unsigned long long)st.dispatched, (unsigned long long)st.running,
            (unsigned long long)st.rolled_back, (unsigned long long)st.released, st.last_cycle_ms,
            st.max_cycle_ms, (unsigned long long)st.hub_errors,
            (unsigned long long)st.ledger_batches);
    fflush(d->out);
}

/* Every finished hub request, for muster_hub_requests_total. */
static void hub_request_done(void *ud, enum kube_verb verb, int http)
{
    disp_metrics_hub_request(ud, kube_verb_name(verb), http);
}

static int start_serving(struct daemon *d);

/* muster-sim printed its URL: talk to it as to any karmada-apiserver, through a kubeconfig
 * that names it, and start everything else. */
static void on_hub_ready(void *ud, const char *url)
{
    struct daemon *d = ud;
    if (d->stopping)
        return;
    char kubeconfig[1024], err[512];
    int n = snprintf(kubeconfig, sizeof(kubeconfig),
                     "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
                     "clusters: [{name: sim, cluster: {server: \"%s\"}}]\n"
                     "users: [{name: sim, user: {}}]\n"
                     "contexts: [{name: sim, context: {cluster: sim, user: sim}}]\n",
                     url);
    int rc = n > 0 && (size_t)n < sizeof(kubeconfig)
                 ? kube_config_parse(&d->kcfg, kubeconfig, (size_t)n, "demo", NULL, err,
                                     sizeof err)
                 : MUSTER_ENOSPC;
    if (rc) {
        fprintf(stderr, "musterd: the simulated hub's address %s: %s\n", url,
                rc == MUSTER_ENOSPC ? "too long" : err);
    } else {
        d->kcfg_loaded = 1;
        fprintf(d->out,
                "simulated Karmada hub: %s (muster-sim pid %d, scenario %s; try kubectl "
                "--server %s get rb -A)\n",
                url, disp_demo_hub_pid(d->hub), d->o->scenario, url);
        rc = start_serving(d);
    }
    if (rc) {
        d->rc = rc;
        begin_stop(d);
    }
}

/* The child ended (or never said where it listens) without musterd asking: the demo has no
 * hub any more, so it says so and stops with a non-zero exit. */
static void on_hub_gone(void *ud, const char *why)
{
    struct daemon *d = ud;
    fprintf(stderr, "musterd: the simulated hub (%s, pid %d) %s: stopping\n",
            disp_demo_hub_binary(d->hub), disp_demo_hub_pid(d->hub), why);
    if (!d->rc)
        d->rc = MUSTER_EIO;
    begin_stop(d);
}

static int start_demo_hub(struct daemon *d, char *err, size_t errcap)
{
    struct disp_demo_hub_options ho = {.binary = d->o->sim_binary,
                                       .scenario = d->o->scenario,
                                       .out = d->out,
                                       .on_ready = on_hub_ready,
                                       .on_gone = on_hub_gone,
                                       .ud = d};
    return disp_demo_hub_start(&d->loop, &ho, &d->hub, err, errcap);
}

/* The dispatch loop's fence: no write once the renew deadline has passed by the clock, even
 * before the deadline's timer has run (a process frozen and thawed runs overdue timers in due
 * order, the dispatch tick's often first). */
static int fence(void *ud)
{
    struct daemon *d = ud;
    return d->el && disp_leader_is_leader(d->el);
}

/* The controller committed preemption counts: the admin API shows them at once. */
static void preempted(void *ud, const char *queue, int64_t made, int64_t suffered)
{
    struct daemon *d = ud;
    if (d->api)
        api_server_preemptions_add(d->api, queue, made, suffered);
}

/* The leader's part: the dispatch loop (and the demo's workload stream). */
static int start_dispatching(struct daemon *d)
{
    const struct daemon_options *o = d->o;
    struct ctl_options co = o->ctl;
    if (o->leader_elect) {
        co.fence = fence;
        co.fence_ud = d;
    }
    co.events = d->events;
    co.metrics = d->metrics;
    co.log = co.log ? co.log : d->out;
    co.reclaim = o->reclaim;
    co.preempted = preempted;
    co.preempted_ud = d;
    int rc = ctl_new(&d->loop, d->kube, d->s, *d->t, &co, &d->ctl);
    if (rc)
        return rc;
    rc = ctl_start(d->ctl);
    if (rc)
        return rc;
    if (o->demo) {
        struct disp_demo_gen_options go = {.rate = o->demo_rate,
                                           .seed = o->demo_seed,
                                           .backlog = demo_backlog,
                                           .ud = d};
        rc = disp_demo_gen_start(&d->loop, d->kube, &go, &d->gen);
        if (rc)
            return rc;
    }
    return 0;
}

static int start(struct daemon *d)
{
    const struct daemon_options *o = d->o;
    char err[512];
    int rc;
    if (o->demo) {
        rc = disp_demo_seed_queues(d->s, *d->t);
        if (rc) {
            fprintf(stderr, "musterd: demo queues: %s\n", muster_strerror(rc));
            return rc;
        }
        if (!o->scenario) {
            fprintf(stderr, "musterd: --demo needs --scenario (deploy/scenarios/demo.yaml)\n");
            return MUSTER_ECONFIG;
        }
        /* the rest starts once the child says where it listens (on_hub_ready) */
        rc = start_demo_hub(d, err, sizeof err);
        if (rc)
            fprintf(stderr, "musterd: --demo: %s\n", err);
        return rc;
    }
    struct kube_config_opts ko = {.kubeconfig = o->kubeconfig, .context = o->context};
    rc = kube_config_load(&d->kcfg, &ko, err, sizeof err);
    d->kcfg_loaded = rc == 0;
    if (rc) {
        fprintf(stderr, "musterd: %s\n", err);
        return rc;
    }
    return start_serving(d);
}

/* With the hub's kubeconfig loaded: the hub client, the admin API, then leading or following. */
static int start_serving(struct daemon *d)
{
    const struct daemon_options *o = d->o;
    char err[512];
    int rc;
    d->events = disp_events_new(0);
    d->metrics = disp_metrics_new();
    if (!d->events || !d->metrics)
        return MUSTER_ENOMEM;
    disp_metrics_leader_source(d->metrics, leader_metrics, d);
    struct kube_client_opts kco = {.qps = o->kube_qps,
                                   .burst = o->kube_burst,
                                   .user_agent = "musterd",
                                   .on_done = hub_request_done,
                                   .on_done_ud = d->metrics};
    rc = kube_client_new(&d->loop, &d->kcfg, &kco, &d->kube);
    if (rc)
        return rc;
    if (o->api) {
        struct api_ctx ctx = {.store = d->s,
                              .tree = *d->t,
                              .events = d->events,
                              .metrics = d->metrics,
                              .disp = {.ud = d,
                                       .binding_reason = h_reason,
                                       .clusters = h_clusters,
                                       .hub_synced = h_synced,
                                       .queues_changed = h_queues_changed,
                                       .leading = h_leading,
                                       .degraded = h_degraded,
                                       .webhook_refuse =
                                           o->ctl.webhook_tenancy ? h_webhook_refuse : NULL,
                                       .dialects_changed = h_dialects_changed}};
        rc = api_server_start(&d->loop, o->api, &ctx, &d->api, err, sizeof err);
        if (rc) {
            fprintf(stderr, "musterd: admin API: %s\n", err);
            return rc;
        }
        const char *host = o->api->host ? o->api->host : "127.0.0.1";
        int v6 = strchr(host, ':') != NULL;
        const char *scheme = o->api->tls_cert_file ? "https" : "http";
        fprintf(d->out, "admin API: %s://%s%s%s:%d/api/v1/queues (OpenAPI at /openapi.json)\n",
                scheme, v6 ? "[" : "", host, v6 ? "]" : "", api_server_port(d->api));
        fprintf(d->out, "dashboard: %s://%s%s%s:%d/\n", scheme, v6 ? "[" : "", host,
                v6 ? "]" : "", api_server_port(d->api));
    }
    if (o->leader_elect) {
        struct kube_client_opts lko = {.user_agent = "musterd-leader-election"};
        rc = kube_client_new(&d->loop, &d->kcfg, &lko, &d->lease_kube);
        if (rc)
            return rc;
        struct disp_leader_options lo = {.ns = o->lease_namespace,
                                         .name = o->lease_name,
                                         .lease_duration_ms = o->lease_duration_ms,
                                         .renew_deadline_ms = o->renew_deadline_ms,
                                         .retry_period_ms = o->retry_period_ms,
                                         .on_started_leading = on_started_leading,
                                         .on_stopped_leading = on_stopped_leading,
                                         .ud = d};
        rc = disp_leader_new(&d->loop, d->lease_kube, &lo, &d->el, err, sizeof err);
        if (rc) {
            fprintf(stderr, "musterd: --leader-elect: %s\n", err);
            return rc;
        }
        rc = disp_leader_start(d->el);
        if (rc)
            return rc;
        fprintf(d->out, "musterd: following until it holds the Lease (identity %s)\n",
                disp_leader_identity(d->el));
        uint64_t every =
            o->retry_period_ms ? o->retry_period_ms : DISP_LEADER_RETRY_PERIOD_MS_DEFAULT;
        uv_timer_start(&d->refresh, on_refresh, every, every);
    } else {
        d->leading = 1;
        d->transitions++;
        rc = start_dispatching(d);
        if (rc)
            return rc;
    }
    unsigned every = o->summary_ms ? o->summary_ms : 5000;
    uv_timer_start(&d->summary, on_summary, every, every);
    if (o->demo && o->demo_seconds > 0)
        uv_timer_start(&d->stop_timer, on_stop_timer, (uint64_t)(o->demo_seconds * 1000), 0);
    fflush(d->out);
    return 0;
}

static void walk_report(uv_handle_t *h, void *arg)
{
    (void)arg;
    fprintf(stderr, "musterd: still open at exit: %s\n", uv_handle_type_name(h->type));
}

int daemon_run(struct store *s, struct queue_tree **t, const struct daemon_options *o)
{
    struct daemon d;
    memset(&d, 0, sizeof d);
    d.o = o;
    d.s = s;
    d.t = t;
    d.out = o->out ? o->out : stdout;
    signal(SIGPIPE, SIG_IGN); /* h2o and libcurl write to sockets whose peers may be gone */
    uv_loop_init(&d.loop);
    uv_signal_init(&d.loop, &d.sigint);
    uv_signal_init(&d.loop, &d.sigterm);
    uv_timer_init(&d.loop, &d.stop_timer);
    uv_timer_init(&d.loop, &d.summary);
    uv_timer_init(&d.loop, &d.refresh);
    uv_timer_init(&d.loop, &d.deadline);
    d.sigint.data = d.sigterm.data = d.stop_timer.data = d.summary.data = d.refresh.data = &d;
    d.deadline.data = &d;
    uv_signal_start(&d.sigint, on_signal, SIGINT);
    uv_signal_start(&d.sigterm, on_signal, SIGTERM);
    int rc = start(&d);
    if (rc) {
        d.rc = rc;
        begin_stop(&d);
    }
    uv_run(&d.loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&d.deadline, NULL);
    uv_run(&d.loop, UV_RUN_NOWAIT);
    if (d.forced) {
        /* Handles of the controller, the hub client and the simulated hub were closed under
         * them: freeing them now could touch what was closed. The process is about to exit. */
        fprintf(stderr, "musterd: stopped at the end of the grace period; the ledger was "
                        "flushed when the stop began\n");
        if (!d.rc)
            d.rc = MUSTER_EBUSY;
        return d.rc;
    }
    if (d.ctl) {
        struct ctl_stats st;
        ctl_get_stats(d.ctl, &st);
        fprintf(d.out,
                "musterd: stopped: %llu admitted, %llu dispatched, %llu rolled back, %llu "
                "released; the ledger is flushed\n",
                (unsigned long long)st.admitted, (unsigned long long)st.dispatched,
                (unsigned long long)st.rolled_back, (unsigned long long)st.released);
    }
    ctl_free(d.ctl);
    if (d.kcfg_loaded)
        kube_config_close(&d.kcfg);
    disp_events_free(d.events);
    disp_metrics_free(d.metrics);
    if (uv_loop_close(&d.loop)) {
        uv_walk(&d.loop, walk_report, NULL);
        if (!d.rc)
            d.rc = MUSTER_EBUSY;
    }
    return d.rc;
}
