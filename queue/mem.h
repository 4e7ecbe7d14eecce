/* The one allocation wrapper. Every module allocates through it so tests can count allocations
 * and make the Nth one fail (curl's memdebug, SQLite's fault simulation). */
#ifndef MUSTER_QUEUE_MEM_H
#define MUSTER_QUEUE_MEM_H

#include <stddef.h>

void *muster_malloc(size_t n);
void *muster_calloc(size_t count, size_t n);
/* Like realloc; on failure the old block is untouched and NULL is returned. */
void *muster_realloc(void *p, size_t n);
void muster_free(void *p);
/* A copy of s (NULL on allocation failure). */
char *muster_strdup(const char *s);
/* A NUL-terminated copy of the first len bytes of s. */
char *muster_strndup(const char *s, size_t len);

/* Test hooks. The allocator is the one process-wide setting in muster (like sqlite3_config):
 * set it before any other call, from one thread. fail_after < 0 disables injection; otherwise
 * the allocation after fail_after more successful ones fails, and every one after it until reset. */
struct muster_mem_stats {
    unsigned long allocs; /* successful malloc/calloc/realloc(NULL, n) */
    unsigned long frees;  /* free of non-NULL pointers */
    unsigned long failed; /* injected failures */
};
void muster_mem_fail_after(long fail_after);
void muster_mem_stats(struct muster_mem_stats *out);
void muster_mem_reset(void);

#endif
