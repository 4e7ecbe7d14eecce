/* A reflector in the client-go sense: list (paginated), then watch from the list's version,
 * resume after drops, relist on 410 Gone, back off with jitter on errors. */
#ifndef MUSTER_KUBE_WATCH_H
#define MUSTER_KUBE_WATCH_H

#include "cluster-adapters/kube/client.h"

#include <json-c/json.h>
#include <stdint.h>
#include <uv.h>

/* One watch event larger than this is refused (the stream is dropped and resumed). */
#define KUBE_MAX_WATCH_EVENT_BYTES (4u * 1024 * 1024)
#define KUBE_RESOURCE_VERSION_BYTES 128
#define KUBE_LIST_PAGE_SIZE 500
/* client-go's reflector back-off: 800 ms doubling to 30 s, jittered. */
#define KUBE_BACKOFF_INITIAL_MS 800
#define KUBE_BACKOFF_MAX_MS 30000
/* Server-side watch timeout (each watch asks for between this and twice it); the reflector
 * simply resumes when it ends. */
#define KUBE_WATCH_TIMEOUT_S 300
/* A clean end of stream sooner than this with no event counts as a failure (backs off). */
#define KUBE_WATCH_MIN_HEALTHY_MS 1000

enum kube_event_type {
    KUBE_EVENT_ADDED,
    KUBE_EVENT_MODIFIED,
    KUBE_EVENT_DELETED,
};

/* Every callback is optional. Objects are borrowed for the call (json_object_get to keep). */
struct kube_reflector_handler {
    /* A complete list after every (re)list: all pages' items in one array, and its version.
     * The receiver replaces its view with it (the informer diffs it against its cache). The
     * array is the receiver's to empty (the informer releases each item as it applies it);
     * the reflector only drops it afterwards. */
    void (*on_list)(void *ud, struct json_object *items, const char *resource_version);
    /* One watch event. Bookmarks only advance the version and are not passed on. */
    void (*on_event)(void *ud, enum kube_event_type type, struct json_object *obj);
    /* Something failed; the reflector recovers by itself (resume, relist, back-off). For logs
     * and metrics. st describes the failure and holds no secret. */
    void (*on_error)(void *ud, int err, const struct kube_status *st);
    /* Optional: what is kept of each listed item until the list is complete (a new reference;
     * NULL keeps the item as it came). A list of a million objects is held whole until its
     * last page; the informer uses this to hold each item already in the form it caches, so
     * the decoded pages do not all live at once. */
    struct json_object *(*on_list_item)(void *ud, struct json_object *obj);
    /* Optional: a list starts over (its first page is asked for), so what on_list_item saw of
     * an earlier attempt that did not complete no longer counts. */
    void (*on_list_start)(void *ud);
};

struct kube_reflector_opts {
    const char *path; /* collection path, from kube_path() */
    const char *label_selector;
    const char *field_selector;
    long page_size;              /* default KUBE_LIST_PAGE_SIZE */
    size_t max_event;            /* default KUBE_MAX_WATCH_EVENT_BYTES */
    uint64_t backoff_initial_ms; /* default KUBE_BACKOFF_INITIAL_MS */
    uint64_t backoff_max_ms;     /* default KUBE_BACKOFF_MAX_MS */
    long watch_timeout_s;        /* default KUBE_WATCH_TIMEOUT_S */
    int metadata_only;           /* list and watch PartialObjectMetadata (kube_request) */
};

struct kube_reflector_stats {
    uint64_t lists, watches, events, bookmarks, relists_gone, errors;
};

/* Splits a watch stream, fed in pieces of any size, into one JSON object per event, refusing an
 * event over max_event bytes before buffering more than max_event of it. A scan finds where each
 * event ends (strings, escapes, brackets; bytes that cannot be JSON are refused as they come),
 * and the whole event is then parsed by kube_json_parse; only an event cut by a chunk boundary is
 * copied. Caller-allocated; fields are private. */
struct kube_watch_decoder {
    char *buf;          /* the event's bytes so far, when it spans chunks */
    size_t cap;
    size_t event_bytes; /* bytes of the event scanned so far */
    size_t max_event;
    int depth, in_str, esc;
    uint64_t kinds[(KUBE_MAX_JSON_DEPTH + 63) / 64]; /* per open bracket: 1 object, 0 array */
};

/* max_event 0 means KUBE_MAX_WATCH_EVENT_BYTES. Returns 0 or MUSTER_ENOMEM; close either way. */
int kube_watch_decoder_init(struct kube_watch_decoder *d, size_t max_event);

/* Feeds len bytes. For every complete event calls on_event(ud, ev) (ev borrowed); a negative
 * return from it stops decoding and is returned. Returns 0, MUSTER_ELIMIT for an over-size event
 * or MUSTER_EPROTO for bytes that are not JSON; after an error the decoder is reset, ready for
 * a new stream. */
int kube_watch_decode(struct kube_watch_decoder *d, const char *data, size_t len,
                      int (*on_event)(void *ud, struct json_object *ev), void *ud);

/* Drops any partial event, for a new stream. */
void kube_watch_decoder_reset(struct kube_watch_decoder *d);

void kube_watch_decoder_close(struct kube_watch_decoder *d);

/* Caller-allocated; fields are private. */
struct kube_reflector {
    uv_timer_t timer; /* back-off; embedded, closed by kube_reflector_close */
    uv_loop_t *loop;
    struct kube_client *client;
    struct kube_call *call; /* the list page or watch in flight */
    struct kube_reflector_handler h;
    void *ud;
    char *path, *label_selector, *field_selector;
    long page_size, watch_timeout_s;
    uint64_t backoff_initial_ms, backoff_max_ms;
    char rv[KUBE_RESOURCE_VERSION_BYTES];
    char cont[1024];
    struct json_object *items; /* pages accumulated during a list */
    struct kube_watch_decoder dec;
    int stream_events; /* events seen on the current stream */
    int error_event;   /* the stream ended on an ERROR event, already reported */
    uint64_t stream_started;
    int failures; /* consecutive, for the back-off */
    int gone_in_a_row;
    long retry_after_s;
    int need_relist;
    int metadata_only;
    int closing, timer_closed;
    uint64_t rng;
    void (*close_cb)(struct kube_reflector *r);
    struct kube_reflector_stats stats;
};

/* Prepares r to list and watch opts->path through client (which must outlive r). Strings are
 * copied. Returns 0, MUSTER_EINVAL or MUSTER_ENOMEM (then nothing needs closing). */
int kube_reflector_init(struct kube_reflector *r, uv_loop_t *loop, struct kube_client *client,
                        const struct kube_reflector_opts *opts,
                        const struct kube_reflector_handler *h, void *ud);

/* Starts the first list. Returns 0 or a MUSTER_* code from kube_request. */
int kube_reflector_start(struct kube_reflector *r);

/* Stops listing and watching; close_cb(r) runs from the loop once the in-flight request has
 * been canceled and the timer closed; r may be freed then. Callable from any handler. */
void kube_reflector_close(struct kube_reflector *r, void (*close_cb)(struct kube_reflector *r));

/* The last resourceVersion seen (list, event or bookmark); "" before the first list. */
const char *kube_reflector_version(const struct kube_reflector *r);

#endif
