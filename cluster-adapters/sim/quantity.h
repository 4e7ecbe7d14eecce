/* Kubernetes resource quantities for the simulator's capacity arithmetic, as int64 milli-units:
 * queue/quantity.h underneath, plus Karmada's MaxInt64 model maximum. */
#ifndef MUSTER_SIM_QUANTITY_H
#define MUSTER_SIM_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

/* Milli-units that stand for "unbounded" (Karmada's MaxInt64 resource-model maxima). */
#define SIM_QTY_INF INT64_MAX

/* Parses any Kubernetes quantity into milli-units (fractions below a milli round up);
 * "9223372036854775807" is SIM_QTY_INF. Returns 0, MUSTER_EINVAL for a malformed string or
 * MUSTER_ERANGE on overflow. */
int sim_qty_parse(const char *s, int64_t *milli);

/* Formats milli-units canonically (binary suffixes for whole multiples of 1Ki, decimal SI
 * otherwise, as queue_qty_format_auto); SIM_QTY_INF prints as MaxInt64. Returns 0 or
 * MUSTER_ENOSPC. */
int sim_qty_format(int64_t milli, char *buf, size_t cap);

#endif
