/* What the informers cache of a resource template and of a ResourceBinding (see
 * workload_prune.h): the objects pruned to what workload.c and gang.c read of them. */
#include "cluster-adapters/karmada/workload_prune.h"

#include "cluster-adapters/karmada/gang_nettopo.h"
#include "cluster-adapters/karmada/groups.h"
#include "cluster-adapters/karmada/webhook.h"
#include "cluster-adapters/karmada/workload_kinds.h"
#include "cluster-adapters/kube/json.h"

#include <string.h>

#define QKEY(k) k,

/* ---- what the informers keep: objects pruned to what is read here and in gang.c ---- */

/* obj[key] (JSON null included) added to dst under the same, static, key; 0 when absent.
 * Values are shared, not copied: the pruned object is what survives of the original. */
static int keep(json_object *dst, json_object *src, const char *key)
{
    json_object *v;
    if (!json_object_is_type(src, json_type_object) || !json_object_object_get_ex(src, key, &v))
        return 0;
    if (json_object_object_add_ex(dst, key, json_object_get(v), JSON_C_OBJECT_ADD_CONSTANT_KEY) ==
        0)
        return 0;
    json_object_put(v);
    return -1;
}

/* dst[key] = val, taking val; -1 (val released) when val is NULL or the add fails. */
static int put_new(json_object *dst, const char *key, json_object *val)
{
    if (!val || json_object_object_add_ex(dst, key, val, JSON_C_OBJECT_ADD_CONSTANT_KEY)) {
        json_object_put(val);
        return -1;
    }
    return 0;
}

/* The keys a template's or a binding's labels and annotations are read for (read_queue,
 * annotation()). */
static const char *const meta_keys[] = {
    KARMADA_WORKLOAD_QUEUE_KEYS(QKEY) KARMADA_WORKLOAD_POD_META_KEYS(QKEY)
        KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION,
    KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, KARMADA_WORKLOAD_ELASTIC_ANNOTATION,
    KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION,
    /* issue 20's topology (workload_groups.c) */
    KARMADA_GROUPS_TOPOLOGY_REQUIRED, KARMADA_GROUPS_TOPOLOGY_PREFERRED,
    KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED, KARMADA_GROUPS_GROUP_TOPOLOGY_PREFERRED,
    KARMADA_GROUPS_SPREAD_REQUIRED, KARMADA_GROUPS_SPREAD_PREFERRED,
    /* ... and inside a member (gang_nettopo.c) */
    KARMADA_NETTOPO_REQUIRED, KARMADA_NETTOPO_PREFERRED, KARMADA_NETTOPO_GROUP_REQUIRED,
    KARMADA_NETTOPO_GROUP_PREFERRED};
#define NMETA_KEYS (sizeof(meta_keys) / sizeof(meta_keys[0]))

/* The keys of a pod template's labels and annotations read by the gang dialects
 * (workload_dialects.c). */
static const char *const pod_keys[] = {KARMADA_WORKLOAD_POD_META_KEYS(QKEY)};
#define NPOD_KEYS (sizeof(pod_keys) / sizeof(pod_keys[0]))

/* md[where] with only keys[0..n). An object stays an object even when nothing is left: gang.c
 * shapes its OverridePolicy by whether a pod's annotations exist. Not an object: kept as is. */
static int keep_keys(json_object *dst, json_object *md, const char *where, const char *const *keys,
                     size_t n)
{
    json_object *v;
    if (!json_object_object_get_ex(md, where, &v))
        return 0;
    if (!json_object_is_type(v, json_type_object))
        return keep(dst, md, where);
    json_object *out = json_object_new_object();
    int bad = !out;
    for (size_t i = 0; !bad && i < n; i++)
        bad = keep(out, v, keys[i]);
    if (bad) {
        json_object_put(out);
        return -1;
    }
    return put_new(dst, where, out);
}

