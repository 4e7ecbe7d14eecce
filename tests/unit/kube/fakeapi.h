/* A tiny fake Kubernetes API server for client tests: HTTP/1.1 over a libuv TCP listener on
 * 127.0.0.1 with an ephemeral port, in the test's own loop. Each test supplies a handler that
 * answers with canned bodies, streams chunked watch events, drops streams, or stalls. */
#ifndef MUSTER_TESTS_FAKEAPI_H
#define MUSTER_TESTS_FAKEAPI_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uv.h>

/* Tests truncate logged strings into fixed buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define FAKE_MAX_REQUEST (1024 * 1024)
#define FAKE_LOG 128

struct fake_server;

struct fake_req {
    char method[16];
    char target[4096]; /* path and query */
    char path[4096];
    char query[4096];
    char auth[1024];
    char content_type[128];
    char accept[256];
    const char *body;
    size_t body_len;
};

struct fake_conn {
    uv_tcp_t tcp;
    struct fake_server *srv;
    char *in;
    size_t in_len;
    int streaming, closing, outstanding, in_process;
    struct fake_conn *next;
    void *user;
};

typedef void (*fake_handler_fn)(struct fake_server *s, struct fake_conn *c,
                                const struct fake_req *r);

struct fake_server {
    uv_loop_t *loop;
    uv_tcp_t listener;
    int port;
    char url[64];
    fake_handler_fn handler;
    void *ud;
    /* Optional: told before a connection's memory goes, so tests can forget it. */
    void (*on_conn_close)(struct fake_server *s, struct fake_conn *c);
    struct fake_conn *conns;
    int accepted;
    int requests;
    int outstanding, max_outstanding; /* requests received but not answered yet */
    char log[FAKE_LOG][512];          /* "METHOD target" per request */
    char auth_log[FAKE_LOG][128];
    char ctype_log[FAKE_LOG][128];
    char accept_log[FAKE_LOG][256];
    int closed;
};

struct fake_write {
    uv_write_t req;
    uv_buf_t buf;
};

static inline void fake__on_write(uv_write_t *w, int status)
{
    struct fake_write *fw = (struct fake_write *)w;
    (void)status;
    free(fw->buf.base);
    free(fw);
}

static inline void fake_write(struct fake_conn *c, const char *data, size_t len)
{
    if (c->closing || len == 0)
        return;
    struct fake_write *fw = malloc(sizeof(*fw));
    fw->buf = uv_buf_init(malloc(len), (unsigned)len);
    memcpy(fw->buf.base, data, len);
    if (uv_write(&fw->req, (uv_stream_t *)&c->tcp, &fw->buf, 1, fake__on_write) != 0) {
        free(fw->buf.base);
        free(fw);
    }
}

static inline void fake__on_conn_closed(uv_handle_t *h)
{
    struct fake_conn *c = h->data;
    struct fake_server *s = c->srv;
    struct fake_conn **pp = &s->conns;
    while (*pp && *pp != c)
        pp = &(*pp)->next;
    if (*pp)
        *pp = c->next;
    s->outstanding -= c->outstanding;
    if (s->on_conn_close)
        s->on_conn_close(s, c);
    free(c->in);
    free(c);
}

static inline void fake_close_conn(struct fake_conn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    uv_close((uv_handle_t *)&c->tcp, fake__on_conn_closed);
}

static inline void fake__on_shutdown(uv_shutdown_t *req, int status)
{
    struct fake_conn *c = req->data;
    (void)status;
    free(req);
    fake_close_conn(c);
}

/* Ends the connection after what was written so far: a watch stream dropped mid-way. */
static inline void fake_drop(struct fake_conn *c)
{
    if (c->closing)
        return;
    uv_shutdown_t *req = malloc(sizeof(*req));
    req->data = c;
    if (uv_shutdown(req, (uv_stream_t *)&c->tcp, fake__on_shutdown) != 0) {
        free(req);
        fake_close_conn(c);
    }
}

static inline void fake__answered(struct fake_conn *c)
{
    if (c->outstanding > 0) {
        c->outstanding--;
        c->srv->outstanding--;
    }
}

