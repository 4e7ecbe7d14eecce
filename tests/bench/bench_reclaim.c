/* Reclaim benchmark: the victim search (queue/reclaim.h) on 1,000 queues (10 orgs of 99 teams)
 * and 100,000 running gangs over 50 clusters filled to the brim. 30% of the teams own a large
 * deserved share and sit idle; the rest borrow beyond theirs. Each search is for a pending gang
 * of an owner team, 1 to 32 GPUs in 1 to 4 replicas, allowed in 1 to 10 clusters, spread or in
 * one: latency per search (p50, p99, max), searches per second, and what the answers were. Then
 * the naive model (tests/unit/queue/reclaim_model.h, every subset) and the engine on a tree the
 * model can handle (6 queues, 10 running gangs, 3 clusters), checked to agree. */
#include "bench/bench.h"
#include "bench/fleet.h"
#include "unit/queue/reclaim_model.h"

#include "queue/errors.h"
#include "queue/quantity.h"
#include "queue/reclaim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ORGS 10
#define TEAMS 99 /* per org: 10 + 990 = 1,000 queues */
#define GANGS 100000
#define CLUSTERS 50
#define SEARCHES_DEFAULT 20000
#define SMALL_SEARCHES 2000
#define GIB (1024LL * 1024 * 1024 * 1000) /* milli-units */

struct big {
    struct queue_tree *t;
    uint32_t cpu, mem, gpu;
    const struct queue_node *owners[ORGS * TEAMS];
    int nowners;
    const struct queue_node *borrowers[ORGS * TEAMS];
    int nborrowers;
    struct queue_resvec used[CLUSTERS];
    uint64_t rng;
};

static void gpu_vec(struct big *b, struct queue_resvec *v, int64_t gpus)
{
    queue_resvec_clear(v);
    queue_resvec_set(v, b->gpu, gpus * 1000);
    queue_resvec_set(v, b->cpu, gpus * 8 * 1000);
    /* 4Gi per GPU keeps 100,000 gangs' memory within int64 milli-units at root */
    queue_resvec_set(v, b->mem, gpus * 4 * GIB);
}

static void mkqueue(struct big *b, const char *name, const char *parent, int64_t gua,
                    int64_t des, int64_t cap)
{
    struct queue_spec s = {.name = name, .parent = parent, .weight = 1};
    if (gua)
        gpu_vec(b, &s.guarantee, gua);
    gpu_vec(b, &s.deserved, des);
    gpu_vec(b, &s.capability, cap);
    struct queue_error err;
    if (queue_tree_create(b->t, &s, &err)) {
        fprintf(stderr, "bench reclaim: %s: %s: %s\n", name, err.field, err.msg);
        exit(1);
    }
    queue_resvec_close(&s.guarantee);
    queue_resvec_close(&s.deserved);
    queue_resvec_close(&s.capability);
}

/* GPUs per replica: 1 (60%), 2 (25%), 4 (10%), 8 (5%). */
static int64_t gang_gpus(struct big *b)
{
    uint64_t r = fleet_rand(&b->rng) % 20;
    return r < 12 ? 1 : r < 17 ? 2 : r < 19 ? 4 : 8;
}