static int keep_meta_keys(json_object *dst, json_object *md, const char *where)
{
    return keep_keys(dst, md, where, meta_keys, NMETA_KEYS);
}

/* metadata: identity and version, and the labels and annotations muster reads. */
static json_object *prune_meta(json_object *md)
{
    static const char *const ids[] = {"name", "namespace", "uid", "resourceVersion", "generation"};
    json_object *out = json_object_new_object();
    int bad = !out;
    for (size_t i = 0; !bad && i < sizeof(ids) / sizeof(ids[0]); i++)
        bad = keep(out, md, ids[i]);
    if (!bad)
        bad = keep_meta_keys(out, md, "labels") || keep_meta_keys(out, md, "annotations");
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* A pod spec (or a Volcano Job's spec): only what read_priority and read_components read, kept
 * an object so karmada_gang_input_check still finds a pod spec. */
static json_object *prune_spec(json_object *spec, int top);

/* spec.template of a Deployment, StatefulSet or Job: its metadata (labels and annotations with
 * only the gang dialects' keys: gang.c only asks whether annotations exist) and its pod spec's
 * priorityClassName. */
static json_object *prune_pod_template(json_object *t)
{
    if (!json_object_is_type(t, json_type_object))
        return json_object_get(t);
    json_object *out = json_object_new_object(), *md, *spec;
    int bad = !out;
    if (!bad && json_object_object_get_ex(t, "metadata", &md)) {
        if (!json_object_is_type(md, json_type_object)) {
            bad = keep(out, t, "metadata");
        } else {
            json_object *m = json_object_new_object();
            bad = !m || keep_keys(m, md, "labels", pod_keys, NPOD_KEYS) ||
                  keep_keys(m, md, "annotations", pod_keys, NPOD_KEYS);
            if (bad)
                json_object_put(m);
            else
                bad = put_new(out, "metadata", m);
        }
    }
    if (!bad && json_object_object_get_ex(t, "spec", &spec))
        bad = spec ? put_new(out, "spec", prune_spec(spec, 0)) : keep(out, t, "spec");
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* arr with each object element replaced by prune(element) (others kept as they are); arr
 * itself when it is no array, NULL when out of memory. */
static json_object *prune_each(json_object *arr, json_object *(*prune)(json_object *))
{
    if (!json_object_is_type(arr, json_type_array))
        return json_object_get(arr);
    size_t n = json_object_array_length(arr);
    json_object *out = json_object_new_array_ext((int)(n ? n : 1));
    int bad = !out;
    for (size_t i = 0; !bad && i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        json_object *p = json_object_is_type(e, json_type_object) ? prune(e) : json_object_get(e);
        if ((e && !p) || json_object_array_add(out, p)) {
            json_object_put(p);
            bad = 1;
        }
    }
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* A Volcano Job task: its name, replicas, minAvailable, partitionPolicy (Volcano v1.14's
 * partitions: karmada__vcjob_task_min) and pruned pod template. */
static json_object *prune_task(json_object *t)
{
    json_object *p = json_object_new_object(), *tt;
    if (p && (keep(p, t, "name") || keep(p, t, "replicas") || keep(p, t, "minAvailable") ||
              keep(p, t, "partitionPolicy") ||
              (json_object_object_get_ex(t, "template", &tt) &&
               (tt ? put_new(p, "template", prune_pod_template(tt)) : keep(p, t, "template"))))) {
        json_object_put(p);
        p = NULL;
    }
    return p;
}

/* A pod spec's container or init container: its resources only (read_template_requests). */
static json_object *prune_container(json_object *ct)
{
    json_object *p = json_object_new_object();
    if (p && keep(p, ct, "resources")) {
        json_object_put(p);
        p = NULL;
    }
    return p;
}

static json_object *prune_spec(json_object *spec, int top)
{
    if (!json_object_is_type(spec, json_type_object))
        return json_object_get(spec);
    json_object *out = json_object_new_object(), *v;
    int bad = !out || keep(out, spec, "priorityClassName");
    /* the scheduler the pods name: a template already naming muster's PodGroup and its
     * scheduler needs no OverridePolicy (karmada_gang_policy_redundant) */
    bad = bad || keep(out, spec, "schedulerName");
    /* the Workload API's PodGroup reference (read_scheduling_group); top: a Pod's own spec */
    bad = bad || keep(out, spec, KARMADA_WORKLOAD_SCHEDULING_GROUP);
    static const char *const lists[] = {"containers", "initContainers"};
    for (int l = 0; l < 2 && !bad; l++)
        if (json_object_object_get_ex(spec, lists[l], &v))
            bad = v ? put_new(out, lists[l], prune_each(v, prune_container))
                    : keep(out, spec, lists[l]);
    if (top) {
        /* a Volcano Job's (read_components, read_min_member, read_queue) */
        bad = bad || keep(out, spec, "minAvailable") || keep(out, spec, "queue");
        /* a StatefulSet's (read_statefulset) */
        bad = bad || keep(out, spec, "podManagementPolicy");
        if (!bad && json_object_object_get_ex(spec, "tasks", &v))
            bad = v ? put_new(out, "tasks", prune_each(v, prune_task)) : keep(out, spec, "tasks");
        /* a Deployment's or Job's pod template */
        if (!bad && json_object_object_get_ex(spec, "template", &v))
            bad = v ? put_new(out, "template", prune_pod_template(v)) : keep(out, spec, "template");
    }
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

json_object *karmada_workload_prune_template(json_object *tmpl)
{
    json_object *md, *spec;
    if (!json_object_is_type(tmpl, json_type_object) ||
        !json_object_object_get_ex(tmpl, "metadata", &md) ||
        !json_object_is_type(md, json_type_object))
        return json_object_get(tmpl); /* not a shape to prune: the read will say what is wrong */
    json_object *out = json_object_new_object();
    int bad = !out || keep(out, tmpl, "apiVersion") || keep(out, tmpl, "kind") ||
              put_new(out, "metadata", prune_meta(md));
    /* Issue 19's kinds keep their spec whole: their pod templates sit at a different path per
     * kind (workload_kinds.c), and such objects are few and seldom large. */
    int whole =
        karmada__workload_kinds_of(kube_json_str(tmpl, "apiVersion"),
                                   kube_json_str(tmpl, "kind")) != KARMADA_WORKLOAD_KIND_NONE;
    if (!bad && json_object_object_get_ex(tmpl, "spec", &spec))
        bad = spec && !whole ? put_new(out, "spec", prune_spec(spec, 1)) : keep(out, tmpl, "spec");
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* The labels of a binding muster reads: the queue keys, Karmada's permanent id (read_links) and
 * the skip label (karmada_webhook_rb_verdict). */
static const char *const rb_label_keys[] = {KARMADA_WORKLOAD_QUEUE_KEYS(QKEY)
                                                KARMADA_WORKLOAD_PERMANENT_ID_LABEL,
                                            KARMADA_WEBHOOK_SKIP_LABEL};

/* Object o keeps only keys[0..n); returns how many of them it holds, or -1 when it holds more
 * other keys than can be noted (it is then left whole: kept is always safe). */
static int keep_only(json_object *o, const char *const *keys, size_t n)
{
    const char *drop[64];
    size_t ndrop = 0;
    int nkept = 0;
    json_object_object_foreach(o, k, val)
    {
        (void)val;
        size_t i = 0;
        while (i < n && strcmp(keys[i], k) != 0)
            i++;
        if (i < n)
            nkept++;
        else if (ndrop < sizeof(drop) / sizeof(drop[0]))
            drop[ndrop++] = k;
        else
            return -1;
    }
    for (size_t i = 0; i < ndrop; i++)
        json_object_object_del(o, drop[i]);
    return nkept;
}

/* md[where] filtered in place to keys[0..n) when it is an object; dropped when nothing is left. */
static void filter_in_place(json_object *md, const char *where, const char *const *keys, size_t n)
{
    json_object *v;
    if (!json_object_object_get_ex(md, where, &v) || !json_object_is_type(v, json_type_object))
        return;
    if (keep_only(v, keys, n) == 0)
        json_object_object_del(md, where);
}

json_object *karmada_workload_prune_binding(json_object *rb)
{
    json_object *md;
    if (json_object_is_type(rb, json_type_object) &&
        json_object_object_get_ex(rb, "metadata", &md) &&
        json_object_is_type(md, json_type_object)) {
        /* what the API server keeps for itself and for garbage collection */
        json_object_object_del(md, "managedFields");
        json_object_object_del(md, "ownerReferences");
        filter_in_place(md, "labels", rb_label_keys,
                        sizeof(rb_label_keys) / sizeof(rb_label_keys[0]));
        filter_in_place(md, "annotations", meta_keys, NMETA_KEYS);
    }
    return json_object_get(rb);
}

/* Deletes key k from every object element of array a. */
static void del_in_each(json_object *a, const char *k)
{
    if (!json_object_is_type(a, json_type_array))
        return;
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        json_object *e = json_object_array_get_idx(a, i);
        if (json_object_is_type(e, json_type_object))
            json_object_object_del(e, k);
    }
}

static const char *const phase_key[] = {"phase"};
static const char *const condition_keys[] = {"type", "status", "message"};

json_object *karmada_workload_prune_work(json_object *work)
{
    json_object *md, *v;
    if (!json_object_is_type(work, json_type_object))
        return json_object_get(work);
    if (json_object_object_get_ex(work, "metadata", &md) &&
        json_object_is_type(md, json_type_object)) {
        json_object_object_del(md, "managedFields");
        json_object_object_del(md, "ownerReferences");
    }
    /* the manifest's metadata is the Work webhook's and Karmada's to change: muster compares
     * the PodGroup's spec only (reconcile.c's objects_done and resize_due) */
    if (json_object_object_get_ex(work, "spec", &v) && json_object_is_type(v, json_type_object) &&
        json_object_object_get_ex(v, "workload", &v) && json_object_is_type(v, json_type_object) &&
        json_object_object_get_ex(v, "manifests", &v))
        del_in_each(v, "metadata");
    json_object *st;
    if (json_object_object_get_ex(work, "status", &st) &&
        json_object_is_type(st, json_type_object)) {
        /* of each manifest's status muster reads the member object's status: a Volcano or
         * coscheduling PodGroup's phase alone (its conditions, counts and times are a json-c
         * object each, kept for every running gang), a Workload API PodGroup's conditions (it
         * has no phase: karmada_gang_work_podgroup_phase) */
        if (json_object_object_get_ex(st, "manifestStatuses", &v)) {
            del_in_each(v, "identifier");
            del_in_each(v, "health");
            for (size_t i = 0; json_object_is_type(v, json_type_array) &&
                               i < json_object_array_length(v);
                 i++) {
                json_object *ms = kube_json_get(json_object_array_get_idx(v, i), "status");
                if (json_object_is_type(kube_json_get(ms, "phase"), json_type_string))
                    (void)keep_only(ms, phase_key, 1);
            }
        }
        /* of the Work's conditions: which, whether, and the sentence the gang timeout quotes
         * (loop.c) */
        if (json_object_object_get_ex(st, "conditions", &v) &&
            json_object_is_type(v, json_type_array))
            for (size_t i = 0; i < json_object_array_length(v); i++) {
                json_object *cd = json_object_array_get_idx(v, i);
                if (json_object_is_type(cd, json_type_object))
                    (void)keep_only(cd, condition_keys, 3);
            }
    }
    return json_object_get(work);
}
