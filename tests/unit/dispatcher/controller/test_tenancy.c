/* Tenancy without a hub (dispatcher/controller/tenancy.c): which selector applies to a queue
 * (its own, else the nearest ancestor's), YuniKorn paths resolved in muster's tree, and what is
 * kept of a Namespace. Matching itself is kube/selector's (tests/unit/kube/test_selector.c);
 * refusal, parking and judging again run end to end in integration/dispatch_tenancy. */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

static void add_queue(struct queue_tree *t, const char *name, const char *parent)
{
    struct queue_spec s;
    memset(&s, 0, sizeof s);
    s.name = name;
    s.parent = parent;
    s.weight = 1;
    struct queue_error qe;
    CU_ASSERT_EQUAL_FATAL(queue_tree_create(t, &s, &qe), 0);
}

/* root > research > {nlp > llm, vision}; root > default (the tree's own) */
static void tree(struct ctl *c)
{
    memset(c, 0, sizeof *c);
    c->t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->t);
    add_queue(c->t, "research", "root");
    add_queue(c->t, "nlp", "research");
    add_queue(c->t, "llm", "nlp");
    add_queue(c->t, "vision", "research");
}

/* c->ten as ctl__tenancy_refresh leaves it: the queues that set a selector, by name. */
static void selectors(struct ctl *c, const char *const *names, const char *const *sels, size_t n)
{
    c->ten.v = muster_calloc(n, sizeof(*c->ten.v));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->ten.v);
    for (size_t i = 0; i < n; i++) {
        snprintf(c->ten.v[i].name, sizeof c->ten.v[i].name, "%s", names[i]);
        c->ten.v[i].sel = json_tokener_parse(sels[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c->ten.v[i].sel);
    }
    c->ten.n = c->ten.cap = n;
}

static void done(struct ctl *c)
{
    ctl__tenancy_close(c);
    queue_tree_free(c->t);
}

static void test_inheritance(void)
{
    struct ctl c;
    tree(&c);
    const char *from = NULL;
    CU_ASSERT_PTR_NULL(ctl__tenancy_selector(&c, "llm", &from)); /* none anywhere */
    static const char *const names[] = {"nlp", "research"};
    static const char *const sels[] = {"{\"matchLabels\":{\"team\":\"nlp\"}}",
                                       "{\"matchLabels\":{\"org\":\"research\"}}"};
    selectors(&c, names, sels, 2);
    json_object *s = ctl__tenancy_selector(&c, "llm", &from);
    CU_ASSERT_PTR_EQUAL(s, c.ten.v[0].sel); /* the nearest ancestor's: nlp's */
    CU_ASSERT_STRING_EQUAL(from, "nlp");
    s = ctl__tenancy_selector(&c, "nlp", &from);
    CU_ASSERT_STRING_EQUAL(from, "nlp"); /* its own */
    s = ctl__tenancy_selector(&c, "vision", &from);
    CU_ASSERT_PTR_EQUAL(s, c.ten.v[1].sel);
    CU_ASSERT_STRING_EQUAL(from, "research");
    CU_ASSERT_PTR_NULL(ctl__tenancy_selector(&c, "default", &from)); /* outside research */
    CU_ASSERT_PTR_NULL(ctl__tenancy_selector(&c, "nosuch", &from));
    done(&c);
}

