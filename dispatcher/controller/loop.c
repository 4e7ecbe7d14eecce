/* The loop: the informers' callbacks, the tick, the retries, and the per-iteration flush of
 * the cycle and the ledger. */
#include "dispatcher/controller/ctl_int.h"

static void on_synced_any(struct ctl *c)
{
    c->watch.nsynced++;
    if (c->watch.nsynced == c->watch.started)
        ctl__reconcile(c);
}

static void rb_set(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__rb_upsert(c, o);
}

static void rb_unset(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__rb_gone(c, o);
}

static void cluster_set(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__cluster_set(c, o);
}

static void cluster_unset(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__cluster_remove(c, o);
}

static void work_set(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__work_changed(c, o, 0);
}

static void work_unset(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__work_changed(c, o, 1);
}

/* A template's add or update: its binding reads it again. A template's delete is followed
 * through its RB (Karmada deletes the RB with it). */
static void tmpl_set(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__tmpl_changed(c, w->tmpl, o);
}

static void namespace_set(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__namespace_changed(c, o);
}

/* A hub Workload's add, update or delete: the JobSet its controllerRef names reads again. */
static void hubwl_set(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    (void)w;
    ctl__hubwl_changed(c, o);
}

/* A hub PodGroup's add, update or delete: the bindings whose pods name it read again. */
static void hubpg_set(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__hubpg_changed(c,
                       w == &ctl__watches[CTL_W_VCPODGROUPS] ? KARMADA_WORKLOAD_DIALECT_VOLCANO
                       : w == &ctl__watches[CTL_W_COSCHEDPODGROUPS]
                           ? KARMADA_WORKLOAD_DIALECT_COSCHEDULING
                           : KARMADA_WORKLOAD_DIALECT_WORKLOAD_API,
                       o);
}

static json_object *keep_whole(json_object *obj)
{
    return json_object_get(obj);
}

/* A TrainJob runtime's add, update or delete: the TrainJobs that name it read again. */
static void hubrt_set(struct ctl *c, const struct ctl_watch *w, json_object *o)
{
    ctl__hubrt_changed(c, w == &ctl__watches[CTL_W_CLUSTERTRAININGRUNTIMES], o);
}

/* What the controller watches (docs/dispatcher.md, "What it watches"), one row per informer:
 * where it lists, what it caches of each object (templates pruned to what the workload reader
 * and the gang objects read, RBs without what nothing reads; every cached object is also
 * compacted by the informer), and what its events do. muster reads only the metadata of its
 * OverridePolicies (the orphan sweep): watched as PartialObjectMetadata, as client-go's
 * metadata informers do. Its PodGroup Works are watched whole, as their status (Applied, the
 * member PodGroup's phase) is what the protocol waits for, and cached without what muster never
 * reads of them (karmada_workload_prune_work). */
