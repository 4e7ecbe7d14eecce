/* Tests for cluster-adapters/kube/watch.c (the reflector) against the scripted fake server:
 * paginated list, watch resume after a dropped stream (bookmarks advance the version), 410
 * relist, over-size events, 429 Retry-After on a watch. */
#include "cluster-adapters/kube/watch.h"
#include "cluster-adapters/kube/errors.h"
#include "testing.h"
#include "watchfake.h"

#define RB_PATH "/apis/work.karmada.io/v1alpha2/resourcebindings"

struct rt {
    struct wt w; /* first: the handlers get the reflector's ud */
    struct kube_reflector r;
    int reflector_closed;
    size_t last_list_len;
};

static void r_on_list(void *ud, struct json_object *items, const char *rv)
{
    struct rt *t = ud;
    t->w.lists++;
    t->last_list_len = json_object_array_length(items);
    for (size_t i = 0; i < t->last_list_len; i++)
        wf_log(&t->w, "list", json_object_array_get_idx(items, i));
}

static void r_on_event(void *ud, enum kube_event_type type, struct json_object *obj)
{
    struct rt *t = ud;
    static const char *const names[] = {"ADDED", "MODIFIED", "DELETED"};
    wf_log(&t->w, names[type], obj);
}

static void r_on_error(void *ud, int err, const struct kube_status *st)
{
    struct rt *t = ud;
    if (t->w.nerrors < EVLOG)
        t->w.errors[t->w.nerrors++] = err;
}

static void r_closed(struct kube_reflector *r)
{
    struct rt *t = (struct rt *)((char *)r - offsetof(struct rt, r));
    t->reflector_closed = 1;
}

static const struct kube_reflector_handler handler = {r_on_list, r_on_event, r_on_error, NULL, NULL};

static void start(struct rt *t, const struct kube_reflector_opts *extra,
                  const struct kube_client_opts *copts)
{
    wf_setup(&t->w, copts);
    struct kube_reflector_opts o = {
        .path = RB_PATH, .page_size = 2, .backoff_initial_ms = 10, .backoff_max_ms = 40};
    if (extra && extra->max_event)
        o.max_event = extra->max_event;
    if (extra && extra->backoff_initial_ms) {
        o.backoff_initial_ms = extra->backoff_initial_ms;
        o.backoff_max_ms = extra->backoff_initial_ms;
    }
    CU_ASSERT_FATAL(kube_reflector_init(&t->r, &t->w.loop, t->w.client, &o, &handler, t) == 0);
    CU_ASSERT_FATAL(kube_reflector_start(&t->r) == 0);
}

static void stop(struct rt *t)
{
    kube_reflector_close(&t->r, r_closed);
    wf_teardown(&t->w);
    CU_ASSERT(t->reflector_closed);
}

static int nlog_at_least_7(struct wt *w)
{
    return w->nlog >= 7;
}

static void test_list_pages_then_resume_after_drop(void)
{
    struct rt t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-resume-1.jsonl", END_DROP, 0, NULL, 0};
    t.w.sc.watches[1] = (struct watch_step){"watch/events-resume-2.jsonl", END_KEEP, 0, NULL, 0};
    start(&t, NULL, NULL);
    CU_ASSERT(wf_run_until(&t.w, nlog_at_least_7, 5000));
    static const char *const want[] = {
        "list a 10",     "list b 11",    "list c 12",  "ADDED d 21",
        "MODIFIED a 22", "DELETED b 24", "ADDED e 25", NULL,
    };
    CU_ASSERT(wf_log_is(&t.w, want));
    /* One list of two pages with limit, then watches from 20 and, after the drop, from the
     * bookmark's 23: nothing replayed, nothing skipped. */
    CU_ASSERT_EQUAL(t.w.lists, 1);
    CU_ASSERT_EQUAL(t.w.sc.list_requests, 2);
    CU_ASSERT_STRING_EQUAL(t.w.sc.list_query[0], "limit=2");
    CU_ASSERT_STRING_EQUAL(t.w.sc.list_query[1], "limit=2&continue=p1");
    CU_ASSERT_EQUAL(t.w.sc.nwatches, 2);
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[0], "20");
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "23");
    CU_ASSERT_PTR_NOT_NULL(strstr(t.w.sc.watch_query[0], "allowWatchBookmarks=true"));
    const char *ts = strstr(t.w.sc.watch_query[0], "timeoutSeconds=");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
    long secs = strtol(ts + 15, NULL, 10);
    CU_ASSERT(secs >= KUBE_WATCH_TIMEOUT_S && secs < 2 * KUBE_WATCH_TIMEOUT_S);
    CU_ASSERT_STRING_EQUAL(kube_reflector_version(&t.r), "25");
    CU_ASSERT(t.w.nerrors >= 1); /* the drop is reported */
    CU_ASSERT_EQUAL(t.r.stats.bookmarks, 1);
    stop(&t);
}

