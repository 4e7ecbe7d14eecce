/* The informer cache: a chained hash of namespace/name to the latest object, kept in step
 * with a reflector; relists are diffed against it so each change is reported exactly once. */
#include "cluster-adapters/kube/informer.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/frozen.h"
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/jsonparse.h"
#include "queue/hash.h"
#include "queue/mem.h"

#include <json-c/linkhash.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An entry holds its object as a tree (rvoff 0: every entry of an informer that is not frozen,
 * and one a frozen informer could not pack), one reference in the pointer just before the entry
 * (tree_slot), or packed, its thawed tree (until the next trim) in the informer's thaw table:
 * a pointer and an index in every packed entry, NULL but for the few thawed, were 12 bytes of
 * each of a million pending RBs and of their templates (issue 22). */
struct kube_informer_entry {
    struct kube_informer_entry *next;
    unsigned gen;
    uint32_t hash;  /* of key, for the buckets */
    uint32_t blen;  /* frozen: the packed object's length */
    uint16_t rvoff; /* frozen: where its resourceVersion starts in key[] */
    char key[];     /* "namespace/name", or "name" when cluster-scoped; frozen: then NUL, the
                       resourceVersion, NUL, and the packed object (kube/frozen.h) */
};
/* what an entry takes before its key: sizeof would add the struct's tail padding (6 bytes of
 * every cached object) */
#define ENTRY_HDR offsetof(struct kube_informer_entry, key)

#define KEY_MAX 512 /* namespace (63) + name (253) fit with room to spare */

static uint32_t hash_key(const char *s)
{
    uint64_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, s);
    return (uint32_t)(h ^ (h >> 32));
}

static int make_key(const char *ns, const char *name, char *out, size_t cap)
{
    int n = ns && *ns ? snprintf(out, cap, "%s/%s", ns, name) : snprintf(out, cap, "%s", name);
    return n < 0 || (size_t)n >= cap ? MUSTER_ELIMIT : 0;
}

static int obj_key(struct json_object *obj, char *out, size_t cap)
{
    struct json_object *md = kube_json_obj(obj, "metadata");
    const char *name = kube_json_str(md, "name");
    if (!name)
        return MUSTER_EPROTO;
    return make_key(kube_json_str(md, "namespace"), name, out, cap);
}

static const char *obj_rv(struct json_object *obj)
{
    const char *rv = kube_json_path_str(obj, "metadata", "resourceVersion", NULL);
    return rv ? rv : "";
}

static struct kube_informer_entry **find_slot(const struct kube_informer *inf, const char *key,
                                              uint32_t h)
{
    struct kube_informer_entry **pp = &inf->buckets[h % inf->nbuckets];
    while (*pp && ((*pp)->hash != h || strcmp((*pp)->key, key) != 0))
        pp = &(*pp)->next;
    return pp;
}

static int grow(struct kube_informer *inf)
{
    size_t nb = inf->nbuckets * 2;
    struct kube_informer_entry **b = muster_calloc(nb, sizeof(*b));
    if (!b)
        return MUSTER_ENOMEM;
    for (size_t i = 0; i < inf->nbuckets; i++) {
        struct kube_informer_entry *e = inf->buckets[i], *next;
        for (; e; e = next) {
            next = e->next;
            e->next = b[e->hash % nb];
            b[e->hash % nb] = e;
        }
    }
    muster_free(inf->buckets);
    inf->buckets = b;
    inf->nbuckets = nb;
    return 0;
}

static void report(struct kube_informer *inf, int err, const char *msg)
{
    if (!inf->h.on_error)
        return;
    struct kube_status st;
    memset(&st, 0, sizeof(st));
    snprintf(st.message, sizeof(st.message), "%s", msg);
    inf->h.on_error(inf->ud, err, &st);
}

/* The keys of cached objects, one copy each for the process: "metadata", "name" and the label
 * keys of a million objects are the same few hundred strings. Bounded, so objects with keys made
 * up per object (managedFields' "f:..." entries) cannot grow it without end: past the bound, or
 * past the length, a key is copied per object as json-c does. The strings live as long as the
 * process (json-c never frees a key added as constant), from libc like the keys json-c copies,
 * so muster's allocation counts are not skewed; reachable from intern_slots, so no leak. */
#define KUBE_KEY_INTERN_MAX 8192
#define KUBE_KEY_INTERN_LEN 64
static pthread_mutex_t intern_mu = PTHREAD_MUTEX_INITIALIZER;
static char **intern_slots; /* open addressing, 2 x KUBE_KEY_INTERN_MAX */
static size_t intern_count;

