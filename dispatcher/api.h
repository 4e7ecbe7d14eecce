/* The admin API: JSON over HTTP/1.1 and HTTP/2 (h2c, or TLS with ALPN) on h2o + libuv, bearer-token
 * and client-certificate roles, a per-client rate limit, Prometheus metrics, and queue CRUD written
 * to the store (with an audit row) before the engine is changed. The contract is DESIGN.md, Admin
 * API; docs/admin-api.md describes what this module serves and its limits. */
#ifndef MUSTER_DISPATCHER_API_H
#define MUSTER_DISPATCHER_API_H

#include "dispatcher/store.h"
#include "queue/tree.h"

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* Limits on everything a client sends. Over a limit is a 413 (431 for headers) with a JSON
 * error; reqguard.h has the body caps of every route and of h2o itself. */
#define API_BODY_MAX (64 * 1024) /* request body bytes */
#define API_JSON_DEPTH_MAX 8     /* nesting of a request body */
/* Request header bytes (names + values + path). h2o buffers up to its H2O_MAX_REQLEN (~417 KiB)
 * and refuses more itself; between the two the answer is a JSON 431. */
#define API_HEADERS_MAX (16 * 1024)
#define API_TOKEN_MAX 512              /* bytes of one bearer token */
#define API_TOKEN_FILE_MAX (1 << 20)   /* bytes of the token file */
#define API_TOKEN_USER_MAX 128         /* bytes of a user name in the token file */
#define API_SCOPE_MAX 512              /* bytes of a token's scope path (research/nlp) */
#define API_LIST_LIMIT_DEFAULT 500     /* page size when `limit` is absent */
#define API_LIST_LIMIT_MAX 1000        /* larger `limit` values are clamped to this */
#define API_GANG_TIMEOUT_S_MAX 2592000 /* 30 days */
#define API_LOCAL_QUEUES_MAX 256       /* Kueue LocalQueues one queue takes */
#define API_NS_GANGS_MAX 1000000       /* namespaceLimits.gangs */
/* How long a webhook review waits for the dispatcher to see the RB's template (Karmada's
 * detector creates the RB right after it sees the template; musterd's watch may lag), asking
 * every API_WEBHOOK_POLL_MS; well inside the webhook's timeoutSeconds (5 in deploy/). */
#define API_WEBHOOK_WAIT_MS 2000
#define API_WEBHOOK_POLL_MS 25
/* preemption.minRuntime and preemption.cooldown at most (30 days, as "720h"). */
#define API_PREEMPT_DURATION_MAX_MS (2592000LL * 1000)
#define API_IDLE_TIMEOUT_MS_DEFAULT 10000
/* Per-client rate limit: a token bucket per remote address (see docs/admin-api.md for why the
 * address and not the user). Over it is a 429 with Retry-After. */
#define API_RATE_PER_S_DEFAULT 50  /* requests per second a client may sustain */
#define API_RATE_BURST_DEFAULT 100 /* requests a client may send at once after a pause */
#define API_RATE_CLIENTS_MAX 1024  /* addresses tracked; the longest idle is forgotten first */
#define API_CERT_CN_MAX API_TOKEN_USER_MAX /* bytes of a client certificate's CN */
/* GET /api/v1/events (server-sent events). Over the stream count is a 503 with Retry-After; a
 * stream whose unsent bytes pass the buffer cap is ended (the client resumes with
 * Last-Event-ID, or refetches after a reset), so a slow client cannot hold memory. */
#define API_SSE_STREAMS_MAX 64
/* Of those, at most this many for one user (with a token file) and for one address (an IPv6
 * client by its /64), so one client cannot take every slot. */
#define API_SSE_STREAMS_PER_USER 16
#define API_SSE_STREAMS_PER_ADDR 16
#define API_SSE_BUFFER_MAX (256 * 1024)
#define API_SSE_HEARTBEAT_MS 15000 /* a comment line, so proxies and browsers see it alive */
#define API_SSE_RETRY_MS 2000      /* the reconnect delay the stream asks the browser for */

/* Ordered: each role may do what the ones before it may. NONE marks routes without auth. */
enum api_role { API_ROLE_NONE = 0, API_ROLE_VIEWER, API_ROLE_OPERATOR, API_ROLE_ADMIN };

