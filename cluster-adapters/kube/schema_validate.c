/* Apiserver-style validation of an object against a loaded schema (schema.h), and the error
 * lists it fills: the messages and the order kube-apiserver's structural-schema validation gives.
 */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/schema_int.h"

#include "cluster-adapters/kube/json.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Error lists
 */

void kube_schema_errors_init(struct kube_schema_errors *errs)
{
    memset(errs, 0, sizeof *errs);
}

void kube_schema_errors_close(struct kube_schema_errors *errs)
{
    if (!errs)
        return;
    for (size_t i = 0; i < errs->count; i++)
        muster_free(errs->msgs[i]);
    muster_free(errs->msgs);
    memset(errs, 0, sizeof *errs);
}

/* Takes ownership of msg. Returns 0 or MUSTER_ENOMEM (msg freed). */
static int errs_take(struct kube_schema_errors *e, char *msg)
{
    if (e->count >= KUBE_SCHEMA_MAX_ERRORS) {
        e->dropped++;
        muster_free(msg);
        return 0;
    }
    if (e->count == e->cap) {
        size_t nc = e->cap ? e->cap * 2 : 8;
        char **nm = muster_realloc(e->msgs, nc * sizeof *nm);
        if (!nm) {
            muster_free(msg);
            return MUSTER_ENOMEM;
        }
        e->msgs = nm;
        e->cap = nc;
    }
    e->msgs[e->count++] = msg;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Validation
 */

struct vctx {
    const struct kube_schema *s;
    struct kube_schema_errors *errs;
    int oom;
    /* Inside anyOf/allOf/oneOf: value checks only. In a structural schema the skeleton (which
     * fields exist) is the node's own properties; junctors only constrain values. */
    int branch;
    char path[KUBE_SCHEMA_MAX_PATH];
    size_t plen;
};

#define VALUE_TEXT_MAX 160

/* The value as field errors print it: strings quoted, numbers and booleans bare, null as null,
 * containers by their type name (what the apiserver prints for a type mismatch). */
static void render_value(json_object *v, char *buf, size_t cap)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        snprintf(buf, cap, "null");
        return;
    case json_type_boolean:
        snprintf(buf, cap, "%s", json_object_get_boolean(v) ? "true" : "false");
        return;
    case json_type_int:
        if (json_object_get_int64(v) == INT64_MAX)
            snprintf(buf, cap, "%llu", (unsigned long long)json_object_get_uint64(v));
        else
            snprintf(buf, cap, "%lld", (long long)json_object_get_int64(v));
        return;
    case json_type_double: {
        double d = json_object_get_double(v);
        /* The shortest text that reads back as the same double, like Go's %v. */
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, cap, "%.*g", prec, d);
            if (strtod(buf, NULL) == d)
                break;
        }
        return;
    }
    case json_type_object:
        snprintf(buf, cap, "\"object\"");
        return;
    case json_type_array:
        snprintf(buf, cap, "\"array\"");
        return;
    case json_type_string:
        break;
    }
    const char *s = json_object_get_string(v);
    size_t n = (size_t)json_object_get_string_len(v), k = 0;
    if (cap < 16)
        return;
    buf[k++] = '"';
    for (size_t i = 0; i < n && k + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (k + 12 >= cap || i >= VALUE_TEXT_MAX) {
            memcpy(buf + k, "...", 3);
            k += 3;
            break;
        }
        if (c == '"' || c == '\\') {
            buf[k++] = '\\';
            buf[k++] = (char)c;
        } else if (c < 0x20) {
            k += (size_t)snprintf(buf + k, cap - k, "\\u%04x", c);
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k++] = '"';
    buf[k] = 0;
}

static void v_err(struct vctx *v, const char *fmt, ...)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s: ", v->plen ? v->path : "<root>");
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof msg)
        vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    char *copy = muster_strdup(msg);
    if (!copy || errs_take(v->errs, copy))
        v->oom = 1;
}

