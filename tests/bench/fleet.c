/* The benchmark fleet (see fleet.h). */
#include "bench/fleet.h"

#include "queue/quantity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const names[10] = {"cpu",          "memory",          "nvidia.com/gpu",
                                      "ephemeral-storage", "pods",        "hugepages-2Mi",
                                      "example.com/foo",   "rdma/hca",    "amd.com/gpu",
                                      "nvidia.com/mig-1g.5gb"};

uint64_t fleet_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

double fleet_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double fleet_rss_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = 0;
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtod(line + 6, NULL);
    if (f)
        fclose(f);
    return kib / 1024.0;
}

#define GI (1024LL * 1024 * 1024 * 1000) /* milli-units */

/* gpu, cpu, memory per "unit" of a level: a team deserves 8 GPUs, 64 CPUs, 512Gi. */
static void quota(struct fleet *f, struct queue_resvec *v, int64_t units, int64_t per_gpu)
{
    queue_resvec_set(v, f->res[2], units * per_gpu * 1000);
    queue_resvec_set(v, f->res[0], units * per_gpu * 8 * 1000);
    queue_resvec_set(v, f->res[1], units * per_gpu * 64 * GI);
}

static struct fleet_queue *add_queue(struct fleet *f, const char *name, const char *parent)
{
    struct fleet_queue *q = &f->queues[f->nqueues++];
    memset(q, 0, sizeof(*q));
    snprintf(q->name, sizeof(q->name), "%s", name);
    snprintf(q->parent, sizeof(q->parent), "%s", parent);
    q->spec.name = q->name;
    q->spec.parent = q->parent;
    q->spec.weight = 1;
    return q;
}

void fleet_build(struct fleet *f, struct queue_tree *t)
{
    memset(f, 0, sizeof(*f));
    for (int i = 0; i < 10; i++)
        if (queue_resnames_intern(queue_tree_resnames(t), names[i], strlen(names[i]), &f->res[i]))
            abort();
    int total = FLEET_ORGS * (1 + FLEET_DEPTS * (1 + FLEET_GROUPS * (1 + FLEET_TEAMS)));
    f->queues = calloc((size_t)total, sizeof(*f->queues));
    int nleaf = 0;
    char n[16], d[24], g[32], tm[40];
    for (int o = 0; o < FLEET_ORGS; o++) {
        snprintf(n, sizeof(n), "org-%d", o);
        struct fleet_queue *oq = add_queue(f, n, "root");
        int64_t team_units = FLEET_DEPTS * FLEET_GROUPS * FLEET_TEAMS;
        quota(f, &oq->spec.deserved, team_units, 8);
        quota(f, &oq->spec.guarantee, team_units, 2);
        quota(f, &oq->spec.capability, team_units, 12);
        oq->spec.priority = o % 2;
        for (int de = 0; de < FLEET_DEPTS; de++) {
            snprintf(d, sizeof(d), "org-%d-d%d", o, de);
            struct fleet_queue *dq = add_queue(f, d, n);
            quota(f, &dq->spec.deserved, FLEET_GROUPS * FLEET_TEAMS, 8);
            quota(f, &dq->spec.guarantee, FLEET_GROUPS * FLEET_TEAMS, 2);
            dq->spec.weight = 1 + de % 3;
            for (int gr = 0; gr < FLEET_GROUPS; gr++) {
                snprintf(g, sizeof(g), "%s-g%d", d, gr);
                struct fleet_queue *gq = add_queue(f, g, d);
                quota(f, &gq->spec.deserved, FLEET_TEAMS, 8);
                quota(f, &gq->spec.guarantee, FLEET_TEAMS, 2);
                for (int te = 0; te < FLEET_TEAMS; te++) {
                    snprintf(tm, sizeof(tm), "%s-t%d", g, te);
                    struct fleet_queue *tq = add_queue(f, tm, g);
                    quota(f, &tq->spec.deserved, 1, 8);
                    quota(f, &tq->spec.guarantee, 1, 2);
                    quota(f, &tq->spec.capability, 1, 32);
                    tq->spec.strategy = te == 0 ? QUEUE_STRICT_FIFO : QUEUE_BEST_EFFORT_FIFO;
                    f->leaves[nleaf++] = f->nqueues - 1;
                }
            }
        }
    }
    /* Gangs of 1..32 GPUs with 8 or 16 CPUs and 64Gi or 128Gi per GPU; some ask for more. */
    for (int s = 0; s < FLEET_SHAPES; s++) {
        int64_t gpus = 1LL << (s % 6); /* up to a team's capability of 32 */
        struct queue_resvec *v = &f->shapes[s];
        queue_resvec_set(v, f->res[2], gpus * 1000);
        queue_resvec_set(v, f->res[0], gpus * ((s / 8) % 2 ? 16 : 8) * 1000);
        queue_resvec_set(v, f->res[1], gpus * ((s / 16) % 2 ? 128 : 64) * GI);
        queue_resvec_set(v, f->res[4], gpus * 1000);
        if (s % 5 == 0)
            queue_resvec_set(v, f->res[3], gpus * 100 * GI);
        if (s % 7 == 0)
            queue_resvec_set(v, f->res[7], gpus * 1000);
        if (s % 11 == 0)
            queue_resvec_set(v, f->res[6], 1000);
    }
    /* The fleet holds 60% of what the teams deserve, so queues compete. */
    int64_t units = (int64_t)FLEET_LEAVES * 8 * 6 / 10;
    queue_resvec_set(&f->fleet_cap, f->res[2], units * 1000);
    queue_resvec_set(&f->fleet_cap, f->res[0], units * 16 * 1000);
    queue_resvec_set(&f->fleet_cap, f->res[1], units * 128 * GI);
}

void fleet_apply(const struct fleet *f, struct queue_tree *t)
{
    for (int i = 0; i < f->nqueues; i++) {
        struct queue_error err;
        if (queue_tree_create(t, &f->queues[i].spec, &err)) {
            fprintf(stderr, "bench fleet: %s: %s: %s\n", f->queues[i].name, err.field, err.msg);
            exit(1);
        }
    }
    if (queue_tree_set_fleet(t, &f->fleet_cap))
        abort();
}

void fleet_free(struct fleet *f)
{
    for (int i = 0; i < f->nqueues; i++) {
        queue_resvec_close(&f->queues[i].spec.guarantee);
        queue_resvec_close(&f->queues[i].spec.deserved);
        queue_resvec_close(&f->queues[i].spec.capability);
    }
    free(f->queues);
    for (int s = 0; s < FLEET_SHAPES; s++)
        queue_resvec_close(&f->shapes[s]);
    queue_resvec_close(&f->fleet_cap);
}
