/* A cluster lost under a dispatched gang (docs/dispatcher.md, "A cluster lost"): whether a
 * cluster holding a share is lost (NotReady past --cluster-lost-grace, a NoExecute taint the
 * placement does not tolerate, Karmada's eviction), and what the queue's onClusterLoss makes of
 * it: the whole gang rolled back and requeued in its place, or the lost share placed again,
 * whole, on other clusters and the commit protocol run forward for the new placement. The loss
 * and the decision are in the ledger before any request for them. */
#include "dispatcher/controller/ctl_int.h"

enum ctl_loss_trigger ctl__cluster_lost(const struct ctl_loss_facts *f)
{
    if (f->evicted)
        return CTL_LOSS_EVICTED; /* Karmada has acted already: the share is going */
    if (f->noexec && f->now >= f->noexec_until)
        return CTL_LOSS_NO_EXECUTE;
    if (!f->ready && f->not_ready_since > 0 && f->now - f->not_ready_since >= f->grace_ms)
        return CTL_LOSS_NOT_READY;
    return CTL_LOSS_NONE;
}

enum ctl_loss_decision ctl__loss_decide(enum queue_on_loss policy, int assign, int placed)
{
    /* Only muster's own placement can be placed again; resume mode is Karmada's to place. */
    return policy == QUEUE_ON_LOSS_REPLACE && assign && placed ? CTL_LOSS_REPLACE
                                                               : CTL_LOSS_REQUEUE;
}

const char *ctl__loss_trigger_name(enum ctl_loss_trigger t)
{
    switch (t) {
    case CTL_LOSS_NOT_READY:
        return "NotReady";
    case CTL_LOSS_NO_EXECUTE:
        return "NoExecute";
    case CTL_LOSS_EVICTED:
        return "Evicted";
    default:
        return "None";
    }
}

/* As Go prints a time.Duration of whole seconds, as Kubernetes flags take it: 45s, 5m0s,
 * 1h2m3s. */
void ctl__duration_text(int64_t ms, char *buf, size_t cap)
{
    int64_t s = ms > 0 ? ms / 1000 : 0;
    if (s >= 3600)
        snprintf(buf, cap, "%" PRId64 "h%" PRId64 "m%" PRId64 "s", s / 3600, s % 3600 / 60, s % 60);
    else if (s >= 60)
        snprintf(buf, cap, "%" PRId64 "m%" PRId64 "s", s / 60, s % 60);
    else
        snprintf(buf, cap, "%" PRId64 "s", s);
}

/* The ledger's loss record (schema/0005_cluster_loss.sql) as JSON text: which cluster, the
 * trigger, the sentence, the decision and the placement the gang held (from, a JSON array).
 * Allocated; NULL when out of memory (the reason sentence still says it all). */
char *ctl__loss_record(const struct ctl_loss *l, const char *decision, const char *from)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    json_object_object_add(o, "cluster", json_object_new_string(l->cluster));
    json_object_object_add(o, "trigger",
                           json_object_new_string(ctl__loss_trigger_name(l->trigger)));
    json_object_object_add(o, "detail", json_object_new_string(l->detail));
    json_object_object_add(o, "decision", json_object_new_string(decision));
    json_object *f = json_tokener_parse(from);
    json_object_object_add(o, "from", f ? f : json_object_new_array());
    const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    char *out = t ? muster_strdup(t) : NULL;
    json_object_put(o);
    return out;
}

/* Start-up: a pending row written by a Requeue carries its loss record, so the binding says
 * again why it waits (ctl__set_reason) until it is admitted. record NULL: nothing. */
void ctl__loss_restore(struct ctl *c, struct binding *b, const char *record)
{
    json_object *o = record ? json_tokener_parse(record) : NULL;
    const char *cluster = kube_json_str(o, "cluster"), *detail = kube_json_str(o, "detail");
    if (cluster && detail) {
        struct ctl_loss *l = ctl__act(b)->loss ? b->act->loss : muster_calloc(1, sizeof(*l));
        if (l) {
            snprintf(l->cluster, sizeof l->cluster, "%s", cluster);
            snprintf(l->detail, sizeof l->detail, "%s", detail);
            l->replace_wanted = 0;
            ctl__act_w(c, b)->loss = l;
        } else {
            ctl__fatal(c, "out of memory");
        }
    }
    json_object_put(o);
}