/* "path: Invalid value: <value>: <detail>" */
static void v_invalid(struct vctx *v, json_object *val, const char *fmt, ...)
{
    char detail[768], shown[VALUE_TEXT_MAX + 32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    render_value(val, shown, sizeof shown);
    v_err(v, "Invalid value: %s: %s", shown, detail);
}

static const char *type_names(unsigned mask, char *buf, size_t cap)
{
    /* Scalars first, so int-or-string reads "integer or string" as the apiserver words it. */
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{T_INTEGER, "integer"}, {T_NUMBER, "number"}, {T_STRING, "string"},
                 {T_BOOLEAN, "boolean"}, {T_ARRAY, "array"},   {T_OBJECT, "object"}};
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (mask & names[i].bit)
            kube__schema_path_push(buf, &len, "%s%s", len ? " or " : "", names[i].name);
    (void)cap;
    return buf;
}

static unsigned value_type(json_object *val)
{
    switch (json_object_get_type(val)) {
    case json_type_object:
        return T_OBJECT;
    case json_type_array:
        return T_ARRAY;
    case json_type_string:
        return T_STRING;
    case json_type_boolean:
        return T_BOOLEAN;
    case json_type_double:
        return T_NUMBER;
    case json_type_int:
        /* Past INT64_MAX json-c keeps a uint64; Go's decoder makes that a float64, which is not
         * an integer to the apiserver. */
        if (json_object_get_int64(val) == INT64_MAX && json_object_get_uint64(val) > INT64_MAX)
            return T_NUMBER;
        return T_INTEGER;
    case json_type_null:
        break;
    }
    return 0;
}

static int two_digits(const char *s)
{
    return s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9';
}

/* RFC 3339 date ("2026-01-02") or date-time ("2026-01-02T03:04:05.123Z", "+01:00" offsets). */
static int valid_date_time(const char *s, int date_only)
{
    if (!(two_digits(s) && two_digits(s + 2) && s[4] == '-' && two_digits(s + 5) && s[7] == '-' &&
          two_digits(s + 8)))
        return 0;
    int month = (s[5] - '0') * 10 + s[6] - '0', day = (s[8] - '0') * 10 + s[9] - '0';
    if (month < 1 || month > 12 || day < 1 || day > 31)
        return 0;
    if (date_only)
        return s[10] == 0;
    s += 10;
    if (!(*s == 'T' || *s == 't' || *s == ' '))
        return 0;
    if (!(two_digits(s + 1) && s[3] == ':' && two_digits(s + 4) && s[6] == ':' &&
          two_digits(s + 7)))
        return 0;
    int hour = (s[1] - '0') * 10 + s[2] - '0', min = (s[4] - '0') * 10 + s[5] - '0';
    int sec = (s[7] - '0') * 10 + s[8] - '0';
    if (hour > 23 || min > 59 || sec > 60)
        return 0;
    s += 9;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if ((*s == 'Z' || *s == 'z') && s[1] == 0)
        return 1;
    return (*s == '+' || *s == '-') && two_digits(s + 1) && s[3] == ':' && two_digits(s + 4) &&
           s[6] == 0;
}

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            c++;
    return c;
}

static const struct snode *find_prop(const struct snode *n, const char *name)
{
    struct sprop key = {.name = (char *)name};
    struct sprop *p =
        n->nprops ? bsearch(&key, n->props, n->nprops, sizeof key, kube__schema_prop_cmp) : NULL;
    return p ? p->node : NULL;
}

static void v_node(struct vctx *v, const struct snode *n, json_object *val, int depth, int root);

