/* The member clusters: each one's nodes, the shares it runs (first fit, gangs all or nothing,
 * scripted durations), what it reports, and the Cluster object's status. */
#include "cluster-adapters/sim/execution.h"
#include "cluster-adapters/sim/gracefuleviction.h"
#include "cluster-adapters/sim/taint.h"
#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/interpret_kinds.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/rbstatus.h"
#include "cluster-adapters/sim/detector.h"
#include "cluster-adapters/sim/binding.h"
#include "cluster-adapters/sim/discovery.h"

#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/quantity.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "queue/search.h"
#include "queue/mem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- cluster status ---- */

struct cluster *sim__find_cluster(struct sim_karmada *k, const char *name)
{
    for (size_t i = 0; i < k->nclusters; i++)
        if (strcmp(k->clusters[i].name, name) == 0)
            return &k->clusters[i];
    return NULL;
}

/* Places one pod of per-pod requests req first-fit on c's nodes; returns its node's index, or
 * c->nnodes when it fits nowhere (Pending, which Karmada counts as "allocating"). */
static size_t place_one(struct sim_karmada *k, struct cluster *c, const int64_t *req)
{
    size_t n;
    for (n = 0; n < c->nnodes; n++) {
        struct node *nd = &c->nodes[n];
        int fits = 1;
        for (size_t i = 0; i < k->nres && fits; i++)
            fits = nd->used[i] + req[i] <= nd->alloc[i];
        if (fits) {
            for (size_t i = 0; i < k->nres; i++)
                nd->used[i] += req[i];
            break;
        }
    }
    return n;
}

/* ---- member clusters: shares, gangs, durations, reported status ---- */

/* "90", "90s", "5m", "2h" in seconds; 0 when absent or malformed (runs forever). */
static int64_t parse_duration(const char *s)
{
    if (!s || !*s)
        return 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (v <= 0)
        return 0;
    if (!*end || strcmp(end, "s") == 0)
        return v;
    if (strcmp(end, "m") == 0)
        return v * 60;
    if (strcmp(end, "h") == 0)
        return v * 3600;
    return 0;
}

static json_object *pod_template_meta(json_object *obj)
{
    const char *kind = sim__get_str(obj, "kind", NULL, NULL);
    if (kind && strcmp(kind, "Pod") == 0)
        return sim__get_path(obj, "metadata", NULL, NULL);
    if (sim__is_kind19(obj))
        return sim__kind19_pod_meta(obj);
    return sim__get_path(obj, "spec", "template", "metadata");
}

/* One workload manifest of a Work, as the member runs it. */
int sim__str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Index of the first PodGroup named >= name. */
static size_t pgs_lower_bound(const struct cluster *c, const char *name)
{
    return queue_search_str(c->pgs, c->npgs, sizeof(*c->pgs), offsetof(struct pgref, name), name);
}

static const struct pgref *pgs_find(const struct cluster *c, const char *name)
{
    size_t i = pgs_lower_bound(c, name);
    return i < c->npgs && strcmp(c->pgs[i].name, name) == 0 ? &c->pgs[i] : NULL;
}

static int pgs_add(struct cluster *c, const char *name, int64_t min, struct mwork *mw)
{
    if (c->npgs == c->cappgs) {
        size_t cap = c->cappgs ? c->cappgs * 2 : 16;
        struct pgref *v = muster_realloc(c->pgs, cap * sizeof(*v));
        if (!v)
            return MUSTER_ENOMEM;
        c->pgs = v;
        c->cappgs = cap;
    }
    size_t i = pgs_lower_bound(c, name);
    memmove(&c->pgs[i + 1], &c->pgs[i], (c->npgs - i) * sizeof(*c->pgs));
    c->pgs[i] = (struct pgref){name, min, mw};
    c->npgs++;
    return 0;
}

static void pgs_remove(struct cluster *c, const char *name, const struct mwork *mw)
{
    for (size_t i = pgs_lower_bound(c, name); i < c->npgs && strcmp(c->pgs[i].name, name) == 0;
         i++) {
        if (c->pgs[i].mw == mw) {
            memmove(&c->pgs[i], &c->pgs[i + 1], (c->npgs - i - 1) * sizeof(*c->pgs));
            c->npgs--;
            return;
        }
    }
}

/* The dependency of a running share as a deps key; 0 when it has none (a Volcano Job gangs
 * itself, a share whose pods name no PodGroup for Volcano runs ungated). */
static int dep_key(const struct unit *u, char *buf, size_t cap)
{
    if (!u->group)
        return 0;
    snprintf(buf, cap, "g" OP_SEP "%s", u->group);
    return 1;
}

static size_t deps_lower_bound(const struct cluster *c, const char *key)
{
    return queue_search_str(c->deps, c->ndeps, sizeof(*c->deps), offsetof(struct dep, key), key);
}

/* Counts u, which the nodes now hold, under its dependency. */
static void deps_add(struct cluster *c, const struct unit *u)
{
    char key[2 * NAME_MAX_LEN + 8];
    if (!dep_key(u, key, sizeof(key)))
        return;
    size_t i = deps_lower_bound(c, key);
    if (i < c->ndeps && strcmp(c->deps[i].key, key) == 0) {
        c->deps[i].n++;
        return;
    }
    char *k = muster_strdup(key);
    if (c->ndeps == c->capdeps && k) {
        size_t cap = c->capdeps ? c->capdeps * 2 : 16;
        struct dep *v = muster_realloc(c->deps, cap * sizeof(*v));
        if (v) {
            c->deps = v;
            c->capdeps = cap;
        }
    }
    if (!k || c->ndeps == c->capdeps) {
        muster_free(k);
        c->full = 1; /* unrecorded: the next sync places everything and counts again */
        return;
    }
    memmove(&c->deps[i + 1], &c->deps[i], (c->ndeps - i) * sizeof(*c->deps));
    c->deps[i] = (struct dep){k, 1};
    c->ndeps++;
}

void sim__deps_reset(struct cluster *c)
{
    for (size_t i = 0; i < c->ndeps; i++)
        muster_free(c->deps[i].key);
    c->ndeps = 0;
}

/* 1 when a share the nodes hold depends on PodGroup group ("namespace/name"): a change to it
 * moves running pods. Counts are kept from the last full placement on, and only consulted while
 * no full placement is due. */
static int running_depends(const struct cluster *c, const char *group)
{
    char key[2 * NAME_MAX_LEN + 8];
    snprintf(key, sizeof(key), "g" OP_SEP "%s", group);
    size_t i = deps_lower_bound(c, key);
    return i < c->ndeps && strcmp(c->deps[i].key, key) == 0 && c->deps[i].n > 0;
}

static int pend_cmp(const struct pend *p, const struct mwork *mw, size_t unit)
{
    int c = strcmp(p->mw->name, mw->name);
    return c ? c : (p->unit > unit) - (p->unit < unit);
}

struct pend_probe {
    const struct cluster *c;
    const struct mwork *mw;
    size_t unit;
};

static int pending_at_cmp(const void *ctx, size_t i)
{
    const struct pend_probe *p = ctx;
    return pend_cmp(&p->c->pending[i], p->mw, p->unit);
}

/* Index of the first pending share >= (mw, unit) in Work order. */
static size_t pending_lower_bound(const struct cluster *c, const struct mwork *mw, size_t unit)
{
    struct pend_probe p = {c, mw, unit};
    return queue_search_lower(0, c->npending, pending_at_cmp, &p);
}

static void pending_add(struct cluster *c, struct mwork *mw, size_t unit)
{
    if (c->npending == c->cappending) {
        size_t cap = c->cappending ? c->cappending * 2 : 16;
        struct pend *v = muster_realloc(c->pending, cap * sizeof(*v));
        if (!v) {
            c->full = 1; /* the full pass finds it again */
            return;
        }
        c->pending = v;
        c->cappending = cap;
    }
    size_t i = pending_lower_bound(c, mw, unit);
    memmove(&c->pending[i + 1], &c->pending[i], (c->npending - i) * sizeof(*c->pending));
    c->pending[i] = (struct pend){mw, unit};
    c->npending++;
}

