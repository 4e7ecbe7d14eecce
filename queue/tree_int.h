/* Private structures shared by tree.c (structure, validation), admit.c (usage, admission,
 * explain) and order.c (buckets, fair order). Nothing outside queue/ includes this. */
#ifndef MUSTER_QUEUE_TREE_INT_H
#define MUSTER_QUEUE_TREE_INT_H

#include "queue/idmap.h"
#include "queue/tree.h"

#define QUEUE_UNLIMITED INT64_MAX
#define QUEUE_DENSE_ARRAYS 7

/* An interned request vector: entries with equal requests share one, and one BestEffortFIFO
 * bucket per leaf, because what fits for one of them fits for all. */
struct queue_shape {
    struct queue_resvec req;
    uint64_t hash;
    uint32_t uid;
    uint32_t refs;
    struct queue_shape *next; /* same hash */
};

/* Pending entries of one leaf in a heap: per shape in a BestEffortFIFO leaf, all of them in
 * one bucket (shape NULL) in a StrictFIFO leaf, where only the head may go. */
struct queue_bucket {
    struct queue_node *leaf;
    struct queue_shape *shape;
    struct queue_entry **heap;
    uint32_t len, cap;
    int32_t act_idx;               /* in leaf->bact, -1 when not there */
    uint32_t all_idx;              /* in leaf->bkts */
    struct queue_node *blocked_on; /* the queue whose limit it met; NULL when not blocked */
    uint32_t blocked_idx;          /* in blocked_on->blocked */
    uint8_t cycle_blocked;         /* StrictFIFO head skipped in this cycle */
};

struct queue_entry {
    uint64_t id;
    int64_t created;
    int32_t prio;
    uint8_t state;   /* enum queue_entry_state */
    uint8_t skipped; /* set aside in this cycle */
    uint32_t idx;    /* in bucket->heap, or in tree->skipped when skipped */
    struct queue_shape *shape;
    struct queue_node *leaf;
    struct queue_bucket *bucket; /* while pending */
    struct queue__gang *gang;    /* while running and known to the reclaim search */
};

/* A running gang as the reclaim search sees it (reclaim.c): when it started and what it holds
 * in each cluster. Kept in its leaf's gangs array in victim order. */
struct queue__gang_share {
    uint32_t cluster;
    uint32_t pos; /* in leaf->cl[cluster] */
    struct queue_resvec res;
};
/* Gangs in victim order (one leaf's, or one leaf's in one cluster). */
struct queue__glist {
    struct queue__gang **g;
    uint32_t n, cap;
};

struct queue__gang {
    struct queue_entry *e;
    int64_t started;
    uint64_t id;   /* e's: victim order compares these without a trip to the entry */
    int32_t prio;
    uint32_t idx; /* in leaf->gangs */
    uint64_t cmask;   /* bit c % 64 for each cluster c it holds a share in: a quick "not here" */
    uint64_t rc_seen; /* == the search's epoch: already ranked (it is in two allowed clusters) */
    uint32_t nshares;
    struct queue__gang_share *shares;
};

struct queue_node {
    struct queue_spec spec; /* owns name, parent and the vectors */
    struct queue_node *parent;
    struct queue_node **kids; /* by name */
    uint32_t nkids, kcap;
    uint32_t uid;
    uint32_t depth;

    /* Dense per resource id (t->rcap wide): usage, held = max(guarantee, inner), inner = usage
     * for a leaf or the sum of the children's held, guarantee and capability (UNLIMITED).
     * minneed: the least any active bucket below asks of each resource (UNLIMITED when none),
     * so a pick skips a subtree whose every gang is larger than the room left on the path;
     * maxslack: the most unused guarantee (held - inner) summed down any path below, which
     * bounds how much of a gang's growth the queues below could absorb. */
    int64_t *use, *held, *inner, *gua, *cap, *minneed, *maxslack;

    double share;
    struct queue_node **act; /* active children, in fair order */
    uint32_t nact, acap;
    int32_t act_idx; /* in parent->act, -1 when not there */

    struct queue_bucket **bkts; /* every bucket of this leaf */
    uint32_t nbkts, bkcap;
    struct queue_bucket **bact; /* active buckets, by head */
    uint32_t nbact, bacap;

    /* Buckets stopped here by a guarantee hold (capability limits are pruned by minneed
     * instead): they come back when capacity is released below this queue. */
    struct queue_bucket **blocked;
    uint32_t nblocked, blcap;

    /* Running gangs of this leaf known to the reclaim search, in victim order (lower priority,
     * then newer, then higher id first), and this leaf's place in tree->gleaves. */
    struct queue__gang **gangs;
    uint32_t ngangs, gcap;
    /* The same per cluster (ncl: one past the highest cluster index seen here), so a search
     * for a gang that may use a few clusters visits only the gangs there. */
    struct queue__glist *cl;
    uint32_t ncl;
    /* The most any of its gangs has asked of each resource since it last had none: an upper
     * bound (never lowered while gangs remain) that lets a search prove a set smallest without
     * ranking every gang. */
    struct queue_resvec gmax;
    int32_t gleaf_idx; /* -1 when it has none */
    /* Reclaim search scratch: rc_mark == the search's epoch when rc_slot is this queue's row. */
    uint64_t rc_mark;
    uint32_t rc_slot;
    uint64_t rc_cool; /* == the search's epoch: the caller says it may not lose a gang now */

