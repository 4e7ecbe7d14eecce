/* The admin API's request guards (see reqguard.h). */
#include "dispatcher/reqguard.h"

#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 4, 5))) static int
guard_fail(struct api_error *e, int status, const char *reason, const char *fmt, ...)
{
    e->status = status;
    snprintf(e->reason, sizeof(e->reason), "%s", reason);
    e->field[0] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return status;
}

static int lc_eq(const char *a, size_t alen, const char *lit)
{
    size_t n = strlen(lit);
    if (alen != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != lit[i])
            return 0;
    }
    return 1;
}

static int all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return n > 0;
}

static void trim_ows(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

int api_guard_framing(const char *head, size_t len, int http10, struct api_error *e)
{
    size_t cl = 0, te = 0;
    int te_chunked = 1;
    const char *p = head, *end = head + len;
    /* the request line */
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
        return 0;
    p = nl + 1;
    while (p < end) {
        nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t ll = (size_t)(le - p);
        if (ll && p[ll - 1] == '\r')
            ll--;
        if (ll == 0)
            break; /* the empty line: the body follows */
        if (p[0] == ' ' || p[0] == '\t')
            return guard_fail(e, 400, "BadRequest",
                              "a header field is folded over two lines (obsolete line folding, "
                              "RFC 9112 section 5.2); send each field on one line");
        const char *colon = memchr(p, ':', ll);
        if (!colon)
            return guard_fail(e, 400, "BadRequest", "a header line has no colon");
        size_t nlen = (size_t)(colon - p);
        if (nlen == 0 || p[nlen - 1] == ' ' || p[nlen - 1] == '\t')
            return guard_fail(e, 400, "BadRequest",
                              "whitespace between a header field's name and its colon (RFC 9112 "
                              "section 5.1)");
        const char *v = colon + 1;
        size_t vl = ll - nlen - 1;
        trim_ows(&v, &vl);
        if (lc_eq(p, nlen, "content-length")) {
            cl++;
            if (!all_digits(v, vl))
                return guard_fail(e, 400, "BadRequest",
                                  "Content-Length is not a single decimal number");
        } else if (lc_eq(p, nlen, "transfer-encoding")) {
            te++;
            if (!lc_eq(v, vl, "chunked"))
                te_chunked = 0;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    if (cl > 1)
        return guard_fail(e, 400, "BadRequest",
                          "the request has %zu Content-Length fields; send one (RFC 9112 "
                          "section 6.3)",
                          cl);
    if (te && cl)
        return guard_fail(e, 400, "BadRequest",
                          "the request has both Content-Length and Transfer-Encoding; send one "
                          "(RFC 9112 section 6.1)");
    if (te > 1 || (te && !te_chunked))
        return guard_fail(e, 400, "BadRequest",
                          "Transfer-Encoding must be one field saying chunked");
    if (te && http10)
        return guard_fail(e, 400, "BadRequest",
                          "Transfer-Encoding in an HTTP/1.0 request (RFC 9112 section 6.1)");
    return 0;
}

int api_guard_json_type(const char *v, size_t len)
{
    const char *semi = memchr(v, ';', len);
    size_t n = semi ? (size_t)(semi - v) : len;
    trim_ows(&v, &n);
    return lc_eq(v, n, "application/json") || lc_eq(v, n, "application/merge-patch+json");
}

/* Splits host[:port] (IPv6 in brackets) into its name and port; 0 when malformed. *port is -1
 * when absent. */
static int split_host(const char *s, size_t len, const char **name, size_t *nlen, long *port)
{
    const char *colon = NULL;
    if (len && s[0] == '[') {
        const char *rb = memchr(s, ']', len);
        if (!rb)
            return 0;
        *name = s + 1;
        *nlen = (size_t)(rb - s - 1);
        if ((size_t)(rb - s) + 1 < len) {
            if (rb[1] != ':')
                return 0;
            colon = rb + 1;
        }
    } else {
        colon = memchr(s, ':', len);
        *name = s;
        *nlen = colon ? (size_t)(colon - s) : len;
        if (colon && memchr(colon + 1, ':', len - (size_t)(colon + 1 - s)))
            return 0; /* an unbracketed IPv6 address is not a Host */
    }
    *port = -1;
    if (colon) {
        const char *d = colon + 1;
        size_t dl = len - (size_t)(d - s);
        if (dl > 5 || !all_digits(d, dl))
            return 0;
        long p = 0;
        for (size_t i = 0; i < dl; i++)
            p = p * 10 + (d[i] - '0');
        *port = p;
    }
    return *nlen > 0;
}

int api_guard_host_ok(const char *host, size_t len, const char *listen_host, int port)
{
    const char *name;
    size_t nlen;
    long p;
    if (!split_host(host, len, &name, &nlen, &p))
        return 0;
    if (p >= 0 && p != port)
        return 0;
    if (lc_eq(name, nlen, "localhost"))
        return 1;
    return listen_host && lc_eq(name, nlen, listen_host);
}

static int origin_host(const char *origin, size_t len, const char **host, size_t *hlen)
{
    size_t skip = len >= 7 && lc_eq(origin, 7, "http://")    ? 7
                  : len >= 8 && lc_eq(origin, 8, "https://") ? 8
                                                             : 0;
    if (!skip || skip == len)
        return 0;
    *host = origin + skip;
    *hlen = len - skip;
    return memchr(*host, '/', *hlen) == NULL;
}

int api_guard_origin_ok(const char *origin, size_t len, const char *listen_host, int port)
{
    const char *h;
    size_t hl;
    return origin_host(origin, len, &h, &hl) && api_guard_host_ok(h, hl, listen_host, port);
}

int api_guard_origin_same(const char *origin, size_t len, const char *host, size_t hlen)
{
    const char *h;
    size_t hl;
    if (!origin_host(origin, len, &h, &hl) || hl != hlen)
        return 0;
    for (size_t i = 0; i < hl; i++) {
        char a = h[i], b = host[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

int api_guard_raw_path(const char *path, size_t len)
{
    /* Each segment, decoded only of %2E/%2e, must not be "." or ".."; no %2F anywhere. */
    size_t seg_dots = 0, seg_other = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || path[i] == '/') {
            if (seg_other == 0 && (seg_dots == 1 || seg_dots == 2))
                return 0;
            seg_dots = seg_other = 0;
            continue;
        }
        if (path[i] == '%' && i + 2 < len) {
            char a = path[i + 1], b = (char)(path[i + 2] | 0x20);
            if (a == '2' && b == 'f')
                return 0;
            if (a == '2' && b == 'e') {
                seg_dots++;
                i += 2;
                continue;
            }
        }
        if (path[i] == '.')
            seg_dots++;
        else
            seg_other++;
    }
    return 1;
}

int api_guard_path_segment(const char *seg, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)seg[i];
        if (c < 0x20 || c == 0x7f)
            return 0;
    }
    return 1;
}

int api_guard_client_key(const struct sockaddr *sa, unsigned char key[API_GUARD_KEY_LEN])
{
    memset(key, 0, API_GUARD_KEY_LEN);
    if (sa->sa_family == AF_INET) {
        key[0] = AF_INET;
        memcpy(key + 1, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
        return 1;
    }
    if (sa->sa_family != AF_INET6)
        return 0;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(a)) {
        key[0] = AF_INET;
        memcpy(key + 1, a->s6_addr + 12, 4);
        return 1;
    }
    key[0] = AF_INET6;
    memcpy(key + 1, a->s6_addr, 8);
    return 1;
}

/* The head of the HTTP/1 request being served. h2o 2.2.5 takes Content-Length and
 * Transfer-Encoding out of req->headers (they are "init header special" tokens); the one place
 * both remain is the connection's input buffer, which starts with the current request's head
 * until its response has been sent (lib/http1.c consumes it in on_send_complete). */
static int http1_head(h2o_req_t *req, const char **head, size_t *len)
{
    h2o_socket_t *sock = req->conn->callbacks->get_socket(req->conn);
    if (!sock || !sock->input || !sock->input->size)
        return 0;
    *head = sock->input->bytes;
    *len = sock->input->size < H2O_MAX_REQLEN ? sock->input->size : H2O_MAX_REQLEN;
    return 1;
}

static int guard_host_origin(const struct api_guard *g, h2o_req_t *req, int write,
                             struct api_error *e)
{
    h2o_iovec_t host = req->input.authority;
    ssize_t oi = h2o_find_header_by_str(&req->headers, H2O_STRLIT("origin"), -1);
    if (g->no_tokens) {
        if (!host.base || !api_guard_host_ok(host.base, host.len, g->listen_host, g->port))
            return guard_fail(e, 403, "Forbidden",
                              "Host %.*s is not this server: without --token-auth-file the "
                              "admin API answers only requests addressed to %s or localhost "
                              "(port %d)",
                              (int)(host.len > 100 ? 100 : host.len), host.base ? host.base : "",
                              g->listen_host, g->port);
        if (write && oi >= 0) {
            h2o_iovec_t o = req->headers.entries[oi].value;
            if (!api_guard_origin_ok(o.base, o.len, g->listen_host, g->port))
                return guard_fail(e, 403, "Forbidden",
                                  "a change from a web page of another origin (%.*s) is "
                                  "refused",
                                  (int)(o.len > 100 ? 100 : o.len), o.base);
        }
        return 0;
    }
    if (write && oi >= 0) {
        h2o_iovec_t o = req->headers.entries[oi].value;
        if (!host.base || !api_guard_origin_same(o.base, o.len, host.base, host.len))
            return guard_fail(e, 403, "Forbidden",
                              "a change from a web page of another origin (%.*s) is refused",
                              (int)(o.len > 100 ? 100 : o.len), o.base);
    }
    return 0;
}

int api_guard_check(const struct api_guard *g, h2o_req_t *req, int write, struct api_error *e)
{
    if (req->version < 0x200) {
        const char *head;
        size_t len;
        if (http1_head(req, &head, &len) && api_guard_framing(head, len, req->version < 0x101, e)) {
            /* RFC 9112: after a framing error the rest of the stream cannot be trusted. */
            req->http1_is_persistent = 0;
            return e->status;
        }
    }
    size_t plen = req->query_at != SIZE_MAX ? req->query_at : req->path.len;
    if (!api_guard_raw_path(req->path.base, plen))
        return guard_fail(e, 400, "BadRequest",
                          "the path has an escaped '/' (%%2F) or a '.' or '..' segment; a name in "
                          "a path is one segment");
    if (req->entity.base && req->entity.len > API_GUARD_BODY_MAX)
        return guard_fail(e, 413, "RequestEntityTooLarge",
                          "request body of %zu bytes is above the limit of %d bytes",
                          req->entity.len, API_GUARD_BODY_MAX);
    int rc = guard_host_origin(g, req, write, e);
    if (rc)
        return rc;
    /* A DELETE carries no body to type; its Origin is checked above like every write's. */
    if (write && !h2o_memis(req->method.base, req->method.len, H2O_STRLIT("DELETE"))) {
        ssize_t i = h2o_find_header(&req->headers, H2O_TOKEN_CONTENT_TYPE, -1);
        h2o_iovec_t v = i >= 0 ? req->headers.entries[i].value : h2o_iovec_init(NULL, 0);
        if (!v.base || !api_guard_json_type(v.base, v.len))
            return guard_fail(e, 415, "UnsupportedMediaType",
                              "Content-Type %.*s is not accepted: send application/json (or "
                              "application/merge-patch+json for PATCH)",
                              (int)(v.len > 100 ? 100 : v.len), v.base ? v.base : "(none)");
    }
    return 0;
}
