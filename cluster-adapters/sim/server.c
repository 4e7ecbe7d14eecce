/* The Kubernetes REST front of muster-sim on h2o + libuv: routing, discovery documents, the
 * verbs over sim_store, fault injection and orderly shutdown; the chunked watch streams and
 * their bookmarks are server_watch.c. */
#include "cluster-adapters/sim/server.h"
#include "cluster-adapters/sim/server_int.h"

#include "cluster-adapters/kube/httpserver.h"

#include "cluster-adapters/sim/discovery.h"
#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/selector.h"
#include "cluster-adapters/sim/scale.h"
#include "cluster-adapters/sim/status.h"
#include "cluster-adapters/sim/validate.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/sim/table.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/json.h"
#include "queue/mem.h"

#include <errno.h>
#include <h2o.h>
#include <h2o/http2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define SIM_DEFAULT_MAX_BODY (3u * 1024 * 1024) /* kube-apiserver's MaxRequestBodyBytes */
#define SIM_DEFAULT_WATCH_BUFFER (16u * 1024 * 1024)
#define SIM_MAX_SEGMENTS 10
#define SIM_QUERY_VALUE_MAX 4096
#define SIM_TICK_MS 100
#define SIM_SHUTDOWN_TICK_MS 10

/* ---- small helpers ---- */

const char *sim__to_json(json_object *obj, size_t *len)
{
    const char *s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
                                                            JSON_C_TO_STRING_NOSLASHESCAPE);
    *len = strlen(s);
    return s;
}

/* Sends obj (borrowed) as the whole response. */
static void respond_json(h2o_req_t *req, int code, json_object *obj)
{
    size_t len = 0;
    const char *s = sim__to_json(obj, &len);
    /* kube-apiserver terminates JSON bodies with a newline; keep byte-compatible output. */
    char *body = h2o_mem_alloc_pool(&req->pool, len + 1);
    memcpy(body, s, len);
    body[len] = '\n';
    req->res.status = code;
    req->res.reason = kube_http_reason(code);
    req->res.content_length = len + 1;
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL,
                   H2O_STRLIT("application/json"));
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CACHE_CONTROL, NULL,
                   H2O_STRLIT("no-cache, private"));
    h2o_send_inline(req, body, len + 1);
}

/* Sends obj (ownership taken), made for this answer, as a 200; NULL (out of memory) is a 500. */
static void respond_made(h2o_req_t *req, json_object *obj)
{
    if (obj)
        respond_json(req, 200, obj);
    else
        sim__respond_status(req, NULL);
    json_object_put(obj);
}

/* Sends a Status (ownership taken) with its own code. */
void sim__respond_status(h2o_req_t *req, json_object *st)
{
    if (!st) {
        req->res.status = 500;
        req->res.reason = "Internal Server Error";
        h2o_send_inline(req, H2O_STRLIT("out of memory\n"));
        return;
    }
    respond_json(req, sim_status_code(st), st);
    json_object_put(st);
}

static void respond_not_found(h2o_req_t *req)
{
    json_object *st = sim_status_new(404, "NotFound",
                                     "the server could not find the requested "
                                     "resource",
                                     NULL, NULL);
    if (st)
        json_object_object_add(st, "details", json_object_new_object());
    sim__respond_status(req, st);
}

static void respond_text(h2o_req_t *req, int code, const char *text)
{
    req->res.status = code;
    req->res.reason = kube_http_reason(code);
    req->res.content_length = strlen(text);
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL,
                   H2O_STRLIT("text/plain; charset=utf-8"));
    h2o_send_inline(req, text, strlen(text));
}


/* Finds query parameter key and URL-decodes it into buf. Returns 1 when found, 0 when absent,
 * MUSTER_ETOOBIG when the value does not fit. */
int sim__query_param(h2o_req_t *req, const char *key, char *buf, size_t cap)
{
    if (req->query_at == SIZE_MAX)
        return 0;
    const char *p = req->path.base + req->query_at + 1;
    const char *end = req->path.base + req->path.len;
    size_t klen = strlen(key);
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *pe = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(pe - p));
        const char *ke = eq ? eq : pe;
        if ((size_t)(ke - p) == klen && memcmp(p, key, klen) == 0) {
            size_t o = 0;
            for (const char *v = eq ? eq + 1 : pe; v < pe; v++) {
                char c = *v;
                if (c == '+')
                    c = ' ';
                else if (c == '%' && pe - v >= 3 && kube_hex_digit(v[1]) >= 0 && kube_hex_digit(v[2]) >= 0) {
                    c = (char)(kube_hex_digit(v[1]) * 16 + kube_hex_digit(v[2]));
                    v += 2;
                }
                if (o + 1 >= cap)
                    return MUSTER_ETOOBIG;
                buf[o++] = c;
            }
            buf[o] = '\0';
            return 1;
        }
        p = pe + 1;
    }
    return 0;
}

int sim__query_bool(h2o_req_t *req, const char *key)
{
    char v[16];
    if (sim__query_param(req, key, v, sizeof(v)) != 1)
        return 0;
    return strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "True") == 0;
}

int sim__parse_int64(const char *s, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return MUSTER_EINVAL;
    *out = v;
    return 0;
}

static int method_is(h2o_req_t *req, const char *m)
{
    return h2o_memis(req->method.base, req->method.len, m, strlen(m));
}

static h2o_iovec_t header_value(h2o_req_t *req, const h2o_token_t *token)
{
    ssize_t i = h2o_find_header(&req->headers, token, -1);
    return i < 0 ? h2o_iovec_init(NULL, 0) : req->headers.entries[i].value;
}

/* kubectl get asks for "application/json;as=Table;v=v1;g=meta.k8s.io,...". */
int sim__wants_table(h2o_req_t *req, const struct sim_resource *r)
{
    h2o_iovec_t a = header_value(req, H2O_TOKEN_ACCEPT);
    return a.base && h2o_strstr(a.base, a.len, H2O_STRLIT("as=Table")) != SIZE_MAX &&
           sim_table_supported(r);
}

/* client-go's metadata client (metadata informers) asks for
 * "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1" for a get or a watch and
 * "...;as=PartialObjectMetadataList;..." for a list: objects reduced to kind, apiVersion and
 * metadata. A request offering only the other form falls back to whole objects. */
int sim__wants_metadata(h2o_req_t *req, int list)
{
    h2o_iovec_t a = header_value(req, H2O_TOKEN_ACCEPT);
    static const char tag[] = "as=PartialObjectMetadata";
    for (size_t off = 0; a.base && off < a.len;) {
        size_t at = h2o_strstr(a.base + off, a.len - off, tag, sizeof(tag) - 1);
        if (at == SIZE_MAX)
            return 0;
        size_t end = off + at + sizeof(tag) - 1;
        int is_list = a.len - end >= 4 && memcmp(a.base + end, "List", 4) == 0;
        size_t after = end + (is_list ? 4 : 0);
        int whole =
            after == a.len || a.base[after] == ';' || a.base[after] == ',' || a.base[after] == ' ';
        if (whole && is_list == list)
            return 1;
        off = end;
    }
    return 0;
}

