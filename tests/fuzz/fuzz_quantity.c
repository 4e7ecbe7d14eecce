/* libFuzzer target for queue/quantity.c: any bytes either fail to parse or survive
 * parse → format → parse with the exact same milli-units. */
#include "queue/errors.h"
#include "queue/quantity.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Formats q and parses it back; aborts unless the milli-units survive. Returns the length of
 * the printed string in buf. */
static size_t reformat(const struct queue_qty *q, char *buf, struct queue_qty *back)
{
    int n = queue_qty_format(q, buf, QUEUE_QTY_STR_MAX);
    if (n <= 0 || (size_t)n >= QUEUE_QTY_STR_MAX || strlen(buf) != (size_t)n)
        abort();
    if (queue_qty_parse(buf, (size_t)n, back) != 0 || back->milli != q->milli)
        abort();
    return (size_t)n;
}

/* Contract: called by libFuzzer with any bytes; returns 0, aborts on a broken invariant. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct queue_qty q;
    if (queue_qty_parse((const char *)data, size, &q) != 0)
        return 0;

    char first[QUEUE_QTY_STR_MAX], second[QUEUE_QTY_STR_MAX], third[QUEUE_QTY_STR_MAX];
    struct queue_qty back, again, last;
    size_t n1 = reformat(&q, first, &back);
    size_t n2 = reformat(&back, second, &again);
    reformat(&again, third, &last);

    /* Canonical output is a fixed point. The one exception is Kubernetes' own: a whole binary
     * value printed without a suffix ("1000000") reads back as decimal SI ("1M") and settles
     * one step later. */
    if (q.format != QUEUE_QTY_BINARY_SI || back.format == QUEUE_QTY_BINARY_SI) {
        if (n1 != n2 || memcmp(first, second, n1) != 0)
            abort();
    }
    if (strcmp(second, third) != 0)
        abort();

    /* The automatic format must round-trip too, and a too-small buffer must come back empty. */
    char buf[QUEUE_QTY_STR_MAX];
    int n = queue_qty_format_auto(q.milli, buf, sizeof(buf));
    if (n <= 0 || queue_qty_parse(buf, (size_t)n, &back) != 0 || back.milli != q.milli)
        abort();
    buf[0] = 'x';
    if (queue_qty_format(&q, buf, n1) != MUSTER_ENOSPC || buf[0] != '\0')
        abort();
    return 0;
}
