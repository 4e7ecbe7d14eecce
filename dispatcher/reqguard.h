/* The admin API's request guards, run before routing: what a request must satisfy whoever sends
 * it, whatever route it names. Each rule has a pure function (tested and fuzzed on bytes) and
 * api_guard_check applies them all to an h2o request:
 *   - a body above API_GUARD_BODY_MAX is a 413 on every route, over HTTP/1 and HTTP/2 alike;
 *   - HTTP/1 framing per RFC 9112: two Content-Length fields, Content-Length with
 *     Transfer-Encoding, a Transfer-Encoding other than one "chunked", Transfer-Encoding in
 *     HTTP/1.0, obsolete line folding or whitespace before a field's colon are a 400, and the
 *     connection is closed after it (h2o 2.2.5 frames such requests by its own choice, so what
 *     follows could run as a second request);
 *   - writes (POST, PUT, PATCH) carry application/json or application/merge-patch+json, else
 *     415: the other types are the ones a web page can send cross-site without asking;
 *   - without a token file (loopback only, everyone is admin) the Host must be the listen
 *     address or localhost (DNS rebinding), and a write's (DELETE included) Origin, when sent,
 *     one of those too;
 *     with a token file a write's Origin, when sent, must be the request's own Host (client
 *     certificates are sent by browsers unasked).
 *   - a path with an escaped '/' or a '.' or '..' segment is a 400 (api_guard_raw_path).
 * A path segment that decodes to a NUL or another control byte is refused by the router with
 * api_guard_path_segment. docs/admin-api.md states the rules. */
#ifndef MUSTER_DISPATCHER_REQGUARD_H
#define MUSTER_DISPATCHER_REQGUARD_H

#include "dispatcher/api.h"

#include <h2o.h>
#include <stddef.h>

/* The largest body any route takes (the webhook's review cap; queue bodies stop at
 * API_BODY_MAX in their own decoder). */
#define API_GUARD_BODY_MAX (2 * API_BODY_MAX)
/* What h2o buffers before giving up by itself: over HTTP/2 h2o 2.2.5 can only answer that with
 * RST_STREAM REFUSED_STREAM (lib/http2/connection.c, handle_data_frame), which clients retry, so
 * it is set well above API_GUARD_BODY_MAX and muster answers 413 below it. Not higher: h2o
 * buffers a stream's whole body before any handler runs, up to this per stream, and an HTTP/2
 * connection may carry 100 streams. */
#define API_GUARD_BODY_HARD_MAX (4 * API_GUARD_BODY_MAX)

struct api_guard {
    const char *listen_host; /* the numeric address the server is bound to */
    int port;                /* the bound port */
    int no_tokens;           /* no token file: the Host and Origin rules for loopback apply */
};

/* Checks the head of an HTTP/1 request (the request line and the header fields as received, up
 * to the empty line; bytes after it are ignored; header names may have been lower-cased).
 * http10: the request is HTTP/1.0. 0 when the framing is unambiguous, else 400 with e filled. */
int api_guard_framing(const char *head, size_t len, int http10, struct api_error *e);

/* 1 when a Content-Type value is application/json or application/merge-patch+json (any case,
 * parameters after ';' allowed), else 0. */
int api_guard_json_type(const char *v, size_t len);

/* 1 when host (a Host or :authority value: name or address, optional ":port", IPv6 in
 * brackets) names listen_host or localhost and, when it has a port, port. */
int api_guard_host_ok(const char *host, size_t len, const char *listen_host, int port);

/* 1 when origin (an Origin value) is http:// or https:// followed by a host api_guard_host_ok
 * accepts; "null" and anything else are 0. */
int api_guard_origin_ok(const char *origin, size_t len, const char *listen_host, int port);

/* 1 when origin is http:// or https:// followed exactly by host (case-insensitive). */
int api_guard_origin_same(const char *origin, size_t len, const char *host, size_t hlen);

/* 1 when a raw request path (before any '?') has no escaped '/' and no '.' or '..' segment,
 * plain or escaped. h2o decodes escapes before it resolves dot segments, so
 * /api/v1/queues/..%2Faudit would be served as /api/v1/audit: a name in a path must stay one
 * segment. */
int api_guard_raw_path(const char *path, size_t len);

/* 1 when a decoded path segment holds no NUL or other control byte (what a name is validated
 * as must be what is used). */
int api_guard_path_segment(const char *seg, size_t len);

/* The key a client is counted under (rate limit, event-stream cap): the address family, then
 * an IPv4 address, or an IPv6 address's /64 (one host or one LAN gets a whole /64, so keying on
 * the full address would give it 2^64 buckets); an IPv4-mapped IPv6 address counts as its IPv4
 * address. key has API_GUARD_KEY_LEN bytes; 0 when sa is neither family. */
#define API_GUARD_KEY_LEN 17
struct sockaddr;
int api_guard_client_key(const struct sockaddr *sa, unsigned char key[API_GUARD_KEY_LEN]);

/* Applies the rules above to req (write: POST, PUT, PATCH or DELETE; all but DELETE must carry
 * a JSON content type). 0 to go on; else the status to
 * answer with (400, 403, 413, 415) and e filled. A framing 400 also marks an HTTP/1 connection
 * to be closed after the answer. */
int api_guard_check(const struct api_guard *g, h2o_req_t *req, int write, struct api_error *e);

#endif
