/* The Kubernetes REST transport: libcurl multi + libuv (as curl's docs/examples/multi-uv.c),
 * a token bucket and an in-flight bound in front of it, Status bodies turned into errors. */
#include "cluster-adapters/kube/client.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/jsonparse.h"
#include "queue/mem.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct kube_sock {
    uv_poll_t poll; /* embedded; the struct is freed in the poll's close callback */
    curl_socket_t fd;
    struct kube_client *c;
    struct kube_sock *prev, *next;
    int closing;
    int idle; /* libcurl stopped watching it (CURL_POLL_REMOVE) but keeps the connection */
};

#define KUBE_EASY_POOL 128 /* idle easy handles kept for reuse */

struct kube_call {
    struct kube_call *prev, *next; /* in one of c's pending lists or c->active */
    uint64_t seq;                  /* order of queueing: calls start in this order */
    struct kube_client *c;
    CURL *easy;
    struct curl_slist *headers;
    enum kube_verb verb;
    char *url;
    char *body;
    size_t body_len;
    int (*on_data)(void *ud, const char *data, size_t len);
    int discard_body;
    int metadata_only;
    long watch_timeout_s;
    kube_response_cb cb;
    void *ud;
    char *buf; /* buffered response body */
    size_t len, cap;
    int http;
    long retry_after_s;
    int retries;
    int abort_err; /* set by the write callback when it stops the transfer */
    int canceled;
    int active;
    uint64_t not_before; /* loop time before which a retried call must not start */
    char errbuf[CURL_ERROR_SIZE];
};

struct call_list {
    struct kube_call *head, *tail;
    int n;
};

struct kube_client {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t curl_timer; /* CURLMOPT_TIMERFUNCTION */
    uv_timer_t pump_timer; /* starts queued calls when a token and a slot are free */
    struct kube_config *cfg;
    struct kube_client_opts opts;
    double tokens;
    uint64_t tokens_at;
    /* Queued calls, each list in FIFO order, split so the pump never walks calls that cannot
     * start: watches (not bound by max_inflight), other calls, and retries waiting for their
     * not_before. */
    struct call_list pend_watch, pend_call, delayed, active;
    uint64_t seq;
    int ncanceled; /* cancellations the pump has not delivered yet */
    int inflight; /* active calls that are not watches */
    int watching; /* active watches: each holds a connection of the cache while it streams */
    struct kube_sock *socks;
    /* The poller of each socket libcurl holds open, by fd, idle ones included: a kept
     * connection's next request polls its socket with the same handle, stopped in between,
     * instead of a new handle per request (uv_poll_init's two epoll_ctl and an ioctl, a close
     * callback; issue 22's CPU). Closed when libcurl closes the socket (on_curl_close), so no
     * handle outlives its fd and no fd number is ever polled by two handles. */
    struct kube_sock **byfd;
    int nbyfd;
    int open_handles; /* socket pollers still to see their close callback */
    int timers_open;
    int closing, tearing_down;
    /* Easy handles of finished calls, reset and kept: a new handle per request costs more CPU
     * than the request itself on a loopback hub (its buffers are allocated afresh each time). */
    CURL *idle[KUBE_EASY_POOL];
    int nidle;
    void (*close_cb)(void *ud);
    void *close_ud;
    struct kube_client_stats stats;
};

/* ---- lists ---- */

static void list_push(struct call_list *l, struct kube_call *k)
{
    k->next = NULL;
    k->prev = l->tail;
    if (l->tail)
        l->tail->next = k;
    else
        l->head = k;
    l->tail = k;
    l->n++;
}

/* Queues k behind every call queued before it. */
static void pending_push(struct kube_client *c, struct kube_call *k)
{
    k->seq = ++c->seq;
    if (k->not_before > uv_now(c->loop))
        list_push(&c->delayed, k);
    else
        list_push(k->verb == KUBE_WATCH ? &c->pend_watch : &c->pend_call, k);
}

static void list_unlink(struct call_list *l, struct kube_call *k)
{
    if (k->prev)
        k->prev->next = k->next;
    else
        l->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        l->tail = k->prev;
    k->prev = k->next = NULL;
    l->n--;
}

/* ---- error conversion: the one place libcurl and HTTP codes become MUSTER_* codes ---- */

static int kube__curl_err(CURLcode rc)
{
    switch (rc) {
    case CURLE_OK:
        return 0;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
        return MUSTER_ECONNECT;
    case CURLE_OPERATION_TIMEDOUT:
        return MUSTER_ETIMEDOUT;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_USE_SSL_FAILED:
        return MUSTER_ETLS;
    case CURLE_OUT_OF_MEMORY:
        return MUSTER_ENOMEM;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return MUSTER_EINVAL;
    default:
        return MUSTER_EIO;
    }
}

