/* The controller's private header: what its files share (docs/dispatcher.md).
 * controller.c is the public face (controller.h): life, API hooks. The concerns each have a file:
 *   bindings.c   a binding's tables, reading, queueing, and its RB and template events
 *   clusters.c   the fleet: capacity, grades, reservations, the cycle's snapshot
 *   cycle.c      the dispatch cycle: placement and admission
 *   ledger.c     everything decided in one loop iteration, in one transaction
 *   protocol.c   the commit protocol: one sender per step, the step transitions
 *   follow.c     after dispatch: following the shares, release, rollback, gang timeout
 *   resize.c     after dispatch: a gang that shrinks, or is scaled to 0
 *   reconcile.c  start-up reconciliation of the ledger with the hub; the orphan sweep
 *   podgroup.c   one gang made of several RBs (a Kueue pod group's Pods): waiting, the lead
 *   loss.c       a cluster lost under a dispatched gang: the judgment, the queue's
 *                onClusterLoss (requeue, or place the lost share again)
 *   prereq.c     hub prerequisites (the PodGroup CRD)
 *   loop.c       the informers (a table row each), the tick, the per-iteration flush
 * Functions one file defines for the others are named ctl__*.
 *
 * A binding's life here:
 *   WAIT_TEMPLATE  the RB is known, its template not yet (the watches are not in step)
 *   PARKED         held and told why, but not queued: unreadable, refused, or its queue does
 *                  not exist (yet); re-read when queues or the RB change
 *   UNDO           its ledger row is pending but the hub may still carry an earlier dispatch
 *                  of it (a crash mid-rollback): the rollback steps run first
 *   BACKOFF        pending, rolled back before, not admitted before not_before
 *   PENDING        an engine entry waiting its turn
 *   ADMITTED       the decision is in the ledger; the commit protocol runs forward
 *   DISPATCHED     every share released; the gang timeout runs (not while the user keeps the
 *                  RB's dispatching suspended: it counts from when the user lifts it). A gang
 *                  that shrinks here (or RUNNING) stays in its state: its row, the engine and
 *                  the clusters hold the smaller gang, then the resize steps tell the hub; one
 *                  scaled to 0 is released and undone, and waits PARKED holding nothing
 *   RUNNING        every share reported running
 *   DONE           released (finished, or its RB went); nothing more to do
 * Every transition that is a decision is written to the ledger (one transaction per loop
 * iteration for everything decided in it) before any request for it is sent. */

#ifndef MUSTER_DISPATCHER_CONTROLLER_CTL_INT_H
#define MUSTER_DISPATCHER_CONTROLLER_CTL_INT_H
#include "dispatcher/controller.h"

#include "cluster-adapters/karmada/gang.h"
#include "cluster-adapters/karmada/gang_dialects.h"
#include "cluster-adapters/karmada/gang_nettopo.h"
#include "cluster-adapters/karmada/groups.h"
#include "cluster-adapters/karmada/patch.h"
#include "cluster-adapters/karmada/paths.h"
#include "cluster-adapters/karmada/webhook.h"
#include "cluster-adapters/karmada/workload.h"
#include "cluster-adapters/karmada/workload_clusters.h"
#include "cluster-adapters/karmada/workload_prune.h"
#include "cluster-adapters/kube/informer.h"
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/resources.h"
#include "dispatcher/crashpoint.h"
#include "dispatcher/events.h"
#include "dispatcher/metrics.h"
#include "dispatcher/placement.h"
#include "dispatcher/errors.h"
#include "queue/hash.h"
#include "queue/idmap.h"
#include "queue/mem.h"
#include "queue/quantity.h"
#include "queue/search.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CTL_KEY_MAX (2 * 253 + 2)       /* namespace/name */
#define CTL_TKEY_MAX (64 + CTL_KEY_MAX) /* kind/namespace/name of a template */
#define CTL_CLUSTER_NAME_MAX 64
/* The sets of groups a split gang may have (a JobSet's replicated jobs, gang_split.h). */
#define CTL_SPLIT_SETS_MAX KARMADA_WORKLOAD_COMPONENTS_MAX
#define CTL_UID_MAX 64
#define CTL_TICK_MS 200
/* How often the per-namespace gauges are counted again: a walk of every binding. */
#define CTL_NS_METRICS_MS 5000
#define CTL_SWEEP_ORPHANS_MS 30000
#define CTL_RETRY_INITIAL_MS 500
#define CTL_RETRY_MAX_MS 30000
/* A cycle tries at most this many gangs that the queues allow but no cluster holds, so a
 * backlog of unplaceable gangs cannot make one cycle slow; the rest wait for the next. */
#define CTL_CYCLE_NOFIT_MAX 2000
/* A running share stops being reserved on top of its cluster's report once the cluster reports
 * again, or after this long (Karmada reports cluster status every 10 s): a quiet cluster must not
 * keep a running gang counted twice. */
#define CTL_CONFIRM_MAX_MS 15000
/* A waiting binding's condition is written once it has waited this long: most bindings that
 * wait at all (a node still reserved for a gang in flight) are admitted within it, and a
 * Scheduled=False written just before Scheduled=True is one request per binding for nothing. */
#define CTL_CONDITION_GRACE_MS 1000
/* A dispatch cycle over a backlog that no cluster can take yet (muster's own reservations fill
 * the fleet until the clusters report) walks up to CTL_CYCLE_NOFIT_MAX gangs, and every cluster
 * report asks for another. So after a cycle of T (from CTL_CYCLE_PACE_FROM_NS up), the next
 * waits until (CTL_CYCLE_DUTY - 1) x T has passed: cycles take at most 1/CTL_CYCLE_DUTY of the
 * loop, and the reports that came meanwhile are met by one cycle. A cheap cycle never waits. */
#define CTL_CYCLE_DUTY 5
/* Reclaim (reclaim.c, docs/reclaim.md "The dispatcher's side"). A cycle runs at most
 * CTL_RECLAIM_SEARCHES_PER_CYCLE victim searches: a backlog of gangs that reclaim cannot help
 * must not make cycles slow. A victim is not re-admitted, and its beneficiary does not search
 * again, for CTL_RECLAIM_HOLD_MS after a preemption: room freed for the beneficiary is its own
 * until its clusters have reported it (Karmada reports every 10 s). */
#define CTL_RECLAIM_MINUTE_MS 60000
#define CTL_RECLAIM_SEARCHES_PER_CYCLE 2
#define CTL_RECLAIM_HOLD_MS 30000
#define CTL_RECLAIM_HISTORY 512
#define CTL_CYCLE_PACE_FROM_NS 200000
/* A binding's allowed clusters are a bitmap of the first 256 clusters of the fleet (the cycle
 * places on those only). */
#define CTL_ALLOW_MAX 256
#define CTL_ALLOW_WORDS (CTL_ALLOW_MAX / 64)

enum bstate {
    B_WAIT_TEMPLATE,
    B_PARKED,
    B_UNDO,
    B_BACKOFF,
    B_PENDING,
    B_ADMITTED,
    B_DISPATCHED,
    B_RUNNING,
    B_DONE,
};

/* Steps of the protocol (docs/dispatcher.md); each may send several requests at once and
 * waits for all of them. */
enum step {
    S_NONE,
    /* forward, assign mode with gang objects */
    S_OBJECTS, /* create: the OverridePolicy and the PodGroup Works (not suspended) */
    S_APPLIED, /* wait: every PodGroup Work reports Applied (its watch event re-runs it) */
    S_ASSIGN,  /* patch: clusters, applied-placement, dispatching barrier */
    S_BARRIER, /* list: the rendered Works suspended, with the OverridePolicy in them */
    S_LIFT,    /* patch: scheduling false, dispatching restored */
    /* forward, assign mode without objects (Volcano Job): one patch does all */
    S_ASSIGN_LIFT,
    S_STATUS,      /* status patch: Scheduled=True, conditional on resourceVersion */
    S_STATUS_READ, /* get: the RB again after a 409, to rebuild the status patch */
    /* forward, resume mode */
    S_RESUME,
    /* rollback / undo */
    S_U_BARRIER, /* patch: dispatching true */
    S_U_CLEAR,   /* patch: clusters cleared, scheduling true, dispatching restored */
    S_U_DELETE,  /* delete: the PodGroup Works (Karmada deletes the member PodGroups) */
    /* release */
    S_R_WORKS, /* delete the PodGroup Works */
    /* a dispatched gang that shrank (resize.c) */
    S_RESIZE_WORKS,    /* merge patch: each kept share's PodGroup Work, minMember/minResources */
    S_RESIZE_CLUSTERS, /* RB merge patch: spec.clusters and applied-placement, the new shares */
    S_RESIZE_DROP,     /* delete: the PodGroup Works of clusters the gang left */
    /* hold */
    S_HOLD,
    /* a dispatched gang made without its OverridePolicy whose template stopped naming its
     * PodGroup (ctl__policy_follow): create: the policy */
    S_POLICY,
};

/* The barrier check lists the rendered Works again after this, doubling up to the max, while
 * Karmada renders (the gang timeout bounds the wait). */
#define CTL_BARRIER_RECHECK_MS 20
#define CTL_BARRIER_RECHECK_MAX_MS 1000

struct share {
    char cluster[CTL_CLUSTER_NAME_MAX];
    int32_t replicas;
    int running;
    uint64_t confirm_gen; /* the cluster's status generation when it was seen running */
    int64_t running_at;   /* when it was seen running */
    /* A split by groups (issue 20): the groups (a JobSet's Jobs, an LWS's groups) of each set
     * the share runs, set by set in template order; all 0 when not recorded. Kept on the ledger
     * row's clusters (docs/store.md), so a restart writes the same counts. */
    uint16_t groups[CTL_SPLIT_SETS_MAX];
};

/* What a pending gang's last victim search found, so it is not searched for again in vain. */
struct ctl_reclaim_memo {
    int searched;
    int found_nothing;
    uint64_t change_seq; /* c->rcl.change_seq when it searched */
};

struct comp {
    int32_t replicas;
    struct queue_resvec req; /* per replica */
};

struct binding {
    /* What the cycle reads of every gang the engine offers, first: one cache line per gang
     * when a backlog is skipped. The fields are ordered by size, largest first within each
     * group, so the struct has no padding holes (BENCH binding_struct_bytes): a million pending
     * bindings pay for every byte. Flags are uint8_t (0 or 1 unless said). */
    /* enum bstate, enum step and enum karmada_workload_kind, a byte each (issue 22) */
    uint8_t st;
    uint8_t step;
    uint8_t kind;
    uint8_t assign;
    uint8_t nofit;      /* the last cycle found no cluster for it */
    uint8_t ns_limited; /* the last cycle held it at its namespace's limit (tenancy.c) */
    /* That verdict holds while no cluster it may use grows (cluster.grew <= nofit_grow) and
     * the cluster set and its constraints stay (nofit_epoch): caps that only shrink cannot
     * make a gang fit, so it is not placed again until then. */
    uint8_t nofit_memo;
    uint8_t ids_bin; /* ids holds both (below) */
    uint64_t nofit_grow, nofit_epoch;
    uint64_t allow_epoch;
    struct binding *hnext;       /* by key */
    struct binding *tnext;       /* by template key */
    struct binding *prev, *next; /* in the waiting or the active list (list) */
    /* The binding's strings are allocated by size: a million pending bindings each paid for
     * the longest name Kubernetes allows. key lives in the binding's own allocation. */
    char *key;
    char *tkey; /* never NULL: tkey_none until the RB names its template */
    /* YuniKorn Soft (soft.c): when its gang guarantee lapses (unix ms, 0 never); soft: it has,
     * and it reads as min-member 1 */
    int64_t soft_at;
    /* The RB's uid and its permanent id (ctl__binding_set_ids; read them with ctl__uid and
     * ctl__pid). Both are UUIDs on a real hub: then 16 bytes each in ids (ids_bin), as the
     * packed RB has them; text they were 74 bytes of every pending binding (issue 22). Anything
     * else (or one of them unknown) is kept as text in ids_text: uid, NUL, pid, NUL (owned);
     * NULL and not ids_bin: both "". */
    char *ids_text;
    uint8_t ids[32];
    char *owner; /* owned: its template's --owner-annotation value; NULL: none (or not asked) */
    /* The latest RB and the template when last read (references), or NULL while it only waits
     * (cool.c): read them through ctl__rb and ctl__tmpl, which thaw them back. */
    json_object *rb;
    json_object *tmpl;
    uint32_t cool_at; /* its index + 1 in c->cool, 0 when not there */
    uint32_t cond_acked; /* condition writes acknowledged (see ctl_act's reply_acked) */
    int64_t generation;
    /* issue 20: the gang as a tree of groups (karmada/workload_groups.c); n 0 when the workload
     * has no group structure. A gang with a tree is placed by treeplace.c. */
    struct karmada_group_tree tree;
    const char *queue; /* interned (ctl__queue_intern): queue names are few; never NULL */
    struct queue_resvec gang;
    struct comp *comp; /* ncomp entries */

