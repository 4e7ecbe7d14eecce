/* Issue 19's kinds as the simulated hub runs and interprets them (see interpret_kinds.h). The
 * member runs the pods each project's controller would create; the components follow Karmada's
 * Lua in pkg/resourceinterpreter/default/thirdparty/resourcecustomizations/ (kubeflow.org/v1
 * PyTorchJob, ray.io/v1 RayCluster and RayJob), which differ from the controllers where the
 * docs say so (docs/workload.md, "Issue 19's kinds"). */
#include "cluster-adapters/sim/interpret_kinds.h"
#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/karmada.h"

#include <stdio.h>
#include <string.h>

enum k19 { K_NONE, K_JOBSET, K_LWS, K_PYTORCH, K_MPI, K_RAYCLUSTER, K_RAYJOB, K_TRAINJOB };

static enum k19 kind19(json_object *obj)
{
    const char *av = sim__get_str(obj, "apiVersion", NULL, NULL);
    const char *kind = sim__get_str(obj, "kind", NULL, NULL);
    if (!av || !kind)
        return K_NONE;
    static const struct {
        const char *av, *kind;
        enum k19 k;
    } t[] = {
        {"jobset.x-k8s.io/v1alpha2", "JobSet", K_JOBSET},
        {"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", K_LWS},
        {"kubeflow.org/v1", "PyTorchJob", K_PYTORCH},
        {"kubeflow.org/v1", "MPIJob", K_MPI},
        {"ray.io/v1", "RayCluster", K_RAYCLUSTER},
        {"ray.io/v1", "RayJob", K_RAYJOB},
        {"trainer.kubeflow.org/v1alpha1", "TrainJob", K_TRAINJOB},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strcmp(av, t[i].av) == 0 && strcmp(kind, t[i].kind) == 0)
            return t[i].k;
    return K_NONE;
}

int sim__is_kind19(json_object *obj)
{
    return kind19(obj) != K_NONE;
}

static int64_t int_or(json_object *o, const char *key, int64_t dflt)
{
    json_object *v = sim__get_path(o, key, NULL, NULL);
    return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : dflt;
}

/* One pod set; karmada selects Karmada's count where its Lua differs from the controller. */
struct set19 {
    char name[64];
    int64_t replicas;
    json_object *spec;
};

static size_t ray(json_object *cs, struct set19 *out, size_t max, int karmada)
{
    size_t n = 0;
    json_object *head = sim__get_path(cs, "headGroupSpec", "template", "spec");
    if (head && n < max)
        out[n++] = (struct set19){"ray-head", 1, head};
    json_object *wgs = sim__get_path(cs, "workerGroupSpecs", NULL, NULL);
    for (size_t i = 0;
         json_object_is_type(wgs, json_type_array) && i < json_object_array_length(wgs) && n < max;
         i++) {
        json_object *g = json_object_array_get_idx(wgs, i);
        struct set19 *s = &out[n++];
        const char *gn = sim__get_str(g, "groupName", NULL, NULL);
        if (gn && gn[0])
            snprintf(s->name, sizeof(s->name), "%s", gn);
        else
            snprintf(s->name, sizeof(s->name), "worker-%zu", i + 1);
        /* KubeRay runs numOfHosts pods per replica; Karmada's Lua counts replicas only */
        s->replicas = int_or(g, "replicas", 0) * (karmada ? 1 : int_or(g, "numOfHosts", 1));
        s->spec = sim__get_path(g, "template", "spec", NULL);
    }
    return n;
}

/* The container named "node" of the pod spec at *spec with resourcesPerNode merged into its
 * requests and limits key by key; the copy is kept in k's scratch until the next call. */
