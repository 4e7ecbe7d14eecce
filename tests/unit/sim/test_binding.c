/* Tests for cluster-adapters/sim/binding.c, override.c and work_webhook.c: Works shaped as
 * ensureWork and ctrlutil.CreateOrUpdateWork shape them (pkg/controllers/binding/common.go,
 * pkg/controllers/ctrlutil/work.go) and named by names.GenerateWorkName, the Work mutating
 * webhook (pkg/webhook/work/mutating.go), orphan Works (pkg/util/helper/binding.go
 * FindOrphanWorks), the RB's Works deleted before it goes, and the override manager's cached
 * policies (pkg/util/overridemanager/overridemanager.go). */
#include "karmada_fixture.h"

static const char yaml[] =
    "clusters:\n"
    "  - name: m\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"10\"}}]\n"
    "  - name: n\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"10\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]}\n"
    "  - apiVersion: apps/v1\n"
    "    kind: Deployment\n"
    "    metadata: {name: web, namespace: team, annotations: {keep: me}}\n"
    "    spec:\n"
    "      replicas: 2\n"
    "      template: {spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}}\n";

/* names.GenerateWorkName("Deployment", "web", "team"): FNV-32a of the quoted string
 * "team-web-deployment" is 2845461649, whose digits map through rand.SafeEncodeString. */
#define WEB_WORK "web-6d898b5b8f"

static const char *work(struct fx *f, const char *cluster, const char *path)
{
    char ns[64];
    snprintf(ns, sizeof(ns), "karmada-es-%s", cluster);
    return fx_field(f, FX_WORK, ns, WEB_WORK, path);
}

static void place(struct fx *f, const char *clusters)
{
    char patch[512];
    snprintf(patch, sizeof(patch),
             "{\"spec\":{\"clusters\":%s,\"suspension\":{\"scheduling\":false}}}", clusters);
    CU_ASSERT_EQUAL(fx_patch(f, FX_RB, "team", "web-deployment", patch), 0);
}

