/* muster-sim's watch streams (see server_int.h): a chunked response per watch, the store's
 * events filtered by namespace and selectors, the initial events and their end marker, bookmarks
 * and the deadline, and a backlog cap for a client that falls behind. */
#include "cluster-adapters/sim/server_int.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/selector.h"
#include "cluster-adapters/sim/status.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/sim/table.h"
#include "queue/mem.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct watch {
    h2o_generator_t gen;
    struct kube_http_stream out; /* the response body, one send in flight at a time */
    struct sim_server *srv;
    const struct sim_resource *res;
    char ns[254];
    struct sim_selector *labels, *fields;
    struct sim_store_watch *sw;
    uint64_t deadline_ms, next_bookmark_ms;
    int bookmarks;
    int table; /* events carry one-row Tables (kubectl get -w) */
    int meta;  /* events carry PartialObjectMetadata (metadata informers) */
    /* Sending the initial state or the history replay: those are as large as the store or the
     * history, which are bounded already; the backlog cap is for a client that falls behind. */
    int catching_up;
    long events;
    struct watch *prev, *next;
};

static void watch_unlink(struct watch *w)
{
    if (w->sw) {
        sim_store_unwatch(w->srv->store, w->sw);
        w->sw = NULL;
    }
    if (w->prev || w->next || w->srv->watches == w) {
        if (w->prev)
            w->prev->next = w->next;
        else
            w->srv->watches = w->next;
        if (w->next)
            w->next->prev = w->prev;
        w->prev = w->next = NULL;
    }
}

/* h2o disposes the request pool after the response is done or the connection is gone. */
static void watch_dispose(void *p)
{
    struct watch *w = p;
    watch_unlink(w);
    sim_selector_free(w->labels);
    sim_selector_free(w->fields);
    kube_http_stream_free(&w->out);
}

static void watch_before_final(struct kube_http_stream *out)
{
    watch_unlink(H2O_STRUCT_FROM_MEMBER(struct watch, out, out));
}

static void watch_flush(struct watch *w)
{
    kube_http_stream_flush(&w->out);
}

static void watch_proceed(h2o_generator_t *gen, h2o_req_t *req)
{
    struct watch *w = H2O_STRUCT_FROM_MEMBER(struct watch, gen, gen);
    w->out.sending = 0;
    watch_flush(w);
}

static void watch_stop(h2o_generator_t *gen, h2o_req_t *req)
{
    struct watch *w = H2O_STRUCT_FROM_MEMBER(struct watch, gen, gen);
    w->out.stopped = 1;
    watch_unlink(w);
}

static void watch_end(struct watch *w)
{
    if (w->out.ending || w->out.stopped)
        return;
    w->out.ending = 1;
    if (w->sw) {
        sim_store_unwatch(w->srv->store, w->sw);
        w->sw = NULL;
    }
    watch_flush(w);
}

/* Queues one event line. A watcher whose backlog passes the cap is cut, as kube-apiserver cuts
 * watchers that cannot keep up; the client re-watches from its last resourceVersion. */
static void watch_queue(struct watch *w, const char *type, const char *obj, size_t objlen)
{
    if (w->out.ending || w->out.stopped)
        return;
    struct kube_http_stream *o = &w->out;
    if (kube_http_stream_reserve(o, objlen + strlen(type) + 32,
                                 w->catching_up ? 0 : w->srv->cfg.max_watch_buffer)) {
        watch_end(w);
        return;
    }
    int n = snprintf(o->pending + o->pending_len, o->pending_cap - o->pending_len,
                     "{\"type\":\"%s\",\"object\":", type);
    o->pending_len += (size_t)n;
    memcpy(o->pending + o->pending_len, obj, objlen);
    o->pending_len += objlen;
    memcpy(o->pending + o->pending_len, "}\n", 2);
    o->pending_len += 2;
    watch_flush(w);
}

/* obj serialized, from the server's one-object cache when the previous event carried it too. */
static const char *event_json(struct sim_server *srv, json_object *obj, size_t *len)
{
    if (srv->event_obj == obj) {
        *len = srv->event_len;
        return srv->event_json;
    }
    const char *s = sim__to_json(obj, len);
    if (*len + 1 > srv->event_cap) {
        size_t cap = srv->event_cap ? srv->event_cap : 4096;
        while (cap < *len + 1)
            cap *= 2;
        char *buf = muster_realloc(srv->event_json, cap);
        if (!buf)
            return s; /* serialized, just not kept for the next watcher */
        srv->event_json = buf;
        srv->event_cap = cap;
    }
    memcpy(srv->event_json, s, *len + 1);
    srv->event_len = *len;
    json_object_put(srv->event_obj);
    srv->event_obj = json_object_get(obj);
    return srv->event_json;
}

