/* muster-dispatch-check: the end-state checks of the crash and fault-injection tests
 * (tests/integration/dispatch_crash.sh, dispatch_faults.sh), run once musterd has converged.
 *
 *   muster-dispatch-check --events FILE --hub URL --api URL --namespace NS --queue Q
 *                         [--unfit PREFIX]
 *
 * FILE is muster-sim's --event-log written with --event-log-objects 1. Checks, each failure
 * printed as one "FAIL ..." line (exit 1; 0 when all hold, 2 on usage or I/O errors):
 *
 *  1. No overlapping dispatches. For every RB, the sequence of spec.clusters values the hub
 *     committed (from the event log) never goes from one non-empty placement to a different
 *     non-empty placement without an empty one in between, except a shrink (issue 17: every
 *     cluster of the new one was in the old one with at least as many replicas), which is the
 *     same dispatch holding less, or a growth (every cluster of the old one is in the new one
 *     with at most as many replicas: a scale up's delta admitted into the same row,
 *     docs/dispatcher.md "Scale up"), the same dispatch holding more, or unless the ledger
 *     records a Replace of exactly that step
 *     (a row whose loss record says decision Replace, from the first placement, and whose
 *     clusters are the second: a lost cluster's share moved while the others ran,
 *     docs/dispatcher.md "A cluster lost"). Each empty -> non-empty step, and each such
 *     Replace, is one dispatch.
 *  2. The ledger agrees: the RB's dispatches, in order, are a subsequence of its admitted ledger
 *     rows' placements (ledger id order; a Replace row stands for its loss record's "from" and
 *     then its own clusters) — so two dispatches need two admissions, the earlier one rolled
 *     back or replaced — and the last dispatch is the placement of the newest admitted row.
 *  3. Every RB in NS whose name does not start with PREFIX and whose workload has replicas is
 *     dispatched (one scaled to 0 is held, Scheduled=False/ScaledToZero): spec.clusters set,
 *     suspension.scheduling false, suspension.dispatching not true, Scheduled=True. Those with
 *     PREFIX are held: no clusters, scheduling true, Scheduled=False (NoClusterFit, or
 *     QuotaExceeded if the queue was full when the condition was last written).
 *  4. Usage: queue Q's status.allocated cpu equals the sum of the cpu requests of the live
 *     admitted/dispatched/running ledger rows, and the sum over the hub's dispatched RBs whose
 *     workload is not finished (a Job whose every share reports succeeded ≥ its replicas is).
 *     Every live ledger row names an RB that exists with the same uid.
 *  5. No orphans: every Work labelled app.kubernetes.io/managed-by=muster belongs to an RB
 *     that exists and is dispatched, to one of its spec.clusters, and is not suspended; every
 *     such OverridePolicy to an RB that exists with the uid of its
 *     scheduling.muster.io/binding-uid label (muster keeps the policy for the RB's life: issue
 *     15, docs/gangobj.md).
 *  6. No placement patch sent twice (issue 15): once an RB is lifted (spec.clusters set,
 *     scheduling and dispatching not suspended), the dispatching barrier never goes up and down
 *     again over the same placement. A rollback raises it too, but then clears the placement.
 *
 * An RB of check 3 that is not dispatched passes when it waits for quota: Scheduled=False/
 * QuotaExceeded, and Q's allocated cpu plus its own request is above Q's capability (the
 * queue really is full; check 4 says whether that usage is real). */
#include "cluster-adapters/kube/json.h"
#include "queue/hash.h"

#include <curl/curl.h>
#include <json-c/json.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    failures++;
}

struct buf {
    char *p;
    size_t n;
};

static size_t on_data(char *d, size_t sz, size_t n, void *ud)
{
    struct buf *b = ud;
    char *p = realloc(b->p, b->n + sz * n + 1);
    if (!p)
        return 0;
    memcpy(p + b->n, d, sz * n);
    b->n += sz * n;
    p[b->n] = '\0';
    b->p = p;
    return sz * n;
}

