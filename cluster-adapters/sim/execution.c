/* Karmada's execution controller (pkg/controllers/execution/execution_controller.go) with the
 * object watcher it drives (pkg/util/objectwatcher/objectwatcher.go): the manifests of a
 * cluster's dispatched Works become objects of that member cluster, and a Work being deleted
 * takes its objects with it only when Karmada manages them. */
#include "cluster-adapters/sim/execution.h"

#include "cluster-adapters/sim/karmada_int.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "queue/mem.h"

#include <stdio.h>
#include <string.h>

#define MANAGED_LABEL "karmada.io/managed" /* util.ManagedByKarmadaLabel */
#define CONFLICT_ANNOTATION "work.karmada.io/conflict-resolution"
#define MSG_CAP 2048

/* objectWatcherImpl.isManagedResource: the member object carries karmada.io/managed=true. */
static int managed(json_object *obj)
{
    const char *v = sim__get_str(obj, "metadata", "labels", MANAGED_LABEL);
    return v && strcmp(v, "true") == 0;
}

static const struct sim_resource *works(void)
{
    return sim__res_of("work.karmada.io", "v1alpha1", "works");
}

/* The member's copy of manifest: what the member's API server stores (no status: the member's
 * controllers write that). New reference. */
static json_object *member_copy(json_object *manifest)
{
    json_object *c = sim__shallow_copy(manifest);
    if (c)
        json_object_object_del(c, "status");
    return c;
}

/* Sets the Work's Applied condition (updateAppliedCondition / meta.SetStatusCondition: an
 * unchanged status keeps its lastTransitionTime), writing only when something changed. */
static void set_applied(struct sim_karmada *k, json_object *work, int ok, const char *reason,
                        const char *message)
{
    json_object *old = sim__get_path(work, "status", "conditions", NULL);
    json_object *conds = json_object_new_array();
    json_object *was = NULL;
    for (size_t i = 0;
         json_object_is_type(old, json_type_array) && i < json_object_array_length(old); i++) {
        json_object *c = json_object_array_get_idx(old, i);
        const char *t = sim__get_str(c, "type", NULL, NULL);
        if (t && strcmp(t, "Applied") == 0 && !was)
            was = c;
        else
            json_object_array_add(conds, json_object_get(c));
    }
    const char *value = ok ? "True" : "False";
    const char *prev = sim__get_str(was, "status", NULL, NULL);
    const char *preason = sim__get_str(was, "reason", NULL, NULL);
    const char *pmsg = sim__get_str(was, "message", NULL, NULL);
    if (prev && preason && pmsg && strcmp(prev, value) == 0 && strcmp(preason, reason) == 0 &&
        strcmp(pmsg, message) == 0) {
        json_object_put(conds);
        return;
    }
    json_object *cond = json_object_new_object();
    json_object_object_add(cond, "type", json_object_new_string("Applied"));
    json_object_object_add(cond, "status", json_object_new_string(value));
    json_object_object_add(cond, "reason", json_object_new_string(reason));
    json_object_object_add(cond, "message", json_object_new_string(message));
    const char *lt = sim__get_str(was, "lastTransitionTime", NULL, NULL);
    char ts[32];
    sim_format_time(sim__clock_now(k), ts, sizeof(ts));
    json_object_object_add(
        cond, "lastTransitionTime",
        json_object_new_string(prev && lt && strcmp(prev, value) == 0 ? lt : ts));
    json_object_array_add(conds, cond);
    json_object *copy = sim__shallow_copy(work);
    json_object *status = sim__shallow_copy(sim__get_path(work, "status", NULL, NULL));
    if (!status)
        status = json_object_new_object();
    json_object_object_add(status, "conditions", conds);
    json_object_object_add(copy, "status", status);
    sim_store_update(k->store, works(), sim_meta_str(work, "namespace"), sim_meta_str(work, "name"),
                     copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL, NULL);
    json_object_put(copy);
}

/* updateWorkDispatchingConditionIfNeeded: the Work's Dispatching condition says whether it is
 * suspended (False/SuspendDispatching) or not (True/Dispatching), written only when its status
 * changes (meta.IsStatusConditionPresentAndEqual), in place as meta.SetStatusCondition puts it.
 * A suspended Work's status changes with it, so the RB status controller aggregates the RB
 * (FullyApplied False) while muster's barrier holds it, before any share is released. */
