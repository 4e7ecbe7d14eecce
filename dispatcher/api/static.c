/* The files the server carries in its binary: the dashboard (embedded by
 * cmake/embed_dashboard.cmake, served with a strict content security policy and ETags) and
 * the OpenAPI document. */
#include "dispatcher/api/api_int.h"

#include "dispatcher/dashboard.h"
#include "schema/openapi.h"

#include <string.h>

static const char *dashboard_type(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {{".html", "text/html; charset=utf-8"},
                 {".js", "text/javascript; charset=utf-8"},
                 {".css", "text/css; charset=utf-8"},
                 {".svg", "image/svg+xml"},
                 {".png", "image/png"},
                 {".ico", "image/x-icon"},
                 {".json", "application/json"}};
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* The policy allows this origin's files only: no inline script or style, no other origin, no
 * framing (clickjacking), no form posts. connect-src 'self' covers fetch and EventSource. */
#define API_DASHBOARD_CSP                                                                          \
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "              \
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "                   \
    "frame-ancestors 'none'"

static void send_dashboard_file(h2o_req_t *req, const char *name)
{
    const struct disp_dashboard_file *f = NULL;
    for (size_t i = 0; i < disp_dashboard_nfiles && !f; i++)
        if (strcmp(disp_dashboard_files[i].name, name) == 0)
            f = &disp_dashboard_files[i];
    if (!f) {
        api__send_fail(req, 404, "NotFound", "no such dashboard file: %.64s", name);
        return;
    }
    api__add_header(req, H2O_TOKEN_CONTENT_TYPE, dashboard_type(f->name));
    api__add_header(req, H2O_TOKEN_ETAG, f->etag);
    /* Revalidate every time (a 304 is cheap): a new musterd may serve new files. */
    api__add_header(req, H2O_TOKEN_CACHE_CONTROL, "no-cache");
    static const char *const fixed[][2] = {
        {"x-content-type-options", "nosniff"},
        {"content-security-policy", API_DASHBOARD_CSP},
        /* The page's URLs never leak to another site (an EventSource URL carries the token). */
        {"referrer-policy", "no-referrer"},
        {"x-frame-options", "DENY"},
    };
    for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
        h2o_add_header_by_str(&req->pool, &req->res.headers, fixed[k][0], strlen(fixed[k][0]), 0,
                              NULL, fixed[k][1], strlen(fixed[k][1]));
    ssize_t i = h2o_find_header(&req->headers, H2O_TOKEN_IF_NONE_MATCH, -1);
    if (i >= 0 && h2o_memis(req->headers.entries[i].value.base, req->headers.entries[i].value.len,
                            f->etag, strlen(f->etag))) {
        req->res.status = 304;
        req->res.reason = "Not Modified";
        h2o_send_inline(req, NULL, 0);
        return;
    }
    req->res.status = 200;
    req->res.reason = "OK";
    h2o_send_inline(req, f->data, f->len);
}

void api__handle_dashboard_index(struct api_call *c)
{
    send_dashboard_file(c->req, "index.html");
}

void api__handle_dashboard_file(struct api_call *c)
{
    send_dashboard_file(c->req, c->name);
}

void api__handle_openapi(struct api_call *c)
{
    api__send_text(c->req, 200, "application/json", schema_openapi_json, schema_openapi_json_len);
}
