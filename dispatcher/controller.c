/* The dispatch loop against a hub (see controller.h and docs/dispatcher.md).
 *
 * A binding's life here:
 *   WAIT_TEMPLATE  the RB is known, its template not yet (the watches are not in step)
 *   PARKED         held and told why, but not queued: unreadable, refused, or its queue does
 *                  not exist (yet); re-read when queues or the RB change
 *   UNDO           its ledger row is pending but the hub may still carry an earlier dispatch
 *                  of it (a crash mid-rollback): the rollback steps run first
 *   BACKOFF        pending, rolled back before, not admitted before not_before
 *   PENDING        an engine entry waiting its turn
 *   ADMITTED       the decision is in the ledger; the commit protocol runs forward
 *   DISPATCHED     every share released; the gang timeout runs (not while the user keeps the
 *                  RB's dispatching suspended: it counts from when the user lifts it)
 *   RUNNING        every share reported running
 *   DONE           released (finished, or its RB went); nothing more to do
 * Every transition that is a decision is written to the ledger (one transaction per loop
 * iteration for everything decided in it) before any request for it is sent. */
#include "dispatcher/controller.h"

#include "cluster-adapters/kube/informer.h"

#include "dispatcher/crashpoint.h"
#include "dispatcher/events.h"
#include "dispatcher/gangobj.h"
#include "dispatcher/metrics.h"
#include "dispatcher/placement.h"
#include "dispatcher/rbpatch.h"
#include "dispatcher/resjson.h"
#include "dispatcher/webhook.h"
#include "dispatcher/workload.h"
#include "dispatcher/errors.h"
#include "queue/idmap.h"
#include "queue/mem.h"
#include "queue/quantity.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CTL_KEY_MAX (2 * 253 + 2)       /* namespace/name */
#define CTL_TKEY_MAX (64 + CTL_KEY_MAX) /* kind/namespace/name of a template */
#define CTL_CLUSTER_NAME_MAX 64
#define CTL_UID_MAX 64
#define CTL_TICK_MS 200
#define CTL_SWEEP_ORPHANS_MS 30000
#define CTL_RETRY_INITIAL_MS 500
#define CTL_RETRY_MAX_MS 30000
/* A cycle tries at most this many gangs that the queues allow but no cluster holds, so a
 * backlog of unplaceable gangs cannot make one cycle slow; the rest wait for the next. */
#define CTL_CYCLE_NOFIT_MAX 2000
/* A running share stops being reserved on top of its cluster's report once the cluster reports
 * again, or after this long (Karmada reports cluster status every 10 s): a quiet cluster must not
 * keep a running gang counted twice. */
#define CTL_CONFIRM_MAX_MS 15000
/* A waiting binding's condition is written once it has waited this long: most bindings that
 * wait at all (a node still reserved for a gang in flight) are admitted within it, and a
 * Scheduled=False written just before Scheduled=True is one request per binding for nothing. */
#define CTL_CONDITION_GRACE_MS 1000
/* A dispatch cycle over a backlog that no cluster can take yet (muster's own reservations fill
 * the fleet until the clusters report) walks up to CTL_CYCLE_NOFIT_MAX gangs, and every cluster
 * report asks for another. So after a cycle of T (from CTL_CYCLE_PACE_FROM_NS up), the next
 * waits until (CTL_CYCLE_DUTY - 1) x T has passed: cycles take at most 1/CTL_CYCLE_DUTY of the
 * loop, and the reports that came meanwhile are met by one cycle. A cheap cycle never waits. */
#define CTL_CYCLE_DUTY 5
#define CTL_CYCLE_PACE_FROM_NS 200000

enum bstate {
    B_WAIT_TEMPLATE,
    B_PARKED,
    B_UNDO,
    B_BACKOFF,
    B_PENDING,
    B_ADMITTED,
    B_DISPATCHED,
    B_RUNNING,
    B_DONE,
};

static const char *const bstate_names[] = {
    "waiting", "parked", "undoing", "backoff", "pending", "admitted", "dispatched", "running",
    "done"};

/* Steps of the protocol (docs/dispatcher.md); each may send several requests at once and
 * waits for all of them. */
enum step {
    S_NONE,
    /* forward, assign mode with gang objects */
    S_OBJECTS, /* create: the OverridePolicy and the PodGroup Works (not suspended) */
    S_APPLIED, /* wait: every PodGroup Work reports Applied (its watch event re-runs it) */
    S_ASSIGN,  /* patch: clusters, applied-placement, dispatching barrier */
    S_BARRIER, /* list: the rendered Works suspended, with the OverridePolicy in them */
    S_LIFT,    /* patch: scheduling false, dispatching restored */
    /* forward, assign mode without objects (Volcano Job): one patch does all */
    S_ASSIGN_LIFT,
    S_STATUS,      /* status patch: Scheduled=True, conditional on resourceVersion */
    S_STATUS_READ, /* get: the RB again after a 409, to rebuild the status patch */
    /* forward, resume mode */
    S_RESUME,
    /* rollback / undo */
    S_U_BARRIER, /* patch: dispatching true */
    S_U_CLEAR,   /* patch: clusters cleared, scheduling true, dispatching restored */
    S_U_DELETE,  /* delete: the PodGroup Works (Karmada deletes the member PodGroups) */
    /* release */
    S_R_WORKS, /* delete the PodGroup Works */
    /* hold */
    S_HOLD,
};

/* The barrier check lists the rendered Works again after this, doubling up to the max, while
 * Karmada renders (the gang timeout bounds the wait). */
#define CTL_BARRIER_RECHECK_MS 20
#define CTL_BARRIER_RECHECK_MAX_MS 1000

/* The crash point (crashpoint.h) passed when every request of a step is acknowledged, and the
 * one passed at each acknowledgement of a step that sends several while others are still out
 * (some PodGroup Works made, others not). The names are listed in docs/dispatcher.md. The
 * barrier check passes its point only when it lets the lift go (barrier_judged): a check that
 * lists the Works again is no boundary. */
static const char *const step_crashpoint[][2] = {
    [S_NONE] = {NULL, NULL},
    [S_OBJECTS] = {"dispatch.objects", "dispatch.objects.one"},
    [S_APPLIED] = {"dispatch.applied", NULL},
    [S_ASSIGN] = {"dispatch.assign", NULL},
    [S_BARRIER] = {NULL, NULL},
    [S_LIFT] = {"dispatch.lift", NULL},
    [S_ASSIGN_LIFT] = {"dispatch.assign-lift", NULL},
    [S_STATUS] = {"dispatch.status", NULL},
    [S_STATUS_READ] = {NULL, NULL},
    [S_RESUME] = {"dispatch.resume", NULL},
    [S_U_BARRIER] = {"rollback.barrier", NULL},
    [S_U_CLEAR] = {"rollback.clear", NULL},
    [S_U_DELETE] = {"rollback.objects", "rollback.objects.one"},
    [S_R_WORKS] = {"release.objects", NULL},
    [S_HOLD] = {"hold", NULL},
};

struct share {
    char cluster[CTL_CLUSTER_NAME_MAX];
    int32_t replicas;
    int running;
    uint64_t confirm_gen; /* the cluster's status generation when it was seen running */
    int64_t running_at;   /* when it was seen running */
};

struct comp {
    int32_t replicas;
    struct queue_resvec req; /* per replica */
};

struct binding {
    /* What the cycle reads of every gang the engine offers, first: one cache line per gang
     * when a backlog is skipped. */
    enum bstate st;
    int assign;
    int nofit; /* the last cycle found no cluster for it */
    /* That verdict holds while no cluster it may use grows (cluster.grew <= nofit_grow) and
     * the cluster set and its constraints stay (nofit_epoch): caps that only shrink cannot
     * make a gang fit, so it is not placed again until then. */
    int nofit_memo;
    uint64_t nofit_grow, nofit_epoch;
    uint64_t allow_epoch;
    struct binding *hnext; /* by key */
    struct binding *tnext; /* by template key */
    struct binding *prev, *next; /* in the waiting or the active list */
    int list;                    /* 0 none, 1 waiting, 2 active */
    struct binding *rnext;       /* retry list */
    int in_retry;
    /* The binding's strings are allocated by size: a million pending bindings each paid for
     * the longest name Kubernetes allows. key lives in the binding's own allocation. */
    char *key;
    char *tkey; /* never NULL: tkey_none until the RB names its template */
    char uid[CTL_UID_MAX];
    char pid[CTL_UID_MAX];
    json_object *rb;   /* the latest RB (a reference) */
    json_object *tmpl; /* the template when last read (a reference) */
    int64_t generation;
    enum disp_workload_kind kind;
    int spread, needs_objects;
    int32_t replicas, min_member, priority;
    char queue[QUEUE_NAME_MAX + 1];
    struct queue_resvec gang;
    uint32_t ncomp;
    struct comp *comp; /* ncomp entries */
    json_object *affinity, *affinities, *tolerations; /* into rb */

    int64_t ledger_id, created_at, attempt, not_before, dispatched_at, admitted_at;
    int barrier, user_dispatching;
    int resume; /* its admitted row was written by readmit: the hub says where to go on */
    enum step step;
    int inflight;
    int step_failed;
    int gone; /* the RB was deleted: free once nothing is in flight or unwritten */
    int lw_pending;
    int side_inflight; /* condition writes: not part of any step */
    int rb_missing;    /* a step's request found the RB gone: wait for its delete event */
    uint64_t retry_ms;
    int64_t retry_at;
    uint32_t recheck_ms; /* the barrier check's back-off */
    json_object *reply;  /* the body of the last step request that wanted one */
    json_object *fresh;  /* the RB as the hub last answered it (S_LIFT, S_STATUS_READ) */
    struct share *shares;
    uint32_t nshares;
    /* why it waits: condition reason and message; dirty until written to the RB */
    char reason[16];
    char *msg; /* NULL: none (binding_msg reads it as "") */
    int cond_dirty;
    int64_t waiting_since; /* when it last joined the waiting list */
    uint64_t aseq; /* its key in c->byseq while active: its shares are in the clusters' res */
    /* which clusters its placement constraints allow, by index into c->cl, computed once
     * per cluster-set epoch (allow_epoch) and RB version (affinity is evaluated on JSON:
     * costly per cycle) */
    uint8_t allow[256];
};

struct cluster {
    char name[CTL_CLUSTER_NAME_MAX];
    json_object *obj;
    int ready;
    /* status.apiEnablements lists no scheduling.volcano.sh/v1beta1 podgroups: the member
     * cannot take a PodGroup, so gangs that need one are not placed there */
    int no_podgroups;
    /* nor batch.volcano.sh/v1alpha1 jobs: a Volcano Job's Work would not apply there (the
     * member answers 404), so none is placed there */
    int no_vcjobs;
    uint64_t gen; /* bumped on every status change */
    uint64_t shape; /* hash of what placement constraints read: labels and spec */
    struct queue_resvec capacity, allocated, allocating, free;
    struct disp_grade *grades;
    uint32_t ngrades;
    /* the cycle's working copy */
    struct disp_cluster_cap cap;
    uint32_t cap_grades_alloc; /* cap.grades entries allocated (cap.ngrades may shrink) */
    struct queue_resvec reserved; /* muster's in-flight reservations, for the API */
    /* The shares reserved in cap, in the order they were reserved: cap is rebuilt from free
     * and these only when the cluster reports (stale), a share leaves, or a running share
     * stops counting (expire_at), not every cycle. */
    struct kres *res;
    uint32_t nres, capres;
    int stale;
    int reserved_dirty; /* reserved changed since the metrics last heard */
    int64_t expire_at;  /* after this a counted running share stops counting */
    uint64_t cap_ver;   /* bumped whenever cap changes */
    uint64_t grew;      /* c->grow_seq when cap last grew (or the cluster came or turned Ready) */
    /* the last disp_cluster_fits on cap, valid while cap_ver == fit_ver */
    struct queue_resvec fit_shape;
    uint64_t fit_val, fit_ver;
    /* The first resource problem of its last two updates ("" when none): one logged in the
     * previous update is not logged again. */
    char res_warned[192], res_prev[192];
};

/* A share reserved in a cluster's cap: the binding's aseq and the share's index. */
struct kres {
    uint64_t aseq;
    uint32_t share;
};

/* A ledger write waiting for the end of the loop iteration. */
struct lwrite {
    struct binding *b;
    struct store_ledger_row row;
    char clusters[1024];
    char reason[256];
    char *request; /* owned */
    int kind;      /* what to do after the commit */
};

enum lw_kind { LW_NEW, LW_ADMIT, LW_DISPATCHED, LW_RUNNING, LW_RELEASE, LW_ROLLBACK_OLD,
               LW_ROLLBACK_NEW, LW_REPLACE_OLD, LW_ADOPT, LW_ADOPT_ROW };

/* The crash point passed once a write of this kind is committed, before anything is sent for
 * it (docs/dispatcher.md). A rollback's two rows share one. */
static const char *const lw_crashpoint[] = {
    [LW_NEW] = "queue.ledger",
    [LW_ADMIT] = "dispatch.ledger",
    [LW_DISPATCHED] = "dispatch.dispatched",
    [LW_RUNNING] = "follow.running",
    [LW_RELEASE] = "release.ledger",
    [LW_ROLLBACK_OLD] = "rollback.ledger",
    [LW_ROLLBACK_NEW] = NULL,
    [LW_REPLACE_OLD] = "requeue.ledger",
    [LW_ADOPT] = "adopt.ledger",
    [LW_ADOPT_ROW] = "adopt.ledger",
};

struct request_ctx {
    struct ctl *c;
    struct binding *b;
    enum step step;
    int tolerate; /* MUSTER_* code that counts as success (ENOENT for deletes, EEXIST) */
    int side;     /* a condition write, outside the steps */
    enum kube_verb verb;
    int want_body; /* keep the answer in b->reply */
    /* A create answered 409 AlreadyExists is replaced: this body merge-patched onto this
     * object path (an earlier attempt's Work must carry this attempt's PodGroup). Owned. */
    char *again_path, *again_body;
};

/* What each informer's callbacks get: the controller and which watch it is. */
struct inf_tag {
    struct ctl *c;
    int kind; /* 0 rbs, 1 clusters, 2 works, 3 policies, 4 prios, 10+i templates */
    int synced;
};

struct qtimeout {
    char name[QUEUE_NAME_MAX + 1];
    int64_t ms;
};

struct ctl {
    uv_loop_t *loop;
    struct qtimeout *qt;
    size_t nqt, capqt;
    struct kube_client *kube;
    struct store *s;
    struct queue_tree *t;
    struct queue_resnames *names;
    struct ctl_options opt;
    char scheduler[DISP_WORKLOAD_NAME_MAX + 1];
    char pod_scheduler[DISP_WORKLOAD_NAME_MAX + 1];
    FILE *log;

    struct kube_informer rbs, clusters, works, policies, prios;
    struct kube_informer tmpl[4]; /* deployments, jobs, volcano jobs, pods */
    struct inf_tag tags[9];
    int informers_started, informers_open;
    int synced, reconciled, leading, stopping;
    int ninformers_synced;

    /* bindings by key and by template key: chained hash tables */
    struct binding **bykey, **bytkey;
    size_t nbuckets, nbindings;
    struct queue_idmap byid; /* ledger id -> binding, for live rows */
    struct queue_idmap byseq; /* aseq -> active binding */
    uint64_t aseq_next;
    uint64_t grow_seq;  /* bumped whenever some cluster's room grows */
    int snap_all_stale; /* every cluster's cap is rebuilt at the next cycle */
    int admitting;      /* the cycle reserved the binding entering the active set already */
    struct queue_resvec scratch;
    uint64_t cap_changes; /* bumped whenever any cluster's cap changes */
    /* The last NoClusterFit verdict of a one-component gang: a gang asking for the same from
     * the same clusters meets it too while no cap has changed (and gets the same sentence). */
    struct {
        int valid;
        uint64_t cap_changes, epoch;
        struct queue_resvec req;
        int32_t comp_replicas, replicas;
        int spread;
        int needs; /* place_needs: the members left out for lack of an API */
        uint32_t ncl;
        uint8_t allow[256];
        char reason[16];
        char msg[DISP_WORKLOAD_MSG_MAX];
    } nl;
    struct binding waiting, active; /* list heads */
    struct binding *retry;

    struct cluster *cl;
    uint32_t ncl, capcl;
    int clusters_dirty;
    uint64_t cl_epoch; /* bumped when a cluster comes, goes or changes labels or spec */

    struct lwrite *lw;
    size_t nlw, caplw;

    uv_timer_t tick;
    uv_idle_t kick; /* runs the cycle and the ledger flush once per loop iteration */
    int kick_active, cycle_wanted;
    uv_timer_t pace;         /* a paced cycle's wake-up (CTL_CYCLE_DUTY) */
    uv_timer_t soon;         /* retries due before the next tick (the barrier's re-checks) */
    int64_t soon_at;         /* when soon fires; 0 when it is not armed */
    /* Hub prerequisites (docs/operations.md): the PodGroup CRD on the karmada-apiserver
     * (-1 not known yet, 0 missing, 1 served), and what is missing, for /readyz and the log. */
    int hub_pg;
    int prereq_inflight;
    struct kube_call *prereq_call; /* the discovery request in flight, cancelled on stop */
    int64_t last_prereq;
    char missing[768];
    uint64_t cycle_next_ns;  /* uv_hrtime() before which no cycle starts */
    int pace_armed;
    /* A cycle can admit nothing new unless the engine changed (an entry came or went, a queue
     * or the fleet changed: cycle_forced), some cluster's room grew, the cluster set changed,
     * or the last cycle stopped before the engine had offered everything. A cluster report
     * that only takes room away wants a cycle (the snapshot follows it) but no engine pass. */
    int cycle_forced, last_cut;
    uint64_t last_grow, last_epoch;
    struct queue_resvec fleet;
    int64_t last_orphan_sweep;
    uint64_t condition_budget;
    int64_t budget_at;
    struct binding *sweep_cursor;

    struct disp_workload w; /* scratch for reads */
    /* scratch for cluster checks: only its placement pointers are set, borrowed from a
     * binding's RB; never read into or closed (a read would drop references it never took) */
    struct disp_workload aw;
    struct ctl_stats st;
    void (*stop_cb)(void *ud);
    void *stop_ud;
    int handles_open;
};

/* ---- small things ---- */

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_ms(const struct ctl *c)
{
    return c->opt.now_ms ? c->opt.now_ms() : wall_ms();
}

static void rfc3339(int64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

__attribute__((format(printf, 2, 3))) static void logf_(struct ctl *c, const char *fmt, ...)
{
    char ts[32];
    rfc3339(now_ms(c), ts, sizeof ts);
    fprintf(c->log, "%s musterd: ", ts);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->log, fmt, ap);
    va_end(ap);
    fputc('\n', c->log);
    fflush(c->log);
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static const char *jstr(json_object *o, const char *k)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static json_object *jobj(json_object *o, const char *k)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, k, &v))
        return NULL;
    return v;
}

static json_object *jpath(json_object *o, const char *a, const char *b)
{
    return jobj(jobj(o, a), b);
}

static void obj_key(json_object *obj, char *buf, size_t cap)
{
    json_object *md = jobj(obj, "metadata");
    const char *ns = jstr(md, "namespace"), *name = jstr(md, "name");
    snprintf(buf, cap, "%s/%s", ns ? ns : "", name ? name : "");
}

static int bool_at(json_object *o, const char *k)
{
    json_object *v = jobj(o, k);
    if (!v || !json_object_is_type(v, json_type_boolean))
        return -1;
    return json_object_get_boolean(v);
}

static void kick(struct ctl *c);
static void missing_refresh(struct ctl *c);
static void shares_track(struct ctl *c, struct binding *b);
static void shares_untrack(struct ctl *c, struct binding *b);

/* ---- binding tables ---- */

static int tables_grow(struct ctl *c)
{
    size_t n = c->nbuckets ? c->nbuckets * 2 : 1024;
    struct binding **k = muster_calloc(n, sizeof(*k)), **t = muster_calloc(n, sizeof(*t));
    if (!k || !t) {
        muster_free(k);
        muster_free(t);
        return MUSTER_ENOMEM;
    }
    for (size_t i = 0; i < c->nbuckets; i++) {
        for (struct binding *b = c->bykey[i], *nx; b; b = nx) {
            nx = b->hnext;
            size_t h = hash_str(b->key) & (n - 1);
            b->hnext = k[h];
            k[h] = b;
        }
        for (struct binding *b = c->bytkey[i], *nx; b; b = nx) {
            nx = b->tnext;
            size_t h = hash_str(b->tkey) & (n - 1);
            b->tnext = t[h];
            t[h] = b;
        }
    }
    muster_free(c->bykey);
    muster_free(c->bytkey);
    c->bykey = k;
    c->bytkey = t;
    c->nbuckets = n;
    return 0;
}

static struct binding *find_key(const struct ctl *c, const char *key)
{
    if (!c->nbuckets)
        return NULL;
    for (struct binding *b = c->bykey[hash_str(key) & (c->nbuckets - 1)]; b; b = b->hnext)
        if (strcmp(b->key, key) == 0)
            return b;
    return NULL;
}

static struct binding *find_tkey(const struct ctl *c, const char *tkey)
{
    if (!c->nbuckets || !tkey[0])
        return NULL;
    for (struct binding *b = c->bytkey[hash_str(tkey) & (c->nbuckets - 1)]; b; b = b->tnext)
        if (strcmp(b->tkey, tkey) == 0)
            return b;
    return NULL;
}

static void tkey_unlink(struct ctl *c, struct binding *b)
{
    if (!b->tkey[0])
        return;
    struct binding **p = &c->bytkey[hash_str(b->tkey) & (c->nbuckets - 1)];
    while (*p && *p != b)
        p = &(*p)->tnext;
    if (*p)
        *p = b->tnext;
    b->tnext = NULL;
}

static char tkey_none[1];

static void tkey_set(struct ctl *c, struct binding *b, const char *tkey)
{
    if (strcmp(b->tkey, tkey) == 0)
        return;
    tkey_unlink(c, b);
    size_t n = strlen(tkey);
    char *k = n ? muster_malloc(n + 1) : tkey_none;
    if (b->tkey != tkey_none)
        muster_free(b->tkey);
    b->tkey = k ? k : tkey_none; /* out of memory: found by no template, as before it had one */
    if (b->tkey == tkey_none)
        return;
    memcpy(b->tkey, tkey, n + 1);
    size_t h = hash_str(b->tkey) & (c->nbuckets - 1);
    b->tnext = c->bytkey[h];
    c->bytkey[h] = b;
}

