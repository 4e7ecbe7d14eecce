/* ResourceBinding patches for holding and explaining (see rbpatch.h). */
#include "dispatcher/rbpatch.h"

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

int disp_rbpatch_hold(json_object *rb, json_object **out)
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

int disp_rbpatch_webhook_hold(json_object *rb, json_object **out)
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

int disp_rbpatch_waiting(json_object *rb, const char *reason, const char *message, const char *now,
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
        if (same(str(c, "type"), "Scheduled"))
            old = c;
    }
    json_object *og = member(old, "observedGeneration");
    if (old && same(str(old, "status"), "False") && same(str(old, "reason"), reason) &&
        same(str(old, "message"), message) && og && json_object_get_int64(og) == generation)
        return 0; /* already says this: no write */

    /* Built inside-out from the top so that on any failure putting `patch` frees everything. */
    json_object *patch = json_object_new_object(), *status = NULL, *list = NULL, *c = NULL;
    int bad = !patch;
    if (!bad) {
        status = json_object_new_object();
        bad = !status || json_object_object_add(patch, "status", status);
        if (bad)
            json_object_put(status);
    }
    if (!bad) {
        list = json_object_new_array();
        bad = !list || json_object_object_add(status, "conditions", list);
        if (bad)
            json_object_put(list);
    }
    if (!bad) {
        c = json_object_new_object();
        bad = !c;
    }
    const char *since = old && same(str(old, "status"), "False") && str(old, "lastTransitionTime")
                            ? str(old, "lastTransitionTime")
                            : now;
    bad = bad || json_object_object_add(c, "type", json_object_new_string("Scheduled")) ||
          json_object_object_add(c, "status", json_object_new_string("False")) ||
          json_object_object_add(c, "reason", json_object_new_string(reason)) ||
          json_object_object_add(c, "message", json_object_new_string(message)) ||
          json_object_object_add(c, "lastTransitionTime", json_object_new_string(since)) ||
          json_object_object_add(c, "observedGeneration", json_object_new_int64(generation));
    /* Every other condition as it was, Scheduled in its place (or last when new). */
    int placed = 0;
    for (size_t i = 0; !bad && i <= n; i++) {
        json_object *e = i < n ? json_object_array_get_idx(conds, i) : NULL;
        if (i == n && placed)
            break;
        if (e == old || i == n) {
            bad = json_object_array_add(list, c) != 0;
            placed = !bad;
        } else {
            bad = json_object_array_add(list, json_object_get(e)) != 0;
        }
    }
    if (bad) {
        if (!placed)
            json_object_put(c);
        json_object_put(patch);
        return MUSTER_ENOMEM;
    }
    *out = patch;
    return 0;
}
