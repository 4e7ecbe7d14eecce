/* The simulated hub's object store: every object of every served resource, a global monotonic
 * resourceVersion, and a bounded history of change events that watches replay from. No I/O and
 * no clock: the caller passes the time. */
#ifndef MUSTER_SIM_STORE_H
#define MUSTER_SIM_STORE_H

#include <json-c/json.h>
#include <stdint.h>
#include <time.h>

struct sim_resource;
struct sim_selector;
struct sim_store;
struct sim_store_watch;

enum sim_event_type { SIM_EVENT_ADDED, SIM_EVENT_MODIFIED, SIM_EVENT_DELETED };

struct sim_event {
    enum sim_event_type type;
    int64_t rv;
    const struct sim_resource *res;
    json_object *obj;  /* the object after the change; for DELETED the last state, carrying the
                          deletion's resourceVersion. Read-only. */
    json_object *prev; /* MODIFIED: the object before the change (selector-filtered watches turn
                          it into ADDED/DELETED); NULL otherwise. Read-only. */
};

/* Called for every committed change in resourceVersion order, exactly once per watcher. It may
 * write to the store: those changes are delivered after this one returns. */
typedef void (*sim_store_watch_cb)(void *data, const struct sim_event *ev);

/* Write flags. */
enum {
    SIM_WRITE_STATUS = 1,   /* the /status subresource: only status changes */
    SIM_WRITE_INTERNAL = 2, /* a simulated controller: may set spec and status together */
    SIM_WRITE_DRY_RUN = 4,  /* dryRun=All: validate and return the result, commit nothing */
    /* The caller hands obj over as it is and never changes it (or anything in it) again: the
     * store then copies only the levels it edits (the top level and metadata) and shares the
     * rest, so a write costs what it changes rather than the whole object. */
    SIM_WRITE_SHARE = 8,
};

/* Mutating admission (the karmada-webhook's role): called on every create and main-resource
 * update, dry runs included, with the object about to be stored (read-only: its nested values
 * may be shared with the caller's). To change it, set *out to a new object (the store takes
 * it); leave *out NULL to keep obj. Return 0, or MUSTER_ENOMEM to refuse the write. */
typedef int (*sim_store_admit_cb)(void *data, const struct sim_resource *r, json_object *obj,
                                  json_object **out);

/* Installs cb (NULL: none) as the store's one mutating admission hook. */
void sim_store_set_admission(struct sim_store *s, sim_store_admit_cb cb, void *data);

/* A new, empty store keeping the last `history` events (>= 1). Returns 0 or MUSTER_ENOMEM. */
int sim_store_new(size_t history, struct sim_store **out);

/* Frees the store, its objects and its watchers. NULL is a no-op. */
void sim_store_free(struct sim_store *s);

/* The current (latest committed) resourceVersion. */
int64_t sim_store_rv(const struct sim_store *s);

/* The oldest resourceVersion a watch may start from: every event after it is still held. */
int64_t sim_store_floor_rv(const struct sim_store *s);

/* Every operation below takes the resource, the namespace ("" or NULL for cluster-scoped) and
 * borrows its inputs. On success *out (when out is not NULL) gets a new reference to the
 * resulting object, which callers must treat as read-only. On failure the function returns
 * a negative MUSTER_* code and, when status is not NULL, *status gets a new Kubernetes Status
 * object (owned by the caller) saying what was wrong:
 *   MUSTER_ENOENT 404 NotFound, MUSTER_EEXIST 409 AlreadyExists, MUSTER_ECONFLICT 409 Conflict,
 *   MUSTER_EINVAL 422 Invalid or 400 BadRequest, MUSTER_EGONE 410 Expired, MUSTER_ENOMEM 500. */

/* Creates obj (metadata.name or generateName required) at `now`: assigns uid,
 * creationTimestamp, resourceVersion and generation 1; drops status when the resource has a
 * status subresource (unless SIM_WRITE_INTERNAL). */