static void pending_remove_work(struct cluster *c, const struct mwork *mw)
{
    size_t i = pending_lower_bound(c, mw, 0), j = i;
    while (j < c->npending && c->pending[j].mw == mw)
        j++;
    if (j == i)
        return; /* none (pending may still be NULL) */
    memmove(&c->pending[i], &c->pending[j], (c->npending - j) * sizeof(*c->pending));
    c->npending -= j - i;
}

static const char *member_group(const struct pend *p)
{
    return p->mw->units[p->unit].group;
}

struct group_probe {
    const struct cluster *c;
    const char *group;
};

static int member_at_cmp(const void *ctx, size_t i)
{
    const struct group_probe *p = ctx;
    return strcmp(member_group(&p->c->members[i]), p->group);
}

static size_t members_lower_bound(const struct cluster *c, const char *group)
{
    struct group_probe p = {c, group};
    return queue_search_lower(0, c->nmembers, member_at_cmp, &p);
}

static void members_add(struct cluster *c, struct mwork *mw, size_t unit)
{
    if (c->nmembers == c->capmembers) {
        size_t cap = c->capmembers ? c->capmembers * 2 : 16;
        struct pend *v = muster_realloc(c->members, cap * sizeof(*v));
        if (!v)
            return; /* its PodGroup reports without it: degrade, never crash */
        c->members = v;
        c->capmembers = cap;
    }
    size_t i = members_lower_bound(c, mw->units[unit].group);
    memmove(&c->members[i + 1], &c->members[i], (c->nmembers - i) * sizeof(*c->members));
    c->members[i] = (struct pend){mw, unit};
    c->nmembers++;
}

static void members_remove(struct cluster *c, const struct mwork *mw, size_t unit)
{
    for (size_t i = members_lower_bound(c, mw->units[unit].group);
         i < c->nmembers && strcmp(member_group(&c->members[i]), mw->units[unit].group) == 0; i++) {
        if (c->members[i].mw == mw && c->members[i].unit == unit) {
            memmove(&c->members[i], &c->members[i + 1],
                    (c->nmembers - i - 1) * sizeof(*c->members));
            c->nmembers--;
            return;
        }
    }
}

/* Lists mw among the Works the next sync reports on. */
static void touch(struct cluster *c, struct mwork *mw)
{
    if (mw->touched)
        return;
    if (c->ntouched == c->captouched) {
        size_t cap = c->captouched ? c->captouched * 2 : 16;
        struct mwork **v = muster_realloc(c->touched, cap * sizeof(*v));
        if (!v)
            return; /* its report waits for its next change: degrade, never crash */
        c->touched = v;
        c->captouched = cap;
    }
    c->touched[c->ntouched++] = mw;
    mw->touched = 1;
}

static void untouch(struct cluster *c, struct mwork *mw)
{
    for (size_t i = 0; mw->touched && i < c->ntouched; i++) {
        if (c->touched[i] == mw) {
            c->touched[i] = c->touched[--c->ntouched];
            mw->touched = 0;
        }
    }
}

/* Drops what mw contributed to the mirror (its unit and PodGroup), flagging a full placement
 * when running pods depended on any of it. Its shares stay. */
static void mwork_clear(struct cluster *c, struct mwork *mw)
{
    for (size_t i = 0; i < mw->nunits; i++)
        if (mw->units[i].in_run)
            c->full = 1;
    pending_remove_work(c, mw);
    for (size_t i = 0; i < mw->nunits; i++)
        if (mw->units[i].group)
            members_remove(c, mw, i);
    muster_free(mw->units);
    mw->units = NULL;
    mw->nunits = 0;
    if (mw->pgkey[0]) {
        pgs_remove(c, mw->pgkey, mw);
        if (!c->full && running_depends(c, mw->pgkey))
            c->full = 1;
        mw->pgkey[0] = '\0';
    }
    json_object_put(mw->obj);
    mw->obj = NULL;
}

/* The scheduler a workload's pods ask for (spec.schedulerName of the pod template). */
static const char *scheduler_of(json_object *pod_spec)
{
    const char *s = sim__get_str(pod_spec, "schedulerName", NULL, NULL);
    return s ? s : "default-scheduler";
}

/* Reads member object obj into mw (cleared), adding its PodGroup or share to c's mirror. */
static void mwork_fill(struct sim_karmada *k, struct cluster *c, struct mwork *mw, json_object *obj)
{
    mw->obj = json_object_get(obj);
    touch(c, mw);
    mw->gen++;
    mw->fresh = 1; /* the work status controller reflects every add and update */
    if (!mw->shares) {
        mw->shares = muster_calloc(1, sizeof(*mw->shares));
        if (!mw->shares)
            return; /* it then runs nothing: the simulation degrades, never crashes */
        mw->nshares = 1;
    }
    const char *ns = sim_meta_str(obj, "namespace");
    const char *kind = sim__get_str(obj, "kind", NULL, NULL);
    const char *name = sim_meta_str(obj, "name");
    struct pod_set sets[16];
    size_t nsets = sim__workload_pods(k, obj, sets, 16);
    if (!nsets) {
        if (kind && strcmp(kind, "PodGroup") == 0 && name) {
            snprintf(mw->pgkey, sizeof(mw->pgkey), "%s/%s", ns ? ns : "", name);
            json_object *mm = sim__get_path(obj, "spec", "minMember", NULL);
            const char *av = sim__get_str(obj, "apiVersion", NULL, NULL);
            int wl =
                av && (strcmp(av, WL_API_VERSION) == 0 || strcmp(av, WL_API_VERSION_V1BETA1) == 0);
            if (wl) /* gang.minCount, the same in both versions; basic: no gang, 1 */
                mm = sim__get_path(obj, "spec", "schedulingPolicy", "gang");
            if (mm && wl)
                mm = sim__get_path(mm, "minCount", NULL, NULL);
            if (pgs_add(c, mw->pgkey, mm ? json_object_get_int64(mm) : 1, mw) < 0)
                mw->pgkey[0] = '\0';
            else if (!c->full && running_depends(c, mw->pgkey))
                c->full = 1;
        }
        return;
    }
    mw->units = muster_calloc(1, sizeof(*mw->units));
    if (!mw->units)
        return;
    struct unit *u = &mw->units[mw->nunits++];
    u->mw = mw;
    u->manifest = 0;
    u->obj = obj;
    u->share = &mw->shares[0];
    for (size_t s = 0; s < nsets; s++)
        u->desired += sets[s].replicas;
    u->duration = parse_duration(sim__get_str(obj, "metadata", "annotations", DURATION_ANNOTATION));
    u->vc_min = -1;
    const char *av = sim__get_str(obj, "apiVersion", NULL, NULL);
    if (strcmp(av, "batch.volcano.sh/v1alpha1") == 0) {
        /* Volcano makes the job's own PodGroup of minAvailable, as its webhook defaults it */
        u->vc_min = sim__vcjob_min_available(obj);
    } else if (strcmp(scheduler_of(sets[0].spec), "volcano") == 0) {
        u->unscheduled =
            !sim_api_has(c->api, sim_resource_by_kind("scheduling.volcano.sh/v1beta1", "PodGroup"));
        /* Volcano's scheduler gangs pods by their group-name annotation; the default
         * scheduler ignores it. */
        const char *g = sim__get_str(pod_template_meta(obj), "annotations", GROUP_ANNOTATION, NULL);
        if (g) {
            snprintf(u->groupkey, sizeof(u->groupkey), "%s/%s", ns ? ns : "", g);
            u->group = u->groupkey;
        }
    } else if (sim_api_has(c->api, sim_resource_by_kind(COSCHED_API_VERSION, "PodGroup"))) {
        /* A member running scheduler-plugins' Coscheduling in its default profile
         * (doc/install.md): a pod labelled scheduling.x-k8s.io/pod-group waits in PreFilter
         * until its PodGroup exists, then minMember of them are permitted together or none
         * (pkg/coscheduling/coscheduling.go PreFilter, Permit). */
        const char *g = sim__get_str(pod_template_meta(obj), "labels", COSCHED_LABEL, NULL);
        if (g) {
            snprintf(u->groupkey, sizeof(u->groupkey), "%s/%s", ns ? ns : "", g);
            u->group = u->groupkey;
        }
    }
    if (!u->group && strcmp(scheduler_of(sets[0].spec), "volcano") != 0 &&
        (sim_api_has(c->api, sim_resource_by_kind(WL_API_VERSION, "PodGroup")) ||
         sim_api_has(c->api, sim_resource_by_kind(WL_API_VERSION_V1BETA1, "PodGroup")))) {
        /* kube-scheduler's GangScheduling plugin (Kubernetes 1.36 and 1.37, GenericWorkload): a pod
         * whose spec.schedulingGroup names a PodGroup waits in PreEnqueue until that PodGroup
         * exists and then until its gang.minCount pods are there, which are placed together or not
         * at all (pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go PreEnqueue,
         * PlacementFeasible). */
        const char *g = sim__get_str(sets[0].spec, "schedulingGroup", "podGroupName", NULL);
        if (g) {
            snprintf(u->groupkey, sizeof(u->groupkey), "%s/%s", ns ? ns : "", g);
            u->group = u->groupkey;
        }
    }
    if (u->duration)
        c->timed = 1;
    if (u->group)
        members_add(c, mw, 0);
    if (u->share->finished)
        return;
    if (u->share->started)
        c->full = 1; /* a running share coming back is placed with the others */
    else
        pending_add(c, mw, 0);
}

