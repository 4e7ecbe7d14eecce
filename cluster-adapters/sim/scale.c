/* The scale subresource of Deployments and StatefulSets, as kube-apiserver's ScaleREST serves
 * it (pkg/registry/apps/deployment/storage/storage.go, .../statefulset/storage/storage.go):
 * reads build an autoscaling/v1 Scale from the object, writes become an update of the object's
 * spec.replicas under the Scale's resourceVersion. */
#include "cluster-adapters/sim/scale.h"

#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/status.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"

#include <stdlib.h>
#include <string.h>

/* What a Scale's errors name (the registry validates an autoscaling.Scale). */
static const struct sim_resource scale_res = {
    "autoscaling", "v1", "scale", "scale", "Scale", "", 1, 0, 0, {NULL}, {NULL}, 0};

/* A selector string longer than this is cut (a Deployment's selector is a few labels). */
#define SELECTOR_MAX 4096

struct text {
    char *s;
    size_t len, cap;
};

static void text_add(struct text *t, const char *z)
{
    size_t n = strlen(z);
    if (t->len + n >= t->cap)
        n = t->cap - 1 - t->len;
    memcpy(t->s + t->len, z, n);
    t->len += n;
    t->s[t->len] = '\0';
}

struct req {
    const char *key;
    const char *op;
    json_object *values; /* or the matchLabels value, for op "=" */
};

static int req_cmp(const void *a, const void *b)
{
    return strcmp(((const struct req *)a)->key, ((const struct req *)b)->key);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One requirement as labels.Requirement.String writes it. */
static void requirement(struct text *t, const struct req *q)
{
    if (strcmp(q->op, "=") == 0) {
        text_add(t, q->key);
        text_add(t, "=");
        text_add(t, json_object_get_string(q->values));
        return;
    }
    if (strcmp(q->op, "DoesNotExist") == 0)
        text_add(t, "!");
    text_add(t, q->key);
    if (strcmp(q->op, "In") != 0 && strcmp(q->op, "NotIn") != 0)
        return;
    text_add(t, strcmp(q->op, "In") == 0 ? " in (" : " notin (");
    size_t n =
        json_object_is_type(q->values, json_type_array) ? json_object_array_length(q->values) : 0;
    const char **v = calloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; v && i < n; i++)
        v[i] = json_object_get_string(json_object_array_get_idx(q->values, i));
    if (v)
        qsort(v, n, sizeof(*v), str_cmp); /* a requirement keeps its values sorted */
    for (size_t i = 0; v && i < n; i++) {
        if (i)
            text_add(t, ",");
        text_add(t, v[i] ? v[i] : "");
    }
    free(v);
    text_add(t, ")");
}

/* metav1.LabelSelectorAsSelector(sel).String() into buf: requirements sorted by key and
 * comma-joined; matchLabels are Equals requirements ("key=value"). */
static void selector_string(json_object *sel, char *buf, size_t cap)
{
    struct text t = {buf, 0, cap};
    buf[0] = '\0';
    json_object *ml = NULL, *me = NULL;
    json_object_object_get_ex(sel, "matchLabels", &ml);
    json_object_object_get_ex(sel, "matchExpressions", &me);
    size_t nl =
        json_object_is_type(ml, json_type_object) ? (size_t)json_object_object_length(ml) : 0;
    size_t ne = json_object_is_type(me, json_type_array) ? json_object_array_length(me) : 0;
    struct req *rq = calloc(nl + ne + 1, sizeof(*rq));
    if (!rq)
        return;
    size_t n = 0;
    if (nl) {
        json_object_object_foreach(ml, key, val)
        {
            rq[n].key = key;
            rq[n].op = "=";
            rq[n++].values = val;
        }
    }
    for (size_t i = 0; i < ne; i++) {
        json_object *e = json_object_array_get_idx(me, i), *k = NULL, *op = NULL;
        json_object_object_get_ex(e, "key", &k);
        json_object_object_get_ex(e, "operator", &op);
        if (!k || !op)
            continue;
        rq[n].key = json_object_get_string(k);
        rq[n].op = json_object_get_string(op);
        rq[n++].values = json_object_object_get(e, "values");
    }
    qsort(rq, n, sizeof(*rq), req_cmp);
    for (size_t i = 0; i < n; i++) {
        if (i)
            text_add(&t, ",");
        requirement(&t, &rq[i]);
    }
    free(rq);
}

static void copy_meta(json_object *to, json_object *from, const char *key)
{
    const char *v = sim_meta_str(from, key);
    if (v)
        json_object_object_add(to, key, json_object_new_string(v));
}

