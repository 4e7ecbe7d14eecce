/* Tests for cluster-adapters/kube/client.c against the in-process fake API server: verbs,
 * bearer token, pagination, 409, 429 Retry-After, QPS and in-flight bounds, size cap, cancel,
 * connection reuse, and a clean loop close after each. */
#include "cluster-adapters/kube/client.h"
#include "fakeapi.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <string.h>

struct t {
    uv_loop_t loop;
    struct fake_server srv;
    struct kube_config cfg;
    struct kube_client *client;
    int done, closed;
    int err[16];
    int http[16];
    char reason[16][64];
    char name[16][64];
    char message[256];
    char cont[64];
    int items;
    int pages;
    uint64_t t0, t1;
    struct fake_conn *stalled;
};

static void setup(struct t *t, fake_handler_fn h, const char *token,
                  const struct kube_client_opts *opts)
{
    memset(t, 0, sizeof(*t));
    CU_ASSERT_FATAL(uv_loop_init(&t->loop) == 0);
    CU_ASSERT_FATAL(fake_server_start(&t->srv, &t->loop, h, t) == 0);
    t->cfg.server = muster_strdup(t->srv.url);
    t->cfg.namespace = muster_strdup("default");
    if (token)
        t->cfg.token = muster_strdup(token);
    CU_ASSERT_FATAL(kube_client_new(&t->loop, &t->cfg, opts, &t->client) == 0);
}

static void on_client_closed(void *ud)
{
    struct t *t = ud;
    t->closed = 1;
}

/* Closes client and server, runs the loop dry, and checks no handle is left. */
static void teardown(struct t *t)
{
    if (t->client)
        kube_client_close(t->client, on_client_closed, t);
    fake_server_close(&t->srv);
    uv_run(&t->loop, UV_RUN_DEFAULT);
    CU_ASSERT(t->closed);
    CU_ASSERT_EQUAL(uv_loop_close(&t->loop), 0);
    kube_config_close(&t->cfg);
}

static void record(int err, const struct kube_response *resp, void *ud)
{
    struct t *t = ud;
    int i = t->done++;
    if (i >= 16)
        return;
    t->err[i] = err;
    t->http[i] = resp->http;
    snprintf(t->reason[i], sizeof(t->reason[i]), "%s", resp->status.reason);
    if (err)
        snprintf(t->message, sizeof(t->message), "%s", resp->status.message);
    struct json_object *md, *name;
    if (resp->body && json_object_object_get_ex(resp->body, "metadata", &md) &&
        json_object_object_get_ex(md, "name", &name))
        snprintf(t->name[i], sizeof(t->name[i]), "%s", json_object_get_string(name));
    uv_update_time(&t->loop);
    t->t1 = uv_now(&t->loop);
}

static void run_until(struct t *t, int n)
{
    while (t->done < n && uv_run(&t->loop, UV_RUN_ONCE))
        ;
}

/* ---- get, auth ---- */

static void h_auth(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    if (strcmp(r->auth, "Bearer s3cret-token") != 0) {
        fake_status(c, 401, "Unauthorized", "Unauthorized", NULL);
        return;
    }
    if (strcmp(r->path, "/api/v1/namespaces/default/pods/p1") == 0)
        fake_respond(c, 200, NULL, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\"}}");
    else
        fake_status(c, 404, "NotFound", "pods \\\"x\\\" not found", NULL);
}

static void test_get_with_bearer_token(void)
{
    struct t t;
    setup(&t, h_auth, "s3cret-token", NULL);
    char path[256];
    CU_ASSERT_EQUAL(kube_path(path, sizeof(path), "", "v1", "default", "pods", "p1"), 0);
    CU_ASSERT_STRING_EQUAL(path, "/api/v1/namespaces/default/pods/p1");
    struct kube_request req = {.verb = KUBE_GET, .path = path};
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    req.path = "/api/v1/namespaces/default/pods/x";
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 2);
    CU_ASSERT_EQUAL(t.err[0], 0);
    CU_ASSERT_EQUAL(t.http[0], 200);
    CU_ASSERT_STRING_EQUAL(t.name[0], "p1");
    CU_ASSERT_EQUAL(t.err[1], MUSTER_ENOENT);
    CU_ASSERT_STRING_EQUAL(t.reason[1], "NotFound");
    CU_ASSERT_STRING_EQUAL(t.message, "pods \"x\" not found");
    CU_ASSERT_STRING_EQUAL(t.srv.auth_log[0], "Bearer s3cret-token");
    /* Both requests went over one kept-alive connection. */
    struct kube_client_stats st;
    kube_client_stats(t.client, &st);
    CU_ASSERT_EQUAL(st.connections, 1);
    CU_ASSERT_EQUAL(t.srv.accepted, 1);
    teardown(&t);
}