void sim__mwork_free(struct mwork *mw)
{
    if (!mw)
        return;
    for (size_t i = 0; i < mw->nshares; i++)
        muster_free(mw->shares[i].reqs);
    muster_free(mw->shares);
    muster_free(mw->units);
    json_object_put(mw->obj);
    json_object_put(mw->status);
    muster_free(mw->name);
    muster_free(mw);
}

struct work_probe {
    const struct cluster *c;
    const char *name;
};

static int work_at_cmp(const void *ctx, size_t i)
{
    const struct work_probe *p = ctx;
    return strcmp(p->c->works[i]->name, p->name);
}

static size_t works_lower_bound(const struct cluster *c, const char *name)
{
    struct work_probe p = {c, name};
    return queue_search_lower(0, c->nworks, work_at_cmp, &p);
}

void sim__member_key(json_object *obj, char *buf, size_t cap)
{
    const char *ns = sim_meta_str(obj, "namespace");
    const char *name = sim_meta_str(obj, "name");
    const char *kind = sim__get_str(obj, "kind", NULL, NULL);
    const char *av = sim__get_str(obj, "apiVersion", NULL, NULL);
    snprintf(buf, cap, "%s/%s/%s/%s", ns ? ns : "", name ? name : "", kind ? kind : "",
             av ? av : "");
}

json_object *sim__member_get(struct cluster *c, const char *key)
{
    size_t i = works_lower_bound(c, key);
    return i < c->nworks && strcmp(c->works[i]->name, key) == 0 ? c->works[i]->obj : NULL;
}

json_object *sim__member_status(struct cluster *c, const char *key)
{
    size_t i = works_lower_bound(c, key);
    return i < c->nworks && strcmp(c->works[i]->name, key) == 0 ? c->works[i]->status : NULL;
}

/* Marks c for a sync (deferred mode) or syncs it now. */
static void member_changed(struct sim_karmada *k, struct cluster *c)
{
    if (!k->deferred) {
        sim__cluster_sync(k, c);
    } else if (!c->dirty) {
        c->dirty = 1;
        if (k->on_dirty)
            k->on_dirty(k->dirty_data);
    }
}

void sim__member_apply(struct sim_karmada *k, struct cluster *c, const char *key, json_object *obj)
{
    size_t i = works_lower_bound(c, key);
    struct mwork *mw = i < c->nworks && strcmp(c->works[i]->name, key) == 0 ? c->works[i] : NULL;
    if (!obj) {
        if (mw) {
            mwork_clear(c, mw);
            untouch(c, mw);
            memmove(&c->works[i], &c->works[i + 1], (c->nworks - i - 1) * sizeof(*c->works));
            c->nworks--;
            sim__mwork_free(mw);
            member_changed(k, c);
        }
        return;
    }
    if (mw) {
        mwork_clear(c, mw);
    } else {
        if (c->nworks == c->capworks) {
            size_t cap = c->capworks ? c->capworks * 2 : 16;
            struct mwork **v = muster_realloc(c->works, cap * sizeof(*v));
            if (!v)
                return;
            c->works = v;
            c->capworks = cap;
        }
        mw = muster_calloc(1, sizeof(*mw));
        if (mw)
            mw->name = muster_strdup(key);
        if (!mw || !mw->name) {
            sim__mwork_free(mw);
            return;
        }
        memmove(&c->works[i + 1], &c->works[i], (c->nworks - i) * sizeof(*c->works));
        c->works[i] = mw;
        c->nworks++;
    }
    mwork_fill(k, c, mw, obj);
    member_changed(k, c);
}

/* Per-pod requests of every pod of obj, in pod-set order, into reqs (npods x MAX_RES). Pods
 * asking for a resource no node has get that request set impossibly high. */
static int64_t expand_pods(struct sim_karmada *k, json_object *obj, int64_t **reqs)
{
    struct pod_set sets[16];
    size_t n = sim__workload_pods(k, obj, sets, 16);
    int64_t total = 0;
    for (size_t s = 0; s < n; s++)
        total += sets[s].replicas > 0 ? sets[s].replicas : 0;
    if (total > MAX_PODS)
        total = MAX_PODS;
    *reqs = muster_calloc((size_t)(total ? total : 1), MAX_RES * sizeof(int64_t));
    if (!*reqs)
        return 0;
    int64_t at = 0;
    int pods = sim__res_index(k, "pods", 0);
    for (size_t s = 0; s < n && at < total; s++) {
        int64_t req[MAX_RES] = {0};
        /* the member places pods as its API server admitted them: requests defaulted to limits */
        json_object *r = sim_karmada_pod_effective_requests(sets[s].spec);
        json_object_object_foreach(r, name, v)
        {
            int64_t q = 0;
            if (sim_qty_parse(json_object_get_string(v), &q) < 0 || q <= 0)
                continue;
            int i = sim__res_index(k, name, 0);
            if (i < 0) {
                /* No node has it: park the demand on "pods" beyond any node's reach. */
                if (pods >= 0)
                    req[pods] = INT64_MAX / 4;
            } else {
                req[i] += q;
            }
        }
        json_object_put(r);
        if (pods >= 0 && req[pods] < INT64_MAX / 4)
            req[pods] += 1000;
        for (int64_t p = 0; p < sets[s].replicas && at < total; p++)
            memcpy(*reqs + at++ * MAX_RES, req, sizeof(req));
    }
    return total;
}

/* Places pods [from, to) of reqs; all_or_nothing undoes a partial placement. Returns how many
 * were placed. */
