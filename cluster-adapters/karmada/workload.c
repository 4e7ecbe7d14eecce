/* Reading a ResourceBinding and its template into what the dispatcher needs (see workload.h and
 * docs/workload.md). Every value comes from users or Karmada, so each is type- and range-checked
 * here once; the rest of the dispatcher trusts struct karmada_workload. */
#include "cluster-adapters/karmada/workload.h"
#include "cluster-adapters/kube/json.h"

#include "cluster-adapters/karmada/workload_clusters.h"
#include "cluster-adapters/karmada/workload_dialects.h"
#include "cluster-adapters/karmada/workload_kinds.h"
#include "cluster-adapters/karmada/workload_trainjob.h"
#include "cluster-adapters/kube/resources.h"
#include "queue/errors.h"
#include "queue/quantity.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RB_API_VERSION "work.karmada.io/v1alpha2"

/* ---- small helpers (JSON through kube_json_*: a JSON null reads as absent, as Kubernetes
 * omits empty fields) ---- */

/* An int32 from a JSON integer, or a whole-number float (kube-openapi accepts 4.0 as 4). */
int karmada__workload_int32(json_object *v, int32_t *out)
{
    if (json_object_is_type(v, json_type_int)) {
        int64_t x = json_object_get_int64(v);
        if (x < INT32_MIN || x > INT32_MAX)
            return -1;
        *out = (int32_t)x;
        return 0;
    }
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (!(d >= INT32_MIN && d <= INT32_MAX) || d != (double)(int32_t)d)
            return -1;
        *out = (int32_t)d;
        return 0;
    }
    return -1;
}
#define to_int32 karmada__workload_int32

int karmada_workload_fail(struct karmada_workload *w, enum karmada_workload_reason reason, int code,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->message, sizeof(w->message), fmt, ap);
    va_end(ap);
    w->reason = reason;
    return code;
}

#define INVALID(w, ...)                                                                            \
    karmada_workload_fail((w), KARMADA_WORKLOAD_INVALID, MUSTER_EINVAL, __VA_ARGS__)

/* Printable ASCII without spaces: names that end up in messages and patches. */
static int plain(const char *s, size_t len, size_t max)
{
    if (len == 0 || len > max)
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return 0;
    return 1;
}

static int alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A Kubernetes label value, non-empty: the permanent id travels in Work labels. */
static int label_value_ok(const char *s, size_t len)
{
    if (len == 0 || len > KARMADA_WORKLOAD_LABEL_VALUE_MAX || !alnum(s[0]) || !alnum(s[len - 1]))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return 0;
    return 1;
}

/* Lowercase DNS subdomain: PriorityClass names. */
static int subdomain_ok(const char *s, size_t len)
{
    if (len == 0 || len > KARMADA_WORKLOAD_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int an = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!an && !((c == '-' || c == '.') && i > 0 && i < len - 1))
            return 0;
    }
    return 1;
}

