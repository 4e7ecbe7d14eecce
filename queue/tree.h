/* The queue tree: hierarchical capacity (guarantee, deserved, capability), pending entries in
 * fair order, admission, and the explanation of why an entry waits. Pure: no I/O, no clock. */
#ifndef MUSTER_QUEUE_TREE_H
#define MUSTER_QUEUE_TREE_H

#include "queue/resource.h"

#include <stddef.h>
#include <stdint.h>

#define QUEUE_NAME_MAX 253
#define QUEUE_ROOT "root"
#define QUEUE_DEFAULT "default"
/* Most distinct resources one request may name: admission keeps per-resource scratch on the
 * stack so the hot path never allocates. */
#define QUEUE_REQUEST_RES_MAX 64
#define QUEUE_DEPTH_MAX 32
/* Most gangs preemption.maxPerMinute may allow a queue to lose per minute (0: no limit). */
#define QUEUE_PREEMPT_PER_MINUTE_MAX 10000

enum queue_state { QUEUE_OPEN, QUEUE_CLOSED, QUEUE_DRAINING };
enum queue_strategy { QUEUE_BEST_EFFORT_FIFO, QUEUE_STRICT_FIFO };
/* reclaimable: whether a queue's unused guarantee may be lent (and so reclaimed later). The
 * zero value is the documented default (true), so a zeroed spec gets it. */
enum queue_reclaimable { QUEUE_RECLAIMABLE, QUEUE_NOT_RECLAIMABLE };
/* preemption.withinQueue: may a higher-priority pending gang preempt lower-priority running
 * gangs of its own queue. Never is the default (the zero value). */
enum queue_within { QUEUE_WITHIN_NEVER, QUEUE_WITHIN_LOWER_PRIORITY };
/* onClusterLoss: what happens to a dispatched gang when a cluster holding a share of it is lost
 * (docs/dispatcher.md, "A cluster lost"). Requeue, the default (the zero value), rolls the whole
 * gang back and requeues it in its place in line; Replace places the lost share again, whole,
 * on other clusters when it fits, and requeues otherwise. */
enum queue_on_loss { QUEUE_ON_LOSS_REQUEUE, QUEUE_ON_LOSS_REPLACE };

/* True when s[0..len) is a valid queue name: lowercase alphanumerics, '-' and '.', at most 63
 * characters, each dot-separated part alphanumeric at both ends — a valid DNS subdomain and a
 * valid label value, since queue names travel in labels. */
int queue_name_valid(const char *s, size_t len);

const char *queue_state_name(enum queue_state s);
const char *queue_strategy_name(enum queue_strategy s);
/* "Never" / "LowerPriority", as the spec spells preemption.withinQueue. */
const char *queue_within_name(enum queue_within w);
/* "Requeue" / "Replace", as the spec spells onClusterLoss. */
const char *queue_on_loss_name(enum queue_on_loss l);
/* 0 and *out set, or MUSTER_EINVAL for an unknown name. */
int queue_state_parse(const char *s, enum queue_state *out);
int queue_strategy_parse(const char *s, enum queue_strategy *out);
int queue_within_parse(const char *s, enum queue_within *out);
int queue_on_loss_parse(const char *s, enum queue_on_loss *out);

/* What an operator declares for a queue. Vectors use the ids of queue_tree_resnames(). A
 * resource absent from guarantee or deserved is 0; absent from capability is unlimited. */