static int64_t place_pods(struct sim_karmada *k, struct cluster *c, const int64_t *reqs,
                          int64_t from, int64_t to, int all_or_nothing)
{
    if (to <= from)
        return 0;
    /* Where each pod went, to take a gang off again (cheaper than saving every node). */
    size_t *at = all_or_nothing ? muster_malloc((size_t)(to - from) * sizeof(*at)) : NULL;
    if (all_or_nothing && !at)
        return 0;
    int64_t placed = 0;
    for (int64_t p = from; p < to; p++) {
        size_t n = place_one(k, c, reqs + p * MAX_RES);
        if (n < c->nnodes) {
            if (at)
                at[placed] = n;
            placed++;
        } else if (all_or_nothing) {
            break; /* the gang cannot start: whatever else would fit is taken off anyway */
        }
    }
    if (all_or_nothing && placed < to - from) {
        for (int64_t j = 0; j < placed; j++)
            for (size_t i = 0; i < k->nres; i++)
                c->nodes[at[j]].used[i] -= reqs[(from + j) * MAX_RES + i];
        placed = 0;
    }
    muster_free(at);
    return placed;
}

static void set_int(json_object *o, const char *key, int64_t v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

/* The status a member would report for a workload share. */
json_object *sim__share_status(const struct unit *u, const char *ts_start, const char *ts_done)
{
    json_object *st = json_object_new_object();
    const char *kind = sim__get_str(u->obj, "kind", NULL, NULL);
    const char *av = sim__get_str(u->obj, "apiVersion", NULL, NULL);
    int done = u->share && u->share->finished;
    if (sim__kind19_status(u->obj, st, u->running == u->desired, done,
                           ts_done ? ts_done : ts_start))
        return st;
    if (strcmp(av, "apps/v1") == 0) {
        set_int(st, "replicas", u->desired);
        set_int(st, "updatedReplicas", u->desired);
        set_int(st, "readyReplicas", u->running);
        set_int(st, "availableReplicas", u->running);
    } else if (strcmp(av, "batch.volcano.sh/v1alpha1") == 0) {
        json_object *state = json_object_new_object();
        json_object_object_add(state, "phase",
                               json_object_new_string(done         ? "Completed"
                                                      : u->running ? "Running"
                                                                   : "Pending"));
        json_object_object_add(st, "state", state);
        set_int(st, "minAvailable", u->gang);
        set_int(st, "running", u->running);
        set_int(st, "pending", done ? 0 : u->desired - u->running);
        set_int(st, "succeeded", done ? u->desired : 0);
    } else if (strcmp(kind, "Job") == 0) {
        set_int(st, "active", u->running);
        set_int(st, "succeeded", done ? u->desired : 0);
        if (ts_start)
            json_object_object_add(st, "startTime", json_object_new_string(ts_start));
        if (done) {
            /* The Job controller's terminal condition (reflectJobStatus keeps conditions). */
            json_object *cond = json_object_new_object();
            json_object_object_add(cond, "type", json_object_new_string("Complete"));
            json_object_object_add(cond, "status", json_object_new_string("True"));
            json_object_object_add(cond, "lastProbeTime",
                                   json_object_new_string(ts_done ? ts_done : ""));
            json_object_object_add(cond, "lastTransitionTime",
                                   json_object_new_string(ts_done ? ts_done : ""));
            json_object *conds = json_object_new_array();
            json_object_array_add(conds, cond);
            json_object_object_add(st, "conditions", conds);
            if (ts_done)
                json_object_object_add(st, "completionTime", json_object_new_string(ts_done));
        }
    } else {
        json_object_object_add(st, "phase",
                               json_object_new_string(done         ? "Succeeded"
                                                      : u->running ? "Running"
                                                                   : "Pending"));
    }
    return st;
}

/* The health interpreter (pkg/resourceinterpreter/default/native/healthy.go and the Volcano
 * Job customization): a batch Job has none, so it is always Healthy; a Volcano Job with a phase
 * (the member always reports one) is Healthy; Deployments and Pods are Healthy when their pods
 * run. */
const char *sim__health_of(const struct unit *u)
{
    if (sim__is_kind19(u->obj)) {
        json_object *st = sim__share_status(u, NULL, NULL);
        const char *h = sim__kind19_health(u->obj, st);
        json_object_put(st);
        return h;
    }
    const char *av = sim__get_str(u->obj, "apiVersion", NULL, NULL);
    if (av && (strcmp(av, "batch/v1") == 0 || strcmp(av, "batch.volcano.sh/v1alpha1") == 0))
        return "Healthy";
    if (u->share && u->share->finished)
        return "Healthy";
    return u->running == u->desired ? "Healthy" : "Unhealthy";
}

static json_object *identifier(json_object *obj, size_t ordinal)
{
    json_object *id = json_object_new_object();
    const char *av = sim__get_str(obj, "apiVersion", NULL, NULL);
    const char *kind = sim__get_str(obj, "kind", NULL, NULL);
    const struct sim_resource *r = sim_resource_by_kind(av, kind);
    const char *slash = av ? strchr(av, '/') : NULL;
    char group[128] = "";
    if (slash)
        snprintf(group, sizeof(group), "%.*s", (int)(slash - av), av);
    set_int(id, "ordinal", (int64_t)ordinal);
    json_object_object_add(id, "group", json_object_new_string(group));
    json_object_object_add(id, "version", json_object_new_string(slash ? slash + 1 : av ? av : ""));
    json_object_object_add(id, "kind", json_object_new_string(kind ? kind : ""));
    json_object_object_add(id, "resource", json_object_new_string(r ? r->plural : ""));
    const char *ns = sim_meta_str(obj, "namespace");
    if (ns)
        json_object_object_add(id, "namespace", json_object_new_string(ns));
    const char *name = sim_meta_str(obj, "name");
    json_object_object_add(id, "name", json_object_new_string(name ? name : ""));
    return id;
}

/* 1 when every resource of a PodGroup's spec.minResources fits the nodes' free resources
 * together: Volcano's enqueue action admits a PodGroup (Inqueue) when its minResources fit
 * (the proportion and overcommit plugins; the sim has one queue and no overcommit factor). */
static int min_resources_fit(struct sim_karmada *k, const struct cluster *c, json_object *pg)
{
    json_object *min = sim__get_path(pg, "spec", "minResources", NULL);
    if (!json_object_is_type(min, json_type_object))
        return 1;
    json_object_object_foreach(min, name, v)
    {
        int64_t q = 0;
        if (sim_qty_parse(json_object_get_string(v), &q) < 0 || q <= 0)
            continue;
        int i = sim__res_index(k, name, 0);
        if (i < 0)
            return 0;
        int64_t free_amt = 0;
        for (size_t n = 0; n < c->nnodes; n++)
            free_amt += c->nodes[n].alloc[i] - c->nodes[n].used[i];
        if (free_amt < q)
            return 0;
    }
    return 1;
}

/* What Volcano reports for a PodGroup (scheduling.volcano.sh/v1beta1 PodGroupPhase): Running
 * once minMember of its pods run, Completed when its pods finished, Inqueue when admitted
 * (its minResources fit) but its pods are not running yet, else Pending. */
static json_object *cosched_status(const struct cluster *c, const struct mwork *mw);
static json_object *wl_status(const struct cluster *c, const struct mwork *mw);

/* The pods of mw's group in c: how many units are members, how many pods run, and how many
 * finished (a finished share's desired pods). What every dialect's PodGroup status reads. */
static void group_counts(const struct cluster *c, const struct mwork *mw, int64_t *members,
                         int64_t *running, int64_t *succeeded)
{
    for (size_t i = members_lower_bound(c, mw->pgkey);
         i < c->nmembers && strcmp(member_group(&c->members[i]), mw->pgkey) == 0; i++) {
        const struct unit *u = &c->members[i].mw->units[c->members[i].unit];
        (*members)++;
        *running += u->running;
        if (u->share->finished)
            *succeeded += u->desired;
    }
}

static json_object *podgroup_status(struct sim_karmada *k, const struct cluster *c,
                                    const struct mwork *mw)
{
    const char *av = sim__get_str(mw->obj, "apiVersion", NULL, NULL);
    if (av && strcmp(av, COSCHED_API_VERSION) == 0)
        return cosched_status(c, mw);
    if (av && (strcmp(av, WL_API_VERSION) == 0 || strcmp(av, WL_API_VERSION_V1BETA1) == 0))
        return wl_status(c, mw);
    json_object *mm = sim__get_path(mw->obj, "spec", "minMember", NULL);
    int64_t min = mm ? json_object_get_int64(mm) : 1, running = 0, succeeded = 0, members = 0;
    group_counts(c, mw, &members, &running, &succeeded);
    const char *phase = members && succeeded && !running               ? "Completed"
                        : members && running >= min                    ? "Running"
                        : c->ready && min_resources_fit(k, c, mw->obj) ? "Inqueue"
                                                                       : "Pending";
    json_object *st = json_object_new_object();
    json_object_object_add(st, "phase", json_object_new_string(phase));
    set_int(st, "running", running);
    if (succeeded)
        set_int(st, "succeeded", succeeded);
    return st;
}

/* What kube-scheduler reports for a Workload API PodGroup (types.go PodGroupStatus; KEP-5832,
 * "PodGroup Status Lifecycle"): no phase, a PodGroupScheduled condition (v1alpha2; v1beta1 calls
 * it PodGroupInitiallyScheduled), True (reason Scheduled) once the gang's minCount pods are
 * bound, False (Unschedulable) while its pods wait; none before any pod of it exists (muster
 * writes the PodGroup itself: no controller initialises it). */
static json_object *wl_status(const struct cluster *c, const struct mwork *mw)
{
    json_object *gang = sim__get_path(mw->obj, "spec", "schedulingPolicy", "gang");
    json_object *mc = sim__get_path(gang, "minCount", NULL, NULL);
    int64_t min = mc ? json_object_get_int64(mc) : 1, running = 0, succeeded = 0, members = 0;
    group_counts(c, mw, &members, &running, &succeeded);
    json_object *st = json_object_new_object();
    if (!members)
        return st;
    int ok = running + succeeded >= min;
    json_object *conds = json_object_new_array(), *cond = json_object_new_object();
    const char *av = sim__get_str(mw->obj, "apiVersion", NULL, NULL);
    json_object_object_add(cond, "type",
                           json_object_new_string(av && strcmp(av, WL_API_VERSION_V1BETA1) == 0
                                                      ? WL_SCHEDULED_V1BETA1
                                                      : WL_SCHEDULED));
    json_object_object_add(cond, "status", json_object_new_string(ok ? "True" : "False"));
    json_object_object_add(cond, "reason",
                           json_object_new_string(ok ? "Scheduled" : "Unschedulable"));
    json_object_array_add(conds, cond);
    json_object_object_add(st, "conditions", conds);
    return st;
}

/* What scheduler-plugins' PodGroup controller reports (pkg/controllers/podgroup_controller.go,
 * apis/scheduling/v1alpha1 PodGroupPhase): Pending while no pod of the group runs, Scheduling
 * while fewer than minMember run or finished, Running once minMember do, Finished when its pods
 * finished and none runs; with running and succeeded counts. */
static json_object *cosched_status(const struct cluster *c, const struct mwork *mw)
{
    json_object *mm = sim__get_path(mw->obj, "spec", "minMember", NULL);
    int64_t min = mm ? json_object_get_int64(mm) : 1, running = 0, succeeded = 0, members = 0;
    group_counts(c, mw, &members, &running, &succeeded);
    const char *phase = members && succeeded >= min && !running ? "Finished"
                        : members && running + succeeded >= min ? "Running"
                        : running                               ? "Scheduling"
                                                                : "Pending";
    json_object *st = json_object_new_object();
    json_object_object_add(st, "phase", json_object_new_string(phase));
    set_int(st, "running", running);
    if (succeeded)
        set_int(st, "succeeded", succeeded);
    return st;
}

/* The index of the manifest naming obj (apiVersion, kind, namespace, name) in work, or -1:
 * helper.GetManifestIndex. */
int sim__manifest_index(json_object *work, const char *av, const char *kind, const char *ns,
                        const char *name)
{
    json_object *manifests = sim__get_path(work, "spec", "workload", "manifests");
    for (size_t m = 0;
         json_object_is_type(manifests, json_type_array) && m < json_object_array_length(manifests);
         m++) {
        json_object *man = json_object_array_get_idx(manifests, m);
        const char *mav = sim__get_str(man, "apiVersion", NULL, NULL);
        const char *mkind = sim__get_str(man, "kind", NULL, NULL);
        const char *mns = sim_meta_str(man, "namespace");
        const char *mname = sim_meta_str(man, "name");
        if (mav && av && strcmp(mav, av) == 0 && mkind && kind && strcmp(mkind, kind) == 0 &&
            strcmp(mns ? mns : "", ns ? ns : "") == 0 && mname && name && strcmp(mname, name) == 0)
            return (int)m;
    }
    return -1;
}

/* The work status controller (pkg/controllers/status/work_status_controller.go syncWorkStatus,
 * reflectStatus): the member object's status, as the member computed it, goes to the Work its
 * work.karmada.io/name and namespace annotations name, unless that Work is gone or being deleted
 * or no longer holds the object; manifestStatuses becomes that one entry (mergeStatus). */
static void reflect(struct sim_karmada *k, struct cluster *c, struct mwork *mw)
{
    if (c->work_status_paused)
        return; /* mw->status stays what was last reflected: the resume reflects the change */
    json_object *st;
    const char *health = "Healthy"; /* kinds without a health interpreter are healthy */
    if (mw->nunits) {
        const struct unit *u = &mw->units[0];
        char ts[32] = "", done[32] = "";
        if (u->share->started)
            sim_format_time(u->share->started, ts, sizeof(ts));
        if (u->share->finished && u->share->started)
            sim_format_time(u->share->started + u->share->duration, done, sizeof(done));
        st = sim__share_status(u, ts[0] ? ts : NULL, done[0] ? done : NULL);
        health = sim__health_of(u);
    } else if (mw->pgkey[0]) {
        st = podgroup_status(k, c, mw);
    } else {
        st = json_object_new_object();
    }
    if (!mw->fresh && mw->status && json_object_equal(st, mw->status)) {
        json_object_put(st);
        return;
    }
    mw->fresh = 0;
    json_object_put(mw->status);
    mw->status = st;
    const char *wns = sim__get_str(mw->obj, "metadata", "annotations", "work.karmada.io/namespace");
    const char *wname = sim__get_str(mw->obj, "metadata", "annotations", "work.karmada.io/name");
    if (!wns || !wname)
        return; /* not managed by Karmada: nothing reflects it */
    const struct sim_resource *wr = sim__res_of("work.karmada.io", "v1alpha1", "works");
    json_object *work = NULL;
    if (sim_store_get(k->store, wr, wns, wname, &work, NULL) < 0)
        return;
    int idx =
        sim__manifest_index(work, sim__get_str(mw->obj, "apiVersion", NULL, NULL),
                            sim__get_str(mw->obj, "kind", NULL, NULL),
                            sim_meta_str(mw->obj, "namespace"), sim_meta_str(mw->obj, "name"));
    if (sim_meta_str(work, "deletionTimestamp") || idx < 0) {
        json_object_put(work);
        return;
    }
    json_object *entry = json_object_new_object();
    json_object_object_add(entry, "identifier", identifier(mw->obj, (size_t)idx));
    json_object_object_add(entry, "status", json_object_get(st));
    json_object_object_add(entry, "health", json_object_new_string(health));
    json_object *ms = json_object_new_array();
    json_object_array_add(ms, entry);
    if (json_object_equal(ms, sim__get_path(work, "status", "manifestStatuses", NULL))) {
        json_object_put(ms);
        json_object_put(work);
        return;
    }
    json_object *copy = sim__shallow_copy(work);
    json_object *status = sim__shallow_copy(sim__get_path(work, "status", NULL, NULL));
    if (!status)
        status = json_object_new_object();
    json_object_object_add(status, "manifestStatuses", ms);
    json_object_object_add(copy, "status", status);
    sim_store_update(k->store, wr, wns, wname, copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL,
                     NULL);
    json_object_put(copy);
    json_object_put(work);
}

/* Decides u's gang and whether it waits for its PodGroup, from the member's PodGroups. */
static void gate(const struct cluster *c, struct unit *u)
{
    u->waiting_for_group = 0;
    u->gang = 0;
    if (u->vc_min >= 0) {
        u->gang = u->vc_min;
    } else if (u->group) {
        /* Volcano's scheduler: no pod of the group starts before its PodGroup exists, then
         * minMember of them start together or none does. */
        const struct pgref *pg = pgs_find(c, u->group);
        u->waiting_for_group = !pg;
        u->gang = pg ? pg->min_member : 0;
    }
    if (u->gang > u->desired)
        u->gang = u->desired;
}

/* Places u's pods on the nodes as they are (its gang all or nothing, then the rest one by one)
 * and adds the requests of the pods left Pending to pending. */
static void place_unit(struct sim_karmada *k, struct cluster *c, struct unit *u, int64_t *pending)
{
    struct share *sh = u->share;
    if (!sh->reqs || sh->gen != u->mw->gen) {
        muster_free(sh->reqs);
        sh->npods = expand_pods(k, u->obj, &sh->reqs);
        sh->gen = u->mw->gen;
    }
    const int64_t *reqs = sh->reqs;
    int64_t total = reqs ? sh->npods : 0, placed = 0;
    if (!u->waiting_for_group && !u->unscheduled && c->ready) {
        placed = place_pods(k, c, reqs, 0, u->gang, 1);
        if (placed == u->gang)
            placed += place_pods(k, c, reqs, u->gang, total, 0);
    }
    for (int64_t p = placed; p < total; p++)
        for (size_t r = 0; r < k->nres; r++)
            if (reqs[p * MAX_RES + r] < INT64_MAX / 4)
                pending[r] += reqs[p * MAX_RES + r];
    u->running = placed;
}

static int run_cmp(const void *pa, const void *pb)
{
    const struct unit *a = *(const struct unit *const *)pa, *b = *(const struct unit *const *)pb;
    if (a->share->started != b->share->started)
        return a->share->started < b->share->started ? -1 : 1;
    return a->share->seq < b->share->seq ? -1 : a->share->seq > b->share->seq;
}

/* Places every running share again from empty nodes, oldest first, as the member's scheduler
 * would find them: each keeps the nodes it had unless something before it changed. */
static void place_running(struct sim_karmada *k, struct cluster *c)
{
    for (size_t n = 0; n < c->nnodes; n++)
        memset(c->nodes[n].used, 0, sizeof(c->nodes[n].used));
    memset(c->alloc_run, 0, sizeof(c->alloc_run));
    size_t nrun = 0;
    for (size_t w = 0; w < c->nworks; w++)
        for (size_t i = 0; i < c->works[w]->nunits; i++) {
            struct unit *u = &c->works[w]->units[i];
            u->in_run = 0;
            u->running = 0; /* a finished share's pods are gone */
            nrun += u->share->started && !u->share->finished;
        }
    struct unit **run = muster_malloc((nrun ? nrun : 1) * sizeof(*run));
    if (!run)
        return; /* nothing runs until the next full sync: degrade, never crash */
    size_t at = 0;
    for (size_t w = 0; w < c->nworks; w++)
        for (size_t i = 0; i < c->works[w]->nunits; i++) {
            struct unit *u = &c->works[w]->units[i];
            if (u->share->started && !u->share->finished)
                run[at++] = u;
        }
    qsort(run, nrun, sizeof(*run), run_cmp);
    c->full = 0;
    sim__deps_reset(c);
    for (size_t i = 0; i < nrun; i++) {
        gate(c, run[i]);
        place_unit(k, c, run[i], c->alloc_run);
        run[i]->in_run = 1;
        deps_add(c, run[i]);
    }
    muster_free(run);
    c->npending = 0;
    c->timed = 0;
    for (size_t w = 0; w < c->nworks; w++) {
        struct mwork *mw = c->works[w];
        touch(c, mw); /* any running share may have moved */
        for (size_t i = 0; i < mw->nunits; i++) {
            const struct unit *u = &mw->units[i];
            c->timed |= u->duration != 0;
            if (!u->share->started && !u->share->finished)
                pending_add(c, mw, i);
        }
    }
}

/* Runs the member: places every dispatched share (running ones first, oldest first), gangs all
 * or nothing, finishes shares whose scripted duration is over, and reports through Work status
 * and the RBs' aggregatedStatus. Returns the Pending demand in allocating.
 *
 * The nodes carry the running shares from one sync to the next, so a sync places only the
 * shares not running yet, in Work order, unless c->full says the running ones moved; placing
 * them again would find the same nodes (first fit, same order, same state). */
static int mwork_name_cmp(const void *pa, const void *pb)
{
    return strcmp((*(const struct mwork *const *)pa)->name,
                  (*(const struct mwork *const *)pb)->name);
}

static void run_member(struct sim_karmada *k, struct cluster *c, int64_t *allocating)
{
    time_t now = sim__clock_now(k);
    for (size_t w = 0; c->timed && w < c->nworks; w++) {
        struct mwork *mw = c->works[w];
        for (size_t i = 0; i < mw->nunits; i++) {
            struct unit *u = &mw->units[i];
            struct share *sh = u->share;
            sh->duration = u->duration;
            if (sh->started && !sh->finished && u->duration && now - sh->started >= u->duration) {
                sh->finished = 1; /* done: its pods are gone and free their nodes */
                c->full = 1;
            }
        }
    }
    if (c->full)
        place_running(k, c);
    int64_t pending[MAX_RES] = {0};
    size_t kept = 0;
    for (size_t j = 0; j < c->npending; j++) {
        struct mwork *mw = c->pending[j].mw;
        struct unit *u = &mw->units[c->pending[j].unit];
        struct share *sh = u->share;
        int64_t left[MAX_RES] = {0};
        gate(c, u);
        place_unit(k, c, u, left);
        int64_t *into = pending;
        if (u->running > 0 && u->running >= u->gang) {
            sh->started = now;
            sh->seq = ++k->start_seq;
            u->in_run = 1;
            deps_add(c, u);
            into = c->alloc_run;
        } else {
            c->pending[kept++] = c->pending[j];
        }
        for (size_t r = 0; r < k->nres; r++)
            into[r] += left[r];
        if (u->running != sh->reported_running || !sh->reported)
            touch(c, mw);
    }
    c->npending = kept;
    for (size_t r = 0; r < k->nres; r++)
        allocating[r] = c->alloc_run[r] + pending[r];
    /* Report what changed, Work by Work, then into each RB: a sync costs writes only for
     * shares whose state moved, and looks only at the Works that changed or were placed. The
     * list grows while it is walked: a changed share touches its PodGroup's Work. */
    for (size_t t = 0; t < c->ntouched; t++) {
        struct mwork *mw = c->touched[t];
        for (size_t i = 0; i < mw->nunits; i++) {
            struct unit *u = &mw->units[i];
            struct share *sh = u->share;
            u->changed = !sh->reported || sh->reported_running != u->running ||
                         sh->reported_desired != u->desired ||
                         sh->reported_finished != sh->finished;
            /* A PodGroup's Work reports again when one of its member shares changed. */
            if (!u->changed || !u->group)
                continue;
            for (size_t p = pgs_lower_bound(c, u->group);
                 p < c->npgs && strcmp(c->pgs[p].name, u->group) == 0; p++) {
                c->pgs[p].mw->pg_touched = 1;
                touch(c, c->pgs[p].mw);
            }
        }
    }
    if (c->ntouched) /* touched is NULL until the first object is touched */
        qsort(c->touched, c->ntouched, sizeof(*c->touched), mwork_name_cmp);
    for (size_t t = 0; t < c->ntouched; t++) {
        struct mwork *mw = c->touched[t];
        int changed = !mw->status || mw->fresh || mw->pg_touched || mw->pgkey[0];
        for (size_t i = 0; i < mw->nunits && !changed; i++)
            changed = mw->units[i].changed;
        if (changed)
            reflect(k, c, mw);
    }
    for (size_t t = 0; t < c->ntouched; t++) {
        struct mwork *mw = c->touched[t];
        for (size_t i = 0; i < mw->nunits; i++) {
            struct unit *u = &mw->units[i];
            u->changed = 0;
            u->share->reported = 1;
            u->share->reported_running = u->running;
            u->share->reported_desired = u->desired;
            u->share->reported_finished = u->share->finished;
        }
        mw->pg_touched = 0;
        mw->touched = 0;
    }
    c->ntouched = 0;
}

void sim_karmada_tick(struct sim_karmada *k)
{
    /* Only scripted durations change anything with time alone. */
    int timed = 0;
    time_t now = sim__clock_now(k);
    for (size_t ci = 0; ci < k->nclusters && !timed; ci++) {
        const struct cluster *c = &k->clusters[ci];
        for (size_t w = 0; w < c->nworks && !timed; w++)
            for (size_t i = 0; i < c->works[w]->nshares && !timed; i++) {
                const struct share *sh = &c->works[w]->shares[i];
                timed = sh->started && !sh->finished && sh->duration &&
                        now - sh->started >= sh->duration;
            }
    }
    for (size_t i = 0; timed && i < k->nclusters; i++)
        sim__cluster_sync(k, &k->clusters[i]);
    /* The controllers that wait for time: tolerations and eviction tasks running out. */
    sim__taint_tick(k);
    sim__graceful_eviction_tick(k);
    sim__detect_retry_tick(k); /* the detector's requeued templates */
}

static json_object *resource_list(struct sim_karmada *k, const int64_t *v)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < k->nres; i++) {
        char buf[40];
        sim_qty_format(v[i], buf, sizeof(buf));
        json_object_object_add(o, k->res[i], json_object_new_string(buf));
    }
    return o;
}

