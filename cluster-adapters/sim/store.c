/* The object store: per-resource arrays sorted by etcd key order, one resourceVersion counter,
 * an event ring that doubles as the watch history and the server's event log. */
#include "cluster-adapters/sim/store.h"

#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/selector.h"
#include "cluster-adapters/sim/status.h"
#include "cluster-adapters/kube/base64.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/json.h"
#include "queue/hash.h"
#include "queue/mem.h"
#include "queue/search.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Names longer than this are Invalid anyway (DNS subdomain: 253). */
#define SIM_KEY_MAX 512

struct entry {
    char *key; /* "namespace/name" or "name": etcd's key order, so lists page like etcd's */
    json_object *obj;
};

/* A slot of a table's hash index: an entry's key (the entry's own string) and object. */
struct slot {
    const char *key; /* NULL: empty */
    json_object *obj;
};

/* An entry of a table's label index: the label's value (owned) and the entry's key (the
 * entry's own string). */
struct lref {
    char *val;
    const char *key;
};

struct table {
    struct entry *v;
    size_t n, cap;
    /* The objects carrying INDEXED_LABEL, sorted by (value, key), so a list selecting one
     * value reads only those instead of scanning the table (the barrier's list of an RB's
     * rendered Works). lx_ok 0 once an allocation failed: lists scan again. */
    struct lref *lx;
    size_t nlx, caplx;
    int lx_ok;
    /* Exact-key reads (get, and every controller's lookups) by hash instead of a binary search
     * over keys sharing long prefixes. Linear probing, at most half full; map_ok 0 when an
     * allocation failed, and reads fall back to the sorted array. */
    struct slot *map;
    size_t nmap; /* a power of two, or 0 */
    int map_ok;
};

struct held_event {
    enum sim_event_type type;
    int64_t rv;
    size_t res;
    json_object *obj;
    json_object *prev;
    /* DELETED: the object as it was before, with its own resourceVersion. Not shown to
     * watchers; continued lists rebuild their snapshot from it. */
    json_object *before;
};

struct sim_store_watch {
    sim_store_watch_cb cb;
    void *data;
    int64_t min_rv; /* events at or below it were already replayed */
    int dead;
};

struct sim_store {
    int64_t rv;
    int64_t floor_rv;
    struct table *tables; /* one per sim_resource, by index */
    struct held_event *ring;
    size_t ring_cap;
    uint64_t total;         /* events ever appended; event seq i lives at ring[i % ring_cap] */
    uint64_t next_dispatch; /* seq of the next event to hand to watchers */
    int dispatching;
    struct sim_store_watch **watchers;
    size_t nwatchers, capwatchers;
    int has_dead;
    sim_store_admit_cb admit; /* mutating admission, or NULL */
    void *admit_data;
};

void sim_format_time(time_t t, char *buf, size_t cap)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

time_t sim_parse_time(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return (time_t)-1;
    return timegm(&tm);
}