/* The shared copy of k, or NULL when it is not shared (too long, table full, out of memory). */
static const char *key_intern(const char *k)
{
    size_t len = strlen(k), cap = 2 * KUBE_KEY_INTERN_MAX;
    if (len > KUBE_KEY_INTERN_LEN)
        return NULL;
    size_t i = hash_key(k) % cap;
    const char *out = NULL;
    pthread_mutex_lock(&intern_mu);
    if (!intern_slots)
        intern_slots = calloc(cap, sizeof(*intern_slots));
    if (intern_slots) {
        while (intern_slots[i] && strcmp(intern_slots[i], k) != 0)
            i = (i + 1) % cap;
        if (intern_slots[i])
            out = intern_slots[i];
        else if (intern_count < KUBE_KEY_INTERN_MAX && (intern_slots[i] = strdup(k)) != NULL) {
            intern_count++;
            out = intern_slots[i];
        }
    }
    pthread_mutex_unlock(&intern_mu);
    return out;
}

const char *kube_json_key_intern(const char *k)
{
    return key_intern(k);
}

/* Short string values (and booleans) of cached objects, shared by the objects of one thread:
 * "apps/v1", "Deployment", a namespace, "Scheduled", "False" are the same in a million cached
 * objects. Each thread has its own table because json-c's reference counts are not atomic.
 * Bounded like the keys; the shared values live as long as the thread. Cached objects are
 * read-only (nothing in muster sets a scalar in place), which is what makes sharing safe. */
#define KUBE_VALUE_INTERN_MAX 4096
#define KUBE_VALUE_INTERN_LEN 32
static _Thread_local struct json_object **vslots; /* 2 x KUBE_VALUE_INTERN_MAX */
static _Thread_local size_t vcount;
static _Thread_local struct json_object *vbool[2];

/* A new reference to the thread's shared copy of scalar v, or NULL when it is not shared. */
static struct json_object *value_intern(struct json_object *v)
{
    if (json_object_is_type(v, json_type_boolean)) {
        int b = json_object_get_boolean(v) != 0;
        if (!vbool[b])
            vbool[b] = json_object_get(v);
        return json_object_get(vbool[b]);
    }
    if (!json_object_is_type(v, json_type_string))
        return NULL;
    size_t len = (size_t)json_object_get_string_len(v), cap = 2 * KUBE_VALUE_INTERN_MAX;
    const char *s = json_object_get_string(v);
    if (len > KUBE_VALUE_INTERN_LEN || memchr(s, 0, len))
        return NULL;
    if (!vslots)
        vslots = calloc(cap, sizeof(*vslots));
    if (!vslots)
        return NULL;
    size_t i = hash_key(s) % cap;
    for (; vslots[i]; i = (i + 1) % cap)
        if ((size_t)json_object_get_string_len(vslots[i]) == len &&
            memcmp(json_object_get_string(vslots[i]), s, len) == 0)
            return json_object_get(vslots[i]);
    if (vcount >= KUBE_VALUE_INTERN_MAX)
        return NULL;
    vslots[i] = json_object_get(v);
    vcount++;
    return json_object_get(v);
}

/* A compact copy of obj: tables and arrays sized to what they hold, keys and short values
 * shared (share: obj's value may be shared, it is not under a unique_key). With prev, the
 * cached version obj replaces (compact already, read-only), every member of obj equal to prev's
 * is prev's, taken by reference: an update mostly changes the status or one field, and what
 * stayed the same is neither copied now nor freed with prev. One walk: a container whose members
 * all come back as prev's members (same keys, or the same length for an array) is prev's
 * container, so nothing is compared twice (json_object_equal at each level was a third of the
 * compaction, docs/benchmarks.md "Session 12: CPU, ingest"); an array's elements are matched
 * with prev's by index when both have the same length. */
#define COMPACT_STACK 32

static struct json_object *compact_with(struct json_object *obj, struct json_object *prev,
                                        int share);

/* The members of container obj compacted into kids[0..n) (new references), each against
 * prev's member of the same key (objects) or index (arrays of prev's length); 1 when every one
 * is prev's own and prev has no other member, 0 when not, -1 when out of memory (kids put). */