static void test_missing_token_is_unauthorized(void)
{
    struct t t;
    setup(&t, h_auth, NULL, NULL);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces/default/pods/p1"};
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(t.err[0], MUSTER_EUNAUTHORIZED);
    CU_ASSERT_EQUAL(t.http[0], 401);
    CU_ASSERT_STRING_EQUAL(t.srv.auth_log[0], "");
    teardown(&t);
}

/* ---- pagination ---- */

static void h_pages(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    char limit[16], cont[64];
    fake_query(r, "limit", limit, sizeof(limit));
    fake_query(r, "continue", cont, sizeof(cont));
    if (strcmp(limit, "2") != 0) {
        fake_status(c, 400, "BadRequest", "limit", NULL);
    } else if (!cont[0]) {
        fake_respond(c, 200, NULL,
                     "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"50\","
                     "\"continue\":\"tok-1\"},\"items\":[{\"metadata\":{\"name\":\"a\"}},"
                     "{\"metadata\":{\"name\":\"b\"}}]}");
    } else if (strcmp(cont, "tok-1") == 0) {
        fake_respond(c, 200, NULL,
                     "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"50\","
                     "\"continue\":\"tok-2\"},\"items\":[{\"metadata\":{\"name\":\"c\"}},"
                     "{\"metadata\":{\"name\":\"d\"}}]}");
    } else {
        fake_respond(c, 200, NULL,
                     "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"50\"},"
                     "\"items\":[{\"metadata\":{\"name\":\"e\"}}]}");
    }
}

static void on_page(int err, const struct kube_response *resp, void *ud)
{
    struct t *t = ud;
    CU_ASSERT_EQUAL_FATAL(err, 0);
    t->pages++;
    struct json_object *items, *md, *cont;
    CU_ASSERT_FATAL(json_object_object_get_ex(resp->body, "items", &items));
    t->items += (int)json_object_array_length(items);
    const char *next = NULL;
    if (json_object_object_get_ex(resp->body, "metadata", &md) &&
        json_object_object_get_ex(md, "continue", &cont))
        next = json_object_get_string(cont);
    if (!next) {
        t->done = 1;
        return;
    }
    snprintf(t->cont, sizeof(t->cont), "%s", next);
    struct kube_request req = {
        .verb = KUBE_LIST, .path = "/api/v1/pods", .limit = 2, .continue_token = t->cont};
    CU_ASSERT_EQUAL(kube_request(t->client, &req, on_page, t), 0);
}

static void test_list_pagination(void)
{
    struct t t;
    setup(&t, h_pages, NULL, NULL);
    struct kube_request req = {.verb = KUBE_LIST,
                               .path = "/api/v1/pods",
                               .limit = 2,
                               .label_selector = "app=x,tier in (a b)"};
    CU_ASSERT_EQUAL(kube_request(t.client, &req, on_page, &t), 0);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(t.pages, 3);
    CU_ASSERT_EQUAL(t.items, 5);
    CU_ASSERT_STRING_EQUAL(
        t.srv.log[0], "GET /api/v1/pods?limit=2&labelSelector=app%3Dx%2Ctier%20in%20%28a%20b%29");
    CU_ASSERT_STRING_EQUAL(t.srv.log[1], "GET /api/v1/pods?limit=2&continue=tok-1");
    CU_ASSERT_STRING_EQUAL(t.srv.log[2], "GET /api/v1/pods?limit=2&continue=tok-2");
    CU_ASSERT_EQUAL(t.srv.accepted, 1);
    teardown(&t);
}

/* ---- write verbs and conflicts ---- */

static void h_write(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    if (strcmp(r->method, "PUT") == 0) {
        fake_status(c, 409, "Conflict",
                    "Operation cannot be fulfilled on resourcebindings.work.karmada.io \\\"rb\\\": "
                    "the object has been modified; please apply your changes to the latest "
                    "version and try again",
                    NULL);
    } else if (strcmp(r->method, "POST") == 0) {
        fake_status(c, 409, "AlreadyExists", "already exists", NULL);
    } else if (strcmp(r->method, "PATCH") == 0 || strcmp(r->method, "DELETE") == 0) {
        fake_respond(c, 200, NULL, "{\"metadata\":{\"name\":\"rb\"}}");
    } else {
        fake_status(c, 405, "MethodNotAllowed", "no", NULL);
    }
}