static int node_grade(const struct cluster *c, const struct node *nd)
{
    int grade = (int)c->ngrades - 1;
    for (size_t r = 0; r < c->nranges; r++) {
        /* The last grade whose minimum the node's free amount reaches (Karmada's
         * searchLastLessElement), minimised over the model's resources. */
        int idx = 0;
        for (size_t g = 0; g < c->ngrades; g++) {
            const struct grade_range *gr = &c->ranges[g * c->nranges + r];
            int64_t free_amt = gr->res >= 0 ? nd->alloc[gr->res] - nd->used[gr->res] : 0;
            if (gr->min <= free_amt)
                idx = (int)g;
        }
        if (idx < grade)
            grade = idx;
    }
    return grade;
}

/* getAPIEnablements (pkg/controllers/status/cluster_status_controller.go) over what discovery
 * (ServerGroupsAndResources) shows of the member's API server: one entry per group-version,
 * {groupVersion, resources: [{name, kind}]}, subresources ("pods/status") skipped, resources
 * sorted by name and entries by groupVersion (Go's sort.SliceStable: byte order). */
static int by_str(const void *a, const void *b, const char *key)
{
    const char *x = sim__get_str(*(json_object *const *)a, key, NULL, NULL);
    const char *y = sim__get_str(*(json_object *const *)b, key, NULL, NULL);
    return strcmp(x ? x : "", y ? y : "");
}
static int by_name(const void *a, const void *b)
{
    return by_str(a, b, "name");
}
static int by_gv(const void *a, const void *b)
{
    return by_str(a, b, "groupVersion");
}

