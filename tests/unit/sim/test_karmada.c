/* Tests for the simulated Karmada as a whole (karmada.c and the controllers beside it): Karmada's
 * Volcano Job vectors, cluster status from simulated nodes, the detector, the binding and
 * execution controllers and the member's placement, through a real store. The files
 * test_detector.c, test_binding.c, test_execution.c, test_rbstatus.c, test_taint.c and
 * test_webhook_call.c check each controller's fidelity to Karmada (docs/sim.md). */
#include "cluster-adapters/kube/yaml.h"
#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/scenario.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "testing.h"

#include <string.h>

static time_t clock_value = 1790000000;

static time_t fixed_now(void)
{
    return clock_value;
}

static const struct sim_resource *R(const char *group, const char *version, const char *plural)
{
    return sim_resource_find(group, strlen(group), version, strlen(version), plural,
                             strlen(plural));
}

/* Cuts s at the first sep and returns what follows (NULL at the end): strtok without state. */
static char *next_seg(char *s, char sep)
{
    char *p = strchr(s, sep);
    if (!p)
        return NULL;
    *p = '\0';
    return p + 1;
}

/* The JSON text at a path of segments separated by '|' (so keys may contain dots), "" when
 * absent. Strings come back unquoted. */
static const char *at(json_object *o, const char *path)
{
    static char out[2048];
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", path);
    json_object *cur = o;
    char *rest = NULL;
    for (char *seg = buf; seg && cur; seg = rest) {
        rest = next_seg(seg, '|');
        json_object *next = NULL;
        if (json_object_is_type(cur, json_type_array))
            next = json_object_array_get_idx(cur, (size_t)strtol(seg, NULL, 10));
        else if (!json_object_object_get_ex(cur, seg, &next))
            next = NULL;
        cur = next;
    }
    if (!cur)
        return "";
    snprintf(out, sizeof(out), "%s",
             json_object_is_type(cur, json_type_string)
                 ? json_object_get_string(cur)
                 : json_object_to_json_string_ext(cur, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
    return out;
}

/* Karmada's replicaRequirements read requests only; the member's API server defaults a request
 * a container leaves out to its limit, so the member places limits-only GPU pods by their
 * limits. */
static void test_pod_requests_and_limits(void)
{
    json_object *spec = json_tokener_parse(
        "{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\"},"
        "\"limits\":{\"cpu\":\"2\",\"nvidia.com/gpu\":\"8\"}}},{\"name\":\"b\",\"resources\":{"
        "\"limits\":{\"memory\":\"1Gi\"}}}],\"initContainers\":[{\"name\":\"i\","
        "\"resources\":{\"limits\":{\"cpu\":\"4\"}}}]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(spec);
    json_object *r = sim_karmada_pod_requests(spec), *e = sim_karmada_pod_effective_requests(spec);
    CU_ASSERT_STRING_EQUAL(at(r, "cpu"), "1");
    CU_ASSERT_STRING_EQUAL(at(r, "nvidia.com/gpu"), "");
    CU_ASSERT_STRING_EQUAL(at(r, "memory"), "");
    /* a's cpu request stands (its limit does not raise it); its GPUs and b's memory count at
     * their limits; the init container's 4 cpu limit is the largest cpu need */
    CU_ASSERT_STRING_EQUAL(at(e, "cpu"), "4");
    CU_ASSERT_STRING_EQUAL(at(e, "nvidia.com/gpu"), "8");
    CU_ASSERT_STRING_EQUAL(at(e, "memory"), "1Gi");
    json_object_put(r);
    json_object_put(e);
    json_object_put(spec);
}

static void test_vcjob_vectors(void)
{
    char path[1024];
    const char *src = getenv("MUSTER_SOURCE_DIR");
    snprintf(path, sizeof(path),
             "%s/tests/fixtures/reference/examples/karmada_vcjob_interpretcomponent-test.yaml",
             src ? src : ".");
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char yaml[65536];
    size_t n = fread(yaml, 1, sizeof(yaml), f);
    fclose(f);
    json_object *docs = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(kube_yaml_parse(yaml, n, path, &docs, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(json_object_array_length(docs), 5);
    for (size_t i = 0; i < json_object_array_length(docs); i++) {
        json_object *d = json_object_array_get_idx(docs, i);
        json_object *obj = json_object_object_get(d, "observedObj");
        json_object *want =
            json_object_object_get(json_object_object_get(d, "output"), "components");
        json_object *got = sim_karmada_vcjob_components(obj);
        if (!json_object_equal(got, want))
            fprintf(stderr, "%s: got %s\n", at(d, "name"), json_object_to_json_string(got));
        CU_ASSERT(json_object_equal(got, want));
        json_object_put(got);
    }
    json_object_put(docs);
}

static const char scenario_yaml[] =
    "clusters:\n"
    "  - name: c1\n"
    "    labels: {zone: a}\n"
    "    nodes:\n"
    "      - count: 2\n"
    "        allocatable: {cpu: \"8\", memory: 32Gi, pods: \"10\", nvidia.com/gpu: \"2\"}\n"
    "  - name: c2\n"
    "    ready: false\n"
    "    nodes:\n"
    "      - allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec:\n"
    "      schedulerName: muster\n"
    "      resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n"
    "      placement: {clusterAffinity: {clusterNames: [c1, c2]}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: OverridePolicy\n"
    "    metadata: {name: op, namespace: team}\n"
    "    spec:\n"
    "      resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n"
    "      overrideRules:\n"
    "        - targetCluster: {clusterNames: [c1]}\n"
    "          overriders:\n"
    "            plaintext:\n"
    "              - {path: /spec/template/metadata/annotations, operator: add,\n"
    "                 value: {scheduling.k8s.io/group-name: web-c1}}\n"
    "              - {path: /spec/template/spec/schedulerName, operator: add, value: volcano}\n";

static const char deploy_json[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
    "\"spec\":{\"replicas\":3,\"template\":{\"metadata\":{},\"spec\":{\"containers\":["
    "{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"3\",\"nvidia.com/gpu\":\"1\"}}},"
    "{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}}}";

static json_object *get(struct sim_store *s, const struct sim_resource *r, const char *ns,
                        const char *name)
{
    json_object *o = NULL;
    if (sim_store_get(s, r, ns, name, &o, NULL) < 0)
        return NULL;
    return o;
}

static void patch_rb(struct sim_store *s, const char *merge)
{
    /* What muster's client does: read, merge, write back. */
    const struct sim_resource *rb = R("work.karmada.io", "v1alpha2", "resourcebindings");
    json_object *cur = get(s, rb, "team", "web-deployment");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
    json_object *copy = NULL, *p = json_tokener_parse(merge);
    json_object_deep_copy(cur, &copy, NULL);
    json_object_object_foreach(p, key, v)
    {
        json_object *dst = json_object_object_get(copy, key);
        json_object_object_foreach(v, k2, v2)
        {
            if (json_object_is_type(v2, json_type_null))
                json_object_object_del(dst, k2);
            else
                json_object_object_add(dst, k2, json_object_get(v2));
        }
    }
    CU_ASSERT_EQUAL(sim_store_update(s, rb, "team", "web-deployment", copy, 0, NULL, NULL), 0);
    json_object_put(copy);
    json_object_put(p);
    json_object_put(cur);
}

static int count_works(struct sim_store *s, const char *ns)
{
    json_object *list = NULL;
    sim_store_list(s, R("work.karmada.io", "v1alpha1", "works"), ns, NULL, &list, NULL);
    int n = (int)json_object_array_length(json_object_object_get(list, "items"));
    json_object_put(list);
    return n;
}

static void test_clusters_detector_binding(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10000, &s), 0);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(
        sim_scenario_parse("t.yaml", scenario_yaml, strlen(scenario_yaml), &scn, err, sizeof(err)),
        0);
    struct sim_karmada *k = NULL;
    int rc = sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err));
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_object_put(scn);

    const struct sim_resource *cl = R("cluster.karmada.io", "v1alpha1", "clusters");
    json_object *c1 = get(s, cl, NULL, "c1");
    CU_ASSERT_STRING_EQUAL(
        at(c1, "status|resourceSummary|allocatable"),
        "{\"cpu\":\"16\",\"memory\":\"64Gi\",\"pods\":\"20\",\"nvidia.com/gpu\":\"4\"}");
    /* CompleteAPIEnablements first, Ready after it (syncClusterStatus's order). */
    CU_ASSERT_STRING_EQUAL(at(c1, "status|conditions|0|type"), "CompleteAPIEnablements");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|conditions|1|type"), "Ready");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|conditions|1|status"), "True");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|conditions|1|reason"), "ClusterReady");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|conditions|1|lastTransitionTime"),
                           "2026-09-21T14:13:20Z");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|nodeSummary"), "{\"totalNum\":2,\"readyNum\":2}");
    /* 8 cpu / 32Gi per node: cpu grade 4 ([8,16)), memory grade 3 ([32Gi,64Gi)) -> 3. */
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocatableModelings|3"),
                           "{\"grade\":3,\"count\":2}");
    CU_ASSERT_STRING_EQUAL(at(c1, "spec|resourceModels|8|ranges|1"),
                           "{\"name\":\"memory\",\"min\":\"1Ti\",\"max\":\"9223372036854775807\"}");
    CU_ASSERT_STRING_EQUAL(at(c1, "metadata|labels|zone"), "a");
    json_object_put(c1);
    json_object *c2 = get(s, cl, NULL, "c2");
    CU_ASSERT_STRING_EQUAL(at(c2, "status|conditions|0|status"), "False");
    CU_ASSERT_STRING_EQUAL(at(c2, "status|conditions|0|reason"), "ClusterNotReachable");
    json_object_put(c2);
    const struct sim_resource *nsr = R("", "v1", "namespaces");
    json_object *wns = get(s, nsr, NULL, "karmada-es-c1");
    CU_ASSERT_PTR_NOT_NULL(wns);
    json_object_put(wns);

    /* Detector: the Deployment becomes a held RB. */
    const struct sim_resource *dep = R("apps", "v1", "deployments");
    json_object *d = json_tokener_parse(deploy_json), *created = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_create(s, dep, "team", d, fixed_now(), 0, &created, NULL), 0);
    json_object_put(d);
    const struct sim_resource *rbr = R("work.karmada.io", "v1alpha2", "resourcebindings");
    json_object *rb = get(s, rbr, "team", "web-deployment");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|resource|apiVersion"), "apps/v1");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|resource|kind"), "Deployment");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|resource|namespace"), "team");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|resource|name"), "web");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|resource|uid"), at(created, "metadata|uid"));
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|resource|resourceVersion"),
                           at(created, "metadata|resourceVersion"));
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|replicas"), "3");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|replicaRequirements|resourceRequest"),
                           "{\"cpu\":\"4\",\"nvidia.com/gpu\":\"1\"}");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|schedulerName"), "muster");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|suspension"), "{\"scheduling\":true}");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|placement|clusterAffinity|clusterNames"),
                           "[\"c1\",\"c2\"]");
    CU_ASSERT_STRING_EQUAL(at(rb, "metadata|ownerReferences|0|kind"), "Deployment");
    CU_ASSERT_STRING_EQUAL(at(rb, "metadata|ownerReferences|0|controller"), "true");
    CU_ASSERT_STRING_EQUAL(at(rb, "metadata|ownerReferences|0|uid"), at(created, "metadata|uid"));
    char pid[64];
    snprintf(pid, sizeof(pid), "%s",
             at(rb, "metadata|labels|resourcebinding.karmada.io/permanent-id"));
    CU_ASSERT_EQUAL(strlen(pid), 36);
    json_object_put(rb);
    json_object_put(created);
    CU_ASSERT_EQUAL(count_works(s, NULL), 0);

    /* Step 2 of muster's commit protocol: clusters set, dispatching suspended -> Works exist
     * but nothing runs. */
    patch_rb(s, "{\"spec\":{\"clusters\":[{\"name\":\"c1\",\"replicas\":3}],"
                "\"suspension\":{\"scheduling\":true,\"dispatching\":true}}}");
    CU_ASSERT_EQUAL(count_works(s, "karmada-es-c1"), 1);
    json_object *wl = NULL;
    sim_store_list(s, R("work.karmada.io", "v1alpha1", "works"), "karmada-es-c1", NULL, &wl, NULL);
    json_object *work = json_object_array_get_idx(json_object_object_get(wl, "items"), 0);
    CU_ASSERT_STRING_EQUAL(at(work, "spec|suspendDispatching"), "true");
    CU_ASSERT_STRING_EQUAL(at(work, "metadata|labels|resourcebinding.karmada.io/permanent-id"),
                           pid);
    CU_ASSERT_STRING_EQUAL(at(work, "metadata|annotations|resourcebinding.karmada.io/name"),
                           "web-deployment");
    CU_ASSERT_STRING_EQUAL(at(work, "spec|workload|manifests|0|spec|replicas"), "3");
    CU_ASSERT_STRING_EQUAL(at(work, "spec|workload|manifests|0|metadata|uid"), "");
    /* The OverridePolicy's plaintext overrider for c1. */
    CU_ASSERT_STRING_EQUAL(at(work, "spec|workload|manifests|0|spec|template|metadata|annotations|"
                                    "scheduling.k8s.io/group-name"),
                           "web-c1");
    char work_name[128];
    snprintf(work_name, sizeof(work_name), "%s", at(work, "metadata|name"));
    json_object_put(wl);
    c1 = get(s, cl, NULL, "c1");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocated|cpu"), "0");
    json_object_put(c1);

    /* muster's own PodGroup Work for c1 (the group the overrider names), shaped as
     * CreateOrUpdateWork shapes Works (contract-15: muster's label, not the permanent id) and,
     * here, still held. */
    const struct sim_resource *wr = R("work.karmada.io", "v1alpha1", "works");
    char pg[1024];
    snprintf(pg, sizeof(pg),
             "{\"metadata\":{\"name\":\"web-pg\",\"finalizers\":[\"karmada.io/"
             "execution-controller\"],\"labels\":{\"scheduling.muster.io/binding-uid\":\"u\"}},"
             "\"spec\":{\"suspendDispatching\":true,\"workload\":{"
             "\"manifests\":[{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":"
             "\"PodGroup\",\"metadata\":{\"name\":\"web-c1\",\"namespace\":\"team\","
             "\"labels\":{\"karmada.io/managed\":\"true\"},\"annotations\":{\"work.karmada.io/"
             "name\":\"web-pg\",\"work.karmada.io/namespace\":\"karmada-es-c1\"}},"
             "\"spec\":{\"minMember\":3}}]}}}");
    json_object *pgw = json_tokener_parse(pg);
    CU_ASSERT_EQUAL(sim_store_create(s, wr, "karmada-es-c1", pgw, fixed_now(), 0, NULL, NULL), 0);

    /* Step 4: the RB's dispatching released first -> its pods name a PodGroup the member does
     * not have yet, so they stay Pending. */
    patch_rb(s, "{\"spec\":{\"suspension\":{\"scheduling\":false,\"dispatching\":null}}}");
    c1 = get(s, cl, NULL, "c1");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocated|cpu"), "0");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocating|pods"), "3");
    json_object_put(c1);
    rb = get(s, rbr, "team", "web-deployment");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|clusterName"), "c1");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|health"), "Unhealthy");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|status|readyReplicas"), "0");
    json_object_put(rb);

    /* The PodGroup Work released: the gang of three starts, placed node by node. */
    json_object_object_add(json_object_object_get(pgw, "spec"), "suspendDispatching",
                           json_object_new_boolean(0));
    CU_ASSERT_EQUAL(sim_store_update(s, wr, "karmada-es-c1", "web-pg", pgw, 0, NULL, NULL), 0);
    json_object_put(pgw);
    c1 = get(s, cl, NULL, "c1");
    CU_ASSERT_STRING_EQUAL(
        at(c1, "status|resourceSummary|allocated"),
        "{\"cpu\":\"12\",\"memory\":\"0\",\"pods\":\"3\",\"nvidia.com/gpu\":\"3\"}");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocating|cpu"), "0");
    /* Node 0 is full (free cpu 0 -> grade 0), node 1 has 4 cpu and 32Gi free -> grade 3. */
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocatableModelings|0|count"), "1");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocatableModelings|3|count"), "1");
    json_object_put(c1);
    /* The member reports through the Work and Karmada aggregates into the RB. */
    json_object *wk = get(s, wr, "karmada-es-c1", work_name);
    CU_ASSERT_STRING_EQUAL(at(wk, "status|conditions|1|type"), "Applied");
    CU_ASSERT_STRING_EQUAL(at(wk, "status|manifestStatuses|0|identifier|kind"), "Deployment");
    CU_ASSERT_STRING_EQUAL(at(wk, "status|manifestStatuses|0|identifier|resource"), "deployments");
    CU_ASSERT_STRING_EQUAL(at(wk, "status|manifestStatuses|0|status|availableReplicas"), "3");
    CU_ASSERT_STRING_EQUAL(at(wk, "status|manifestStatuses|0|health"), "Healthy");
    json_object_put(wk);
    /* muster's PodGroup Work reports the gang running. */
    json_object *pgwk = get(s, wr, "karmada-es-c1", "web-pg");
    CU_ASSERT_STRING_EQUAL(at(pgwk, "status|manifestStatuses|0|identifier|kind"), "PodGroup");
    CU_ASSERT_STRING_EQUAL(at(pgwk, "status|manifestStatuses|0|status"),
                           "{\"phase\":\"Running\",\"running\":3}");
    CU_ASSERT_STRING_EQUAL(at(pgwk, "status|manifestStatuses|0|health"), "Healthy");
    json_object_put(pgwk);
    rb = get(s, rbr, "team", "web-deployment");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|health"), "Healthy");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|applied"), "true");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|status|readyReplicas"), "3");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|conditions|0|type"), "FullyApplied");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|conditions|0|status"), "True");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|conditions|0|reason"), "FullyAppliedSuccess");
    /* Two spec patches so far; the status writes in between never bumped it. */
    CU_ASSERT_STRING_EQUAL(at(rb, "metadata|generation"), "3");
    json_object_put(rb);

    /* Five replicas: four fit (two per node by gpu), one is Pending -> allocating. */
    patch_rb(s, "{\"spec\":{\"clusters\":[{\"name\":\"c1\",\"replicas\":5}]}}");
    c1 = get(s, cl, NULL, "c1");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocated|nvidia.com/gpu"), "4");
    CU_ASSERT_STRING_EQUAL(
        at(c1, "status|resourceSummary|allocating"),
        "{\"cpu\":\"4\",\"memory\":\"0\",\"pods\":\"1\",\"nvidia.com/gpu\":\"1\"}");
    json_object_put(c1);

    /* Moving to c2 deletes every Work with the permanent id in c1 (through the execution
     * finalizer: the member's Deployment goes too); muster's, without it, stays. */
    patch_rb(s, "{\"spec\":{\"clusters\":[{\"name\":\"c2\",\"replicas\":1}]}}");
    CU_ASSERT_EQUAL(count_works(s, "karmada-es-c1"), 1);
    CU_ASSERT_EQUAL(count_works(s, "karmada-es-c2"), 1);
    json_object *objs = NULL;
    CU_ASSERT_EQUAL(sim_karmada_member_objects(k, "c1", &objs), 0);
    CU_ASSERT_EQUAL(json_object_array_length(objs), 1);
    CU_ASSERT_STRING_EQUAL(at(objs, "0|kind"), "PodGroup");
    json_object_put(objs);
    /* c1 left the aggregated status with its Works; NotReady c2 applies nothing, so its Work
     * has no Applied condition: not applied, health Unknown. */
    rb = get(s, rbr, "team", "web-deployment");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|clusterName"), "c2");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|health"), "Unknown");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|conditions|0|status"), "False");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|1"), "");
    json_object_put(rb);
    json_object *w2 = get(s, wr, "karmada-es-c2", work_name);
    CU_ASSERT_PTR_NOT_NULL(w2);
    /* No overrider targets c2. */
    CU_ASSERT_STRING_EQUAL(at(w2, "spec|workload|manifests|0|spec|template|metadata|annotations"),
                           "");
    json_object_put(w2);
    c1 = get(s, cl, NULL, "c1");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|resourceSummary|allocated|cpu"), "0");
    json_object_put(c1);

    /* A template change refreshes the RB but keeps what others wrote. */
    json_object *cur = get(s, dep, "team", "web"), *copy = NULL;
    json_object_deep_copy(cur, &copy, NULL);
    json_object_object_add(json_object_object_get(copy, "spec"), "replicas",
                           json_object_new_int(7));
    CU_ASSERT_EQUAL(sim_store_update(s, dep, "team", "web", copy, 0, NULL, NULL), 0);
    json_object_put(copy);
    json_object_put(cur);
    rb = get(s, rbr, "team", "web-deployment");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|replicas"), "7");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|clusters|0|name"), "c2");
    CU_ASSERT_STRING_EQUAL(at(rb, "spec|suspension|scheduling"), "false");
    json_object_put(rb);

    /* Deleting the template garbage-collects the RB, through the binding controller's
     * finalizer: its Works go first. muster's Work is muster's to delete; its PodGroup then
     * leaves the member through the execution finalizer (it is managed). */
    CU_ASSERT_EQUAL(sim_store_delete(s, dep, "team", "web", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_store_get(s, rbr, "team", "web-deployment", NULL, NULL), MUSTER_ENOENT);
    /* The Work in NotReady c2 waits, being deleted, until its cluster can delete its object. */
    CU_ASSERT_EQUAL(count_works(s, "karmada-es-c2"), 1);
    CU_ASSERT_EQUAL(sim_karmada_set_ready(k, "c2", 1), 0);
    CU_ASSERT_EQUAL(count_works(s, NULL), 1);
    CU_ASSERT_EQUAL(sim_store_delete(s, wr, "karmada-es-c1", "web-pg", NULL, NULL, 0, NULL, NULL),
                    0);
    CU_ASSERT_EQUAL(count_works(s, NULL), 0);
    CU_ASSERT_EQUAL(sim_karmada_member_objects(k, "c1", &objs), 0);
    CU_ASSERT_EQUAL(json_object_array_length(objs), 0);
    json_object_put(objs);

    /* NotReady fault. */
    CU_ASSERT_EQUAL(sim_karmada_set_ready(k, "c1", 0), 0);
    c1 = get(s, cl, NULL, "c1");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|conditions|1|status"), "False");
    CU_ASSERT_STRING_EQUAL(at(c1, "status|nodeSummary|readyNum"), "0");
    json_object_put(c1);
    CU_ASSERT_EQUAL(sim_karmada_set_ready(k, "nope", 0), MUSTER_ENOENT);
    sim_karmada_free(k);
    sim_store_free(s);
}

