/* Label and field selector parsing and matching, following apimachinery's labels.Parse and
 * fields.ParseSelector: the same operators, whitespace rules and error wording. */
#include "cluster-adapters/sim/selector.h"

#include "queue/errors.h"
#include "queue/mem.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sel_op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS, OP_GT, OP_LT };

struct sel_req {
    char *key;
    enum sel_op op;
    char **values;
    size_t nvalues;
};

struct sim_selector {
    int fields; /* 1: field selector, 0: label selector */
    struct sel_req *reqs;
    size_t n, cap;
};

void sim_selector_free(struct sim_selector *sel)
{
    if (!sel)
        return;
    for (size_t i = 0; i < sel->n; i++) {
        muster_free(sel->reqs[i].key);
        for (size_t j = 0; j < sel->reqs[i].nvalues; j++)
            muster_free(sel->reqs[i].values[j]);
        muster_free(sel->reqs[i].values);
    }
    muster_free(sel->reqs);
    muster_free(sel);
}

size_t sim_selector_count(const struct sim_selector *sel)
{
    return sel ? sel->n : 0;
}

const char *sim_selector_key(const struct sim_selector *sel, size_t i)
{
    return sel && i < sel->n ? sel->reqs[i].key : NULL;
}

const char *sim_selector_equals(const struct sim_selector *sel, const char *key)
{
    for (size_t i = 0; sel && i < sel->n; i++)
        if (sel->reqs[i].op == OP_EQ && strcmp(sel->reqs[i].key, key) == 0)
            return sel->reqs[i].values[0];
    return NULL;
}

static struct sel_req *sel_push(struct sim_selector *sel)
{
    if (sel->n == sel->cap) {
        size_t cap = sel->cap ? sel->cap * 2 : 4;
        struct sel_req *v = muster_realloc(sel->reqs, cap * sizeof(*v));
        if (!v)
            return NULL;
        sel->reqs = v;
        sel->cap = cap;
    }
    struct sel_req *r = &sel->reqs[sel->n++];
    memset(r, 0, sizeof(*r));
    return r;
}

static int req_add_value(struct sel_req *r, const char *s, size_t len)
{
    char **v = muster_realloc(r->values, (r->nvalues + 1) * sizeof(*v));
    if (!v)
        return MUSTER_ENOMEM;
    r->values = v;
    v[r->nvalues] = muster_strndup(s, len);
    if (!v[r->nvalues])
        return MUSTER_ENOMEM;
    r->nvalues++;
    return 0;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Label keys and values: [prefix/]name with alphanumerics, '-', '_', '.'. Validation is loose
 * on purpose (the real lexer accepts any non-operator run and validates afterwards). */
static int is_ident(int c)
{
    return isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/';
}

static size_t ident_len(const char *p)
{
    size_t n = 0;
    while (is_ident((unsigned char)p[n]))
        n++;
    return n;
}

static int parse_values_set(struct sel_req *r, const char **pp, char *err, size_t errcap)
{
    const char *p = skip_ws(*pp);
    if (*p != '(') {
        snprintf(err, errcap, "found '%c', expected: '('", *p ? *p : ' ');
        return MUSTER_EINVAL;
    }
    p++;
    for (;;) {
        p = skip_ws(p);
        size_t n = ident_len(p);
        if (n > 0 || *p == ',' || *p == ')') {
            /* An empty value between commas is allowed by labels.Parse. */
            int rc = req_add_value(r, p, n);
            if (rc < 0)
                return rc;
        }
        p = skip_ws(p + n);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ')') {
            *pp = p + 1;
            return 0;
        }
        snprintf(err, errcap, "found '%s', expected: ',', or ')'", *p ? p : "EOS");
        return MUSTER_EINVAL;
    }
}

