/* Tests for queue/quantity.c: the Kubernetes grammar, milli rounding, canonical forms, limits. */
#include "queue/errors.h"
#include "queue/quantity.h"
#include "testing.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define BIN QUEUE_QTY_BINARY_SI
#define DSI QUEUE_QTY_DECIMAL_SI
#define EXP QUEUE_QTY_DECIMAL_EXPONENT

#define KI (1024LL * 1000)
#define MI (KI * 1024)
#define GI (MI * 1024)
#define TI (GI * 1024)
#define PI_ (TI * 1024)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct parse_case {
    const char *in;
    int64_t milli;
    enum queue_qty_format format;
};

struct string_case {
    int64_t milli;
    enum queue_qty_format format;
    const char *expect;
    const char *alternate; /* another spelling that must print as expect, or NULL */
};

/* The helpers below name the input on stderr when a check fails, since CUnit reports only
 * the line. */
static int parse_str(const char *in, struct queue_qty *out)
{
    return queue_qty_parse(in, strlen(in), out);
}

static void check_parse(const char *in, int64_t milli, enum queue_qty_format format)
{
    struct queue_qty q = {.milli = -42, .format = EXP};
    int rc = parse_str(in, &q);
    bool ok = rc == 0 && q.milli == milli && q.format == format;
    if (!ok)
        fprintf(stderr, "\n  parse \"%s\": rc %d milli %lld format %d, want milli %lld format %d\n",
                in, rc, (long long)q.milli, (int)q.format, (long long)milli, (int)format);
    CU_ASSERT(ok);
}

/* Failure leaves *out exactly as it was. */
static void check_parse_err_len(const char *in, size_t len, int want)
{
    struct queue_qty q = {.milli = -42, .format = EXP};
    int rc = queue_qty_parse(in, len, &q);
    bool ok = rc == want && q.milli == -42 && q.format == EXP;
    if (!ok)
        fprintf(stderr, "\n  parse \"%.*s\" (len %zu): rc %d, want %s\n", (int)len, in, len, rc,
                queue_errname(want));
    CU_ASSERT(ok);
}

static void check_parse_err(const char *in, int want)
{
    check_parse_err_len(in, strlen(in), want);
}

static void check_format(int64_t milli, enum queue_qty_format format, const char *want)
{
    struct queue_qty q = {.milli = milli, .format = format};
    char buf[QUEUE_QTY_STR_MAX];
    int rc = queue_qty_format(&q, buf, sizeof(buf));
    bool ok = rc == (int)strlen(want) && strcmp(buf, want) == 0;
    if (!ok)
        fprintf(stderr, "\n  format %lld/%d: rc %d \"%s\", want \"%s\"\n", (long long)milli,
                (int)format, rc, rc >= 0 ? buf : "", want);
    CU_ASSERT(ok);
}

/* Parse then format: the canonical string Kubernetes prints for the input. */
static void check_emit(const char *in, const char *want)
{
    struct queue_qty q;
    char buf[QUEUE_QTY_STR_MAX];
    int rc = parse_str(in, &q);
    if (rc == 0)
        rc = queue_qty_format(&q, buf, sizeof(buf));
    bool ok = rc >= 0 && strcmp(buf, want) == 0;
    if (!ok)
        fprintf(stderr, "\n  emit \"%s\": rc %d \"%s\", want \"%s\"\n", in, rc, rc >= 0 ? buf : "",
                want);
    CU_ASSERT(ok);
}

static void check_auto(int64_t milli, const char *want)
{
    char buf[QUEUE_QTY_STR_MAX];
    int rc = queue_qty_format_auto(milli, buf, sizeof(buf));
    bool ok = rc == (int)strlen(want) && strcmp(buf, want) == 0;
    if (!ok)
        fprintf(stderr, "\n  auto %lld: rc %d \"%s\", want \"%s\"\n", (long long)milli, rc,
                rc >= 0 ? buf : "", want);
    CU_ASSERT(ok);
}

/* Kubernetes' TestQuantityParse table (apimachinery quantity_test.go) in milli-units. Entries
 * there that exceed int64 milli-units ("3Ei", "1E", "1E18", "1.7E18", "1.01E", "9Ei", "12E",
 * "9223372036854775807Ki") are in test_parse_overflow; sub-milli values round up to 1m. */