static int relisted(struct wt *w)
{
    return w->lists >= 2 && w->sc.nwatches >= 2;
}

static void test_relist_on_410_error_event(void)
{
    struct rt t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.lists[1][0] = "watch/list-b.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-gone.jsonl", END_KEEP, 0, NULL, 0};
    start(&t, NULL, NULL);
    CU_ASSERT(wf_run_until(&t.w, relisted, 5000));
    CU_ASSERT_EQUAL(t.r.stats.relists_gone, 1);
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[0], "20");
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "40");
    CU_ASSERT_EQUAL(t.last_list_len, 4);
    stop(&t);
}

static void test_relist_on_http_410(void)
{
    struct rt t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.lists[1][0] = "watch/list-b.json";
    t.w.sc.watches[0] = (struct watch_step){NULL, END_HTTP, 410, NULL, 0};
    start(&t, NULL, NULL);
    CU_ASSERT(wf_run_until(&t.w, relisted, 5000));
    CU_ASSERT_EQUAL(t.r.stats.relists_gone, 1);
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "40");
    stop(&t);
}

static int saw_h(struct wt *w)
{
    for (int i = 0; i < w->nlog; i++)
        if (strcmp(w->log[i], "ADDED h 23") == 0)
            return 1;
    return 0;
}

static void test_oversize_event_rejected(void)
{
    struct rt t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-oversize.jsonl", END_KEEP, 0, NULL, 0};
    t.w.sc.watches[1] =
        (struct watch_step){"watch/events-after-oversize.jsonl", END_KEEP, 0, NULL, 0};
    struct kube_reflector_opts o = {.max_event = 1024};
    start(&t, &o, NULL);
    CU_ASSERT(wf_run_until(&t.w, saw_h, 5000));
    static const char *const want[] = {
        "list a 10", "list b 11", "list c 12", "ADDED d 21", "ADDED h 23", NULL,
    };
    CU_ASSERT(wf_log_is(&t.w, want));
    int limit_seen = 0;
    for (int i = 0; i < t.w.nerrors; i++)
        limit_seen |= t.w.errors[i] == MUSTER_ELIMIT;
    CU_ASSERT(limit_seen);
    /* The rejected stream is resumed after the last event that fitted. */
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "21");
    stop(&t);
}

static int watched_twice(struct wt *w)
{
    return w->sc.nwatches >= 2;
}

static void test_watch_429_retry_after(void)
{
    struct rt t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.watches[0] = (struct watch_step){NULL, END_HTTP, 429, "Retry-After: 1\r\n", 0};
    t.w.sc.watches[1] = (struct watch_step){"watch/events-resume-2.jsonl", END_KEEP, 0, NULL, 0};
    /* No client-level retry: the reflector itself must wait out Retry-After, not its 10 ms
     * back-off. */
    struct kube_client_opts co = {.max_retries = -1};
    start(&t, NULL, &co);
    CU_ASSERT(wf_run_until(&t.w, watched_twice, 5000));
    CU_ASSERT(t.w.sc.watch_at[1] - t.w.sc.watch_at[0] >= 1000);
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "20");
    CU_ASSERT(t.w.nerrors >= 1 && t.w.errors[0] == MUSTER_ETOOMANY);
    stop(&t);
}

