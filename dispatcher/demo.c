/* The engine demo (see demo.h). Everything it decides goes through the same path the
 * dispatcher will use: the engine picks, the ledger records, and only then is the decision
 * acted on (here: the gang "runs" for a while). */
#include "dispatcher/demo.h"

#include "cluster-adapters/kube/client.h"
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/hub.h"

#include "dispatcher/events.h"
#include "dispatcher/recovery.h"
#include "dispatcher/resjson.h"
#include "queue/errors.h"
#include "queue/idmap.h"
#include "queue/mem.h"
#include "queue/quantity.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

/* The demo tree: two organisations, four teams, one StrictFIFO queue. */
static const struct demo_queue {
    const char *name, *parent, *strategy;
    int weight, priority;
    const char *guarantee, *deserved, *capability;
} demo_queues[] = {
    {"research", NULL, "BestEffortFIFO", 1, 0, "{\"nvidia.com/gpu\":\"16\"}",
     "{\"nvidia.com/gpu\":\"32\",\"cpu\":\"256\",\"memory\":\"2Ti\"}",
     "{\"nvidia.com/gpu\":\"48\"}"},
    {"nlp", "research", "BestEffortFIFO", 2, 0, "{\"nvidia.com/gpu\":\"8\"}",
     "{\"nvidia.com/gpu\":\"16\",\"cpu\":\"128\",\"memory\":\"1Ti\"}", "{}"},
    {"vision", "research", "BestEffortFIFO", 1, 0, "{\"nvidia.com/gpu\":\"8\"}",
     "{\"nvidia.com/gpu\":\"16\",\"cpu\":\"128\",\"memory\":\"1Ti\"}", "{}"},
    {"production", NULL, "BestEffortFIFO", 1, 10, "{\"nvidia.com/gpu\":\"24\"}",
     "{\"nvidia.com/gpu\":\"32\",\"cpu\":\"256\",\"memory\":\"2Ti\"}",
     "{\"nvidia.com/gpu\":\"56\"}"},
    {"serving", "production", "StrictFIFO", 1, 0, "{\"nvidia.com/gpu\":\"16\"}",
     "{\"nvidia.com/gpu\":\"16\",\"cpu\":\"128\",\"memory\":\"1Ti\"}", "{}"},
    {"batch", "production", "BestEffortFIFO", 1, 0, "{\"nvidia.com/gpu\":\"8\"}",
     "{\"nvidia.com/gpu\":\"16\",\"cpu\":\"128\",\"memory\":\"1Ti\"}", "{}"},
};
static const char *const demo_leaves[] = {"nlp", "vision", "serving", "batch", "default"};
/* Three clusters of 8 nodes x 8 GPUs: 192 GPUs would be too calm; 64 makes queues compete. */
static const char *const demo_fleet =
    "{\"nvidia.com/gpu\":\"64\",\"cpu\":\"512\",\"memory\":\"4Ti\"}";

struct running {
    uint64_t id;
    double ends; /* demo clock, seconds */
};

struct demo {
    struct store *s;
    struct queue_tree *t;
    const struct disp_demo_options *opt;
    struct disp_demo_stats *st;
    uv_loop_t loop;
    uv_timer_t cycle, arrive, summary, stop;
    uv_signal_t sigint, sigterm;
    double start;
    uint64_t rng, next_job;
    struct running *run;
    size_t nrun, caprun;
    int rc;
    uint32_t gpu;
    struct api_server *api;
    /* With a scenario: the hub, and muster's client reading the fleet from it. */
    struct sim_hub *hub;
    struct kube_config kcfg;
    int kcfg_loaded;
    struct kube_client *kube;
    uv_timer_t fleet_timer;
    int64_t fleet_gpu; /* milli */
    int fleet_clusters;
    int fleet_unknown; /* no answer from the hub yet, or no GPUs in it: admit nothing */
    double cycle_max_ms;
    /* The live feed for the dashboard (until the dispatch loop publishes it): what each live
     * ledger id is called, the hub's last cluster list for GET /api/v1/clusters. */
    struct disp_events *ev;
    struct queue_idmap binds; /* ledger id -> struct demo_bind */
    json_object *hub_clusters;
    uint64_t finished_n;
};