static const struct parse_case k8s_parse_table[] = {
    {"0", 0, DSI},
    {"0n", 0, DSI},
    {"0u", 0, DSI},
    {"0m", 0, DSI},
    {"0Ki", 0, BIN},
    {"0k", 0, DSI},
    {"0Mi", 0, BIN},
    {"0M", 0, DSI},
    {"0Gi", 0, BIN},
    {"0G", 0, DSI},
    {"0Ti", 0, BIN},
    {"0T", 0, DSI},
    {"1", 1000, DSI},
    {"1Ki", KI, BIN},
    {"8Ki", 8 * KI, BIN},
    {"7Mi", 7 * MI, BIN},
    {"6Gi", 6 * GI, BIN},
    {"5Ti", 5 * TI, BIN},
    {"4Pi", 4 * PI_, BIN},
    {"10Ti", 10 * TI, BIN},
    {"100Ti", 100 * TI, BIN},
    {"5n", 1, DSI},
    {"4u", 1, DSI},
    {"3m", 3, DSI},
    {"9", 9000, DSI},
    {"8k", 8000000, DSI},
    {"50k", 50000000, DSI},
    {"7M", 7000000000LL, DSI},
    {"6G", 6000000000000LL, DSI},
    {"5T", 5000000000000000LL, DSI},
    {"40T", 40000000000000000LL, DSI},
    {"300T", 300000000000000000LL, DSI},
    {"2P", 2000000000000000000LL, DSI},
    {"1E-3", 1, EXP},
    {"1e3", 1000000, EXP},
    {"1E6", 1000000000LL, EXP},
    {"1e9", 1000000000000LL, EXP},
    {"1E12", 1000000000000000LL, EXP},
    {"1e15", 1000000000000000000LL, EXP},
    {"1e14", 100000000000000000LL, EXP},
    {"1e13", 10000000000000000LL, EXP},
    {"100.035k", 100035000, DSI},
    {"0.001", 1, DSI},
    {"0.0005k", 500, DSI},
    {"0.005", 5, DSI},
    {"0.05", 50, DSI},
    {"0.5", 500, DSI},
    {"0.00050k", 500, DSI},
    {"0.00500", 5, DSI},
    {"0.05000", 50, DSI},
    {"0.50000", 500, DSI},
    {"0.5e0", 500, EXP},
    {"0.5e-1", 50, EXP},
    {"0.5e-2", 5, EXP},
    {"10.035M", 10035000000LL, DSI},
    {"1.2e3", 1200000, EXP},
    {"1.3E+6", 1300000000LL, EXP},
    {"1.40e9", 1400000000000LL, EXP},
    {"1.53E12", 1530000000000000LL, EXP},
    {"1.6e15", 1600000000000000000LL, EXP},
    {"9.01", 9010, DSI},
    {"8.1k", 8100000, DSI},
    {"7.123456M", 7123456000LL, DSI},
    {"6.987654321G", 6987654321000LL, DSI},
    {"5.444T", 5444000000000000LL, DSI},
    {"40.1T", 40100000000000000LL, DSI},
    {"300.2T", 300200000000000000LL, DSI},
    {"2.5P", 2500000000000000000LL, DSI},
    {"3.001n", 1, DSI},
    {"1.1E-9", 1, EXP},
    {"0.0000000001", 1, DSI},
    {"0.0000000005", 1, DSI},
    {"0.00000000050", 1, DSI},
    {"0.5e-9", 1, EXP},
    {"0.9n", 1, DSI},
    {"0.00000012345", 1, DSI},
    {"0.00000012354", 1, DSI},
    {"100.035Ki", 102435840, BIN},
    {"0.5Mi", 524288000, BIN},
    {"0.05Gi", 53687091200LL, BIN},
    {"0.025Ti", 27487790694400LL, BIN},
    /* Kubernetes changes a binary quantity below one unit to decimal SI when parsing. */
    {"0.000000000001Ki", 1, DSI},
    {".001", 1, DSI},
    {".0001k", 100, DSI},
    {"1.", 1000, DSI},
    {"1.G", 1000000000000LL, DSI},
};

static void test_parse_kubernetes_table(void)
{
    char buf[QUEUE_QTY_INPUT_MAX + 2];
    for (size_t i = 0; i < ARRAY_LEN(k8s_parse_table); i++) {
        const struct parse_case *c = &k8s_parse_table[i];
        check_parse(c->in, c->milli, c->format);
        /* Rounding is away from zero, so a sign only negates the result. */
        snprintf(buf, sizeof(buf), "-%s", c->in);
        check_parse(buf, -c->milli, c->format);
        snprintf(buf, sizeof(buf), "+%s", c->in);
        check_parse(buf, c->milli, c->format);
    }
}

static void test_parse_every_suffix(void)
{
    check_parse("1n", 1, DSI);
    check_parse("1u", 1, DSI);
    check_parse("1m", 1, DSI);
    check_parse("1", 1000, DSI);
    check_parse("1k", 1000000, DSI);
    check_parse("1M", 1000000000LL, DSI);
    check_parse("1G", 1000000000000LL, DSI);
    check_parse("1T", 1000000000000000LL, DSI);
    check_parse("1P", 1000000000000000000LL, DSI);
    check_parse("0.001E", 1000000000000000000LL, DSI);
    check_parse("1Ki", KI, BIN);
    check_parse("1Mi", MI, BIN);
    check_parse("1Gi", GI, BIN);
    check_parse("1Ti", TI, BIN);
    check_parse("1Pi", PI_, BIN);
    check_parse("0.001Ei", 1152921504606846976LL, BIN);
    check_parse("1e0", 1000, EXP);
    check_parse("1E0", 1000, EXP);
    check_parse("1e+0", 1000, EXP);
    check_parse("1e-0", 1000, EXP);
    check_parse("1e03", 1000000, EXP);
    check_parse("1e+3", 1000000, EXP);
    check_parse("1E+3", 1000000, EXP);
    check_parse("5e-3", 5, EXP);
    check_parse("1.5E-2", 15, EXP);
    check_parse("2e-3", 2, EXP);
    check_parse("1e0000000000000000000003", 1000000, EXP);
}