static void copy_str(char *dst, size_t cap, const char *src, size_t len)
{
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* ---- kinds ---- */

static enum karmada_workload_kind kind_of(const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return KARMADA_WORKLOAD_KIND_NONE;
    if (strcmp(kind, "Job") == 0 && strcmp(api_version, "batch.volcano.sh/v1alpha1") == 0)
        return KARMADA_WORKLOAD_KIND_VCJOB;
    if (strcmp(kind, "Job") == 0 && strcmp(api_version, "batch/v1") == 0)
        return KARMADA_WORKLOAD_KIND_JOB;
    if (strcmp(kind, "Deployment") == 0 && strcmp(api_version, "apps/v1") == 0)
        return KARMADA_WORKLOAD_KIND_DEPLOYMENT;
    if (strcmp(kind, "Pod") == 0 && strcmp(api_version, "v1") == 0)
        return KARMADA_WORKLOAD_KIND_POD;
    if (strcmp(kind, "StatefulSet") == 0 && strcmp(api_version, "apps/v1") == 0)
        return KARMADA_WORKLOAD_KIND_STATEFULSET;
    return karmada__workload_kinds_of(api_version, kind);
}

enum karmada_workload_kind karmada_workload_kind_of(json_object *rb)
{
    json_object *res = kube_json_get(kube_json_get(rb, "spec"), "resource");
    return kind_of(kube_json_str(res, "apiVersion"), kube_json_str(res, "kind"));
}

const char *karmada_workload_kind_name(enum karmada_workload_kind kind)
{
    switch (kind) {
    case KARMADA_WORKLOAD_KIND_VCJOB:
        return "Volcano Job";
    case KARMADA_WORKLOAD_KIND_JOB:
        return "Job";
    case KARMADA_WORKLOAD_KIND_DEPLOYMENT:
        return "Deployment";
    case KARMADA_WORKLOAD_KIND_POD:
        return "Pod";
    case KARMADA_WORKLOAD_KIND_STATEFULSET:
        return "StatefulSet";
    case KARMADA_WORKLOAD_KIND_NONE:
        break;
    default:
        if (karmada__workload_kinds_name(kind))
            return karmada__workload_kinds_name(kind);
        break;
    }
    return "unhandled kind";
}

const char *karmada_workload_condition_reason(enum karmada_workload_reason reason)
{
    return reason == KARMADA_WORKLOAD_INVALID || reason == KARMADA_WORKLOAD_REFUSED
               ? "Unschedulable"
               : NULL;
}

/* ---- life cycle ---- */

static void drop_refs(struct karmada_workload *w)
{
    json_object_put(w->suspension);
    json_object_put(w->affinity);
    json_object_put(w->affinities);
    json_object_put(w->tolerations);
    json_object_put(w->runtime);
    w->suspension = w->affinity = w->affinities = w->tolerations = w->runtime = NULL;
}

int karmada_workload_init(struct karmada_workload *w)
{
    memset(w, 0, sizeof(*w));
    if (queue_resvec_reserve(&w->gang, QUEUE_REQUEST_RES_MAX))
        return MUSTER_ENOMEM;
    for (uint32_t i = 0; i < KARMADA_WORKLOAD_COMPONENTS_MAX; i++)
        if (queue_resvec_reserve(&w->components[i].request, QUEUE_REQUEST_RES_MAX))
            return MUSTER_ENOMEM;
    for (int i = 0; i < 3; i++)
        if (queue_resvec_reserve(&w->scratch[i], QUEUE_REQUEST_RES_MAX))
            return MUSTER_ENOMEM;
    return 0;
}

void karmada_workload_close(struct karmada_workload *w)
{
    drop_refs(w);
    queue_resvec_close(&w->gang);
    for (uint32_t i = 0; i < KARMADA_WORKLOAD_COMPONENTS_MAX; i++)
        queue_resvec_close(&w->components[i].request);
    for (int i = 0; i < 3; i++)
        queue_resvec_close(&w->scratch[i]);
}

/* Clears everything a read fills, keeping the vectors' memory. */
static void reset(struct karmada_workload *w)
{
    drop_refs(w);
    w->reason = KARMADA_WORKLOAD_OK;
    w->message[0] = '\0';
    w->kind = KARMADA_WORKLOAD_KIND_NONE;
    w->queue[0] = '\0';
    w->queue_explicit = 0;
    w->queue_source = "default";
    w->replicas = w->min_member = 0;
    w->elastic = 0;
    w->group_size = 1;
    w->min_member_source = "replicas";
    w->kind_min = 0;
    w->kind_min_source = NULL;
    w->placement = KARMADA_WORKLOAD_SINGLE_CLUSTER;
    w->dialect = KARMADA_WORKLOAD_DIALECT_NONE;
    w->group_name[0] = w->task_group[0] = '\0';
    w->group_total = w->task_group_min = w->gang_timeout_s = 0;
    w->task_groups = 0;
    w->gang_soft = 0;
    w->group_found = -1;
    w->group_min = 0;
    w->group_queue[0] = w->group_priority_class[0] = '\0';
    w->priority_from = KARMADA_WORKLOAD_PRIORITY_DEFAULT;
    w->priority = 0;
    w->priority_class[0] = '\0';
    for (uint32_t i = 0; i < KARMADA_WORKLOAD_COMPONENTS_MAX; i++) {
        w->components[i].name[0] = '\0';
        w->components[i].replicas = 0;
        queue_resvec_clear(&w->components[i].request);
    }
    w->ncomponents = 0;
    queue_resvec_clear(&w->gang);
    w->scheduler_name[0] = '\0';
    w->permanent_id[0] = '\0';
    w->suspend_scheduling = w->suspend_dispatching = -1;
}

/* ---- identity: the RB, its resource and the template must agree ---- */

static int read_identity(struct karmada_workload *w, json_object *rb, json_object *tmpl,
                         json_object **spec_out)
{
    if (!json_object_is_type(rb, json_type_object))
        return INVALID(w, "the binding is not a JSON object");
    json_object *v = kube_json_get(rb, "apiVersion");
    if (v && (!json_object_is_type(v, json_type_string) ||
              strcmp(json_object_get_string(v), RB_API_VERSION) != 0))
        return INVALID(w, "apiVersion: must be " RB_API_VERSION);
    const char *k = kube_json_str(rb, "kind");
    if (kube_json_get(rb, "kind") &&
        (!k || (strcmp(k, "ResourceBinding") != 0 && strcmp(k, "ClusterResourceBinding") != 0)))
        return INVALID(w, "kind: must be ResourceBinding or ClusterResourceBinding");
    json_object *spec = kube_json_get(rb, "spec");
    if (!json_object_is_type(spec, json_type_object))
        return INVALID(w, "spec: missing or not an object");
    json_object *res = kube_json_get(spec, "resource");
    const char *av = kube_json_str(res, "apiVersion"), *kind = kube_json_str(res, "kind");
    const char *name = kube_json_str(res, "name");
    if (!av || !kind || !name || !name[0])
        return INVALID(w, "spec.resource: apiVersion, kind and name must be strings");
    w->kind = kind_of(av, kind);
    if (w->kind == KARMADA_WORKLOAD_KIND_NONE)
        return karmada_workload_fail(
            w, KARMADA_WORKLOAD_UNSUPPORTED, MUSTER_EINVAL,
            "%.80s %.80s is not a kind muster queues (batch.volcano.sh/v1alpha1 Job, "
            "batch/v1 Job, apps/v1 Deployment, apps/v1 StatefulSet, v1 Pod, JobSet, "
            "LeaderWorkerSet, PyTorchJob, MPIJob, RayCluster, RayJob); Karmada schedules it "
            "as usual",
            av, kind);

    /* The template is matched to spec.resource so a caller's cache mix-up cannot make one
     * workload queue under another's annotations. */
    if (!json_object_is_type(tmpl, json_type_object))
        return INVALID(w, "the resource template %.63s is missing", name);
    const char *tav = kube_json_str(tmpl, "apiVersion"), *tkind = kube_json_str(tmpl, "kind");
    json_object *meta = kube_json_get(tmpl, "metadata");
    const char *tname = kube_json_str(meta, "name");
    if ((tav && strcmp(tav, av) != 0) || (tkind && strcmp(tkind, kind) != 0) || !tname ||
        strcmp(tname, name) != 0)
        return INVALID(w, "the resource template is not %.80s %.80s %.63s named in spec.resource",
                       av, kind, name);
    const char *ns = kube_json_str(res, "namespace"), *tns = kube_json_str(meta, "namespace");
    const char *uid = kube_json_str(res, "uid"), *tuid = kube_json_str(meta, "uid");
    if ((ns && tns && strcmp(ns, tns) != 0) || (uid && tuid && uid[0] && strcmp(uid, tuid) != 0))
        return INVALID(w, "the resource template's namespace or uid differs from spec.resource");
    *spec_out = spec;
    return 0;
}

/* ---- scheduler name, permanent id, suspension ---- */

static int read_links(struct karmada_workload *w, json_object *rb, json_object *spec)
{
    json_object *v = kube_json_get(spec, "schedulerName");
    const char *s = KARMADA_WORKLOAD_DEFAULT_SCHEDULER;
    if (v) {
        if (!json_object_is_type(v, json_type_string))
            return INVALID(w, "spec.schedulerName: must be a string");
        size_t len = (size_t)json_object_get_string_len(v);
        if (len && !plain(json_object_get_string(v), len, KARMADA_WORKLOAD_NAME_MAX))
            return INVALID(w,
                           "spec.schedulerName: not a scheduler name (at most %d printable "
                           "characters, no spaces)",
                           KARMADA_WORKLOAD_NAME_MAX);
        if (len)
            s = json_object_get_string(v);
    }
    copy_str(w->scheduler_name, sizeof(w->scheduler_name), s, strlen(s));

    json_object *labels = kube_json_get(kube_json_get(rb, "metadata"), "labels");
    v = kube_json_get(labels, KARMADA_WORKLOAD_PERMANENT_ID_LABEL);
    if (v) {
        size_t len = (size_t)json_object_get_string_len(v);
        if (!json_object_is_type(v, json_type_string) ||
            !label_value_ok(json_object_get_string(v), len))
            return INVALID(w, "label " KARMADA_WORKLOAD_PERMANENT_ID_LABEL ": not a label value");
        copy_str(w->permanent_id, sizeof(w->permanent_id), json_object_get_string(v), len);
    }

    json_object *susp = kube_json_get(spec, "suspension");
    if (!susp)
        return 0;
    if (!json_object_is_type(susp, json_type_object))
        return INVALID(w, "spec.suspension: must be an object");
    static const char *const flags[] = {"scheduling", "dispatching"};
    int *dst[] = {&w->suspend_scheduling, &w->suspend_dispatching};
    for (int i = 0; i < 2; i++) {
        v = kube_json_get(susp, flags[i]);
        if (v && !json_object_is_type(v, json_type_boolean))
            return INVALID(w, "spec.suspension.%s: must be true or false", flags[i]);
        *dst[i] = v ? json_object_get_boolean(v) != 0 : -1;
    }
    json_object *oc = kube_json_get(susp, "dispatchingOnClusters");
    if (oc) {
        json_object *names = kube_json_get(oc, "clusterNames");
        if (!json_object_is_type(oc, json_type_object) ||
            (names && !json_object_is_type(names, json_type_array)))
            return INVALID(w, "spec.suspension.dispatchingOnClusters: must be {clusterNames: []}");
    }
    w->suspension = json_object_get(susp);
    return 0;
}

/* ---- replicas and requests ---- */

static int parse_request(struct karmada_workload *w, struct queue_resnames *names, json_object *rr,
                         const char *what, struct queue_resvec *out)
{
    json_object *req = kube_json_get(rr, "resourceRequest");
    if (rr && !json_object_is_type(rr, json_type_object))
        return INVALID(w, "%s: must be an object", what);
    if (!req)
        return 0; /* a pod with no requests: it takes no quota */
    char path[96];
    snprintf(path, sizeof(path), "%s.resourceRequest", what);
    int rc = kube_resvec_parse(names, req, path, out, w->message, sizeof(w->message));
    if (rc)
        w->reason = KARMADA_WORKLOAD_INVALID;
    return rc;
}

/* A count of a partitionPolicy: absent (dflt, or a missing required field when dflt < 0), else
 * an int32 of at least lo. 0 or MUSTER_EINVAL with msg. */
static int partition_count(json_object *pp, const char *key, int32_t dflt, int32_t lo, size_t i,
                           int32_t *out, char *msg, size_t cap)
{
    json_object *v = kube_json_get(pp, key);
    *out = dflt;
    if (!v && dflt >= 0)
        return 0;
    if (!v || to_int32(v, out) || *out < lo) {
        snprintf(msg, cap,
                 "the Volcano Job's spec.tasks[%zu].partitionPolicy.%s: must be a 32-bit integer "
                 "of at least %d",
                 i, key, lo);
        return MUSTER_EINVAL;
    }
    return 0;
}

int karmada__vcjob_task_min(json_object *task, size_t i, int32_t replicas,
                            struct karmada__vcjob_partition *part, int32_t *min, char *msg,
                            size_t cap)
{
    json_object *m = kube_json_get(task, "minAvailable");
    json_object *pp = kube_json_get(task, "partitionPolicy");
    memset(part, 0, sizeof(*part));
    *min = replicas;
    if (pp && !json_object_is_type(pp, json_type_object)) {
        snprintf(msg, cap, "the Volcano Job's spec.tasks[%zu].partitionPolicy: must be an object",
                 i);
        return MUSTER_EINVAL;
    }
    if (pp && (partition_count(pp, "totalPartitions", -1, 1, i, &part->total, msg, cap) ||
               partition_count(pp, "partitionSize", -1, 1, i, &part->size, msg, cap) ||
               partition_count(pp, "minPartitions", 0, 0, i, &part->min, msg, cap)))
        return MUSTER_EINVAL;
    if (pp && (int64_t)part->total * part->size != replicas) {
        snprintf(msg, cap,
                 "the Volcano Job's spec.tasks[%zu]: its %d replicas are not totalPartitions %d x "
                 "partitionSize %d, as Volcano's admission requires",
                 i, replicas, part->total, part->size);
        return MUSTER_EINVAL;
    }
    if (pp && part->min > part->total) {
        snprintf(msg, cap,
                 "the Volcano Job's spec.tasks[%zu].partitionPolicy.minPartitions %d is more than "
                 "its totalPartitions %d",
                 i, part->min, part->total);
        return MUSTER_EINVAL;
    }
    if (m) {
        if (to_int32(m, min) || *min < 0 || *min > replicas) {
            snprintf(msg, cap,
                     "the Volcano Job's spec.tasks[%zu].minAvailable: must be a whole number from "
                     "0 to the task's %d replicas",
                     i, replicas);
            return MUSTER_EINVAL;
        }
        if (part->min > 0 && (int64_t)part->min * part->size != *min) {
            snprintf(msg, cap,
                     "the Volcano Job's spec.tasks[%zu].minAvailable %d is not minPartitions %d x "
                     "partitionSize %d, as Volcano's admission requires",
                     i, *min, part->min, part->size);
            return MUSTER_EINVAL;
        }
    } else if (part->min > 0) {
        *min = part->min * part->size; /* at most total x size = replicas, checked above */
    }
    return 0;
}

/* Task i's minAvailable and partitionPolicy as Volcano's admission takes them: a job it would
 * refuse in the member is refused here, with the reason. */
static int vcjob_task_check(struct karmada_workload *w, json_object *task, size_t i)
{
    struct karmada__vcjob_partition part;
    int32_t min;
    char msg[256];
    if (karmada__vcjob_task_min(task, i, w->components[i].replicas, &part, &min, msg, sizeof(msg)))
        return INVALID(w, "%s", msg);
    return 0;
}

/* A Volcano Job's components carry each task's minAvailable (Karmada's interpreter), but the
 * member runs every replica of every task: take the counts from the template's tasks so the
 * queue and the node-by-node fit see the whole job. */
static int vcjob_task_counts(struct karmada_workload *w, json_object *tmpl)
{
    json_object *tasks = kube_json_get(kube_json_get(tmpl, "spec"), "tasks");
    if (tasks && !json_object_is_type(tasks, json_type_array))
        return INVALID(w, "the Volcano Job's spec.tasks: must be a list");
    size_t n = tasks ? json_object_array_length(tasks) : 0;
    if (n != w->ncomponents)
        return INVALID(w,
                       "spec.components has %u entries but the Volcano Job has %zu tasks; "
                       "the binding is stale and will be read again when Karmada refreshes it",
                       w->ncomponents, n);
    for (size_t i = 0; i < n; i++) {
        struct karmada_workload_component *c = &w->components[i];
        json_object *t = json_object_array_get_idx(tasks, i);
        char fallback[32];
        snprintf(fallback, sizeof(fallback), "task-%zu", i);
        const char *tname = kube_json_str(t, "name");
        if (!tname || !tname[0])
            tname = fallback;
        if (strcmp(tname, c->name) != 0)
            return INVALID(w,
                           "spec.components[%zu] is %.63s but the Volcano Job's task %zu is "
                           "%.63s; the binding is stale",
                           i, c->name, i, tname);
        json_object *r = kube_json_get(t, "replicas");
        int32_t replicas;
        if (!r)
            continue; /* Karmada's count (minAvailable, default 1) is all we know */
        if (to_int32(r, &replicas) || replicas < 0)
            return INVALID(w,
                           "the Volcano Job's spec.tasks[%zu].replicas: must be a "
                           "non-negative 32-bit integer",
                           i);
        if (replicas < c->replicas)
            return INVALID(w,
                           "the Volcano Job's task %.63s has %d replicas, fewer than its "
                           "minAvailable %d",
                           c->name, replicas, c->replicas);
        c->replicas = replicas;
    }
    for (size_t i = 0; i < n; i++)
        if (vcjob_task_check(w, json_object_array_get_idx(tasks, i), i))
            return MUSTER_EINVAL;
    return 0;
}

/* A Volcano Job's RB made with Karmada's default feature gates (MultiplePodTemplatesScheduling
 * off, pkg/detector/detector.go) has no components, replicas or replicaRequirements: the job is
 * read from its tasks, one component per task named as Karmada's componentResource names it
 * (the task's name, else "task-<i>"), with the task's replicas; the requests come from each
 * task's pod template (read_template_requests, limits defaulting requests). */
static int vcjob_tasks_as_components(struct karmada_workload *w, json_object *tasks)
{
    size_t n = json_object_array_length(tasks);
    if (n > KARMADA_WORKLOAD_COMPONENTS_MAX)
        return karmada_workload_fail(
            w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
            "the Volcano Job's spec.tasks: %zu tasks, more than muster's limit of %d", n,
            KARMADA_WORKLOAD_COMPONENTS_MAX);
    for (size_t i = 0; i < n; i++) {
        struct karmada_workload_component *c = &w->components[i];
        json_object *t = json_object_array_get_idx(tasks, i);
        const char *tname = kube_json_str(t, "name");
        if (tname && tname[0] && !plain(tname, strlen(tname), KARMADA_WORKLOAD_NAME_MAX))
            return INVALID(w,
                           "the Volcano Job's spec.tasks[%zu].name: must be a name of at most "
                           "%d printable characters",
                           i, KARMADA_WORKLOAD_NAME_MAX);
        if (tname && tname[0])
            copy_str(c->name, sizeof(c->name), tname, strlen(tname));
        else
            snprintf(c->name, sizeof(c->name), "task-%zu", i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(w->components[j].name, c->name) == 0)
                return INVALID(w, "the Volcano Job's task name %.63s appears twice", c->name);
        json_object *r = kube_json_get(t, "replicas");
        c->replicas = 0; /* Go's zero value: Volcano runs no pod of a task without replicas */
        if (r && (to_int32(r, &c->replicas) || c->replicas < 0))
            return INVALID(w,
                           "the Volcano Job's spec.tasks[%zu].replicas: must be a non-negative "
                           "32-bit integer",
                           i);
        if (vcjob_task_check(w, t, i))
            return MUSTER_EINVAL;
        queue_resvec_clear(&c->request);
        w->ncomponents = (uint32_t)i + 1;
    }
    return 0;
}

static int read_components(struct karmada_workload *w, struct queue_resnames *names,
                           json_object *spec, json_object *tmpl,
                           const struct karmada_workload_hub *hub)
{
    json_object *comps = kube_json_get(spec, "components");
    if (comps && !json_object_is_type(comps, json_type_array))
        return INVALID(w, "spec.components: must be a list");
    size_t n = comps ? json_object_array_length(comps) : 0;
    json_object *tasks = kube_json_get(kube_json_get(tmpl, "spec"), "tasks");
    if (w->kind == KARMADA_WORKLOAD_KIND_VCJOB &&
        (!json_object_is_type(tasks, json_type_array) || json_object_array_length(tasks) == 0))
        return INVALID(w, "the Volcano Job has no spec.tasks: there is nothing to run");
    if (n > KARMADA_WORKLOAD_COMPONENTS_MAX)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                     "spec.components: %zu entries, more than muster's limit of %d",
                                     n, KARMADA_WORKLOAD_COMPONENTS_MAX);
    if (n == 0 && w->kind == KARMADA_WORKLOAD_KIND_VCJOB)
        return vcjob_tasks_as_components(w, tasks);
    if (w->kind == KARMADA_WORKLOAD_KIND_TRAINJOB) /* its pods are its runtime's */
        return karmada__workload_trainjob_read(w, names, spec, tmpl, hub);
    if (karmada__workload_kinds_handles(w->kind))
        return karmada__workload_kinds_read(w, names, spec, tmpl);
    if (n == 0) {
        /* One pod template: spec.replicas (omitted when 0) × spec.replicaRequirements. */
        struct karmada_workload_component *c = &w->components[0];
        json_object *r = kube_json_get(spec, "replicas");
        c->replicas = 0;
        if (r && to_int32(r, &c->replicas))
            return INVALID(w, "spec.replicas: must be a 32-bit integer");
        if (c->replicas < 0)
            return INVALID(w, "spec.replicas: %d is negative", c->replicas);
        w->ncomponents = 1;
        return parse_request(w, names, kube_json_get(spec, "replicaRequirements"),
                             "spec.replicaRequirements", &c->request);
    }
    for (size_t i = 0; i < n; i++) {
        struct karmada_workload_component *c = &w->components[i];
        json_object *e = json_object_array_get_idx(comps, i);
        json_object *nm = kube_json_get(e, "name");
        size_t len = (size_t)json_object_get_string_len(nm);
        if (!json_object_is_type(nm, json_type_string) ||
            !plain(json_object_get_string(nm), len, KARMADA_WORKLOAD_NAME_MAX))
            return INVALID(w,
                           "spec.components[%zu].name: must be a name of at most %d "
                           "printable characters",
                           i, KARMADA_WORKLOAD_NAME_MAX);
        copy_str(c->name, sizeof(c->name), json_object_get_string(nm), len);
        for (size_t j = 0; j < i; j++)
            if (strcmp(w->components[j].name, c->name) == 0)
                return INVALID(w, "spec.components[%zu].name: %.63s appears twice", i, c->name);
        json_object *r = kube_json_get(e, "replicas");
        if (!r || to_int32(r, &c->replicas))
            return INVALID(w, "spec.components[%zu].replicas: must be a 32-bit integer", i);
        if (c->replicas < 0)
            return INVALID(w, "spec.components[%zu].replicas: %d is negative", i, c->replicas);
        char what[64];
        snprintf(what, sizeof(what), "spec.components[%zu].replicaRequirements", i);
        w->ncomponents = (uint32_t)i + 1;
        int rc =
            parse_request(w, names, kube_json_get(e, "replicaRequirements"), what, &c->request);
        if (rc)
            return rc;
    }
    return w->kind == KARMADA_WORKLOAD_KIND_VCJOB ? vcjob_task_counts(w, tmpl) : 0;
}

