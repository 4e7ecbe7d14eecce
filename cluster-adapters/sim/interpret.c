/* Karmada's built-in resource interpreters as the simulated hub needs them: per-replica
 * requests of a pod template, the Volcano Job components, the pod sets of a workload. */
#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/interpret_kinds.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/rbstatus.h"
#include "cluster-adapters/sim/detector.h"
#include "cluster-adapters/sim/binding.h"

#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/quantity.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- pod requests and the Volcano Job interpreter ---- */

static void add_requests(json_object *sum, json_object *reqs, int take_max)
{
    json_object_object_foreach(reqs, name, v)
    {
        int64_t add = 0, have = 0;
        if (sim_qty_parse(json_object_get_string(v), &add) < 0)
            continue;
        json_object *cur = NULL;
        if (json_object_object_get_ex(sum, name, &cur))
            sim_qty_parse(json_object_get_string(cur), &have);
        int64_t next = take_max ? (add > have ? add : have) : have + add;
        char buf[40];
        sim_qty_format(next, buf, sizeof(buf));
        json_object_object_add(sum, name, json_object_new_string(buf));
    }
}

/* A container's requests; with limits_default, a resource it only limits counts at its limit,
 * as the member's API server defaults a missing request when it admits the pod. NULL when it
 * names none. New reference. */
static json_object *container_requests(json_object *ct, int limits_default)
{
    json_object *reqs = sim__get_path(ct, "resources", "requests", NULL);
    json_object *lims = limits_default ? sim__get_path(ct, "resources", "limits", NULL) : NULL;
    if (!json_object_is_type(lims, json_type_object) || !json_object_object_length(lims))
        return json_object_is_type(reqs, json_type_object) ? json_object_get(reqs) : NULL;
    json_object *out = NULL;
    if (json_object_is_type(reqs, json_type_object))
        json_object_deep_copy(reqs, &out, NULL);
    else
        out = json_object_new_object();
    json_object_object_foreach(lims, name, v)
    {
        if (!json_object_object_get_ex(out, name, NULL))
            json_object_object_add(out, name, json_object_get(v));
    }
    return out;
}

static json_object *pod_requests(json_object *pod_spec, int limits_default)
{
    json_object *sum = json_object_new_object();
    json_object *containers = sim__get_path(pod_spec, "containers", NULL, NULL);
    size_t n =
        json_object_is_type(containers, json_type_array) ? json_object_array_length(containers) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *reqs =
            container_requests(json_object_array_get_idx(containers, i), limits_default);
        if (reqs && n == 1) {
            json_object_put(sum);
            sum = NULL;
            json_object_deep_copy(reqs, &sum, NULL);
        } else if (reqs) {
            add_requests(sum, reqs, 0);
        }
        json_object_put(reqs);
    }
    json_object *inits = sim__get_path(pod_spec, "initContainers", NULL, NULL);
    for (size_t i = 0;
         json_object_is_type(inits, json_type_array) && i < json_object_array_length(inits); i++) {
        json_object *reqs = container_requests(json_object_array_get_idx(inits, i), limits_default);
        if (reqs)
            add_requests(sum, reqs, 1);
        json_object_put(reqs);
    }
    return sum;
}

json_object *sim_karmada_pod_requests(json_object *pod_spec)
{
    return pod_requests(pod_spec, 0);
}

json_object *sim_karmada_pod_effective_requests(json_object *pod_spec)
{
    return pod_requests(pod_spec, 1);
}

json_object *sim_karmada_vcjob_components(json_object *job)
{
    json_object *out = json_object_new_array();
    json_object *tasks = sim__get_path(job, "spec", "tasks", NULL);
    for (size_t i = 0;
         json_object_is_type(tasks, json_type_array) && i < json_object_array_length(tasks); i++) {
        json_object *t = json_object_array_get_idx(tasks, i);
        json_object *c = json_object_new_object();
        const char *name = sim__get_str(t, "name", NULL, NULL);
        char fallback[32];
        snprintf(fallback, sizeof(fallback), "task-%zu", i);
        json_object_object_add(c, "name", json_object_new_string(name ? name : fallback));
        json_object *min = sim__get_path(t, "minAvailable", NULL, NULL);
        json_object_object_add(c, "replicas",
                               json_object_new_int(min ? json_object_get_int(min) : 1));
        json_object *rr = json_object_new_object();
        json_object_object_add(
            rr, "resourceRequest",
            sim_karmada_pod_requests(sim__get_path(t, "template", "spec", NULL)));
        json_object_object_add(c, "replicaRequirements", rr);
        json_object_array_add(out, c);
    }
    return out;
}