void sim_uuid(char *buf, size_t cap)
{
    unsigned char b[16];
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        /* getrandom on Linux does not fail for 16 bytes once the pool is ready; fall back to
         * rand() rather than handing out a zero uid. */
        for (size_t i = 0; i < sizeof(b); i++)
            b[i] = (unsigned char)rand();
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(buf, cap, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

const char *sim_meta_str(json_object *obj, const char *key)
{
    return kube_json_path_str(obj, "metadata", key, NULL);
}

static json_object *meta_of(json_object *obj)
{
    return kube_json_get(obj, "metadata");
}

int sim_store_new(size_t history, struct sim_store **out)
{
    struct sim_store *s = muster_calloc(1, sizeof(*s));
    if (!s)
        return MUSTER_ENOMEM;
    s->ring_cap = history ? history : 1;
    s->tables = muster_calloc(sim_resource_count(), sizeof(*s->tables));
    s->ring = muster_calloc(s->ring_cap, sizeof(*s->ring));
    if (!s->tables || !s->ring) {
        sim_store_free(s);
        return MUSTER_ENOMEM;
    }
    for (size_t i = 0; i < sim_resource_count(); i++)
        s->tables[i].lx_ok = 1;
    /* Real clusters never start at 0 and clients must not assume small numbers. */
    s->rv = 1000;
    s->floor_rv = s->rv;
    *out = s;
    return 0;
}

void sim_store_free(struct sim_store *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->tables && i < sim_resource_count(); i++) {
        for (size_t j = 0; j < s->tables[i].n; j++) {
            muster_free(s->tables[i].v[j].key);
            json_object_put(s->tables[i].v[j].obj);
        }
        muster_free(s->tables[i].v);
        muster_free(s->tables[i].map);
        for (size_t j = 0; j < s->tables[i].nlx; j++)
            muster_free(s->tables[i].lx[j].val);
        muster_free(s->tables[i].lx);
    }
    muster_free(s->tables);
    if (s->ring) {
        uint64_t held = s->total < s->ring_cap ? s->total : s->ring_cap;
        for (uint64_t q = s->total - held; q < s->total; q++) {
            json_object_put(s->ring[q % s->ring_cap].obj);
            json_object_put(s->ring[q % s->ring_cap].prev);
            json_object_put(s->ring[q % s->ring_cap].before);
        }
    }
    muster_free(s->ring);
    for (size_t i = 0; i < s->nwatchers; i++)
        muster_free(s->watchers[i]);
    muster_free(s->watchers);
    muster_free(s);
}

int64_t sim_store_rv(const struct sim_store *s)
{
    return s->rv;
}

int64_t sim_store_floor_rv(const struct sim_store *s)
{
    return s->floor_rv;
}

/* ---- keys and tables ---- */

static int make_key(const struct sim_resource *r, const char *ns, const char *name, char *buf,
                    size_t cap)
{
    int n = r->namespaced ? snprintf(buf, cap, "%s/%s", ns ? ns : "", name)
                          : snprintf(buf, cap, "%s", name);
    return n < 0 || (size_t)n >= cap ? MUSTER_ENOSPC : 0;
}

/* Index of the first entry whose key is >= key. */
static size_t lower_bound(const struct table *t, const char *key)
{
    return queue_search_str(t->v, t->n, sizeof(*t->v), offsetof(struct entry, key), key);
}

static size_t key_hash(const char *s)
{
    return (size_t)queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, s);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t map_slot(const struct table *t, const char *key)
{
    size_t at = key_hash(key) & (t->nmap - 1);
    while (t->map[at].key && strcmp(t->map[at].key, key) != 0)
        at = (at + 1) & (t->nmap - 1);
    return at;
}

/* Rebuilds the index for at least want keys from the sorted array. */
static int map_rebuild(struct table *t, size_t want)
{
    size_t n = 64;
    while (n < 2 * want)
        n *= 2;
    struct slot *map = muster_calloc(n, sizeof(*map));
    if (!map) {
        t->map_ok = 0;
        return MUSTER_ENOMEM;
    }
    muster_free(t->map);
    t->map = map;
    t->nmap = n;
    for (size_t i = 0; i < t->n; i++)
        t->map[map_slot(t, t->v[i].key)] = (struct slot){t->v[i].key, t->v[i].obj};
    t->map_ok = 1;
    return 0;
}

/* Sets key's object in the index (key: the entry's own string), adding it when new. */
static void map_put(struct table *t, const char *key, json_object *obj)
{
    if ((!t->map_ok || 2 * (t->n + 1) > t->nmap) && map_rebuild(t, t->n + 1) < 0)
        return;
    size_t at = map_slot(t, key);
    t->map[at] = (struct slot){key, obj};
}

/* Removes key, shifting back the run after it so probes still find every key. */
static void map_del(struct table *t, const char *key)
{
    if (!t->map_ok)
        return;
    size_t at = map_slot(t, key), mask = t->nmap - 1;
    if (!t->map[at].key)
        return;
    t->map[at] = (struct slot){NULL, NULL};
    for (size_t j = (at + 1) & mask; t->map[j].key; j = (j + 1) & mask) {
        size_t home = key_hash(t->map[j].key) & mask;
        /* j's key may move into the hole unless its home lies cyclically in (at, j]. */
        if ((j > at && (home <= at || home > j)) || (j < at && home <= at && home > j)) {
            t->map[at] = t->map[j];
            t->map[j] = (struct slot){NULL, NULL};
            at = j;
        }
    }
}

/* The label kube-apiserver would not index but muster-sim does, for its own CPU: every
 * rendered Work carries it, and muster's barrier check selects one value of it. */
#define INDEXED_LABEL "resourcebinding.karmada.io/permanent-id"

static const char *indexed_value(json_object *obj)
{
    json_object *labels = NULL, *v = NULL;
    if (!json_object_object_get_ex(meta_of(obj), "labels", &labels) ||
        !json_object_object_get_ex(labels, INDEXED_LABEL, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static int lref_cmp(const char *va, const char *ka, const char *vb, const char *kb)
{
    int c = strcmp(va, vb);
    return c ? c : strcmp(ka, kb);
}

/* Index of the first ref not before (val, key). */
static size_t lx_lower_bound(const struct table *t, const char *val, const char *key)
{
    size_t lo = 0, hi = t->nlx;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lref_cmp(t->lx[mid].val, t->lx[mid].key, val, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* key's object changes from was to now (either NULL): its index entry follows the label. */
static void lx_update(struct table *t, const char *key, json_object *was, json_object *now)
{
    const char *a = was ? indexed_value(was) : NULL, *b = now ? indexed_value(now) : NULL;
    if (!t->lx_ok || (a && b && strcmp(a, b) == 0) || (!a && !b))
        return;
    if (a) {
        size_t i = lx_lower_bound(t, a, key);
        if (i < t->nlx && lref_cmp(t->lx[i].val, t->lx[i].key, a, key) == 0) {
            muster_free(t->lx[i].val);
            memmove(&t->lx[i], &t->lx[i + 1], (t->nlx - i - 1) * sizeof(*t->lx));
            t->nlx--;
        }
    }
    if (!b)
        return;
    if (t->nlx == t->caplx) {
        size_t cap = t->caplx ? t->caplx * 2 : 64;
        struct lref *v = muster_realloc(t->lx, cap * sizeof(*v));
        if (!v) {
            t->lx_ok = 0;
            return;
        }
        t->lx = v;
        t->caplx = cap;
    }
    char *val = muster_strdup(b);
    if (!val) {
        t->lx_ok = 0;
        return;
    }
    size_t i = lx_lower_bound(t, b, key);
    memmove(&t->lx[i + 1], &t->lx[i], (t->nlx - i) * sizeof(*t->lx));
    t->lx[i] = (struct lref){val, key};
    t->nlx++;
}

static struct entry *table_find(struct table *t, const char *key)
{
    size_t i = lower_bound(t, key);
    return i < t->n && strcmp(t->v[i].key, key) == 0 ? &t->v[i] : NULL;
}

/* The object stored under key, or NULL: by the hash index when it holds. */
static json_object *table_get(struct table *t, const char *key)
{
    if (t->map_ok) {
        const struct slot *sl = &t->map[map_slot(t, key)];
        return sl->key ? sl->obj : NULL;
    }
    struct entry *e = table_find(t, key);
    return e ? e->obj : NULL;
}

static int table_insert(struct table *t, const char *key, json_object *obj)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        struct entry *v = muster_realloc(t->v, cap * sizeof(*v));
        if (!v)
            return MUSTER_ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    char *k = muster_strdup(key);
    if (!k)
        return MUSTER_ENOMEM;
    size_t i = lower_bound(t, key);
    memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof(*t->v));
    t->v[i].key = k;
    t->v[i].obj = obj;
    t->n++;
    map_put(t, k, obj);
    lx_update(t, k, NULL, obj);
    return 0;
}

static void table_remove(struct table *t, struct entry *e)
{
    lx_update(t, e->key, e->obj, NULL);
    map_del(t, e->key);
    size_t i = (size_t)(e - t->v);
    muster_free(e->key);
    json_object_put(e->obj);
    memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*t->v));
    t->n--;
}

/* ---- errors, worded as kube-apiserver words them ---- */

/* "resourcebindings.work.karmada.io" or "pods". */
static void qualified_resource(const struct sim_resource *r, char *buf, size_t cap)
{
    if (r->group[0])
        snprintf(buf, cap, "%s.%s", r->plural, r->group);
    else
        snprintf(buf, cap, "%s", r->plural);
}

/* "ResourceBinding.work.karmada.io" or "Pod". */
static void qualified_kind(const struct sim_resource *r, char *buf, size_t cap)
{
    if (r->group[0])
        snprintf(buf, cap, "%s.%s", r->kind, r->group);
    else
        snprintf(buf, cap, "%s", r->kind);
}

static int fail(json_object **status, json_object *st, int code)
{
    if (status)
        *status = st;
    else
        json_object_put(st);
    return code;
}

static int not_found(const struct sim_resource *r, const char *name, json_object **status)
{
    char q[256];
    qualified_resource(r, q, sizeof(q));
    return fail(status, sim_status_newf(404, "NotFound", r, name, "%s \"%s\" not found", q, name),
                MUSTER_ENOENT);
}

static int conflict(const struct sim_resource *r, const char *name, const char *why,
                    json_object **status)
{
    char q[256];
    qualified_resource(r, q, sizeof(q));
    return fail(status,
                sim_status_newf(409, "Conflict", r, name,
                                "Operation cannot be fulfilled on %s \"%s\": %s", q, name, why),
                MUSTER_ECONFLICT);
}

static int bad_request(const char *msg, json_object **status)
{
    return fail(status, sim_status_new(400, "BadRequest", msg, NULL, NULL), MUSTER_EINVAL);
}

/* 422 with one cause; field is e.g. "metadata.name", detail "Required value: ...". */
static int invalid(const struct sim_resource *r, const char *name, const char *field,
                   const char *cause_reason, const char *detail, json_object **status)
{
    char q[256];
    qualified_kind(r, q, sizeof(q));
    json_object *st = sim_status_newf(422, "Invalid", r, name[0] ? name : NULL,
                                      "%s \"%s\" is invalid: %s: %s", q, name, field, detail);
    if (st)
        sim_status_add_cause(st, cause_reason, detail, field);
    return fail(status, st, MUSTER_EINVAL);
}

static int oom(json_object **status)
{
    return fail(status, sim_status_new(500, "InternalError", "out of memory", NULL, NULL),
                MUSTER_ENOMEM);
}

/* ---- validation ---- */

static int is_dns_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 253)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && c != '-' && c != '.')
            return 0;
        if ((i == 0 || i == n - 1) && !alnum)
            return 0;
    }
    return 1;
}

