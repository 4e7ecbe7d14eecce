/* The kube client against muster-sim over real sockets: watch continuity across dropped streams
 * and 410 Gone (checked against the hub's own event log), conflicts, 429 back-off, 500s,
 * pagination, TLS with a client certificate, bearer tokens, and a kubectl-written kubeconfig. */
#include "cluster-adapters/kube/client.h"
#include "cluster-adapters/kube/informer.h"
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/hub.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/json.h"
#include "queue/mem.h"
#include "testing.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define NS "fleet-a"       /* the namespace the informers watch */
#define OTHER_NS "default" /* changes here must never reach them */
#define RB_PATH "/apis/work.karmada.io/v1alpha2/namespaces/" NS "/resourcebindings"

/* ---- the hub, on its own thread and loop, as it runs beside musterd ---- */

struct hub;
typedef void (*hub_job_fn)(struct hub *h, void *arg);

/* One hub's life on the hub thread, with a loop of its own. */
struct hub {
    uv_loop_t loop;
    uv_async_t async;
    struct sim_hub_config cfg;
    struct sim_hub *sim;
    int port, ready, start_rc, stopped;
    char err[256];
    hub_job_fn job;
    void *job_arg;
    int jobs_done;
    int loop_close_rc;
};

/* Every hub runs on one thread that lives as long as the process: h2o keeps per-thread caches
 * of freed buffers that it never releases, so a thread per hub would leave one set of them
 * unreachable (LeakSanitizer reports it) each time one ends. One mutex and condition serve
 * every hand-over between the test and that thread. */
static pthread_mutex_t hub_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hub_cv = PTHREAD_COND_INITIALIZER;
static struct hub *hub_next; /* waiting for the thread to run it */
static int hub_thread_live;

static const struct sim_resource *rb_res(void)
{
    return sim_resource_by_kind("work.karmada.io/v1alpha2", "ResourceBinding");
}

static void on_hub_async(uv_async_t *a)
{
    struct hub *h = a->data;
    pthread_mutex_lock(&hub_mu);
    hub_job_fn fn = h->job;
    void *arg = h->job_arg;
    h->job = NULL;
    pthread_mutex_unlock(&hub_mu);
    if (!fn)
        return;
    fn(h, arg);
    pthread_mutex_lock(&hub_mu);
    h->jobs_done++;
    pthread_cond_broadcast(&hub_cv);
    pthread_mutex_unlock(&hub_mu);
}

/* Runs one hub until it is stopped, then closes its loop. */
static void hub_run(struct hub *h)
{
    uv_loop_init(&h->loop);
    uv_async_init(&h->loop, &h->async, on_hub_async);
    h->async.data = h;
    int rc = sim_hub_start(&h->loop, &h->cfg, &h->sim, h->err, sizeof(h->err));
    pthread_mutex_lock(&hub_mu);
    h->start_rc = rc;
    h->port = rc == 0 ? sim_hub_port(h->sim) : 0;
    h->ready = 1;
    pthread_cond_broadcast(&hub_cv);
    pthread_mutex_unlock(&hub_mu);
    if (rc != 0) {
        if (h->sim)
            sim_hub_shutdown(h->sim, NULL, NULL);
        uv_close((uv_handle_t *)&h->async, NULL);
    }
    uv_run(&h->loop, UV_RUN_DEFAULT);
    sim_hub_free(h->sim);
    int close_rc = uv_loop_close(&h->loop);
    pthread_mutex_lock(&hub_mu);
    h->loop_close_rc = close_rc;
    h->stopped = 1;
    pthread_cond_broadcast(&hub_cv);
    pthread_mutex_unlock(&hub_mu);
}

static void *hub_thread(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&hub_mu);
        while (!hub_next)
            pthread_cond_wait(&hub_cv, &hub_mu);
        struct hub *h = hub_next;
        hub_next = NULL;
        pthread_mutex_unlock(&hub_mu);
        hub_run(h);
    }
    return NULL;
}

/* Runs fn(h, arg) on the hub's loop thread and waits for it: the only safe place to touch the
 * store, which the server reads and writes from that thread. */
static void hub_call(struct hub *h, hub_job_fn fn, void *arg)
{
    pthread_mutex_lock(&hub_mu);
    int target = h->jobs_done + 1;
    h->job = fn;
    h->job_arg = arg;
    uv_async_send(&h->async);
    while (h->jobs_done < target)
        pthread_cond_wait(&hub_cv, &hub_mu);
    pthread_mutex_unlock(&hub_mu);
}

static void job_create_ns(struct hub *h, void *arg)
{
    (void)arg;
    const struct sim_resource *ns = sim_resource_find("", 0, "v1", 2, "namespaces", 10);
    json_object *o = json_tokener_parse("{\"metadata\":{\"name\":\"" NS "\"}}");
    int rc = sim_store_create(sim_hub_store(h->sim), ns, NULL, o, time(NULL), 0, NULL, NULL);
    json_object_put(o);
    h->start_rc = rc;
}

static void hub_wait_stopped(struct hub *h)
{
    pthread_mutex_lock(&hub_mu);
    while (!h->stopped)
        pthread_cond_wait(&hub_cv, &hub_mu);
    pthread_mutex_unlock(&hub_mu);
}

/* Starts a hub with cfg (host defaults to 127.0.0.1, port to ephemeral) and the namespace NS. */
static void hub_start(struct hub *h, const struct sim_hub_config *cfg)
{
    memset(h, 0, sizeof(*h));
    /* h2o writes to sockets whose peer may be gone (the without-certificate test hangs up). */
    signal(SIGPIPE, SIG_IGN);
    h->cfg = *cfg;
    if (!h->cfg.server.host)
        h->cfg.server.host = "127.0.0.1";
    pthread_mutex_lock(&hub_mu);
    if (!hub_thread_live) {
        pthread_t th;
        CU_ASSERT_FATAL(pthread_create(&th, NULL, hub_thread, NULL) == 0);
        pthread_detach(th);
        hub_thread_live = 1;
    }
    hub_next = h;
    pthread_cond_broadcast(&hub_cv);
    /* The thread is busy for good when an earlier test stopped at a fatal assertion without
     * stopping its hub: fail rather than hang. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    int waited = 0;
    while (!h->ready && waited == 0)
        waited = pthread_cond_timedwait(&hub_cv, &hub_mu, &deadline);
    if (!h->ready)
        hub_next = NULL;
    pthread_mutex_unlock(&hub_mu);
    CU_ASSERT_FATAL(h->ready);
    if (h->start_rc != 0) {
        fprintf(stderr, "hub: %s\n", h->err);
        hub_wait_stopped(h);
        CU_FAIL_FATAL("sim_hub_start failed");
    }
    hub_call(h, job_create_ns, NULL);
    CU_ASSERT_EQUAL_FATAL(h->start_rc, 0);
}

static void job_stop(struct hub *h, void *arg)
{
    (void)arg;
    sim_hub_shutdown(h->sim, NULL, NULL);
    uv_close((uv_handle_t *)&h->async, NULL);
}

/* Stops the hub and checks that its loop closed with no handle left. */
static void hub_stop(struct hub *h)
{
    hub_call(h, job_stop, NULL);
    hub_wait_stopped(h);
    CU_ASSERT_EQUAL(h->loop_close_rc, 0);
}

/* ---- hub-side writes ---- */

static int rb_create(struct sim_store *st, const char *ns, const char *name, int replicas)
{
    char text[512];
    snprintf(text, sizeof(text),
             "{\"apiVersion\":\"work.karmada.io/v1alpha2\",\"kind\":\"ResourceBinding\","
             "\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"},"
             "\"spec\":{\"resource\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
             "\"namespace\":\"%s\",\"name\":\"%s\"},\"replicas\":%d}}",
             name, ns, ns, name, replicas);
    json_object *obj = json_tokener_parse(text);
    int rc = sim_store_create(st, rb_res(), ns, obj, time(NULL), 0, NULL, NULL);
    json_object_put(obj);
    return rc;
}

/* Sets spec.replicas (a spec change: a new generation as well as a new version). */
static int rb_update(struct sim_store *st, const char *ns, const char *name, int replicas)
{
    json_object *cur = NULL, *next = NULL;
    int rc = sim_store_get(st, rb_res(), ns, name, &cur, NULL);
    if (rc < 0)
        return rc;
    json_object_deep_copy(cur, &next, NULL);
    json_object_put(cur);
    json_object_object_add(json_object_object_get(next, "spec"), "replicas",
                           json_object_new_int(replicas));
    rc = sim_store_update(st, rb_res(), ns, name, next, 0, NULL, NULL);
    json_object_put(next);
    return rc;
}

static int rb_delete(struct sim_store *st, const char *ns, const char *name)
{
    return sim_store_delete(st, rb_res(), ns, name, NULL, NULL, 0, NULL, NULL);
}

