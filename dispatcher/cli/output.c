/* musterctl's text formats: tables, JSON -> YAML output, YAML files -> JSON (see output.h). */
#include "dispatcher/cli/output.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "queue/mem.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

/* Caps on what a YAML file may make us build: a manifest of queues is a few KiB; aliases could
 * otherwise expand a small file into a huge tree. */
#define CLI_YAML_FILE_MAX (4 * 1024 * 1024)
#define CLI_YAML_DEPTH_MAX 32
#define CLI_YAML_NODES_MAX 200000

struct cli_table {
    size_t ncols, nrows, cap;
    char **cells; /* nrows * ncols, row-major; row 0 is the header */
};

static int table_push(struct cli_table *t, const char *const *cells)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **p = muster_realloc(t->cells, cap * t->ncols * sizeof(*p));
        if (!p)
            return MUSTER_ENOMEM;
        t->cells = p;
        t->cap = cap;
    }
    char **row = t->cells + t->nrows * t->ncols;
    for (size_t i = 0; i < t->ncols; i++) {
        row[i] = muster_strdup(cells[i] ? cells[i] : "<none>");
        if (!row[i]) {
            while (i > 0)
                muster_free(row[--i]);
            return MUSTER_ENOMEM;
        }
    }
    t->nrows++;
    return 0;
}

struct cli_table *cli_table_new(size_t ncols, const char *const *hdr)
{
    struct cli_table *t = muster_calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->ncols = ncols;
    if (table_push(t, hdr)) {
        cli_table_free(t);
        return NULL;
    }
    return t;
}

int cli_table_add(struct cli_table *t, const char *const *cells)
{
    return table_push(t, cells);
}

void cli_table_print(const struct cli_table *t, FILE *f)
{
    size_t width[64] = {0};
    size_t ncols = t->ncols < 64 ? t->ncols : 64;
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < ncols; c++) {
            size_t n = strlen(t->cells[r * t->ncols + c]);
            if (n > width[c])
                width[c] = n;
        }
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            if (c + 1 == ncols)
                fprintf(f, "%s\n", cell);
            else
                fprintf(f, "%-*s   ", (int)width[c], cell);
        }
    }
}

void cli_table_free(struct cli_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        muster_free(t->cells[i]);
    muster_free(t->cells);
    muster_free(t);
}

/* ---- JSON -> YAML ---- */

/* Would a plain scalar s read back as a string equal to s? Conservative: a small safe alphabet,
 * and nothing YAML would read as a number, boolean or null. */
static int plain_ok(const char *s)
{
    static const char *const words[] = {"true", "false", "null", "yes",  "no",   "on",   "off",
                                        "y",    "n",     "~",    ".inf", ".nan", "-.inf"};
    size_t n = strlen(s);
    if (n == 0 || s[0] == ' ' || s[n - 1] == ' ' || s[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!isalnum(ch) && !strchr("._/- ", ch))
            return 0;
    }
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strcasecmp(s, words[i]) == 0)
            return 0;
    char *end;
    errno = 0;
    (void)strtod(s, &end);
    if (*end == '\0')
        return 0; /* a number, or a leading-digit form YAML 1.1 readers would take as one */
    if (isdigit((unsigned char)s[0]) && strspn(s, "0123456789.") == n)
        return 0;
    return 1;
}

static void yaml_string(const char *s, FILE *f)
{
    if (plain_ok(s)) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static int is_block(struct json_object *v)
{
    if (json_object_is_type(v, json_type_object))
        return json_object_object_length(v) > 0;
    if (json_object_is_type(v, json_type_array))
        return json_object_array_length(v) > 0;
    return 0;
}

static void yaml_scalar(struct json_object *v, FILE *f)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        fputs("null", f);
        break;
    case json_type_boolean:
        fputs(json_object_get_boolean(v) ? "true" : "false", f);
        break;
    case json_type_int:
        fputs(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), f);
        break;
    case json_type_double: {
        /* JSON has no infinity (json-c writes "Infinity"); YAML spells it .inf. */
        double d = json_object_get_double(v);
        if (isnan(d))
            fputs(".nan", f);
        else if (isinf(d))
            fputs(d > 0 ? ".inf" : "-.inf", f);
        else
            fputs(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), f);
        break;
    }
    case json_type_string:
        yaml_string(json_object_get_string(v), f);
        break;
    case json_type_object:
        fputs("{}", f);
        break;
    case json_type_array:
        fputs("[]", f);
        break;
    }
}