#define DNS_SUBDOMAIN_MSG                                                                          \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "  \
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

/* Checks what the API machinery checks for every object: metadata shape, string maps, and
 * object-typed spec/status (the CRD schemas all declare them objects). */
static int validate_object(const struct sim_resource *r, const char *name, json_object *obj,
                           json_object **status)
{
    json_object *meta = meta_of(obj);
    static const char *const maps[] = {"labels", "annotations"};
    for (size_t i = 0; i < 2; i++) {
        json_object *m = NULL;
        if (!json_object_object_get_ex(meta, maps[i], &m) || json_object_is_type(m, json_type_null))
            continue;
        char field[64];
        snprintf(field, sizeof(field), "metadata.%s", maps[i]);
        if (!json_object_is_type(m, json_type_object))
            return invalid(r, name, field, "FieldValueInvalid",
                           "Invalid value: must be a map of strings", status);
        json_object_object_foreach(m, k, v)
        {
            if (!json_object_is_type(v, json_type_string)) {
                char detail[512];
                snprintf(detail, sizeof(detail), "Invalid value: %s: must be a string",
                         json_object_to_json_string(v));
                snprintf(field, sizeof(field), "metadata.%s.%.40s", maps[i], k);
                return invalid(r, name, field, "FieldValueTypeInvalid", detail, status);
            }
        }
    }
    static const char *const objs[] = {"spec", "status"};
    for (size_t i = 0; i < 2; i++) {
        json_object *v = NULL;
        if (json_object_object_get_ex(obj, objs[i], &v) &&
            !json_object_is_type(v, json_type_null) && !json_object_is_type(v, json_type_object)) {
            char detail[256];
            snprintf(detail, sizeof(detail),
                     "Invalid value: \"%s\": %s in body must be of type "
                     "object: \"%s\"",
                     json_type_to_name(json_object_get_type(v)), objs[i],
                     json_type_to_name(json_object_get_type(v)));
            return invalid(r, name, objs[i], "FieldValueTypeInvalid", detail, status);
        }
    }
    return 0;
}

/* Checks and fills apiVersion and kind: a mismatch is a 400, as the decoder reports it. */
static int check_type(const struct sim_resource *r, json_object *obj, json_object **status)
{
    char av[128];
    sim_resource_api_version(r, av, sizeof(av));
    json_object *v = NULL;
    if (json_object_object_get_ex(obj, "apiVersion", &v)) {
        const char *have = json_object_get_string(v);
        if (strcmp(have, av) != 0) {
            char msg[512];
            snprintf(msg, sizeof(msg),
                     "the API version in the data (%s) does not match the expected API version "
                     "(%s)",
                     have, av);
            return bad_request(msg, status);
        }
    } else {
        json_object_object_add(obj, "apiVersion", json_object_new_string(av));
    }
    if (json_object_object_get_ex(obj, "kind", &v)) {
        if (strcmp(json_object_get_string(v), r->kind) != 0) {
            char msg[512];
            snprintf(msg, sizeof(msg),
                     "the kind in the data (%s) does not match the expected "
                     "kind (%s)",
                     json_object_get_string(v), r->kind);
            return bad_request(msg, status);
        }
    } else {
        json_object_object_add(obj, "kind", json_object_new_string(r->kind));
    }
    return 0;
}

static int64_t meta_generation(json_object *obj)
{
    json_object *g = NULL;
    return json_object_object_get_ex(meta_of(obj), "generation", &g) ? json_object_get_int64(g) : 0;
}

static void set_rv(json_object *obj, int64_t rv)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%" PRId64, rv);
    json_object_object_add(meta_of(obj), "resourceVersion", json_object_new_string(buf));
}

static void set_field(json_object *dst, const char *key, json_object *src)
{
    json_object *v = NULL;
    if (src && json_object_object_get_ex(src, key, &v))
        json_object_object_add(dst, key, json_object_get(v));
    else
        json_object_object_del(dst, key);
}

/* 1 when obj's metadata.finalizers holds at least one entry. */
static int has_finalizers(json_object *obj)
{
    json_object *f = NULL;
    json_object *meta = meta_of(obj);
    return meta && json_object_object_get_ex(meta, "finalizers", &f) &&
           json_object_is_type(f, json_type_array) && json_object_array_length(f) > 0;
}

/* 1 when a and b differ outside metadata (and outside status when it is a subresource). */
static int content_changed(const struct sim_resource *r, json_object *a, json_object *b)
{
    json_object_object_foreach(a, k, va)
    {
        if (strcmp(k, "metadata") == 0 || (r->has_status && strcmp(k, "status") == 0))
            continue;
        json_object *vb = NULL;
        if (!json_object_object_get_ex(b, k, &vb) || !json_object_equal(va, vb))
            return 1;
    }
    json_object_object_foreach(b, k2, vb2)
    {
        (void)vb2;
        if (strcmp(k2, "metadata") == 0 || (r->has_status && strcmp(k2, "status") == 0))
            continue;
        if (!json_object_object_get_ex(a, k2, NULL))
            return 1;
    }
    return 0;
}

/* The object the store keeps for obj: new top-level and metadata objects (the only levels the
 * store edits: apiVersion, kind, status, and server-owned metadata) holding references to
 * everything below them. Stored objects are never changed, so versions and events can share
 * what a write leaves alone (and so can a SIM_WRITE_SHARE caller's object): a write costs what
 * it changes, and comparing versions stops at shared values. Returns 0 or -1 (no memory). */
