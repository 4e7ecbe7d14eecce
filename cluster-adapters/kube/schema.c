/* CRD / swagger schema loading (libyaml, json-c) and apiserver-style validation of objects. */
#include "cluster-adapters/kube/schema.h"

#include "cluster-adapters/kube/file.h"

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
#include <yaml.h>

/* ---------------------------------------------------------------------------------------------
 * Files and YAML
 */

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
    if (depth > KUBE_SCHEMA_MAX_YAML_DEPTH) {
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

int kube_schema_parse_yaml(const char *text, size_t len, const char *name, json_object **docs,
                           char *err, size_t errcap)
{
    *docs = NULL;
    if (err && errcap)
        err[0] = 0;
    if (len > KUBE_SCHEMA_MAX_FILE_BYTES) {
        if (err && errcap)
            snprintf(err, errcap, "%s: more than %d bytes", name ? name : "<yaml>",
                     KUBE_SCHEMA_MAX_FILE_BYTES);
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

int kube_schema_read_yaml(const char *path, json_object **docs, char *err, size_t errcap)
{
    *docs = NULL;
    char *text, why[128];
    size_t len;
    int rc = kube_file_read(path, KUBE_SCHEMA_MAX_FILE_BYTES, &text, &len, why, sizeof(why));
    if (rc) {
        if (err && errcap)
            snprintf(err, errcap, "%s: %s", path, why);
        return rc;
    }
    rc = kube_schema_parse_yaml(text, len, path, docs, err, errcap);
    muster_free(text);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * The schema tree
 */

enum {
    T_OBJECT = 1 << 0,
    T_ARRAY = 1 << 1,
    T_STRING = 1 << 2,
    T_INTEGER = 1 << 3,
    T_NUMBER = 1 << 4,
    T_BOOLEAN = 1 << 5,
};

enum {
    F_NULLABLE = 1 << 0,
    F_PRESERVE = 1 << 1,      /* x-kubernetes-preserve-unknown-fields */
    F_INT_OR_STRING = 1 << 2, /* x-kubernetes-int-or-string */
    F_EMBEDDED = 1 << 3,      /* x-kubernetes-embedded-resource */
    F_DEFAULT = 1 << 4,       /* has a default: a missing or null value gets it before validation */
    F_ADDL_ALLOW = 1 << 5,    /* additionalProperties: true */
    F_ADDL_DENY = 1 << 6,     /* additionalProperties: false */
    F_EXCL_MIN = 1 << 7,
    F_EXCL_MAX = 1 << 8,
    F_HAS_MIN = 1 << 9,
    F_HAS_MAX = 1 << 10,
    F_HAS_MULT = 1 << 11,
    F_LIST_SET = 1 << 12,
    F_LIST_MAP = 1 << 13,
};

enum { FMT_NONE, FMT_INT32, FMT_INT64, FMT_DATE_TIME, FMT_DATE };

struct snode;

struct sprop {
    char *name;
    struct snode *node;
};

struct snode {
    struct snode *next_alloc; /* every node of a schema, for freeing */
    struct snode *ref;        /* the resolved $ref target */
    char *ref_name;
    unsigned types, flags;
    int format;
    double minimum, maximum, multiple_of;
    long long min_len, max_len, min_items, max_items, min_props, max_props; /* -1: unset */
    char *pattern;
    regex_t re;
    int has_re;
    struct sprop *props; /* sorted by name */
    size_t nprops;
    char **required;
    size_t nrequired;
    char **map_keys;
    size_t nmap_keys;
    struct snode *items, *addl;
    json_object *enums;
    struct snode **any_of, **all_of, **one_of;
    size_t n_any, n_all, n_one;
};

struct kube_schema {
    struct snode *root;
    struct snode *objectmeta;
    struct snode *nodes;
    struct snode **tail;
    char *api_version;
    char *kind;
    size_t unchecked_patterns;
};

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

/* Appends to a path buffer; returns the old length for path_pop. Truncates rather than fails:
 * a clipped path in a message is better than no message. */
static size_t path_push(char *buf, size_t *len, const char *fmt, ...)
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

static void path_pop(char *buf, size_t *len, size_t old)
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

static int prop_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sprop *)a)->name, ((const struct sprop *)b)->name);
}