static void test_write_verbs_and_conflict(void)
{
    struct t t;
    setup(&t, h_write, NULL, NULL);
    char path[256];
    kube_path(path, sizeof(path), "work.karmada.io", "v1alpha2", "ns1", "resourcebindings", "rb");
    CU_ASSERT_STRING_EQUAL(path,
                           "/apis/work.karmada.io/v1alpha2/namespaces/ns1/resourcebindings/rb");
    const char *obj = "{\"metadata\":{\"name\":\"rb\",\"resourceVersion\":\"7\"}}";
    struct kube_request up = {.verb = KUBE_UPDATE, .path = path, .body = obj};
    struct kube_request cr = {.verb = KUBE_CREATE,
                              .path = "/apis/work.karmada.io/v1alpha2/namespaces/ns1/"
                                      "resourcebindings",
                              .body = obj};
    struct kube_request mp = {.verb = KUBE_MERGE_PATCH,
                              .path = path,
                              .body = "{\"spec\":{\"suspension\":{\"scheduling\":false}}}"};
    struct kube_request jp = {.verb = KUBE_JSON_PATCH,
                              .path = path,
                              .subresource = "status",
                              .body = "[{\"op\":\"add\",\"path\":\"/status/x\",\"value\":1}]"};
    struct kube_request del = {.verb = KUBE_DELETE, .path = path};
    struct kube_request bad = {.verb = KUBE_UPDATE, .path = path}; /* no body */
    CU_ASSERT_EQUAL(kube_request(t.client, &bad, record, &t), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(kube_request(t.client, &up, record, &t), 0);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(kube_request(t.client, &cr, record, &t), 0);
    run_until(&t, 2);
    CU_ASSERT_EQUAL(kube_request(t.client, &mp, record, &t), 0);
    run_until(&t, 3);
    CU_ASSERT_EQUAL(kube_request(t.client, &jp, record, &t), 0);
    run_until(&t, 4);
    CU_ASSERT_EQUAL(kube_request(t.client, &del, record, &t), 0);
    run_until(&t, 5);
    CU_ASSERT_EQUAL(t.err[0], MUSTER_ECONFLICT);
    CU_ASSERT_EQUAL(t.http[0], 409);
    CU_ASSERT_STRING_EQUAL(t.reason[0], "Conflict");
    CU_ASSERT_EQUAL(t.err[1], MUSTER_EEXIST);
    CU_ASSERT_EQUAL(t.err[2], 0);
    CU_ASSERT_EQUAL(t.err[3], 0);
    CU_ASSERT_EQUAL(t.err[4], 0);
    CU_ASSERT_STRING_EQUAL(t.name[4], "rb");
    CU_ASSERT_PTR_NOT_NULL(strstr(t.srv.log[0], "PUT /apis/work.karmada.io/v1alpha2/"));
    CU_ASSERT_STRING_EQUAL(t.srv.ctype_log[0], "application/json");
    CU_ASSERT_STRING_EQUAL(t.srv.ctype_log[2], "application/merge-patch+json");
    CU_ASSERT_STRING_EQUAL(t.srv.ctype_log[3], "application/json-patch+json");
    CU_ASSERT_PTR_NOT_NULL(strstr(t.srv.log[3], "PATCH /apis/work.karmada.io/v1alpha2/namespaces/"
                                                "ns1/resourcebindings/rb/status"));
    CU_ASSERT(strncmp(t.srv.log[4], "DELETE ", 7) == 0);
    teardown(&t);
}

/* ---- bodies the caller does not want, metadata-only reads ---- */

static void h_bodies(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    (void)s;
    if (strcmp(r->method, "POST") == 0)
        fake_status(c, 409, "AlreadyExists", "works \\\"w\\\" already exists", NULL);
    else
        fake_respond(c, 200, NULL, "{\"metadata\":{\"name\":\"rb\"},\"spec\":{}}");
}

static void test_discard_body_and_metadata_only(void)
{
    struct t t;
    setup(&t, h_bodies, NULL, NULL);
    const char *path = "/apis/work.karmada.io/v1alpha2/namespaces/ns1/resourcebindings/rb";
    struct kube_request mp = {.verb = KUBE_MERGE_PATCH,
                              .path = path,
                              .body = "{\"spec\":{}}",
                              .discard_body = 1};
    struct kube_request cr = {.verb = KUBE_CREATE,
                              .path = "/apis/work.karmada.io/v1alpha1/namespaces/x/works",
                              .body = "{}",
                              .discard_body = 1};
    struct kube_request get = {.verb = KUBE_GET, .path = path, .metadata_only = 1};
    struct kube_request list = {.verb = KUBE_LIST,
                                .path = "/apis/work.karmada.io/v1alpha2/resourcebindings",
                                .metadata_only = 1};
    struct kube_request plain = {.verb = KUBE_GET, .path = path};
    struct kube_request *all[] = {&mp, &cr, &get, &list, &plain};
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(kube_request(t.client, all[i], record, &t), 0);
        run_until(&t, i + 1);
    }
    /* a success whose body was not wanted: the outcome, no body */
    CU_ASSERT_EQUAL(t.err[0], 0);
    CU_ASSERT_EQUAL(t.http[0], 200);
    CU_ASSERT_STRING_EQUAL(t.name[0], "");
    /* a refusal still says why */
    CU_ASSERT_EQUAL(t.err[1], MUSTER_EEXIST);
    CU_ASSERT_STRING_EQUAL(t.reason[1], "AlreadyExists");
    /* the body is parsed when it is wanted */
    CU_ASSERT_STRING_EQUAL(t.name[2], "rb");
    CU_ASSERT_STRING_EQUAL(t.name[4], "rb");
    /* metadata-only asks as client-go's metadata client does, whole objects as a fallback */
    CU_ASSERT_STRING_EQUAL(t.srv.accept_log[2],
                           "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
                           "application/json");
    CU_ASSERT_STRING_EQUAL(t.srv.accept_log[3],
                           "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
                           "application/json");
    CU_ASSERT_STRING_EQUAL(t.srv.accept_log[4], "application/json");
    CU_ASSERT_STRING_EQUAL(t.srv.accept_log[0], "application/json"); /* writes: never */
    teardown(&t);
}