static int kube__curlm_err(CURLMcode rc)
{
    switch (rc) {
    case CURLM_OK:
        return 0;
    case CURLM_OUT_OF_MEMORY:
        return MUSTER_ENOMEM;
    case CURLM_BAD_HANDLE:
    case CURLM_BAD_EASY_HANDLE:
    case CURLM_ADDED_ALREADY:
    case CURLM_RECURSIVE_API_CALL:
        return MUSTER_EINVAL;
    default:
        return MUSTER_EIO;
    }
}

static int kube__http_err(int http, const char *reason)
{
    if (http >= 200 && http < 300)
        return 0;
    switch (http) {
    case 400:
    case 422:
        return MUSTER_EINVAL;
    case 401:
        return MUSTER_EUNAUTHORIZED;
    case 403:
        return MUSTER_EFORBIDDEN;
    case 404:
        return MUSTER_ENOENT;
    case 409:
        return strcmp(reason, "AlreadyExists") == 0 ? MUSTER_EEXIST : MUSTER_ECONFLICT;
    case 410:
        return MUSTER_EGONE;
    case 429:
        return MUSTER_ETOOMANY;
    default:
        return MUSTER_EHTTP;
    }
}

/* ---- helpers ---- */

static int path_append(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n >= cap)
        return MUSTER_ENOSPC;
    memcpy(buf + *len, s, n + 1);
    *len += n;
    return 0;
}

const char *kube_verb_name(enum kube_verb v)
{
    switch (v) {
    case KUBE_GET:
        return "get";
    case KUBE_LIST:
        return "list";
    case KUBE_WATCH:
        return "watch";
    case KUBE_CREATE:
        return "create";
    case KUBE_UPDATE:
        return "update";
    case KUBE_DELETE:
        return "delete";
    case KUBE_MERGE_PATCH:
    case KUBE_JSON_PATCH:
        return "patch";
    }
    return "other";
}

int kube_path(char *buf, size_t cap, const char *group, const char *version, const char *ns,
              const char *resource, const char *name)
{
    if (!buf || cap == 0 || !version || !resource)
        return MUSTER_EINVAL;
    size_t len = 0;
    buf[0] = 0;
    int core = !group || !*group;
    int rc = path_append(buf, cap, &len, core ? "/api/" : "/apis/");
    if (!rc && !core) {
        rc = path_append(buf, cap, &len, group);
        if (!rc)
            rc = path_append(buf, cap, &len, "/");
    }
    if (!rc)
        rc = path_append(buf, cap, &len, version);
    if (!rc && ns) {
        rc = path_append(buf, cap, &len, "/namespaces/");
        if (!rc)
            rc = path_append(buf, cap, &len, ns);
    }
    if (!rc)
        rc = path_append(buf, cap, &len, "/");
    if (!rc)
        rc = path_append(buf, cap, &len, resource);
    if (!rc && name) {
        rc = path_append(buf, cap, &len, "/");
        if (!rc)
            rc = path_append(buf, cap, &len, name);
    }
    return rc;
}

/* Appends "&key=value" (or "?key=value" first), percent-encoding value. */
static int query_add(char *buf, size_t cap, size_t *len, const char *key, const char *value)
{
    static const char hex[] = "0123456789ABCDEF";
    int rc = path_append(buf, cap, len, strchr(buf, '?') ? "&" : "?");
    if (!rc)
        rc = path_append(buf, cap, len, key);
    if (!rc)
        rc = path_append(buf, cap, len, "=");
    for (const unsigned char *p = (const unsigned char *)value; !rc && *p; p++) {
        if (*len + 4 >= cap)
            return MUSTER_ENOSPC;
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' || *p == '~';
        if (plain) {
            buf[(*len)++] = (char)*p;
        } else {
            buf[(*len)++] = '%';
            buf[(*len)++] = hex[*p >> 4];
            buf[(*len)++] = hex[*p & 15];
        }
        buf[*len] = 0;
    }
    return rc;
}

static int build_url(struct kube_client *c, const struct kube_request *req, char *url, size_t cap)
{
    size_t len = 0;
    char num[32];
    url[0] = 0;
    int rc = path_append(url, cap, &len, c->cfg->server);
    if (!rc)
        rc = path_append(url, cap, &len, req->path);
    if (!rc && req->subresource) {
        rc = path_append(url, cap, &len, "/");
        if (!rc)
            rc = path_append(url, cap, &len, req->subresource);
    }
    if (!rc && req->verb == KUBE_WATCH) {
        rc = query_add(url, cap, &len, "watch", "true");
        if (!rc)
            rc = query_add(url, cap, &len, "allowWatchBookmarks", "true");
        if (!rc && req->timeout_s > 0) {
            snprintf(num, sizeof(num), "%ld", req->timeout_s);
            rc = query_add(url, cap, &len, "timeoutSeconds", num);
        }
    }
    if (!rc && req->limit > 0) {
        snprintf(num, sizeof(num), "%ld", req->limit);
        rc = query_add(url, cap, &len, "limit", num);
    }
    if (!rc && req->continue_token && *req->continue_token)
        rc = query_add(url, cap, &len, "continue", req->continue_token);
    if (!rc && req->label_selector && *req->label_selector)
        rc = query_add(url, cap, &len, "labelSelector", req->label_selector);
    if (!rc && req->field_selector && *req->field_selector)
        rc = query_add(url, cap, &len, "fieldSelector", req->field_selector);
    if (!rc && req->resource_version && *req->resource_version)
        rc = query_add(url, cap, &len, "resourceVersion", req->resource_version);
    return rc;
}