struct demo_bind {
    char *binding, *queue, *request;
    int64_t created;
};

static void bind_free(void *ud, void *val)
{
    (void)ud;
    struct demo_bind *b = val;
    muster_free(b->binding);
    muster_free(b->queue);
    muster_free(b->request);
    muster_free(b);
}

/* Remembers what ledger id is called (out of memory: its events say less, nothing else). */
static void bind_put(struct demo *d, uint64_t id, const char *binding, const char *queue,
                     const char *request, int64_t created)
{
    struct demo_bind *b = muster_calloc(1, sizeof(*b));
    if (!b)
        return;
    b->binding = muster_strdup(binding);
    b->queue = muster_strdup(queue);
    b->request = muster_strdup(request);
    b->created = created;
    if (!b->binding || !b->queue || !b->request || queue_idmap_put(&d->binds, id, b))
        bind_free(NULL, b);
}

/* Publishes a "binding" event (events.h) for ledger id. */
static void publish_binding(struct demo *d, uint64_t id, const char *state, const char *reason)
{
    struct demo_bind *b = queue_idmap_get(&d->binds, id);
    if (!d->ev || !b)
        return;
    json_object *o = json_object_new_object();
    if (!o)
        return;
    const char *slash = strchr(b->binding, '/');
    json_object_object_add(
        o, "namespace",
        json_object_new_string_len(b->binding, slash ? (int)(slash - b->binding) : 0));
    json_object_object_add(o, "name", json_object_new_string(slash ? slash + 1 : b->binding));
    json_object_object_add(o, "queue", json_object_new_string(b->queue));
    json_object_object_add(o, "state", json_object_new_string(state));
    json_object_object_add(o, "reason", json_object_new_string(reason ? reason : ""));
    json_object_object_add(o, "clusters", json_object_new_array());
    json_object_object_add(o, "request", json_tokener_parse(b->request));
    disp_events_publish(d->ev, "binding", o);
}

static double now_s(void)
{
    return (double)uv_hrtime() / 1e9;
}

