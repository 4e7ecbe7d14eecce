/* Tests for cluster-adapters/sim/server.c over real loopback sockets: bearer tokens, injected
 * 500/429 with Retry-After, latency, watches cut after N events, watch timeouts, and an
 * orderly shutdown that leaves no live handle on the loop. */
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/server.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "testing.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

struct harness {
    uv_loop_t loop;
    uv_async_t stop;
    struct sim_store *store;
    struct sim_server *server;
    int port;
    void (*client)(struct harness *h);
    int keepalive_fd;           /* a connection the client leaves open across shutdown, or -1 */
    const char *keepalive_tail; /* what the server still sends on it before closing */
};

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static size_t read_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n == cap - 1)
            break;
    }
    buf[n] = '\0';
    return n;
}

/* One request on its own connection ("Connection: close"); the whole raw response in buf. */
static void http(int port, const char *method, const char *path, const char *extra_headers,
                 char *buf, size_t cap)
{
    int fd = dial(port);
    CU_ASSERT_FATAL(fd >= 0);
    char req[1024];
    int n = snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: sim\r\nConnection: close\r\n%s\r\n",
                     method, path, extra_headers ? extra_headers : "");
    CU_ASSERT_EQUAL(write(fd, req, (size_t)n), n);
    read_all(fd, buf, cap);
    close(fd);
}

/* The same with a JSON body of content type ctype. */
static void http_body(int port, const char *method, const char *path, const char *ctype,
                      const char *body, char *buf, size_t cap)
{
    char headers[256];
    snprintf(headers, sizeof(headers), "Content-Type: %s\r\nContent-Length: %zu\r\n", ctype,
             strlen(body));
    int fd = dial(port);
    CU_ASSERT_FATAL(fd >= 0);
    char req[4096];
    int n =
        snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: sim\r\nConnection: close\r\n%s\r\n%s",
                 method, path, headers, body);
    CU_ASSERT_EQUAL(write(fd, req, (size_t)n), n);
    read_all(fd, buf, cap);
    close(fd);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void on_stop(uv_async_t *a)
{
    struct harness *h = a->data;
    sim_server_shutdown(h->server, NULL, NULL);
    uv_close((uv_handle_t *)a, NULL);
}

static void *client_main(void *p)
{
    struct harness *h = p;
    h->client(h);
    uv_async_send(&h->stop);
    return NULL;
}

static void run(struct sim_server_config *cfg, void (*client)(struct harness *h))
{
    struct harness h;
    memset(&h, 0, sizeof(h));
    h.keepalive_fd = -1;
    h.client = client;
    CU_ASSERT_EQUAL_FATAL(uv_loop_init(&h.loop), 0);
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &h.store), 0);
    const struct sim_resource *ns = sim_resource_find("", 0, "v1", 2, "namespaces", 10);
    static const char *const names[] = {"default", "a", "b", "c"};
    for (size_t i = 0; i < 4; i++) {
        char body[128];
        snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\"}}", names[i]);
        json_object *o = json_tokener_parse(body);
        CU_ASSERT_EQUAL(sim_store_create(h.store, ns, NULL, o, 0, 0, NULL, NULL), 0);
        json_object_put(o);
    }
    cfg->host = "127.0.0.1";
    cfg->port = 0;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(sim_server_new(&h.loop, cfg, h.store, &h.server, err, sizeof(err)), 0);
    h.port = sim_server_port(h.server);
    CU_ASSERT(h.port > 0);
    uv_async_init(&h.loop, &h.stop, on_stop);
    h.stop.data = &h;
    pthread_t t;
    pthread_create(&t, NULL, client_main, &h);
    uv_run(&h.loop, UV_RUN_DEFAULT);
    pthread_join(t, NULL);
    if (h.keepalive_fd >= 0) {
        /* The server finished what was in flight, then closed the connection: read_all
         * returns at EOF. */
        static char buf[8192];
        read_all(h.keepalive_fd, buf, sizeof(buf));
        if (!strstr(buf, h.keepalive_tail))
            fprintf(stderr, "tail: %s\n", buf);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, h.keepalive_tail));
        close(h.keepalive_fd);
    }
    /* Every handle closed: the loop closes. */
    CU_ASSERT_EQUAL(uv_loop_close(&h.loop), 0);
    sim_server_free(h.server);
    sim_store_free(h.store);
}

