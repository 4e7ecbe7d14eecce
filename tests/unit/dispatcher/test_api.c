/* Tests for dispatcher/api/: the admin API over real HTTP (the server on a libuv loop in the
 * main thread, libcurl in a client thread that runs the test body), its authorization matrix
 * checked against the SQLite file, bad input, the OpenAPI cross-check, and the body decoder and
 * merge patch. */
#include "dispatcher/api.h"
#include "dispatcher/events.h"
#include "dispatcher/metrics.h"
#include "dispatcher/recovery.h"
#include "dispatcher/store.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/json.h"
#include "queue/mem.h"
#include "queue/tree.h"
#include "testing.h"

#include <curl/curl.h>

#include <errno.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <uv.h>

#define TOK_VIEWER "tok-viewer-0123456789"
#define TOK_OPERATOR "tok-operator-0123456789"
#define TOK_ADMIN "tok-admin-0123456789"
/* sam may change only the queues under research, as admin; sid as operator */
#define TOK_SCOPED "tok-scoped-0123456789"
#define TOK_SCOPED_OP "tok-scoped-op-0123456789"

/* ---- a server on a loop thread ---- */

/* Client-thread code must not use CU_ASSERT_FATAL (its longjmp belongs to the main thread). */
#define REQUIRE(x)                                                                                 \
    do {                                                                                           \
        int ok_ = (x) ? 1 : 0; /* evaluated once: x may open or prepare something */               \
        CU_ASSERT(ok_);                                                                            \
        if (!ok_) {                                                                                \
            fprintf(stderr, "%s:%d: required: %s\n", __FILE__, __LINE__, #x);                      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* h2o keeps per-thread caches of freed buffers: the loop runs on the main thread so those stay
 * reachable at exit instead of dying with a worker thread (LeakSanitizer would report them). */
struct srv {
    uv_loop_t loop;
    uv_thread_t thread;
    void (*body)(struct srv *s);
    uv_async_t async;
    uv_sem_t done, closed_sem;
    CURL *idle; /* a keep-alive connection left open across the close, or NULL */
    void (*fn)(struct srv *s, void *arg);
    void *arg;
    struct store *store;
    struct queue_tree *tree;
    struct api_ctx ctx;
    struct api_server *api;
    int port, closed;
    char db[512], tokens[512];
    int sse_fd; /* > 0: an event stream left open across the close (read to its end after) */
    uv_timer_t pub_timer;
};

static void on_async(uv_async_t *a)
{
    struct srv *s = a->data;
    s->fn(s, s->arg);
    uv_sem_post(&s->done);
}

/* Runs fn(s, arg) on the loop thread and waits for it: the engine is the loop's alone. */
static void on_loop(struct srv *s, void (*fn)(struct srv *, void *), void *arg)
{
    s->fn = fn;
    s->arg = arg;
    uv_async_send(&s->async);
    uv_sem_wait(&s->done);
}

static int64_t fixed_now(void)
{
    return 1700000000000;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* The feed and the cluster view the next srv_start lends the API (NULL: none, so 501). */
static struct disp_events *srv_events;
static struct json_object *(*srv_clusters)(void *ud);
static int (*srv_dialects_changed)(void *ud);
/* What the dispatch loop would say the hub lacks (NULL: nothing); a test sets it. */
static const char *degraded_text;
static const char *srv_degraded(void *ud)
{
    (void)ud;
    return degraded_text;
}

static int keep_db; /* srv_start reuses the database of the previous run of the same tag */
/* The next srv_start serves TLS with the certificates of this directory (see gen_certs) when
 * set, and verifies client certificates when tls_client_ca is set too. */
static char tls_dir[512];
static int tls_client_ca;
/* The metrics registry the next srv_start lends the API (NULL: none). */
static struct disp_metrics *next_metrics;
/* The idle timeout of the next srv_start; 0: 300 ms. */
static uint64_t next_idle_ms;
/* The rate limit of the next srv_start; 0: so high that no other test meets it. */
static uint32_t rate_per_s, rate_burst;

static void srv_start(struct srv *s, const char *tag, int with_tokens)
{
    memset(s, 0, sizeof(*s));
    char name[64];
    snprintf(name, sizeof(name), "api-%s.db", tag);
    test_tmp_path(s->db, sizeof(s->db), name);
    if (!keep_db)
        remove(s->db);
    snprintf(name, sizeof(name), "api-%s.tokens", tag);
    test_tmp_path(s->tokens, sizeof(s->tokens), name);
    /* cleo has no token: she signs in by client certificate only. */
    write_file(s->tokens, "# token,user,role\n" TOK_VIEWER ",vera,viewer\n" TOK_OPERATOR
                          ", otto , operator\n\n" TOK_ADMIN ",ada,admin\n,cleo,operator\n"
                          TOK_SCOPED ",sam,admin, research/** \n"
                          TOK_SCOPED_OP ",sid,operator,research/**\n");
    char err[256];
    /* A short busy timeout: the store-failure test holds the write lock from outside. */
    struct store_options so = {.sync = STORE_SYNC_NORMAL, .busy_timeout_ms = 100};
    CU_ASSERT_FATAL(store_open(s->db, &so, &s->store, err, sizeof(err)) == 0);
    s->tree = queue_tree_new();
    CU_ASSERT_FATAL(s->tree != NULL);
    CU_ASSERT_FATAL(disp_load(s->store, s->tree, NULL, err, sizeof(err)) == 0);
    CU_ASSERT_FATAL(uv_loop_init(&s->loop) == 0);
    CU_ASSERT_FATAL(uv_sem_init(&s->done, 0) == 0);
    CU_ASSERT_FATAL(uv_sem_init(&s->closed_sem, 0) == 0);
    CU_ASSERT_FATAL(uv_async_init(&s->loop, &s->async, on_async) == 0);
    s->async.data = s;
    s->ctx = (struct api_ctx){.store = s->store,
                              .tree = s->tree,
                              .now_ms = fixed_now,
                              .metrics = next_metrics,
                              .events = srv_events,
                              .disp = {.clusters = srv_clusters,
                                       .degraded = srv_degraded,
                                       .dialects_changed = srv_dialects_changed}};
    struct api_options opt = {.host = "127.0.0.1",
                              .port = 0,
                              .token_file = with_tokens ? s->tokens : NULL,
                              .idle_timeout_ms = next_idle_ms ? next_idle_ms : 300,
                              .rate_per_s = rate_per_s ? rate_per_s : 1000000,
                              .rate_burst = rate_burst ? rate_burst : 1000000};
    char cert[600], key[600], ca[600];
    if (tls_dir[0]) {
        snprintf(cert, sizeof(cert), "%s/server.crt", tls_dir);
        snprintf(key, sizeof(key), "%s/server.key", tls_dir);
        snprintf(ca, sizeof(ca), "%s/ca.crt", tls_dir);
        opt.tls_cert_file = cert;
        opt.tls_private_key_file = key;
        opt.client_ca_file = tls_client_ca ? ca : NULL;
    }
    int rc = api_server_start(&s->loop, &opt, &s->ctx, &s->api, err, sizeof(err));
    if (rc)
        fprintf(stderr, "api_server_start: %s\n", err);
    CU_ASSERT_FATAL(rc == 0);
    s->port = api_server_port(s->api);
    CU_ASSERT_FATAL(s->port > 0);
}

static void on_api_closed(void *ud)
{
    struct srv *s = ud;
    s->closed = 1;
    uv_sem_post(&s->closed_sem);
}

static void stop_fn(struct srv *s, void *arg)
{
    (void)arg;
    api_server_close(s->api, on_api_closed, s);
    uv_close((uv_handle_t *)&s->async, NULL);
}

static void client_main(void *arg)
{
    struct srv *s = arg;
    s->body(s);
    on_loop(s, stop_fn, NULL);
    if (s->sse_fd > 0) {
        /* The close ended the stream: the last chunk of its chunked body, then EOF. */
        char buf[4096], all[16384] = "";
        size_t have = 0;
        ssize_t n;
        while ((n = read(s->sse_fd, buf, sizeof(buf))) > 0 && have + (size_t)n < sizeof(all)) {
            memcpy(all + have, buf, (size_t)n);
            have += (size_t)n;
        }
        all[have] = '\0';
        CU_ASSERT_EQUAL(n, 0); /* EOF, not the receive timeout */
        CU_ASSERT(have >= 5 && memcmp(all + have - 5, "0\r\n\r\n", 5) == 0);
        close(s->sse_fd);
    }
    if (s->idle) {
        /* The server closed an idle keep-alive connection by its idle timeout by itself. */
        uv_sem_wait(&s->closed_sem);
        curl_easy_cleanup(s->idle);
    }
}

/* Starts a server, runs body in a client thread while the loop runs here, then checks that the
 * server closed and left no handle on the loop. */
static void run_with_server(const char *tag, int with_tokens, void (*body)(struct srv *s))
{
    struct srv *s = calloc(1, sizeof(*s));
    CU_ASSERT_FATAL(s != NULL);
    srv_start(s, tag, with_tokens);
    s->body = body;
    CU_ASSERT_FATAL(uv_thread_create(&s->thread, client_main, s) == 0);
    uv_run(&s->loop, UV_RUN_DEFAULT);
    uv_thread_join(&s->thread);
    CU_ASSERT(s->closed);
    CU_ASSERT_EQUAL(uv_loop_close(&s->loop), 0); /* no live handle left */
    uv_sem_destroy(&s->done);
    uv_sem_destroy(&s->closed_sem);
    store_close(s->store);
    queue_tree_free(s->tree);
    remove(s->tokens);
    free(s);
}

struct find_arg {
    const char *name;
    int found;
};

static void find_fn(struct srv *s, void *arg)
{
    struct find_arg *a = arg;
    a->found = queue_tree_find(s->tree, a->name) != NULL;
}

/* Whether the engine holds a queue, asked on the loop thread that owns it. */
static int engine_has(struct srv *s, const char *name)
{
    struct find_arg a = {name, 0};
    on_loop(s, find_fn, &a);
    return a.found;
}

/* ---- HTTP with libcurl ---- */

struct resp {
    long status;
    char *body;
    size_t len;
    char etag[64];
    char retry_after[32];
    int nosniff; /* X-Content-Type-Options: nosniff was sent */
    int gzip;    /* Content-Encoding: gzip was sent */
    struct json_object *json;
};

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    struct resp *r = ud;
    char *g = realloc(r->body, r->len + sz * n + 1);
    if (!g)
        return 0;
    memcpy(g + r->len, p, sz * n);
    r->len += sz * n;
    g[r->len] = '\0';
    r->body = g;
    return sz * n;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    struct resp *r = ud;
    size_t len = sz * n;
    if (len > 6 && strncasecmp(p, "ETag: ", 6) == 0) {
        size_t v = len - 6;
        while (v && (p[6 + v - 1] == '\r' || p[6 + v - 1] == '\n'))
            v--;
        snprintf(r->etag, sizeof(r->etag), "%.*s", (int)v, p + 6);
    }
    if (len > 13 && strncasecmp(p, "Retry-After: ", 13) == 0) {
        size_t v = len - 13;
        while (v && (p[13 + v - 1] == '\r' || p[13 + v - 1] == '\n'))
            v--;
        snprintf(r->retry_after, sizeof(r->retry_after), "%.*s", (int)v, p + 13);
    }
    if (len >= 31 && strncasecmp(p, "X-Content-Type-Options: nosniff", 31) == 0)
        r->nosniff = 1;
    if (len >= 22 && strncasecmp(p, "Content-Encoding: gzip", 22) == 0)
        r->gzip = 1;
    return len;
}

static void resp_free(struct resp *r)
{
    free(r->body);
    json_object_put(r->json);
    memset(r, 0, sizeof(*r));
}

/* One request on a fresh connection (closed before return, so the server can close promptly).
 * body may be NULL; len < 0 means strlen(body). hdr is one extra header or NULL. */
static long http(struct srv *s, const char *method, const char *path, const char *token,
                 const char *body, long len, const char *hdr, struct resp *r)
{
    memset(r, 0, sizeof(*r));
    CURL *c = curl_easy_init();
    REQUIRE(c != NULL);
    char url[1024], auth[256];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", s->port, path);
    struct curl_slist *h = NULL;
    if (token) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    if (body && !(hdr && strncasecmp(hdr, "Content-Type:", 13) == 0))
        h = curl_slist_append(h, strcmp(method, "PATCH") == 0
                                     ? "Content-Type: application/merge-patch+json"
                                     : "Content-Type: application/json");
    if (hdr)
        h = curl_slist_append(h, hdr);
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, len < 0 ? (long)strlen(body) : len);
    }
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK)
        fprintf(stderr, "%s %s: %s\n", method, path, curl_easy_strerror(rc));
    CU_ASSERT(rc == CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (r->body)
        r->json = json_tokener_parse(r->body);
    return r->status;
}

/* Like http() but a dropped connection is status 0 rather than a failed assertion. */
static long http_maybe(struct srv *s, const char *method, const char *path, const char *token,
                       const char *body, struct resp *r)
{
    memset(r, 0, sizeof(*r));
    CURL *c = curl_easy_init();
    REQUIRE(c != NULL);
    char url[1024], auth[256];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", s->port, path);
    snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    h = curl_slist_append(h, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return r->status;
}

/* The value at a dotted path ("metadata.name") as text, whatever its JSON type. */
static const char *jstr(struct json_object *o, const char *path)
{
    char buf[256], *save = NULL;
    const char *keys[8];
    size_t n = 0;
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *k = strtok_r(buf, ".", &save); k && n < 8; k = strtok_r(NULL, ".", &save))
        keys[n++] = k;
    struct json_object *v = kube_json_pathv(o, keys, n);
    return v ? json_object_get_string(v) : NULL;
}

/* The queues table and the audit row count, read through a second connection. */
static char *snapshot(struct srv *s)
{
    sqlite3 *db;
    REQUIRE(sqlite3_open_v2(s->db, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlite3_busy_timeout(db, 5000); /* a reader may meet a checkpoint in progress */
    sqlite3_stmt *st;
    const char *sql =
        "SELECT coalesce(group_concat(r, ';'), '') || '#' || (SELECT count(*) FROM audit) FROM"
        " (SELECT name || '|' || coalesce(parent, '') || '|' || weight || '|' || priority || '|'"
        " || state || '|' || queueing_strategy || '|' || guarantee || '|' || deserved || '|' ||"
        " capability || '|' || gang_timeout_ms || '|' || resource_version || '|' || updated_at"
        " || '|' || reclaimable || '|' || within_queue || '|' || min_runtime_ms || '|' ||"
        " preempt_per_minute || '|' || preempt_cooldown_ms AS r FROM queues ORDER BY name)";
    REQUIRE(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW)
        fprintf(stderr, "snapshot: %d %s\n", rc, sqlite3_errmsg(db));
    REQUIRE(rc == SQLITE_ROW);
    char *out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    rc = sqlite3_close(db);
    if (rc)
        fprintf(stderr, "snapshot close: %d\n", rc);
    REQUIRE(rc == SQLITE_OK);
    return out;
}

static long expect(struct srv *s, const char *method, const char *path, const char *token,
                   const char *body, const char *hdr, long want)
{
    struct resp r;
    long got = http(s, method, path, token, body, -1, hdr, &r);
    if (got != want)
        fprintf(stderr, "%s %s: want %ld, got %ld: %s\n", method, path, want, got,
                r.body ? r.body : "");
    CU_ASSERT_EQUAL(got, want);
    resp_free(&r);
    return got;
}

/* ---- tests ---- */

static void body_start_and_close(struct srv *s)
{
    expect(s, "GET", "/healthz", NULL, NULL, NULL, 200);
    expect(s, "GET", "/readyz", NULL, NULL, NULL, 200);
    expect(s, "GET", "/nope", TOK_ADMIN, NULL, NULL, 404);
    expect(s, "GET", "/api/v1/clusters", TOK_ADMIN, NULL, NULL, 501);
    expect(s, "DELETE", "/api/v1/queues", TOK_ADMIN, NULL, NULL, 405);
}

/* Hub prerequisites missing: /readyz stays 200 (the RB webhook must answer) and names them. */
static void body_readyz_degraded(struct srv *s)
{
    degraded_text = "the karmada-apiserver does not serve scheduling.volcano.sh/v1beta1 "
                    "podgroups (install Volcano's PodGroup CRD on the hub)\n";
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/readyz", NULL, NULL, 0, NULL, &r), 200);
    CU_ASSERT(r.body && strstr(r.body, "degraded"));
    CU_ASSERT(r.body && strstr(r.body, "scheduling.volcano.sh/v1beta1 podgroups"));
    resp_free(&r);
    degraded_text = NULL;
    CU_ASSERT_EQUAL(http(s, "GET", "/readyz", NULL, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(r.body, "ok\n");
    resp_free(&r);
}

static void test_readyz_degraded(void)
{
    run_with_server("degraded", 0, body_readyz_degraded);
}

static void body_noauth(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"anon\"}", NULL, 201);
}

/* Issue 23: spaces and tabs around a token are trimmed on both sides. */
static void body_token_trim(struct srv *s)
{
    expect(s, "GET", "/api/v1/queues", " " TOK_VIEWER, NULL, NULL, 200);
    expect(s, "GET", "/api/v1/queues", TOK_VIEWER " ", NULL, NULL, 200);
    expect(s, "GET", "/api/v1/queues", TOK_VIEWER "\t", NULL, NULL, 200);
    expect(s, "GET", "/api/v1/queues", "\t" TOK_VIEWER " \t ", NULL, NULL, 200);
    expect(s, "GET", "/api/v1/queues", TOK_VIEWER "x", NULL, NULL, 401);
    expect(s, "GET", "/api/v1/queues", " ", NULL, NULL, 401);
}

static void test_token_trim(void)
{
    run_with_server("trim", 1, body_token_trim);
}

static void test_start_and_close(void)
{
    run_with_server("start", 1, body_start_and_close);
    /* Without a token file: loopback only, everything allowed as system:anonymous. */
    run_with_server("noauth", 0, body_noauth);

    uv_loop_t loop;
    uv_loop_init(&loop);
    struct store *st;
    char err[256], db[512];
    test_tmp_path(db, sizeof(db), "api-refuse.db");
    remove(db);
    CU_ASSERT_FATAL(store_open(db, NULL, &st, err, sizeof(err)) == 0);
    struct queue_tree *t = queue_tree_new();
    struct api_ctx ctx = {.store = st, .tree = t};
    struct api_server *api = (struct api_server *)&ctx;
    struct api_options opt = {.host = "0.0.0.0", .port = 0};
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(api == NULL);
    CU_ASSERT(strstr(err, "token") != NULL);
    opt.host = "not-an-ip";
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_ECONFIG);
    opt.host = "127.0.0.1";
    char bad[512];
    test_tmp_path(bad, sizeof(bad), "api-bad.tokens");
    write_file(bad, "sometoken,someone,superuser\n");
    opt.token_file = bad;
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(strstr(err, ":1:") != NULL);
    CU_ASSERT(strstr(err, "sometoken") == NULL); /* never echo a token */
    /* A scope is PATH/ followed by two stars, PATH a queue path under root, or two stars alone. */
    static const char *const bad_scopes[] = {"research", "root/**", "a//b/**", "/a/**",
                                             "a/b/**,extra", "A/**", "a/**/x"};
    for (size_t i = 0; i < sizeof(bad_scopes) / sizeof(bad_scopes[0]); i++) {
        char line[128];
        snprintf(line, sizeof line, "# scopes\nsometoken,someone,admin,%s\n", bad_scopes[i]);
        write_file(bad, line);
        CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)),
                        MUSTER_ECONFIG);
        CU_ASSERT(strstr(err, ":2:") != NULL);
        CU_ASSERT(strstr(err, "sometoken") == NULL);
    }
    write_file(bad, "");
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_ECONFIG);
    remove(bad);
    opt.token_file = "/nonexistent/tokens";
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_EIO);
    /* A port in use: the failed start leaves its listener closing, gone after one run. */
    opt.token_file = NULL;
    struct api_server *first;
    CU_ASSERT_FATAL(api_server_start(&loop, &opt, &ctx, &first, err, sizeof(err)) == 0);
    opt.port = api_server_port(first);
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_EIO);
    api_server_close(first, NULL, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
    store_close(st);
    queue_tree_free(t);
}