static int resumed_after_clean_end(struct wt *w)
{
    return w->nlog >= 6;
}

/* The server ends a stream on its own (timeoutSeconds): the next watch starts at once from the
 * last version, without an error. */
static void test_clean_end_resumes(void)
{
    struct rt t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "watch/list-a-2.json";
    t.w.sc.watches[0] = (struct watch_step){"watch/events-resume-1.jsonl", END_CLEAN, 0, NULL, 0};
    t.w.sc.watches[1] =
        (struct watch_step){"watch/events-after-oversize.jsonl", END_KEEP, 0, NULL, 0};
    struct kube_reflector_opts o = {.backoff_initial_ms = 5000}; /* a back-off would time out */
    start(&t, &o, NULL);
    CU_ASSERT(wf_run_until(&t.w, resumed_after_clean_end, 3000));
    static const char *const want[] = {
        "list a 10", "list b 11", "list c 12", "ADDED d 21", "MODIFIED a 22", "ADDED h 23", NULL,
    };
    CU_ASSERT(wf_log_is(&t.w, want));
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "23");
    CU_ASSERT_EQUAL(t.w.nerrors, 0);
    stop(&t);
}

static int listed_once(struct wt *w)
{
    return w->lists >= 1 && w->sc.nwatches >= 1;
}

/* Page two answers 410 (continue token expired): the list starts over and only the complete
 * second list is delivered. */
static void test_expired_continue_restarts_list(void)
{
    struct rt t;
    memset(&t, 0, sizeof(t));
    t.w.sc.lists[0][0] = "watch/list-a-1.json";
    t.w.sc.lists[0][1] = "410";
    t.w.sc.lists[1][0] = "watch/list-b.json";
    start(&t, NULL, NULL);
    CU_ASSERT(wf_run_until(&t.w, listed_once, 3000));
    CU_ASSERT_EQUAL(t.w.lists, 1);
    CU_ASSERT_EQUAL(t.last_list_len, 4);
    CU_ASSERT_EQUAL(t.w.sc.list_requests, 3);
    CU_ASSERT_STRING_EQUAL(t.w.sc.list_query[2], "limit=2");
    CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[0], "40");
    CU_ASSERT(t.w.nerrors == 1 && t.w.errors[0] == MUSTER_EGONE);
    stop(&t);
}

/* The same stream cut at every byte, at odd sizes, and with several events per chunk decodes to
 * the same events. */
static void test_any_chunking(void)
{
    static const size_t sizes[] = {1, 7, 100, 4096};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        struct rt t;
        memset(&t, 0, sizeof(t));
        t.w.sc.lists[0][0] = "watch/list-a-1.json";
        t.w.sc.lists[0][1] = "watch/list-a-2.json";
        t.w.sc.watches[0] =
            (struct watch_step){"watch/events-resume-1.jsonl", END_DROP, 0, NULL, sizes[k]};
        t.w.sc.watches[1] =
            (struct watch_step){"watch/events-resume-2.jsonl", END_KEEP, 0, NULL, sizes[k]};
        start(&t, NULL, NULL);
        CU_ASSERT(wf_run_until(&t.w, nlog_at_least_7, 5000));
        static const char *const want[] = {
            "list a 10",     "list b 11",    "list c 12",  "ADDED d 21",
            "MODIFIED a 22", "DELETED b 24", "ADDED e 25", NULL,
        };
        CU_ASSERT(wf_log_is(&t.w, want));
        CU_ASSERT_STRING_EQUAL(t.w.sc.watch_rv[1], "23");
        stop(&t);
    }
}

/* ---- the decoder alone ---- */

struct dec_log {
    int n;
    char names[8][16];
};