static void test_parse_forms_and_signs(void)
{
    check_parse("1.", 1000, DSI);
    check_parse(".5", 500, DSI);
    check_parse("+.5", 500, DSI);
    check_parse("-.5", -500, DSI);
    check_parse("-1.", -1000, DSI);
    check_parse("1.e3", 1000000, EXP);
    check_parse(".5e3", 500000, EXP);
    check_parse("1.Ki", KI, BIN);
    check_parse(".5Ki", 512000, BIN);
    check_parse("1500m", 1500, DSI);
    check_parse("-1500m", -1500, DSI);
    check_parse("+1500m", 1500, DSI);
    check_parse("-0", 0, DSI);
    check_parse("+0", 0, DSI);
    check_parse("-0.0Ki", 0, BIN);
    check_parse("0e5", 0, EXP);
    check_parse("0e2147483647", 0, EXP);
    check_parse("00000", 0, DSI);
    check_parse("007", 7000, DSI);
    check_parse("2Gi", 2 * GI, BIN);
    check_parse("-2Gi", -2 * GI, BIN);
    check_parse("1.5Gi", 1536 * MI, BIN);
    /* Exactly 1 unit stays binary; a hair less (after nano rounding) becomes decimal SI. */
    check_parse("0.0009765625Ki", 1000, BIN);
    check_parse("0.00048828125Ki", 500, DSI);
    check_parse("0.0009765624Ki", 1000, DSI);
}

static void test_parse_rounding(void)
{
    check_parse("1n", 1, DSI);
    check_parse("-1n", -1, DSI);
    check_parse("0.0001", 1, DSI);
    check_parse("-0.0001", -1, DSI);
    check_parse("1.0001", 1001, DSI);
    check_parse("-1.0001", -1001, DSI);
    check_parse("1.001", 1001, DSI);
    check_parse("0.0010000", 1, DSI);
    check_parse("0.00100001", 2, DSI);
    check_parse("999u", 1, DSI);
    check_parse("1000u", 1, DSI);
    check_parse("1001u", 2, DSI);
    check_parse("1999999n", 2, DSI);
    check_parse("2000000n", 2, DSI);
    check_parse("2000001n", 3, DSI);
    check_parse("-2000001n", -3, DSI);
    check_parse("1e-4", 1, EXP);
    check_parse("-1e-4", -1, EXP);
    check_parse("1e-2147483648", 1, EXP);
    check_parse("-1e-2147483648", -1, EXP);
    check_parse("0.001Ki", 1024, BIN);
    check_parse("0.000001Ki", 2, DSI);   /* 1.024 milli */
    check_parse("-0.000001Ki", -2, DSI); /* away from zero */
    /* Long inputs are exact: no digit is lost to an intermediate. */
    check_parse("0.000000000000000000000000001Ki", 1, DSI);
    check_parse("1000000000000000000000e-18", 1000000, EXP);
    check_parse("9223372036854775807000000000000e-30", 9224, EXP);
    check_parse("0.1000000000000000000000000000000000000000000000000001", 101, DSI);
    check_parse("0.1000000000000000000000000000000000000000000000000000", 100, DSI);
    check_parse("000000000000000000000000000000000000000000000000000001.5", 1500, DSI);
    check_parse("1.000000000000000000000000000000000000000000000000000", 1000, DSI);
    check_parse("123456789012345678901234567890e-27", 123457, EXP);
}