static void body_crud_round_trip(struct srv *s)
{
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "POST", "/api/v1/queues", TOK_ADMIN,
                         "{\"name\":\"team-a\",\"parent\":\"root\",\"weight\":2,\"priority\":5,"
                         "\"state\":\"Open\",\"queueingStrategy\":\"StrictFIFO\","
                         "\"guarantee\":{\"cpu\":\"4\"},\"deserved\":{\"cpu\":\"8\","
                         "\"nvidia.com/gpu\":2},\"capability\":{\"cpu\":\"16\"},"
                         "\"gangTimeoutSeconds\":60}",
                         -1, NULL, &r),
                    201);
    CU_ASSERT_STRING_EQUAL(r.etag, "\"1\"");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "metadata.resourceVersion"), "1");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "queueingStrategy"), "StrictFIFO");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "guarantee.cpu"), "4");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "gangTimeoutSeconds"), "60");
    resp_free(&r);

    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team-a", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "parent"), "root");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.pending"), "0");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.admitted"), "0");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.reserved.cpu"), "4"); /* unused guarantee */
    CU_ASSERT(jstr(r.json, "status.allocated") != NULL);
    CU_ASSERT(jstr(r.json, "status.borrowed") != NULL);
    CU_ASSERT(jstr(r.json, "status.share") != NULL);
    resp_free(&r);

    /* Lists page by name: default, root, team-a. */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues?limit=2", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    struct json_object *items;
    REQUIRE(json_object_object_get_ex(r.json, "items", &items));
    CU_ASSERT_EQUAL(json_object_array_length(items), 2);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "metadata.continue"), "root");
    resp_free(&r);
    CU_ASSERT_EQUAL(
        http(s, "GET", "/api/v1/queues?limit=2&continue=root", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    REQUIRE(json_object_object_get_ex(r.json, "items", &items));
    CU_ASSERT_EQUAL(json_object_array_length(items), 1);
    CU_ASSERT_STRING_EQUAL(jstr(json_object_array_get_idx(items, 0), "name"), "team-a");
    CU_ASSERT(jstr(r.json, "metadata.continue") == NULL);
    resp_free(&r);
    expect(s, "GET", "/api/v1/queues?limit=0", TOK_VIEWER, NULL, NULL, 400);
    expect(s, "GET", "/api/v1/queues?limit=abc", TOK_VIEWER, NULL, NULL, 400);

    /* PUT: If-Match required, stale refused, fresh accepted. */
    const char *put = "{\"name\":\"team-a\",\"weight\":3,\"deserved\":{\"cpu\":\"8\"}}";
    char *before = snapshot(s);
    expect(s, "PUT", "/api/v1/queues/team-a", TOK_ADMIN, put, NULL, 428);
    expect(s, "PUT", "/api/v1/queues/team-a", TOK_ADMIN, put, "If-Match: \"7\"", 412);
    char *after = snapshot(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    CU_ASSERT_EQUAL(
        http(s, "PUT", "/api/v1/queues/team-a", TOK_ADMIN, put, -1, "If-Match: \"1\"", &r), 200);
    CU_ASSERT_STRING_EQUAL(r.etag, "\"2\"");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "weight"), "3");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "queueingStrategy"), "BestEffortFIFO"); /* replaced */
    CU_ASSERT(jstr(r.json, "guarantee.cpu") == NULL);
    resp_free(&r);
    expect(s, "PUT", "/api/v1/queues/team-a", TOK_ADMIN, put, "If-Match: \"1\"", 412);
    expect(s, "PUT", "/api/v1/queues/team-a", TOK_ADMIN, "{\"name\":\"team-b\",\"weight\":3}",
           "If-Match: 2", 422);
    expect(s, "PUT", "/api/v1/queues/ghost", TOK_ADMIN, put, "If-Match: 1", 404);

    /* Merge patch: touched fields change, the rest stays; null removes. */
    CU_ASSERT_EQUAL(http(s, "PATCH", "/api/v1/queues/team-a", TOK_ADMIN,
                         "{\"priority\":9,\"capability\":{\"cpu\":\"32\"},"
                         "\"deserved\":{\"memory\":\"1Gi\"}}",
                         -1, NULL, &r),
                    200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "weight"), "3");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "priority"), "9");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "deserved.cpu"), "8");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "deserved.memory"), "1Gi");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "metadata.resourceVersion"), "3");
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "PATCH", "/api/v1/queues/team-a", TOK_ADMIN,
                         "{\"capability\":null,\"deserved\":{\"memory\":null}}", -1,
                         "If-Match: \"3\"", &r),
                    200);
    CU_ASSERT(jstr(r.json, "capability.cpu") == NULL);
    CU_ASSERT(jstr(r.json, "deserved.memory") == NULL);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "deserved.cpu"), "8");
    resp_free(&r);
    expect(s, "PATCH", "/api/v1/queues/team-a", TOK_ADMIN, "{\"weight\":1}", "If-Match: \"3\"",
           412);
    expect(s, "PATCH", "/api/v1/queues/team-a", TOK_ADMIN, "{\"name\":\"x\"}", NULL, 422);

    /* Delete (a stale If-Match refused first), then it is gone from the API, the engine and
     * the table. */
    expect(s, "DELETE", "/api/v1/queues/team-a", TOK_ADMIN, NULL, "If-Match: \"3\"", 412);
    expect(s, "DELETE", "/api/v1/queues/team-a", TOK_ADMIN, NULL, "If-Match: \"4\"", 200);
    expect(s, "GET", "/api/v1/queues/team-a", TOK_ADMIN, NULL, NULL, 404);
    expect(s, "DELETE", "/api/v1/queues/team-a", TOK_ADMIN, NULL, NULL, 404);
    CU_ASSERT(!engine_has(s, "team-a"));
    char *snap = snapshot(s);
    CU_ASSERT(strstr(snap, "team-a") == NULL);
    free(snap);

    /* Every change left an audit row naming the user. */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/audit?limit=3", TOK_ADMIN, NULL, 0, NULL, &r), 200);
    REQUIRE(json_object_object_get_ex(r.json, "items", &items));
    CU_ASSERT_EQUAL(json_object_array_length(items), 3);
    struct json_object *a0 = json_object_array_get_idx(items, 0);
    CU_ASSERT_STRING_EQUAL(jstr(a0, "actor"), "ada");
    CU_ASSERT_STRING_EQUAL(jstr(a0, "action"), "queue.create");
    CU_ASSERT_STRING_EQUAL(jstr(a0, "object"), "queues/team-a");
    CU_ASSERT_STRING_EQUAL(jstr(a0, "after.weight"), "2");
    CU_ASSERT(jstr(r.json, "metadata.continue") != NULL);
    char next[128];
    snprintf(next, sizeof(next), "/api/v1/audit?continue=%s", jstr(r.json, "metadata.continue"));
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", next, TOK_ADMIN, NULL, 0, NULL, &r), 200);
    REQUIRE(json_object_object_get_ex(r.json, "items", &items));
    CU_ASSERT_EQUAL(json_object_array_length(items), 2);
    CU_ASSERT_STRING_EQUAL(jstr(json_object_array_get_idx(items, 1), "action"), "queue.delete");
    CU_ASSERT(jstr(json_object_array_get_idx(items, 1), "before.name") != NULL);
    resp_free(&r);
}

static void test_crud_round_trip(void)
{
    run_with_server("crud", 1, body_crud_round_trip);
}

static void expect_field_method(struct srv *s, const char *method, const char *path,
                                const char *body, const char *field);

static void body_restart_write(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN,
           "{\"name\":\"org\",\"capability\":{\"cpu\":\"10\",\"nvidia.com/gpu\":\"0\"},"
           "\"gangTimeoutSeconds\":42}",
           NULL, 201);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN,
           "{\"name\":\"team\",\"parent\":\"org\",\"deserved\":{\"cpu\":\"500m\"}}", NULL, 201);
    /* a listed 0 is a limit: no GPU under org (it once read as no limit at all) */
    expect_field_method(s, "PATCH", "/api/v1/queues/team",
                        "{\"capability\":{\"nvidia.com/gpu\":\"1\"}}", "capability.nvidia.com/gpu");
    expect(s, "PATCH", "/api/v1/queues/team", TOK_OPERATOR, "{\"state\":\"Draining\"}", NULL, 200);
}

static void body_restart_read(struct srv *s)
{
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "parent"), "org");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "state"), "Draining");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "deserved.cpu"), "500m"); /* as written */
    CU_ASSERT_STRING_EQUAL(r.etag, "\"2\"");
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/org", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "gangTimeoutSeconds"), "42");
    resp_free(&r);
    /* The engine was rebuilt from the store too: org's capability still binds its children. */
    expect_field_method(s, "PATCH", "/api/v1/queues/team", "{\"capability\":{\"cpu\":\"11\"}}",
                        "capability.cpu");
    expect_field_method(s, "PATCH", "/api/v1/queues/team",
                        "{\"capability\":{\"nvidia.com/gpu\":\"1\"}}", "capability.nvidia.com/gpu");
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/audit", TOK_ADMIN, NULL, 0, NULL, &r), 200);
    struct json_object *items;
    REQUIRE(json_object_object_get_ex(r.json, "items", &items));
    CU_ASSERT_EQUAL(json_object_array_length(items), 3);
    CU_ASSERT_STRING_EQUAL(jstr(json_object_array_get_idx(items, 2), "actor"), "otto");
    resp_free(&r);
}

static void test_restart_reads_the_store(void)
{
    run_with_server("restart", 1, body_restart_write);
    keep_db = 1;
    run_with_server("restart", 1, body_restart_read);
    keep_db = 0;
}

struct entry_arg {
    const char *queue;
    int rc;
};

static void add_entry_fn(struct srv *s, void *arg)
{
    struct entry_arg *a = arg;
    uint32_t cpu;
    queue_resnames_intern(queue_tree_resnames(s->tree), "cpu", 3, &cpu);
    struct queue_resvec req = {0};
    queue_resvec_set(&req, cpu, 1000);
    struct queue_entry_spec es = {42, a->queue, 0, 1, &req};
    struct queue_error qe;
    a->rc = queue_entry_add(s->tree, &es, NULL, &qe);
    queue_resvec_close(&req);
}

static void body_delete_refused(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"org\"}", NULL, 201);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"team\",\"parent\":\"org\"}", NULL,
           201);
    char *before = snapshot(s);
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "DELETE", "/api/v1/queues/org", TOK_ADMIN, NULL, 0, NULL, &r), 409);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reason"), "Conflict");
    CU_ASSERT(strstr(jstr(r.json, "message"), "child") != NULL);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "code"), "409");
    resp_free(&r);
    struct entry_arg ea = {"team", -1};
    on_loop(s, add_entry_fn, &ea);
    REQUIRE(ea.rc == 0);
    CU_ASSERT_EQUAL(http(s, "DELETE", "/api/v1/queues/team", TOK_ADMIN, NULL, 0, NULL, &r), 409);
    CU_ASSERT(strstr(jstr(r.json, "message"), "workloads") != NULL);
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team", TOK_ADMIN, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.pending"), "1");
    resp_free(&r);
    expect(s, "DELETE", "/api/v1/queues/root", TOK_ADMIN, NULL, NULL, 409);
    expect(s, "DELETE", "/api/v1/queues/default", TOK_ADMIN, NULL, NULL, 409);
    char *after = snapshot(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
}

static void test_delete_refused(void)
{
    run_with_server("delete", 1, body_delete_refused);
}

static void body_list_snapshot(struct srv *s)
{
    for (int i = 0; i < 6; i++) {
        char doc[128];
        snprintf(doc, sizeof doc, "{\"name\":\"team-%d\",\"capability\":{\"cpu\":\"8\"}}", i);
        expect(s, "POST", "/api/v1/queues", TOK_ADMIN, doc, NULL, 201);
    }
    struct resp a, b;
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0, NULL, &a), 200);
    REQUIRE(a.etag[0] && a.body);
    /* served again: the same bytes under the same tag */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0, NULL, &b), 200);
    CU_ASSERT_STRING_EQUAL(a.etag, b.etag);
    CU_ASSERT_STRING_EQUAL(a.body, b.body);
    resp_free(&b);
    /* a client that has it gets 304 and no body, for the tag, its weak form, or "*" */
    char inm[128];
    snprintf(inm, sizeof inm, "If-None-Match: \"x\", %s", a.etag);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0, inm, &b), 304);
    CU_ASSERT_EQUAL(b.len, 0);
    CU_ASSERT_STRING_EQUAL(b.etag, a.etag);
    resp_free(&b);
    snprintf(inm, sizeof inm, "If-None-Match: W/%s", a.etag);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0, inm, &b), 304);
    resp_free(&b);
    CU_ASSERT_EQUAL(
        http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0, "If-None-Match: \"other\"", &b), 200);
    resp_free(&b);
    /* another page of the same version has its own tag */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues?limit=2", TOK_VIEWER, NULL, 0, NULL, &b), 200);
    CU_ASSERT_STRING_NOT_EQUAL(b.etag, a.etag);
    CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(b.json, "items")), 2);
    resp_free(&b);
    /* gzip when asked: the same document, compressed; not when refused (q=0) */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0,
                         "Accept-Encoding: deflate, gzip;q=0.5", &b),
                    200);
    CU_ASSERT_TRUE(b.gzip);
    CU_ASSERT(b.len > 2 && (unsigned char)b.body[0] == 0x1f && (unsigned char)b.body[1] == 0x8b);
    CU_ASSERT(b.len < a.len);
    resp_free(&b);
    CU_ASSERT_EQUAL(
        http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0, "Accept-Encoding: gzip;q=0", &b),
        200);
    CU_ASSERT_FALSE(b.gzip);
    CU_ASSERT_STRING_EQUAL(b.body, a.body);
    resp_free(&b);
    /* the engine changes (a gang arrives): a new tag and the new figure at once */
    struct entry_arg ea = {"team-3", -1};
    on_loop(s, add_entry_fn, &ea);
    REQUIRE(ea.rc == 0);
    snprintf(inm, sizeof inm, "If-None-Match: %s", a.etag);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0, inm, &b), 200);
    CU_ASSERT_STRING_NOT_EQUAL(b.etag, a.etag);
    CU_ASSERT(strstr(b.body, "\"pending\":1") != NULL);
    CU_ASSERT(strstr(a.body, "\"pending\":1") == NULL);
    char e2[64];
    snprintf(e2, sizeof e2, "%s", b.etag);
    resp_free(&b);
    /* a write is visible in the next read: no stale snapshot after a 2xx */
    expect(s, "PATCH", "/api/v1/queues/team-5", TOK_ADMIN, "{\"weight\":7}", NULL, 200);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues", TOK_VIEWER, NULL, 0, NULL, &b), 200);
    CU_ASSERT_STRING_NOT_EQUAL(b.etag, e2);
    struct json_object *items = json_object_object_get(b.json, "items");
    int seen = 0;
    for (size_t i = 0; items && i < json_object_array_length(items); i++) {
        struct json_object *q = json_object_array_get_idx(items, i);
        if (strcmp(jstr(q, "name"), "team-5") == 0) {
            CU_ASSERT_STRING_EQUAL(jstr(q, "weight"), "7");
            seen = 1;
        }
    }
    CU_ASSERT_TRUE(seen);
    resp_free(&b);
    resp_free(&a);
}

static void test_list_snapshot(void)
{
    run_with_server("snapshot", 1, body_list_snapshot);
}

static void expect_field_method(struct srv *s, const char *method, const char *path,
                                const char *body, const char *field)
{
    struct resp r;
    long st = http(s, method, path, TOK_ADMIN, body, -1, NULL, &r);
    if (st != 422 || !jstr(r.json, "field") || strcmp(jstr(r.json, "field"), field) != 0)
        fprintf(stderr, "%s: want 422 field %s, got %ld %s\n", body, field, st,
                r.body ? r.body : "");
    CU_ASSERT_EQUAL(st, 422);
    CU_ASSERT(jstr(r.json, "field") && strcmp(jstr(r.json, "field"), field) == 0);
    CU_ASSERT(jstr(r.json, "message") && strlen(jstr(r.json, "message")) > 10);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reason"), "Invalid");
    resp_free(&r);
}

static void expect_field(struct srv *s, const char *body, const char *field)
{
    expect_field_method(s, "POST", "/api/v1/queues", body, field);
}

static void body_validation(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN,
           "{\"name\":\"org\",\"capability\":{\"cpu\":\"10\"}}", NULL, 201);
    char *before = snapshot(s);
    expect_field(s, "{\"name\":\"a\",\"guarantee\":{\"cpu\":\"8\"},\"deserved\":{\"cpu\":\"4\"}}",
                 "guarantee.cpu");
    expect_field(s, "{\"name\":\"a\",\"parent\":\"org\",\"capability\":{\"cpu\":\"20\"}}",
                 "capability.cpu");
    expect_field(s, "{\"name\":\"a\",\"parent\":\"nowhere\"}", "parent");
    expect_field(s, "{\"name\":\"Bad_Name\"}", "name");
    expect_field(s, "{\"weight\":2}", "name");
    expect_field(s, "{\"name\":\"a\",\"weight\":0}", "weight");
    expect_field(s, "{\"name\":\"a\",\"state\":\"Sleeping\"}", "state");
    expect_field(s, "{\"name\":\"a\",\"queueingStrategy\":\"LIFO\"}", "queueingStrategy");
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"org\"}", NULL, 409);
    char *after = snapshot(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
}

static void test_validation(void)
{
    run_with_server("valid", 1, body_validation);
}

/* ---- reclaim and preemption fields, status.lent and status.preemptions (issue 18) ---- */

static void lend_fn(struct srv *s, void *arg)
{
    queue_tree_set_lending(s->tree, *(int *)arg);
}

static void count_preemptions_fn(struct srv *s, void *arg)
{
    (void)arg;
    CU_ASSERT_EQUAL(store_preemptions_add(s->store, "team-r", 2, 5, 1), 0);
    CU_ASSERT_EQUAL(api_server_reload(s->api, s->tree), 0);
}

