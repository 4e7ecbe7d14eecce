/* The dispatch loop against a hub (controller.h, docs/dispatcher.md): its life (new, start,
 * stop, free) and the hooks the admin API reads it through. The work is done in controller/. */
#include "dispatcher/controller/ctl_int.h"

static const char *hook_reason(void *ud, int64_t id)
{
    struct ctl *c = ud;
    struct binding *b = queue_idmap_get(&c->byid, (uint64_t)id);
    if (!b)
        return NULL;
    if (b->st == B_PENDING && !ctl__binding_msg(b)[0])
        ctl__pending_reason(c, b);
    if (b->grow && !b->grow->admitted && strncmp(ctl__binding_msg(b), "scale up by ", 12) == 0)
        return ctl__binding_msg(b); /* a dispatched gang's waiting delta (resize.c) */
    return ctl__binding_msg(b)[0] && b->st < B_ADMITTED ? ctl__binding_msg(b) : NULL;
}

static json_object *hook_clusters(void *ud)
{
    struct ctl *c = ud;
    json_object *arr = json_object_new_array();
    if (!arr)
        return NULL;
    ctl__cycle_snapshot(c); /* refreshes muster's reservations */
    /* replica sizes operators ask "how many more fit" about */
    static const char *const sizes[][2] = {{"1 GPU", "{\"nvidia.com/gpu\":\"1\"}"},
                                           {"8 GPUs", "{\"nvidia.com/gpu\":\"8\"}"},
                                           {"4 CPUs", "{\"cpu\":\"4\"}"}};
    for (uint32_t i = 0; i < c->fleet.ncl; i++) {
        struct cluster *k = &c->fleet.cl[i];
        json_object *o = json_object_new_object();
        if (!o)
            break;
        json_object_object_add(o, "name", json_object_new_string(k->name));
        json_object_object_add(o, "ready", json_object_new_boolean(k->ready));
        int over;
        enum karmada_gang_dialect d = ctl__cluster_dialect(c, k->name, &over);
        json_object_object_add(o, "gangDialect",
                               json_object_new_string(karmada_gang_dialect_name(d)));
        json_object_object_add(o, "gangDialectSource",
                               json_object_new_string(over ? "override" : "detected"));
        if (d == KARMADA_GANG_DIALECT_WORKLOAD_API) /* which PodGroup its Works carry */
            json_object_object_add(o, "workloadAPIVersion",
                                   json_object_new_string(karmada_gang_wl_api_version(
                                       ctl__cluster_wl_version(c, k->name))));
        /* whether its PodGroups carry Volcano's networkTopology (gang_nettopo.h) */
        json_object_object_add(o, "networkTopology", json_object_new_boolean(!k->no_nettopo));
        /* and whether they may name the tier (highestTierName, Volcano v1.14) */
        json_object_object_add(o, "networkTopologyTierNames",
                               json_object_new_boolean(!k->no_tiernames));
        json_object *labels = kube_json_path(k->obj, "metadata", "labels", NULL);
        json_object_object_add(o, "labels",
                               labels ? json_object_get(labels) : json_object_new_object());
        json_object_object_add(o, "capacity", kube_resvec_json(c->names, &k->capacity));
        json_object_object_add(o, "allocated", kube_resvec_json(c->names, &k->allocated));
        json_object_object_add(o, "allocating", kube_resvec_json(c->names, &k->allocating));
        json_object_object_add(o, "reserved", kube_resvec_json(c->names, &k->reserved));
        json_object_object_add(o, "free", kube_resvec_json(c->names, &k->cap.free));
        json_object *fits = json_object_new_array();
        for (size_t s = 0; fits && s < sizeof sizes / sizeof sizes[0]; s++) {
            struct queue_resvec v = {0};
            char err[64];
            if (kube_resvec_parse_text(c->names, sizes[s][1], "", &v, err, sizeof err))
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
    return c->pre.missing[0] ? c->pre.missing : NULL;
}

static int hook_leading(void *ud)
{
    return ((struct ctl *)ud)->leading;
}

static int hook_synced(void *ud)
{
    return ((struct ctl *)ud)->reconciled;
}

static int hook_dialects_changed(void *ud)
{
    return ctl__dialects_refresh((struct ctl *)ud);
}

static void hook_queues_changed(void *ud, const char *name)
{
    struct ctl *c = ud;
    (void)name;
    ctl__timeouts_refresh(c);
    ctl__tenancy_refresh(c);
    /* a parked binding may queue now (its queue came, a selector admits it), a pending one
     * may no longer be admitted by its queue's selector */
    ctl__tenancy_rejudge(c, NULL);
}

static int hook_webhook_refuse(void *ud, json_object *rb, char *why, size_t cap)
{
    return ctl__tenancy_refuses(ud, rb, why, cap);
}

void ctl_api_hooks(struct ctl *c, struct api_dispatcher *out)
{
    *out = (struct api_dispatcher){.ud = c,
                                   .binding_reason = hook_reason,
                                   .clusters = hook_clusters,
                                   .hub_synced = hook_synced,
                                   .queues_changed = hook_queues_changed,
                                   .leading = hook_leading,
                                   .degraded = hook_degraded,
                                   .webhook_refuse = c->opt.webhook_tenancy ? hook_webhook_refuse
                                                                            : NULL,
                                   .dialects_changed = hook_dialects_changed};
}

static void on_cool(uv_check_t *h)
{
    ctl__cool_run(h->data);
}

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
    c->fleet.epoch = 1;
    /* a binding holds its own key: a slot is a pointer (8 bytes of every pending binding's 16,
     * issue 22); ctl__byid_set keeps the key and the slot in step */
    queue_idmap_init_keyed(&c->byid, offsetof(struct binding, ledger_id));
    queue_idmap_init(&c->fleet.byseq);
    if (ctl__tables_grow(c) || karmada_workload_init(&c->w)) {
        ctl_free(c);
        return MUSTER_ENOMEM;
    }
    uv_timer_init(loop, &c->tick);
    uv_idle_init(loop, &c->kick);
    uv_timer_init(loop, &c->pace);
    uv_timer_init(loop, &c->soon);
    uv_check_init(loop, &c->coolh);
    c->tick.data = c->kick.data = c->pace.data = c->soon.data = c->coolh.data = c;
    c->handles_open = 5;
    uv_check_start(&c->coolh, on_cool);
    uv_unref((uv_handle_t *)&c->coolh); /* it runs while the loop does, keeps nothing alive */
    c->pre.hub_pg = -1;
    for (int a = 0; a < CTL_HUB_APIS; a++)
        c->pre.hub_api[a] = -1; /* not asked yet: held against no member */
    ctl__dialects_refresh(c); /* before the clusters' first events: their dialects hold at once */
    *out = c;
    return 0;
}

int ctl_start(struct ctl *c)
{
    int rc = ctl__watches_start(c);
    if (rc)
        return rc;
    ctl__prereq_check(c);
    uv_timer_start(&c->tick, ctl__on_tick, CTL_TICK_MS, CTL_TICK_MS);
    return 0;
}

void ctl_set_leading(struct ctl *c, int leading)
{
    c->leading = leading;
    if (leading && !c->reconciled && c->watch.started && c->watch.nsynced == c->watch.started)
        ctl__reconcile(c);
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
    ctl__stop_maybe_done(c);
}

static void on_informer_closed(struct kube_informer *inf)
{
    struct inf_tag *t = inf->ud;
    t->c->watch.open--;
    ctl__stop_maybe_done(t->c);
}

void ctl__stop_maybe_done(struct ctl *c)
{
    if (c->handles_open || c->watch.open || !c->stop_cb)
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
    ctl__ledger_flush(c);
    uv_close((uv_handle_t *)&c->tick, on_handle_closed);
    uv_close((uv_handle_t *)&c->kick, on_handle_closed);
    uv_close((uv_handle_t *)&c->pace, on_handle_closed);
    uv_close((uv_handle_t *)&c->soon, on_handle_closed);
    uv_close((uv_handle_t *)&c->coolh, on_handle_closed);
    for (int a = 0; a < CTL_HUB_APIS; a++)
        if (c->pre.call[a])
            kube_call_cancel(c->pre.call[a]);
    for (int i = 0; i < c->watch.started; i++)
        kube_informer_close((struct kube_informer *)((char *)c + ctl__watches[i].informer),
                            on_informer_closed);
    ctl__stop_maybe_done(c);
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
    ctl__ledger_flush(c);
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
            ctl__binding_destroy(b);
        }
    }
    for (uint32_t i = 0; i < c->fleet.ncl; i++)
        ctl__cluster_close(&c->fleet.cl[i]);
    muster_free(c->fleet.cl);
    muster_free(c->cool.v);
    muster_free(c->dov);
    ctl__reclaim_close(c);
    for (size_t i = 0; i < c->lw.n; i++)
        muster_free(c->lw.v[i].request);
    muster_free(c->lw.v);
    muster_free(c->bykey);
    muster_free(c->bytkey);
    ctl__hubpg_close(c);
    ctl__pg_close(c);
    muster_free(c->qt.v);
    ctl__tenancy_close(c);
    queue_idmap_close(&c->byid);
    queue_idmap_close(&c->fleet.byseq);
    queue_resvec_close(&c->fleet.scratch);
    queue_resvec_close(&c->fleet.total);
    queue_resvec_close(&c->nl.req);
    karmada_workload_close(&c->w);
    for (uint32_t i = 0; i < c->qn.cap; i++)
        muster_free(c->qn.v[i]);
    muster_free(c->qn.v);
    muster_free(c);
}
