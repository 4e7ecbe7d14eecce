/* The admin API's private header: what the files of dispatcher/api/ share (the server, one
 * request, the mirrored queue rows, replies, the query string and its list pager) and the
 * handlers the route table names. Only dispatcher/api/ includes it; everyone else uses
 * dispatcher/api.h. Cross-file names are api__ (STYLE.md, Names). */
#ifndef MUSTER_DISPATCHER_API_API_INT_H
#define MUSTER_DISPATCHER_API_API_INT_H

#include "dispatcher/api.h"
#include "dispatcher/reqguard.h"
#include "cluster-adapters/karmada/webhook.h"

#include <arpa/inet.h>
#include <h2o.h>
#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define API_QUERY_VALUE_MAX 256 /* bytes of one query parameter value */
#define API_ANONYMOUS "system:anonymous"
/* The {...} segments of a path joined by '/': a binding's namespace/name, each at most
 * QUEUE_NAME_MAX (a DNS subdomain), is the longest. */
#define API_PATH_NAME_MAX (2 * QUEUE_NAME_MAX + 1)
/* Series of muster_api_requests_total: routes x methods x codes is small and bounded by the
 * route table, so this cap is never met in practice; past it requests are counted in
 * muster_api_requests_dropped_series_total instead of growing memory. */
#define API_REQ_SERIES_MAX 512
#define API_RATE_KEY_LEN API_GUARD_KEY_LEN
#define API_AUDIT_NACTIONS 5 /* the entries of api__audit_actions */

struct api_token;  /* auth.c */
struct api_stream; /* events.c */

/* The store keeps what the operator wrote (quantities as strings, resourceVersion); the engine
 * keeps parsed vectors. The server mirrors the rows in memory, sorted by name, so reads do not
 * touch SQLite and list pages are a binary search. Written only after the store commits. */
struct api_qrow {
    char *name, *parent, *state, *strategy, *guarantee, *deserved, *capability;
    int64_t weight, priority, gang_timeout_ms, rv, created_at, updated_at;
    /* reclaimable and preemption, as the store keeps them (struct store_queue) */
    int not_reclaimable;
    enum queue_within within_queue;
    int64_t min_runtime_ms, preempt_per_minute, preempt_cooldown_ms;
    /* status.preemptions as read from the store at load (0 until eviction counts; a write
     * through store_preemptions_add is seen at the next api_server_reload) */
    int64_t preemptions_made, preemptions_suffered;
    const char *on_loss; /* onClusterLoss, a static name (queue_on_loss_name) */
    char *ns_selector;   /* namespaceSelector as canonical JSON text; NULL: none */
    char *local_queues;  /* localQueues as canonical JSON text; NULL: none */
    char *ns_limits;     /* namespaceLimits as canonical JSON text; NULL: none */
    char *owner_limits;  /* ownerLimits as canonical JSON text; NULL: none */
    /* guarantee, deserved, capability parsed once (lazily) and shared by reference into every
     * response: a list of 1,000 queues would otherwise parse 3,000 maps per request. */
    struct json_object *parsed[3];
};

/* The one h2o handler of the server's only path, "/": every request goes to api__on_req. */
struct api_handler {
    h2o_handler_t super;
    struct api_server *srv;
};

/* A connection: the uv handle first, so h2o's close callback (which gets the handle) finds the
 * server it belongs to. */
struct api_conn {
    uv_tcp_t tcp;
    struct api_server *srv;
    struct api_conn *prev, *next; /* the server's open connections, for the shutdown deadline */
};

/* One series of muster_api_requests_total. route is a static string (a route template). */
struct api_req_series {
    const char *route;
    const char *method;
    int code;
    uint64_t n;
};

/* One client's token bucket. tokens is fractional: refill is continuous. */
struct api_bucket {
    unsigned char key[API_RATE_KEY_LEN];
    int used;
    double tokens;
    uint64_t at_ms; /* uv_now of the last refill */
};

/* The server: h2o's configuration and context, the listener, and everything the files of
 * dispatcher/api/ read and count (api_server_start fills it; server.c frees it). */
