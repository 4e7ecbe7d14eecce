/* Leader election through a coordination.k8s.io/v1 Lease on the hub, as client-go's
 * leaderelection package does it: get, then create or update with optimistic concurrency; a
 * lease is taken over only after its record has not changed for its leaseDurationSeconds as
 * this process observed it (never by comparing clocks); the leader renews every retry period and
 * stops leading as soon as the renew deadline passes without a successful renewal; release
 * clears holderIdentity so a follower takes over at once. On a libuv loop, with the kube client.
 * docs/operations.md, High availability. */
#ifndef MUSTER_DISPATCHER_LEADER_H
#define MUSTER_DISPATCHER_LEADER_H

#include "cluster-adapters/kube/client.h"

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* Kubernetes components' defaults (kube-scheduler, kube-controller-manager). */
#define DISP_LEADER_LEASE_DURATION_MS_DEFAULT 15000
#define DISP_LEADER_RENEW_DEADLINE_MS_DEFAULT 10000
#define DISP_LEADER_RETRY_PERIOD_MS_DEFAULT 2000
#define DISP_LEADER_NAMESPACE_DEFAULT "muster-system"
#define DISP_LEADER_NAME_DEFAULT "musterd"
#define DISP_LEADER_IDENTITY_MAX 253 /* a holderIdentity; hostname + "_" + pid fits */
#define DISP_LEADER_NAME_MAX 253     /* the lease's name and namespace */

struct disp_leader_options {
    const char *ns;       /* NULL: DISP_LEADER_NAMESPACE_DEFAULT (must exist on the hub) */
    const char *name;     /* NULL: DISP_LEADER_NAME_DEFAULT */
    const char *identity; /* NULL: "<hostname>_<pid>" */
    /* 0: the defaults. lease_duration_ms must be whole seconds (the Lease stores seconds) and
     * lease_duration_ms > renew_deadline_ms > retry_period_ms, as client-go requires. */
    uint64_t lease_duration_ms;
    uint64_t renew_deadline_ms;
    uint64_t retry_period_ms;
    /* Leadership began: start dispatching and writing to the hub. */
    void (*on_started_leading)(void *ud);
    /* Leadership ended (renew deadline passed, another holder seen, release or close): stop
     * writing to the hub at once. Runs only after on_started_leading. */
    void (*on_stopped_leading)(void *ud);
    void *ud;
};

struct disp_leader;

/* Creates an elector on loop that talks through client (borrowed: it must outlive the elector
 * and is used only for this lease). opt is copied. Returns 0 and *out, MUSTER_ECONFIG with err
 * saying what is wrong (durations out of order, names too long), or MUSTER_ENOMEM. Nothing runs
 * until disp_leader_start. */
int disp_leader_new(uv_loop_t *loop, struct kube_client *client,
                    const struct disp_leader_options *opt, struct disp_leader **out, char *err,
                    size_t errcap);

/* Starts campaigning: the first attempt is made on the loop's next iteration, then one every
 * retry period, leader or not. Returns 0, or MUSTER_EINVAL when already started or closing. */
int disp_leader_start(struct disp_leader *l);

/* 1 while this process leads (between on_started_leading and on_stopped_leading) and its
 * renew deadline has not passed by the clock: after the process was frozen, this says 0 at
 * once, before the deadline's timer has run on_stopped_leading. Writers check it before every
 * write (the fence; ctl_options.fence). */
int disp_leader_is_leader(const struct disp_leader *l);

/* The holderIdentity last seen on the lease ("" when none or not read yet), and ours. Borrowed
 * until the loop runs again. */
const char *disp_leader_holder(const struct disp_leader *l);
const char *disp_leader_identity(const struct disp_leader *l);

/* Counters since disp_leader_new, for metrics and tests. */
struct disp_leader_stats {
    uint64_t attempts;  /* GETs of the lease sent */
    uint64_t writes;    /* creates and updates that went through (acquisitions and renewals) */
    uint64_t conflicts; /* 409s: another candidate wrote first (never leadership) */
    uint64_t failures;  /* other failed requests (transport, 5xx, canceled by the bound) */
};
void disp_leader_stats(const struct disp_leader *l, struct disp_leader_stats *out);

/* For SIGTERM, after the caller has stopped taking work and flushed its writes: stops
 * campaigning; if leading, ends leadership (on_stopped_leading runs first, synchronously) and
 * writes the lease with holderIdentity "" and leaseDurationSeconds 1 (client-go's
 * ReleaseOnCancel), waiting for a renewal in flight first, so a follower takes over at its next
 * retry. Then cb(ud, err) runs once from the loop, at most about two renew deadlines later
 * (the renewal in flight and the write are each cancelled after one): err 0, or the write's
 * MUSTER_* code (MUSTER_ECONFLICT: someone else had already taken the lease; MUSTER_ECANCELED:
 * the hub did not answer in time). Not leading: cb(ud, 0) without a
 * write. The elector stays stopped; free it with disp_leader_close. Returns 0, or MUSTER_EINVAL
 * when a release or close is already under way (cb never runs then). */
int disp_leader_release(struct disp_leader *l, void (*cb)(void *ud, int err), void *ud);

/* Stops at once without writing (a crash looks like this to the others: the lease expires),
 * ending leadership first if held (on_stopped_leading runs synchronously), cancels the request
 * in flight, closes the timers, frees the elector and then runs cb(ud) from the loop. NULL is a
 * no-op. A pending release callback runs first, with MUSTER_ECANCELED, if it had not yet. */
void disp_leader_close(struct disp_leader *l, void (*cb)(void *ud), void *ud);

#endif
