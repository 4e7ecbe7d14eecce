/* Karmada's Work mutating webhook (pkg/webhook/work/mutating.go MutatingAdmission.Handle): on
 * every Work CREATE and UPDATE, a missing work.karmada.io/permanent-id label gets a new UUID,
 * and each manifest gets util.SetLabelsAndAnnotationsForWorkload (pkg/util/work.go): the
 * managed-annotations record, the Work's permanent id as a label, the managed-labels record. */
#include "cluster-adapters/sim/work_webhook.h"

#include "cluster-adapters/sim/karmada_int.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <stdlib.h>
#include <string.h>

#define WORK_PID_LABEL "work.karmada.io/permanent-id" /* WorkPermanentIDLabel */
#define MANAGED_ANNOTATIONS "resourcetemplate.karmada.io/managed-annotations"
#define MANAGED_LABELS "resourcetemplate.karmada.io/managed-labels"

/* A new object holding references to o's members (an empty one for a non-object). */
static json_object *copy_level(json_object *o)
{
    json_object *c = json_object_new_object();
    if (c && json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, key, v)
        {
            json_object_object_add(c, key, json_object_get(v));
        }
    }
    return c;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of map (plus extra, when not NULL and absent), sorted and joined by commas. */
static json_object *joined_keys(json_object *map, const char *const *extra, size_t nextra)
{
    size_t n = (json_object_is_type(map, json_type_object) ? json_object_object_length(map) : 0);
    const char **keys = muster_calloc(n + nextra + 1, sizeof(*keys));
    if (!keys)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < nextra; i++)
        keys[at++] = extra[i];
    if (json_object_is_type(map, json_type_object)) {
        json_object_object_foreach(map, key, v)
        {
            (void)v;
            int dup = 0;
            for (size_t i = 0; i < nextra && !dup; i++)
                dup = strcmp(key, extra[i]) == 0;
            if (!dup)
                keys[at++] = key;
        }
    }
    qsort(keys, at, sizeof(*keys), cmp_keys);
    size_t len = 1;
    for (size_t i = 0; i < at; i++)
        len += strlen(keys[i]) + 1;
    char *buf = muster_malloc(len);
    json_object *out = NULL;
    if (buf) {
        size_t off = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < at; i++) {
            size_t kl = strlen(keys[i]);
            if (i)
                buf[off++] = ',';
            memcpy(buf + off, keys[i], kl);
            off += kl;
            buf[off] = '\0';
        }
        out = json_object_new_string(buf);
    }
    muster_free(buf);
    muster_free(keys);
    return out;
}

json_object *sim_work_webhook_manifest(json_object *manifest, const char *work_pid)
{
    if (!json_object_is_type(manifest, json_type_object))
        return NULL;
    json_object *m = copy_level(manifest);
    json_object *meta = copy_level(sim__get_path(manifest, "metadata", NULL, NULL));
    json_object *labels = copy_level(sim__get_path(meta, "labels", NULL, NULL));
    json_object *ann = copy_level(sim__get_path(meta, "annotations", NULL, NULL));
    if (!m || !meta || !labels || !ann) {
        json_object_put(m);
        json_object_put(meta);
        json_object_put(labels);
        json_object_put(ann);
        return NULL;
    }
    /* RecordManagedAnnotations: every annotation key, the two records included. */
    static const char *const records[] = {MANAGED_ANNOTATIONS, MANAGED_LABELS};
    json_object *rec = joined_keys(ann, records, 2);
    if (rec)
        json_object_object_add(ann, MANAGED_ANNOTATIONS, rec);
    if (work_pid && work_pid[0])
        json_object_object_add(labels, WORK_PID_LABEL, json_object_new_string(work_pid));
    /* RecordManagedLabels: every label key. */
    rec = joined_keys(labels, NULL, 0);
    if (rec)
        json_object_object_add(ann, MANAGED_LABELS, rec);
    json_object_object_add(meta, "labels", labels);
    json_object_object_add(meta, "annotations", ann);
    json_object_object_add(m, "metadata", meta);
    return m;
}

int sim_work_webhook_admit(void *data, const struct sim_resource *r, json_object *obj,
                           json_object **out)
{
    (void)data;
    *out = NULL;
    if (strcmp(r->group, "work.karmada.io") != 0 || strcmp(r->plural, "works") != 0)
        return 0;
    json_object *work = copy_level(obj);
    json_object *meta = copy_level(sim__get_path(obj, "metadata", NULL, NULL));
    json_object *labels = copy_level(sim__get_path(meta, "labels", NULL, NULL));
    if (!work || !meta || !labels) {
        json_object_put(work);
        json_object_put(meta);
        json_object_put(labels);
        return MUSTER_ENOMEM;
    }
    const char *pid = sim__get_str(labels, WORK_PID_LABEL, NULL, NULL);
    if (!pid || !pid[0]) {
        char uid[40];
        sim_uuid(uid, sizeof(uid));
        json_object_object_add(labels, WORK_PID_LABEL, json_object_new_string(uid));
        pid = sim__get_str(labels, WORK_PID_LABEL, NULL, NULL);
    }
    json_object_object_add(meta, "labels", labels);
    json_object_object_add(work, "metadata", meta);
    json_object *manifests = sim__get_path(obj, "spec", "workload", "manifests");
    if (json_object_is_type(manifests, json_type_array)) {
        json_object *spec = copy_level(sim__get_path(obj, "spec", NULL, NULL));
        json_object *wl = copy_level(sim__get_path(obj, "spec", "workload", NULL));
        json_object *next = json_object_new_array();
        for (size_t i = 0; next && i < json_object_array_length(manifests); i++) {
            json_object *man = json_object_array_get_idx(manifests, i);
            json_object *mm = sim_work_webhook_manifest(man, pid);
            json_object_array_add(next, mm ? mm : json_object_get(man));
        }
        json_object_object_add(wl, "manifests", next);
        json_object_object_add(spec, "workload", wl);
        json_object_object_add(work, "spec", spec);
    }
    *out = work;
    return 0;
}
