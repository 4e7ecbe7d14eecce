/* A TrainJob read as the Trainer controller builds its JobSet (see workload_trainjob.h). Every
 * rule below is kubeflow/trainer's, read at master 8c0f5059 (2026-08-21):
 *  - pkg/apis/trainer/v1alpha1/trainjob_types.go: spec.runtimeRef {name, apiGroup (default
 *    trainer.kubeflow.org), kind (default ClusterTrainingRuntime)}, spec.trainer.numNodes
 *    (minimum 0), spec.trainer.resourcesPerNode (a ResourceRequirements);
 *  - pkg/apis/trainer/v1alpha1/trainingruntime_types.go: spec.mlPolicy {numNodes, torch, mpi
 *    {runLauncherAsNode}, ...}, spec.template (a JobSet template);
 *  - pkg/runtime/core/trainingruntime.go newRuntimeInfo: each replicated job is a pod set of
 *    its Job's parallelism (default 1); the one labelled trainjob-ancestor-step=trainer counts
 *    mlPolicy.numNodes (default 1) when the runtime has an mlPolicy; resourcesPerNode is merged
 *    key by key into the requests and limits of its container named "node" (and into the
 *    "node" job's with MPI's runLauncherAsNode);
 *  - the plugins' EnforceMLPolicy (torch.go, jax.go, plainml.go, xgboost.go: the trainer pod
 *    set counts the TrainJob's numNodes; mpi.go: the pod set named "node" does, less one with
 *    runLauncherAsNode, at least 1);
 *  - plugins/jobset/jobset.go syncParallelCount: each Job's parallelism and completions are its
 *    pod set's count; plugins/jobset/builder.go: the initializer and trainer jobs run 1
 *    replica, the others their replicatedJobs[].replicas (default 1).
 * spec.runtimePatches change no count or request (their pod patches hold no resources), so
 * they are not read. */
#include "cluster-adapters/karmada/workload_trainjob.h"

#include "cluster-adapters/karmada/workload_kinds.h"
#include "cluster-adapters/kube/json.h"
#include "queue/errors.h"

#include <stdio.h>
#include <string.h>

#define INVALID(w, ...)                                                                            \
    karmada_workload_fail((w), KARMADA_WORKLOAD_INVALID, MUSTER_EINVAL, __VA_ARGS__)

/* A DNS subdomain, as the runtimes' names are (at most 253 lowercase letters, digits, '-', '.'). */
static int subdomain(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 253)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
              s[i] == '.'))
            return 0;
    return 1;
}

/* spec.runtimeRef, looked up through hub: *rt the runtime, *what "ClusterTrainingRuntime name"
 * for messages. */
static int lookup_runtime(struct karmada_workload *w, json_object *spec, json_object *tmpl,
                          const struct karmada_workload_hub *hub, json_object **rt, char *what,
                          size_t cap)
{
    json_object *ref = kube_json_get(spec, "runtimeRef");
    const char *name = kube_json_str(ref, "name");
    json_object *g = kube_json_get(ref, "apiGroup"), *k = kube_json_get(ref, "kind");
    const char *group = g ? json_object_get_string(g) : KARMADA_TRAINJOB_GROUP;
    const char *kind = k ? json_object_get_string(k) : "ClusterTrainingRuntime";
    if (!json_object_is_type(ref, json_type_object) || !subdomain(name))
        return INVALID(w, "the TrainJob's spec.runtimeRef.name: must name a runtime (a DNS "
                          "subdomain of at most 253 characters)");
    if ((g && !json_object_is_type(g, json_type_string)) || strcmp(group, KARMADA_TRAINJOB_GROUP))
        return INVALID(w,
                       "the TrainJob's spec.runtimeRef.apiGroup: must be " KARMADA_TRAINJOB_GROUP);
    int cluster = strcmp(kind, "ClusterTrainingRuntime") == 0;
    if ((k && !json_object_is_type(k, json_type_string)) ||
        (!cluster && strcmp(kind, "TrainingRuntime") != 0))
        return INVALID(w, "the TrainJob's spec.runtimeRef.kind: must be TrainingRuntime or "
                          "ClusterTrainingRuntime");
    snprintf(what, cap, "%s %.63s", kind, name);
    if (!hub || !hub->runtime)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
                                     "the TrainJob's pods are defined by its %s, which this read "
                                     "does not look up",
                                     what);
    /* a namespaced runtime is the TrainJob's namespace's (trainjob_types.go RuntimeRef) */
    const char *ns = cluster ? NULL : kube_json_path_str(tmpl, "metadata", "namespace", NULL);
    if (!cluster && !ns)
        return INVALID(w, "the TrainJob has no namespace to find its TrainingRuntime in");
    int served = 0;
    *rt = hub->runtime(hub->ud, cluster, ns, name, &served);
    if (!*rt)
        return karmada_workload_fail(
            w, KARMADA_WORKLOAD_REFUSED, MUSTER_EINVAL,
            "waiting for the %s%s%s that the TrainJob names (spec.runtimeRef) to be created on "
            "the hub%s: the TrainJob's pods are defined by it",
            what, ns ? " in namespace " : "", ns ? ns : "",
            served ? "" : " (the hub serves no " KARMADA_TRAINJOB_GROUP " runtimes of that kind)");
    return 0;
}

