/* The queue document as a client writes it: strict field-by-field decoding (api.h,
 * api_queue_doc_decode) and RFC 7386 merge patch (api_merge_patch). */
#include "dispatcher/api/api_int.h"

#include "cluster-adapters/kube/selector.h"
#include "queue/duration.h"
#include "queue/errors.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>

#define API_GANG_TIMEOUT_S_DEFAULT 300

static int get_int(struct json_object *v, const char *field, int64_t min, int64_t max, int64_t *out,
                   struct api_error *err)
{
    /* json-c clamps integers beyond int64 to INT64_MIN/MAX (or keeps them as uint64), so a
     * range check catches overflow too; a double such as 1.5 or 1e3 is a wrong type. */
    if (!json_object_is_type(v, json_type_int))
        return api__fail(err, 422, "Invalid", field, "%s must be an integer", field);
    int64_t x = json_object_get_int64(v);
    if (x < min || x > max)
        return api__fail(err, 422, "Invalid", field, "%s must be between %" PRId64 " and %" PRId64,
                         field, min, max);
    *out = x;
    return 0;
}

static int get_str(struct json_object *v, const char *field, int nullable, const char **out,
                   struct api_error *err)
{
    if (nullable && json_object_is_type(v, json_type_null)) {
        *out = NULL;
        return 0;
    }
    if (!json_object_is_type(v, json_type_string))
        return api__fail(err, 422, "Invalid", field, "%s must be a string%s", field,
                         nullable ? " or null" : "");
    *out = json_object_get_string(v);
    return 0;
}

/* A duration string ("10m", "1h30m", "500ms") of at most API_PREEMPT_DURATION_MAX_MS. */
static int get_duration(struct json_object *v, const char *field, int64_t *ms,
                        struct api_error *err)
{
    if (!json_object_is_type(v, json_type_string))
        return api__fail(err, 422, "Invalid", field,
                         "%s must be a duration string such as \"10m\" or \"1h30m\"", field);
    const char *s = json_object_get_string(v);
    int rc = queue_duration_parse(s, (size_t)json_object_get_string_len(v), ms);
    if (rc == MUSTER_EINVAL)
        return api__fail(err, 422, "Invalid", field,
                         "%s: %.64s is not a duration: write whole milliseconds as numbers with "
                         "units h, m, s or ms, such as \"10m\" or \"1h30m\"",
                         field, s);
    if (rc || *ms > API_PREEMPT_DURATION_MAX_MS)
        return api__fail(err, 422, "Invalid", field, "%s must be at most 720h (30 days)", field);
    return 0;
}

/* localQueues: at most API_LOCAL_QUEUES_MAX distinct "<namespace>/<name>" (Kueue's LocalQueue
 * of a namespace; both parts lowercase DNS names of at most 63, as queue names are). */
static int get_local_queues(struct json_object *v, struct api_queue_doc *doc, struct api_error *err)
{
    if (!json_object_is_type(v, json_type_array))
        return api__fail(err, 422, "Invalid", "localQueues",
                         "localQueues must be a list of \"<namespace>/<name>\" strings");
    size_t n = json_object_array_length(v);
    if (n > API_LOCAL_QUEUES_MAX)
        return api__fail(err, 422, "Invalid", "localQueues",
                         "localQueues: at most %d LocalQueues per queue", API_LOCAL_QUEUES_MAX);
    for (size_t i = 0; i < n; i++) {
        struct json_object *e = json_object_array_get_idx(v, i);
        char field[48];
        snprintf(field, sizeof field, "localQueues[%zu]", i);
        const char *s = json_object_is_type(e, json_type_string) ? json_object_get_string(e) : NULL;
        const char *slash = s ? strchr(s, '/') : NULL;
        if (!slash || !queue_name_valid(s, (size_t)(slash - s)) ||
            !queue_name_valid(slash + 1, strlen(slash + 1)) || strchr(slash + 1, '/'))
            return api__fail(err, 422, "Invalid", field,
                             "%s must be \"<namespace>/<name>\", each a lowercase DNS name of at "
                             "most 63",
                             field);
        for (size_t j = 0; j < i; j++)
            if (strcmp(json_object_get_string(json_object_array_get_idx(v, j)), s) == 0)
                return api__fail(err, 422, "Invalid", field, "%s: %.130s is listed twice", field,
                                 s);
    }
    doc->local_queues = n ? v : NULL;
    return 0;
}

/* namespaceLimits or ownerLimits (field): {gangs, resources} into *out; the quantities are
 * parsed with the other maps (queues.c), so only the shape is checked here. */