/* The PartialObjectMetadata of obj: a new object sharing obj's metadata. */
json_object *sim__partial_metadata(json_object *obj)
{
    json_object *p = json_object_new_object(), *md = NULL;
    if (!p)
        return NULL;
    json_object_object_add(p, "kind", json_object_new_string("PartialObjectMetadata"));
    json_object_object_add(p, "apiVersion", json_object_new_string("meta.k8s.io/v1"));
    if (json_object_object_get_ex(obj, "metadata", &md))
        json_object_object_add(p, "metadata", json_object_get(md));
    return p;
}

/* A PartialObjectMetadataList of list (a List of whole objects). */
static json_object *partial_metadata_list(json_object *list)
{
    json_object *out = json_object_new_object(), *items = json_object_new_array(), *lm = NULL;
    if (!out || !items) {
        json_object_put(out);
        json_object_put(items);
        return NULL;
    }
    json_object_object_add(out, "kind", json_object_new_string("PartialObjectMetadataList"));
    json_object_object_add(out, "apiVersion", json_object_new_string("meta.k8s.io/v1"));
    if (json_object_object_get_ex(list, "metadata", &lm))
        json_object_object_add(out, "metadata", json_object_get(lm));
    json_object *in = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(in); i++)
        json_object_array_add(items, sim__partial_metadata(json_object_array_get_idx(in, i)));
    json_object_object_add(out, "items", items);
    return out;
}

static unsigned next_rand(struct sim_server *srv)
{
    /* xorshift32: deterministic per seed, so fault-injection runs can be replayed. */
    unsigned x = srv->rand_state ? srv->rand_state : 2463534242u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    srv->rand_state = x;
    return x;
}

static void serve_api_versions(struct sim_server *srv, h2o_req_t *req)
{
    char addr[128];
    snprintf(addr, sizeof(addr), "%s:%d", srv->cfg.host, srv->port);
    json_object *v = json_object_new_object();
    json_object_object_add(v, "kind", json_object_new_string("APIVersions"));
    json_object *versions = json_object_new_array();
    json_object_array_add(versions, json_object_new_string("v1"));
    json_object_object_add(v, "versions", versions);
    json_object *cidrs = json_object_new_array();
    json_object *c = json_object_new_object();
    json_object_object_add(c, "clientCIDR", json_object_new_string("0.0.0.0/0"));
    json_object_object_add(c, "serverAddress", json_object_new_string(addr));
    json_object_array_add(cidrs, c);
    json_object_object_add(v, "serverAddressByClientCIDRs", cidrs);
    respond_json(req, 200, v);
    json_object_put(v);
}

static void serve_version(h2o_req_t *req)
{
    json_object *v = json_object_new_object();
    json_object_object_add(v, "major", json_object_new_string("1"));
    json_object_object_add(v, "minor", json_object_new_string("32"));
    json_object_object_add(v, "gitVersion", json_object_new_string("v1.32.0-muster-sim"));
    json_object_object_add(v, "gitCommit",
                           json_object_new_string("0000000000000000000000000000000000000000"));
    json_object_object_add(v, "gitTreeState", json_object_new_string("clean"));
    json_object_object_add(v, "buildDate", json_object_new_string("2026-01-01T00:00:00Z"));
    json_object_object_add(v, "goVersion", json_object_new_string("go1.23.0"));
    json_object_object_add(v, "compiler", json_object_new_string("gc"));
    json_object_object_add(v, "platform", json_object_new_string("linux/amd64"));
    respond_json(req, 200, v);
    json_object_put(v);
}

/* ---- resource verbs ---- */

struct route {
    const struct sim_resource *r;
    char ns[254];
    char name[254];
    int has_ns, has_name, status;
    int scale; /* NAME/scale */
};

/* Parses a JSON body, answering 400 or 415 itself on failure. */
static json_object *parse_body(h2o_req_t *req)
{
    h2o_iovec_t ct = header_value(req, H2O_TOKEN_CONTENT_TYPE);
    if (ct.base && h2o_strstr(ct.base, ct.len, H2O_STRLIT("json")) == SIZE_MAX) {
        /* Protobuf and CBOR bodies are not decoded; the apiserver's answer for an encoding it
         * does not accept is 415. */
        sim__respond_status(req,
                            sim_status_newf(415, "UnsupportedMediaType", NULL, NULL,
                                            "the body of the request was in an unknown format - "
                                            "accepted media types include: application/json, "
                                            "application/merge-patch+json, "
                                            "application/json-patch+json"));
        return NULL;
    }
    if (req->entity.base == NULL || req->entity.len == 0) {
        sim__respond_status(
            req, sim_status_new(400, "BadRequest", "the request body is empty", NULL, NULL));
        return NULL;
    }
    json_tokener *tok = json_tokener_new();
    json_object *obj = json_tokener_parse_ex(tok, req->entity.base, (int)req->entity.len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!obj || jerr != json_tokener_success || used != req->entity.len) {
        /* Trailing whitespace is fine; anything else is not. */
        int trailing_ok = obj && jerr == json_tokener_success;
        for (size_t i = used; trailing_ok && i < req->entity.len; i++)
            if (!strchr(" \t\r\n", req->entity.base[i]))
                trailing_ok = 0;
        if (!trailing_ok) {
            json_object_put(obj);
            sim__respond_status(req,
                                sim_status_newf(400, "BadRequest", NULL, NULL,
                                                "couldn't get version/kind; json parse error: %s",
                                                json_tokener_error_desc(jerr)));
            return NULL;
        }
    }
    return obj;
}

static int parse_selectors(h2o_req_t *req, struct sim_selector **labels,
                           struct sim_selector **fields)
{
    char *buf = h2o_mem_alloc_pool(&req->pool, SIM_QUERY_VALUE_MAX);
    char err[512];
    *labels = *fields = NULL;
    int rc = sim__query_param(req, "labelSelector", buf, SIM_QUERY_VALUE_MAX);
    if (rc < 0 || (rc == 1 && sim_selector_parse_labels(buf, labels, err, sizeof(err)) < 0)) {
        sim__respond_status(req, sim_status_newf(400, "BadRequest", NULL, NULL,
                                                 "unable to parse requirement: %s",
                                                 rc < 0 ? "selector too long" : err));
        return MUSTER_EINVAL;
    }
    rc = sim__query_param(req, "fieldSelector", buf, SIM_QUERY_VALUE_MAX);
    if (rc < 0 || (rc == 1 && sim_selector_parse_fields(buf, fields, err, sizeof(err)) < 0)) {
        sim_selector_free(*labels);
        *labels = NULL;
        sim__respond_status(req, sim_status_newf(400, "BadRequest", NULL, NULL, "%s",
                                                 rc < 0 ? "selector too long" : err));
        return MUSTER_EINVAL;
    }
    for (size_t i = 0; i < sim_selector_count(*fields); i++) {
        const char *k = sim_selector_key(*fields, i);
        /* Custom resources support only these two field labels. */
        if (strcmp(k, "metadata.name") != 0 && strcmp(k, "metadata.namespace") != 0) {
            sim__respond_status(req, sim_status_newf(400, "BadRequest", NULL, NULL,
                                                     "field label not supported: %.200s", k));
            sim_selector_free(*labels);
            sim_selector_free(*fields);
            *labels = *fields = NULL;
            return MUSTER_EINVAL;
        }
    }
    return 0;
}

