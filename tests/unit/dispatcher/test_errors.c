/* Tests for dispatcher/errors.c: the store's codes, and muster_strerror knowing every code of
 * every layer, each exactly once, in ranges that do not overlap. */
#include "dispatcher/errors.h"
#include "testing.h"

#include <string.h>

struct code {
    int value;
    const char *name, *msg;
    int layer; /* 0 queue, 1 kube, 2 dispatcher */
};

static const struct code codes[] = {
#define XX(name, value, msg) {MUSTER_##name, #name, msg, 0},
    QUEUE_ERRNO_MAP(XX)
#undef XX
#define XX(name, value, msg) {MUSTER_##name, #name, msg, 1},
        KUBE_ERRNO_MAP(XX)
#undef XX
#define XX(name, value, msg) {MUSTER_##name, #name, msg, 2},
            DISP_ERRNO_MAP(XX)
#undef XX
};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

static const int lo[] = {QUEUE_ERRNO_LO, KUBE_ERRNO_LO, DISP_ERRNO_LO};
static const int hi[] = {QUEUE_ERRNO_HI, KUBE_ERRNO_HI, DISP_ERRNO_HI};

static void test_table(void)
{
    CU_ASSERT_STRING_EQUAL(muster_strerror(MUSTER_ESTORE), "database error");
    CU_ASSERT_STRING_EQUAL(muster_errname(MUSTER_ESCHEMA), "ESCHEMA");
    CU_ASSERT_STRING_EQUAL(kube_errname(MUSTER_ESTORE), "UNKNOWN");
    CU_ASSERT_STRING_EQUAL(queue_strerror(MUSTER_ESCHEMA), "unknown error");
}

/* Every code of every layer by name and message through the top of the chain. */
static void test_knows_all(void)
{
    CU_ASSERT_STRING_EQUAL(muster_strerror(MUSTER_OK), "success");
    CU_ASSERT_STRING_EQUAL(muster_errname(MUSTER_OK), "OK");
    for (size_t i = 0; i < NCODES; i++) {
        CU_ASSERT_STRING_EQUAL(muster_errname(codes[i].value), codes[i].name);
        CU_ASSERT_STRING_EQUAL(muster_strerror(codes[i].value), codes[i].msg);
    }
    CU_ASSERT_STRING_EQUAL(muster_strerror(12345), "unknown error");
    CU_ASSERT_STRING_EQUAL(muster_errname(-1), "UNKNOWN");
}

/* Each code in its own layer's range, the ranges apart, no two codes or names alike. */
static void test_disjoint(void)
{
    CU_ASSERT(DISP_ERRNO_HI < KUBE_ERRNO_LO);
    CU_ASSERT(KUBE_ERRNO_HI < QUEUE_ERRNO_LO);
    for (size_t i = 0; i < NCODES; i++) {
        int l = codes[i].layer;
        CU_ASSERT(codes[i].value >= lo[l] && codes[i].value <= hi[l]);
        for (size_t j = 0; j < i; j++) {
            CU_ASSERT(codes[i].value != codes[j].value);
            CU_ASSERT(strcmp(codes[i].name, codes[j].name) != 0);
            CU_ASSERT(strcmp(codes[i].msg, codes[j].msg) != 0);
        }
    }
}

static CU_TestInfo tests[] = {
    {"the store's codes", test_table},
    {"muster_strerror knows every layer's codes", test_knows_all},
    {"codes disjoint, each in its layer's range", test_disjoint},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/errors", tests)
