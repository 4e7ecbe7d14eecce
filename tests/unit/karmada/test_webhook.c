/* Tests for cluster-adapters/karmada/webhook.c: the AdmissionReview fixtures of
 * tests/fixtures/webhook answered, each returned patch decoded and applied with the simulator's RFC
 * 6902 code as the apiserver applies it (suspension held, dispatching and dispatchingOnClusters
 * kept, the result valid against the ResourceBinding CRD), the pass-through cases unpatched,
 * malformed reviews refused with a sentence naming what is wrong, and allocation failures reported,
 * never crashing. */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/karmada/webhook.h"
#include "cluster-adapters/karmada/workload.h"
#include "queue/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <openssl/evp.h>
#include <string.h>

static struct kube_schema *rb_schema;

static char *read_fixture(const char *name, size_t *len)
{
    char path[1024];
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(path, sizeof(path), "%s/tests/fixtures/webhook/%s.json", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char buf[KARMADA_WEBHOOK_REVIEW_MAX];
    *len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    char *copy = malloc(*len + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    memcpy(copy, buf, *len);
    copy[*len] = '\0';
    return copy;
}

static void valid(json_object *rb)
{
    if (!rb_schema) {
        char path[1024], err[512];
        const char *src = getenv("MUSTER_SOURCE_DIR");
        snprintf(path, sizeof(path),
                 "%s/tests/fixtures/reference/crds/karmada_work.karmada.io_resourcebindings.yaml",
                 src ? src : ".");
        CU_ASSERT_EQUAL_FATAL(kube_schema_load_crd(path, "v1alpha2", &rb_schema, err, sizeof(err)),
                              0);
    }
    struct kube_schema_errors errs;
    kube_schema_errors_init(&errs);
    int rc = kube_schema_validate(rb_schema, rb, &errs);
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "schema: %s\n", errs.msgs[i]);
    CU_ASSERT_EQUAL(rc, 0);
    kube_schema_errors_close(&errs);
}

static json_object *path(json_object *o, const char *const *keys)
{
    for (; *keys && o; keys++)
        if (!json_object_object_get_ex(o, *keys, &o))
            o = NULL;
    return o;
}
#define AT(o, ...) path((o), (const char *const[]){__VA_ARGS__, NULL})

static const char *jstr(json_object *o)
{
    return o && json_object_is_type(o, json_type_string) ? json_object_get_string(o) : NULL;
}

/* Decodes response.patch (base64 of a JSON patch) into a JSON array. */
static json_object *decode_patch(json_object *review)
{
    const char *b64 = jstr(AT(review, "response", "patch"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(b64);
    size_t n = strlen(b64);
    unsigned char *raw = calloc(1, n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(raw);
    int m = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n);
    CU_ASSERT_FATAL(m > 0);
    /* EVP_DecodeBlock counts padding as zero bytes; JSON text ends at the first NUL anyway. */
    json_object *p = json_tokener_parse((const char *)raw);
    free(raw);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_FATAL(json_object_is_type(p, json_type_array));
    return p;
}

/* Answers fixture name, checks the envelope, and returns the review (caller puts it). */
static json_object *answer(const char *name, enum karmada_webhook_verdict want, json_object **req)
{
    size_t len;
    char *body = read_fixture(name, &len);
    json_object *in = json_tokener_parse(body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    json_object *out = NULL;
    enum karmada_webhook_verdict v;
    char err[256];
    int rc = karmada_webhook_review(body, len, &out, &v, err, sizeof(err));
    if (rc)
        fprintf(stderr, "%s: %s\n", name, err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(v, want);
    CU_ASSERT_STRING_EQUAL(jstr(AT(out, "apiVersion")), "admission.k8s.io/v1");
    CU_ASSERT_STRING_EQUAL(jstr(AT(out, "kind")), "AdmissionReview");
    CU_ASSERT_STRING_EQUAL(jstr(AT(out, "response", "uid")), jstr(AT(in, "request", "uid")));
    json_object *allowed = AT(out, "response", "allowed");
    CU_ASSERT(allowed && json_object_get_boolean(allowed));
    free(body);
    *req = in;
    return out;
}

/* A held RB: the patch applied to the request's object holds scheduling and keeps the rest. */
static json_object *held(const char *name)
{
    json_object *in, *out = answer(name, KARMADA_WEBHOOK_HELD, &in);
    CU_ASSERT_STRING_EQUAL(jstr(AT(out, "response", "patchType")), "JSONPatch");
    json_object *patch = decode_patch(out);
    json_object *obj = AT(in, "request", "object");
    json_object *res = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(sim_json_patch(obj, patch, &res, err, sizeof(err)), 0);
    json_object *sched = AT(res, "spec", "suspension", "scheduling");
    CU_ASSERT(sched && json_object_is_type(sched, json_type_boolean) &&
              json_object_get_boolean(sched));
    valid(res);
    /* Nothing but spec.suspension.scheduling changed: take it out of both and compare. */
    json_object *before = NULL;
    CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(obj, &before, NULL), 0);
    json_object_object_del(AT(res, "spec", "suspension"), "scheduling");
    if (AT(before, "spec", "suspension"))
        json_object_object_del(AT(before, "spec", "suspension"), "scheduling");
    json_object *s_after = AT(res, "spec", "suspension");
    if (s_after && json_object_object_length(s_after) == 0 && !AT(before, "spec", "suspension"))
        json_object_object_del(AT(res, "spec"), "suspension");
    CU_ASSERT(json_object_equal(before, res));
    json_object_put(before);
    json_object_put(res);
    json_object_put(patch);
    json_object_put(out);
    return in;
}

static void test_hold_without_suspension(void)
{
    json_object *in, *out = answer("create-deployment", KARMADA_WEBHOOK_HELD, &in);
    json_object *patch = decode_patch(out);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(
                               patch, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
                           "[{\"op\":\"add\",\"path\":\"/spec/suspension\","
                           "\"value\":{\"scheduling\":true}}]");
    json_object_put(patch);
    json_object_put(out);
    json_object_put(in);
    json_object_put(held("create-deployment"));
}

static void test_hold_keeps_dispatching(void)
{
    json_object *in = held("create-job-suspended");
    json_object_put(in);
    in = held("create-pod-unsuspended");
    json_object_put(in);
    /* The exact patch: only the scheduling member is added, the object is not replaced. */
    json_object *out = answer("create-job-suspended", KARMADA_WEBHOOK_HELD, &in);
    json_object *patch = decode_patch(out);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(
                               patch, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
                           "[{\"op\":\"add\",\"path\":\"/spec/suspension/scheduling\","
                           "\"value\":true}]");
    /* Applied: dispatchingOnClusters is still there, element for element. */
    json_object *res = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(
        sim_json_patch(AT(in, "request", "object"), patch, &res, err, sizeof(err)), 0);
    json_object *names = AT(res, "spec", "suspension", "dispatchingOnClusters", "clusterNames");
    CU_ASSERT_FATAL(names && json_object_array_length(names) == 2);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(names, 1)), "member2");
    json_object_put(res);
    json_object_put(patch);
    json_object_put(out);
    json_object_put(in);
}

/* The pass-through cases: allowed, and neither patch nor patchType. */
static void passes(const char *name, enum karmada_webhook_verdict want)
{
    json_object *in, *out = answer(name, want, &in);
    CU_ASSERT_PTR_NULL(AT(out, "response", "patch"));
    CU_ASSERT_PTR_NULL(AT(out, "response", "patchType"));
    json_object_put(out);
    json_object_put(in);
}

static void test_passes_unchanged(void)
{
    passes("create-vcjob-held", KARMADA_WEBHOOK_ALREADY_HELD);
    passes("create-pod-optout", KARMADA_WEBHOOK_SKIP_LABEL_SET);
    passes("create-configmap", KARMADA_WEBHOOK_SKIP_KIND);
    passes("update-deployment", KARMADA_WEBHOOK_SKIP_OPERATION);
    passes("delete-deployment", KARMADA_WEBHOOK_SKIP_OPERATION);
}

/* Edits a fixture with fn and answers it. */
static int edited(const char *name, void (*fn)(json_object *review), json_object **out,
                  enum karmada_webhook_verdict *v, char *err, size_t cap)
{
    size_t len;
    char *body = read_fixture(name, &len);
    json_object *r = json_tokener_parse(body);
    free(body);
    fn(r);
    const char *text = json_object_to_json_string(r);
    int rc = karmada_webhook_review(text, strlen(text), out, v, err, cap);
    json_object_put(r);
    return rc;
}

static void label_false(json_object *r)
{
    json_object_object_add(AT(r, "request", "object", "metadata", "labels"),
                           KARMADA_WEBHOOK_SKIP_LABEL, json_object_new_string("false"));
}

static void other_resource(json_object *r)
{
    json_object_object_add(AT(r, "request", "kind"), "kind",
                           json_object_new_string("ClusterResourceBinding"));
}

static void no_kind(json_object *r)
{
    json_object_object_del(AT(r, "request"), "kind");
}

static void test_label_and_resource(void)
{
    json_object *out = NULL;
    enum karmada_webhook_verdict v;
    char err[256];
    /* Only "true" opts out. */
    CU_ASSERT_EQUAL(edited("create-deployment", label_false, &out, &v, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_HELD);
    json_object_put(out);
    CU_ASSERT_EQUAL(edited("create-deployment", other_resource, &out, &v, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_SKIP_RESOURCE);
    CU_ASSERT_PTR_NULL(AT(out, "response", "patch"));
    json_object_put(out);
    /* Without request.kind the object's own apiVersion and kind decide. */
    CU_ASSERT_EQUAL(edited("create-deployment", no_kind, &out, &v, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_HELD);
    json_object_put(out);
}

struct bad {
    const char *body;
    int rc;
    const char *says;
};

#define RV_HEAD "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
static const struct bad bad_reviews[] = {
    {"", MUSTER_EINVAL, "empty body"},
    {"{\"apiVersion\":", MUSTER_EINVAL, "ends inside a value"},
    {"not json", MUSTER_EINVAL, "not JSON"},
    {"[1,2]", MUSTER_EINVAL, "not a JSON object"},
    {"{} {}", MUSTER_EINVAL, "data after the JSON value"},
    {"{\"kind\":\"AdmissionReview\",\"request\":{}}", MUSTER_EINVAL,
     "review.apiVersion is missing"},
    {"{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\",\"request\":{}}",
     MUSTER_EINVAL, "only admission.k8s.io/v1"},
    {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"ConversionReview\"}", MUSTER_EINVAL,
     "expected AdmissionReview"},
    {RV_HEAD "\"request\":7}", MUSTER_EINVAL, "request is not an object"},
    {RV_HEAD "\"response\":{}}", MUSTER_EINVAL, "request is missing"},
    {RV_HEAD "\"request\":{\"operation\":\"CREATE\",\"object\":{}}}", MUSTER_EINVAL,
     "request.uid is missing"},
    {RV_HEAD "\"request\":{\"uid\":5,\"operation\":\"CREATE\",\"object\":{}}}", MUSTER_EINVAL,
     "request.uid is not a string"},
    {RV_HEAD "\"request\":{\"uid\":\"\",\"operation\":\"CREATE\",\"object\":{}}}", MUSTER_EINVAL,
     "request.uid must be"},
    {RV_HEAD "\"request\":{\"uid\":\"a\\\"b\",\"operation\":\"CREATE\",\"object\":{}}}",
     MUSTER_EINVAL, "request.uid must be"},
    {RV_HEAD "\"request\":{\"uid\":\"u1\",\"object\":{}}}", MUSTER_EINVAL,
     "request.operation is missing"},
    {RV_HEAD "\"request\":{\"uid\":\"u1\",\"operation\":\"CREATE\"}}", MUSTER_EINVAL,
     "request.object is missing"},
    {RV_HEAD "\"request\":{\"uid\":\"u1\",\"operation\":\"CREATE\",\"object\":null}}",
     MUSTER_EINVAL, "request.object is missing or null"},
};

static void test_malformed(void)
{
    for (size_t i = 0; i < sizeof(bad_reviews) / sizeof(bad_reviews[0]); i++) {
        const struct bad *b = &bad_reviews[i];
        json_object *out = (json_object *)1;
        enum karmada_webhook_verdict v = KARMADA_WEBHOOK_HELD;
        char err[256] = "";
        int rc = karmada_webhook_review(b->body, strlen(b->body), &out, &v, err, sizeof(err));
        if (rc != b->rc || !strstr(err, b->says))
            fprintf(stderr, "case %zu: rc %d err \"%s\", want \"%s\"\n", i, rc, err, b->says);
        CU_ASSERT_EQUAL(rc, b->rc);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, b->says));
        CU_ASSERT_PTR_NULL(out);
        CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_INVALID);
    }
    /* A minimal valid review of an unknown resource is fine (allowed, no patch). */
    const char *min =
        RV_HEAD "\"request\":{\"uid\":\"u1\",\"operation\":\"CREATE\",\"object\":{}}}";
    json_object *out = NULL;
    enum karmada_webhook_verdict v;
    CU_ASSERT_EQUAL(karmada_webhook_review(min, strlen(min), &out, &v, NULL, 0), 0);
    CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_SKIP_RESOURCE);
    json_object_put(out);
}

static void test_limits(void)
{
    /* Over the size cap: refused before parsing. */
    size_t n = KARMADA_WEBHOOK_REVIEW_MAX + 1;
    char *big = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    json_object *out = NULL;
    enum karmada_webhook_verdict v;
    char err[256];
    CU_ASSERT_EQUAL(karmada_webhook_review(big, n, &out, &v, err, sizeof(err)), MUSTER_ELIMIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "above the limit"));
    free(big);
    /* Nesting past the cap. */
    char deep[4 * KARMADA_WEBHOOK_DEPTH_MAX + 8];
    size_t k = 0;
    for (int i = 0; i < 2 * KARMADA_WEBHOOK_DEPTH_MAX; i++)
        deep[k++] = '[';
    for (int i = 0; i < 2 * KARMADA_WEBHOOK_DEPTH_MAX; i++)
        deep[k++] = ']';
    CU_ASSERT_EQUAL(karmada_webhook_review(deep, k, &out, &v, err, sizeof(err)), MUSTER_ELIMIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nests deeper"));
    /* Trailing whitespace is fine; a NUL byte after the value is not. */
    size_t len;
    char *body = read_fixture("create-deployment", &len);
    char *padded = malloc(len + 4);
    memcpy(padded, body, len);
    memcpy(padded + len, " \n\t", 3);
    CU_ASSERT_EQUAL(karmada_webhook_review(padded, len + 3, &out, &v, err, sizeof(err)), 0);
    json_object_put(out);
    padded[len] = '\0';
    CU_ASSERT_EQUAL(karmada_webhook_review(padded, len + 1, &out, &v, err, sizeof(err)),
                    MUSTER_EINVAL);
    free(padded);
    free(body);
}

/* Every muster allocation of a held answer fails in turn: ENOMEM, no leak, never a crash. */
static void test_alloc_failures(void)
{
    size_t len;
    char *body = read_fixture("create-job-suspended", &len);
    int saw_ok = 0;
    for (long k = 0; k < 16 && !saw_ok; k++) {
        muster_mem_fail_after(k);
        json_object *out = NULL;
        enum karmada_webhook_verdict v;
        int rc = karmada_webhook_review(body, len, &out, &v, NULL, 0);
        muster_mem_fail_after(-1);
        if (rc == 0) {
            saw_ok = 1;
            CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_HELD);
        } else {
            CU_ASSERT_EQUAL(rc, MUSTER_ENOMEM);
            CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_INVALID);
            CU_ASSERT_PTR_NULL(out);
        }
        json_object_put(out);
    }
    CU_ASSERT(saw_ok);
    free(body);
}