static void serve_list(struct sim_server *srv, h2o_req_t *req, const struct route *rt)
{
    struct sim_selector *labels = NULL, *fields = NULL;
    if (parse_selectors(req, &labels, &fields) < 0)
        return;
    if (sim__query_bool(req, "watch")) {
        sim__serve_watch(srv, req, rt->r, rt->has_ns ? rt->ns : NULL, labels, fields);
        return;
    }
    char buf[SIM_QUERY_VALUE_MAX];
    struct sim_list_opts opts = {labels, fields, 0, NULL};
    int64_t limit = 0;
    if (sim__query_param(req, "limit", buf, sizeof(buf)) == 1 && buf[0] &&
        (sim__parse_int64(buf, &limit) < 0 || limit < 0)) {
        sim__respond_status(
            req, sim_status_newf(400, "BadRequest", NULL, NULL, "invalid limit \"%.40s\"", buf));
        goto out;
    }
    opts.limit = (long)limit;
    char *cont = h2o_mem_alloc_pool(&req->pool, SIM_QUERY_VALUE_MAX);
    if (sim__query_param(req, "continue", cont, SIM_QUERY_VALUE_MAX) == 1)
        opts.cont = cont;
    char rvbuf[64], match[32] = "";
    sim__query_param(req, "resourceVersionMatch", match, sizeof(match));
    if (sim__query_param(req, "resourceVersion", rvbuf, sizeof(rvbuf)) == 1 && rvbuf[0]) {
        int64_t rv = 0;
        if (sim__parse_int64(rvbuf, &rv) < 0) {
            sim__respond_status(req, sim_status_newf(400, "BadRequest", NULL, NULL,
                                                     "invalid resource version \"%.40s\"", rvbuf));
            goto out;
        }
        /* Only an exact read at an old revision is impossible; NotOlderThan is served from
         * the present, as the watch cache does. */
        if (strcmp(match, "Exact") == 0 && rv != sim_store_rv(srv->store)) {
            sim__respond_status(req, sim_status_newf(410, "Expired", NULL, NULL,
                                                     "too old resource version: %" PRId64
                                                     " (%" PRId64 ")",
                                                     rv, sim_store_floor_rv(srv->store)));
            goto out;
        }
    }
    json_object *list = NULL, *status = NULL;
    if (sim_store_list(srv->store, rt->r, rt->has_ns ? rt->ns : NULL, &opts, &list, &status) < 0)
        sim__respond_status(req, status);
    else if (sim__wants_table(req, rt->r)) {
        json_object *t = sim_table_new(rt->r, json_object_object_get(list, "items"),
                                       json_object_object_get(list, "metadata"), time(NULL));
        respond_json(req, 200, t);
        json_object_put(t);
        json_object_put(list);
    } else if (sim__wants_metadata(req, 1)) {
        respond_made(req, partial_metadata_list(list));
        json_object_put(list);
    } else {
        respond_json(req, 200, list);
        json_object_put(list);
    }
out:
    sim_selector_free(labels);
    sim_selector_free(fields);
}

static int namespace_exists(struct sim_server *srv, const char *ns)
{
    const struct sim_resource *nsr = sim_resource_find("", 0, "v1", 2, "namespaces", 10);
    return sim_store_get(srv->store, nsr, NULL, ns, NULL, NULL) == 0;
}

/* dryRun=All adds SIM_WRITE_DRY_RUN; any other value is answered 400 here (returns -1). */
/* A JSON value from len bytes (NULL when they are not one JSON value). */
static json_object *parse_json_len(const char *p, size_t len)
{
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return NULL;
    json_object *o = json_tokener_parse_ex(tok, p, (int)len);
    json_tokener_free(tok);
    return o;
}

static int dry_run_flag(h2o_req_t *req)
{
    char v[32];
    int rc = sim__query_param(req, "dryRun", v, sizeof(v));
    if (rc == 0 || (rc == 1 && v[0] == '\0'))
        return 0;
    if (rc == 1 && strcmp(v, "All") == 0)
        return SIM_WRITE_DRY_RUN;
    sim__respond_status(req,
                        sim_status_newf(400, "BadRequest", NULL, NULL,
                                        "Invalid dry run value: %.30s, the only valid value is All",
                                        rc == 1 ? v : "(too long)"));
    return -1;
}

/* --validate-writes: runs the write as a dry run first and checks the object it would store.
 * Returns 0 to go on, -1 when the request was answered (refused, or the dry run failed). */
static int validate_write(struct sim_server *srv, h2o_req_t *req, const struct route *rt,
                          json_object *body, int create, int flags)
{
    if (!sim_validator_covers(srv->validator, rt->r))
        return 0;
    json_object *out = NULL, *status = NULL;
    int rc = create ? sim_store_create(srv->store, rt->r, rt->ns, body, time(NULL),
                                       SIM_WRITE_DRY_RUN | SIM_WRITE_SHARE, &out, &status)
                    : sim_store_update(srv->store, rt->r, rt->ns, rt->name, body,
                                       flags | SIM_WRITE_DRY_RUN | SIM_WRITE_SHARE, &out, &status);
    if (rc < 0) {
        sim__respond_status(req, status);
        return -1;
    }
    json_object *st = sim_validator_check(srv->validator, rt->r, out);
    json_object_put(out);
    if (st) {
        sim__respond_status(req, st);
        return -1;
    }
    return 0;
}

static void serve_create(struct sim_server *srv, h2o_req_t *req, const struct route *rt)
{
    int dry = dry_run_flag(req);
    if (dry < 0)
        return;
    if (rt->r->namespaced && !namespace_exists(srv, rt->ns)) {
        /* The NamespaceLifecycle admission plugin. */
        sim__respond_status(req, sim_status_newf(404, "NotFound", NULL, rt->ns,
                                                 "namespaces \"%s\" not found", rt->ns));
        return;
    }
    json_object *body = parse_body(req);
    if (!body)
        return;
    json_object *out = NULL, *status = NULL;
    if (validate_write(srv, req, rt, body, 1, 0) < 0) {
        /* answered */
    } else if (sim_store_create(srv->store, rt->r, rt->ns, body, time(NULL), dry | SIM_WRITE_SHARE,
                                &out, &status) < 0) {
        sim__respond_status(req, status);
    } else {
        respond_json(req, 201, out);
        json_object_put(out);
    }
    json_object_put(body);
}

static void serve_update(struct sim_server *srv, h2o_req_t *req, const struct route *rt)
{
    int dry = dry_run_flag(req);
    if (dry < 0)
        return;
    json_object *body = parse_body(req);
    if (!body)
        return;
    json_object *out = NULL, *status = NULL;
    int flags = (rt->status ? SIM_WRITE_STATUS : 0) | dry;
    if (validate_write(srv, req, rt, body, 0, flags & ~SIM_WRITE_DRY_RUN) < 0) {
        /* answered */
    } else if (sim_store_update(srv->store, rt->r, rt->ns, rt->name, body, flags | SIM_WRITE_SHARE,
                                &out, &status) < 0) {
        sim__respond_status(req, status);
    } else {
        respond_json(req, 200, out);
        json_object_put(out);
    }
    json_object_put(body);
}