/* GET url -> parsed JSON (NULL on error; *code the HTTP status). */
static json_object *get_json(CURL *h, const char *url, long *code)
{
    struct buf b = {0};
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    *code = 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        b.n = 0;
        if (curl_easy_perform(h) == CURLE_OK) {
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code);
            if (*code != 500 && *code != 429)
                break; /* fault injection answers some requests with 500 or 429 */
            /* and the admin API's rate limit with 429 */
            struct timespec ts = {0, 200 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    json_object *o = b.p && b.n ? json_tokener_parse(b.p) : NULL;
    free(b.p);
    return o;
}

/* cpu quantity in milli ("2", "1500m", "0.5"); -1 when absent. */
static int64_t cpu_milli(json_object *req)
{
    const char *s = kube_json_str(req, "cpu");
    if (!s)
        return -1;
    char *end;
    double v = strtod(s, &end);
    if (*end == 'm')
        return (int64_t)(v + 0.5);
    return (int64_t)(v * 1000 + 0.5);
}

/* A placement as text: "c1=3,c2=2" in the order given (muster keeps its shares' order). */
static void placement(json_object *arr, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; arr && i < json_object_array_length(arr) && n < cap; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        json_object *r = kube_json_get(e, "replicas");
        n += (size_t)snprintf(out + n, cap - n, "%s%s=%d", i ? "," : "",
                              kube_json_str(e, "name") ? kube_json_str(e, "name") : "?",
                              r ? json_object_get_int(r) : 0);
    }
}

/* b is a from a shrink: every cluster of b is in a with at least as many replicas, and b is
 * not a. Both as placement() writes them. */
static int shrink_of(const char *a, const char *b)
{
    if (!b[0] || strcmp(a, b) == 0)
        return 0;
    for (const char *t = b; *t;) {
        const char *eq = strchr(t, '=');
        if (!eq)
            return 0;
        size_t nl = (size_t)(eq - t);
        char *end;
        long want = strtol(eq + 1, &end, 10);
        int found = 0;
        for (const char *p = a; *p && !found;) {
            const char *pe = strchr(p, ',');
            size_t l = pe ? (size_t)(pe - p) : strlen(p);
            found = l > nl && strncmp(p, t, nl) == 0 && p[nl] == '=' &&
                    strtol(p + nl + 1, NULL, 10) >= want;
            p += l + (pe ? 1 : 0);
        }
        if (!found)
            return 0;
        t = *end == ',' ? end + 1 : end;
    }
    return 1;
}

/* ---- per-RB dispatch sequence from the event log ---- */

#define MAXD 16
#define MAXO 4 /* non-empty to non-empty steps kept per RB, for the ledger to explain */

struct rb {
    char key[512];
    char last[512];  /* last committed placement ("" empty) */
    char last_nonempty[512];
    int empty_between;
    char disp[MAXD][512]; /* dispatches in order */
    int ndisp;
    int overlaps;
    int shrinks, grows;
    char ovl_from[MAXO][512], ovl_to[MAXO][512];
    int ovl_ok[MAXO];
    int lifted;   /* check 6: placed and released, not suspended */
    int reraised; /* and then muster's barrier went up over the same placement */
    struct rb *next;
};

static struct rb *rbs[4096];

static unsigned hkey(const char *s)
{
    return (unsigned)(queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, s) % 4096);
}

static struct rb *rb_get(const char *key, int create)
{
    unsigned h = hkey(key);
    for (struct rb *r = rbs[h]; r; r = r->next)
        if (strcmp(r->key, key) == 0)
            return r;
    if (!create)
        return NULL;
    struct rb *r = calloc(1, sizeof(*r));
    if (!r)
        exit(2);
    snprintf(r->key, sizeof r->key, "%s", key);
    r->empty_between = 1;
    r->next = rbs[h];
    rbs[h] = r;
    return r;
}