/* ---- requests the pods will really make ----
 *
 * Karmada's interpreter sums containers' resources.requests only, but the member's API server
 * defaults a container's missing request to its limit; GPUs are usually written as limits alone
 * (nvidia.com/gpu: 2 under limits), so the RB would show none and the queue would hand the same
 * GPUs out twice. The pod's effective request is computed from the template as the member will
 * see it (per container: its requests, else its limits; the containers added, an init
 * container's taken when larger) and each resource counts at the larger of that and the RB's. */

/* One container's effective request added to (or, for an init container, maxed into) pod. */
static int container_request(struct karmada_workload *w, struct queue_resnames *names,
                             json_object *ctr, const char *path, int init, struct queue_resvec *pod)
{
    json_object *res = kube_json_get(ctr, "resources");
    if (!res)
        return 0;
    if (!json_object_is_type(res, json_type_object))
        return INVALID(w, "%s.resources: must be an object", path);
    struct queue_resvec *req = &w->scratch[1], *lim = &w->scratch[2];
    queue_resvec_clear(req);
    queue_resvec_clear(lim);
    char what[160];
    snprintf(what, sizeof(what), "%s.resources.requests", path);
    int rc = kube_json_get(res, "requests")
                 ? kube_resvec_parse(names, kube_json_get(res, "requests"), what, req, w->message,
                                     sizeof(w->message))
                 : 0;
    snprintf(what, sizeof(what), "%s.resources.limits", path);
    if (!rc && kube_json_get(res, "limits"))
        rc = kube_resvec_parse(names, kube_json_get(res, "limits"), what, lim, w->message,
                               sizeof(w->message));
    for (uint32_t i = 0; !rc && i < lim->len; i++) {
        uint32_t id = lim->items[i].id;
        json_object *reqs = kube_json_get(res, "requests");
        const char *rn = queue_resnames_name(names, id);
        /* a listed request, even 0, stands; only a missing one takes the limit */
        if (!(rn && json_object_is_type(reqs, json_type_object) && kube_json_get(reqs, rn)))
            rc = queue_resvec_set(req, id, lim->items[i].milli) ? MUSTER_ENOMEM : 0;
    }
    for (uint32_t i = 0; !rc && i < req->len; i++) {
        int64_t have = queue_resvec_get(pod, req->items[i].id), next;
        if (init)
            next = req->items[i].milli > have ? req->items[i].milli : have;
        else if (queue_milli_add(have, req->items[i].milli, &next))
            rc = karmada_workload_fail(
                w, KARMADA_WORKLOAD_INVALID, MUSTER_ERANGE,
                "%s: the pod's request overflows when the containers are added", path);
        if (!rc && queue_resvec_set(pod, req->items[i].id, next))
            rc = MUSTER_ENOMEM;
    }
    if (rc == MUSTER_ENOMEM)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    if (rc)
        w->reason = KARMADA_WORKLOAD_INVALID;
    return rc;
}