static void set_dispatching(struct sim_karmada *k, json_object *work)
{
    json_object *susp = sim__get_path(work, "spec", "suspendDispatching", NULL);
    int suspended = susp && json_object_get_boolean(susp);
    const char *value = suspended ? "False" : "True";
    json_object *old = sim__get_path(work, "status", "conditions", NULL);
    size_t n = json_object_is_type(old, json_type_array) ? json_object_array_length(old) : 0, at = n;
    for (size_t i = 0; i < n && at == n; i++) {
        const char *t = sim__get_str(json_object_array_get_idx(old, i), "type", NULL, NULL);
        if (t && strcmp(t, "Dispatching") == 0)
            at = i;
    }
    const char *prev =
        at < n ? sim__get_str(json_object_array_get_idx(old, at), "status", NULL, NULL) : NULL;
    if (prev && strcmp(prev, value) == 0)
        return;
    char ts[32];
    sim_format_time(sim__clock_now(k), ts, sizeof(ts));
    json_object *cond = json_object_new_object();
    json_object_object_add(cond, "type", json_object_new_string("Dispatching"));
    json_object_object_add(cond, "status", json_object_new_string(value));
    json_object_object_add(cond, "reason",
                           json_object_new_string(suspended ? "SuspendDispatching" : "Dispatching"));
    json_object_object_add(cond, "message",
                           json_object_new_string(suspended
                                                      ? "Work dispatching is in a suspended state."
                                                      : "Work is being dispatched to member "
                                                        "clusters."));
    json_object_object_add(cond, "lastTransitionTime", json_object_new_string(ts));
    json_object *conds = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(conds, i == at ? json_object_get(cond)
                                             : json_object_get(json_object_array_get_idx(old, i)));
    if (at == n)
        json_object_array_add(conds, json_object_get(cond));
    json_object_put(cond);
    json_object *copy = sim__shallow_copy(work);
    json_object *status = sim__shallow_copy(sim__get_path(work, "status", NULL, NULL));
    if (!status)
        status = json_object_new_object();
    json_object_object_add(status, "conditions", conds);
    json_object_object_add(copy, "status", status);
    sim_store_update(k->store, works(), sim_meta_str(work, "namespace"), sim_meta_str(work, "name"),
                     copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL, NULL);
    json_object_put(copy);
}

/* tryCreateOrUpdateWorkload for one manifest: create when absent; update only a managed object
 * or under conflict resolution "overwrite" (objectWatcherImpl.allowUpdate), else the error
 * Karmada reports into msg. Returns 1 when applied. */
static int apply_manifest(struct sim_karmada *k, struct cluster *c, json_object *man, char *msg,
                          size_t cap)
{
    const char *av = sim__get_str(man, "apiVersion", NULL, NULL);
    const char *kind = sim__get_str(man, "kind", NULL, NULL);
    const struct sim_resource *r = sim_resource_by_kind(av, kind);
    sim_api_set hub_hidden = k->hub_hidden;
    if (k->opts.no_podgroup_crd)
        hub_hidden |=
            ~sim_api_without(SIM_API_ALL, "scheduling.volcano.sh", "v1beta1", "podgroups");
    if (r && sim_api_has(hub_hidden, r)) {
        /* GetObjectFromCache maps the kind with the hub's RESTMapper first: a kind the
         * karmada-apiserver does not serve fails there (meta.NoKindMatchError). */
        snprintf(msg, cap, "no matches for kind \"%s\" in version \"%s\"", kind, av);
        return 0;
    }
    if (r && !sim_api_has(c->api, r)) {
        /* The member has no such resource: the dynamic client's get and then create are
         * answered 404 by its API server, without a Status body (client-go's generic
         * NotFound message). */
        snprintf(msg, cap, "the server could not find the requested resource");
        return 0;
    }
    char key[4 * NAME_MAX_LEN];
    sim__member_key(man, key, sizeof(key));
    json_object *cur = sim__member_get(c, key);
    json_object *want = member_copy(man);
    if (!want)
        return 0;
    if (cur && !managed(cur)) {
        const char *cr = sim__get_str(man, "metadata", "annotations", CONFLICT_ANNOTATION);
        if (!cr || strcmp(cr, "overwrite") != 0) {
            const char *ns = sim_meta_str(man, "namespace");
            snprintf(msg, cap,
                     "resource(kind=%s, %s/%s) already exists in the cluster %s and the %s "
                     "strategy value is empty, Karmada will not manage this resource",
                     sim__get_str(man, "kind", NULL, NULL), ns ? ns : "", sim_meta_str(man, "name"),
                     c->name, CONFLICT_ANNOTATION);
            json_object_put(want);
            return 0;
        }
    }
    if (!cur || !json_object_equal(cur, want))
        sim__member_apply(k, c, key, want);
    json_object_put(want);
    return 1;
}

