/* A hash map from uint64 keys to non-NULL pointers: open addressing, linear probing, deletion
 * by backward shift (no tombstones), so lookups stay short under churn. */
#ifndef MUSTER_QUEUE_IDMAP_H
#define MUSTER_QUEUE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct queue_idmap {
    uint64_t *keys; /* NULL in a keyed map */
    void **vals;    /* NULL = empty slot */
    size_t cap;     /* power of two or 0 */
    size_t len;
    /* 0, or a keyed map's offset + 1 (queue_idmap_init_keyed) */
    size_t keyoff;
};

void queue_idmap_init(struct queue_idmap *m);
/* A map whose values hold their own key, as a uint64_t at byte offset off, which must not
 * change while the value is in the map: slots are then a pointer each, not a key and a pointer
 * (the engine's entries: 8 bytes of every pending gang's 16 at 3/8 to 3/4 load, issue 22). A
 * lookup reads each probed value's key. The key argument of put must equal the value's own. */
void queue_idmap_init_keyed(struct queue_idmap *m, size_t off);
/* Frees the slots; the map is then empty, keyed as it was. */
void queue_idmap_close(struct queue_idmap *m);
void *queue_idmap_get(const struct queue_idmap *m, uint64_t key);
/* Inserts or replaces; val must not be NULL. 0 or MUSTER_ENOMEM (map unchanged). */
int queue_idmap_put(struct queue_idmap *m, uint64_t key, void *val);
/* Makes room for n more keys, so the next n puts of new keys cannot fail. 0 or MUSTER_ENOMEM. */
int queue_idmap_reserve(struct queue_idmap *m, size_t n);
/* Removes key; returns its value or NULL. */
void *queue_idmap_del(struct queue_idmap *m, uint64_t key);
/* Calls cb for each value (order unspecified); the map must not change during the walk. */
void queue_idmap_each(const struct queue_idmap *m, void (*cb)(void *ud, void *val), void *ud);

#endif