static int store_copy(json_object *obj, json_object **out)
{
    json_object *c = json_object_new_object();
    if (!c)
        return -1;
    json_object_object_foreach(obj, key, v)
    {
        if (strcmp(key, "metadata") == 0 && json_object_is_type(v, json_type_object)) {
            json_object *m = json_object_new_object();
            if (!m) {
                json_object_put(c);
                return -1;
            }
            json_object_object_foreach(v, mk, mv)
            {
                json_object_object_add(m, mk, json_object_get(mv));
            }
            json_object_object_add(c, key, m);
        } else {
            json_object_object_add(c, key, json_object_get(v));
        }
    }
    *out = c;
    return 0;
}

/* 1 when n changes neither the content (outside status) nor the labels of old: the only
 * admission hook there is (the Work webhook, which fills labels and the manifests) would give
 * back what is stored, so it is not run for the controllers' status reports. */
static int status_write_only(const struct sim_resource *r, json_object *n, json_object *old)
{
    json_object *la = NULL, *lb = NULL;
    json_object_object_get_ex(meta_of(n), "labels", &la);
    json_object_object_get_ex(meta_of(old), "labels", &lb);
    return r->has_status && !content_changed(r, n, old) && json_object_equal(la, lb);
}

void sim_store_set_admission(struct sim_store *s, sim_store_admit_cb cb, void *data)
{
    s->admit = cb;
    s->admit_data = data;
}

/* Runs the mutating admission hook on *obj (the store's own copy), replacing it with the
 * mutated object. Returns 0 or a negative code with *status set. */
static int admit(struct sim_store *s, const struct sim_resource *r, json_object **obj,
                 json_object **status)
{
    if (!s->admit)
        return 0;
    json_object *next = NULL;
    int rc = s->admit(s->admit_data, r, *obj, &next);
    if (rc < 0)
        return oom(status);
    if (next) {
        json_object_put(*obj);
        *obj = next;
    }
    return 0;
}

/* ---- events and watchers ---- */

static void dispatch(struct sim_store *s)
{
    if (s->dispatching)
        return;
    s->dispatching = 1;
    while (s->next_dispatch < s->total) {
        uint64_t oldest = s->total > s->ring_cap ? s->total - s->ring_cap : 0;
        if (s->next_dispatch < oldest)
            s->next_dispatch = oldest;
        struct held_event *h = &s->ring[s->next_dispatch % s->ring_cap];
        s->next_dispatch++;
        /* A callback may append enough events to evict h; hold our own reference. */
        struct sim_event ev = {h->type, h->rv, sim_resource_at(h->res), json_object_get(h->obj),
                               json_object_get(h->prev)};
        for (size_t i = 0; i < s->nwatchers; i++) {
            struct sim_store_watch *w = s->watchers[i];
            if (!w->dead && ev.rv > w->min_rv)
                w->cb(w->data, &ev);
        }
        json_object_put(ev.obj);
        json_object_put(ev.prev);
    }
    if (s->has_dead) {
        size_t j = 0;
        for (size_t i = 0; i < s->nwatchers; i++) {
            if (s->watchers[i]->dead)
                muster_free(s->watchers[i]);
            else
                s->watchers[j++] = s->watchers[i];
        }
        s->nwatchers = j;
        s->has_dead = 0;
    }
    s->dispatching = 0;
}

/* Appends an event (taking a reference to obj) and delivers it unless a delivery is already
 * running further up the stack, which will then deliver it in order. */
static void emit(struct sim_store *s, enum sim_event_type type, const struct sim_resource *r,
                 json_object *obj, json_object *prev, json_object *before)
{
    struct held_event *h = &s->ring[s->total % s->ring_cap];
    if (s->total >= s->ring_cap) {
        s->floor_rv = h->rv;
        json_object_put(h->obj);
        json_object_put(h->prev);
        json_object_put(h->before);
    }
    h->type = type;
    h->rv = s->rv;
    h->res = sim_resource_index(r);
    h->obj = json_object_get(obj);
    h->prev = json_object_get(prev);
    h->before = json_object_get(before);
    s->total++;
    dispatch(s);
}

int sim_store_watch(struct sim_store *s, int64_t since, sim_store_watch_cb cb, void *data,
                    struct sim_store_watch **out, json_object **status)
{
    if (since < s->floor_rv) {
        json_object *st = sim_status_newf(410, "Expired", NULL, NULL,
                                          "too old resource version: %" PRId64 " (%" PRId64 ")",
                                          since, s->floor_rv);
        return fail(status, st, MUSTER_EGONE);
    }
    if (s->nwatchers == s->capwatchers) {
        size_t cap = s->capwatchers ? s->capwatchers * 2 : 8;
        struct sim_store_watch **v = muster_realloc(s->watchers, cap * sizeof(*v));
        if (!v)
            return oom(status);
        s->watchers = v;
        s->capwatchers = cap;
    }
    struct sim_store_watch *w = muster_calloc(1, sizeof(*w));
    if (!w)
        return oom(status);
    w->cb = cb;
    w->data = data;
    w->min_rv = since;
    s->watchers[s->nwatchers++] = w;
    *out = w;
    /* Replay what was already delivered to others; undelivered events reach w through
     * dispatch() like everyone else. */
    uint64_t oldest = s->total > s->ring_cap ? s->total - s->ring_cap : 0;
    /* Replay counts as delivery: an unwatch from the callback only marks w dead, and writes
     * from it are delivered, in order, once the replay is over. */
    int was_dispatching = s->dispatching;
    s->dispatching = 1;
    for (uint64_t q = oldest; q < s->next_dispatch && !w->dead; q++) {
        struct held_event *h = &s->ring[q % s->ring_cap];
        if (h->rv <= w->min_rv)
            continue;
        struct sim_event ev = {h->type, h->rv, sim_resource_at(h->res), json_object_get(h->obj),
                               json_object_get(h->prev)};
        w->min_rv = h->rv;
        cb(data, &ev);
        json_object_put(ev.obj);
        json_object_put(ev.prev);
    }
    s->dispatching = was_dispatching;
    dispatch(s);
    return 0;
}

void sim_store_unwatch(struct sim_store *s, struct sim_store_watch *w)
{
    if (!w)
        return;
    if (s->dispatching) {
        w->dead = 1;
        s->has_dead = 1;
        return;
    }
    for (size_t i = 0; i < s->nwatchers; i++) {
        if (s->watchers[i] == w) {
            memmove(&s->watchers[i], &s->watchers[i + 1],
                    (s->nwatchers - i - 1) * sizeof(*s->watchers));
            s->nwatchers--;
            break;
        }
    }
    muster_free(w);
}

