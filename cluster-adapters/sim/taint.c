/* Karmada's NoExecute taint manager (pkg/controllers/cluster/taint_manager.go). It runs only
 * with the Failover feature gate (cmd/controller-manager/app/controllermanager.go
 * startClusterController, off by default) and evicts only with --enable-no-execute-taint-eviction
 * (off by default). An RB listed on a Cluster with a NoExecute taint its applied placement's
 * clusterTolerations do not tolerate (or no longer: tolerationSeconds after the taint's
 * timeAdded) loses that cluster (ResourceBindingSpec.GracefulEvictCluster) and gains a graceful
 * eviction task. Neither the RB's suspension nor its schedulerName matters. */
#include "cluster-adapters/sim/taint.h"

#include "cluster-adapters/sim/karmada_int.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"

#include <stdio.h>
#include <string.h>

#define APPLIED_PLACEMENT "policy.karmada.io/applied-placement"
/* Tolerations used per RB whose tolerationSeconds are counted; beyond this many (a Cluster has
 * a handful of taints) they tolerate for ever. */
#define MAX_TIMED_TAINTS 64

/* needEvictionWithCurrentTime's answer. */
enum verdict {
    TOLERATED,   /* tolerated for ever, or no applied placement (an error in Karmada) */
    EVICT_NOW,   /* a NoExecute taint is not tolerated, or its tolerationSeconds ran out */
    EVICT_LATER, /* tolerated until some toleration's seconds run out */
};

static const struct sim_resource *bindings(void)
{
    return sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
}

int sim__taint_manager_on(const struct sim_karmada *k)
{
    return k->opts.failover && k->opts.taint_eviction;
}

static int is_no_execute(json_object *taint)
{
    const char *e = sim__get_str(taint, "effect", NULL, NULL);
    return e && strcmp(e, "NoExecute") == 0;
}

/* corev1 Toleration.ToleratesTaint (comparison operators off, as Karmada calls it). */
static int tolerates(json_object *tol, json_object *taint)
{
    const char *teffect = sim__get_str(tol, "effect", NULL, NULL);
    const char *effect = sim__get_str(taint, "effect", NULL, NULL);
    if (teffect && teffect[0] && (!effect || strcmp(teffect, effect) != 0))
        return 0;
    const char *tkey = sim__get_str(tol, "key", NULL, NULL);
    const char *key = sim__get_str(taint, "key", NULL, NULL);
    const char *op = sim__get_str(tol, "operator", NULL, NULL);
    int exists = op && strcmp(op, "Exists") == 0;
    if (tkey && tkey[0] && (!key || strcmp(tkey, key) != 0))
        return 0;
    if (!(tkey && tkey[0]) && !exists)
        return 0; /* an empty key only goes with Exists */
    if (exists)
        return 1;
    if (op && op[0] && strcmp(op, "Equal") != 0)
        return 0;
    const char *tval = sim__get_str(tol, "value", NULL, NULL);
    const char *val = sim__get_str(taint, "value", NULL, NULL);
    return strcmp(tval ? tval : "", val ? val : "") == 0;
}

/* GetMinTolerationTimeWithCurrentTime over the tolerations GetMatchingTolerations used (the
 * first tolerating one per taint): the earliest timeAdded + tolerationSeconds among the pairs
 * that tolerate; a taint without timeAdded, or a toleration without seconds, never runs out. */
static enum verdict timed(json_object *taints, json_object **used, size_t nused, time_t now)
{
    int any = 0;
    time_t first = 0;
    for (size_t i = 0; i < nused; i++) {
        json_object *secs = sim__get_path(used[i], "tolerationSeconds", NULL, NULL);
        if (!secs)
            continue;
        for (size_t j = 0; j < json_object_array_length(taints); j++) {
            json_object *t = json_object_array_get_idx(taints, j);
            time_t added = sim_parse_time(sim__get_str(t, "timeAdded", NULL, NULL));
            if (!is_no_execute(t) || added == (time_t)-1 || !tolerates(used[i], t))
                continue;
            time_t at = added + (time_t)json_object_get_int64(secs);
            if (!any || at < first)
                first = at;
            any = 1;
        }
    }
    if (!any)
        return TOLERATED;
    return first <= now ? EVICT_NOW : EVICT_LATER;
}