/* syncToClusters: every manifest applied, then the Applied condition. */
static void sync_work(struct sim_karmada *k, struct cluster *c, json_object *work)
{
    json_object *manifests = sim__get_path(work, "spec", "workload", "manifests");
    size_t total =
        json_object_is_type(manifests, json_type_array) ? json_object_array_length(manifests) : 0;
    size_t ok = 0;
    char errs[MSG_CAP] = "", one[1024];
    for (size_t m = 0; m < total; m++) {
        one[0] = '\0';
        if (apply_manifest(k, c, json_object_array_get_idx(manifests, m), one, sizeof(one))) {
            ok++;
        } else if (one[0]) {
            size_t len = strlen(errs);
            snprintf(errs + len, sizeof(errs) - len, "%s%s", len ? ", " : "", one);
        }
    }
    /* The member's objects changed above may have written the Work: read it again. */
    json_object *cur = NULL;
    if (sim_store_get(k->store, works(), sim_meta_str(work, "namespace"),
                      sim_meta_str(work, "name"), &cur, NULL) < 0)
        return;
    if (ok == total) {
        set_applied(k, cur, 1, "AppliedSuccessful", "Manifest has been successfully applied");
    } else {
        char msg[MSG_CAP + 64];
        /* errors.NewAggregate: one error as it is, several in brackets. */
        snprintf(msg, sizeof(msg), "Failed to apply all manifests (%zu/%zu): %s%s%s", ok, total,
                 total - ok > 1 ? "[" : "", errs, total - ok > 1 ? "]" : "");
        set_applied(k, cur, 0, "AppliedFailed", msg);
    }
    json_object_put(cur);
}

/* handleWorkDelete then removeFinalizer: the objects Karmada manages go (tryDeleteWorkload,
 * objectWatcherImpl.Delete skips unmanaged ones), then the finalizer, so the store deletes the
 * Work. A NotReady cluster keeps both until it is Ready again. */
static void delete_work(struct sim_karmada *k, struct cluster *c, json_object *work)
{
    if (!c->ready)
        return;
    json_object *manifests = sim__get_path(work, "spec", "workload", "manifests");
    for (size_t m = 0;
         json_object_is_type(manifests, json_type_array) && m < json_object_array_length(manifests);
         m++) {
        char key[4 * NAME_MAX_LEN];
        sim__member_key(json_object_array_get_idx(manifests, m), key, sizeof(key));
        json_object *cur = sim__member_get(c, key);
        if (cur && managed(cur))
            sim__member_apply(k, c, key, NULL);
    }
    sim__finalizer_remove(k, works(), work, EXECUTION_FINALIZER);
}

void sim__execution_reconcile(struct sim_karmada *k, struct cluster *c, json_object *work)
{
    if (sim_meta_str(work, "deletionTimestamp")) {
        delete_work(k, c, work);
        return;
    }
    set_dispatching(k, work);
    json_object *susp = sim__get_path(work, "spec", "suspendDispatching", NULL);
    if (susp && json_object_get_boolean(susp))
        return; /* IsWorkSuspendDispatching: nothing reaches the member */
    if (!c->ready)
        return; /* "cluster not ready": retried once it is */
    sync_work(k, c, work);
}

struct each_work {
    struct sim_karmada *k;
    struct cluster *c;
    char ns[NAME_MAX_LEN];
};

static void reconcile_one(void *data, json_object *work)
{
    struct each_work *e = data;
    const char *ns = sim_meta_str(work, "namespace");
    if (ns && strcmp(ns, e->ns) == 0)
        sim__execution_reconcile(e->k, e->c, work);
}

void sim__execution_resync(struct sim_karmada *k, struct cluster *c)
{
    /* A list of every Work: only on a readiness change, never per event. Works written by the
     * reconciles are read again from the store by each. */
    struct each_work e = {k, c, ""};
    snprintf(e.ns, sizeof(e.ns), WORK_NS_PREFIX "%s", c->name);
    json_object *list = NULL;
    if (sim_store_list(k->store, works(), e.ns, NULL, &list, NULL) < 0)
        return;
    json_object *items = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *w = json_object_array_get_idx(items, i);
        json_object *cur = NULL;
        if (sim_store_get(k->store, works(), e.ns, sim_meta_str(w, "name"), &cur, NULL) == 0) {
            reconcile_one(&e, cur);
            json_object_put(cur);
        }
    }
    json_object_put(list);
}

json_object *sim__execution_objects(struct cluster *c)
{
    json_object *items = json_object_new_array();
    for (size_t i = 0; i < c->nworks; i++) {
        json_object *o = sim__shallow_copy(c->works[i]->obj);
        if (!o)
            continue;
        if (c->works[i]->status)
            json_object_object_add(o, "status", json_object_get(c->works[i]->status));
        json_object_array_add(items, o);
    }
    return items;
}
