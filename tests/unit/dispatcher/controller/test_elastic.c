/* Partial admission of elastic gangs (dispatcher/controller/elastic.c), without a hub: whole
 * first, then the minimum; how a gang splits at min-member; and a binding held at its minimum
 * and made whole again for a requeue. */
#include "dispatcher/controller/ctl_int.h"
#include "testing.h"

static struct queue_resnames *names;
static uint32_t cpu, gpu, pods;

static void setup_names(void)
{
    if (names)
        return;
    names = queue_resnames_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "cpu", 3, &cpu), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "nvidia.com/gpu", 14, &gpu), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(names, "pods", 4, &pods), 0);
}

static void test_judge(void)
{
    /* whole first, whatever the opt-in */
    CU_ASSERT_EQUAL(ctl__elastic_judge(1, 1, 1, 1, 1), ELASTIC_WHOLE);
    CU_ASSERT_EQUAL(ctl__elastic_judge(0, 1, 1, 1, 1), ELASTIC_WHOLE);
    /* the queues refuse the whole, or no placement holds it: the minimum, if opted in */
    CU_ASSERT_EQUAL(ctl__elastic_judge(1, 0, 0, 1, 1), ELASTIC_MIN);
    CU_ASSERT_EQUAL(ctl__elastic_judge(1, 1, 0, 1, 1), ELASTIC_MIN);
    CU_ASSERT_EQUAL(ctl__elastic_judge(0, 1, 0, 1, 1), ELASTIC_WAIT);
    CU_ASSERT_EQUAL(ctl__elastic_judge(0, 0, 0, 1, 1), ELASTIC_WAIT);
    /* not even the minimum */
    CU_ASSERT_EQUAL(ctl__elastic_judge(1, 1, 0, 1, 0), ELASTIC_WAIT);
    CU_ASSERT_EQUAL(ctl__elastic_judge(1, 0, 0, 0, 1), ELASTIC_WAIT);
    /* a placement of the whole that the queues refuse is no whole admission */
    CU_ASSERT_EQUAL(ctl__elastic_judge(1, 0, 1, 1, 1), ELASTIC_MIN);
    CU_ASSERT_EQUAL(ctl__elastic_judge(0, 0, 1, 1, 1), ELASTIC_WAIT);
}

/* 4 replicas of (1 cpu, 2 GPUs, a pod each for placement); the gang as the queues count it. */
static void gang4(struct comp *comp, struct queue_resvec *gang, int with_pods)
{
    memset(comp, 0, sizeof *comp);
    comp->replicas = 4;
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&comp->req, cpu, 1000), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&comp->req, gpu, 2000), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(&comp->req, pods, 1000), 0);
    queue_resvec_clear(gang);
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(gang, cpu, 4000), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resvec_set(gang, gpu, 8000), 0);
    if (with_pods)
        CU_ASSERT_EQUAL_FATAL(queue_resvec_set(gang, pods, 4000), 0);
}

