/* uint64 → pointer hash map (see idmap.h). */
#include "queue/idmap.h"

#include "queue/errors.h"
#include "queue/mem.h"

#include <string.h>

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33; /* murmur3 finaliser: ids are often sequential */
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

void queue_idmap_init(struct queue_idmap *m)
{
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->len = 0;
    m->keyoff = 0;
}

void queue_idmap_init_keyed(struct queue_idmap *m, size_t off)
{
    queue_idmap_init(m);
    m->keyoff = off + 1;
}

void queue_idmap_close(struct queue_idmap *m)
{
    size_t keyoff = m->keyoff;
    muster_free(m->keys);
    muster_free(m->vals);
    queue_idmap_init(m);
    m->keyoff = keyoff;
}

/* The key of the occupied slot i. */
static uint64_t key_at(const struct queue_idmap *m, size_t i)
{
    if (!m->keyoff)
        return m->keys[i];
    uint64_t k;
    memcpy(&k, (const char *)m->vals[i] + m->keyoff - 1, sizeof k);
    return k;
}

void *queue_idmap_get(const struct queue_idmap *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->vals[i])
            return NULL;
        if (key_at(m, i) == key)
            return m->vals[i];
    }
}

static void put_fresh(struct queue_idmap *m, uint64_t key, void *val)
{
    size_t i = slot_of(key, m->cap);
    while (m->vals[i])
        i = (i + 1) & (m->cap - 1);
    if (m->keys)
        m->keys[i] = key;
    m->vals[i] = val;
}

static int grow_to(struct queue_idmap *m, size_t cap)
{
    uint64_t *keys = m->keyoff ? NULL : muster_malloc(cap * sizeof(*keys));
    void **vals = muster_calloc(cap, sizeof(*vals));
    if ((!keys && !m->keyoff) || !vals) {
        muster_free(keys);
        muster_free(vals);
        return MUSTER_ENOMEM;
    }
    struct queue_idmap old = *m;
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.vals[i])
            put_fresh(m, key_at(&old, i), old.vals[i]);
    muster_free(old.keys);
    muster_free(old.vals);
    return 0;
}

static int grow(struct queue_idmap *m)
{
    return grow_to(m, m->cap ? m->cap * 2 : 16);
}

int queue_idmap_reserve(struct queue_idmap *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 16;
    while ((m->len + n + 1) * 4 > cap * 3)
        cap *= 2;
    return cap > m->cap ? grow_to(m, cap) : 0;
}

int queue_idmap_put(struct queue_idmap *m, uint64_t key, void *val)
{
    if (m->cap) {
        for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
            if (!m->vals[i])
                break;
            if (key_at(m, i) == key) {
                m->vals[i] = val;
                return 0;
            }
        }
    }
    if ((m->len + 1) * 4 > m->cap * 3) { /* keep load under 3/4 */
        int rc = grow(m);
        if (rc)
            return rc;
    }
    put_fresh(m, key, val);
    m->len++;
    return 0;
}

void *queue_idmap_del(struct queue_idmap *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1, i = slot_of(key, m->cap);
    while (m->vals[i] && key_at(m, i) != key)
        i = (i + 1) & mask;
    void *val = m->vals[i];
    if (!val)
        return NULL;
    m->vals[i] = NULL;
    m->len--;
    /* Backward shift: move later members of the probe run into the hole when their home slot
     * does not lie cyclically in (hole, j]. */
    for (size_t j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
        size_t home = slot_of(key_at(m, j), m->cap);
        int stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        if (m->keys)
            m->keys[i] = m->keys[j];
        m->vals[i] = m->vals[j];
        m->vals[j] = NULL;
        i = j;
    }
    return val;
}

void queue_idmap_each(const struct queue_idmap *m, void (*cb)(void *ud, void *val), void *ud)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->vals[i])
            cb(ud, m->vals[i]);
}
