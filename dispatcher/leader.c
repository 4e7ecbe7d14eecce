/* Leader election on a coordination.k8s.io/v1 Lease (see leader.h). One attempt at a time: GET
 * the lease, then CREATE it (404) or UPDATE it with its resourceVersion; the hub's optimistic
 * concurrency (409) decides between candidates. Three timers: the next attempt, the renew
 * deadline while leading, and a bound on one attempt's requests. */
#include "dispatcher/leader.h"

#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/json.h"
#include "queue/mem.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LEADER_PATH_MAX 640
#define LEADER_TIMERS 3

struct disp_leader {
    uv_loop_t *loop;
    struct kube_client *kc;
    char ns[DISP_LEADER_NAME_MAX + 1];
    char name[DISP_LEADER_NAME_MAX + 1];
    char identity[DISP_LEADER_IDENTITY_MAX + 1];
    char holder[DISP_LEADER_IDENTITY_MAX + 1]; /* last seen holderIdentity */
    char coll_path[LEADER_PATH_MAX], obj_path[LEADER_PATH_MAX];
    uint64_t lease_ms, renew_ms, retry_ms;
    void (*on_started)(void *ud);
    void (*on_stopped)(void *ud);
    void *ud;

    uv_timer_t retry;    /* the next attempt (and the deferred release callback) */
    uv_timer_t deadline; /* while leading: the renew deadline */
    uv_timer_t bound;    /* cancels an attempt whose requests take longer than renew_ms */
    int nclosed;

    struct kube_call *call; /* the request in flight, or NULL */
    uint64_t attempt_at;    /* uv_now when the attempt in flight began */
    uint64_t deadline_at;   /* while leading: loop time of the renew deadline */
    int started, leading, closing;
    struct disp_leader_stats stats;

    /* What this process last saw of the lease: the object (for the next update's
     * resourceVersion), its spec as text, and when that text last changed (loop time). The
     * takeover rule compares only this process's own clock, so skew between hosts is harmless. */
    json_object *lease;
    char *observed;
    uint64_t observed_at;

    int releasing;       /* a release is under way; no more attempts */
    int release_write;   /* the release writes the lease (we held it) */
    int release_pending; /* its callback has not run yet */
    void (*release_cb)(void *ud, int err);
    void *release_ud;
    int release_err;

    void (*close_cb)(void *ud);
    void *close_ud;
};

static void on_retry(uv_timer_t *t);
static void release_continue(struct disp_leader *l);

/* ---- small helpers ---- */

static void copy_str(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

/* Kubernetes MicroTime: RFC 3339 in UTC with microseconds. */
static void micro_time(char *buf, size_t cap)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char sec[32];
    if (strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        sec[0] = '\0';
    unsigned us = (unsigned)(ts.tv_nsec / 1000) % 1000000u;
    snprintf(buf, cap, "%.20s.%06uZ", sec, us);
}

/* Sets k to v in o, consuming v. 1 on failure. */
static int put(json_object *o, const char *k, json_object *v)
{
    if (!o || !v || json_object_object_add(o, k, v) != 0) {
        json_object_put(v);
        return 1;
    }
    return 0;
}

static void stop_leading(struct disp_leader *l)
{
    if (!l->leading)
        return;
    l->leading = 0;
    uv_timer_stop(&l->deadline);
    if (l->on_stopped)
        l->on_stopped(l->ud);
}

static void set_lease(struct disp_leader *l, json_object *lease)
{
    json_object_put(l->lease);
    l->lease = lease ? json_object_get(lease) : NULL;
}

/* Records what the lease says now; observed_at moves only when the record changed. */
static int observe(struct disp_leader *l, json_object *lease)
{
    json_object *spec = kube_json_get(lease, "spec");
    const char *text = spec ? json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PLAIN) : "{}";
    if (!l->observed || strcmp(l->observed, text) != 0) {
        char *copy = muster_strdup(text);
        if (!copy)
            return MUSTER_ENOMEM;
        muster_free(l->observed);
        l->observed = copy;
        l->observed_at = uv_now(l->loop);
    }
    json_object *h = kube_json_get(spec, "holderIdentity");
    copy_str(l->holder, sizeof(l->holder),
             h && json_object_is_type(h, json_type_string) ? json_object_get_string(h) : "");
    set_lease(l, lease);
    return 0;
}

