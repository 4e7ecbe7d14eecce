/* Reading a ResourceBinding and its template into what the dispatcher needs (see workload.h and
 * docs/workload.md). Every value comes from users or Karmada, so each is type- and range-checked
 * here once; the rest of the dispatcher trusts struct karmada_workload. */
#include "cluster-adapters/karmada/workload.h"

#include "cluster-adapters/kube/resources.h"
#include "cluster-adapters/karmada/webhook.h"
#include "queue/errors.h"
#include "queue/quantity.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RB_API_VERSION "work.karmada.io/v1alpha2"

/* ---- small JSON helpers: JSON null reads as absent, as Kubernetes omits empty fields ---- */

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

static const char *get_str(json_object *o, const char *key)
{
    json_object *v = get(o, key);
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* An int32 from a JSON integer, or a whole-number float (kube-openapi accepts 4.0 as 4). */
static int to_int32(json_object *v, int32_t *out)
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

__attribute__((format(printf, 4, 5))) static int
fail(struct karmada_workload *w, enum karmada_workload_reason reason, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->message, sizeof(w->message), fmt, ap);
    va_end(ap);
    w->reason = reason;
    return code;
}

#define INVALID(w, ...) fail((w), KARMADA_WORKLOAD_INVALID, MUSTER_EINVAL, __VA_ARGS__)

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
    return KARMADA_WORKLOAD_KIND_NONE;
}

enum karmada_workload_kind karmada_workload_kind_of(json_object *rb)
{
    json_object *res = get(get(rb, "spec"), "resource");
    return kind_of(get_str(res, "apiVersion"), get_str(res, "kind"));
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
    case KARMADA_WORKLOAD_KIND_NONE:
        break;
    }
    return "unhandled kind";
}

const char *karmada_workload_condition_reason(enum karmada_workload_reason reason)
{
    return reason == KARMADA_WORKLOAD_INVALID || reason == KARMADA_WORKLOAD_REFUSED ? "Unschedulable"
                                                                              : NULL;
}

/* ---- life cycle ---- */

static void drop_refs(struct karmada_workload *w)
{
    json_object_put(w->suspension);
    json_object_put(w->affinity);
    json_object_put(w->affinities);
    json_object_put(w->tolerations);
    w->suspension = w->affinity = w->affinities = w->tolerations = NULL;
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
    w->min_member_source = "replicas";
    w->placement = KARMADA_WORKLOAD_SINGLE_CLUSTER;
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
    json_object *v = get(rb, "apiVersion");
    if (v && (!json_object_is_type(v, json_type_string) ||
              strcmp(json_object_get_string(v), RB_API_VERSION) != 0))
        return INVALID(w, "apiVersion: must be " RB_API_VERSION);
    const char *k = get_str(rb, "kind");
    if (get(rb, "kind") &&
        (!k || (strcmp(k, "ResourceBinding") != 0 && strcmp(k, "ClusterResourceBinding") != 0)))
        return INVALID(w, "kind: must be ResourceBinding or ClusterResourceBinding");
    json_object *spec = get(rb, "spec");
    if (!json_object_is_type(spec, json_type_object))
        return INVALID(w, "spec: missing or not an object");
    json_object *res = get(spec, "resource");
    const char *av = get_str(res, "apiVersion"), *kind = get_str(res, "kind");
    const char *name = get_str(res, "name");
    if (!av || !kind || !name || !name[0])
        return INVALID(w, "spec.resource: apiVersion, kind and name must be strings");
    w->kind = kind_of(av, kind);
    if (w->kind == KARMADA_WORKLOAD_KIND_NONE)
        return fail(w, KARMADA_WORKLOAD_UNSUPPORTED, MUSTER_EINVAL,
                    "%.80s %.80s is not a kind muster queues (batch.volcano.sh/v1alpha1 Job, "
                    "batch/v1 Job, apps/v1 Deployment, v1 Pod); Karmada schedules it as usual",
                    av, kind);

    /* The template is matched to spec.resource so a caller's cache mix-up cannot make one
     * workload queue under another's annotations. */
    if (!json_object_is_type(tmpl, json_type_object))
        return INVALID(w, "the resource template %.63s is missing", name);
    const char *tav = get_str(tmpl, "apiVersion"), *tkind = get_str(tmpl, "kind");
    json_object *meta = get(tmpl, "metadata");
    const char *tname = get_str(meta, "name");
    if ((tav && strcmp(tav, av) != 0) || (tkind && strcmp(tkind, kind) != 0) || !tname ||
        strcmp(tname, name) != 0)
        return INVALID(w, "the resource template is not %.80s %.80s %.63s named in spec.resource",
                       av, kind, name);
    const char *ns = get_str(res, "namespace"), *tns = get_str(meta, "namespace");
    const char *uid = get_str(res, "uid"), *tuid = get_str(meta, "uid");
    if ((ns && tns && strcmp(ns, tns) != 0) || (uid && tuid && uid[0] && strcmp(uid, tuid) != 0))
        return INVALID(w, "the resource template's namespace or uid differs from spec.resource");
    *spec_out = spec;
    return 0;
}

/* ---- scheduler name, permanent id, suspension ---- */

