/* Frozen objects: the packing (one tag byte per value, then its payload) and the process-wide
 * tables of keys and shared values that let a cached Kubernetes object be a few hundred bytes.
 *
 * The tag's high nibble is the type and its low nibble a small number (a length, a count, a
 * table index or a small integer); 15 there means the number follows as a LEB128 varint. */
#include "cluster-adapters/kube/frozen.h"

#include "queue/hash.h"
#include "queue/mem.h"

#include <json-c/json.h>
#include <json-c/linkhash.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    F_NULL,
    F_FALSE,
    F_TRUE,
    F_INT,  /* imm < 15: that value; else a zigzag varint */
    F_DBL,  /* 8 bytes, the double's bits, little end first */
    F_STR,  /* length, then the bytes */
    F_VAL,  /* index into the value table */
    F_OBJ,  /* count, then per member a key (varint: 0 inline length + bytes, else index + 1) */
    F_ARR,  /* count, then the values */
    F_UUID, /* 16 bytes: a string that is a UUID in its canonical lowercase form (uids, ids) */
    F_TIME, /* a varint, seconds since 1970: a string "YYYY-MM-DDTHH:MM:SSZ" that reads back
               exactly so (creationTimestamp, lastTransitionTime: 22 bytes as a string) */
    F_REF,  /* imm: the index of a string the caller keeps beside the block (kube_frozen_refs:
               an informer entry's name, namespace and resourceVersion, already in its key) */
};
#define IMM_MAX 15

/* A table of strings that live as long as the process, found by content, named by index. The
 * index arrays are allocated whole on first use (only the pages written cost memory) and never
 * move, so a reader may index them without the lock: every index in a block was inserted
 * before the block was packed. */
struct strtab {
    uint32_t max, maxlen, count;
    uint32_t *slots; /* open addressing, 2 x max: index + 1, 0 empty */
    char **byid;
    uint32_t *lens;
    size_t bytes;
};
#define KEY_MAX 8192
#define KEY_LEN 64
#define VALUE_MAX 65536
#define VALUE_LEN 128
static pthread_mutex_t tab_mu = PTHREAD_MUTEX_INITIALIZER;
static struct strtab keys = {KEY_MAX, KEY_LEN, 0, NULL, NULL, NULL, 0};
static struct strtab vals = {VALUE_MAX, VALUE_LEN, 0, NULL, NULL, NULL, 0};

/* The index of s[0..len) in t, inserting it when there is room; -1 when it is not shared (too
 * long, holds a NUL, table full, out of memory). The strings come from libc, like json-c's own
 * keys, and are reachable from the table: never freed, never leaked. */
static int64_t tab_index(struct strtab *t, const char *s, size_t len, int insert)
{
    if (len == 0 || len > t->maxlen || memchr(s, 0, len))
        return -1;
    size_t cap = 2 * (size_t)t->max;
    int64_t out = -1;
    pthread_mutex_lock(&tab_mu);
    if (!t->slots) {
        t->slots = calloc(cap, sizeof(*t->slots));
        t->byid = calloc(t->max, sizeof(*t->byid));
        t->lens = calloc(t->max, sizeof(*t->lens));
        if (!t->slots || !t->byid || !t->lens) {
            free(t->slots);
            free(t->byid);
            free(t->lens);
            t->slots = NULL;
            t->byid = NULL;
            t->lens = NULL;
        }
    }
    if (t->slots) {
        size_t i = (size_t)queue_hash_fnv1a64(QUEUE_HASH_FNV64_BASIS, s, len) % cap;
        for (; t->slots[i]; i = (i + 1) % cap) {
            uint32_t id = t->slots[i] - 1;
            if (t->lens[id] == len && memcmp(t->byid[id], s, len) == 0) {
                out = id;
                break;
            }
        }
        if (out < 0 && insert && t->count < t->max) {
            char *copy = malloc(len + 1);
            if (copy) {
                memcpy(copy, s, len);
                copy[len] = 0;
                uint32_t id = t->count;
                t->byid[id] = copy;
                t->lens[id] = (uint32_t)len;
                __atomic_store_n(&t->count, id + 1, __ATOMIC_RELEASE);
                t->slots[i] = id + 1;
                t->bytes += len + 1;
                out = id;
            }
        }
    }
    pthread_mutex_unlock(&tab_mu);
    return out;
}

