/* GET /api/v1/events: the live feed (dispatcher/events.c) as server-sent events, one stream per
 * client with a buffer cap, caps per user and address, resume by Last-Event-ID, heartbeats; and
 * GET /api/v1/stats, the feed's per-minute chart counters. */
#include "dispatcher/api/api_int.h"

#include "cluster-adapters/kube/httpserver.h"
#include "dispatcher/events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GET /api/v1/stats: the per-minute chart counters of the last hour. */
void api__handle_stats(struct api_call *c)
{
    if (!c->srv->app.events) {
        api__send_fail(c->req, 501, "NotImplemented",
                       "/api/v1/stats needs the dispatcher, which is not running in this musterd");
        return;
    }
    api__send_json(c->req, 200, disp_events_stats_json(c->srv->app.events, api__now_ms(c->srv)));
}

/* One open stream. It lives in the request's pool (h2o frees it with the request); while linked
 * it is in the server's list and subscribed to the feed. Bytes go out one h2o_send at a time:
 * what arrives meanwhile collects in pending, up to API_SSE_BUFFER_MAX. The shape follows the
 * simulated hub's watch streams (cluster-adapters/sim/server.c). */
struct api_stream {
    h2o_generator_t gen;
    struct kube_http_stream out; /* the response body, one send in flight at a time */
    struct api_server *srv;
    struct disp_events_sub sub;
    int linked;
    int catching_up;  /* replaying the ring: bounded by the ring, so not by the buffer cap */
    const char *user; /* NULL: anonymous (no token file), capped by address only */
    unsigned char key[API_RATE_KEY_LEN];
    struct api_stream *prev, *next;
};

static void stream_unlink(struct api_stream *w)
{
    if (!w->linked)
        return;
    w->linked = 0;
    struct api_server *s = w->srv;
    disp_events_unsubscribe(s->app.events, &w->sub);
    if (w->prev)
        w->prev->next = w->next;
    else
        s->streams = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->prev = w->next = NULL;
    s->nstreams--;
}

static void stream_dispose(void *p)
{
    struct api_stream *w = p;
    stream_unlink(w);
    kube_http_stream_free(&w->out);
}

static void stream_before_final(struct kube_http_stream *out)
{
    stream_unlink(H2O_STRUCT_FROM_MEMBER(struct api_stream, out, out));
}

static void stream_flush(struct api_stream *w)
{
    kube_http_stream_flush(&w->out);
}

static void stream_proceed(h2o_generator_t *gen, h2o_req_t *req)
{
    struct api_stream *w = H2O_STRUCT_FROM_MEMBER(struct api_stream, gen, gen);
    w->out.sending = 0;
    stream_flush(w);
}

static void stream_stop(h2o_generator_t *gen, h2o_req_t *req)
{
    struct api_stream *w = H2O_STRUCT_FROM_MEMBER(struct api_stream, gen, gen);
    w->out.stopped = 1;
    stream_unlink(w);
}

/* Ends the stream once what is queued is sent. */
static void stream_end(struct api_stream *w)
{
    if (w->out.ending || w->out.stopped)
        return;
    w->out.ending = 1;
    stream_unlink(w);
    stream_flush(w);
}

static void stream_queue(struct api_stream *w, const char *bytes, size_t len)
{
    if (w->out.ending || w->out.stopped)
        return;
    /* Too slow (past the cap): cut, as kube-apiserver cuts a watcher that falls behind. The
     * browser reconnects with Last-Event-ID and gets the rest from the ring, or a reset. */
    struct kube_http_stream *o = &w->out;
    if (kube_http_stream_reserve(o, len, w->catching_up ? 0 : API_SSE_BUFFER_MAX)) {
        stream_end(w);
        return;
    }
    memcpy(o->pending + o->pending_len, bytes, len);
    o->pending_len += len;
    stream_flush(w);
}

static void stream_on_event(void *ud, const struct disp_event *e)
{
    stream_queue(ud, e->frame, e->frame_len);
}

/* An event: reset tells the client it missed events (its id fell out of the ring, or it comes
 * from another run of musterd) and must refetch what it shows; its id is the newest, so the
 * browser resumes from there. A first connection gets one too: the client's one path for
 * "load everything" is its reset handler. */
static void stream_reset(struct api_stream *w)
{
    char f[128];
    uint64_t last = disp_events_last_id(w->srv->app.events);
    int n = snprintf(f, sizeof(f),
                     "id: %" PRIu64 "\nevent: reset\ndata: {\"last\":%" PRIu64 "}\n\n", last, last);
    stream_queue(w, f, (size_t)n);
}

void api__events_heartbeat(uv_timer_t *t)
{
    struct api_server *s = t->data;
    struct api_stream *next;
    for (struct api_stream *w = s->streams; w; w = next) {
        next = w->next;
        stream_queue(w, H2O_STRLIT(": keep-alive\n\n"));
    }
}

/* The id to resume after: Last-Event-ID (the browser's own reconnect) before ?since= (a first
 * connection that already holds data). 1 with *after set, 0 none, -1 malformed since=. */
