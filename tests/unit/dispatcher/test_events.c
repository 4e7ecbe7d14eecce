/* Tests for dispatcher/events.c: the ring, resuming from an id, subscribers, the chart counters. */
#include "dispatcher/events.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"
#include "testing.h"

#include <string.h>

struct seen {
    uint64_t ids[16];
    char last[256];
    size_t n;
};

static void collect(void *ud, const struct disp_event *e)
{
    struct seen *s = ud;
    if (s->n < 16)
        s->ids[s->n] = e->id;
    s->n++;
    snprintf(s->last, sizeof(s->last), "%.*s", (int)e->frame_len, e->frame);
}

static struct json_object *binding(const char *name)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(name));
    json_object_object_add(o, "at", json_object_new_int64(42));
    return o;
}

static void test_ring_keeps_the_newest(void)
{
    struct disp_events *ev = disp_events_new(3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    uint64_t first = disp_events_publish(ev, "binding", binding("a"));
    CU_ASSERT(first > 0);
    CU_ASSERT_EQUAL(disp_events_last_id(ev), first);
    for (int i = 1; i < 5; i++)
        CU_ASSERT_EQUAL(disp_events_publish(ev, "queue", NULL), first + (uint64_t)i);
    struct seen s = {0};
    /* first+1 fell out (the ring holds first+2..first+4): resuming after it would miss it. */
    CU_ASSERT_EQUAL(disp_events_since(ev, first, collect, &s), MUSTER_EGONE);
    CU_ASSERT_EQUAL(s.n, 0);
    CU_ASSERT_EQUAL(disp_events_since(ev, first + 1, collect, &s), 0);
    CU_ASSERT_EQUAL(s.n, 3);
    CU_ASSERT_EQUAL(s.ids[0], first + 2);
    CU_ASSERT_EQUAL(s.ids[2], first + 4);
    s.n = 0;
    CU_ASSERT_EQUAL(disp_events_since(ev, first + 4, collect, &s), 0);
    CU_ASSERT_EQUAL(s.n, 0);
    /* An id this ring never gave (a previous run's, or made up) is a reset too. */
    CU_ASSERT_EQUAL(disp_events_since(ev, first + 5, collect, &s), MUSTER_EGONE);
    disp_events_free(ev);
}

static void test_frames_and_subscribers(void)
{
    struct disp_events *ev = disp_events_new(0);
    struct seen a = {0}, b = {0};
    struct disp_events_sub sa = {collect, &a, NULL, NULL}, sb = {collect, &b, NULL, NULL};
    disp_events_subscribe(ev, &sa);
    disp_events_subscribe(ev, &sb);
    uint64_t id = disp_events_publish(ev, "binding", binding("x"));
    char want[128];
    snprintf(want, sizeof(want), "id: %llu\nevent: binding\ndata: {\"name\":\"x\",\"at\":42}\n\n",
             (unsigned long long)id);
    CU_ASSERT_STRING_EQUAL(a.last, want);
    CU_ASSERT_EQUAL(b.n, 1);
    disp_events_unsubscribe(ev, &sa);
    disp_events_unsubscribe(ev, &sa); /* twice is a no-op */
    disp_events_publish(ev, "notice", NULL);
    CU_ASSERT_EQUAL(a.n, 1);
    CU_ASSERT_EQUAL(b.n, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.last, "\"at\":")); /* added when absent */
    /* Not an object: refused, nothing published. */
    CU_ASSERT_EQUAL(disp_events_publish(ev, "queue", json_object_new_int(1)), 0);
    CU_ASSERT_EQUAL(b.n, 2);
    disp_events_unsubscribe(ev, &sb);
    disp_events_free(ev);
    disp_events_free(NULL);
}

static struct disp_events *self_ev;
static void leave(void *ud, const struct disp_event *e)
{
    (void)e;
    struct disp_events_sub *sub = ud;
    disp_events_unsubscribe(self_ev, sub);
}