static int lease_send(struct disp_leader *l, enum kube_verb verb, const char *path,
                      json_object *body, kube_response_cb cb)
{
    struct kube_request r = {.verb = verb, .path = path};
    if (body)
        r.body = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
    return kube_request_start(l->kc, &r, cb, l, &l->call);
}

/* ---- closing ---- */

static void finish_release(struct disp_leader *l, int err)
{
    if (!l->release_pending)
        return;
    l->release_pending = 0;
    if (l->release_cb)
        l->release_cb(l->release_ud, err);
}

static void maybe_free(struct disp_leader *l)
{
    if (!l->closing || l->nclosed < LEADER_TIMERS || l->call)
        return;
    finish_release(l, MUSTER_ECANCELED);
    void (*cb)(void *) = l->close_cb;
    void *ud = l->close_ud;
    json_object_put(l->lease);
    muster_free(l->observed);
    muster_free(l);
    if (cb)
        cb(ud);
}

static void on_timer_closed(uv_handle_t *h)
{
    struct disp_leader *l = h->data;
    l->nclosed++;
    maybe_free(l);
}

/* ---- one attempt ---- */

/* The attempt is over, whatever its outcome: the next one in a retry period. */
static void attempt_done(struct disp_leader *l)
{
    uv_timer_stop(&l->bound);
    if (l->releasing) {
        release_continue(l);
        return;
    }
    if (!l->closing)
        uv_timer_start(&l->retry, on_retry, l->retry_ms, 0);
}

static void on_deadline(uv_timer_t *t)
{
    /* No renewal succeeded within the renew deadline: by the time the lease could expire in a
     * follower's eyes (lease_ms after it last saw our record change), we have long stopped. */
    stop_leading(t->data);
}

static void on_bound(uv_timer_t *t)
{
    struct disp_leader *l = t->data;
    if (l->call)
        kube_call_cancel(l->call); /* its callback ends the attempt as failed */
}

/* A create or update went through: we hold the lease as of attempt_at. */
static void won(struct disp_leader *l, json_object *lease)
{
    if (observe(l, lease) != 0)
        return; /* out of memory: the deadline decides, as for a failed renewal */
    uint64_t now = uv_now(l->loop);
    uint64_t until = l->attempt_at + l->renew_ms;
    if (until <= now) {
        /* The write landed, but later than the deadline allows us to rely on it. */
        stop_leading(l);
        return;
    }
    l->deadline_at = until;
    uv_timer_start(&l->deadline, on_deadline, until - now, 0);
    if (!l->leading) {
        l->leading = 1;
        if (l->on_started)
            l->on_started(l->ud);
    }
}

static void on_write(int err, const struct kube_response *resp, void *ud)
{
    struct disp_leader *l = ud;
    l->call = NULL;
    if (l->closing) {
        maybe_free(l);
        return;
    }
    /* A 409 (Conflict on update, AlreadyExists on create) means another candidate wrote first:
     * not leadership. A leader that meets it keeps its deadline; the next read tells. A renewal
     * that lands while a release waits for it only gives the release its resourceVersion. */
    if (err == MUSTER_ECONFLICT || err == MUSTER_EEXIST)
        l->stats.conflicts++;
    else if (err)
        l->stats.failures++;
    else
        l->stats.writes++;
    if (!err && resp->body && l->releasing)
        observe(l, resp->body);
    else if (!err && resp->body)
        won(l, resp->body);
    attempt_done(l);
}