static const char gang_yaml[] =
    "clusters:\n"
    "  - name: m\n"
    "    nodes: [{count: 2, allocatable: {cpu: \"4\", pods: \"10\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec:\n"
    "      resourceSelectors: [{apiVersion: batch/v1, kind: Job},\n"
    "                          {apiVersion: batch.volcano.sh/v1alpha1, kind: Job}]\n"
    "  - apiVersion: batch.volcano.sh/v1alpha1\n"
    "    kind: Job\n"
    "    metadata: {name: mpi, namespace: team}\n"
    "    spec:\n"
    "      minAvailable: 3\n"
    "      tasks: [{name: w, replicas: 3, template: {spec: {containers: [{name: w, resources: "
    "{requests: {cpu: \"3\"}}}]}}}]\n"
    "  - apiVersion: batch/v1\n"
    "    kind: Job\n"
    "    metadata: {name: etl, namespace: team, annotations: {sim.muster.io/duration: 60s}}\n"
    "    spec:\n"
    "      parallelism: 2\n"
    "      template: {spec: {containers: [{name: e, resources: {requests: {cpu: \"1\"}}}]}}\n";

static void place_on(struct sim_store *s, const char *rbname)
{
    const struct sim_resource *rbr = R("work.karmada.io", "v1alpha2", "resourcebindings");
    json_object *cur = get(s, rbr, "team", rbname), *copy = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
    json_object_deep_copy(cur, &copy, NULL);
    json_object *spec = json_object_object_get(copy, "spec");
    json_object_object_add(spec, "clusters", json_tokener_parse("[{\"name\":\"m\"}]"));
    json_object_object_add(spec, "suspension", json_tokener_parse("{\"scheduling\":false}"));
    CU_ASSERT_EQUAL(sim_store_update(s, rbr, "team", rbname, copy, 0, NULL, NULL), 0);
    json_object_put(copy);
    json_object_put(cur);
}

