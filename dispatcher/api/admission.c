/* POST /admission/resourcebindings: the RB admission webhook (its verdict is
 * cluster-adapters/karmada/webhook.c), served over TLS only, and counted by verdict for the
 * metrics. */
#include "dispatcher/api/api_int.h"

#include "queue/errors.h"

#include <json-c/json.h>

/* The admission webhook: no token (the apiserver authenticates us by the certificate it was
 * given in caBundle, and the answer is a pure function of the request). Cleartext is refused
 * unless the test-only option asked for it: the apiserver calls webhooks over HTTPS only, so a
 * cleartext caller is never the apiserver. */
void api__handle_webhook(struct api_call *c)
{
    struct api_server *s = c->srv;
    if (!s->ssl_ctx && !s->webhook_insecure) {
        api__send_fail(c->req, 404, "NotFound",
                       "the admission webhook is served over TLS only: start musterd with "
                       "--tls-cert-file and --tls-private-key-file");
        return;
    }
    json_object *out = NULL;
    enum karmada_webhook_verdict v;
    char err[256];
    int rc =
        karmada_webhook_review(c->req->entity.base, c->req->entity.len, &out, &v, err, sizeof(err));
    s->webhook_reviews[v < KARMADA_WEBHOOK_VERDICTS ? v : KARMADA_WEBHOOK_INVALID]++;
    if (rc == MUSTER_ENOMEM)
        api__send_json(c->req, 500, NULL);
    else if (rc)
        api__send_fail(c->req, rc == MUSTER_ELIMIT ? 413 : 400,
                       rc == MUSTER_ELIMIT ? "RequestEntityTooLarge" : "BadRequest",
                       "admission review: %s", err);
    else
        api__send_json(c->req, 200, out);
}
