/* Issue 19's kinds read from their templates (see workload_kinds.h and docs/workload.md). The
 * pod templates and counts are read as each project's controller runs them, component names
 * as Karmada's component interpreters name them (pkg/resourceinterpreter/default/thirdparty/
 * resourcecustomizations/), so an RB made with MultiplePodTemplatesScheduling pairs with the
 * template by name. */
#include "cluster-adapters/karmada/workload_kinds.h"

#include "cluster-adapters/kube/json.h"
#include "cluster-adapters/kube/resources.h"
#include "queue/errors.h"

#include <stdio.h>
#include <string.h>

#define INVALID(w, ...)                                                                            \
    karmada_workload_fail((w), KARMADA_WORKLOAD_INVALID, MUSTER_EINVAL, __VA_ARGS__)

static const struct {
    enum karmada_workload_kind kind;
    const char *api_version, *kind_name, *resource, *name;
} kinds[] = {
    {KARMADA_WORKLOAD_KIND_JOBSET, "jobset.x-k8s.io/v1alpha2", "JobSet", "jobsets", "JobSet"},
    {KARMADA_WORKLOAD_KIND_LWS, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet",
     "leaderworkersets", "LeaderWorkerSet"},
    {KARMADA_WORKLOAD_KIND_PYTORCHJOB, "kubeflow.org/v1", "PyTorchJob", "pytorchjobs",
     "PyTorchJob"},
    {KARMADA_WORKLOAD_KIND_MPIJOB, "kubeflow.org/v1", "MPIJob", "mpijobs", "MPIJob"},
    {KARMADA_WORKLOAD_KIND_RAYCLUSTER, "ray.io/v1", "RayCluster", "rayclusters", "RayCluster"},
    {KARMADA_WORKLOAD_KIND_RAYJOB, "ray.io/v1", "RayJob", "rayjobs", "RayJob"},
    /* read by workload_trainjob.c, which looks its runtime up on the hub */
    {KARMADA_WORKLOAD_KIND_TRAINJOB, "trainer.kubeflow.org/v1alpha1", "TrainJob", "trainjobs",
     "TrainJob"},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

enum karmada_workload_kind karmada__workload_kinds_of(const char *api_version, const char *kind)
{
    for (size_t i = 0; api_version && kind && i < NKINDS; i++)
        if (strcmp(kind, kinds[i].kind_name) == 0 && strcmp(api_version, kinds[i].api_version) == 0)
            return kinds[i].kind;
    return KARMADA_WORKLOAD_KIND_NONE;
}

static size_t row_of(enum karmada_workload_kind kind)
{
    size_t i = 0;
    while (i < NKINDS && kinds[i].kind != kind)
        i++;
    return i;
}

int karmada__workload_kinds_handles(enum karmada_workload_kind kind)
{
    return row_of(kind) < NKINDS;
}

const char *karmada__workload_kinds_name(enum karmada_workload_kind kind)
{
    size_t i = row_of(kind);
    return i < NKINDS ? kinds[i].name : NULL;
}

const char *karmada__workload_kinds_resource(enum karmada_workload_kind kind)
{
    size_t i = row_of(kind);
    return i < NKINDS ? kinds[i].resource : NULL;
}

int karmada_workload_kind_api(enum karmada_workload_kind kind, const char **group_version,
                              const char **resource)
{
    size_t i = row_of(kind);
    if (i >= NKINDS)
        return MUSTER_ENOENT;
    *group_version = kinds[i].api_version;
    *resource = kinds[i].resource;
    return 0;
}

/* ---- one pod template: a component ---- */

/* Printable ASCII without spaces, as workload.c checks component names. */
static int plain_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > KARMADA_WORKLOAD_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return 0;
    return 1;
}