int sim_store_create(struct sim_store *s, const struct sim_resource *r, const char *ns,
                     json_object *obj, time_t now, int flags, json_object **out,
                     json_object **status);

int sim_store_get(struct sim_store *s, const struct sim_resource *r, const char *ns,
                  const char *name, json_object **out, json_object **status);

/* Replaces ns/name with obj. A non-empty metadata.resourceVersion in obj must equal the stored
 * one (else Conflict). Main writes keep the stored status for resources with a status
 * subresource; SIM_WRITE_STATUS writes change only status. generation is bumped when anything
 * but metadata (and status, for resources with a status subresource) changed. An update that
 * changes nothing commits nothing and returns the stored object. */
int sim_store_update(struct sim_store *s, const struct sim_resource *r, const char *ns,
                     const char *name, json_object *obj, int flags, json_object **out,
                     json_object **status);

/* Deletes ns/name. precond_uid / precond_rv (NULL or "" to skip) are DeleteOptions
 * preconditions. An object with metadata.finalizers is not removed: it gets
 * metadata.deletionTimestamp (now) and deletionGracePeriodSeconds 0 (one MODIFIED event; a
 * second delete changes nothing), and goes (one DELETED event) when an update leaves it with
 * no finalizers. *out gets the object as it was, or as marked. */
int sim_store_delete(struct sim_store *s, const struct sim_resource *r, const char *ns,
                     const char *name, const char *precond_uid, const char *precond_rv, time_t now,
                     json_object **out, json_object **status);

struct sim_list_opts {
    const struct sim_selector *labels; /* NULL: all */
    const struct sim_selector *fields; /* NULL: all */
    long limit;                        /* <= 0: no limit */
    const char *cont;                  /* continue token from a previous page, or NULL */
};

/* A <Kind>List of r in ns (NULL: all namespaces), sorted by namespace/name as etcd returns
 * them, with metadata.resourceVersion and, when more remain, metadata.continue. Pages after the
 * first show the objects as they were at the first page's resourceVersion (rebuilt from the
 * held events), as etcd serves them; a token older than the history is MUSTER_EGONE. */
int sim_store_list(struct sim_store *s, const struct sim_resource *r, const char *ns,
                   const struct sim_list_opts *opts, json_object **out, json_object **status);

/* Registers cb for every event with resourceVersion > since: held events are replayed
 * before this returns, later ones as they commit. since < sim_store_floor_rv() fails with
 * MUSTER_EGONE (and nothing is registered). *out, the handle for sim_store_unwatch, is written
 * before the replay so cb may stop the watch from inside it; the handle is then dead. */
int sim_store_watch(struct sim_store *s, int64_t since, sim_store_watch_cb cb, void *data,
                    struct sim_store_watch **out, json_object **status);

/* Stops a watcher; safe from inside its own or another watcher's callback. NULL is a no-op. */
void sim_store_unwatch(struct sim_store *s, struct sim_store_watch *w);

/* The held events after since as a JSON object {"floor": RV, "latest": RV, "watchers": N,
 * "items": [{"type", "resourceVersion", "group", "resource", "namespace", "name"}]}, for tests
 * that check watch continuity against the server's own log. */
int sim_store_event_log(struct sim_store *s, int64_t since, json_object **out);

/* Calls cb(data, obj) for every object of r (all namespaces); obj is read-only. */
void sim_store_each(struct sim_store *s, const struct sim_resource *r,
                    void (*cb)(void *data, json_object *obj), void *data);

/* Formats t as RFC 3339 in UTC ("2026-11-22T00:30:00Z"); buf needs 21 bytes. */
void sim_format_time(time_t t, char *buf, size_t cap);

/* Parses what sim_format_time writes (RFC 3339, UTC, whole seconds); (time_t)-1 when s is NULL
 * or not that. */
time_t sim_parse_time(const char *s);

/* Writes a random (version 4) UUID; buf needs 37 bytes. */
void sim_uuid(char *buf, size_t cap);

/* metadata.<key> of obj as a string, or NULL. */
const char *sim_meta_str(json_object *obj, const char *key);

#endif