static int build(struct bctx *b, json_object *js, int depth, struct snode **out);

static int build_child(struct bctx *b, json_object *js, int depth, struct snode **out,
                       const char *fmt, const char *arg)
{
    size_t old = path_push(b->path, &b->plen, fmt, arg);
    int rc = build(b, js, depth + 1, out);
    if (rc == 0)
        path_pop(b->path, &b->plen, old);
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
        size_t old = path_push(b->path, &b->plen, ".%s[", key);
        int rc = build_child(b, json_object_array_get_idx(arr, i), depth, &v[i], "%s]", idx);
        if (rc)
            return rc;
        path_pop(b->path, &b->plen, old);
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
        qsort(n->props, n->nprops, sizeof *n->props, prop_cmp);
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
    path_pop(b->path, &b->plen, 0);
    path_push(b->path, &b->plen, "definitions.%s", name);
    int rc = build(b, js, 0, out);
    if (rc) {
        muster_free(copy);
        return rc;
    }
    path_pop(b->path, &b->plen, 0);
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

static const struct snode *deref(const struct snode *n)
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
    path_pop(b->path, &b->plen, 0);
    path_push(b->path, &b->plen, "%s", root_path);
    rc = build(b, root_js, 0, &b->s->root);
    if (rc)
        return rc;
    path_pop(b->path, &b->plen, 0);
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
        path_push(have, &hl, "%s%s", hl ? ", " : "", name ? name : "?");
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
    int rc = kube_schema_read_yaml(path, &docs, err, errcap);
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
    int rc = kube_schema_parse_yaml(text, len, name, &docs, err, errcap);
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
            path_push(buf, &len, "%s%s", len ? " or " : "", names[i].name);
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
    struct sprop *p = n->nprops ? bsearch(&key, n->props, n->nprops, sizeof key, prop_cmp) : NULL;
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
    path_pop(v->path, &v->plen, old);
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
    prop = deref(prop);
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
                size_t old = path_push(v->path, &v->plen, "%s%s", dot, key);
                v_invalid(v, val, "must be of type string");
                path_pop(v->path, &v->plen, old);
            }
        } else if (n->addl) {
            v_child(v, n->addl, val, depth, "%s%s", dot, key);
        } else if (!(n->flags & (F_ADDL_ALLOW | F_PRESERVE)) && !v->branch) {
            size_t old = path_push(v->path, &v->plen, "%s%s", dot, key);
            v_err(v, "field not declared in schema");
            path_pop(v->path, &v->plen, old);
        }
    }
    for (size_t i = 0; i < n->nrequired; i++) {
        const char *name = n->required[i];
        json_object *val = NULL;
        int present = json_object_object_get_ex(obj, name, &val);
        const struct snode *p = find_prop(n, name);
        if (p && deref(p)->flags & F_DEFAULT)
            continue; /* defaulted before validation when missing or null */
        if (present && !val && p && null_is_absent(p))
            present = 0;
        if (!present) {
            size_t old = path_push(v->path, &v->plen, "%s%s", dot, name);
            v_err(v, "Required value");
            path_pop(v->path, &v->plen, old);
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
            size_t old = path_push(v->path, &v->plen, "%s%s", dot, tm[i]);
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
            path_pop(v->path, &v->plen, old);
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
    path_push(buf, &len, "{");
    for (size_t k = 0; k < n->nmap_keys; k++) {
        json_object *kv = NULL;
        json_object_object_get_ex(item, n->map_keys[k], &kv);
        char shown[VALUE_TEXT_MAX + 32];
        render_value(kv, shown, sizeof shown);
        path_push(buf, &len, "%s\"%s\":%s", k ? "," : "", n->map_keys[k], shown);
    }
    path_push(buf, &len, "}");
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
            size_t old = path_push(v->path, &v->plen, "[%zu]", i);
            v_err(v, "Duplicate value: %s", shown);
            path_pop(v->path, &v->plen, old);
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
    n = deref(n);
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
                path_push(list, &ll, "%s%s", i ? ", " : "", one);
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