/* ---- 429 ---- */

static void h_429_once(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    if (s->requests == 1)
        fake_status(c, 429, "TooManyRequests", "slow down", "Retry-After: 1\r\n");
    else
        fake_respond(c, 200, NULL, "{\"metadata\":{\"name\":\"ok\"}}");
}

static void test_429_retry_after(void)
{
    struct t t;
    setup(&t, h_429_once, NULL, NULL);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces/a/pods/ok"};
    uv_update_time(&t.loop);
    t.t0 = uv_now(&t.loop);
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(t.err[0], 0);
    CU_ASSERT_STRING_EQUAL(t.name[0], "ok");
    CU_ASSERT_EQUAL(t.srv.requests, 2);
    CU_ASSERT(t.t1 - t.t0 >= 1000);
    struct kube_client_stats st;
    kube_client_stats(t.client, &st);
    CU_ASSERT_EQUAL(st.retried, 1);
    teardown(&t);
}

/* ---- rate and in-flight bounds ---- */

static void on_delay(uv_timer_t *tm)
{
    struct fake_conn *c = tm->data;
    fake_respond(c, 200, NULL, "{}");
    uv_close((uv_handle_t *)tm, (uv_close_cb)free);
}

static void h_slow(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    uv_timer_t *tm = malloc(sizeof(*tm));
    uv_timer_init(s->loop, tm);
    tm->data = c;
    uv_timer_start(tm, on_delay, 30, 0);
}

static void test_inflight_bound(void)
{
    struct t t;
    struct kube_client_opts o = {.qps = -1, .max_inflight = 2};
    setup(&t, h_slow, NULL, &o);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces"};
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 6);
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(t.err[i], 0);
    struct kube_client_stats st;
    kube_client_stats(t.client, &st);
    CU_ASSERT_EQUAL(st.max_inflight_seen, 2);
    CU_ASSERT(t.srv.max_outstanding <= 2);
    CU_ASSERT_EQUAL(st.completed, 6);
    teardown(&t);
}

static void h_ok(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    fake_respond(c, 200, NULL, "{\"metadata\":{\"name\":\"x\"}}");
}

static void test_qps_burst(void)
{
    struct t t;
    struct kube_client_opts o = {.qps = 20, .burst = 1};
    setup(&t, h_ok, NULL, &o);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces"};
    uv_update_time(&t.loop);
    t.t0 = uv_now(&t.loop);
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 5);
    /* One token at once, then one per 50 ms: four waits. */
    CU_ASSERT(t.t1 - t.t0 >= 190);
    CU_ASSERT(t.t1 - t.t0 < 2000);
    teardown(&t);
}

/* ---- caps, cancel, close, connect errors ---- */

static void h_big(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    char body[2048];
    memset(body, ' ', sizeof(body));
    body[0] = '{';
    body[sizeof(body) - 2] = '}';
    body[sizeof(body) - 1] = 0;
    fake_respond(c, 200, NULL, body);
}

static void test_response_cap(void)
{
    struct t t;
    struct kube_client_opts o = {.max_response = 1000};
    setup(&t, h_big, NULL, &o);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces"};
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(t.err[0], MUSTER_ELIMIT);
    teardown(&t);
}

static void h_stall(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    struct t *t = s->ud;
    t->stalled = c;
}

static void test_cancel_and_close_in_flight(void)
{
    struct t t;
    setup(&t, h_stall, NULL, NULL);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces"};
    struct kube_call *call;
    CU_ASSERT_EQUAL(kube_request_start(t.client, &req, record, &t, &call), 0);
    while (!t.stalled && uv_run(&t.loop, UV_RUN_ONCE))
        ;
    kube_call_cancel(call);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(t.err[0], MUSTER_ECANCELED);
    /* Another one left hanging: closing the client cancels it. */
    t.stalled = NULL;
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    while (!t.stalled && uv_run(&t.loop, UV_RUN_ONCE))
        ;
    kube_client_close(t.client, on_client_closed, &t);
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), MUSTER_ECANCELED);
    t.client = NULL;
    teardown(&t);
    CU_ASSERT_EQUAL(t.done, 2);
    if (t.err[1] != MUSTER_ECANCELED)
        fprintf(stderr, "err[1] = %s (%s)\n", kube_errname(t.err[1]), t.message);
    CU_ASSERT_EQUAL(t.err[1], MUSTER_ECANCELED);
}

