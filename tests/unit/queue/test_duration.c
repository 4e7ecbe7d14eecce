/* Tests for queue/duration.c: Go-style durations to milliseconds and back. */
#include "queue/duration.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static int parse(const char *s, int64_t *ms)
{
    return queue_duration_parse(s, strlen(s), ms);
}

static void test_parse_forms(void)
{
    static const struct {
        const char *in;
        int64_t ms;
    } ok[] = {
        {"0", 0},          {"0s", 0},         {"10m", 600000},    {"90s", 90000},
        {"1h30m", 5400000}, {"1.5h", 5400000}, {"250ms", 250},     {"1m30s500ms", 90500},
        {"0.5s", 500},     {"2h0m0s", 7200000}, {"1.001s", 1001}, {"30m0s", 1800000},
        {"1.0000000000s", 1000},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        int64_t ms = -1;
        CU_ASSERT_EQUAL(parse(ok[i].in, &ms), 0);
        CU_ASSERT_EQUAL(ms, ok[i].ms);
    }
}

static void test_parse_rejects(void)
{
    static const char *const bad[] = {"",   "10",  "m",    "-5m", "+5m", "5 m", "5d",  "1.5ms",
                                      "1us", "5ns", "1.s1", ".",   "5m ", "h1",  "1e3s", "0.0001s"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int64_t ms = 77;
        CU_ASSERT_EQUAL(parse(bad[i], &ms), MUSTER_EINVAL);
        CU_ASSERT_EQUAL(ms, 77); /* untouched */
    }
    int64_t ms;
    CU_ASSERT_EQUAL(parse("99999999999999999999h", &ms), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(parse("9223372036854775807ms1ms", &ms), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(parse("9223372036854775807ms", &ms), 0);
    CU_ASSERT_EQUAL(ms, INT64_MAX);
    char longer[QUEUE_DURATION_INPUT_MAX + 2];
    memset(longer, '0', sizeof(longer));
    longer[sizeof(longer) - 2] = 's';
    longer[sizeof(longer) - 1] = '\0';
    CU_ASSERT_EQUAL(parse(longer, &ms), MUSTER_EINVAL);
}

static void test_format(void)
{
    char b[QUEUE_DURATION_STR_MAX];
    CU_ASSERT_EQUAL(queue_duration_format(0, b, sizeof(b)), 2);
    CU_ASSERT_STRING_EQUAL(b, "0s");
    queue_duration_format(600000, b, sizeof(b));
    CU_ASSERT_STRING_EQUAL(b, "10m");
    queue_duration_format(5400000, b, sizeof(b));
    CU_ASSERT_STRING_EQUAL(b, "1h30m");
    queue_duration_format(90500, b, sizeof(b));
    CU_ASSERT_STRING_EQUAL(b, "1m30s500ms");
    queue_duration_format(3600000 + 1, b, sizeof(b));
    CU_ASSERT_STRING_EQUAL(b, "1h1ms");
    CU_ASSERT(queue_duration_format(INT64_MAX, b, sizeof(b)) > 0);
    CU_ASSERT_EQUAL(queue_duration_format(-1, b, sizeof(b)), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(queue_duration_format(600000, b, 3), MUSTER_ENOSPC);
    CU_ASSERT_STRING_EQUAL(b, "");
    CU_ASSERT_EQUAL(queue_duration_format(600000, b, 4), 3);
}

/* format then parse gives the value back, for a spread of values. */
static void test_round_trip(void)
{
    int64_t vals[] = {1, 999, 1000, 59999, 60000, 3599999, 3600000, 86400000, 123456789,
                      INT64_MAX};
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        char b[QUEUE_DURATION_STR_MAX];
        int64_t back = -1;
        CU_ASSERT(queue_duration_format(vals[i], b, sizeof(b)) > 0);
        CU_ASSERT_EQUAL(parse(b, &back), 0);
        CU_ASSERT_EQUAL(back, vals[i]);
    }
}

static CU_TestInfo tests[] = {
    {"parse: Go forms", test_parse_forms},
    {"parse: rejects malformed, signs, sub-ms and overflow", test_parse_rejects},
    {"format: shortest form", test_format},
    {"round trip", test_round_trip},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/duration", tests)
