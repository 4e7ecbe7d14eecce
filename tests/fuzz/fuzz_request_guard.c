/* libFuzzer target for the admin API's request guards (dispatcher/reqguard.c): the first byte
 * picks the rule, the rest is its input (an HTTP/1 request head, a Content-Type, a Host, an
 * Origin, a raw path, a decoded path segment). Any bytes are either accepted or refused with a
 * status and a message; nothing reads outside the input. Seeds:
 * tests/fuzz/seeds/fuzz-request_guard, one file per input class, first byte as below. */
#include "dispatcher/reqguard.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Contract: called by libFuzzer with any bytes; returns 0, aborts on a broken invariant. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    /* a private copy, so the sanitizer sees any read past len */
    char *buf = malloc(len ? len : 1);
    if (!buf)
        return 0;
    memcpy(buf, in, len);
    struct api_error e;
    memset(&e, 0, sizeof(e));
    switch (data[0] % 6) {
    case 0: { /* 'H' 0x48 % 6 == 0: an HTTP/1 request head */
        int rc = api_guard_framing(buf, len, 0, &e);
        if (rc && (rc != 400 || e.status != 400 || !e.msg[0] || !e.reason[0]))
            abort();
        /* HTTP/1.0 refuses at least what HTTP/1.1 refuses */
        if (rc && api_guard_framing(buf, len, 1, &e) != 400)
            abort();
        break;
    }
    case 1: /* a Content-Type value */
        (void)api_guard_json_type(buf, len);
        break;
    case 2: /* a Host value */
        if (api_guard_host_ok(buf, len, "127.0.0.1", 8080) &&
            !api_guard_host_ok(buf, len, "127.0.0.1", 8080))
            abort();
        break;
    case 3: /* an Origin value */
        (void)api_guard_origin_ok(buf, len, "::1", 8443);
        (void)api_guard_origin_same(buf, len, "muster.example:443", 18);
        break;
    case 4: /* a raw path: accepted ones have no escaped slash */
        if (api_guard_raw_path(buf, len))
            for (size_t i = 0; i + 2 < len; i++)
                if (buf[i] == '%' && buf[i + 1] == '2' && (buf[i + 2] | 0x20) == 'f')
                    abort();
        break;
    default: /* a decoded path segment: accepted ones hold no NUL */
        if (api_guard_path_segment(buf, len) && memchr(buf, 0, len))
            abort();
        break;
    }
    free(buf);
    return 0;
}