static int parse_label_req(struct sim_selector *sel, const char **pp, char *err, size_t errcap)
{
    const char *p = skip_ws(*pp);
    int negate = 0;
    if (*p == '!') {
        negate = 1;
        p = skip_ws(p + 1);
    }
    size_t klen = ident_len(p);
    if (klen == 0) {
        snprintf(err, errcap, "found '%s', expected: identifier", *p ? p : "EOS");
        return MUSTER_EINVAL;
    }
    struct sel_req *r = sel_push(sel);
    if (!r)
        return MUSTER_ENOMEM;
    r->key = muster_strndup(p, klen);
    if (!r->key)
        return MUSTER_ENOMEM;
    p = skip_ws(p + klen);
    if (negate) {
        r->op = OP_NOTEXISTS;
        *pp = p;
        return 0;
    }
    if (*p == ',' || *p == '\0') {
        r->op = OP_EXISTS;
        *pp = p;
        return 0;
    }
    if (strncmp(p, "in", 2) == 0 && !is_ident((unsigned char)p[2])) {
        r->op = OP_IN;
        p += 2;
        int rc = parse_values_set(r, &p, err, errcap);
        *pp = p;
        return rc;
    }
    if (strncmp(p, "notin", 5) == 0 && !is_ident((unsigned char)p[5])) {
        r->op = OP_NOTIN;
        p += 5;
        int rc = parse_values_set(r, &p, err, errcap);
        *pp = p;
        return rc;
    }
    if (p[0] == '=' && p[1] == '=') {
        r->op = OP_EQ;
        p += 2;
    } else if (p[0] == '=') {
        r->op = OP_EQ;
        p += 1;
    } else if (p[0] == '!' && p[1] == '=') {
        r->op = OP_NE;
        p += 2;
    } else if (p[0] == '>') {
        r->op = OP_GT;
        p += 1;
    } else if (p[0] == '<') {
        r->op = OP_LT;
        p += 1;
    } else {
        snprintf(err, errcap, "found '%s', expected: in, notin, =, ==, !=, gt, lt", p);
        return MUSTER_EINVAL;
    }
    p = skip_ws(p);
    size_t vlen = ident_len(p);
    if ((r->op == OP_GT || r->op == OP_LT)) {
        char *end = NULL;
        char num[32];
        if (vlen == 0 || vlen >= sizeof(num)) {
            snprintf(err, errcap, "for 'Gt', 'Lt' operators, exactly one value is required");
            return MUSTER_EINVAL;
        }
        memcpy(num, p, vlen);
        num[vlen] = '\0';
        errno = 0;
        (void)strtoll(num, &end, 10);
        if (errno || *end) {
            snprintf(err, errcap, "for 'Gt', 'Lt' operators, the value must be an integer");
            return MUSTER_EINVAL;
        }
    }
    int rc = req_add_value(r, p, vlen);
    if (rc < 0)
        return rc;
    *pp = skip_ws(p + vlen);
    return 0;
}

int sim_selector_parse_labels(const char *s, struct sim_selector **out, char *err, size_t errcap)
{
    struct sim_selector *sel = muster_calloc(1, sizeof(*sel));
    if (!sel)
        return MUSTER_ENOMEM;
    const char *p = s ? skip_ws(s) : "";
    while (*p) {
        int rc = parse_label_req(sel, &p, err, errcap);
        if (rc < 0) {
            sim_selector_free(sel);
            return rc;
        }
        p = skip_ws(p);
        if (*p == ',') {
            p = skip_ws(p + 1);
            if (!*p) {
                snprintf(err, errcap, "found '', expected: identifier after ','");
                sim_selector_free(sel);
                return MUSTER_EINVAL;
            }
        } else if (*p) {
            snprintf(err, errcap, "found '%s', expected: ',' or 'end of string'", p);
            sim_selector_free(sel);
            return MUSTER_EINVAL;
        }
    }
    *out = sel;
    return 0;
}

