/* Karmada's resource detector: templates claimed by a PropagationPolicy get a ResourceBinding. */
#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/rbstatus.h"
#include "cluster-adapters/sim/detector.h"
#include "cluster-adapters/sim/interpret_kinds.h"
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

/* ---- detector ---- */

static int labels_match(json_object *selector, json_object *obj)
{
    json_object *ml = sim__get_path(selector, "matchLabels", NULL, NULL);
    if (!ml)
        return 1;
    json_object_object_foreach(ml, key, want)
    {
        const char *have = sim__get_str(obj, "metadata", "labels", key);
        if (!have || strcmp(have, json_object_get_string(want)) != 0)
            return 0;
    }
    return 1;
}

int sim__selector_matches(json_object *sel, json_object *obj)
{
    const char *av = sim__get_str(sel, "apiVersion", NULL, NULL);
    const char *kind = sim__get_str(sel, "kind", NULL, NULL);
    const char *name = sim__get_str(sel, "name", NULL, NULL);
    const char *ns = sim__get_str(sel, "namespace", NULL, NULL);
    const char *oav = sim__get_str(obj, "apiVersion", NULL, NULL);
    const char *okind = sim__get_str(obj, "kind", NULL, NULL);
    if (!av || !kind || !oav || !okind || strcmp(av, oav) != 0 || strcmp(kind, okind) != 0)
        return 0;
    if (name && name[0] && strcmp(name, sim_meta_str(obj, "name")) != 0)
        return 0;
    const char *ons = sim_meta_str(obj, "namespace");
    if (ns && ns[0] && (!ons || strcmp(ns, ons) != 0))
        return 0;
    json_object *ls = sim__get_path(sel, "labelSelector", NULL, NULL);
    return !ls || labels_match(ls, obj);
}

static int policy_matches(json_object *policy, json_object *obj)
{
    json_object *sels = sim__get_path(policy, "spec", "resourceSelectors", NULL);
    for (size_t i = 0;
         json_object_is_type(sels, json_type_array) && i < json_object_array_length(sels); i++)
        if (sim__selector_matches(json_object_array_get_idx(sels, i), obj))
            return 1;
    return 0;
}

/* The PropagationPolicy in obj's namespace that claims it: highest spec.priority, then name. */
static json_object *find_policy(struct sim_karmada *k, json_object *obj)
{
    const char *ns = sim_meta_str(obj, "namespace");
    json_object *list = NULL;
    if (!ns || sim_store_list(k->store,
                              sim__res_of("policy.karmada.io", "v1alpha1", "propagationpolicies"),
                              ns, NULL, &list, NULL) < 0)
        return NULL;
    json_object *best = NULL;
    int best_prio = 0;
    json_object *items = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *p = json_object_array_get_idx(items, i);
        if (!policy_matches(p, obj))
            continue;
        json_object *pr = sim__get_path(p, "spec", "priority", NULL);
        int prio = pr ? json_object_get_int(pr) : 0;
        if (!best || prio > best_prio) {
            best = p;
            best_prio = prio;
        }
    }
    json_object_get(best);
    json_object_put(list);
    return best;
}

static void rb_name(json_object *obj, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s-%s", sim_meta_str(obj, "name"), sim__get_str(obj, "kind", NULL, NULL));
    for (char *p = buf; *p; p++)
        *p = (char)tolower((unsigned char)*p);
}

static void copy_into(json_object *dst, const char *key, json_object *src)
{
    if (!src) {
        json_object_object_del(dst, key);
        return;
    }
    json_object *c = NULL;
    json_object_deep_copy(src, &c, NULL);
    json_object_object_add(dst, key, c);
}

/* Adds finalizer f to obj's metadata.finalizers unless it is there (DedupeAndMergeFinalizers). */
static void add_finalizer(json_object *obj, const char *f)
{
    json_object *meta = sim__get_path(obj, "metadata", NULL, NULL);
    json_object *list = sim__get_path(meta, "finalizers", NULL, NULL);
    size_t n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(list, i)), f) == 0)
            return;
    json_object *next = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(next, json_object_get(json_object_array_get_idx(list, i)));
    json_object_array_add(next, json_object_new_string(f));
    json_object_object_add(meta, "finalizers", next);
}

/* util.MergePolicySuspension (pkg/util/binding.go): the policy's suspension (dispatching and
 * dispatchingOnClusters) replaces the RB's; scheduling, which a policy cannot say, is kept; no
 * policy suspension and no scheduling leaves no suspension at all. */
static void merge_policy_suspension(json_object *spec, json_object *policy)
{
    json_object *psusp = sim__get_path(policy, "spec", "suspension", NULL);
    json_object *cur = sim__get_path(spec, "suspension", NULL, NULL);
    json_object *sched = sim__get_path(cur, "scheduling", NULL, NULL);
    int has_policy = json_object_is_type(psusp, json_type_object);
    if (!has_policy && !sched) {
        json_object_object_del(spec, "suspension");
        return;
    }
    json_object *next = NULL;
    if (has_policy)
        json_object_deep_copy(psusp, &next, NULL);
    else
        next = json_object_new_object();
    if (sched)
        json_object_object_add(next, "scheduling", json_object_get(sched));
    json_object_object_add(spec, "suspension", next);
}