static int compact_kids(struct json_object *obj, struct json_object *prev, int share,
                        struct json_object **kids, size_t n)
{
    int same = prev != NULL;
    size_t i = 0;
    if (json_object_is_type(obj, json_type_array)) {
        same = same && json_object_array_length(prev) == n;
        for (; i < n; i++) {
            struct json_object *v = json_object_array_get_idx(obj, i);
            struct json_object *pv = same ? json_object_array_get_idx(prev, i) : NULL;
            kids[i] = compact_with(v, pv, share);
            if (v && !kids[i])
                goto oom;
            same = same && kids[i] == pv;
        }
        return same;
    }
    same = same && (size_t)json_object_object_length(prev) == n;
    json_object_object_foreach(obj, k, v)
    {
        struct json_object *pv = NULL;
        int found = prev && json_object_object_get_ex(prev, k, &pv);
        if (found && v && pv && !json_object_is_type(v, json_type_object) &&
            !json_object_is_type(v, json_type_array) &&
            json_object_get_type(v) == json_object_get_type(pv) && json_object_equal(v, pv))
            kids[i] = json_object_get(pv); /* the common case, without the call */
        else
            kids[i] = compact_with(v, found ? pv : NULL, !kube_frozen_key_unique(k));
        if (v && !kids[i])
            goto oom;
        same = same && found && kids[i] == pv;
        i++;
    }
    return same;
oom:
    while (i > 0)
        json_object_put(kids[--i]);
    return -1;
}

static struct json_object *compact_with(struct json_object *obj, struct json_object *prev,
                                        int share)
{
    int arr = json_object_is_type(obj, json_type_array);
    if (!arr && !json_object_is_type(obj, json_type_object)) {
        if (prev && json_object_get_type(prev) == json_object_get_type(obj) &&
            json_object_equal(obj, prev))
            return json_object_get(prev);
        struct json_object *out = share ? value_intern(obj) : NULL;
        return out ? out : json_object_get(obj); /* scalars are shared, never copied */
    }
    if (prev && json_object_get_type(prev) != json_object_get_type(obj))
        prev = NULL;
    size_t n = arr ? json_object_array_length(obj) : (size_t)json_object_object_length(obj);
    struct json_object *stack[COMPACT_STACK], **kids = stack;
    if (n > COMPACT_STACK && !(kids = muster_malloc(n * sizeof(*kids))))
        return NULL;
    int same = compact_kids(obj, prev, share, kids, n);
    struct json_object *out = NULL;
    if (same == 1) {
        out = json_object_get(prev); /* unchanged: prev's container, and its members, stay */
        for (size_t i = 0; i < n; i++)
            json_object_put(kids[i]);
    } else if (same == 0 && arr) {
        out = json_object_new_array_ext(n ? (int)n : 1);
        for (size_t i = 0; i < n; i++)
            if (!out || json_object_array_add(out, kids[i])) {
                json_object_put(kids[i]);
                json_object_put(out);
                out = NULL;
            }
    } else if (same == 0) {
        out = json_object_new_object();
        size_t i = 0;
        json_object_object_foreach(obj, k, v)
        {
            (void)v;
            const char *ik = key_intern(k);
            unsigned opts =
                JSON_C_OBJECT_ADD_KEY_IS_NEW | (ik ? JSON_C_OBJECT_ADD_CONSTANT_KEY : 0);
            if (!out || json_object_object_add_ex(out, ik ? ik : k, kids[i], opts)) {
                json_object_put(kids[i]);
                json_object_put(out);
                out = NULL;
            }
            i++;
        }
        kube_frozen_fit(out);
    }
    if (kids != stack)
        muster_free(kids);
    return out;
}

struct json_object *kube_json_compact(struct json_object *obj)
{
    return compact_with(obj, NULL, 1);
}

/* A new reference to obj transformed (obj itself without a transform). */
static struct json_object *transformed(struct kube_informer *inf, struct json_object *obj)
{
    struct json_object *out = inf->transform ? inf->transform(inf->ud, obj) : NULL;
    if (!out) {
        if (inf->transform)
            report(inf, MUSTER_ENOMEM, "out of memory transforming an object; cached whole");
        out = json_object_get(obj);
    }
    return out;
}

/* A new reference to what the cache keeps for obj: transformed, then compacted (sharing what
 * is unchanged with prev, the cached version it replaces, when there is one). */
static struct json_object *cached_form(struct kube_informer *inf, struct json_object *obj,
                                       struct json_object *prev)
{
    struct json_object *out = transformed(inf, obj);
    struct json_object *small = compact_with(out, prev, 1);
    if (!small)
        return out; /* out of memory: cached as it is */
    json_object_put(out);
    return small;
}

/* ---- frozen mode (kube_informer_set_frozen): each entry holds its object packed ---- */

