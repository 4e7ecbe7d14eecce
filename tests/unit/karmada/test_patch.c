/* Tests for cluster-adapters/karmada/patch.c: each patch applied the way the hub applies it (the
 * simulator's RFC 7386 / RFC 6902 code), the result checked against the ResourceBinding CRD,
 * `dispatching` kept, other conditions kept, and no patch at all when nothing would change. */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/karmada/patch.h"
#include "cluster-adapters/kube/jsonwrite.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static struct kube_schema *rb_schema;

static json_object *fixture(void)
{
    char path[1024];
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(path, sizeof(path), "%s/tests/fixtures/objects/resourcebinding.json", src ? src : ".");
    json_object *o = json_object_from_file(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
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

static json_object *at(json_object *o, const char *a, const char *b, const char *c)
{
    json_object *v = o;
    const char *keys[3] = {a, b, c};
    for (int i = 0; i < 3 && keys[i] && v; i++)
        if (!json_object_object_get_ex(v, keys[i], &v))
            v = NULL;
    return v;
}

static json_object *merged(json_object *rb, json_object *patch)
{
    json_object *out = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_merge_patch(rb, patch, &out), 0);
    return out;
}

static void test_hold_keeps_dispatching(void)
{
    json_object *rb = fixture(), *p = NULL;
    CU_ASSERT_EQUAL(karmada_patch_hold(rb, &p), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    json_object *out = merged(rb, p);
    CU_ASSERT_TRUE(json_object_get_boolean(at(out, "spec", "suspension", "scheduling")));
    CU_ASSERT_TRUE(json_object_get_boolean(at(out, "spec", "suspension", "dispatching")));
    valid(out);
    json_object *again = NULL;
    CU_ASSERT_EQUAL(karmada_patch_hold(out, &again), 0);
    CU_ASSERT_PTR_NULL(again); /* already held: nothing to write */
    json_object_put(p);
    json_object_put(out);
    /* Without any suspension the merge creates it. */
    json_object_object_del(at(rb, "spec", NULL, NULL), "suspension");
    CU_ASSERT_EQUAL(karmada_patch_hold(rb, &p), 0);
    out = merged(rb, p);
    CU_ASSERT_TRUE(json_object_get_boolean(at(out, "spec", "suspension", "scheduling")));
    CU_ASSERT_EQUAL(json_object_object_length(at(out, "spec", "suspension", NULL)), 1);
    valid(out);
    json_object_put(p);
    json_object_put(out);
    json_object_put(rb);
}

static void test_webhook_patch(void)
{
    char err[256];
    json_object *rb = fixture(), *p = NULL, *out = NULL;
    CU_ASSERT_EQUAL(karmada_patch_webhook_hold(rb, &p), 0);
    CU_ASSERT_STRING_EQUAL(
        json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
        "[{\"op\":\"add\",\"path\":\"/spec/suspension/scheduling\","
        "\"value\":true}]");
    CU_ASSERT_EQUAL(sim_json_patch(rb, p, &out, err, sizeof(err)), 0);
    /* volcano-global's `add /spec/suspension` would lose this: */
    CU_ASSERT_TRUE(json_object_get_boolean(at(out, "spec", "suspension", "dispatching")));
    CU_ASSERT_TRUE(json_object_get_boolean(at(out, "spec", "suspension", "scheduling")));
    valid(out);
    json_object *none = NULL;
    CU_ASSERT_EQUAL(karmada_patch_webhook_hold(out, &none), 0);
    CU_ASSERT_EQUAL(json_object_array_length(none), 0);
    json_object_put(none);
    json_object_put(p);
    json_object_put(out);
    json_object_object_del(at(rb, "spec", NULL, NULL), "suspension");
    CU_ASSERT_EQUAL(karmada_patch_webhook_hold(rb, &p), 0);
    CU_ASSERT_EQUAL(sim_json_patch(rb, p, &out, err, sizeof(err)), 0);
    CU_ASSERT_TRUE(json_object_get_boolean(at(out, "spec", "suspension", "scheduling")));
    valid(out);
    json_object_put(p);
    json_object_put(out);
    json_object *bare = json_tokener_parse("{\"metadata\":{}}");
    CU_ASSERT_EQUAL(karmada_patch_webhook_hold(bare, &p), MUSTER_EINVAL);
    json_object_put(bare);
    json_object_put(rb);
}

static json_object *scheduled(json_object *rb)
{
    json_object *conds = at(rb, "status", "conditions", NULL);
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        if (strcmp(json_object_get_string(at(c, "type", NULL, NULL)), "Scheduled") == 0)
            return c;
    }
    return NULL;
}

static void test_waiting_condition(void)
{
    json_object *rb = fixture(), *p = NULL;
    const char *msg = "queue research/nlp: nvidia.com/gpu 60 of 64 in use, needs 8";
    CU_ASSERT_EQUAL(karmada_patch_waiting(rb, "QuotaExceeded", msg, "2026-11-22T02:00:00Z", &p), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    /* Conditional on the RB as read: a stale read gets 409, not a reverted condition. */
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(p, "metadata", "resourceVersion", NULL)),
                           json_object_get_string(at(rb, "metadata", "resourceVersion", NULL)));
    json_object *out = merged(rb, p);
    json_object *c = scheduled(out);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(c, "status", NULL, NULL)), "False");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(c, "reason", NULL, NULL)), "QuotaExceeded");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(c, "message", NULL, NULL)), msg);
    /* It flipped from True: the transition time is now. */
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(c, "lastTransitionTime", NULL, NULL)),
                           "2026-11-22T02:00:00Z");
    /* FullyApplied is kept as it was, in its place. */
    json_object *conds = at(out, "status", "conditions", NULL);
    CU_ASSERT_EQUAL(json_object_array_length(conds), 2);
    CU_ASSERT_STRING_EQUAL(
        json_object_get_string(at(json_object_array_get_idx(conds, 1), "type", NULL, NULL)),
        "FullyApplied");
    valid(out);
    json_object_put(p);

    /* The same reason again: nothing to write (no write storms). */
    CU_ASSERT_EQUAL(karmada_patch_waiting(out, "QuotaExceeded", msg, "2026-11-22T02:00:05Z", &p),
                    0);
    CU_ASSERT_PTR_NULL(p);
    /* A new message keeps the transition time: the status did not flip. */
    CU_ASSERT_EQUAL(karmada_patch_waiting(out, "NoClusterFit", "no cluster holds 8 x 8 GPUs",
                                          "2026-11-22T02:00:09Z", &p),
                    0);
    json_object *out2 = merged(out, p);
    c = scheduled(out2);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(c, "reason", NULL, NULL)), "NoClusterFit");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(c, "lastTransitionTime", NULL, NULL)),
                           "2026-11-22T02:00:00Z");
    valid(out2);
    json_object_put(p);
    json_object_put(out2);
    json_object_put(out);

    /* No conditions yet: Scheduled is added. */
    json_object_object_del(at(rb, "status", NULL, NULL), "conditions");
    CU_ASSERT_EQUAL(karmada_patch_waiting(rb, "Unschedulable", "queue ml does not exist",
                                          "2026-11-22T02:01:00Z", &p),
                    0);
    out = merged(rb, p);
    CU_ASSERT_EQUAL(json_object_array_length(at(out, "status", "conditions", NULL)), 1);
    valid(out);
    json_object_put(p);
    json_object_put(out);
    json_object_put(rb);
}

