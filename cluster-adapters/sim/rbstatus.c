/* Karmada's ResourceBinding status controller (pkg/controllers/status/rb_status_controller.go):
 * the RB's status.aggregatedStatus and FullyApplied condition from every Work carrying its
 * permanent id (pkg/util/helper/workstatus.go AggregateResourceBindingWorkStatus,
 * assembleWorkStatus, GetManifestIndex, generateFullyAppliedCondition). */
#include "cluster-adapters/sim/rbstatus.h"

#include "cluster-adapters/sim/binding.h"
#include "cluster-adapters/sim/karmada_int.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "queue/mem.h"

#include <stdio.h>
#include <string.h>

#define FULLY_APPLIED_SUCCESS_MSG "All works have been successfully applied"
#define FULLY_APPLIED_FAILED_MSG                                                                   \
    "Failed to apply all works, see status.aggregatedStatus for details"

static int entry_cmp(const void *a, const void *b)
{
    const char *x = sim__get_str(*(json_object *const *)a, "clusterName", NULL, NULL);
    const char *y = sim__get_str(*(json_object *const *)b, "clusterName", NULL, NULL);
    return strcmp(x ? x : "", y ? y : "");
}

/* equalIdentifier: the manifestStatus identifier id names the RB's resource at ordinal. */
static int identifier_is(json_object *id, int ordinal, const char *av, const char *kind,
                         const char *ns, const char *name)
{
    json_object *o = sim__get_path(id, "ordinal", NULL, NULL);
    const char *slash = strchr(av, '/');
    char group[128] = "";
    if (slash)
        snprintf(group, sizeof(group), "%.*s", (int)(slash - av), av);
    const char *version = slash ? slash + 1 : av;
    const char *g = sim__get_str(id, "group", NULL, NULL);
    const char *v = sim__get_str(id, "version", NULL, NULL);
    const char *kd = sim__get_str(id, "kind", NULL, NULL);
    const char *n = sim__get_str(id, "namespace", NULL, NULL);
    const char *nm = sim__get_str(id, "name", NULL, NULL);
    return o && json_object_get_int(o) == ordinal && strcmp(g ? g : "", group) == 0 &&
           strcmp(v ? v : "", version) == 0 && strcmp(kd ? kd : "", kind) == 0 &&
           strcmp(n ? n : "", ns ? ns : "") == 0 && strcmp(nm ? nm : "", name) == 0;
}

/* The Applied condition of work, or NULL. */
static json_object *applied_condition(json_object *work)
{
    json_object *conds = sim__get_path(work, "status", "conditions", NULL);
    for (size_t i = 0;
         json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds); i++) {
        const char *t = sim__get_str(json_object_array_get_idx(conds, i), "type", NULL, NULL);
        if (t && strcmp(t, "Applied") == 0)
            return json_object_array_get_idx(conds, i);
    }
    return NULL;
}

/* assembleWorkStatus: one entry per Work of the RB not being deleted. Returns the entries, or
 * NULL when a Work lacks the RB's own manifest ("no such manifest exist": the whole
 * aggregation is abandoned, nothing is written). */
