/* musterctl apply's comparison of a manifest's queue with the server's (spec.h): each spec field
 * with the server's default for an absent one, so applying what the server said changes
 * nothing. */
#include "dispatcher/cli/spec.h"

#include "queue/duration.h"

#include <json-c/json.h>
#include <stdint.h>
#include <string.h>

/* How a spec field compares: a scalar (with dflt_str or dflt_int), a quantity map, a boolean
 * whose default is true, the preemption object (each field with its default), or any JSON
 * whose absence (or null) is its default (the tenancy fields). */
enum spec_kind { SPEC_SCALAR, SPEC_MAP, SPEC_BOOL_TRUE, SPEC_PREEMPTION, SPEC_JSON };

/* The spec fields and the server's defaults for absent ones (docs/admin-api.md, Queues). */
static const struct {
    const char *key;
    const char *dflt_str;
    long long dflt_int;
    enum spec_kind kind;
} spec_fields[] = {
    {"parent", "root", 0, SPEC_SCALAR},
    {"weight", NULL, 1, SPEC_SCALAR},
    {"priority", NULL, 0, SPEC_SCALAR},
    {"state", "Open", 0, SPEC_SCALAR},
    {"queueingStrategy", "BestEffortFIFO", 0, SPEC_SCALAR},
    {"gangTimeoutSeconds", NULL, 300, SPEC_SCALAR},
    {"onClusterLoss", "Requeue", 0, SPEC_SCALAR},
    {"reclaimable", NULL, 0, SPEC_BOOL_TRUE},
    {"preemption", NULL, 0, SPEC_PREEMPTION},
    {"guarantee", NULL, 0, SPEC_MAP},
    {"deserved", NULL, 0, SPEC_MAP},
    {"capability", NULL, 0, SPEC_MAP},
    {"namespaceSelector", NULL, 0, SPEC_JSON},
    {"namespaceLimits", NULL, 0, SPEC_JSON},
    {"ownerLimits", NULL, 0, SPEC_JSON},
    {"localQueues", NULL, 0, SPEC_JSON},
};

/* Equal JSON, absent and null being the same (no value set). */
static int json_eq(struct json_object *a, struct json_object *b)
{
    if (a && json_object_is_type(a, json_type_null))
        a = NULL;
    if (b && json_object_is_type(b, json_type_null))
        b = NULL;
    return (!a && !b) || (a && b && json_object_equal(a, b));
}

static int scalar_eq(struct json_object *a, struct json_object *b)
{
    if (!a || !b)
        return a == b;
    json_type ta = json_object_get_type(a), tb = json_object_get_type(b);
    if (ta != tb)
        return 0;
    if (ta == json_type_int)
        return json_object_get_int64(a) == json_object_get_int64(b);
    return strcmp(json_object_get_string(a), json_object_get_string(b)) == 0;
}

/* Quantities compare as the text the server keeps ("8" and 8 are the same to it). */
static int map_eq(struct json_object *a, struct json_object *b)
{
    size_t na = a && json_object_is_type(a, json_type_object) ? json_object_object_length(a) : 0;
    size_t nb = b && json_object_is_type(b, json_type_object) ? json_object_object_length(b) : 0;
    if (na != nb)
        return 0;
    if (na == 0)
        return 1;
    json_object_object_foreach(a, k, va)
    {
        struct json_object *vb;
        if (!json_object_object_get_ex(b, k, &vb) || !va || !vb ||
            strcmp(json_object_get_string(va), json_object_get_string(vb)) != 0)
            return 0;
    }
    return 1;
}

/* A boolean field: absent or null is true (reclaimable's default). Anything else than a
 * boolean is never equal, so the server judges it. */
static int bool_value(struct json_object *v, int *out)
{
    if (!v || json_object_is_type(v, json_type_null))
        *out = 1;
    else if (json_object_is_type(v, json_type_boolean))
        *out = json_object_get_boolean(v) ? 1 : 0;
    else
        return -1;
    return 0;
}

static int bool_eq(struct json_object *a, struct json_object *b)
{
    int va, vb;
    return bool_value(a, &va) == 0 && bool_value(b, &vb) == 0 && va == vb;
}

