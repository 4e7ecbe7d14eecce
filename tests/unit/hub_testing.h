/* Shared by the unit tests that run muster-sim's hub in-process on their loop and talk to it
 * over a real socket (test_controller.c, test_demo.c, test_leader.c). Include after testing.h. */
#ifndef MUSTER_TESTS_HUB_TESTING_H
#define MUSTER_TESTS_HUB_TESTING_H

#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/hub.h"

#include <stdio.h>
#include <string.h>

/* Starts the hub of hc on loop into *hub (fatal on failure, its error on stderr). */
static inline void test_hub_start(uv_loop_t *loop, const struct sim_hub_config *hc,
                                  struct sim_hub **hub)
{
    char err[512] = "";
    int rc = sim_hub_start(loop, hc, hub, err, sizeof err);
    if (rc)
        fprintf(stderr, "hub: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* cfg: a kubeconfig for hub's plain-HTTP port, parsed as `name` (fatal on failure). */
static inline void test_hub_kubeconfig(struct sim_hub *hub, const char *name,
                                       struct kube_config *cfg)
{
    char kc[512], err[512];
    snprintf(kc, sizeof kc,
             "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
             "clusters: [{name: sim, cluster: {server: \"http://127.0.0.1:%d\"}}]\n"
             "users: [{name: sim, user: {}}]\n"
             "contexts: [{name: sim, context: {cluster: sim, user: sim}}]\n",
             sim_hub_port(hub));
    CU_ASSERT_EQUAL_FATAL(kube_config_parse(cfg, kc, strlen(kc), name, NULL, err, sizeof err), 0);
}

#endif