static void build_big(struct big *b, struct rm_world *w)
{
    memset(b, 0, sizeof(*b));
    b->rng = 0x9e3779b97f4a7c15ULL;
    b->t = queue_tree_new();
    struct queue_resnames *n = queue_tree_resnames(b->t);
    queue_resnames_intern(n, "cpu", 3, &b->cpu);
    queue_resnames_intern(n, "memory", 6, &b->mem);
    queue_resnames_intern(n, "nvidia.com/gpu", 14, &b->gpu);
    char org[16], team[32];
    for (int o = 0; o < ORGS; o++) {
        snprintf(org, sizeof(org), "org-%d", o);
        mkqueue(b, org, "root", TEAMS * 64, TEAMS * 256, TEAMS * 1024);
        for (int k = 0; k < TEAMS; k++) {
            snprintf(team, sizeof(team), "org-%d-t%d", o, k);
            int owner = fleet_rand(&b->rng) % 10 < 3;
            mkqueue(b, team, org, owner ? 64 : 0, 256, 1024);
            const struct queue_node *q = queue_tree_find(b->t, team);
            if (owner)
                b->owners[b->nowners++] = q;
            else
                b->borrowers[b->nborrowers++] = q;
        }
    }
    /* The running gangs: each in one cluster (80%) or two, 1 or 2 replicas per cluster. */
    struct queue_resvec per = {0}, req = {0}, part[2] = {{0}};
    struct queue_reclaim_share sh[2];
    for (uint64_t id = 1; id <= GANGS; id++) {
        const struct queue_node *q = b->borrowers[fleet_rand(&b->rng) % (uint64_t)b->nborrowers];
        gpu_vec(b, &per, gang_gpus(b));
        int ncl = fleet_rand(&b->rng) % 5 == 0 ? 2 : 1;
        uint32_t c0 = (uint32_t)(fleet_rand(&b->rng) % CLUSTERS);
        uint32_t cl[2] = {c0, (c0 + 1 + (uint32_t)(fleet_rand(&b->rng) % (CLUSTERS - 1))) %
                                  CLUSTERS};
        queue_resvec_clear(&req);
        for (int k = 0; k < ncl; k++) {
            int64_t reps = 1 + (int64_t)(fleet_rand(&b->rng) % 2);
            queue_resvec_clear(&part[k]);
            for (uint32_t i = 0; i < per.len; i++)
                queue_resvec_set(&part[k], per.items[i].id, per.items[i].milli * reps);
            queue_resvec_add(&req, &part[k]);
            queue_resvec_add(&b->used[cl[k]], &part[k]);
            sh[k] = (struct queue_reclaim_share){cl[k], &part[k]};
        }
        struct queue_entry_spec es = {id, queue_node_name(q),
                                      (int32_t)(fleet_rand(&b->rng) % 4), (int64_t)id, &req};
        struct queue_entry *e;
        if (queue_entry_add_admitted(b->t, &es, &e, NULL) ||
            queue_reclaim_gang_set(b->t, e, (int64_t)(fleet_rand(&b->rng) % 100000), sh,
                                   (size_t)ncl))
            abort();
    }
    /* Clusters hold exactly what runs plus a little slack; the fleet caps root. */
    struct queue_resvec fleet = {0}, slack = {0};
    memset(w, 0, sizeof(*w));
    w->t = b->t;
    w->nclusters = CLUSTERS;
    for (int c = 0; c < CLUSTERS; c++) {
        gpu_vec(b, &slack, fleet_rand(&b->rng) % 5 == 0 ? 1 : 0);
        queue_resvec_copy(&w->room[c], &slack);
        queue_resvec_add(&fleet, &b->used[c]);
        queue_resvec_add(&fleet, &slack);
    }
    if (queue_tree_set_fleet(b->t, &fleet))
        abort();
    queue_resvec_close(&fleet);
    queue_resvec_close(&slack);
    queue_resvec_close(&per);
    queue_resvec_close(&req);
    queue_resvec_close(&part[0]);
    queue_resvec_close(&part[1]);
}

/* A pending gang of an owner team. */
static void next_pending(struct big *b, struct rm_world *w)
{
    w->queue = b->owners[fleet_rand(&b->rng) % (uint64_t)b->nowners];
    w->priority = (int32_t)(fleet_rand(&b->rng) % 4);
    gpu_vec(b, &w->per, 2 * gang_gpus(b));
    w->replicas = 1 + (uint32_t)(fleet_rand(&b->rng) % 4);
    w->nallowed = 1 + (size_t)(fleet_rand(&b->rng) % 10);
    uint32_t start = (uint32_t)(fleet_rand(&b->rng) % CLUSTERS);
    for (size_t i = 0; i < w->nallowed; i++)
        w->allowed[i] = (start + (uint32_t)i * 7) % CLUSTERS;
    w->spread = fleet_rand(&b->rng) % 2 == 0;
    w->now = 200000;
}

/* CPU time of this thread: on a shared machine, the work a search does, without the time
 * another process held the core. */
static double cpu_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *c)
{
    double x = *(const double *)a, y = *(const double *)c;
    return x < y ? -1 : x > y;
}

static size_t searches(void)
{
    const char *v = getenv("MUSTER_BENCH_RECLAIM_SEARCHES");
    long n = v ? strtol(v, NULL, 10) : 0;
    return n > 0 ? (size_t)n : SEARCHES_DEFAULT;
}

