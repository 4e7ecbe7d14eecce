/* The dispatch loop against a hub: it watches ResourceBindings, their templates, clusters and
 * muster's own gang objects; holds every RB it is responsible for; queues them in the engine;
 * admits and places whole gangs each cycle; runs the two-phase commit protocol (DESIGN.md, "The
 * commit protocol"); rolls back gangs that do not start within their queue's gang timeout; and
 * releases capacity when a workload finishes or its RB goes. Every decision is in the ledger
 * before the hub hears of it, and start-up resumes or undoes what the ledger says was under way
 * (docs/dispatcher.md). Single-threaded: everything runs on the caller's libuv loop. */
#ifndef MUSTER_DISPATCHER_CONTROLLER_H
#define MUSTER_DISPATCHER_CONTROLLER_H

#include "cluster-adapters/kube/client.h"
#include "dispatcher/api.h"
#include "dispatcher/store.h"
#include "queue/tree.h"

#include <stdint.h>
#include <uv.h>

#define CTL_SCHEDULER_NAME_DEFAULT "muster"
#define CTL_POD_SCHEDULER_DEFAULT "volcano"
#define CTL_BACKOFF_INITIAL_MS 10000
#define CTL_BACKOFF_MAX_MS 600000
#define CTL_CLUSTER_LOST_GRACE_MS 300000 /* --cluster-lost-grace: 5 minutes */
/* Waiting conditions written per second at most, so 100,000 new RBs do not starve dispatch. */
#define CTL_CONDITION_WRITES_PER_S 1000

struct disp_events;
struct disp_metrics;

struct ctl_options {
    const char *scheduler_name; /* assign mode for RBs with this schedulerName; NULL: default */
    const char *pod_scheduler;  /* schedulerName the OverridePolicy gives pods; NULL: default */
    uint64_t backoff_initial_ms; /* 0: CTL_BACKOFF_INITIAL_MS */
    uint64_t backoff_max_ms;     /* 0: CTL_BACKOFF_MAX_MS */
    /* A member cluster NotReady (its Ready condition not True) this long is lost
     * (--cluster-lost-grace); 0: CTL_CLUSTER_LOST_GRACE_MS. */
    uint64_t cluster_lost_grace_ms;
    /* --reclaim on (issue 18, docs/reclaim.md): running gangs are kept in the victim search's
     * index. Off, nothing of reclaim costs the cycle anything. */
    int reclaim;
    /* --webhook-tenancy on (issue 21, docs/queue.md "Tenancy"): the admission webhook denies a
     * new RB whose queue's namespaceSelector does not admit its namespace, rather than let it
     * be created and parked. */
    int webhook_tenancy;
    /* --owner-annotation: the annotation of a workload's template that names its owner, for
     * queues' ownerLimits (issue 21); NULL: owners are not read. A checked label key. */
    const char *owner_annotation;
    /* --reclaim-hold: how long a preemption's victims stay out of the room freed for its
     * beneficiary, and the beneficiary waits for it before searching again; 0:
     * CTL_RECLAIM_HOLD_MS. */
    uint64_t reclaim_hold_ms;
    /* Told of preemption counts once the ledger transaction holding them committed (the admin
     * API's mirror of status.preemptions); optional. */
    void (*preempted)(void *ud, const char *queue, int64_t made, int64_t suffered);
    void *preempted_ud;
    int64_t (*now_ms)(void);     /* unix ms; NULL: the wall clock */
    struct disp_events *events;   /* optional */
    struct disp_metrics *metrics; /* optional */
    FILE *log;                    /* one line per notable happening; NULL: stderr */
    /* Optional fence, asked before every cycle, tick and commit step: 0 means leadership may
     * have lapsed (disp_leader_is_leader) though ctl_set_leading(0) has not come yet, and
     * nothing is decided or written to the hub or the ledger until it says 1 again. */
    int (*fence)(void *ud);
    void *fence_ud;
};

struct ctl_stats {
    uint64_t seen, held, admitted, dispatched, running, rolled_back, released, cycles;
    uint64_t hub_errors, ledger_batches, conditions_written, orphans_deleted;
    uint64_t pending, parked, inflight; /* now */
    uint64_t resized;                   /* dispatched gangs that shrank */
    uint64_t tree_searches; /* composite searches of a gang's group tree (treeplace.c) */
    double last_cycle_ms, max_cycle_ms;
};

struct ctl;

/* A dispatcher on loop talking to the hub through kube, with s and t as disp_load left them
 * (queues and the live ledger in the engine). Nothing starts until ctl_start. All borrowed
 * pointers must outlive the controller. Returns 0 or MUSTER_ENOMEM / MUSTER_EINVAL. */
int ctl_new(uv_loop_t *loop, struct kube_client *kube, struct store *s, struct queue_tree *t,
            const struct ctl_options *opt, struct ctl **out);

/* Reads the live ledger into the controller's records and starts the watches. The first cycle
 * runs once every watch has listed (start-up reconciliation: rows whose RB is gone are
 * released, half-done dispatches are finished, half-done rollbacks are undone, orphans are
 * deleted). Returns 0 or a MUSTER_* code (the ledger could not be read). */
int ctl_start(struct ctl *c);

/* Leadership: a controller that does not lead watches and keeps its view but writes nothing
 * to the hub or the ledger (ctl_new starts leading; leader election calls this). */
void ctl_set_leading(struct ctl *c, int leading);

/* Stops taking new work, lets requests in flight finish (at most timeout_ms), closes the
 * watches, and calls cb(ud) from the loop; then the controller may be freed with ctl_free. */
void ctl_stop(struct ctl *c, uint64_t timeout_ms, void (*cb)(void *ud), void *ud);
void ctl_free(struct ctl *c);

/* The hooks the admin API calls (binding reasons, clusters, readiness, queue changes). */
void ctl_api_hooks(struct ctl *c, struct api_dispatcher *out);

void ctl_get_stats(const struct ctl *c, struct ctl_stats *out);

/* 1 once every watch has listed and start-up reconciliation has run. */
int ctl_synced(const struct ctl *c);

#endif