/* The manifest of the RB's own Work in c1 (the one without muster's label). */
static const char *c1_template_group(struct sim_store *s)
{
    static char out[128];
    json_object *wl = NULL;
    sim_store_list(s, R("work.karmada.io", "v1alpha1", "works"), "karmada-es-c1", NULL, &wl, NULL);
    json_object *items = json_object_object_get(wl, "items");
    snprintf(out, sizeof(out), "none");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *w = json_object_array_get_idx(items, i);
        if (at(w, "metadata|labels|app.kubernetes.io/managed-by")[0])
            continue;
        const char *g = at(w, "spec|workload|manifests|0|spec|template|metadata|annotations|"
                              "scheduling.k8s.io/group-name");
        snprintf(out, sizeof(out), "%s", g[0] ? g : "-");
    }
    json_object_put(wl);
    return out;
}

static const char *c1_allocated_cpu(struct sim_store *s)
{
    static char out[32];
    json_object *c1 = get(s, R("cluster.karmada.io", "v1alpha1", "clusters"), NULL, "c1");
    snprintf(out, sizeof(out), "%s", at(c1, "status|resourceSummary|allocated|cpu"));
    json_object_put(c1);
    return out;
}

static json_object *override_policy(const char *group)
{
    char buf[2048];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"policy.karmada.io/v1alpha1\",\"kind\":\"OverridePolicy\","
             "\"metadata\":{\"name\":\"op\",\"namespace\":\"team\"},\"spec\":{"
             "\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
             "\"name\":\"web\"}],\"overrideRules\":[{\"targetCluster\":{\"clusterNames\":"
             "[\"c1\"]},\"overriders\":{\"plaintext\":[{\"path\":\"/spec/template/metadata/"
             "annotations\",\"operator\":\"add\",\"value\":{\"scheduling.k8s.io/group-name\":"
             "\"%s\"}},{\"path\":\"/spec/template/spec/schedulerName\",\"operator\":\"add\","
             "\"value\":\"volcano\"}]}}]}}",
             group);
    return json_tokener_parse(buf);
}