static int rb_exists(struct sim_store *st, const char *ns, const char *name)
{
    return sim_store_get(st, rb_res(), ns, name, NULL, NULL) == 0;
}

struct seed_job {
    const char *ns;
    int from, count;
    int failed;
};

static void job_seed(struct hub *h, void *arg)
{
    struct seed_job *j = arg;
    for (int i = j->from; i < j->from + j->count; i++) {
        char name[64];
        snprintf(name, sizeof(name), "rb-%03d", i);
        j->failed += rb_create(sim_hub_store(h->sim), j->ns, name, 1) != 0;
    }
}

/* The hub's current RBs in NS as JSON text: json-c reference counts are not shared across
 * threads, so objects cross as text. */
struct snapshot_job {
    char *text;
};

static void job_snapshot(struct hub *h, void *arg)
{
    struct snapshot_job *j = arg;
    json_object *list = NULL;
    if (sim_store_list(sim_hub_store(h->sim), rb_res(), NS, NULL, &list, NULL) == 0)
        j->text = muster_strdup(json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN));
    json_object_put(list);
}

/* ---- the client side ---- */

struct t {
    uv_loop_t loop;
    uv_timer_t ticker; /* wakes uv_run(ONCE) so the pump can look at its clock and predicate */
    struct kube_config cfg;
    struct kube_client *client;
    int client_closed;
};

struct result {
    uv_loop_t *loop;
    int done, err, http, http_version;
    char reason[KUBE_STATUS_REASON_BYTES];
    char message[KUBE_STATUS_MESSAGE_BYTES];
    long retry_after_s;
    json_object *body; /* a reference kept from the response, or NULL */
    uint64_t at_ms;    /* loop time of the callback */
};

static void on_tick(uv_timer_t *timer)
{
    (void)timer;
}

static void on_client_closed(void *ud)
{
    struct t *t = ud;
    t->client_closed = 1;
}

static int client_setup(struct t *t, const char *kubeconfig, const struct kube_client_opts *opts)
{
    memset(t, 0, sizeof(*t));
    CU_ASSERT_FATAL(uv_loop_init(&t->loop) == 0);
    uv_timer_init(&t->loop, &t->ticker);
    char err[512] = "";
    int rc = kube_config_parse(&t->cfg, kubeconfig, strlen(kubeconfig), "against-sim", NULL, err,
                               sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "kubeconfig: %s\n", err);
        return rc;
    }
    return kube_client_new(&t->loop, &t->cfg, opts, &t->client);
}

/* Closes the client, runs the loop dry and checks that no handle is left. */
static void client_teardown(struct t *t)
{
    if (t->client)
        kube_client_close(t->client, on_client_closed, t);
    uv_close((uv_handle_t *)&t->ticker, NULL);
    uv_run(&t->loop, UV_RUN_DEFAULT);
    CU_ASSERT(t->client == NULL || t->client_closed);
    CU_ASSERT_EQUAL(uv_loop_close(&t->loop), 0);
    kube_config_close(&t->cfg);
}

static void kubeconfig_text(char *buf, size_t cap, const char *scheme, int port, const char *user)
{
    snprintf(buf, cap,
             "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
             "clusters:\n- name: sim\n  cluster:\n    server: %s://127.0.0.1:%d\n"
             "users:\n- name: u\n  user: %s\n"
             "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: u\n"
             "    namespace: " NS "\n",
             scheme, port, user);
}

static uint64_t now_ms(struct t *t)
{
    uv_update_time(&t->loop);
    return uv_now(&t->loop);
}

/* Runs the loop until pred(arg) holds or timeout_ms pass; returns whether it holds. */
static int pump_until(struct t *t, int (*pred)(void *arg), void *arg, uint64_t timeout_ms)
{
    uint64_t deadline = now_ms(t) + timeout_ms;
    uv_timer_start(&t->ticker, on_tick, 5, 5);
    while (!(pred && pred(arg)) && now_ms(t) < deadline)
        uv_run(&t->loop, UV_RUN_ONCE);
    uv_timer_stop(&t->ticker);
    return pred && pred(arg);
}

static void pump_for(struct t *t, uint64_t ms)
{
    pump_until(t, NULL, NULL, ms);
}

static void on_result(int err, const struct kube_response *resp, void *ud)
{
    struct result *r = ud;
    r->done = 1;
    r->err = err;
    r->http = resp->http;
    r->http_version = resp->http_version;
    r->retry_after_s = resp->status.retry_after_s;
    snprintf(r->reason, sizeof(r->reason), "%s", resp->status.reason);
    snprintf(r->message, sizeof(r->message), "%s", resp->status.message);
    r->body = resp->body ? json_object_get(resp->body) : NULL;
    if (r->loop)
        r->at_ms = uv_now(r->loop);
}

static int result_done(void *arg)
{
    return ((struct result *)arg)->done;
}

/* Sends req and waits for its answer (at most 20 s); returns the callback's error. The
 * caller puts res->body. */
static int call(struct t *t, const struct kube_request *req, struct result *res)
{
    memset(res, 0, sizeof(*res));
    res->loop = &t->loop;
    int rc = kube_request(t->client, req, on_result, res);
    if (rc != 0)
        return rc;
    /* Fatal: an answer still to come would land in a dead stack frame. */
    CU_ASSERT_FATAL(pump_until(t, result_done, res, 20000));
    return res->err;
}

static const char *meta_str(json_object *obj, const char *key)
{
    return kube_json_path_str(obj, "metadata", key, NULL);
}

static int64_t meta_rv(json_object *obj)
{
    const char *rv = meta_str(obj, "resourceVersion");
    return rv ? strtoll(rv, NULL, 10) : -1;
}

/* The whole file as a NUL-terminated string (muster_free it), or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = muster_malloc((size_t)size + 1);
    if (buf) {
        size_t n = fread(buf, 1, (size_t)size, f);
        buf[n] = '\0';
    }
    fclose(f);
    return buf;
}

/* ---- an informer whose callbacks are recorded and checked against a mirror of the cache ---- */

/* One informer callback, or one entry of the hub's event log: 'A' add, 'U' update, 'D' delete. */
struct ev {
    char type;
    int64_t rv;
    int64_t old_rv; /* updates: the version the informer replaced */
    uint64_t phase; /* reflector relists_gone when the callback ran */
    char name[64];
};

struct evlist {
    struct ev *v;
    size_t n, cap;
};

static void evlist_push(struct evlist *l, char type, int64_t rv, int64_t old_rv, uint64_t phase,
                        const char *name)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        struct ev *v = muster_realloc(l->v, cap * sizeof(*v));
        CU_ASSERT_FATAL(v != NULL);
        l->v = v;
        l->cap = cap;
    }
    struct ev *e = &l->v[l->n++];
    e->type = type;
    e->rv = rv;
    e->old_rv = old_rv;
    e->phase = phase;
    snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
}

struct watcher {
    struct t *t;
    struct kube_informer inf;
    int synced, closed;
    int64_t sync_rv;   /* the first list's resourceVersion */
    struct evlist got; /* callbacks after the first list */
    /* name -> resourceVersion, moved only by callbacks: what the informer has told its owner.
     * A callback that does not fit it (an add for a known name, an update from a version the
     * owner never saw or to an older one, a delete of an unknown name) is a broken promise. */
    json_object *mirror;
    json_object *at_sync; /* a copy of the mirror when the first list was applied */
    int broken;
    int errors;
};

static void w_add(void *ud, struct json_object *obj)
{
    struct watcher *w = ud;
    const char *name = meta_str(obj, "name");
    if (json_object_object_get_ex(w->mirror, name, NULL))
        w->broken++;
    json_object_object_add(w->mirror, name, json_object_new_int64(meta_rv(obj)));
    if (w->synced)
        evlist_push(&w->got, 'A', meta_rv(obj), 0, w->inf.reflector.stats.relists_gone, name);
}

static void w_update(void *ud, struct json_object *old_obj, struct json_object *new_obj)
{
    struct watcher *w = ud;
    const char *name = meta_str(new_obj, "name");
    json_object *seen = NULL;
    if (!json_object_object_get_ex(w->mirror, name, &seen) ||
        json_object_get_int64(seen) != meta_rv(old_obj) || meta_rv(new_obj) <= meta_rv(old_obj))
        w->broken++;
    json_object_object_add(w->mirror, name, json_object_new_int64(meta_rv(new_obj)));
    if (w->synced)
        evlist_push(&w->got, 'U', meta_rv(new_obj), meta_rv(old_obj),
                    w->inf.reflector.stats.relists_gone, name);
}

static void w_delete(void *ud, struct json_object *obj)
{
    struct watcher *w = ud;
    const char *name = meta_str(obj, "name");
    if (!json_object_object_get_ex(w->mirror, name, NULL))
        w->broken++;
    json_object_object_del(w->mirror, name);
    if (w->synced)
        evlist_push(&w->got, 'D', meta_rv(obj), 0, w->inf.reflector.stats.relists_gone, name);
}