static void list_unlink(struct binding *b)
{
    if (!b->list)
        return;
    b->prev->next = b->next;
    b->next->prev = b->prev;
    b->prev = b->next = NULL;
    b->list = 0;
}

static void list_push(struct binding *head, struct binding *b, int which)
{
    list_unlink(b);
    b->prev = head->prev;
    b->next = head;
    head->prev->next = b;
    head->prev = b;
    b->list = which;
}

static struct binding *binding_new(struct ctl *c, const char *key)
{
    if ((c->nbindings + 1) * 2 > c->nbuckets * 3 && tables_grow(c))
        return NULL;
    size_t kl = strnlen(key, CTL_KEY_MAX - 1);
    struct binding *b = muster_calloc(1, sizeof(*b) + kl + 1);
    if (!b)
        return NULL;
    b->key = (char *)(b + 1);
    memcpy(b->key, key, kl);
    b->tkey = tkey_none;
    size_t h = hash_str(key) & (c->nbuckets - 1);
    b->hnext = c->bykey[h];
    c->bykey[h] = b;
    c->nbindings++;
    return b;
}

static void binding_clear_read(struct binding *b)
{
    for (uint32_t i = 0; i < b->ncomp; i++)
        queue_resvec_close(&b->comp[i].req);
    muster_free(b->comp);
    b->comp = NULL;
    queue_resvec_close(&b->gang);
    b->ncomp = 0;
}

static const char *binding_msg(const struct binding *b)
{
    return b->msg ? b->msg : "";
}

static void binding_free(struct ctl *c, struct binding *b)
{
    struct binding **p = &c->bykey[hash_str(b->key) & (c->nbuckets - 1)];
    while (*p && *p != b)
        p = &(*p)->hnext;
    if (*p)
        *p = b->hnext;
    tkey_unlink(c, b);
    if (b->list == 2)
        shares_untrack(c, b);
    list_unlink(b);
    if (b->in_retry) {
        struct binding **r = &c->retry;
        while (*r && *r != b)
            r = &(*r)->rnext;
        if (*r)
            *r = b->rnext;
    }
    if (b->ledger_id)
        queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    if (c->sweep_cursor == b)
        c->sweep_cursor = NULL;
    json_object_put(b->rb);
    json_object_put(b->tmpl);
    json_object_put(b->reply);
    json_object_put(b->fresh);
    binding_clear_read(b);
    muster_free(b->shares);
    if (b->tkey != tkey_none)
        muster_free(b->tkey);
    muster_free(b->msg);
    muster_free(b);
    c->nbindings--;
}

/* A binding whose RB went is freed once no request and no ledger write refers to it. */
static void maybe_free(struct ctl *c, struct binding *b)
{
    if (b->gone && b->inflight == 0 && b->lw_pending == 0 && b->side_inflight == 0)
        binding_free(c, b);
}

static void set_state(struct ctl *c, struct binding *b, enum bstate st)
{
    int was_active = b->list == 2;
    b->st = st;
    if (st >= B_ADMITTED && st <= B_RUNNING) {
        list_push(&c->active, b, 2);
        if (!was_active)
            shares_track(c, b);
        return;
    }
    if (was_active)
        shares_untrack(c, b);
    if (st == B_DONE) {
        list_unlink(b);
        return;
    }
    if (b->list != 1)
        b->waiting_since = now_ms(c);
    list_push(&c->waiting, b, 1);
}

static void set_reason(struct binding *b, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_reason(struct binding *b, const char *reason, const char *fmt, ...)
{
    char msg[DISP_WORKLOAD_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (strcmp(b->reason, reason) != 0 || strcmp(binding_msg(b), msg) != 0) {
        snprintf(b->reason, sizeof b->reason, "%s", reason);
        size_t n = strlen(msg);
        char *m = n ? muster_malloc(n + 1) : NULL;
        if (m)
            memcpy(m, msg, n + 1);
        muster_free(b->msg);
        b->msg = m; /* out of memory: the reason without its sentence */
        b->cond_dirty = 1;
    }
}

/* ---- events ---- */

static json_object *shares_json(const struct binding *b)
{
    json_object *a = json_object_new_array();
    for (uint32_t i = 0; a && i < b->nshares; i++) {
        json_object *o = json_object_new_object();
        if (!o)
            break;
        json_object_object_add(o, "name", json_object_new_string(b->shares[i].cluster));
        json_object_object_add(o, "replicas", json_object_new_int(b->shares[i].replicas));
        json_object_array_add(a, o);
    }
    return a;
}

static void publish_binding(struct ctl *c, const struct binding *b, const char *state,
                            const char *reason)
{
    if (!c->opt.events)
        return;
    json_object *o = json_object_new_object();
    if (!o)
        return;
    const char *slash = strchr(b->key, '/');
    json_object_object_add(o, "namespace",
                           json_object_new_string_len(b->key, (int)(slash - b->key)));
    json_object_object_add(o, "name", json_object_new_string(slash + 1));
    json_object_object_add(o, "queue", json_object_new_string(b->queue));
    json_object_object_add(o, "state", json_object_new_string(state));
    json_object_object_add(o, "reason", json_object_new_string(reason ? reason : ""));
    json_object_object_add(o, "clusters", shares_json(b));
    json_object_object_add(o, "request", disp_resvec_json(c->names, &b->gang));
    disp_events_publish(c->opt.events, "binding", o);
    json_object *q = json_object_new_object();
    if (q) {
        json_object_object_add(q, "name", json_object_new_string(b->queue));
        disp_events_publish(c->opt.events, "queue", q);
    }
}

static void notice(struct ctl *c, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void notice(struct ctl *c, const char *level, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    logf_(c, "%s", msg);
    if (!c->opt.events)
        return;
    json_object *o = json_object_new_object();
    if (!o)
        return;
    json_object_object_add(o, "level", json_object_new_string(level));
    json_object_object_add(o, "message", json_object_new_string(msg));
    disp_events_publish(c->opt.events, "notice", o);
}

/* ---- clusters ---- */

static struct cluster *cluster_find(struct ctl *c, const char *name)
{
    for (uint32_t i = 0; i < c->ncl; i++)
        if (strcmp(c->cl[i].name, name) == 0)
            return &c->cl[i];
    return NULL;
}

static void cluster_close(struct cluster *k)
{
    json_object_put(k->obj);
    queue_resvec_close(&k->capacity);
    queue_resvec_close(&k->allocated);
    queue_resvec_close(&k->allocating);
    queue_resvec_close(&k->free);
    queue_resvec_close(&k->reserved);
    queue_resvec_close(&k->cap.free);
    disp_cluster_cap_close_parts(&k->cap);
    for (uint32_t g = 0; g < k->ngrades; g++)
        queue_resvec_close(&k->grades[g].min);
    muster_free(k->grades);
    for (uint32_t g = 0; g < k->cap_grades_alloc; g++)
        queue_resvec_close(&k->cap.grades[g].min);
    muster_free(k->cap.grades);
    muster_free(k->res);
    queue_resvec_close(&k->fit_shape);
    memset(k, 0, sizeof(*k));
}

/* A resource of a cluster muster cannot read is never skipped silently: logged (once while it
 * stays the same problem), and a full name table also shows in the metrics and /readyz. */
static void cluster_res_warn(struct ctl *c, struct cluster *k, const char *where, const char *why)
{
    char msg[sizeof k->res_warned];
    snprintf(msg, sizeof msg, "%s: %s", where, why);
    if (!k->res_warned[0])
        snprintf(k->res_warned, sizeof k->res_warned, "%s", msg);
    if (strcmp(msg, k->res_prev) == 0)
        return;
    logf_(c, "cluster %s: %s%s", k->name, msg,
          queue_resnames_count(c->names) >= QUEUE_RESNAMES_MAX
              ? " (the resource name table is full: see muster_resource_names_refused_total)"
              : "");
}

static int resmap(struct ctl *c, struct cluster *k, const char *what, json_object *o,
                  struct queue_resvec *out)
{
    char err[128];
    queue_resvec_clear(out);
    if (!o)
        return 0;
    int rc = disp_resvec_parse(c->names, o, "", out, err, sizeof err);
    if (rc) {
        char where[64];
        snprintf(where, sizeof where, "status.resourceSummary.%s", what);
        cluster_res_warn(c, k, where, err);
    }
    return rc;
}

/* Nodes per grade from spec.resourceModels and status.resourceSummary.allocatableModelings:
 * a grade's nodes each have at least its ranges' minimums free. */
static int cluster_grades(struct ctl *c, struct cluster *k, json_object *obj)
{
    json_object *models = jpath(obj, "spec", "resourceModels");
    json_object *counts = jobj(jpath(obj, "status", "resourceSummary"), "allocatableModelings");
    for (uint32_t g = 0; g < k->ngrades; g++)
        queue_resvec_close(&k->grades[g].min);
    muster_free(k->grades);
    k->grades = NULL;
    k->ngrades = 0;
    if (!models || !json_object_is_type(models, json_type_array) || !counts ||
        !json_object_is_type(counts, json_type_array))
        return 0;
    size_t n = json_object_array_length(models);
    if (n == 0 || n > 64)
        return 0;
    k->grades = muster_calloc(n, sizeof(*k->grades));
    if (!k->grades)
        return MUSTER_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_object *m = json_object_array_get_idx(models, i);
        json_object *ranges = jobj(m, "ranges");
        json_object *gv = jobj(m, "grade");
        int64_t grade = gv ? json_object_get_int64(gv) : (int64_t)i;
        struct disp_grade *gr = &k->grades[k->ngrades];
        for (size_t r = 0; ranges && r < json_object_array_length(ranges); r++) {
            json_object *rg = json_object_array_get_idx(ranges, r);
            const char *name = jstr(rg, "name"), *min = jstr(rg, "min");
            struct queue_qty q;
            uint32_t id;
            int irc = !name || !min ? MUSTER_EINVAL : queue_qty_parse(min, strlen(min), &q);
            if (!irc)
                irc = queue_resnames_intern(c->names, name, strlen(name), &id);
            if (irc) {
                char why[160];
                snprintf(why, sizeof why, "%.64s: %s; the grade is read without it",
                         name ? name : "(no name)",
                         irc == MUSTER_ELIMIT ? "too many distinct resource names"
                                              : "not a resource name and quantity");
                cluster_res_warn(c, k, "spec.resourceModels", why);
                continue;
            }
            /* A minimum of 0 still describes the resource (placement.h): kept as -1. */
            (void)queue_resvec_set(&gr->min, id, q.milli > 0 ? q.milli : -1);
        }
        for (size_t j = 0; j < json_object_array_length(counts); j++) {
            json_object *e = json_object_array_get_idx(counts, j);
            json_object *ge = jobj(e, "grade"), *ce = jobj(e, "count");
            if (ge && ce && json_object_get_int64(ge) == grade) {
                int64_t cnt = json_object_get_int64(ce);
                gr->nodes = cnt > 0 ? (uint64_t)cnt : 0;
            }
        }
        k->ngrades++;
    }
    return 0;
}

static void cluster_publish(struct ctl *c, const struct cluster *k)
{
    if (!c->opt.events)
        return;
    json_object *o = json_object_new_object();
    if (o) {
        json_object_object_add(o, "name", json_object_new_string(k->name));
        disp_events_publish(c->opt.events, "cluster", o);
    }
}

static int kres_add(struct cluster *k, uint64_t aseq, uint32_t share);
static void fatal(struct ctl *c, const char *what);

/* A cluster that (re)appears while gangs hold shares in it by name (it was deleted and created
 * again): those shares are reserved in it again, as a fresh snapshot would. Rare: walks the
 * active set. */
static void cluster_track_shares(struct ctl *c, struct cluster *k)
{
    for (struct binding *b = c->active.next; b != &c->active; b = b->next)
        for (uint32_t i = 0; b->aseq && b->assign && i < b->nshares; i++)
            if (strcmp(b->shares[i].cluster, k->name) == 0 && kres_add(k, b->aseq, i)) {
                fatal(c, "out of memory");
                return;
            }
}

static void cluster_set(struct ctl *c, json_object *obj)
{
    const char *name = jstr(jobj(obj, "metadata"), "name");
    if (!name || strlen(name) >= CTL_CLUSTER_NAME_MAX)
        return;
    struct cluster *k = cluster_find(c, name);
    if (!k) {
        if (c->ncl == c->capcl) {
            uint32_t cap = c->capcl ? c->capcl * 2 : 16;
            struct cluster *n = muster_realloc(c->cl, cap * sizeof(*n));
            if (!n)
                return;
            c->cl = n;
            c->capcl = cap;
        }
        k = &c->cl[c->ncl++];
        memset(k, 0, sizeof(*k));
        snprintf(k->name, sizeof k->name, "%s", name);
        k->expire_at = INT64_MAX;
    }
    int was_ready = k->ready;
    json_object *keep = json_object_get(obj);
    json_object_put(k->obj);
    k->obj = keep;
    k->gen++;
    uint64_t shape = hash_str(json_object_to_json_string_ext(jpath(obj, "metadata", "labels"),
                                                              JSON_C_TO_STRING_PLAIN)) ^
                     (hash_str(json_object_to_json_string_ext(jobj(obj, "spec"),
                                                              JSON_C_TO_STRING_PLAIN)) *
                      31);
    if (shape != k->shape || k->gen == 1) {
        k->shape = shape;
        c->cl_epoch++;
    }
    int no_pg = disp_workload_cluster_serves_podgroups(obj) == 0;
    if (no_pg != k->no_podgroups) {
        k->no_podgroups = no_pg;
        c->cl_epoch++; /* where a gang that needs a PodGroup may go changed */
        logf_(c, "cluster %s: %s", k->name,
              no_pg ? "status.apiEnablements lists no scheduling.volcano.sh/v1beta1 podgroups: "
                      "gangs that need a PodGroup are not placed there until it does"
                    : "serves PodGroups again");
        missing_refresh(c);
    }
    int no_vc = disp_workload_cluster_serves(obj, "batch.volcano.sh/v1alpha1", "jobs") == 0;
    if (no_vc != k->no_vcjobs) {
        k->no_vcjobs = no_vc;
        c->cl_epoch++;
        logf_(c, "cluster %s: %s", k->name,
              no_vc ? "status.apiEnablements lists no batch.volcano.sh/v1alpha1 jobs: Volcano "
                      "Jobs are not placed there until it does"
                    : "serves Volcano Jobs again");
        missing_refresh(c);
    }
    k->ready = 0;
    json_object *conds = jpath(obj, "status", "conditions");
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
        json_object *cd = json_object_array_get_idx(conds, i);
        const char *type = jstr(cd, "type"), *status = jstr(cd, "status");
        if (type && status && strcmp(type, "Ready") == 0)
            k->ready = strcmp(status, "True") == 0;
    }
    json_object *sum = jpath(obj, "status", "resourceSummary");
    memcpy(k->res_prev, k->res_warned, sizeof k->res_prev);
    k->res_warned[0] = '\0';
    if (resmap(c, k, "allocatable", jobj(sum, "allocatable"), &k->capacity) ||
        resmap(c, k, "allocated", jobj(sum, "allocated"), &k->allocated) ||
        resmap(c, k, "allocating", jobj(sum, "allocating"), &k->allocating) ||
        cluster_grades(c, k, obj)) {
        k->ready = 0; /* a summary muster cannot read takes no work (cluster_res_warn said why) */
    }
    queue_resvec_copy(&k->free, &k->capacity);
    for (uint32_t i = 0; i < k->free.len; i++) {
        uint32_t id = k->free.items[i].id;
        int64_t v = k->free.items[i].milli - queue_resvec_get(&k->allocated, id) -
                    queue_resvec_get(&k->allocating, id);
        k->free.items[i].milli = v > 0 ? v : 0;
    }
    k->stale = 1;
    if (k->ready != was_ready || k->gen == 1)
        k->grew = ++c->grow_seq; /* a cluster placement may now use, or must now name */
    if (k->gen == 1)
        cluster_track_shares(c, k);
    c->clusters_dirty = 1;
    c->cycle_wanted = 1;
    cluster_publish(c, k);
    if (c->opt.metrics) {
        for (uint32_t i = 0; i < k->capacity.len; i++)
            disp_metrics_cluster_capacity(c->opt.metrics, k->name,
                                          queue_resnames_name(c->names, k->capacity.items[i].id),
                                          k->capacity.items[i].milli);
    }
    kick(c);
}

static void cluster_remove(struct ctl *c, json_object *obj)
{
    const char *name = jstr(jobj(obj, "metadata"), "name");
    struct cluster *k = name ? cluster_find(c, name) : NULL;
    if (!k)
        return;
    if (c->opt.metrics)
        disp_metrics_cluster_forget(c->opt.metrics, k->name);
    cluster_close(k);
    c->cl_epoch++; /* indexes move */
    *k = c->cl[--c->ncl];
    memset(&c->cl[c->ncl], 0, sizeof(c->cl[c->ncl]));
}

/* Reserves n replicas of each component of b's share sh in k's cap, and counts them in
 * k->reserved (for the API). The cluster reporting less room than muster has promised loses
 * all of it, so nothing more goes there until its report catches up. */
static void cap_take(struct ctl *c, struct cluster *k, const struct binding *b,
                     const struct share *sh)
{
    for (uint32_t j = 0; j < b->ncomp; j++) {
        int64_t n = b->ncomp == 1 ? sh->replicas : b->comp[j].replicas;
        if (disp_cluster_reserve(&k->cap, &b->comp[j].req, (uint64_t)n)) {
            queue_resvec_clear(&k->cap.free);
            k->cap.ngrades = 0;
            disp_cluster_cap_close_parts(&k->cap);
        }
        queue_resvec_clear(&c->scratch);
        for (uint32_t r = 0; r < b->comp[j].req.len; r++) {
            int64_t v;
            if (!queue_milli_mul(b->comp[j].req.items[r].milli, n, &v))
                queue_resvec_set(&c->scratch, b->comp[j].req.items[r].id, v);
        }
        queue_resvec_add(&k->reserved, &c->scratch);
    }
    k->cap_ver++;
    c->cap_changes++;
    k->reserved_dirty = 1;
}

/* k's room rebuilt from what it reports free, less the shares still reserved in it, in the
 * order they were reserved: what a fresh snapshot would hold. Shares that left, and running
 * ones the cluster's own report counts now, are dropped for good. */
static int cap_rebuild(struct ctl *c, struct cluster *k, int64_t now)
{
    /* what it held, to tell whether it grew */
    uint64_t old_nodes[64];
    uint32_t old_ngrades = k->cap.ngrades;
    if (queue_resvec_copy(&c->scratch, &k->cap.free))
        return MUSTER_ENOMEM;
    for (uint32_t j = 0; j < old_ngrades && j < 64; j++)
        old_nodes[j] = k->cap.grades[j].nodes;
    int grew = old_ngrades != k->ngrades || old_ngrades > 64;
    for (uint32_t i = 0; !grew && i < k->free.len; i++)
        grew = k->free.items[i].milli > queue_resvec_get(&c->scratch, k->free.items[i].id);
    for (uint32_t j = 0; !grew && j < k->ngrades; j++)
        grew = k->grades[j].nodes > old_nodes[j];

    if (queue_resvec_copy(&k->cap.free, &k->free))
        return MUSTER_ENOMEM;
    if (k->cap_grades_alloc < k->ngrades) {
        struct disp_grade *g = muster_realloc(k->cap.grades, k->ngrades * sizeof(*g));
        if (!g)
            return MUSTER_ENOMEM;
        for (uint32_t j = k->cap_grades_alloc; j < k->ngrades; j++)
            memset(&g[j], 0, sizeof(g[j]));
        k->cap.grades = g;
        k->cap_grades_alloc = k->ngrades;
    }
    for (uint32_t j = 0; j < k->ngrades; j++) {
        if (queue_resvec_copy(&k->cap.grades[j].min, &k->grades[j].min))
            return MUSTER_ENOMEM;
        k->cap.grades[j].nodes = k->grades[j].nodes;
    }
    k->cap.ngrades = k->ngrades;
    k->cap.name = k->name;
    disp_cluster_cap_close_parts(&k->cap);
    queue_resvec_clear(&k->reserved);
    k->expire_at = INT64_MAX;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < k->nres; i++) {
        struct kres r = k->res[i];
        const struct binding *b = queue_idmap_get(&c->byseq, r.aseq);
        if (!b || !b->assign || r.share >= b->nshares ||
            strcmp(b->shares[r.share].cluster, k->name) != 0)
            continue;
        const struct share *sh = &b->shares[r.share];
        if (sh->running && (k->gen > sh->confirm_gen || now - sh->running_at > CTL_CONFIRM_MAX_MS))
            continue; /* the cluster's own report counts it now */
        if (sh->running && sh->running_at + CTL_CONFIRM_MAX_MS < k->expire_at)
            k->expire_at = sh->running_at + CTL_CONFIRM_MAX_MS;
        cap_take(c, k, b, sh);
        k->res[kept++] = r;
    }
    k->nres = kept;
    k->stale = 0;
    k->cap_ver++;
    c->cap_changes++;
    k->reserved_dirty = 1;
    if (grew)
        k->grew = ++c->grow_seq;
    return 0;
}

/* Every cluster's room for this cycle: what it reports free, less muster's reservations still
 * in flight (admitted gangs, and running ones until the cluster's report has caught up with
 * them). Only clusters whose room changed other than by this loop's own admissions are
 * rebuilt; the others carry on from the last cycle, admissions already taken out. */