static void test_work_shape(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    place(&f, "[{\"name\":\"m\",\"replicas\":2}]");
    char pid[4096];
    snprintf(pid, sizeof(pid), "%s",
             fx_field(&f, FX_RB, "team", "web-deployment",
                      "metadata|labels|resourcebinding.karmada.io/permanent-id"));
    CU_ASSERT_STRING_EQUAL(work(&f, "m", "metadata|name"), WEB_WORK);
    CU_ASSERT_STRING_EQUAL(work(&f, "m", "metadata|finalizers"),
                           "[\"karmada.io/execution-controller\"]");
    CU_ASSERT_STRING_EQUAL(work(&f, "m", "metadata|labels|resourcebinding.karmada.io/permanent-id"),
                           pid);
    /* The Work webhook's label. */
    CU_ASSERT_EQUAL(strlen(work(&f, "m", "metadata|labels|work.karmada.io/permanent-id")), 36);
    CU_ASSERT_STRING_EQUAL(work(&f, "m", "metadata|annotations|resourcebinding.karmada.io/name"),
                           "web-deployment");
    CU_ASSERT_STRING_EQUAL(
        work(&f, "m", "metadata|annotations|work.karmada.io/conflict-resolution"), "abort");
    /* No policy applied: no applied-overrides. */
    CU_ASSERT_STRING_EQUAL(
        work(&f, "m", "metadata|annotations|policy.karmada.io/applied-overrides"), "");
    const char *m = "spec|workload|manifests|0|metadata|";
    char p[256];
    snprintf(p, sizeof(p), "%slabels|karmada.io/managed", m);
    CU_ASSERT_STRING_EQUAL(work(&f, "m", p), "true");
    snprintf(p, sizeof(p), "%sannotations|work.karmada.io/name", m);
    CU_ASSERT_STRING_EQUAL(work(&f, "m", p), WEB_WORK);
    snprintf(p, sizeof(p), "%sannotations|work.karmada.io/namespace", m);
    CU_ASSERT_STRING_EQUAL(work(&f, "m", p), "karmada-es-m");
    snprintf(p, sizeof(p), "%slabels|work.karmada.io/permanent-id", m);
    char wpid[4096];
    snprintf(wpid, sizeof(wpid), "%s", work(&f, "m", p));
    CU_ASSERT_STRING_EQUAL(wpid, work(&f, "m", "metadata|labels|work.karmada.io/permanent-id"));
    snprintf(p, sizeof(p), "%sannotations|resourcetemplate.karmada.io/managed-labels", m);
    CU_ASSERT_STRING_EQUAL(work(&f, "m", p),
                           "karmada.io/managed,resourcebinding.karmada.io/permanent-id,"
                           "work.karmada.io/permanent-id");
    snprintf(p, sizeof(p), "%sannotations|resourcetemplate.karmada.io/managed-annotations", m);
    CU_ASSERT_PTR_NOT_NULL(strstr(work(&f, "m", p), "keep,"));
    /* The member received it and Applied it. */
    CU_ASSERT_STRING_EQUAL(work(&f, "m", "status|conditions|0|status"), "True");

    /* An OverridePolicy that applies is recorded as Karmada's AppliedOverrides JSON. */
    CU_ASSERT_EQUAL(
        fx_create(&f, FX_OP, "team",
                  "{\"metadata\":{\"name\":\"muster-web-deployment\"},\"spec\":{"
                  "\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                  "\"name\":\"web\"}],\"overrideRules\":[{\"overriders\":{\"plaintext\":[{"
                  "\"path\":\"/spec/template/spec/schedulerName\",\"operator\":\"add\","
                  "\"value\":\"volcano\"}]}}]}}"),
        0);
    CU_ASSERT_STRING_EQUAL(
        work(&f, "m", "metadata|annotations|policy.karmada.io/applied-overrides"),
        "[{\"policyName\":\"muster-web-deployment\",\"overriders\":{\"plaintext\":[{\"path\":"
        "\"/spec/template/spec/schedulerName\",\"operator\":\"add\",\"value\":\"volcano\"}]}}]");
    fx_stop(&f);
}

/* The override manager applies the policies that select a template in ascending implicit
 * priority (all of a kind, by labels, by name), then by name: the one selecting it by name is
 * applied last and wins, whatever the names say (getOverridersFromOverridePolicies). */
static void test_override_order(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    static const char rule[] = "\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":"
                               "\"/spec/template/spec/schedulerName\",\"operator\":\"add\","
                               "\"value\":\"%s\"}]}}]";
    char body[1024], r[256];
    /* named to sort last, but selecting every Deployment */
    snprintf(r, sizeof r, rule, "by-kind");
    snprintf(body, sizeof body,
             "{\"metadata\":{\"name\":\"zz-all\"},\"spec\":{\"resourceSelectors\":[{"
             "\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"},{\"apiVersion\":\"apps/v1\","
             "\"kind\":\"Deployment\",\"name\":\"other\"}],%s}}",
             r);
    CU_ASSERT_EQUAL(fx_create(&f, FX_OP, "team", body), 0);
    snprintf(r, sizeof r, rule, "by-name");
    snprintf(body, sizeof body,
             "{\"metadata\":{\"name\":\"aa-web\"},\"spec\":{\"resourceSelectors\":[{"
             "\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"web\"}],%s}}",
             r);
    CU_ASSERT_EQUAL(fx_create(&f, FX_OP, "team", body), 0);
    place(&f, "[{\"name\":\"m\",\"replicas\":2}]");
    CU_ASSERT_STRING_EQUAL(
        work(&f, "m", "spec|workload|manifests|0|spec|template|spec|schedulerName"), "by-name");
    /* zz-all's name selector is for another Deployment: its priority here is the kind's. Both
     * are recorded, by name (shadow.go AscendOrder), whatever order they were applied in. */
    const char *applied = work(&f, "m", "metadata|annotations|policy.karmada.io/applied-overrides");
    const char *all = strstr(applied, "zz-all"), *web = strstr(applied, "aa-web");
    CU_ASSERT(all && web && web < all);
    fx_stop(&f);
}