    int64_t ledger_id, created_at, attempt, not_before;
    /* What only a gang the protocol has run for, or reclaim has judged, holds (ctl__act):
     * NULL reads as all zero, so a binding never admitted holds none. */
    struct ctl_act *act;
    struct share *shares;
    /* why it waits: condition reason and message (ctl__binding_reason, ctl__binding_msg) in
     * one string, the reason first, shared by every binding that waits with the same (counted
     * references, bindings.c); dirty until written to the RB (cond_dirty) */
    char *msg; /* NULL: none (both read as "") */
    int64_t waiting_since; /* when it last joined the waiting list */
    /* which clusters its placement constraints allow, by index into c->fleet.cl, computed once
     * per cluster-set epoch (allow_epoch) and RB version (affinity is evaluated on JSON:
     * costly per cycle). A bit per cluster (ctl__allowed): a byte each was 256 bytes of every
     * pending binding. Bits from c->fleet.ncl up are 0. Clusters 0-63 in allow0, the rest in
     * allow_hi (CTL_ALLOW_WORDS - 1 words), allocated only when one of them is allowed: most
     * fleets have fewer, and 24 bytes of every pending binding were zeros (issue 22). */
    uint64_t allow0;
    uint64_t *allow_hi;
    /* A dispatched or running gang that grew: the difference waits as an admission of its own
     * (resize.c, docs/dispatcher.md "Scale up"). NULL: nothing waits. */
    struct ctl_grow *grow;
    /* A member of a gang made of several RBs (podgroup.c, docs/dispatcher.md "One gang, several
     * RBs"): its group, NULL for none. The group's lead holds the gang's engine entry, row and
     * protocol; its own read is folded with the members' (pg_folded) once all are present. */
    struct ctl_pgroup *pg;

    int32_t replicas, min_member, priority;
    int32_t group_size; /* scheduling.muster.io/group-size: pods never split between clusters */
    /* A JobSet or LeaderWorkerSet opted in to a split by groups (placement spread, one set of
     * groups: gang_split.h): the pods of one group; 0: not split. Each share then runs
     * replicas / split_pods whole groups, so the split is derived from the row's shares, in
     * their order (treeplace.c, ctl__split_fill). */
    uint32_t split_pods;
    uint32_t ncomp;
    uint32_t nshares;
    int32_t pg_own_replicas; /* its own pods, before a lead's fold */

    /* requests in flight and ledger writes not yet committed: a few per binding at most */
    int16_t inflight;
    int16_t lw_pending;
    int16_t side_inflight; /* condition writes: not part of any step */
    /* a split gang's sets of groups (a JobSet's replicated jobs, in template order; 1 for an
     * LWS; at most CTL_SPLIT_SETS_MAX): with more than one, each share's groups per set are on
     * the row (share.groups). See split_pods. */
    uint16_t split_sets;
    uint8_t list; /* 0 none, 1 waiting, 2 active */
    uint8_t in_retry;
    uint8_t soft;
    uint8_t spread, needs_objects;
    uint8_t barrier;
    int8_t user_dispatching; /* as the ledger row says: -1, 0 or 1 */
    uint8_t step_failed;
    uint8_t gone; /* the RB was deleted: free once nothing is in flight or unwritten */
    uint8_t rb_missing; /* a step's request found the RB gone: wait for its delete event */
    /* A Replace rewrote spec.clusters of a lifted RB (loss.c): until the watch shows the RB
     * placed as the shares say, a cached copy from before is not judged (it is lifted too, and
     * would read as someone else's change) */
    uint8_t rb_behind;
    uint8_t cond_dirty;
    /* Partial admission opted in (elastic.c): one component, assign mode, min_member below its
     * replicas. While pending its engine entry holds its minimum (ctl__engine_request). */
    uint8_t elastic;
    uint8_t pg_folded;
    /* ctl__binding_new left this many bytes after the key for the template key (tkey), which
     * the RB names from the start: an allocation of its own cost every pending binding 32 */
    uint8_t tkey_room;
};

/* A binding's state from its admission on (and reclaim's on a gang it judged), allocated on
 * the first write (ctl__act_w) and freed once all of it is zero again (ctl__act_trim): a
 * pending binding holds none of it. Zero is each field's meaning for "none". */
struct ctl_act {
    int64_t admitted_at, dispatched_at; /* as its row says */
    /* a failed step's back-off: the next try at retry_at (the retry list) */
    uint64_t retry_ms;
    int64_t retry_at;
    uint64_t aseq; /* its key in c->fleet.byseq while active: its shares are in the clusters' res */
    /* A shrink (resize.c): clusters the gang left whose PodGroup Works go last (S_RESIZE_DROP);
     * the RB changed while a step was in flight (read again when it is over: reread_due; the
     * resize steps wait for the step in flight: resize_owed); and the resourceVersion of
     * muster's own spec.clusters rewrite, so an older RB event is not taken for someone else
     * changing the placement. */
    char (*dropped)[CTL_CLUSTER_NAME_MAX];
    int64_t resize_rv;
    /* Reclaim (reclaim.c): when it was last preempted (0: never); as a beneficiary, until when
     * it waits for the room its victims free (no new search meanwhile) and the sentence it
     * waits with (owned, NULL: none); what its last search found. */
    int64_t preempted_at, rc_until;
    char *rc_wait;
    struct ctl_reclaim_memo rcm;
    uint32_t recheck_ms; /* the barrier check's back-off */
    uint32_t ndropped;
    uint8_t resume; /* its admitted row was written by readmit: the hub says where to go on */
    uint8_t reread_due, resize_owed;
    /* its gang objects were made without the OverridePolicy: its template names the PodGroup
     * and the scheduler itself (ctl__policy_skipped) */
    uint8_t no_policy;
    /* its Scheduled=True waited once for Karmada's first status aggregation (send_status) */
    uint8_t status_waited;
    /* the template's resourceVersion its policy was last judged on (policy_now) */
    int64_t policy_rv;
    /* Moved here from struct binding (session 11): a binding that only waits has them all zero
     * or NULL, and a million of them paid 80 bytes each for them. */
    json_object *reply; /* the body of the last step request that wanted one */
    json_object *fresh; /* the RB as the hub last answered it (S_LIFT, S_STATUS_READ) */
    /* A cluster it held a share in was lost (loss.c): what and why, until it is admitted
     * again. NULL: none. */
    struct ctl_loss *loss;
    struct ctl_hubpg_ent *hubpg; /* the hub PodGroup its last read asked for (hubgroups.c) */
    /* issue 20: the pods the last composite search placed (treeplace.c), whole or not: what a
     * gang with a group minimum may be admitted at (elastic.c) */
    int64_t tree_placed;
    /* What it asks of each member's racks (gang_nettopo.h), read with its tree: written in
     * the PodGroups of members with HyperNodes; a required one keeps it off the others. */
    struct karmada_member_topo mtopo;
    /* its last NoClusterFit came from a composite search its budget stopped (treeplace.c):
     * no proof that nothing fits, so not remembered as nofit_memo */
    int nofit_unproven;
    /* The Scheduled=True JSON patch (protocol.c send_status): the binding's cond_acked (its
     * condition writes acknowledged) when the request answered into reply, then fresh, was
     * sent, so a read that may predate one of them is not trusted to show every Scheduled
     * condition; status_reread: the patch was rebuilt from a GET after a 422 already (another
     * 422 waits out the back-off rather than read again at once). */
    uint32_t reply_acked, fresh_acked;
    int status_reread;
    struct binding *rnext; /* retry list (the binding's in_retry) */
};

/* b's struct ctl_act to read: all zero when it has none. */
extern const struct ctl_act ctl__act_none;
static inline const struct ctl_act *ctl__act(const struct binding *b)
{
    return b->act ? b->act : &ctl__act_none;
}
/* b's struct ctl_act to write, allocated if it has none. Out of memory: ctl__fatal, and a
 * scratch one nothing reads (the loop stops). */
struct ctl_act *ctl__act_w(struct ctl *c, struct binding *b);
/* Frees b's struct ctl_act if all of it is zero (reads are the same without it). */
void ctl__act_trim(struct binding *b);
/* Set b's ctl_act field of the name, allocating it only for a value other than zero: what
 * every read or cycle writes of every binding (zero for most). */
void ctl__act_set_mtopo(struct ctl *c, struct binding *b, const struct karmada_member_topo *t);
void ctl__act_set_tree_placed(struct ctl *c, struct binding *b, int64_t pods);
void ctl__act_set_nofit_unproven(struct ctl *c, struct binding *b, int unproven);
/* Lets b's last step answer (ctl_act reply) go. */
static inline void ctl__reply_drop(struct binding *b)
{
    if (b->act) {
        json_object_put(b->act->reply);
        b->act->reply = NULL;
    }
}

/* Cluster i of the fleet is one b's placement constraints allow (as of b->allow_epoch). */
static inline int ctl__allowed(const struct binding *b, uint32_t i)
{
    if (i < 64)
        return ((b->allow0 >> i) & 1) != 0;
    return i < CTL_ALLOW_MAX && b->allow_hi &&
           ((b->allow_hi[(i >> 6) - 1] >> (i & 63)) & 1) != 0;
}

/* The engine id of a binding's waiting delta: its row's id with this bit, so the delta is an
 * entry of its own beside the gang's (ledger ids are SQLite rowids, far below it). */
#define CTL_GROW_ID (UINT64_C(1) << 62)

/* A delta waiting to be admitted: what the gang asks for beyond what it holds. */
struct ctl_grow {
    int32_t replicas;        /* to add */
    struct queue_resvec req; /* the delta's whole request (ctl__grow_delta) */
    int64_t since;           /* its place in line: when the scale-up was asked for */
    int admitted;            /* this cycle admitted it: folded into the gang after the walk */
};

/* Why a cluster is lost to a gang that holds a share there (loss.c). */
enum ctl_loss_trigger {
    CTL_LOSS_NONE,
    CTL_LOSS_NOT_READY,  /* its Ready condition not True for longer than the grace period */
    CTL_LOSS_NO_EXECUTE, /* a NoExecute taint the placement does not tolerate (any more) */
    CTL_LOSS_EVICTED,    /* Karmada evicts the binding from it (gracefulEvictionTasks, or the
                            cluster dropped from spec.clusters by another controller) */
};

/* What the queue's onClusterLoss decides (loss.c). */
enum ctl_loss_decision {
    CTL_LOSS_REQUEUE, /* roll the whole gang back; requeued in its place, no back-off */
    CTL_LOSS_REPLACE, /* the lost share placed again, whole, on other clusters */
};

struct ctl_loss {
    char cluster[CTL_CLUSTER_NAME_MAX];
    enum ctl_loss_trigger trigger;
    int replace_wanted; /* Replace: the next cycle places the lost share, or requeues */
    int replaced;       /* ... and did: the lost share's Work goes once the row is committed */
    int64_t started;    /* unix ms the loss was seen: how long Replace waits for the reports */
    int settling;       /* ... and said it waits (once) */
    char detail[160];   /* "NotReady for 5m0s" */
};

/* What muster knows of one cluster under one gang's share, for ctl__cluster_lost. */
struct ctl_loss_facts {
    int ready;               /* the Ready condition is True */
    int64_t not_ready_since; /* unix ms it stopped being Ready (0: not known) */
    int64_t grace_ms;        /* --cluster-lost-grace */
    int noexec;              /* a NoExecute taint is not tolerated for ever */
    int64_t noexec_until;    /* ... and from this unix ms not at all (0: never was) */
    int evicted;             /* Karmada evicts the binding from it */
    int64_t now;
};