static int cycle_snapshot(struct ctl *c)
{
    if (c->clusters_dirty) {
        /* The engine's root is bounded by the Ready fleet, so shares are computed against
         * what exists; placement still decides node by node. */
        struct queue_resvec fleet = {0};
        for (uint32_t i = 0; i < c->ncl; i++)
            if (c->cl[i].ready)
                queue_resvec_add(&fleet, &c->cl[i].capacity);
        if (fleet.len && queue_resvec_cmp(&fleet, &c->fleet) != 0) {
            queue_tree_set_fleet(c->t, &fleet);
            queue_resvec_copy(&c->fleet, &fleet);
            c->cycle_forced = 1;
        }
        queue_resvec_close(&fleet);
        c->clusters_dirty = 0;
    }
    int64_t now = now_ms(c);
    for (uint32_t i = 0; i < c->ncl; i++) {
        struct cluster *k = &c->cl[i];
        if ((c->snap_all_stale || k->stale || now > k->expire_at) && cap_rebuild(c, k, now))
            return MUSTER_ENOMEM;
    }
    c->snap_all_stale = 0;
    for (uint32_t i = 0; c->opt.metrics && i < c->ncl; i++) {
        if (!c->cl[i].reserved_dirty)
            continue;
        c->cl[i].reserved_dirty = 0;
        for (uint32_t r = 0; r < c->cl[i].capacity.len; r++) {
            uint32_t id = c->cl[i].capacity.items[r].id;
            disp_metrics_cluster_reserved(c->opt.metrics, c->cl[i].name,
                                          queue_resnames_name(c->names, id),
                                          queue_resvec_get(&c->cl[i].reserved, id));
        }
    }
    return 0;
}

static int kres_add(struct cluster *k, uint64_t aseq, uint32_t share)
{
    if (k->nres == k->capres) {
        uint32_t cap = k->capres ? k->capres * 2 : 64;
        struct kres *n = muster_realloc(k->res, cap * sizeof(*n));
        if (!n)
            return MUSTER_ENOMEM;
        k->res = n;
        k->capres = cap;
    }
    k->res[k->nres++] = (struct kres){aseq, share};
    return 0;
}

/* b entered the active set: its shares join their clusters' reservations, in this order. When
 * the cycle admitted it, they are in cap already (reserve_shares); otherwise (start-up,
 * adoption) the clusters are rebuilt at the next cycle. */
static void shares_track(struct ctl *c, struct binding *b)
{
    b->aseq = ++c->aseq_next;
    if (queue_idmap_put(&c->byseq, b->aseq, b)) {
        b->aseq = 0;
        fatal(c, "out of memory");
        return;
    }
    for (uint32_t i = 0; b->assign && i < b->nshares; i++) {
        struct cluster *k = cluster_find(c, b->shares[i].cluster);
        if (!k)
            continue;
        if (kres_add(k, b->aseq, i)) {
            fatal(c, "out of memory");
            return;
        }
        if (!c->admitting)
            k->stale = 1;
    }
}

/* b left the active set: its reservations go, so its clusters are rebuilt at the next cycle. */
static void shares_untrack(struct ctl *c, struct binding *b)
{
    if (!b->aseq)
        return;
    queue_idmap_del(&c->byseq, b->aseq);
    b->aseq = 0;
    for (uint32_t i = 0; i < b->nshares; i++) {
        struct cluster *k = cluster_find(c, b->shares[i].cluster);
        if (k)
            k->stale = 1;
    }
}

/* ---- the ledger: everything decided in one loop iteration, in one transaction ---- */

static struct lwrite *lw_add(struct ctl *c, struct binding *b, int kind, const char *state)
{
    if (c->nlw == c->caplw) {
        size_t cap = c->caplw ? c->caplw * 2 : 256;
        struct lwrite *n = muster_realloc(c->lw, cap * sizeof(*n));
        if (!n)
            return NULL;
        c->lw = n;
        c->caplw = cap;
    }
    struct lwrite *w = &c->lw[c->nlw++];
    memset(w, 0, sizeof(*w));
    w->b = b;
    b->lw_pending++;
    w->kind = kind;
    w->row.state = state;
    w->row.updated_at = now_ms(c);
    w->row.mode = b->assign ? "assign" : "resume";
    w->row.barrier = b->barrier;
    w->row.user_dispatching = b->user_dispatching;
    kick(c);
    return w;
}

static void clusters_text(const struct binding *b, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (uint32_t i = 0; i < b->nshares && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s{\"name\":\"%s\",\"replicas\":%" PRId32 "}",
                              i ? "," : "", b->shares[i].cluster, b->shares[i].replicas);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* A full row for an insert: the binding's identity and request. */
static int lw_fill_new(struct ctl *c, struct lwrite *w, struct binding *b)
{
    json_object *req = disp_resvec_json(c->names, &b->gang);
    const char *txt = req ? json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN) : NULL;
    w->request = txt ? muster_strdup(txt) : NULL;
    json_object_put(req);
    if (!w->request)
        return MUSTER_ENOMEM;
    w->row.id = 0;
    w->row.binding = b->key;
    w->row.uid = b->uid;
    w->row.queue = b->queue;
    w->row.request = w->request;
    w->row.priority = b->priority;
    w->row.created_at = b->created_at;
    w->row.attempt = b->attempt;
    w->row.not_before = b->not_before;
    clusters_text(b, w->clusters, sizeof w->clusters);
    w->row.clusters = w->clusters;
    return 0;
}

static void forward_resume(struct ctl *c, struct binding *b);
static void forward_from(struct ctl *c, struct binding *b, enum step st);
static enum step forward_first(const struct binding *b);
static void undo_start(struct ctl *c, struct binding *b);
static void release(struct ctl *c, struct binding *b, const char *why);
static void step_run(struct ctl *c, struct binding *b);
static int engine_add(struct ctl *c, struct binding *b);

/* Leading, as far as the clock says too (ctl_options.fence). */
static int leads(const struct ctl *c)
{
    return c->leading && (!c->opt.fence || c->opt.fence(c->opt.fence_ud));
}

static void fatal(struct ctl *c, const char *what)
{
    notice(c, "error",
           "the ledger could not be written (%s: %s); muster stops dispatching rather than act "
           "on a decision it could not record",
           what, store_errmsg(c->s));
    c->leading = 0;
    c->stopping = 1;
    uv_stop(c->loop);
}

static void ledger_flush(struct ctl *c)
{
    if (!c->nlw)
        return;
    size_t n = c->nlw;
    struct store_ledger_row *rows = muster_malloc(n * sizeof(*rows));
    if (!rows) {
        fatal(c, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        rows[i] = c->lw[i].row;
        /* The text buffers live in the entries, which moved if the array grew since each row
         * was filled in: point at them where they are now. */
        if (rows[i].reason)
            rows[i].reason = c->lw[i].reason;
        if (rows[i].clusters)
            rows[i].clusters = c->lw[i].clusters;
    }
    int rc = store_ledger_write_batch(c->s, rows, n);
    c->st.ledger_batches++;
    if (rc) {
        muster_free(rows);
        for (size_t i = 0; i < n; i++)
            muster_free(c->lw[i].request);
        c->nlw = 0;
        fatal(c, "batch");
        return;
    }
    /* The actions: only now may the hub hear of these decisions. They may decide more (a
     * rollback's new row): that goes into a fresh batch for the next flush. */
    struct lwrite *batch = c->lw;
    c->lw = NULL;
    c->nlw = c->caplw = 0;
    for (size_t i = 0; i < n; i++) {
        struct lwrite *w = &batch[i];
        struct binding *b = w->b;
        disp_crashpoint(lw_crashpoint[w->kind]);
        muster_free(w->request);
        w->request = NULL;
        b->lw_pending--;
        switch (w->kind) {
        case LW_NEW:
        case LW_ROLLBACK_NEW:
            b->ledger_id = rows[i].id;
            queue_idmap_put(&c->byid, (uint64_t)b->ledger_id, b);
            if (b->gone) {
                /* its RB went while the row was being written */
                b->st = B_PENDING;
                release(c, b, "deleted");
            } else if (w->kind == LW_ROLLBACK_NEW) {
                undo_start(c, b);
            } else if (b->st == B_UNDO) {
                undo_start(c, b);
            } else {
                engine_add(c, b);
                if (bool_at(jpath(b->rb, "spec", "suspension"), "scheduling") != 1) {
                    b->step = S_HOLD;
                    step_run(c, b);
                }
            }
            break;
        case LW_ADOPT:
        case LW_ADOPT_ROW: {
            b->ledger_id = rows[i].id;
            queue_idmap_put(&c->byid, (uint64_t)b->ledger_id, b);
            struct queue_entry_spec es = {.id = (uint64_t)b->ledger_id,
                                          .queue = b->queue,
                                          .priority = b->priority,
                                          .created_at = b->created_at,
                                          .request = &b->gang};
            struct queue_entry *e;
            struct queue_error qe;
            if (queue_entry_add_admitted(c->t, &es, &e, &qe))
                notice(c, "warning", "%s: adopted, but queue %s cannot count it: %s", b->key,
                       b->queue, qe.msg);
            break;
        }
        case LW_ADMIT:
            /* A fresh admission starts at step 2: nothing of this attempt is on the hub, and
             * an earlier attempt's Works may still look done in the cache while their delete
             * is on its way. A row taken back to admitted at start-up (readmit) goes on from
             * what the hub shows. */
            if (b->resume) {
                b->resume = 0;
                forward_resume(c, b);
            } else {
                forward_from(c, b, forward_first(b));
            }
            break;
        case LW_RELEASE:
            /* The PodGroup Works go at once (the OverridePolicy stays: docs/gangobj.md). A
             * request still in flight finishes first; its step_done sees the binding DONE and
             * turns to the delete. A step only waiting (Applied, the barrier, a retry) stops. */
            if (b->inflight == 0) {
                if (b->step != S_STATUS && b->step != S_STATUS_READ)
                    b->step = b->needs_objects && b->assign ? S_R_WORKS : S_NONE;
                step_run(c, b); /* a Scheduled=True still to write goes first (step_done) */
            }
            break;
        default:
            break;
        }
        maybe_free(c, b);
    }
    muster_free(rows);
    muster_free(batch);
}

/* ---- reading a binding ---- */

static int tmpl_index(enum disp_workload_kind k)
{
    switch (k) {
    case DISP_WORKLOAD_KIND_DEPLOYMENT:
        return 0;
    case DISP_WORKLOAD_KIND_JOB:
        return 1;
    case DISP_WORKLOAD_KIND_VCJOB:
        return 2;
    case DISP_WORKLOAD_KIND_POD:
        return 3;
    default:
        return -1;
    }
}

/* The template key of an RB: "<informer>/<namespace>/<name>" of spec.resource. */
static void rb_tkey(json_object *rb, enum disp_workload_kind kind, char *buf, size_t cap)
{
    json_object *res = jpath(rb, "spec", "resource");
    const char *ns = jstr(res, "namespace"), *name = jstr(res, "name");
    int ti = tmpl_index(kind);
    if (ti < 0 || !name) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, cap, "%d/%s/%s", ti, ns ? ns : "", name);
}

static int64_t rb_generation(json_object *rb)
{
    json_object *g = jpath(rb, "metadata", "generation");
    return g ? json_object_get_int64(g) : 0;
}

static int64_t rb_created_ms(json_object *rb)
{
    const char *ts = jstr(jobj(rb, "metadata"), "creationTimestamp");
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!ts || !strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm))
        return 0;
    return (int64_t)timegm(&tm) * 1000;
}

/* Reads the RB and its template into b. 0 when it can be queued; otherwise b is left with the
 * reason it cannot (WAIT_TEMPLATE, or a condition reason and message) and a MUSTER_* code. */
static int binding_read(struct ctl *c, struct binding *b)
{
    enum disp_workload_kind kind = disp_workload_kind_of(b->rb);
    int ti = tmpl_index(kind);
    char tkey[CTL_TKEY_MAX];
    rb_tkey(b->rb, kind, tkey, sizeof tkey);
    tkey_set(c, b, tkey);
    json_object *res = jpath(b->rb, "spec", "resource");
    json_object *tmpl = ti >= 0 ? kube_informer_get(&c->tmpl[ti], jstr(res, "namespace"),
                                                    jstr(res, "name"))
                                : NULL;
    if (!tmpl)
        return MUSTER_ENOENT;
    int rc = disp_workload_read(&c->w, c->names, b->rb, tmpl);
    b->kind = c->w.kind;
    b->nofit_memo = 0; /* what it asks for may have changed */
    if (rc) {
        const char *why = disp_workload_condition_reason(c->w.reason);
        set_reason(b, why ? why : "Unschedulable", "%s", c->w.message);
        return rc;
    }
    json_object *keep = json_object_get(tmpl); /* before the put: it may be the same object */
    json_object_put(b->tmpl);
    b->tmpl = keep;
    const struct disp_workload *w = &c->w;
    if (gang_needs_objects(w) && !w->permanent_id[0]) {
        set_reason(b, "Unschedulable", "waiting for Karmada to label it with %s",
                   DISP_WORKLOAD_PERMANENT_ID_LABEL);
        return MUSTER_EINVAL;
    }
    b->generation = rb_generation(b->rb);
    b->assign = disp_workload_assigns(w, c->scheduler);
    b->spread = w->placement == DISP_WORKLOAD_SPREAD;
    b->needs_objects = gang_needs_objects(w);
    b->replicas = w->replicas;
    b->min_member = w->min_member;
    b->priority = w->priority;
    if (w->priority_from == DISP_WORKLOAD_PRIORITY_CLASS) {
        json_object *pc = kube_informer_get(&c->prios, NULL, w->priority_class);
        json_object *v = jobj(pc, "value");
        b->priority = v ? json_object_get_int(v) : 0;
    }
    snprintf(b->queue, sizeof b->queue, "%s", w->queue);
    binding_clear_read(b);
    if (queue_resvec_copy(&b->gang, &w->gang))
        return MUSTER_ENOMEM;
    b->comp = muster_calloc(w->ncomponents ? w->ncomponents : 1, sizeof(*b->comp));
    if (!b->comp)
        return MUSTER_ENOMEM;
    b->ncomp = w->ncomponents;
    uint32_t pods;
    if (queue_resnames_intern(c->names, "pods", 4, &pods))
        return MUSTER_ENOMEM;
    for (uint32_t i = 0; i < w->ncomponents; i++) {
        b->comp[i].replicas = w->components[i].replicas;
        if (queue_resvec_copy(&b->comp[i].req, &w->components[i].request))
            return MUSTER_ENOMEM;
        /* Each replica is one pod: a node's pod limit bounds placement as Karmada's estimator
         * has it (the queues do not count pods). */
        if (!queue_resvec_get(&b->comp[i].req, pods) && queue_resvec_set(&b->comp[i].req, pods, 1000))
            return MUSTER_ENOMEM;
    }
    b->affinity = w->affinity;
    b->affinities = w->affinities;
    b->tolerations = w->tolerations;
    const char *uid = jstr(jobj(b->rb, "metadata"), "uid");
    snprintf(b->uid, sizeof b->uid, "%s", uid ? uid : "");
    snprintf(b->pid, sizeof b->pid, "%s", w->permanent_id);
    if (!b->created_at)
        b->created_at = rb_created_ms(b->rb);
    if (!b->created_at)
        b->created_at = now_ms(c);
    return 0;
}

/* Puts a pending binding into the engine (it is eligible: held, nothing of an earlier
 * dispatch left on the hub, back-off over). */
static int engine_add(struct ctl *c, struct binding *b)
{
    if (b->not_before > now_ms(c)) {
        set_state(c, b, B_BACKOFF);
        return 0;
    }
    struct queue_entry_spec es = {.id = (uint64_t)b->ledger_id,
                                  .queue = b->queue,
                                  .priority = b->priority,
                                  .created_at = b->created_at,
                                  .request = &b->gang};
    struct queue_error qe;
    struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    int rc = e ? 0 : queue_entry_add(c->t, &es, &e, &qe);
    if (rc == MUSTER_ENOENT) {
        set_reason(b, "Unschedulable", "queue %s does not exist; the binding waits until it is "
                                       "created",
                   b->queue);
        set_state(c, b, B_PARKED);
        return rc;
    }
    if (rc) {
        set_reason(b, "Unschedulable", "queue %s cannot take it: %s", b->queue, qe.msg);
        set_state(c, b, B_PARKED);
        return rc;
    }
    set_state(c, b, B_PENDING);
    c->cycle_wanted = 1;
    c->cycle_forced = 1;
    kick(c);
    return 0;
}

/* A binding whose RB was read: a new ledger row (pending), unless its queue does not exist, in
 * which case it is parked (held, told why, no row: the hub remembers it for us). */
static void binding_enqueue(struct ctl *c, struct binding *b)
{
    /* A queue that does not exist yet still gets the row: the binding is then listed by the
     * admin API with its reason, and keeps its place in line for when the queue comes;
     * engine_add parks it once the row is written. */
    struct lwrite *w = lw_add(c, b, LW_NEW, "pending");
    if (!w || lw_fill_new(c, w, b)) {
        fatal(c, "out of memory");
        return;
    }
    b->st = B_PENDING; /* until the row is written; engine_add decides */
    c->st.held++;
}

/* ---- the cycle ---- */

static int cluster_allows(struct ctl *c, const struct binding *b, const struct cluster *k)
{
    c->aw.affinity = b->affinity;
    c->aw.affinities = b->affinities;
    c->aw.tolerations = b->tolerations;
    return disp_workload_allows_cluster(&c->aw, k->obj);
}

static int shares_reserve(struct binding *b, uint32_t n)
{
    if (n > b->nshares || !b->shares) {
        struct share *s = muster_realloc(b->shares, (n ? n : 1) * sizeof(*s));
        if (!s)
            return MUSTER_ENOMEM;
        b->shares = s;
    }
    memset(b->shares, 0, (n ? n : 1) * sizeof(*b->shares));
    b->nshares = n;
    return 0;
}

/* The replicas of every component fit in k together (a Volcano Job goes whole to one
 * cluster). Works on a deep copy, so k is unchanged. Returns the room left for the first
 * component's shape afterwards (the best fit is the least), or -1 when it does not fit. */
static int64_t fits_all_components(const struct binding *b, const struct disp_cluster_cap *k)
{
    struct disp_cluster_cap t = {.name = k->name, .ngrades = k->ngrades};
    struct disp_grade g[64];
    int64_t left = -1;
    int ok = k->ngrades <= 64 && !queue_resvec_copy(&t.free, &k->free);
    memset(g, 0, sizeof g);
    for (uint32_t i = 0; ok && i < k->ngrades; i++) {
        g[i].nodes = k->grades[i].nodes;
        ok = !queue_resvec_copy(&g[i].min, &k->grades[i].min);
    }
    t.grades = g;
    ok = ok && !disp_cluster_cap_copy_parts(&t, k);
    for (uint32_t j = 0; ok && j < b->ncomp; j++)
        ok = !disp_cluster_reserve(&t, &b->comp[j].req, (uint64_t)b->comp[j].replicas);
    if (ok) {
        uint64_t f = b->ncomp ? disp_cluster_fits(&t, &b->comp[0].req) : 0;
        left = f > INT64_MAX ? INT64_MAX : (int64_t)f;
    }
    queue_resvec_close(&t.free);
    disp_cluster_cap_close_parts(&t);
    for (uint32_t i = 0; i < k->ngrades && i < 64; i++)
        queue_resvec_close(&g[i].min);
    return left;
}

/* disp_cluster_fits on k's cap, remembered for the last replica shape asked until cap
 * changes: gangs of one shape are placed many times between two changes of a cluster. */
static uint64_t cluster_fits(struct cluster *k, const struct queue_resvec *replica)
{
    if (k->fit_ver == k->cap_ver && k->fit_ver && queue_resvec_cmp(&k->fit_shape, replica) == 0)
        return k->fit_val;
    uint64_t f = disp_cluster_fits(&k->cap, replica);
    if (!queue_resvec_copy(&k->fit_shape, replica)) {
        k->fit_val = f;
        k->fit_ver = k->cap_ver;
    } else {
        k->fit_ver = 0;
    }
    return f;
}

/* The member APIs b's placement asks for, in assign mode (Karmada's scheduler, which checks
 * the template's own kind with its APIEnablement plugin, is bypassed there): 1 PodGroups
 * (its PodGroup Works), 2 Volcano Jobs (its Work is the Job). */
static int place_needs(const struct binding *b)
{
    return !b->assign ? 0
                      : (b->needs_objects ? 1 : 0) | (b->kind == DISP_WORKLOAD_KIND_VCJOB ? 2 : 0);
}

/* b is a one-component gang that asks what the last NoClusterFit verdict's gang asked, of
 * the same clusters, and no cap has changed since: it does not fit either. */
static int nofit_same(const struct ctl *c, const struct binding *b, uint32_t nallow)
{
    return c->nl.valid && c->nl.cap_changes == c->cap_changes && c->nl.epoch == c->cl_epoch &&
           c->nl.spread == b->spread && c->nl.needs == place_needs(b) &&
           c->nl.comp_replicas == b->comp[0].replicas && c->nl.replicas == b->replicas &&
           c->nl.ncl == nallow && memcmp(c->nl.allow, b->allow, nallow) == 0 &&
           queue_resvec_cmp(&c->nl.req, &b->comp[0].req) == 0;
}

/* Finds where b's whole gang goes in this cycle's snapshot and fills b->shares; 0 when it
 * fits, MUSTER_ENOSPC with the NoClusterFit sentence set when it does not. */