static void body_reclaim_fields(struct srv *s)
{
    struct resp r;
    /* defaults on a queue that never named them */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/default", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reclaimable"), "true");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.withinQueue"), "Never");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.minRuntime"), "0s");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.maxPerMinute"), "0");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.cooldown"), "0s");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.preemptions.made"), "0");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.preemptions.suffered"), "0");
    CU_ASSERT(jstr(r.json, "status.lent") != NULL);
    resp_free(&r);

    CU_ASSERT_EQUAL(http(s, "POST", "/api/v1/queues", TOK_ADMIN,
                         "{\"name\":\"team-r\",\"guarantee\":{\"cpu\":\"4\"},"
                         "\"deserved\":{\"cpu\":\"4\"},\"reclaimable\":false,"
                         "\"preemption\":{\"withinQueue\":\"LowerPriority\",\"minRuntime\":"
                         "\"600s\",\"maxPerMinute\":4,\"cooldown\":\"1.5m\"}}",
                         -1, NULL, &r),
                    201);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reclaimable"), "false");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.withinQueue"), "LowerPriority");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.minRuntime"), "10m"); /* canonical */
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.maxPerMinute"), "4");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.cooldown"), "1m30s");
    resp_free(&r);

    /* a merge patch of one preemption field keeps the others */
    CU_ASSERT_EQUAL(http(s, "PATCH", "/api/v1/queues/team-r", TOK_ADMIN,
                         "{\"preemption\":{\"cooldown\":\"2m\"}}", -1, NULL, &r),
                    200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.cooldown"), "2m");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.minRuntime"), "10m");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.withinQueue"), "LowerPriority");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "metadata.resourceVersion"), "2");
    resp_free(&r);
    /* the same values written differently change nothing: no new version, no audit row */
    char *before = snapshot(s);
    CU_ASSERT_EQUAL(http(s, "PATCH", "/api/v1/queues/team-r", TOK_ADMIN,
                         "{\"preemption\":{\"minRuntime\":\"0.05h420s\",\"cooldown\":\"120s\"}}",
                         -1, NULL, &r),
                    200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "metadata.resourceVersion"), "2");
    resp_free(&r);
    char *after = snapshot(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    /* preemption: null is every default again; reclaimable back to true */
    CU_ASSERT_EQUAL(http(s, "PATCH", "/api/v1/queues/team-r", TOK_ADMIN,
                         "{\"preemption\":null,\"reclaimable\":true}", -1, NULL, &r),
                    200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.minRuntime"), "0s");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.withinQueue"), "Never");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reclaimable"), "true");
    resp_free(&r);

    /* lent: the unused guarantee, only while the engine lends */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team-r", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT(jstr(r.json, "status.lent.cpu") == NULL);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.reserved.cpu"), "4");
    resp_free(&r);
    int on = 1;
    on_loop(s, lend_fn, &on);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team-r", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.lent.cpu"), "4");
    CU_ASSERT(jstr(r.json, "status.reserved.cpu") == NULL);
    resp_free(&r);
    /* a queue that is not reclaimable keeps its guarantee: nothing lent */
    expect(s, "PATCH", "/api/v1/queues/team-r", TOK_ADMIN, "{\"reclaimable\":false}", NULL, 200);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team-r", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT(jstr(r.json, "status.lent.cpu") == NULL);
    resp_free(&r);
    on = 0;
    on_loop(s, lend_fn, &on);

    /* the counts the store keeps, read through the API; a spec change keeps them */
    on_loop(s, count_preemptions_fn, NULL);
    expect(s, "PATCH", "/api/v1/queues/team-r", TOK_ADMIN, "{\"weight\":2}", NULL, 200);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team-r", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.preemptions.made"), "2");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.preemptions.suffered"), "5");
    resp_free(&r);

    /* refusals: the project's error shape, the field by its path, and nothing written */
    before = snapshot(s);
    expect_field(s, "{\"name\":\"b\",\"reclaimable\":\"yes\"}", "reclaimable");
    expect_field(s, "{\"name\":\"b\",\"preemption\":5}", "preemption");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"withinQueue\":\"Always\"}}",
                 "preemption.withinQueue");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"minRuntime\":\"10\"}}",
                 "preemption.minRuntime");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"minRuntime\":600}}",
                 "preemption.minRuntime");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"minRuntime\":\"-5m\"}}",
                 "preemption.minRuntime");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"minRuntime\":\"721h\"}}",
                 "preemption.minRuntime");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"cooldown\":\"1d\"}}",
                 "preemption.cooldown");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"maxPerMinute\":-1}}",
                 "preemption.maxPerMinute");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"maxPerMinute\":10001}}",
                 "preemption.maxPerMinute");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"maxPerMinute\":\"3\"}}",
                 "preemption.maxPerMinute");
    expect_field(s, "{\"name\":\"b\",\"preemption\":{\"minRunTime\":\"5m\"}}", "preemption");
    expect_field_method(s, "PATCH", "/api/v1/queues/team-r",
                        "{\"preemption\":{\"cooldown\":\"soon\"}}", "preemption.cooldown");
    CU_ASSERT_EQUAL(http(s, "POST", "/api/v1/queues", TOK_ADMIN,
                         "{\"name\":\"b\",\"preemption\":{\"minRuntime\":\"10\"}}", -1, NULL, &r),
                    422);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "code"), "422");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "message"),
                           "preemption.minRuntime: 10 is not a duration: write whole "
                           "milliseconds as numbers with units h, m, s or ms, such as \"10m\" or "
                           "\"1h30m\"");
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "POST", "/api/v1/queues", TOK_ADMIN,
                         "{\"name\":\"b\",\"preemption\":{\"maxPerMinute\":10001}}", -1, NULL, &r),
                    422);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "message"),
                           "preemption.maxPerMinute must be between 0 and 10000");
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "POST", "/api/v1/queues", TOK_ADMIN,
                         "{\"name\":\"b\",\"preemption\":{\"minRunTime\":\"5m\"}}", -1, NULL, &r),
                    422);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "message"), "unknown field preemption.minRunTime");
    resp_free(&r);
    /* an operator may still change only the state */
    expect(s, "PATCH", "/api/v1/queues/team-r", TOK_OPERATOR, "{\"reclaimable\":true}", NULL, 403);
    after = snapshot(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
}

static void body_reclaim_restart_read(struct srv *s)
{
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team-r", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reclaimable"), "false");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "weight"), "2");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.preemptions.made"), "2");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "status.preemptions.suffered"), "5");
    resp_free(&r);
    expect(s, "PATCH", "/api/v1/queues/team-r", TOK_ADMIN,
           "{\"preemption\":{\"minRuntime\":\"1h\",\"withinQueue\":\"LowerPriority\"}}", NULL, 200);
}

static void body_reclaim_restart_again(struct srv *s)
{
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/team-r", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.minRuntime"), "1h");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "preemption.withinQueue"), "LowerPriority");
    resp_free(&r);
}

/* Written, read back through a restart (the store, the engine and the mirror agree). */
static void test_reclaim_fields(void)
{
    run_with_server("reclaim", 1, body_reclaim_fields);
    keep_db = 1;
    run_with_server("reclaim", 1, body_reclaim_restart_read);
    run_with_server("reclaim", 1, body_reclaim_restart_again);
    keep_db = 0;
}

static void body_idle_connection(struct srv *s)
{
    /* A keep-alive connection that stays open: closing waits for h2o's idle timeout. */
    s->idle = curl_easy_init();
    REQUIRE(s->idle != NULL);
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", s->port);
    curl_easy_setopt(s->idle, CURLOPT_URL, url);
    curl_easy_setopt(s->idle, CURLOPT_WRITEFUNCTION, on_body);
    struct resp r = {0};
    curl_easy_setopt(s->idle, CURLOPT_WRITEDATA, &r);
    CU_ASSERT_EQUAL(curl_easy_perform(s->idle), CURLE_OK);
    long status = 0;
    curl_easy_getinfo(s->idle, CURLINFO_RESPONSE_CODE, &status);
    CU_ASSERT_EQUAL(status, 200);
    resp_free(&r);
}

static long h2_request(CURL *c, struct curl_slist *h, const char *url, const char *body)
{
    struct resp r = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    else
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    CURLcode rc = curl_easy_perform(c);
    if (rc)
        fprintf(stderr, "h2 %s: %s\n", url, curl_easy_strerror(rc));
    long status = 0, version = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(c, CURLINFO_HTTP_VERSION, &version);
    CU_ASSERT_EQUAL(version, (long)CURL_HTTP_VERSION_2_0);
    resp_free(&r);
    return rc ? 0 : status;
}

static void body_http2(struct srv *s)
{
    /* HTTP/2 without TLS (h2c with prior knowledge), as a client inside a cluster might use.
     * One handle per request: libcurl 7.88 fails to reuse a prior-knowledge connection
     * (curl/curl#10634, fixed in 7.89). */
    char get[128], post[128];
    snprintf(get, sizeof(get), "http://127.0.0.1:%d/api/v1/queues/default", s->port);
    snprintf(post, sizeof(post), "http://127.0.0.1:%d/api/v1/queues", s->port);
    struct curl_slist *h = curl_slist_append(NULL, "Authorization: Bearer " TOK_ADMIN);
    h = curl_slist_append(h, "Content-Type: application/json");
    for (int i = 0; i < 3; i++) {
        CURL *c = curl_easy_init();
        REQUIRE(c != NULL);
        long st =
            i < 2 ? h2_request(c, h, get, NULL) : h2_request(c, h, post, "{\"name\":\"over-h2\"}");
        CU_ASSERT_EQUAL(st, i < 2 ? 200 : 201);
        curl_easy_cleanup(c);
    }
    curl_slist_free_all(h);
}

static void test_http2(void)
{
    run_with_server("h2", 1, body_http2);
}

static void test_close_with_idle_connection(void)
{
    run_with_server("idle", 1, body_idle_connection);
}

static void body_store_failure(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"kept\"}", NULL, 201);
    char *before = snapshot(s);
    /* Another writer holds the database: every change fails in the store, and nothing of it
     * reaches the engine. */
    sqlite3 *db;
    REQUIRE(sqlite3_open(s->db, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
    struct resp r;
    CU_ASSERT_EQUAL(
        http(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"lost\"}", -1, NULL, &r), 500);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reason"), "StoreError");
    CU_ASSERT(strstr(jstr(r.json, "message"), "nothing changed") != NULL);
    resp_free(&r);
    expect(s, "PATCH", "/api/v1/queues/kept", TOK_ADMIN, "{\"weight\":9}", NULL, 500);
    expect(s, "DELETE", "/api/v1/queues/kept", TOK_ADMIN, NULL, NULL, 500);
    expect(s, "GET", "/api/v1/queues/lost", TOK_ADMIN, NULL, NULL, 404);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/kept", TOK_ADMIN, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "weight"), "1");
    resp_free(&r);
    CU_ASSERT(!engine_has(s, "lost"));
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    char *after = snapshot(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"lost\"}", NULL, 201);
}

static void test_store_failure_changes_nothing(void)
{
    run_with_server("storefail", 1, body_store_failure);
}

static size_t oom_op; /* which operation body_allocation_failures sweeps */

static void fail_after_fn(struct srv *s, void *arg)
{
    (void)s;
    muster_mem_fail_after(*(long *)arg);
}

static void set_fail_after(struct srv *s, long n)
{
    on_loop(s, fail_after_fn, &n);
}

/* Every allocation of a create, an update and a delete made to fail in turn: each request is
 * answered (or its connection dropped when the accept cannot allocate), the server keeps
 * serving, and the database holds either the whole change or nothing of it. */
static void body_allocation_failures(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"upd\"}", NULL, 201);
    static const struct {
        const char *method, *path, *body;
        long ok;
    } ops[] = {
        {"POST", "/api/v1/queues", "{\"name\":\"oom\",\"deserved\":{\"cpu\":\"2\"}}", 201},
        {"PATCH", "/api/v1/queues/upd", "{\"weight\":7,\"deserved\":{\"cpu\":\"3\"}}", 200},
        {"DELETE", "/api/v1/queues/oom", NULL, 200},
    };
    size_t o = oom_op;
    if (o == 2) /* the delete needs the queue the create makes */
        expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"oom\"}", NULL, 201);
    {
        int done = 0;
        for (long k = 0; k < 400 && !done; k++) {
            char *before = snapshot(s);
            set_fail_after(s, k);
            struct resp r;
            long st = http_maybe(s, ops[o].method, ops[o].path, TOK_ADMIN, ops[o].body, &r);
            set_fail_after(s, -1);
            char *after = snapshot(s);
            if (st == ops[o].ok) {
                done = 1; /* enough allocations: the change went through */
                CU_ASSERT_STRING_NOT_EQUAL(before, after);
            } else {
                if (st != 0 && st != 500)
                    fprintf(stderr, "%s %s fail_after %ld: %ld %s\n", ops[o].method, ops[o].path, k,
                            st, r.body ? r.body : "");
                CU_ASSERT(st == 0 || st == 500);
                if (strcmp(before, after) != 0) {
                    /* Saved, then the engine could not allocate: reported as not ready. */
                    fprintf(stderr, "op %zu: engine refused after commit at fail_after %ld\n", o,
                            k);
                    CU_ASSERT_EQUAL(st, 500);
                    expect(s, "GET", "/readyz", NULL, NULL, NULL, 503);
                    free(before);
                    free(after);
                    resp_free(&r);
                    return;
                }
            }
            resp_free(&r);
            free(before);
            free(after);
            expect(s, "GET", "/healthz", NULL, NULL, NULL, 200);
        }
        CU_ASSERT(done);
        fprintf(stderr, "op %zu: all failure points survived\n", o);
    }
    expect(s, "GET", "/readyz", NULL, NULL, NULL, 200);
}

static void test_allocation_failures(void)
{
    /* One server per operation: a failure after the commit leaves a server not ready. */
    for (oom_op = 0; oom_op < 3; oom_op++)
        run_with_server("oom", 1, body_allocation_failures);
}

/* ---- bindings ---- */

/* Writes the queues and ledger rows the bindings test serves, before the server loads them:
 * research/nlp is full up to 60 of its 64 GPUs, three gangs of 8 wait there, one small gang waits
 * in default where it fits, one row names a queue that is gone, and ml/p-low was tried before
 * (a rolled-back attempt in its history). */
/* A ledger row in the order of the table's first columns. */
#define LROW(b, u, q, req, prio, st, cl, why, ca, aa, ua)                                      \
    {.binding = (b), .uid = (u), .queue = (q), .request = (req), .priority = (prio),          \
     .state = (st), .clusters = (cl), .reason = (why), .created_at = (ca), .admitted_at = (aa), \
     .updated_at = (ua)}

static void seed_bindings(const char *tag)
{
    char path[512], name[64], err[256];
    snprintf(name, sizeof(name), "api-%s.db", tag);
    test_tmp_path(path, sizeof(path), name);
    remove(path);
    struct store *st = NULL;
    CU_ASSERT_FATAL(store_open(path, NULL, &st, err, sizeof(err)) == 0);
    struct store_queue q = {.name = "research",
                            .parent = "root",
                            .weight = 1,
                            .state = "Open",
                            .queueing_strategy = "BestEffortFIFO",
                            .gang_timeout_ms = 300000,
                            .resource_version = 1,
                            .created_at = 1,
                            .updated_at = 1};
    CU_ASSERT_FATAL(store_queue_put(st, &q) == 0);
    q.name = "nlp";
    q.parent = "research";
    q.capability = "{\"nvidia.com/gpu\":\"64\"}";
    CU_ASSERT_FATAL(store_queue_put(st, &q) == 0);
    static const char gpu8[] = "{\"nvidia.com/gpu\":\"8\",\"cpu\":\"4000m\"}";
    struct store_ledger_row rows[] = {
        /* id 1: the earlier attempt of ml/p-low */
        LROW("ml/p-low", "u-old", "nlp", gpu8, 0, "rolledback", "[{\"name\":\"c1\",\"replicas\":1}]",
         "gang timeout", 100, 150, 400),
        LROW("ml/train-a", "u-a", "nlp", "{\"nvidia.com/gpu\":\"40\"}", 0, "admitted",
         "[{\"name\":\"c1\",\"replicas\":5}]", "", 200, 250, 250),
        LROW("ml/p-low", "u-low", "nlp", gpu8, 0, "pending", NULL, NULL, 1000, 0, 1000),
        LROW("ml/train-b", "u-b", "nlp", "{\"nvidia.com/gpu\":\"20\"}", 0, "running",
         "[{\"name\":\"c2\",\"replicas\":2}]", "", 300, 350, 360),
        LROW("ml/p-high", "u-high", "nlp", gpu8, 5, "pending", NULL, NULL, 3000, 0, 3000),
        LROW("ml/p-old", "u-old2", "nlp", gpu8, 0, "pending", NULL, NULL, 500, 0, 500),
        LROW("team/small", "u-s", "default", "{\"cpu\":\"1\"}", 0, "pending", NULL, NULL, 700, 0,
         700),
        LROW("ml/orphan", "u-o", "gone", "{\"cpu\":\"1\"}", 0, "pending", NULL, NULL, 800, 0, 800),
        LROW("ml/done", "u-d", "nlp", gpu8, 0, "released", NULL, NULL, 50, 60, 90),
    };
    CU_ASSERT_FATAL(store_ledger_write_batch(st, rows, sizeof(rows) / sizeof(rows[0])) == 0);
    store_close(st);
}

static struct json_object *items_of(struct resp *r, size_t want)
{
    struct json_object *items = NULL;
    REQUIRE(r->json && json_object_object_get_ex(r->json, "items", &items));
    size_t n = json_object_array_length(items);
    if (n != want)
        fprintf(stderr, "want %zu items, got %zu: %s\n", want, n, r->body);
    REQUIRE(n == want);
    return items;
}

static const char *item_str(struct json_object *items, size_t i, const char *path)
{
    return jstr(json_object_array_get_idx(items, i), path);
}

static int64_t item_int(struct json_object *items, size_t i, const char *key)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(json_object_array_get_idx(items, i), key, &v))
        return -1;
    return json_object_get_int64(v);
}

#define STR_EQ(a, b)                                                                               \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || strcmp(a_, b_) != 0)                                                            \
            fprintf(stderr, "%s:%d: got %s, want %s\n", __FILE__, __LINE__, a_ ? a_ : "(null)",    \
                    b_);                                                                           \
        CU_ASSERT(a_ != NULL && strcmp(a_, b_) == 0);                                              \
    } while (0)