/* Raises c->request to the effective request of the pod spec at podspec (path names it). */
int karmada__workload_raise_to_pod(struct karmada_workload *w, struct queue_resnames *names,
                                   json_object *podspec, const char *path,
                                   struct karmada_workload_component *c)
{
    if (!podspec)
        return 0;
    struct queue_resvec *pod = &w->scratch[0];
    queue_resvec_clear(pod);
    int rc = 0;
    static const char *const lists[2] = {"containers", "initContainers"};
    for (int l = 0; l < 2 && !rc; l++) {
        json_object *ctrs = kube_json_get(podspec, lists[l]);
        if (ctrs && !json_object_is_type(ctrs, json_type_array)) {
            rc = INVALID(w, "%s.%s: must be a list", path, lists[l]);
            break;
        }
        size_t n = ctrs ? json_object_array_length(ctrs) : 0;
        for (size_t i = 0; i < n && !rc; i++) {
            char cpath[128];
            snprintf(cpath, sizeof(cpath), "%s.%s[%zu]", path, lists[l], i);
            rc = container_request(w, names, json_object_array_get_idx(ctrs, i), cpath, l, pod);
        }
    }
    for (uint32_t i = 0; !rc && i < pod->len; i++)
        if (pod->items[i].milli > queue_resvec_get(&c->request, pod->items[i].id) &&
            queue_resvec_set(&c->request, pod->items[i].id, pod->items[i].milli))
            rc = karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    return rc;
}
#define raise_to_pod karmada__workload_raise_to_pod