/* The small world: a owns a deserved share, b..f borrow; 10 gangs over 3 clusters, full. */
static void build_small(struct rm_world *w)
{
    memset(w, 0, sizeof(*w));
    w->t = queue_tree_new();
    struct queue_resnames *n = queue_tree_resnames(w->t);
    uint32_t gpu, cpu;
    queue_resnames_intern(n, "nvidia.com/gpu", 14, &gpu);
    queue_resnames_intern(n, "cpu", 3, &cpu);
    const char *names[6] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < 6; i++) { /* b..f deserve nothing: all they run is borrowed */
        struct queue_spec s = {.name = names[i], .weight = 1};
        if (i == 0)
            queue_resvec_set(&s.deserved, gpu, 16000);
        if (queue_tree_create(w->t, &s, NULL))
            abort();
        queue_resvec_close(&s.deserved);
    }
    w->nclusters = 3;
    struct queue_resvec req = {0};
    for (int i = 0; i < 10; i++) {
        struct rm_gang *g = &w->g[i];
        int64_t gpus = 1 + i % 4;
        uint32_t c = (uint32_t)(i % 3);
        queue_resvec_set(&g->share[c], gpu, gpus * 1000);
        queue_resvec_set(&g->share[c], cpu, gpus * 8000);
        queue_resvec_copy(&req, &g->share[c]);
        struct queue_entry_spec es = {(uint64_t)i + 1, names[1 + i % 5], (int32_t)(i % 3), i,
                                      &req};
        if (queue_entry_add_admitted(w->t, &es, &g->e, NULL))
            abort();
        g->started = i * 10;
        w->ngangs++;
        if (rm_gang_record(w, (size_t)i))
            abort();
    }
    queue_resvec_close(&req);
    w->queue = queue_tree_find(w->t, "a");
    queue_resvec_set(&w->per, gpu, 3000);
    queue_resvec_set(&w->per, cpu, 24000);
    w->replicas = 2;
    w->allowed[0] = 0;
    w->allowed[1] = 1;
    w->nallowed = 2;
    w->spread = 1;
    w->now = 1000;
}

static void small_world(double *engine_rate, double *naive_rate, int *agree, size_t *nv)
{
    struct rm_world w;
    build_small(&w);
    struct queue_reclaim *rc = queue_reclaim_new();
    struct queue_reclaim_req req;
    rm_request(&w, &req);
    double a = fleet_now_s();
    for (int i = 0; i < SMALL_SEARCHES; i++)
        if (queue_reclaim_search(rc, w.t, &req))
            abort();
    *engine_rate = SMALL_SEARCHES / (fleet_now_s() - a);
    struct rm_model rm;
    rm_model_init(&rm, &w);
    struct rm_answer ans;
    int runs = 0;
    a = fleet_now_s();
    do {
        rm_solve(&rm, &ans);
        runs++;
    } while (fleet_now_s() - a < 0.5);
    *naive_rate = runs / (fleet_now_s() - a);
    *nv = queue_reclaim_count(rc);
    *agree = ans.found && ans.n == *nv;
    for (size_t i = 0; *agree && i < ans.n; i++)
        *agree = queue_reclaim_victim(rc, i)->gang == w.g[ans.idx[i]].e;
    rm_model_close(&rm);
    queue_reclaim_free(rc);
    for (int c = 0; c < RM_CLUSTERS_MAX; c++)
        queue_resvec_close(&w.room[c]);
    for (int i = 0; i < 10; i++)
        for (int c = 0; c < RM_CLUSTERS_MAX; c++)
            queue_resvec_close(&w.g[i].share[c]);
    queue_resvec_close(&w.per);
    queue_tree_free(w.t);
}

