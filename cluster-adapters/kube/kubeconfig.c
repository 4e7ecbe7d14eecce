/* Kubeconfig (libyaml) and in-cluster service-account configuration, resolved to one server. */
#include "cluster-adapters/kube/kubeconfig.h"

#include "cluster-adapters/kube/base64.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "queue/mem.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

void kube_config_close(struct kube_config *cfg)
{
    if (!cfg)
        return;
    muster_free(cfg->source);
    muster_free(cfg->context);
    muster_free(cfg->server);
    muster_free(cfg->namespace);
    muster_free(cfg->ca);
    muster_free(cfg->cert);
    if (cfg->key) {
        /* Private key material should not linger in freed heap. */
        memset(cfg->key, 0, cfg->key_len);
        muster_free(cfg->key);
    }
    if (cfg->token) {
        memset(cfg->token, 0, strlen(cfg->token));
        muster_free(cfg->token);
    }
    muster_free(cfg->token_file);
    memset(cfg, 0, sizeof(*cfg));
}

/* Formats "prefix: message" into err. */
static void set_err(char *err, size_t errcap, const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_err(char *err, size_t errcap, const char *prefix, const char *fmt, ...)
{
    if (!err || errcap == 0)
        return;
    int n = snprintf(err, errcap, "%s: ", prefix);
    if (n < 0 || (size_t)n >= errcap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errcap - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Strips trailing whitespace (tokens are often written with a newline). */
static void rtrim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
}

/* (Re-)reads the token file. Returns 0 or a MUSTER_* code; on failure the old token stays. */
static int token_reload(struct kube_config *cfg, const struct stat *st)
{
    char *data, why[128];
    size_t len;
    int rc = kube_file_read(cfg->token_file, KUBE_TOKEN_MAX_BYTES, &data, &len, why, sizeof(why));
    if (rc < 0)
        return rc;
    rtrim(data);
    if (cfg->token) {
        memset(cfg->token, 0, strlen(cfg->token));
        muster_free(cfg->token);
    }
    cfg->token = data;
    cfg->token_mtime = st->st_mtim;
    cfg->token_size = st->st_size;
    return 0;
}

const char *kube_config_token(struct kube_config *cfg, uint64_t now_ms)
{
    if (!cfg->token_file)
        return cfg->token;
    if (cfg->token && now_ms - cfg->token_checked_ms < KUBE_TOKEN_RECHECK_MS)
        return cfg->token;
    cfg->token_checked_ms = now_ms;
    struct stat st;
    if (stat(cfg->token_file, &st) != 0)
        return cfg->token;
    if (cfg->token && st.st_mtim.tv_sec == cfg->token_mtime.tv_sec &&
        st.st_mtim.tv_nsec == cfg->token_mtime.tv_nsec && st.st_size == cfg->token_size)
        return cfg->token;
    token_reload(cfg, &st);
    return cfg->token;
}

/* ---- in-cluster ---- */

int kube_config_load_incluster(struct kube_config *cfg, const char *dir, char *err, size_t errcap)
{
    memset(cfg, 0, sizeof(*cfg));
    if (!dir)
        dir = KUBE_INCLUSTER_DIR;
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port) {
        set_err(err, errcap, "in-cluster",
                "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set");
        return MUSTER_ECONFIG;
    }
    char path[PATH_MAX];
    char server[512];
    int rc = MUSTER_ENOMEM;
    /* An IPv6 service address needs brackets in a URL. */
    int v6 = strchr(host, ':') != NULL;
    int n = snprintf(server, sizeof(server), "https://%s%s%s:%s", v6 ? "[" : "", host,
                     v6 ? "]" : "", port);
    if (n < 0 || (size_t)n >= sizeof(server)) {
        set_err(err, errcap, "in-cluster", "KUBERNETES_SERVICE_HOST is too long");
        return MUSTER_ECONFIG;
    }
    cfg->source = muster_strdup("in-cluster");
    cfg->server = muster_strdup(server);
    if (!cfg->source || !cfg->server)
        goto fail;

    snprintf(path, sizeof(path), "%s/token", dir);
    cfg->token_file = muster_strdup(path);
    if (!cfg->token_file)
        goto fail;
    struct stat st;
    if (stat(path, &st) != 0) {
        set_err(err, errcap, path, "service-account token: %s", strerror(errno));
        rc = MUSTER_ECONFIG;
        goto fail;
    }
    rc = token_reload(cfg, &st);
    if (rc < 0) {
        set_err(err, errcap, path, "service-account token: cannot read (%s)", kube_strerror(rc));
        goto fail;
    }

    char why[128], *ca;
    snprintf(path, sizeof(path), "%s/ca.crt", dir);
    rc = kube_file_read(path, KUBE_CONFIG_MAX_FILE_BYTES, &ca, &cfg->ca_len, why, sizeof(why));
    cfg->ca = (unsigned char *)ca;
    if (rc < 0) {
        set_err(err, errcap, path, "service-account CA: %s", why);
        rc = MUSTER_ECONFIG;
        goto fail;
    }

    snprintf(path, sizeof(path), "%s/namespace", dir);
    char *ns;
    size_t ns_len;
    if (kube_file_read(path, 4096, &ns, &ns_len, why, sizeof(why)) == 0) {
        rtrim(ns);
        cfg->namespace = ns;
    } else {
        cfg->namespace = muster_strdup("default");
        if (!cfg->namespace) {
            rc = MUSTER_ENOMEM;
            goto fail;
        }
    }
    return 0;
fail:
    if (rc == MUSTER_ENOMEM)
        set_err(err, errcap, "in-cluster", "out of memory");
    kube_config_close(cfg);
    return rc;
}

/* ---- kubeconfig files ---- */

struct kc {
    const char *file;
    char dir[PATH_MAX];
    yaml_document_t doc;
    char *err;
    size_t errcap;
};

static void kc_fail(struct kc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kc_fail(struct kc *p, const char *fmt, ...)
{
    if (!p->err || p->errcap == 0)
        return;
    int n = snprintf(p->err, p->errcap, "%s: ", p->file);
    if (n < 0 || (size_t)n >= p->errcap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errcap - (size_t)n, fmt, ap);
    va_end(ap);
}

static yaml_node_t *kc_get(struct kc *p, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *k = yaml_document_get_node(&p->doc, pr->key);
        if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == strlen(key) &&
            memcmp(k->data.scalar.value, key, k->data.scalar.length) == 0)
            return yaml_document_get_node(&p->doc, pr->value);
    }
    return NULL;
}