struct api_options {
    const char *host;         /* numeric IPv4 or IPv6 address; NULL: "127.0.0.1" */
    int port;                 /* 0: an ephemeral port (see api_server_port) */
    const char *token_file;   /* CSV token,user,role; NULL: no auth, loopback hosts only */
    uint64_t idle_timeout_ms; /* HTTP/1 and HTTP/2 idle timeout; 0: the default */
    /* TLS: with a certificate (PEM chain) and its key the port serves HTTPS only (HTTP/2 and
     * HTTP/1.1 by ALPN); both or neither. NULL: cleartext HTTP/1.1 and h2c. */
    const char *tls_cert_file;
    const char *tls_private_key_file;
    /* PEM CA bundle: a client certificate, when one is presented, must chain to it (else the
     * handshake fails) and its subject CN is the user; the role is that user's in token_file.
     * Needs tls_cert_file and token_file. Clients without a certificate still use tokens. */
    const char *client_ca_file;
    /* Token bucket per remote address; 0: API_RATE_PER_S_DEFAULT / API_RATE_BURST_DEFAULT. */
    uint32_t rate_per_s;
    uint32_t rate_burst;
    /* POST /admission/resourcebindings (the RB admission webhook,
     * cluster-adapters/karmada/webhook.h) is served whenever TLS is on. Set this to serve it over
     * cleartext too: tests only, since the apiserver calls webhooks over HTTPS and never sends a
     * token. */
    int webhook_insecure;
};

/* What the API serves from (the struct is copied). The store and the tree are borrowed: both
 * must outlive the server and are used only from the loop's thread. While the server runs it is
 * the only writer of the queues table (it mirrors the rows in memory); the engine's entries may
 * change under it freely. now_ms may be NULL (wall clock); tests pass a fixed clock. */
struct disp_events;
struct disp_metrics;
struct json_object;

/* What the dispatch loop lends the API: facts only it knows. Every member is optional; without
 * one the API says so (501 for a missing endpoint, the stored reason, ready without a hub). */
struct api_dispatcher {
    void *ud;
    /* Why the binding of this live ledger row waits (or stands), as the dispatcher last judged
     * it; NULL when it has nothing to say. Borrowed until the loop runs again. */
    const char *(*binding_reason)(void *ud, int64_t ledger_id);
    /* GET /api/v1/clusters: a new JSON array, one object per cluster (docs/admin-api.md), or
     * NULL when out of memory. */
    struct json_object *(*clusters)(void *ud);
    /* 1 once the hub's objects are listed and watched (/readyz waits for it). */
    int (*hub_synced)(void *ud);
    /* After a queue was created, changed or deleted through the API (the store and the engine
     * already hold the change): parked bindings naming it may now wait in it. */
    void (*queues_changed)(void *ud, const char *name);
    /* 0 while this musterd is a follower (leader election): changes are refused with 503. */
    int (*leading)(void *ud);
    /* What the hub lacks that muster needs (docs/operations.md, "Hub prerequisites"), one
     * line each, or NULL: /readyz names it while staying ready (musterd runs degraded rather
     * than refuse the webhook). Borrowed until the loop runs again. */
    const char *(*degraded)(void *ud);
    /* The admission webhook asks before it holds a new RB: 1 to deny its creation with why
     * (musterd --webhook-tenancy on: its queue does not admit its namespace), 0 to hold it,
     * -1 when the dispatcher cannot tell yet (its template not seen): the review is asked again
     * for a moment (API_WEBHOOK_WAIT_MS) and then held. NULL: never denied. */
    int (*webhook_refuse)(void *ud, struct json_object *rb, char *why, size_t cap);
    /* After PATCH /api/v1/clusters/{name} wrote a gang dialect override to the store: the
     * dispatcher reads the overrides again. 0, or the store's error. NULL: not running. */
    int (*dialects_changed)(void *ud);
};

struct api_ctx {
    struct store *store;
    struct queue_tree *tree;
    int64_t (*now_ms)(void);
    struct disp_events *events;   /* NULL: GET /api/v1/events is 501 */
    struct disp_metrics *metrics; /* NULL: /metrics has the queue gauges only */
    struct api_dispatcher disp;
};

struct api_server;

/* Reads the token file (if any) and the TLS files (if any), loads the queue rows of ctx->store (for
 * resourceVersion and the quantities as written), binds opt->host:opt->port and starts serving on
 * loop. On success *out is the running server; stop it with api_server_close. On failure *out is
 * NULL, err (if errcap > 0) says what was wrong, no callback of the caller's ever runs, and nothing
 * stays on the loop (a listener that failed to bind is already closing and is gone after the loop's
 * next iteration, so uv_loop_close needs one more uv_run first). The return is MUSTER_ECONFIG (no
 * token file and a non-loopback host, a bad token file, a bad address, TLS files missing,
 * unreadable or not matching, a client CA without a certificate or a token file), MUSTER_EIO (the
 * token file cannot be read, bind/listen failed), MUSTER_ESTORE (reading the queues) or
 * MUSTER_ENOMEM. ctx->tree must hold the queues of ctx->store (see disp_load). */
int api_server_start(uv_loop_t *loop, const struct api_options *opt, struct api_ctx *ctx,
                     struct api_server **out, char *err, size_t errcap);

/* Points the server at a new engine t (rebuilt from the store by a new leader) and re-reads
 * the queue rows it mirrors. Requests already answered are unaffected. 0, or the store's error
 * (then /readyz reports the server degraded). */
