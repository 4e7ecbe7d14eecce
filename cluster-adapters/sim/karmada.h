/* Karmada's control plane as the simulated hub needs it: member clusters built from a scenario
 * with their Cluster status and the objects Karmada applied to them, the detector, the binding,
 * execution, work-status, RB-status and taint controllers, the override manager and the Work
 * webhook (docs/sim.md, "Fidelity to Karmada", cites Karmada's code for each). It runs as a store
 * watcher, so it reacts to changes made through the REST API and to its own writes alike. */
#ifndef MUSTER_SIM_KARMADA_H
#define MUSTER_SIM_KARMADA_H

#include "cluster-adapters/sim/resources.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct sim_store;
struct sim_karmada;

/* Builds the clusters of scenario (borrowed; NULL: no clusters) into store, creates the
 * scenario's `objects`, and starts the controllers. now() supplies timestamps (NULL: time()).
 * Returns 0, MUSTER_EINVAL with err naming the scenario path that is wrong, or MUSTER_ENOMEM. */
int sim_karmada_new(struct sim_store *store, json_object *scenario, time_t (*now)(void),
                    struct sim_karmada **out, char *err, size_t errcap);

/* Karmada's switches the simulated hub can turn (each off by default, as in Karmada). */
struct sim_karmada_options {
    /* --feature-gates MultiplePodTemplatesScheduling=true: the detector interprets components
     * (pkg/features/features.go, default false). */
    int multiple_pod_templates;
    /* The Failover feature gate (pkg/features/features.go, default false): without it
     * karmada-controller-manager does not start the taint manager at all. */
    int failover;
    /* karmada-controller-manager --enable-no-execute-taint-eviction (default false): with
     * Failover, NoExecute taints on a Cluster evict the RBs that do not tolerate them. */
    int taint_eviction;
    /* --no-execute-taint-eviction-purge-mode Directly (default Gracefully): the purge mode of
     * the taint manager's eviction tasks when the RB's spec.failover.cluster does not say. */
    int taint_purge_directly;
    /* --graceful-eviction-timeout in seconds (0: Karmada's default, 10 minutes): the graceful
     * eviction controller drops a task that old. */
    int64_t graceful_eviction_timeout_s;
    /* --no-podgroup-crd: the karmada-apiserver lacks Volcano's PodGroup CRD, so the execution
     * controller's RESTMapper cannot map a PodGroup manifest (the server hides the resource). */
    int no_podgroup_crd;
    /* The OverridePolicy informer's lag behind the store, in milliseconds (0: none). Renders
     * read the policies as they were that long ago. */
    int64_t override_lag_ms;
    /* The clock of that lag, in milliseconds (NULL: CLOCK_MONOTONIC). Tests pass their own. */
    int64_t (*now_ms)(void);
};

/* Delivers the OverridePolicy events whose lag is over (their renders happen now). Returns the
 * milliseconds until the next one is due, or -1 when none waits. */
int64_t sim_karmada_override_sync(struct sim_karmada *k);

/* cb(data, delay_ms) is called when an OverridePolicy event starts waiting in an empty queue:
 * the caller calls sim_karmada_override_sync after delay_ms (and again while it returns >= 0). */
void sim_karmada_on_override_due(struct sim_karmada *k, void (*cb)(void *data, int64_t delay_ms),
                                 void *data);

/* Applies opts (copied). Call it right after sim_karmada_new. */
void sim_karmada_set_options(struct sim_karmada *k, const struct sim_karmada_options *opts);

/* The resources the karmada-apiserver does not serve (sim_server_config.hidden): the execution
 * controller maps a Work's manifest kind with the hub's RESTMapper before anything else, so a
 * manifest of such a kind is never applied (execution.c). */
void sim_karmada_set_hub_hidden(struct sim_karmada *k, sim_api_set hidden);

/* The karmada-apiserver's admission of a ResourceBinding create: fn starts admitting obj
 * (borrowed) in ns and returns 0, after which done(done_data, rc, obj, message) runs once
 * (rc 0: store obj as patched; rc < 0: refused with message); or returns 1 when no webhook is
 * registered for it (done never runs). */
