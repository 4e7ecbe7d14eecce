/* Kubernetes quantity parsing and canonical formatting over exact int64 milli-units. */
#include "queue/quantity.h"

#include "queue/errors.h"

#include <stdbool.h>

/* Input digits plus the up to 19 decimal digits a ×2^60 (Ei) multiplier can add. */
#define QTY_DIGITS_MAX (QUEUE_QTY_INPUT_MAX + 24)

/* Exponents are bounded like Kubernetes' strconv.ParseInt(exp, 10, 32): beyond int32 the
 * string is rejected as malformed, not reported as out of range. */
#define QTY_EXP_MAX 2147483647LL
#define QTY_EXP_MIN (-2147483648LL)

/* 2^63: the magnitude of INT64_MIN, one more than INT64_MAX. */
#define QTY_MAG_NEG_MAX ((uint64_t)INT64_MAX + 1)

/* The number and suffix of a syntactically valid quantity, before any arithmetic. */
struct qty_syntax {
    bool negative;
    const char *digits; /* integer part, int_len digits (may be 0: ".5") */
    size_t int_len;
    const char *frac; /* fraction after '.', frac_len digits (may be 0: "1.") */
    size_t frac_len;
    int64_t exp10; /* decimal exponent contributed by the suffix */
    unsigned exp2; /* binary exponent contributed by the suffix (0, 10, ..., 60) */
    enum queue_qty_format format;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t span_digits(const char *s, size_t i, size_t len)
{
    while (i < len && is_digit(s[i]))
        i++;
    return i;
}

/* One-letter decimal SI suffix to its power of ten; false when c is not one. */
static bool decimal_suffix(char c, int64_t *exp10)
{
    static const struct {
        char letter;
        signed char exp10;
    } table[] = {{'n', -9}, {'u', -6}, {'m', -3}, {'k', 3}, {'M', 6},
                 {'G', 9},  {'T', 12}, {'P', 15}, {'E', 18}};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (table[i].letter == c) {
            *exp10 = table[i].exp10;
            return true;
        }
    }
    return false;
}

/* Binary SI prefix letter (the one before 'i') to its power of two. */
static bool binary_suffix(char c, unsigned *exp2)
{
    static const char letters[] = "KMGTPE";
    for (unsigned i = 0; letters[i] != '\0'; i++) {
        if (letters[i] == c) {
            *exp2 = (i + 1) * 10;
            return true;
        }
    }
    return false;
}

/* "e"/"E", optional sign, one or more digits, nothing after. Leading zeros are allowed and an
 * exponent that does not fit int32 is malformed, as in Kubernetes. */
static int parse_exponent(const char *s, size_t len, int64_t *out)
{
    size_t i = 1;
    bool negative = false;
    if (i < len && (s[i] == '+' || s[i] == '-')) {
        negative = s[i] == '-';
        i++;
    }
    if (i == len)
        return MUSTER_EINVAL;
    int64_t v = 0;
    for (; i < len; i++) {
        if (!is_digit(s[i]))
            return MUSTER_EINVAL;
        v = v * 10 + (s[i] - '0');
        /* Stop before a long digit run can overflow; the one extra lets -2^31 through. */
        if (v > QTY_EXP_MAX + 1)
            return MUSTER_EINVAL;
    }
    v = negative ? -v : v;
    if (v > QTY_EXP_MAX || v < QTY_EXP_MIN)
        return MUSTER_EINVAL;
    *out = v;
    return 0;
}

static int parse_suffix(const char *s, size_t len, struct qty_syntax *q)
{
    q->exp10 = 0;
    q->exp2 = 0;
    q->format = QUEUE_QTY_DECIMAL_SI;
    if (len == 0)
        return 0;
    if (len == 1 && decimal_suffix(s[0], &q->exp10))
        return 0;
    if (len == 2 && s[1] == 'i' && binary_suffix(s[0], &q->exp2)) {
        q->format = QUEUE_QTY_BINARY_SI;
        return 0;
    }
    /* A lone "E" was taken as exa above, so anything here starting with e/E is an exponent. */
    if (s[0] == 'e' || s[0] == 'E') {
        q->format = QUEUE_QTY_DECIMAL_EXPONENT;
        return parse_exponent(s, len, &q->exp10);
    }
    return MUSTER_EINVAL;
}

/* The grammar: [+-] (digits [. [digits]] | . digits) suffix. Unlike Kubernetes, which reads
 * "", "+", "-", "." and "-." as zero, a number here needs at least one digit. */
static int parse_syntax(const char *s, size_t len, struct qty_syntax *q)
{
    size_t i = 0;
    q->negative = false;
    if (i < len && (s[i] == '+' || s[i] == '-')) {
        q->negative = s[i] == '-';
        i++;
    }
    q->digits = s + i;
    size_t end = span_digits(s, i, len);
    q->int_len = end - i;
    q->frac = s + end;
    q->frac_len = 0;
    if (end < len && s[end] == '.') {
        size_t frac_start = end + 1;
        end = span_digits(s, frac_start, len);
        q->frac = s + frac_start;
        q->frac_len = end - frac_start;
    }
    if (q->int_len + q->frac_len == 0)
        return MUSTER_EINVAL;
    return parse_suffix(s + end, len - end, q);
}