static uint64_t rnd(struct demo *d)
{
    d->rng ^= d->rng << 13;
    d->rng ^= d->rng >> 7;
    d->rng ^= d->rng << 17;
    return d->rng;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void finish(struct demo *d, int rc)
{
    if (rc && !d->rc)
        d->rc = rc;
    uv_stop(&d->loop);
}

static int track(struct demo *d, uint64_t id, double seconds)
{
    if (d->nrun == d->caprun) {
        size_t cap = d->caprun ? d->caprun * 2 : 64;
        struct running *r = muster_realloc(d->run, cap * sizeof(*r));
        if (!r)
            return MUSTER_ENOMEM;
        d->run = r;
        d->caprun = cap;
    }
    d->run[d->nrun++] = (struct running){id, now_s() + seconds};
    return 0;
}

/* Seeds the demo queues when the store has none of them yet (a fresh database). */
static int seed_queues(struct demo *d)
{
    if (queue_tree_find(d->t, "research"))
        return 0;
    struct queue_resnames *names = queue_tree_resnames(d->t);
    int64_t at = now_ms();
    int rc = store_begin(d->s);
    for (size_t i = 0; !rc && i < sizeof(demo_queues) / sizeof(demo_queues[0]); i++) {
        const struct demo_queue *q = &demo_queues[i];
        struct store_queue row = {q->name, q->parent ? q->parent : "root", q->weight,
                                  q->priority, "Open", q->strategy, q->guarantee, q->deserved,
                                  q->capability, 300000, 1, at, at};
        struct queue_spec spec;
        char err[256];
        struct queue_error qe;
        rc = store_queue_put(d->s, &row);
        if (!rc)
            rc = disp_queue_spec_from_row(names, &row, &spec, err, sizeof(err));
        if (!rc) {
            rc = queue_tree_create(d->t, &spec, &qe);
            disp_queue_spec_close(&spec);
        }
    }
    if (rc) {
        store_rollback(d->s);
        return rc;
    }
    return store_commit(d->s);
}

static const char *const shapes[] = {
    "{\"nvidia.com/gpu\":\"1\",\"cpu\":\"8\",\"memory\":\"64Gi\"}",
    "{\"nvidia.com/gpu\":\"2\",\"cpu\":\"16\",\"memory\":\"128Gi\"}",
    "{\"nvidia.com/gpu\":\"4\",\"cpu\":\"32\",\"memory\":\"256Gi\"}",
    "{\"nvidia.com/gpu\":\"8\",\"cpu\":\"64\",\"memory\":\"512Gi\"}",
    "{\"nvidia.com/gpu\":\"16\",\"cpu\":\"128\",\"memory\":\"1Ti\"}",
};

/* A gang arrives: ledger row first, then the engine. */
#define DEMO_BACKLOG_MAX                                                                           \
    300 /* arrivals pause above this many pending, so a long demo stays steady */

static void on_arrive(uv_timer_t *h)
{
    struct demo *d = h->data;
    struct queue_status rs;
    if (queue_node_status(d->t, queue_tree_root(d->t), &rs) == 0) {
        uint64_t pending = rs.pending;
        queue_status_close(&rs);
        if (pending > DEMO_BACKLOG_MAX)
            return;
    }
    unsigned n = 1 + (unsigned)(rnd(d) % 3);
    struct store_ledger_row rows[3];
    char bind[3][48];
    int64_t at = now_ms();
    for (unsigned i = 0; i < n; i++) {
        const char *queue = demo_leaves[rnd(d) % (sizeof(demo_leaves) / sizeof(*demo_leaves))];
        unsigned shape = (unsigned)(rnd(d) % 16);
        shape = shape < 6 ? 0 : shape < 10 ? 1 : shape < 13 ? 2 : shape < 15 ? 3 : 4;
        snprintf(bind[i], sizeof(bind[i]), "demo/job-%" PRIu64, ++d->next_job);
        rows[i] = (struct store_ledger_row){
            0,  bind[i], "", queue, shapes[shape], (int64_t)(rnd(d) % 3), "pending", "[]",
            "", at,      0,  at};
    }
    int rc = store_ledger_write_batch(d->s, rows, n);
    if (rc) {
        fprintf(stderr, "musterd: demo: ledger write failed: %s\n", store_errmsg(d->s));
        finish(d, rc);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        struct queue_resvec req = {0};
        char err[256];
        struct queue_error qe;
        rc = disp_resvec_parse_text(queue_tree_resnames(d->t), rows[i].request, "request", &req,
                                    err, sizeof(err));
        struct queue_entry_spec es = {(uint64_t)rows[i].id, rows[i].queue,
                                      (int32_t)rows[i].priority, rows[i].created_at, &req};
        if (!rc)
            rc = queue_entry_add(d->t, &es, NULL, &qe);
        queue_resvec_close(&req);
        if (rc) {
            finish(d, rc);
            return;
        }
        d->st->arrived++;
        bind_put(d, (uint64_t)rows[i].id, rows[i].binding, rows[i].queue, rows[i].request, at);
        publish_binding(d, (uint64_t)rows[i].id, "pending", NULL);
    }
}

/* One dispatch cycle: finished gangs release, the engine decides, the ledger records every
 * admission in one transaction, and only then do the gangs start. */
static void on_cycle(uv_timer_t *h)
{
    struct demo *d = h->data;
    if (d->fleet_unknown)
        return;
    double t0 = now_s();
    int64_t at = now_ms();
    size_t nrows = 0, caprows = 64;
    struct store_ledger_row *rows = muster_calloc(caprows, sizeof(*rows));
    struct queue_entry **admitted = muster_calloc(caprows, sizeof(*admitted));
    if (!rows || !admitted) {
        muster_free(rows);
        muster_free(admitted);
        finish(d, MUSTER_ENOMEM);
        return;
    }
    /* Finished gangs: released in the ledger, then in the engine. */
    for (size_t i = 0; i < d->nrun && nrows < caprows;) {
        if (d->run[i].ends > t0) {
            i++;
            continue;
        }
        /* One finished gang in 20 is rolled back instead, as if its member cluster had refused
         * it, so the dashboard's rollback path has something to show until the dispatch loop
         * rolls back for real. */
        int rollback = ++d->finished_n % 20 == 0;
        rows[nrows++] = (struct store_ledger_row){
            .id = (int64_t)d->run[i].id,
            .state = rollback ? "rolledback" : "released",
            .reason = rollback ? "demo: the member cluster refused the gang (simulated)" : NULL,
            .updated_at = at};
        d->run[i] = d->run[--d->nrun];
    }
    size_t nreleased = nrows;
    int rc = nreleased ? store_ledger_write_batch(d->s, rows, nreleased) : 0;
    for (size_t i = 0; !rc && i < nreleased; i++) {
        struct queue_entry *e = queue_tree_entry(d->t, (uint64_t)rows[i].id);
        if (e)
            queue_entry_remove(d->t, e);
        d->st->finished++;
        uint64_t id = (uint64_t)rows[i].id;
        publish_binding(d, id, rows[i].state, rows[i].reason);
        if (rows[i].reason && d->ev) {
            struct demo_bind *b = queue_idmap_get(&d->binds, id);
            char msg[256];
            snprintf(msg, sizeof(msg), "%s rolled back: %s", b ? b->binding : "a gang",
                     rows[i].reason);
            json_object *n = json_object_new_object();
            if (n) {
                json_object_object_add(n, "level", json_object_new_string("warning"));
                json_object_object_add(n, "message", json_object_new_string(msg));
            }
            disp_events_publish(d->ev, "notice", n);
            disp_events_record_rollback(d->ev, at);
        }
        struct demo_bind *gone = queue_idmap_del(&d->binds, id);
        if (gone)
            bind_free(NULL, gone);
    }
    nrows = 0;
    queue_cycle_begin(d->t);
    struct queue_entry *e;
    while (!rc && nrows < caprows && (e = queue_cycle_next(d->t)) != NULL) {
        if (queue_entry_admit(d->t, e, NULL)) {
            queue_cycle_skip(d->t, e);
            continue;
        }
        admitted[nrows] = e;
        rows[nrows++] = (struct store_ledger_row){.id = (int64_t)queue_entry_id(e),
                                                  .state = "admitted",
                                                  .admitted_at = at,
                                                  .updated_at = at};
    }
    if (!rc && nrows) {
        rc = store_ledger_write_batch(d->s, rows, nrows);
        if (rc) { /* not recorded, so not acted on: back to pending */
            for (size_t i = 0; i < nrows; i++)
                queue_entry_requeue(d->t, admitted[i]);
        } else {
            d->st->ledger_batches++;
        }
    }
    /* The demo's "dispatch" is the decision recorded: its latency is the cycle so far. */
    double dispatch_ms = (now_s() - t0) * 1000;
    for (size_t i = 0; !rc && i < nrows; i++) {
        if (track(d, queue_entry_id(admitted[i]), 2.0 + (double)(rnd(d) % 80) / 10.0))
            rc = MUSTER_ENOMEM;
        d->st->admitted++;
        uint64_t id = queue_entry_id(admitted[i]);
        struct demo_bind *b = queue_idmap_get(&d->binds, id);
        if (d->ev) {
            disp_events_record_admission(d->ev, at, b ? (double)(at - b->created) : 0);
            disp_events_record_dispatch(d->ev, at, dispatch_ms);
        }
        publish_binding(d, id, "admitted", NULL);
    }
    muster_free(rows);
    muster_free(admitted);
    d->st->cycles++;
    double ms = (now_s() - t0) * 1000;
    if (ms > d->cycle_max_ms)
        d->cycle_max_ms = ms;
    if (rc) {
        fprintf(stderr, "musterd: demo: %s: %s\n", muster_strerror(rc), store_errmsg(d->s));
        finish(d, rc);
    }
}

static void on_summary(uv_timer_t *h)
{
    struct demo *d = h->data;
    struct queue_status st;
    if (queue_node_status(d->t, queue_tree_root(d->t), &st))
        return;
    char used[QUEUE_QTY_STR_MAX], fleet[QUEUE_QTY_STR_MAX] = "64";
    queue_qty_format_auto(queue_resvec_get(&st.allocated, d->gpu), used, sizeof(used));
    if (d->hub)
        queue_qty_format_auto(d->fleet_gpu > 0 ? d->fleet_gpu : 0, fleet, sizeof(fleet));
    fprintf(d->opt->out ? d->opt->out : stdout,
            "t=%.0fs pending=%" PRIu64 " admitted=%" PRIu64 " gpu=%s/%s arrived=%" PRIu64
            " finished=%" PRIu64 " slowest-cycle=%.2fms\n",
            now_s() - d->start, st.pending, st.admitted, used, fleet, d->st->arrived,
            d->st->finished, d->cycle_max_ms);
    fflush(d->opt->out ? d->opt->out : stdout);
    d->cycle_max_ms = 0;
    queue_status_close(&st);
}

static int cluster_ready(json_object *cluster)
{
    json_object *conds = NULL, *status = NULL;
    if (!json_object_object_get_ex(cluster, "status", &status) ||
        !json_object_object_get_ex(status, "conditions", &conds) ||
        !json_object_is_type(conds, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i), *type, *st;
        if (json_object_object_get_ex(c, "type", &type) &&
            strcmp(json_object_get_string(type), "Ready") == 0 &&
            json_object_object_get_ex(c, "status", &st))
            return strcmp(json_object_get_string(st), "True") == 0;
    }
    return 0;
}

/* The fleet is what Ready clusters have allocatable: the engine's cap on root. */
static void on_clusters(int err, const struct kube_response *resp, void *ud)
{
    struct demo *d = ud;
    json_object *items = NULL;
    if (err || !resp->body || !json_object_object_get_ex(resp->body, "items", &items)) {
        if (err != MUSTER_ECANCELED)
            fprintf(stderr, "musterd: demo: listing clusters: %s %s\n", muster_strerror(err),
                    resp->status.message);
        return;
    }
    json_object_put(d->hub_clusters);
    d->hub_clusters = json_object_get(items);
    struct queue_resvec fleet = {0}, one = {0};
    int ready = 0, rc = 0;
    for (size_t i = 0; !rc && i < json_object_array_length(items); i++) {
        json_object *c = json_object_array_get_idx(items, i), *status, *summary, *alloc;
        if (!cluster_ready(c) || !json_object_object_get_ex(c, "status", &status) ||
            !json_object_object_get_ex(status, "resourceSummary", &summary) ||
            !json_object_object_get_ex(summary, "allocatable", &alloc))
            continue;
        char why[256];
        rc = disp_resvec_parse(queue_tree_resnames(d->t), alloc, "allocatable", &one, why,
                               sizeof(why));
        if (!rc)
            rc = queue_resvec_add(&fleet, &one);
        ready++;
    }
    /* An absent resource is no cap to the engine; a fleet with no GPU at all must stop GPU
     * admissions instead, so the demo pauses then (placement treats absent as none). */
    int64_t gpu = queue_resvec_get(&fleet, d->gpu);
    d->fleet_unknown = gpu <= 0;
    if (!rc)
        rc = queue_tree_set_fleet(d->t, &fleet);
    if (!rc) {
        if (gpu != d->fleet_gpu || ready != d->fleet_clusters) {
            char q[QUEUE_QTY_STR_MAX];
            queue_qty_format_auto(gpu, q, sizeof(q));
            fprintf(d->opt->out ? d->opt->out : stdout,
                    "fleet from the hub: %d Ready clusters, nvidia.com/gpu %s\n", ready, q);
        }
        d->fleet_gpu = gpu;
        d->fleet_clusters = ready;
    }
    queue_resvec_close(&fleet);
    queue_resvec_close(&one);
}

/* ---- GET /api/v1/clusters for the demo (the dispatch loop will lend its own view) ---- */

static json_object *summary_map(struct demo *d, json_object *summary, const char *key,
                                struct queue_resvec *v)
{
    json_object *m = NULL;
    char why[256];
    queue_resvec_clear(v);
    if (json_object_object_get_ex(summary, key, &m))
        (void)disp_resvec_parse(queue_tree_resnames(d->t), m, key, v, why, sizeof(why));
    return disp_resvec_json(queue_tree_resnames(d->t), v);
}

/* The hub's clusters as docs/admin-api.md shows them. The engine demo places nothing on the
 * members, so its GPUs in use are shown as reservations, filled Ready cluster by cluster in name
 * order; fits are counted over the whole cluster (no node view here). */
static json_object *demo_clusters(void *ud)
{
    struct demo *d = ud;
    json_object *out = json_object_new_array();
    if (!out)
        return NULL;
    int64_t in_use = 0;
    struct queue_status st;
    if (queue_node_status(d->t, queue_tree_root(d->t), &st) == 0) {
        in_use = queue_resvec_get(&st.allocated, d->gpu);
        queue_status_close(&st);
    }
    struct queue_resvec cap = {0}, used = {0}, going = {0}, res = {0}, free_ = {0};
    size_t n = d->hub_clusters ? json_object_array_length(d->hub_clusters) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(d->hub_clusters, i), *meta = NULL, *v = NULL;
        json_object *status = NULL, *summary = NULL, *o = json_object_new_object();
        if (!o || json_object_array_add(out, o)) {
            json_object_put(o);
            break;
        }
        json_object_object_get_ex(c, "metadata", &meta);
        json_object_object_get_ex(c, "status", &status);
        json_object_object_get_ex(status, "resourceSummary", &summary);
        json_object_object_add(
            o, "name", json_object_get(json_object_object_get_ex(meta, "name", &v) ? v : NULL));
        int ready = cluster_ready(c);
        json_object_object_add(o, "ready", json_object_new_boolean(ready));
        json_object_object_add(o, "labels",
                               json_object_object_get_ex(meta, "labels", &v)
                                   ? json_object_get(v)
                                   : json_object_new_object());
        json_object_object_add(o, "capacity", summary_map(d, summary, "allocatable", &cap));
        json_object_object_add(o, "allocated", summary_map(d, summary, "allocated", &used));
        json_object_object_add(o, "allocating", summary_map(d, summary, "allocating", &going));
        queue_resvec_copy(&free_, &cap);
        queue_resvec_sub(&free_, &used);
        queue_resvec_sub(&free_, &going);
        int64_t gpu_free = queue_resvec_get(&free_, d->gpu);
        int64_t take = ready ? (in_use < gpu_free ? in_use : gpu_free) : 0;
        if (take < 0)
            take = 0;
        in_use -= take;
        queue_resvec_clear(&res);
        queue_resvec_set(&res, d->gpu, take);
        queue_resvec_sub(&free_, &res);
        for (uint32_t k = 0; k < free_.len; k++)
            if (free_.items[k].milli < 0)
                queue_resvec_set(&free_, free_.items[k].id, 0);
        json_object_object_add(o, "reserved", disp_resvec_json(queue_tree_resnames(d->t), &res));
        json_object_object_add(o, "free", disp_resvec_json(queue_tree_resnames(d->t), &free_));
        json_object *fits = json_object_new_array();
        static const int sizes[] = {1, 2, 4, 8};
        for (size_t k = 0; fits && k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            json_object *f = json_object_new_object(), *size = json_object_new_object();
            char label[32], qty[16];
            snprintf(label, sizeof(label), "%d GPU%s", sizes[k], sizes[k] > 1 ? "s" : "");
            snprintf(qty, sizeof(qty), "%d", sizes[k]);
            json_object_object_add(size, "nvidia.com/gpu", json_object_new_string(qty));
            json_object_object_add(f, "size", size);
            json_object_object_add(f, "label", json_object_new_string(label));
            int64_t left = queue_resvec_get(&free_, d->gpu);
            json_object_object_add(f, "replicas",
                                   json_object_new_int64(ready ? left / (sizes[k] * 1000LL) : 0));
            json_object_array_add(fits, f);
        }
        json_object_object_add(o, "fits", fits);
    }
    queue_resvec_close(&cap);
    queue_resvec_close(&used);
    queue_resvec_close(&going);
    queue_resvec_close(&res);
    queue_resvec_close(&free_);
    return out;
}

