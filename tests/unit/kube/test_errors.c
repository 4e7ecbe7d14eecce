/* Tests for cluster-adapters/kube/errors.c: the hub protocol's table, its range, and the fallback
 * to the engine's codes (cluster-adapters never needs the dispatcher's muster_strerror). */
#include "cluster-adapters/kube/errors.h"
#include "testing.h"

#include <string.h>

struct code {
    int value;
    const char *name, *msg;
};

static const struct code kube_codes[] = {
#define XX(name, value, msg) {MUSTER_##name, #name, msg},
    KUBE_ERRNO_MAP(XX)
#undef XX
};
static const struct code queue_codes[] = {
#define XX(name, value, msg) {MUSTER_##name, #name, msg},
    QUEUE_ERRNO_MAP(XX)
#undef XX
};
#define N(a) (sizeof(a) / sizeof(a[0]))

static void test_table(void)
{
    CU_ASSERT_STRING_EQUAL(kube_strerror(MUSTER_ETLS), "TLS error");
    CU_ASSERT_STRING_EQUAL(kube_errname(MUSTER_EUNAUTHORIZED), "EUNAUTHORIZED");
    for (size_t i = 0; i < N(kube_codes); i++) {
        CU_ASSERT(kube_codes[i].value >= KUBE_ERRNO_LO && kube_codes[i].value <= KUBE_ERRNO_HI);
        CU_ASSERT_STRING_EQUAL(kube_errname(kube_codes[i].value), kube_codes[i].name);
        CU_ASSERT_STRING_EQUAL(kube_strerror(kube_codes[i].value), kube_codes[i].msg);
        /* the engine does not know it */
        CU_ASSERT_STRING_EQUAL(queue_errname(kube_codes[i].value), "UNKNOWN");
        for (size_t j = 0; j < i; j++)
            CU_ASSERT(strcmp(kube_codes[i].msg, kube_codes[j].msg) != 0);
    }
}

static void test_falls_back_to_queue(void)
{
    CU_ASSERT_STRING_EQUAL(kube_strerror(MUSTER_OK), "success");
    CU_ASSERT_STRING_EQUAL(kube_errname(MUSTER_OK), "OK");
    for (size_t i = 0; i < N(queue_codes); i++) {
        CU_ASSERT_STRING_EQUAL(kube_errname(queue_codes[i].value), queue_codes[i].name);
        CU_ASSERT_STRING_EQUAL(kube_strerror(queue_codes[i].value), queue_codes[i].msg);
    }
    CU_ASSERT_STRING_EQUAL(kube_strerror(12345), "unknown error");
    CU_ASSERT_STRING_EQUAL(kube_errname(-1199), "UNKNOWN"); /* the store's: above this layer */
}

static void test_disjoint_from_queue(void)
{
    CU_ASSERT(KUBE_ERRNO_HI < QUEUE_ERRNO_LO);
    for (size_t i = 0; i < N(kube_codes); i++)
        for (size_t j = 0; j < N(queue_codes); j++)
            CU_ASSERT(kube_codes[i].value != queue_codes[j].value);
}

static CU_TestInfo tests[] = {
    {"table: range, names, distinct messages", test_table},
    {"queue's codes through kube_strerror", test_falls_back_to_queue},
    {"disjoint from queue's codes", test_disjoint_from_queue},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/errors", tests)
