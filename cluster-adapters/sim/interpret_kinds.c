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

enum k19 { K_NONE, K_JOBSET, K_LWS, K_PYTORCH, K_MPI, K_RAYCLUSTER, K_RAYJOB };

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

static size_t sets19(json_object *obj, struct set19 *out, size_t max, int karmada)
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
    default:
        return 0;
    }
}

size_t sim__kind19_pods(json_object *obj, struct pod_set *out, size_t max)
{
    struct set19 s[16];
    size_t n = sets19(obj, s, max < 16 ? max : 16, 0), k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].spec && s[i].replicas > 0)
            out[k++] = (struct pod_set){s[i].replicas, s[i].spec};
    return k;
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
    size_t n = sets19(obj, s, 16, 1);
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