/* Fills the spec fields the detector owns from the template and the policy. */
static void fill_rb_spec(struct sim_karmada *k, json_object *spec, json_object *obj,
                         json_object *policy)
{
    json_object *res = json_object_new_object();
    static const char *const keys[] = {"apiVersion", "kind"};
    for (size_t i = 0; i < 2; i++)
        json_object_object_add(res, keys[i],
                               json_object_new_string(sim__get_str(obj, keys[i], NULL, NULL)));
    static const char *const meta[] = {"namespace", "name", "uid", "resourceVersion"};
    for (size_t i = 0; i < 4; i++)
        json_object_object_add(res, meta[i], json_object_new_string(sim_meta_str(obj, meta[i])));
    json_object_object_add(spec, "resource", res);

    const char *av = sim__get_str(obj, "apiVersion", NULL, NULL);
    if (strcmp(av, "batch.volcano.sh/v1alpha1") == 0) {
        /* applyReplicaInterpretation (detector.go): components only with the
         * MultiplePodTemplatesScheduling gate; the Volcano Job customization has no replica
         * interpretation, so with the gate off (Karmada's default) the RB has no replicas,
         * replicaRequirements or components at all. */
        json_object_object_del(spec, "replicas");
        json_object_object_del(spec, "replicaRequirements");
        if (k->opts.multiple_pod_templates)
            json_object_object_add(spec, "components", sim_karmada_vcjob_components(obj));
        else
            json_object_object_del(spec, "components");
    } else if (sim__is_kind19(obj)) {
        /* No replica interpretation for issue 19's kinds; components only under the gate, and
         * only for the kinds a thirdparty customization interprets (interpret_kinds.c). */
        json_object_object_del(spec, "replicas");
        json_object_object_del(spec, "replicaRequirements");
        json_object *comps = k->opts.multiple_pod_templates ? sim__kind19_components(obj) : NULL;
        if (comps)
            json_object_object_add(spec, "components", comps);
        else
            json_object_object_del(spec, "components");
    } else {
        struct pod_set ps[1];
        if (sim__workload_pods(k, obj, ps, 1) == 1) {
            json_object_object_add(spec, "replicas", json_object_new_int64(ps[0].replicas));
            json_object *rr = json_object_new_object();
            json_object_object_add(rr, "resourceRequest", sim_karmada_pod_requests(ps[0].spec));
            const char *pc = sim__get_str(ps[0].spec, "priorityClassName", NULL, NULL);
            if (pc)
                json_object_object_add(rr, "priorityClassName", json_object_new_string(pc));
            json_object *claim = json_object_new_object();
            json_object *v = sim__get_path(ps[0].spec, "nodeSelector", NULL, NULL);
            if (v)
                copy_into(claim, "nodeSelector", v);
            v = sim__get_path(ps[0].spec, "tolerations", NULL, NULL);
            if (v)
                copy_into(claim, "tolerations", v);
            v = sim__get_path(ps[0].spec, "affinity", "nodeAffinity",
                              "requiredDuringSchedulingIgnoredDuringExecution");
            if (v)
                copy_into(claim, "hardNodeAffinity", v);
            if (json_object_object_length(claim))
                json_object_object_add(rr, "nodeClaim", claim);
            else
                json_object_put(claim);
            json_object_object_add(rr, "namespace",
                                   json_object_new_string(sim_meta_str(obj, "namespace")));
            json_object_object_add(spec, "replicaRequirements", rr);
        }
    }
    copy_into(spec, "placement", sim__get_path(policy, "spec", "placement", NULL));
    const char *sched = sim__get_str(policy, "spec", "schedulerName", NULL);
    json_object_object_add(spec, "schedulerName",
                           json_object_new_string(sched ? sched : "default-scheduler"));
    json_object *cr = sim__get_path(policy, "spec", "conflictResolution", NULL);
    json_object_object_add(spec, "conflictResolution",
                           cr ? json_object_get(cr) : json_object_new_string("Abort"));
}

