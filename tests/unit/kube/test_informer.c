/* Tests for cluster-adapters/kube/informer.c: the cache sees every change exactly once across a
 * dropped stream and across a 410 relist (diffed into adds, updates and deletes). */
#include "cluster-adapters/kube/informer.h"
#include "queue/errors.h"
#include "testing.h"
#include "watchfake.h"

#define RB_PATH "/apis/work.karmada.io/v1alpha2/resourcebindings"

struct it {
    struct wt w;
    struct kube_informer inf;
    int informer_closed;
};

static void i_add(void *ud, struct json_object *obj)
{
    wf_log(&((struct it *)ud)->w, "add", obj);
}

static void i_update(void *ud, struct json_object *old_obj, struct json_object *new_obj)
{
    wf_log(&((struct it *)ud)->w, "update", new_obj);
}

static void i_delete(void *ud, struct json_object *obj)
{
    wf_log(&((struct it *)ud)->w, "delete", obj);
}

static void i_synced(void *ud)
{
    ((struct it *)ud)->w.synced++;
}

static void i_error(void *ud, int err, const struct kube_status *st)
{
    struct it *t = ud;
    if (t->w.nerrors < EVLOG)
        t->w.errors[t->w.nerrors++] = err;
}

static void i_closed(struct kube_informer *inf)
{
    struct it *t = (struct it *)((char *)inf - offsetof(struct it, inf));
    t->informer_closed = 1;
}

static const struct kube_informer_handler handler = {i_add, i_update, i_delete, i_synced, i_error};

static void start(struct it *t)
{
    wf_setup(&t->w, NULL);
    struct kube_reflector_opts o = {
        .path = RB_PATH, .page_size = 2, .backoff_initial_ms = 10, .backoff_max_ms = 40};
    CU_ASSERT_FATAL(kube_informer_init(&t->inf, &t->w.loop, t->w.client, &o, &handler, t) == 0);
    CU_ASSERT_FATAL(kube_informer_start(&t->inf) == 0);
}

static void stop(struct it *t)
{
    kube_informer_close(&t->inf, i_closed);
    wf_teardown(&t->w);
    CU_ASSERT(t->informer_closed);
}

static const char *rv_of(struct json_object *o)
{
    struct json_object *md, *rv;
    if (o && json_object_object_get_ex(o, "metadata", &md) &&
        json_object_object_get_ex(md, "resourceVersion", &rv))
        return json_object_get_string(rv);
    return "";
}

static int seven(struct wt *w)
{
    return w->nlog >= 7;
}

static void test_resume_after_drop(void)
{
    struct it t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-resume-1.jsonl", END_DROP, 0, NULL, 0};
    t.w.sc.watches[1] = (struct watch_step){"watch/events-resume-2.jsonl", END_KEEP, 0, NULL, 0};
    start(&t);
    CU_ASSERT(wf_run_until(&t.w, seven, 5000));
    static const char *const want[] = {
        "add a 10",    "add b 11",    "add c 12", "add d 21",
        "update a 22", "delete b 24", "add e 25", NULL,
    };
    CU_ASSERT(wf_log_is(&t.w, want));
    CU_ASSERT_EQUAL(t.w.synced, 1);
    CU_ASSERT_EQUAL(kube_informer_size(&t.inf), 4);
    CU_ASSERT_STRING_EQUAL(rv_of(kube_informer_get(&t.inf, "ns1", "a")), "22");
    CU_ASSERT_PTR_NULL(kube_informer_get(&t.inf, "ns1", "b"));
    CU_ASSERT_PTR_NOT_NULL(kube_informer_get(&t.inf, "ns1", "e"));
    stop(&t);
}

static int relisted(struct wt *w)
{
    return w->sc.nlists >= 2 && w->sc.nwatches >= 2;
}

/* list 1: a10 b11 c12 @20; the watch adds d21 then says 410; list 2: a30 c12 d21 f31 @40. */
static void test_relist_diff_after_410_event(void)
{
    struct it t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.lists[1][0] = "watch/list-b.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-gone.jsonl", END_KEEP, 0, NULL, 0};
    start(&t);
    CU_ASSERT(wf_run_until(&t.w, relisted, 5000));
    static const char *const want[] = {
        "add a 10",    "add b 11", "add c 12",    "add d 21", /* first list, then the watch */
        "update a 30", "add f 31", "delete b 11", /* the relist's diff: c, d unchanged */
        NULL,
    };
    CU_ASSERT(wf_log_is(&t.w, want));
    CU_ASSERT_EQUAL(t.w.synced, 1);
    CU_ASSERT_EQUAL(kube_informer_size(&t.inf), 4);
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "40");
    stop(&t);
}

static void test_relist_diff_after_http_410(void)
{
    struct it t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.lists[1][0] = "watch/list-b.json";
    t.w.sc.watches[0] = (struct watch_step){NULL, END_HTTP, 410, NULL, 0};
    start(&t);
    CU_ASSERT(wf_run_until(&t.w, relisted, 5000));
    static const char *const want[] = {
        "add a 10", "add b 11", "add c 12",    "update a 30",
        "add d 21", "add f 31", "delete b 11", NULL,
    };
    CU_ASSERT(wf_log_is(&t.w, want));
    CU_ASSERT_EQUAL(kube_informer_size(&t.inf), 4);
    stop(&t);
}

static int five(struct wt *w)
{
    return w->nlog >= 5;
}

/* Closing the client under a live informer cancels its watch; the informer then closes cleanly. */
static void test_client_closed_first(void)
{
    struct it t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-resume-2.jsonl", END_KEEP, 0, NULL, 0};
    start(&t);
    CU_ASSERT(wf_run_until(&t.w, five, 5000));
    kube_client_close(t.w.client, wf_on_client_closed, &t.w);
    for (int i = 0; i < 5; i++)
        uv_run(&t.w.loop, UV_RUN_NOWAIT);
    CU_ASSERT(t.w.client_closed);
    kube_informer_close(&t.inf, i_closed);
    fake_server_close(&t.w.srv);
    uv_close((uv_handle_t *)&t.w.tick, NULL);
    uv_run(&t.w.loop, UV_RUN_DEFAULT);
    CU_ASSERT(t.informer_closed);
    CU_ASSERT_EQUAL(uv_loop_close(&t.w.loop), 0);
    kube_config_close(&t.w.cfg);
}

static CU_TestInfo tests[] = {
    {"resume after a dropped stream: nothing lost or repeated", test_resume_after_drop},
    {"relist after a 410 ERROR event, diffed", test_relist_diff_after_410_event},
    {"relist after HTTP 410, diffed", test_relist_diff_after_http_410},
    {"client closed before the informer", test_client_closed_first},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/informer", tests)
