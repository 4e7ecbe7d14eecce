/* CRD / swagger schemas loaded into a tree of nodes (json-c; YAML through yaml.c); the
 * apiserver-style validation against them is schema_validate.c. */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/schema_int.h"

#include "cluster-adapters/kube/file.h"

#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/yaml.h"
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
 * The schema tree
 */

#define QUANTITY_RE_JSON                                                                           \
    "^(\\\\+|-)?(([0-9]+(\\\\.[0-9]*)?)|(\\\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\\\+|-)?"    \
    "(([0-9]+(\\\\.[0-9]*)?)|(\\\\.[0-9]+))))?$"

/* Schemas the apiserver applies without the CRD saying so (ObjectMeta), and the apimachinery
 * definitions that swagger extracts refer to but leave out. ObjectMeta is loose on purpose:
 * field names and JSON types, not the name/label syntax rules the apiserver adds on top. */
static const char builtin_defs[] =
    "{"
    "\"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta\": {\"type\": \"object\", \"properties\": {"
    " \"name\": {\"type\": \"string\"}, \"generateName\": {\"type\": \"string\"},"
    " \"namespace\": {\"type\": \"string\"}, \"selfLink\": {\"type\": \"string\"},"
    " \"uid\": {\"type\": \"string\"}, \"resourceVersion\": {\"type\": \"string\"},"
    " \"generation\": {\"type\": \"integer\", \"format\": \"int64\"},"
    " \"creationTimestamp\": {\"type\": \"string\", \"format\": \"date-time\", \"nullable\": true},"
    " \"deletionTimestamp\": {\"type\": \"string\", \"format\": \"date-time\", \"nullable\": true},"
    " \"deletionGracePeriodSeconds\": {\"type\": \"integer\", \"format\": \"int64\"},"
    " \"labels\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}},"
    " \"annotations\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}},"
    " \"finalizers\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},"
    " \"ownerReferences\": {\"type\": \"array\", \"items\": {\"type\": \"object\","
    "  \"required\": [\"apiVersion\", \"kind\", \"name\", \"uid\"], \"properties\": {"
    "  \"apiVersion\": {\"type\": \"string\"}, \"kind\": {\"type\": \"string\"},"
    "  \"name\": {\"type\": \"string\"}, \"uid\": {\"type\": \"string\"},"
    "  \"controller\": {\"type\": \"boolean\"}, \"blockOwnerDeletion\": {\"type\": \"boolean\"}}}},"
    " \"managedFields\": {\"type\": \"array\", \"items\": {\"type\": \"object\","
    "  \"x-kubernetes-preserve-unknown-fields\": true}}}},"
    "\"io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta\": {\"type\": \"object\", \"properties\": {"
    " \"continue\": {\"type\": \"string\"}, \"resourceVersion\": {\"type\": \"string\"},"
    " \"selfLink\": {\"type\": \"string\"},"
    " \"remainingItemCount\": {\"type\": \"integer\", \"format\": \"int64\"}}},"
    "\"io.k8s.apimachinery.pkg.apis.meta.v1.Time\":"
    " {\"type\": \"string\", \"format\": \"date-time\", \"nullable\": true},"
    "\"io.k8s.apimachinery.pkg.apis.meta.v1.Condition\": {\"type\": \"object\","
    " \"required\": [\"type\", \"status\", \"lastTransitionTime\", \"reason\", \"message\"],"
    " \"properties\": {"
    " \"type\": {\"type\": \"string\", \"maxLength\": 316},"
    " \"status\": {\"type\": \"string\", \"enum\": [\"True\", \"False\", \"Unknown\"]},"
    " \"observedGeneration\": {\"type\": \"integer\", \"format\": \"int64\", \"minimum\": 0},"
    " \"lastTransitionTime\": {\"type\": \"string\", \"format\": \"date-time\"},"
    " \"reason\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 1024},"
    " \"message\": {\"type\": \"string\", \"maxLength\": 32768}}},"
    /* Go's Quantity decoder takes a JSON number as well as a string (a CRD's int-or-string does
     * not take a fraction; the aggregated apiserver's typed decoding does). */
    "\"io.k8s.apimachinery.pkg.api.resource.Quantity\":"
    " {\"type\": [\"number\", \"string\"], \"pattern\": \"" QUANTITY_RE_JSON "\"},"
    "\"io.k8s.api.core.v1.Taint\": {\"type\": \"object\", \"required\": [\"key\", \"effect\"],"
    " \"properties\": {\"key\": {\"type\": \"string\"}, \"value\": {\"type\": \"string\"},"
    " \"effect\": {\"type\": \"string\", \"enum\": [\"NoSchedule\", \"PreferNoSchedule\","
    " \"NoExecute\"]},"
    " \"timeAdded\": {\"type\": \"string\", \"format\": \"date-time\", \"nullable\": true}}}"
    "}";

