/* GET, POST, PUT, PATCH and DELETE /api/v1/queues[/{name}]: a queue change is validated
 * against the engine, written to the store with its audit row, applied to the engine and
 * mirrored (queue_rows.c), then answered; and the queue as JSON, with its live status. */
#include "dispatcher/api/api_int.h"

#include "dispatcher/events.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/resources.h"
#include "queue/duration.h"
#include "queue/mem.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define API_ETAG_MAX 32 /* "\"" + int64 digits + "\"" */

/* A new reference to one of r's quantity maps (0 guarantee, 1 deserved, 2 capability), parsed
 * on first use. The cache is not part of the row's value, hence the cast; callers must not
 * modify the object they get. */
static struct json_object *row_map(const struct api_qrow *r, int which)
{
    struct api_qrow *m = (struct api_qrow *)r;
    const char *text = which == 0 ? r->guarantee : which == 1 ? r->deserved : r->capability;
    if (!m->parsed[which])
        m->parsed[which] = api__stored_json(text);
    return m->parsed[which] ? json_object_get(m->parsed[which]) : NULL;
}

/* A duration in ms as the API writes it ("10m"), or NULL when out of memory. */
static struct json_object *duration_json(int64_t ms)
{
    char b[QUEUE_DURATION_STR_MAX];
    if (queue_duration_format(ms, b, sizeof(b)) < 0)
        return NULL;
    return json_object_new_string(b);
}