static void test_a_subscriber_may_leave_in_its_callback(void)
{
    self_ev = disp_events_new(4);
    struct seen s = {0};
    struct disp_events_sub x = {leave, NULL, NULL, NULL}, y = {collect, &s, NULL, NULL};
    x.ud = &x;
    disp_events_subscribe(self_ev, &y);
    disp_events_subscribe(self_ev, &x); /* x runs first and leaves; y still gets it */
    disp_events_publish(self_ev, "queue", NULL);
    disp_events_publish(self_ev, "queue", NULL);
    CU_ASSERT_EQUAL(s.n, 2);
    disp_events_unsubscribe(self_ev, &y);
    disp_events_free(self_ev);
}

static double num(struct json_object *m, const char *k)
{
    struct json_object *v = json_object_object_get(m, k);
    return v ? json_object_get_double(v) : -1;
}

static void test_minute_buckets(void)
{
    struct disp_events *ev = disp_events_new(0);
    int64_t t = 1700000000000LL; /* a minute boundary plus 20 s */
    t -= t % 60000;
    t += 20000;
    for (int i = 0; i < 99; i++)
        disp_events_record_admission(ev, t, 10);
    disp_events_record_admission(ev, t, 5000);
    disp_events_record_dispatch(ev, t - 60000, 100);
    disp_events_record_rollback(ev, t);
    disp_events_record_rollback(ev, t - 3600000); /* an hour ago: its slot is reused */
    disp_events_record_admission(ev, t, 1);
    struct json_object *st = disp_events_stats_json(ev, t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    struct json_object *mins = json_object_object_get(st, "minutes");
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(mins), DISP_EVENTS_MINUTES);
    struct json_object *cur = json_object_array_get_idx(mins, DISP_EVENTS_MINUTES - 1);
    struct json_object *prev = json_object_array_get_idx(mins, DISP_EVENTS_MINUTES - 2);
    CU_ASSERT_EQUAL((int64_t)num(cur, "at"), t - 20000);
    CU_ASSERT_EQUAL(num(cur, "admissions"), 101);
    /* Bins are 19 % wide: 10 ms reads as the bin's upper edge, within that of the truth. */
    CU_ASSERT(num(cur, "waitP50Ms") >= 10 && num(cur, "waitP50Ms") < 12);
    CU_ASSERT(num(cur, "waitP99Ms") >= 10 && num(cur, "waitP99Ms") < 12);
    CU_ASSERT_EQUAL(num(cur, "rollbacks"), 1);
    CU_ASSERT(json_object_object_get(cur, "latencyP50Ms") == NULL); /* null: no samples */
    CU_ASSERT_EQUAL(num(prev, "dispatches"), 1);
    CU_ASSERT(num(prev, "latencyP99Ms") >= 100 && num(prev, "latencyP99Ms") < 120);
    json_object_put(st);
    /* An hour later every bucket is stale. */
    st = disp_events_stats_json(ev, t + 3600000);
    cur = json_object_array_get_idx(json_object_object_get(st, "minutes"), DISP_EVENTS_MINUTES - 1);
    CU_ASSERT_EQUAL(num(cur, "admissions"), 0);
    json_object_put(st);
    disp_events_free(ev);
}

static void test_out_of_memory(void)
{
    struct muster_mem_stats before, after;
    for (long k = 0; k < 4; k++) {
        muster_mem_reset();
        muster_mem_fail_after(k);
        struct disp_events *ev = disp_events_new(2);
        if (ev) {
            disp_events_publish(ev, "queue", NULL);
            disp_events_publish(ev, "queue", NULL);
        }
        muster_mem_fail_after(-1);
        disp_events_free(ev);
        muster_mem_stats(&after);
        CU_ASSERT_EQUAL(after.allocs, after.frees);
    }
    (void)before;
    muster_mem_reset();
}

/* The data line of a frame, "at" cut off: the rest of the bytes must match. */
static void data_without_at(const char *frame, char *out, size_t cap)
{
    const char *d = strstr(frame, "data: ");
    const char *at = d ? strstr(d, "\"at\":") : NULL;
    snprintf(out, cap, "%.*s", at ? (int)(at - d) : 0, d ? d : "");
}