#define OBJECTMETA_DEF "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
#define REF_PREFIX "#/definitions/"

struct bctx {
    struct kube_schema *s;
    json_object *defs;     /* the swagger definitions map, or NULL for a CRD */
    json_object *builtins; /* parsed builtin_defs */
    struct sprop *built;   /* definition name -> node, so each is built once */
    size_t nbuilt;
    /* Swagger from Go types gives zero-value defaults ("", 0) to every non-pointer field, including
     * required ones; a typed server fills them in but then rejects most of them (an empty
     * syncMode). Objects muster sends or a real server serves always carry required fields, so
     * in swagger `default` does not excuse a missing one. */
    int ignore_defaults;
    const char *file;
    char *err;
    size_t errcap;
    char path[KUBE_SCHEMA_MAX_PATH];
    size_t plen;
};

/* Appends to a path buffer; returns the old length for kube__schema_path_pop. Truncates rather than
 * fails: a clipped path in a message is better than no message. */
size_t kube__schema_path_push(char *buf, size_t *len, const char *fmt, ...)
{
    size_t old = *len;
    if (*len < KUBE_SCHEMA_MAX_PATH - 1) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf + *len, KUBE_SCHEMA_MAX_PATH - *len, fmt, ap);
        va_end(ap);
        if (n > 0)
            *len += (size_t)n < KUBE_SCHEMA_MAX_PATH - *len ? (size_t)n
                                                            : KUBE_SCHEMA_MAX_PATH - 1 - *len;
    }
    return old;
}

void kube__schema_path_pop(char *buf, size_t *len, size_t old)
{
    *len = old;
    buf[old] = 0;
}

