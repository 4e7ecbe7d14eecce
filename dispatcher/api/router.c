/* Routing: the route table (one line a route, its least role, its handler), path templates,
 * and the order every request meets the rules in: header size, the guard, rate limit, 404,
 * authentication, 405, 403, the leader; then the handler, and the request counted. */
#include "dispatcher/api/api_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* PATCH is open to operators; the handler narrows them to the state field. */
static const struct api_route_info route_info[] = {
    {"GET", "/healthz", API_ROLE_NONE},
    {"GET", "/readyz", API_ROLE_NONE},
    {"GET", "/metrics", API_ROLE_NONE},
    {"GET", "/openapi.json", API_ROLE_VIEWER},
    {"GET", "/api/v1/queues", API_ROLE_VIEWER},
    {"POST", "/api/v1/queues", API_ROLE_ADMIN},
    {"GET", "/api/v1/queues/{name}", API_ROLE_VIEWER},
    {"PUT", "/api/v1/queues/{name}", API_ROLE_ADMIN},
    {"PATCH", "/api/v1/queues/{name}", API_ROLE_OPERATOR},
    {"DELETE", "/api/v1/queues/{name}", API_ROLE_ADMIN},
    {"GET", "/api/v1/audit", API_ROLE_ADMIN},
    {"GET", "/api/v1/bindings", API_ROLE_VIEWER},
    {"GET", "/api/v1/bindings/{namespace}/{name}", API_ROLE_VIEWER},
    {"GET", "/api/v1/clusters", API_ROLE_VIEWER},
    {"GET", "/api/v1/clusters/{name}", API_ROLE_VIEWER},
    {"PATCH", "/api/v1/clusters/{name}", API_ROLE_OPERATOR},
    {"GET", "/api/v1/events", API_ROLE_VIEWER},
    {"GET", "/api/v1/stats", API_ROLE_VIEWER},
    /* The dashboard's files carry no data: the page asks for a token before it calls the API. */
    {"GET", "/", API_ROLE_NONE},
    {"GET", "/dashboard/{file}", API_ROLE_NONE},
    {"POST", KARMADA_WEBHOOK_PATH, API_ROLE_NONE},
};

#define NROUTES (sizeof(route_info) / sizeof(route_info[0]))

/* The handler of route_info[i], in the same order. */
static void (*const route_fn[])(struct api_call *c) = {
    api__handle_healthz,        api__handle_readyz,        api__handle_metrics,
    api__handle_openapi,        api__handle_queue_list,    api__handle_queue_create,
    api__handle_queue_get,      api__handle_queue_replace, api__handle_queue_patch,
    api__handle_queue_delete,   api__handle_audit_list,    api__handle_binding_list,
    api__handle_binding_get,    api__handle_cluster_list,  api__handle_cluster_get,
    api__handle_cluster_patch,
    api__handle_events,         api__handle_stats,         api__handle_dashboard_index,
    api__handle_dashboard_file, api__handle_webhook,
};

_Static_assert(sizeof(route_fn) / sizeof(route_fn[0]) == NROUTES, "one handler per route");

const struct api_route_info *api_routes(size_t *n)
{
    *n = NROUTES;
    return route_info;
}

/* Matches path against a template. Each "{...}" takes one non-empty segment of at most
 * QUEUE_NAME_MAX bytes; the segments taken are joined with '/' into name ("ns/job" for
 * /api/v1/bindings/{namespace}/{name}). name is written only on a match. -1 when a segment
 * decoded to a control byte: h2o decodes %00 into the path, and a name cut short at a NUL
 * would be validated as one queue and used as another. */
