/* musterctl: the command-line client of musterd's admin API (DESIGN.md, Admin API). Blocking
 * libcurl easy requests, json-c for bodies, libyaml for `apply -f`; docs/musterctl.md. */
#include "dispatcher/cli/describe.h"
#include "dispatcher/cli/spec.h"
#include "dispatcher/cli/output.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/duration.h"
#include "queue/mem.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef MUSTER_VERSION
#define MUSTER_VERSION "0.0.0"
#endif

#define CLI_DEFAULT_SERVER "http://127.0.0.1:8080"
#define CLI_RESPONSE_MAX (16 * 1024 * 1024) /* bytes of one response body we keep */
#define CLI_CONFIG_LINE_MAX 4096            /* bytes of one config file line */
#define CLI_LIST_PAGE "500"
#define CLI_TIMEOUT_S 30L

enum cli_format { CLI_OUT_TABLE, CLI_OUT_WIDE, CLI_OUT_JSON, CLI_OUT_YAML };

struct cli {
    const char *server, *token, *ca;
    int insecure;
    enum cli_format out;
    CURL *curl;
    char *cfg[3]; /* server, token, certificate-authority as read from the config file (owned) */
};

struct cli_resp {
    long status;
    char *body;
    size_t len, cap;
    int overflow;
    char etag[64];
    struct json_object *json; /* the parsed body, or NULL when it is not JSON */
};

static void cli_resp_reset(struct cli_resp *r)
{
    muster_free(r->body);
    json_object_put(r->json);
    memset(r, 0, sizeof(*r));
}

/* ---- configuration ---- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
        s[n - 1] = '\0';
        s++;
    }
    return s;
}

/* Reads `key: value` lines of the config file. A missing file is not an error (the file is
 * optional) unless it was named by $MUSTER_CONFIG. Returns 0, or 1 after printing why. */
static int config_load(struct cli *c)
{
    static const char *const keys[] = {"server", "token", "certificate-authority"};
    const char *path = getenv("MUSTER_CONFIG");
    int named = path && *path;
    char buf[4096];
    if (!named) {
        const char *home = getenv("HOME");
        if (!home || !*home)
            return 0;
        snprintf(buf, sizeof(buf), "%s/.config/muster/config", home);
        path = buf;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        if (!named && errno == ENOENT)
            return 0;
        fprintf(stderr, "musterctl: config %s: %s\n", path, strerror(errno));
        return 1;
    }
    char line[CLI_CONFIG_LINE_MAX];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof(line), f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "musterctl: %s:%d: line longer than %d bytes\n", path, lineno,
                    CLI_CONFIG_LINE_MAX);
            rc = 1;
            break;
        }
        char *l = trim(line);
        if (*l == '\0' || *l == '#' || strcmp(l, "---") == 0)
            continue;
        char *colon = strchr(l, ':');
        if (!colon) {
            fprintf(stderr, "musterctl: %s:%d: expected `key: value`\n", path, lineno);
            rc = 1;
            break;
        }
        *colon = '\0';
        char *k = trim(l), *v = trim(colon + 1);
        size_t i = 0;
        while (i < 3 && strcmp(k, keys[i]) != 0)
            i++;
        if (i == 3) {
            fprintf(stderr,
                    "musterctl: %s:%d: unknown key %s (server, token, "
                    "certificate-authority)\n",
                    path, lineno, k);
            rc = 1;
            break;
        }
        muster_free(c->cfg[i]);
        c->cfg[i] = muster_strdup(v);
        if (!c->cfg[i]) {
            fprintf(stderr, "musterctl: out of memory\n");
            rc = 1;
        }
    }
    fclose(f);
    return rc;
}

/* ---- HTTP ---- */

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct cli_resp *r = ud;
    size_t len = size * n;
    if (r->overflow || r->len + len > CLI_RESPONSE_MAX) {
        r->overflow = 1;
        return 0; /* aborts the transfer: the caller reports the cap */
    }
    if (r->len + len + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + len + 1)
            cap *= 2;
        char *b = muster_realloc(r->body, cap);
        if (!b)
            return 0;
        r->body = b;
        r->cap = cap;
    }
    memcpy(r->body + r->len, p, len);
    r->len += len;
    r->body[r->len] = '\0';
    return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    struct cli_resp *r = ud;
    size_t len = size * n;
    if (len > 5 && strncasecmp(p, "etag:", 5) == 0) {
        size_t i = 5;
        while (i < len && (p[i] == ' ' || p[i] == '"'))
            i++;
        size_t j = i;
        while (j < len && p[j] != '"' && p[j] != '\r' && p[j] != '\n')
            j++;
        if (j - i < sizeof(r->etag)) {
            memcpy(r->etag, p + i, j - i);
            r->etag[j - i] = '\0';
        }
    }
    return len;
}

/* The URL as it may be shown to a person: without any user:password@ part. */
static void url_shown(const char *url, char *buf, size_t cap)
{
    const char *scheme = strstr(url, "://");
    const char *host = scheme ? scheme + 3 : url;
    const char *at = strchr(host, '@'), *slash = strchr(host, '/');
    if (at && (!slash || at < slash))
        snprintf(buf, cap, "%.*s%s", (int)(host - url), url, at + 1);
    else
        snprintf(buf, cap, "%s", url);
}

/* One request: method on the server's path, body (JSON, may be NULL), If-Match (may be NULL).
 * Fills r (the caller resets it). Returns 0 whenever the server answered (any status), or
 * MUSTER_ECONNECT / MUSTER_ELIMIT / MUSTER_ENOMEM after printing why to stderr. */
