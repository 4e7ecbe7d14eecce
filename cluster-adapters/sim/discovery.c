/* Discovery and OpenAPI documents from the resource table (see discovery.h). */
#include "cluster-adapters/sim/discovery.h"

#include "cluster-adapters/sim/resources.h"

#include <stdio.h>
#include <string.h>

/* Changes whenever the served documents change, so kubectl's disk cache is invalidated. */
#define SIM_OPENAPI_HASH "muster-sim-1"

static json_object *str_array(const char *const *v, size_t max)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < max && v[i]; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

static json_object *verbs_array(int status)
{
    static const char *const all[] = {"delete", "deletecollection", "get",    "list",
                                      "patch",  "create",           "update", "watch"};
    static const char *const sub[] = {"get", "patch", "update"};
    return status ? str_array(sub, 3) : str_array(all, 8);
}

json_object *sim_discovery_resource_list(sim_api_set served, const char *group, const char *version)
{
    json_object *list = json_object_new_object();
    json_object *res = json_object_new_array();
    char gv[128];
    if (group[0])
        snprintf(gv, sizeof(gv), "%s/%s", group, version);
    else
        snprintf(gv, sizeof(gv), "%s", version);
    for (size_t i = 0; i < sim_resource_count(); i++) {
        const struct sim_resource *r = sim_resource_at(i);
        if (!sim_api_has(served, r) || strcmp(r->group, group) != 0 ||
            strcmp(r->version, version) != 0)
            continue;
        json_object *e = json_object_new_object();
        json_object_object_add(e, "name", json_object_new_string(r->plural));
        json_object_object_add(e, "singularName", json_object_new_string(r->singular));
        json_object_object_add(e, "namespaced", json_object_new_boolean(r->namespaced));
        json_object_object_add(e, "kind", json_object_new_string(r->kind));
        json_object_object_add(e, "verbs", verbs_array(0));
        if (r->short_names[0])
            json_object_object_add(e, "shortNames", str_array(r->short_names, 3));
        if (r->categories[0])
            json_object_object_add(e, "categories", str_array(r->categories, 2));
        json_object_array_add(res, e);
        if (r->has_scale) {
            /* kube-apiserver lists the subresource with the Scale's own group and version. */
            char name[96];
            snprintf(name, sizeof(name), "%s/scale", r->plural);
            json_object *s = json_object_new_object();
            json_object_object_add(s, "name", json_object_new_string(name));
            json_object_object_add(s, "singularName", json_object_new_string(""));
            json_object_object_add(s, "namespaced", json_object_new_boolean(r->namespaced));
            json_object_object_add(s, "group", json_object_new_string("autoscaling"));
            json_object_object_add(s, "version", json_object_new_string("v1"));
            json_object_object_add(s, "kind", json_object_new_string("Scale"));
            json_object_object_add(s, "verbs", verbs_array(1));
            json_object_array_add(res, s);
        }
        if (r->has_status) {
            char name[96];
            snprintf(name, sizeof(name), "%s/status", r->plural);
            json_object *s = json_object_new_object();
            json_object_object_add(s, "name", json_object_new_string(name));
            json_object_object_add(s, "singularName", json_object_new_string(""));
            json_object_object_add(s, "namespaced", json_object_new_boolean(r->namespaced));
            json_object_object_add(s, "kind", json_object_new_string(r->kind));
            json_object_object_add(s, "verbs", verbs_array(1));
            json_object_array_add(res, s);
        }
    }
    json_object_object_add(list, "kind", json_object_new_string("APIResourceList"));
    if (group[0])
        json_object_object_add(list, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(list, "groupVersion", json_object_new_string(gv));
    json_object_object_add(list, "resources", res);
    return list;
}

json_object *sim_discovery_group(sim_api_set served, const char *group)
{
    json_object *versions = json_object_new_array();
    for (size_t i = 0; i < sim_resource_count(); i++) {
        const struct sim_resource *r = sim_resource_at(i);
        if (!sim_api_has(served, r) || strcmp(r->group, group) != 0)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i; j++) {
            const struct sim_resource *q = sim_resource_at(j);
            if (sim_api_has(served, q) && strcmp(q->group, group) == 0 &&
                strcmp(q->version, r->version) == 0)
                seen = 1;
        }
        if (seen)
            continue;
        char gv[128];
        snprintf(gv, sizeof(gv), "%s/%s", r->group, r->version);
        json_object *v = json_object_new_object();
        json_object_object_add(v, "groupVersion", json_object_new_string(gv));
        json_object_object_add(v, "version", json_object_new_string(r->version));
        json_object_array_add(versions, v);
    }
    if (json_object_array_length(versions) == 0) {
        json_object_put(versions);
        return NULL;
    }
    json_object *g = json_object_new_object();
    json_object_object_add(g, "name", json_object_new_string(group));
    json_object_object_add(g, "versions", versions);
    json_object *pref = NULL;
    json_object_deep_copy(json_object_array_get_idx(versions, 0), &pref, NULL);
    json_object_object_add(g, "preferredVersion", pref);
    return g;
}