struct queue_spec {
    const char *name;
    const char *parent; /* NULL means root; must be NULL for root itself */
    int32_t weight;     /* >= 1 */
    int32_t priority;
    enum queue_state state;
    enum queue_strategy strategy;
    struct queue_resvec guarantee;
    struct queue_resvec deserved;
    struct queue_resvec capability;
    /* Reclaim and preemption (queue/reclaim.h); every zero value is the default. */
    enum queue_reclaimable reclaimable;
    enum queue_within within_queue;
    /* preemption.minRuntime: a gang of this queue that has run less than this is never a
     * victim. In the unit of the times given to the reclaim search (the dispatcher uses
     * milliseconds). >= 0. */
    int64_t min_runtime;
    /* preemption.maxPerMinute: at most this many gangs of this queue are preempted in any
     * minute; 0 (the default) is no limit. 0..QUEUE_PREEMPT_PER_MINUTE_MAX. */
    int32_t max_per_minute;
    /* preemption.cooldown: a gang of this queue that was preempted is not preempted again
     * before this much time has passed (min_runtime's unit). 0, the default, is none. >= 0.
     * The engine only keeps both: the dispatcher, which owns the clock, turns them into the
     * cooling gangs and queues of a reclaim request (queue/reclaim.h). */
    int64_t cooldown;
    /* onClusterLoss; the zero value is the default (Requeue). */
    enum queue_on_loss on_cluster_loss;
};

/* A validation failure: the field path and the rule broken, as a person reads it. */
struct queue_error {
    char field[96];
    char msg[320];
};

struct queue_tree;
struct queue_node;
struct queue_entry;

/* A new tree holding "root" (no limits) and "default" under it. NULL on allocation failure. */
struct queue_tree *queue_tree_new(void);
void queue_tree_free(struct queue_tree *t);

/* The tree's resource names: intern names here before building vectors for this tree. */
struct queue_resnames *queue_tree_resnames(struct queue_tree *t);

/* Creates a queue. MUSTER_EEXIST, MUSTER_ENOENT (parent), MUSTER_EINVAL (rules: weight,
 * guarantee <= deserved <= capability, children's guarantees within the parent's, capability
 * not above the parent's), MUSTER_EBUSY (the parent holds work: work lives only in leaves),
 * MUSTER_ELIMIT (depth). err says which field and rule. The spec is copied. */
int queue_tree_create(struct queue_tree *t, const struct queue_spec *spec, struct queue_error *err);

/* Replaces the spec of spec->name with the same rules; moving to a new parent is allowed unless
 * it makes a cycle (MUSTER_ECYCLE). root's parent and default's parent cannot change. */
int queue_tree_update(struct queue_tree *t, const struct queue_spec *spec, struct queue_error *err);

/* Checks spec as create (exists == 0) or update would, changing nothing. */
int queue_tree_validate(const struct queue_tree *t, const struct queue_spec *spec, int exists,
                        struct queue_error *err);

/* Deletes a queue. MUSTER_EINVAL for root and default, MUSTER_ENOTEMPTY while it has children,
 * MUSTER_EBUSY while it holds pending or admitted entries. */
int queue_tree_remove(struct queue_tree *t, const char *name, struct queue_error *err);

/* The capacity of the whole fleet (sum of Ready clusters), an extra cap on root that no
 * validation is checked against: fleets shrink. Absent resources are unlimited. */
int queue_tree_set_fleet(struct queue_tree *t, const struct queue_resvec *fleet);

/* Lending of unused guarantees (issue 18). When on, the unused guarantee of a queue whose spec
 * says reclaimable (the default) is no longer held for it: other queues may be admitted into
 * that capacity, and the owner takes it back through reclaim (queue/reclaim.h). A queue with
 * reclaimable: false keeps its guarantee held either way. Off in a new tree, so admission
 * protects every guarantee until the caller is ready to preempt. Returns 0. */
int queue_tree_set_lending(struct queue_tree *t, int on);
/* 1 when t lends unused guarantees, else 0. */
int queue_tree_lending(const struct queue_tree *t);

/* A number that changes whenever anything a queue's spec or status shows may have changed:
 * queues created, changed or removed, entries added, admitted, requeued, resized or removed,
 * the fleet or lending set. Readers cache what they built from the tree under it. */
uint64_t queue_tree_version(const struct queue_tree *t);

struct queue_node *queue_tree_find(const struct queue_tree *t, const char *name);
struct queue_node *queue_tree_root(const struct queue_tree *t);
size_t queue_tree_count(const struct queue_tree *t);
/* Calls cb for every queue, parents before children, siblings by name; stops at a non-zero
 * return and returns it. */