json_object *sim__api_enablements(sim_api_set api)
{
    json_object *out = json_object_new_array();
    for (size_t i = 0; i < sim_resource_count(); i++) {
        const struct sim_resource *r = sim_resource_at(i);
        int seen = !sim_api_has(api, r);
        for (size_t j = 0; j < i && !seen; j++) {
            const struct sim_resource *q = sim_resource_at(j);
            seen = sim_api_has(api, q) && strcmp(q->group, r->group) == 0 &&
                   strcmp(q->version, r->version) == 0;
        }
        if (seen)
            continue;
        json_object *list = sim_discovery_resource_list(api, r->group, r->version);
        json_object *rs = json_object_object_get(list, "resources");
        json_object *res = json_object_new_array();
        for (size_t j = 0; j < json_object_array_length(rs); j++) {
            json_object *e = json_object_array_get_idx(rs, j);
            const char *name = sim__get_str(e, "name", NULL, NULL);
            if (!name || strchr(name, '/'))
                continue;
            json_object *one = json_object_new_object();
            json_object_object_add(one, "name", json_object_new_string(name));
            json_object_object_add(one, "kind", json_object_get(json_object_object_get(e, "kind")));
            json_object_array_add(res, one);
        }
        /* qsort is not stable; names within one group-version are unique, so it need not be. */
        json_object_array_sort(res, by_name);
        json_object *en = json_object_new_object();
        json_object_object_add(en, "groupVersion",
                               json_object_get(json_object_object_get(list, "groupVersion")));
        json_object_object_add(en, "resources", res);
        json_object_array_add(out, en);
        json_object_put(list);
    }
    json_object_array_sort(out, by_gv);
    return out;
}