static void on_fleet_timer(uv_timer_t *h)
{
    struct demo *d = h->data;
    char path[128];
    if (kube_path(path, sizeof(path), "cluster.karmada.io", "v1alpha1", NULL, "clusters", NULL))
        return;
    struct kube_request req = {.verb = KUBE_LIST, .path = path};
    (void)kube_request(d->kube, &req, on_clusters, d); /* refused only while closing */
}

/* The simulated hub on this loop, and muster's client to it. */
static int start_hub(struct demo *d, FILE *out)
{
    char err[512];
    struct sim_hub_config cfg = {.server = {.host = "127.0.0.1", .port = 0},
                                 .scenario = d->opt->scenario};
    int rc = sim_hub_start(&d->loop, &cfg, &d->hub, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "musterd: simulated hub: %s\n", err);
        return rc;
    }
    char kubeconfig[512];
    snprintf(kubeconfig, sizeof(kubeconfig),
             "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
             "clusters: [{name: sim, cluster: {server: \"http://127.0.0.1:%d\"}}]\n"
             "users: [{name: sim, user: {}}]\n"
             "contexts: [{name: sim, context: {cluster: sim, user: sim}}]\n",
             sim_hub_port(d->hub));
    rc =
        kube_config_parse(&d->kcfg, kubeconfig, strlen(kubeconfig), "demo", NULL, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "musterd: demo kubeconfig: %s\n", err);
        return rc;
    }
    d->kcfg_loaded = 1;
    rc = kube_client_new(&d->loop, &d->kcfg, NULL, &d->kube);
    if (rc)
        return rc;
    fprintf(out,
            "simulated Karmada hub: http://127.0.0.1:%d (scenario %s; kubectl --server "
            "http://127.0.0.1:%d get clusters)\n",
            sim_hub_port(d->hub), d->opt->scenario, sim_hub_port(d->hub));
    /* Nothing is admitted until the hub has said what the fleet holds. */
    d->fleet_unknown = 1;
    d->fleet_gpu = -1;
    d->fleet_timer.data = d;
    uv_timer_start(&d->fleet_timer, on_fleet_timer, 0, 5000);
    return rc;
}