static void w_synced(void *ud)
{
    struct watcher *w = ud;
    w->synced = 1;
    w->sync_rv = strtoll(kube_reflector_version(&w->inf.reflector), NULL, 10);
    json_object_deep_copy(w->mirror, &w->at_sync, NULL);
}

static void w_error(void *ud, int err, const struct kube_status *st)
{
    struct watcher *w = ud;
    (void)err;
    (void)st;
    w->errors++;
}

static void w_closed(struct kube_informer *inf)
{
    struct watcher *w = (struct watcher *)((char *)inf - offsetof(struct watcher, inf));
    w->closed = 1;
}

static int w_is_synced(void *arg)
{
    return ((struct watcher *)arg)->synced;
}

static void watcher_start(struct watcher *w, struct t *t, const struct kube_reflector_opts *ropt)
{
    memset(w, 0, sizeof(*w));
    w->t = t;
    w->mirror = json_object_new_object();
    static const struct kube_informer_handler h = {w_add, w_update, w_delete, w_synced, w_error};
    CU_ASSERT_FATAL(kube_informer_init(&w->inf, &t->loop, t->client, ropt, &h, w) == 0);
    CU_ASSERT_FATAL(kube_informer_start(&w->inf) == 0);
    CU_ASSERT_FATAL(pump_until(t, w_is_synced, w, 10000));
}

static int w_is_closed(void *arg)
{
    return ((struct watcher *)arg)->closed;
}

static void watcher_close(struct watcher *w)
{
    kube_informer_close(&w->inf, w_closed);
    CU_ASSERT(pump_until(w->t, w_is_closed, w, 5000));
    json_object_put(w->mirror);
    json_object_put(w->at_sync);
    muster_free(w->got.v);
}

/* Whether an event-log item is a change of an RB in NS. */
static int log_item_ours(json_object *it)
{
    json_object *g, *r, *ns;
    return json_object_object_get_ex(it, "group", &g) &&
           strcmp(json_object_get_string(g), "work.karmada.io") == 0 &&
           json_object_object_get_ex(it, "resource", &r) &&
           strcmp(json_object_get_string(r), "resourcebindings") == 0 &&
           json_object_object_get_ex(it, "namespace", &ns) &&
           strcmp(json_object_get_string(ns), NS) == 0;
}

static void log_item_push(struct evlist *l, json_object *it)
{
    const char *type = json_object_get_string(json_object_object_get(it, "type"));
    const char *rv = json_object_get_string(json_object_object_get(it, "resourceVersion"));
    char c = strcmp(type, "ADDED") == 0 ? 'A' : strcmp(type, "MODIFIED") == 0 ? 'U' : 'D';
    evlist_push(l, c, strtoll(rv, NULL, 10), 0, 0,
                json_object_get_string(json_object_object_get(it, "name")));
}

/* The hub's own log of RB changes in NS after since, through GET /debug/sim/events. *floor and
 * *watchers get the ring's floor and the number of open watch streams. */
static void server_log(struct t *t, int64_t since, struct evlist *out, int64_t *floor,
                       int *watchers)
{
    char path[128];
    snprintf(path, sizeof(path), "/debug/sim/events?since=%" PRId64, since);
    struct kube_request req = {.verb = KUBE_GET, .path = path};
    struct result res;
    CU_ASSERT_EQUAL_FATAL(call(t, &req, &res), 0);
    json_object *items = json_object_object_get(res.body, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *it = json_object_array_get_idx(items, i);
        if (log_item_ours(it))
            log_item_push(out, it);
    }
    if (floor)
        *floor =
            strtoll(json_object_get_string(json_object_object_get(res.body, "floor")), NULL, 10);
    if (watchers)
        *watchers = json_object_get_int(json_object_object_get(res.body, "watchers"));
    json_object_put(res.body);
}

/* The same from the --event-log file, which holds every change, not just the ring's. */
static void file_log(const char *path, int64_t since, struct evlist *out)
{
    char *text = read_text(path);
    CU_ASSERT_FATAL(text != NULL);
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        json_object *it = json_tokener_parse(line);
        if (it && log_item_ours(it) &&
            strtoll(json_object_get_string(json_object_object_get(it, "resourceVersion")), NULL,
                    10) > since)
            log_item_push(out, it);
        json_object_put(it);
        line = nl ? nl + 1 : line + strlen(line);
    }
    muster_free(text);
}

/* Checks that the informer's cache holds exactly the hub's RBs in NS, object for object, and
 * returns the hub's list (put it). */
static json_object *check_cache_is_hub(struct hub *h, struct watcher *w)
{
    struct snapshot_job snap = {0};
    hub_call(h, job_snapshot, &snap);
    CU_ASSERT_FATAL(snap.text != NULL);
    json_object *list = json_tokener_parse(snap.text);
    muster_free(snap.text);
    json_object *items = json_object_object_get(list, "items");
    size_t n = json_object_array_length(items);
    CU_ASSERT_EQUAL(kube_informer_size(&w->inf), n);
    CU_ASSERT_EQUAL(json_object_object_length(w->mirror), (int)n);
    size_t same = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *it = json_object_array_get_idx(items, i);
        json_object *cached = kube_informer_get(&w->inf, NS, meta_str(it, "name"));
        json_object *seen = NULL;
        same += cached && json_object_equal(cached, it) &&
                json_object_object_get_ex(w->mirror, meta_str(it, "name"), &seen) &&
                json_object_get_int64(seen) == meta_rv(it);
    }
    CU_ASSERT_EQUAL(same, n);
    return list;
}

static int evlist_equal(const struct evlist *a, const struct evlist *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->v[i].type != b->v[i].type || a->v[i].rv != b->v[i].rv ||
            strcmp(a->v[i].name, b->v[i].name) != 0) {
            fprintf(stderr, "\n  event %zu: informer %c %s@%" PRId64 ", hub %c %s@%" PRId64 "\n", i,
                    a->v[i].type, a->v[i].name, a->v[i].rv, b->v[i].type, b->v[i].name, b->v[i].rv);
            return 0;
        }
    }
    return 1;
}

/* ---- 1. watch continuity across dropped streams ---- */

#define CHANGES 500  /* RB changes in NS the hub makes while the informer watches */
#define BATCH 50     /* made at once on the hub's thread, then the client runs a while */
#define DROP_AFTER 7 /* the hub ends every watch stream after this many events */
#define NAMES 60     /* RB names the changes draw from */

struct churn_job {
    uint64_t rng;
    int batch; /* changes in NS per job; 0: BATCH */
    int made;  /* changes committed in NS */
    int adds, updates, deletes, others;
    int failed;
};

static uint64_t churn_next(struct churn_job *j)
{
    /* xorshift64 with a fixed seed: the same run every time. */
    j->rng ^= j->rng << 13;
    j->rng ^= j->rng >> 7;
    j->rng ^= j->rng << 17;
    return j->rng;
}

/* BATCH random creates, updates and deletes of RBs in NS, with changes in OTHER_NS between
 * them that the informer must never see. */
static void job_churn(struct hub *h, void *arg)
{
    struct churn_job *j = arg;
    struct sim_store *st = sim_hub_store(h->sim);
    for (int k = 0; k < (j->batch ? j->batch : BATCH); k++) {
        char name[64];
        snprintf(name, sizeof(name), "rb-%03d", (int)(churn_next(j) % NAMES));
        int rc;
        if (churn_next(j) % 8 == 0) {
            rc = rb_exists(st, OTHER_NS, name) ? rb_delete(st, OTHER_NS, name)
                                               : rb_create(st, OTHER_NS, name, 1);
            j->others++;
            j->failed += rc != 0;
        }
        /* Never a value an RB already has: an update that changes nothing commits nothing. */
        int replicas = j->made + 2;
        if (!rb_exists(st, NS, name)) {
            rc = rb_create(st, NS, name, replicas);
            j->adds++;
        } else if (churn_next(j) % 3 == 0) {
            rc = rb_delete(st, NS, name);
            j->deletes++;
        } else {
            rc = rb_update(st, NS, name, replicas);
            j->updates++;
        }
        j->failed += rc != 0;
        j->made++;
    }
}

struct wait_count {
    struct watcher *w;
    size_t n;
};

static int got_at_least(void *arg)
{
    struct wait_count *c = arg;
    return c->w->got.n >= c->n;
}

