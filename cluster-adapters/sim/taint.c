/* Karmada's NoExecute taint manager (pkg/controllers/cluster/taint_manager.go), on with
 * karmada-controller-manager's --enable-no-execute-taint-eviction: an RB scheduled to a Cluster
 * with a NoExecute taint its applied placement does not tolerate loses that cluster
 * (ResourceBindingSpec.GracefulEvictCluster) and gains a graceful eviction task. */
#include "cluster-adapters/sim/taint.h"

#include "cluster-adapters/sim/karmada_int.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"

#include <stdio.h>
#include <string.h>

#define APPLIED_PLACEMENT "policy.karmada.io/applied-placement"

static const struct sim_resource *bindings(void)
{
    return sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
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

/* needEvictionWithCurrentTime: 1 when some NoExecute taint of cluster is not tolerated by the
 * applied placement's clusterTolerations. A toleration with tolerationSeconds counts as
 * tolerating (the timed eviction is not simulated). No applied placement: an error in Karmada,
 * no eviction. */
static int needs_eviction(json_object *cluster, json_object *rb)
{
    const char *ap = sim__get_str(rb, "metadata", "annotations", APPLIED_PLACEMENT);
    if (!ap)
        return 0;
    json_object *placement = json_tokener_parse(ap);
    if (!placement)
        return 0;
    json_object *tols = sim__get_path(placement, "clusterTolerations", NULL, NULL);
    json_object *taints = sim__get_path(cluster, "spec", "taints", NULL);
    int evict = 0;
    for (size_t i = 0; !evict && json_object_is_type(taints, json_type_array) &&
                       i < json_object_array_length(taints);
         i++) {
        json_object *t = json_object_array_get_idx(taints, i);
        const char *effect = sim__get_str(t, "effect", NULL, NULL);
        if (!effect || strcmp(effect, "NoExecute") != 0)
            continue;
        int ok = 0;
        for (size_t j = 0; !ok && json_object_is_type(tols, json_type_array) &&
                           j < json_object_array_length(tols);
             j++)
            ok = tolerates(json_object_array_get_idx(tols, j), t);
        evict = !ok;
    }
    json_object_put(placement);
    return evict;
}

/* GracefulEvictCluster with the taint manager's options (purge mode Gracefully, its default,
 * reason TaintUntolerated, producer TaintManager), written with the RB read just before.
 * The graceful eviction controller stamps a new task's creationTimestamp (evictiontask.go);
 * the sim does it here. */
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
    json_object_object_add(spec, "clusters", kept);
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
        json_object_object_add(task, "purgeMode", json_object_new_string("Gracefully"));
        json_object *r = sim__get_path(gone, "replicas", NULL, NULL);
        if (r && json_object_get_int64(r) > 0)
            json_object_object_add(task, "replicas", json_object_get(r));
        json_object_object_add(task, "reason", json_object_new_string("TaintUntolerated"));
        json_object_object_add(task, "producer", json_object_new_string("TaintManager"));
        char ts[32];
        sim_format_time(sim__clock_now(k), ts, sizeof(ts));
        json_object_object_add(task, "creationTimestamp", json_object_new_string(ts));
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
    if (!k->opts.taint_eviction || sim_meta_str(rb, "deletionTimestamp"))
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
        int go = needs_eviction(cluster, rb);
        json_object_put(cluster);
        if (go) {
            /* One cluster per write, as Karmada's worker does; the RB's update event brings the
             * next. */
            evict(k, rb, name);
            return;
        }
    }
}

void sim__taint_cluster_changed(struct sim_karmada *k, const struct sim_event *ev)
{
    if (!k->opts.taint_eviction || ev->type == SIM_EVENT_DELETED)
        return;
    if (ev->prev && json_object_equal(sim__get_path(ev->obj, "spec", "taints", NULL),
                                      sim__get_path(ev->prev, "spec", "taints", NULL)))
        return;
    json_object *taints = sim__get_path(ev->obj, "spec", "taints", NULL);
    int noexec = 0;
    for (size_t i = 0; json_object_is_type(taints, json_type_array) &&
                       i < json_object_array_length(taints) && !noexec;
         i++) {
        const char *e = sim__get_str(json_object_array_get_idx(taints, i), "effect", NULL, NULL);
        noexec = e && strcmp(e, "NoExecute") == 0;
    }
    if (!noexec)
        return;
    /* syncCluster lists every binding: once per taint change, never per binding event. */
    const char *name = sim_meta_str(ev->obj, "name");
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
        if (!sim_meta_str(cur, "deletionTimestamp") && needs_eviction(ev->obj, cur))
            evict(k, cur, name);
        json_object_put(cur);
    }
    json_object_put(list);
}