int sim_store_event_log(struct sim_store *s, int64_t since, json_object **out)
{
    json_object *log = json_object_new_object();
    json_object *items = json_object_new_array();
    if (!log || !items) {
        json_object_put(log);
        json_object_put(items);
        return MUSTER_ENOMEM;
    }
    static const char *const names[] = {"ADDED", "MODIFIED", "DELETED"};
    uint64_t oldest = s->total > s->ring_cap ? s->total - s->ring_cap : 0;
    for (uint64_t q = oldest; q < s->total; q++) {
        struct held_event *h = &s->ring[q % s->ring_cap];
        if (h->rv <= since)
            continue;
        const struct sim_resource *r = sim_resource_at(h->res);
        json_object *e = json_object_new_object();
        char rv[32];
        snprintf(rv, sizeof(rv), "%" PRId64, h->rv);
        json_object_object_add(e, "type", json_object_new_string(names[h->type]));
        json_object_object_add(e, "resourceVersion", json_object_new_string(rv));
        json_object_object_add(e, "group", json_object_new_string(r->group));
        json_object_object_add(e, "resource", json_object_new_string(r->plural));
        const char *ns = sim_meta_str(h->obj, "namespace");
        json_object_object_add(e, "namespace", json_object_new_string(ns ? ns : ""));
        json_object_object_add(e, "name", json_object_new_string(sim_meta_str(h->obj, "name")));
        json_object_array_add(items, e);
    }
    char buf[32];
    snprintf(buf, sizeof(buf), "%" PRId64, s->floor_rv);
    json_object_object_add(log, "floor", json_object_new_string(buf));
    snprintf(buf, sizeof(buf), "%" PRId64, s->rv);
    json_object_object_add(log, "latest", json_object_new_string(buf));
    size_t live = 0;
    for (size_t i = 0; i < s->nwatchers; i++)
        live += !s->watchers[i]->dead;
    json_object_object_add(log, "watchers", json_object_new_int64((int64_t)live));
    json_object_object_add(log, "items", items);
    *out = log;
    return 0;
}

void sim_store_each(struct sim_store *s, const struct sim_resource *r,
                    void (*cb)(void *data, json_object *obj), void *data)
{
    struct table *t = &s->tables[sim_resource_index(r)];
    /* Snapshot the references: cb may write to the store and move the array. */
    size_t n = t->n;
    json_object **objs = muster_malloc(n * sizeof(*objs));
    if (!objs)
        return;
    for (size_t i = 0; i < n; i++)
        objs[i] = json_object_get(t->v[i].obj);
    for (size_t i = 0; i < n; i++) {
        cb(data, objs[i]);
        json_object_put(objs[i]);
    }
    muster_free(objs);
}

/* ---- verbs ---- */

static const char name_chars[] = "bcdfghjklmnpqrstvwxz2456789";

int sim_store_create(struct sim_store *s, const struct sim_resource *r, const char *ns,
                     json_object *obj, time_t now, int flags, json_object **out,
                     json_object **status)
{
    if (!obj || !json_object_is_type(obj, json_type_object))
        return bad_request("the body of the request was not a JSON object", status);
    if (r->namespaced && (!ns || !ns[0]))
        return bad_request("the server could not find the requested resource: a namespace is "
                           "required for namespaced resources",
                           status);
    json_object *meta = meta_of(obj);
    if (meta && !json_object_is_type(meta, json_type_object))
        return bad_request("metadata must be an object", status);
    const char *name = sim_meta_str(obj, "name");
    const char *gen = sim_meta_str(obj, "generateName");
    char namebuf[300];
    if (!name || !name[0]) {
        if (!gen || !gen[0])
            return invalid(r, "", "metadata.name", "FieldValueRequired",
                           "Required value: name or generateName is required", status);
        /* generateName: the prefix (cut to leave room) plus five random characters, retried
         * on a clash as kube-apiserver does since RetryGenerateName (1.32: up to 8 tries). */
        size_t plen = strlen(gen);
        if (plen > 58)
            plen = 58;
        memcpy(namebuf, gen, plen);
        struct table *gt = &s->tables[sim_resource_index(r)];
        for (int attempt = 0; attempt < 8; attempt++) {
            unsigned char rnd[5];
            if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
                memset(rnd, attempt, sizeof(rnd));
            for (size_t i = 0; i < 5; i++)
                namebuf[plen + i] = name_chars[rnd[i] % (sizeof(name_chars) - 1)];
            namebuf[plen + 5] = '\0';
            char probe[SIM_KEY_MAX];
            if (make_key(r, ns, namebuf, probe, sizeof(probe)) < 0 || !table_get(gt, probe))
                break;
        }
        name = namebuf;
    }
    if (!is_dns_subdomain(name)) {
        char detail[1024];
        snprintf(detail, sizeof(detail), "Invalid value: \"%.300s\": %s", name, DNS_SUBDOMAIN_MSG);
        return invalid(r, name, "metadata.name", "FieldValueInvalid", detail, status);
    }
    const char *body_ns = sim_meta_str(obj, "namespace");
    if (r->namespaced && body_ns && body_ns[0] && strcmp(body_ns, ns) != 0)
        return bad_request("the namespace of the provided object does not match the namespace "
                           "sent on the request",
                           status);
    char key[SIM_KEY_MAX];
    if (make_key(r, ns, name, key, sizeof(key)) < 0)
        return invalid(r, name, "metadata.name", "FieldValueTooLong", "Too long", status);
    struct table *t = &s->tables[sim_resource_index(r)];
    if (table_get(t, key)) {
        char q[256];
        qualified_resource(r, q, sizeof(q));
        return fail(
            status,
            sim_status_newf(409, "AlreadyExists", r, name, "%s \"%s\" already exists", q, name),
            MUSTER_EEXIST);
    }

    json_object *o = NULL;
    if ((flags & SIM_WRITE_SHARE ? store_copy(obj, &o) : json_object_deep_copy(obj, &o, NULL)) != 0)
        return oom(status);
    int rc = check_type(r, o, status);
    if (rc == 0)
        rc = admit(s, r, &o, status);
    if (rc == 0 && !meta_of(o))
        json_object_object_add(o, "metadata", json_object_new_object());
    if (rc == 0)
        rc = validate_object(r, name, o, status);
    if (rc < 0) {
        json_object_put(o);
        return rc;
    }
    meta = meta_of(o);
    json_object_object_add(meta, "name", json_object_new_string(name));
    if (r->namespaced)
        json_object_object_add(meta, "namespace", json_object_new_string(ns));
    else
        json_object_object_del(meta, "namespace");
    char uid[40], ts[32];
    sim_uuid(uid, sizeof(uid));
    sim_format_time(now, ts, sizeof(ts));
    json_object_object_add(meta, "uid", json_object_new_string(uid));
    json_object_object_add(meta, "creationTimestamp", json_object_new_string(ts));
    json_object_object_del(meta, "deletionTimestamp");
    json_object_object_del(meta, "deletionGracePeriodSeconds");
    json_object_object_del(meta, "selfLink");
    json_object_object_del(meta, "managedFields");
    if (r->has_generation)
        json_object_object_add(meta, "generation", json_object_new_int64(1));
    else
        json_object_object_del(meta, "generation");
    if (r->has_status && !(flags & SIM_WRITE_INTERNAL))
        json_object_object_del(o, "status");
    if (flags & SIM_WRITE_DRY_RUN) {
        /* What would be stored, without a resourceVersion: nothing was. */
        if (out)
            *out = o;
        else
            json_object_put(o);
        return 0;
    }
    int64_t rv = s->rv + 1;
    set_rv(o, rv);
    if (table_insert(t, key, o) < 0) {
        json_object_put(o);
        return oom(status);
    }
    s->rv = rv;
    if (out)
        *out = json_object_get(o);
    emit(s, SIM_EVENT_ADDED, r, o, NULL, NULL);
    return 0;
}

