/* Tests for cluster-adapters/kube/httpserver.c: a TLS context from real PEM files, the errors
 * that name the flag and the file (certificates from the openssl command line), and the
 * reason phrases. */
#include "cluster-adapters/kube/httpserver.h"
#include "cluster-adapters/kube/errors.h"
#include "testing.h"

#include <stdlib.h>
#include <string.h>

static char dir[512];

static int sh(const char *cmd)
{
    char full[2048];
    snprintf(full, sizeof(full), "cd '%s' && %s >/dev/null 2>&1", dir, cmd);
    return system(full);
}

static void path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

static void test_context_and_errors(void)
{
    test_tmp_path(dir, sizeof(dir), "httpserver");
    char mk[600];
    snprintf(mk, sizeof(mk), "mkdir -p '%s'", dir);
    CU_ASSERT_EQUAL_FATAL(system(mk), 0);
    CU_ASSERT_EQUAL_FATAL(sh("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=ca "
                             "-keyout ca.key -out ca.crt"), 0);
    CU_ASSERT_EQUAL_FATAL(sh("openssl req -newkey rsa:2048 -nodes -subj /CN=localhost "
                             "-keyout srv.key -out srv.csr && openssl x509 -req -in srv.csr "
                             "-CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -out srv.crt"), 0);
    char cert[600], key[600], ca[600], other[600];
    path(cert, sizeof(cert), "srv.crt");
    path(key, sizeof(key), "srv.key");
    path(ca, sizeof(ca), "ca.crt");
    path(other, sizeof(other), "ca.key"); /* a key that does not match srv.crt */
    char err[512];
    SSL_CTX *ctx;
    struct kube_tls_server_opts o = {cert, key, ca, 1, "--cert", "--key", "--ca"};
    CU_ASSERT_EQUAL(kube_tls_server_ctx(&o, &ctx, err, sizeof(err)), 0);
    CU_ASSERT_PTR_NOT_NULL(ctx);
    CU_ASSERT_EQUAL(SSL_CTX_get_verify_mode(ctx),
                    SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT);
    SSL_CTX_free(ctx);
    o.require_client_cert = 0;
    CU_ASSERT_EQUAL(kube_tls_server_ctx(&o, &ctx, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(SSL_CTX_get_verify_mode(ctx), SSL_VERIFY_PEER);
    SSL_CTX_free(ctx);

    o.key_file = other;
    CU_ASSERT_EQUAL(kube_tls_server_ctx(&o, &ctx, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT_PTR_NULL(ctx);
    CU_ASSERT(strncmp(err, "--key ", 6) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ca.key"));
    o.key_file = key;
    o.cert_file = "/nonexistent.pem";
    CU_ASSERT_EQUAL(kube_tls_server_ctx(&o, &ctx, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(strncmp(err, "--cert /nonexistent.pem: ", 25) == 0);
    o.cert_file = cert;
    o.client_ca = "/nonexistent-ca.pem";
    CU_ASSERT_EQUAL(kube_tls_server_ctx(&o, &ctx, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(strncmp(err, "--ca /nonexistent-ca.pem", 24) == 0);
}

static void test_reasons(void)
{
    CU_ASSERT_STRING_EQUAL(kube_http_reason(412), "Precondition Failed");
    CU_ASSERT_STRING_EQUAL(kube_http_reason(410), "Gone");
    CU_ASSERT_STRING_EQUAL(kube_http_reason(599), "Internal Server Error");
    CU_ASSERT_STRING_EQUAL(kube_http_reason(299), "OK");
}

static CU_TestInfo tests[] = {
    {"a context, and errors naming flag and file", test_context_and_errors},
    {"reason phrases", test_reasons},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/httpserver", tests)
