/* FNV-1a, the one non-cryptographic string hash of muster: hash tables, caches, and names of
 * objects written to the hub (dispatcher/gangobj.c), so its values must never change. */
#ifndef MUSTER_QUEUE_HASH_H
#define MUSTER_QUEUE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The FNV offset bases: start every hash from these. */
#define QUEUE_HASH_FNV64_BASIS 14695981039346656037ULL
#define QUEUE_HASH_FNV32_BASIS 2166136261U

/* FNV-1a 64 of len bytes at data, continuing from h (QUEUE_HASH_FNV64_BASIS for a new hash), so
 * a key in several parts hashes as their concatenation: fnv1a64(fnv1a64(B, "ab"), "c") equals
 * fnv1a64(B, "abc"). data may be NULL when len is 0. */
uint64_t queue_hash_fnv1a64(uint64_t h, const void *data, size_t len);

/* queue_hash_fnv1a64 over the NUL-terminated string s (the NUL not included). */
uint64_t queue_hash_fnv1a64_str(uint64_t h, const char *s);

/* FNV-1a 32 of len bytes, continuing from h (QUEUE_HASH_FNV32_BASIS for a new hash): the hash
 * Kubernetes and Karmada name objects with (hash/fnv New32a), for code that must reproduce them. */
uint32_t queue_hash_fnv1a32(uint32_t h, const void *data, size_t len);

#endif