static void hub_closed(void *data)
{
    (void)data;
}

static void kube_closed(void *ud)
{
    (void)ud;
}

static int adopt_running(void *ud, const struct store_ledger_row *row)
{
    struct demo *d = ud;
    bind_put(d, (uint64_t)row->id, row->binding, row->queue, row->request, row->created_at);
    if (strcmp(row->state, "pending") == 0 || !queue_tree_entry(d->t, (uint64_t)row->id))
        return 0;
    return track(d, (uint64_t)row->id, 1.0 + (double)(rnd(d) % 50) / 10.0);
}

static void on_stop(uv_timer_t *h)
{
    finish(h->data, 0);
}

static void on_signal(uv_signal_t *h, int signum)
{
    (void)signum;
    finish(h->data, 0);
}

static void api_closed(void *ud)
{
    *(int *)ud = 1;
}

int disp_demo_run(struct store *s, struct queue_tree *t, const struct disp_demo_options *opt,
                  struct disp_demo_stats *stats)
{
    struct disp_demo_stats local = {0};
    struct demo d = {.s = s, .t = t, .opt = opt, .st = stats ? stats : &local};
    queue_idmap_init(&d.binds);
    memset(d.st, 0, sizeof(*d.st));
    d.rng = opt->seed ? opt->seed : (uint64_t)uv_hrtime() | 1;
    d.next_job = (uint64_t)now_ms(); /* job names stay unique across runs on one database */
    int rc = seed_queues(&d);
    if (rc)
        return rc;
    struct queue_resvec fleet = {0};
    char err[256];
    rc = disp_resvec_parse_text(queue_tree_resnames(t), demo_fleet, "fleet", &fleet, err,
                                sizeof(err));
    if (!rc)
        rc = queue_tree_set_fleet(t, &fleet);
    queue_resvec_close(&fleet);
    if (!rc)
        rc = queue_resnames_find(queue_tree_resnames(t), "nvidia.com/gpu", 14, &d.gpu);
    if (rc)
        return rc;
    /* Gangs admitted before a restart are still running: they finish in a while. */
    rc = store_ledger_foreach_live(s, adopt_running, &d);
    if (rc) {
        muster_free(d.run);
        queue_idmap_each(&d.binds, bind_free, NULL);
        queue_idmap_close(&d.binds);
        return rc;
    }
    uv_loop_init(&d.loop);
    uv_timer_init(&d.loop, &d.cycle);
    uv_timer_init(&d.loop, &d.arrive);
    uv_timer_init(&d.loop, &d.summary);
    uv_timer_init(&d.loop, &d.stop);
    uv_timer_init(&d.loop, &d.fleet_timer);
    uv_signal_init(&d.loop, &d.sigint);
    uv_signal_init(&d.loop, &d.sigterm);
    d.cycle.data = d.arrive.data = d.summary.data = d.stop.data = &d;
    d.sigint.data = d.sigterm.data = &d;
    unsigned cycle_ms = opt->cycle_ms ? opt->cycle_ms : 100;
    double rate = opt->arrivals_per_s > 0 ? opt->arrivals_per_s : 12;
    uint64_t arrive_ms = (uint64_t)(1000.0 / (rate / 2.0)); /* 2 gangs per arrival on average */
    uv_timer_start(&d.cycle, on_cycle, cycle_ms, cycle_ms);
    uv_timer_start(&d.arrive, on_arrive, 0, arrive_ms ? arrive_ms : 1);
    uv_timer_start(&d.summary, on_summary, opt->summary_ms ? opt->summary_ms : 2000,
                   opt->summary_ms ? opt->summary_ms : 2000);
    if (opt->seconds > 0)
        uv_timer_start(&d.stop, on_stop, (uint64_t)(opt->seconds * 1000), 0);
    uv_signal_start(&d.sigint, on_signal, SIGINT);
    uv_signal_start(&d.sigterm, on_signal, SIGTERM);
    FILE *out = opt->out ? opt->out : stdout;
    if (opt->scenario && !d.rc) {
        rc = start_hub(&d, out);
        if (rc) {
            d.rc = rc;
            uv_stop(&d.loop);
        }
    }
    if (opt->api && !d.rc) {
        d.ev = disp_events_new(0); /* NULL (out of memory): the API says 501 for events */
        struct api_ctx ctx = {.store = s,
                              .tree = t,
                              .events = d.ev,
                              .disp = {.ud = &d, .clusters = d.hub ? demo_clusters : NULL}};
        char why[512];
        rc = api_server_start(&d.loop, opt->api, &ctx, &d.api, why, sizeof(why));
        if (rc) {
            fprintf(stderr, "musterd: admin API: %s\n", why);
            d.rc = rc;
            uv_stop(&d.loop);
        } else {
            const char *host = opt->api->host ? opt->api->host : "127.0.0.1";
            int v6 = strchr(host, ':') != NULL;
            fprintf(out, "admin API: %s://%s%s%s:%d/api/v1/queues (OpenAPI at /openapi.json)\n",
                    opt->api->tls_cert_file ? "https" : "http", v6 ? "[" : "", host, v6 ? "]" : "",
                    api_server_port(d.api));
            fflush(out);
        }
    }
    d.start = now_s();
    if (!d.rc)
        uv_run(&d.loop, UV_RUN_DEFAULT);
    uv_handle_t *own[] = {(uv_handle_t *)&d.cycle,      (uv_handle_t *)&d.arrive,
                          (uv_handle_t *)&d.summary,    (uv_handle_t *)&d.stop,
                          (uv_handle_t *)&d.sigint,     (uv_handle_t *)&d.sigterm,
                          (uv_handle_t *)&d.fleet_timer};
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        uv_close(own[i], NULL);
    int api_done = !d.api;
    if (d.api)
        api_server_close(d.api, api_closed, &api_done);
    if (d.kube)
        kube_client_close(d.kube, kube_closed, NULL);
    if (d.hub)
        sim_hub_shutdown(d.hub, hub_closed, NULL);
    uv_run(&d.loop, UV_RUN_DEFAULT);
    sim_hub_free(d.hub);
    if (d.kcfg_loaded)
        kube_config_close(&d.kcfg);
    int closed = uv_loop_close(&d.loop);
    if (!api_done && !d.rc)
        d.rc = MUSTER_EBUSY;
    muster_free(d.run);
    disp_events_free(d.ev);
    json_object_put(d.hub_clusters);
    queue_idmap_each(&d.binds, bind_free, NULL);
    queue_idmap_close(&d.binds);
    if (!d.rc && closed)
        d.rc = MUSTER_EBUSY;
    return d.rc;
}
