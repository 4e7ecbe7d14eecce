/* The reflector: paginated list, watch streamed and parsed one event at a time,
 * resume from the last version, relist on 410 Gone, jittered exponential back-off. */
#include "cluster-adapters/kube/watch.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/jsonparse.h"
#include "queue/mem.h"

#include <stdio.h>
#include <string.h>

static void list_page(struct kube_reflector *r);
static void watch_start(struct kube_reflector *r);

static void report(struct kube_reflector *r, int err, const struct kube_status *st)
{
    r->stats.errors++;
    if (r->h.on_error)
        r->h.on_error(r->ud, err, st);
}

static void report_msg(struct kube_reflector *r, int err, const char *msg)
{
    struct kube_status st;
    memset(&st, 0, sizeof(st));
    snprintf(st.message, sizeof(st.message), "%s", msg);
    report(r, err, &st);
}

static uint64_t rng_next(struct kube_reflector *r)
{
    /* xorshift64: jitter only needs to de-synchronise clients, not be unpredictable. */
    uint64_t x = r->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    r->rng = x;
    return x;
}

static void maybe_closed(struct kube_reflector *r)
{
    if (!r->closing || !r->timer_closed || r->call)
        return;
    json_object_put(r->items);
    r->items = NULL;
    kube_watch_decoder_close(&r->dec);
    muster_free(r->path);
    muster_free(r->label_selector);
    muster_free(r->field_selector);
    r->path = r->label_selector = r->field_selector = NULL;
    if (r->close_cb)
        r->close_cb(r);
}

static void on_timer(uv_timer_t *t)
{
    struct kube_reflector *r = t->data;
    if (r->closing)
        return;
    if (r->need_relist)
        list_page(r);
    else
        watch_start(r);
}

/* Schedules the next list or watch after a jittered exponential delay, at least Retry-After. */
static void backoff(struct kube_reflector *r, int relist)
{
    r->need_relist = relist;
    uint64_t d = r->backoff_initial_ms;
    for (int i = 0; i < r->failures && d < r->backoff_max_ms; i++)
        d *= 2;
    if (d > r->backoff_max_ms)
        d = r->backoff_max_ms;
    /* Equal jitter: half fixed, half random, so retries of many clients spread out. */
    d = d / 2 + (d > 1 ? rng_next(r) % (d / 2 + 1) : 0);
    if (r->retry_after_s > 0 && d < (uint64_t)r->retry_after_s * 1000)
        d = (uint64_t)r->retry_after_s * 1000;
    r->retry_after_s = 0;
    r->failures++;
    uv_timer_start(&r->timer, on_timer, d, 0);
}

/* Starts the next step now, from the loop rather than from inside a callback chain. */
static void next_now(struct kube_reflector *r, int relist)
{
    r->need_relist = relist;
    uv_timer_start(&r->timer, on_timer, 0, 0);
}

static const char *obj_rv(struct json_object *obj)
{
    return kube_json_path_str(obj, "metadata", "resourceVersion", NULL);
}

static void set_rv(struct kube_reflector *r, const char *rv)
{
    if (rv && *rv)
        snprintf(r->rv, sizeof(r->rv), "%s", rv);
}

/* ---- list ---- */

