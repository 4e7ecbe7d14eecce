/* Tests for cluster-adapters/kube/kubeconfig.c: fixtures, a kubectl-written file, in-cluster
 * config, lookup order, token rotation, and errors that name file and key but no secret. */
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static char fixture_dir[1024];

static const char *fixture(const char *name)
{
    static char buf[1200];
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(buf, sizeof(buf), "%s/tests/fixtures/kubeconfig/%s", src ? src : ".", name);
    snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures/kubeconfig", src ? src : ".");
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    fclose(f);
}

static int blob_eq(const unsigned char *b, size_t n, const char *s)
{
    return b && n == strlen(s) && memcmp(b, s, n) == 0;
}

static void test_current_context_inline_data(void)
{
    struct kube_config cfg;
    char err[512] = "";
    CU_ASSERT_EQUAL_FATAL(
        kube_config_load_file(&cfg, fixture("multi.yaml"), NULL, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(cfg.context, "hub-certs");
    CU_ASSERT_STRING_EQUAL(cfg.server, "https://hub.example:6443"); /* trailing slash dropped */
    CU_ASSERT_STRING_EQUAL(cfg.namespace, "team-a");
    CU_ASSERT(blob_eq(cfg.ca, cfg.ca_len,
                      "-----BEGIN CERTIFICATE-----\nTUlJQ0ZJWFRVUkVDQQ==\n"
                      "-----END CERTIFICATE-----\n")); /* relative path, resolved */
    CU_ASSERT(blob_eq(cfg.cert, cfg.cert_len,
                      "-----BEGIN CERTIFICATE-----\nTUlJQ0ZJWFRVUkVDRVJU\n"
                      "-----END CERTIFICATE-----\n"));
    CU_ASSERT(
        blob_eq(cfg.key, cfg.key_len,
                "-----BEGIN PRIVATE KEY-----\nTk9UQVJFQUxLRVk=\n-----END PRIVATE KEY-----\n"));
    CU_ASSERT_PTR_NULL(cfg.token);
    CU_ASSERT_EQUAL(cfg.insecure, 0);
    kube_config_close(&cfg);
    kube_config_close(&cfg); /* zeroed: a no-op */
}

static void test_context_override(void)
{
    struct kube_config cfg;
    char err[512] = "";
    CU_ASSERT_EQUAL_FATAL(
        kube_config_load_file(&cfg, fixture("multi.yaml"), "lab-token", err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(cfg.server, "https://10.1.2.3:443");
    CU_ASSERT_STRING_EQUAL(cfg.namespace, "default");
    CU_ASSERT_EQUAL(cfg.insecure, 1);
    CU_ASSERT_STRING_EQUAL(kube_config_token(&cfg, 0), "literal-token-xyz");
    CU_ASSERT_PTR_NULL(cfg.ca);
    kube_config_close(&cfg);

    CU_ASSERT_EQUAL_FATAL(
        kube_config_load_file(&cfg, fixture("multi.yaml"), "hub-files", err, sizeof(err)), 0);
    CU_ASSERT(cfg.cert_len > 0 && cfg.key_len > 0);
    CU_ASSERT_STRING_EQUAL(kube_config_token(&cfg, 0), "file-token-1");
    kube_config_close(&cfg);

    CU_ASSERT_EQUAL(kube_config_load_file(&cfg, fixture("multi.yaml"), "nope", err, sizeof(err)),
                    MUSTER_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "contexts: no context named \"nope\""));
}

static void test_errors_name_file_and_key(void)
{
    struct kube_config cfg;
    char err[512] = "";
    char want[1400];
    const char *path = fixture("bad-base64.yaml");
    CU_ASSERT_EQUAL(kube_config_load_file(&cfg, path, NULL, err, sizeof(err)), MUSTER_ECONFIG);
    snprintf(want, sizeof(want), "%s: users[0].user.client-key-data: not valid base64", path);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_PTR_NULL(strstr(err, "do-not-print-me"));
    CU_ASSERT_PTR_NULL(strstr(err, "c2VjcmV0"));
    CU_ASSERT_PTR_NULL(cfg.server); /* zeroed on failure */

    path = fixture("missing-file.yaml");
    CU_ASSERT_EQUAL(kube_config_load_file(&cfg, path, NULL, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "clusters[0].cluster.certificate-authority: cannot read"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-ca.crt"));

    path = fixture("bad-syntax.yaml");
    CU_ASSERT_EQUAL(kube_config_load_file(&cfg, path, NULL, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(strncmp(err, path, strlen(path)) == 0);

    path = fixture("exec.yaml");
    CU_ASSERT_EQUAL(kube_config_load_file(&cfg, path, NULL, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "users[0].user: exec"));

    CU_ASSERT_EQUAL(kube_config_load_file(&cfg, "/no/such/kubeconfig", NULL, err, sizeof(err)),
                    MUSTER_ECONFIG);
    CU_ASSERT(strncmp(err, "/no/such/kubeconfig: cannot read", 32) == 0);
}

/* kubectl writes the file; we read it back. */
static void test_kubectl_written(void)
{
    char dir[512], cfgpath[700], out[700], cmd[8192];
    test_tmp_path(dir, sizeof(dir), "kubectl-cfg");
    mkdir(dir, 0700);
    snprintf(cfgpath, sizeof(cfgpath), "%s/config", dir);
    snprintf(out, sizeof(out), "%s/view-raw.yaml", dir);
    remove(cfgpath);
    fixture("ca.crt");
    snprintf(cmd, sizeof(cmd),
             "set -e; export KUBECONFIG='%s'; "
             "kubectl config set-cluster fleet --server=https://127.0.0.1:7443 "
             "--certificate-authority='%s/ca.crt' --embed-certs=true >/dev/null; "
             "kubectl config set-credentials admin --client-certificate='%s/client.crt' "
             "--client-key='%s/client.key' --embed-certs=true >/dev/null; "
             "kubectl config set-credentials robot --token=robot-token-123 >/dev/null; "
             "kubectl config set-context fleet-admin --cluster=fleet --user=admin "
             "--namespace=karmada-system >/dev/null; "
             "kubectl config set-context fleet-robot --cluster=fleet --user=robot >/dev/null; "
             "kubectl config use-context fleet-admin >/dev/null; "
             "kubectl config view --raw > '%s'",
             cfgpath, fixture_dir, fixture_dir, fixture_dir, out);
    int rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "kubectl not usable (%d); install the kubernetes-client package\n", rc);
        CU_FAIL("kubectl config failed");
        return;
    }
    struct kube_config cfg;
    char err[512] = "";
    CU_ASSERT_EQUAL_FATAL(kube_config_load_file(&cfg, out, NULL, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(cfg.context, "fleet-admin");
    CU_ASSERT_STRING_EQUAL(cfg.server, "https://127.0.0.1:7443");
    CU_ASSERT_STRING_EQUAL(cfg.namespace, "karmada-system");
    CU_ASSERT(blob_eq(cfg.ca, cfg.ca_len,
                      "-----BEGIN CERTIFICATE-----\nTUlJQ0ZJWFRVUkVDQQ==\n"
                      "-----END CERTIFICATE-----\n"));
    CU_ASSERT(
        blob_eq(cfg.key, cfg.key_len,
                "-----BEGIN PRIVATE KEY-----\nTk9UQVJFQUxLRVk=\n-----END PRIVATE KEY-----\n"));
    kube_config_close(&cfg);
    CU_ASSERT_EQUAL_FATAL(kube_config_load_file(&cfg, out, "fleet-robot", err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(kube_config_token(&cfg, 0), "robot-token-123");
    CU_ASSERT_PTR_NULL(cfg.cert);
    kube_config_close(&cfg);
}

static void make_sa_dir(char *dir, size_t cap, const char *token)
{
    char p[800];
    test_tmp_path(dir, cap, "sa");
    mkdir(dir, 0700);
    snprintf(p, sizeof(p), "%s/token", dir);
    write_text(p, token);
    snprintf(p, sizeof(p), "%s/ca.crt", dir);
    write_text(p, "-----BEGIN CERTIFICATE-----\nSA\n-----END CERTIFICATE-----\n");
    snprintf(p, sizeof(p), "%s/namespace", dir);
    write_text(p, "muster-system\n");
}

static void test_incluster_and_rotation(void)
{
    char dir[512], p[800], err[512] = "";
    make_sa_dir(dir, sizeof(dir), "sa-token-1\n");
    struct kube_config cfg;
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    CU_ASSERT_EQUAL(kube_config_load_incluster(&cfg, dir, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "KUBERNETES_SERVICE_HOST"));

    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    struct kube_config_opts opts = {.incluster_dir = dir};
    CU_ASSERT_EQUAL_FATAL(kube_config_load(&cfg, &opts, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(cfg.source, "in-cluster");
    CU_ASSERT_STRING_EQUAL(cfg.server, "https://[fd00::1]:443");
    CU_ASSERT_STRING_EQUAL(cfg.namespace, "muster-system");
    CU_ASSERT(blob_eq(cfg.ca, cfg.ca_len,
                      "-----BEGIN CERTIFICATE-----\nSA\n-----END CERTIFICATE-----\n"));
    CU_ASSERT_STRING_EQUAL(kube_config_token(&cfg, 10000), "sa-token-1");

    /* The kubelet rotates the token: a new file content (and size). */
    snprintf(p, sizeof(p), "%s/token", dir);
    write_text(p, "sa-token-rotated-2\n");
    CU_ASSERT_STRING_EQUAL(kube_config_token(&cfg, 10000 + 10), "sa-token-1"); /* throttled */
    CU_ASSERT_STRING_EQUAL(kube_config_token(&cfg, 10000 + 2 * KUBE_TOKEN_RECHECK_MS),
                           "sa-token-rotated-2");
    /* A vanished file keeps the last good token. */
    remove(p);
    CU_ASSERT_STRING_EQUAL(kube_config_token(&cfg, 10000 + 4 * KUBE_TOKEN_RECHECK_MS),
                           "sa-token-rotated-2");
    kube_config_close(&cfg);

    /* An explicit --kubeconfig wins over in-cluster. */
    opts.kubeconfig = fixture("multi.yaml");
    CU_ASSERT_EQUAL_FATAL(kube_config_load(&cfg, &opts, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(cfg.server, "https://hub.example:6443");
    kube_config_close(&cfg);

    /* Token file missing: the error names the file. */
    opts.kubeconfig = NULL;
    CU_ASSERT_EQUAL(kube_config_load(&cfg, &opts, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/token: service-account token"));
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
}

static void test_lookup_order(void)
{
    char home[512], kdir[800], p[900], list[2400], err[512] = "";
    struct kube_config cfg;
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *old_kc = getenv("KUBECONFIG") ? strdup(getenv("KUBECONFIG")) : NULL;

    /* $KUBECONFIG: only the first file of a list is read. */
    snprintf(list, sizeof(list), "%s:/does/not/exist", fixture("multi.yaml"));
    setenv("KUBECONFIG", list, 1);
    CU_ASSERT_EQUAL_FATAL(kube_config_load(&cfg, NULL, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(cfg.context, "hub-certs");
    kube_config_close(&cfg);
    struct kube_config_opts opts = {.context = "lab-token"};
    CU_ASSERT_EQUAL_FATAL(kube_config_load(&cfg, &opts, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(cfg.server, "https://10.1.2.3:443");
    kube_config_close(&cfg);

    /* ~/.kube/config */
    unsetenv("KUBECONFIG");
    test_tmp_path(home, sizeof(home), "home");
    mkdir(home, 0700);
    snprintf(kdir, sizeof(kdir), "%s/.kube", home);
    mkdir(kdir, 0700);
    snprintf(p, sizeof(p), "%s/config", kdir);
    write_text(p, "apiVersion: v1\nkind: Config\ncurrent-context: h\nclusters:\n- name: c\n"
                  "  cluster:\n    server: http://127.0.0.1:1\ncontexts:\n- name: h\n"
                  "  context:\n    cluster: c\n");
    setenv("HOME", home, 1);
    CU_ASSERT_EQUAL_FATAL(kube_config_load(&cfg, NULL, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(cfg.server, "http://127.0.0.1:1");
    CU_ASSERT_STRING_EQUAL(cfg.source, p);
    kube_config_close(&cfg);

    remove(p);
    CU_ASSERT_EQUAL(kube_config_load(&cfg, NULL, err, sizeof(err)), MUSTER_ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--kubeconfig"));

    if (old_home)
        setenv("HOME", old_home, 1);
    if (old_kc)
        setenv("KUBECONFIG", old_kc, 1);
    free(old_home);
    free(old_kc);
}

/* Every allocation failure comes back as MUSTER_ENOMEM with nothing leaked, until the load
 * succeeds. */
static void test_allocation_failures(void)
{
    struct muster_mem_stats before, after;
    int succeeded = 0;
    for (long n = 0; n < 500 && !succeeded; n++) {
        struct kube_config cfg;
        char err[512];
        muster_mem_stats(&before);
        muster_mem_fail_after(n);
        int rc = kube_config_load_file(&cfg, fixture("multi.yaml"), "hub-files", err, sizeof(err));
        muster_mem_fail_after(-1);
        if (rc == 0) {
            succeeded = 1;
            CU_ASSERT_STRING_EQUAL(kube_config_token(&cfg, 0), "file-token-1");
            kube_config_close(&cfg);
        } else {
            CU_ASSERT_EQUAL(rc, MUSTER_ENOMEM);
            CU_ASSERT_PTR_NULL(cfg.server);
        }
        muster_mem_stats(&after);
        CU_ASSERT_EQUAL(after.allocs - before.allocs, after.frees - before.frees);
    }
    CU_ASSERT(succeeded);
    muster_mem_reset();
}

static CU_TestInfo tests[] = {
    {"current-context, relative paths, inline data", test_current_context_inline_data},
    {"--context override, token, tokenFile", test_context_override},
    {"errors name file and key, never a secret", test_errors_name_file_and_key},
    {"file written by kubectl config view --raw", test_kubectl_written},
    {"in-cluster config and token rotation", test_incluster_and_rotation},
    {"lookup order", test_lookup_order},
    {"allocation failures", test_allocation_failures},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/kubeconfig", tests)