int queue_tree_walk(const struct queue_tree *t, int (*cb)(void *ud, const struct queue_node *q),
                    void *ud);

/* Read access to a queue. Vectors point into the tree and stay valid until the next change. */
const char *queue_node_name(const struct queue_node *q);
const struct queue_node *queue_node_parent(const struct queue_node *q);
const struct queue_spec *queue_node_spec(const struct queue_node *q);
size_t queue_node_children(const struct queue_node *q);
/* "research/nlp": the names from below root down to q ("root" for root). */
int queue_node_path(const struct queue_node *q, char *buf, size_t cap);

struct queue_status {
    struct queue_resvec allocated; /* admitted usage of the subtree */
    struct queue_resvec borrowed;  /* allocated beyond deserved */
    /* The part of q's own guarantee that is neither used by its subtree nor held for it, so
     * other queues may be admitted into it: guarantee - held where positive. Non-zero only
     * while the tree lends (queue_tree_set_lending) and q is reclaimable. It says what is
     * offered, not that another queue occupies it now. */
    struct queue_resvec lent;
    struct queue_resvec held;      /* max(guarantee, usage) counted up from the leaves */
    uint64_t pending;              /* entries waiting in the subtree */
    uint64_t admitted;             /* entries admitted in the subtree */
    double share;                  /* weighted dominant share of deserved */
};
/* Fills st (vectors are allocated; release with queue_status_close). */
int queue_node_status(const struct queue_tree *t, const struct queue_node *q,
                      struct queue_status *st);
void queue_status_close(struct queue_status *st);
/* True when q is Draining, has no children and nothing admitted: time to delete it. Entries
 * still pending there must be taken out first (queue_entry_remove); queue_tree_remove refuses
 * while any remain. */
int queue_node_drained(const struct queue_node *q);

/* ---- entries ---- */

enum queue_entry_state { QUEUE_ENTRY_PENDING, QUEUE_ENTRY_ADMITTED };

struct queue_entry_spec {
    uint64_t id;         /* unique, chosen by the caller (the ledger id) */
    const char *queue;   /* a leaf queue */
    int32_t priority;    /* higher first */
    int64_t created_at;  /* older first; any monotonic unit */
    const struct queue_resvec *request; /* the whole gang; copied (interned) */
};

/* Adds a pending entry. MUSTER_EEXIST (id), MUSTER_ENOENT (queue), MUSTER_ENOTLEAF (queue has
 * children), MUSTER_EINVAL (negative or empty request), MUSTER_ELIMIT (too many resources). An
 * entry may wait in a Closed or Draining queue; it is simply never picked. */
int queue_entry_add(struct queue_tree *t, const struct queue_entry_spec *spec,
                    struct queue_entry **out, struct queue_error *err);

/* Adds an entry that is already admitted (start-up replay of the ledger): counts its usage
 * without checking room, since the decision was made and acted on before. */
int queue_entry_add_admitted(struct queue_tree *t, const struct queue_entry_spec *spec,
                             struct queue_entry **out, struct queue_error *err);

struct queue_entry *queue_tree_entry(const struct queue_tree *t, uint64_t id);
uint64_t queue_entry_id(const struct queue_entry *e);
enum queue_entry_state queue_entry_state(const struct queue_entry *e);
const struct queue_node *queue_entry_queue(const struct queue_entry *e);
const struct queue_resvec *queue_entry_request(const struct queue_entry *e);
int32_t queue_entry_priority(const struct queue_entry *e);
int64_t queue_entry_created(const struct queue_entry *e);

/* Changes what an admitted entry holds to request (a gang scaled after dispatch): usage is
 * moved along the path in O(depth) without an admission check. Shrinking always fits; the
 * caller grows an entry only by what it has admitted already as an entry of its own (removed
 * in the same step), so the queues never hold more than they admitted. MUSTER_EINVAL (not
 * admitted, or an empty or negative request), MUSTER_ELIMIT, MUSTER_ENOMEM; e is unchanged on
 * failure. */
