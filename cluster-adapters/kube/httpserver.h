/* What muster's two h2o servers (the simulated hub, the admin API) share: one OpenSSL server
 * context with a certificate chain and key, TLS 1.2 or later, optional client-certificate
 * verification and ALPN offering h2 then http/1.1; and the HTTP reason phrases. */
#ifndef MUSTER_KUBE_HTTPSERVER_H
#define MUSTER_KUBE_HTTPSERVER_H

#include <openssl/ssl.h>
#include <stddef.h>

struct kube_tls_server_opts {
    const char *cert_file;   /* PEM certificate chain */
    const char *key_file;    /* PEM private key matching it */
    const char *client_ca;   /* PEM CA bundle for client certificates, or NULL */
    int require_client_cert; /* with client_ca: refuse clients without one */
    /* How the caller's flags are called, for messages ("--tls-cert-file"). */
    const char *cert_flag, *key_flag, *ca_flag;
};

/* Builds the context into *out. On failure *out is NULL, err names the flag, the path and
 * OpenSSL's reason ("--tls-cert-file /x.pem: ... no such file"), and the return is MUSTER_ECONFIG
 * (or MUSTER_ENOMEM). The caller frees *out with SSL_CTX_free. */
int kube_tls_server_ctx(const struct kube_tls_server_opts *o, SSL_CTX **out, char *err,
                        size_t errcap);

/* The reason phrase for an HTTP status (RFC 9110), "Internal Server Error" for unknown 5xx and
 * "OK" for other unknown codes. Static storage. */
const char *kube_http_reason(int status);

#endif