int sim_store_get(struct sim_store *s, const struct sim_resource *r, const char *ns,
                  const char *name, json_object **out, json_object **status)
{
    char key[SIM_KEY_MAX];
    json_object *obj = NULL;
    if (make_key(r, ns, name, key, sizeof(key)) == 0)
        obj = table_get(&s->tables[sim_resource_index(r)], key);
    if (!obj)
        return not_found(r, name, status);
    if (out)
        *out = json_object_get(obj);
    return 0;
}

/* e's object becomes n (taken) at the next resourceVersion: the indexes follow and watchers get
 * MODIFIED with the old object. *out (when not NULL) gets a reference to n. */
static void replace_entry(struct sim_store *s, struct table *t, const struct sim_resource *r,
                          struct entry *e, json_object *n, json_object **out)
{
    s->rv++;
    set_rv(n, s->rv);
    json_object *old = e->obj;
    lx_update(t, e->key, old, n);
    e->obj = n;
    map_put(t, e->key, n);
    if (out)
        *out = json_object_get(n);
    emit(s, SIM_EVENT_MODIFIED, r, n, old, NULL);
    json_object_put(old);
}

int sim_store_update(struct sim_store *s, const struct sim_resource *r, const char *ns,
                     const char *name, json_object *obj, int flags, json_object **out,
                     json_object **status)
{
    if (!obj || !json_object_is_type(obj, json_type_object))
        return bad_request("the body of the request was not a JSON object", status);
    json_object *bmeta = meta_of(obj);
    if (bmeta && !json_object_is_type(bmeta, json_type_object))
        return bad_request("metadata must be an object", status);
    char key[SIM_KEY_MAX];
    struct table *t = &s->tables[sim_resource_index(r)];
    struct entry *e = NULL;
    if (make_key(r, ns, name, key, sizeof(key)) == 0)
        e = table_find(t, key);
    if (!e)
        return not_found(r, name, status);
    const char *bname = sim_meta_str(obj, "name");
    if (bname && bname[0] && strcmp(bname, name) != 0) {
        char msg[700];
        snprintf(msg, sizeof(msg),
                 "the name of the object (%.300s) does not match the name on the URL (%.300s)",
                 bname, name);
        return bad_request(msg, status);
    }
    const char *bns = sim_meta_str(obj, "namespace");
    if (r->namespaced && bns && bns[0] && strcmp(bns, ns) != 0)
        return bad_request("the namespace of the provided object does not match the namespace "
                           "sent on the request",
                           status);
    const char *brv = sim_meta_str(obj, "resourceVersion");
    const char *orv = sim_meta_str(e->obj, "resourceVersion");
    if (brv && brv[0] && strcmp(brv, orv) != 0)
        return conflict(r, name,
                        "the object has been modified; please apply your changes to the latest "
                        "version and try again",
                        status);

    json_object *n = NULL;
    int rc;
    if (flags & SIM_WRITE_STATUS) {
        /* ResetObjectMetaForStatus: a status write changes status and nothing else. */
        rc = store_copy(e->obj, &n);
        if (rc == 0) {
            json_object *st = NULL;
            if (json_object_object_get_ex(obj, "status", &st) &&
                !json_object_is_type(st, json_type_null)) {
                json_object *copy = NULL;
                if (flags & SIM_WRITE_SHARE)
                    copy = json_object_get(st);
                else
                    rc = json_object_deep_copy(st, &copy, NULL);
                if (rc == 0)
                    json_object_object_add(n, "status", copy);
            } else {
                json_object_object_del(n, "status");
            }
        }
    } else {
        rc = flags & SIM_WRITE_SHARE ? store_copy(obj, &n) : json_object_deep_copy(obj, &n, NULL);
        if (rc == 0 && r->has_status && !(flags & SIM_WRITE_INTERNAL))
            set_field(n, "status", e->obj);
    }
    if (rc != 0) {
        json_object_put(n);
        return oom(status);
    }
    rc = check_type(r, n, status);
    /* Webhooks register for the resource, not its status: a write that leaves everything but
     * status as it was (the controllers' reports) is not sent. */
    if (rc == 0 && !(flags & SIM_WRITE_STATUS) && !status_write_only(r, n, e->obj))
        rc = admit(s, r, &n, status);
    if (rc == 0 && !meta_of(n))
        json_object_object_add(n, "metadata", json_object_new_object());
    if (rc == 0)
        rc = validate_object(r, name, n, status);
    if (rc < 0) {
        json_object_put(n);
        return rc;
    }
    json_object *nmeta = meta_of(n), *ometa = meta_of(e->obj);
    /* Server-owned metadata is never taken from the client. */
    static const char *const owned[] = {"name",       "namespace",         "uid",
                                        "generation", "creationTimestamp", "deletionTimestamp",
                                        "selfLink",   "resourceVersion"};
    for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        set_field(nmeta, owned[i], ometa);
    json_object_object_del(nmeta, "managedFields");

    if (json_object_equal(n, e->obj)) {
        /* etcd's GuaranteedUpdate skips identical writes: no new resourceVersion, no event. */
        json_object_put(n);
        if (out)
            *out = json_object_get(e->obj);
        return 0;
    }
    if (sim_meta_str(e->obj, "deletionTimestamp") && !has_finalizers(n) &&
        !(flags & SIM_WRITE_DRY_RUN)) {
        /* The last finalizer is gone: the registry deletes the object instead of updating it
         * (shouldDeleteDuringUpdate), so watchers see one DELETED with this final state. */
        int64_t drv = s->rv + 1;
        set_rv(n, drv);
        s->rv = drv;
        json_object *before = json_object_get(e->obj);
        table_remove(t, e);
        if (out)
            *out = json_object_get(n);
        emit(s, SIM_EVENT_DELETED, r, n, NULL, before);
        json_object_put(before);
        json_object_put(n);
        return 0;
    }
    if (r->has_generation && content_changed(r, n, e->obj))
        json_object_object_add(nmeta, "generation",
                               json_object_new_int64(meta_generation(e->obj) + 1));
    if (flags & SIM_WRITE_DRY_RUN) {
        if (out)
            *out = n;
        else
            json_object_put(n);
        return 0;
    }
    replace_entry(s, t, r, e, n, out);
    return 0;
}

