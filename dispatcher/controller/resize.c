/* After dispatch, a gang that shrinks: fewer replicas or smaller requests give their capacity
 * back at once (the ledger, then the engine and the clusters' reservations, then the hub's
 * PodGroups and spec.clusters), and a gang scaled to 0 holds nothing (docs/dispatcher.md,
 * "Scale down"). A gang that grows is not re-admitted yet (Known limits). */
#include "dispatcher/controller/ctl_int.h"

/* What a gang read again asks for, against what it holds. Pure. */
enum ctl_resize ctl__resize_judge(const struct ctl_resize_side *was,
                                  const struct ctl_resize_side *now)
{
    if (now->replicas == 0)
        return RESIZE_ZERO;
    if (now->ncomp != was->ncomp || now->replicas > was->replicas ||
        !queue_resvec_fits(now->gang, was->gang, NULL))
        return RESIZE_GROW;
    int same = now->replicas == was->replicas && queue_resvec_cmp(now->gang, was->gang) == 0;
    for (uint32_t i = 0; i < now->ncomp; i++) {
        if (now->comp[i].replicas > was->comp[i].replicas ||
            !queue_resvec_fits(&now->comp[i].req, &was->comp[i].req, NULL))
            return RESIZE_GROW;
        same = same && now->comp[i].replicas == was->comp[i].replicas &&
               queue_resvec_cmp(&now->comp[i].req, &was->comp[i].req) == 0;
    }
    return same ? RESIZE_SAME : RESIZE_SHRINK;
}

/* The placement of a gang shrunk to `replicas` in total: the last-placed shares give up their
 * replicas first, so the gang keeps its first, roomiest clusters and leaves the partly filled
 * last one (a spread placement fills the roomiest clusters first and puts the remainder last:
 * what is kept is what a placement of the smaller gang would pick). Shares left with none are
 * moved to sh[kept..n), in order. Returns how many are kept (at least 1 while replicas > 0).
 * Pure. */
uint32_t ctl__shares_shrink(struct share *sh, uint32_t n, int32_t replicas)
{
    int64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += sh[i].replicas;
    int64_t give = total - replicas;
    for (uint32_t i = n; i-- > 0 && give > 0;) {
        int32_t g = give < sh[i].replicas ? (int32_t)give : sh[i].replicas;
        sh[i].replicas -= g;
        give -= g;
    }
    uint32_t kept = 0;
    while (kept < n && sh[kept].replicas > 0)
        kept++;
    return kept;
}

int ctl__grow_delta(const struct ctl_resize_side *was, const struct ctl_resize_side *now,
                    struct queue_resvec *delta, int32_t *dreplicas)
{
    queue_resvec_clear(delta);
    *dreplicas = now->replicas > was->replicas ? now->replicas - was->replicas : 0;
    for (uint32_t i = 0; i < now->gang->len; i++) {
        const struct queue_res *r = &now->gang->items[i];
        int64_t d = r->milli - queue_resvec_get(was->gang, r->id);
        if (d > 0 && queue_resvec_set(delta, r->id, d)) {
            queue_resvec_clear(delta);
            return MUSTER_ENOMEM;
        }
    }
    return 0;
}

int ctl__gang_at(const struct comp *comp, uint32_t ncomp, int32_t replicas,
                 struct queue_resvec *out)
{
    queue_resvec_clear(out);
    if (ncomp != 1 || replicas < 0 || replicas > comp[0].replicas)
        return MUSTER_EINVAL;
    for (uint32_t i = 0; i < comp[0].req.len; i++) {
        const struct queue_res *r = &comp[0].req.items[i];
        int64_t m;
        if (__builtin_mul_overflow(r->milli, (int64_t)replicas, &m)) {
            queue_resvec_clear(out);
            return MUSTER_ERANGE;
        }
        if (m != 0 && queue_resvec_set(out, r->id, m)) {
            queue_resvec_clear(out);
            return MUSTER_ENOMEM;
        }
    }
    return 0;
}

static const struct ctl_grow_room *room_of(const struct ctl_grow_room *room, uint32_t nroom,
                                           const char *cluster)
{
    for (uint32_t i = 0; i < nroom; i++)
        if (strcmp(room[i].cluster, cluster) == 0)
            return &room[i];
    return NULL;
}

