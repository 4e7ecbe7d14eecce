/* The fleet as the cycle sees it: each Cluster's capacity and grades, muster's reservations in
 * it, and the snapshot a cycle places against. */
#include "dispatcher/controller/ctl_int.h"

static int kres_add(struct cluster *k, uint64_t aseq, uint32_t share);

struct cluster *ctl__cluster_find(struct ctl *c, const char *name)
{
    for (uint32_t i = 0; i < c->fleet.ncl; i++)
        if (strcmp(c->fleet.cl[i].name, name) == 0)
            return &c->fleet.cl[i];
    return NULL;
}

void ctl__cluster_close(struct cluster *k)
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
    ctl__logf(c, "cluster %s: %s%s", k->name, msg,
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
    int rc = kube_resvec_parse(c->names, o, "", out, err, sizeof err);
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
    json_object *models = kube_json_path(obj, "spec", "resourceModels", NULL);
    json_object *counts = kube_json_get(kube_json_path(obj, "status", "resourceSummary", NULL),
                                        "allocatableModelings");
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
        json_object *ranges = kube_json_get(m, "ranges");
        json_object *gv = kube_json_get(m, "grade");
        int64_t grade = gv ? json_object_get_int64(gv) : (int64_t)i;
        struct disp_grade *gr = &k->grades[k->ngrades];
        for (size_t r = 0; ranges && r < json_object_array_length(ranges); r++) {
            json_object *rg = json_object_array_get_idx(ranges, r);
            const char *name = kube_json_str(rg, "name"), *min = kube_json_str(rg, "min");
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
            json_object *ge = kube_json_get(e, "grade"), *ce = kube_json_get(e, "count");
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

/* A cluster that (re)appears while gangs hold shares in it by name (it was deleted and created
 * again): those shares are reserved in it again, as a fresh snapshot would. Rare: walks the
 * active set. */
static void cluster_track_shares(struct ctl *c, struct cluster *k)
{
    for (struct binding *b = c->active.next; b != &c->active; b = b->next)
        for (uint32_t i = 0; ctl__act(b)->aseq && b->assign && i < b->nshares; i++)
            if (strcmp(b->shares[i].cluster, k->name) == 0 && kres_add(k, ctl__act(b)->aseq, i)) {
                ctl__fatal(c, "out of memory");
                return;
            }
}

void ctl__cluster_set(struct ctl *c, json_object *obj)
{
    const char *name = kube_json_str(kube_json_get(obj, "metadata"), "name");
    if (!name || strlen(name) >= CTL_CLUSTER_NAME_MAX)
        return;
    struct cluster *k = ctl__cluster_find(c, name);
    if (!k) {
        if (c->fleet.ncl == c->fleet.capcl) {
            uint32_t cap = c->fleet.capcl ? c->fleet.capcl * 2 : 16;
            struct cluster *n = muster_realloc(c->fleet.cl, cap * sizeof(*n));
            if (!n)
                return;
            c->fleet.cl = n;
            c->fleet.capcl = cap;
        }
        k = &c->fleet.cl[c->fleet.ncl++];
        memset(k, 0, sizeof(*k));
        snprintf(k->name, sizeof k->name, "%s", name);
        k->expire_at = INT64_MAX;
    }
    int was_ready = k->ready;
    json_object *keep = json_object_get(obj);
    json_object_put(k->obj);
    k->obj = keep;
    k->gen++;
    uint64_t shape =
        queue_hash_fnv1a64_str(
            QUEUE_HASH_FNV64_BASIS,
            json_object_to_json_string_ext(kube_json_path(obj, "metadata", "labels", NULL),
                                           JSON_C_TO_STRING_PLAIN)) ^
        (queue_hash_fnv1a64_str(
             QUEUE_HASH_FNV64_BASIS,
             json_object_to_json_string_ext(kube_json_get(obj, "spec"), JSON_C_TO_STRING_PLAIN)) *
         31);
    if (shape != k->shape || k->gen == 1) {
        k->shape = shape;
        c->fleet.epoch++;
    }
    k->dialect_detected = karmada_gang_dialect_detect(obj);
    k->wl_version = karmada_gang_wl_version_detect(obj);
    k->hypernodes = karmada_member_topo_detect(obj);
    k->tiernames = karmada_member_topo_names_detect(obj);
    ctl__cluster_dialect_apply(c, k);
    int no_vc = karmada_workload_cluster_serves(obj, "batch.volcano.sh/v1alpha1", "jobs") == 0;
    if (no_vc != k->no_vcjobs) {
        k->no_vcjobs = no_vc;
        c->fleet.epoch++;
        ctl__logf(c, "cluster %s: %s", k->name,
                  no_vc ? "status.apiEnablements lists no batch.volcano.sh/v1alpha1 jobs: Volcano "
                          "Jobs are not placed there until it does"
                        : "serves Volcano Jobs again");
        ctl__missing_refresh(c);
    }
    uint32_t no_kinds = 0;
    char lacking[160] = "";
    for (int kd = KARMADA_WORKLOAD_KIND_JOBSET; kd <= KARMADA_WORKLOAD_KIND_TRAINJOB; kd++) {
        const char *gv, *res;
        if (karmada_workload_kind_api((enum karmada_workload_kind)kd, &gv, &res) == 0 &&
            karmada_workload_cluster_serves(obj, gv, res) == 0) {
            no_kinds |= KARMADA_WORKLOAD_KIND_API_BIT(kd);
            size_t l = strlen(lacking);
            snprintf(lacking + l, sizeof lacking - l, "%s%s", l ? ", " : "", res);
        }
    }
    if (no_kinds != k->no_kinds) {
        k->no_kinds = no_kinds;
        c->fleet.epoch++;
        ctl__logf(c, "cluster %s: %s%s", k->name,
                  no_kinds ? "status.apiEnablements lists none of these, which are not placed "
                             "there until it does: "
                           : "serves every kind muster queues again",
                  lacking);
    }
    /* What a loss is judged on (loss.c): since when Ready is not True, by its
     * lastTransitionTime (a restart does not start the grace period again), else from when
     * muster first saw it so; and whether a NoExecute taint is there. */
    int64_t since = 0;
    if (karmada_workload_cluster_ready(obj, &since))
        k->unready_since = 0;
    else if (since > 0)
        k->unready_since = since;
    else if (!k->unready_since)
        k->unready_since = now_ms(c);
    int64_t until;
    int noexec = karmada_workload_noexecute(NULL, obj, &until, NULL, 0);
    if (noexec && !k->noexec)
        ctl__kick(c);
    k->noexec = noexec;
    k->ready = 0;
    json_object *conds = kube_json_path(obj, "status", "conditions", NULL);
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
        json_object *cd = json_object_array_get_idx(conds, i);
        const char *type = kube_json_str(cd, "type"), *status = kube_json_str(cd, "status");
        if (type && status && strcmp(type, "Ready") == 0)
            k->ready = strcmp(status, "True") == 0;
    }
    json_object *sum = kube_json_path(obj, "status", "resourceSummary", NULL);
    memcpy(k->res_prev, k->res_warned, sizeof k->res_prev);
    k->res_warned[0] = '\0';
    if (resmap(c, k, "allocatable", kube_json_get(sum, "allocatable"), &k->capacity) ||
        resmap(c, k, "allocated", kube_json_get(sum, "allocated"), &k->allocated) ||
        resmap(c, k, "allocating", kube_json_get(sum, "allocating"), &k->allocating) ||
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
        k->grew = ++c->fleet.grow_seq; /* a cluster placement may now use, or must now name */
    if (k->gen == 1)
        cluster_track_shares(c, k);
    c->fleet.dirty = 1;
    c->cyc.wanted = 1;
    cluster_publish(c, k);
    if (c->opt.metrics) {
        for (uint32_t i = 0; i < k->capacity.len; i++)
            disp_metrics_cluster_capacity(c->opt.metrics, k->name,
                                          queue_resnames_name(c->names, k->capacity.items[i].id),
                                          k->capacity.items[i].milli);
    }
    ctl__kick(c);
}

void ctl__cluster_remove(struct ctl *c, json_object *obj)
{
    const char *name = kube_json_str(kube_json_get(obj, "metadata"), "name");
    struct cluster *k = name ? ctl__cluster_find(c, name) : NULL;
    if (!k)
        return;
    if (c->opt.metrics)
        disp_metrics_cluster_forget(c->opt.metrics, k->name);
    ctl__cluster_close(k);
    c->fleet.epoch++; /* indexes move */
    *k = c->fleet.cl[--c->fleet.ncl];
    memset(&c->fleet.cl[c->fleet.ncl], 0, sizeof(c->fleet.cl[c->fleet.ncl]));
}

/* Reserves n replicas of each component of b's share sh in k's cap, and counts them in
 * k->reserved (for the API). The cluster reporting less room than muster has promised loses
 * all of it, so nothing more goes there until its report catches up. */
void ctl__cap_take(struct ctl *c, struct cluster *k, const struct binding *b,
                   const struct share *sh)
{
    for (uint32_t j = 0; j < b->ncomp; j++) {
        int64_t n = ctl__share_comp_pods(b, sh, j);
        if (disp_cluster_reserve(&k->cap, &b->comp[j].req, (uint64_t)n)) {
            queue_resvec_clear(&k->cap.free);
            k->cap.ngrades = 0;
            disp_cluster_cap_close_parts(&k->cap);
        }
        queue_resvec_clear(&c->fleet.scratch);
        for (uint32_t r = 0; r < b->comp[j].req.len; r++) {
            int64_t v;
            if (!queue_milli_mul(b->comp[j].req.items[r].milli, n, &v))
                queue_resvec_set(&c->fleet.scratch, b->comp[j].req.items[r].id, v);
        }
        queue_resvec_add(&k->reserved, &c->fleet.scratch);
    }
    k->cap_ver++;
    c->fleet.cap_changes++;
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
    if (queue_resvec_copy(&c->fleet.scratch, &k->cap.free))
        return MUSTER_ENOMEM;
    for (uint32_t j = 0; j < old_ngrades && j < 64; j++)
        old_nodes[j] = k->cap.grades[j].nodes;
    int grew = old_ngrades != k->ngrades || old_ngrades > 64;
    for (uint32_t i = 0; !grew && i < k->free.len; i++)
        grew = k->free.items[i].milli > queue_resvec_get(&c->fleet.scratch, k->free.items[i].id);
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
        const struct binding *b = queue_idmap_get(&c->fleet.byseq, r.aseq);
        if (!b || !b->assign || r.share >= b->nshares ||
            strcmp(b->shares[r.share].cluster, k->name) != 0)
            continue;
        const struct share *sh = &b->shares[r.share];
        if (sh->running && (k->gen > sh->confirm_gen || now - sh->running_at > CTL_CONFIRM_MAX_MS))
            continue; /* the cluster's own report counts it now */
        if (sh->running && sh->running_at + CTL_CONFIRM_MAX_MS < k->expire_at)
            k->expire_at = sh->running_at + CTL_CONFIRM_MAX_MS;
        ctl__cap_take(c, k, b, sh);
        k->res[kept++] = r;
    }
    k->nres = kept;
    k->stale = 0;
    k->cap_ver++;
    c->fleet.cap_changes++;
    k->reserved_dirty = 1;
    if (grew)
        k->grew = ++c->fleet.grow_seq;
    return 0;
}

/* Every cluster's room for this cycle: what it reports free, less muster's reservations still
 * in flight (admitted gangs, and running ones until the cluster's report has caught up with
 * them). Only clusters whose room changed other than by this loop's own admissions are
 * rebuilt; the others carry on from the last cycle, admissions already taken out. */
int ctl__cycle_snapshot(struct ctl *c)
{
    if (c->fleet.dirty) {
        /* The engine's root is bounded by the Ready fleet, so shares are computed against
         * what exists; placement still decides node by node. */
        struct queue_resvec fleet = {0};
        for (uint32_t i = 0; i < c->fleet.ncl; i++)
            if (c->fleet.cl[i].ready)
                queue_resvec_add(&fleet, &c->fleet.cl[i].capacity);
        if (fleet.len && queue_resvec_cmp(&fleet, &c->fleet.total) != 0) {
            queue_tree_set_fleet(c->t, &fleet);
            queue_resvec_copy(&c->fleet.total, &fleet);
            c->cyc.forced = 1;
        }
        queue_resvec_close(&fleet);
        c->fleet.dirty = 0;
    }
    int64_t now = now_ms(c);
    for (uint32_t i = 0; i < c->fleet.ncl; i++) {
        struct cluster *k = &c->fleet.cl[i];
        if ((c->fleet.all_stale || k->stale || now > k->expire_at) && cap_rebuild(c, k, now))
            return MUSTER_ENOMEM;
    }
    c->fleet.all_stale = 0;
    for (uint32_t i = 0; c->opt.metrics && i < c->fleet.ncl; i++) {
        if (!c->fleet.cl[i].reserved_dirty)
            continue;
        c->fleet.cl[i].reserved_dirty = 0;
        for (uint32_t r = 0; r < c->fleet.cl[i].capacity.len; r++) {
            uint32_t id = c->fleet.cl[i].capacity.items[r].id;
            disp_metrics_cluster_reserved(c->opt.metrics, c->fleet.cl[i].name,
                                          queue_resnames_name(c->names, id),
                                          queue_resvec_get(&c->fleet.cl[i].reserved, id));
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
void ctl__shares_track(struct ctl *c, struct binding *b)
{
    ctl__act_w(c, b)->aseq = ++c->fleet.aseq_next;
    if (queue_idmap_put(&c->fleet.byseq, ctl__act(b)->aseq, b)) {
        ctl__act_w(c, b)->aseq = 0;
        ctl__fatal(c, "out of memory");
        return;
    }
    for (uint32_t i = 0; b->assign && i < b->nshares; i++) {
        struct cluster *k = ctl__cluster_find(c, b->shares[i].cluster);
        if (!k)
            continue;
        if (kres_add(k, ctl__act(b)->aseq, i)) {
            ctl__fatal(c, "out of memory");
            return;
        }
        if (!c->fleet.admitting)
            k->stale = 1;
    }
}

/* b left the active set: its reservations go, so its clusters are rebuilt at the next cycle. */
void ctl__shares_untrack(struct ctl *c, struct binding *b)
{
    if (!ctl__act(b)->aseq)
        return;
    queue_idmap_del(&c->fleet.byseq, ctl__act(b)->aseq);
    ctl__act_w(c, b)->aseq = 0;
    for (uint32_t i = 0; i < b->nshares; i++) {
        struct cluster *k = ctl__cluster_find(c, b->shares[i].cluster);
        if (k)
            k->stale = 1;
    }
}