int sim_store_delete(struct sim_store *s, const struct sim_resource *r, const char *ns,
                     const char *name, const char *precond_uid, const char *precond_rv, time_t now,
                     json_object **out, json_object **status)
{
    char key[SIM_KEY_MAX];
    struct table *t = &s->tables[sim_resource_index(r)];
    struct entry *e = NULL;
    if (make_key(r, ns, name, key, sizeof(key)) == 0)
        e = table_find(t, key);
    if (!e)
        return not_found(r, name, status);
    const char *uid = sim_meta_str(e->obj, "uid");
    const char *orv = sim_meta_str(e->obj, "resourceVersion");
    char why[256];
    if (precond_uid && precond_uid[0] && strcmp(precond_uid, uid) != 0) {
        snprintf(why, sizeof(why),
                 "Precondition failed: UID in precondition: %.60s, UID in "
                 "object meta: %.60s",
                 precond_uid, uid);
        return conflict(r, name, why, status);
    }
    if (precond_rv && precond_rv[0] && strcmp(precond_rv, orv) != 0) {
        snprintf(why, sizeof(why),
                 "Precondition failed: ResourceVersion in precondition: %.30s, "
                 "ResourceVersion in object meta: %.30s",
                 precond_rv, orv);
        return conflict(r, name, why, status);
    }
    if (has_finalizers(e->obj)) {
        /* Graceful deletion: the object stays, marked, until an update empties its
         * finalizers (the controllers that own them clean up first). Deleting it again
         * changes nothing. */
        if (sim_meta_str(e->obj, "deletionTimestamp")) {
            if (out)
                *out = json_object_get(e->obj);
            return 0;
        }
        json_object *n = NULL;
        if (store_copy(e->obj, &n) != 0)
            return oom(status);
        char ts[32];
        sim_format_time(now, ts, sizeof(ts));
        json_object *nmeta = meta_of(n);
        json_object_object_add(nmeta, "deletionTimestamp", json_object_new_string(ts));
        json_object_object_add(nmeta, "deletionGracePeriodSeconds", json_object_new_int(0));
        /* rest.BeforeDelete: a generation, when the object has one, is bumped. */
        if (meta_generation(e->obj) > 0)
            json_object_object_add(nmeta, "generation",
                                   json_object_new_int64(meta_generation(e->obj) + 1));
        replace_entry(s, t, r, e, n, out);
        return 0;
    }
    json_object *gone = NULL;
    if (store_copy(e->obj, &gone) != 0)
        return oom(status);
    int64_t rv = s->rv + 1;
    set_rv(gone, rv);
    if (out)
        *out = json_object_get(e->obj);
    json_object *before = json_object_get(e->obj);
    table_remove(t, e);
    s->rv = rv;
    emit(s, SIM_EVENT_DELETED, r, gone, NULL, before);
    json_object_put(before);
    json_object_put(gone);
    return 0;
}

/* ---- list and continue tokens ---- */

static int encode_continue(int64_t rv, const char *start_key, char *out, size_t cap)
{
    json_object *tok = json_object_new_object();
    json_object_object_add(tok, "v", json_object_new_string("meta.k8s.io/v1"));
    json_object_object_add(tok, "rv", json_object_new_int64(rv));
    /* The apiserver's "start" is the next key to read: the last key plus a NUL byte. */
    size_t klen = strlen(start_key);
    char *start = muster_malloc(klen + 2);
    if (!start) {
        json_object_put(tok);
        return MUSTER_ENOMEM;
    }
    memcpy(start, start_key, klen);
    start[klen] = '\0';
    json_object_object_add(tok, "start", json_object_new_string_len(start, (int)klen + 1));
    muster_free(start);
    const char *js = json_object_to_json_string_ext(tok, JSON_C_TO_STRING_PLAIN);
    /* base64.RawURLEncoding, as the apiserver encodes continue tokens */
    int n = kube_base64url_encode((const unsigned char *)js, strlen(js), out, cap);
    json_object_put(tok);
    return n < 0 ? n : 0;
}