static int64_t grace_ms(const struct ctl *c)
{
    return c->opt.cluster_lost_grace_ms ? (int64_t)c->opt.cluster_lost_grace_ms
                                        : CTL_CLUSTER_LOST_GRACE_MS;
}

/* The RB read after muster's lift no longer lists cluster in spec.clusters: another controller
 * (the taint manager, the descheduler, a person) took the share away. Before the lift, the
 * watch may still bring muster's own patches, so nothing is judged. */
static int dropped_from_rb(struct ctl *c, const struct binding *b, const char *cluster)
{
    json_object *rb = ctl__rb_of(c, b);
    if (kube_json_bool(kube_json_path(rb, "spec", "suspension", NULL), "scheduling") == 1)
        return 0;
    return !ctl__rb_lists_cluster(rb, cluster);
}

/* The facts of cluster k under b's placement; detail says what makes it lost, if it is. */
static enum ctl_loss_trigger judge(struct ctl *c, const struct binding *b, const struct cluster *k,
                                   const char *name, int check_rb, char *detail, size_t cap)
{
    /* the RB is read only here, for its evictions and tolerations (the sweep's gangs on clusters
     * that are Ready and untainted never reach this: a running gang holds no tree, cool.c);
     * one that cannot be read back judges nothing (ctl__check_progress) */
    if ((check_rb || (k && k->noexec)) && !ctl__rb_of(c, b))
        return CTL_LOSS_NONE;
    struct ctl_loss_facts f = {.ready = 1, .grace_ms = grace_ms(c), .now = now_ms(c)};
    char ev[160] = "", taint[160] = "";
    if (check_rb) {
        char task[128];
        if (karmada_workload_evicted_from(ctl__rb_of(c, b), name, task, sizeof task)) {
            f.evicted = 1;
            snprintf(ev, sizeof ev, "spec.gracefulEvictionTasks: %s", task);
        } else if (dropped_from_rb(c, b, name)) {
            f.evicted = 1;
            snprintf(ev, sizeof ev, "dropped from spec.clusters by someone else");
        }
    }
    if (k) {
        f.ready = k->unready_since == 0;
        f.not_ready_since = k->unready_since;
        if (k->noexec) {
            ctl__placement_terms(c, b);
            f.noexec =
                karmada_workload_noexecute(&c->aw, k->obj, &f.noexec_until, taint, sizeof taint);
        }
    }
    enum ctl_loss_trigger t = ctl__cluster_lost(&f);
    char d[32];
    switch (t) {
    case CTL_LOSS_EVICTED:
        if (strncmp(ev, "dropped", 7) == 0)
            snprintf(detail, cap, "%s", ev);
        else
            snprintf(detail, cap, "evicted by Karmada (%s)", ev);
        break;
    case CTL_LOSS_NO_EXECUTE:
        snprintf(detail, cap, "taint %s is not tolerated by spec.placement.clusterTolerations%s",
                 taint, f.noexec_until ? " past its tolerationSeconds" : "");
        break;
    case CTL_LOSS_NOT_READY:
        ctl__duration_text(f.now - f.not_ready_since, d, sizeof d);
        snprintf(detail, cap, "NotReady for %s", d);
        break;
    default:
        break;
    }
    return t;
}

/* 1 when placement must not use k for b: a cluster lost to it by a NoExecute taint it no
 * longer tolerates, or one Karmada evicts it from. (NotReady clusters take no work anyway.) */
int ctl__cluster_lost_to(struct ctl *c, const struct binding *b, const struct cluster *k)
{
    char d[160];
    json_object *rb = ctl__rb_of(c, b);
    if (!k->noexec && !kube_json_path(rb, "spec", "gracefulEvictionTasks", NULL))
        return 0;
    if (karmada_workload_evicted_from(rb, k->name, NULL, 0))
        return 1;
    return k->noexec && judge(c, b, k, k->name, 0, d, sizeof d) != CTL_LOSS_NONE;
}

static enum queue_on_loss queue_policy(struct ctl *c, const struct binding *b)
{
    const struct queue_node *q = queue_tree_find(c->t, b->queue);
    return q ? queue_node_spec(q)->on_cluster_loss : QUEUE_ON_LOSS_REQUEUE;
}