static int read_events(const char *path, const char *ns)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 20;
    char *line = malloc(cap);
    ssize_t len;
    size_t n = 0, nrb = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        n++;
        if (!strstr(line, "\"resource\":\"resourcebindings\""))
            continue;
        json_object *ev = json_tokener_parse(line);
        if (!ev) {
            fprintf(stderr, "dispatch-check: %s:%zu: not JSON\n", path, n);
            continue;
        }
        const char *type = kube_json_str(ev, "type"), *evns = kube_json_str(ev, "namespace");
        json_object *obj = kube_json_get(ev, "object");
        if (!obj) {
            fprintf(stderr, "dispatch-check: the event log has no objects (--event-log-objects 1)\n");
            json_object_put(ev);
            fclose(f);
            free(line);
            return -1;
        }
        if (!evns || strcmp(evns, ns) != 0 || !type || strcmp(type, "DELETED") == 0) {
            json_object_put(ev);
            continue;
        }
        char key[512], pl[512];
        snprintf(key, sizeof key, "%s/%s", evns, kube_json_str(ev, "name"));
        struct rb *r = rb_get(key, 1);
        placement(kube_json_path(obj, "spec", "clusters", NULL), pl, sizeof pl);
        nrb++;
        if (strcmp(pl, r->last) != 0) {
            if (pl[0] && !r->empty_between && shrink_of(r->last_nonempty, pl)) {
                /* the dispatch shrank: the ledger row now says the smaller placement */
                if (r->ndisp > 0 && r->ndisp <= MAXD)
                    snprintf(r->disp[r->ndisp - 1], sizeof r->disp[0], "%s", pl);
                snprintf(r->last_nonempty, sizeof r->last_nonempty, "%s", pl);
                r->shrinks++;
            } else if (pl[0] && !r->empty_between && r->last_nonempty[0] &&
                       shrink_of(pl, r->last_nonempty)) {
                /* the dispatch grew: the same row now says the larger placement */
                if (r->ndisp > 0 && r->ndisp <= MAXD)
                    snprintf(r->disp[r->ndisp - 1], sizeof r->disp[0], "%s", pl);
                snprintf(r->last_nonempty, sizeof r->last_nonempty, "%s", pl);
                r->grows++;
            } else if (!pl[0]) {
                r->empty_between = 1;
            } else if (!r->empty_between && strcmp(pl, r->last_nonempty) != 0) {
                /* judged once the ledger is read (a Replace explains it) */
                if (r->overlaps < MAXO) {
                    snprintf(r->ovl_from[r->overlaps], sizeof r->ovl_from[0], "%s",
                             r->last_nonempty);
                    snprintf(r->ovl_to[r->overlaps], sizeof r->ovl_to[0], "%s", pl);
                } else {
                    fail("%s: spec.clusters went from [%s] to [%s] with no empty placement "
                         "between (resourceVersion %s)",
                         key, r->last_nonempty, pl, kube_json_str(ev, "resourceVersion"));
                }
                r->overlaps++;
            }
            if (pl[0] && (r->empty_between || strcmp(pl, r->last_nonempty) != 0)) {
                if (r->ndisp < MAXD)
                    snprintf(r->disp[r->ndisp], sizeof r->disp[0], "%s", pl);
                r->ndisp++;
                r->empty_between = 0;
                snprintf(r->last_nonempty, sizeof r->last_nonempty, "%s", pl);
            }
            snprintf(r->last, sizeof r->last, "%s", pl);
            r->lifted = r->reraised = 0;
        }
        json_object *susp = kube_json_path(obj, "spec", "suspension", NULL);
        int sched = kube_json_bool(susp, "scheduling") == 1,
            disp = kube_json_bool(susp, "dispatching") == 1;
        if (!pl[0]) {
            r->lifted = r->reraised = 0;
        } else if (r->lifted && !sched && disp) {
            r->reraised = 1;
        } else if (r->reraised && !sched && !disp) {
            fail("%s: the placement [%s] was sent again after the lift: the dispatching barrier "
                 "went up and down over released shares (resourceVersion %s)",
                 key, pl, kube_json_str(ev, "resourceVersion"));
            r->reraised = 0;
        } else if (!sched && !disp) {
            r->lifted = 1;
        }
        json_object_put(ev);
    }
    free(line);
    fclose(f);
    printf("dispatch-check: %zu events, %zu of resourcebindings in %s\n", n, nrb, ns);
    return 0;
}