int sim_selector_parse_fields(const char *s, struct sim_selector **out, char *err, size_t errcap)
{
    struct sim_selector *sel = muster_calloc(1, sizeof(*sel));
    if (!sel)
        return MUSTER_ENOMEM;
    sel->fields = 1;
    const char *p = s ? s : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *op = NULL;
        size_t oplen = 0;
        enum sel_op kind = OP_EQ;
        for (size_t i = 0; i < len; i++) {
            if (p[i] == '!' && i + 1 < len && p[i + 1] == '=') {
                op = p + i;
                oplen = 2;
                kind = OP_NE;
                break;
            }
            if (p[i] == '=') {
                op = p + i;
                oplen = i + 1 < len && p[i + 1] == '=' ? 2 : 1;
                break;
            }
        }
        if (!op) {
            snprintf(err, errcap, "invalid selector: '%.*s'; can't understand '%.*s'", (int)len, p,
                     (int)len, p);
            sim_selector_free(sel);
            return MUSTER_EINVAL;
        }
        struct sel_req *r = sel_push(sel);
        if (!r) {
            sim_selector_free(sel);
            return MUSTER_ENOMEM;
        }
        r->op = kind;
        r->key = muster_strndup(p, (size_t)(op - p));
        int rc =
            r->key ? req_add_value(r, op + oplen, len - (size_t)(op - p) - oplen) : MUSTER_ENOMEM;
        if (rc < 0) {
            sim_selector_free(sel);
            return rc;
        }
        p = end ? end + 1 : p + len;
    }
    *out = sel;
    return 0;
}

/* The string at a dotted path of obj, or NULL when absent or not a string. */
static const char *field_at(json_object *obj, const char *path)
{
    char seg[128];
    const char *p = path;
    json_object *cur = obj;
    while (cur && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len >= sizeof(seg))
            return NULL;
        memcpy(seg, p, len);
        seg[len] = '\0';
        json_object *next = NULL;
        if (!json_object_is_type(cur, json_type_object) ||
            !json_object_object_get_ex(cur, seg, &next))
            return NULL;
        cur = next;
        p = dot ? dot + 1 : p + len;
    }
    return cur && json_object_is_type(cur, json_type_string) ? json_object_get_string(cur) : NULL;
}

static int req_has_value(const struct sel_req *r, const char *v)
{
    for (size_t i = 0; i < r->nvalues; i++)
        if (strcmp(r->values[i], v) == 0)
            return 1;
    return 0;
}

static int req_matches(const struct sel_req *r, const char *v)
{
    switch (r->op) {
    case OP_EQ:
        return v && strcmp(v, r->values[0]) == 0;
    case OP_NE:
        return !v || strcmp(v, r->values[0]) != 0;
    case OP_IN:
        return v && req_has_value(r, v);
    case OP_NOTIN:
        return !v || !req_has_value(r, v);
    case OP_EXISTS:
        return v != NULL;
    case OP_NOTEXISTS:
        return v == NULL;
    case OP_GT:
    case OP_LT: {
        if (!v)
            return 0;
        char *end = NULL;
        errno = 0;
        long long have = strtoll(v, &end, 10);
        if (errno || *end || end == v)
            return 0;
        long long want = strtoll(r->values[0], NULL, 10);
        return r->op == OP_GT ? have > want : have < want;
    }
    }
    return 0;
}

int sim_selector_matches(const struct sim_selector *sel, json_object *obj)
{
    if (!sel)
        return 1;
    json_object *labels = NULL;
    if (!sel->fields) {
        json_object *meta = NULL;
        if (json_object_object_get_ex(obj, "metadata", &meta))
            json_object_object_get_ex(meta, "labels", &labels);
    }
    for (size_t i = 0; i < sel->n; i++) {
        const struct sel_req *r = &sel->reqs[i];
        const char *v;
        if (sel->fields) {
            v = field_at(obj, r->key);
            /* A missing field compares as the empty string, as fields.Set does. */
            if (!v)
                v = "";
        } else {
            json_object *lv = NULL;
            v = labels && json_object_object_get_ex(labels, r->key, &lv)
                    ? json_object_get_string(lv)
                    : NULL;
        }
        if (!req_matches(r, v))
            return 0;
    }
    return 1;
}