static void test_yunikorn_paths(void)
{
    struct ctl c;
    tree(&c);
    char leaf[QUEUE_NAME_MAX + 1], why[256];
    CU_ASSERT_EQUAL(
        ctl__tenancy_path(&c, "root.research.nlp.llm", leaf, sizeof leaf, why, sizeof why), 0);
    CU_ASSERT_STRING_EQUAL(leaf, "llm");
    CU_ASSERT_EQUAL(ctl__tenancy_path(&c, "root.research", leaf, sizeof leaf, why, sizeof why), 0);
    CU_ASSERT_STRING_EQUAL(leaf, "research");
    CU_ASSERT_EQUAL(ctl__tenancy_path(&c, "vision", leaf, sizeof leaf, why, sizeof why), 0);
    CU_ASSERT_STRING_EQUAL(leaf, "vision"); /* no dots: a plain name */
    CU_ASSERT_EQUAL(ctl__tenancy_path(&c, "root.vision.llm", leaf, sizeof leaf, why, sizeof why),
                    MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(why, "YuniKorn queue path root.vision.llm: queue llm is under nlp, not "
                                "vision");
    CU_ASSERT_EQUAL(ctl__tenancy_path(&c, "root.nlp.llm", leaf, sizeof leaf, why, sizeof why),
                    MUSTER_EINVAL); /* one level missing */
    CU_ASSERT_EQUAL(ctl__tenancy_path(&c, "other.research.nlp", leaf, sizeof leaf, why, sizeof why),
                    MUSTER_EINVAL);
    CU_ASSERT_STRING_EQUAL(why, "YuniKorn queue path other.research.nlp: queue research is under "
                                "root, not other");
    /* a leaf muster does not have yet: the binding waits for that queue */
    CU_ASSERT_EQUAL(
        ctl__tenancy_path(&c, "root.research.speech", leaf, sizeof leaf, why, sizeof why), 0);
    CU_ASSERT_STRING_EQUAL(leaf, "speech");
    /* a queue named with the dots itself is that queue */
    add_queue(c.t, "root.research.nlp", "root");
    CU_ASSERT_EQUAL(ctl__tenancy_path(&c, "root.research.nlp", leaf, sizeof leaf, why, sizeof why),
                    0);
    CU_ASSERT_STRING_EQUAL(leaf, "root.research.nlp");
    done(&c);
}

/* Kueue LocalQueues: found by "<namespace>/<name>" in the table the refresh sorts. */
static void test_local_queues(void)
{
    struct ctl c;
    tree(&c);
    CU_ASSERT_PTR_NULL(ctl__tenancy_local_queue(&c, "lab", "gpu")); /* none mapped */
    static const char *const keys[][2] = {
        {"a/x", "nlp"}, {"lab/gpu", "vision"}, {"lab/gpu-large", "llm"}, {"team/gpu", "nlp"}};
    c.ten.lq = muster_calloc(4, sizeof(*c.ten.lq));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c.ten.lq);
    for (size_t i = 0; i < 4; i++) {
        snprintf(c.ten.lq[i].key, sizeof c.ten.lq[i].key, "%s", keys[i][0]);
        snprintf(c.ten.lq[i].queue, sizeof c.ten.lq[i].queue, "%s", keys[i][1]);
    }
    c.ten.nlq = c.ten.caplq = 4;
    CU_ASSERT_STRING_EQUAL(ctl__tenancy_local_queue(&c, "lab", "gpu"), "vision");
    CU_ASSERT_STRING_EQUAL(ctl__tenancy_local_queue(&c, "lab", "gpu-large"), "llm");
    CU_ASSERT_STRING_EQUAL(ctl__tenancy_local_queue(&c, "team", "gpu"), "nlp");
    CU_ASSERT_PTR_NULL(ctl__tenancy_local_queue(&c, "lab", "gp")); /* whole names only */
    CU_ASSERT_PTR_NULL(
        ctl__tenancy_local_queue(&c, "other", "gpu")); /* a LocalQueue is per namespace */
    done(&c);
}

/* A gang of namespace/name in queue asking gpus GPUs. */
static void gang(struct ctl *c, struct binding *b, const char *key, const char *queue, int64_t gpus)
{
    memset(b, 0, sizeof *b);
    b->key = (char *)key; /* borrowed: the test never frees it */
    b->queue = queue;
    uint32_t id;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(c->names, "nvidia.com/gpu", 14, &id), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&b->gang, id, gpus * 1000), 0);
}

/* namespaceLimits on research (2 gangs, 8 GPUs a namespace) hold for nlp and llm under it, per
 * namespace; vision's own limit (0 GPUs listed: none at all) only for vision. */
static void test_namespace_limits(void)
{
    struct ctl c;
    tree(&c);
    c.names = queue_tree_resnames(c.t);
    c.ten.v = muster_calloc(2, sizeof(*c.ten.v));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c.ten.v);
    uint32_t gpu;
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(c.names, "nvidia.com/gpu", 14, &gpu), 0);
    snprintf(c.ten.v[0].name, sizeof c.ten.v[0].name, "research");
    struct ctl_limit *ns0 = &c.ten.v[0].lim[CTL_TENANT_NAMESPACE];
    ns0->on = 1;
    ns0->max_gangs = 2;
    CU_ASSERT_EQUAL(queue_resvec_set(&ns0->max_res, gpu, 8000), 0);
    snprintf(c.ten.v[1].name, sizeof c.ten.v[1].name, "vision");
    c.ten.v[1].lim[CTL_TENANT_NAMESPACE].on = 1;
    CU_ASSERT_EQUAL(queue_resvec_put(&c.ten.v[1].lim[CTL_TENANT_NAMESPACE].max_res, gpu, 0), 0);
    c.ten.n = c.ten.cap = 2;
    c.ten.nlimited = 2;
    ctl__tenancy_usage(&c); /* no bindings: nothing held */
    struct binding a1, a2, a3, b1, big, v1;
    char why[320];
    gang(&c, &a1, "team-a/one", "nlp", 2);
    gang(&c, &a2, "team-a/two", "llm", 2);
    gang(&c, &a3, "team-a/three", "nlp", 2);
    gang(&c, &b1, "team-b/one", "llm", 2);
    gang(&c, &big, "team-b/big", "nlp", 7);
    gang(&c, &v1, "team-b/v", "vision", 1);
    CU_ASSERT_TRUE(ctl__tenancy_within_limits(&c, &a1, why, sizeof why));
    ctl__tenancy_admitted(&c, &a1);
    CU_ASSERT_TRUE(ctl__tenancy_within_limits(&c, &a2, why, sizeof why)); /* llm is under it too */
    ctl__tenancy_admitted(&c, &a2);
    CU_ASSERT_FALSE(ctl__tenancy_within_limits(&c, &a3, why, sizeof why));
    CU_ASSERT_STRING_EQUAL(why, "namespace team-a holds 2 gang(s) in queue research, the most a "
                                "namespace may (namespaceLimits.gangs 2)");
    CU_ASSERT_TRUE(ctl__tenancy_within_limits(&c, &b1, why, sizeof why)); /* another tenant */
    ctl__tenancy_admitted(&c, &b1);
    CU_ASSERT_FALSE(ctl__tenancy_within_limits(&c, &big, why, sizeof why)); /* 2 + 7 > 8 */
    CU_ASSERT_STRING_EQUAL(why, "namespace team-b would hold 9 nvidia.com/gpu in queue research, "
                                "more than the 8 a namespace may (namespaceLimits.resources)");
    CU_ASSERT_FALSE(ctl__tenancy_within_limits(&c, &v1, why, sizeof why)); /* a listed 0 */
    /* a new cycle counts from the gangs holding capacity: none is in the table here */
    ctl__tenancy_usage(&c);
    CU_ASSERT_TRUE(ctl__tenancy_within_limits(&c, &a3, why, sizeof why));
    struct binding *all[] = {&a1, &a2, &a3, &b1, &big, &v1};
    for (size_t i = 0; i < 6; i++)
        queue_resvec_close(&all[i]->gang);
    done(&c);
}

