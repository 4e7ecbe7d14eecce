/* After dispatch: following each share through the Works and the RB's aggregated status,
 * the gang timeout, release and rollback. */
#include "dispatcher/controller/ctl_int.h"

/* What a rollback is counted as (muster_rollbacks_total{reason}). */
#define ROLLBACK_TIMEOUT "gang-timeout"
#define ROLLBACK_BARRIER "barrier-vanished"
#define ROLLBACK_EXTERNAL "placement-changed"
#define ROLLBACK_LOST "cluster-lost"
/* Not a failure of the gang: counted apart, and out of the events' rollbacks per minute. */
#define ROLLBACK_PREEMPTED "preempted"

static void rollback_ex(struct ctl *c, struct binding *b, const char *why, const char *metric,
                        const char *waiting);

void ctl__engine_forget(struct ctl *c, struct binding *b)
{
    struct queue_entry *e = b->ledger_id ? queue_tree_entry(c->t, (uint64_t)b->ledger_id) : NULL;
    if (e)
        queue_entry_remove(c->t, e);
    ctl__grow_cancel(c, b); /* a waiting delta ends with the gang's admission */
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
}

/* The workload finished or its RB went: the row is released, the queue's usage with it. */
void ctl__release(struct ctl *c, struct binding *b, const char *why)
{
    if (!b->ledger_id) {
        ctl__set_state(c, b, B_DONE);
        return;
    }
    int had_objects = b->st >= B_ADMITTED && b->assign && b->needs_objects;
    if (b->pg && b->pg->lead == b && b->pg_folded && (b->st == B_ADMITTED || b->st == B_UNDO)) {
        ctl__pg_abandon(c, b, why); /* the gang never ran: its members undo and wait again */
    } else if (b->pg && b->pg->lead == b && b->st >= B_ADMITTED) {
        ctl__pg_mirror(c, b, B_DONE, "released", why); /* the gang's usage goes with its lead */
        b->pg->lead = NULL;
        b->pg->nin = 0;
        b->pg_folded = 0;
    } else if (b->pg)
        ctl__pg_leave(c, b, why);
    ctl__engine_forget(c, b);
    struct lwrite *w = ctl__lw_add(c, b, LW_RELEASE, "released");
    if (!w) {
        ctl__fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    snprintf(w->reason, sizeof w->reason, "%s", why);
    w->row.reason = w->reason;
    queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    c->st.released++;
    if (c->opt.metrics)
        disp_metrics_release(c->opt.metrics, why);
    ctl__publish_binding(c, b, "released", why);
    b->needs_objects = had_objects; /* the flush deletes the Works only if some were made */
    ctl__set_state(c, b, B_DONE);
    ctl__kick(c);
}

void ctl__rollback(struct ctl *c, struct binding *b, const char *why)
{
    rollback_ex(c, b, why, strstr(why, "barrier") ? ROLLBACK_BARRIER : ROLLBACK_TIMEOUT, NULL);
}

/* A cluster lost under the gang, and its queue's onClusterLoss requeues it (loss.c): rolled
 * back as any rollback, but losing a cluster is not the gang's fault, so it is requeued without
 * back-off and its attempt is not counted; it keeps its place in line (created_at) as every
 * requeue does. why goes into the rolledback row, waiting into the new pending row and the
 * condition while it waits; loss (owned, the ledger's loss record, may be NULL) goes into the
 * rolledback row. */
void ctl__rollback_lost(struct ctl *c, struct binding *b, const char *why, const char *waiting,
                        char *loss)
{
    size_t at = c->lw.n; /* rollback_ex's writes: the rolledback row, the pending one */
    rollback_ex(c, b, why, ROLLBACK_LOST, waiting);
    if (c->lw.n == at + 2 && c->lw.v[at].b == b && c->lw.v[at].kind == LW_LOSS_OLD) {
        /* both carry it: the pending one so that a restart still says why it waits */
        c->lw.v[at + 1].loss = loss ? muster_strdup(loss) : NULL;
        c->lw.v[at].loss = loss;
    } else {
        muster_free(loss);
    }
}

/* A running gang preempted (reclaim.c): the undo and requeue of a lost cluster's Requeue (no
 * back-off, its place in line kept, its attempt not counted, no loss record), counted as
 * muster_rollbacks_total{reason="preempted"} and not among the events' failed rollbacks. */
void ctl__rollback_preempted(struct ctl *c, struct binding *b, const char *why)
{
    rollback_ex(c, b, why, ROLLBACK_PREEMPTED, why);
}

/* waiting: NULL for a failure of the gang (back-off, attempt + 1); a loss's sentence for a
 * cluster lost (no back-off). */
static void rollback_ex(struct ctl *c, struct binding *b, const char *why, const char *metric,
                        const char *waiting)
{
    int64_t now = now_ms(c);
    ctl__elastic_whole(b); /* requeued, it asks for the whole again (and its minimum after) */
    ctl__engine_forget(c, b);
    struct lwrite *w = ctl__lw_add(c, b, waiting ? LW_LOSS_OLD : LW_ROLLBACK_OLD, "rolledback");
    if (!w) {
        ctl__fatal(c, "out of memory");
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
        b->user_dispatching = ctl__rb_dispatching(ctl__rb(c, b));
    b->barrier = 1;
    uint64_t back = c->opt.backoff_initial_ms ? c->opt.backoff_initial_ms : CTL_BACKOFF_INITIAL_MS;
    uint64_t max = c->opt.backoff_max_ms ? c->opt.backoff_max_ms : CTL_BACKOFF_MAX_MS;
    for (int64_t i = 0; i < b->attempt && back < max; i++)
        back *= 2;
    if (back > max)
        back = max;
    if (waiting) {
        /* Due at once; and not 0, which start-up reconciliation reads as "never rolled back"
         * (a pending row over a lifted placement is then adopted, not undone). */
        b->not_before = now;
        ctl__set_reason(b, "Unschedulable", "%s", waiting);
    } else {
        b->attempt++;
        b->not_before = now + (int64_t)back;
        ctl__set_reason(b, "Unschedulable",
                        "rolled back (attempt %" PRId64 "): %s; queued again, not "
                        "before %" PRId64 " s from the rollback",
                        b->attempt, why, (int64_t)(back / 1000));
    }
    struct lwrite *n = ctl__lw_add(c, b, LW_ROLLBACK_NEW, "pending");
    if (!n || ctl__lw_fill_new(c, n, b)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    if (waiting) {
        snprintf(n->reason, sizeof n->reason, "%s", waiting);
        n->row.reason = n->reason;
    }
    n->row.barrier = 1;
    n->row.user_dispatching = b->user_dispatching;
    ctl__pg_mirror(c, b, B_PENDING, "pending", why); /* its members wait with it */
    ctl__set_state(c, b, B_UNDO);
    b->step = S_NONE;
    c->st.rolled_back++;
    if (c->opt.metrics) {
        disp_metrics_rollback(c->opt.metrics, metric);
        disp_metrics_requeue(c->opt.metrics);
    }
    if (c->opt.events && strcmp(metric, ROLLBACK_PREEMPTED) != 0)
        disp_events_record_rollback(c->opt.events, now);
    ctl__publish_binding(c, b, "rolledback", why);
    ctl__notice(c, "warning", "%s rolled back: %s", b->key, why);
}

static json_object *agg_entry(json_object *rb, const char *cluster)
{
    json_object *agg = kube_json_path(rb, "status", "aggregatedStatus", NULL);
    for (size_t i = 0; agg && i < json_object_array_length(agg); i++) {
        json_object *e = json_object_array_get_idx(agg, i);
        const char *n = kube_json_str(e, "clusterName");
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
static int share_running(enum karmada_workload_kind kind, json_object *e)
{
    if (!e)
        return 0;
    if (kind == KARMADA_WORKLOAD_KIND_VCJOB) {
        const char *ph = kube_json_str(kube_json_path(e, "status", "state", NULL), "phase");
        return ph && (strcmp(ph, "Running") == 0 || strcmp(ph, "Completing") == 0 ||
                      strcmp(ph, "Completed") == 0);
    }
    const char *h = kube_json_str(e, "health");
    return kube_json_bool(e, "applied") == 1 && h && strcmp(h, "Healthy") == 0;
}

/* status.conditions holds a True condition of type done or failed. */
static int cond_final(json_object *st, const char *done, const char *failed)
{
    json_object *conds = kube_json_get(st, "conditions");
    for (size_t i = 0;
         json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds); i++) {
        json_object *cd = json_object_array_get_idx(conds, i);
        const char *t = kube_json_str(cd, "type"), *s = kube_json_str(cd, "status");
        if (t && s && strcmp(s, "True") == 0 && (strcmp(t, done) == 0 || strcmp(t, failed) == 0))
            return 1;
    }
    return 0;
}

/* The member object's status says it is finished (succeeded or failed for good): a Job only
 * on its Complete or Failed condition (succeeded counts pods, and a share's parallelism is not
 * its completions), a Volcano Job on a final phase, a Pod on Succeeded or Failed; issue 19's
 * batch kinds as their controllers finish them: a JobSet's Completed or Failed condition
 * (jobset api/jobset/v1alpha2 JobSetCompleted, JobSetFailed), a Kubeflow v1 job's Succeeded or
 * Failed (training-operator common_types.go JobSucceeded, JobFailed), a RayJob's
 * jobDeploymentStatus Complete or Failed (kuberay rayjob_types.go), a TrainJob's Complete or
 * Failed (trainer trainjob_types.go). Karmada reflects their whole
 * status (no statusReflection in their customizations). A LeaderWorkerSet or RayCluster, like a
 * Deployment, never finishes. */
static int share_finished(enum karmada_workload_kind kind, json_object *e)
{
    json_object *st = kube_json_get(e, "status");
    if (!st)
        return 0;
    switch (kind) {
    case KARMADA_WORKLOAD_KIND_JOB:
        return cond_final(st, "Complete", "Failed");
    case KARMADA_WORKLOAD_KIND_JOBSET:
        return cond_final(st, "Completed", "Failed");
    case KARMADA_WORKLOAD_KIND_PYTORCHJOB:
    case KARMADA_WORKLOAD_KIND_MPIJOB:
        return cond_final(st, "Succeeded", "Failed");
    case KARMADA_WORKLOAD_KIND_TRAINJOB: /* trainjob_types.go TrainJobComplete, TrainJobFailed */
        return cond_final(st, "Complete", "Failed");
    case KARMADA_WORKLOAD_KIND_RAYJOB: {
        const char *d = kube_json_str(st, "jobDeploymentStatus");
        return d && (strcmp(d, "Complete") == 0 || strcmp(d, "Failed") == 0);
    }
    case KARMADA_WORKLOAD_KIND_VCJOB: {
        const char *ph = kube_json_str(kube_json_get(st, "state"), "phase");
        return ph && (strcmp(ph, "Completed") == 0 || strcmp(ph, "Failed") == 0 ||
                      strcmp(ph, "Aborted") == 0 || strcmp(ph, "Terminated") == 0);
    }
    case KARMADA_WORKLOAD_KIND_POD: {
        const char *ph = kube_json_str(st, "phase");
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
    const char *ph = karmada_gang_work_podgroup_phase(ctl__own_work(c, b, cluster));
    return ph && strcmp(ph, "Running") == 0;
}

/* An RB event older than the answer to muster's last spec.clusters rewrite of a shrunk gang
 * (the watch may bring it after the answer): it still shows the old placement, which is no
 * one else's change. */
int ctl__rb_older_than_resize(struct ctl *c, const struct binding *b)
{
    const char *rv = kube_json_str(kube_json_get(ctl__rb_of(c, b), "metadata"), "resourceVersion");
    return ctl__act(b)->resize_rv && rv && strtoll(rv, NULL, 10) < ctl__act(b)->resize_rv;
}

/* Someone else changed a dispatched RB's placement in a way no lost cluster explains (loss.c
 * judges evictions from muster's clusters, by gracefulEvictionTasks or a cluster dropped from
 * spec.clusters, first): a cluster added, or a share's replicas rewritten (the descheduler, a
 * person). An eviction task from a cluster muster no longer uses (one a Replace moved away
 * from) is no change. Judged only on an RB read after muster's lift (scheduling not
 * suspended), so muster's own patches, which the watch may bring after their answers, are
 * never taken for someone else's. Writes what changed into why. */
static int placement_changed(struct ctl *c, const struct binding *b, char *why, size_t cap)
{
    json_object *susp = kube_json_path(ctl__rb_of(c, b), "spec", "suspension", NULL);
    if (kube_json_bool(susp, "scheduling") == 1)
        return 0;
    /* The cached RB may be older than muster's own shrink when something else calls for a
     * look (a PodGroup Work's status moving with the new minMember comes before the RB's event
     * often enough): that is not someone else's change either. */
    if (ctl__rb_older_than_resize(c, b))
        return 0;
    json_object *cl = kube_json_path(ctl__rb_of(c, b), "spec", "clusters", NULL);
    size_t n = cl && json_object_is_type(cl, json_type_array) ? json_object_array_length(cl) : 0;
    int same = n == b->nshares;
    for (size_t i = 0; same && i < n; i++) {
        json_object *e = json_object_array_get_idx(cl, i);
        const char *name = kube_json_str(e, "name");
        json_object *r = kube_json_get(e, "replicas");
        int32_t rep = r ? json_object_get_int(r) : 0;
        int found = 0;
        /* a pod group's lead holds the gang's pods; its own RB carries its own (podgroup.c) */
        for (uint32_t j = 0; name && j < b->nshares && !found; j++)
            found = strcmp(b->shares[j].cluster, name) == 0 &&
                    (b->pg_folded ? b->pg_own_replicas : b->shares[j].replicas) == rep;
        same = found;
    }
    if (!same)
        snprintf(why, cap,
                 "its spec.clusters was changed by someone else (%zu cluster(s) where "
                 "muster placed %" PRIu32 ")",
                 n, b->nshares);
    return !same;
}

void ctl__check_progress(struct ctl *c, struct binding *b)
{
    if (b->st != B_DISPATCHED && b->st != B_RUNNING)
        return;
    /* An RB that cannot be read back (a running gang holds no tree: cool.c; its thaw failed) is
     * no evidence of anything: an empty read would look like a placement taken away. Its
     * deletion is known by b->gone (ctl__rb_gone), not by this. */
    if (!ctl__rb(c, b))
        return;
    if (ctl__act(b)->loss && b->act->loss->replace_wanted)
        return; /* the next cycle decides */
    if (ctl__loss_check(c, b))
        return;
    if (b->assign && b->step == S_NONE && b->inflight == 0 && !b->lw_pending && !b->rb_behind) {
        char why[200];
        if (placement_changed(c, b, why, sizeof why)) {
            rollback_ex(c, b, why, ROLLBACK_EXTERNAL, NULL);
            return;
        }
    }
    json_object *agg = kube_json_path(ctl__rb(c, b), "status", "aggregatedStatus", NULL);
    size_t nagg = agg ? json_object_array_length(agg) : 0;
    int all_running = 1, all_done = 1, any = 0;
    if (b->assign) {
        for (uint32_t i = 0; i < b->nshares; i++) {
            json_object *e = agg_entry(ctl__rb(c, b), b->shares[i].cluster);
            /* a YuniKorn or none member has no PodGroup to read: its share runs as the
             * aggregated status says, as for a kind without PodGroup Works */
            int run = b->needs_objects && karmada_gang_dialect_has_work(
                                              ctl__cluster_dialect(c, b->shares[i].cluster, NULL))
                          ? share_gang_running(c, b, b->shares[i].cluster)
                          : share_running(b->kind, e);
            int done = share_finished(b->kind, e);
            if ((run || done) && !b->shares[i].running) {
                struct cluster *k = ctl__cluster_find(c, b->shares[i].cluster);
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
    if (b->pg_folded && b->pg && b->pg->lead == b) {
        /* a pod group: done when every member's Pod is (a member whose RB went counts) */
        for (uint32_t i = 0; i < b->pg->nin && all_done; i++) {
            struct binding *m = b->pg->in[i];
            if (m == b || m->gone || m->st == B_DONE)
                continue;
            int done = 0;
            for (uint32_t j = 0; j < b->nshares; j++)
                done |= share_finished(m->kind, agg_entry(ctl__rb(c, m), b->shares[j].cluster));
            all_done &= done;
        }
    }
    if (all_done && b->kind != KARMADA_WORKLOAD_KIND_DEPLOYMENT &&
        b->kind != KARMADA_WORKLOAD_KIND_STATEFULSET && b->kind != KARMADA_WORKLOAD_KIND_LWS &&
        b->kind != KARMADA_WORKLOAD_KIND_RAYCLUSTER) {
        ctl__release(c, b, "completed");
        return;
    }
    if (all_running && b->st == B_DISPATCHED) {
        ctl__set_state(c, b, B_RUNNING);
        ctl__reclaim_record(c, b); /* a victim the search may choose from now on */
        struct lwrite *w = ctl__lw_add(c, b, LW_RUNNING, "running");
        if (!w) {
            ctl__fatal(c, "out of memory");
            return;
        }
        w->row.id = b->ledger_id;
        ctl__pg_mirror(c, b, B_RUNNING, "running", "");
        c->st.running++;
        ctl__publish_binding(c, b, "running", "");
    }
}

static int qt_cb(void *ud, const struct store_queue *q)
{
    struct ctl *c = ud;
    if (c->qt.n == c->qt.cap) {
        size_t cap = c->qt.cap ? c->qt.cap * 2 : 64;
        struct qtimeout *n = muster_realloc(c->qt.v, cap * sizeof(*n));
        if (!n)
            return MUSTER_ENOMEM;
        c->qt.v = n;
        c->qt.cap = cap;
    }
    snprintf(c->qt.v[c->qt.n].name, sizeof c->qt.v[c->qt.n].name, "%s", q->name);
    c->qt.v[c->qt.n++].ms = q->gang_timeout_ms;
    return 0;
}

void ctl__timeouts_refresh(struct ctl *c)
{
    c->qt.n = 0;
    if (store_queue_foreach(c->s, qt_cb, c))
        ctl__logf(c, "reading the queues' gang timeouts: %s", store_errmsg(c->s));
}

int64_t ctl__queue_timeout_ms(struct ctl *c, const char *queue)
{
    for (size_t i = 0; i < c->qt.n; i++)
        if (strcmp(c->qt.v[i].name, queue) == 0)
            return c->qt.v[i].ms;
    return 300000;
}
