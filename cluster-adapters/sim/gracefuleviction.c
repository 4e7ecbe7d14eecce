/* Karmada's graceful eviction controller (pkg/controllers/gracefuleviction/
 * rb_graceful_eviction_controller.go syncBinding, evictiontask.go assessEvictionTasks), on by
 * default in karmada-controller-manager. For every RB with spec.gracefulEvictionTasks: a task
 * without creationTimestamp gets one (now); a task with suppressDeletion stays while it is true
 * and goes when it is false; any other goes once it is older than its gracePeriodSeconds (else
 * --graceful-eviction-timeout, 10 minutes), or once the RB is scheduled
 * (status.schedulerObservedGeneration = metadata.generation) and every cluster of spec.clusters
 * has an aggregatedStatus entry that is Healthy. Written as one merge patch under the RB's
 * resourceVersion when the tasks change. */
#include "cluster-adapters/sim/gracefuleviction.h"

#include "cluster-adapters/sim/karmada_int.h"
#include "cluster-adapters/sim/store.h"

#include <string.h>

#define DEFAULT_TIMEOUT_S (10 * 60) /* --graceful-eviction-timeout */

static const struct sim_resource *bindings(void)
{
    return sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
}

static int has_tasks(json_object *rb)
{
    json_object *t = sim__get_path(rb, "spec", "gracefulEvictionTasks", NULL);
    return json_object_is_type(t, json_type_array) && json_object_array_length(t) > 0;
}

/* allScheduledResourceInHealthyState */
static int all_healthy(json_object *rb)
{
    json_object *clusters = sim__get_path(rb, "spec", "clusters", NULL);
    json_object *agg = sim__get_path(rb, "status", "aggregatedStatus", NULL);
    for (size_t i = 0;
         json_object_is_type(clusters, json_type_array) && i < json_object_array_length(clusters);
         i++) {
        const char *name = sim__get_str(json_object_array_get_idx(clusters, i), "name", NULL, NULL);
        const char *health = NULL;
        for (size_t j = 0; json_object_is_type(agg, json_type_array) &&
                           j < json_object_array_length(agg) && !health;
             j++) {
            json_object *item = json_object_array_get_idx(agg, j);
            const char *c = sim__get_str(item, "clusterName", NULL, NULL);
            if (c && name && strcmp(c, name) == 0)
                health = sim__get_str(item, "health", NULL, NULL);
        }
        if (!health || strcmp(health, "Healthy") != 0)
            return 0;
    }
    return 1;
}

/* assessSingleTask: 1 to keep task. */
static int keep_task(struct sim_karmada *k, json_object *task, int scheduled_healthy, time_t now)
{
    json_object *sup = sim__get_path(task, "suppressDeletion", NULL, NULL);
    if (sup)
        return json_object_get_boolean(sup);
    int64_t timeout = k->opts.graceful_eviction_timeout_s > 0 ? k->opts.graceful_eviction_timeout_s
                                                              : DEFAULT_TIMEOUT_S;
    json_object *grace = sim__get_path(task, "gracePeriodSeconds", NULL, NULL);
    if (grace)
        timeout = json_object_get_int64(grace);
    time_t created = sim_parse_time(sim__get_str(task, "creationTimestamp", NULL, NULL));
    if (now > created + (time_t)timeout)
        return 0;
    return !scheduled_healthy;
}

/* syncBinding on rb (as stored). Returns 1 when rb still has tasks afterwards. */
static int sync_binding(struct sim_karmada *k, json_object *rb)
{
    if (!has_tasks(rb))
        return 0;
    json_object *tasks = sim__get_path(rb, "spec", "gracefulEvictionTasks", NULL);
    json_object *gen = sim__get_path(rb, "metadata", "generation", NULL);
    json_object *seen = sim__get_path(rb, "status", "schedulerObservedGeneration", NULL);
    int scheduled = gen && seen && json_object_get_int64(gen) == json_object_get_int64(seen);
    int healthy = scheduled && all_healthy(rb);
    time_t now = sim__clock_now(k);
    char ts[32];
    sim_format_time(now, ts, sizeof(ts));
    json_object *kept = json_object_new_array();
    int changed = 0;
    for (size_t i = 0; i < json_object_array_length(tasks); i++) {
        json_object *t = json_object_array_get_idx(tasks, i);
        if (!sim__get_str(t, "creationTimestamp", NULL, NULL)) {
            json_object *stamped = sim__shallow_copy(t);
            json_object_object_add(stamped, "creationTimestamp", json_object_new_string(ts));
            json_object_array_add(kept, stamped);
            changed = 1;
        } else if (keep_task(k, t, healthy, now)) {
            json_object_array_add(kept, json_object_get(t));
        } else {
            changed = 1;
        }
    }
    int left = json_object_array_length(kept) > 0;
    if (!changed) {
        json_object_put(kept);
        return left;
    }
    json_object *copy = sim__shallow_copy(rb);
    json_object *spec = sim__shallow_copy(sim__get_path(rb, "spec", NULL, NULL));
    if (left)
        json_object_object_add(spec, "gracefulEvictionTasks", kept);
    else {
        json_object_put(kept);
        json_object_object_del(spec, "gracefulEvictionTasks");
    }
    json_object_object_add(copy, "spec", spec);
    /* MergeFromWithOptimisticLock: the RB's resourceVersion goes with the patch. */
    sim_store_update(k->store, bindings(), sim_meta_str(rb, "namespace"), sim_meta_str(rb, "name"),
                     copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL, NULL);
    json_object_put(copy);
    return left;
}

void sim__graceful_eviction_event(struct sim_karmada *k, const struct sim_event *ev)
{
    if (ev->type == SIM_EVENT_DELETED || !has_tasks(ev->obj))
        return;
    json_object *cur = NULL;
    if (sim_store_get(k->store, bindings(), sim_meta_str(ev->obj, "namespace"),
                      sim_meta_str(ev->obj, "name"), &cur, NULL) < 0)
        return;
    k->evicting |= sync_binding(k, cur);
    json_object_put(cur);
}

void sim__graceful_eviction_tick(struct sim_karmada *k)
{
    if (!k->evicting)
        return;
    json_object *list = NULL;
    if (sim_store_list(k->store, bindings(), NULL, NULL, &list, NULL) < 0)
        return;
    int left = 0;
    json_object *items = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++)
        left |= sync_binding(k, json_object_array_get_idx(items, i));
    k->evicting = left;
    json_object_put(list);
}