static const char *entry_rv(const struct kube_informer_entry *e)
{
    return e->key + e->rvoff;
}

static const uint8_t *entry_blob(const struct kube_informer_entry *e)
{
    const char *rv = entry_rv(e);
    return (const uint8_t *)rv + strlen(rv) + 1;
}

/* The strings an entry's packed object refers to instead of holding them (kube_frozen_refs):
 * its name, namespace and resourceVersion, which its key holds anyway. Found from the key the
 * same way when packing and when thawing, so a name with a '/' in it comes back as it was. */
static void key_refs(const char *key, const char *rv, struct kube_frozen_refs *r)
{
    const char *slash = strchr(key, '/');
    r->n = 0;
    r->s[r->n] = slash ? slash + 1 : key;
    r->len[r->n] = strlen(r->s[r->n]);
    r->n++;
    if (slash) {
        r->s[r->n] = key;
        r->len[r->n] = (size_t)(slash - key);
        r->n++;
    }
    r->s[r->n] = rv;
    r->len[r->n] = strlen(rv);
    r->n++;
}

static struct json_object *entry_thaw(const struct kube_informer_entry *e)
{
    struct kube_frozen_refs refs;
    key_refs(e->key, entry_rv(e), &refs);
    return kube_frozen_thaw_refs(entry_blob(e), e->blen, &refs);
}

/* A tree entry's reference (rvoff 0), kept just before the entry. */
static struct json_object **tree_slot(const struct kube_informer_entry *e)
{
    return (struct json_object **)((char *)e - sizeof(struct json_object *));
}

/* A new tree entry for key (no tree yet); NULL when out of memory. */
static struct kube_informer_entry *tree_entry_new(const char *key, size_t kl)
{
    char *p = muster_malloc(sizeof(struct json_object *) + ENTRY_HDR + kl + 1);
    if (!p)
        return NULL;
    struct kube_informer_entry *e =
        (struct kube_informer_entry *)(p + sizeof(struct json_object *));
    *tree_slot(e) = NULL;
    memcpy(e->key, key, kl + 1);
    e->blen = 0;
    e->rvoff = 0;
    return e;
}

/* The thawed tree a packed entry holds until the next trim, or NULL. */
static struct json_object *thawed_find(const struct kube_informer *inf,
                                       const struct kube_informer_entry *e)
{
    if (!inf->nthawed)
        return NULL;
    uintptr_t i = (uintptr_t)queue_idmap_get(&inf->thawidx, (uint64_t)(uintptr_t)e);
    return i ? inf->thawed[i - 1].obj : NULL;
}

/* Remembers that packed entry e holds obj (a reference taken over), so the next trim lets it
 * go; on failure (out of memory) obj is let go now: 0 or -1. */
static int thawed_push(struct kube_informer *inf, struct kube_informer_entry *e,
                       struct json_object *obj)
{
    if (inf->nthawed == inf->thawcap) {
        size_t cap = inf->thawcap ? inf->thawcap * 2 : 256;
        struct kube_informer_thawed *t = muster_realloc(inf->thawed, cap * sizeof(*t));
        if (!t) {
            json_object_put(obj);
            return -1;
        }
        inf->thawed = t;
        inf->thawcap = cap;
    }
    if (queue_idmap_put(&inf->thawidx, (uint64_t)(uintptr_t)e,
                        (void *)(uintptr_t)(inf->nthawed + 1))) {
        json_object_put(obj);
        return -1;
    }
    inf->thawed[inf->nthawed++] = (struct kube_informer_thawed){e, obj};
    return 0;
}

/* Forgets e's thawed tree and returns it (the reference), or NULL when it holds none. */
static struct json_object *thawed_drop(struct kube_informer *inf, struct kube_informer_entry *e)
{
    if (!inf->nthawed)
        return NULL;
    uintptr_t i = (uintptr_t)queue_idmap_del(&inf->thawidx, (uint64_t)(uintptr_t)e);
    if (!i)
        return NULL;
    struct json_object *obj = inf->thawed[i - 1].obj;
    struct kube_informer_thawed last = inf->thawed[--inf->nthawed];
    if (i - 1 < inf->nthawed) {
        inf->thawed[i - 1] = last;
        (void)queue_idmap_put(&inf->thawidx, (uint64_t)(uintptr_t)last.e,
                              (void *)i); /* replaced in place: no allocation */
    }
    return obj;
}

