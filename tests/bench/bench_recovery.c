/* Start-up benchmark: 1,000 queues and 1,000,000 live ledger rows written to SQLite, then the
 * time musterd needs to open the store and rebuild the engine from it (store_open + disp_load). */
#include "bench/bench.h"
#include "bench/fleet.h"

#include "dispatcher/recovery.h"
#include "cluster-adapters/kube/resources.h"
#include "dispatcher/store.h"
#include "dispatcher/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROWS 1000000
#define BATCH 10000

static void die(const char *what, int rc, const char *msg)
{
    fprintf(stderr, "bench recovery: %s: %s %s\n", what, muster_strerror(rc), msg ? msg : "");
    exit(1);
}

static char *json_text(const struct queue_resnames *names, const struct queue_resvec *v)
{
    json_object *o = kube_resvec_json(names, v);
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

void bench_recovery(void)
{
    char path[512];
    const char *dir = getenv("MUSTER_BENCH_DIR");
    snprintf(path, sizeof(path), "%s/muster-bench-recovery-%ld.db", dir ? dir : "/tmp",
             (long)getpid());
    struct queue_tree *scratch = queue_tree_new();
    struct fleet f;
    fleet_build(&f, scratch);
    struct queue_resnames *names = queue_tree_resnames(scratch);

    struct store_options opt = {.sync = STORE_SYNC_NORMAL};
    struct store *s;
    char err[256];
    int rc = store_open(path, &opt, &s, err, sizeof(err));
    if (rc)
        die("open", rc, err);
    if ((rc = store_begin(s)))
        die("begin", rc, store_errmsg(s));
    for (int i = 0; i < f.nqueues; i++) {
        const struct queue_spec *sp = &f.queues[i].spec;
        char *g = json_text(names, &sp->guarantee), *d = json_text(names, &sp->deserved),
             *c = json_text(names, &sp->capability);
        struct store_queue q = {.name = sp->name,
                                .parent = sp->parent,
                                .weight = sp->weight,
                                .priority = sp->priority,
                                .state = queue_state_name(sp->state),
                                .queueing_strategy = queue_strategy_name(sp->strategy),
                                .guarantee = g,
                                .deserved = d,
                                .capability = c,
                                .gang_timeout_ms = 300000,
                                .resource_version = 1,
                                .created_at = 1,
                                .updated_at = 1,
                                .on_cluster_loss = "Requeue"};
        if ((rc = store_queue_put(s, &q)))
            die("queue", rc, store_errmsg(s));
        free(g);
        free(d);
        free(c);
    }
    if ((rc = store_commit(s)))
        die("commit", rc, store_errmsg(s));

    char *req[FLEET_SHAPES];
    for (int k = 0; k < FLEET_SHAPES; k++)
        req[k] = json_text(names, &f.shapes[k]);
    struct store_ledger_row *rows = calloc(BATCH, sizeof(*rows));
    char (*bind)[48] = calloc(BATCH, 48);
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    for (int done = 0; done < ROWS; done += BATCH) {
        for (int i = 0; i < BATCH; i++) {
            long n = done + i;
            snprintf(bind[i], 48, "ns-%ld/job-%ld", n % 97, n);
            int leaf = f.leaves[fleet_rand(&rng) % FLEET_LEAVES];
            int admitted = fleet_rand(&rng) % 20 == 0;
            rows[i] = (struct store_ledger_row){
                .binding = bind[i],
                .queue = f.queues[leaf].name,
                .request = req[fleet_rand(&rng) % FLEET_SHAPES],
                .priority = (int64_t)(fleet_rand(&rng) % 4),
                .state = admitted ? "admitted" : "pending",
                .created_at = 1700000000000LL + n,
                .admitted_at = admitted ? 1700000000000LL + n : 0,
                .updated_at = 1700000000000LL + n,
            };
        }
        if ((rc = store_ledger_write_batch(s, rows, BATCH)))
            die("ledger", rc, store_errmsg(s));
    }
    store_close(s);
    free(rows);
    free(bind);
    for (int k = 0; k < FLEET_SHAPES; k++)
        free(req[k]);

    double t0 = fleet_now_s();
    rc = store_open(path, NULL, &s, err, sizeof(err));
    if (rc)
        die("reopen", rc, err);
    struct queue_tree *t = queue_tree_new();
    struct disp_load_stats st;
    rc = disp_load(s, t, &st, err, sizeof(err));
    double secs = fleet_now_s() - t0;
    if (rc)
        die("load", rc, err);
    if (st.pending + st.admitted != ROWS || st.orphans) {
        fprintf(stderr, "bench recovery: loaded %zu pending + %zu admitted, %zu orphans\n",
                st.pending, st.admitted, st.orphans);
        exit(1);
    }
    printf("BENCH store_load_queues %zu queues\n", st.queues);
    printf("BENCH store_load_1m_ledger_s %.3f s\n", secs);
    store_close(s);
    queue_tree_free(t);
    fleet_free(&f);
    queue_tree_free(scratch);
    unlink(path);
    char side[600];
    snprintf(side, sizeof(side), "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", path);
    unlink(side);
}