static int b_fail(struct bctx *b, int rc, const char *fmt, ...)
{
    if (!b->err || !b->errcap)
        return rc;
    if (rc == MUSTER_ENOMEM) {
        snprintf(b->err, b->errcap, "%s: out of memory", b->file);
        return rc;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(b->err, b->errcap, "%s: %s: %s", b->file, b->plen ? b->path : "schema", msg);
    return rc;
}

static struct snode *node_new(struct kube_schema *s)
{
    struct snode *n = muster_calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->min_len = n->max_len = n->min_items = n->max_items = n->min_props = n->max_props = -1;
    *s->tail = n;
    s->tail = &n->next_alloc;
    return n;
}

static void node_release(struct snode *n)
{
    for (size_t i = 0; i < n->nprops; i++)
        muster_free(n->props[i].name);
    muster_free(n->props);
    for (size_t i = 0; i < n->nrequired; i++)
        muster_free(n->required[i]);
    muster_free(n->required);
    for (size_t i = 0; i < n->nmap_keys; i++)
        muster_free(n->map_keys[i]);
    muster_free(n->map_keys);
    muster_free(n->ref_name);
    muster_free(n->pattern);
    if (n->has_re)
        regfree(&n->re);
    if (n->enums)
        json_object_put(n->enums);
    muster_free(n->any_of);
    muster_free(n->all_of);
    muster_free(n->one_of);
    muster_free(n);
}

void kube_schema_free(struct kube_schema *s)
{
    if (!s)
        return;
    struct snode *n = s->nodes;
    while (n) {
        struct snode *next = n->next_alloc;
        node_release(n);
        n = next;
    }
    muster_free(s->api_version);
    muster_free(s->kind);
    muster_free(s);
}

/* Rewrites an RE2 pattern (what the apiserver runs) as a POSIX extended one with the same
 * match/no-match answer. Returns 0 with *out set, 1 when the pattern uses RE2-only syntax, or
 * MUSTER_ENOMEM. Lazy quantifiers become greedy: that changes which text a match covers, never
 * whether there is one, and only the latter matters here. */
static int re2_to_ere(const char *in, char **out)
{
    *out = NULL;
    size_t len = strlen(in);
    char *o = muster_malloc(len * 12 + 1);
    if (!o)
        return MUSTER_ENOMEM;
    size_t k = 0;
    int bracket = 0; /* inside [...] */
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (bracket) {
            if (c == ']' && !(bracket == 1)) {
                bracket = 0;
                o[k++] = c;
                continue;
            }
            bracket++;
            if (c == '[' && in[i + 1] == ':') {
                const char *close = strstr(in + i + 2, ":]");
                if (!close)
                    goto unsupported;
                size_t n = (size_t)(close + 2 - (in + i));
                memcpy(o + k, in + i, n);
                k += n;
                i += n - 1;
                continue;
            }
            if (c != '\\') {
                o[k++] = c;
                continue;
            }
            char e = in[++i];
            const char *rep = NULL;
            if (e == 'd')
                rep = "0-9";
            else if (e == 'w')
                rep = "A-Za-z0-9_";
            else if (e == 's')
                rep = "[:space:]";
            if (rep) {
                memcpy(o + k, rep, strlen(rep));
                k += strlen(rep);
            } else if (ispunct((unsigned char)e) && !strchr("]\\-^[", e)) {
                o[k++] = e; /* RE2 lets any punctuation be escaped; in a POSIX set it is literal */
            } else {
                goto unsupported; /* \] \- \\ \^ need reordering the set; not worth it */
            }
            continue;
        }
        if (c == '[') {
            bracket = 1;
            o[k++] = c;
            if (in[i + 1] == '^') {
                o[k++] = '^';
                i++;
            }
            continue;
        }
        if (c == '(' && in[i + 1] == '?')
            goto unsupported;
        if (c == '?' && i > 0 && strchr("*+?}", in[i - 1]) && !(i > 1 && in[i - 2] == '\\'))
            continue;
        if (c != '\\') {
            o[k++] = c;
            continue;
        }
        char e = in[++i];
        const char *rep = NULL;
        switch (e) {
        case 'd':
            rep = "[0-9]";
            break;
        case 'D':
            rep = "[^0-9]";
            break;
        case 'w':
            rep = "[A-Za-z0-9_]";
            break;
        case 'W':
            rep = "[^A-Za-z0-9_]";
            break;
        case 's':
            rep = "[[:space:]]";
            break;
        case 'S':
            rep = "[^[:space:]]";
            break;
        case 'n':
            rep = "\n";
            break;
        case 't':
            rep = "\t";
            break;
        default:
            break;
        }
        if (rep) {
            memcpy(o + k, rep, strlen(rep));
            k += strlen(rep);
        } else if (e && strchr(".+*?()[]{}|^$\\", e)) {
            o[k++] = '\\';
            o[k++] = e;
        } else if (ispunct((unsigned char)e)) {
            o[k++] = e; /* escaped only for RE2's sake; an ERE escape of it is undefined */
        } else {
            goto unsupported; /* \b \A \z \pN \x.. and friends */
        }
    }
    if (bracket)
        goto unsupported;
    o[k] = 0;
    *out = o;
    return 0;
unsupported:
    muster_free(o);
    return 1;
}

static int json_number(json_object *v, double *out)
{
    if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
        *out = json_object_get_double(v);
        return 1;
    }
    return 0;
}

static int json_count(json_object *v, long long *out)
{
    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
        return 0;
    *out = json_object_get_int64(v);
    return 1;
}

static int parse_type(const char *t, unsigned *mask)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"object", T_OBJECT},   {"array", T_ARRAY},   {"string", T_STRING},
                 {"integer", T_INTEGER}, {"number", T_NUMBER}, {"boolean", T_BOOLEAN}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!strcmp(t, names[i].name)) {
            *mask |= names[i].bit;
            return 0;
        }
    }
    return -1;
}

/* A NULL-free copy of a JSON array of strings. */
static int string_list(json_object *arr, char ***out, size_t *n)
{
    if (!json_object_is_type(arr, json_type_array))
        return MUSTER_EINVAL;
    size_t len = json_object_array_length(arr);
    char **v = muster_calloc(len ? len : 1, sizeof *v);
    if (!v)
        return MUSTER_ENOMEM;
    for (size_t i = 0; i < len; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        int rc = 0;
        if (json_object_is_type(e, json_type_string)) {
            v[i] = muster_strdup(json_object_get_string(e));
            if (!v[i])
                rc = MUSTER_ENOMEM;
        } else {
            rc = MUSTER_EINVAL;
        }
        if (rc) {
            for (size_t j = 0; j < i; j++)
                muster_free(v[j]);
            muster_free(v);
            return rc;
        }
    }
    *out = v;
    *n = len;
    return 0;
}

int kube__schema_prop_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sprop *)a)->name, ((const struct sprop *)b)->name);
}