static int has_prefix(h2o_iovec_t v, const char *prefix)
{
    size_t n = strlen(prefix);
    return v.base && v.len >= n && memcmp(v.base, prefix, n) == 0;
}

static void method_not_allowed(h2o_req_t *req)
{
    sim__respond_status(req,
                        sim_status_new(405, "MethodNotAllowed",
                                       "the server does not allow this method on the requested "
                                       "resource",
                                       NULL, NULL));
}

/* Applies the request's patch body (merge, JSON or strategic merge patch) to cur (borrowed).
 * Returns the patched object, or NULL when the request was answered (415, 400, 422). */
static json_object *patch_request(h2o_req_t *req, json_object *cur)
{
    h2o_iovec_t ct = header_value(req, H2O_TOKEN_CONTENT_TYPE);
    int kind; /* 0 merge, 1 json patch */
    if (has_prefix(ct, "application/json-patch+json"))
        kind = 1;
    else if (has_prefix(ct, "application/merge-patch+json"))
        kind = 0;
    else if (has_prefix(ct, "application/strategic-merge-patch+json"))
        kind = 0; /* custom resources have no patch strategies: a merge patch is what remains */
    else {
        sim__respond_status(req,
                            sim_status_newf(415, "UnsupportedMediaType", NULL, NULL,
                                            "the body of the request was in an unknown format - "
                                            "accepted media types include: "
                                            "application/json-patch+json, "
                                            "application/merge-patch+json"));
        return NULL;
    }
    json_object *patch = parse_body(req);
    if (!patch)
        return NULL;
    json_object *patched = NULL;
    char err[512] = "";
    int rc = kind ? sim_json_patch(cur, patch, &patched, err, sizeof(err))
                  : sim_merge_patch(cur, patch, &patched);
    json_object_put(patch);
    if (rc < 0 || !json_object_is_type(patched, json_type_object)) {
        /* The apiserver's NewGenericServerResponse(422): a fixed message, the reason in a
         * cause. */
        json_object_put(patched);
        json_object *st = sim_status_new(422, "Invalid",
                                         "the server rejected our request due to an error in "
                                         "our request",
                                         NULL, NULL);
        if (st)
            sim_status_add_cause(st, "UnexpectedServerResponse",
                                 err[0] ? err : "the patch does not yield an object", "");
        sim__respond_status(req, st);
        return NULL;
    }
    return patched;
}

static void serve_patch(struct sim_server *srv, h2o_req_t *req, const struct route *rt)
{
    int dry = dry_run_flag(req);
    if (dry < 0)
        return;
    json_object *cur = NULL, *status = NULL, *patched = NULL, *out = NULL;
    if (sim_store_get(srv->store, rt->r, rt->ns, rt->name, &cur, &status) < 0) {
        sim__respond_status(req, status);
        goto done;
    }
    patched = patch_request(req, cur);
    if (!patched)
        goto done;
    int flags = (rt->status ? SIM_WRITE_STATUS : 0) | dry;
    if (validate_write(srv, req, rt, patched, 0, flags & ~SIM_WRITE_DRY_RUN) < 0)
        ; /* answered */
    else if (sim_store_update(srv->store, rt->r, rt->ns, rt->name, patched, flags | SIM_WRITE_SHARE,
                              &out, &status) < 0)
        sim__respond_status(req, status);
    else
        respond_json(req, 200, out);
done:
    json_object_put(out);
    json_object_put(patched);
    json_object_put(cur);
}

/* GET, PUT and PATCH of NAME/scale (scale.h): the Scale is read from the stored object; a
 * written Scale (a PUT's body, or the current Scale patched) becomes an update of the object's
 * spec.replicas, so the detector and everything else see an ordinary spec change. */
static void serve_scale(struct sim_server *srv, h2o_req_t *req, const struct route *rt)
{
    int get = method_is(req, "GET"), put = method_is(req, "PUT"), patch = method_is(req, "PATCH");
    if (!get && !put && !patch) {
        method_not_allowed(req);
        return;
    }
    int dry = get ? 0 : dry_run_flag(req);
    if (dry < 0)
        return;
    json_object *cur = NULL, *status = NULL, *scale = NULL, *updated = NULL, *out = NULL;
    if (sim_store_get(srv->store, rt->r, rt->ns, rt->name, &cur, &status) < 0) {
        sim__respond_status(req, status);
        return;
    }
    if (get) {
        respond_made(req, sim_scale_of(rt->r, cur));
        goto done;
    }
    if (put) {
        scale = parse_body(req);
    } else {
        json_object *now = sim_scale_of(rt->r, cur);
        scale = now ? patch_request(req, now) : NULL;
        json_object_put(now);
    }
    if (!scale)
        goto done;
    if (sim_scale_apply(rt->r, cur, scale, rt->name, &updated, &status) < 0) {
        sim__respond_status(req, status);
        goto done;
    }
    if (sim_store_update(srv->store, rt->r, rt->ns, rt->name, updated, dry | SIM_WRITE_SHARE, &out,
                         &status) < 0)
        sim__respond_status(req, status);
    else
        respond_made(req, sim_scale_of(rt->r, out));
done:
    json_object_put(out);
    json_object_put(updated);
    json_object_put(scale);
    json_object_put(cur);
}

/* Deletes everything in a namespace that was just deleted (the namespace controller's job,
 * done at once: there is no Terminating phase here). */
static void delete_namespace_contents(struct sim_server *srv, const char *ns)
{
    for (size_t i = 0; i < sim_resource_count(); i++) {
        const struct sim_resource *r = sim_resource_at(i);
        if (!r->namespaced)
            continue;
        json_object *list = NULL;
        if (sim_store_list(srv->store, r, ns, NULL, &list, NULL) < 0)
            continue;
        json_object *items = json_object_object_get(list, "items");
        for (size_t j = 0; j < json_object_array_length(items); j++) {
            const char *name = sim_meta_str(json_object_array_get_idx(items, j), "name");
            sim_store_delete(srv->store, r, ns, name, NULL, NULL, time(NULL), NULL, NULL);
        }
        json_object_put(list);
    }
}

