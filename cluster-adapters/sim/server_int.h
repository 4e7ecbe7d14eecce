/* What muster-sim's REST front (server.c) shares with its watch streams (server_watch.c): the
 * server's state and the response helpers both answer with. Private to the server. */
#ifndef MUSTER_SIM_SERVER_INT_H
#define MUSTER_SIM_SERVER_INT_H

#include "cluster-adapters/kube/httpserver.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/selector.h"
#include "cluster-adapters/sim/server.h"

#include <h2o.h>
#include <json-c/json.h>
#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>

struct conn {
    uv_tcp_t tcp; /* first: h2o's close callback hands us the handle */
    struct sim_server *srv;
    struct conn *prev, *next;
};

struct watch;
struct delayed;

struct sim_server {
    uv_loop_t *loop;
    struct sim_store *store;
    struct sim_server_config cfg;
    h2o_globalconf_t globalconf;
    h2o_context_t ctx;
    h2o_accept_ctx_t accept_ctx;
    SSL_CTX *ssl_ctx;
    uv_tcp_t listener;
    uv_timer_t tick;
    int port;
    int listener_open, tick_open, ctx_live;
    struct conn *conns;
    size_t nconns;
    struct watch *watches;
    struct delayed *delayed;
    int shutting_down;
    struct sim_validator *validator; /* --validate-writes, or NULL */
    void (*done)(void *data);
    void *done_data;
    unsigned rand_state;
    /* The last object a watch event carried, serialized: every watcher of a resource gets the
     * same event object, which is serialized once for all of them. A reference keeps the
     * object (and so its address) alive; stored objects never change. */
    json_object *event_obj;
    char *event_json;
    size_t event_len, event_cap;
};

struct handler {
    h2o_handler_t super;
    struct sim_server *srv;
};

/* obj as compact JSON (slashes unescaped, as Go writes them); *len its length. Owned by obj. */
const char *sim__to_json(json_object *obj, size_t *len);
/* Sends a Status (ownership taken) with its own code; NULL (out of memory) is a 500. */
void sim__respond_status(h2o_req_t *req, json_object *st);
/* The query parameter key, percent-decoded, into buf: 1 when present, 0 when absent,
 * MUSTER_ETOOBIG when it does not fit. */
int sim__query_param(h2o_req_t *req, const char *key, char *buf, size_t cap);
/* A query parameter that says true ("1", "true", "True"). */
int sim__query_bool(h2o_req_t *req, const char *key);
/* s as a whole decimal int64: 0, or MUSTER_EINVAL. */
int sim__parse_int64(const char *s, int64_t *out);
/* The client asks for a Table of r (kubectl get), or for PartialObjectMetadata (list: of a
 * list), by its Accept header. */
int sim__wants_table(h2o_req_t *req, const struct sim_resource *r);
int sim__wants_metadata(h2o_req_t *req, int list);
/* obj's PartialObjectMetadata (new). */
json_object *sim__partial_metadata(json_object *obj);

/* A watch of r (in ns, NULL: all) filtered by labels and fields (both taken), answered as a
 * chunked stream until its deadline, the client's leaving or the server's shutdown. */
void sim__serve_watch(struct sim_server *srv, h2o_req_t *req, const struct sim_resource *r,
                      const char *ns, struct sim_selector *labels, struct sim_selector *fields);
/* The client watch streams still sending. */
size_t sim__watch_streams(const struct sim_server *srv);
/* Each tick: ends the watches past their deadline and sends the bookmarks due. */
void sim__watch_tick(struct sim_server *srv, uint64_t now);
/* Ends every watch (shutdown). */
void sim__watch_end_all(struct sim_server *srv);

#endif