static void tj_merge(struct sim_karmada *k, json_object **spec, json_object *rpn)
{
    json_object *copy = NULL;
    if (json_object_deep_copy(*spec, &copy, NULL) || !copy)
        return;
    json_object_array_add(k->kind19_scratch, copy);
    *spec = copy;
    json_object *ctrs = sim__get_path(copy, "containers", NULL, NULL);
    for (size_t i = 0;
         json_object_is_type(ctrs, json_type_array) && i < json_object_array_length(ctrs); i++) {
        json_object *c = json_object_array_get_idx(ctrs, i);
        const char *nm = sim__get_str(c, "name", NULL, NULL);
        if (!nm || strcmp(nm, "node") != 0)
            continue;
        json_object *res = sim__get_path(c, "resources", NULL, NULL);
        if (!json_object_is_type(res, json_type_object)) {
            res = json_object_new_object();
            json_object_object_add(c, "resources", res);
        }
        static const char *const keys[2] = {"requests", "limits"};
        for (int r = 0; r < 2; r++) {
            json_object *src = sim__get_path(rpn, keys[r], NULL, NULL), *dst;
            if (!json_object_is_type(src, json_type_object))
                continue;
            dst = sim__get_path(res, keys[r], NULL, NULL);
            if (!json_object_is_type(dst, json_type_object)) {
                dst = json_object_new_object();
                json_object_object_add(res, keys[r], dst);
            }
            json_object_object_foreach(src, key, val)
            {
                json_object_object_add(dst, key, json_object_get(val));
            }
        }
        return;
    }
}

/* A TrainJob as Kubeflow Trainer builds its JobSet (kubeflow/trainer pkg/runtime/core/
 * trainingruntime.go newRuntimeInfo; plugins torch.go, plainml.go, mpi.go EnforceMLPolicy;
 * plugins/jobset/jobset.go syncParallelCount, builder.go): one pod set per replicated job of
 * the runtime it names, found on the hub (a simplification: the member's Trainer reads the
 * runtime Karmada propagated there, and the simulator reads the hub's). No runtime: no pods. */
static size_t trainjob(struct sim_karmada *k, json_object *obj, struct set19 *out, size_t max)
{
    if (!k)
        return 0;
    json_object *spec = sim__get_path(obj, "spec", NULL, NULL);
    const char *rk = sim__get_str(spec, "runtimeRef", "kind", NULL);
    const char *rn = sim__get_str(spec, "runtimeRef", "name", NULL);
    int cluster = !rk || strcmp(rk, "ClusterTrainingRuntime") == 0;
    const struct sim_resource *r = sim_resource_by_kind(
        "trainer.kubeflow.org/v1alpha1", cluster ? "ClusterTrainingRuntime" : "TrainingRuntime");
    json_object *rt = NULL;
    if (!rn || !r ||
        sim_store_get(k->store, r, cluster ? NULL : sim_meta_str(obj, "namespace"), rn, &rt, NULL))
        return 0;
    json_object_put(k->kind19_scratch);
    k->kind19_scratch = json_object_new_array();
    json_object_array_add(k->kind19_scratch, rt); /* the runtime lives as long as the sets */
    json_object *ml = sim__get_path(rt, "spec", "mlPolicy", NULL);
    json_object *mpi = sim__get_path(ml, "mpi", NULL, NULL);
    json_object *lan = sim__get_path(mpi, "runLauncherAsNode", NULL, NULL);
    int as_node = json_object_is_type(lan, json_type_boolean) && json_object_get_boolean(lan);
    json_object *trainer = sim__get_path(spec, "trainer", NULL, NULL);
    json_object *nn = sim__get_path(trainer, "numNodes", NULL, NULL);
    json_object *rpn = sim__get_path(trainer, "resourcesPerNode", NULL, NULL);
    json_object *rjs = sim__get_path(rt, "spec", "template", "spec");
    rjs = sim__get_path(rjs, "replicatedJobs", NULL, NULL);
    int trainer_seen = 0, node_seen = 0;
    size_t n = 0;
    for (size_t i = 0;
         json_object_is_type(rjs, json_type_array) && i < json_object_array_length(rjs) && n < max;
         i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        const char *nm = sim__get_str(rj, "name", NULL, NULL);
        json_object *labels = sim__get_path(rj, "template", "metadata", "labels");
        const char *anc =
            sim__get_str(labels, "trainer.kubeflow.org/trainjob-ancestor-step", NULL, NULL);
        int is_trainer = anc && strcmp(anc, "trainer") == 0;
        int is_node = nm && strcmp(nm, "node") == 0;
        json_object *js = sim__get_path(rj, "template", "spec", NULL);
        int64_t replicas = int_or(rj, "replicas", 1), count = int_or(js, "parallelism", 1);
        if (is_trainer || (anc && strstr(anc, "-initializer")))
            replicas = 1; /* builder.go Initializer, Trainer */
        if (is_trainer && ml)
            count = int_or(ml, "numNodes", 1);
        if (nn && mpi && is_node && !node_seen) {
            int64_t v = json_object_get_int64(nn);
            count = as_node ? (v - 1 > 1 ? v - 1 : 1) : v;
        } else if (nn && !mpi && is_trainer && !trainer_seen) {
            count = json_object_get_int64(nn);
        }
        trainer_seen |= is_trainer;
        node_seen |= is_node;
        struct set19 *s = &out[n++];
        snprintf(s->name, sizeof(s->name), "%s", nm ? nm : "");
        s->replicas = replicas * count;
        s->spec = sim__get_path(js, "template", "spec", NULL);
        if (rpn && s->spec && ((is_trainer && ml) || (as_node && is_node)))
            tj_merge(k, &s->spec, rpn);
    }
    return n;
}