static int build(struct bctx *b, json_object *js, int depth, struct snode **out);

static int build_child(struct bctx *b, json_object *js, int depth, struct snode **out,
                       const char *fmt, const char *arg)
{
    size_t old = kube__schema_path_push(b->path, &b->plen, fmt, arg);
    int rc = build(b, js, depth + 1, out);
    if (rc == 0)
        kube__schema_path_pop(b->path, &b->plen, old);
    return rc;
}

static int build_list(struct bctx *b, json_object *arr, int depth, const char *key,
                      struct snode ***out, size_t *n)
{
    if (!json_object_is_type(arr, json_type_array))
        return b_fail(b, MUSTER_EINVAL, "%s must be a list of schemas", key);
    size_t len = json_object_array_length(arr);
    struct snode **v = muster_calloc(len ? len : 1, sizeof *v);
    if (!v)
        return b_fail(b, MUSTER_ENOMEM, "");
    *out = v;
    *n = len;
    for (size_t i = 0; i < len; i++) {
        char idx[32];
        snprintf(idx, sizeof idx, "%zu", i);
        size_t old = kube__schema_path_push(b->path, &b->plen, ".%s[", key);
        int rc = build_child(b, json_object_array_get_idx(arr, i), depth, &v[i], "%s]", idx);
        if (rc)
            return rc;
        kube__schema_path_pop(b->path, &b->plen, old);
    }
    return 0;
}