static void client_token(struct harness *h)
{
    static char buf[8192];
    http(h->port, "GET", "/api/v1/namespaces", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 401"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"reason\":\"Unauthorized\""));
    http(h->port, "GET", "/api/v1/namespaces", "Authorization: Bearer wrong\r\n", buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 401"));
    http(h->port, "GET", "/api/v1/namespaces", "Authorization: Bearer s3cret\r\n", buf,
         sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"kind\":\"NamespaceList\""));
    http(h->port, "GET", "/healthz", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
}

static void test_token(void)
{
    struct sim_server_config cfg = {.token = "s3cret"};
    run(&cfg, client_token);
}

static void client_faults(struct harness *h)
{
    static char buf[8192];
    int n429 = 0, n500 = 0;
    for (int i = 0; i < 20; i++) {
        http(h->port, "GET", "/api/v1/namespaces/default", NULL, buf, sizeof(buf));
        if (strstr(buf, "HTTP/1.1 429")) {
            n429++;
            CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\nretry-after: 1\r\n"));
            CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"reason\":\"TooManyRequests\""));
            CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"retryAfterSeconds\":1"));
        } else if (strstr(buf, "HTTP/1.1 500")) {
            n500++;
            CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"reason\":\"InternalError\""));
        }
    }
    CU_ASSERT_EQUAL(n429 + n500, 20);
    CU_ASSERT(n429 > 0 && n500 > 0);
    /* Discovery and health are never failed: clients must be able to start. */
    http(h->port, "GET", "/healthz", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    http(h->port, "GET", "/apis", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
}

static void test_fault_errors(void)
{
    struct sim_server_config cfg = {.fault_error_rate = 1.0, .seed = 7};
    run(&cfg, client_faults);
}

static void client_latency(struct harness *h)
{
    static char buf[8192];
    double t0 = now_ms();
    http(h->port, "GET", "/api/v1/namespaces/default", NULL, buf, sizeof(buf));
    /* libuv timers have millisecond granularity. */
    CU_ASSERT(now_ms() - t0 >= 199);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"name\":\"default\""));
    /* A request still delayed when the server stops is answered 503, not dropped. */
    h->keepalive_fd = dial(h->port);
    h->keepalive_tail = "\"message\":\"the server is shutting down\"";
    const char req[] = "GET /api/v1/namespaces/a HTTP/1.1\r\nHost: sim\r\n\r\n";
    CU_ASSERT_EQUAL(write(h->keepalive_fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
    usleep(50 * 1000);
}

static void test_fault_latency_and_shutdown(void)
{
    struct sim_server_config cfg = {.fault_latency_ms = 200};
    run(&cfg, client_latency);
}

static void client_drop_watch(struct harness *h)
{
    static char buf[16384];
    /* Four namespaces were created at 1001..1004: a watch from 1000 replays them and is cut
     * after two, ending the chunked stream cleanly so the client resumes from 1002. */
    http(h->port, "GET", "/api/v1/namespaces?watch=true&resourceVersion=1000", NULL, buf,
         sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "transfer-encoding: chunked"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"resourceVersion\":\"1001\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"resourceVersion\":\"1002\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"resourceVersion\":\"1003\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\n0\r\n\r\n"));
    /* The next watcher's first event carries the object the last one ended with: it is sent
     * from the serialization kept for it, and the one after is serialized afresh. */
    http(h->port, "GET", "/api/v1/namespaces?watch=true&resourceVersion=1001", NULL, buf,
         sizeof(buf));
    const char *first = strstr(buf, "{\"type\":\"ADDED\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "\"resourceVersion\":\"1002\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "\"resourceVersion\":\"1003\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"resourceVersion\":\"1001\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"resourceVersion\":\"1004\""));
    http(h->port, "GET", "/api/v1/namespaces?watch=true&resourceVersion=1002", NULL, buf,
         sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"resourceVersion\":\"1003\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"resourceVersion\":\"1004\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"resourceVersion\":\"1002\""));
    /* timeoutSeconds ends a quiet watch. */
    double t0 = now_ms();
    http(h->port, "GET", "/api/v1/namespaces?watch=1&resourceVersion=1004&timeoutSeconds=1", NULL,
         buf, sizeof(buf));
    double took = now_ms() - t0;
    CU_ASSERT(took >= 900 && took < 3000);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    /* A watch left open and an idle keep-alive connection do not hold up shutdown. */
    h->keepalive_fd = dial(h->port);
    h->keepalive_tail = "0\r\n\r\n"; /* the watch's final chunk */
    const char req[] = "GET /api/v1/namespaces?watch=1 HTTP/1.1\r\nHost: sim\r\n\r\n";
    CU_ASSERT_EQUAL(write(h->keepalive_fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
    usleep(100 * 1000);
    char head[4096];
    ssize_t r = read(h->keepalive_fd, head, sizeof(head) - 1);
    CU_ASSERT(r > 0);
    head[r > 0 ? r : 0] = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(head, "HTTP/1.1 200"));
}