static void test_watch_continuity_across_drops(void)
{
    struct hub h;
    struct sim_hub_config hc = {
        .server = {.fault_drop_watch_after = DROP_AFTER, .bookmark_interval_ms = 50}};
    hub_start(&h, &hc);
    struct seed_job seed = {.ns = NS, .from = 0, .count = 20};
    hub_call(&h, job_seed, &seed);
    CU_ASSERT_EQUAL(seed.failed, 0);

    struct t t;
    char kc[1024];
    kubeconfig_text(kc, sizeof(kc), "http", h.port, "{}");
    CU_ASSERT_FATAL(client_setup(&t, kc, NULL) == 0);
    struct watcher w;
    struct kube_reflector_opts ropt = {.path = RB_PATH, .page_size = 7};
    watcher_start(&w, &t, &ropt);
    CU_ASSERT_EQUAL(kube_informer_size(&w.inf), 20);

    /* Changes in batches while the client runs: streams end every DROP_AFTER events, often
     * in the middle of a batch, and the reflector must pick up exactly where it stopped. */
    struct churn_job churn = {.rng = 0x9e3779b97f4a7c15ull};
    while (churn.made < CHANGES) {
        hub_call(&h, job_churn, &churn);
        pump_for(&t, 15);
    }
    CU_ASSERT_EQUAL(churn.failed, 0);
    CU_ASSERT(churn.adds > 0 && churn.updates > 0 && churn.deletes > 0 && churn.others > 0);

    struct evlist want = {0};
    int64_t floor = 0;
    server_log(&t, w.sync_rv, &want, &floor, NULL);
    CU_ASSERT(floor <= w.sync_rv); /* the ring still holds every change since the list */
    CU_ASSERT_EQUAL(want.n, CHANGES);
    struct wait_count wc = {&w, want.n};
    CU_ASSERT(pump_until(&t, got_at_least, &wc, 15000));
    /* Anything duplicated or replayed would arrive now. */
    pump_for(&t, 200);
    CU_ASSERT(evlist_equal(&w.got, &want));
    CU_ASSERT_EQUAL(w.broken, 0);
    json_object_put(check_cache_is_hub(&h, &w));

    struct kube_reflector_stats rs = w.inf.reflector.stats;
    CU_ASSERT(rs.watches >= CHANGES / DROP_AFTER + 1);
    CU_ASSERT_EQUAL(rs.lists, 1);
    CU_ASSERT_EQUAL(rs.relists_gone, 0);
    CU_ASSERT_EQUAL(rs.events, CHANGES);
    CU_ASSERT(rs.bookmarks > 0); /* they moved the version and were not taken for changes */
    CU_ASSERT_EQUAL(rs.errors, 0);
    CU_ASSERT_EQUAL(w.errors, 0);

    watcher_close(&w);
    client_teardown(&t);
    hub_stop(&h);
    muster_free(want.v);
}

/* An informer that starts while the hub is busy: its list is paged (with latency, so pages
 * are far apart) while changes land between the pages. The list is one snapshot and the watch
 * from its version brings every later change once, so after the first list the callbacks are
 * again exactly the hub's log. */
static void test_informer_started_during_churn(void)
{
    struct hub h;
    struct sim_hub_config hc = {.server = {.fault_latency_ms = 10}};
    hub_start(&h, &hc);
    struct seed_job seed = {.ns = NS, .from = 0, .count = NAMES};
    hub_call(&h, job_seed, &seed);

    struct t t;
    char kc[1024];
    kubeconfig_text(kc, sizeof(kc), "http", h.port, "{}");
    CU_ASSERT_FATAL(client_setup(&t, kc, NULL) == 0);
    struct watcher w;
    memset(&w, 0, sizeof(w));
    w.t = &t;
    w.mirror = json_object_new_object();
    static const struct kube_informer_handler hd = {w_add, w_update, w_delete, w_synced, w_error};
    struct kube_reflector_opts ropt = {.path = RB_PATH, .page_size = 5};
    CU_ASSERT_FATAL(kube_informer_init(&w.inf, &t.loop, t.client, &ropt, &hd, &w) == 0);
    CU_ASSERT_FATAL(kube_informer_start(&w.inf) == 0);
    struct churn_job churn = {.rng = 4242, .batch = 3};
    int rounds = 0;
    while (!w.synced && rounds++ < 500) {
        hub_call(&h, job_churn, &churn);
        pump_for(&t, 5);
    }
    CU_ASSERT_FATAL(w.synced);
    CU_ASSERT(churn.made > 0);
    for (int i = 0; i < 10; i++) {
        hub_call(&h, job_churn, &churn);
        pump_for(&t, 5);
    }
    CU_ASSERT_EQUAL(churn.failed, 0);

    struct evlist want = {0};
    server_log(&t, w.sync_rv, &want, NULL, NULL);
    struct wait_count wc = {&w, want.n};
    CU_ASSERT(pump_until(&t, got_at_least, &wc, 10000));
    pump_for(&t, 100);
    CU_ASSERT(evlist_equal(&w.got, &want));
    CU_ASSERT_EQUAL(w.broken, 0);
    json_object_put(check_cache_is_hub(&h, &w));
    CU_ASSERT_EQUAL(w.inf.reflector.stats.lists, 1);
    CU_ASSERT_EQUAL(w.inf.reflector.stats.relists_gone, 0);

    watcher_close(&w);
    muster_free(want.v);
    client_teardown(&t);
    hub_stop(&h);
}

/* ---- 2. 410 Gone: relist and report exactly the difference ---- */

#define SMALL_HISTORY 16
#define GONE_DROP_AFTER 5

/* 40 changes, more than the hub's history holds, while the client's loop is stopped: the
 * informer must report the net effect, so objects created and deleted meanwhile never show. */
static void job_gone_changes(struct hub *h, void *arg)
{
    int *failed = arg;
    struct sim_store *st = sim_hub_store(h->sim);
    char name[64];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof(name), "rb-%03d", i);
        *failed += rb_delete(st, NS, name) != 0;
    }
    for (int i = 8; i < 18; i++) {
        snprintf(name, sizeof(name), "rb-%03d", i);
        *failed += rb_update(st, NS, name, 5) != 0;
    }
    for (int i = 8; i < 11; i++) {
        snprintf(name, sizeof(name), "rb-%03d", i);
        *failed += rb_update(st, NS, name, 6) != 0;
    }
    for (int i = 100; i < 110; i++) {
        snprintf(name, sizeof(name), "rb-%03d", i);
        *failed += rb_create(st, NS, name, 3) != 0;
    }
    for (int i = 200; i < 204; i++) {
        snprintf(name, sizeof(name), "transient-%d", i);
        *failed += rb_create(st, NS, name, 1) != 0;
        *failed += rb_delete(st, NS, name) != 0;
    }
    *failed += rb_update(st, NS, "rb-101", 4) != 0;
}

static int gone_relisted(void *arg)
{
    struct kube_reflector_stats *s = &((struct watcher *)arg)->inf.reflector.stats;
    return s->relists_gone >= 1 && s->lists >= 2;
}

static int watch_is_open(void *arg)
{
    struct watcher *w = arg;
    int watchers = 0;
    struct evlist none = {0};
    server_log(w->t, INT64_MAX, &none, NULL, &watchers);
    muster_free(none.v);
    return watchers == 1;
}

static int ev_by_name(const void *a, const void *b)
{
    return strcmp(((const struct ev *)a)->name, ((const struct ev *)b)->name);
}