/* A decimal number as right-aligned digits d[start..QTY_DIGITS_MAX), most significant first,
 * so multiplying can grow it to the left. */
struct qty_digits {
    unsigned char d[QTY_DIGITS_MAX];
    size_t start;
};

static size_t digits_len(const struct qty_digits *n)
{
    return QTY_DIGITS_MAX - n->start;
}

static void digits_mul_small(struct qty_digits *n, unsigned m)
{
    unsigned carry = 0;
    for (size_t i = QTY_DIGITS_MAX; i > n->start; i--) {
        unsigned t = n->d[i - 1] * m + carry;
        n->d[i - 1] = (unsigned char)(t % 10);
        carry = t / 10;
    }
    while (carry != 0) {
        n->d[--n->start] = (unsigned char)(carry % 10);
        carry /= 10;
    }
}

/* ceil(n × 10^exp) into *out when it is at most limit, else MUSTER_ERANGE. n is non-zero with no
 * leading zeros. Working on the digit string keeps every input exact: a 19-digit integer part
 * is the most that can fit, and the rest only decides whether to round up. */
static int digits_scaled_ceil(const struct qty_digits *n, int64_t exp, uint64_t limit,
                              uint64_t *out)
{
    int64_t len = (int64_t)digits_len(n);
    int64_t int_digits = len + exp; /* digits left of the point; |exp| stays near int32 range */
    if (int_digits > 19)
        return MUSTER_ERANGE; /* at least 10^19, above any int64 magnitude */
    if (int_digits <= 0) {
        if (limit < 1)
            return MUSTER_ERANGE;
        *out = 1; /* non-zero but below one unit of the target scale */
        return 0;
    }
    uint64_t v = 0;
    bool inexact = false;
    for (int64_t i = 0; i < len; i++) {
        unsigned digit = n->d[n->start + (size_t)i];
        if (i < int_digits)
            v = v * 10 + digit;
        else if (digit != 0)
            inexact = true;
    }
    for (int64_t i = len; i < int_digits; i++)
        v *= 10; /* cannot wrap: int_digits <= 19 and 10^19 < 2^64 */
    if (inexact)
        v++;
    if (v > limit)
        return MUSTER_ERANGE;
    *out = v;
    return 0;
}

/* The i-th digit of integer part then fraction, as if the '.' were not there. */
static char syntax_digit(const struct qty_syntax *q, size_t i)
{
    return i < q->int_len ? q->digits[i] : q->frac[i - q->int_len];
}

/* See quantity.h. Also MUSTER_EINVAL when s or out is NULL. Syntax is checked before value, so
 * a malformed string is EINVAL even when its number is also too large. */
int queue_qty_parse(const char *s, size_t len, struct queue_qty *out)
{
    if (s == NULL || out == NULL || len == 0 || len > QUEUE_QTY_INPUT_MAX)
        return MUSTER_EINVAL;
    struct qty_syntax q;
    int rc = parse_syntax(s, len, &q);
    if (rc < 0)
        return rc;

    /* Significant digits only: leading zeros dropped, trailing zeros moved into the exponent,
     * so "1000000000000000000000e-18" is the one digit 1 at 10^3. */
    struct qty_digits n;
    size_t total = q.int_len + q.frac_len;
    size_t first = 0;
    size_t last = total;
    while (first < total && syntax_digit(&q, first) == '0')
        first++;
    while (last > first && syntax_digit(&q, last - 1) == '0')
        last--;
    if (first == last) {
        out->milli = 0;
        out->format = q.format;
        return 0;
    }
    n.start = QTY_DIGITS_MAX - (last - first);
    for (size_t i = first; i < last; i++)
        n.d[n.start + (i - first)] = (unsigned char)(syntax_digit(&q, i) - '0');
    /* value = n × 10^(exp10 - frac_len + trailing zeros) × 2^exp2 units; milli adds 3. */
    int64_t exp = q.exp10 - (int64_t)q.frac_len + (int64_t)(total - last) + 3;
    for (unsigned b = 0; b < q.exp2; b += 10)
        digits_mul_small(&n, 1024);

    uint64_t mag;
    rc = digits_scaled_ceil(&n, exp, q.negative ? QTY_MAG_NEG_MAX : (uint64_t)INT64_MAX, &mag);
    if (rc < 0)
        return rc;

    /* Kubernetes turns a binary quantity strictly between 0 and 1 into decimal SI when parsing,
     * judged after rounding up to nano-units (three places finer than milli). */
    enum queue_qty_format format = q.format;
    uint64_t nano;
    if (format == QUEUE_QTY_BINARY_SI && digits_scaled_ceil(&n, exp + 6, 999999999, &nano) == 0)
        format = QUEUE_QTY_DECIMAL_SI;

    /* Negated via mag - 1 so that 2^63 becomes INT64_MIN without an out-of-range conversion. */
    out->milli = q.negative ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
    out->format = format;
    return 0;
}

