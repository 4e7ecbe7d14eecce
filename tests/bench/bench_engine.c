/* Engine benchmark: 1,000 queues four levels deep, 10 resource names, 1,000,000 pending
 * entries. Measures decisions per second and their p99 latency in a steady state where gangs
 * finish and new ones arrive, the memory held, and the same decisions made by the naive model
 * (tests/unit/queue/model.h) scanning every pending entry, checked to agree. */
#include "bench/bench.h"
#include "bench/fleet.h"
#include "unit/queue/model.h"

#include "queue/errors.h"
#include "queue/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PENDING 1000000
#define TIMED_DECISIONS_DEFAULT 300000
#define NAIVE_DECISIONS 20

struct run {
    struct queue_tree *t;
    struct fleet f;
    uint64_t rng;
    uint64_t next_id;
    uint64_t *admitted; /* ids */
    size_t nadm;
    uint64_t *pending_count;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void add_entry(struct run *r, struct model *m)
{
    uint64_t id = r->next_id++;
    int leaf = r->f.leaves[fleet_rand(&r->rng) % FLEET_LEAVES];
    const struct queue_resvec *req = &r->f.shapes[fleet_rand(&r->rng) % FLEET_SHAPES];
    struct queue_entry_spec es = {id, r->f.queues[leaf].name, (int32_t)(fleet_rand(&r->rng) % 4),
                                  (int64_t)id, req};
    if (queue_entry_add(r->t, &es, NULL, NULL))
        abort();
    if (m)
        model_add(m, id, queue_tree_find(r->t, es.queue), es.priority, es.created_at, req, 0);
}

static void release_random(struct run *r, struct model *m)
{
    if (!r->nadm)
        return;
    size_t i = fleet_rand(&r->rng) % r->nadm;
    uint64_t id = r->admitted[i];
    r->admitted[i] = r->admitted[--r->nadm];
    queue_entry_remove(r->t, queue_tree_entry(r->t, id));
    if (m)
        model_remove(m, id);
}

static size_t timed_decisions(void)
{
    const char *v = getenv("MUSTER_BENCH_DECISIONS");
    long n = v ? strtol(v, NULL, 10) : 0;
    return n > 0 ? (size_t)n : TIMED_DECISIONS_DEFAULT;
}

void bench_engine(void)
{
    const size_t TIMED_DECISIONS = timed_decisions();
    struct run r = {.rng = 88172645463325252ULL, .next_id = 1};
    double rss0 = fleet_rss_mib();
    r.t = queue_tree_new();
    fleet_build(&r.f, r.t);
    fleet_apply(&r.f, r.t);
    size_t cap_ids = PENDING + TIMED_DECISIONS * 2 + 100000;
    r.admitted = calloc(cap_ids, sizeof(*r.admitted));
    double t0 = fleet_now_s();
    for (int i = 0; i < PENDING; i++)
        add_entry(&r, NULL);
    double t_add = fleet_now_s() - t0;
    double rss = fleet_rss_mib();
    printf("BENCH engine_queues %zu queues\n", queue_tree_count(r.t));
    printf("BENCH engine_add_1m_s %.3f s\n", t_add);
    printf("BENCH engine_rss_mib_at_1m_pending %.1f MiB\n", rss);
    printf("BENCH engine_rss_mib_delta_1m_pending %.1f MiB\n", rss - rss0);

    /* Fill the fleet, then the steady state: each round some gangs finish, as many new ones
     * arrive, and the engine decides until nothing more fits. */
    double *lat = malloc(TIMED_DECISIONS * sizeof(*lat));
    size_t n = 0, admits = 0, nones = 0;
    double busy = 0, deciding = 0;
    queue_cycle_begin(r.t);
    while (n < TIMED_DECISIONS) {
        double a = fleet_now_s();
        struct queue_entry *e = queue_cycle_next(r.t);
        if (e && queue_entry_admit(r.t, e, NULL))
            abort();
        double b = fleet_now_s();
        lat[n++] = (b - a) * 1e6;
        busy += b - a;
        deciding += b - a;
        if (e) {
            r.admitted[r.nadm++] = queue_entry_id(e);
            admits++;
            add_entry(&r, NULL);
            continue;
        }
        nones++;
        double c = fleet_now_s();
        for (int k = 0; k < 8; k++)
            release_random(&r, NULL);
        queue_cycle_begin(r.t);
        busy += fleet_now_s() - c;
    }
    qsort(lat, n, sizeof(*lat), cmp_double);
    /* Decisions per second of deciding; the steady rate also pays for the releases. */
    printf("BENCH engine_decisions_per_s %.0f decisions/s\n", (double)n / deciding);
    printf("BENCH engine_steady_decisions_per_s %.0f decisions/s\n", (double)n / busy);
    printf("BENCH engine_decision_p50_us %.2f us\n", lat[n / 2]);
    printf("BENCH engine_decision_p99_us %.2f us\n", lat[n * 99 / 100]);
    printf("BENCH engine_decision_max_us %.2f us\n", lat[n - 1]);
    printf("BENCH engine_admitted_in_run %zu admissions\n", admits);
    printf("BENCH engine_nothing_fits_in_run %zu decisions\n", nones);
    free(lat);

    /* The yardstick: the same decisions by scanning every pending entry, in lockstep with the
     * engine on the same state; any disagreement is a bug. */
    struct model m;
    model_init(&m, r.t, r.next_id + NAIVE_DECISIONS + 16);
    queue_resvec_copy(&m.fleet, &r.f.fleet_cap);
    for (uint64_t id = 1; id < r.next_id; id++) {
        struct queue_entry *e = queue_tree_entry(r.t, id);
        if (e)
            model_add(&m, id, queue_entry_queue(e), queue_entry_priority(e),
                      queue_entry_created(e), queue_entry_request(e),
                      queue_entry_state(e) == QUEUE_ENTRY_ADMITTED);
    }
    /* Entries' requests are interned in the tree and live as long as the entry. */
    queue_cycle_begin(r.t);
    model_cycle_begin(&m);
    double naive = 0;
    int agree = 0;
    for (int i = 0; i < NAIVE_DECISIONS; i++) {
        struct queue_entry *e = queue_cycle_next(r.t);
        uint64_t got = e ? queue_entry_id(e) : 0;
        double a = fleet_now_s();
        model_snapshot(&m);
        uint64_t want = model_pick(&m);
        naive += fleet_now_s() - a;
        agree += got == want;
        if (got != want) {
            fprintf(stderr, "bench: engine picked %llu, naive %llu\n", (unsigned long long)got,
                    (unsigned long long)want);
            break;
        }
        if (e) {
            if (queue_entry_admit(r.t, e, NULL))
                abort();
            m.e[got].admitted = 1;
            r.admitted[r.nadm++] = got;
        } else {
            release_random(&r, &m);
            queue_cycle_begin(r.t);
            model_cycle_begin(&m);
        }
    }
    double naive_rate = agree ? agree / naive : 0;
    printf("BENCH naive_decisions_per_s %.1f decisions/s\n", naive_rate);
    printf("BENCH naive_agreement %d/%d decisions\n", agree, NAIVE_DECISIONS);
    printf("BENCH engine_vs_naive_speedup %.0f ratio\n",
           naive_rate > 0 ? ((double)n / deciding) / naive_rate : 0);
    model_close(&m);
    free(r.admitted);
    fleet_free(&r.f);
    queue_tree_free(r.t);
    if (agree != NAIVE_DECISIONS)
        exit(1);
}