const struct ctl_watch ctl__watches[CTL_NWATCHES] = {
    [CTL_W_RBS] = {"resourcebindings", "work.karmada.io", "v1alpha2", "resourcebindings",
                   offsetof(struct ctl, rbs), 0, 0, 0, -1, karmada_workload_prune_binding, rb_set,
                   rb_unset},
    [CTL_W_CLUSTERS] = {"clusters", "cluster.karmada.io", "v1alpha1", "clusters",
                        offsetof(struct ctl, clusters), 0, 0, 0, -1, keep_whole, cluster_set,
                        cluster_unset},
    [CTL_W_WORKS] = {"other", "work.karmada.io", "v1alpha1", "works", offsetof(struct ctl, works),
                     1, 0, 1, -1, karmada_workload_prune_work, work_set, work_unset},
    [CTL_W_POLICIES] = {"other", "policy.karmada.io", "v1alpha1", "overridepolicies",
                        offsetof(struct ctl, policies), 1, 1, 1, -1, keep_whole, NULL, NULL},
    [CTL_W_PRIOS] = {"other", "scheduling.k8s.io", "v1", "priorityclasses",
                     offsetof(struct ctl, prios), 0, 0, 1, -1, keep_whole, NULL, NULL},
    [CTL_W_DEPLOYMENTS] = {"other", "apps", "v1", "deployments", offsetof(struct ctl, tmpl[0]), 0,
                           0, 1, 0, karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_JOBS] = {"other", "batch", "v1", "jobs", offsetof(struct ctl, tmpl[1]), 0, 0, 1, 1,
                    karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_VCJOBS] = {"other", "batch.volcano.sh", "v1alpha1", "jobs",
                      offsetof(struct ctl, tmpl[2]), 0, 0, 1, 2, karmada_workload_prune_template,
                      tmpl_set, NULL},
    [CTL_W_PODS] = {"other", "", "v1", "pods", offsetof(struct ctl, tmpl[3]), 0, 0, 1, 3,
                    karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_STATEFULSETS] = {"other", "apps", "v1", "statefulsets", offsetof(struct ctl, tmpl[4]), 0,
                            0, 1, 4, karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_JOBSETS] = {"other", "jobset.x-k8s.io", "v1alpha2", "jobsets",
                       offsetof(struct ctl, tmpl[5]), 0, 0, 1, 5, karmada_workload_prune_template,
                       tmpl_set, NULL},
    [CTL_W_LWS] = {"other", "leaderworkerset.x-k8s.io", "v1", "leaderworkersets",
                   offsetof(struct ctl, tmpl[6]), 0, 0, 1, 6, karmada_workload_prune_template,
                   tmpl_set, NULL},
    [CTL_W_PYTORCHJOBS] = {"other", "kubeflow.org", "v1", "pytorchjobs",
                           offsetof(struct ctl, tmpl[7]), 0, 0, 1, 7,
                           karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_MPIJOBS] = {"other", "kubeflow.org", "v1", "mpijobs", offsetof(struct ctl, tmpl[8]), 0,
                       0, 1, 8, karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_RAYCLUSTERS] = {"other", "ray.io", "v1", "rayclusters", offsetof(struct ctl, tmpl[9]), 0,
                           0, 1, 9, karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_RAYJOBS] = {"other", "ray.io", "v1", "rayjobs", offsetof(struct ctl, tmpl[10]), 0, 0, 1,
                       10, karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_NAMESPACES] = {"other", "", "v1", "namespaces", offsetof(struct ctl, namespaces), 0, 0,
                          0, -1, ctl__namespace_prune, namespace_set, namespace_set},
    [CTL_W_VCPODGROUPS] = {"other", "scheduling.volcano.sh", "v1beta1", "podgroups",
                           offsetof(struct ctl, hub_pgs[0]), 0, 0, 1, -1, keep_whole, hubpg_set,
                           hubpg_set},
    [CTL_W_COSCHEDPODGROUPS] = {"other", "scheduling.x-k8s.io", "v1alpha1", "podgroups",
                                offsetof(struct ctl, hub_pgs[1]), 0, 0, 1, -1, keep_whole,
                                hubpg_set, hubpg_set},
    [CTL_W_WLPODGROUPS] = {"other", "scheduling.k8s.io", "v1alpha2", "podgroups",
                           offsetof(struct ctl, hub_pgs[2]), 0, 0, 1, -1, keep_whole, hubpg_set,
                           hubpg_set},
    [CTL_W_TRAINJOBS] = {"other", "trainer.kubeflow.org", "v1alpha1", "trainjobs",
                         offsetof(struct ctl, tmpl[11]), 0, 0, 1, 11,
                         karmada_workload_prune_template, tmpl_set, NULL},
    [CTL_W_TRAININGRUNTIMES] = {"other", "trainer.kubeflow.org", "v1alpha1", "trainingruntimes",
                                offsetof(struct ctl, runtimes[0]), 0, 0, 1, -1, keep_whole,
                                hubrt_set, hubrt_set},
    [CTL_W_CLUSTERTRAININGRUNTIMES] = {"other", "trainer.kubeflow.org", "v1alpha1",
                                       "clustertrainingruntimes", offsetof(struct ctl, runtimes[1]),
                                       0, 0, 1, -1, keep_whole, hubrt_set, hubrt_set},
    [CTL_W_WLPODGROUPS_V1BETA1] = {"other", "scheduling.k8s.io", "v1beta1", "podgroups",
                                   offsetof(struct ctl, hub_wlpgs_v1beta1), 0, 0, 1, -1, keep_whole,
                                   hubpg_set, hubpg_set},
    [CTL_W_WORKLOADS] = {"other", "scheduling.k8s.io", "v1alpha2", "workloads",
                         offsetof(struct ctl, hub_wls[0]), 0, 0, 1, -1, keep_whole, hubwl_set,
                         hubwl_set},
    [CTL_W_WORKLOADS_V1BETA1] = {"other", "scheduling.k8s.io", "v1beta1", "workloads",
                                 offsetof(struct ctl, hub_wls[1]), 0, 0, 1, -1, keep_whole,
                                 hubwl_set, hubwl_set},
    [CTL_W_USER_POLICIES] = {"other", "policy.karmada.io", "v1alpha1", "overridepolicies",
                             offsetof(struct ctl, user_policies), 2, 0, 1, -1, keep_whole, NULL,
                             NULL},
    [CTL_W_CLUSTER_POLICIES] = {"other", "policy.karmada.io", "v1alpha1",
                                "clusteroverridepolicies", offsetof(struct ctl, cluster_policies),
                                0, 0, 1, -1, keep_whole, NULL, NULL},
};