/* ensureWork revises the replicas to the target cluster's whatever the template asks and
 * whatever the replica scheduling type (the policy here has none: not Divided): a gang placed at
 * fewer replicas than its template (an elastic gang admitted at its minimum) runs that many. */
static void test_work_replicas_from_clusters(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    place(&f, "[{\"name\":\"m\",\"replicas\":1}]");
    CU_ASSERT_STRING_EQUAL(work(&f, "m", "spec|workload|manifests|0|spec|replicas"), "1");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "web-deployment", "spec|replicas"), "2");
    place(&f, "[{\"name\":\"m\",\"replicas\":2}]"); /* grown: the same Work follows */
    CU_ASSERT_STRING_EQUAL(work(&f, "m", "spec|workload|manifests|0|spec|replicas"), "2");
    fx_stop(&f);
}

/* The Work webhook on a client's Work: a permanent id when missing, kept when present. */
static void test_work_webhook(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    char w[2048];
    fx_podgroup_work(w, sizeof(w), "pg", "m", "g", 1, "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    char wpid[4096];
    snprintf(wpid, sizeof(wpid), "%s",
             fx_field(&f, FX_WORK, "karmada-es-m", "pg",
                      "metadata|labels|work.karmada.io/permanent-id"));
    CU_ASSERT_EQUAL(strlen(wpid), 36);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg",
                 "spec|workload|manifests|0|metadata|labels|work.karmada.io/permanent-id"),
        wpid);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_WORK, "karmada-es-m", "pg",
                                    "spec|workload|manifests|0|metadata|annotations|"
                                    "resourcetemplate.karmada.io/managed-labels"),
                           "karmada.io/managed,work.karmada.io/permanent-id");
    CU_ASSERT_EQUAL(
        fx_patch(&f, FX_WORK, "karmada-es-m", "pg", "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}"),
        0);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_WORK, "karmada-es-m", "pg", "metadata|labels|work.karmada.io/permanent-id"),
        wpid);
    fx_stop(&f);
}

/* FindOrphanWorks: a Work with the RB's permanent id in a cluster the RB no longer lists is
 * deleted (through its finalizer: its object leaves the member); muster's Work, labelled with
 * muster's key only, is not the binding controller's to delete. Deleting the RB deletes its
 * Works before it goes. */
