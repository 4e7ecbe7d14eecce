/* YAML documents to json-c (libyaml's event parser), as Kubernetes decodes them: YAML 1.2
 * core-schema scalars, no aliases, string keys only (see yaml.h). */
#include "cluster-adapters/kube/yaml.h"

#include "cluster-adapters/kube/file.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static int all_digits(const char *s, size_t len, const char *set)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!strchr(set, s[i]) || s[i] == 0)
            return 0;
    return 1;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? — the YAML 1.2 core float form. */
static int is_yaml_float(const char *s, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        i++;
        digits++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t exp = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            i++;
            exp++;
        }
        if (exp == 0)
            return 0;
    }
    return i == len;
}

/* Types a plain scalar by the YAML 1.2 core schema, which is what Kubernetes YAML decoding agrees
 * with for everything a CRD contains (its yes/no/on/off YAML 1.1 booleans are quoted by
 * controller-gen). JSON null is NULL in json-c, so null is told apart from out of memory by the
 * caller through yaml_is_null. */
static int yaml_is_null(const char *v, size_t len)
{
    return len == 0 || (len == 1 && v[0] == '~') ||
           (len == 4 && (!memcmp(v, "null", 4) || !memcmp(v, "Null", 4) || !memcmp(v, "NULL", 4)));
}

static json_object *yaml_plain_scalar(const char *v, size_t len)
{
    if (yaml_is_null(v, len))
        return NULL;
    if (len == 4 && (!memcmp(v, "true", 4) || !memcmp(v, "True", 4) || !memcmp(v, "TRUE", 4)))
        return json_object_new_boolean(1);
    if (len == 5 && (!memcmp(v, "false", 5) || !memcmp(v, "False", 5) || !memcmp(v, "FALSE", 5)))
        return json_object_new_boolean(0);
    const char *d = v;
    size_t dl = len;
    if (dl > 1 && (d[0] == '-' || d[0] == '+')) {
        d++;
        dl--;
    }
    int base = 0;
    if (all_digits(d, dl, "0123456789"))
        base = 10;
    else if (d == v && dl > 2 && d[0] == '0' && d[1] == 'x' &&
             all_digits(d + 2, dl - 2, "0123456789abcdefABCDEF"))
        base = 16;
    else if (d == v && dl > 2 && d[0] == '0' && d[1] == 'o' &&
             all_digits(d + 2, dl - 2, "01234567"))
        base = 8;
    if (base) {
        char tmp[64];
        if (len < sizeof tmp) {
            memcpy(tmp, v, len);
            tmp[len] = 0;
            const char *start = base == 10 ? tmp : tmp + 2;
            char *end = NULL;
            errno = 0;
            long long ll = strtoll(start, &end, base);
            if (errno == 0 && end && *end == 0)
                return json_object_new_int64(ll);
        }
        /* Too large for int64: keep the digits as a number the way Go's decoder would. */
        base = 0;
    }
    if (is_yaml_float(v, len)) {
        char tmp[128];
        if (len < sizeof tmp) {
            memcpy(tmp, v, len);
            tmp[len] = 0;
            return json_object_new_double(strtod(tmp, NULL));
        }
    }
    return json_object_new_string_len(v, (int)len);
}

struct yparse {
    yaml_parser_t p;
    const char *name;
    char *err;
    size_t errcap;
};

static int yp_fail(struct yparse *y, size_t line, const char *what)
{
    if (y->err && y->errcap)
        snprintf(y->err, y->errcap, "%s:%zu: %s", y->name, line + 1, what);
    return MUSTER_EINVAL;
}

static int yp_next(struct yparse *y, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&y->p, ev)) {
        if (y->p.error == YAML_MEMORY_ERROR)
            return MUSTER_ENOMEM;
        return yp_fail(y, y->p.problem_mark.line, y->p.problem ? y->p.problem : "YAML error");
    }
    return 0;
}