static int cli_request(struct cli *c, const char *method, const char *path,
                       struct json_object *body, const char *if_match, struct cli_resp *r)
{
    char url[2048], hdr[1024];
    size_t slen = strlen(c->server);
    while (slen > 0 && c->server[slen - 1] == '/')
        slen--;
    if ((size_t)snprintf(url, sizeof(url), "%.*s%s", (int)slen, c->server, path) >= sizeof(url)) {
        fprintf(stderr, "musterctl: URL too long\n");
        return MUSTER_ELIMIT;
    }
    struct curl_slist *h = NULL, *t;
    int oom = 0;
    t = curl_slist_append(h, "Accept: application/json");
    oom |= !t;
    h = t ? t : h;
    if (body) {
        t = curl_slist_append(h, "Content-Type: application/json");
        oom |= !t;
        h = t ? t : h;
    }
    if (if_match) {
        snprintf(hdr, sizeof(hdr), "If-Match: \"%s\"", if_match);
        t = curl_slist_append(h, hdr);
        oom |= !t;
        h = t ? t : h;
    }
    if (c->token && *c->token) {
        /* The token lives only in this header; it is never printed (no CURLOPT_VERBOSE). A
         * control character in it could smuggle in another header line. */
        for (const char *p = c->token; *p; p++) {
            if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                curl_slist_free_all(h);
                fprintf(stderr, "musterctl: the token contains a control character\n");
                return MUSTER_EINVAL;
            }
        }
        char auth[1024];
        if ((size_t)snprintf(auth, sizeof(auth), "Authorization: Bearer %s", c->token) >=
            sizeof(auth)) {
            curl_slist_free_all(h);
            fprintf(stderr, "musterctl: the token is too long\n");
            return MUSTER_ELIMIT;
        }
        t = curl_slist_append(h, auth);
        oom |= !t;
        h = t ? t : h;
        explicit_bzero(auth, sizeof(auth));
    }
    if (oom) {
        curl_slist_free_all(h);
        fprintf(stderr, "musterctl: out of memory\n");
        return MUSTER_ENOMEM;
    }
    CURL *e = c->curl;
    curl_easy_reset(e);
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, CLI_TIMEOUT_S);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    if (body) {
        const char *s = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, s);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(s));
    }
    if (c->ca)
        curl_easy_setopt(e, CURLOPT_CAINFO, c->ca);
    if (c->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    char cerr[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, cerr);
    CURLcode cc = curl_easy_perform(e);
    curl_slist_free_all(h);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, NULL);
    char shown[sizeof(url)];
    url_shown(url, shown, sizeof(shown));
    if (r->overflow) {
        fprintf(stderr, "musterctl: %s %s: the answer is larger than %d bytes\n", method, shown,
                CLI_RESPONSE_MAX);
        return MUSTER_ELIMIT;
    }
    if (cc != CURLE_OK) {
        fprintf(stderr, "musterctl: %s %s: %s\n", method, shown,
                *cerr ? cerr : curl_easy_strerror(cc));
        return cc == CURLE_WRITE_ERROR ? MUSTER_ENOMEM : MUSTER_ECONNECT;
    }
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->status);
    if (r->body)
        r->json = json_tokener_parse(r->body);
    return 0;
}

/* Prints the server's error to stderr the way kubectl does: the reason, the message and, for a
 * 422, the field. Returns 1 (the exit code). */
static int report_error(const struct cli_resp *r)
{
    struct json_object *reason = NULL, *msg = NULL, *field = NULL;
    if (r->json && json_object_is_type(r->json, json_type_object)) {
        json_object_object_get_ex(r->json, "reason", &reason);
        json_object_object_get_ex(r->json, "message", &msg);
        json_object_object_get_ex(r->json, "field", &field);
    }
    if (msg) {
        fprintf(stderr, "Error from server (%s): %s", reason ? json_object_get_string(reason) : "",
                json_object_get_string(msg));
        if (field)
            fprintf(stderr, " [field %s]", json_object_get_string(field));
        fputc('\n', stderr);
    } else {
        fprintf(stderr, "Error from server: HTTP %ld%s%.200s\n", r->status, r->body ? ": " : "",
                r->body ? r->body : "");
    }
    return 1;
}

static int ok(const struct cli_resp *r)
{
    return r->status >= 200 && r->status < 300;
}

/* ---- output ---- */

static void print_json(struct json_object *v)
{
    puts(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                               JSON_C_TO_STRING_NOSLASHESCAPE));
}

static void print_doc(const struct cli *c, struct json_object *v)
{
    if (c->out == CLI_OUT_YAML)
        cli_yaml_print(v, stdout);
    else
        print_json(v);
}

static const char *field_str(struct json_object *o, const char *k, char *buf, size_t cap)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, k, &v) || !v)
        return NULL;
    snprintf(buf, cap, "%s", json_object_get_string(v));
    return buf;
}

static const char *res_str(struct json_object *m, const char *res)
{
    struct json_object *v;
    if (m && json_object_object_get_ex(m, res, &v) && v)
        return json_object_get_string(v);
    return NULL;
}

/* One queue's row. GPU is allocated/deserved of nvidia.com/gpu, the resource operators watch. */
static int queue_row(struct cli_table *t, struct json_object *q)
{
    char name[256], parent[256], weight[32], prio[32], state[32], strat[64], gpu[96], pend[32],
        adm[32], share[32], gua[1024], des[1024], cap[1024], rcl[16], bor[1024], lent[1024],
        pre[64], nsel[512], nlim[512], olim[512], lqs[512];
    struct json_object *st = NULL, *alloc = NULL, *desm = NULL, *v;
    json_object_object_get_ex(q, "status", &st);
    if (st)
        json_object_object_get_ex(st, "allocated", &alloc);
    json_object_object_get_ex(q, "deserved", &desm);
    const char *ga = res_str(alloc, "nvidia.com/gpu"), *gd = res_str(desm, "nvidia.com/gpu");
    snprintf(gpu, sizeof(gpu), "%s/%s", ga ? ga : "0", gd ? gd : "-");
    const char *sh = NULL;
    if (st && json_object_object_get_ex(st, "share", &v) && v) {
        snprintf(share, sizeof(share), "%.3f", json_object_get_double(v));
        sh = share;
    }
    const char *p = field_str(q, "parent", parent, sizeof(parent));
    const char *row[] = {
        field_str(q, "name", name, sizeof(name)),
        p ? p : "-",
        field_str(q, "weight", weight, sizeof(weight)),
        field_str(q, "priority", prio, sizeof(prio)),
        field_str(q, "state", state, sizeof(state)),
        gpu,
        st ? field_str(st, "pending", pend, sizeof(pend)) : NULL,
        st ? field_str(st, "admitted", adm, sizeof(adm)) : NULL,
        cli_queue_reclaim_mark(q),
        field_str(q, "queueingStrategy", strat, sizeof(strat)),
        cli_map_text(q, "guarantee", gua, sizeof(gua)),
        cli_map_text(q, "deserved", des, sizeof(des)),
        cli_map_text(q, "capability", cap, sizeof(cap)),
        sh,
        field_str(q, "reclaimable", rcl, sizeof(rcl)) ? rcl : "true",
        cli_queue_preemption(q, CLI_PREEMPT_WITHIN_QUEUE),
        cli_queue_preemption(q, CLI_PREEMPT_MIN_RUNTIME),
        cli_queue_preemption(q, CLI_PREEMPT_MAX_PER_MINUTE),
        cli_queue_preemption(q, CLI_PREEMPT_COOLDOWN),
        cli_map_text(st, "borrowed", bor, sizeof(bor)),
        cli_map_text(st, "lent", lent, sizeof(lent)),
        cli_queue_preempted(q, pre, sizeof(pre)),
        cli_queue_selector_text(q, nsel, sizeof(nsel)),
        cli_queue_ns_limits_text(q, nlim, sizeof(nlim)),
        cli_queue_owner_limits_text(q, olim, sizeof(olim)),
        cli_queue_local_queues_text(q, lqs, sizeof(lqs)),
    };
    return cli_table_add(t, row);
}