/* ---- helpers over the hub's lists ---- */

static json_object *find_item(json_object *list, const char *ns, const char *name)
{
    json_object *items = kube_json_get(list, "items");
    for (size_t i = 0; items && i < json_object_array_length(items); i++) {
        json_object *it = json_object_array_get_idx(items, i);
        json_object *md = kube_json_get(it, "metadata");
        if (strcmp(kube_json_str(md, "name") ? kube_json_str(md, "name") : "", name) == 0 &&
            strcmp(kube_json_str(md, "namespace") ? kube_json_str(md, "namespace") : "", ns) == 0)
            return it;
    }
    return NULL;
}

static int rb_dispatched(json_object *rb)
{
    json_object *cl = kube_json_path(rb, "spec", "clusters", NULL);
    return cl && json_object_array_length(cl) > 0 &&
           kube_json_bool(kube_json_path(rb, "spec", "suspension", NULL), "scheduling") != 1;
}

static int rb_lists(json_object *rb, const char *cluster)
{
    json_object *cl = kube_json_path(rb, "spec", "clusters", NULL);
    for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
        const char *n = kube_json_str(json_object_array_get_idx(cl, i), "name");
        if (n && strcmp(n, cluster) == 0)
            return 1;
    }
    return 0;
}

static json_object *condition(json_object *rb, const char *type)
{
    json_object *cs = kube_json_path(rb, "status", "conditions", NULL);
    for (size_t i = 0; cs && i < json_object_array_length(cs); i++) {
        json_object *c = json_object_array_get_idx(cs, i);
        if (kube_json_str(c, "type") && strcmp(kube_json_str(c, "type"), type) == 0)
            return c;
    }
    return NULL;
}

/* The RB's whole request in cpu milli, as muster counts a gang of all replicas. */
static int64_t rb_cpu(json_object *rb)
{
    json_object *spec = kube_json_get(rb, "spec");
    json_object *comps = kube_json_get(spec, "components");
    int64_t sum = 0;
    if (comps && json_object_array_length(comps) > 0) {
        for (size_t i = 0; i < json_object_array_length(comps); i++) {
            json_object *c = json_object_array_get_idx(comps, i);
            json_object *r = kube_json_get(c, "replicas");
            int64_t m =
                cpu_milli(kube_json_path(c, "replicaRequirements", "resourceRequest", NULL));
            sum += (r ? json_object_get_int64(r) : 0) * (m > 0 ? m : 0);
        }
        return sum;
    }
    json_object *r = kube_json_get(spec, "replicas");
    int64_t m = cpu_milli(kube_json_path(spec, "replicaRequirements", "resourceRequest", NULL));
    return (r ? json_object_get_int64(r) : 0) * (m > 0 ? m : 0);
}

