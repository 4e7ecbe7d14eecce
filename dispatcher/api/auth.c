/* Who is asking: the token file (SHA-256 of each token, roles), bearer tokens compared in
 * constant time, and the CN of a verified client certificate. */
#include "dispatcher/api/api_int.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "queue/mem.h"
#include "queue/tree.h"

#include <h2o/version.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>

#define API_SHA256_LEN 32

struct api_token {
    unsigned char hash[API_SHA256_LEN];
    char *user;
    enum api_role role;
    char *scope; /* the subtree it may change: "research" for the column "research" + "/" +
                  * two stars; NULL: every queue */
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

const char *api__role_name(enum api_role r)
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

/* The scope column: PATH, a slash and two stars (the queues under PATH, a queue path such as
 * research/nlp), or two stars alone (every queue; also what an empty column means). *out is
 * the path (allocated), NULL for every queue. */
static int scope_parse(const char *s, size_t n, char **out)
{
    *out = NULL;
    if (n == 0 || (n == 2 && memcmp(s, "**", 2) == 0))
        return 0;
    if (n < 4 || memcmp(s + n - 3, "/**", 3) != 0 || n - 3 > API_SCOPE_MAX)
        return MUSTER_EINVAL;
    size_t plen = n - 3;
    for (size_t i = 0;;) {
        const char *seg = s + i, *slash = memchr(seg, '/', plen - i);
        size_t sl = slash ? (size_t)(slash - seg) : plen - i;
        /* an empty segment (a leading, doubled or trailing slash) is no queue name */
        if (!queue_name_valid(seg, sl) || (sl == 4 && memcmp(seg, "root", 4) == 0))
            return MUSTER_EINVAL;
        if (!slash)
            break;
        i += sl + 1;
    }
    *out = muster_strndup(s, plen);
    return *out ? 0 : MUSTER_ENOMEM;
}

/* One line "token,user,role[,scope]". Messages name the line, never the token. */
static int token_line(const char *line, size_t len, size_t lineno, struct api_token *t, char *err,
                      size_t errcap, const char *path)
{
    const char *f[4];
    size_t fl[4];
    size_t nf = 0;
    const char *p = line, *end = line + len;
    while (nf < 4) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        f[nf] = p;
        fl[nf] = c ? (size_t)(c - p) : (size_t)(end - p);
        trim(&f[nf], &fl[nf]);
        nf++;
        if (!c)
            break;
        p = c + 1;
        if (nf == 4) {
            snprintf(err, errcap,
                     "%s:%zu: expected token,user,role[,scope] (at most 4 fields), found more",
                     path, lineno);
            return MUSTER_ECONFIG;
        }
    }
    if (nf < 3 || !fl[1]) {
        snprintf(err, errcap, "%s:%zu: expected token,user,role[,scope]", path, lineno);
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
    int rc = nf == 4 ? scope_parse(f[3], fl[3], &t->scope) : 0;
    if (rc == MUSTER_EINVAL) {
        snprintf(err, errcap,
                 "%s:%zu: scope must be PATH/** (a queue path under root, e.g. research/**) or "
                 "**",
                 path, lineno);
        return MUSTER_ECONFIG;
    }
    if (rc)
        return rc;
    t->cert_only = fl[0] == 0;
    if (!t->cert_only && sha256(f[0], fl[0], t->hash))
        return MUSTER_EIO;
    t->user = muster_strndup(f[1], fl[1]);
    return t->user ? 0 : MUSTER_ENOMEM;
}

void api__tokens_free(struct api_token *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        OPENSSL_cleanse(t[i].hash, sizeof(t[i].hash));
        muster_free(t[i].user);
        muster_free(t[i].scope);
    }
    muster_free(t);
}

/* Reads path into *out (n entries). Only the SHA-256 of each token is kept; the file's bytes
 * are wiped before they are freed. */
int api__tokens_load(const char *path, struct api_token **out, size_t *n, char *err, size_t errcap)
{
    *out = NULL;
    *n = 0;
    char *buf, why[128];
    size_t len;
    int rc = kube_file_read(path, API_TOKEN_FILE_MAX, &buf, &len, why, sizeof(why));
    if (rc == MUSTER_ENOMEM)
        return rc;
    if (rc == MUSTER_ELIMIT) {
        snprintf(err, errcap, "token file %s: %s", path, why); /* "larger than N bytes" */
        return MUSTER_ECONFIG;
    }
    if (rc) {
        snprintf(err, errcap, "token file %s: %s", path, why);
        return MUSTER_EIO;
    }
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
        api__tokens_free(toks, cnt);
        return rc;
    }
    *out = toks;
    *n = cnt;
    return 0;
}

/* h2o 2.2 has no accessor for a socket's SSL, and the peer certificate is only there. Its private
 * struct st_h2o_socket_ssl_t begins with these two members; the build is pinned to 2.2 so a
 * layout change fails here rather than in a request. */
#if H2O_VERSION_MAJOR != 2 || H2O_VERSION_MINOR != 2
#error "api/auth.c reads the SSL of an h2o 2.2 socket: check struct st_h2o_socket_ssl_t"
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
int api__authenticate(struct api_server *s, h2o_req_t *req, int query_ok, const char **user,
                      enum api_role *role, const char **scope)
{
    *scope = NULL;
    if (s->client_certs) {
        char cn[API_CERT_CN_MAX + 1];
        if (client_cn(req, cn, sizeof(cn))) {
            *role = API_ROLE_NONE; /* authenticated, but no role unless the file grants one */
            *user = NULL;
            for (size_t k = 0; k < s->ntokens && !*user; k++) {
                if (strcmp(s->tokens[k].user, cn) == 0) {
                    *user = s->tokens[k].user;
                    *role = s->tokens[k].role;
                    *scope = s->tokens[k].scope;
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
        if (!query_ok || api__query_param(req, "access_token", qtok, sizeof(qtok)) != 1 ||
            !api__url_unescape(qtok))
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
    *scope = found->scope;
    return 0;
}

void api__send_unauthorized(h2o_req_t *req)
{
    api__add_header(req, H2O_TOKEN_WWW_AUTHENTICATE, "Bearer realm=\"muster\"");
    api__send_fail(req, 401, "Unauthorized",
                   "send a valid token: Authorization: Bearer <token> (see --token-auth-file)");
}
