/* The live feed (see events.h): a ring of pre-formatted server-sent-events frames, a list of
 * subscribers woken on each publish, and per-minute counters with latency histograms. */
#include "dispatcher/events.h"

#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Latency histogram: bin b holds samples up to 2^(b/4) ms, so each bin is 19 % wide and 96 bins
 * reach past an hour; a percentile is off by at most one bin, which a chart cannot show. */
#define EV_BINS 96
#define EV_BINS_PER_OCTAVE 4

struct ev_slot {
    uint64_t id;
    char *type;
    char *frame;
    size_t frame_len;
};

struct ev_minute {
    int64_t minute; /* unix minutes; a slot of another minute is stale and counts as zero */
    uint32_t admissions, dispatches, rollbacks;
    uint32_t wait[EV_BINS], latency[EV_BINS];
};

struct disp_events {
    struct ev_slot *ring;
    size_t cap, head, n; /* head: the oldest slot */
    uint64_t next_id;
    struct disp_events_sub *subs;
    struct disp_events_sub *iter_next; /* the walk's next subscriber, kept valid on unsubscribe */
    struct ev_minute minutes[DISP_EVENTS_MINUTES];
};

struct disp_events *disp_events_new(size_t capacity)
{
    struct disp_events *ev = muster_calloc(1, sizeof(*ev));
    if (!ev)
        return NULL;
    ev->cap = capacity ? capacity : DISP_EVENTS_CAPACITY_DEFAULT;
    ev->ring = muster_calloc(ev->cap, sizeof(*ev->ring));
    if (!ev->ring) {
        muster_free(ev);
        return NULL;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ev->next_id = ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000) * 1000 + 1;
    for (size_t i = 0; i < DISP_EVENTS_MINUTES; i++)
        ev->minutes[i].minute = -1;
    return ev;
}

static void slot_clear(struct ev_slot *s)
{
    muster_free(s->type);
    muster_free(s->frame);
    memset(s, 0, sizeof(*s));
}

void disp_events_free(struct disp_events *ev)
{
    if (!ev)
        return;
    for (size_t i = 0; i < ev->cap; i++)
        slot_clear(&ev->ring[i]);
    muster_free(ev->ring);
    muster_free(ev);
}

/* The SSE frame of one event. The JSON is one line (json-c's plain form escapes newlines inside
 * strings), so one data: line carries it. */
static char *frame_new(uint64_t id, const char *type, const char *json, size_t *len)
{
    size_t cap = strlen(type) + strlen(json) + 64;
    char *f = muster_malloc(cap);
    if (!f)
        return NULL;
    int n = snprintf(f, cap, "id: %" PRIu64 "\nevent: %s\ndata: %s\n\n", id, type, json);
    if (n < 0 || (size_t)n >= cap) {
        muster_free(f);
        return NULL;
    }
    *len = (size_t)n;
    return f;
}

static uint64_t ring_put(struct disp_events *ev, struct ev_slot *sp);

static int64_t now_unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t disp_events_publish(struct disp_events *ev, const char *type, struct json_object *data)
{
    if (!ev || !type) {
        json_object_put(data);
        return 0;
    }
    if (!data)
        data = json_object_new_object();
    if (!data || !json_object_is_type(data, json_type_object)) {
        json_object_put(data);
        return 0;
    }
    if (!json_object_object_get_ex(data, "at", NULL))
        json_object_object_add(data, "at", json_object_new_int64(now_unix_ms()));
    const char *json = json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
    struct ev_slot s = {.id = ev->next_id};
    s.type = json ? muster_strdup(type) : NULL;
    s.frame = s.type ? frame_new(s.id, type, json, &s.frame_len) : NULL;
    json_object_put(data);
    return ring_put(ev, &s);
}

