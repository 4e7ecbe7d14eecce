/* The karmada-apiserver's mutating admission webhooks, called for creates the simulated
 * controllers make (today: the detector's ResourceBindings). Hub-owned: needs the loop. */
#ifndef MUSTER_SIM_WEBHOOK_CALL_H
#define MUSTER_SIM_WEBHOOK_CALL_H

#include <json-c/json.h>
#include <uv.h>

struct sim_resource;
struct sim_store;
struct sim_webhooks;

/* rc 0: obj (borrowed, valid during the call) is the object as the webhooks patched it, to be
 * stored. rc < 0: the create is refused; message is the apiserver's (a denial, or a failed call
 * under failurePolicy Fail). */
typedef void (*sim_webhooks_done_cb)(void *data, int rc, json_object *obj, const char *message);

/* A caller of the webhooks registered in store, on loop. Returns 0 or MUSTER_ENOMEM. */
int sim_webhooks_new(uv_loop_t *loop, struct sim_store *store, struct sim_webhooks **out);

/* Admits the CREATE of obj (borrowed; copied) of resource r in ns. Returns 1 when no webhook of
 * any MutatingWebhookConfiguration matches (done never runs: create it now), 0 when the calls
 * started (done runs once, later, from the loop), or MUSTER_ENOMEM (done never runs). */
int sim_webhooks_admit_create(struct sim_webhooks *w, const struct sim_resource *r, const char *ns,
                              json_object *obj, sim_webhooks_done_cb done, void *data);

/* Cancels every call (each done runs with MUSTER_ECANCELED once its client has closed, from
 * the loop) and refuses new ones. */
void sim_webhooks_shutdown(struct sim_webhooks *w);

/* Frees w; run the loop after sim_webhooks_shutdown first. NULL is a no-op. */
void sim_webhooks_free(struct sim_webhooks *w);

#endif
