/* A hash map from uint64 keys to non-NULL pointers: open addressing, linear probing, deletion
 * by backward shift (no tombstones), so lookups stay short under churn. */
#ifndef MUSTER_QUEUE_IDMAP_H
#define MUSTER_QUEUE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct queue_idmap {
    uint64_t *keys;
    void **vals; /* NULL = empty slot */
    size_t cap;  /* power of two or 0 */
    size_t len;
};

void queue_idmap_init(struct queue_idmap *m);
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
