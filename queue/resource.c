/* Resource name interning and sparse resource vectors (see resource.h). */
#include "queue/resource.h"

#include "queue/errors.h"
#include "queue/hash.h"
#include "queue/mem.h"

#include <string.h>

struct queue_resnames {
    char **names;    /* by id */
    uint32_t count;
    uint32_t cap;    /* of names */
    uint32_t *slots; /* open addressing: id + 1, 0 = empty */
    uint32_t nslots; /* power of two, kept at most half full */
    uint64_t refused; /* interns refused because the table was full */
};

struct queue_resnames *queue_resnames_new(void)
{
    struct queue_resnames *t = muster_calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->nslots = 64;
    t->slots = muster_calloc(t->nslots, sizeof(*t->slots));
    if (!t->slots) {
        muster_free(t);
        return NULL;
    }
    return t;
}

void queue_resnames_free(struct queue_resnames *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->count; i++)
        muster_free(t->names[i]);
    muster_free(t->names);
    muster_free(t->slots);
    muster_free(t);
}

static int is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* DNS-1123 subdomain: lowercase labels of [a-z0-9-], alnum at both ends, '.'-separated. */
static int dns_subdomain_valid(const char *s, size_t len)
{
    if (len == 0 || len > 253)
        return 0;
    size_t label = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '.') {
            if (label == 0 || s[i - 1] == '-')
                return 0;
            label = 0;
            continue;
        }
        int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        if (!ok || (label == 0 && c == '-') || ++label > 63)
            return 0;
    }
    return s[len - 1] != '-' && s[len - 1] != '.';
}

static int has_prefix(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len > n && memcmp(s, p, n) == 0;
}

/* A name without a domain is one of Kubernetes' own (kubernetes.io/ implied), as the API server
 * requires of container resources (IsStandardContainerResourceName) and nodes report: lower
 * case, from a fixed list. Anything else ("CPU", "foo") could never match what a workload asks
 * for or a cluster has; other resources are extended ones, named with their domain. */
