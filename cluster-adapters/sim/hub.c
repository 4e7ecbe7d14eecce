/* The simulated hub assembled from its parts (see hub.h). */
#include "cluster-adapters/sim/hub.h"

#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/scenario.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/sim/webhook_call.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* kube-apiserver's watch cache grows each resource's history up to 100 * 1024 events (enough
 * for its 75 s of freshness; k8s.io/apiserver/pkg/storage/cacher/watch_cache.go,
 * defaultUpperBoundCapacity). The simulator's ring is one for all resources, so it is still the
 * stricter of the two. */
#define SIM_DEFAULT_HISTORY 102400

struct sim_hub {
    struct sim_store *store;
    struct sim_karmada *karmada;
    struct sim_server *server;
    FILE *log;
    int log_objects;
    struct sim_store_watch *log_watch;
    uv_timer_t tick;               /* advances scripted workload durations */
    uv_timer_t flush;              /* armed when a cluster needs recomputing; batches bursts */
    struct sim_webhooks *webhooks; /* the apiserver's calls to admission webhooks */
    uv_timer_t oplag; /* armed while OverridePolicy events wait out the informer's lag */
    int tick_live;
};

/* The namespaces every cluster has, so clients can create objects at once. */
static int seed_namespaces(struct sim_store *store)
{
    static const char *const names[] = {"default", "kube-system", "kube-public", "karmada-system"};
    const struct sim_resource *ns = sim_resource_find("", 0, "v1", 2, "namespaces", 10);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        json_object *o = json_object_new_object();
        json_object *m = json_object_new_object();
        json_object_object_add(m, "name", json_object_new_string(names[i]));
        json_object_object_add(o, "metadata", m);
        json_object_object_add(o, "status", json_tokener_parse("{\"phase\":\"Active\"}"));
        int rc = sim_store_create(store, ns, NULL, o, time(NULL), SIM_WRITE_INTERNAL, NULL, NULL);
        json_object_put(o);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void log_event(void *data, const struct sim_event *ev)
{
    static const char *const names[] = {"ADDED", "MODIFIED", "DELETED"};
    const char *ns = sim_meta_str(ev->obj, "namespace");
    struct sim_hub *hub = data;
    FILE *f = hub->log;
    fprintf(f,
            "{\"type\":\"%s\",\"resourceVersion\":\"%lld\",\"group\":\"%s\",\"resource\":\"%s\","
            "\"namespace\":\"%s\",\"name\":\"%s\"",
            names[ev->type], (long long)ev->rv, ev->res->group, ev->res->plural, ns ? ns : "",
            sim_meta_str(ev->obj, "name"));
    if (hub->log_objects)
        fprintf(f, ",\"object\":%s",
                json_object_to_json_string_ext(ev->obj, JSON_C_TO_STRING_PLAIN));
    fputs("}\n", f);
    /* Readers check the file while the hub runs. */
    fflush(f);
}

static void on_tick(uv_timer_t *t)
{
    struct sim_hub *hub = t->data;
    sim_karmada_tick(hub->karmada);
}

/* Recomputing a member costs a pass over its Works; doing it at most every few milliseconds
 * turns a burst of dispatches into one pass, while clients still see status within one
 * period (Karmada itself reports cluster status every 10 s). */
#define SIM_FLUSH_MS 10

static void on_flush(uv_timer_t *t)
{
    struct sim_hub *hub = t->data;
    sim_karmada_flush(hub->karmada);
}

static void on_dirty(void *data)
{
    struct sim_hub *hub = data;
    if (hub->tick_live && !uv_is_active((uv_handle_t *)&hub->flush))
        uv_timer_start(&hub->flush, on_flush, SIM_FLUSH_MS, 0);
}

static void on_oplag(uv_timer_t *t)
{
    struct sim_hub *hub = t->data;
    int64_t next = sim_karmada_override_sync(hub->karmada);
    if (next >= 0 && hub->tick_live)
        uv_timer_start(&hub->oplag, on_oplag, (uint64_t)next, 0);
}

static void on_override_due(void *data, int64_t delay_ms)
{
    struct sim_hub *hub = data;
    if (hub->tick_live && !uv_is_active((uv_handle_t *)&hub->oplag))
        uv_timer_start(&hub->oplag, on_oplag, (uint64_t)(delay_ms > 0 ? delay_ms : 0), 0);
}

static int admit_binding(void *data, const char *ns, json_object *obj, sim_karmada_admitted_cb done,
                         void *done_data)
{
    struct sim_hub *hub = data;
    return sim_webhooks_admit_create(
        hub->webhooks,
        sim_resource_find("work.karmada.io", 15, "v1alpha2", 8, "resourcebindings", 16), ns, obj,
        done, done_data);
}

static int set_cluster_ready(void *data, const char *cluster, int ready)
{
    struct sim_hub *hub = data;
    return sim_karmada_set_ready(hub->karmada, cluster, ready);
}

static int pause_work_status(void *data, const char *cluster, int paused)
{
    struct sim_hub *hub = data;
    return sim_karmada_pause_work_status(hub->karmada, cluster, paused);
}

static int cluster_objects(void *data, const char *cluster, json_object **out)
{
    struct sim_hub *hub = data;
    return sim_karmada_member_objects(hub->karmada, cluster, out);
}

/* The Workload API versions the karmada-apiserver does not serve, from the scenario's
 * `hubWorkloadAPI`: v1beta1 (the default: Kubernetes 1.37, which removed v1alpha2), v1alpha2
 * (1.36) or false (the GenericWorkload gate off). Each version's objects are kept apart (no
 * conversion), so a hub serves one, as a real one does. */
static int hub_wl_hidden(json_object *scn, sim_api_set *hidden, char *err, size_t errcap)
{
    json_object *v = NULL;
    if (scn)
        json_object_object_get_ex(scn, "hubWorkloadAPI", &v);
    const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    const char *keep = !v                                                       ? "v1beta1"
                       : s && (!strcmp(s, "v1beta1") || !strcmp(s, "v1alpha2")) ? s
                                                                                : NULL;
    if (v && !keep && !(json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v))) {
        snprintf(err, errcap, "scenario: hubWorkloadAPI: v1beta1, v1alpha2 or false");
        return MUSTER_EINVAL;
    }
    static const char *const versions[] = {"v1beta1", "v1alpha2"};
    for (size_t i = 0; i < 2; i++)
        if (!keep || strcmp(keep, versions[i]) != 0)
            *hidden |= ~sim_api_without(SIM_API_ALL, "scheduling.k8s.io", versions[i], NULL);
    return 0;
}

