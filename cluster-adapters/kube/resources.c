/* JSON resource maps <-> queue resource vectors (see resources.h). */
#include "cluster-adapters/kube/resources.h"
#include "cluster-adapters/kube/jsonwrite.h"

#include "queue/errors.h"
#include "queue/quantity.h"
#include "queue/tree.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 5, 6))) static int fail(int code, char *err, size_t errcap,
                                                      const char *what, const char *fmt, ...)
{
    if (errcap) {
        int n = *what ? snprintf(err, errcap, "%s.", what) : 0;
        if (n < 0 || (size_t)n >= errcap)
            n = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errcap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return code;
}

static int parse(struct queue_resnames *names, json_object *obj, const char *what,
                 struct queue_resvec *out, char *err, size_t errcap, int keep_zero)
{
    queue_resvec_clear(out);
    if (!json_object_is_type(obj, json_type_object))
        return fail(MUSTER_EINVAL, err, errcap, "",
                    "%s: must be an object of resource "
                    "quantities",
                    *what ? what : "resources");
    if (json_object_object_length(obj) > QUEUE_REQUEST_RES_MAX)
        return fail(MUSTER_ELIMIT, err, errcap, "", "%s: more than %d resources",
                    *what ? what : "resources", QUEUE_REQUEST_RES_MAX);
    /* Validate everything first, intern after: a bad request must not leave made-up names
     * behind in the engine's table, which is bounded. */
    int rc = 0;
    int64_t values[QUEUE_REQUEST_RES_MAX];
    const char *keys[QUEUE_REQUEST_RES_MAX];
    size_t n = 0;
    json_object_object_foreach(obj, key, val)
    {
        size_t klen = strlen(key);
        struct queue_qty q;
        if (klen > QUEUE_RES_NAME_MAX || !queue_resname_valid(key, klen)) {
            rc = fail(MUSTER_EINVAL, err, errcap, what, "%.64s: not a valid resource name", key);
            break;
        }
        if (json_object_is_type(val, json_type_int)) {
            int64_t v = json_object_get_int64(val);
            if (queue_milli_mul(v, 1000, &q.milli)) {
                rc = fail(MUSTER_ERANGE, err, errcap, what, "%s: quantity too large", key);
                break;
            }
        } else if (json_object_is_type(val, json_type_string)) {
            const char *str = json_object_get_string(val);
            int prc = queue_qty_parse(str, (size_t)json_object_get_string_len(val), &q);
            if (prc) {
                rc = fail(prc, err, errcap, what, "%s: %s", key,
                          prc == MUSTER_ERANGE ? "quantity too large"
                                               : "not a Kubernetes quantity (e.g. 500m, 4, 16Gi)");
                break;
            }
        } else {
            rc = fail(MUSTER_EINVAL, err, errcap, what, "%s: quantity must be a string", key);
            break;
        }
        if (q.milli < 0) {
            rc = fail(MUSTER_EINVAL, err, errcap, what, "%s: must not be negative", key);
            break;
        }
        keys[n] = key;
        values[n++] = q.milli;
    }
    for (size_t i = 0; !rc && i < n; i++) {
        uint32_t id;
        int irc = queue_resnames_intern(names, keys[i], strlen(keys[i]), &id);
        if (irc)
            rc = fail(irc, err, errcap, what, "%s: %s", keys[i],
                      irc == MUSTER_ELIMIT ? "too many distinct resource names" : "out of memory");
        else if ((keep_zero ? queue_resvec_put : queue_resvec_set)(out, id, values[i]))
            rc = fail(MUSTER_ENOMEM, err, errcap, what, "%s: out of memory", keys[i]);
    }
    if (rc)
        queue_resvec_clear(out);
    return rc;
}

int kube_resvec_parse(struct queue_resnames *names, json_object *obj, const char *what,
                      struct queue_resvec *out, char *err, size_t errcap)
{
    return parse(names, obj, what, out, err, errcap, 0);
}

int kube_resvec_parse_limits(struct queue_resnames *names, json_object *obj, const char *what,
                             struct queue_resvec *out, char *err, size_t errcap)
{
    return parse(names, obj, what, out, err, errcap, 1);
}

static int parse_text(struct queue_resnames *names, const char *text, const char *what,
                      struct queue_resvec *out, char *err, size_t errcap, int keep_zero)
{
    json_tokener *tok = json_tokener_new_ex(8);
    if (!tok)
        return fail(MUSTER_ENOMEM, err, errcap, "", "out of memory");
    json_object *obj = json_tokener_parse_ex(tok, text, (int)strlen(text));
    int ok = obj && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    int rc =
        ok ? parse(names, obj, what, out, err, errcap, keep_zero)
           : fail(MUSTER_EINVAL, err, errcap, "", "%s: not valid JSON", *what ? what : "resources");
    json_object_put(obj);
    return rc;
}

int kube_resvec_parse_text(struct queue_resnames *names, const char *text, const char *what,
                           struct queue_resvec *out, char *err, size_t errcap)
{
    return parse_text(names, text, what, out, err, errcap, 0);
}

int kube_resvec_parse_limits_text(struct queue_resnames *names, const char *text, const char *what,
                                  struct queue_resvec *out, char *err, size_t errcap)
{
    return parse_text(names, text, what, out, err, errcap, 1);
}

json_object *kube_resvec_json(const struct queue_resnames *names, const struct queue_resvec *v)
{
    json_object *obj = json_object_new_object();
    for (uint32_t i = 0; obj && i < v->len; i++) {
        char buf[QUEUE_QTY_STR_MAX];
        const char *name = queue_resnames_name(names, v->items[i].id);
        if (!name || queue_qty_format_auto(v->items[i].milli, buf, sizeof(buf)) < 0)
            continue;
        json_object *s = json_object_new_string(buf);
        if (!s || json_object_object_add(obj, name, s)) {
            json_object_put(s);
            json_object_put(obj);
            return NULL;
        }
    }
    return obj;
}

void kube_resvec_write(struct kube_jw *w, const struct queue_resnames *names,
                       const struct queue_resvec *v)
{
    int any = 0;
    kube_jw_raw(w, "{", 1);
    for (uint32_t i = 0; i < v->len; i++) {
        char buf[QUEUE_QTY_STR_MAX];
        const char *name = queue_resnames_name(names, v->items[i].id);
        if (!name || queue_qty_format_auto(v->items[i].milli, buf, sizeof(buf)) < 0)
            continue;
        if (any++)
            kube_jw_raw(w, ",", 1);
        kube_jw_key(w, name);
        kube_jw_str(w, buf);
    }
    kube_jw_raw(w, "}", 1);
}