/* Puts s (its frame made, or none: out of memory) in the ring and wakes every subscriber. */
static uint64_t ring_put(struct disp_events *ev, struct ev_slot *sp)
{
    struct ev_slot s = *sp;
    if (!s.frame) {
        slot_clear(&s);
        return 0;
    }
    size_t at = (ev->head + ev->n) % ev->cap;
    if (ev->n == ev->cap) { /* full: the oldest goes */
        slot_clear(&ev->ring[ev->head]);
        ev->head = (ev->head + 1) % ev->cap;
        ev->n--;
    }
    ev->ring[at] = s;
    ev->n++;
    ev->next_id++;
    struct disp_event e = {s.id, ev->ring[at].type, ev->ring[at].frame, s.frame_len};
    /* iter_next lets a callback unsubscribe itself (a stream cut for being too slow). */
    for (struct disp_events_sub *sub = ev->subs; sub; sub = ev->iter_next) {
        ev->iter_next = sub->next;
        sub->cb(sub->ud, &e);
    }
    ev->iter_next = NULL;
    return e.id;
}

uint64_t disp_events_publish_text(struct disp_events *ev, const char *type, const char *json,
                                  size_t len)
{
    if (!ev || !type || !json || len < 2 || json[0] != '{' || json[len - 1] != '}')
        return 0;
    /* "at" goes last, as json_object_object_add appends it to the tree */
    char at[48];
    int an = snprintf(at, sizeof at, "%s\"at\":%" PRId64 "}", len > 2 ? "," : "", now_unix_ms());
    const char *head = "id: ", *mid = "\nevent: ", *data = "\ndata: ";
    char id[24];
    struct ev_slot s = {.id = ev->next_id};
    int idn = snprintf(id, sizeof id, "%" PRIu64, s.id);
    size_t tl = strlen(type);
    size_t cap =
        strlen(head) + (size_t)idn + strlen(mid) + tl + strlen(data) + (len - 1) + (size_t)an + 3;
    s.type = muster_strdup(type);
    s.frame = s.type ? muster_malloc(cap) : NULL;
    if (s.frame) {
        char *f = s.frame;
        size_t n = 0;
#define PUT(p, l) (memcpy(f + n, (p), (l)), n += (l))
        PUT(head, strlen(head));
        PUT(id, (size_t)idn);
        PUT(mid, strlen(mid));
        PUT(type, tl);
        PUT(data, strlen(data));
        PUT(json, len - 1);
        PUT(at, (size_t)an);
        PUT("\n\n", 2);
#undef PUT
        f[n] = '\0';
        s.frame_len = n;
    }
    return ring_put(ev, &s);
}

void disp_events_subscribe(struct disp_events *ev, struct disp_events_sub *sub)
{
    sub->prev = NULL;
    sub->next = ev->subs;
    if (ev->subs)
        ev->subs->prev = sub;
    ev->subs = sub;
}

void disp_events_unsubscribe(struct disp_events *ev, struct disp_events_sub *sub)
{
    if (!ev || !sub || (!sub->prev && ev->subs != sub))
        return;
    if (ev->iter_next == sub)
        ev->iter_next = sub->next;
    if (sub->prev)
        sub->prev->next = sub->next;
    else
        ev->subs = sub->next;
    if (sub->next)
        sub->next->prev = sub->prev;
    sub->prev = sub->next = NULL;
}

uint64_t disp_events_last_id(const struct disp_events *ev)
{
    return ev->next_id - 1;
}

int disp_events_since(const struct disp_events *ev, uint64_t after,
                      void (*cb)(void *ud, const struct disp_event *e), void *ud)
{
    uint64_t oldest = ev->n ? ev->ring[ev->head].id : ev->next_id;
    if (after > ev->next_id - 1 || after + 1 < oldest)
        return MUSTER_EGONE;
    for (size_t i = 0; i < ev->n; i++) {
        const struct ev_slot *s = &ev->ring[(ev->head + i) % ev->cap];
        if (s->id <= after)
            continue;
        struct disp_event e = {s->id, s->type, s->frame, s->frame_len};
        cb(ud, &e);
    }
    return 0;
}

/* ---- chart counters ---- */