/* Gives a finished call's easy handle back to the pool (it is off the multi). */
static void easy_put(struct kube_client *c, CURL *e)
{
    if (!e)
        return;
    if (c->tearing_down || c->nidle >= KUBE_EASY_POOL) {
        curl_easy_cleanup(e);
        return;
    }
    curl_easy_reset(e);
    c->idle[c->nidle++] = e;
}

static void call_free(struct kube_call *k)
{
    if (k->easy)
        curl_easy_cleanup(k->easy);
    curl_slist_free_all(k->headers);
    muster_free(k->url);
    muster_free(k->body);
    muster_free(k->buf);
    muster_free(k);
}

static void on_pump(uv_timer_t *t);

/* Runs the pump on the next loop turn, outside any libcurl callback. */
static void pump_kick(struct kube_client *c)
{
    if (!c->closing)
        uv_timer_start(&c->pump_timer, on_pump, 0, 0);
}

/* Copies a JSON string member of a Status into dst (truncated to cap). */
static void status_str(struct json_object *o, const char *key, char *dst, size_t cap)
{
    struct json_object *v;
    if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        snprintf(dst, cap, "%s", json_object_get_string(v));
}

/* Fills st from a non-2xx body: a Kubernetes Status, or failing that the start of the text. */
static void status_parse(struct kube_status *st, const char *body, size_t len)
{
    if (len == 0) {
        snprintf(st->message, sizeof(st->message), "HTTP %d with an empty body", st->http);
        return;
    }
    struct json_tokener *tok = json_tokener_new_ex(KUBE_MAX_JSON_DEPTH);
    struct json_object *o = tok ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
    if (tok)
        json_tokener_free(tok);
    if (o && json_object_is_type(o, json_type_object)) {
        status_str(o, "reason", st->reason, sizeof(st->reason));
        status_str(o, "message", st->message, sizeof(st->message));
    } else {
        /* Not a Status (a proxy's HTML page, say): keep a printable prefix. */
        size_t n = len < sizeof(st->message) - 1 ? len : sizeof(st->message) - 1;
        for (size_t i = 0; i < n; i++)
            st->message[i] = (body[i] >= 32 && body[i] < 127) ? body[i] : ' ';
        st->message[n] = 0;
    }
    json_object_put(o);
}

/* ---- curl callbacks ---- */

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct kube_call *k = ud;
    size_t n = size * nmemb;
    if (!k->http) {
        long code = 0;
        curl_easy_getinfo(k->easy, CURLINFO_RESPONSE_CODE, &code);
        k->http = (int)code;
    }
    if (k->canceled) {
        k->abort_err = MUSTER_ECANCELED;
        return 0;
    }
    if (k->discard_body && k->http >= 200 && k->http < 300)
        return n;
    if (k->on_data && k->http >= 200 && k->http < 300) {
        int rc = k->on_data(k->ud, ptr, n);
        if (rc < 0) {
            k->abort_err = rc;
            return 0;
        }
        return n;
    }
    if (k->len + n > k->c->opts.max_response) {
        k->abort_err = MUSTER_ELIMIT;
        return 0;
    }
    if (k->len + n + 1 > k->cap) {
        size_t cap = k->cap ? k->cap : 4096;
        while (cap < k->len + n + 1)
            cap *= 2;
        char *nb = muster_realloc(k->buf, cap);
        if (!nb) {
            k->abort_err = MUSTER_ENOMEM;
            return 0;
        }
        k->buf = nb;
        k->cap = cap;
    }
    memcpy(k->buf + k->len, ptr, n);
    k->len += n;
    k->buf[k->len] = 0;
    return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct kube_call *k = ud;
    size_t n = size * nmemb;
    if (n > KUBE_MAX_HEADER_BYTES) {
        k->abort_err = MUSTER_ELIMIT;
        return 0;
    }
    if (n >= 5 && memcmp(ptr, "HTTP/", 5) == 0) {
        /* A new response (after a 100 Continue, say) starts clean. */
        k->retry_after_s = 0;
        return n;
    }
    static const char ra[] = "retry-after:";
    if (n > sizeof(ra) - 1 && strncasecmp(ptr, ra, sizeof(ra) - 1) == 0) {
        char val[32];
        size_t vl = n - (sizeof(ra) - 1);
        if (vl >= sizeof(val))
            vl = sizeof(val) - 1;
        memcpy(val, ptr + sizeof(ra) - 1, vl);
        val[vl] = 0;
        /* Only the delta-seconds form; an HTTP date falls back to 1 s. */
        char *end;
        long secs = strtol(val, &end, 10);
        while (*end == ' ' || *end == '\r' || *end == '\n')
            end++;
        if (*end || end == val || secs < 0)
            secs = 1;
        k->retry_after_s = secs > KUBE_MAX_RETRY_AFTER_S ? KUBE_MAX_RETRY_AFTER_S : secs;
    }
    return n;
}

