/* Every ResourceBinding patch muster writes: holding, explaining, and the steps of the dispatch
 * commit protocol (see patch.h, docs/rbpatch.md and docs/gangobj.md). */
#include "cluster-adapters/karmada/patch.h"
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/jsonwrite.h"

#include "queue/errors.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int held(json_object *rb)
{
    json_object *s =
        kube_json_get(kube_json_get(kube_json_get(rb, "spec"), "suspension"), "scheduling");
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
    json_object *spec = kube_json_get(rb, "spec");
    if (!spec)
        return MUSTER_EINVAL;
    const char *text;
    json_object *susp = kube_json_get(spec, "suspension");
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
    json_object *conds = kube_json_get(kube_json_get(rb, "status"), "conditions");
    json_object *gen = kube_json_get(kube_json_get(rb, "metadata"), "generation");
    int64_t generation = gen ? json_object_get_int64(gen) : 0;
    json_object *old = NULL;
    size_t n =
        conds && json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        if (same(kube_json_str(c, "type"), type))
            old = c;
    }
    json_object *og = kube_json_get(old, "observedGeneration");
    if (!force && old && same(kube_json_str(old, "status"), status) &&
        same(kube_json_str(old, "reason"), reason) &&
        same(kube_json_str(old, "message"), message) && og &&
        json_object_get_int64(og) == generation)
        return 0; /* already says this: no write */

    const char *since = old && same(kube_json_str(old, "status"), status) &&
                                kube_json_str(old, "lastTransitionTime")
                            ? kube_json_str(old, "lastTransitionTime")
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

/* ---- the gang protocol's patches: helpers with a sticky failure flag, so a builder is a
 * straight list of adds and one check at the end; each value is linked into its parent as soon
 * as it exists, so releasing the root on failure releases everything. ---- */

/* A non-empty string at k, or NULL. */
static const char *get_str(json_object *o, const char *k)
{
    const char *v = kube_json_str(o, k);
    return v && *v ? v : NULL;
}

/* *out = root and 0, or root released, *out NULL and MUSTER_ENOMEM when anything failed. */
static int done(json_object *root, int bad, json_object **out)
{
    if (bad || !root) {
        json_object_put(root);
        *out = NULL;
        return MUSTER_ENOMEM;
    }
    *out = root;
    return 0;
}

/* k: null, which a merge patch reads as "remove k" (json-c stores a NULL value as null). */
static void add_null(json_object *o, const char *k, int *bad)
{
    if (!*bad && (!o || json_object_object_add(o, k, NULL)))
        *bad = 1;
}

/* k set as d says: a boolean, null (remove it), or left out. */
static void suspension_member(json_object *susp, const char *k, enum karmada_dispatching d,
                              int *bad)
{
    switch (d) {
    case KARMADA_DISPATCHING_KEEP:
        break;
    case KARMADA_DISPATCHING_REMOVE:
        add_null(susp, k, bad);
        break;
    case KARMADA_DISPATCHING_FALSE:
    case KARMADA_DISPATCHING_TRUE:
        kube_json_add(susp, k, json_object_new_boolean(d == KARMADA_DISPATCHING_TRUE), bad);
        break;
    }
}

static int dispatching_ok(enum karmada_dispatching d)
{
    return d == KARMADA_DISPATCHING_KEEP || d == KARMADA_DISPATCHING_REMOVE ||
           d == KARMADA_DISPATCHING_FALSE || d == KARMADA_DISPATCHING_TRUE;
}

/* {"spec":{"suspension":{...}}} with scheduling and dispatching as suspension_member says;
 * *spec points inside for callers that add more. */
static json_object *suspension_patch(enum karmada_dispatching scheduling,
                                     enum karmada_dispatching dispatching, json_object **spec,
                                     int *bad)
{
    json_object *root = json_object_new_object();
    *spec = kube_json_add_obj(root, "spec", bad);
    json_object *susp = kube_json_add_obj(*spec, "suspension", bad);
    suspension_member(susp, "scheduling", scheduling, bad);
    suspension_member(susp, "dispatching", dispatching, bad);
    return root;
}