/* A list answer kept to be served again (snapshot.c). */
struct api_snapshot {
    uint64_t version, gen; /* queue_tree_version and the rows' generation it was built at */
    size_t limit;
    char *cont; /* the page's continue token; NULL for the first page */
    char *body, *gz;
    size_t len, gzlen;
    char etag[80];
};

struct api_server {
    h2o_globalconf_t config;
    h2o_context_t ctx;
    h2o_accept_ctx_t accept;
    uv_tcp_t listener;
    struct api_ctx app;
    struct api_token *tokens; /* NULL: no auth (loopback only) */
    size_t ntokens;
    SSL_CTX *ssl_ctx; /* NULL: cleartext */
    int client_certs; /* client certificates are verified and name the user */
    struct api_req_series reqs[API_REQ_SERIES_MAX];
    size_t nreqs;
    uint64_t reqs_dropped;
    uint64_t audit_writes[API_AUDIT_NACTIONS];
    double rate_per_s, rate_burst;
    struct api_bucket buckets[API_RATE_CLIENTS_MAX];
    struct api_qrow *rows; /* sorted by name */
    size_t nrows, caprows;
    uint64_t rows_gen;         /* bumped by every change of rows */
    struct api_snapshot qlist; /* the last GET /api/v1/queues page */
    int port;
    size_t nconns;
    int closing, listener_closed, degraded;
    int webhook_insecure;                               /* serve the webhook without TLS (tests) */
    uint64_t webhook_reviews[KARMADA_WEBHOOK_VERDICTS]; /* muster_webhook_reviews_total */
    struct api_conn reserve; /* takes a connection to drop it when allocation fails */
    int reserve_busy;
    struct api_guard guard; /* the rules every request meets first (reqguard.h) */
    char listen_host[INET6_ADDRSTRLEN];
    struct api_review *reviews; /* webhook reviews waiting for the dispatcher (admission.c) */
    struct api_stream *streams; /* open GET /api/v1/events responses */
    size_t nstreams;
    uv_timer_t heartbeat; /* initialised with ctx->events only */
    int heartbeat_live;
    struct api_conn *conns; /* open connections (not the reserve) */
    /* The shutdown deadline: once draining, connections still open when it fires are cut. */
    uv_timer_t deadline;
    int deadline_live, draining;
    int cut; /* the drain deadline has passed: a connection accepted now is closed at once */
    void (*close_cb)(void *ud);
    void *close_ud;
};

/* One request being answered: who asks, with which role, and the path's names. */
struct api_call {
    struct api_server *srv;
    h2o_req_t *req;
    const char *user;
    enum api_role role;
    const char *scope; /* the subtree the caller may change (a queue path); NULL: every queue */
    char name[API_PATH_NAME_MAX + 1]; /* the path's {...} segments joined with '/' */
};

/* ---- body.c: strict request bodies ---- */

/* Fills e (status, reason, field or NULL, message) and returns MUSTER_ELIMIT for a 413, else
 * MUSTER_EINVAL, so a caller can `return api__fail(...)`. */
__attribute__((format(printf, 5, 6))) int api__fail(struct api_error *e, int status,
                                                    const char *reason, const char *field,
                                                    const char *fmt, ...);

/* ---- reply.c: responses ---- */

/* Adds a response header (v is copied into the request's pool). */
void api__add_header(h2o_req_t *req, const h2o_token_t *tok, const char *v);
/* Sends body (len bytes, copied) with status and content type, never cached. */
void api__send_text(h2o_req_t *req, int status, const char *ctype, const char *body, size_t len);
/* Sends obj (consumed) as the JSON response; NULL sends a 500 "out of memory". */
void api__send_json(h2o_req_t *req, int status, struct json_object *obj);
/* Sends e as the JSON error document {code, reason, message[, field]}. */
void api__send_error(h2o_req_t *req, const struct api_error *e);
/* api__send_error with the message formatted here. */
__attribute__((format(printf, 4, 5))) void api__send_fail(h2o_req_t *req, int status,
                                                          const char *reason, const char *fmt, ...);