static size_t sets19(struct sim_karmada *k, json_object *obj, struct set19 *out, size_t max,
                     int karmada)
{
    json_object *spec = sim__get_path(obj, "spec", NULL, NULL);
    size_t n = 0;
    switch (kind19(obj)) {
    case K_JOBSET: {
        json_object *rjs = sim__get_path(spec, "replicatedJobs", NULL, NULL);
        for (size_t i = 0; json_object_is_type(rjs, json_type_array) &&
                           i < json_object_array_length(rjs) && n < max;
             i++) {
            json_object *rj = json_object_array_get_idx(rjs, i);
            json_object *js = sim__get_path(rj, "template", "spec", NULL);
            int64_t par = int_or(js, "parallelism", 1), comp = int_or(js, "completions", par);
            struct set19 *s = &out[n++];
            const char *nm = sim__get_str(rj, "name", NULL, NULL);
            snprintf(s->name, sizeof(s->name), "%s", nm ? nm : "");
            s->replicas = int_or(rj, "replicas", 1) * (comp < par ? comp : par);
            s->spec = sim__get_path(js, "template", "spec", NULL);
        }
        return n;
    }
    case K_LWS: {
        json_object *lwt = sim__get_path(spec, "leaderWorkerTemplate", NULL, NULL);
        int64_t groups = int_or(spec, "replicas", 1), size = int_or(lwt, "size", 1);
        json_object *worker = sim__get_path(lwt, "workerTemplate", "spec", NULL);
        json_object *leader = sim__get_path(lwt, "leaderTemplate", "spec", NULL);
        if (max >= 1)
            out[n++] = (struct set19){"leader", groups, leader ? leader : worker};
        if (max >= 2 && size > 1)
            out[n++] = (struct set19){"worker", groups * (size - 1), worker};
        return n;
    }
    case K_PYTORCH:
    case K_MPI: {
        int mpi = kind19(obj) == K_MPI;
        json_object *specs =
            sim__get_path(spec, mpi ? "mpiReplicaSpecs" : "pytorchReplicaSpecs", NULL, NULL);
        static const char *const pt[2] = {"Master", "Worker"}, *const ptn[2] = {"master", "worker"};
        static const char *const mp[2] = {"Launcher", "Worker"};
        for (int t = 0; t < 2 && n < max; t++) {
            json_object *rs = sim__get_path(specs, mpi ? mp[t] : pt[t], NULL, NULL);
            if (!rs)
                continue;
            struct set19 *s = &out[n++];
            snprintf(s->name, sizeof(s->name), "%s", mpi ? mp[t] : ptn[t]);
            s->replicas = int_or(rs, "replicas", mpi && t == 1 ? 0 : 1);
            s->spec = sim__get_path(rs, "template", "spec", NULL);
        }
        return n;
    }
    case K_RAYCLUSTER:
        return ray(spec, out, max, karmada);
    case K_RAYJOB:
        return ray(sim__get_path(spec, "rayClusterSpec", NULL, NULL), out, max, karmada);
    case K_TRAINJOB:
        return trainjob(k, obj, out, max);
    default:
        return 0;
    }
}

