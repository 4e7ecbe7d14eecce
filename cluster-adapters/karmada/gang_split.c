/* A JobSet or LeaderWorkerSet split by groups over several clusters: the per-cluster counts in
 * the OverridePolicy and each cluster's gang object for exactly its groups (gang_split.h,
 * docs/gangobj.md "Split by groups"). */
#include "cluster-adapters/karmada/gang_split.h"

#include "cluster-adapters/karmada/gang_dialects.h"
#include "cluster-adapters/karmada/gang_int.h"
#include "cluster-adapters/karmada/gang_nettopo.h"
#include "cluster-adapters/karmada/paths.h"
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/resources.h"
#include "queue/errors.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DNS_LABEL_MAX 63
#define DEFAULT_POD_SCHEDULER "volcano"
#define DIALECT(in, i) ((in)->dialects ? (in)->dialects[i] : KARMADA_GANG_DIALECT_VOLCANO)
#define CELL(in, i, j) (&(in)->split[(size_t)(i) * (in)->nsets + (j)])
/* Pod templates of one set: a JobSet's replicated job has one, a LeaderWorkerSet two. */
#define SET_PODS_MAX 2

static const char *get_str(json_object *o, const char *k)
{
    const char *v = kube_json_str(o, k);
    return v && *v ? v : NULL;
}


int karmada_gang_split_kind(const struct karmada_workload *w)
{
    return w && (w->kind == KARMADA_WORKLOAD_KIND_JOBSET || w->kind == KARMADA_WORKLOAD_KIND_LWS);
}

int karmada_gang_input_needs_objects(const struct karmada_gang_input *in)
{
    return in && (karmada_gang_needs_objects(in->w) || (in->split && karmada_gang_split_kind(in->w)));
}

/* A count at o[key]: dflt when absent, else 0..INT32_MAX (min when positive). */
static int count_at(json_object *o, const char *key, int64_t dflt, int64_t min, uint32_t *out)
{
    int64_t v = dflt;
    int rc = kube_json_int64(o, key, &v);
    if (rc && rc != MUSTER_ENOENT)
        return MUSTER_EINVAL;
    if (v < min || v > INT32_MAX)
        return MUSTER_EINVAL;
    *out = (uint32_t)v;
    return 0;
}

int karmada_gang_split_sets(const struct karmada_workload *w, json_object *tmpl,
                            struct karmada_gang_set *sets, uint32_t cap, uint32_t *n)
{
    *n = 0;
    json_object *spec = kube_json_get(tmpl, "spec");
    if (!karmada_gang_split_kind(w) || !json_object_is_type(spec, json_type_object))
        return MUSTER_EINVAL;
    if (w->kind == KARMADA_WORKLOAD_KIND_LWS) {
        if (cap < 1)
            return MUSTER_ENOSPC;
        struct karmada_gang_set *s = &sets[0];
        snprintf(s->name, sizeof(s->name), "%s", KARMADA_GANG_LWS_SET_NAME);
        if (count_at(spec, "replicas", 1, 0, &s->groups) ||
            count_at(kube_json_get(spec, "leaderWorkerTemplate"), "size", 1, 1, &s->group_pods))
            return MUSTER_EINVAL;
        *n = 1;
        return 0;
    }
    json_object *rjs = kube_json_get(spec, "replicatedJobs");
    size_t len = json_object_is_type(rjs, json_type_array) ? json_object_array_length(rjs) : 0;
    if (len == 0)
        return MUSTER_EINVAL;
    if (len > cap)
        return MUSTER_ENOSPC;
    for (size_t j = 0; j < len; j++) {
        json_object *rj = json_object_array_get_idx(rjs, j);
        json_object *js = kube_json_path(rj, "template", "spec", NULL);
        struct karmada_gang_set *s = &sets[j];
        uint32_t par, comp;
        const char *name = get_str(rj, "name");
        if (!name || strlen(name) >= sizeof(s->name) || count_at(rj, "replicas", 1, 0, &s->groups) ||
            count_at(js, "parallelism", 1, 0, &par) || count_at(js, "completions", INT32_MAX, 0, &comp))
            return MUSTER_EINVAL;
        snprintf(s->name, sizeof(s->name), "%s", name);
        /* the Job controller never runs more pods than remaining completions */
        s->group_pods = comp < par ? comp : par;
    }
    *n = (uint32_t)len;
    return 0;
}