/* A count at obj[key]: dflt when absent, else a non-negative int32 (min 1 when positive). */
static int count_at(struct karmada_workload *w, json_object *obj, const char *key, int32_t dflt,
                    int positive, const char *path, int32_t *out)
{
    json_object *v = kube_json_get(obj, key);
    *out = dflt;
    if (!v)
        return 0;
    if (karmada__workload_int32(v, out) || *out < positive)
        return INVALID(w, "the %s's %s.%s: must be a %s 32-bit integer",
                       karmada_workload_kind_name(w->kind), path, key,
                       positive ? "positive" : "non-negative");
    return 0;
}

/* Appends component name with replicas pods of podspec (path names it in messages). */
static int add(struct karmada_workload *w, struct queue_resnames *names, const char *name,
               int64_t replicas, json_object *podspec, const char *path)
{
    if (w->ncomponents >= KARMADA_WORKLOAD_COMPONENTS_MAX)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ELIMIT,
                                     "the %s has more than muster's limit of %d pod templates",
                                     karmada_workload_kind_name(w->kind),
                                     KARMADA_WORKLOAD_COMPONENTS_MAX);
    if (!plain_name(name))
        return INVALID(w, "the %s's %s: the name must be at most %d printable characters",
                       karmada_workload_kind_name(w->kind), path, KARMADA_WORKLOAD_NAME_MAX);
    if (replicas > INT32_MAX)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ERANGE,
                                     "the %s's %s: more than %d pods",
                                     karmada_workload_kind_name(w->kind), path, INT32_MAX);
    if (!json_object_is_type(podspec, json_type_object))
        return INVALID(w, "the %s's %s: the pod template's spec is missing",
                       karmada_workload_kind_name(w->kind), path);
    for (uint32_t j = 0; j < w->ncomponents; j++)
        if (strcmp(w->components[j].name, name) == 0)
            return INVALID(w, "the %s's pod template name %.63s appears twice",
                           karmada_workload_kind_name(w->kind), name);
    struct karmada_workload_component *c = &w->components[w->ncomponents++];
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->replicas = (int32_t)replicas;
    queue_resvec_clear(&c->request);
    return karmada__workload_raise_to_pod(w, names, podspec, path, c);
}

/* ---- per kind ---- */

/* JobSet (kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go): each replicated job runs
 * replicas Jobs (default 1), each Job parallelism pods at once (default 1; its completions when
 * fewer, as the Job controller never runs more pods than remaining completions). */
static int read_jobset(struct karmada_workload *w, struct queue_resnames *names, json_object *spec)
{
    json_object *rjs = kube_json_get(spec, "replicatedJobs");
    if (!json_object_is_type(rjs, json_type_array) || json_object_array_length(rjs) == 0)
        return INVALID(w, "the JobSet has no spec.replicatedJobs: there is nothing to run");
    for (size_t i = 0; i < json_object_array_length(rjs); i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        char path[96];
        snprintf(path, sizeof(path), "spec.replicatedJobs[%zu]", i);
        if (!plain_name(kube_json_str(rj, "name")))
            return INVALID(w,
                           "the JobSet's %s.name: must be a name of at most %d printable "
                           "characters",
                           path, KARMADA_WORKLOAD_NAME_MAX);
        int32_t replicas, par, comp;
        json_object *js = kube_json_path(rj, "template", "spec", NULL);
        int rc = count_at(w, rj, "replicas", 1, 0, path, &replicas);
        char jpath[128];
        snprintf(jpath, sizeof(jpath), "%s.template.spec", path);
        if (!rc)
            rc = count_at(w, js, "parallelism", 1, 0, jpath, &par);
        if (!rc)
            rc = count_at(w, js, "completions", INT32_MAX, 0, jpath, &comp);
        if (rc)
            return rc;
        snprintf(path + strlen(path), sizeof(path) - strlen(path), ".template.spec.template.spec");
        rc = add(w, names, kube_json_str(rj, "name"), (int64_t)replicas * (comp < par ? comp : par),
                 kube_json_path(js, "template", "spec", NULL), path);
        if (rc)
            return rc;
    }
    return 0;
}