/* Fills t (NULL: out of memory) with a row of each element of items, or of only when it is not
 * NULL, and prints it; an empty list prints kubectl's "No resources found." to stderr instead.
 * Frees t. 0, or 1 when out of memory (said on stderr). */
static int print_table(struct cli_table *t, int (*row)(struct cli_table *, struct json_object *),
                       struct json_object *items, struct json_object *only)
{
    size_t n = only ? 1 : json_object_array_length(items);
    int rc = t ? 0 : MUSTER_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++)
        rc = row(t, only ? only : json_object_array_get_idx(items, i));
    if (rc) {
        cli_table_free(t);
        fprintf(stderr, "musterctl: out of memory\n");
        return 1;
    }
    if (n == 0)
        fprintf(stderr, "No resources found.\n");
    else
        cli_table_print(t, stdout);
    cli_table_free(t);
    return 0;
}

static int print_queues(const struct cli *c, struct json_object *items)
{
    static const char *const hdr[] = {
        "NAME",         "PARENT",     "WEIGHT",      "PRIORITY",     "STATE",       "GPU",
        "PENDING",      "ADMITTED",   "RECLAIM",     "STRATEGY",     "GUARANTEE",   "DESERVED",
        "CAPABILITY",   "SHARE",      "RECLAIMABLE", "WITHIN-QUEUE", "MIN-RUNTIME", "MAX/MIN",
        "COOLDOWN",     "BORROWED",   "LENT",        "PREEMPTED",    "NAMESPACES",  "NS-LIMITS",
        "OWNER-LIMITS", "LOCALQUEUES"};
    size_t ncols = c->out == CLI_OUT_WIDE ? sizeof(hdr) / sizeof(hdr[0]) : 9;
    return print_table(cli_table_new(ncols, hdr), queue_row, items, NULL);
}

/* One cluster of GET /api/v1/clusters (docs/admin-api.md, Clusters) as a table row: GPU
 * figures (nvidia.com/gpu), fits as LABEL:N; -o wide adds every resource and the labels. */
static int cluster_row(struct cli_table *t, struct json_object *cl)
{
    static const char gpu[] = "nvidia.com/gpu";
    char name[256], fits[256] = "", cap[512], used[512], rsv[512], free_[512], labels[512],
                    dialect[64];
    struct json_object *v = NULL, *m;
    int ready = json_object_object_get_ex(cl, "ready", &v) && json_object_get_boolean(v);
    size_t n = 0;
    struct json_object *fa = NULL;
    if (json_object_object_get_ex(cl, "fits", &fa) && json_object_is_type(fa, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(fa); i++) {
            struct json_object *f = json_object_array_get_idx(fa, i), *l = NULL, *r = NULL;
            json_object_object_get_ex(f, "label", &l);
            json_object_object_get_ex(f, "replicas", &r);
            int w =
                snprintf(fits + n, sizeof(fits) - n, "%s%s:%s", n ? "," : "",
                         l ? json_object_get_string(l) : "?", r ? json_object_get_string(r) : "?");
            if (w < 0 || (size_t)w >= sizeof(fits) - n)
                break;
            n += (size_t)w;
        }
    }
    const char *row[] = {
        field_str(cl, "name", name, sizeof(name)),
        ready ? "True" : "False",
        field_str(cl, "gangDialect", dialect, sizeof(dialect)),
        json_object_object_get_ex(cl, "capacity", &m) ? res_str(m, gpu) : NULL,
        json_object_object_get_ex(cl, "allocated", &m) ? res_str(m, gpu) : NULL,
        json_object_object_get_ex(cl, "reserved", &m) ? res_str(m, gpu) : NULL,
        json_object_object_get_ex(cl, "free", &m) ? res_str(m, gpu) : NULL,
        n ? fits : NULL,
        cli_map_text(cl, "capacity", cap, sizeof(cap)),
        cli_map_text(cl, "allocated", used, sizeof(used)),
        cli_map_text(cl, "reserved", rsv, sizeof(rsv)),
        cli_map_text(cl, "free", free_, sizeof(free_)),
        cli_map_text(cl, "labels", labels, sizeof(labels)),
    };
    return cli_table_add(t, row);
}

/* get clusters as a table: a list ({"items": [...]}) or one cluster. */
static int print_clusters(const struct cli *c, struct json_object *doc)
{
    static const char *const hdr[] = {
        "NAME", "READY",    "DIALECT",   "GPU",      "GPU-USED", "GPU-RESERVED", "GPU-FREE",
        "FITS", "CAPACITY", "ALLOCATED", "RESERVED", "FREE",     "LABELS"};
    struct json_object *items = NULL;
    int one = !json_object_object_get_ex(doc, "items", &items);
    return print_table(cli_table_new(c->out == CLI_OUT_WIDE ? 13 : 8, hdr), cluster_row, items,
                       one ? doc : NULL);
}

/* ---- commands ---- */

