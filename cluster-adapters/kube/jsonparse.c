/* A strict one-pass JSON parser building json-c trees (jsonparse.h). Why not json_tokener: its
 * byte-at-a-time state machine copies every key with strdup (freed again with the tree) and
 * gives every array 32 slots, and the watch events and replies of the hub are about a fifth of
 * musterd's CPU (docs/benchmarks.md, "Session 11: CPU"). Here keys come from the process-wide
 * table the informer's compaction already shares, arrays are sized when they close, and the
 * text is read from one complete buffer (watch.c frames the events). */
#include "cluster-adapters/kube/jsonparse.h"

#include "cluster-adapters/kube/client.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/json.h"
#include "queue/mem.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
    const char *s, *end, *p;
    int max_depth;
    char *err;
    size_t errcap;
    int rc;
    char *sbuf; /* unescaped string text */
    size_t scap;
    struct json_object **stk; /* an array's items until it closes */
    size_t nstk, capstk;
};

static int fail(struct jp *j, const char *what)
{
    if (j->rc == 0) {
        j->rc = MUSTER_EPROTO;
        if (j->err && j->errcap)
            snprintf(j->err, j->errcap, "offset %zu: %s", (size_t)(j->p - j->s), what);
    }
    return j->rc;
}

static int oom(struct jp *j)
{
    if (j->rc == 0) {
        j->rc = MUSTER_ENOMEM;
        if (j->err && j->errcap)
            snprintf(j->err, j->errcap, "out of memory");
    }
    return j->rc;
}