void sim__detect(struct sim_karmada *k, json_object *obj)
{
    json_object *policy = find_policy(k, obj);
    if (!policy)
        return; /* Karmada leaves templates no policy claims alone */
    const struct sim_resource *rbr = sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    const char *ns = sim_meta_str(obj, "namespace");
    char name[NAME_MAX_LEN];
    rb_name(obj, name, sizeof(name));
    json_object *cur = NULL;
    if (sim_store_get(k->store, rbr, ns, name, &cur, NULL) == 0) {
        /* Refresh (ApplyPolicy's CreateOrUpdate): the detector rewrites what it owns, resets
         * the suspension's dispatching part to the policy's (MergePolicySuspension), and keeps
         * suspension.scheduling, clusters and everything else the scheduler or muster wrote. */
        json_object *next = NULL;
        json_object_deep_copy(cur, &next, NULL);
        json_object *spec = sim__get_path(next, "spec", NULL, NULL);
        if (!spec) {
            spec = json_object_new_object();
            json_object_object_add(next, "spec", spec);
        }
        fill_rb_spec(k, spec, obj, policy);
        merge_policy_suspension(spec, policy);
        if (!sim_meta_str(next, "deletionTimestamp"))
            add_finalizer(next, BINDING_FINALIZER);
        sim_store_update(k->store, rbr, ns, name, next, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL,
                         NULL);
        json_object_put(next);
        json_object_put(cur);
        json_object_put(policy);
        return;
    }
    json_object *rb = json_object_new_object();
    json_object *meta = json_object_new_object();
    json_object_object_add(meta, "name", json_object_new_string(name));
    json_object *labels = json_object_new_object();
    char uid[40];
    sim_uuid(uid, sizeof(uid));
    json_object_object_add(labels, PERMANENT_ID_LABEL, json_object_new_string(uid));
    const char *ppid =
        sim__get_str(policy, "metadata", "labels", "propagationpolicy.karmada.io/permanent-id");
    if (ppid)
        json_object_object_add(labels, "propagationpolicy.karmada.io/permanent-id",
                               json_object_new_string(ppid));
    json_object_object_add(meta, "labels", labels);
    json_object *ann = json_object_new_object();
    json_object_object_add(ann, "propagationpolicy.karmada.io/name",
                           json_object_new_string(sim_meta_str(policy, "name")));
    json_object_object_add(ann, "propagationpolicy.karmada.io/namespace",
                           json_object_new_string(ns));
    json_object_object_add(meta, "annotations", ann);
    json_object *owners = json_object_new_array();
    json_object *owner = json_object_new_object();
    json_object_object_add(owner, "apiVersion",
                           json_object_new_string(sim__get_str(obj, "apiVersion", NULL, NULL)));
    json_object_object_add(owner, "kind",
                           json_object_new_string(sim__get_str(obj, "kind", NULL, NULL)));
    json_object_object_add(owner, "name", json_object_new_string(sim_meta_str(obj, "name")));
    json_object_object_add(owner, "uid", json_object_new_string(sim_meta_str(obj, "uid")));
    json_object_object_add(owner, "controller", json_object_new_boolean(1));
    json_object_object_add(owner, "blockOwnerDeletion", json_object_new_boolean(1));
    json_object_array_add(owners, owner);
    json_object_object_add(meta, "ownerReferences", owners);
    /* BuildResourceBinding: the binding controller's finalizer, so the RB's Works are deleted
     * before it goes (and its deletionTimestamp is seen first). */
    json_object *fin = json_object_new_array();
    json_object_array_add(fin, json_object_new_string(BINDING_FINALIZER));
    json_object_object_add(meta, "finalizers", fin);
    json_object_object_add(rb, "metadata", meta);
    json_object *spec = json_object_new_object();
    fill_rb_spec(k, spec, obj, policy);
    /* BuildResourceBinding copies the policy's suspension. */
    json_object *psusp = sim__get_path(policy, "spec", "suspension", NULL);
    if (json_object_is_type(psusp, json_type_object))
        copy_into(spec, "suspension", psusp);
    json_object_object_add(rb, "spec", spec);
    sim__admit_binding(k, ns, rb);
    json_object_put(rb);
    json_object_put(policy);
}

void sim__forget_workload(struct sim_karmada *k, json_object *obj)
{
    /* Garbage collection of the owned RB (the binding controller then removes its Works). */
    const struct sim_resource *rbr = sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    char name[NAME_MAX_LEN];
    rb_name(obj, name, sizeof(name));
    const char *ns = sim_meta_str(obj, "namespace");
    json_object *rb = NULL;
    if (sim_store_get(k->store, rbr, ns, name, &rb, NULL) < 0)
        return;
    json_object *owner =
        json_object_array_get_idx(sim__get_path(rb, "metadata", "ownerReferences", NULL), 0);
    const char *ouid = sim__get_str(owner, "uid", NULL, NULL);
    if (ouid && strcmp(ouid, sim_meta_str(obj, "uid")) == 0)
        sim_store_delete(k->store, rbr, ns, name, NULL, NULL, sim__clock_now(k), NULL, NULL);
    json_object_put(rb);
}

struct each_workload {
    struct sim_karmada *k;
    const struct sim_resource *r;
    const char *ns;
};

static void detect_one(void *data, json_object *obj)
{
    struct each_workload *e = data;
    const char *ns = sim_meta_str(obj, "namespace");
    if (ns && strcmp(ns, e->ns) == 0)
        sim__detect(e->k, obj);
}

void sim__policy_changed(struct sim_karmada *k, json_object *policy)
{
    for (size_t i = 0; i < sim_resource_count(); i++) {
        const struct sim_resource *r = sim_resource_at(i);
        if (!sim__is_workload(r))
            continue;
        struct each_workload e = {k, r, sim_meta_str(policy, "namespace")};
        sim_store_each(k->store, r, detect_one, &e);
    }
}
