/* The whole simulated hub in one object: store, Karmada controllers, REST server and event log
 * on a caller's libuv loop. muster-sim's main is a thin shell around it, and musterd --demo
 * embeds it the same way. */
#ifndef MUSTER_SIM_HUB_H
#define MUSTER_SIM_HUB_H

#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/sim/server.h"

#include <stddef.h>
#include <uv.h>

struct sim_hub;
struct sim_store;
struct sim_karmada;

struct sim_hub_config {
    struct sim_server_config server;    /* host, port, faults, TLS, token (see server.h) */
    size_t history;                     /* watch history in events; 0: 102400 */
    const char *scenario;               /* scenario YAML path, or NULL */
    const char *event_log;              /* append every change as a JSON line here, or NULL */
    int event_log_objects;              /* and the object after the change, as "object" */
    struct sim_karmada_options karmada; /* feature gates, taint eviction, override cache lag */
};

/* Builds the store (with the default, kube-system, kube-public and karmada-system namespaces),
 * loads the scenario, starts the controllers and the server on loop. Returns 0 or a negative
 * MUSTER_* code with err saying what failed (a scenario error names the file and place). On
 * failure *out may still be set: shut it down and free it like a running hub. The process
 * must ignore SIGPIPE: h2o writes to sockets whose peers may already be gone. */
int sim_hub_start(uv_loop_t *loop, const struct sim_hub_config *cfg, struct sim_hub **out,
                  char *err, size_t errcap);

/* The bound port, the store and the controllers (for in-process tests and --demo). */
int sim_hub_port(const struct sim_hub *hub);
struct sim_store *sim_hub_store(struct sim_hub *hub);
struct sim_karmada *sim_hub_karmada(struct sim_hub *hub);

/* Stops serving (see sim_server_shutdown); done(data) runs when the hub's handles are closed.
 * Run the loop until it returns, then sim_hub_free. */
void sim_hub_shutdown(struct sim_hub *hub, void (*done)(void *data), void *data);

/* Frees everything; NULL is a no-op. */
void sim_hub_free(struct sim_hub *hub);

#endif