/* Issue 8: the binding controller renders the Works again when an OverridePolicy that selects
 * the template is created, updated or deleted, and the execution controller updates the
 * member's (managed) Deployment; its pods wait for a PodGroup only while they ask for Volcano
 * and name one (issue 15: no gating by muster's labels). */
static void test_override_resync_and_gang_gate(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10000, &s), 0);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(
        sim_scenario_parse("t.yaml", scenario_yaml, strlen(scenario_yaml), &scn, err, sizeof(err)),
        0);
    struct sim_karmada *k = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err)), 0);
    json_object_put(scn);
    const struct sim_resource *dep = R("apps", "v1", "deployments");
    const struct sim_resource *opr = R("policy.karmada.io", "v1alpha1", "overridepolicies");
    const struct sim_resource *wr = R("work.karmada.io", "v1alpha1", "works");
    const struct sim_resource *rbr = R("work.karmada.io", "v1alpha2", "resourcebindings");
    json_object *d = json_tokener_parse(deploy_json);
    CU_ASSERT_EQUAL_FATAL(sim_store_create(s, dep, "team", d, fixed_now(), 0, NULL, NULL), 0);
    json_object_put(d);
    patch_rb(s, "{\"spec\":{\"clusters\":[{\"name\":\"c1\",\"replicas\":3}],"
                "\"suspension\":{\"scheduling\":false}}}");
    /* The scenario's policy names web-c1, which the member does not have: Pending. */
    CU_ASSERT_STRING_EQUAL(c1_template_group(s), "web-c1");
    CU_ASSERT_STRING_EQUAL(c1_allocated_cpu(s), "0");

    /* Update: the Work follows the policy without any change to the RB. */
    json_object *op = override_policy("web-c1b");
    CU_ASSERT_EQUAL(sim_store_update(s, opr, "team", "op", op, 0, NULL, NULL), 0);
    json_object_put(op);
    CU_ASSERT_STRING_EQUAL(c1_template_group(s), "web-c1b");

    /* Delete: the override is gone from the Work; no muster PodGroup Work for this RB, so the
     * share runs ungated (today's behaviour for RBs muster does not gang). */
    CU_ASSERT_EQUAL(sim_store_delete(s, opr, "team", "op", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(c1_template_group(s), "-");
    CU_ASSERT_STRING_EQUAL(c1_allocated_cpu(s), "12");

    /* muster's PodGroup Works (Karmada's shape) put PodGroups in the member; pods that name
     * none run ungated whatever muster gangs (Volcano gates only its own pods). */
    static const char pgw_fmt[] =
        "{\"metadata\":{\"name\":\"%s\",\"finalizers\":[\"karmada.io/execution-controller\"],"
        "\"labels\":{\"app.kubernetes.io/managed-by\":\"muster\"},\"annotations\":{"
        "\"scheduling.muster.io/binding\":\"%s\"}},\"spec\":{\"workload\":{\"manifests\":[{"
        "\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\",\"metadata\":"
        "{\"name\":\"%s\",\"namespace\":\"team\",\"labels\":{\"karmada.io/managed\":\"true\"},"
        "\"annotations\":{\"work.karmada.io/name\":\"%s\",\"work.karmada.io/namespace\":"
        "\"karmada-es-c1\"}},\"spec\":{\"minMember\":%d}}]}}}";
    char buf[2048];
    snprintf(buf, sizeof(buf), pgw_fmt, "other-pg", "team/other-deployment", "other-c1", "other-pg",
             1);
    json_object *pgw = json_tokener_parse(buf);
    CU_ASSERT_EQUAL(sim_store_create(s, wr, "karmada-es-c1", pgw, fixed_now(), 0, NULL, NULL), 0);
    json_object_put(pgw);
    CU_ASSERT_STRING_EQUAL(c1_allocated_cpu(s), "12");
    snprintf(buf, sizeof(buf), pgw_fmt, "web-pg", "team/web-deployment", "web-c1", "web-pg", 3);
    pgw = json_tokener_parse(buf);
    CU_ASSERT_EQUAL(sim_store_create(s, wr, "karmada-es-c1", pgw, fixed_now(), 0, NULL, NULL), 0);
    json_object_put(pgw);
    CU_ASSERT_STRING_EQUAL(c1_allocated_cpu(s), "12");
    json_object *rb = NULL;

    /* Create: the policy comes (back), the Work names web-c1 (minMember 3 = the share): it runs. */
    op = override_policy("web-c1");
    CU_ASSERT_EQUAL(sim_store_create(s, opr, "team", op, fixed_now(), 0, NULL, NULL), 0);
    json_object_put(op);
    CU_ASSERT_STRING_EQUAL(c1_template_group(s), "web-c1");
    CU_ASSERT_STRING_EQUAL(c1_allocated_cpu(s), "12");
    rb = get(s, rbr, "team", "web-deployment");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|health"), "Healthy");
    json_object_put(rb);

    /* A policy for another template re-renders nothing of this RB. */
    int64_t before = count_works(s, "karmada-es-c1");
    op = override_policy("x");
    json_object_object_add(json_object_object_get(op, "metadata"), "name",
                           json_object_new_string("zz-other"));
    json_object *sel = json_object_array_get_idx(
        json_object_object_get(json_object_object_get(op, "spec"), "resourceSelectors"), 0);
    json_object_object_add(sel, "name", json_object_new_string("not-web"));
    CU_ASSERT_EQUAL(sim_store_create(s, opr, "team", op, fixed_now(), 0, NULL, NULL), 0);
    json_object_put(op);
    CU_ASSERT_EQUAL(count_works(s, "karmada-es-c1"), before);
    CU_ASSERT_STRING_EQUAL(c1_template_group(s), "web-c1");

    /* An update by which the policy stops selecting the template takes its override away. */
    op = override_policy("web-c1");
    sel = json_object_array_get_idx(
        json_object_object_get(json_object_object_get(op, "spec"), "resourceSelectors"), 0);
    json_object_object_add(sel, "name", json_object_new_string("not-web"));
    CU_ASSERT_EQUAL(sim_store_update(s, opr, "team", "op", op, 0, NULL, NULL), 0);
    json_object_put(op);
    CU_ASSERT_STRING_EQUAL(c1_template_group(s), "-");
    CU_ASSERT_STRING_EQUAL(c1_allocated_cpu(s), "12");

    sim_karmada_free(k);
    sim_store_free(s);
}

/* The container names of the manifest of web's Work in c1, comma separated. */
static const char *c1_containers(struct sim_store *s)
{
    static char out[512];
    json_object *wl = NULL;
    sim_store_list(s, R("work.karmada.io", "v1alpha1", "works"), "karmada-es-c1", NULL, &wl, NULL);
    json_object *items = json_object_object_get(wl, "items");
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *w = json_object_array_get_idx(items, i);
        json_object *cs = NULL;
        json_object *m = json_object_array_get_idx(
            json_object_object_get(
                json_object_object_get(json_object_object_get(w, "spec"), "workload"), "manifests"),
            0);
        json_object *spec = json_object_object_get(
            json_object_object_get(json_object_object_get(m, "spec"), "template"), "spec");
        if (!json_object_object_get_ex(spec, "containers", &cs))
            continue;
        for (size_t c = 0; c < json_object_array_length(cs) && len < sizeof(out); c++)
            len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", c ? "," : "",
                                    at(json_object_array_get_idx(cs, c), "name"));
    }
    json_object_put(wl);
    return out;
}