struct cluster {
    char name[CTL_CLUSTER_NAME_MAX];
    json_object *obj;
    int ready;
    /* The member speaks no gang dialect (dialects.c: none detected from status.apiEnablements,
     * or the operator's override says none): gangs that need a member-side gang are not
     * placed there */
    int no_podgroups;
    enum karmada_gang_dialect dialect_detected; /* from status.apiEnablements */
    /* the Workload API version its apiEnablements show (v1beta1 when they show none) */
    enum karmada_gang_wl_version wl_version;
    /* nor batch.volcano.sh/v1alpha1 jobs: a Volcano Job's Work would not apply there (the
     * member answers 404), so none is placed there */
    int no_vcjobs;
    /* the issue 19 kinds (KARMADA_WORKLOAD_KIND_API_BIT) whose CRD its apiEnablements do not
     * list: their Works would not apply there either */
    uint32_t no_kinds;
    /* What loss.c judges: since when the Ready condition is not True (0 while it is: its
     * lastTransitionTime, else when muster first saw it so), and whether spec.taints holds a
     * NoExecute taint (tolerated or not: each gang's placement decides) */
    int64_t unready_since;
    int noexec;
    uint64_t gen;   /* bumped on every status change */
    uint64_t shape; /* hash of what placement constraints read: labels and spec */
    struct queue_resvec capacity, allocated, allocating, free;
    struct disp_grade *grades;
    uint32_t ngrades;
    /* the cycle's working copy */
    struct disp_cluster_cap cap;
    uint32_t cap_grades_alloc;    /* cap.grades entries allocated (cap.ngrades may shrink) */
    struct queue_resvec reserved; /* muster's in-flight reservations, for the API */
    /* The shares reserved in cap, in the order they were reserved: cap is rebuilt from free
     * and these only when the cluster reports (stale), a share leaves, or a running share
     * stops counting (expire_at), not every cycle. */
    struct kres *res;
    uint32_t nres, capres;
    int stale;
    int reserved_dirty; /* reserved changed since the metrics last heard */
    int64_t expire_at;  /* after this a counted running share stops counting */
    uint64_t cap_ver;   /* bumped whenever cap changes */
    uint64_t grew; /* c->fleet.grow_seq when cap last grew (or the cluster came or turned Ready) */
    /* the last disp_cluster_fits on cap, valid while cap_ver == fit_ver */
    struct queue_resvec fit_shape;
    uint64_t fit_val, fit_ver;
    /* The first resource problem of its last two updates ("" when none): one logged in the
     * previous update is not logged again. */
    char res_warned[192], res_prev[192];
    /* its apiEnablements list Volcano's HyperNodes (karmada_member_topo_detect) ... */
    int hypernodes;
    /* 1 when it takes no networkTopology fields (no HyperNodes, or a dialect other than
     * Volcano): a gang whose member topology is required is not placed there */
    int no_nettopo;
    /* its Volcano reads highestTierName (karmada_member_topo_names_detect: the Cluster label,
     * else shard.volcano.sh nodeshards in apiEnablements); no_tiernames 1 when it takes no
     * networkTopology at all or no names: a gang whose required member topology names its tier
     * is not placed there */
    int tiernames;
    int no_tiernames;
};
/* k lacks an API a gang needs there: needs is cycle.c's place_needs (1 PodGroups, 2 Volcano
 * Jobs, 4 Volcano network topology (a required member topology), bits 8 and up the
 * KARMADA_WORKLOAD_KIND_API_BIT of an issue 19 kind). */
static inline int ctl__cluster_lacks(const struct cluster *k, int needs)
{
    return ((needs & 1) && k->no_podgroups) || ((needs & 2) && k->no_vcjobs) ||
           ((needs & 4) && k->no_nettopo) || ((needs & 8) && k->no_tiernames) ||
           (((uint32_t)needs >> 8) & k->no_kinds) != 0;
}

/* b asks a member's racks for a hard networkTopology (gang_nettopo.h): only members that take
 * the fields (cluster.no_nettopo 0) may hold it, as place_needs' bit 4 says. */
static inline int ctl__mtopo_required(const struct binding *b)
{
    const struct karmada_member_topo *t = &ctl__act(b)->mtopo;
    return b->needs_objects &&
           ((t->share.tier && t->share.required) || (t->group.tier && t->group.required));
}

/* b's required member topology names its tier (highestTierName): only members whose Volcano
 * reads names (cluster.no_tiernames 0) may hold it, as place_needs' bit 8 says. */
static inline int ctl__mtopo_names_required(const struct binding *b)
{
    const struct karmada_member_topo *t = &ctl__act(b)->mtopo;
    return b->needs_objects &&
           ((t->share.tier == KARMADA_NETTOPO_TIER_NAMED && t->share.required) ||
            (t->group.tier == KARMADA_NETTOPO_TIER_NAMED && t->group.required));
}

/* A share reserved in a cluster's cap: the binding's aseq and the share's index. */
struct kres {
    uint64_t aseq;
    uint32_t share;
};

/* A preemption remembered for the cooling rules (reclaim.c). */
struct ctl_rc_hist {
    char key[CTL_KEY_MAX];
    char queue[QUEUE_NAME_MAX + 1];
    int64_t at;
};

/* Preemption counts of one queue, to be added in the next ledger transaction. */
struct ctl_rc_count {
    char queue[QUEUE_NAME_MAX + 1];
    int64_t made, suffered;
};

/* A ledger write waiting for the end of the loop iteration. */
struct lwrite {
    struct binding *b;
    struct store_ledger_row row;
    /* owned: the shares as the row's JSON text (ctl__lw_set_clusters), or NULL. Not inline: a
     * burst of new rows (an informer's first list of a million pending RBs) is one batch, and
     * 1 KiB per entry was most of the batch's peak memory. */
    char *clusters;
    char reason[256];
    char *request; /* owned */
    char *loss;    /* owned: the ledger's loss record (JSON), NULL for none */
    char *grow;    /* owned: the row's waiting delta (JSON), "" clears it, NULL keeps it */
    int kind;      /* what to do after the commit */
};

enum lw_kind {
    LW_NEW,
    LW_ADMIT,
    LW_DISPATCHED,
    LW_RUNNING,
    LW_RELEASE,
    LW_ROLLBACK_OLD,
    LW_ROLLBACK_NEW,
    LW_REPLACE_OLD,
    LW_ADOPT,
    LW_ADOPT_ROW,
    LW_RESIZE,   /* a dispatched gang's row, updated in place: it holds less */
    LW_ZERO_OLD, /* a dispatched gang scaled to 0: released, a pending row takes its place */
    LW_LOSS_OLD, /* a cluster lost, Requeue: the rolledback row (the pending one is
                    LW_ROLLBACK_NEW) */
    LW_LOSS_REPLACE, /* a cluster lost, Replace: the row admitted again with the new placement */
    LW_GROW_ASK,     /* a dispatched gang grew: its delta recorded on the row, then queued */
    LW_GROW,         /* the delta admitted: the row admitted again, grown, with the new placement */
    LW_ADMIT_MIN,    /* an elastic gang admitted at its minimum, the rest recorded (elastic.c) */
    LW_MEMBER,       /* a member's row following its pod group's lead (podgroup.c): no action */
    LW_MEMBER_UNDO   /* a member's row back to pending, its lead gone mid-protocol: its undo */
};

struct request_ctx {
    struct ctl *c;
    struct binding *b;
    enum step step;
    int tolerate; /* MUSTER_* code that counts as success (ENOENT for deletes, EEXIST) */
    int side;     /* a condition write, outside the steps */
    enum kube_verb verb;
    int want_body; /* keep the answer in b->reply */
    /* A create answered 409 AlreadyExists is replaced: this body merge-patched onto this
     * object path (an earlier attempt's Work must carry this attempt's PodGroup). Owned. */
    char *again_path, *again_body;
};

/* hubgroups.c's index of bindings by the hub PodGroup they name: fixed chains (a PodGroup's
 * event walks one), keys "dialect/namespace/name". */
#define CTL_HUBPG_BUCKETS 4096
#define CTL_HUBPG_KEY_MAX (4 + 64 + KARMADA_WORKLOAD_NAME_MAX + 1)
struct ctl_hubpg_ent;

/* The controller's watches, one informer each (loop.c's ctl__watches). */
enum ctl_watch_id {
    CTL_W_RBS,
    CTL_W_CLUSTERS,
    CTL_W_WORKS,    /* muster's own PodGroup Works */
    CTL_W_POLICIES, /* muster's own OverridePolicies */
    CTL_W_PRIOS,
    CTL_W_DEPLOYMENTS, /* the templates, in the order of tmpl[] */
    CTL_W_JOBS,
    CTL_W_VCJOBS,
    CTL_W_PODS,
    CTL_W_STATEFULSETS,
    CTL_W_JOBSETS, /* issue 19's kinds: optional, a hub without the CRD serves none */
    CTL_W_LWS,
    CTL_W_PYTORCHJOBS,
    CTL_W_MPIJOBS,
    CTL_W_RAYCLUSTERS,
    CTL_W_RAYJOBS,
    CTL_W_NAMESPACES,  /* labels and the default-queue annotation (tenancy.c) */
    CTL_W_VCPODGROUPS, /* the hub's PodGroups that pods name (hubgroups.c): optional */
    CTL_W_COSCHEDPODGROUPS,
    CTL_W_WLPODGROUPS, /* the Workload API's (scheduling.k8s.io/v1alpha2) */
    CTL_W_TRAINJOBS,   /* Kubeflow Trainer's TrainJobs (tmpl[11]) and the runtimes they name */
    CTL_W_TRAININGRUNTIMES,
    CTL_W_CLUSTERTRAININGRUNTIMES,
    /* the Workload API's PodGroups at v1beta1 (Kubernetes 1.37); CTL_W_WLPODGROUPS is 1.36's
     * v1alpha2: a hub serves one of them, and hubgroups.c reads v1beta1 when it is served */
    CTL_W_WLPODGROUPS_V1BETA1,
    /* the Workload API's Workloads on the hub (v1alpha2, v1beta1: a hub serves one), read for
     * a JobSet whose replicated jobs name their pod group templates (hubgroups.c, issue 20) */
    CTL_W_WORKLOADS,
    CTL_W_WORKLOADS_V1BETA1,
    /* issue 22: the OverridePolicies not muster's and the ClusterOverridePolicies, read for a
     * template that names its own PodGroup (docs/gangobj.md) */
    CTL_W_USER_POLICIES,
    CTL_W_CLUSTER_POLICIES,
    CTL_NWATCHES
};

struct ctl;

/* One watch: where it lists, what it caches, and its handlers (NULL: nothing to do). */
struct ctl_watch {
    const char *metric; /* label of muster_watch_restarts_total */
    const char *group, *version, *resource;
    size_t informer;   /* offset of its kube_informer in struct ctl */
    int managed_only;  /* 1: only objects labelled managed-by muster; 2: only the others */
    int metadata_only; /* PartialObjectMetadata */
    int optional;      /* the hub may not serve it (a CRD not installed): a 404 is no error */
    int tmpl;          /* index into tmpl[], -1 for the others */
    json_object *(*cache)(json_object *obj); /* what the informer keeps of an object */
    void (*set)(struct ctl *c, const struct ctl_watch *w, json_object *o);
    void (*unset)(struct ctl *c, const struct ctl_watch *w, json_object *o);
};

extern const struct ctl_watch ctl__watches[CTL_NWATCHES];

/* What each informer's callbacks get: the controller and which watch it is. */
struct inf_tag {
    struct ctl *c;
    const struct ctl_watch *w;
    int synced;
    int absent; /* an optional kind the hub does not serve (its list answered 404) */
};

/* The longest owner value kept (an annotation value is free text: longer is cut). */
#define CTL_OWNER_MAX 253

/* namespaceLimits or ownerLimits: what each tenant may hold in a queue's subtree, its gangs
 * (0: no limit) and resources (an absent resource is no limit). */
struct ctl_limit {
    int on;
    int64_t max_gangs;
    struct queue_resvec max_res;
};

/* Who a limit counts: the binding's namespace, or its owner (--owner-annotation). */
enum ctl_tenant { CTL_TENANT_NAMESPACE, CTL_TENANT_OWNER, CTL_NTENANTS };

/* A queue that sets a namespaceSelector, namespaceLimits or ownerLimits (tenancy.c), by name. */
struct ctl_ten_queue {
    char name[QUEUE_NAME_MAX + 1];
    json_object *sel; /* checked; NULL: none */
    struct ctl_limit lim[CTL_NTENANTS];
};

/* What one tenant holds in one limited queue's subtree, keyed "<queue>/<namespace>" or
 * "<queue>/@<owner>". */