static int resume_id(h2o_req_t *req, uint64_t *after)
{
    char v[32];
    ssize_t i = h2o_find_header_by_str(&req->headers, H2O_STRLIT("last-event-id"), -1);
    int got;
    if (i >= 0) {
        h2o_iovec_t hv = req->headers.entries[i].value;
        if (hv.len == 0 || hv.len >= sizeof(v))
            return 0; /* the browser sends what it was given; anything else: start over */
        memcpy(v, hv.base, hv.len);
        v[hv.len] = '\0';
        got = 1;
    } else {
        got = api__query_param(req, "since", v, sizeof(v));
        if (got <= 0)
            return got;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v || *end || v[0] == '-')
        return i >= 0 ? 0 : -1;
    *after = n;
    return 1;
}

void api__handle_events(struct api_call *c)
{
    struct api_server *s = c->srv;
    h2o_req_t *req = c->req;
    if (!s->app.events) {
        api__send_fail(req, 501, "NotImplemented",
                       "/api/v1/events needs the dispatcher, which is not running in this musterd");
        return;
    }
    if (s->closing) {
        api__send_fail(req, 503, "ServiceUnavailable", "musterd is shutting down");
        return;
    }
    if (s->nstreams >= API_SSE_STREAMS_MAX) {
        api__add_header(req, H2O_TOKEN_RETRY_AFTER, "5");
        api__send_fail(req, 503, "ServiceUnavailable",
                       "%d event streams are open, the most this server keeps; retry later",
                       API_SSE_STREAMS_MAX);
        return;
    }
    /* One user or one address must not take every slot: each has its own cap. Without a token
     * file everyone is the same anonymous user, so only the address counts then. */
    unsigned char key[API_RATE_KEY_LEN];
    int keyed = api__peer_key(req, key);
    const char *user = s->tokens ? c->user : NULL;
    size_t by_user = 0, by_addr = 0;
    for (struct api_stream *o = s->streams; o; o = o->next) {
        by_user += user && o->user && strcmp(o->user, user) == 0;
        by_addr += keyed && memcmp(o->key, key, sizeof(key)) == 0;
    }
    if (by_user >= API_SSE_STREAMS_PER_USER || by_addr >= API_SSE_STREAMS_PER_ADDR) {
        api__add_header(req, H2O_TOKEN_RETRY_AFTER, "5");
        api__send_fail(req, 503, "ServiceUnavailable",
                       "%d event streams are open for this %s, the most one may hold; close one or "
                       "retry later",
                       by_user >= API_SSE_STREAMS_PER_USER ? API_SSE_STREAMS_PER_USER
                                                           : API_SSE_STREAMS_PER_ADDR,
                       by_user >= API_SSE_STREAMS_PER_USER ? "user" : "address");
        return;
    }
    uint64_t after = 0;
    int has = resume_id(req, &after);
    if (has < 0) {
        api__send_fail(req, 400, "BadRequest", "since must be an event id (a decimal integer)");
        return;
    }
    struct api_stream *w = h2o_mem_alloc_shared(&req->pool, sizeof(*w), stream_dispose);
    memset(w, 0, sizeof(*w));
    /* the user string outlives the stream: a token file's, or the request pool's (a certificate
     * CN), which is the stream's own pool */
    w->user = user;
    if (keyed)
        memcpy(w->key, key, sizeof(key));
    w->gen.proceed = stream_proceed;
    w->gen.stop = stream_stop;
    w->out.req = req;
    w->out.before_final = stream_before_final;
    w->srv = s;
    w->sub.cb = stream_on_event;
    w->sub.ud = w;
    w->linked = 1;
    w->next = s->streams;
    if (s->streams)
        s->streams->prev = w;
    s->streams = w;
    s->nstreams++;
    req->res.status = 200;
    req->res.reason = "OK";
    api__add_header(req, H2O_TOKEN_CONTENT_TYPE, "text/event-stream; charset=utf-8");
    api__add_header(req, H2O_TOKEN_CACHE_CONTROL, "no-store");
    /* nginx and similar proxies would hold the stream back in their buffers otherwise. */
    h2o_add_header_by_str(&req->pool, &req->res.headers, H2O_STRLIT("x-accel-buffering"), 0, NULL,
                          H2O_STRLIT("no"));
    /* An HTTP/1.1 stream's connection closes with it, so a shutdown does not wait for the idle
     * timeout of a connection the browser will not reuse anyway. */
    req->http1_is_persistent = 0;
    h2o_start_response(req, &w->gen);
    w->catching_up = 1;
    char retry[32];
    int n = snprintf(retry, sizeof(retry), "retry: %d\n\n", API_SSE_RETRY_MS);
    stream_queue(w, retry, (size_t)n);
    if (!has || disp_events_since(s->app.events, after, stream_on_event, w) != 0)
        stream_reset(w);
    w->catching_up = 0;
    if (w->linked)
        disp_events_subscribe(s->app.events, &w->sub);
}

void api__events_end_all(struct api_server *s)
{
    while (s->streams)
        stream_end(s->streams);
}
