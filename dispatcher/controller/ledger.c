/* The ledger: every decision of one loop iteration written in one transaction before any
 * request for it is sent (docs/dispatcher.md, "Durability"). */
#include "dispatcher/controller/ctl_int.h"

#include "cluster-adapters/kube/jsonwrite.h"
#include "cluster-adapters/kube/resources.h"

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
    [LW_RESIZE] = "resize.ledger",
    [LW_ZERO_OLD] = "resize.zero",
    [LW_LOSS_OLD] = "loss.ledger",
    [LW_LOSS_REPLACE] = "loss.replace.ledger",
    [LW_GROW_ASK] = "grow.ledger",
    [LW_GROW] = "grow.admit",
    [LW_ADMIT_MIN] = "elastic.ledger",
    [LW_MEMBER] = NULL,
    [LW_MEMBER_UNDO] = NULL,
};

struct lwrite *ctl__lw_add(struct ctl *c, struct binding *b, int kind, const char *state)
{
    if (c->lw.n == c->lw.cap) {
        size_t cap = c->lw.cap ? c->lw.cap * 2 : 256;
        struct lwrite *n = muster_realloc(c->lw.v, cap * sizeof(*n));
        if (!n)
            return NULL;
        c->lw.v = n;
        c->lw.cap = cap;
    }
    struct lwrite *w = &c->lw.v[c->lw.n++];
    memset(w, 0, sizeof(*w));
    w->b = b;
    b->lw_pending++;
    w->kind = kind;
    w->row.state = state;
    w->row.updated_at = now_ms(c);
    w->row.mode = b->assign ? "assign" : "resume";
    w->row.barrier = b->barrier;
    w->row.user_dispatching = b->user_dispatching;
    ctl__kick(c);
    return w;
}

struct lwrite *ctl__lw_admitted(struct ctl *c, struct binding *b, int kind, int64_t at)
{
    struct lwrite *w = ctl__lw_add(c, b, kind, "admitted");
    if (!w) {
        ctl__fatal(c, "out of memory");
        return NULL;
    }
    w->row.id = b->ledger_id;
    if (ctl__lw_set_clusters(w, b)) {
        ctl__fatal(c, "out of memory");
        return NULL;
    }
    w->row.admitted_at = at;
    return w;
}

int ctl__lw_set_clusters(struct lwrite *w, const struct binding *b)
{
    /* sized for the longest share: a name, a count, and a split's groups per set, so the row
     * never holds cut JSON (the store would refuse it) */
    size_t cap = 4 + (size_t)b->nshares * (CTL_CLUSTER_NAME_MAX + 48 + CTL_SPLIT_SETS_MAX * 7);
    char *buf = muster_malloc(cap);
    if (!buf)
        return MUSTER_ENOMEM;
    ctl__clusters_text(b, buf, cap);
    muster_free(w->clusters);
    w->clusters = buf;
    w->row.clusters = w->clusters;
    return 0;
}

/* The groups share sh runs per set (share.groups), as ,"groups":[..] at buf; nothing when
 * b is not split or none is recorded. */
