/* GET /api/v1/clusters[/{name}]: the dispatcher's view of the member clusters (its clusters
 * hook), sorted by name and paged like the queues. */
#include "dispatcher/api/api_int.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static int cluster_name_cmp(const void *pa, const void *pb)
{
    struct json_object *a = *(struct json_object *const *)pa, *b = *(struct json_object *const *)pb;
    struct json_object *na = NULL, *nb = NULL;
    json_object_object_get_ex(a, "name", &na);
    json_object_object_get_ex(b, "name", &nb);
    const char *x = na ? json_object_get_string(na) : "", *y = nb ? json_object_get_string(nb) : "";
    return strcmp(x ? x : "", y ? y : "");
}

static const char *cluster_name(struct json_object *c)
{
    struct json_object *n = NULL;
    json_object_object_get_ex(c, "name", &n);
    const char *v = n ? json_object_get_string(n) : NULL;
    return v ? v : "";
}

/* The dispatcher's array of clusters (a new reference), or NULL with the answer sent: 501 when
 * no dispatcher lends one, 500 when it could not build it. */
static struct json_object *clusters_of(struct api_call *c)
{
    struct api_server *s = c->srv;
    if (!s->app.disp.clusters) {
        api__send_fail(
            c->req, 501, "NotImplemented",
            "/api/v1/clusters needs the dispatcher, which is not running in this musterd");
        return NULL;
    }
    struct json_object *all = s->app.disp.clusters(s->app.disp.ud);
    if (!all || !json_object_is_type(all, json_type_array)) {
        json_object_put(all);
        api__send_json(c->req, 500, NULL);
        return NULL;
    }
    return all;
}

/* GET /api/v1/clusters: the dispatcher's array, sorted by name and paged like the queues (the
 * continue token is the last name of the previous page). */
void api__handle_cluster_list(struct api_call *c)
{
    struct json_object *all = clusters_of(c);
    if (!all)
        return;
    struct api_page pg;
    if (api__page_parse(c->req, &pg)) {
        json_object_put(all);
        return;
    }
    struct json_object *items = json_object_new_array();
    if (!items) {
        json_object_put(all);
        api__send_json(c->req, 500, NULL);
        return;
    }
    json_object_array_sort(all, cluster_name_cmp);
    size_t n = json_object_array_length(all), i = 0;
    while (pg.cont && i < n &&
           strcmp(cluster_name(json_object_array_get_idx(all, i)), pg.cont) <= 0)
        i++;
    int bad = 0;
    size_t taken = 0;
    for (; !bad && i < n && taken < pg.limit; i++, taken++) {
        struct json_object *x = json_object_array_get_idx(all, i);
        bad = json_object_array_add(items, json_object_get(x)) != 0;
        if (bad)
            json_object_put(x);
    }
    char last[API_QUERY_VALUE_MAX];
    snprintf(last, sizeof(last), "%s",
             i > 0 ? cluster_name(json_object_array_get_idx(all, i - 1)) : "");
    json_object_put(all);
    if (bad) {
        json_object_put(items);
        items = NULL;
    }
    api__send_page(c->req, items, i < n ? last : NULL);
}

/* GET /api/v1/clusters/{name}: one cluster of the dispatcher's array (musterctl get cluster). */
void api__handle_cluster_get(struct api_call *c)
{
    struct json_object *all = clusters_of(c), *hit = NULL;
    if (!all)
        return;
    for (size_t i = 0; !hit && i < json_object_array_length(all); i++)
        if (strcmp(cluster_name(json_object_array_get_idx(all, i)), c->name) == 0)
            hit = json_object_get(json_object_array_get_idx(all, i));
    json_object_put(all);
    if (!hit) {
        api__send_fail(c->req, 404, "NotFound", "cluster %s not found", c->name);
        return;
    }
    api__send_json(c->req, 200, hit);
}

/* PATCH /api/v1/clusters/{name}: {"gangDialect": "volcano"|"coscheduling"|"yunikorn"|"none"|
 * "workload-api"|null}
 * (null: detect it again from status.apiEnablements). Written to the store with its audit row
 * in one transaction, then the dispatcher reads the overrides again (docs/admin-api.md). */