static json_object *assemble(struct sim_karmada *k, json_object *rb, const char *pid)
{
    const char *av = sim__get_str(rb, "spec", "resource", "apiVersion");
    const char *kind = sim__get_str(rb, "spec", "resource", "kind");
    const char *tns = sim__get_str(rb, "spec", "resource", "namespace");
    const char *tname = sim__get_str(rb, "spec", "resource", "name");
    if (!av || !kind || !tname)
        return NULL;
    char(*keys)[2 * NAME_MAX_LEN] = NULL;
    size_t n = sim__binding_work_keys(k, pid, &keys);
    const struct sim_resource *wr = sim__res_of("work.karmada.io", "v1alpha1", "works");
    json_object *out = json_object_new_array();
    size_t plen = strlen(WORK_NS_PREFIX);
    for (size_t i = 0; out && i < n; i++) {
        char *slash = strchr(keys[i], '/');
        if (!slash)
            continue;
        *slash = '\0';
        json_object *work = NULL;
        if (sim_store_get(k->store, wr, keys[i], slash + 1, &work, NULL) < 0)
            continue;
        if (sim_meta_str(work, "deletionTimestamp")) {
            json_object_put(work);
            continue;
        }
        int idx = sim__manifest_index(work, av, kind, tns, tname);
        if (idx < 0 || strncmp(keys[i], WORK_NS_PREFIX, plen) != 0) {
            json_object_put(work);
            json_object_put(out);
            out = NULL;
            break;
        }
        json_object *e = json_object_new_object();
        json_object_object_add(e, "clusterName", json_object_new_string(keys[i] + plen));
        json_object *cond = applied_condition(work);
        const char *cs = sim__get_str(cond, "status", NULL, NULL);
        if (!cs || strcmp(cs, "True") != 0) {
            const char *msg = sim__get_str(cond, "message", NULL, NULL);
            if (cond && msg && msg[0])
                json_object_object_add(e, "appliedMessage", json_object_new_string(msg));
            json_object_object_add(e, "health", json_object_new_string("Unknown"));
        } else {
            json_object_object_add(e, "applied", json_object_new_boolean(1));
            json_object *ms = sim__get_path(work, "status", "manifestStatuses", NULL);
            const char *health = "Unknown";
            for (size_t m = 0;
                 json_object_is_type(ms, json_type_array) && m < json_object_array_length(ms);
                 m++) {
                json_object *entry = json_object_array_get_idx(ms, m);
                if (!identifier_is(sim__get_path(entry, "identifier", NULL, NULL), idx, av, kind,
                                   tns, tname))
                    continue;
                json_object *st = sim__get_path(entry, "status", NULL, NULL);
                if (st)
                    json_object_object_add(e, "status", json_object_get(st));
                const char *h = sim__get_str(entry, "health", NULL, NULL);
                health = h ? h : "";
                break;
            }
            if (health[0])
                json_object_object_add(e, "health", json_object_new_string(health));
        }
        json_object_array_add(out, e);
        json_object_put(work);
    }
    muster_free(keys);
    if (out && json_object_array_length(out))
        json_object_array_sort(out, entry_cmp);
    return out;
}

/* worksFullyApplied over helper.ObtainBindingSpecExistingClusters. */
static int fully_applied(json_object *rb, json_object *agg)
{
    json_object *clusters = sim__binding_existing_clusters(rb);
    size_t want = json_object_array_length(clusters);
    size_t have = json_object_array_length(agg);
    int ok = want > 0 && want == have;
    for (size_t i = 0; ok && i < have; i++) {
        json_object *e = json_object_array_get_idx(agg, i);
        json_object *applied = sim__get_path(e, "applied", NULL, NULL);
        const char *cn = sim__get_str(e, "clusterName", NULL, NULL);
        int listed = 0;
        for (size_t j = 0; cn && j < want && !listed; j++) {
            json_object *c = json_object_array_get_idx(clusters, j);
            const char *name = json_object_is_type(c, json_type_string)
                                   ? json_object_get_string(c)
                                   : sim__get_str(c, "name", NULL, NULL);
            listed = name && strcmp(name, cn) == 0;
        }
        ok = listed && applied && json_object_get_boolean(applied);
    }
    json_object_put(clusters);
    return ok;
}

/* meta.SetStatusCondition of FullyApplied into status.conditions (a new array): an unchanged
 * status keeps its lastTransitionTime, and an existing condition is updated where it is (only a
 * new one is appended), so the other conditions keep their indexes. */
