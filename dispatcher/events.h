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
 *   "queue"    {name}: a queue's spec or usage changed (the dashboard refetches it)
 *   "cluster"  {name}: a cluster's capacity, use or Ready state changed
 *   "notice"   {level, message}: something an operator should see (rollback reasons, hub lost)
 * data is an object; the reference is taken (NULL data publishes {}). An "at" member (unix
 * milliseconds) is added when absent. Returns the event's id (> 0), or 0 when out of memory. */
uint64_t disp_events_publish(struct disp_events *ev, const char *type, struct json_object *data);

/* Chart counters, bucketed per minute over the last hour. now_ms is unix milliseconds. */
void disp_events_record_admission(struct disp_events *ev, int64_t now_ms, double wait_ms);
void disp_events_record_dispatch(struct disp_events *ev, int64_t now_ms, double latency_ms);
void disp_events_record_rollback(struct disp_events *ev, int64_t now_ms);

#endif