static int build_key(struct bctx *b, struct snode *n, const char *key, json_object *val, int depth)
{
    int rc;
    double d;
    long long c;
    if (!strcmp(key, "$ref")) {
        const char *r = json_object_get_string(val);
        if (!json_object_is_type(val, json_type_string) ||
            strncmp(r, REF_PREFIX, strlen(REF_PREFIX)))
            return b_fail(b, MUSTER_EINVAL, "$ref must be \"" REF_PREFIX "NAME\"");
        n->ref_name = muster_strdup(r + strlen(REF_PREFIX));
        return n->ref_name ? 0 : b_fail(b, MUSTER_ENOMEM, "");
    }
    if (!strcmp(key, "type")) {
        if (json_object_is_type(val, json_type_string)) {
            if (parse_type(json_object_get_string(val), &n->types))
                return b_fail(b, MUSTER_EINVAL, "unknown type \"%s\"", json_object_get_string(val));
            return 0;
        }
        if (json_object_is_type(val, json_type_array)) {
            for (size_t i = 0; i < json_object_array_length(val); i++) {
                json_object *t = json_object_array_get_idx(val, i);
                if (!json_object_is_type(t, json_type_string) ||
                    parse_type(json_object_get_string(t), &n->types))
                    return b_fail(b, MUSTER_EINVAL, "bad type list");
            }
            return 0;
        }
        return b_fail(b, MUSTER_EINVAL, "type must be a string");
    }
    if (!strcmp(key, "properties")) {
        if (!json_object_is_type(val, json_type_object))
            return b_fail(b, MUSTER_EINVAL, "properties must be a map");
        size_t len = (size_t)json_object_object_length(val);
        n->props = muster_calloc(len ? len : 1, sizeof *n->props);
        if (!n->props)
            return b_fail(b, MUSTER_ENOMEM, "");
        struct json_object_iterator it = json_object_iter_begin(val);
        struct json_object_iterator end = json_object_iter_end(val);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
            const char *name = json_object_iter_peek_name(&it);
            struct sprop *p = &n->props[n->nprops];
            p->name = muster_strdup(name);
            if (!p->name)
                return b_fail(b, MUSTER_ENOMEM, "");
            n->nprops++;
            rc = build_child(b, json_object_iter_peek_value(&it), depth, &p->node, ".properties.%s",
                             name);
            if (rc)
                return rc;
        }
        qsort(n->props, n->nprops, sizeof *n->props, kube__schema_prop_cmp);
        return 0;
    }
    if (!strcmp(key, "required") || !strcmp(key, "x-kubernetes-list-map-keys")) {
        int map = key[0] == 'x';
        rc = map ? string_list(val, &n->map_keys, &n->nmap_keys)
                 : string_list(val, &n->required, &n->nrequired);
        return rc ? b_fail(b, rc, "%s must be a list of strings", key) : 0;
    }
    if (!strcmp(key, "items")) {
        if (!json_object_is_type(val, json_type_object))
            return b_fail(b, MUSTER_EINVAL, "items must be one schema (tuples are not supported)");
        return build_child(b, val, depth, &n->items, "%s", ".items");
    }
    if (!strcmp(key, "additionalProperties")) {
        if (json_object_is_type(val, json_type_boolean)) {
            n->flags |= json_object_get_boolean(val) ? F_ADDL_ALLOW : F_ADDL_DENY;
            return 0;
        }
        return build_child(b, val, depth, &n->addl, "%s", ".additionalProperties");
    }
    if (!strcmp(key, "enum")) {
        if (!json_object_is_type(val, json_type_array))
            return b_fail(b, MUSTER_EINVAL, "enum must be a list");
        n->enums = json_object_get(val);
        return 0;
    }
    if (!strcmp(key, "format")) {
        const char *f = json_object_get_string(val);
        if (!strcmp(f, "int32"))
            n->format = FMT_INT32;
        else if (!strcmp(f, "int64"))
            n->format = FMT_INT64;
        else if (!strcmp(f, "date-time") || !strcmp(f, "datetime"))
            n->format = FMT_DATE_TIME;
        else if (!strcmp(f, "date"))
            n->format = FMT_DATE;
        return 0;
    }
    if (!strcmp(key, "pattern")) {
        if (!json_object_is_type(val, json_type_string))
            return b_fail(b, MUSTER_EINVAL, "pattern must be a string");
        n->pattern = muster_strdup(json_object_get_string(val));
        if (!n->pattern)
            return b_fail(b, MUSTER_ENOMEM, "");
        char *ere;
        rc = re2_to_ere(n->pattern, &ere);
        if (rc < 0)
            return b_fail(b, rc, "");
        if (rc == 0) {
            n->has_re = regcomp(&n->re, ere, REG_EXTENDED | REG_NOSUB) == 0;
            muster_free(ere);
        }
        if (!n->has_re)
            b->s->unchecked_patterns++;
        return 0;
    }
    if (!strcmp(key, "minimum") || !strcmp(key, "maximum") || !strcmp(key, "multipleOf")) {
        if (!json_number(val, &d))
            return b_fail(b, MUSTER_EINVAL, "%s must be a number", key);
        if (key[1] == 'i') {
            n->minimum = d;
            n->flags |= F_HAS_MIN;
        } else if (key[1] == 'a') {
            n->maximum = d;
            n->flags |= F_HAS_MAX;
        } else if (d > 0) {
            n->multiple_of = d;
            n->flags |= F_HAS_MULT;
        }
        return 0;
    }
    static const struct {
        const char *key;
        unsigned flag;
    } bools[] = {{"exclusiveMinimum", F_EXCL_MIN},
                 {"exclusiveMaximum", F_EXCL_MAX},
                 {"nullable", F_NULLABLE},
                 {"x-kubernetes-preserve-unknown-fields", F_PRESERVE},
                 {"x-kubernetes-int-or-string", F_INT_OR_STRING},
                 {"x-kubernetes-embedded-resource", F_EMBEDDED}};
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
        if (strcmp(key, bools[i].key))
            continue;
        if (!json_object_is_type(val, json_type_boolean))
            return b_fail(b, MUSTER_EINVAL, "%s must be a boolean", key);
        if (json_object_get_boolean(val))
            n->flags |= bools[i].flag;
        return 0;
    }
    static const struct {
        const char *key;
        size_t off;
    } counts[] = {{"minLength", offsetof(struct snode, min_len)},
                  {"maxLength", offsetof(struct snode, max_len)},
                  {"minItems", offsetof(struct snode, min_items)},
                  {"maxItems", offsetof(struct snode, max_items)},
                  {"minProperties", offsetof(struct snode, min_props)},
                  {"maxProperties", offsetof(struct snode, max_props)}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if (strcmp(key, counts[i].key))
            continue;
        if (!json_count(val, &c))
            return b_fail(b, MUSTER_EINVAL, "%s must be a non-negative integer", key);
        *(long long *)((char *)n + counts[i].off) = c;
        return 0;
    }
    if (!strcmp(key, "default")) {
        if (!b->ignore_defaults)
            n->flags |= F_DEFAULT;
        return 0;
    }
    if (!strcmp(key, "x-kubernetes-list-type")) {
        const char *t = json_object_get_string(val);
        if (!strcmp(t, "set"))
            n->flags |= F_LIST_SET;
        else if (!strcmp(t, "map"))
            n->flags |= F_LIST_MAP;
        return 0;
    }
    if (!strcmp(key, "anyOf"))
        return build_list(b, val, depth, key, &n->any_of, &n->n_any);
    if (!strcmp(key, "allOf"))
        return build_list(b, val, depth, key, &n->all_of, &n->n_all);
    if (!strcmp(key, "oneOf"))
        return build_list(b, val, depth, key, &n->one_of, &n->n_one);
    /* description, title, example, externalDocs, x-kubernetes-map-type, x-kubernetes-validations
     * (CEL), not, ...: documentation, or not checked (docs/schema-validation.md). */
    return 0;
}