struct ctl_ns_use {
    char key[QUEUE_NAME_MAX + 2 + CTL_OWNER_MAX + 2];
    int64_t gangs;
    struct queue_resvec use;
};

/* A Kueue LocalQueue "<namespace>/<name>" and the queue that takes it (tenancy.c). */
struct ctl_local_queue {
    char key[2 * QUEUE_NAME_MAX + 2];
    char queue[QUEUE_NAME_MAX + 1];
};

/* A namespace's own default queue, replacing "default" for its workloads that name none. */
#define CTL_DEFAULT_QUEUE_ANNOTATION "scheduling.muster.io/default-queue"

struct qtimeout {
    char name[QUEUE_NAME_MAX + 1];
    int64_t ms;
};

/* The fleet as the cycle places against it (clusters.c). */
struct ctl_fleet {
    struct cluster *cl;
    uint32_t ncl, capcl;
    int dirty;
    uint64_t epoch;    /* bumped when a cluster comes, goes or changes labels or spec */
    uint64_t grow_seq; /* bumped whenever some cluster's room grows */
    int all_stale;     /* every cluster's cap is rebuilt at the next cycle */
    int admitting;     /* the cycle reserved the binding entering the active set already */
    struct queue_resvec scratch;
    uint64_t cap_changes;      /* bumped whenever any cluster's cap changes */
    struct queue_resvec total; /* the Ready fleet's capacity: the root queue's */
    struct queue_idmap byseq;  /* aseq -> active binding */
    uint64_t aseq_next;
};

/* When the cycle runs (cycle.c, loop.c). A cycle can admit nothing new unless the engine
 * changed (an entry came or went, a queue or the fleet changed: forced), some cluster's room
 * grew, the cluster set changed, or the last cycle stopped before the engine had offered
 * everything. A cluster report that only takes room away wants a cycle (the snapshot follows
 * it) but no engine pass. */
struct ctl_pace {
    int wanted, kick_active;
    uint64_t next_ns; /* uv_hrtime() before which no cycle starts */
    int pace_armed;
    int forced, last_cut;
    uint64_t last_grow, last_epoch;
};

/* Hub prerequisites (prereq.c, docs/operations.md): the gang-object APIs on the
 * karmada-apiserver (-1 not known yet, 0 missing, 1 served; Karmada's execution controller maps
 * a Work's manifest with the hub's RESTMapper, so a member's PodGroup is only ever applied when
 * the hub serves its kind too), and what is missing, for /readyz and the log. */
enum ctl_hub_api {
    CTL_HUB_VOLCANO,       /* scheduling.volcano.sh/v1beta1 podgroups */
    CTL_HUB_COSCHEDULING,  /* scheduling.x-k8s.io/v1alpha1 podgroups */
    CTL_HUB_WL_V1BETA1,    /* scheduling.k8s.io/v1beta1 podgroups (Kubernetes 1.37) */
    CTL_HUB_WL_V1ALPHA2,   /* scheduling.k8s.io/v1alpha2 podgroups (1.36) */
    CTL_HUB_APIS
};
struct ctl_prereq {
    int hub_pg; /* hub_api[CTL_HUB_VOLCANO]: what every gang of the Volcano dialect needs */
    int hub_api[CTL_HUB_APIS];
    int inflight;
    struct kube_call *call[CTL_HUB_APIS]; /* discovery requests in flight, cancelled on stop */
    struct ctl_prereq_ask {
        struct ctl *c;
        enum ctl_hub_api api;
    } ask[CTL_HUB_APIS];
    int64_t last;
    char missing[1024];
};
/* The hub API a member of dialect d (Workload API at version v) needs for its PodGroup Work;
 * CTL_HUB_APIS for a dialect that gets none. */
enum ctl_hub_api ctl__hub_api_of(enum karmada_gang_dialect d, enum karmada_gang_wl_version v);
/* 1 when the hub serves what a member of dialect d (version v) is sent, or is not known yet not
 * to (a hub not yet asked is not held against a member). */
int ctl__hub_serves(const struct ctl *c, enum karmada_gang_dialect d,
                    enum karmada_gang_wl_version v);

/* An operator's gang dialect for a cluster (schema/0009_cluster_dialect.sql), by name. */
struct ctl_dialect_override {
    char name[CTL_CLUSTER_NAME_MAX];
    enum karmada_gang_dialect dialect;
};

#define CTL_NTMPL 12 /* template informers: one per kind muster reads (ctl__watches' tmpl) */

struct ctl {
    uv_loop_t *loop;
    struct kube_client *kube;
    struct store *s;
    struct queue_tree *t;
    struct queue_resnames *names;
    struct ctl_options opt;
    char scheduler[KARMADA_WORKLOAD_NAME_MAX + 1];
    char pod_scheduler[KARMADA_WORKLOAD_NAME_MAX + 1];
    FILE *log;
    int synced, reconciled, leading, stopping;

    /* the informers (loop.c's ctl__watches) */
    struct kube_informer rbs, clusters, works, policies, prios;
    /* the OverridePolicies not muster's and the ClusterOverridePolicies: what could stand over a
     * template that names its own PodGroup (ctl__policy_contested) */
    struct kube_informer user_policies, cluster_policies;
    /* the operators' gang dialects (dialects.c), read from the store */
    struct ctl_dialect_override *dov;
    uint32_t ndov;
    /* ctl__fill_gang_input's scratch: a split gang's cells (ctl__split_fill) */
    struct karmada_gang_split gang_split[256 * CTL_SPLIT_SETS_MAX];
    /* A JobSet at fewer Jobs stepping down for its queues (cycle.c jobset_offer): the tree of
     * the Jobs it tries, which ctl__place_tree searches instead of the binding's; NULL none. */
    const struct karmada_group_tree *tree_view;
    /* ctl__fill_gang_input's scratch: each share's dialect, as c->w is its workload */
    enum karmada_gang_dialect gang_dialects[256];
    enum karmada_gang_wl_version gang_wl_versions[256]; /* and its Workload API version */
    uint8_t gang_net_topo[256]; /* and whether it takes networkTopology (no_nettopo is 0):
                                 * bit 1, and bit 2 when it reads tier names too */
    struct karmada_member_topo_names gang_topo_names; /* the gang's tier names, read again */
    /* deployments, jobs, volcano jobs, pods, statefulsets, then issue 19's kinds in the order
     * of CTL_W_JOBSETS.. */
    struct kube_informer tmpl[CTL_NTMPL];
    /* the bindings that took a tree this loop iteration (cool.c), and the check handle that
     * lets the waiting ones' go */
    struct {
        struct binding **v;
        size_t n, cap;
        size_t fresh; /* noted since the last run: kept ones (a condition write in flight) are
                         looked at again by the next run, not counted toward a batch */
    } cool;
    uv_check_t coolh;
    struct kube_informer namespaces;
    struct kube_informer hub_pgs[3]; /* Volcano's, coscheduling's, the Workload API's
                                        PodGroups (hubgroups.c) */
    struct kube_informer runtimes[2]; /* TrainingRuntimes, ClusterTrainingRuntimes (hubgroups.c) */
    struct kube_informer hub_wlpgs_v1beta1; /* the Workload API's PodGroups at v1beta1 */
    struct kube_informer hub_wls[2]; /* the Workload API's Workloads, v1alpha2 and v1beta1 */
    struct {
        struct ctl_hubpg_ent **v;      /* CTL_HUBPG_BUCKETS chains, allocated at the first note */
        char asked[CTL_HUBPG_KEY_MAX]; /* what the last ctl__workload_read looked up, "" none */
    } hubpg;
    struct {
        struct inf_tag tags[CTL_NWATCHES];
        int started, open, nsynced;
    } watch;

    /* bindings by key and by template key: chained hash tables (bindings.c) */
    struct binding **bykey, **bytkey;
    size_t nbuckets, nbindings;
    struct queue_idmap byid;        /* ledger id -> binding, for live rows */
    struct binding waiting, active; /* list heads */
    struct binding *retry;

    struct ctl_fleet fleet;
    struct ctl_pace cyc;
    /* The last NoClusterFit verdict of a one-component gang (cycle.c): a gang asking for the
     * same from the same clusters meets it too while no cap has changed (and gets the same
     * sentence). */
    struct {
        int valid;
        uint64_t cap_changes, epoch;
        struct queue_resvec req;
        int32_t comp_replicas, replicas;
        int spread;
        int needs; /* place_needs: the members left out for lack of an API */
        uint32_t ncl;
        uint64_t allow[CTL_ALLOW_WORDS];
        char reason[16];
        char msg[KARMADA_WORKLOAD_MSG_MAX];
    } nl;
    struct ctl_prereq pre;
    /* gangs made of several RBs, by group key (podgroup.c): CTL_PG_BUCKETS chains */
    struct ctl_pgroup **pgroups;

    /* the ledger writes of this loop iteration (ledger.c) */
    struct {
        struct lwrite *v;
        size_t n, cap;
    } lw;
    /* gangs whose lost share the next cycle places again (loss.c) */
    uint32_t replacing;
    /* deltas this cycle admitted, folded into their gangs once the walk is over, and deltas
     * waiting in the engine, whose reasons each cycle refreshes (resize.c) */
    uint32_t growing, grows_waiting;
    int64_t last_loss_sweep;
    /* reclaim.c: clusters' stable ids in the victim index (names[id]), and a sequence bumped
     * whenever the index changes (a search that found nothing is not repeated before) */
    struct {
        char (*names)[CTL_CLUSTER_NAME_MAX];
        uint32_t n, cap;
        uint64_t change_seq;
        /* No search before this (unix ms): an earlier preemption's victims are still being
         * evicted, or their room not yet taken by its beneficiary (cleared when it is) */
        int64_t busy_until;
        struct queue_reclaim *rc; /* the search's workspace */
        /* this cycle's gangs to search for, after the engine's pass */
        uint64_t want[CTL_RECLAIM_SEARCHES_PER_CYCLE];
        uint32_t nwant;
        /* the last CTL_RECLAIM_HISTORY preemptions, a ring: for the cooling rules */
        struct ctl_rc_hist *hist;
        uint32_t hist_at, nhist;
        /* preemption counts decided since the last flush: written in its transaction */
        struct ctl_rc_count *cnt;
        uint32_t ncnt, capcnt;
    } rcl;
    /* the queues' gang timeouts (follow.c) */
    struct {
        struct qtimeout *v;
        size_t n, cap;
    } qt;
    /* the queues that set a namespaceSelector, sorted by name (tenancy.c) */
    struct {
        struct ctl_ten_queue *v;
        size_t n, cap;
        struct ctl_local_queue *lq; /* sorted by key */
        size_t nlq, caplq;
        size_t nlimited;         /* entries of v with limits */
        struct ctl_ns_use *use; /* sorted by key; rebuilt each cycle while nlimited */
        size_t nuse, capuse;
        int64_t metrics_at; /* when the per-namespace gauges are counted again */
    } ten;

    uv_timer_t tick;
    uv_idle_t kick;  /* runs the cycle and the ledger flush once per loop iteration */
    uv_timer_t pace; /* a paced cycle's wake-up (CTL_CYCLE_DUTY) */
    uv_timer_t soon; /* retries due before the next tick (the barrier's re-checks) */
    int64_t soon_at; /* when soon fires; 0 when it is not armed */
    /* the tick's sweeps (loop.c): waiting conditions within a budget, orphans */
    struct {
        uint64_t budget;
        int64_t budget_at;
        struct binding *cursor;
        int64_t last_orphans;
    } sweep;

    struct karmada_workload w; /* scratch for reads */
    /* scratch for cluster checks: only its placement pointers are set, borrowed from a
     * binding's RB; never read into or closed (a read would drop references it never took) */
    struct karmada_workload aw;
    struct ctl_stats st;
    void (*stop_cb)(void *ud);
    void *stop_ud;
    int handles_open;
    /* The queue names bindings point at (ctl__queue_intern), an open-addressed set; kept until
     * ctl_free: queue names are few, and a binding's is a pointer, not 254 bytes. */
    struct {
        char **v;
        uint32_t n, cap;
    } qn;
};

extern const char *const ctl__state_names[];

/* ---- small helpers ---- */

static inline int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t now_ms(const struct ctl *c)
{
    return c->opt.now_ms ? c->opt.now_ms() : wall_ms();
}