static void serve_delete(struct sim_server *srv, h2o_req_t *req, const struct route *rt)
{
    int dry = dry_run_flag(req);
    if (dry < 0)
        return;
    if (!dry && req->entity.base && req->entity.len) {
        /* DeleteOptions carries dryRun in the body (that is where kubectl puts it). */
        json_object *o = parse_json_len(req->entity.base, req->entity.len);
        json_object *d = NULL;
        if (o && json_object_object_get_ex(o, "dryRun", &d) &&
            json_object_is_type(d, json_type_array) && json_object_array_length(d) == 1 &&
            strcmp(json_object_get_string(json_object_array_get_idx(d, 0)), "All") == 0)
            dry = SIM_WRITE_DRY_RUN;
        json_object_put(o);
    }
    if (dry) {
        /* What would be deleted (preconditions are not evaluated in a dry run here). */
        json_object *out = NULL, *status = NULL;
        if (sim_store_get(srv->store, rt->r, rt->ns, rt->name, &out, &status) < 0) {
            sim__respond_status(req, status);
            return;
        }
        respond_json(req, 200, out);
        json_object_put(out);
        return;
    }
    const char *uid = NULL, *rv = NULL;
    json_object *opts = NULL;
    if (req->entity.base && req->entity.len) {
        opts = parse_body(req);
        if (!opts)
            return;
        json_object *pre = NULL, *v = NULL;
        if (json_object_object_get_ex(opts, "preconditions", &pre)) {
            if (json_object_object_get_ex(pre, "uid", &v))
                uid = json_object_get_string(v);
            if (json_object_object_get_ex(pre, "resourceVersion", &v))
                rv = json_object_get_string(v);
        }
    }
    json_object *out = NULL, *status = NULL;
    if (sim_store_delete(srv->store, rt->r, rt->ns, rt->name, uid, rv, time(NULL), &out, &status) <
        0) {
        sim__respond_status(req, status);
    } else {
        if (!rt->r->namespaced && strcmp(rt->r->plural, "namespaces") == 0 && !rt->r->group[0])
            delete_namespace_contents(srv, rt->name);
        respond_json(req, 200, out);
        json_object_put(out);
    }
    json_object_put(opts);
}

static void serve_delete_collection(struct sim_server *srv, h2o_req_t *req, const struct route *rt)
{
    struct sim_selector *labels = NULL, *fields = NULL;
    if (parse_selectors(req, &labels, &fields) < 0)
        return;
    struct sim_list_opts opts = {labels, fields, 0, NULL};
    json_object *list = NULL, *status = NULL;
    if (sim_store_list(srv->store, rt->r, rt->has_ns ? rt->ns : NULL, &opts, &list, &status) < 0) {
        sim__respond_status(req, status);
    } else {
        json_object *items = json_object_object_get(list, "items");
        for (size_t j = 0; j < json_object_array_length(items); j++) {
            json_object *o = json_object_array_get_idx(items, j);
            const char *ns = sim_meta_str(o, "namespace");
            sim_store_delete(srv->store, rt->r, ns ? ns : "", sim_meta_str(o, "name"), NULL, NULL,
                             time(NULL), NULL, NULL);
        }
        respond_json(req, 200, list);
        json_object_put(list);
    }
    sim_selector_free(labels);
    sim_selector_free(fields);
}

static void serve_resource(struct sim_server *srv, h2o_req_t *req, const struct route *rt)
{
    if (!rt->has_name) {
        if (method_is(req, "GET"))
            serve_list(srv, req, rt);
        else if (method_is(req, "POST") && rt->r->namespaced && !rt->has_ns)
            method_not_allowed(req); /* creating needs the namespace in the path */
        else if (method_is(req, "POST"))
            serve_create(srv, req, rt);
        else if (method_is(req, "DELETE"))
            serve_delete_collection(srv, req, rt);
        else
            method_not_allowed(req);
        return;
    }
    if (rt->scale) {
        serve_scale(srv, req, rt);
        return;
    }
    if (method_is(req, "GET")) {
        json_object *out = NULL, *status = NULL;
        if (sim_store_get(srv->store, rt->r, rt->ns, rt->name, &out, &status) < 0) {
            sim__respond_status(req, status);
            return;
        }
        if (sim__wants_table(req, rt->r) && !rt->status) {
            json_object *items = json_object_new_array();
            json_object_array_add(items, json_object_get(out));
            json_object *t = sim_table_new(rt->r, items, NULL, time(NULL));
            respond_json(req, 200, t);
            json_object_put(t);
            json_object_put(items);
        } else if (sim__wants_metadata(req, 0) && !rt->status) {
            respond_made(req, sim__partial_metadata(out));
        } else {
            respond_json(req, 200, out);
        }
        json_object_put(out);
    } else if (method_is(req, "PUT")) {
        serve_update(srv, req, rt);
    } else if (method_is(req, "PATCH")) {
        serve_patch(srv, req, rt);
    } else if (method_is(req, "DELETE") && !rt->status) {
        serve_delete(srv, req, rt);
    } else {
        method_not_allowed(req);
    }
}

/* ---- routing ---- */

static int seg_is(h2o_iovec_t s, const char *z)
{
    return h2o_memis(s.base, s.len, z, strlen(z));
}

static int copy_seg(char *dst, size_t cap, h2o_iovec_t s)
{
    if (s.len == 0 || s.len >= cap)
        return MUSTER_EINVAL;
    memcpy(dst, s.base, s.len);
    dst[s.len] = '\0';
    return 0;
}

/* Resolves [namespaces/NS/]PLURAL[/NAME[/SUB]] after /api/v1 or /apis/G/V. */
static int parse_route(const struct sim_server *srv, h2o_iovec_t group, h2o_iovec_t version,
                       h2o_iovec_t *rest, size_t n, struct route *rt)
{
    memset(rt, 0, sizeof(*rt));
    int core = group.len == 0;
    if (n >= 3 && seg_is(rest[0], "namespaces") &&
        !(core && (seg_is(rest[2], "status") || seg_is(rest[2], "finalize")))) {
        if (copy_seg(rt->ns, sizeof(rt->ns), rest[1]) < 0)
            return MUSTER_ENOENT;
        rt->has_ns = 1;
        rest += 2;
        n -= 2;
    }
    if (n < 1 || n > 3)
        return MUSTER_ENOENT;
    rt->r = sim_resource_find(group.base, group.len, version.base, version.len, rest[0].base,
                              rest[0].len);
    if (!rt->r || (rt->has_ns && !rt->r->namespaced) || !sim_api_has(~srv->cfg.hidden, rt->r))
        return MUSTER_ENOENT;
    if (n >= 2) {
        if (copy_seg(rt->name, sizeof(rt->name), rest[1]) < 0)
            return MUSTER_ENOENT;
        rt->has_name = 1;
        /* A namespaced object is addressed only through its namespace. */
        if (rt->r->namespaced && !rt->has_ns)
            return MUSTER_ENOENT;
    }
    if (n == 3) {
        if (seg_is(rest[2], "scale") && rt->r->has_scale)
            rt->scale = 1;
        else if (seg_is(rest[2], "status") && rt->r->has_status)
            rt->status = 1;
        else
            return MUSTER_ENOENT;
    }
    if (rt->r->namespaced && !rt->has_ns && !rt->has_name) {
        /* Listing across namespaces is fine; creating needs a namespace. */
        rt->ns[0] = '\0';
    }
    return 0;
}

static int fault_injected(struct sim_server *srv, h2o_req_t *req)
{
    if (srv->cfg.fault_error_rate <= 0)
        return 0;
    double x = (double)(next_rand(srv) % 1000000) / 1000000.0;
    if (x >= srv->cfg.fault_error_rate)
        return 0;
    if (next_rand(srv) % 2) {
        json_object *st = sim_status_new(429, "TooManyRequests",
                                         "Too many requests, please try again later.", NULL, NULL);
        json_object *d = json_object_new_object();
        json_object_object_add(d, "retryAfterSeconds", json_object_new_int(1));
        json_object_object_add(st, "details", d);
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_RETRY_AFTER, NULL, H2O_STRLIT("1"));
        sim__respond_status(req, st);
    } else {
        sim__respond_status(req,
                            sim_status_new(500, "InternalError",
                                           "Internal error occurred: injected fault", NULL, NULL));
    }
    return 1;
}