size_t sim__kind19_pods(struct sim_karmada *k, json_object *obj, struct pod_set *out, size_t max)
{
    struct set19 s[16];
    size_t n = sets19(k, obj, s, max < 16 ? max : 16, 0), m = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].spec && s[i].replicas > 0)
            out[m++] = (struct pod_set){s[i].replicas, s[i].spec};
    return m;
}

json_object *sim__kind19_pod_meta(json_object *obj)
{
    json_object *spec = sim__get_path(obj, "spec", NULL, NULL);
    switch (kind19(obj)) {
    case K_JOBSET: {
        /* the first replicated job that runs pods: a split sets the others to 0 Jobs here */
        json_object *rjs = sim__get_path(spec, "replicatedJobs", NULL, NULL);
        for (size_t i = 0;
             json_object_is_type(rjs, json_type_array) && i < json_object_array_length(rjs); i++) {
            json_object *rj = json_object_array_get_idx(rjs, i);
            json_object *js = sim__get_path(rj, "template", "spec", NULL);
            if (int_or(rj, "replicas", 1) > 0 && int_or(js, "parallelism", 1) > 0 &&
                int_or(js, "completions", 1) > 0)
                return sim__get_path(js, "template", "metadata", NULL);
        }
        return NULL;
    }
    case K_LWS: {
        /* the leader's template, the workerTemplate when it has none (as LWS makes leaders) */
        json_object *lwt = sim__get_path(spec, "leaderWorkerTemplate", NULL, NULL);
        if (int_or(spec, "replicas", 1) <= 0)
            return NULL;
        json_object *leader = sim__get_path(lwt, "leaderTemplate", NULL, NULL);
        return sim__get_path(leader ? leader : sim__get_path(lwt, "workerTemplate", NULL, NULL),
                             "metadata", NULL, NULL);
    }
    default:
        return NULL;
    }
}

json_object *sim__kind19_components(json_object *obj)
{
    enum k19 k = kind19(obj);
    if (k != K_PYTORCH && k != K_RAYCLUSTER && k != K_RAYJOB)
        return NULL;
    struct set19 s[16];
    size_t n = sets19(NULL, obj, s, 16, 1);
    json_object *out = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_new_object();
        json_object_object_add(c, "name", json_object_new_string(s[i].name));
        json_object_object_add(c, "replicas", json_object_new_int64(s[i].replicas));
        if (s[i].spec) {
            json_object *rr = json_object_new_object();
            json_object_object_add(rr, "resourceRequest", sim_karmada_pod_requests(s[i].spec));
            json_object_object_add(c, "replicaRequirements", rr);
        }
        json_object_array_add(out, c);
    }
    return out;
}

static void add_cond(json_object *conds, const char *type, const char *ts)
{
    json_object *c = json_object_new_object();
    json_object_object_add(c, "type", json_object_new_string(type));
    json_object_object_add(c, "status", json_object_new_string("True"));
    if (ts)
        json_object_object_add(c, "lastTransitionTime", json_object_new_string(ts));
    json_object_array_add(conds, c);
}

