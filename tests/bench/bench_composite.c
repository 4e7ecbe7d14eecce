/* Composite placement benchmark (issue 20): dispatcher/composite.h placing a 64-group gang over
 * 100 clusters of 100 GPU nodes in 4 regions of 3 zones. Each node has 8 GPUs, 128 cpu and 2 TiB
 * with a random share in use; the clusters describe their nodes by Karmada-style resource
 * models graded by free GPUs ([0,1) [1,2) [2,4) [4,8) [8,inf), cpu and memory in proportion).
 * Each search is for a different gang: 64 shards of 1 to 8 pods of 1 to 8 GPUs, at least 48
 * of them needed, the whole gang required in one region and preferred in one zone (half the
 * searches), or spread over 2 zones (the other half). Latency per search (p50, p99, max), how
 * many were proven best within the budget, and what they placed. Then the naive
 * every-assignment search (tests/unit/dispatcher/composite_model.h) and the engine on a small
 * case, checked to agree: the benchmark exits 1 when they do not. */
#include "bench/bench.h"
#include "bench/fleet.h"
#include "unit/dispatcher/composite_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CLUSTERS 100
#define NODES 100
#define GROUPS 64
#define SEARCHES 200
#define GRADES 5
#define GI (1073741824LL * 1000)

enum { CPU, MEM, GPU };

static const char *regions[4] = {"us-east", "us-west", "eu-west", "ap-south"};
static const char *zones[12] = {"use-a", "use-b", "use-c", "usw-a", "usw-b", "usw-c",
                                "euw-a", "euw-b", "euw-c", "aps-a", "aps-b", "aps-c"};

struct bfleet {
    struct disp_cluster_cap cl[CLUSTERS];
    struct disp_grade gr[CLUSTERS][GRADES];
    char names[CLUSTERS][16];
    uint32_t region[CLUSTERS], zone[CLUSTERS];
};

static const char *bench_level(void *ud, uint32_t c, const char *level)
{
    const struct bfleet *f = ud;
    if (strcmp(level, "region") == 0)
        return regions[f->region[c]];
    if (strcmp(level, "zone") == 0)
        return zones[f->zone[c]];
    return NULL;
}

/* per free GPU on a node: 16 cpu and 256Gi */
static void gpu_vec(struct queue_resvec *v, int64_t gpus)
{
    queue_resvec_clear(v);
    if (gpus <= 0) { /* a grade from 0: described, none of it */
        queue_resvec_put(v, GPU, -1);
        return;
    }
    queue_resvec_set(v, CPU, 16 * gpus * 1000);
    queue_resvec_set(v, MEM, 256 * gpus * GI);
    queue_resvec_set(v, GPU, gpus * 1000);
}

static void build_fleet(struct bfleet *f, uint64_t *rng)
{
    static const int64_t lo[GRADES] = {0, 1, 2, 4, 8};
    memset(f, 0, sizeof(*f));
    for (uint32_t c = 0; c < CLUSTERS; c++) {
        struct disp_cluster_cap *cl = &f->cl[c];
        snprintf(f->names[c], sizeof f->names[c], "gpu-%02u", c);
        cl->name = f->names[c];
        f->region[c] = c % 4;
        f->zone[c] = f->region[c] * 3 + (c / 4) % 3;
        cl->grades = f->gr[c];
        cl->ngrades = GRADES;
        /* busy clusters and idle ones: the share of GPUs in use per node varies by cluster */
        uint64_t busy = 30 + fleet_rand(rng) % 60;
        int64_t free_gpus = 0;
        for (uint32_t n = 0; n < NODES; n++) {
            int64_t used = 0;
            for (int g = 0; g < 8; g++)
                used += fleet_rand(rng) % 100 < busy;
            int64_t fr = 8 - used;
            free_gpus += fr;
            int grade = fr >= 8 ? 4 : fr >= 4 ? 3 : fr >= 2 ? 2 : fr >= 1 ? 1 : 0;
            f->gr[c][grade].nodes++;
        }
        for (int g = 0; g < GRADES; g++)
            gpu_vec(&f->gr[c][g].min, lo[g]);
        gpu_vec(&cl->free, free_gpus);
    }
}

