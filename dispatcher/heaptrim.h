/* Gives the heap's free pages back to the kernel after a burst (issue 22: a million pending RBs
 * in under 1 GiB of resident memory). glibc keeps what musterd frees: the watch events, thawed
 * trees, list pages and request bodies of a burst of creations are freed within the loop
 * iteration, but their pages stay resident between the bindings that outlive them, and only
 * memory at the top of the heap is returned by itself. Once a second, when a large share of the
 * heap is free and the heap changed since the last look, malloc_trim(0) returns the free pages
 * wherever they are (madvise), as the start-up already does once it has reconciled. */
#ifndef MUSTER_DISPATCHER_HEAPTRIM_H
#define MUSTER_DISPATCHER_HEAPTRIM_H

#include <stddef.h>
#include <uv.h>

/* 1 where there is something to trim: glibc's allocator, not a sanitizer's (ASan serves
 * malloc from its own heap, which glibc's counters do not see). */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define HEAPTRIM_ACTIVE 1
#else
#define HEAPTRIM_ACTIVE 0
#endif

#define HEAPTRIM_INTERVAL_MS 1000
/* Free bytes below this are not worth the page faults of using them again. */
#define HEAPTRIM_MIN_FREE (16u * 1024 * 1024)

struct heaptrim {
    uv_timer_t timer;
    size_t last_heap, last_inuse; /* as the last look saw them */
    unsigned long trims;          /* done so far */
};

/* Whether a heap of heap bytes, inuse of them in use, is worth trimming: at least
 * HEAPTRIM_MIN_FREE and an eighth of it free, and something was allocated or freed since the
 * last look (last_heap, last_inuse): glibc still counts returned pages as free, so an idle
 * musterd would otherwise trim the same pages again every second. */
int heaptrim_due(size_t heap, size_t inuse, size_t last_heap, size_t last_inuse);

/* Starts the timer on loop (it does not keep the loop alive); it never fires unless
 * HEAPTRIM_ACTIVE. */
void heaptrim_start(struct heaptrim *h, uv_loop_t *loop);

/* Closes the timer; h may be freed once the loop has run the close. */
void heaptrim_close(struct heaptrim *h);

#endif
