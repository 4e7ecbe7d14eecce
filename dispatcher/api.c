/* The admin API server (see api.h): routing, bearer-token and client-certificate auth, TLS, the
 * per-client rate limit, the queue endpoints, the audit list, metrics, health and the embedded
 * OpenAPI document, on h2o + libuv. */
#include "dispatcher/api.h"

#include "cluster-adapters/kube/httpserver.h"
#include "cluster-adapters/kube/kubeconfig.h"

#include "dispatcher/dashboard.h"
#include "dispatcher/events.h"
#include "dispatcher/metrics.h"
#include "dispatcher/reqguard.h"
#include "dispatcher/resjson.h"
#include "dispatcher/webhook.h"
#include "queue/errors.h"
#include "queue/mem.h"
#include "schema/openapi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <h2o.h>
#include <h2o/http2.h>
#include <h2o/version.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define API_SHA256_LEN 32
#define API_ETAG_MAX 32         /* "\"" + int64 digits + "\"" */
#define API_QUERY_VALUE_MAX 256 /* bytes of one query parameter value */
#define API_GANG_TIMEOUT_S_DEFAULT 300
#define API_ANONYMOUS "system:anonymous"
/* The {...} segments of a path joined by '/': a binding's namespace/name, each at most
 * QUEUE_NAME_MAX (a DNS subdomain), is the longest. */
#define API_PATH_NAME_MAX (2 * QUEUE_NAME_MAX + 1)
/* Series of muster_api_requests_total: routes x methods x codes is small and bounded by the
 * route table, so this cap is never met in practice; past it requests are counted in
 * muster_api_requests_dropped_series_total instead of growing memory. */
#define API_REQ_SERIES_MAX 512
#define API_RATE_KEY_LEN API_GUARD_KEY_LEN

/* ---- strict request body parsing ---- */

__attribute__((format(printf, 5, 6))) static int api_fail(struct api_error *e, int status,
                                                          const char *reason, const char *field,
                                                          const char *fmt, ...)
{
    e->status = status;
    snprintf(e->reason, sizeof(e->reason), "%s", reason);
    snprintf(e->field, sizeof(e->field), "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return status == 413 ? MUSTER_ELIMIT : MUSTER_EINVAL;
}

/* RFC 3629 UTF-8: no overlongs, no surrogates, nothing above U+10FFFF. json-c's own check
 * (JSON_TOKENER_VALIDATE_UTF8) does not exist in every version we build against, and the
 * offset of the bad byte makes a better message. Returns the offset of the first bad byte, or
 * len when the text is valid. */
static size_t utf8_check(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1;
            min = 0x80;
            c &= 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2;
            min = 0x800;
            c &= 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3;
            min = 0x10000;
            c &= 0x07;
        } else {
            return i;
        }
        if (len - i <= n)
            return i;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
            c = (c << 6) | (s[i + k] & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return len;
}

/* json-c turns the escape \u0000 into a NUL inside a string or key; everything we keep is a C
 * string, so "cpu\u0000x" would silently mean "cpu". Found in the raw text (keys included):
 * outside strings valid JSON has no backslash, so every backslash starts an escape. Returns 1
 * when the text has one. */
static int has_nul_escape(const char *s, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == 'u' && len - i >= 6 && memcmp(s + i + 2, "0000", 4) == 0)
            return 1;
        i++; /* the escaped character, which may itself be a backslash */
    }
    return 0;
}

/* The object members in valid JSON text: a string followed, after whitespace, by a colon is a
 * key. Compared with the parsed tree's count it finds keys json-c merged (the last one wins
 * there, silently). */
static size_t text_members(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '"')
            continue;
        for (i++; i < len && s[i] != '"'; i++)
            if (s[i] == '\\')
                i++;
        size_t j = i + 1;
        while (j < len && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n'))
            j++;
        if (j < len && s[j] == ':')
            n++;
    }
    return n;
}

/* The object members of a parsed tree (at most API_JSON_DEPTH_MAX deep); *nonfinite is set
 * when a number is not finite (json-c reads -Infinity, NaN and 1e999). */
static size_t tree_members(struct json_object *o, int *nonfinite)
{
    size_t n = 0;
    switch (json_object_get_type(o)) {
    case json_type_object:
        n = (size_t)json_object_object_length(o);
        json_object_object_foreach(o, k, v)
        {
            (void)k;
            n += tree_members(v, nonfinite);
        }
        break;
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(o); i++)
            n += tree_members(json_object_array_get_idx(o, i), nonfinite);
        break;
    case json_type_double:
        if (!isfinite(json_object_get_double(o)))
            *nonfinite = 1;
        break;
    default:
        break;
    }
    return n;
}

int api_body_parse(const char *body, size_t len, struct json_object **out, struct api_error *err)
{
    *out = NULL;
    if (len > API_BODY_MAX)
        return api_fail(err, 413, "RequestEntityTooLarge", NULL,
                        "request body of %zu bytes is above the limit of %d bytes", len,
                        API_BODY_MAX);
    if (len == 0)
        return api_fail(err, 400, "BadRequest", NULL, "request body is empty; send a JSON object");
    size_t bad = utf8_check((const unsigned char *)body, len);
    if (bad != len)
        return api_fail(err, 400, "BadRequest", NULL,
                        "request body is not valid UTF-8 (byte %zu); send UTF-8 JSON", bad);
    json_tokener *tok = json_tokener_new_ex(API_JSON_DEPTH_MAX);
    if (!tok)
        return api_fail(err, 500, "InternalError", NULL, "out of memory");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *obj = json_tokener_parse_ex(tok, body, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = (size_t)json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    int rc = 0;
    if (jerr == json_tokener_error_depth) {
        rc = api_fail(err, 413, "RequestEntityTooLarge", NULL,
                      "request body nests JSON deeper than %d levels", API_JSON_DEPTH_MAX);
    } else if (jerr == json_tokener_continue || !obj) {
        rc = api_fail(err, 400, "BadRequest", NULL, "request body is not JSON: %s",
                      jerr == json_tokener_continue ? "unexpected end of input"
                                                    : json_tokener_error_desc(jerr));
    } else if (used < len && strspn(body + used, " \t\r\n") != len - used) {
        rc = api_fail(err, 400, "BadRequest", NULL,
                      "request body has data after the JSON value (byte %zu)", used);
    } else if (!json_object_is_type(obj, json_type_object)) {
        rc = api_fail(err, 400, "BadRequest", NULL, "request body must be a JSON object");
    } else if (has_nul_escape(body, len)) {
        rc = api_fail(err, 400, "BadRequest", NULL, "request body has a string containing \\u0000");
    } else {
        int nonfinite = 0;
        size_t parsed = tree_members(obj, &nonfinite);
        if (nonfinite)
            rc = api_fail(err, 400, "BadRequest", NULL,
                          "request body has a number that is not finite (Infinity, NaN or "
                          "too large); JSON numbers are finite");
        else if (parsed != text_members(body, len))
            rc = api_fail(err, 400, "BadRequest", NULL,
                          "request body repeats a key in an object; send each key once");
    }
    if (rc) {
        json_object_put(obj);
        return rc;
    }
    *out = obj;
    return 0;
}

/* ---- the queue document ---- */

static int get_int(struct json_object *v, const char *field, int64_t min, int64_t max, int64_t *out,
                   struct api_error *err)
{
    /* json-c clamps integers beyond int64 to INT64_MIN/MAX (or keeps them as uint64), so a
     * range check catches overflow too; a double such as 1.5 or 1e3 is a wrong type. */
    if (!json_object_is_type(v, json_type_int))
        return api_fail(err, 422, "Invalid", field, "%s must be an integer", field);
    int64_t x = json_object_get_int64(v);
    if (x < min || x > max)
        return api_fail(err, 422, "Invalid", field, "%s must be between %" PRId64 " and %" PRId64,
                        field, min, max);
    *out = x;
    return 0;
}

static int get_str(struct json_object *v, const char *field, int nullable, const char **out,
                   struct api_error *err)
{
    if (nullable && json_object_is_type(v, json_type_null)) {
        *out = NULL;
        return 0;
    }
    if (!json_object_is_type(v, json_type_string))
        return api_fail(err, 422, "Invalid", field, "%s must be a string%s", field,
                        nullable ? " or null" : "");
    *out = json_object_get_string(v);
    return 0;
}

int api_queue_doc_decode(struct json_object *obj, struct api_queue_doc *doc, struct api_error *err)
{
    memset(doc, 0, sizeof(*doc));
    doc->weight = 1;
    doc->gang_timeout_s = API_GANG_TIMEOUT_S_DEFAULT;
    doc->state = "Open";
    doc->strategy = "BestEffortFIFO";
    if (!json_object_is_type(obj, json_type_object))
        return api_fail(err, 422, "Invalid", "", "a queue must be a JSON object");
    json_object_object_foreach(obj, key, val)
    {
        int rc = 0;
        if (strcmp(key, "name") == 0) {
            rc = get_str(val, "name", 0, &doc->name, err);
        } else if (strcmp(key, "parent") == 0) {
            rc = get_str(val, "parent", 1, &doc->parent, err);
            if (!rc && doc->parent && !doc->parent[0])
                rc = api_fail(err, 422, "Invalid", "parent",
                              "parent must be a queue name, or null for root");
        } else if (strcmp(key, "weight") == 0) {
            rc = get_int(val, "weight", 1, 1000000, &doc->weight, err);
        } else if (strcmp(key, "priority") == 0) {
            rc = get_int(val, "priority", INT32_MIN, INT32_MAX, &doc->priority, err);
        } else if (strcmp(key, "gangTimeoutSeconds") == 0) {
            rc = get_int(val, "gangTimeoutSeconds", 1, API_GANG_TIMEOUT_S_MAX, &doc->gang_timeout_s,
                         err);
        } else if (strcmp(key, "state") == 0) {
            enum queue_state s;
            rc = get_str(val, "state", 0, &doc->state, err);
            if (!rc && queue_state_parse(doc->state, &s))
                rc = api_fail(err, 422, "Invalid", "state",
                              "state must be Open, Closed or Draining");
        } else if (strcmp(key, "queueingStrategy") == 0) {
            enum queue_strategy s;
            rc = get_str(val, "queueingStrategy", 0, &doc->strategy, err);
            if (!rc && queue_strategy_parse(doc->strategy, &s))
                rc = api_fail(err, 422, "Invalid", "queueingStrategy",
                              "queueingStrategy must be BestEffortFIFO or StrictFIFO");
        } else if (strcmp(key, "guarantee") == 0 || strcmp(key, "deserved") == 0 ||
                   strcmp(key, "capability") == 0) {
            if (json_object_is_type(val, json_type_null))
                continue; /* null is "no limits declared", as after a merge patch removes it */
            if (!json_object_is_type(val, json_type_object))
                rc = api_fail(err, 422, "Invalid", key,
                              "%s must be an object of resource quantities", key);
            else if (key[0] == 'g')
                doc->guarantee = val;
            else if (key[0] == 'd')
                doc->deserved = val;
            else
                doc->capability = val;
        } else if (strcmp(key, "metadata") == 0 || strcmp(key, "status") == 0) {
            /* Read-only: accepted so a client may PUT back what it got, and ignored. */
            if (!json_object_is_type(val, json_type_object) &&
                !json_object_is_type(val, json_type_null))
                rc = api_fail(err, 422, "Invalid", key, "%s must be an object", key);
        } else {
            rc = api_fail(err, 422, "Invalid", key, "unknown field %.64s", key);
        }
        if (rc)
            return rc;
    }
    return 0;
}

struct json_object *api_merge_patch(struct json_object *target, struct json_object *patch)
{
    if (!json_object_is_type(patch, json_type_object))
        return json_object_get(patch);
    struct json_object *out = json_object_new_object();
    if (!out)
        return NULL;
    if (json_object_is_type(target, json_type_object)) {
        json_object_object_foreach(target, k, v)
        {
            if (json_object_object_add(out, k, json_object_get(v))) {
                json_object_put(out);
                return NULL;
            }
        }
    }
    json_object_object_foreach(patch, key, val)
    {
        if (json_object_is_type(val, json_type_null)) {
            json_object_object_del(out, key);
            continue;
        }
        struct json_object *cur = NULL;
        json_object_object_get_ex(out, key, &cur);
        struct json_object *merged = api_merge_patch(cur, val);
        if (!merged || json_object_object_add(out, key, merged)) {
            json_object_put(merged);
            json_object_put(out);
            return NULL;
        }
    }
    return out;
}

/* ---- the queue rows, mirrored from the store ---- */

/* The store keeps what the operator wrote (quantities as strings, resourceVersion); the engine
 * keeps parsed vectors. The server mirrors the rows in memory, sorted by name, so reads do not
 * touch SQLite and list pages are a binary search. Written only after the store commits. */
struct qrow {
    char *name, *parent, *state, *strategy, *guarantee, *deserved, *capability;
    int64_t weight, priority, gang_timeout_ms, rv, created_at, updated_at;
    /* guarantee, deserved, capability parsed once (lazily) and shared by reference into every
     * response: a list of 1,000 queues would otherwise parse 3,000 maps per request. */
    struct json_object *parsed[3];
};

static void qrow_close(struct qrow *r)
{
    for (int i = 0; i < 3; i++)
        json_object_put(r->parsed[i]);
    muster_free(r->name);
    muster_free(r->parent);
    muster_free(r->state);
    muster_free(r->strategy);
    muster_free(r->guarantee);
    muster_free(r->deserved);
    muster_free(r->capability);
    memset(r, 0, sizeof(*r));
}

static int dup_or_null(const char *s, char **out)
{
    *out = NULL;
    if (!s)
        return 0;
    *out = muster_strdup(s);
    return *out ? 0 : MUSTER_ENOMEM;
}

static int qrow_from_store(struct qrow *r, const struct store_queue *q)
{
    memset(r, 0, sizeof(*r));
    int rc = dup_or_null(q->name, &r->name);
    if (!rc)
        rc = dup_or_null(q->parent, &r->parent);
    if (!rc)
        rc = dup_or_null(q->state, &r->state);
    if (!rc)
        rc = dup_or_null(q->queueing_strategy, &r->strategy);
    if (!rc)
        rc = dup_or_null(q->guarantee ? q->guarantee : "{}", &r->guarantee);
    if (!rc)
        rc = dup_or_null(q->deserved ? q->deserved : "{}", &r->deserved);
    if (!rc)
        rc = dup_or_null(q->capability ? q->capability : "{}", &r->capability);
    if (rc) {
        qrow_close(r);
        return rc;
    }
    r->weight = q->weight;
    r->priority = q->priority;
    r->gang_timeout_ms = q->gang_timeout_ms;
    r->rv = q->resource_version;
    r->created_at = q->created_at;
    r->updated_at = q->updated_at;
    return 0;
}

static void qrow_to_store(const struct qrow *r, struct store_queue *q)
{
    q->name = r->name;
    q->parent = r->parent;
    q->weight = r->weight;
    q->priority = r->priority;
    q->state = r->state;
    q->queueing_strategy = r->strategy;
    q->guarantee = r->guarantee;
    q->deserved = r->deserved;
    q->capability = r->capability;
    q->gang_timeout_ms = r->gang_timeout_ms;
    q->resource_version = r->rv;
    q->created_at = r->created_at;
    q->updated_at = r->updated_at;
}

static int str_same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Same spec fields (maps compared as the text we would store). */
static int qrow_same_spec(const struct qrow *a, const struct qrow *b)
{
    return str_same(a->name, b->name) && str_same(a->parent, b->parent) &&
           str_same(a->state, b->state) && str_same(a->strategy, b->strategy) &&
           str_same(a->guarantee, b->guarantee) && str_same(a->deserved, b->deserved) &&
           str_same(a->capability, b->capability) && a->weight == b->weight &&
           a->priority == b->priority && a->gang_timeout_ms == b->gang_timeout_ms;
}

/* ---- tokens ---- */

struct api_token {
    unsigned char hash[API_SHA256_LEN];
    char *user;
    enum api_role role;
    int cert_only; /* empty token field: the user signs in by client certificate only */
};

static int sha256(const void *data, size_t len, unsigned char out[API_SHA256_LEN])
{
    unsigned int n = 0;
    if (EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) != 1 || n != API_SHA256_LEN)
        return MUSTER_EIO;
    return 0;
}

static int role_parse(const char *s, size_t n, enum api_role *out)
{
    static const struct {
        const char *name;
        enum api_role role;
    } roles[] = {
        {"viewer", API_ROLE_VIEWER}, {"operator", API_ROLE_OPERATOR}, {"admin", API_ROLE_ADMIN}};
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        if (strlen(roles[i].name) == n && memcmp(roles[i].name, s, n) == 0) {
            *out = roles[i].role;
            return 0;
        }
    }
    return MUSTER_EINVAL;
}