enum karmada_dispatching karmada_dispatching_from(int found)
{
    return found < 0 ? KARMADA_DISPATCHING_REMOVE
           : found   ? KARMADA_DISPATCHING_TRUE
                     : KARMADA_DISPATCHING_FALSE;
}

/* The placement of in as a merge patch (step 3), lift: also spec.suspension.scheduling false
 * (the combined assign+lift), barrier: also spec.suspension.dispatching true. */
static int assign(const struct karmada_gang_input *in, int barrier, int lift, json_object **out)
{
    *out = NULL;
    if (!in || !in->rb || !in->shares || in->nshares == 0)
        return MUSTER_EINVAL;
    for (uint32_t i = 0; i < in->nshares; i++)
        if (!in->shares[i].cluster || !*in->shares[i].cluster)
            return MUSTER_EINVAL;
    json_object *placement = kube_json_get(kube_json_get(in->rb, "spec"), "placement");
    /* Go's encoder, which karmada-scheduler uses, escapes no '/'; member order is as read. */
    const char *text = placement
                           ? json_object_to_json_string_ext(
                                 placement, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                           : "{}";
    int bad = !text;
    json_object *root = json_object_new_object();
    kube_json_add_str(
        kube_json_add_obj(kube_json_add_obj(root, "metadata", &bad), "annotations", &bad),
        KARMADA_GANG_APPLIED_PLACEMENT_ANNOTATION, text, &bad);
    json_object *spec = kube_json_add_obj(root, "spec", &bad);
    json_object *clusters = kube_json_add(spec, "clusters", json_object_new_array(), &bad);
    for (uint32_t i = 0; !bad && i < in->nshares; i++) {
        json_object *c = kube_json_push(clusters, json_object_new_object(), &bad);
        kube_json_add_str(c, "name", in->shares[i].cluster, &bad);
        if (in->shares[i].replicas > 0) /* Go's omitempty, as karmada-scheduler writes it */
            kube_json_add(c, "replicas", json_object_new_int(in->shares[i].replicas), &bad);
    }
    if (barrier || lift) {
        json_object *susp = kube_json_add_obj(spec, "suspension", &bad);
        if (barrier)
            suspension_member(susp, "dispatching", KARMADA_DISPATCHING_TRUE, &bad);
        if (lift)
            suspension_member(susp, "scheduling", KARMADA_DISPATCHING_FALSE, &bad);
    }
    return done(root, bad, out);
}

int karmada_patch_assign(const struct karmada_gang_input *in, int barrier, json_object **out)
{
    return assign(in, barrier, 0, out);
}

int karmada_patch_assign_lift(const struct karmada_gang_input *in, json_object **out)
{
    return assign(in, 0, 1, out);
}

int karmada_patch_release(enum karmada_dispatching user_dispatching, json_object **out)
{
    *out = NULL;
    if (!dispatching_ok(user_dispatching))
        return MUSTER_EINVAL;
    int bad = 0;
    json_object *spec,
        *root = suspension_patch(KARMADA_DISPATCHING_FALSE, user_dispatching, &spec, &bad);
    return done(root, bad, out);
}

int karmada_patch_resume(json_object **out)
{
    int bad = 0;
    json_object *spec,
        *root = suspension_patch(KARMADA_DISPATCHING_FALSE, KARMADA_DISPATCHING_KEEP, &spec, &bad);
    return done(root, bad, out);
}

int karmada_patch_rollback_barrier(json_object **out)
{
    int bad = 0;
    json_object *spec,
        *root = suspension_patch(KARMADA_DISPATCHING_KEEP, KARMADA_DISPATCHING_TRUE, &spec, &bad);
    return done(root, bad, out);
}

int karmada_patch_rollback_clear(enum karmada_dispatching user_dispatching, json_object **out)
{
    *out = NULL;
    if (!dispatching_ok(user_dispatching))
        return MUSTER_EINVAL;
    int bad = 0;
    json_object *spec;
    json_object *root = suspension_patch(KARMADA_DISPATCHING_TRUE, user_dispatching, &spec, &bad);
    json_object *ann =
        kube_json_add_obj(kube_json_add_obj(root, "metadata", &bad), "annotations", &bad);
    add_null(ann, KARMADA_GANG_APPLIED_PLACEMENT_ANNOTATION, &bad);
    add_null(spec, "clusters", &bad);
    /* An eviction (taint manager, application failover) keeps the evicted cluster's Works
     * while its task lives; the whole gang is taken back here, so the tasks go with it, or
     * the next placement would meet them again. */
    add_null(spec, "gracefulEvictionTasks", &bad);
    return done(root, bad, out);
}

int karmada_patch_status_scheduled(json_object *rb, const char *now, json_object **out)
{
    json_object *patch = NULL;
    *out = NULL;
    if (!now)
        return MUSTER_EINVAL;
    int rc = karmada_patch_condition(rb, "Scheduled", "True", "Success",
                                     KARMADA_GANG_SCHEDULED_MESSAGE, now, 1, &patch);
    if (rc)
        return rc;
    json_object *gen = kube_json_get(kube_json_get(rb, "metadata"), "generation");
    int bad = 0;
    /* The resourceVersion makes the patch conditional: a merge patch replaces the conditions
     * array whole, so one sent from a stale read could revert a FullyApplied Karmada wrote
     * meanwhile. A 409 means: read the RB again and rebuild. */
    const char *rv = get_str(kube_json_get(rb, "metadata"), "resourceVersion");
    if (rv)
        kube_json_add_str(kube_json_add_obj(patch, "metadata", &bad), "resourceVersion", rv, &bad);
    json_object *status = kube_json_get(patch, "status");
    kube_json_add(status, "schedulerObservedGeneration",
                  json_object_new_int64(gen ? json_object_get_int64(gen) : 0), &bad);
    kube_json_add_str(status, "lastScheduledTime", now, &bad);
    return done(patch, bad, out);
}

int karmada_patch_status_scheduled_ops(json_object *rb, const char *now, json_object **out)
{
    return karmada_patch_status_scheduled_msg_ops(rb, now, NULL, out);
}

int karmada_patch_status_scheduled_msg_ops(json_object *rb, const char *now, const char *msg,
                                           json_object **out)
{
    /* one builder of these operations, the writer (karmada_patch_status_scheduled_ops_write):
     * the tree is its text parsed, for the rare caller that sends a tree (a PodGroup's other
     * RBs in protocol.c) */
    char stack[2048];
    struct kube_jw w;
    *out = NULL;
    kube_jw_init(&w, stack, sizeof stack, 0);
    int rc = karmada_patch_status_scheduled_ops_write(rb, now, msg, &w);
    if (!rc)
        *out = w.bad ? NULL : json_tokener_parse(w.buf);
    kube_jw_free(&w);
    if (!rc && !*out)
        rc = MUSTER_ENOMEM;
    return rc;
}

/* {"op":op,"path":path,"value": then the caller's value and "}". */
static void op_head(struct kube_jw *w, int *first, const char *op, const char *path)
{
    kube_jw_lit(w, *first ? "{\"op\":" : ",{\"op\":");
    *first = 0;
    kube_jw_str(w, op);
    kube_jw_lit(w, ",\"path\":");
    kube_jw_str(w, path);
    kube_jw_lit(w, ",\"value\":");
}

static void condition_text(struct kube_jw *w, const char *since, int64_t generation,
                           const char *msg)
{
    kube_jw_lit(w, "{\"type\":\"Scheduled\",\"status\":\"True\",\"reason\":\"Success\","
                   "\"message\":");
    kube_jw_str(w, msg && msg[0] ? msg : KARMADA_GANG_SCHEDULED_MESSAGE);
    kube_jw_lit(w, ",\"lastTransitionTime\":");
    kube_jw_str(w, since);
    kube_jw_lit(w, ",\"observedGeneration\":");
    kube_jw_int64(w, generation);
    kube_jw_raw(w, "}", 1);
}

/* The operations of karmada_patch_status_scheduled_ops (patch.h says which, and why each). */
int karmada_patch_status_scheduled_ops_write(json_object *rb, const char *now, const char *msg,
                                             struct kube_jw *w)
{
    if (!now)
        return MUSTER_EINVAL;
    json_object *status = kube_json_get(rb, "status");
    json_object *conds = kube_json_get(status, "conditions");
    json_object *gen = kube_json_get(kube_json_get(rb, "metadata"), "generation");
    int64_t generation = gen ? json_object_get_int64(gen) : 0;
    int is_obj = json_object_is_type(status, json_type_object);
    int is_arr = is_obj && json_object_is_type(conds, json_type_array);
    size_t n = is_arr ? json_object_array_length(conds) : 0, at = n;
    for (size_t i = 0; i < n && at == n; i++)
        if (same(kube_json_str(json_object_array_get_idx(conds, i), "type"), "Scheduled"))
            at = i;
    json_object *old = at < n ? json_object_array_get_idx(conds, at) : NULL;
    const char *since = old && same(kube_json_str(old, "status"), "True") &&
                                kube_json_str(old, "lastTransitionTime")
                            ? kube_json_str(old, "lastTransitionTime")
                            : now;
    char path[64];
    int first = 1;
    kube_jw_raw(w, "[", 1);
    /* The generation scheduled is the one read: a spec changed since is read again (422). */
    if (gen) {
        op_head(w, &first, "test", "/metadata/generation");
        kube_jw_int64(w, generation);
        kube_jw_raw(w, "}", 1);
    }
    if (!is_obj) {
        /* No status yet: it is created whole, unless one was written meanwhile (a test of a
         * missing member against null passes; anything else fails). */
        op_head(w, &first, "test", "/status");
        kube_jw_lit(w, "null}");
        op_head(w, &first, "add", "/status");
        kube_jw_lit(w, "{\"conditions\":[");
        condition_text(w, since, generation, msg);
        kube_jw_lit(w, "],\"schedulerObservedGeneration\":");
        kube_jw_int64(w, generation);
        kube_jw_lit(w, ",\"lastScheduledTime\":");
        kube_jw_str(w, now);
        kube_jw_lit(w, "}}]");
        return 0;
    }
    if (old) {
        /* The condition read, replaced where it is: whatever else Karmada wrote meanwhile
         * (aggregatedStatus, FullyApplied) stays, and a changed one fails the test. Its fields
         * are tested one by one, all but the message: evanphx/json-patch compares strings as
         * their JSON text, and the apiserver's encoder escapes <, > and & where json-c does
         * not, so a free-text message could never test equal. */
        static const char *const fields[] = {"type", "status", "reason", "lastTransitionTime",
                                             "observedGeneration"};
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
            snprintf(path, sizeof path, "/status/conditions/%zu/%s", at, fields[f]);
            op_head(w, &first, "test", path);
            kube_jw_json(w, kube_json_get(old, fields[f]));
            kube_jw_raw(w, "}", 1);
        }
        snprintf(path, sizeof path, "/status/conditions/%zu", at);
        op_head(w, &first, "replace", path);
        condition_text(w, since, generation, msg);
        kube_jw_raw(w, "}", 1);
    } else if (is_arr) {
        /* The list as read, by type at each index (Karmada's meta.SetStatusCondition replaces
         * in place or appends, so these hold while it only updates FullyApplied), then the
         * condition appended; one appended meanwhile stays before it. */
        for (size_t i = 0; i < n; i++) {
            const char *t = kube_json_str(json_object_array_get_idx(conds, i), "type");
            snprintf(path, sizeof path, "/status/conditions/%zu/type", i);
            op_head(w, &first, "test", path);
            if (t)
                kube_jw_str(w, t);
            else
                kube_jw_raw(w, "null", 4);
            kube_jw_raw(w, "}", 1);
        }
        op_head(w, &first, "add", "/status/conditions/-");
        condition_text(w, since, generation, msg);
        kube_jw_raw(w, "}", 1);
    } else {
        /* No list read: one written meanwhile (FullyApplied) fails the test, not replaced. */
        op_head(w, &first, "test", "/status/conditions");
        kube_jw_lit(w, "null}");
        op_head(w, &first, "add", "/status/conditions");
        kube_jw_raw(w, "[", 1);
        condition_text(w, since, generation, msg);
        kube_jw_lit(w, "]}");
    }
    /* add on an object member sets it, present or not */
    op_head(w, &first, "add", "/status/schedulerObservedGeneration");
    kube_jw_int64(w, generation);
    kube_jw_raw(w, "}", 1);
    op_head(w, &first, "add", "/status/lastScheduledTime");
    kube_jw_str(w, now);
    kube_jw_lit(w, "}]");
    return 0;
}