/* The scalar at map[key] as a string, NULL when absent or null. Non-scalars are an error. */
static int kc_str(struct kc *p, yaml_node_t *map, const char *key, const char *where,
                  const char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    yaml_node_t *n = kc_get(p, map, key);
    if (!n)
        return 0;
    if (n->type != YAML_SCALAR_NODE) {
        kc_fail(p, "%s.%s: expected a string", where, key);
        return MUSTER_ECONFIG;
    }
    const char *v = (const char *)n->data.scalar.value;
    /* An unquoted `null` or `~` is YAML's null; kubectl writes unset strings as "". Both are
     * as empty as an absent key. */
    if (n->data.scalar.length == 0 || (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                                       (strcmp(v, "null") == 0 || strcmp(v, "~") == 0)))
        return 0;
    *out = v;
    if (len)
        *len = n->data.scalar.length;
    return 0;
}

/* Finds the entry of the sequence root[list] whose `name` is name; *idx is its position. */
static yaml_node_t *kc_find(struct kc *p, const char *list, const char *name, size_t *idx)
{
    yaml_node_t *seq = kc_get(p, yaml_document_get_root_node(&p->doc), list);
    if (!seq || seq->type != YAML_SEQUENCE_NODE)
        return NULL;
    size_t i = 0;
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++, i++) {
        yaml_node_t *e = yaml_document_get_node(&p->doc, *it);
        const char *n = NULL;
        yaml_node_t *nn = kc_get(p, e, "name");
        if (nn && nn->type == YAML_SCALAR_NODE)
            n = (const char *)nn->data.scalar.value;
        if (n && strcmp(n, name) == 0) {
            *idx = i;
            return e;
        }
    }
    return NULL;
}

