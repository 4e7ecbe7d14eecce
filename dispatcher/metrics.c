/* The dispatcher's metrics registry and the Prometheus text writer (see metrics.h and
 * docs/metrics.md). The families are fixed at compile time; only their label values vary, each
 * family's series kept in insertion order with a hash index beside them. */
#include "dispatcher/metrics.h"

#include "queue/errors.h"
#include "queue/hash.h"
#include "queue/mem.h"

#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the text writer ---- */

void disp_metrics_text_printf(struct disp_metrics_text *t, const char *fmt, ...)
{
    for (int tries = 0; !t->bad && tries < 2; tries++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->bad = 1;
            return;
        }
        if (t->p && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t nc = t->cap ? t->cap * 2 : 4096;
        while (nc - t->len <= (size_t)n)
            nc *= 2;
        char *g = muster_realloc(t->p, nc);
        if (!g) {
            t->bad = 1;
            return;
        }
        t->p = g;
        t->cap = nc;
    }
}

void disp_metrics_text_label(struct disp_metrics_text *t, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\')
            disp_metrics_text_printf(t, "\\\\");
        else if (*v == '"')
            disp_metrics_text_printf(t, "\\\"");
        else if (*v == '\n')
            disp_metrics_text_printf(t, "\\n");
        else
            disp_metrics_text_printf(t, "%c", *v);
    }
}

void disp_metrics_text_milli(struct disp_metrics_text *t, int64_t milli)
{
    uint64_t m = milli < 0 ? (uint64_t)0 - (uint64_t)milli : (uint64_t)milli;
    const char *sign = milli < 0 ? "-" : "";
    uint64_t frac = m % 1000;
    if (!frac) {
        disp_metrics_text_printf(t, "%s%" PRIu64 "\n", sign, m / 1000);
        return;
    }
    int digits = 3;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    disp_metrics_text_printf(t, "%s%" PRIu64 ".%0*" PRIu64 "\n", sign, m / 1000, digits, frac);
}