/* An OverridePolicy appending a container named after itself; selectors is the JSON of
 * spec.resourceSelectors, or NULL for none (every template of the namespace). */
static json_object *appending_policy(const char *name, const char *selectors)
{
    char buf[1024];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"policy.karmada.io/v1alpha1\",\"kind\":\"OverridePolicy\","
             "\"metadata\":{\"name\":\"%s\",\"namespace\":\"team\"},\"spec\":{%s%s%s"
             "\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":"
             "\"/spec/template/spec/containers/-\",\"operator\":\"add\",\"value\":{\"name\":"
             "\"%s\"}}]}}]}}",
             name, selectors ? "\"resourceSelectors\":" : "", selectors ? selectors : "",
             selectors ? "," : "", name);
    return json_tokener_parse(buf);
}

/* Rendering reads the OverridePolicies that may select the template from an index kept from
 * store events: a policy naming the template, one selecting by labels and one with no
 * selectors (stored before the controllers started) all apply, once each, in the override manager's
 * order (every object, by labels, by name; then by name); one naming another template does not; a
 * deleted policy, or one updated to stop selecting, no longer applies on the next render. */
static void test_override_index(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10000, &s), 0);
    const struct sim_resource *opr = R("policy.karmada.io", "v1alpha1", "overridepolicies");
    json_object *op = appending_policy("b-all", NULL);
    CU_ASSERT_EQUAL_FATAL(sim_store_create(s, opr, "team", op, fixed_now(), 0, NULL, NULL), 0);
    json_object_put(op);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(
        sim_scenario_parse("t.yaml", scenario_yaml, strlen(scenario_yaml), &scn, err, sizeof(err)),
        0);
    struct sim_karmada *k = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err)), 0);
    json_object_put(scn);
    json_object *d = json_tokener_parse(deploy_json);
    json_object_object_add(json_object_object_get(d, "metadata"), "labels",
                           json_tokener_parse("{\"app\":\"web\"}"));
    CU_ASSERT_EQUAL_FATAL(
        sim_store_create(s, R("apps", "v1", "deployments"), "team", d, fixed_now(), 0, NULL, NULL),
        0);
    json_object_put(d);
    patch_rb(s, "{\"spec\":{\"clusters\":[{\"name\":\"c1\",\"replicas\":3}]}}");
    CU_ASSERT_STRING_EQUAL(c1_containers(s), "a,b,b-all");

    static const char named[] = "[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                                "\"name\":\"web\"}]";
    static const char named_twice[] =
        "[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"web\"},"
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"web\","
        "\"namespace\":\"team\"},{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
        "\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}}}]";
    static const char by_label[] = "[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                                   "\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}}}]";
    static const char other[] = "[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                                "\"name\":\"not-web\"}]";
    const char *const names[] = {"c-named", "a-twice", "d-label", "e-other"};
    const char *const sels[] = {named, named_twice, by_label, other};
    for (size_t i = 0; i < 4; i++) {
        op = appending_policy(names[i], sels[i]);
        CU_ASSERT_EQUAL(sim_store_create(s, opr, "team", op, fixed_now(), 0, NULL, NULL), 0);
        json_object_put(op);
    }
    CU_ASSERT_STRING_EQUAL(c1_containers(s), "a,b,b-all,d-label,a-twice,c-named");

    CU_ASSERT_EQUAL(sim_store_delete(s, opr, "team", "c-named", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(c1_containers(s), "a,b,b-all,d-label,a-twice");
    op = appending_policy("d-label", other);
    CU_ASSERT_EQUAL(sim_store_update(s, opr, "team", "d-label", op, 0, NULL, NULL), 0);
    json_object_put(op);
    CU_ASSERT_STRING_EQUAL(c1_containers(s), "a,b,b-all,a-twice");
    op = appending_policy("e-other", named);
    CU_ASSERT_EQUAL(sim_store_update(s, opr, "team", "e-other", op, 0, NULL, NULL), 0);
    json_object_put(op);
    CU_ASSERT_STRING_EQUAL(c1_containers(s), "a,b,b-all,a-twice,e-other");
    CU_ASSERT_EQUAL(sim_store_delete(s, opr, "team", "b-all", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(c1_containers(s), "a,b,a-twice,e-other");

    sim_karmada_free(k);
    sim_store_free(s);
}

static void test_gangs_and_durations(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10000, &s), 0);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(
        sim_scenario_parse("g.yaml", gang_yaml, strlen(gang_yaml), &scn, err, sizeof(err)), 0);
    struct sim_karmada *k = NULL;
    clock_value = 1790000000;
    CU_ASSERT_EQUAL_FATAL(sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err)), 0);
    json_object_put(scn);
    const struct sim_resource *cl = R("cluster.karmada.io", "v1alpha1", "clusters");
    const struct sim_resource *rbr = R("work.karmada.io", "v1alpha2", "resourcebindings");

    /* Three 3-cpu pods on two 4-cpu nodes: only two fit, so the gang of three runs none. */
    place_on(s, "mpi-job");
    json_object *m = get(s, cl, NULL, "m");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocated|cpu"), "0");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocating"),
                           "{\"cpu\":\"9\",\"pods\":\"3\"}");
    json_object_put(m);
    json_object *rb = get(s, rbr, "team", "mpi-job");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|status|state|phase"), "Pending");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|status|minAvailable"), "3");
    json_object_put(rb);

    /* A two-pod batch Job with a 60 s script runs beside it ... */
    place_on(s, "etl-job");
    m = get(s, cl, NULL, "m");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocated"),
                           "{\"cpu\":\"2\",\"pods\":\"2\"}");
    json_object_put(m);
    rb = get(s, rbr, "team", "etl-job");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|status|active"), "2");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|status|startTime"),
                           "2026-09-21T14:13:20Z");
    json_object_put(rb);

    /* ... nothing changes before its time ... */
    clock_value += 59;
    sim_karmada_tick(k);
    m = get(s, cl, NULL, "m");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocated|cpu"), "2");
    json_object_put(m);

    /* ... and then it succeeds and frees its nodes. */
    clock_value += 1;
    sim_karmada_tick(k);
    m = get(s, cl, NULL, "m");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocated|cpu"), "0");
    json_object_put(m);
    rb = get(s, rbr, "team", "etl-job");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|status|succeeded"), "2");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|status|active"), "0");
    CU_ASSERT_STRING_EQUAL(at(rb, "status|aggregatedStatus|0|health"), "Healthy");
    json_object_put(rb);

    sim_karmada_free(k);
    sim_store_free(s);
}

