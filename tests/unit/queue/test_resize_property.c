/* Property test for issue 17's elastic gangs on the engine side (queue/tree.c
 * queue_entry_resize): under random admit, scale-up (a delta admitted as an entry of its own,
 * then removed and the gang grown by it in the same step), scale-down (cancelling a waiting
 * delta first), scale-to-0 (released), finish, requeue and crash/restart (the tree rebuilt from
 * what the ledger holds) events, every queue's allocated usage equals the sum of what each
 * admitted gang in its subtree holds (a shadow kept here), no queue holds more than its
 * capability, and a gang waiting for room is admitted once a scale-down makes the room. */
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
    int64_t cpu, gpu;   /* milli: what it holds (admitted) or asks (pending) */
    int64_t created;    /* its place in line */
    int delta;          /* an admitted gang's scale-up waits as entry DELTA_ID(i) */
    int64_t dcpu, dgpu; /* what the delta asks */
    int64_t dcreated;   /* the delta's place in line: when the scale-up was asked for */
};

#define GANG_ID(i) ((uint64_t)(i) + 1)
#define DELTA_ID(i) ((uint64_t)(i) + 1 + NG) /* its own ledger record, so its own id */

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

static struct queue_tree *tree_new(void)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "a", NULL, "", "", "nvidia.com/gpu=32"), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "b", NULL, "", "", "nvidia.com/gpu=32"), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "a1", "a", "", "", "nvidia.com/gpu=16"), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "a2", "a", "", "", ""), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "b1", "b", "", "", ""), 0);
    CU_ASSERT_EQUAL_FATAL(mkq(t, "b2", "b", "", "", ""), 0);
    return t;
}