static int read_links(struct karmada_workload *w, json_object *rb, json_object *spec)
{
    json_object *v = get(spec, "schedulerName");
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

    json_object *labels = get(get(rb, "metadata"), "labels");
    v = get(labels, KARMADA_WORKLOAD_PERMANENT_ID_LABEL);
    if (v) {
        size_t len = (size_t)json_object_get_string_len(v);
        if (!json_object_is_type(v, json_type_string) ||
            !label_value_ok(json_object_get_string(v), len))
            return INVALID(w, "label " KARMADA_WORKLOAD_PERMANENT_ID_LABEL ": not a label value");
        copy_str(w->permanent_id, sizeof(w->permanent_id), json_object_get_string(v), len);
    }

    json_object *susp = get(spec, "suspension");
    if (!susp)
        return 0;
    if (!json_object_is_type(susp, json_type_object))
        return INVALID(w, "spec.suspension: must be an object");
    static const char *const flags[] = {"scheduling", "dispatching"};
    int *dst[] = {&w->suspend_scheduling, &w->suspend_dispatching};
    for (int i = 0; i < 2; i++) {
        v = get(susp, flags[i]);
        if (v && !json_object_is_type(v, json_type_boolean))
            return INVALID(w, "spec.suspension.%s: must be true or false", flags[i]);
        *dst[i] = v ? json_object_get_boolean(v) != 0 : -1;
    }
    json_object *oc = get(susp, "dispatchingOnClusters");
    if (oc) {
        json_object *names = get(oc, "clusterNames");
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
    json_object *req = get(rr, "resourceRequest");
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

/* A Volcano Job's components carry each task's minAvailable (Karmada's interpreter), but the
 * member runs every replica of every task: take the counts from the template's tasks so the
 * queue and the node-by-node fit see the whole job. */
static int vcjob_task_counts(struct karmada_workload *w, json_object *tmpl)
{
    json_object *tasks = get(get(tmpl, "spec"), "tasks");
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
        const char *tname = get_str(t, "name");
        if (!tname || !tname[0])
            tname = fallback;
        if (strcmp(tname, c->name) != 0)
            return INVALID(w,
                           "spec.components[%zu] is %.63s but the Volcano Job's task %zu is "
                           "%.63s; the binding is stale",
                           i, c->name, i, tname);
        json_object *r = get(t, "replicas");
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
    return 0;
}

/* A task's minAvailable as Volcano's admission defaults it (the task's replicas when unset);
 * -1 when it is malformed or above the replicas. */
static int32_t vcjob_task_min(json_object *task, int32_t replicas)
{
    json_object *m = get(task, "minAvailable");
    int32_t v;
    if (!m)
        return replicas;
    if (to_int32(m, &v) || v < 0 || v > replicas)
        return -1;
    return v;
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
        return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                    "the Volcano Job's spec.tasks: %zu tasks, more than muster's limit of %d", n,
                    KARMADA_WORKLOAD_COMPONENTS_MAX);
    for (size_t i = 0; i < n; i++) {
        struct karmada_workload_component *c = &w->components[i];
        json_object *t = json_object_array_get_idx(tasks, i);
        const char *tname = get_str(t, "name");
        if (tname && tname[0] && !plain(tname, strlen(tname), KARMADA_WORKLOAD_NAME_MAX))
            return INVALID(w, "the Volcano Job's spec.tasks[%zu].name: must be a name of at most "
                              "%d printable characters",
                           i, KARMADA_WORKLOAD_NAME_MAX);
        if (tname && tname[0])
            copy_str(c->name, sizeof(c->name), tname, strlen(tname));
        else
            snprintf(c->name, sizeof(c->name), "task-%zu", i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(w->components[j].name, c->name) == 0)
                return INVALID(w, "the Volcano Job's task name %.63s appears twice", c->name);
        json_object *r = get(t, "replicas");
        c->replicas = 0; /* Go's zero value: Volcano runs no pod of a task without replicas */
        if (r && (to_int32(r, &c->replicas) || c->replicas < 0))
            return INVALID(w,
                           "the Volcano Job's spec.tasks[%zu].replicas: must be a non-negative "
                           "32-bit integer",
                           i);
        if (vcjob_task_min(t, c->replicas) < 0)
            return INVALID(w,
                           "the Volcano Job's spec.tasks[%zu].minAvailable: must be a whole "
                           "number from 0 to the task's %d replicas",
                           i, c->replicas);
        queue_resvec_clear(&c->request);
        w->ncomponents = (uint32_t)i + 1;
    }
    return 0;
}

static int read_components(struct karmada_workload *w, struct queue_resnames *names, json_object *spec,
                           json_object *tmpl)
{
    json_object *comps = get(spec, "components");
    if (comps && !json_object_is_type(comps, json_type_array))
        return INVALID(w, "spec.components: must be a list");
    size_t n = comps ? json_object_array_length(comps) : 0;
    json_object *tasks = get(get(tmpl, "spec"), "tasks");
    if (w->kind == KARMADA_WORKLOAD_KIND_VCJOB &&
        (!json_object_is_type(tasks, json_type_array) || json_object_array_length(tasks) == 0))
        return INVALID(w, "the Volcano Job has no spec.tasks: there is nothing to run");
    if (n > KARMADA_WORKLOAD_COMPONENTS_MAX)
        return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                    "spec.components: %zu entries, more than muster's limit of %d", n,
                    KARMADA_WORKLOAD_COMPONENTS_MAX);
    if (n == 0 && w->kind == KARMADA_WORKLOAD_KIND_VCJOB)
        return vcjob_tasks_as_components(w, tasks);
    if (n == 0) {
        /* One pod template: spec.replicas (omitted when 0) × spec.replicaRequirements. */
        struct karmada_workload_component *c = &w->components[0];
        json_object *r = get(spec, "replicas");
        c->replicas = 0;
        if (r && to_int32(r, &c->replicas))
            return INVALID(w, "spec.replicas: must be a 32-bit integer");
        if (c->replicas < 0)
            return INVALID(w, "spec.replicas: %d is negative", c->replicas);
        w->ncomponents = 1;
        return parse_request(w, names, get(spec, "replicaRequirements"), "spec.replicaRequirements",
                             &c->request);
    }
    for (size_t i = 0; i < n; i++) {
        struct karmada_workload_component *c = &w->components[i];
        json_object *e = json_object_array_get_idx(comps, i);
        json_object *nm = get(e, "name");
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
        json_object *r = get(e, "replicas");
        if (!r || to_int32(r, &c->replicas))
            return INVALID(w, "spec.components[%zu].replicas: must be a 32-bit integer", i);
        if (c->replicas < 0)
            return INVALID(w, "spec.components[%zu].replicas: %d is negative", i, c->replicas);
        char what[64];
        snprintf(what, sizeof(what), "spec.components[%zu].replicaRequirements", i);
        w->ncomponents = (uint32_t)i + 1;
        int rc = parse_request(w, names, get(e, "replicaRequirements"), what, &c->request);
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
    json_object *res = get(ctr, "resources");
    if (!res)
        return 0;
    if (!json_object_is_type(res, json_type_object))
        return INVALID(w, "%s.resources: must be an object", path);
    struct queue_resvec *req = &w->scratch[1], *lim = &w->scratch[2];
    queue_resvec_clear(req);
    queue_resvec_clear(lim);
    char what[160];
    snprintf(what, sizeof(what), "%s.resources.requests", path);
    int rc = get(res, "requests") ? kube_resvec_parse(names, get(res, "requests"), what, req,
                                                      w->message, sizeof(w->message))
                                  : 0;
    snprintf(what, sizeof(what), "%s.resources.limits", path);
    if (!rc && get(res, "limits"))
        rc = kube_resvec_parse(names, get(res, "limits"), what, lim, w->message,
                               sizeof(w->message));
    for (uint32_t i = 0; !rc && i < lim->len; i++) {
        uint32_t id = lim->items[i].id;
        json_object *reqs = get(res, "requests");
        const char *rn = queue_resnames_name(names, id);
        /* a listed request, even 0, stands; only a missing one takes the limit */
        if (!(rn && json_object_is_type(reqs, json_type_object) && get(reqs, rn)))
            rc = queue_resvec_set(req, id, lim->items[i].milli) ? MUSTER_ENOMEM : 0;
    }
    for (uint32_t i = 0; !rc && i < req->len; i++) {
        int64_t have = queue_resvec_get(pod, req->items[i].id), next;
        if (init)
            next = req->items[i].milli > have ? req->items[i].milli : have;
        else if (queue_milli_add(have, req->items[i].milli, &next))
            rc = fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ERANGE,
                      "%s: the pod's request overflows when the containers are added", path);
        if (!rc && queue_resvec_set(pod, req->items[i].id, next))
            rc = MUSTER_ENOMEM;
    }
    if (rc == MUSTER_ENOMEM)
        return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    if (rc)
        w->reason = KARMADA_WORKLOAD_INVALID;
    return rc;
}