static void serve_events_log(struct sim_server *srv, h2o_req_t *req)
{
    char buf[64];
    int64_t since = 0;
    if (sim__query_param(req, "since", buf, sizeof(buf)) == 1 &&
        sim__parse_int64(buf, &since) < 0) {
        sim__respond_status(
            req, sim_status_new(400, "BadRequest", "since must be an integer", NULL, NULL));
        return;
    }
    json_object *log = NULL;
    if (sim_store_event_log(srv->store, since, &log) < 0) {
        sim__respond_status(req, NULL);
        return;
    }
    /* Clients want their own watch streams counted, not the simulated controllers' store
     * watchers. */
    json_object_object_add(log, "watchers", json_object_new_int64(sim__watch_streams(srv)));
    respond_json(req, 200, log);
    json_object_put(log);
}

/* The NAME of /debug/sim/clusters/NAME/..., copied into cluster; 0, or -1 once answered (a
 * wrong method, or no such name). */
static int cluster_seg(h2o_req_t *req, const char *method, h2o_iovec_t name, char *cluster,
                       size_t cap)
{
    if (!method_is(req, method)) {
        method_not_allowed(req);
        return -1;
    }
    if (name.len == 0 || name.len >= cap) {
        respond_not_found(req);
        return -1;
    }
    memcpy(cluster, name.base, name.len);
    cluster[name.len] = '\0';
    return 0;
}

/* The 404 for a cluster the hub does not have. */
static void respond_no_cluster(h2o_req_t *req, const char *cluster)
{
    sim__respond_status(req, sim_status_newf(404, "NotFound", NULL, cluster,
                                             "clusters.cluster.karmada.io \"%s\" not found",
                                             cluster));
}

/* Fault injection: a member cluster goes NotReady (or comes back). */
static void serve_cluster_ready(struct sim_server *srv, h2o_req_t *req, h2o_iovec_t name)
{
    char cluster[64];
    if (cluster_seg(req, "PUT", name, cluster, sizeof cluster))
        return;
    json_object *body = parse_body(req);
    if (!body)
        return;
    json_object *v = NULL;
    int health = -1;
    if (json_object_object_get_ex(body, "ready", &v) && json_object_is_type(v, json_type_boolean))
        health = json_object_get_boolean(v) ? SIM_CLUSTER_READY : SIM_CLUSTER_UNREACHABLE;
    else if (v && json_object_is_type(v, json_type_string) &&
             strcmp(json_object_get_string(v), "Unknown") == 0)
        health = SIM_CLUSTER_UNKNOWN;
    if (health < 0) {
        sim__respond_status(req, sim_status_new(400, "BadRequest",
                                                "expected {\"ready\": true|false|\"Unknown\"}",
                                                NULL, NULL));
    } else if (srv->cfg.set_cluster_ready(srv->cfg.hook_data, cluster, health) < 0) {
        respond_no_cluster(req, cluster);
    } else {
        respond_json(req, 200, body);
    }
    json_object_put(body);
}

/* PUT {"paused": bool}: the work status controller stops (or resumes) reflecting the member's
 * object status into its Works (sim_karmada_pause_work_status). */
static void serve_cluster_work_status(struct sim_server *srv, h2o_req_t *req, h2o_iovec_t name)
{
    char cluster[64];
    if (cluster_seg(req, "PUT", name, cluster, sizeof cluster))
        return;
    json_object *body = parse_body(req);
    if (!body)
        return;
    json_object *v = NULL;
    if (!json_object_object_get_ex(body, "paused", &v) ||
        !json_object_is_type(v, json_type_boolean)) {
        sim__respond_status(req, sim_status_new(400, "BadRequest",
                                                "expected {\"paused\": true|false}", NULL, NULL));
    } else if (srv->cfg.pause_work_status(srv->cfg.hook_data, cluster,
                                          json_object_get_boolean(v)) < 0) {
        respond_no_cluster(req, cluster);
    } else {
        respond_json(req, 200, body);
    }
    json_object_put(body);
}