/* publish_text makes the frame publish makes of the same object: id, event, data with "at"
 * appended last; "{}" gets "at" alone; anything but an object's text is refused. */
static void test_publish_text_as_publish(void)
{
    static const char *const texts[] = {
        "{\"namespace\":\"team-a\",\"name\":\"job\",\"reason\":\"a \\\"q\\\" /x\",\"clusters\":"
        "[{\"name\":\"c1\",\"replicas\":2}],\"request\":{\"nvidia.com/gpu\":\"8\"}}",
        "{}",
    };
    struct disp_events *ev = disp_events_new(8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        struct seen a = {0}, b = {0};
        struct disp_events_sub sa = {collect, &a, NULL, NULL};
        disp_events_subscribe(ev, &sa);
        uint64_t id1 = disp_events_publish(ev, "binding", json_tokener_parse(texts[i]));
        disp_events_unsubscribe(ev, &sa);
        struct disp_events_sub sb = {collect, &b, NULL, NULL};
        disp_events_subscribe(ev, &sb);
        uint64_t id2 = disp_events_publish_text(ev, "binding", texts[i], strlen(texts[i]));
        disp_events_unsubscribe(ev, &sb);
        CU_ASSERT_EQUAL(id2, id1 + 1);
        char da[256], db[256], head[64];
        data_without_at(a.last, da, sizeof da);
        data_without_at(b.last, db, sizeof db);
        CU_ASSERT(strlen(da) > 6);
        CU_ASSERT_STRING_EQUAL(da, db);
        snprintf(head, sizeof head, "id: %llu\nevent: binding\ndata: ", (unsigned long long)id2);
        CU_ASSERT_EQUAL(strncmp(b.last, head, strlen(head)), 0);
        /* the data parses, with a number "at", and ends the frame with one blank line */
        const char *d = strstr(b.last, "data: ") + 6;
        size_t dl = strlen(d);
        CU_ASSERT(dl > 2 && d[dl - 1] == '\n' && d[dl - 2] == '\n');
        json_object *o = json_tokener_parse(d);
        CU_ASSERT_PTR_NOT_NULL(o);
        CU_ASSERT_TRUE(json_object_is_type(json_object_object_get(o, "at"), json_type_int));
        json_object_put(o);
    }
    CU_ASSERT_EQUAL(disp_events_publish_text(ev, "binding", "[1]", 3), 0);
    CU_ASSERT_EQUAL(disp_events_publish_text(ev, "binding", "{", 1), 0);
    CU_ASSERT_EQUAL(disp_events_publish_text(ev, "binding", NULL, 0), 0);
    CU_ASSERT_EQUAL(disp_events_publish_text(NULL, "binding", "{}", 2), 0);
    /* out of memory: nothing published, nothing leaked */
    struct muster_mem_stats st;
    uint64_t last = disp_events_last_id(ev);
    for (long k = 0; k < 2; k++) {
        muster_mem_reset();
        muster_mem_fail_after(k);
        CU_ASSERT_EQUAL(disp_events_publish_text(ev, "queue", "{}", 2), 0);
        muster_mem_fail_after(-1);
        muster_mem_stats(&st);
        CU_ASSERT_EQUAL(st.allocs, st.frees);
    }
    muster_mem_reset();
    CU_ASSERT_EQUAL(disp_events_last_id(ev), last);
    disp_events_free(ev);
}

static CU_TestInfo tests[] = {
    {"publish_text frames as publish does", test_publish_text_as_publish},
    {"the ring keeps the newest and says when an id fell out", test_ring_keeps_the_newest},
    {"frames and subscribers", test_frames_and_subscribers},
    {"a subscriber may leave in its callback", test_a_subscriber_may_leave_in_its_callback},
    {"per-minute buckets over the last hour", test_minute_buckets},
    {"out of memory leaks nothing", test_out_of_memory},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/events", tests)