static void test_gone_relists_and_reports_the_difference(void)
{
    char log[512];
    test_tmp_path(log, sizeof(log), "against-sim-gone.jsonl");
    remove(log);
    struct hub h;
    struct sim_hub_config hc = {.server = {.fault_drop_watch_after = GONE_DROP_AFTER},
                                .history = SMALL_HISTORY,
                                .event_log = log};
    hub_start(&h, &hc);
    struct seed_job seed = {.ns = NS, .from = 0, .count = 30};
    hub_call(&h, job_seed, &seed);
    CU_ASSERT_EQUAL(seed.failed, 0);

    struct t t;
    char kc[1024];
    kubeconfig_text(kc, sizeof(kc), "http", h.port, "{}");
    CU_ASSERT_FATAL(client_setup(&t, kc, NULL) == 0);
    struct watcher w;
    struct kube_reflector_opts ropt = {.path = RB_PATH, .backoff_initial_ms = 50};
    watcher_start(&w, &t, &ropt);
    CU_ASSERT_EQUAL(kube_informer_size(&w.inf), 30);
    /* The watch must be open at the hub, so that it sees some changes before it is cut. */
    for (int i = 0; i < 200 && !watch_is_open(&w); i++)
        pump_for(&t, 10);
    CU_ASSERT_FATAL(watch_is_open(&w));

    /* The client's loop is stopped while the hub changes more than its history holds. */
    int failed = 0;
    hub_call(&h, job_gone_changes, &failed);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT(pump_until(&t, gone_relisted, &w, 10000));
    pump_for(&t, 300);
    struct kube_reflector_stats rs = w.inf.reflector.stats;
    CU_ASSERT_EQUAL(rs.relists_gone, 1);
    CU_ASSERT_EQUAL(rs.lists, 2);

    /* Before the cut: the first events of the hub's log, in order. */
    struct evlist all = {0}, before = {0}, after = {0};
    file_log(log, w.sync_rv, &all);
    CU_ASSERT_EQUAL(all.n, 40);
    CU_ASSERT(all.n > SMALL_HISTORY + GONE_DROP_AFTER);
    for (size_t i = 0; i < w.got.n; i++) {
        struct ev *e = &w.got.v[i];
        if (e->phase == 0)
            evlist_push(&before, e->type, e->rv, e->old_rv, 0, e->name);
        else
            evlist_push(&after, e->type, e->rv, e->old_rv, e->phase, e->name);
    }
    CU_ASSERT_EQUAL(before.n, GONE_DROP_AFTER);
    struct evlist head = {0};
    for (size_t i = 0; i < before.n && i < all.n; i++)
        evlist_push(&head, all.v[i].type, all.v[i].rv, 0, 0, all.v[i].name);
    CU_ASSERT(evlist_equal(&before, &head));

    /* What the informer had told its owner when the relist came: the first list plus the
     * events before the cut. */
    json_object *pre = NULL;
    json_object_deep_copy(w.at_sync, &pre, NULL);
    for (size_t i = 0; i < before.n; i++) {
        if (before.v[i].type == 'D')
            json_object_object_del(pre, before.v[i].name);
        else
            json_object_object_add(pre, before.v[i].name, json_object_new_int64(before.v[i].rv));
    }
    /* After: exactly the difference between that and the hub's state, each change once. */
    json_object *list = check_cache_is_hub(&h, &w);
    json_object *items = json_object_object_get(list, "items");
    struct evlist want = {0};
    int adds = 0, updates = 0, deletes = 0;
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *it = json_object_array_get_idx(items, i), *old = NULL;
        const char *name = meta_str(it, "name");
        if (!json_object_object_get_ex(pre, name, &old)) {
            evlist_push(&want, 'A', meta_rv(it), 0, 1, name);
            adds++;
        } else if (json_object_get_int64(old) != meta_rv(it)) {
            evlist_push(&want, 'U', meta_rv(it), json_object_get_int64(old), 1, name);
            updates++;
        }
    }
    json_object *hub_names = json_object_new_object();
    for (size_t i = 0; i < json_object_array_length(items); i++)
        json_object_object_add(hub_names, meta_str(json_object_array_get_idx(items, i), "name"),
                               NULL);
    json_object_object_foreach(pre, name, rv)
    {
        if (!json_object_object_get_ex(hub_names, name, NULL)) {
            evlist_push(&want, 'D', json_object_get_int64(rv), 0, 1, name);
            deletes++;
        }
    }
    CU_ASSERT_EQUAL(adds, 10);
    CU_ASSERT_EQUAL(updates, 10);
    CU_ASSERT_EQUAL(deletes, 8 - GONE_DROP_AFTER);
    qsort(want.v, want.n, sizeof(*want.v), ev_by_name);
    qsort(after.v, after.n, sizeof(*after.v), ev_by_name);
    CU_ASSERT(evlist_equal(&after, &want));
    int old_ok = 1;
    for (size_t i = 0; i < after.n && i < want.n; i++)
        old_ok &= after.v[i].old_rv == want.v[i].old_rv;
    CU_ASSERT(old_ok);
    CU_ASSERT_EQUAL(w.broken, 0);

    json_object_put(hub_names);
    json_object_put(pre);
    json_object_put(list);
    muster_free(all.v);
    muster_free(before.v);
    muster_free(after.v);
    muster_free(head.v);
    muster_free(want.v);
    watcher_close(&w);
    client_teardown(&t);
    hub_stop(&h);
    remove(log);
}

/* ---- 3. conflicts surface; the caller re-reads and retries ---- */

static int64_t body_replicas(json_object *obj)
{
    json_object *spec, *r;
    if (!json_object_object_get_ex(obj, "spec", &spec) ||
        !json_object_object_get_ex(spec, "replicas", &r))
        return -1;
    return json_object_get_int64(r);
}

/* A PUT of obj with spec.replicas set to replicas, carrying obj's resourceVersion. */
static int put_replicas(struct t *t, json_object *obj, int replicas, struct result *res)
{
    json_object *next = NULL;
    json_object_deep_copy(obj, &next, NULL);
    json_object_object_add(json_object_object_get(next, "spec"), "replicas",
                           json_object_new_int(replicas));
    struct kube_request req = {.verb = KUBE_UPDATE,
                               .path = RB_PATH "/web-deployment",
                               .body = json_object_to_json_string(next)};
    int rc = call(t, &req, res);
    json_object_put(next);
    return rc;
}

static void test_conflict_then_reread_and_retry(void)
{
    struct hub h;
    struct sim_hub_config hc = {0};
    hub_start(&h, &hc);
    struct t t;
    char kc[1024];
    kubeconfig_text(kc, sizeof(kc), "http", h.port, "{}");
    CU_ASSERT_FATAL(client_setup(&t, kc, NULL) == 0);

    const char *body = "{\"apiVersion\":\"work.karmada.io/v1alpha2\",\"kind\":\"ResourceBinding\","
                       "\"metadata\":{\"name\":\"web-deployment\"},\"spec\":{\"resource\":{"
                       "\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"web\"},"
                       "\"replicas\":1}}";
    struct kube_request create = {.verb = KUBE_CREATE, .path = RB_PATH, .body = body};
    struct result created, res;
    CU_ASSERT_EQUAL_FATAL(call(&t, &create, &created), 0);
    CU_ASSERT_EQUAL(created.http, 201);
    CU_ASSERT_EQUAL(call(&t, &create, &res), MUSTER_EEXIST);
    CU_ASSERT_EQUAL(res.http, 409);
    CU_ASSERT_STRING_EQUAL(res.reason, "AlreadyExists");

    /* Another writer gets in first: our copy is now stale. */
    CU_ASSERT_EQUAL(put_replicas(&t, created.body, 2, &res), 0);
    CU_ASSERT(meta_rv(res.body) > meta_rv(created.body));
    json_object_put(res.body);
    CU_ASSERT_EQUAL(put_replicas(&t, created.body, 7, &res), MUSTER_ECONFLICT);
    CU_ASSERT_EQUAL(res.http, 409);
    CU_ASSERT_STRING_EQUAL(res.reason, "Conflict");
    CU_ASSERT_PTR_NULL(res.body);
    /* A merge patch that names the stale version conflicts too. */
    char patch[256];
    snprintf(patch, sizeof(patch),
             "{\"metadata\":{\"resourceVersion\":\"%s\"},"
             "\"spec\":{\"replicas\":7}}",
             meta_str(created.body, "resourceVersion"));
    struct kube_request mp = {
        .verb = KUBE_MERGE_PATCH, .path = RB_PATH "/web-deployment", .body = patch};
    CU_ASSERT_EQUAL(call(&t, &mp, &res), MUSTER_ECONFLICT);

    /* The client did not retry on its own: the object still has the other writer's value. */
    struct kube_request get = {.verb = KUBE_GET, .path = RB_PATH "/web-deployment"};
    struct result cur;
    CU_ASSERT_EQUAL_FATAL(call(&t, &get, &cur), 0);
    CU_ASSERT_EQUAL(body_replicas(cur.body), 2);
    /* Re-read, re-apply, retry: that succeeds and sticks. */
    CU_ASSERT_EQUAL(put_replicas(&t, cur.body, 7, &res), 0);
    CU_ASSERT(meta_rv(res.body) > meta_rv(cur.body));
    json_object_put(res.body);
    json_object_put(cur.body);
    CU_ASSERT_EQUAL_FATAL(call(&t, &get, &cur), 0);
    CU_ASSERT_EQUAL(body_replicas(cur.body), 7);
    json_object_put(cur.body);
    json_object_put(created.body);

    client_teardown(&t);
    hub_stop(&h);
}

/* ---- 4. 429 back-off and 500s ---- */

#define FAULTY_REQUESTS 24

struct burst {
    struct result res[FAULTY_REQUESTS];
    int n;
};

static int burst_done(void *arg)
{
    struct burst *b = arg;
    for (int i = 0; i < b->n; i++)
        if (!b->res[i].done)
            return 0;
    return 1;
}

/* Sends n GETs of RB rb-000 at once and waits for every answer. */
static void get_burst(struct t *t, struct burst *b, int n)
{
    memset(b, 0, sizeof(*b));
    b->n = n;
    struct kube_request req = {.verb = KUBE_GET, .path = RB_PATH "/rb-000"};
    for (int i = 0; i < n; i++) {
        b->res[i].loop = &t->loop;
        CU_ASSERT_EQUAL(kube_request(t->client, &req, on_result, &b->res[i]), 0);
    }
    CU_ASSERT_FATAL(pump_until(t, burst_done, b, 20000));
}