static int build(struct bctx *b, json_object *js, int depth, struct snode **out)
{
    *out = NULL;
    if (depth > KUBE_SCHEMA_MAX_DEPTH)
        return b_fail(b, MUSTER_ELIMIT, "schema nested deeper than %d levels",
                      KUBE_SCHEMA_MAX_DEPTH);
    if (!json_object_is_type(js, json_type_object))
        return b_fail(b, MUSTER_EINVAL, "a schema must be a map");
    struct snode *n = node_new(b->s);
    if (!n)
        return b_fail(b, MUSTER_ENOMEM, "");
    *out = n;
    struct json_object_iterator it = json_object_iter_begin(js);
    struct json_object_iterator end = json_object_iter_end(js);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        int rc = build_key(b, n, json_object_iter_peek_name(&it), json_object_iter_peek_value(&it),
                           depth);
        if (rc)
            return rc;
    }
    if (n->flags & F_LIST_MAP && n->nmap_keys == 0)
        n->flags &= ~(unsigned)F_LIST_MAP;
    return 0;
}

/* The node for definition `name`, built on first use. */
static int build_def(struct bctx *b, const char *name, struct snode **out)
{
    for (size_t i = 0; i < b->nbuilt; i++) {
        if (!strcmp(b->built[i].name, name)) {
            *out = b->built[i].node;
            return 0;
        }
    }
    json_object *js = NULL;
    if (!(b->defs && json_object_object_get_ex(b->defs, name, &js)) &&
        !json_object_object_get_ex(b->builtins, name, &js))
        return b_fail(b, MUSTER_EINVAL, "unresolved $ref \"%s\"", name);
    struct sprop *nb = muster_realloc(b->built, (b->nbuilt + 1) * sizeof *nb);
    if (!nb)
        return b_fail(b, MUSTER_ENOMEM, "");
    b->built = nb;
    char *copy = muster_strdup(name);
    if (!copy)
        return b_fail(b, MUSTER_ENOMEM, "");
    /* Definitions are built with the root's path cleared; messages name the definition. */
    kube__schema_path_pop(b->path, &b->plen, 0);
    kube__schema_path_push(b->path, &b->plen, "definitions.%s", name);
    int rc = build(b, js, 0, out);
    if (rc) {
        muster_free(copy);
        return rc;
    }
    kube__schema_path_pop(b->path, &b->plen, 0);
    b->built[b->nbuilt].name = copy;
    b->built[b->nbuilt].node = *out;
    b->nbuilt++;
    return 0;
}

/* Resolves every $ref, including those in definitions pulled in along the way (they are
 * appended to the node list this walks). */
static int resolve_refs(struct bctx *b)
{
    for (struct snode *n = b->s->nodes; n; n = n->next_alloc) {
        if (!n->ref_name || n->ref)
            continue;
        int rc = build_def(b, n->ref_name, &n->ref);
        if (rc)
            return rc;
    }
    for (struct snode *n = b->s->nodes; n; n = n->next_alloc) {
        const struct snode *t = n;
        for (int hops = 0; t->ref; hops++) {
            if (hops > 32)
                return b_fail(b, MUSTER_EINVAL, "$ref cycle through \"%s\"", n->ref_name);
            t = t->ref;
        }
    }
    return 0;
}

const struct snode *kube__schema_deref(const struct snode *n)
{
    while (n && n->ref)
        n = n->ref;
    return n;
}

static void bctx_close(struct bctx *b)
{
    for (size_t i = 0; i < b->nbuilt; i++)
        muster_free(b->built[i].name);
    muster_free(b->built);
    if (b->builtins)
        json_object_put(b->builtins);
}

/* Common tail of both loaders: the builtins, the root and the refs. A swagger root is built as
 * definition def_name, so refs back to it (recursive types) share its nodes. */