/* Decodes a continue token into its rv and start key (without the trailing NUL). */
static int decode_continue(const char *cont, int64_t *rv, char *start, size_t cap)
{
    unsigned char raw[2 * SIM_KEY_MAX];
    size_t n = 0;
    if (kube_base64url_decode(cont, raw, sizeof(raw), &n) < 0)
        return MUSTER_EINVAL;
    json_object *tok = json_tokener_parse((const char *)raw);
    json_object *v = NULL, *jrv = NULL, *js = NULL;
    int ok = tok && json_object_object_get_ex(tok, "v", &v) &&
             strcmp(json_object_get_string(v), "meta.k8s.io/v1") == 0 &&
             json_object_object_get_ex(tok, "rv", &jrv) &&
             json_object_object_get_ex(tok, "start", &js);
    if (ok) {
        *rv = json_object_get_int64(jrv);
        size_t len = (size_t)json_object_get_string_len(js);
        const char *sv = json_object_get_string(js);
        if (len > 0 && sv[len - 1] == '\0')
            len--;
        if (len >= cap || *rv <= 0)
            ok = 0;
        else {
            memcpy(start, sv, len);
            start[len] = '\0';
        }
    }
    json_object_put(tok);
    return ok ? 0 : MUSTER_EINVAL;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

/* The entries of r after `start` (within prefix) as they were at list_rv, in key order, so
 * that every page of a list shows one snapshot, as etcd serves pages at the first page's
 * revision. Every event after list_rv is still held (the caller checked the floor): the first
 * one of each key gives its state then (ADDED: none; MODIFIED: prev; DELETED: before). *out
 * borrows keys and objects from the table and from *touched, which the caller puts after. */
static int snapshot_after(struct sim_store *s, const struct sim_resource *r, int64_t list_rv,
                          const char *start, const char *prefix, struct entry **out, size_t *n,
                          json_object **touched)
{
    struct table *t = &s->tables[sim_resource_index(r)];
    json_object *then = json_object_new_object(); /* key -> state at list_rv, or null */
    if (!then)
        return MUSTER_ENOMEM;
    uint64_t oldest = s->total > s->ring_cap ? s->total - s->ring_cap : 0;
    for (uint64_t q = oldest; q < s->total; q++) {
        struct held_event *h = &s->ring[q % s->ring_cap];
        char key[SIM_KEY_MAX];
        if (h->rv <= list_rv || h->res != sim_resource_index(r) ||
            make_key(r, sim_meta_str(h->obj, "namespace"), sim_meta_str(h->obj, "name"), key,
                     sizeof(key)) < 0 ||
            json_object_object_get_ex(then, key, NULL))
            continue;
        json_object *was = h->type == SIM_EVENT_MODIFIED  ? h->prev
                           : h->type == SIM_EVENT_DELETED ? h->before
                                                          : NULL;
        json_object_object_add(then, key, json_object_get(was));
    }
    size_t plen = strlen(prefix), cap = t->n + (size_t)json_object_object_length(then) + 1;
    struct entry *v = muster_malloc(cap * sizeof(*v));
    if (!v) {
        json_object_put(then);
        return MUSTER_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = lower_bound(t, start); i < t->n; i++) {
        if (strcmp(t->v[i].key, start) > 0 && !json_object_object_get_ex(then, t->v[i].key, NULL))
            v[k++] = t->v[i];
    }
    json_object_object_foreach(then, key, was)
    {
        if (was && strcmp(key, start) > 0 && strncmp(key, prefix, plen) == 0)
            v[k++] = (struct entry){key, was};
    }
    qsort(v, k, sizeof(*v), entry_cmp);
    *out = v;
    *n = k;
    *touched = then;
    return 0;
}

int sim_store_list(struct sim_store *s, const struct sim_resource *r, const char *ns,
                   const struct sim_list_opts *opts, json_object **out, json_object **status)
{
    struct table *t = &s->tables[sim_resource_index(r)];
    int64_t list_rv = s->rv;
    size_t i = 0;
    struct entry *view = t->v, *snap = NULL; /* what the pages walk */
    size_t nview = t->n;
    json_object *touched = NULL;
    char prefix[SIM_KEY_MAX] = "";
    if (r->namespaced && ns && ns[0])
        snprintf(prefix, sizeof(prefix), "%s/", ns);
    size_t plen = strlen(prefix);
    if (opts && opts->cont && opts->cont[0]) {
        char start[SIM_KEY_MAX];
        if (decode_continue(opts->cont, &list_rv, start, sizeof(start)) < 0)
            return bad_request("continue key is not valid: incorrect encoded start "
                               "resourceVersion (version meta.k8s.io/v1)",
                               status);
        if (list_rv < s->floor_rv)
            return fail(status,
                        sim_status_new(410, "Expired",
                                       "The provided continue parameter is too old to display a "
                                       "consistent list result. You can start a new list without "
                                       "the continue parameter, or use the continue token in "
                                       "this response to retrieve the remainder of the results. "
                                       "Continuing with the provided token results in an "
                                       "inconsistent list - objects that were created, modified, "
                                       "or deleted between the time the first chunk was returned "
                                       "and now may show up in the list.",
                                       NULL, NULL),
                        MUSTER_EGONE);
        /* Keys after start: lower_bound of start, skipping start itself. */
        i = lower_bound(t, start);
        if (i < t->n && strcmp(t->v[i].key, start) == 0)
            i++;
        if (plen && strncmp(start, prefix, plen) != 0)
            return bad_request("continue key is not valid: the token does not belong to this "
                               "namespace",
                               status);
        if (list_rv < s->rv) {
            if (snapshot_after(s, r, list_rv, start, prefix, &snap, &nview, &touched) < 0)
                return oom(status);
            view = snap;
            i = 0;
        }
    } else if (plen) {
        i = lower_bound(t, prefix);
    }
    /* One value of the indexed label, unpaged: only the objects carrying it are read, in key
     * order as the scan would give them. */
    const char *want = opts && !(opts->cont && opts->cont[0]) && opts->limit <= 0 && t->lx_ok
                           ? sim_selector_equals(opts->labels, INDEXED_LABEL)
                           : NULL;
    if (want) {
        size_t from = lx_lower_bound(t, want, ""), to = from;
        while (to < t->nlx && strcmp(t->lx[to].val, want) == 0)
            to++;
        snap = muster_malloc((to - from + 1) * sizeof(*snap));
        if (!snap)
            return oom(status);
        nview = 0;
        for (size_t k = from; k < to; k++)
            if (!plen || strncmp(t->lx[k].key, prefix, plen) == 0)
                snap[nview++] = (struct entry){(char *)t->lx[k].key, table_get(t, t->lx[k].key)};
        view = snap;
        i = 0;
    }
    json_object *list = json_object_new_object();
    json_object *items = json_object_new_array();
    if (!list || !items) {
        json_object_put(list);
        json_object_put(items);
        muster_free(snap);
        json_object_put(touched);
        return oom(status);
    }
    char av[128];
    sim_resource_api_version(r, av, sizeof(av));
    long limit = opts ? opts->limit : 0;
    long taken = 0;
    const char *last_key = NULL;
    long remaining = 0;
    int more = 0;
    for (; i < nview; i++) {
        if (plen && strncmp(view[i].key, prefix, plen) != 0)
            break;
        json_object *o = view[i].obj;
        if (opts &&
            (!sim_selector_matches(opts->labels, o) || !sim_selector_matches(opts->fields, o)))
            continue;
        if (limit > 0 && taken == limit) {
            more = 1;
            remaining++;
            continue;
        }
        json_object_array_add(items, json_object_get(o));
        last_key = view[i].key;
        taken++;
    }
    json_object *meta = json_object_new_object();
    char buf[4 * SIM_KEY_MAX];
    snprintf(buf, sizeof(buf), "%" PRId64, list_rv);
    json_object_object_add(meta, "resourceVersion", json_object_new_string(buf));
    int rc = more && last_key ? encode_continue(list_rv, last_key, buf, sizeof(buf)) : 0;
    muster_free(snap);
    json_object_put(touched);
    if (rc < 0) {
        json_object_put(meta);
        json_object_put(items);
        json_object_put(list);
        return oom(status);
    }
    if (more && last_key) {
        json_object_object_add(meta, "continue", json_object_new_string(buf));
        /* Like the apiserver: a count only when no selector filters the rest. */
        if (!sim_selector_count(opts->labels) && !sim_selector_count(opts->fields))
            json_object_object_add(meta, "remainingItemCount", json_object_new_int64(remaining));
    }
    json_object_object_add(list, "apiVersion", json_object_new_string(av));
    json_object_object_add(list, "items", items);
    json_object_object_add(list, "kind", json_object_new_string(r->list_kind));
    json_object_object_add(list, "metadata", meta);
    *out = list;
    return 0;
}
