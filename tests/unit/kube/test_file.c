/* Tests for cluster-adapters/kube/file.c: whole reads at and around the cap, across buffer
 * growth, the failures and their reasons (which never quote the file), and allocation failure. */
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/file.h"
#include "queue/mem.h"
#include "testing.h"

#include <string.h>
#include <sys/stat.h>

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* A file of n bytes cycling through the alphabet. */
static char *make_bytes(size_t n)
{
    char *b = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        b[i] = (char)('a' + i % 26);
    b[n] = '\0';
    return b;
}

static void test_small_and_empty(void)
{
    char path[512], *buf, why[128];
    size_t len;
    test_tmp_path(path, sizeof(path), "file-small");
    write_file(path, "hello\n", 6);
    CU_ASSERT_EQUAL(kube_file_read(path, 100, &buf, &len, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(len, 6);
    CU_ASSERT_STRING_EQUAL(buf, "hello\n");
    muster_free(buf);
    write_file(path, "", 0);
    CU_ASSERT_EQUAL(kube_file_read(path, 100, &buf, &len, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(len, 0);
    CU_ASSERT_PTR_NOT_NULL(buf);
    CU_ASSERT_STRING_EQUAL(buf, "");
    muster_free(buf);
    remove(path);
}

/* Exactly the cap reads; one byte more is refused, for caps below, at and above the first
 * allocation, so growth is crossed both ways. */
static void test_cap_edges(void)
{
    static const size_t caps[] = {1, 10, 4095, 4096, 4097, 8192, 100000};
    char path[512], *buf, why[128];
    size_t len;
    test_tmp_path(path, sizeof(path), "file-cap");
    for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
        char *want = make_bytes(caps[i] + 1);
        write_file(path, want, caps[i]);
        CU_ASSERT_EQUAL(kube_file_read(path, caps[i], &buf, &len, why, sizeof(why)), 0);
        CU_ASSERT_EQUAL(len, caps[i]);
        CU_ASSERT(buf && memcmp(buf, want, caps[i]) == 0 && buf[caps[i]] == '\0');
        muster_free(buf);
        write_file(path, want, caps[i] + 1);
        CU_ASSERT_EQUAL(kube_file_read(path, caps[i], &buf, &len, why, sizeof(why)), MUSTER_ELIMIT);
        CU_ASSERT_PTR_NULL(buf);
        CU_ASSERT_EQUAL(len, 0);
        char msg[64];
        snprintf(msg, sizeof(msg), "larger than %zu bytes", caps[i]);
        CU_ASSERT_STRING_EQUAL(why, msg);
        free(want);
    }
    remove(path);
}

static void test_failures_say_why(void)
{
    char path[512], *buf = (char *)1, why[128];
    size_t len = 7;
    test_tmp_path(path, sizeof(path), "file-none");
    CU_ASSERT_EQUAL(kube_file_read(path, 100, &buf, &len, why, sizeof(why)), MUSTER_ENOENT);
    CU_ASSERT_PTR_NULL(buf);
    CU_ASSERT_EQUAL(len, 0);
    CU_ASSERT_STRING_EQUAL(why, "No such file or directory");
    /* A directory opens but does not read. */
    test_tmp_path(path, sizeof(path), "file-dir");
    CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
    CU_ASSERT_EQUAL(kube_file_read(path, 100, &buf, &len, why, sizeof(why)), MUSTER_EIO);
    CU_ASSERT(strstr(why, "read error") != NULL);
    rmdir(path);
    /* No room for a reason is fine. */
    CU_ASSERT_EQUAL(kube_file_read("/nonexistent/x", 100, &buf, &len, NULL, 0), MUSTER_ENOENT);
}

/* A secret over the cap: the reason names the cap, never the bytes. */
static void test_reason_never_quotes(void)
{
    char path[512], *buf, why[128];
    size_t len;
    test_tmp_path(path, sizeof(path), "file-secret");
    write_file(path, "s3cr3t-token-value", 18);
    CU_ASSERT_EQUAL(kube_file_read(path, 8, &buf, &len, why, sizeof(why)), MUSTER_ELIMIT);
    CU_ASSERT(strstr(why, "s3cr3t") == NULL);
    remove(path);
}

static void test_stream(void)
{
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char *want = make_bytes(50000), *buf, why[128];
    size_t len;
    fwrite(want, 1, 50000, f);
    rewind(f);
    CU_ASSERT_EQUAL(kube_file_read_stream(f, 50000, &buf, &len, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(len, 50000);
    CU_ASSERT(buf && memcmp(buf, want, 50000) == 0);
    muster_free(buf);
    rewind(f);
    CU_ASSERT_EQUAL(kube_file_read_stream(f, 49999, &buf, &len, why, sizeof(why)), MUSTER_ELIMIT);
    fclose(f);
    free(want);
}

/* Every allocation failing in turn: ENOMEM, nothing leaked, and then success. */
static void test_out_of_memory(void)
{
    char path[512], *buf, why[128];
    size_t len;
    test_tmp_path(path, sizeof(path), "file-oom");
    char *want = make_bytes(20000);
    write_file(path, want, 20000);
    for (long n = 0;; n++) {
        muster_mem_reset();
        muster_mem_fail_after(n);
        int rc = kube_file_read(path, 30000, &buf, &len, why, sizeof(why));
        muster_mem_fail_after(-1);
        struct muster_mem_stats st;
        muster_mem_stats(&st);
        if (rc == 0) {
            CU_ASSERT(memcmp(buf, want, 20000) == 0);
            muster_free(buf);
            CU_ASSERT(n > 0);
            break;
        }
        CU_ASSERT_EQUAL(rc, MUSTER_ENOMEM);
        CU_ASSERT_STRING_EQUAL(why, "out of memory");
        CU_ASSERT_EQUAL(st.allocs, st.frees);
        if (n > 20)
            break;
    }
    muster_mem_reset();
    free(want);
    remove(path);
}

static CU_TestInfo tests[] = {
    {"small and empty files", test_small_and_empty},
    {"the cap: exactly it reads, one byte more does not", test_cap_edges},
    {"missing file, directory: code and reason", test_failures_say_why},
    {"the reason never quotes the file", test_reason_never_quotes},
    {"a stream read to its end", test_stream},
    {"allocation failures", test_out_of_memory},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/file", tests)
