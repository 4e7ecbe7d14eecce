/* Karmada's binding controller: RBs rendered into Works (with OverridePolicies applied),
 * Works no longer wanted removed. */
#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/rbstatus.h"
#include "cluster-adapters/sim/detector.h"
#include "cluster-adapters/sim/binding.h"
#include "cluster-adapters/sim/override.h"

#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/quantity.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/sim/work_webhook.h"
#include "queue/errors.h"
#include "queue/hash.h"
#include "queue/search.h"
#include "queue/mem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* names.GenerateWorkName (pkg/util/names/names.go): "<name>-<hash>", the hash being FNV-32a
 * of hashutil.DeepHashObject's rendering of the string lower("<ns>-<name>-<kind>") (spew's
 * %#v, which for a string is fmt's: the string double-quoted) and the decimal digits of it
 * mapped through rand.SafeEncodeString's alphabet. */
void sim__work_name(json_object *rb, char *buf, size_t cap)
{
    const char *ns = sim__get_str(rb, "spec", "resource", "namespace");
    const char *name = sim__get_str(rb, "spec", "resource", "name");
    const char *kind = sim__get_str(rb, "spec", "resource", "kind");
    char lname[NAME_MAX_LEN], key[3 * NAME_MAX_LEN + 4];
    snprintf(lname, sizeof(lname), "%s", name ? name : "");
    for (char *p = lname; *p; p++)
        *p = *p == ':' ? '.' : (char)tolower((unsigned char)*p);
    if (ns && ns[0])
        snprintf(key, sizeof(key), "\"%s-%s-%s\"", ns, lname, kind ? kind : "");
    else
        snprintf(key, sizeof(key), "\"%s-%s\"", lname, kind ? kind : "");
    for (char *p = key; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    uint32_t h = queue_hash_fnv1a32(QUEUE_HASH_FNV32_BASIS, key, strlen(key));
    char digits[16], enc[16];
    snprintf(digits, sizeof(digits), "%" PRIu32, h);
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    size_t n = strlen(digits);
    for (size_t i = 0; i < n; i++)
        enc[i] = alphabet[(unsigned char)digits[i] % (sizeof(alphabet) - 1)];
    enc[n] = '\0';
    snprintf(buf, cap, "%.200s-%s", lname, enc);
}

/* The template of rb for cluster target: revised replicas, overrides applied (each applied rule
 * appended to applied). *tmpl_gen and tmpl_uid get the template's generation and uid. */
static json_object *render_manifest(struct sim_karmada *k, json_object *rb, json_object *target,
                                    json_object *applied, int64_t *tmpl_gen, char *tmpl_uid,
                                    size_t uidcap)
{
    const char *av = sim__get_str(rb, "spec", "resource", "apiVersion");
    const char *kind = sim__get_str(rb, "spec", "resource", "kind");
    const char *ns = sim__get_str(rb, "spec", "resource", "namespace");
    const char *name = sim__get_str(rb, "spec", "resource", "name");
    const struct sim_resource *r = sim_resource_by_kind(av, kind);
    json_object *tmpl = NULL;
    if (!r || !name || sim_store_get(k->store, r, r->namespaced ? ns : NULL, name, &tmpl, NULL) < 0)
        return NULL;
    /* The template is read-only: new objects for the levels edited here (the top, metadata,
     * spec), references to the rest; overriders copy what they patch. */
    json_object *copy = sim__shallow_copy(tmpl);
    json_object *meta = sim__shallow_copy(sim__get_path(tmpl, "metadata", NULL, NULL));
    json_object *spec = sim__shallow_copy(sim__get_path(tmpl, "spec", NULL, NULL));
    json_object *g = sim__get_path(tmpl, "metadata", "generation", NULL);
    *tmpl_gen = g ? json_object_get_int64(g) : 0;
    const char *tuid = sim_meta_str(tmpl, "uid");
    snprintf(tmpl_uid, uidcap, "%s", tuid ? tuid : "");
    json_object_put(tmpl);
    if (!copy || !meta) {
        json_object_put(copy);
        json_object_put(meta);
        json_object_put(spec);
        return NULL;
    }
    json_object_object_add(copy, "metadata", meta);
    if (spec)
        json_object_object_add(copy, "spec", spec);
    static const char *const strip[] = {"uid",        "resourceVersion", "creationTimestamp",
                                        "generation", "managedFields",   "ownerReferences",
                                        "selfLink"};
    for (size_t i = 0; i < sizeof(strip) / sizeof(strip[0]); i++)
        json_object_object_del(meta, strip[i]);
    json_object_object_del(copy, "status");
    /* Divided placement: the member runs its share. */
    json_object *replicas = sim__get_path(target, "replicas", NULL, NULL);
    if (replicas && spec && strcmp(av, "apps/v1") == 0 &&
        (strcmp(kind, "Deployment") == 0 || strcmp(kind, "StatefulSet") == 0))
        json_object_object_add(spec, "replicas", json_object_get(replicas));
    else if (replicas && spec && strcmp(av, "batch/v1") == 0 && strcmp(kind, "Job") == 0)
        json_object_object_add(spec, "parallelism", json_object_get(replicas));
    sim__apply_overrides(k, ns, sim__get_str(target, "name", NULL, NULL), &copy, applied);
    return copy;
}

static int dispatching_suspended(json_object *rb, const char *cluster)
{
    json_object *d = sim__get_path(rb, "spec", "suspension", "dispatching");
    if (d && json_object_get_boolean(d))
        return 1;
    json_object *on = sim__get_path(rb, "spec", "suspension", "dispatchingOnClusters");
    return on && sim__cluster_listed(sim__get_path(on, "clusterNames", NULL, NULL), cluster);
}

/* A new object holding references to o's members (an empty one when o is not an object). */
static json_object *level(json_object *o)
{
    json_object *c = sim__shallow_copy(o);
    return c ? c : json_object_new_object();
}

static void put_str(json_object *map, const char *key, const char *value)
{
    json_object_object_add(map, key, json_object_new_string(value ? value : ""));
}

static int applied_cmp(const void *a, const void *b)
{
    const char *x = sim__get_str(*(json_object *const *)a, "policyName", NULL, NULL);
    const char *y = sim__get_str(*(json_object *const *)b, "policyName", NULL, NULL);
    return strcmp(x ? x : "", y ? y : "");
}

/* ensureWork (pkg/controllers/binding/common.go) for one target cluster, then
 * ctrlutil.CreateOrUpdateWork (pkg/controllers/ctrlutil/work.go): the Work named by
 * names.GenerateWorkName in karmada-es-<cluster>, with the execution controller's finalizer, the
 * RB's permanent id, its name and namespace, the conflict resolution and the applied overrides
 * (policy.karmada.io/applied-overrides, only when a policy applied); the manifest labelled
 * karmada.io/managed and annotated with the Work's name and namespace. An existing Work keeps
 * its labels, annotations and finalizers (merged, never removed); one being deleted is left
 * alone ("work is being deleted"). */
static void ensure_work(struct sim_karmada *k, json_object *rb, json_object *target)
{
    const char *cluster = sim__get_str(target, "name", NULL, NULL);
    if (!cluster)
        return;
    json_object *applied = json_object_new_array();
    int64_t tgen = 0;
    char tuid[64];
    json_object *manifest = render_manifest(k, rb, target, applied, &tgen, tuid, sizeof(tuid));
    if (!manifest) {
        json_object_put(applied);
        return;
    }
    const struct sim_resource *wr = sim__res_of("work.karmada.io", "v1alpha1", "works");
    char ns[NAME_MAX_LEN], name[NAME_MAX_LEN];
    snprintf(ns, sizeof(ns), WORK_NS_PREFIX "%.200s", cluster);
    sim__ensure_namespace(k, ns);
    sim__work_name(rb, name, sizeof(name));
    const char *rbns = sim_meta_str(rb, "namespace");
    const char *rbname = sim_meta_str(rb, "name");
    const char *pid = sim__get_str(rb, "metadata", "labels", PERMANENT_ID_LABEL);

    /* mergeLabel, mergeAnnotations: on the workload and the Work. */
    json_object *mmeta = sim__get_path(manifest, "metadata", NULL, NULL);
    json_object *mlabels = level(sim__get_path(mmeta, "labels", NULL, NULL));
    json_object *mann = level(sim__get_path(mmeta, "annotations", NULL, NULL));
    json_object_object_add(mmeta, "labels", mlabels);
    json_object_object_add(mmeta, "annotations", mann);
    put_str(mlabels, PERMANENT_ID_LABEL, pid);
    if (tgen > 0) {
        char gbuf[24];
        snprintf(gbuf, sizeof(gbuf), "%" PRId64, tgen);
        put_str(mann, "resourcetemplate.karmada.io/generation", gbuf);
    }
    put_str(mann, "resourcebinding.karmada.io/namespace", rbns);
    put_str(mann, "resourcebinding.karmada.io/name", rbname);
    json_object *wlabels = json_object_new_object(), *wann = json_object_new_object();
    put_str(wlabels, PERMANENT_ID_LABEL, pid);
    put_str(wann, "resourcebinding.karmada.io/namespace", rbns);
    put_str(wann, "resourcebinding.karmada.io/name", rbname);
    /* mergeConflictResolution: the template's annotation wins when valid, else the RB's. */
    const char *crt = sim__get_str(mann, "work.karmada.io/conflict-resolution", NULL, NULL);
    const char *crb = sim__get_str(rb, "spec", "conflictResolution", NULL);
    const char *cr = crt && (strcmp(crt, "overwrite") == 0 || strcmp(crt, "abort") == 0) ? crt
                     : crb && strcmp(crb, "Overwrite") == 0 ? "overwrite"
                                                            : "abort";
    put_str(wann, "work.karmada.io/conflict-resolution", cr);
    /* RecordAppliedOverrides: AppliedOverrides.MarshalJSON, sorted by policy name. */
    size_t napplied = json_object_array_length(applied);
    if (napplied) {
        json_object_array_sort(applied, applied_cmp);
        put_str(wann, "policy.karmada.io/applied-overrides",
                json_object_to_json_string_ext(applied, JSON_C_TO_STRING_PLAIN |
                                                            JSON_C_TO_STRING_NOSLASHESCAPE));
    }
    json_object_put(applied);
    /* CreateOrUpdateWork on the resource. */
    put_str(mlabels, "karmada.io/managed", "true");
    put_str(mann, "resourcetemplate.karmada.io/uid", tuid);
    put_str(mann, "work.karmada.io/name", name);
    put_str(mann, "work.karmada.io/namespace", ns);
    put_str(mann, "work.karmada.io/conflict-resolution", cr);

    json_object *cur = NULL;
    int exists = sim_store_get(k->store, wr, ns, name, &cur, NULL) == 0;
    if (exists && sim_meta_str(cur, "deletionTimestamp")) {
        json_object_put(cur);
        json_object_put(manifest);
        json_object_put(wlabels);
        json_object_put(wann);
        return;
    }
    /* The stored Work is read-only: new levels for what changes, references to the rest. */
    json_object *work = exists ? level(cur) : json_object_new_object();
    json_object *meta = level(sim__get_path(cur, "metadata", NULL, NULL));
    json_object_object_add(work, "metadata", meta);
    if (!exists) {
        put_str(meta, "name", name);
        put_str(meta, "namespace", ns);
    }
    json_object *labels = level(sim__get_path(meta, "labels", NULL, NULL));
    json_object *ann = level(sim__get_path(meta, "annotations", NULL, NULL));
    json_object_object_foreach(wlabels, lk, lv)
    {
        json_object_object_add(labels, lk, json_object_get(lv));
    }
    json_object_object_foreach(wann, ak, av)
    {
        json_object_object_add(ann, ak, json_object_get(av));
    }
    json_object_put(wlabels);
    json_object_put(wann);
    json_object_object_add(meta, "labels", labels);
    json_object_object_add(meta, "annotations", ann);
    json_object *fins = sim__get_path(meta, "finalizers", NULL, NULL);
    int has_fin = 0;
    size_t nfins = json_object_is_type(fins, json_type_array) ? json_object_array_length(fins) : 0;
    for (size_t i = 0; i < nfins && !has_fin; i++)
        has_fin = strcmp(json_object_get_string(json_object_array_get_idx(fins, i)),
                         EXECUTION_FINALIZER) == 0;
    if (!has_fin) {
        json_object *next = json_object_new_array();
        for (size_t i = 0; i < nfins; i++)
            json_object_array_add(next, json_object_get(json_object_array_get_idx(fins, i)));
        json_object_array_add(next, json_object_new_string(EXECUTION_FINALIZER));
        json_object_object_add(meta, "finalizers", next);
    }
    /* SetLabelsAndAnnotationsForWorkload with the Work's permanent id as it stands (the Work
     * webhook does the same on every write, so an unchanged render writes nothing). */
    json_object *shaped = sim_work_webhook_manifest(
        manifest, sim__get_str(labels, "work.karmada.io/permanent-id", NULL, NULL));
    json_object_put(manifest);
    json_object *spec = json_object_new_object();
    json_object *wl = json_object_new_object();
    json_object *manifests = json_object_new_array();
    if (shaped)
        json_object_array_add(manifests, shaped);
    json_object_object_add(wl, "manifests", manifests);
    json_object_object_add(spec, "workload", wl);
    if (dispatching_suspended(rb, cluster))
        json_object_object_add(spec, "suspendDispatching", json_object_new_boolean(1));
    json_object_object_add(work, "spec", spec);
    if (exists)
        sim_store_update(k->store, wr, ns, name, work, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL,
                         NULL);
    else
        sim_store_create(k->store, wr, ns, work, sim__clock_now(k),
                         SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL, NULL);
    json_object_put(cur);
    json_object_put(work);
}

/* Deletes the Works labelled with permanent id pid outside the clusters listed in keep (NULL:
 * delete all of them). */
static int ref_cmp(const char *pid, const char *key, const struct pid_ref *r)
{
    int c = strcmp(pid, r->pid);
    return c ? c : strcmp(key, r->key);
}

/* Index of the first ref >= (pid, key). */
struct ref_probe {
    const struct sim_karmada *k;
    const char *pid, *key;
};

static int ref_at_cmp(const void *ctx, size_t i)
{
    const struct ref_probe *p = ctx;
    int c = ref_cmp(p->pid, p->key, &p->k->refs[i]); /* the key against the ref: flip it */
    return (c < 0) - (c > 0);
}

static size_t ref_lower_bound(const struct sim_karmada *k, const char *pid, const char *key)
{
    struct ref_probe p = {k, pid, key};
    return queue_search_lower(0, k->nrefs, ref_at_cmp, &p);
}

static void ref_add(struct sim_karmada *k, const char *pid, const char *key)
{
    size_t i = ref_lower_bound(k, pid, key);
    if (i < k->nrefs && ref_cmp(pid, key, &k->refs[i]) == 0)
        return;
    if (k->nrefs == k->caprefs) {
        size_t cap = k->caprefs ? k->caprefs * 2 : 64;
        struct pid_ref *v = muster_realloc(k->refs, cap * sizeof(*v));
        if (!v)
            return; /* the Work is then not pruned; the simulation degrades, never crashes */
        k->refs = v;
        k->caprefs = cap;
    }
    char *p = muster_strdup(pid), *kk = muster_strdup(key);
    if (!p || !kk) {
        muster_free(p);
        muster_free(kk);
        return;
    }
    memmove(&k->refs[i + 1], &k->refs[i], (k->nrefs - i) * sizeof(*k->refs));
    k->refs[i].pid = p;
    k->refs[i].key = kk;
    k->nrefs++;
}

static void ref_remove(struct sim_karmada *k, const char *pid, const char *key)
{
    size_t i = ref_lower_bound(k, pid, key);
    if (i == k->nrefs || ref_cmp(pid, key, &k->refs[i]) != 0)
        return;
    muster_free(k->refs[i].pid);
    muster_free(k->refs[i].key);
    memmove(&k->refs[i], &k->refs[i + 1], (k->nrefs - i - 1) * sizeof(*k->refs));
    k->nrefs--;
}

/* Keeps the permanent-id index in step with a Work event. */
void sim__index_work(struct sim_karmada *k, const struct sim_event *ev)
{
    const char *ns = sim_meta_str(ev->obj, "namespace");
    const char *name = sim_meta_str(ev->obj, "name");
    if (!ns || !name)
        return;
    char key[2 * NAME_MAX_LEN];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    const char *pid = sim__get_str(ev->obj, "metadata", "labels", PERMANENT_ID_LABEL);
    const char *old =
        ev->prev ? sim__get_str(ev->prev, "metadata", "labels", PERMANENT_ID_LABEL) : NULL;
    if (old && (ev->type == SIM_EVENT_DELETED || !pid || strcmp(old, pid) != 0))
        ref_remove(k, old, key);
    if (pid && ev->type == SIM_EVENT_DELETED)
        ref_remove(k, pid, key);
    else if (pid)
        ref_add(k, pid, key);
}

size_t sim__binding_work_keys(struct sim_karmada *k, const char *pid,
                              char (**keys)[2 * NAME_MAX_LEN])
{
    *keys = NULL;
    size_t i = ref_lower_bound(k, pid, ""), n = 0;
    while (i + n < k->nrefs && strcmp(k->refs[i + n].pid, pid) == 0)
        n++;
    if (!n)
        return 0;
    *keys = muster_malloc(n * sizeof(**keys));
    if (!*keys)
        return 0;
    for (size_t j = 0; j < n; j++)
        snprintf((*keys)[j], sizeof((*keys)[j]), "%s", k->refs[i + j].key);
    return n;
}

/* Deletes the Works labelled with permanent id pid outside the clusters listed in keep (NULL:
 * delete all of them). */
void sim__prune_works(struct sim_karmada *k, const char *pid, json_object *keep)
{
    size_t i = ref_lower_bound(k, pid, ""), n = 0;
    while (i + n < k->nrefs && strcmp(k->refs[i + n].pid, pid) == 0)
        n++;
    if (!n)
        return;
    /* Deleting edits the index (through the DELETED events): work on a copy of the keys. */
    char(*keys)[2 * NAME_MAX_LEN] = muster_malloc(n * sizeof(*keys));
    if (!keys)
        return;
    for (size_t j = 0; j < n; j++)
        snprintf(keys[j], sizeof(keys[j]), "%s", k->refs[i + j].key);
    const struct sim_resource *wr = sim__res_of("work.karmada.io", "v1alpha1", "works");
    size_t plen = strlen(WORK_NS_PREFIX);
    for (size_t j = 0; j < n; j++) {
        char *slash = strchr(keys[j], '/');
        if (!slash)
            continue;
        *slash = '\0';
        const char *ns = keys[j];
        if (strncmp(ns, WORK_NS_PREFIX, plen) != 0)
            continue;
        if (keep && sim__cluster_listed(keep, ns + plen))
            continue;
        sim_store_delete(k->store, wr, ns, slash + 1, NULL, NULL, sim__clock_now(k), NULL, NULL);
    }
    muster_free(keys);
}

/* Removes finalizer fin from obj of resource r, as the controller that owns it does once its
 * clean-up is done (the store deletes an object being deleted whose finalizers are gone).
 * Nothing is written when obj does not carry fin. */
void sim__finalizer_remove(struct sim_karmada *k, const struct sim_resource *r, json_object *obj,
                           const char *fin)
{
    json_object *fins = sim__get_path(obj, "metadata", "finalizers", NULL);
    size_t n = json_object_is_type(fins, json_type_array) ? json_object_array_length(fins) : 0;
    json_object *next = json_object_new_array();
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(fins, i);
        if (strcmp(json_object_get_string(f), fin) == 0)
            found = 1;
        else
            json_object_array_add(next, json_object_get(f));
    }
    if (!found) {
        json_object_put(next);
        return;
    }
    json_object *copy = sim__shallow_copy(obj);
    json_object *meta = sim__shallow_copy(sim__get_path(obj, "metadata", NULL, NULL));
    json_object_object_add(meta, "finalizers", next);
    json_object_object_add(copy, "metadata", meta);
    sim_store_update(k->store, r, sim_meta_str(obj, "namespace"), sim_meta_str(obj, "name"), copy,
                     SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL, NULL);
    json_object_put(copy);
}

