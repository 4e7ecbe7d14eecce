/* Karmada's ResourceBinding status controller: aggregatedStatus and FullyApplied from the
 * RB's Works. */
#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/rbstatus.h"
#include "cluster-adapters/sim/detector.h"
#include "cluster-adapters/sim/binding.h"

#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/quantity.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void sim__set_fully_applied(struct sim_karmada *k, json_object *rb, json_object *status,
                            json_object *agg)
{
    json_object *clusters = sim__get_path(rb, "spec", "clusters", NULL);
    size_t want =
        json_object_is_type(clusters, json_type_array) ? json_object_array_length(clusters) : 0;
    size_t have = 0;
    for (size_t i = 0; i < want; i++) {
        const char *cn = sim__get_str(json_object_array_get_idx(clusters, i), "name", NULL, NULL);
        for (size_t j = 0; cn && j < json_object_array_length(agg); j++) {
            json_object *e = json_object_array_get_idx(agg, j);
            json_object *applied = sim__get_path(e, "applied", NULL, NULL);
            const char *en = sim__get_str(e, "clusterName", NULL, NULL);
            if (en && strcmp(en, cn) == 0 && applied && json_object_get_boolean(applied))
                have++;
        }
    }
    const char *value = want && have == want ? "True" : "False";
    json_object *conds = sim__get_path(status, "conditions", NULL, NULL);
    if (!json_object_is_type(conds, json_type_array)) {
        conds = json_object_new_array();
        json_object_object_add(status, "conditions", conds);
    }
    json_object *cond = NULL;
    for (size_t i = 0; i < json_object_array_length(conds) && !cond; i++) {
        const char *t = sim__get_str(json_object_array_get_idx(conds, i), "type", NULL, NULL);
        if (t && strcmp(t, "FullyApplied") == 0)
            cond = json_object_array_get_idx(conds, i);
    }
    const char *cur = sim__get_str(cond, "status", NULL, NULL);
    if (cur && strcmp(cur, value) == 0)
        return;
    if (!cond) {
        cond = json_object_new_object();
        json_object_array_add(conds, cond);
    }
    char ts[32];
    sim_format_time(sim__clock_now(k), ts, sizeof(ts));
    json_object_object_add(cond, "type", json_object_new_string("FullyApplied"));
    json_object_object_add(cond, "status", json_object_new_string(value));
    json_object_object_add(
        cond, "reason",
        json_object_new_string(value[0] == 'T' ? "FullyAppliedSuccess" : "FullyAppliedFailed"));
    json_object_object_add(cond, "message",
                           json_object_new_string(value[0] == 'T'
                                                      ? "All works have been successfully applied"
                                                      : "Failed to apply all works"));
    json_object_object_add(cond, "lastTransitionTime", json_object_new_string(ts));
}

/* Karmada's status aggregation: the RB's own Work in cluster reports into
 * status.aggregatedStatus[cluster]. */
void sim__aggregate(struct sim_karmada *k, const char *cluster, json_object *work,
                    const struct unit *u)
{
    const char *rbname =
        sim__get_str(work, "metadata", "annotations", "resourcebinding.karmada.io/name");
    const char *rbns =
        sim__get_str(work, "metadata", "annotations", "resourcebinding.karmada.io/namespace");
    if (!rbname || !rbns)
        return;
    const struct sim_resource *rbr = sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    json_object *rb = NULL, *copy = NULL;
    if (sim_store_get(k->store, rbr, rbns, rbname, &rb, NULL) < 0)
        return;
    char wname[NAME_MAX_LEN];
    sim__work_name(rb, wname, sizeof(wname));
    if (strcmp(wname, sim_meta_str(work, "name")) != 0) {
        json_object_put(rb); /* muster's PodGroup Works are not the RB's own */
        return;
    }
    /* Only status changes, and set_fully_applied edits it in place: copy just that. */
    copy = sim__shallow_copy(rb);
    json_object *status = NULL;
    if (copy && sim__get_path(rb, "status", NULL, NULL))
        json_object_deep_copy(sim__get_path(rb, "status", NULL, NULL), &status, NULL);
    else if (copy)
        status = json_object_new_object();
    json_object_put(rb);
    if (!copy || !status) {
        json_object_put(copy);
        json_object_put(status);
        return;
    }
    json_object_object_add(copy, "status", status);
    json_object *old = sim__get_path(status, "aggregatedStatus", NULL, NULL);
    json_object *agg = json_object_new_array();
    json_object *entry = json_object_new_object();
    json_object_object_add(entry, "clusterName", json_object_new_string(cluster));
    char ts[32] = "";
    if (u->share && u->share->started)
        sim_format_time(u->share->started, ts, sizeof(ts));
    json_object_object_add(entry, "status", sim__share_status(u, ts[0] ? ts : NULL));
    json_object_object_add(entry, "applied", json_object_new_boolean(1));
    json_object_object_add(entry, "health", json_object_new_string(sim__health_of(u)));
    /* Sorted by cluster name, one entry per cluster. */
    int added = 0;
    for (size_t i = 0;
         json_object_is_type(old, json_type_array) && i < json_object_array_length(old); i++) {
        json_object *e = json_object_array_get_idx(old, i);
        const char *cn = sim__get_str(e, "clusterName", NULL, NULL);
        if (cn && strcmp(cn, cluster) == 0)
            continue;
        if (!added && cn && strcmp(cn, cluster) > 0) {
            json_object_array_add(agg, entry);
            added = 1;
        }
        json_object_array_add(agg, json_object_get(e));
    }
    if (!added)
        json_object_array_add(agg, entry);
    json_object_object_add(status, "aggregatedStatus", agg);
    sim__set_fully_applied(k, copy, status, agg);
    sim_store_update(k->store, rbr, rbns, rbname, copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL,
                     NULL);
    json_object_put(copy);
}

/* Decides u's gang and whether it waits for its PodGroup, from the cluster's PodGroups and the
 * RBs muster gangs here. */