static void test_drop_watch_and_timeout(void)
{
    struct sim_server_config cfg = {.fault_drop_watch_after = 2};
    run(&cfg, client_drop_watch);
}

/* client-go's metadata informers: PartialObjectMetadata for a get and a watch, a
 * PartialObjectMetadataList for a list; an Accept offering only the other form gets whole
 * objects, and so does a plain one. */
static void client_metadata(struct harness *h)
{
    static char buf[16384];
    static const char one[] = "Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;"
                              "v=v1,application/json\r\n";
    static const char list[] = "Accept: application/json;as=PartialObjectMetadataList;"
                               "g=meta.k8s.io;v=v1,application/json\r\n";
    http(h->port, "GET", "/api/v1/namespaces/a", one, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(buf, "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
                    "\"metadata\":{\"name\":\"a\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"spec\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"status\""));
    http(h->port, "GET", "/api/v1/namespaces?limit=2", list, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "{\"kind\":\"PartialObjectMetadataList\","));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"continue\":\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"items\":[{\"kind\":\"PartialObjectMetadata\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"kind\":\"Namespace\""));
    http(h->port, "GET", "/api/v1/namespaces?watch=1&resourceVersion=1002&timeoutSeconds=1", one,
         buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(buf, "{\"type\":\"ADDED\",\"object\":{\"kind\":\"PartialObjectMetadata\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"resourceVersion\":\"1003\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "\"kind\":\"Namespace\""));
    /* the list form asked of a get, the single form of a list: whole objects */
    http(h->port, "GET", "/api/v1/namespaces/a", list, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"kind\":\"Namespace\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "PartialObjectMetadata"));
    http(h->port, "GET", "/api/v1/namespaces", one, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"kind\":\"NamespaceList\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "PartialObjectMetadata"));
    http(h->port, "GET", "/api/v1/namespaces/a", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"kind\":\"Namespace\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "PartialObjectMetadata"));
}

static void test_metadata_only(void)
{
    struct sim_server_config cfg = {0};
    run(&cfg, client_metadata);
}

/* --no-podgroup-crd: a karmada-apiserver without Volcano's PodGroup CRD. Discovery lists
 * queues alone in scheduling.volcano.sh/v1beta1, and podgroups are 404 as any unknown path. */
static void client_no_crd(struct harness *h)
{
    static char buf[8192];
    http(h->port, "GET", "/apis/scheduling.volcano.sh/v1beta1", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"name\":\"queues\""));
    CU_ASSERT_PTR_NULL(strstr(buf, "podgroups"));
    http(h->port, "GET", "/apis/scheduling.volcano.sh/v1beta1/namespaces/a/podgroups", NULL, buf,
         sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 404"));
    http(h->port, "GET", "/apis/scheduling.volcano.sh/v1beta1/podgroups?watch=1", NULL, buf,
         sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 404"));
    http(h->port, "GET", "/apis/scheduling.volcano.sh/v1beta1/queues", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    http(h->port, "GET", "/openapi/v3/apis/scheduling.volcano.sh/v1beta1", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NULL(strstr(buf, "podgroups"));
}

static void test_no_podgroup_crd(void)
{
    struct sim_server_config cfg = {
        .hidden = ~sim_api_without(SIM_API_ALL, "scheduling.volcano.sh", "v1beta1", "podgroups")};
    run(&cfg, client_no_crd);
}

/* The scale subresource of Deployments and StatefulSets (kube-apiserver's ScaleREST): listed in
 * discovery under the Scale's group and version (what kubectl scale looks up), GET/PUT/PATCH,
 * 409 on a stale resourceVersion, 405 for other verbs, 404 for kinds without it. */
static void client_scale(struct harness *h)
{
    static char buf[16384];
    http(h->port, "GET", "/apis/apps/v1", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "{\"name\":\"deployments/scale\",\"singularName\":\"\","
                                       "\"namespaced\":true,\"group\":\"autoscaling\",\"version\":"
                                       "\"v1\",\"kind\":\"Scale\",\"verbs\":[\"get\",\"patch\","
                                       "\"update\"]}"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"name\":\"statefulsets/scale\""));
    http_body(h->port, "POST", "/apis/apps/v1/namespaces/a/deployments", "application/json",
              "{\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":2,\"selector\":"
              "{\"matchLabels\":{\"app\":\"web\"}}}}",
              buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 201"));
    http(h->port, "GET", "/apis/apps/v1/namespaces/a/deployments/web/scale", NULL, buf,
         sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"spec\":{\"replicas\":2},\"status\":{\"replicas\":0,"
                                       "\"selector\":\"app=web\"}"));
    http_body(h->port, "PATCH", "/apis/apps/v1/namespaces/a/deployments/web/scale",
              "application/merge-patch+json", "{\"spec\":{\"replicas\":5}}", buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"spec\":{\"replicas\":5}"));
    http(h->port, "GET", "/apis/apps/v1/namespaces/a/deployments/web", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"replicas\":5"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"generation\":2"));
    http_body(h->port, "PUT", "/apis/apps/v1/namespaces/a/deployments/web/scale",
              "application/json",
              "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\",\"metadata\":{\"name\":"
              "\"web\",\"resourceVersion\":\"1\"},\"spec\":{\"replicas\":1}}",
              buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 409"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"reason\":\"Conflict\""));
    http_body(h->port, "PUT", "/apis/apps/v1/namespaces/a/deployments/web/scale",
              "application/json", "{\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":1}}",
              buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"spec\":{\"replicas\":1}"));
    http(h->port, "DELETE", "/apis/apps/v1/namespaces/a/deployments/web/scale", NULL, buf,
         sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 405"));
    http(h->port, "GET", "/apis/apps/v1/namespaces/a/deployments/nope/scale", NULL, buf,
         sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 404"));
    http(h->port, "GET", "/apis/batch/v1/namespaces/a/jobs/x/scale", NULL, buf, sizeof(buf));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 404"));
}

static void test_scale(void)
{
    struct sim_server_config cfg = {0};
    run(&cfg, client_scale);
}

static CU_TestInfo tests[] = {
    {"bearer token", test_token},
    {"injected 500 and 429 with Retry-After", test_fault_errors},
    {"injected latency; shutdown answers delayed requests", test_fault_latency_and_shutdown},
    {"watch cut after N events, resumable; timeoutSeconds; shutdown", test_drop_watch_and_timeout},
    {"PartialObjectMetadata for metadata informers", test_metadata_only},
    {"a hub without the PodGroup CRD", test_no_podgroup_crd},
    {"the scale subresource of Deployments and StatefulSets", test_scale},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/server", tests)