/* Raises c->request to the effective request of the pod spec at podspec (path names it). */
static int raise_to_pod(struct karmada_workload *w, struct queue_resnames *names, json_object *podspec,
                        const char *path, struct karmada_workload_component *c)
{
    if (!podspec)
        return 0;
    struct queue_resvec *pod = &w->scratch[0];
    queue_resvec_clear(pod);
    int rc = 0;
    static const char *const lists[2] = {"containers", "initContainers"};
    for (int l = 0; l < 2 && !rc; l++) {
        json_object *ctrs = get(podspec, lists[l]);
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
            rc = fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    return rc;
}

static int read_template_requests(struct karmada_workload *w, struct queue_resnames *names,
                                  json_object *tmpl)
{
    json_object *spec = get(tmpl, "spec");
    switch (w->kind) {
    case KARMADA_WORKLOAD_KIND_POD:
        return raise_to_pod(w, names, spec, "the Pod's spec", &w->components[0]);
    case KARMADA_WORKLOAD_KIND_DEPLOYMENT:
    case KARMADA_WORKLOAD_KIND_JOB:
        return raise_to_pod(w, names, get(get(spec, "template"), "spec"),
                            "the template's spec.template.spec", &w->components[0]);
    case KARMADA_WORKLOAD_KIND_VCJOB: {
        /* vcjob_task_counts has matched components to tasks one to one */
        json_object *tasks = get(spec, "tasks");
        for (uint32_t i = 0; i < w->ncomponents; i++) {
            char path[64];
            snprintf(path, sizeof(path), "the Volcano Job's spec.tasks[%u].template.spec", i);
            int rc = raise_to_pod(w, names,
                                  get(get(json_object_array_get_idx(tasks, i), "template"), "spec"),
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
            return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ERANGE,
                        "the workload has more than %d replicas in all", INT32_MAX);
        for (uint32_t j = 0; j < c->request.len; j++) {
            const struct queue_res *r = &c->request.items[j];
            int64_t part, sum;
            if (queue_milli_mul(r->milli, c->replicas, &part) ||
                queue_milli_add(queue_resvec_get(&w->gang, r->id), part, &sum)) {
                const char *rn = queue_resnames_name(names, r->id);
                return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ERANGE,
                            "the gang's request for %.64s overflows: %d replicas%s%.63s cannot "
                            "be added up exactly",
                            rn ? rn : "a resource", c->replicas, c->name[0] ? " of " : "", c->name);
            }
            if (sum != 0 && queue_resvec_get(&w->gang, r->id) == 0 &&
                w->gang.len >= QUEUE_REQUEST_RES_MAX)
                return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                            "the workload requests more than %d distinct resources",
                            QUEUE_REQUEST_RES_MAX);
            if (queue_resvec_set(&w->gang, r->id, sum))
                return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
        }
    }
    w->replicas = (int32_t)total;
    return 0;
}

/* ---- annotations and labels: the template's first, then the binding's ---- */

/* The string value of key in obj's metadata.<where> (labels or annotations): 0 with *out NULL
 * when absent, MUSTER_EINVAL with a message when not a string. */
static int meta_str(struct karmada_workload *w, json_object *obj, const char *who, const char *where,
                    const char *key, const char **out)
{
    *out = NULL;
    json_object *v = get(get(get(obj, "metadata"), where), key);
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_string))
        return INVALID(w, "%s %s %s: must be a string", who, where, key);
    *out = json_object_get_string(v);
    return 0;
}

/* The annotation key of the template, else of the binding; *who says whose it was. */
static int annotation(struct karmada_workload *w, json_object *tmpl, json_object *rb, const char *key,
                      const char **out, const char **who)
{
    *who = "template";
    int rc = meta_str(w, tmpl, "template", "annotations", key, out);
    if (rc || *out)
        return rc;
    *who = "binding";
    return meta_str(w, rb, "binding", "annotations", key, out);
}

/* Whole decimal number, no sign, no leading '+', within int32: atoi would take "4x" and "-1". */
static int parse_count(const char *s, int32_t *out)
{
    size_t n = strlen(s);
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
        if (parse_count(s, &v) || v == 0)
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
    json_object *ma = get(get(tmpl, "spec"), "minAvailable");
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
        json_object *tasks = get(get(tmpl, "spec"), "tasks");
        int64_t sum = 0;
        for (size_t i = 0; i < json_object_array_length(tasks) && i < w->ncomponents; i++) {
            json_object *t = json_object_array_get_idx(tasks, i);
            int32_t m = vcjob_task_min(t, w->components[i].replicas);
            sum += m < 0 ? w->components[i].replicas : m;
        }
        if (sum > 0 && sum < w->replicas) {
            w->min_member = (int32_t)sum;
            w->min_member_source = "the tasks' minAvailable";
            return 0;
        }
    }
    w->min_member = w->replicas;
    w->min_member_source = "replicas";
    return 0;
}