static void v_child(struct vctx *v, const struct snode *n, json_object *val, int depth,
                    const char *fmt, ...)
{
    size_t old = v->plen;
    if (v->plen < KUBE_SCHEMA_MAX_PATH - 1) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(v->path + v->plen, KUBE_SCHEMA_MAX_PATH - v->plen, fmt, ap);
        va_end(ap);
        if (w > 0)
            v->plen += (size_t)w < KUBE_SCHEMA_MAX_PATH - v->plen
                           ? (size_t)w
                           : KUBE_SCHEMA_MAX_PATH - 1 - v->plen;
    }
    v_node(v, n, val, depth + 1, 0);
    kube__schema_path_pop(v->path, &v->plen, old);
}

static void v_string(struct vctx *v, const struct snode *n, json_object *val)
{
    const char *s = json_object_get_string(val);
    size_t len = (size_t)json_object_get_string_len(val);
    size_t chars = (n->min_len >= 0 || n->max_len >= 0) ? utf8_chars(s, len) : 0;
    if (n->max_len >= 0 && chars > (size_t)n->max_len)
        v_err(v, "Too long: may not be longer than %lld", n->max_len);
    if (n->min_len >= 0 && chars < (size_t)n->min_len)
        v_invalid(v, val, "should be at least %lld chars long", n->min_len);
    if (n->has_re && regexec(&n->re, s, 0, NULL, 0) != 0)
        v_invalid(v, val, "should match '%s'", n->pattern);
    if ((n->format == FMT_DATE_TIME || n->format == FMT_DATE) &&
        !valid_date_time(s, n->format == FMT_DATE))
        v_invalid(v, val, "must be of type %s", n->format == FMT_DATE ? "date" : "date-time");
}

static void v_number(struct vctx *v, const struct snode *n, json_object *val, unsigned t)
{
    if (t == T_INTEGER && n->format == FMT_INT32) {
        int64_t i = json_object_get_int64(val);
        if (i < INT32_MIN || i > INT32_MAX) {
            v_invalid(v, val, "out of range for format int32");
            return;
        }
    }
    double d = json_object_get_double(val);
    char bound[64];
    if (n->flags & F_HAS_MIN && (n->flags & F_EXCL_MIN ? !(d > n->minimum) : !(d >= n->minimum))) {
        snprintf(bound, sizeof bound, "%.17g", n->minimum);
        v_invalid(v, val, "should be greater than %s%s",
                  n->flags & F_EXCL_MIN ? "" : "or equal to ", bound);
    }
    if (n->flags & F_HAS_MAX && (n->flags & F_EXCL_MAX ? !(d < n->maximum) : !(d <= n->maximum))) {
        snprintf(bound, sizeof bound, "%.17g", n->maximum);
        v_invalid(v, val, "should be less than %s%s", n->flags & F_EXCL_MAX ? "" : "or equal to ",
                  bound);
    }
    if (n->flags & F_HAS_MULT) {
        double q = d / n->multiple_of;
        if (q != floor(q)) {
            snprintf(bound, sizeof bound, "%.17g", n->multiple_of);
            v_invalid(v, val, "should be a multiple of %s", bound);
        }
    }
}

/* Whether a property holding JSON null counts as absent: the apiserver drops nulls of
 * non-nullable fields before validating (or replaces them with the default). */
static int null_is_absent(const struct snode *prop)
{
    prop = kube__schema_deref(prop);
    return !(prop->flags & F_NULLABLE);
}

