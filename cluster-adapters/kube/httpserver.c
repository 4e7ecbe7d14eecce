/* Shared pieces of muster's h2o servers (see httpserver.h). */
#include "cluster-adapters/kube/httpserver.h"

#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"

#include <h2o.h>
#include <openssl/err.h>
#include <stdio.h>

static int tls_fail(SSL_CTX *ctx, char *err, size_t errcap, const char *flag, const char *path)
{
    char ossl[256] = "";
    unsigned long e = ERR_get_error();
    if (e)
        ERR_error_string_n(e, ossl, sizeof(ossl));
    if (errcap)
        snprintf(err, errcap, "%s %s: %s", flag, path ? path : "(not given)",
                 ossl[0] ? ossl : "cannot be loaded");
    ERR_clear_error();
    SSL_CTX_free(ctx);
    return MUSTER_ECONFIG;
}

int kube_tls_server_ctx(const struct kube_tls_server_opts *o, SSL_CTX **out, char *err,
                        size_t errcap)
{
    *out = NULL;
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        return MUSTER_ENOMEM;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    if (!o->cert_file || SSL_CTX_use_certificate_chain_file(ctx, o->cert_file) != 1)
        return tls_fail(ctx, err, errcap, o->cert_flag, o->cert_file);
    if (!o->key_file || SSL_CTX_use_PrivateKey_file(ctx, o->key_file, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1)
        return tls_fail(ctx, err, errcap, o->key_flag, o->key_file);
    if (o->client_ca) {
        if (SSL_CTX_load_verify_locations(ctx, o->client_ca, NULL) != 1)
            return tls_fail(ctx, err, errcap, o->ca_flag, o->client_ca);
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(o->client_ca);
        if (names)
            SSL_CTX_set_client_CA_list(ctx, names);
        SSL_CTX_set_verify(ctx,
                           SSL_VERIFY_PEER |
                               (o->require_client_cert ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
                           NULL);
    }
    /* HTTP/2 for clients that offer it (client-go, curl), HTTP/1.1 otherwise. */
    h2o_ssl_register_alpn_protocols(ctx, h2o_http2_alpn_protocols);
    *out = ctx;
    return 0;
}

const char *kube_http_reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 412:
        return "Precondition Failed";
    case 413:
        return "Payload Too Large";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Entity";
    case 428:
        return "Precondition Required";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    default:
        return status >= 500 ? "Internal Server Error" : "OK";
    }
}

/* ---- streamed responses ---- */

int kube_http_stream_reserve(struct kube_http_stream *s, size_t len, size_t cap)
{
    size_t need = s->pending_len + len;
    if (cap && need > cap)
        return MUSTER_ELIMIT;
    if (need > s->pending_cap) {
        size_t n = s->pending_cap ? s->pending_cap : 4096;
        while (n < need)
            n *= 2;
        char *p = muster_realloc(s->pending, n);
        if (!p)
            return MUSTER_ENOMEM;
        s->pending = p;
        s->pending_cap = n;
    }
    return 0;
}

void kube_http_stream_flush(struct kube_http_stream *s)
{
    if (s->stopped || s->sending)
        return;
    muster_free(s->inflight);
    s->inflight = NULL;
    if (s->pending_len) {
        h2o_iovec_t buf = h2o_iovec_init(s->pending, s->pending_len);
        s->inflight = s->pending;
        s->pending = NULL;
        s->pending_len = s->pending_cap = 0;
        s->sending = 1;
        h2o_send(s->req, &buf, 1, H2O_SEND_STATE_IN_PROGRESS);
        return;
    }
    if (!s->ending)
        return;
    s->stopped = 1;
    if (s->before_final)
        s->before_final(s);
    h2o_send(s->req, NULL, 0, H2O_SEND_STATE_FINAL);
}

void kube_http_stream_free(struct kube_http_stream *s)
{
    muster_free(s->inflight);
    muster_free(s->pending);
    s->inflight = s->pending = NULL;
}