static int read_placement(struct karmada_workload *w, json_object *rb, json_object *tmpl,
                          json_object *spec)
{
    const char *s, *who;
    int rc = annotation(w, tmpl, rb, KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, &s, &who);
    if (rc)
        return rc;
    json_object *rs = get(get(spec, "placement"), "replicaScheduling");
    json_object *tv = get(rs, "replicaSchedulingType");
    if (rs && !json_object_is_type(rs, json_type_object))
        return INVALID(w, "spec.placement.replicaScheduling: must be an object");
    const char *type = get_str(rs, "replicaSchedulingType");
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
        return fail(w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
                    "placement spread is refused for a Volcano Job: Karmada does not divide "
                    "Volcano Jobs, so muster places the whole job in one cluster; remove "
                    "the " KARMADA_WORKLOAD_PLACEMENT_ANNOTATION
                    " annotation or set it to single-cluster");
    if (!type || strcmp(type, "Divided") != 0)
        return fail(w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
                    "placement spread needs spec.placement.replicaScheduling."
                    "replicaSchedulingType Divided (it is %s): set it in the PropagationPolicy "
                    "or use single-cluster",
                    type ? type : "unset");
    w->placement = KARMADA_WORKLOAD_SPREAD;
    return 0;
}

/* The queue keys of DESIGN.md in order of precedence, and the static source strings. */
#define QKEYS(X)                                                                                   \
    X("scheduling.volcano.sh/queue-name")                                                          \
    X("volcano.sh/queue-name")                                                                     \
    X("kueue.x-k8s.io/queue-name")                                                                 \
    X("yunikorn.apache.org/queue")
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
        json_object *q = get(get(tmpl, "spec"), "queue");
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
    copy_str(w->queue, sizeof(w->queue), QUEUE_DEFAULT, strlen(QUEUE_DEFAULT));
    return 0;
}

static int read_priority(struct karmada_workload *w, json_object *tmpl, json_object *spec)
{
    json_object *sp = get(spec, "schedulePriority");
    if (sp) {
        json_object *p = get(sp, "priority");
        if (!json_object_is_type(sp, json_type_object) || (p && to_int32(p, &w->priority)))
            return INVALID(w, "spec.schedulePriority.priority: must be a 32-bit integer");
        w->priority_from = KARMADA_WORKLOAD_PRIORITY_RB;
        return 0;
    }
    /* The pod spec's priorityClassName (a Volcano Job names it at the job level), then the copy
     * Karmada's interpreter puts in replicaRequirements. */
    json_object *ts = get(tmpl, "spec");
    json_object *pod = w->kind == KARMADA_WORKLOAD_KIND_VCJOB || w->kind == KARMADA_WORKLOAD_KIND_POD
                           ? ts
                           : get(get(ts, "template"), "spec");
    const char *where = w->kind == KARMADA_WORKLOAD_KIND_VCJOB || w->kind == KARMADA_WORKLOAD_KIND_POD
                            ? "the template's spec.priorityClassName"
                            : "the template's spec.template.spec.priorityClassName";
    json_object *v = get(pod, "priorityClassName");
    if (!v) {
        v = get(get(spec, "replicaRequirements"), "priorityClassName");
        where = "spec.replicaRequirements.priorityClassName";
    }
    if (!v)
        return 0;
    size_t len = (size_t)json_object_get_string_len(v);
    if (!json_object_is_type(v, json_type_string))
        return INVALID(w, "%s: must be a string", where);
    if (len == 0)
        return 0;
    if (!subdomain_ok(json_object_get_string(v), len))
        return INVALID(w, "%s: \"%.63s\" is not a PriorityClass name", where,
                       json_object_get_string(v));
    copy_str(w->priority_class, sizeof(w->priority_class), json_object_get_string(v), len);
    w->priority_from = KARMADA_WORKLOAD_PRIORITY_CLASS;
    return 0;
}

/* ---- allowed clusters: validation at read time, so matching never meets a bad shape ---- */

static int check_strings(struct karmada_workload *w, json_object *list, const char *path, int nonempty)
{
    if (!json_object_is_type(list, json_type_array))
        return INVALID(w, "%s: must be a list of strings", path);
    size_t n = json_object_array_length(list);
    if (n > KARMADA_WORKLOAD_LIST_MAX)
        return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT, "%s: %zu entries, more than %d", path,
                    n, KARMADA_WORKLOAD_LIST_MAX);
    if (nonempty && n == 0)
        return INVALID(w, "%s: must not be empty for this operator", path);
    for (size_t i = 0; i < n; i++)
        if (!json_object_is_type(json_object_array_get_idx(list, i), json_type_string))
            return INVALID(w, "%s[%zu]: must be a string", path, i);
    return 0;
}

static int op_index(const char *op, const char *const *ops, int nops)
{
    for (int i = 0; op && i < nops; i++)
        if (strcmp(op, ops[i]) == 0)
            return i;
    return -1;
}

static const char *const label_ops[] = {"In", "NotIn", "Exists", "DoesNotExist"};
enum { OP_IN, OP_NOTIN, OP_EXISTS, OP_DOESNOTEXIST };

/* matchExpressions of a label selector (fields = 0) or of Karmada's field selector (fields = 1:
 * keys provider, region, zone; operators In and NotIn, as Karmada's validation allows). */
static int check_expressions(struct karmada_workload *w, json_object *exprs, const char *path,
                             int fields)
{
    if (!json_object_is_type(exprs, json_type_array))
        return INVALID(w, "%s: must be a list", path);
    size_t n = json_object_array_length(exprs);
    if (n > KARMADA_WORKLOAD_LIST_MAX)
        return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT, "%s: more than %d expressions", path,
                    KARMADA_WORKLOAD_LIST_MAX);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(exprs, i);
        const char *key = get_str(e, "key");
        int op = op_index(get_str(e, "operator"), label_ops, fields ? 2 : 4);
        char p[160];
        snprintf(p, sizeof(p), "%s[%zu]", path, i);
        if (!key || !key[0])
            return INVALID(w, "%s.key: must be a non-empty string", p);
        if (fields && strcmp(key, "provider") != 0 && strcmp(key, "region") != 0 &&
            strcmp(key, "zone") != 0)
            return INVALID(w, "%s.key: must be provider, region or zone", p);
        if (op < 0)
            return INVALID(w, "%s.operator: must be %s", p,
                           fields ? "In or NotIn" : "In, NotIn, Exists or DoesNotExist");
        json_object *vals = get(e, "values");
        snprintf(p, sizeof(p), "%s[%zu].values", path, i);
        if (op == OP_IN || op == OP_NOTIN) {
            int rc = check_strings(w, vals, p, 1);
            if (rc)
                return rc;
        } else if (vals && (!json_object_is_type(vals, json_type_array) ||
                            json_object_array_length(vals) > 0)) {
            return INVALID(w, "%s: must be empty for operator %s", p, label_ops[op]);
        }
    }
    return 0;
}