/* Adds gang i's entry, or its delta's, pending or (start-up replay) admitted. */
static void put_entry(struct queue_tree *t, struct gang *g, int i, int delta, int admitted)
{
    struct queue_resvec v = {0};
    struct queue_error err;
    struct queue_entry *e;
    vec(t, &v, delta ? g[i].dcpu : g[i].cpu, delta ? g[i].dgpu : g[i].gpu);
    struct queue_entry_spec es = {.id = delta ? DELTA_ID(i) : GANG_ID(i),
                                  .queue = leaves[g[i].leaf],
                                  .created_at = delta ? g[i].dcreated : g[i].created,
                                  .request = &v};
    int rc =
        admitted ? queue_entry_add_admitted(t, &es, &e, &err) : queue_entry_add(t, &es, &e, &err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    queue_resvec_close(&v);
}

/* The delta of gang i was admitted: it is removed and the gang's entry grown by it, one step. */
static void fold(struct queue_tree *t, struct gang *x, struct queue_entry *d, struct queue_entry *e)
{
    struct queue_resvec v = {0};
    struct queue_error err;
    queue_entry_remove(t, d);
    vec(t, &v, x->cpu + x->dcpu, x->gpu + x->dgpu);
    CU_ASSERT_EQUAL_FATAL(queue_entry_resize(t, e, &v, &err), 0);
    x->cpu += x->dcpu;
    x->gpu += x->dgpu;
    x->delta = 0;
    queue_resvec_close(&v);
}

static void test_usage_is_the_sum_of_holdings(void)
{
    struct queue_tree *t = tree_new();
    struct gang g[NG];
    memset(g, 0, sizeof g);
    struct queue_resvec v = {0};
    struct queue_limit why;
    struct queue_error err;
    uint64_t seq = NG;
    int freed_then_admitted = 0, grown = 0, grew_waiting = 0, restarts = 0;
    for (int step = 0; step < NSTEPS; step++) {
        int i = (int)rnd(NG);
        struct gang *x = &g[i];
        struct queue_entry *e = x->live ? queue_tree_entry(t, GANG_ID(i)) : NULL;
        struct queue_entry *d = x->delta ? queue_tree_entry(t, DELTA_ID(i)) : NULL;
        CU_ASSERT_FATAL(!x->delta || (d && queue_entry_state(d) == QUEUE_ENTRY_PENDING));
        switch (rnd(9)) {
        case 0: /* a new gang, pending */
            if (x->live)
                break;
            x->live = 1;
            x->admitted = 0;
            x->leaf = (int)rnd(NQ);
            x->gpu = (int64_t)(1 + rnd(8)) * 1000;
            x->cpu = x->gpu * (int64_t)(1 + rnd(4));
            x->created = (int64_t)seq++;
            x->delta = 0;
            put_entry(t, g, i, 0, 0);
            break;
        case 1: { /* the engine's turn: admit what fits, in its order; a delta admitted is
                     folded into its gang once the walk is over (the same flush) */
            int admitted_delta[NG] = {0};
            queue_cycle_begin(t);
            for (struct queue_entry *n; (n = queue_cycle_next(t));) {
                uint64_t id = queue_entry_id(n);
                int j = (int)((id - 1) % NG);
                if (queue_entry_admit(t, n, &why) == 0) {
                    if (id > NG)
                        admitted_delta[j] = 1;
                    else
                        g[j].admitted = 1;
                }
            }
            for (int j = 0; j < NG; j++)
                if (admitted_delta[j]) {
                    fold(t, &g[j], queue_tree_entry(t, DELTA_ID(j)),
                         queue_tree_entry(t, GANG_ID(j)));
                    grown++;
                }
            break;
        }
        case 7: /* scale up an admitted gang: the difference waits as an entry of its own */
            if (!x->live || !x->admitted || x->delta)
                break;
            x->dgpu = (int64_t)(1 + rnd(8)) * 1000;
            x->dcpu = x->cpu / (x->gpu / 1000) * (x->dgpu / 1000);
            x->dcreated = (int64_t)seq++;
            x->delta = 1;
            put_entry(t, g, i, 1, 0);
            break;
        case 8: /* a crash: the tree is rebuilt from the ledger (admitted gangs at what they
                   hold, pending gangs and deltas as they wait) */
            queue_tree_free(t);
            t = tree_new();
            for (int j = 0; j < NG; j++) {
                if (!g[j].live)
                    continue;
                put_entry(t, g, j, 0, g[j].admitted);
                if (g[j].delta)
                    put_entry(t, g, j, 1, 0);
            }
            restarts++;
            break;
        case 2: { /* scale down an admitted gang: fewer replicas, or smaller requests; a delta
                     still waiting is cancelled first (the ask went below what it holds) */
            if (!x->live || !x->admitted || x->gpu <= 1000)
                break;
            if (d) {
                queue_entry_remove(t, d);
                x->delta = 0;
                grew_waiting++;
            }
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
        case 3: /* finished, or scaled to 0: released, with its delta */
            if (!x->live)
                break;
            if (d)
                queue_entry_remove(t, d);
            queue_entry_remove(t, e);
            x->live = 0;
            x->delta = 0;
            break;
        case 4: /* rolled back: pending again, holding nothing; a waiting delta joins it (the
                   gang waits whole, at its place in line) */
            if (!x->live || !x->admitted)
                break;
            CU_ASSERT_EQUAL_FATAL(queue_entry_requeue(t, e), 0);
            x->admitted = 0;
            if (d) {
                queue_entry_remove(t, d);
                queue_entry_remove(t, e);
                x->cpu += x->dcpu;
                x->gpu += x->dgpu;
                x->delta = 0;
                put_entry(t, g, i, 0, 0);
            }
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
    CU_ASSERT(grown > 0);               /* deltas were admitted and folded */
    CU_ASSERT(grew_waiting > 0);        /* a scale down met a waiting delta */
    CU_ASSERT(restarts > 0);
    queue_resvec_close(&v);
    queue_tree_free(t);
}

static CU_TestInfo tests[] = {
    {"usage is the sum of holdings under admit, grow by delta, shrink, finish, requeue, restart",
     test_usage_is_the_sum_of_holdings},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/resize_property", tests)
