/* Hub protocol benchmark. The simulated hub runs in-process on its own thread and loop; on the
 * main loop, muster's client (libcurl multi driven by libuv):
 *   client_requests_per_s      merge patches of ResourceBindings through kube_request, 64 in
 *                              flight, beside curl_loop_requests_per_s: a bare libcurl multi
 *                              loop doing the same patches with the same concurrency;
 *   watch_events_per_s         changes made in the hub's store, ingested through a watch, the
 *                              reflector and the informer cache (packed, as musterd caches
 *                              RBs: kube_informer_set_frozen), counted at the on_update
 *                              callback, while the hub makes them (on its own thread): bounded
 *                              by the slower of the two;
 *   sim_watch_produce_events_per_s  the hub's own rate making those changes (its yardstick);
 *   watch_ingest_events_per_s  the client alone: the hub makes a second burst while the client
 *                              does not read (the per-watcher buffer holds it), then the client
 *                              drains it through the same reflector and informer. */
#include "bench/bench.h"
#include "bench/fleet.h"

#include "cluster-adapters/kube/client.h"
#include "cluster-adapters/kube/informer.h"
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/hub.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "dispatcher/errors.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#define OBJECTS 1000
#define PATCHES 20000
#define WATCH_UPDATES 100000
#define INFLIGHT 64

enum job { JOB_NONE, JOB_SEED, JOB_UPDATE, JOB_STOP };

struct hubthread {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uv_loop_t loop;
    uv_async_t async;
    struct sim_hub *hub;
    int port, ready, done_jobs;
    enum job job;
    double update_s; /* how long the last JOB_UPDATE took on the hub's thread */
};

static void die(const char *what, int rc)
{
    fprintf(stderr, "bench hub: %s: %s\n", what, muster_strerror(rc));
    exit(1);
}

static const struct sim_resource *rb_resource(void)
{
    return sim_resource_by_kind("work.karmada.io/v1alpha2", "ResourceBinding");
}

static void job_seed(struct hubthread *h)
{
    struct sim_store *st = sim_hub_store(h->hub);
    for (int i = 0; i < OBJECTS; i++) {
        char text[512];
        snprintf(text, sizeof(text),
                 "{\"apiVersion\":\"work.karmada.io/v1alpha2\",\"kind\":\"ResourceBinding\","
                 "\"metadata\":{\"name\":\"job-%d-deployment\",\"namespace\":\"default\"},"
                 "\"spec\":{\"resource\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                 "\"namespace\":\"default\",\"name\":\"job-%d\"},\"replicas\":2}}",
                 i, i);
        json_object *obj = json_tokener_parse(text);
        int rc = sim_store_create(st, rb_resource(), "default", obj, time(NULL), 0, NULL, NULL);
        json_object_put(obj);
        if (rc)
            die("seed", rc);
    }
}

static void job_update(struct hubthread *h)
{
    struct sim_store *st = sim_hub_store(h->hub);
    for (int i = 0; i < WATCH_UPDATES; i++) {
        char name[64];
        json_object *cur = NULL;
        snprintf(name, sizeof(name), "job-%d-deployment", i % OBJECTS);
        int rc = sim_store_get(st, rb_resource(), "default", name, &cur, NULL);
        if (rc)
            die("get", rc);
        json_object *next = NULL;
        json_object_deep_copy(cur, &next, NULL);
        json_object_put(cur);
        json_object *meta = json_object_object_get(next, "metadata");
        json_object *labels = json_object_new_object();
        char round[24];
        snprintf(round, sizeof(round), "r%d", i / OBJECTS);
        json_object_object_add(labels, "round", json_object_new_string(round));
        json_object_object_add(meta, "labels", labels);
        rc = sim_store_update(st, rb_resource(), "default", name, next, 0, NULL, NULL);
        json_object_put(next);
        if (rc)
            die("update", rc);
    }
}

static void hub_closed(void *data)
{
    (void)data;
}