static int check_affinity(struct karmada_workload *w, json_object *aff, const char *path)
{
    char p[128];
    if (!json_object_is_type(aff, json_type_object))
        return INVALID(w, "%s: must be an object", path);
    static const char *const lists[] = {"clusterNames", "exclude"};
    for (int i = 0; i < 2; i++) {
        json_object *l = get(aff, lists[i]);
        snprintf(p, sizeof(p), "%s.%s", path, lists[i]);
        int rc = l ? check_strings(w, l, p, 0) : 0;
        if (rc)
            return rc;
    }
    json_object *ls = get(aff, "labelSelector");
    if (ls) {
        json_object *ml = get(ls, "matchLabels");
        if (!json_object_is_type(ls, json_type_object) ||
            (ml && !json_object_is_type(ml, json_type_object)))
            return INVALID(w, "%s.labelSelector: must be {matchLabels, matchExpressions}", path);
        if (ml && json_object_object_length(ml) > KARMADA_WORKLOAD_LIST_MAX)
            return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                        "%s.labelSelector.matchLabels: more than %d labels", path,
                        KARMADA_WORKLOAD_LIST_MAX);
        if (ml) {
            json_object_object_foreach(ml, key, val)
            {
                if (!json_object_is_type(val, json_type_string))
                    return INVALID(w, "%s.labelSelector.matchLabels.%.63s: must be a string", path,
                                   key);
            }
        }
        json_object *me = get(ls, "matchExpressions");
        snprintf(p, sizeof(p), "%s.labelSelector.matchExpressions", path);
        int rc = me ? check_expressions(w, me, p, 0) : 0;
        if (rc)
            return rc;
    }
    json_object *fs = get(aff, "fieldSelector");
    if (fs) {
        json_object *me = get(fs, "matchExpressions");
        snprintf(p, sizeof(p), "%s.fieldSelector.matchExpressions", path);
        if (!json_object_is_type(fs, json_type_object))
            return INVALID(w, "%s.fieldSelector: must be an object", path);
        int rc = me ? check_expressions(w, me, p, 1) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

static int check_tolerations(struct karmada_workload *w, json_object *tols)
{
    const char *path = "spec.placement.clusterTolerations";
    if (!json_object_is_type(tols, json_type_array))
        return INVALID(w, "%s: must be a list", path);
    size_t n = json_object_array_length(tols);
    if (n > KARMADA_WORKLOAD_LIST_MAX)
        return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT, "%s: more than %d tolerations", path,
                    KARMADA_WORKLOAD_LIST_MAX);
    static const char *const ops[] = {"", "Equal", "Exists"};
    static const char *const effects[] = {"", "NoSchedule", "PreferNoSchedule", "NoExecute"};
    for (size_t i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(tols, i);
        if (!json_object_is_type(t, json_type_object))
            return INVALID(w, "%s[%zu]: must be an object", path, i);
        static const char *const strs[] = {"key", "operator", "value", "effect"};
        for (int s = 0; s < 4; s++)
            if (get(t, strs[s]) && !get_str(t, strs[s]))
                return INVALID(w, "%s[%zu].%s: must be a string", path, i, strs[s]);
        const char *key = get_str(t, "key"), *value = get_str(t, "value");
        const char *opname = get_str(t, "operator");
        int op = op_index(opname ? opname : "", ops, 3);
        if (op < 0)
            return INVALID(w, "%s[%zu].operator: must be Equal or Exists", path, i);
        if (op_index(get_str(t, "effect") ? get_str(t, "effect") : "", effects, 4) < 0)
            return INVALID(w,
                           "%s[%zu].effect: must be NoSchedule, PreferNoSchedule or "
                           "NoExecute",
                           path, i);
        if ((!key || !key[0]) && op != 2)
            return INVALID(w, "%s[%zu]: an empty key needs operator Exists", path, i);
        if (op == 2 && value && value[0])
            return INVALID(w, "%s[%zu].value: must be empty for operator Exists", path, i);
    }
    return 0;
}

static int read_clusters(struct karmada_workload *w, json_object *spec)
{
    json_object *pl = get(spec, "placement");
    if (!pl)
        return 0;
    if (!json_object_is_type(pl, json_type_object))
        return INVALID(w, "spec.placement: must be an object");
    json_object *aff = get(pl, "clusterAffinity");
    int rc = aff ? check_affinity(w, aff, "spec.placement.clusterAffinity") : 0;
    if (rc)
        return rc;
    json_object *affs = get(pl, "clusterAffinities");
    if (affs) {
        if (!json_object_is_type(affs, json_type_array))
            return INVALID(w, "spec.placement.clusterAffinities: must be a list");
        size_t n = json_object_array_length(affs);
        if (n > KARMADA_WORKLOAD_AFFINITIES_MAX)
            return fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                        "spec.placement.clusterAffinities: more than %d groups",
                        KARMADA_WORKLOAD_AFFINITIES_MAX);
        for (size_t i = 0; i < n; i++) {
            char p[64];
            snprintf(p, sizeof(p), "spec.placement.clusterAffinities[%zu]", i);
            rc = check_affinity(w, json_object_array_get_idx(affs, i), p);
            if (rc)
                return rc;
        }
    }
    json_object *tols = get(pl, "clusterTolerations");
    rc = tols ? check_tolerations(w, tols) : 0;
    if (rc)
        return rc;
    w->affinity = json_object_get(aff);
    w->affinities = affs && json_object_array_length(affs) ? json_object_get(affs) : NULL;
    w->tolerations = json_object_get(tols);
    return 0;
}

/* ---- the read ---- */

