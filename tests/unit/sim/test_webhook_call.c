/* Tests for cluster-adapters/sim/webhook_call.c: a registered MutatingWebhookConfiguration is
 * called on the detector's RB creates (as the karmada-apiserver's mutating admission plugin
 * calls it), its JSONPatch applied; failurePolicy Fail refuses the create, Ignore stores it
 * unpatched; timeoutSeconds bounds the call. The webhook is a plain HTTP server on a thread. */
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/webhook_call.h"
#include "karmada_fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

enum answer { ANSWER_PATCH, ANSWER_DENY, ANSWER_SLOW };

struct server {
    int fd, port;
    enum answer answer;
    int calls;
    char path[256];
    char op[32];
    pthread_t thread;
};

static const char patch_b64_source[] =
    "[{\"op\":\"add\",\"path\":\"/spec/suspension\",\"value\":{\"scheduling\":true}},"
    "{\"op\":\"add\",\"path\":\"/metadata/labels/held-by\",\"value\":\"webhook\"}]";

/* Standard base64 (the AdmissionReview's patch field). */
static void b64(const char *in, char *out, size_t cap)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), o = 0;
    for (size_t i = 0; i < n && o + 4 < cap; i += 3) {
        unsigned v = (unsigned char)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)in[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)in[i + 2];
        out[o++] = a[(v >> 18) & 63];
        out[o++] = a[(v >> 12) & 63];
        out[o++] = i + 1 < n ? a[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? a[v & 63] : '=';
    }
    out[o] = '\0';
}

/* One request at a time: read headers and Content-Length bytes, answer the AdmissionReview. */
static void *serve(void *arg)
{
    struct server *s = arg;
    for (;;) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        static char buf[1 << 16];
        size_t len = 0;
        char *body = NULL;
        long want = -1;
        while (len < sizeof(buf) - 1) {
            ssize_t r = read(c, buf + len, sizeof(buf) - 1 - len);
            if (r <= 0)
                break;
            len += (size_t)r;
            buf[len] = '\0';
            char *end = strstr(buf, "\r\n\r\n");
            if (end && want < 0) {
                char *cl = strcasestr(buf, "content-length:");
                want = cl ? strtol(cl + 15, NULL, 10) : 0;
                body = end + 4;
            }
            if (body && (long)(len - (size_t)(body - buf)) >= want)
                break;
        }
        s->calls++;
        sscanf(buf, "%31s %255s", s->op, s->path);
        json_object *rev = body ? json_tokener_parse(body) : NULL;
        char uid[64];
        snprintf(uid, sizeof(uid), "%.63s", fx_at(rev, "request|uid"));
        char resp[8192], enc[1024], json[4096];
        if (s->answer == ANSWER_SLOW)
            sleep(2);
        b64(patch_b64_source, enc, sizeof(enc));
        if (s->answer == ANSWER_DENY)
            snprintf(json, sizeof(json),
                     "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                     "\"response\":{\"uid\":\"%s\",\"allowed\":false,\"status\":{\"message\":"
                     "\"no\"}}}",
                     uid);
        else
            snprintf(json, sizeof(json),
                     "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                     "\"response\":{\"uid\":\"%s\",\"allowed\":true,\"patchType\":\"JSONPatch\","
                     "\"patch\":\"%s\"}}",
                     uid, enc);
        json_object_put(rev);
        int n = snprintf(resp, sizeof(resp),
                         "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                         "%zu\r\nConnection: close\r\n\r\n%s",
                         strlen(json), json);
        if (write(c, resp, (size_t)n) < 0)
            perror("write");
        close(c);
    }
}

static void server_start(struct server *s, enum answer a)
{
    signal(SIGPIPE, SIG_IGN); /* the slow answer goes to a caller that gave up */
    memset(s, 0, sizeof(*s));
    s->answer = a;
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CU_ASSERT_EQUAL_FATAL(bind(s->fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    socklen_t alen = sizeof(addr);
    getsockname(s->fd, (struct sockaddr *)&addr, &alen);
    s->port = ntohs(addr.sin_port);
    listen(s->fd, 8);
    pthread_create(&s->thread, NULL, serve, s);
}

static void server_stop(struct server *s)
{
    shutdown(s->fd, SHUT_RDWR);
    close(s->fd);
    pthread_join(s->thread, NULL);
}

static const char yaml[] =
    "clusters:\n"
    "  - name: m\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"10\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]}\n";

struct hub {
    struct fx f;
    uv_loop_t loop;
    struct sim_webhooks *w;
};

static int admit(void *data, const char *ns, json_object *obj, sim_karmada_admitted_cb done,
                 void *done_data)
{
    struct hub *h = data;
    return sim_webhooks_admit_create(h->w, FX_RB, ns, obj, done, done_data);
}