static void on_list_page(int err, const struct kube_response *resp, void *ud)
{
    struct kube_reflector *r = ud;
    r->call = NULL;
    if (r->closing || err == MUSTER_ECANCELED) {
        maybe_closed(r);
        return;
    }
    if (err) {
        json_object_put(r->items);
        r->items = NULL;
        r->cont[0] = 0;
        report(r, err, &resp->status);
        r->retry_after_s = resp->status.retry_after_s;
        /* An expired continue token is a 410 as well: start the list over. */
        backoff(r, 1);
        return;
    }
    struct json_object *items, *md, *v;
    if (!json_object_object_get_ex(resp->body, "items", &items) ||
        !json_object_is_type(items, json_type_array)) {
        json_object_put(r->items);
        r->items = NULL;
        r->cont[0] = 0;
        report_msg(r, MUSTER_EPROTO, "list response has no items array");
        backoff(r, 1);
        return;
    }
    size_t n = json_object_array_length(items);
    for (size_t i = 0; i < n; i++) {
        struct json_object *it = json_object_array_get_idx(items, i);
        struct json_object *kept = r->h.on_list_item ? r->h.on_list_item(r->ud, it) : NULL;
        json_object_array_add(r->items, kept ? kept : json_object_get(it));
    }
    const char *cont = NULL, *rv = NULL;
    if (json_object_object_get_ex(resp->body, "metadata", &md)) {
        if (json_object_object_get_ex(md, "continue", &v))
            cont = json_object_get_string(v);
        if (json_object_object_get_ex(md, "resourceVersion", &v))
            rv = json_object_get_string(v);
    }
    if (cont && *cont) {
        if (strlen(cont) >= sizeof(r->cont)) {
            json_object_put(r->items);
            r->items = NULL;
            r->cont[0] = 0;
            report_msg(r, MUSTER_ELIMIT, "list continue token over its size cap");
            backoff(r, 1);
            return;
        }
        snprintf(r->cont, sizeof(r->cont), "%s", cont);
        list_page(r);
        return;
    }
    r->cont[0] = 0;
    r->stats.lists++;
    set_rv(r, rv);
    struct json_object *all = r->items;
    r->items = NULL;
    if (r->h.on_list)
        r->h.on_list(r->ud, all, r->rv);
    json_object_put(all);
    if (r->closing) {
        maybe_closed(r);
        return;
    }
    r->failures = 0;
    r->gone_in_a_row = 0;
    watch_start(r);
}

static void list_page(struct kube_reflector *r)
{
    if (!r->cont[0]) {
        json_object_put(r->items);
        r->items = json_object_new_array();
        if (!r->items) {
            report_msg(r, MUSTER_ENOMEM, "out of memory");
            backoff(r, 1);
            return;
        }
        if (r->h.on_list_start)
            r->h.on_list_start(r->ud);
    }
    struct kube_request req = {
        .verb = KUBE_LIST,
        .path = r->path,
        .label_selector = r->label_selector,
        .field_selector = r->field_selector,
        .metadata_only = r->metadata_only,
        .limit = r->page_size,
        .continue_token = r->cont[0] ? r->cont : NULL,
    };
    int rc = kube_request_start(r->client, &req, on_list_page, r, &r->call);
    if (rc < 0) {
        r->call = NULL;
        if (rc == MUSTER_ECANCELED)
            return; /* the client is closing */
        report_msg(r, rc, "cannot start list");
        backoff(r, 1);
    }
}

/* ---- watch ---- */

/* Handles one decoded event. Returns 0, or a code that ends the stream. */
static int handle_event(struct kube_reflector *r, struct json_object *ev)
{
    struct json_object *type_o, *obj;
    if (!json_object_object_get_ex(ev, "type", &type_o) ||
        !json_object_object_get_ex(ev, "object", &obj))
        return MUSTER_EPROTO;
    const char *type = json_object_get_string(type_o);
    enum kube_event_type t;
    if (strcmp(type, "ADDED") == 0) {
        t = KUBE_EVENT_ADDED;
    } else if (strcmp(type, "MODIFIED") == 0) {
        t = KUBE_EVENT_MODIFIED;
    } else if (strcmp(type, "DELETED") == 0) {
        t = KUBE_EVENT_DELETED;
    } else if (strcmp(type, "BOOKMARK") == 0) {
        r->stats.bookmarks++;
        set_rv(r, obj_rv(obj));
        r->stream_events++;
        return 0;
    } else if (strcmp(type, "ERROR") == 0) {
        struct kube_status st;
        memset(&st, 0, sizeof(st));
        struct json_object *v;
        if (json_object_object_get_ex(obj, "code", &v))
            st.http = json_object_get_int(v);
        if (json_object_object_get_ex(obj, "reason", &v))
            snprintf(st.reason, sizeof(st.reason), "%s", json_object_get_string(v));
        if (json_object_object_get_ex(obj, "message", &v))
            snprintf(st.message, sizeof(st.message), "%s", json_object_get_string(v));
        if (st.http == 410 || strcmp(st.reason, "Expired") == 0 || strcmp(st.reason, "Gone") == 0)
            return MUSTER_EGONE;
        report(r, MUSTER_EHTTP, &st);
        r->error_event = 1;
        return MUSTER_EHTTP;
    } else {
        return MUSTER_EPROTO;
    }
    set_rv(r, obj_rv(obj));
    r->stats.events++;
    r->stream_events++;
    if (r->h.on_event)
        r->h.on_event(r->ud, t, obj);
    return r->closing ? MUSTER_ECANCELED : 0;
}