void bench_reclaim(void)
{
    static struct big b;
    static struct rm_world w;
    double t0 = fleet_now_s();
    build_big(&b, &w);
    printf("BENCH reclaim_queues %zu queues\n", queue_tree_count(b.t));
    printf("BENCH reclaim_running_gangs %llu gangs\n",
           (unsigned long long)queue_reclaim_gang_count(b.t));
    printf("BENCH reclaim_clusters %d clusters\n", CLUSTERS);
    printf("BENCH reclaim_build_s %.2f s\n", fleet_now_s() - t0);

    const size_t n = searches();
    double *lat = malloc(n * sizeof(*lat)), *cpu = malloc(n * sizeof(*cpu)), total = 0;
    double cpu_total = 0;
    struct queue_reclaim *rc = queue_reclaim_new();
    size_t outcome[5] = {0}, victims = 0, proven = 0, with_victims = 0;
    uint64_t cands = 0, fits = 0, queues = 0, visited = 0, nodes = 0;
    struct queue_reclaim_req req;
    for (size_t i = 0; i < n; i++) {
        next_pending(&b, &w);
        rm_request(&w, &req);
        double a = fleet_now_s(), ca = cpu_now_s();
        int err = queue_reclaim_search(rc, b.t, &req);
        double d = fleet_now_s() - a, cd = cpu_now_s() - ca;
        if (err)
            abort();
        lat[i] = d * 1e6;
        cpu[i] = cd * 1e6;
        total += d;
        cpu_total += cd;
        struct queue_reclaim_stats st;
        queue_reclaim_stats(rc, &st);
        outcome[queue_reclaim_outcome(rc)]++;
        cands += st.candidates;
        visited += st.visited;
        nodes += st.nodes;
        fits += st.fits_calls;
        queues += st.queues;
        if (queue_reclaim_outcome(rc) == QUEUE_RECLAIM_VICTIMS) {
            with_victims++;
            victims += queue_reclaim_count(rc);
            proven += st.smallest != 0;
        }
    }
    qsort(lat, n, sizeof(*lat), cmp_double);
    qsort(cpu, n, sizeof(*cpu), cmp_double);
    printf("BENCH reclaim_search_p50_us %.1f us\n", lat[n / 2]);
    printf("BENCH reclaim_search_p99_us %.1f us\n", lat[n * 99 / 100]);
    printf("BENCH reclaim_search_max_us %.1f us\n", lat[n - 1]);
    printf("BENCH reclaim_search_per_s %.0f searches/s\n", (double)n / total);
    /* the same searches in thread CPU time, which other processes sharing the cores cannot
     * inflate */
    printf("BENCH reclaim_search_cpu_p50_us %.1f us\n", cpu[n / 2]);
    printf("BENCH reclaim_search_cpu_p99_us %.1f us\n", cpu[n * 99 / 100]);
    printf("BENCH reclaim_search_cpu_max_us %.1f us\n", cpu[n - 1]);
    printf("BENCH reclaim_search_cpu_per_s %.0f searches/s\n", (double)n / cpu_total);
    printf("BENCH reclaim_searches %zu searches\n", n);
    printf("BENCH reclaim_with_victims %zu searches\n", with_victims);
    printf("BENCH reclaim_victims_mean %.2f gangs\n",
           with_victims ? (double)victims / (double)with_victims : 0);
    printf("BENCH reclaim_proven_smallest %.1f %%\n",
           with_victims ? 100.0 * (double)proven / (double)with_victims : 0);
    printf("BENCH reclaim_none_helps %zu searches\n", outcome[QUEUE_RECLAIM_NONE_HELPS]);
    printf("BENCH reclaim_not_entitled_or_nothing %zu searches\n",
           outcome[QUEUE_RECLAIM_NOT_ENTITLED] + outcome[QUEUE_RECLAIM_NO_CANDIDATES]);
    printf("BENCH reclaim_lending_queues_mean %.0f queues\n", (double)queues / (double)n);
    printf("BENCH reclaim_candidates_mean %.0f gangs\n", (double)cands / (double)n);
    printf("BENCH reclaim_dry_runs_mean %.1f calls\n", (double)fits / (double)n);
    printf("BENCH reclaim_gangs_visited_mean %.0f gangs\n", (double)visited / (double)n);
    printf("BENCH reclaim_sets_examined_mean %.0f sets\n", (double)nodes / (double)n);
    free(lat);
    free(cpu);
    queue_reclaim_free(rc);

    double engine_rate, naive_rate;
    int agree;
    size_t nv;
    small_world(&engine_rate, &naive_rate, &agree, &nv);
    printf("BENCH reclaim_small_engine_per_s %.0f searches/s\n", engine_rate);
    printf("BENCH reclaim_naive_per_s %.0f searches/s\n", naive_rate);
    printf("BENCH reclaim_naive_agreement %d (%zu victims)\n", agree, nv);

    for (int c = 0; c < CLUSTERS; c++) {
        queue_resvec_close(&b.used[c]);
        queue_resvec_close(&w.room[c]);
    }
    queue_resvec_close(&w.per);
    queue_tree_free(b.t);
    if (!agree)
        exit(1);
}