void kube_frozen_stats(struct kube_frozen_stats *out)
{
    pthread_mutex_lock(&tab_mu);
    out->keys = keys.count;
    out->values = vals.count;
    out->bytes =
        keys.bytes + vals.bytes +
        (keys.slots ? (size_t)keys.max * (2 * sizeof(uint32_t) + sizeof(char *) + sizeof(uint32_t))
                    : 0) +
        (vals.slots ? (size_t)vals.max * (2 * sizeof(uint32_t) + sizeof(char *) + sizeof(uint32_t))
                    : 0);
    pthread_mutex_unlock(&tab_mu);
}

int kube_frozen_key_unique(const char *k)
{
    static const char *const unique[] = {"name",
                                         "uid",
                                         "resourceVersion",
                                         "creationTimestamp",
                                         "deletionTimestamp",
                                         "lastTransitionTime",
                                         "lastScheduledTime",
                                         "generateName",
                                         "resourcebinding.karmada.io/permanent-id"};
    /* asked for every key packed or compacted: lengths first, so most keys cost no compare */
    static size_t len[sizeof(unique) / sizeof(unique[0])];
    static int have_len;
    if (!have_len) {
        for (size_t i = 0; i < sizeof(unique) / sizeof(unique[0]); i++)
            len[i] = strlen(unique[i]);
        have_len = 1; /* the same values from any thread: a race writes them twice */
    }
    size_t kl = strlen(k);
    for (size_t i = 0; i < sizeof(unique) / sizeof(unique[0]); i++)
        if (kl == len[i] && memcmp(k, unique[i], kl) == 0)
            return 1;
    return 0;
}

/* ---- packing ---- */

struct wbuf {
    uint8_t *p;
    size_t n, cap;
    int bad; /* out of memory, or over KUBE_FROZEN_SIZE_MAX (oversize) */
    int oversize;
};

static void wreserve(struct wbuf *w, size_t more)
{
    if (w->bad || w->n + more <= w->cap)
        return;
    if (w->n + more > KUBE_FROZEN_SIZE_MAX) {
        w->bad = w->oversize = 1;
        return;
    }
    size_t cap = w->cap ? w->cap : 256;
    while (cap < w->n + more)
        cap *= 2;
    uint8_t *np = muster_realloc(w->p, cap);
    if (!np) {
        w->bad = 1;
        return;
    }
    w->p = np;
    w->cap = cap;
}

static void wbytes(struct wbuf *w, const void *s, size_t len)
{
    wreserve(w, len);
    if (!w->bad) {
        memcpy(w->p + w->n, s, len);
        w->n += len;
    }
}

static void wvarint(struct wbuf *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    wbytes(w, b, n);
}

static void wtag(struct wbuf *w, unsigned type, uint64_t num)
{
    uint8_t t = (uint8_t)(type << 4 | (num < IMM_MAX ? num : IMM_MAX));
    wbytes(w, &t, 1);
    if (num >= IMM_MAX)
        wvarint(w, num);
}

int kube_uuid_pack(const char *s, size_t len, uint8_t out[16])
{
    if (len != 36)
        return -1;
    for (size_t i = 0, o = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return -1;
            continue;
        }
        int v = s[i] >= '0' && s[i] <= '9'   ? s[i] - '0'
                : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
                                             : -1;
        if (v < 0)
            return -1;
        if (o % 2 == 0)
            out[o / 2] = (uint8_t)(v << 4);
        else
            out[o / 2] |= (uint8_t)v;
        o++;
    }
    return 0;
}

void kube_uuid_text(const uint8_t in[16], char out[KUBE_UUID_TEXT])
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0, o = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            out[i] = '-';
            continue;
        }
        uint8_t byte = in[o / 2];
        out[i] = hex[o % 2 == 0 ? byte >> 4 : byte & 0x0f];
        o++;
    }
    out[36] = '\0';
}

#define TIME_LEN 20 /* "YYYY-MM-DDTHH:MM:SSZ" */

/* secs as Kubernetes writes a timestamp with second precision; 0, or -1 when it does not fit
 * the form (a year past 9999). */
static int time_text(uint64_t secs, char out[TIME_LEN + 1])
{
    if (secs > (uint64_t)INT64_MAX)
        return -1;
    time_t t = (time_t)secs;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999)
        return -1;
    char buf[80]; /* gmtime_r's fields are in range: TIME_LEN characters */
    int n = snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (n != TIME_LEN)
        return -1;
    memcpy(out, buf, TIME_LEN + 1);
    return 0;
}