/* The tree e holds now (a tree entry's, or a packed one's thawed), or NULL: borrowed. */
static struct json_object *entry_held(const struct kube_informer *inf,
                                      const struct kube_informer_entry *e)
{
    return e->rvoff ? thawed_find(inf, e) : *tree_slot(e);
}

/* The entry's tree, thawed into the cache until the next trim when it is not there. */
static struct json_object *entry_obj(struct kube_informer *inf, struct kube_informer_entry *e)
{
    struct json_object *obj = entry_held(inf, e);
    if (obj || !e->rvoff)
        return obj;
    obj = entry_thaw(e);
    if (!obj || thawed_push(inf, e, obj)) {
        report(inf, MUSTER_ENOMEM, "out of memory thawing a cached object");
        return NULL;
    }
    return obj;
}

/* off bytes left to the caller, then obj's "key" NUL "resourceVersion" NUL and obj packed, in
 * one block of exactly that size; *kl the key's length, *blen the packed size. NULL when out of
 * memory or when obj cannot be packed (then it is cached as a tree: see upsert). Packed apart
 * and copied: a block packed in place and shrunk to fit (realloc) leaves its slack as a hole
 * beside every cached entry, about 40 MiB more resident at 200,000 pending RBs (session 12,
 * docs/benchmarks.md). */
static uint8_t *pack_keyed(struct json_object *obj, size_t off, size_t *kl, size_t *blen)
{
    char key[KEY_MAX];
    if (obj_key(obj, key, sizeof key) < 0)
        return NULL;
    const char *rv = obj_rv(obj);
    size_t rl = strlen(rv);
    *kl = strlen(key);
    if (*kl + 1 > UINT16_MAX)
        return NULL;
    struct kube_frozen_refs refs;
    key_refs(key, rv, &refs);
    uint8_t *blob = kube_frozen_pack_refs(obj, &refs, blen);
    size_t head = off + *kl + 1 + rl + 1;
    uint8_t *p = blob && *blen <= UINT32_MAX ? muster_malloc(head + *blen) : NULL;
    if (p) {
        memcpy(p + off, key, *kl + 1);
        memcpy(p + off + *kl + 1, rv, rl + 1);
        memcpy(p + head, blob, *blen);
    }
    muster_free(blob);
    return p;
}

/* A packed item: "key" NUL "resourceVersion" NUL, then obj packed (*n bytes in all). */
static char *item_pack(struct json_object *obj, size_t *n)
{
    size_t kl, blen;
    char *item = (char *)pack_keyed(obj, 0, &kl, &blen);
    if (item)
        *n = kl + 1 + strlen(item + kl + 1) + 1 + blen;
    return item;
}

static void entry_free(struct kube_informer *inf, struct kube_informer_entry *e)
{
    if (!e->rvoff) {
        json_object_put(*tree_slot(e));
        muster_free(tree_slot(e));
        return;
    }
    json_object_put(thawed_drop(inf, e));
    muster_free(e);
}

/* A new entry holding obj packed, its key and resourceVersion before it, built in one block
 * (no item to copy from); NULL when out of memory or when obj cannot be packed. */
static struct kube_informer_entry *entry_pack(struct json_object *obj)
{
    size_t kl, blen;
    struct kube_informer_entry *e = (struct kube_informer_entry *)pack_keyed(
        obj, offsetof(struct kube_informer_entry, key), &kl, &blen);
    if (!e)
        return NULL;
    e->rvoff = (uint16_t)(kl + 1);
    e->blen = (uint32_t)blen;
    return e;
}

static void upsert_entry(struct kube_informer *inf, struct kube_informer_entry *e,
                         struct json_object *tree);

/* Adds or replaces the packed item (n bytes); tree is the object it was packed from (a
 * reference taken over, handed to the handler and kept until the next trim), or NULL to thaw
 * one for the handler. */
static void upsert_frozen(struct kube_informer *inf, const char *item, size_t n,
                          struct json_object *tree)
{
    size_t kl = strlen(item), hdr = kl + 1 + strlen(item + kl + 1) + 1;
    struct kube_informer_entry *e = muster_malloc(ENTRY_HDR + n);
    if (!e) {
        json_object_put(tree);
        report(inf, MUSTER_ENOMEM, "out of memory caching an object");
        return;
    }
    memcpy(e->key, item, n);
    e->rvoff = (uint16_t)(kl + 1);
    e->blen = (uint32_t)(n - hdr);
    upsert_entry(inf, e, tree);
}

/* Adds or replaces e (its key, resourceVersion and packed object set; taken over) in the
 * cache; tree as for upsert_frozen. */