static void on_add(void *ud, json_object *o)
{
    struct inf_tag *t = ud;
    if (t->w->set)
        t->w->set(t->c, t->w, o);
    /* a burst of thousands of events in one iteration: the waiting bindings let their trees
     * go as it goes, not all at its end (cool.c) */
    ctl__cool_point(t->c);
}

static void on_update(void *ud, json_object *old, json_object *o)
{
    (void)old;
    on_add(ud, o);
}

static void on_delete(void *ud, json_object *o)
{
    struct inf_tag *t = ud;
    if (t->w->unset)
        t->w->unset(t->c, t->w, o);
}

static void on_synced(void *ud)
{
    struct inf_tag *t = ud;
    if (t->synced)
        return;
    t->synced = 1;
    on_synced_any(t->c);
}

static void on_error(void *ud, int err, const struct kube_status *st)
{
    struct inf_tag *t = ud;
    if (err == MUSTER_ENOENT && !t->synced && t->w->optional) {
        /* The hub does not serve this kind (no Volcano CRDs, say): nothing of it to watch. */
        ctl__logf(t->c, "watch %s: not served by the hub (%s); going on without it", t->w->resource,
                  st && st->message[0] ? st->message : "404");
        t->absent = 1;
        on_synced(ud);
        return;
    }
    if (t->c->opt.metrics)
        disp_metrics_watch_restart(t->c->opt.metrics, t->w->metric);
}

static json_object *transform(void *ud, json_object *obj)
{
    const struct inf_tag *t = ud;
    json_object *kept = t->w->cache(obj);
    const char *key = t->c->opt.owner_annotation;
    /* a template keeps the operator's owner annotation too (tenancy.c's ownerLimits) */
    const char *owner =
        t->w->tmpl >= 0 && key ? kube_json_path_str(obj, "metadata", "annotations", key, NULL)
                               : NULL;
    json_object *md = owner ? kube_json_obj(kept, "metadata") : NULL;
    if (md) {
        json_object *ann = kube_json_obj(md, "annotations");
        if (!ann) {
            ann = json_object_new_object();
            if (ann && json_object_object_add(md, "annotations", ann)) {
                json_object_put(ann);
                ann = NULL;
            }
        }
        if (ann)
            json_object_object_add(ann, key, json_object_new_string(owner));
    }
    return kept;
}