static int dirty_calls;

static void count_dirty(void *data)
{
    (void)data;
    dirty_calls++;
}

/* A Work in karmada-es-m running one Deployment pod of cpu cores (naming PodGroup group when
 * not NULL), or, with cpu 0, a PodGroup Work for group. */
static void put_work(struct sim_store *s, const char *name, int cpu, const char *group,
                     int suspended)
{
    char manifest[1024], buf[2048], meta[512];
    /* Shaped as Karmada's CreateOrUpdateWork shapes them: managed, annotated with the Work. */
    snprintf(meta, sizeof(meta),
             "\"namespace\":\"team\",\"labels\":{\"karmada.io/managed\":\"true\"},"
             "\"annotations\":{\"work.karmada.io/name\":\"%s\",\"work.karmada.io/namespace\":"
             "\"karmada-es-m\"}",
             name);
    if (cpu)
        snprintf(manifest, sizeof(manifest),
                 "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
                 "\"%s\",%s},\"spec\":{\"replicas\":1,\"template\":{"
                 "\"metadata\":{\"annotations\":{%s%s%s}},\"spec\":{%s\"containers\":[{\"name\":"
                 "\"c\",\"resources\":{\"requests\":{\"cpu\":\"%d\"}}}]}}}}",
                 name, meta, group ? "\"scheduling.k8s.io/group-name\":\"" : "", group ? group : "",
                 group ? "\"" : "", group ? "\"schedulerName\":\"volcano\"," : "", cpu);
    else
        snprintf(manifest, sizeof(manifest),
                 "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\","
                 "\"metadata\":{\"name\":\"%s\",%s},\"spec\":{\"minMember\":1}}",
                 group, meta);
    snprintf(buf, sizeof(buf),
             "{\"metadata\":{\"name\":\"%s\",\"finalizers\":[\"karmada.io/"
             "execution-controller\"]},\"spec\":{\"suspendDispatching\":%s,\"workload\":{"
             "\"manifests\":[%s]}}}",
             name, suspended ? "true" : "false", manifest);
    json_object *w = json_tokener_parse(buf);
    const struct sim_resource *wr = R("work.karmada.io", "v1alpha1", "works");
    int rc = sim_store_get(s, wr, "karmada-es-m", name, NULL, NULL) == 0
                 ? sim_store_update(s, wr, "karmada-es-m", name, w, 0, NULL, NULL)
                 : sim_store_create(s, wr, "karmada-es-m", w, fixed_now(), 0, NULL, NULL);
    CU_ASSERT_EQUAL(rc, 0);
    json_object_put(w);
}

/* "allocated cpu/allocating cpu" of cluster m. */
static const char *m_cpu(struct sim_store *s)
{
    static char out[64];
    json_object *m = get(s, R("cluster.karmada.io", "v1alpha1", "clusters"), NULL, "m");
    char a[32];
    snprintf(a, sizeof(a), "%s", at(m, "status|resourceSummary|allocated|cpu"));
    snprintf(out, sizeof(out), "%s/%s", a, at(m, "status|resourceSummary|allocating|cpu"));
    json_object_put(m);
    return out;
}

/* readyReplicas the member reported for Work name. */
static const char *m_ready(struct sim_store *s, const char *name)
{
    static char out[32];
    json_object *w = get(s, R("work.karmada.io", "v1alpha1", "works"), "karmada-es-m", name);
    snprintf(out, sizeof(out), "%s", at(w, "status|manifestStatuses|0|status|readyReplicas"));
    json_object_put(w);
    return out;
}

/* The member keeps the objects applied from its Works and running shares stay on their nodes
 * between syncs: a sync places only new shares, unless a running one left or lost its
 * PodGroup, when every running share is placed again, oldest first. A suspended Work changes
 * nothing in the member. */
