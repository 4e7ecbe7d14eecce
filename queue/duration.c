/* Durations ("10m", "1h30m", "500ms") to and from milliseconds (see duration.h). */
#include "queue/duration.h"

#include "queue/errors.h"

#include <stdio.h>
#include <string.h>

struct unit {
    const char *name;
    int64_t ms;
};

/* Longest name first, so "ms" is not read as "m" followed by garbage. */
static const struct unit units[] = {{"ms", 1}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};

/* Reads one <digits>[.<digits>]<unit> term at s[*i]: its value in ms into *out. */
static int term(const char *s, size_t len, size_t *i, int64_t *out)
{
    int64_t whole = 0, frac = 0, scale = 1;
    size_t digits = 0;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
        if (__builtin_mul_overflow(whole, 10, &whole) ||
            __builtin_add_overflow(whole, s[*i] - '0', &whole))
            return MUSTER_ERANGE;
        (*i)++;
        digits++;
    }
    if (*i < len && s[*i] == '.') {
        (*i)++;
        while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
            /* Beyond 1e-9 of a unit nothing can be a whole millisecond it was not already;
             * a nonzero digit there is caught below as a fraction of a millisecond. */
            if (scale < 1000000000) {
                frac = frac * 10 + (s[*i] - '0');
                scale *= 10;
            } else if (s[*i] != '0') {
                return MUSTER_EINVAL;
            }
            (*i)++;
            digits++;
        }
    }
    if (digits == 0)
        return MUSTER_EINVAL;
    const struct unit *u = NULL;
    for (size_t k = 0; k < sizeof(units) / sizeof(units[0]) && !u; k++) {
        size_t n = strlen(units[k].name);
        if (len - *i >= n && memcmp(s + *i, units[k].name, n) == 0)
            u = &units[k];
    }
    if (!u)
        return MUSTER_EINVAL; /* no unit, or an unknown one */
    *i += strlen(u->name);
    int64_t v, f;
    if (__builtin_mul_overflow(whole, u->ms, &v))
        return MUSTER_ERANGE;
    /* frac / scale of a unit, in ms: exact or refused. */
    if (__builtin_mul_overflow(frac, u->ms, &f) || f % scale)
        return MUSTER_EINVAL;
    if (__builtin_add_overflow(v, f / scale, out))
        return MUSTER_ERANGE;
    return 0;
}

int queue_duration_parse(const char *s, size_t len, int64_t *ms)
{
    if (!s || len == 0 || len > QUEUE_DURATION_INPUT_MAX)
        return MUSTER_EINVAL;
    if (len == 1 && s[0] == '0') {
        *ms = 0;
        return 0;
    }
    int64_t sum = 0;
    size_t i = 0;
    while (i < len) {
        int64_t v;
        int rc = term(s, len, &i, &v);
        if (rc)
            return rc;
        if (__builtin_add_overflow(sum, v, &sum))
            return MUSTER_ERANGE;
    }
    *ms = sum;
    return 0;
}

int queue_duration_format(int64_t ms, char *buf, size_t cap)
{
    if (ms < 0) {
        if (buf && cap)
            buf[0] = '\0';
        return MUSTER_EINVAL;
    }
    char tmp[QUEUE_DURATION_STR_MAX];
    size_t n = 0;
    if (ms == 0) {
        memcpy(tmp, "0s", 3);
        n = 2;
    }
    static const struct unit order[] = {{"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1}};
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]) && ms > 0; k++) {
        int64_t q = ms / order[k].ms;
        ms %= order[k].ms;
        if (q)
            n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, "%lld%s", (long long)q, order[k].name);
    }
    if (!buf || n + 1 > cap) {
        if (buf && cap)
            buf[0] = '\0';
        return MUSTER_ENOSPC;
    }
    memcpy(buf, tmp, n + 1);
    return (int)n;
}
