/* A scripted list/watch server on top of fakeapi.h, and the loop harness shared by the
 * reflector and informer tests. Lists are served page by page from fixtures under
 * tests/fixtures/watch/; each watch request gets the next scripted step. */
#ifndef MUSTER_TESTS_WATCHFAKE_H
#define MUSTER_TESTS_WATCHFAKE_H

#include "cluster-adapters/kube/client.h"
#include "fakeapi.h"
#include "queue/mem.h"

enum step_end {
    END_KEEP,  /* leave the stream open */
    END_DROP,  /* close the connection mid-stream */
    END_CLEAN, /* terminate the chunked body properly */
    END_HTTP,  /* no stream: answer with a Status of `http` */
};

struct watch_step {
    const char *events; /* fixture streamed one event at a time, each split in two chunks */
    enum step_end end;
    int http;
    const char *headers; /* for END_HTTP */
    size_t chunk;        /* > 0: send the whole fixture in chunks of this size instead */
};

#define MAX_STEPS 8

struct scenario {
    const char *lists[MAX_STEPS][4]; /* per list: page fixtures, NULL-terminated */
    struct watch_step watches[MAX_STEPS];
    int nlists, nwatches;
    char watch_rv[MAX_STEPS][64];
    char watch_query[MAX_STEPS][256];
    uint64_t watch_at[MAX_STEPS];
    char list_query[MAX_STEPS * 4][256];
    int list_requests;
};

#define EVLOG 64

struct wt {
    uv_loop_t loop;
    uv_timer_t tick; /* wakes UV_RUN_ONCE so predicates are re-checked */
    struct fake_server srv;
    struct kube_config cfg;
    struct kube_client *client;
    struct scenario sc;
    char log[EVLOG][64]; /* "add a 10", "update a 22", "delete b 24" */
    int nlog;
    int errors[EVLOG];
    int nerrors;
    int synced, lists, client_closed, closed;
};

static inline void wf_stream_fixture(struct fake_conn *c, const char *name)
{
    char *text = fake_fixture(name);
    if (!text) {
        fprintf(stderr, "missing fixture %s\n", name);
        return;
    }
    char *line = text;
    while (*line) {
        size_t len = strcspn(line, "\n");
        if (len > 0) {
            /* Split every event so the client has to parse across chunk boundaries. */
            size_t half = len / 2;
            fake_stream_send(c, line, half);
            char tail[8192];
            size_t rest = len - half;
            if (rest + 1 < sizeof(tail)) {
                memcpy(tail, line + half, rest);
                tail[rest] = '\n';
                fake_stream_send(c, tail, rest + 1);
            } else {
                fake_stream_send(c, line + half, rest);
                fake_stream_send(c, "\n", 1);
            }
        }
        line += len;
        if (*line == '\n')
            line++;
    }
    free(text);
}

static inline void wf_handler(struct fake_server *s, struct fake_conn *c, const struct fake_req *r)
{
    struct wt *t = s->ud;
    struct scenario *sc = &t->sc;
    char v[256];
    if (fake_query(r, "watch", v, sizeof(v)) && strcmp(v, "true") == 0) {
        int i = sc->nwatches++;
        if (i < MAX_STEPS) {
            fake_query(r, "resourceVersion", sc->watch_rv[i], sizeof(sc->watch_rv[i]));
            snprintf(sc->watch_query[i], sizeof(sc->watch_query[i]), "%s", r->query);
            uv_update_time(s->loop);
            sc->watch_at[i] = uv_now(s->loop);
        }
        if (i >= MAX_STEPS || (!sc->watches[i].events && sc->watches[i].end != END_HTTP)) {
            fake_stream_start(c); /* beyond the script: an idle open stream */
            return;
        }
        const struct watch_step *st = &sc->watches[i];
        if (st->end == END_HTTP) {
            fake_status(c, st->http, st->http == 410 ? "Expired" : "TooManyRequests", "scripted",
                        st->headers);
            return;
        }
        fake_stream_start(c);
        if (st->chunk > 0) {
            char *text = fake_fixture(st->events);
            for (size_t off = 0, n = text ? strlen(text) : 0; off < n; off += st->chunk)
                fake_stream_send(c, text + off, n - off < st->chunk ? n - off : st->chunk);
            free(text);
        } else {
            wf_stream_fixture(c, st->events);
        }
        if (st->end == END_DROP)
            fake_drop(c);
        else if (st->end == END_CLEAN)
            fake_stream_end(c);
        return;
    }
    if (sc->list_requests < MAX_STEPS * 4)
        snprintf(sc->list_query[sc->list_requests], sizeof(sc->list_query[0]), "%s", r->query);
    sc->list_requests++;
    int page = 0;
    if (fake_query(r, "continue", v, sizeof(v)) && v[0] == 'p')
        page = (int)strtol(v + 1, NULL, 10);
    else
        sc->nlists++;
    int li = sc->nlists - 1;
    if (li < 0 || li >= MAX_STEPS || page >= 4 || !sc->lists[li][page]) {
        fake_status(c, 500, "InternalError", "no scripted list", NULL);
        return;
    }
    if (strcmp(sc->lists[li][page], "410") == 0) {
        /* The continue token expired: the client must start its list over. */
        fake_status(c, 410, "Expired", "The provided continue parameter is too old", NULL);
        return;
    }
    char *body = fake_fixture(sc->lists[li][page]);
    fake_respond(c, 200, NULL, body ? body : "{}");
    free(body);
}

