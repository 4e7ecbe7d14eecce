/* A small Kubernetes quantity parser and formatter for the simulator (see quantity.h). */
#include "cluster-adapters/sim/quantity.h"

#include "queue/errors.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct suffix {
    const char *s;
    int64_t mul; /* milli-units per unit */
};

static const struct suffix suffixes[] = {
    {"Ki", 1024LL * 1000},          {"Mi", 1048576LL * 1000},          {"Gi", 1073741824LL * 1000},
    {"Ti", 1099511627776LL * 1000}, {"Pi", 1125899906842624LL * 1000}, {"m", 1},
    {"k", 1000LL * 1000},           {"M", 1000000LL * 1000},           {"G", 1000000000LL * 1000},
    {"T", 1000000000000LL * 1000},  {"P", 1000000000000000LL * 1000},  {"", 1000},
};

int sim_qty_parse(const char *s, int64_t *milli)
{
    if (!s || !*s)
        return MUSTER_EINVAL;
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    /* Whole and fractional digits, kept as an integer numerator over 10^frac_digits. */
    __int128 num = 0;
    int frac_digits = 0, digits = 0, in_frac = 0;
    for (; *p; p++) {
        if (*p == '.' && !in_frac) {
            in_frac = 1;
            continue;
        }
        if (*p < '0' || *p > '9')
            break;
        if (digits > 30)
            return MUSTER_ERANGE;
        num = num * 10 + (*p - '0');
        digits++;
        frac_digits += in_frac;
    }
    if (!digits)
        return MUSTER_EINVAL;
    const struct suffix *sf = NULL;
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
        if (strcmp(p, suffixes[i].s) == 0)
            sf = &suffixes[i];
    if (!sf)
        return MUSTER_EINVAL;
    __int128 v = num * sf->mul;
    __int128 div = 1;
    for (int i = 0; i < frac_digits; i++)
        div *= 10;
    __int128 q = (v + div - 1) / div; /* round up, as MilliValue() does */
    if (q > INT64_MAX)
        return MUSTER_ERANGE;
    *milli = neg ? -(int64_t)q : (int64_t)q;
    return 0;
}

int sim_qty_format(int64_t milli, char *buf, size_t cap)
{
    int n;
    if (milli == SIM_QTY_INF) {
        n = snprintf(buf, cap, "%" PRId64, (int64_t)INT64_MAX);
    } else if (milli % 1000 != 0) {
        n = snprintf(buf, cap, "%" PRId64 "m", milli);
    } else {
        int64_t v = milli / 1000;
        static const char *const bin[] = {"Pi", "Ti", "Gi", "Mi", "Ki"};
        static const int shift[] = {50, 40, 30, 20, 10};
        n = -1;
        for (int i = 0; i < 5 && v != 0; i++) {
            int64_t unit = (int64_t)1 << shift[i];
            if (v % unit == 0) {
                n = snprintf(buf, cap, "%" PRId64 "%s", v / unit, bin[i]);
                break;
            }
        }
        if (n < 0)
            n = snprintf(buf, cap, "%" PRId64, v);
    }
    return n < 0 || (size_t)n >= cap ? MUSTER_ENOSPC : 0;
}