/* The scenario's `hubCoscheduling: false`: the karmada-apiserver lacks scheduler-plugins'
 * PodGroup CRD (scheduling.x-k8s.io/v1alpha1), as a hub whose operator installed it only in the
 * members. Default: served. */
static int hub_cosched_hidden(json_object *scn, sim_api_set *hidden, char *err, size_t errcap)
{
    json_object *v = NULL;
    if (scn)
        json_object_object_get_ex(scn, "hubCoscheduling", &v);
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_boolean)) {
        snprintf(err, errcap, "scenario: hubCoscheduling: true or false");
        return MUSTER_EINVAL;
    }
    if (!json_object_get_boolean(v))
        *hidden |= ~sim_api_without(SIM_API_ALL, "scheduling.x-k8s.io", "v1alpha1", "podgroups");
    return 0;
}

int sim_hub_start(uv_loop_t *loop, const struct sim_hub_config *cfg, struct sim_hub **out,
                  char *err, size_t errcap)
{
    err[0] = '\0';
    struct sim_hub *hub = muster_calloc(1, sizeof(*hub));
    if (!hub)
        return MUSTER_ENOMEM;
    int rc = sim_store_new(cfg->history ? cfg->history : SIM_DEFAULT_HISTORY, &hub->store);
    if (rc == 0)
        rc = seed_namespaces(hub->store);
    if (rc == 0 && cfg->event_log) {
        /* Opened before the scenario loads so its objects are logged too. */
        hub->log = fopen(cfg->event_log, "a");
        if (!hub->log) {
            snprintf(err, errcap, "--event-log %s: %s", cfg->event_log, strerror(errno));
            rc = MUSTER_EIO;
        } else {
            hub->log_objects = cfg->event_log_objects;
            rc = sim_store_watch(hub->store, sim_store_rv(hub->store), log_event, hub,
                                 &hub->log_watch, NULL);
        }
    }
    json_object *scn = NULL;
    if (rc == 0 && cfg->scenario)
        rc = sim_scenario_load(cfg->scenario, &scn, err, errcap);
    if (rc == 0)
        rc = sim_karmada_new(hub->store, scn, NULL, &hub->karmada, err, errcap);
    if (rc == 0)
        sim_karmada_set_options(hub->karmada, &cfg->karmada);
    sim_api_set wl_hidden = 0;
    if (rc == 0)
        rc = hub_wl_hidden(scn, &wl_hidden, err, errcap);
    if (rc == 0)
        rc = hub_cosched_hidden(scn, &wl_hidden, err, errcap);
    json_object_put(scn);
    if (rc < 0) {
        sim_hub_free(hub);
        return rc;
    }
    struct sim_server_config scfg = cfg->server;
    scfg.hidden |= wl_hidden;
    if (cfg->karmada.no_podgroup_crd)
        scfg.hidden |=
            ~sim_api_without(SIM_API_ALL, "scheduling.volcano.sh", "v1beta1", "podgroups");
    sim_karmada_set_hub_hidden(hub->karmada, scfg.hidden);
    scfg.set_cluster_ready = set_cluster_ready;
    scfg.cluster_objects = cluster_objects;
    scfg.pause_work_status = pause_work_status;
    scfg.hook_data = hub;
    rc = sim_server_new(loop, &scfg, hub->store, &hub->server, err, errcap);
    if (rc < 0 && !hub->server) {
        sim_hub_free(hub);
        return rc;
    }
    if (rc == 0) {
        uv_timer_init(loop, &hub->tick);
        hub->tick.data = hub;
        hub->tick_live = 1;
        uv_timer_start(&hub->tick, on_tick, 1000, 1000);
        uv_timer_init(loop, &hub->flush);
        hub->flush.data = hub;
        sim_karmada_defer(hub->karmada, on_dirty, hub);
        uv_timer_init(loop, &hub->oplag);
        hub->oplag.data = hub;
        sim_karmada_on_override_due(hub->karmada, on_override_due, hub);
        if (sim_webhooks_new(loop, hub->store, &hub->webhooks) == 0)
            sim_karmada_set_binding_admission(hub->karmada, admit_binding, hub);
    }
    *out = hub;
    return rc;
}