/* JSON text stored by us as an object (the raw string when it does not parse); NULL for NULL. */
struct json_object *api__stored_json(const char *text);
/* Adds v (consumed) to o as k; *bad is set when v is NULL or the add fails. */
void api__obj_add(struct json_object *o, const char *k, struct json_object *v, int *bad);
/* Sends a page of a list: {"items": items, "metadata": {"continue": cont}} ("continue" only when
 * cont is not NULL: the last page has none). Takes items; NULL items (a page that could not be
 * built) sends a 500. */
void api__send_page(h2o_req_t *req, struct json_object *items, const char *cont);
/* The list document {"items": items, "metadata": {"continue": cont}} (items consumed); NULL when
 * out of memory. */
struct json_object *api__page_json(struct json_object *items, const char *cont);

/* ---- query.c: the query string and the list pager ---- */

/* The value of query parameter key, copied into out (capped). 1 found, 0 absent, -1 too long. */
int api__query_param(h2o_req_t *req, const char *key, char *out, size_t cap);
/* Decodes %XX escapes and '+' in place. 0 on a malformed escape or an escaped NUL, else 1. */
int api__url_unescape(char *v);

/* The page a list route is asked for: `limit` (1..API_LIST_LIMIT_MAX, larger clamped, default
 * API_LIST_LIMIT_DEFAULT) and `continue`, the token the previous page ended with. The token's
 * meaning is the route's (a name, a row id, a sort key); it answers a token it cannot read
 * with api__page_refuse. */
struct api_page {
    size_t limit;
    const char *cont; /* NULL: the first page; else buf */
    char buf[API_QUERY_VALUE_MAX];
};
/* Reads req's `limit` and `continue` into p: 0, or a 400 already sent and MUSTER_EINVAL. The
 * one pager of every list route. */
int api__page_parse(h2o_req_t *req, struct api_page *p);
/* Sends the 400 for a continue token that is not one a previous page gave out. */
void api__page_refuse(h2o_req_t *req);

/* ---- snapshot.c ---- */

/* Whether sn holds the page limit/cont built at version and gen. */
int api__snapshot_valid(const struct api_snapshot *sn, uint64_t version, uint64_t gen, size_t limit,
                        const char *cont);
/* Keeps body[0..len) (copied; gzipped too when large) as that page: 0 or MUSTER_ENOMEM (sn is
 * then empty). */
int api__snapshot_fill(struct api_snapshot *sn, uint64_t version, uint64_t gen, size_t limit,
                       const char *cont, const char *body, size_t len);
/* Answers req from sn: 304 when If-None-Match names its ETag, else 200 with the body, gzipped
 * when the client accepts it. */
void api__snapshot_send(h2o_req_t *req, const struct api_snapshot *sn);
void api__snapshot_close(struct api_snapshot *sn);

/* ---- server.c ---- */

/* Milliseconds since the epoch: the context's clock when it has one (tests), else the wall
 * clock. */
int64_t api__now_ms(const struct api_server *s);

/* ---- queue_rows.c: the queue rows, mirrored from the store ---- */

/* Frees r's strings and cached maps and zeroes it. */
void api__qrow_close(struct api_qrow *r);
/* Points q's fields at r's (borrowed: q lives no longer than r). */
void api__qrow_to_store(const struct api_qrow *r, struct store_queue *q);
/* 1 when a and b have the same spec fields (maps compared as stored text, durations as ms). */
int api__qrow_same_spec(const struct api_qrow *a, const struct api_qrow *b);
/* The index of the first row whose name is not less than name. */
size_t api__rows_lower_bound(const struct api_server *s, const char *name);
/* The row named name, or NULL. The pointer is valid until the rows change. */
struct api_qrow *api__rows_find(struct api_server *s, const char *name);
/* Room for one more row: 0 or MUSTER_ENOMEM. */
int api__rows_reserve(struct api_server *s);
/* Puts r (taking its strings) in place of the row of the same name, or inserts it; needs a
 * successful api__rows_reserve first, so it cannot fail. */
