/* What muster's two h2o servers (the simulated hub, the admin API) share: one OpenSSL server
 * context with a certificate chain and key, TLS 1.2 or later, optional client-certificate
 * verification and ALPN offering h2 then http/1.1; the HTTP reason phrases; and the buffered
 * body of a streamed response (watch streams, server-sent events). */
#ifndef MUSTER_KUBE_HTTPSERVER_H
#define MUSTER_KUBE_HTTPSERVER_H

#include <h2o.h>
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

/* The body of a streamed response, one h2o_send in flight at a time: bytes queued while h2o
 * writes the previous batch go out together when it asks for more. The owner embeds it, sets
 * req, and calls kube_http_stream_flush from its generator's proceed (after clearing sending)
 * and after queueing. */
struct kube_http_stream {
    h2o_req_t *req;
    char *inflight; /* handed to h2o; freed when it asks for more */
    char *pending;
    size_t pending_len, pending_cap;
    int sending;
    int ending;  /* send the final chunk once the queue is flushed */
    int stopped; /* final chunk sent or the client went away: never touch req again */
    /* Called just before the final chunk goes out (the response may be freed by it): the owner
     * forgets the stream here. May be NULL. */
    void (*before_final)(struct kube_http_stream *s);
};

/* Makes room for len more bytes at pending + pending_len (the caller writes them and adds len
 * to pending_len). 0; MUSTER_ELIMIT when the queue would pass cap (cap 0: no cap); MUSTER_ENOMEM.
 * Either failure means the client cannot be kept up with: end the stream. */
int kube_http_stream_reserve(struct kube_http_stream *s, size_t len, size_t cap);

/* Hands what is queued to h2o when nothing is in flight; once ending and drained, stops the
 * stream, calls before_final and sends the final chunk. */
void kube_http_stream_flush(struct kube_http_stream *s);

/* Frees the buffers (from the response's dispose callback). */
void kube_http_stream_free(struct kube_http_stream *s);

#endif
