/* Responses: JSON documents and errors, plain text, headers, and the JSON helpers every
 * resource's handler builds its answer with. */
#include "dispatcher/api/api_int.h"

#include "cluster-adapters/kube/httpserver.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void api__add_header(h2o_req_t *req, const h2o_token_t *tok, const char *v)
{
    h2o_add_header(&req->pool, &req->res.headers, tok, NULL,
                   h2o_strdup(&req->pool, v, SIZE_MAX).base, strlen(v));
}

void api__send_text(h2o_req_t *req, int status, const char *ctype, const char *body, size_t len)
{
    req->res.status = status;
    req->res.reason = kube_http_reason(status);
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL, ctype,
                   strlen(ctype));
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CACHE_CONTROL, NULL,
                   H2O_STRLIT("no-store"));
    h2o_send_inline(req, body, len);
}

/* Sends obj (consumed) as the JSON response. */
void api__send_json(h2o_req_t *req, int status, struct json_object *obj)
{
    if (!obj) {
        static const char oom[] =
            "{\"code\":500,\"reason\":\"InternalError\",\"message\":\"out of memory\"}";
        api__send_text(req, 500, "application/json", oom, sizeof(oom) - 1);
        return;
    }
    size_t len = 0;
    const char *text = json_object_to_json_string_length(
        obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    api__send_text(req, status, "application/json", text, len);
    json_object_put(obj);
}

void api__send_error(h2o_req_t *req, const struct api_error *e)
{
    struct json_object *o = json_object_new_object();
    if (o) {
        json_object_object_add(o, "code", json_object_new_int(e->status));
        json_object_object_add(o, "reason", json_object_new_string(e->reason));
        json_object_object_add(o, "message", json_object_new_string(e->msg));
        if (e->field[0])
            json_object_object_add(o, "field", json_object_new_string(e->field));
    }
    api__send_json(req, e->status, o);
}

__attribute__((format(printf, 4, 5))) void api__send_fail(h2o_req_t *req, int status,
                                                          const char *reason, const char *fmt, ...)
{
    struct api_error e = {.status = status};
    snprintf(e.reason, sizeof(e.reason), "%s", reason);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
    va_end(ap);
    api__send_error(req, &e);
}

/* Parses JSON text stored by us; falls back to the raw string rather than losing it. */
struct json_object *api__stored_json(const char *text)
{
    if (!text)
        return NULL;
    struct json_object *o = json_tokener_parse(text);
    return o ? o : json_object_new_string(text);
}

void api__obj_add(struct json_object *o, const char *k, struct json_object *v, int *bad)
{
    if (!v && !*bad) {
        *bad = 1;
        return;
    }
    if (json_object_object_add(o, k, v)) {
        json_object_put(v);
        *bad = 1;
    }
}

static void list_metadata(struct json_object *out, const char *cont)
{
    struct json_object *m = json_object_new_object();
    if (m && cont)
        json_object_object_add(m, "continue", json_object_new_string(cont));
    json_object_object_add(out, "metadata", m);
}

struct json_object *api__page_json(struct json_object *items, const char *cont)
{
    struct json_object *out = items ? json_object_new_object() : NULL;
    if (!out) {
        json_object_put(items);
        return NULL;
    }
    json_object_object_add(out, "items", items);
    list_metadata(out, cont);
    return out;
}

void api__send_page(h2o_req_t *req, struct json_object *items, const char *cont)
{
    struct json_object *out = api__page_json(items, cont);
    api__send_json(req, out ? 200 : 500, out);
}
