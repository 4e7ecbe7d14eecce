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

static int frozen_mode; /* the next start packs its cache (kube_informer_set_frozen) */

static void start_with(struct it *t, const struct kube_informer_handler *h)
{
    wf_setup(&t->w, NULL);
    struct kube_reflector_opts o = {
        .path = RB_PATH, .page_size = 2, .backoff_initial_ms = 10, .backoff_max_ms = 40};
    CU_ASSERT_FATAL(kube_informer_init(&t->inf, &t->w.loop, t->w.client, &o, h, t) == 0);
    if (frozen_mode)
        kube_informer_set_frozen(&t->inf);
    CU_ASSERT_FATAL(kube_informer_start(&t->inf) == 0);
}

static void start(struct it *t)
{
    start_with(t, &handler);
}

/* A list in two pages, a watch that drops after some events, then one that stays. */
static void resume_scenario(struct it *t)
{
    memset(t, 0, sizeof(*t));
    t->w.sc.lists[0][0] = "watch/list-a-1.json";
    t->w.sc.lists[0][1] = "watch/list-a-2.json";
    t->w.sc.watches[0] =
        (struct watch_step){"watch/events-resume-1.jsonl", END_DROP, 0, NULL, 0};
    t->w.sc.watches[1] =
        (struct watch_step){"watch/events-resume-2.jsonl", END_KEEP, 0, NULL, 0};
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
    resume_scenario(&t);
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

static int relisted(struct wt *w);

static int wanted;

static int logged(struct wt *w)
{
    return w->nlog >= wanted;
}

/* The transform keeps metadata and marks the object; the objects the handler sees count. */
static int seen_untransformed;

static int transformed_twice;

static struct json_object *slim(void *ud, struct json_object *obj)
{
    (void)ud;
    struct json_object *md, *out = json_object_new_object();
    if (json_object_object_get_ex(obj, "slim", &md))
        transformed_twice++;
    if (json_object_object_get_ex(obj, "metadata", &md))
        json_object_object_add(out, "metadata", json_object_get(md));
    json_object_object_add(out, "slim", json_object_new_boolean(1));
    return out;
}

static void check_slim(struct json_object *obj)
{
    struct json_object *v;
    if (!json_object_object_get_ex(obj, "slim", &v) || json_object_object_get_ex(obj, "spec", &v))
        seen_untransformed++;
}

static void s_add(void *ud, struct json_object *obj)
{
    check_slim(obj);
    i_add(ud, obj);
}

static void s_update(void *ud, struct json_object *old_obj, struct json_object *new_obj)
{
    check_slim(old_obj);
    check_slim(new_obj);
    i_update(ud, old_obj, new_obj);
}

static void s_delete(void *ud, struct json_object *obj)
{
    check_slim(obj);
    i_delete(ud, obj);
}

/* Runs the informer with the slim transform until the log holds want. */
static void run_slim(struct it *t, const char *const *want, int n)
{
    seen_untransformed = transformed_twice = 0;
    wf_setup(&t->w, NULL);
    struct kube_reflector_opts o = {
        .path = RB_PATH, .page_size = 2, .backoff_initial_ms = 10, .backoff_max_ms = 40};
    static const struct kube_informer_handler sh = {s_add, s_update, s_delete, i_synced, i_error};
    CU_ASSERT_FATAL(kube_informer_init(&t->inf, &t->w.loop, t->w.client, &o, &sh, t) == 0);
    kube_informer_set_transform(&t->inf, slim);
    CU_ASSERT_FATAL(kube_informer_start(&t->inf) == 0);
    wanted = n;
    CU_ASSERT(wf_run_until(&t->w, logged, 5000));
    CU_ASSERT(wf_log_is(&t->w, want));
    CU_ASSERT_EQUAL(seen_untransformed, 0);
    /* listed items are transformed as their page arrives, and not again when the list is
     * applied */
    CU_ASSERT_EQUAL(transformed_twice, 0);
    struct json_object *a = kube_informer_get(&t->inf, "ns1", "a"), *v;
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT(json_object_object_get_ex(a, "slim", &v));
    CU_ASSERT(!json_object_object_get_ex(a, "spec", &v));
    stop(t);
}

/* With a transform, the cache and every callback (add, update's both sides, delete from an event
 * and from a relist's diff) hold the transformed object, and the changes reported are those
 * without one. */
static void test_transform(void)
{
    struct it t;
    resume_scenario(&t);
    static const char *const events[] = {
        "add a 10",    "add b 11",    "add c 12", "add d 21",
        "update a 22", "delete b 24", "add e 25", NULL,
    };
    run_slim(&t, events, 7);

    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.lists[1][0] = "watch/list-b.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-gone.jsonl", END_KEEP, 0, NULL, 0};
    static const char *const relist[] = {
        "add a 10",    "add b 11", "add c 12",    "add d 21",
        "update a 30", "add f 31", "delete b 11", NULL,
    };
    run_slim(&t, relist, 7);
}