static void body_bindings(struct srv *s)
{
    static const char full[] = "queue research/nlp: nvidia.com/gpu 60 of 64 in use, needs 8";
    struct resp r;
    struct json_object *items;

    /* One queue: the pending gangs in the engine's order (priority, then age), with their
     * places in line and the engine's own sentence, then the admitted ones by ledger id. */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/bindings?queue=nlp", TOK_VIEWER, NULL, -1, NULL, &r),
                    200);
    items = items_of(&r, 5);
    static const char *const order[] = {"p-high", "p-old", "p-low", "train-a", "train-b"};
    for (size_t i = 0; i < 5; i++) {
        STR_EQ(item_str(items, i, "name"), order[i]);
        STR_EQ(item_str(items, i, "namespace"), "ml");
        STR_EQ(item_str(items, i, "queue"), "nlp");
        CU_ASSERT_EQUAL(item_int(items, i, "position"), i < 3 ? (int64_t)i + 1 : -1);
        if (i < 3) {
            STR_EQ(item_str(items, i, "state"), "pending");
            STR_EQ(item_str(items, i, "reason"), full);
            STR_EQ(item_str(items, i, "request.cpu"), "4"); /* canonical, stored as 4000m */
            struct json_object *req = NULL, *gpu = NULL;
            CU_ASSERT(
                json_object_object_get_ex(json_object_array_get_idx(items, i), "request", &req) &&
                json_object_object_get_ex(req, "nvidia.com/gpu", &gpu));
            STR_EQ(json_object_get_string(gpu), "8");
            CU_ASSERT_EQUAL(item_int(items, i, "admittedAtMs"), -1);
        }
    }
    STR_EQ(item_str(items, 0, "uid"), "u-high");
    CU_ASSERT_EQUAL(item_int(items, 0, "priority"), 5);
    CU_ASSERT_EQUAL(item_int(items, 0, "createdAtMs"), 3000);
    STR_EQ(item_str(items, 3, "state"), "admitted");
    CU_ASSERT_EQUAL(item_int(items, 3, "admittedAtMs"), 250);
    CU_ASSERT_PTR_NULL(item_str(items, 3, "reason"));
    struct json_object *clusters = NULL;
    CU_ASSERT(
        json_object_object_get_ex(json_object_array_get_idx(items, 4), "clusters", &clusters));
    STR_EQ(jstr(json_object_array_get_idx(clusters, 0), "name"), "c2");
    CU_ASSERT_PTR_NULL(jstr(r.json, "metadata.continue"));
    resp_free(&r);

    /* Paged in the same order: the token carries the place, so the second page goes on at 3. */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/bindings?queue=nlp&state=pending&limit=2", TOK_VIEWER,
                         NULL, -1, NULL, &r),
                    200);
    items = items_of(&r, 2);
    STR_EQ(item_str(items, 0, "name"), "p-high");
    STR_EQ(item_str(items, 1, "name"), "p-old");
    const char *tok = jstr(r.json, "metadata.continue");
    REQUIRE(tok != NULL);
    char path[512];
    snprintf(path, sizeof(path), "/api/v1/bindings?queue=nlp&state=pending&limit=2&continue=%s",
             tok);
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", path, TOK_VIEWER, NULL, -1, NULL, &r), 200);
    items = items_of(&r, 1);
    STR_EQ(item_str(items, 0, "name"), "p-low");
    CU_ASSERT_EQUAL(item_int(items, 0, "position"), 3);
    STR_EQ(item_str(items, 0, "reason"), full);
    CU_ASSERT_PTR_NULL(jstr(r.json, "metadata.continue"));
    resp_free(&r);

    /* State filter across queues. */
    CU_ASSERT_EQUAL(
        http(s, "GET", "/api/v1/bindings?state=running", TOK_VIEWER, NULL, -1, NULL, &r), 200);
    items = items_of(&r, 1);
    STR_EQ(item_str(items, 0, "name"), "train-b");
    resp_free(&r);

    /* Every queue, by ledger id, three at a time: the seven live rows, finished ones left out. */
    static const char *const byid[] = {"train-a", "p-low", "train-b", "p-high",
                                       "p-old",   "small", "orphan"};
    size_t seen = 0;
    char cont[128] = "";
    for (int page = 0; page < 4; page++) {
        snprintf(path, sizeof(path), "/api/v1/bindings?limit=3%s%s", cont[0] ? "&continue=" : "",
                 cont);
        CU_ASSERT_EQUAL(http(s, "GET", path, TOK_VIEWER, NULL, -1, NULL, &r), 200);
        items = items_of(&r, page < 2 ? 3 : 1);
        for (size_t i = 0; i < json_object_array_length(items) && seen < 7; i++, seen++)
            STR_EQ(item_str(items, i, "name"), byid[seen]);
        if (seen == 5) {
            /* In another queue, where it fits: next in line, and only the cycle to wait for. */
            CU_ASSERT_EQUAL(item_int(items, 2, "position"), 1);
            STR_EQ(item_str(items, 2, "reason"), "waiting for the next dispatch cycle");
        }
        /* Out of id order a position still comes from the engine. */
        if (seen == 3)
            CU_ASSERT_EQUAL(item_int(items, 1, "position"), 3);
        tok = jstr(r.json, "metadata.continue");
        snprintf(cont, sizeof(cont), "%s", tok ? tok : "");
        resp_free(&r);
        if (!cont[0])
            break;
    }
    CU_ASSERT_EQUAL(seen, 7);
    CU_ASSERT(cont[0] == '\0');

    /* One binding: the live row, where it stands, and every attempt oldest first. */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/bindings/ml/p-low", TOK_VIEWER, NULL, -1, NULL, &r),
                    200);
    STR_EQ(jstr(r.json, "state"), "pending");
    STR_EQ(jstr(r.json, "uid"), "u-low");
    STR_EQ(jstr(r.json, "position"), "3");
    STR_EQ(jstr(r.json, "reason"), full);
    struct json_object *hist = NULL;
    REQUIRE(json_object_object_get_ex(r.json, "history", &hist));
    REQUIRE(json_object_array_length(hist) == 2);
    STR_EQ(item_str(hist, 0, "state"), "rolledback");
    STR_EQ(item_str(hist, 0, "reason"), "gang timeout");
    CU_ASSERT_EQUAL(item_int(hist, 0, "admittedAtMs"), 150);
    CU_ASSERT_EQUAL(item_int(hist, 0, "updatedAtMs"), 400);
    struct json_object *hc = NULL;
    CU_ASSERT(json_object_object_get_ex(json_object_array_get_idx(hist, 0), "clusters", &hc));
    STR_EQ(jstr(json_object_array_get_idx(hc, 0), "name"), "c1");
    STR_EQ(item_str(hist, 1, "state"), "pending");
    CU_ASSERT_EQUAL(item_int(hist, 1, "admittedAtMs"), -1);
    resp_free(&r);

    /* A row whose queue is gone says so; a finished binding is still found, with no place. */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/bindings/ml/orphan", TOK_VIEWER, NULL, -1, NULL, &r),
                    200);
    STR_EQ(jstr(r.json, "reason"), "queue gone does not exist");
    CU_ASSERT_PTR_NULL(jstr(r.json, "position"));
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/bindings/ml/done", TOK_VIEWER, NULL, -1, NULL, &r),
                    200);
    STR_EQ(jstr(r.json, "state"), "released");
    CU_ASSERT_PTR_NULL(jstr(r.json, "position"));
    resp_free(&r);

    /* Unknown: 404 with the standard error body. */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/bindings/ml/nope", TOK_VIEWER, NULL, -1, NULL, &r),
                    404);
    STR_EQ(jstr(r.json, "code"), "404");
    STR_EQ(jstr(r.json, "reason"), "NotFound");
    STR_EQ(jstr(r.json, "message"), "binding ml/nope not found: muster has no record of it");
    resp_free(&r);
    expect(s, "GET", "/api/v1/bindings/ml", TOK_VIEWER, NULL, NULL, 404);
    expect(s, "GET", "/api/v1/bindings/ml/p-low/x", TOK_VIEWER, NULL, NULL, 404);

    /* Bad parameters: 400 that says what to send. */
    CU_ASSERT_EQUAL(
        http(s, "GET", "/api/v1/bindings?state=released", TOK_VIEWER, NULL, -1, NULL, &r), 400);
    STR_EQ(jstr(r.json, "reason"), "BadRequest");
    STR_EQ(jstr(r.json, "message"),
           "state released is not a live binding state; use pending, admitted, dispatched or "
           "running (finished attempts are in a binding's history)");
    resp_free(&r);
    expect(s, "GET", "/api/v1/bindings?limit=0", TOK_VIEWER, NULL, NULL, 400);
    expect(s, "GET", "/api/v1/bindings?limit=x", TOK_VIEWER, NULL, NULL, 400);
    expect(s, "GET", "/api/v1/bindings?continue=abc", TOK_VIEWER, NULL, NULL, 400);
    expect(s, "GET", "/api/v1/bindings?continue=7.0.0.1", TOK_VIEWER, NULL, NULL, 400);
    expect(s, "GET", "/api/v1/bindings?queue=", TOK_VIEWER, NULL, NULL, 400);
    /* limit above the maximum is clamped, as for queues. */
    expect(s, "GET", "/api/v1/bindings?limit=100000", TOK_VIEWER, NULL, NULL, 200);
    expect(s, "GET", "/api/v1/bindings?queue=nobody", TOK_VIEWER, NULL, NULL, 200);

    /* Without a token: 401, for the list and for one. */
    expect(s, "GET", "/api/v1/bindings?queue=nlp", NULL, NULL, NULL, 401);
    expect(s, "GET", "/api/v1/bindings/ml/p-low", NULL, NULL, NULL, 401);
}

static void test_bindings(void)
{
    seed_bindings("bindings");
    keep_db = 1;
    run_with_server("bindings", 1, body_bindings);
    keep_db = 0;
}

/* ---- authorization matrix ---- */

struct call {
    const char *method, *path, *body, *hdr;
    long want[4]; /* no token, viewer, operator, admin */
};

static const struct call matrix[] = {
    {"GET", "/healthz", NULL, NULL, {200, 200, 200, 200}},
    {"GET", "/readyz", NULL, NULL, {200, 200, 200, 200}},
    {"GET", "/openapi.json", NULL, NULL, {401, 200, 200, 200}},
    {"GET", "/api/v1/queues", NULL, NULL, {401, 200, 200, 200}},
    {"POST", "/api/v1/queues", "{\"name\":\"m-new\"}", NULL, {401, 403, 403, 201}},
    {"GET", "/api/v1/queues/m-a", NULL, NULL, {401, 200, 200, 200}},
    {"PUT",
     "/api/v1/queues/m-a",
     "{\"name\":\"m-a\",\"weight\":2}",
     "If-Match: *",
     {401, 403, 403, 200}},
    {"PATCH", "/api/v1/queues/m-a", "{\"state\":\"Closed\"}", NULL, {401, 403, 200, 200}},
    {"PATCH", "/api/v1/queues/m-a", "{\"weight\":5}", NULL, {401, 403, 403, 200}},
    {"PATCH",
     "/api/v1/queues/m-a",
     "{\"state\":\"Open\",\"weight\":6}",
     NULL,
     {401, 403, 403, 200}},
    {"DELETE", "/api/v1/queues/m-del", NULL, NULL, {401, 403, 403, 200}},
    {"GET", "/api/v1/audit", NULL, NULL, {401, 403, 403, 200}},
    {"GET", "/api/v1/bindings", NULL, NULL, {401, 200, 200, 200}},
    {"GET", "/api/v1/bindings?state=done", NULL, NULL, {401, 400, 400, 400}},
    {"GET", "/api/v1/bindings/ns/b", NULL, NULL, {401, 404, 404, 404}},
    {"POST", "/api/v1/bindings", "{}", NULL, {401, 405, 405, 405}},
    /* Contract routes that need the dispatcher: authenticated, then 501. */
    {"GET", "/api/v1/clusters", NULL, NULL, {401, 501, 501, 501}},
    {"GET", "/api/v1/events", NULL, NULL, {401, 501, 501, 501}},
    {"GET", "/api/v1/clusters/c1", NULL, NULL, {401, 501, 501, 501}},
    {"PATCH", "/api/v1/clusters/c1", "{\"gangDialect\":\"none\"}", NULL, {401, 403, 501, 501}},
    {"GET", "/api/v1/stats", NULL, NULL, {401, 501, 501, 501}},
    /* The dashboard's files need no token (the page asks for one before calling the API). */
    {"GET", "/", NULL, NULL, {200, 200, 200, 200}},
    {"GET", "/dashboard/index.html", NULL, NULL, {200, 200, 200, 200}},
    {"GET", "/metrics", NULL, NULL, {200, 200, 200, 200}},
    /* No token, whoever calls; over cleartext it is not served at all (the HTTPS test). */
    {"POST", "/admission/resourcebindings", "{}", NULL, {404, 404, 404, 404}},
};

static void body_authz_matrix(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"m-a\"}", NULL, 201);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"m-del\"}", NULL, 201);
    const char *tokens[4] = {NULL, TOK_VIEWER, TOK_OPERATOR, TOK_ADMIN};
    for (size_t i = 0; i < sizeof(matrix) / sizeof(matrix[0]); i++) {
        const struct call *c = &matrix[i];
        for (int t = 0; t < 4; t++) {
            char *before = snapshot(s);
            struct resp r;
            long got = http(s, c->method, c->path, tokens[t], c->body, -1, c->hdr, &r);
            if (got != c->want[t])
                fprintf(stderr, "%s %s as %d: want %ld, got %ld: %s\n", c->method, c->path, t,
                        c->want[t], got, r.body ? r.body : "");
            CU_ASSERT_EQUAL(got, c->want[t]);
            if (got == 401 || got == 403) {
                CU_ASSERT_STRING_EQUAL(jstr(r.json, "reason"),
                                       got == 401 ? "Unauthorized" : "Forbidden");
                char *after = snapshot(s);
                CU_ASSERT_STRING_EQUAL(before, after);
                free(after);
            }
            resp_free(&r);
            free(before);
        }
    }
    /* Unknown and malformed credentials are 401 too, and change nothing. */
    char *before = snapshot(s);
    expect(s, "POST", "/api/v1/queues", "not-a-token", "{\"name\":\"x\"}", NULL, 401);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN "x", "{\"name\":\"x\"}", NULL, 401);
    expect(s, "DELETE", "/api/v1/queues/m-a", NULL, NULL, "Authorization: Basic YTpi", 401);
    expect(s, "DELETE", "/api/v1/queues/m-a", NULL, NULL, "Authorization: Bearer", 401);
    char *after = snapshot(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);

    /* Every route the server serves is in the matrix. */
    size_t n;
    const struct api_route_info *rt = api_routes(&n);
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        for (size_t k = 0; k < sizeof(matrix) / sizeof(matrix[0]); k++) {
            const char *p = matrix[k].path;
            const char *tb = strchr(rt[i].path, '{');
            size_t pre = tb ? (size_t)(tb - rt[i].path) : strlen(rt[i].path);
            /* A template with n {...} segments matches a path with n - 1 slashes after them. */
            size_t braces = 0, slashes = 0;
            for (const char *t = rt[i].path; *t; t++)
                braces += *t == '{';
            for (const char *t = p + (strlen(p) > pre ? pre : strlen(p)); *t; t++)
                slashes += *t == '/';
            if (strcmp(matrix[k].method, rt[i].method) == 0 && strncmp(p, rt[i].path, pre) == 0 &&
                (tb ? strlen(p) > pre && slashes + 1 == braces : strlen(p) == pre))
                found = 1;
        }
        if (!found)
            fprintf(stderr, "route %s %s is not in the matrix\n", rt[i].method, rt[i].path);
        CU_ASSERT(found);
    }
}

static void test_authz_matrix(void)
{
    run_with_server("authz", 1, body_authz_matrix);
}

/* A token scoped to the queues under research changes only those: every write route, inside,
 * outside and at an ancestor, as admin and as operator. Refused changes change nothing;
 * reads are not scoped. */
static void body_scope_matrix(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"research\"}", NULL, 201);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"nlp\",\"parent\":\"research\"}",
           NULL, 201);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"gone\",\"parent\":\"research\"}",
           NULL, 201);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"other\"}", NULL, 201);
    /* research2 is not under research, though its name begins the same */
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"research2\"}", NULL, 201);
    static const struct {
        const char *method, *path, *body, *hdr;
        long admin, op; /* sam (admin) and sid (operator), both scoped to research */
    } cases[] = {
        /* inside */
        {"POST", "/api/v1/queues", "{\"name\":\"cv\",\"parent\":\"research\"}", NULL, 201, 403},
        {"PATCH", "/api/v1/queues/nlp", "{\"weight\":3}", NULL, 200, 403},
        {"PATCH", "/api/v1/queues/nlp", "{\"state\":\"Draining\"}", NULL, 200, 200},
        {"PUT", "/api/v1/queues/nlp", "{\"name\":\"nlp\",\"parent\":\"research\"}",
         "If-Match: *", 200, 403},
        {"DELETE", "/api/v1/queues/gone", NULL, NULL, 200, 403},
        /* outside: another subtree, a look-alike name, a move out, a move in */
        {"POST", "/api/v1/queues", "{\"name\":\"x\",\"parent\":\"other\"}", NULL, 403, 403},
        {"POST", "/api/v1/queues", "{\"name\":\"z\",\"parent\":\"research2\"}", NULL, 403, 403},
        {"PATCH", "/api/v1/queues/other", "{\"state\":\"Closed\"}", NULL, 403, 403},
        {"PATCH", "/api/v1/queues/nlp", "{\"parent\":\"other\"}", NULL, 403, 403},
        {"PATCH", "/api/v1/queues/other", "{\"parent\":\"research\"}", NULL, 403, 403},
        {"PUT", "/api/v1/queues/other", "{\"name\":\"other\"}", "If-Match: *", 403, 403},
        {"DELETE", "/api/v1/queues/research2", NULL, NULL, 403, 403},
        /* an ancestor: the scope's root itself, and root */
        {"POST", "/api/v1/queues", "{\"name\":\"top\"}", NULL, 403, 403},
        {"PATCH", "/api/v1/queues/research", "{\"weight\":2}", NULL, 403, 403},
        {"PATCH", "/api/v1/queues/research", "{\"state\":\"Closed\"}", NULL, 403, 403},
        {"DELETE", "/api/v1/queues/research", NULL, NULL, 403, 403},
        /* reads are not scoped */
        {"GET", "/api/v1/queues/other", NULL, NULL, 200, 200},
        {"GET", "/api/v1/queues", NULL, NULL, 200, 200},
    };
    const char *toks[2] = {TOK_SCOPED_OP, TOK_SCOPED}; /* the operator first: admin changes */
    for (int t = 0; t < 2; t++) {
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            long want = t ? cases[i].admin : cases[i].op;
            char *before = snapshot(s);
            struct resp r;
            long got = http(s, cases[i].method, cases[i].path, toks[t], cases[i].body, -1,
                            cases[i].hdr, &r);
            if (got != want)
                fprintf(stderr, "%s %s %s as %s: want %ld, got %ld: %s\n", cases[i].method,
                        cases[i].path, cases[i].body ? cases[i].body : "", t ? "sam" : "sid", want,
                        got, r.body ? r.body : "");
            CU_ASSERT_EQUAL(got, want);
            if (got == 403) {
                char *after = snapshot(s);
                CU_ASSERT_STRING_EQUAL(before, after);
                free(after);
                CU_ASSERT_STRING_EQUAL(jstr(r.json, "reason"), "Forbidden");
            }
            resp_free(&r);
            free(before);
        }
    }
    /* the audit log names who changed a queue, per queue */
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/audit?queue=nlp", TOK_ADMIN, NULL, 0, NULL, &r), 200);
    struct json_object *items = json_object_object_get(r.json, "items");
    size_t n = items ? json_object_array_length(items) : 0;
    int by_sam = 0, by_sid = 0;
    CU_ASSERT(n >= 3); /* created by ada, patched by sid and sam, replaced by sam */
    for (size_t i = 0; i < n; i++) {
        struct json_object *row = json_object_array_get_idx(items, i);
        CU_ASSERT_STRING_EQUAL(jstr(row, "object"), "queues/nlp");
        by_sam |= strcmp(jstr(row, "actor"), "sam") == 0;
        by_sid |= strcmp(jstr(row, "actor"), "sid") == 0;
    }
    CU_ASSERT(by_sam && by_sid);
    resp_free(&r);
    expect(s, "GET", "/api/v1/audit?queue=Not%20A%20Name", TOK_ADMIN, NULL, NULL, 400);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/audit?queue=nosuch", TOK_ADMIN, NULL, 0, NULL, &r),
                    200);
    CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(r.json, "items")), 0);
    resp_free(&r);
}