static int dec_collect(void *ud, struct json_object *ev)
{
    struct dec_log *l = ud;
    struct json_object *t;
    if (l->n < 8 && json_object_object_get_ex(ev, "type", &t))
        snprintf(l->names[l->n], sizeof(l->names[0]), "%s", json_object_get_string(t));
    l->n++;
    return 0;
}

static void test_decoder_split_anywhere(void)
{
    static const char stream[] = "{\"type\":\"ADDED\",\"object\":{\"a\":\"}{\\\"\"}}\n"
                                 "  {\"type\":\"BOOKMARK\",\"object\":{}}\r\n"
                                 "{\"type\":\"DELETED\",\"object\":{\"n\":[1,2,{\"x\":null}]}}";
    size_t len = sizeof(stream) - 1;
    struct kube_watch_decoder d;
    CU_ASSERT_FATAL(kube_watch_decoder_init(&d, 0) == 0);
    for (size_t cut1 = 0; cut1 <= len; cut1++) {
        for (size_t cut2 = cut1; cut2 <= len; cut2 += 7) {
            struct dec_log l = {0};
            kube_watch_decoder_reset(&d);
            CU_ASSERT_EQUAL(kube_watch_decode(&d, stream, cut1, dec_collect, &l), 0);
            CU_ASSERT_EQUAL(kube_watch_decode(&d, stream + cut1, cut2 - cut1, dec_collect, &l), 0);
            CU_ASSERT_EQUAL(kube_watch_decode(&d, stream + cut2, len - cut2, dec_collect, &l), 0);
            CU_ASSERT_EQUAL(l.n, 3);
            CU_ASSERT_STRING_EQUAL(l.names[0], "ADDED");
            CU_ASSERT_STRING_EQUAL(l.names[1], "BOOKMARK");
            CU_ASSERT_STRING_EQUAL(l.names[2], "DELETED");
        }
    }
    kube_watch_decoder_close(&d);
}