/* A whole response. extra_headers are complete "Name: value\r\n" lines, or NULL. */
static inline void fake_respond(struct fake_conn *c, int code, const char *extra_headers,
                                const char *body)
{
    char head[1024];
    size_t blen = body ? strlen(body) : 0;
    int n = snprintf(head, sizeof(head),
                     "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                     "%s\r\n",
                     code, blen, extra_headers ? extra_headers : "");
    fake_write(c, head, (size_t)n);
    fake_write(c, body, blen);
    fake__answered(c);
}

/* A Kubernetes Status body with the given code, reason and message. */
static inline void fake_status(struct fake_conn *c, int code, const char *reason,
                               const char *message, const char *extra_headers)
{
    char body[1024];
    snprintf(body, sizeof(body),
             "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
             "\"message\":\"%s\",\"reason\":\"%s\",\"code\":%d}",
             message, reason, code);
    fake_respond(c, code, extra_headers, body);
}

static inline void fake_stream_start(struct fake_conn *c)
{
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n";
    c->streaming = 1;
    fake_write(c, head, sizeof(head) - 1);
    fake__answered(c);
}

static inline void fake_stream_send(struct fake_conn *c, const char *data, size_t len)
{
    char size[32];
    if (len == 0)
        return;
    int n = snprintf(size, sizeof(size), "%zx\r\n", len);
    fake_write(c, size, (size_t)n);
    fake_write(c, data, len);
    fake_write(c, "\r\n", 2);
}

static inline void fake__process(struct fake_conn *c);

/* Ends the chunked body; the connection stays open for the next request. */
static inline void fake_stream_end(struct fake_conn *c)
{
    fake_write(c, "0\r\n\r\n", 5);
    c->streaming = 0;
    if (!c->in_process)
        fake__process(c);
}

/* The value of query parameter key (URL-decoding not needed for the tests' values). */
static inline int fake_query(const struct fake_req *r, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    const char *p = r->query;
    while (p && *p) {
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t vl = strcspn(v, "&");
            snprintf(out, cap, "%.*s", (int)vl, v);
            return 1;
        }
        p = strchr(p, '&');
        if (p)
            p++;
    }
    if (cap)
        out[0] = 0;
    return 0;
}

static inline void fake__header(const char *line, size_t len, const char *name, char *out,
                                size_t cap)
{
    size_t nl = strlen(name);
    if (len > nl + 1 && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
        const char *v = line + nl + 1;
        while (*v == ' ')
            v++;
        snprintf(out, cap, "%.*s", (int)(len - (size_t)(v - line)), v);
    }
}

/* Parses and dispatches every complete request in the buffer. */
static inline void fake__process(struct fake_conn *c)
{
    struct fake_server *s = c->srv;
    c->in_process = 1;
    while (!c->closing && !c->streaming) {
        char *end = c->in_len ? memmem(c->in, c->in_len, "\r\n\r\n", 4) : NULL;
        if (!end)
            break;
        size_t head_len = (size_t)(end - c->in) + 4;
        static struct fake_req r;
        memset(&r, 0, sizeof(r));
        char cl[32] = "";
        const char *line = c->in;
        int first = 1;
        while (line < end) {
            const char *eol = memmem(line, (size_t)(end + 2 - line), "\r\n", 2);
            size_t len = (size_t)(eol - line);
            if (first) {
                sscanf(line, "%15s %4095s", r.method, r.target);
                first = 0;
            } else {
                fake__header(line, len, "Content-Length", cl, sizeof(cl));
                fake__header(line, len, "Authorization", r.auth, sizeof(r.auth));
                fake__header(line, len, "Content-Type", r.content_type, sizeof(r.content_type));
                fake__header(line, len, "Accept", r.accept, sizeof(r.accept));
            }
            line = eol + 2;
        }
        size_t body_len = cl[0] ? strtoul(cl, NULL, 10) : 0;
        if (c->in_len < head_len + body_len)
            break;
        r.body = c->in + head_len;
        r.body_len = body_len;
        const char *q = strchr(r.target, '?');
        snprintf(r.path, sizeof(r.path), "%.*s", (int)(q ? q - r.target : (long)strlen(r.target)),
                 r.target);
        snprintf(r.query, sizeof(r.query), "%s", q ? q + 1 : "");
        if (s->requests < FAKE_LOG) {
            snprintf(s->log[s->requests], sizeof(s->log[0]), "%s %s", r.method, r.target);
            snprintf(s->auth_log[s->requests], sizeof(s->auth_log[0]), "%s", r.auth);
            snprintf(s->ctype_log[s->requests], sizeof(s->ctype_log[0]), "%s", r.content_type);
            snprintf(s->accept_log[s->requests], sizeof(s->accept_log[0]), "%s", r.accept);
        }
        s->requests++;
        c->outstanding++;
        s->outstanding++;
        if (s->outstanding > s->max_outstanding)
            s->max_outstanding = s->outstanding;
        /* Copy out before the handler can write (and so before the buffer moves). */
        char *copy = malloc(body_len + 1);
        memcpy(copy, r.body, body_len);
        copy[body_len] = 0;
        r.body = copy;
        memmove(c->in, c->in + head_len + body_len, c->in_len - head_len - body_len);
        c->in_len -= head_len + body_len;
        s->handler(s, c, &r);
        free(copy);
    }
    c->in_process = 0;
}

