/* Tests for dispatcher/demo.c: the engine demo runs, every admission it made is in the ledger
 * (a fresh load from SQLite sees exactly the engine's state), capacity is never exceeded, and
 * it restarts on its own database. */
#include "dispatcher/demo.h"
#include "dispatcher/recovery.h"
#include "queue/errors.h"
#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int64_t gpus(struct queue_tree *t, const char *queue, uint64_t *pending, uint64_t *admitted)
{
    struct queue_status st;
    uint32_t id;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_find(queue_tree_resnames(t), "nvidia.com/gpu", 14, &id),
                          0);
    CU_ASSERT_EQUAL_FATAL(queue_node_status(t, queue_tree_find(t, queue), &st), 0);
    int64_t v = queue_resvec_get(&st.allocated, id);
    if (pending)
        *pending = st.pending;
    if (admitted)
        *admitted = st.admitted;
    queue_status_close(&st);
    return v;
}

static void run_once(const char *path, double seconds, uint64_t seed, int fresh)
{
    struct store *s;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(store_open(path, NULL, &s, err, sizeof(err)), 0);
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL_FATAL(disp_load(s, t, NULL, err, sizeof(err)), 0);
    FILE *out = fopen("/dev/null", "w");
    struct disp_demo_options opt = {.seconds = seconds, .cycle_ms = 20, .summary_ms = 200,
                                    .arrivals_per_s = 60, .seed = seed, .out = out};
    struct disp_demo_stats st;
    CU_ASSERT_EQUAL(disp_demo_run(s, t, &opt, &st), 0);
    fclose(out);
    CU_ASSERT(st.arrived > 20);
    if (fresh)
        CU_ASSERT(st.admitted > 5);
    CU_ASSERT(st.admitted + st.finished > 0); /* after a restart, the adopted gangs finish */
    CU_ASSERT(st.cycles > 10);
    uint64_t pending, admitted;
    int64_t used = gpus(t, "root", &pending, &admitted);
    CU_ASSERT(used <= 64000); /* the fleet */
    CU_ASSERT(gpus(t, "research", NULL, NULL) <= 48000);
    CU_ASSERT(gpus(t, "production", NULL, NULL) <= 56000);

    /* What SQLite holds is what the engine decided: reload and compare. */
    struct queue_tree *again = queue_tree_new();
    struct disp_load_stats ls;
    CU_ASSERT_EQUAL(disp_load(s, again, &ls, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(ls.pending, pending);
    CU_ASSERT_EQUAL(ls.admitted, admitted);
    CU_ASSERT_EQUAL(ls.orphans, 0);
    CU_ASSERT_EQUAL(gpus(again, "root", NULL, NULL), used);
    CU_ASSERT_EQUAL(gpus(again, "nlp", NULL, NULL), gpus(t, "nlp", NULL, NULL));
    queue_tree_free(again);
    queue_tree_free(t);
    store_close(s);
}

static void test_runs_and_restarts(void)
{
    char path[512];
    test_tmp_path(path, sizeof(path), "demo.db");
    unlink(path);
    run_once(path, 1.5, 42, 1);
    run_once(path, 2.0, 43, 0); /* restart on the same database: adopts what was running */
}

/* With the scenario, the hub runs in-process and the fleet comes from its Ready clusters
 * (gpu-east 32 + gpu-west 8 GPUs; gpu-lab is NotReady) through muster's own client. */
static void test_fleet_from_the_hub(void)
{
    char path[512], scenario[1024];
    test_tmp_path(path, sizeof(path), "demo-hub.db");
    unlink(path);
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(scenario, sizeof(scenario), "%s/deploy/scenarios/demo.yaml", src ? src : ".");
    struct store *s;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(store_open(path, NULL, &s, err, sizeof(err)), 0);
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_EQUAL_FATAL(disp_load(s, t, NULL, err, sizeof(err)), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct disp_demo_options opt = {.seconds = 2.5, .cycle_ms = 20, .summary_ms = 500,
                                    .arrivals_per_s = 60, .seed = 7, .out = out,
                                    .scenario = scenario};
    struct disp_demo_stats st;
    CU_ASSERT_EQUAL(disp_demo_run(s, t, &opt, &st), 0);
    fclose(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "fleet from the hub: 2 Ready clusters, nvidia.com/gpu 40"));
    CU_ASSERT(st.admitted > 3);
    CU_ASSERT(gpus(t, "root", NULL, NULL) <= 40000);
    free(text);
    queue_tree_free(t);
    store_close(s);
}

static CU_TestInfo tests[] = {
    {"runs, records every decision, restarts", test_runs_and_restarts},
    {"the fleet from the simulated hub", test_fleet_from_the_hub},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/demo", tests)