static void close_fleet(struct bfleet *f)
{
    for (uint32_t c = 0; c < CLUSTERS; c++) {
        queue_resvec_close(&f->cl[c].free);
        for (int g = 0; g < GRADES; g++)
            queue_resvec_close(&f->gr[c][g].min);
    }
}

struct gang {
    struct karmada_group g[GROUPS + 1];
    struct karmada_group_tree t;
};

static void build_gang(struct gang *k, uint64_t *rng, int variant)
{
    memset(k, 0, sizeof(*k));
    k->t.g = k->g;
    k->t.n = GROUPS + 1;
    struct karmada_group *root = &k->g[0];
    snprintf(root->name, sizeof root->name, "trainer");
    root->parent = -1;
    root->min_count = 48 + (uint32_t)(fleet_rand(rng) % 17);
    root->source = KARMADA_GROUP_SOURCE_JOBSET;
    struct karmada_group_topo *tp = &root->topo[root->ntopo++];
    snprintf(tp->level, sizeof tp->level, "region");
    tp->mode = KARMADA_TOPO_PACK;
    tp->required = 1;
    tp = &root->topo[root->ntopo++];
    snprintf(tp->level, sizeof tp->level, "zone");
    tp->mode = variant % 2 ? KARMADA_TOPO_SPREAD : KARMADA_TOPO_PACK;
    tp->min_domains = 2;
    tp->required = 0;
    static const int64_t gpus[4] = {1, 2, 4, 8};
    int64_t per = gpus[fleet_rand(rng) % 4];
    uint32_t pods = (uint32_t)(8 / per) * (1 + (uint32_t)(fleet_rand(rng) % 2));
    for (uint32_t i = 1; i <= GROUPS; i++) {
        struct karmada_group *g = &k->g[i];
        snprintf(g->name, sizeof g->name, "shard-%u", i - 1);
        g->parent = 0;
        g->source = KARMADA_GROUP_SOURCE_JOBSET;
        g->pods = pods;
        g->min_count = pods;
        g->indivisible = 1;
        queue_resvec_set(&g->pod, CPU, 12 * per * 1000);
        queue_resvec_set(&g->pod, MEM, 128 * per * GI);
        queue_resvec_set(&g->pod, GPU, per * 1000);
    }
}

static void close_gang(struct gang *k)
{
    for (uint32_t i = 0; i < k->t.n; i++)
        queue_resvec_close(&k->g[i].pod);
}

/* CPU time of this thread: the search's own work, without the time another process held the
 * core (the machine is shared). */