static int get_limits(struct json_object *v, const char *field, struct json_object **out,
                      struct api_error *err)
{
    if (!json_object_is_type(v, json_type_object))
        return api__fail(err, 422, "Invalid", field,
                         "%s must be an object with gangs and resources", field);
    char sub[48];
    json_object_object_foreach(v, key, val)
    {
        int64_t g;
        int rc = 0;
        if (strcmp(key, "gangs") == 0) {
            snprintf(sub, sizeof sub, "%s.gangs", field);
            rc = get_int(val, sub, 1, API_NS_GANGS_MAX, &g, err);
        } else if (strcmp(key, "resources") == 0 && !json_object_is_type(val, json_type_object)) {
            snprintf(sub, sizeof sub, "%s.resources", field);
            rc = api__fail(err, 422, "Invalid", sub, "%s must be an object of resource quantities",
                           sub);
        } else if (strcmp(key, "resources") != 0) {
            rc = api__fail(err, 422, "Invalid", field, "unknown field %s.%.64s", field, key);
        }
        if (rc)
            return rc;
    }
    *out = json_object_object_length(v) ? v : NULL;
    return 0;
}

/* preemption: {withinQueue, minRuntime, maxPerMinute, cooldown}; null is every default. */
static int get_preemption(struct json_object *v, struct api_queue_doc *doc, struct api_error *err)
{
    if (json_object_is_type(v, json_type_null))
        return 0;
    if (!json_object_is_type(v, json_type_object))
        return api__fail(err, 422, "Invalid", "preemption",
                         "preemption must be an object with withinQueue, minRuntime, "
                         "maxPerMinute and cooldown");
    json_object_object_foreach(v, key, val)
    {
        int rc = 0;
        if (strcmp(key, "withinQueue") == 0) {
            const char *w = NULL;
            rc = get_str(val, "preemption.withinQueue", 0, &w, err);
            if (!rc && queue_within_parse(w, &doc->within_queue))
                rc = api__fail(err, 422, "Invalid", "preemption.withinQueue",
                               "preemption.withinQueue must be Never or LowerPriority");
        } else if (strcmp(key, "minRuntime") == 0) {
            rc = get_duration(val, "preemption.minRuntime", &doc->min_runtime_ms, err);
        } else if (strcmp(key, "cooldown") == 0) {
            rc = get_duration(val, "preemption.cooldown", &doc->cooldown_ms, err);
        } else if (strcmp(key, "maxPerMinute") == 0) {
            rc = get_int(val, "preemption.maxPerMinute", 0, QUEUE_PREEMPT_PER_MINUTE_MAX,
                         &doc->max_per_minute, err);
        } else {
            rc =
                api__fail(err, 422, "Invalid", "preemption", "unknown field preemption.%.64s", key);
        }
        if (rc)
            return rc;
    }
    return 0;
}

