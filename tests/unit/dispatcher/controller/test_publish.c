/* The "binding" event's data (dispatcher/controller/bindings.c, ctl__binding_event_text),
 * written as text since issue 22: byte for byte what the json-c tree it was built as printed,
 * for the dashboard and every client of GET /api/v1/events. */
#include "dispatcher/controller/ctl_int.h"
#include "cluster-adapters/kube/jsonwrite.h"
#include "cluster-adapters/kube/resources.h"
#include "testing.h"

/* The tree ctl__publish_binding built until issue 22, kept here as the reference. */
static json_object *event_tree(struct ctl *c, const struct binding *b, const char *state,
                               const char *reason)
{
    json_object *o = json_object_new_object();
    const char *slash = strchr(b->key, '/');
    json_object_object_add(o, "namespace",
                           json_object_new_string_len(b->key, (int)(slash - b->key)));
    json_object_object_add(o, "name", json_object_new_string(slash + 1));
    json_object_object_add(o, "queue", json_object_new_string(b->queue));
    json_object_object_add(o, "state", json_object_new_string(state));
    json_object_object_add(o, "reason", json_object_new_string(reason ? reason : ""));
    json_object *a = json_object_new_array();
    for (uint32_t i = 0; i < b->nshares; i++) {
        json_object *s = json_object_new_object();
        json_object_object_add(s, "name", json_object_new_string(b->shares[i].cluster));
        json_object_object_add(s, "replicas", json_object_new_int(b->shares[i].replicas));
        json_object_array_add(a, s);
    }
    json_object_object_add(o, "clusters", a);
    json_object_object_add(o, "request", kube_resvec_json(c->names, &b->gang));
    return o;
}

static void check(struct ctl *c, struct binding *b, const char *state, const char *reason)
{
    char stack[32]; /* small: the text grows onto the heap */
    struct kube_jw w;
    kube_jw_init(&w, stack, sizeof stack, 0);
    ctl__binding_event_text(&w, c, b, state, reason);
    json_object *o = event_tree(c, b, state, reason);
    const char *want =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    CU_ASSERT_FALSE(w.bad);
    CU_ASSERT_STRING_EQUAL(w.buf, want);
    json_object_put(o);
    kube_jw_free(&w);
}

static void test_event_text_as_the_tree(void)
{
    struct ctl *c = muster_calloc(1, sizeof *c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    c->names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->names);
    struct binding *b = muster_calloc(1, sizeof *b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    char key[] = "team-a/train-1";
    b->key = key;
    b->queue = "research/nlp";
    queue_resvec_init(&b->gang);
    /* no shares, no request, no reason */
    check(c, b, "pending", NULL);
    uint32_t cpu, gpu;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(c->names, "cpu", 3, &cpu), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(c->names, "nvidia.com/gpu", 14, &gpu), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&b->gang, cpu, 4000), 0);
    CU_ASSERT_EQUAL(queue_resvec_set(&b->gang, gpu, 16000), 0);
    struct share sh[3];
    memset(sh, 0, sizeof sh);
    snprintf(sh[0].cluster, sizeof sh[0].cluster, "member-1");
    sh[0].replicas = 2;
    snprintf(sh[1].cluster, sizeof sh[1].cluster, "member-2");
    sh[1].replicas = 14;
    snprintf(sh[2].cluster, sizeof sh[2].cluster, "edge");
    sh[2].replicas = 0;
    b->shares = sh;
    b->nshares = 3;
    check(c, b, "dispatched", "");
    /* a reason with what needs escaping: quotes, a backslash, a newline, a slash */
    check(c, b, "rolledback", "member-2 lost: \"NotReady\" \\ at 10/27\n(tab\there)");
    queue_resvec_close(&b->gang);
    muster_free(b);
    queue_resnames_free(c->names);
    muster_free(c);
}

static CU_TestInfo tests[] = {
    {"the binding event's text is the tree's print", test_event_text_as_the_tree},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/publish", tests)