static double cpu_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* MUSTER_BENCH_COMPOSITE_BUDGET: the search budget in steps (default: the engine's). */
static uint64_t budget(void)
{
    const char *v = getenv("MUSTER_BENCH_COMPOSITE_BUDGET");
    return v ? strtoull(v, NULL, 10) : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The small case: 3 clusters, a gang of 5 groups (one of two leaves, three shards) over two
 * regions, a required region and a preferred zone. */
struct small {
    struct disp_cluster_cap cl[3];
    struct disp_grade gr[3][2];
    struct karmada_group g[7];
    struct karmada_group_tree t;
};

static const char *small_level(void *ud, uint32_t c, const char *level)
{
    (void)ud;
    static const char *rg[3] = {"r0", "r0", "r1"}, *zn[3] = {"z0", "z1", "z2"};
    return strcmp(level, "region") == 0 ? rg[c] : strcmp(level, "zone") == 0 ? zn[c] : NULL;
}

static void build_small(struct small *s)
{
    memset(s, 0, sizeof(*s));
    static const char *cn[3] = {"s0", "s1", "s2"};
    static const uint64_t nodes[3][2] = {{2, 2}, {1, 3}, {4, 1}};
    for (int c = 0; c < 3; c++) {
        s->cl[c].name = cn[c];
        s->cl[c].grades = s->gr[c];
        s->cl[c].ngrades = 2;
        gpu_vec(&s->gr[c][0].min, 4);
        gpu_vec(&s->gr[c][1].min, 8);
        s->gr[c][0].nodes = nodes[c][0];
        s->gr[c][1].nodes = nodes[c][1];
        gpu_vec(&s->cl[c].free, (int64_t)(4 * nodes[c][0] + 8 * nodes[c][1]));
    }
    s->t.g = s->g;
    s->t.n = 7;
    static const struct {
        const char *name;
        int32_t parent;
        uint32_t min, pods;
        int64_t gpus;
    } def[7] = {{"job", -1, 3, 0, 0},    {"leader-workers", 0, 2, 0, 0}, {"leader", 1, 1, 1, 2},
                {"workers", 1, 3, 3, 4}, {"shard-0", 0, 2, 2, 4},        {"shard-1", 0, 2, 2, 4},
                {"shard-2", 0, 1, 1, 8}};
    for (int i = 0; i < 7; i++) {
        struct karmada_group *g = &s->g[i];
        snprintf(g->name, sizeof g->name, "%s", def[i].name);
        g->parent = def[i].parent;
        g->min_count = def[i].min;
        g->pods = def[i].pods;
        g->indivisible = i != 0;
        if (def[i].gpus) {
            queue_resvec_set(&g->pod, CPU, 12 * def[i].gpus * 1000);
            queue_resvec_set(&g->pod, MEM, 128 * def[i].gpus * GI);
            queue_resvec_set(&g->pod, GPU, def[i].gpus * 1000);
        }
    }
    s->g[0].min_count = 3;
    s->g[0].ntopo = 2;
    snprintf(s->g[0].topo[0].level, sizeof s->g[0].topo[0].level, "region");
    s->g[0].topo[0].mode = KARMADA_TOPO_PACK;
    s->g[0].topo[0].required = 1;
    snprintf(s->g[0].topo[1].level, sizeof s->g[0].topo[1].level, "zone");
    s->g[0].topo[1].mode = KARMADA_TOPO_PACK;
}

static void close_small(struct small *s)
{
    for (int c = 0; c < 3; c++) {
        queue_resvec_close(&s->cl[c].free);
        queue_resvec_close(&s->gr[c][0].min);
        queue_resvec_close(&s->gr[c][1].min);
    }
    for (int i = 0; i < 7; i++)
        queue_resvec_close(&s->g[i].pod);
}

void bench_composite(void)
{
    static struct bfleet f;
    uint64_t rng = 0x853c49e6748fea9bULL;
    build_fleet(&f, &rng);
    double lat[SEARCHES], cpu[SEARCHES];
    uint64_t steps = 0, clusters = 0;
    uint32_t complete = 0, placed = 0, prefs = 0;
    for (int i = 0; i < SEARCHES; i++) {
        struct gang k;
        build_gang(&k, &rng, i);
        struct disp_composite_in in = {.tree = &k.t,
                                       .clusters = f.cl,
                                       .nclusters = CLUSTERS,
                                       .level_value = bench_level,
                                       .ud = &f,
                                       .budget = budget()};
        struct disp_composite_result r;
        double a = fleet_now_s(), ca = cpu_now_s();
        if (disp_composite_place(&in, &r)) {
            fprintf(stderr, "bench composite: %s\n", r.why);
            exit(1);
        }
        lat[i] = (fleet_now_s() - a) * 1e6;
        cpu[i] = (cpu_now_s() - ca) * 1e6;
        if (getenv("MUSTER_BENCH_VERBOSE"))
            fprintf(stderr,
                    "%d: cpu %.0f placed %d complete %d steps %llu pods %llu clusters %u opened "
                    "%llu prefs %u: %s\n",
                    i, cpu[i], r.placed, r.complete, (unsigned long long)r.steps,
                    (unsigned long long)r.score.pods, r.score.clusters,
                    (unsigned long long)r.score.opened, r.score.prefs_met, r.why);
        steps += r.steps;
        complete += (uint32_t)r.complete;
        if (r.placed) {
            placed++;
            clusters += r.score.clusters;
            prefs += r.score.prefs_met;
        }
        disp_composite_result_close(&r);
        close_gang(&k);
    }
    qsort(lat, SEARCHES, sizeof(double), cmp_double);
    qsort(cpu, SEARCHES, sizeof(double), cmp_double);
    printf("BENCH composite_clusters %d clusters\n", CLUSTERS);
    printf("BENCH composite_nodes_per_cluster %d nodes\n", NODES);
    printf("BENCH composite_groups %d groups\n", GROUPS);
    printf("BENCH composite_place_p50_us %.1f us\n", lat[SEARCHES / 2]);
    printf("BENCH composite_place_p99_us %.1f us\n", lat[SEARCHES * 99 / 100]);
    printf("BENCH composite_place_max_us %.1f us\n", lat[SEARCHES - 1]);
    printf("BENCH composite_place_cpu_p50_us %.1f us\n", cpu[SEARCHES / 2]);
    printf("BENCH composite_place_cpu_p99_us %.1f us\n", cpu[SEARCHES * 99 / 100]);
    printf("BENCH composite_steps_mean %.0f steps\n", (double)steps / SEARCHES);
    printf("BENCH composite_proven_best %.1f %%\n", 100.0 * complete / SEARCHES);
    printf("BENCH composite_placed %.1f %%\n", 100.0 * placed / SEARCHES);
    printf("BENCH composite_clusters_used_mean %.2f clusters\n",
           placed ? (double)clusters / placed : 0);
    printf("BENCH composite_prefs_met_mean %.2f of 1\n", placed ? (double)prefs / placed : 0);
    close_fleet(&f);

    /* the naive search and the engine on the small case, which must agree */
    struct small s;
    build_small(&s);
    struct disp_composite_in in = {
        .tree = &s.t, .clusters = s.cl, .nclusters = 3, .level_value = small_level};
    struct disp_composite_score best = {0};
    int32_t basg[7];
    int runs = 0, found = 0;
    double a = fleet_now_s();
    do {
        found = cm_solve(&in, &best, basg);
        runs++;
    } while (fleet_now_s() - a < 0.3);
    double naive_us = (fleet_now_s() - a) * 1e6 / runs;
    struct disp_composite_result r;
    int eruns = 0, agree = 0;
    a = fleet_now_s();
    do {
        if (eruns)
            disp_composite_result_close(&r);
        if (disp_composite_place(&in, &r))
            abort();
        eruns++;
    } while (fleet_now_s() - a < 0.3);
    double engine_us = (fleet_now_s() - a) * 1e6 / eruns;
    struct disp_composite_score sc;
    agree = found && r.placed && r.complete && cm_cmp(&best, &r.score) == 0 &&
            cm_valid(&in, r.cluster, &sc) && cm_cmp(&sc, &r.score) == 0;
    printf("BENCH composite_naive_small_us %.1f us\n", naive_us);
    printf("BENCH composite_small_us %.1f us\n", engine_us);
    printf("BENCH composite_naive_vs_engine_ratio %.0f ratio\n", naive_us / engine_us);
    printf("BENCH composite_naive_agreement %d (pods %llu, clusters %u, nodes opened %llu)\n",
           agree, (unsigned long long)r.score.pods, r.score.clusters,
           (unsigned long long)r.score.opened);
    disp_composite_result_close(&r);
    close_small(&s);
    if (!agree) {
        fprintf(stderr,
                "bench composite: the engine and the naive search disagree on the small "
                "case (naive: found %d, pods %llu, clusters %u, opened %llu)\n",
                found, (unsigned long long)best.pods, best.clusters,
                (unsigned long long)best.opened);
        exit(1);
    }
}