/* Starts the informer of one row of ctl__watches. */
static int watch_start(struct ctl *c, enum ctl_watch_id id)
{
    const struct ctl_watch *w = &ctl__watches[id];
    struct kube_informer *inf = (struct kube_informer *)((char *)c + w->informer);
    char path[512];
    int rc = kube_path(path, sizeof path, w->group, w->version, NULL, w->resource, NULL);
    if (rc)
        return rc;
    static const char managed[] = KARMADA_GANG_MANAGED_BY_LABEL "=" KARMADA_GANG_MANAGED_BY_VALUE;
    static const char others[] = KARMADA_GANG_MANAGED_BY_LABEL "!=" KARMADA_GANG_MANAGED_BY_VALUE;
    struct inf_tag *tag = &c->watch.tags[id];
    *tag = (struct inf_tag){c, w, 0, 0};
    struct kube_reflector_opts ro = {.path = path,
                                     .label_selector = w->managed_only == 1   ? managed
                                                       : w->managed_only == 2 ? others
                                                                              : NULL,
                                     .metadata_only = w->metadata_only};
    static const struct kube_informer_handler h = {on_add, on_update, on_delete, on_synced,
                                                   on_error};
    rc = kube_informer_init(inf, c->loop, c->kube, &ro, &h, tag);
    if (rc)
        return rc;
    kube_informer_set_transform(inf, transform);
    /* one RB and one template per pending gang: packed (cool.c). muster's OverridePolicies
     * too, one per running gang, read only by the existence check of the protocol's step,
     * reconciliation and the orphan sweep: 2.6 KiB of json-c metadata each, packed (session
     * 15). Its PodGroup Works are not: the follow-up reads them on every status change of a
     * starting gang, and thawing them cost about 12 % more CPU per dispatched RB. */
    if (id == CTL_W_RBS || w->tmpl >= 0 || id == CTL_W_POLICIES)
        kube_informer_set_frozen(inf);
    c->watch.open++;
    c->watch.started++;
    return kube_informer_start(inf);
}

/* Starts every watch, in the order of ctl__watches. */
int ctl__watches_start(struct ctl *c)
{
    for (int id = 0; id < CTL_NWATCHES; id++) {
        int rc = watch_start(c, (enum ctl_watch_id)id);
        if (rc)
            return rc;
    }
    return 0;
}

/* Why a pending binding waits, when the last cycle did not already say: the engine's own
 * admission check, which is what the next cycle meets. What the last cycle said (NoClusterFit,
 * its namespace's or owner's limit) stands while its queues would still offer it (a
 * NoClusterFit also when they refuse it for the fleet's room, which is what it said); refused
 * by a queue's limit, the engine offers it no more, no cycle judges it again, and the queue is
 * what it waits for now. */
void ctl__pending_reason(struct ctl *c, struct binding *b)
{
    if (b->st != B_PENDING)
        return;
    const struct ctl_act *a = ctl__act(b);
    if (!b->nofit && !b->ns_limited && a->rc_wait && a->rc_until > now_ms(c)) {
        ctl__set_reason(b, "Unschedulable", "%s", a->rc_wait); /* reclaim.c: what it waits for */
        return;
    }
    struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    struct queue_limit why;
    if (!e || queue_tree_can_admit(c->t, queue_entry_queue(e), queue_entry_request(e), &why))
        return;
    char msg[KARMADA_WORKLOAD_MSG_MAX];
    if (queue_limit_explain(c->t, &why, msg, sizeof msg) < 0 && !msg[0])
        snprintf(msg, sizeof msg, "does not fit its queue");
    /* The limit met at root may be the Ready fleet's capacity rather than a queue's: then no
     * cluster has room, which is no quota (the engine's sentence says "fleet: ..." exactly
     * then). */
    int fleet = strncmp(msg, "fleet: ", 7) == 0;
    if (b->nofit && fleet)
        return; /* the cycle's sentence names the clusters: more than the fleet's sum */
    b->ns_limited = 0;
    if (b->nofit) {
        /* the memo would let the next offer say no-fit without placing, and so without its
         * sentence: it places again and says it */
        b->nofit = 0;
        b->nofit_memo = 0;
    }
    ctl__set_reason(b, fleet ? "NoClusterFit" : "QuotaExceeded", "%s", msg);
    if (c->opt.reclaim)
        ctl__reclaim_consider(c, b); /* the engine never offers it: reclaim may help */
}