/* An update's cached version takes over what did not change from the version it replaces: the
 * same subtree, not a copy; what changed is new. */
static int shared_spec, shared_kind, fresh_metadata, updates_seen;

static void sh_update(void *ud, struct json_object *old_obj, struct json_object *new_obj)
{
    struct json_object *os, *ns, *ok, *nk, *om, *nm;
    updates_seen++;
    if (json_object_object_get_ex(old_obj, "spec", &os) &&
        json_object_object_get_ex(new_obj, "spec", &ns) && json_object_equal(os, ns))
        shared_spec += os == ns;
    if (json_object_object_get_ex(old_obj, "kind", &ok) &&
        json_object_object_get_ex(new_obj, "kind", &nk))
        shared_kind += ok == nk;
    if (json_object_object_get_ex(old_obj, "metadata", &om) &&
        json_object_object_get_ex(new_obj, "metadata", &nm))
        fresh_metadata += om != nm && !json_object_equal(om, nm);
    i_update(ud, old_obj, new_obj);
}

static void test_update_shares_unchanged(void)
{
    struct it t;
    resume_scenario(&t);
    shared_spec = shared_kind = fresh_metadata = updates_seen = 0;
    static const struct kube_informer_handler sh = {i_add, sh_update, i_delete, i_synced,
                                                    i_error};
    start_with(&t, &sh);
    wanted = 7;
    CU_ASSERT(wf_run_until(&t.w, logged, 5000));
    /* "a" changes its resourceVersion and a label, not its spec */
    CU_ASSERT_EQUAL(updates_seen, 1);
    CU_ASSERT_EQUAL(shared_spec, 1);
    CU_ASSERT_EQUAL(shared_kind, 1);
    CU_ASSERT_EQUAL(fresh_metadata, 1);
    struct json_object *a = kube_informer_get(&t.inf, "ns1", "a");
    CU_ASSERT_STRING_EQUAL(rv_of(a), "22");
    stop(&t);
}

/* A status update shares, element by element, what did not change: the unchanged condition of a
 * changed array, the whole spec, and an array that only got shorter is new (its kept element
 * still prev's). The versions seen are kept to compare them after. */
static struct json_object *st_seen[3];
static int st_n;

static void st_keep(void *ud, struct json_object *obj)
{
    if (st_n < 3)
        st_seen[st_n++] = json_object_get(obj);
    i_add(ud, obj);
}

static void st_update(void *ud, struct json_object *old_obj, struct json_object *new_obj)
{
    (void)old_obj;
    st_keep(ud, new_obj);
}

static struct json_object *at(struct json_object *o, const char *a, const char *b, int i)
{
    struct json_object *x = NULL, *y = NULL;
    json_object_object_get_ex(o, a, &x);
    json_object_object_get_ex(x, b, &y);
    return i < 0 ? y : json_object_array_get_idx(y, (size_t)i);
}

static int three(struct wt *w)
{
    return w->nlog >= 3;
}

