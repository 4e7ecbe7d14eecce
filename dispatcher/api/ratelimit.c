/* The per-client rate limit: a token bucket per remote address (an IPv6 client by its /64) in a
 * fixed table, the longest idle forgotten first. */
#include "dispatcher/api/api_int.h"

#include <string.h>
#include <sys/socket.h>

/* The caller's client key (reqguard.h): an IPv6 client by its /64. */
int api__peer_key(h2o_req_t *req, unsigned char key[API_RATE_KEY_LEN])
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    socklen_t sl = req->conn->callbacks->get_peername(req->conn, (struct sockaddr *)&ss);
    return sl != 0 && api_guard_client_key((struct sockaddr *)&ss, key);
}

/* Takes a token from the bucket of the caller's address: 0, or 1 when it is empty and
 * *retry_s says when the next token comes. Buckets live in a fixed table; a new address takes
 * a free slot or the longest idle one (whose bucket has refilled the longest, so forgetting
 * it loses the least). */
int api__rate_take(struct api_server *s, h2o_req_t *req, uint64_t *retry_s)
{
    unsigned char key[API_RATE_KEY_LEN];
    if (!api__peer_key(req, key))
        return 0; /* no address to key on (never for TCP) */
    uint64_t now = uv_now(s->ctx.loop);
    struct api_bucket *b = NULL, *spare = NULL;
    for (size_t i = 0; i < API_RATE_CLIENTS_MAX && !b; i++) {
        struct api_bucket *x = &s->buckets[i];
        if (x->used && memcmp(x->key, key, sizeof(key)) == 0)
            b = x;
        else if (!spare || (spare->used && (!x->used || x->at_ms < spare->at_ms)))
            spare = x;
    }
    if (!b) {
        b = spare;
        memcpy(b->key, key, sizeof(key));
        b->used = 1;
        b->tokens = s->rate_burst;
        b->at_ms = now;
    }
    b->tokens += (double)(now - b->at_ms) * s->rate_per_s / 1000.0;
    if (b->tokens > s->rate_burst)
        b->tokens = s->rate_burst;
    b->at_ms = now;
    if (b->tokens >= 1.0) {
        b->tokens -= 1.0;
        return 0;
    }
    double wait = (1.0 - b->tokens) / s->rate_per_s;
    *retry_s = (uint64_t)wait + ((double)(uint64_t)wait < wait ? 1 : 0);
    if (*retry_s < 1)
        *retry_s = 1;
    return 1;
}