static void sweep_waiting(struct ctl *c, int64_t now)
{
    if (now - c->sweep.budget_at >= 1000) {
        c->sweep.budget_at = now;
        c->sweep.budget = CTL_CONDITION_WRITES_PER_S;
    }
    /* A bounded slice of the waiting list per tick, resuming where the last one stopped. */
    struct binding *b =
        c->sweep.cursor && c->sweep.cursor->list == 1 ? c->sweep.cursor : c->waiting.next;
    for (int n = 0; n < 5000 && b != &c->waiting; n++) {
        struct binding *next = b->next;
        ctl__cool_point(c);
        if (b->st == B_BACKOFF && b->not_before <= now) {
            ctl__engine_add(c, b);
        } else if (b->st == B_PENDING && !b->soft && !b->lw_pending &&
                   ctl__soft_lapsed(b->soft_at, now)) {
            /* a YuniKorn Soft gang past its placeholder timeout (soft.c): read again, it asks
             * for min-member 1 from now on, and the engine holds what that asks */
            ctl__binding_react(c, b, 1);
            if (b->st == B_PENDING && b->soft)
                ctl__engine_add(c, b);
        } else {
            ctl__pending_reason(c, b);
            if (b->cond_dirty && c->sweep.budget > 0 && ctl__rb(c, b) && !b->gone &&
                now - b->waiting_since >= CTL_CONDITION_GRACE_MS) {
                if (ctl__send_condition(c, b))
                    c->sweep.budget--;
            }
        }
        b = next;
    }
    c->sweep.cursor = b == &c->waiting ? NULL : b;
}

/* Steps due again (failed requests, the barrier's re-checks); re-arms soon for the next one
 * due before the tick. */
static void retries_run(struct ctl *c, int64_t now)
{
    int64_t next = 0;
    struct binding **p = &c->retry;
    while (*p) {
        struct binding *b = *p;
        /* in the retry list, b has its ctl_act: it went in with a retry time */
        if (b->act->retry_at <= now) {
            *p = b->act->rnext;
            b->in_retry = 0;
            b->act->rnext = NULL;
            if (b->gone)
                ctl__maybe_free(c, b);
            else if (b->inflight == 0) /* a rollback may have started its own steps since */
                ctl__step_run(c, b);
        } else {
            if (!next || ctl__act(b)->retry_at < next)
                next = ctl__act(b)->retry_at;
            p = &b->act->rnext;
        }
    }
    if (next)
        ctl__soon_arm(c, next);
}

static void on_soon(uv_timer_t *h)
{
    struct ctl *c = h->data;
    c->soon_at = 0;
    if (!ctl__leads(c) || !c->reconciled || c->stopping)
        return;
    retries_run(c, now_ms(c));
}

/* Runs the due retries at `at` when that is before the next tick (a barrier re-check in 20 ms
 * must not wait 200). */
void ctl__soon_arm(struct ctl *c, int64_t at)
{
    int64_t now = now_ms(c);
    if (c->stopping || at - now >= CTL_TICK_MS || (c->soon_at && c->soon_at <= at))
        return;
    c->soon_at = at;
    uv_timer_start(&c->soon, on_soon, (uint64_t)(at > now ? at - now : 0), 0);
}