int queue_entry_resize(struct queue_tree *t, struct queue_entry *e,
                       const struct queue_resvec *request, struct queue_error *err);

/* Removes an entry, pending or admitted (an admitted one releases its usage). e is freed. */
void queue_entry_remove(struct queue_tree *t, struct queue_entry *e);

/* ---- admission ---- */

enum queue_limit_kind {
    QUEUE_LIMIT_NONE,
    QUEUE_LIMIT_CAPABILITY, /* usage + request above capability (or the fleet) */
    QUEUE_LIMIT_GUARANTEE,  /* would use capacity other queues are guaranteed */
    QUEUE_LIMIT_STATE,      /* a queue on the path is Closed or Draining */
    QUEUE_LIMIT_NOT_LEAF,   /* the queue has children */
    QUEUE_LIMIT_OVERFLOW,   /* the sums do not fit in int64 */
    QUEUE_LIMIT_TOO_MANY,   /* the request names more than QUEUE_REQUEST_RES_MAX resources */
};

/* Why an entry cannot be admitted: the first limiting queue from the leaf up. */
struct queue_limit {
    enum queue_limit_kind kind;
    const struct queue_node *queue;
    uint32_t resource;
    int64_t in_use;   /* usage of that queue */
    int64_t held;     /* capacity held for other queues' unused guarantees */
    int64_t limit;    /* effective capability */
    int64_t need;     /* the request */
};

/* True when request may be admitted into leaf q: for every queue on the path to root, usage +
 * request <= capability (and the fleet, at root), and what the admission adds to the capacity
 * held for guarantees still fits, so no queue's unused guarantee is consumed by another. Does
 * not allocate. When false and why != NULL, *why is the first limit met from the leaf up. */
int queue_tree_can_admit(const struct queue_tree *t, const struct queue_node *q,
                         const struct queue_resvec *request, struct queue_limit *why);

/* Admits a pending entry when queue_tree_can_admit allows it: usage updated along the path in
 * O(depth). MUSTER_ELIMIT (with *why) when it does not fit, MUSTER_EINVAL if not pending. */
int queue_entry_admit(struct queue_tree *t, struct queue_entry *e, struct queue_limit *why);

/* Returns an admitted entry to pending (a rolled-back gang), releasing its usage. */
int queue_entry_requeue(struct queue_tree *t, struct queue_entry *e);

/* "queue research/nlp: nvidia.com/gpu 60 of 64 in use, needs 8". Returns the length, or
 * MUSTER_ENOSPC (buf truncated, still NUL-terminated). */
int queue_limit_explain(const struct queue_tree *t, const struct queue_limit *why, char *buf,
                        size_t cap);

/* ---- fair order ---- */

/* Starts a dispatch cycle: entries skipped in the previous cycle are eligible again. */
void queue_cycle_begin(struct queue_tree *t);

/* The next entry to try, in fair order, that queue_tree_can_admit allows; NULL when none.
 * Across queues: lowest weighted dominant share of deserved first, then higher queue priority,
 * then name, level by level down the tree. Within a leaf: higher entry priority, then older,
 * then lower id. A StrictFIFO queue offers only its head; a BestEffortFIFO queue offers the
 * first entry that fits. The caller then admits it or skips it. Amortised cost is bounded by
 * the number of queues and distinct request shapes that cannot fit, not by pending entries. */
struct queue_entry *queue_cycle_next(struct queue_tree *t);

/* Sets e aside for the rest of this cycle (e.g. no cluster can hold it). In a StrictFIFO queue
 * this blocks the whole queue for the cycle. MUSTER_EINVAL if e is not pending or already
 * aside; MUSTER_ENOMEM leaves it in place, so the caller must stop the cycle rather than ask
 * for the next entry (it would get e again). */
int queue_cycle_skip(struct queue_tree *t, struct queue_entry *e);

/* Position of a pending entry among its queue's pending entries (1 = next), 0 if not pending.
 * O(pending in that queue). */
uint64_t queue_entry_position(const struct queue_tree *t, const struct queue_entry *e);

#endif