static void upsert_entry(struct kube_informer *inf, struct kube_informer_entry *e,
                         struct json_object *tree)
{
    const char *key = e->key;
    uint32_t h = hash_key(key);
    struct kube_informer_entry **pp = find_slot(inf, key, h);
    struct kube_informer_entry *old = *pp;
    if (old) {
        old->gen = inf->gen;
        if (strcmp(entry_rv(old), entry_rv(e)) == 0) { /* a replay */
            json_object_put(tree);
            muster_free(e);
            return;
        }
    } else if (inf->count + 1 > inf->nbuckets && grow(inf) == 0) {
        pp = find_slot(inf, key, h);
    }
    e->hash = h;
    e->gen = inf->gen;
    e->next = old ? old->next : NULL;
    *pp = e;
    if (tree)
        (void)thawed_push(inf, e, tree); /* out of memory: thawed again below */
    struct json_object *now = entry_obj(inf, e);
    if (!old) {
        inf->count++;
        if (inf->h.on_add && now)
            inf->h.on_add(inf->ud, now);
        return;
    }
    if (inf->h.on_update && now)
        inf->h.on_update(inf->ud, entry_held(inf, old), now);
    entry_free(inf, old);
}

void kube_informer_trim(struct kube_informer *inf)
{
    while (inf->nthawed) {
        struct kube_informer_thawed *t = &inf->thawed[--inf->nthawed];
        (void)queue_idmap_del(&inf->thawidx, (uint64_t)(uintptr_t)t->e);
        json_object_put(t->obj);
    }
}

/* Adds or replaces obj (formed: already in its cached form); tells the handler if something
 * changed. */
static void upsert(struct kube_informer *inf, struct json_object *obj, int formed)
{
    if (inf->frozen && !formed) {
        struct json_object *out = inf->transform ? inf->transform(inf->ud, obj) : NULL;
        if (!out)
            out = json_object_get(obj);
        struct kube_informer_entry *e = entry_pack(out);
        if (e) {
            upsert_entry(inf, e, out);
            return;
        }
        report(inf, MUSTER_ENOMEM, "out of memory packing an object");
        json_object_put(out);
        return;
    }
    char key[KEY_MAX];
    if (obj_key(obj, key, sizeof(key)) < 0) {
        report(inf, MUSTER_EPROTO, "object without metadata.name, or name over its cap");
        return;
    }
    uint32_t h = hash_key(key);
    struct kube_informer_entry **pp = find_slot(inf, key, h);
    struct kube_informer_entry *e = *pp;
    if (e) {
        e->gen = inf->gen;
        if (e->rvoff) { /* packed: a frozen informer's object it could not pack before */
            struct kube_informer_entry *t = tree_entry_new(key, strlen(key));
            if (!t) {
                report(inf, MUSTER_ENOMEM, "out of memory caching an object");
                return;
            }
            t->hash = h;
            t->gen = inf->gen;
            t->next = e->next;
            *pp = t;
            *tree_slot(t) = formed ? json_object_get(obj) : cached_form(inf, obj, NULL);
            if (inf->h.on_update)
                inf->h.on_update(inf->ud, entry_held(inf, e), *tree_slot(t));
            entry_free(inf, e);
            return;
        }
        struct json_object **slot = tree_slot(e);
        /* Same version: a replay (e.g. an ADDED for what the list already had). */
        if (strcmp(obj_rv(*slot), obj_rv(obj)) == 0)
            return;
        struct json_object *old = *slot;
        *slot = formed ? json_object_get(obj) : cached_form(inf, obj, old);
        if (inf->h.on_update)
            inf->h.on_update(inf->ud, old, *slot);
        json_object_put(old);
        return;
    }
    if (inf->count + 1 > inf->nbuckets && grow(inf) == 0)
        pp = find_slot(inf, key, h);
    e = tree_entry_new(key, strlen(key));
    if (!e) {
        report(inf, MUSTER_ENOMEM, "out of memory caching an object");
        return;
    }
    e->hash = h;
    e->gen = inf->gen;
    *tree_slot(e) = formed ? json_object_get(obj) : cached_form(inf, obj, NULL);
    e->next = NULL;
    *pp = e;
    inf->count++;
    if (inf->h.on_add)
        inf->h.on_add(inf->ud, *tree_slot(e));
}