static int path_for(char *buf, size_t cap, const char *prefix, const char *name)
{
    char *esc = curl_easy_escape(NULL, name, 0);
    if (!esc) {
        fprintf(stderr, "musterctl: out of memory\n");
        return 1;
    }
    int w = snprintf(buf, cap, "%s/%s", prefix, esc);
    curl_free(esc);
    if (w < 0 || (size_t)w >= cap) {
        fprintf(stderr, "musterctl: name too long: %s\n", name);
        return 1;
    }
    return 0;
}

/* prefix/A/B for a NAMESPACE/NAME: each segment escaped, the slashes kept. */
static int path_segments(char *buf, size_t cap, const char *prefix, const char *name)
{
    int w = snprintf(buf, cap, "%s", prefix);
    size_t n = w > 0 ? (size_t)w : 0;
    const char *p = name;
    while (n < cap) {
        size_t len = strcspn(p, "/");
        char *esc = curl_easy_escape(NULL, p, (int)len);
        if (!esc) {
            fprintf(stderr, "musterctl: out of memory\n");
            return 1;
        }
        w = snprintf(buf + n, cap - n, "/%s", esc);
        curl_free(esc);
        if (w < 0 || (size_t)w >= cap - n)
            break;
        n += (size_t)w;
        if (!p[len])
            return 0;
        p += len + 1;
    }
    fprintf(stderr, "musterctl: name too long: %s\n", name);
    return 1;
}

/* The path of one object of kind: its name checked to be a name of that kind first (so "../x"
 * never walks the server's paths), then every segment escaped. 0, or 2 (a bad name) or 1. */
static int object_path(char *buf, size_t cap, enum cli_kind kind, const char *name)
{
    char err[256];
    if (cli_name_check(kind, name, err, sizeof(err))) {
        fprintf(stderr, "musterctl: %s\n", err);
        return 2;
    }
    static const char *const prefix[] = {"/api/v1/queues", "/api/v1/bindings", "/api/v1/clusters"};
    return kind == CLI_KIND_BINDING ? path_segments(buf, cap, prefix[kind], name)
                                    : path_for(buf, cap, prefix[kind], name);
}

/* Every page of the list at base (/api/v1/queues, /api/v1/bindings), joined into one
 * {"items": [...]}. */
static int list_all(struct cli *c, const char *base, struct json_object **out)
{
    struct json_object *all = json_object_new_object(), *items = json_object_new_array();
    if (!all || !items || json_object_object_add(all, "items", items)) {
        json_object_put(all);
        json_object_put(items);
        fprintf(stderr, "musterctl: out of memory\n");
        return 1;
    }
    char path[1024], cont[512] = "";
    for (;;) {
        char *esc = curl_easy_escape(NULL, cont, 0);
        if (!esc) {
            json_object_put(all);
            fprintf(stderr, "musterctl: out of memory\n");
            return 1;
        }
        snprintf(path, sizeof(path), "%s?limit=" CLI_LIST_PAGE "%s%s", base,
                 *cont ? "&continue=" : "", esc);
        curl_free(esc);
        struct cli_resp r = {0};
        int rc = cli_request(c, "GET", path, NULL, NULL, &r);
        if (rc || !ok(&r)) {
            if (!rc)
                report_error(&r);
            cli_resp_reset(&r);
            json_object_put(all);
            return 1;
        }
        struct json_object *page, *md, *ct;
        if (!r.json || !json_object_object_get_ex(r.json, "items", &page) ||
            !json_object_is_type(page, json_type_array)) {
            fprintf(stderr, "musterctl: the server's list is not {\"items\": [...]}\n");
            cli_resp_reset(&r);
            json_object_put(all);
            return 1;
        }
        size_t n = json_object_array_length(page);
        for (size_t i = 0; i < n; i++)
            json_object_array_add(items, json_object_get(json_object_array_get_idx(page, i)));
        int more = json_object_object_get_ex(r.json, "metadata", &md) && md &&
                   json_object_object_get_ex(md, "continue", &ct) && ct && n > 0;
        if (more)
            snprintf(cont, sizeof(cont), "%s", json_object_get_string(ct));
        cli_resp_reset(&r);
        if (!more)
            break;
    }
    *out = all;
    return 0;
}

static int cmd_get_queues(struct cli *c, const char *name)
{
    struct json_object *doc = NULL;
    struct cli_resp r = {0};
    if (name) {
        char path[1024];
        int prc = object_path(path, sizeof(path), CLI_KIND_QUEUE, name);
        if (prc)
            return prc;
        int rc = cli_request(c, "GET", path, NULL, NULL, &r);
        if (rc || !ok(&r)) {
            rc = rc ? 1 : report_error(&r);
            cli_resp_reset(&r);
            return rc;
        }
        doc = json_object_get(r.json);
        cli_resp_reset(&r);
        if (!doc) {
            fprintf(stderr, "musterctl: the server's answer is not JSON\n");
            return 1;
        }
    } else if (list_all(c, "/api/v1/queues", &doc)) {
        return 1;
    }
    int rc = 0;
    if (c->out == CLI_OUT_JSON || c->out == CLI_OUT_YAML) {
        print_doc(c, doc);
    } else if (name) {
        struct json_object *one = json_object_new_array();
        if (one && !json_object_array_add(one, json_object_get(doc)))
            rc = print_queues(c, one);
        else
            rc = 1;
        json_object_put(one);
    } else {
        struct json_object *items;
        json_object_object_get_ex(doc, "items", &items);
        rc = print_queues(c, items);
    }
    json_object_put(doc);
    return rc;
}

/* GET path into *out (the parsed answer, owned by the caller): 0, or the exit code after the
 * error was reported. */
static int get_json(struct cli *c, const char *path, struct json_object **out)
{
    struct cli_resp r = {0};
    int rc = cli_request(c, "GET", path, NULL, NULL, &r);
    *out = NULL;
    if (rc || !ok(&r)) {
        rc = rc ? 1 : report_error(&r);
    } else if (!r.json) {
        fprintf(stderr, "musterctl: the server's answer is not JSON\n");
        rc = 1;
    } else {
        *out = json_object_get(r.json);
    }
    cli_resp_reset(&r);
    return rc;
}

