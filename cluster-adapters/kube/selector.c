/* Label selectors: apimachinery's validation (ValidateLabelSelector, ValidateLabels) and
 * matching (labels.Selector from metav1.LabelSelectorAsSelector), over json-c objects. */
#include "cluster-adapters/kube/selector.h"

#include "cluster-adapters/kube/json.h"
#include "queue/errors.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const ops[] = {"In", "NotIn", "Exists", "DoesNotExist"};
enum { OP_IN, OP_NOTIN, OP_EXISTS, OP_DOESNOTEXIST, NOPS };

static int op_of(const char *s)
{
    for (int i = 0; s && i < NOPS; i++)
        if (strcmp(s, ops[i]) == 0)
            return i;
    return -1;
}

__attribute__((format(printf, 4, 5))) static int say(int rc, char *why, size_t cap, const char *fmt,
                                                     ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static int alnum(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])? of at most 63: a label value's and a name's shape
 * (empty allowed for values only). */
static int name_part(const char *s, size_t n)
{
    if (n > 63 || (n && (!alnum(s[0]) || !alnum(s[n - 1]))))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return 0;
    return 1;
}

/* RFC 1123 subdomain: lowercase labels of [a-z0-9-] joined by '.', at most 253. */
static int subdomain(const char *s, size_t n)
{
    if (n == 0 || n > 253)
        return 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.') {
            char ch = s[i];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'))
                return 0;
            continue;
        }
        if (i == start || s[start] == '-' || s[i - 1] == '-' || i - start > 63)
            return 0;
        start = i + 1;
    }
    return 1;
}

int kube_label_key_valid(const char *s)
{
    if (!s || !s[0])
        return 0;
    const char *slash = strchr(s, '/');
    if (!slash)
        return name_part(s, strlen(s));
    return subdomain(s, (size_t)(slash - s)) && slash[1] && name_part(slash + 1, strlen(slash + 1));
}

int kube_label_value_valid(const char *s)
{
    return s && name_part(s, strlen(s));
}

/* The first key of o that is not in allowed[0..n), or NULL. */
static const char *unknown_field(json_object *o, const char *const *allowed, size_t n)
{
    json_object_object_foreach(o, field, val)
    {
        (void)val;
        size_t i = 0;
        while (i < n && strcmp(field, allowed[i]) != 0)
            i++;
        if (i == n)
            return field;
    }
    return NULL;
}

static int check_values(json_object *vals, int op, const char *p, char *why, size_t cap)
{
    if (vals && !json_object_is_type(vals, json_type_array))
        return say(MUSTER_EINVAL, why, cap, "%s.values: must be a list of strings", p);
    size_t n = vals ? json_object_array_length(vals) : 0;
    if ((op == OP_IN || op == OP_NOTIN) && n == 0)
        return say(MUSTER_EINVAL, why, cap, "%s.values: must be non-empty for operator %s", p,
                   ops[op]);
    if ((op == OP_EXISTS || op == OP_DOESNOTEXIST) && n > 0)
        return say(MUSTER_EINVAL, why, cap, "%s.values: must be empty for operator %s", p, ops[op]);
    if (n > KUBE_SELECTOR_TERMS_MAX)
        return say(MUSTER_ELIMIT, why, cap, "%s.values: more than %d values", p,
                   KUBE_SELECTOR_TERMS_MAX);
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(vals, i);
        if (!json_object_is_type(v, json_type_string) ||
            !kube_label_value_valid(json_object_get_string(v)))
            return say(MUSTER_EINVAL, why, cap,
                       "%s.values[%zu]: must be a label value (at most 63 of [A-Za-z0-9-_.], "
                       "alphanumeric at both ends)",
                       p, i);
    }
    return 0;
}

