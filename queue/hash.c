/* FNV-1a 64 and 32 (http://www.isthe.com/chongo/tech/comp/fnv/): offset bases and primes as
 * published, so values match Go's hash/fnv and every other implementation. */
#include "queue/hash.h"

#include <string.h>

#define FNV64_PRIME 1099511628211ULL
#define FNV32_PRIME 16777619U

uint64_t queue_hash_fnv1a64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV64_PRIME;
    }
    return h;
}

uint64_t queue_hash_fnv1a64_str(uint64_t h, const char *s)
{
    return queue_hash_fnv1a64(h, s, strlen(s));
}

uint32_t queue_hash_fnv1a32(uint32_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV32_PRIME;
    }
    return h;
}