static int place(struct ctl *c, struct binding *b)
{
    struct disp_cluster_cap caps[256];
    uint32_t idx[256], n = 0, notready = 0;
    char nr[128] = "";
    if (b->allow_epoch != c->cl_epoch) {
        for (uint32_t i = 0; i < c->ncl && i < 256; i++)
            b->allow[i] = (uint8_t)(cluster_allows(c, b, &c->cl[i]) != 0);
        b->allow_epoch = c->cl_epoch;
    }
    uint32_t nallow = c->ncl < 256 ? c->ncl : 256;
    int needs_pg = b->needs_objects && b->assign;
    if (needs_pg && c->hub_pg == 0) {
        /* Karmada's execution controller cannot map a PodGroup manifest: its Works would
         * never apply. Not guessed around: the gang waits, and says why. */
        set_reason(b, "Unschedulable",
                   "the karmada-apiserver does not serve scheduling.volcano.sh/v1beta1 "
                   "podgroups: install Volcano's PodGroup CRD on the hub (docs/operations.md)");
        return MUSTER_ENOSPC;
    }
    if (b->ncomp == 1 && nofit_same(c, b, nallow)) {
        set_reason(b, c->nl.reason, "%s", c->nl.msg);
        return MUSTER_ENOSPC;
    }
    uint32_t nopg = 0;
    char np[128] = "";
    int needs = place_needs(b);
    for (uint32_t i = 0; i < c->ncl && n < 256; i++) {
        struct cluster *k = &c->cl[i];
        if (!b->allow[i])
            continue;
        if (((needs & 1) && k->no_podgroups) || ((needs & 2) && k->no_vcjobs)) {
            if (nopg++ < 3)
                snprintf(np + strlen(np), sizeof np - strlen(np), "%s%s", nopg > 1 ? ", " : "",
                         k->name);
            continue;
        }
        if (!k->ready) {
            if (notready++ < 3)
                snprintf(nr + strlen(nr), sizeof nr - strlen(nr), "%s%s", notready > 1 ? ", " : "",
                         k->name);
            continue;
        }
        caps[n] = k->cap;
        idx[n++] = i;
    }
    if (b->ncomp == 0) {
        set_reason(b, "Unschedulable", "the workload has no replicas to place");
        return MUSTER_ENOSPC;
    }
    if (b->ncomp == 1) {
        struct disp_share out[256];
        uint64_t fits[256];
        for (uint32_t i = 0; i < n; i++)
            fits[i] = cluster_fits(&c->cl[idx[i]], &b->comp[0].req);
        uint32_t got = n ? disp_place_fits(caps, fits, n, (uint64_t)b->comp[0].replicas,
                                           b->spread ? DISP_SPREAD : DISP_SINGLE_CLUSTER, out)
                         : 0;
        if (got) {
            if (shares_reserve(b, got))
                return MUSTER_ENOMEM;
            for (uint32_t i = 0; i < got; i++) {
                snprintf(b->shares[i].cluster, sizeof b->shares[i].cluster, "%s",
                         c->cl[idx[out[i].cluster]].name);
                b->shares[i].replicas = (int32_t)out[i].replicas;
            }
            return 0;
        }
    } else {
        int64_t best = -1;
        uint32_t at = 0;
        for (uint32_t i = 0; i < n; i++) {
            int64_t left = fits_all_components(b, &caps[i]);
            if (left >= 0 && (best < 0 || left < best)) {
                best = left;
                at = i;
            }
        }
        if (best >= 0) {
            if (shares_reserve(b, 1))
                return MUSTER_ENOMEM;
            snprintf(b->shares[0].cluster, sizeof b->shares[0].cluster, "%s",
                     c->cl[idx[at]].name);
            b->shares[0].replicas = b->replicas;
            return 0;
        }
    }
    /* Why not: what each allowed Ready cluster holds of the (first) replica shape. */
    char req[160] = "", holds[200] = "";
    json_object *rj = disp_resvec_json(c->names, &b->comp[0].req);
    if (rj)
        json_object_object_del(rj, "pods"); /* implied: one per replica */
    snprintf(req, sizeof req, "%s",
             rj ? json_object_to_json_string_ext(rj, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE)
                : "?");
    json_object_put(rj);
    for (uint32_t i = 0; i < n && i < 4; i++) {
        uint64_t f = cluster_fits(&c->cl[idx[i]], &b->comp[0].req);
        size_t l = strlen(holds);
        snprintf(holds + l, sizeof holds - l, "%s%s holds %" PRIu64, i ? ", " : "", caps[i].name,
                 f);
    }
    /* The members left out for lack of the API, named in every verdict: the gang may fit
     * only there (docs/operations.md, "Hub prerequisites"). */
    const char *api = (needs & 2) ? "Volcano Jobs (no batch.volcano.sh/v1alpha1 jobs"
                                  : "PodGroups (no scheduling.volcano.sh/v1beta1 podgroups";
    char lack[256] = "";
    if (nopg)
        snprintf(lack, sizeof lack, "; not serving %s in status.apiEnablements): %s", api, np);
    if (n == 0 && nopg)
        set_reason(b, "NoClusterFit",
                   "no allowed Ready cluster serves %s in status.apiEnablements: %s)%s%s%s", api,
                   np, notready ? "; not Ready: " : "", nr, "");
    else if (n == 0)
        set_reason(b, "NoClusterFit",
                   "no Ready cluster is allowed by its placement%s%s%s", notready ? " (not Ready: "
                                                                                  : "",
                   nr, notready ? ")" : "");
    else
        set_reason(b, "NoClusterFit",
                   "%s: no %s holds %" PRId32 " replicas of %s node by node "
                   "(%s%s%s%s)",
                   b->ncomp > 1 ? "Volcano Job" : "gang",
                   b->spread ? "set of allowed Ready clusters" : "single allowed Ready cluster",
                   b->replicas, req, holds, notready ? "; not Ready: " : "", nr, lack);
    if (b->ncomp == 1 && !queue_resvec_copy(&c->nl.req, &b->comp[0].req)) {
        c->nl.valid = 1;
        c->nl.cap_changes = c->cap_changes;
        c->nl.epoch = c->cl_epoch;
        c->nl.comp_replicas = b->comp[0].replicas;
        c->nl.replicas = b->replicas;
        c->nl.spread = b->spread;
        c->nl.needs = needs;
        c->nl.ncl = nallow;
        memcpy(c->nl.allow, b->allow, nallow);
        memcpy(c->nl.reason, b->reason, sizeof c->nl.reason);
        snprintf(c->nl.msg, sizeof c->nl.msg, "%s", binding_msg(b)); /* b->msg is sized to fit */
    }
    return MUSTER_ENOSPC;
}

static void reserve_shares(struct ctl *c, const struct binding *b)
{
    for (uint32_t i = 0; i < b->nshares; i++) {
        struct cluster *k = cluster_find(c, b->shares[i].cluster);
        if (k)
            cap_take(c, k, b, &b->shares[i]);
    }
}

/* The clusters the hub lists in the RB's spec.clusters, beside muster's shares: an undo
 * deletes Works in both. */
static int rb_lists_cluster(json_object *rb, const char *cluster)
{
    json_object *cl = jpath(rb, "spec", "clusters");
    for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
        const char *n = jstr(json_object_array_get_idx(cl, i), "name");
        if (n && strcmp(n, cluster) == 0)
            return 1;
    }
    return 0;
}

static size_t rb_nclusters(json_object *rb)
{
    json_object *cl = jpath(rb, "spec", "clusters");
    return cl && json_object_is_type(cl, json_type_array) ? json_object_array_length(cl) : 0;
}

static int rb_dispatching(json_object *rb)
{
    return bool_at(jpath(rb, "spec", "suspension"), "dispatching");
}

/* The user keeps the dispatching of a dispatched gang suspended (muster's own barrier is lifted
 * by then): spec.suspension.dispatching, or dispatchingOnClusters naming one of its clusters.
 * Its shares cannot start, and that is no failure: the gang timeout waits. */
static int user_holds_dispatching(const struct binding *b)
{
    json_object *susp = jpath(b->rb, "spec", "suspension");
    if (!susp)
        return 0;
    if (bool_at(susp, "dispatching") == 1)
        return 1;
    json_object *names = jobj(jobj(susp, "dispatchingOnClusters"), "clusterNames");
    for (size_t i = 0; names && i < json_object_array_length(names); i++) {
        const char *n = json_object_get_string(json_object_array_get_idx(names, i));
        for (uint32_t j = 0; n && j < b->nshares; j++)
            if (strcmp(n, b->shares[j].cluster) == 0)
                return 1;
    }
    return 0;
}

static void admit(struct ctl *c, struct binding *b)
{
    int64_t now = now_ms(c);
    b->admitted_at = now;
    b->nofit = 0;
    b->nofit_memo = 0;
    if (b->assign && b->needs_objects) {
        b->barrier = 1;
        b->user_dispatching = rb_dispatching(b->rb);
    } else {
        b->barrier = 0;
    }
    c->admitting = 1; /* reserve_shares took its shares out of the snapshot already */
    set_state(c, b, B_ADMITTED);
    c->admitting = 0;
    struct lwrite *w = lw_add(c, b, LW_ADMIT, "admitted");
    if (!w) {
        fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    clusters_text(b, w->clusters, sizeof w->clusters);
    w->row.clusters = w->clusters;
    w->row.admitted_at = now;
    snprintf(w->reason, sizeof w->reason, "admitted");
    w->row.reason = w->reason;
    c->st.admitted++;
    if (c->opt.metrics) {
        disp_metrics_admission(c->opt.metrics, b->queue);
        disp_metrics_admission_wait(c->opt.metrics, (double)(now - b->created_at) / 1000.0);
    }
    if (c->opt.events)
        disp_events_record_admission(c->opt.events, now, (double)(now - b->created_at));
    publish_binding(c, b, "admitted", "");
}

/* b's last NoClusterFit verdict still holds: no cluster it may use has grown since, and the
 * cluster set and b's constraints are those it was made against. */
static int nofit_holds(const struct ctl *c, struct binding *b)
{
    if (!b->nofit_memo || b->nofit_epoch != c->cl_epoch || b->allow_epoch != c->cl_epoch) {
        b->nofit_memo = 0;
        return 0;
    }
    if (b->nofit_grow == c->grow_seq)
        return 1;
    for (uint32_t i = 0; i < c->ncl && i < 256; i++) {
        if (b->allow[i] && c->cl[i].grew > b->nofit_grow) {
            b->nofit_memo = 0;
            return 0;
        }
    }
    b->nofit_grow = c->grow_seq; /* what grew is no use to it */
    return 1;
}

static void cycle(struct ctl *c)
{
    c->cycle_wanted = 0;
    if (!leads(c) || !c->reconciled || c->stopping)
        return;
    uint64_t t0 = uv_hrtime();
    if (cycle_snapshot(c)) {
        fatal(c, "out of memory");
        return;
    }
    if (!c->cycle_forced && !c->last_cut && c->last_grow == c->grow_seq &&
        c->last_epoch == c->cl_epoch)
        return; /* every gang the engine offers would meet the verdict it met last time */
    c->cycle_forced = 0;
    c->last_grow = c->grow_seq;
    c->last_epoch = c->cl_epoch;
    c->last_cut = 1; /* until the engine has nothing more to offer */
    queue_cycle_begin(c->t);
    unsigned nofit = 0;
    struct queue_entry *e;
    while ((e = queue_cycle_next(c->t))) {
        struct binding *b = queue_idmap_get(&c->byid, queue_entry_id(e));
        if (!b || b->st != B_PENDING) {
            if (queue_cycle_skip(c->t, e))
                goto cut;
            continue;
        }
        if (b->assign) {
            int rc = nofit_holds(c, b) ? MUSTER_ENOSPC : place(c, b);
            if (rc) {
                if (rc == MUSTER_ENOSPC && !b->nofit_memo) {
                    b->nofit_memo = 1;
                    b->nofit_grow = c->grow_seq;
                    b->nofit_epoch = c->cl_epoch;
                }
                b->nofit = 1;
                if (queue_cycle_skip(c->t, e) || ++nofit >= CTL_CYCLE_NOFIT_MAX)
                    goto cut;
                continue;
            }
        }
        struct queue_limit why;
        if (queue_entry_admit(c->t, e, &why)) {
            if (queue_cycle_skip(c->t, e))
                goto cut;
            continue;
        }
        if (b->assign)
            reserve_shares(c, b);
        else
            b->nshares = 0;
        admit(c, b);
    }
    c->last_cut = 0;
cut:;
    uint64_t t1 = uv_hrtime();
    c->cycle_next_ns =
        t1 - t0 >= CTL_CYCLE_PACE_FROM_NS ? t1 + (CTL_CYCLE_DUTY - 1) * (t1 - t0) : 0;
    double ms = (double)(t1 - t0) / 1e6;
    c->st.cycles++;
    c->st.last_cycle_ms = ms;
    if (ms > c->st.max_cycle_ms)
        c->st.max_cycle_ms = ms;
    if (c->opt.metrics)
        disp_metrics_cycle(c->opt.metrics, ms / 1000.0);
}

/* ---- requests of the protocol ---- */

static void split_key(const char *key, char *ns, size_t nscap, const char **name)
{
    const char *slash = strchr(key, '/');
    size_t l = slash ? (size_t)(slash - key) : 0;
    if (l >= nscap)
        l = nscap - 1;
    memcpy(ns, key, l);
    ns[l] = '\0';
    *name = slash ? slash + 1 : key;
}

static int rb_path(const struct binding *b, char *buf, size_t cap)
{
    char ns[256];
    const char *name;
    split_key(b->key, ns, sizeof ns, &name);
    return kube_path(buf, cap, "work.karmada.io", "v1alpha2", ns, "resourcebindings", name);
}

static void step_done(struct ctl *c, struct binding *b);
static void release(struct ctl *c, struct binding *b, const char *why);

static void retry_later(struct ctl *c, struct binding *b)
{
    b->retry_ms = b->retry_ms ? b->retry_ms * 2 : CTL_RETRY_INITIAL_MS;
    if (b->retry_ms > CTL_RETRY_MAX_MS)
        b->retry_ms = CTL_RETRY_MAX_MS;
    b->retry_at = now_ms(c) + (int64_t)b->retry_ms;
    if (!b->in_retry) {
        b->rnext = c->retry;
        c->retry = b;
        b->in_retry = 1;
    }
}

static int send_again(struct ctl *c, struct binding *b, struct request_ctx *rq);

static void on_response(int err, const struct kube_response *resp, void *ud)
{
    struct request_ctx *rq = ud;
    struct ctl *c = rq->c;
    struct binding *b = rq->b;
    enum step step = rq->step;
    int tolerate = rq->tolerate, side = rq->side;
    if (b && err == MUSTER_EEXIST && rq->again_body && !b->gone && send_again(c, b, rq) == 0)
        return; /* the replacing patch is in flight in its place */
    muster_free(rq->again_path);
    muster_free(rq->again_body);
    int want_body = rq->want_body;
    muster_free(rq);
    if (!b)
        return; /* an orphan's delete: the next sweep sees whether it went */
    if (side) {
        b->side_inflight--;
        /* 409: the RB changed since it was read; the next sweep writes from the newer read */
        if (err && err != MUSTER_ENOENT && err != MUSTER_ECANCELED) {
            if (err != MUSTER_ECONFLICT)
                c->st.hub_errors++;
            b->cond_dirty = 1; /* written again by a later sweep */
        }
        maybe_free(c, b);
        return;
    }
    b->inflight--;
    if (!err && want_body && resp->body) {
        json_object_put(b->reply);
        b->reply = json_object_get(resp->body);
    }
    int rb_step = step != S_OBJECTS && step != S_BARRIER && step != S_U_DELETE &&
                  step != S_R_WORKS;
    if (err == MUSTER_ECONFLICT && step == S_STATUS) {
        /* The RB changed since the status patch was built (its resourceVersion): read it
         * again and rebuild, so no condition Karmada wrote meanwhile is overwritten. */
        b->step = S_STATUS_READ;
        err = 0;
    }
    if (err && err != tolerate) {
        if (err == MUSTER_ENOENT && rb_step) {
            b->rb_missing = 1; /* the RB is gone; its delete event releases it */
        } else if (err != MUSTER_ECANCELED) {
            b->step_failed = 1;
            c->st.hub_errors++;
            if (b->retry_ms >= CTL_RETRY_MAX_MS / 2)
                logf_(c, "%s: %s step %d keeps failing: %s", b->key, bstate_names[b->st], step,
                      resp->status.message[0] ? resp->status.message : muster_strerror(err));
        }
    }
    if (b->inflight > 0) {
        if (!err || err == tolerate)
            disp_crashpoint(step_crashpoint[step][1]);
        return;
    }
    if (b->gone) {
        maybe_free(c, b);
        return;
    }
    if (b->rb_missing) {
        b->rb_missing = 0;
        b->step_failed = 0;
        if (b->st == B_DONE && b->needs_objects && b->assign) {
            b->step = S_R_WORKS; /* released already: the RB went, its Works go too */
            step_run(c, b);
        }
        return;
    }
    if (b->step_failed) {
        b->step_failed = 0;
        retry_later(c, b);
    } else if (b->step == S_STATUS_READ && step == S_STATUS) {
        step_run(c, b);
    } else {
        b->retry_ms = 0;
        step_done(c, b);
    }
}

/* Sends one request of b's current step; body is consumed. want_body keeps the answer in
 * b->reply; again_path (a create's object path) makes a 409 AlreadyExists replace the existing
 * object with body by a merge patch. */
static void send_req_ex(struct ctl *c, struct binding *b, enum kube_verb verb, const char *path,
                        const char *sub, json_object *body, int tolerate, int want_body,
                        const char *again_path)
{
    struct request_ctx *rq = muster_calloc(1, sizeof(*rq));
    const char *txt = body ? json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN) : NULL;
    /* Only deletes and reads go without a body: a builder that returned NULL failed. */
    if (!rq || (body && !txt) || (!body && verb != KUBE_DELETE && verb != KUBE_GET &&
                                  verb != KUBE_LIST)) {
        muster_free(rq);
        json_object_put(body);
        b->step_failed = 1;
        return;
    }
    *rq = (struct request_ctx){c, b, b->step, tolerate, 0, verb, want_body, NULL, NULL};
    if (again_path) {
        rq->again_path = muster_strdup(again_path);
        rq->again_body = muster_strdup(txt);
        if (!rq->again_path || !rq->again_body) {
            muster_free(rq->again_path);
            muster_free(rq->again_body);
            muster_free(rq);
            json_object_put(body);
            b->step_failed = 1;
            return;
        }
    }
    struct kube_request req = {
        .verb = verb, .path = path, .subresource = sub, .body = txt, .discard_body = !want_body};
    b->inflight++;
    int rc = kube_request(c->kube, &req, on_response, rq);
    json_object_put(body);
    if (rc) {
        b->inflight--;
        muster_free(rq->again_path);
        muster_free(rq->again_body);
        muster_free(rq);
        b->step_failed = 1;
    }
}

static void send_req(struct ctl *c, struct binding *b, enum kube_verb verb, const char *path,
                     const char *sub, json_object *body, int tolerate)
{
    send_req_ex(c, b, verb, path, sub, body, tolerate, 0, NULL);
}

/* A create met an object of the same name (an earlier attempt's Work whose delete did not get
 * through, say): the object is replaced by a merge patch carrying this attempt's whole body (a
 * merge patch replaces the manifests array whole). The request keeps b's count in flight.
 * Returns 0, or a MUSTER_* code when nothing was sent (the 409 then stands as a failure). */
static int send_again(struct ctl *c, struct binding *b, struct request_ctx *rq)
{
    struct request_ctx *n = muster_calloc(1, sizeof(*n));
    if (!n)
        return MUSTER_ENOMEM;
    *n = (struct request_ctx){c, b, rq->step, 0, 0, KUBE_MERGE_PATCH, 0, NULL, NULL};
    struct kube_request req = {.verb = KUBE_MERGE_PATCH,
                               .path = rq->again_path,
                               .body = rq->again_body,
                               .discard_body = 1};
    int rc = kube_request(c->kube, &req, on_response, n);
    if (rc) {
        muster_free(n);
        return rc;
    }
    muster_free(rq->again_path);
    muster_free(rq->again_body);
    muster_free(rq);
    return 0;
}

/* Writes b's waiting condition when it changed: a status merge patch outside the steps. */
static int send_condition(struct ctl *c, struct binding *b)
{
    char ts[32], path[KUBE_MAX_URL_BYTES / 4];
    json_object *body = NULL;
    rfc3339(now_ms(c), ts, sizeof ts);
    b->cond_dirty = 0;
    if (!b->reason[0] || disp_rbpatch_waiting(b->rb, b->reason, binding_msg(b), ts, &body) || !body)
        return 0;
    const char *txt = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
    struct request_ctx *rq = muster_malloc(sizeof(*rq));
    if (!rq || !txt) {
        muster_free(rq);
        json_object_put(body);
        b->cond_dirty = 1;
        return 0;
    }
    *rq = (struct request_ctx){c, b, S_NONE, 0, 1, KUBE_MERGE_PATCH, 0, NULL, NULL};
    rb_path(b, path, sizeof path);
    struct kube_request req = {
        .verb = KUBE_MERGE_PATCH, .path = path, .subresource = "status", .body = txt,
        .discard_body = 1};
    b->side_inflight++;
    if (kube_request(c->kube, &req, on_response, rq)) {
        b->side_inflight--;
        muster_free(rq);
        b->cond_dirty = 1;
    } else {
        c->st.conditions_written++;
    }
    json_object_put(body);
    return 1;
}

static void fill_gang_input(struct ctl *c, struct binding *b, struct gang_input *in,
                            struct gang_share *gs)
{
    for (uint32_t i = 0; i < b->nshares; i++)
        gs[i] = (struct gang_share){b->shares[i].cluster, b->shares[i].replicas};
    /* gangobj reads what disp_workload_read found; re-read into the scratch (the RB and the
     * template are the ones admitted). */
    disp_workload_read(&c->w, c->names, b->rb, b->tmpl);
    *in = (struct gang_input){.rb = b->rb,
                              .w = &c->w,
                              .names = c->names,
                              .shares = gs,
                              .nshares = b->nshares,
                              .pod_scheduler = c->pod_scheduler,
                              .tmpl = b->tmpl};
}

static void work_path(const char *cluster, const char *name, char *buf, size_t cap)
{
    char ns[CTL_CLUSTER_NAME_MAX + 16];
    snprintf(ns, sizeof ns, "karmada-es-%s", cluster);
    kube_path(buf, cap, "work.karmada.io", "v1alpha1", ns, "works", name);
}

static void policy_path(const struct binding *b, int one, char *buf, size_t cap)
{
    char ns[256], pname[GANG_NAME_MAX + 1];
    const char *name;
    split_key(b->key, ns, sizeof ns, &name);
    gang_policy_name(name, pname, sizeof pname);
    kube_path(buf, cap, "policy.karmada.io", "v1alpha1", ns, "overridepolicies",
              one ? pname : NULL);
}

/* muster's PodGroup Work for b in cluster, as its watch last saw it, or NULL. */
static json_object *own_work(struct ctl *c, const struct binding *b, const char *cluster)
{
    char ns[256], wname[GANG_NAME_MAX + 1], wns[CTL_CLUSTER_NAME_MAX + 16];
    const char *name;
    split_key(b->key, ns, sizeof ns, &name);
    gang_work_name(ns, name, wname, sizeof wname);
    snprintf(wns, sizeof wns, "karmada-es-%s", cluster);
    return kube_informer_get(&c->works, wns, wname);
}