static struct ev_minute *minute_of(struct disp_events *ev, int64_t now_ms)
{
    if (!ev || now_ms < 0)
        return NULL;
    int64_t m = now_ms / 60000;
    struct ev_minute *b = &ev->minutes[m % DISP_EVENTS_MINUTES];
    if (b->minute > m) /* a sample older than the hour the slot now holds: out of the chart */
        return NULL;
    if (b->minute != m) {
        memset(b, 0, sizeof(*b));
        b->minute = m;
    }
    return b;
}

static unsigned bin_of(double ms)
{
    if (!(ms > 1.0)) /* also NaN */
        return 0;
    double b = ceil(log2(ms) * EV_BINS_PER_OCTAVE);
    return b >= EV_BINS - 1 ? EV_BINS - 1 : (unsigned)b;
}

void disp_events_record_admission(struct disp_events *ev, int64_t now_ms, double wait_ms)
{
    struct ev_minute *b = minute_of(ev, now_ms);
    if (!b)
        return;
    b->admissions++;
    b->wait[bin_of(wait_ms)]++;
}

void disp_events_record_dispatch(struct disp_events *ev, int64_t now_ms, double latency_ms)
{
    struct ev_minute *b = minute_of(ev, now_ms);
    if (!b)
        return;
    b->dispatches++;
    b->latency[bin_of(latency_ms)]++;
}

void disp_events_record_rollback(struct disp_events *ev, int64_t now_ms)
{
    struct ev_minute *b = minute_of(ev, now_ms);
    if (b)
        b->rollbacks++;
}

/* The q-quantile of a histogram of n samples as its bin's upper edge; null without samples. */
static struct json_object *quantile_json(const uint32_t *h, uint32_t n, double q)
{
    if (!n)
        return NULL;
    uint64_t rank = (uint64_t)ceil(q * n), seen = 0;
    if (rank < 1)
        rank = 1;
    for (unsigned b = 0; b < EV_BINS; b++) {
        seen += h[b];
        if (seen >= rank) {
            double v = exp2((double)b / EV_BINS_PER_OCTAVE);
            return json_object_new_double(round(v * 10) / 10);
        }
    }
    return NULL;
}

static int add(struct json_object *o, const char *k, struct json_object *v, int want)
{
    if (want && !v)
        return -1;
    return json_object_object_add(o, k, v);
}

struct json_object *disp_events_stats_json(const struct disp_events *ev, int64_t now_ms)
{
    struct json_object *out = json_object_new_object();
    struct json_object *arr = json_object_new_array_ext(DISP_EVENTS_MINUTES);
    int bad = !out || !arr;
    int64_t now_min = now_ms / 60000;
    for (int64_t m = now_min - DISP_EVENTS_MINUTES + 1; !bad && m <= now_min; m++) {
        static const struct ev_minute zero;
        const struct ev_minute *b = m >= 0 ? &ev->minutes[m % DISP_EVENTS_MINUTES] : &zero;
        if (b->minute != m)
            b = &zero;
        struct json_object *o = json_object_new_object();
        bad = !o || json_object_array_add(arr, o);
        if (bad) {
            json_object_put(o);
            break;
        }
        bad |= add(o, "at", json_object_new_int64(m * 60000), 1) != 0;
        bad |= add(o, "admissions", json_object_new_int64(b->admissions), 1) != 0;
        bad |= add(o, "waitP50Ms", quantile_json(b->wait, b->admissions, 0.50), 0) != 0;
        bad |= add(o, "waitP99Ms", quantile_json(b->wait, b->admissions, 0.99), 0) != 0;
        bad |= add(o, "dispatches", json_object_new_int64(b->dispatches), 1) != 0;
        bad |= add(o, "latencyP50Ms", quantile_json(b->latency, b->dispatches, 0.50), 0) != 0;
        bad |= add(o, "latencyP99Ms", quantile_json(b->latency, b->dispatches, 0.99), 0) != 0;
        bad |= add(o, "rollbacks", json_object_new_int64(b->rollbacks), 1) != 0;
    }
    if (!bad)
        bad = add(out, "bucketSeconds", json_object_new_int(60), 1) != 0;
    if (bad || json_object_object_add(out, "minutes", arr)) {
        json_object_put(out);
        json_object_put(arr);
        return NULL;
    }
    return out;
}