static int read_template_requests(struct karmada_workload *w, struct queue_resnames *names,
                                  json_object *tmpl)
{
    json_object *spec = kube_json_get(tmpl, "spec");
    switch (w->kind) {
    case KARMADA_WORKLOAD_KIND_POD:
        return raise_to_pod(w, names, spec, "the Pod's spec", &w->components[0]);
    case KARMADA_WORKLOAD_KIND_DEPLOYMENT:
    case KARMADA_WORKLOAD_KIND_STATEFULSET:
    case KARMADA_WORKLOAD_KIND_JOB:
        return raise_to_pod(w, names, kube_json_get(kube_json_get(spec, "template"), "spec"),
                            "the template's spec.template.spec", &w->components[0]);
    case KARMADA_WORKLOAD_KIND_VCJOB: {
        /* vcjob_task_counts has matched components to tasks one to one */
        json_object *tasks = kube_json_get(spec, "tasks");
        for (uint32_t i = 0; i < w->ncomponents; i++) {
            char path[64];
            snprintf(path, sizeof(path), "the Volcano Job's spec.tasks[%u].template.spec", i);
            int rc = raise_to_pod(
                w, names,
                kube_json_get(kube_json_get(json_object_array_get_idx(tasks, i), "template"),
                              "spec"),
                path, &w->components[i]);
            if (rc)
                return rc;
        }
        return 0;
    }
    default:
        return 0;
    }
}

/* gang = Σ replicas × request and replicas = Σ replicas, every step overflow-checked, without
 * growing the vector past what _init reserved. */
static int sum_gang(struct karmada_workload *w, const struct queue_resnames *names)
{
    int64_t total = 0;
    for (uint32_t i = 0; i < w->ncomponents; i++) {
        const struct karmada_workload_component *c = &w->components[i];
        total += c->replicas;
        if (total > INT32_MAX)
            return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ERANGE,
                                         "the workload has more than %d replicas in all",
                                         INT32_MAX);
        for (uint32_t j = 0; j < c->request.len; j++) {
            const struct queue_res *r = &c->request.items[j];
            int64_t part, sum;
            if (queue_milli_mul(r->milli, c->replicas, &part) ||
                queue_milli_add(queue_resvec_get(&w->gang, r->id), part, &sum)) {
                const char *rn = queue_resnames_name(names, r->id);
                return karmada_workload_fail(
                    w, KARMADA_WORKLOAD_INVALID, MUSTER_ERANGE,
                    "the gang's request for %.64s overflows: %d replicas%s%.63s cannot "
                    "be added up exactly",
                    rn ? rn : "a resource", c->replicas, c->name[0] ? " of " : "", c->name);
            }
            if (sum != 0 && queue_resvec_get(&w->gang, r->id) == 0 &&
                w->gang.len >= QUEUE_REQUEST_RES_MAX)
                return karmada_workload_fail(
                    w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                    "the workload requests more than %d distinct resources", QUEUE_REQUEST_RES_MAX);
            if (queue_resvec_set(&w->gang, r->id, sum))
                return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM,
                                             "out of memory");
        }
    }
    w->replicas = (int32_t)total;
    return 0;
}