static void hub_start(struct hub *h, int port, const char *policy, int timeout)
{
    fx_start(&h->f, yaml, NULL);
    CU_ASSERT_EQUAL_FATAL(uv_loop_init(&h->loop), 0);
    CU_ASSERT_EQUAL_FATAL(sim_webhooks_new(&h->loop, h->f.s, &h->w), 0);
    sim_karmada_set_binding_admission(h->f.k, admit, h);
    char mwc[1024];
    snprintf(mwc, sizeof(mwc),
             "{\"metadata\":{\"name\":\"muster\"},\"webhooks\":[{\"name\":\"rb.muster.io\","
             "\"clientConfig\":{\"url\":\"http://127.0.0.1:%d/admission/resourcebindings\"},"
             "\"rules\":[{\"apiGroups\":[\"work.karmada.io\"],\"apiVersions\":[\"v1alpha2\"],"
             "\"operations\":[\"CREATE\"],\"resources\":[\"resourcebindings\"]}],"
             "\"failurePolicy\":\"%s\",\"timeoutSeconds\":%d,\"sideEffects\":\"None\","
             "\"admissionReviewVersions\":[\"v1\"]}]}",
             port, policy, timeout);
    CU_ASSERT_EQUAL(
        fx_create(&h->f,
                  fx_res("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"),
                  NULL, mwc),
        0);
}

/* Creates the Deployment and runs the loop until the admission is over. */
static void create_and_wait(struct hub *h)
{
    CU_ASSERT_EQUAL(fx_create(&h->f, FX_DEPLOY, "team",
                              "{\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":1,"
                              "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}}"),
                    0);
    uv_run(&h->loop, UV_RUN_DEFAULT);
}

static void hub_stop(struct hub *h)
{
    sim_webhooks_shutdown(h->w);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    sim_webhooks_free(h->w);
    CU_ASSERT_EQUAL(uv_loop_close(&h->loop), 0);
    fx_stop(&h->f);
}

static void test_patch_applied(void)
{
    struct server s;
    server_start(&s, ANSWER_PATCH);
    struct hub h;
    hub_start(&h, s.port, "Fail", 5);
    create_and_wait(&h);
    CU_ASSERT_EQUAL(s.calls, 1);
    CU_ASSERT_STRING_EQUAL(s.op, "POST");
    CU_ASSERT_STRING_EQUAL(s.path, "/admission/resourcebindings");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&h.f, FX_RB, "team", "web-deployment", "metadata|labels|held-by"), "webhook");
    CU_ASSERT_STRING_EQUAL(fx_field(&h.f, FX_RB, "team", "web-deployment", "spec|suspension"),
                           "{\"scheduling\":true}");
    hub_stop(&h);
    server_stop(&s);
}

static void test_denied_and_failures(void)
{
    /* allowed: false refuses whatever the policy. */
    struct server s;
    server_start(&s, ANSWER_DENY);
    struct hub h;
    hub_start(&h, s.port, "Ignore", 5);
    create_and_wait(&h);
    CU_ASSERT_EQUAL(s.calls, 1);
    CU_ASSERT_EQUAL(sim_store_get(h.f.s, FX_RB, "team", "web-deployment", NULL, NULL),
                    MUSTER_ENOENT);
    hub_stop(&h);
    server_stop(&s);

    /* Nothing listens: Fail refuses, Ignore stores the RB unpatched. */
    server_start(&s, ANSWER_PATCH);
    int dead = s.port;
    server_stop(&s);
    hub_start(&h, dead, "Fail", 5);
    create_and_wait(&h);
    CU_ASSERT_EQUAL(sim_store_get(h.f.s, FX_RB, "team", "web-deployment", NULL, NULL),
                    MUSTER_ENOENT);
    hub_stop(&h);
    hub_start(&h, dead, "Ignore", 5);
    create_and_wait(&h);
    CU_ASSERT_STRING_EQUAL(fx_field(&h.f, FX_RB, "team", "web-deployment", "spec|suspension"), "");
    CU_ASSERT_STRING_EQUAL(fx_field(&h.f, FX_RB, "team", "web-deployment", "metadata|name"),
                           "web-deployment");
    hub_stop(&h);

    /* timeoutSeconds: a webhook slower than that fails the call. */
    server_start(&s, ANSWER_SLOW);
    hub_start(&h, s.port, "Fail", 1);
    create_and_wait(&h);
    CU_ASSERT_EQUAL(sim_store_get(h.f.s, FX_RB, "team", "web-deployment", NULL, NULL),
                    MUSTER_ENOENT);
    hub_stop(&h);
    server_stop(&s);
}

static CU_TestInfo tests[] = {
    {"the webhook's JSONPatch is applied before the RB is stored", test_patch_applied},
    {"denials, failurePolicy Fail and Ignore, timeoutSeconds", test_denied_and_failures},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/webhook_call", tests)