/* The clusters whose Works the RB keeps (helper.ObtainBindingSpecExistingClusters):
 * spec.clusters plus the clusters of graceful eviction tasks not purged Directly. New array. */
json_object *sim__binding_existing_clusters(json_object *rb)
{
    json_object *out = json_object_new_array();
    json_object *clusters = sim__get_path(rb, "spec", "clusters", NULL);
    for (size_t i = 0;
         json_object_is_type(clusters, json_type_array) && i < json_object_array_length(clusters);
         i++)
        json_object_array_add(out, json_object_get(json_object_array_get_idx(clusters, i)));
    json_object *tasks = sim__get_path(rb, "spec", "gracefulEvictionTasks", NULL);
    for (size_t i = 0;
         json_object_is_type(tasks, json_type_array) && i < json_object_array_length(tasks); i++) {
        json_object *t = json_object_array_get_idx(tasks, i);
        const char *from = sim__get_str(t, "fromCluster", NULL, NULL);
        const char *mode = sim__get_str(t, "purgeMode", NULL, NULL);
        if (from && !(mode && strcmp(mode, "Directly") == 0))
            json_object_array_add(out, json_object_new_string(from));
    }
    return out;
}

/* The binding controller's Reconcile (binding_controller.go): an RB being deleted has its Works
 * deleted (helper.DeleteWorks) and then loses the binding controller's finalizer; otherwise
 * removeOrphanWorks (helper.FindOrphanWorks) then ensureWork for each cluster. */
void sim__sync_binding(struct sim_karmada *k, json_object *rb)
{
    const char *pid = sim__get_str(rb, "metadata", "labels", PERMANENT_ID_LABEL);
    if (sim_meta_str(rb, "deletionTimestamp")) {
        if (pid)
            sim__prune_works(k, pid, NULL);
        sim__finalizer_remove(k, sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings"), rb,
                              BINDING_FINALIZER);
        return;
    }
    if (pid) {
        json_object *keep = sim__binding_existing_clusters(rb);
        sim__prune_works(k, pid, keep);
        json_object_put(keep);
    }
    json_object *clusters = sim__get_path(rb, "spec", "clusters", NULL);
    for (size_t i = 0;
         json_object_is_type(clusters, json_type_array) && i < json_object_array_length(clusters);
         i++)
        ensure_work(k, rb, json_object_array_get_idx(clusters, i));
}