static void on_job(uv_async_t *a)
{
    struct hubthread *h = a->data;
    pthread_mutex_lock(&h->mu);
    enum job job = h->job;
    h->job = JOB_NONE;
    pthread_mutex_unlock(&h->mu);
    if (job == JOB_SEED)
        job_seed(h);
    else if (job == JOB_UPDATE) {
        double t0 = fleet_now_s();
        job_update(h);
        h->update_s = fleet_now_s() - t0;
    }
    else if (job == JOB_STOP) {
        sim_hub_shutdown(h->hub, hub_closed, NULL);
        uv_close((uv_handle_t *)&h->async, NULL);
    }
    pthread_mutex_lock(&h->mu);
    h->done_jobs++;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

static void *hub_main(void *arg)
{
    struct hubthread *h = arg;
    char err[256];
    uv_loop_init(&h->loop);
    uv_async_init(&h->loop, &h->async, on_job);
    h->async.data = h;
    /* History and the per-watcher buffer hold the whole burst: the figure is how fast the
     * client ingests events, not how the hub sheds a slow watcher. */
    struct sim_hub_config cfg = {.server = {.host = "127.0.0.1", .port = 0,
                                            .max_watch_buffer = 1024u << 20},
                                 .history = 3 * WATCH_UPDATES};
    int rc = sim_hub_start(&h->loop, &cfg, &h->hub, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "bench hub: %s\n", err);
        exit(1);
    }
    pthread_mutex_lock(&h->mu);
    h->port = sim_hub_port(h->hub);
    h->ready = 1;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    sim_hub_free(h->hub);
    uv_loop_close(&h->loop);
    return NULL;
}