int api_server_reload(struct api_server *s, struct queue_tree *t);

/* Adds made and suffered to queue's status.preemptions as the API shows them, after the
 * dispatcher committed the same counts to the store (store_preemptions_add): the mirror moves
 * live. No-op for a queue it does not know. */
void api_server_preemptions_add(struct api_server *s, const char *queue, int64_t made,
                                int64_t suffered);

/* The port the server listens on (the ephemeral one when opt->port was 0). */
int api_server_port(const struct api_server *s);

/* Starts a graceful shutdown: GOAWAY to HTTP/2 clients, no keep-alive for HTTP/1 answers from
 * now on, and within_ms from now every connection still open is cut (shut down at the socket,
 * so h2o closes it by its own path). The server keeps answering until then. Calling it again
 * only brings the deadline forward. NULL is a no-op. */
void api_server_drain(struct api_server *s, uint64_t within_ms);

/* Stops accepting, ends event streams, and frees the server once the listener and every
 * connection are closed; then cb(ud) runs on the loop. Connections end by themselves or at the
 * drain deadline: the one set by api_server_drain, else the idle timeout from now. No handle of
 * the server is left afterwards. NULL is a no-op. */
void api_server_close(struct api_server *s, void (*cb)(void *ud), void *ud);

/* One route the server serves, for tests and the OpenAPI cross-check. path uses OpenAPI
 * templates ("/api/v1/queues/{name}"). */
struct api_route_info {
    const char *method;
    const char *path;
    enum api_role role; /* least role allowed; API_ROLE_NONE: no authentication */
};
/* The route table (static storage); *n gets its length. */
const struct api_route_info *api_routes(size_t *n);

/* ---- the request body decoder (exposed for its fuzz target and tests) ---- */

/* An error to send: HTTP status, reason, message and (for 422) the field. */
struct api_error {
    int status;
    char reason[32];
    char field[96];
    char msg[320];
};

/* Parses a request body strictly: valid UTF-8, one JSON value and nothing after it, nesting at
 * most API_JSON_DEPTH_MAX, at most API_BODY_MAX bytes, and an object at the top. On success
 * *out owns the object (json_object_put it). On failure *out is NULL, err is filled (400, or
 * 413 over a limit) and MUSTER_EINVAL or MUSTER_ELIMIT returned. */
struct json_object;
int api_body_parse(const char *body, size_t len, struct json_object **out, struct api_error *err);

/* A queue as a client writes it (POST and PUT bodies, the result of a merge patch). Strings
 * point into the JSON object it was decoded from; maps are JSON text owned by the struct. */
struct api_queue_doc {
    const char *name;
    const char *parent; /* NULL: null or absent (root) */
    int64_t weight, priority, gang_timeout_s;
    const char *state, *strategy;
    const char *on_loss; /* onClusterLoss: "Requeue" (default) or "Replace" */
    struct json_object *guarantee, *deserved, *capability; /* borrowed from the source object */
    /* reclaimable and preemption.{withinQueue, minRuntime, maxPerMinute, cooldown} */
    int reclaimable; /* 1 (the default) or 0 */
    enum queue_within within_queue;
    int64_t min_runtime_ms, max_per_minute, cooldown_ms;
    /* namespaceSelector: a checked metav1.LabelSelector, borrowed; NULL: none (inherited) */
    struct json_object *ns_selector;
    /* localQueues: Kueue LocalQueues this queue takes, checked "<namespace>/<name>" strings,
     * borrowed; NULL: none */
    struct json_object *local_queues;
    /* namespaceLimits, ownerLimits: {gangs, resources}, checked, borrowed; NULL: none */
    struct json_object *ns_limits, *owner_limits;
};

/* Checks obj field by field: known fields only (metadata and status are accepted and ignored
 * as read-only), the right JSON types, integers in range, state, queueingStrategy and
 * onClusterLoss names, reclaimable a boolean, preemption an object (or null) of known fields
 * with durations such as "10m" (queue/duration.h), namespaceSelector a label selector (or
 * null) as the apiserver checks one (kube/selector.h), localQueues a list (or null) of distinct
 * "<namespace>/<name>" strings, each part a queue-name-shaped DNS name. Absent fields get their defaults (weight 1,
 * priority 0, Open, BestEffortFIFO, {} maps, gangTimeoutSeconds 300, onClusterLoss Requeue,
 * reclaimable true, withinQueue Never, the rest 0). 0, or MUSTER_EINVAL with a 422 in err
 * naming the field ("preemption.minRuntime"). */
int api_queue_doc_decode(struct json_object *obj, struct api_queue_doc *doc, struct api_error *err);

/* RFC 7386 JSON merge patch: returns a new object, target with patch applied (target is not
 * changed), or NULL on allocation failure. A patch that is not an object replaces the target. */
struct json_object *api_merge_patch(struct json_object *target, struct json_object *patch);

#endif