static void check_multi_info(struct kube_client *c);

static void on_poll(uv_poll_t *h, int status, int events)
{
    struct kube_sock *s = h->data;
    struct kube_client *c = s->c;
    int flags = 0;
    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    int running;
    curl_multi_socket_action(c->multi, s->fd, flags, &running);
    check_multi_info(c);
}

static void on_curl_timeout(uv_timer_t *t)
{
    struct kube_client *c = t->data;
    int running;
    curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_multi_info(c);
}

static int on_curl_timer(CURLM *m, long timeout_ms, void *ud)
{
    struct kube_client *c = ud;
    if (c->tearing_down || uv_is_closing((uv_handle_t *)&c->curl_timer))
        return 0;
    if (timeout_ms < 0)
        uv_timer_stop(&c->curl_timer);
    else
        uv_timer_start(&c->curl_timer, on_curl_timeout, (uint64_t)timeout_ms, 0);
    return 0;
}

static void client_maybe_free(struct kube_client *c);

static void on_sock_closed(uv_handle_t *h)
{
    struct kube_sock *s = h->data;
    struct kube_client *c = s->c;
    muster_free(s);
    c->open_handles--;
    client_maybe_free(c);
}

static void sock_close(struct kube_sock *s)
{
    struct kube_client *c = s->c;
    if (s->closing)
        return;
    s->closing = 1;
    if (s->fd >= 0 && s->fd < c->nbyfd && c->byfd[s->fd] == s)
        c->byfd[s->fd] = NULL;
    if (s->prev)
        s->prev->next = s->next;
    else
        c->socks = s->next;
    if (s->next)
        s->next->prev = s->prev;
    uv_poll_stop(&s->poll);
    uv_close((uv_handle_t *)&s->poll, on_sock_closed);
}

/* A connection's socket (TCP), which libcurl closes through on_curl_close; not, say, the
 * threaded resolver's socketpair, which it closes itself: only the former are kept idle. */
static int tcp_socket(curl_socket_t fd)
{
    int domain = 0;
    socklen_t len = sizeof domain;
    return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
           (domain == AF_INET || domain == AF_INET6);
}

static int on_curl_socket(CURL *easy, curl_socket_t fd, int action, void *ud, void *sockp)
{
    struct kube_client *c = ud;
    struct kube_sock *s = sockp;
    if (c->tearing_down)
        return 0;
    if (action == CURL_POLL_REMOVE) {
        if (s) {
            curl_multi_assign(c->multi, fd, NULL);
            if (fd >= 0 && fd < c->nbyfd && c->byfd[fd] == s) {
                uv_poll_stop(&s->poll); /* kept for the connection's next request */
                s->idle = 1;
            } else {
                sock_close(s);
            }
        }
        return 0;
    }
    if (!s && fd >= 0 && fd < c->nbyfd && c->byfd[fd] && c->byfd[fd]->idle) {
        s = c->byfd[fd];
        s->idle = 0;
        curl_multi_assign(c->multi, fd, s);
    }
    if (!s) {
        if (fd >= c->nbyfd && fd >= 0 && fd < 1 << 20) {
            int n = c->nbyfd ? c->nbyfd : 64;
            while (n <= fd)
                n *= 2;
            struct kube_sock **t = muster_realloc(c->byfd, (size_t)n * sizeof(*t));
            if (t) { /* else polled as before, without reuse */
                memset(t + c->nbyfd, 0, (size_t)(n - c->nbyfd) * sizeof(*t));
                c->byfd = t;
                c->nbyfd = n;
            }
        }
        s = muster_calloc(1, sizeof(*s));
        if (!s)
            return -1;
        if (uv_poll_init_socket(c->loop, &s->poll, fd) != 0) {
            muster_free(s);
            return -1;
        }
        s->fd = fd;
        s->c = c;
        s->poll.data = s;
        s->next = c->socks;
        if (c->socks)
            c->socks->prev = s;
        c->socks = s;
        c->open_handles++;
        c->stats.pollers++;
        curl_multi_assign(c->multi, fd, s);
        if (fd >= 0 && fd < c->nbyfd && !c->byfd[fd] && tcp_socket(fd))
            c->byfd[fd] = s;
    }
    int events = 0;
    if (action != CURL_POLL_IN)
        events |= UV_WRITABLE;
    if (action != CURL_POLL_OUT)
        events |= UV_READABLE;
    uv_poll_start(&s->poll, events, on_poll);
    return 0;
}

