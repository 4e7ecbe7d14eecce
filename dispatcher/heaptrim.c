/* The heap trimmer (heaptrim.h). */
#include "dispatcher/heaptrim.h"

#include <string.h>
#if HEAPTRIM_ACTIVE
#include <malloc.h>
#endif

int heaptrim_due(size_t heap, size_t inuse, size_t last_heap, size_t last_inuse)
{
    if (inuse > heap)
        return 0;
    size_t free_bytes = heap - inuse;
    if (free_bytes < HEAPTRIM_MIN_FREE || free_bytes < heap / 8)
        return 0;
    return heap != last_heap || inuse != last_inuse;
}

#if HEAPTRIM_ACTIVE
static void on_tick(uv_timer_t *t)
{
    struct heaptrim *h = t->data;
    /* mallinfo2 walks the free lists: 10-40 ms on the heap of 200,000 pending bindings
     * (docs/benchmarks.md, session 12), hence once a second and no more */
    struct mallinfo2 mi = mallinfo2();
    size_t heap = mi.arena, inuse = mi.uordblks;
    if (heaptrim_due(heap, inuse, h->last_heap, h->last_inuse)) {
        malloc_trim(0);
        h->trims++;
    }
    h->last_heap = heap;
    h->last_inuse = inuse;
}
#endif

void heaptrim_start(struct heaptrim *h, uv_loop_t *loop)
{
    memset(h, 0, sizeof *h);
    uv_timer_init(loop, &h->timer);
    h->timer.data = h;
#if HEAPTRIM_ACTIVE
    uv_timer_start(&h->timer, on_tick, HEAPTRIM_INTERVAL_MS, HEAPTRIM_INTERVAL_MS);
#endif
    uv_unref((uv_handle_t *)&h->timer);
}

void heaptrim_close(struct heaptrim *h)
{
    if (!uv_is_closing((uv_handle_t *)&h->timer))
        uv_close((uv_handle_t *)&h->timer, NULL);
}