/* Every share's PodGroup Work reports Applied: the member holds this attempt's PodGroup. */
static int works_applied(struct ctl *c, const struct binding *b)
{
    for (uint32_t i = 0; i < b->nshares; i++)
        if (!gang_work_applied(own_work(c, b, b->shares[i].cluster)))
            return 0;
    return 1;
}

static void soon_arm(struct ctl *c, int64_t at);

/* The barrier is not rendered everywhere yet: list the Works again after the back-off. */
static void recheck_later(struct ctl *c, struct binding *b)
{
    b->recheck_ms = b->recheck_ms ? b->recheck_ms * 2 : CTL_BARRIER_RECHECK_MS;
    if (b->recheck_ms > CTL_BARRIER_RECHECK_MAX_MS)
        b->recheck_ms = CTL_BARRIER_RECHECK_MAX_MS;
    b->retry_at = now_ms(c) + b->recheck_ms;
    if (!b->in_retry) {
        b->rnext = c->retry;
        c->retry = b;
        b->in_retry = 1;
    }
    soon_arm(c, b->retry_at);
}

static void rollback(struct ctl *c, struct binding *b, const char *why);

/* A forward step of a binding released meanwhile (finished, or its RB went) goes no further:
 * what it made is deleted instead. Scheduled=True still goes to an RB that stays (its shares
 * were placed and lifted, and Karmada's RB-status controller needs lastScheduledTime), then
 * the delete follows (step_done). */
static int forward_step(const struct binding *b)
{
    enum step st = b->step;
    if (st == S_STATUS || st == S_STATUS_READ)
        return b->gone || jpath(b->rb, "metadata", "deletionTimestamp") != NULL;
    return st == S_OBJECTS || st == S_APPLIED || st == S_ASSIGN || st == S_BARRIER ||
           st == S_LIFT || st == S_ASSIGN_LIFT;
}

static void step_run(struct ctl *c, struct binding *b)
{
    char path[KUBE_MAX_URL_BYTES / 4];
    char ns[256];
    const char *name;
    split_key(b->key, ns, sizeof ns, &name);
    if (!leads(c) || c->stopping)
        return;
    if (b->st == B_DONE && forward_step(b))
        b->step = b->needs_objects && b->assign ? S_R_WORKS : S_NONE;
    rb_path(b, path, sizeof path);
    struct gang_share gs[256];
    struct gang_input in;
    json_object *body = NULL;
    char wname[GANG_NAME_MAX + 1];
    gang_work_name(ns, name, wname, sizeof wname);
    b->step_failed = 0;
    switch (b->step) {
    case S_NONE:
        return;
    case S_HOLD:
        if (disp_rbpatch_hold(b->rb, &body) || !body) {
            b->step = S_NONE;
            return;
        }
        send_req(c, b, KUBE_MERGE_PATCH, path, NULL, body, 0);
        break;
    case S_OBJECTS: {
        fill_gang_input(c, b, &in, gs);
        /* The policy first: created once per RB and kept (docs/gangobj.md). One that exists
         * is merge-patched with this body: a no-op when it is the same (no new generation, so
         * Karmada renders nothing again), a correction when an older musterd wrote it per
         * cluster (its rules would miss a cluster of this placement). */
        json_object *op = gang_override_policy(&in);
        if (op) {
            char pp[KUBE_MAX_URL_BYTES / 4], one[KUBE_MAX_URL_BYTES / 4];
            policy_path(b, 0, pp, sizeof pp);
            policy_path(b, 1, one, sizeof one);
            send_req_ex(c, b, KUBE_CREATE, pp, NULL, op, 0, 0, one);
        }
        for (uint32_t i = 0; i < b->nshares; i++) {
            char wp[KUBE_MAX_URL_BYTES / 4], one[KUBE_MAX_URL_BYTES / 4];
            work_path(b->shares[i].cluster, NULL, wp, sizeof wp);
            work_path(b->shares[i].cluster, wname, one, sizeof one);
            send_req_ex(c, b, KUBE_CREATE, wp, NULL, gang_podgroup_work(&in, i), 0, 0, one);
        }
        break;
    }
    case S_APPLIED:
        /* Nothing to send: the Works' watch events run this again (work_changed). */
        if (works_applied(c, b))
            step_done(c, b);
        return;
    case S_ASSIGN:
    case S_ASSIGN_LIFT:
        fill_gang_input(c, b, &in, gs);
        body = gang_patch_assign(&in, b->step == S_ASSIGN);
        if (body && b->step == S_ASSIGN_LIFT) {
            /* one patch: placement and the suspension lifted together (nothing else to
             * create, so no barrier is needed) */
            json_object *lift = gang_patch_release(-2);
            json_object *spec = jobj(body, "spec"), *lspec = jobj(lift, "spec");
            json_object *susp = jobj(lspec, "suspension");
            if (spec && susp)
                json_object_object_add(spec, "suspension", json_object_get(susp));
            json_object_put(lift);
        }
        send_req_ex(c, b, KUBE_MERGE_PATCH, path, NULL, body, 0, b->step == S_ASSIGN_LIFT, NULL);
        break;
    case S_BARRIER: {
        /* The Works Karmada rendered for the RB carry its permanent id (its webhook and
         * binding controller); muster's own carry none. */
        char wp[KUBE_MAX_URL_BYTES / 4], sel[DISP_WORKLOAD_LABEL_VALUE_MAX + 64];
        kube_path(wp, sizeof wp, "work.karmada.io", "v1alpha1", NULL, "works", NULL);
        snprintf(sel, sizeof sel, "%s=%s", DISP_WORKLOAD_PERMANENT_ID_LABEL, b->pid);
        struct request_ctx *rq = muster_calloc(1, sizeof(*rq));
        if (!rq) {
            b->step_failed = 1;
            break;
        }
        *rq = (struct request_ctx){c, b, b->step, 0, 0, KUBE_LIST, 1, NULL, NULL};
        struct kube_request req = {.verb = KUBE_LIST, .path = wp, .label_selector = sel};
        b->inflight++;
        if (kube_request(c->kube, &req, on_response, rq)) {
            b->inflight--;
            muster_free(rq);
            b->step_failed = 1;
        }
        break;
    }
    case S_LIFT:
        send_req_ex(c, b, KUBE_MERGE_PATCH, path, NULL,
                    gang_patch_release(b->barrier ? b->user_dispatching : -2), 0, 1, NULL);
        break;
    case S_STATUS: {
        if (b->side_inflight) {
            /* A waiting condition (Scheduled=False) still on its way (the client retries a
             * 429 after a second) would land after this one and undo it: wait for it. */
            b->step_failed = 1;
            break;
        }
        char ts[32];
        rfc3339(now_ms(c), ts, sizeof ts);
        /* From the newest read of the RB: the answer to muster's last patch or a fresh get,
         * unless the watch has brought a newer one since. */
        json_object *from = b->rb;
        const char *frv = jstr(jobj(b->fresh, "metadata"), "resourceVersion");
        const char *crv = jstr(jobj(b->rb, "metadata"), "resourceVersion");
        if (frv && (!crv || strtoll(frv, NULL, 10) > strtoll(crv, NULL, 10)))
            from = b->fresh;
        body = gang_status_scheduled(from, ts);
        send_req(c, b, KUBE_MERGE_PATCH, path, "status", body, 0);
        break;
    }
    case S_STATUS_READ:
        send_req_ex(c, b, KUBE_GET, path, NULL, NULL, 0, 1, NULL);
        break;
    case S_RESUME:
        send_req(c, b, KUBE_MERGE_PATCH, path, NULL, gang_patch_resume(), 0);
        break;
    case S_U_BARRIER:
        send_req(c, b, KUBE_MERGE_PATCH, path, NULL, gang_patch_rollback_barrier(), 0);
        break;
    case S_U_DELETE:
    case S_R_WORKS: {
        /* muster's Works in every cluster it placed in, and in any the hub lists (an adopted
         * or half-undone dispatch); 404 counts as done. The OverridePolicy stays. */
        for (uint32_t i = 0; i < b->nshares; i++) {
            char wp[KUBE_MAX_URL_BYTES / 4];
            work_path(b->shares[i].cluster, wname, wp, sizeof wp);
            send_req(c, b, KUBE_DELETE, wp, NULL, NULL, MUSTER_ENOENT);
        }
        json_object *cl = jpath(b->rb, "spec", "clusters");
        for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
            const char *cn = jstr(json_object_array_get_idx(cl, i), "name");
            int mine = 0;
            for (uint32_t j = 0; cn && j < b->nshares; j++)
                mine |= strcmp(b->shares[j].cluster, cn) == 0;
            if (!cn || mine || strlen(cn) >= CTL_CLUSTER_NAME_MAX)
                continue;
            char wp[KUBE_MAX_URL_BYTES / 4];
            work_path(cn, wname, wp, sizeof wp);
            send_req(c, b, KUBE_DELETE, wp, NULL, NULL, MUSTER_ENOENT);
        }
        break;
    }
    case S_U_CLEAR:
        if (b->assign)
            body = gang_patch_rollback_clear(b->barrier ? b->user_dispatching : -2);
        else if (disp_rbpatch_hold(b->rb, &body) || !body) {
            b->step = S_U_CLEAR;
            step_done(c, b);
            return;
        }
        send_req(c, b, KUBE_MERGE_PATCH, path, NULL, body, 0);
        break;
    }
    if (b->inflight == 0) {
        /* nothing could be sent (out of memory) or nothing was needed */
        if (b->step_failed)
            retry_later(c, b);
        else
            step_done(c, b);
    }
}

/* The first step of b's dispatch, by mode and kind. */
static enum step forward_first(const struct binding *b)
{
    if (!b->assign)
        return S_RESUME;
    return b->needs_objects ? S_OBJECTS : S_ASSIGN_LIFT;
}

static void undo_start(struct ctl *c, struct binding *b)
{
    set_state(c, b, B_UNDO);
    if (b->assign && b->needs_objects && (b->nshares || rb_nclusters(b->rb)))
        b->step = S_U_BARRIER;
    else if (b->assign && b->needs_objects)
        b->step = S_U_DELETE;
    else
        b->step = S_U_CLEAR;
    step_run(c, b);
}

/* The undo's last request is acknowledged (the Works' deletes, after the clear; the clear
 * itself for a gang without Works). The binding waits again only once the RB watch shows the
 * clear too: until then the cached RB may be the one from before it, with muster's own
 * dispatching barrier, and the next admission would record that as the user's value and
 * restore it at the lift (an RB released with the barrier still on). binding_react comes back
 * here when the event arrives. */
static void undo_finish(struct ctl *c, struct binding *b)
{
    if (b->assign && rb_nclusters(b->rb) > 0)
        return;
    engine_add(c, b);
}