static inline void wf_tick(uv_timer_t *h)
{
    (void)h;
}

static inline void wf_setup(struct wt *t, const struct kube_client_opts *opts)
{
    CU_ASSERT_FATAL(uv_loop_init(&t->loop) == 0);
    uv_timer_init(&t->loop, &t->tick);
    uv_timer_start(&t->tick, wf_tick, 10, 10);
    CU_ASSERT_FATAL(fake_server_start(&t->srv, &t->loop, wf_handler, t) == 0);
    t->cfg.server = muster_strdup(t->srv.url);
    CU_ASSERT_FATAL(kube_client_new(&t->loop, &t->cfg, opts, &t->client) == 0);
}

/* Runs the loop until pred(t) holds or timeout_ms passes; returns pred(t). */
static inline int wf_run_until(struct wt *t, int (*pred)(struct wt *t), uint64_t timeout_ms)
{
    uv_update_time(&t->loop);
    uint64_t deadline = uv_now(&t->loop) + timeout_ms;
    while (!pred(t) && uv_now(&t->loop) < deadline)
        uv_run(&t->loop, UV_RUN_ONCE);
    return pred(t);
}

static inline void wf_on_client_closed(void *ud)
{
    struct wt *t = ud;
    t->client_closed = 1;
}

/* After the owner closed its reflector/informer: closes the client, server and tick, runs the
 * loop dry and checks nothing is left open. */
static inline void wf_teardown(struct wt *t)
{
    kube_client_close(t->client, wf_on_client_closed, t);
    fake_server_close(&t->srv);
    uv_close((uv_handle_t *)&t->tick, NULL);
    uv_run(&t->loop, UV_RUN_DEFAULT);
    CU_ASSERT(t->client_closed);
    CU_ASSERT_EQUAL(uv_loop_close(&t->loop), 0);
    kube_config_close(&t->cfg);
}

static inline void wf_log(struct wt *t, const char *what, struct json_object *obj)
{
    struct json_object *md, *name, *rv;
    if (t->nlog >= EVLOG)
        return;
    const char *n = "?", *v = "?";
    if (json_object_object_get_ex(obj, "metadata", &md)) {
        if (json_object_object_get_ex(md, "name", &name))
            n = json_object_get_string(name);
        if (json_object_object_get_ex(md, "resourceVersion", &rv))
            v = json_object_get_string(rv);
    }
    snprintf(t->log[t->nlog++], sizeof(t->log[0]), "%s %s %s", what, n, v);
}

/* Compares the event log with the expected NULL-terminated list, printing both on mismatch. */
static inline int wf_log_is(struct wt *t, const char *const *want)
{
    int n = 0;
    while (want[n])
        n++;
    int ok = n == t->nlog;
    for (int i = 0; ok && i < n; i++)
        ok = strcmp(want[i], t->log[i]) == 0;
    if (!ok) {
        fprintf(stderr, "\nevent log:\n");
        for (int i = 0; i < t->nlog; i++)
            fprintf(stderr, "  got  %s\n", t->log[i]);
        for (int i = 0; i < n; i++)
            fprintf(stderr, "  want %s\n", want[i]);
    }
    return ok;
}

#endif
