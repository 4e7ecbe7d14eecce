/* Answers served again from a snapshot: a list body built once and sent as long as what it was
 * built from has not changed (the engine's queue_tree_version and the queue rows' generation),
 * with an ETag, 304 Not Modified for a client that has it, and gzip for one that asks. A write
 * bumps one of the two, so the next read after a 2xx write builds anew: no stale answer. */
#include "dispatcher/api/api_int.h"

#include "queue/errors.h"
#include "queue/hash.h"
#include "queue/mem.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Gzip is fast at level 1 and a list of queues is repetitive: most of the gain at least cost. */
#define SNAPSHOT_GZIP_QUALITY 1
/* Smaller bodies go as they are: the gzip header would eat the gain. */
#define SNAPSHOT_GZIP_MIN 1024

/* The bodies are h2o shared buffers: each answer links the one it sends into its request's
 * pool, so a snapshot replaced while a slow client still reads the old body frees it only
 * when that request is done, and no answer copies the body (h2o_send_inline would). */
static char *shared_alloc(size_t len)
{
    return h2o_mem_alloc_shared(NULL, len ? len : 1, NULL);
}

static void shared_release(char *p)
{
    if (p)
        h2o_mem_release_shared(p);
}

void api__snapshot_close(struct api_snapshot *sn)
{
    muster_free(sn->cont);
    shared_release(sn->body);
    shared_release(sn->gz);
    memset(sn, 0, sizeof(*sn));
}

int api__snapshot_valid(const struct api_snapshot *sn, uint64_t version, uint64_t gen, size_t limit,
                        const char *cont)
{
    return sn->body && sn->version == version && sn->gen == gen && sn->limit == limit &&
           (cont ? sn->cont && strcmp(sn->cont, cont) == 0 : !sn->cont);
}

/* body[0..len) gzipped with h2o's own compressor into a shared buffer; NULL when it cannot be
 * (the answer then goes uncompressed). */
static char *gzip_of(const char *body, size_t len, size_t *outlen)
{
    h2o_mem_pool_t pool;
    h2o_mem_init_pool(&pool);
    char *out = NULL;
    h2o_compress_context_t *z = h2o_compress_gzip_open(&pool, SNAPSHOT_GZIP_QUALITY);
    if (z) {
        h2o_iovec_t in = h2o_iovec_init(body, len), *bufs;
        size_t nbufs, total = 0;
        z->transform(z, &in, 1, H2O_SEND_STATE_FINAL, &bufs, &nbufs);
        for (size_t i = 0; i < nbufs; i++)
            total += bufs[i].len;
        out = total ? shared_alloc(total) : NULL;
        for (size_t i = 0, at = 0; out && i < nbufs; at += bufs[i].len, i++)
            memcpy(out + at, bufs[i].base, bufs[i].len);
        *outlen = total;
    }
    h2o_mem_clear_pool(&pool);
    return out;
}

int api__snapshot_fill(struct api_snapshot *sn, uint64_t version, uint64_t gen, size_t limit,
                       const char *cont, const char *body, size_t len)
{
    api__snapshot_close(sn);
    sn->body = shared_alloc(len);
    sn->cont = cont ? muster_strdup(cont) : NULL;
    if (!sn->body || (cont && !sn->cont)) {
        api__snapshot_close(sn);
        return MUSTER_ENOMEM;
    }
    memcpy(sn->body, body, len);
    sn->len = len;
    sn->version = version;
    sn->gen = gen;
    sn->limit = limit;
    if (len >= SNAPSHOT_GZIP_MIN)
        sn->gz = gzip_of(body, len, &sn->gzlen);
    /* Strong: the bytes are a function of what it names. The page is part of it, so two pages
     * of one version never share a tag. */
    uint64_t page = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, cont ? cont : "");
    snprintf(sn->etag, sizeof(sn->etag), "\"%" PRIx64 "-%" PRIx64 "-%zx-%" PRIx64 "\"", version,
             gen, limit, page);
    return 0;
}