static void test_429_backoff_and_500s(void)
{
    struct hub h;
    struct sim_hub_config hc = {.server = {.fault_error_rate = 0.5, .seed = 7}};
    hub_start(&h, &hc);
    struct seed_job seed = {.ns = NS, .from = 0, .count = 30};
    hub_call(&h, job_seed, &seed);
    struct t t;
    char kc[1024];
    kubeconfig_text(kc, sizeof(kc), "http", h.port, "{}");
    /* More retries than the default so that a long run of 429s cannot fail the test. */
    struct kube_client_opts opts = {.max_retries = 12};
    CU_ASSERT_FATAL(client_setup(&t, kc, &opts) == 0);

    /* Half of all requests fail, half of those with 429 Retry-After: 1. The client waits and
     * retries 429s, so a request fails only when the hub answers 500, which it passes on. */
    struct burst b;
    uint64_t t0 = now_ms(&t);
    get_burst(&t, &b, FAULTY_REQUESTS);
    int ok = 0, failed500 = 0, other = 0;
    uint64_t slowest_ok = 0;
    for (int i = 0; i < FAULTY_REQUESTS; i++) {
        struct result *r = &b.res[i];
        if (r->err == 0 && r->http == 200 && strcmp(meta_str(r->body, "name"), "rb-000") == 0) {
            ok++;
            if (r->at_ms - t0 > slowest_ok)
                slowest_ok = r->at_ms - t0;
        } else if (r->err == MUSTER_EHTTP && r->http == 500 &&
                   strcmp(r->reason, "InternalError") == 0) {
            failed500++;
        } else {
            other++;
        }
        json_object_put(r->body);
    }
    struct kube_client_stats cs;
    kube_client_stats(t.client, &cs);
    CU_ASSERT(cs.retried > 0);
    CU_ASSERT(ok > 0);
    CU_ASSERT(failed500 > 0);
    CU_ASSERT_EQUAL(other, 0); /* no 429 reached us */
    CU_ASSERT_EQUAL(cs.started, FAULTY_REQUESTS + cs.retried);
    /* Retried requests waited for Retry-After (1 s) before they went out again. */
    CU_ASSERT(slowest_ok >= 1000);

    /* The reflector lives through the same faults: its list pages and watches fail now and
     * then, it backs off and carries on, and nothing is lost or repeated. */
    struct watcher w;
    struct kube_reflector_opts ropt = {
        .path = RB_PATH, .page_size = 10, .backoff_initial_ms = 20, .backoff_max_ms = 200};
    watcher_start(&w, &t, &ropt);
    CU_ASSERT_EQUAL(kube_informer_size(&w.inf), 30);
    struct churn_job churn = {.rng = 12345};
    for (int i = 0; i < 2; i++) {
        hub_call(&h, job_churn, &churn);
        pump_for(&t, 20);
    }
    struct evlist want = {0};
    server_log(&t, w.sync_rv, &want, NULL, NULL); /* /debug is never failed */
    CU_ASSERT_EQUAL(want.n, 2 * BATCH);
    struct wait_count wc = {&w, want.n};
    CU_ASSERT(pump_until(&t, got_at_least, &wc, 15000));
    pump_for(&t, 100);
    CU_ASSERT(evlist_equal(&w.got, &want));
    CU_ASSERT_EQUAL(w.broken, 0);
    json_object_put(check_cache_is_hub(&h, &w));
    watcher_close(&w);
    muster_free(want.v);
    client_teardown(&t);
    hub_stop(&h);

    /* Every request failing: 500s reach the caller at once, 429s once the retries are spent. */
    hc.server.fault_error_rate = 1.0;
    hub_start(&h, &hc);
    kubeconfig_text(kc, sizeof(kc), "http", h.port, "{}");
    opts.max_retries = 1;
    CU_ASSERT_FATAL(client_setup(&t, kc, &opts) == 0);
    get_burst(&t, &b, FAULTY_REQUESTS);
    failed500 = other = 0;
    int gave_up429 = 0;
    for (int i = 0; i < FAULTY_REQUESTS; i++) {
        struct result *r = &b.res[i];
        if (r->err == MUSTER_EHTTP && r->http == 500)
            failed500++;
        else if (r->err == MUSTER_ETOOMANY && r->http == 429 && r->retry_after_s == 1)
            gave_up429++;
        else
            other++;
        json_object_put(r->body);
    }
    CU_ASSERT(failed500 > 0);
    CU_ASSERT_EQUAL(other, 0);
    kube_client_stats(t.client, &cs);
    CU_ASSERT(cs.retried >= (uint64_t)gave_up429);
    /* /version is never failed: the hub is up, only its API is faulty. */
    struct kube_request ver = {.verb = KUBE_GET, .path = "/version"};
    struct result res;
    CU_ASSERT_EQUAL(call(&t, &ver, &res), 0);
    json_object_put(res.body);
    client_teardown(&t);
    hub_stop(&h);
}

/* ---- 5. pagination ---- */

struct paged {
    json_object *seen; /* name -> resourceVersion */
    int pages, items, dup, full_pages;
    int64_t remaining_first, list_rv, max_item_rv;
    int rv_moved; /* a later page named another resourceVersion than the first */
};

/* Lists RB_PATH in pages of limit, calling between(arg) after the first page. */
static void list_pages(struct t *t, long limit, void (*between)(void *arg), void *arg,
                       struct paged *p)
{
    memset(p, 0, sizeof(*p));
    p->seen = json_object_new_object();
    p->remaining_first = -1;
    char cont[1024] = "";
    do {
        struct kube_request req = {.verb = KUBE_LIST,
                                   .path = RB_PATH,
                                   .limit = limit,
                                   .continue_token = cont[0] ? cont : NULL};
        struct result res;
        CU_ASSERT_EQUAL_FATAL(call(t, &req, &res), 0);
        p->pages++;
        json_object *items = json_object_object_get(res.body, "items");
        size_t n = json_object_array_length(items);
        p->full_pages += n == (size_t)limit;
        for (size_t i = 0; i < n; i++) {
            json_object *it = json_object_array_get_idx(items, i);
            const char *name = meta_str(it, "name");
            p->dup += json_object_object_get_ex(p->seen, name, NULL);
            json_object_object_add(p->seen, name, json_object_new_int64(meta_rv(it)));
            if (meta_rv(it) > p->max_item_rv)
                p->max_item_rv = meta_rv(it);
            p->items++;
        }
        json_object *md = json_object_object_get(res.body, "metadata"), *v;
        int64_t rv = strtoll(json_object_get_string(json_object_object_get(md, "resourceVersion")),
                             NULL, 10);
        if (p->pages == 1) {
            p->list_rv = rv;
            if (json_object_object_get_ex(md, "remainingItemCount", &v))
                p->remaining_first = json_object_get_int64(v);
        } else if (rv != p->list_rv) {
            p->rv_moved = 1;
        }
        cont[0] = '\0';
        if (json_object_object_get_ex(md, "continue", &v))
            snprintf(cont, sizeof(cont), "%s", json_object_get_string(v));
        json_object_put(res.body);
        if (p->pages == 1 && between)
            between(arg);
    } while (cont[0] && p->pages < 20);
}

static int has_names(json_object *seen, int from, int to)
{
    int all = 1;
    for (int i = from; i < to; i++) {
        char name[64];
        snprintf(name, sizeof(name), "rb-%03d", i);
        all &= json_object_object_get_ex(seen, name, NULL);
    }
    return all;
}

/* Changes behind the first page and ahead of it, between two pages of one list. */
static void job_page_churn(struct hub *h, void *arg)
{
    int *failed = arg;
    struct sim_store *st = sim_hub_store(h->sim);
    *failed += rb_update(st, NS, "rb-010", 8) != 0; /* on the page already served */
    *failed += rb_update(st, NS, "rb-120", 8) != 0; /* on a page to come, twice */
    *failed += rb_update(st, NS, "rb-120", 9) != 0;
    *failed += rb_delete(st, NS, "rb-200") != 0;     /* gone before its page */
    *failed += rb_create(st, NS, "rb-175a", 1) != 0; /* born between two served keys */
    *failed += rb_create(st, NS, "rb-250", 1) != 0;  /* and after the last one */
}

static void between_pages(void *arg)
{
    struct hub *h = arg;
    int failed = 0;
    hub_call(h, job_page_churn, &failed);
    CU_ASSERT_EQUAL(failed, 0);
}