static void yaml_block(struct json_object *v, int indent, int first_inline, FILE *f);

/* key: value, or key: and the block below. Lists sit at the key's own indent (kubectl style). */
static void yaml_map(struct json_object *m, int indent, int first_inline, FILE *f)
{
    int first = 1;
    json_object_object_foreach(m, k, v)
    {
        if (!(first && first_inline))
            fprintf(f, "%*s", indent, "");
        first = 0;
        yaml_string(k, f);
        fputc(':', f);
        if (is_block(v)) {
            fputc('\n', f);
            int sub = json_object_is_type(v, json_type_array) ? indent : indent + 2;
            yaml_block(v, sub, 0, f);
        } else {
            fputc(' ', f);
            yaml_scalar(v, f);
            fputc('\n', f);
        }
    }
}

static void yaml_list(struct json_object *a, int indent, int first_inline, FILE *f)
{
    size_t n = json_object_array_length(a);
    for (size_t i = 0; i < n; i++) {
        struct json_object *v = json_object_array_get_idx(a, i);
        if (!(i == 0 && first_inline))
            fprintf(f, "%*s", indent, "");
        fputs("- ", f);
        if (is_block(v)) {
            yaml_block(v, indent + 2, 1, f);
        } else {
            yaml_scalar(v, f);
            fputc('\n', f);
        }
    }
}

static void yaml_block(struct json_object *v, int indent, int first_inline, FILE *f)
{
    if (json_object_is_type(v, json_type_object))
        yaml_map(v, indent, first_inline, f);
    else
        yaml_list(v, indent, first_inline, f);
}

void cli_yaml_print(struct json_object *v, FILE *f)
{
    if (is_block(v)) {
        yaml_block(v, 0, 0, f);
    } else {
        yaml_scalar(v, f);
        fputc('\n', f);
    }
}

/* ---- YAML -> JSON ---- */

struct yload {
    yaml_document_t *doc;
    size_t nodes;
    const char *path;
    char *err;
    size_t errcap;
    int rc;
};

static int yload_fail(struct yload *y, const yaml_node_t *n, int rc, const char *what)
{
    if (y->errcap)
        snprintf(y->err, y->errcap, "%s:%zu:%zu: %s", y->path, n->start_mark.line + 1,
                 n->start_mark.column + 1, what);
    y->rc = rc;
    return rc;
}

static int plain_null(const char *s, size_t len)
{
    return len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
           strcmp(s, "NULL") == 0;
}

/* YAML 1.2 core schema for plain scalars other than null; anything else is a string. */
static struct json_object *plain_scalar(const char *s, size_t len)
{
    if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0)
        return json_object_new_boolean(1);
    if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
        return json_object_new_boolean(0);
    const char *d = s + (s[0] == '-' || s[0] == '+');
    if (*d && strspn(d, "0123456789") == strlen(d)) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (!errno && *end == '\0')
            return json_object_new_int64(v);
    }
    if (*d && (isdigit((unsigned char)*d) || *d == '.') &&
        strspn(d, "0123456789.eE+-") == strlen(d)) {
        char *end;
        double v = strtod(s, &end);
        if (*end == '\0')
            return json_object_new_double(v);
    }
    return json_object_new_string_len(s, (int)len);
}