/* The pod templates a workload runs: (replicas, pod spec) pairs; returns how many (<= max). */
size_t sim__workload_pods(struct sim_karmada *k, json_object *obj, struct pod_set *out, size_t max)
{
    const char *av = sim__get_str(obj, "apiVersion", NULL, NULL);
    const char *kind = sim__get_str(obj, "kind", NULL, NULL);
    if (!av || !kind)
        return 0;
    json_object *v;
    if (strcmp(av, "apps/v1") == 0 &&
        (strcmp(kind, "Deployment") == 0 || strcmp(kind, "StatefulSet") == 0)) {
        /* deployReplica, statefulSetReplica (default/native/replica.go); the apiserver
         * defaults a missing spec.replicas to 1 */
        v = sim__get_path(obj, "spec", "replicas", NULL);
        out[0].replicas = v ? json_object_get_int64(v) : 1;
        out[0].spec = sim__get_path(obj, "spec", "template", "spec");
        return 1;
    }
    if (strcmp(av, "batch/v1") == 0 && strcmp(kind, "Job") == 0) {
        v = sim__get_path(obj, "spec", "parallelism", NULL);
        out[0].replicas = v ? json_object_get_int64(v) : 1;
        out[0].spec = sim__get_path(obj, "spec", "template", "spec");
        return 1;
    }
    if (strcmp(av, "v1") == 0 && strcmp(kind, "Pod") == 0) {
        out[0].replicas = 1;
        out[0].spec = sim__get_path(obj, "spec", NULL, NULL);
        return 1;
    }
    if (strcmp(av, "batch.volcano.sh/v1alpha1") == 0 && strcmp(kind, "Job") == 0) {
        json_object *tasks = sim__get_path(obj, "spec", "tasks", NULL);
        size_t n = 0;
        for (size_t i = 0; json_object_is_type(tasks, json_type_array) &&
                           i < json_object_array_length(tasks) && n < max;
             i++) {
            json_object *t = json_object_array_get_idx(tasks, i);
            v = sim__get_path(t, "replicas", NULL, NULL);
            out[n].replicas = v ? json_object_get_int64(v) : 1;
            out[n].spec = sim__get_path(t, "template", "spec", NULL);
            n++;
        }
        return n;
    }
    return sim__kind19_pods(k, obj, out, max);
}

int sim__is_workload(const struct sim_resource *r)
{
    return (strcmp(r->group, "apps") == 0 && strcmp(r->plural, "deployments") == 0) ||
           (strcmp(r->group, "apps") == 0 && strcmp(r->plural, "statefulsets") == 0) ||
           (strcmp(r->group, "batch") == 0 && strcmp(r->plural, "jobs") == 0) ||
           (strcmp(r->group, "batch.volcano.sh") == 0 && strcmp(r->plural, "jobs") == 0) ||
           (r->group[0] == '\0' && strcmp(r->plural, "pods") == 0) ||
           /* issue 19's kinds (interpret_kinds.c) */
           strcmp(r->group, "jobset.x-k8s.io") == 0 ||
           strcmp(r->group, "leaderworkerset.x-k8s.io") == 0 ||
           (strcmp(r->group, "kubeflow.org") == 0 &&
            (strcmp(r->plural, "pytorchjobs") == 0 || strcmp(r->plural, "mpijobs") == 0)) ||
           (strcmp(r->group, "ray.io") == 0 &&
            (strcmp(r->plural, "rayclusters") == 0 || strcmp(r->plural, "rayjobs") == 0)) ||
           (strcmp(r->group, "trainer.kubeflow.org") == 0 && strcmp(r->plural, "trainjobs") == 0);
}
