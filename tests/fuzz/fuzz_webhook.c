/* libFuzzer target for the ResourceBinding admission webhook (cluster-adapters/karmada/webhook.c):
 * any bytes are either refused with a sentence (400/413, no answer) or answered with an allowed
 * AdmissionReview echoing a clean uid, carrying a patch exactly when the RB was held, and that
 * patch, applied to the request's object, leaves spec.suspension.scheduling true. */
#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/karmada/webhook.h"
#include "cluster-adapters/kube/json.h"
#include "queue/errors.h"

#include <json-c/json.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The patch was held: decode it and apply it to the request's object as the apiserver would. */
static void check_patch(const uint8_t *data, size_t size, const char *b64)
{
    size_t n = strlen(b64);
    unsigned char *raw = calloc(1, n + 1);
    if (!raw || EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n) <= 0)
        abort();
    json_object *ops = json_tokener_parse((const char *)raw);
    free(raw);
    struct json_tokener *tok = json_tokener_new_ex(KARMADA_WEBHOOK_DEPTH_MAX);
    json_object *review = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    json_tokener_free(tok);
    json_object *obj = kube_json_path(review, "request", "object", NULL);
    json_object *res = NULL;
    char err[128];
    if (!ops || !obj || sim_json_patch(obj, ops, &res, err, sizeof(err)) != 0)
        abort();
    if (kube_json_bool(kube_json_path(res, "spec", "suspension", NULL), "scheduling") != 1)
        abort();
    json_object_put(res);
    json_object_put(review);
    json_object_put(ops);
}

/* Contract: called by libFuzzer with any bytes; returns 0, aborts on a broken invariant. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_object *out = NULL;
    enum karmada_webhook_verdict v;
    char err[256];
    int rc = karmada_webhook_review((const char *)data, size, &out, &v, err, sizeof(err));
    if (rc) {
        if (out || v != KARMADA_WEBHOOK_INVALID || !err[0] ||
            (rc != MUSTER_EINVAL && rc != MUSTER_ELIMIT))
            abort();
        return 0;
    }
    json_object *resp = kube_json_get(out, "response");
    json_object *uid = kube_json_get(resp, "uid"), *allowed = kube_json_get(resp, "allowed");
    json_object *patch = kube_json_get(resp, "patch");
    if (!out || v == KARMADA_WEBHOOK_INVALID || !uid || !json_object_is_type(uid, json_type_string) ||
        !allowed || !json_object_get_boolean(allowed) || (v == KARMADA_WEBHOOK_HELD) != !!patch)
        abort();
    if (patch)
        check_patch(data, size, json_object_get_string(patch));
    json_object_put(out);
    return 0;
}