static int is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

int kube_watch_decoder_init(struct kube_watch_decoder *d, size_t max_event)
{
    memset(d, 0, sizeof(*d));
    d->max_event = max_event ? max_event : KUBE_MAX_WATCH_EVENT_BYTES;
    return 0;
}

void kube_watch_decoder_reset(struct kube_watch_decoder *d)
{
    d->event_bytes = 0;
    d->depth = d->in_str = d->esc = 0;
}

void kube_watch_decoder_close(struct kube_watch_decoder *d)
{
    muster_free(d->buf);
    d->buf = NULL;
    d->cap = 0;
}

/* Scans data[0..len) of the current event. Returns how many bytes end it (the closing bracket
 * included), 0 when it goes on past len, or a MUSTER_* code: EPROTO for a byte JSON cannot
 * have there (outside strings: brackets that do not match, characters of no token), ELIMIT past
 * max_event. The text is parsed (and so validated) whole once it ends. */
static long scan(struct kube_watch_decoder *d, const char *data, size_t len)
{
    size_t room = d->max_event - d->event_bytes; /* bytes the event may still have */
    for (size_t i = 0; i < len; i++) {
        if (i >= room)
            return MUSTER_ELIMIT;
        char c = data[i];
        if (d->in_str) {
            if (d->esc) {
                d->esc = 0;
                continue;
            }
            /* the common case: a run of plain string bytes, eight at a time first */
            i = (size_t)(kube_json_plain_run(data + i, data + (len < room ? len : room)) - data);
            c = data[i];
            while (c != '"' && c != '\\' && ++i < len && i < room)
                c = data[i];
            if (i >= len)
                break;
            if (i >= room)
                return MUSTER_ELIMIT;
            if (c == '\\')
                d->esc = 1;
            else
                d->in_str = 0;
            continue;
        }
        switch (c) {
        case '"':
            d->in_str = 1;
            break;
        case '{':
        case '[':
            if (d->depth >= KUBE_MAX_JSON_DEPTH)
                return MUSTER_EPROTO; /* kube_json_parse would refuse it */
            if (c == '{')
                d->kinds[d->depth / 64] |= (uint64_t)1 << (d->depth % 64);
            else
                d->kinds[d->depth / 64] &= ~((uint64_t)1 << (d->depth % 64));
            d->depth++;
            break;
        case '}':
        case ']':
            if (d->depth == 0)
                return MUSTER_EPROTO;
            d->depth--;
            if (((d->kinds[d->depth / 64] >> (d->depth % 64)) & 1) != (c == '}'))
                return MUSTER_EPROTO;
            if (d->depth == 0)
                return (long)(i + 1);
            break;
        case ' ': case '\n': case '\r': case '\t': case ':': case ',': case '-': case '+':
        case '.': case 'e': case 'E': case 't': case 'r': case 'u': case 'f': case 'a': case 'l':
        case 's': case 'n':
            break;
        default:
            if (c < '0' || c > '9')
                return MUSTER_EPROTO;
        }
    }
    return 0;
}