int sim_hub_port(const struct sim_hub *hub)
{
    return sim_server_port(hub->server);
}

struct sim_store *sim_hub_store(struct sim_hub *hub)
{
    return hub->store;
}

struct sim_karmada *sim_hub_karmada(struct sim_hub *hub)
{
    return hub->karmada;
}

void sim_hub_shutdown(struct sim_hub *hub, void (*done)(void *data), void *data)
{
    if (hub->tick_live) {
        /* Closes within this loop turn, well before the server's connections are gone. */
        uv_timer_stop(&hub->tick);
        uv_close((uv_handle_t *)&hub->tick, NULL);
        uv_timer_stop(&hub->flush);
        uv_close((uv_handle_t *)&hub->flush, NULL);
        uv_timer_stop(&hub->oplag);
        uv_close((uv_handle_t *)&hub->oplag, NULL);
        hub->tick_live = 0;
    }
    sim_webhooks_shutdown(hub->webhooks);
    sim_server_shutdown(hub->server, done, data);
}

void sim_hub_free(struct sim_hub *hub)
{
    if (!hub)
        return;
    sim_server_free(hub->server);
    sim_webhooks_free(hub->webhooks);
    sim_karmada_free(hub->karmada);
    if (hub->store)
        sim_store_unwatch(hub->store, hub->log_watch);
    sim_store_free(hub->store);
    if (hub->log)
        fclose(hub->log);
    muster_free(hub);
}
