/* The static table of resources muster-sim serves, with their discovery facts copied from the
 * CRDs in tests/fixtures/reference/crds and from kube-apiserver's built-in types. */
#include "cluster-adapters/sim/resources.h"

#include "queue/errors.h"

#include <stdio.h>
#include <string.h>

/* Order matters only for discovery output, which lists groups in this order (kube-apiserver
 * lists the core group first, then built-in groups, then aggregated and CRD groups). */
/* One resource per entry reads better than one field per line. */
/* clang-format off */
static const struct sim_resource resources[] = {
    {"", "v1", "namespaces", "namespace", "Namespace", "NamespaceList", 0, 1, 0, {"ns"}, {NULL}, 0},
    {"", "v1", "events", "event", "Event", "EventList", 1, 0, 0, {"ev"}, {NULL}, 0},
    {"", "v1", "pods", "pod", "Pod", "PodList", 1, 1, 0, {"po"}, {"all"}, 0},
    /* What muster's deploy/ manifests hold, so `kubectl apply -k deploy/` succeeds against the
     * sim (tests/integration/deploy.sh). Stored and served; nothing acts on them. */
    {"", "v1", "secrets", "secret", "Secret", "SecretList", 1, 0, 0, {NULL}, {NULL}, 0},
    {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", "ServiceAccountList", 1, 0, 0,
     {"sa"}, {NULL}, 0},
    {"", "v1", "services", "service", "Service", "ServiceList", 1, 1, 0, {"svc"}, {"all"}, 0},
    {"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim",
     "PersistentVolumeClaimList", 1, 1, 0, {"pvc"}, {NULL}, 0},
    {"apps", "v1", "deployments", "deployment", "Deployment", "DeploymentList", 1, 1, 1,
     {"deploy"}, {"all"}, 1},
    {"apps", "v1", "statefulsets", "statefulset", "StatefulSet", "StatefulSetList", 1, 1, 1,
     {"sts"}, {"all"}, 1},
    {"batch", "v1", "jobs", "job", "Job", "JobList", 1, 1, 1, {NULL}, {"all"}, 0},
    {"rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole",
     "ClusterRoleList", 0, 0, 0, {NULL}, {NULL}, 0},
    {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding",
     "ClusterRoleBinding", "ClusterRoleBindingList", 0, 0, 0, {NULL}, {NULL}, 0},
    {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
     "mutatingwebhookconfiguration", "MutatingWebhookConfiguration",
     "MutatingWebhookConfigurationList", 0, 0, 1, {NULL}, {"api-extensions"}, 0},
    {"coordination.k8s.io", "v1", "leases", "lease", "Lease", "LeaseList", 1, 0, 0, {NULL},
     {NULL}, 0},
    {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass",
     "PriorityClassList", 0, 0, 0, {"pc"}, {NULL}, 0},
    {"cluster.karmada.io", "v1alpha1", "clusters", "cluster", "Cluster", "ClusterList", 0, 1, 1,
     {NULL}, {NULL}, 0},
    {"work.karmada.io", "v1alpha2", "resourcebindings", "resourcebinding", "ResourceBinding",
     "ResourceBindingList", 1, 1, 1, {"rb"}, {"karmada-io"}, 0},
    {"work.karmada.io", "v1alpha2", "clusterresourcebindings", "clusterresourcebinding",
     "ClusterResourceBinding", "ClusterResourceBindingList", 0, 1, 1, {"crb"}, {"karmada-io"}, 0},
    {"work.karmada.io", "v1alpha1", "works", "work", "Work", "WorkList", 1, 1, 1, {"wk"},
     {"karmada-io"}, 0},
    {"policy.karmada.io", "v1alpha1", "overridepolicies", "overridepolicy", "OverridePolicy",
     "OverridePolicyList", 1, 0, 1, {"op"}, {"karmada-io"}, 0},
    /* served for readers (musterd); the simulated binding controller applies OverridePolicies
     * only (docs/sim.md) */
    {"policy.karmada.io", "v1alpha1", "clusteroverridepolicies", "clusteroverridepolicy",
     "ClusterOverridePolicy", "ClusterOverridePolicyList", 0, 0, 1, {"cop"}, {"karmada-io"}, 0},
    {"policy.karmada.io", "v1alpha1", "propagationpolicies", "propagationpolicy",
     "PropagationPolicy", "PropagationPolicyList", 1, 0, 1, {"pp"}, {"karmada-io"}, 0},
    {"batch.volcano.sh", "v1alpha1", "jobs", "job", "Job", "JobList", 1, 1, 1, {"vcjob", "vj"},
     {NULL}, 0},
    /* Volcano's PodGroup CRD declares `subresources: {}`: status is written through the main
     * resource, so has_status is 0 here on purpose. */
    {"scheduling.volcano.sh", "v1beta1", "podgroups", "podgroup", "PodGroup", "PodGroupList", 1,
     0, 1, {"pg", "podgroup-v1beta1"}, {NULL}, 0},
    {"scheduling.volcano.sh", "v1beta1", "queues", "queue", "Queue", "QueueList", 0, 1, 1,
     {"q", "queue-v1beta1"}, {NULL}, 0},
    /* Volcano's HyperNode (config/crd/volcano/bases/topology.volcano.sh_hypernodes.yaml, since
     * v1.12.0: scope Cluster, status subresource, short name hn): a member serves it only with
     * `withGroups: [topology.volcano.sh]` in the scenario (karmada.c), so its Cluster's
     * apiEnablements say whether its Volcano has network topology. */
    {"topology.volcano.sh", "v1alpha1", "hypernodes", "hypernode", "HyperNode", "HyperNodeList", 0,
     1, 1, {"hn"}, {NULL}, 0},
    /* Issue 19's kinds, from their CRDs (tests/fixtures/reference/crds): served without the
     * /scale that LeaderWorkerSet and PyTorchJob declare (docs/sim.md). */
    {"jobset.x-k8s.io", "v1alpha2", "jobsets", "jobset", "JobSet", "JobSetList", 1, 1, 1, {NULL},
     {NULL}, 0},
    {"leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "leaderworkerset", "LeaderWorkerSet",
     "LeaderWorkerSetList", 1, 1, 1, {"lws"}, {NULL}, 0},
    {"kubeflow.org", "v1", "pytorchjobs", "pytorchjob", "PyTorchJob", "PyTorchJobList", 1, 1, 1,
     {NULL}, {NULL}, 0},
    {"kubeflow.org", "v1", "mpijobs", "mpijob", "MPIJob", "MPIJobList", 1, 1, 1, {NULL}, {NULL}, 0},
    {"ray.io", "v1", "rayclusters", "raycluster", "RayCluster", "RayClusterList", 1, 1, 1, {NULL},
     {"all"}, 0},
    {"ray.io", "v1", "rayjobs", "rayjob", "RayJob", "RayJobList", 1, 1, 1, {NULL}, {"all"}, 0},
    /* Kubeflow Trainer (tests/fixtures/reference/crds/kubeflow_trainer.kubeflow.org_*.yaml): the
     * TrainJob with its status subresource, the namespaced TrainingRuntime and the
     * cluster-scoped ClusterTrainingRuntime, neither with a status; no short names. */
    {"trainer.kubeflow.org", "v1alpha1", "trainjobs", "trainjob", "TrainJob", "TrainJobList", 1, 1,
     1, {NULL}, {NULL}, 0},
    {"trainer.kubeflow.org", "v1alpha1", "trainingruntimes", "trainingruntime", "TrainingRuntime",
     "TrainingRuntimeList", 1, 0, 1, {NULL}, {NULL}, 0},
    {"trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes", "clustertrainingruntime",
     "ClusterTrainingRuntime", "ClusterTrainingRuntimeList", 0, 0, 1, {NULL}, {NULL}, 0},
    /* The coscheduling (scheduler-plugins) PodGroup: `subresources: {status: {}}` in its CRD
     * (tests/fixtures/reference/crds/schedulerplugins_scheduling.x-k8s.io_podgroups.yaml); its
     * short name pg is Volcano's too, as on a real cluster with both CRDs. On the hub always; a
     * member serves it only with `coscheduling: true` or `withGroups` in the scenario. */
    {"scheduling.x-k8s.io", "v1alpha1", "podgroups", "podgroup", "PodGroup", "PodGroupList", 1, 1,
     1, {"pg", "pgs"}, {NULL}, 0},
    /* The Kubernetes Workload API behind the GenericWorkload gate: 1.37's v1beta1
     * (staging/src/k8s.io/api/scheduling/v1beta1/types.go) before 1.36's v1alpha2
     * (staging/src/k8s.io/api/scheduling/v1alpha2/types.go; removed in 1.37), in the order
     * kube-apiserver lists a group's versions; PodGroup with /status, Workload without;
     * built-in, so no short names. v1 stays the group's preferred version. A member or hub
     * serves one of them (karmada.c, hub.c): the sim keeps each version's objects apart, with
     * no conversion between them. */
    {"scheduling.k8s.io", "v1beta1", "podgroups", "podgroup", "PodGroup", "PodGroupList", 1, 1, 1,
     {NULL}, {NULL}, 0},
    {"scheduling.k8s.io", "v1beta1", "workloads", "workload", "Workload", "WorkloadList", 1, 0, 1,
     {NULL}, {NULL}, 0},
    {"scheduling.k8s.io", "v1alpha2", "podgroups", "podgroup", "PodGroup", "PodGroupList", 1, 1, 1,
     {NULL}, {NULL}, 0},
    {"scheduling.k8s.io", "v1alpha2", "workloads", "workload", "Workload", "WorkloadList", 1, 0, 1,
     {NULL}, {NULL}, 0},
};
/* clang-format on */