/* Appends the decimal digits of v at buf[*len...), never past cap; *len counts them all. */
static void put_u64(char *buf, size_t cap, size_t *len, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) {
        if (*len < cap)
            buf[*len] = tmp[n - 1];
        (*len)++;
        n--;
    }
}

static void put_str(char *buf, size_t cap, size_t *len, const char *s)
{
    for (; *s != '\0'; s++) {
        if (*len < cap)
            buf[*len] = *s;
        (*len)++;
    }
}

/* Kubernetes' AsCanonicalBytes: strip factors of ten into the exponent, then step the exponent
 * down to a multiple of three. Starting from milli-units the exponent never goes below -3. */
static void canonical_base10(uint64_t mag, uint64_t *mantissa, int *exp)
{
    int e = -3;
    while (mag >= 10 && mag % 10 == 0) {
        mag /= 10;
        e++;
    }
    /* Restores at most the zeros just removed, so this cannot overflow. */
    while ((e + 3) % 3 != 0) {
        mag *= 10;
        e--;
    }
    *mantissa = mag;
    *exp = e;
}

static const char *decimal_si_suffix(int exp)
{
    static const char *const suffixes[] = {"m", "", "k", "M", "G", "T", "P", "E"};
    int i = exp / 3 + 1;
    if (exp % 3 != 0 || i < 0 || i >= (int)(sizeof(suffixes) / sizeof(suffixes[0])))
        return NULL;
    return suffixes[i];
}

/* See quantity.h. Also MUSTER_EINVAL when q is NULL, or buf is NULL with cap > 0; with cap 0
 * buf is not touched. An unknown q->format prints as a decimal exponent, as in Kubernetes. */
int queue_qty_format(const struct queue_qty *q, char *buf, size_t cap)
{
    if (q == NULL || (buf == NULL && cap != 0))
        return MUSTER_EINVAL;
    size_t len = 0;
    int64_t milli = q->milli;
    uint64_t mag = milli < 0 ? 0 - (uint64_t)milli : (uint64_t)milli;
    enum queue_qty_format format = q->format;
    if (format != QUEUE_QTY_DECIMAL_SI && format != QUEUE_QTY_BINARY_SI)
        format = QUEUE_QTY_DECIMAL_EXPONENT; /* Kubernetes' default for an unknown format */

    /* Binary SI needs a whole number of units, at least 1Ki, or it would round: Kubernetes then
     * falls back to decimal SI. */
    if (format == QUEUE_QTY_BINARY_SI && (mag < 1024 * 1000 || mag % 1000 != 0))
        format = QUEUE_QTY_DECIMAL_SI;

    if (mag == 0) {
        put_str(buf, cap, &len, "0");
    } else if (format == QUEUE_QTY_BINARY_SI) {
        static const char *const suffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
        uint64_t units = mag / 1000;
        int i = 0;
        while (units >= 1024 && units % 1024 == 0) {
            units /= 1024;
            i++;
        }
        if (milli < 0)
            put_str(buf, cap, &len, "-");
        put_u64(buf, cap, &len, units);
        put_str(buf, cap, &len, suffixes[i]);
    } else {
        uint64_t mantissa;
        int exp;
        canonical_base10(mag, &mantissa, &exp);
        if (milli < 0)
            put_str(buf, cap, &len, "-");
        put_u64(buf, cap, &len, mantissa);
        const char *suffix = format == QUEUE_QTY_DECIMAL_SI ? decimal_si_suffix(exp) : NULL;
        if (suffix != NULL) {
            put_str(buf, cap, &len, suffix);
        } else if (exp != 0) {
            /* Decimal exponent, and Kubernetes' fallback for decimal SI past "E". */
            put_str(buf, cap, &len, exp < 0 ? "e-" : "e");
            put_u64(buf, cap, &len, (uint64_t)(exp < 0 ? -exp : exp));
        }
    }

    if (len >= cap) {
        if (cap > 0)
            buf[0] = '\0';
        return MUSTER_ENOSPC;
    }
    buf[len] = '\0';
    return (int)len;
}

/* See quantity.h: binary SI for a non-zero multiple of 1024 units, else decimal SI; returns
 * what queue_qty_format returns. */
int queue_qty_format_auto(int64_t milli, char *buf, size_t cap)
{
    struct queue_qty q = {
        .milli = milli,
        .format =
            milli != 0 && milli % (1024 * 1000) == 0 ? QUEUE_QTY_BINARY_SI : QUEUE_QTY_DECIMAL_SI,
    };
    return queue_qty_format(&q, buf, cap);
}

/* a + b into *out (non-NULL), or MUSTER_ERANGE with *out untouched. */
int queue_milli_add(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return MUSTER_ERANGE;
    *out = r;
    return 0;
}

/* a × n into *out (non-NULL), or MUSTER_ERANGE with *out untouched. */
int queue_milli_mul(int64_t a, int64_t n, int64_t *out)
{
    int64_t r;
    if (__builtin_mul_overflow(a, n, &r))
        return MUSTER_ERANGE;
    *out = r;
    return 0;
}