/* The status patch's operations written as text (send_status sent a tree's print until issue
 * 22) are JSON that json-c prints back byte for byte, the tree form holds the same operations,
 * and the message goes where the condition is, for every shape of status the builder tells
 * apart: none, no list, a list without Scheduled, Scheduled True or False at some index, odd
 * member types, a name needing escapes. */
static void test_status_ops_text_as_tree(void)
{
    static const char *const statuses[] = {
        NULL, /* no status at all */
        "{}",
        "{\"conditions\":null}",
        "{\"conditions\":[]}",
        "{\"conditions\":[{\"type\":\"FullyApplied\",\"status\":\"True\"},{\"status\":\"x\"},"
        "{\"type\":7}]}",
        "{\"conditions\":[{\"type\":\"FullyApplied\",\"status\":\"True\"},{\"type\":\"Scheduled\","
        "\"status\":\"True\",\"reason\":\"Success\",\"lastTransitionTime\":\"2026-11-27T10:00:"
        "00Z\","
        "\"observedGeneration\":3,\"message\":\"<a/b> & \\\"q\\\"\"}]}",
        "{\"conditions\":[{\"type\":\"Scheduled\",\"status\":\"False\",\"reason\":\"a/b\\n\","
        "\"lastTransitionTime\":null,\"observedGeneration\":{\"odd\":[1,2.5,true]}}]}",
        "[1]", /* not an object */
    };
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) {
        for (int with_gen = 0; with_gen < 2; with_gen++) {
            json_object *rb = fixture();
            json_object *md = at(rb, "metadata", NULL, NULL);
            if (with_gen)
                json_object_object_add(md, "generation", json_object_new_int64(12));
            else
                json_object_object_del(md, "generation");
            json_object_object_del(rb, "status");
            if (statuses[i])
                json_object_object_add(rb, "status", json_tokener_parse(statuses[i]));
            /* the writer's text is JSON that json-c prints back byte for byte (its escapes,
             * its number forms: what the apiserver is sent), an array of operations */
            char stack[64];
            struct kube_jw w;
            kube_jw_init(&w, stack, sizeof stack, 0);
            CU_ASSERT_EQUAL(
                karmada_patch_status_scheduled_ops_write(rb, "2026-11-27T11:00:00Z", NULL, &w), 0);
            CU_ASSERT_FALSE(w.bad);
            json_object *ops = json_tokener_parse(w.buf);
            CU_ASSERT_FATAL(json_object_is_type(ops, json_type_array));
            const char *want = json_object_to_json_string_ext(
                ops, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
            CU_ASSERT_STRING_EQUAL(w.buf, want);
            if (strcmp(w.buf, want) != 0)
                fprintf(stderr, "case %zu/%d:\n got  %s\n want %s\n", i, with_gen, w.buf, want);
            kube_jw_free(&w);
            /* the tree form is the same operations */
            json_object *tree = NULL;
            CU_ASSERT_EQUAL(karmada_patch_status_scheduled_ops(rb, "2026-11-27T11:00:00Z", &tree),
                            0);
            CU_ASSERT(json_object_equal(tree, ops));
            json_object_put(tree);
            /* another message: the same operations with that message in the condition, and
             * the default message nowhere */
            static const char other[] = "2 of 4 Jobs run: \"min\" <a/b>";
            size_t nops = json_object_array_length(ops);
            for (size_t k = 0; k < nops; k++) {
                json_object *v = json_object_object_get(json_object_array_get_idx(ops, k), "value");
                json_object *cl = json_object_object_get(v, "conditions");
                json_object *cond =
                    json_object_is_type(v, json_type_array)    ? json_object_array_get_idx(v, 0)
                    : json_object_is_type(cl, json_type_array) ? json_object_array_get_idx(cl, 0)
                                                               : v;
                if (json_object_object_get(cond, "message") &&
                    json_object_object_get(cond, "observedGeneration"))
                    json_object_object_add(cond, "message", json_object_new_string(other));
            }
            kube_jw_init(&w, stack, sizeof stack, 0);
            CU_ASSERT_EQUAL(
                karmada_patch_status_scheduled_ops_write(rb, "2026-11-27T11:00:00Z", other, &w), 0);
            json_object *with = json_tokener_parse(w.buf);
            CU_ASSERT(json_object_equal(with, ops));
            CU_ASSERT_PTR_NOT_NULL(strstr(w.buf, "2 of 4 Jobs"));
            CU_ASSERT_PTR_NULL(strstr(w.buf, KARMADA_GANG_SCHEDULED_MESSAGE));
            json_object_put(with);
            kube_jw_free(&w);
            json_object_put(ops);
            json_object_put(rb);
        }
    }
    struct kube_jw w;
    char stack[8];
    kube_jw_init(&w, stack, sizeof stack, 0);
    CU_ASSERT_EQUAL(karmada_patch_status_scheduled_ops_write(NULL, NULL, NULL, &w), MUSTER_EINVAL);
    kube_jw_free(&w);
}

static void test_cleanup(void)
{
    kube_schema_free(rb_schema);
    rb_schema = NULL;
}

static CU_TestInfo tests[] = {
    {"the status operations written as text print as the tree", test_status_ops_text_as_tree},
    {"hold keeps dispatching", test_hold_keeps_dispatching},
    {"the webhook's JSON patch", test_webhook_patch},
    {"the waiting condition, written only when it changes", test_waiting_condition},
    {"cleanup", test_cleanup},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("karmada/patch", tests)