/* ---- annotations and labels: the template's first, then the binding's ---- */

/* The string value of key in obj's metadata.<where> (labels or annotations): 0 with *out NULL
 * when absent, MUSTER_EINVAL with a message when not a string. */
static int meta_str(struct karmada_workload *w, json_object *obj, const char *who,
                    const char *where, const char *key, const char **out)
{
    *out = NULL;
    json_object *v = kube_json_get(kube_json_get(kube_json_get(obj, "metadata"), where), key);
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_string))
        return INVALID(w, "%s %s %s: must be a string", who, where, key);
    *out = json_object_get_string(v);
    return 0;
}

/* The annotation key of the template, else of the binding; *who says whose it was. */
static int annotation(struct karmada_workload *w, json_object *tmpl, json_object *rb,
                      const char *key, const char **out, const char **who)
{
    *who = "template";
    int rc = meta_str(w, tmpl, "template", "annotations", key, out);
    if (rc || *out)
        return rc;
    *who = "binding";
    return meta_str(w, rb, "binding", "annotations", key, out);
}

int karmada_workload_parse_count(const char *s, size_t n, int32_t *out)
{
    if (n == 0 || n > 10)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

static int read_min_member(struct karmada_workload *w, json_object *rb, json_object *tmpl)
{
    const char *s, *who;
    int rc = annotation(w, tmpl, rb, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION, &s, &who);
    if (rc)
        return rc;
    if (s) {
        int32_t v;
        if (karmada_workload_parse_count(s, strlen(s), &v) || v == 0)
            return INVALID(w,
                           "%s annotation " KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION ": \"%.32s\" "
                           "is not a positive whole number",
                           who, s);
        if (v > w->replicas)
            return INVALID(w,
                           "%s annotation " KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION ": %d is "
                           "more than the workload's %d replicas",
                           who, v, w->replicas);
        w->min_member = v;
        w->min_member_source = who[0] == 't'
                                   ? "template annotation " KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION
                                   : "binding annotation " KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION;
        return 0;
    }
    if (w->kind_min > 0 && w->kind_min <= w->replicas) {
        w->min_member = w->kind_min;
        w->min_member_source = w->kind_min_source;
        return 0;
    }
    json_object *ma = kube_json_get(kube_json_get(tmpl, "spec"), "minAvailable");
    if (w->kind == KARMADA_WORKLOAD_KIND_VCJOB && ma) {
        int32_t v;
        if (to_int32(ma, &v) || v < 0)
            return INVALID(w, "the Volcano Job's spec.minAvailable: must be a non-negative "
                              "32-bit integer");
        if (v > w->replicas)
            return INVALID(w,
                           "the Volcano Job's spec.minAvailable %d is more than its %d "
                           "replicas",
                           v, w->replicas);
        if (v > 0) { /* 0 is Volcano's "unset": the whole job */
            w->min_member = v;
            w->min_member_source = "spec.minAvailable";
            return 0;
        }
    }
    if (w->kind == KARMADA_WORKLOAD_KIND_VCJOB) {
        /* Volcano's admission defaults an unset job minAvailable to the sum of the tasks'
         * minAvailable, each defaulting to its task's replicas. */
        json_object *tasks = kube_json_get(kube_json_get(tmpl, "spec"), "tasks");
        int64_t sum = 0;
        for (size_t i = 0; i < json_object_array_length(tasks) && i < w->ncomponents; i++) {
            struct karmada__vcjob_partition part;
            int32_t m;
            char msg[8];
            if (karmada__vcjob_task_min(json_object_array_get_idx(tasks, i), i,
                                        w->components[i].replicas, &part, &m, msg, sizeof(msg)))
                m = w->components[i].replicas; /* refused where the tree is read */
            sum += m;
        }
        if (sum > 0 && sum < w->replicas) {
            w->min_member = (int32_t)sum;
            w->min_member_source = "the tasks' minAvailable";
            return 0;
        }
    }
    if (w->task_group_min > 0) {
        /* YuniKorn gangs the placeholders of every task group before any real pod runs */
        if (w->task_group_min > w->replicas)
            return INVALID(w,
                           "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS ": the task groups' "
                           "minMember add up to %d, more than the workload's %d replicas (a gang "
                           "of several workloads is not supported yet)",
                           w->task_group_min, w->replicas);
        w->min_member = w->task_group_min;
        w->min_member_source = "pod annotation " KARMADA_WORKLOAD_YK_TASK_GROUPS;
        return 0;
    }
    if (w->group_total > 0 && w->group_total <= w->replicas &&
        w->dialect == KARMADA_WORKLOAD_DIALECT_KUEUE) {
        /* a group within this one RB (a Pod of total 1, a StatefulSet's pods); a larger group
         * spans several RBs: recorded for composite gangs (issue 20), the gang stays this RB */
        w->min_member = w->group_total;
        w->min_member_source = "pod annotation " KARMADA_WORKLOAD_KUEUE_GROUP_TOTAL;
        return 0;
    }
    if (w->group_found == 1 && w->group_min > 0) {
        static const char *const src[] = {
            [KARMADA_WORKLOAD_DIALECT_COSCHEDULING] =
                "the hub's coscheduling PodGroup spec.minMember",
            [KARMADA_WORKLOAD_DIALECT_VOLCANO] = "the hub's Volcano PodGroup spec.minMember",
            [KARMADA_WORKLOAD_DIALECT_WORKLOAD_API] =
                "the hub's Workload API PodGroup spec.schedulingPolicy",
        };
        if (w->group_min > w->replicas && w->kind == KARMADA_WORKLOAD_KIND_POD) {
            /* one Pod of a group of separate Pods (a coscheduling group, Flyte's pods): a gang of
             * several RBs, which the dispatcher joins (docs/dispatcher.md, "One gang, several
             * RBs"); this RB's own part is its Pod */
            w->min_member = w->replicas;
            w->min_member_source = "replicas (one Pod of the hub PodGroup's group)";
            return 0;
        }
        if (w->group_min > w->replicas)
            return INVALID(w,
                           "%s %d (PodGroup %.63s) is more than the workload's %d replicas, so "
                           "its gang could never start",
                           src[w->dialect], w->group_min, w->group_name, w->replicas);
        w->min_member = w->group_min;
        w->min_member_source = src[w->dialect];
        return 0;
    }
    w->min_member = w->replicas;
    w->min_member_source = "replicas";
    return 0;
}

/* A StatefulSet's pods start one after another under podManagementPolicy OrderedReady (the
 * default): pod i+1 is created only once pod i is Ready, and a member-side gang of more than one
 * holds pod 0 until the others exist, so the gang would never start. */
static int read_statefulset(struct karmada_workload *w, json_object *tmpl)
{
    if (w->kind != KARMADA_WORKLOAD_KIND_STATEFULSET)
        return 0;
    json_object *v = kube_json_get(kube_json_get(tmpl, "spec"), "podManagementPolicy");
    const char *p = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    if (v && (!p || (strcmp(p, "OrderedReady") != 0 && strcmp(p, "Parallel") != 0)))
        return INVALID(w, "the StatefulSet's spec.podManagementPolicy: must be OrderedReady or "
                          "Parallel");
    if (w->min_member > 1 && !(p && strcmp(p, "Parallel") == 0))
        return karmada_workload_fail(
            w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
            "a StatefulSet with podManagementPolicy OrderedReady (the default) creates each pod "
            "only once the previous one is Ready, so a gang of %d would never start: set "
            "spec.podManagementPolicy: Parallel, or the " KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION
            " annotation to 1",
            w->min_member);
    return 0;
}

/* After read_min_member: elastic only where there is room to grow (min_member < replicas); a
 * "true" on a gang whose minimum is the whole reads as a plain gang, not as an error, so that
 * scaling down to the minimum does not make a running workload invalid. */
/* After read_placement: a group size only where the workload may be divided at all. */
static int read_group_size(struct karmada_workload *w, json_object *rb, json_object *tmpl)
{
    const char *s, *who;
    int rc = annotation(w, tmpl, rb, KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION, &s, &who);
    if (rc || !s)
        return rc;
    int32_t v;
    if (karmada_workload_parse_count(s, strlen(s), &v) || v == 0)
        return INVALID(w,
                       "%s annotation " KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION ": \"%.32s\" is "
                       "not a positive whole number",
                       who, s);
    if (w->ncomponents != 1)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
                                     "%s annotation " KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION
                                     ": a %s has %u pod templates; groups cut one "
                                     "divisible pod template",
                                     who, karmada_workload_kind_name(w->kind), w->ncomponents);
    if (w->replicas % v != 0)
        return INVALID(w,
                       "%s annotation " KARMADA_WORKLOAD_GROUP_SIZE_ANNOTATION ": %d replicas are "
                       "not a whole number of groups of %d",
                       who, w->replicas, v);
    w->group_size = v;
    return 0;
}

