/* A workload's group tree (see workload_groups.h and docs/workload.md, "Group trees (issue 20)").
 * Each source is read twice by the same function: once to count and validate (the tree has no
 * array yet, add() only counts and stops at KARMADA_GROUPS_MAX, so a replica count of 2^31 costs
 * 1,025 steps), once to fill an array of exactly that size. */
#include "cluster-adapters/karmada/workload_groups.h"

#include "cluster-adapters/karmada/workload_kinds.h"
#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/selector.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 4, 5))) static int fail(struct karmada_groups_error *err,
                                                      enum karmada_workload_reason reason, int code,
                                                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    err->reason = reason;
    return code;
}

#define ONE_POD 1000 /* "pods" 1, in milli-units */

#define INVALID(e, ...) fail((e), KARMADA_WORKLOAD_INVALID, MUSTER_EINVAL, __VA_ARGS__)
#define REFUSED(e, ...) fail((e), KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL, __VA_ARGS__)

/* ---- levels ---- */

static const char *const words[] = {"cluster", "region", "zone"};

int karmada_group_level_valid(const char *s, size_t len)
{
    char buf[KARMADA_GROUP_LEVEL_MAX + 1];
    if (!s || len == 0 || len > KARMADA_GROUP_LEVEL_MAX || memchr(s, '\0', len))
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strcmp(buf, words[i]) == 0)
            return 1;
    return kube_label_key_valid(buf);
}

static const char *nonempty(json_object *v)
{
    return json_object_is_type(v, json_type_string) && json_object_get_string_len(v) > 0
               ? json_object_get_string(v)
               : NULL;
}

const char *karmada_group_level_value(json_object *cluster, const char *level)
{
    json_object *spec = kube_json_get(cluster, "spec");
    json_object *meta = kube_json_get(cluster, "metadata");
    if (!level || !json_object_is_type(cluster, json_type_object))
        return NULL;
    if (strcmp(level, "cluster") == 0)
        return nonempty(kube_json_get(meta, "name"));
    if (strcmp(level, "region") == 0)
        return nonempty(kube_json_get(spec, "region"));
    if (strcmp(level, "zone") == 0) {
        /* spec.zone is deprecated in Karmada's types (never used by Karmada) in favour of
         * spec.zones; a cluster that still sets it says so itself */
        const char *z = nonempty(kube_json_get(spec, "zone"));
        json_object *zones = kube_json_get(spec, "zones");
        if (!z && json_object_is_type(zones, json_type_array))
            z = nonempty(json_object_array_get_idx(zones, 0));
        return z;
    }
    json_object *labels = kube_json_get(meta, "labels");
    return json_object_is_type(labels, json_type_object) ? nonempty(kube_json_get(labels, level))
                                                         : NULL;
}

/* ---- small readers ---- */

/* A DNS-1123 label: the names JobSet, Volcano and LWS give what becomes a group, and what a
 * member-side object per group can be named after. */
static int dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > KARMADA_GROUP_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int an = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!an && !(c == '-' && i > 0 && i < n - 1))
            return 0;
    }
    return 1;
}

/* The annotation key of the template, else of the binding (*who says whose). */
static int annotation(struct karmada_groups_error *err, json_object *tmpl, json_object *rb,
                      const char *key, const char **out, const char **who)
{
    json_object *objs[2] = {tmpl, rb};
    static const char *const whos[2] = {"template", "binding"};
    *out = NULL;
    for (int o = 0; o < 2; o++) {
        json_object *v =
            kube_json_get(kube_json_get(kube_json_get(objs[o], "metadata"), "annotations"), key);
        *who = whos[o];
        if (!v)
            continue;
        if (!json_object_is_type(v, json_type_string))
            return INVALID(err, "%s annotation %s: must be a string", whos[o], key);
        *out = json_object_get_string(v);
        return 0;
    }
    return 0;
}

/* A count at obj[key]: dflt when absent, else an int32 >= lo. */
static int count_at(struct karmada_groups_error *err, json_object *obj, const char *key,
                    int32_t dflt, int32_t lo, const char *what, const char *path, int32_t *out)
{
    json_object *v = kube_json_get(obj, key);
    *out = dflt;
    if (v && (karmada__workload_int32(v, out) || *out < lo))
        return INVALID(err, "the %s's %s.%s: must be a 32-bit integer of at least %d", what, path,
                       key, lo);
    return 0;
}

/* ---- building ---- */

struct build {
    struct karmada_group_tree *t; /* t->g NULL while counting */
    uint8_t *unit; /* 1: a group the group-level annotations constrain ("each group") */
    struct karmada_groups_error *err;
    struct queue_resnames *names;
    const struct karmada_workload *w;
    json_object *tmpl;
    uint32_t pods_id;
    /* a JobSet structured by the Workload API (from_wl): its hub Workload, the source of its
     * groups and, per replicated job, its leaves' min_count (0: every pod) */
    const struct karmada_groups_wl *wl;
    enum karmada_group_source jsrc;
    const uint32_t *leaf_min;
};

/* Appends a group (a leaf when pods > 0, with one pod's request req) named by fmt; *at gets its
 * index. Names other than the root's must be DNS labels. */
