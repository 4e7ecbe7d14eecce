/* The live feed of what muster does: a bounded ring of events (binding state changes, queue and
 * cluster changes, notices) with increasing ids, which the admin API streams to the dashboard as
 * server-sent events (GET /api/v1/events, Last-Event-ID resumes), and per-minute counters over
 * the last hour for the throughput and latency charts. Single-threaded: the loop's thread only. */
#ifndef MUSTER_DISPATCHER_EVENTS_H
#define MUSTER_DISPATCHER_EVENTS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#define DISP_EVENTS_CAPACITY_DEFAULT 4096

struct disp_events;

/* A ring keeping the last `capacity` events (0: the default). NULL on allocation failure. */
struct disp_events *disp_events_new(size_t capacity);
void disp_events_free(struct disp_events *ev);

/* Appends an event and wakes every subscriber. type is the SSE event name:
 *   "binding"  {namespace, name, queue, state, reason, clusters:[{name, replicas}]}: a binding
 *              changed state (pending, admitted, dispatched, running, released, rolledback)
 *   "queue"    {name}: a queue's spec or usage changed (the dashboard refetches it); the API
 *              adds "deleted": true when it deleted the queue
 *   "cluster"  {name}: a cluster's capacity, use or Ready state changed
 *   "notice"   {level, message}: something an operator should see (rollback reasons, hub lost)
 * data is an object; the reference is taken (NULL data publishes {}). An "at" member (unix
 * milliseconds) is added when absent. Returns the event's id (> 0), or 0 when out of memory. */
uint64_t disp_events_publish(struct disp_events *ev, const char *type, struct json_object *data);

/* The same from the object's text, len bytes of "{...}" as json-c prints the object (one line,
 * no "at" member): the frame is what disp_events_publish makes of that object, built without a
 * tree (issue 22: a publish per binding state change). 0 when out of memory or the text is no
 * object. */
uint64_t disp_events_publish_text(struct disp_events *ev, const char *type, const char *json,
                                  size_t len);

/* Chart counters, bucketed per minute over the last hour. now_ms is unix milliseconds. */
void disp_events_record_admission(struct disp_events *ev, int64_t now_ms, double wait_ms);
void disp_events_record_dispatch(struct disp_events *ev, int64_t now_ms, double latency_ms);
void disp_events_record_rollback(struct disp_events *ev, int64_t now_ms);

/* ---- the API's side: reading the ring and the counters ---- */

/* One event as it is sent: `frame` is the whole server-sent-events frame ("id: N\nevent: T\n
 * data: {...}\n\n"), built once at publish so each stream only copies bytes. Owned by the
 * ring: valid until the next publish. */
struct disp_event {
    uint64_t id;
    const char *type;
    const char *frame;
    size_t frame_len;
};

/* A subscriber, embedded in the caller's object (libuv's handle rule): cb runs on every publish,
 * after the event is in the ring. A callback may unsubscribe itself (and only itself). */
struct disp_events_sub {
    void (*cb)(void *ud, const struct disp_event *e);
    void *ud;
    struct disp_events_sub *prev, *next;
};
void disp_events_subscribe(struct disp_events *ev, struct disp_events_sub *sub);
/* Unlinks sub; a no-op when it is not subscribed. */
void disp_events_unsubscribe(struct disp_events *ev, struct disp_events_sub *sub);

/* The id of the newest event; before any publish, the id just below the first one. Ids start
 * at the ring's creation time in unix milliseconds x 1000, so a restarted musterd's ids are all
 * above the previous run's: a client resuming with an old id is told to refetch (see since). */
uint64_t disp_events_last_id(const struct disp_events *ev);

/* Calls cb for every event in the ring with an id above after, oldest first. Returns 0, or
 * MUSTER_EGONE (cb never runs) when events after `after` have left the ring or after is not
 * an id of this ring (above the newest): the client has missed something and must refetch. */
int disp_events_since(const struct disp_events *ev, uint64_t after,
                      void (*cb)(void *ud, const struct disp_event *e), void *ud);

#define DISP_EVENTS_MINUTES 60 /* chart buckets: one per minute over the last hour */

/* The chart counters as a new JSON object (NULL when out of memory):
 *   {"bucketSeconds": 60, "minutes": [{"at": unix ms of the minute's start, "admissions": n,
 *    "waitP50Ms", "waitP99Ms", "dispatches": n, "latencyP50Ms", "latencyP99Ms", "rollbacks": n},
 *    ... 60 of them, oldest first, the last is the current minute]}
 * Percentiles are null in a minute without samples; they are read from a log-scale histogram
 * (19 % wide bins), so they are the upper edge of the bin the percentile falls in. */
struct json_object *disp_events_stats_json(const struct disp_events *ev, int64_t now_ms);

#endif