int karmada_workload_read(struct karmada_workload *w, struct queue_resnames *names, json_object *rb,
                       json_object *tmpl)
{
    reset(w);
    json_object *spec = NULL;
    int rc = read_identity(w, rb, tmpl, &spec);
    if (!rc)
        rc = read_links(w, rb, spec);
    if (!rc)
        rc = read_components(w, names, spec, tmpl);
    if (!rc)
        rc = read_template_requests(w, names, tmpl);
    if (!rc)
        rc = sum_gang(w, names);
    if (!rc)
        rc = read_min_member(w, rb, tmpl);
    if (!rc)
        rc = read_placement(w, rb, tmpl, spec);
    if (!rc)
        rc = read_queue(w, rb, tmpl);
    if (!rc)
        rc = read_priority(w, tmpl, spec);
    if (!rc)
        rc = read_clusters(w, spec);
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

int karmada_workload_cluster_serves(json_object *cluster, const char *group_version,
                                 const char *resource)
{
    json_object *en = get(get(cluster, "status"), "apiEnablements");
    if (!json_object_is_type(en, json_type_array))
        return -1;
    for (size_t i = 0; i < json_object_array_length(en); i++) {
        json_object *e = json_object_array_get_idx(en, i);
        const char *gv = get_str(e, "groupVersion");
        json_object *rs = get(e, "resources");
        if (!gv || strcmp(gv, group_version) != 0 || !json_object_is_type(rs, json_type_array))
            continue;
        for (size_t j = 0; j < json_object_array_length(rs); j++) {
            const char *n = get_str(json_object_array_get_idx(rs, j), "name");
            if (n && strcmp(n, resource) == 0)
                return 1;
        }
    }
    return 0;
}

int karmada_workload_cluster_serves_podgroups(json_object *cluster)
{
    return karmada_workload_cluster_serves(cluster, "scheduling.volcano.sh/v1beta1", "podgroups");
}

int karmada_workload_assigns(const struct karmada_workload *w, const char *scheduler)
{
    return scheduler && strcmp(w->scheduler_name, scheduler) == 0;
}

/* ---- matching a Cluster ---- */

static int list_has(json_object *list, const char *s)
{
    size_t n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = json_object_get_string(json_object_array_get_idx(list, i));
        if (s && e && strcmp(e, s) == 0)
            return 1;
    }
    return 0;
}

/* One requirement against a value that may be absent (NULL), as apimachinery's labels do. */
static int requirement_holds(int op, json_object *values, const char *have)
{
    switch (op) {
    case OP_IN:
        return have && list_has(values, have);
    case OP_NOTIN:
        return !have || !list_has(values, have);
    case OP_EXISTS:
        return have != NULL;
    default:
        return have == NULL;
    }
}

/* Karmada's matchZones: In needs every zone of the cluster listed (and at least one zone),
 * NotIn needs none listed; no zones and no values match. */
static int zones_hold(int op, json_object *values, json_object *zones)
{
    size_t nz = json_object_is_type(zones, json_type_array) ? json_object_array_length(zones) : 0;
    size_t nv = json_object_array_length(values);
    if (nz == 0 && nv == 0)
        return 1;
    if (op == OP_IN && nz == 0)
        return 0;
    for (size_t i = 0; i < nz; i++) {
        int listed = list_has(values, json_object_get_string(json_object_array_get_idx(zones, i)));
        if (listed != (op == OP_IN))
            return 0;
    }
    return 1;
}