/* libcurl closes a socket (CURLOPT_CLOSESOCKETFUNCTION, kept by each connection): its
 * poller goes first, while the fd is still this socket's. */
static int on_curl_close(void *ud, curl_socket_t fd)
{
    struct kube_client *c = ud;
    if (fd >= 0 && fd < c->nbyfd && c->byfd[fd])
        sock_close(c->byfd[fd]);
    return close(fd);
}

/* ---- completion ---- */

static void call_finish(struct kube_client *c, struct kube_call *k, int err,
                        struct kube_response *resp)
{
    c->stats.completed++;
    if (c->opts.on_done && err != MUSTER_ECANCELED)
        c->opts.on_done(c->opts.on_done_ud, k->verb, resp->http);
    k->cb(err, resp, k->ud);
    call_free(k);
}

static void call_finish_err(struct kube_client *c, struct kube_call *k, int err)
{
    struct kube_response resp;
    memset(&resp, 0, sizeof(resp));
    snprintf(resp.status.message, sizeof(resp.status.message), "%s", kube_strerror(err));
    call_finish(c, k, err, &resp);
}

/* Takes a finished transfer off the multi and either schedules its 429 retry or completes it. */
/* libcurl counts the connections in use in its cache too, so the cache must hold every open
 * watch (one connection each over HTTP/1.1) besides the max_inflight calls: a cache sized for the
 * calls alone is full once a few dozen informers stream, and then each finished call's
 * connection is closed and the next call connects again. */
static void conn_cache_fit(struct kube_client *c)
{
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS,
                      (long)c->opts.max_inflight + c->watching + 16);
}

static void call_done(struct kube_client *c, struct kube_call *k, CURLcode res)
{
    curl_multi_remove_handle(c->multi, k->easy);
    list_unlink(&c->active, k);
    k->active = 0;
    if (k->verb != KUBE_WATCH)
        c->inflight--;
    else
        c->watching--;
    long conns = 0;
    curl_easy_getinfo(k->easy, CURLINFO_NUM_CONNECTS, &conns);
    c->stats.connections += (uint64_t)conns;
    long code = 0;
    curl_easy_getinfo(k->easy, CURLINFO_RESPONSE_CODE, &code);
    k->http = (int)code;

    long version = 0;
    curl_easy_getinfo(k->easy, CURLINFO_HTTP_VERSION, &version);
    easy_put(c, k->easy);
    k->easy = NULL;

    struct kube_response resp;
    memset(&resp, 0, sizeof(resp));
    resp.http = k->http;
    resp.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : version ? 1 : 0;
    if (resp.http_version == 2)
        c->stats.http2++;
    resp.status.http = k->http;
    resp.status.retry_after_s = k->retry_after_s;
    int err;
    if (k->canceled || c->closing) {
        /* Once the client is closing every outstanding callback reports the close, whatever
         * raced it on the wire, so callers see one outcome. */
        err = MUSTER_ECANCELED;
    } else if (k->abort_err) {
        err = k->abort_err;
        snprintf(resp.status.message, sizeof(resp.status.message), "%s%s",
                 err == MUSTER_ELIMIT ? "response over its size cap: " : "", kube_strerror(err));
    } else if (res != CURLE_OK) {
        err = kube__curl_err(res);
        snprintf(resp.status.message, sizeof(resp.status.message), "%s",
                 k->errbuf[0] ? k->errbuf : curl_easy_strerror(res));
    } else if (k->http >= 200 && k->http < 300) {
        err = 0;
        if (!k->on_data && k->len > 0) {
            char why[96];
            err = kube_json_parse(k->buf, k->len, KUBE_MAX_JSON_DEPTH, &resp.body, why,
                                  sizeof why);
            if (err == MUSTER_EPROTO)
                snprintf(resp.status.message, sizeof(resp.status.message),
                         "response body is not JSON: %s", why);
        }
    } else {
        status_parse(&resp.status, k->buf ? k->buf : "", k->len);
        err = kube__http_err(k->http, resp.status.reason);
    }

    int retry_status = k->http == 429 || (k->http == 503 && k->retry_after_s > 0);
    if (!k->canceled && !k->abort_err && res == CURLE_OK && retry_status &&
        k->retries < c->opts.max_retries && !c->closing) {
        /* Honour Retry-After (at least 1 s when absent) and try again, as client-go does. */
        long wait_s = k->retry_after_s > 0 ? k->retry_after_s : 1;
        curl_slist_free_all(k->headers);
        k->headers = NULL;
        k->len = 0;
        k->http = 0;
        k->retry_after_s = 0;
        k->retries++;
        k->not_before = uv_now(c->loop) + (uint64_t)wait_s * 1000;
        c->stats.retried++;
        pending_push(c, k);
        pump_kick(c);
        return;
    }
    call_finish(c, k, err, &resp);
    json_object_put(resp.body);
    pump_kick(c);
}