/* 1 when name is a Job of replicated job rj: "<rj>-<digits>". */
static int job_of(const char *name, const char *rj)
{
    size_t l = strlen(rj);
    if (strncmp(name, rj, l) != 0 || name[l] != '-' || !name[l + 1])
        return 0;
    for (const char *p = name + l + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* The share of leaf g: share_of[g] checked against nshares; -1 when not placed. */
static int leaf_share(const int32_t *share_of, uint32_t g, uint32_t nshares, int32_t *out)
{
    *out = share_of[g];
    return *out < -1 || (*out >= 0 && (uint32_t)*out >= nshares) ? MUSTER_EINVAL : 0;
}

int karmada_gang_split_from_tree(const struct karmada_workload *w, json_object *tmpl,
                                 const struct karmada_group_tree *t, const int32_t *share_of,
                                 uint32_t nshares, struct karmada_gang_split *split, uint32_t nsets,
                                 int32_t *replicas)
{
    struct karmada_gang_set sets[KARMADA_GANG_SPLIT_SETS_MAX];
    uint32_t n;
    if (!t || !share_of || !split || !replicas ||
        karmada_gang_split_sets(w, tmpl, sets, KARMADA_GANG_SPLIT_SETS_MAX, &n) || n != nsets)
        return MUSTER_EINVAL;
    memset(split, 0, (size_t)nshares * nsets * sizeof(*split));
    memset(replicas, 0, (size_t)nshares * sizeof(*replicas));
    int jobset = w->kind == KARMADA_WORKLOAD_KIND_JOBSET;
    for (uint32_t g = 1; g < t->n; g++) {
        const struct karmada_group *grp = &t->g[g];
        int32_t s = -1;
        uint32_t j = 0;
        if (jobset) {
            if (grp->pods == 0)
                continue; /* a replicated job's inner group */
            if (grp->parent <= 0)
                return MUSTER_EINVAL;
            while (j < n && strcmp(sets[j].name, t->g[grp->parent].name) != 0)
                j++;
            /* under a CompositePodGroup template's group (workload_groups.c): the Job's name,
             * "<replicated job>-<index>", says its set */
            if (j == n)
                for (j = 0; j < n && !job_of(grp->name, sets[j].name); j++)
                    ;
            if (j == n || grp->pods != sets[j].group_pods || leaf_share(share_of, g, nshares, &s))
                return MUSTER_EINVAL;
        } else {
            if (grp->parent != 0)
                continue; /* a leader or workers leaf: counted with its group */
            if (grp->pods) {
                if (grp->pods != sets[0].group_pods || leaf_share(share_of, g, nshares, &s))
                    return MUSTER_EINVAL;
            } else {
                /* an indivisible group: its leaves all in one share, or none placed */
                int first = 1;
                for (uint32_t k = g + 1; k < t->n; k++) {
                    int32_t ks;
                    if (t->g[k].parent != (int32_t)g)
                        continue;
                    if (leaf_share(share_of, k, nshares, &ks) || (!first && ks != s))
                        return MUSTER_EINVAL;
                    s = ks;
                    first = 0;
                }
            }
        }
        if (s < 0)
            continue;
        struct karmada_gang_split *cell = &split[(size_t)s * nsets + j];
        cell->groups++;
        cell->min_groups++;
        /* a Job's PodGroup made from a Workload API template holds its minCount, not every pod */
        if (jobset && grp->min_count < grp->pods)
            cell->group_min = grp->min_count;
        if (__builtin_add_overflow(replicas[s], (int32_t)sets[j].group_pods, &replicas[s]))
            return MUSTER_EINVAL;
    }
    return 0;
}

/* The request of component name (NULL when w has none of that name). */
static const struct queue_resvec *request_of(const struct karmada_workload *w, const char *name)
{
    for (uint32_t c = 0; c < w->ncomponents; c++)
        if (strcmp(w->components[c].name, name) == 0)
            return &w->components[c].request;
    return NULL;
}

/* dst += times x v, all or nothing: MUSTER_ERANGE on overflow, MUSTER_ENOMEM. */
static int add_times(struct queue_resvec *dst, const struct queue_resvec *v, int64_t times)
{
    struct queue_resvec t;
    queue_resvec_init(&t);
    int rc = queue_resvec_reserve(&t, v->len);
    for (uint32_t k = 0; rc == 0 && k < v->len; k++) {
        int64_t m;
        rc = __builtin_mul_overflow(v->items[k].milli, times, &m)
                 ? MUSTER_ERANGE
                 : queue_resvec_set(&t, v->items[k].id, m);
    }
    if (rc == 0)
        rc = queue_resvec_add(dst, &t);
    queue_resvec_close(&t);
    return rc;
}

/* The pods of one group of set s that must run: group_min, else every pod. */
static uint32_t group_min(const struct karmada_gang_split *cell, const struct karmada_gang_set *s)
{
    return cell->group_min ? cell->group_min : s->group_pods;
}

/* Adds to dst the requests of min_groups groups of set j, each of its group_min pods (an LWS
 * group's first pod is its leader). */
static int add_set_request(const struct karmada_gang_input *in, const struct karmada_gang_set *s,
                           const struct karmada_gang_split *cell, struct queue_resvec *dst)
{
    uint32_t pods = group_min(cell, s);
    if (cell->min_groups == 0 || pods == 0)
        return 0;
    if (in->w->kind == KARMADA_WORKLOAD_KIND_JOBSET)
        return add_times(dst, request_of(in->w, s->name), (int64_t)cell->min_groups * pods);
    int rc = add_times(dst, request_of(in->w, "leader"), cell->min_groups);
    if (rc == 0 && pods > 1)
        rc = add_times(dst, request_of(in->w, "worker"), (int64_t)cell->min_groups * (pods - 1));
    return rc;
}

int karmada_gang_split_check(const struct karmada_gang_input *in, char *why, size_t cap)
{
    if (why && cap)
        why[0] = '\0';
    if (!in || !in->w || !in->split)
        return karmada__why_not(why, cap, "no split by groups");
    if (!karmada_gang_split_kind(in->w))
        return karmada__why_not(why, cap,
                       "a placement by groups is written for JobSets and LeaderWorkerSets only; "
                       "this workload is a %s",
                       karmada_workload_kind_name(in->w->kind));
    struct karmada_gang_set sets[KARMADA_GANG_SPLIT_SETS_MAX];
    uint32_t n;
    if (karmada_gang_split_sets(in->w, in->tmpl, sets, KARMADA_GANG_SPLIT_SETS_MAX, &n))
        return karmada__why_not(why, cap, "the template's groups cannot be read (replicatedJobs, replicas, "
                                 "size, parallelism or completions)");
    if (in->nsets != n)
        return karmada__why_not(why, cap, "the split has %" PRIu32 " sets of groups, the template %" PRIu32,
                       in->nsets, n);
    if (!in->shares || in->nshares == 0)
        return karmada__why_not(why, cap, "no target cluster");
    for (uint32_t j = 0; j < n; j++) {
        if (in->w->kind == KARMADA_WORKLOAD_KIND_JOBSET ? !request_of(in->w, sets[j].name)
                                                        : !request_of(in->w, "leader"))
            return karmada__why_not(why, cap, "no pod request read for %s", sets[j].name);
        uint64_t total = 0;
        for (uint32_t i = 0; i < in->nshares; i++) {
            const struct karmada_gang_split *c = CELL(in, i, j);
            if (c->min_groups > c->groups)
                return karmada__why_not(why, cap,
                               "cluster %s: %" PRIu32 " of %s's groups must run but %" PRIu32
                               " are placed there",
                               in->shares[i].cluster ? in->shares[i].cluster : "?", c->min_groups,
                               sets[j].name, c->groups);
            if (c->group_min > sets[j].group_pods)
                return karmada__why_not(why, cap,
                               "%s: %" PRIu32 " pods of a group must run, a group has %" PRIu32,
                               sets[j].name, c->group_min, sets[j].group_pods);
            total += c->groups;
        }
        if (total > sets[j].groups)
            return karmada__why_not(why, cap,
                           "%" PRIu64 " of %s's groups are placed, the template has %" PRIu32,
                           total, sets[j].name, sets[j].groups);
    }
    for (uint32_t i = 0; i < in->nshares; i++) {
        const struct karmada_gang_share *s = &in->shares[i];
        if (!s->cluster || !*s->cluster)
            return karmada__why_not(why, cap, "share %" PRIu32 ": no cluster name", i);
        if (strlen(KARMADA_PATH_EXECUTION_PREFIX) + strlen(s->cluster) > DNS_LABEL_MAX)
            return karmada__why_not(why, cap, "cluster %.80s: karmada-es-<cluster> would pass 63 characters",
                           s->cluster);
        enum karmada_gang_dialect d = DIALECT(in, i);
        if (d != KARMADA_GANG_DIALECT_VOLCANO && d != KARMADA_GANG_DIALECT_COSCHEDULING &&
            d != KARMADA_GANG_DIALECT_NONE) {
            const char *dn = karmada_gang_dialect_name(d);
            return karmada__why_not(why, cap,
                           "cluster %s speaks %s, whose gang muster does not write per group: a "
                           "placement by groups needs Volcano, coscheduling or no gang there",
                           s->cluster, dn ? dn : "an unknown dialect");
        }
        uint64_t groups = 0, pods = 0;
        for (uint32_t j = 0; j < n; j++) {
            groups += CELL(in, i, j)->groups;
            pods += (uint64_t)CELL(in, i, j)->groups * sets[j].group_pods;
        }
        if (groups == 0)
            return karmada__why_not(why, cap, "cluster %s runs no group", s->cluster);
        if (s->replicas <= 0 || pods != (uint64_t)s->replicas)
            return karmada__why_not(why, cap,
                           "cluster %s: a share of %" PRId32 " replicas, its groups have %" PRIu64
                           " pods",
                           s->cluster, s->replicas, pods);
    }
    return 0;
}

/* ---- the PodGroup Work ---- */

/* One subGroupPolicy entry for set s: its pods are told apart by the label the project's
 * controller puts on each group's pods, as KubeRay's Volcano integration groups a multi-host
 * worker group (ray-operator/controllers/ray/batchscheduler/volcano). */
static void subgroup(json_object *list, const struct karmada_gang_input *in, uint32_t i,
                     const struct karmada_gang_set *s, const struct karmada_gang_split *cell,
                     int *bad)
{
    const char *tname = get_str(kube_json_path(in->rb, "spec", "resource", NULL), "name");
    int jobset = in->w->kind == KARMADA_WORKLOAD_KIND_JOBSET;
    json_object *e = kube_json_push(list, json_object_new_object(), bad);
    kube_json_add_str(e, "name", s->name, bad);
    json_object *ml = kube_json_add_obj(kube_json_add_obj(e, "labelSelector", bad), "matchLabels",
                                        bad);
    if (jobset) {
        kube_json_add_str(ml, KARMADA_JOBSET_NAME_LABEL, tname, bad);
        kube_json_add_str(ml, KARMADA_JOBSET_REPLICATED_JOB_LABEL, s->name, bad);
    } else {
        kube_json_add_str(ml, KARMADA_LWS_NAME_LABEL, tname, bad);
    }
    kube_json_push(kube_json_add(e, "matchLabelKeys", json_object_new_array(), bad),
                   json_object_new_string(jobset ? KARMADA_JOBSET_JOB_INDEX_LABEL
                                                 : KARMADA_LWS_GROUP_INDEX_LABEL),
                   bad);
    kube_json_add(e, "subGroupSize", json_object_new_int64(group_min(cell, s)), bad);
    kube_json_add(e, "minSubGroups", json_object_new_int64(cell->min_groups), bad);
    /* each group on its own racks: a Volcano before v1.14 prunes subGroupPolicy whole, this
     * with it */
    if (in->member_topo && in->net_topo && in->net_topo[i])
        karmada_nettopo_write(e, &in->member_topo->group, karmada__topo_name(in, i, 1), bad);
}

json_object *karmada_gang_split_podgroup_work(const struct karmada_gang_input *in, uint32_t i)
{
    if (karmada_gang_input_check(in, NULL, 0) || !in->split || i >= in->nshares ||
        !karmada_gang_share_has_work(in, i))
        return NULL;
    struct karmada_gang_set sets[KARMADA_GANG_SPLIT_SETS_MAX];
    uint32_t n;
    if (karmada_gang_split_sets(in->w, in->tmpl, sets, KARMADA_GANG_SPLIT_SETS_MAX, &n))
        return NULL;
    const struct karmada_gang_share *sh = &in->shares[i];
    int cosched = DIALECT(in, i) == KARMADA_GANG_DIALECT_COSCHEDULING;
    json_object *rbm = kube_json_get(in->rb, "metadata");
    char pg[KARMADA_GANG_NAME_MAX + 1], work[KARMADA_GANG_NAME_MAX + 1], ns[DNS_LABEL_MAX + 1];
    if (karmada_gang_podgroup_name(get_str(rbm, "name"), pg, sizeof(pg)) ||
        karmada_gang_work_name(get_str(rbm, "namespace"), get_str(rbm, "name"), work, sizeof(work)))
        return NULL;
    snprintf(ns, sizeof(ns), KARMADA_PATH_EXECUTION_PREFIX "%s", sh->cluster);

    uint64_t min_member = 0;
    struct queue_resvec req;
    queue_resvec_init(&req);
    int bad = 0;
    for (uint32_t j = 0; j < n && !bad; j++) {
        const struct karmada_gang_split *cell = CELL(in, i, j);
        min_member += (uint64_t)cell->min_groups * group_min(cell, &sets[j]);
        bad = add_set_request(in, &sets[j], cell, &req) != 0;
    }
    if (min_member > INT32_MAX)
        bad = 1;

    /* The Work and its PodGroup are shaped as karmada_gang_podgroup_work shapes them (Karmada's
     * CreateOrUpdateWork, pkg/controllers/ctrlutil/work.go); only the spec differs. */
    json_object *meta;
    json_object *root =
        karmada__gang_new_marked("work.karmada.io/v1alpha1", "Work", work, ns, in, &meta, &bad);
    kube_json_push(kube_json_add(meta, "finalizers", json_object_new_array(), &bad),
                   json_object_new_string(KARMADA_GANG_WORK_FINALIZER), &bad);
    json_object *list = kube_json_add(kube_json_add_obj(kube_json_add_obj(root, "spec", &bad),
                                                        "workload", &bad),
                                      "manifests", json_object_new_array(), &bad);
    json_object *group = kube_json_push(
        list,
        karmada__gang_new_marked(
            cosched ? "scheduling.x-k8s.io/v1alpha1" : "scheduling.volcano.sh/v1beta1", "PodGroup",
            pg, get_str(kube_json_path(in->rb, "spec", "resource", NULL), "namespace"), in, &meta,
            &bad),
        &bad);
    kube_json_add_str(kube_json_get(meta, "labels"), KARMADA_MANAGED_LABEL, "true", &bad);
    json_object *ann = kube_json_get(meta, "annotations");
    kube_json_add_str(ann, KARMADA_GANG_WORK_NAME_ANNOTATION, work, &bad);
    kube_json_add_str(ann, KARMADA_GANG_WORK_NAMESPACE_ANNOTATION, ns, &bad);
    json_object *gs = kube_json_add_obj(group, "spec", &bad);
    /* A cluster whose groups are all optional still holds its gang object: one pod starts it. */
    kube_json_add(gs, "minMember", json_object_new_int64(min_member ? (int64_t)min_member : 1),
                  &bad);
    if (req.len)
        kube_json_add(gs, "minResources", kube_resvec_json(in->names, &req), &bad);
    queue_resvec_close(&req);
    if (cosched) {
        /* scheduler-plugins' PodGroupSpec has minMember only: the cluster's groups are one gang
         * there, each group's own all-or-nothing is left to the member. */
        if (in->gang_timeout_s > 0)
            kube_json_add(gs, "scheduleTimeoutSeconds", json_object_new_int(in->gang_timeout_s),
                          &bad);
        return karmada__gang_done(root, bad);
    }
    kube_json_add_str(gs, "queue", in->w->queue, &bad);
    if (in->w->priority_class[0])
        kube_json_add_str(gs, "priorityClassName", in->w->priority_class, &bad);
    if (in->member_topo && in->net_topo && in->net_topo[i])
        karmada_nettopo_write(gs, &in->member_topo->share, karmada__topo_name(in, i, 0), &bad);
    json_object *sgp = kube_json_add(gs, "subGroupPolicy", json_object_new_array(), &bad);
    for (uint32_t j = 0; j < n && !bad; j++)
        if (CELL(in, i, j)->groups)
            subgroup(sgp, in, i, &sets[j], CELL(in, i, j), &bad);
    return karmada__gang_done(root, bad);
}

/* ---- the OverridePolicy ---- */

/* The pod templates of set j and their JSON pointers; returns how many. */
static size_t set_pods(const struct karmada_gang_input *in, uint32_t j, json_object **pods,
                       char bases[SET_PODS_MAX][96])
{
    json_object *spec = kube_json_get(in->tmpl, "spec");
    if (in->w->kind == KARMADA_WORKLOAD_KIND_JOBSET) {
        json_object *rj = json_object_array_get_idx(kube_json_get(spec, "replicatedJobs"), j);
        pods[0] = kube_json_path(rj, "template", "spec", "template", NULL);
        snprintf(bases[0], sizeof(bases[0]), "/spec/replicatedJobs/%" PRIu32 "/template/spec/template",
                 j);
        return 1;
    }
    json_object *lwt = kube_json_get(spec, "leaderWorkerTemplate");
    size_t n = 0;
    pods[n] = kube_json_get(lwt, "workerTemplate");
    snprintf(bases[n++], sizeof(bases[0]), "/spec/leaderWorkerTemplate/workerTemplate");
    /* without a leaderTemplate LWS makes the leader from the workerTemplate */
    if (json_object_is_type(kube_json_get(lwt, "leaderTemplate"), json_type_object)) {
        pods[n] = kube_json_get(lwt, "leaderTemplate");
        snprintf(bases[n++], sizeof(bases[0]), "/spec/leaderWorkerTemplate/leaderTemplate");
    }
    return n;
}

/* The rule for shares[i]. */
static void split_rule(json_object *rules, const struct karmada_gang_input *in, uint32_t i,
                       const struct karmada_gang_set *sets, uint32_t n, const char *pg, int *bad)
{
    json_object *rule = kube_json_push(rules, json_object_new_object(), bad);
    kube_json_push(kube_json_add(kube_json_add_obj(rule, "targetCluster", bad), "clusterNames",
                                 json_object_new_array(), bad),
                   json_object_new_string(in->shares[i].cluster), bad);
    json_object *plain = kube_json_add(kube_json_add_obj(rule, "overriders", bad), "plaintext",
                                       json_object_new_array(), bad);
    enum karmada_gang_dialect d = DIALECT(in, i);
    const char *sched =
        in->pod_scheduler && *in->pod_scheduler ? in->pod_scheduler : DEFAULT_POD_SCHEDULER;
    char path[256];
    /* `add` sets a member whether or not the template has it; `replace` would fail the render
     * on a template that leaves the count to its default (RFC 6902, evanphx/json-patch as
     * pkg/util/overridemanager/overridemanager.go applyJSONPatch runs it). */
    for (uint32_t j = 0; j < n && !*bad; j++) {
        if (in->w->kind == KARMADA_WORKLOAD_KIND_JOBSET)
            snprintf(path, sizeof(path), "/spec/replicatedJobs/%" PRIu32 "/replicas", j);
        else
            snprintf(path, sizeof(path), "/spec/replicas");
        karmada__gang_overrider(plain, path, json_object_new_int64(CELL(in, i, j)->groups), bad);
    }
    for (uint32_t j = 0; j < n && !*bad; j++) {
        const struct karmada_gang_split *cell = CELL(in, i, j);
        if (!cell->groups)
            continue; /* no pod of the set runs there */
        uint64_t offset = 0, total = 0;
        for (uint32_t k = 0; k < in->nshares; k++) {
            total += CELL(in, k, j)->groups;
            if (k < i)
                offset += CELL(in, k, j)->groups;
        }
        char off[24], tot[24];
        snprintf(off, sizeof(off), "%" PRIu64, offset);
        snprintf(tot, sizeof(tot), "%" PRIu64, total);
        json_object *pods[SET_PODS_MAX];
        char bases[SET_PODS_MAX][96];
        size_t np = set_pods(in, j, pods, bases);
        for (size_t p = 0; p < np && !*bad; p++) {
            const char *keys[3] = {KARMADA_GANG_GROUP_OFFSET_ANNOTATION,
                                   KARMADA_GANG_GROUP_TOTAL_ANNOTATION,
                                   KARMADA_GANG_GROUP_NAME_ANNOTATION};
            const char *vals[3] = {off, tot, pg};
            int volcano = d == KARMADA_GANG_DIALECT_VOLCANO;
            karmada__gang_meta_overriders_at(plain, pods[p], bases[p], "annotations", keys, vals,
                                             volcano ? 3 : 2, bad);
            if (volcano) {
                snprintf(path, sizeof(path), "%s/spec/schedulerName", bases[p]);
                karmada__gang_overrider(plain, path, json_object_new_string(sched), bad);
            } else if (d == KARMADA_GANG_DIALECT_COSCHEDULING) {
                const char *k = KARMADA_GANG_COSCHED_LABEL;
                karmada__gang_meta_overriders_at(plain, pods[p], bases[p], "labels", &k, &pg, 1,
                                                 bad);
            }
        }
    }
}

json_object *karmada_gang_split_override_policy(const struct karmada_gang_input *in)
{
    if (karmada_gang_input_check(in, NULL, 0) || !in->split)
        return NULL;
    struct karmada_gang_set sets[KARMADA_GANG_SPLIT_SETS_MAX];
    uint32_t n;
    if (karmada_gang_split_sets(in->w, in->tmpl, sets, KARMADA_GANG_SPLIT_SETS_MAX, &n))
        return NULL;
    json_object *rbm = kube_json_get(in->rb, "metadata");
    char pg[KARMADA_GANG_NAME_MAX + 1], name[KARMADA_GANG_NAME_MAX + 1];
    if (karmada_gang_podgroup_name(get_str(rbm, "name"), pg, sizeof(pg)) ||
        karmada_gang_policy_name(get_str(rbm, "name"), name, sizeof(name)))
        return NULL;
    int bad = 0;
    json_object *rules;
    json_object *root = karmada__gang_policy_new(in, name, &rules, &bad);
    /* One rule per cluster: every cluster gets the whole template from Karmada, and only its
     * rule says how many groups it runs. */
    for (uint32_t i = 0; i < in->nshares && !bad; i++)
        split_rule(rules, in, i, sets, n, pg, &bad);
    return karmada__gang_done(root, bad);
}