static void test_connect_refused(void)
{
    struct t t;
    setup(&t, h_ok, NULL, NULL);
    /* Point the client at the port of a listener we close first. */
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces"};
    fake_server_close(&t.srv);
    uv_run(&t.loop, UV_RUN_NOWAIT);
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(t.err[0], MUSTER_ECONNECT);
    CU_ASSERT(t.message[0] != 0);
    teardown(&t);
}

/* ---- on_done: one report per finished request ---- */

struct reports {
    int n;
    enum kube_verb verb[8];
    int http[8];
};

static void on_done(void *ud, enum kube_verb verb, int http)
{
    struct reports *r = ud;
    if (r->n < 8) {
        r->verb[r->n] = verb;
        r->http[r->n] = http;
    }
    r->n++;
}

/* /retry answers 429 once, /stall never answers, the rest as h_write. */
static void h_reported(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    static int retried;
    if (strcmp(r->path, "/retry") == 0 && !retried++)
        fake_status(c, 429, "TooManyRequests", "slow down", "Retry-After: 1\r\n");
    else if (strcmp(r->path, "/retry") == 0)
        fake_respond(c, 200, NULL, "{}");
    else if (strcmp(r->path, "/stall") == 0)
        h_stall(s, c, r);
    else
        h_write(s, c, r);
}

static void test_on_done_reports(void)
{
    struct t t;
    struct reports rep = {0};
    struct kube_client_opts o = {.on_done = on_done, .on_done_ud = &rep};
    setup(&t, h_reported, NULL, &o);
    const char *path = "/apis/work.karmada.io/v1alpha2/namespaces/ns1/resourcebindings/rb";
    struct kube_request up = {.verb = KUBE_UPDATE, .path = path, .body = "{}"};
    struct kube_request mp = {.verb = KUBE_MERGE_PATCH, .path = path, .body = "{}"};
    struct kube_request retry = {.verb = KUBE_GET, .path = "/retry"};
    CU_ASSERT_EQUAL(kube_request(t.client, &up, record, &t), 0);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(kube_request(t.client, &mp, record, &t), 0);
    run_until(&t, 2);
    /* A 429 retried: one report, with the final status. */
    CU_ASSERT_EQUAL(kube_request(t.client, &retry, record, &t), 0);
    run_until(&t, 3);
    CU_ASSERT_EQUAL(t.err[2], 0);
    CU_ASSERT_EQUAL(t.srv.requests, 4);
    CU_ASSERT_EQUAL(rep.n, 3);
    CU_ASSERT_EQUAL(rep.verb[0], KUBE_UPDATE);
    CU_ASSERT_EQUAL(rep.http[0], 409);
    CU_ASSERT_EQUAL(rep.verb[1], KUBE_MERGE_PATCH);
    CU_ASSERT_EQUAL(rep.http[1], 200);
    CU_ASSERT_EQUAL(rep.verb[2], KUBE_GET);
    CU_ASSERT_EQUAL(rep.http[2], 200);
    CU_ASSERT_STRING_EQUAL(kube_verb_name(rep.verb[1]), "patch");
    CU_ASSERT_STRING_EQUAL(kube_verb_name(KUBE_JSON_PATCH), "patch");
    CU_ASSERT_STRING_EQUAL(kube_verb_name(KUBE_LIST), "list");
    /* A cancelled request is the caller's doing: no report. */
    struct kube_request stall = {.verb = KUBE_GET, .path = "/stall"};
    struct kube_call *call;
    CU_ASSERT_EQUAL(kube_request_start(t.client, &stall, record, &t, &call), 0);
    while (!t.stalled && uv_run(&t.loop, UV_RUN_ONCE))
        ;
    kube_call_cancel(call);
    run_until(&t, 4);
    CU_ASSERT_EQUAL(t.err[3], MUSTER_ECANCELED);
    CU_ASSERT_EQUAL(rep.n, 3);
    teardown(&t);
}

/* No response at all is reported as HTTP 0. */
static void test_on_done_no_response(void)
{
    struct t t;
    struct reports rep = {0};
    struct kube_client_opts o = {.on_done = on_done, .on_done_ud = &rep};
    setup(&t, h_ok, NULL, &o);
    fake_server_close(&t.srv);
    uv_run(&t.loop, UV_RUN_NOWAIT);
    struct kube_request req = {.verb = KUBE_LIST, .path = "/api/v1/namespaces"};
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 1);
    CU_ASSERT_EQUAL(t.err[0], MUSTER_ECONNECT);
    CU_ASSERT_EQUAL(rep.n, 1);
    CU_ASSERT_EQUAL(rep.verb[0], KUBE_LIST);
    CU_ASSERT_EQUAL(rep.http[0], 0);
    teardown(&t);
}

