/* Reclaim and priority preemption: which running gangs to preempt, whole, so that a pending
 * gang can be admitted and placed. Pure: no I/O, no clock (time is a parameter), and placement
 * is asked of the caller through a callback (node-by-node placement lives in the dispatcher).
 *
 * The running gangs are kept in the tree, per leaf queue, in victim order, so a search visits
 * the queues that may lend and, in each, only the gangs it needs (see docs/reclaim.md). */
#ifndef MUSTER_QUEUE_RECLAIM_H
#define MUSTER_QUEUE_RECLAIM_H

#include "queue/tree.h"

#include <stddef.h>
#include <stdint.h>

/* Cluster indexes are chosen by the caller and stay below this. */
#define QUEUE_RECLAIM_CLUSTERS_MAX 4096
/* Most candidates one search ranks (its window); an answer is proven smallest only when every
 * gang that may go fits in the window. */
#define QUEUE_RECLAIM_CANDIDATES_MAX 4096
/* Default work bounds of a search (see queue_reclaim_req). */
#define QUEUE_RECLAIM_WINDOW_DEFAULT 128
#define QUEUE_RECLAIM_NODES_DEFAULT 2048
#define QUEUE_RECLAIM_FITS_DEFAULT 128

/* What a gang holds in one cluster: replicas there times the per-replica request. */
struct queue_reclaim_share {
    uint32_t cluster;
    const struct queue_resvec *res;
};

/* Records admitted entry e as running since started_at, holding shares[0..n) (one per cluster;
 * copied). Replaces what was recorded for e before. The gang leaves the index by itself when e
 * is released, requeued or removed. MUSTER_EINVAL when e is not admitted, a cluster index is
 * at or above QUEUE_RECLAIM_CLUSTERS_MAX or appears twice, or a share is negative;
 * MUSTER_ENOMEM. On failure what was recorded for e before is kept. */
int queue_reclaim_gang_set(struct queue_tree *t, struct queue_entry *e, int64_t started_at,
                           const struct queue_reclaim_share *shares, size_t n);

/* Takes e out of the index (no-op when it is not there). */
void queue_reclaim_gang_clear(struct queue_tree *t, struct queue_entry *e);

/* Running gangs recorded in t. */
uint64_t queue_reclaim_gang_count(const struct queue_tree *t);

/* One dry run asked of the caller: would the pending gang be placed if these gangs were gone?
 * freed[c] is what they hold in cluster c (every cluster, nclusters long). */
struct queue_reclaim_try {
    const struct queue_entry *const *victims;
    size_t nvictims;
    const struct queue_resvec *freed;
    size_t nclusters;
};

struct queue_reclaim_req {
    const struct queue_node *queue; /* the pending gang's leaf queue */
    int32_t priority;
    const struct queue_resvec *per_replica;
    uint32_t replicas;
    const uint32_t *allowed; /* the clusters the gang may use */
    size_t nallowed;
    /* Room each cluster has now for this gang, by cluster index. It must not be less than what
     * placement could use: a set whose freed room plus this, summed over the allowed clusters,
     * is below the gang's request is never tried. */
    const struct queue_resvec *room;
    size_t nclusters;
    int64_t now; /* same unit as started_at and minRuntime */
    /* The placement dry run: 1 when the gang would be placed with try's gangs gone, else 0.
     * Must be deterministic within a search and monotone (more freed never fits worse), and
     * must not change the tree (the search holds it in a released state while it asks). */
    int (*fits)(void *ud, const struct queue_reclaim_try *try);
    void *ud;
    /* State the dispatcher keeps (rate limits, cool-downs): gangs that may not be preempted now
     * (ids ascending) and queues that may not lose a gang now. */
    const uint64_t *cooling_gangs;
    size_t ncooling_gangs;
    const struct queue_node *const *cooling_queues;
    size_t ncooling_queues;
    /* Bounds on the search (0: the defaults above): candidates ranked (the window, at most
     * QUEUE_RECLAIM_CANDIDATES_MAX), sets examined, fits calls. When one is reached the answer
     * is still sound (it helps, every victim is needed) but may not be the smallest. */
    uint32_t max_candidates;
    uint32_t max_nodes;
    uint32_t max_fits;
};

enum queue_reclaim_outcome {
    QUEUE_RECLAIM_NOT_NEEDED,    /* it is admitted and placed as things are */
    QUEUE_RECLAIM_VICTIMS,       /* preempt the victims, in order, and it will be */
    QUEUE_RECLAIM_NOT_ENTITLED,  /* its queue would go above its deserved share, and no
                                    lower-priority gang of its own queue may be preempted */
    QUEUE_RECLAIM_NO_CANDIDATES, /* no gang may be preempted that holds what it asks for in a
                                    cluster it may use */
    QUEUE_RECLAIM_NONE_HELPS,    /* no set of those gangs makes it fit */
};