static void v_object(struct vctx *v, const struct snode *n, json_object *obj, int depth, int root)
{
    int embedded = root || (n->flags & F_EMBEDDED);
    struct json_object_iterator it = json_object_iter_begin(obj);
    struct json_object_iterator end = json_object_iter_end(obj);
    const char *dot = v->plen ? "." : "";
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *key = json_object_iter_peek_name(&it);
        json_object *val = json_object_iter_peek_value(&it);
        const struct snode *p = find_prop(n, key);
        if (embedded && !strcmp(key, "metadata")) {
            /* ObjectMeta, whatever the CRD declares: the apiserver's rule for the root and for
             * embedded resources. */
            if (val)
                v_child(v, v->s->objectmeta, val, depth, "%smetadata", dot);
        } else if (p) {
            if (!val && null_is_absent(p))
                continue;
            v_child(v, p, val, depth, "%s%s", dot, key);
        } else if (embedded && (!strcmp(key, "apiVersion") || !strcmp(key, "kind"))) {
            if (!json_object_is_type(val, json_type_string)) {
                size_t old = kube__schema_path_push(v->path, &v->plen, "%s%s", dot, key);
                v_invalid(v, val, "must be of type string");
                kube__schema_path_pop(v->path, &v->plen, old);
            }
        } else if (n->addl) {
            v_child(v, n->addl, val, depth, "%s%s", dot, key);
        } else if (!(n->flags & (F_ADDL_ALLOW | F_PRESERVE)) && !v->branch) {
            size_t old = kube__schema_path_push(v->path, &v->plen, "%s%s", dot, key);
            v_err(v, "field not declared in schema");
            kube__schema_path_pop(v->path, &v->plen, old);
        }
    }
    for (size_t i = 0; i < n->nrequired; i++) {
        const char *name = n->required[i];
        json_object *val = NULL;
        int present = json_object_object_get_ex(obj, name, &val);
        const struct snode *p = find_prop(n, name);
        if (p && kube__schema_deref(p)->flags & F_DEFAULT)
            continue; /* defaulted before validation when missing or null */
        if (present && !val && p && null_is_absent(p))
            present = 0;
        if (!present) {
            size_t old = kube__schema_path_push(v->path, &v->plen, "%s%s", dot, name);
            v_err(v, "Required value");
            kube__schema_path_pop(v->path, &v->plen, old);
        }
    }
    if (embedded && !v->branch) {
        static const char *const tm[] = {"apiVersion", "kind"};
        const char *want[] = {v->s->api_version, v->s->kind};
        for (int i = 0; i < 2; i++) {
            json_object *val = NULL;
            json_object_object_get_ex(obj, tm[i], &val);
            const char *got =
                json_object_is_type(val, json_type_string) ? json_object_get_string(val) : NULL;
            size_t old = kube__schema_path_push(v->path, &v->plen, "%s%s", dot, tm[i]);
            if (!root && (!val || (got && !*got)))
                v_err(v, "Required value");
            /* The root must be the kind and version this schema is for; an object of another
             * version would be checked against the wrong schema. Absent is allowed: callers
             * validate objects before the client stamps apiVersion and kind on them. */
            if (root && got && want[i] && *want[i] && strcmp(got, want[i])) {
                char shown[VALUE_TEXT_MAX + 32];
                render_value(val, shown, sizeof shown);
                v_err(v, "Unsupported value: %s: supported values: \"%s\"", shown, want[i]);
            }
            kube__schema_path_pop(v->path, &v->plen, old);
        }
    }
    size_t nkeys = (size_t)json_object_object_length(obj);
    if (n->min_props >= 0 && nkeys < (size_t)n->min_props)
        v_invalid(v, obj, "should have at least %lld properties", n->min_props);
    if (n->max_props >= 0 && nkeys > (size_t)n->max_props)
        v_err(v, "Too many: %zu: must have at most %lld properties", nkeys, n->max_props);
}

/* The list-map key tuple of an item as a JSON-ish text, for Duplicate messages. */
static void map_key_text(const struct snode *n, json_object *item, char *buf, size_t cap)
{
    size_t len = 0;
    kube__schema_path_push(buf, &len, "{");
    for (size_t k = 0; k < n->nmap_keys; k++) {
        json_object *kv = NULL;
        json_object_object_get_ex(item, n->map_keys[k], &kv);
        char shown[VALUE_TEXT_MAX + 32];
        render_value(kv, shown, sizeof shown);
        kube__schema_path_push(buf, &len, "%s\"%s\":%s", k ? "," : "", n->map_keys[k], shown);
    }
    kube__schema_path_push(buf, &len, "}");
    (void)cap;
}