void ctl__on_tick(uv_timer_t *h)
{
    struct ctl *c = h->data;
    if (!ctl__leads(c) || !c->reconciled || c->stopping)
        return;
    int64_t now = now_ms(c);
    retries_run(c, now);
    /* gang timeouts: a dispatched gang whose shares do not all run, and an admitted one whose
     * PodGroups never report Applied or whose barrier is never rendered, both within it. From
     * the back: ctl__set_state puts running gangs at the front, so the first one met ends the
     * walk (only ADMITTED and DISPATCHED gangs have a timeout here). */
    for (struct binding *b = c->active.prev, *nx; b != &c->active && b->st != B_RUNNING;
         b = nx) {
        nx = b->prev;
        if (ctl__pg_follower(b))
            continue; /* a pod group's member: its lead's timeout is the gang's */
        if (b->st == B_ADMITTED && b->assign && b->needs_objects && !b->inflight &&
            !b->lw_pending && (b->step == S_APPLIED || b->step == S_BARRIER) &&
            now - ctl__act(b)->admitted_at > ctl__queue_timeout_ms(c, b->queue)) {
            char why[448], detail[192] = "";
            int64_t s = ctl__queue_timeout_ms(c, b->queue) / 1000;
            /* The first Work that is not applied, and what the execution controller said of it
             * (Applied=False: a member without the CRD, a conflict with a leftover object). */
            for (uint32_t i = 0; b->step == S_APPLIED && i < b->nshares && !detail[0]; i++) {
                json_object *wk = ctl__own_work(c, b, b->shares[i].cluster);
                if (karmada_gang_work_applied(wk) ||
                    !karmada_gang_dialect_has_work(
                        ctl__cluster_dialect(c, b->shares[i].cluster, NULL)))
                    continue; /* applied, or a member that gets no Work (YuniKorn, none) */
                json_object *conds = kube_json_path(wk, "status", "conditions", NULL);
                const char *msg = NULL;
                for (size_t k = 0; conds && k < json_object_array_length(conds); k++) {
                    json_object *cd = json_object_array_get_idx(conds, k);
                    if (kube_json_str(cd, "type") &&
                        strcmp(kube_json_str(cd, "type"), "Applied") == 0)
                        msg = kube_json_str(cd, "message");
                }
                snprintf(detail, sizeof detail, " (%.63s: %.90s)", b->shares[i].cluster,
                         msg  ? msg
                         : wk ? "no Applied condition yet"
                              : "no Work");
            }
            snprintf(why, sizeof why, "%s within the gang timeout of %" PRId64 "m%02" PRId64 "s%s",
                     b->step == S_APPLIED ? "not every PodGroup Work was Applied"
                                          : "Karmada did not render every Work",
                     s / 60, s % 60, detail);
            b->step = S_NONE;
            ctl__rollback(c, b, why);
            if (nx->list != 2 && nx != &c->active)
                nx = c->active.prev; /* the rollback moved it (a pod group's member): again */
            continue;
        }
        if (b->st != B_DISPATCHED || !b->assign || b->inflight || b->lw_pending ||
            (ctl__act(b)->loss && b->act->loss->replace_wanted))
            continue;
        if (ctl__user_holds_dispatching(c, b)) {
            /* the timeout counts from when the user lets it go */
            ctl__act_w(c, b)->dispatched_at = now;
            continue;
        }
        int64_t limit = ctl__queue_timeout_ms(c, b->queue);
        if (now - ctl__act(b)->dispatched_at > limit) {
            char why[160];
            int64_t s = limit / 1000;
            snprintf(why, sizeof why,
                     "not every share was running within the gang timeout of "
                     "%" PRId64 "m%02" PRId64 "s",
                     s / 60, s % 60);
            ctl__rollback(c, b, why);
            if (nx->list != 2 && nx != &c->active)
                nx = c->active.prev;
        }
    }
    ctl__losses_sweep(c);
    sweep_waiting(c, now);
    ctl__tenancy_metrics(c, now);
    if (now - c->sweep.last_orphans >= CTL_SWEEP_ORPHANS_MS && c->lw.n == 0)
        ctl__orphans_sweep(c);
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
    ctl__kick(c);
}

static void on_pace(uv_timer_t *h)
{
    struct ctl *c = h->data;
    c->cyc.pace_armed = 0;
    ctl__kick(c);
}

static void on_kick(uv_idle_t *h)
{
    struct ctl *c = h->data;
    uv_idle_stop(h);
    c->cyc.kick_active = 0;
    ctl__ledger_flush(c);
    /* The cycle's admissions are written by the next iteration's flush, together with
     * whatever that iteration's events decide: one transaction (one fdatasync) per iteration
     * rather than two. Nothing is sent for them before that commit. */
    if (!c->cyc.wanted || c->stopping)
        return;
    uint64_t now = uv_hrtime();
    if (now >= c->cyc.next_ns) {
        ctl__cycle(c);
    } else if (!c->cyc.pace_armed) {
        c->cyc.pace_armed = 1;
        uv_timer_start(&c->pace, on_pace, (c->cyc.next_ns - now + 999999) / 1000000, 0);
    }
}

void ctl__kick(struct ctl *c)
{
    if (c->cyc.kick_active || c->stopping || !uv_is_active((uv_handle_t *)&c->tick))
        return;
    c->cyc.kick_active = 1;
    uv_idle_start(&c->kick, on_kick);
}