static int path_match(const char *tmpl, h2o_iovec_t path, char *name, size_t namecap)
{
    char got[API_PATH_NAME_MAX + 1];
    size_t nlen = 0;
    const char *p = path.base, *pend = path.base + path.len;
    for (;;) {
        const char *brace = strchr(tmpl, '{');
        size_t lit = brace ? (size_t)(brace - tmpl) : strlen(tmpl);
        if ((size_t)(pend - p) < lit || memcmp(p, tmpl, lit) != 0)
            return 0;
        p += lit;
        if (!brace)
            break;
        tmpl = strchr(brace, '}') + 1;
        const char *seg = p;
        while (p < pend && *p != '/')
            p++;
        size_t sl = (size_t)(p - seg);
        if (!sl || sl > QUEUE_NAME_MAX || nlen + 1 + sl > API_PATH_NAME_MAX)
            return 0;
        if (!api_guard_path_segment(seg, sl))
            return -1;
        if (nlen)
            got[nlen++] = '/';
        memcpy(got + nlen, seg, sl);
        nlen += sl;
    }
    if (p != pend || nlen >= namecap)
        return 0;
    memcpy(name, got, nlen);
    name[nlen] = '\0';
    return 1;
}

/* Counts one answered request in muster_api_requests_total. */
static void count_request(struct api_server *s, const char *route, h2o_req_t *req)
{
    static const char *const methods[] = {"GET",   "HEAD",   "POST",   "PUT",
                                          "PATCH", "DELETE", "OPTIONS"};
    const char *method = "other"; /* a client's own word never becomes a label */
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
        if (h2o_memis(req->method.base, req->method.len, methods[i], strlen(methods[i])))
            method = methods[i];
    int code = req->res.status;
    for (size_t i = 0; i < s->nreqs; i++) {
        struct api_req_series *x = &s->reqs[i];
        /* strcmp: equal templates of different routes may be different literals. */
        if (x->code == code && x->method == method && strcmp(x->route, route) == 0) {
            x->n++;
            return;
        }
    }
    if (s->nreqs == API_REQ_SERIES_MAX) {
        s->reqs_dropped++;
        return;
    }
    s->reqs[s->nreqs++] = (struct api_req_series){route, method, code, 1};
}