static void test_scope_matrix(void)
{
    run_with_server("scope", 1, body_scope_matrix);
}

/* ---- bad input ---- */

static void body_bad_input(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"q\"}", NULL, 201);
    char *before = snapshot(s);
    static const struct {
        const char *body;
        long want;
        const char *field;
    } cases[] = {
        {"{\"name\":", 400, NULL},
        {"{\"name\":\"a\"} trailing", 400, NULL},
        {"{'name':'a'}", 400, NULL},
        {"[1,2]", 400, NULL},
        {"\"name\"", 400, NULL},
        {"{\"name\":\"a\",\"weight\":\"3\"}", 422, "weight"},
        {"{\"name\":\"a\",\"weight\":1.5}", 422, "weight"},
        {"{\"name\":7}", 422, "name"},
        {"{\"name\":\"a\",\"guarantee\":[1]}", 422, "guarantee"},
        {"{\"name\":\"a\",\"state\":true}", 422, "state"},
        {"{\"name\":\"a\",\"colour\":\"blue\"}", 422, "colour"},
        {"{\"name\":\"a\",\"deserved\":{\"cpu\":\"-4\"}}", 422, NULL},
        {"{\"name\":\"a\",\"deserved\":{\"cpu\":-4}}", 422, NULL},
        {"{\"name\":\"a\",\"deserved\":{\"cpu\":\"99999999999999999999\"}}", 422, NULL},
        {"{\"name\":\"a\",\"deserved\":{\"cpu\":99999999999999999999}}", 422, NULL},
        {"{\"name\":\"a\",\"deserved\":{\"cpu\":\"4 cores\"}}", 422, NULL},
        {"{\"name\":\"a\",\"deserved\":{\"bad name!\":\"4\"}}", 422, NULL},
        {"{\"name\":\"a\",\"priority\":99999999999}", 422, "priority"},
        {"{\"name\":\"a\",\"weight\":99999999999999999999999}", 422, "weight"},
        {"{\"name\":\"a\",\"gangTimeoutSeconds\":0}", 422, "gangTimeoutSeconds"},
        {"{\"name\":\"a\\u0000b\"}", 400, NULL},
        /* issue 23: duplicate keys, non-finite numbers, names that match nothing */
        {"{\"name\":\"dup-a\",\"name\":\"dup-b\"}", 400, NULL},
        {"{\"name\":\"dup\",\"deserved\":{\"cpu\":\"1\",\"cpu\":\"2\"}}", 400, NULL},
        {"{\"name\":\"dup\",\"deserved\":{\"cpu\":\"1\",\"c\\u0070u\":\"2\"}}", 400, NULL},
        {"{\"name\":\"inf\",\"weight\":-Infinity}", 400, NULL},
        {"{\"name\":\"inf\",\"weight\":1e999}", 400, NULL},
        {"{\"name\":\"a\",\"deserved\":{\"CPU\":\"1\"}}", 422, "deserved.CPU"},
        {"{\"name\":\"a\",\"deserved\":{\"foo\":\"1\"}}", 422, "deserved.foo"},
        {"{\"name\":\"a..b\"}", 422, "name"},
        {"{\"name\":\"a.-b\"}", 422, "name"},
        {"{\"name\":\"a-.b\"}", 422, "name"},
        {"{\"name\":\"a\",\"deserved\":{\"cpu\\u0000x\":\"1\"}}", 400, NULL},
        {"{\"name\":\"a\",\"status\":{\"x\":{\"y\":{\"z\":{\"w\":{\"v\":{\"u\":{\"t\":1}}}}}}}}",
         413, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct resp r;
        long got = http(s, "POST", "/api/v1/queues", TOK_ADMIN, cases[i].body, -1, NULL, &r);
        if (got != cases[i].want)
            fprintf(stderr, "%s: want %ld, got %ld: %s\n", cases[i].body, cases[i].want, got,
                    r.body ? r.body : "");
        CU_ASSERT_EQUAL(got, cases[i].want);
        CU_ASSERT(r.json != NULL); /* always a JSON error */
        CU_ASSERT(jstr(r.json, "message") != NULL);
        if (cases[i].field)
            CU_ASSERT(jstr(r.json, "field") && strcmp(jstr(r.json, "field"), cases[i].field) == 0);
        resp_free(&r);
    }
    /* Invalid UTF-8 (an overlong '/', a lone continuation byte, a surrogate). */
    static const char *const utf8[] = {"{\"name\":\"\xc0\xaf\"}", "{\"name\":\"a\x80\"}",
                                       "{\"name\":\"\xed\xa0\x80\"}"};
    for (size_t i = 0; i < 3; i++) {
        struct resp r;
        CU_ASSERT_EQUAL(http(s, "POST", "/api/v1/queues", TOK_ADMIN, utf8[i], -1, NULL, &r), 400);
        CU_ASSERT(strstr(jstr(r.json, "message"), "UTF-8") != NULL);
        resp_free(&r);
    }
    /* Bodies above the cap: ours (JSON 413) and far above it (h2o's 413). */
    size_t big = API_BODY_MAX + 100;
    char *huge = malloc(4 * API_BODY_MAX);
    memset(huge, ' ', 4 * API_BODY_MAX);
    memcpy(huge, "{\"name\":\"a\"}", 12);
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "POST", "/api/v1/queues", TOK_ADMIN, huge, (long)big, NULL, &r), 413);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reason"), "RequestEntityTooLarge");
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "POST", "/api/v1/queues", TOK_ADMIN, huge, 4 * API_BODY_MAX, NULL, &r),
                    413);
    resp_free(&r);
    free(huge);
    /* Deep nesting far past the cap. */
    char deep[4096];
    size_t k = 0;
    k += (size_t)snprintf(deep, sizeof(deep), "{\"name\":\"a\",\"status\":");
    for (int i = 0; i < 1000; i++)
        deep[k++] = '[';
    deep[k] = '\0';
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, deep, NULL, 413);
    /* Bad patches. */
    expect(s, "PATCH", "/api/v1/queues/q", TOK_ADMIN, "{\"weight\":\"x\"}", NULL, 422);
    expect(s, "PATCH", "/api/v1/queues/q", TOK_ADMIN, "{\"unknown\":1}", NULL, 422);
    expect(s, "PATCH", "/api/v1/queues/q", TOK_ADMIN, "not json", NULL, 400);
    expect(s, "PATCH", "/api/v1/queues/q", TOK_ADMIN, "{}", "Content-Type: text/plain", 415);
    /* A patch that changes nothing writes nothing (no new resourceVersion, no audit row). */
    expect(s, "PATCH", "/api/v1/queues/q", TOK_ADMIN, "{\"weight\":1}", NULL, 200);
    expect(s, "PUT", "/api/v1/queues/q", TOK_ADMIN, "{\"name\":\"q\"}", "If-Match: 1", 200);
    char *after = snapshot(s);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    /* Headers above our cap (JSON 431) and far above h2o's buffer (h2o refuses): never a
     * crash, and the server keeps serving. */
    char *hdr = malloc(600 * 1024);
    REQUIRE(hdr != NULL);
    memcpy(hdr, "X-Big: ", 7);
    memset(hdr + 7, 'a', 600 * 1024 - 8);
    hdr[API_HEADERS_MAX + 10] = '\0';
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues", TOK_ADMIN, NULL, 0, hdr, &r), 431);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reason"), "RequestHeaderFieldsTooLarge");
    resp_free(&r);
    hdr[API_HEADERS_MAX + 10] = 'a';
    hdr[600 * 1024 - 1] = '\0';
    CURL *c = curl_easy_init();
    struct curl_slist *hl = curl_slist_append(NULL, hdr);
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", s->port);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    memset(&r, 0, sizeof(r));
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    CURLcode crc = curl_easy_perform(c);
    long st = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &st);
    CU_ASSERT(crc != CURLE_OK || st >= 400); /* a 4xx, or the connection cut */
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    resp_free(&r);
    free(hdr);
    char *tok = malloc(2048);
    REQUIRE(tok != NULL);
    memset(tok, 'k', 2047);
    tok[2047] = '\0';
    expect(s, "GET", "/api/v1/queues", tok, NULL, NULL, 401); /* above API_TOKEN_MAX */
    free(tok);
    /* Still serving. */
    expect(s, "GET", "/healthz", NULL, NULL, NULL, 200);
    expect(s, "GET", "/api/v1/queues/q", TOK_VIEWER, NULL, NULL, 200);
}

static void test_bad_input(void)
{
    run_with_server("bad", 1, body_bad_input);
}

/* ---- TLS ---- */

/* A CA, a server certificate for 127.0.0.1, client certificates for ada (token and admin in
 * the token file), cleo (certificate-only operator) and mallory (not in the file), and cleo
 * again from another CA. */
static const char gen_script[] =
    "set -e\n"
    "k() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out \"$1\" "
    "2>/dev/null; }\n"
    "k ca.key; openssl req -x509 -new -key ca.key -out ca.crt -subj /CN=muster-api-test-ca "
    "-days 2\n"
    "k other-ca.key; openssl req -x509 -new -key other-ca.key -out other-ca.crt -subj /CN=other "
    "-days 2\n"
    "k server.key; openssl req -new -key server.key -out server.csr -subj /CN=127.0.0.1\n"
    "printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > server.ext\n"
    "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt "
    "-days 2 -extfile server.ext 2>/dev/null\n"
    "printf 'extendedKeyUsage=clientAuth\\n' > client.ext\n"
    "c() { k $1.key; openssl req -new -key $1.key -out $1.csr -subj /CN=$2/O=muster; "
    "openssl x509 -req -in $1.csr -CA $3.crt -CAkey $3.key -CAcreateserial -out $1.crt -days 2 "
    "-extfile client.ext 2>/dev/null; }\n"
    "c ada ada ca; c cleo cleo ca; c mallory mallory ca; c stranger cleo other-ca\n";

static int gen_certs(char *dir, size_t cap)
{
    char path[700], cmd[800];
    test_tmp_path(dir, cap, "api-tls");
    mkdir(dir, 0700);
    snprintf(path, sizeof(path), "%s/gen.sh", dir);
    write_file(path, gen_script);
    snprintf(cmd, sizeof(cmd), "cd '%s' && sh gen.sh", dir);
    return system(cmd);
}

/* One request over TLS (or plain HTTP when scheme is "http") with a fresh handle. cert names
 * a client certificate of tls_dir ("ada") or is NULL; ver is the CURL_HTTP_VERSION_* to ask for.
 * Returns curl's code; *status and *got_ver are filled when the request went through. */
static CURLcode tls_http(struct srv *s, const char *scheme, const char *method, const char *path,
                         const char *cert, const char *token, const char *body, long ver,
                         long *status, long *got_ver, struct resp *r)
{
    memset(r, 0, sizeof(*r));
    *status = 0;
    *got_ver = 0;
    CURL *c = curl_easy_init();
    REQUIRE(c != NULL);
    char url[1024], auth[256], ca[700], crt[700], key[700];
    snprintf(url, sizeof(url), "%s://127.0.0.1:%d%s", scheme, s->port, path);
    snprintf(ca, sizeof(ca), "%s/ca.crt", tls_dir);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    if (token) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_CAINFO, ca);
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, ver);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    if (cert) {
        snprintf(crt, sizeof(crt), "%s/%s.crt", tls_dir, cert);
        snprintf(key, sizeof(key), "%s/%s.key", tls_dir, cert);
        curl_easy_setopt(c, CURLOPT_SSLCERT, crt);
        curl_easy_setopt(c, CURLOPT_SSLKEY, key);
    }
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
        curl_easy_getinfo(c, CURLINFO_HTTP_VERSION, got_ver);
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (r->body)
        r->json = json_tokener_parse(r->body);
    return rc;
}

/* The admission webhook over HTTPS, as the apiserver calls it: no token, HTTP/2 by ALPN. */
static void webhook_over_tls(struct srv *s)
{
    char path[1024];
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(path, sizeof(path), "%s/tests/fixtures/webhook/create-job-suspended.json",
             src ? src : ".");
    struct json_object *review = json_object_from_file(path);
    REQUIRE(review != NULL);
    struct resp r;
    long st, ver;
    CU_ASSERT_EQUAL(tls_http(s, "https", "POST", "/admission/resourcebindings", NULL, NULL,
                             json_object_to_json_string(review), (long)CURL_HTTP_VERSION_2TLS,
                             &st, &ver, &r),
                    CURLE_OK);
    CU_ASSERT_EQUAL(st, 200);
    CU_ASSERT_EQUAL(ver, (long)CURL_HTTP_VERSION_2_0);
    struct json_object *resp = NULL, *req = NULL;
    REQUIRE(r.json && json_object_object_get_ex(r.json, "response", &resp));
    REQUIRE(json_object_object_get_ex(review, "request", &req));
    CU_ASSERT_STRING_EQUAL(jstr(resp, "uid"), jstr(req, "uid"));
    CU_ASSERT_STRING_EQUAL(jstr(resp, "patchType"), "JSONPatch");
    /* base64 of [{"op":"add","path":"/spec/suspension/scheduling","value":true}] */
    CU_ASSERT_STRING_EQUAL(jstr(resp, "patch"),
                           "W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvc3VzcGVuc2lvbi9zY2hlZHVsaW5nIiwi"
                           "dmFsdWUiOnRydWV9XQ==");
    resp_free(&r);
    json_object_put(review);
    /* A malformed review: 400 with a JSON error saying what is wrong. */
    tls_http(s, "https", "POST", "/admission/resourcebindings", NULL, NULL,
             "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}",
             (long)CURL_HTTP_VERSION_1_1, &st, &ver, &r);
    CU_ASSERT_EQUAL(st, 400);
    CU_ASSERT(r.json && strstr(jstr(r.json, "message"), "request is missing") != NULL);
    resp_free(&r);
    /* Answered reviews are counted by result. */
    tls_http(s, "https", "GET", "/metrics", NULL, NULL, NULL, (long)CURL_HTTP_VERSION_1_1, &st,
             &ver, &r);
    CU_ASSERT(r.body && strstr(r.body, "muster_webhook_reviews_total{result=\"held\"} 1\n"));
    CU_ASSERT(r.body && strstr(r.body, "muster_webhook_reviews_total{result=\"invalid\"} 1\n"));
    resp_free(&r);
}

static void body_tls(struct srv *s)
{
    struct resp r;
    long st, ver;
    webhook_over_tls(s);
    /* HTTPS with the CA: HTTP/2 by ALPN when asked for, HTTP/1.1 otherwise. */
    CU_ASSERT_EQUAL(tls_http(s, "https", "GET", "/healthz", NULL, NULL, NULL,
                             (long)CURL_HTTP_VERSION_2TLS, &st, &ver, &r),
                    CURLE_OK);
    CU_ASSERT_EQUAL(st, 200);
    CU_ASSERT_EQUAL(ver, (long)CURL_HTTP_VERSION_2_0);
    resp_free(&r);
    CU_ASSERT_EQUAL(tls_http(s, "https", "GET", "/api/v1/queues/default", NULL, TOK_VIEWER, NULL,
                             (long)CURL_HTTP_VERSION_1_1, &st, &ver, &r),
                    CURLE_OK);
    CU_ASSERT_EQUAL(st, 200);
    CU_ASSERT_EQUAL(ver, (long)CURL_HTTP_VERSION_1_1);
    resp_free(&r);
    /* Plain HTTP to the TLS port gets no answer. */
    CU_ASSERT_NOT_EQUAL(tls_http(s, "http", "GET", "/healthz", NULL, NULL, NULL,
                                 (long)CURL_HTTP_VERSION_1_1, &st, &ver, &r),
                        CURLE_OK);
    CU_ASSERT_EQUAL(st, 0);
    resp_free(&r);
    /* No certificate and no token: the token rules apply. */
    tls_http(s, "https", "GET", "/api/v1/queues", NULL, NULL, NULL, (long)CURL_HTTP_VERSION_2TLS,
             &st, &ver, &r);
    CU_ASSERT_EQUAL(st, 401);
    resp_free(&r);
    if (!tls_client_ca)
        return;
    /* A client certificate names the user; the role is the token file's. */
    CU_ASSERT_EQUAL(tls_http(s, "https", "POST", "/api/v1/queues", "ada", NULL,
                             "{\"name\":\"by-cert\"}", (long)CURL_HTTP_VERSION_2TLS, &st, &ver, &r),
                    CURLE_OK);
    CU_ASSERT_EQUAL(st, 201);
    CU_ASSERT_EQUAL(ver, (long)CURL_HTTP_VERSION_2_0); /* the certificate is read over h2 too */
    resp_free(&r);
    tls_http(s, "https", "GET", "/api/v1/audit", "ada", NULL, NULL, (long)CURL_HTTP_VERSION_2TLS,
             &st, &ver, &r);
    CU_ASSERT_EQUAL(st, 200);
    struct json_object *items = NULL;
    REQUIRE(r.json && json_object_object_get_ex(r.json, "items", &items));
    struct json_object *last =
        json_object_array_get_idx(items, json_object_array_length(items) - 1);
    CU_ASSERT_STRING_EQUAL(jstr(last, "actor"), "ada");
    resp_free(&r);
    /* cleo: certificate only, operator: may read, may not create. */
    tls_http(s, "https", "GET", "/api/v1/queues", "cleo", NULL, NULL, (long)CURL_HTTP_VERSION_1_1,
             &st, &ver, &r);
    CU_ASSERT_EQUAL(st, 200);
    resp_free(&r);
    tls_http(s, "https", "POST", "/api/v1/queues", "cleo", NULL, "{\"name\":\"no\"}",
             (long)CURL_HTTP_VERSION_2TLS, &st, &ver, &r);
    CU_ASSERT_EQUAL(st, 403);
    resp_free(&r);
    /* mallory: a valid certificate, but no role in the token file. */
    tls_http(s, "https", "GET", "/api/v1/queues", "mallory", NULL, NULL,
             (long)CURL_HTTP_VERSION_2TLS, &st, &ver, &r);
    CU_ASSERT_EQUAL(st, 403);
    resp_free(&r);
    /* A certificate from another CA ends the handshake, even with a good token. */
    CU_ASSERT_NOT_EQUAL(tls_http(s, "https", "GET", "/api/v1/queues", "stranger", TOK_ADMIN, NULL,
                                 (long)CURL_HTTP_VERSION_2TLS, &st, &ver, &r),
                        CURLE_OK);
    CU_ASSERT_EQUAL(st, 0);
    resp_free(&r);
    /* Still serving after the refused handshakes. */
    tls_http(s, "https", "GET", "/healthz", NULL, NULL, NULL, (long)CURL_HTTP_VERSION_2TLS, &st,
             &ver, &r);
    CU_ASSERT_EQUAL(st, 200);
    resp_free(&r);
}

