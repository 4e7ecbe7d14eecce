/* Randomized property test of the whole queue engine against the naive model (model.h): a
 * seeded run of create/update/delete/add/admit/skip/release/requeue operations over a random
 * tree, checking after every step that no queue is above its capability, usage equals the sum
 * of admitted entries, held capacity matches a from-scratch count (so no guarantee was eaten),
 * and each pick is exactly the one the rules give. MUSTER_SEED and MUSTER_PROPERTY_OPS override
 * the seed and the number of operations. */
#include "helpers.h"
#include "model.h"
#include "testing.h"

#define NSHAPES 24
#define MAXQ 48

static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng << 13; /* xorshift64 */
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint32_t pick(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

struct world {
    struct queue_tree *t;
    struct model m;
    struct queue_resvec shapes[NSHAPES];
    uint64_t *pend, *adm; /* ids */
    uint32_t *pos;        /* index in pend or adm */
    size_t npend, nadm;
    uint64_t next_id;
    uint32_t res[4];
    int nres;       /* names interned so far: the last two appear a third of the way in */
    int nshapes;    /* shapes usable so far */
    long checks, picks, admitted, skips, failed_specs;
};

static void list_add(uint64_t *list, size_t *n, uint32_t *pos, uint64_t id)
{
    pos[id] = (uint32_t)*n;
    list[(*n)++] = id;
}

static void list_del(uint64_t *list, size_t *n, uint32_t *pos, uint64_t id)
{
    uint32_t i = pos[id];
    list[i] = list[--*n];
    pos[list[i]] = i;
}

struct leaves {
    const struct queue_node *q[256];
    int n;
    const struct queue_node *all[256];
    int nall;
};

static int leaves_cb(void *ud, const struct queue_node *q)
{
    struct leaves *l = ud;
    if (l->nall < 256)
        l->all[l->nall++] = q;
    if (queue_node_children(q) == 0 && l->n < 256)
        l->q[l->n++] = q;
    return 0;
}

static int64_t model_use(struct world *w, const struct queue_node *q, uint32_t r)
{
    int i = model_index(&w->m, q);
    return i < 0 || r >= w->m.R ? 0 : w->m.n[i].use[r];
}

/* A random vector over the four resources, each present with probability 1/2. */
static void random_vec(struct world *w, struct queue_resvec *v, int64_t scale)
{
    queue_resvec_clear(v);
    for (int k = 0; k < w->nres; k++)
        if (pick(2))
            queue_resvec_set(v, w->res[k], (int64_t)(1 + pick(8)) * scale * 1000);
}

static void op_create(struct world *w, struct leaves *l)
{
    char name[16];
    snprintf(name, sizeof(name), "q%u", pick(MAXQ));
    const struct queue_node *parent = l->all[pick((uint32_t)l->nall)];
    struct queue_spec s;
    spec_init(&s, name, queue_node_name(parent));
    s.weight = 1 + (int32_t)pick(4);
    s.priority = (int32_t)pick(3);
    s.strategy = pick(3) == 0 ? QUEUE_STRICT_FIFO : QUEUE_BEST_EFFORT_FIFO;
    s.state = pick(10) == 0 ? QUEUE_CLOSED : QUEUE_OPEN;
    s.reclaimable = pick(3) == 0 ? QUEUE_NOT_RECLAIMABLE : QUEUE_RECLAIMABLE;
    random_vec(w, &s.deserved, 4);
    if (pick(3) == 0)
        random_vec(w, &s.capability, 16);
    if (pick(4) == 0)
        queue_resvec_copy(&s.guarantee, &s.deserved);
    int existed = queue_tree_find(w->t, name) != NULL;
    size_t before = queue_tree_count(w->t);
    int rc = queue_tree_create(w->t, &s, NULL);
    if (rc) {
        w->failed_specs++;
        CU_ASSERT_EQUAL(queue_tree_count(w->t), before);
        CU_ASSERT_EQUAL(queue_tree_find(w->t, name) != NULL, existed);
    } else {
        CU_ASSERT_FALSE(existed);
        CU_ASSERT_EQUAL(queue_tree_count(w->t), before + 1);
    }
    spec_close(&s);
}

static void op_update(struct world *w, struct leaves *l)
{
    const struct queue_node *q = l->all[pick((uint32_t)l->nall)];
    const struct queue_spec *cur = queue_node_spec(q);
    struct queue_spec s;
    spec_init(&s, cur->name, cur->parent);
    s.weight = cur->weight;
    s.priority = cur->priority;
    s.state = cur->state;
    s.strategy = cur->strategy;
    s.reclaimable = cur->reclaimable;
    queue_resvec_copy(&s.guarantee, &cur->guarantee);
    queue_resvec_copy(&s.deserved, &cur->deserved);
    queue_resvec_copy(&s.capability, &cur->capability);
    if (pick(5) == 0 && strcmp(cur->name, "root") && strcmp(cur->name, "default"))
        s.parent = queue_node_name(l->all[pick((uint32_t)l->nall)]); /* a move */
    switch (pick(7)) {
    case 0:
        s.weight = 1 + (int32_t)pick(4);
        break;
    case 1:
        s.priority = (int32_t)pick(3);
        s.reclaimable = pick(3) == 0 ? QUEUE_NOT_RECLAIMABLE : QUEUE_RECLAIMABLE;
        break;
    case 2:
        s.state = pick(3) ? QUEUE_OPEN : (pick(2) ? QUEUE_CLOSED : QUEUE_DRAINING);
        break;
    case 3:
        s.strategy = pick(2) ? QUEUE_STRICT_FIFO : QUEUE_BEST_EFFORT_FIFO;
        break;
    case 4:
        random_vec(w, &s.deserved, 4);
        break;
    case 5: /* a capability never below what the queue already uses */
        random_vec(w, &s.capability, 16);
        for (uint32_t i = 0; i < s.capability.len; i++) {
            int64_t u = model_use(w, q, s.capability.items[i].id);
            if (s.capability.items[i].milli < u)
                s.capability.items[i].milli = u;
        }
        break;
    default:
        random_vec(w, &s.guarantee, 2);
        break;
    }
    if (queue_tree_update(w->t, &s, NULL))
        w->failed_specs++;
    spec_close(&s);
}

static void op_add(struct world *w, struct leaves *l)
{
    uint64_t id = w->next_id++;
    const struct queue_node *q = l->q[pick((uint32_t)l->n)];
    const struct queue_resvec *req = &w->shapes[pick((uint32_t)w->nshapes)];
    struct queue_entry_spec es = {id, queue_node_name(q), (int32_t)pick(3), (int64_t)pick(1000),
                                  req};
    struct queue_entry *e;
    CU_ASSERT_EQUAL_FATAL(queue_entry_add(w->t, &es, &e, NULL), 0);
    model_add(&w->m, id, q, es.priority, es.created_at, req, 0);
    list_add(w->pend, &w->npend, w->pos, id);
}

static void op_decide(struct world *w)
{
    struct queue_entry *e = queue_cycle_next(w->t);
    model_snapshot(&w->m);
    uint64_t want = model_pick(&w->m);
    uint64_t got = e ? queue_entry_id(e) : 0;
    w->picks++;
    CU_ASSERT_EQUAL(got, want);
    if (got != want || !e) {
        if (got != want) {
            fprintf(stderr, "pick mismatch: engine %llu, model %llu\n", (unsigned long long)got,
                    (unsigned long long)want);
            uint64_t ids[2] = {got, want};
            for (int k = 0; k < 2; k++) {
                if (!ids[k])
                    continue;
                const struct model_entry *me = &w->m.e[ids[k]];
                int i = model_index(&w->m, me->leaf);
                char path[256];
                queue_node_path(me->leaf, path, sizeof(path));
                fprintf(stderr, "  %llu: queue %s (%s) rank %ld prio %d created %lld skipped %d "
                        "engine-fits %d model-fits %d share %g\n",
                        (unsigned long long)ids[k], path,
                        queue_strategy_name(queue_node_spec(me->leaf)->strategy),
                        w->m.n[i].rank, me->prio, (long long)me->created, me->skipped,
                        queue_tree_can_admit(w->t, me->leaf, me->req, NULL),
                        model_can_admit(&w->m, i, me->req), w->m.n[i].share);
            }
        }
        return;
    }
    if (pick(7) == 0) {
        queue_cycle_skip(w->t, e);
        model_skip(&w->m, got);
        w->skips++;
        return;
    }
    CU_ASSERT_EQUAL(queue_entry_admit(w->t, e, NULL), 0);
    w->m.e[got].admitted = 1;
    list_del(w->pend, &w->npend, w->pos, got);
    list_add(w->adm, &w->nadm, w->pos, got);
    w->admitted++;
}

static void op_release(struct world *w)
{
    if (!w->nadm)
        return;
    uint64_t id = w->adm[pick((uint32_t)w->nadm)];
    list_del(w->adm, &w->nadm, w->pos, id);
    if (pick(4) == 0) { /* rolled back: pending again */
        CU_ASSERT_EQUAL(queue_entry_requeue(w->t, queue_tree_entry(w->t, id)), 0);
        w->m.e[id].admitted = 0;
        list_add(w->pend, &w->npend, w->pos, id);
    } else {
        queue_entry_remove(w->t, queue_tree_entry(w->t, id));
        model_remove(&w->m, id);
    }
}

static void op_remove_pending(struct world *w)
{
    if (!w->npend)
        return;
    uint64_t id = w->pend[pick((uint32_t)w->npend)];
    list_del(w->pend, &w->npend, w->pos, id);
    queue_entry_remove(w->t, queue_tree_entry(w->t, id));
    model_remove(&w->m, id);
}

static void op_delete_queue(struct world *w, struct leaves *l)
{
    const struct queue_node *q = l->all[pick((uint32_t)l->nall)];
    char name[QUEUE_NAME_MAX + 1];
    snprintf(name, sizeof(name), "%s", queue_node_name(q));
    int busy = queue_node_children(q) || w->m.nn == 0;
    (void)busy;
    if (queue_tree_remove(w->t, name, NULL) == 0)
        CU_ASSERT_PTR_NULL(queue_tree_find(w->t, name));
}

static void op_fleet(struct world *w)
{
    if (pick(4) == 0) { /* lending of unused guarantees, on or off */
        w->m.lending = !w->m.lending;
        CU_ASSERT_EQUAL(queue_tree_set_lending(w->t, w->m.lending), 0);
        CU_ASSERT_EQUAL(queue_tree_lending(w->t), w->m.lending);
        return;
    }
    model_snapshot(&w->m);
    random_vec(w, &w->m.fleet, 64);
    for (uint32_t i = 0; i < w->m.fleet.len; i++) {
        int64_t u = w->m.n[0].use[w->m.fleet.items[i].id];
        if (w->m.fleet.items[i].milli < u)
            w->m.fleet.items[i].milli = u;
    }
    CU_ASSERT_EQUAL(queue_tree_set_fleet(w->t, &w->m.fleet), 0);
}

static void op_cross_check(struct world *w, struct leaves *l)
{
    /* The admission rule itself, engine against model, on a random leaf and request. */
    model_snapshot(&w->m);
    const struct queue_node *q = l->q[pick((uint32_t)l->n)];
    const struct queue_resvec *req = &w->shapes[pick((uint32_t)w->nshapes)];
    int i = model_index(&w->m, q);
    CU_ASSERT_EQUAL(queue_tree_can_admit(w->t, q, req, NULL) != 0,
                    model_can_admit(&w->m, i, req) != 0);
}

static void check_invariants(struct world *w)
{
    model_snapshot(&w->m);
    w->checks++;
    uint64_t pending[256] = {0}, admitted[256] = {0};
    for (size_t li = 0; li < w->m.nlive; li++) {
        const struct model_entry *e = &w->m.e[w->m.live[li]];
        for (int i = model_index(&w->m, e->leaf); i >= 0; i = w->m.n[i].parent) {
            pending[i] += !e->admitted;
            admitted[i] += e->admitted;
        }
    }
    long bad = 0;
    for (size_t i = 0; i < w->m.nn; i++) {
        const struct model_node *x = &w->m.n[i];
        struct queue_status st;
        CU_ASSERT_EQUAL_FATAL(queue_node_status(w->t, x->q, &st), 0);
        bad += st.pending != pending[i] || st.admitted != admitted[i];
        bad += st.share != x->share; /* same formula, same operands: bit-equal */
        for (uint32_t r = 0; r < w->m.R; r++) {
            /* usage equals the sum of admitted entries; held matches a fresh count */
            bad += queue_resvec_get(&st.allocated, r) != x->use[r];
            bad += queue_resvec_get(&st.held, r) != x->held[r];
            /* no queue above its capability (capabilities never drop below usage here) */
            bad += x->use[r] > model_cap(&w->m, (int)i, r);
        }
        queue_status_close(&st);
        if (bad) {
            fprintf(stderr, "invariant broken at queue %s\n", queue_node_name(x->q));
            break;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
}

static void test_random_operations(void)
{
    const char *seed = getenv("MUSTER_SEED");
    const char *ops_env = getenv("MUSTER_PROPERTY_OPS");
    rng = seed ? strtoull(seed, NULL, 10) : 20261122;
    if (rng == 0)
        rng = 1;
    long ops = ops_env ? strtol(ops_env, NULL, 10) : 100000;
    printf("\n  seed %llu, %ld operations\n", (unsigned long long)rng, ops);

    struct world w = {0};
    w.t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(w.t);
    model_init(&w.m, w.t, (size_t)ops + 16);
    w.pend = calloc((size_t)ops + 16, sizeof(*w.pend));
    w.adm = calloc((size_t)ops + 16, sizeof(*w.adm));
    w.pos = calloc((size_t)ops + 16, sizeof(*w.pos));
    w.next_id = 1;
    static const char *names[] = {"cpu", "memory", "nvidia.com/gpu", "example.com/foo"};
    for (int k = 0; k < 2; k++)
        CU_ASSERT_EQUAL(queue_resnames_intern(queue_tree_resnames(w.t), names[k],
                                              strlen(names[k]), &w.res[k]), 0);
    w.nres = 2;
    for (int s = 0; s < NSHAPES / 2; s++) {
        random_vec(&w, &w.shapes[s], 1);
        if (w.shapes[s].len == 0)
            queue_resvec_set(&w.shapes[s], w.res[s % 2], 1000);
    }
    w.nshapes = NSHAPES / 2;
    /* A root with limits, so capacity binds. */
    struct queue_spec root;
    spec_init(&root, "root", NULL);
    for (int k = 0; k < 2; k++)
        queue_resvec_set(&root.capability, w.res[k], 200 * 1000);
    CU_ASSERT_EQUAL(queue_tree_update(w.t, &root, NULL), 0);
    spec_close(&root);

    for (long step = 0; step < ops; step++) {
        if (step == ops / 3) {
            /* New resource names appear mid-run, in requests only, as a first GPU job would. */
            for (int k = 2; k < 4; k++)
                CU_ASSERT_EQUAL(queue_resnames_intern(queue_tree_resnames(w.t), names[k],
                                                      strlen(names[k]), &w.res[k]), 0);
            w.nres = 4;
            for (int s = NSHAPES / 2; s < NSHAPES; s++) {
                random_vec(&w, &w.shapes[s], 1);
                queue_resvec_set(&w.shapes[s], w.res[2 + s % 2], 1000);
            }
            w.nshapes = NSHAPES;
        }
        struct leaves l = {.n = 0};
        queue_tree_walk(w.t, leaves_cb, &l);
        uint32_t r = pick(100);
        if (r < 3)
            op_create(&w, &l);
        else if (r < 6)
            op_update(&w, &l);
        else if (r < 7)
            op_delete_queue(&w, &l);
        else if (r < 27)
            op_add(&w, &l);
        else if (r < 67)
            op_decide(&w);
        else if (r < 84)
            op_release(&w);
        else if (r < 87)
            op_remove_pending(&w);
        else if (r < 90) {
            queue_cycle_begin(w.t);
            model_cycle_begin(&w.m);
        } else if (r < 91)
            op_fleet(&w);
        else
            op_cross_check(&w, &l);
        check_invariants(&w);
        if (CU_get_number_of_failures() > 0) {
            fprintf(stderr, "first failure at step %ld (seed %s)\n", step, seed ? seed : "default");
            break;
        }
    }
    printf("  %ld picks, %ld admitted, %ld skipped, %ld specs refused, %zu pending at end\n",
           w.picks, w.admitted, w.skips, w.failed_specs, w.npend);
    CU_ASSERT(w.admitted > ops / 100); /* the run exercised admission, not only refusals */
    CU_ASSERT(w.checks == ops || CU_get_number_of_failures() > 0);
    for (int s = 0; s < NSHAPES; s++)
        queue_resvec_close(&w.shapes[s]);
    free(w.pend);
    free(w.adm);
    free(w.pos);
    model_close(&w.m);
    queue_tree_free(w.t);
}

static CU_TestInfo tests[] = {
    {"random operations against the model", test_random_operations},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/property", tests)