static void test_member_mirror(void)
{
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10000, &s), 0);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(
        sim_scenario_parse("g.yaml", gang_yaml, strlen(gang_yaml), &scn, err, sizeof(err)), 0);
    struct sim_karmada *k = NULL;
    clock_value = 1790000000;
    CU_ASSERT_EQUAL_FATAL(sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err)), 0);
    json_object_put(scn);
    const struct sim_resource *wr = R("work.karmada.io", "v1alpha1", "works");

    /* Two 4-cpu nodes: a and b run, c waits. */
    put_work(s, "a", 3, NULL, 0);
    put_work(s, "b", 3, NULL, 0);
    clock_value++;
    put_work(s, "c", 3, NULL, 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "6/3");
    CU_ASSERT_STRING_EQUAL(m_ready(s, "c"), "0");
    /* A suspended Work reaches nothing. */
    put_work(s, "s", 1, NULL, 1);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "6/3");

    /* a goes: c gets its node. */
    CU_ASSERT_EQUAL(sim_store_delete(s, wr, "karmada-es-m", "a", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "6/0");
    CU_ASSERT_STRING_EQUAL(m_ready(s, "c"), "1");

    /* b is suspended: Karmada stops syncing it but deletes nothing, so it runs on; d, new,
     * waits until b's Work is deleted. */
    put_work(s, "b", 3, NULL, 1);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "6/0");
    clock_value++;
    put_work(s, "d", 3, NULL, 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "6/3");
    CU_ASSERT_EQUAL(sim_store_delete(s, wr, "karmada-es-m", "b", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "6/0");
    CU_ASSERT_STRING_EQUAL(m_ready(s, "d"), "1");

    /* A share waiting for its PodGroup runs once the group's Work is dispatched... */
    CU_ASSERT_EQUAL(sim_store_delete(s, wr, "karmada-es-m", "c", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "3/0");
    put_work(s, "g", 2, "pg1", 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "3/2");
    put_work(s, "pg", 0, "pg1", 1);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "3/2");
    put_work(s, "pg", 0, "pg1", 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "5/0");
    CU_ASSERT_STRING_EQUAL(m_ready(s, "g"), "1");
    /* ... and stops when the PodGroup goes. */
    CU_ASSERT_EQUAL(sim_store_delete(s, wr, "karmada-es-m", "pg", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "3/2");
    CU_ASSERT_STRING_EQUAL(m_ready(s, "g"), "0");

    /* NotReady runs nothing; Ready again places everything. */
    CU_ASSERT_EQUAL(sim_karmada_set_ready(k, "m", 0), 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "0/5");
    CU_ASSERT_EQUAL(sim_karmada_set_ready(k, "m", 1), 0);
    CU_ASSERT_STRING_EQUAL(m_cpu(s), "3/2");

    sim_karmada_free(k);
    sim_store_free(s);
}

/* The hub's batching: many Works land before one flush (this once moved the shares array
 * under the placement pass: ASan caught it). */
static void test_deferred_flush(void)
{
    static const char yaml[] =
        "clusters:\n"
        "  - name: m\n"
        "    nodes: [{count: 4, allocatable: {cpu: \"16\", pods: \"100\"}}]\n"
        "objects:\n"
        "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
        "  - apiVersion: policy.karmada.io/v1alpha1\n"
        "    kind: PropagationPolicy\n"
        "    metadata: {name: pp, namespace: team}\n"
        "    spec: {resourceSelectors: [{apiVersion: batch/v1, kind: Job}]}\n";
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(100000, &s), 0);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(sim_scenario_parse("d.yaml", yaml, strlen(yaml), &scn, err, sizeof(err)),
                          0);
    struct sim_karmada *k = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err)), 0);
    json_object_put(scn);
    sim_karmada_defer(k, count_dirty, NULL);
    dirty_calls = 0;
    const struct sim_resource *jobs = R("batch", "v1", "jobs");
    for (int i = 0; i < 40; i++) {
        char body[256], name[32];
        snprintf(body, sizeof(body),
                 "{\"metadata\":{\"name\":\"j%d\"},\"spec\":{\"parallelism\":1,\"template\":"
                 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{"
                 "\"cpu\":\"1\"}}}]}}}}",
                 i);
        json_object *o = json_tokener_parse(body);
        CU_ASSERT_EQUAL(sim_store_create(s, jobs, "team", o, fixed_now(), 0, NULL, NULL), 0);
        json_object_put(o);
        snprintf(name, sizeof(name), "j%d-job", i);
        place_on(s, name);
    }
    /* One notification for the burst; nothing recomputed yet. */
    CU_ASSERT_EQUAL(dirty_calls, 1);
    const struct sim_resource *cl = R("cluster.karmada.io", "v1alpha1", "clusters");
    json_object *m = get(s, cl, NULL, "m");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocated|cpu"), "0");
    json_object_put(m);
    CU_ASSERT_EQUAL(sim_karmada_flush(k), 1);
    CU_ASSERT_EQUAL(sim_karmada_flush(k), 0);
    m = get(s, cl, NULL, "m");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocated|cpu"), "40");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocated|pods"), "40");
    json_object_put(m);
    /* Removing the RBs' clusters prunes their Works through the permanent-id index. */
    for (int i = 0; i < 40; i += 2) {
        const struct sim_resource *rbr = R("work.karmada.io", "v1alpha2", "resourcebindings");
        char name[32];
        snprintf(name, sizeof(name), "j%d-job", i);
        json_object *cur = get(s, rbr, "team", name), *copy = NULL;
        json_object_deep_copy(cur, &copy, NULL);
        json_object_object_del(json_object_object_get(copy, "spec"), "clusters");
        CU_ASSERT_EQUAL(sim_store_update(s, rbr, "team", name, copy, 0, NULL, NULL), 0);
        json_object_put(copy);
        json_object_put(cur);
    }
    CU_ASSERT_EQUAL(count_works(s, "karmada-es-m"), 20);
    sim_karmada_flush(k);
    m = get(s, cl, NULL, "m");
    CU_ASSERT_STRING_EQUAL(at(m, "status|resourceSummary|allocated|cpu"), "20");
    json_object_put(m);
    sim_karmada_free(k);
    sim_store_free(s);
}

static void test_bad_scenarios(void)
{
    static const char *const bad[] = {
        "clusters:\n  - nodes: []\n",
        "clusters:\n  - name: a\n    nodes:\n      - allocatable: {cpu: lots}\n",
        "clusters:\n  - name: a\n  - name: a\n",
        "objects:\n  - {apiVersion: v9, kind: Nope, metadata: {name: x}}\n",
        "clusters:\n  - name: a\n    volcano: maybe\n",
    };
    static const char *const why[] = {"name is required", "not a quantity", "listed twice",
                                      "not a served kind", "clusters[a].volcano: true or false"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sim_store *s = NULL;
        CU_ASSERT_EQUAL_FATAL(sim_store_new(100, &s), 0);
        json_object *scn = NULL;
        char err[256] = "";
        CU_ASSERT_EQUAL_FATAL(
            sim_scenario_parse("t.yaml", bad[i], strlen(bad[i]), &scn, err, sizeof(err)), 0);
        struct sim_karmada *k = NULL;
        CU_ASSERT_EQUAL(sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err)), MUSTER_EINVAL);
        if (!strstr(err, why[i]))
            fprintf(stderr, "case %zu: %s\n", i, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, why[i]));
        json_object_put(scn);
        sim_store_free(s);
    }
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL(sim_scenario_parse("bad.yaml", "a: [1,\n", 7, &scn, err, sizeof(err)),
                    MUSTER_EINVAL);
    CU_ASSERT_EQUAL(strncmp(err, "bad.yaml:", 9), 0);
}

static const char *api_yaml = "clusters:\n"
                              "  - name: full\n"
                              "    nodes: [{allocatable: {cpu: \"8\"}}]\n"
                              "  - name: plain\n"
                              "    volcano: false\n"
                              "    nodes: [{allocatable: {cpu: \"8\"}}]\n"
                              "  - name: late\n"
                              "    ready: false\n"
                              "    nodes: [{allocatable: {cpu: \"8\"}}]\n"
                              "  - name: racks\n"
                              "    withGroups: [topology.volcano.sh]\n"
                              "    nodes: [{allocatable: {cpu: \"8\"}}]\n";