/* LeaderWorkerSet (kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go):
 * replicas groups (default 1) of size pods (default 1): a leader from leaderTemplate (the
 * workerTemplate when it has none) and size-1 workers. A group is the gang LWS starts as one. */
int karmada__jobset_copy_breaks(json_object *tmpl, int fewer, char *why, size_t cap)
{
    json_object *spec = kube_json_get(tmpl, "spec");
    json_object *sp = kube_json_get(spec, "successPolicy");
    json_object *rjs = kube_json_get(spec, "replicatedJobs");
    if (kube_json_get(spec, "coordinator")) {
        snprintf(why, cap,
                 "its spec.coordinator names one pod of the whole JobSet, which each copy %s",
                 fewer ? "at fewer Jobs may not hold (JobSet refuses a jobIndex past its Jobs)"
                       : "in a cluster would name again in itself");
        return 1;
    }
    const char *op = kube_json_str(sp, "operator");
    if (!fewer && op && strcmp(op, "Any") == 0) {
        snprintf(why, cap,
                 "its successPolicy operator Any ends the JobSet at the first Job to succeed, "
                 "which a copy in one cluster cannot do for the copies in the others");
        return 1;
    }
    json_object *targets = kube_json_get(sp, "targetReplicatedJobs");
    size_t nt = json_object_is_type(targets, json_type_array) ? json_object_array_length(targets)
                                                              : 0;
    if ((op && strcmp(op, "All") != 0) || nt == 0 || !json_object_is_type(rjs, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(rjs); i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        const char *nm = kube_json_str(rj, "name");
        json_object *r = kube_json_get(rj, "replicas");
        int targeted = 0;
        if (!nm || (r && json_object_get_int64(r) == 0))
            continue;
        for (size_t t = 0; t < nt && !targeted; t++) {
            const char *tn = json_object_get_string(json_object_array_get_idx(targets, t));
            targeted = tn && strcmp(tn, nm) == 0;
        }
        if (!targeted) {
            snprintf(why, cap,
                     "its successPolicy counts only the Jobs of targetReplicatedJobs, not "
                     "%.63s's: a copy %s without their Jobs would expect none and complete at "
                     "once, deleting its running Jobs",
                     nm, fewer ? "at fewer Jobs" : "in a cluster");
            return 1;
        }
    }
    return 0;
}

static int read_lws(struct karmada_workload *w, struct queue_resnames *names, json_object *spec)
{
    json_object *lwt = kube_json_get(spec, "leaderWorkerTemplate");
    int32_t replicas, size;
    int rc = count_at(w, spec, "replicas", 1, 0, "spec", &replicas);
    if (!rc)
        rc = count_at(w, lwt, "size", 1, 1, "spec.leaderWorkerTemplate", &size);
    if (rc)
        return rc;
    json_object *worker = kube_json_path(lwt, "workerTemplate", "spec", NULL);
    json_object *leader = kube_json_path(lwt, "leaderTemplate", "spec", NULL);
    rc = add(w, names, "leader", replicas, leader ? leader : worker,
             leader ? "spec.leaderWorkerTemplate.leaderTemplate.spec"
                    : "spec.leaderWorkerTemplate.workerTemplate.spec");
    if (!rc)
        rc = add(w, names, "worker", (int64_t)replicas * (size - 1), worker,
                 "spec.leaderWorkerTemplate.workerTemplate.spec");
    if (!rc && replicas > 1) {
        w->kind_min = size;
        w->kind_min_source = "spec.leaderWorkerTemplate.size (one leader+workers group)";
    }
    return rc;
}

/* Kubeflow v1 jobs (kubeflow/training-operator v1.9.0 pkg/apis/kubeflow.org/v1): a map of replica
 * types, read in the fixed order given (Karmada's PyTorchJob customization reads Master then
 * Worker); any other type is refused, as the operator's validation refuses it. */
static int read_replica_specs(struct karmada_workload *w, struct queue_resnames *names,
                              json_object *spec, const char *field, const char *const types[2],
                              const char *const cnames[2], const int32_t dflt[2])
{
    json_object *specs = kube_json_get(spec, field);
    if (!json_object_is_type(specs, json_type_object) || json_object_object_length(specs) == 0)
        return INVALID(w, "the %s has no spec.%s: there is nothing to run",
                       karmada_workload_kind_name(w->kind), field);
    json_object_object_foreach(specs, key, val)
    {
        (void)val;
        if (strcmp(key, types[0]) != 0 && strcmp(key, types[1]) != 0)
            return INVALID(w, "the %s's spec.%s.%.40s: the replica types are %s and %s",
                           karmada_workload_kind_name(w->kind), field, key, types[0], types[1]);
    }
    for (int t = 0; t < 2; t++) {
        json_object *rs = kube_json_get(specs, types[t]);
        if (!rs)
            continue;
        char path[96];
        int32_t replicas;
        snprintf(path, sizeof(path), "spec.%s.%s", field, types[t]);
        int rc = count_at(w, rs, "replicas", dflt[t], 0, path, &replicas);
        snprintf(path + strlen(path), sizeof(path) - strlen(path), ".template.spec");
        if (!rc)
            rc = add(w, names, cnames[t], replicas, kube_json_path(rs, "template", "spec", NULL),
                     path);
        if (rc)
            return rc;
    }
    return 0;
}

/* A Ray cluster spec (ray-project/kuberay ray-operator/apis/ray/v1/raycluster_types.go): one
 * head pod and, per worker group, replicas (default 0) × numOfHosts (default 1; a multi-host
 * replica is that many pods) workers. Names as Karmada's: "ray-head", the groupName, else
 * "worker-<i>" counting from 1. */
static int read_ray(struct karmada_workload *w, struct queue_resnames *names, json_object *cs,
                    const char *base)
{
    char path[128];
    snprintf(path, sizeof(path), "%s.headGroupSpec.template.spec", base);
    int rc = add(w, names, "ray-head", 1,
                 kube_json_path(cs, "headGroupSpec", "template", "spec", NULL), path);
    json_object *wgs = kube_json_get(cs, "workerGroupSpecs");
    if (!rc && wgs && !json_object_is_type(wgs, json_type_array))
        return INVALID(w, "the %s's %s.workerGroupSpecs: must be a list",
                       karmada_workload_kind_name(w->kind), base);
    for (size_t i = 0; !rc && wgs && i < json_object_array_length(wgs); i++) {
        json_object *g = json_object_array_get_idx(wgs, i);
        int32_t replicas, hosts;
        snprintf(path, sizeof(path), "%s.workerGroupSpecs[%zu]", base, i);
        rc = count_at(w, g, "replicas", 0, 0, path, &replicas);
        if (!rc)
            rc = count_at(w, g, "numOfHosts", 1, 1, path, &hosts);
        char fallback[32];
        snprintf(fallback, sizeof(fallback), "worker-%zu", i + 1);
        const char *gn = kube_json_str(g, "groupName");
        snprintf(path + strlen(path), sizeof(path) - strlen(path), ".template.spec");
        if (!rc)
            rc = add(w, names, gn && gn[0] ? gn : fallback, (int64_t)replicas * hosts,
                     kube_json_path(g, "template", "spec", NULL), path);
    }
    return rc;
}

/* spec.components of an RB Karmada interpreted (MultiplePodTemplatesScheduling): the same pod
 * templates by count and name, or the RB is older than its template; each component's request
 * counts too (Karmada's accuratePodRequirements adds what muster's read may not, e.g. overhead). */
static int pair_rb_components(struct karmada_workload *w, struct queue_resnames *names,
                              json_object *comps)
{
    size_t n = json_object_array_length(comps);
    const char *kn = karmada_workload_kind_name(w->kind);
    if (n != w->ncomponents)
        return INVALID(w,
                       "spec.components has %zu entries but the %s has %u pod templates; the "
                       "binding is stale and will be read again when Karmada refreshes it",
                       n, kn, w->ncomponents);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(comps, i);
        struct karmada_workload_component *c = NULL;
        const char *nm = kube_json_str(e, "name");
        for (uint32_t j = 0; nm && j < w->ncomponents && !c; j++)
            if (strcmp(w->components[j].name, nm) == 0)
                c = &w->components[j];
        if (!c)
            return INVALID(w,
                           "spec.components[%zu] (%.63s) is not a pod template of the %s; "
                           "the binding is stale",
                           i, nm ? nm : "no name", kn);
        json_object *req = kube_json_path(e, "replicaRequirements", "resourceRequest", NULL);
        if (!req)
            continue;
        struct queue_resvec *rv = &w->scratch[0];
        queue_resvec_clear(rv);
        char what[80];
        snprintf(what, sizeof(what), "spec.components[%zu].replicaRequirements.resourceRequest", i);
        int rc = kube_resvec_parse(names, req, what, rv, w->message, sizeof(w->message));
        if (rc) {
            w->reason = KARMADA_WORKLOAD_INVALID;
            return rc;
        }
        for (uint32_t k = 0; k < rv->len; k++)
            if (rv->items[k].milli > queue_resvec_get(&c->request, rv->items[k].id) &&
                queue_resvec_set(&c->request, rv->items[k].id, rv->items[k].milli))
                return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM,
                                             "out of memory");
    }
    return 0;
}