static void test_update_shares_elements(void)
{
    struct it t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-status.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-status.jsonl", END_KEEP, 0, NULL, 0};
    st_n = 0;
    static const struct kube_informer_handler sh = {st_keep, st_update, i_delete, i_synced,
                                                    i_error};
    start_with(&t, &sh);
    CU_ASSERT(wf_run_until(&t.w, three, 5000));
    CU_ASSERT_EQUAL_FATAL(st_n, 3);
    struct json_object *v0 = st_seen[0], *v1 = st_seen[1], *v2 = st_seen[2];
    /* 51: the second condition changed, the first did not, the spec did not */
    CU_ASSERT_PTR_EQUAL(at(v1, "status", "conditions", 0), at(v0, "status", "conditions", 0));
    CU_ASSERT_PTR_NOT_EQUAL(at(v1, "status", "conditions", 1), at(v0, "status", "conditions", 1));
    CU_ASSERT_PTR_NOT_EQUAL(at(v1, "status", "conditions", -1), at(v0, "status", "conditions", -1));
    CU_ASSERT_PTR_EQUAL(at(v1, "spec", "clusters", -1), at(v0, "spec", "clusters", -1));
    CU_ASSERT_STRING_EQUAL(
        json_object_get_string(json_object_object_get(at(v1, "status", "conditions", 1), "status")),
        "True");
    /* 52: the status is unchanged (prev's whole), the clusters shorter (a new array) */
    CU_ASSERT_PTR_EQUAL(at(v2, "status", "conditions", -1), at(v1, "status", "conditions", -1));
    CU_ASSERT_PTR_NOT_EQUAL(at(v2, "spec", "clusters", -1), at(v1, "spec", "clusters", -1));
    CU_ASSERT_EQUAL(json_object_array_length(at(v2, "spec", "clusters", -1)), 1);
    CU_ASSERT_STRING_EQUAL(rv_of(kube_informer_get(&t.inf, "ns1", "s")), "52");
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(at(v2, "spec", "clusters", -1),
                                                          JSON_C_TO_STRING_PLAIN),
                           "[{\"name\":\"m1\",\"replicas\":1}]");
    for (int i = 0; i < st_n; i++)
        json_object_put(st_seen[i]);
    stop(&t);
}

/* The first key of o, as stored. */
static const char *first_key(struct json_object *o)
{
    json_object_object_foreach(o, k, v)
    {
        (void)v;
        return k;
    }
    return NULL;
}

/* Compaction copies with every table and array shrunk to what it holds, keys and short values
 * shared, and nothing else changed: the same text, the same lookups, and the copy still takes new
 * keys and entries. */