static void loss_requeue(struct ctl *c, struct binding *b, const char *extra)
{
    struct ctl_loss *l = b->act->loss; /* the loss started (loss_start) */
    char why[320], waiting[256];
    l->replace_wanted = 0;
    snprintf(why, sizeof why, "cluster %.63s lost: %.100s; %.60srequeued (onClusterLoss: %s)",
             l->cluster, l->detail, extra, queue_on_loss_name(queue_policy(c, b)));
    snprintf(waiting, sizeof waiting, "requeued after cluster %.63s was lost: %.120s", l->cluster,
             l->detail);
    if (c->opt.metrics)
        disp_metrics_cluster_loss(c->opt.metrics, ctl__loss_trigger_name(l->trigger), "requeued");
    char from[1024];
    ctl__clusters_text(b, from, sizeof from);
    ctl__rollback_lost(c, b, why, waiting, ctl__loss_record(l, "Requeue", from));
}

/* b lost its share in cluster: the decision starts. Requeue is decided at
 * once; Replace waits for the next cycle, which places the share against its snapshot. */
static void loss_start(struct ctl *c, struct binding *b, const char *cluster,
                       enum ctl_loss_trigger t, const char *detail)
{
    struct ctl_loss *l = ctl__act(b)->loss;
    if (!l) {
        l = muster_calloc(1, sizeof(*l));
        if (!l) {
            ctl__fatal(c, "out of memory");
            return;
        }
        ctl__act_w(c, b)->loss = l;
    }
    snprintf(l->cluster, sizeof l->cluster, "%s", cluster);
    snprintf(l->detail, sizeof l->detail, "%s", detail);
    l->trigger = t;
    l->replaced = 0;
    l->started = now_ms(c);
    l->settling = 0;
    ctl__notice(c, "warning", "%s: cluster %s lost: %s", b->key, cluster, detail);
    /* A split by groups is requeued whole: a share moved would change the other clusters'
     * offsets, which their member copies keep for life (docs/gangobj.md). */
    if (ctl__loss_decide(queue_policy(c, b), b->assign && !b->split_pods, 1) ==
        CTL_LOSS_REPLACE) {
        l->replace_wanted = 1;
        c->replacing++;
        c->cyc.wanted = 1;
        c->cyc.forced = 1;
        ctl__kick(c);
        return;
    }
    loss_requeue(c, b, "");
}

/* A dispatched or running gang, idle (no step, request or ledger write in flight): the first
 * of its clusters that is lost starts the loss. check_rb: judge the RB's own fields too (an
 * RB event); the tick judges the clusters only. Returns 1 when a loss started. */
static int loss_check(struct ctl *c, struct binding *b, int check_rb)
{
    if ((b->st != B_DISPATCHED && b->st != B_RUNNING) || !b->assign || b->step != S_NONE ||
        b->inflight || b->lw_pending || (ctl__act(b)->loss && b->act->loss->replace_wanted))
        return 0;
    for (uint32_t i = 0; i < b->nshares; i++) {
        const char *name = b->shares[i].cluster;
        struct cluster *k = ctl__cluster_find(c, name);
        if (!check_rb && (!k || (!k->unready_since && !k->noexec)))
            continue;
        char detail[160];
        enum ctl_loss_trigger t = judge(c, b, k, name, check_rb, detail, sizeof detail);
        if (t != CTL_LOSS_NONE) {
            loss_start(c, b, name, t, detail);
            return 1;
        }
    }
    return 0;
}

/* Every RB event (bindings.c): once the cached RB lists exactly b's shares, the Replace that
 * rewrote its spec.clusters is in the cache and the RB's fields are judged again. */
void ctl__loss_rb_seen(struct binding *b)
{
    if (!b->rb_behind || ctl__rb_nclusters(b->rb) != b->nshares)
        return;
    json_object *cl = kube_json_path(b->rb, "spec", "clusters", NULL);
    for (uint32_t i = 0; i < b->nshares; i++) {
        int found = 0;
        for (size_t j = 0; j < b->nshares && !found; j++) {
            json_object *e = json_object_array_get_idx(cl, j);
            json_object *r = kube_json_get(e, "replicas");
            found = kube_json_str(e, "name") &&
                    strcmp(kube_json_str(e, "name"), b->shares[i].cluster) == 0 && r &&
                    json_object_get_int(r) == b->shares[i].replicas;
        }
        if (!found)
            return;
    }
    b->rb_behind = 0;
}