static inline void rfc3339(int64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static inline void obj_key(json_object *obj, char *buf, size_t cap)
{
    json_object *md = kube_json_get(obj, "metadata");
    const char *ns = kube_json_str(md, "namespace"), *name = kube_json_str(md, "name");
    snprintf(buf, cap, "%s/%s", ns ? ns : "", name ? name : "");
}

/* ---- shared between the controller's files, by the file that defines them ---- */

/* bindings.c */
/* A binding's tkey until its RB names a template. */
extern char ctl__tkey_none[1];
/* b's uid and permanent id as text ("" until read), written into buf (CTL_UID_MAX) and
 * returned: buf always holds the answer, whether they are kept as bytes or as text. */
const char *ctl__uid(const struct binding *b, char buf[CTL_UID_MAX]);
/* 1 when uid (NULL: none) is not b's and b's is known: another RB under the same name. */
int ctl__uid_other(const struct binding *b, const char *uid);
const char *ctl__pid(const struct binding *b, char buf[CTL_UID_MAX]);
void ctl__binding_clear_read(struct binding *b);
void ctl__binding_destroy(struct binding *b);
const char *ctl__binding_msg(const struct binding *b);
/* Its condition reason ("" none), at most 15 characters. */
const char *ctl__binding_reason(const struct binding *b);
/* b's ledger row is id now: c->byid finds it by that id, no longer by the one it had (the map
 * reads each binding's own ledger_id, so the two change together). */
void ctl__byid_set(struct ctl *c, struct binding *b, int64_t id);
/* Sets b's uid (NULL: "") and its permanent id (NULL: kept); MUSTER_ENOMEM leaves both "". */
int ctl__binding_set_ids(struct binding *b, const char *uid, const char *pid);
/* The set's copy of queue name q (NULL when out of memory). */
const char *ctl__queue_intern(struct ctl *c, const char *q);
/* b->queue = q's copy; out of memory: "" and MUSTER_ENOMEM. */
int ctl__binding_set_queue(struct ctl *c, struct binding *b, const char *q);
/* A binding for key, with room after its key for a template key of tkey_len characters (0:
 * none; what does not fit is allocated when it is set). */
struct binding *ctl__binding_new(struct ctl *c, const char *key, size_t tkey_len);
/* The length of the template key rb names (the kind's index at most two digits), 0 when none:
 * what ctl__binding_new leaves room for. */
size_t ctl__rb_tkey_len(json_object *rb);
void ctl__binding_react(struct ctl *c, struct binding *b, int template_changed);
int ctl__binding_read(struct ctl *c, struct binding *b);
void ctl__binding_try_queue(struct ctl *c, struct binding *b);
int ctl__engine_add(struct ctl *c, struct binding *b);
struct binding *ctl__find_key(const struct ctl *c, const char *key);
void ctl__hold_if_needed(struct ctl *c, struct binding *b);
__attribute__((format(printf, 2, 3))) void ctl__logf(struct ctl *c, const char *fmt, ...);
void ctl__maybe_free(struct ctl *c, struct binding *b);
__attribute__((format(printf, 3, 4))) void ctl__notice(struct ctl *c, const char *level,
                                                       const char *fmt, ...);
void ctl__publish_binding(struct ctl *c, const struct binding *b, const char *state,
                          const char *reason);
struct kube_jw;
/* The "binding" event's data object as text (ctl__publish_binding; its unit test). */
void ctl__binding_event_text(struct kube_jw *w, struct ctl *c, const struct binding *b,
                             const char *state, const char *reason);
void ctl__rb_gone(struct ctl *c, json_object *rb);
int ctl__rb_skipped(json_object *rb);
void ctl__rb_upsert(struct ctl *c, json_object *rb);
__attribute__((format(printf, 3, 4))) void ctl__set_reason(struct binding *b, const char *reason,
                                                           const char *fmt, ...);
void ctl__set_state(struct ctl *c, struct binding *b, enum bstate st);
int ctl__tables_grow(struct ctl *c);
void ctl__tmpl_changed(struct ctl *c, int ti, json_object *obj);
void ctl__work_changed(struct ctl *c, json_object *wk, int deleted);

/* clusters.c */
void ctl__cap_take(struct ctl *c, struct cluster *k, const struct binding *b,
                   const struct share *sh);
void ctl__cluster_close(struct cluster *k);
struct cluster *ctl__cluster_find(struct ctl *c, const char *name);
void ctl__cluster_remove(struct ctl *c, json_object *obj);
void ctl__cluster_set(struct ctl *c, json_object *obj);
int ctl__cycle_snapshot(struct ctl *c);
void ctl__shares_track(struct ctl *c, struct binding *b);
void ctl__shares_untrack(struct ctl *c, struct binding *b);

/* resize.c */
/* The condition reason of a gang scaled to 0 (it waits, holding nothing). */
#define CTL_REASON_SCALED_TO_ZERO "ScaledToZero"
/* How a change of a dispatched gang that is not followed (its re-read refused: a size that is
 * no whole number of groups, below min-member; a split resized) begins its sentence (resize.c) */
#define CTL_RESIZE_REFUSED "change not followed: "
/* 1 when rb's Scheduled condition is such a refusal (written after the dispatch's True). */
int ctl__resize_refused_on_rb(json_object *rb);
/* At start-up, a dispatched or running row whose RB cannot be read (scaled to a size that is no
 * whole number of groups, below its min-member): followed as placed, the refusal said again. */
void ctl__resize_unreadable(struct ctl *c, struct binding *b);
/* One side of a gang read again: its replicas, components and whole request (borrowed). */
struct ctl_resize_side {
    int32_t replicas;
    uint32_t ncomp;
    const struct queue_resvec *gang;
    const struct comp *comp;
};
enum ctl_resize {
    RESIZE_SAME,   /* it asks for what it holds */
    RESIZE_SHRINK, /* nothing grows, something shrinks: capacity released */
    RESIZE_GROW,   /* something grows: the difference is admitted as a delta of its own */
    RESIZE_ZERO    /* scaled to 0: released */
};
enum ctl_resize ctl__resize_judge(const struct ctl_resize_side *was,
                                  const struct ctl_resize_side *now);
uint32_t ctl__shares_shrink(struct share *sh, uint32_t n, int32_t replicas);
/* The same for a gang of groups of `group` replicas (issue 20): whole shares given up first, the
 * smallest first, then whole groups from the last placed; every share stays whole groups
 * (resize.c). Returns how many are kept. Pure. */
uint32_t ctl__shares_shrink_groups(struct share *sh, uint32_t n, int32_t replicas, int32_t group);
/* Growth (docs/dispatcher.md, "Scale up"): the pure parts the delta admission is built on. */
/* What a gang that grew (RESIZE_GROW) asks for beyond what it holds: *dreplicas = now's
 * replicas - was's (0 or more), delta = per resource max(0, now - was) of the whole request, so
 * the delta is admitted as an entry of its own and the gang's entry grown by no more than it
 * (queue_entry_resize's contract). 0, or MUSTER_ENOMEM (delta cleared). Pure. */
int ctl__grow_delta(const struct ctl_resize_side *was, const struct ctl_resize_side *now,
                    struct queue_resvec *delta, int32_t *dreplicas);
/* The whole request of a one-component gang at `replicas`: what an elastic gang is admitted at
 * when only its minimum fits (replicas = min-member). 0, MUSTER_EINVAL for several components
 * or replicas outside [0, comp's], MUSTER_ERANGE on overflow, MUSTER_ENOMEM. Pure. */
int ctl__gang_at(const struct comp *comp, uint32_t ncomp, int32_t replicas,
                 struct queue_resvec *out);
/* One cluster a delta may use and how many more replicas of the gang it can take. */
struct ctl_grow_room {
    const char *cluster;
    int32_t fits;
};
/* Places `add` more replicas over the gang's shares sh[0..*n) (capacity cap), preferring the
 * clusters the gang already uses, in their order, then the others of room[] in room's order
 * (a new share appended). room[] names each allowed cluster once. Returns the replicas left
 * unplaced (0: all placed); sh and *n are changed only when 0 is returned. Pure. */
int32_t ctl__shares_grow(struct share *sh, uint32_t *n, uint32_t cap,
                         const struct ctl_grow_room *room, uint32_t nroom, int32_t add);
/* Each room[i].fits cut to a whole number of groups of `group` replicas (group > 1), so that
 * ctl__shares_grow, adding a whole number of groups, gives each cluster whole groups: a
 * group-size gang's scale up never cuts a group between clusters. Pure. */
void ctl__grow_rooms_whole(struct ctl_grow_room *room, uint32_t n, int32_t group);
/* The sentence an RB's condition and the API give while a delta waits:
 * "scale up by <d> replicas waits: <why>" (why: the queue's or placement's own sentence). */
void ctl__grow_wait_message(char *buf, size_t cap, int32_t dreplicas, const char *why);
/* A dispatched or running binding whose RB or template changed: read again, and a gang that
 * shrank or went to 0 acted on (returns 1; the row is written at the flush). */
int ctl__resize_check(struct ctl *c, struct binding *b, int template_changed);
void ctl__resize_apply(struct ctl *c, struct binding *b);
void ctl__resize_resume(struct ctl *c, struct binding *b);
void ctl__resize_from_row(struct ctl *c, struct binding *b, const struct queue_resvec *row_gang);
/* The cycle offers a delta's engine entry (id & CTL_GROW_ID): placed preferring the gang's
 * clusters and admitted through the queues. 0 when admitted (the row goes back to admitted
 * with the grown placement; the entry is folded into the gang's by ctl__grows_fold), 1 when it
 * waits (its reason says why) or cannot be judged now. */
int ctl__grow_offer(struct ctl *c, struct queue_entry *e);
/* After the cycle's walk: each delta admitted is removed and its gang's entry grown by it. */
void ctl__grows_fold(struct ctl *c);
/* Each cycle: why each waiting delta the queues refuse waits (QuotaExceeded, with figures),
 * on the RB's condition and in the API; the engine does not offer those to the cycle. */
void ctl__grows_sweep(struct ctl *c);
/* b's delta is committed to the ledger: its engine entry is added (LW_GROW_ASK). */
void ctl__grow_queued(struct ctl *c, struct binding *b);
/* b's waiting delta, if any, leaves the engine and b. Returns 1 when there was one. */
int ctl__grow_cancel(struct ctl *c, struct binding *b);
/* At start-up: a dispatched or running row's waiting delta (its grow record) back in b. */
void ctl__grow_restore(struct ctl *c, struct binding *b, const char *record);

/* soft.c: YuniKorn's Soft style. ctl__soft_deadline is when a gang read into w that has been
 * waiting since since_ms (unix ms) gives up its gang guarantee: 0 for none (no YuniKorn task
 * groups, Hard style, min-member 1 already). ctl__soft_lapsed: whether a gang judged at `at`
 * (unix ms; 0 never) is past deadline. Both pure. ctl__soft_apply, at the end of
 * ctl__binding_read: sets b->soft_at, and when it lapsed (now for a waiting gang, at its
 * admission for an admitted one) b->soft, min-member 1 and the elastic path. */
#define CTL_SOFT_DEFAULT_TIMEOUT_S 900 /* YuniKorn's placeholderTimeoutInSeconds default */
int64_t ctl__soft_deadline(const struct karmada_workload *w, int64_t since_ms);
int ctl__soft_lapsed(int64_t deadline, int64_t at);
void ctl__soft_apply(struct ctl *c, struct binding *b, const struct karmada_workload *w);
/* The admission's sentence of a gang admitted soft (partial: at its minimum, the rest in grow). */
void ctl__soft_reason(char *buf, size_t cap, const struct binding *b, int partial);

/* elastic.c: partial admission (docs/dispatcher.md, "Partial admission"). */
enum ctl_elastic {
    ELASTIC_WHOLE, /* the whole gang fits its queues and a placement: admitted whole */
    ELASTIC_MIN,   /* only its minimum fits: admitted at min-member, the rest waits as a delta */
    ELASTIC_WAIT   /* not even its minimum: it waits */
};
/* Whole first (what the user asked for), then the minimum, for a gang that opted in; a gang
 * that did not gets only the whole. Pure. */
enum ctl_elastic ctl__elastic_judge(int elastic, int whole_quota, int whole_fits, int min_quota,
                                    int min_fits);
/* A one-component gang of comp[0].replicas asking `gang` in all, split at min_member: at_min
 * its whole request at min_member, delta what the rest asks (gang - at_min, per resource, never
 * negative), *dreplicas the replicas the rest is. The pods resource is counted in at_min only
 * when gang counts it (the queues do not; placement does). 0, MUSTER_EINVAL (not one component,
 * or min_member outside [1, replicas)), MUSTER_ERANGE, MUSTER_ENOMEM. Pure. */
int ctl__elastic_split(const struct comp *comp, uint32_t ncomp, int32_t min_member,
                       const struct queue_resvec *gang, uint32_t pods, struct queue_resvec *at_min,
                       struct queue_resvec *delta, int32_t *dreplicas);
/* The request a pending b waits with in the engine: its minimum when elastic (so the queues
 * offer it once the minimum fits), else its whole gang. *req points at b->gang or at out; the
 * caller closes out either way. */
int ctl__engine_request(struct ctl *c, const struct binding *b, struct queue_resvec *out,
                        const struct queue_resvec **req);
/* b (read at its full size) holds only its minimum: b goes to min-member and the rest becomes
 * its waiting delta (b->grow, in line from its creation). 0 or MUSTER_*; b unchanged on error. */
int ctl__elastic_hold_min(struct ctl *c, struct binding *b);
/* b holds at_replicas of its replicas (its minimum or, for a gang with a group minimum, whole
 * groups above it), the rest its waiting delta. */
int ctl__elastic_hold_at(struct ctl *c, struct binding *b, int32_t at_replicas);
/* Issue 20 (docs/composite.md, "Admitted at its minimum"): b is a group-size gang in assign
 * mode whose root needs fewer groups than it has; it goes the partial-admission path without
 * the elastic opt-in, in whole groups. Pure. */
int ctl__tree_min(const struct binding *b);
/* The pods b is admitted at when only its minimum fits: a tree minimum's (ctl__tree_min_pods
 * of the root), else min-member. Pure. */
int32_t ctl__elastic_min(const struct binding *b);
/* The step of a partial admission above the minimum: a group's pods, else 1 (never used). */
int32_t ctl__elastic_unit(const struct binding *b);
/* The fewest pods group `at` of t can be placed with: a leaf its pods (never cut), an inner
 * group the sum of its min_count smallest children's minimums. Pure. */
int64_t ctl__tree_min_pods(const struct karmada_group_tree *t, uint32_t at);
/* The size a gang with a group minimum is admitted at when the whole does not both fit and
 * pass its queues: the most pods in whole groups of unit above min, no more than the search
 * placed (placed) nor whole, that quota(ud, size) says the queues take; min when none does
 * (the engine offered the entry, which holds the minimum); 0 when the search placed less than
 * min (it waits). Pure but for quota. */
int32_t ctl__tree_admit_size(int32_t whole, int32_t min, int32_t unit, int64_t placed,
                             int (*quota)(void *ud, int32_t size), void *ud);
/* The tree of a Volcano Job's minimum (treeplace.c): t's flat tree of tasks with each leaf at
 * its min_count (tasks of 0 left out) and the root needing every leaf left, in buf (cap
 * groups; the leaves' requests are t's, borrowed). A task of partitions (Volcano v1.14) is one
 * leaf there, of the partitions its minimum needs: the job goes to one cluster, where that is
 * the same room node by node. Its pods, or 0 when t is not a Volcano
 * Job's tree, or its minimum is the whole (*out then empty). Pure. */
int64_t ctl__vcjob_min_tree(const struct karmada_group_tree *t, struct karmada_group *buf,
                            uint32_t cap, struct karmada_group_tree *out);
/* b's row holds fewer replicas than b reads and records the rest as its delta (an admitted row
 * of a partial admission, at start-up): b goes back to what its shares hold, the delta back
 * into b->grow (queued once dispatched). */
void ctl__elastic_restore(struct ctl *c, struct binding *b, const char *grow_record);
/* b's waiting delta rejoins b before a requeue: the pending row asks for the whole again. */
void ctl__elastic_whole(struct binding *b);
/* The row's grow record of a delta (JSON: replicas, request, since), or NULL (ENOMEM). */
char *ctl__grow_record(struct ctl *c, const struct ctl_grow *g);

/* treeplace.c: a gang read as a tree of groups */
struct ctl_tree_share {
    uint32_t cluster; /* index into the candidates */
    uint64_t pods;
};
/* The shares of a composite placement (cluster[i]: leaf i's candidate, or < 0): per cluster,
 * in order of first use, the pods of the leaves placed there, taking whole leaves in tree
 * order until target pods; 0 when the placed leaves cannot make exactly target (a group would
 * be cut, or too few are placed). out holds at least ncl entries. Pure. */
uint32_t ctl__tree_shares(const struct karmada_group_tree *t, const int32_t *cluster,
                          uint32_t ncl, int64_t target, struct ctl_tree_share *out);
/* Places b's tree over the candidates caps[0..n) (fleet indexes idx): 1 with b->shares set,
 * 0 with the NoClusterFit (or Unschedulable) sentence set, or MUSTER_ENOMEM. */
int ctl__place_tree(struct ctl *c, struct binding *b, const struct disp_cluster_cap *caps,
                    const uint32_t *idx, uint32_t n);
/* The split of b (b->split_pods set) from its shares into cells[0..b->nshares x
 * ctl__split_nsets(b)), share by share: each share's whole groups per set, all of which must
 * run (the commit is all or nothing). The groups the row recorded per share (share.groups)
 * when it has them, and they hold exactly each share's replicas; else, for one set only, each
 * share's replicas / split_pods. 1 when filled, else 0 (not split, several sets without
 * counts, or counts that do not hold the replicas: nothing is filled). Pure. */
int ctl__split_fill(const struct binding *b, struct karmada_gang_split *cells);
/* The sets of groups of a split b (1 for a LeaderWorkerSet or a row of one set). */
uint32_t ctl__split_nsets(const struct binding *b);
/* Issue 20, a JobSet at fewer Jobs (docs/composite.md, "A JobSet at fewer Jobs"): b is a JobSet
 * in assign mode structured by a hub Workload one of whose levels (a CompositePodGroup
 * template) needs fewer children than it has, so it may run without some Jobs. Pure. */
int ctl__jobset_min(const struct binding *b);
/* The Jobs of b's tree (its leaves with pods); *held (optional) the Jobs its shares run, by
 * the groups recorded per share and set. Pure. */
uint32_t ctl__jobset_jobs(const struct binding *b, uint32_t *held);
/* 1 when b (split, ctl__jobset_min) runs some but not all of its Jobs. Pure. */
int ctl__jobset_partial(const struct binding *b);
/* The sentence of a JobSet at fewer Jobs ("admitted at 3 of its 4 Jobs (composite training
 * needs 3 of 4): ..."), from its shares and tree (so a restart says it again), into buf; 1
 * when b is one (ctl__jobset_partial), else 0 and buf untouched. Pure. */
int ctl__jobset_min_sentence(const struct binding *b, char *buf, size_t cap);
/* The request of what b's shares run (b->gang less the left-out Jobs' pods of each replicated
 * job), into out. 0, MUSTER_EINVAL (not a split JobSet) or MUSTER_ENOMEM. Pure. */
int ctl__jobset_request(const struct binding *b, struct queue_resvec *out);
/* The request of the leaves of b's tree marked in keep[0..tree.n) (NULL: its minimum, each
 * level's min_count children of the fewest pods, as ctl__tree_min_pods counts them): their pods
 * times each leaf's request, over the resources b->gang names. 0 or MUSTER_ENOMEM. Pure. */
int ctl__jobset_leaves_request(const struct binding *b, const uint8_t *keep,
                               struct queue_resvec *out);
/* b's minimum marked in keep[0..t->n): each level's min_count children of the fewest pods (the
 * leaves; what ctl__jobset_leaves_request counts for NULL). Pure. */
void ctl__jobset_min_keep(const struct karmada_group_tree *t, uint8_t *keep);
/* One step down from the Jobs marked in keep (b's tree): unmarks the last marked Job in tree
 * order whose removal leaves every level at least its min_count (a level with a Job marked
 * counts as placed). 1 when one was unmarked, 0 when none can be. Pure. */
int ctl__jobset_step_down(const struct karmada_group_tree *t, uint8_t *keep);
/* The tree of t's groups marked in keep (leaves; inner groups kept while a child is), into
 * buf (cap groups; requests borrowed, parents renumbered). Its size, 0 when it has no leaf.
 * Pure. */
uint32_t ctl__jobset_view(const struct karmada_group_tree *t, const uint8_t *keep,
                          struct karmada_group *buf, uint32_t cap);
/* Moving part of a placed tree gang (a lost cluster's Replace, a scale up): the tree's
 * required constraints, judged on the Cluster objects of the clusters its groups are in, a
 * group being whole in one cluster.
 * ctl__tree_cluster_ok: 1 when cand may take more of t's groups while the gang keeps groups in
 *   kept[0..nk): for every required PACK of the root, cand has the level's value every kept
 *   cluster has; for a required PACK of any other group, cand has a value (a group in one
 *   cluster is in one domain of it). An empty tree: 1.
 * ctl__tree_required_ok: 1 when the clusters objs[0..n) that hold the gang's groups meet its
 *   required constraints: the root's PACKs (one value of the level among them all), its
 *   SPREADs (at least min_domains values), any other group's PACKs (every one has a value).
 *   Pure. */
/* Whether b's tree would be placed over caps[0..n) (fleet indexes idx) as ctl__place_tree
 * places it at admission (the same candidates, search and whole-group count; a JobSet at
 * fewer Jobs, ctl__jobset_min, or a gang with a group minimum, ctl__tree_min: at least its
 * minimum, as jobset_offer and tree_offer admit them), without setting anything: reclaim's
 * dry run asks it of the room its victims would free. 1 or 0 (out
 * of memory: 0, nothing is preempted for it). */
int ctl__tree_fits(struct ctl *c, struct binding *b, const struct disp_cluster_cap *caps,
                   const uint32_t *idx, uint32_t n);
int ctl__tree_cluster_ok(const struct karmada_group_tree *t, json_object *const *kept,
                         uint32_t nk, json_object *cand);
int ctl__tree_required_ok(const struct karmada_group_tree *t, json_object *const *objs,
                          uint32_t n);
/* Of share sh of b, the pods of component j: a split LeaderWorkerSet's share holds a leader
 * and split_pods - 1 workers per group, a split JobSet's its groups of replicated job j
 * (share.groups) times that job's pods; any other gang of several shapes goes whole to one
 * cluster (its components' replicas); one shape, the share's replicas. */
int64_t ctl__share_comp_pods(const struct binding *b, const struct share *sh, uint32_t j);

/* cycle.c */
void ctl__cycle(struct ctl *c);
int ctl__rb_dispatching(json_object *rb);
int ctl__rb_lists_cluster(json_object *rb, const char *cluster);
size_t ctl__rb_nclusters(json_object *rb);
int ctl__shares_reserve(struct binding *b, uint32_t n);
int64_t ctl__fits_all_components(const struct binding *b, const struct disp_cluster_cap *k);
int ctl__cluster_allows(struct ctl *c, struct binding *b, const struct cluster *k);
int ctl__user_holds_dispatching(struct ctl *c, const struct binding *b);
int ctl__place_usable(struct ctl *c, struct binding *b, uint32_t i);

/* ledger.c */
/* b's shares as the ledger row's clusters JSON into buf (cut at cap): name, replicas and, for
 * a split by groups, the groups per set ("groups": docs/store.md). */
void ctl__clusters_text(const struct binding *b, char *buf, size_t cap);
/* w's row gets b's shares as text (owned by w, freed with the batch): 0 or MUSTER_ENOMEM. */
int ctl__lw_set_clusters(struct lwrite *w, const struct binding *b);
void ctl__fatal(struct ctl *c, const char *what);
int ctl__leads(const struct ctl *c);
void ctl__ledger_flush(struct ctl *c);
struct lwrite *ctl__lw_add(struct ctl *c, struct binding *b, int kind, const char *state);
/* A write that marks b's live row admitted, with b's shares as its placement, at `at` (the
 * cycle's admission, a Replace, a readmit at start-up). NULL once out of memory (ctl__fatal). */
struct lwrite *ctl__lw_admitted(struct ctl *c, struct binding *b, int kind, int64_t at);
int ctl__lw_fill_new(struct ctl *c, struct lwrite *w, struct binding *b);
/* A ledger row's request text for v (the bytes json-c prints for kube_resvec_json's tree),
 * allocated; NULL when out of memory. */
char *ctl__request_text(const struct ctl *c, const struct queue_resvec *v);

/* protocol.c: the step transitions are pure (tests/unit/dispatcher/controller/test_protocol.c) */
enum step ctl__step_next(const struct binding *b);
enum step ctl__step_released(const struct binding *b);
enum step ctl__undo_first(struct ctl *c, const struct binding *b);
void ctl__fill_gang_input(struct ctl *c, struct binding *b, struct karmada_gang_input *in,
                          struct karmada_gang_share *gs);
/* Issue 22: a gang whose template already names its PodGroup and scheduler gets no
 * OverridePolicy and no barrier (docs/gangobj.md, "A template that names its PodGroup"). After
 * its PodGroup Works are Applied: S_ASSIGN_LIFT while the template still reads so at the same
 * resourceVersion; S_OBJECTS when it was skipped at step 2 but the template changed since (step
 * 2 judges it again); else S_ASSIGN. */
enum step ctl__assign_step(struct ctl *c, struct binding *b);
/* A dispatched or running gang made without its policy (any with none on the hub at start-up),
 * looked at again (an event, a step over, start-up): when its template, as the informer has it
 * now, no longer reads as the policy would make it, the policy is created (S_POLICY), so Karmada
 * renders the group back into the pods it starts from then on. Each template version is judged
 * once. */
void ctl__policy_follow(struct ctl *c, struct binding *b, int startup);
/* At start-up: b's objects were made without its policy (none is on the hub), for the
 * template as it is now (no_policy and policy_rv are not on the row). */
void ctl__policy_memo(struct ctl *c, struct binding *b);
/* 1 when b's gang may go without its policy now (policy_now's judgment), for step 2's check on
 * the hub at start-up. */
int ctl__policy_skip_now(struct ctl *c, struct binding *b);
/* 1 when an OverridePolicy or ClusterOverridePolicy not muster's selects tmpl and overrides a
 * path muster's policy op (borrowed) would set: without muster's own, applied last, it would
 * win (karmada_gang_policy_contested). */
int ctl__policy_contested(struct ctl *c, json_object *op, json_object *tmpl);
/* 1 when b's OverridePolicy (muster-<RB name>) is in the policies' informer. */
int ctl__policy_listed(struct ctl *c, const struct binding *b);
enum step ctl__forward_first(const struct binding *b);
void ctl__mark_dispatched(struct ctl *c, struct binding *b);
void ctl__on_response(int err, const struct kube_response *resp, void *ud);
json_object *ctl__own_work(struct ctl *c, const struct binding *b, const char *cluster);
int ctl__send_condition(struct ctl *c, struct binding *b);
/* Writes Scheduled=True (reason Success) back on b's RB outside the steps, once what made it
 * False no longer stands (a refused resize withdrawn: resize.c). 1 when sent. */
int ctl__send_scheduled(struct ctl *c, struct binding *b);
void ctl__split_key(const char *key, char *ns, size_t nscap, const char **name);
void ctl__step_run(struct ctl *c, struct binding *b);
void ctl__undo_finish(struct ctl *c, struct binding *b);
void ctl__undo_start(struct ctl *c, struct binding *b);

/* loss.c: ctl__cluster_lost and ctl__loss_decide are pure
 * (tests/unit/dispatcher/controller/test_loss.c) */
enum ctl_loss_trigger ctl__cluster_lost(const struct ctl_loss_facts *f);
enum ctl_loss_decision ctl__loss_decide(enum queue_on_loss policy, int assign, int placed);
const char *ctl__loss_trigger_name(enum ctl_loss_trigger t);
void ctl__duration_text(int64_t ms, char *buf, size_t cap);
char *ctl__loss_record(const struct ctl_loss *l, const char *decision, const char *from);
void ctl__loss_restore(struct ctl *c, struct binding *b, const char *record);
void ctl__loss_replaced(struct ctl *c, struct binding *b);
void ctl__loss_rb_seen(struct binding *b);
int ctl__loss_check(struct ctl *c, struct binding *b);
void ctl__losses_sweep(struct ctl *c);
void ctl__losses_replace(struct ctl *c);
int ctl__cluster_lost_to(struct ctl *c, const struct binding *b, const struct cluster *k);

/* follow.c */
void ctl__check_progress(struct ctl *c, struct binding *b);
/* Whether b's cached RB is older than the answer to muster's last spec.clusters rewrite of a
 * shrunk gang (its placement is then muster's old one, not someone else's change). */
int ctl__rb_older_than_resize(struct ctl *c, const struct binding *b);
/* Whether an RB change put off while a step or a ledger write was out (reread_due) is to be
 * judged now: both are over and the gang is still dispatched or running. */
int ctl__reread_owed(const struct binding *b);
void ctl__engine_forget(struct ctl *c, struct binding *b);
int64_t ctl__queue_timeout_ms(struct ctl *c, const char *queue);
void ctl__release(struct ctl *c, struct binding *b, const char *why);
void ctl__rollback(struct ctl *c, struct binding *b, const char *why);
void ctl__rollback_lost(struct ctl *c, struct binding *b, const char *why, const char *waiting,
                        char *loss);
/* reclaim.c's eviction: rolled back as a lost cluster's Requeue, why as its reason and its
 * waiting sentence, counted as a preemption and not as a failure. */
void ctl__rollback_preempted(struct ctl *c, struct binding *b, const char *why);
void ctl__timeouts_refresh(struct ctl *c);

/* reclaim.c: the ctl__reclaim_*_cooling rules and ctl__reclaim_should_search are pure
 * (tests/unit/dispatcher/controller/test_reclaim.c) */
/* 1 when preempted_at[0..n) (unix ms) holds max_per_minute or more in the minute up to now:
 * the queue may lose no gang now (preemption.maxPerMinute; 0 is no limit). */
int ctl__reclaim_queue_cooling(const int64_t *preempted_at, size_t n, int64_t now,
                               uint32_t max_per_minute);
/* 1 when a gang preempted at preempted_at (0: never) may not be preempted now: its
 * preemption.cooldown counts from when it was admitted again (admitted_at). */
int ctl__reclaim_gang_cooling(int64_t preempted_at, int64_t admitted_at, int64_t now,
                              int64_t cooldown_ms);
/* 1 when a pending gang should be searched for in this cycle: fewer than
 * CTL_RECLAIM_SEARCHES_PER_CYCLE searches ran in it, and the gang's last search did not find
 * nothing with the index as it is now (change_seq). */
int ctl__reclaim_should_search(const struct ctl_reclaim_memo *m, uint64_t change_seq,
                               uint32_t searched_this_cycle);
/* The victims' hold (--reclaim-hold; CTL_RECLAIM_HOLD_MS when not given). */
int64_t ctl__reclaim_hold_ms(const struct ctl *c);
/* The stable id of cluster name in the victim index (-1: none left). */
int32_t ctl__reclaim_cluster_id(struct ctl *c, const char *name);
/* With --reclaim on, records b, RUNNING, in the victim index: since its dispatch, its shares
 * per cluster (off: nothing). A gang that cannot be recorded is logged and is no victim. */
void ctl__reclaim_record(struct ctl *c, struct binding *b);
void ctl__reclaim_close(struct ctl *c);
/* Start-up, once the live rows are restored: the cooling history (the last
 * CTL_RECLAIM_HISTORY preemptions) read back from the ledger's rolledback rows, and each
 * binding's latest preemption time with it, so a restart cools what was cooling. */
void ctl__reclaim_history_load(struct ctl *c);
/* Its read: ring (CTL_RECLAIM_HISTORY entries) gets the last preemptions in the ledger, oldest
 * first, *nhist of them, and *hist_at the next slot to write. 0, or the store's error with the
 * ring empty (tests/unit/dispatcher/controller/test_reclaim.c). */
int ctl__reclaim_history_read(struct store *s, struct ctl_rc_hist *ring, uint32_t *nhist,
                              uint32_t *hist_at);
/* Start-up: b's pending row is in back-off (a preemption's victim among them, perhaps
 * mid-eviction): no search until it ends (at most CTL_RECLAIM_HOLD_MS from now). */
void ctl__reclaim_restored(struct ctl *c, const struct binding *b);
/* The cycle met b (entry e), pending, refused by its queues or by every cluster: with
 * --reclaim on, it may be searched for after the engine's pass (ctl__reclaim_run). A
 * beneficiary still waiting for its victims' room gets its waiting sentence back. */
void ctl__reclaim_consider(struct ctl *c, struct binding *b);
/* After the engine's pass: searches for the gangs considered, and preempts the victims of each
 * search that found some (rolled back and requeued in place, held for CTL_RECLAIM_HOLD_MS),
 * recording the decision in this iteration's ledger transaction. */
void ctl__reclaim_run(struct ctl *c);
/* The counts to add in the ledger transaction that is about to be written (0, or a store
 * error: the transaction is rolled back by the caller). */
int ctl__reclaim_flush_counts(struct ctl *c, int64_t now);
/* That transaction committed: the counts go to opt.preempted, and are forgotten. */
void ctl__reclaim_counted(struct ctl *c);

/* reconcile.c */
/* What the hub shows of one live ledger row at start-up. */
struct ctl_recon_facts {
    enum bstate st;     /* the row's state */
    int rb_gone;        /* no RB, another RB of the name (uid), or one being deleted */
    int unreadable;     /* the RB or its template cannot be read as a workload */
    int assign;         /* assign mode */
    int scheduling;     /* spec.suspension.scheduling: -1 absent, 0, 1 */
    size_t nclusters;   /* spec.clusters entries */
    int has_objects;    /* muster's Works or policy for it exist (pending rows only) */
    int64_t not_before; /* the row's back-off */
    int64_t now;
    int queued;         /* the start-up load put it in the engine */
    int whole;          /* the hub carries the row's whole placement, released */
    int scheduled_true; /* Scheduled=True written */
    int resize_due;     /* lifted, and the hub still holds more than the row (a shrink cut
                           short): spec.clusters above the row's shares, or a PodGroup Work
                           built from the larger gang */
};

enum ctl_recon {
    RECON_RELEASE, /* the RB went: release, delete its Works */
    RECON_PARK,    /* pending but unreadable: parked, held */
    RECON_ADOPT,   /* pending here, dispatched on the hub by another replica: adopted */
    RECON_UNDO,    /* pending, but the hub carries part of a dispatch: undone first */
    RECON_BACKOFF, /* pending in back-off */
    RECON_QUEUE,   /* pending, not in the engine yet */
    RECON_WAIT,    /* pending in the engine: nothing to do */
    RECON_FORWARD, /* admitted: the protocol resumes where the hub shows it stopped */
    RECON_READMIT, /* dispatched, but the hub does not carry the whole placement */
    RECON_STATUS,  /* dispatched; Scheduled=True still to write */
    RECON_FOLLOW,  /* dispatched or running: followed */
    RECON_RESIZE,  /* dispatched or running, shrunk in the ledger, not yet on the hub */
};

enum ctl_recon ctl__reconcile_decide(const struct ctl_recon_facts *f);
void ctl__forward_from(struct ctl *c, struct binding *b, enum step st);
void ctl__forward_resume(struct ctl *c, struct binding *b);
void ctl__orphan_delete(struct ctl *c, const char *path);
void ctl__orphans_sweep(struct ctl *c);
void ctl__reconcile(struct ctl *c);

/* prereq.c */
void ctl__missing_refresh(struct ctl *c);
void ctl__prereq_check(struct ctl *c);

/* loop.c */
int ctl__watches_start(struct ctl *c);

/* hubgroups.c: the hub PodGroups that pods name (docs/workload.md, "Gang dialects").
 * ctl__workload_read is karmada_workload_read into c->w with the PodGroup looked up in the
 * informers, recording what it asked for; ctl__hubpg_note indexes b under that (after
 * ctl__binding_read's read), _forget drops b's entry; _changed re-reads the bindings that named
 * a PodGroup that was added, changed or deleted. */
int ctl__workload_read(struct ctl *c, json_object *rb, json_object *tmpl);
void ctl__hubpg_note(struct ctl *c, struct binding *b);
void ctl__hubpg_forget(struct ctl *c, struct binding *b);
void ctl__hubpg_changed(struct ctl *c, enum karmada_workload_dialect d, json_object *pg);
/* The same for a TrainJob's runtime (cluster_scoped: a ClusterTrainingRuntime), which a
 * TrainJob's read looks up as it looks up a PodGroup (docs/workload.md, "Kubeflow Trainer's
 * TrainJob"). */
void ctl__hubrt_changed(struct ctl *c, int cluster_scoped, json_object *rt);
struct karmada_groups_error; /* workload_groups.h */
/* Issue 20: b's group tree into b->tree (karmada_workload_groups_read_wl), with the hub Workload
 * whose spec.controllerRef names a JobSet that names pod group templates looked up in the
 * informers, b indexed under it ("wl/ns/name") when its read asked for no PodGroup, so that the
 * Workload's add, change or delete (_hubwl_changed) reads b again. */
int ctl__groups_read(struct ctl *c, struct binding *b, const struct karmada_workload *w,
                     json_object *rb, struct karmada_groups_error *err);
void ctl__hubwl_changed(struct ctl *c, json_object *wl);
void ctl__hubpg_close(struct ctl *c);
void ctl__kick(struct ctl *c);
void ctl__on_tick(uv_timer_t *h);
void ctl__pending_reason(struct ctl *c, struct binding *b);
void ctl__soon_arm(struct ctl *c, int64_t at);

/* controller.c */
void ctl__stop_maybe_done(struct ctl *c);

/* ---- tenancy.c ---- */
/* The queues' namespaceSelectors read again from the store (at start and on any queue change). */
void ctl__tenancy_refresh(struct ctl *c);
void ctl__tenancy_close(struct ctl *c);
/* The selector that applies to queue: its own, else its nearest ancestor's (that queue's name in
 * *from); NULL when none does (every namespace may submit). */
json_object *ctl__tenancy_selector(const struct ctl *c, const char *queue, const char **from);
/* 1 when namespace ns may submit to queue; else 0 and why says which queue refused and why. */
int ctl__tenancy_admits(const struct ctl *c, const char *queue, const char *ns, char *why,
                        size_t cap);
/* The muster queue a workload read in namespace ns goes to, into out: what it names, resolved
 * as its dialect means it (a Kueue LocalQueue through localQueues, a YuniKorn path in the tree),
 * or its namespace's default queue when it names none. 0, or MUSTER_EINVAL with why. */
int ctl__queue_resolve(const struct ctl *c, const struct karmada_workload *w, const char *ns,
                       char *out, size_t cap, char *why, size_t whycap);
/* The queue that takes Kueue's LocalQueue ns/name, or NULL. */
const char *ctl__tenancy_local_queue(const struct ctl *c, const char *ns, const char *name);
/* The default-queue annotation of namespace ns, or NULL. */
const char *ctl__tenancy_default_queue(const struct ctl *c, const char *ns);
/* A YuniKorn queue path (root.a.b) as muster's queue: the leaf into leaf. 0, or MUSTER_EINVAL
 * with why when the leaf exists under other parents than the path says. A path whose leaf does
 * not exist gives the leaf (the binding then waits for that queue). */
int ctl__tenancy_path(const struct ctl *c, const char *path, char *leaf, size_t cap, char *why,
                      size_t whycap);
/* The admission webhook's question (--webhook-tenancy on): 1 when the new RB rb names (through
 * its template) a queue whose namespaceSelector does not admit the RB's namespace, with the
 * sentence a parked binding would get in why; -1 while its template is not cached yet (asked
 * again); 0 when it may be created: admitted, or not judged here (an unknown or unreadable
 * queue, not leading), since the controller parks such an RB with its reason anyway. */
int ctl__tenancy_refuses(struct ctl *c, json_object *rb, char *why, size_t cap);
/* The cached template an RB binds (spec.resource), or NULL (not cached, a kind muster does not
 * queue). Borrowed from the informer. */
json_object *ctl__template_of(const struct ctl *c, json_object *rb);
/* Waiting bindings (of namespace ns; NULL: all) judged again: a parked one may queue, a pending
 * one no longer admitted is parked. */
void ctl__tenancy_rejudge(struct ctl *c, const char *ns);
/* namespaceLimits: what each namespace holds in each limited queue, counted again from the
 * gangs that hold capacity (called before the cycle's walk; nothing while no queue is limited);
 * whether b may be admitted within them (else why names the namespace, queue and limit); and b
 * counted once admitted in the walk. */
void ctl__tenancy_usage(struct ctl *c);
int ctl__tenancy_within_limits(struct ctl *c, const struct binding *b, char *why, size_t cap);
void ctl__tenancy_admitted(struct ctl *c, const struct binding *b);
/* Every CTL_NS_METRICS_MS: muster_namespace_gangs and muster_namespace_pending counted again
 * from the bindings (docs/metrics.md). */
void ctl__tenancy_metrics(struct ctl *c, int64_t now);
/* The namespaces informer: what is kept of a Namespace, and its events. */
json_object *ctl__namespace_prune(json_object *ns);
void ctl__namespace_changed(struct ctl *c, json_object *ns);

/* ---- gangs made of several RBs (podgroup.c, docs/dispatcher.md "One gang, several RBs") ---- */
#define CTL_PG_BUCKETS 1024
#define CTL_PG_KEY_MAX (QUEUE_NAME_MAX + 16 + KARMADA_WORKLOAD_NAME_MAX + 3)
struct ctl_pgroup {
    char key[CTL_PG_KEY_MAX]; /* "<namespace>/<dialect>/<group name>" */
    const char *name;         /* the group name, in key */
    int32_t total;            /* the gang's size: the pods it waits for */
    struct binding **m;       /* its members (the lead among them) */
    uint32_t n, cap;
    struct binding **in; /* the members of the formed gang (cap entries), the lead first */
    uint32_t nin;
    struct binding *lead; /* NULL while it waits for its members */
    struct ctl_pgroup *next;
};
/* The group key of a workload read in namespace ns, into key[0..cap): 1 when its pods name a
 * group larger than the RB (a Kueue pod group whose total count is above the RB's replicas, or
 * a Pod naming a coscheduling, Volcano or Workload API PodGroup on the hub whose minMember is),
 * with *total the gang's size; 0 when the RB is a gang of its own. Pure. */
int ctl__pg_key(const struct karmada_workload *w, const char *ns, char *key, size_t cap,
                int32_t *total);
/* A group of `total` pods with `present` members queued: 1 when it may be queued as one gang
 * (exactly total), and the waiting sentence in why otherwise (more than total: Kueue's excess
 * pods, which it would not admit either). Pure. */
int ctl__pg_complete(const char *name, uint32_t present, int32_t total, char *why, size_t cap);
/* out = the sum of reqs[0..n): what the gang of the members asks its queue for. 0 or
 * MUSTER_ENOMEM / MUSTER_ERANGE. Pure. */
int ctl__pg_sum(const struct queue_resvec *const *reqs, uint32_t n, struct queue_resvec *out);
/* After a read: b joins the group its workload names (or leaves the one it was in). */
void ctl__pg_note(struct ctl *c, struct binding *b, const struct karmada_workload *w);
/* At the end of ctl__binding_read: a lead's read folded with its members'. */
int ctl__pg_fold(struct ctl *c, struct binding *b);
/* ctl__engine_add's gate: 1 when b must not enter the engine itself (its group waits for
 * members, or b is a member whose lead holds the entry). May form the gang and queue its lead. */
int ctl__pg_gate(struct ctl *c, struct binding *b);
/* b is a member (not the lead) of a gang whose lead is admitted or further. */
static inline int ctl__pg_follower(const struct binding *b)
{
    return b->pg && b->pg->lead && b->pg->lead != b;
}
/* The gang's RBs of lead b: *out the members (lead first); returns how many (1 for a plain
 * gang: b alone). */
uint32_t ctl__pg_rbs(struct binding *b, struct binding ***out);
/* The lead's row changed state: every member's row follows (state, its share, reason), and the
 * member takes the state in memory. */
void ctl__pg_mirror(struct ctl *c, struct binding *lead, enum bstate st, const char *state,
                    const char *reason);
/* Start-up: lead's gang as the ledger recorded it (lead read, its members' rows naming it):
 * formed again around members[0..n) of its group, and lead folded. 0 or MUSTER_*. */
int ctl__pg_restore(struct ctl *c, struct binding *lead, struct binding **members, uint32_t n);
/* b leaves its group (its RB went, or it was released): the gang before dispatch goes back to
 * waiting (rolled back when admitted); after dispatch the rest goes on. */
void ctl__pg_leave(struct ctl *c, struct binding *b, const char *why);
/* lead's RB went while the gang was admitted or being undone: each member's row goes back to
 * pending and, once committed, the member undoes what the protocol did to its RB itself
 * (LW_MEMBER_UNDO); the gang is dissolved and the members wait again. */
void ctl__pg_abandon(struct ctl *c, struct binding *lead, const char *why);
/* b, a member waiting in a formed gang, asks for something else now (its row is replaced):
 * the gang's lead leaves the engine and the gang forms anew once b's new row is written. */
void ctl__pg_member_changed(struct ctl *c, struct binding *b);
/* b is freed: no group refers to it any more. */
void ctl__pg_forget(struct ctl *c, struct binding *b);
void ctl__pg_close(struct ctl *c);

/* ---- gang dialects (dialects.c) ---- */
/* Reads the operators' overrides from the store again (at start, after a PATCH) and applies
 * them to every cluster. 0 or the store's error (the old overrides stay). */
int ctl__dialects_refresh(struct ctl *c);
/* k's dialect: the operator's override, else what its apiEnablements show; *override (may be
 * NULL) says which. Recomputes k->no_podgroups, logging and bumping the fleet epoch when it
 * changes. */
enum karmada_gang_dialect ctl__cluster_dialect_apply(struct ctl *c, struct cluster *k);
/* The dialect of the cluster named name (Volcano for one muster does not know); *override as
 * above. */
enum karmada_gang_dialect ctl__cluster_dialect(const struct ctl *c, const char *name,
                                               int *override);
/* The Workload API version a workload-api share of the cluster named name is written in: the
 * one its apiEnablements show, v1beta1 preferred (v1beta1 for a cluster muster does not know or
 * whose apiEnablements show none), whether the dialect was detected or set by an operator. */
enum karmada_gang_wl_version ctl__cluster_wl_version(const struct ctl *c, const char *name);
/* 1 when member name takes Volcano's networkTopology fields (HyperNodes listed, dialect
 * Volcano: cluster.no_nettopo is 0), 3 when it reads highestTierName too (no_tiernames 0),
 * else 0 (an unknown name too) */
int ctl__cluster_nettopo(const struct ctl *c, const char *name);

/* cool.c: bindings that wait hold no tree (issue 22). ctl__rb and ctl__tmpl are b's RB and
 * template, thawed back from the informers when b let them go (NULL: the informer has none:
 * the RB is gone, the template not cached); ctl__cool_later notes that b took a tree this
 * iteration, ctl__cool_forget drops b from that note (freed), ctl__cool_run (once per loop
 * iteration, after the events) lets the waiting ones' trees go and trims the informers. */
#define CTL_COOL_BATCH 256
json_object *ctl__rb(struct ctl *c, struct binding *b);
/* ctl__rb for a binding read as const (a check of its clusters or progress): a running gang
 * may hold no RB tree either, so every read of b's RB outside its own event goes through one
 * of these, never b->rb */
json_object *ctl__rb_of(struct ctl *c, const struct binding *b);
json_object *ctl__tmpl(struct ctl *c, struct binding *b);
/* Points c->aw's affinity, affinities and tolerations into b's RB's spec.placement (thawed
 * back when b holds none), as the workload read does (an empty clusterAffinities is none). Found at
 * each use: three pointers kept in every binding were 24 bytes of each pending one. */
void ctl__placement_terms(struct ctl *c, const struct binding *b);
void ctl__cool_later(struct ctl *c, struct binding *b);
void ctl__cool_forget(struct ctl *c, struct binding *b);
void ctl__cool_run(struct ctl *c);
/* Once reconciled: the running gangs (at the front of c->active) are noted, so those that hold
 * their RB from the start-up's reads let it go when idle. */
void ctl__cool_reconciled(struct ctl *c);
/* Between two bindings of a walk over many (a burst of events, a flush, a cycle, the start-up):
 * runs ctl__cool_run once CTL_COOL_BATCH bindings took a tree, so a walk over a million does
 * not hold a million trees. Only where nothing holds a binding's tree borrowed. */
static inline void ctl__cool_point(struct ctl *c)
{
    if (c->cool.fresh >= CTL_COOL_BATCH)
        ctl__cool_run(c);
}

#endif