static int same_map_keys(const struct snode *n, json_object *a, json_object *b)
{
    if (!json_object_is_type(a, json_type_object) || !json_object_is_type(b, json_type_object))
        return 0;
    for (size_t k = 0; k < n->nmap_keys; k++) {
        json_object *x = NULL, *y = NULL;
        int hx = json_object_object_get_ex(a, n->map_keys[k], &x);
        int hy = json_object_object_get_ex(b, n->map_keys[k], &y);
        if (hx != hy || (hx && !json_object_equal(x, y)))
            return 0;
    }
    return 1;
}

static void v_array(struct vctx *v, const struct snode *n, json_object *arr, int depth)
{
    size_t len = json_object_array_length(arr);
    if (n->max_items >= 0 && len > (size_t)n->max_items)
        v_err(v, "Too many: %zu: must have at most %lld items", len, n->max_items);
    if (n->min_items >= 0 && len < (size_t)n->min_items)
        v_invalid(v, arr, "should have at least %lld items", n->min_items);
    for (size_t i = 0; i < len; i++) {
        json_object *item = json_object_array_get_idx(arr, i);
        if (n->items)
            v_child(v, n->items, item, depth, "[%zu]", i);
        if (!(n->flags & (F_LIST_SET | F_LIST_MAP)) || v->branch)
            continue;
        for (size_t j = 0; j < i; j++) {
            json_object *prev = json_object_array_get_idx(arr, j);
            int dup = n->flags & F_LIST_SET ? json_object_equal(item, prev)
                                            : same_map_keys(n, item, prev);
            if (!dup)
                continue;
            char shown[512];
            if (n->flags & F_LIST_SET)
                render_value(item, shown, sizeof shown);
            else
                map_key_text(n, item, shown, sizeof shown);
            size_t old = kube__schema_path_push(v->path, &v->plen, "[%zu]", i);
            v_err(v, "Duplicate value: %s", shown);
            kube__schema_path_pop(v->path, &v->plen, old);
            break;
        }
    }
}

/* Runs one junctor branch into a scratch list; returns its error count (0: it matched). */
static size_t v_branch(struct vctx *v, const struct snode *n, json_object *val, int depth,
                       struct kube_schema_errors *out)
{
    struct vctx b = *v;
    b.errs = out;
    b.branch = 1;
    b.oom = 0;
    v_node(&b, n, val, depth + 1, 0);
    if (b.oom)
        v->oom = 1;
    return out->count + out->dropped;
}

static void v_adopt(struct vctx *v, struct kube_schema_errors *from)
{
    for (size_t i = 0; i < from->count; i++) {
        if (errs_take(v->errs, from->msgs[i]))
            v->oom = 1;
        from->msgs[i] = NULL;
    }
    v->errs->dropped += from->dropped;
    from->count = 0;
    kube_schema_errors_close(from);
}

static void v_junctors(struct vctx *v, const struct snode *n, json_object *val, int depth)
{
    for (size_t i = 0; i < n->n_all; i++) {
        struct kube_schema_errors e;
        kube_schema_errors_init(&e);
        v_branch(v, n->all_of[i], val, depth, &e);
        v_adopt(v, &e);
    }
    for (int kind = 0; kind < 2; kind++) {
        struct snode *const *list = kind ? n->one_of : n->any_of;
        size_t nl = kind ? n->n_one : n->n_any;
        if (!nl)
            continue;
        struct kube_schema_errors all;
        kube_schema_errors_init(&all);
        size_t matched = 0;
        for (size_t i = 0; i < nl; i++) {
            struct kube_schema_errors e;
            kube_schema_errors_init(&e);
            if (v_branch(v, list[i], val, depth, &e) == 0)
                matched++;
            struct vctx tmp = {.errs = &all};
            v_adopt(&tmp, &e);
            if (tmp.oom)
                v->oom = 1;
        }
        if (kind == 0 && matched == 0) {
            v_invalid(v, val, "must validate at least one schema (anyOf)");
            v_adopt(v, &all);
        } else if (kind == 1 && matched != 1) {
            v_invalid(v, val, "must validate one and only one schema (oneOf)");
            if (matched == 0)
                v_adopt(v, &all);
        }
        kube_schema_errors_close(&all);
    }
}

