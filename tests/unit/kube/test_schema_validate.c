/* Tests for cluster-adapters/kube/schema_validate.c: realistic objects pass against the reference
 * CRDs, and each kind of mistake is reported with the apiserver-style message. */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"
#include "queue/mem.h"
#include "schema_fixtures.h"
#include "testing.h"

#include <json-c/json_pointer.h>
#include <stdio.h>
#include <string.h>

static void test_valid_fixtures(void)
{
    static const struct {
        const char *crd, *version, *fixture;
    } cases[] = {
        {RB_CRD, "v1alpha2", "resourcebinding.json"},
        {CRB_CRD, "v1alpha2", "clusterresourcebinding.json"},
        {WORK_CRD, "v1alpha1", "work-podgroup.json"},
        {PG_CRD, "v1beta1", "podgroup.json"},
        {QUEUE_CRD, "v1beta1", "queue.json"},
        {OP_CRD, "v1alpha1", "overridepolicy.json"},
        {PP_CRD, "v1alpha1", "propagationpolicy.json"},
        {CLUSTER_DEFS, CLUSTER_DEF, "cluster.json"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct kube_schema *s = load(cases[i].crd, cases[i].version);
        json_object *o = fixture(cases[i].fixture);
        expect_valid(s, o, cases[i].fixture);
        json_object_put(o);
        kube_schema_free(s);
    }
}

/* The PodGroup a Work carries is itself a valid PodGroup: the Work CRD only preserves it. */
static void test_work_manifest_is_podgroup(void)
{
    struct kube_schema *pg = load(PG_CRD, "v1beta1");
    json_object *w = fixture("work-podgroup.json"), *m = NULL;
    CU_ASSERT_EQUAL_FATAL(json_pointer_get(w, "/spec/workload/manifests/0", &m), 0);
    expect_valid(pg, m, "manifest 0");
    json_pointer_set(&w, "/spec/workload/manifests/0/spec/minMember", json_object_new_string("4"));
    expect_errors(pg, m, "manifest minMember",
                  "spec.minMember: Invalid value: \"4\": must be of type integer", NULL);
    json_object_put(w);
    kube_schema_free(pg);
}

static void test_rb_mutations(void)
{
    struct kube_schema *s = load(RB_CRD, "v1alpha2");
    const char *rb = "resourcebinding.json";
    json_object *o;

    o = with(rb, "/spec/foo", json_object_new_int(1));
    expect_errors(s, o, "unknown field", "spec.foo: field not declared in schema", NULL);
    json_object_put(o);

    o = with(rb, "/spec/clusters/0/replicas", json_object_new_string("x"));
    expect_errors(s, o, "wrong type",
                  "spec.clusters[0].replicas: Invalid value: \"x\": must be of type integer", NULL);
    json_object_put(o);

    o = without(rb, "/spec", "resource");
    expect_errors(s, o, "missing required", "spec.resource: Required value", NULL);
    json_object_put(o);

    o = without(rb, "/spec/resource", "kind");
    expect_errors(s, o, "missing nested required", "spec.resource.kind: Required value", NULL);
    json_object_put(o);

    o = with(rb, "/spec/placement/replicaScheduling/replicaSchedulingType",
             json_object_new_string("Sometimes"));
    expect_errors(s, o, "enum",
                  "spec.placement.replicaScheduling.replicaSchedulingType: Unsupported value: "
                  "\"Sometimes\": supported values: \"Duplicated\", \"Divided\"",
                  NULL);
    json_object_put(o);

    o = with(rb, "/spec/replicas", json_object_new_int64(2147483648LL));
    expect_errors(s, o, "int32",
                  "spec.replicas: Invalid value: 2147483648: out of range for format int32", NULL);
    json_object_put(o);

    o = with(rb, "/spec/replicas", json_object_new_int64(2147483647LL));
    expect_valid(s, o, "int32 max");
    json_object_put(o);

    /* kube-openapi takes a whole-number float as an integer; 4.5 is not one. */
    o = with(rb, "/spec/replicas", json_object_new_double(4.0));
    expect_valid(s, o, "4.0 as integer");
    json_object_put(o);
    o = with(rb, "/spec/replicas", json_object_new_double(4.5));
    expect_errors(s, o, "4.5 as integer",
                  "spec.replicas: Invalid value: 4.5: must be of type integer", NULL);
    json_object_put(o);

    o = with(rb, "/spec/replicaRequirements/resourceRequest/cpu", json_object_new_string("12xyz"));
    expect_errors(s, o, "bad quantity",
                  "spec.replicaRequirements.resourceRequest.cpu: Invalid value: \"12xyz\": "
                  "should match '" QUANTITY_RE "'",
                  NULL);
    json_object_put(o);

    /* int-or-string takes no fractions: 0.5 must be written "500m". */
    o = with(rb, "/spec/components/1/replicaRequirements/resourceRequest/memory",
             json_object_new_double(0.5));
    expect_errors(s, o, "fractional quantity",
                  "spec.components[1].replicaRequirements.resourceRequest.memory: Invalid value: "
                  "0.5: must be of type integer or string",
                  NULL);
    json_object_put(o);

    o = with(rb, "/spec/components/0/name",
             json_object_new_string("a-component-name-over-32-chars!!!"));
    expect_errors(s, o, "maxLength", "spec.components[0].name: Too long: may not be longer than 32",
                  NULL);
    json_object_put(o);

    o = with(rb, "/status/conditions/0/reason", json_object_new_string("not a reason"));
    expect_errors(s, o, "pattern",
                  "status.conditions[0].reason: Invalid value: \"not a reason\": should match "
                  "'^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'",
                  NULL);
    json_object_put(o);

    o = with(rb, "/status/conditions/1/lastTransitionTime", json_object_new_string("yesterday"));
    expect_errors(s, o, "date-time",
                  "status.conditions[1].lastTransitionTime: Invalid value: \"yesterday\": must be "
                  "of type date-time",
                  NULL);
    json_object_put(o);

    o = with(rb, "/status/conditions/0/status", json_object_new_boolean(1));
    expect_errors(s, o, "bool for string",
                  "status.conditions[0].status: Invalid value: true: must be of type string", NULL);
    json_object_put(o);

    /* The apiserver drops null non-nullable fields before validating: optional ones vanish,
     * required ones are then missing. */
    o = with(rb, "/spec/replicas", NULL);
    expect_valid(s, o, "null optional");
    json_object_put(o);
    o = with(rb, "/status/conditions/0/message", NULL);
    expect_errors(s, o, "null required", "status.conditions[0].message: Required value", NULL);
    json_object_put(o);

    o = with(rb, "/spec/placement/replicaScheduling/weightPreference/staticWeightList",
             json_tokener_parse("[{\"targetCluster\": {\"clusterNames\": [\"member1\"]},"
                                " \"weight\": 0}]"));
    expect_errors(s, o, "minimum",
                  "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: "
                  "Invalid value: 0: should be greater than or equal to 1",
                  NULL);
    json_object_put(o);

    /* Status of a member cluster's object is preserved as is. */
    o = with(rb, "/status/aggregatedStatus/0/status/anything", json_object_new_string("goes"));
    expect_valid(s, o, "preserved status");
    json_object_put(o);

    o = with(rb, "/metadata/labels/replicas", json_object_new_int(3));
    expect_errors(s, o, "label value type",
                  "metadata.labels.replicas: Invalid value: 3: must be of type string", NULL);
    json_object_put(o);

    o = with(rb, "/metadata/owner", json_object_new_string("me"));
    expect_errors(s, o, "unknown metadata field", "metadata.owner: field not declared in schema",
                  NULL);
    json_object_put(o);

    o = with(rb, "/apiVersion", json_object_new_string("work.karmada.io/v1alpha1"));
    expect_errors(s, o, "other version",
                  "apiVersion: Unsupported value: \"work.karmada.io/v1alpha1\": supported values: "
                  "\"work.karmada.io/v1alpha2\"",
                  NULL);
    json_object_put(o);

    o = with(rb, "/spec/clusters/0/replicas", json_object_new_string("x"));
    json_pointer_set(&o, "/spec/foo", json_object_new_int(1));
    json_pointer_set(&o, "/spec/suspension/scheduling", json_object_new_string("no"));
    expect_errors(s, o, "three at once",
                  "spec.clusters[0].replicas: Invalid value: \"x\": must be of type integer",
                  "spec.foo: field not declared in schema",
                  "spec.suspension.scheduling: Invalid value: \"no\": must be of type boolean",
                  NULL);
    json_object_put(o);

    o = json_tokener_parse("[1]");
    expect_errors(s, o, "not an object", "<root>: Invalid value: \"array\": must be of type object",
                  NULL);
    json_object_put(o);
    kube_schema_free(s);
}

static void test_cluster_mutations(void)
{
    struct kube_schema *s = load(CLUSTER_DEFS, CLUSTER_DEF);
    const char *c = "cluster.json";
    json_object *o;

    o = without(c, "/spec", "syncMode");
    expect_errors(s, o, "required despite default", "spec.syncMode: Required value", NULL);
    json_object_put(o);

    o = with(c, "/spec/taints/0/effect", json_object_new_string("NoDispatch"));
    expect_errors(s, o, "taint effect",
                  "spec.taints[0].effect: Unsupported value: \"NoDispatch\": supported values: "
                  "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                  NULL);
    json_object_put(o);

    o = with(c, "/status/resourceSummary/allocatableModelings/1/count",
             json_object_new_string("6"));
    expect_errors(s, o, "modeling count",
                  "status.resourceSummary.allocatableModelings[1].count: Invalid value: \"6\": "
                  "must be of type integer",
                  NULL);
    json_object_put(o);

    o = without(c, "/spec/resourceModels/1/ranges/0", "min");
    expect_errors(s, o, "range min", "spec.resourceModels[1].ranges[0].min: Required value", NULL);
    json_object_put(o);

    o = with(c, "/status/resourceSummary/allocatable/cpu", json_object_new_string("lots"));
    expect_errors(s, o, "quantity",
                  "status.resourceSummary.allocatable.cpu: Invalid value: \"lots\": should match "
                  "'" QUANTITY_RE "'",
                  NULL);
    json_object_put(o);

    /* A typed server decodes Quantity from a JSON number too. */
    o = with(c, "/status/resourceSummary/allocatable/cpu", json_object_new_double(383.5));
    expect_valid(s, o, "numeric quantity");
    json_object_put(o);

    o = with(c, "/spec/secretRef/key", json_object_new_string("token"));
    expect_errors(s, o, "unknown in ref", "spec.secretRef.key: field not declared in schema", NULL);
    json_object_put(o);

    o = with(c, "/status/conditions/0/status", json_object_new_string("Maybe"));
    expect_errors(s, o, "condition status",
                  "status.conditions[0].status: Unsupported value: \"Maybe\": supported values: "
                  "\"True\", \"False\", \"Unknown\"",
                  NULL);
    json_object_put(o);

    o = with(c, "/status/nodeSummary/readyNum", json_object_new_int64(-3000000000LL));
    expect_errors(s, o, "int32 low",
                  "status.nodeSummary.readyNum: Invalid value: -3000000000: out of range for "
                  "format int32",
                  NULL);
    json_object_put(o);
    kube_schema_free(s);
}

static void test_volcano_mutations(void)
{
    struct kube_schema *pg = load(PG_CRD, "v1beta1");
    json_object *o;
    o = with("podgroup.json", "/spec/minMember", json_object_new_int(-1));
    expect_errors(pg, o, "minMember",
                  "spec.minMember: Invalid value: -1: should be greater than or equal to 0", NULL);
    json_object_put(o);
    o = with("podgroup.json", "/spec/queue", json_object_new_string("Team_A"));
    expect_errors(pg, o, "queue name",
                  "spec.queue: Invalid value: \"Team_A\": should match "
                  "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'",
                  NULL);
    json_object_put(o);
    o = with("podgroup.json", "/status/phase", json_object_new_string("Scheduling"));
    expect_errors(pg, o, "phase",
                  "status.phase: Unsupported value: \"Scheduling\": supported values: \"Pending\", "
                  "\"Running\", \"Unknown\", \"Inqueue\", \"Completed\"",
                  NULL);
    json_object_put(o);
    kube_schema_free(pg);

    struct kube_schema *q = load(QUEUE_CRD, "v1beta1");
    o = with("queue.json", "/spec/weight", json_object_new_int(65536));
    expect_errors(q, o, "weight",
                  "spec.weight: Invalid value: 65536: should be less than or equal to 65535", NULL);
    json_object_put(o);
    kube_schema_free(q);

    struct kube_schema *w = load(WORK_CRD, "v1alpha1");
    o = with("work-podgroup.json", "/spec/workload/manifests/0/whatever",
             json_object_new_string("kept"));
    expect_valid(w, o, "manifest preserved");
    json_object_put(o);
    o = with("work-podgroup.json", "/status/manifestStatuses/0/health",
             json_object_new_string("Fine"));
    expect_errors(w, o, "health",
                  "status.manifestStatuses[0].health: Unsupported value: \"Fine\": supported "
                  "values: \"Healthy\", \"Unhealthy\", \"Unknown\"",
                  NULL);
    json_object_put(o);
    kube_schema_free(w);

    struct kube_schema *op = load(OP_CRD, "v1alpha1");
    o = with("overridepolicy.json", "/spec/overrideRules/0/overriders/plaintext/0/operator",
             json_object_new_string("set"));
    expect_errors(op, o, "plaintext operator",
                  "spec.overrideRules[0].overriders.plaintext[0].operator: Unsupported value: "
                  "\"set\": supported values: \"add\", \"remove\", \"replace\"",
                  NULL);
    json_object_put(o);
    kube_schema_free(op);
}

/* tests/fixtures/reference/examples: Volcano Jobs and the RB components Karmada derives from
 * them. */
static void test_reference_examples(void)
{
    char path[1024], err[512];
    ref_path(path, sizeof path, "examples/karmada_vcjob_interpretcomponent-test.yaml");
    json_object *docs = NULL;
    int rc = kube_yaml_read(path, &docs, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    struct kube_schema *job = load(VCJOB_CRD, "v1alpha1");
    struct kube_schema *rb = load(RB_CRD, "v1alpha2");
    size_t n = json_object_array_length(docs);
    CU_ASSERT(n >= 5);
    for (size_t i = 0; i < n; i++) {
        json_object *d = json_object_array_get_idx(docs, i), *obj, *out, *comps;
        const char *name = json_object_get_string(json_object_object_get(d, "name"));
        CU_ASSERT_FATAL(json_object_object_get_ex(d, "observedObj", &obj));
        expect_valid(job, obj, name);
        if (!json_object_object_get_ex(d, "output", &out) ||
            !json_object_object_get_ex(out, "components", &comps))
            continue;
        json_object *binding = json_tokener_parse(
            "{\"apiVersion\": \"work.karmada.io/v1alpha2\", \"kind\": \"ResourceBinding\","
            " \"metadata\": {\"name\": \"test-job-job\", \"namespace\": \"default\"},"
            " \"spec\": {\"resource\": {\"apiVersion\": \"batch.volcano.sh/v1alpha1\","
            " \"kind\": \"Job\", \"name\": \"test-job\"}}}");
        json_object *spec = json_object_object_get(binding, "spec");
        json_object_object_add(spec, "components", json_object_get(comps));
        expect_valid(rb, binding, name);
        json_object_put(binding);
    }
    json_object_put(docs);
    kube_schema_free(job);
    kube_schema_free(rb);
}

/* A CRD exercising what the reference CRDs do not: embedded resources, nullable, junctors,
 * additionalProperties false, list types, item and length bounds, exclusive bounds. */
static const char synthetic_crd[] =
    "# a comment, then a document marker\n---\n"
    "apiVersion: apiextensions.k8s.io/v1\n"
    "kind: CustomResourceDefinition\n"
    "metadata: {name: widgets.example.muster.io}\n"
    "spec:\n"
    "  group: example.muster.io\n"
    "  names: {kind: Widget, plural: widgets}\n"
    "  scope: Namespaced\n"
    "  versions:\n"
    "  - name: v1\n"
    "    served: true\n"
    "    storage: true\n"
    "    schema:\n"
    "      openAPIV3Schema:\n"
    "        type: object\n"
    "        properties:\n"
    "          apiVersion: {type: string}\n"
    "          kind: {type: string}\n"
    "          metadata: {type: object}\n"
    "          spec:\n"
    "            type: object\n"
    "            required: [size]\n"
    "            properties:\n"
    "              size: {type: integer, format: int64, minimum: 0, exclusiveMinimum: true,\n"
    "                     maximum: 10, exclusiveMaximum: true}\n"
    "              ratio: {type: number, maximum: 1.5, multipleOf: 0.5}\n"
    "              note: {type: string, nullable: true, minLength: 2}\n"
    "              mode: {type: string, default: fast, enum: [fast, slow]}\n"
    "              port:\n"
    "                x-kubernetes-int-or-string: true\n"
    "                anyOf: [{type: integer}, {type: string}]\n"
    "              template:\n"
    "                type: object\n"
    "                x-kubernetes-embedded-resource: true\n"
    "                x-kubernetes-preserve-unknown-fields: true\n"
    "              tags:\n"
    "                type: array\n"
    "                minItems: 1\n"
    "                maxItems: 3\n"
    "                x-kubernetes-list-type: set\n"
    "                items: {type: string}\n"
    "              ports:\n"
    "                type: array\n"
    "                x-kubernetes-list-type: map\n"
    "                x-kubernetes-list-map-keys: [name]\n"
    "                items:\n"
    "                  type: object\n"
    "                  required: [name]\n"
    "                  properties:\n"
    "                    name: {type: string}\n"
    "                    number: {type: integer, format: int32}\n"
    "              strict:\n"
    "                type: object\n"
    "                additionalProperties: false\n"
    "                properties: {a: {type: string}}\n"
    "              free:\n"
    "                type: object\n"
    "                x-kubernetes-preserve-unknown-fields: true\n"
    "                properties:\n"
    "                  nested:\n"
    "                    type: object\n"
    "                    properties: {x: {type: boolean}}\n"
    "              choice:\n"
    "                type: object\n"
    "                properties:\n"
    "                  a: {type: string}\n"
    "                  b: {type: string}\n"
    "                oneOf:\n"
    "                - required: [a]\n"
    "                - required: [b]\n"
    "              both:\n"
    "                type: string\n"
    "                allOf:\n"
    "                - {pattern: '^\\d+'}\n"
    "                - {maxLength: 4}\n"
    "              day: {type: string, format: date}\n"
    "              ident: {type: string, pattern: '^[\\w.-]+$'}\n"
    "              route: {type: string, pattern: '^\\/api\\/v\\d+(\\.\\d+)*?$'}\n"
    "              loose: {type: string, pattern: '(?i)^abc$'}\n";

static struct kube_schema *load_synthetic(void)
{
    char err[512];
    struct kube_schema *s = NULL;
    int rc = kube_schema_parse_crd(synthetic_crd, strlen(synthetic_crd), "widgets.yaml", "v1", &s,
                                   err, sizeof err);
    if (rc)
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    /* (?i) has no POSIX form: that one pattern is not checked, and is counted. */
    CU_ASSERT_EQUAL(kube_schema_unchecked_patterns(s), 1);
    return s;
}

static json_object *widget(const char *spec)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"apiVersion\": \"example.muster.io/v1\", \"kind\": \"Widget\","
             " \"metadata\": {\"name\": \"w\"}, \"spec\": %s}",
             spec);
    json_object *o = json_tokener_parse(buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    return o;
}

static void check_widget(const struct kube_schema *s, const char *spec, const char *want)
{
    json_object *o = widget(spec);
    if (want)
        expect_errors(s, o, spec, want, NULL);
    else
        expect_valid(s, o, spec);
    json_object_put(o);
}

static void test_synthetic_rules(void)
{
    struct kube_schema *s = load_synthetic();
    CU_ASSERT_STRING_EQUAL(kube_schema_api_version(s), "example.muster.io/v1");
    check_widget(s,
                 "{\"size\": 5, \"ratio\": 1.5, \"note\": null, \"mode\": null, \"port\": \"http\","
                 " \"tags\": [\"a\", \"b\"], \"ports\": [{\"name\": \"a\"}, {\"name\": \"b\"}],"
                 " \"strict\": {\"a\": \"x\"}, \"free\": {\"y\": 1, \"nested\": {\"x\": true}},"
                 " \"choice\": {\"a\": \"1\"}, \"both\": \"12\", \"day\": \"2026-11-21\","
                 " \"template\": {\"apiVersion\": \"v1\", \"kind\": \"Pod\","
                 "  \"metadata\": {\"name\": \"p\", \"labels\": {\"a\": \"b\"}}, \"spec\": {}}}",
                 NULL);
    check_widget(s, "{\"size\": 0}", "spec.size: Invalid value: 0: should be greater than 0");
    check_widget(s, "{\"size\": 10}", "spec.size: Invalid value: 10: should be less than 10");
    check_widget(s, "{\"size\": 9223372036854775808}",
                 "spec.size: Invalid value: 9223372036854775808: must be of type integer");
    check_widget(s, "{\"size\": 1, \"ratio\": 1.25}",
                 "spec.ratio: Invalid value: 1.25: should be a multiple of 0.5");
    check_widget(s, "{\"size\": 1, \"ratio\": 2}",
                 "spec.ratio: Invalid value: 2: should be less than or equal to 1.5");
    check_widget(s, "{\"size\": 1, \"note\": \"x\"}",
                 "spec.note: Invalid value: \"x\": should be at least 2 chars long");
    check_widget(s, "{\"mode\": \"fast\"}", "spec.size: Required value");
    check_widget(s, "{\"size\": 1, \"port\": true}",
                 "spec.port: Invalid value: true: must be of type integer or string");
    check_widget(s, "{\"size\": 1, \"tags\": []}",
                 "spec.tags: Invalid value: \"array\": should have at least 1 items");
    check_widget(s, "{\"size\": 1, \"tags\": [\"a\", \"b\", \"c\", \"d\"]}",
                 "spec.tags: Too many: 4: must have at most 3 items");
    check_widget(s, "{\"size\": 1, \"tags\": [\"a\", \"a\"]}",
                 "spec.tags[1]: Duplicate value: \"a\"");
    check_widget(s,
                 "{\"size\": 1, \"ports\": [{\"name\": \"a\", \"number\": 1},"
                 " {\"name\": \"a\", \"number\": 2}]}",
                 "spec.ports[1]: Duplicate value: {\"name\":\"a\"}");
    check_widget(s, "{\"size\": 1, \"strict\": {\"b\": \"x\"}}",
                 "spec.strict.b: field not declared in schema");
    check_widget(s, "{\"size\": 1, \"free\": {\"nested\": {\"y\": 1}}}",
                 "spec.free.nested.y: field not declared in schema");
    check_widget(s, "{\"size\": 1, \"both\": \"12345\"}",
                 "spec.both: Too long: may not be longer than 4");
    check_widget(s, "{\"size\": 1, \"both\": \"x1\"}",
                 "spec.both: Invalid value: \"x1\": should match '^\\d+'");
    check_widget(s, "{\"size\": 1, \"day\": \"2026-13-01\"}",
                 "spec.day: Invalid value: \"2026-13-01\": must be of type date");
    check_widget(s, "{\"size\": 1, \"template\": {\"kind\": \"Pod\"}}",
                 "spec.template.apiVersion: Required value");
    check_widget(s,
                 "{\"size\": 1, \"template\": {\"apiVersion\": \"v1\", \"kind\": \"Pod\","
                 " \"metadata\": {\"labels\": {\"a\": 1}}}}",
                 "spec.template.metadata.labels.a: Invalid value: 1: must be of type string");
    check_widget(s,
                 "{\"size\": 1, \"ident\": \"a_b.c-d\", \"route\": \"/api/v1.2\","
                 " \"loose\": \"ABC, or anything\"}",
                 NULL);
    check_widget(s, "{\"size\": 1, \"ident\": \"a b\"}",
                 "spec.ident: Invalid value: \"a b\": should match '^[\\w.-]+$'");
    check_widget(s, "{\"size\": 1, \"route\": \"/api/vx\"}",
                 "spec.route: Invalid value: \"/api/vx\": should match "
                 "'^\\/api\\/v\\d+(\\.\\d+)*?$'");
    check_widget(s, "{\"size\": 1, \"ports\": [{\"number\": 80}]}",
                 "spec.ports[0].name: Required value");

    /* oneOf with both branches matching, and the missing-both case reports the branches. */
    json_object *o = widget("{\"size\": 1, \"choice\": {\"a\": \"1\", \"b\": \"2\"}}");
    expect_errors(s, o, "oneOf both",
                  "spec.choice: Invalid value: \"object\": must validate one and only one schema "
                  "(oneOf)",
                  NULL);
    json_object_put(o);
    o = widget("{\"size\": 1, \"choice\": {}}");
    expect_errors(s, o, "oneOf neither",
                  "spec.choice: Invalid value: \"object\": must validate one and only one schema "
                  "(oneOf)",
                  "spec.choice.a: Required value", "spec.choice.b: Required value", NULL);
    json_object_put(o);
    kube_schema_free(s);
}

static void test_error_cap(void)
{
    struct kube_schema *s = load_synthetic();
    json_object *spec = json_object_new_object();
    json_object_object_add(spec, "size", json_object_new_int(1));
    for (int i = 0; i < KUBE_SCHEMA_MAX_ERRORS + 50; i++) {
        char k[32];
        snprintf(k, sizeof k, "extra%d", i);
        json_object_object_add(spec, k, json_object_new_int(i));
    }
    json_object *o = widget("{}");
    json_object_object_add(o, "spec", spec);
    struct kube_schema_errors e;
    kube_schema_errors_init(&e);
    CU_ASSERT_EQUAL(kube_schema_validate(s, o, &e), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(e.count, KUBE_SCHEMA_MAX_ERRORS);
    CU_ASSERT_EQUAL(e.dropped, 50);
    CU_ASSERT_STRING_EQUAL(e.msgs[0], "spec.extra0: field not declared in schema");
    kube_schema_errors_close(&e);
    kube_schema_errors_close(&e);
    json_object_put(o);
    kube_schema_free(s);
}

/* A self-referencing swagger definition: validation depth is bounded, not the stack. */
static void test_recursion_bound(void)
{
    char path[1024], err[512];
    test_tmp_path(path, sizeof path, "tree.json");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"definitions\": {\"Tree\": {\"type\": \"object\", \"properties\": {"
          "\"child\": {\"$ref\": \"#/definitions/Tree\"}}},"
          " \"Loop\": {\"$ref\": \"#/definitions/Loop\"}}}",
          f);
    fclose(f);
    struct kube_schema *s = NULL;
    struct kube_schema *loop = NULL;
    CU_ASSERT_EQUAL(kube_schema_load_swagger(path, "Loop", &loop, err, sizeof err), MUSTER_EINVAL);
    CU_ASSERT_PTR_NULL(loop);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "$ref cycle"));
    CU_ASSERT_EQUAL_FATAL(kube_schema_load_swagger(path, "Tree", &s, err, sizeof err), 0);
    remove(path);
    json_object *root = json_object_new_object(), *cur = root;
    for (int i = 0; i < KUBE_SCHEMA_MAX_DEPTH + 10; i++) {
        json_object *next = json_object_new_object();
        json_object_object_add(cur, "child", next);
        cur = next;
    }
    struct kube_schema_errors e;
    kube_schema_errors_init(&e);
    CU_ASSERT_EQUAL(kube_schema_validate(s, root, &e), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(e.count, 1);
    CU_ASSERT(e.count && strstr(e.msgs[0], "nested deeper than") != NULL);
    kube_schema_errors_close(&e);
    json_object_put(root);
    kube_schema_free(s);
}

static CU_TestInfo tests[] = {
    {"realistic fixtures are valid", test_valid_fixtures},
    {"the PodGroup inside a Work is a valid PodGroup", test_work_manifest_is_podgroup},
    {"ResourceBinding mutations", test_rb_mutations},
    {"Cluster mutations", test_cluster_mutations},
    {"PodGroup, Queue, Work and OverridePolicy mutations", test_volcano_mutations},
    {"reference examples: Volcano Jobs and their RB components", test_reference_examples},
    {"rules the reference CRDs do not use", test_synthetic_rules},
    {"error list is capped", test_error_cap},
    {"recursion is bounded", test_recursion_bound},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("kube/schema_validate", tests)