/* meta.SetStatusCondition on conds (a new array): the condition of that type is replaced in
 * place, keeping its lastTransitionTime while its status stays; a new one is appended. */
static void set_condition(json_object *conds, const char *type, const char *status,
                          const char *reason, const char *message, const char *now)
{
    json_object *cond = json_object_new_object();
    json_object_object_add(cond, "type", json_object_new_string(type));
    json_object_object_add(cond, "status", json_object_new_string(status));
    json_object_object_add(cond, "reason", json_object_new_string(reason));
    json_object_object_add(cond, "message", json_object_new_string(message));
    for (size_t i = 0; i < json_object_array_length(conds); i++) {
        json_object *old = json_object_array_get_idx(conds, i);
        const char *t = sim__get_str(old, "type", NULL, NULL);
        if (!t || strcmp(t, type) != 0)
            continue;
        const char *st = sim__get_str(old, "status", NULL, NULL);
        const char *lt = sim__get_str(old, "lastTransitionTime", NULL, NULL);
        json_object_object_add(
            cond, "lastTransitionTime",
            json_object_new_string(st && lt && strcmp(st, status) == 0 ? lt : now));
        json_object_array_put_idx(conds, i, cond);
        return;
    }
    json_object_object_add(cond, "lastTransitionTime", json_object_new_string(now));
    json_object_array_add(conds, cond);
}

/* monitorClusterHealth (cluster_controller.go) once the grace period is over with no status
 * posted: Ready becomes Unknown, everything else stays as last posted. */