static void test_tls(void)
{
    if (gen_certs(tls_dir, sizeof(tls_dir)) != 0) {
        tls_dir[0] = '\0'; /* the other tests stay on cleartext */
        CU_FAIL_FATAL("openssl could not generate the test certificates");
    }
    run_with_server("tls", 1, body_tls);
    tls_client_ca = 1;
    run_with_server("mtls", 1, body_tls);
    tls_client_ca = 0;

    /* Refused configurations, each with a message naming what to fix. */
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct store *st;
    char err[256], db[512], cert[600], key[600], ca[600], tokens[512];
    test_tmp_path(db, sizeof(db), "api-tlsconf.db");
    remove(db);
    CU_ASSERT_FATAL(store_open(db, NULL, &st, err, sizeof(err)) == 0);
    struct queue_tree *t = queue_tree_new();
    struct api_ctx ctx = {.store = st, .tree = t};
    struct api_server *api;
    snprintf(cert, sizeof(cert), "%s/server.crt", tls_dir);
    snprintf(key, sizeof(key), "%s/other-ca.key", tls_dir); /* not the certificate's key */
    snprintf(ca, sizeof(ca), "%s/ca.crt", tls_dir);
    test_tmp_path(tokens, sizeof(tokens), "api-tlsconf.tokens");
    write_file(tokens, "t0123456789,ada,admin\n");
    struct api_options opt = {.host = "127.0.0.1", .tls_cert_file = cert};
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(strstr(err, "--tls-private-key-file") != NULL);
    opt.tls_private_key_file = key;
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(strstr(err, "other-ca.key") != NULL);
    snprintf(key, sizeof(key), "%s/server.key", tls_dir);
    opt.client_ca_file = ca;
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(strstr(err, "--token-auth-file") != NULL);
    opt.token_file = tokens;
    opt.client_ca_file = "/nonexistent/ca.crt";
    CU_ASSERT_EQUAL(api_server_start(&loop, &opt, &ctx, &api, err, sizeof(err)), MUSTER_ECONFIG);
    CU_ASSERT(strstr(err, "/nonexistent/ca.crt") != NULL);
    CU_ASSERT(api == NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&loop), 0);
    store_close(st);
    queue_tree_free(t);
    remove(tokens);
    tls_dir[0] = '\0';
}

/* ---- metrics ---- */

struct work_arg {
    int rc;
};

/* Two entries of 1 cpu in team-a, one of them admitted. */
static void add_work_fn(struct srv *s, void *arg)
{
    struct work_arg *a = arg;
    uint32_t cpu;
    queue_resnames_intern(queue_tree_resnames(s->tree), "cpu", 3, &cpu);
    struct queue_resvec req = {0};
    queue_resvec_set(&req, cpu, 1000);
    struct queue_error qe;
    struct queue_entry *e;
    struct queue_entry_spec one = {100, "team-a", 0, 1, &req}, two = {101, "team-a", 0, 2, &req};
    a->rc = queue_entry_add(s->tree, &one, &e, &qe);
    if (!a->rc)
        a->rc = queue_entry_admit(s->tree, e, NULL);
    if (!a->rc)
        a->rc = queue_entry_add(s->tree, &two, NULL, &qe);
    queue_resvec_close(&req);
}

struct status_arg {
    const char *queue;
    double share;
};

static void share_fn(struct srv *s, void *arg)
{
    struct status_arg *a = arg;
    struct queue_status st;
    memset(&st, 0, sizeof(st));
    REQUIRE(queue_node_status(s->tree, queue_tree_find(s->tree, a->queue), &st) == 0);
    a->share = st.share;
    queue_status_close(&st);
}

/* The value of the sample whose name and labels are exactly key, or NULL. */
static const char *sample(const char *text, const char *key, char *val, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (l > kl && memcmp(p, key, kl) == 0 && p[kl] == ' ') {
            snprintf(val, cap, "%.*s", (int)(l - kl - 1), p + kl + 1);
            return val;
        }
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

static void expect_sample(const char *text, const char *key, const char *want)
{
    char v[64];
    const char *got = sample(text, key, v, sizeof(v));
    if (!got || strcmp(got, want) != 0)
        fprintf(stderr, "%s: want %s, got %s\n", key, want, got ? got : "(absent)");
    CU_ASSERT(got && strcmp(got, want) == 0);
}

/* Every sample belongs to a family declared with HELP and TYPE before it, and every line ends
 * with a newline. */
static void families_declared(const char *t)
{
    char declared[8192] = " ";
    for (const char *p = t; *p;) {
        const char *nl = strchr(p, '\n');
        REQUIRE(nl != NULL); /* the format ends every line, the last one too */
        size_t l = (size_t)(nl - p);
        char name[128];
        if (l > 7 && memcmp(p, "# HELP ", 7) == 0) {
            size_t n = strcspn(p + 7, " ");
            snprintf(name, sizeof(name), "%.*s", (int)n, p + 7);
            CU_ASSERT(memcmp(nl + 1, "# TYPE ", 7) == 0 && memcmp(nl + 8, name, n) == 0);
            size_t dl = strlen(declared);
            snprintf(declared + dl, sizeof(declared) - dl, "%s ", name);
        } else if (p[0] != '#') {
            size_t n = strcspn(p, "{ ");
            snprintf(name, sizeof(name), " %.*s ", (int)n, p);
            CU_ASSERT(strncmp(name, " muster_", 8) == 0);
            /* A histogram's samples carry _bucket, _sum and _count after its name. */
            char *suffix = strstr(name, "_bucket ");
            if (!suffix)
                suffix = strstr(name, "_sum ");
            if (!suffix)
                suffix = strstr(name, "_count ");
            if (suffix && !strstr(declared, name))
                memcpy(suffix, " ", 2);
            if (!strstr(declared, name))
                fprintf(stderr, "sample of an undeclared family: %.*s\n", (int)l, p);
            CU_ASSERT(strstr(declared, name) != NULL);
        }
        p = nl + 1;
    }
}

static void body_metrics(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN,
           "{\"name\":\"org\",\"guarantee\":{\"cpu\":\"2\"},\"deserved\":{\"cpu\":\"4\","
           "\"memory\":\"1Gi\"},\"capability\":{\"cpu\":\"8\"}}",
           NULL, 201);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN,
           "{\"name\":\"team-a\",\"parent\":\"org\",\"guarantee\":{\"cpu\":\"1\"},"
           "\"deserved\":{\"cpu\":\"1500m\"}}",
           NULL, 201);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"team-b\",\"parent\":\"org\"}", NULL,
           201);
    expect(s, "PATCH", "/api/v1/queues/team-b", TOK_ADMIN, "{\"weight\":3}", NULL, 200);
    expect(s, "GET", "/api/v1/queues", NULL, NULL, NULL, 401);
    struct work_arg wa = {-1};
    on_loop(s, add_work_fn, &wa);
    REQUIRE(wa.rc == 0);
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/metrics", NULL, NULL, 0, NULL, &r), 200); /* no token */
    REQUIRE(r.body != NULL);
    const char *t = r.body;
    families_declared(t);
    /* Spec values as declared, in base units (cores, bytes). */
    expect_sample(t, "muster_queue_guarantee{queue=\"org\",resource=\"cpu\"}", "2");
    expect_sample(t, "muster_queue_deserved{queue=\"org\",resource=\"memory\"}", "1073741824");
    expect_sample(t, "muster_queue_deserved{queue=\"team-a\",resource=\"cpu\"}", "1.5");
    expect_sample(t, "muster_queue_capability{queue=\"org\",resource=\"cpu\"}", "8");
    char v[64];
    CU_ASSERT(sample(t, "muster_queue_capability{queue=\"team-a\",resource=\"cpu\"}", v,
                     sizeof(v)) == NULL); /* unlimited: omitted */
    /* Live values from the engine. */
    expect_sample(t, "muster_queue_allocated{queue=\"team-a\",resource=\"cpu\"}", "1");
    expect_sample(t, "muster_queue_allocated{queue=\"org\",resource=\"cpu\"}", "1");
    expect_sample(t, "muster_queue_pending{queue=\"team-a\"}", "1");
    expect_sample(t, "muster_queue_admitted{queue=\"team-a\"}", "1");
    expect_sample(t, "muster_queue_pending{queue=\"org\"}", "1");
    expect_sample(t, "muster_queue_pending{queue=\"team-b\"}", "0");
    struct status_arg sa = {"team-a", -1};
    on_loop(s, share_fn, &sa);
    const char *sh = sample(t, "muster_queue_share{queue=\"team-a\"}", v, sizeof(v));
    CU_ASSERT(sh && sa.share > 0 && strtod(sh, NULL) == sa.share);
    /* Counters. */
    expect_sample(
        t, "muster_api_requests_total{method=\"POST\",route=\"/api/v1/queues\",code=\"201\"}", "3");
    expect_sample(
        t,
        "muster_api_requests_total{method=\"PATCH\",route=\"/api/v1/queues/{name}\",code=\"200\"}",
        "1");
    expect_sample(
        t, "muster_api_requests_total{method=\"GET\",route=\"/api/v1/queues\",code=\"401\"}", "1");
    expect_sample(t, "muster_audit_writes_total{action=\"queue.create\"}", "3");
    expect_sample(t, "muster_audit_writes_total{action=\"queue.patch\"}", "1");
    expect_sample(t, "muster_audit_writes_total{action=\"queue.delete\"}", "0");
    resp_free(&r);
    /* A path no route knows is counted as "other": a client's text never becomes a label. */
    expect(s, "GET", "/x%22y", NULL, NULL, NULL, 404);
    CU_ASSERT_EQUAL(http(s, "GET", "/metrics", NULL, NULL, 0, NULL, &r), 200);
    expect_sample(r.body, "muster_api_requests_total{method=\"GET\",route=\"other\",code=\"404\"}",
                  "1");
    expect_sample(r.body,
                  "muster_api_requests_total{method=\"GET\",route=\"/metrics\",code=\"200\"}", "1");
    resp_free(&r);
}

static void test_metrics(void)
{
    run_with_server("metrics", 1, body_metrics);
}

/* A registry lent through api_ctx follows the queue gauges on the same page. */
static void body_metrics_registry(struct srv *s)
{
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/metrics", NULL, NULL, 0, NULL, &r), 200);
    REQUIRE(r.body != NULL);
    families_declared(r.body);
    expect_sample(r.body, "muster_queue_pending{queue=\"default\"}", "0");
    expect_sample(r.body, "muster_admissions_total{queue=\"team-a\"}", "2");
    expect_sample(r.body, "muster_hub_requests_total{verb=\"patch\",code=\"200\"}", "1");
    expect_sample(r.body, "muster_cycle_duration_seconds_count", "1");
    CU_ASSERT(strstr(r.body, "muster_queue_share") < strstr(r.body, "muster_admissions_total"));
    resp_free(&r);
}

static void test_metrics_registry(void)
{
    next_metrics = disp_metrics_new();
    REQUIRE(next_metrics != NULL);
    disp_metrics_admission(next_metrics, "team-a");
    disp_metrics_admission(next_metrics, "team-a");
    disp_metrics_hub_request(next_metrics, "patch", 200);
    disp_metrics_cycle(next_metrics, 0.004);
    run_with_server("metrics-registry", 0, body_metrics_registry);
    disp_metrics_free(next_metrics);
    next_metrics = NULL;
}

/* ---- the rate limit ---- */

/* A decimal header value, or -1 when it is not one. */
static long atol_ok(const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    return end == v || *end ? -1 : n;
}

static void body_rate_limit(struct srv *s)
{
    /* Burst 3, 1 per second: the fourth request in a row is refused. */
    for (int i = 0; i < 3; i++)
        expect(s, "GET", "/api/v1/queues/default", TOK_VIEWER, NULL, NULL, 200);
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/queues/default", TOK_VIEWER, NULL, 0, NULL, &r), 429);
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "reason"), "TooManyRequests");
    CU_ASSERT_STRING_EQUAL(jstr(r.json, "code"), "429");
    CU_ASSERT(atol_ok(r.retry_after) >= 1);
    resp_free(&r);
    /* Before authentication too: a flood of bad tokens is limited the same way. */
    expect(s, "GET", "/api/v1/queues", NULL, NULL, NULL, 429);
    /* Probes are exempt, and so is the webhook (here on cleartext: 404, not 429). */
    expect(s, "GET", "/healthz", NULL, NULL, NULL, 200);
    expect(s, "GET", "/readyz", NULL, NULL, NULL, 200);
    expect(s, "POST", "/admission/resourcebindings", NULL, "{}", NULL, 404);
    /* The bucket refills: after a second there is a token again. */
    uv_sleep(1100);
    expect(s, "GET", "/api/v1/queues/default", TOK_VIEWER, NULL, NULL, 200);
}

static void test_rate_limit(void)
{
    rate_per_s = 1;
    rate_burst = 3;
    run_with_server("rate", 1, body_rate_limit);
    rate_per_s = 0;
    rate_burst = 0;
}

/* ---- OpenAPI ---- */

static void body_openapi_covers_routes(struct srv *s)
{
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/openapi.json", TOK_VIEWER, NULL, 0, NULL, &r), 200);
    REQUIRE(r.json != NULL);
    struct json_object *paths;
    REQUIRE(json_object_object_get_ex(r.json, "paths", &paths));
    size_t n;
    const struct api_route_info *rt = api_routes(&n);
    CU_ASSERT(n >= 10);
    for (size_t i = 0; i < n; i++) {
        struct json_object *item, *op;
        char m[16];
        size_t j = 0;
        for (; rt[i].method[j] && j < sizeof(m) - 1; j++)
            m[j] = (char)(rt[i].method[j] | 0x20);
        m[j] = '\0';
        int ok = json_object_object_get_ex(paths, rt[i].path, &item) &&
                 json_object_object_get_ex(item, m, &op);
        if (!ok)
            fprintf(stderr, "%s %s is not in schema/openapi.json\n", rt[i].method, rt[i].path);
        CU_ASSERT(ok);
    }
    /* The contract's other paths are documented too, ahead of their handlers. */
    static const char *const contract[] = {"/metrics", "/api/v1/bindings",
                                           "/api/v1/bindings/{namespace}/{name}",
                                           "/api/v1/clusters", "/api/v1/events"};
    for (size_t i = 0; i < sizeof(contract) / sizeof(contract[0]); i++) {
        struct json_object *item;
        CU_ASSERT(json_object_object_get_ex(paths, contract[i], &item));
    }
    resp_free(&r);
}

static void test_openapi_covers_routes(void)
{
    run_with_server("openapi", 1, body_openapi_covers_routes);
}

/* ---- the decoder and merge patch without a server ---- */