static inline void fake__alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    buf->base = malloc(suggested);
    buf->len = suggested;
}

static inline void fake__on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    struct fake_conn *c = st->data;
    if (n < 0) {
        free(buf->base);
        fake_close_conn(c);
        return;
    }
    if (n > 0 && c->in_len + (size_t)n <= FAKE_MAX_REQUEST) {
        c->in = realloc(c->in, c->in_len + (size_t)n + 1);
        memcpy(c->in + c->in_len, buf->base, (size_t)n);
        c->in_len += (size_t)n;
        c->in[c->in_len] = 0;
        fake__process(c);
    }
    free(buf->base);
}

static inline void fake__on_connection(uv_stream_t *l, int status)
{
    struct fake_server *s = l->data;
    if (status < 0)
        return;
    struct fake_conn *c = calloc(1, sizeof(*c));
    c->srv = s;
    uv_tcp_init(s->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(l, (uv_stream_t *)&c->tcp) != 0) {
        c->closing = 1;
        uv_close((uv_handle_t *)&c->tcp, fake__on_conn_closed);
        c->next = s->conns;
        s->conns = c;
        return;
    }
    c->next = s->conns;
    s->conns = c;
    s->accepted++;
    /* Header and body go out as separate writes: without this, Nagle + delayed ACK stall. */
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, fake__alloc, fake__on_read);
}

/* Listens on 127.0.0.1:<ephemeral>; s->url is "http://127.0.0.1:<port>". Returns 0 or a uv
 * error. */
static inline int fake_server_start(struct fake_server *s, uv_loop_t *loop, fake_handler_fn h,
                                    void *ud)
{
    memset(s, 0, sizeof(*s));
    /* A proxy from the environment must not carry the tests' loopback traffic. */
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    s->loop = loop;
    s->handler = h;
    s->ud = ud;
    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", 0, &addr);
    uv_tcp_init(loop, &s->listener);
    s->listener.data = s;
    int rc = uv_tcp_bind(&s->listener, (const struct sockaddr *)&addr, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&s->listener, 64, fake__on_connection);
    if (rc != 0)
        return rc;
    struct sockaddr_in bound;
    int len = sizeof(bound);
    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&bound, &len);
    s->port = ntohs(bound.sin_port);
    snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d", s->port);
    return 0;
}

/* Closes the listener and every connection; their memory goes in the close callbacks. */
static inline void fake_server_close(struct fake_server *s)
{
    if (s->closed)
        return;
    s->closed = 1;
    uv_close((uv_handle_t *)&s->listener, NULL);
    for (struct fake_conn *c = s->conns; c; c = c->next)
        fake_close_conn(c);
}

/* Reads tests/fixtures/<name> into a new string (the caller frees it); NULL when missing. */
static inline char *fake_fixture(const char *name)
{
    char path[1024];
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = 0;
    fclose(f);
    return buf;
}

#endif