static void set_fully_applied(struct sim_karmada *k, json_object *status, int ok)
{
    json_object *old = sim__get_path(status, "conditions", NULL, NULL);
    json_object *conds = json_object_new_array();
    json_object *was = NULL;
    size_t at = 0;
    for (size_t i = 0;
         json_object_is_type(old, json_type_array) && i < json_object_array_length(old); i++) {
        json_object *c = json_object_array_get_idx(old, i);
        const char *t = sim__get_str(c, "type", NULL, NULL);
        if (t && strcmp(t, "FullyApplied") == 0 && !was) {
            was = c;
            at = json_object_array_length(conds);
            json_object_array_add(conds, NULL); /* its place, filled below */
        } else {
            json_object_array_add(conds, json_object_get(c));
        }
    }
    const char *value = ok ? "True" : "False";
    json_object *cond = json_object_new_object();
    json_object_object_add(cond, "type", json_object_new_string("FullyApplied"));
    json_object_object_add(cond, "status", json_object_new_string(value));
    json_object_object_add(
        cond, "reason", json_object_new_string(ok ? "FullyAppliedSuccess" : "FullyAppliedFailed"));
    json_object_object_add(
        cond, "message",
        json_object_new_string(ok ? FULLY_APPLIED_SUCCESS_MSG : FULLY_APPLIED_FAILED_MSG));
    const char *prev = sim__get_str(was, "status", NULL, NULL);
    const char *lt = sim__get_str(was, "lastTransitionTime", NULL, NULL);
    char ts[32];
    sim_format_time(sim__clock_now(k), ts, sizeof(ts));
    json_object_object_add(
        cond, "lastTransitionTime",
        json_object_new_string(prev && lt && strcmp(prev, value) == 0 ? lt : ts));
    if (was)
        json_object_array_put_idx(conds, at, cond);
    else
        json_object_array_add(conds, cond);
    json_object_object_add(status, "conditions", conds);
}

void sim__aggregate_binding(struct sim_karmada *k, const char *ns, const char *name)
{
    const struct sim_resource *rbr = sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    json_object *rb = NULL;
    if (!ns || !name || sim_store_get(k->store, rbr, ns, name, &rb, NULL) < 0)
        return;
    const char *pid = sim__get_str(rb, "metadata", "labels", PERMANENT_ID_LABEL);
    if (sim_meta_str(rb, "deletionTimestamp") || !pid) {
        json_object_put(rb);
        return;
    }
    json_object *agg = assemble(k, rb, pid);
    if (!agg) {
        /* Reconcile returns the error and is requeued with back-off, forever: nothing more is
         * written while a Work of the permanent id lacks the RB's manifest. */
        json_object_put(rb);
        return;
    }
    json_object *copy = sim__shallow_copy(rb);
    json_object *status = sim__shallow_copy(sim__get_path(rb, "status", NULL, NULL));
    if (!status)
        status = json_object_new_object();
    if (json_object_array_length(agg))
        json_object_object_add(status, "aggregatedStatus", json_object_get(agg));
    else
        json_object_object_del(status, "aggregatedStatus"); /* omitempty */
    set_fully_applied(k, status, fully_applied(rb, agg));
    json_object_object_add(copy, "status", status);
    if (!json_object_equal(status, sim__get_path(rb, "status", NULL, NULL)))
        sim_store_update(k->store, rbr, ns, name, copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL,
                         NULL);
    json_object_put(copy);
    json_object_put(agg);
    json_object_put(rb);
}

int sim__rbstatus_wants(const struct sim_event *ev)
{
    /* bindingPredicateFn (pkg/controllers/status/common.go): only RBs that have been scheduled
     * (status.lastScheduledTime), on create, or on update when the template's resourceVersion
     * in spec.resource changed; never on delete. */
    if (ev->type == SIM_EVENT_DELETED ||
        !sim__get_path(ev->obj, "status", "lastScheduledTime", NULL))
        return 0;
    if (ev->type == SIM_EVENT_ADDED || !ev->prev)
        return 1;
    const char *a = sim__get_str(ev->obj, "spec", "resource", "resourceVersion");
    const char *b = sim__get_str(ev->prev, "spec", "resource", "resourceVersion");
    return strcmp(a ? a : "", b ? b : "") != 0;
}
