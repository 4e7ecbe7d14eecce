/* API discovery over the legacy endpoints (/api, /apis, one APIResourceList per group
 * version), built into a new table and swapped in when the whole refresh is done. */
#include "cluster-adapters/kube/discovery.h"

#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"

#include <stdio.h>
#include <string.h>

struct gv_ctx {
    struct kube_discovery *d;
    char group[256];
    char version[64];
};

static void table_free(struct kube_api_resource *res, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        muster_free(res[i].group);
        muster_free(res[i].version);
        muster_free(res[i].kind);
        muster_free(res[i].resource);
    }
    muster_free(res);
}

static void note_err(struct kube_discovery *d, int err)
{
    if (!d->err)
        d->err = err;
}

static void finish_one(struct kube_discovery *d)
{
    if (--d->pending > 0)
        return;
    table_free(d->res, d->n);
    d->res = d->next;
    d->n = d->next_n;
    d->next = NULL;
    d->next_n = d->next_cap = 0;
    d->refreshing = 0;
    void (*cb)(int, void *) = d->cb;
    d->cb = NULL;
    if (cb)
        cb(d->err, d->ud);
}

static int add_resource(struct kube_discovery *d, const char *group, const char *version,
                        struct json_object *r)
{
    struct json_object *name_o, *kind_o, *ns_o;
    if (!json_object_object_get_ex(r, "name", &name_o) ||
        !json_object_object_get_ex(r, "kind", &kind_o))
        return 0;
    const char *name = json_object_get_string(name_o);
    const char *slash = strchr(name, '/');
    if (slash) {
        /* A subresource: only remember that a status exists for its parent. */
        if (strcmp(slash + 1, "status") != 0)
            return 0;
        for (size_t i = 0; i < d->next_n; i++) {
            struct kube_api_resource *e = &d->next[i];
            if (strcmp(e->group, group) == 0 && strcmp(e->version, version) == 0 &&
                strncmp(e->resource, name, (size_t)(slash - name)) == 0 &&
                e->resource[slash - name] == 0)
                e->has_status = 1;
        }
        return 0;
    }
    if (d->next_n >= KUBE_DISCOVERY_MAX_RESOURCES)
        return MUSTER_ELIMIT;
    if (d->next_n == d->next_cap) {
        size_t cap = d->next_cap ? d->next_cap * 2 : 64;
        struct kube_api_resource *nr = muster_realloc(d->next, cap * sizeof(*nr));
        if (!nr)
            return MUSTER_ENOMEM;
        d->next = nr;
        d->next_cap = cap;
    }
    struct kube_api_resource *e = &d->next[d->next_n];
    memset(e, 0, sizeof(*e));
    e->group = muster_strdup(group);
    e->version = muster_strdup(version);
    e->kind = muster_strdup(json_object_get_string(kind_o));
    e->resource = muster_strdup(name);
    e->namespaced =
        json_object_object_get_ex(r, "namespaced", &ns_o) && json_object_get_boolean(ns_o);
    if (!e->group || !e->version || !e->kind || !e->resource) {
        muster_free(e->group);
        muster_free(e->version);
        muster_free(e->kind);
        muster_free(e->resource);
        return MUSTER_ENOMEM;
    }
    d->next_n++;
    return 0;
}

static void on_resources(int err, const struct kube_response *resp, void *ud)
{
    struct gv_ctx *g = ud;
    struct kube_discovery *d = g->d;
    struct json_object *list;
    if (err) {
        note_err(d, err);
    } else if (json_object_object_get_ex(resp->body, "resources", &list) &&
               json_object_is_type(list, json_type_array)) {
        size_t n = json_object_array_length(list);
        /* Parents first, so "x/status" finds "x" whatever the server's order. */
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i < n; i++) {
                struct json_object *r = json_object_array_get_idx(list, i), *name;
                if (!json_object_object_get_ex(r, "name", &name))
                    continue;
                int sub = strchr(json_object_get_string(name), '/') != NULL;
                if (sub != pass)
                    continue;
                int rc = add_resource(d, g->group, g->version, r);
                if (rc < 0) {
                    note_err(d, rc);
                    break;
                }
            }
        }
    } else {
        note_err(d, MUSTER_EPROTO);
    }
    muster_free(g);
    finish_one(d);
}