int karmada__workload_kinds_read(struct karmada_workload *w, struct queue_resnames *names,
                                 json_object *rb_spec, json_object *tmpl)
{
    json_object *spec = kube_json_get(tmpl, "spec");
    json_object *comps = kube_json_get(rb_spec, "components");
    if (comps && !json_object_is_type(comps, json_type_array))
        return INVALID(w, "spec.components: must be a list");
    if (!json_object_is_type(spec, json_type_object))
        return INVALID(w, "the %s has no spec", karmada_workload_kind_name(w->kind));
    static const char *const pt_types[2] = {"Master", "Worker"};
    static const char *const pt_names[2] = {"master", "worker"}; /* Karmada's */
    static const int32_t pt_dflt[2] = {1, 1};
    static const char *const mpi_types[2] = {"Launcher", "Worker"};
    static const int32_t mpi_dflt[2] = {1, 0}; /* SetDefaults_MPIJob */
    int rc;
    switch (w->kind) {
    case KARMADA_WORKLOAD_KIND_JOBSET:
        rc = read_jobset(w, names, spec);
        break;
    case KARMADA_WORKLOAD_KIND_LWS:
        rc = read_lws(w, names, spec);
        break;
    case KARMADA_WORKLOAD_KIND_PYTORCHJOB:
        rc = read_replica_specs(w, names, spec, "pytorchReplicaSpecs", pt_types, pt_names, pt_dflt);
        break;
    case KARMADA_WORKLOAD_KIND_MPIJOB:
        rc = read_replica_specs(w, names, spec, "mpiReplicaSpecs", mpi_types, mpi_types, mpi_dflt);
        break;
    case KARMADA_WORKLOAD_KIND_RAYCLUSTER:
        rc = read_ray(w, names, spec, "spec");
        break;
    case KARMADA_WORKLOAD_KIND_RAYJOB:
        if (!kube_json_get(spec, "rayClusterSpec"))
            return karmada_workload_fail(
                w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
                "a RayJob without spec.rayClusterSpec runs on a RayCluster that exists already "
                "(spec.clusterSelector): muster queues that RayCluster, not the job");
        rc = read_ray(w, names, kube_json_get(spec, "rayClusterSpec"), "spec.rayClusterSpec");
        break;
    default:
        return INVALID(w, "not a kind of workload_kinds.c");
    }
    if (!rc && comps && json_object_array_length(comps) > 0)
        rc = pair_rb_components(w, names, comps);
    return rc;
}