static int load_root(struct bctx *b, json_object *root_js, const char *root_path,
                     const char *def_name)
{
    b->s = muster_calloc(1, sizeof *b->s);
    if (!b->s)
        return b_fail(b, MUSTER_ENOMEM, "");
    b->s->tail = &b->s->nodes;
    b->builtins = json_tokener_parse(builtin_defs);
    if (!b->builtins)
        return b_fail(b, MUSTER_ENOMEM, "");
    int rc = build_def(b, OBJECTMETA_DEF, &b->s->objectmeta);
    if (rc)
        return rc;
    if (def_name) {
        rc = build_def(b, def_name, &b->s->root);
        if (rc)
            return rc;
        return resolve_refs(b);
    }
    kube__schema_path_pop(b->path, &b->plen, 0);
    kube__schema_path_push(b->path, &b->plen, "%s", root_path);
    rc = build(b, root_js, 0, &b->s->root);
    if (rc)
        return rc;
    kube__schema_path_pop(b->path, &b->plen, 0);
    return resolve_refs(b);
}

static int finish_load(struct bctx *b, int rc, struct kube_schema **out)
{
    bctx_close(b);
    if (rc) {
        kube_schema_free(b->s);
        return rc;
    }
    *out = b->s;
    return 0;
}

static char *join_gv(const char *group, const char *version)
{
    size_t gl = group ? strlen(group) : 0, vl = strlen(version);
    char *s = muster_malloc(gl + vl + 2);
    if (!s)
        return NULL;
    if (gl) {
        memcpy(s, group, gl);
        s[gl++] = '/';
    }
    memcpy(s + gl, version, vl + 1);
    return s;
}

/* Builds version's schema from the CRD among docs (parsed YAML, released here). */
static int crd_from_docs(json_object *docs, const char *path, const char *version,
                         struct kube_schema **out, char *err, size_t errcap)
{
    int rc;
    struct bctx b = {.file = path, .err = err, .errcap = errcap};
    json_object *crd = NULL;
    for (size_t i = 0; i < json_object_array_length(docs); i++) {
        json_object *d = json_object_array_get_idx(docs, i);
        const char *kind = kube_json_str(d, "kind");
        if (kind && !strcmp(kind, "CustomResourceDefinition")) {
            crd = d;
            break;
        }
    }
    json_object *spec = NULL, *versions = NULL, *schema = NULL;
    const char *av = crd ? kube_json_str(crd, "apiVersion") : NULL;
    const char *group = NULL, *kind = NULL;
    if (!crd) {
        rc = b_fail(&b, MUSTER_EINVAL, "no CustomResourceDefinition document");
        goto done;
    }
    if (!av || strcmp(av, "apiextensions.k8s.io/v1")) {
        rc = b_fail(&b, MUSTER_EINVAL, "apiVersion is %s; only apiextensions.k8s.io/v1 is read",
                    av ? av : "missing");
        goto done;
    }
    json_object *names = NULL;
    if (json_object_object_get_ex(crd, "spec", &spec)) {
        json_object_object_get_ex(spec, "versions", &versions);
        json_object_object_get_ex(spec, "names", &names);
        group = kube_json_str(spec, "group");
        kind = names ? kube_json_str(names, "kind") : NULL;
    }
    if (!json_object_is_type(versions, json_type_array) || !kind || !group) {
        rc = b_fail(&b, MUSTER_EINVAL, "spec.group, spec.names.kind or spec.versions missing");
        goto done;
    }
    char have[256] = "";
    size_t hl = 0;
    json_object *ver = NULL;
    for (size_t i = 0; i < json_object_array_length(versions); i++) {
        json_object *v = json_object_array_get_idx(versions, i);
        const char *name = kube_json_str(v, "name");
        if (name && !strcmp(name, version)) {
            ver = v;
            break;
        }
        kube__schema_path_push(have, &hl, "%s%s", hl ? ", " : "", name ? name : "?");
    }
    if (!ver) {
        rc = b_fail(&b, MUSTER_ENOENT, "no version %s (the CRD has: %s)", version, have);
        goto done;
    }
    json_object *sch = NULL;
    if (!json_object_object_get_ex(ver, "schema", &sch) ||
        !json_object_object_get_ex(sch, "openAPIV3Schema", &schema)) {
        rc = b_fail(&b, MUSTER_EINVAL, "version %s has no schema.openAPIV3Schema", version);
        goto done;
    }
    char root_path[128];
    snprintf(root_path, sizeof root_path, "versions[%s].schema.openAPIV3Schema", version);
    rc = load_root(&b, schema, root_path, NULL);
    if (rc == 0) {
        b.s->api_version = join_gv(group, version);
        b.s->kind = muster_strdup(kind);
        if (!b.s->api_version || !b.s->kind)
            rc = b_fail(&b, MUSTER_ENOMEM, "");
    }
done:
    rc = finish_load(&b, rc, out);
    json_object_put(docs);
    return rc;
}

