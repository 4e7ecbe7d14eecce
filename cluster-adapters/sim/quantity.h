/* Kubernetes resource quantities for the simulator's capacity arithmetic, as int64 milli-units.
 * A deliberately small subset of queue/quantity.h's grammar (no exponents) until that module
 * is on this branch; swap these calls for queue_qty_* then. */
#ifndef MUSTER_SIM_QUANTITY_H
#define MUSTER_SIM_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

/* Milli-units that stand for "unbounded" (Karmada's MaxInt64 resource-model maxima). */
#define SIM_QTY_INF INT64_MAX

/* Parses "8", "500m", "1.5", "32Gi", "2k" into milli-units (fractions below a milli round up).
 * Returns 0, MUSTER_EINVAL for a malformed string or MUSTER_ERANGE on overflow. */
int sim_qty_parse(const char *s, int64_t *milli);

/* Formats milli-units the way a person expects for resource `name`: binary suffixes for whole
 * multiples of 1Ki (memory, storage), "500m" for fractions, plain integers otherwise;
 * SIM_QTY_INF prints as MaxInt64. Returns 0 or MUSTER_ENOSPC. */
int sim_qty_format(int64_t milli, char *buf, size_t cap);

#endif