/* Queues obj as a watch event, converted to a one-row Table when the client asked for Tables. */
static void watch_queue_object(struct watch *w, const char *type, json_object *obj)
{
    size_t len = 0;
    if (w->meta) {
        json_object *p = sim__partial_metadata(obj);
        const char *s = p ? sim__to_json(p, &len) : NULL;
        if (s)
            watch_queue(w, type, s, len);
        json_object_put(p);
        return;
    }
    if (!w->table) {
        const char *s = event_json(w->srv, obj, &len);
        watch_queue(w, type, s, len);
        return;
    }
    json_object *items = json_object_new_array();
    json_object_array_add(items, json_object_get(obj));
    json_object *t = sim_table_new(w->res, items, NULL, time(NULL));
    const char *s = sim__to_json(t, &len);
    watch_queue(w, type, s, len);
    json_object_put(t);
    json_object_put(items);
}

static int watch_matches(struct watch *w, json_object *obj)
{
    if (!obj)
        return 0;
    if (w->ns[0]) {
        const char *ns = sim_meta_str(obj, "namespace");
        if (!ns || strcmp(ns, w->ns) != 0)
            return 0;
    }
    return sim_selector_matches(w->labels, obj) && sim_selector_matches(w->fields, obj);
}

static void watch_on_event(void *data, const struct sim_event *ev)
{
    struct watch *w = data;
    if (ev->res != w->res)
        return;
    static const char *const names[] = {"ADDED", "MODIFIED", "DELETED"};
    const char *type = names[ev->type];
    int now = watch_matches(w, ev->obj);
    if (ev->type == SIM_EVENT_MODIFIED) {
        /* As the watch cache does: entering the selector is ADDED, leaving it is DELETED. */
        int before = watch_matches(w, ev->prev);
        if (!now && !before)
            return;
        if (now && !before)
            type = "ADDED";
        else if (!now)
            type = "DELETED";
    } else if (!now) {
        return;
    }
    watch_queue_object(w, type, ev->obj);
    w->events++;
    if (w->srv->cfg.fault_drop_watch_after > 0 && w->events >= w->srv->cfg.fault_drop_watch_after)
        watch_end(w);
}

/* The BOOKMARK that ends a watch-list's initial events (KEP-3157). */
static void watch_initial_events_end(struct watch *w)
{
    char av[128], line[512];
    sim_resource_api_version(w->res, av, sizeof(av));
    int n = snprintf(line, sizeof(line),
                     "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
                     "\"%" PRId64 "\",\"creationTimestamp\":null,\"annotations\":{"
                     "\"k8s.io/initial-events-end\":\"true\"}}}",
                     w->meta ? "PartialObjectMetadata" : w->res->kind,
                     w->meta ? "meta.k8s.io/v1" : av, sim_store_rv(w->srv->store));
    watch_queue(w, "BOOKMARK", line, (size_t)n);
}

static void watch_bookmark(struct watch *w)
{
    char av[128], line[512];
    sim_resource_api_version(w->res, av, sizeof(av));
    int n = snprintf(
        line, sizeof(line),
        "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":\"%" PRId64
        "\",\"creationTimestamp\":null}}",
        w->meta ? "PartialObjectMetadata" : w->res->kind, w->meta ? "meta.k8s.io/v1" : av,
        sim_store_rv(w->srv->store));
    watch_queue(w, "BOOKMARK", line, (size_t)n);
}

