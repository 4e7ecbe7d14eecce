/* Tests for dispatcher/reqguard.c: the pure rules on bytes (HTTP/1 framing, media types, Host
 * and Origin, path segments). The same rules over real sockets are in test_api.c. */
#include "dispatcher/reqguard.h"
#include "testing.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

static int framing(const char *head, int http10)
{
    struct api_error e = {0};
    int rc = api_guard_framing(head, strlen(head), http10, &e);
    if (rc)
        CU_ASSERT(e.status == 400 && e.msg[0] && e.reason[0]);
    return rc;
}

static void test_framing(void)
{
    const char *line = "POST /api/v1/queues HTTP/1.1\r\nhost: x\r\n";
    char buf[512];
    static const struct {
        const char *fields;
        int http10, want;
    } cases[] = {
        {"", 0, 0},
        {"content-length: 12\r\n", 0, 0},
        {"Transfer-Encoding: chunked\r\n", 0, 0},
        {"transfer-encoding:  Chunked \r\n", 0, 0},
        {"content-length: 12\r\ncontent-length: 0\r\n", 0, 400},
        {"content-length: 12\r\ncontent-length: 12\r\n", 0, 400},
        {"content-length: 12, 12\r\n", 0, 400},
        {"content-length: -1\r\n", 0, 400},
        {"content-length: 4\r\ntransfer-encoding: chunked\r\n", 0, 400},
        {"transfer-encoding: chunked\r\ncontent-length: 4\r\n", 0, 400},
        {"transfer-encoding: chunked\r\ntransfer-encoding: chunked\r\n", 0, 400},
        {"transfer-encoding: gzip, chunked\r\n", 0, 400},
        {"transfer-encoding: chunked\r\n", 1, 400},
        {"x-a: 1\r\n folded\r\n", 0, 400},
        {"content-length : 5\r\n", 0, 400},
        {"x-empty:\r\n", 0, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(buf, sizeof(buf), "%s%s\r\nbody: content-length: 1\r\n", line, cases[i].fields);
        int got = framing(buf, cases[i].http10);
        if (got != cases[i].want)
            fprintf(stderr, "framing case %zu: want %d, got %d\n", i, cases[i].want, got);
        CU_ASSERT_EQUAL(got, cases[i].want);
    }
    /* what follows the empty line is body, not fields */
    CU_ASSERT_EQUAL(framing("GET / HTTP/1.1\r\n\r\ncontent-length: 1\r\ncontent-length: 2\r\n", 0),
                    0);
    CU_ASSERT_EQUAL(framing("GET / HTTP/1.1\nContent-Length: 1\nContent-Length: 1\n\n", 0), 400);
    CU_ASSERT_EQUAL(framing("", 0), 0);
    CU_ASSERT_EQUAL(framing("GET", 0), 0);
}

static void test_json_type(void)
{
    static const char *const ok[] = {"application/json", "Application/JSON",
                                     "application/json; charset=utf-8",
                                     "application/merge-patch+json", " application/json ;x=y"};
    static const char *const bad[] = {"text/plain",
                                      "application/x-www-form-urlencoded",
                                      "multipart/form-data; boundary=x",
                                      "application/jsonx",
                                      "application/json-patch+json",
                                      "",
                                      "text/plain; application/json"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        CU_ASSERT(api_guard_json_type(ok[i], strlen(ok[i])));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CU_ASSERT(!api_guard_json_type(bad[i], strlen(bad[i])));
}

static int host(const char *h, const char *listen, int port)
{
    return api_guard_host_ok(h, strlen(h), listen, port);
}

static int origin(const char *o, const char *listen, int port)
{
    return api_guard_origin_ok(o, strlen(o), listen, port);
}

static void test_host_origin(void)
{
    CU_ASSERT(host("127.0.0.1:8080", "127.0.0.1", 8080));
    CU_ASSERT(host("127.0.0.1", "127.0.0.1", 8080));
    CU_ASSERT(host("localhost:8080", "127.0.0.1", 8080));
    CU_ASSERT(host("LocalHost", "127.0.0.1", 8080));
    CU_ASSERT(host("[::1]:8080", "::1", 8080));
    CU_ASSERT(!host("127.0.0.1:8081", "127.0.0.1", 8080));
    CU_ASSERT(!host("evil.example", "127.0.0.1", 8080));
    CU_ASSERT(!host("evil.example:8080", "127.0.0.1", 8080));
    CU_ASSERT(!host("localhost.evil.example:8080", "127.0.0.1", 8080));
    CU_ASSERT(!host("127.0.0.1.nip.io:8080", "127.0.0.1", 8080));
    CU_ASSERT(!host("::1", "::1", 8080)); /* IPv6 only in brackets */
    CU_ASSERT(!host("[::1", "::1", 8080));
    CU_ASSERT(!host("[::1]x", "::1", 8080));
    CU_ASSERT(!host("", "127.0.0.1", 8080));
    CU_ASSERT(!host(":8080", "127.0.0.1", 8080));
    CU_ASSERT(!host("127.0.0.1:", "127.0.0.1", 8080));
    CU_ASSERT(!host("127.0.0.1:999999", "127.0.0.1", 8080));
    CU_ASSERT(origin("http://127.0.0.1:8080", "127.0.0.1", 8080));
    CU_ASSERT(origin("https://localhost:8080", "127.0.0.1", 8080));
    CU_ASSERT(!origin("http://evil.example", "127.0.0.1", 8080));
    CU_ASSERT(!origin("null", "127.0.0.1", 8080));
    CU_ASSERT(!origin("file://", "127.0.0.1", 8080));
    CU_ASSERT(!origin("http://127.0.0.1:8080/x", "127.0.0.1", 8080));
    CU_ASSERT(!origin("http://", "127.0.0.1", 8080));
    const char *h = "muster.example:443";
    CU_ASSERT(api_guard_origin_same("https://Muster.example:443", 26, h, strlen(h)));
    CU_ASSERT(!api_guard_origin_same("https://evil.example:443", 24, h, strlen(h)));
    CU_ASSERT(!api_guard_origin_same("https://muster.example", 22, h, strlen(h)));
}

static int raw(const char *p)
{
    return api_guard_raw_path(p, strlen(p));
}

static void test_path_segment(void)
{
    CU_ASSERT(raw("/api/v1/queues/team-a"));
    CU_ASSERT(raw("/api/v1/queues/a.b"));
    CU_ASSERT(raw("/api/v1/queues/...")); /* three dots are a name, not a dot segment */
    CU_ASSERT(raw("/"));
    CU_ASSERT(raw("/dashboard/app.js"));
    CU_ASSERT(!raw("/api/v1/queues/..%2Faudit"));
    CU_ASSERT(!raw("/api/v1/queues/..%2faudit"));
    CU_ASSERT(!raw("/api/v1/queues/a%2Fb"));
    CU_ASSERT(!raw("/api/v1/queues/../audit"));
    CU_ASSERT(!raw("/api/v1/queues/./x"));
    CU_ASSERT(!raw("/api/v1/queues/.."));
    CU_ASSERT(!raw("/api/v1/queues/%2e%2E/audit"));
    CU_ASSERT(!raw("/api/v1/queues/.%2e"));
    CU_ASSERT(raw("/api/v1/queues/a%2"));
    CU_ASSERT(raw("/api/v1/queues/a%"));
    CU_ASSERT(api_guard_path_segment("nul-victim", 10));
    CU_ASSERT(!api_guard_path_segment("nul-victim\0zzz", 14));
    CU_ASSERT(!api_guard_path_segment("a\nb", 3));
    CU_ASSERT(!api_guard_path_segment("a\x7f", 2));
    CU_ASSERT(api_guard_path_segment("caf\xc3\xa9", 5)); /* refused later as a name, not here */
}

static void key6(const char *addr, unsigned char key[API_GUARD_KEY_LEN])
{
    struct sockaddr_in6 a = {.sin6_family = AF_INET6};
    CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET6, addr, &a.sin6_addr), 1);
    CU_ASSERT(api_guard_client_key((struct sockaddr *)&a, key));
}

