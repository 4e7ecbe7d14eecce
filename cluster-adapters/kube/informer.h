/* An informer: a cache of one resource keyed by namespace/name, fed by a reflector, that
 * tells its owner about adds, updates and deletes, so the dispatcher reacts and never polls. */
#ifndef MUSTER_KUBE_INFORMER_H
#define MUSTER_KUBE_INFORMER_H

#include "cluster-adapters/kube/watch.h"
#include "queue/idmap.h"

#include <json-c/json.h>
#include <stddef.h>

/* Every callback is optional; objects are borrowed (json_object_get to keep one). A callback may
 * read the cache, start requests and call kube_informer_close (which only starts closing). */
struct kube_informer_handler {
    void (*on_add)(void *ud, struct json_object *obj);
    /* Called only when the resourceVersion changed. */
    void (*on_update)(void *ud, struct json_object *old_obj, struct json_object *new_obj);
    /* obj is the last state known: the DELETED event's object, or the cached one when a
     * relist shows the object gone. */
    void (*on_delete)(void *ud, struct json_object *obj);
    /* After the first complete list has been applied. */
    void (*on_synced)(void *ud);
    void (*on_error)(void *ud, int err, const struct kube_status *st);
};

/* What an informer caches in place of each object it receives (client-go's SetTransform): called
 * with the decoded object (borrowed; the transform may change it in place), it returns a new
 * reference to what is cached and handed to the handler, typically obj pruned to the fields the
 * owner reads. The result must keep metadata.name, metadata.namespace and
 * metadata.resourceVersion: the cache is keyed and versioned by them. NULL (out of memory)
 * caches obj as it came. */
typedef struct json_object *(*kube_informer_transform_fn)(void *ud, struct json_object *obj);

struct kube_informer_entry;
struct kube_informer_thawed {
    struct kube_informer_entry *e;
    struct json_object *obj; /* one reference */
};

/* Caller-allocated; fields are private. */
struct kube_informer {
    struct kube_reflector reflector; /* embedded; its close completes the informer's */
    struct kube_informer_handler h;
    void *ud;
    struct kube_informer_entry **buckets;
    size_t nbuckets, count;
    unsigned gen; /* relist generation, to find what a new list no longer holds */
    int synced;
    kube_informer_transform_fn transform;
    int frozen;
    /* frozen: the entries holding a thawed tree, and where each is in thawed (its index + 1) */
    struct kube_informer_thawed *thawed;
    size_t nthawed, thawcap;
    struct queue_idmap thawidx;
    void (*close_cb)(struct kube_informer *inf);
    /* frozen: a list is under way (its generation is gen), and what its pages hold in place of
     * an item the cache has at the same resourceVersion (one shared object) */
    int listing;
    struct json_object *replay;
};

/* Prepares inf to mirror opts->path through client. Returns 0, MUSTER_EINVAL or
 * MUSTER_ENOMEM (then nothing needs closing). */
int kube_informer_init(struct kube_informer *inf, uv_loop_t *loop, struct kube_client *client,
                       const struct kube_reflector_opts *opts,
                       const struct kube_informer_handler *h, void *ud);

/* Sets the transform every object goes through before it is cached, or none (NULL). Call it
 * before kube_informer_start. ADDED, MODIFIED, DELETED and listed objects are all transformed,
 * so the handler always sees the same shape; a replay of a cached version is not. */
void kube_informer_set_transform(struct kube_informer *inf, kube_informer_transform_fn fn);

/* Caches every object packed (kube/frozen.h) instead of as a tree: a few hundred bytes for what
 * a json-c tree keeps in kilobytes, for the informers that hold one object per pending gang
 * (issue 22). The handlers still get trees. kube_informer_get thaws the packed object back into
 * a tree kept in the cache until kube_informer_trim, which the owner calls when nothing holds a
 * borrowed object any more (a holder takes a reference); a list of many objects trims itself
 * every 1,024 between its items; a listed item the cache holds at the same resourceVersion (what
 * a relist mostly returns) is kept as no copy until the list is complete: a relist of a
 * million does not hold them twice. kube_informer_foreach thaws each object for the call only.
 * The old object on_update gets is NULL unless it was thawed. Call before
 * kube_informer_start. */
void kube_informer_set_frozen(struct kube_informer *inf);

/* Lets go of the trees a frozen informer thawed (a no-op for others): objects borrowed from
 * it before are invalid from here on unless the borrower took a reference. */
void kube_informer_trim(struct kube_informer *inf);

/* A new reference to a compact copy of obj, which is not changed: json-c gives every parsed
 * object a 16-slot hash table (~780 bytes) and every array 32 slots, and copies every key and
 * value, which is most of what a cached Kubernetes object weighs. The copy's objects have tables
 * sized to what they hold and share their keys with every other compacted object (up to
 * KUBE_KEY_INTERN_MAX distinct keys of at most KUBE_KEY_INTERN_LEN bytes, for the process); its
 * arrays are sized to their length; its booleans and its strings of at most
 * KUBE_VALUE_INTERN_LEN bytes are shared with the other objects compacted on the same thread (up
 * to KUBE_VALUE_INTERN_MAX of them; not the values of name, uid, resourceVersion and other keys
 * unique per object); other scalars are obj's own. Keys, values and their order are the same,
 * and the copy's containers stay writable (a later insert grows them again); its scalars must
 * not be set in place, as they may be shared. NULL when out of memory. Relies on json-c's
 * lh_table_resize (exported, versioned JSONC_PRIVATE, in every json-c since 0.10). The informer
 * caches every object compacted. */
struct json_object *kube_json_compact(struct json_object *obj);

/* Starts the reflector. Returns 0 or a MUSTER_* code. */
int kube_informer_start(struct kube_informer *inf);

/* Stops the informer; close_cb(inf) runs from the loop when nothing refers to it any more,
 * after which the cache is empty and inf may be freed. No callback runs after close_cb. */
void kube_informer_close(struct kube_informer *inf, void (*close_cb)(struct kube_informer *inf));

/* The cached object for ns/name (ns NULL or "" for cluster-scoped), borrowed (for a frozen
 * informer until the next kube_informer_trim); NULL if none. */
struct json_object *kube_informer_get(const struct kube_informer *inf, const char *ns,
                                      const char *name);

size_t kube_informer_size(const struct kube_informer *inf);

/* Calls fn for every cached object, in no particular order; fn must not change the cache. */
void kube_informer_foreach(const struct kube_informer *inf,
                           void (*fn)(void *ud, struct json_object *obj), void *ud);

#endif