void sim__serve_watch(struct sim_server *srv, h2o_req_t *req, const struct sim_resource *r,
                      const char *ns, struct sim_selector *labels, struct sim_selector *fields)
{
    char rvbuf[64] = "";
    int64_t since = -1;
    if (sim__query_param(req, "resourceVersion", rvbuf, sizeof(rvbuf)) == 1 && rvbuf[0] &&
        strcmp(rvbuf, "0") != 0) {
        if (sim__parse_int64(rvbuf, &since) < 0) {
            sim_selector_free(labels);
            sim_selector_free(fields);
            sim__respond_status(req, sim_status_newf(400, "BadRequest", NULL, NULL,
                                                     "invalid resource version \"%.40s\"", rvbuf));
            return;
        }
    }
    char tbuf[32];
    int64_t timeout_s = srv->cfg.watch_timeout_s;
    if (sim__query_param(req, "timeoutSeconds", tbuf, sizeof(tbuf)) == 1 &&
        sim__parse_int64(tbuf, &timeout_s) == 0 && timeout_s <= 0)
        timeout_s = srv->cfg.watch_timeout_s;

    struct watch *w = h2o_mem_alloc_shared(&req->pool, sizeof(*w), watch_dispose);
    memset(w, 0, sizeof(*w));
    w->gen.proceed = watch_proceed;
    w->gen.stop = watch_stop;
    w->out.req = req;
    w->out.before_final = watch_before_final;
    w->srv = srv;
    w->res = r;
    snprintf(w->ns, sizeof(w->ns), "%s", ns ? ns : "");
    w->labels = labels;
    w->fields = fields;
    uint64_t now = uv_now(srv->loop);
    w->deadline_ms = now + (uint64_t)timeout_s * 1000;
    w->bookmarks = sim__query_bool(req, "allowWatchBookmarks");
    w->table = sim__wants_table(req, r);
    w->meta = !w->table && sim__wants_metadata(req, 0);
    w->next_bookmark_ms = now + srv->cfg.bookmark_interval_ms;
    w->next = srv->watches;
    if (srv->watches)
        srv->watches->prev = w;
    srv->watches = w;

    req->res.status = 200;
    req->res.reason = "OK";
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL,
                   H2O_STRLIT("application/json"));
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CACHE_CONTROL, NULL,
                   H2O_STRLIT("no-cache, private"));
    h2o_start_response(req, &w->gen);
    /* Flush the headers now: client-go's Watch() returns only once they arrive. */
    w->out.sending = 1;
    h2o_send(req, NULL, 0, H2O_SEND_STATE_IN_PROGRESS);

    json_object *status = NULL;
    w->catching_up = 1;
    /* Watch-list: the state as of now (whatever resourceVersion says), then a bookmark. */
    int initial = sim__query_bool(req, "sendInitialEvents");
    if (initial)
        since = -1;
    if (since < 0) {
        /* resourceVersion unset or "0": the current state as ADDED events, then changes. */
        struct sim_list_opts opts = {labels, fields, 0, NULL};
        json_object *list = NULL;
        if (sim_store_list(srv->store, r, ns, &opts, &list, &status) < 0) {
            size_t len = 0;
            const char *s = sim__to_json(status, &len);
            watch_queue(w, "ERROR", s, len);
            json_object_put(status);
            watch_end(w);
            w->catching_up = 0;
            return;
        }
        json_object *items = json_object_object_get(list, "items");
        for (size_t i = 0; i < json_object_array_length(items); i++)
            watch_queue_object(w, "ADDED", json_object_array_get_idx(items, i));
        json_object_put(list);
        since = sim_store_rv(srv->store);
        if (initial && w->bookmarks)
            watch_initial_events_end(w);
    }
    if (!w->out.stopped && !w->out.ending &&
        sim_store_watch(srv->store, since, watch_on_event, w, &w->sw, &status) < 0) {
        /* A too-old resourceVersion is an ERROR event on a 200 stream, as the apiserver does. */
        size_t len = 0;
        const char *s = sim__to_json(status, &len);
        watch_queue(w, "ERROR", s, len);
        json_object_put(status);
        watch_end(w);
    }
    w->catching_up = 0;
}

size_t sim__watch_streams(const struct sim_server *srv)
{
    size_t n = 0;
    for (const struct watch *w = srv->watches; w; w = w->next)
        n += !w->out.ending && !w->out.stopped;
    return n;
}

void sim__watch_tick(struct sim_server *srv, uint64_t now)
{
    struct watch *next = NULL;
    for (struct watch *w = srv->watches; w; w = next) {
        next = w->next;
        if (now >= w->deadline_ms) {
            watch_end(w);
        } else if (w->bookmarks && now >= w->next_bookmark_ms) {
            watch_bookmark(w);
            w->next_bookmark_ms = now + srv->cfg.bookmark_interval_ms;
        }
    }
}

void sim__watch_end_all(struct sim_server *srv)
{
    struct watch *next = NULL;
    for (struct watch *w = srv->watches; w; w = next) {
        next = w->next;
        watch_end(w);
    }
}