typedef void (*sim_karmada_admitted_cb)(void *done_data, int rc, json_object *obj,
                                        const char *message);
typedef int (*sim_karmada_admit_fn)(void *data, const char *ns, json_object *obj,
                                    sim_karmada_admitted_cb done, void *done_data);

/* Routes the detector's RB creates through fn (NULL: create at once, with the
 * spec.suspension.scheduling: true that muster's webhook would add, as the sim always did). */
void sim_karmada_set_binding_admission(struct sim_karmada *k, sim_karmada_admit_fn fn, void *data);

/* Stops the controllers and frees k (the objects stay in the store). NULL is a no-op. */
void sim_karmada_free(struct sim_karmada *k);

/* A member cluster's health as the hub sees it (sim_karmada_set_ready). */
enum sim_cluster_health {
    /* The member stops answering: the cluster status controller reports Ready False,
     * ClusterNotReachable (generateReadyCondition). */
    SIM_CLUSTER_UNREACHABLE = 0,
    SIM_CLUSTER_READY = 1,
    /* Nothing posts the cluster's status any more (a Pull cluster's agent is gone): the cluster
     * controller's health monitor sets Ready Unknown, ClusterStatusUnknown, and the rest of
     * the status stays as last posted. */
    SIM_CLUSTER_UNKNOWN = 2,
};

/* Fault injection: sets cluster's health (enum sim_cluster_health; 0 and 1 read as NotReady
 * and Ready). Anything but Ready runs nothing and applies nothing until Ready again. Returns 0
 * or MUSTER_ENOENT. */
int sim_karmada_set_ready(struct sim_karmada *k, const char *cluster, int health);

/* Fault injection: while paused, the work status controller reflects nothing from cluster's
 * objects into their Works' status (its informer lags: the member runs on, and the cluster
 * status controller still posts the Cluster's status, resourceSummary included); resumed, each
 * object's status is reflected as it is then. Returns 0 or MUSTER_ENOENT. */
int sim_karmada_pause_work_status(struct sim_karmada *k, const char *cluster, int paused);

/* The objects of member cluster name (what the execution controller applied there from its
 * Works, and what stayed behind), each with the status the member reports, as a new JSON array
 * in *out. Returns 0, MUSTER_ENOENT for an unknown cluster, or MUSTER_ENOMEM. */
int sim_karmada_member_objects(struct sim_karmada *k, const char *name, json_object **out);

/* Advances simulated time: shares whose scripted duration (the workload annotation
 * sim.muster.io/duration: "90s", "5m", "2h") is over finish and free their nodes. Call it
 * periodically (the hub does, every second). */
void sim_karmada_tick(struct sim_karmada *k);

/* Deferred mode: Work changes mark their cluster instead of recomputing it at once, and
 * sim_karmada_flush recomputes each marked cluster once. on_dirty(data) is called when a clean
 * cluster is first marked, so the caller can schedule a flush: the hub batches a burst of
 * dispatches into one placement pass per cluster. Without this call (tests), every change is
 * reflected before the write that caused it returns. */
void sim_karmada_defer(struct sim_karmada *k, void (*on_dirty)(void *data), void *data);

/* Recomputes the clusters marked since the last flush; returns how many. */
int sim_karmada_flush(struct sim_karmada *k);

/* The per-replica resource requests of a pod spec (sum of containers, raised to any larger
 * init container) as a ResourceList; a single container's list is copied verbatim, as
 * Karmada's interpreters do. Caller owns the result. */
json_object *sim_karmada_pod_requests(json_object *pod_spec);

/* What a member cluster's pods of pod_spec request once admitted: as above, with a resource a
 * container only limits counted at its limit (the API server defaults a missing request to the
 * limit; Karmada's replicaRequirements, read from the template, do not see it). */
json_object *sim_karmada_pod_effective_requests(json_object *pod_spec);

/* Karmada's built-in Volcano Job interpreter: one component per task (name or "task-<i>",
 * replicas = minAvailable or 1, replicaRequirements.resourceRequest). Caller owns the array. */
json_object *sim_karmada_vcjob_components(json_object *job);

#endif