/* Runs job on the hub's loop and waits for it. */
static void run_job(struct hubthread *h, enum job job)
{
    pthread_mutex_lock(&h->mu);
    int target = h->done_jobs + 1;
    h->job = job;
    uv_async_send(&h->async);
    while (h->done_jobs < target)
        pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

/* ---- the client: patches ---- */

struct patch_run {
    struct kube_client *c;
    int sent, done, failed;
};

static void send_patch(struct patch_run *p);

static void patch_done(int err, const struct kube_response *resp, void *ud)
{
    (void)resp;
    struct patch_run *p = ud;
    p->done++;
    p->failed += err != 0;
    if (p->sent < PATCHES)
        send_patch(p);
}

static void send_patch(struct patch_run *p)
{
    char path[256], body[128];
    int i = p->sent++;
    snprintf(path, sizeof(path), "/apis/work.karmada.io/v1alpha2/namespaces/default/"
                                 "resourcebindings/job-%d-deployment", i % OBJECTS);
    snprintf(body, sizeof(body), "{\"metadata\":{\"annotations\":{\"muster.io/seq\":\"%d\"}}}", i);
    struct kube_request req = {.verb = KUBE_MERGE_PATCH, .path = path, .body = body};
    int rc = kube_request(p->c, &req, patch_done, p);
    if (rc)
        die("patch", rc);
}

/* ---- the client: watch ---- */

struct watch_run {
    long updates, adds;
    int synced;
    double first, last;
};

static void w_add(void *ud, struct json_object *obj)
{
    (void)obj;
    ((struct watch_run *)ud)->adds++;
}

static void w_update(void *ud, struct json_object *o, struct json_object *n)
{
    (void)o;
    (void)n;
    struct watch_run *w = ud;
    double now = fleet_now_s();
    if (!w->updates)
        w->first = now;
    w->last = now;
    w->updates++;
}

static void w_synced(void *ud)
{
    ((struct watch_run *)ud)->synced = 1;
}

static void client_closed(void *ud)
{
    (void)ud;
}

static void informer_closed(struct kube_informer *inf)
{
    (void)inf;
}

/* ---- the yardstick: bare libcurl ---- */

static size_t discard(char *ptr, size_t size, size_t n, void *ud)
{
    (void)ptr;
    (void)ud;
    return size * n;
}

static double curl_loop(int port)
{
    CURLM *m = curl_multi_init();
    curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)INFLIGHT);
    CURL *easy[INFLIGHT];
    struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/merge-patch+json");
    char url[INFLIGHT][256], body[INFLIGHT][128];
    int sent = 0, done = 0;
    double t0 = fleet_now_s();
    for (int k = 0; k < INFLIGHT; k++) {
        easy[k] = curl_easy_init();
        curl_easy_setopt(easy[k], CURLOPT_CUSTOMREQUEST, "PATCH");
        curl_easy_setopt(easy[k], CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(easy[k], CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(easy[k], CURLOPT_PRIVATE, (void *)(intptr_t)k);
    }
    for (int k = 0; k < INFLIGHT && sent < PATCHES; k++, sent++) {
        snprintf(url[k], sizeof(url[k]), "http://127.0.0.1:%d/apis/work.karmada.io/v1alpha2/"
                 "namespaces/default/resourcebindings/job-%d-deployment", port, sent % OBJECTS);
        snprintf(body[k], sizeof(body[k]),
                 "{\"metadata\":{\"annotations\":{\"muster.io/seq\":\"%d\"}}}", sent);
        curl_easy_setopt(easy[k], CURLOPT_URL, url[k]);
        curl_easy_setopt(easy[k], CURLOPT_POSTFIELDS, body[k]);
        curl_multi_add_handle(m, easy[k]);
    }
    while (done < PATCHES) {
        int running;
        curl_multi_perform(m, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            CURL *e = msg->easy_handle;
            long code = 0;
            curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
            if (msg->data.result != CURLE_OK || code != 200)
                die("curl loop", MUSTER_EHTTP);
            done++;
            curl_multi_remove_handle(m, e);
            if (sent < PATCHES) {
                void *priv;
                curl_easy_getinfo(e, CURLINFO_PRIVATE, &priv);
                int k = (int)(intptr_t)priv;
                snprintf(url[k], sizeof(url[k]), "http://127.0.0.1:%d/apis/work.karmada.io/"
                         "v1alpha2/namespaces/default/resourcebindings/job-%d-deployment", port,
                         sent % OBJECTS);
                snprintf(body[k], sizeof(body[k]),
                         "{\"metadata\":{\"annotations\":{\"muster.io/seq\":\"%d\"}}}", sent);
                sent++;
                curl_easy_setopt(e, CURLOPT_URL, url[k]);
                curl_easy_setopt(e, CURLOPT_POSTFIELDS, body[k]);
                curl_multi_add_handle(m, e);
            }
        }
        if (done < PATCHES)
            curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    double secs = fleet_now_s() - t0;
    for (int k = 0; k < INFLIGHT; k++)
        curl_easy_cleanup(easy[k]);
    curl_multi_cleanup(m);
    curl_slist_free_all(hdr);
    return PATCHES / secs;
}

void bench_hub(void)
{
    struct hubthread h = {.job = JOB_NONE};
    pthread_mutex_init(&h.mu, NULL);
    pthread_cond_init(&h.cv, NULL);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    pthread_create(&h.th, NULL, hub_main, &h);
    pthread_mutex_lock(&h.mu);
    while (!h.ready)
        pthread_cond_wait(&h.cv, &h.mu);
    pthread_mutex_unlock(&h.mu);
    run_job(&h, JOB_SEED);

    char kubeconfig[512], err[256];
    snprintf(kubeconfig, sizeof(kubeconfig),
             "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
             "clusters:\n- name: sim\n  cluster:\n    server: http://127.0.0.1:%d\n"
             "users:\n- name: u\n  user: {}\n"
             "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: u\n",
             h.port);
    struct kube_config cfg;
    int rc = kube_config_parse(&cfg, kubeconfig, strlen(kubeconfig), "bench", NULL, err,
                               sizeof(err));
    if (rc) {
        fprintf(stderr, "bench hub: kubeconfig: %s\n", err);
        exit(1);
    }
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct kube_client_opts copt = {.qps = -1, .burst = 0, .max_inflight = INFLIGHT};
    struct kube_client *c;
    if ((rc = kube_client_new(&loop, &cfg, &copt, &c)))
        die("client", rc);

    /* Patches through muster's client. */
    struct patch_run p = {.c = c};
    double t0 = fleet_now_s();
    for (int k = 0; k < INFLIGHT; k++)
        send_patch(&p);
    while (p.done < PATCHES)
        uv_run(&loop, UV_RUN_ONCE);
    double client_rate = PATCHES / (fleet_now_s() - t0);
    if (p.failed)
        die("patches failed", MUSTER_EHTTP);

    /* Watch events through reflector and informer. */
    struct watch_run w = {0};
    struct kube_informer inf;
    struct kube_reflector_opts ropt = {
        .path = "/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings"};
    struct kube_informer_handler hd = {.on_add = w_add, .on_update = w_update,
                                       .on_synced = w_synced};
    if ((rc = kube_informer_init(&inf, &loop, c, &ropt, &hd, &w)))
        die("informer", rc);
    /* as musterd caches RBs: packed, trimmed once per loop iteration (controller/cool.c) */
    kube_informer_set_frozen(&inf);
    if ((rc = kube_informer_start(&inf)))
        die("informer", rc);
    while (!w.synced)
        uv_run(&loop, UV_RUN_ONCE);
    double u0 = fleet_now_s();
    pthread_mutex_lock(&h.mu);
    h.job = JOB_UPDATE;
    uv_async_send(&h.async);
    pthread_mutex_unlock(&h.mu);
    double deadline = u0 + (getenv("MUSTER_BENCH_WATCH_S") ? atof(getenv("MUSTER_BENCH_WATCH_S")) : 120);
    while (w.updates < WATCH_UPDATES && fleet_now_s() < deadline) {
        uv_run(&loop, UV_RUN_ONCE);
        kube_informer_trim(&inf);
    }
    double watch_rate = w.updates / (w.last - u0);
    long seen = w.updates;
    pthread_mutex_lock(&h.mu);
    double produce_rate = WATCH_UPDATES / h.update_s;
    pthread_mutex_unlock(&h.mu);
    /* The second burst, made while this loop does not run: the events wait in the socket and
     * the hub's per-watcher buffer, so the drain below is the client's work alone. */
    run_job(&h, JOB_UPDATE);
    double d0 = fleet_now_s();
    while (w.updates < 2 * WATCH_UPDATES && fleet_now_s() < d0 + (deadline - u0)) {
        uv_run(&loop, UV_RUN_ONCE);
        kube_informer_trim(&inf);
    }
    double ingest_rate = (w.updates - seen) / (w.last - d0);
    long ingested = w.updates - seen;
    if (getenv("MUSTER_BENCH_DEBUG")) {
        struct kube_reflector_stats rs = inf.reflector.stats;
        fprintf(stderr, "adds %ld updates %ld lists %llu watches %llu events %llu errors %llu\n", w.adds, w.updates, (unsigned long long)rs.lists, (unsigned long long)rs.watches, (unsigned long long)rs.events, (unsigned long long)rs.errors);
    }

    kube_informer_close(&inf, informer_closed);
    kube_client_close(c, client_closed, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    double curl_rate = curl_loop(h.port);
    run_job(&h, JOB_STOP);
    pthread_join(h.th, NULL);
    kube_config_close(&cfg);
    curl_global_cleanup();

    printf("BENCH client_requests_per_s %.0f requests/s\n", client_rate);
    printf("BENCH curl_loop_requests_per_s %.0f requests/s\n", curl_rate);
    printf("BENCH client_vs_curl_loop_ratio %.2f ratio\n", client_rate / curl_rate);
    printf("BENCH watch_events_per_s %.0f events/s\n", watch_rate);
    printf("BENCH watch_events_seen %ld/%d events\n", seen, WATCH_UPDATES);
    printf("BENCH sim_watch_produce_events_per_s %.0f events/s\n", produce_rate);
    printf("BENCH watch_ingest_events_per_s %.0f events/s\n", ingest_rate);
    printf("BENCH watch_ingest_events_seen %ld/%d events\n", ingested, WATCH_UPDATES);
    if (seen != WATCH_UPDATES || ingested != WATCH_UPDATES)
        exit(1);
}