__attribute__((format(printf, 10, 11))) static int
add(struct build *b, int32_t parent, enum karmada_group_source src, uint32_t min, uint32_t pods,
    const struct queue_resvec *req, int indivisible, int unit, int32_t *at, const char *fmt, ...)
{
    char name[KARMADA_GROUP_NAME_MAX + 2];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(name, sizeof(name), fmt, ap);
    va_end(ap);
    if (parent < 0 && len > KARMADA_GROUP_NAME_MAX) /* the root's, for messages only */
        name[KARMADA_GROUP_NAME_MAX] = '\0';
    else if (parent >= 0 && (len < 0 || !dns_label(name)))
        return INVALID(b->err,
                       "group name \"%.63s\" is not a DNS-1123 label of at most %d characters "
                       "(lowercase letters, digits and '-')",
                       name, KARMADA_GROUP_NAME_MAX);
    if (b->t->n >= KARMADA_GROUPS_MAX)
        return fail(b->err, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                    "the workload makes more than %d groups, muster's limit",
                    KARMADA_GROUPS_MAX - 1);
    *at = (int32_t)b->t->n++;
    if (!b->t->g)
        return 0;
    struct karmada_group *g = &b->t->g[*at];
    size_t nl = strnlen(name, KARMADA_GROUP_NAME_MAX); /* checked or cut to it above */
    memcpy(g->name, name, nl);
    g->name[nl] = '\0';
    g->parent = parent;
    g->source = src;
    g->min_count = min;
    g->pods = pods;
    g->indivisible = indivisible;
    b->unit[*at] = (uint8_t)unit;
    if (pods > 0 &&
        (queue_resvec_copy(&g->pod, req) || (!queue_resvec_get(&g->pod, b->pods_id) &&
                                             queue_resvec_set(&g->pod, b->pods_id, ONE_POD))))
        return fail(b->err, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    return 0;
}

static int add_root(struct build *b, enum karmada_group_source src, uint32_t min)
{
    int32_t at;
    const char *name = kube_json_path_str(b->tmpl, "metadata", "name", NULL);
    /* "Kind/name": never a DNS label, so never the name of one of its groups */
    return add(b, -1, src, min, 0, NULL, b->w->placement == KARMADA_WORKLOAD_SINGLE_CLUSTER, 0, &at,
               "%s/%s", karmada_workload_kind_name(b->w->kind), name ? name : "");
}

/* scheduling.muster.io/group-size: N on one divisible pod template: replicas / N leaves of N
 * pods, each all or nothing; the root needs the leaves that hold the gang's min-member. */
static int from_group_size(struct build *b, int32_t size)
{
    const struct karmada_workload *w = b->w;
    int32_t replicas = w->components[0].replicas, at;
    if (replicas == 0)
        return 0;
    uint32_t k = (uint32_t)(replicas / size);
    uint32_t min = w->min_member > 0 ? (uint32_t)(((int64_t)w->min_member + size - 1) / size) : k;
    int rc = add_root(b, KARMADA_GROUP_SOURCE_GROUP_SIZE, min < k ? min : k);
    for (uint32_t i = 0; !rc && i < k; i++)
        rc = add(b, 0, KARMADA_GROUP_SOURCE_GROUP_SIZE, (uint32_t)size, (uint32_t)size,
                 &w->components[0].request, 1, 1, &at, "group-%u", i);
    return rc;
}

/* A Volcano Job: a leaf per task with pods. Its minAvailable counts pods of any task, which no
 * count of whole tasks says: every task is placed (the member runs every task of the one Job
 * object), and the leaves' min_counts carry the pods the job needs: each task's minAvailable,
 * raised in task order towards its replicas until they add up to the gang's min-member.
 * A task with a partitionPolicy (Volcano v1.14) is an indivisible group of its partitions, a
 * leaf of partitionSize pods each (Volcano's subGroupPolicy makes each a gang in the member);
 * all are placed, and the partitions the task's minimum needs (whole ones: a partition is a
 * gang) carry min_count partitionSize, the rest 0, as a task the minimum does not need. */
static int from_vcjob(struct build *b, json_object *spec)
{
    const struct karmada_workload *w = b->w;
    json_object *tasks = kube_json_get(spec, "tasks");
    size_t n = json_object_is_type(tasks, json_type_array) ? json_object_array_length(tasks) : 0;
    uint32_t mins[KARMADA_WORKLOAD_COMPONENTS_MAX], leaves = 0;
    struct karmada__vcjob_partition parts[KARMADA_WORKLOAD_COMPONENTS_MAX];
    int64_t sum = 0;
    if (n != w->ncomponents)
        return INVALID(b->err, "the Volcano Job has %zu tasks but the workload read has %u", n,
                       w->ncomponents);
    for (size_t i = 0; i < n; i++) {
        const struct karmada_workload_component *c = &w->components[i];
        json_object *t = json_object_array_get_idx(tasks, i);
        int32_t m;
        char msg[256];
        if (karmada__vcjob_task_min(t, i, c->replicas, &parts[i], &m, msg, sizeof(msg)))
            return INVALID(b->err, "%s", msg);
        if (c->replicas > 0 && !dns_label(c->name))
            return INVALID(b->err,
                           "the Volcano Job's spec.tasks[%zu].name \"%.63s\" is not a DNS-1123 "
                           "label, as Volcano's admission requires",
                           i, c->name);
        mins[i] = (uint32_t)m;
        sum += m;
        leaves += c->replicas > 0;
    }
    for (size_t i = 0; i < n && sum < w->min_member; i++) {
        int64_t room = w->components[i].replicas - (int64_t)mins[i];
        int64_t take = w->min_member - sum < room ? w->min_member - sum : room;
        mins[i] += (uint32_t)take;
        sum += take;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t total = parts[i].total;
        if (!total || w->components[i].replicas == 0)
            continue;
        /* "<task>-<i>" names each partition, as Volcano's task-partition-id numbers them */
        char last[24];
        int ll = snprintf(last, sizeof(last), "-%d", total - 1);
        if (strlen(w->components[i].name) + (size_t)ll > KARMADA_GROUP_NAME_MAX)
            return REFUSED(b->err,
                           "the Volcano Job's task %.63s is too long a name for its %d "
                           "partitions: muster names each \"<task>-<index>\", a DNS-1123 label "
                           "of at most %d characters; shorten the task's name",
                           w->components[i].name, total, KARMADA_GROUP_NAME_MAX);
        for (size_t j = 0; j < n; j++) {
            size_t l = strlen(w->components[i].name);
            const char *nm = w->components[j].name, *rest = nm + l;
            int32_t idx;
            if (j != i && strncmp(nm, w->components[i].name, l) == 0 && rest[0] == '-' &&
                !karmada_workload_parse_count(rest + 1, strlen(rest + 1), &idx) && idx < total &&
                w->components[j].replicas > 0)
                return REFUSED(b->err,
                               "the Volcano Job's task %.63s has the name of a partition of "
                               "task %.63s: muster names each partition \"<task>-<index>\"; "
                               "rename the task",
                               nm, w->components[i].name);
        }
    }
    if (leaves == 0)
        return 0;
    int rc = add_root(b, KARMADA_GROUP_SOURCE_VCJOB_TASK, leaves);
    for (size_t i = 0; !rc && i < n; i++) {
        const struct karmada_workload_component *c = &w->components[i];
        const struct karmada__vcjob_partition *p = &parts[i];
        int32_t at, inner;
        if (c->replicas == 0)
            continue;
        if (!p->total) {
            rc = add(b, 0, KARMADA_GROUP_SOURCE_VCJOB_TASK, mins[i], (uint32_t)c->replicas,
                     &c->request, 1, 1, &at, "%s", c->name);
            continue;
        }
        /* whole partitions: a minimum raised by the job's min-member takes the next whole one */
        int64_t need = ((int64_t)mins[i] + p->size - 1) / p->size;
        rc = add(b, 0, KARMADA_GROUP_SOURCE_VCJOB_TASK, (uint32_t)p->total, 0, NULL, 1, 1, &inner,
                 "%s", c->name);
        for (int32_t k = 0; !rc && k < p->total; k++)
            rc = add(b, inner, KARMADA_GROUP_SOURCE_VCJOB_TASK, k < need ? (uint32_t)p->size : 0,
                     (uint32_t)p->size, &c->request, 1, 0, &at, "%s-%d", c->name, k);
    }
    return rc;
}

/* One replicated job's pods per Job (parallelism, default 1, capped by completions) and its
 * Jobs (replicas, default 1), as workload_kinds.c counts them. */
static int jobset_counts(struct build *b, json_object *rj, size_t i, int32_t *jobs, int32_t *pods)
{
    char path[48];
    int32_t par = 0, comp = 0;
    json_object *js = kube_json_path(rj, "template", "spec", NULL);
    snprintf(path, sizeof(path), "spec.replicatedJobs[%zu]", i);
    int rc = count_at(b->err, rj, "replicas", 1, 0, "JobSet", path, jobs);
    snprintf(path, sizeof(path), "spec.replicatedJobs[%zu].template.spec", i);
    if (!rc)
        rc = count_at(b->err, js, "parallelism", 1, 0, "JobSet", path, &par);
    if (!rc)
        rc = count_at(b->err, js, "completions", INT32_MAX, 0, "JobSet", path, &comp);
    *pods = rc ? 0 : comp < par ? comp : par;
    return rc;
}

/* A JobSet: an inner group per replicated job, a leaf per Job; every Job runs, so every level
 * needs all its children. An inner group named like another's Job ("w" has Jobs "w-0", ...;
 * a replicated job named "w-0") is the only way two names can meet. */
static int from_jobset(struct build *b, json_object *spec)
{
    const struct karmada_workload *w = b->w;
    json_object *rjs = kube_json_get(spec, "replicatedJobs");
    size_t n = json_object_is_type(rjs, json_type_array) ? json_object_array_length(rjs) : 0;
    uint32_t active = 0;
    int32_t jobs[KARMADA_WORKLOAD_COMPONENTS_MAX], pods[KARMADA_WORKLOAD_COMPONENTS_MAX];
    if (n != w->ncomponents)
        return INVALID(b->err, "the JobSet has %zu replicated jobs but the workload read has %u", n,
                       w->ncomponents);
    for (size_t i = 0; i < n; i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        const char *nm = kube_json_str(rj, "name");
        int rc = jobset_counts(b, rj, i, &jobs[i], &pods[i]);
        if (rc)
            return rc;
        if (!nm || strcmp(nm, w->components[i].name) != 0)
            return INVALID(b->err,
                           "the JobSet's spec.replicatedJobs[%zu] is not the workload "
                           "read's; read the workload again",
                           i);
    }
    for (size_t i = 0; i < n; i++) {
        const char *nm = w->components[i].name;
        if (jobs[i] == 0 || pods[i] == 0)
            continue;
        active++;
        for (size_t j = 0; j < n; j++) {
            size_t l = strlen(w->components[j].name);
            const char *rest = nm + l;
            int32_t idx;
            if (j != i && strncmp(nm, w->components[j].name, l) == 0 && rest[0] == '-' &&
                !karmada_workload_parse_count(rest + 1, strlen(rest + 1), &idx) && idx < jobs[j] &&
                pods[j] > 0)
                return REFUSED(b->err,
                               "the JobSet's replicated job %.63s has the name of a Job of "
                               "replicated job %.63s: muster names each group after its Job; "
                               "rename one of them",
                               nm, w->components[j].name);
        }
    }
    if (active == 0)
        return 0;
    enum karmada_group_source src = b->leaf_min ? b->jsrc : KARMADA_GROUP_SOURCE_JOBSET;
    int rc;
    if (b->leaf_min) {
        /* the Workload is the root; "Workload/name" is no DNS label, as add_root's */
        int32_t at;
        const char *wn = kube_json_path_str(b->wl->workload, "metadata", "name", NULL);
        rc = add(b, -1, src, active, 0, NULL, w->placement == KARMADA_WORKLOAD_SINGLE_CLUSTER, 0,
                 &at, "Workload/%s", wn ? wn : "");
    } else {
        rc = add_root(b, src, active);
    }
    for (size_t i = 0; !rc && i < n; i++) {
        int32_t inner, at;
        if (jobs[i] == 0 || pods[i] == 0)
            continue;
        const struct karmada_workload_component *c = &w->components[i];
        uint32_t lmin = b->leaf_min && b->leaf_min[i] ? b->leaf_min[i] : (uint32_t)pods[i];
        rc = add(b, 0, src, (uint32_t)jobs[i], 0, NULL, 0, 0, &inner, "%s", c->name);
        for (int32_t j = 0; !rc && j < jobs[i]; j++)
            rc = add(b, inner, src, lmin, (uint32_t)pods[i], &c->request, 1, 1, &at, "%s-%d",
                     c->name, j);
    }
    return rc;
}

/* ---- the Kubernetes Workload API ---- */

/* The pod group template a replicated job's Job template names (KEP-5547's annotation), or NULL;
 * 1 in *bad when the annotation is there but no name. */
static const char *rj_template(json_object *rj, int *bad)
{
    json_object *v = kube_json_get(
        kube_json_get(kube_json_path(rj, "template", "metadata", NULL), "annotations"),
        KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION);
    *bad = v && (!json_object_is_type(v, json_type_string) || !json_object_get_string_len(v));
    return v && !*bad ? json_object_get_string(v) : NULL;
}

int karmada_workload_groups_wants_wl(const struct karmada_workload *w, json_object *tmpl)
{
    if (w->kind != KARMADA_WORKLOAD_KIND_JOBSET)
        return 0;
    json_object *rjs = kube_json_path(tmpl, "spec", "replicatedJobs", NULL);
    size_t n = json_object_is_type(rjs, json_type_array) ? json_object_array_length(rjs) : 0;
    for (size_t i = 0; i < n; i++) {
        int bad;
        if (rj_template(json_object_array_get_idx(rjs, i), &bad) || bad)
            return 1;
    }
    return 0;
}

/* The minimum of one Job's PodGroup made from the Workload's template tname: the gang's
 * minCount (1..pods), or 1 for basic (no all or nothing: a pod may run alone). */
static int wl_template_min(struct build *b, json_object *pgts, const char *wn, const char *rjn,
                           const char *tname, int32_t pods, uint32_t *min)
{
    size_t n = json_object_array_length(pgts);
    json_object *pgt = NULL;
    char have[160] = "";
    size_t hl = 0;
    for (size_t k = 0; k < n && !pgt; k++) {
        json_object *e = json_object_array_get_idx(pgts, k);
        const char *nm = kube_json_str(e, "name");
        if (nm && strcmp(nm, tname) == 0)
            pgt = e;
        else if (nm && hl < sizeof(have))
            hl += (size_t)snprintf(have + hl, sizeof(have) - hl, "%s%.63s", hl ? ", " : "", nm);
    }
    if (!pgt)
        return INVALID(b->err,
                       "the JobSet's replicated job %.63s names pod group template %.63s "
                       "(annotation " KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION "), which "
                       "Workload %.63s does not have (its spec.podGroupTemplates: %s)",
                       rjn, tname, wn, hl ? have : "none");
    json_object *sp = kube_json_get(pgt, "schedulingPolicy");
    json_object *gang = kube_json_get(sp, "gang"), *basic = kube_json_get(sp, "basic");
    if (!gang == !basic || (gang && !json_object_is_type(gang, json_type_object)) ||
        (basic && !json_object_is_type(basic, json_type_object)))
        return INVALID(b->err,
                       "Workload %.63s: pod group template %.63s's schedulingPolicy must set "
                       "exactly one of gang and basic",
                       wn, tname);
    if (basic) {
        *min = 1;
        return 0;
    }
    int32_t m;
    json_object *mc = kube_json_get(gang, "minCount");
    if (!mc || karmada__workload_int32(mc, &m) || m < 1)
        return INVALID(b->err,
                       "Workload %.63s: pod group template %.63s's schedulingPolicy.gang.minCount "
                       "must be a 32-bit integer of at least 1",
                       wn, tname);
    if (m > pods)
        return INVALID(b->err,
                       "Workload %.63s: pod group template %.63s's gang minCount %d is more than "
                       "the %d pods of each Job of replicated job %.63s, so its PodGroups could "
                       "never be scheduled",
                       wn, tname, m, pods, rjn);
    *min = (uint32_t)m;
    return 0;
}

/* ---- CompositePodGroup (KEP-6012) ---- */

/* A Workload's tree of templates nests inline (a composite's children are in its own
 * podGroupTemplates and compositePodGroupTemplates), so it cannot hold a cycle, and depth counts
 * the outermost template as 1 and a pod group template too: kube-scheduler walks at most
 * WorkloadMaxTreeDepth (4) groups up from a PodGroup to its root (scheduling/v1alpha3 types.go;
 * pkg/scheduler's hierarchy walk). */
#define CPG_DEPTH_MAX 4
/* every composite a Workload the API server takes can hold: at most 8 per list, at depths 1..3 */
#define CPG_MAX (8 + 8 * 8 + 8 * 8 * 8)

struct cpg {
    const char *name;
    json_object *pgts; /* its podGroupTemplates (may be NULL) */
    int32_t parent;    /* index in cpg[], -1 at the top */
    uint32_t depth;    /* 1 at the top */
    uint32_t kids;     /* child groups at run time: its Jobs and child composites */
    int32_t min;       /* gang.minGroupCount; 0 for basic */
    int32_t at;        /* its index in the tree */
};

struct cpgs {
    struct cpg c[CPG_MAX];
    uint32_t n;
};

/* Reads the composite templates of list (under parent, at depth) into cs, validating each. */
static int cpg_walk(struct build *b, const char *wn, json_object *list, int32_t parent,
                    uint32_t depth, struct cpgs *cs)
{
    if (!json_object_is_type(list, json_type_array))
        return INVALID(b->err, "Workload %.63s: %s%.63s%scompositePodGroupTemplates must be a list",
                       wn, parent < 0 ? "spec." : "composite template ",
                       parent < 0 ? "" : cs->c[parent].name, parent < 0 ? "" : "'s ");
    size_t n = json_object_array_length(list);
    for (size_t k = 0; k < n; k++) {
        json_object *e = json_object_array_get_idx(list, k);
        const char *nm = kube_json_str(e, "name");
        if (!nm || !dns_label(nm))
            return INVALID(b->err,
                           "Workload %.63s: a composite pod group template's name must be a "
                           "DNS label",
                           wn);
        if (depth >= CPG_DEPTH_MAX)
            return INVALID(b->err,
                           "Workload %.63s: composite pod group template %.63s is at depth %u: "
                           "with its pod groups below it the tree is deeper than %d levels "
                           "(WorkloadMaxTreeDepth)",
                           wn, nm, depth, CPG_DEPTH_MAX);
        for (uint32_t i = 0; i < cs->n; i++)
            if (strcmp(cs->c[i].name, nm) == 0)
                return INVALID(b->err,
                               "Workload %.63s has two composite pod group templates named "
                               "%.63s: muster names each group after its template",
                               wn, nm);
        if (cs->n >= CPG_MAX)
            return fail(b->err, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                        "Workload %.63s has more than %d composite pod group templates, "
                        "muster's limit",
                        wn, CPG_MAX);
        json_object *sp = kube_json_get(e, "schedulingPolicy");
        json_object *gang = kube_json_get(sp, "gang"), *basic = kube_json_get(sp, "basic");
        if (!gang == !basic || (gang && !json_object_is_type(gang, json_type_object)) ||
            (basic && !json_object_is_type(basic, json_type_object)))
            return INVALID(b->err,
                           "Workload %.63s: composite pod group template %.63s's "
                           "schedulingPolicy must set exactly one of gang and basic",
                           wn, nm);
        int32_t m = 0;
        json_object *mc = kube_json_get(gang, "minGroupCount");
        if (gang && (!mc || karmada__workload_int32(mc, &m) || m < 1))
            return INVALID(b->err,
                           "Workload %.63s: composite pod group template %.63s's "
                           "schedulingPolicy.gang.minGroupCount must be a 32-bit integer of at "
                           "least 1",
                           wn, nm);
        json_object *pgts = kube_json_get(e, "podGroupTemplates");
        json_object *sub = kube_json_get(e, "compositePodGroupTemplates");
        if (pgts && !json_object_is_type(pgts, json_type_array))
            return INVALID(b->err,
                           "Workload %.63s: composite pod group template %.63s's "
                           "podGroupTemplates must be a list",
                           wn, nm);
        if ((!pgts || !json_object_array_length(pgts)) &&
            (!json_object_is_type(sub, json_type_array) || !json_object_array_length(sub)))
            return INVALID(b->err,
                           "Workload %.63s: composite pod group template %.63s sets neither "
                           "podGroupTemplates nor compositePodGroupTemplates",
                           wn, nm);
        uint32_t at = cs->n++;
        cs->c[at] = (struct cpg){
            .name = nm, .pgts = pgts, .parent = parent, .depth = depth, .min = m, .at = -1};
        if (parent >= 0)
            cs->c[parent].kids++;
        int rc = sub ? cpg_walk(b, wn, sub, (int32_t)at, depth + 1, cs) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

/* The composite whose podGroupTemplates has tname (-1: none), refusing a name two have. */
static int cpg_owner(struct build *b, const char *wn, const char *rjn, const char *tname,
                     const struct cpgs *cs, int32_t *owner)
{
    *owner = -1;
    for (uint32_t i = 0; i < cs->n; i++) {
        size_t n = cs->c[i].pgts ? json_object_array_length(cs->c[i].pgts) : 0;
        for (size_t k = 0; k < n; k++) {
            const char *nm = kube_json_str(json_object_array_get_idx(cs->c[i].pgts, k), "name");
            if (!nm || strcmp(nm, tname) != 0)
                continue;
            if (*owner >= 0)
                return INVALID(b->err,
                               "the JobSet's replicated job %.63s names pod group template "
                               "%.63s, which Workload %.63s has under both composite templates "
                               "%.63s and %.63s",
                               rjn, tname, wn, cs->c[*owner].name, cs->c[i].name);
            *owner = (int32_t)i;
        }
    }
    if (*owner >= 0)
        return 0;
    char have[160] = "";
    size_t hl = 0;
    for (uint32_t i = 0; i < cs->n; i++) {
        size_t n = cs->c[i].pgts ? json_object_array_length(cs->c[i].pgts) : 0;
        for (size_t k = 0; k < n && hl < sizeof(have); k++) {
            const char *nm = kube_json_str(json_object_array_get_idx(cs->c[i].pgts, k), "name");
            if (nm)
                hl += (size_t)snprintf(have + hl, sizeof(have) - hl, "%s%.63s/%.63s",
                                       hl ? ", " : "", cs->c[i].name, nm);
        }
    }
    return INVALID(b->err,
                   "the JobSet's replicated job %.63s names pod group template %.63s "
                   "(annotation " KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION "), which Workload "
                   "%.63s does not have (its composite templates' podGroupTemplates: %s)",
                   rjn, tname, wn, hl ? have : "none");
}

/* A JobSet whose replicated jobs name pod group templates under a Workload's
 * compositePodGroupTemplates: the Workload the root, a group per composite template (one
 * CompositePodGroup each: a JobSet makes one instance of every template), and under each the
 * Jobs (one PodGroup each, KEP-5547) of the replicated jobs naming a pod group template it lists,
 * and its child composites. A composite's min_count is its gang.minGroupCount, counting those
 * child groups, as kube-scheduler counts a CompositePodGroup's child PodGroups and
 * CompositePodGroups; basic: 1 (its children scheduled independently). The root needs every
 * child: the JobSet is one object, placed all or nothing (and its controller makes every Job).
 * A replicated job naming no template keeps its own group of whole Jobs under the root.
 * Leaves follow the replicated jobs' order, after every inner group, so a replicated job's Jobs
 * stay in a run as the split counts them (karmada_gang_split_from_tree). */
static int from_wl_composite(struct build *b, json_object *spec, const char *wn, json_object *cpgts)
{
    const struct karmada_workload *w = b->w;
    struct cpgs *cs = muster_calloc(1, sizeof(*cs));
    if (!cs)
        return fail(b->err, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    json_object *rjs = kube_json_get(spec, "replicatedJobs");
    size_t n = json_object_is_type(rjs, json_type_array) ? json_object_array_length(rjs) : 0;
    int32_t jobs[KARMADA_WORKLOAD_COMPONENTS_MAX], pods[KARMADA_WORKLOAD_COMPONENTS_MAX];
    int32_t owner[KARMADA_WORKLOAD_COMPONENTS_MAX];
    uint32_t mins[KARMADA_WORKLOAD_COMPONENTS_MAX] = {0};
    int rc = cpg_walk(b, wn, cpgts, -1, 1, cs);
    if (!rc && (n > KARMADA_WORKLOAD_COMPONENTS_MAX || n != w->ncomponents))
        rc = INVALID(b->err, "the JobSet has %zu replicated jobs but the workload read has %u", n,
                     w->ncomponents);
    for (size_t i = 0; !rc && i < n; i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        int bad;
        const char *tname = rj_template(rj, &bad);
        const char *rjn = kube_json_str(rj, "name");
        owner[i] = -1;
        if (bad)
            rc = INVALID(b->err,
                         "the JobSet's spec.replicatedJobs[%zu].template annotation "
                         "" KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION ": must be a pod group "
                         "template's name",
                         i);
        if (!rc)
            rc = jobset_counts(b, rj, i, &jobs[i], &pods[i]);
        if (!rc && (!rjn || strcmp(rjn, w->components[i].name) != 0))
            rc = INVALID(b->err,
                         "the JobSet's spec.replicatedJobs[%zu] is not the workload read's; "
                         "read the workload again",
                         i);
        if (rc || !tname)
            continue;
        rc = cpg_owner(b, wn, rjn, tname, cs, &owner[i]);
        if (!rc && pods[i] > 0)
            rc = wl_template_min(b, cs->c[owner[i]].pgts, wn, rjn, tname, pods[i], &mins[i]);
        if (!rc && pods[i] > 0 && jobs[i] > 0)
            cs->c[owner[i]].kids += (uint32_t)jobs[i];
    }
    /* a replicated job named like another's Job: refused as from_jobset refuses it */
    for (size_t i = 0; !rc && i < n; i++)
        for (size_t j = 0; !rc && j < n && jobs[i] > 0 && pods[i] > 0; j++) {
            const char *nm = w->components[i].name;
            size_t l = strlen(w->components[j].name);
            int32_t idx;
            if (j != i && strncmp(nm, w->components[j].name, l) == 0 && nm[l] == '-' &&
                !karmada_workload_parse_count(nm + l + 1, strlen(nm + l + 1), &idx) &&
                idx < jobs[j] && pods[j] > 0)
                rc = REFUSED(b->err,
                             "the JobSet's replicated job %.63s has the name of a Job of "
                             "replicated job %.63s: muster names each group after its Job; "
                             "rename one of them",
                             nm, w->components[j].name);
        }
    /* a composite is a group only with children; kids counted a child composite already */
    for (uint32_t i = 0; !rc && i < cs->n; i++) {
        const struct cpg *c = &cs->c[i];
        if (c->kids == 0)
            rc = INVALID(b->err,
                         "Workload %.63s: composite pod group template %.63s would have no "
                         "child groups: no replicated job of the JobSet names a pod group "
                         "template under it",
                         wn, c->name);
        else if (c->min > 0 && (uint32_t)c->min > c->kids)
            rc = INVALID(b->err,
                         "Workload %.63s: composite pod group template %.63s's gang "
                         "minGroupCount %d is more than its %u child groups, so its "
                         "CompositePodGroup could never be scheduled",
                         wn, c->name, c->min, c->kids);
        for (size_t j = 0; !rc && j < n; j++) {
            size_t l = strlen(w->components[j].name);
            const char *rest = c->name + l;
            int32_t idx;
            if (jobs[j] > 0 && pods[j] > 0 &&
                (strcmp(c->name, w->components[j].name) == 0 ||
                 (strncmp(c->name, w->components[j].name, l) == 0 && rest[0] == '-' &&
                  !karmada_workload_parse_count(rest + 1, strlen(rest + 1), &idx) &&
                  idx < jobs[j])))
                rc = REFUSED(b->err,
                             "Workload %.63s: composite pod group template %.63s has the name "
                             "of replicated job %.63s or one of its Jobs: muster names each "
                             "group after its template or Job; rename one of them",
                             wn, c->name, w->components[j].name);
        }
    }
    uint32_t top = 0;
    for (uint32_t i = 0; !rc && i < cs->n; i++)
        top += cs->c[i].parent < 0;
    for (size_t i = 0; !rc && i < n; i++)
        top += owner[i] < 0 && jobs[i] > 0 && pods[i] > 0;
    enum karmada_group_source src = KARMADA_GROUP_SOURCE_WORKLOAD;
    int32_t root, plain[KARMADA_WORKLOAD_COMPONENTS_MAX];
    if (!rc)
        rc = add(b, -1, src, top, 0, NULL, w->placement == KARMADA_WORKLOAD_SINGLE_CLUSTER, 0,
                 &root, "Workload/%s", wn);
    /* A composite's children may be left out (a JobSet at fewer Jobs, for good: its
     * replicatedJobs never grow in place) only where its gang says it runs with fewer: a basic
     * composite's children are independent, but every one of them is meant to run; and a
     * JobSet whose copy at fewer Jobs would break (its coordinator, a success policy counting
     * only some replicated jobs) runs whole. */
    char why[256];
    int all = karmada__jobset_copy_breaks(b->tmpl, 1, why, sizeof why);
    for (uint32_t i = 0; !rc && i < cs->n; i++) {
        struct cpg *c = &cs->c[i];
        rc = add(b, c->parent < 0 ? root : cs->c[c->parent].at, src,
                 c->min > 0 && !all ? (uint32_t)c->min : c->kids, 0, NULL, 0, 0, &c->at, "%s",
                 c->name);
    }
    for (size_t i = 0; !rc && i < n; i++) {
        plain[i] = -1;
        if (owner[i] < 0 && jobs[i] > 0 && pods[i] > 0)
            rc = add(b, root, src, (uint32_t)jobs[i], 0, NULL, 0, 0, &plain[i], "%s",
                     w->components[i].name);
    }
    for (size_t i = 0; !rc && i < n; i++) {
        const struct karmada_workload_component *c = &w->components[i];
        int32_t parent = owner[i] >= 0 ? cs->c[owner[i]].at : plain[i], at;
        uint32_t lmin = mins[i] ? mins[i] : (uint32_t)pods[i];
        for (int32_t j = 0; !rc && pods[i] > 0 && j < jobs[i]; j++)
            rc = add(b, parent, src, lmin, (uint32_t)pods[i], &c->request, 1, 1, &at, "%s-%d",
                     c->name, j);
    }
    muster_free(cs);
    return rc;
}

/* A JobSet whose replicated jobs name the Workload's pod group templates: the JobSet's tree, its
 * leaves' minimums from the templates (KEP-5547: every Job gets its own PodGroup from the
 * template its annotation names, so each Job is one gang). */
static int from_wl(struct build *b, json_object *spec)
{
    const struct karmada_workload *w = b->w;
    const struct karmada_groups_wl *wl = b->wl;
    const char *tn = kube_json_path_str(b->tmpl, "metadata", "name", NULL);
    const char *ver = wl && wl->version ? wl->version : "scheduling.k8s.io";
    tn = tn ? tn : "";
    if (!wl)
        return REFUSED(b->err,
                       "the JobSet names pod group templates (annotation "
                       "" KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION ") and its Workload was not "
                       "looked up");
    if (!wl->served)
        return REFUSED(b->err,
                       "the JobSet names pod group templates (annotation "
                       "" KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION ") but the hub serves no "
                       "scheduling.k8s.io Workloads (feature gate GenericWorkload)");
    if (wl->found > 1)
        return INVALID(b->err,
                       "%u Workloads' spec.controllerRef name JobSet %.63s: one Workload must "
                       "structure it",
                       wl->found, tn);
    if (!wl->workload)
        return REFUSED(b->err,
                       "waiting for the Workload (%s) whose spec.controllerRef names JobSet "
                       "%.63s to be created on the hub: its replicated jobs name pod group "
                       "templates (annotation " KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION ")",
                       ver, tn);
    const char *wn = kube_json_path_str(wl->workload, "metadata", "name", NULL);
    wn = wn ? wn : "";
    json_object *wspec = kube_json_get(wl->workload, "spec");
    json_object *cpgts = kube_json_get(wspec, "compositePodGroupTemplates");
    json_object *pgts = kube_json_get(wspec, "podGroupTemplates");
    if (cpgts &&
        (!json_object_is_type(cpgts, json_type_array) || json_object_array_length(cpgts) > 0)) {
        /* a union: the API server takes exactly one of them */
        if (json_object_is_type(pgts, json_type_array) && json_object_array_length(pgts) > 0)
            return INVALID(b->err,
                           "Workload %.63s sets both spec.podGroupTemplates and "
                           "spec.compositePodGroupTemplates: exactly one must be set",
                           wn);
        return from_wl_composite(b, spec, wn, cpgts);
    }
    if (!json_object_is_type(pgts, json_type_array))
        return INVALID(b->err, "Workload %.63s: spec.podGroupTemplates must be a list", wn);
    json_object *rjs = kube_json_get(spec, "replicatedJobs");
    size_t n = json_object_is_type(rjs, json_type_array) ? json_object_array_length(rjs) : 0;
    uint32_t mins[KARMADA_WORKLOAD_COMPONENTS_MAX] = {0};
    if (n > KARMADA_WORKLOAD_COMPONENTS_MAX || n != w->ncomponents)
        return INVALID(b->err, "the JobSet has %zu replicated jobs but the workload read has %u", n,
                       w->ncomponents);
    for (size_t i = 0; i < n; i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        int bad;
        const char *tname = rj_template(rj, &bad);
        const char *rjn = kube_json_str(rj, "name");
        int32_t jobs, pods;
        if (bad)
            return INVALID(b->err,
                           "the JobSet's spec.replicatedJobs[%zu].template annotation "
                           "" KARMADA_WORKLOAD_GROUP_TEMPLATE_ANNOTATION ": must be a pod group "
                           "template's name",
                           i);
        int rc = jobset_counts(b, rj, i, &jobs, &pods);
        if (rc)
            return rc;
        if (tname && pods > 0 &&
            (rc = wl_template_min(b, pgts, wn, rjn ? rjn : "", tname, pods, &mins[i])))
            return rc;
    }
    b->jsrc = KARMADA_GROUP_SOURCE_WORKLOAD;
    b->leaf_min = mins;
    int rc = from_jobset(b, spec);
    b->leaf_min = NULL;
    return rc;
}

/* A LeaderWorkerSet: replicas groups of a leader and size-1 workers, each started all or nothing
 * by LWS. When the leader's pod asks for what a worker's does, a group is one leaf of size pods;
 * otherwise (a leaf is pods of one request) an indivisible inner group of a leader leaf and a
 * workers leaf. */
static int from_lws(struct build *b, json_object *spec)
{
    const struct karmada_workload *w = b->w;
    json_object *lwt = kube_json_get(spec, "leaderWorkerTemplate");
    int32_t replicas, size;
    int rc = count_at(b->err, spec, "replicas", 1, 0, "LeaderWorkerSet", "spec", &replicas);
    if (!rc)
        rc = count_at(b->err, lwt, "size", 1, 1, "LeaderWorkerSet", "spec.leaderWorkerTemplate",
                      &size);
    if (rc)
        return rc;
    if (w->ncomponents != 2 || strcmp(w->components[0].name, "leader") != 0 ||
        strcmp(w->components[1].name, "worker") != 0)
        return INVALID(b->err, "the LeaderWorkerSet is not the workload read; read it again");
    if (replicas == 0)
        return 0;
    const struct queue_resvec *leader = &w->components[0].request;
    const struct queue_resvec *worker = &w->components[1].request;
    int one = size == 1 || queue_resvec_cmp(leader, worker) == 0;
    rc = add_root(b, KARMADA_GROUP_SOURCE_LWS, (uint32_t)replicas);
    for (int32_t i = 0; !rc && i < replicas; i++) {
        int32_t at, grp;
        if (one) {
            rc = add(b, 0, KARMADA_GROUP_SOURCE_LWS, (uint32_t)size, (uint32_t)size, leader, 1, 1,
                     &at, "group-%d", i);
            continue;
        }
        rc = add(b, 0, KARMADA_GROUP_SOURCE_LWS, 2, 0, NULL, 1, 1, &grp, "group-%d", i);
        if (!rc)
            rc = add(b, grp, KARMADA_GROUP_SOURCE_LWS, 1, 1, leader, 1, 0, &at, "group-%d-leader",
                     i);
        if (!rc)
            rc = add(b, grp, KARMADA_GROUP_SOURCE_LWS, (uint32_t)(size - 1), (uint32_t)(size - 1),
                     worker, 1, 0, &at, "group-%d-workers", i);
    }
    return rc;
}

/* ---- topology annotations ---- */

static const struct {
    const char *key;
    enum karmada_topo_mode mode;
    int required;
    int each_group; /* on every innermost group, not on the root */
} topo_keys[] = {
    {KARMADA_GROUPS_TOPOLOGY_REQUIRED, KARMADA_TOPO_PACK, 1, 0},
    {KARMADA_GROUPS_TOPOLOGY_PREFERRED, KARMADA_TOPO_PACK, 0, 0},
    {KARMADA_GROUPS_SPREAD_REQUIRED, KARMADA_TOPO_SPREAD, 1, 0},
    {KARMADA_GROUPS_SPREAD_PREFERRED, KARMADA_TOPO_SPREAD, 0, 0},
    {KARMADA_GROUPS_GROUP_TOPOLOGY_REQUIRED, KARMADA_TOPO_PACK, 1, 1},
    {KARMADA_GROUPS_GROUP_TOPOLOGY_PREFERRED, KARMADA_TOPO_PACK, 0, 1},
};
#define NTOPO (sizeof(topo_keys) / sizeof(topo_keys[0]))

struct topo_ann {
    int present;
    const char *who;
    struct karmada_group_topo topo;
};

static int parse_topo(struct karmada_groups_error *err, json_object *tmpl, json_object *rb,
                      struct topo_ann ann[NTOPO])
{
    for (size_t k = 0; k < NTOPO; k++) {
        const char *s, *who;
        int rc = annotation(err, tmpl, rb, topo_keys[k].key, &s, &who);
        memset(&ann[k], 0, sizeof(ann[k]));
        if (rc)
            return rc;
        if (!s)
            continue;
        size_t len = strlen(s);
        int32_t n = 0;
        if (topo_keys[k].mode == KARMADA_TOPO_SPREAD) {
            const char *colon = strchr(s, ':');
            if (!colon || karmada_workload_parse_count(colon + 1, strlen(colon + 1), &n))
                return INVALID(err,
                               "%s annotation %s: \"%.63s\" is not <level>:<count> (for "
                               "example zone:2)",
                               who, topo_keys[k].key, s);
            if (n < 2)
                return INVALID(err,
                               "%s annotation %s: a spread over %d domain asks for nothing; the "
                               "count must be at least 2",
                               who, topo_keys[k].key, n);
            len = (size_t)(colon - s);
        }
        if (!karmada_group_level_valid(s, len))
            return INVALID(err,
                           "%s annotation %s: \"%.63s\" is not a topology level: cluster, region, "
                           "zone, or a Cluster label key of at most %d characters (for example "
                           "topology.kubernetes.io/zone)",
                           who, topo_keys[k].key, s, KARMADA_GROUP_LEVEL_MAX);
        ann[k].present = 1;
        ann[k].who = who;
        memcpy(ann[k].topo.level, s, len);
        ann[k].topo.level[len] = '\0';
        ann[k].topo.mode = topo_keys[k].mode;
        ann[k].topo.min_domains = (uint32_t)n;
        ann[k].topo.required = topo_keys[k].required;
    }
    /* the whole gang packed into one domain of a level cannot also spread over two of it, nor
     * over two of anything when that level is the cluster (a cluster has one value per level) */
    const struct topo_ann *pack = &ann[0];
    for (size_t k = 2; pack->present && k < 4; k++)
        if (ann[k].present && (strcmp(pack->topo.level, ann[k].topo.level) == 0 ||
                               strcmp(pack->topo.level, "cluster") == 0))
            return REFUSED(err,
                           "annotations %s: %s and %s: %s:%u contradict each other: the gang in "
                           "one %s cannot spread over %u %ss",
                           topo_keys[0].key, pack->topo.level, topo_keys[k].key, ann[k].topo.level,
                           ann[k].topo.min_domains, pack->topo.level, ann[k].topo.min_domains,
                           ann[k].topo.level);
    return 0;
}

static int apply_topo(struct build *b, const struct topo_ann ann[NTOPO])
{
    struct karmada_group_tree *t = b->t;
    uint32_t units = 0;
    for (uint32_t i = 0; i < t->n; i++)
        units += b->unit[i];
    for (size_t k = 0; k < NTOPO; k++) {
        if (!ann[k].present)
            continue;
        if (ann[k].topo.mode == KARMADA_TOPO_SPREAD && t->g[0].indivisible)
            return REFUSED(b->err,
                           "%s annotation %s: the %s goes whole to one cluster (placement "
                           "single-cluster), so its groups cannot spread over %u %ss",
                           ann[k].who, topo_keys[k].key, karmada_workload_kind_name(b->w->kind),
                           ann[k].topo.min_domains, ann[k].topo.level);
        if (ann[k].topo.mode == KARMADA_TOPO_SPREAD && ann[k].topo.min_domains > units)
            return REFUSED(b->err,
                           "%s annotation %s: a spread over %u %ss needs at least as many groups, "
                           "and the gang has %u",
                           ann[k].who, topo_keys[k].key, ann[k].topo.min_domains, ann[k].topo.level,
                           units);
        for (uint32_t i = 0; i < t->n; i++) {
            struct karmada_group *g = &t->g[i];
            if (topo_keys[k].each_group ? !b->unit[i] : i != 0)
                continue;
            g->topo[g->ntopo++] = ann[k].topo; /* at most 4 on the root, 2 on a group */
        }
    }
    return 0;
}

/* ---- the read ---- */

typedef int (*source_fn)(struct build *b, json_object *spec);

/* The kinds whose own structure makes the tree. */
static const struct {
    enum karmada_workload_kind kind;
    source_fn read;
} kinds[] = {
    {KARMADA_WORKLOAD_KIND_VCJOB, from_vcjob},
    {KARMADA_WORKLOAD_KIND_JOBSET, from_jobset},
    {KARMADA_WORKLOAD_KIND_LWS, from_lws},
};

/* The kinds group-size cuts: one divisible pod template (Karmada's reviser divides them). */
static int divisible(enum karmada_workload_kind kind)
{
    return kind == KARMADA_WORKLOAD_KIND_DEPLOYMENT || kind == KARMADA_WORKLOAD_KIND_JOB ||
           kind == KARMADA_WORKLOAD_KIND_STATEFULSET || kind == KARMADA_WORKLOAD_KIND_POD;
}

static int run(struct build *b, source_fn read, int32_t size)
{
    return read ? read(b, kube_json_get(b->tmpl, "spec")) : from_group_size(b, size);
}

int karmada_workload_groups_read(struct karmada_group_tree *t, struct karmada_groups_error *err,
                                 struct queue_resnames *names, const struct karmada_workload *w,
                                 json_object *rb, json_object *tmpl)
{
    return karmada_workload_groups_read_wl(t, err, names, w, rb, tmpl, NULL);
}

int karmada_workload_groups_read_wl(struct karmada_group_tree *t, struct karmada_groups_error *err,
                                    struct queue_resnames *names, const struct karmada_workload *w,
                                    json_object *rb, json_object *tmpl,
                                    const struct karmada_groups_wl *wl)
{
    karmada_group_tree_close(t);
    err->reason = KARMADA_WORKLOAD_OK;
    err->message[0] = '\0';
    struct topo_ann ann[NTOPO];
    const char *gs, *who;
    int rc = annotation(err, tmpl, rb, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, &gs, &who);
    if (!rc)
        rc = parse_topo(err, tmpl, rb, ann);
    if (rc)
        return rc;
    int32_t size = 0;
    if (gs && (karmada_workload_parse_count(gs, strlen(gs), &size) || size == 0))
        return INVALID(err,
                       "%s annotation " KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION ": \"%.32s\" is "
                       "not a positive whole number",
                       who, gs);
    source_fn read = NULL;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (kinds[i].kind == w->kind)
            read = kinds[i].read;
    if (read && karmada_workload_groups_wants_wl(w, tmpl))
        read = from_wl;
    const char *kn = karmada_workload_kind_name(w->kind);
    if (read && gs)
        return REFUSED(err,
                       "%s annotation " KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION ": a %s is already "
                       "made of groups (its own structure); group-size cuts a Deployment, "
                       "StatefulSet, Job or Pod",
                       who, kn);
    if (!read && gs && (!divisible(w->kind) || w->ncomponents != 1))
        return REFUSED(err,
                       "%s annotation " KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION ": a %s goes whole "
                       "to one cluster; group-size cuts a Deployment, StatefulSet, Job or Pod",
                       who, kn);
    if (!read && gs && w->components[0].replicas % size != 0)
        return INVALID(err,
                       "%s annotation " KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION ": %d replicas are "
                       "not a whole number of groups of %d",
                       who, w->components[0].replicas, size);
    if (!read && !gs) {
        for (size_t k = 0; k < NTOPO; k++)
            if (ann[k].present)
                return REFUSED(err,
                               "%s annotation %s: a %s has no groups to place; set "
                               "" KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION " to cut it into groups",
                               ann[k].who, topo_keys[k].key, kn);
        return 0;
    }
    struct build b = {.t = t, .err = err, .names = names, .w = w, .tmpl = tmpl, .wl = wl};
    rc = queue_resnames_intern(names, "pods", 4, &b.pods_id);
    if (rc)
        return fail(err, KARMADA_WORKLOAD_INVALID, rc,
                    rc == MUSTER_ENOMEM ? "out of memory"
                                        : "the resource name table is full: no room for pods");
    rc = run(&b, read, size); /* count and validate */
    if (rc || t->n == 0) {
        t->n = 0;
        return rc;
    }
    uint32_t n = t->n;
    t->g = muster_calloc(n, sizeof(*t->g));
    b.unit = muster_calloc(n, 1);
    t->n = 0;
    if (!t->g || !b.unit)
        rc = fail(err, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    if (!rc)
        rc = run(&b, read, size);
    if (!rc)
        rc = apply_topo(&b, ann);
    muster_free(b.unit);
    if (rc)
        karmada_group_tree_close(t);
    return rc;
}