static void fetch_group_version(struct kube_discovery *d, const char *group, const char *version)
{
    char path[512];
    int n = group[0] ? snprintf(path, sizeof(path), "/apis/%s/%s", group, version)
                     : snprintf(path, sizeof(path), "/api/%s", version);
    struct gv_ctx *g = muster_calloc(1, sizeof(*g));
    if (n < 0 || (size_t)n >= sizeof(path) || strlen(group) >= sizeof(g->group) ||
        strlen(version) >= sizeof(g->version) || !g) {
        muster_free(g);
        note_err(d, g ? MUSTER_ELIMIT : MUSTER_ENOMEM);
        return;
    }
    g->d = d;
    snprintf(g->group, sizeof(g->group), "%s", group);
    snprintf(g->version, sizeof(g->version), "%s", version);
    struct kube_request req = {.verb = KUBE_GET, .path = path};
    int rc = kube_request(d->client, &req, on_resources, g);
    if (rc < 0) {
        muster_free(g);
        note_err(d, rc);
        return;
    }
    d->pending++;
}

static void on_apis(int err, const struct kube_response *resp, void *ud)
{
    struct kube_discovery *d = ud;
    struct json_object *groups;
    if (err) {
        note_err(d, err);
    } else if (json_object_object_get_ex(resp->body, "groups", &groups) &&
               json_object_is_type(groups, json_type_array)) {
        size_t count = 0;
        for (size_t i = 0; i < json_object_array_length(groups); i++) {
            struct json_object *gr = json_object_array_get_idx(groups, i), *name, *versions;
            if (!json_object_object_get_ex(gr, "name", &name) ||
                !json_object_object_get_ex(gr, "versions", &versions))
                continue;
            for (size_t j = 0; j < json_object_array_length(versions); j++) {
                struct json_object *v;
                if (!json_object_object_get_ex(json_object_array_get_idx(versions, j), "version",
                                               &v))
                    continue;
                if (++count > KUBE_DISCOVERY_MAX_GROUP_VERSIONS) {
                    note_err(d, MUSTER_ELIMIT);
                    break;
                }
                fetch_group_version(d, json_object_get_string(name), json_object_get_string(v));
            }
        }
    } else {
        note_err(d, MUSTER_EPROTO);
    }
    finish_one(d);
}

static void on_api(int err, const struct kube_response *resp, void *ud)
{
    struct kube_discovery *d = ud;
    struct json_object *versions;
    if (err) {
        note_err(d, err);
    } else if (json_object_object_get_ex(resp->body, "versions", &versions) &&
               json_object_is_type(versions, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(versions); i++)
            fetch_group_version(d, "",
                                json_object_get_string(json_object_array_get_idx(versions, i)));
    } else {
        note_err(d, MUSTER_EPROTO);
    }
    /* The named groups are asked for only now, so a refresh that returned 0 always ends in cb. */
    struct kube_request req = {.verb = KUBE_GET, .path = "/apis"};
    int rc = kube_request(d->client, &req, on_apis, d);
    if (rc < 0)
        note_err(d, rc);
    else
        d->pending++;
    finish_one(d);
}

int kube_discovery_init(struct kube_discovery *d, struct kube_client *client)
{
    memset(d, 0, sizeof(*d));
    d->client = client;
    return client ? 0 : MUSTER_EINVAL;
}

int kube_discovery_refresh(struct kube_discovery *d, void (*cb)(int err, void *ud), void *ud)
{
    if (d->refreshing)
        return MUSTER_EBUSY;
    struct kube_request req = {.verb = KUBE_GET, .path = "/api"};
    int rc = kube_request(d->client, &req, on_api, d);
    if (rc < 0)
        return rc;
    d->refreshing = 1;
    d->pending = 1;
    d->err = 0;
    d->cb = cb;
    d->ud = ud;
    return 0;
}

const struct kube_api_resource *kube_discovery_find(const struct kube_discovery *d,
                                                    const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return NULL;
    const char *slash = strchr(api_version, '/');
    size_t glen = slash ? (size_t)(slash - api_version) : 0;
    const char *version = slash ? slash + 1 : api_version;
    for (size_t i = 0; i < d->n; i++) {
        const struct kube_api_resource *e = &d->res[i];
        if (strlen(e->group) == glen && strncmp(e->group, api_version, glen) == 0 &&
            strcmp(e->version, version) == 0 && strcmp(e->kind, kind) == 0)
            return e;
    }
    return NULL;
}

int kube_discovery_path(const struct kube_discovery *d, const char *api_version, const char *kind,
                        const char *ns, const char *name, char *buf, size_t cap)
{
    const struct kube_api_resource *e = kube_discovery_find(d, api_version, kind);
    if (!e)
        return MUSTER_ENOENT;
    return kube_path(buf, cap, e->group, e->version, e->namespaced ? ns : NULL, e->resource, name);
}

int kube_discovery_close(struct kube_discovery *d)
{
    if (d->refreshing)
        return MUSTER_EBUSY;
    table_free(d->res, d->n);
    d->res = NULL;
    d->n = 0;
    return 0;
}