static void skip_ws(struct jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

/* A front for the shared key table: most keys of the hub's objects are a few hundred strings
 * met again and again, and the table itself takes a lock. One per thread, never freed. */
#define KEYCACHE 1024
struct keyslot {
    const char *k;
    uint32_t len;
};
static _Thread_local struct keyslot keycache[KEYCACHE];

/* The cache's slot hash, eight bytes at a time (FNV-1a's byte at a time was 4 % of the ingest,
 * docs/benchmarks.md "Session 14: ingest"); a collision only costs a look-up in the table. */
static uint64_t key_hash(const char *k, size_t len)
{
    uint64_t h = (uint64_t)len * 0x9E3779B97F4A7C15ull, w;
    for (; len >= 8; k += 8, len -= 8) {
        memcpy(&w, k, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (len) {
        w = 0;
        memcpy(&w, k, len);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

static const char *key_shared(const char *k, size_t len, uint64_t h)
{
    struct keyslot *ks = &keycache[h % KEYCACHE];
    if (ks->k && ks->len == len && memcmp(ks->k, k, len) == 0)
        return ks->k;
    if (len > 64 || memchr(k, 0, len))
        return NULL;
    char buf[65];
    memcpy(buf, k, len);
    buf[len] = 0;
    const char *shared = kube_json_key_intern(buf);
    if (shared) {
        ks->k = shared;
        ks->len = (uint32_t)len;
    }
    return shared;
}


static int hex4(struct jp *j, const char *q, unsigned *out)
{
    if (j->end - q < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = kube_hex_digit(q[i]);
        if (h < 0)
            return -1;
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return 0;
}

static int sbuf_room(struct jp *j, size_t need)
{
    if (need <= j->scap)
        return 0;
    size_t cap = j->scap ? j->scap : 256;
    while (cap < need)
        cap *= 2;
    char *b = muster_realloc(j->sbuf, cap);
    if (!b)
        return oom(j);
    j->sbuf = b;
    j->scap = cap;
    return 0;
}

/* Reads the string at j->p (its opening quote). *txt points at its text: inside the input
 * when it has no escape, else in j->sbuf. */
static int read_string(struct jp *j, const char **txt, size_t *len)
{
    const char *q = ++j->p, *e = j->end;
    q = kube_json_plain_run(q, e);
    while (q < e && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
        q++;
    if (q < e && *q == '"') {
        *txt = j->p;
        *len = (size_t)(q - j->p);
        j->p = q + 1;
        return 0;
    }
    /* escapes: unescaped into sbuf, never longer than the text up to the closing quote */
    const char *r = q;
    while (r < e && *r != '"')
        r += *r == '\\' && e - r > 1 ? 2 : 1;
    size_t done = (size_t)(q - j->p);
    if (sbuf_room(j, (size_t)(r - j->p) + 4))
        return j->rc;
    memcpy(j->sbuf, j->p, done);
    char *o = j->sbuf + done;
    while (1) {
        if (q >= e) {
            j->p = q;
            return fail(j, "unterminated string");
        }
        unsigned char c = (unsigned char)*q;
        if (c == '"')
            break;
        if (c < 0x20) {
            j->p = q;
            return fail(j, "control character in a string");
        }
        if (c != '\\') {
            *o++ = (char)c;
            q++;
            continue;
        }
        if (q + 1 >= e) {
            j->p = q;
            return fail(j, "unterminated string");
        }
        char x = q[1];
        q += 2;
        switch (x) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned u;
            if (hex4(j, q, &u)) {
                j->p = q;
                return fail(j, "bad \\u escape");
            }
            q += 4;
            if (u >= 0xD800 && u <= 0xDBFF) {
                unsigned lo;
                if (e - q >= 6 && q[0] == '\\' && q[1] == 'u' && hex4(j, q + 2, &lo) == 0 &&
                    lo >= 0xDC00 && lo <= 0xDFFF) {
                    q += 6;
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                } else {
                    u = 0xFFFD; /* a lone high surrogate */
                }
            } else if (u >= 0xDC00 && u <= 0xDFFF) {
                u = 0xFFFD; /* a lone low surrogate */
            }
            if (u < 0x80) {
                *o++ = (char)u;
            } else if (u < 0x800) {
                *o++ = (char)(0xC0 | u >> 6);
                *o++ = (char)(0x80 | (u & 0x3F));
            } else if (u < 0x10000) {
                *o++ = (char)(0xE0 | u >> 12);
                *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
                *o++ = (char)(0x80 | (u & 0x3F));
            } else {
                *o++ = (char)(0xF0 | u >> 18);
                *o++ = (char)(0x80 | ((u >> 12) & 0x3F));
                *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
                *o++ = (char)(0x80 | (u & 0x3F));
            }
            break;
        }
        default:
            j->p = q - 1;
            return fail(j, "bad escape in a string");
        }
    }
    *txt = j->sbuf;
    *len = (size_t)(o - j->sbuf);
    j->p = q + 1;
    return 0;
}

static int digits(const char **q, const char *e)
{
    const char *s = *q;
    while (*q < e && **q >= '0' && **q <= '9')
        (*q)++;
    return *q > s;
}

static int read_number(struct jp *j, struct json_object **out)
{
    const char *q = j->p, *e = j->end;
    int neg = q < e && *q == '-';
    if (neg)
        q++;
    const char *ip = q;
    if (!digits(&q, e))
        return fail(j, "bad number");
    if (*ip == '0' && q - ip > 1)
        return fail(j, "number with a leading zero");
    int is_double = 0;
    if (q < e && *q == '.') {
        q++;
        if (!digits(&q, e))
            return fail(j, "bad number");
        is_double = 1;
    }
    if (q < e && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < e && (*q == '+' || *q == '-'))
            q++;
        if (!digits(&q, e))
            return fail(j, "bad number");
        is_double = 1;
    }
    size_t len = (size_t)(q - j->p);
    if (!is_double) {
        /* beyond the range json_tokener clamps, and so does this */
        uint64_t v = 0;
        int over = 0;
        for (const char *d = ip; d < q; d++) {
            unsigned dv = (unsigned)(*d - '0');
            if (v > (UINT64_MAX - dv) / 10)
                over = 1;
            else
                v = v * 10 + dv;
        }
        if (neg) {
            *out = over || v >= (uint64_t)INT64_MAX + 1 ? json_object_new_int64(INT64_MIN)
                                                        : json_object_new_int64(-(int64_t)v);
        } else {
            *out = over ? json_object_new_uint64(UINT64_MAX)
                   : v > (uint64_t)INT64_MAX ? json_object_new_uint64(v)
                                             : json_object_new_int64((int64_t)v);
        }
    } else {
        char small[64], *t = len < sizeof small ? small : muster_malloc(len + 1);
        if (!t)
            return oom(j);
        memcpy(t, j->p, len);
        t[len] = 0;
        double d = strtod(t, NULL); /* out of range: inf or 0, the text kept, as json-c */
        *out = json_object_new_double_s(d, t);
        if (t != small)
            muster_free(t);
    }
    if (!*out)
        return oom(j);
    j->p = q;
    return 0;
}

static int literal(struct jp *j, const char *word, size_t n)
{
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return fail(j, "unexpected character");
    j->p += n;
    return 0;
}

static int push(struct jp *j, struct json_object *v)
{
    if (j->nstk == j->capstk) {
        size_t cap = j->capstk ? j->capstk * 2 : 64;
        struct json_object **s = muster_realloc(j->stk, cap * sizeof(*s));
        if (!s)
            return oom(j);
        j->stk = s;
        j->capstk = cap;
    }
    j->stk[j->nstk++] = v;
    return 0;
}

static int value(struct jp *j, int depth, struct json_object **out);

static int read_object(struct jp *j, int depth, struct json_object **out)
{
    struct json_object *o = json_object_new_object();
    if (!o)
        return oom(j);
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        *out = o;
        return 0;
    }
    while (1) {
        if (j->p >= j->end || *j->p != '"') {
            json_object_put(o);
            return fail(j, "expected a key");
        }
        const char *k;
        size_t klen;
        if (read_string(j, &k, &klen)) {
            json_object_put(o);
            return j->rc;
        }
        /* the key outlives sbuf, which the value may reuse: shared, or copied now */
        uint64_t h = key_hash(k, klen);
        const char *shared = key_shared(k, klen, h);
        char kbuf[256], *kcopy = NULL;
        if (!shared) {
            kcopy = klen < sizeof kbuf ? kbuf : muster_malloc(klen + 1);
            if (!kcopy) {
                json_object_put(o);
                return oom(j);
            }
            memcpy(kcopy, k, klen);
            kcopy[klen] = 0;
        }
        skip_ws(j);
        if (j->p >= j->end || *j->p != ':') {
            if (kcopy != kbuf)
                muster_free(kcopy);
            json_object_put(o);
            return fail(j, "expected ':'");
        }
        j->p++;
        struct json_object *v = NULL;
        int rc = value(j, depth + 1, &v);
        /* a key with a NUL cannot be a C string: json_tokener cuts it there too */
        if (rc == 0 &&
            json_object_object_add_ex(o, shared ? shared : kcopy, v,
                                      shared ? JSON_C_OBJECT_ADD_CONSTANT_KEY : 0) != 0) {
            json_object_put(v);
            rc = oom(j);
        }
        if (kcopy && kcopy != kbuf)
            muster_free(kcopy);
        if (rc) {
            json_object_put(o);
            return rc;
        }
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            skip_ws(j);
            continue;
        }
        if (j->p < j->end && *j->p == '}') {
            j->p++;
            *out = o;
            return 0;
        }
        json_object_put(o);
        return fail(j, "expected ',' or '}'");
    }
}

static int read_array(struct jp *j, int depth, struct json_object **out)
{
    size_t base = j->nstk;
    j->p++;
    skip_ws(j);
    int rc = 0;
    if (j->p < j->end && *j->p == ']') {
        j->p++;
    } else {
        while (1) {
            struct json_object *v = NULL;
            rc = value(j, depth + 1, &v);
            if (!rc && push(j, v)) {
                json_object_put(v);
                rc = j->rc;
            }
            if (rc)
                break;
            skip_ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == ']') {
                j->p++;
                break;
            }
            rc = fail(j, "expected ',' or ']'");
            break;
        }
    }
    size_t n = j->nstk - base;
    struct json_object *a = rc ? NULL : json_object_new_array_ext(n ? (int)n : 1);
    if (!rc && !a)
        rc = oom(j);
    for (size_t i = 0; i < n; i++) {
        struct json_object *v = j->stk[base + i];
        if (rc || json_object_array_add(a, v) != 0) {
            json_object_put(v);
            if (!rc)
                rc = oom(j);
        }
    }
    j->nstk = base;
    if (rc) {
        json_object_put(a);
        return rc;
    }
    *out = a;
    return 0;
}

static int value(struct jp *j, int depth, struct json_object **out)
{
    *out = NULL;
    /* json_tokener_new_ex(max_depth) refuses a value nested max_depth deep or more */
    if (depth >= j->max_depth)
        return fail(j, "nested too deep");
    skip_ws(j);
    if (j->p >= j->end)
        return fail(j, "unexpected end");
    switch (*j->p) {
    case '{':
        return read_object(j, depth, out);
    case '[':
        return read_array(j, depth, out);
    case '"': {
        const char *t;
        size_t n;
        if (read_string(j, &t, &n))
            return j->rc;
        *out = json_object_new_string_len(t, (int)n);
        return *out ? 0 : oom(j);
    }
    case 't':
        if (literal(j, "true", 4))
            return j->rc;
        *out = json_object_new_boolean(1);
        return *out ? 0 : oom(j);
    case 'f':
        if (literal(j, "false", 5))
            return j->rc;
        *out = json_object_new_boolean(0);
        return *out ? 0 : oom(j);
    case 'n':
        return literal(j, "null", 4);
    default:
        if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
            return read_number(j, out);
        return fail(j, "unexpected character");
    }
}

int kube_json_parse(const char *s, size_t n, int max_depth, struct json_object **out, char *err,
                    size_t errcap)
{
    struct jp j = {.s = s, .end = s + n, .p = s, .max_depth = max_depth > 0 ? max_depth
                                                                             : KUBE_MAX_JSON_DEPTH,
                   .err = err, .errcap = errcap};
    *out = NULL;
    if (err && errcap)
        err[0] = 0;
    if (n > INT32_MAX) /* json-c's string lengths are ints */
        return fail(&j, "text too long");
    struct json_object *v = NULL;
    int rc = value(&j, 0, &v);
    if (!rc) {
        skip_ws(&j);
        if (j.p != j.end) {
            json_object_put(v);
            v = NULL;
            rc = fail(&j, "text after the value");
        }
    }
    muster_free(j.sbuf);
    muster_free(j.stk);
    *out = v;
    return rc;
}