static void mark_dispatched(struct ctl *c, struct binding *b)
{
    int64_t now = now_ms(c);
    b->dispatched_at = now;
    set_state(c, b, B_DISPATCHED);
    struct lwrite *w = lw_add(c, b, LW_DISPATCHED, "dispatched");
    if (!w) {
        fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    w->row.dispatched_at = now;
    c->st.dispatched++;
    if (c->opt.metrics)
        disp_metrics_dispatch_latency(c->opt.metrics, (double)(now - b->admitted_at) / 1000.0);
    if (c->opt.events)
        disp_events_record_dispatch(c->opt.events, now, (double)(now - b->admitted_at));
    publish_binding(c, b, "dispatched", "");
}

/* The rendered Works, as the barrier check listed them: lift, check again, or roll back. */
static void barrier_judged(struct ctl *c, struct binding *b)
{
    char ns[256], pname[GANG_NAME_MAX + 1], why[200];
    const char *name;
    split_key(b->key, ns, sizeof ns, &name);
    gang_policy_name(name, pname, sizeof pname);
    struct gang_share gs[256];
    for (uint32_t i = 0; i < b->nshares; i++)
        gs[i] = (struct gang_share){b->shares[i].cluster, b->shares[i].replicas};
    enum gang_rendered r =
        gang_rendered_judge(jobj(b->reply, "items"), gs, b->nshares, pname, why, sizeof why);
    json_object_put(b->reply);
    b->reply = NULL;
    switch (r) {
    case GANG_RENDERED_READY:
    case GANG_RENDERED_OPEN:
        disp_crashpoint("dispatch.barrier"); /* judged: the lift is next */
        b->recheck_ms = 0;
        b->step = S_LIFT;
        step_run(c, b);
        return;
    case GANG_RENDERED_VANISHED: {
        char msg[256];
        snprintf(msg, sizeof msg, "the dispatching barrier vanished before the lift (%s)", why);
        b->step = S_NONE;
        rollback(c, b, msg);
        return;
    }
    case GANG_RENDERED_WAIT:
    case GANG_RENDERED_MISSING:
        recheck_later(c, b);
        return;
    }
}

static void step_done(struct ctl *c, struct binding *b)
{
    disp_crashpoint(step_crashpoint[b->step][0]);
    switch (b->step) {
    case S_OBJECTS:
        b->step = S_APPLIED;
        break;
    case S_APPLIED:
        b->step = S_ASSIGN;
        break;
    case S_ASSIGN:
        b->step = S_BARRIER;
        break;
    case S_BARRIER:
        if (b->st == B_DONE)
            break; /* step_run turns it into the delete */
        barrier_judged(c, b);
        return;
    case S_LIFT:
        json_object_put(b->fresh);
        b->fresh = b->reply;
        b->reply = NULL;
        mark_dispatched(c, b);
        b->step = S_STATUS;
        break;
    case S_ASSIGN_LIFT:
        json_object_put(b->fresh);
        b->fresh = b->reply;
        b->reply = NULL;
        mark_dispatched(c, b);
        b->step = S_STATUS;
        break;
    case S_STATUS_READ:
        json_object_put(b->fresh);
        b->fresh = b->reply;
        b->reply = NULL;
        b->step = S_STATUS;
        break;
    case S_RESUME:
        mark_dispatched(c, b);
        b->step = S_NONE;
        break;
    case S_U_BARRIER:
        b->step = S_U_CLEAR;
        break;
    case S_U_CLEAR:
        /* Last, muster's own Works: Karmada deletes their member PodGroups through the
         * finalizer. Without them there is nothing of muster's to delete. */
        if (b->assign && b->needs_objects) {
            b->step = S_U_DELETE;
            break;
        }
        /* fall through */
    case S_U_DELETE:
        b->step = S_NONE;
        b->nshares = 0;
        if (b->st == B_UNDO)
            undo_finish(c, b);
        return;
    case S_STATUS:
        json_object_put(b->fresh);
        b->fresh = NULL;
        if (b->st == B_DONE && b->needs_objects && b->assign) {
            b->step = S_R_WORKS; /* released while the forward steps finished */
            break;
        }
        b->step = S_NONE;
        return;
    case S_HOLD:
    case S_R_WORKS:
    case S_NONE:
        b->step = S_NONE;
        return;
    }
    step_run(c, b);
}

/* ---- release and rollback ---- */

static void engine_forget(struct ctl *c, struct binding *b)
{
    struct queue_entry *e = b->ledger_id ? queue_tree_entry(c->t, (uint64_t)b->ledger_id) : NULL;
    if (e)
        queue_entry_remove(c->t, e);
    c->cycle_wanted = 1;
    c->cycle_forced = 1;
}

/* The workload finished or its RB went: the row is released, the queue's usage with it. */
static void release(struct ctl *c, struct binding *b, const char *why)
{
    if (!b->ledger_id) {
        set_state(c, b, B_DONE);
        return;
    }
    int had_objects = b->st >= B_ADMITTED && b->assign && b->needs_objects;
    engine_forget(c, b);
    struct lwrite *w = lw_add(c, b, LW_RELEASE, "released");
    if (!w) {
        fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    snprintf(w->reason, sizeof w->reason, "%s", why);
    w->row.reason = w->reason;
    queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    c->st.released++;
    if (c->opt.metrics)
        disp_metrics_release(c->opt.metrics, why);
    publish_binding(c, b, "released", why);
    b->needs_objects = had_objects; /* the flush deletes the Works only if some were made */
    set_state(c, b, B_DONE);
    kick(c);
}

static int64_t queue_timeout_ms(struct ctl *c, const char *queue);

/* What a rollback is counted as (muster_rollbacks_total{reason}). */
#define ROLLBACK_TIMEOUT "gang-timeout"
#define ROLLBACK_BARRIER "barrier-vanished"
#define ROLLBACK_EXTERNAL "placement-changed"

static void rollback_ex(struct ctl *c, struct binding *b, const char *why, const char *metric);

static void rollback(struct ctl *c, struct binding *b, const char *why)
{
    rollback_ex(c, b, why, strstr(why, "barrier") ? ROLLBACK_BARRIER : ROLLBACK_TIMEOUT);
}

static void rollback_ex(struct ctl *c, struct binding *b, const char *why, const char *metric)
{
    int64_t now = now_ms(c);
    engine_forget(c, b);
    struct lwrite *w = lw_add(c, b, LW_ROLLBACK_OLD, "rolledback");
    if (!w) {
        fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    snprintf(w->reason, sizeof w->reason, "%s", why);
    w->row.reason = w->reason;
    queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    b->ledger_id = 0;
    /* The barrier goes up again during the undo, and the clear restores what the RB had
     * before muster touched it, as the ledger recorded it: never what the cached RB says now,
     * which may still be a copy from before the lift carrying muster's own barrier (issue 15's
     * crash recovery). A gang that had no barrier of muster's (a Volcano Job) gets back what
     * it has now: muster never wrote its dispatching. */
    if (!b->barrier)
        b->user_dispatching = rb_dispatching(b->rb);
    b->barrier = 1;
    uint64_t back = c->opt.backoff_initial_ms ? c->opt.backoff_initial_ms : CTL_BACKOFF_INITIAL_MS;
    uint64_t max = c->opt.backoff_max_ms ? c->opt.backoff_max_ms : CTL_BACKOFF_MAX_MS;
    for (int64_t i = 0; i < b->attempt && back < max; i++)
        back *= 2;
    if (back > max)
        back = max;
    b->attempt++;
    b->not_before = now + (int64_t)back;
    set_reason(b, "Unschedulable", "rolled back (attempt %" PRId64 "): %s; queued again, not "
                                   "before %" PRId64 " s from the rollback",
               b->attempt, why, (int64_t)(back / 1000));
    struct lwrite *n = lw_add(c, b, LW_ROLLBACK_NEW, "pending");
    if (!n || lw_fill_new(c, n, b)) {
        fatal(c, "out of memory");
        return;
    }
    n->row.barrier = 1;
    n->row.user_dispatching = b->user_dispatching;
    set_state(c, b, B_UNDO);
    b->step = S_NONE;
    c->st.rolled_back++;
    if (c->opt.metrics) {
        disp_metrics_rollback(c->opt.metrics, metric);
        disp_metrics_requeue(c->opt.metrics);
    }
    if (c->opt.events)
        disp_events_record_rollback(c->opt.events, now);
    publish_binding(c, b, "rolledback", why);
    notice(c, "warning", "%s rolled back: %s", b->key, why);
}

/* ---- following the workload ---- */

static json_object *agg_entry(json_object *rb, const char *cluster)
{
    json_object *agg = jpath(rb, "status", "aggregatedStatus");
    for (size_t i = 0; agg && i < json_object_array_length(agg); i++) {
        json_object *e = json_object_array_get_idx(agg, i);
        const char *n = jstr(e, "clusterName");
        if (n && strcmp(n, cluster) == 0)
            return e;
    }
    return NULL;
}

/* Resume mode and the kinds without PodGroup Works: what Karmada aggregated for a cluster says
 * the share runs. A Volcano Job runs once its phase is Running, Completing or Completed (the
 * customization's statusReflection keeps status.state; "Healthy" covers Pending too). A batch
 * Job is Healthy whatever it does (no health interpreter): applied stands for started, and
 * only its conditions say it finished. */
static int share_running(enum disp_workload_kind kind, json_object *e)
{
    if (!e)
        return 0;
    if (kind == DISP_WORKLOAD_KIND_VCJOB) {
        const char *ph = jstr(jpath(e, "status", "state"), "phase");
        return ph && (strcmp(ph, "Running") == 0 || strcmp(ph, "Completing") == 0 ||
                      strcmp(ph, "Completed") == 0);
    }
    const char *h = jstr(e, "health");
    return bool_at(e, "applied") == 1 && h && strcmp(h, "Healthy") == 0;
}

/* The member object's status says it is finished (succeeded or failed for good): a Job only
 * on its Complete or Failed condition (succeeded counts pods, and a share's parallelism is not
 * its completions), a Volcano Job on a final phase, a Pod on Succeeded or Failed. */
static int share_finished(enum disp_workload_kind kind, json_object *e)
{
    json_object *st = jobj(e, "status");
    if (!st)
        return 0;
    switch (kind) {
    case DISP_WORKLOAD_KIND_JOB: {
        json_object *conds = jobj(st, "conditions");
        for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
            json_object *cd = json_object_array_get_idx(conds, i);
            const char *t = jstr(cd, "type"), *s = jstr(cd, "status");
            if (t && s && strcmp(s, "True") == 0 &&
                (strcmp(t, "Complete") == 0 || strcmp(t, "Failed") == 0))
                return 1;
        }
        return 0;
    }
    case DISP_WORKLOAD_KIND_VCJOB: {
        const char *ph = jstr(jobj(st, "state"), "phase");
        return ph && (strcmp(ph, "Completed") == 0 || strcmp(ph, "Failed") == 0 ||
                      strcmp(ph, "Aborted") == 0 || strcmp(ph, "Terminated") == 0);
    }
    case DISP_WORKLOAD_KIND_POD: {
        const char *ph = jstr(st, "phase");
        return ph && (strcmp(ph, "Succeeded") == 0 || strcmp(ph, "Failed") == 0);
    }
    default:
        return 0;
    }
}

/* A share of a gang with PodGroup Works runs when its member PodGroup is Running (Volcano
 * admitted the gang there), as Karmada reflects the PodGroup's status into the Work. */
static int share_gang_running(struct ctl *c, const struct binding *b, const char *cluster)
{
    const char *ph = gang_work_podgroup_phase(own_work(c, b, cluster));
    return ph && strcmp(ph, "Running") == 0;
}

/* Someone else changed a dispatched RB's placement: the taint manager or application
 * failover evicting a cluster (gracefulEvictionTasks), the descheduler or a person rewriting
 * spec.clusters. Judged only on an RB read after muster's lift (scheduling not suspended), so
 * muster's own patches, which the watch may bring after their answers, are never taken for
 * someone else's. Writes what changed into why. */
static int placement_changed(const struct binding *b, char *why, size_t cap)
{
    json_object *susp = jpath(b->rb, "spec", "suspension");
    if (bool_at(susp, "scheduling") == 1)
        return 0;
    json_object *ev = jpath(b->rb, "spec", "gracefulEvictionTasks");
    if (ev && json_object_is_type(ev, json_type_array) && json_object_array_length(ev) > 0) {
        const char *from = jstr(json_object_array_get_idx(ev, 0), "fromCluster");
        snprintf(why, cap, "Karmada is evicting it from %s (spec.gracefulEvictionTasks)",
                 from ? from : "a cluster");
        return 1;
    }
    json_object *cl = jpath(b->rb, "spec", "clusters");
    size_t n = cl && json_object_is_type(cl, json_type_array) ? json_object_array_length(cl) : 0;
    int same = n == b->nshares;
    for (size_t i = 0; same && i < n; i++) {
        json_object *e = json_object_array_get_idx(cl, i);
        const char *name = jstr(e, "name");
        json_object *r = jobj(e, "replicas");
        int32_t rep = r ? json_object_get_int(r) : 0;
        int found = 0;
        for (uint32_t j = 0; name && j < b->nshares && !found; j++)
            found = strcmp(b->shares[j].cluster, name) == 0 && b->shares[j].replicas == rep;
        same = found;
    }
    if (!same)
        snprintf(why, cap, "its spec.clusters was changed by someone else (%zu cluster(s) where "
                           "muster placed %" PRIu32 ")",
                 n, b->nshares);
    return !same;
}

static void check_progress(struct ctl *c, struct binding *b)
{
    if (b->st != B_DISPATCHED && b->st != B_RUNNING)
        return;
    if (b->assign && b->step == S_NONE && b->inflight == 0 && !b->lw_pending) {
        char why[200];
        if (placement_changed(b, why, sizeof why)) {
            rollback_ex(c, b, why, ROLLBACK_EXTERNAL);
            return;
        }
    }
    json_object *agg = jpath(b->rb, "status", "aggregatedStatus");
    size_t nagg = agg ? json_object_array_length(agg) : 0;
    int all_running = 1, all_done = 1, any = 0;
    if (b->assign) {
        for (uint32_t i = 0; i < b->nshares; i++) {
            json_object *e = agg_entry(b->rb, b->shares[i].cluster);
            int run = b->needs_objects ? share_gang_running(c, b, b->shares[i].cluster)
                                       : share_running(b->kind, e);
            int done = share_finished(b->kind, e);
            if ((run || done) && !b->shares[i].running) {
                struct cluster *k = cluster_find(c, b->shares[i].cluster);
                b->shares[i].running = 1;
                b->shares[i].running_at = now_ms(c);
                /* At start-up the cluster's report and the RB's status come from the same
                 * initial lists, taken after the share started: the report counts it. */
                b->shares[i].confirm_gen = k && c->reconciled ? k->gen : 0;
                if (k && b->shares[i].confirm_gen < k->gen)
                    k->stale = 1; /* its report counts it already */
                else if (k && b->shares[i].running_at + CTL_CONFIRM_MAX_MS < k->expire_at)
                    k->expire_at = b->shares[i].running_at + CTL_CONFIRM_MAX_MS;
            }
            all_running &= run || done;
            all_done &= done;
            any = 1;
        }
    } else {
        for (size_t i = 0; i < nagg; i++) {
            json_object *e = json_object_array_get_idx(agg, i);
            all_running &= share_running(b->kind, e) || share_finished(b->kind, e);
            all_done &= share_finished(b->kind, e);
            any = 1;
        }
    }
    if (!any)
        return;
    if (all_done && b->kind != DISP_WORKLOAD_KIND_DEPLOYMENT) {
        release(c, b, "completed");
        return;
    }
    if (all_running && b->st == B_DISPATCHED) {
        set_state(c, b, B_RUNNING);
        struct lwrite *w = lw_add(c, b, LW_RUNNING, "running");
        if (!w) {
            fatal(c, "out of memory");
            return;
        }
        w->row.id = b->ledger_id;
        c->st.running++;
        publish_binding(c, b, "running", "");
    }
}

/* ---- RB and template events ---- */

/* The webhook's rule, so an RB created while the webhook was down is treated the same: a kind
 * muster does not queue, or the opt-out label, leaves it alone. */
static int rb_skipped(json_object *rb)
{
    enum disp_webhook_verdict v = disp_webhook_rb_verdict(rb);
    return v == DISP_WEBHOOK_SKIP_KIND || v == DISP_WEBHOOK_SKIP_LABEL_SET;
}

static void hold_if_needed(struct ctl *c, struct binding *b)
{
    if (b->inflight || b->step != S_NONE || b->gone)
        return;
    if (bool_at(jpath(b->rb, "spec", "suspension"), "scheduling") == 1)
        return;
    b->step = S_HOLD;
    step_run(c, b);
}

/* A binding without a live row, or parked: read it and queue it if it can be. */
static void binding_try_queue(struct ctl *c, struct binding *b)
{
    int rc = binding_read(c, b);
    if (rc == MUSTER_ENOENT && b->st == B_WAIT_TEMPLATE) {
        set_state(c, b, B_WAIT_TEMPLATE);
        hold_if_needed(c, b);
        return;
    }
    if (rc) {
        set_state(c, b, B_PARKED);
        if (rc == MUSTER_ENOENT)
            set_reason(b, "Unschedulable", "its resource template %s was not found",
                       b->tkey);
        hold_if_needed(c, b);
        return;
    }
    if (b->ledger_id)
        engine_add(c, b);
    else
        binding_enqueue(c, b);
    if (b->st == B_PARKED)
        hold_if_needed(c, b);
}

/* A binding with a live pending row whose RB or template changed (waiting, or parked): if what
 * it asks for changed, its row is replaced (same place in line), so the ledger always says what
 * is queued. One that can no longer be read (refused, invalid, its template gone) is parked and
 * keeps its row: the admin API lists it with the reason, and a restart finds a live row and
 * parks it again. Releasing the row instead dropped it from the list, and the next start-up
 * took the released row for a finished workload (done: never held, told or queued again). */
static void binding_reread(struct ctl *c, struct binding *b)
{
    char queue[sizeof b->queue];
    struct queue_resvec gang = {0};
    int32_t prio = b->priority;
    memcpy(queue, b->queue, sizeof queue);
    if (queue_resvec_copy(&gang, &b->gang))
        return;
    int rc = binding_read(c, b);
    int same = !rc && strcmp(queue, b->queue) == 0 && prio == b->priority &&
               queue_resvec_cmp(&gang, &b->gang) == 0;
    queue_resvec_close(&gang);
    if (rc) {
        engine_forget(c, b);
        set_state(c, b, rc == MUSTER_ENOENT ? B_WAIT_TEMPLATE : B_PARKED);
        if (rc == MUSTER_ENOENT)
            set_reason(b, "Unschedulable", "its resource template %s was not found", b->tkey);
        hold_if_needed(c, b);
        return;
    }
    if (same) {
        if (b->st != B_PENDING && b->st != B_BACKOFF) {
            engine_add(c, b); /* readable again, asking for what its row says */
            if (b->st == B_PARKED)
                hold_if_needed(c, b);
        }
        return;
    }
    engine_forget(c, b);
    struct lwrite *w = lw_add(c, b, LW_REPLACE_OLD, "released");
    if (!w) {
        fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    snprintf(w->reason, sizeof w->reason, "the workload changed while it waited");
    w->row.reason = w->reason;
    queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    b->ledger_id = 0;
    binding_enqueue(c, b);
}

static void binding_react(struct ctl *c, struct binding *b, int template_changed)
{
    if (!leads(c) || !c->reconciled || c->stopping || b->gone)
        return;
    switch (b->st) {
    case B_WAIT_TEMPLATE:
    case B_PARKED:
        if (b->inflight != 0 && b->step != S_HOLD)
            break;
        if (b->ledger_id && !b->lw_pending)
            binding_reread(c, b); /* parked with its row: the row may need replacing */
        else if (!b->ledger_id)
            binding_try_queue(c, b);
        break;
    case B_PENDING:
    case B_BACKOFF:
        if (b->lw_pending)
            break; /* its row is not written yet: look again after */
        if (template_changed || rb_generation(b->rb) != b->generation)
            binding_reread(c, b);
        if (b->st == B_PENDING || b->st == B_BACKOFF)
            hold_if_needed(c, b);
        break;
    case B_UNDO:
        if (b->step == S_NONE && b->inflight == 0 && !b->lw_pending && b->ledger_id)
            undo_finish(c, b); /* the clear came back through the watch */
        break;
    case B_DISPATCHED:
    case B_RUNNING:
        check_progress(c, b);
        break;
    default:
        break;
    }
}

static void rb_upsert(struct ctl *c, json_object *rb)
{
    char key[CTL_KEY_MAX];
    obj_key(rb, key, sizeof key);
    struct binding *b = find_key(c, key);
    if (rb_skipped(rb)) {
        if (b && !b->ledger_id && b->inflight == 0 && b->side_inflight == 0 && !b->lw_pending)
            binding_free(c, b);
        return;
    }
    const char *uid = jstr(jobj(rb, "metadata"), "uid");
    if (b && b->st == B_DONE && uid && b->uid[0] && strcmp(uid, b->uid) != 0 && !b->inflight &&
        !b->lw_pending && !b->side_inflight) {
        binding_free(c, b); /* a new RB under an old name: start over */
        b = NULL;
    }
    if (!b) {
        b = binding_new(c, key);
        if (!b)
            return;
        c->st.seen++;
        set_state(c, b, B_WAIT_TEMPLATE);
    }
    json_object *keep = json_object_get(rb); /* before the put: it may be the same object */
    json_object_put(b->rb);
    b->rb = keep;
    b->allow_epoch = 0; /* its placement constraints may have changed */
    if (b->nofit_memo) { /* so its NoClusterFit verdict goes: place it again soon */
        c->cycle_wanted = 1;
        c->cycle_forced = 1;
    }
    /* the affinity pointers point into the RB: refresh them with it */
    if (b->st >= B_UNDO && b->st != B_DONE) {
        json_object *pl = jpath(rb, "spec", "placement");
        b->affinity = jobj(pl, "clusterAffinity");
        b->affinities = jobj(pl, "clusterAffinities");
        b->tolerations = jobj(pl, "clusterTolerations");
    }
    if (jpath(rb, "metadata", "deletionTimestamp")) {
        /* Being deleted (Karmada's binding-controller finalizer holds it while it deletes its
         * own Works): released now, and muster's Works deleted with it, not at the next
         * sweep. Nothing else is done for it. */
        if (leads(c) && c->reconciled && b->ledger_id && b->st != B_DONE && !b->lw_pending)
            release(c, b, "deleted");
        return;
    }
    binding_react(c, b, 0);
}

static void rb_gone(struct ctl *c, json_object *rb)
{
    char key[CTL_KEY_MAX];
    obj_key(rb, key, sizeof key);
    struct binding *b = find_key(c, key);
    if (!b)
        return;
    if (!c->leading || !c->reconciled) {
        /* remembered until reconciliation looks at the ledger */
        json_object_put(b->rb);
        b->rb = NULL;
        return;
    }
    if (b->ledger_id && b->st != B_DONE)
        release(c, b, "deleted");
    /* A row still being written is released when it lands (ledger_flush). */
    b->gone = 1;
    maybe_free(c, b);
}

static void tmpl_changed(struct ctl *c, int ti, json_object *obj)
{
    json_object *md = jobj(obj, "metadata");
    char tkey[CTL_TKEY_MAX];
    snprintf(tkey, sizeof tkey, "%d/%s/%s", ti, jstr(md, "namespace") ? jstr(md, "namespace") : "",
             jstr(md, "name") ? jstr(md, "name") : "");
    struct binding *b = find_tkey(c, tkey);
    if (b)
        binding_react(c, b, 1);
}

/* One of muster's PodGroup Works changed (its status: Applied, the member PodGroup's phase) or
 * went: the binding it belongs to may move on. */
static void work_changed(struct ctl *c, json_object *wk, int deleted)
{
    json_object *md = jobj(wk, "metadata");
    const char *key = jstr(jobj(md, "annotations"), GANG_BINDING_ANNOTATION);
    struct binding *b = key ? find_key(c, key) : NULL;
    if (!b || b->gone || !leads(c) || !c->reconciled || c->stopping)
        return;
    const char *uid = jstr(jobj(md, "labels"), GANG_BINDING_UID_LABEL);
    if (uid && b->uid[0] && strcmp(uid, b->uid) != 0)
        return; /* an earlier RB's under the same name */
    if (b->step == S_APPLIED && b->inflight == 0 && b->st == B_ADMITTED) {
        if (deleted) {
            /* An earlier attempt's Work, replaced by this attempt's patch, finished its
             * deletion after all: create it again. */
            b->step = S_OBJECTS;
        }
        step_run(c, b);
        return;
    }
    if (b->st == B_DISPATCHED || b->st == B_RUNNING)
        check_progress(c, b);
}

/* ---- queue facts the engine does not keep: the gang timeout ---- */

static int qt_cb(void *ud, const struct store_queue *q)
{
    struct ctl *c = ud;
    if (c->nqt == c->capqt) {
        size_t cap = c->capqt ? c->capqt * 2 : 64;
        struct qtimeout *n = muster_realloc(c->qt, cap * sizeof(*n));
        if (!n)
            return MUSTER_ENOMEM;
        c->qt = n;
        c->capqt = cap;
    }
    snprintf(c->qt[c->nqt].name, sizeof c->qt[c->nqt].name, "%s", q->name);
    c->qt[c->nqt++].ms = q->gang_timeout_ms;
    return 0;
}

static void timeouts_refresh(struct ctl *c)
{
    c->nqt = 0;
    if (store_queue_foreach(c->s, qt_cb, c))
        logf_(c, "reading the queues' gang timeouts: %s", store_errmsg(c->s));
}

static int64_t queue_timeout_ms(struct ctl *c, const char *queue)
{
    for (size_t i = 0; i < c->nqt; i++)
        if (strcmp(c->qt[i].name, queue) == 0)
            return c->qt[i].ms;
    return 300000;
}

/* ---- start-up reconciliation: the ledger against the hub ---- */

struct live_row {
    char binding[CTL_KEY_MAX];
    char uid[CTL_UID_MAX];
    char queue[QUEUE_NAME_MAX + 1];
    char state[16];
    char *clusters;
    int64_t id, created_at, admitted_at, dispatched_at, attempt, not_before;
    int barrier, user_dispatching, assign;
};

struct live_rows {
    struct live_row *v;
    size_t n, cap;
};

static int live_cb(void *ud, const struct store_ledger_row *r)
{
    struct live_rows *l = ud;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        struct live_row *n = muster_realloc(l->v, cap * sizeof(*n));
        if (!n)
            return MUSTER_ENOMEM;
        l->v = n;
        l->cap = cap;
    }
    struct live_row *x = &l->v[l->n];
    memset(x, 0, sizeof(*x));
    snprintf(x->binding, sizeof x->binding, "%s", r->binding);
    snprintf(x->uid, sizeof x->uid, "%s", r->uid ? r->uid : "");
    snprintf(x->queue, sizeof x->queue, "%s", r->queue);
    snprintf(x->state, sizeof x->state, "%s", r->state);
    x->clusters = muster_strdup(r->clusters ? r->clusters : "[]");
    if (!x->clusters)
        return MUSTER_ENOMEM;
    x->id = r->id;
    x->created_at = r->created_at;
    x->admitted_at = r->admitted_at;
    x->dispatched_at = r->dispatched_at;
    x->attempt = r->attempt;
    x->not_before = r->not_before;
    x->barrier = r->barrier;
    x->user_dispatching = r->user_dispatching;
    x->assign = !r->mode || strcmp(r->mode, "assign") == 0;
    l->n++;
    return 0;
}

static void shares_from_json(struct binding *b, json_object *arr)
{
    size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr)
                                                                 : 0;
    if (n > 256 || shares_reserve(b, (uint32_t)n)) {
        b->nshares = 0;
        return;
    }
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        const char *name = jstr(e, "name");
        json_object *r = jobj(e, "replicas");
        if (!name || strlen(name) >= CTL_CLUSTER_NAME_MAX)
            continue;
        snprintf(b->shares[k].cluster, sizeof b->shares[k].cluster, "%s", name);
        b->shares[k].replicas = r ? json_object_get_int(r) : 0;
        k++;
    }
    b->nshares = k;
}

/* muster's PodGroup Works for b on the hub, as the watch sees them (the OverridePolicy stays
 * for the RB's life, so it says nothing about a dispatch). */
static int has_objects(struct ctl *c, struct binding *b)
{
    char ns[256], wname[GANG_NAME_MAX + 1];
    const char *name;
    split_key(b->key, ns, sizeof ns, &name);
    gang_work_name(ns, name, wname, sizeof wname);
    json_object *cl = jpath(b->rb, "spec", "clusters");
    for (uint32_t i = 0; i < b->nshares; i++) {
        char wns[CTL_CLUSTER_NAME_MAX + 16];
        snprintf(wns, sizeof wns, "karmada-es-%s", b->shares[i].cluster);
        if (kube_informer_get(&c->works, wns, wname))
            return 1;
    }
    for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
        const char *cn = jstr(json_object_array_get_idx(cl, i), "name");
        char wns[CTL_CLUSTER_NAME_MAX + 16];
        if (cn && strlen(cn) < CTL_CLUSTER_NAME_MAX) {
            snprintf(wns, sizeof wns, "karmada-es-%s", cn);
            if (kube_informer_get(&c->works, wns, wname))
                return 1;
        }
    }
    return 0;
}

/* The RB's spec.clusters is b's placement: the same clusters with the same replicas. */
static int rb_placed_as_ledger(const struct binding *b)
{
    json_object *cl = jpath(b->rb, "spec", "clusters");
    if (b->nshares == 0 || rb_nclusters(b->rb) != b->nshares)
        return 0;
    for (size_t i = 0; i < b->nshares; i++) {
        json_object *e = json_object_array_get_idx(cl, i);
        const char *n = jstr(e, "name");
        json_object *r = jobj(e, "replicas");
        int found = 0;
        for (uint32_t j = 0; n && j < b->nshares && !found; j++)
            found = strcmp(n, b->shares[j].cluster) == 0 &&
                    (r ? json_object_get_int(r) : 0) == b->shares[j].replicas;
        if (!found)
            return 0;
    }
    return 1;
}

/* The PodGroup a PodGroup Work carries: spec of its one manifest. */
static json_object *work_podgroup_spec(json_object *work)
{
    json_object *ms = jpath(work, "spec", "workload");
    ms = jobj(ms, "manifests");
    if (!ms || !json_object_is_type(ms, json_type_array) || json_object_array_length(ms) == 0)
        return NULL;
    return jobj(json_object_array_get_idx(ms, 0), "spec");
}

/* This attempt's gang objects are on the hub and done, as the watches show them (step 2 over):
 * the OverridePolicy is listed, and every share's PodGroup Work is there, not being deleted,
 * Applied, and holding the PodGroup this attempt asks for. The PodGroup is compared because an
 * earlier attempt's Work of another size keeps the same name; only its spec, because Karmada's
 * Work webhook adds labels and annotations to the manifest. */
static int objects_done(struct ctl *c, struct binding *b)
{
    char ns[256], pname[GANG_NAME_MAX + 1];
    const char *name;
    split_key(b->key, ns, sizeof ns, &name);
    gang_policy_name(name, pname, sizeof pname);
    if (b->nshares == 0 || b->nshares > 256 || !kube_informer_get(&c->policies, ns, pname))
        return 0;
    struct gang_share gs[256];
    struct gang_input in;
    fill_gang_input(c, b, &in, gs);
    int done = 1;
    for (uint32_t i = 0; done && i < b->nshares; i++) {
        json_object *have = own_work(c, b, b->shares[i].cluster);
        json_object *want = gang_podgroup_work(&in, i);
        json_object *hs = work_podgroup_spec(have), *ws = work_podgroup_spec(want);
        done = gang_work_applied(have) && hs && ws && json_object_equal(hs, ws);
        json_object_put(want);
    }
    return done;
}

/* Runs b's dispatch from step st (a barrier check starts its back-off afresh). */
static void forward_from(struct ctl *c, struct binding *b, enum step st)
{
    b->recheck_ms = 0;
    b->step = st;
    step_run(c, b);
}

/* An admitted binding after a restart, or a dispatched one taken back to admitted (readmit):
 * the ledger says admitted, but the hub may be any number of steps further, up to the lift
 * (musterd died before the "dispatched" row was committed). The dispatch goes on from the first
 * step the hub does not show done, and a step it shows is not sent again: a second placement
 * patch on a lifted RB would raise muster's dispatching barrier over shares already released,
 * and lift it again.
 *  - Lifted: placed as the ledger says, the scheduling suspension gone and, with gang objects,
 *    muster's barrier down (the lift does both in one patch). Placement comes only after every
 *    PodGroup Work applied, so it proves them made. The row becomes dispatched; Scheduled=True
 *    follows.
 *  - Placed with the barrier (or held again) over objects that are done: from the barrier check
 *    (step 4), which lets the lift go once the rendered Works carry the policy.
 *  - Objects done, not placed: from the placement patch (step 3).
 *  - Else from the objects (step 2: creates that meet what exists patch it to this body).
 * A binding admitted before its hold landed and whose user kept dispatching suspended looks
 * lifted once placed; the lift would have changed nothing there, and the rendered Works stay
 * suspended until the user lifts them (Karmada renders the policy in then). */