/* ---- TLS with a client certificate, against `openssl s_server` ---- */

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char gen_script[] =
    "set -e\n"
    "k() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out \"$1\" "
    "2>/dev/null; }\n"
    "k ca.key; openssl req -x509 -new -key ca.key -out ca.crt -subj /CN=muster-test-ca -days 2\n"
    "k other.key; openssl req -x509 -new -key other.key -out other-ca.crt -subj /CN=other "
    "-days 2\n"
    "k server.key; openssl req -new -key server.key -out server.csr -subj /CN=127.0.0.1\n"
    "printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > server.ext\n"
    "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt "
    "-days 2 -extfile server.ext 2>/dev/null\n"
    "k client.key; openssl req -new -key client.key -out client.csr "
    "-subj /CN=muster/O=system:masters\n"
    "printf 'extendedKeyUsage=clientAuth\\n' > client.ext\n"
    "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt "
    "-days 2 -extfile client.ext 2>/dev/null\n"
    "printf '{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"tls-ok\"}}' > ns.json\n";

/* Starts `openssl s_server -WWW` requiring a client certificate; returns its pid and port. */
static pid_t start_s_server(const char *dir, int *port)
{
    char out[900];
    snprintf(out, sizeof(out), "%s/s_server.out", dir);
    remove(out);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(127);
        FILE *f = freopen("s_server.out", "w", stdout);
        FILE *g = freopen("/dev/null", "w", stderr);
        (void)f;
        (void)g;
        execlp("openssl", "openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", "server.crt",
               "-key", "server.key", "-CAfile", "ca.crt", "-Verify", "1", "-WWW", (char *)NULL);
        _exit(127);
    }
    *port = 0;
    for (int i = 0; i < 250 && *port == 0; i++) {
        usleep(20000);
        FILE *f = fopen(out, "r");
        char line[256];
        while (f && fgets(line, sizeof(line), f)) {
            const char *p = strstr(line, "ACCEPT 127.0.0.1:");
            if (p)
                *port = (int)strtol(p + 17, NULL, 10);
        }
        if (f)
            fclose(f);
    }
    return pid;
}

static int tls_get(uv_loop_t *loop, const char *kubeconfig, char *name, size_t cap)
{
    struct kube_config cfg;
    char err[512];
    if (kube_config_load_file(&cfg, kubeconfig, NULL, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return -99999;
    }
    struct t t;
    memset(&t, 0, sizeof(t));
    struct kube_client *c;
    CU_ASSERT_FATAL(kube_client_new(loop, &cfg, NULL, &c) == 0);
    struct kube_request req = {.verb = KUBE_GET, .path = "/ns.json"};
    CU_ASSERT(kube_request(c, &req, record, &t) == 0);
    while (t.done < 1 && uv_run(loop, UV_RUN_ONCE))
        ;
    kube_client_close(c, on_client_closed, &t);
    uv_run(loop, UV_RUN_DEFAULT);
    CU_ASSERT(t.closed);
    kube_config_close(&cfg);
    snprintf(name, cap, "%s", t.name[0]);
    if (t.err[0])
        fprintf(stderr, "[tls: %s: %s] ", kube_errname(t.err[0]), t.message);
    return t.err[0];
}

static void write_kubeconfig(const char *path, int port, const char *ca, int with_cert)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fprintf(f,
            "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: c\n  cluster:\n"
            "    server: https://127.0.0.1:%d\n    certificate-authority: %s\nusers:\n- name: u\n"
            "  user:\n%s\ncontexts:\n- name: t\n  context:\n    cluster: c\n    user: u\n",
            port, ca,
            with_cert ? "    client-certificate: client.crt\n    client-key: client.key"
                      : "    token: not-a-cert");
    fclose(f);
}

