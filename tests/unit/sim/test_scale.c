/* Tests for cluster-adapters/sim/scale.c: the scale subresource as kube-apiserver's ScaleREST
 * serves it (pkg/registry/apps/deployment/storage/storage.go scaleFromDeployment,
 * scaleUpdatedObjectInfo; .../statefulset/storage/storage.go), and what Karmada's detector does
 * with a scaled template (pkg/detector/detector.go, default/native/replica.go deployReplica and
 * statefulSetReplica): the RB's spec.replicas follows. */
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/sim/scale.h"
#include "cluster-adapters/sim/status.h"
#include "karmada_fixture.h"

static const char yaml[] = "clusters:\n"
                           "  - name: m\n"
                           "    nodes: [{count: 1, allocatable: {cpu: \"8\", pods: \"10\"}}]\n"
                           "objects:\n"
                           "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
                           "  - apiVersion: policy.karmada.io/v1alpha1\n"
                           "    kind: PropagationPolicy\n"
                           "    metadata: {name: pp, namespace: team}\n"
                           "    spec:\n"
                           "      schedulerName: muster\n"
                           "      resourceSelectors: [{apiVersion: apps/v1, kind: Deployment},\n"
                           "                          {apiVersion: apps/v1, kind: StatefulSet}]\n";

static const char deploy[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
    "\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":\"web\",\"a\":\"1\"},"
    "\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"b\",\"a\"]},"
    "{\"key\":\"gone\",\"operator\":\"DoesNotExist\"}]},\"template\":{\"spec\":"
    "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}}}";

static const char sts[] =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"db\"},"
    "\"spec\":{\"replicas\":3,\"serviceName\":\"db\",\"selector\":{\"matchLabels\":{\"app\":"
    "\"db\"}},\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
    "{\"requests\":{\"cpu\":\"2\"}}}]}}}}";

#define FX_STS fx_res("apps", "v1", "statefulsets")

/* What the server's PUT .../NAME/scale does: the Scale applied to the stored object, stored. */
static int put_scale(struct fx *f, const struct sim_resource *r, const char *name,
                     const char *scale, json_object **status)
{
    json_object *cur = fx_get(f, r, "team", name), *s = json_tokener_parse(scale), *upd = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    int rc = sim_scale_apply(r, cur, s, name, &upd, status);
    if (rc == 0)
        rc = sim_store_update(f->s, r, "team", name, upd, 0, NULL, status);
    json_object_put(upd);
    json_object_put(s);
    json_object_put(cur);
    return rc;
}

/* scaleFromDeployment: identity metadata, spec.replicas, status.replicas, the selector as a
 * string (requirements sorted by key, In values sorted). */
static void test_scale_of(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_create(&f, FX_DEPLOY, "team", deploy), 0);
    json_object *d = fx_get(&f, FX_DEPLOY, "team", "web");
    json_object *s = sim_scale_of(FX_DEPLOY, d);
    CU_ASSERT_STRING_EQUAL(fx_at(s, "kind"), "Scale");
    CU_ASSERT_STRING_EQUAL(fx_at(s, "apiVersion"), "autoscaling/v1");
    CU_ASSERT_STRING_EQUAL(fx_at(s, "metadata|name"), "web");
    CU_ASSERT_STRING_EQUAL(fx_at(s, "metadata|namespace"), "team");
    CU_ASSERT_STRING_EQUAL(fx_at(s, "metadata|uid"), fx_at(d, "metadata|uid"));
    CU_ASSERT_STRING_EQUAL(fx_at(s, "metadata|resourceVersion"),
                           fx_at(d, "metadata|resourceVersion"));
    CU_ASSERT_STRING_EQUAL(fx_at(s, "spec|replicas"), "2");
    CU_ASSERT_STRING_EQUAL(fx_at(s, "status|replicas"), "0");
    CU_ASSERT_STRING_EQUAL(fx_at(s, "status|selector"), "a=1,app=web,!gone,tier in (a,b)");
    CU_ASSERT_STRING_EQUAL(fx_at(s, "metadata|labels"), "");
    json_object_put(s);
    json_object_put(d);

    /* Scaled to 0: autoscaling/v1 ScaleSpec.replicas is omitempty. */
    CU_ASSERT_EQUAL(put_scale(&f, FX_DEPLOY, "web", "{\"spec\":{\"replicas\":0}}", NULL), 0);
    d = fx_get(&f, FX_DEPLOY, "team", "web");
    s = sim_scale_of(FX_DEPLOY, d);
    CU_ASSERT_STRING_EQUAL(fx_at(s, "spec"), "{}");
    CU_ASSERT_STRING_EQUAL(fx_at(d, "spec|replicas"), "0");
    json_object_put(s);
    json_object_put(d);
    fx_stop(&f);
}

/* A Scale write is an update of spec.replicas under the Scale's resourceVersion: a stale one
 * is 409 Conflict, negative replicas 422, another name or kind 400; nothing is stored then. */