static const char *role_name(enum api_role r)
{
    switch (r) {
    case API_ROLE_VIEWER:
        return "viewer";
    case API_ROLE_OPERATOR:
        return "operator";
    case API_ROLE_ADMIN:
        return "admin";
    default:
        return "none";
    }
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
        (*n)--;
}

/* One line "token,user,role". Messages name the line, never the token. */
static int token_line(const char *line, size_t len, size_t lineno, struct api_token *t, char *err,
                      size_t errcap, const char *path)
{
    const char *f[3];
    size_t fl[3];
    size_t nf = 0;
    const char *p = line, *end = line + len;
    while (nf < 3) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        f[nf] = p;
        fl[nf] = c ? (size_t)(c - p) : (size_t)(end - p);
        trim(&f[nf], &fl[nf]);
        nf++;
        if (!c)
            break;
        p = c + 1;
        if (nf == 3) {
            snprintf(err, errcap, "%s:%zu: expected token,user,role (3 fields), found more", path,
                     lineno);
            return MUSTER_ECONFIG;
        }
    }
    if (nf != 3 || !fl[1]) {
        snprintf(err, errcap, "%s:%zu: expected token,user,role", path, lineno);
        return MUSTER_ECONFIG;
    }
    if (fl[0] > API_TOKEN_MAX || fl[1] > API_TOKEN_USER_MAX) {
        snprintf(err, errcap, "%s:%zu: token longer than %d bytes or user longer than %d", path,
                 lineno, API_TOKEN_MAX, API_TOKEN_USER_MAX);
        return MUSTER_ECONFIG;
    }
    if (role_parse(f[2], fl[2], &t->role)) {
        snprintf(err, errcap, "%s:%zu: role must be viewer, operator or admin", path, lineno);
        return MUSTER_ECONFIG;
    }
    t->cert_only = fl[0] == 0;
    if (!t->cert_only && sha256(f[0], fl[0], t->hash))
        return MUSTER_EIO;
    t->user = muster_strndup(f[1], fl[1]);
    return t->user ? 0 : MUSTER_ENOMEM;
}

static void tokens_free(struct api_token *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        OPENSSL_cleanse(t[i].hash, sizeof(t[i].hash));
        muster_free(t[i].user);
    }
    muster_free(t);
}

/* Reads path into *out (n entries). Only the SHA-256 of each token is kept; the file's bytes
 * are wiped before they are freed. */
static int tokens_load(const char *path, struct api_token **out, size_t *n, char *err,
                       size_t errcap)
{
    *out = NULL;
    *n = 0;
    unsigned char *raw;
    size_t len;
    const char *why;
    int rc = kube_read_file(path, API_TOKEN_FILE_MAX, &raw, &len, &why);
    if (rc == MUSTER_ENOMEM)
        return rc;
    if (rc == MUSTER_ELIMIT) {
        snprintf(err, errcap, "token file %s: larger than %d bytes", path, API_TOKEN_FILE_MAX);
        return MUSTER_ECONFIG;
    }
    if (rc) {
        snprintf(err, errcap, "token file %s: %s", path, why);
        return MUSTER_EIO;
    }
    char *buf = (char *)raw;
    struct api_token *toks = NULL;
    size_t cnt = 0, cap = 0, lineno = 0;
    for (size_t i = 0; !rc && i < len;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t l = nl ? (size_t)(nl - (buf + i)) : len - i;
        const char *line = buf + i;
        i += l + 1;
        lineno++;
        trim(&line, &l);
        if (!l || line[0] == '#')
            continue;
        if (cnt == cap) {
            size_t nc = cap ? cap * 2 : 8;
            struct api_token *g = muster_realloc(toks, nc * sizeof(*g));
            if (!g) {
                rc = MUSTER_ENOMEM;
                break;
            }
            toks = g;
            cap = nc;
        }
        memset(&toks[cnt], 0, sizeof(toks[cnt]));
        rc = token_line(line, l, lineno, &toks[cnt], err, errcap, path);
        if (!rc)
            cnt++;
    }
    OPENSSL_cleanse(buf, len);
    muster_free(buf);
    if (!rc && cnt == 0) {
        snprintf(err, errcap, "token file %s: no tokens", path);
        rc = MUSTER_ECONFIG;
    }
    if (rc) {
        tokens_free(toks, cnt);
        return rc;
    }
    *out = toks;
    *n = cnt;
    return 0;
}

/* ---- the server ---- */

struct api_server;

struct api_handler {
    h2o_handler_t super;
    struct api_server *srv;
};

/* A connection: the uv handle first, so h2o's close callback (which gets the handle) finds the
 * server it belongs to. */
struct api_conn {
    uv_tcp_t tcp;
    struct api_server *srv;
    struct api_conn *prev, *next; /* the server's open connections, for the shutdown deadline */
};

/* One series of muster_api_requests_total. route is a static string (a route template). */
struct api_req_series {
    const char *route;
    const char *method;
    int code;
    uint64_t n;
};

/* One client's token bucket. tokens is fractional: refill is continuous. */
struct api_bucket {
    unsigned char key[API_RATE_KEY_LEN];
    int used;
    double tokens;
    uint64_t at_ms; /* uv_now of the last refill */
};

/* The audit actions, in the order of audit_writes. */
static const char *const audit_actions[] = {"queue.create", "queue.update", "queue.patch",
                                            "queue.delete"};
#define NACTIONS (sizeof(audit_actions) / sizeof(audit_actions[0]))

struct api_stream;

struct api_server {
    h2o_globalconf_t config;
    h2o_context_t ctx;
    h2o_accept_ctx_t accept;
    uv_tcp_t listener;
    struct api_ctx app;
    struct api_token *tokens; /* NULL: no auth (loopback only) */
    size_t ntokens;
    SSL_CTX *ssl_ctx; /* NULL: cleartext */
    int client_certs; /* client certificates are verified and name the user */
    struct api_req_series reqs[API_REQ_SERIES_MAX];
    size_t nreqs;
    uint64_t reqs_dropped;
    uint64_t audit_writes[NACTIONS];
    double rate_per_s, rate_burst;
    struct api_bucket buckets[API_RATE_CLIENTS_MAX];
    struct qrow *rows; /* sorted by name */
    size_t nrows, caprows;
    int port;
    size_t nconns;
    int closing, listener_closed, degraded;
    int webhook_insecure;                            /* serve the webhook without TLS (tests) */
    uint64_t webhook_reviews[DISP_WEBHOOK_VERDICTS]; /* muster_webhook_reviews_total */
    struct api_conn reserve; /* takes a connection to drop it when allocation fails */
    int reserve_busy;
    struct api_guard guard; /* the rules every request meets first (reqguard.h) */
    char listen_host[INET6_ADDRSTRLEN];
    struct api_stream *streams; /* open GET /api/v1/events responses */
    size_t nstreams;
    uv_timer_t heartbeat; /* initialised with ctx->events only */
    int heartbeat_live;
    struct api_conn *conns; /* open connections (not the reserve) */
    /* The shutdown deadline: once draining, connections still open when it fires are cut. */
    uv_timer_t deadline;
    int deadline_live, draining;
    int cut; /* the drain deadline has passed: a connection accepted now is closed at once */
    void (*close_cb)(void *ud);
    void *close_ud;
};