/* Whether an If-None-Match value names tag: "*", or tag among a comma-separated list, weak
 * ("W/") forms matching too (RFC 9110 13.1.2: weak comparison for If-None-Match). */
static int none_match(const char *v, size_t n, const char *tag)
{
    size_t tl = strlen(tag);
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        if (i < n && v[i] == '*')
            return 1;
        if (i + 1 < n && v[i] == 'W' && v[i + 1] == '/')
            i += 2;
        size_t j = i;
        while (j < n && v[j] != ',')
            j++;
        size_t e = j;
        while (e > i && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e - i == tl && memcmp(v + i, tag, tl) == 0)
            return 1;
        i = j;
    }
    return 0;
}

/* Whether the client accepts gzip (a coding of q=0 refuses it). */
static int accepts_gzip(h2o_req_t *req)
{
    ssize_t at = h2o_find_header(&req->headers, H2O_TOKEN_ACCEPT_ENCODING, -1);
    if (at < 0)
        return 0;
    h2o_iovec_t v = req->headers.entries[at].value;
    size_t i = 0;
    while (i < v.len) {
        while (i < v.len && (v.base[i] == ' ' || v.base[i] == ','))
            i++;
        size_t j = i;
        while (j < v.len && v.base[j] != ',')
            j++;
        size_t name_end = i;
        while (name_end < j && v.base[name_end] != ';' && v.base[name_end] != ' ')
            name_end++;
        if (name_end - i == 4 && strncasecmp(v.base + i, "gzip", 4) == 0) {
            const char *q = memchr(v.base + name_end, '=', j - name_end);
            /* "gzip;q=0", "gzip;q=0.0": refused */
            if (q && q + 1 < v.base + j && q[1] == '0') {
                int zero = 1;
                for (const char *p = q + 2; p < v.base + j; p++)
                    if (*p >= '1' && *p <= '9')
                        zero = 0;
                return !zero;
            }
            return 1;
        }
        i = j;
    }
    return 0;
}

/* Sends buf (a shared buffer of the snapshot) as the whole body without copying it. */
static void send_shared(h2o_req_t *req, char *buf, size_t len)
{
    static h2o_generator_t generator = {NULL, NULL};
    h2o_mem_link_shared(&req->pool, buf);
    req->res.content_length = len;
    h2o_start_response(req, &generator);
    if (h2o_memis(req->input.method.base, req->input.method.len, H2O_STRLIT("HEAD"))) {
        h2o_send(req, NULL, 0, H2O_SEND_STATE_FINAL);
        return;
    }
    h2o_iovec_t body = h2o_iovec_init(buf, len);
    h2o_send(req, &body, 1, H2O_SEND_STATE_FINAL);
}

void api__snapshot_send(h2o_req_t *req, const struct api_snapshot *sn)
{
    api__add_header(req, H2O_TOKEN_ETAG, sn->etag);
    /* no-cache, not no-store: a client keeps the answer and asks again with its tag */
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CACHE_CONTROL, NULL,
                   H2O_STRLIT("no-cache"));
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_VARY, NULL,
                   H2O_STRLIT("Accept-Encoding"));
    ssize_t at = h2o_find_header(&req->headers, H2O_TOKEN_IF_NONE_MATCH, -1);
    if (at >= 0 && none_match(req->headers.entries[at].value.base,
                              req->headers.entries[at].value.len, sn->etag)) {
        req->res.status = 304;
        req->res.reason = "Not Modified";
        h2o_send_inline(req, "", 0);
        return;
    }
    req->res.status = 200;
    req->res.reason = "OK";
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL,
                   H2O_STRLIT("application/json"));
    if (sn->gz && accepts_gzip(req)) {
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_ENCODING, NULL,
                       H2O_STRLIT("gzip"));
        send_shared(req, sn->gz, sn->gzlen);
        return;
    }
    send_shared(req, sn->body, sn->len);
}