static void entry_remove(struct kube_informer *inf, struct kube_informer_entry **pp,
                         struct json_object *final)
{
    struct kube_informer_entry *e = *pp;
    *pp = e->next;
    inf->count--;
    struct json_object *last = final ? final : entry_obj(inf, e);
    if (inf->h.on_delete && last)
        inf->h.on_delete(inf->ud, last);
    entry_free(inf, e);
}

static void on_list(void *ud, struct json_object *items, const char *rv)
{
    struct kube_informer *inf = ud;
    /* a frozen informer's list took its generation when it started (on_list_start) and marked
     * the entries it replays with it (list_item) */
    if (!inf->listing)
        inf->gen++;
    inf->listing = 0;
    size_t n = json_object_array_length(items);
    /* the items are in their cached form already (list_item) */
    for (size_t i = 0; i < n; i++) {
        struct json_object *it = json_object_array_get_idx(items, i);
        if (inf->replay && it == inf->replay)
            continue;
        if (!inf->frozen || !json_object_is_type(it, json_type_string)) {
            upsert(inf, it, 1);
            continue;
        }
        upsert_frozen(inf, json_object_get_string(it), (size_t)json_object_get_string_len(it),
                      NULL);
        /* Copied into its entry: the held item goes now, not with the list, so a relist that
         * brings many new objects does not hold each twice until its end, and the next entry
         * reuses its memory (the reflector drops the list after this call). */
        json_object_array_put_idx(items, i, NULL);
        /* a list of a million: the handlers were told of these and keep what they want */
        if (inf->nthawed >= 1024)
            kube_informer_trim(inf);
    }
    /* What the new list does not hold was deleted while we were not watching. */
    for (size_t b = 0; b < inf->nbuckets; b++) {
        struct kube_informer_entry **pp = &inf->buckets[b];
        while (*pp) {
            if ((*pp)->gen != inf->gen)
                entry_remove(inf, pp, NULL);
            else
                pp = &(*pp)->next;
        }
    }
    if (!inf->synced) {
        inf->synced = 1;
        if (inf->h.on_synced)
            inf->h.on_synced(inf->ud);
    }
}

static void on_event(void *ud, enum kube_event_type type, struct json_object *obj)
{
    struct kube_informer *inf = ud;
    if (type != KUBE_EVENT_DELETED) {
        upsert(inf, obj, 0);
        return;
    }
    char key[KEY_MAX];
    if (obj_key(obj, key, sizeof(key)) < 0) {
        report(inf, MUSTER_EPROTO, "deleted object without metadata.name");
        return;
    }
    struct kube_informer_entry **pp = find_slot(inf, key, hash_key(key));
    if (!*pp)
        return;
    /* handed to on_delete and let go: not worth compacting */
    struct json_object *final =
        inf->frozen ? (inf->transform ? inf->transform(inf->ud, obj) : json_object_get(obj))
                    : transformed(inf, obj);
    entry_remove(inf, pp, final);
    json_object_put(final);
}

/* A list (re)starts: its own generation, so what an attempt that failed marked does not count
 * as listed (on_list deletes what the list does not hold). */
static void on_list_start(void *ud)
{
    struct kube_informer *inf = ud;
    if (!inf->frozen)
        return;
    inf->gen++;
    inf->listing = 1;
}

/* The shared stand-in for a listed item the cache holds at the same resourceVersion, marked
 * listed (a replay: on_list would drop the copy and tell no one), or NULL when obj is not one.
 * A relist after a 410 returns mostly what is cached: holding each packed again until the last
 * page was a second copy of the cache at the relist's peak (docs/benchmarks.md, session 12). */
static struct json_object *list_replay(struct kube_informer *inf, struct json_object *obj)
{
    char key[KEY_MAX];
    if (!inf->listing || !inf->count || obj_key(obj, key, sizeof key) < 0)
        return NULL;
    struct kube_informer_entry *e = *find_slot(inf, key, hash_key(key));
    /* rvoff 0: an entry kept as a tree (it could not be packed), versioned in its tree */
    if (!e || !e->rvoff || strcmp(entry_rv(e), obj_rv(obj)) != 0)
        return NULL;
    if (!inf->replay && !(inf->replay = json_object_new_int(0)))
        return NULL;
    e->gen = inf->gen;
    return json_object_get(inf->replay);
}