static int cmd_get_clusters(struct cli *c, const char *name)
{
    char path[1024] = "/api/v1/clusters";
    int rc = name ? object_path(path, sizeof(path), CLI_KIND_CLUSTER, name) : 0;
    struct json_object *doc = NULL;
    if (!rc)
        rc = get_json(c, path, &doc);
    if (!rc) {
        if (c->out == CLI_OUT_JSON || c->out == CLI_OUT_YAML)
            print_doc(c, doc);
        else
            rc = print_clusters(c, doc);
    }
    json_object_put(doc);
    return rc;
}

/* get bindings [NS/NAME]: a table like get queues' (-o wide adds clusters, request, reason),
 * or the server's documents with -o json / -o yaml. */
static int cmd_get_bindings(struct cli *c, const char *name)
{
    char path[1024];
    struct json_object *doc = NULL;
    int rc = name ? object_path(path, sizeof(path), CLI_KIND_BINDING, name) : 0;
    if (!rc)
        rc = name ? get_json(c, path, &doc) : list_all(c, "/api/v1/bindings", &doc);
    if (rc)
        return rc;
    if (c->out == CLI_OUT_JSON || c->out == CLI_OUT_YAML) {
        print_doc(c, doc);
    } else {
        struct json_object *items = NULL;
        if (name) {
            items = json_object_new_array();
            if (items && json_object_array_add(items, json_object_get(doc)))
                json_object_put(doc);
        } else {
            json_object_object_get_ex(doc, "items", &items);
            json_object_get(items);
        }
        if (!items || cli_bindings_table(items, c->out == CLI_OUT_WIDE, stdout, stderr)) {
            fprintf(stderr, "musterctl: out of memory\n");
            rc = 1;
        }
        json_object_put(items);
    }
    json_object_put(doc);
    return rc;
}

/* describe binding NS/NAME | describe queue NAME: one object as a page to read; -o json and
 * -o yaml print the server's document instead. */
static int cmd_describe(struct cli *c, enum cli_kind kind, const char *name)
{
    char path[1024];
    struct json_object *doc = NULL;
    int rc = object_path(path, sizeof(path), kind, name);
    if (!rc)
        rc = get_json(c, path, &doc);
    if (rc)
        return rc;
    if (c->out == CLI_OUT_JSON || c->out == CLI_OUT_YAML)
        print_doc(c, doc);
    else if (kind == CLI_KIND_BINDING)
        cli_describe_binding(doc, stdout);
    else
        cli_describe_queue(doc, stdout);
    json_object_put(doc);
    return 0;
}

/* "cpu=8,nvidia.com/gpu=2" -> {"cpu": "8", "nvidia.com/gpu": "2"} under key in q. */
static int add_resources(struct json_object *q, const char *key, const char *spec)
{
    struct json_object *m = json_object_new_object();
    if (!m || json_object_object_add(q, key, m)) {
        json_object_put(m);
        fprintf(stderr, "musterctl: out of memory\n");
        return 1;
    }
    const char *p = spec;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p || eq + 1 == p + len) {
            fprintf(stderr, "musterctl: --%s: expected NAME=QUANTITY[,NAME=QUANTITY...], got %s\n",
                    key, spec);
            return 1;
        }
        char *rname = muster_strndup(p, (size_t)(eq - p));
        struct json_object *v = json_object_new_string_len(eq + 1, (int)(p + len - eq - 1));
        int bad = !rname || !v || json_object_object_add(m, rname, v);
        if (bad)
            json_object_put(v);
        muster_free(rname);
        if (bad) {
            fprintf(stderr, "musterctl: out of memory\n");
            return 1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

struct create_opts {
    const char *parent, *weight, *priority, *state, *strategy, *on_loss;
    const char *guarantee, *deserved, *capability;
    const char *reclaimable, *within_queue, *min_runtime, *max_per_minute, *cooldown;
};

static int add_int(struct json_object *q, const char *key, const char *flag, const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) {
        fprintf(stderr, "musterctl: --%s: not an integer: %s\n", flag, s);
        return 1;
    }
    json_object_object_add(q, key, json_object_new_int64(v));
    return 0;
}

/* --within-queue, --min-runtime, --max-per-minute, --cooldown as q's preemption object (only
 * those given); the server checks the values. 0, 1 (usage, said on stderr). */
static int add_preemption(struct json_object *q, const struct create_opts *o)
{
    if (!o->within_queue && !o->min_runtime && !o->max_per_minute && !o->cooldown)
        return 0;
    struct json_object *p = json_object_new_object();
    if (!p || json_object_object_add(q, "preemption", p)) {
        json_object_put(p);
        fprintf(stderr, "musterctl: out of memory\n");
        return 1;
    }
    if (o->within_queue)
        json_object_object_add(p, "withinQueue", json_object_new_string(o->within_queue));
    if (o->min_runtime)
        json_object_object_add(p, "minRuntime", json_object_new_string(o->min_runtime));
    if (o->cooldown)
        json_object_object_add(p, "cooldown", json_object_new_string(o->cooldown));
    return o->max_per_minute ? add_int(p, "maxPerMinute", "max-per-minute", o->max_per_minute) : 0;
}

static int cmd_create_queue(struct cli *c, const char *name, const struct create_opts *o)
{
    if (!o->parent) {
        fprintf(stderr, "musterctl: create queue: --parent is required (root for a top-level "
                        "queue)\n");
        return 2;
    }
    struct json_object *q = json_object_new_object();
    if (!q) {
        fprintf(stderr, "musterctl: out of memory\n");
        return 1;
    }
    json_object_object_add(q, "name", json_object_new_string(name));
    json_object_object_add(q, "parent", json_object_new_string(o->parent));
    int bad = (o->weight && add_int(q, "weight", "weight", o->weight)) ||
              (o->priority && add_int(q, "priority", "priority", o->priority)) ||
              (o->guarantee && add_resources(q, "guarantee", o->guarantee)) ||
              (o->deserved && add_resources(q, "deserved", o->deserved)) ||
              (o->capability && add_resources(q, "capability", o->capability)) ||
              add_preemption(q, o);
    if (!bad && o->reclaimable) {
        if (strcmp(o->reclaimable, "true") != 0 && strcmp(o->reclaimable, "false") != 0) {
            fprintf(stderr, "musterctl: --reclaimable: expected true or false, got %s\n",
                    o->reclaimable);
            bad = 1;
        } else {
            json_object_object_add(q, "reclaimable",
                                   json_object_new_boolean(strcmp(o->reclaimable, "true") == 0));
        }
    }
    if (bad) {
        json_object_put(q);
        return 2;
    }
    if (o->state)
        json_object_object_add(q, "state", json_object_new_string(o->state));
    if (o->strategy)
        json_object_object_add(q, "queueingStrategy", json_object_new_string(o->strategy));
    if (o->on_loss)
        json_object_object_add(q, "onClusterLoss", json_object_new_string(o->on_loss));
    struct cli_resp r = {0};
    int rc = cli_request(c, "POST", "/api/v1/queues", q, NULL, &r);
    json_object_put(q);
    if (rc || !ok(&r)) {
        rc = rc ? 1 : report_error(&r);
    } else if ((c->out == CLI_OUT_JSON || c->out == CLI_OUT_YAML) && r.json) {
        print_doc(c, r.json);
    } else {
        printf("queue/%s created\n", name);
    }
    cli_resp_reset(&r);
    return rc;
}