int ctl__loss_check(struct ctl *c, struct binding *b)
{
    return loss_check(c, b, !b->rb_behind);
}

/* Every second at most (the tick): the gangs with a share in a cluster that is not Ready, or
 * carries a NoExecute taint. Nothing is walked while every cluster is Ready and untainted. */
void ctl__losses_sweep(struct ctl *c)
{
    int64_t now = now_ms(c);
    if (now - c->last_loss_sweep < 1000)
        return;
    c->last_loss_sweep = now;
    int any = 0;
    for (uint32_t i = 0; i < c->fleet.ncl && !any; i++)
        any = c->fleet.cl[i].unready_since || c->fleet.cl[i].noexec;
    if (!any)
        return;
    for (struct binding *b = c->active.next, *nx; b != &c->active; b = nx) {
        nx = b->next;
        loss_check(c, b, 0);
    }
}

/* Where b's lost share (need replicas) goes: out[] shares over clusters other than the lost
 * one, first among those b already uses, then any; a tree gang's in whole groups and within
 * its required topology. Returns how many, 0 when nothing holds it. raw: judged against what
 * the clusters report free alone (replace_unsettled asks; nothing is placed on it). */
static uint32_t replace_place(struct ctl *c, struct binding *b, const char *lost, int32_t need,
                              int raw, struct disp_share *out, uint32_t *idx)
{
    struct disp_cluster_cap caps[256];
    uint64_t fits[256];
    int needs = !b->assign ? 0
                           : (b->needs_objects ? 1 : 0) |
                                 (b->kind == KARMADA_WORKLOAD_KIND_VCJOB ? 2 : 0) |
                                 (ctl__mtopo_required(b) ? 4 : 0) |
                                 (ctl__mtopo_names_required(b) ? 8 : 0) |
                                 (int)(KARMADA_WORKLOAD_KIND_API_BIT(b->kind) << 8);
    /* a tree's groups move whole (group_size below) and keep its required topology: the
     * clusters of the groups that stay decide where the lost ones may go */
    json_object *kept[256];
    uint32_t nk = 0;
    for (uint32_t j = 0; b->tree.n && j < b->nshares && nk < 256; j++) {
        struct cluster *k = ctl__cluster_find(c, b->shares[j].cluster);
        if (k && strcmp(k->name, lost) != 0)
            kept[nk++] = k->obj;
    }
    for (int pass = 0; pass < 2; pass++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < c->fleet.ncl && n < 256; i++) {
            struct cluster *k = &c->fleet.cl[i];
            int used = 0;
            for (uint32_t j = 0; j < b->nshares && !used; j++)
                used = strcmp(b->shares[j].cluster, k->name) == 0;
            if (strcmp(k->name, lost) == 0 || (pass == 0 && !used) || !k->ready ||
                ctl__cluster_lacks(k, needs) || !ctl__cluster_allows(c, b, k) ||
                ctl__cluster_lost_to(c, b, k) || !ctl__tree_cluster_ok(&b->tree, kept, nk, k->obj))
                continue;
            /* raw: as the cluster reports its room, muster's reservations not taken out */
            caps[n] = raw ? (struct disp_cluster_cap){.name = k->name,
                                                      .free = k->free,
                                                      .grades = k->grades,
                                                      .ngrades = k->ngrades}
                          : k->cap;
            idx[n++] = i;
        }
        if (!n)
            continue;
        if (b->ncomp > 1) {
            /* a Volcano Job goes whole to one cluster: every task on the same one */
            for (uint32_t i = 0; i < n; i++) {
                if (ctl__fits_all_components(b, &caps[i]) >= 0) {
                    idx[0] = idx[i];
                    out[0] = (struct disp_share){.cluster = 0, .replicas = (uint64_t)need};
                    return 1;
                }
            }
            continue;
        }
        for (uint32_t i = 0; i < n; i++)
            fits[i] = disp_cluster_fits(&caps[i], &b->comp[0].req);
        uint32_t got = disp_place_groups(caps, fits, n, (uint64_t)need, (uint64_t)b->group_size,
                                         b->spread ? DISP_SPREAD : DISP_SINGLE_CLUSTER, out);
        if (got && b->tree.n) {
            /* the required topology judged over the clusters the groups are in afterwards
             * (the new shares among themselves too: with no group kept, nothing above tied
             * them to one domain); not met: no Replace, the gang is requeued whole and the
             * composite search places it again */
            json_object *after[512];
            uint32_t na = 0;
            for (uint32_t j = 0; j < nk; j++)
                after[na++] = kept[j];
            for (uint32_t j = 0; j < got && na < 512; j++)
                after[na++] = c->fleet.cl[idx[out[j].cluster]].obj;
            if (!ctl__tree_required_ok(&b->tree, after, na))
                got = 0;
        }
        if (got)
            return got;
    }
    return 0;
}