int kube_selector_check(json_object *sel, const char *path, char *why, size_t cap)
{
    if (!json_object_is_type(sel, json_type_object))
        return say(MUSTER_EINVAL, why, cap, "%s: must be an object {matchLabels, matchExpressions}",
                   path);
    size_t terms = 0;
    static const char *const sel_fields[] = {"matchLabels", "matchExpressions"};
    const char *field = unknown_field(sel, sel_fields, 2);
    if (field)
        return say(MUSTER_EINVAL, why, cap,
                   "%s.%.63s: unknown field (a label selector has matchLabels and "
                   "matchExpressions)",
                   path, field);
    json_object *ml = kube_json_get(sel, "matchLabels");
    if (ml && !json_object_is_type(ml, json_type_object))
        return say(MUSTER_EINVAL, why, cap, "%s.matchLabels: must be an object of strings", path);
    if (ml) {
        json_object_object_foreach(ml, key, val)
        {
            if (++terms > KUBE_SELECTOR_TERMS_MAX)
                return say(MUSTER_ELIMIT, why, cap, "%s: more than %d terms", path,
                           KUBE_SELECTOR_TERMS_MAX);
            if (!kube_label_key_valid(key))
                return say(MUSTER_EINVAL, why, cap,
                           "%s.matchLabels: \"%.63s\" is not a label key (an optional DNS "
                           "prefix and '/', then at most 63 of [A-Za-z0-9-_.])",
                           path, key);
            if (!json_object_is_type(val, json_type_string) ||
                !kube_label_value_valid(json_object_get_string(val)))
                return say(MUSTER_EINVAL, why, cap,
                           "%s.matchLabels.%.63s: must be a label value (at most 63 of "
                           "[A-Za-z0-9-_.], alphanumeric at both ends)",
                           path, key);
        }
    }
    json_object *me = kube_json_get(sel, "matchExpressions");
    if (me && !json_object_is_type(me, json_type_array))
        return say(MUSTER_EINVAL, why, cap, "%s.matchExpressions: must be a list", path);
    size_t n = me ? json_object_array_length(me) : 0;
    for (size_t i = 0; i < n; i++) {
        char p[160];
        snprintf(p, sizeof p, "%.100s.matchExpressions[%zu]", path, i);
        if (++terms > KUBE_SELECTOR_TERMS_MAX)
            return say(MUSTER_ELIMIT, why, cap, "%s: more than %d terms", path,
                       KUBE_SELECTOR_TERMS_MAX);
        json_object *e = json_object_array_get_idx(me, i);
        if (!json_object_is_type(e, json_type_object))
            return say(MUSTER_EINVAL, why, cap, "%s: must be an object {key, operator, values}", p);
        static const char *const expr_fields[] = {"key", "operator", "values"};
        field = unknown_field(e, expr_fields, 3);
        if (field)
            return say(MUSTER_EINVAL, why, cap, "%s.%.63s: unknown field", p, field);
        if (!kube_label_key_valid(kube_json_str(e, "key")))
            return say(MUSTER_EINVAL, why, cap, "%s.key: must be a label key", p);
        int op = op_of(kube_json_str(e, "operator"));
        if (op < 0)
            return say(MUSTER_EINVAL, why, cap,
                       "%s.operator: must be In, NotIn, Exists or DoesNotExist", p);
        int rc = check_values(kube_json_get(e, "values"), op, p, why, cap);
        if (rc)
            return rc;
    }
    return 0;
}

/* The values of an expression as the selector's String() writes them: [a b]. */
static void values_text(json_object *vals, char *out, size_t cap)
{
    size_t at = 0,
           n = json_object_is_type(vals, json_type_array) ? json_object_array_length(vals) : 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && at < cap; i++) {
        int w = snprintf(out + at, cap - at, "%s%s", i ? " " : "",
                         json_object_get_string(json_object_array_get_idx(vals, i)));
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

int kube_selector_matches(json_object *sel, json_object *labels, char *why, size_t cap)
{
    json_object *ml = kube_json_get(sel, "matchLabels");
    if (ml) {
        json_object_object_foreach(ml, key, val)
        {
            const char *have = kube_json_str(labels, key);
            const char *want = json_object_get_string(val);
            if (!have || strcmp(have, want) != 0)
                return say(0, why, cap, "label %.63s is not %.63s", key, want);
        }
    }
    json_object *me = kube_json_get(sel, "matchExpressions");
    size_t n = json_object_is_type(me, json_type_array) ? json_object_array_length(me) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(me, i);
        const char *key = kube_json_str(e, "key");
        int op = op_of(kube_json_str(e, "operator"));
        json_object *vals = kube_json_get(e, "values");
        const char *have = key ? kube_json_str(labels, key) : NULL;
        int ok;
        switch (op) {
        case OP_IN:
            ok = have && kube_json_has_str(vals, have);
            break;
        case OP_NOTIN:
            ok = !have || !kube_json_has_str(vals, have);
            break;
        case OP_EXISTS:
            ok = have != NULL;
            break;
        case OP_DOESNOTEXIST:
            ok = have == NULL;
            break;
        default:
            ok = 0; /* unchecked: nothing matches a selector that cannot be read */
        }
        if (!ok) {
            char v[200];
            values_text(vals, v, sizeof v);
            if (op == OP_IN || op == OP_NOTIN)
                return say(0, why, cap, "label %.63s does not satisfy %s [%s]", key ? key : "",
                           ops[op], v);
            return say(0, why, cap, "label %.63s does not satisfy %s", key ? key : "",
                       op >= 0 ? ops[op] : "an unknown operator");
        }
    }
    return 1;
}