/* A batch Job or Volcano Job whose every listed share is finished. */
static int rb_finished(json_object *rb)
{
    const char *kind = kube_json_str(kube_json_path(rb, "spec", "resource", NULL), "kind");
    if (!kind || strcmp(kind, "Job") != 0)
        return 0;
    json_object *cl = kube_json_path(rb, "spec", "clusters", NULL);
    json_object *agg = kube_json_path(rb, "status", "aggregatedStatus", NULL);
    if (!cl || !json_object_array_length(cl))
        return 0;
    for (size_t i = 0; i < json_object_array_length(cl); i++) {
        json_object *c = json_object_array_get_idx(cl, i);
        const char *name = kube_json_str(c, "name");
        json_object *rep = kube_json_get(c, "replicas");
        int done = 0;
        for (size_t j = 0; agg && j < json_object_array_length(agg); j++) {
            json_object *e = json_object_array_get_idx(agg, j);
            if (!name || !kube_json_str(e, "clusterName") ||
                strcmp(kube_json_str(e, "clusterName"), name))
                continue;
            json_object *st = kube_json_get(e, "status");
            const char *ph = kube_json_str(kube_json_get(st, "state"), "phase");
            if (ph && strcmp(ph, "Completed") == 0)
                done = 1;
            /* a batch Job: only its Complete condition says so (muster's own rule) */
            json_object *conds = kube_json_get(st, "conditions");
            for (size_t k = 0; conds && k < json_object_array_length(conds); k++) {
                json_object *cd = json_object_array_get_idx(conds, k);
                if (kube_json_str(cd, "type") && !strcmp(kube_json_str(cd, "type"), "Complete") &&
                    kube_json_str(cd, "status") && !strcmp(kube_json_str(cd, "status"), "True"))
                    done = 1;
            }
            (void)rep;
        }
        if (!done)
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *events = NULL, *hub = NULL, *api = NULL, *ns = NULL, *queue = NULL,
               *unfit = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--events"))
            events = argv[i + 1];
        else if (!strcmp(argv[i], "--hub"))
            hub = argv[i + 1];
        else if (!strcmp(argv[i], "--api"))
            api = argv[i + 1];
        else if (!strcmp(argv[i], "--namespace"))
            ns = argv[i + 1];
        else if (!strcmp(argv[i], "--queue"))
            queue = argv[i + 1];
        else if (!strcmp(argv[i], "--unfit"))
            unfit = argv[i + 1];
    }
    if (!events || !hub || !api || !ns || !queue) {
        fprintf(stderr, "usage: muster-dispatch-check --events FILE --hub URL --api URL "
                        "--namespace NS --queue Q [--unfit PREFIX]\n");
        return 2;
    }
    if (read_events(events, ns))
        return 2;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *h = curl_easy_init();
    char url[1024];
    long code;
    snprintf(url, sizeof url, "%s/apis/work.karmada.io/v1alpha2/namespaces/%s/resourcebindings",
             hub, ns);
    json_object *rblist = get_json(h, url, &code);
    snprintf(url, sizeof url,
             "%s/apis/work.karmada.io/v1alpha1/works?labelSelector=app.kubernetes.io%%2Fmanaged-by%%3Dmuster",
             hub);
    json_object *works = get_json(h, url, &code);
    snprintf(url, sizeof url,
             "%s/apis/policy.karmada.io/v1alpha1/overridepolicies?labelSelector=app.kubernetes.io%%2Fmanaged-by%%3Dmuster",
             hub);
    json_object *ops = get_json(h, url, &code);
    snprintf(url, sizeof url, "%s/api/v1/queues/%s", api, queue);
    json_object *q = get_json(h, url, &code);
    if (!rblist || !works || !ops || !q || !kube_json_get(rblist, "items")) {
        fprintf(stderr, "dispatch-check: could not read the hub or the API\n");
        return 2;
    }
    /* the live ledger rows, every page */
    json_object *live = json_object_new_array();
    char cont[256] = "";
    do {
        snprintf(url, sizeof url, "%s/api/v1/bindings?limit=1000%s%s", api,
                 cont[0] ? "&continue=" : "", cont);
        json_object *page = get_json(h, url, &code);
        json_object *items = kube_json_get(page, "items");
        if (!items) {
            fprintf(stderr, "dispatch-check: GET %s: %ld\n", url, code);
            return 2;
        }
        for (size_t i = 0; i < json_object_array_length(items); i++)
            json_object_array_add(live, json_object_get(json_object_array_get_idx(items, i)));
        const char *c = kube_json_str(kube_json_get(page, "metadata"), "continue");
        snprintf(cont, sizeof cont, "%s", c ? c : "");
        json_object_put(page);
    } while (cont[0]);

    /* 3 and 2: every RB of the namespace */
    json_object *items = kube_json_get(rblist, "items");
    size_t nrb = json_object_array_length(items), ndisp = 0, nheld = 0, nmulti = 0, nquota = 0,
           nzero = 0, nshrunk = 0, ngrown = 0;
    int64_t q_alloc = cpu_milli(kube_json_path(q, "status", "allocated", NULL));
    json_object *qspec = kube_json_get(q, "spec") ? kube_json_get(q, "spec") : q;
    int64_t q_cap = cpu_milli(kube_json_get(qspec, "capability"));
    int64_t hub_cpu = 0;
    for (size_t i = 0; i < nrb; i++) {
        json_object *rb = json_object_array_get_idx(items, i);
        const char *name = kube_json_str(kube_json_get(rb, "metadata"), "name");
        char key[512], pl[512];
        snprintf(key, sizeof key, "%s/%s", ns, name);
        json_object *susp = kube_json_path(rb, "spec", "suspension", NULL);
        json_object *sc = condition(rb, "Scheduled");
        placement(kube_json_path(rb, "spec", "clusters", NULL), pl, sizeof pl);
        int want_held = unfit && strncmp(name, unfit, strlen(unfit)) == 0;
        if (kube_json_bool(susp, "dispatching") == 1)
            fail("%s: the dispatching barrier is left on", key);
        if (pl[0] && kube_json_bool(susp, "scheduling") == 1)
            fail("%s: half done: spec.clusters [%s] with suspension.scheduling true", key, pl);
        if (want_held) {
            nheld++;
            if (pl[0] || kube_json_bool(susp, "scheduling") != 1)
                fail("%s: does not fit anywhere but is dispatched to [%s]", key, pl);
            /* NoClusterFit, or QuotaExceeded when its queue was full when it was last told */
            const char *why = sc && kube_json_str(sc, "reason") ? kube_json_str(sc, "reason") : "";
            if (!sc ||
                strcmp(kube_json_str(sc, "status") ? kube_json_str(sc, "status") : "", "False") ||
                (strcmp(why, "NoClusterFit") && strcmp(why, "QuotaExceeded")))
                fail("%s: held without Scheduled=False/NoClusterFit (%s/%s)", key,
                     sc ? kube_json_str(sc, "status") : "none",
                     sc ? kube_json_str(sc, "reason") : "none");
        } else {
            const char *why = sc && kube_json_str(sc, "reason") ? kube_json_str(sc, "reason") : "";
            int quota = !rb_dispatched(rb) && !pl[0] && kube_json_bool(susp, "scheduling") == 1 &&
                        strcmp(why, "QuotaExceeded") == 0 && q_cap >= 0 &&
                        (q_alloc > 0 ? q_alloc : 0) + rb_cpu(rb) > q_cap;
            json_object *reps = kube_json_path(rb, "spec", "replicas", NULL);
            int zero = !rb_dispatched(rb) && !pl[0] && kube_json_bool(susp, "scheduling") == 1 &&
                       kube_json_get(rb, "spec") && (!reps || json_object_get_int(reps) == 0) &&
                       !kube_json_get(kube_json_get(rb, "spec"), "components") &&
                       strcmp(why, "ScaledToZero") == 0;
            if (zero) {
                nzero++;
            } else if (quota) {
                nquota++;
            } else if (!rb_dispatched(rb)) {
                fail("%s: fits but is not dispatched (clusters [%s], scheduling %d, %s)", key, pl,
                     kube_json_bool(susp, "scheduling"), why[0] ? why : "no Scheduled reason");
            } else {
                ndisp++;
            }
            if (!quota && !zero &&
                (!sc || strcmp(kube_json_str(sc, "status") ? kube_json_str(sc, "status") : "", "True")))
                fail("%s: dispatched but Scheduled is not True", key);
        }
        if (rb_dispatched(rb) && !rb_finished(rb))
            hub_cpu += rb_cpu(rb);
        /* the ledger's history */
        snprintf(url, sizeof url, "%s/api/v1/bindings/%s/%s", api, ns, name);
        json_object *one = get_json(h, url, &code);
        json_object *hist = kube_json_get(one, "history");
        struct rb *r = rb_get(key, 0);
        int nd = r ? r->ndisp : 0;
        if (nd > 1)
            nmulti++;
        if (r && r->shrinks)
            nshrunk++;
        if (r && r->grows)
            ngrown++;
        if (pl[0] && (!r || nd == 0))
            fail("%s: dispatched on the hub but the event log saw no dispatch", key);
        if (nd > MAXD)
            fail("%s: %d dispatches", key, nd);
        if (nd && !hist) {
            fail("%s: dispatched %d time(s) but the ledger has no record (HTTP %ld)", key, nd,
                 code);
        } else if (nd) {
            int k = 0, nadm = 0;
            const char *newest = NULL;
            char hp[512], newest_pl[512] = "";
            for (size_t j = 0; j < json_object_array_length(hist); j++) {
                json_object *row = json_object_array_get_idx(hist, j);
                if (!kube_json_get(row, "admittedAtMs"))
                    continue;
                nadm++;
                json_object *loss = kube_json_get(row, "loss");
                placement(kube_json_get(row, "clusters"), hp, sizeof hp);
                if (loss && kube_json_str(loss, "decision") &&
                    strcmp(kube_json_str(loss, "decision"), "Replace") == 0) {
                    char from[512];
                    placement(kube_json_get(loss, "from"), from, sizeof from);
                    for (int o = 0; o < r->overlaps && o < MAXO; o++)
                        if (strcmp(r->ovl_from[o], from) == 0 && strcmp(r->ovl_to[o], hp) == 0)
                            r->ovl_ok[o] = 1;
                    if (k < nd && k < MAXD && strcmp(from, r->disp[k]) == 0)
                        k++;
                }
                newest = kube_json_str(row, "state");
                snprintf(newest_pl, sizeof newest_pl, "%s", hp);
                /* the row may already hold less than the hub shows: a shrink whose
                 * spec.clusters rewrite is still on its way (the "placed at" check below
                 * waits for it) */
                if (k < nd && k < MAXD &&
                    (strcmp(hp, r->disp[k]) == 0 || shrink_of(r->disp[k], hp) ||
                     shrink_of(hp, r->disp[k])))
                    k++;
            }
            if (k < nd)
                fail("%s: the hub saw %d dispatch(es) (first [%s], last [%s]) but only %d "
                     "match the ledger's %d admitted row(s) in order",
                     key, nd, r->disp[0], r->disp[nd <= MAXD ? nd - 1 : MAXD - 1], k, nadm);
            if (pl[0] && strcmp(pl, newest_pl) != 0)
                fail("%s: placed at [%s] but the newest admitted ledger row says [%s] (%s)",
                     key, pl, newest_pl, newest ? newest : "?");
        }
        json_object_put(one);
    }

    /* 1, what the ledger did not explain */
    for (int i = 0; i < 4096; i++)
        for (struct rb *r = rbs[i]; r; r = r->next)
            for (int o = 0; o < r->overlaps && o < MAXO; o++)
                if (!r->ovl_ok[o])
                    fail("%s: spec.clusters went from [%s] to [%s] with no empty placement "
                         "between, and no Replace in the ledger says so",
                         r->key, r->ovl_from[o], r->ovl_to[o]);

    /* 4: usage */
    int64_t ledger_cpu = 0;
    for (size_t i = 0; i < json_object_array_length(live); i++) {
        json_object *row = json_object_array_get_idx(live, i);
        const char *st = kube_json_str(row, "state"), *rns = kube_json_str(row, "namespace"),
                   *rname = kube_json_str(row, "name"), *ruid = kube_json_str(row, "uid");
        json_object *rb = find_item(rblist, rns ? rns : "", rname ? rname : "");
        if (!rb)
            fail("%s/%s: live ledger row (%s) for an RB that does not exist", rns, rname, st);
        else if (ruid && ruid[0] &&
                 strcmp(ruid, kube_json_str(kube_json_get(rb, "metadata"), "uid")
                                  ? kube_json_str(kube_json_get(rb, "metadata"), "uid")
                                  : ""))
            fail("%s/%s: live ledger row of another uid", rns, rname);
        if (st && strcmp(st, "pending") != 0 && kube_json_str(row, "queue") &&
            strcmp(kube_json_str(row, "queue"), queue) == 0) {
            int64_t m = cpu_milli(kube_json_get(row, "request"));
            ledger_cpu += m > 0 ? m : 0;
        }
    }
    int64_t alloc = cpu_milli(kube_json_path(q, "status", "allocated", NULL));
    if (alloc < 0)
        alloc = 0;
    if (alloc != ledger_cpu || alloc != hub_cpu)
        fail("queue %s: allocated cpu %lldm, live admitted ledger rows %lldm, dispatched "
             "unfinished RBs on the hub %lldm",
             queue, (long long)alloc, (long long)ledger_cpu, (long long)hub_cpu);

    /* 5: orphans */
    json_object *wi = kube_json_get(works, "items");
    size_t nworks = wi ? json_object_array_length(wi) : 0;
    for (size_t i = 0; i < nworks; i++) {
        json_object *w = json_object_array_get_idx(wi, i);
        json_object *md = kube_json_get(w, "metadata");
        const char *wns = kube_json_str(md, "namespace"),
                   *bkey = kube_json_str(kube_json_get(md, "annotations"),
                                         "scheduling.muster.io/binding");
        char bns[256] = "";
        const char *slash = bkey ? strchr(bkey, '/') : NULL;
        if (slash && (size_t)(slash - bkey) < sizeof bns)
            memcpy(bns, bkey, (size_t)(slash - bkey));
        json_object *rb = slash ? find_item(rblist, bns, slash + 1) : NULL;
        const char *cluster = wns && !strncmp(wns, "karmada-es-", 11) ? wns + 11 : "";
        if (!rb || !rb_dispatched(rb) || !rb_lists(rb, cluster))
            fail("orphan PodGroup Work %s/%s (binding %s %s)", wns, kube_json_str(md, "name"),
                 bkey ? bkey : "?",
                 rb ? "does not list that cluster or is not dispatched" : "does not exist");
        else if (kube_json_bool(kube_json_get(w, "spec"), "suspendDispatching") == 1)
            fail("PodGroup Work %s/%s of dispatched %s is left suspended", wns,
                 kube_json_str(md, "name"), bkey);
    }
    json_object *oi = kube_json_get(ops, "items");
    size_t nops = oi ? json_object_array_length(oi) : 0;
    for (size_t i = 0; i < nops; i++) {
        json_object *o = json_object_array_get_idx(oi, i);
        json_object *md = kube_json_get(o, "metadata");
        const char *bkey =
            kube_json_str(kube_json_get(md, "annotations"), "scheduling.muster.io/binding");
        char bns[256] = "";
        const char *slash = bkey ? strchr(bkey, '/') : NULL;
        if (slash && (size_t)(slash - bkey) < sizeof bns)
            memcpy(bns, bkey, (size_t)(slash - bkey));
        json_object *rb = slash ? find_item(rblist, bns, slash + 1) : NULL;
        const char *uid =
            kube_json_str(kube_json_get(md, "labels"), "scheduling.muster.io/binding-uid");
        const char *rbuid = rb ? kube_json_str(kube_json_get(rb, "metadata"), "uid") : NULL;
        if (!rb || (uid && rbuid && strcmp(uid, rbuid) != 0))
            fail("orphan OverridePolicy %s/%s (binding %s: %s)", kube_json_str(md, "namespace"),
                 kube_json_str(md, "name"), bkey ? bkey : "?", !rb ? "gone" : "another RB's");
    }
    printf("dispatch-check: %zu RBs (%zu dispatched, %zu held as unfit, %zu waiting for a full "
           "queue, %zu dispatched more than once, %zu shrunk, %zu grown, %zu scaled to 0), %zu "
           "live ledger rows, %zu PodGroup Works, %zu OverridePolicies, queue %s cpu %lldm: %s\n",
           nrb, ndisp, nheld, nquota, nmulti, nshrunk, ngrown, nzero,
           json_object_array_length(live), nworks, nops, queue, (long long)alloc,
           failures ? "FAILED" : "ok");
    json_object_put(rblist);
    json_object_put(works);
    json_object_put(ops);
    json_object_put(q);
    json_object_put(live);
    curl_easy_cleanup(h);
    curl_global_cleanup();
    for (unsigned i = 0; i < 4096; i++)
        for (struct rb *r = rbs[i], *nx; r; r = nx) {
            nx = r->next;
            free(r);
        }
    return failures ? 1 : 0;
}