/* The index of groupVersion gv in a Cluster's status.apiEnablements, or -1. */
static int en_index(json_object *cluster, const char *gv)
{
    char path[64];
    for (int i = 0; i < 64; i++) {
        snprintf(path, sizeof(path), "status|apiEnablements|%d|groupVersion", i);
        const char *v = at(cluster, path);
        if (!v[0])
            return -1;
        if (strcmp(v, gv) == 0)
            return i;
    }
    return -1;
}

/* Karmada's cluster status controller (getAPIEnablements, setCurrentClusterStatus): a Ready
 * member's status.apiEnablements list what it serves, {groupVersion, resources: [{name, kind}]}
 * without subresources, sorted; `volcano: false` leaves Volcano's groups out; Karmada's own
 * APIs are the hub's, never a member's; an unreachable member keeps what it last reported and
 * one never reached reports nothing. */
static void test_api_enablements(void)
{
    clock_value = 1790000000; /* 2026-09-21T14:13:20Z */
    struct sim_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_store_new(10000, &s), 0);
    json_object *scn = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(
        sim_scenario_parse("t.yaml", api_yaml, strlen(api_yaml), &scn, err, sizeof(err)), 0);
    struct sim_karmada *k = NULL;
    CU_ASSERT_EQUAL_FATAL(sim_karmada_new(s, scn, fixed_now, &k, err, sizeof(err)), 0);
    json_object_put(scn);
    const struct sim_resource *cl = R("cluster.karmada.io", "v1alpha1", "clusters");

    json_object *full = get(s, cl, NULL, "full");
    CU_ASSERT_STRING_EQUAL(at(full, "status|conditions|0"),
                           "{\"type\":\"CompleteAPIEnablements\",\"status\":\"True\",\"reason\":"
                           "\"Complete\",\"message\":\"collected complete APIEnablements from the "
                           "cluster\",\"lastTransitionTime\":\"2026-09-21T14:13:20Z\"}");
    int pg = en_index(full, "scheduling.volcano.sh/v1beta1");
    int vj = en_index(full, "batch.volcano.sh/v1alpha1");
    CU_ASSERT(pg >= 0 && vj >= 0);
    char path[64];
    snprintf(path, sizeof(path), "status|apiEnablements|%d", pg);
    CU_ASSERT_STRING_EQUAL(at(full, path),
                           "{\"groupVersion\":\"scheduling.volcano.sh/v1beta1\",\"resources\":[{"
                           "\"name\":\"podgroups\",\"kind\":\"PodGroup\"},{\"name\":\"queues\","
                           "\"kind\":\"Queue\"}]}");
    /* sorted by groupVersion in byte order ('.' before '/'), core "v1" last; resources by
     * name; no "pods/status" */
    CU_ASSERT_STRING_EQUAL(at(full, "status|apiEnablements|0|groupVersion"),
                           "admissionregistration.k8s.io/v1");
    CU_ASSERT(vj < en_index(full, "batch/v1"));
    int core = en_index(full, "v1");
    CU_ASSERT(core > pg);
    snprintf(path, sizeof(path), "status|apiEnablements|%d|resources|0|name", core + 1);
    CU_ASSERT_STRING_EQUAL(at(full, path), "");
    snprintf(path, sizeof(path), "status|apiEnablements|%d|resources", core);
    CU_ASSERT_PTR_NULL(strstr(at(full, path), "/status"));
    CU_ASSERT_PTR_NOT_NULL(strstr(at(full, path), "{\"name\":\"pods\",\"kind\":\"Pod\"}"));
    CU_ASSERT_EQUAL(en_index(full, "work.karmada.io/v1alpha2"), -1);
    CU_ASSERT_EQUAL(en_index(full, "cluster.karmada.io/v1alpha1"), -1);
    CU_ASSERT_EQUAL(en_index(full, "policy.karmada.io/v1alpha1"), -1);
    json_object *plain = get(s, cl, NULL, "plain");
    CU_ASSERT_EQUAL(en_index(plain, "scheduling.volcano.sh/v1beta1"), -1);
    CU_ASSERT_EQUAL(en_index(plain, "batch.volcano.sh/v1alpha1"), -1);
    CU_ASSERT(en_index(plain, "apps/v1") >= 0);
    /* Volcano's HyperNodes only where the scenario says its Volcano has network topology */
    CU_ASSERT_EQUAL(en_index(full, "topology.volcano.sh/v1alpha1"), -1);
    json_object *racks = get(s, cl, NULL, "racks");
    int hn = en_index(racks, "topology.volcano.sh/v1alpha1");
    CU_ASSERT_FATAL(hn >= 0);
    snprintf(path, sizeof(path), "status|apiEnablements|%d|resources", hn);
    CU_ASSERT_STRING_EQUAL(at(racks, path), "[{\"name\":\"hypernodes\",\"kind\":\"HyperNode\"}]");
    json_object_put(racks);
    json_object *late = get(s, cl, NULL, "late");
    CU_ASSERT_STRING_EQUAL(at(late, "status|apiEnablements"), "");
    CU_ASSERT_STRING_EQUAL(at(late, "status|conditions|0|type"), "Ready");
    CU_ASSERT_STRING_EQUAL(at(late, "status|conditions|1"), "");
    json_object_put(late);

    /* Unreachable: Ready alone changes; a Ready-again member is collected again. */
    char before[2048];
    snprintf(before, sizeof(before), "%s", at(full, "status|apiEnablements"));
    clock_value += 60;
    CU_ASSERT_EQUAL(sim_karmada_set_ready(k, "full", 0), 0);
    json_object_put(full);
    full = get(s, cl, NULL, "full");
    CU_ASSERT_STRING_EQUAL(at(full, "status|apiEnablements"), before);
    CU_ASSERT_STRING_EQUAL(at(full, "status|conditions|0|status"), "True");
    CU_ASSERT_STRING_EQUAL(at(full, "status|conditions|1|status"), "False");
    CU_ASSERT_EQUAL(sim_karmada_set_ready(k, "late", 1), 0);
    late = get(s, cl, NULL, "late");
    CU_ASSERT(en_index(late, "scheduling.volcano.sh/v1beta1") >= 0);
    /* a condition added later goes after the existing one (meta.SetStatusCondition) */
    CU_ASSERT_STRING_EQUAL(at(late, "status|conditions|0|type"), "Ready");
    CU_ASSERT_STRING_EQUAL(at(late, "status|conditions|1|type"), "CompleteAPIEnablements");
    CU_ASSERT_STRING_EQUAL(at(late, "status|conditions|1|lastTransitionTime"),
                           "2026-09-21T14:14:20Z");
    json_object_put(late);
    json_object_put(full);
    json_object_put(plain);
    sim_karmada_free(k);
    sim_store_free(s);
}

static CU_TestInfo tests[] = {
    {"Volcano Job components: Karmada's vectors", test_vcjob_vectors},
    {"pod requests: Karmada's, and the member's with limits as defaults",
     test_pod_requests_and_limits},
    {"clusters, detector, binding controller", test_clusters_detector_binding},
    {"OverridePolicy changes re-render Works; muster's gangs gate their shares",
     test_override_resync_and_gang_gate},
    {"OverridePolicies index: applied once each, by priority then name, until deleted or updated "
     "away",
     test_override_index},
    {"gangs all or nothing; scripted durations free capacity", test_gangs_and_durations},
    {"members mirror their Works; running shares keep their nodes", test_member_mirror},
    {"deferred mode: one flush for a burst; pruning by permanent id", test_deferred_flush},
    {"bad scenarios are rejected with a path", test_bad_scenarios},
    {"Cluster status.apiEnablements: what the member serves", test_api_enablements},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/karmada", tests)
