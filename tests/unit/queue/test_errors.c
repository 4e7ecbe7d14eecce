/* Tests for queue/errors.c: the engine's table alone: every code in queue's range, with a
 * distinct name and message, and nothing of the layers above. */
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

struct code {
    int value;
    const char *name, *msg;
};

static const struct code codes[] = {
#define XX(name, value, msg) {MUSTER_##name, #name, msg},
    QUEUE_ERRNO_MAP(XX)
#undef XX
};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

static void test_table(void)
{
    CU_ASSERT_STRING_EQUAL(queue_strerror(MUSTER_EINVAL), "invalid argument");
    CU_ASSERT_STRING_EQUAL(queue_errname(MUSTER_ERANGE), "ERANGE");
    CU_ASSERT_STRING_EQUAL(queue_strerror(MUSTER_OK), "success");
    CU_ASSERT_STRING_EQUAL(queue_errname(MUSTER_OK), "OK");
    for (size_t i = 0; i < NCODES; i++) {
        CU_ASSERT(codes[i].value >= QUEUE_ERRNO_LO && codes[i].value <= QUEUE_ERRNO_HI);
        CU_ASSERT_STRING_EQUAL(queue_errname(codes[i].value), codes[i].name);
        CU_ASSERT_STRING_EQUAL(queue_strerror(codes[i].value), codes[i].msg);
        for (size_t j = 0; j < i; j++) {
            CU_ASSERT(codes[i].value != codes[j].value);
            CU_ASSERT(strcmp(codes[i].msg, codes[j].msg) != 0);
        }
    }
}

/* The values are kept from before the split (nothing stores them, but nothing needs to move). */
static void test_values_stable(void)
{
    CU_ASSERT_EQUAL(MUSTER_EINVAL, -999);
    CU_ASSERT_EQUAL(MUSTER_ENOMEM, -997);
    CU_ASSERT_EQUAL(MUSTER_ELIMIT, -990);
    CU_ASSERT_EQUAL(MUSTER_ENOTLEAF, -988);
}

/* The engine knows only its own codes: anything else is unknown here, whoever owns it. */
static void test_unknown(void)
{
    CU_ASSERT_STRING_EQUAL(queue_strerror(12345), "unknown error");
    CU_ASSERT_STRING_EQUAL(queue_errname(12345), "UNKNOWN");
    CU_ASSERT_STRING_EQUAL(queue_strerror(-1099), "unknown error"); /* kube's EIO */
    CU_ASSERT_STRING_EQUAL(queue_errname(-1199), "UNKNOWN");        /* the store's ESTORE */
    CU_ASSERT_STRING_EQUAL(queue_errname(-989), "UNKNOWN");         /* retired ECLOSED */
}

static CU_TestInfo tests[] = {
    {"table: range, names, distinct messages", test_table},
    {"values unchanged by the split", test_values_stable},
    {"codes of other layers are unknown", test_unknown},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/errors", tests)