static void test_pagination(void)
{
    struct hub h;
    struct sim_hub_config hc = {0};
    hub_start(&h, &hc);
    struct seed_job seed = {.ns = NS, .from = 0, .count = 250};
    hub_call(&h, job_seed, &seed);
    seed = (struct seed_job){.ns = OTHER_NS, .from = 0, .count = 20};
    hub_call(&h, job_seed, &seed);
    struct t t;
    char kc[1024];
    kubeconfig_text(kc, sizeof(kc), "http", h.port, "{}");
    CU_ASSERT_FATAL(client_setup(&t, kc, NULL) == 0);

    struct paged p;
    list_pages(&t, 50, NULL, NULL, &p);
    CU_ASSERT_EQUAL(p.pages, 5);
    CU_ASSERT_EQUAL(p.full_pages, 5);
    CU_ASSERT_EQUAL(p.items, 250);
    CU_ASSERT_EQUAL(p.dup, 0);
    CU_ASSERT_EQUAL(json_object_object_length(p.seen), 250);
    CU_ASSERT_EQUAL(p.remaining_first, 200);
    CU_ASSERT(has_names(p.seen, 0, 250));
    CU_ASSERT_EQUAL(p.rv_moved, 0);

    /* The hub changes objects between two pages. As from etcd, the remaining pages still
     * show the list's snapshot (the continue token carries its resourceVersion): a reflector
     * that watches from that version then sees every later change exactly once. */
    struct paged q;
    list_pages(&t, 50, between_pages, &h, &q);
    CU_ASSERT_EQUAL(q.list_rv, p.list_rv);
    CU_ASSERT_EQUAL(q.pages, 5);
    CU_ASSERT_EQUAL(q.items, 250);
    CU_ASSERT_EQUAL(q.dup, 0);
    CU_ASSERT(has_names(q.seen, 0, 250));
    CU_ASSERT_FALSE(json_object_object_get_ex(q.seen, "rb-175a", NULL));
    CU_ASSERT_EQUAL(q.rv_moved, 0);
    CU_ASSERT(q.max_item_rv <= q.list_rv);
    CU_ASSERT(json_object_equal(q.seen, p.seen));

    /* A new list shows the new state. */
    struct paged r;
    list_pages(&t, 50, NULL, NULL, &r);
    CU_ASSERT_EQUAL(r.list_rv, p.list_rv + 6);
    CU_ASSERT_EQUAL(r.items, 251);
    CU_ASSERT_FALSE(json_object_object_get_ex(r.seen, "rb-200", NULL));
    CU_ASSERT(json_object_object_get_ex(r.seen, "rb-175a", NULL));
    CU_ASSERT(json_object_object_get_ex(r.seen, "rb-250", NULL));
    CU_ASSERT_EQUAL(json_object_get_int64(json_object_object_get(r.seen, "rb-120")), r.list_rv - 3);

    json_object_put(p.seen);
    json_object_put(q.seen);
    json_object_put(r.seen);
    client_teardown(&t);
    hub_stop(&h);
}

/* ---- 6. TLS with a client certificate ---- */

static const char gen_script[] =
    "set -e\n"
    "k() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out \"$1\" "
    "2>/dev/null; }\n"
    "k ca.key; openssl req -x509 -new -key ca.key -out ca.crt -subj /CN=muster-test-ca -days 2\n"
    "k other.key; openssl req -x509 -new -key other.key -out other-ca.crt -subj /CN=other "
    "-days 2\n"
    "k server.key; openssl req -new -key server.key -out server.csr -subj /CN=127.0.0.1\n"
    "printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > server.ext\n"
    "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt "
    "-days 2 -extfile server.ext 2>/dev/null\n"
    "k client.key; openssl req -new -key client.key -out client.csr "
    "-subj /CN=muster/O=system:masters\n"
    "printf 'extendedKeyUsage=clientAuth\\n' > client.ext\n"
    "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt "
    "-days 2 -extfile client.ext 2>/dev/null\n"
    "for f in ca.crt other-ca.crt client.crt client.key; do base64 -w0 $f > $f.b64; done\n";

