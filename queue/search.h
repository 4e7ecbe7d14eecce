/* Binary search over anything indexable: the one lower bound of muster, for sorted arrays of
 * structs, of pointers, or of keys computed on the fly. */
#ifndef MUSTER_QUEUE_SEARCH_H
#define MUSTER_QUEUE_SEARCH_H

#include <stddef.h>

/* Compares element i with the key the caller looks for: negative when element i sorts before
 * the key, 0 when equal, positive when after. ctx is what the caller passed to the search. */
typedef int (*queue_search_cmp_fn)(const void *ctx, size_t i);

/* The lower bound in [lo, hi): the first index i whose element does not sort before the key
 * (cmp(ctx, i) >= 0), or hi when every element does. The elements in [lo, hi) must be sorted
 * with respect to the key (all "before" ones first). cmp is called O(log(hi - lo)) times, never
 * with an index outside [lo, hi); lo > hi is treated as an empty range and returns lo. */
size_t queue_search_lower(size_t lo, size_t hi, queue_search_cmp_fn cmp, const void *ctx);

/* The common case: the lower bound of key (strcmp order) among n structs of stride bytes at
 * base, each holding a NUL-terminated `char *` or `const char *` at key_offset (offsetof), the
 * array sorted by it. For an array of strings, stride is sizeof(char *) and key_offset 0.
 * base may be NULL when n is 0. */
size_t queue_search_str(const void *base, size_t n, size_t stride, size_t key_offset,
                        const char *key);

#endif
