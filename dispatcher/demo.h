/* The engine demo behind `musterd --demo` until the dispatcher drives a hub: a three-level
 * queue tree, a fleet of GPU capacity, and a stream of gangs that arrive, are admitted in fair
 * order with every decision written to the ledger first, run, and finish. */
#ifndef MUSTER_DISPATCHER_DEMO_H
#define MUSTER_DISPATCHER_DEMO_H

#include "dispatcher/api.h"
#include "dispatcher/store.h"
#include "queue/tree.h"

#include <stdint.h>
#include <stdio.h>

struct disp_demo_options {
    double seconds;          /* stop after this long; <= 0 runs until SIGINT/SIGTERM */
    unsigned cycle_ms;       /* dispatch cycle period (default 100) */
    unsigned summary_ms;     /* summary line period (default 2000) */
    double arrivals_per_s;   /* gangs arriving per second (default 12) */
    uint64_t seed;           /* workload generator seed (default from the clock) */
    FILE *out;               /* where summary lines go (default stdout) */
    const struct api_options *api; /* serve the admin API on the demo's loop; NULL: none */
    /* A scenario for the simulated Karmada hub, run in-process on a loopback port: the fleet's
     * capacity is then read from its Ready clusters through muster's own client, every few
     * seconds. NULL: a fixed fleet of 64 GPUs and no hub. */
    const char *scenario;
};

struct disp_demo_stats {
    uint64_t arrived, admitted, finished, cycles;
    uint64_t ledger_batches;
};

/* Seeds the demo queues into s and t when s holds none of them, then runs the demo on its own
 * libuv loop until the time is up or a signal arrives, with the admin API on the same loop when
 * opt->api is set (its address is printed to opt->out). t must hold what disp_load put in it.
 * Returns 0, the API's start error (with a message on stderr), or the store's error code if a
 * ledger write fails (the demo stops rather than act on a decision it could not record). */
int disp_demo_run(struct store *s, struct queue_tree *t, const struct disp_demo_options *opt,
                  struct disp_demo_stats *stats);

#endif