/* needEvictionWithCurrentTime: the verdict for rb on cluster (both as stored). */
static enum verdict needs_eviction(struct sim_karmada *k, json_object *cluster, json_object *rb)
{
    json_object *taints = sim__get_path(cluster, "spec", "taints", NULL);
    size_t n = json_object_is_type(taints, json_type_array) ? json_object_array_length(taints) : 0;
    int noexec = 0;
    for (size_t i = 0; i < n; i++)
        noexec |= is_no_execute(json_object_array_get_idx(taints, i));
    if (!noexec)
        return TOLERATED;
    const char *ap = sim__get_str(rb, "metadata", "annotations", APPLIED_PLACEMENT);
    json_object *placement = ap ? json_tokener_parse(ap) : NULL;
    if (!placement)
        return TOLERATED; /* "the applied placement for ResourceBining can not be empty" */
    json_object *tols = sim__get_path(placement, "clusterTolerations", NULL, NULL);
    size_t ntols = json_object_is_type(tols, json_type_array) ? json_object_array_length(tols) : 0;
    json_object *used[MAX_TIMED_TAINTS];
    size_t nused = 0;
    enum verdict v = TOLERATED;
    for (size_t i = 0; i < n && v == TOLERATED; i++) {
        json_object *t = json_object_array_get_idx(taints, i);
        if (!is_no_execute(t))
            continue;
        json_object *hit = NULL;
        for (size_t j = 0; j < ntols && !hit; j++)
            if (tolerates(json_object_array_get_idx(tols, j), t))
                hit = json_object_array_get_idx(tols, j);
        if (!hit)
            v = EVICT_NOW;
        else if (nused < sizeof(used) / sizeof(used[0]))
            used[nused++] = hit;
    }
    if (v == TOLERATED)
        v = timed(taints, used, nused, sim__clock_now(k));
    json_object_put(placement);
    return v;
}

/* getPurgeMode: the RB's spec.failover.cluster.purgeMode (empty: Gracefully) when it has a
 * cluster failover behaviour, else --no-execute-taint-eviction-purge-mode. */
static const char *purge_mode(struct sim_karmada *k, json_object *rb)
{
    json_object *fc = sim__get_path(rb, "spec", "failover", "cluster");
    if (fc) {
        const char *m = sim__get_str(fc, "purgeMode", NULL, NULL);
        return m && m[0] ? m : "Gracefully";
    }
    return k->opts.taint_purge_directly ? "Directly" : "Gracefully";
}

/* GracefulEvictCluster with the taint manager's options (purge mode, reason TaintUntolerated,
 * producer TaintManager), written with the RB read just before (tc.Update). The task has no
 * creationTimestamp: the graceful eviction controller stamps it (gracefuleviction.c). */
static void evict(struct sim_karmada *k, json_object *rb, const char *cluster)
{
    json_object *clusters = sim__get_path(rb, "spec", "clusters", NULL);
    json_object *kept = json_object_new_array(), *gone = NULL;
    for (size_t i = 0;
         json_object_is_type(clusters, json_type_array) && i < json_object_array_length(clusters);
         i++) {
        json_object *c = json_object_array_get_idx(clusters, i);
        const char *n = sim__get_str(c, "name", NULL, NULL);
        if (!gone && n && strcmp(n, cluster) == 0)
            gone = c;
        else
            json_object_array_add(kept, json_object_get(c));
    }
    if (!gone) {
        json_object_put(kept);
        return;
    }
    json_object *copy = sim__shallow_copy(rb);
    json_object *spec = sim__shallow_copy(sim__get_path(rb, "spec", NULL, NULL));
    if (json_object_array_length(kept))
        json_object_object_add(spec, "clusters", kept);
    else { /* the last one: Clusters is omitempty */
        json_object_put(kept);
        json_object_object_del(spec, "clusters");
    }
    json_object *old = sim__get_path(rb, "spec", "gracefulEvictionTasks", NULL);
    json_object *tasks = json_object_new_array();
    int listed = 0;
    for (size_t i = 0;
         json_object_is_type(old, json_type_array) && i < json_object_array_length(old); i++) {
        json_object *t = json_object_array_get_idx(old, i);
        const char *from = sim__get_str(t, "fromCluster", NULL, NULL);
        listed |= from && strcmp(from, cluster) == 0;
        json_object_array_add(tasks, json_object_get(t));
    }
    if (!listed) {
        json_object *task = json_object_new_object();
        json_object_object_add(task, "fromCluster", json_object_new_string(cluster));
        json_object_object_add(task, "purgeMode", json_object_new_string(purge_mode(k, rb)));
        json_object *r = sim__get_path(gone, "replicas", NULL, NULL);
        if (r && json_object_get_int64(r) > 0)
            json_object_object_add(task, "replicas", json_object_get(r));
        json_object_object_add(task, "reason", json_object_new_string("TaintUntolerated"));
        json_object_object_add(task, "producer", json_object_new_string("TaintManager"));
        json_object_array_add(tasks, task);
    }
    json_object_object_add(spec, "gracefulEvictionTasks", tasks);
    json_object_object_add(copy, "spec", spec);
    sim_store_update(k->store, bindings(), sim_meta_str(rb, "namespace"), sim_meta_str(rb, "name"),
                     copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL, NULL);
    json_object_put(copy);
}

