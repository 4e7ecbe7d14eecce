/* The admin API server (see api.h): starting (options checked, tokens, TLS, the queue rows,
 * h2o on a libuv listener), accepting connections, and the shutdown: drain, deadline, close.
 * What it serves is in the other files of dispatcher/api/ (router.c has the routes). */
#include "dispatcher/api/api_int.h"

#include "cluster-adapters/kube/httpserver.h"
#include "dispatcher/errors.h"
#include "queue/mem.h"

#include <h2o/http2.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

int64_t api__now_ms(const struct api_server *s)
{
    if (s->app.now_ms)
        return s->app.now_ms();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void server_free_early(struct api_server *s);

static void maybe_finish(struct api_server *s);

static void on_deadline_closed(uv_handle_t *h)
{
    struct api_server *s = h->data;
    s->deadline_live = 0;
    maybe_finish(s);
}

static void maybe_finish(struct api_server *s)
{
    if (!s->closing || !s->listener_closed || s->nconns || s->heartbeat_live)
        return;
    if (s->deadline_live) {
        if (!uv_is_closing((uv_handle_t *)&s->deadline))
            uv_close((uv_handle_t *)&s->deadline, on_deadline_closed);
        return;
    }
    /* h2o's graceful shutdown re-sends GOAWAY after a second from an entry of its one-second
     * timeout; with every connection gone sooner the entry is still linked, and disposing a
     * timeout with a linked entry asserts. */
    if (h2o_timeout_is_linked(&s->ctx.http2._graceful_shutdown_timeout))
        h2o_timeout_unlink(&s->ctx.http2._graceful_shutdown_timeout);
    /* h2o's own timers and async handle close here; they free themselves and never point back
     * at s, so s can go right after. */
    h2o_context_dispose(&s->ctx);
    h2o_config_dispose(&s->config);
    void (*cb)(void *) = s->close_cb;
    void *ud = s->close_ud;
    server_free_early(s);
    if (cb)
        cb(ud);
}

static void conn_link(struct api_server *s, struct api_conn *conn)
{
    conn->prev = NULL;
    conn->next = s->conns;
    if (s->conns)
        s->conns->prev = conn;
    s->conns = conn;
}

static void on_conn_closed(uv_handle_t *h)
{
    struct api_conn *conn = (struct api_conn *)h;
    struct api_server *s = conn->srv;
    if (conn->prev)
        conn->prev->next = conn->next;
    else
        s->conns = conn->next;
    if (conn->next)
        conn->next->prev = conn->prev;
    muster_free(conn);
    s->nconns--;
    maybe_finish(s);
}

static void on_reserve_closed(uv_handle_t *h)
{
    struct api_server *s = ((struct api_conn *)h)->srv;
    s->reserve_busy = 0;
    s->nconns--;
    maybe_finish(s);
}

static void on_accept(uv_stream_t *l, int status)
{
    struct api_server *s = l->data;
    if (status != 0 || s->closing)
        return;
    struct api_conn *conn = muster_calloc(1, sizeof(*conn));
    if (!conn) {
        /* libuv stops watching the listener until this connection is accepted, so it must be
         * taken even now: into the reserve, and dropped at once. */
        if (s->reserve_busy || uv_tcp_init(l->loop, &s->reserve.tcp))
            return;
        s->reserve_busy = 1;
        s->nconns++;
        uv_accept(l, (uv_stream_t *)&s->reserve.tcp);
        uv_close((uv_handle_t *)&s->reserve.tcp, on_reserve_closed);
        return;
    }
    conn->srv = s;
    if (uv_tcp_init(l->loop, &conn->tcp)) {
        muster_free(conn);
        return;
    }
    s->nconns++;
    conn_link(s, conn);
    /* Past the drain deadline the listener may still be open (musterd closes the API after the
     * dispatcher has stopped): a new connection would not be cut again, so it is closed now. */
    if (uv_accept(l, (uv_stream_t *)&conn->tcp) || s->cut) {
        uv_close((uv_handle_t *)&conn->tcp, on_conn_closed);
        return;
    }
    h2o_socket_t *sock = h2o_uv_socket_create((uv_stream_t *)&conn->tcp, on_conn_closed);
    if (!sock) {
        uv_close((uv_handle_t *)&conn->tcp, on_conn_closed);
        return;
    }
    h2o_accept(&s->accept, sock);
}

static int is_loopback(const struct sockaddr_storage *a)
{
    if (a->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
    if (a->ss_family == AF_INET6) {
        const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(x);
    }
    return 0;
}

static void on_listener_closed(uv_handle_t *h);

/* "what path: OpenSSL's reason"; never a key's bytes (OpenSSL's messages do not carry them). */
/* The server's SSL_CTX from opt: TLS 1.2 or later, ALPN offering h2 then http/1.1, and the
 * client CA when given. Client certificates are verified when presented, not required: token
 * clients, probes and Prometheus keep working without one (kube-apiserver does the same). */
static int tls_setup(struct api_server *s, const struct api_options *opt, char *err, size_t errcap)
{
    struct kube_tls_server_opts o = {
        opt->tls_cert_file,     opt->tls_private_key_file,     opt->client_ca_file,    0,
        "api: --tls-cert-file", "api: --tls-private-key-file", "api: --client-ca-file"};
    int rc = kube_tls_server_ctx(&o, &s->ssl_ctx, err, errcap);
    if (!rc && opt->client_ca_file)
        s->client_certs = 1;
    return rc;
}

/* Everything api_server_start allocated before h2o was set up. */
static void server_free_early(struct api_server *s)
{
    api__rows_free(s);
    api__tokens_free(s->tokens, s->ntokens);
    SSL_CTX_free(s->ssl_ctx);
    muster_free(s);
}

int api_server_start(uv_loop_t *loop, const struct api_options *opt, struct api_ctx *ctx,
                     struct api_server **out, char *err, size_t errcap)
{
    char scratch[1];
    if (!err || !errcap) {
        err = scratch;
        errcap = sizeof(scratch);
    }
    err[0] = '\0';
    *out = NULL;
    if (!loop || !opt || !ctx || !ctx->store || !ctx->tree) {
        snprintf(err, errcap, "api: missing loop, options, store or tree");
        return MUSTER_EINVAL;
    }
    const char *host = opt->host ? opt->host : "127.0.0.1";
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof(addr));
    if (opt->port < 0 || opt->port > 65535 ||
        (uv_ip4_addr(host, opt->port, (struct sockaddr_in *)&addr) != 0 &&
         uv_ip6_addr(host, opt->port, (struct sockaddr_in6 *)&addr) != 0)) {
        snprintf(err, errcap,
                 "api: listen address %.64s port %d: not a numeric IP address and "
                 "port",
                 host, opt->port);
        return MUSTER_ECONFIG;
    }
    if (!opt->tls_cert_file != !opt->tls_private_key_file) {
        snprintf(err, errcap,
                 "api: --tls-cert-file and --tls-private-key-file go together; %s "
                 "is missing",
                 opt->tls_cert_file ? "--tls-private-key-file" : "--tls-cert-file");
        return MUSTER_ECONFIG;
    }
    if (opt->client_ca_file && (!opt->tls_cert_file || !opt->token_file)) {
        snprintf(err, errcap,
                 "api: --client-ca-file needs %s: client certificates are checked "
                 "during the TLS handshake and their users' roles come from the token file",
                 !opt->tls_cert_file ? "--tls-cert-file" : "--token-auth-file");
        return MUSTER_ECONFIG;
    }
    if (!opt->token_file && !is_loopback(&addr)) {
        snprintf(err, errcap,
                 "api: refusing to listen on %.64s without --token-auth-file: "
                 "without tokens the admin API is served on loopback only",
                 host);
        return MUSTER_ECONFIG;
    }
    /* A write to a client that went away (an event stream's most of all) raises SIGPIPE, whose
     * default ends the process; libuv writes with writev, which cannot ask for MSG_NOSIGNAL.
     * h2o's own server ignores it in main(); a host that chose a handler keeps it. */
    struct sigaction old_pipe;
    if (sigaction(SIGPIPE, NULL, &old_pipe) == 0 && old_pipe.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
    struct api_server *s = muster_calloc(1, sizeof(*s));
    if (!s)
        return MUSTER_ENOMEM;
    s->app = *ctx;
    s->reserve.srv = s;
    s->rate_per_s = opt->rate_per_s ? opt->rate_per_s : API_RATE_PER_S_DEFAULT;
    s->rate_burst = opt->rate_burst ? opt->rate_burst : API_RATE_BURST_DEFAULT;
    s->webhook_insecure = opt->webhook_insecure;
    int rc = 0;
    if (opt->token_file)
        rc = api__tokens_load(opt->token_file, &s->tokens, &s->ntokens, err, errcap);
    if (!rc) {
        rc = api__rows_load(s);
        if (rc && rc != MUSTER_ENOMEM) {
            snprintf(err, errcap, "api: reading the queues: %s", store_errmsg(ctx->store));
            rc = MUSTER_ESTORE;
        }
    }
    if (!rc && opt->tls_cert_file)
        rc = tls_setup(s, opt, err, errcap);
    if (rc) {
        server_free_early(s);
        if (rc == MUSTER_ENOMEM && !err[0])
            snprintf(err, errcap, "api: out of memory");
        return rc;
    }

    h2o_config_init(&s->config);
    /* h2o refuses bodies above its own limit before we see them: over HTTP/1 with a plain 413,
     * over HTTP/2 only with RST_STREAM REFUSED_STREAM, which clients retry. So its limit is far
     * above the largest body any route takes, and the guard answers a JSON 413 below it. */
    s->config.max_request_entity_size = API_GUARD_BODY_HARD_MAX;
    s->config.http1.req_timeout =
        opt->idle_timeout_ms ? opt->idle_timeout_ms : API_IDLE_TIMEOUT_MS_DEFAULT;
    /* An idle HTTP/2 connection ends as soon as an HTTP/1 one, so a close waits no longer. */
    s->config.http2.idle_timeout = s->config.http1.req_timeout;
    h2o_hostconf_t *hc =
        h2o_config_register_host(&s->config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *pc = h2o_config_register_path(hc, "/", 0);
    struct api_handler *h = (struct api_handler *)h2o_create_handler(pc, sizeof(*h));
    h->srv = s;
    h->super.on_req = api__on_req;
    h2o_context_init(&s->ctx, loop, &s->config);
    s->accept.ctx = &s->ctx;
    s->accept.hosts = s->config.hosts;
    s->accept.ssl_ctx = s->ssl_ctx; /* set: every connection must complete a TLS handshake */

    int uvrc = uv_tcp_init(loop, &s->listener);
    if (uvrc) {
        snprintf(err, errcap, "api: listener: %s", uv_strerror(uvrc));
        s->closing = 1;
        s->listener_closed = 1;
        maybe_finish(s);
        return MUSTER_EIO;
    }
    s->listener.data = s;
    uvrc = uv_tcp_bind(&s->listener, (struct sockaddr *)&addr, 0);
    if (!uvrc)
        uvrc = uv_listen((uv_stream_t *)&s->listener, 128, on_accept);
    struct sockaddr_storage bound;
    int blen = sizeof(bound);
    if (!uvrc)
        uvrc = uv_tcp_getsockname(&s->listener, (struct sockaddr *)&bound, &blen);
    if (uvrc) {
        snprintf(err, errcap, "api: listen on %.64s:%d: %s", host, opt->port, uv_strerror(uvrc));
        /* The listener is closed and the rest freed in its close callback, on the caller's next
         * loop iteration; no callback of the caller's runs (the libuv rule for a failed start). */
        s->closing = 1;
        uv_close((uv_handle_t *)&s->listener, on_listener_closed);
        return MUSTER_EIO;
    }
    s->port = ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port
                                               : ((struct sockaddr_in6 *)&bound)->sin6_port);
    snprintf(s->listen_host, sizeof(s->listen_host), "%s", host);
    s->guard = (struct api_guard){
        .listen_host = s->listen_host, .port = s->port, .no_tokens = s->tokens == NULL};
    if (ctx->events && uv_timer_init(loop, &s->heartbeat) == 0) {
        s->heartbeat.data = s;
        s->heartbeat_live = 1;
        uv_timer_start(&s->heartbeat, api__events_heartbeat, API_SSE_HEARTBEAT_MS,
                       API_SSE_HEARTBEAT_MS);
        uv_unref((uv_handle_t *)&s->heartbeat); /* streams, not the timer, keep a loop busy */
    }
    *out = s;
    return 0;
}

int api_server_port(const struct api_server *s)
{
    return s ? s->port : 0;
}

static void on_listener_closed(uv_handle_t *h)
{
    struct api_server *s = h->data;
    s->listener_closed = 1;
    maybe_finish(s);
}

static void on_heartbeat_closed(uv_handle_t *h)
{
    struct api_server *s = h->data;
    s->heartbeat_live = 0;
    maybe_finish(s);
}

/* The deadline: every connection still open is shut down at the socket. h2o then reads EOF
 * (or fails its write) and closes the connection by its own path, freeing what it holds and
 * calling on_conn_closed; no h2o state is torn down behind its back. */
static void on_deadline(uv_timer_t *t)
{
    struct api_server *s = t->data;
    s->cut = 1;
    api__events_end_all(s);
    api__reviews_end_all(s);
    for (struct api_conn *c = s->conns; c; c = c->next) {
        uv_os_fd_t fd;
        if (!uv_is_closing((uv_handle_t *)&c->tcp) && uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0)
            shutdown(fd, SHUT_RDWR);
    }
}

void api_server_drain(struct api_server *s, uint64_t within_ms)
{
    if (!s)
        return;
    if (!s->draining) {
        s->draining = 1;
        /* GOAWAY to HTTP/2 clients, "Connection: close" on HTTP/1 answers from now on. */
        h2o_context_request_shutdown(&s->ctx);
    }
    if (!s->deadline_live) {
        if (uv_timer_init(s->ctx.loop, &s->deadline))
            return;
        s->deadline.data = s;
        s->deadline_live = 1;
    } else if (uv_is_closing((uv_handle_t *)&s->deadline) ||
               (uv_is_active((uv_handle_t *)&s->deadline) &&
                uv_timer_get_due_in(&s->deadline) <= within_ms)) {
        return; /* an earlier deadline stands */
    }
    uv_timer_start(&s->deadline, on_deadline, within_ms, 0);
}

void api_server_close(struct api_server *s, void (*cb)(void *ud), void *ud)
{
    if (!s || s->closing)
        return;
    /* A close without a drain first still ends: keep-alive connections get as long as their
     * idle timeout would give them, then are cut. */
    api_server_drain(s, s->config.http1.req_timeout);
    s->closing = 1;
    s->close_cb = cb;
    s->close_ud = ud;
    /* Event streams never end by themselves: end them now (each sends what it holds first). */
    api__events_end_all(s);
    api__reviews_end_all(s);
    if (s->heartbeat_live)
        uv_close((uv_handle_t *)&s->heartbeat, on_heartbeat_closed);
    uv_close((uv_handle_t *)&s->listener, on_listener_closed);
}