/* The container named "node" of podspec with resourcesPerNode's requests and limits merged in,
 * key by key (trainingruntime.go MergeResourceRequirements): a new pod spec in *out. */
static int merge_node(struct karmada_workload *w, json_object *podspec, json_object *rpn,
                      json_object **out)
{
    *out = NULL;
    json_object *ctrs = kube_json_get(podspec, "containers");
    json_object *node = NULL;
    for (size_t i = 0;
         json_object_is_type(ctrs, json_type_array) && !node && i < json_object_array_length(ctrs);
         i++) {
        const char *nm = kube_json_str(json_object_array_get_idx(ctrs, i), "name");
        if (nm && strcmp(nm, "node") == 0)
            node = json_object_array_get_idx(ctrs, i);
    }
    if (!node)
        return 0; /* nothing to merge into, as in the Trainer */
    json_object *copy = NULL;
    if (json_object_deep_copy(podspec, &copy, NULL) || !copy)
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    /* the same container in the copy: the first named node */
    json_object *cc = NULL;
    json_object *cctrs = kube_json_get(copy, "containers");
    for (size_t i = 0; !cc && i < json_object_array_length(cctrs); i++) {
        const char *nm = kube_json_str(json_object_array_get_idx(cctrs, i), "name");
        if (nm && strcmp(nm, "node") == 0)
            cc = json_object_array_get_idx(cctrs, i);
    }
    int bad = 0;
    json_object *res = kube_json_obj(cc, "resources");
    if (!res)
        res = kube_json_add_obj(cc, "resources", &bad);
    static const char *const kinds[2] = {"requests", "limits"};
    for (int k = 0; k < 2 && !bad; k++) {
        json_object *src = kube_json_get(rpn, kinds[k]);
        if (!src)
            continue;
        json_object *dst = kube_json_obj(res, kinds[k]);
        if (!dst)
            dst = kube_json_add_obj(res, kinds[k], &bad);
        json_object_object_foreach(src, key, val)
        {
            if (!bad)
                kube_json_add(dst, key, json_object_get(val), &bad);
        }
    }
    if (bad) {
        json_object_put(copy);
        return karmada_workload_fail(w, KARMADA_WORKLOAD_INVALID, MUSTER_ENOMEM, "out of memory");
    }
    *out = copy;
    return 0;
}