void sim__taint_check_binding(struct sim_karmada *k, json_object *rb)
{
    if (!sim__taint_manager_on(k) || sim_meta_str(rb, "deletionTimestamp"))
        return;
    json_object *clusters = sim__get_path(rb, "spec", "clusters", NULL);
    const struct sim_resource *cr = sim__res_of("cluster.karmada.io", "v1alpha1", "clusters");
    for (size_t i = 0;
         json_object_is_type(clusters, json_type_array) && i < json_object_array_length(clusters);
         i++) {
        const char *name = sim__get_str(json_object_array_get_idx(clusters, i), "name", NULL, NULL);
        json_object *cluster = NULL;
        if (!name || sim_store_get(k->store, cr, NULL, name, &cluster, NULL) < 0)
            continue;
        enum verdict v = needs_eviction(k, cluster, rb);
        json_object_put(cluster);
        if (v == EVICT_NOW) {
            /* One cluster per write, as Karmada's worker does; the RB's update event brings the
             * next. */
            evict(k, rb, name);
            return;
        }
    }
}

/* syncCluster for the Cluster cluster (as stored): every RB listing it in spec.clusters
 * (the ResourceBindingIndexByFieldCluster index), checked against the latest Cluster and RB. */
static void sync_cluster(struct sim_karmada *k, json_object *cluster)
{
    const char *name = sim_meta_str(cluster, "name");
    json_object *list = NULL;
    if (!name || sim_store_list(k->store, bindings(), NULL, NULL, &list, NULL) < 0)
        return;
    json_object *items = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *rb = json_object_array_get_idx(items, i);
        if (!sim__cluster_listed(sim__get_path(rb, "spec", "clusters", NULL), name))
            continue;
        json_object *cur = NULL;
        if (sim_store_get(k->store, bindings(), sim_meta_str(rb, "namespace"),
                          sim_meta_str(rb, "name"), &cur, NULL) < 0)
            continue;
        /* syncBindingEviction: skipped when deleting or no longer scheduled there */
        if (!sim_meta_str(cur, "deletionTimestamp") &&
            sim__cluster_listed(sim__get_path(cur, "spec", "clusters", NULL), name) &&
            needs_eviction(k, cluster, cur) == EVICT_NOW)
            evict(k, cur, name);
        json_object_put(cur);
    }
    json_object_put(list);
}

static int has_no_execute(json_object *cluster)
{
    json_object *taints = sim__get_path(cluster, "spec", "taints", NULL);
    for (size_t i = 0;
         json_object_is_type(taints, json_type_array) && i < json_object_array_length(taints); i++)
        if (is_no_execute(json_object_array_get_idx(taints, i)))
            return 1;
    return 0;
}

void sim__taint_cluster_changed(struct sim_karmada *k, const struct sim_event *ev)
{
    if (!sim__taint_manager_on(k) || ev->type == SIM_EVENT_DELETED)
        return;
    if (ev->prev && json_object_equal(sim__get_path(ev->obj, "spec", "taints", NULL),
                                      sim__get_path(ev->prev, "spec", "taints", NULL)))
        return;
    if (!has_no_execute(ev->obj))
        return;
    json_object *cur = NULL;
    if (sim_store_get(k->store, sim__res_of("cluster.karmada.io", "v1alpha1", "clusters"), NULL,
                      sim_meta_str(ev->obj, "name"), &cur, NULL) < 0)
        return;
    sync_cluster(k, cur);
    json_object_put(cur);
}

void sim__taint_tick(struct sim_karmada *k)
{
    if (!sim__taint_manager_on(k))
        return;
    const struct sim_resource *cr = sim__res_of("cluster.karmada.io", "v1alpha1", "clusters");
    for (size_t i = 0; i < k->nclusters; i++) {
        json_object *cur = NULL;
        if (sim_store_get(k->store, cr, NULL, k->clusters[i].name, &cur, NULL) < 0)
            continue;
        if (has_no_execute(cur))
            sync_cluster(k, cur);
        json_object_put(cur);
    }
}