static void test_merge_patch_rfc7386(void)
{
    /* The examples of RFC 7386, section 3. */
    static const char *const ex[][3] = {
        {"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
        {"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
        {"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
        {"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"},
        {"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
        {"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
        {"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
        {"{\"a\":\"foo\"}", "null", "null"},
        {"{\"a\":\"foo\"}", "\"bar\"", "\"bar\""},
        {"{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"},
        {"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
        {"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"},
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
        struct json_object *t = json_tokener_parse(ex[i][0]);
        struct json_object *p = json_tokener_parse(ex[i][1]);
        struct json_object *want = json_tokener_parse(ex[i][2]);
        struct json_object *got = api_merge_patch(t, p);
        int eq = (!got && !want) || json_object_equal(got, want);
        if (!eq)
            fprintf(stderr, "merge %s + %s: got %s\n", ex[i][0], ex[i][1],
                    json_object_to_json_string(got));
        CU_ASSERT(eq);
        struct json_object *orig = json_tokener_parse(ex[i][0]);
        CU_ASSERT(json_object_equal(t, orig)); /* the target is not changed */
        json_object_put(orig);
        json_object_put(t);
        json_object_put(p);
        json_object_put(want);
        json_object_put(got);
    }
}

static void test_body_decoder(void)
{
    struct api_error e;
    struct json_object *o;
    CU_ASSERT_EQUAL(api_body_parse("{}", 2, &o, &e), 0);
    struct api_queue_doc d;
    CU_ASSERT_EQUAL(api_queue_doc_decode(o, &d, &e), 0);
    CU_ASSERT(d.name == NULL);
    CU_ASSERT_EQUAL(d.weight, 1);
    CU_ASSERT_EQUAL(d.gang_timeout_s, 300);
    CU_ASSERT_STRING_EQUAL(d.state, "Open");
    CU_ASSERT_STRING_EQUAL(d.strategy, "BestEffortFIFO");
    json_object_put(o);
    CU_ASSERT_EQUAL(api_body_parse("", 0, &o, &e), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(e.status, 400);
    CU_ASSERT(o == NULL);
    CU_ASSERT_EQUAL(api_body_parse("{} {}", 5, &o, &e), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(api_body_parse("{}  \n", 5, &o, &e), 0);
    json_object_put(o);
    /* Exactly the depth cap parses; one more does not. */
    char buf[64], deeper[sizeof(buf) + 2];
    size_t depth = API_JSON_DEPTH_MAX;
    memset(buf, '[', depth);
    memset(buf + depth, ']', depth);
    buf[2 * depth] = '\0';
    CU_ASSERT_EQUAL(api_body_parse(buf, strlen(buf), &o, &e), MUSTER_EINVAL); /* not an object */
    CU_ASSERT_EQUAL(e.status, 400);
    snprintf(deeper, sizeof(deeper), "[%s]", buf);
    CU_ASSERT_EQUAL(api_body_parse(deeper, strlen(deeper), &o, &e), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(e.status, 413);
    /* Valid multi-byte UTF-8 passes the check (the engine then refuses the name). */
    const char *ok = "{\"name\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}";
    CU_ASSERT_EQUAL(api_body_parse(ok, strlen(ok), &o, &e), 0);
    json_object_put(o);
    /* An escaped backslash followed by "u0000" is text, not a NUL. */
    const char *lit = "{\"name\":\"\\\\u0000\"}";
    CU_ASSERT_EQUAL(api_body_parse(lit, strlen(lit), &o, &e), 0);
    json_object_put(o);
    /* issue 23: a key twice in one object is a 400; the same key in two objects is not, nor
     * a colon or an escaped quote inside a string */
    const char *two = "{\"a\":\"\\\"b\\\": 1\",\"b\":{\"a\":1,\"c\":[{\"a\":2}]}}";
    CU_ASSERT_EQUAL(api_body_parse(two, strlen(two), &o, &e), 0);
    json_object_put(o);
    const char *dup = "{\"b\":{\"a\":1,\"a\" : 2}}";
    CU_ASSERT_EQUAL(api_body_parse(dup, strlen(dup), &o, &e), MUSTER_EINVAL);
    CU_ASSERT(strstr(e.msg, "repeats a key") != NULL);
    const char *ninf = "{\"w\":[-Infinity]}";
    CU_ASSERT_EQUAL(api_body_parse(ninf, strlen(ninf), &o, &e), MUSTER_EINVAL);
    CU_ASSERT(strstr(e.msg, "not finite") != NULL);
    const char *nul = "{\"na\\u0000me\":1}";
    CU_ASSERT_EQUAL(api_body_parse(nul, strlen(nul), &o, &e), MUSTER_EINVAL);
    const char *trunc = "{\"name\":\"\xe2\x82\"}";
    CU_ASSERT_EQUAL(api_body_parse(trunc, strlen(trunc), &o, &e), MUSTER_EINVAL);
}

/* ---- events, clusters, stats, the dashboard's files ---- */

struct sse {
    long status;
    char body[16384];
    size_t len;
};

static size_t on_sse(char *p, size_t sz, size_t n, void *ud)
{
    struct sse *r = ud;
    size_t k = sz * n;
    if (r->len + k >= sizeof(r->body))
        k = sizeof(r->body) - 1 - r->len;
    memcpy(r->body + r->len, p, k);
    r->len += k;
    r->body[r->len] = '\0';
    return sz * n;
}

static int sse_h2; /* sse_read speaks HTTP/2 (h2c, prior knowledge) */

/* Reads an event stream for ms milliseconds (it never ends by itself). */
static long sse_read(struct srv *s, const char *path, const char *token, const char *hdr, long ms,
                     struct sse *r)
{
    memset(r, 0, sizeof(*r));
    CURL *c = curl_easy_init();
    REQUIRE(c != NULL);
    char url[1024], auth[256];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", s->port, path);
    struct curl_slist *h = NULL;
    if (token) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    if (hdr)
        h = curl_slist_append(h, hdr);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_sse);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
    if (sse_h2)
        curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
    CURLcode rc = curl_easy_perform(c);
    CU_ASSERT(rc == CURLE_OK || rc == CURLE_OPERATION_TIMEDOUT);
    long version = 0;
    curl_easy_getinfo(c, CURLINFO_HTTP_VERSION, &version);
    CU_ASSERT(!sse_h2 || version == CURL_HTTP_VERSION_2_0);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return r->status;
}

static uint64_t published[8];

static struct json_object *named(const char *name)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(name));
    return o;
}

static void publish_fn(struct srv *s, void *arg)
{
    (void)s;
    const char **names = arg;
    for (int i = 0; names[i]; i++)
        published[i] = disp_events_publish(srv_events, "queue", named(names[i]));
}

static void on_pub_timer(uv_timer_t *t)
{
    disp_events_publish(srv_events, "binding", named("live-one"));
    uv_close((uv_handle_t *)t, NULL);
}

/* Publishes one event 300 ms from now, while the client thread reads a stream. */
static void publish_later_fn(struct srv *s, void *arg)
{
    (void)arg;
    uv_timer_init(&s->loop, &s->pub_timer);
    uv_timer_start(&s->pub_timer, on_pub_timer, 300, 0);
}

static struct json_object *three_clusters(void *ud)
{
    (void)ud;
    struct json_object *a = json_object_new_array();
    const char *names[] = {"member-c", "member-a", "member-b"};
    for (int i = 0; i < 3; i++) {
        struct json_object *c = named(names[i]);
        json_object_object_add(c, "ready", json_object_new_boolean(i != 1));
        json_object_array_add(a, c);
    }
    return a;
}

static void body_events(struct srv *s)
{
    const char *first[] = {"q1", "q2", NULL};
    on_loop(s, publish_fn, first);
    struct sse r;
    /* A first connection: the reconnect delay, then reset (the client loads everything). */
    CU_ASSERT_EQUAL(sse_read(s, "/api/v1/events", TOK_VIEWER, NULL, 400, &r), 200);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "retry: 2000\n"));
    char want[128];
    snprintf(want, sizeof(want), "id: %llu\nevent: reset\n", (unsigned long long)published[1]);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.body, want));
    CU_ASSERT_PTR_NULL(strstr(r.body, "\"q1\""));
    /* Resumed after q1: q2 is replayed, no reset. */
    char hdr[64];
    snprintf(hdr, sizeof(hdr), "Last-Event-ID: %llu", (unsigned long long)published[0]);
    CU_ASSERT_EQUAL(sse_read(s, "/api/v1/events", TOK_VIEWER, hdr, 400, &r), 200);
    CU_ASSERT_PTR_NULL(strstr(r.body, "event: reset"));
    CU_ASSERT_PTR_NULL(strstr(r.body, "\"q1\""));
    snprintf(want, sizeof(want), "id: %llu\nevent: queue\ndata: {\"name\":\"q2\",\"at\":",
             (unsigned long long)published[1]);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.body, want));
    /* A ring of 4: after 5 more, q2's successors are gone, so ?since= it is a reset. */
    uint64_t q2 = published[1];
    const char *more[] = {"q3", "q4", "q5", "q6", "q7", NULL};
    on_loop(s, publish_fn, more);
    char path[96];
    snprintf(path, sizeof(path), "/api/v1/events?since=%llu", (unsigned long long)q2);
    CU_ASSERT_EQUAL(sse_read(s, path, TOK_VIEWER, NULL, 300, &r), 200);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "event: reset"));
    CU_ASSERT_PTR_NULL(strstr(r.body, "event: queue"));
    struct resp x;
    expect(s, "GET", "/api/v1/events?since=x", TOK_VIEWER, NULL, NULL, 400);
    /* Live: an event published while the stream is open arrives on it. */
    on_loop(s, publish_later_fn, NULL);
    CU_ASSERT_EQUAL(sse_read(s, "/api/v1/events", TOK_VIEWER, NULL, 900, &r), 200);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "event: binding\ndata: {\"name\":\"live-one\""));
    /* The same over HTTP/2: h2o streams it as DATA frames. */
    sse_h2 = 1;
    on_loop(s, publish_later_fn, NULL);
    CU_ASSERT_EQUAL(sse_read(s, "/api/v1/events", TOK_VIEWER, NULL, 900, &r), 200);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "event: reset\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "event: binding\ndata: {\"name\":\"live-one\""));
    sse_h2 = 0;
    /* EventSource sends no header: the token as access_token=, on this route only. */
    CU_ASSERT_EQUAL(sse_read(s, "/api/v1/events?access_token=" TOK_VIEWER, NULL, NULL, 300, &r),
                    200);
    CU_ASSERT_EQUAL(sse_read(s, "/api/v1/events?access_token=nope", NULL, NULL, 300, &r), 401);
    CU_ASSERT_EQUAL(
        http(s, "GET", "/api/v1/queues?access_token=" TOK_ADMIN, NULL, NULL, 0, NULL, &x), 401);
    resp_free(&x);
    /* Stats and clusters. */
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/stats", TOK_VIEWER, NULL, 0, NULL, &x), 200);
    struct json_object *mins = NULL;
    CU_ASSERT(json_object_object_get_ex(x.json, "minutes", &mins));
    CU_ASSERT_EQUAL(json_object_array_length(mins), DISP_EVENTS_MINUTES);
    resp_free(&x);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/clusters?limit=2", TOK_VIEWER, NULL, 0, NULL, &x), 200);
    struct json_object *items = json_object_object_get(x.json, "items");
    CU_ASSERT_EQUAL(json_object_array_length(items), 2);
    STR_EQ(jstr(json_object_array_get_idx(items, 0), "name"), "member-a");
    STR_EQ(jstr(json_object_object_get(x.json, "metadata"), "continue"), "member-b");
    resp_free(&x);
    CU_ASSERT_EQUAL(
        http(s, "GET", "/api/v1/clusters?limit=2&continue=member-b", TOK_VIEWER, NULL, 0, NULL, &x),
        200);
    items = json_object_object_get(x.json, "items");
    CU_ASSERT_EQUAL(json_object_array_length(items), 1);
    STR_EQ(jstr(json_object_array_get_idx(items, 0), "name"), "member-c");
    CU_ASSERT_PTR_NULL(jstr(json_object_object_get(x.json, "metadata"), "continue"));
    resp_free(&x);
    /* Every list route reads its page with the one pager: a limit that is not a positive
     * integer, or a continue token longer than any page hands out, is the same 400. */
    static const char *const lists[] = {"/api/v1/queues", "/api/v1/audit", "/api/v1/bindings",
                                        "/api/v1/clusters"};
    char longtok[300], lpath[400];
    memset(longtok, 'a', sizeof(longtok) - 1);
    longtok[sizeof(longtok) - 1] = '\0';
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        snprintf(lpath, sizeof(lpath), "%s?limit=0", lists[i]);
        CU_ASSERT_EQUAL(http(s, "GET", lpath, TOK_ADMIN, NULL, 0, NULL, &x), 400);
        STR_EQ(jstr(x.json, "message"), "limit must be a positive integer");
        resp_free(&x);
        snprintf(lpath, sizeof(lpath), "%s?continue=%s", lists[i], longtok);
        CU_ASSERT_EQUAL(http(s, "GET", lpath, TOK_ADMIN, NULL, 0, NULL, &x), 400);
        STR_EQ(jstr(x.json, "message"), "continue is not a token from a previous page");
        resp_free(&x);
    }
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/clusters/member-b", TOK_VIEWER, NULL, 0, NULL, &x),
                    200);
    STR_EQ(jstr(x.json, "name"), "member-b");
    resp_free(&x);
    expect(s, "GET", "/api/v1/clusters/member-z", TOK_VIEWER, NULL, NULL, 404);
    /* Bindings by name: a substring, URL-encoded; a bad escape is a 400. */
    CU_ASSERT_EQUAL(
        http(s, "GET", "/api/v1/bindings?name=no%2Fsuch", TOK_VIEWER, NULL, 0, NULL, &x), 200);
    CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(x.json, "items")), 0);
    resp_free(&x);
    expect(s, "GET", "/api/v1/bindings?name=%zz", TOK_VIEWER, NULL, NULL, 400);
    /* A stream left open is ended by the close (client_main reads it to the end). */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    const char req[] =
        "GET /api/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TOK_VIEWER "\r\n\r\n";
    REQUIRE(write(fd, req, sizeof(req) - 1) == (ssize_t)(sizeof(req) - 1));
    char buf[2048];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    REQUIRE(n > 0);
    buf[n] = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "text/event-stream"));
    s->sse_fd = fd;
}

/* An event stream on a raw socket from 127.0.0.<src> (its response headers read into head
 * when given); rcvbuf > 0 shrinks the socket's receive buffer first, so a client that does not
 * read falls behind quickly. token may be NULL. Returns the socket; *status the answer's. */
static int sse_open_as(struct srv *s, int rcvbuf, int src, const char *token, long *status)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    struct sockaddr_in from = {.sin_family = AF_INET};
    from.sin_addr.s_addr = htonl(INADDR_LOOPBACK + (uint32_t)(src - 1));
    REQUIRE(bind(fd, (struct sockaddr *)&from, sizeof(from)) == 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char req[256];
    int n =
        snprintf(req, sizeof(req), "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%s\r\n",
                 token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "");
    REQUIRE(write(fd, req, (size_t)n) == (ssize_t)n);
    char buf[1024];
    ssize_t got = read(fd, buf, sizeof(buf) - 1);
    REQUIRE(got > 12);
    buf[got] = '\0';
    *status = strtol(buf + 9, NULL, 10);
    return fd;
}

static int sse_open(struct srv *s, int rcvbuf)
{
    long st;
    int fd = sse_open_as(s, rcvbuf, 1, NULL, &st);
    CU_ASSERT_EQUAL(st, 200);
    return fd;
}

/* Publishes n events of about 8 KiB each. */
static void publish_big_fn(struct srv *s, void *arg)
{
    (void)s;
    static char pad[8192];
    memset(pad, 'x', sizeof(pad) - 1);
    for (int i = 0; i < *(int *)arg; i++) {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "pad", json_object_new_string(pad));
        disp_events_publish(srv_events, "notice", o);
    }
}

static void body_stream_limits(struct srv *s)
{
    /* A client that stops reading is cut once 256 KiB wait for it: its stream ends (the last
     * chunk, then EOF) after a bounded number of bytes, while the server keeps serving. */
    int slow = sse_open(s, 4096);
    int n = 400; /* 3.2 MiB: past the cap and whatever the kernel buffers on loopback */
    on_loop(s, publish_big_fn, &n);
    char buf[65536];
    size_t total = 0;
    ssize_t got;
    while ((got = read(slow, buf, sizeof(buf))) > 0)
        total += (size_t)got;
    CU_ASSERT_EQUAL(got, 0); /* EOF, not the 5 s receive timeout */
    CU_ASSERT(total < (size_t)n * 8192);
    close(slow);
    /* At most API_SSE_STREAMS_PER_ADDR streams from one address: the next is a 503 with
     * Retry-After, while other addresses still get theirs. */
    int fds[API_SSE_STREAMS_MAX];
    for (int i = 0; i < API_SSE_STREAMS_PER_ADDR; i++)
        fds[i] = sse_open(s, 0);
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/events", NULL, NULL, 0, NULL, &r), 503);
    CU_ASSERT_STRING_EQUAL(r.retry_after, "5");
    CU_ASSERT(r.body && strstr(r.body, "for this address"));
    resp_free(&r);
    /* At most API_SSE_STREAMS_MAX in all, from four addresses. */
    long st;
    for (int i = API_SSE_STREAMS_PER_ADDR; i < API_SSE_STREAMS_MAX; i++) {
        fds[i] = sse_open_as(s, 0, 2 + (i - API_SSE_STREAMS_PER_ADDR) / API_SSE_STREAMS_PER_ADDR,
                             NULL, &st);
        CU_ASSERT_EQUAL(st, 200);
    }
    close(sse_open_as(s, 0, 9, NULL, &st));
    CU_ASSERT_EQUAL(st, 503);
    close(fds[0]);
    /* The server notices the closed one when it writes to it (the heartbeat, or here events:
     * the first write after the peer closed draws the reset, a later one fails), and then has
     * room again. */
    int one = 1;
    static struct sse again; /* 16 KiB: not on the client thread's stack */
    for (int i = 0; i < 20 && again.status != 200; i++) {
        on_loop(s, publish_big_fn, &one);
        usleep(100000);
        sse_read(s, "/api/v1/events", NULL, NULL, 200, &again);
    }
    CU_ASSERT_EQUAL(again.status, 200);
    for (int i = 1; i < API_SSE_STREAMS_MAX; i++)
        close(fds[i]);
}

/* With tokens, one user is capped whatever addresses it comes from. */
static void body_stream_user_cap(struct srv *s)
{
    int fds[API_SSE_STREAMS_PER_USER];
    long st;
    for (int i = 0; i < API_SSE_STREAMS_PER_USER; i++) {
        fds[i] = sse_open_as(s, 0, 1 + i % 3, TOK_VIEWER, &st);
        CU_ASSERT_EQUAL(st, 200);
    }
    close(sse_open_as(s, 0, 5, TOK_VIEWER, &st));
    CU_ASSERT_EQUAL(st, 503);
    close(sse_open_as(s, 0, 5, TOK_ADMIN, &st)); /* another user still gets one */
    CU_ASSERT_EQUAL(st, 200);
    for (int i = 0; i < API_SSE_STREAMS_PER_USER; i++)
        close(fds[i]);
}

static void test_stream_limits(void)
{
    srv_events = disp_events_new(4);
    run_with_server("streams", 0, body_stream_limits);
    run_with_server("streams-user", 1, body_stream_user_cap);
    disp_events_free(srv_events);
    srv_events = NULL;
}

static void test_events_and_clusters(void)
{
    srv_events = disp_events_new(4);
    srv_clusters = three_clusters;
    run_with_server("events", 1, body_events);
    disp_events_free(srv_events);
    srv_events = NULL;
    srv_clusters = NULL;
}

/* A dispatcher of one cluster, member-a, whose gang dialect is what the store's override says
 * (read again by the dialects_changed hook on the loop, as the controller does), else detected
 * volcano. */
static struct store *dialect_store;
static char fake_dialect[32];
static int fake_dialect_cb(void *ud, const char *name, const char *dialect)
{
    (void)ud;
    if (strcmp(name, "member-a") == 0)
        snprintf(fake_dialect, sizeof(fake_dialect), "%s", dialect);
    return 0;
}
static int fake_dialects_changed(void *ud)
{
    (void)ud;
    fake_dialect[0] = '\0';
    return store_cluster_dialect_foreach(dialect_store, fake_dialect_cb, NULL);
}
static struct json_object *dialect_clusters(void *ud)
{
    (void)ud;
    struct json_object *a = json_object_new_array(), *c = named("member-a");
    json_object_object_add(c, "ready", json_object_new_boolean(1));
    json_object_object_add(c, "gangDialect",
                           json_object_new_string(fake_dialect[0] ? fake_dialect : "volcano"));
    json_object_object_add(c, "gangDialectSource",
                           json_object_new_string(fake_dialect[0] ? "override" : "detected"));
    json_object_array_add(a, c);
    return a;
}

static void body_cluster_dialect(struct srv *s)
{
    struct resp x;
    dialect_store = s->store;
    const char *p = "/api/v1/clusters/member-a";
    /* who may: an operator, not a viewer, not a token scoped to a subtree of queues */
    expect(s, "PATCH", p, TOK_VIEWER, "{\"gangDialect\":\"none\"}", NULL, 403);
    expect(s, "PATCH", p, TOK_SCOPED_OP, "{\"gangDialect\":\"none\"}", NULL, 403);
    expect(s, "PATCH", "/api/v1/clusters/member-z", TOK_OPERATOR, "{\"gangDialect\":\"none\"}",
           NULL, 404);
    /* what: one of the five names or null, and nothing else */
    const char *bad[] = {"{\"gangDialect\":\"kueue\"}", "{\"gangDialect\":\"workload_api\"}",
                         "{\"gangDialect\":3}", "{\"gangDialect\":\"none\",\"ready\":false}", "{}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CU_ASSERT_EQUAL(http(s, "PATCH", p, TOK_OPERATOR, bad[i], -1, NULL, &x), 422);
        resp_free(&x);
    }
    CU_ASSERT_EQUAL(http(s, "GET", p, TOK_VIEWER, NULL, 0, NULL, &x), 200);
    STR_EQ(jstr(x.json, "gangDialect"), "volcano");
    STR_EQ(jstr(x.json, "gangDialectSource"), "detected");
    resp_free(&x);
    /* an override: saved, read back by the dispatcher, shown, audited with its author */
    CU_ASSERT_EQUAL(
        http(s, "PATCH", p, TOK_OPERATOR, "{\"gangDialect\":\"yunikorn\"}", -1, NULL, &x), 200);
    STR_EQ(jstr(x.json, "gangDialect"), "yunikorn");
    STR_EQ(jstr(x.json, "gangDialectSource"), "override");
    resp_free(&x);
    /* null: detected again */
    CU_ASSERT_EQUAL(http(s, "PATCH", p, TOK_ADMIN, "{\"gangDialect\":null}", -1, NULL, &x), 200);
    STR_EQ(jstr(x.json, "gangDialect"), "volcano");
    STR_EQ(jstr(x.json, "gangDialectSource"), "detected");
    resp_free(&x);
    CU_ASSERT_EQUAL(
        http(s, "PATCH", p, TOK_ADMIN, "{\"gangDialect\":\"coscheduling\"}", -1, NULL, &x), 200);
    resp_free(&x);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/audit", TOK_ADMIN, NULL, 0, NULL, &x), 200);
    struct json_object *items = json_object_object_get(x.json, "items");
    int n = 0;
    for (size_t i = 0; items && i < json_object_array_length(items); i++) {
        struct json_object *it = json_object_array_get_idx(items, i);
        if (strcmp(jstr(it, "action"), "cluster.patch") != 0)
            continue;
        STR_EQ(jstr(it, "object"), "clusters/member-a");
        STR_EQ(jstr(it, "actor"), n == 0 ? "otto" : "ada");
        const char *want = n == 0 ? "yunikorn" : n == 1 ? NULL : "coscheduling";
        const char *got = jstr(json_object_object_get(it, "after"), "gangDialect");
        CU_ASSERT(want ? got && strcmp(got, want) == 0 : got == NULL);
        n++;
    }
    CU_ASSERT_EQUAL(n, 3); /* the refused ones wrote nothing */
    resp_free(&x);
    /* the Workload API: accepted by the API and by the table's CHECK (schema/0010) */
    CU_ASSERT_EQUAL(
        http(s, "PATCH", p, TOK_ADMIN, "{\"gangDialect\":\"workload-api\"}", -1, NULL, &x), 200);
    STR_EQ(jstr(x.json, "gangDialect"), "workload-api");
    STR_EQ(jstr(x.json, "gangDialectSource"), "override");
    resp_free(&x);
    /* back to coscheduling, which the next test finds after a restart */
    CU_ASSERT_EQUAL(
        http(s, "PATCH", p, TOK_ADMIN, "{\"gangDialect\":\"coscheduling\"}", -1, NULL, &x), 200);
    resp_free(&x);
}