int32_t ctl__shares_grow(struct share *sh, uint32_t *n, uint32_t cap,
                         const struct ctl_grow_room *room, uint32_t nroom, int32_t add)
{
    /* a dry run first, so a delta that does not fit leaves the shares as they were */
    int32_t left = add;
    uint32_t added = 0;
    for (uint32_t i = 0; i < *n && left > 0; i++) {
        const struct ctl_grow_room *r = room_of(room, nroom, sh[i].cluster);
        if (r && r->fits > 0)
            left -= r->fits < left ? r->fits : left;
    }
    for (uint32_t i = 0; i < nroom && left > 0; i++) {
        int used = 0;
        for (uint32_t j = 0; j < *n && !used; j++)
            used = strcmp(sh[j].cluster, room[i].cluster) == 0;
        if (used || room[i].fits <= 0)
            continue;
        if (*n + added >= cap)
            break;
        left -= room[i].fits < left ? room[i].fits : left;
        added++;
    }
    if (left > 0)
        return left;
    left = add;
    uint32_t was_n = *n;
    for (uint32_t i = 0; i < was_n && left > 0; i++) {
        const struct ctl_grow_room *r = room_of(room, nroom, sh[i].cluster);
        if (!r || r->fits <= 0)
            continue;
        int32_t g = r->fits < left ? r->fits : left;
        sh[i].replicas += g;
        left -= g;
    }
    for (uint32_t i = 0; i < nroom && left > 0; i++) {
        int used = 0;
        for (uint32_t j = 0; j < was_n && !used; j++)
            used = strcmp(sh[j].cluster, room[i].cluster) == 0;
        if (used || room[i].fits <= 0)
            continue;
        struct share *x = &sh[(*n)++];
        memset(x, 0, sizeof *x);
        snprintf(x->cluster, sizeof x->cluster, "%s", room[i].cluster);
        x->replicas = room[i].fits < left ? room[i].fits : left;
        left -= x->replicas;
    }
    return 0;
}

void ctl__grow_wait_message(char *buf, size_t cap, int32_t dreplicas, const char *why)
{
    snprintf(buf, cap, "scale up by %" PRId32 " replica%s waits: %s", dreplicas,
             dreplicas == 1 ? "" : "s", why);
}

/* What the binding read last, moved aside while it is read again (binding_read frees it). */
struct read_kept {
    struct comp *comp;
    uint32_t ncomp;
    struct queue_resvec gang;
    int32_t replicas, min_member, priority;
    int assign, spread, needs_objects;
    enum karmada_workload_kind kind;
    char queue[QUEUE_NAME_MAX + 1];
    json_object *tmpl;
};

static void read_keep(struct binding *b, struct read_kept *k)
{
    k->comp = b->comp;
    k->ncomp = b->ncomp;
    k->gang = b->gang;
    k->replicas = b->replicas;
    k->min_member = b->min_member;
    k->priority = b->priority;
    k->assign = b->assign;
    k->spread = b->spread;
    k->needs_objects = b->needs_objects;
    k->kind = b->kind;
    memcpy(k->queue, b->queue, sizeof k->queue);
    k->tmpl = json_object_get(b->tmpl);
    b->comp = NULL;
    b->ncomp = 0;
    memset(&b->gang, 0, sizeof b->gang);
}

static void read_drop(struct read_kept *k)
{
    for (uint32_t i = 0; i < k->ncomp; i++)
        queue_resvec_close(&k->comp[i].req);
    muster_free(k->comp);
    queue_resvec_close(&k->gang);
    json_object_put(k->tmpl);
}

/* The binding goes back to what it read before (the new read is not followed). */
static void read_restore(struct binding *b, struct read_kept *k)
{
    ctl__binding_clear_read(b);
    b->comp = k->comp;
    b->ncomp = k->ncomp;
    b->gang = k->gang;
    b->replicas = k->replicas;
    b->min_member = k->min_member;
    b->priority = k->priority;
    b->assign = k->assign;
    b->spread = k->spread;
    b->needs_objects = k->needs_objects;
    b->kind = k->kind;
    memcpy(b->queue, k->queue, sizeof b->queue);
    json_object_put(b->tmpl);
    b->tmpl = k->tmpl;
}