static int read_elastic(struct karmada_workload *w, json_object *rb, json_object *tmpl)
{
    const char *s, *who;
    int rc = annotation(w, tmpl, rb, KARMADA_WORKLOAD_ELASTIC_ANNOTATION, &s, &who);
    if (rc || !s)
        return rc;
    if (strcmp(s, "true") != 0 && strcmp(s, "false") != 0)
        return INVALID(w,
                       "%s annotation " KARMADA_WORKLOAD_ELASTIC_ANNOTATION ": \"%.32s\" is "
                       "neither \"true\" nor \"false\"",
                       who, s);
    w->elastic = s[0] == 't' && w->min_member < w->replicas;
    return 0;
}

static int read_placement(struct karmada_workload *w, json_object *rb, json_object *tmpl,
                          json_object *spec)
{
    const char *s, *who;
    int rc = annotation(w, tmpl, rb, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, &s, &who);
    if (rc)
        return rc;
    json_object *rs = kube_json_get(kube_json_get(spec, "placement"), "replicaScheduling");
    json_object *tv = kube_json_get(rs, "replicaSchedulingType");
    if (rs && !json_object_is_type(rs, json_type_object))
        return INVALID(w, "spec.placement.replicaScheduling: must be an object");
    const char *type = kube_json_str(rs, "replicaSchedulingType");
    if (tv && (!type || (strcmp(type, "Divided") != 0 && strcmp(type, "Duplicated") != 0)))
        return INVALID(w, "spec.placement.replicaScheduling.replicaSchedulingType: must be "
                          "Divided or Duplicated");
    if (!s || strcmp(s, "single-cluster") == 0) {
        w->placement = KARMADA_WORKLOAD_SINGLE_CLUSTER;
        return 0;
    }
    if (strcmp(s, "spread") != 0)
        return INVALID(w,
                       "%s annotation " KARMADA_WORKLOAD_PLACEMENT_ANNOTATION ": \"%.32s\" is "
                       "neither single-cluster nor spread",
                       who, s);
    if (w->kind == KARMADA_WORKLOAD_KIND_VCJOB)
        return karmada_workload_fail(
            w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
            "placement spread is refused for a Volcano Job: Volcano wires its tasks together "
            "(master address, world size, ranks) from each cluster's copy alone, so muster "
            "places the whole job in one cluster; remove "
            "the " KARMADA_WORKLOAD_PLACEMENT_ANNOTATION " annotation or set it to single-cluster");
    if (w->kind == KARMADA_WORKLOAD_KIND_JOBSET || w->kind == KARMADA_WORKLOAD_KIND_LWS) {
        /* Opted in (issue 20): split by groups, whole Jobs or LWS groups per cluster (a JobSet
         * of several replicated jobs too: the ledger keeps each share's Jobs per replicated
         * job, docs/store.md). Karmada
         * divides nothing of these kinds whatever replicaSchedulingType says (no replica
         * reviser); muster's OverridePolicy sets each cluster's count (docs/gangobj.md, "Split
         * by groups"), so Divided is not asked for. */
        char why[256];
        if (w->kind == KARMADA_WORKLOAD_KIND_JOBSET &&
            karmada__jobset_copy_breaks(tmpl, 0, why, sizeof why))
            return karmada_workload_fail(
                w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
                "placement spread is refused for this JobSet: %s; remove the "
                "" KARMADA_WORKLOAD_PLACEMENT_ANNOTATION " annotation or set it to single-cluster",
                why);
        w->placement = KARMADA_WORKLOAD_SPREAD;
        return 0;
    }
    if (karmada__workload_kinds_handles(w->kind))
        return karmada_workload_fail(
            w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
            "placement spread is refused for a %s: Karmada has no replica reviser for it, so "
            "the whole object goes to one cluster; remove "
            "the " KARMADA_WORKLOAD_PLACEMENT_ANNOTATION " annotation or set it to single-cluster",
            karmada_workload_kind_name(w->kind));
    if (!type || strcmp(type, "Divided") != 0)
        return karmada_workload_fail(
            w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
            "placement spread needs spec.placement.replicaScheduling."
            "replicaSchedulingType Divided (it is %s): set it in the PropagationPolicy "
            "or use single-cluster",
            type ? type : "unset");
    w->placement = KARMADA_WORKLOAD_SPREAD;
    return 0;
}

/* The queue keys of DESIGN.md in order of precedence, and the static source strings. */
#define QKEYS(X) KARMADA_WORKLOAD_QUEUE_KEYS(X)
#define QKEY(k) k,
#define QSRC(who, where) QKEYS(QSRC_##who##_##where)
#define QSRC_t_l(k) "template label " k,
#define QSRC_t_a(k) "template annotation " k,
#define QSRC_b_l(k) "binding label " k,
#define QSRC_b_a(k) "binding annotation " k,
static const char *const queue_keys[] = {QKEYS(QKEY)};
static const char *const queue_sources[2][2][4] = {
    {{QSRC(t, l)}, {QSRC(t, a)}},
    {{QSRC(b, l)}, {QSRC(b, a)}},
};
#define NQKEYS (sizeof(queue_keys) / sizeof(queue_keys[0]))

