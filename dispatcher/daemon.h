/* musterd's runtime: one libuv loop carrying the hub client, the dispatch loop (controller), the
 * admin API and, with --demo, the simulated hub and a stream of workloads. main.c parses flags
 * into this and calls daemon_run. */
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
    /* --demo: run the simulated hub from this scenario in-process and feed it workloads */
    int demo;
    const char *scenario;
    double demo_seconds;    /* stop after this long; <= 0 runs until a signal */
    double demo_rate;       /* workloads per second (default 2) */
    uint64_t demo_seed;     /* 0: from the clock */
    unsigned summary_ms;    /* summary line period (default 5000) */
};

/* Runs until SIGINT/SIGTERM (or the demo's time is up): stops taking work, lets requests in
 * flight finish within grace_ms, flushes the ledger, closes everything. s and t are what
 * disp_load left. Returns 0, or a MUSTER_* code with the reason on stderr. */
int daemon_run(struct store *s, struct queue_tree *t, const struct daemon_options *o);

#endif