static int dropped_add(struct binding *b, const char *cluster)
{
    for (uint32_t i = 0; i < b->ndropped; i++)
        if (strcmp(b->dropped[i], cluster) == 0)
            return 0;
    char(*d)[CTL_CLUSTER_NAME_MAX] =
        muster_realloc(b->dropped, (b->ndropped + 1) * sizeof(*b->dropped));
    if (!d)
        return MUSTER_ENOMEM;
    b->dropped = d;
    snprintf(b->dropped[b->ndropped++], CTL_CLUSTER_NAME_MAX, "%s", cluster);
    return 0;
}

/* A dispatched gang scaled to 0: its row is released ("scaled to 0") and a pending row takes
 * its place in line in the same transaction, and the hub is undone as a rollback undoes it
 * (barrier, spec.clusters cleared with the hold back, muster's PodGroup Works deleted): Karmada
 * divides a Deployment's replicas by spec.clusters, so a placement left behind would keep the
 * member's old replicas, and a later scale up would reach the members without the queue. Once
 * undone it waits parked, holding nothing, until it is scaled up (queued as new). The pending
 * row carries not_before = now: a pending row with a dispatched hub and no back-off would be
 * taken for another replica's dispatch and adopted at start-up, not undone. */
static void scaled_to_zero(struct ctl *c, struct binding *b)
{
    ctl__engine_forget(c, b);
    struct lwrite *w = ctl__lw_add(c, b, LW_ZERO_OLD, "released");
    if (!w) {
        ctl__fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    snprintf(w->reason, sizeof w->reason, "scaled to 0");
    w->row.reason = w->reason;
    queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    b->ledger_id = 0;
    if (!b->barrier)
        b->user_dispatching = ctl__rb_dispatching(b->rb);
    b->barrier = 1;
    b->not_before = now_ms(c);
    struct lwrite *n = ctl__lw_add(c, b, LW_ROLLBACK_NEW, "pending");
    if (!n || ctl__lw_fill_new(c, n, b)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    n->row.barrier = 1;
    n->row.user_dispatching = b->user_dispatching;
    ctl__set_reason(b, CTL_REASON_SCALED_TO_ZERO, "scaled to 0: holds nothing");
    ctl__set_state(c, b, B_UNDO);
    b->step = S_NONE;
    c->st.released++;
    if (c->opt.metrics)
        disp_metrics_release(c->opt.metrics, "scaled to 0");
    ctl__publish_binding(c, b, "released", "scaled to 0");
    ctl__notice(c, "info", "%s scaled to 0: released, its placement undone", b->key);
}

/* The row says what the gang holds now; the engine and the clusters follow once it is
 * committed (ledger_flush: ctl__resize_apply). */
static void shrunk(struct ctl *c, struct binding *b, int32_t was_replicas)
{
    ctl__shares_untrack(c, b); /* the clusters it held are rebuilt, the dropped ones too */
    b->ndropped = 0;
    if (b->assign && b->ncomp == 1) {
        uint32_t kept = ctl__shares_shrink(b->shares, b->nshares, b->replicas);
        for (uint32_t i = kept; i < b->nshares; i++)
            if (dropped_add(b, b->shares[i].cluster)) {
                ctl__fatal(c, "out of memory");
                return;
            }
        b->nshares = kept;
    } else if (b->assign && b->nshares == 1) {
        b->shares[0].replicas = b->replicas; /* a Volcano Job: whole in one cluster */
    }
    struct lwrite *w = ctl__lw_add(c, b, LW_RESIZE, ctl__state_names[b->st]);
    if (!w || ctl__lw_fill_new(c, w, b)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    /* an update of the live row: only state, clusters, reason and request */
    w->row.id = b->ledger_id;
    w->row.binding = w->row.uid = w->row.queue = NULL;
    if (was_replicas != b->replicas)
        snprintf(w->reason, sizeof w->reason,
                 "scaled down from %" PRId32 " to %" PRId32 " replicas", was_replicas, b->replicas);
    else
        snprintf(w->reason, sizeof w->reason, "its requests shrank (%" PRId32 " replicas)",
                 b->replicas);
    w->row.reason = w->reason;
    c->st.resized++;
    ctl__publish_binding(c, b, ctl__state_names[b->st], w->reason);
    ctl__notice(c, "info", "%s %s: capacity released", b->key, w->reason);
}

int ctl__resize_check(struct ctl *c, struct binding *b, int template_changed)
{
    if (b->st != B_DISPATCHED && b->st != B_RUNNING)
        return 0;
    json_object *g = kube_json_path(b->rb, "metadata", "generation", NULL);
    int64_t gen = g ? json_object_get_int64(g) : 0;
    if (!template_changed && !b->reread_due && gen == b->generation)
        return 0;
    if (b->step != S_NONE || b->inflight || b->lw_pending) {
        b->reread_due = 1; /* looked at again when the step in flight is over */
        return 0;
    }
    b->reread_due = 0;
    struct read_kept k;
    int32_t was_replicas = b->replicas;
    read_keep(b, &k);
    int rc = ctl__binding_read(c, b);
    b->generation = gen;
    struct ctl_resize_side was = {k.replicas, k.ncomp, &k.gang, k.comp},
                           now = {b->replicas, b->ncomp, &b->gang, b->comp};
    enum ctl_resize r = rc ? RESIZE_SAME : ctl__resize_judge(&was, &now);
    /* only what it asks for: its queue, priority, kind and mode are the row's */
    if (!rc && (strcmp(k.queue, b->queue) != 0 || k.priority != b->priority || k.kind != b->kind ||
                k.assign != b->assign))
        r = RESIZE_SAME;
    if (r == RESIZE_GROW)
        ctl__logf(c,
                  "%s: grew while dispatched (%" PRId32 " replicas, was %" PRId32
                  "); followed as admitted (scale up is not re-admitted yet)",
                  b->key, b->replicas, was_replicas);
    if (rc || r == RESIZE_SAME || r == RESIZE_GROW) {
        read_restore(b, &k);
        return 0;
    }
    read_drop(&k);
    if (r == RESIZE_ZERO)
        scaled_to_zero(c, b);
    else
        shrunk(c, b, was_replicas);
    return 1;
}

/* The resized row is committed: the engine holds what the row says, the clusters reserve the
 * smaller shares, and the hub follows (assign mode: the PodGroup Works, then spec.clusters,
 * then the Works of clusters left). A binding released or rolled back meanwhile left the
 * engine and its clusters already. */
void ctl__resize_apply(struct ctl *c, struct binding *b)
{
    if (b->st != B_DISPATCHED && b->st != B_RUNNING)
        return;
    struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    struct queue_error qe;
    if (e && queue_entry_resize(c->t, e, &b->gang, &qe))
        ctl__notice(c, "warning", "%s: queue %s could not count its new size: %s", b->key, b->queue,
                    qe.msg);
    ctl__shares_track(c, b);
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
    ctl__kick(c);
    ctl__resize_resume(c, b);
}

void ctl__resize_resume(struct ctl *c, struct binding *b)
{
    if (!b->assign || b->nshares == 0)
        return;
    if (b->step != S_NONE || b->inflight) {
        b->resize_owed = 1; /* after the step in flight (step_done) */
        return;
    }
    b->resize_owed = 0;
    b->step = b->needs_objects ? S_RESIZE_WORKS : S_RESIZE_CLUSTERS;
    ctl__step_run(c, b);
}

/* At start-up, a dispatched or running row whose RB asks for less than the row holds: the
 * workload was scaled down (or to 0) while no musterd led, so no event will say so. Judged on
 * the whole request (the row keeps no per-replica one) and the replicas its shares hold. */
void ctl__resize_from_row(struct ctl *c, struct binding *b, const struct queue_resvec *row_gang)
{
    if (b->step != S_NONE || b->inflight || b->lw_pending)
        return;
    int32_t held = 0;
    for (uint32_t i = 0; i < b->nshares; i++)
        held += b->shares[i].replicas;
    if (b->replicas == 0) {
        scaled_to_zero(c, b);
        return;
    }
    if (queue_resvec_cmp(&b->gang, row_gang) == 0 || !queue_resvec_fits(&b->gang, row_gang, NULL) ||
        (b->assign && b->replicas > held))
        return; /* the same, or grown: followed as admitted */
    shrunk(c, b, b->assign ? held : b->replicas);
}