    uint64_t pending, admitted; /* in the subtree */
    /* == tree->room_epoch: the last pick found nothing under q that fits, and nothing since
     * could change that (admissions only shrink room; a release bumps the epoch; a bucket
     * that becomes active clears it up the path). */
    uint64_t nofit;
};

struct queue_tree {
    /* Bumped by every change a queue's spec or status can show (queue_tree_version). */
    uint64_t version;
    struct queue_resnames *names;
    uint32_t rcap; /* width of the dense arrays */
    uint32_t used; /* columns any spec or request has named so far (<= rcap); summaries and
                    * the pick look at these only */
    struct queue_node *root;
    struct queue_node **nodes; /* by name */
    size_t nnodes, ncap;
    int64_t *fleet; /* rcap wide, UNLIMITED when absent */
    int64_t *room;  /* 3 x (QUEUE_DEPTH_MAX + 2) x rcap: the pick's path scratch (order.c) */

    uint64_t room_epoch; /* bumped whenever room may have grown anywhere */
    struct queue_idmap entries; /* id -> entry */
    struct queue_idmap buckets; /* leaf uid << 32 | shape uid -> bucket (BestEffortFIFO) */
    struct queue_idmap shapes;  /* hash -> shape chain */
    uint32_t next_uid;
    /* Entries are cut from blocks of QUEUE_ENTRY_BLOCK (admit.c, queue__entry_alloc): an entry
     * is 64 bytes, 80 as an allocation of its own with malloc's header and rounding, and every
     * pending gang has one (issue 22). Freed ones wait in efree for the next. */
    struct queue_entry **eblocks;
    uint32_t neblocks, ebcap;
    uint32_t eused; /* of the last block */
    struct queue_entry *efree;

    struct queue_entry **skipped; /* set aside in this cycle */
    uint32_t nskipped, skcap;
    struct queue_bucket **cblocked; /* StrictFIFO buckets blocked for this cycle */
    uint32_t ncblocked, cbcap;

    struct queue_node **gleaves; /* leaves with running gangs (reclaim.c) */
    uint32_t ngleaves, glcap;
    uint64_t ngangs;
    uint64_t rc_epoch; /* bumped by every reclaim search */
    int lending;       /* unused guarantees of reclaimable queues are not held */
};

/* tree.c */
int queue__ensure_width(struct queue_tree *t, uint32_t width);
int queue__leaf(const struct queue_node *q);
int queue__grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);

/* admit.c */
/* A zeroed entry, or NULL when out of memory; queue__entry_free gives it back to t. Under
 * AddressSanitizer each entry is an allocation of its own, so a use after free is caught. */
struct queue_entry *queue__entry_alloc(struct queue_tree *t);
void queue__entry_free(struct queue_tree *t, struct queue_entry *e);
/* Frees the blocks: every entry of t goes (queue_tree_free). */
void queue__entry_blocks_free(struct queue_tree *t);
void queue__usage_apply(struct queue_tree *t, struct queue_node *leaf,
                        const struct queue_resvec *req, int sign);
void queue__recompute_held(struct queue_tree *t);
void queue__share_update(struct queue_tree *t, struct queue_node *q);

/* q's capability for resource r, with the fleet as an extra cap on root. */
static inline int64_t queue__cap_eff(const struct queue_tree *t, const struct queue_node *q,
                                     uint32_t r)
{
    int64_t c = q->cap[r];
    if (!q->parent && t->fleet[r] < c)
        c = t->fleet[r];
    return c;
}

/* reclaim.c */
/* Takes e out of the reclaim search's index (no-op when it is not there). */
void queue__gang_forget(struct queue_tree *t, struct queue_entry *e);
/* Frees e's gang record without touching the index: only while the whole tree is freed. */
void queue__gang_drop(struct queue_entry *e);

/* order.c */
int queue__bucket_insert(struct queue_tree *t, struct queue_entry *e);
void queue__bucket_remove(struct queue_tree *t, struct queue_entry *e, int quiet);
void queue__order_refresh_up(struct queue_tree *t, struct queue_node *from);
void queue__unblock_path(struct queue_tree *t, struct queue_node *leaf);
void queue__unblock_all(struct queue_tree *t);
void queue__order_rebuild(struct queue_tree *t);
void queue__leaf_free_buckets(struct queue_tree *t, struct queue_node *leaf);
int queue__leaf_rebucket(struct queue_tree *t, struct queue_node *leaf,
                         enum queue_strategy strategy);
void queue__shape_unref(struct queue_tree *t, struct queue_shape *s);
int queue__shape_get(struct queue_tree *t, const struct queue_resvec *req,
                     struct queue_shape **out);
int queue__node_cmp(const struct queue_node *a, const struct queue_node *b);

#endif