static int cmd_delete_queue(struct cli *c, const char *name)
{
    char path[1024];
    int rc = object_path(path, sizeof(path), CLI_KIND_QUEUE, name);
    if (rc)
        return rc;
    struct cli_resp r = {0};
    rc = cli_request(c, "DELETE", path, NULL, NULL, &r);
    if (rc || !ok(&r))
        rc = rc ? 1 : report_error(&r);
    else
        printf("queue/%s deleted\n", name);
    cli_resp_reset(&r);
    return rc;
}

/* ---- apply ---- */

/* The queue object to send for one manifest entry: the entry without metadata/status (which the
 * server would ignore) and apiVersion/kind, or for a Kubernetes-style {metadata: {name},
 * spec: {...}} entry its spec plus the name. A new object, or NULL when out of memory. */
static struct json_object *manifest_queue(struct json_object *e)
{
    struct json_object *q = json_object_new_object(), *spec, *md, *nm;
    if (!q)
        return NULL;
    struct json_object *src = e;
    if (json_object_object_get_ex(e, "spec", &spec) &&
        json_object_is_type(spec, json_type_object)) {
        src = spec;
        if (json_object_object_get_ex(e, "metadata", &md) && md &&
            json_object_object_get_ex(md, "name", &nm) && nm)
            json_object_object_add(q, "name", json_object_get(nm));
    }
    json_object_object_foreach(src, k, v)
    {
        if (strcmp(k, "metadata") == 0 || strcmp(k, "status") == 0 ||
            strcmp(k, "apiVersion") == 0 || strcmp(k, "kind") == 0)
            continue;
        if (json_object_object_add(q, k, json_object_get(v))) {
            json_object_put(q);
            return NULL;
        }
    }
    return q;
}

/* Creates, updates or leaves alone one queue; prints queue/NAME created|configured|unchanged.
 * Returns 0 or 1 (the server's error printed). */
static int apply_one(struct cli *c, const char *where, struct json_object *entry)
{
    struct json_object *q = manifest_queue(entry), *nm;
    if (!q) {
        fprintf(stderr, "musterctl: out of memory\n");
        return 1;
    }
    if (!json_object_object_get_ex(q, "name", &nm) || !json_object_is_type(nm, json_type_string)) {
        fprintf(stderr, "musterctl: %s: a queue needs a string `name`\n", where);
        json_object_put(q);
        return 1;
    }
    const char *name = json_object_get_string(nm);
    char path[1024];
    if (object_path(path, sizeof(path), CLI_KIND_QUEUE, name)) {
        json_object_put(q);
        return 1;
    }
    struct cli_resp r = {0};
    int rc = cli_request(c, "GET", path, NULL, NULL, &r);
    const char *verb = NULL;
    if (rc) {
        rc = 1;
    } else if (r.status == 404) {
        cli_resp_reset(&r);
        rc = cli_request(c, "POST", "/api/v1/queues", q, NULL, &r);
        if (rc || !ok(&r))
            rc = rc ? 1 : report_error(&r);
        else
            verb = "created";
    } else if (!ok(&r) || !r.json) {
        rc = report_error(&r);
    } else if (cli_spec_same(q, r.json)) {
        verb = "unchanged";
    } else {
        struct json_object *md, *rv;
        char old[64] = "";
        if (json_object_object_get_ex(r.json, "metadata", &md) && md &&
            json_object_object_get_ex(md, "resourceVersion", &rv) && rv)
            snprintf(old, sizeof(old), "%s", json_object_get_string(rv));
        else
            snprintf(old, sizeof(old), "%s", r.etag);
        cli_resp_reset(&r);
        rc = cli_request(c, "PUT", path, q, *old ? old : "*", &r);
        if (rc || !ok(&r)) {
            rc = rc ? 1 : report_error(&r);
        } else {
            /* The server writes nothing for a spec it already has, e.g. "8000m" vs "8". */
            int same = r.json && json_object_object_get_ex(r.json, "metadata", &md) && md &&
                       json_object_object_get_ex(md, "resourceVersion", &rv) && rv &&
                       strcmp(json_object_get_string(rv), old) == 0;
            verb = same ? "unchanged" : "configured";
        }
    }
    if (verb)
        printf("queue/%s %s\n", name, verb);
    cli_resp_reset(&r);
    json_object_put(q);
    return rc;
}

/* Applies every queue of the file: a YAML list, one queue, a {items: [...]} list, in as many
 * `---` documents as it has. Goes on after an error and returns 1 if any entry failed. */