/* Builds the node that starts with ev (consumed) into *out. */
static int yp_node(struct yparse *y, yaml_event_t *ev, int depth, json_object **out)
{
    *out = NULL;
    size_t line = ev->start_mark.line;
    if (depth > KUBE_YAML_MAX_DEPTH) {
        yaml_event_delete(ev);
        return yp_fail(y, line, "nested too deeply");
    }
    if (ev->type == YAML_SCALAR_EVENT) {
        const char *v = (const char *)ev->data.scalar.value;
        size_t len = ev->data.scalar.length;
        const char *tag = (const char *)ev->data.scalar.tag;
        int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (tag && !strcmp(tag, YAML_STR_TAG))
            plain = 0;
        int null = plain && yaml_is_null(v, len);
        *out = plain ? yaml_plain_scalar(v, len) : json_object_new_string_len(v, (int)len);
        yaml_event_delete(ev);
        return *out || null ? 0 : MUSTER_ENOMEM;
    }
    if (ev->type == YAML_ALIAS_EVENT) {
        yaml_event_delete(ev);
        return yp_fail(y, line, "YAML aliases are not supported");
    }
    int seq = ev->type == YAML_SEQUENCE_START_EVENT;
    if (!seq && ev->type != YAML_MAPPING_START_EVENT) {
        yaml_event_delete(ev);
        return yp_fail(y, line, "unexpected YAML event");
    }
    yaml_event_delete(ev);
    json_object *c = seq ? json_object_new_array() : json_object_new_object();
    if (!c)
        return MUSTER_ENOMEM;
    int rc;
    for (;;) {
        yaml_event_t e;
        rc = yp_next(y, &e);
        if (rc)
            goto fail_rc;
        if (e.type == (seq ? YAML_SEQUENCE_END_EVENT : YAML_MAPPING_END_EVENT)) {
            yaml_event_delete(&e);
            break;
        }
        if (seq) {
            json_object *child;
            rc = yp_node(y, &e, depth + 1, &child);
            if (rc)
                goto fail_rc;
            if (json_object_array_add(c, child)) {
                json_object_put(child);
                rc = MUSTER_ENOMEM;
                goto fail_rc;
            }
            continue;
        }
        if (e.type != YAML_SCALAR_EVENT) {
            size_t kl = e.start_mark.line;
            yaml_event_delete(&e);
            rc = yp_fail(y, kl, "mapping keys must be scalars");
            goto fail_rc;
        }
        size_t kline = e.start_mark.line;
        char *key = muster_strndup((const char *)e.data.scalar.value, e.data.scalar.length);
        yaml_event_delete(&e);
        if (!key) {
            rc = MUSTER_ENOMEM;
            goto fail_rc;
        }
        if (json_object_object_get_ex(c, key, NULL)) {
            muster_free(key);
            rc = yp_fail(y, kline, "duplicate mapping key");
            goto fail_rc;
        }
        rc = yp_next(y, &e);
        if (rc) {
            muster_free(key);
            goto fail_rc;
        }
        json_object *child;
        rc = yp_node(y, &e, depth + 1, &child);
        if (rc) {
            muster_free(key);
            goto fail_rc;
        }
        rc = json_object_object_add(c, key, child) ? MUSTER_ENOMEM : 0;
        muster_free(key);
        if (rc) {
            json_object_put(child);
            goto fail_rc;
        }
    }
    *out = c;
    return 0;
fail_rc:
    json_object_put(c);
    return rc;
}

int kube_yaml_parse(const char *text, size_t len, const char *name, json_object **docs, char *err,
                    size_t errcap)
{
    *docs = NULL;
    if (err && errcap)
        err[0] = 0;
    if (len > KUBE_YAML_MAX_BYTES) {
        if (err && errcap)
            snprintf(err, errcap, "%s: more than %d bytes", name ? name : "<yaml>",
                     KUBE_YAML_MAX_BYTES);
        return MUSTER_ELIMIT;
    }
    struct yparse y = {.name = name ? name : "<yaml>", .err = err, .errcap = errcap};
    if (!yaml_parser_initialize(&y.p))
        return MUSTER_ENOMEM;
    yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
    json_object *arr = json_object_new_array();
    int rc = arr ? 0 : MUSTER_ENOMEM;
    while (rc == 0) {
        yaml_event_t e;
        rc = yp_next(&y, &e);
        if (rc)
            break;
        yaml_event_type_t t = e.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&e);
            break;
        }
        if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT ||
            t == YAML_DOCUMENT_END_EVENT) {
            yaml_event_delete(&e);
            continue;
        }
        json_object *doc;
        rc = yp_node(&y, &e, 0, &doc);
        if (rc)
            break;
        /* An empty document (a bare "---") is skipped, as kubectl does. */
        if (doc && json_object_array_add(arr, doc)) {
            json_object_put(doc);
            rc = MUSTER_ENOMEM;
        }
    }
    yaml_parser_delete(&y.p);
    if (rc) {
        json_object_put(arr);
        if (rc == MUSTER_ENOMEM && err && errcap)
            snprintf(err, errcap, "%s: out of memory", y.name);
        return rc;
    }
    *docs = arr;
    return 0;
}

int kube_yaml_read(const char *path, json_object **docs, char *err, size_t errcap)
{
    *docs = NULL;
    char *text, why[128];
    size_t len;
    int rc = kube_file_read(path, KUBE_YAML_MAX_BYTES, &text, &len, why, sizeof(why));
    if (rc) {
        if (err && errcap)
            snprintf(err, errcap, "%s: %s", path, why);
        return rc;
    }
    rc = kube_yaml_parse(text, len, path, docs, err, errcap);
    muster_free(text);
    return rc;
}