/* The rule the watch path shares, on bare RBs. */
static void test_rb_verdict(void)
{
    static const struct {
        const char *fixture;
        enum karmada_webhook_verdict want;
    } cases[] = {
        {"create-deployment", KARMADA_WEBHOOK_HELD},
        {"create-job-suspended", KARMADA_WEBHOOK_HELD},
        {"create-pod-unsuspended", KARMADA_WEBHOOK_HELD},
        {"create-vcjob-held", KARMADA_WEBHOOK_ALREADY_HELD},
        {"create-pod-optout", KARMADA_WEBHOOK_SKIP_LABEL_SET},
        {"create-configmap", KARMADA_WEBHOOK_SKIP_KIND},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len;
        char *body = read_fixture(cases[i].fixture, &len);
        json_object *r = json_tokener_parse(body);
        CU_ASSERT_EQUAL(karmada_webhook_rb_verdict(AT(r, "request", "object")), cases[i].want);
        json_object_put(r);
        free(body);
    }
    CU_ASSERT_EQUAL(karmada_webhook_rb_verdict(NULL), KARMADA_WEBHOOK_SKIP_KIND);
}

/* Issue 19's kinds are held like the others: each fixture RB of tests/fixtures/workloads, not
 * yet suspended, gets HELD from the RB rule and a hold patch from a whole review; another version
 * of the same group is not muster's. And the MutatingWebhookConfiguration's matchConditions
 * (deploy/karmada/webhook.yaml) list exactly the kinds the reader accepts. */