static void check_multi_info(struct kube_client *c)
{
    CURLMsg *msg;
    int left;
    /* The loop re-reads after each callback: a callback may queue or cancel calls. */
    for (;;) {
        msg = curl_multi_info_read(c->multi, &left);
        if (!msg)
            break;
        if (msg->msg != CURLMSG_DONE)
            continue;
        struct kube_call *k = NULL;
        CURLcode res = msg->data.result;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&k);
        call_done(c, k, res);
    }
}

/* ---- starting calls ---- */

static int call_start(struct kube_client *c, struct kube_call *k)
{
    static const char *const methods[] = {
        [KUBE_GET] = "GET",           [KUBE_LIST] = "GET",         [KUBE_WATCH] = "GET",
        [KUBE_CREATE] = "POST",       [KUBE_UPDATE] = "PUT",       [KUBE_DELETE] = "DELETE",
        [KUBE_MERGE_PATCH] = "PATCH", [KUBE_JSON_PATCH] = "PATCH",
    };
    CURL *e = c->nidle ? c->idle[--c->nidle] : curl_easy_init();
    if (!e)
        return MUSTER_ENOMEM;
    k->easy = e;
    k->errbuf[0] = 0;
    struct curl_slist *h = NULL, *t;
    const char *ctype = k->verb == KUBE_MERGE_PATCH  ? "Content-Type: application/merge-patch+json"
                        : k->verb == KUBE_JSON_PATCH ? "Content-Type: application/json-patch+json"
                                                     : "Content-Type: application/json";
    char auth[64 + KUBE_TOKEN_MAX_BYTES];
    const char *token = kube_config_token(c->cfg, uv_now(c->loop));
    const char *accept =
        !k->metadata_only ? "Accept: application/json"
        : k->verb == KUBE_LIST
            ? "Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
              "application/json"
            : "Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
              "application/json";
    const char *lines[5] = {accept, "Expect:", k->body ? ctype : NULL, NULL};
    /* The token's copy on the stack is wiped after use, only as far as it was written: the
     * whole buffer is 64 KiB, and wiping it all cost every request more than its headers. */
    size_t auth_len = 0;
    if (token && *token) {
        int n = snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
        auth_len = n < 0                          ? sizeof(auth)
                   : (size_t)n + 1 > sizeof(auth) ? sizeof(auth)
                                                  : (size_t)n + 1;
        lines[3] = auth;
    }
    for (int i = 0; i < 4; i++) {
        if (!lines[i])
            continue;
        t = curl_slist_append(h, lines[i]);
        if (!t) {
            curl_slist_free_all(h);
            memset(auth, 0, auth_len);
            return MUSTER_ENOMEM;
        }
        h = t;
    }
    memset(auth, 0, auth_len);
    k->headers = h;

    curl_easy_setopt(e, CURLOPT_URL, k->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)k);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, k->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, on_curl_close);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, c);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, k);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, k);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    /* Wait for an HTTP/2 connection being set up rather than open a second one. */
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, c->opts.connect_timeout_ms);
    if (k->verb != KUBE_WATCH)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, c->opts.timeout_ms);
    else if (k->watch_timeout_s > 0)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                         (k->watch_timeout_s + KUBE_WATCH_TIMEOUT_SLACK_S) * 1000L);
    if (c->opts.user_agent)
        curl_easy_setopt(e, CURLOPT_USERAGENT, c->opts.user_agent);
    if (k->verb != KUBE_GET && k->verb != KUBE_LIST && k->verb != KUBE_WATCH)
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, methods[k->verb]);
    if (k->body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, k->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)k->body_len);
    }
    struct kube_config *cfg = c->cfg;
    if (cfg->ca) {
        struct curl_blob b = {cfg->ca, cfg->ca_len, CURL_BLOB_NOCOPY};
        curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &b);
    }
    if (cfg->cert && cfg->key) {
        struct curl_blob cb = {cfg->cert, cfg->cert_len, CURL_BLOB_NOCOPY};
        struct curl_blob kb = {cfg->key, cfg->key_len, CURL_BLOB_NOCOPY};
        curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cb);
        curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &kb);
        curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (cfg->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    int rc = kube__curlm_err(curl_multi_add_handle(c->multi, e));
    if (rc < 0)
        return rc;
    k->active = 1;
    list_push(&c->active, k);
    if (k->verb != KUBE_WATCH) {
        c->inflight++;
        if (c->inflight > c->stats.max_inflight_seen)
            c->stats.max_inflight_seen = c->inflight;
    } else {
        c->watching++;
        conn_cache_fit(c);
    }
    c->stats.started++;
    return 0;
}

/* The call to start next: the earliest queued that may start now (a watch, a call while
 * fewer than max_inflight are on the wire, or a retry whose time has come), with its list.
 * Lowers *wake to the earliest not_before still ahead. */