static int set_queue(struct karmada_workload *w, const char *name, const char *source)
{
    size_t len = strlen(name);
    if (!queue_name_valid(name, len))
        return INVALID(w,
                       "%s: \"%.63s\" is not a valid queue name (lowercase letters, digits, "
                       "'-' and '.', at most 63)",
                       source, name);
    copy_str(w->queue, sizeof(w->queue), name, len);
    w->queue_explicit = 1;
    w->queue_source = source;
    return 0;
}

static int read_queue(struct karmada_workload *w, json_object *rb, json_object *tmpl)
{
    if (w->kind == KARMADA_WORKLOAD_KIND_VCJOB) {
        json_object *q = kube_json_get(kube_json_get(tmpl, "spec"), "queue");
        if (q && !json_object_is_type(q, json_type_string))
            return INVALID(w, "the Volcano Job's spec.queue: must be a string");
        if (q && json_object_get_string_len(q) > 0) /* "" is Volcano's unset */
            return set_queue(w, json_object_get_string(q), "spec.queue");
    }
    json_object *objs[2] = {tmpl, rb};
    static const char *const whos[2] = {"template", "binding"};
    static const char *const wheres[2] = {"labels", "annotations"};
    for (int o = 0; o < 2; o++)
        for (size_t k = 0; k < NQKEYS; k++)
            for (int m = 0; m < 2; m++) {
                const char *s;
                int rc = meta_str(w, objs[o], whos[o], wheres[m], queue_keys[k], &s);
                if (rc)
                    return rc;
                if (s)
                    return set_queue(w, s, queue_sources[o][m][k]);
            }
    if (w->group_queue[0]) /* after every key on the objects: the PodGroup is another object */
        return set_queue(w, w->group_queue, "the hub's Volcano PodGroup spec.queue");
    copy_str(w->queue, sizeof(w->queue), QUEUE_DEFAULT, strlen(QUEUE_DEFAULT));
    return 0;
}

/* The hub PodGroup's priorityClassName, when nothing on the RB or the template names one. */
static int group_priority(struct karmada_workload *w)
{
    if (w->group_priority_class[0]) {
        memcpy(w->priority_class, w->group_priority_class, sizeof(w->priority_class));
        w->priority_from = KARMADA_WORKLOAD_PRIORITY_CLASS;
    }
    return 0;
}

static int read_priority(struct karmada_workload *w, json_object *tmpl, json_object *spec)
{
    json_object *sp = kube_json_get(spec, "schedulePriority");
    if (sp) {
        json_object *p = kube_json_get(sp, "priority");
        if (!json_object_is_type(sp, json_type_object) || (p && to_int32(p, &w->priority)))
            return INVALID(w, "spec.schedulePriority.priority: must be a 32-bit integer");
        w->priority_from = KARMADA_WORKLOAD_PRIORITY_RB;
        return 0;
    }
    /* The pod spec's priorityClassName (a Volcano Job names it at the job level), then the copy
     * Karmada's interpreter puts in replicaRequirements. */
    json_object *ts = kube_json_get(tmpl, "spec");
    json_object *pod =
        w->kind == KARMADA_WORKLOAD_KIND_VCJOB || w->kind == KARMADA_WORKLOAD_KIND_POD
            ? ts
            : kube_json_get(kube_json_get(ts, "template"), "spec");
    const char *where =
        w->kind == KARMADA_WORKLOAD_KIND_VCJOB || w->kind == KARMADA_WORKLOAD_KIND_POD
            ? "the template's spec.priorityClassName"
            : "the template's spec.template.spec.priorityClassName";
    if (karmada__workload_kinds_handles(w->kind))
        pod = karmada__workload_kinds_priority_pod(w, tmpl, &where);
    json_object *v = kube_json_get(pod, "priorityClassName");
    if (!v) {
        v = kube_json_get(kube_json_get(spec, "replicaRequirements"), "priorityClassName");
        where = "spec.replicaRequirements.priorityClassName";
    }
    if (!v)
        return group_priority(w);
    size_t len = (size_t)json_object_get_string_len(v);
    if (!json_object_is_type(v, json_type_string))
        return INVALID(w, "%s: must be a string", where);
    if (len == 0)
        return group_priority(w);
    if (!subdomain_ok(json_object_get_string(v), len))
        return INVALID(w, "%s: \"%.63s\" is not a PriorityClass name", where,
                       json_object_get_string(v));
    copy_str(w->priority_class, sizeof(w->priority_class), json_object_get_string(v), len);
    w->priority_from = KARMADA_WORKLOAD_PRIORITY_CLASS;
    return 0;
}

/* ---- the read ---- */

int karmada_workload_read(struct karmada_workload *w, struct queue_resnames *names, json_object *rb,
                          json_object *tmpl)
{
    return karmada_workload_read_hub(w, names, rb, tmpl, NULL);
}

int karmada_workload_read_hub(struct karmada_workload *w, struct queue_resnames *names,
                              json_object *rb, json_object *tmpl,
                              const struct karmada_workload_hub *hub)
{
    reset(w);
    json_object *spec = NULL;
    int rc = read_identity(w, rb, tmpl, &spec);
    if (!rc)
        rc = read_links(w, rb, spec);
    if (!rc)
        rc = read_components(w, names, spec, tmpl, hub);
    if (!rc)
        rc = read_template_requests(w, names, tmpl);
    if (!rc)
        rc = sum_gang(w, names);
    if (!rc)
        rc = karmada__workload_read_dialects(w, tmpl);
    if (!rc && hub)
        rc = karmada__workload_read_hub_group(w, hub, rb, tmpl);
    if (!rc)
        rc = read_min_member(w, rb, tmpl);
    if (!rc)
        rc = read_statefulset(w, tmpl);
    if (!rc)
        rc = read_elastic(w, rb, tmpl);
    if (!rc)
        rc = read_placement(w, rb, tmpl, spec);
    if (!rc)
        rc = read_group_size(w, rb, tmpl);
    if (!rc)
        rc = read_queue(w, rb, tmpl);
    if (!rc)
        rc = read_priority(w, tmpl, spec);
    if (!rc)
        rc = karmada__workload_check_clusters(w, spec);
    if (rc) {
        enum karmada_workload_kind kind = w->kind;
        enum karmada_workload_reason reason = w->reason;
        char message[KARMADA_WORKLOAD_MSG_MAX];
        memcpy(message, w->message, sizeof(message));
        reset(w); /* nothing half-read survives a failure */
        w->kind = kind;
        w->reason = reason == KARMADA_WORKLOAD_OK ? KARMADA_WORKLOAD_INVALID : reason;
        memcpy(w->message, message, sizeof(message));
    }
    return rc;
}

int karmada_workload_assigns(const struct karmada_workload *w, const char *scheduler)
{
    return scheduler && strcmp(w->scheduler_name, scheduler) == 0;
}