static void test_compact(void)
{
    const char *text = "{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\",\"y\":\"2\"},"
                       "\"annotations\":{}},\"spec\":{\"list\":[1,{\"k\":[]},\"s\"],"
                       "\"n\":null,\"b\":true,\"d\":1.50}}";
    struct json_object *orig = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(orig);
    char *before = strdup(json_object_to_json_string_ext(orig, JSON_C_TO_STRING_PLAIN));
    struct json_object *o = kube_json_compact(orig), *o2 = kube_json_compact(orig);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), before);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(orig, JSON_C_TO_STRING_PLAIN), before);
    CU_ASSERT(json_object_equal(o, orig));
    free(before);
    json_object_put(orig);
    /* one copy of each key for both */
    CU_ASSERT_PTR_EQUAL(first_key(o), first_key(o2));
    json_object_put(o2);
    struct json_object *md, *labels, *spec, *list, *v;
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "metadata", &md));
    CU_ASSERT_FATAL(json_object_object_get_ex(md, "labels", &labels));
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "spec", &spec));
    CU_ASSERT_FATAL(json_object_object_get_ex(spec, "list", &list));
    CU_ASSERT(json_object_get_object(o)->size < JSON_OBJECT_DEF_HASH_ENTRIES);
    CU_ASSERT(json_object_get_object(labels)->size <= 4);
    CU_ASSERT(json_object_get_object(spec)->size < JSON_OBJECT_DEF_HASH_ENTRIES);
    CU_ASSERT(json_object_object_get_ex(labels, "y", &v));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "2");
    CU_ASSERT(!json_object_object_get_ex(labels, "z", &v));
    CU_ASSERT(!json_object_object_get_ex(spec, "missing", &v));
    CU_ASSERT(json_object_object_get_ex(spec, "n", &v));
    CU_ASSERT_EQUAL(json_object_array_length(list), 3);
    /* still writable: a table and an array grow past their compacted size */
    for (int i = 0; i < 40; i++) {
        char k[16];
        snprintf(k, sizeof(k), "k%d", i);
        CU_ASSERT(json_object_object_add(labels, k, json_object_new_int(i)) == 0);
        CU_ASSERT(json_object_array_add(list, json_object_new_int(i)) == 0);
    }
    CU_ASSERT(json_object_object_get_ex(labels, "k39", &v));
    CU_ASSERT_EQUAL(json_object_get_int(v), 39);
    CU_ASSERT(json_object_object_get_ex(labels, "x", &v));
    CU_ASSERT_EQUAL(json_object_object_length(labels), 42);
    CU_ASSERT_EQUAL(json_object_array_length(list), 43);
    json_object_object_del(labels, "x"); /* a shared key is not freed with its entry */
    CU_ASSERT(!json_object_object_get_ex(labels, "x", &v));
    json_object_put(o);
    CU_ASSERT_PTR_NULL(kube_json_compact(NULL));
    /* every size of table finds every key after compaction, and again after an insert */
    for (int n = 0; n <= 40; n++) {
        struct json_object *src = json_object_new_object();
        for (int i = 0; i < n; i++) {
            char k[16];
            snprintf(k, sizeof(k), "key%d", i);
            json_object_object_add(src, k, json_object_new_int(i));
        }
        struct json_object *cp = kube_json_compact(src);
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                char k[16];
                snprintf(k, sizeof(k), "key%d", i);
                CU_ASSERT(json_object_object_get_ex(cp, k, &v) && json_object_get_int(v) == i);
            }
            CU_ASSERT(!json_object_object_get_ex(cp, "absent", &v));
            json_object_object_add(cp, "added", json_object_new_int(-1));
            CU_ASSERT(json_object_object_get_ex(cp, "added", &v));
        }
        json_object_put(src);
        json_object_put(cp);
    }
    /* short values are shared between objects compacted apart, unique ones are not */
    struct json_object *p1 = json_tokener_parse("{\"kind\":\"Deployment\",\"name\":\"a\","
                                                "\"ok\":true}");
    struct json_object *p2 = json_tokener_parse("{\"kind\":\"Deployment\",\"name\":\"a\","
                                                "\"ok\":true}");
    struct json_object *c1 = kube_json_compact(p1), *c2 = kube_json_compact(p2);
    struct json_object *v1 = NULL, *v2 = NULL;
    json_object_put(p1);
    json_object_put(p2);
    CU_ASSERT(json_object_object_get_ex(c1, "kind", &v1) && json_object_object_get_ex(c2, "kind", &v2));
    CU_ASSERT_PTR_EQUAL(v1, v2);
    CU_ASSERT(json_object_object_get_ex(c1, "ok", &v1) && json_object_object_get_ex(c2, "ok", &v2));
    CU_ASSERT_PTR_EQUAL(v1, v2);
    CU_ASSERT(json_object_object_get_ex(c1, "name", &v1) && json_object_object_get_ex(c2, "name", &v2));
    CU_ASSERT_PTR_NOT_EQUAL(v1, v2);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(v1), json_object_get_string(v2));
    json_object_put(c1);
    json_object_put(c2);
    /* a key past the shared length is copied, and the object is the same */
    char big[200];
    memset(big, 'k', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, big, json_object_new_int(1));
    struct json_object *bc = kube_json_compact(b);
    CU_ASSERT(json_object_equal(b, bc));
    json_object_put(b);
    json_object_put(bc);
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

static int relisted_twice(struct wt *w)
{
    return w->sc.nlists >= 3 && w->sc.nwatches >= 2;
}

/* Frozen: a relist keeps no copy of an item cached at the same version, only marks it listed.
 * The mark must not outlive a list that fails: here the relist's first page replays a and b,
 * its next page is a 410 (the continue token expired), and the list that starts over no
 * longer holds b, which is then deleted as in the relist that did not fail. */
static void test_frozen_relist_restarted(void)
{
    frozen_mode = 1;
    struct it t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.lists[1][0] = "watch/list-a-1.json";
    t.w.sc.lists[1][1] = "410";
    t.w.sc.lists[2][0] = "watch/list-b.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-gone.jsonl", END_KEEP, 0, NULL, 0};
    start(&t);
    CU_ASSERT(wf_run_until(&t.w, relisted_twice, 5000));
    static const char *const want[] = {
        "add a 10",    "add b 11", "add c 12",    "add d 21",
        "update a 30", "add f 31", "delete b 11", NULL,
    };
    CU_ASSERT(wf_log_is(&t.w, want));
    CU_ASSERT_EQUAL(t.w.synced, 1);
    CU_ASSERT_EQUAL(kube_informer_size(&t.inf), 4);
    CU_ASSERT_PTR_NULL(kube_informer_get(&t.inf, "ns1", "b"));
    /* c and d were replayed: still cached, at their version */
    CU_ASSERT_STRING_EQUAL(rv_of(kube_informer_get(&t.inf, "ns1", "c")), "12");
    CU_ASSERT_STRING_EQUAL(rv_of(kube_informer_get(&t.inf, "ns1", "d")), "21");
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "40");
    stop(&t);
    frozen_mode = 0;
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

