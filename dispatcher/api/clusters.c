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

/* GET /api/v1/clusters: the dispatcher's array, sorted by name and paged like the queues (the
 * continue token is the last name of the previous page). */
void api__handle_cluster_list(struct api_call *c)
{
    struct api_server *s = c->srv;
    if (!s->app.disp.clusters) {
        api__send_fail(
            c->req, 501, "NotImplemented",
            "/api/v1/clusters needs the dispatcher, which is not running in this musterd");
        return;
    }
    size_t limit;
    char cont[API_QUERY_VALUE_MAX];
    if (api__limit_param(c->req, &limit)) {
        api__send_fail(c->req, 400, "BadRequest", "limit must be a positive integer");
        return;
    }
    int got = api__query_param(c->req, "continue", cont, sizeof(cont));
    if (got < 0) {
        api__send_fail(c->req, 400, "BadRequest", "continue token too long");
        return;
    }
    struct json_object *all = s->app.disp.clusters(s->app.disp.ud);
    struct json_object *out = json_object_new_object();
    struct json_object *items = json_object_new_array();
    if (!all || !json_object_is_type(all, json_type_array) || !out || !items) {
        json_object_put(all);
        json_object_put(out);
        json_object_put(items);
        api__send_json(c->req, 500, NULL);
        return;
    }
    json_object_array_sort(all, cluster_name_cmp);
    size_t n = json_object_array_length(all), i = 0;
    while (got && i < n && strcmp(cluster_name(json_object_array_get_idx(all, i)), cont) <= 0)
        i++;
    int bad = 0;
    size_t taken = 0;
    for (; !bad && i < n && taken < limit; i++, taken++) {
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
        json_object_put(out);
        api__send_json(c->req, 500, NULL);
        return;
    }
    json_object_object_add(out, "items", items);
    api__list_metadata(out, i < n ? last : NULL);
    api__send_json(c->req, 200, out);
}

/* GET /api/v1/clusters/{name}: one cluster of the dispatcher's array (musterctl get cluster). */
void api__handle_cluster_get(struct api_call *c)
{
    struct api_server *s = c->srv;
    if (!s->app.disp.clusters) {
        api__send_fail(
            c->req, 501, "NotImplemented",
            "/api/v1/clusters needs the dispatcher, which is not running in this musterd");
        return;
    }
    struct json_object *all = s->app.disp.clusters(s->app.disp.ud), *hit = NULL;
    if (!all || !json_object_is_type(all, json_type_array)) {
        json_object_put(all);
        api__send_json(c->req, 500, NULL);
        return;
    }
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