/* s as seconds since 1970 when it is a timestamp in exactly the form time_text writes back
 * (so the text comes back exact); 0, else -1 (kept as it is). */
static int time_secs(const char *s, size_t len, uint64_t *out)
{
    if (len != TIME_LEN || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        s[16] != ':' || s[19] != 'Z')
        return -1;
    int f[6];
    static const uint8_t at[6] = {0, 5, 8, 11, 14, 17}, width[6] = {4, 2, 2, 2, 2, 2};
    for (int i = 0; i < 6; i++) {
        f[i] = 0;
        for (int k = 0; k < width[i]; k++) {
            char ch = s[at[i] + k];
            if (ch < '0' || ch > '9')
                return -1;
            f[i] = f[i] * 10 + (ch - '0');
        }
    }
    if (f[0] < 1970 || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23 || f[4] > 59 ||
        f[5] > 59)
        return -1;
    /* days from civil (proleptic Gregorian), as time_text's gmtime_r counts them */
    int y = f[0] - (f[1] <= 2), m = f[1];
    int64_t era = y / 400, yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + f[2] - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    int64_t secs = days * 86400 + f[3] * 3600 + f[4] * 60 + f[5];
    char back[TIME_LEN + 1];
    /* a day past its month's end (02-30) would come back as another date: kept as text */
    if (secs < 0 || time_text((uint64_t)secs, back) || memcmp(back, s, TIME_LEN) != 0)
        return -1;
    *out = (uint64_t)secs;
    return 0;
}

static void wstring(struct wbuf *w, const char *s, size_t len, int share,
                    const struct kube_frozen_refs *refs)
{
    for (unsigned i = 0; refs && i < refs->n; i++)
        if (len && refs->len[i] == len && memcmp(refs->s[i], s, len) == 0) {
            wtag(w, F_REF, i);
            return;
        }
    uint64_t secs;
    if (time_secs(s, len, &secs) == 0) {
        wtag(w, F_TIME, 0);
        wvarint(w, secs);
        return;
    }
    uint8_t u[16];
    if (kube_uuid_pack(s, len, u) == 0) {
        wtag(w, F_UUID, 0);
        wbytes(w, u, sizeof u);
        return;
    }
    int64_t id = share ? tab_index(&vals, s, len, 1) : -1;
    if (id >= 0) {
        wtag(w, F_VAL, (uint64_t)id);
        return;
    }
    wtag(w, F_STR, len);
    wbytes(w, s, len);
}

static int pack(struct wbuf *w, struct json_object *v, int share, int depth,
                const struct kube_frozen_refs *refs)
{
    if (depth > KUBE_FROZEN_DEPTH_MAX)
        return -1;
    switch (json_object_get_type(v)) {
    case json_type_null:
        wtag(w, F_NULL, 0);
        return 0;
    case json_type_boolean:
        wtag(w, json_object_get_boolean(v) ? F_TRUE : F_FALSE, 0);
        return 0;
    case json_type_int: {
        int64_t i = json_object_get_int64(v);
        if (i >= 0 && i < IMM_MAX) {
            wtag(w, F_INT, (uint64_t)i);
        } else {
            uint8_t t = F_INT << 4 | IMM_MAX;
            wbytes(w, &t, 1);
            wvarint(w, ((uint64_t)i << 1) ^ (uint64_t)(i >> 63));
        }
        return 0;
    }
    case json_type_double: {
        double d = json_object_get_double(v);
        uint64_t bits;
        uint8_t b[8];
        memcpy(&bits, &d, sizeof bits);
        for (int k = 0; k < 8; k++)
            b[k] = (uint8_t)(bits >> (8 * k));
        wtag(w, F_DBL, 0);
        wbytes(w, b, 8);
        return 0;
    }
    case json_type_string:
        wstring(w, json_object_get_string(v), (size_t)json_object_get_string_len(v), share, refs);
        return 0;
    case json_type_array: {
        size_t n = json_object_array_length(v);
        wtag(w, F_ARR, n);
        for (size_t i = 0; i < n; i++)
            if (pack(w, json_object_array_get_idx(v, i), share, depth + 1, refs))
                return -1;
        return 0;
    }
    case json_type_object: {
        wtag(w, F_OBJ, (uint64_t)json_object_object_length(v));
        json_object_object_foreach(v, k, m)
        {
            size_t kl = strlen(k);
            int64_t kid = tab_index(&keys, k, kl, 1);
            if (kid >= 0) {
                wvarint(w, (uint64_t)kid + 1);
            } else {
                wvarint(w, 0);
                wvarint(w, kl);
                wbytes(w, k, kl);
            }
            if (pack(w, m, share && !kube_frozen_key_unique(k), depth + 1, refs))
                return -1;
        }
        return 0;
    }
    }
    return -1;
}