/* Generates the CA, server and client certificates into a new scratch dir. */
static int gen_certs(char *dir, size_t cap, const char *name)
{
    char path[900], cmd[1200];
    test_tmp_path(dir, cap, name);
    mkdir(dir, 0700);
    snprintf(path, sizeof(path), "%s/gen.sh", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(gen_script, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "cd '%s' && sh gen.sh", dir);
    return system(cmd);
}

static void test_tls_client_certificate(void)
{
    char dir[512], path[900];
    CU_ASSERT_FATAL(gen_certs(dir, sizeof(dir), "tls") == 0);
    int port;
    pid_t pid = start_s_server(dir, &port);
    CU_ASSERT_FATAL(pid > 0);
    if (port == 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        CU_FAIL_FATAL("openssl s_server did not start");
    }
    uv_loop_t loop;
    uv_loop_init(&loop);
    char name[64];

    /* The server is verified against our CA and we present our client certificate. */
    snprintf(path, sizeof(path), "%s/kubeconfig-ok", dir);
    write_kubeconfig(path, port, "ca.crt", 1);
    CU_ASSERT_EQUAL(tls_get(&loop, path, name, sizeof(name)), 0);
    CU_ASSERT_STRING_EQUAL(name, "tls-ok");

    /* A server certificate from another CA is refused. */
    snprintf(path, sizeof(path), "%s/kubeconfig-other-ca", dir);
    write_kubeconfig(path, port, "other-ca.crt", 1);
    CU_ASSERT_EQUAL(tls_get(&loop, path, name, sizeof(name)), MUSTER_ETLS);

    /* Without a client certificate the server refuses us (a TLS 1.3 alert after the
     * handshake, so it surfaces as a failed read). */
    snprintf(path, sizeof(path), "%s/kubeconfig-no-cert", dir);
    write_kubeconfig(path, port, "ca.crt", 0);
    int rc = tls_get(&loop, path, name, sizeof(name));
    CU_ASSERT(rc == MUSTER_ETLS || rc == MUSTER_EIO);

    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
}

/* ---- HTTP/2 over TLS, multiplexed, against an in-process h2o server ---- */

#include <h2o.h>
#include <h2o/http2.h>
#include <openssl/ssl.h>

struct h2srv {
    h2o_globalconf_t config;
    h2o_context_t ctx;
    h2o_accept_ctx_t accept;
    uv_tcp_t listener;
    SSL_CTX *ssl;
    int port;
    int requests, h2_requests;
};

static struct h2srv *h2_current;

static int h2_on_req(h2o_handler_t *self, h2o_req_t *req)
{
    static const char body[] = "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"over-h2\"}}";
    h2_current->requests++;
    if (req->version >= 0x200)
        h2_current->h2_requests++;
    req->res.status = 200;
    req->res.reason = "OK";
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL,
                   H2O_STRLIT("application/json"));
    h2o_send_inline(req, body, sizeof(body) - 1);
    return 0;
}

static void h2_on_accept(uv_stream_t *l, int status)
{
    if (status != 0)
        return;
    uv_tcp_t *conn = h2o_mem_alloc(sizeof(*conn));
    uv_tcp_init(l->loop, conn);
    if (uv_accept(l, (uv_stream_t *)conn) != 0) {
        uv_close((uv_handle_t *)conn, (uv_close_cb)free);
        return;
    }
    h2o_accept(&h2_current->accept, h2o_uv_socket_create((uv_stream_t *)conn, (uv_close_cb)free));
}

static int h2_start(struct h2srv *s, uv_loop_t *loop, const char *dir)
{
    char crt[900], key[900];
    memset(s, 0, sizeof(*s));
    h2_current = s;
    h2o_config_init(&s->config);
    h2o_hostconf_t *host =
        h2o_config_register_host(&s->config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *pc = h2o_config_register_path(host, "/", 0);
    h2o_handler_t *h = h2o_create_handler(pc, sizeof(*h));
    h->on_req = h2_on_req;
    h2o_context_init(&s->ctx, loop, &s->config);
    s->ssl = SSL_CTX_new(TLS_server_method());
    snprintf(crt, sizeof(crt), "%s/server.crt", dir);
    snprintf(key, sizeof(key), "%s/server.key", dir);
    if (SSL_CTX_use_certificate_chain_file(s->ssl, crt) != 1 ||
        SSL_CTX_use_PrivateKey_file(s->ssl, key, SSL_FILETYPE_PEM) != 1)
        return -1;
    h2o_ssl_register_alpn_protocols(s->ssl, h2o_http2_alpn_protocols);
    s->accept.ctx = &s->ctx;
    s->accept.hosts = s->config.hosts;
    s->accept.ssl_ctx = s->ssl;
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_init(loop, &s->listener);
    if (uv_tcp_bind(&s->listener, (struct sockaddr *)&a, 0) != 0 ||
        uv_listen((uv_stream_t *)&s->listener, 16, h2_on_accept) != 0)
        return -1;
    struct sockaddr_in b;
    int len = sizeof(b);
    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&b, &len);
    s->port = ntohs(b.sin_port);
    return 0;
}

static void h2_stop(struct h2srv *s, uv_loop_t *loop)
{
    uv_close((uv_handle_t *)&s->listener, NULL);
    h2o_context_dispose(&s->ctx);
    uv_run(loop, UV_RUN_DEFAULT);
    h2o_config_dispose(&s->config);
    SSL_CTX_free(s->ssl);
}