static void forward_resume(struct ctl *c, struct binding *b)
{
    int placed = b->assign && rb_placed_as_ledger(b);
    int lifted = bool_at(jpath(b->rb, "spec", "suspension"), "scheduling") != 1;
    if (b->assign)
        lifted = lifted && placed;
    if (b->assign && b->needs_objects)
        lifted = lifted && (rb_dispatching(b->rb) != 1 || b->user_dispatching == 1);
    if (lifted) {
        mark_dispatched(c, b);
        forward_from(c, b, b->assign ? S_STATUS : S_NONE);
        check_progress(c, b); /* running already, as likely as not: no event may come to say so */
        return;
    }
    if (b->assign && b->needs_objects && objects_done(c, b))
        forward_from(c, b, placed ? S_BARRIER : S_ASSIGN);
    else
        forward_from(c, b, forward_first(b));
}

/* A dispatched binding whose hub state is not whole at start-up (not placed as its row says,
 * or held again): the row goes back to admitted, and the protocol runs again once that is
 * committed. A crash in the middle then resumes an admitted dispatch (forward_resume) instead of
 * finding a row that says dispatched over an RB that may carry muster's barrier again. A row
 * adopted from the hub has no barrier of muster's: what the RB has now is the user's. */
static void readmit(struct ctl *c, struct binding *b)
{
    if (b->assign && b->needs_objects && !b->barrier) {
        b->barrier = 1;
        b->user_dispatching = rb_dispatching(b->rb);
    }
    b->resume = 1; /* the committed row resumes from the hub (ledger_flush) */
    set_state(c, b, B_ADMITTED);
    struct lwrite *w = lw_add(c, b, LW_ADMIT, "admitted");
    if (!w) {
        fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    clusters_text(b, w->clusters, sizeof w->clusters);
    w->row.clusters = w->clusters;
    w->row.admitted_at = b->admitted_at;
}

static int rb_scheduled_true(json_object *rb)
{
    json_object *conds = jpath(rb, "status", "conditions");
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
        json_object *cd = json_object_array_get_idx(conds, i);
        const char *t = jstr(cd, "type"), *st = jstr(cd, "status");
        if (t && st && strcmp(t, "Scheduled") == 0)
            return strcmp(st, "True") == 0;
    }
    return 0;
}

static void reconcile_row(struct ctl *c, struct live_row *r)
{
    struct binding *b = find_key(c, r->binding);
    if (!b) {
        b = binding_new(c, r->binding);
        if (!b) {
            fatal(c, "out of memory");
            return;
        }
    }
    char ns[256];
    const char *name;
    split_key(r->binding, ns, sizeof ns, &name);
    json_object *rb = kube_informer_get(&c->rbs, ns, name);
    const char *uid = rb ? jstr(jobj(rb, "metadata"), "uid") : NULL;
    b->ledger_id = r->id;
    queue_idmap_put(&c->byid, (uint64_t)r->id, b);
    b->created_at = r->created_at;
    b->admitted_at = r->admitted_at;
    b->dispatched_at = r->dispatched_at;
    b->attempt = r->attempt;
    b->not_before = r->not_before;
    b->barrier = r->barrier;
    b->user_dispatching = r->user_dispatching;
    b->assign = r->assign;
    snprintf(b->queue, sizeof b->queue, "%s", r->queue);
    snprintf(b->uid, sizeof b->uid, "%s", r->uid);
    json_object *cl = json_tokener_parse(r->clusters);
    shares_from_json(b, cl);
    json_object_put(cl);
    enum bstate st = strcmp(r->state, "pending") == 0      ? B_PENDING
                     : strcmp(r->state, "admitted") == 0   ? B_ADMITTED
                     : strcmp(r->state, "dispatched") == 0 ? B_DISPATCHED
                                                           : B_RUNNING;
    set_state(c, b, st);
    if (!rb || (r->uid[0] && uid && strcmp(uid, r->uid) != 0) ||
        jpath(rb, "metadata", "deletionTimestamp")) {
        /* The RB went (or is going) while muster was not running: its Works go too. */
        b->needs_objects = 1;
        release(c, b, "deleted while muster was not running");
        b->gone = !rb;
        return;
    }
    json_object *keep = json_object_get(rb);
    json_object_put(b->rb);
    b->rb = keep;
    b->allow_epoch = 0;
    int rc = binding_read(c, b);
    if (rc && st == B_PENDING) {
        engine_forget(c, b);
        set_state(c, b, B_PARKED);
        hold_if_needed(c, b);
        return;
    }
    /* binding_read took the queue from the workload; the row's is what the engine holds */
    snprintf(b->queue, sizeof b->queue, "%s", r->queue);
    b->assign = r->assign;
    int sched = bool_at(jpath(rb, "spec", "suspension"), "scheduling");
    switch (st) {
    case B_PENDING: {
        int clean = sched == 1 && (!b->assign || rb_nclusters(rb) == 0) && !has_objects(c, b);
        if (!clean && sched != 1 && rb_nclusters(rb) > 0 && b->not_before == 0) {
            /* Dispatched on the hub while this row says pending: another replica's decision
             * (a database that was not the leader's), not a rollback of ours (those carry a
             * back-off). Adopted as it stands rather than pulled from a running gang. */
            engine_forget(c, b);
            shares_from_json(b, jpath(rb, "spec", "clusters"));
            if (!b->assign)
                b->nshares = 0;
            struct lwrite *w = lw_add(c, b, LW_ADOPT_ROW, "dispatched");
            if (!w) {
                fatal(c, "out of memory");
                return;
            }
            int64_t now = now_ms(c);
            b->admitted_at = b->dispatched_at = now;
            w->row.id = b->ledger_id;
            clusters_text(b, w->clusters, sizeof w->clusters);
            w->row.clusters = w->clusters;
            w->row.admitted_at = now;
            w->row.dispatched_at = now;
            snprintf(w->reason, sizeof w->reason, "adopted from the hub at start-up");
            w->row.reason = w->reason;
            set_state(c, b, B_DISPATCHED);
        } else if (!clean) {
            engine_forget(c, b);
            undo_start(c, b);
        } else if (b->not_before > now_ms(c)) {
            engine_forget(c, b);
            set_state(c, b, B_BACKOFF);
        } else if (!queue_tree_entry(c->t, (uint64_t)b->ledger_id)) {
            engine_add(c, b); /* the start-up load left it out: its queue is gone; parks it */
        }
        break;
    }
    case B_ADMITTED:
        forward_resume(c, b);
        break;
    default: {
        int whole = sched != 1 && (!b->assign || rb_nclusters(rb) == b->nshares);
        for (uint32_t i = 0; whole && b->assign && i < b->nshares; i++)
            whole = rb_lists_cluster(rb, b->shares[i].cluster);
        if (!whole) {
            readmit(c, b);
        } else {
            /* The ledger said dispatched before Scheduled=True was written (the last step):
             * a crash between leaves it to do. */
            if (!rb_scheduled_true(rb) && b->assign) {
                b->step = S_STATUS;
                step_run(c, b);
            }
            check_progress(c, b);
        }
        break;
    }
    }
}

struct last_row {
    char state[16];
    char uid[CTL_UID_MAX];
    int found;
};

static int last_cb(void *ud, const struct store_ledger_row *r)
{
    struct last_row *l = ud;
    snprintf(l->state, sizeof l->state, "%s", r->state);
    snprintf(l->uid, sizeof l->uid, "%s", r->uid ? r->uid : "");
    l->found = 1;
    return 0;
}

/* An RB without a live row: finished before, muster's own dispatch the ledger does not know
 * (another replica's, or a lost database: adopted as it stands), or new. */
static void reconcile_rb(void *ud, json_object *rb)
{
    struct ctl *c = ud;
    char key[CTL_KEY_MAX];
    obj_key(rb, key, sizeof key);
    /* The RB watch's first events made a binding for every RB before this ran (rb_upsert
     * waits for reconciliation): those without a live row are decided here, not skipped. */
    struct binding *b = find_key(c, key);
    if ((b && (b->ledger_id || b->st != B_WAIT_TEMPLATE || b->inflight || b->lw_pending)) ||
        disp_workload_kind_of(rb) == DISP_WORKLOAD_KIND_NONE || rb_skipped(rb) ||
        jpath(rb, "metadata", "deletionTimestamp"))
        return; /* (one being deleted is not queued: rb_upsert's rule) */
    const char *uid = jstr(jobj(rb, "metadata"), "uid");
    struct last_row last = {{0}, {0}, 0};
    store_ledger_foreach_binding(c->s, key, last_cb, &last);
    if (!b) {
        b = binding_new(c, key);
        if (!b) {
            fatal(c, "out of memory");
            return;
        }
        c->st.seen++;
    }
    json_object *keep = json_object_get(rb);
    json_object_put(b->rb);
    b->rb = keep;
    b->allow_epoch = 0;
    snprintf(b->uid, sizeof b->uid, "%s", uid ? uid : "");
    if (last.found && strcmp(last.state, "released") == 0 && uid && strcmp(last.uid, uid) == 0) {
        set_state(c, b, B_DONE);
        /* A job that finished at once was released before its dispatch's last step, the
         * Scheduled=True status, was acknowledged, and musterd died between: it is still due
         * on an RB muster placed (a resume-mode RB is Karmada's scheduler's to tell). */
        const char *sn = jstr(jobj(rb, "spec"), "schedulerName");
        if (rb_nclusters(rb) > 0 && bool_at(jpath(rb, "spec", "suspension"), "scheduling") != 1 &&
            !rb_scheduled_true(rb) && sn && strcmp(sn, c->scheduler) == 0) {
            b->step = S_STATUS;
            step_run(c, b);
        }
        return;
    }
    set_state(c, b, B_WAIT_TEMPLATE);
    if (binding_read(c, b)) {
        binding_try_queue(c, b);
        return;
    }
    int sched = bool_at(jpath(rb, "spec", "suspension"), "scheduling");
    size_t ncl = rb_nclusters(rb);
    if (ncl && sched != 1) {
        /* Dispatched, by muster (assign: nobody else places these) or by Karmada's scheduler
         * after muster lifted the hold (resume): count it as admitted and follow it. */
        shares_from_json(b, jpath(rb, "spec", "clusters"));
        if (!b->assign)
            b->nshares = 0;
        struct lwrite *w = lw_add(c, b, LW_ADOPT, "dispatched");
        if (!w || lw_fill_new(c, w, b)) {
            fatal(c, "out of memory");
            return;
        }
        int64_t now = now_ms(c);
        b->admitted_at = b->dispatched_at = now;
        w->row.admitted_at = now;
        w->row.dispatched_at = now;
        snprintf(w->reason, sizeof w->reason, "adopted from the hub at start-up");
        w->row.reason = w->reason;
        set_state(c, b, B_DISPATCHED);
        notice(c, "info", "%s: adopted as dispatched to %zu cluster(s): the ledger had no row "
                          "for it",
               key, ncl);
        return;
    }
    if (ncl && b->assign) {
        /* A dispatch of muster's that never finished: undone before it waits again. */
        shares_from_json(b, jpath(rb, "spec", "clusters"));
        b->barrier = 1;
        b->user_dispatching = -1;
        set_state(c, b, B_UNDO);
        struct lwrite *w = lw_add(c, b, LW_NEW, "pending");
        if (!w || lw_fill_new(c, w, b)) {
            fatal(c, "out of memory");
            return;
        }
        w->row.barrier = 1;
        w->row.user_dispatching = -1;
        return;
    }
    binding_try_queue(c, b);
}

static void orphan_delete(struct ctl *c, const char *path)
{
    struct request_ctx *rq = muster_malloc(sizeof(*rq));
    if (!rq)
        return;
    *rq = (struct request_ctx){c, NULL, S_NONE, MUSTER_ENOENT, 1, KUBE_DELETE, 0, NULL, NULL};
    struct kube_request req = {.verb = KUBE_DELETE, .path = path, .discard_body = 1};
    if (kube_request(c->kube, &req, on_response, rq))
        muster_free(rq);
    else
        c->st.orphans_deleted++;
}

static int binding_owns(struct binding *b, const char *cluster)
{
    if (!b || b->gone)
        return 0;
    if (b->st == B_UNDO)
        return 1; /* its undo deletes them */
    if (b->st < B_ADMITTED || b->st > B_RUNNING || !b->assign)
        return 0;
    if (!cluster)
        return 1;
    for (uint32_t i = 0; i < b->nshares; i++)
        if (strcmp(b->shares[i].cluster, cluster) == 0)
            return 1;
    return 0;
}

/* The binding a muster object was made for, if it is the same RB (its binding-uid label). */
static struct binding *owner_of(struct ctl *c, json_object *md)
{
    const char *key = jstr(jobj(md, "annotations"), GANG_BINDING_ANNOTATION);
    const char *uid = jstr(jobj(md, "labels"), GANG_BINDING_UID_LABEL);
    struct binding *b = key ? find_key(c, key) : NULL;
    if (b && uid && b->uid[0] && strcmp(b->uid, uid) != 0)
        return NULL; /* a new RB under the old name: the object was the old one's */
    return b;
}

static void orphan_work(void *ud, json_object *wk)
{
    struct ctl *c = ud;
    json_object *md = jobj(wk, "metadata");
    const char *key = jstr(jobj(md, "annotations"), GANG_BINDING_ANNOTATION);
    const char *ns = jstr(md, "namespace"), *name = jstr(md, "name");
    if (!ns || !name || strncmp(ns, "karmada-es-", 11) != 0 || jobj(md, "deletionTimestamp"))
        return;
    if (binding_owns(owner_of(c, md), ns + 11))
        return;
    char path[KUBE_MAX_URL_BYTES / 4];
    if (kube_path(path, sizeof path, "work.karmada.io", "v1alpha1", ns, "works", name) == 0) {
        notice(c, "info", "deleting orphan PodGroup Work %s/%s (binding %s holds no share there)",
               ns, name, key ? key : "unknown");
        orphan_delete(c, path);
    }
}

/* An OverridePolicy stays while its RB exists (deleting it would re-render the RB's Works, and
 * a Job's or Pod's pod template cannot change in a member): only one whose RB (by uid) is gone
 * is an orphan. The template's garbage collection usually removes it first. */
static void orphan_policy(void *ud, json_object *op)
{
    struct ctl *c = ud;
    json_object *md = jobj(op, "metadata");
    const char *key = jstr(jobj(md, "annotations"), GANG_BINDING_ANNOTATION);
    const char *uid = jstr(jobj(md, "labels"), GANG_BINDING_UID_LABEL);
    const char *ns = jstr(md, "namespace"), *name = jstr(md, "name");
    if (!ns || !name || !key)
        return;
    char rns[256];
    const char *rname;
    split_key(key, rns, sizeof rns, &rname);
    json_object *rb = kube_informer_get(&c->rbs, rns, rname);
    const char *rb_uid = jstr(jobj(rb, "metadata"), "uid");
    if (rb && (!uid || !rb_uid || strcmp(uid, rb_uid) == 0))
        return;
    char path[KUBE_MAX_URL_BYTES / 4];
    if (kube_path(path, sizeof path, "policy.karmada.io", "v1alpha1", ns, "overridepolicies",
                  name) == 0) {
        notice(c, "info", "deleting orphan OverridePolicy %s/%s (binding %s is gone)", ns, name,
               key);
        orphan_delete(c, path);
    }
}

/* ---- hub prerequisites (docs/operations.md) ---- */