static void test_decoder_limits_and_garbage(void)
{
    struct kube_watch_decoder d;
    CU_ASSERT_FATAL(kube_watch_decoder_init(&d, 32) == 0);
    struct dec_log l = {0};
    /* 31 bytes fit, 33 do not, whether they come at once or a byte at a time. */
    static const char fits[] = "{\"type\":\"ADDED\",\"object\":{\"\":1}}";
    static const char over[] = "{\"type\":\"ADDED\",\"object\":{\"xx\":12}}";
    CU_ASSERT(sizeof(fits) - 1 <= 32 && sizeof(over) - 1 > 32);
    CU_ASSERT_EQUAL(kube_watch_decode(&d, fits, sizeof(fits) - 1, dec_collect, &l), 0);
    CU_ASSERT_EQUAL(l.n, 1);
    CU_ASSERT_EQUAL(kube_watch_decode(&d, over, sizeof(over) - 1, dec_collect, &l), MUSTER_ELIMIT);
    int rc = 0;
    for (size_t i = 0; i < sizeof(over) - 1 && rc == 0; i++)
        rc = kube_watch_decode(&d, over + i, 1, dec_collect, &l);
    CU_ASSERT_EQUAL(rc, MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(l.n, 1);
    /* Whitespace after an event does not count against the cap (found by fuzz_watch_decode). */
    char padded[200];
    memset(padded, '\n', sizeof(padded));
    memcpy(padded, "{}", 2);
    CU_ASSERT_EQUAL(kube_watch_decode(&d, padded, sizeof(padded), dec_collect, &l), 0);
    CU_ASSERT_EQUAL(l.n, 2);
    /* Events are objects: a bare scalar is refused, not split at a chunk boundary. */
    CU_ASSERT_EQUAL(kube_watch_decode(&d, "12", 2, dec_collect, &l), MUSTER_EPROTO);
    /* After an error the decoder starts clean. */
    CU_ASSERT_EQUAL(kube_watch_decode(&d, "]oops", 5, dec_collect, &l), MUSTER_EPROTO);
    CU_ASSERT_EQUAL(kube_watch_decode(&d, fits, sizeof(fits) - 1, dec_collect, &l), 0);
    CU_ASSERT_EQUAL(l.n, 3);
    kube_watch_decoder_close(&d);
}

/* Bytes that cannot be JSON are refused as they arrive, not once the event would end; an event
 * whose brackets close but whose text is not JSON is refused when it ends. */
static void test_decoder_refuses_early(void)
{
    struct kube_watch_decoder d;
    CU_ASSERT_FATAL(kube_watch_decoder_init(&d, 0) == 0);
    struct dec_log l = {0};
    static const char *const early[] = {"{\"a\":[1}", "{\"a\":1]", "{\"a\":#",
                                        "{\"a\":{\"x\":2]", "{\"a\":\x01"};
    for (size_t i = 0; i < sizeof early / sizeof *early; i++) {
        kube_watch_decoder_reset(&d);
        CU_ASSERT_EQUAL(kube_watch_decode(&d, early[i], strlen(early[i]), dec_collect, &l),
                        MUSTER_EPROTO);
    }
    CU_ASSERT_EQUAL(l.n, 0);
    static const char *const late[] = {"{\"a\":tru}", "{\"a\" 1}", "{\"a\":1,}",
                                       "{\"a\":\"\\q\"}", "{\"a\":01}"};
    for (size_t i = 0; i < sizeof late / sizeof *late; i++) {
        kube_watch_decoder_reset(&d);
        size_t n = strlen(late[i]);
        /* all but the closing bracket: nothing refused yet */
        CU_ASSERT_EQUAL(kube_watch_decode(&d, late[i], n - 1, dec_collect, &l), 0);
        CU_ASSERT_EQUAL(kube_watch_decode(&d, late[i] + n - 1, 1, dec_collect, &l), MUSTER_EPROTO);
    }
    /* brackets and backslashes inside strings do not count */
    kube_watch_decoder_reset(&d);
    static const char ok[] = "{\"type\":\"ADDED\",\"object\":{\"a\":\"]}\\\\\\\"{[\"}}";
    CU_ASSERT_EQUAL(kube_watch_decode(&d, ok, sizeof ok - 1, dec_collect, &l), 0);
    CU_ASSERT_EQUAL(l.n, 1);
    kube_watch_decoder_close(&d);
}

/* Strings are skipped eight bytes at a time (kube_json_plain_run): brackets, escaped quotes and
 * backslashes at every place of long strings, cut at every byte, still frame the same events,
 * and a cap that falls inside a long string still holds. */
static void test_decoder_long_strings(void)
{
    char stream[2048];
    size_t len = 0;
    static const char *const odd[] = {"}", "{", "\\\"", "\\\\", "]"};
    for (int e = 0; e < 5; e++) {
        char s[64];
        memset(s, 'x', 40);
        size_t ol = strlen(odd[e]);
        memcpy(s + 3 + 7 * e, odd[e], ol);
        s[40] = 0;
        len += (size_t)snprintf(stream + len, sizeof stream - len,
                                "{\"type\":\"MODIFIED\",\"object\":{\"k%d\":\"%s\"}}\n", e, s);
    }
    struct kube_watch_decoder d;
    CU_ASSERT_FATAL(kube_watch_decoder_init(&d, 0) == 0);
    for (size_t cut = 0; cut <= len; cut++) {
        struct dec_log l = {0};
        kube_watch_decoder_reset(&d);
        CU_ASSERT_EQUAL(kube_watch_decode(&d, stream, cut, dec_collect, &l), 0);
        CU_ASSERT_EQUAL(kube_watch_decode(&d, stream + cut, len - cut, dec_collect, &l), 0);
        CU_ASSERT_EQUAL(l.n, 5);
    }
    kube_watch_decoder_close(&d);
    /* 60 bytes allowed: the second event's string runs past them */
    static const char capped[] = "{\"type\":\"ADDED\",\"object\":{\"a\":\"b\"}}"
                                 "{\"type\":\"ADDED\",\"object\":{\"a\":\"xxxxxxxxxxxxxxxxxxxxxxxxxx"
                                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}";
    CU_ASSERT_FATAL(kube_watch_decoder_init(&d, 60) == 0);
    struct dec_log l = {0};
    CU_ASSERT_EQUAL(kube_watch_decode(&d, capped, sizeof capped - 1, dec_collect, &l),
                    MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(l.n, 1);
    kube_watch_decoder_close(&d);
}

/* Events on lines of their own are parsed from the line at once; what is not one whole event
 * on its line is decided as before: the cap, events spread over lines, garbage. */
static void test_decoder_lines(void)
{
    struct kube_watch_decoder d;
    CU_ASSERT_FATAL(kube_watch_decoder_init(&d, 32) == 0);
    struct dec_log l = {0};
    static const char fits[] = "{\"type\":\"ADDED\",\"object\":{\"\":1}}\n";
    static const char over[] = "{\"type\":\"ADDED\",\"object\":{\"xx\":12}}\n";
    CU_ASSERT_EQUAL(kube_watch_decode(&d, fits, sizeof fits - 1, dec_collect, &l), 0);
    CU_ASSERT_EQUAL(kube_watch_decode(&d, over, sizeof over - 1, dec_collect, &l), MUSTER_ELIMIT);
    CU_ASSERT_EQUAL(l.n, 1);
    kube_watch_decoder_close(&d);
    CU_ASSERT_FATAL(kube_watch_decoder_init(&d, 0) == 0);
    /* pretty-printed: an event over several lines, then two on one line */
    static const char spread[] = "{\n \"type\": \"ADDED\",\n \"object\": {}\n}\n"
                                 "{\"type\":\"MODIFIED\",\"object\":{}}{\"type\":\"DELETED\","
                                 "\"object\":{}}\n";
    CU_ASSERT_EQUAL(kube_watch_decode(&d, spread, sizeof spread - 1, dec_collect, &l), 0);
    CU_ASSERT_EQUAL(l.n, 4);
    CU_ASSERT_STRING_EQUAL(l.names[1], "ADDED");
    CU_ASSERT_STRING_EQUAL(l.names[2], "MODIFIED");
    CU_ASSERT_STRING_EQUAL(l.names[3], "DELETED");
    /* a line whose brackets close but that is not JSON, and one that never closes */
    static const char bad1[] = "{\"type\":\"ADDED\",\"object\":{\"a\" 1}}\n";
    CU_ASSERT_EQUAL(kube_watch_decode(&d, bad1, sizeof bad1 - 1, dec_collect, &l), MUSTER_EPROTO);
    static const char bad2[] = "{\"type\":\"ADDED\",\"object\":{\"a\":[1}}\n";
    CU_ASSERT_EQUAL(kube_watch_decode(&d, bad2, sizeof bad2 - 1, dec_collect, &l), MUSTER_EPROTO);
    CU_ASSERT_EQUAL(l.n, 4);
    kube_watch_decoder_close(&d);
}

static CU_TestInfo tests[] = {
    {"decoder: events on lines, spread over lines, over the cap", test_decoder_lines},
    {"decoder: long strings split anywhere", test_decoder_long_strings},
    {"decoder: events split anywhere", test_decoder_split_anywhere},
    {"decoder: refuses what is not JSON", test_decoder_refuses_early},
    {"decoder: size cap and garbage", test_decoder_limits_and_garbage},
    {"paginated list, resume after drop from the bookmark", test_list_pages_then_resume_after_drop},
    {"relist on a 410 ERROR event", test_relist_on_410_error_event},
    {"relist on HTTP 410", test_relist_on_http_410},
    {"over-size event rejected, stream resumed", test_oversize_event_rejected},
    {"429 Retry-After on a watch", test_watch_429_retry_after},
    {"clean end of stream resumes at once", test_clean_end_resumes},
    {"any chunking of the stream gives the same events", test_any_chunking},
    {"expired continue token restarts the list", test_expired_continue_restarts_list},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/watch", tests)