static void test_http2_multiplexed(void)
{
    char dir[512], path[900];
    CU_ASSERT_FATAL(gen_certs(dir, sizeof(dir), "h2") == 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct h2srv srv;
    CU_ASSERT_FATAL(h2_start(&srv, &loop, dir) == 0);
    snprintf(path, sizeof(path), "%s/kubeconfig", dir);
    write_kubeconfig(path, srv.port, "ca.crt", 1);
    struct kube_config cfg;
    char err[512];
    CU_ASSERT_FATAL(kube_config_load_file(&cfg, path, NULL, err, sizeof(err)) == 0);

    struct t t;
    memset(&t, 0, sizeof(t));
    struct kube_client *c;
    CU_ASSERT_FATAL(kube_client_new(&loop, &cfg, NULL, &c) == 0);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces/over-h2"};
    for (int i = 0; i < 10; i++)
        CU_ASSERT(kube_request(c, &req, record, &t) == 0);
    while (t.done < 10 && uv_run(&loop, UV_RUN_ONCE))
        ;
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(t.err[i], 0);
        CU_ASSERT_STRING_EQUAL(t.name[i], "over-h2");
    }
    struct kube_client_stats st;
    kube_client_stats(c, &st);
    CU_ASSERT_EQUAL(st.http2, 10);
    CU_ASSERT_EQUAL(st.connections, 1); /* ten streams on one connection */
    CU_ASSERT_EQUAL(srv.h2_requests, 10);
    kube_client_close(c, on_client_closed, &t);
    while (!t.closed && uv_run(&loop, UV_RUN_ONCE))
        ;
    /* Let h2o see the connection end before its context goes. */
    for (int i = 0; i < 5; i++)
        uv_run(&loop, UV_RUN_NOWAIT);
    h2_stop(&srv, &loop);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
    kube_config_close(&cfg);
}

/* ---- the token file is re-read when it rotates ---- */

static void h_echo_auth(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    fake_respond(c, 200, NULL, "{}");
}

static void test_token_file_rotation(void)
{
    struct t t;
    setup(&t, h_echo_auth, NULL, NULL);
    char path[512];
    test_tmp_path(path, sizeof(path), "rotating-token");
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("tok-1\n", f);
    fclose(f);
    t.cfg.token_file = muster_strdup(path);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces"};
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 1);
    f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("tok-2-rotated\n", f);
    fclose(f);
    t.cfg.token_checked_ms = 0; /* as if KUBE_TOKEN_RECHECK_MS had passed */
    CU_ASSERT_EQUAL(kube_request(t.client, &req, record, &t), 0);
    run_until(&t, 2);
    CU_ASSERT_STRING_EQUAL(t.srv.auth_log[0], "Bearer tok-1");
    CU_ASSERT_STRING_EQUAL(t.srv.auth_log[1], "Bearer tok-2-rotated");
    teardown(&t);
}

static void count_ok(int err, const struct kube_response *resp, void *ud)
{
    struct t *t = ud;
    if (err == 0)
        t->items++;
    t->done++;
}

/* A thousand requests through eight slots: all answered, over few connections. */
static void test_many_requests(void)
{
    struct t t;
    struct kube_client_opts o = {.qps = -1, .max_inflight = 8};
    setup(&t, h_ok, NULL, &o);
    struct kube_request req = {.verb = KUBE_GET, .path = "/api/v1/namespaces"};
    for (int i = 0; i < 1000; i++)
        CU_ASSERT_EQUAL_FATAL(kube_request(t.client, &req, count_ok, &t), 0);
    run_until(&t, 1000);
    CU_ASSERT_EQUAL(t.items, 1000);
    struct kube_client_stats st;
    kube_client_stats(t.client, &st);
    CU_ASSERT(st.max_inflight_seen <= 8);
    CU_ASSERT(st.connections <= 8);
    /* each connection's socket is polled by one handle across its requests */
    CU_ASSERT(st.pollers >= 1);
    CU_ASSERT(st.pollers <= st.connections);
    CU_ASSERT_EQUAL(t.srv.requests, 1000);
    teardown(&t);
}

static CU_TestInfo tests[] = {
    {"get with bearer token, 404 Status, connection reuse", test_get_with_bearer_token},
    {"missing token is 401", test_missing_token_is_unauthorized},
    {"list pagination with limit and continue", test_list_pagination},
    {"create/update/patch/delete, 409 surfaced", test_write_verbs_and_conflict},
    {"bodies left unread, metadata-only reads", test_discard_body_and_metadata_only},
    {"429 honours Retry-After", test_429_retry_after},
    {"in-flight bound", test_inflight_bound},
    {"qps and burst", test_qps_burst},
    {"a thousand requests through eight slots", test_many_requests},
    {"response size cap", test_response_cap},
    {"cancel and close with requests in flight", test_cancel_and_close_in_flight},
    {"connection refused", test_connect_refused},
    {"on_done: one report per finished request, after retries, none when cancelled",
     test_on_done_reports},
    {"on_done: no response is HTTP 0", test_on_done_no_response},
    {"token file re-read when it rotates", test_token_file_rotation},
    {"TLS: CA, client certificate, wrong CA, missing certificate", test_tls_client_certificate},
    {"HTTP/2 over TLS, ten requests multiplexed on one connection", test_http2_multiplexed},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/client", tests)