/* c->missing: every prerequisite found missing, one sentence each, for /readyz and the log. */
static void missing_refresh(struct ctl *c)
{
    char old[sizeof c->missing];
    memcpy(old, c->missing, sizeof old);
    c->missing[0] = '\0';
    size_t l = 0;
    if (c->hub_pg == 0)
        l += (size_t)snprintf(c->missing + l, sizeof c->missing - l,
                              "the karmada-apiserver does not serve scheduling.volcano.sh/v1beta1 "
                              "podgroups (install Volcano's PodGroup CRD on the hub): gangs of "
                              "Deployments, Jobs and Pods are not dispatched\n");
    /* one line per missing member API, naming the members */
    for (int api = 0; api < 2; api++) {
        int first = 1;
        for (uint32_t i = 0; i < c->ncl && l < sizeof c->missing; i++) {
            if (!(api ? c->cl[i].no_vcjobs : c->cl[i].no_podgroups))
                continue;
            l += (size_t)snprintf(
                c->missing + l, sizeof c->missing - l, "%s%s",
                !first ? ", "
                : api  ? "members without Volcano Job support (status.apiEnablements lists no "
                         "batch.volcano.sh/v1alpha1 jobs), not given Volcano Jobs: "
                       : "members without PodGroup support (status.apiEnablements lists no "
                         "scheduling.volcano.sh/v1beta1 podgroups), not given gangs that need "
                         "one: ",
                c->cl[i].name);
            first = 0;
        }
        if (!first && l < sizeof c->missing)
            l += (size_t)snprintf(c->missing + l, sizeof c->missing - l, "\n");
    }
    /* each line once, when it appears or changes (a line names its members) */
    for (const char *p = c->missing; *p;) {
        size_t n = strcspn(p, "\n");
        int seen = 0;
        for (const char *q = old; *q && !seen;) {
            size_t m = strcspn(q, "\n");
            seen = m == n && memcmp(p, q, n) == 0;
            q += m + (q[m] == '\n');
        }
        if (!seen)
            logf_(c, "running degraded: %.*s", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static void stop_maybe_done(struct ctl *c);

static void prereq_answer(int err, const struct kube_response *resp, void *ud)
{
    struct ctl *c = ud;
    c->prereq_inflight = 0;
    c->prereq_call = NULL;
    /* counted as an open handle while in flight, so a stopping controller waits for it */
    c->handles_open--;
    if (err == MUSTER_ECANCELED || c->stopping) {
        stop_maybe_done(c);
        return;
    }
    int was = c->hub_pg;
    if (err == MUSTER_ENOENT) {
        c->hub_pg = 0;
    } else if (err) {
        logf_(c, "checking the hub for the PodGroup CRD: %s (checked again in %d s)",
              resp->status.message[0] ? resp->status.message : muster_strerror(err),
              CTL_SWEEP_ORPHANS_MS / 1000);
        return;
    } else {
        json_object *rs = jobj(resp->body, "resources");
        c->hub_pg = 0;
        for (size_t i = 0; rs && json_object_is_type(rs, json_type_array) &&
                           i < json_object_array_length(rs);
             i++) {
            const char *n = jstr(json_object_array_get_idx(rs, i), "name");
            if (n && strcmp(n, "podgroups") == 0)
                c->hub_pg = 1;
        }
    }
    if (was != c->hub_pg) {
        c->cl_epoch++; /* "no cluster fits" verdicts made without it no longer hold */
        c->cycle_wanted = 1;
        c->cycle_forced = 1;
        if (c->hub_pg == 1 && was == 0)
            logf_(c, "the karmada-apiserver serves scheduling.volcano.sh/v1beta1 podgroups now");
        kick(c);
    }
    missing_refresh(c);
}

/* Discovery of the PodGroup CRD on the karmada-apiserver: a Work's manifest kind must resolve
 * there (Karmada's execution controller maps it with the hub's RESTMapper). */
static void prereq_check(struct ctl *c)
{
    if (c->prereq_inflight || c->hub_pg == 1 || c->stopping)
        return;
    c->last_prereq = now_ms(c);
    struct kube_request req = {.verb = KUBE_GET, .path = "/apis/scheduling.volcano.sh/v1beta1"};
    if (kube_request_start(c->kube, &req, prereq_answer, c, &c->prereq_call) == 0) {
        c->prereq_inflight = 1;
        c->handles_open++;
    }
}

static void orphans_sweep(struct ctl *c)
{
    prereq_check(c);
    c->last_orphan_sweep = now_ms(c);
    kube_informer_foreach(&c->works, orphan_work, c);
    kube_informer_foreach(&c->policies, orphan_policy, c);
}

static void reconcile(struct ctl *c)
{
    if (!c->leading || c->reconciled || c->stopping)
        return;
    struct live_rows l = {0};
    int rc = store_ledger_foreach_live(c->s, live_cb, &l);
    if (rc) {
        for (size_t i = 0; i < l.n; i++)
            muster_free(l.v[i].clusters);
        muster_free(l.v);
        fatal(c, "reading the live ledger");
        return;
    }
    timeouts_refresh(c);
    for (size_t i = 0; i < l.n; i++) {
        reconcile_row(c, &l.v[i]);
        muster_free(l.v[i].clusters);
    }
    muster_free(l.v);
    kube_informer_foreach(&c->rbs, reconcile_rb, c);
    c->reconciled = 1;
    c->snap_all_stale = 1; /* the rows' shares and requests were read after they were tracked */
    size_t resumed = 0, undone = 0;
    for (size_t i = 0; i < c->nbuckets; i++)
        for (const struct binding *b = c->bykey[i]; b; b = b->hnext) {
            resumed += b->st == B_ADMITTED;
            undone += b->st == B_UNDO;
        }
    logf_(c,
          "reconciled with the hub: %zu live ledger rows, %zu bindings, %u clusters; resuming %zu "
          "half-done dispatches, undoing %zu",
          l.n, c->nbindings, c->ncl, resumed, undone);
    /* Orphans are judged after this iteration's ledger writes land (the flush), at the first
     * tick. */
    c->last_orphan_sweep = 0;
    c->cycle_wanted = 1;
    c->cycle_forced = 1;
    kick(c);
}

/* ---- the loop: informers, the tick, the per-iteration flush ---- */

static void on_synced_any(struct ctl *c)
{
    c->ninformers_synced++;
    if (c->ninformers_synced == c->informers_started)
        reconcile(c);
}
static void gen_add(void *ud, json_object *o)
{
    struct inf_tag *t = ud;
    if (t->kind == 0)
        rb_upsert(t->c, o);
    else if (t->kind == 1)
        cluster_set(t->c, o);
    else if (t->kind == 2)
        work_changed(t->c, o, 0);
    else if (t->kind >= 10)
        tmpl_changed(t->c, t->kind - 10, o);
}

static void gen_update(void *ud, json_object *old, json_object *o)
{
    (void)old;
    gen_add(ud, o);
}

static void gen_delete(void *ud, json_object *o)
{
    struct inf_tag *t = ud;
    if (t->kind == 0)
        rb_gone(t->c, o);
    else if (t->kind == 1)
        cluster_remove(t->c, o);
    else if (t->kind == 2)
        work_changed(t->c, o, 1);
}

static void ctl_informer_synced(void *ud)
{
    struct inf_tag *t = ud;
    if (t->synced)
        return;
    t->synced = 1;
    on_synced_any(t->c);
}

static void ctl_informer_error(void *ud, int err, const struct kube_status *st)
{
    struct inf_tag *t = ud;
    if (err == MUSTER_ENOENT && !t->synced && t->kind >= 2) {
        /* The hub does not serve this kind (no Volcano CRDs, say): nothing of it to watch. */
        logf_(t->c, "watch %d: not served by the hub (%s); going on without it", t->kind,
              st && st->message[0] ? st->message : "404");
        ctl_informer_synced(ud);
        return;
    }
    if (t->c->opt.metrics)
        disp_metrics_watch_restart(t->c->opt.metrics, t->kind == 0   ? "resourcebindings"
                                                      : t->kind == 1 ? "clusters"
                                                                     : "other");
}

/* Why a pending binding waits, when the last cycle did not already say (NoClusterFit): the
 * engine's own admission check, which is what the next cycle meets. */
static void pending_reason(struct ctl *c, struct binding *b)
{
    if (b->st != B_PENDING || b->nofit)
        return;
    struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    struct queue_limit why;
    if (!e || queue_tree_can_admit(c->t, queue_entry_queue(e), queue_entry_request(e), &why))
        return;
    char msg[DISP_WORKLOAD_MSG_MAX];
    if (queue_limit_explain(c->t, &why, msg, sizeof msg) < 0 && !msg[0])
        snprintf(msg, sizeof msg, "does not fit its queue");
    /* The limit met at root may be the Ready fleet's capacity rather than a queue's: then no
     * cluster has room, which is no quota (the engine's sentence says "fleet: ..." exactly
     * then). */
    set_reason(b, strncmp(msg, "fleet: ", 7) == 0 ? "NoClusterFit" : "QuotaExceeded", "%s", msg);
}

static void sweep_waiting(struct ctl *c, int64_t now)
{
    if (now - c->budget_at >= 1000) {
        c->budget_at = now;
        c->condition_budget = CTL_CONDITION_WRITES_PER_S;
    }
    /* A bounded slice of the waiting list per tick, resuming where the last one stopped. */
    struct binding *b = c->sweep_cursor && c->sweep_cursor->list == 1 ? c->sweep_cursor
                                                                       : c->waiting.next;
    for (int n = 0; n < 5000 && b != &c->waiting; n++) {
        struct binding *next = b->next;
        if (b->st == B_BACKOFF && b->not_before <= now) {
            engine_add(c, b);
        } else {
            pending_reason(c, b);
            if (b->cond_dirty && c->condition_budget > 0 && b->rb && !b->gone &&
                now - b->waiting_since >= CTL_CONDITION_GRACE_MS) {
                if (send_condition(c, b))
                    c->condition_budget--;
            }
        }
        b = next;
    }
    c->sweep_cursor = b == &c->waiting ? NULL : b;
}

/* Steps due again (failed requests, the barrier's re-checks); re-arms soon for the next one
 * due before the tick. */
static void retries_run(struct ctl *c, int64_t now)
{
    int64_t next = 0;
    struct binding **p = &c->retry;
    while (*p) {
        struct binding *b = *p;
        if (b->retry_at <= now) {
            *p = b->rnext;
            b->in_retry = 0;
            b->rnext = NULL;
            if (b->gone)
                maybe_free(c, b);
            else if (b->inflight == 0) /* a rollback may have started its own steps since */
                step_run(c, b);
        } else {
            if (!next || b->retry_at < next)
                next = b->retry_at;
            p = &b->rnext;
        }
    }
    if (next)
        soon_arm(c, next);
}

static void on_soon(uv_timer_t *h)
{
    struct ctl *c = h->data;
    c->soon_at = 0;
    if (!leads(c) || !c->reconciled || c->stopping)
        return;
    retries_run(c, now_ms(c));
}

/* Runs the due retries at `at` when that is before the next tick (a barrier re-check in 20 ms
 * must not wait 200). */
static void soon_arm(struct ctl *c, int64_t at)
{
    int64_t now = now_ms(c);
    if (c->stopping || at - now >= CTL_TICK_MS || (c->soon_at && c->soon_at <= at))
        return;
    c->soon_at = at;
    uv_timer_start(&c->soon, on_soon, (uint64_t)(at > now ? at - now : 0), 0);
}

static void on_tick(uv_timer_t *h)
{
    struct ctl *c = h->data;
    if (!leads(c) || !c->reconciled || c->stopping)
        return;
    int64_t now = now_ms(c);
    retries_run(c, now);
    /* gang timeouts: a dispatched gang whose shares do not all run, and an admitted one whose
     * PodGroups never report Applied or whose barrier is never rendered, both within it */
    for (struct binding *b = c->active.next, *nx; b != &c->active; b = nx) {
        nx = b->next;
        if (b->st == B_ADMITTED && b->assign && b->needs_objects && !b->inflight &&
            !b->lw_pending && (b->step == S_APPLIED || b->step == S_BARRIER) &&
            now - b->admitted_at > queue_timeout_ms(c, b->queue)) {
            char why[448], detail[192] = "";
            int64_t s = queue_timeout_ms(c, b->queue) / 1000;
            /* The first Work that is not applied, and what the execution controller said of it
             * (Applied=False: a member without the CRD, a conflict with a leftover object). */
            for (uint32_t i = 0; b->step == S_APPLIED && i < b->nshares && !detail[0]; i++) {
                json_object *wk = own_work(c, b, b->shares[i].cluster);
                if (gang_work_applied(wk))
                    continue;
                json_object *conds = jpath(wk, "status", "conditions");
                const char *msg = NULL;
                for (size_t k = 0; conds && k < json_object_array_length(conds); k++) {
                    json_object *cd = json_object_array_get_idx(conds, k);
                    if (jstr(cd, "type") && strcmp(jstr(cd, "type"), "Applied") == 0)
                        msg = jstr(cd, "message");
                }
                snprintf(detail, sizeof detail, " (%.63s: %.90s)", b->shares[i].cluster,
                         msg ? msg : wk ? "no Applied condition yet" : "no Work");
            }
            snprintf(why, sizeof why, "%s within the gang timeout of %" PRId64 "m%02" PRId64 "s%s",
                     b->step == S_APPLIED ? "not every PodGroup Work was Applied"
                                          : "Karmada did not render every Work",
                     s / 60, s % 60, detail);
            b->step = S_NONE;
            rollback(c, b, why);
            continue;
        }
        if (b->st != B_DISPATCHED || !b->assign || b->inflight || b->lw_pending)
            continue;
        if (user_holds_dispatching(b)) {
            b->dispatched_at = now; /* the timeout counts from when the user lets it go */
            continue;
        }
        int64_t limit = queue_timeout_ms(c, b->queue);
        if (now - b->dispatched_at > limit) {
            char why[160];
            int64_t s = limit / 1000;
            snprintf(why, sizeof why, "not every share was running within the gang timeout of "
                                      "%" PRId64 "m%02" PRId64 "s",
                     s / 60, s % 60);
            rollback(c, b, why);
        }
    }
    sweep_waiting(c, now);
    if (now - c->last_orphan_sweep >= CTL_SWEEP_ORPHANS_MS && c->nlw == 0)
        orphans_sweep(c);
    c->cycle_wanted = 1;
    c->cycle_forced = 1;
    kick(c);
}

static void on_pace(uv_timer_t *h)
{
    struct ctl *c = h->data;
    c->pace_armed = 0;
    kick(c);
}

static void on_kick(uv_idle_t *h)
{
    struct ctl *c = h->data;
    uv_idle_stop(h);
    c->kick_active = 0;
    ledger_flush(c);
    /* The cycle's admissions are written by the next iteration's flush, together with
     * whatever that iteration's events decide: one transaction (one fdatasync) per iteration
     * rather than two. Nothing is sent for them before that commit. */
    if (!c->cycle_wanted || c->stopping)
        return;
    uint64_t now = uv_hrtime();
    if (now >= c->cycle_next_ns) {
        cycle(c);
    } else if (!c->pace_armed) {
        c->pace_armed = 1;
        uv_timer_start(&c->pace, on_pace, (c->cycle_next_ns - now + 999999) / 1000000, 0);
    }
}

static void kick(struct ctl *c)
{
    if (c->kick_active || c->stopping || !uv_is_active((uv_handle_t *)&c->tick))
        return;
    c->kick_active = 1;
    uv_idle_start(&c->kick, on_kick);
}

/* ---- API hooks ---- */

static const char *hook_reason(void *ud, int64_t id)
{
    struct ctl *c = ud;
    struct binding *b = queue_idmap_get(&c->byid, (uint64_t)id);
    if (!b)
        return NULL;
    if (b->st == B_PENDING && !binding_msg(b)[0])
        pending_reason(c, b);
    return binding_msg(b)[0] && b->st < B_ADMITTED ? b->msg : NULL;
}

static json_object *hook_clusters(void *ud)
{
    struct ctl *c = ud;
    json_object *arr = json_object_new_array();
    if (!arr)
        return NULL;
    cycle_snapshot(c); /* refreshes muster's reservations */
    /* replica sizes operators ask "how many more fit" about */
    static const char *const sizes[][2] = {{"1 GPU", "{\"nvidia.com/gpu\":\"1\"}"},
                                           {"8 GPUs", "{\"nvidia.com/gpu\":\"8\"}"},
                                           {"4 CPUs", "{\"cpu\":\"4\"}"}};
    for (uint32_t i = 0; i < c->ncl; i++) {
        struct cluster *k = &c->cl[i];
        json_object *o = json_object_new_object();
        if (!o)
            break;
        json_object_object_add(o, "name", json_object_new_string(k->name));
        json_object_object_add(o, "ready", json_object_new_boolean(k->ready));
        json_object *labels = jpath(k->obj, "metadata", "labels");
        json_object_object_add(o, "labels",
                               labels ? json_object_get(labels) : json_object_new_object());
        json_object_object_add(o, "capacity", disp_resvec_json(c->names, &k->capacity));
        json_object_object_add(o, "allocated", disp_resvec_json(c->names, &k->allocated));
        json_object_object_add(o, "allocating", disp_resvec_json(c->names, &k->allocating));
        json_object_object_add(o, "reserved", disp_resvec_json(c->names, &k->reserved));
        json_object_object_add(o, "free", disp_resvec_json(c->names, &k->cap.free));
        json_object *fits = json_object_new_array();
        for (size_t s = 0; fits && s < sizeof sizes / sizeof sizes[0]; s++) {
            struct queue_resvec v = {0};
            char err[64];
            if (disp_resvec_parse_text(c->names, sizes[s][1], "", &v, err, sizeof err))
                continue;
            uint64_t f = k->ready ? disp_cluster_fits(&k->cap, &v) : 0;
            json_object *fo = json_object_new_object();
            if (fo) {
                json_object_object_add(fo, "size", json_tokener_parse(sizes[s][1]));
                json_object_object_add(fo, "label", json_object_new_string(sizes[s][0]));
                json_object_object_add(fo, "replicas",
                                       json_object_new_int64(f > INT64_MAX ? -1 : (int64_t)f));
                json_object_array_add(fits, fo);
            }
            queue_resvec_close(&v);
        }
        json_object_object_add(o, "fits", fits);
        json_object_array_add(arr, o);
    }
    return arr;
}

static const char *hook_degraded(void *ud)
{
    struct ctl *c = ud;
    return c->missing[0] ? c->missing : NULL;
}

static int hook_leading(void *ud)
{
    return ((struct ctl *)ud)->leading;
}

static int hook_synced(void *ud)
{
    return ((struct ctl *)ud)->reconciled;
}

static void hook_queues_changed(void *ud, const char *name)
{
    struct ctl *c = ud;
    (void)name;
    timeouts_refresh(c);
    /* Each binding waiting now is visited once: one that stays parked goes back to the tail
     * (set_state), so walking to the end would meet it again, and again. */
    struct binding *last = c->waiting.prev;
    for (struct binding *b = c->waiting.next, *nx; b != &c->waiting; b = nx) {
        nx = b->next;
        int end = b == last;
        if (b->st == B_PARKED)
            binding_react(c, b, 0);
        if (end)
            break;
    }
    c->cycle_wanted = 1;
    c->cycle_forced = 1;
    kick(c);
}

void ctl_api_hooks(struct ctl *c, struct api_dispatcher *out)
{
    *out = (struct api_dispatcher){.ud = c,
                                   .binding_reason = hook_reason,
                                   .clusters = hook_clusters,
                                   .hub_synced = hook_synced,
                                   .queues_changed = hook_queues_changed,
                                   .leading = hook_leading,
                                   .degraded = hook_degraded};
}

/* ---- life ---- */

int ctl_new(uv_loop_t *loop, struct kube_client *kube, struct store *s, struct queue_tree *t,
            const struct ctl_options *opt, struct ctl **out)
{
    *out = NULL;
    if (!loop || !kube || !s || !t)
        return MUSTER_EINVAL;
    struct ctl *c = muster_calloc(1, sizeof(*c));
    if (!c)
        return MUSTER_ENOMEM;
    c->loop = loop;
    c->kube = kube;
    c->s = s;
    c->t = t;
    c->names = queue_tree_resnames(t);
    if (opt)
        c->opt = *opt;
    c->log = c->opt.log ? c->opt.log : stderr;
    snprintf(c->scheduler, sizeof c->scheduler, "%s",
             c->opt.scheduler_name ? c->opt.scheduler_name : CTL_SCHEDULER_NAME_DEFAULT);
    snprintf(c->pod_scheduler, sizeof c->pod_scheduler, "%s",
             c->opt.pod_scheduler ? c->opt.pod_scheduler : CTL_POD_SCHEDULER_DEFAULT);
    c->waiting.next = c->waiting.prev = &c->waiting;
    c->active.next = c->active.prev = &c->active;
    c->leading = 1;
    c->cl_epoch = 1;
    queue_idmap_init(&c->byid);
    queue_idmap_init(&c->byseq);
    if (tables_grow(c) || disp_workload_init(&c->w)) {
        ctl_free(c);
        return MUSTER_ENOMEM;
    }
    uv_timer_init(loop, &c->tick);
    uv_idle_init(loop, &c->kick);
    uv_timer_init(loop, &c->pace);
    uv_timer_init(loop, &c->soon);
    c->tick.data = c->kick.data = c->pace.data = c->soon.data = c;
    c->handles_open = 4;
    c->hub_pg = -1;
    *out = c;
    return 0;
}

/* What the informers cache (docs/dispatcher.md, "What it watches"): templates pruned to what
 * the workload reader and the gang objects read, RBs without what nothing reads; the rest as
 * they come. Every cached object is also compacted by the informer. */
static json_object *ctl_transform(void *ud, json_object *obj)
{
    const struct inf_tag *t = ud;
    if (t->kind == 0)
        return disp_workload_prune_binding(obj);
    if (t->kind >= 10)
        return disp_workload_prune_template(obj);
    return json_object_get(obj);
}

static int start_informer(struct ctl *c, struct kube_informer *inf, int kind, const char *group,
                          const char *version, const char *resource, const char *selector)
{
    char path[512];
    int rc = kube_path(path, sizeof path, group, version, NULL, resource, NULL);
    if (rc)
        return rc;
    struct inf_tag *tag = &c->tags[c->informers_started];
    *tag = (struct inf_tag){c, kind, 0};
    /* muster reads only the metadata of its OverridePolicies (the orphan sweep): watched as
     * PartialObjectMetadata, as client-go's metadata informers do. Its PodGroup Works are
     * watched whole: they are small, and their status (Applied, the member PodGroup's phase)
     * is what the protocol waits for. */
    struct kube_reflector_opts ro = {
        .path = path, .label_selector = selector, .metadata_only = kind == 3};
    static const struct kube_informer_handler h = {gen_add, gen_update, gen_delete,
                                                   ctl_informer_synced, ctl_informer_error};
    rc = kube_informer_init(inf, c->loop, c->kube, &ro, &h, tag);
    if (rc)
        return rc;
    kube_informer_set_transform(inf, ctl_transform);
    c->informers_open++;
    c->informers_started++;
    return kube_informer_start(inf);
}

int ctl_start(struct ctl *c)
{
    static const char managed[] = GANG_MANAGED_BY_LABEL "=" GANG_MANAGED_BY_VALUE;
    int rc = start_informer(c, &c->rbs, 0, "work.karmada.io", "v1alpha2", "resourcebindings",
                            NULL);
    if (!rc)
        rc = start_informer(c, &c->clusters, 1, "cluster.karmada.io", "v1alpha1", "clusters",
                            NULL);
    if (!rc)
        rc = start_informer(c, &c->works, 2, "work.karmada.io", "v1alpha1", "works", managed);
    if (!rc)
        rc = start_informer(c, &c->policies, 3, "policy.karmada.io", "v1alpha1",
                            "overridepolicies", managed);
    if (!rc)
        rc = start_informer(c, &c->prios, 4, "scheduling.k8s.io", "v1", "priorityclasses", NULL);
    if (!rc)
        rc = start_informer(c, &c->tmpl[0], 10, "apps", "v1", "deployments", NULL);
    if (!rc)
        rc = start_informer(c, &c->tmpl[1], 11, "batch", "v1", "jobs", NULL);
    if (!rc)
        rc = start_informer(c, &c->tmpl[2], 12, "batch.volcano.sh", "v1alpha1", "jobs", NULL);
    if (!rc)
        rc = start_informer(c, &c->tmpl[3], 13, "", "v1", "pods", NULL);
    if (rc)
        return rc;
    prereq_check(c);
    uv_timer_start(&c->tick, on_tick, CTL_TICK_MS, CTL_TICK_MS);
    return 0;
}

void ctl_set_leading(struct ctl *c, int leading)
{
    c->leading = leading;
    if (leading && !c->reconciled && c->informers_started &&
        c->ninformers_synced == c->informers_started)
        reconcile(c);
}

int ctl_synced(const struct ctl *c)
{
    return c->reconciled;
}

void ctl_get_stats(const struct ctl *c, struct ctl_stats *out)
{
    *out = c->st;
    out->pending = out->parked = out->inflight = 0;
    for (const struct binding *b = c->waiting.next; b != &c->waiting; b = b->next) {
        out->pending += b->st == B_PENDING || b->st == B_BACKOFF;
        out->parked += b->st == B_PARKED || b->st == B_WAIT_TEMPLATE;
    }
    for (const struct binding *b = c->active.next; b != &c->active; b = b->next)
        out->inflight += b->st == B_ADMITTED;
}

static void on_handle_closed(uv_handle_t *h)
{
    struct ctl *c = h->data;
    c->handles_open--;
    stop_maybe_done(c);
}

static void on_informer_closed(struct kube_informer *inf)
{
    struct inf_tag *t = inf->ud;
    t->c->informers_open--;
    stop_maybe_done(t->c);
}

static void stop_maybe_done(struct ctl *c)
{
    if (c->handles_open || c->informers_open || !c->stop_cb)
        return;
    void (*cb)(void *) = c->stop_cb;
    c->stop_cb = NULL;
    cb(c->stop_ud);
}

static uint64_t inflight_total(const struct ctl *c)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->nbuckets; i++)
        for (const struct binding *b = c->bykey[i]; b; b = b->hnext)
            n += (uint64_t)(b->inflight + b->side_inflight);
    return n;
}

struct drain {
    struct ctl *c;
    uv_timer_t timer;
    uint64_t deadline;
};

static void drain_closed(uv_handle_t *h)
{
    struct drain *d = h->data;
    struct ctl *c = d->c;
    muster_free(d);
    ledger_flush(c);
    uv_close((uv_handle_t *)&c->tick, on_handle_closed);
    uv_close((uv_handle_t *)&c->kick, on_handle_closed);
    uv_close((uv_handle_t *)&c->pace, on_handle_closed);
    uv_close((uv_handle_t *)&c->soon, on_handle_closed);
    if (c->prereq_call)
        kube_call_cancel(c->prereq_call);
    struct kube_informer *all[] = {&c->rbs,     &c->clusters, &c->works,   &c->policies,
                                   &c->prios,   &c->tmpl[0],  &c->tmpl[1], &c->tmpl[2],
                                   &c->tmpl[3]};
    for (int i = 0; i < c->informers_started; i++)
        kube_informer_close(all[i], on_informer_closed);
    stop_maybe_done(c);
}

static void on_drain(uv_timer_t *h)
{
    struct drain *d = h->data;
    if (inflight_total(d->c) == 0 || uv_now(d->c->loop) >= d->deadline) {
        uv_timer_stop(h);
        uv_close((uv_handle_t *)h, drain_closed);
    }
}

void ctl_stop(struct ctl *c, uint64_t timeout_ms, void (*cb)(void *ud), void *ud)
{
    c->stop_cb = cb;
    c->stop_ud = ud;
    /* what was decided is written; nothing new is decided */
    ledger_flush(c);
    c->stopping = 1;
    uv_timer_stop(&c->tick);
    uv_timer_stop(&c->soon);
    uv_idle_stop(&c->kick);
    struct drain *d = muster_calloc(1, sizeof(*d));
    if (!d) {
        timeout_ms = 0;
    } else {
        d->c = c;
        d->deadline = uv_now(c->loop) + timeout_ms;
        uv_timer_init(c->loop, &d->timer);
        d->timer.data = d;
        uv_timer_start(&d->timer, on_drain, 0, 10);
    }
}

void ctl_free(struct ctl *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nbuckets; i++) {
        for (struct binding *b = c->bykey[i], *nx; b; b = nx) {
            nx = b->hnext;
            json_object_put(b->rb);
            json_object_put(b->tmpl);
            json_object_put(b->reply);
            json_object_put(b->fresh);
            binding_clear_read(b);
            muster_free(b->shares);
            if (b->tkey != tkey_none)
                muster_free(b->tkey);
            muster_free(b->msg);
            muster_free(b);
        }
    }
    for (uint32_t i = 0; i < c->ncl; i++)
        cluster_close(&c->cl[i]);
    muster_free(c->cl);
    for (size_t i = 0; i < c->nlw; i++)
        muster_free(c->lw[i].request);
    muster_free(c->lw);
    muster_free(c->bykey);
    muster_free(c->bytkey);
    muster_free(c->qt);
    queue_idmap_close(&c->byid);
    queue_idmap_close(&c->byseq);
    queue_resvec_close(&c->scratch);
    queue_resvec_close(&c->fleet);
    queue_resvec_close(&c->nl.req);
    disp_workload_close(&c->w);
    muster_free(c);
}
