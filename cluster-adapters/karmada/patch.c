/* ResourceBinding patches for holding and explaining (see rbpatch.h). */
#include "cluster-adapters/karmada/patch.h"

#include "queue/errors.h"

#include <string.h>

static json_object *member(json_object *o, const char *k)
{
    json_object *v = NULL;
    return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v)
               ? v
               : NULL;
}

static int held(json_object *rb)
{
    json_object *s = member(member(member(rb, "spec"), "suspension"), "scheduling");
    return s && json_object_is_type(s, json_type_boolean) && json_object_get_boolean(s);
}

int karmada_patch_hold(json_object *rb, json_object **out)
{
    *out = NULL;
    if (held(rb))
        return 0;
    json_object *p = json_tokener_parse("{\"spec\":{\"suspension\":{\"scheduling\":true}}}");
    if (!p)
        return MUSTER_ENOMEM;
    *out = p;
    return 0;
}

int karmada_patch_webhook_hold(json_object *rb, json_object **out)
{
    *out = NULL;
    json_object *spec = member(rb, "spec");
    if (!spec)
        return MUSTER_EINVAL;
    const char *text;
    json_object *susp = member(spec, "suspension");
    if (held(rb))
        text = "[]";
    else if (!susp || !json_object_is_type(susp, json_type_object))
        /* absent (or null): add the object; a non-object there is replaced by `add` too */
        text = "[{\"op\":\"add\",\"path\":\"/spec/suspension\",\"value\":{\"scheduling\":true}}]";
    else
        text = "[{\"op\":\"add\",\"path\":\"/spec/suspension/scheduling\",\"value\":true}]";
    json_object *p = json_tokener_parse(text);
    if (!p)
        return MUSTER_ENOMEM;
    *out = p;
    return 0;
}

static const char *str(json_object *o, const char *k)
{
    json_object *v = member(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Adds k: v to o, taking v; on failure v is released. json-c leaves a value it could not
 * insert with the caller, and a NULL value would silently become JSON null. */
static int put(json_object *o, const char *k, json_object *v)
{
    if (!v || json_object_object_add(o, k, v)) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

static int put_str(json_object *o, const char *k, const char *s)
{
    return put(o, k, json_object_new_string(s));
}

static int append(json_object *list, json_object *v)
{
    if (!v || json_object_array_add(list, v)) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

int karmada_patch_condition(json_object *rb, const char *type, const char *status,
                           const char *reason, const char *message, const char *now, int force,
                           json_object **out)
{
    *out = NULL;
    json_object *conds = member(member(rb, "status"), "conditions");
    json_object *gen = member(member(rb, "metadata"), "generation");
    int64_t generation = gen ? json_object_get_int64(gen) : 0;
    json_object *old = NULL;
    size_t n = conds && json_object_is_type(conds, json_type_array)
                   ? json_object_array_length(conds)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        if (same(str(c, "type"), type))
            old = c;
    }
    json_object *og = member(old, "observedGeneration");
    if (!force && old && same(str(old, "status"), status) && same(str(old, "reason"), reason) &&
        same(str(old, "message"), message) && og && json_object_get_int64(og) == generation)
        return 0; /* already says this: no write */

    const char *since = old && same(str(old, "status"), status) && str(old, "lastTransitionTime")
                            ? str(old, "lastTransitionTime")
                            : now;
    /* Each local keeps its own reference and every link takes another, so one cleanup path
     * serves success and failure alike. */
    json_object *patch = json_object_new_object(), *st = json_object_new_object();
    json_object *list = json_object_new_array(), *c = json_object_new_object();
    int bad = !patch || !st || !list || !c || put(patch, "status", json_object_get(st)) ||
              put(st, "conditions", json_object_get(list)) || put_str(c, "type", type) ||
              put_str(c, "status", status) || put_str(c, "reason", reason) ||
              put_str(c, "message", message) || put_str(c, "lastTransitionTime", since) ||
              put(c, "observedGeneration", json_object_new_int64(generation));
    /* Every other condition as it was, the new one in the old one's place (or last when new). */
    int placed = 0;
    for (size_t i = 0; !bad && i < n; i++) {
        json_object *e = json_object_array_get_idx(conds, i);
        placed |= e == old;
        bad = append(list, json_object_get(e == old ? c : e));
    }
    if (!bad && !placed)
        bad = append(list, json_object_get(c));
    json_object_put(st);
    json_object_put(list);
    json_object_put(c);
    if (bad) {
        json_object_put(patch);
        return MUSTER_ENOMEM;
    }
    *out = patch;
    return 0;
}

int karmada_patch_waiting(json_object *rb, const char *reason, const char *message, const char *now,
                         json_object **out)
{
    int rc = karmada_patch_condition(rb, "Scheduled", "False", reason, message, now, 0, out);
    if (rc || !*out)
        return rc;
    /* Conditional on the RB as read: the patch carries every condition (a merge patch
     * replaces the array), so from a stale read it could revert one Karmada wrote since; the
     * API server answers 409 instead, and the caller writes again from a newer read. */
    json_object *md = NULL, *rv = NULL, *pm = json_object_new_object();
    if (json_object_object_get_ex(rb, "metadata", &md) &&
        json_object_object_get_ex(md, "resourceVersion", &rv) &&
        json_object_is_type(rv, json_type_string)) {
        if (!pm || json_object_object_add(pm, "resourceVersion", json_object_get(rv)) ||
            json_object_object_add(*out, "metadata", pm)) {
            json_object_put(*out);
            *out = NULL;
            return MUSTER_ENOMEM;
        }
        return 0;
    }
    json_object_put(pm);
    return 0;
}