/* preemption as a client writes it: every field, defaults included. */
static struct json_object *preemption_json(const struct api_qrow *r)
{
    struct json_object *o = json_object_new_object();
    int bad = !o;
    if (o) {
        api__obj_add(o, "withinQueue", json_object_new_string(queue_within_name(r->within_queue)),
                     &bad);
        api__obj_add(o, "minRuntime", duration_json(r->min_runtime_ms), &bad);
        api__obj_add(o, "maxPerMinute", json_object_new_int64(r->preempt_per_minute), &bad);
        api__obj_add(o, "cooldown", duration_json(r->preempt_cooldown_ms), &bad);
    }
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* The spec fields of r as a client writes them (the input of a merge patch, audit rows). */
static struct json_object *spec_json(const struct api_qrow *r)
{
    struct json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    int bad = 0;
    api__obj_add(o, "name", json_object_new_string(r->name), &bad);
    if (r->parent)
        api__obj_add(o, "parent", json_object_new_string(r->parent), &bad);
    else
        json_object_object_add(o, "parent", NULL);
    api__obj_add(o, "weight", json_object_new_int64(r->weight), &bad);
    api__obj_add(o, "priority", json_object_new_int64(r->priority), &bad);
    api__obj_add(o, "state", json_object_new_string(r->state), &bad);
    api__obj_add(o, "queueingStrategy", json_object_new_string(r->strategy), &bad);
    api__obj_add(o, "guarantee", row_map(r, 0), &bad);
    api__obj_add(o, "deserved", row_map(r, 1), &bad);
    api__obj_add(o, "capability", row_map(r, 2), &bad);
    api__obj_add(o, "gangTimeoutSeconds", json_object_new_int64(r->gang_timeout_ms / 1000), &bad);
    api__obj_add(o, "reclaimable", json_object_new_boolean(!r->not_reclaimable), &bad);
    api__obj_add(o, "preemption", preemption_json(r), &bad);
    api__obj_add(
        o, "onClusterLoss",
        json_object_new_string(r->on_loss ? r->on_loss : queue_on_loss_name(QUEUE_ON_LOSS_REQUEUE)),
        &bad);
    if (r->ns_selector)
        api__obj_add(o, "namespaceSelector", json_tokener_parse(r->ns_selector), &bad);
    if (r->local_queues)
        api__obj_add(o, "localQueues", json_tokener_parse(r->local_queues), &bad);
    if (r->ns_limits)
        api__obj_add(o, "namespaceLimits", json_tokener_parse(r->ns_limits), &bad);
    if (r->owner_limits)
        api__obj_add(o, "ownerLimits", json_tokener_parse(r->owner_limits), &bad);
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static struct json_object *metadata_json(const struct api_qrow *r)
{
    struct json_object *m = json_object_new_object();
    char rv[24];
    snprintf(rv, sizeof(rv), "%" PRId64, r->rv);
    int bad = !m;
    if (m) {
        api__obj_add(m, "resourceVersion", json_object_new_string(rv), &bad);
        api__obj_add(m, "createdAtMs", json_object_new_int64(r->created_at), &bad);
        api__obj_add(m, "updatedAtMs", json_object_new_int64(r->updated_at), &bad);
    }
    if (bad) {
        json_object_put(m);
        return NULL;
    }
    return m;
}

/* status.preemptions: the counts the store keeps (0 until eviction counts). */
static struct json_object *preemptions_json(const struct api_qrow *r)
{
    struct json_object *o = json_object_new_object();
    int bad = !o;
    if (o) {
        api__obj_add(o, "made", json_object_new_int64(r->preemptions_made), &bad);
        api__obj_add(o, "suffered", json_object_new_int64(r->preemptions_suffered), &bad);
    }
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* Status from the live engine. reserved is held - allocated: capacity the queue holds for its
 * own unused guarantee (held is max(guarantee, usage) summed up from the leaves); lent is the
 * part of its guarantee that is neither used nor held, which others may use while the engine
 * lends (queue_node_status). preemptions come from the row. */
static struct json_object *status_json(struct api_server *s, const struct api_qrow *r)
{
    const struct queue_node *q = queue_tree_find(s->app.tree, r->name);
    if (!q)
        return json_object_new_object(); /* a row without an engine node: never after start */
    struct queue_status st;
    memset(&st, 0, sizeof(st));
    if (queue_node_status(s->app.tree, q, &st))
        return NULL;
    const struct queue_resnames *names = queue_tree_resnames(s->app.tree);
    struct queue_resvec reserved = {0};
    int rc = queue_resvec_copy(&reserved, &st.held);
    if (!rc)
        rc = queue_resvec_sub(&reserved, &st.allocated);
    for (uint32_t i = 0; !rc && i < reserved.len; i++)
        if (reserved.items[i].milli < 0)
            rc = queue_resvec_set(&reserved, reserved.items[i].id, 0);
    struct json_object *o = rc ? NULL : json_object_new_object();
    int bad = !o;
    if (o) {
        api__obj_add(o, "allocated", kube_resvec_json(names, &st.allocated), &bad);
        api__obj_add(o, "reserved", kube_resvec_json(names, &reserved), &bad);
        api__obj_add(o, "borrowed", kube_resvec_json(names, &st.borrowed), &bad);
        api__obj_add(o, "lent", kube_resvec_json(names, &st.lent), &bad);
        api__obj_add(o, "preemptions", preemptions_json(r), &bad);
        api__obj_add(o, "pending", json_object_new_int64((int64_t)st.pending), &bad);
        api__obj_add(o, "admitted", json_object_new_int64((int64_t)st.admitted), &bad);
        /* JSON has no Infinity: a queue with nothing deserved that uses anything is last in
         * line, shown as null (docs/queue.md, Fair order). */
        if (isinf(st.share)) {
            if (json_object_object_add(o, "share", NULL))
                bad = 1;
        } else {
            api__obj_add(o, "share", json_object_new_double(st.share), &bad);
        }
    }
    queue_resvec_close(&reserved);
    queue_status_close(&st);
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static struct json_object *queue_json(struct api_server *s, const struct api_qrow *r, int status)
{
    struct json_object *o = spec_json(r);
    int bad = !o;
    if (o) {
        api__obj_add(o, "metadata", metadata_json(r), &bad);
        if (status)
            api__obj_add(o, "status", status_json(s, r), &bad);
    }
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static void set_etag(h2o_req_t *req, const struct api_qrow *r)
{
    char etag[API_ETAG_MAX];
    snprintf(etag, sizeof(etag), "\"%" PRId64 "\"", r->rv);
    api__add_header(req, H2O_TOKEN_ETAG, etag);
}

void api__handle_queue_list(struct api_call *c)
{
    struct api_page pg;
    if (api__page_parse(c->req, &pg))
        return;
    struct api_server *s = c->srv;
    uint64_t version = queue_tree_version(s->app.tree);
    if (api__snapshot_valid(&s->qlist, version, s->rows_gen, pg.limit, pg.cont)) {
        api__snapshot_send(c->req, &s->qlist);
        return;
    }
    /* The continue token is the last name of the previous page: queues created or deleted
     * between pages shift nothing, and an expired token cannot exist. */
    size_t i = pg.cont ? api__rows_lower_bound(s, pg.cont) : 0;
    if (pg.cont && i < s->nrows && strcmp(s->rows[i].name, pg.cont) == 0)
        i++;
    struct json_object *items = json_object_new_array();
    int bad = !items;
    size_t n = 0;
    for (; !bad && i < s->nrows && n < pg.limit; i++, n++) {
        struct json_object *q = queue_json(s, &s->rows[i], 1);
        if (!q || json_object_array_add(items, q)) {
            json_object_put(q);
            bad = 1;
        }
    }
    if (bad) {
        json_object_put(items);
        items = NULL;
    }
    struct json_object *out = api__page_json(items, i < s->nrows ? s->rows[i - 1].name : NULL);
    size_t len = 0;
    const char *text = out ? json_object_to_json_string_length(
                                 out, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len)
                           : NULL;
    if (!text ||
        api__snapshot_fill(&s->qlist, version, s->rows_gen, pg.limit, pg.cont, text, len)) {
        api__send_json(c->req, out ? 200 : 500, out); /* answered, just not kept */
        return;
    }
    json_object_put(out);
    api__snapshot_send(c->req, &s->qlist);
}

void api__handle_queue_get(struct api_call *c)
{
    struct api_qrow *r = api__rows_find(c->srv, c->name);
    if (!r) {
        api__send_fail(c->req, 404, "NotFound", "queue %s not found", c->name);
        return;
    }
    set_etag(c->req, r);
    api__send_json(c->req, 200, queue_json(c->srv, r, 1));
}

/* If-Match against r's resourceVersion: 0 when it matches (or is absent and not required),
 * else the error has been sent. Takes "N", N or *; a weak tag W/"N" or a list of tags does not
 * match (a weak tag cannot guard a write, and clients hold one version at a time). */
static int check_if_match(struct api_call *c, const struct api_qrow *r, int required)
{
    ssize_t i = h2o_find_header(&c->req->headers, H2O_TOKEN_IF_MATCH, -1);
    if (i < 0) {
        if (!required)
            return 0;
        api__send_fail(c->req, 428, "PreconditionRequired",
                       "PUT replaces the whole queue: send If-Match with the resourceVersion of %s "
                       "(its ETag) so a concurrent change is not lost",
                       r->name);
        return -1;
    }
    h2o_iovec_t v = c->req->headers.entries[i].value;
    char want[API_ETAG_MAX];
    int n = snprintf(want, sizeof(want), "\"%" PRId64 "\"", r->rv);
    int ok = (v.len == 1 && v.base[0] == '*') ||
             (v.len == (size_t)n && memcmp(v.base, want, v.len) == 0) ||
             (v.len == (size_t)n - 2 && memcmp(v.base, want + 1, v.len) == 0);
    if (!ok) {
        api__send_fail(c->req, 412, "PreconditionFailed",
                       "queue %s is at resourceVersion %" PRId64 ", not %.*s: read it again and "
                       "retry",
                       r->name, r->rv, (int)(v.len > 40 ? 40 : v.len), v.base);
        return -1;
    }
    return 0;
}

/* A decoded document, as an engine spec (vectors owned) and a store row (strings owned). */
struct change {
    struct queue_spec spec;
    struct api_qrow row;
};

static void change_close(struct change *ch)
{
    queue_resvec_close(&ch->spec.guarantee);
    queue_resvec_close(&ch->spec.deserved);
    queue_resvec_close(&ch->spec.capability);
    api__qrow_close(&ch->row);
}

static char *map_text(struct json_object *m)
{
    return muster_strdup(m ? json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE)
                           : "{}");
}

static int map_parse(struct api_server *s, struct json_object *m, const char *what,
                     struct queue_resvec *out, struct api_error *e)
{
    if (!m)
        return 0;
    char why[256];
    /* an explicit 0 in a capability is a limit, elsewhere it is the same as absent */
    int rc =
        strcmp(what, "capability") == 0 || strcmp(what, "namespaceLimits.resources") == 0 ||
                strcmp(what, "ownerLimits.resources") == 0
            ? kube_resvec_parse_limits(queue_tree_resnames(s->app.tree), m, what, out, why,
                                       sizeof(why))
            : kube_resvec_parse(queue_tree_resnames(s->app.tree), m, what, out, why, sizeof(why));
    if (!rc)
        return 0;
    if (rc == MUSTER_ENOMEM)
        return api__fail(e, 500, "InternalError", NULL, "out of memory");
    /* resjson says "<what>.<name>: <why>": the part before ": " is the field. */
    const char *colon = strstr(why, ": ");
    size_t fl = colon ? (size_t)(colon - why) : strlen(what);
    char field[96];
    snprintf(field, sizeof(field), "%.*s", (int)(fl < sizeof(field) ? fl : sizeof(field) - 1),
             colon ? why : what);
    return api__fail(e, 422, "Invalid", field, "%s", why);
}

/* A LocalQueue is taken by one queue, as a LocalQueue points at one ClusterQueue in Kueue: 0,
 * or a 409 naming the first of doc's that another queue takes already. */
static int local_queues_free(const struct api_server *s, const struct api_queue_doc *doc,
                             struct api_error *e)
{
    size_t n = doc->local_queues ? json_object_array_length(doc->local_queues) : 0;
    for (size_t r = 0; n && r < s->nrows; r++) {
        if (!s->rows[r].local_queues || strcmp(s->rows[r].name, doc->name) == 0)
            continue;
        struct json_object *taken = json_tokener_parse(s->rows[r].local_queues);
        size_t nt =
            json_object_is_type(taken, json_type_array) ? json_object_array_length(taken) : 0;
        for (size_t i = 0; i < n; i++) {
            const char *want =
                json_object_get_string(json_object_array_get_idx(doc->local_queues, i));
            for (size_t j = 0; j < nt; j++) {
                const char *have = json_object_get_string(json_object_array_get_idx(taken, j));
                if (have && strcmp(have, want) == 0) {
                    char field[48];
                    snprintf(field, sizeof field, "localQueues[%zu]", i);
                    api__fail(e, 409, "Conflict", field,
                              "LocalQueue %.130s is already taken by queue %s", want,
                              s->rows[r].name);
                    json_object_put(taken);
                    return -1;
                }
            }
        }
        json_object_put(taken);
    }
    return 0;
}

/* Builds ch from doc, then asks the engine whether it may be applied. 0, or e filled. */
static int change_build(struct api_server *s, const struct api_queue_doc *doc, int exists,
                        struct change *ch, struct api_error *e)
{
    memset(ch, 0, sizeof(*ch));
    const char *parent = doc->parent;
    if (strcmp(doc->name, QUEUE_ROOT) != 0 && !parent)
        parent = QUEUE_ROOT; /* the store names root explicitly; the engine takes NULL or it */
    ch->spec.name = doc->name;
    ch->spec.parent = parent;
    ch->spec.weight = (int32_t)doc->weight;
    ch->spec.priority = (int32_t)doc->priority;
    ch->spec.reclaimable = doc->reclaimable ? QUEUE_RECLAIMABLE : QUEUE_NOT_RECLAIMABLE;
    ch->spec.within_queue = doc->within_queue;
    ch->spec.min_runtime = doc->min_runtime_ms; /* the engine's unit here is ms */
    ch->spec.max_per_minute = (int32_t)doc->max_per_minute;
    ch->spec.cooldown = doc->cooldown_ms;
    queue_state_parse(doc->state, &ch->spec.state);
    queue_strategy_parse(doc->strategy, &ch->spec.strategy);
    if (doc->on_loss)
        queue_on_loss_parse(doc->on_loss, &ch->spec.on_cluster_loss);
    int rc = map_parse(s, doc->guarantee, "guarantee", &ch->spec.guarantee, e);
    if (!rc)
        rc = map_parse(s, doc->deserved, "deserved", &ch->spec.deserved, e);
    if (!rc)
        rc = map_parse(s, doc->capability, "capability", &ch->spec.capability, e);
    if (!rc)
        rc = local_queues_free(s, doc, e);
    if (!rc && doc->ns_limits) {
        struct queue_resvec v = {0};
        rc = map_parse(s, json_object_object_get(doc->ns_limits, "resources"),
                       "namespaceLimits.resources", &v, e);
        queue_resvec_close(&v);
    }
    if (!rc && doc->owner_limits) {
        struct queue_resvec v = {0};
        rc = map_parse(s, json_object_object_get(doc->owner_limits, "resources"),
                       "ownerLimits.resources", &v, e);
        queue_resvec_close(&v);
    }
    if (rc)
        return rc;
    struct queue_error qe = {{0}, {0}};
    rc = queue_tree_validate(s->app.tree, &ch->spec, exists, &qe);
    if (rc == MUSTER_EEXIST)
        return api__fail(e, 409, "AlreadyExists", "name", "%s", qe.msg);
    if (rc == MUSTER_ENOMEM)
        return api__fail(e, 500, "InternalError", NULL, "out of memory");
    if (rc)
        return api__fail(e, 422, "Invalid", qe.field, "%s", qe.msg);
    struct api_qrow *r = &ch->row;
    r->name = muster_strdup(doc->name);
    r->parent = parent ? muster_strdup(parent) : NULL;
    r->state = muster_strdup(doc->state);
    r->strategy = muster_strdup(doc->strategy);
    r->guarantee = map_text(doc->guarantee);
    r->deserved = map_text(doc->deserved);
    r->capability = map_text(doc->capability);
    r->ns_selector = doc->ns_selector ? map_text(doc->ns_selector) : NULL;
    r->local_queues = doc->local_queues ? map_text(doc->local_queues) : NULL;
    r->ns_limits = doc->ns_limits ? map_text(doc->ns_limits) : NULL;
    r->owner_limits = doc->owner_limits ? map_text(doc->owner_limits) : NULL;
    if (!r->name || (parent && !r->parent) || !r->state || !r->strategy || !r->guarantee ||
        !r->deserved || !r->capability || (doc->ns_selector && !r->ns_selector) ||
        (doc->local_queues && !r->local_queues) || (doc->ns_limits && !r->ns_limits) ||
        (doc->owner_limits && !r->owner_limits))
        return api__fail(e, 500, "InternalError", NULL, "out of memory");
    r->weight = doc->weight;
    r->priority = doc->priority;
    r->gang_timeout_ms = doc->gang_timeout_s * 1000;
    r->not_reclaimable = !doc->reclaimable;
    r->within_queue = doc->within_queue;
    r->min_runtime_ms = doc->min_runtime_ms;
    r->preempt_per_minute = doc->max_per_minute;
    r->preempt_cooldown_ms = doc->cooldown_ms;
    r->on_loss = queue_on_loss_name(ch->spec.on_cluster_loss);
    return 0;
}

static char *json_text_of(struct json_object *o)
{
    if (!o)
        return NULL;
    char *t = muster_strdup(
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    return t;
}

/* Writes the change to SQLite with its audit row in one transaction. after NULL deletes
 * before->name. Nothing is written on failure. */
static int persist(struct api_server *s, const char *actor, const char *action,
                   const struct api_qrow *before, const struct api_qrow *after, struct api_error *e)
{
    const char *name = after ? after->name : before->name;
    char object[QUEUE_NAME_MAX + 16];
    snprintf(object, sizeof(object), "queues/%s", name);
    char *btext = before ? json_text_of(queue_json(s, before, 0)) : NULL;
    char *atext = after ? json_text_of(queue_json(s, after, 0)) : NULL;
    if ((before && !btext) || (after && !atext)) {
        muster_free(btext);
        muster_free(atext);
        return api__fail(e, 500, "InternalError", NULL, "out of memory");
    }
    struct store *st = s->app.store;
    struct store_audit rec = {api__now_ms(s), actor, action, object, btext, atext};
    int rc = store_begin(st);
    if (!rc) {
        if (after) {
            struct store_queue q;
            api__qrow_to_store(after, &q);
            rc = store_queue_put(st, &q);
        } else {
            rc = store_queue_delete(st, name);
        }
    }
    if (!rc)
        rc = store_audit_append(st, &rec, NULL);
    if (!rc)
        rc = store_commit(st);
    for (size_t i = 0; !rc && i < API_AUDIT_NACTIONS; i++)
        if (strcmp(action, api__audit_actions[i]) == 0)
            s->audit_writes[i]++;
    if (rc) {
        store_rollback(st);
        api__fail(e, rc == MUSTER_ECONFLICT ? 409 : 500,
                  rc == MUSTER_ECONFLICT ? "Conflict" : "StoreError", NULL,
                  "the change was not saved (nothing changed): %s", store_errmsg(st));
    }
    muster_free(btext);
    muster_free(atext);
    return rc;
}

/* After the store committed: the engine must take the change, since it was validated against
 * the same tree on this thread a moment ago. If it still refuses, the store and the engine
 * disagree until a restart reloads the store: /readyz reports it. */
static int engine_apply(struct api_server *s, const struct queue_spec *spec, int exists,
                        const char *remove, struct api_error *e)
{
    struct queue_error qe = {{0}, {0}};
    int rc = remove   ? queue_tree_remove(s->app.tree, remove, &qe)
             : exists ? queue_tree_update(s->app.tree, spec, &qe)
                      : queue_tree_create(s->app.tree, spec, &qe);
    if (rc) {
        s->degraded = 1;
        return api__fail(e, 500, "InternalError", qe.field,
                         "saved, but the engine refused the change (%s: %s); restart musterd to "
                         "reload the queues from the database",
                         qe.field, qe.msg);
    }
    return 0;
}

/* After the store and the engine hold a queue change: the dispatcher may now place parked
 * bindings, and the dashboards see it (a "queue" event; deleted: true when it is gone). */
static void queue_changed(struct api_server *s, const char *name, int deleted)
{
    if (s->app.disp.queues_changed)
        s->app.disp.queues_changed(s->app.disp.ud, name);
    if (!s->app.events)
        return;
    struct json_object *o = json_object_new_object();
    if (o) {
        json_object_object_add(o, "name", json_object_new_string(name));
        if (deleted)
            json_object_object_add(o, "deleted", json_object_new_boolean(1));
    }
    disp_events_publish(s->app.events, "queue", o); /* out of memory: the event is lost, no more */
}

static struct json_object *read_body(struct api_call *c, struct api_error *e)
{
    struct json_object *obj;
    if (api_body_parse(c->req->entity.base, c->req->entity.len, &obj, e))
        return NULL;
    return obj;
}

/* ---- scopes: a token may change only the queues under its subtree (docs/admin-api.md) ---- */

#define API_QUEUE_PATH_MAX ((QUEUE_DEPTH_MAX + 1) * (QUEUE_NAME_MAX + 1))

/* Whether path ("research/nlp/a") lies under scope ("research"); NULL scope holds every queue. */
static int scope_holds(const char *scope, const char *path)
{
    if (!scope)
        return 1;
    size_t n = strlen(scope);
    return strncmp(path, scope, n) == 0 && path[n] == '/';
}

/* The path of queue name as the engine has it now, into buf: 0, or -1 when there is none. */
static int path_now(struct api_server *s, const char *name, char *buf, size_t cap)
{
    const struct queue_node *q = queue_tree_find(s->app.tree, name);
    return q && queue_node_path(q, buf, cap) >= 0 ? 0 : -1;
}

/* 0 when the caller's scope holds queue name where it is now (if it exists) and where it would
 * be under parent (if parent is not NULL: a create or a change); else the 403 is sent and 1 is
 * returned. Nothing has changed yet. */
static int scope_refuses(struct api_call *c, const char *name, const char *parent)
{
    if (!c->scope)
        return 0;
    char now[API_QUEUE_PATH_MAX], then[2 * API_QUEUE_PATH_MAX];
    const char *where = NULL;
    if (path_now(c->srv, name, now, sizeof now) == 0 && !scope_holds(c->scope, now))
        where = now;
    if (!where && parent) {
        char pp[API_QUEUE_PATH_MAX];
        if (strcmp(parent, QUEUE_ROOT) == 0)
            snprintf(then, sizeof then, "%s", name);
        else if (path_now(c->srv, parent, pp, sizeof pp) == 0)
            snprintf(then, sizeof then, "%s/%s", pp, name);
        else
            snprintf(then, sizeof then, "%s/%s", parent, name); /* refused by validation next */
        if (!scope_holds(c->scope, then))
            where = then;
    }
    if (!where)
        return 0;
    api__send_fail(c->req, 403, "Forbidden",
                   "user %s may change only the queues under %s/** (its token's scope), not %s",
                   c->user, c->scope, where);
    return 1;
}

/* Create, replace and patch end here: doc is validated, saved, applied, mirrored, answered. */
static void commit_doc(struct api_call *c, const struct api_queue_doc *doc,
                       const struct api_qrow *old, const char *action)
{
    struct api_server *s = c->srv;
    struct api_error e = {0};
    struct change ch;
    int exists = old != NULL;
    if (!doc->name) {
        api__fail(&e, 422, "Invalid", "name", "name is required");
        api__send_error(c->req, &e);
        return;
    }
    if (scope_refuses(c, doc->name, doc->parent ? doc->parent : QUEUE_ROOT))
        return;
    /* Resource names the document brings are interned to build the change, but kept only if
     * it commits: the table is bounded, and refused requests must not fill it. */
    struct queue_resnames *names = queue_tree_resnames(s->app.tree);
    uint32_t mark = queue_resnames_mark(names);
    if (change_build(s, doc, exists, &ch, &e) || api__rows_reserve(s)) {
        if (!e.status)
            api__fail(&e, 500, "InternalError", NULL, "out of memory");
        change_close(&ch);
        queue_resnames_rollback(names, mark);
        api__send_error(c->req, &e);
        return;
    }
    if (exists && api__qrow_same_spec(old, &ch.row)) {
        /* Nothing changes: no write, no new resourceVersion, no audit row, so applying the
         * same document twice is a no-op the second time. */
        change_close(&ch);
        queue_resnames_rollback(names, mark);
        set_etag(c->req, old);
        api__send_json(c->req, 200, queue_json(s, old, 1));
        return;
    }
    int64_t now = api__now_ms(s);
    ch.row.rv = exists ? old->rv + 1 : 1;
    ch.row.created_at = exists ? old->created_at : now;
    ch.row.updated_at = now;
    /* counts are status: a spec change keeps them */
    ch.row.preemptions_made = exists ? old->preemptions_made : 0;
    ch.row.preemptions_suffered = exists ? old->preemptions_suffered : 0;
    if (persist(s, c->user, action, old, &ch.row, &e)) {
        change_close(&ch);
        queue_resnames_rollback(names, mark);
        api__send_error(c->req, &e);
        return;
    }
    /* The mirror follows the store whatever the engine does next. */
    char name[QUEUE_NAME_MAX + 1];
    snprintf(name, sizeof(name), "%s", ch.row.name);
    api__rows_put(s, &ch.row);
    int rc = engine_apply(s, &ch.spec, exists, NULL, &e);
    change_close(&ch);
    if (rc) {
        api__send_error(c->req, &e);
        return;
    }
    queue_changed(s, name, 0);
    struct api_qrow *r = api__rows_find(s, name);
    set_etag(c->req, r);
    if (!exists) {
        char loc[QUEUE_NAME_MAX + 32];
        snprintf(loc, sizeof(loc), "/api/v1/queues/%s", name);
        api__add_header(c->req, H2O_TOKEN_LOCATION, loc);
    }
    api__send_json(c->req, exists ? 200 : 201, queue_json(s, r, 1));
}

/* The body of a POST or PUT decoded into doc: the object doc points into (json_object_put it
 * once doc is used), or NULL with the 400, 413 or 422 sent. */
static struct json_object *read_doc(struct api_call *c, struct api_queue_doc *doc)
{
    struct api_error e = {0};
    struct json_object *obj = read_body(c, &e);
    if (!obj || api_queue_doc_decode(obj, doc, &e)) {
        json_object_put(obj);
        api__send_error(c->req, &e);
        return NULL;
    }
    return obj;
}

void api__handle_queue_create(struct api_call *c)
{
    struct api_queue_doc doc;
    struct json_object *obj = read_doc(c, &doc);
    if (!obj)
        return;
    commit_doc(c, &doc, NULL, "queue.create");
    json_object_put(obj);
}

void api__handle_queue_replace(struct api_call *c)
{
    struct api_error e = {0};
    struct api_qrow *r = api__rows_find(c->srv, c->name);
    if (!r) {
        api__send_fail(c->req, 404, "NotFound", "queue %s not found (create it with POST)",
                       c->name);
        return;
    }
    if (check_if_match(c, r, 1))
        return;
    struct api_queue_doc doc;
    struct json_object *obj = read_doc(c, &doc);
    if (!obj)
        return;
    if (!doc.name)
        doc.name = c->name;
    if (strcmp(doc.name, c->name) != 0) {
        api__fail(&e, 422, "Invalid", "name",
                  "name is %.64s but the path names %s; a queue cannot be renamed", doc.name,
                  c->name);
        json_object_put(obj);
        api__send_error(c->req, &e);
        return;
    }
    commit_doc(c, &doc, r, "queue.update");
    json_object_put(obj);
}

static int is_merge_patch_type(h2o_req_t *req)
{
    ssize_t i = h2o_find_header(&req->headers, H2O_TOKEN_CONTENT_TYPE, -1);
    if (i < 0)
        return 1;
    h2o_iovec_t v = req->headers.entries[i].value;
    size_t n = v.len;
    const char *semi = memchr(v.base, ';', v.len);
    if (semi)
        n = (size_t)(semi - v.base);
    return (n == 28 && h2o_lcstris(v.base, n, H2O_STRLIT("application/merge-patch+json"))) ||
           (n == 16 && h2o_lcstris(v.base, n, H2O_STRLIT("application/json")));
}

void api__handle_queue_patch(struct api_call *c)
{
    struct api_error e = {0};
    if (!is_merge_patch_type(c->req)) {
        api__send_fail(c->req, 415, "UnsupportedMediaType",
                       "PATCH takes a JSON merge patch (application/merge-patch+json)");
        return;
    }
    struct api_qrow *r = api__rows_find(c->srv, c->name);
    if (!r) {
        api__send_fail(c->req, 404, "NotFound", "queue %s not found", c->name);
        return;
    }
    if (check_if_match(c, r, 0))
        return;
    struct json_object *patch = read_body(c, &e);
    if (!patch) {
        api__send_error(c->req, &e);
        return;
    }
    /* An operator may open, close or drain a queue, nothing else. */
    if (c->role < API_ROLE_ADMIN) {
        struct json_object *st = NULL;
        if (json_object_object_length(patch) != 1 ||
            !json_object_object_get_ex(patch, "state", &st)) {
            json_object_put(patch);
            api__send_fail(c->req, 403, "Forbidden",
                           "user %s (role %s) may only change a queue's state; other fields need "
                           "the admin role",
                           c->user, api__role_name(c->role));
            return;
        }
    }
    struct json_object *cur = spec_json(r);
    struct json_object *merged = cur ? api_merge_patch(cur, patch) : NULL;
    json_object_put(cur);
    json_object_put(patch);
    struct api_queue_doc doc;
    if (!merged) {
        api__send_json(c->req, 500, NULL);
        return;
    }
    if (api_queue_doc_decode(merged, &doc, &e)) {
        json_object_put(merged);
        api__send_error(c->req, &e);
        return;
    }
    if (!doc.name || strcmp(doc.name, c->name) != 0) {
        json_object_put(merged);
        api__fail(&e, 422, "Invalid", "name", "a queue cannot be renamed");
        api__send_error(c->req, &e);
        return;
    }
    commit_doc(c, &doc, r, "queue.patch");
    json_object_put(merged);
}

void api__handle_queue_delete(struct api_call *c)
{
    struct api_server *s = c->srv;
    struct api_error e = {0};
    struct api_qrow *r = api__rows_find(s, c->name);
    if (!r) {
        api__send_fail(c->req, 404, "NotFound", "queue %s not found", c->name);
        return;
    }
    if (check_if_match(c, r, 0))
        return;
    if (scope_refuses(c, c->name, NULL))
        return;
    if (strcmp(c->name, QUEUE_ROOT) == 0 || strcmp(c->name, QUEUE_DEFAULT) == 0) {
        api__send_fail(c->req, 409, "Conflict", "queue %s always exists and cannot be deleted",
                       c->name);
        return;
    }
    const struct queue_node *q = queue_tree_find(s->app.tree, c->name);
    if (q && queue_node_children(q) > 0) {
        api__send_fail(c->req, 409, "Conflict",
                       "queue %s has %zu child queues: delete or move them first", c->name,
                       queue_node_children(q));
        return;
    }
    struct queue_status st;
    memset(&st, 0, sizeof(st));
    if (q && queue_node_status(s->app.tree, q, &st)) {
        api__send_json(c->req, 500, NULL);
        return;
    }
    uint64_t work = st.pending + st.admitted;
    queue_status_close(&st);
    if (work) {
        api__send_fail(c->req, 409, "Conflict",
                       "queue %s holds %" PRIu64
                       " workloads: set state Draining and delete it once "
                       "they are gone",
                       c->name, work);
        return;
    }
    struct json_object *gone = queue_json(s, r, 0);
    if (!gone) {
        api__send_json(c->req, 500, NULL);
        return;
    }
    if (persist(s, c->user, "queue.delete", r, NULL, &e)) {
        json_object_put(gone);
        api__send_error(c->req, &e);
        return;
    }
    api__rows_remove(s, c->name);
    if (q && engine_apply(s, NULL, 1, c->name, &e)) {
        json_object_put(gone);
        api__send_error(c->req, &e);
        return;
    }
    queue_changed(s, c->name, 1);
    api__send_json(c->req, 200, gone);
}