/* The objects a member cluster holds (kind List, as a list of the member would read). */
static void serve_cluster_objects(struct sim_server *srv, h2o_req_t *req, h2o_iovec_t name)
{
    char cluster[64];
    json_object *items = NULL;
    if (cluster_seg(req, "GET", name, cluster, sizeof cluster))
        return;
    if (srv->cfg.cluster_objects(srv->cfg.hook_data, cluster, &items) < 0) {
        respond_no_cluster(req, cluster);
        return;
    }
    json_object *list = json_object_new_object();
    json_object_object_add(list, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(list, "kind", json_object_new_string("List"));
    json_object_object_add(list, "items", items);
    respond_json(req, 200, list);
    json_object_put(list);
}

static int authorized(struct sim_server *srv, h2o_req_t *req)
{
    if (!srv->cfg.token)
        return 1;
    h2o_iovec_t v = header_value(req, H2O_TOKEN_AUTHORIZATION);
    size_t tlen = strlen(srv->cfg.token);
    return v.base && v.len == 7 + tlen && memcmp(v.base, "Bearer ", 7) == 0 &&
           memcmp(v.base + 7, srv->cfg.token, tlen) == 0;
}

static void dispatch_request(struct sim_server *srv, h2o_req_t *req)
{
    h2o_iovec_t segs[SIM_MAX_SEGMENTS + 1];
    size_t n = 0;
    const char *p = req->path_normalized.base;
    const char *end = p + req->path_normalized.len;
    while (p < end) {
        while (p < end && *p == '/')
            p++;
        if (p == end)
            break;
        const char *s = p;
        while (p < end && *p != '/')
            p++;
        if (n == SIM_MAX_SEGMENTS) {
            respond_not_found(req);
            return;
        }
        segs[n++] = h2o_iovec_init(s, (size_t)(p - s));
    }
    if (n == 1 &&
        (seg_is(segs[0], "healthz") || seg_is(segs[0], "livez") || seg_is(segs[0], "readyz"))) {
        respond_text(req, 200, "ok");
        return;
    }
    if (!authorized(srv, req)) {
        sim__respond_status(req, sim_status_new(401, "Unauthorized", "Unauthorized", NULL, NULL));
        return;
    }
    if (n == 1 && seg_is(segs[0], "version")) {
        serve_version(req);
        return;
    }
    if (n == 3 && seg_is(segs[0], "debug") && seg_is(segs[1], "sim") && seg_is(segs[2], "events")) {
        serve_events_log(srv, req);
        return;
    }
    if (n == 3 && seg_is(segs[0], "debug") && seg_is(segs[1], "sim") &&
        seg_is(segs[2], "validation")) {
        json_object *rep = sim_validator_report(srv->validator);
        respond_json(req, 200, rep);
        json_object_put(rep);
        return;
    }
    if (n == 5 && seg_is(segs[0], "debug") && seg_is(segs[1], "sim") &&
        seg_is(segs[2], "clusters") && seg_is(segs[4], "ready") && srv->cfg.set_cluster_ready) {
        serve_cluster_ready(srv, req, segs[3]);
        return;
    }
    if (n == 5 && seg_is(segs[0], "debug") && seg_is(segs[1], "sim") &&
        seg_is(segs[2], "clusters") && seg_is(segs[4], "workstatus") &&
        srv->cfg.pause_work_status) {
        serve_cluster_work_status(srv, req, segs[3]);
        return;
    }
    if (n == 5 && seg_is(segs[0], "debug") && seg_is(segs[1], "sim") &&
        seg_is(segs[2], "clusters") && seg_is(segs[4], "objects") && srv->cfg.cluster_objects) {
        serve_cluster_objects(srv, req, segs[3]);
        return;
    }
    json_object *doc = NULL;
    struct route rt;
    if (n >= 2 && seg_is(segs[0], "openapi") && seg_is(segs[1], "v3")) {
        if (n == 2) {
            doc = sim_openapi_root(~srv->cfg.hidden);
        } else {
            char gv[256];
            const char *start = segs[2].base;
            size_t len = (size_t)(segs[n - 1].base + segs[n - 1].len - start);
            if (len < sizeof(gv)) {
                memcpy(gv, start, len);
                gv[len] = '\0';
                doc = sim_openapi_gv(~srv->cfg.hidden, gv);
            }
        }
    } else if (n >= 1 && seg_is(segs[0], "api")) {
        if (n == 1) {
            serve_api_versions(srv, req);
            return;
        }
        if (!seg_is(segs[1], "v1")) {
            respond_not_found(req);
            return;
        }
        if (n == 2) {
            doc = sim_discovery_resource_list(~srv->cfg.hidden, "", "v1");
        } else if (parse_route(srv, h2o_iovec_init("", 0), segs[1], segs + 2, n - 2, &rt) == 0) {
            if (!fault_injected(srv, req))
                serve_resource(srv, req, &rt);
            return;
        }
    } else if (n >= 1 && seg_is(segs[0], "apis")) {
        char g[128], v[64];
        if (n == 1) {
            doc = sim_discovery_group_list(~srv->cfg.hidden);
        } else if (copy_seg(g, sizeof(g), segs[1]) == 0) {
            if (n == 2) {
                doc = sim_discovery_group(~srv->cfg.hidden, g);
                if (doc) {
                    json_object_object_add(doc, "kind", json_object_new_string("APIGroup"));
                    json_object_object_add(doc, "apiVersion", json_object_new_string("v1"));
                }
            } else if (copy_seg(v, sizeof(v), segs[2]) == 0) {
                if (n == 3) {
                    /* Only versions that serve something exist. */
                    json_object *list = sim_discovery_resource_list(~srv->cfg.hidden, g, v);
                    if (json_object_array_length(json_object_object_get(list, "resources")))
                        doc = list;
                    else
                        json_object_put(list);
                } else if (parse_route(srv, segs[1], segs[2], segs + 3, n - 3, &rt) == 0) {
                    if (!fault_injected(srv, req))
                        serve_resource(srv, req, &rt);
                    return;
                }
            }
        }
    }
    if (!doc) {
        respond_not_found(req);
        return;
    }
    respond_json(req, 200, doc);
    json_object_put(doc);
}

/* ---- latency injection ---- */

struct delayed {
    uv_timer_t timer;
    struct sim_server *srv;
    h2o_req_t *req; /* NULL once h2o disposed the request */
    struct delayed **guard;
    struct delayed *prev, *next;
};

static void delayed_guard_dispose(void *p)
{
    struct delayed **g = p;
    if (*g)
        (*g)->req = NULL;
}

static void delayed_closed(uv_handle_t *h)
{
    muster_free(h->data);
}

static void delayed_fire(uv_timer_t *t)
{
    struct delayed *d = t->data;
    struct sim_server *srv = d->srv;
    if (d->prev)
        d->prev->next = d->next;
    else
        srv->delayed = d->next;
    if (d->next)
        d->next->prev = d->prev;
    if (d->req) {
        *d->guard = NULL;
        if (srv->shutting_down)
            sim__respond_status(d->req, sim_status_new(503, "ServiceUnavailable",
                                                       "the server is shutting down", NULL, NULL));
        else
            dispatch_request(srv, d->req);
    }
    uv_timer_stop(t);
    uv_close((uv_handle_t *)t, delayed_closed);
}

static int on_req(h2o_handler_t *self, h2o_req_t *req)
{
    struct sim_server *srv = ((struct handler *)self)->srv;
    if (srv->shutting_down) {
        sim__respond_status(req, sim_status_new(503, "ServiceUnavailable",
                                                "the server is shutting down", NULL, NULL));
        return 0;
    }
    if (srv->cfg.fault_latency_ms) {
        struct delayed *d = muster_calloc(1, sizeof(*d));
        if (d) {
            d->srv = srv;
            d->req = req;
            d->guard = h2o_mem_alloc_shared(&req->pool, sizeof(*d->guard), delayed_guard_dispose);
            *d->guard = d;
            /* The loop's cached time may predate this request by a whole poll; without an
             * update the delay could fall short of what was asked. */
            uv_update_time(srv->loop);
            uv_timer_init(srv->loop, &d->timer);
            d->timer.data = d;
            d->next = srv->delayed;
            if (srv->delayed)
                srv->delayed->prev = d;
            srv->delayed = d;
            uv_timer_start(&d->timer, delayed_fire, srv->cfg.fault_latency_ms, 0);
            return 0;
        }
    }
    dispatch_request(srv, req);
    return 0;
}

/* ---- connections, tick, lifecycle ---- */

static void conn_closed(uv_handle_t *h)
{
    struct conn *c = (struct conn *)h;
    struct sim_server *srv = c->srv;
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    srv->nconns--;
    muster_free(c);
}

static void conn_free_unaccepted(uv_handle_t *h)
{
    muster_free(h);
}

static void on_accept(uv_stream_t *listener, int status)
{
    struct sim_server *srv = listener->data;
    if (status != 0 || srv->shutting_down)
        return;
    struct conn *c = muster_calloc(1, sizeof(*c));
    if (!c)
        return;
    c->srv = srv;
    uv_tcp_init(srv->loop, &c->tcp);
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, conn_free_unaccepted);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    c->next = srv->conns;
    if (srv->conns)
        srv->conns->prev = c;
    srv->conns = c;
    srv->nconns++;
    h2o_socket_t *sock = h2o_uv_socket_create((uv_stream_t *)&c->tcp, conn_closed);
    h2o_accept(&srv->accept_ctx, sock);
}

static void handle_closed(uv_handle_t *h)
{
    struct sim_server *srv = h->data;
    if (h == (uv_handle_t *)&srv->listener)
        srv->listener_open = 0;
    else
        srv->tick_open = 0;
    if (!srv->listener_open && !srv->tick_open && srv->shutting_down && srv->done)
        srv->done(srv->done_data);
}