int karmada__workload_trainjob_read(struct karmada_workload *w, struct queue_resnames *names,
                                    json_object *rb_spec, json_object *tmpl,
                                    const struct karmada_workload_hub *hub)
{
    json_object *spec = kube_json_get(tmpl, "spec");
    if (!json_object_is_type(spec, json_type_object))
        return INVALID(w, "the TrainJob has no spec");
    json_object *trainer = kube_json_get(spec, "trainer");
    if (trainer && !json_object_is_type(trainer, json_type_object))
        return INVALID(w, "the TrainJob's spec.trainer: must be an object");
    int32_t nodes = -1; /* the TrainJob's numNodes; -1: unset */
    int rc = 0;
    if (kube_json_get(trainer, "numNodes"))
        rc = karmada__workload_kinds_count(w, trainer, "numNodes", 0, 0, "spec.trainer", &nodes);
    if (rc)
        return rc;
    json_object *rpn = kube_json_get(trainer, "resourcesPerNode");
    if (rpn && (!json_object_is_type(rpn, json_type_object) ||
                (kube_json_get(rpn, "requests") &&
                 !json_object_is_type(kube_json_get(rpn, "requests"), json_type_object)) ||
                (kube_json_get(rpn, "limits") &&
                 !json_object_is_type(kube_json_get(rpn, "limits"), json_type_object))))
        return INVALID(w, "the TrainJob's spec.trainer.resourcesPerNode: must be a "
                          "ResourceRequirements (requests and limits objects of quantities)");

    json_object *rt = NULL;
    char what[96];
    rc = lookup_runtime(w, spec, tmpl, hub, &rt, what, sizeof what);
    if (rc)
        return rc;
    w->runtime = json_object_get(rt);
    json_object *rtspec = kube_json_get(rt, "spec");
    json_object *ml = kube_json_get(rtspec, "mlPolicy");
    if (ml && !json_object_is_type(ml, json_type_object))
        return INVALID(w, "the TrainJob's %s: spec.mlPolicy must be an object", what);
    json_object *mpi = kube_json_get(ml, "mpi");
    json_object *lan = kube_json_get(mpi, "runLauncherAsNode");
    int launcher_as_node =
        json_object_is_type(lan, json_type_boolean) && json_object_get_boolean(lan);
    int32_t ml_nodes = 1;
    char path[160];
    snprintf(path, sizeof path, "%s spec.mlPolicy", what);
    if (ml)
        rc = karmada__workload_kinds_count(w, ml, "numNodes", 1, 0, path, &ml_nodes);
    if (rc)
        return rc;
    json_object *rjs = kube_json_path(rtspec, "template", "spec", "replicatedJobs", NULL);
    if (!json_object_is_type(rjs, json_type_array) || json_object_array_length(rjs) == 0)
        return INVALID(w,
                       "the TrainJob's %s has no spec.template.spec.replicatedJobs: there is "
                       "nothing to run",
                       what);
    int trainer_seen = 0, node_seen = 0;
    for (size_t i = 0; i < json_object_array_length(rjs); i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        const char *name = kube_json_str(rj, "name");
        const char *anc = kube_json_path_str(rj, "template", "metadata", "labels",
                                             KARMADA_TRAINJOB_ANCESTOR_LABEL, NULL);
        int is_trainer = anc && strcmp(anc, "trainer") == 0;
        int one_replica = is_trainer || (anc && (strcmp(anc, "dataset-initializer") == 0 ||
                                                 strcmp(anc, "model-initializer") == 0));
        json_object *js = kube_json_path(rj, "template", "spec", NULL);
        int32_t replicas = 1, count = 1;
        snprintf(path, sizeof path, "%s spec.template.spec.replicatedJobs[%zu]", what, i);
        rc = karmada__workload_kinds_count(w, rj, "replicas", 1, 0, path, &replicas);
        char jpath[200];
        snprintf(jpath, sizeof jpath, "%s.template.spec", path);
        if (!rc)
            rc = karmada__workload_kinds_count(w, js, "parallelism", 1, 0, jpath, &count);
        if (rc)
            return rc;
        if (one_replica)
            replicas = 1;
        if (is_trainer && ml)
            count = ml_nodes;
        if (nodes >= 0 && mpi && name && strcmp(name, "node") == 0 && !node_seen)
            count = launcher_as_node ? (nodes - 1 > 1 ? nodes - 1 : 1) : nodes;
        else if (nodes >= 0 && !mpi && is_trainer && !trainer_seen)
            count = nodes;
        node_seen |= name && strcmp(name, "node") == 0;
        trainer_seen |= is_trainer;
        json_object *pod = kube_json_path(js, "template", "spec", NULL), *merged = NULL;
        if (rpn &&
            ((is_trainer && ml) || (launcher_as_node && name && strcmp(name, "node") == 0))) {
            rc = merge_node(w, pod, rpn, &merged);
            if (rc)
                return rc;
        }
        snprintf(jpath, sizeof jpath, "%s.template.spec.template.spec", path);
        rc = karmada__workload_kinds_add(w, names, name, (int64_t)replicas * count,
                                         merged ? merged : pod, jpath);
        json_object_put(merged);
        if (rc)
            return rc;
    }
    return karmada__workload_kinds_pair(w, names, rb_spec);
}