static void v_node(struct vctx *v, const struct snode *n, json_object *val, int depth, int root)
{
    n = kube__schema_deref(n);
    if (depth > KUBE_SCHEMA_MAX_DEPTH) {
        v_err(v, "Invalid value: nested deeper than %d levels", KUBE_SCHEMA_MAX_DEPTH);
        return;
    }
    unsigned allowed = n->types;
    if (n->flags & F_INT_OR_STRING)
        allowed |= T_INTEGER | T_STRING;
    if (!val) {
        if (n->flags & F_NULLABLE || !allowed)
            return;
        char names[96];
        v_invalid(v, val, "must be of type %s", type_names(allowed, names, sizeof names));
        return;
    }
    unsigned t = value_type(val);
    /* Like kube-openapi: a float holding a whole number within 2^53 (1.0) passes as an integer;
     * the apiserver stores it back as 1. */
    if (t == T_NUMBER && allowed & T_INTEGER && !(allowed & T_NUMBER) &&
        json_object_is_type(val, json_type_double)) {
        double d = json_object_get_double(val);
        if (d == floor(d) && fabs(d) <= 9007199254740992.0)
            t = T_INTEGER;
    }
    if (allowed && !(t & allowed) && !(t == T_INTEGER && allowed & T_NUMBER)) {
        /* The junctors of such a node restate the type (int-or-string's anyOf); reporting them
         * too would only repeat this message. */
        char names[96];
        v_invalid(v, val, "must be of type %s", type_names(allowed, names, sizeof names));
        return;
    }
    if (n->enums) {
        int found = 0;
        size_t ne = json_object_array_length(n->enums);
        for (size_t i = 0; i < ne && !found; i++)
            found = json_object_equal(json_object_array_get_idx(n->enums, i), val);
        if (!found) {
            char shown[VALUE_TEXT_MAX + 32], list[768];
            size_t ll = 0;
            list[0] = 0;
            for (size_t i = 0; i < ne; i++) {
                char one[VALUE_TEXT_MAX + 32];
                render_value(json_object_array_get_idx(n->enums, i), one, sizeof one);
                kube__schema_path_push(list, &ll, "%s%s", i ? ", " : "", one);
            }
            render_value(val, shown, sizeof shown);
            v_err(v, "Unsupported value: %s: supported values: %s", shown, list);
        }
    }
    switch (t) {
    case T_STRING:
        v_string(v, n, val);
        break;
    case T_INTEGER:
    case T_NUMBER:
        v_number(v, n, val, t);
        break;
    case T_OBJECT:
        v_object(v, n, val, depth, root);
        break;
    case T_ARRAY:
        v_array(v, n, val, depth);
        break;
    default:
        break;
    }
    v_junctors(v, n, val, depth);
}

int kube_schema_validate(const struct kube_schema *s, json_object *obj,
                         struct kube_schema_errors *errs)
{
    if (!s || !errs)
        return MUSTER_EINVAL;
    struct vctx *v = muster_calloc(1, sizeof *v);
    if (!v)
        return MUSTER_ENOMEM;
    size_t before = errs->count + errs->dropped;
    v->s = s;
    v->errs = errs;
    v_node(v, s->root, obj, 0, 1);
    int oom = v->oom;
    muster_free(v);
    if (oom)
        return MUSTER_ENOMEM;
    return errs->count + errs->dropped > before ? MUSTER_EINVAL : 0;
}
