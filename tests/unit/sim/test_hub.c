/* Tests for cluster-adapters/sim/hub.c: the whole hub on a caller's loop, as musterd --demo
 * embeds it, starts from a scenario, logs events, and closes with no live handle. */
#include "cluster-adapters/sim/hub.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/kube/errors.h"
#include "testing.h"

#include <string.h>

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static void on_timer(uv_timer_t *t)
{
    struct sim_hub *hub = t->data;
    sim_hub_shutdown(hub, NULL, NULL);
    uv_close((uv_handle_t *)t, NULL);
}

static void test_start_and_stop(void)
{
    char scenario[512], log[512];
    test_tmp_path(scenario, sizeof(scenario), "hub-scenario.yaml");
    test_tmp_path(log, sizeof(log), "hub-events.jsonl");
    remove(log);
    write_file(scenario, "clusters:\n"
                         "  - name: east\n"
                         "    nodes: [{count: 2, allocatable: {cpu: \"8\", memory: 32Gi}}]\n");
    uv_loop_t loop;
    CU_ASSERT_EQUAL_FATAL(uv_loop_init(&loop), 0);
    struct sim_hub_config cfg = {
        .server = {.host = "127.0.0.1"}, .scenario = scenario, .event_log = log};
    struct sim_hub *hub = NULL;
    char err[256] = "";
    int rc = sim_hub_start(&loop, &cfg, &hub, err, sizeof(err));
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT(sim_hub_port(hub) > 0);
    json_object *c = NULL;
    const struct sim_resource *cl =
        sim_resource_find("cluster.karmada.io", 18, "v1alpha1", 8, "clusters", 8);
    CU_ASSERT_EQUAL(sim_store_get(sim_hub_store(hub), cl, NULL, "east", &c, NULL), 0);
    json_object_put(c);
    const struct sim_resource *ns = sim_resource_find("", 0, "v1", 2, "namespaces", 10);
    CU_ASSERT_EQUAL(sim_store_get(sim_hub_store(hub), ns, NULL, "karmada-es-east", NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_store_get(sim_hub_store(hub), ns, NULL, "default", NULL, NULL), 0);

    uv_timer_t stop;
    uv_timer_init(&loop, &stop);
    stop.data = hub;
    uv_timer_start(&stop, on_timer, 50, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
    sim_hub_free(hub);

    /* The event log has the scenario's objects: the Cluster and its namespace. */
    FILE *f = fopen(log, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"type\":\"ADDED\",\"resourceVersion\":\"1005\",\"group\":"
                                       "\"cluster.karmada.io\",\"resource\":\"clusters\","
                                       "\"namespace\":\"\",\"name\":\"east\"}"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"name\":\"karmada-es-east\""));
    remove(log);
    remove(scenario);
}

static void test_bad_start(void)
{
    uv_loop_t loop;
    CU_ASSERT_EQUAL_FATAL(uv_loop_init(&loop), 0);
    struct sim_hub_config cfg = {.server = {.host = "127.0.0.1"},
                                 .scenario = "/nonexistent/scenario.yaml"};
    struct sim_hub *hub = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL(sim_hub_start(&loop, &cfg, &hub, err, sizeof(err)), MUSTER_EIO);
    CU_ASSERT_PTR_NULL(hub);
    CU_ASSERT_STRING_EQUAL(err, "/nonexistent/scenario.yaml: No such file or directory");
    cfg.scenario = NULL;
    cfg.server.host = "not-an-address";
    CU_ASSERT_EQUAL(sim_hub_start(&loop, &cfg, &hub, err, sizeof(err)), MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "--listen: not-an-address is not an IP address");
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
}

static CU_TestInfo tests[] = {
    {"start from a scenario, log, stop with no live handle", test_start_and_stop},
    {"start errors name the problem", test_bad_start},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/hub", tests)