static void post_unknown(struct sim_karmada *k, struct cluster *c, json_object *cur)
{
    json_object *was = sim__get_path(cur, "status", NULL, NULL);
    json_object *status = sim__shallow_copy(was ? was : NULL);
    if (!status)
        status = json_object_new_object();
    json_object *conds = json_object_new_array();
    json_object *old = json_object_object_get(status, "conditions");
    for (size_t i = 0;
         json_object_is_type(old, json_type_array) && i < json_object_array_length(old); i++)
        json_object_array_add(conds, json_object_get(json_object_array_get_idx(old, i)));
    char ts[32];
    sim_format_time(c->ready_since, ts, sizeof(ts));
    set_condition(conds, "Ready", "Unknown", "ClusterStatusUnknown",
                  "Cluster status controller stopped posting cluster status.", ts);
    json_object_object_add(status, "conditions", conds);
    if (!json_object_equal(status, was)) {
        json_object *next = sim__shallow_copy(cur);
        json_object_object_add(next, "status", status);
        sim_store_update(k->store, sim__res_of("cluster.karmada.io", "v1alpha1", "clusters"), NULL,
                         c->name, next, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL, NULL);
        json_object_put(next);
    } else {
        json_object_put(status);
    }
}

void sim__cluster_sync(struct sim_karmada *k, struct cluster *c)
{
    struct {
        int64_t allocating[MAX_RES];
    } u;
    memset(&u, 0, sizeof(u));
    run_member(k, c, u.allocating);

    int64_t alloc[MAX_RES] = {0}, used[MAX_RES] = {0};
    for (size_t n = 0; n < c->nnodes; n++)
        for (size_t i = 0; i < k->nres; i++) {
            alloc[i] += c->nodes[n].alloc[i];
            used[i] += c->nodes[n].used[i];
        }
    json_object *cur = NULL;
    const struct sim_resource *cr = sim__res_of("cluster.karmada.io", "v1alpha1", "clusters");
    if (sim_store_get(k->store, cr, NULL, c->name, &cur, NULL) < 0)
        return;
    if (c->unknown) {
        post_unknown(k, c, cur);
        json_object_put(cur);
        return;
    }
    json_object *next = sim__shallow_copy(cur);
    if (!next) {
        json_object_put(cur);
        return;
    }
    json_object *status = json_object_new_object();
    json_object *was = sim__get_path(cur, "status", NULL, NULL);
    json_object_object_add(status, "kubernetesVersion", json_object_new_string("v1.32.0"));
    /* syncClusterStatus: a Ready member's apiEnablements are collected again, with the
     * CompleteAPIEnablements condition first and Ready after it (setCurrentClusterStatus, then
     * updateStatusIfNeeded); an unreachable one keeps what it last reported
     * (updateStatusCondition writes Ready alone). */
    json_object *conds = json_object_new_array();
    json_object *old = json_object_object_get(was, "conditions");
    for (size_t i = 0;
         json_object_is_type(old, json_type_array) && i < json_object_array_length(old); i++)
        json_object_array_add(conds, json_object_get(json_object_array_get_idx(old, i)));
    char ts[32], now[32];
    sim_format_time(c->ready_since, ts, sizeof(ts));
    sim_format_time(sim__clock_now(k), now, sizeof(now));
    json_object *en = NULL;
    if (c->ready) {
        en = sim__api_enablements(c->api);
        /* never empty: every member serves the core group */
        set_condition(conds, "CompleteAPIEnablements", "True", "Complete",
                      "collected complete APIEnablements from the cluster", now);
    } else {
        en = json_object_get(json_object_object_get(was, "apiEnablements"));
    }
    if (en)
        json_object_object_add(status, "apiEnablements", en);
    /* Ready changes time with readiness (ready_since). */
    set_condition(conds, "Ready", c->ready ? "True" : "False",
                  c->ready ? "ClusterReady" : "ClusterNotReachable",
                  c->ready ? "cluster is healthy and ready to accept workloads"
                           : "cluster is not reachable",
                  ts);
    json_object_object_add(status, "conditions", conds);
    json_object *ns = json_object_new_object();
    json_object_object_add(ns, "totalNum", json_object_new_int((int)c->nnodes));
    json_object_object_add(ns, "readyNum", json_object_new_int(c->ready ? (int)c->nnodes : 0));
    json_object_object_add(status, "nodeSummary", ns);
    json_object *sum = json_object_new_object();
    json_object_object_add(sum, "allocatable", resource_list(k, alloc));
    json_object_object_add(sum, "allocating", resource_list(k, u.allocating));
    json_object_object_add(sum, "allocated", resource_list(k, used));
    json_object *models = json_object_new_array();
    if (c->ngrades) {
        int64_t counts[64] = {0};
        for (size_t n = 0; n < c->nnodes; n++) {
            int g = node_grade(c, &c->nodes[n]);
            if (g >= 0 && g < 64)
                counts[g]++;
        }
        for (size_t g = 0; g < c->ngrades && g < 64; g++) {
            json_object *m = json_object_new_object();
            json_object_object_add(m, "grade", json_object_new_int((int)g));
            json_object_object_add(m, "count", json_object_new_int64(counts[g]));
            json_object_array_add(models, m);
        }
    }
    json_object_object_add(sum, "allocatableModelings", models);
    json_object_object_add(status, "resourceSummary", sum);
    /* Most syncs change nothing here (a Work arrived suspended, a policy re-rendered one):
     * compare before handing the store a whole Cluster to copy. */
    if (!json_object_equal(status, sim__get_path(cur, "status", NULL, NULL))) {
        json_object_object_add(next, "status", status);
        sim_store_update(k->store, cr, NULL, c->name, next, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE,
                         NULL, NULL);
    } else {
        json_object_put(status);
    }
    json_object_put(next);
    json_object_put(cur);
}

int sim_karmada_member_objects(struct sim_karmada *k, const char *name, json_object **out)
{
    struct cluster *c = sim__find_cluster(k, name);
    if (!c)
        return MUSTER_ENOENT;
    *out = sim__execution_objects(c);
    return *out ? 0 : MUSTER_ENOMEM;
}

int sim_karmada_pause_work_status(struct sim_karmada *k, const char *name, int paused)
{
    struct cluster *c = sim__find_cluster(k, name);
    if (!c)
        return MUSTER_ENOENT;
    int resumed = c->work_status_paused && !paused;
    c->work_status_paused = !!paused;
    for (size_t i = 0; resumed && i < c->nworks; i++)
        reflect(k, c, c->works[i]);
    return 0;
}

int sim_karmada_set_ready(struct sim_karmada *k, const char *name, int health)
{
    struct cluster *c = sim__find_cluster(k, name);
    if (!c)
        return MUSTER_ENOENT;
    int ready = health == SIM_CLUSTER_READY;
    c->unknown = health == SIM_CLUSTER_UNKNOWN;
    int became_ready = ready && !c->ready;
    if (c->ready != !!ready) {
        c->ready = !!ready;
        c->ready_since = sim__clock_now(k);
        c->full = 1; /* a NotReady member runs nothing; a Ready one places everything again */
    }
    sim__cluster_sync(k, c);
    if (became_ready)
        sim__execution_resync(k, c); /* the Works it could not apply or delete meanwhile */
    return 0;
}

int64_t sim__vcjob_min_available(json_object *job)
{
    json_object *min = sim__get_path(job, "spec", "minAvailable", NULL);
    int64_t sum = min ? json_object_get_int64(min) : 0;
    json_object *tasks = sim__get_path(job, "spec", "tasks", NULL);
    if (sum > 0 || !json_object_is_type(tasks, json_type_array))
        return sum;
    for (size_t i = 0; i < json_object_array_length(tasks); i++) {
        json_object *t = json_object_array_get_idx(tasks, i);
        json_object *tm = sim__get_path(t, "minAvailable", NULL, NULL);
        json_object *r = sim__get_path(t, "replicas", NULL, NULL);
        int64_t pmin =
            json_object_get_int64(sim__get_path(t, "partitionPolicy", "minPartitions", NULL));
        int64_t psize =
            json_object_get_int64(sim__get_path(t, "partitionPolicy", "partitionSize", NULL));
        sum += tm         ? json_object_get_int64(tm)
               : pmin > 0 ? pmin * psize
               : r        ? json_object_get_int64(r)
                          : 0;
    }
    return sum;
}
