/* Tests for cluster-adapters/kube/base64.c: standard base64 decoded strictly (kubeconfig data, an
 * AdmissionReview's patch), encoded, and the URL-safe unpadded form of continue tokens, each
 * checked against RFC 4648's test vectors. */
#include "cluster-adapters/kube/base64.h"
#include "queue/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <string.h>

static int blob_eq(const unsigned char *b, size_t n, const char *s)
{
    return b && n == strlen(s) && memcmp(b, s, n) == 0;
}

static void test_decode(void)
{
    unsigned char *out;
    size_t n;
    CU_ASSERT_EQUAL(kube_base64_decode("aGVsbG8=", 8, &out, &n), 0);
    CU_ASSERT(blob_eq(out, n, "hello"));
    CU_ASSERT_EQUAL(out[n], 0);
    muster_free(out);
    CU_ASSERT_EQUAL(kube_base64_decode("aGVs\nbG8h", 9, &out, &n), 0);
    CU_ASSERT(blob_eq(out, n, "hello!"));
    muster_free(out);
    CU_ASSERT_EQUAL(kube_base64_decode("aGk=", 4, &out, &n), 0);
    CU_ASSERT(blob_eq(out, n, "hi"));
    muster_free(out);
    CU_ASSERT_EQUAL(kube_base64_decode("", 0, &out, &n), 0);
    CU_ASSERT_EQUAL(n, 0);
    muster_free(out);
    static const char *const bad[] = {"aGVsbG8", "aG=sbG8=", "aGk=aGk=", "a!Vs",
                                      "aGk==",   "=aGk",     "aG-k",     "aGk=\n="};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        out = (unsigned char *)"x";
        CU_ASSERT_EQUAL(kube_base64_decode(bad[i], strlen(bad[i]), &out, &n), MUSTER_EINVAL);
        CU_ASSERT_PTR_NULL(out);
    }
}

/* RFC 4648 section 10. */
static void test_vectors(void)
{
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const std[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                      "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    static const char *const raw[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        char enc[32];
        size_t n = strlen(plain[i]);
        CU_ASSERT_EQUAL(kube_base64_encode((const unsigned char *)plain[i], n, enc, sizeof enc),
                        (int)strlen(std[i]));
        CU_ASSERT_STRING_EQUAL(enc, std[i]);
        CU_ASSERT_EQUAL(KUBE_BASE64_LEN(n), strlen(std[i]));
        CU_ASSERT_EQUAL(kube_base64url_encode((const unsigned char *)plain[i], n, enc, sizeof enc),
                        (int)strlen(raw[i]));
        CU_ASSERT_STRING_EQUAL(enc, raw[i]);
        CU_ASSERT_EQUAL(KUBE_BASE64_RAW_LEN(n), strlen(raw[i]));
        unsigned char dec[32];
        size_t dn = 99;
        CU_ASSERT_EQUAL(kube_base64url_decode(raw[i], dec, sizeof dec, &dn), 0);
        CU_ASSERT(blob_eq(dec, dn, plain[i]));
        /* padded and standard input are taken too */
        CU_ASSERT_EQUAL(kube_base64url_decode(std[i], dec, sizeof dec, &dn), 0);
        CU_ASSERT(blob_eq(dec, dn, plain[i]));
    }
}

/* The URL-safe alphabet: bytes whose standard encoding has '+' and '/'. */
static void test_url_alphabet(void)
{
    static const unsigned char bytes[] = {0xfb, 0xff, 0xbf};
    char enc[16];
    CU_ASSERT_EQUAL(kube_base64_encode(bytes, 3, enc, sizeof enc), 4);
    CU_ASSERT_STRING_EQUAL(enc, "+/+/");
    CU_ASSERT_EQUAL(kube_base64url_encode(bytes, 3, enc, sizeof enc), 4);
    CU_ASSERT_STRING_EQUAL(enc, "-_-_");
    unsigned char dec[8];
    size_t n = 0;
    CU_ASSERT_EQUAL(kube_base64url_decode("-_-_", dec, sizeof dec, &n), 0);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT(memcmp(dec, bytes, 3) == 0);
    /* one character left over is no byte; a character outside both alphabets is refused */
    CU_ASSERT_EQUAL(kube_base64url_decode("Zm9vY", dec, sizeof dec, &n), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(kube_base64url_decode("Zm.v", dec, sizeof dec, &n), MUSTER_EINVAL);
}

/* Too small an output is said, never overrun. */
static void test_bounds(void)
{
    char enc[8];
    CU_ASSERT_EQUAL(kube_base64_encode((const unsigned char *)"foobar", 6, enc, 8), MUSTER_ENOSPC);
    CU_ASSERT_EQUAL(kube_base64_encode((const unsigned char *)"foobar", 6, enc, 9), 8);
    CU_ASSERT_EQUAL(kube_base64url_encode((const unsigned char *)"foobar", 6, enc, 8),
                    MUSTER_ENOSPC);
    unsigned char dec[6];
    size_t n;
    CU_ASSERT_EQUAL(kube_base64url_decode("Zm9vYmFy", dec, sizeof dec, &n), MUSTER_ENOSPC);
}

static CU_TestInfo tests[] = {
    {"standard base64 decoded strictly", test_decode},
    {"RFC 4648 vectors, padded and raw URL-safe", test_vectors},
    {"the URL-safe alphabet", test_url_alphabet},
    {"output bounds", test_bounds},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/base64", tests)
