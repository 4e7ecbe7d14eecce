/* Karmada's cluster controller (pkg/controllers/cluster/cluster_controller.go): on every Cluster
 * event, taintClusterByCondition keeps the NoSchedule taints that say the cluster is not ready
 * or unreachable in step with its Ready condition (updateClusterTaints,
 * helper.SetCurrentClusterTaints). It adds NoSchedule taints only: a NoExecute taint comes from
 * someone else (a person, or a ClusterTaintPolicy) and is the taint manager's business. */
#include "cluster-adapters/sim/cluster.h"

#include "cluster-adapters/sim/karmada_int.h"
#include "cluster-adapters/sim/store.h"

#include <string.h>

static const struct sim_resource *clusters(void)
{
    return sim__res_of("cluster.karmada.io", "v1alpha1", "clusters");
}

/* helper.TaintExists: same key and effect. */
static int has_taint(json_object *taints, const char *key)
{
    for (size_t i = 0;
         json_object_is_type(taints, json_type_array) && i < json_object_array_length(taints);
         i++) {
        json_object *t = json_object_array_get_idx(taints, i);
        const char *k = sim__get_str(t, "key", NULL, NULL);
        const char *e = sim__get_str(t, "effect", NULL, NULL);
        if (k && e && strcmp(k, key) == 0 && strcmp(e, "NoSchedule") == 0)
            return 1;
    }
    return 0;
}

/* SetCurrentClusterTaints: the taints kept in order, then the ones added (timeAdded now).
 * Returns a new array, or NULL when nothing changes. */
static json_object *set_taints(struct sim_karmada *k, json_object *taints, const char *add,
                               const char *del1, const char *del2)
{
    int adding = add && !has_taint(taints, add);
    int removing = (del1 && has_taint(taints, del1)) || (del2 && has_taint(taints, del2));
    if (!adding && !removing)
        return NULL;
    json_object *out = json_object_new_array();
    for (size_t i = 0;
         json_object_is_type(taints, json_type_array) && i < json_object_array_length(taints);
         i++) {
        json_object *t = json_object_array_get_idx(taints, i);
        const char *key = sim__get_str(t, "key", NULL, NULL);
        const char *e = sim__get_str(t, "effect", NULL, NULL);
        int gone = key && e && strcmp(e, "NoSchedule") == 0 &&
                   ((del1 && strcmp(key, del1) == 0) || (del2 && strcmp(key, del2) == 0));
        if (!gone)
            json_object_array_add(out, json_object_get(t));
    }
    if (adding) {
        json_object *t = json_object_new_object();
        json_object_object_add(t, "key", json_object_new_string(add));
        json_object_object_add(t, "effect", json_object_new_string("NoSchedule"));
        char ts[32];
        sim_format_time(sim__clock_now(k), ts, sizeof(ts));
        json_object_object_add(t, "timeAdded", json_object_new_string(ts));
        json_object_array_add(out, t);
    }
    return out;
}

static const char *ready_status(json_object *cluster)
{
    json_object *conds = sim__get_path(cluster, "status", "conditions", NULL);
    for (size_t i = 0;
         json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = sim__get_str(c, "type", NULL, NULL);
        if (t && strcmp(t, "Ready") == 0) {
            const char *s = sim__get_str(c, "status", NULL, NULL);
            return s ? s : "";
        }
    }
    return NULL;
}

void sim__cluster_taint_by_condition(struct sim_karmada *k, const struct sim_event *ev)
{
    if (ev->type == SIM_EVENT_DELETED)
        return;
    /* The controller reads the Cluster from its cache: the latest, not the event's copy. */
    json_object *cur = NULL;
    if (sim_store_get(k->store, clusters(), NULL, sim_meta_str(ev->obj, "name"), &cur, NULL) < 0)
        return;
    const char *ready = ready_status(cur);
    const char *add = NULL, *del1 = NULL, *del2 = NULL;
    if (!ready) {
        add = TAINT_NOT_READY; /* a newly joined cluster, never reported */
    } else if (strcmp(ready, "False") == 0) {
        add = TAINT_NOT_READY;
        del1 = TAINT_UNREACHABLE;
    } else if (strcmp(ready, "Unknown") == 0) {
        add = TAINT_UNREACHABLE;
        del1 = TAINT_NOT_READY;
    } else if (strcmp(ready, "True") == 0) {
        del1 = TAINT_NOT_READY;
        del2 = TAINT_UNREACHABLE;
    }
    json_object *spec = sim__shallow_copy(sim__get_path(cur, "spec", NULL, NULL));
    json_object *taints =
        sim_meta_str(cur, "deletionTimestamp") || !spec || !(add || del1)
            ? NULL
            : set_taints(k, sim__get_path(cur, "spec", "taints", NULL), add, del1, del2);
    if (!taints) {
        json_object_put(spec);
        json_object_put(cur);
        return;
    }
    /* updateClusterTaints: c.Client.Update of the Cluster with the new taints. */
    json_object *copy = sim__shallow_copy(cur);
    if (json_object_array_length(taints)) {
        json_object_object_add(spec, "taints", taints);
    } else {
        json_object_put(taints);
        json_object_object_del(spec, "taints");
    }
    json_object_object_add(copy, "spec", spec);
    sim_store_update(k->store, clusters(), NULL, sim_meta_str(cur, "name"), copy,
                     SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL, NULL);
    json_object_put(copy);
    json_object_put(cur);
}
