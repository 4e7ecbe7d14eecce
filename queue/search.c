/* The lower bound behind queue/search.h. */
#include "queue/search.h"

#include <string.h>

size_t queue_search_lower(size_t lo, size_t hi, queue_search_cmp_fn cmp, const void *ctx)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2; /* no overflow for ranges near SIZE_MAX */
        if (cmp(ctx, mid) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct str_probe {
    const char *base;
    size_t stride, key_offset;
    const char *key;
};

static int str_cmp(const void *ctx, size_t i)
{
    const struct str_probe *p = ctx;
    const char *have;
    memcpy(&have, p->base + i * p->stride + p->key_offset, sizeof(have)); /* any alignment */
    return strcmp(have, p->key);
}

size_t queue_search_str(const void *base, size_t n, size_t stride, size_t key_offset,
                        const char *key)
{
    struct str_probe p = {base, stride, key_offset, key};
    return queue_search_lower(0, n, str_cmp, &p);
}