/* ---- a live, stateful server: random changes, random drops, a short history window ---- */

#define NOBJ 16
#define HIST 3
#define MAXW 8

struct live {
    uv_loop_t loop;
    uv_timer_t mutate;
    struct fake_server srv;
    struct kube_config cfg;
    struct kube_client *client;
    struct kube_informer inf;
    unsigned rng;
    long rv;           /* global resourceVersion */
    long obj_rv[NOBJ]; /* 0: absent */
    struct {
        char type[10];
        int obj;
        long rv;
    } hist[HIST]; /* ring of the last HIST changes */
    int nhist;
    long window_start; /* oldest version a watch may resume from */
    struct fake_conn *watchers[MAXW];
    int mutations, drops, gones, lists;
    long cache_rv[NOBJ]; /* what the informer told us */
    int dup, bad;
    int closed, informer_closed;
};

static unsigned live_rand(struct live *l)
{
    l->rng = l->rng * 1103515245u + 12345u;
    return l->rng >> 8;
}

static void obj_json(char *buf, size_t cap, int i, long rv)
{
    snprintf(buf, cap,
             "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"o%d\","
             "\"namespace\":\"ns\",\"resourceVersion\":\"%ld\"}}",
             i, rv);
}

static void send_event(struct fake_conn *c, const char *type, int i, long rv)
{
    char obj[256], ev[400];
    obj_json(obj, sizeof(obj), i, rv);
    int n = snprintf(ev, sizeof(ev), "{\"type\":\"%s\",\"object\":%s}\n", type, obj);
    fake_stream_send(c, ev, (size_t)n);
}

static void live_conn_closed(struct fake_server *s, struct fake_conn *c)
{
    struct live *l = s->ud;
    for (int i = 0; i < MAXW; i++)
        if (l->watchers[i] == c)
            l->watchers[i] = NULL;
}

static void live_handler(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    struct live *l = s->ud;
    char v[64];
    if (!fake_query(r, "watch", v, sizeof(v))) {
        /* The whole list in one page (a server may answer a smaller page than asked). */
        char body[8192];
        size_t len = (size_t)snprintf(body, sizeof(body),
                                      "{\"kind\":\"ConfigMapList\",\"metadata\":{"
                                      "\"resourceVersion\":\"%ld\"},\"items\":[",
                                      l->rv);
        int first = 1;
        for (int i = 0; i < NOBJ; i++) {
            if (!l->obj_rv[i])
                continue;
            char obj[256];
            obj_json(obj, sizeof(obj), i, l->obj_rv[i]);
            len += (size_t)snprintf(body + len, sizeof(body) - len, "%s%s", first ? "" : ",", obj);
            first = 0;
        }
        snprintf(body + len, sizeof(body) - len, "]}");
        l->lists++;
        fake_respond(c, 200, NULL, body);
        return;
    }
    fake_query(r, "resourceVersion", v, sizeof(v));
    long from = strtol(v, NULL, 10);
    if (from < l->window_start) {
        l->gones++;
        if (l->gones % 2) {
            fake_status(c, 410, "Expired", "too old resource version", NULL);
        } else {
            static const char gone[] = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
                                       "\"code\":410,\"reason\":\"Expired\"}}\n";
            fake_stream_start(c);
            fake_stream_send(c, gone, sizeof(gone) - 1);
            fake_stream_end(c);
        }
        return;
    }
    fake_stream_start(c);
    /* Replay what happened after `from`, oldest first. */
    int n = l->nhist < HIST ? l->nhist : HIST;
    for (int k = n; k > 0; k--) {
        int idx = (l->nhist - k) % HIST;
        if (l->hist[idx].rv > from)
            send_event(c, l->hist[idx].type, l->hist[idx].obj, l->hist[idx].rv);
    }
    for (int i = 0; i < MAXW; i++) {
        if (!l->watchers[i]) {
            l->watchers[i] = c;
            return;
        }
    }
    fake_drop(c);
}

