/* Property test for issue 17's elastic gangs on the engine side (queue/tree.c
 * queue_entry_resize): under random admit, scale-down, scale-to-0 (released), finish and requeue
 * events, every queue's allocated usage equals the sum of what each admitted gang in its subtree
 * holds (a shadow kept here), no queue holds more than its capability, and a gang waiting for
 * room is admitted once a scale-down makes the room. */
#include "helpers.h"
#include "testing.h"

#define NQ 4  /* leaves: a1 a2 under a, b1 b2 under b */
#define NG 48 /* gangs */
#define NSTEPS 4000

static const char *const leaves[NQ] = {"a1", "a2", "b1", "b2"};
static const int parent_of[NQ] = {0, 0, 1, 1}; /* a, b */

struct gang {
    int live, admitted;
    int leaf;
    int64_t cpu, gpu; /* milli: what it holds (admitted) or asks (pending) */
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void vec(struct queue_tree *t, struct queue_resvec *v, int64_t cpu, int64_t gpu)
{
    uint32_t c, g;
    queue_resvec_clear(v);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(queue_tree_resnames(t), "cpu", 3, &c), 0);
    CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(queue_tree_resnames(t), "nvidia.com/gpu", 14, &g),
                          0);
    if (cpu)
        queue_resvec_set(v, c, cpu);
    if (gpu)
        queue_resvec_set(v, g, gpu);
}

static int64_t used(struct queue_tree *t, const char *q, const char *res)
{
    struct queue_status st;
    uint32_t id;
    CU_ASSERT_EQUAL_FATAL(queue_node_status(t, queue_tree_find(t, q), &st), 0);
    int64_t v = 0;
    if (!queue_resnames_intern(queue_tree_resnames(t), res, strlen(res), &id))
        v = queue_resvec_get(&st.allocated, id);
    queue_status_close(&st);
    return v;
}

/* Every queue's usage is the sum of the admitted gangs below it, within its capability. */
static void check(struct queue_tree *t, const struct gang *g)
{
    int64_t leaf_cpu[NQ] = {0}, leaf_gpu[NQ] = {0};
    for (int i = 0; i < NG; i++)
        if (g[i].live && g[i].admitted) {
            leaf_cpu[g[i].leaf] += g[i].cpu;
            leaf_gpu[g[i].leaf] += g[i].gpu;
        }
    int64_t pc[2] = {0}, pg[2] = {0};
    for (int q = 0; q < NQ; q++) {
        CU_ASSERT_EQUAL(used(t, leaves[q], "cpu"), leaf_cpu[q]);
        CU_ASSERT_EQUAL(used(t, leaves[q], "nvidia.com/gpu"), leaf_gpu[q]);
        pc[parent_of[q]] += leaf_cpu[q];
        pg[parent_of[q]] += leaf_gpu[q];
    }
    CU_ASSERT_EQUAL(used(t, "a", "cpu"), pc[0]);
    CU_ASSERT_EQUAL(used(t, "b", "nvidia.com/gpu"), pg[1]);
    CU_ASSERT_EQUAL(used(t, "root", "cpu"), pc[0] + pc[1]);
    CU_ASSERT_EQUAL(used(t, "root", "nvidia.com/gpu"), pg[0] + pg[1]);
    CU_ASSERT(pg[0] <= 32000 && pg[1] <= 32000);
    CU_ASSERT(leaf_gpu[0] <= 16000);
}

static void test_usage_is_the_sum_of_holdings(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "a", NULL, "", "", "nvidia.com/gpu=32"), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "b", NULL, "", "", "nvidia.com/gpu=32"), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "a1", "a", "", "", "nvidia.com/gpu=16"), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "a2", "a", "", "", ""), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "b1", "b", "", "", ""), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "b2", "b", "", "", ""), 0);
    struct gang g[NG];
    memset(g, 0, sizeof g);
    struct queue_resvec v = {0};
    struct queue_limit why;
    struct queue_error err;
    uint64_t seq = NG;
    int freed_then_admitted = 0;
    for (int step = 0; step < NSTEPS; step++) {
        int i = (int)rnd(NG);
        struct gang *x = &g[i];
        struct queue_entry *e = x->live ? queue_tree_entry(t, (uint64_t)i + 1) : NULL;
        switch (rnd(6)) {
        case 0: /* a new gang, pending */
            if (x->live)
                break;
            x->live = 1;
            x->admitted = 0;
            x->leaf = (int)rnd(NQ);
            x->gpu = (int64_t)(1 + rnd(8)) * 1000;
            x->cpu = x->gpu * (int64_t)(1 + rnd(4));
            vec(t, &v, x->cpu, x->gpu);
            {
                struct queue_entry_spec es = {.id = (uint64_t)i + 1,
                                              .queue = leaves[x->leaf],
                                              .created_at = (int64_t)seq++,
                                              .request = &v};
                CU_ASSERT_EQUAL_FATAL(queue_entry_add(t, &es, &e, &err), 0);
            }
            break;
        case 1: /* the engine's turn: admit what fits, in its order */
            queue_cycle_begin(t);
            for (struct queue_entry *n; (n = queue_cycle_next(t));) {
                struct gang *y = &g[queue_entry_id(n) - 1];
                if (queue_entry_admit(t, n, &why) == 0)
                    y->admitted = 1;
            }
            break;
        case 2: { /* scale down an admitted gang: fewer replicas, or smaller requests */
            if (!x->live || !x->admitted || x->gpu <= 1000)
                break;
            int64_t ngpu = x->gpu - (int64_t)(1 + rnd((uint32_t)(x->gpu / 1000 - 1))) * 1000;
            int64_t ncpu = x->cpu * ngpu / x->gpu;
            vec(t, &v, ncpu, ngpu);
            /* a gang waiting for room it now gives back (same leaf, same size) */
            struct queue_limit w1, w2;
            struct queue_resvec want = {0};
            vec(t, &want, 0, x->gpu - ngpu);
            int before =
                queue_tree_can_admit(t, queue_tree_find(t, leaves[x->leaf]), &want, &w1) != 0;
            CU_ASSERT_EQUAL_FATAL(queue_entry_resize(t, e, &v, &err), 0);
            x->cpu = ncpu;
            x->gpu = ngpu;
            int after =
                queue_tree_can_admit(t, queue_tree_find(t, leaves[x->leaf]), &want, &w2) != 0;
            CU_ASSERT(after || !before); /* giving back never takes room away */
            freed_then_admitted += after && !before;
            queue_resvec_close(&want);
            break;
        }
        case 3: /* finished, or scaled to 0: released */
            if (!x->live)
                break;
            queue_entry_remove(t, e);
            x->live = 0;
            break;
        case 4: /* rolled back: pending again, holding nothing */
            if (!x->live || !x->admitted)
                break;
            CU_ASSERT_EQUAL_FATAL(queue_entry_requeue(t, e), 0);
            x->admitted = 0;
            break;
        default: /* a resize the engine refuses (pending, or to nothing) changes nothing */
            if (!x->live)
                break;
            vec(t, &v, 0, 0);
            CU_ASSERT_EQUAL(queue_entry_resize(t, e, &v, &err), MUSTER_EINVAL);
            break;
        }
        check(t, g);
    }
    CU_ASSERT(freed_then_admitted > 0); /* the walk did reach a full queue that a shrink freed */
    queue_resvec_close(&v);
    queue_tree_free(t);
}

static CU_TestInfo tests[] = {
    {"usage is the sum of holdings under admit, shrink, finish, requeue",
     test_usage_is_the_sum_of_holdings},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/resize_property", tests)