static void test_client_key(void)
{
    unsigned char a[API_GUARD_KEY_LEN], b[API_GUARD_KEY_LEN], c[API_GUARD_KEY_LEN];
    /* one /64 is one client: a host picks any address in it */
    key6("2001:db8:1:2::1", a);
    key6("2001:db8:1:2:ffff:eeee:dddd:cccc", b);
    key6("2001:db8:1:3::1", c);
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
    CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
    /* IPv4 by the full address; an IPv4-mapped IPv6 address is the same client */
    struct sockaddr_in v4 = {.sin_family = AF_INET};
    inet_pton(AF_INET, "192.0.2.7", &v4.sin_addr);
    CU_ASSERT(api_guard_client_key((struct sockaddr *)&v4, a));
    key6("::ffff:192.0.2.7", b);
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
    inet_pton(AF_INET, "192.0.2.8", &v4.sin_addr);
    api_guard_client_key((struct sockaddr *)&v4, c);
    CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
    struct sockaddr un = {.sa_family = AF_UNIX};
    CU_ASSERT(!api_guard_client_key(&un, a));
}

static CU_TestInfo tests[] = {
    {"client keys: IPv6 by its /64", test_client_key},
    {"HTTP/1 framing per RFC 9112", test_framing},
    {"write media types", test_json_type},
    {"Host and Origin", test_host_origin},
    {"path segments", test_path_segment},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/reqguard", tests)