/* Nothing holds the lost share against muster's snapshot, but it would fit in what the
 * clusters report free: the difference is muster's reservations of shares placed recently,
 * which a report may already count as allocated (a share's pods are counted by the first
 * report after they bind, and muster cannot tell which report that is: clusters.c,
 * cap_rebuild, keeps them until a later report or CTL_CONFIRM_MAX_MS). Counted twice, the room
 * is understated until then; so Replace waits for the reports to settle, at most twice that
 * from the loss (a share that starts running just after it is confirmed within it), before it
 * requeues the gang whole. The shares that run elsewhere are not touched meanwhile. */
static int replace_unsettled(struct ctl *c, struct binding *b, struct ctl_loss *l,
                             int32_t need)
{
    if (ctl__loss_decide(queue_policy(c, b), b->assign && !b->split_pods, 1) != CTL_LOSS_REPLACE ||
        now_ms(c) - l->started >= 2 * CTL_CONFIRM_MAX_MS)
        return 0;
    struct disp_share out[256];
    uint32_t idx[256];
    if (!replace_place(c, b, l->cluster, need, 1, out, idx))
        return 0;
    if (!l->settling)
        ctl__notice(c, "info",
                    "%s: its %" PRId32 " replicas lost in %s fit where the clusters report room, "
                    "not once muster's recent placements are taken out as well: Replace waits "
                    "for the reports to count them once",
                    b->key, need, l->cluster);
    l->settling = 1;
    return 1;
}

/* Replace: the lost share moves to the clusters replace_place found; the shares that run stay.
 * The row goes back to admitted with the new placement and the loss in its reason, and once it
 * is committed the commit protocol runs forward again (ledger.c, LW_LOSS_REPLACE). */
