/* The live feed (see events.h). Placeholder bodies so the dispatch loop can publish while the
 * ring, the SSE stream and the chart counters are written (issue 6). */
#include "dispatcher/events.h"

#include "queue/mem.h"

struct disp_events {
    uint64_t next_id;
};

struct disp_events *disp_events_new(size_t capacity)
{
    (void)capacity;
    return muster_calloc(1, sizeof(struct disp_events));
}

void disp_events_free(struct disp_events *ev)
{
    muster_free(ev);
}

uint64_t disp_events_publish(struct disp_events *ev, const char *type, struct json_object *data)
{
    (void)type;
    json_object_put(data);
    return ev ? ++ev->next_id : 0;
}

void disp_events_record_admission(struct disp_events *ev, int64_t now_ms, double wait_ms)
{
    (void)ev, (void)now_ms, (void)wait_ms;
}

void disp_events_record_dispatch(struct disp_events *ev, int64_t now_ms, double latency_ms)
{
    (void)ev, (void)now_ms, (void)latency_ms;
}

void disp_events_record_rollback(struct disp_events *ev, int64_t now_ms)
{
    (void)ev, (void)now_ms;
}