int sim__kind19_status(json_object *obj, json_object *st, int all_running, int done, const char *ts)
{
    enum k19 k = kind19(obj);
    if (k == K_NONE)
        return 0;
    json_object *conds = json_object_new_array();
    switch (k) {
    case K_JOBSET: /* jobset_types.go JobSetCompleted */
        if (done)
            add_cond(conds, "Completed", ts);
        break;
    case K_TRAINJOB: /* trainer trainjob_types.go TrainJobComplete */
        if (done)
            add_cond(conds, "Complete", ts);
        break;
    case K_PYTORCH:
    case K_MPI: /* training-operator common_types.go: Created, Running, Succeeded */
        add_cond(conds, "Created", ts);
        if (done)
            add_cond(conds, "Succeeded", ts);
        else if (all_running)
            add_cond(conds, "Running", ts);
        break;
    case K_RAYCLUSTER:
        if (all_running) {
            add_cond(conds, "HeadPodReady", ts);
            add_cond(conds, "RayClusterProvisioned", ts);
            json_object_object_add(st, "state", json_object_new_string("ready"));
        }
        break;
    case K_RAYJOB: /* rayjob_types.go JobDeploymentStatus and JobStatus */
        json_object_object_add(st, "jobDeploymentStatus",
                               json_object_new_string(done          ? "Complete"
                                                      : all_running ? "Running"
                                                                    : "Initializing"));
        json_object_object_add(st, "jobStatus",
                               json_object_new_string(done          ? "SUCCEEDED"
                                                      : all_running ? "RUNNING"
                                                                    : "PENDING"));
        break;
    case K_LWS: {
        int64_t groups = int_or(sim__get_path(obj, "spec", NULL, NULL), "replicas", 1);
        json_object_object_add(st, "replicas", json_object_new_int64(groups));
        json_object_object_add(st, "readyReplicas",
                               json_object_new_int64(all_running ? groups : 0));
        break;
    }
    default:
        break;
    }
    if (json_object_array_length(conds))
        json_object_object_add(st, "conditions", conds);
    else
        json_object_put(conds);
    return 1;
}

static int has_cond(json_object *st, const char *type)
{
    json_object *conds = sim__get_path(st, "conditions", NULL, NULL);
    for (size_t i = 0;
         json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = sim__get_str(c, "type", NULL, NULL),
                   *v = sim__get_str(c, "status", NULL, NULL);
        if (t && v && strcmp(t, type) == 0 && strcmp(v, "True") == 0)
            return 1;
    }
    return 0;
}

const char *sim__kind19_health(json_object *obj, json_object *st)
{
    int ok;
    switch (kind19(obj)) {
    case K_NONE:
        return NULL;
    case K_PYTORCH: /* kubeflow.org/v1/PyTorchJob InterpretHealth */
        ok = sim__get_path(st, "conditions", NULL, NULL) && !has_cond(st, "Failed");
        break;
    case K_RAYCLUSTER: /* ray.io/v1/RayCluster InterpretHealth */
        ok = has_cond(st, "HeadPodReady") && has_cond(st, "RayClusterProvisioned") &&
             !has_cond(st, "RayClusterReplicaFailure");
        break;
    case K_RAYJOB: { /* ray.io/v1/RayJob InterpretHealth */
        const char *d = sim__get_str(st, "jobDeploymentStatus", NULL, NULL);
        const char *j = sim__get_str(st, "jobStatus", NULL, NULL);
        ok = (d && strcmp(d, "Running") == 0) ||
             (d && j && strcmp(d, "Complete") == 0 && strcmp(j, "SUCCEEDED") == 0);
        break;
    }
    default: /* no healthInterpretation: treated as healthy */
        ok = 1;
        break;
    }
    return ok ? "Healthy" : "Unhealthy";
}