int kube_watch_decode(struct kube_watch_decoder *d, const char *data, size_t len,
                      int (*on_event)(void *ud, struct json_object *ev), void *ud)
{
    while (len > 0) {
        if (d->event_bytes == 0) {
            while (len > 0 && is_ws(*data)) {
                data++;
                len--;
            }
            if (len == 0)
                break;
            /* Every event is an object. A bare scalar would also make where one event ends
             * depend on where the chunks happen to be cut ("12" + "3" vs "123"). */
            if (*data != '{') {
                kube_watch_decoder_reset(d);
                return MUSTER_EPROTO;
            }
            /* The apiserver writes each event as compact JSON on a line of its own: an event
             * whose line ends in this chunk is parsed from it at once, without the bracket scan
             * first (most events; the scan was 6 % of the ingest's CPU, docs/benchmarks.md
             * "Session 14: ingest"). Anything else, or a line that is not one whole event
             * (pretty-printed, invalid, over the cap), takes the scan below, as before. */
            const char *nl = memchr(data, '\n', len);
            if (nl && (size_t)(nl - data) <= d->max_event) {
                struct json_object *ev = NULL;
                if (kube_json_parse(data, (size_t)(nl - data), KUBE_MAX_JSON_DEPTH, &ev, NULL,
                                    0) == 0 &&
                    json_object_is_type(ev, json_type_object)) {
                    len -= (size_t)(nl + 1 - data);
                    data = nl + 1;
                    int rc = on_event(ud, ev);
                    json_object_put(ev);
                    if (rc < 0)
                        return rc;
                    continue;
                }
                json_object_put(ev);
            }
        }
        long end = scan(d, data, len);
        if (end < 0) {
            kube_watch_decoder_reset(d);
            return (int)end;
        }
        size_t take = end ? (size_t)end : len;
        const char *text = data;
        if (d->event_bytes > 0 || !end) {
            /* an event cut by a chunk boundary: its bytes are kept until it ends */
            size_t need = d->event_bytes + take;
            if (need > d->cap) {
                size_t cap = d->cap ? d->cap : 4096;
                while (cap < need)
                    cap *= 2;
                char *b = muster_realloc(d->buf, cap);
                if (!b) {
                    kube_watch_decoder_reset(d);
                    return MUSTER_ENOMEM;
                }
                d->buf = b;
                d->cap = cap;
            }
            memcpy(d->buf + d->event_bytes, data, take);
            text = d->buf;
        }
        d->event_bytes += take;
        data += take;
        len -= take;
        if (!end)
            break;
        struct json_object *ev = NULL;
        int rc = kube_json_parse(text, d->event_bytes, KUBE_MAX_JSON_DEPTH, &ev, NULL, 0);
        kube_watch_decoder_reset(d);
        if (rc < 0)
            return rc;
        rc = on_event(ud, ev);
        json_object_put(ev);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int on_decoded(void *ud, struct json_object *ev)
{
    return handle_event(ud, ev);
}

static int on_watch_data(void *ud, const char *data, size_t len)
{
    struct kube_reflector *r = ud;
    if (r->closing)
        return MUSTER_ECANCELED;
    return kube_watch_decode(&r->dec, data, len, on_decoded, r);
}

static void on_watch_done(int err, const struct kube_response *resp, void *ud)
{
    struct kube_reflector *r = ud;
    r->call = NULL;
    if (r->closing || err == MUSTER_ECANCELED) {
        maybe_closed(r);
        return;
    }
    if (err == MUSTER_EGONE) {
        /* Our version fell out of the server's window: only a fresh list is consistent. The
         * first time at once, as client-go does; again in a row, with back-off. */
        r->stats.relists_gone++;
        r->rv[0] = 0;
        if (r->gone_in_a_row++ == 0)
            next_now(r, 1);
        else
            backoff(r, 1);
        return;
    }
    if (err == 0) {
        uint64_t lived = uv_now(r->loop) - r->stream_started;
        if (r->stream_events > 0 || lived >= KUBE_WATCH_MIN_HEALTHY_MS) {
            r->failures = 0;
            next_now(r, 0);
        } else {
            report_msg(r, MUSTER_EPROTO, "watch ended at once without events");
            backoff(r, 0);
        }
        return;
    }
    if (err == MUSTER_ELIMIT) {
        struct kube_status st;
        memset(&st, 0, sizeof(st));
        snprintf(st.message, sizeof(st.message),
                 "watch event over its size cap of %zu bytes; resuming from %s", r->dec.max_event,
                 r->rv);
        report(r, err, &st);
    } else if (!r->error_event) {
        /* ERROR events were reported when decoded; everything else is reported here. */
        report(r, err, &resp->status);
    }
    if (r->stream_events > 0)
        r->failures = 0; /* the stream was healthy for a while: start the back-off over */
    r->retry_after_s = resp->status.retry_after_s;
    backoff(r, 0);
}

static void watch_start(struct kube_reflector *r)
{
    kube_watch_decoder_reset(&r->dec);
    r->stream_events = 0;
    r->error_event = 0;
    r->stream_started = uv_now(r->loop);
    struct kube_request req = {
        .verb = KUBE_WATCH,
        .path = r->path,
        .label_selector = r->label_selector,
        .field_selector = r->field_selector,
        .metadata_only = r->metadata_only,
        .resource_version = r->rv,
        /* Between the timeout and twice it, as client-go does, so that many watches started
         * together do not all end and reconnect together. */
        .timeout_s = r->watch_timeout_s + (long)(rng_next(r) % (uint64_t)r->watch_timeout_s),
        .on_data = on_watch_data,
    };
    r->stats.watches++;
    int rc = kube_request_start(r->client, &req, on_watch_done, r, &r->call);
    if (rc < 0) {
        r->call = NULL;
        if (rc == MUSTER_ECANCELED)
            return;
        report_msg(r, rc, "cannot start watch");
        backoff(r, 0);
    }
}

/* ---- life cycle ---- */

static char *dup_opt(const char *s, int *failed)
{
    if (!s)
        return NULL;
    char *d = muster_strdup(s);
    if (!d)
        *failed = 1;
    return d;
}

int kube_reflector_init(struct kube_reflector *r, uv_loop_t *loop, struct kube_client *client,
                        const struct kube_reflector_opts *opts,
                        const struct kube_reflector_handler *h, void *ud)
{
    memset(r, 0, sizeof(*r));
    if (!loop || !client || !opts || !opts->path || opts->path[0] != '/')
        return MUSTER_EINVAL;
    int failed = 0;
    r->path = dup_opt(opts->path, &failed);
    r->label_selector = dup_opt(opts->label_selector, &failed);
    r->field_selector = dup_opt(opts->field_selector, &failed);
    if (kube_watch_decoder_init(&r->dec, opts->max_event) < 0 || failed) {
        muster_free(r->path);
        muster_free(r->label_selector);
        muster_free(r->field_selector);
        kube_watch_decoder_close(&r->dec);
        memset(r, 0, sizeof(*r));
        return MUSTER_ENOMEM;
    }
    r->loop = loop;
    r->client = client;
    if (h)
        r->h = *h;
    r->ud = ud;
    r->page_size = opts->page_size > 0 ? opts->page_size : KUBE_LIST_PAGE_SIZE;
    r->backoff_initial_ms =
        opts->backoff_initial_ms ? opts->backoff_initial_ms : KUBE_BACKOFF_INITIAL_MS;
    r->backoff_max_ms = opts->backoff_max_ms ? opts->backoff_max_ms : KUBE_BACKOFF_MAX_MS;
    r->watch_timeout_s = opts->watch_timeout_s > 0 ? opts->watch_timeout_s : KUBE_WATCH_TIMEOUT_S;
    r->metadata_only = opts->metadata_only;
    r->rng = (uv_hrtime() ^ (uint64_t)(uintptr_t)r) | 1;
    uv_timer_init(loop, &r->timer);
    r->timer.data = r;
    return 0;
}

int kube_reflector_start(struct kube_reflector *r)
{
    if (r->closing || r->call)
        return MUSTER_EINVAL;
    r->cont[0] = 0;
    json_object_put(r->items);
    r->items = json_object_new_array();
    if (!r->items)
        return MUSTER_ENOMEM;
    if (r->h.on_list_start)
        r->h.on_list_start(r->ud);
    struct kube_request req = {
        .verb = KUBE_LIST,
        .path = r->path,
        .label_selector = r->label_selector,
        .field_selector = r->field_selector,
        .metadata_only = r->metadata_only,
        .limit = r->page_size,
    };
    int rc = kube_request_start(r->client, &req, on_list_page, r, &r->call);
    if (rc < 0)
        r->call = NULL;
    return rc;
}

static void on_timer_closed(uv_handle_t *h)
{
    struct kube_reflector *r = h->data;
    r->timer_closed = 1;
    maybe_closed(r);
}

void kube_reflector_close(struct kube_reflector *r, void (*close_cb)(struct kube_reflector *r))
{
    if (r->closing)
        return;
    r->closing = 1;
    r->close_cb = close_cb;
    if (r->call)
        kube_call_cancel(r->call);
    uv_close((uv_handle_t *)&r->timer, on_timer_closed);
}

const char *kube_reflector_version(const struct kube_reflector *r)
{
    return r->rv;
}