static void on_mutate(uv_timer_t *t)
{
    struct live *l = t->data;
    if (l->mutations >= 300) {
        uv_timer_stop(t);
        return;
    }
    l->mutations++;
    int i = (int)(live_rand(l) % NOBJ);
    const char *type;
    long rv = ++l->rv;
    if (!l->obj_rv[i]) {
        type = "ADDED";
        l->obj_rv[i] = rv;
    } else if (live_rand(l) % 3 == 0) {
        type = "DELETED";
        l->obj_rv[i] = 0;
    } else {
        type = "MODIFIED";
        l->obj_rv[i] = rv;
    }
    int idx = l->nhist % HIST;
    snprintf(l->hist[idx].type, sizeof(l->hist[idx].type), "%s", type);
    l->hist[idx].obj = i;
    l->hist[idx].rv = rv;
    l->nhist++;
    if (l->nhist > HIST && l->hist[l->nhist % HIST].rv > l->window_start)
        l->window_start = l->hist[l->nhist % HIST].rv; /* the oldest still in the ring */
    for (int w = 0; w < MAXW; w++) {
        if (!l->watchers[w])
            continue;
        send_event(l->watchers[w], type, i, rv);
        /* Now and then a stream breaks, sometimes mid-event. */
        if (live_rand(l) % 23 == 0) {
            if (live_rand(l) % 2)
                fake_stream_send(l->watchers[w], "{\"type\":\"MODIF", 14);
            fake_drop(l->watchers[w]);
            l->watchers[w] = NULL;
            /* Every third drop comes with a compaction: resuming is impossible, relist. */
            if (l->drops++ % 3 == 0)
                l->window_start = l->rv + 1;
        } else if (live_rand(l) % 17 == 0) {
            char bm[128];
            int n = snprintf(bm, sizeof(bm),
                             "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{"
                             "\"resourceVersion\":\"%ld\"}}}\n",
                             l->rv);
            fake_stream_send(l->watchers[w], bm, (size_t)n);
        }
    }
}

static int obj_index(struct json_object *o, long *rv)
{
    struct json_object *md, *name, *v;
    if (!json_object_object_get_ex(o, "metadata", &md) ||
        !json_object_object_get_ex(md, "name", &name) ||
        !json_object_object_get_ex(md, "resourceVersion", &v))
        return -1;
    *rv = strtol(json_object_get_string(v), NULL, 10);
    int i = (int)strtol(json_object_get_string(name) + 1, NULL, 10);
    return i >= 0 && i < NOBJ ? i : -1;
}

static void l_add(void *ud, struct json_object *obj)
{
    struct live *l = ud;
    long rv;
    int i = obj_index(obj, &rv);
    if (i < 0 || l->cache_rv[i] != 0)
        l->bad++; /* an add for something we already have */
    else
        l->cache_rv[i] = rv;
}

static void l_update(void *ud, struct json_object *old_obj, struct json_object *new_obj)
{
    struct live *l = ud;
    long rv;
    int i = obj_index(new_obj, &rv);
    if (i < 0 || l->cache_rv[i] == 0)
        l->bad++;
    else if (rv <= l->cache_rv[i])
        l->dup++; /* replayed or went backwards */
    else
        l->cache_rv[i] = rv;
}

static void l_delete(void *ud, struct json_object *obj)
{
    struct live *l = ud;
    long rv;
    int i = obj_index(obj, &rv);
    if (i < 0 || l->cache_rv[i] == 0)
        l->bad++;
    else
        l->cache_rv[i] = 0;
}

static int live_converged(struct live *l)
{
    if (l->mutations < 300)
        return 0;
    for (int i = 0; i < NOBJ; i++)
        if (l->cache_rv[i] != l->obj_rv[i])
            return 0;
    return 1;
}

static void live_client_closed(void *ud)
{
    ((struct live *)ud)->closed = 1;
}

static void live_informer_closed(struct kube_informer *inf)
{
    struct live *l = (struct live *)((char *)inf - offsetof(struct live, inf));
    l->informer_closed = 1;
}

