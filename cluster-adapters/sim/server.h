/* The simulated hub's HTTP front: the Kubernetes REST protocol (discovery, CRUD, patch, status,
 * list and watch) over h2o on a caller-owned libuv loop, backed by a sim_store. */
#ifndef MUSTER_SIM_SERVER_H
#define MUSTER_SIM_SERVER_H

#include "cluster-adapters/sim/resources.h"

#include <stddef.h>
#include <json-c/json.h>
#include <uv.h>

struct sim_store;
struct sim_server;

/* Every field has a usable zero value except host. */
struct sim_server_config {
    const char *host;        /* IPv4 or IPv6 literal to listen on */
    int port;                /* 0: any free port (see sim_server_port) */
    size_t max_body;         /* request body cap in bytes; 0: 3 MiB like kube-apiserver */
    size_t max_watch_buffer; /* bytes queued for one slow watcher before it is cut; 0: 16 MiB */
    unsigned bookmark_interval_ms;  /* 0: 60 s */
    unsigned watch_timeout_s;       /* default watch length without timeoutSeconds; 0: 1800 s */
    double fault_error_rate;        /* 0..1: share of API requests answered 500 or 429 */
    unsigned fault_latency_ms;      /* added to every API response */
    long fault_drop_watch_after;    /* > 0: end each watch after this many events */
    const char *token;              /* non-NULL: required bearer token */
    const char *tls_cert, *tls_key; /* PEM files: serve HTTPS (HTTP/2 by ALPN, or 1.1) */
    const char *client_ca;          /* PEM CA bundle: require client certificates it signed */
    const char *access_log;         /* append one line per request (Apache combined), or NULL */
    unsigned seed;                  /* fault-injection randomness */
    const char *validate_dir;       /* CRD folder: validate client writes (validate.h), or NULL */
    /* Resources left out as if their CRD were not installed: absent from discovery and
     * OpenAPI, and 404 like any unknown path (--no-podgroup-crd). 0: serve every one. */
    sim_api_set hidden;
    /* PUT /debug/sim/clusters/NAME/ready {"ready": true|false|"Unknown"} calls this with an
     * enum sim_cluster_health (karmada.h) (NULL: 404). Returns 0 or MUSTER_ENOENT for an
     * unknown cluster. */
    int (*set_cluster_ready)(void *data, const char *cluster, int health);
    /* PUT /debug/sim/clusters/NAME/workstatus {"paused": bool}: 0, or < 0 for no such cluster */
    int (*pause_work_status)(void *data, const char *cluster, int paused);
    /* GET /debug/sim/clusters/NAME/objects calls this (NULL: 404): *out gets a new JSON array
     * of the member's objects. Returns 0 or MUSTER_ENOENT for an unknown cluster. */
    int (*cluster_objects)(void *data, const char *cluster, json_object **out);
    void *hook_data;
};

/* Starts listening on loop. The store is borrowed and must outlive the server. Returns 0, or a
 * negative MUSTER_* code (MUSTER_EIO when the address cannot be bound; a message is written to
 * err). */
int sim_server_new(uv_loop_t *loop, const struct sim_server_config *cfg, struct sim_store *store,
                   struct sim_server **out, char *err, size_t errcap);

/* The port actually bound. */
int sim_server_port(const struct sim_server *srv);

/* Begins an orderly stop: stops accepting, ends every watch, closes every connection, then
 * releases h2o's context. done(data) runs once every handle of the server is closed; the loop
 * may still have h2o's own closing handles, so run it until it returns before uv_loop_close. */
void sim_server_shutdown(struct sim_server *srv, void (*done)(void *data), void *data);

/* Frees a server that was shut down (or never started serving). NULL is a no-op. */
void sim_server_free(struct sim_server *srv);

#endif