/* Generates a CA, a server and a client certificate (and one foreign CA) into dir. */
static int gen_certs(char *dir, size_t cap)
{
    char path[700], cmd[800];
    test_tmp_path(dir, cap, "against-sim-tls");
    mkdir(dir, 0700);
    snprintf(path, sizeof(path), "%s/gen.sh", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(gen_script, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "cd '%s' && sh gen.sh", dir);
    return system(cmd);
}

static char *read_in(const char *dir, const char *name)
{
    char path[700];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    char *text = read_text(path);
    CU_ASSERT_FATAL(text != NULL);
    return text;
}

/* A client for the TLS hub from a kubeconfig with inline -data fields: the CA in ca_file, and
 * the client certificate and key when with_cert (else only a token the hub does not want). */
static void tls_client_setup(struct t *t, int port, const char *dir, const char *ca_file,
                             int with_cert)
{
    char *ca = read_in(dir, ca_file);
    char *crt = read_in(dir, "client.crt.b64");
    char *key = read_in(dir, "client.key.b64");
    size_t cap = strlen(ca) + strlen(crt) + strlen(key) + 1024;
    char *kc = muster_malloc(cap);
    CU_ASSERT_FATAL(kc != NULL);
    int n = snprintf(kc, cap,
                     "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
                     "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: u\n"
                     "clusters:\n- name: sim\n  cluster:\n    server: https://127.0.0.1:%d\n"
                     "    certificate-authority-data: %s\n"
                     "users:\n- name: u\n  user:\n",
                     port, ca);
    if (with_cert)
        snprintf(kc + n, cap - (size_t)n,
                 "    client-certificate-data: %s\n    client-key-data: %s\n", crt, key);
    else
        snprintf(kc + n, cap - (size_t)n, "    token: not-a-cert\n");
    muster_free(ca);
    muster_free(crt);
    muster_free(key);
    int rc = client_setup(t, kc, NULL);
    muster_free(kc);
    CU_ASSERT_FATAL(rc == 0);
}

/* GET of NS over TLS; returns the callback's error. */
static int tls_get(int port, const char *dir, const char *ca_file, int with_cert, int *version)
{
    struct t t;
    tls_client_setup(&t, port, dir, ca_file, with_cert);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces/" NS};
    struct result res;
    int rc = call(&t, &req, &res);
    *version = res.http_version;
    if (rc == 0)
        CU_ASSERT_STRING_EQUAL(meta_str(res.body, "name"), NS);
    json_object_put(res.body);
    client_teardown(&t);
    return rc;
}

static void test_tls_client_certificate(void)
{
    char dir[512], cert[700], key[700], ca[700];
    CU_ASSERT_FATAL(gen_certs(dir, sizeof(dir)) == 0);
    snprintf(cert, sizeof(cert), "%s/server.crt", dir);
    snprintf(key, sizeof(key), "%s/server.key", dir);
    snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
    struct hub h;
    /* Watches are cut every DROP_AFTER events: over h2 that ends a stream, not the connection. */
    struct sim_hub_config hc = {.server = {.tls_cert = cert,
                                           .tls_key = key,
                                           .client_ca = ca,
                                           .fault_drop_watch_after = DROP_AFTER}};
    hub_start(&h, &hc);

    /* Both sides verified, and h2 negotiated by ALPN. */
    int version = 0;
    CU_ASSERT_EQUAL(tls_get(h.port, dir, "ca.crt.b64", 1, &version), 0);
    CU_ASSERT_EQUAL(version, 2);
    /* The hub's certificate checked against another CA: refused. */
    CU_ASSERT_EQUAL(tls_get(h.port, dir, "other-ca.crt.b64", 1, &version), MUSTER_ETLS);
    /* No client certificate: the hub refuses us (with TLS 1.3 the alert comes after the
     * handshake, so it may surface as a failed read). */
    int rc = tls_get(h.port, dir, "ca.crt.b64", 0, &version);
    CU_ASSERT(rc == MUSTER_ETLS || rc == MUSTER_EIO);
    CU_ASSERT_EQUAL(version, 0);

    /* A watch streamed over h2 with the client certificate, cut and resumed again and again:
     * every change, once, in order. */
    struct t t;
    tls_client_setup(&t, h.port, dir, "ca.crt.b64", 1);
    struct seed_job seed = {.ns = NS, .from = 0, .count = 10};
    hub_call(&h, job_seed, &seed);
    struct watcher w;
    struct kube_reflector_opts ropt = {.path = RB_PATH};
    watcher_start(&w, &t, &ropt);
    CU_ASSERT_EQUAL(kube_informer_size(&w.inf), 10);
    struct churn_job churn = {.rng = 777};
    hub_call(&h, job_churn, &churn);
    struct evlist want = {0};
    server_log(&t, w.sync_rv, &want, NULL, NULL);
    CU_ASSERT_EQUAL(want.n, BATCH);
    struct wait_count wc = {&w, want.n};
    CU_ASSERT(pump_until(&t, got_at_least, &wc, 10000));
    pump_for(&t, 100);
    CU_ASSERT(evlist_equal(&w.got, &want));
    CU_ASSERT_EQUAL(w.broken, 0);
    json_object_put(check_cache_is_hub(&h, &w));
    struct kube_client_stats cs;
    kube_client_stats(t.client, &cs);
    CU_ASSERT_EQUAL(cs.http2, cs.completed);
    /* Lists, every resumed watch and the log reads were streams of one connection. */
    CU_ASSERT_EQUAL(cs.connections, 1);
    CU_ASSERT(w.inf.reflector.stats.watches >= BATCH / DROP_AFTER + 1);
    watcher_close(&w);
    muster_free(want.v);
    client_teardown(&t);
    hub_stop(&h);
}

/* ---- 7. bearer tokens ---- */

#define TOKEN "s3cret-t0ken-for-tests"

static int token_get(int port, const char *user, const char *path, int *http)
{
    struct t t;
    char kc[1024];
    kubeconfig_text(kc, sizeof(kc), "http", port, user);
    CU_ASSERT_FATAL(client_setup(&t, kc, NULL) == 0);
    struct kube_request req = {.verb = KUBE_LIST, .path = path};
    struct result res;
    int rc = call(&t, &req, &res);
    *http = res.http;
    json_object_put(res.body);
    client_teardown(&t);
    return rc;
}

static void test_token_auth(void)
{
    struct hub h;
    struct sim_hub_config hc = {.server = {.token = TOKEN}};
    hub_start(&h, &hc);
    int http = 0;
    CU_ASSERT_EQUAL(token_get(h.port, "{token: " TOKEN "}", RB_PATH, &http), 0);
    CU_ASSERT_EQUAL(http, 200);
    CU_ASSERT_EQUAL(token_get(h.port, "{token: " TOKEN "x}", RB_PATH, &http), MUSTER_EUNAUTHORIZED);
    CU_ASSERT_EQUAL(http, 401);
    CU_ASSERT_EQUAL(token_get(h.port, "{token: wrong}", "/version", &http), MUSTER_EUNAUTHORIZED);
    CU_ASSERT_EQUAL(token_get(h.port, "{}", RB_PATH, &http), MUSTER_EUNAUTHORIZED);
    CU_ASSERT_EQUAL(http, 401);
    /* A token from a file, as in-cluster service accounts have. */
    char path[512], user[700];
    test_tmp_path(path, sizeof(path), "against-sim-token");
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(TOKEN "\n", f);
    fclose(f);
    snprintf(user, sizeof(user), "{tokenFile: %s}", path);
    CU_ASSERT_EQUAL(token_get(h.port, user, RB_PATH, &http), 0);
    remove(path);
    hub_stop(&h);
}

/* ---- 8. a kubeconfig written by kubectl config view --raw ---- */

static void test_kubectl_written_kubeconfig(void)
{
    struct hub h;
    struct sim_hub_config hc = {.server = {.token = TOKEN}};
    hub_start(&h, &hc);
    char dir[512], cfgpath[700], out[700], cmd[4096];
    test_tmp_path(dir, sizeof(dir), "against-sim-kubectl");
    mkdir(dir, 0700);
    snprintf(cfgpath, sizeof(cfgpath), "%s/config", dir);
    snprintf(out, sizeof(out), "%s/view-raw.yaml", dir);
    remove(cfgpath);
    snprintf(cmd, sizeof(cmd),
             "set -e; export KUBECONFIG='%s'; "
             "kubectl config set-cluster sim --server=http://127.0.0.1:%d >/dev/null; "
             "kubectl config set-credentials robot --token=" TOKEN " >/dev/null; "
             "kubectl config set-credentials other --token=nope >/dev/null; "
             "kubectl config set-context sim-robot --cluster=sim --user=robot "
             "--namespace=" NS " >/dev/null; "
             "kubectl config set-context sim-other --cluster=sim --user=other >/dev/null; "
             "kubectl config use-context sim-robot >/dev/null; "
             "kubectl config view --raw > '%s'",
             cfgpath, h.port, out);
    int rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "kubectl not usable (%d); install the kubernetes-client package\n", rc);
        CU_FAIL("kubectl config failed");
        hub_stop(&h);
        return;
    }
    struct t t;
    memset(&t, 0, sizeof(t));
    CU_ASSERT_FATAL(uv_loop_init(&t.loop) == 0);
    uv_timer_init(&t.loop, &t.ticker);
    char err[512] = "";
    rc = kube_config_load_file(&t.cfg, out, NULL, err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(t.cfg.context, "sim-robot");
    CU_ASSERT_STRING_EQUAL(t.cfg.namespace, NS);
    CU_ASSERT_FATAL(kube_client_new(&t.loop, &t.cfg, NULL, &t.client) == 0);
    struct kube_request req = {.verb = KUBE_GET, .path = "/version"};
    struct result res;
    CU_ASSERT_EQUAL(call(&t, &req, &res), 0);
    json_object *gv = NULL;
    CU_ASSERT(json_object_object_get_ex(res.body, "gitVersion", &gv));
    CU_ASSERT(strncmp(json_object_get_string(gv), "v1.32.0", 7) == 0);
    json_object_put(res.body);
    char path[256];
    CU_ASSERT_EQUAL(kube_path(path, sizeof(path), "work.karmada.io", "v1alpha2", t.cfg.namespace,
                              "resourcebindings", NULL),
                    0);
    req = (struct kube_request){.verb = KUBE_LIST, .path = path};
    CU_ASSERT_EQUAL(call(&t, &req, &res), 0);
    json_object_put(res.body);
    client_teardown(&t);

    /* The other context of the same file carries the other user's token, which the hub
     * refuses: the file's users and contexts were told apart. */
    memset(&t, 0, sizeof(t));
    CU_ASSERT_FATAL(uv_loop_init(&t.loop) == 0);
    uv_timer_init(&t.loop, &t.ticker);
    CU_ASSERT_EQUAL_FATAL(kube_config_load_file(&t.cfg, out, "sim-other", err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(t.cfg.namespace, "default");
    CU_ASSERT_FATAL(kube_client_new(&t.loop, &t.cfg, NULL, &t.client) == 0);
    req = (struct kube_request){.verb = KUBE_GET, .path = "/version"};
    CU_ASSERT_EQUAL(call(&t, &req, &res), MUSTER_EUNAUTHORIZED);
    client_teardown(&t);
    remove(cfgpath);
    remove(out);
    hub_stop(&h);
}

/* ---- 8. connection reuse beside many watches ---- */

static int results_done(void *arg)
{
    const struct result *r = arg;
    for (int i = 0; i < 200; i++)
        if (!r[i].done)
            return 0;
    return 1;
}

/* musterd streams a few dozen informers while it sends its calls. libcurl counts the
 * connections in use in its cache, so a cache sized for the calls alone is full of watches, and
 * every finished call's connection is closed and the next call connects again: one new TCP
 * connection per request (seen as connect/close in every dispatch of the end-to-end bench). */
static void test_calls_reuse_connections_beside_watches(void)
{
    struct hub h;
    struct sim_hub_config hc = {0};
    hub_start(&h, &hc);
    struct seed_job seed = {.ns = NS, .from = 0, .count = 4};
    hub_call(&h, job_seed, &seed);
    struct t t;
    char kc[1024];
    kubeconfig_text(kc, sizeof(kc), "http", h.port, "{}");
    struct kube_client_opts o = {.qps = -1, .max_inflight = 4};
    CU_ASSERT_FATAL(client_setup(&t, kc, &o) == 0);
    enum { WATCHERS = 24 };
    static struct watcher w[WATCHERS];
    struct kube_reflector_opts ropt = {.path = RB_PATH};
    for (int i = 0; i < WATCHERS; i++)
        watcher_start(&w[i], &t, &ropt);
    struct kube_client_stats before;
    kube_client_stats(t.client, &before);
    static struct result r[200];
    memset(r, 0, sizeof r);
    struct kube_request req = {.verb = KUBE_GET, .path = RB_PATH, .discard_body = 1};
    for (int i = 0; i < 200; i++)
        CU_ASSERT_EQUAL_FATAL(kube_request(t.client, &req, on_result, &r[i]), 0);
    CU_ASSERT(pump_until(&t, results_done, r, 10000));
    for (int i = 0; i < 200; i++)
        CU_ASSERT_EQUAL(r[i].http, 200);
    struct kube_client_stats after;
    kube_client_stats(t.client, &after);
    /* the watches' connections stay theirs; the calls share at most max_inflight more */
    CU_ASSERT(after.connections - before.connections <= 4);
    for (int i = 0; i < WATCHERS; i++)
        watcher_close(&w[i]);
    client_teardown(&t);
    hub_stop(&h);
}

static CU_TestInfo tests[] = {
    {"watch: continuity across dropped streams", test_watch_continuity_across_drops},
    {"watch: an informer started during churn", test_informer_started_during_churn},
    {"watch: 410 Gone relists and reports the difference",
     test_gone_relists_and_reports_the_difference},
    {"conflict: surfaced, then re-read and retried", test_conflict_then_reread_and_retry},
    {"faults: 429 retried after Retry-After, 500 surfaced", test_429_backoff_and_500s},
    {"list: 250 objects in pages of 50", test_pagination},
    {"TLS: client certificate, HTTP/2", test_tls_client_certificate},
    {"auth: bearer token", test_token_auth},
    {"kubeconfig: written by kubectl config view --raw", test_kubectl_written_kubeconfig},
    {"connections: calls reuse theirs beside 24 open watches",
     test_calls_reuse_connections_beside_watches},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/against_sim", tests)
