/* A Kubernetes REST client: libcurl's multi interface driven by a libuv loop, callback API. */
#ifndef MUSTER_KUBE_CLIENT_H
#define MUSTER_KUBE_CLIENT_H

#include "cluster-adapters/kube/kubeconfig.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* Named caps on what the network may fill. */
#define KUBE_MAX_RESPONSE_BYTES (64u * 1024 * 1024) /* a buffered (non-streaming) body */
#define KUBE_MAX_HEADER_BYTES (16 * 1024)           /* one response header line */
#define KUBE_MAX_URL_BYTES 8192
/* Nesting accepted in JSON from the server (json-c's default of 32 is too shallow for objects
 * that embed others, such as Works holding Deployments, or CRDs with deep schemas). */
#define KUBE_MAX_JSON_DEPTH 128
#define KUBE_STATUS_REASON_BYTES 64
#define KUBE_STATUS_MESSAGE_BYTES 512
/* 429 handling: how often one request is retried, and the longest Retry-After obeyed. */
#define KUBE_MAX_RETRIES 5
#define KUBE_MAX_RETRY_AFTER_S 60
/* A watch asked to end after timeout_s is cut by the client this much later, in case the
 * server or a proxy leaves a dead stream open. */
#define KUBE_WATCH_TIMEOUT_SLACK_S 60

/* Defaults for struct kube_client_opts fields left 0 (client-go uses qps 5 / burst 10; a
 * dispatcher that patches thousands of bindings a second needs far more). */
#define KUBE_DEFAULT_QPS 200.0
#define KUBE_DEFAULT_BURST 400
#define KUBE_DEFAULT_MAX_INFLIGHT 64
#define KUBE_DEFAULT_TIMEOUT_MS 30000
#define KUBE_DEFAULT_CONNECT_TIMEOUT_MS 10000

struct kube_client;
struct kube_call;

enum kube_verb {
    KUBE_GET,
    KUBE_LIST,  /* GET a collection: limit, continue, selectors, resourceVersion */
    KUBE_WATCH, /* GET ?watch=true&allowWatchBookmarks=true: streamed through on_data */
    KUBE_CREATE,
    KUBE_UPDATE, /* PUT; the body carries metadata.resourceVersion for optimistic concurrency */
    KUBE_DELETE,
    KUBE_MERGE_PATCH, /* application/merge-patch+json */
    KUBE_JSON_PATCH,  /* application/json-patch+json */
};

/* One request. Everything is copied by kube_request; nothing needs to outlive the call. */
struct kube_request {
    enum kube_verb verb;
    const char *path;        /* from kube_path(): a collection or one object */
    const char *subresource; /* e.g. "status": appended as "/status" */
    const char *body;        /* JSON for create, update, patch (optional for delete) */
    size_t body_len;         /* 0 means strlen(body) */
    const char *label_selector;
    const char *field_selector;
    long limit;                 /* list page size; 0 for none */
    const char *continue_token; /* list: metadata.continue of the previous page */
    const char *resource_version;
    long timeout_s; /* watch: the server ends the stream after this many seconds */
    /* Streaming: when set, a 2xx body is handed over piece by piece as it arrives instead of
     * being buffered and parsed. Return 0 to go on or a negative MUSTER_* code to abort the
     * request (the completion callback then gets that code). It runs inside libcurl, so
     * everything it may call (kube_request, kube_call_cancel, kube_client_close) only queues
     * work for the loop. */
    int (*on_data)(void *ud, const char *data, size_t len);
    /* Set when the caller needs only the outcome (its watch brings the object): a 2xx body is
     * read and dropped, neither buffered nor parsed, and the response carries no body. */
    int discard_body;
    /* Get, list or watch objects as PartialObjectMetadata (kind, apiVersion, metadata only), as
     * client-go's metadata client does; a server that cannot sends whole objects instead. */
    int metadata_only;
};

/* What the server said when it refused (a Kubernetes Status body), or what went wrong. */
struct kube_status {
    int http;                                /* HTTP status; 0 when there was no response */
    char reason[KUBE_STATUS_REASON_BYTES];   /* Status.reason, e.g. "Conflict", "Expired" */
    char message[KUBE_STATUS_MESSAGE_BYTES]; /* Status.message or a transport error */
    long retry_after_s;                      /* Retry-After of a 429 / 503, else 0 */
};

struct kube_response {
    int http;
    int http_version; /* 2 for HTTP/2, 1 for HTTP/1.x, 0 when there was no response */
    /* The parsed body of a 2xx response (NULL when empty or streamed). Borrowed: valid during
     * the callback; json_object_get() it to keep it. */
    struct json_object *body;
    struct kube_status status;
};