static void test_new_kinds_held(void)
{
    static const char *const fixtures[] = {"jobset",     "lws",    "pytorchjob", "mpijob",
                                           "raycluster", "rayjob", "trainjob"};
    const char *src = getenv("MUSTER_SOURCE_DIR");
    char fpath[1024], err[256];
    snprintf(fpath, sizeof(fpath), "%s/deploy/karmada/webhook.yaml", src ? src : ".");
    json_object *docs = NULL;
    CU_ASSERT_EQUAL_FATAL(kube_yaml_read(fpath, &docs, err, sizeof(err)), 0);
    json_object *wh =
        json_object_array_get_idx(AT(json_object_array_get_idx(docs, 0), "webhooks"), 0);
    const char *expr = json_object_get_string(
        AT(json_object_array_get_idx(AT(wh, "matchConditions"), 0), "expression"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(expr);
    /* every quoted "group/version/Kind" of the list is a kind the reader handles */
    size_t listed = 0;
    for (const char *q = strchr(expr, '['); q && (q = strchr(q, '"'));) {
        const char *e = strchr(q + 1, '"');
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        char gvk[128];
        snprintf(gvk, sizeof(gvk), "%.*s", (int)(e - q - 1), q + 1);
        char *slash = strrchr(gvk, '/');
        CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
        *slash = '\0';
        char rbtext[512];
        snprintf(rbtext, sizeof(rbtext),
                 "{\"spec\":{\"resource\":{\"apiVersion\":\"%s\",\"kind\":\"%s\"}}}", gvk,
                 slash + 1);
        json_object *rb = json_tokener_parse(rbtext);
        if (karmada_workload_kind_of(rb) == KARMADA_WORKLOAD_KIND_NONE)
            fprintf(stderr, "\nwebhook.yaml lists %s/%s, which muster does not queue", gvk,
                    slash + 1);
        CU_ASSERT_NOT_EQUAL(karmada_workload_kind_of(rb), KARMADA_WORKLOAD_KIND_NONE);
        json_object_put(rb);
        listed++;
        q = e + 1;
    }
    /* Volcano Job, Job, Deployment, Pod, StatefulSet and issue 19's seven */
    CU_ASSERT_EQUAL(listed, 5 + sizeof(fixtures) / sizeof(fixtures[0]));
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
        snprintf(fpath, sizeof(fpath), "%s/tests/fixtures/workloads/%s-rb.json", src ? src : ".",
                 fixtures[i]);
        json_object *rb = json_object_from_file(fpath);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
        json_object *res = AT(rb, "spec", "resource");
        char gvk[160];
        snprintf(gvk, sizeof(gvk), "\"%s/%s\"", json_object_get_string(AT(res, "apiVersion")),
                 json_object_get_string(AT(res, "kind")));
        CU_ASSERT_PTR_NOT_NULL(strstr(expr, gvk));
        CU_ASSERT_EQUAL(karmada_webhook_rb_verdict(rb), KARMADA_WEBHOOK_ALREADY_HELD);
        json_object_object_del(json_object_object_get(rb, "spec"), "suspension");
        CU_ASSERT_EQUAL(karmada_webhook_rb_verdict(rb), KARMADA_WEBHOOK_HELD);
        /* a whole review: the hold patch */
        json_object *review = json_object_new_object(), *req = json_object_new_object();
        json_object_object_add(review, "apiVersion", json_object_new_string("admission.k8s.io/v1"));
        json_object_object_add(review, "kind", json_object_new_string("AdmissionReview"));
        json_object_object_add(req, "uid", json_object_new_string("0b1c2d3e-kinds"));
        json_object_object_add(req, "operation", json_object_new_string("CREATE"));
        json_object *rsrc = json_object_new_object();
        json_object_object_add(rsrc, "group", json_object_new_string("work.karmada.io"));
        json_object_object_add(rsrc, "version", json_object_new_string("v1alpha2"));
        json_object_object_add(rsrc, "resource", json_object_new_string("resourcebindings"));
        json_object_object_add(req, "resource", rsrc);
        json_object_object_add(req, "object", json_object_get(rb));
        json_object_object_add(review, "request", req);
        const char *body = json_object_to_json_string(review);
        json_object *out = NULL;
        enum karmada_webhook_verdict v;
        CU_ASSERT_EQUAL(karmada_webhook_review(body, strlen(body), &out, &v, err, sizeof(err)), 0);
        CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_HELD);
        CU_ASSERT_PTR_NOT_NULL(AT(out, "response", "patch"));
        json_object_put(out);
        json_object_put(review);
        /* another version of the group is not a kind muster reads */
        json_object_object_add(res, "apiVersion", json_object_new_string("example.io/v0"));
        CU_ASSERT_EQUAL(karmada_webhook_rb_verdict(rb), KARMADA_WEBHOOK_SKIP_KIND);
        json_object_put(rb);
    }
    json_object_put(docs);
}