/* Resolves a path from the file against the file's directory. */
static int kc_path(struct kc *p, const char *rel, char *out, size_t cap)
{
    int n =
        rel[0] == '/' ? snprintf(out, cap, "%s", rel) : snprintf(out, cap, "%s/%s", p->dir, rel);
    return n < 0 || (size_t)n >= cap ? MUSTER_ENOSPC : 0;
}

/* Loads one piece of material given either inline as base64 `<key>-data` or as a file path
 * `<key>`; inline wins, as in client-go. */
static int kc_blob(struct kc *p, yaml_node_t *map, const char *where, const char *key,
                   unsigned char **out, size_t *out_len)
{
    char dkey[64];
    snprintf(dkey, sizeof(dkey), "%s-data", key);
    const char *data, *file;
    size_t data_len;
    int rc = kc_str(p, map, dkey, where, &data, &data_len);
    if (rc < 0)
        return rc;
    if (data) {
        rc = kube_base64_decode(data, data_len, out, out_len);
        if (rc == MUSTER_EINVAL) {
            kc_fail(p, "%s.%s: not valid base64", where, dkey);
            return MUSTER_ECONFIG;
        }
        return rc;
    }
    rc = kc_str(p, map, key, where, &file, NULL);
    if (rc < 0 || !file)
        return rc;
    char path[PATH_MAX];
    if (kc_path(p, file, path, sizeof(path)) < 0) {
        kc_fail(p, "%s.%s: path too long", where, key);
        return MUSTER_ECONFIG;
    }
    char why[128], *bytes;
    rc = kube_file_read(path, KUBE_CONFIG_MAX_FILE_BYTES, &bytes, out_len, why, sizeof(why));
    *out = (unsigned char *)bytes;
    if (rc < 0) {
        kc_fail(p, "%s.%s: cannot read %s: %s", where, key, path, why);
        return rc == MUSTER_ENOMEM ? rc : MUSTER_ECONFIG;
    }
    return 0;
}

static int kc_dup(struct kc *p, const char *s, char **out)
{
    *out = muster_strdup(s);
    if (!*out) {
        kc_fail(p, "out of memory");
        return MUSTER_ENOMEM;
    }
    return 0;
}