static size_t groups_text(const struct binding *b, const struct share *sh, char *buf, size_t cap)
{
    uint32_t nsets = b->split_sets < CTL_SPLIT_SETS_MAX ? b->split_sets : CTL_SPLIT_SETS_MAX;
    int any = 0;
    for (uint32_t j = 0; b->split_pods && j < nsets; j++)
        any |= sh->groups[j] != 0;
    if (!any || cap == 0)
        return 0;
    size_t n = (size_t)snprintf(buf, cap, ",\"groups\":[");
    for (uint32_t j = 0; j < nsets && n < cap; j++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%u", j ? "," : "", (unsigned)sh->groups[j]);
    if (n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "]");
    return n;
}

void ctl__clusters_text(const struct binding *b, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (uint32_t i = 0; i < b->nshares && n < cap; i++) {
        n += (size_t)snprintf(buf + n, cap - n, "%s{\"name\":\"%s\",\"replicas\":%" PRId32,
                              i ? "," : "", b->shares[i].cluster, b->shares[i].replicas);
        if (n < cap)
            n += groups_text(b, &b->shares[i], buf + n, cap - n);
        if (n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "}");
    }
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

/* A full row for an insert: the binding's identity and request. */
char *ctl__request_text(const struct ctl *c, const struct queue_resvec *v)
{
    /* the bytes json-c printed for kube_resvec_json's tree (slashes escaped), without one */
    char stack[256];
    struct kube_jw jw;
    kube_jw_init(&jw, stack, sizeof stack, 1);
    kube_resvec_write(&jw, c->names, v);
    char *txt = jw.bad ? NULL : muster_strdup(jw.buf);
    kube_jw_free(&jw);
    return txt;
}

int ctl__lw_fill_new(struct ctl *c, struct lwrite *w, struct binding *b)
{
    w->request = ctl__request_text(c, &b->gang);
    if (!w->request)
        return MUSTER_ENOMEM;
    w->row.id = 0;
    w->row.binding = b->key;
    w->row.uid = ""; /* the flush writes the binding's uid as it is then */
    w->row.queue = b->queue;
    w->row.request = w->request;
    w->row.priority = b->priority;
    w->row.created_at = b->created_at;
    w->row.attempt = b->attempt;
    w->row.not_before = b->not_before;
    return ctl__lw_set_clusters(w, b);
}

/* Leading, as far as the clock says too (ctl_options.fence). */
int ctl__leads(const struct ctl *c)
{
    return c->leading && (!c->opt.fence || c->opt.fence(c->opt.fence_ud));
}

void ctl__fatal(struct ctl *c, const char *what)
{
    ctl__notice(
        c, "error",
        "the ledger could not be written (%s: %s); muster stops dispatching rather than act "
        "on a decision it could not record",
        what, store_errmsg(c->s));
    c->leading = 0;
    c->stopping = 1;
    uv_stop(c->loop);
}

void ctl__ledger_flush(struct ctl *c)
{
    if (!c->lw.n)
        return;
    size_t n = c->lw.n;
    struct store_ledger_row *rows = muster_malloc(n * sizeof(*rows));
    /* the bindings keep their uids as bytes (ctl__uid): the rows' text, until the batch is written */
    char(*uids)[CTL_UID_MAX] = rows ? muster_malloc(n * sizeof(*uids)) : NULL;
    if (!uids) {
        muster_free(rows);
        ctl__fatal(c, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        rows[i] = c->lw.v[i].row;
        /* The text buffers live in the entries, which moved if the array grew since each row
         * was filled in: point at them where they are now. */
        if (rows[i].reason)
            rows[i].reason = c->lw.v[i].reason;
        if (rows[i].request)
            rows[i].request = c->lw.v[i].request;
        rows[i].loss = c->lw.v[i].loss;
        rows[i].grow = c->lw.v[i].grow;
        /* A binding's uid and queue are pointers it replaces when they change (an inline array
         * was read as it is now): the row takes them as they are now too. */
        if (rows[i].uid)
            rows[i].uid = ctl__uid(c->lw.v[i].b, uids[i]);
        if (rows[i].queue)
            rows[i].queue = c->lw.v[i].b->queue;
    }
    /* Preemptions decided in this iteration: their counts commit with the victims' rows. */
    int preempting = c->rcl.ncnt > 0, rc;
    if (preempting) {
        rc = store_begin(c->s);
        if (!rc)
            rc = store_ledger_write_batch(c->s, rows, n);
        if (!rc)
            rc = ctl__reclaim_flush_counts(c, now_ms(c));
        rc = rc ? (store_rollback(c->s), rc) : store_commit(c->s);
        if (!rc) {
            disp_crashpoint("reclaim.ledger");
            ctl__reclaim_counted(c);
        }
    } else {
        rc = store_ledger_write_batch(c->s, rows, n);
    }
    c->st.ledger_batches++;
    if (!rc && c->opt.metrics)
        disp_metrics_ledger_commit(c->opt.metrics);
    muster_free(uids);
    if (rc) {
        muster_free(rows);
        for (size_t i = 0; i < n; i++) {
            muster_free(c->lw.v[i].request);
            muster_free(c->lw.v[i].loss);
            muster_free(c->lw.v[i].grow);
            muster_free(c->lw.v[i].clusters);
        }
        c->lw.n = 0;
        ctl__fatal(c, "batch");
        return;
    }
    /* The actions: only now may the hub hear of these decisions. They may decide more (a
     * rollback's new row): that goes into a fresh batch for the next flush. */
    struct lwrite *batch = c->lw.v;
    c->lw.v = NULL;
    c->lw.n = c->lw.cap = 0;
    for (size_t i = 0; i < n; i++) {
        struct lwrite *w = &batch[i];
        struct binding *b = w->b;
        disp_crashpoint(lw_crashpoint[w->kind]);
        muster_free(w->request);
        w->request = NULL;
        muster_free(w->loss);
        w->loss = NULL;
        muster_free(w->grow);
        w->grow = NULL;
        muster_free(w->clusters);
        w->clusters = NULL;
        b->lw_pending--;
        ctl__cool_point(c);
        switch (w->kind) {
        case LW_NEW:
        case LW_ROLLBACK_NEW:
            ctl__byid_set(c, b, rows[i].id);
            if (b->gone) {
                /* its RB went while the row was being written */
                b->st = B_PENDING;
                ctl__release(c, b, "deleted");
            } else if (w->kind == LW_ROLLBACK_NEW) {
                ctl__undo_start(c, b);
            } else if (b->st == B_UNDO) {
                ctl__undo_start(c, b);
            } else {
                ctl__engine_add(c, b);
                if (kube_json_bool(kube_json_path(ctl__rb(c, b), "spec", "suspension", NULL),
                                   "scheduling") != 1) {
                    b->step = S_HOLD;
                    ctl__step_run(c, b);
                }
            }
            break;
        case LW_ADOPT:
        case LW_ADOPT_ROW: {
            ctl__byid_set(c, b, rows[i].id);
            struct queue_entry_spec es = {.id = (uint64_t)b->ledger_id,
                                          .queue = b->queue,
                                          .priority = b->priority,
                                          .created_at = b->created_at,
                                          .request = &b->gang};
            struct queue_entry *e;
            struct queue_error qe;
            if (queue_entry_add_admitted(c->t, &es, &e, &qe))
                ctl__notice(c, "warning", "%s: adopted, but queue %s cannot count it: %s", b->key,
                            b->queue, qe.msg);
            break;
        }
        case LW_ADMIT:
        case LW_ADMIT_MIN:
            /* A fresh admission starts at step 2: nothing of this attempt is on the hub, and
             * an earlier attempt's Works may still look done in the cache while their delete
             * is on its way. A row taken back to admitted at start-up (readmit) goes on from
             * what the hub shows. */
            if (ctl__act(b)->resume) {
                ctl__act_w(c, b)->resume = 0;
                ctl__forward_resume(c, b);
            } else {
                ctl__forward_from(c, b, ctl__forward_first(b));
            }
            break;
        case LW_LOSS_REPLACE:
            /* The lost share moved: the protocol runs forward for the new placement, from the
             * gang objects (those of the shares that run are met by 409 and patched to this
             * body: a grown share's minMember). */
            ctl__loss_replaced(c, b);
            if (b->st == B_ADMITTED && !b->gone)
                ctl__forward_from(c, b, ctl__forward_first(b));
            break;
        case LW_RELEASE:
            /* The PodGroup Works go at once (the OverridePolicy stays: docs/gangobj.md). A
             * request still in flight finishes first; its step_done sees the binding DONE and
             * turns to the delete. A step only waiting (Applied, the barrier, a retry) stops. */
            if (b->inflight == 0) {
                if (b->step != S_STATUS && b->step != S_STATUS_READ)
                    b->step = b->needs_objects && b->assign ? S_R_WORKS : S_NONE;
                ctl__step_run(c, b); /* a Scheduled=True still to write goes first (step_done) */
            }
            break;
        case LW_RESIZE:
            ctl__resize_apply(c, b); /* the engine, the clusters, then the hub */
            break;
        case LW_MEMBER_UNDO:
            if (!b->gone && b->st == B_UNDO)
                ctl__undo_start(c, b); /* its lead went mid-protocol (podgroup.c) */
            break;
        case LW_GROW_ASK:
            ctl__grow_queued(c, b); /* the delta waits in the engine */
            break;
        case LW_GROW:
            /* The delta is in the gang: the protocol runs forward for the grown placement, as
             * after a Replace (the running shares' Works are met by 409 and patched to the
             * new minMember; a new cluster's is created; the barrier covers the rendering). */
            if (b->st == B_ADMITTED && !b->gone)
                ctl__forward_from(c, b, ctl__forward_first(b));
            break;
        default:
            break;
        }
        /* An RB change met while this write was out (ctl__resize_check) waits for no further
         * event: a dispatched gang's RB may not change again, and until it is judged its
         * waiting delta is not offered (ctl__grow_offer). */
        if (ctl__reread_owed(b))
            ctl__binding_react(c, b, 0);
        ctl__maybe_free(c, b);
    }
    muster_free(rows);
    muster_free(batch);
}