static int live_frozen; /* the next live run packs its cache */

static void test_live_server_converges(void)
{
    static struct live l;
    memset(&l, 0, sizeof(l));
    l.rng = 12345;
    l.rv = 100;
    CU_ASSERT_FATAL(uv_loop_init(&l.loop) == 0);
    CU_ASSERT_FATAL(fake_server_start(&l.srv, &l.loop, live_handler, &l) == 0);
    l.srv.on_conn_close = live_conn_closed;
    l.cfg.server = muster_strdup(l.srv.url);
    CU_ASSERT_FATAL(kube_client_new(&l.loop, &l.cfg, NULL, &l.client) == 0);
    static const struct kube_informer_handler h = {l_add, l_update, l_delete, NULL, NULL};
    struct kube_reflector_opts o = {
        .path = "/api/v1/configmaps", .backoff_initial_ms = 8, .backoff_max_ms = 20};
    CU_ASSERT_FATAL(kube_informer_init(&l.inf, &l.loop, l.client, &o, &h, &l) == 0);
    if (live_frozen)
        kube_informer_set_frozen(&l.inf);
    CU_ASSERT_FATAL(kube_informer_start(&l.inf) == 0);
    uv_timer_init(&l.loop, &l.mutate);
    l.mutate.data = &l;
    uv_timer_start(&l.mutate, on_mutate, 5, 2);

    uv_update_time(&l.loop);
    uint64_t deadline = uv_now(&l.loop) + 15000;
    while (!live_converged(&l) && uv_now(&l.loop) < deadline)
        uv_run(&l.loop, UV_RUN_ONCE);
    CU_ASSERT(live_converged(&l));
    CU_ASSERT_EQUAL(l.dup, 0);
    CU_ASSERT_EQUAL(l.bad, 0);
    /* The run really went through drops and 410s. */
    CU_ASSERT(l.drops > 0);
    CU_ASSERT(l.gones > 0 && l.lists > 1);
    size_t live_objs = 0;
    for (int i = 0; i < NOBJ; i++)
        live_objs += l.obj_rv[i] != 0;
    CU_ASSERT_EQUAL(kube_informer_size(&l.inf), live_objs);
    fprintf(stderr, "[%d mutations, %d drops, %d gone, %d lists] ", l.mutations, l.drops, l.gones,
            l.lists);

    kube_informer_close(&l.inf, live_informer_closed);
    kube_client_close(l.client, live_client_closed, &l);
    fake_server_close(&l.srv);
    uv_close((uv_handle_t *)&l.mutate, NULL);
    uv_run(&l.loop, UV_RUN_DEFAULT);
    CU_ASSERT(l.closed && l.informer_closed);
    CU_ASSERT_EQUAL(uv_loop_close(&l.loop), 0);
    kube_config_close(&l.cfg);
}

/* Frozen, against the live server: its relists (one page each) mostly replay what is cached */
static void test_frozen_live_server_converges(void)
{
    live_frozen = 1;
    test_live_server_converges();
    live_frozen = 0;
}

/* Frozen: the same scenarios see the same changes, and a lookup after a trim thaws an equal
 * object anew. */
static void test_frozen_same_changes(void)
{
    frozen_mode = 1;
    test_resume_after_drop();
    test_relist_diff_after_410_event();

    struct it t;
    resume_scenario(&t);
    start(&t);
    CU_ASSERT(wf_run_until(&t.w, seven, 5000));
    struct json_object *a = kube_informer_get(&t.inf, "ns1", "a");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    struct json_object *kept = json_object_get(a);
    CU_ASSERT_PTR_EQUAL(kube_informer_get(&t.inf, "ns1", "a"), a); /* cached until a trim */
    kube_informer_trim(&t.inf);
    struct json_object *again = kube_informer_get(&t.inf, "ns1", "a");
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_PTR_NOT_EQUAL(again, kept); /* thawed anew */
    CU_ASSERT_TRUE(json_object_equal(again, kept));
    CU_ASSERT_STRING_EQUAL(rv_of(again), "22");
    json_object_put(kept);
    CU_ASSERT_PTR_NULL(kube_informer_get(&t.inf, "ns1", "b"));
    stop(&t);
    frozen_mode = 0;
}

/* A walk whose callback trims the cache (musterd's cool points do) still reads each object it
 * is given: the walk holds it for the call (ASan would see a read of freed memory). */