static int kc_resolve(struct kc *p, struct kube_config *cfg, const char *context)
{
    yaml_node_t *root = yaml_document_get_root_node(&p->doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        kc_fail(p, "not a kubeconfig (expected a mapping at the top)");
        return MUSTER_ECONFIG;
    }
    int rc;
    const char *ctx_name = context;
    if (!ctx_name) {
        rc = kc_str(p, root, "current-context", "", &ctx_name, NULL);
        if (rc < 0)
            return rc;
        if (!ctx_name) {
            kc_fail(p, "current-context: not set, and no --context given");
            return MUSTER_ECONFIG;
        }
    }
    size_t ci, ui, ki;
    yaml_node_t *ctx_entry = kc_find(p, "contexts", ctx_name, &ci);
    if (!ctx_entry) {
        kc_fail(p, "contexts: no context named \"%s\"", ctx_name);
        return MUSTER_ECONFIG;
    }
    char where[128];
    snprintf(where, sizeof(where), "contexts[%zu].context", ci);
    yaml_node_t *ctx = kc_get(p, ctx_entry, "context");
    if (!ctx || ctx->type != YAML_MAPPING_NODE) {
        kc_fail(p, "%s: missing", where);
        return MUSTER_ECONFIG;
    }
    const char *cluster_name, *user_name, *ns;
    rc = kc_str(p, ctx, "cluster", where, &cluster_name, NULL);
    if (!rc)
        rc = kc_str(p, ctx, "user", where, &user_name, NULL);
    if (!rc)
        rc = kc_str(p, ctx, "namespace", where, &ns, NULL);
    if (rc < 0)
        return rc;
    if (!cluster_name) {
        kc_fail(p, "%s.cluster: missing", where);
        return MUSTER_ECONFIG;
    }
    rc = kc_dup(p, ctx_name, &cfg->context);
    if (!rc)
        rc = kc_dup(p, ns ? ns : "default", &cfg->namespace);
    if (!rc)
        rc = kc_dup(p, p->file, &cfg->source);
    if (rc < 0)
        return rc;

    yaml_node_t *cl_entry = kc_find(p, "clusters", cluster_name, &ki);
    if (!cl_entry) {
        kc_fail(p, "clusters: no cluster named \"%s\" (used by context \"%s\")", cluster_name,
                ctx_name);
        return MUSTER_ECONFIG;
    }
    snprintf(where, sizeof(where), "clusters[%zu].cluster", ki);
    yaml_node_t *cl = kc_get(p, cl_entry, "cluster");
    const char *server, *insecure;
    rc = kc_str(p, cl, "server", where, &server, NULL);
    if (!rc)
        rc = kc_str(p, cl, "insecure-skip-tls-verify", where, &insecure, NULL);
    if (rc < 0)
        return rc;
    if (!server) {
        kc_fail(p, "%s.server: missing", where);
        return MUSTER_ECONFIG;
    }
    if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0) {
        kc_fail(p, "%s.server: \"%s\" is not an http:// or https:// URL", where, server);
        return MUSTER_ECONFIG;
    }
    rc = kc_dup(p, server, &cfg->server);
    if (rc < 0)
        return rc;
    size_t sl = strlen(cfg->server);
    while (sl && cfg->server[sl - 1] == '/')
        cfg->server[--sl] = 0;
    if (insecure && strcmp(insecure, "true") == 0)
        cfg->insecure = 1;
    else if (insecure && strcmp(insecure, "false") != 0) {
        kc_fail(p, "%s.insecure-skip-tls-verify: expected true or false", where);
        return MUSTER_ECONFIG;
    }
    rc = kc_blob(p, cl, where, "certificate-authority", &cfg->ca, &cfg->ca_len);
    if (rc < 0)
        return rc;

    if (!user_name)
        return 0; /* anonymous */
    yaml_node_t *u_entry = kc_find(p, "users", user_name, &ui);
    if (!u_entry) {
        kc_fail(p, "users: no user named \"%s\" (used by context \"%s\")", user_name, ctx_name);
        return MUSTER_ECONFIG;
    }
    snprintf(where, sizeof(where), "users[%zu].user", ui);
    yaml_node_t *u = kc_get(p, u_entry, "user");
    if (kc_get(p, u, "exec") || kc_get(p, u, "auth-provider")) {
        kc_fail(p,
                "%s: exec and auth-provider credential plugins are not supported; use a "
                "token, tokenFile or client certificate",
                where);
        return MUSTER_ECONFIG;
    }
    rc = kc_blob(p, u, where, "client-certificate", &cfg->cert, &cfg->cert_len);
    if (!rc)
        rc = kc_blob(p, u, where, "client-key", &cfg->key, &cfg->key_len);
    if (rc < 0)
        return rc;
    if (!cfg->cert != !cfg->key) {
        kc_fail(p, "%s: client-certificate and client-key must be given together", where);
        return MUSTER_ECONFIG;
    }
    const char *token, *token_file;
    rc = kc_str(p, u, "token", where, &token, NULL);
    if (!rc)
        rc = kc_str(p, u, "tokenFile", where, &token_file, NULL);
    if (!rc && token)
        rc = kc_dup(p, token, &cfg->token);
    if (rc < 0)
        return rc;
    if (token_file) {
        char path[PATH_MAX];
        if (kc_path(p, token_file, path, sizeof(path)) < 0) {
            kc_fail(p, "%s.tokenFile: path too long", where);
            return MUSTER_ECONFIG;
        }
        rc = kc_dup(p, path, &cfg->token_file);
        if (rc < 0)
            return rc;
        struct stat st;
        rc = stat(path, &st) == 0 ? token_reload(cfg, &st) : MUSTER_ENOENT;
        if (rc == MUSTER_ENOMEM) {
            kc_fail(p, "out of memory");
            return rc;
        }
        if (rc < 0) {
            kc_fail(p, "%s.tokenFile: cannot read %s", where, path);
            return MUSTER_ECONFIG;
        }
    }
    return 0;
}