__attribute__((format(printf, 3, 4))) static int deny(char *why, size_t cap, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int affinity_allows(json_object *aff, const char *path, const char *name,
                           json_object *cluster, char *why, size_t cap)
{
    if (list_has(get(aff, "exclude"), name))
        return deny(why, cap, "%.63s: excluded by %s.exclude", name, path);
    json_object *labels = get(get(cluster, "metadata"), "labels");
    json_object *ls = get(aff, "labelSelector");
    json_object *ml = get(ls, "matchLabels");
    if (ml) {
        json_object_object_foreach(ml, key, val)
        {
            const char *have = get_str(labels, key);
            if (!have || strcmp(have, json_object_get_string(val)) != 0)
                return deny(why, cap, "%.63s: label %.63s is not %.63s (%s.labelSelector)", name,
                            key, json_object_get_string(val), path);
        }
    }
    json_object *me = get(ls, "matchExpressions");
    for (size_t i = 0; me && i < json_object_array_length(me); i++) {
        json_object *e = json_object_array_get_idx(me, i);
        const char *lkey = get_str(e, "key");
        int op = op_index(get_str(e, "operator"), label_ops, 4);
        if (!requirement_holds(op, get(e, "values"), get_str(labels, lkey)))
            return deny(why, cap, "%.63s: label %.63s does not satisfy %s (%s.labelSelector)", name,
                        lkey, label_ops[op], path);
    }
    me = get(get(aff, "fieldSelector"), "matchExpressions");
    json_object *cspec = get(cluster, "spec");
    for (size_t i = 0; me && i < json_object_array_length(me); i++) {
        json_object *e = json_object_array_get_idx(me, i);
        const char *key = get_str(e, "key");
        int op = op_index(get_str(e, "operator"), label_ops, 2);
        int ok;
        if (strcmp(key, "zone") == 0) {
            ok = zones_hold(op, get(e, "values"), get(cspec, "zones"));
        } else {
            const char *have = get_str(cspec, key);
            ok = requirement_holds(op, get(e, "values"), have && have[0] ? have : NULL);
        }
        if (!ok)
            return deny(why, cap, "%.63s: field %s does not satisfy %s (%s.fieldSelector)", name,
                        key, label_ops[op], path);
    }
    json_object *names = get(aff, "clusterNames");
    if (names && json_object_array_length(names) > 0 && !list_has(names, name))
        return deny(why, cap, "%.63s: not in %s.clusterNames", name, path);
    return 1;
}

/* core/v1 Toleration.ToleratesTaint. */
static int tolerates(json_object *t, const char *key, const char *value, const char *effect)
{
    const char *tkey = get_str(t, "key"), *teffect = get_str(t, "effect");
    const char *op = get_str(t, "operator"), *tvalue = get_str(t, "value");
    if (teffect && teffect[0] && strcmp(teffect, effect) != 0)
        return 0;
    if (tkey && tkey[0] && strcmp(tkey, key) != 0)
        return 0;
    if (op && strcmp(op, "Exists") == 0)
        return 1;
    return strcmp(tvalue ? tvalue : "", value) == 0;
}

int karmada_workload_explain_cluster(const struct karmada_workload *w, json_object *cluster, char *why,
                                  size_t cap)
{
    if (why && cap)
        why[0] = '\0';
    const char *name = get_str(get(cluster, "metadata"), "name");
    if (!name || !name[0])
        return deny(why, cap, "a cluster without metadata.name");
    json_object *labels = get(get(cluster, "metadata"), "labels");
    if (labels && !json_object_is_type(labels, json_type_object))
        return deny(why, cap, "%.63s: metadata.labels is not an object", name);
    if (w->affinity &&
        !affinity_allows(w->affinity, "spec.placement.clusterAffinity", name, cluster, why, cap))
        return 0;
    if (w->affinities) {
        /* Karmada tries the groups in order and falls back to the next; the set of clusters it
         * may end up using is their union, and muster's own placement applies no order. */
        int any = 0;
        size_t n = json_object_array_length(w->affinities);
        for (size_t i = 0; i < n && !any; i++)
            any = affinity_allows(json_object_array_get_idx(w->affinities, i),
                                  "spec.placement.clusterAffinities", name, cluster, NULL, 0);
        if (!any)
            return deny(why, cap, "%.63s: matches none of spec.placement.clusterAffinities", name);
    }
    json_object *taints = get(get(cluster, "spec"), "taints");
    if (taints && !json_object_is_type(taints, json_type_array))
        return deny(why, cap, "%.63s: spec.taints is not a list", name);
    size_t nt = taints ? json_object_array_length(taints) : 0;
    if (nt > KARMADA_WORKLOAD_LIST_MAX)
        return deny(why, cap, "%.63s: more than %d taints", name, KARMADA_WORKLOAD_LIST_MAX);
    for (size_t i = 0; i < nt; i++) {
        json_object *t = json_object_array_get_idx(taints, i);
        const char *key = get_str(t, "key"), *effect = get_str(t, "effect");
        const char *value = get_str(t, "value");
        if (!key || !effect)
            return deny(why, cap, "%.63s: spec.taints[%zu] is malformed", name, i);
        /* Karmada's TaintToleration filter: PreferNoSchedule never keeps work out. */
        if (strcmp(effect, "NoSchedule") != 0 && strcmp(effect, "NoExecute") != 0)
            continue;
        int ok = 0;
        size_t ntol = w->tolerations ? json_object_array_length(w->tolerations) : 0;
        for (size_t j = 0; j < ntol && !ok; j++)
            ok = tolerates(json_object_array_get_idx(w->tolerations, j), key, value ? value : "",
                           effect);
        if (!ok)
            return deny(why, cap,
                        "%.63s: taint %.63s%s%.63s:%s is not tolerated by "
                        "spec.placement.clusterTolerations",
                        name, key, value && value[0] ? "=" : "", value ? value : "", effect);
    }
    return 1;
}

int karmada_workload_allows_cluster(const struct karmada_workload *w, json_object *cluster)
{
    return karmada_workload_explain_cluster(w, cluster, NULL, 0);
}

/* ---- what the informers keep: objects pruned to what is read here and in gangobj.c ---- */

/* obj[key] (JSON null included) added to dst under the same, static, key; 0 when absent.
 * Values are shared, not copied: the pruned object is what survives of the original. */
static int keep(json_object *dst, json_object *src, const char *key)
{
    json_object *v;
    if (!json_object_is_type(src, json_type_object) || !json_object_object_get_ex(src, key, &v))
        return 0;
    if (json_object_object_add_ex(dst, key, json_object_get(v),
                                  JSON_C_OBJECT_ADD_CONSTANT_KEY) == 0)
        return 0;
    json_object_put(v);
    return -1;
}

/* dst[key] = val, taking val; -1 (val released) when val is NULL or the add fails. */
static int put_new(json_object *dst, const char *key, json_object *val)
{
    if (!val || json_object_object_add_ex(dst, key, val, JSON_C_OBJECT_ADD_CONSTANT_KEY)) {
        json_object_put(val);
        return -1;
    }
    return 0;
}

/* The keys a template's or a binding's labels and annotations are read for (read_queue,
 * annotation()). */
static const char *const meta_keys[] = {QKEYS(QKEY) KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION,
                                        KARMADA_WORKLOAD_PLACEMENT_ANNOTATION};
#define NMETA_KEYS (sizeof(meta_keys) / sizeof(meta_keys[0]))

/* md[where] with only meta_keys. An object stays an object even when nothing is left: gangobj.c
 * shapes its OverridePolicy by whether a pod's annotations exist. Not an object: kept as is. */
static int keep_meta_keys(json_object *dst, json_object *md, const char *where)
{
    json_object *v;
    if (!json_object_object_get_ex(md, where, &v))
        return 0;
    if (!json_object_is_type(v, json_type_object))
        return keep(dst, md, where);
    json_object *out = json_object_new_object();
    int bad = !out;
    for (size_t i = 0; !bad && i < NMETA_KEYS; i++)
        bad = keep(out, v, meta_keys[i]);
    if (bad) {
        json_object_put(out);
        return -1;
    }
    return put_new(dst, where, out);
}

/* metadata: identity and version, and the labels and annotations muster reads. */
static json_object *prune_meta(json_object *md)
{
    static const char *const ids[] = {"name", "namespace", "uid", "resourceVersion", "generation"};
    json_object *out = json_object_new_object();
    int bad = !out;
    for (size_t i = 0; !bad && i < sizeof(ids) / sizeof(ids[0]); i++)
        bad = keep(out, md, ids[i]);
    if (!bad)
        bad = keep_meta_keys(out, md, "labels") || keep_meta_keys(out, md, "annotations");
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* A pod spec (or a Volcano Job's spec): only what read_priority and read_components read, kept
 * an object so karmada_gang_input_check still finds a pod spec. */
static json_object *prune_spec(json_object *spec, int top);

/* spec.template of a Deployment or Job: its metadata (annotations emptied: gangobj.c only asks
 * whether they exist) and its pod spec's priorityClassName. */
static json_object *prune_pod_template(json_object *t)
{
    if (!json_object_is_type(t, json_type_object))
        return json_object_get(t);
    json_object *out = json_object_new_object(), *md, *spec;
    int bad = !out;
    if (!bad && json_object_object_get_ex(t, "metadata", &md)) {
        if (!json_object_is_type(md, json_type_object)) {
            bad = keep(out, t, "metadata");
        } else {
            json_object *m = json_object_new_object(), *ann;
            bad = !m;
            if (!bad && json_object_object_get_ex(md, "annotations", &ann))
                bad = json_object_is_type(ann, json_type_object)
                          ? put_new(m, "annotations", json_object_new_object())
                          : keep(m, md, "annotations");
            if (bad)
                json_object_put(m);
            else
                bad = put_new(out, "metadata", m);
        }
    }
    if (!bad && json_object_object_get_ex(t, "spec", &spec))
        bad = spec ? put_new(out, "spec", prune_spec(spec, 0)) : keep(out, t, "spec");
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* arr with each object element replaced by prune(element) (others kept as they are); arr
 * itself when it is no array, NULL when out of memory. */
static json_object *prune_each(json_object *arr, json_object *(*prune)(json_object *))
{
    if (!json_object_is_type(arr, json_type_array))
        return json_object_get(arr);
    size_t n = json_object_array_length(arr);
    json_object *out = json_object_new_array_ext((int)(n ? n : 1));
    int bad = !out;
    for (size_t i = 0; !bad && i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        json_object *p = json_object_is_type(e, json_type_object) ? prune(e) : json_object_get(e);
        if ((e && !p) || json_object_array_add(out, p)) {
            json_object_put(p);
            bad = 1;
        }
    }
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* A Volcano Job task: its name, replicas, minAvailable and pruned pod template. */
static json_object *prune_task(json_object *t)
{
    json_object *p = json_object_new_object(), *tt;
    if (p && (keep(p, t, "name") || keep(p, t, "replicas") || keep(p, t, "minAvailable") ||
              (json_object_object_get_ex(t, "template", &tt) &&
               (tt ? put_new(p, "template", prune_pod_template(tt)) : keep(p, t, "template"))))) {
        json_object_put(p);
        p = NULL;
    }
    return p;
}

/* A pod spec's container or init container: its resources only (read_template_requests). */
static json_object *prune_container(json_object *ct)
{
    json_object *p = json_object_new_object();
    if (p && keep(p, ct, "resources")) {
        json_object_put(p);
        p = NULL;
    }
    return p;
}

static json_object *prune_spec(json_object *spec, int top)
{
    if (!json_object_is_type(spec, json_type_object))
        return json_object_get(spec);
    json_object *out = json_object_new_object(), *v;
    int bad = !out || keep(out, spec, "priorityClassName");
    static const char *const lists[] = {"containers", "initContainers"};
    for (int l = 0; l < 2 && !bad; l++)
        if (json_object_object_get_ex(spec, lists[l], &v))
            bad = v ? put_new(out, lists[l], prune_each(v, prune_container))
                    : keep(out, spec, lists[l]);
    if (top) {
        /* a Volcano Job's (read_components, read_min_member, read_queue) */
        bad = bad || keep(out, spec, "minAvailable") || keep(out, spec, "queue");
        if (!bad && json_object_object_get_ex(spec, "tasks", &v))
            bad = v ? put_new(out, "tasks", prune_each(v, prune_task)) : keep(out, spec, "tasks");
        /* a Deployment's or Job's pod template */
        if (!bad && json_object_object_get_ex(spec, "template", &v))
            bad = v ? put_new(out, "template", prune_pod_template(v)) : keep(out, spec, "template");
    }
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

json_object *karmada_workload_prune_template(json_object *tmpl)
{
    json_object *md, *spec;
    if (!json_object_is_type(tmpl, json_type_object) ||
        !json_object_object_get_ex(tmpl, "metadata", &md) ||
        !json_object_is_type(md, json_type_object))
        return json_object_get(tmpl); /* not a shape to prune: the read will say what is wrong */
    json_object *out = json_object_new_object();
    int bad = !out || keep(out, tmpl, "apiVersion") || keep(out, tmpl, "kind") ||
              put_new(out, "metadata", prune_meta(md));
    if (!bad && json_object_object_get_ex(tmpl, "spec", &spec))
        bad = spec ? put_new(out, "spec", prune_spec(spec, 1)) : keep(out, tmpl, "spec");
    if (bad) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* The labels of a binding muster reads: the queue keys, Karmada's permanent id (read_links) and
 * the skip label (karmada_webhook_rb_verdict). */
static const char *const rb_label_keys[] = {QKEYS(QKEY) KARMADA_WORKLOAD_PERMANENT_ID_LABEL,
                                            KARMADA_WEBHOOK_SKIP_LABEL};

/* md[where] filtered in place to keys[0..n) when it is an object; dropped when nothing is left. */
static void filter_in_place(json_object *md, const char *where, const char *const *keys, size_t n)
{
    json_object *v;
    if (!json_object_object_get_ex(md, where, &v) || !json_object_is_type(v, json_type_object))
        return;
    const char *drop[64];
    size_t ndrop = 0, nkept = 0;
    json_object_object_foreach(v, k, val)
    {
        (void)val;
        size_t i = 0;
        while (i < n && strcmp(keys[i], k) != 0)
            i++;
        if (i < n)
            nkept++;
        else if (ndrop < sizeof(drop) / sizeof(drop[0]))
            drop[ndrop++] = k;
        else
            return; /* more than we can note: keep them all (kept is always safe) */
    }
    if (nkept == 0) {
        json_object_object_del(md, where);
        return;
    }
    for (size_t i = 0; i < ndrop; i++)
        json_object_object_del(v, drop[i]);
}

json_object *karmada_workload_prune_binding(json_object *rb)
{
    json_object *md;
    if (json_object_is_type(rb, json_type_object) &&
        json_object_object_get_ex(rb, "metadata", &md) &&
        json_object_is_type(md, json_type_object)) {
        /* what the API server keeps for itself and for garbage collection */
        json_object_object_del(md, "managedFields");
        json_object_object_del(md, "ownerReferences");
        filter_in_place(md, "labels", rb_label_keys,
                        sizeof(rb_label_keys) / sizeof(rb_label_keys[0]));
        filter_in_place(md, "annotations", meta_keys, NMETA_KEYS);
    }
    return json_object_get(rb);
}