/* err is 0 for a 2xx response, else a negative MUSTER_* code: MUSTER_ECONFLICT (409),
 * MUSTER_EEXIST (409 AlreadyExists), MUSTER_ENOENT (404), MUSTER_EGONE (410),
 * MUSTER_ETOOMANY (429 once max_retries are spent), MUSTER_EUNAUTHORIZED (401),
 * MUSTER_EFORBIDDEN (403), MUSTER_EINVAL (400, 422), MUSTER_EHTTP (other statuses),
 * MUSTER_ECONNECT, MUSTER_ETIMEDOUT, MUSTER_ETLS, MUSTER_EIO (transport), MUSTER_ELIMIT (body
 * or a header over its cap), MUSTER_EPROTO (unparsable body), MUSTER_ECANCELED, or the code an
 * on_data callback returned. resp is never NULL. */
typedef void (*kube_response_cb)(int err, const struct kube_response *resp, void *ud);

struct kube_client_opts {
    double qps;          /* sustained requests per second; < 0 for no limit */
    int burst;           /* token-bucket depth */
    int max_inflight;    /* requests on the wire at once; more wait in FIFO order. Watches,
                            being long-lived, are not counted. */
    size_t max_response; /* cap on a buffered body (default KUBE_MAX_RESPONSE_BYTES) */
    long timeout_ms;     /* whole-request timeout for non-watch requests */
    long connect_timeout_ms;
    const char *user_agent;
    int max_retries; /* 429 retries per request: 0 for KUBE_MAX_RETRIES, < 0 for none */
    /* Optional: runs once per finished request, after its retries and just before its
     * callback, with the verb and the final HTTP status (0 when there was no response), so a
     * caller can count every request in one place. Not run for a request that ends
     * MUSTER_ECANCELED (cancelled, or the client closing): that is the caller's doing, not the
     * hub's answer. It must not free or close the client. */
    void (*on_done)(void *ud, enum kube_verb verb, int http);
    void *on_done_ud;
};

struct kube_client_stats {
    uint64_t started;     /* transfers handed to libcurl, retries included */
    uint64_t completed;   /* callbacks run */
    uint64_t retried;     /* 429 retries */
    uint64_t connections; /* new TCP connections opened (reuse keeps this low) */
    uint64_t http2;       /* responses that came over HTTP/2 */
    int inflight;
    int queued;
    int max_inflight_seen;
    uint64_t pollers; /* socket pollers made: one per connection's socket, kept across its
                         requests (issue 22), not one per request */
};

/* Creates a client on loop for cfg. cfg is borrowed (the token file is re-read through it) and
 * must outlive the client. opts may be NULL. Returns 0 and *out, or MUSTER_ENOMEM /
 * MUSTER_EINVAL. */
int kube_client_new(uv_loop_t *loop, struct kube_config *cfg, const struct kube_client_opts *opts,
                    struct kube_client **out);

/* Starts closing the client: new requests are refused with MUSTER_ECANCELED, every queued or
 * in-flight request's callback runs with MUSTER_ECANCELED (from the loop, later), the libuv
 * handles close, and then close_cb(ud) runs and the client is freed. close_cb may be NULL. Safe
 * from any callback. */
void kube_client_close(struct kube_client *c, void (*close_cb)(void *ud), void *ud);

/* Queues req. Returns 0, after which cb(err, resp, ud) runs exactly once from the loop; or a
 * negative MUSTER_* code (MUSTER_EINVAL, MUSTER_ENOMEM, MUSTER_ENOSPC for an over-long URL,
 * MUSTER_ECANCELED when closing), in which case cb never runs. */
int kube_request(struct kube_client *c, const struct kube_request *req, kube_response_cb cb,
                 void *ud);

/* kube_request that also hands back the call, for kube_call_cancel. *call is valid until its
 * callback has run. */
int kube_request_start(struct kube_client *c, const struct kube_request *req, kube_response_cb cb,
                       void *ud, struct kube_call **call);

/* Cancels a call whose callback has not run yet: the callback runs later, from the loop, with
 * MUSTER_ECANCELED. */
void kube_call_cancel(struct kube_call *call);

/* The Kubernetes verb of v as RBAC and metrics name it: "get", "list", "watch", "create",
 * "update", "delete", "patch" (both patch kinds). Static text. */
const char *kube_verb_name(enum kube_verb v);

/* Writes the REST path of a resource into buf: "/api/v1/..." for the core group ("" or NULL),
 * "/apis/<group>/<version>/..." otherwise; namespaced when ns is non-NULL, one object when name
 * is non-NULL. Returns 0, MUSTER_EINVAL (no buf, version or resource) or MUSTER_ENOSPC. */
int kube_path(char *buf, size_t cap, const char *group, const char *version, const char *ns,
              const char *resource, const char *name);

/* Copies the client's counters, and its current in-flight and queued counts, into *out. */
void kube_client_stats(const struct kube_client *c, struct kube_client_stats *out);

#endif