enum queue_reclaim_kind {
    QUEUE_RECLAIM_ACROSS_QUEUES, /* taken back from a queue over its deserved share */
    QUEUE_RECLAIM_WITHIN_QUEUE,  /* lower priority, same queue, preemption.withinQueue */
};

struct queue_reclaim_victim {
    const struct queue_entry *gang;
    enum queue_reclaim_kind kind;
    uint32_t rank;            /* position among all candidates in preference order */
    uint32_t queue_rank;      /* position of its queue among the lending queues */
    const int64_t *freed;     /* per resource of the request: held in allowed clusters */
};

struct queue_reclaim_stats {
    uint32_t queues;     /* queues that may lend, own queue included */
    uint32_t visited;    /* running gangs looked at */
    uint32_t candidates; /* gangs ranked that may go and hold something useful */
    uint32_t nodes;      /* sets examined by the exact search */
    uint32_t fits_calls; /* dry runs asked of the caller */
    int truncated;       /* some gangs of the lending queues were left unranked */
    /* The answer is proven smallest: no set of fewer gangs helps. Among sets of its size it is
     * the first in preference order within the window, and overall when truncated is 0. */
    int smallest;
};

/* The search's workspace and last answer. Reusing one keeps searches allocation-free once it
 * has grown to the largest search seen. */
struct queue_reclaim;

/* A workspace with no answer yet (outcome NONE_HELPS, no victims); the caller owns it. NULL on
 * allocation failure. */
struct queue_reclaim *queue_reclaim_new(void);
/* Frees rc and everything it holds; NULL is a no-op. Victims' entries belong to the tree. */
void queue_reclaim_free(struct queue_reclaim *rc);

/* Finds the smallest ordered set of running gangs whose preemption lets req's gang be admitted
 * by the queue rules (queue_tree_can_admit) and placed (req->fits). The rules, in full, are in
 * docs/reclaim.md: victims come only from queues over their deserved share (never taken below
 * their deserved share in what they borrow, nor below their guarantee in anything) when the
 * gang's queue stays within its deserved share, or, with preemption.withinQueue: LowerPriority,
 * from lower-priority gangs of its own queue; whole gangs only; not before minRuntime; not
 * cooling; each must hold some of what the gang asks for in a cluster it may use. Among sets of
 * the same size the first in preference order wins: the most over-share queue, then lower
 * priority, then newer. The tree is changed while the search runs (usage released and put
 * back exactly) and is as before on return; it must not change until the answer has been read
 * and explained. Returns 0 and the outcome in rc, or MUSTER_EINVAL (a bad request: not a leaf,
 * no replicas, an empty or negative request, a cluster index out of range), MUSTER_ERANGE
 * (the request overflows), MUSTER_ENOMEM; on error the callback was never called. */
int queue_reclaim_search(struct queue_reclaim *rc, struct queue_tree *t,
                         const struct queue_reclaim_req *req);

/* The last search's outcome (NONE_HELPS before any search). */
enum queue_reclaim_outcome queue_reclaim_outcome(const struct queue_reclaim *rc);
/* How many victims the last search chose: > 0 only for QUEUE_RECLAIM_VICTIMS. */
size_t queue_reclaim_count(const struct queue_reclaim *rc);
/* The i-th victim in preemption order; NULL past the end. Valid until the next search. */
const struct queue_reclaim_victim *queue_reclaim_victim(const struct queue_reclaim *rc,
                                                        size_t i);
/* What the last search did and whether its answer is proven smallest (see the struct). */
void queue_reclaim_stats(const struct queue_reclaim *rc, struct queue_reclaim_stats *out);

/* Why victim i was chosen, e.g. "preempted to reclaim for research/nlp, which stays within its
 * deserved share: production/batch uses nvidia.com/gpu 48 of its deserved 32, the most over its
 * share of the 2 queues that may lend; its gangs go lowest priority (0 here) then newest first;
 * frees nvidia.com/gpu 8 where the waiting gang may run". Returns the length, or MUSTER_ENOSPC (truncated, NUL-terminated), or
 * MUSTER_EINVAL for no such victim. */
int queue_reclaim_explain_victim(const struct queue_reclaim *rc, const struct queue_tree *t,
                                 size_t i, char *buf, size_t cap);

/* The pending reason: "waiting for 16 nvidia.com/gpu to be reclaimed from production/batch
 * (2 gangs preempting)", or why nothing is preempted for it. Same returns as above. */
int queue_reclaim_explain_wait(const struct queue_reclaim *rc, const struct queue_tree *t,
                               char *buf, size_t cap);

#endif