/* The fields of preemption and their defaults (docs/admin-api.md, Queues). */
static const struct {
    const char *key, *dflt;
    int duration;
} preemption_fields[] = {{"withinQueue", "Never", 0},
                         {"minRuntime", "0s", 1},
                         {"maxPerMinute", "0", 0},
                         {"cooldown", "0s", 1}};

/* The text of a preemption field of p, or its default; NULL for an object or an array. */
static const char *preemption_text(struct json_object *p, size_t i)
{
    struct json_object *v = NULL;
    if (!p || !json_object_object_get_ex(p, preemption_fields[i].key, &v) || !v)
        return preemption_fields[i].dflt;
    if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
        return NULL;
    return json_object_get_string(v);
}

/* Field i of want's preemption against the server's; durations compare as milliseconds
 * ("600s" is "10m"), and anything unreadable is never equal. */
static int preemption_field_eq(struct json_object *w, struct json_object *c, size_t i)
{
    const char *a = preemption_text(w, i), *b = preemption_text(c, i);
    if (!a || !b)
        return 0;
    if (!preemption_fields[i].duration)
        return strcmp(a, b) == 0;
    int64_t ma, mb;
    return queue_duration_parse(a, strlen(a), &ma) == 0 &&
           queue_duration_parse(b, strlen(b), &mb) == 0 && ma == mb;
}

/* preemption of want (absent or null: every default) against the server's. A key the client
 * does not know makes it "different", so the server judges it. */
static int preemption_eq(struct json_object *w, struct json_object *c)
{
    if (w && json_object_is_type(w, json_type_null))
        w = NULL;
    if (w && !json_object_is_type(w, json_type_object))
        return 0;
    if (w) {
        json_object_object_foreach(w, k, v)
        {
            (void)v;
            size_t i = 0;
            while (i < sizeof(preemption_fields) / sizeof(preemption_fields[0]) &&
                   strcmp(preemption_fields[i].key, k) != 0)
                i++;
            if (i == sizeof(preemption_fields) / sizeof(preemption_fields[0]))
                return 0;
        }
    }
    for (size_t i = 0; i < sizeof(preemption_fields) / sizeof(preemption_fields[0]); i++)
        if (!preemption_field_eq(w, c, i))
            return 0;
    return 1;
}

/* Does the server's queue cur already have every spec field of want (defaults for absent
 * ones)? A field the client does not know makes it "different", so the server judges it. */
int cli_spec_same(struct json_object *want, struct json_object *cur)
{
    json_object_object_foreach(want, k, v)
    {
        int known = strcmp(k, "name") == 0;
        for (size_t i = 0; !known && i < sizeof(spec_fields) / sizeof(spec_fields[0]); i++)
            known = strcmp(k, spec_fields[i].key) == 0;
        (void)v;
        if (!known)
            return 0;
    }
    for (size_t i = 0; i < sizeof(spec_fields) / sizeof(spec_fields[0]); i++) {
        struct json_object *w = NULL, *cv = NULL;
        int has_w = json_object_object_get_ex(want, spec_fields[i].key, &w);
        json_object_object_get_ex(cur, spec_fields[i].key, &cv);
        if (spec_fields[i].kind != SPEC_SCALAR) {
            int eq = spec_fields[i].kind == SPEC_MAP         ? map_eq(w, cv)
                     : spec_fields[i].kind == SPEC_BOOL_TRUE ? bool_eq(has_w ? w : NULL, cv)
                     : spec_fields[i].kind == SPEC_JSON      ? json_eq(has_w ? w : NULL, cv)
                                                             : preemption_eq(has_w ? w : NULL, cv);
            if (!eq)
                return 0;
            continue;
        }
        struct json_object *d = NULL;
        if (!has_w || !w) {
            d = spec_fields[i].dflt_str ? json_object_new_string(spec_fields[i].dflt_str)
                                        : json_object_new_int64(spec_fields[i].dflt_int);
            w = d;
        }
        /* root's parent is null; every other queue's parent is a name. */
        int eq = scalar_eq(w, cv) || (strcmp(spec_fields[i].key, "parent") == 0 && !cv && w &&
                                      strcmp(json_object_get_string(w), "root") == 0);
        json_object_put(d);
        if (!eq)
            return 0;
    }
    return 1;
}