int kube_config_parse(struct kube_config *cfg, const char *text, size_t len, const char *path,
                      const char *context, char *err, size_t errcap)
{
    memset(cfg, 0, sizeof(*cfg));
    struct kc p = {.file = path, .err = err, .errcap = errcap};
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(p.dir, sizeof(p.dir), ".");
    else if (slash == path)
        snprintf(p.dir, sizeof(p.dir), "/");
    else
        snprintf(p.dir, sizeof(p.dir), "%.*s", (int)(slash - path), path);
    if (len > KUBE_CONFIG_MAX_BYTES) {
        kc_fail(&p, "larger than %d bytes", KUBE_CONFIG_MAX_BYTES);
        return MUSTER_ECONFIG;
    }

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        kc_fail(&p, "out of memory");
        return MUSTER_ENOMEM;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &p.doc)) {
        kc_fail(&p, "%zu:%zu: %s", parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                parser.problem ? parser.problem : "YAML syntax error");
        yaml_parser_delete(&parser);
        return MUSTER_ECONFIG;
    }
    yaml_parser_delete(&parser);
    int rc = kc_resolve(&p, cfg, context);
    yaml_document_delete(&p.doc);
    if (rc < 0)
        kube_config_close(cfg);
    return rc;
}

int kube_config_load_file(struct kube_config *cfg, const char *path, const char *context, char *err,
                          size_t errcap)
{
    memset(cfg, 0, sizeof(*cfg));
    char *text, why[128];
    size_t len;
    int rc = kube_file_read(path, KUBE_CONFIG_MAX_BYTES, &text, &len, why, sizeof(why));
    if (rc < 0) {
        set_err(err, errcap, path, "cannot read: %s", why);
        return rc == MUSTER_ENOMEM ? rc : MUSTER_ECONFIG;
    }
    rc = kube_config_parse(cfg, text, len, path, context, err, errcap);
    /* The text may hold inline keys and tokens. */
    memset(text, 0, len);
    muster_free(text);
    return rc;
}

int kube_config_load(struct kube_config *cfg, const struct kube_config_opts *opts, char *err,
                     size_t errcap)
{
    static const struct kube_config_opts none;
    if (!opts)
        opts = &none;
    if (opts->kubeconfig && *opts->kubeconfig)
        return kube_config_load_file(cfg, opts->kubeconfig, opts->context, err, errcap);
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    if (host && *host && port && *port)
        return kube_config_load_incluster(cfg, opts->incluster_dir, err, errcap);
    char path[PATH_MAX];
    const char *env = getenv("KUBECONFIG");
    if (env && *env) {
        /* Only the first file of a colon-separated list; kubectl would merge them. */
        size_t n = strcspn(env, ":");
        if (n >= sizeof(path)) {
            set_err(err, errcap, "$KUBECONFIG", "first path too long");
            return MUSTER_ECONFIG;
        }
        snprintf(path, sizeof(path), "%.*s", (int)n, env);
        if (n > 0)
            return kube_config_load_file(cfg, path, opts->context, err, errcap);
    }
    const char *home = getenv("HOME");
    if (home && *home) {
        snprintf(path, sizeof(path), "%s/.kube/config", home);
        struct stat st;
        if (stat(path, &st) == 0)
            return kube_config_load_file(cfg, path, opts->context, err, errcap);
    }
    memset(cfg, 0, sizeof(*cfg));
    set_err(err, errcap, "kubeconfig",
            "none found: pass --kubeconfig, run in a pod, set $KUBECONFIG or create "
            "~/.kube/config");
    return MUSTER_ENOENT;
}