/* Answers req; *route gets the route template (static storage) it was counted under. */
static void serve(struct api_server *s, h2o_req_t *req, const char **route)
{
    /* Every answer, errors included (a 404 echoes the path): no browser may sniff a type. */
    h2o_add_header_by_str(&req->pool, &req->res.headers, H2O_STRLIT("x-content-type-options"), 0,
                          NULL, H2O_STRLIT("nosniff"));
    struct api_call c = {.srv = s, .req = req};
    h2o_iovec_t path = req->path_normalized;
    size_t hbytes = req->path.len;
    for (size_t i = 0; i < req->headers.size; i++)
        hbytes += req->headers.entries[i].name->len + req->headers.entries[i].value.len;
    if (hbytes > API_HEADERS_MAX) {
        api__send_fail(req, 431, "RequestHeaderFieldsTooLarge",
                       "request headers and path are %zu bytes, above the limit of %d", hbytes,
                       API_HEADERS_MAX);
        return;
    }
    struct api_error ge = {0};
    int write = h2o_memis(req->method.base, req->method.len, H2O_STRLIT("POST")) ||
                h2o_memis(req->method.base, req->method.len, H2O_STRLIT("PUT")) ||
                h2o_memis(req->method.base, req->method.len, H2O_STRLIT("PATCH")) ||
                h2o_memis(req->method.base, req->method.len, H2O_STRLIT("DELETE"));
    if (api_guard_check(&s->guard, req, write, &ge)) {
        api__send_error(req, &ge);
        return;
    }
    size_t hit = NROUTES;
    int path_known = 0, any_auth = 0;
    char allow[64] = "";
    size_t allow_len = 0;
    for (size_t i = 0; i < NROUTES; i++) {
        int m = path_match(route_info[i].path, path, c.name, sizeof(c.name));
        if (m < 0) {
            api__send_fail(
                req, 400, "BadRequest",
                "a path segment holds a control character (such as an escaped NUL, %%00); "
                "names never do");
            return;
        }
        if (!m)
            continue;
        path_known = 1;
        *route = route_info[i].path;
        any_auth |= route_info[i].role != API_ROLE_NONE;
        int n = snprintf(allow + allow_len, sizeof(allow) - allow_len, "%s%s",
                         allow_len ? ", " : "", route_info[i].method);
        if (n > 0 && (size_t)n < sizeof(allow) - allow_len)
            allow_len += (size_t)n;
        if (h2o_memis(req->method.base, req->method.len, route_info[i].method,
                      strlen(route_info[i].method)))
            hit = i;
    }
    /* Probes are exempt: a busy client must not get the pod restarted. So is the webhook: the
     * apiserver calls it from a few addresses for every RB created, thousands a second at
     * peak, and a 429 there would fail RB creation (failurePolicy: Fail). */
    uint64_t retry_s = 0;
    if (strcmp(*route, "/healthz") != 0 && strcmp(*route, "/readyz") != 0 &&
        strcmp(*route, KARMADA_WEBHOOK_PATH) != 0 && api__rate_take(s, req, &retry_s)) {
        char ra[24];
        snprintf(ra, sizeof(ra), "%" PRIu64, retry_s);
        api__add_header(req, H2O_TOKEN_RETRY_AFTER, ra);
        api__send_fail(
            req, 429, "TooManyRequests",
            "more than %.0f requests per second (burst %.0f) from this address; retry in "
            "%" PRIu64 " s",
            s->rate_per_s, s->rate_burst, retry_s);
        return;
    }
    if (!path_known) {
        api__send_fail(req, 404, "NotFound", "no such path: %.*s",
                       (int)(path.len > 200 ? 200 : path.len), path.base);
        return;
    }
    /* Authentication comes before 405 and 403, so an anonymous caller learns nothing. */
    if (any_auth) {
        /* EventSource cannot send headers: the event stream alone also takes the token as
         * ?access_token= (docs/decisions.md). */
        int query_ok = strcmp(*route, "/api/v1/events") == 0;
        if (api__authenticate(s, req, query_ok, &c.user, &c.role, &c.scope)) {
            api__send_unauthorized(req);
            return;
        }
    }
    if (hit == NROUTES) {
        api__add_header(req, H2O_TOKEN_ALLOW, allow);
        api__send_fail(req, 405, "MethodNotAllowed", "%.*s is not allowed here; allowed: %s",
                       (int)(req->method.len > 16 ? 16 : req->method.len), req->method.base, allow);
        return;
    }
    if (route_info[hit].role != API_ROLE_NONE && c.role < route_info[hit].role) {
        api__send_fail(req, 403, "Forbidden",
                       "user %s (role %s) may not %s %s; it needs the %s role", c.user,
                       api__role_name(c.role), route_info[hit].method, route_info[hit].path,
                       api__role_name(route_info[hit].role));
        return;
    }
    if (!c.user)
        c.user = API_ANONYMOUS;
    /* A follower serves reads; only the leader changes anything (its engine is the one that
     * dispatches, and two writers would fork the ledger). */
    if (!h2o_memis(req->method.base, req->method.len, H2O_STRLIT("GET")) &&
        route_info[hit].role > API_ROLE_VIEWER && s->app.disp.leading &&
        !s->app.disp.leading(s->app.disp.ud)) {
        api__add_header(req, H2O_TOKEN_RETRY_AFTER, "5");
        api__send_fail(req, 503, "NotLeader",
                       "this musterd is a follower: send changes to the leader (it holds the "
                       "Lease); nothing was changed");
        return;
    }
    route_fn[hit](&c);
}

int api__on_req(h2o_handler_t *self, h2o_req_t *req)
{
    struct api_server *s = ((struct api_handler *)self)->srv;
    const char *route = "other";
    serve(s, req, &route);
    count_request(s, route, req);
    return 0;
}