void api__rows_put(struct api_server *s, struct api_qrow *r);
/* Removes the row named name, if any. */
void api__rows_remove(struct api_server *s, const char *name);
/* Appends the store's queue rows (s->rows must be empty): 0 or the store's error. */
int api__rows_load(struct api_server *s);
/* Frees every row and the array. */
void api__rows_free(struct api_server *s);

/* ---- auth.c: tokens and identities ---- */

/* "viewer", "operator", "admin" or "none". */
const char *api__role_name(enum api_role r);
/* Reads the token file path into *out (n entries; free with api__tokens_free). 0, or
 * MUSTER_ECONFIG / MUSTER_EIO / MUSTER_ENOMEM with err naming the file and line. */
int api__tokens_load(const char *path, struct api_token **out, size_t *n, char *err, size_t errcap);
/* Wipes and frees n tokens; NULL is a no-op. */
void api__tokens_free(struct api_token *t, size_t n);
/* The caller's user and role: 0, or MUSTER_EUNAUTHORIZED. query_ok takes ?access_token=. */
int api__authenticate(struct api_server *s, h2o_req_t *req, int query_ok, const char **user,
                      enum api_role *role, const char **scope);
/* Sends the 401 with its WWW-Authenticate challenge. */
void api__send_unauthorized(h2o_req_t *req);

/* ---- ratelimit.c: the per-client rate limit ---- */

/* The caller's client key (reqguard.h; an IPv6 client by its /64): 1, or 0 without one. */
int api__peer_key(h2o_req_t *req, unsigned char key[API_RATE_KEY_LEN]);
/* Takes a token from the caller's bucket: 0, or 1 when it is empty (*retry_s: when to retry). */
int api__rate_take(struct api_server *s, h2o_req_t *req, uint64_t *retry_s);

/* ---- audit.c ---- */

/* The audit actions, in the order of struct api_server's audit_writes. */
extern const char *const api__audit_actions[API_AUDIT_NACTIONS];

/* ---- events.c: server-sent events ---- */

/* The heartbeat timer's callback (data: the server): a comment line to every stream. */
void api__events_heartbeat(uv_timer_t *t);
/* Ends every open event stream (each sends what it holds first). */
void api__events_end_all(struct api_server *s);
/* Answers every webhook review still waiting (held, as at its deadline). */
void api__reviews_end_all(struct api_server *s);

/* ---- router.c ---- */

/* h2o's on_req of the server's handler: answers the request and counts it. */
int api__on_req(h2o_handler_t *self, h2o_req_t *req);

/* ---- the handlers, one file per resource (router.c's table names them) ---- */

void api__handle_healthz(struct api_call *c);         /* health.c */
void api__handle_readyz(struct api_call *c);          /* health.c */
void api__handle_metrics(struct api_call *c);         /* prometheus.c */
void api__handle_openapi(struct api_call *c);         /* static.c */
void api__handle_dashboard_index(struct api_call *c); /* static.c */
void api__handle_dashboard_file(struct api_call *c);  /* static.c */
void api__handle_queue_list(struct api_call *c);      /* queues.c */
void api__handle_queue_create(struct api_call *c);
void api__handle_queue_get(struct api_call *c);
void api__handle_queue_replace(struct api_call *c);
void api__handle_queue_patch(struct api_call *c);
void api__handle_queue_delete(struct api_call *c);
void api__handle_audit_list(struct api_call *c);   /* audit.c */
void api__handle_binding_list(struct api_call *c); /* bindings.c */
void api__handle_binding_get(struct api_call *c);
void api__handle_cluster_list(struct api_call *c); /* clusters.c */
void api__handle_cluster_get(struct api_call *c);
void api__handle_cluster_patch(struct api_call *c);
void api__handle_events(struct api_call *c); /* events.c */
void api__handle_stats(struct api_call *c);
void api__handle_webhook(struct api_call *c); /* admission.c */

#endif