json_object *karmada__workload_kinds_priority_pod(const struct karmada_workload *w,
                                                  json_object *tmpl, const char **where)
{
    json_object *spec = kube_json_get(tmpl, "spec");
    switch (w->kind) {
    case KARMADA_WORKLOAD_KIND_JOBSET:
        *where = "the JobSet's spec.replicatedJobs[0].template.spec.template.spec."
                 "priorityClassName";
        return kube_json_path(json_object_array_get_idx(kube_json_get(spec, "replicatedJobs"), 0),
                              "template", "spec", "template", "spec", NULL);
    case KARMADA_WORKLOAD_KIND_LWS: {
        json_object *lwt = kube_json_get(spec, "leaderWorkerTemplate");
        if (kube_json_path(lwt, "leaderTemplate", "spec", NULL)) {
            *where = "the LeaderWorkerSet's leaderTemplate.spec.priorityClassName";
            return kube_json_path(lwt, "leaderTemplate", "spec", NULL);
        }
        *where = "the LeaderWorkerSet's workerTemplate.spec.priorityClassName";
        return kube_json_path(lwt, "workerTemplate", "spec", NULL);
    }
    case KARMADA_WORKLOAD_KIND_PYTORCHJOB:
    case KARMADA_WORKLOAD_KIND_MPIJOB: {
        json_object *specs =
            kube_json_get(spec, w->kind == KARMADA_WORKLOAD_KIND_MPIJOB ? "mpiReplicaSpecs"
                                                                        : "pytorchReplicaSpecs");
        const char *first = w->kind == KARMADA_WORKLOAD_KIND_MPIJOB ? "Launcher" : "Master";
        json_object *rs = kube_json_get(specs, first);
        if (!rs)
            rs = kube_json_get(specs, "Worker");
        *where = w->kind == KARMADA_WORKLOAD_KIND_MPIJOB
                     ? "the MPIJob's first replica type's template.spec.priorityClassName"
                     : "the PyTorchJob's first replica type's template.spec.priorityClassName";
        return kube_json_path(rs, "template", "spec", NULL);
    }
    case KARMADA_WORKLOAD_KIND_RAYCLUSTER:
        *where = "the RayCluster's spec.headGroupSpec.template.spec.priorityClassName";
        return kube_json_path(spec, "headGroupSpec", "template", "spec", NULL);
    case KARMADA_WORKLOAD_KIND_RAYJOB:
        *where = "the RayJob's spec.rayClusterSpec.headGroupSpec.template.spec.priorityClassName";
        return kube_json_path(spec, "rayClusterSpec", "headGroupSpec", "template", "spec", NULL);
    case KARMADA_WORKLOAD_KIND_TRAINJOB:
        /* the runtime's, as the JobSet Trainer builds from it carries it */
        *where = "the runtime's spec.template.spec.replicatedJobs[0].template.spec.template.spec."
                 "priorityClassName";
        return kube_json_path(
            json_object_array_get_idx(
                kube_json_path(w->runtime, "spec", "template", "spec", "replicatedJobs", NULL), 0),
            "template", "spec", "template", "spec", NULL);
    default:
        return NULL;
    }
}

/* For workload_trainjob.c, whose runtime is a JobSet template read as read_jobset reads one. */
int karmada__workload_kinds_count(struct karmada_workload *w, json_object *obj, const char *key,
                                  int32_t dflt, int positive, const char *path, int32_t *out)
{
    return count_at(w, obj, key, dflt, positive, path, out);
}

int karmada__workload_kinds_add(struct karmada_workload *w, struct queue_resnames *names,
                                const char *name, int64_t replicas, json_object *podspec,
                                const char *path)
{
    return add(w, names, name, replicas, podspec, path);
}

int karmada__workload_kinds_pair(struct karmada_workload *w, struct queue_resnames *names,
                                 json_object *rb_spec)
{
    json_object *comps = kube_json_get(rb_spec, "components");
    if (comps && !json_object_is_type(comps, json_type_array))
        return INVALID(w, "spec.components: must be a list");
    return comps && json_object_array_length(comps) > 0 ? pair_rb_components(w, names, comps) : 0;
}
