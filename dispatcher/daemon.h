/* musterd's runtime: one libuv loop carrying the hub client, the dispatch loop (controller), the
 * admin API and, with --demo, a stream of workloads and the simulated hub, muster-sim, run as a
 * child process (dispatcher/demo_hub.h). main.c parses flags into this and calls daemon_run. */
#ifndef MUSTER_DISPATCHER_DAEMON_H
#define MUSTER_DISPATCHER_DAEMON_H

#include "dispatcher/api.h"
#include "dispatcher/controller.h"
#include "dispatcher/store.h"
#include "queue/tree.h"

#include <stdint.h>
#include <stdio.h>

struct daemon_options {
    const char *kubeconfig; /* NULL: in-cluster, then $KUBECONFIG, then ~/.kube/config */
    const char *context;
    double kube_qps; /* 0: the client's default; < 0: no limit */
    int kube_burst;
    const struct api_options *api; /* NULL: no admin API */
    struct ctl_options ctl;
    uint64_t grace_ms; /* SIGTERM: time to finish requests in flight (default 10 s) */
    FILE *out;         /* start-up lines and the demo's summary (default stdout) */
    /* --demo: run muster-sim with this scenario as a child process, talk to it as the hub and
     * feed it workloads */
    int demo;
    const char *scenario;
    const char *sim_binary; /* --sim-binary; NULL: muster-sim beside musterd, else on PATH */
    double demo_seconds;    /* stop after this long; <= 0 runs until a signal */
    double demo_rate;       /* workloads per second (default 1) */
    uint64_t demo_seed;     /* 0: from the clock */
    unsigned summary_ms;    /* summary line period (default 5000) */
    /* --leader-elect: dispatch only while holding the Lease (dispatcher/leader.h); until then
     * serve the admin API read-only. 0 durations: Kubernetes' defaults. */
    int leader_elect;
    /* --reclaim=on: every engine musterd builds lends the unused guarantees of reclaimable
     * queues (queue_tree_set_lending); the caller sets it on the first one, *t. */
    int reclaim;
    uint64_t lease_duration_ms, renew_deadline_ms, retry_period_ms;
    const char *lease_namespace, *lease_name;
};

/* Runs until SIGINT/SIGTERM (or the demo's time is up): stops taking work, lets requests in
 * flight finish within grace_ms, flushes the ledger, releases the Lease, closes everything.
 * *t is what disp_load left; a follower that becomes leader rebuilds it from the store (the
 * old leader may have written since), so *t may be replaced (the caller frees the last one).
 * Returns 0, or a MUSTER_* code with the reason on stderr (MUSTER_EBUSY also when leadership
 * was lost: the process should exit non-zero and be restarted, as Kubernetes components do). */
int daemon_run(struct store *s, struct queue_tree **t, const struct daemon_options *o);

#endif