static int cmd_apply(struct cli *c, const char *file)
{
    struct json_object *docs;
    char err[512];
    if (cli_yaml_load(file, &docs, err, sizeof(err))) {
        fprintf(stderr, "musterctl: %s\n", err);
        return 1;
    }
    int rc = 0;
    size_t nd = json_object_array_length(docs), seen = 0;
    for (size_t d = 0; d < nd; d++) {
        struct json_object *doc = json_object_array_get_idx(docs, d), *items;
        if (!doc)
            continue; /* an empty document */
        if (json_object_is_type(doc, json_type_object) &&
            json_object_object_get_ex(doc, "items", &items) &&
            json_object_is_type(items, json_type_array))
            doc = items;
        int list = json_object_is_type(doc, json_type_array);
        size_t n = list ? json_object_array_length(doc) : 1;
        for (size_t i = 0; i < n; i++) {
            struct json_object *e = list ? json_object_array_get_idx(doc, i) : doc;
            char where[600];
            snprintf(where, sizeof(where), "%s: document %zu, item %zu", file, d + 1, i + 1);
            seen++;
            if (!e || !json_object_is_type(e, json_type_object)) {
                fprintf(stderr, "musterctl: %s: expected a queue (a mapping)\n", where);
                rc = 1;
                continue;
            }
            rc |= apply_one(c, where, e);
        }
    }
    if (seen == 0) {
        fprintf(stderr, "musterctl: %s: no queues in the file\n", file);
        rc = 1;
    }
    json_object_put(docs);
    return rc;
}

/* ---- main ---- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: musterctl [flags] COMMAND\n"
            "commands:\n"
            "  get queues [NAME]              list queues, or one\n"
            "  get bindings [NS/NAME]         bindings muster holds, with their queue and state\n"
            "  get clusters [NAME]            clusters (served with the dispatcher)\n"
            "  create queue NAME --parent P [--weight N] [--priority N] [--state S]\n"
            "               [--strategy S] [--guarantee R=Q,...] [--deserved R=Q,...]\n"
            "               [--capability R=Q,...] [--on-cluster-loss Requeue|Replace]\n"
            "               [--reclaimable true|false]\n"
            "               [--within-queue Never|LowerPriority] [--min-runtime D]\n"
            "               [--max-per-minute N] [--cooldown D]\n"
            "  apply -f FILE                  create or update every queue in FILE (- is stdin)\n"
            "  delete queue NAME\n"
            "  describe binding NS/NAME       a binding: state, reason, place in line, history\n"
            "  describe queue NAME            a queue: spec and status\n"
            "  explain binding NS/NAME        the binding's document as the server has it\n"
            "  version\n"
            "flags:\n"
            "  --server URL                   admin API (else $MUSTER_SERVER, the config file,\n"
            "                                 " CLI_DEFAULT_SERVER ")\n"
            "  --token T                      bearer token (else $MUSTER_TOKEN, the config file)\n"
            "  --certificate-authority FILE   CA bundle to verify the server with\n"
            "  --insecure-skip-tls-verify     do not verify the server's certificate\n"
            "  -o, --output table|wide|json|yaml\n"
            "config: $MUSTER_CONFIG or ~/.config/muster/config, `key: value` lines with\n"
            "        server, token, certificate-authority\n");
}

static const char *pick(const char *flag, const char *env, const char *file, const char *dflt)
{
    if (flag)
        return flag;
    const char *e = env ? getenv(env) : NULL;
    if (e && *e)
        return e;
    return file ? file : dflt;
}

/* A command line that cannot be run: says what is missing or wrong, exit code 2. */
__attribute__((format(printf, 1, 2))) static int bad_usage(const char *fmt, ...)
{
    fprintf(stderr, "musterctl: ");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(musterctl --help lists the commands)\n");
    return 2;
}

static int kind_is(const char *kind, const char *one)
{
    size_t n = strlen(one);
    return strcmp(kind, one) == 0 || (strncmp(kind, one, n) == 0 && strcmp(kind + n, "s") == 0);
}