json_object *sim_discovery_group_list(sim_api_set served)
{
    json_object *list = json_object_new_object();
    json_object *groups = json_object_new_array();
    for (size_t i = 0; i < sim_resource_count(); i++) {
        const struct sim_resource *r = sim_resource_at(i);
        if (!r->group[0] || !sim_api_has(served, r))
            continue;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            if (sim_api_has(served, sim_resource_at(j)) &&
                strcmp(sim_resource_at(j)->group, r->group) == 0)
                seen = 1;
        if (!seen)
            json_object_array_add(groups, sim_discovery_group(served, r->group));
    }
    json_object_object_add(list, "kind", json_object_new_string("APIGroupList"));
    json_object_object_add(list, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(list, "groups", groups);
    return list;
}

static void add_param(json_object *params, const char *name)
{
    json_object *p = json_object_new_object();
    json_object_object_add(p, "name", json_object_new_string(name));
    json_object_object_add(p, "in", json_object_new_string("query"));
    json_object *schema = json_object_new_object();
    json_object_object_add(schema, "type", json_object_new_string("string"));
    json_object_object_add(schema, "uniqueItems", json_object_new_boolean(1));
    json_object_object_add(p, "schema", schema);
    json_object_array_add(params, p);
}

static json_object *operation(const struct sim_resource *r, const char *action)
{
    json_object *op = json_object_new_object();
    json_object *params = json_object_new_array();
    add_param(params, "dryRun");
    add_param(params, "fieldManager");
    add_param(params, "fieldValidation");
    json_object_object_add(op, "parameters", params);
    json_object *responses = json_object_new_object();
    json_object *ok = json_object_new_object();
    json_object_object_add(ok, "description", json_object_new_string("OK"));
    json_object_object_add(responses, "200", ok);
    json_object_object_add(op, "responses", responses);
    json_object_object_add(op, "x-kubernetes-action", json_object_new_string(action));
    json_object *gvk = json_object_new_object();
    json_object_object_add(gvk, "group", json_object_new_string(r->group));
    json_object_object_add(gvk, "kind", json_object_new_string(r->kind));
    json_object_object_add(gvk, "version", json_object_new_string(r->version));
    json_object_object_add(op, "x-kubernetes-group-version-kind", gvk);
    return op;
}

static void gv_path(const struct sim_resource *r, char *buf, size_t cap)
{
    if (r->group[0])
        snprintf(buf, cap, "apis/%s/%s", r->group, r->version);
    else
        snprintf(buf, cap, "api/%s", r->version);
}

json_object *sim_openapi_root(sim_api_set served)
{
    json_object *root = json_object_new_object();
    json_object *paths = json_object_new_object();
    for (size_t i = 0; i < sim_resource_count(); i++) {
        char gv[160], url[256];
        if (!sim_api_has(served, sim_resource_at(i)))
            continue;
        gv_path(sim_resource_at(i), gv, sizeof(gv));
        snprintf(url, sizeof(url), "/openapi/v3/%s?hash=%s", gv, SIM_OPENAPI_HASH);
        json_object *e = json_object_new_object();
        json_object_object_add(e, "serverRelativeURL", json_object_new_string(url));
        json_object_object_add(paths, gv, e);
    }
    json_object_object_add(root, "paths", paths);
    return root;
}

json_object *sim_openapi_gv(sim_api_set served, const char *want)
{
    json_object *paths = json_object_new_object();
    int found = 0;
    for (size_t i = 0; i < sim_resource_count(); i++) {
        const struct sim_resource *r = sim_resource_at(i);
        char gv[160], path[400];
        if (!sim_api_has(served, r))
            continue;
        gv_path(r, gv, sizeof(gv));
        if (strcmp(gv, want) != 0)
            continue;
        found = 1;
        if (r->namespaced)
            snprintf(path, sizeof(path), "/%s/namespaces/{namespace}/%s/{name}", gv, r->plural);
        else
            snprintf(path, sizeof(path), "/%s/%s/{name}", gv, r->plural);
        json_object *item = json_object_new_object();
        json_object_object_add(item, "get", operation(r, "get"));
        json_object_object_add(item, "put", operation(r, "put"));
        json_object_object_add(item, "patch", operation(r, "patch"));
        json_object_object_add(item, "delete", operation(r, "delete"));
        json_object_object_add(paths, path, item);
        if (r->namespaced)
            snprintf(path, sizeof(path), "/%s/namespaces/{namespace}/%s", gv, r->plural);
        else
            snprintf(path, sizeof(path), "/%s/%s", gv, r->plural);
        json_object *coll = json_object_new_object();
        json_object_object_add(coll, "get", operation(r, "list"));
        json_object_object_add(coll, "post", operation(r, "post"));
        json_object_object_add(paths, path, coll);
    }
    if (!found) {
        json_object_put(paths);
        return NULL;
    }
    json_object *doc = json_object_new_object();
    json_object_object_add(doc, "openapi", json_object_new_string("3.0.0"));
    json_object *info = json_object_new_object();
    json_object_object_add(info, "title", json_object_new_string("Kubernetes"));
    json_object_object_add(info, "version", json_object_new_string("v1.32.0"));
    json_object_object_add(doc, "info", info);
    json_object_object_add(doc, "paths", paths);
    json_object *components = json_object_new_object();
    json_object_object_add(components, "schemas", json_object_new_object());
    json_object_object_add(doc, "components", components);
    return doc;
}
