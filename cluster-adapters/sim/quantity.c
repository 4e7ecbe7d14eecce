/* Quantities for the simulator's capacity arithmetic: queue/quantity.c's exact parser and
 * canonical formatter, plus Karmada's MaxInt64 resource-model maximum, which is a valid
 * Kubernetes quantity but beyond int64 milli-units. */
#include "cluster-adapters/sim/quantity.h"

#include "queue/errors.h"
#include "queue/quantity.h"

#include <stdio.h>
#include <string.h>

#define MAXINT64_TEXT "9223372036854775807"

int sim_qty_parse(const char *s, int64_t *milli)
{
    struct queue_qty q;
    if (!s)
        return MUSTER_EINVAL;
    if (strcmp(s, MAXINT64_TEXT) == 0) {
        *milli = SIM_QTY_INF;
        return 0;
    }
    int rc = queue_qty_parse(s, strlen(s), &q);
    if (rc)
        return rc;
    *milli = q.milli;
    return 0;
}

int sim_qty_format(int64_t milli, char *buf, size_t cap)
{
    if (milli == SIM_QTY_INF) {
        int n = snprintf(buf, cap, "%s", MAXINT64_TEXT);
        return n < 0 || (size_t)n >= cap ? MUSTER_ENOSPC : 0;
    }
    return queue_qty_format_auto(milli, buf, cap) < 0 ? MUSTER_ENOSPC : 0;
}