static struct kube_informer *walked_inf;
static int walked;

static void trim_then_read(void *ud, struct json_object *obj)
{
    (void)ud;
    kube_informer_trim(walked_inf);
    CU_ASSERT(rv_of(obj)[0] != '\0');
    walked++;
}

static void test_frozen_walk_survives_trim(void)
{
    frozen_mode = 1;
    struct it t;
    resume_scenario(&t);
    start(&t);
    CU_ASSERT(wf_run_until(&t.w, seven, 5000));
    CU_ASSERT_PTR_NOT_NULL(kube_informer_get(&t.inf, "ns1", "a")); /* thawed into the cache */
    walked_inf = &t.inf;
    walked = 0;
    kube_informer_foreach(&t.inf, trim_then_read, NULL);
    CU_ASSERT_EQUAL(walked, 4);
    stop(&t);
    frozen_mode = 0;
}

/* Frozen: every object thawed at once is found again as the same tree until the trim (the
 * informer's thaw table, not the entries, holds them), and each is thawed anew after it. */
static char walked_names[8][64];

static void note_name(void *ud, struct json_object *obj)
{
    (void)ud;
    struct json_object *md, *v;
    if (walked < 8 && json_object_object_get_ex(obj, "metadata", &md) &&
        json_object_object_get_ex(md, "name", &v))
        snprintf(walked_names[walked++], sizeof walked_names[0], "%s", json_object_get_string(v));
}

static void test_frozen_thaw_table(void)
{
    frozen_mode = 1;
    struct it t;
    resume_scenario(&t);
    start(&t);
    CU_ASSERT(wf_run_until(&t.w, seven, 5000));
    kube_informer_trim(&t.inf);
    walked = 0;
    kube_informer_foreach(&t.inf, note_name, NULL);
    CU_ASSERT_EQUAL_FATAL(walked, 4);
    struct json_object *held[4];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < walked; i++) {
            struct json_object *o = kube_informer_get(&t.inf, "ns1", walked_names[i]);
            CU_ASSERT_PTR_NOT_NULL_FATAL(o);
            if (round == 0)
                held[i] = json_object_get(o);
            else
                CU_ASSERT_PTR_NOT_EQUAL(o, held[i]); /* thawed anew after the trim */
            CU_ASSERT_TRUE(json_object_equal(o, held[i]));
        }
        /* in any order, every one is still the tree thawed first */
        for (int i = walked - 1; round == 0 && i >= 0; i--)
            CU_ASSERT_PTR_EQUAL(kube_informer_get(&t.inf, "ns1", walked_names[i]), held[i]);
        kube_informer_trim(&t.inf);
    }
    for (int i = 0; i < walked; i++)
        json_object_put(held[i]);
    /* thawed when the informer closes: let go with it (ASan: no leak) */
    CU_ASSERT_PTR_NOT_NULL(kube_informer_get(&t.inf, "ns1", walked_names[0]));
    stop(&t);
    frozen_mode = 0;
}

static CU_TestInfo tests[] = {
    {"frozen: the thaw table finds each thawed tree until the trim", test_frozen_thaw_table},
    {"frozen: a walk whose callback trims still reads each object", test_frozen_walk_survives_trim},
    {"resume after a dropped stream: nothing lost or repeated", test_resume_after_drop},
    {"frozen: the same changes, lookups thawed anew after a trim", test_frozen_same_changes},
    {"relist after a 410 ERROR event, diffed", test_relist_diff_after_410_event},
    {"relist after HTTP 410, diffed", test_relist_diff_after_http_410},
    {"client closed before the informer", test_client_closed_first},
    {"transform: the cache and every callback hold the transformed object", test_transform},
    {"compaction keeps text, lookups and writability", test_compact},
    {"an update shares what did not change with the version it replaces",
     test_update_shares_unchanged},
    {"an update shares an array's unchanged elements, and an unchanged status whole",
     test_update_shares_elements},
    {"live server with drops and 410s: cache converges, no duplicates", test_live_server_converges},
    {"frozen: a relist that starts over forgets what its failed attempt replayed",
     test_frozen_relist_restarted},
    {"frozen: live server with drops and 410s converges", test_frozen_live_server_converges},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/informer", tests)