static struct json_object *yload_node(struct yload *y, yaml_node_t *n, int depth)
{
    if (depth > CLI_YAML_DEPTH_MAX) {
        yload_fail(y, n, MUSTER_EINVAL, "nested too deeply");
        return NULL;
    }
    if (++y->nodes > CLI_YAML_NODES_MAX) {
        yload_fail(y, n, MUSTER_EINVAL, "too many nodes (aliases expanding?)");
        return NULL;
    }
    struct json_object *out = NULL;
    if (n->type == YAML_SCALAR_NODE) {
        const char *s = (const char *)n->data.scalar.value;
        size_t len = n->data.scalar.length;
        int plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (plain && plain_null(s, len))
            return NULL; /* json-c's null; y->rc stays 0 */
        if (plain)
            out = plain_scalar(s, len);
        else
            out = json_object_new_string_len(s, (int)len);
        if (!out)
            yload_fail(y, n, MUSTER_ENOMEM, "out of memory");
        return out;
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        out = json_object_new_array();
        if (!out) {
            yload_fail(y, n, MUSTER_ENOMEM, "out of memory");
            return NULL;
        }
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++) {
            struct json_object *v = yload_node(y, yaml_document_get_node(y->doc, *it), depth + 1);
            if (y->rc || json_object_array_add(out, v)) {
                json_object_put(v);
                json_object_put(out);
                if (!y->rc)
                    yload_fail(y, n, MUSTER_ENOMEM, "out of memory");
                return NULL;
            }
        }
        return out;
    }
    if (n->type == YAML_MAPPING_NODE) {
        out = json_object_new_object();
        if (!out) {
            yload_fail(y, n, MUSTER_ENOMEM, "out of memory");
            return NULL;
        }
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             p++) {
            yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
            if (!k || k->type != YAML_SCALAR_NODE) {
                yload_fail(y, k ? k : n, MUSTER_EINVAL, "a mapping key must be a string");
                json_object_put(out);
                return NULL;
            }
            struct json_object *v =
                yload_node(y, yaml_document_get_node(y->doc, p->value), depth + 1);
            if (y->rc) {
                json_object_put(out);
                return NULL;
            }
            if (json_object_object_add(out, (const char *)k->data.scalar.value, v)) {
                json_object_put(v);
                json_object_put(out);
                yload_fail(y, n, MUSTER_ENOMEM, "out of memory");
                return NULL;
            }
        }
        return out;
    }
    yload_fail(y, n, MUSTER_EINVAL, "empty node");
    return NULL;
}

/* path, or stdin for "-", whole, up to CLI_YAML_FILE_MAX bytes; err says which and why. */
static int read_all(const char *path, char **buf, size_t *len, char *err, size_t errcap)
{
    char why[128];
    int rc = strcmp(path, "-") == 0
                 ? kube_file_read_stream(stdin, CLI_YAML_FILE_MAX, buf, len, why, sizeof(why))
                 : kube_file_read(path, CLI_YAML_FILE_MAX, buf, len, why, sizeof(why));
    if (rc) {
        snprintf(err, errcap, "%s: %s", path, why);
        return rc == MUSTER_ENOENT ? MUSTER_EIO : rc;
    }
    return 0;
}

int cli_yaml_load(const char *path, struct json_object **out, char *err, size_t errcap)
{
    *out = NULL;
    char *buf;
    size_t len;
    int rc = read_all(path, &buf, &len, err, errcap);
    if (rc)
        return rc;
    struct json_object *docs = json_object_new_array();
    yaml_parser_t parser;
    if (!docs || !yaml_parser_initialize(&parser)) {
        json_object_put(docs);
        muster_free(buf);
        snprintf(err, errcap, "%s: out of memory", path);
        return MUSTER_ENOMEM;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    struct yload y = {.path = path, .err = err, .errcap = errcap};
    for (;;) {
        yaml_document_t doc;
        if (!yaml_parser_load(&parser, &doc)) {
            snprintf(err, errcap, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
                     parser.problem_mark.column + 1,
                     parser.problem ? parser.problem : "not valid YAML");
            rc = MUSTER_EINVAL;
            break;
        }
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root) {
            yaml_document_delete(&doc); /* end of the stream */
            break;
        }
        y.doc = &doc;
        struct json_object *v = yload_node(&y, root, 0);
        yaml_document_delete(&doc);
        if (y.rc || json_object_array_add(docs, v)) {
            json_object_put(v);
            rc = y.rc ? y.rc : MUSTER_ENOMEM;
            if (!y.rc)
                snprintf(err, errcap, "%s: out of memory", path);
            break;
        }
    }
    yaml_parser_delete(&parser);
    muster_free(buf);
    if (rc) {
        json_object_put(docs);
        return rc;
    }
    *out = docs;
    return 0;
}

const char *cli_map_text(struct json_object *o, const char *k, char *buf, size_t cap)
{
    struct json_object *m;
    if (!o || !json_object_object_get_ex(o, k, &m) || !json_object_is_type(m, json_type_object) ||
        json_object_object_length(m) == 0)
        return NULL;
    size_t n = 0;
    buf[0] = '\0';
    json_object_object_foreach(m, rk, rv)
    {
        int w = snprintf(buf + n, cap - n, "%s%s=%s", n ? "," : "", rk, json_object_get_string(rv));
        if (w < 0 || (size_t)w >= cap - n)
            break;
        n += (size_t)w;
    }
    return buf;
}
