/* libFuzzer target for the admin API's request body decoder (dispatcher/api/body.c, queue_doc.c):
 * any bytes are either refused with a 4xx error that says something, or decode into a queue
 * document whose fields keep their invariants, also after being merged as a patch onto a stored
 * queue. */
#include "dispatcher/api.h"
#include "queue/errors.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_doc(const struct api_queue_doc *d)
{
    if (d->weight < 1 || d->weight > 1000000 || d->gang_timeout_s < 1 ||
        d->gang_timeout_s > API_GANG_TIMEOUT_S_MAX || d->priority < INT32_MIN ||
        d->priority > INT32_MAX || !d->state || !d->strategy)
        abort();
}

static void check_error(const struct api_error *e)
{
    if (e->status < 400 || e->status > 499 || !e->msg[0] || !e->reason[0])
        abort();
}

/* Contract: called by libFuzzer with any bytes; returns 0, aborts on a broken invariant. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct api_error e = {0};
    struct json_object *obj = NULL;
    int rc = api_body_parse((const char *)data, size, &obj, &e);
    if (rc) {
        if (obj || (rc != MUSTER_EINVAL && rc != MUSTER_ELIMIT))
            abort();
        check_error(&e);
        return 0;
    }
    struct api_queue_doc d;
    memset(&e, 0, sizeof(e));
    if (api_queue_doc_decode(obj, &d, &e) == 0)
        check_doc(&d);
    else if (e.status != 422)
        abort();

    /* The same body as a merge patch onto a stored queue. */
    struct json_object *target = json_tokener_parse(
        "{\"name\":\"q\",\"parent\":\"root\",\"weight\":2,\"priority\":0,\"state\":\"Open\","
        "\"queueingStrategy\":\"StrictFIFO\",\"guarantee\":{\"cpu\":\"1\"},\"deserved\":{},"
        "\"capability\":{},\"gangTimeoutSeconds\":300}");
    struct json_object *merged = api_merge_patch(target, obj);
    if (!merged)
        abort();
    memset(&e, 0, sizeof(e));
    if (api_queue_doc_decode(merged, &d, &e) == 0)
        check_doc(&d);
    else if (e.status != 422)
        abort();
    json_object_put(merged);
    json_object_put(target);
    json_object_put(obj);
    return 0;
}