static void test_scale_apply_errors(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_create(&f, FX_DEPLOY, "team", deploy), 0);
    json_object *st = NULL;
    CU_ASSERT_EQUAL(put_scale(&f, FX_DEPLOY, "web",
                              "{\"metadata\":{\"name\":\"web\",\"resourceVersion\":\"5\"},"
                              "\"spec\":{\"replicas\":4}}",
                              &st),
                    MUSTER_ECONFLICT);
    CU_ASSERT_EQUAL(sim_status_code(st), 409);
    CU_ASSERT_STRING_EQUAL(fx_at(st, "reason"), "Conflict");
    json_object_put(st);
    st = NULL;
    CU_ASSERT_NOT_EQUAL(put_scale(&f, FX_DEPLOY, "web", "{\"spec\":{\"replicas\":-1}}", &st), 0);
    CU_ASSERT_EQUAL(sim_status_code(st), 422);
    CU_ASSERT_STRING_EQUAL(fx_at(st, "message"),
                           "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: "
                           "-1: must be greater than or equal to 0");
    CU_ASSERT_STRING_EQUAL(fx_at(st, "details|kind"), "Scale");
    CU_ASSERT_STRING_EQUAL(fx_at(st, "details|group"), "autoscaling");
    json_object_put(st);
    st = NULL;
    CU_ASSERT_NOT_EQUAL(
        put_scale(&f, FX_DEPLOY, "web", "{\"metadata\":{\"name\":\"x\"},\"spec\":{}}", &st), 0);
    CU_ASSERT_EQUAL(sim_status_code(st), 400);
    json_object_put(st);
    st = NULL;
    CU_ASSERT_NOT_EQUAL(put_scale(&f, FX_DEPLOY, "web", "{\"kind\":\"Deployment\"}", &st), 0);
    CU_ASSERT_EQUAL(sim_status_code(st), 400);
    json_object_put(st);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_DEPLOY, "team", "web", "spec|replicas"), "2");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_DEPLOY, "team", "web", "metadata|generation"), "1");
    fx_stop(&f);
}

/* Scaling is a spec change of the template: generation moves, and the detector rewrites the
 * RB's spec.replicas (and replicaRequirements) as for any edit, keeping spec.clusters. */
static void test_scale_reaches_the_binding(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_create(&f, FX_DEPLOY, "team", deploy), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "web-deployment", "spec|replicas"), "2");
    CU_ASSERT_EQUAL(fx_patch(&f, FX_RB, "team", "web-deployment",
                             "{\"spec\":{\"clusters\":[{\"name\":\"m\",\"replicas\":2}]}}"),
                    0);
    char scale[4200];
    snprintf(scale, sizeof(scale),
             "{\"metadata\":{\"name\":\"web\",\"resourceVersion\":\"%s\"},\"spec\":"
             "{\"replicas\":5}}",
             fx_field(&f, FX_DEPLOY, "team", "web", "metadata|resourceVersion"));
    CU_ASSERT_EQUAL(put_scale(&f, FX_DEPLOY, "web", scale, NULL), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_DEPLOY, "team", "web", "metadata|generation"), "2");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "web-deployment", "spec|replicas"), "5");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_RB, "team", "web-deployment", "spec|replicaRequirements|resourceRequest"),
        "{\"cpu\":\"1\"}");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_RB, "team", "web-deployment", "spec|resource|resourceVersion"),
        fx_field(&f, FX_DEPLOY, "team", "web", "metadata|resourceVersion"));
    /* The scheduler's result is the scheduler's: the detector does not touch it. */
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "web-deployment", "spec|clusters"),
                           "[{\"name\":\"m\",\"replicas\":2}]");
    fx_stop(&f);
}

/* A StatefulSet is a template like a Deployment: its RB (statefulSetReplica), its scale. */
static void test_statefulset(void)
{
    struct fx f;
    fx_start(&f, yaml, NULL);
    CU_ASSERT_EQUAL(fx_create(&f, FX_STS, "team", sts), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "db-statefulset", "spec|resource|kind"),
                           "StatefulSet");
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "db-statefulset", "spec|replicas"), "3");
    CU_ASSERT_STRING_EQUAL(
        fx_field(&f, FX_RB, "team", "db-statefulset", "spec|replicaRequirements|resourceRequest"),
        "{\"cpu\":\"2\"}");
    CU_ASSERT_EQUAL(put_scale(&f, FX_STS, "db", "{\"spec\":{\"replicas\":1}}", NULL), 0);
    CU_ASSERT_STRING_EQUAL(fx_field(&f, FX_RB, "team", "db-statefulset", "spec|replicas"), "1");
    json_object *o = fx_get(&f, FX_STS, "team", "db");
    json_object *s = sim_scale_of(FX_STS, o);
    CU_ASSERT_STRING_EQUAL(fx_at(s, "status|selector"), "app=db");
    json_object_put(s);
    json_object_put(o);
    fx_stop(&f);
}

static CU_TestInfo tests[] = {
    {"the Scale of a Deployment (scaleFromDeployment)", test_scale_of},
    {"Scale writes: 409 on a stale resourceVersion, 422, 400", test_scale_apply_errors},
    {"scaling a template updates its RB's spec.replicas", test_scale_reaches_the_binding},
    {"StatefulSets: RB and scale", test_statefulset},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("sim/scale", tests)