uint8_t *kube_frozen_pack(struct json_object *v, size_t *len)
{
    return kube_frozen_pack_refs(v, NULL, len);
}

uint8_t *kube_frozen_pack_refs(struct json_object *v, const struct kube_frozen_refs *refs,
                               size_t *len)
{
    struct wbuf w = {0};
    *len = 0;
    if (pack(&w, v, 1, 0, refs) || w.bad) {
        muster_free(w.p);
        return NULL;
    }
    /* the block is kept for long: give back the doubling's slack */
    uint8_t *fit = muster_realloc(w.p, w.n ? w.n : 1);
    *len = w.n;
    return fit ? fit : w.p;
}

/* The smallest table json-c's own load factor (LH_LOAD_FACTOR, 0.66) accepts for count keys.
 * Not smaller: lh_table_resize re-inserts into the new table, which would double itself past
 * the load factor while the old table records the size asked for, and lookups would then hash
 * into the wrong size. */
static int fit_size(int count)
{
    int size = count + 1;
    while ((double)count >= (double)size * LH_LOAD_FACTOR)
        size++;
    return size;
}

void kube_frozen_fit(struct json_object *o)
{
    if (!json_object_is_type(o, json_type_object))
        return;
    struct lh_table *t = json_object_get_object(o);
    int size = fit_size(lh_table_length(t));
    if (size < t->size)
        (void)lh_table_resize(t, size); /* on failure the table stays as it was */
}

/* ---- thawing ---- */

struct rbuf {
    const uint8_t *p, *end;
};