/* A new lease record for us: the lease object with its spec set (resourceVersion kept). */
static json_object *claim(struct disp_leader *l, json_object *lease, int release)
{
    json_object *o = NULL;
    if (lease) {
        if (json_object_deep_copy(lease, &o, NULL) != 0)
            return NULL;
    } else {
        o = json_object_new_object();
        json_object *md = json_object_new_object();
        int bad = put(o, "apiVersion", json_object_new_string("coordination.k8s.io/v1"));
        bad |= put(o, "kind", json_object_new_string("Lease"));
        bad |= put(md, "name", json_object_new_string(l->name));
        bad |= put(md, "namespace", json_object_new_string(l->ns));
        bad |= put(o, "metadata", md);
        if (bad) {
            json_object_put(o);
            return NULL;
        }
    }
    json_object *old = kube_json_get(o, "spec");
    json_object *hid = kube_json_get(old, "holderIdentity");
    int mine = hid && json_object_is_type(hid, json_type_string) &&
               strcmp(json_object_get_string(hid), l->identity) == 0;
    json_object *tr = kube_json_get(old, "leaseTransitions");
    int64_t transitions =
        tr && json_object_is_type(tr, json_type_int) ? json_object_get_int64(tr) : 0;
    json_object *acq = kube_json_get(old, "acquireTime");
    char now[40];
    micro_time(now, sizeof(now));
    json_object *spec = json_object_new_object();
    int bad = 0;
    if (release) {
        /* client-go's ReleaseOnCancel: no holder, a 1 s lease, transitions as they were. */
        bad |= put(spec, "holderIdentity", json_object_new_string(""));
        bad |= put(spec, "leaseDurationSeconds", json_object_new_int(1));
        bad |= put(spec, "acquireTime", json_object_new_string(now));
    } else {
        bad |= put(spec, "holderIdentity", json_object_new_string(l->identity));
        bad |= put(spec, "leaseDurationSeconds", json_object_new_int((int)(l->lease_ms / 1000)));
        /* A renewal keeps the acquisition; a takeover is a new one and a transition. */
        if (mine && acq && json_object_is_type(acq, json_type_string))
            bad |= put(spec, "acquireTime", json_object_get(acq));
        else
            bad |= put(spec, "acquireTime", json_object_new_string(now));
        if (!mine && lease)
            transitions++;
    }
    bad |= put(spec, "renewTime", json_object_new_string(now));
    bad |= put(spec, "leaseTransitions", json_object_new_int64(transitions));
    bad |= put(o, "spec", spec);
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static void on_get(int err, const struct kube_response *resp, void *ud)
{
    struct disp_leader *l = ud;
    l->call = NULL;
    if (l->closing) {
        maybe_free(l);
        return;
    }
    if (l->releasing) {
        if (!err && resp->body)
            observe(l, resp->body);
        attempt_done(l);
        return;
    }
    if (err && err != MUSTER_ENOENT)
        l->stats.failures++;
    json_object *body = NULL;
    const char *path = l->obj_path;
    enum kube_verb verb = KUBE_UPDATE;
    if (err == MUSTER_ENOENT) {
        verb = KUBE_CREATE;
        path = l->coll_path;
        body = claim(l, NULL, 0);
    } else if (!err && resp->body) {
        if (observe(l, resp->body) != 0) {
            attempt_done(l);
            return;
        }
        json_object *d = kube_json_get(kube_json_get(resp->body, "spec"), "leaseDurationSeconds");
        int64_t secs = d && json_object_is_type(d, json_type_int) ? json_object_get_int64(d) : 0;
        if (secs < 0)
            secs = 0;
        int other = l->holder[0] && strcmp(l->holder, l->identity) != 0;
        if (other && l->observed_at + (uint64_t)secs * 1000 > uv_now(l->loop)) {
            /* Someone else holds a lease that has not expired in our eyes. */
            stop_leading(l);
            attempt_done(l);
            return;
        }
        body = claim(l, resp->body, 0);
    }
    if (!body || lease_send(l, verb, path, body, on_write) != 0)
        attempt_done(l); /* a failed read, out of memory, or a client that is closing */
    json_object_put(body);
}

static void attempt(struct disp_leader *l)
{
    if (l->call || l->closing || l->releasing)
        return;
    l->attempt_at = uv_now(l->loop);
    l->stats.attempts++;
    if (lease_send(l, KUBE_GET, l->obj_path, NULL, on_get) != 0) {
        attempt_done(l);
        return;
    }
    uv_timer_start(&l->bound, on_bound, l->renew_ms, 0);
}

static void on_retry(uv_timer_t *t)
{
    struct disp_leader *l = t->data;
    if (l->releasing) /* the deferred callback of a release that wrote nothing */
        finish_release(l, l->release_err);
    else
        attempt(l);
}

/* ---- release ---- */

static void on_release_write(int err, const struct kube_response *resp, void *ud)
{
    struct disp_leader *l = ud;
    (void)resp;
    l->call = NULL;
    uv_timer_stop(&l->bound);
    if (l->closing) {
        maybe_free(l);
        return;
    }
    if (!err)
        l->holder[0] = '\0';
    finish_release(l, err);
}

/* The release's write, once no request of an attempt is in flight. */
static void release_continue(struct disp_leader *l)
{
    uv_timer_stop(&l->bound);
    int do_write = l->release_write && l->lease && strcmp(l->holder, l->identity) == 0;
    json_object *body = do_write ? claim(l, l->lease, 1) : NULL;
    l->release_err = 0;
    if (body && lease_send(l, KUBE_UPDATE, l->obj_path, body, on_release_write) == 0) {
        json_object_put(body);
        /* Bounded like an attempt, so a release always ends well within a pod's grace period
         * (the kube client's own timeout is 30 s). */
        uv_timer_start(&l->bound, on_bound, l->renew_ms, 0);
        return;
    }
    /* Nothing to write (we did not hold it), or we could not: out of memory, or the client
     * refused because it is closing. The caller learns which; the lease then expires. */
    if (do_write)
        l->release_err = body ? MUSTER_ECANCELED : MUSTER_ENOMEM;
    json_object_put(body);
    uv_timer_start(&l->retry, on_retry, 0, 0);
}

int disp_leader_release(struct disp_leader *l, void (*cb)(void *ud, int err), void *ud)
{
    if (!l || l->releasing || l->closing)
        return MUSTER_EINVAL;
    l->releasing = 1;
    l->release_pending = 1;
    l->release_cb = cb;
    l->release_ud = ud;
    l->release_write = l->leading || strcmp(l->holder, l->identity) == 0;
    uv_timer_stop(&l->retry);
    stop_leading(l);
    if (!l->call)
        release_continue(l);
    /* else: the attempt in flight ends in attempt_done, which continues the release */
    return 0;
}

/* ---- life cycle ---- */

int disp_leader_new(uv_loop_t *loop, struct kube_client *client,
                    const struct disp_leader_options *opt, struct disp_leader **out, char *err,
                    size_t errcap)
{
    char scratch[1];
    if (!err || !errcap) {
        err = scratch;
        errcap = sizeof(scratch);
    }
    err[0] = '\0';
    *out = NULL;
    if (!loop || !client || !opt) {
        snprintf(err, errcap, "leader: missing loop, client or options");
        return MUSTER_EINVAL;
    }
    uint64_t lease =
        opt->lease_duration_ms ? opt->lease_duration_ms : DISP_LEADER_LEASE_DURATION_MS_DEFAULT;
    uint64_t renew =
        opt->renew_deadline_ms ? opt->renew_deadline_ms : DISP_LEADER_RENEW_DEADLINE_MS_DEFAULT;
    uint64_t retry =
        opt->retry_period_ms ? opt->retry_period_ms : DISP_LEADER_RETRY_PERIOD_MS_DEFAULT;
    if (lease % 1000 != 0 || lease / 1000 > INT32_MAX) {
        snprintf(err, errcap,
                 "leader: --leader-elect-lease-duration %" PRIu64
                 " ms: must be whole seconds (the Lease stores seconds)",
                 lease);
        return MUSTER_ECONFIG;
    }
    if (!(lease > renew && renew > retry)) {
        snprintf(err, errcap,
                 "leader: lease duration (%" PRIu64 " ms) > renew deadline (%" PRIu64
                 " ms) > retry period (%" PRIu64 " ms) must hold",
                 lease, renew, retry);
        return MUSTER_ECONFIG;
    }
    const char *ns = opt->ns ? opt->ns : DISP_LEADER_NAMESPACE_DEFAULT;
    const char *name = opt->name ? opt->name : DISP_LEADER_NAME_DEFAULT;
    char id[DISP_LEADER_IDENTITY_MAX + 1];
    if (opt->identity) {
        copy_str(id, sizeof(id), opt->identity);
    } else {
        char host[DISP_LEADER_IDENTITY_MAX - 24 + 1];
        if (gethostname(host, sizeof(host)) != 0)
            copy_str(host, sizeof(host), "musterd");
        host[sizeof(host) - 1] = '\0';
        snprintf(id, sizeof(id), "%s_%ld", host, (long)getpid());
    }
    if (!ns[0] || !name[0] || strlen(ns) > DISP_LEADER_NAME_MAX ||
        strlen(name) > DISP_LEADER_NAME_MAX || !id[0] ||
        (opt->identity && strlen(opt->identity) > DISP_LEADER_IDENTITY_MAX)) {
        snprintf(err, errcap,
                 "leader: the lease namespace, name and identity must be 1 to %d bytes",
                 DISP_LEADER_NAME_MAX);
        return MUSTER_ECONFIG;
    }
    struct disp_leader *l = muster_calloc(1, sizeof(*l));
    if (!l)
        return MUSTER_ENOMEM;
    l->loop = loop;
    l->kc = client;
    copy_str(l->ns, sizeof(l->ns), ns);
    copy_str(l->name, sizeof(l->name), name);
    copy_str(l->identity, sizeof(l->identity), id);
    l->lease_ms = lease;
    l->renew_ms = renew;
    l->retry_ms = retry;
    l->on_started = opt->on_started_leading;
    l->on_stopped = opt->on_stopped_leading;
    l->ud = opt->ud;
    if (kube_path(l->coll_path, sizeof(l->coll_path), "coordination.k8s.io", "v1", l->ns, "leases",
                  NULL) ||
        kube_path(l->obj_path, sizeof(l->obj_path), "coordination.k8s.io", "v1", l->ns, "leases",
                  l->name)) {
        muster_free(l);
        snprintf(err, errcap, "leader: the lease path is too long");
        return MUSTER_ECONFIG;
    }
    uv_timer_t *timers[LEADER_TIMERS] = {&l->retry, &l->deadline, &l->bound};
    for (int i = 0; i < LEADER_TIMERS; i++) {
        uv_timer_init(loop, timers[i]); /* cannot fail for a valid loop */
        timers[i]->data = l;
    }
    *out = l;
    return 0;
}

int disp_leader_start(struct disp_leader *l)
{
    if (!l || l->started || l->closing || l->releasing)
        return MUSTER_EINVAL;
    l->started = 1;
    uv_timer_start(&l->retry, on_retry, 0, 0);
    return 0;
}

int disp_leader_is_leader(const struct disp_leader *l)
{
    /* The clock, not only the flag: after the process was frozen (SIGSTOP, a stalled VM, a
     * long swap) the loop runs every overdue timer in due order, and the dispatch loop's may
     * come before the deadline's. uv_hrtime is the loop clock's base, read now. */
    return l && l->leading && uv_hrtime() / 1000000 < l->deadline_at;
}

const char *disp_leader_holder(const struct disp_leader *l)
{
    return l ? l->holder : "";
}

void disp_leader_stats(const struct disp_leader *l, struct disp_leader_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (l)
        *out = l->stats;
}

const char *disp_leader_identity(const struct disp_leader *l)
{
    return l ? l->identity : "";
}

void disp_leader_close(struct disp_leader *l, void (*cb)(void *ud), void *ud)
{
    if (!l || l->closing)
        return;
    l->closing = 1;
    l->close_cb = cb;
    l->close_ud = ud;
    stop_leading(l);
    if (l->call)
        kube_call_cancel(l->call);
    uv_close((uv_handle_t *)&l->retry, on_timer_closed);
    uv_close((uv_handle_t *)&l->deadline, on_timer_closed);
    uv_close((uv_handle_t *)&l->bound, on_timer_closed);
}
