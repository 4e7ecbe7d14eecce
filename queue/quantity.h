/* Kubernetes resource quantities ("500m", "2Gi", "1.5E-2"), held exactly as int64 milli-units. */
#ifndef MUSTER_QUEUE_QUANTITY_H
#define MUSTER_QUEUE_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

/* How a quantity was written, which is also how Kubernetes prints it back. */
enum queue_qty_format {
    QUEUE_QTY_DECIMAL_SI,       /* "", m, k, M, G, T, P, E (and n, u on input) */
    QUEUE_QTY_BINARY_SI,        /* Ki, Mi, Gi, Ti, Pi, Ei */
    QUEUE_QTY_DECIMAL_EXPONENT, /* e3, E-2, ... */
};

struct queue_qty {
    int64_t milli; /* value × 1000, exact */
    enum queue_qty_format format;
};

/* Longest input accepted and buffer size that always fits a formatted quantity. */
#define QUEUE_QTY_INPUT_MAX 128
#define QUEUE_QTY_STR_MAX 32

/* Parses s[0..len) with the Kubernetes grammar (sign, digits, optional fraction, one suffix).
 * Values finer than a milli-unit are rounded up to the next milli-unit away from zero, as
 * Kubernetes' MilliValue() does. Returns 0, MUSTER_EINVAL for a malformed string (empty, bad
 * character, bad suffix, longer than QUEUE_QTY_INPUT_MAX), or MUSTER_ERANGE when the value does
 * not fit in int64 milli-units. *out is written only on success. */
int queue_qty_parse(const char *s, size_t len, struct queue_qty *out);

/* Writes the canonical Kubernetes form of q into buf (NUL-terminated): "1500m", "2Gi", "100M",
 * "1e3", "0". Returns the length, or MUSTER_ENOSPC when cap is too small (buf then holds ""). */
int queue_qty_format(const struct queue_qty *q, char *buf, size_t cap);

/* Formats milli-units choosing the format a person expects for a value with no format of its
 * own: binary SI when it is a whole multiple of 1Ki, decimal SI otherwise. */
int queue_qty_format_auto(int64_t milli, char *buf, size_t cap);

/* Overflow-checked arithmetic on milli-units: 0 or MUSTER_ERANGE (out untouched). */
int queue_milli_add(int64_t a, int64_t b, int64_t *out);
int queue_milli_mul(int64_t a, int64_t n, int64_t *out);

#endif