#define N_RESOURCES (sizeof(resources) / sizeof(resources[0]))
_Static_assert(N_RESOURCES <= 64, "sim_api_set has one bit per resource");

size_t sim_resource_count(void)
{
    return N_RESOURCES;
}

const struct sim_resource *sim_resource_at(size_t i)
{
    return i < N_RESOURCES ? &resources[i] : NULL;
}

size_t sim_resource_index(const struct sim_resource *r)
{
    return (size_t)(r - resources);
}

static int slice_eq(const char *s, size_t len, const char *z)
{
    return strlen(z) == len && memcmp(s, z, len) == 0;
}

const struct sim_resource *sim_resource_find(const char *group, size_t glen, const char *version,
                                             size_t vlen, const char *plural, size_t plen)
{
    for (size_t i = 0; i < N_RESOURCES; i++) {
        const struct sim_resource *r = &resources[i];
        if (slice_eq(group, glen, r->group) && slice_eq(version, vlen, r->version) &&
            slice_eq(plural, plen, r->plural))
            return r;
    }
    return NULL;
}

const struct sim_resource *sim_resource_by_kind(const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return NULL;
    const char *slash = strchr(api_version, '/');
    const char *group = slash ? api_version : "";
    size_t glen = slash ? (size_t)(slash - api_version) : 0;
    const char *version = slash ? slash + 1 : api_version;
    for (size_t i = 0; i < N_RESOURCES; i++) {
        const struct sim_resource *r = &resources[i];
        if (slice_eq(group, glen, r->group) && strcmp(version, r->version) == 0 &&
            strcmp(kind, r->kind) == 0)
            return r;
    }
    return NULL;
}

int sim_resource_api_version(const struct sim_resource *r, char *buf, size_t cap)
{
    int n = r->group[0] ? snprintf(buf, cap, "%s/%s", r->group, r->version)
                        : snprintf(buf, cap, "%s", r->version);
    return n < 0 || (size_t)n >= cap ? MUSTER_ENOSPC : 0;
}

int sim_api_has(sim_api_set s, const struct sim_resource *r)
{
    return r && (s >> sim_resource_index(r) & 1u) != 0;
}

sim_api_set sim_api_without(sim_api_set s, const char *group, const char *version,
                            const char *plural)
{
    for (size_t i = 0; i < N_RESOURCES; i++) {
        const struct sim_resource *r = &resources[i];
        if (strcmp(r->group, group) == 0 && (!version || strcmp(r->version, version) == 0) &&
            (!plural || strcmp(r->plural, plural) == 0))
            s &= ~((sim_api_set)1 << i);
    }
    return s;
}