static int rvarint(struct rbuf *r, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return -1;
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int rnum(struct rbuf *r, unsigned imm, uint64_t *out)
{
    if (imm < IMM_MAX) {
        *out = imm;
        return 0;
    }
    return rvarint(r, out);
}

/* The string a table holds at id, or NULL for an index it never gave out. */
static const char *tab_get(struct strtab *t, uint64_t id, size_t *len)
{
    if (id >= __atomic_load_n(&t->count, __ATOMIC_ACQUIRE))
        return NULL;
    *len = t->lens[id];
    return t->byid[id];
}

static struct json_object *thaw(struct rbuf *r, int depth, int *bad,
                                const struct kube_frozen_refs *refs)
{
    if (depth > KUBE_FROZEN_DEPTH_MAX || r->p >= r->end) {
        *bad = 1;
        return NULL;
    }
    uint8_t tag = *r->p++;
    unsigned type = tag >> 4, imm = tag & 0x0f;
    uint64_t n;
    switch (type) {
    case F_NULL:
        return NULL;
    case F_FALSE:
    case F_TRUE: {
        struct json_object *o = json_object_new_boolean(type == F_TRUE);
        *bad |= !o;
        return o;
    }
    case F_INT: {
        if (rnum(r, imm, &n)) {
            *bad = 1;
            return NULL;
        }
        int64_t i = imm < IMM_MAX ? (int64_t)n : (int64_t)(n >> 1) ^ -(int64_t)(n & 1);
        struct json_object *o = json_object_new_int64(i);
        *bad |= !o;
        return o;
    }
    case F_DBL: {
        if (r->end - r->p < 8) {
            *bad = 1;
            return NULL;
        }
        uint64_t bits = 0;
        for (int k = 0; k < 8; k++)
            bits |= (uint64_t)r->p[k] << (8 * k);
        r->p += 8;
        double d;
        memcpy(&d, &bits, sizeof d);
        struct json_object *o = json_object_new_double(d);
        *bad |= !o;
        return o;
    }
    case F_UUID: {
        if (r->end - r->p < 16) {
            *bad = 1;
            return NULL;
        }
        char text[KUBE_UUID_TEXT];
        kube_uuid_text(r->p, text);
        r->p += 16;
        struct json_object *o = json_object_new_string_len(text, 36);
        *bad |= !o;
        return o;
    }
    case F_TIME: {
        char text[TIME_LEN + 1];
        if (rvarint(r, &n) || time_text(n, text)) {
            *bad = 1;
            return NULL;
        }
        struct json_object *o = json_object_new_string_len(text, TIME_LEN);
        *bad |= !o;
        return o;
    }
    case F_REF: {
        /* a reference the caller did not give is damage */
        struct json_object *o = refs && imm < refs->n
                                    ? json_object_new_string_len(refs->s[imm], (int)refs->len[imm])
                                    : NULL;
        *bad |= !o;
        return o;
    }
    case F_STR:
    case F_VAL: {
        const char *s;
        size_t len;
        if (rnum(r, imm, &n)) {
            *bad = 1;
            return NULL;
        }
        if (type == F_VAL) {
            s = tab_get(&vals, n, &len);
        } else {
            s = n <= (uint64_t)(r->end - r->p) ? (const char *)r->p : NULL;
            len = (size_t)n;
            if (s)
                r->p += n;
        }
        struct json_object *o = s ? json_object_new_string_len(s, (int)len) : NULL;
        *bad |= !o;
        return o;
    }
    case F_ARR: {
        /* each element takes at least one byte: a count beyond what is left is damage */
        if (rnum(r, imm, &n) || n > (uint64_t)(r->end - r->p)) {
            *bad = 1;
            return NULL;
        }
        struct json_object *a = json_object_new_array_ext(n ? (int)n : 1);
        if (!a) {
            *bad = 1;
            return NULL;
        }
        for (uint64_t i = 0; i < n && !*bad; i++) {
            struct json_object *e = thaw(r, depth + 1, bad, refs);
            if (!*bad && json_object_array_add(a, e)) {
                json_object_put(e);
                *bad = 1;
            } else if (*bad) {
                json_object_put(e);
            }
        }
        return a;
    }
    case F_OBJ: {
        if (rnum(r, imm, &n) || n > (uint64_t)(r->end - r->p) / 2) {
            *bad = 1;
            return NULL;
        }
        struct json_object *o = json_object_new_object();
        if (!o) {
            *bad = 1;
            return NULL;
        }
        char inl[320], *heap = NULL; /* Kubernetes keys: prefix 253 + '/' + 63 */
        for (uint64_t i = 0; i < n && !*bad; i++) {
            uint64_t kid, kl = 0;
            const char *k = NULL;
            unsigned opts = 0;
            if (rvarint(r, &kid)) {
                *bad = 1;
                break;
            }
            if (kid == 0) {
                /* a key the table had no room for: json-c copies it */
                if (rvarint(r, &kl) || kl > (uint64_t)(r->end - r->p)) {
                    *bad = 1;
                    break;
                }
                char *buf = inl;
                if (kl >= sizeof inl) {
                    muster_free(heap);
                    buf = heap = muster_malloc(kl + 1);
                }
                if (!buf) {
                    *bad = 1;
                    break;
                }
                memcpy(buf, r->p, kl);
                buf[kl] = 0;
                r->p += kl;
                k = buf;
            } else {
                size_t l;
                k = tab_get(&keys, kid - 1, &l);
                opts = JSON_C_OBJECT_ADD_CONSTANT_KEY; /* the table's strings never go */
            }
            if (!k) {
                *bad = 1;
                break;
            }
            struct json_object *m = thaw(r, depth + 1, bad, refs);
            if (*bad || json_object_object_add_ex(o, k, m, opts)) {
                json_object_put(m);
                *bad = 1;
            }
        }
        muster_free(heap);
        kube_frozen_fit(o); /* a thawed tree weighs what the cached one did before */
        return o;
    }
    }
    *bad = 1;
    return NULL;
}

struct json_object *kube_frozen_thaw(const uint8_t *p, size_t len)
{
    return kube_frozen_thaw_refs(p, len, NULL);
}

struct json_object *kube_frozen_thaw_refs(const uint8_t *p, size_t len,
                                          const struct kube_frozen_refs *refs)
{
    struct rbuf r = {p, p + len};
    int bad = 0;
    struct json_object *o = thaw(&r, 0, &bad, refs);
    if (bad || r.p != r.end) {
        json_object_put(o);
        return NULL;
    }
    return o;
}