void api__handle_cluster_patch(struct api_call *c)
{
    struct api_server *s = c->srv;
    struct api_error e = {0};
    if (c->scope) {
        api__send_fail(c->req, 403, "Forbidden",
                       "user %s may change only the queues under %s; a cluster's gang dialect is "
                       "the whole fleet's",
                       c->user, c->scope);
        return;
    }
    struct json_object *all = clusters_of(c), *hit = NULL;
    if (!all)
        return;
    for (size_t i = 0; !hit && i < json_object_array_length(all); i++)
        if (strcmp(cluster_name(json_object_array_get_idx(all, i)), c->name) == 0)
            hit = json_object_get(json_object_array_get_idx(all, i));
    json_object_put(all);
    if (!hit) {
        api__send_fail(c->req, 404, "NotFound", "cluster %s not found", c->name);
        return;
    }
    struct json_object *patch = NULL, *v = NULL;
    if (api_body_parse(c->req->entity.base, c->req->entity.len, &patch, &e)) {
        json_object_put(hit);
        api__send_error(c->req, &e);
        return;
    }
    const char *dialect = NULL;
    if (!json_object_is_type(patch, json_type_object) || json_object_object_length(patch) != 1 ||
        !json_object_object_get_ex(patch, "gangDialect", &v))
        api__fail(&e, 422, "Invalid", NULL,
                  "a cluster's patch holds gangDialect alone: {\"gangDialect\": \"volcano\"|"
                  "\"coscheduling\"|\"yunikorn\"|\"none\"|\"workload-api\"|null}");
    else if (v && (!json_object_is_type(v, json_type_string) ||
                   (strcmp((dialect = json_object_get_string(v)), "volcano") != 0 &&
                    strcmp(dialect, "coscheduling") != 0 && strcmp(dialect, "yunikorn") != 0 &&
                    strcmp(dialect, "none") != 0 && strcmp(dialect, "workload-api") != 0)))
        api__fail(&e, 422, "Invalid", "gangDialect",
                  "gangDialect is one of volcano, coscheduling, yunikorn, none, workload-api, or "
                  "null to detect it from status.apiEnablements");
    if (e.status) {
        json_object_put(patch);
        json_object_put(hit);
        api__send_error(c->req, &e);
        return;
    }
    char object[API_PATH_NAME_MAX + 16], before[160], after[160];
    struct json_object *bd = NULL, *bs = NULL;
    json_object_object_get_ex(hit, "gangDialect", &bd);
    json_object_object_get_ex(hit, "gangDialectSource", &bs);
    snprintf(object, sizeof object, "clusters/%s", c->name);
    snprintf(before, sizeof before, "{\"gangDialect\":\"%s\",\"gangDialectSource\":\"%s\"}",
             bd ? json_object_get_string(bd) : "", bs ? json_object_get_string(bs) : "");
    if (dialect)
        snprintf(after, sizeof after, "{\"gangDialect\":\"%s\",\"gangDialectSource\":\"override\"}",
                 dialect);
    else
        snprintf(after, sizeof after, "{\"gangDialect\":null,\"gangDialectSource\":\"detected\"}");
    json_object_put(hit);
    struct store *st = s->app.store;
    struct store_audit rec = {api__now_ms(s), c->user, "cluster.patch", object, before, after};
    int rc = store_begin(st);
    if (!rc)
        rc = store_cluster_dialect_put(st, c->name, dialect, rec.at);
    if (!rc)
        rc = store_audit_append(st, &rec, NULL);
    if (!rc)
        rc = store_commit(st);
    json_object_put(patch); /* dialect pointed into it */
    if (rc) {
        store_rollback(st);
        api__send_fail(c->req, 500, "StoreError", "the change was not saved (nothing changed): %s",
                       store_errmsg(st));
        return;
    }
    for (size_t i = 0; i < API_AUDIT_NACTIONS; i++)
        if (strcmp("cluster.patch", api__audit_actions[i]) == 0)
            s->audit_writes[i]++;
    if (s->app.disp.dialects_changed && s->app.disp.dialects_changed(s->app.disp.ud))
        api__send_fail(c->req, 500, "StoreError",
                       "saved, but the dispatcher could not read the overrides again; it will at "
                       "its next start");
    else
        api__handle_cluster_get(c);
}