static int standard_name(const char *s, size_t len)
{
    static const char *const names[] = {"cpu", "memory", "ephemeral-storage", "storage", "pods"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (len == strlen(names[i]) && memcmp(s, names[i], len) == 0)
            return 1;
    return has_prefix(s, len, "hugepages-") || has_prefix(s, len, "attachable-volumes-");
}

int queue_resname_valid(const char *name, size_t len)
{
    const char *slash = memchr(name, '/', len);
    const char *n = name;
    size_t nlen = len;
    if (slash) {
        if (!dns_subdomain_valid(name, (size_t)(slash - name)))
            return 0;
        n = slash + 1;
        nlen = len - (size_t)(n - name);
    } else if (!standard_name(name, len)) {
        return 0;
    }
    /* qualified-name part: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 */
    if (nlen == 0 || nlen > 63 || !is_alnum(n[0]) || !is_alnum(n[nlen - 1]))
        return 0;
    for (size_t i = 0; i < nlen; i++) {
        char c = n[i];
        if (!is_alnum(c) && c != '-' && c != '_' && c != '.')
            return 0;
    }
    return 1;
}

static uint32_t *slot_for(const struct queue_resnames *t, const char *name, size_t len)
{
    uint32_t mask = t->nslots - 1;
    uint32_t start = (uint32_t)queue_hash_fnv1a64(QUEUE_HASH_FNV64_BASIS, name, len) & mask;
    for (uint32_t i = start;; i = (i + 1) & mask) {
        uint32_t v = t->slots[i];
        if (v == 0)
            return &t->slots[i];
        const char *have = t->names[v - 1];
        if (strlen(have) == len && memcmp(have, name, len) == 0)
            return &t->slots[i];
    }
}

static int grow_slots(struct queue_resnames *t)
{
    uint32_t n = t->nslots * 2;
    uint32_t *slots = muster_calloc(n, sizeof(*slots));
    if (!slots)
        return MUSTER_ENOMEM;
    muster_free(t->slots);
    t->slots = slots;
    t->nslots = n;
    for (uint32_t id = 0; id < t->count; id++)
        *slot_for(t, t->names[id], strlen(t->names[id])) = id + 1;
    return 0;
}

int queue_resnames_find(const struct queue_resnames *t, const char *name, size_t len,
                        uint32_t *id)
{
    uint32_t v = *slot_for(t, name, len);
    if (v == 0)
        return MUSTER_ENOENT;
    *id = v - 1;
    return 0;
}

int queue_resnames_intern(struct queue_resnames *t, const char *name, size_t len, uint32_t *id)
{
    if (!queue_resname_valid(name, len))
        return MUSTER_EINVAL;
    uint32_t *slot = slot_for(t, name, len);
    if (*slot) {
        *id = *slot - 1;
        return 0;
    }
    if (t->count >= QUEUE_RESNAMES_MAX) {
        t->refused++;
        return MUSTER_ELIMIT;
    }
    /* Keep the table at most half full, or probing could find no empty slot. */
    if ((t->count + 1) * 2 > t->nslots) {
        if (grow_slots(t))
            return MUSTER_ENOMEM;
        slot = slot_for(t, name, len);
    }
    if (t->count == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 16;
        char **names = muster_realloc(t->names, cap * sizeof(*names));
        if (!names)
            return MUSTER_ENOMEM;
        t->names = names;
        t->cap = cap;
    }
    char *copy = muster_strndup(name, len);
    if (!copy)
        return MUSTER_ENOMEM;
    t->names[t->count] = copy;
    *slot = ++t->count;
    *id = t->count - 1;
    return 0;
}

const char *queue_resnames_name(const struct queue_resnames *t, uint32_t id)
{
    return id < t->count ? t->names[id] : NULL;
}

uint32_t queue_resnames_count(const struct queue_resnames *t)
{
    return t->count;
}

uint64_t queue_resnames_refused(const struct queue_resnames *t)
{
    return t->refused;
}

uint32_t queue_resnames_mark(const struct queue_resnames *t)
{
    return t->count;
}

void queue_resnames_rollback(struct queue_resnames *t, uint32_t mark)
{
    if (mark >= t->count)
        return;
    for (uint32_t id = mark; id < t->count; id++)
        muster_free(t->names[id]);
    t->count = mark;
    /* Open addressing cannot drop a key in place (it would cut probe chains): rebuild the
     * slots from the names that stay. Never allocates. */
    memset(t->slots, 0, t->nslots * sizeof(*t->slots));
    for (uint32_t id = 0; id < t->count; id++)
        *slot_for(t, t->names[id], strlen(t->names[id])) = id + 1;
}

void queue_resvec_init(struct queue_resvec *v)
{
    v->len = v->cap = 0;
    v->items = NULL;
}

void queue_resvec_borrow(struct queue_resvec *v, struct queue_res *room, uint32_t n)
{
    v->items = n ? room : NULL;
    v->len = n;
    v->cap = 0;
}

void queue_resvec_close(struct queue_resvec *v)
{
    if (v->cap) /* else borrowed, or nothing */
        muster_free(v->items);
    queue_resvec_init(v);
}

void queue_resvec_clear(struct queue_resvec *v)
{
    v->len = 0;
}

int queue_resvec_reserve(struct queue_resvec *v, uint32_t cap)
{
    if (cap <= v->cap)
        return 0;
    struct queue_res *items;
    if (!v->cap && v->items) { /* borrowed: its items move to memory of its own */
        if (cap < v->len)
            cap = v->len;
        items = muster_malloc(cap * sizeof(*items));
        if (!items)
            return MUSTER_ENOMEM;
        memcpy(items, v->items, v->len * sizeof(*items));
    } else {
        items = muster_realloc(v->items, cap * sizeof(*items));
        if (!items)
            return MUSTER_ENOMEM;
    }
    v->items = items;
    v->cap = cap;
    return 0;
}

int queue_resvec_copy(struct queue_resvec *dst, const struct queue_resvec *src)
{
    int rc = queue_resvec_reserve(dst, src->len);
    if (rc)
        return rc;
    if (src->len)
        memcpy(dst->items, src->items, src->len * sizeof(*src->items));
    dst->len = src->len;
    return 0;
}

/* Index of id, or of where it would be inserted. */
static uint32_t find_pos(const struct queue_resvec *v, uint32_t id)
{
    uint32_t lo = 0, hi = v->len;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (v->items[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int set_item(struct queue_resvec *v, uint32_t id, int64_t milli, int keep_zero)
{
    uint32_t i = find_pos(v, id);
    int present = i < v->len && v->items[i].id == id;
    if (present) {
        if (milli || keep_zero) {
            v->items[i].milli = milli;
        } else {
            memmove(&v->items[i], &v->items[i + 1], (v->len - i - 1) * sizeof(*v->items));
            v->len--;
        }
        return 0;
    }
    if (!milli && !keep_zero)
        return 0;
    if (v->len >= v->cap) { /* a borrowed vector's room is full too (cap 0) */
        int rc = queue_resvec_reserve(v, v->cap ? v->cap * 2 : v->len + 4);
        if (rc)
            return rc;
    }
    memmove(&v->items[i + 1], &v->items[i], (v->len - i) * sizeof(*v->items));
    v->items[i].id = id;
    v->items[i].milli = milli;
    v->len++;
    return 0;
}

int queue_resvec_set(struct queue_resvec *v, uint32_t id, int64_t milli)
{
    return set_item(v, id, milli, 0);
}

int queue_resvec_put(struct queue_resvec *v, uint32_t id, int64_t milli)
{
    return set_item(v, id, milli, 1);
}

int64_t queue_resvec_get(const struct queue_resvec *v, uint32_t id)
{
    uint32_t i = find_pos(v, id);
    return i < v->len && v->items[i].id == id ? v->items[i].milli : 0;
}

/* dst += sign * a. Checks every sum first so a failure changes nothing. */
static int add_signed(struct queue_resvec *dst, const struct queue_resvec *a, int sign)
{
    uint32_t missing = 0;
    for (uint32_t i = 0; i < a->len; i++) {
        int64_t have = queue_resvec_get(dst, a->items[i].id), out;
        int64_t delta = a->items[i].milli;
        if (sign < 0 ? __builtin_sub_overflow(have, delta, &out)
                     : __builtin_add_overflow(have, delta, &out))
            return MUSTER_ERANGE;
        if (have == 0)
            missing++;
    }
    if (missing && dst->len + missing > dst->cap) { /* a borrowed one changes in place */
        int rc = queue_resvec_reserve(dst, dst->len + missing);
        if (rc)
            return rc;
    }
    for (uint32_t i = 0; i < a->len; i++) {
        int64_t have = queue_resvec_get(dst, a->items[i].id);
        int64_t delta = a->items[i].milli;
        (void)queue_resvec_set(dst, a->items[i].id, sign < 0 ? have - delta : have + delta);
    }
    return 0;
}

int queue_resvec_add(struct queue_resvec *dst, const struct queue_resvec *a)
{
    return add_signed(dst, a, 1);
}

int queue_resvec_sub(struct queue_resvec *dst, const struct queue_resvec *a)
{
    return add_signed(dst, a, -1);
}

int queue_resvec_fits(const struct queue_resvec *a, const struct queue_resvec *b,
                      uint32_t *first_over)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < a->len; i++) {
        while (j < b->len && b->items[j].id < a->items[i].id)
            j++;
        int64_t have = j < b->len && b->items[j].id == a->items[i].id ? b->items[j].milli : 0;
        if (a->items[i].milli > have) {
            if (first_over)
                *first_over = a->items[i].id;
            return 0;
        }
    }
    return 1;
}

int queue_resvec_cmp(const struct queue_resvec *a, const struct queue_resvec *b)
{
    uint32_t n = a->len < b->len ? a->len : b->len;
    for (uint32_t i = 0; i < n; i++) {
        if (a->items[i].id != b->items[i].id)
            return a->items[i].id < b->items[i].id ? -1 : 1;
        if (a->items[i].milli != b->items[i].milli)
            return a->items[i].milli < b->items[i].milli ? -1 : 1;
    }
    return a->len == b->len ? 0 : (a->len < b->len ? -1 : 1);
}

uint64_t queue_resvec_hash(const struct queue_resvec *v)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ v->len;
    for (uint32_t i = 0; i < v->len; i++) {
        h ^= v->items[i].id + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h ^= (uint64_t)v->items[i].milli + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    }
    return h;
}

int queue_resvec_any_negative(const struct queue_resvec *v)
{
    for (uint32_t i = 0; i < v->len; i++)
        if (v->items[i].milli < 0)
            return 1;
    return 0;
}