json_object *sim_scale_of(const struct sim_resource *r, json_object *obj)
{
    (void)r; /* Deployments and StatefulSets read the same fields */
    json_object *s = json_object_new_object();
    json_object_object_add(s, "kind", json_object_new_string("Scale"));
    json_object_object_add(s, "apiVersion", json_object_new_string("autoscaling/v1"));
    json_object *meta = json_object_new_object();
    static const char *const keys[] = {"name", "namespace", "uid", "resourceVersion",
                                       "creationTimestamp"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        copy_meta(meta, obj, keys[i]);
    json_object_object_add(s, "metadata", meta);

    json_object *spec = NULL, *status = NULL, *v = NULL;
    json_object_object_get_ex(obj, "spec", &spec);
    json_object_object_get_ex(obj, "status", &status);
    json_object *sspec = json_object_new_object();
    int64_t want = json_object_object_get_ex(spec, "replicas", &v) ? json_object_get_int64(v) : 0;
    if (want) /* ScaleSpec.Replicas is omitempty in autoscaling/v1 */
        json_object_object_add(sspec, "replicas", json_object_new_int64(want));
    json_object_object_add(s, "spec", sspec);
    json_object *sstatus = json_object_new_object();
    int64_t have = json_object_object_get_ex(status, "replicas", &v) ? json_object_get_int64(v) : 0;
    json_object_object_add(sstatus, "replicas", json_object_new_int64(have));
    json_object *sel = NULL;
    if (json_object_object_get_ex(spec, "selector", &sel)) {
        char *str = malloc(SELECTOR_MAX);
        if (str) {
            selector_string(sel, str, SELECTOR_MAX);
            if (str[0])
                json_object_object_add(sstatus, "selector", json_object_new_string(str));
        }
        free(str);
    }
    json_object_object_add(s, "status", sstatus);
    return s;
}

static int fail(json_object **status, json_object *st)
{
    if (status)
        *status = st;
    else
        json_object_put(st);
    return MUSTER_EINVAL;
}

int sim_scale_apply(const struct sim_resource *r, json_object *obj, json_object *scale,
                    const char *name, json_object **out, json_object **status)
{
    *out = NULL;
    json_object *v = NULL;
    const char *kind =
        json_object_object_get_ex(scale, "kind", &v) ? json_object_get_string(v) : NULL;
    const char *av =
        json_object_object_get_ex(scale, "apiVersion", &v) ? json_object_get_string(v) : NULL;
    if ((kind && strcmp(kind, "Scale") != 0) || (av && strcmp(av, "autoscaling/v1") != 0))
        return fail(status, sim_status_newf(400, "BadRequest", NULL, NULL,
                                            "%s/%s, Kind=%s is not the autoscaling/v1 Scale "
                                            "this subresource takes",
                                            av ? av : "", "", kind ? kind : ""));
    const char *sname = sim_meta_str(scale, "name");
    if (sname && sname[0] && strcmp(sname, name) != 0)
        return fail(status, sim_status_newf(400, "BadRequest", NULL, NULL,
                                            "the name of the object (%s) does not match the "
                                            "name on the URL (%s)",
                                            sname, name));
    int64_t replicas = 0;
    if (json_object_object_get_ex(json_object_object_get(scale, "spec"), "replicas", &v)) {
        if (!json_object_is_type(v, json_type_int))
            return fail(status, sim_status_newf(400, "BadRequest", NULL, NULL,
                                                "Scale in version \"v1\" cannot be handled as a "
                                                "Scale: spec.replicas: expected an integer"));
        replicas = json_object_get_int64(v);
    }
    if (replicas < 0) {
        /* apis/autoscaling/validation ValidateScale */
        json_object *st = sim_status_newf(
            422, "Invalid", &scale_res, name,
            "Scale.autoscaling \"%s\" is invalid: spec.replicas: Invalid value: %lld: must be "
            "greater than or equal to 0",
            name, (long long)replicas);
        if (st)
            sim_status_add_cause(st, "FieldValueInvalid",
                                 "Invalid value: must be greater than or equal to 0",
                                 "spec.replicas");
        return fail(status, st);
    }
    (void)r;
    /* scaleUpdatedObjectInfo.UpdatedObject: the object with the Scale's replicas and, when the
     * Scale names one, its resourceVersion for the optimistic update. */
    json_object *copy = NULL;
    if (json_object_deep_copy(obj, &copy, NULL) < 0 || !copy)
        return fail(status, sim_status_new(500, "InternalError", "out of memory", NULL, NULL));
    json_object *spec = NULL;
    if (!json_object_object_get_ex(copy, "spec", &spec) ||
        !json_object_is_type(spec, json_type_object)) {
        spec = json_object_new_object();
        json_object_object_add(copy, "spec", spec);
    }
    json_object_object_add(spec, "replicas", json_object_new_int64(replicas));
    const char *rv = sim_meta_str(scale, "resourceVersion");
    json_object *meta = json_object_object_get(copy, "metadata");
    if (meta && rv && rv[0])
        json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
    *out = copy;
    return 0;
}