/* The override outlives the server: a new one on the same database reads it. */
static void body_cluster_dialect_restart(struct srv *s)
{
    struct resp x;
    dialect_store = s->store;
    fake_dialects_changed(NULL);
    CU_ASSERT_EQUAL(http(s, "GET", "/api/v1/clusters/member-a", TOK_VIEWER, NULL, 0, NULL, &x),
                    200);
    STR_EQ(jstr(x.json, "gangDialect"), "coscheduling");
    STR_EQ(jstr(x.json, "gangDialectSource"), "override");
    resp_free(&x);
}

static void test_cluster_dialect(void)
{
    srv_clusters = dialect_clusters;
    srv_dialects_changed = fake_dialects_changed;
    fake_dialect[0] = '\0';
    run_with_server("dialect", 1, body_cluster_dialect);
    keep_db = 1;
    run_with_server("dialect", 1, body_cluster_dialect_restart);
    keep_db = 0;
    srv_clusters = NULL;
    srv_dialects_changed = NULL;
}

static void body_dashboard(struct srv *s)
{
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/", NULL, NULL, 0, NULL, &r), 200);
    CU_ASSERT(r.etag[0] == '"');
    CU_ASSERT(r.body && strstr(r.body, "<html"));
    char hdr[96];
    snprintf(hdr, sizeof(hdr), "If-None-Match: %s", r.etag);
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", "/", NULL, NULL, 0, hdr, &r), 304);
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", "/dashboard/app.js", NULL, NULL, 0, NULL, &r), 200);
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", "/dashboard/nope.js", NULL, NULL, 0, NULL, &r), 404);
    resp_free(&r);
    CU_ASSERT_EQUAL(http(s, "GET", "/dashboard/../api/v1/audit", NULL, NULL, 0, NULL, &r), 401);
    resp_free(&r);
}

static void test_dashboard_files(void)
{
    run_with_server("dashboard", 1, body_dashboard);
}

/* ---- issue 23: the request guards over real sockets ---- */

/* Sends raw bytes on a fresh connection and reads until the server closes it (or 5 s pass).
 * Returns the bytes read, NUL-terminated in out. */
static size_t raw_exchange(struct srv *s, const char *req, size_t len, char *out, size_t cap)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    REQUIRE(write(fd, req, len) == (ssize_t)len);
    size_t have = 0;
    for (;;) {
        ssize_t n = have + 1 < cap ? read(fd, out + have, cap - 1 - have) : 0;
        if (n <= 0)
            break;
        have += (size_t)n;
    }
    out[have] = '\0';
    close(fd);
    return have;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The weight of a queue as served, or -1. */
static long weight_of(struct srv *s, const char *name, const char *token)
{
    char path[128];
    snprintf(path, sizeof(path), "/api/v1/queues/%s", name);
    struct resp r;
    long w = -1;
    if (http(s, "GET", path, token, NULL, 0, NULL, &r) == 200 && r.json)
        w = strtol(jstr(r.json, "weight") ? jstr(r.json, "weight") : "-1", NULL, 10);
    resp_free(&r);
    return w;
}

static void body_smuggling(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"victim\"}", NULL, 201);
    static const char *const smuggled[] = {
        /* two Content-Length fields: h2o frames by the first, the rest is a second request */
        "POST /api/v1/queues HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: 16\r\nContent-Length: 0\r\n\r\n{\"name\":\"smug1\"}"
        "DELETE /api/v1/queues/victim HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        /* Content-Length and Transfer-Encoding: h2o frames by the chunks */
        "POST /api/v1/queues HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: 60\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        "DELETE /api/v1/queues/victim HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        /* Transfer-Encoding twice */
        "POST /api/v1/queues HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        "DELETE /api/v1/queues/victim HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof(smuggled) / sizeof(smuggled[0]); i++) {
        char out[8192];
        raw_exchange(s, smuggled[i], strlen(smuggled[i]), out, sizeof(out));
        if (strncmp(out, "HTTP/1.1 400 ", 13) != 0 || count_of(out, "HTTP/1.1 ") != 1)
            fprintf(stderr, "smuggling %zu: %s\n", i, out);
        CU_ASSERT(strncmp(out, "HTTP/1.1 400 ", 13) == 0);
        CU_ASSERT_EQUAL(count_of(out, "HTTP/1.1 "), 1); /* one answer, then the close */
        CU_ASSERT(strcasestr(out, "connection: close") != NULL);
        CU_ASSERT(weight_of(s, "victim", NULL) == 1);
    }
    expect(s, "GET", "/api/v1/queues/smug1", NULL, NULL, NULL, 404);
    /* One well-framed request still works on the same path. */
    static const char ok[] = "POST /api/v1/queues HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Content-Type: application/json\r\nContent-Length: 16\r\n"
                             "Connection: close\r\n\r\n{\"name\":\"fine1\"}";
    char out[8192];
    raw_exchange(s, ok, sizeof(ok) - 1, out, sizeof(out));
    CU_ASSERT(strncmp(out, "HTTP/1.1 201 ", 13) == 0);
}

static void test_smuggling(void)
{
    run_with_server("smuggle", 0, body_smuggling);
}

static void body_nul_path(struct srv *s)
{
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"nul-victim\"}", NULL, 201);
    expect(s, "PATCH", "/api/v1/queues/nul-victim%00zzz", TOK_ADMIN, "{\"weight\":5}", NULL, 400);
    expect(s, "PUT", "/api/v1/queues/nul-victim%00zzz", TOK_ADMIN,
           "{\"name\":\"nul-victim\",\"weight\":6}", "If-Match: \"1\"", 400);
    expect(s, "DELETE", "/api/v1/queues/nul-victim%00zzz", TOK_ADMIN, NULL, NULL, 400);
    expect(s, "GET", "/api/v1/queues/nul-victim%01", TOK_ADMIN, NULL, NULL, 400);
    CU_ASSERT_EQUAL(weight_of(s, "nul-victim", TOK_ADMIN), 1);
    /* An escaped '/' or a dot segment would let a name walk to another route. */
    expect(s, "DELETE", "/api/v1/queues/..%2Fqueues%2Fnul-victim", TOK_ADMIN, NULL, NULL, 400);
    expect(s, "GET", "/api/v1/queues/..%2Faudit", TOK_ADMIN, NULL, NULL, 400);
    expect(s, "GET", "/api/v1/queues/%2e%2e/audit", TOK_ADMIN, NULL, NULL, 400);
    CU_ASSERT_EQUAL(weight_of(s, "nul-victim", TOK_ADMIN), 1);
}

static void test_nul_path(void)
{
    run_with_server("nulpath", 1, body_nul_path);
}

static void body_cross_site(struct srv *s)
{
    char host[64], origin[96], lhost[64];
    snprintf(host, sizeof(host), "Host: 127.0.0.1:%d", s->port);
    snprintf(lhost, sizeof(lhost), "Host: localhost:%d", s->port);
    snprintf(origin, sizeof(origin), "Origin: http://127.0.0.1:%d", s->port);
    /* writes take JSON only: the types a form or a plain fetch send cross-site are 415 */
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"xs1\"}", "Content-Type: text/plain",
           415);
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"xs2\"}",
           "Content-Type: application/x-www-form-urlencoded", 415);
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"xs3\"}", "Content-Type:", 415);
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"xs4\"}",
           "Content-Type: application/json; charset=utf-8", 201);
    /* a foreign Host (DNS rebinding) is refused, reads and writes alike */
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"xs5\"}", "Host: evil.example", 403);
    expect(s, "DELETE", "/api/v1/queues/xs4", NULL, NULL, "Host: evil.example", 403);
    expect(s, "GET", "/api/v1/queues", NULL, NULL, "Host: evil.example:8080", 403);
    expect(s, "GET", "/api/v1/queues", NULL, NULL, "Host: 127.0.0.1:1", 403);
    expect(s, "GET", "/api/v1/queues", NULL, NULL, host, 200);
    expect(s, "GET", "/api/v1/queues", NULL, NULL, lhost, 200);
    /* a foreign Origin on a write is refused; this server's own is fine */
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"xs6\"}", "Origin: http://evil.example",
           403);
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"xs7\"}", "Origin: null", 403);
    expect(s, "POST", "/api/v1/queues", NULL, "{\"name\":\"xs8\"}", origin, 201);
    expect(s, "GET", "/api/v1/queues/xs4", NULL, NULL, "Origin: http://evil.example", 200);
    expect(s, "DELETE", "/api/v1/queues/xs4", NULL, NULL, "Origin: http://evil.example", 403);
    for (const char *const *n =
             (const char *const[]){"xs1", "xs2", "xs3", "xs5", "xs6", "xs7", NULL};
         *n; n++)
        CU_ASSERT(!engine_has(s, *n));
    CU_ASSERT(engine_has(s, "xs4") && engine_has(s, "xs8"));
    /* every answer says nosniff, a 404 that echoes the path most of all */
    struct resp r;
    http(s, "GET", "/nope/<script>", NULL, NULL, 0, NULL, &r);
    CU_ASSERT_EQUAL(r.status, 404);
    CU_ASSERT(r.nosniff);
    resp_free(&r);
    /* a body over the cap is a JSON 413 on any route, over HTTP/2 too */
    static char big[200 * 1024 + 1];
    memset(big, ' ', sizeof(big) - 1);
    big[0] = '{';
    big[sizeof(big) - 2] = '}';
    expect(s, "POST", "/api/v1/queues", NULL, big, NULL, 413);
    char url[128];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", s->port);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    CURL *c = curl_easy_init();
    REQUIRE(c != NULL);
    CU_ASSERT_EQUAL(h2_request(c, h, url, big), 413);
    curl_easy_cleanup(c);
    curl_slist_free_all(h);
}

static void body_cross_site_tokens(struct srv *s)
{
    char origin[96];
    snprintf(origin, sizeof(origin), "Origin: http://127.0.0.1:%d", s->port);
    /* with tokens any Host is fine (a Service name), but a write's Origin must be the Host's */
    expect(s, "GET", "/api/v1/queues", TOK_ADMIN, NULL, "Host: muster.example", 200);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"xt1\"}",
           "Origin: http://evil.example", 403);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN, "{\"name\":\"xt2\"}", origin, 201);
    CU_ASSERT(!engine_has(s, "xt1"));
}

static void test_cross_site(void)
{
    run_with_server("xsite", 0, body_cross_site);
    run_with_server("xsite-tok", 1, body_cross_site_tokens);
}

/* A queue body with n made-up resource names (example.com/<tag>-<i>) in deserved, capability and
 * guarantee, 64 at most in each. */
static char *names_body(const char *name, const char *parent, const char *tag, int n)
{
    size_t cap = 64 + (size_t)n * 48;
    char *b = malloc(cap);
    REQUIRE(b != NULL);
    size_t k = (size_t)snprintf(b, cap, "{\"name\":\"%s\",\"parent\":\"%s\"", name, parent);
    static const char *const maps[] = {"deserved", "capability", "guarantee"};
    for (int m = 0; m < 3 && m * 64 < n; m++) {
        k += (size_t)snprintf(b + k, cap - k, ",\"%s\":{", maps[m]);
        for (int i = m * 64; i < n && i < (m + 1) * 64; i++)
            k += (size_t)snprintf(b + k, cap - k, "%s\"example.com/%s-%d\":\"1\"",
                                  i == m * 64 ? "" : ",", tag, i);
        k += (size_t)snprintf(b + k, cap - k, "}");
    }
    snprintf(b + k, cap - k, "}");
    return b;
}

static long metric_value(struct srv *s, const char *family)
{
    struct resp r;
    long v = -1;
    char key[96];
    snprintf(key, sizeof(key), "\n%s ", family);
    if (http(s, "GET", "/metrics", NULL, NULL, 0, NULL, &r) == 200 && r.body) {
        const char *p = strstr(r.body, key);
        if (p)
            v = strtol(p + strlen(key), NULL, 10);
    }
    resp_free(&r);
    return v;
}

static void body_resnames(struct srv *s)
{
    /* Six refused requests with 192 made-up names each leave none of them behind. */
    long before = metric_value(s, "muster_resource_names");
    CU_ASSERT(before >= 0 && before < 16);
    for (int i = 0; i < 6; i++) {
        char tag[16];
        snprintf(tag, sizeof(tag), "junk%d", i);
        char *b = names_body("junk", "no-such-parent", tag, 192);
        expect(s, "POST", "/api/v1/queues", TOK_ADMIN, b, NULL, 422);
        free(b);
    }
    CU_ASSERT_EQUAL(metric_value(s, "muster_resource_names"), before);
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN,
           "{\"name\":\"gpus\",\"deserved\":{\"intel.com/gpu\":\"2\"}}", NULL, 201);
    struct resp r;
    CU_ASSERT_EQUAL(http(s, "GET", "/readyz", NULL, NULL, 0, NULL, &r), 200);
    CU_ASSERT_STRING_EQUAL(r.body ? r.body : "", "ok\n");
    resp_free(&r);
    CU_ASSERT_EQUAL(metric_value(s, "muster_resource_names_refused_total"), 0);
    /* Committed names do fill the table; then a new one is refused, and said so. */
    int full = 0;
    for (int i = 0; i < 20 && !full; i++) {
        char name[16], tag[16];
        snprintf(name, sizeof(name), "fill%d", i);
        snprintf(tag, sizeof(tag), "f%d", i);
        char *b = names_body(name, "root", tag, 64);
        long st = http(s, "POST", "/api/v1/queues", TOK_ADMIN, b, -1, NULL, &r);
        if (st == 422) {
            full = 1;
            CU_ASSERT(r.body && strstr(r.body, "too many distinct resource names"));
        } else {
            CU_ASSERT_EQUAL(st, 201);
        }
        resp_free(&r);
        free(b);
    }
    CU_ASSERT(full);
    CU_ASSERT(metric_value(s, "muster_resource_names_refused_total") >= 1);
    /* the refused queue's own names were rolled back with it */
    long known = metric_value(s, "muster_resource_names");
    CU_ASSERT(known > QUEUE_RESNAMES_MAX - 64 && known <= QUEUE_RESNAMES_MAX);
    CU_ASSERT_EQUAL(metric_value(s, "muster_resource_names_max"), QUEUE_RESNAMES_MAX);
    CU_ASSERT_EQUAL(http(s, "GET", "/readyz", NULL, NULL, 0, NULL, &r), 200);
    CU_ASSERT(r.body && strstr(r.body, "ok, degraded:") && strstr(r.body, "the resource name table is full"));
    resp_free(&r);
    /* Known names still work. */
    expect(s, "POST", "/api/v1/queues", TOK_ADMIN,
           "{\"name\":\"gpus2\",\"deserved\":{\"intel.com/gpu\":\"1\"}}", NULL, 201);
}

static void test_resnames(void)
{
    run_with_server("resnames", 1, body_resnames);
}

/* Issue 23, item 1: a drain cuts what clients hold open, whatever the idle timeout. */
static int held[3];

static int raw_connect(struct srv *s, const char *bytes)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    if (bytes)
        REQUIRE(write(fd, bytes, strlen(bytes)) == (ssize_t)strlen(bytes));
    return fd;
}

/* 1 when the server closed fd (EOF or a reset, after whatever it still sent), 0 when a 5 s read
 * timed out. */
static int closed_by_peer(int fd)
{
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[1024];
    ssize_t n = read(fd, buf, sizeof(buf));
    while (n > 0)
        n = read(fd, buf, sizeof(buf));
    return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

static void drain_fn(struct srv *s, void *arg)
{
    (void)arg;
    api_server_drain(s->api, 200);
}

static void body_drain(struct srv *s)
{
    /* a keep-alive connection after one request, one that sent nothing, one mid-body */
    body_idle_connection(s);
    held[0] = raw_connect(s, NULL);
    held[1] = raw_connect(s, "POST /api/v1/queues HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                             "application/json\r\nContent-Length: 100\r\n\r\n{\"name\":");
    held[2] = raw_connect(s, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    char buf[512];
    REQUIRE(read(held[2], buf, sizeof(buf)) > 0); /* answered; the connection stays */
    usleep(50000);
    on_loop(s, drain_fn, NULL);
    /* past the deadline, a new connection is closed at once */
    usleep(400000);
    int late = raw_connect(s, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    CU_ASSERT(closed_by_peer(late));
    close(late);
}

static void test_drain(void)
{
    next_idle_ms = 60000; /* without the drain, the close would wait a minute */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_with_server("drain", 0, body_drain);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    next_idle_ms = 0;
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    if (ms >= 5000)
        fprintf(stderr, "drain: the server closed after %ld ms\n", ms);
    CU_ASSERT(ms < 5000);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT(closed_by_peer(held[i])); /* cut by the server */
        close(held[i]);
    }
}

static CU_TestInfo tests[] = {
    {"/readyz names missing hub prerequisites, stays ready", test_readyz_degraded},
    {"start, refuse and close", test_start_and_close},
    {"tokens: spaces and tabs trimmed on both sides", test_token_trim},
    {"CRUD round trip, If-Match, merge patch, audit", test_crud_round_trip},
    {"delete refused with children or work", test_delete_refused},
    {"queue list: snapshot, ETag, 304, gzip, no stale read", test_list_snapshot},
    {"a restart reads the same queues back", test_restart_reads_the_store},
    {"validation errors name the field", test_validation},
    {"authorization matrix changes nothing when refused", test_authz_matrix},
    {"token scopes: a subtree's token changes only its subtree", test_scope_matrix},
    {"bindings: list by queue and state, positions, reasons, history", test_bindings},
    {"a store failure changes nothing", test_store_failure_changes_nothing},
    {"allocation failures: all or nothing, still serving", test_allocation_failures},
    {"close waits out an idle keep-alive connection", test_close_with_idle_connection},
    {"HTTP/2 (h2c, prior knowledge)", test_http2},
    {"TLS: HTTPS only, ALPN h2, client certificates", test_tls},
    {"metrics: Prometheus text checked against the engine", test_metrics},
    {"metrics: a registry in api_ctx is rendered after the queue gauges", test_metrics_registry},
    {"rate limit: 429 with Retry-After, probes exempt", test_rate_limit},
    {"bad input is a clear 4xx and the server still serves", test_bad_input},
    {"every served route is in the OpenAPI document", test_openapi_covers_routes},
    {"reclaimable, preemption, status.lent and preemptions", test_reclaim_fields},
    {"events: reset, resume, live, token in the query, close ends streams",
     test_events_and_clusters},
    {"dashboard files: ETag, 304, 404", test_dashboard_files},
    {"event streams: a slow client is cut, at most API_SSE_STREAMS_MAX", test_stream_limits},
    {"PATCH clusters/{name}: gangDialect override, who, what, audit, restart",
     test_cluster_dialect},
    {"merge patch follows RFC 7386", test_merge_patch_rfc7386},
    {"body decoder limits and defaults", test_body_decoder},
    {"HTTP/1 framing: two lengths or a length and chunks are a 400 and a close", test_smuggling},
    {"a path segment with an escaped NUL is a 400", test_nul_path},
    {"cross-site writes: JSON only, Host and Origin without tokens, nosniff, 413", test_cross_site},
    {"refused requests leave no resource name behind; a full table is said", test_resnames},
    {"a drain cuts held connections at its deadline", test_drain},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/api", tests)