static void on_tick(uv_timer_t *t)
{
    struct sim_server *srv = t->data;
    if (srv->shutting_down) {
        /* h2o's context may only go once every connection it serves is closed. */
        if (srv->nconns == 0 && srv->ctx_live) {
            h2o_context_dispose(&srv->ctx);
            h2o_config_dispose(&srv->globalconf);
            srv->ctx_live = 0;
            uv_timer_stop(&srv->tick);
            uv_close((uv_handle_t *)&srv->tick, handle_closed);
        }
        return;
    }
    sim__watch_tick(srv, uv_now(srv->loop));
}

static int setup_tls(struct sim_server *srv, char *err, size_t errcap)
{
    const struct sim_server_config *cfg = &srv->cfg;
    if (!cfg->tls_cert || !cfg->tls_key) {
        snprintf(err, errcap, "--tls-cert and --tls-key go together; missing %s",
                 cfg->tls_cert ? "--tls-key" : "--tls-cert");
        return MUSTER_EINVAL;
    }
    struct kube_tls_server_opts o = {cfg->tls_cert, cfg->tls_key, cfg->client_ca, 1,
                                     "--tls-cert",  "--tls-key",  "--client-ca"};
    int rc = kube_tls_server_ctx(&o, &srv->ssl_ctx, err, errcap);
    if (rc)
        return rc == MUSTER_ECONFIG ? MUSTER_EINVAL : rc;
    srv->accept_ctx.ssl_ctx = srv->ssl_ctx;
    return 0;
}

int sim_server_new(uv_loop_t *loop, const struct sim_server_config *cfg, struct sim_store *store,
                   struct sim_server **out, char *err, size_t errcap)
{
    struct sim_server *srv = muster_calloc(1, sizeof(*srv));
    if (!srv)
        return MUSTER_ENOMEM;
    srv->loop = loop;
    srv->store = store;
    srv->cfg = *cfg;
    if (!srv->cfg.max_body)
        srv->cfg.max_body = SIM_DEFAULT_MAX_BODY;
    if (!srv->cfg.max_watch_buffer)
        srv->cfg.max_watch_buffer = SIM_DEFAULT_WATCH_BUFFER;
    if (!srv->cfg.bookmark_interval_ms)
        srv->cfg.bookmark_interval_ms = 60000;
    if (!srv->cfg.watch_timeout_s)
        srv->cfg.watch_timeout_s = 1800;
    srv->rand_state = cfg->seed ? cfg->seed : 0x9e3779b9u;

    struct sockaddr_storage addr;
    if (uv_ip4_addr(cfg->host, cfg->port, (struct sockaddr_in *)&addr) != 0 &&
        uv_ip6_addr(cfg->host, cfg->port, (struct sockaddr_in6 *)&addr) != 0) {
        snprintf(err, errcap, "--listen: %s is not an IP address", cfg->host);
        muster_free(srv);
        return MUSTER_EINVAL;
    }

    h2o_config_init(&srv->globalconf);
    srv->globalconf.max_request_entity_size = srv->cfg.max_body;
    h2o_hostconf_t *host =
        h2o_config_register_host(&srv->globalconf, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *path = h2o_config_register_path(host, "/", 0);
    if (cfg->access_log) {
        h2o_access_log_filehandle_t *fh =
            h2o_access_log_open_handle(cfg->access_log, NULL, H2O_LOGCONF_ESCAPE_APACHE);
        if (!fh) {
            snprintf(err, errcap, "--access-log %s: cannot be opened", cfg->access_log);
            h2o_config_dispose(&srv->globalconf);
            muster_free(srv);
            return MUSTER_EIO;
        }
        h2o_access_log_register(path, fh);
        /* The logger holds its own reference; it goes with the configuration. */
        h2o_mem_release_shared(fh);
    }
    struct handler *h = (struct handler *)h2o_create_handler(path, sizeof(*h));
    h->super.on_req = on_req;
    h->srv = srv;
    h2o_context_init(&srv->ctx, loop, &srv->globalconf);
    srv->ctx_live = 1;
    srv->accept_ctx.ctx = &srv->ctx;
    srv->accept_ctx.hosts = srv->globalconf.hosts;
    int rc = 0;
    if (cfg->tls_cert || cfg->tls_key)
        rc = setup_tls(srv, err, errcap);

    uv_tcp_init(loop, &srv->listener);
    srv->listener.data = srv;
    srv->listener_open = 1;
    uv_timer_init(loop, &srv->tick);
    srv->tick.data = srv;
    srv->tick_open = 1;
    if (rc < 0) {
        sim_server_shutdown(srv, NULL, NULL);
        *out = srv;
        return rc;
    }
    rc = uv_tcp_bind(&srv->listener, (struct sockaddr *)&addr, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&srv->listener, 511, on_accept);
    if (rc != 0) {
        snprintf(err, errcap, "--listen %s:%d: %s", cfg->host, cfg->port, uv_strerror(rc));
        /* Tear down through the normal path so every handle is closed. */
        sim_server_shutdown(srv, NULL, NULL);
        *out = srv;
        return MUSTER_EIO;
    }
    struct sockaddr_storage bound;
    int blen = sizeof(bound);
    uv_tcp_getsockname(&srv->listener, (struct sockaddr *)&bound, &blen);
    srv->port = bound.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
                                            : ntohs(((struct sockaddr_in *)&bound)->sin_port);
    if (cfg->validate_dir) {
        rc = sim_validator_new(cfg->validate_dir, &srv->validator, err, errcap);
        if (rc < 0) {
            sim_server_shutdown(srv, NULL, NULL);
            *out = srv;
            return rc;
        }
    }
    uv_timer_start(&srv->tick, on_tick, SIM_TICK_MS, SIM_TICK_MS);
    *out = srv;
    return 0;
}

int sim_server_port(const struct sim_server *srv)
{
    return srv->port;
}

void sim_server_shutdown(struct sim_server *srv, void (*done)(void *data), void *data)
{
    if (srv->shutting_down)
        return;
    srv->shutting_down = 1;
    srv->done = done;
    srv->done_data = data;
    uv_close((uv_handle_t *)&srv->listener, handle_closed);
    sim__watch_end_all(srv);
    while (srv->delayed)
        delayed_fire(&srv->delayed->timer);
    /* Not h2o_context_request_shutdown(): its HTTP/2 straggler timer would still be linked when
     * the context is disposed. This flag alone stops HTTP/1 keep-alive. */
    srv->ctx.shutdown_requested = 1;
    /* HTTP/1 keep-alive connections idle in h2o until their timeout; half-closing the socket
     * makes h2o read EOF and close them through its own path. */
    for (struct conn *c = srv->conns; c; c = c->next) {
        uv_os_fd_t fd;
        if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0)
            shutdown(fd, SHUT_RDWR);
    }
    uv_timer_start(&srv->tick, on_tick, 0, SIM_SHUTDOWN_TICK_MS);
}

void sim_server_free(struct sim_server *srv)
{
    if (!srv)
        return;
    SSL_CTX_free(srv->ssl_ctx);
    sim_validator_free(srv->validator);
    json_object_put(srv->event_obj);
    muster_free(srv->event_json);
    muster_free(srv);
}