static void test_parse_rejects(void)
{
    static const char *const bad[] = {
        "",
        "+",
        "-",
        ".",
        "+.",
        "-.",
        "1.2.3",
        "1 k",
        "1x",
        "1KB",
        "1kk",
        "e3",
        "1e",
        "1e+",
        "1e-",
        "1e1.5",
        " 1",
        "1 ",
        "\t1",
        "1\n",
        "1.1.M",
        "1+1.0M",
        "0.1mi",
        "0.1am",
        "aoeu",
        ".5i",
        "1i",
        "-3.01i",
        "-3.01e-",
        "1K",
        "1Ki5",
        "1e3i",
        "--1",
        "+-1",
        "-+1",
        "1EE3",
        "1Ee3",
        "1e3e3",
        "1Eii",
        "0x10",
        "1,5",
        "1_000",
        "1KiB",
        "Ki",
        "m",
        "E",
        "e",
        "1m1",
        ".e3",
        "1e 3",
        "1e3 ",
        "1mm",
        "1Mi ",
        "1ki",
        "1mi",
        "1ni",
        "1I",
        "1.-5",
        "1-",
        "\xe2\x88\x9e",
        "1\xc2\xb5",
        "1e2147483648",
        "1e-2147483649",
        "0e99999999999",
        "1e99999999999999999999",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        check_parse_err(bad[i], MUSTER_EINVAL);

    /* Embedded NUL: the length, not the terminator, bounds the input. */
    check_parse_err_len("1\0", 2, MUSTER_EINVAL);
    check_parse_err_len("\0", 1, MUSTER_EINVAL);
    check_parse_err_len("1\0k", 3, MUSTER_EINVAL);
    check_parse_err_len("1k\0", 3, MUSTER_EINVAL);
    check_parse_err_len("1Ki", 2, MUSTER_EINVAL); /* "1K" */

    struct queue_qty q;
    CU_ASSERT_EQUAL(queue_qty_parse(NULL, 1, &q), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(queue_qty_parse("1", 1, NULL), MUSTER_EINVAL);
}

static void test_parse_length_limit(void)
{
    char s[QUEUE_QTY_INPUT_MAX + 2];
    memset(s, '0', sizeof(s));
    s[QUEUE_QTY_INPUT_MAX - 1] = '1';
    s[QUEUE_QTY_INPUT_MAX] = '\0';
    check_parse(s, 1000, DSI); /* exactly the limit */

    memset(s, '0', sizeof(s));
    s[QUEUE_QTY_INPUT_MAX] = '1';
    s[QUEUE_QTY_INPUT_MAX + 1] = '\0';
    check_parse_err(s, MUSTER_EINVAL); /* one over, otherwise valid */

    /* The longest fraction: "." and 127 digits. */
    memset(s, '0', sizeof(s));
    s[0] = '.';
    s[QUEUE_QTY_INPUT_MAX - 1] = '7';
    s[QUEUE_QTY_INPUT_MAX] = '\0';
    check_parse(s, 1, DSI);
    s[0] = '-';
    s[1] = '.';
    check_parse(s, -1, DSI);

    /* The most digits with the largest multiplier: 126 nines and "Ei" overflows, exactly. */
    memset(s, '9', sizeof(s));
    s[QUEUE_QTY_INPUT_MAX - 2] = 'E';
    s[QUEUE_QTY_INPUT_MAX - 1] = 'i';
    s[QUEUE_QTY_INPUT_MAX] = '\0';
    check_parse_err(s, MUSTER_ERANGE);
    s[0] = '.';
    check_parse_err(s, MUSTER_ERANGE);
    memset(s, '0', QUEUE_QTY_INPUT_MAX - 2);
    s[0] = '.';
    s[QUEUE_QTY_INPUT_MAX - 3] = '1';
    check_parse(s, 1, DSI); /* 1e-125 Ei: below a milli, rounds up, drops to decimal SI */
}

static void test_parse_overflow(void)
{
    /* Largest and smallest values that fit, and one past each, in every spelling. */
    check_parse("9223372036854775807m", INT64_MAX, DSI);
    check_parse_err("9223372036854775808m", MUSTER_ERANGE);
    check_parse("-9223372036854775808m", INT64_MIN, DSI);
    check_parse_err("-9223372036854775809m", MUSTER_ERANGE);
    check_parse("9223372036854775.807", INT64_MAX, DSI);
    check_parse_err("9223372036854775.8071", MUSTER_ERANGE); /* rounds up past the max */
    check_parse("-9223372036854775.8079", INT64_MIN, DSI);   /* rounds to exactly the min */
    check_parse_err("-9223372036854775.80800001", MUSTER_ERANGE);
    check_parse("9.223372036854775807P", INT64_MAX, DSI);
    check_parse_err("9.223372036854775808P", MUSTER_ERANGE);
    check_parse("0.009223372036854775807E", INT64_MAX, DSI);
    check_parse_err("0.009223372036854775808E", MUSTER_ERANGE);
    check_parse("9223372036854775807e-3", INT64_MAX, EXP);
    check_parse_err("9223372036854775808e-3", MUSTER_ERANGE);
    check_parse("-9223372036854775808e-3", INT64_MIN, EXP);
    check_parse("9223372036854775", 9223372036854775000LL, DSI);
    check_parse_err("9223372036854776", MUSTER_ERANGE);
    check_parse("9007199254740Ki", 9223372036853760000LL, BIN);
    check_parse_err("9007199254741Ki", MUSTER_ERANGE);
    check_parse_err("-9007199254741Ki", MUSTER_ERANGE);
    check_parse("8796093022Mi", 9223372036636672000LL, BIN);
    check_parse_err("8796093023Mi", MUSTER_ERANGE);
    check_parse("8388Ti", 9222703533785088000LL, BIN);
    check_parse_err("8389Ti", MUSTER_ERANGE);
    check_parse("8Pi", 9007199254740992000LL, BIN);
    check_parse("-8Pi", -9007199254740992000LL, BIN);
    check_parse_err("9Pi", MUSTER_ERANGE);

    static const char *const too_big[] = {
        "1Ei",
        "-1Ei",
        "3Ei",
        "9Ei",
        "8E",
        "10E",
        "-10E",
        "1E",
        "12E",
        "1.01E",
        "1E18",
        "1.7E18",
        "9223372036854775807Ki",
        "18446744073709551616",
        "1e2147483647",
        "-1e2147483647",
        "99999999999999999999999999999999999999999999",
        "1e19",
        "10000P",
    };
    for (size_t i = 0; i < ARRAY_LEN(too_big); i++)
        check_parse_err(too_big[i], MUSTER_ERANGE);

    /* Malformed wins over too large: the syntax is checked first. */
    check_parse_err("1Ei ", MUSTER_EINVAL);
}

/* Kubernetes' TestQuantityString table, the entries representable in milli-units: the
 * canonical string, and an alternate spelling that must canonicalize to it. */
static const struct string_case k8s_string_table[] = {
    {GI, BIN, "1Gi", "1024Mi"},
    {300 * MI, BIN, "300Mi", "307200Ki"},
    {6 * KI, BIN, "6Ki", NULL},
    {1001 * GI, BIN, "1001Gi", "1025024Mi"},
    {TI, BIN, "1Ti", "1024Gi"},
    {5000, BIN, "5", "5000m"},
    {500, BIN, "500m", "0.5"},
    {1000000000000LL, DSI, "1G", "1000M"},
    {1000000000000LL, DSI, "1G", "0.001T"},
    {1, DSI, "1m", "1000u"},
    {80, DSI, "80m", NULL},
    {1080, DSI, "1080m", "1.08"},
    {1080, DSI, "1080m", "1080000000n"},
    {1080, DSI, "1080m", "1.0800"},
    {300000000000LL, DSI, "300M", NULL},
    {1000000000000000LL, DSI, "1T", NULL},
    {1234567000000000LL, DSI, "1234567M", NULL},
    {1234567, BIN, "1234567m", NULL},
    {3000000, DSI, "3k", NULL},
    {1025000, BIN, "1025", NULL},
    {0, DSI, "0", NULL},
    {0, BIN, "0", NULL},
    {1000000000000LL, EXP, "1e9", ".001e12"},
    {1, EXP, "1e-3", "0.001e0"},
    {80, EXP, "80e-3", NULL},
    {300000000000LL, EXP, "300e6", NULL},
    {1000000000000000LL, EXP, "1e12", NULL},
    {1000000, EXP, "1e3", NULL},
    {3000000, EXP, "3e3", NULL},
    {0, EXP, "0", "00"},
};

static void test_format_kubernetes_table(void)
{
    char neg[QUEUE_QTY_STR_MAX + 1];
    for (size_t i = 0; i < ARRAY_LEN(k8s_string_table); i++) {
        const struct string_case *c = &k8s_string_table[i];
        check_format(c->milli, c->format, c->expect);
        check_emit(c->expect, c->expect);
        if (c->alternate != NULL)
            check_emit(c->alternate, c->expect);
        if (c->milli != 0) {
            /* Never "-0"; otherwise the negative is the sign and the same digits. */
            snprintf(neg, sizeof(neg), "-%s", c->expect);
            check_format(-c->milli, c->format, neg);
        }
    }
    check_format(0, DSI, "0");
    check_format(0, EXP, "0");
}

static void test_format_examples(void)
{
    /* The project issue's examples. */
    check_emit("1500m", "1500m");
    check_emit("1.5", "1500m");
    check_emit("2Gi", "2Gi");
    check_emit("2048Mi", "2Gi");
    check_emit("100M", "100M");
    check_emit("1000", "1k");
    check_emit("1500", "1500");
    check_emit("0", "0");
    check_emit("0.5Gi", "512Mi");
    check_emit("1e3", "1e3");
    check_emit("1.5Gi", "1536Mi");
    check_emit("-1500m", "-1500m");
    /* Kubernetes' TestQuantityParseEmit; its sub-milli results ("1024u", "1024n", "2n") are
     * rounded up to whole milli-units here. */
    check_emit("1Ki", "1Ki");
    check_emit("1Mi", "1Mi");
    check_emit("1Gi", "1Gi");
    check_emit("1024Mi", "1Gi");
    check_emit("1000M", "1G");
    check_emit(".001Ki", "1024m");
    check_emit("-.001Ki", "-1024m");
    check_emit(".000001Ki", "2m");
    check_emit(".000000001Ki", "1m");
    check_emit(".000000000001Ki", "1m");
    check_emit("-.000000000001Ki", "-1m");
    /* Binary SI below 1Ki or with a fraction prints as decimal SI; whole values keep "". */
    check_emit("1023", "1023");
    check_emit("0.5Ki", "512");
    check_emit("1.5Ki", "1536");
    check_emit("1.0009765625Ki", "1025");
    check_emit("1.0001Ki", "1024103m"); /* 1024.1024 rounded up to the milli */
    check_emit("1025Ki", "1025Ki");
    check_emit("1536Ki", "1536Ki");
    check_emit("1572864Ki", "1536Mi");
    check_emit("-1572864Ki", "-1536Mi");
    check_emit("8Pi", "8Pi");
    check_emit("8192Ti", "8Pi");
    check_emit("0.001Ei", "1152921504606846976m");
    /* Decimal SI and exponent: trailing zeros move into a multiple-of-three exponent. */
    check_emit("10k", "10k");
    check_emit("100k", "100k");
    check_emit("1.5k", "1500");
    check_emit("0.1", "100m");
    check_emit("12345678", "12345678");
    check_emit("123456780", "123456780");
    check_emit("1234567800", "1234567800");
    check_emit("12345678000", "12345678k");
    check_emit("1P", "1P");
    check_emit("9P", "9P");
    check_emit("1000T", "1P");
    check_emit("9000T", "9P");
    check_emit("1n", "1m");
    check_emit("1u", "1m");
    check_emit("1e0", "1");
    check_emit("1.5e0", "1500e-3");
    check_emit("1.5E-2", "15e-3");
    check_emit("2e-3", "2e-3");
    check_emit("1e-9", "1e-3");
    check_emit("10e2", "1e3");
    check_emit("1e4", "10e3");
    check_emit("1e5", "100e3");
    check_emit("1E+3", "1e3");
    check_emit("1e03", "1e3");
    check_emit("+1Ki", "1Ki");
    check_emit("01Ki", "1Ki");
    check_emit("1000000000000000000000e-18", "1e3");
    check_emit("0.000000000000000000000000001Ki", "1m");
}

/* Kubernetes' TestMilliNewSet and TestNewSet: a value with a format and no string. */
static void test_format_new_set(void)
{
    check_format(1, DSI, "1m");
    check_format(1000, DSI, "1");
    check_format(1234000, DSI, "1234");
    check_format(1024, BIN, "1024m");
    check_format(1000000, (enum queue_qty_format)99, "1e3"); /* unknown formats print as e */
    check_format(1024 * 1024, BIN, "1048576m");
    check_format(1000, DSI, "1");
    check_format(1000000, DSI, "1k");
    check_format(1234000000, DSI, "1234k");
    check_format(KI, BIN, "1Ki");
    check_format(1000000000, (enum queue_qty_format) - 1, "1e6");
    check_format(MI, BIN, "1Mi");
}

static void test_format_extremes(void)
{
    check_format(INT64_MAX, DSI, "9223372036854775807m");
    check_format(INT64_MAX, BIN, "9223372036854775807m");
    check_format(INT64_MAX, EXP, "9223372036854775807e-3");
    check_format(INT64_MIN, DSI, "-9223372036854775808m");
    check_format(INT64_MIN, BIN, "-9223372036854775808m");
    check_format(INT64_MIN, EXP, "-9223372036854775808e-3");
    check_format(INT64_MIN + 1, EXP, "-9223372036854775807e-3");
    check_format(9000000000000000000LL, DSI, "9P");
    check_format(9000000000000000000LL, EXP, "9e15");
    check_format(-9000000000000000000LL, EXP, "-9e15");
    check_format(1000000000000000000LL, DSI, "1P");
    check_format(8 * PI_, BIN, "8Pi");
    check_format(-8 * PI_, BIN, "-8Pi");
    check_format(9223372036853760000LL, BIN, "9007199254740Ki");
    /* The binary cut-off: under 1Ki prints decimal, 1Ki and more prints binary. */
    check_format(1023 * 1000, BIN, "1023");
    check_format(1024 * 1000 - 1, BIN, "1023999m");
    check_format(1024 * 1000, BIN, "1Ki");
    check_format(-1023 * 1000, BIN, "-1023");
    check_format(-1024 * 1000, BIN, "-1Ki");
    check_format(1024 * 1000 + 1, BIN, "1024001m");
    check_format(1025 * 1000, BIN, "1025");
    check_format(1000000000, BIN, "1000000"); /* whole but not a Ki multiple: no suffix */
    check_format(1, BIN, "1m");
    check_format(-1, EXP, "-1e-3");
}

static void test_format_buffer_too_small(void)
{
    struct queue_qty q = {.milli = -1500, .format = DSI};
    char buf[QUEUE_QTY_STR_MAX];
    for (size_t cap = 1; cap <= strlen("-1500m"); cap++) {
        memset(buf, 'x', sizeof(buf));
        CU_ASSERT_EQUAL(queue_qty_format(&q, buf, cap), MUSTER_ENOSPC);
        CU_ASSERT_STRING_EQUAL(buf, "");
    }
    memset(buf, 'x', sizeof(buf));
    CU_ASSERT_EQUAL(queue_qty_format(&q, buf, strlen("-1500m") + 1), 6);
    CU_ASSERT_STRING_EQUAL(buf, "-1500m");

    /* Every path: binary, exponent, zero, auto. */
    struct queue_qty bin = {.milli = 2 * GI, .format = BIN};
    CU_ASSERT_EQUAL(queue_qty_format(&bin, buf, 3), MUSTER_ENOSPC);
    CU_ASSERT_STRING_EQUAL(buf, "");
    CU_ASSERT_EQUAL(queue_qty_format(&bin, buf, 4), 3);
    CU_ASSERT_STRING_EQUAL(buf, "2Gi");
    struct queue_qty e = {.milli = 15, .format = EXP};
    CU_ASSERT_EQUAL(queue_qty_format(&e, buf, 5), MUSTER_ENOSPC);
    CU_ASSERT_STRING_EQUAL(buf, "");
    CU_ASSERT_EQUAL(queue_qty_format(&e, buf, 6), 5);
    CU_ASSERT_STRING_EQUAL(buf, "15e-3");
    struct queue_qty zero = {.milli = 0, .format = BIN};
    CU_ASSERT_EQUAL(queue_qty_format(&zero, buf, 1), MUSTER_ENOSPC);
    CU_ASSERT_STRING_EQUAL(buf, "");
    CU_ASSERT_EQUAL(queue_qty_format(&zero, buf, 2), 1);
    CU_ASSERT_STRING_EQUAL(buf, "0");
    CU_ASSERT_EQUAL(queue_qty_format_auto(KI, buf, 3), MUSTER_ENOSPC);
    CU_ASSERT_STRING_EQUAL(buf, "");

    /* cap 0 leaves buf alone (there is no room even for ""), and may come with NULL. */
    buf[0] = 'x';
    CU_ASSERT_EQUAL(queue_qty_format(&q, buf, 0), MUSTER_ENOSPC);
    CU_ASSERT_EQUAL(buf[0], 'x');
    CU_ASSERT_EQUAL(queue_qty_format(&q, NULL, 0), MUSTER_ENOSPC);
    CU_ASSERT_EQUAL(queue_qty_format(&q, NULL, 8), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(queue_qty_format(NULL, buf, sizeof(buf)), MUSTER_EINVAL);

    /* QUEUE_QTY_STR_MAX fits the longest output of every format. */
    int64_t extremes[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, -1, 1};
    enum queue_qty_format formats[] = {DSI, BIN, EXP};
    for (size_t i = 0; i < ARRAY_LEN(extremes); i++) {
        for (size_t f = 0; f < ARRAY_LEN(formats); f++) {
            struct queue_qty x = {.milli = extremes[i], .format = formats[f]};
            CU_ASSERT(queue_qty_format(&x, buf, sizeof(buf)) > 0);
        }
        CU_ASSERT(queue_qty_format_auto(extremes[i], buf, sizeof(buf)) > 0);
    }
}

static void test_format_auto(void)
{
    check_auto(0, "0");
    check_auto(1, "1m");
    check_auto(-1, "-1m");
    check_auto(500, "500m");
    check_auto(1000, "1");
    check_auto(1024, "1024m");
    check_auto(1536000, "1536");
    check_auto(1000000, "1k");
    check_auto(KI, "1Ki");
    check_auto(-KI, "-1Ki");
    check_auto(KI + 1000, "1025");
    check_auto(2 * KI, "2Ki");
    check_auto(1536 * KI, "1536Ki");
    check_auto(1536 * MI, "1536Mi");
    check_auto(2 * GI, "2Gi");
    check_auto(1000 * KI, "1000Ki");
    check_auto(8 * PI_, "8Pi");
    check_auto(1000000000000LL, "1G");
    check_auto(INT64_MAX, "9223372036854775807m");
    check_auto(INT64_MIN, "-9223372036854775808m");
}

static void test_milli_arithmetic(void)
{
    int64_t out = 7;
    CU_ASSERT_EQUAL(queue_milli_add(1500, -500, &out), 0);
    CU_ASSERT_EQUAL(out, 1000);
    CU_ASSERT_EQUAL(queue_milli_add(INT64_MAX, 0, &out), 0);
    CU_ASSERT_EQUAL(out, INT64_MAX);
    CU_ASSERT_EQUAL(queue_milli_add(INT64_MAX - 1, 1, &out), 0);
    CU_ASSERT_EQUAL(out, INT64_MAX);
    CU_ASSERT_EQUAL(queue_milli_add(INT64_MIN, INT64_MAX, &out), 0);
    CU_ASSERT_EQUAL(out, -1);
    CU_ASSERT_EQUAL(queue_milli_add(INT64_MIN + 1, -1, &out), 0);
    CU_ASSERT_EQUAL(out, INT64_MIN);

    out = 7;
    CU_ASSERT_EQUAL(queue_milli_add(INT64_MAX, 1, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_milli_add(INT64_MIN, -1, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_milli_add(INT64_MAX, INT64_MAX, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_milli_add(INT64_MIN, INT64_MIN, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(out, 7);

    CU_ASSERT_EQUAL(queue_milli_mul(1500, 3, &out), 0);
    CU_ASSERT_EQUAL(out, 4500);
    CU_ASSERT_EQUAL(queue_milli_mul(-1500, 3, &out), 0);
    CU_ASSERT_EQUAL(out, -4500);
    CU_ASSERT_EQUAL(queue_milli_mul(INT64_MAX, 0, &out), 0);
    CU_ASSERT_EQUAL(out, 0);
    CU_ASSERT_EQUAL(queue_milli_mul(INT64_MAX, -1, &out), 0);
    CU_ASSERT_EQUAL(out, -INT64_MAX);
    CU_ASSERT_EQUAL(queue_milli_mul(INT64_MIN, 1, &out), 0);
    CU_ASSERT_EQUAL(out, INT64_MIN);
    CU_ASSERT_EQUAL(queue_milli_mul(4611686018427387904LL, -2, &out), 0); /* 2^62 × -2 */
    CU_ASSERT_EQUAL(out, INT64_MIN);
    CU_ASSERT_EQUAL(queue_milli_mul(8 * PI_ / 8, 8, &out), 0);
    CU_ASSERT_EQUAL(out, 8 * PI_);

    out = 7;
    CU_ASSERT_EQUAL(queue_milli_mul(INT64_MIN, -1, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_milli_mul(-1, INT64_MIN, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_milli_mul(4611686018427387904LL, 2, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_milli_mul(INT64_MAX / 2 + 1, 2, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(queue_milli_mul(PI_, 9, &out), MUSTER_ERANGE);
    CU_ASSERT_EQUAL(out, 7);
}

/* Every printed form parses back to the same milli-units, and printing is stable: the same
 * string again, except that a whole binary value printed without a suffix ("1000000") reads
 * back as decimal SI and so settles one step later ("1M"), exactly as in Kubernetes. */
static void check_round_trip(int64_t milli, enum queue_qty_format format)
{
    struct queue_qty q = {.milli = milli, .format = format};
    struct queue_qty back, again;
    char first[QUEUE_QTY_STR_MAX], second[QUEUE_QTY_STR_MAX], third[QUEUE_QTY_STR_MAX];
    int n1 = queue_qty_format(&q, first, sizeof(first));
    CU_ASSERT_FATAL(n1 > 0);
    CU_ASSERT_EQUAL_FATAL(queue_qty_parse(first, (size_t)n1, &back), 0);
    int n2 = queue_qty_format(&back, second, sizeof(second));
    CU_ASSERT_FATAL(n2 > 0);
    CU_ASSERT_EQUAL_FATAL(queue_qty_parse(second, (size_t)n2, &again), 0);
    CU_ASSERT_FATAL(queue_qty_format(&again, third, sizeof(third)) > 0);
    bool ok = back.milli == milli && again.milli == milli && strcmp(second, third) == 0;
    if (format != QUEUE_QTY_BINARY_SI || back.format == QUEUE_QTY_BINARY_SI)
        ok = ok && strcmp(first, second) == 0;
    if (!ok)
        fprintf(stderr, "\n  round trip %lld/%d: \"%s\" -> %lld \"%s\" -> \"%s\"\n",
                (long long)milli, (int)format, first, (long long)back.milli, second, third);
    CU_ASSERT(ok);
}

static void test_round_trip(void)
{
    static const int64_t edges[] = {
        0,
        1,
        999,
        1000,
        1001,
        1023000,
        1024000,
        1025000,
        KI - 1,
        KI + 1,
        MI,
        MI + 1000,
        GI,
        TI,
        PI_,
        8 * PI_,
        1000000000000000000LL,
        9000000000000000000LL,
        INT64_MAX,
        INT64_MAX - 1,
        INT64_MIN,
        INT64_MIN + 1,
        123456789,
        1536 * MI,
        100000,
    };
    enum queue_qty_format formats[] = {DSI, BIN, EXP};
    for (size_t f = 0; f < ARRAY_LEN(formats); f++) {
        for (size_t i = 0; i < ARRAY_LEN(edges); i++) {
            check_round_trip(edges[i], formats[f]);
            check_round_trip(edges[i] == INT64_MIN ? edges[i] : -edges[i], formats[f]);
        }
        /* Deterministic pseudo-random magnitudes at every scale, plus multiples of 1Ki. */
        uint64_t x = 0x9e3779b97f4a7c15ULL;
        for (int i = 0; i < 20000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            int64_t v = (int64_t)(x >> (x % 64));
            check_round_trip(v, formats[f]);
            check_round_trip((int64_t)((x % 8000000000000ULL) * KI) * (i % 2 ? -1 : 1), formats[f]);
            check_round_trip((int64_t)(x % 100000) * 1000000000LL, formats[f]);
        }
    }
}

static CU_TestInfo tests[] = {
    {"parse: Kubernetes table, signed", test_parse_kubernetes_table},
    {"parse: every suffix", test_parse_every_suffix},
    {"parse: forms and signs", test_parse_forms_and_signs},
    {"parse: sub-milli rounds away from zero", test_parse_rounding},
    {"parse: rejects malformed", test_parse_rejects},
    {"parse: length limit", test_parse_length_limit},
    {"parse: overflow boundaries", test_parse_overflow},
    {"format: Kubernetes table", test_format_kubernetes_table},
    {"format: examples", test_format_examples},
    {"format: value with a format", test_format_new_set},
    {"format: extremes and the binary cut-off", test_format_extremes},
    {"format: buffer too small", test_format_buffer_too_small},
    {"format_auto: binary for whole Ki multiples", test_format_auto},
    {"milli add and mul: overflow checked", test_milli_arithmetic},
    {"round trip: format, parse, format", test_round_trip},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/quantity", tests)