/* ownerLimits: one owner across namespaces, counted apart from the namespaces; a gang without
 * an owner is not held by them. */
static void test_owner_limits(void)
{
    struct ctl c;
    tree(&c);
    c.names = queue_tree_resnames(c.t);
    c.ten.v = muster_calloc(1, sizeof(*c.ten.v));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c.ten.v);
    snprintf(c.ten.v[0].name, sizeof c.ten.v[0].name, "research");
    c.ten.v[0].lim[CTL_TENANT_OWNER].on = 1;
    c.ten.v[0].lim[CTL_TENANT_OWNER].max_gangs = 1;
    c.ten.n = c.ten.cap = 1;
    c.ten.nlimited = 1;
    ctl__tenancy_usage(&c);
    struct binding a, b, anon;
    char why[320];
    gang(&c, &a, "team-a/one", "nlp", 1);
    gang(&c, &b, "team-b/two", "vision", 1);
    gang(&c, &anon, "team-a/three", "nlp", 1);
    char alice[] = "alice@example.com";
    a.owner = alice;
    b.owner = alice;
    CU_ASSERT_TRUE(ctl__tenancy_within_limits(&c, &a, why, sizeof why));
    ctl__tenancy_admitted(&c, &a);
    CU_ASSERT_FALSE(ctl__tenancy_within_limits(&c, &b, why, sizeof why)); /* another namespace */
    CU_ASSERT_STRING_EQUAL(why, "owner alice@example.com holds 1 gang(s) in queue research, the "
                                "most an owner may (ownerLimits.gangs 1)");
    CU_ASSERT_TRUE(ctl__tenancy_within_limits(&c, &anon, why, sizeof why)); /* no owner */
    queue_resvec_close(&a.gang);
    queue_resvec_close(&b.gang);
    queue_resvec_close(&anon.gang);
    done(&c);
}

static void test_namespace_prune(void)
{
    json_object *ns = json_tokener_parse(
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"lab\","
        "\"resourceVersion\":\"7\",\"uid\":\"u\",\"labels\":{\"org\":\"research\"},"
        "\"annotations\":{\"scheduling.muster.io/default-queue\":\"open\",\"other\":\"x\"},"
        "\"managedFields\":[{}]},\"spec\":{\"finalizers\":[\"kubernetes\"]},"
        "\"status\":{\"phase\":\"Active\"}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
    json_object *kept = ctl__namespace_prune(ns);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(kept, JSON_C_TO_STRING_PLAIN |
                                                                    JSON_C_TO_STRING_NOSLASHESCAPE),
                           "{\"metadata\":{\"name\":\"lab\",\"resourceVersion\":\"7\",\"uid\":"
                           "\"u\",\"labels\":{\"org\":\"research\"},\"annotations\":{"
                           "\"scheduling.muster.io/default-queue\":\"open\"}}}");
    json_object_put(kept);
    json_object_put(ns);
}

static CU_TestInfo tests[] = {
    {"a queue's selector: its own, else the nearest ancestor's", test_inheritance},
    {"YuniKorn paths in muster's tree", test_yunikorn_paths},
    {"Kueue LocalQueues by namespace and name", test_local_queues},
    {"namespaceLimits: gangs and resources per namespace in a subtree", test_namespace_limits},
    {"ownerLimits: per owner across namespaces; no owner, no limit", test_owner_limits},
    {"what is kept of a Namespace", test_namespace_prune},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/tenancy", tests)
