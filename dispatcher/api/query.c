/* The query string: one parameter's value, URL unescaping, and the list pager (`limit` and
 * `continue`) every list route reads. */
#include "dispatcher/api/api_int.h"

#include "queue/errors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The value of query parameter key, copied into out (capped). 1 found, 0 absent, -1 too long. */
int api__query_param(h2o_req_t *req, const char *key, char *out, size_t cap)
{
    if (req->query_at == SIZE_MAX)
        return 0;
    const char *q = req->path.base + req->query_at + 1, *end = req->path.base + req->path.len;
    size_t klen = strlen(key);
    while (q < end) {
        const char *amp = memchr(q, '&', (size_t)(end - q));
        const char *pe = amp ? amp : end;
        const char *eq = memchr(q, '=', (size_t)(pe - q));
        if (eq && (size_t)(eq - q) == klen && memcmp(q, key, klen) == 0) {
            size_t vl = (size_t)(pe - eq - 1);
            if (vl >= cap)
                return -1;
            memcpy(out, eq + 1, vl);
            out[vl] = '\0';
            return 1;
        }
        q = pe + 1;
    }
    return 0;
}

/* Decodes %XX escapes and '+' in place (a query value as a browser's encodeURIComponent or a
 * form sends it). 0 on a malformed escape or an escaped NUL. */
int api__url_unescape(char *v)
{
    char *w = v;
    for (const char *r = v; *r; r++) {
        if (*r == '+') {
            *w++ = ' ';
        } else if (*r == '%') {
            unsigned char x;
            if (!r[1] || !r[2] || h2o_hex_decode(&x, r + 1, 2) != 0 || x == 0)
                return 0;
            *w++ = (char)x;
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return 1;
}

/* Reads `limit`: 1..API_LIST_LIMIT_MAX (larger clamped), default API_LIST_LIMIT_DEFAULT. */
static int limit_param(h2o_req_t *req, size_t *limit)
{
    char v[API_QUERY_VALUE_MAX];
    int got = api__query_param(req, "limit", v, sizeof(v));
    *limit = API_LIST_LIMIT_DEFAULT;
    if (got < 0)
        return MUSTER_EINVAL;
    if (!got)
        return 0;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < 1)
        return MUSTER_EINVAL;
    *limit = n > API_LIST_LIMIT_MAX ? API_LIST_LIMIT_MAX : (size_t)n;
    return 0;
}

void api__page_refuse(h2o_req_t *req)
{
    api__send_fail(req, 400, "BadRequest", "continue is not a token from a previous page");
}

int api__page_parse(h2o_req_t *req, struct api_page *p)
{
    p->cont = NULL;
    if (limit_param(req, &p->limit)) {
        api__send_fail(req, 400, "BadRequest", "limit must be a positive integer");
        return MUSTER_EINVAL;
    }
    /* Every route's token is a name or numbers that fit the buffer: a longer one was never
     * handed out. */
    int got = api__query_param(req, "continue", p->buf, sizeof(p->buf));
    if (got < 0) {
        api__page_refuse(req);
        return MUSTER_EINVAL;
    }
    if (got)
        p->cont = p->buf;
    return 0;
}
