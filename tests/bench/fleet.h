/* The benchmark fleet: a four-level tree of about 1,000 queues over 10 resource names and a set
 * of realistic gang shapes, shared by the engine and start-up benchmarks. */
#ifndef MUSTER_TESTS_BENCH_FLEET_H
#define MUSTER_TESTS_BENCH_FLEET_H

#include "queue/tree.h"

#include <stdint.h>

#define FLEET_ORGS 5
#define FLEET_DEPTS 5  /* per org */
#define FLEET_GROUPS 5 /* per dept */
#define FLEET_TEAMS 7  /* per group */
#define FLEET_LEAVES (FLEET_ORGS * FLEET_DEPTS * FLEET_GROUPS * FLEET_TEAMS)
#define FLEET_SHAPES 32

struct fleet_queue {
    char name[48];
    char parent[48];
    struct queue_spec spec; /* vectors owned here */
};

struct fleet {
    struct fleet_queue *queues; /* parents before children */
    int nqueues;
    int leaves[FLEET_LEAVES]; /* indexes into queues */
    struct queue_resvec shapes[FLEET_SHAPES];
    struct queue_resvec fleet_cap;
    uint32_t res[10];
};

/* Builds the specs with t's resource names (t only interns names). */
void fleet_build(struct fleet *f, struct queue_tree *t);
/* Creates every queue of f in t; exits on a refusal, which would be a bug in the benchmark. */
void fleet_apply(const struct fleet *f, struct queue_tree *t);
void fleet_free(struct fleet *f);

/* Deterministic xorshift generator. */
uint64_t fleet_rand(uint64_t *state);

/* Resident set size of this process in MiB, from /proc/self/status. */
double fleet_rss_mib(void);
double fleet_now_s(void);

#endif