/* The refusal hook of --webhook-tenancy: asked only about RBs the webhook would hold; 1 denies
 * with 403 and the message, -1 asks to be asked again (EBUSY, nothing answered), 0 holds. */
static int asked;
static int refuse_answer;

static int refuse(void *ud, json_object *rb, char *why, size_t cap)
{
    asked++;
    CU_ASSERT_PTR_EQUAL(ud, &asked);
    CU_ASSERT_STRING_EQUAL(jstr(AT(rb, "kind")), "ResourceBinding");
    snprintf(why, cap, "namespace team may not submit to queue research");
    return refuse_answer;
}

static void test_refusal(void)
{
    size_t len;
    char *body = read_fixture("create-deployment", &len);
    json_object *out = NULL;
    enum karmada_webhook_verdict v;
    char err[256];
    asked = 0;
    refuse_answer = 1;
    CU_ASSERT_EQUAL_FATAL(
        karmada_webhook_review_with(body, len, refuse, &asked, &out, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(asked, 1);
    CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_REFUSED);
    json_object *allowed = AT(out, "response", "allowed");
    CU_ASSERT(allowed && !json_object_get_boolean(allowed));
    CU_ASSERT_PTR_NULL(AT(out, "response", "patch"));
    CU_ASSERT_EQUAL(json_object_get_int(AT(out, "response", "status", "code")), 403);
    CU_ASSERT_STRING_EQUAL(jstr(AT(out, "response", "status", "reason")), "Forbidden");
    CU_ASSERT_STRING_EQUAL(jstr(AT(out, "response", "status", "message")),
                           "namespace team may not submit to queue research");
    json_object_put(out);
    out = NULL;
    refuse_answer = -1; /* cannot tell yet */
    CU_ASSERT_EQUAL(
        karmada_webhook_review_with(body, len, refuse, &asked, &out, &v, err, sizeof err),
        MUSTER_EBUSY);
    CU_ASSERT_PTR_NULL(out);
    refuse_answer = 0; /* held as without the hook */
    CU_ASSERT_EQUAL_FATAL(
        karmada_webhook_review_with(body, len, refuse, &asked, &out, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_HELD);
    CU_ASSERT_PTR_NOT_NULL(AT(out, "response", "patch"));
    json_object_put(out);
    free(body);
    /* never asked about what it would not hold */
    asked = 0;
    refuse_answer = 1;
    body = read_fixture("update-deployment", &len);
    out = NULL;
    CU_ASSERT_EQUAL_FATAL(
        karmada_webhook_review_with(body, len, refuse, &asked, &out, &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, KARMADA_WEBHOOK_SKIP_OPERATION);
    CU_ASSERT_EQUAL(asked, 0);
    json_object_put(out);
    free(body);
}

static void test_verdict_names(void)
{
    CU_ASSERT_STRING_EQUAL(karmada_webhook_verdict_name(KARMADA_WEBHOOK_HELD), "held");
    CU_ASSERT_STRING_EQUAL(karmada_webhook_verdict_name(KARMADA_WEBHOOK_SKIP_LABEL_SET),
                           "skip_label");
    CU_ASSERT_STRING_EQUAL(karmada_webhook_verdict_name(KARMADA_WEBHOOK_INVALID), "invalid");
    CU_ASSERT_STRING_EQUAL(karmada_webhook_verdict_name(KARMADA_WEBHOOK_REFUSED), "refused");
    CU_ASSERT_STRING_EQUAL(karmada_webhook_verdict_name(KARMADA_WEBHOOK_VERDICTS), "unknown");
}

static void test_cleanup(void)
{
    kube_schema_free(rb_schema);
    rb_schema = NULL;
}

static CU_TestInfo tests[] = {
    {"CREATE without suspension: add /spec/suspension", test_hold_without_suspension},
    {"CREATE with suspension: dispatching and dispatchingOnClusters survive",
     test_hold_keeps_dispatching},
    {"held already, opt-out, other kinds, UPDATE and DELETE pass unchanged", test_passes_unchanged},
    {"only skip=true opts out; other resources pass; kind from the object",
     test_label_and_resource},
    {"malformed reviews: refused with what is wrong", test_malformed},
    {"size and nesting caps, trailing bytes", test_limits},
    {"allocation failures: ENOMEM, nothing half-built", test_alloc_failures},
    {"the RB rule the watch path shares", test_rb_verdict},
    {"issue 19's kinds held; webhook.yaml lists the kinds muster reads", test_new_kinds_held},
    {"--webhook-tenancy: denied with 403, asked again, or held", test_refusal},
    {"verdict names", test_verdict_names},
    {"cleanup", test_cleanup},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/webhook", tests)
