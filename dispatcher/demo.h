/* The demo behind `musterd --demo`: the sample queue tree, seeded into a fresh database, and a
 * stream of workloads (batch Jobs, Volcano Jobs and Deployments with GPU requests) created on
 * the hub through muster's own client, as users would apply them. The dispatch loop then
 * holds, queues, places and releases them like any other. */
#ifndef MUSTER_DISPATCHER_DEMO_H
#define MUSTER_DISPATCHER_DEMO_H

#include "cluster-adapters/kube/client.h"
#include "dispatcher/store.h"
#include "queue/tree.h"

#include <stdint.h>

#define DISP_DEMO_NAMESPACE "team-vision"

/* Seeds the demo queues (two organisations, four teams) into s and t when s holds none of
 * them. Returns 0 or the store's / engine's error. */
int disp_demo_seed_queues(struct store *s, struct queue_tree *t);

struct disp_demo_gen;

struct disp_demo_gen_options {
    double rate;   /* workloads per second (default 1) */
    uint64_t seed; /* 0: from the clock */
    /* Arrivals pause while backlog(ud) says more than this many wait (0: 300), so a long
     * demo stays steady. */
    uint64_t backlog_max;
    uint64_t (*backlog)(void *ud);
    void *ud;
};

/* Starts creating workloads in DISP_DEMO_NAMESPACE through kube. Deployments (which never
 * finish by themselves) are deleted again after a minute or two. */
int disp_demo_gen_start(uv_loop_t *loop, struct kube_client *kube,
                        const struct disp_demo_gen_options *opt, struct disp_demo_gen **out);
uint64_t disp_demo_gen_created(const struct disp_demo_gen *g);
/* Stops making workloads. The generator is freed once its timer is closed and every request
 * it made has been answered (the client answers each, with MUSTER_ECANCELED once it closes);
 * then done(ud) runs, if given. kube must stay until then: closing it answers what is left. */
void disp_demo_gen_close_then(struct disp_demo_gen *g, void (*done)(void *ud), void *ud);
/* disp_demo_gen_close_then without a callback. */
void disp_demo_gen_close(struct disp_demo_gen *g);

#endif