int kube_schema_load_crd(const char *path, const char *version, struct kube_schema **out, char *err,
                         size_t errcap)
{
    if (out)
        *out = NULL;
    if (err && errcap)
        err[0] = 0;
    if (!path || !version || !out)
        return MUSTER_EINVAL;
    json_object *docs;
    int rc = kube_yaml_read(path, &docs, err, errcap);
    if (rc)
        return rc;
    return crd_from_docs(docs, path, version, out, err, errcap);
}

int kube_schema_parse_crd(const char *text, size_t len, const char *name, const char *version,
                          struct kube_schema **out, char *err, size_t errcap)
{
    if (out)
        *out = NULL;
    if (err && errcap)
        err[0] = 0;
    if (!text || !version || !out)
        return MUSTER_EINVAL;
    if (!name)
        name = "<crd>";
    json_object *docs;
    int rc = kube_yaml_parse(text, len, name, &docs, err, errcap);
    if (rc)
        return rc;
    return crd_from_docs(docs, name, version, out, err, errcap);
}

int kube_schema_load_swagger(const char *path, const char *definition, struct kube_schema **out,
                             char *err, size_t errcap)
{
    if (out)
        *out = NULL;
    if (err && errcap)
        err[0] = 0;
    if (!path || !definition || !out)
        return MUSTER_EINVAL;
    struct bctx b = {.file = path, .err = err, .errcap = errcap};
    char *text, why[128];
    size_t len;
    int rc = kube_file_read(path, KUBE_SCHEMA_MAX_FILE_BYTES, &text, &len, why, sizeof(why));
    if (rc) {
        if (err && errcap)
            snprintf(err, errcap, "%s: %s", path, why);
        return rc;
    }
    json_tokener *tok = json_tokener_new_ex(KUBE_SCHEMA_MAX_YAML_DEPTH);
    json_object *top = NULL;
    if (!tok) {
        muster_free(text);
        return b_fail(&b, MUSTER_ENOMEM, "");
    }
    top = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t at = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    muster_free(text);
    if (jerr != json_tokener_success) {
        json_object_put(top);
        /* json_tokener_continue means the text ended inside a value. */
        return b_fail(&b, MUSTER_EINVAL, "bad JSON: %s at byte %zu",
                      jerr == json_tokener_continue ? "unexpected end of input"
                                                    : json_tokener_error_desc(jerr),
                      at);
    }
    if (!json_object_is_type(top, json_type_object)) {
        json_object_put(top);
        return b_fail(&b, MUSTER_EINVAL, "not a JSON object");
    }
    json_object *defs = top, *def = NULL, *wrapped;
    if (json_object_object_get_ex(top, "definitions", &wrapped) &&
        json_object_is_type(wrapped, json_type_object))
        defs = wrapped;
    b.defs = defs;
    b.ignore_defaults = 1;
    if (!json_object_object_get_ex(defs, definition, &def)) {
        rc = b_fail(&b, MUSTER_ENOENT, "no definition %s", definition);
        goto done;
    }
    rc = load_root(&b, def, NULL, definition);
    if (rc)
        goto done;
    json_object *gvks, *gvk;
    const char *version = NULL, *kind = NULL, *group = NULL;
    if (json_object_object_get_ex(def, "x-kubernetes-group-version-kind", &gvks) &&
        json_object_is_type(gvks, json_type_array) && json_object_array_length(gvks) > 0) {
        gvk = json_object_array_get_idx(gvks, 0);
        group = kube_json_str(gvk, "group");
        version = kube_json_str(gvk, "version");
        kind = kube_json_str(gvk, "kind");
    }
    b.s->api_version = join_gv(group, version ? version : "");
    b.s->kind = muster_strdup(kind ? kind : "");
    if (!b.s->api_version || !b.s->kind)
        rc = b_fail(&b, MUSTER_ENOMEM, "");
done:
    rc = finish_load(&b, rc, out);
    json_object_put(top);
    return rc;
}

const char *kube_schema_api_version(const struct kube_schema *s)
{
    return s && s->api_version ? s->api_version : "";
}

const char *kube_schema_kind(const struct kube_schema *s)
{
    return s && s->kind ? s->kind : "";
}

size_t kube_schema_unchecked_patterns(const struct kube_schema *s)
{
    return s ? s->unchecked_patterns : 0;
}