static struct kube_call *pending_next(struct kube_client *c, uint64_t now, uint64_t *wake,
                                      struct call_list **from)
{
    struct kube_call *best = c->pend_watch.head;
    *from = &c->pend_watch;
    struct kube_call *k = c->pend_call.head;
    if (k && c->inflight < c->opts.max_inflight && (!best || k->seq < best->seq)) {
        best = k;
        *from = &c->pend_call;
    }
    /* retries wait here after a 429: few, and only while the hub pushes back */
    for (k = c->delayed.head; k; k = k->next) {
        if (k->not_before > now) {
            if (k->not_before < *wake)
                *wake = k->not_before;
            continue;
        }
        if (k->verb != KUBE_WATCH && c->inflight >= c->opts.max_inflight)
            continue; /* a completion kicks the pump again */
        if (!best || k->seq < best->seq) {
            best = k;
            *from = &c->delayed;
        }
    }
    return best;
}

/* Delivers cancellations, then starts queued calls in the order they were queued while the
 * token bucket and the in-flight bound allow, and re-arms itself for the earliest moment
 * another call could start. Each call started costs O(1) (plus the retries waiting). */
static void on_pump(uv_timer_t *t)
{
    struct kube_client *c = t->data;
    struct kube_call *k, *next;
    if (c->ncanceled) {
        c->ncanceled = 0;
        for (k = c->active.head; k; k = next) {
            next = k->next;
            if (!k->canceled)
                continue;
            curl_multi_remove_handle(c->multi, k->easy);
            list_unlink(&c->active, k);
            if (k->verb != KUBE_WATCH)
                c->inflight--;
            else
                c->watching--;
            call_finish_err(c, k, MUSTER_ECANCELED);
        }
        struct call_list *queues[] = {&c->pend_watch, &c->pend_call, &c->delayed};
        for (int q = 0; q < 3; q++) {
            for (k = queues[q]->head; k; k = next) {
                next = k->next;
                if (!k->canceled)
                    continue;
                list_unlink(queues[q], k);
                call_finish_err(c, k, MUSTER_ECANCELED);
            }
        }
    }
    if (c->closing)
        return;

    uint64_t now = uv_now(c->loop);
    double qps = c->opts.qps;
    if (qps > 0) {
        c->tokens += (double)(now - c->tokens_at) * qps / 1000.0;
        if (c->tokens > c->opts.burst)
            c->tokens = c->opts.burst;
    }
    c->tokens_at = now;
    uint64_t wake = UINT64_MAX;
    struct call_list *from;
    while ((k = pending_next(c, now, &wake, &from))) {
        if (qps > 0 && c->tokens < 1.0) {
            uint64_t due = now + (uint64_t)((1.0 - c->tokens) * 1000.0 / qps) + 1;
            if (due < wake)
                wake = due;
            break;
        }
        list_unlink(from, k);
        int rc = call_start(c, k);
        if (rc < 0) {
            call_finish_err(c, k, rc);
            continue;
        }
        if (qps > 0)
            c->tokens -= 1.0;
    }
    if (wake != UINT64_MAX && !c->closing)
        uv_timer_start(&c->pump_timer, on_pump, wake - now, 0);
}

int kube_request_start(struct kube_client *c, const struct kube_request *req, kube_response_cb cb,
                       void *ud, struct kube_call **call)
{
    if (call)
        *call = NULL;
    if (!c || !req || !req->path || req->path[0] != '/' || !cb ||
        (unsigned)req->verb > KUBE_JSON_PATCH)
        return MUSTER_EINVAL;
    if (c->closing)
        return MUSTER_ECANCELED;
    int needs_body = req->verb == KUBE_CREATE || req->verb == KUBE_UPDATE ||
                     req->verb == KUBE_MERGE_PATCH || req->verb == KUBE_JSON_PATCH;
    if (needs_body && !req->body)
        return MUSTER_EINVAL;
    char url[KUBE_MAX_URL_BYTES];
    int rc = build_url(c, req, url, sizeof(url));
    if (rc < 0)
        return rc;
    struct kube_call *k = muster_calloc(1, sizeof(*k));
    if (!k)
        return MUSTER_ENOMEM;
    k->c = c;
    k->verb = req->verb;
    k->cb = cb;
    k->ud = ud;
    k->on_data = req->on_data;
    k->discard_body = req->discard_body;
    k->metadata_only = req->metadata_only &&
                       (req->verb == KUBE_GET || req->verb == KUBE_LIST || req->verb == KUBE_WATCH);
    k->watch_timeout_s = req->verb == KUBE_WATCH ? req->timeout_s : 0;
    k->url = muster_strdup(url);
    if (!k->url)
        goto nomem;
    if (req->body) {
        k->body_len = req->body_len ? req->body_len : strlen(req->body);
        k->body = muster_strndup(req->body, k->body_len);
        if (!k->body)
            goto nomem;
    }
    pending_push(c, k);
    pump_kick(c);
    if (call)
        *call = k;
    return 0;
nomem:
    call_free(k);
    return MUSTER_ENOMEM;
}

int kube_request(struct kube_client *c, const struct kube_request *req, kube_response_cb cb,
                 void *ud)
{
    return kube_request_start(c, req, cb, ud, NULL);
}