static int64_t now_ms(const struct api_server *s)
{
    if (s->app.now_ms)
        return s->app.now_ms();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t rows_lower_bound(const struct api_server *s, const char *name)
{
    size_t lo = 0, hi = s->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s->rows[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct qrow *rows_find(struct api_server *s, const char *name)
{
    size_t i = rows_lower_bound(s, name);
    return i < s->nrows && strcmp(s->rows[i].name, name) == 0 ? &s->rows[i] : NULL;
}

static int rows_reserve(struct api_server *s)
{
    if (s->nrows < s->caprows)
        return 0;
    size_t nc = s->caprows ? s->caprows * 2 : 16;
    struct qrow *g = muster_realloc(s->rows, nc * sizeof(*g));
    if (!g)
        return MUSTER_ENOMEM;
    s->rows = g;
    s->caprows = nc;
    return 0;
}

/* Puts r (taking its strings) in place of the row of the same name, or inserts it. The caller
 * reserved room first, so this cannot fail. */
static void rows_put(struct api_server *s, struct qrow *r)
{
    size_t i = rows_lower_bound(s, r->name);
    if (i < s->nrows && strcmp(s->rows[i].name, r->name) == 0) {
        qrow_close(&s->rows[i]);
    } else {
        memmove(&s->rows[i + 1], &s->rows[i], (s->nrows - i) * sizeof(*s->rows));
        s->nrows++;
    }
    s->rows[i] = *r;
    memset(r, 0, sizeof(*r));
}

static void rows_remove(struct api_server *s, const char *name)
{
    size_t i = rows_lower_bound(s, name);
    if (i >= s->nrows || strcmp(s->rows[i].name, name) != 0)
        return;
    qrow_close(&s->rows[i]);
    memmove(&s->rows[i], &s->rows[i + 1], (s->nrows - i - 1) * sizeof(*s->rows));
    s->nrows--;
}

static int load_row_cb(void *ud, const struct store_queue *q)
{
    struct api_server *s = ud;
    int rc = rows_reserve(s);
    if (rc)
        return rc;
    /* store_queue_foreach walks in name order, so appending keeps the array sorted. */
    rc = qrow_from_store(&s->rows[s->nrows], q);
    if (!rc)
        s->nrows++;
    return rc;
}

int api_server_reload(struct api_server *s, struct queue_tree *t)
{
    for (size_t i = 0; i < s->nrows; i++)
        qrow_close(&s->rows[i]);
    s->nrows = 0;
    s->app.tree = t;
    s->degraded = 0;
    int rc = store_queue_foreach(s->app.store, load_row_cb, s);
    if (rc)
        s->degraded = 1; /* /readyz says so until a restart */
    return rc;
}

/* ---- responses ---- */

static void add_header(h2o_req_t *req, const h2o_token_t *tok, const char *v)
{
    h2o_add_header(&req->pool, &req->res.headers, tok, NULL,
                   h2o_strdup(&req->pool, v, SIZE_MAX).base, strlen(v));
}

static void send_text(h2o_req_t *req, int status, const char *ctype, const char *body, size_t len)
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
static void send_json(h2o_req_t *req, int status, struct json_object *obj)
{
    if (!obj) {
        static const char oom[] =
            "{\"code\":500,\"reason\":\"InternalError\",\"message\":\"out of memory\"}";
        send_text(req, 500, "application/json", oom, sizeof(oom) - 1);
        return;
    }
    size_t len = 0;
    const char *text = json_object_to_json_string_length(
        obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    send_text(req, status, "application/json", text, len);
    json_object_put(obj);
}

static void send_error(h2o_req_t *req, const struct api_error *e)
{
    struct json_object *o = json_object_new_object();
    if (o) {
        json_object_object_add(o, "code", json_object_new_int(e->status));
        json_object_object_add(o, "reason", json_object_new_string(e->reason));
        json_object_object_add(o, "message", json_object_new_string(e->msg));
        if (e->field[0])
            json_object_object_add(o, "field", json_object_new_string(e->field));
    }
    send_json(req, e->status, o);
}

__attribute__((format(printf, 4, 5))) static void
send_fail(h2o_req_t *req, int status, const char *reason, const char *fmt, ...)
{
    struct api_error e = {.status = status};
    snprintf(e.reason, sizeof(e.reason), "%s", reason);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
    va_end(ap);
    send_error(req, &e);
}

/* ---- queue JSON ---- */

/* Parses JSON text stored by us; falls back to the raw string rather than losing it. */
static struct json_object *stored_json(const char *text)
{
    if (!text)
        return NULL;
    struct json_object *o = json_tokener_parse(text);
    return o ? o : json_object_new_string(text);
}

static void obj_add(struct json_object *o, const char *k, struct json_object *v, int *bad)
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

/* A new reference to one of r's quantity maps (0 guarantee, 1 deserved, 2 capability), parsed
 * on first use. The cache is not part of the row's value, hence the cast; callers must not
 * modify the object they get. */
static struct json_object *row_map(const struct qrow *r, int which)
{
    struct qrow *m = (struct qrow *)r;
    const char *text = which == 0 ? r->guarantee : which == 1 ? r->deserved : r->capability;
    if (!m->parsed[which])
        m->parsed[which] = stored_json(text);
    return m->parsed[which] ? json_object_get(m->parsed[which]) : NULL;
}

/* The spec fields of r as a client writes them (the input of a merge patch, audit rows). */
static struct json_object *spec_json(const struct qrow *r)
{
    struct json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    int bad = 0;
    obj_add(o, "name", json_object_new_string(r->name), &bad);
    if (r->parent)
        obj_add(o, "parent", json_object_new_string(r->parent), &bad);
    else
        json_object_object_add(o, "parent", NULL);
    obj_add(o, "weight", json_object_new_int64(r->weight), &bad);
    obj_add(o, "priority", json_object_new_int64(r->priority), &bad);
    obj_add(o, "state", json_object_new_string(r->state), &bad);
    obj_add(o, "queueingStrategy", json_object_new_string(r->strategy), &bad);
    obj_add(o, "guarantee", row_map(r, 0), &bad);
    obj_add(o, "deserved", row_map(r, 1), &bad);
    obj_add(o, "capability", row_map(r, 2), &bad);
    obj_add(o, "gangTimeoutSeconds", json_object_new_int64(r->gang_timeout_ms / 1000), &bad);
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static struct json_object *metadata_json(const struct qrow *r)
{
    struct json_object *m = json_object_new_object();
    char rv[24];
    snprintf(rv, sizeof(rv), "%" PRId64, r->rv);
    int bad = !m;
    if (m) {
        obj_add(m, "resourceVersion", json_object_new_string(rv), &bad);
        obj_add(m, "createdAtMs", json_object_new_int64(r->created_at), &bad);
        obj_add(m, "updatedAtMs", json_object_new_int64(r->updated_at), &bad);
    }
    if (bad) {
        json_object_put(m);
        return NULL;
    }
    return m;
}

/* Status from the live engine. reserved is held - allocated: capacity the queue holds for its
 * own unused guarantee (held is max(guarantee, usage) summed up from the leaves). */
static struct json_object *status_json(struct api_server *s, const char *name)
{
    const struct queue_node *q = queue_tree_find(s->app.tree, name);
    if (!q)
        return json_object_new_object(); /* a row without an engine node: never after start */
    struct queue_status st;
    memset(&st, 0, sizeof(st));
    if (queue_node_status(s->app.tree, q, &st))
        return NULL;
    const struct queue_resnames *names = queue_tree_resnames(s->app.tree);
    struct queue_resvec reserved = {0};
    int rc = queue_resvec_copy(&reserved, &st.held);
    if (!rc)
        rc = queue_resvec_sub(&reserved, &st.allocated);
    for (uint32_t i = 0; !rc && i < reserved.len; i++)
        if (reserved.items[i].milli < 0)
            rc = queue_resvec_set(&reserved, reserved.items[i].id, 0);
    struct json_object *o = rc ? NULL : json_object_new_object();
    int bad = !o;
    if (o) {
        obj_add(o, "allocated", disp_resvec_json(names, &st.allocated), &bad);
        obj_add(o, "reserved", disp_resvec_json(names, &reserved), &bad);
        obj_add(o, "borrowed", disp_resvec_json(names, &st.borrowed), &bad);
        obj_add(o, "pending", json_object_new_int64((int64_t)st.pending), &bad);
        obj_add(o, "admitted", json_object_new_int64((int64_t)st.admitted), &bad);
        /* JSON has no Infinity: a queue with nothing deserved that uses anything is last in
         * line, shown as null (docs/queue.md, Fair order). */
        if (isinf(st.share)) {
            if (json_object_object_add(o, "share", NULL))
                bad = 1;
        } else {
            obj_add(o, "share", json_object_new_double(st.share), &bad);
        }
    }
    queue_resvec_close(&reserved);
    queue_status_close(&st);
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static struct json_object *queue_json(struct api_server *s, const struct qrow *r, int status)
{
    struct json_object *o = spec_json(r);
    int bad = !o;
    if (o) {
        obj_add(o, "metadata", metadata_json(r), &bad);
        if (status)
            obj_add(o, "status", status_json(s, r->name), &bad);
    }
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static void set_etag(h2o_req_t *req, const struct qrow *r)
{
    char etag[API_ETAG_MAX];
    snprintf(etag, sizeof(etag), "\"%" PRId64 "\"", r->rv);
    add_header(req, H2O_TOKEN_ETAG, etag);
}

/* ---- requests ---- */

struct api_call {
    struct api_server *srv;
    h2o_req_t *req;
    const char *user;
    enum api_role role;
    char name[API_PATH_NAME_MAX + 1]; /* the path's {...} segments joined with '/' */
};

/* The value of query parameter key, copied into out (capped). 1 found, 0 absent, -1 too long. */
static int query_param(h2o_req_t *req, const char *key, char *out, size_t cap)
{
    if (req->query_at == SIZE_MAX)
        return 0;
    const char *q = req->path.base + req->query_at + 1, *end = req->path.base + req->path.len;
    size_t klen = strlen(key);
    while (q < end) {
        const char *amp = memchr(q, '&', (size_t)(end - q));
        const char *pe = amp ? amp : end;
        const char *eq = memchr(q, '=', (size_t)(pe - q));
        if (eq && (size_t)(eq - q) == klen && memcmp(q, key, klen) == 0) {
            size_t vl = (size_t)(pe - eq - 1);
            if (vl >= cap)
                return -1;
            memcpy(out, eq + 1, vl);
            out[vl] = '\0';
            return 1;
        }
        q = pe + 1;
    }
    return 0;
}

/* Decodes %XX escapes and '+' in place (a query value as a browser's encodeURIComponent or a
 * form sends it). 0 on a malformed escape or an escaped NUL. */
static int url_unescape(char *v)
{
    char *w = v;
    for (const char *r = v; *r; r++) {
        if (*r == '+') {
            *w++ = ' ';
        } else if (*r == '%') {
            unsigned char x;
            if (!r[1] || !r[2] || h2o_hex_decode(&x, r + 1, 2) != 0 || x == 0)
                return 0;
            *w++ = (char)x;
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return 1;
}

/* Reads `limit`: 1..API_LIST_LIMIT_MAX (larger clamped), default API_LIST_LIMIT_DEFAULT. */
static int limit_param(h2o_req_t *req, size_t *limit)
{
    char v[API_QUERY_VALUE_MAX];
    int got = query_param(req, "limit", v, sizeof(v));
    *limit = API_LIST_LIMIT_DEFAULT;
    if (got < 0)
        return MUSTER_EINVAL;
    if (!got)
        return 0;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < 1)
        return MUSTER_EINVAL;
    *limit = n > API_LIST_LIMIT_MAX ? API_LIST_LIMIT_MAX : (size_t)n;
    return 0;
}

static void list_metadata(struct json_object *out, const char *cont)
{
    struct json_object *m = json_object_new_object();
    if (m && cont)
        json_object_object_add(m, "continue", json_object_new_string(cont));
    json_object_object_add(out, "metadata", m);
}

static void handle_queue_list(struct api_call *c)
{
    size_t limit;
    char cont[API_QUERY_VALUE_MAX];
    if (limit_param(c->req, &limit)) {
        send_fail(c->req, 400, "BadRequest", "limit must be a positive integer");
        return;
    }
    int got = query_param(c->req, "continue", cont, sizeof(cont));
    if (got < 0) {
        send_fail(c->req, 400, "BadRequest", "continue token too long");
        return;
    }
    struct api_server *s = c->srv;
    /* The continue token is the last name of the previous page: queues created or deleted
     * between pages shift nothing, and an expired token cannot exist. */
    size_t i = got ? rows_lower_bound(s, cont) : 0;
    if (got && i < s->nrows && strcmp(s->rows[i].name, cont) == 0)
        i++;
    struct json_object *out = json_object_new_object();
    struct json_object *items = json_object_new_array();
    int bad = !out || !items;
    size_t n = 0;
    for (; !bad && i < s->nrows && n < limit; i++, n++) {
        struct json_object *q = queue_json(s, &s->rows[i], 1);
        if (!q || json_object_array_add(items, q)) {
            json_object_put(q);
            bad = 1;
        }
    }
    if (bad) {
        json_object_put(items);
        json_object_put(out);
        send_json(c->req, 500, NULL);
        return;
    }
    json_object_object_add(out, "items", items);
    list_metadata(out, i < s->nrows ? s->rows[i - 1].name : NULL);
    send_json(c->req, 200, out);
}

static void handle_queue_get(struct api_call *c)
{
    struct qrow *r = rows_find(c->srv, c->name);
    if (!r) {
        send_fail(c->req, 404, "NotFound", "queue %s not found", c->name);
        return;
    }
    set_etag(c->req, r);
    send_json(c->req, 200, queue_json(c->srv, r, 1));
}

/* If-Match against r's resourceVersion: 0 when it matches (or is absent and not required),
 * else the error has been sent. Takes "N", N or *; a weak tag W/"N" or a list of tags does not
 * match (a weak tag cannot guard a write, and clients hold one version at a time). */
static int check_if_match(struct api_call *c, const struct qrow *r, int required)
{
    ssize_t i = h2o_find_header(&c->req->headers, H2O_TOKEN_IF_MATCH, -1);
    if (i < 0) {
        if (!required)
            return 0;
        send_fail(c->req, 428, "PreconditionRequired",
                  "PUT replaces the whole queue: send If-Match with the resourceVersion of %s "
                  "(its ETag) so a concurrent change is not lost",
                  r->name);
        return -1;
    }
    h2o_iovec_t v = c->req->headers.entries[i].value;
    char want[API_ETAG_MAX];
    int n = snprintf(want, sizeof(want), "\"%" PRId64 "\"", r->rv);
    int ok = (v.len == 1 && v.base[0] == '*') ||
             (v.len == (size_t)n && memcmp(v.base, want, v.len) == 0) ||
             (v.len == (size_t)n - 2 && memcmp(v.base, want + 1, v.len) == 0);
    if (!ok) {
        send_fail(c->req, 412, "PreconditionFailed",
                  "queue %s is at resourceVersion %" PRId64 ", not %.*s: read it again and "
                  "retry",
                  r->name, r->rv, (int)(v.len > 40 ? 40 : v.len), v.base);
        return -1;
    }
    return 0;
}

/* A decoded document, as an engine spec (vectors owned) and a store row (strings owned). */
struct change {
    struct queue_spec spec;
    struct qrow row;
};

static void change_close(struct change *ch)
{
    queue_resvec_close(&ch->spec.guarantee);
    queue_resvec_close(&ch->spec.deserved);
    queue_resvec_close(&ch->spec.capability);
    qrow_close(&ch->row);
}

static char *map_text(struct json_object *m)
{
    return muster_strdup(m ? json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE)
                           : "{}");
}

static int map_parse(struct api_server *s, struct json_object *m, const char *what,
                     struct queue_resvec *out, struct api_error *e)
{
    if (!m)
        return 0;
    char why[256];
    /* an explicit 0 in a capability is a limit, elsewhere it is the same as absent */
    int rc = strcmp(what, "capability") == 0
                 ? disp_resvec_parse_limits(queue_tree_resnames(s->app.tree), m, what, out, why,
                                            sizeof(why))
                 : disp_resvec_parse(queue_tree_resnames(s->app.tree), m, what, out, why,
                                     sizeof(why));
    if (!rc)
        return 0;
    if (rc == MUSTER_ENOMEM)
        return api_fail(e, 500, "InternalError", NULL, "out of memory");
    /* resjson says "<what>.<name>: <why>": the part before ": " is the field. */
    const char *colon = strstr(why, ": ");
    size_t fl = colon ? (size_t)(colon - why) : strlen(what);
    char field[96];
    snprintf(field, sizeof(field), "%.*s", (int)(fl < sizeof(field) ? fl : sizeof(field) - 1),
             colon ? why : what);
    return api_fail(e, 422, "Invalid", field, "%s", why);
}

/* Builds ch from doc, then asks the engine whether it may be applied. 0, or e filled. */
static int change_build(struct api_server *s, const struct api_queue_doc *doc, int exists,
                        struct change *ch, struct api_error *e)
{
    memset(ch, 0, sizeof(*ch));
    const char *parent = doc->parent;
    if (strcmp(doc->name, QUEUE_ROOT) != 0 && !parent)
        parent = QUEUE_ROOT; /* the store names root explicitly; the engine takes NULL or it */
    ch->spec.name = doc->name;
    ch->spec.parent = parent;
    ch->spec.weight = (int32_t)doc->weight;
    ch->spec.priority = (int32_t)doc->priority;
    queue_state_parse(doc->state, &ch->spec.state);
    queue_strategy_parse(doc->strategy, &ch->spec.strategy);
    int rc = map_parse(s, doc->guarantee, "guarantee", &ch->spec.guarantee, e);
    if (!rc)
        rc = map_parse(s, doc->deserved, "deserved", &ch->spec.deserved, e);
    if (!rc)
        rc = map_parse(s, doc->capability, "capability", &ch->spec.capability, e);
    if (rc)
        return rc;
    struct queue_error qe = {{0}, {0}};
    rc = queue_tree_validate(s->app.tree, &ch->spec, exists, &qe);
    if (rc == MUSTER_EEXIST)
        return api_fail(e, 409, "AlreadyExists", "name", "%s", qe.msg);
    if (rc == MUSTER_ENOMEM)
        return api_fail(e, 500, "InternalError", NULL, "out of memory");
    if (rc)
        return api_fail(e, 422, "Invalid", qe.field, "%s", qe.msg);
    struct qrow *r = &ch->row;
    r->name = muster_strdup(doc->name);
    r->parent = parent ? muster_strdup(parent) : NULL;
    r->state = muster_strdup(doc->state);
    r->strategy = muster_strdup(doc->strategy);
    r->guarantee = map_text(doc->guarantee);
    r->deserved = map_text(doc->deserved);
    r->capability = map_text(doc->capability);
    if (!r->name || (parent && !r->parent) || !r->state || !r->strategy || !r->guarantee ||
        !r->deserved || !r->capability)
        return api_fail(e, 500, "InternalError", NULL, "out of memory");
    r->weight = doc->weight;
    r->priority = doc->priority;
    r->gang_timeout_ms = doc->gang_timeout_s * 1000;
    return 0;
}

static char *json_text_of(struct json_object *o)
{
    if (!o)
        return NULL;
    char *t = muster_strdup(
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    return t;
}

/* Writes the change to SQLite with its audit row in one transaction. after NULL deletes
 * before->name. Nothing is written on failure. */
static int persist(struct api_server *s, const char *actor, const char *action,
                   const struct qrow *before, const struct qrow *after, struct api_error *e)
{
    const char *name = after ? after->name : before->name;
    char object[QUEUE_NAME_MAX + 16];
    snprintf(object, sizeof(object), "queues/%s", name);
    char *btext = before ? json_text_of(queue_json(s, before, 0)) : NULL;
    char *atext = after ? json_text_of(queue_json(s, after, 0)) : NULL;
    if ((before && !btext) || (after && !atext)) {
        muster_free(btext);
        muster_free(atext);
        return api_fail(e, 500, "InternalError", NULL, "out of memory");
    }
    struct store *st = s->app.store;
    struct store_audit rec = {now_ms(s), actor, action, object, btext, atext};
    int rc = store_begin(st);
    if (!rc) {
        if (after) {
            struct store_queue q;
            qrow_to_store(after, &q);
            rc = store_queue_put(st, &q);
        } else {
            rc = store_queue_delete(st, name);
        }
    }
    if (!rc)
        rc = store_audit_append(st, &rec, NULL);
    if (!rc)
        rc = store_commit(st);
    for (size_t i = 0; !rc && i < NACTIONS; i++)
        if (strcmp(action, audit_actions[i]) == 0)
            s->audit_writes[i]++;
    if (rc) {
        store_rollback(st);
        api_fail(e, rc == MUSTER_ECONFLICT ? 409 : 500,
                 rc == MUSTER_ECONFLICT ? "Conflict" : "StoreError", NULL,
                 "the change was not saved (nothing changed): %s", store_errmsg(st));
    }
    muster_free(btext);
    muster_free(atext);
    return rc;
}

/* After the store committed: the engine must take the change, since it was validated against
 * the same tree on this thread a moment ago. If it still refuses, the store and the engine
 * disagree until a restart reloads the store: /readyz reports it. */
static int engine_apply(struct api_server *s, const struct queue_spec *spec, int exists,
                        const char *remove, struct api_error *e)
{
    struct queue_error qe = {{0}, {0}};
    int rc = remove   ? queue_tree_remove(s->app.tree, remove, &qe)
             : exists ? queue_tree_update(s->app.tree, spec, &qe)
                      : queue_tree_create(s->app.tree, spec, &qe);
    if (rc) {
        s->degraded = 1;
        return api_fail(e, 500, "InternalError", qe.field,
                        "saved, but the engine refused the change (%s: %s); restart musterd to "
                        "reload the queues from the database",
                        qe.field, qe.msg);
    }
    return 0;
}

/* After the store and the engine hold a queue change: the dispatcher may now place parked
 * bindings, and the dashboards see it (a "queue" event; deleted: true when it is gone). */
static void queue_changed(struct api_server *s, const char *name, int deleted)
{
    if (s->app.disp.queues_changed)
        s->app.disp.queues_changed(s->app.disp.ud, name);
    if (!s->app.events)
        return;
    struct json_object *o = json_object_new_object();
    if (o) {
        json_object_object_add(o, "name", json_object_new_string(name));
        if (deleted)
            json_object_object_add(o, "deleted", json_object_new_boolean(1));
    }
    disp_events_publish(s->app.events, "queue", o); /* out of memory: the event is lost, no more */
}

static struct json_object *read_body(struct api_call *c, struct api_error *e)
{
    struct json_object *obj;
    if (api_body_parse(c->req->entity.base, c->req->entity.len, &obj, e))
        return NULL;
    return obj;
}

/* Create, replace and patch end here: doc is validated, saved, applied, mirrored, answered. */
static void commit_doc(struct api_call *c, const struct api_queue_doc *doc, const struct qrow *old,
                       const char *action)
{
    struct api_server *s = c->srv;
    struct api_error e = {0};
    struct change ch;
    int exists = old != NULL;
    if (!doc->name) {
        api_fail(&e, 422, "Invalid", "name", "name is required");
        send_error(c->req, &e);
        return;
    }
    /* Resource names the document brings are interned to build the change, but kept only if
     * it commits: the table is bounded, and refused requests must not fill it. */
    struct queue_resnames *names = queue_tree_resnames(s->app.tree);
    uint32_t mark = queue_resnames_mark(names);
    if (change_build(s, doc, exists, &ch, &e) || rows_reserve(s)) {
        if (!e.status)
            api_fail(&e, 500, "InternalError", NULL, "out of memory");
        change_close(&ch);
        queue_resnames_rollback(names, mark);
        send_error(c->req, &e);
        return;
    }
    if (exists && qrow_same_spec(old, &ch.row)) {
        /* Nothing changes: no write, no new resourceVersion, no audit row, so applying the
         * same document twice is a no-op the second time. */
        change_close(&ch);
        queue_resnames_rollback(names, mark);
        set_etag(c->req, old);
        send_json(c->req, 200, queue_json(s, old, 1));
        return;
    }
    int64_t now = now_ms(s);
    ch.row.rv = exists ? old->rv + 1 : 1;
    ch.row.created_at = exists ? old->created_at : now;
    ch.row.updated_at = now;
    if (persist(s, c->user, action, old, &ch.row, &e)) {
        change_close(&ch);
        queue_resnames_rollback(names, mark);
        send_error(c->req, &e);
        return;
    }
    /* The mirror follows the store whatever the engine does next. */
    char name[QUEUE_NAME_MAX + 1];
    snprintf(name, sizeof(name), "%s", ch.row.name);
    rows_put(s, &ch.row);
    int rc = engine_apply(s, &ch.spec, exists, NULL, &e);
    change_close(&ch);
    if (rc) {
        send_error(c->req, &e);
        return;
    }
    queue_changed(s, name, 0);
    struct qrow *r = rows_find(s, name);
    set_etag(c->req, r);
    if (!exists) {
        char loc[QUEUE_NAME_MAX + 32];
        snprintf(loc, sizeof(loc), "/api/v1/queues/%s", name);
        add_header(c->req, H2O_TOKEN_LOCATION, loc);
    }
    send_json(c->req, exists ? 200 : 201, queue_json(s, r, 1));
}

static void handle_queue_create(struct api_call *c)
{
    struct api_error e = {0};
    struct json_object *obj = read_body(c, &e);
    struct api_queue_doc doc;
    if (!obj || api_queue_doc_decode(obj, &doc, &e)) {
        json_object_put(obj);
        send_error(c->req, &e);
        return;
    }
    commit_doc(c, &doc, NULL, "queue.create");
    json_object_put(obj);
}

static void handle_queue_replace(struct api_call *c)
{
    struct api_error e = {0};
    struct qrow *r = rows_find(c->srv, c->name);
    if (!r) {
        send_fail(c->req, 404, "NotFound", "queue %s not found (create it with POST)", c->name);
        return;
    }
    if (check_if_match(c, r, 1))
        return;
    struct json_object *obj = read_body(c, &e);
    struct api_queue_doc doc;
    if (!obj || api_queue_doc_decode(obj, &doc, &e)) {
        json_object_put(obj);
        send_error(c->req, &e);
        return;
    }
    if (!doc.name)
        doc.name = c->name;
    if (strcmp(doc.name, c->name) != 0) {
        api_fail(&e, 422, "Invalid", "name",
                 "name is %.64s but the path names %s; a queue cannot be renamed", doc.name,
                 c->name);
        json_object_put(obj);
        send_error(c->req, &e);
        return;
    }
    commit_doc(c, &doc, r, "queue.update");
    json_object_put(obj);
}

static int is_merge_patch_type(h2o_req_t *req)
{
    ssize_t i = h2o_find_header(&req->headers, H2O_TOKEN_CONTENT_TYPE, -1);
    if (i < 0)
        return 1;
    h2o_iovec_t v = req->headers.entries[i].value;
    size_t n = v.len;
    const char *semi = memchr(v.base, ';', v.len);
    if (semi)
        n = (size_t)(semi - v.base);
    return (n == 28 && h2o_lcstris(v.base, n, H2O_STRLIT("application/merge-patch+json"))) ||
           (n == 16 && h2o_lcstris(v.base, n, H2O_STRLIT("application/json")));
}

static void handle_queue_patch(struct api_call *c)
{
    struct api_error e = {0};
    if (!is_merge_patch_type(c->req)) {
        send_fail(c->req, 415, "UnsupportedMediaType",
                  "PATCH takes a JSON merge patch (application/merge-patch+json)");
        return;
    }
    struct qrow *r = rows_find(c->srv, c->name);
    if (!r) {
        send_fail(c->req, 404, "NotFound", "queue %s not found", c->name);
        return;
    }
    if (check_if_match(c, r, 0))
        return;
    struct json_object *patch = read_body(c, &e);
    if (!patch) {
        send_error(c->req, &e);
        return;
    }
    /* An operator may open, close or drain a queue, nothing else. */
    if (c->role < API_ROLE_ADMIN) {
        struct json_object *st = NULL;
        if (json_object_object_length(patch) != 1 ||
            !json_object_object_get_ex(patch, "state", &st)) {
            json_object_put(patch);
            send_fail(c->req, 403, "Forbidden",
                      "user %s (role %s) may only change a queue's state; other fields need "
                      "the admin role",
                      c->user, role_name(c->role));
            return;
        }
    }
    struct json_object *cur = spec_json(r);
    struct json_object *merged = cur ? api_merge_patch(cur, patch) : NULL;
    json_object_put(cur);
    json_object_put(patch);
    struct api_queue_doc doc;
    if (!merged) {
        send_json(c->req, 500, NULL);
        return;
    }
    if (api_queue_doc_decode(merged, &doc, &e)) {
        json_object_put(merged);
        send_error(c->req, &e);
        return;
    }
    if (!doc.name || strcmp(doc.name, c->name) != 0) {
        json_object_put(merged);
        api_fail(&e, 422, "Invalid", "name", "a queue cannot be renamed");
        send_error(c->req, &e);
        return;
    }
    commit_doc(c, &doc, r, "queue.patch");
    json_object_put(merged);
}

static void handle_queue_delete(struct api_call *c)
{
    struct api_server *s = c->srv;
    struct api_error e = {0};
    struct qrow *r = rows_find(s, c->name);
    if (!r) {
        send_fail(c->req, 404, "NotFound", "queue %s not found", c->name);
        return;
    }
    if (check_if_match(c, r, 0))
        return;
    if (strcmp(c->name, QUEUE_ROOT) == 0 || strcmp(c->name, QUEUE_DEFAULT) == 0) {
        send_fail(c->req, 409, "Conflict", "queue %s always exists and cannot be deleted", c->name);
        return;
    }
    const struct queue_node *q = queue_tree_find(s->app.tree, c->name);
    if (q && queue_node_children(q) > 0) {
        send_fail(c->req, 409, "Conflict",
                  "queue %s has %zu child queues: delete or move them first", c->name,
                  queue_node_children(q));
        return;
    }
    struct queue_status st;
    memset(&st, 0, sizeof(st));
    if (q && queue_node_status(s->app.tree, q, &st)) {
        send_json(c->req, 500, NULL);
        return;
    }
    uint64_t work = st.pending + st.admitted;
    queue_status_close(&st);
    if (work) {
        send_fail(c->req, 409, "Conflict",
                  "queue %s holds %" PRIu64 " workloads: set state Draining and delete it once "
                  "they are gone",
                  c->name, work);
        return;
    }
    struct json_object *gone = queue_json(s, r, 0);
    if (!gone) {
        send_json(c->req, 500, NULL);
        return;
    }
    if (persist(s, c->user, "queue.delete", r, NULL, &e)) {
        json_object_put(gone);
        send_error(c->req, &e);
        return;
    }
    rows_remove(s, c->name);
    if (q && engine_apply(s, NULL, 1, c->name, &e)) {
        json_object_put(gone);
        send_error(c->req, &e);
        return;
    }
    queue_changed(s, c->name, 1);
    send_json(c->req, 200, gone);
}

/* ---- audit ---- */

struct audit_page {
    struct json_object *items;
    int64_t last;
    int bad;
};

static int audit_cb(void *ud, int64_t id, const struct store_audit *rec)
{
    struct audit_page *p = ud;
    struct json_object *o = json_object_new_object();
    int bad = !o;
    if (o) {
        obj_add(o, "id", json_object_new_int64(id), &bad);
        obj_add(o, "atMs", json_object_new_int64(rec->at), &bad);
        obj_add(o, "actor", json_object_new_string(rec->actor), &bad);
        obj_add(o, "action", json_object_new_string(rec->action), &bad);
        obj_add(o, "object", json_object_new_string(rec->object), &bad);
        json_object_object_add(o, "before", stored_json(rec->before));
        json_object_object_add(o, "after", stored_json(rec->after));
    }
    if (bad || json_object_array_add(p->items, o)) {
        json_object_put(o);
        p->bad = 1;
        return MUSTER_ENOMEM;
    }
    p->last = id;
    return 0;
}

static void handle_audit_list(struct api_call *c)
{
    size_t limit;
    char cont[API_QUERY_VALUE_MAX];
    if (limit_param(c->req, &limit)) {
        send_fail(c->req, 400, "BadRequest", "limit must be a positive integer");
        return;
    }
    int64_t after = 0;
    int got = query_param(c->req, "continue", cont, sizeof(cont));
    if (got) {
        char *end;
        errno = 0;
        long long v = got > 0 ? strtoll(cont, &end, 10) : -1;
        if (got < 0 || errno || end == cont || *end || v < 0) {
            send_fail(c->req, 400, "BadRequest", "continue is not a token from a previous page");
            return;
        }
        after = v;
    }
    struct audit_page p = {json_object_new_array(), 0, 0};
    if (!p.items) {
        send_json(c->req, 500, NULL);
        return;
    }
    /* One row more than the page tells whether another page follows. */
    int rc = store_audit_foreach(c->srv->app.store, after, limit + 1, audit_cb, &p);
    if (rc) {
        json_object_put(p.items);
        send_fail(c->req, 500, "StoreError", "reading the audit log: %s",
                  store_errmsg(c->srv->app.store));
        return;
    }
    char next[24];
    const char *cont_out = NULL;
    if (json_object_array_length(p.items) > limit) {
        json_object_array_del_idx(p.items, limit, 1);
        struct json_object *lastobj = json_object_array_get_idx(p.items, limit - 1);
        struct json_object *idobj = NULL;
        json_object_object_get_ex(lastobj, "id", &idobj);
        snprintf(next, sizeof(next), "%" PRId64, json_object_get_int64(idobj));
        cont_out = next;
    }
    struct json_object *out = json_object_new_object();
    if (!out) {
        json_object_put(p.items);
        send_json(c->req, 500, NULL);
        return;
    }
    json_object_object_add(out, "items", p.items);
    list_metadata(out, cont_out);
    send_json(c->req, 200, out);
}

/* ---- bindings ---- */

/* The live states a client may filter on (released and rolledback rows are history only). */
static const char *const binding_states[] = {"pending", "admitted", "dispatched", "running"};
#define NBSTATES (sizeof(binding_states) / sizeof(binding_states[0]))
#define API_WALK_STOP 1 /* a foreach callback's "page full": not an error */

/* Where a live row stands in a list. Listing one queue puts the rows pending in the engine
 * first (section 0) in the engine's order within a leaf (higher priority, then older, then lower
 * id: queue/order.c), then the others (section 1) by ledger id. Without queue= every row is in
 * section 1: ledger id order. The continue token is the key of a page's last row. */
struct bkey {
    int64_t section, prio, created, id;
};

static int bkey_cmp(const void *pa, const void *pb)
{
    const struct bkey *a = pa, *b = pb;
    if (a->section != b->section)
        return a->section < b->section ? -1 : 1;
    if (a->prio != b->prio)
        return a->prio > b->prio ? -1 : 1;
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int bkey_parse(const char *v, struct bkey *k)
{
    int64_t f[4];
    const char *p = v;
    for (int i = 0; i < 4; i++) {
        char *end;
        errno = 0;
        long long n = strtoll(p, &end, 10);
        if (errno || end == p || *end != (i < 3 ? '.' : '\0'))
            return MUSTER_EINVAL;
        f[i] = n;
        p = end + 1;
    }
    if (f[0] < 0 || f[0] > 1 || f[3] < 0)
        return MUSTER_EINVAL;
    *k = (struct bkey){f[0], f[1], f[2], f[3]};
    return 0;
}

/* The engine's entry of a ledger row, or NULL (a row whose queue is gone is held outside it). */
static struct queue_entry *row_entry(struct api_server *s, const struct store_ledger_row *row)
{
    return queue_tree_entry(s->app.tree, (uint64_t)row->id);
}

static int entry_pending(const struct queue_entry *e)
{
    return e && queue_entry_state(e) == QUEUE_ENTRY_PENDING;
}

/* Why row waits or stands where it is, into buf ("" when there is nothing to say). A pending
 * entry gets the engine's own admission check, so the sentence is what the next cycle will
 * meet; the stored reason is what the dispatcher last recorded. */
static void binding_reason(struct api_server *s, const struct store_ledger_row *row,
                           const struct queue_entry *e, char *buf, size_t cap)
{
    if (s->app.disp.binding_reason) {
        const char *r = s->app.disp.binding_reason(s->app.disp.ud, row->id);
        if (r && *r) {
            snprintf(buf, cap, "%s", r);
            return;
        }
    }
    const struct queue_node *q = queue_tree_find(s->app.tree, row->queue);
    if (!q) {
        snprintf(buf, cap, "queue %s does not exist", row->queue);
        return;
    }
    if (entry_pending(e) && strcmp(row->state, "pending") == 0) {
        struct queue_limit why;
        if (queue_tree_can_admit(s->app.tree, queue_entry_queue(e), queue_entry_request(e), &why))
            snprintf(buf, cap, "waiting for the next dispatch cycle");
        else if (queue_limit_explain(s->app.tree, &why, buf, cap) < 0 && !buf[0])
            snprintf(buf, cap, "does not fit its queue");
        return;
    }
    if (strcmp(row->state, "pending") == 0 && !e && queue_node_children(q) > 0) {
        snprintf(buf, cap, "queue %s has child queues: work waits only in leaf queues", row->queue);
        return;
    }
    snprintf(buf, cap, "%s", row->reason ? row->reason : "");
}

/* The request as canonical quantities; the stored text if it does not parse (never after a
 * successful start-up, which validated every live row). */
static struct json_object *request_json(struct api_server *s, const char *text)
{
    struct queue_resvec v = {0};
    char err[128];
    /* A read never keeps a name: whatever parsing interned is forgotten once printed. */
    struct queue_resnames *names = queue_tree_resnames(s->app.tree);
    uint32_t mark = queue_resnames_mark(names);
    struct json_object *o =
        disp_resvec_parse_text(names, text, "request", &v, err, sizeof(err))
            ? stored_json(text)
            : disp_resvec_json(names, &v);
    queue_resvec_close(&v);
    queue_resnames_rollback(names, mark);
    return o;
}

/* A ledger row as the API shows it. position > 0 is added (a pending entry's place in line);
 * reason is added when not empty. */
static struct json_object *binding_json(struct api_server *s, const struct store_ledger_row *row,
                                        uint64_t position, const char *reason)
{
    struct json_object *o = json_object_new_object();
    int bad = !o;
    if (!o)
        return NULL;
    const char *slash = strchr(row->binding, '/');
    if (slash)
        obj_add(o, "namespace",
                json_object_new_string_len(row->binding, (int)(slash - row->binding)), &bad);
    else
        obj_add(o, "namespace", json_object_new_string(""), &bad);
    obj_add(o, "name", json_object_new_string(slash ? slash + 1 : row->binding), &bad);
    obj_add(o, "uid", json_object_new_string(row->uid ? row->uid : ""), &bad);
    obj_add(o, "queue", json_object_new_string(row->queue), &bad);
    obj_add(o, "state", json_object_new_string(row->state), &bad);
    obj_add(o, "request", request_json(s, row->request), &bad);
    obj_add(o, "priority", json_object_new_int64(row->priority), &bad);
    obj_add(o, "createdAtMs", json_object_new_int64(row->created_at), &bad);
    if (row->admitted_at)
        obj_add(o, "admittedAtMs", json_object_new_int64(row->admitted_at), &bad);
    obj_add(o, "updatedAtMs", json_object_new_int64(row->updated_at), &bad);
    obj_add(o, "clusters", stored_json(row->clusters ? row->clusters : "[]"), &bad);
    if (position)
        obj_add(o, "position", json_object_new_int64((int64_t)position), &bad);
    if (reason && reason[0])
        obj_add(o, "reason", json_object_new_string(reason), &bad);
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

struct bslot {
    int64_t id;
    size_t idx; /* place in the page */
    int section0;
};

struct blist {
    struct api_server *srv;
    const char *queue; /* NULL: every queue, in ledger id order */
    const char *state; /* NULL: every live state */
    const char *name;  /* NULL: every binding; else a substring of "namespace/name" */
    struct bkey after;
    int has_after;
    size_t want; /* rows to collect before stopping early (id order only) */
    struct bkey *keys;
    size_t n, cap;
    /* the second walk: the page's rows by id, and where each goes in the page */
    struct bslot *byid;
    struct json_object **objs;
    size_t npage;
    uint64_t first_pos; /* engine position of the page's first row when it is in section 0 */
};

static int blist_match(const struct blist *l, const struct store_ledger_row *row)
{
    return (!l->queue || strcmp(row->queue, l->queue) == 0) &&
           (!l->state || strcmp(row->state, l->state) == 0) &&
           (!l->name || strstr(row->binding, l->name) != NULL);
}

/* First walk: the keys of the matching rows after the continue key. */
static int blist_keys_cb(void *ud, const struct store_ledger_row *row)
{
    struct blist *l = ud;
    if (!blist_match(l, row))
        return 0;
    struct bkey k = {1, 0, 0, row->id};
    struct queue_entry *e = l->queue ? row_entry(l->srv, row) : NULL;
    if (entry_pending(e) && strcmp(row->state, "pending") == 0)
        k = (struct bkey){0, queue_entry_priority(e), queue_entry_created(e), row->id};
    if (l->has_after && bkey_cmp(&k, &l->after) <= 0)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct bkey *g = muster_realloc(l->keys, cap * sizeof(*g));
        if (!g)
            return MUSTER_ENOMEM;
        l->keys = g;
        l->cap = cap;
    }
    l->keys[l->n++] = k;
    /* Rows come in id order: without queue= the page is the first rows past the token. */
    return !l->queue && l->n == l->want ? API_WALK_STOP : 0;
}

static int bslot_cmp(const void *pa, const void *pb)
{
    const struct bslot *a = pa, *b = pb;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Second walk: the page's rows as JSON, each into its place. */
static int blist_rows_cb(void *ud, const struct store_ledger_row *row)
{
    struct blist *l = ud;
    struct bslot probe = {.id = row->id};
    struct bslot *hit = bsearch(&probe, l->byid, l->npage, sizeof(probe), bslot_cmp);
    if (!hit)
        return 0;
    size_t idx = hit->idx;
    struct queue_entry *e = row_entry(l->srv, row);
    uint64_t pos = 0;
    if (entry_pending(e) && strcmp(row->state, "pending") == 0) {
        if (hit->section0 && l->first_pos > 0)
            /* Section 0 of a queue's list is the engine's own order with no gap (every pending
             * entry has its pending row), and it starts the page: counting on from the first
             * row saves an O(pending in the queue) walk per row. */
            pos = l->first_pos + idx;
        else
            pos = queue_entry_position(l->srv->app.tree, e);
    }
    char reason[512];
    binding_reason(l->srv, row, e, reason, sizeof(reason));
    l->objs[idx] = binding_json(l->srv, row, pos, reason);
    return l->objs[idx] ? 0 : MUSTER_ENOMEM;
}

/* Reads queue=, state= and name=: 0, or a 400 already sent. name is a plain substring of
 * "namespace/name" (the dashboard's search box), matched as it is sent. */
static int binding_filters(struct api_call *c, char *queue, size_t qcap, char *state, size_t scap,
                           char *name, size_t ncap, struct blist *l)
{
    int gotn = query_param(c->req, "name", name, ncap);
    if (gotn < 0 || (gotn && !url_unescape(name))) {
        send_fail(c->req, 400, "BadRequest", "name must be at most %zu bytes, URL-encoded",
                  ncap - 1);
        return MUSTER_EINVAL;
    }
    l->name = gotn && name[0] ? name : NULL;
    int got = query_param(c->req, "queue", queue, qcap);
    if (got < 0 || (got && (!queue[0] || strlen(queue) > QUEUE_NAME_MAX))) {
        send_fail(c->req, 400, "BadRequest", "queue must be a queue name of 1 to %d bytes",
                  QUEUE_NAME_MAX);
        return MUSTER_EINVAL;
    }
    l->queue = got ? queue : NULL;
    got = query_param(c->req, "state", state, scap);
    if (got) {
        size_t i = 0;
        while (got > 0 && i < NBSTATES && strcmp(state, binding_states[i]) != 0)
            i++;
        if (got < 0 || i == NBSTATES) {
            send_fail(c->req, 400, "BadRequest",
                      "state %.32s%s is not a live binding state; use pending, admitted, "
                      "dispatched or running (finished attempts are in a binding's history)",
                      got < 0 ? "" : state, got < 0 ? "(too long)" : "");
            return MUSTER_EINVAL;
        }
        l->state = binding_states[i];
    }
    return 0;
}

static void blist_close(struct blist *l)
{
    if (l->objs)
        for (size_t i = 0; i < l->npage; i++)
            json_object_put(l->objs[i]);
    muster_free(l->objs);
    muster_free(l->byid);
    muster_free(l->keys);
}

/* GET /api/v1/bindings: two walks of the live ledger (no row is copied): the first collects the
 * sort keys of the matching rows, the second renders the page's rows. */
static void handle_binding_list(struct api_call *c)
{
    struct blist l = {.srv = c->srv};
    char queue[API_QUERY_VALUE_MAX], state[API_QUERY_VALUE_MAX], cont[API_QUERY_VALUE_MAX];
    char name[API_QUERY_VALUE_MAX];
    size_t limit;
    if (limit_param(c->req, &limit)) {
        send_fail(c->req, 400, "BadRequest", "limit must be a positive integer");
        return;
    }
    if (binding_filters(c, queue, sizeof(queue), state, sizeof(state), name, sizeof(name), &l))
        return;
    int got = query_param(c->req, "continue", cont, sizeof(cont));
    if (got && (got < 0 || bkey_parse(cont, &l.after))) {
        send_fail(c->req, 400, "BadRequest", "continue is not a token from a previous page");
        return;
    }
    l.has_after = got > 0;
    l.want = limit + 1; /* one row more than the page tells whether another page follows */
    struct store *st = c->srv->app.store;
    int rc = store_ledger_foreach_live(st, blist_keys_cb, &l);
    if (rc && rc != API_WALK_STOP)
        goto fail;
    if (l.queue && l.n)
        qsort(l.keys, l.n, sizeof(*l.keys), bkey_cmp);
    l.npage = l.n > limit ? limit : l.n;
    rc = MUSTER_ENOMEM;
    l.byid = muster_calloc(l.npage ? l.npage : 1, sizeof(*l.byid));
    l.objs = muster_calloc(l.npage ? l.npage : 1, sizeof(*l.objs));
    if (!l.byid || !l.objs)
        goto fail;
    for (size_t i = 0; i < l.npage; i++)
        l.byid[i] = (struct bslot){l.keys[i].id, i, l.keys[i].section == 0};
    qsort(l.byid, l.npage, sizeof(*l.byid), bslot_cmp);
    if (l.npage && l.keys[0].section == 0)
        l.first_pos = queue_entry_position(
            c->srv->app.tree, queue_tree_entry(c->srv->app.tree, (uint64_t)l.keys[0].id));
    rc = l.npage ? store_ledger_foreach_live(st, blist_rows_cb, &l) : 0;
    if (rc)
        goto fail;
    struct json_object *out = json_object_new_object();
    struct json_object *items = json_object_new_array_ext((int)l.npage);
    if (!out || !items) {
        json_object_put(out);
        json_object_put(items);
        rc = MUSTER_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < l.npage; i++) {
        /* A row cannot vanish between the walks (both run in this call), so every slot is
         * filled; skip rather than send null if that ever changes. */
        if (l.objs[i] && !json_object_array_add(items, l.objs[i]))
            l.objs[i] = NULL;
    }
    char next[96];
    const char *cont_out = NULL;
    if (l.n > limit) {
        const struct bkey *k = &l.keys[limit - 1];
        snprintf(next, sizeof(next), "%" PRId64 ".%" PRId64 ".%" PRId64 ".%" PRId64, k->section,
                 k->prio, k->created, k->id);
        cont_out = next;
    }
    json_object_object_add(out, "items", items);
    list_metadata(out, cont_out);
    blist_close(&l);
    send_json(c->req, 200, out);
    return;
fail:
    blist_close(&l);
    if (rc == MUSTER_ENOMEM)
        send_json(c->req, 500, NULL);
    else
        send_fail(c->req, 500, "StoreError", "reading the ledger: %s", store_errmsg(st));
}

struct bone {
    struct api_server *srv;
    struct json_object *history;
    struct json_object *top; /* the live row, else the newest finished one */
    int top_live;
    int bad;
};

static int history_cb(void *ud, const struct store_ledger_row *row)
{
    struct bone *b = ud;
    int live = 0;
    for (size_t i = 0; i < NBSTATES; i++)
        live |= strcmp(row->state, binding_states[i]) == 0;
    struct json_object *h = json_object_new_object();
    int bad = !h;
    if (h) {
        obj_add(h, "id", json_object_new_int64(row->id), &bad);
        obj_add(h, "state", json_object_new_string(row->state), &bad);
        obj_add(h, "queue", json_object_new_string(row->queue), &bad);
        if (row->reason && row->reason[0])
            obj_add(h, "reason", json_object_new_string(row->reason), &bad);
        obj_add(h, "createdAtMs", json_object_new_int64(row->created_at), &bad);
        if (row->admitted_at)
            obj_add(h, "admittedAtMs", json_object_new_int64(row->admitted_at), &bad);
        obj_add(h, "updatedAtMs", json_object_new_int64(row->updated_at), &bad);
        obj_add(h, "clusters", stored_json(row->clusters ? row->clusters : "[]"), &bad);
    }
    if (bad || json_object_array_add(b->history, h)) {
        json_object_put(h);
        return MUSTER_ENOMEM;
    }
    /* Rows come oldest first: a later finished row replaces an earlier one, never a live one. */
    if (b->top_live)
        return 0;
    uint64_t pos = 0;
    char reason[512] = "";
    if (live) {
        struct queue_entry *e = row_entry(b->srv, row);
        if (entry_pending(e) && strcmp(row->state, "pending") == 0)
            pos = queue_entry_position(b->srv->app.tree, e);
        binding_reason(b->srv, row, e, reason, sizeof(reason));
    } else {
        snprintf(reason, sizeof(reason), "%s", row->reason ? row->reason : "");
    }
    struct json_object *top = binding_json(b->srv, row, pos, reason);
    if (!top)
        return MUSTER_ENOMEM;
    json_object_put(b->top);
    b->top = top;
    b->top_live = live;
    return 0;
}

/* GET /api/v1/bindings/{namespace}/{name}: c->name holds "namespace/name". */
static void handle_binding_get(struct api_call *c)
{
    struct bone b = {.srv = c->srv, .history = json_object_new_array()};
    if (!b.history) {
        send_json(c->req, 500, NULL);
        return;
    }
    int rc = store_ledger_foreach_binding(c->srv->app.store, c->name, history_cb, &b);
    if (rc || !b.top) {
        json_object_put(b.history);
        json_object_put(b.top);
        if (rc == MUSTER_ENOMEM)
            send_json(c->req, 500, NULL);
        else if (rc)
            send_fail(c->req, 500, "StoreError", "reading the ledger: %s",
                      store_errmsg(c->srv->app.store));
        else
            send_fail(c->req, 404, "NotFound", "binding %s not found: muster has no record of it",
                      c->name);
        return;
    }
    if (json_object_object_add(b.top, "history", b.history)) {
        json_object_put(b.history);
        json_object_put(b.top);
        send_json(c->req, 500, NULL);
        return;
    }
    send_json(c->req, 200, b.top);
}

/* ---- clusters and chart counters ---- */

static int cluster_name_cmp(const void *pa, const void *pb)
{
    struct json_object *a = *(struct json_object *const *)pa, *b = *(struct json_object *const *)pb;
    struct json_object *na = NULL, *nb = NULL;
    json_object_object_get_ex(a, "name", &na);
    json_object_object_get_ex(b, "name", &nb);
    const char *x = na ? json_object_get_string(na) : "", *y = nb ? json_object_get_string(nb) : "";
    return strcmp(x ? x : "", y ? y : "");
}

static const char *cluster_name(struct json_object *c)
{
    struct json_object *n = NULL;
    json_object_object_get_ex(c, "name", &n);
    const char *v = n ? json_object_get_string(n) : NULL;
    return v ? v : "";
}

/* GET /api/v1/clusters: the dispatcher's array, sorted by name and paged like the queues (the
 * continue token is the last name of the previous page). */
static void handle_cluster_list(struct api_call *c)
{
    struct api_server *s = c->srv;
    if (!s->app.disp.clusters) {
        send_fail(c->req, 501, "NotImplemented",
                  "/api/v1/clusters needs the dispatcher, which is not running in this musterd");
        return;
    }
    size_t limit;
    char cont[API_QUERY_VALUE_MAX];
    if (limit_param(c->req, &limit)) {
        send_fail(c->req, 400, "BadRequest", "limit must be a positive integer");
        return;
    }
    int got = query_param(c->req, "continue", cont, sizeof(cont));
    if (got < 0) {
        send_fail(c->req, 400, "BadRequest", "continue token too long");
        return;
    }
    struct json_object *all = s->app.disp.clusters(s->app.disp.ud);
    struct json_object *out = json_object_new_object();
    struct json_object *items = json_object_new_array();
    if (!all || !json_object_is_type(all, json_type_array) || !out || !items) {
        json_object_put(all);
        json_object_put(out);
        json_object_put(items);
        send_json(c->req, 500, NULL);
        return;
    }
    json_object_array_sort(all, cluster_name_cmp);
    size_t n = json_object_array_length(all), i = 0;
    while (got && i < n && strcmp(cluster_name(json_object_array_get_idx(all, i)), cont) <= 0)
        i++;
    int bad = 0;
    size_t taken = 0;
    for (; !bad && i < n && taken < limit; i++, taken++) {
        struct json_object *x = json_object_array_get_idx(all, i);
        bad = json_object_array_add(items, json_object_get(x)) != 0;
        if (bad)
            json_object_put(x);
    }
    char last[API_QUERY_VALUE_MAX];
    snprintf(last, sizeof(last), "%s",
             i > 0 ? cluster_name(json_object_array_get_idx(all, i - 1)) : "");
    json_object_put(all);
    if (bad) {
        json_object_put(items);
        json_object_put(out);
        send_json(c->req, 500, NULL);
        return;
    }
    json_object_object_add(out, "items", items);
    list_metadata(out, i < n ? last : NULL);
    send_json(c->req, 200, out);
}

/* GET /api/v1/clusters/{name}: one cluster of the dispatcher's array (musterctl get cluster). */
static void handle_cluster_get(struct api_call *c)
{
    struct api_server *s = c->srv;
    if (!s->app.disp.clusters) {
        send_fail(c->req, 501, "NotImplemented",
                  "/api/v1/clusters needs the dispatcher, which is not running in this musterd");
        return;
    }
    struct json_object *all = s->app.disp.clusters(s->app.disp.ud), *hit = NULL;
    if (!all || !json_object_is_type(all, json_type_array)) {
        json_object_put(all);
        send_json(c->req, 500, NULL);
        return;
    }
    for (size_t i = 0; !hit && i < json_object_array_length(all); i++)
        if (strcmp(cluster_name(json_object_array_get_idx(all, i)), c->name) == 0)
            hit = json_object_get(json_object_array_get_idx(all, i));
    json_object_put(all);
    if (!hit) {
        send_fail(c->req, 404, "NotFound", "cluster %s not found", c->name);
        return;
    }
    send_json(c->req, 200, hit);
}

/* GET /api/v1/stats: the per-minute chart counters of the last hour. */
static void handle_stats(struct api_call *c)
{
    if (!c->srv->app.events) {
        send_fail(c->req, 501, "NotImplemented",
                  "/api/v1/stats needs the dispatcher, which is not running in this musterd");
        return;
    }
    send_json(c->req, 200, disp_events_stats_json(c->srv->app.events, now_ms(c->srv)));
}

/* ---- GET /api/v1/events: server-sent events ---- */

/* The caller's client key (reqguard.h): an IPv6 client by its /64. */
static int peer_key(h2o_req_t *req, unsigned char key[API_RATE_KEY_LEN])
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    socklen_t sl = req->conn->callbacks->get_peername(req->conn, (struct sockaddr *)&ss);
    return sl != 0 && api_guard_client_key((struct sockaddr *)&ss, key);
}

/* One open stream. It lives in the request's pool (h2o frees it with the request); while linked
 * it is in the server's list and subscribed to the feed. Bytes go out one h2o_send at a time:
 * what arrives meanwhile collects in pending, up to API_SSE_BUFFER_MAX. The shape follows the
 * simulated hub's watch streams (cluster-adapters/sim/server.c). */
struct api_stream {
    h2o_generator_t gen;
    struct kube_http_stream out; /* the response body, one send in flight at a time */
    struct api_server *srv;
    struct disp_events_sub sub;
    int linked;
    int catching_up; /* replaying the ring: bounded by the ring, so not by the buffer cap */
    const char *user; /* NULL: anonymous (no token file), capped by address only */
    unsigned char key[API_RATE_KEY_LEN];
    struct api_stream *prev, *next;
};

static void stream_unlink(struct api_stream *w)
{
    if (!w->linked)
        return;
    w->linked = 0;
    struct api_server *s = w->srv;
    disp_events_unsubscribe(s->app.events, &w->sub);
    if (w->prev)
        w->prev->next = w->next;
    else
        s->streams = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->prev = w->next = NULL;
    s->nstreams--;
}

static void stream_dispose(void *p)
{
    struct api_stream *w = p;
    stream_unlink(w);
    kube_http_stream_free(&w->out);
}

static void stream_before_final(struct kube_http_stream *out)
{
    stream_unlink(H2O_STRUCT_FROM_MEMBER(struct api_stream, out, out));
}

static void stream_flush(struct api_stream *w)
{
    kube_http_stream_flush(&w->out);
}

static void stream_proceed(h2o_generator_t *gen, h2o_req_t *req)
{
    struct api_stream *w = H2O_STRUCT_FROM_MEMBER(struct api_stream, gen, gen);
    w->out.sending = 0;
    stream_flush(w);
}

static void stream_stop(h2o_generator_t *gen, h2o_req_t *req)
{
    struct api_stream *w = H2O_STRUCT_FROM_MEMBER(struct api_stream, gen, gen);
    w->out.stopped = 1;
    stream_unlink(w);
}

/* Ends the stream once what is queued is sent. */
static void stream_end(struct api_stream *w)
{
    if (w->out.ending || w->out.stopped)
        return;
    w->out.ending = 1;
    stream_unlink(w);
    stream_flush(w);
}

static void stream_queue(struct api_stream *w, const char *bytes, size_t len)
{
    if (w->out.ending || w->out.stopped)
        return;
    /* Too slow (past the cap): cut, as kube-apiserver cuts a watcher that falls behind. The
     * browser reconnects with Last-Event-ID and gets the rest from the ring, or a reset. */
    struct kube_http_stream *o = &w->out;
    if (kube_http_stream_reserve(o, len, w->catching_up ? 0 : API_SSE_BUFFER_MAX)) {
        stream_end(w);
        return;
    }
    memcpy(o->pending + o->pending_len, bytes, len);
    o->pending_len += len;
    stream_flush(w);
}

static void stream_on_event(void *ud, const struct disp_event *e)
{
    stream_queue(ud, e->frame, e->frame_len);
}

/* An event: reset tells the client it missed events (its id fell out of the ring, or it comes
 * from another run of musterd) and must refetch what it shows; its id is the newest, so the
 * browser resumes from there. A first connection gets one too: the client's one path for
 * "load everything" is its reset handler. */
static void stream_reset(struct api_stream *w)
{
    char f[128];
    uint64_t last = disp_events_last_id(w->srv->app.events);
    int n = snprintf(f, sizeof(f),
                     "id: %" PRIu64 "\nevent: reset\ndata: {\"last\":%" PRIu64 "}\n\n", last, last);
    stream_queue(w, f, (size_t)n);
}

static void heartbeat_cb(uv_timer_t *t)
{
    struct api_server *s = t->data;
    struct api_stream *next;
    for (struct api_stream *w = s->streams; w; w = next) {
        next = w->next;
        stream_queue(w, H2O_STRLIT(": keep-alive\n\n"));
    }
}

/* The id to resume after: Last-Event-ID (the browser's own reconnect) before ?since= (a first
 * connection that already holds data). 1 with *after set, 0 none, -1 malformed since=. */
static int resume_id(h2o_req_t *req, uint64_t *after)
{
    char v[32];
    ssize_t i = h2o_find_header_by_str(&req->headers, H2O_STRLIT("last-event-id"), -1);
    int got;
    if (i >= 0) {
        h2o_iovec_t hv = req->headers.entries[i].value;
        if (hv.len == 0 || hv.len >= sizeof(v))
            return 0; /* the browser sends what it was given; anything else: start over */
        memcpy(v, hv.base, hv.len);
        v[hv.len] = '\0';
        got = 1;
    } else {
        got = query_param(req, "since", v, sizeof(v));
        if (got <= 0)
            return got;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v || *end || v[0] == '-')
        return i >= 0 ? 0 : -1;
    *after = n;
    return 1;
}

static void handle_events(struct api_call *c)
{
    struct api_server *s = c->srv;
    h2o_req_t *req = c->req;
    if (!s->app.events) {
        send_fail(req, 501, "NotImplemented",
                  "/api/v1/events needs the dispatcher, which is not running in this musterd");
        return;
    }
    if (s->closing) {
        send_fail(req, 503, "ServiceUnavailable", "musterd is shutting down");
        return;
    }
    if (s->nstreams >= API_SSE_STREAMS_MAX) {
        add_header(req, H2O_TOKEN_RETRY_AFTER, "5");
        send_fail(req, 503, "ServiceUnavailable",
                  "%d event streams are open, the most this server keeps; retry later",
                  API_SSE_STREAMS_MAX);
        return;
    }
    /* One user or one address must not take every slot: each has its own cap. Without a token
     * file everyone is the same anonymous user, so only the address counts then. */
    unsigned char key[API_RATE_KEY_LEN];
    int keyed = peer_key(req, key);
    const char *user = s->tokens ? c->user : NULL;
    size_t by_user = 0, by_addr = 0;
    for (struct api_stream *o = s->streams; o; o = o->next) {
        by_user += user && o->user && strcmp(o->user, user) == 0;
        by_addr += keyed && memcmp(o->key, key, sizeof(key)) == 0;
    }
    if (by_user >= API_SSE_STREAMS_PER_USER || by_addr >= API_SSE_STREAMS_PER_ADDR) {
        add_header(req, H2O_TOKEN_RETRY_AFTER, "5");
        send_fail(req, 503, "ServiceUnavailable",
                  "%d event streams are open for this %s, the most one may hold; close one or "
                  "retry later",
                  by_user >= API_SSE_STREAMS_PER_USER ? API_SSE_STREAMS_PER_USER
                                                      : API_SSE_STREAMS_PER_ADDR,
                  by_user >= API_SSE_STREAMS_PER_USER ? "user" : "address");
        return;
    }
    uint64_t after = 0;
    int has = resume_id(req, &after);
    if (has < 0) {
        send_fail(req, 400, "BadRequest", "since must be an event id (a decimal integer)");
        return;
    }
    struct api_stream *w = h2o_mem_alloc_shared(&req->pool, sizeof(*w), stream_dispose);
    memset(w, 0, sizeof(*w));
    /* the user string outlives the stream: a token file's, or the request pool's (a certificate
     * CN), which is the stream's own pool */
    w->user = user;
    if (keyed)
        memcpy(w->key, key, sizeof(key));
    w->gen.proceed = stream_proceed;
    w->gen.stop = stream_stop;
    w->out.req = req;
    w->out.before_final = stream_before_final;
    w->srv = s;
    w->sub.cb = stream_on_event;
    w->sub.ud = w;
    w->linked = 1;
    w->next = s->streams;
    if (s->streams)
        s->streams->prev = w;
    s->streams = w;
    s->nstreams++;
    req->res.status = 200;
    req->res.reason = "OK";
    add_header(req, H2O_TOKEN_CONTENT_TYPE, "text/event-stream; charset=utf-8");
    add_header(req, H2O_TOKEN_CACHE_CONTROL, "no-store");
    /* nginx and similar proxies would hold the stream back in their buffers otherwise. */
    h2o_add_header_by_str(&req->pool, &req->res.headers, H2O_STRLIT("x-accel-buffering"), 0, NULL,
                          H2O_STRLIT("no"));
    /* An HTTP/1.1 stream's connection closes with it, so a shutdown does not wait for the idle
     * timeout of a connection the browser will not reuse anyway. */
    req->http1_is_persistent = 0;
    h2o_start_response(req, &w->gen);
    w->catching_up = 1;
    char retry[32];
    int n = snprintf(retry, sizeof(retry), "retry: %d\n\n", API_SSE_RETRY_MS);
    stream_queue(w, retry, (size_t)n);
    if (!has || disp_events_since(s->app.events, after, stream_on_event, w) != 0)
        stream_reset(w);
    w->catching_up = 0;
    if (w->linked)
        disp_events_subscribe(s->app.events, &w->sub);
}

/* ---- the dashboard's files ---- */

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
        send_fail(req, 404, "NotFound", "no such dashboard file: %.64s", name);
        return;
    }
    add_header(req, H2O_TOKEN_CONTENT_TYPE, dashboard_type(f->name));
    add_header(req, H2O_TOKEN_ETAG, f->etag);
    /* Revalidate every time (a 304 is cheap): a new musterd may serve new files. */
    add_header(req, H2O_TOKEN_CACHE_CONTROL, "no-cache");
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

static void handle_dashboard_index(struct api_call *c)
{
    send_dashboard_file(c->req, "index.html");
}

static void handle_dashboard_file(struct api_call *c)
{
    send_dashboard_file(c->req, c->name);
}

/* ---- health and documents ---- */

static void handle_healthz(struct api_call *c)
{
    send_text(c->req, 200, "text/plain; charset=utf-8", H2O_STRLIT("ok\n"));
}

static void handle_readyz(struct api_call *c)
{
    if (c->srv->degraded) {
        send_text(c->req, 503, "text/plain; charset=utf-8",
                  H2O_STRLIT("not ready: the engine and the database disagree; restart\n"));
        return;
    }
    if (c->srv->app.disp.hub_synced && !c->srv->app.disp.hub_synced(c->srv->app.disp.ud)) {
        send_text(c->req, 503, "text/plain; charset=utf-8",
                  H2O_STRLIT("not ready: the hub is not listed and watched yet\n"));
        return;
    }
    /* Something missing or full keeps /readyz at 200, said line by line: the RB webhook
     * (failurePolicy Fail) must keep answering, and what does not need the missing piece
     * (known resource names, members that have the PodGroup CRD, Volcano Jobs) still works.
     * The log and the metrics carry the alarm too. */
    const char *missing =
        c->srv->app.disp.degraded ? c->srv->app.disp.degraded(c->srv->app.disp.ud) : NULL;
    const struct queue_resnames *names = queue_tree_resnames(c->srv->app.tree);
    int full = queue_resnames_refused(names) || queue_resnames_count(names) >= QUEUE_RESNAMES_MAX;
    if ((missing && *missing) || full) {
        char msg[320] = "";
        if (full)
            snprintf(msg, sizeof(msg),
                     "the resource name table is full (%u of %d names; %" PRIu64
                     " refused): new resource names are refused, in queue specs and in "
                     "cluster capacities, until a restart forgets the unused ones\n",
                     queue_resnames_count(names), QUEUE_RESNAMES_MAX,
                     queue_resnames_refused(names));
        h2o_iovec_t body = h2o_concat(&c->req->pool, h2o_iovec_init(H2O_STRLIT("ok, degraded:\n")),
                                      h2o_iovec_init(missing ? missing : "", missing ? strlen(missing) : 0),
                                      h2o_iovec_init(msg, strlen(msg)));
        send_text(c->req, 200, "text/plain; charset=utf-8", body.base, body.len);
        return;
    }
    send_text(c->req, 200, "text/plain; charset=utf-8", H2O_STRLIT("ok\n"));
}

/* The admission webhook: no token (the apiserver authenticates us by the certificate it was
 * given in caBundle, and the answer is a pure function of the request). Cleartext is refused
 * unless the test-only option asked for it: the apiserver calls webhooks over HTTPS only, so a
 * cleartext caller is never the apiserver. */
static void handle_webhook(struct api_call *c)
{
    struct api_server *s = c->srv;
    if (!s->ssl_ctx && !s->webhook_insecure) {
        send_fail(c->req, 404, "NotFound",
                  "the admission webhook is served over TLS only: start musterd with "
                  "--tls-cert-file and --tls-private-key-file");
        return;
    }
    json_object *out = NULL;
    enum disp_webhook_verdict v;
    char err[256];
    int rc =
        disp_webhook_review(c->req->entity.base, c->req->entity.len, &out, &v, err, sizeof(err));
    s->webhook_reviews[v < DISP_WEBHOOK_VERDICTS ? v : DISP_WEBHOOK_INVALID]++;
    if (rc == MUSTER_ENOMEM)
        send_json(c->req, 500, NULL);
    else if (rc)
        send_fail(c->req, rc == MUSTER_ELIMIT ? 413 : 400,
                  rc == MUSTER_ELIMIT ? "RequestEntityTooLarge" : "BadRequest",
                  "admission review: %s", err);
    else
        send_json(c->req, 200, out);
}

static void handle_openapi(struct api_call *c)
{
    send_text(c->req, 200, "application/json", schema_openapi_json, schema_openapi_json_len);
}

/* ---- metrics (Prometheus text exposition format 0.0.4; docs/metrics.md) ---- */

/* A queue and its live status, gathered once per scrape. */
struct mqueue {
    const struct queue_node *q;
    struct queue_status st;
};

struct mwalk {
    struct mqueue *qs;
    size_t n, cap;
    const struct queue_tree *t;
};

static int metrics_walk_cb(void *ud, const struct queue_node *q)
{
    struct mwalk *w = ud;
    if (w->n == w->cap)
        return MUSTER_ELIMIT; /* the tree grew under us: never, the walk is on our thread */
    struct mqueue *m = &w->qs[w->n];
    memset(m, 0, sizeof(*m));
    m->q = q;
    int rc = queue_node_status(w->t, q, &m->st);
    if (rc)
        return rc;
    w->n++;
    return 0;
}

/* One family of per-queue, per-resource gauges; which picks the vector. */
enum mvec { MV_ALLOCATED, MV_GUARANTEE, MV_DESERVED, MV_CAPABILITY };

static void metrics_resvecs(struct disp_metrics_text *b, const struct mwalk *w,
                            const struct queue_resnames *rn, enum mvec which, const char *name,
                            const char *help)
{
    disp_metrics_text_family(b, name, "gauge", help);
    for (size_t i = 0; i < w->n; i++) {
        const struct queue_spec *sp = queue_node_spec(w->qs[i].q);
        const struct queue_resvec *v = which == MV_ALLOCATED   ? &w->qs[i].st.allocated
                                       : which == MV_GUARANTEE ? &sp->guarantee
                                       : which == MV_DESERVED  ? &sp->deserved
                                                               : &sp->capability;
        for (uint32_t k = 0; k < v->len; k++) {
            disp_metrics_text_printf(b, "%s{queue=\"", name);
            disp_metrics_text_label(b, queue_node_name(w->qs[i].q));
            disp_metrics_text_printf(b, "\",resource=\"");
            disp_metrics_text_label(b, queue_resnames_name(rn, v->items[k].id));
            disp_metrics_text_printf(b, "\"} ");
            disp_metrics_text_milli(b, v->items[k].milli);
        }
    }
}

static void metrics_counts(struct disp_metrics_text *b, const struct mwalk *w, int what,
                           const char *name, const char *type, const char *help)
{
    disp_metrics_text_family(b, name, type, help);
    for (size_t i = 0; i < w->n; i++) {
        disp_metrics_text_printf(b, "%s{queue=\"", name);
        disp_metrics_text_label(b, queue_node_name(w->qs[i].q));
        if (what == 0)
            disp_metrics_text_printf(b, "\"} %" PRIu64 "\n", w->qs[i].st.pending);
        else if (what == 1)
            disp_metrics_text_printf(b, "\"} %" PRIu64 "\n", w->qs[i].st.admitted);
        else {
            disp_metrics_text_printf(b, "\"} ");
            disp_metrics_text_double(b, w->qs[i].st.share); /* +Inf when deserved is 0 */
            disp_metrics_text_printf(b, "\n");
        }
    }
}

static void handle_metrics(struct api_call *c)
{
    struct api_server *s = c->srv;
    struct mwalk w = {NULL, 0, queue_tree_count(s->app.tree), s->app.tree};
    struct disp_metrics_text b = {0};
    w.qs = muster_calloc(w.cap ? w.cap : 1, sizeof(*w.qs));
    int rc = w.qs ? queue_tree_walk(s->app.tree, metrics_walk_cb, &w) : MUSTER_ENOMEM;
    if (!rc) {
        const struct queue_resnames *rn = queue_tree_resnames(s->app.tree);
        metrics_resvecs(&b, &w, rn, MV_ALLOCATED, "muster_queue_allocated",
                        "Admitted usage of the queue's subtree, per resource (cores, bytes, "
                        "units).");
        metrics_resvecs(&b, &w, rn, MV_GUARANTEE, "muster_queue_guarantee",
                        "Capacity guaranteed to the queue, per resource.");
        metrics_resvecs(&b, &w, rn, MV_DESERVED, "muster_queue_deserved",
                        "The queue's fair share target, per resource.");
        metrics_resvecs(&b, &w, rn, MV_CAPABILITY, "muster_queue_capability",
                        "The queue's hard limit, per resource; absent when unlimited.");
        metrics_counts(&b, &w, 0, "muster_queue_pending", "gauge",
                       "Workloads waiting in the queue's subtree.");
        metrics_counts(&b, &w, 1, "muster_queue_admitted", "gauge",
                       "Workloads admitted in the queue's subtree.");
        metrics_counts(&b, &w, 2, "muster_queue_share", "gauge",
                       "Weighted dominant share of deserved (fair order: lowest first).");
        disp_metrics_text_family(
            &b, "muster_api_requests_total", "counter",
            "Admin API requests answered, by method, route template and status code.");
        for (size_t i = 0; i < s->nreqs; i++)
            disp_metrics_text_printf(
                &b,
                "muster_api_requests_total{method=\"%s\",route=\"%s\",code=\"%d\"} "
                "%" PRIu64 "\n",
                s->reqs[i].method, s->reqs[i].route, s->reqs[i].code, s->reqs[i].n);
        disp_metrics_text_family(
            &b, "muster_api_requests_dropped_series_total", "counter",
            "Requests not counted by series because the series table was full.");
        disp_metrics_text_printf(&b, "muster_api_requests_dropped_series_total %" PRIu64 "\n",
                                 s->reqs_dropped);
        disp_metrics_text_family(&b, "muster_audit_writes_total", "counter",
                                 "Changes committed to the store with their audit row, by action.");
        for (size_t i = 0; i < NACTIONS; i++)
            disp_metrics_text_printf(&b, "muster_audit_writes_total{action=\"%s\"} %" PRIu64 "\n",
                                     audit_actions[i], s->audit_writes[i]);
        disp_metrics_text_family(
            &b, "muster_webhook_reviews_total", "counter",
            "AdmissionReviews answered by the ResourceBinding webhook, by result.");
        for (int i = 0; i < DISP_WEBHOOK_VERDICTS; i++)
            disp_metrics_text_printf(
                &b, "muster_webhook_reviews_total{result=\"%s\"} %" PRIu64 "\n",
                disp_webhook_verdict_name((enum disp_webhook_verdict)i), s->webhook_reviews[i]);
        disp_metrics_text_family(&b, "muster_resource_names", "gauge",
                                 "Distinct resource names known (queue specs, clusters, "
                                 "workloads); at muster_resource_names_max new ones are refused.");
        disp_metrics_text_printf(&b, "muster_resource_names %u\n", queue_resnames_count(rn));
        disp_metrics_text_family(&b, "muster_resource_names_max", "gauge",
                                 "The most distinct resource names muster holds.");
        disp_metrics_text_printf(&b, "muster_resource_names_max %d\n", QUEUE_RESNAMES_MAX);
        disp_metrics_text_family(&b, "muster_resource_names_refused_total", "counter",
                                 "New resource names refused because the table was full.");
        disp_metrics_text_printf(&b, "muster_resource_names_refused_total %" PRIu64 "\n",
                                 queue_resnames_refused(rn));
        /* The dispatcher's own families follow the queue gauges (docs/metrics.md). */
        if (s->app.metrics && !b.bad &&
            disp_metrics_render(s->app.metrics, &b.p, &b.len, &b.cap) != 0)
            b.bad = 1;
    }
    for (size_t i = 0; i < w.n; i++)
        queue_status_close(&w.qs[i].st);
    muster_free(w.qs);
    if (rc || b.bad)
        send_json(c->req, 500, NULL);
    else
        send_text(c->req, 200, "text/plain; version=0.0.4; charset=utf-8", b.p, b.len);
    muster_free(b.p);
}

/* ---- routing ---- */

/* PATCH is open to operators; the handler narrows them to the state field. */
static const struct api_route_info route_info[] = {
    {"GET", "/healthz", API_ROLE_NONE},
    {"GET", "/readyz", API_ROLE_NONE},
    {"GET", "/metrics", API_ROLE_NONE},
    {"GET", "/openapi.json", API_ROLE_VIEWER},
    {"GET", "/api/v1/queues", API_ROLE_VIEWER},
    {"POST", "/api/v1/queues", API_ROLE_ADMIN},
    {"GET", "/api/v1/queues/{name}", API_ROLE_VIEWER},
    {"PUT", "/api/v1/queues/{name}", API_ROLE_ADMIN},
    {"PATCH", "/api/v1/queues/{name}", API_ROLE_OPERATOR},
    {"DELETE", "/api/v1/queues/{name}", API_ROLE_ADMIN},
    {"GET", "/api/v1/audit", API_ROLE_ADMIN},
    {"GET", "/api/v1/bindings", API_ROLE_VIEWER},
    {"GET", "/api/v1/bindings/{namespace}/{name}", API_ROLE_VIEWER},
    {"GET", "/api/v1/clusters", API_ROLE_VIEWER},
    {"GET", "/api/v1/clusters/{name}", API_ROLE_VIEWER},
    {"GET", "/api/v1/events", API_ROLE_VIEWER},
    {"GET", "/api/v1/stats", API_ROLE_VIEWER},
    /* The dashboard's files carry no data: the page asks for a token before it calls the API. */
    {"GET", "/", API_ROLE_NONE},
    {"GET", "/dashboard/{file}", API_ROLE_NONE},
    {"POST", DISP_WEBHOOK_PATH, API_ROLE_NONE},
};
#define NROUTES (sizeof(route_info) / sizeof(route_info[0]))

/* The handler of route_info[i], in the same order. */
static void (*const route_fn[])(struct api_call *c) = {
    handle_healthz,     handle_readyz,          handle_metrics,        handle_openapi,
    handle_queue_list,  handle_queue_create,    handle_queue_get,      handle_queue_replace,
    handle_queue_patch, handle_queue_delete,    handle_audit_list,     handle_binding_list,
    handle_binding_get, handle_cluster_list,    handle_cluster_get,    handle_events,
    handle_stats,       handle_dashboard_index, handle_dashboard_file, handle_webhook,
};
_Static_assert(sizeof(route_fn) / sizeof(route_fn[0]) == NROUTES, "one handler per route");

const struct api_route_info *api_routes(size_t *n)
{
    *n = NROUTES;
    return route_info;
}

/* Matches path against a template. Each "{...}" takes one non-empty segment of at most
 * QUEUE_NAME_MAX bytes; the segments taken are joined with '/' into name ("ns/job" for
 * /api/v1/bindings/{namespace}/{name}). name is written only on a match. -1 when a segment
 * decoded to a control byte: h2o decodes %00 into the path, and a name cut short at a NUL
 * would be validated as one queue and used as another. */
static int path_match(const char *tmpl, h2o_iovec_t path, char *name, size_t namecap)
{
    char got[API_PATH_NAME_MAX + 1];
    size_t nlen = 0;
    const char *p = path.base, *pend = path.base + path.len;
    for (;;) {
        const char *brace = strchr(tmpl, '{');
        size_t lit = brace ? (size_t)(brace - tmpl) : strlen(tmpl);
        if ((size_t)(pend - p) < lit || memcmp(p, tmpl, lit) != 0)
            return 0;
        p += lit;
        if (!brace)
            break;
        tmpl = strchr(brace, '}') + 1;
        const char *seg = p;
        while (p < pend && *p != '/')
            p++;
        size_t sl = (size_t)(p - seg);
        if (!sl || sl > QUEUE_NAME_MAX || nlen + 1 + sl > API_PATH_NAME_MAX)
            return 0;
        if (!api_guard_path_segment(seg, sl))
            return -1;
        if (nlen)
            got[nlen++] = '/';
        memcpy(got + nlen, seg, sl);
        nlen += sl;
    }
    if (p != pend || nlen >= namecap)
        return 0;
    memcpy(name, got, nlen);
    name[nlen] = '\0';
    return 1;
}

/* h2o 2.2 has no accessor for a socket's SSL, and the peer certificate is only there. Its private
 * struct st_h2o_socket_ssl_t begins with these two members; the build is pinned to 2.2 so a
 * layout change fails here rather than in a request. */
#if H2O_VERSION_MAJOR != 2 || H2O_VERSION_MINOR != 2
#error "api.c reads the SSL of an h2o 2.2 socket: check struct st_h2o_socket_ssl_t"
#endif
struct api_h2o_ssl_head {
    SSL_CTX *ssl_ctx;
    SSL *ossl;
};

/* The subject CN of the verified client certificate into cn: 1 found, 0 no certificate (or
 * none usable: a CN that is empty, too long or holds a NUL is no identity). */
static int client_cn(h2o_req_t *req, char *cn, size_t cap)
{
    h2o_socket_t *sock = req->conn->callbacks->get_socket(req->conn);
    if (!sock || !sock->ssl)
        return 0;
    SSL *ssl = ((struct api_h2o_ssl_head *)(void *)sock->ssl)->ossl;
    if (!ssl)
        return 0;
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    X509 *x = SSL_get1_peer_certificate(ssl);
#else
    X509 *x = SSL_get_peer_certificate(ssl);
#endif
    if (!x)
        return 0;
    /* SSL_VERIFY_PEER already ended the handshake of a bad certificate; this is a second
     * look, so a change of verify mode can never let one through. */
    int n = SSL_get_verify_result(ssl) == X509_V_OK
                ? X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, (int)cap)
                : -1;
    X509_free(x);
    return n > 0 && (size_t)n < cap && strlen(cn) == (size_t)n;
}

/* The caller's identity: a verified client certificate's CN (role from the token file's user
 * column, none when unlisted), else the Authorization header. Every stored hash is compared,
 * in constant time, so timing says nothing about which token (or how much of one) matched. */
static int authenticate(struct api_server *s, h2o_req_t *req, int query_ok, const char **user,
                        enum api_role *role)
{
    if (s->client_certs) {
        char cn[API_CERT_CN_MAX + 1];
        if (client_cn(req, cn, sizeof(cn))) {
            *role = API_ROLE_NONE; /* authenticated, but no role unless the file grants one */
            *user = NULL;
            for (size_t k = 0; k < s->ntokens && !*user; k++) {
                if (strcmp(s->tokens[k].user, cn) == 0) {
                    *user = s->tokens[k].user;
                    *role = s->tokens[k].role;
                }
            }
            if (!*user)
                *user = h2o_strdup(&req->pool, cn, SIZE_MAX).base;
            return 0;
        }
    }
    if (!s->tokens) {
        *user = API_ANONYMOUS;
        *role = API_ROLE_ADMIN;
        return 0;
    }
    ssize_t i = h2o_find_header(&req->headers, H2O_TOKEN_AUTHORIZATION, -1);
    const char *tok;
    size_t len;
    char qtok[API_TOKEN_MAX + 1];
    if (i < 0) {
        if (!query_ok || query_param(req, "access_token", qtok, sizeof(qtok)) != 1 ||
            !url_unescape(qtok))
            return MUSTER_EUNAUTHORIZED;
        tok = qtok;
        len = strlen(qtok);
    } else {
        h2o_iovec_t v = req->headers.entries[i].value;
        if (v.len < 7 || !h2o_lcstris(v.base, 7, H2O_STRLIT("bearer ")))
            return MUSTER_EUNAUTHORIZED;
        tok = v.base + 7;
        len = v.len - 7;
    }
    /* Spaces and tabs around the token are not part of it, on either side (RFC 9110's OWS;
     * the token file's fields are trimmed the same way). */
    trim(&tok, &len);
    if (!len || len > API_TOKEN_MAX)
        return MUSTER_EUNAUTHORIZED;
    unsigned char h[API_SHA256_LEN];
    if (sha256(tok, len, h))
        return MUSTER_EUNAUTHORIZED;
    const struct api_token *found = NULL;
    for (size_t k = 0; k < s->ntokens; k++) {
        int same = CRYPTO_memcmp(h, s->tokens[k].hash, API_SHA256_LEN) == 0;
        if (same && !found && !s->tokens[k].cert_only)
            found = &s->tokens[k];
    }
    OPENSSL_cleanse(h, sizeof(h));
    OPENSSL_cleanse(qtok, sizeof(qtok));
    if (!found)
        return MUSTER_EUNAUTHORIZED;
    *user = found->user;
    *role = found->role;
    return 0;
}

static void send_unauthorized(h2o_req_t *req)
{
    add_header(req, H2O_TOKEN_WWW_AUTHENTICATE, "Bearer realm=\"muster\"");
    send_fail(req, 401, "Unauthorized",
              "send a valid token: Authorization: Bearer <token> (see --token-auth-file)");
}

/* Takes a token from the bucket of the caller's address: 0, or 1 when it is empty and
 * *retry_s says when the next token comes. Buckets live in a fixed table; a new address takes
 * a free slot or the longest idle one (whose bucket has refilled the longest, so forgetting
 * it loses the least). */
static int rate_take(struct api_server *s, h2o_req_t *req, uint64_t *retry_s)
{
    unsigned char key[API_RATE_KEY_LEN];
    if (!peer_key(req, key))
        return 0; /* no address to key on (never for TCP) */
    uint64_t now = uv_now(s->ctx.loop);
    struct api_bucket *b = NULL, *spare = NULL;
    for (size_t i = 0; i < API_RATE_CLIENTS_MAX && !b; i++) {
        struct api_bucket *x = &s->buckets[i];
        if (x->used && memcmp(x->key, key, sizeof(key)) == 0)
            b = x;
        else if (!spare || (spare->used && (!x->used || x->at_ms < spare->at_ms)))
            spare = x;
    }
    if (!b) {
        b = spare;
        memcpy(b->key, key, sizeof(key));
        b->used = 1;
        b->tokens = s->rate_burst;
        b->at_ms = now;
    }
    b->tokens += (double)(now - b->at_ms) * s->rate_per_s / 1000.0;
    if (b->tokens > s->rate_burst)
        b->tokens = s->rate_burst;
    b->at_ms = now;
    if (b->tokens >= 1.0) {
        b->tokens -= 1.0;
        return 0;
    }
    double wait = (1.0 - b->tokens) / s->rate_per_s;
    *retry_s = (uint64_t)wait + ((double)(uint64_t)wait < wait ? 1 : 0);
    if (*retry_s < 1)
        *retry_s = 1;
    return 1;
}

/* Counts one answered request in muster_api_requests_total. */
static void count_request(struct api_server *s, const char *route, h2o_req_t *req)
{
    static const char *const methods[] = {"GET",   "HEAD",   "POST",   "PUT",
                                          "PATCH", "DELETE", "OPTIONS"};
    const char *method = "other"; /* a client's own word never becomes a label */
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
        if (h2o_memis(req->method.base, req->method.len, methods[i], strlen(methods[i])))
            method = methods[i];
    int code = req->res.status;
    for (size_t i = 0; i < s->nreqs; i++) {
        struct api_req_series *x = &s->reqs[i];
        /* strcmp: equal templates of different routes may be different literals. */
        if (x->code == code && x->method == method && strcmp(x->route, route) == 0) {
            x->n++;
            return;
        }
    }
    if (s->nreqs == API_REQ_SERIES_MAX) {
        s->reqs_dropped++;
        return;
    }
    s->reqs[s->nreqs++] = (struct api_req_series){route, method, code, 1};
}

/* Answers req; *route gets the route template (static storage) it was counted under. */
static void serve(struct api_server *s, h2o_req_t *req, const char **route)
{
    /* Every answer, errors included (a 404 echoes the path): no browser may sniff a type. */
    h2o_add_header_by_str(&req->pool, &req->res.headers, H2O_STRLIT("x-content-type-options"), 0,
                          NULL, H2O_STRLIT("nosniff"));
    struct api_call c = {.srv = s, .req = req};
    h2o_iovec_t path = req->path_normalized;
    size_t hbytes = req->path.len;
    for (size_t i = 0; i < req->headers.size; i++)
        hbytes += req->headers.entries[i].name->len + req->headers.entries[i].value.len;
    if (hbytes > API_HEADERS_MAX) {
        send_fail(req, 431, "RequestHeaderFieldsTooLarge",
                  "request headers and path are %zu bytes, above the limit of %d", hbytes,
                  API_HEADERS_MAX);
        return;
    }
    struct api_error ge = {0};
    int write = h2o_memis(req->method.base, req->method.len, H2O_STRLIT("POST")) ||
                h2o_memis(req->method.base, req->method.len, H2O_STRLIT("PUT")) ||
                h2o_memis(req->method.base, req->method.len, H2O_STRLIT("PATCH")) ||
                h2o_memis(req->method.base, req->method.len, H2O_STRLIT("DELETE"));
    if (api_guard_check(&s->guard, req, write, &ge)) {
        send_error(req, &ge);
        return;
    }
    size_t hit = NROUTES;
    int path_known = 0, any_auth = 0;
    char allow[64] = "";
    size_t allow_len = 0;
    for (size_t i = 0; i < NROUTES; i++) {
        int m = path_match(route_info[i].path, path, c.name, sizeof(c.name));
        if (m < 0) {
            send_fail(req, 400, "BadRequest",
                      "a path segment holds a control character (such as an escaped NUL, %%00); "
                      "names never do");
            return;
        }
        if (!m)
            continue;
        path_known = 1;
        *route = route_info[i].path;
        any_auth |= route_info[i].role != API_ROLE_NONE;
        int n = snprintf(allow + allow_len, sizeof(allow) - allow_len, "%s%s",
                         allow_len ? ", " : "", route_info[i].method);
        if (n > 0 && (size_t)n < sizeof(allow) - allow_len)
            allow_len += (size_t)n;
        if (h2o_memis(req->method.base, req->method.len, route_info[i].method,
                      strlen(route_info[i].method)))
            hit = i;
    }
    /* Probes are exempt: a busy client must not get the pod restarted. So is the webhook: the
     * apiserver calls it from a few addresses for every RB created, thousands a second at
     * peak, and a 429 there would fail RB creation (failurePolicy: Fail). */
    uint64_t retry_s = 0;
    if (strcmp(*route, "/healthz") != 0 && strcmp(*route, "/readyz") != 0 &&
        strcmp(*route, DISP_WEBHOOK_PATH) != 0 && rate_take(s, req, &retry_s)) {
        char ra[24];
        snprintf(ra, sizeof(ra), "%" PRIu64, retry_s);
        add_header(req, H2O_TOKEN_RETRY_AFTER, ra);
        send_fail(req, 429, "TooManyRequests",
                  "more than %.0f requests per second (burst %.0f) from this address; retry in "
                  "%" PRIu64 " s",
                  s->rate_per_s, s->rate_burst, retry_s);
        return;
    }
    if (!path_known) {
        send_fail(req, 404, "NotFound", "no such path: %.*s",
                  (int)(path.len > 200 ? 200 : path.len), path.base);
        return;
    }
    /* Authentication comes before 405 and 403, so an anonymous caller learns nothing. */
    if (any_auth) {
        /* EventSource cannot send headers: the event stream alone also takes the token as
         * ?access_token= (docs/decisions.md). */
        int query_ok = strcmp(*route, "/api/v1/events") == 0;
        if (authenticate(s, req, query_ok, &c.user, &c.role)) {
            send_unauthorized(req);
            return;
        }
    }
    if (hit == NROUTES) {
        add_header(req, H2O_TOKEN_ALLOW, allow);
        send_fail(req, 405, "MethodNotAllowed", "%.*s is not allowed here; allowed: %s",
                  (int)(req->method.len > 16 ? 16 : req->method.len), req->method.base, allow);
        return;
    }
    if (route_info[hit].role != API_ROLE_NONE && c.role < route_info[hit].role) {
        send_fail(req, 403, "Forbidden", "user %s (role %s) may not %s %s; it needs the %s role",
                  c.user, role_name(c.role), route_info[hit].method, route_info[hit].path,
                  role_name(route_info[hit].role));
        return;
    }
    if (!c.user)
        c.user = API_ANONYMOUS;
    /* A follower serves reads; only the leader changes anything (its engine is the one that
     * dispatches, and two writers would fork the ledger). */
    if (!h2o_memis(req->method.base, req->method.len, H2O_STRLIT("GET")) &&
        route_info[hit].role > API_ROLE_VIEWER && s->app.disp.leading &&
        !s->app.disp.leading(s->app.disp.ud)) {
        add_header(req, H2O_TOKEN_RETRY_AFTER, "5");
        send_fail(req, 503, "NotLeader",
                  "this musterd is a follower: send changes to the leader (it holds the "
                  "Lease); nothing was changed");
        return;
    }
    route_fn[hit](&c);
}

static int on_req(h2o_handler_t *self, h2o_req_t *req)
{
    struct api_server *s = ((struct api_handler *)self)->srv;
    const char *route = "other";
    serve(s, req, &route);
    count_request(s, route, req);
    return 0;
}

/* ---- listening and closing ---- */

static void server_free_early(struct api_server *s);

static void maybe_finish(struct api_server *s);

static void on_deadline_closed(uv_handle_t *h)
{
    struct api_server *s = h->data;
    s->deadline_live = 0;
    maybe_finish(s);
}

static void maybe_finish(struct api_server *s)
{
    if (!s->closing || !s->listener_closed || s->nconns || s->heartbeat_live)
        return;
    if (s->deadline_live) {
        if (!uv_is_closing((uv_handle_t *)&s->deadline))
            uv_close((uv_handle_t *)&s->deadline, on_deadline_closed);
        return;
    }
    /* h2o's graceful shutdown re-sends GOAWAY after a second from an entry of its one-second
     * timeout; with every connection gone sooner the entry is still linked, and disposing a
     * timeout with a linked entry asserts. */
    if (h2o_timeout_is_linked(&s->ctx.http2._graceful_shutdown_timeout))
        h2o_timeout_unlink(&s->ctx.http2._graceful_shutdown_timeout);
    /* h2o's own timers and async handle close here; they free themselves and never point back
     * at s, so s can go right after. */
    h2o_context_dispose(&s->ctx);
    h2o_config_dispose(&s->config);
    void (*cb)(void *) = s->close_cb;
    void *ud = s->close_ud;
    server_free_early(s);
    if (cb)
        cb(ud);
}

static void conn_link(struct api_server *s, struct api_conn *conn)
{
    conn->prev = NULL;
    conn->next = s->conns;
    if (s->conns)
        s->conns->prev = conn;
    s->conns = conn;
}

static void on_conn_closed(uv_handle_t *h)
{
    struct api_conn *conn = (struct api_conn *)h;
    struct api_server *s = conn->srv;
    if (conn->prev)
        conn->prev->next = conn->next;
    else
        s->conns = conn->next;
    if (conn->next)
        conn->next->prev = conn->prev;
    muster_free(conn);
    s->nconns--;
    maybe_finish(s);
}

static void on_reserve_closed(uv_handle_t *h)
{
    struct api_server *s = ((struct api_conn *)h)->srv;
    s->reserve_busy = 0;
    s->nconns--;
    maybe_finish(s);
}

static void on_accept(uv_stream_t *l, int status)
{
    struct api_server *s = l->data;
    if (status != 0 || s->closing)
        return;
    struct api_conn *conn = muster_calloc(1, sizeof(*conn));
    if (!conn) {
        /* libuv stops watching the listener until this connection is accepted, so it must be
         * taken even now: into the reserve, and dropped at once. */
        if (s->reserve_busy || uv_tcp_init(l->loop, &s->reserve.tcp))
            return;
        s->reserve_busy = 1;
        s->nconns++;
        uv_accept(l, (uv_stream_t *)&s->reserve.tcp);
        uv_close((uv_handle_t *)&s->reserve.tcp, on_reserve_closed);
        return;
    }
    conn->srv = s;
    if (uv_tcp_init(l->loop, &conn->tcp)) {
        muster_free(conn);
        return;
    }
    s->nconns++;
    conn_link(s, conn);
    /* Past the drain deadline the listener may still be open (musterd closes the API after the
     * dispatcher has stopped): a new connection would not be cut again, so it is closed now. */
    if (uv_accept(l, (uv_stream_t *)&conn->tcp) || s->cut) {
        uv_close((uv_handle_t *)&conn->tcp, on_conn_closed);
        return;
    }
    h2o_socket_t *sock = h2o_uv_socket_create((uv_stream_t *)&conn->tcp, on_conn_closed);
    if (!sock) {
        uv_close((uv_handle_t *)&conn->tcp, on_conn_closed);
        return;
    }
    h2o_accept(&s->accept, sock);
}

static int is_loopback(const struct sockaddr_storage *a)
{
    if (a->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
    if (a->ss_family == AF_INET6) {
        const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(x);
    }
    return 0;
}

static void on_listener_closed(uv_handle_t *h);

/* "what path: OpenSSL's reason"; never a key's bytes (OpenSSL's messages do not carry them). */
/* The server's SSL_CTX from opt: TLS 1.2 or later, ALPN offering h2 then http/1.1, and the
 * client CA when given. Client certificates are verified when presented, not required: token
 * clients, probes and Prometheus keep working without one (kube-apiserver does the same). */
static int tls_setup(struct api_server *s, const struct api_options *opt, char *err, size_t errcap)
{
    struct kube_tls_server_opts o = {opt->tls_cert_file,       opt->tls_private_key_file,
                                     opt->client_ca_file,      0,
                                     "api: --tls-cert-file",   "api: --tls-private-key-file",
                                     "api: --client-ca-file"};
    int rc = kube_tls_server_ctx(&o, &s->ssl_ctx, err, errcap);
    if (!rc && opt->client_ca_file)
        s->client_certs = 1;
    return rc;
}

/* Everything api_server_start allocated before h2o was set up. */
static void server_free_early(struct api_server *s)
{
    for (size_t i = 0; i < s->nrows; i++)
        qrow_close(&s->rows[i]);
    muster_free(s->rows);
    tokens_free(s->tokens, s->ntokens);
    SSL_CTX_free(s->ssl_ctx);
    muster_free(s);
}

int api_server_start(uv_loop_t *loop, const struct api_options *opt, struct api_ctx *ctx,
                     struct api_server **out, char *err, size_t errcap)
{
    char scratch[1];
    if (!err || !errcap) {
        err = scratch;
        errcap = sizeof(scratch);
    }
    err[0] = '\0';
    *out = NULL;
    if (!loop || !opt || !ctx || !ctx->store || !ctx->tree) {
        snprintf(err, errcap, "api: missing loop, options, store or tree");
        return MUSTER_EINVAL;
    }
    const char *host = opt->host ? opt->host : "127.0.0.1";
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof(addr));
    if (opt->port < 0 || opt->port > 65535 ||
        (uv_ip4_addr(host, opt->port, (struct sockaddr_in *)&addr) != 0 &&
         uv_ip6_addr(host, opt->port, (struct sockaddr_in6 *)&addr) != 0)) {
        snprintf(err, errcap,
                 "api: listen address %.64s port %d: not a numeric IP address and "
                 "port",
                 host, opt->port);
        return MUSTER_ECONFIG;
    }
    if (!opt->tls_cert_file != !opt->tls_private_key_file) {
        snprintf(err, errcap,
                 "api: --tls-cert-file and --tls-private-key-file go together; %s "
                 "is missing",
                 opt->tls_cert_file ? "--tls-private-key-file" : "--tls-cert-file");
        return MUSTER_ECONFIG;
    }
    if (opt->client_ca_file && (!opt->tls_cert_file || !opt->token_file)) {
        snprintf(err, errcap,
                 "api: --client-ca-file needs %s: client certificates are checked "
                 "during the TLS handshake and their users' roles come from the token file",
                 !opt->tls_cert_file ? "--tls-cert-file" : "--token-auth-file");
        return MUSTER_ECONFIG;
    }
    if (!opt->token_file && !is_loopback(&addr)) {
        snprintf(err, errcap,
                 "api: refusing to listen on %.64s without --token-auth-file: "
                 "without tokens the admin API is served on loopback only",
                 host);
        return MUSTER_ECONFIG;
    }
    /* A write to a client that went away (an event stream's most of all) raises SIGPIPE, whose
     * default ends the process; libuv writes with writev, which cannot ask for MSG_NOSIGNAL.
     * h2o's own server ignores it in main(); a host that chose a handler keeps it. */
    struct sigaction old_pipe;
    if (sigaction(SIGPIPE, NULL, &old_pipe) == 0 && old_pipe.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
    struct api_server *s = muster_calloc(1, sizeof(*s));
    if (!s)
        return MUSTER_ENOMEM;
    s->app = *ctx;
    s->reserve.srv = s;
    s->rate_per_s = opt->rate_per_s ? opt->rate_per_s : API_RATE_PER_S_DEFAULT;
    s->rate_burst = opt->rate_burst ? opt->rate_burst : API_RATE_BURST_DEFAULT;
    s->webhook_insecure = opt->webhook_insecure;
    int rc = 0;
    if (opt->token_file)
        rc = tokens_load(opt->token_file, &s->tokens, &s->ntokens, err, errcap);
    if (!rc) {
        rc = store_queue_foreach(ctx->store, load_row_cb, s);
        if (rc && rc != MUSTER_ENOMEM) {
            snprintf(err, errcap, "api: reading the queues: %s", store_errmsg(ctx->store));
            rc = MUSTER_ESTORE;
        }
    }
    if (!rc && opt->tls_cert_file)
        rc = tls_setup(s, opt, err, errcap);
    if (rc) {
        server_free_early(s);
        if (rc == MUSTER_ENOMEM && !err[0])
            snprintf(err, errcap, "api: out of memory");
        return rc;
    }

    h2o_config_init(&s->config);
    /* h2o refuses bodies above its own limit before we see them: over HTTP/1 with a plain 413,
     * over HTTP/2 only with RST_STREAM REFUSED_STREAM, which clients retry. So its limit is far
     * above the largest body any route takes, and the guard answers a JSON 413 below it. */
    s->config.max_request_entity_size = API_GUARD_BODY_HARD_MAX;
    s->config.http1.req_timeout =
        opt->idle_timeout_ms ? opt->idle_timeout_ms : API_IDLE_TIMEOUT_MS_DEFAULT;
    /* An idle HTTP/2 connection ends as soon as an HTTP/1 one, so a close waits no longer. */
    s->config.http2.idle_timeout = s->config.http1.req_timeout;
    h2o_hostconf_t *hc =
        h2o_config_register_host(&s->config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *pc = h2o_config_register_path(hc, "/", 0);
    struct api_handler *h = (struct api_handler *)h2o_create_handler(pc, sizeof(*h));
    h->srv = s;
    h->super.on_req = on_req;
    h2o_context_init(&s->ctx, loop, &s->config);
    s->accept.ctx = &s->ctx;
    s->accept.hosts = s->config.hosts;
    s->accept.ssl_ctx = s->ssl_ctx; /* set: every connection must complete a TLS handshake */

    int uvrc = uv_tcp_init(loop, &s->listener);
    if (uvrc) {
        snprintf(err, errcap, "api: listener: %s", uv_strerror(uvrc));
        s->closing = 1;
        s->listener_closed = 1;
        maybe_finish(s);
        return MUSTER_EIO;
    }
    s->listener.data = s;
    uvrc = uv_tcp_bind(&s->listener, (struct sockaddr *)&addr, 0);
    if (!uvrc)
        uvrc = uv_listen((uv_stream_t *)&s->listener, 128, on_accept);
    struct sockaddr_storage bound;
    int blen = sizeof(bound);
    if (!uvrc)
        uvrc = uv_tcp_getsockname(&s->listener, (struct sockaddr *)&bound, &blen);
    if (uvrc) {
        snprintf(err, errcap, "api: listen on %.64s:%d: %s", host, opt->port, uv_strerror(uvrc));
        /* The listener is closed and the rest freed in its close callback, on the caller's next
         * loop iteration; no callback of the caller's runs (the libuv rule for a failed start). */
        s->closing = 1;
        uv_close((uv_handle_t *)&s->listener, on_listener_closed);
        return MUSTER_EIO;
    }
    s->port = ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port
                                               : ((struct sockaddr_in6 *)&bound)->sin6_port);
    snprintf(s->listen_host, sizeof(s->listen_host), "%s", host);
    s->guard = (struct api_guard){
        .listen_host = s->listen_host, .port = s->port, .no_tokens = s->tokens == NULL};
    if (ctx->events && uv_timer_init(loop, &s->heartbeat) == 0) {
        s->heartbeat.data = s;
        s->heartbeat_live = 1;
        uv_timer_start(&s->heartbeat, heartbeat_cb, API_SSE_HEARTBEAT_MS, API_SSE_HEARTBEAT_MS);
        uv_unref((uv_handle_t *)&s->heartbeat); /* streams, not the timer, keep a loop busy */
    }
    *out = s;
    return 0;
}

int api_server_port(const struct api_server *s)
{
    return s ? s->port : 0;
}

static void on_listener_closed(uv_handle_t *h)
{
    struct api_server *s = h->data;
    s->listener_closed = 1;
    maybe_finish(s);
}

static void on_heartbeat_closed(uv_handle_t *h)
{
    struct api_server *s = h->data;
    s->heartbeat_live = 0;
    maybe_finish(s);
}

/* The deadline: every connection still open is shut down at the socket. h2o then reads EOF
 * (or fails its write) and closes the connection by its own path, freeing what it holds and
 * calling on_conn_closed; no h2o state is torn down behind its back. */
static void on_deadline(uv_timer_t *t)
{
    struct api_server *s = t->data;
    s->cut = 1;
    while (s->streams)
        stream_end(s->streams);
    for (struct api_conn *c = s->conns; c; c = c->next) {
        uv_os_fd_t fd;
        if (!uv_is_closing((uv_handle_t *)&c->tcp) && uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0)
            shutdown(fd, SHUT_RDWR);
    }
}

void api_server_drain(struct api_server *s, uint64_t within_ms)
{
    if (!s)
        return;
    if (!s->draining) {
        s->draining = 1;
        /* GOAWAY to HTTP/2 clients, "Connection: close" on HTTP/1 answers from now on. */
        h2o_context_request_shutdown(&s->ctx);
    }
    if (!s->deadline_live) {
        if (uv_timer_init(s->ctx.loop, &s->deadline))
            return;
        s->deadline.data = s;
        s->deadline_live = 1;
    } else if (uv_is_closing((uv_handle_t *)&s->deadline) ||
               (uv_is_active((uv_handle_t *)&s->deadline) &&
                uv_timer_get_due_in(&s->deadline) <= within_ms)) {
        return; /* an earlier deadline stands */
    }
    uv_timer_start(&s->deadline, on_deadline, within_ms, 0);
}

void api_server_close(struct api_server *s, void (*cb)(void *ud), void *ud)
{
    if (!s || s->closing)
        return;
    /* A close without a drain first still ends: keep-alive connections get as long as their
     * idle timeout would give them, then are cut. */
    api_server_drain(s, s->config.http1.req_timeout);
    s->closing = 1;
    s->close_cb = cb;
    s->close_ud = ud;
    /* Event streams never end by themselves: end them now (each sends what it holds first). */
    while (s->streams)
        stream_end(s->streams);
    if (s->heartbeat_live)
        uv_close((uv_handle_t *)&s->heartbeat, on_heartbeat_closed);
    uv_close((uv_handle_t *)&s->listener, on_listener_closed);
}