void disp_metrics_text_double(struct disp_metrics_text *t, double v)
{
    if (isnan(v)) {
        disp_metrics_text_printf(t, "NaN");
        return;
    }
    if (isinf(v)) {
        disp_metrics_text_printf(t, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    /* The fewest significant digits that read back as v, written without an exponent for
     * magnitudes up to 1e21 as Go's strconv (and so Prometheus' own clients) does: "600", not
     * "6e+02". */
    char buf[48];
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
    long exp10 = strtol(strchr(buf, 'e') + 1, NULL, 10);
    if (exp10 >= -5 && exp10 < 21 && exp10 + 1 > prec)
        prec = (int)exp10 + 1;
    disp_metrics_text_printf(t, "%.*g", prec, v);
}

void disp_metrics_text_family(struct disp_metrics_text *t, const char *name, const char *type,
                              const char *help)
{
    disp_metrics_text_printf(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ---- the families ---- */

enum family_id {
    F_ADMISSIONS,
    F_ROLLBACKS,
    F_REQUEUES,
    F_RELEASES,
    F_ADMISSION_WAIT,
    F_DISPATCH_LATENCY,
    F_CYCLE,
    F_RECLAIM_WAIT,
    F_HUB_REQUESTS,
    F_HUB_ERRORS,
    F_WATCH_RESTARTS,
    F_CLUSTER_CAPACITY,
    F_CLUSTER_RESERVED,
    F_DROPPED,
    F_CLUSTER_LOSSES,
    F_PREEMPTIONS,
    F_NS_HOLDING,
    F_NS_PENDING,
    F_LEDGER_COMMITS,
    NFAMILIES
};

enum family_type { COUNTER, GAUGE_MILLI, HISTOGRAM };

static const struct family {
    const char *name;
    enum family_type type;
    const char *labels[2]; /* NULL past the last */
    const char *help;
} families[NFAMILIES] = {
    [F_ADMISSIONS] = {"muster_admissions_total",
                      COUNTER,
                      {"queue"},
                      "Workloads admitted by the dispatch cycle, by leaf queue."},
    [F_ROLLBACKS] = {"muster_rollbacks_total",
                     COUNTER,
                     {"reason"},
                     "Dispatched gangs rolled back from every cluster, by reason."},
    [F_LEDGER_COMMITS] = {"muster_ledger_commits_total",
                          COUNTER,
                          {NULL},
                          "SQLite transactions that committed ledger rows: one per event-loop "
                          "iteration that decided something, each with its fdatasync."},
    [F_REQUEUES] = {"muster_requeues_total",
                    COUNTER,
                    {NULL},
                    "Rolled-back workloads put back in their queue with back-off."},
    [F_RELEASES] = {"muster_releases_total",
                    COUNTER,
                    {"reason"},
                    "Reservations released (workload finished, binding deleted, ...), by reason."},
    [F_ADMISSION_WAIT] = {"muster_admission_wait_seconds",
                          HISTOGRAM,
                          {NULL},
                          "Time from a binding first seen held to its admission."},
    [F_DISPATCH_LATENCY] = {"muster_dispatch_latency_seconds",
                            HISTOGRAM,
                            {NULL},
                            "Time from admission to the binding released to its clusters."},
    [F_CYCLE] = {"muster_cycle_duration_seconds",
                 HISTOGRAM,
                 {NULL},
                 "Duration of one dispatch cycle."},
    [F_RECLAIM_WAIT] = {"muster_reclaim_wait_seconds",
                        HISTOGRAM,
                        {NULL},
                        "Time from a preemption decided for a gang to the gang's admission."},
    [F_HUB_REQUESTS] = {"muster_hub_requests_total",
                        COUNTER,
                        {"verb", "code"},
                        "Requests to the hub's API server completed, by verb and HTTP code "
                        "(0: no response)."},
    [F_HUB_ERRORS] = {"muster_hub_request_errors_total",
                      COUNTER,
                      {"verb"},
                      "Hub requests that failed: no response, 401, 403, 429 or 5xx."},
    [F_WATCH_RESTARTS] = {"muster_watch_restarts_total",
                          COUNTER,
                          {"resource"},
                          "Watches of the hub started again (stream ended, 410 Gone, error)."},
    [F_CLUSTER_CAPACITY] = {"muster_cluster_capacity",
                            GAUGE_MILLI,
                            {"cluster", "resource"},
                            "Allocatable capacity a member cluster reports, per resource "
                            "(cores, bytes, units)."},
    [F_CLUSTER_RESERVED] = {"muster_cluster_reserved",
                            GAUGE_MILLI,
                            {"cluster", "resource"},
                            "muster's in-flight reservations in a member cluster, per resource."},
    [F_DROPPED] = {"muster_metrics_dropped_series_total",
                   COUNTER,
                   {NULL},
                   "Metric updates dropped because a family was at its series cap, a label "
                   "value was too long, or memory ran out."},
    [F_NS_HOLDING] = {"muster_namespace_gangs",
                      GAUGE_MILLI,
                      {"queue", "namespace"},
                      "Gangs holding capacity (admitted, dispatched, running), by leaf queue and "
                      "namespace; past the series cap the rest are summed under queue and "
                      "namespace \"_other\"."},
    [F_NS_PENDING] = {"muster_namespace_pending",
                      GAUGE_MILLI,
                      {"queue", "namespace"},
                      "Bindings waiting (pending or parked), by queue and namespace; past the "
                      "series cap the rest are summed under queue and namespace \"_other\"."},
    [F_CLUSTER_LOSSES] = {"muster_cluster_losses_total",
                          COUNTER,
                          {"trigger", "decision"},
                          "Shares of dispatched gangs lost with their cluster, by trigger "
                          "(NotReady, NoExecute, Evicted) and what the queue's onClusterLoss "
                          "decided (requeued, replaced)."},
    [F_PREEMPTIONS] = {"muster_preemptions_total",
                       COUNTER,
                       {"queue", "reason"},
                       "Running gangs preempted, by their leaf queue and why: reclaim (taken "
                       "back for another queue) or priority (withinQueue: LowerPriority)."},
};

/* Prometheus-style buckets for latencies from 1 ms to 10 min: 1-2.5-5 steps, then minutes. */
static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                 1,     2.5,    5,     10,   30,    60,   120, 300,  600};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

const double *disp_metrics_buckets(size_t *n)
{
    *n = NBUCKETS;
    return buckets;
}

struct series {
    char *labels; /* the label values, each ending in '\0' */
    size_t labels_len;
    uint64_t hash;
    uint64_t count; /* counters */
    int64_t milli;  /* gauges */
};

struct table {
    struct series *s;
    uint32_t n, cap;
    uint32_t *slots; /* open addressing: index + 1 into s, 0 empty; nslots a power of two */
    uint32_t nslots;
};

struct histogram {
    uint64_t counts[NBUCKETS + 1]; /* per bucket, not cumulative; the last is above 600 s */
    uint64_t count;
    double sum;
};

struct disp_metrics {
    struct table t[NFAMILIES];
    struct histogram h[4]; /* F_ADMISSION_WAIT, F_DISPATCH_LATENCY, F_CYCLE, F_RECLAIM_WAIT in
                              that order */
    uint64_t requeues, dropped, ledger_commits;
    void (*leader)(void *ud, struct disp_metrics_leader *out);
    void *leader_ud;
};

struct disp_metrics *disp_metrics_new(void)
{
    return muster_calloc(1, sizeof(struct disp_metrics));
}

void disp_metrics_free(struct disp_metrics *m)
{
    if (!m)
        return;
    for (int f = 0; f < NFAMILIES; f++) {
        for (uint32_t i = 0; i < m->t[f].n; i++)
            muster_free(m->t[f].s[i].labels);
        muster_free(m->t[f].s);
        muster_free(m->t[f].slots);
    }
    muster_free(m);
}

/* ---- series lookup ---- */

/* The joined label values "a\0b\0" in key (cap DISP_METRICS_LABEL_MAX * 2 + 2), or 0 when a
 * value is too long. NULL values read as "". */
static size_t join(char *key, const char *a, const char *b)
{
    size_t len = 0;
    const char *v[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (i == 1 && !b)
            break;
        size_t l = v[i] ? strlen(v[i]) : 0;
        if (l > DISP_METRICS_LABEL_MAX)
            return 0;
        memcpy(key + len, v[i] ? v[i] : "", l);
        key[len + l] = '\0';
        len += l + 1;
    }
    return len;
}

static uint64_t hash_of(const char *key, size_t len)
{
    return queue_hash_fnv1a64(QUEUE_HASH_FNV64_BASIS, key, len);
}

static void index_put(struct table *t, uint32_t i)
{
    uint32_t mask = t->nslots - 1, at = (uint32_t)t->s[i].hash & mask;
    while (t->slots[at])
        at = (at + 1) & mask;
    t->slots[at] = i + 1;
}

/* Rebuilds the index at nslots (a power of two above twice the series). */
static int index_rebuild(struct table *t, uint32_t nslots)
{
    uint32_t *slots = muster_calloc(nslots, sizeof(*slots));
    if (!slots)
        return MUSTER_ENOMEM;
    muster_free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    for (uint32_t i = 0; i < t->n; i++)
        index_put(t, i);
    return 0;
}

/* The series of t with the joined labels key[0..len) and their hash h, or NULL. */
static struct series *lookup(struct table *t, const char *key, size_t len, uint64_t h)
{
    if (!t->nslots)
        return NULL;
    uint32_t mask = t->nslots - 1;
    for (uint32_t at = (uint32_t)h & mask; t->slots[at]; at = (at + 1) & mask) {
        struct series *s = &t->s[t->slots[at] - 1];
        if (s->hash == h && s->labels_len == len && memcmp(s->labels, key, len) == 0)
            return s;
    }
    return NULL;
}

/* The series of family f with label values a (and b), created when new; NULL (and the update
 * counted as dropped) at the cap, for a too-long value, or when memory runs out. */
static struct series *series_get(struct disp_metrics *m, enum family_id f, const char *a,
                                 const char *b)
{
    char key[2 * DISP_METRICS_LABEL_MAX + 2];
    struct table *t = &m->t[f];
    size_t len = join(key, a, families[f].labels[1] ? (b ? b : "") : NULL);
    if (!len) {
        m->dropped++;
        return NULL;
    }
    uint64_t h = hash_of(key, len);
    struct series *found = lookup(t, key, len, h);
    if (found)
        return found;
    if (t->n >= DISP_METRICS_SERIES_MAX) {
        m->dropped++;
        return NULL;
    }
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 8;
        struct series *g = muster_realloc(t->s, nc * sizeof(*g));
        if (!g) {
            m->dropped++;
            return NULL;
        }
        t->s = g;
        t->cap = nc;
    }
    if ((t->n + 1) * 2 > t->nslots && index_rebuild(t, t->nslots ? t->nslots * 2 : 16)) {
        m->dropped++;
        return NULL;
    }
    char *labels = muster_malloc(len);
    if (!labels) {
        m->dropped++;
        return NULL;
    }
    memcpy(labels, key, len);
    struct series *s = &t->s[t->n];
    memset(s, 0, sizeof(*s));
    s->labels = labels;
    s->labels_len = len;
    s->hash = h;
    index_put(t, t->n++);
    return s;
}

static void count(struct disp_metrics *m, enum family_id f, const char *a, const char *b)
{
    struct series *s = m ? series_get(m, f, a, b) : NULL;
    if (s)
        s->count++;
}

static void observe(struct disp_metrics *m, int which, double seconds)
{
    if (!m || isnan(seconds))
        return; /* a NaN would poison the sum for good */
    struct histogram *h = &m->h[which];
    size_t i = 0;
    while (i < NBUCKETS && seconds > buckets[i])
        i++;
    h->counts[i]++;
    h->count++;
    h->sum += seconds;
}

/* ---- updates ---- */

void disp_metrics_admission(struct disp_metrics *m, const char *queue)
{
    count(m, F_ADMISSIONS, queue, NULL);
}

void disp_metrics_rollback(struct disp_metrics *m, const char *reason)
{
    count(m, F_ROLLBACKS, reason, NULL);
}

void disp_metrics_cluster_loss(struct disp_metrics *m, const char *trigger, const char *decision)
{
    count(m, F_CLUSTER_LOSSES, trigger, decision);
}

void disp_metrics_requeue(struct disp_metrics *m)
{
    if (m)
        m->requeues++;
}

void disp_metrics_ledger_commit(struct disp_metrics *m)
{
    if (m)
        m->ledger_commits++;
}

void disp_metrics_release(struct disp_metrics *m, const char *reason)
{
    count(m, F_RELEASES, reason, NULL);
}

void disp_metrics_preemption(struct disp_metrics *m, const char *queue, const char *reason)
{
    count(m, F_PREEMPTIONS, queue, reason);
}

void disp_metrics_reclaim_wait(struct disp_metrics *m, double seconds)
{
    observe(m, F_RECLAIM_WAIT - F_ADMISSION_WAIT, seconds);
}

void disp_metrics_admission_wait(struct disp_metrics *m, double seconds)
{
    observe(m, 0, seconds);
}

void disp_metrics_dispatch_latency(struct disp_metrics *m, double seconds)
{
    observe(m, 1, seconds);
}

void disp_metrics_cycle(struct disp_metrics *m, double seconds)
{
    observe(m, 2, seconds);
}

void disp_metrics_hub_request(struct disp_metrics *m, const char *verb, int code)
{
    char c[8];
    if (code < 100 || code > 599)
        code = 0;
    snprintf(c, sizeof(c), "%d", code);
    count(m, F_HUB_REQUESTS, verb, c);
    /* 404, 409, 410 and 422 answer the request (a missing object, an existing Work on a resumed
     * commit, an expired watch): the protocol handles them; these say the hub did not serve. */
    if (code == 0 || code == 401 || code == 403 || code == 429 || code >= 500)
        count(m, F_HUB_ERRORS, verb, NULL);
}

void disp_metrics_watch_restart(struct disp_metrics *m, const char *resource)
{
    count(m, F_WATCH_RESTARTS, resource, NULL);
}

static void gauge(struct disp_metrics *m, enum family_id f, const char *cluster,
                  const char *resource, int64_t milli)
{
    struct series *s = m ? series_get(m, f, cluster, resource) : NULL;
    if (s)
        s->milli = milli;
}

void disp_metrics_cluster_capacity(struct disp_metrics *m, const char *cluster,
                                   const char *resource, int64_t milli)
{
    gauge(m, F_CLUSTER_CAPACITY, cluster, resource, milli);
}

void disp_metrics_cluster_reserved(struct disp_metrics *m, const char *cluster,
                                   const char *resource, int64_t milli)
{
    gauge(m, F_CLUSTER_RESERVED, cluster, resource, milli);
}

/* Forgets every series of family f (same index size, so it never fails). */
static void family_clear(struct disp_metrics *m, enum family_id f)
{
    struct table *t = &m->t[f];
    for (uint32_t i = 0; i < t->n; i++)
        muster_free(t->s[i].labels);
    t->n = 0;
    if (t->slots)
        memset(t->slots, 0, t->nslots * sizeof(*t->slots));
}

void disp_metrics_namespaces_reset(struct disp_metrics *m)
{
    if (!m)
        return;
    family_clear(m, F_NS_HOLDING);
    family_clear(m, F_NS_PENDING);
}

void disp_metrics_namespace_add(struct disp_metrics *m, const char *queue, const char *ns,
                                int holding)
{
    if (!m)
        return;
    enum family_id f = holding ? F_NS_HOLDING : F_NS_PENDING;
    struct table *t = &m->t[f];
    /* the last slot is kept for "_other", so every binding is counted somewhere */
    struct series *s = NULL;
    if (t->n < DISP_METRICS_NS_SERIES_MAX - 1) {
        s = series_get(m, f, queue, ns);
    } else {
        char key[2 * DISP_METRICS_LABEL_MAX + 2];
        size_t len = join(key, queue, ns);
        s = len ? lookup(t, key, len, hash_of(key, len)) : NULL;
    }
    if (!s)
        s = series_get(m, f, "_other", "_other");
    if (s)
        s->milli += 1000;
}

void disp_metrics_cluster_forget(struct disp_metrics *m, const char *cluster)
{
    if (!m)
        return;
    const enum family_id fams[] = {F_CLUSTER_CAPACITY, F_CLUSTER_RESERVED};
    for (size_t k = 0; k < 2; k++) {
        struct table *t = &m->t[fams[k]];
        uint32_t kept = 0;
        for (uint32_t i = 0; i < t->n; i++) {
            if (strcmp(t->s[i].labels, cluster ? cluster : "") == 0)
                muster_free(t->s[i].labels);
            else
                t->s[kept++] = t->s[i];
        }
        if (kept == t->n)
            continue;
        t->n = kept;
        /* Same size: the slots array is reused, so forgetting never fails. */
        memset(t->slots, 0, t->nslots * sizeof(*t->slots));
        for (uint32_t i = 0; i < t->n; i++)
            index_put(t, i);
    }
}

/* ---- rendering ---- */

static void render_series(struct disp_metrics_text *t, const struct family *f,
                          const struct series *s)
{
    disp_metrics_text_printf(t, "%s{", f->name);
    const char *v = s->labels;
    for (int i = 0; i < 2 && f->labels[i]; i++) {
        disp_metrics_text_printf(t, "%s%s=\"", i ? "," : "", f->labels[i]);
        disp_metrics_text_label(t, v);
        disp_metrics_text_printf(t, "\"");
        v += strlen(v) + 1;
    }
    disp_metrics_text_printf(t, "} ");
    if (f->type == GAUGE_MILLI)
        disp_metrics_text_milli(t, s->milli);
    else
        disp_metrics_text_printf(t, "%" PRIu64 "\n", s->count);
}

static void render_histogram(struct disp_metrics_text *t, const char *name,
                             const struct histogram *h)
{
    uint64_t cumulative = 0;
    for (size_t i = 0; i < NBUCKETS; i++) {
        cumulative += h->counts[i];
        disp_metrics_text_printf(t, "%s_bucket{le=\"", name);
        disp_metrics_text_double(t, buckets[i]);
        disp_metrics_text_printf(t, "\"} %" PRIu64 "\n", cumulative);
    }
    disp_metrics_text_printf(t, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n%s_sum ", name, h->count,
                             name);
    disp_metrics_text_double(t, h->sum);
    disp_metrics_text_printf(t, "\n%s_count %" PRIu64 "\n", name, h->count);
}

void disp_metrics_leader_source(struct disp_metrics *m,
                                void (*read)(void *ud, struct disp_metrics_leader *out), void *ud)
{
    if (!m)
        return;
    m->leader = read;
    m->leader_ud = ud;
}

/* The leader election's families, read from the source at scrape time. */
static void render_leader(struct disp_metrics_text *t, const struct disp_metrics *m)
{
    struct disp_metrics_leader l = {0};
    m->leader(m->leader_ud, &l);
    disp_metrics_text_family(t, "muster_leader_is_leader", "gauge",
                             "1 while this musterd dispatches (holds the Lease, or runs without "
                             "--leader-elect), else 0");
    disp_metrics_text_printf(t, "muster_leader_is_leader %d\n", l.is_leader ? 1 : 0);
    static const struct {
        const char *name, *help;
    } c[] = {
        {"muster_leader_attempts_total", "reads of the Lease (one per retry period)"},
        {"muster_leader_writes_total", "Lease creates and updates that went through (acquisitions "
                                       "and renewals)"},
        {"muster_leader_conflicts_total", "Lease writes refused with 409: another candidate wrote "
                                          "first"},
        {"muster_leader_failures_total", "Lease requests that failed otherwise (transport, 5xx, "
                                         "cancelled by the renew deadline)"},
        {"muster_leader_transitions_total", "times this musterd started leading"},
        {"muster_follower_reloads_total", "times this musterd, following, reloaded queues and "
                                          "ledger from the store (only after the leader committed)"},
    };
    const uint64_t v[] = {l.attempts, l.writes,      l.conflicts,
                          l.failures, l.transitions, l.follower_reloads};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        disp_metrics_text_family(t, c[i].name, "counter", c[i].help);
        disp_metrics_text_printf(t, "%s %" PRIu64 "\n", c[i].name, v[i]);
    }
}

/* What of the process's heap is in use and what is free but still held (malloc's arena:
 * fragmentation, and a burst's pages not given back yet): resident memory split into what the
 * objects need and what the allocator keeps (issue 22's memory figures, docs/benchmarks.md).
 * mallinfo2 walks the free chunks: a scrape's cost, not every request's. */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define MUSTER_HEAP_GAUGES 1 /* under AddressSanitizer malloc is not glibc's: nothing to read */
#endif
static void render_heap(struct disp_metrics_text *t)
{
#ifdef MUSTER_HEAP_GAUGES
    struct mallinfo2 mi = mallinfo2();
    disp_metrics_text_family(t, "muster_heap_in_use_bytes", "gauge",
                             "bytes of malloc's heap in use (mallinfo2 uordblks, plus hblkhd: "
                             "blocks mapped apart)");
    disp_metrics_text_printf(t, "muster_heap_in_use_bytes %zu\n", mi.uordblks + mi.hblkhd);
    disp_metrics_text_family(t, "muster_heap_free_bytes", "gauge",
                             "bytes of malloc's heap free but held (mallinfo2 fordblks)");
    disp_metrics_text_printf(t, "muster_heap_free_bytes %zu\n", mi.fordblks);
#else
    (void)t;
#endif
}

int disp_metrics_render(const struct disp_metrics *m, char **buf, size_t *len, size_t *cap)
{
    struct disp_metrics_text t = {*buf, *len, *cap, 0};
    for (int fi = 0; m && fi < NFAMILIES; fi++) {
        const struct family *f = &families[fi];
        disp_metrics_text_family(&t, f->name,
                                 f->type == HISTOGRAM ? "histogram"
                                 : f->type == COUNTER ? "counter"
                                                      : "gauge",
                                 f->help);
        if (fi == F_REQUEUES || fi == F_DROPPED || fi == F_LEDGER_COMMITS)
            disp_metrics_text_printf(&t, "%s %" PRIu64 "\n", f->name,
                                     fi == F_REQUEUES  ? m->requeues
                                     : fi == F_DROPPED ? m->dropped
                                                       : m->ledger_commits);
        else if (f->type == HISTOGRAM)
            render_histogram(&t, f->name, &m->h[fi - F_ADMISSION_WAIT]);
        else
            for (uint32_t i = 0; i < m->t[fi].n; i++)
                render_series(&t, f, &m->t[fi].s[i]);
    }
    if (m && m->leader)
        render_leader(&t, m);
    if (m)
        render_heap(&t);
    *buf = t.p;
    *len = t.len;
    *cap = t.cap;
    return t.bad ? MUSTER_ENOMEM : 0;
}