static int run(struct cli *c, int argc, char **argv, const struct create_opts *co, const char *file)
{
    if (argc < 1) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[0], *kind = argc > 1 ? argv[1] : NULL, *name = argc > 2 ? argv[2] : NULL;
    if (strcmp(cmd, "version") == 0 && argc == 1) {
        printf("musterctl %s\n", MUSTER_VERSION);
        return 0;
    }
    if (strcmp(cmd, "apply") == 0 && argc == 1) {
        if (!file) {
            fprintf(stderr, "musterctl: apply: -f FILE is required\n");
            return 2;
        }
        return cmd_apply(c, file);
    }
    if (strcmp(cmd, "get") == 0) {
        if (!kind)
            return bad_usage("get: say what to get: queues, bindings or clusters");
        if (argc > 3)
            return bad_usage("get %s: one NAME at most, got %s too", kind, argv[3]);
        if (kind_is(kind, "queue"))
            return cmd_get_queues(c, name);
        if (kind_is(kind, "binding"))
            return cmd_get_bindings(c, name);
        if (kind_is(kind, "cluster"))
            return cmd_get_clusters(c, name);
        return bad_usage("get: unknown kind %s: queues, bindings or clusters", kind);
    }
    if (strcmp(cmd, "create") == 0 || strcmp(cmd, "delete") == 0) {
        if (!kind)
            return bad_usage("%s: say what to %s: queue NAME", cmd, cmd);
        if (!kind_is(kind, "queue"))
            return bad_usage("%s: only queues can be %sd, not %s", cmd, cmd, kind);
        if (!name)
            return bad_usage("%s queue: the queue's NAME is missing (%s queue NAME%s)", cmd, cmd,
                             cmd[0] == 'c' ? " --parent PARENT" : "");
        if (argc > 3)
            return bad_usage("%s queue %s: unexpected argument %s", cmd, name, argv[3]);
        if (cmd[0] == 'd')
            return cmd_delete_queue(c, name);
        char err[256];
        if (cli_name_check(CLI_KIND_QUEUE, name, err, sizeof(err)))
            return bad_usage("%s", err);
        return cmd_create_queue(c, name, co);
    }
    if (strcmp(cmd, "describe") == 0 || strcmp(cmd, "explain") == 0) {
        int is_describe = cmd[0] == 'd';
        if (!kind)
            return bad_usage("%s: say what to %s: %s", cmd, cmd,
                             is_describe ? "binding NAMESPACE/NAME or queue NAME"
                                         : "binding NAMESPACE/NAME");
        int binding = kind_is(kind, "binding"), queue = is_describe && kind_is(kind, "queue");
        if (!binding && !queue)
            return bad_usage("%s: unknown kind %s: %s", cmd, kind,
                             is_describe ? "binding or queue" : "binding");
        if (!name)
            return bad_usage("%s %s: the %s is missing", cmd, kind,
                             binding ? "binding's NAMESPACE/NAME" : "queue's NAME");
        if (argc > 3)
            return bad_usage("%s %s %s: unexpected argument %s", cmd, kind, name, argv[3]);
        enum cli_kind k = binding ? CLI_KIND_BINDING : CLI_KIND_QUEUE;
        if (is_describe)
            return cmd_describe(c, k, name);
        /* explain binding: the server's document as it is (JSON, or YAML with -o yaml) */
        char path[1024];
        struct json_object *doc = NULL;
        int rc = object_path(path, sizeof(path), k, name);
        if (!rc)
            rc = get_json(c, path, &doc);
        if (!rc)
            print_doc(c, doc);
        json_object_put(doc);
        return rc;
    }
    fprintf(stderr, "musterctl: unknown command:");
    for (int i = 0; i < argc; i++)
        fprintf(stderr, " %s", argv[i]);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    enum {
        O_SERVER = 256,
        O_TOKEN,
        O_CA,
        O_INSECURE,
        O_PARENT,
        O_WEIGHT,
        O_PRIORITY,
        O_STATE,
        O_STRATEGY,
        O_ON_LOSS,
        O_GUARANTEE,
        O_DESERVED,
        O_CAPABILITY,
        O_RECLAIMABLE,
        O_WITHIN_QUEUE,
        O_MIN_RUNTIME,
        O_MAX_PER_MINUTE,
        O_COOLDOWN,
        O_HELP
    };
    static const struct option longopts[] = {
        {"server", required_argument, NULL, O_SERVER},
        {"token", required_argument, NULL, O_TOKEN},
        {"certificate-authority", required_argument, NULL, O_CA},
        {"insecure-skip-tls-verify", no_argument, NULL, O_INSECURE},
        {"output", required_argument, NULL, 'o'},
        {"filename", required_argument, NULL, 'f'},
        {"parent", required_argument, NULL, O_PARENT},
        {"weight", required_argument, NULL, O_WEIGHT},
        {"priority", required_argument, NULL, O_PRIORITY},
        {"state", required_argument, NULL, O_STATE},
        {"strategy", required_argument, NULL, O_STRATEGY},
        {"on-cluster-loss", required_argument, NULL, O_ON_LOSS},
        {"guarantee", required_argument, NULL, O_GUARANTEE},
        {"deserved", required_argument, NULL, O_DESERVED},
        {"capability", required_argument, NULL, O_CAPABILITY},
        {"reclaimable", required_argument, NULL, O_RECLAIMABLE},
        {"within-queue", required_argument, NULL, O_WITHIN_QUEUE},
        {"min-runtime", required_argument, NULL, O_MIN_RUNTIME},
        {"max-per-minute", required_argument, NULL, O_MAX_PER_MINUTE},
        {"cooldown", required_argument, NULL, O_COOLDOWN},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    struct cli c = {0};
    struct create_opts co = {0};
    const char *server = NULL, *token = NULL, *ca = NULL, *file = NULL;
    int opt;
    for (;;) {
        opt = getopt_long(argc, argv, "o:f:h", longopts, NULL);
        if (opt == -1)
            break;
        switch (opt) {
        case O_SERVER:
            server = optarg;
            break;
        case O_TOKEN:
            token = optarg;
            break;
        case O_CA:
            ca = optarg;
            break;
        case O_INSECURE:
            c.insecure = 1;
            break;
        case 'f':
            file = optarg;
            break;
        case O_PARENT:
            co.parent = optarg;
            break;
        case O_WEIGHT:
            co.weight = optarg;
            break;
        case O_PRIORITY:
            co.priority = optarg;
            break;
        case O_STATE:
            co.state = optarg;
            break;
        case O_STRATEGY:
            co.strategy = optarg;
            break;
        case O_ON_LOSS:
            co.on_loss = optarg;
            break;
        case O_GUARANTEE:
            co.guarantee = optarg;
            break;
        case O_DESERVED:
            co.deserved = optarg;
            break;
        case O_CAPABILITY:
            co.capability = optarg;
            break;
        case O_RECLAIMABLE:
            co.reclaimable = optarg;
            break;
        case O_WITHIN_QUEUE:
            co.within_queue = optarg;
            break;
        case O_MIN_RUNTIME:
            co.min_runtime = optarg;
            break;
        case O_MAX_PER_MINUTE:
            co.max_per_minute = optarg;
            break;
        case O_COOLDOWN:
            co.cooldown = optarg;
            break;
        case 'o':
            if (strcmp(optarg, "table") == 0) {
                c.out = CLI_OUT_TABLE;
            } else if (strcmp(optarg, "wide") == 0) {
                c.out = CLI_OUT_WIDE;
            } else if (strcmp(optarg, "json") == 0) {
                c.out = CLI_OUT_JSON;
            } else if (strcmp(optarg, "yaml") == 0) {
                c.out = CLI_OUT_YAML;
            } else {
                fprintf(stderr, "musterctl: -o: expected table, wide, json or yaml, got %s\n",
                        optarg);
                return 2;
            }
            break;
        case 'h':
        case O_HELP:
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (c.insecure && ca) {
        fprintf(stderr, "musterctl: --insecure-skip-tls-verify and --certificate-authority "
                        "exclude each other\n");
        return 2;
    }
    int rc = config_load(&c);
    if (rc)
        goto out;
    c.server = pick(server, "MUSTER_SERVER", c.cfg[0], CLI_DEFAULT_SERVER);
    c.token = pick(token, "MUSTER_TOKEN", c.cfg[1], NULL);
    c.ca = c.insecure ? NULL : pick(ca, NULL, c.cfg[2], NULL);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "musterctl: libcurl failed to start\n");
        rc = 1;
        goto out;
    }
    c.curl = curl_easy_init();
    if (!c.curl) {
        fprintf(stderr, "musterctl: out of memory\n");
        rc = 1;
    } else {
        rc = run(&c, argc - optind, argv + optind, &co, file);
        curl_easy_cleanup(c.curl);
    }
    curl_global_cleanup();
out:
    for (size_t i = 0; i < 3; i++) {
        if (c.cfg[i])
            explicit_bzero(c.cfg[i], strlen(c.cfg[i]));
        muster_free(c.cfg[i]);
    }
    return rc;
}