void kube_call_cancel(struct kube_call *k)
{
    if (!k || k->canceled)
        return;
    k->canceled = 1;
    k->c->ncanceled++;
    /* Removal from the multi waits for the pump: this may run inside a libcurl callback. When
     * the client is closing its teardown cancels the call instead. */
    pump_kick(k->c);
}

/* ---- life cycle ---- */

int kube_client_new(uv_loop_t *loop, struct kube_config *cfg, const struct kube_client_opts *opts,
                    struct kube_client **out)
{
    *out = NULL;
    if (!loop || !cfg || !cfg->server)
        return MUSTER_EINVAL;
    struct kube_client *c = muster_calloc(1, sizeof(*c));
    if (!c)
        return MUSTER_ENOMEM;
    if (opts)
        c->opts = *opts;
    if (c->opts.qps == 0)
        c->opts.qps = KUBE_DEFAULT_QPS;
    if (c->opts.burst <= 0)
        c->opts.burst = KUBE_DEFAULT_BURST;
    if (c->opts.max_inflight <= 0)
        c->opts.max_inflight = KUBE_DEFAULT_MAX_INFLIGHT;
    if (c->opts.max_response == 0)
        c->opts.max_response = KUBE_MAX_RESPONSE_BYTES;
    if (c->opts.timeout_ms <= 0)
        c->opts.timeout_ms = KUBE_DEFAULT_TIMEOUT_MS;
    if (c->opts.connect_timeout_ms <= 0)
        c->opts.connect_timeout_ms = KUBE_DEFAULT_CONNECT_TIMEOUT_MS;
    if (c->opts.max_retries == 0)
        c->opts.max_retries = KUBE_MAX_RETRIES;
    else if (c->opts.max_retries < 0)
        c->opts.max_retries = 0;
    if (!c->opts.user_agent)
        c->opts.user_agent = "muster/kube";
    c->loop = loop;
    c->cfg = cfg;
    c->tokens = c->opts.burst;
    c->tokens_at = uv_now(loop);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        muster_free(c);
        return MUSTER_ENOMEM;
    }
    c->multi = curl_multi_init();
    if (!c->multi) {
        curl_global_cleanup();
        muster_free(c);
        return MUSTER_ENOMEM;
    }
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    /* libcurl's default cache size follows the number of transfers added at the moment, so it
     * shrinks between bursts and closes connections we are about to need again. */
    conn_cache_fit(c);
    uv_timer_init(loop, &c->curl_timer);
    uv_timer_init(loop, &c->pump_timer);
    c->curl_timer.data = c;
    c->pump_timer.data = c;
    c->timers_open = 2;
    *out = c;
    return 0;
}

static void client_maybe_free(struct kube_client *c)
{
    if (c->open_handles > 0 || c->timers_open > 0 || !c->tearing_down)
        return;
    void (*cb)(void *) = c->close_cb;
    void *ud = c->close_ud;
    muster_free(c->byfd);
    muster_free(c);
    curl_global_cleanup();
    if (cb)
        cb(ud);
}

/* Runs once both timers have closed, from the loop and never inside libcurl: cancels what is
 * left, closes the socket pollers and the multi handle. */
static void client_teardown(struct kube_client *c)
{
    while (c->active.head) {
        struct kube_call *k = c->active.head;
        curl_multi_remove_handle(c->multi, k->easy);
        list_unlink(&c->active, k);
        call_finish_err(c, k, MUSTER_ECANCELED);
    }
    struct call_list *queues[] = {&c->pend_watch, &c->pend_call, &c->delayed};
    for (int q = 0; q < 3; q++) {
        while (queues[q]->head) {
            struct kube_call *k = queues[q]->head;
            list_unlink(queues[q], k);
            call_finish_err(c, k, MUSTER_ECANCELED);
        }
    }
    c->tearing_down = 1;
    while (c->nidle > 0)
        curl_easy_cleanup(c->idle[--c->nidle]);
    while (c->socks)
        sock_close(c->socks);
    curl_multi_cleanup(c->multi);
    c->multi = NULL;
    client_maybe_free(c);
}

static void on_timer_closed(uv_handle_t *h)
{
    struct kube_client *c = h->data;
    if (--c->timers_open == 0)
        client_teardown(c);
}

void kube_client_close(struct kube_client *c, void (*close_cb)(void *ud), void *ud)
{
    if (!c || c->closing)
        return;
    c->closing = 1;
    c->close_cb = close_cb;
    c->close_ud = ud;
    uv_close((uv_handle_t *)&c->curl_timer, on_timer_closed);
    uv_close((uv_handle_t *)&c->pump_timer, on_timer_closed);
}

void kube_client_stats(const struct kube_client *c, struct kube_client_stats *out)
{
    *out = c->stats;
    out->inflight = c->inflight;
    out->queued = c->pend_watch.n + c->pend_call.n + c->delayed.n;
}