static void test_split(void)
{
    setup_names();
    struct comp comp;
    struct queue_resvec gang = {0}, at = {0}, delta = {0};
    int32_t dr = -1;
    gang4(&comp, &gang, 0);
    CU_ASSERT_EQUAL(ctl__elastic_split(&comp, 1, 2, &gang, pods, &at, &delta, &dr), 0);
    CU_ASSERT_EQUAL(dr, 2);
    CU_ASSERT_EQUAL(queue_resvec_get(&at, cpu), 2000);
    CU_ASSERT_EQUAL(queue_resvec_get(&at, gpu), 4000);
    CU_ASSERT_EQUAL(queue_resvec_get(&at, pods), 0); /* the queues do not count pods */
    CU_ASSERT_EQUAL(queue_resvec_get(&delta, cpu), 2000);
    CU_ASSERT_EQUAL(queue_resvec_get(&delta, gpu), 4000);
    CU_ASSERT_EQUAL(queue_resvec_get(&delta, pods), 0);
    /* min + rest = the whole */
    struct queue_resvec sum = {0};
    CU_ASSERT_EQUAL(queue_resvec_copy(&sum, &at), 0);
    CU_ASSERT_EQUAL(queue_resvec_add(&sum, &delta), 0);
    CU_ASSERT_EQUAL(queue_resvec_cmp(&sum, &gang), 0);
    queue_resvec_close(&sum);
    /* an uneven split: 1 of 4 */
    CU_ASSERT_EQUAL(ctl__elastic_split(&comp, 1, 1, &gang, pods, &at, &delta, &dr), 0);
    CU_ASSERT_EQUAL(dr, 3);
    CU_ASSERT_EQUAL(queue_resvec_get(&at, gpu), 2000);
    CU_ASSERT_EQUAL(queue_resvec_get(&delta, gpu), 6000);
    /* a gang that counts pods keeps them in both parts */
    queue_resvec_close(&comp.req);
    gang4(&comp, &gang, 1);
    CU_ASSERT_EQUAL(ctl__elastic_split(&comp, 1, 3, &gang, pods, &at, &delta, &dr), 0);
    CU_ASSERT_EQUAL(queue_resvec_get(&at, pods), 3000);
    CU_ASSERT_EQUAL(queue_resvec_get(&delta, pods), 1000);
    /* nothing to split: the minimum is the whole, none, or several components */
    CU_ASSERT_EQUAL(ctl__elastic_split(&comp, 1, 4, &gang, pods, &at, &delta, &dr), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(ctl__elastic_split(&comp, 1, 0, &gang, pods, &at, &delta, &dr), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(ctl__elastic_split(&comp, 2, 2, &gang, pods, &at, &delta, &dr), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(at.len, 0);
    CU_ASSERT_EQUAL(delta.len, 0);
    queue_resvec_close(&comp.req);
    queue_resvec_close(&gang);
    queue_resvec_close(&at);
    queue_resvec_close(&delta);
}

/* Held at its minimum (the cycle's partial admission), then whole again (a requeue). */
static void test_hold_and_whole(void)
{
    setup_names();
    struct ctl *c = muster_calloc(1, sizeof(*c));
    struct binding *b = muster_calloc(1, sizeof(*b));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    c->names = names;
    b->comp = muster_calloc(1, sizeof(*b->comp));
    CU_ASSERT_PTR_NOT_NULL_FATAL(b->comp);
    gang4(b->comp, &b->gang, 0);
    b->ncomp = 1;
    b->replicas = 4;
    b->min_member = 2;
    b->elastic = 1;
    b->created_at = 1234;
    struct queue_resvec whole = {0}, out = {0};
    CU_ASSERT_EQUAL(queue_resvec_copy(&whole, &b->gang), 0);

    /* pending, it waits in the engine with its minimum; a plain gang with its whole */
    const struct queue_resvec *req = NULL;
    CU_ASSERT_EQUAL(ctl__engine_request(c, b, &out, &req), 0);
    CU_ASSERT_PTR_EQUAL(req, &out);
    CU_ASSERT_EQUAL(queue_resvec_get(req, gpu), 4000);
    b->elastic = 0;
    CU_ASSERT_EQUAL(ctl__engine_request(c, b, &out, &req), 0);
    CU_ASSERT_PTR_EQUAL(req, &b->gang);
    b->elastic = 1;

    CU_ASSERT_EQUAL(ctl__elastic_hold_min(c, b), 0);
    CU_ASSERT_EQUAL(b->replicas, 2);
    CU_ASSERT_EQUAL(b->comp[0].replicas, 2);
    CU_ASSERT_EQUAL(queue_resvec_get(&b->gang, gpu), 4000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b->grow);
    CU_ASSERT_EQUAL(b->grow->replicas, 2);
    CU_ASSERT_EQUAL(queue_resvec_get(&b->grow->req, gpu), 4000);
    CU_ASSERT_EQUAL(b->grow->since, 1234); /* the rest keeps the gang's place in line */
    CU_ASSERT_FALSE(b->grow->admitted);
    /* held already: not twice */
    CU_ASSERT_EQUAL(ctl__elastic_hold_min(c, b), MUSTER_EINVAL);
    CU_ASSERT_EQUAL(b->replicas, 2);

    /* the record the row keeps of the rest */
    char *rec = ctl__grow_record(c, b->grow);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
    json_object *o = json_tokener_parse(rec);
    CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(o, "replicas")), 2);
    CU_ASSERT_STRING_EQUAL(
        json_object_get_string(
            json_object_object_get(json_object_object_get(o, "request"), "nvidia.com/gpu")),
        "4");
    CU_ASSERT_EQUAL(json_object_get_int64(json_object_object_get(o, "since")), 1234);
    json_object_put(o);
    muster_free(rec);

    /* requeued: it asks for the whole again */
    ctl__elastic_whole(b);
    CU_ASSERT_EQUAL(b->replicas, 4);
    CU_ASSERT_EQUAL(b->comp[0].replicas, 4);
    CU_ASSERT_EQUAL(queue_resvec_cmp(&b->gang, &whole), 0);

    queue_resvec_close(&b->grow->req);
    muster_free(b->grow);
    b->grow = NULL;
    ctl__elastic_whole(b); /* nothing waits: unchanged */
    CU_ASSERT_EQUAL(b->replicas, 4);
    queue_resvec_close(&whole);
    queue_resvec_close(&out);
    queue_resvec_close(&b->comp[0].req);
    muster_free(b->comp);
    queue_resvec_close(&b->gang);
    muster_free(b);
    muster_free(c);
    queue_resnames_free(names);
    names = NULL;
}

static CU_TestInfo tests[] = {
    {"whole first, then the minimum, only when opted in", test_judge},
    {"a gang split at min-member", test_split},
    {"held at its minimum, whole again for a requeue", test_hold_and_whole},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller/elastic", tests)
