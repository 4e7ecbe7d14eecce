/* POST /admission/resourcebindings: the RB admission webhook (its verdict is
 * cluster-adapters/karmada/webhook.c), served over TLS only, and counted by verdict for the
 * metrics. With musterd --webhook-tenancy on, a review the dispatcher cannot judge yet (the RB's
 * template not seen) waits a moment on the loop and is asked again. */
#include "dispatcher/api/api_int.h"

#include "queue/errors.h"
#include "queue/mem.h"

#include <json-c/json.h>

struct review_link;

/* A review waiting for the dispatcher. It lives outside the request's pool, since its timer
 * must outlive a client that goes away; the link in the pool tells it when that happens. */
struct api_review {
    uv_timer_t timer;
    struct api_server *srv;
    h2o_req_t *req;           /* NULL once the client went */
    struct review_link *link; /* in req's pool; NULL once the pool is gone */
    uint64_t deadline;
    struct api_review *prev, *next;
};

struct review_link {
    struct api_review *r;
};

static void link_dispose(void *p)
{
    struct review_link *l = p;
    if (l->r) {
        l->r->req = NULL;
        l->r->link = NULL;
    }
}

static int refuse_now(void *ud, json_object *rb, char *why, size_t cap)
{
    struct api_server *s = ud;
    return s->app.disp.webhook_refuse(s->app.disp.ud, rb, why, cap);
}

/* At the deadline an RB the dispatcher still cannot judge is held: the controller parks it
 * with its reason if its queue refuses its namespace. */
static int refuse_final(void *ud, json_object *rb, char *why, size_t cap)
{
    int r = refuse_now(ud, rb, why, cap);
    return r < 0 ? 0 : r;
}

/* Runs the review; MUSTER_EBUSY when it must wait (nothing sent), else 0 once answered. */
static int review(struct api_server *s, h2o_req_t *req, int final)
{
    json_object *out = NULL;
    enum karmada_webhook_verdict v;
    char err[256];
    karmada_webhook_refuse_fn fn =
        s->app.disp.webhook_refuse ? (final ? refuse_final : refuse_now) : NULL;
    int rc = karmada_webhook_review_with(req->entity.base, req->entity.len, fn, s, &out, &v, err,
                                         sizeof(err));
    if (rc == MUSTER_EBUSY)
        return rc;
    s->webhook_reviews[v < KARMADA_WEBHOOK_VERDICTS ? v : KARMADA_WEBHOOK_INVALID]++;
    if (rc == MUSTER_ENOMEM)
        api__send_json(req, 500, NULL);
    else if (rc)
        api__send_fail(req, rc == MUSTER_ELIMIT ? 413 : 400,
                       rc == MUSTER_ELIMIT ? "RequestEntityTooLarge" : "BadRequest",
                       "admission review: %s", err);
    else
        api__send_json(req, 200, out);
    return 0;
}

static void review_closed(uv_handle_t *h)
{
    muster_free(h->data);
}

static void review_end(struct api_review *r)
{
    struct api_server *s = r->srv;
    if (r->prev)
        r->prev->next = r->next;
    else
        s->reviews = r->next;
    if (r->next)
        r->next->prev = r->prev;
    if (r->link) /* the request lives on (answered): its pool must not reach r */
        r->link->r = NULL;
    uv_timer_stop(&r->timer);
    uv_close((uv_handle_t *)&r->timer, review_closed);
}

static void review_tick(uv_timer_t *t)
{
    struct api_review *r = t->data;
    if (!r->req) { /* the apiserver gave up on it */
        review_end(r);
        return;
    }
    int final = uv_now(t->loop) >= r->deadline;
    if (review(r->srv, r->req, final) == MUSTER_EBUSY && !final)
        return;
    review_end(r); /* answered */
}

void api__reviews_end_all(struct api_server *s)
{
    while (s->reviews) {
        struct api_review *r = s->reviews;
        if (r->req)
            review(s, r->req, 1);
        review_end(r);
    }
}

/* The admission webhook: no token (the apiserver authenticates us by the certificate it was
 * given in caBundle, and the answer is a pure function of the request and, with
 * --webhook-tenancy on, of the dispatcher's view of queues and namespaces). Cleartext is
 * refused unless the test-only option asked for it: the apiserver calls webhooks over HTTPS
 * only, so a cleartext caller is never the apiserver. */
void api__handle_webhook(struct api_call *c)
{
    struct api_server *s = c->srv;
    if (!s->ssl_ctx && !s->webhook_insecure) {
        api__send_fail(c->req, 404, "NotFound",
                       "the admission webhook is served over TLS only: start musterd with "
                       "--tls-cert-file and --tls-private-key-file");
        return;
    }
    if (review(s, c->req, s->closing) != MUSTER_EBUSY)
        return;
    struct api_review *r = muster_calloc(1, sizeof(*r));
    struct review_link *l =
        r ? h2o_mem_alloc_shared(&c->req->pool, sizeof(*l), link_dispose) : NULL;
    if (!r || !l) {
        muster_free(r);
        review(s, c->req, 1);
        return;
    }
    l->r = r;
    r->link = l;
    r->srv = s;
    r->req = c->req;
    uv_loop_t *loop = s->ctx.loop;
    r->deadline = uv_now(loop) + API_WEBHOOK_WAIT_MS;
    uv_timer_init(loop, &r->timer);
    r->timer.data = r;
    r->next = s->reviews;
    if (s->reviews)
        s->reviews->prev = r;
    s->reviews = r;
    uv_timer_start(&r->timer, review_tick, API_WEBHOOK_POLL_MS, API_WEBHOOK_POLL_MS);
}