static struct json_object *list_item(void *ud, struct json_object *obj)
{
    struct kube_informer *inf = ud;
    if (!inf->frozen)
        return cached_form(inf, obj, NULL);
    struct json_object *same = list_replay(inf, obj);
    if (same)
        return same;
    /* a page of a list is held until the last page: packed, as a string (on_list unpacks) */
    struct json_object *out = inf->transform ? inf->transform(inf->ud, obj) : NULL;
    size_t n;
    char *item = item_pack(out ? out : obj, &n);
    struct json_object *s = item ? json_object_new_string_len(item, (int)n) : NULL;
    muster_free(item);
    if (!s) {
        json_object_put(s);
        s = out ? json_object_get(out) : json_object_get(obj); /* cached as a tree */
    }
    json_object_put(out);
    return s;
}

static void on_error(void *ud, int err, const struct kube_status *st)
{
    struct kube_informer *inf = ud;
    if (inf->h.on_error)
        inf->h.on_error(inf->ud, err, st);
}

int kube_informer_init(struct kube_informer *inf, uv_loop_t *loop, struct kube_client *client,
                       const struct kube_reflector_opts *opts,
                       const struct kube_informer_handler *h, void *ud)
{
    memset(inf, 0, sizeof(*inf));
    queue_idmap_init(&inf->thawidx);
    inf->nbuckets = 64;
    inf->buckets = muster_calloc(inf->nbuckets, sizeof(*inf->buckets));
    if (!inf->buckets)
        return MUSTER_ENOMEM;
    if (h)
        inf->h = *h;
    inf->ud = ud;
    static const struct kube_reflector_handler rh = {on_list, on_event, on_error, list_item,
                                                     on_list_start};
    int rc = kube_reflector_init(&inf->reflector, loop, client, opts, &rh, inf);
    if (rc < 0) {
        muster_free(inf->buckets);
        inf->buckets = NULL;
    }
    return rc;
}

void kube_informer_set_transform(struct kube_informer *inf, kube_informer_transform_fn fn)
{
    inf->transform = fn;
}

int kube_informer_start(struct kube_informer *inf)
{
    return kube_reflector_start(&inf->reflector);
}

static void on_reflector_closed(struct kube_reflector *r)
{
    struct kube_informer *inf =
        (struct kube_informer *)((char *)r - offsetof(struct kube_informer, reflector));
    for (size_t b = 0; b < inf->nbuckets; b++) {
        struct kube_informer_entry *e = inf->buckets[b], *next;
        for (; e; e = next) {
            next = e->next;
            entry_free(inf, e);
        }
    }
    muster_free(inf->buckets);
    inf->buckets = NULL;
    muster_free(inf->thawed);
    inf->thawed = NULL;
    inf->nthawed = inf->thawcap = 0;
    queue_idmap_close(&inf->thawidx);
    json_object_put(inf->replay);
    inf->replay = NULL;
    inf->nbuckets = inf->count = 0;
    if (inf->close_cb)
        inf->close_cb(inf);
}

void kube_informer_close(struct kube_informer *inf, void (*close_cb)(struct kube_informer *inf))
{
    inf->close_cb = close_cb;
    /* No more handler calls from here on: the reflector may still deliver what it decoded. */
    memset(&inf->h, 0, sizeof(inf->h));
    inf->transform = NULL;
    kube_reflector_close(&inf->reflector, on_reflector_closed);
}

struct json_object *kube_informer_get(const struct kube_informer *inf, const char *ns,
                                      const char *name)
{
    char key[KEY_MAX];
    if (!inf->buckets || !name || make_key(ns, name, key, sizeof(key)) < 0)
        return NULL;
    struct kube_informer_entry **pp = find_slot(inf, key, hash_key(key));
    /* thawing fills a cache the caller cannot see: the informer is const to it */
    return *pp ? entry_obj((struct kube_informer *)inf, *pp) : NULL;
}

size_t kube_informer_size(const struct kube_informer *inf)
{
    return inf->count;
}

void kube_informer_foreach(const struct kube_informer *inf,
                           void (*fn)(void *ud, struct json_object *obj), void *ud)
{
    for (size_t b = 0; b < inf->nbuckets; b++)
        for (struct kube_informer_entry *e = inf->buckets[b]; e; e = e->next) {
            struct json_object *held = entry_held(inf, e);
            if (held) {
                /* held for the call: fn may trim the cache (a frozen informer's owner does) */
                struct json_object *o = json_object_get(held);
                fn(ud, o);
                json_object_put(o);
                continue;
            }
            /* thawed for this call only: a walk over a million must not hold them all */
            struct json_object *o = entry_thaw(e);
            if (o)
                fn(ud, o);
            json_object_put(o);
        }
}

void kube_informer_set_frozen(struct kube_informer *inf)
{
    inf->frozen = 1;
}