static void replace_one(struct ctl *c, struct binding *b)
{
    struct ctl_loss *l = b->act->loss; /* replace_wanted: the loss started */
    uint32_t li = b->nshares;
    for (uint32_t i = 0; i < b->nshares && li == b->nshares; i++)
        if (strcmp(b->shares[i].cluster, l->cluster) == 0)
            li = i;
    if (li == b->nshares || (b->st != B_DISPATCHED && b->st != B_RUNNING)) {
        l->replace_wanted = 0; /* nothing left to move (rolled back or released meanwhile) */
        return;
    }
    int32_t need = b->shares[li].replicas;
    struct disp_share out[256];
    uint32_t idx[256];
    uint32_t got = replace_place(c, b, l->cluster, need, 0, out, idx);
    if (!got && replace_unsettled(c, b, l, need)) {
        c->replacing++; /* the tick's cycle tries again */
        return;
    }
    if (ctl__loss_decide(queue_policy(c, b), b->assign && !b->split_pods, got > 0) !=
        CTL_LOSS_REPLACE) {
        char extra[96];
        snprintf(extra, sizeof extra,
                 "no other allowed Ready cluster holds its %" PRId32 " replicas: ", need);
        loss_requeue(c, b, extra);
        return;
    }
    /* the new shares: the kept ones, then each receiving cluster grown or added */
    struct share keep[256];
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->nshares && n < 256; i++)
        if (i != li)
            keep[n++] = b->shares[i];
    char to[128] = "";
    int32_t delta[256] = {0};
    for (uint32_t j = 0; j < got; j++) {
        const char *name = c->fleet.cl[idx[out[j].cluster]].name;
        uint32_t at = n;
        for (uint32_t i = 0; i < n && at == n; i++)
            if (strcmp(keep[i].cluster, name) == 0)
                at = i;
        if (at == n) {
            if (n == 256)
                break;
            memset(&keep[n], 0, sizeof keep[n]);
            snprintf(keep[n].cluster, sizeof keep[n].cluster, "%s", name);
            n++;
        }
        keep[at].replicas += (int32_t)out[j].replicas;
        keep[at].running = 0; /* its PodGroup changes: it is seen running again */
        delta[at] += (int32_t)out[j].replicas;
        size_t len = strlen(to);
        snprintf(to + len, sizeof to - len, "%s%s", j ? ", " : "", name);
    }
    char from[1024];
    ctl__clusters_text(b, from, sizeof from);
    ctl__shares_untrack(c, b);
    if (ctl__shares_reserve(b, n)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    memcpy(b->shares, keep, n * sizeof(*keep));
    ctl__shares_track(c, b);
    /* this cycle's snapshot takes the moved replicas at once (the clusters are rebuilt from
     * their reports and every share at the next one) */
    for (uint32_t i = 0; i < n; i++) {
        struct cluster *k = delta[i] ? ctl__cluster_find(c, b->shares[i].cluster) : NULL;
        struct share d = b->shares[i];
        d.replicas = delta[i];
        if (k)
            ctl__cap_take(c, k, b, &d);
    }
    int64_t now = now_ms(c);
    ctl__act_w(c, b)->admitted_at = now;
    b->step = S_NONE;
    ctl__set_state(c, b, B_ADMITTED);
    struct lwrite *w = ctl__lw_admitted(c, b, LW_LOSS_REPLACE, now);
    if (!w)
        return;
    snprintf(w->reason, sizeof w->reason,
             "cluster %.40s lost: %.100s; its %" PRId32
             " replicas replaced on %.30s (onClusterLoss: Replace)",
             l->cluster, l->detail, need, to);
    w->row.reason = w->reason;
    w->loss = ctl__loss_record(l, "Replace", from);
    if (c->opt.metrics)
        disp_metrics_cluster_loss(c->opt.metrics, ctl__loss_trigger_name(l->trigger), "replaced");
    ctl__publish_binding(c, b, "admitted", w->reason);
    ctl__notice(c, "warning", "%s: %s", b->key, w->reason);
    l->replace_wanted = 0;
    l->replaced = 1; /* kept until the commit: ctl__loss_replaced */
    b->rb_behind = 1;
}

/* The Replace is committed (ledger.c, LW_LOSS_REPLACE): the lost share's PodGroup Work is
 * deleted now, not at the next orphan sweep (which still covers a failed delete, or a crash
 * before this). A NotReady member keeps it until it answers, as Karmada's execution controller
 * does; Karmada deletes the member PodGroup through the Work's finalizer. */
void ctl__loss_replaced(struct ctl *c, struct binding *b)
{
    struct ctl_loss *l = ctl__act(b)->loss;
    if (!l || !l->replaced)
        return;
    char path[KUBE_MAX_URL_BYTES / 4];
    json_object *wk = b->assign && b->needs_objects ? ctl__own_work(c, b, l->cluster) : NULL;
    const char *name = kube_json_str(kube_json_get(wk, "metadata"), "name");
    int held = 0;
    for (uint32_t i = 0; i < b->nshares; i++)
        held |= strcmp(b->shares[i].cluster, l->cluster) == 0;
    if (name && !held && karmada_path_work(path, sizeof path, l->cluster, name) == 0)
        ctl__orphan_delete(c, path);
    muster_free(l);
    b->act->loss = NULL;
}

/* The cycle, after its snapshot: every gang waiting for Replace is placed or requeued. */
void ctl__losses_replace(struct ctl *c)
{
    if (!c->replacing)
        return;
    c->replacing = 0;
    for (struct binding *b = c->active.next, *nx; b != &c->active; b = nx) {
        nx = b->next;
        if (ctl__act(b)->loss && b->act->loss->replace_wanted)
            replace_one(c, b);
    }
}