static void test_orphans_and_rb_deletion(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    place(&f, "[{\"name\":\"m\",\"replicas\":1},{\"name\":\"n\",\"replicas\":1}]");
    char w[2048];
    fx_podgroup_work(w, sizeof(w), "web-pg", "m", "web-m", 1,
                     "\"scheduling.muster.io/binding-uid\":\"u\"", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", w), 0);
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-n"), 1);
    place(&f, "[{\"name\":\"m\",\"replicas\":2}]");
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-n"), 0);
    json_object *gone = fx_member(&f, "n", "Deployment", "web");
    CU_ASSERT_PTR_NULL(gone);
    json_object_put(gone);
    place(&f, "[{\"name\":\"n\",\"replicas\":2}]");
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-m"), 1);
    CU_ASSERT_STRING_EQUAL(fx_work_named(&f, "karmada-es-m", ""), "web-pg");
    /* The RB goes: its Works first, then its finalizer; muster's Work stays for muster. */
    CU_ASSERT_EQUAL(
        sim_store_delete(f.s, FX_RB, "team", "web-deployment", NULL, NULL, 0, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_store_get(f.s, FX_RB, "team", "web-deployment", NULL, NULL), MUSTER_ENOENT);
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-n"), 0);
    CU_ASSERT_EQUAL(fx_count(&f, FX_WORK, "karmada-es-m"), 1);
    fx_stop(&f);
}

static const char *group_in_work(struct fx *f)
{
    return work(f, "m", "spec|workload|manifests|0|spec|template|spec|schedulerName");
}

/* Renders read the informer's copy of the OverridePolicies, which lags the store. */
static void test_override_cache_lag(void)
{
    struct fx f;
    struct sim_karmada_options lag = {.override_lag_ms = 500, .now_ms = fx_now_ms};
    fx_clock_ms = 1000;
    fx_start(&f, yaml, &lag);
    place(&f, "[{\"name\":\"m\",\"replicas\":2}]");
    CU_ASSERT_EQUAL(
        fx_create(&f, FX_OP, "team",
                  "{\"metadata\":{\"name\":\"muster-web-deployment\"},\"spec\":{"
                  "\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                  "\"name\":\"web\"}],\"overrideRules\":[{\"overriders\":{\"plaintext\":[{"
                  "\"path\":\"/spec/template/spec/schedulerName\",\"operator\":\"add\","
                  "\"value\":\"volcano\"}]}}]}}"),
        0);
    /* An RB change renders now, from the cache that has not seen the policy. */
    place(&f, "[{\"name\":\"m\",\"replicas\":1}]");
    CU_ASSERT_STRING_EQUAL(group_in_work(&f), "");
    CU_ASSERT_STRING_EQUAL(
        work(&f, "m", "metadata|annotations|policy.karmada.io/applied-overrides"), "");
    fx_clock_ms += 499;
    CU_ASSERT_EQUAL(sim_karmada_override_sync(f.k), 1);
    CU_ASSERT_STRING_EQUAL(group_in_work(&f), "");
    fx_clock_ms += 1;
    CU_ASSERT_EQUAL(sim_karmada_override_sync(f.k), -1);
    CU_ASSERT_STRING_EQUAL(group_in_work(&f), "volcano");
    CU_ASSERT_PTR_NOT_NULL(
        strstr(work(&f, "m", "metadata|annotations|policy.karmada.io/applied-overrides"),
               "\"policyName\":\"muster-web-deployment\""));
    fx_stop(&f);
}

/* Issue 20: a JobSet placed group by group over two clusters. Karmada has no ReviseReplica for
 * it (pkg/resourceinterpreter/default/native/revisereplica.go; no thirdparty customization), so
 * ensureWork sends the whole template to each cluster and the OverridePolicy's rule for that
 * cluster sets its count (pkg/controllers/binding/common.go); each member's JobSet controller
 * then runs exactly those Jobs, and its pods wait for that member's PodGroup. */
static const char split_yaml[] =
    "clusters:\n"
    "  - name: m\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"20\"}}]\n"
    "  - name: n\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"20\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: pp, namespace: team}\n"
    "    spec:\n"
    "      schedulerName: muster\n"
    "      resourceSelectors: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet}]\n"
    "  - apiVersion: jobset.x-k8s.io/v1alpha2\n"
    "    kind: JobSet\n"
    "    metadata: {name: train, namespace: team}\n"
    "    spec:\n"
    "      replicatedJobs:\n"
    "        - name: shard\n"
    "          replicas: 4\n"
    "          template:\n"
    "            spec:\n"
    "              parallelism: 2\n"
    "              completions: 2\n"
    "              template:\n"
    "                metadata: {labels: {app: t}}\n"
    "                spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n";

/* The rule muster writes for one cluster of a split (karmada/gang_split.c). */
#define SPLIT_RULE(cluster, count)                                                                 \
    "{\"targetCluster\":{\"clusterNames\":[\"" cluster "\"]},\"overriders\":{\"plaintext\":["      \
    "{\"path\":\"/spec/replicatedJobs/0/replicas\",\"operator\":\"add\",\"value\":" count "},"     \
    "{\"path\":\"/spec/replicatedJobs/0/template/spec/template/metadata/annotations\","            \
    "\"operator\":\"add\",\"value\":{\"scheduling.k8s.io/group-name\":\"muster-train-jobset\"}},"  \
    "{\"path\":\"/spec/replicatedJobs/0/template/spec/template/spec/schedulerName\","              \
    "\"operator\":\"add\",\"value\":\"volcano\"}]}}"

static const char *split_work(struct fx *f, const char *cluster, const char *path)
{
    char ns[64];
    snprintf(ns, sizeof(ns), "karmada-es-%s", cluster);
    static char name[256];
    snprintf(name, sizeof(name), "%s", fx_work_named(f, ns, "train-"));
    return fx_field(f, FX_WORK, ns, name, path);
}

static void test_split_jobset(void)
{
    const struct sim_resource *jobsets = fx_res("jobset.x-k8s.io", "v1alpha2", "jobsets");
    struct fx f;
    fx_start(&f, split_yaml, NULL);
    CU_ASSERT_EQUAL(
        fx_create(&f, FX_OP, "team",
                  "{\"metadata\":{\"name\":\"muster-train-jobset\"},\"spec\":{"
                  "\"resourceSelectors\":[{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\","
                  "\"kind\":\"JobSet\",\"name\":\"train\"}],\"overrideRules\":[" SPLIT_RULE(
                      "m", "3") "," SPLIT_RULE("n", "1") "]}}"),
        0);
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "train-jobset",
                             "{\"spec\":{\"clusters\":[{\"name\":\"m\",\"replicas\":6},{\"name\":"
                             "\"n\",\"replicas\":2}],\"suspension\":{\"scheduling\":false}}}"),
                    0);
    /* the whole template in each Work, its count the cluster's rule's, not spec.clusters' */
    CU_ASSERT_STRING_EQUAL(split_work(&f, "m",
                                      "spec|workload|manifests|0|spec|replicatedJobs|0|"
                                      "replicas"),
                           "3");
    CU_ASSERT_STRING_EQUAL(split_work(&f, "n",
                                      "spec|workload|manifests|0|spec|replicatedJobs|0|"
                                      "replicas"),
                           "1");
    CU_ASSERT_STRING_EQUAL(
        split_work(&f, "n",
                   "spec|workload|manifests|0|spec|replicatedJobs|0|template|spec|"
                   "template|metadata|labels|app"),
        "t");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, jobsets, "team", "train", "spec|replicatedJobs|0|replicas"),
                           "4");
    /* the members run exactly their Jobs, and wait for their PodGroup */
    json_object *js = fx_member(&f, "m", "JobSet", "train");
    CU_ASSERT_STRING_EQUAL(fx_at(js, "spec|replicatedJobs|0|replicas"), "3");
    json_object_put(js);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_CLUSTER, NULL, "m", "status|resourceSummary|allocated|cpu"), "0");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_CLUSTER, NULL, "m", "status|resourceSummary|allocating|pods"), "6");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_CLUSTER, NULL, "n", "status|resourceSummary|allocating|pods"), "2");
    char pg[2048];
    fx_podgroup_work(pg, sizeof(pg), "muster-pg-team.train-jobset", "m", "muster-train-jobset", 6,
                     "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-m", pg), 0);
    fx_podgroup_work(pg, sizeof(pg), "muster-pg-team.train-jobset", "n", "muster-train-jobset", 2,
                     "", 1, 1);
    CU_ASSERT_EQUAL(fx_create(&f, FX_WORK, "karmada-es-n", pg), 0);
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_CLUSTER, NULL, "m", "status|resourceSummary|allocated|cpu"), "6");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_CLUSTER, NULL, "n", "status|resourceSummary|allocated|cpu"), "2");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_CLUSTER, NULL, "n", "status|resourceSummary|allocating|pods"), "0");
    fx_stop(&f);
}

static CU_TestInfo tests[] = {
    {"member replicas from spec.clusters, not the template", test_work_replicas_from_clusters},
    {"policies applied in the override manager's order: by priority, then name",
     test_override_order},
    {"Works shaped as ensureWork/CreateOrUpdateWork, GenerateWorkName, applied-overrides",
     test_work_shape},
    {"the Work webhook labels every Work", test_work_webhook},
    {"orphan Works; the RB's Works go before it", test_orphans_and_rb_deletion},
    {"renders read a lagging OverridePolicy cache", test_override_cache_lag},
    {"a JobSet split over two clusters: whole template each, per-cluster counts, member gangs",
     test_split_jobset},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/binding", tests)
