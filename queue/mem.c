/* Allocation wrapper with counting and failure injection for tests (see mem.h). */
#include "queue/mem.h"

#include <stdlib.h>
#include <string.h>

/* Process-wide on purpose, like sqlite3_config(SQLITE_CONFIG_MALLOC); only tests change it.
 * Relaxed atomics keep the counters sane if a test's helper thread allocates. */
static struct {
    long fail_after;
    unsigned long allocs, frees, failed;
} mem = {-1, 0, 0, 0};

static int mem_should_fail(void)
{
    long left = __atomic_load_n(&mem.fail_after, __ATOMIC_RELAXED);
    if (left < 0)
        return 0;
    if (left == 0) {
        __atomic_add_fetch(&mem.failed, 1, __ATOMIC_RELAXED);
        return 1;
    }
    __atomic_sub_fetch(&mem.fail_after, 1, __ATOMIC_RELAXED);
    return 0;
}

void *muster_malloc(size_t n)
{
    if (mem_should_fail())
        return NULL;
    void *p = malloc(n ? n : 1);
    if (p)
        __atomic_add_fetch(&mem.allocs, 1, __ATOMIC_RELAXED);
    return p;
}

void *muster_calloc(size_t count, size_t n)
{
    if (mem_should_fail())
        return NULL;
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (p)
        __atomic_add_fetch(&mem.allocs, 1, __ATOMIC_RELAXED);
    return p;
}

void *muster_realloc(void *p, size_t n)
{
    if (mem_should_fail())
        return NULL;
    void *q = realloc(p, n ? n : 1);
    if (q && !p)
        __atomic_add_fetch(&mem.allocs, 1, __ATOMIC_RELAXED);
    return q;
}

void muster_free(void *p)
{
    if (!p)
        return;
    __atomic_add_fetch(&mem.frees, 1, __ATOMIC_RELAXED);
    free(p);
}

char *muster_strndup(const char *s, size_t len)
{
    char *d = muster_malloc(len + 1);
    if (!d)
        return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

char *muster_strdup(const char *s)
{
    return muster_strndup(s, strlen(s));
}

void muster_mem_fail_after(long fail_after)
{
    __atomic_store_n(&mem.fail_after, fail_after, __ATOMIC_RELAXED);
}

void muster_mem_stats(struct muster_mem_stats *out)
{
    out->allocs = __atomic_load_n(&mem.allocs, __ATOMIC_RELAXED);
    out->frees = __atomic_load_n(&mem.frees, __ATOMIC_RELAXED);
    out->failed = __atomic_load_n(&mem.failed, __ATOMIC_RELAXED);
}

void muster_mem_reset(void)
{
    muster_mem_fail_after(-1);
    __atomic_store_n(&mem.allocs, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&mem.frees, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&mem.failed, 0, __ATOMIC_RELAXED);
}