int api_queue_doc_decode(struct json_object *obj, struct api_queue_doc *doc, struct api_error *err)
{
    memset(doc, 0, sizeof(*doc));
    doc->weight = 1;
    doc->gang_timeout_s = API_GANG_TIMEOUT_S_DEFAULT;
    doc->state = "Open";
    doc->strategy = "BestEffortFIFO";
    doc->reclaimable = 1;
    doc->on_loss = queue_on_loss_name(QUEUE_ON_LOSS_REQUEUE);
    if (!json_object_is_type(obj, json_type_object))
        return api__fail(err, 422, "Invalid", "", "a queue must be a JSON object");
    json_object_object_foreach(obj, key, val)
    {
        int rc = 0;
        if (strcmp(key, "name") == 0) {
            rc = get_str(val, "name", 0, &doc->name, err);
        } else if (strcmp(key, "parent") == 0) {
            rc = get_str(val, "parent", 1, &doc->parent, err);
            if (!rc && doc->parent && !doc->parent[0])
                rc = api__fail(err, 422, "Invalid", "parent",
                               "parent must be a queue name, or null for root");
        } else if (strcmp(key, "weight") == 0) {
            rc = get_int(val, "weight", 1, 1000000, &doc->weight, err);
        } else if (strcmp(key, "priority") == 0) {
            rc = get_int(val, "priority", INT32_MIN, INT32_MAX, &doc->priority, err);
        } else if (strcmp(key, "gangTimeoutSeconds") == 0) {
            rc = get_int(val, "gangTimeoutSeconds", 1, API_GANG_TIMEOUT_S_MAX, &doc->gang_timeout_s,
                         err);
        } else if (strcmp(key, "state") == 0) {
            enum queue_state s;
            rc = get_str(val, "state", 0, &doc->state, err);
            if (!rc && queue_state_parse(doc->state, &s))
                rc = api__fail(err, 422, "Invalid", "state",
                               "state must be Open, Closed or Draining");
        } else if (strcmp(key, "queueingStrategy") == 0) {
            enum queue_strategy s;
            rc = get_str(val, "queueingStrategy", 0, &doc->strategy, err);
            if (!rc && queue_strategy_parse(doc->strategy, &s))
                rc = api__fail(err, 422, "Invalid", "queueingStrategy",
                               "queueingStrategy must be BestEffortFIFO or StrictFIFO");
        } else if (strcmp(key, "onClusterLoss") == 0) {
            enum queue_on_loss l;
            rc = get_str(val, "onClusterLoss", 0, &doc->on_loss, err);
            if (!rc && queue_on_loss_parse(doc->on_loss, &l))
                rc = api__fail(err, 422, "Invalid", "onClusterLoss",
                               "onClusterLoss must be Requeue or Replace");
        } else if (strcmp(key, "guarantee") == 0 || strcmp(key, "deserved") == 0 ||
                   strcmp(key, "capability") == 0) {
            if (json_object_is_type(val, json_type_null))
                continue; /* null is "no limits declared", as after a merge patch removes it */
            if (!json_object_is_type(val, json_type_object))
                rc = api__fail(err, 422, "Invalid", key,
                               "%s must be an object of resource quantities", key);
            else if (key[0] == 'g')
                doc->guarantee = val;
            else if (key[0] == 'd')
                doc->deserved = val;
            else
                doc->capability = val;
        } else if (strcmp(key, "reclaimable") == 0) {
            if (!json_object_is_type(val, json_type_boolean))
                rc = api__fail(err, 422, "Invalid", "reclaimable",
                               "reclaimable must be true or false");
            else
                doc->reclaimable = json_object_get_boolean(val) ? 1 : 0;
        } else if (strcmp(key, "preemption") == 0) {
            rc = get_preemption(val, doc, err);
        } else if (strcmp(key, "namespaceLimits") == 0 || strcmp(key, "ownerLimits") == 0) {
            if (json_object_is_type(val, json_type_null))
                continue;
            rc = get_limits(val, key, key[0] == 'n' ? &doc->ns_limits : &doc->owner_limits, err);
        } else if (strcmp(key, "localQueues") == 0) {
            if (json_object_is_type(val, json_type_null))
                continue;
            rc = get_local_queues(val, doc, err);
        } else if (strcmp(key, "namespaceSelector") == 0) {
            char why[320];
            if (json_object_is_type(val, json_type_null))
                continue; /* none: the parent's applies */
            if (kube_selector_check(val, "namespaceSelector", why, sizeof why)) {
                /* "namespaceSelector.matchExpressions[0].operator: must be ...": the field is
                 * the part before ": " */
                const char *colon = strstr(why, ": ");
                char field[96];
                snprintf(field, sizeof field, "%.*s", colon ? (int)(colon - why) : 17, why);
                rc = api__fail(err, 422, "Invalid", field, "%s", why);
            } else {
                doc->ns_selector = val;
            }
        } else if (strcmp(key, "metadata") == 0 || strcmp(key, "status") == 0) {
            /* Read-only: accepted so a client may PUT back what it got, and ignored. */
            if (!json_object_is_type(val, json_type_object) &&
                !json_object_is_type(val, json_type_null))
                rc = api__fail(err, 422, "Invalid", key, "%s must be an object", key);
        } else {
            rc = api__fail(err, 422, "Invalid", key, "unknown field %.64s", key);
        }
        if (rc)
            return rc;
    }
    return 0;
}

struct json_object *api_merge_patch(struct json_object *target, struct json_object *patch)
{
    if (!json_object_is_type(patch, json_type_object))
        return json_object_get(patch);
    struct json_object *out = json_object_new_object();
    if (!out)
        return NULL;
    if (json_object_is_type(target, json_type_object)) {
        json_object_object_foreach(target, k, v)
        {
            if (json_object_object_add(out, k, json_object_get(v))) {
                json_object_put(out);
                return NULL;
            }
        }
    }
    json_object_object_foreach(patch, key, val)
    {
        if (json_object_is_type(val, json_type_null)) {
            json_object_object_del(out, key);
            continue;
        }
        struct json_object *cur = NULL;
        json_object_object_get_ex(out, key, &cur);
        struct json_object *merged = api_merge_patch(cur, val);
        if (!merged || json_object_object_add(out, key, merged)) {
            json_object_put(merged);
            json_object_put(out);
            return NULL;
        }
    }
    return out;
}
