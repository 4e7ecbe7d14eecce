/* Randomized property test of the reclaim victim search against the naive model
 * (reclaim_model.h), which tries every subset of the running gangs on small random worlds:
 * up to 6 queues (some nested), up to 10 running gangs over up to 3 clusters, a pending gang
 * with its allowed clusters, minRuntime, withinQueue, cooling gangs and queues. For each world:
 * Half the worlds lend unused guarantees (queue_tree_set_lending), with queues reclaimable
 * or not.
 *   - with budgets large enough to be exact, the engine's answer is the model's: the same
 *     outcome, and the same victims in the same order (the smallest helping set, first in
 *     preference order), so no smaller helping set exists;
 *   - with the default budgets, and in both runs: the set helps, every victim is needed (the
 *     gang does not fit without it), none is freed in vain (each holds something the gang asks
 *     for in a cluster it may use), no queue off the gang's path ends below its guarantee, and
 *     "none" is only said when no subset helps, so no queue waits below its share while a
 *     borrower keeps capacity it could return; the tree is unchanged by a search.
 * MUSTER_SEED and MUSTER_RECLAIM_CASES override the seed and the number of worlds. */
#include "helpers.h"
#include "reclaim_model.h"
#include "testing.h"

#define MAXQ 6
#define MAXG 10

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

struct tally {
    long worlds, victims, not_needed, not_entitled, no_cands, none_helps, within, multi;
    long engine_fits, model_subsets, narrow_proven;
};

static uint32_t res_cpu, res_gpu;

static void set_if(struct queue_resvec *v, uint32_t id, int64_t units)
{
    if (units > 0)
        queue_resvec_set(v, id, units * 1000);
}

/* Queues are owners (a large deserved share, mostly idle) or borrowers (a small one or none);
 * owners' leaves come first in leaves[0..*nowners). */
static void make_queues(struct queue_tree *t, const struct queue_node **leaves, int *nleaves,
                        int *nowners)
{
    int n = 2 + (int)pick(MAXQ - 1);
    char names[MAXQ][16];
    int made = 0;
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof(names[i]), "q%d", i);
        struct queue_spec s;
        const char *parent = NULL;
        if (made && pick(3) == 0)
            parent = names[pick((uint32_t)made)];
        spec_init(&s, names[i], parent);
        s.weight = 1 + (int32_t)pick(3);
        s.priority = i % 2; /* owner or borrower, for the leaves' order below */
        if (s.priority == 0) {
            set_if(&s.deserved, res_gpu, 8 + pick(17));
            set_if(&s.deserved, res_cpu, pick(3) ? 32 + 8 * pick(9) : 0);
        } else if (pick(2)) {
            set_if(&s.deserved, res_gpu, pick(5));
            set_if(&s.deserved, res_cpu, pick(2) ? 8 * pick(3) : 0);
        }
        if (pick(3) == 0)
            for (uint32_t k = 0; k < s.deserved.len; k++)
                queue_resvec_set(&s.guarantee, s.deserved.items[k].id,
                                 s.deserved.items[k].milli / 2);
        if (pick(5) == 0)
            for (uint32_t k = 0; k < s.deserved.len; k++)
                queue_resvec_put(&s.capability, s.deserved.items[k].id,
                                 s.deserved.items[k].milli + 1000 * pick(16));
        s.within_queue = pick(3) == 0 ? QUEUE_WITHIN_LOWER_PRIORITY : QUEUE_WITHIN_NEVER;
        s.reclaimable = pick(3) == 0 ? QUEUE_NOT_RECLAIMABLE : QUEUE_RECLAIMABLE;
        s.min_runtime = pick(4) == 0 ? 30 : 0;
        int rc = queue_tree_create(t, &s, NULL);
        if (rc) { /* a guarantee or capability the parent cannot hold: drop them */
            queue_resvec_clear(&s.guarantee);
            queue_resvec_clear(&s.capability);
            rc = queue_tree_create(t, &s, NULL);
        }
        made += rc == 0;
        if (rc)
            names[i][0] = 'x'; /* never picked as a parent: it does not exist */
        spec_close(&s);
    }
    *nleaves = *nowners = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = pass; i < n; i += 2) {
            const struct queue_node *q = queue_tree_find(t, names[i]);
            if (q && queue_node_children(q) == 0)
                leaves[(*nleaves)++] = q;
        }
        if (pass == 0)
            *nowners = *nleaves;
    }
}

/* A leaf, an owner's with probability own/4 when there are both kinds. */
static const struct queue_node *some_leaf(const struct queue_node **leaves, int n, int owners,
                                          uint32_t own)
{
    if (owners > 0 && owners < n)
        return pick(4) < own ? leaves[pick((uint32_t)owners)]
                             : leaves[owners + (int)pick((uint32_t)(n - owners))];
    return leaves[pick((uint32_t)n)];
}

static void random_per(struct rm_world *w, struct queue_resvec *per)
{
    queue_resvec_clear(per);
    set_if(per, res_gpu, pick(4) ? 1 + pick(4) : 0);
    set_if(per, res_cpu, pick(2) ? 1 + pick(8) : 0);
    if (per->len == 0)
        set_if(per, res_gpu, 1);
    (void)w;
}

static int build_world(struct rm_world *w)
{
    const struct queue_node *leaves[MAXQ];
    int nleaves, nowners;
    memset(w, 0, sizeof(*w));
    w->t = queue_tree_new();
    struct queue_resnames *names = queue_tree_resnames(w->t);
    queue_resnames_intern(names, "cpu", 3, &res_cpu);
    queue_resnames_intern(names, "nvidia.com/gpu", 14, &res_gpu);
    w->lending = (int)pick(2);
    queue_tree_set_lending(w->t, w->lending);
    make_queues(w->t, leaves, &nleaves, &nowners);
    if (nleaves == 0)
        return 0;
    w->nclusters = 1 + pick(3);
    struct queue_resvec cap[3] = {{0}}, fleet = {0};
    for (size_t c = 0; c < w->nclusters; c++) {
        set_if(&cap[c], res_gpu, 4 + pick(9));
        set_if(&cap[c], res_cpu, 16 + 8 * pick(5));
        queue_resvec_add(&fleet, &cap[c]);
        queue_resvec_copy(&w->room[c], &cap[c]);
    }
    if (pick(2)) {
        queue_tree_set_fleet(w->t, &fleet);
        queue_resvec_copy(&w->fleet, &fleet);
    }
    size_t ng = 2 + pick(MAXG - 1);
    struct queue_resvec per = {0}, req = {0};
    for (size_t i = 0; i < ng; i++) {
        struct rm_gang *g = &w->g[w->ngangs];
        random_per(w, &per);
        queue_resvec_clear(&req);
        uint32_t c0 = pick((uint32_t)w->nclusters), c1 = pick((uint32_t)w->nclusters);
        uint32_t cl[2] = {c0, c1};
        int placed = 1;
        for (int k = 0; k < (c0 == c1 ? 1 : 2); k++) {
            struct queue_resvec part = {0};
            uint32_t n = 1 + pick(3);
            for (uint32_t j = 0; j < per.len; j++)
                queue_resvec_set(&part, per.items[j].id, per.items[j].milli * n);
            /* only what the cluster has left: running gangs fit where they run */
            if (!queue_resvec_fits(&part, &w->room[cl[k]], NULL)) {
                placed = k > 0;
                queue_resvec_close(&part);
                break;
            }
            queue_resvec_sub(&w->room[cl[k]], &part);
            queue_resvec_copy(&g->share[cl[k]], &part);
            queue_resvec_add(&req, &part);
            queue_resvec_close(&part);
        }
        if (!placed || req.len == 0)
            continue;
        struct queue_entry_spec es = {100 + i,
                                      queue_node_name(some_leaf(leaves, nleaves, nowners, 1)),
                                      (int32_t)pick(4), (int64_t)i, &req};
        if (queue_entry_add_admitted(w->t, &es, &g->e, NULL))
            abort();
        g->started = (int64_t)pick(100);
        if (rm_gang_record(w, w->ngangs))
            abort();
        w->ngangs++;
    }
    queue_resvec_close(&per);
    queue_resvec_close(&req);
    /* Work muster does not manage takes some of what is left. */
    for (size_t c = 0; c < w->nclusters; c++)
        for (uint32_t k = 0; k < w->room[c].len; k++)
            if (pick(3))
                w->room[c].items[k].milli = w->room[c].items[k].milli / 1000 * pick(2) * 1000 / 2;
    for (size_t c = 0; c < 3; c++)
        queue_resvec_close(&cap[c]);
    queue_resvec_close(&fleet);
    /* the pending gang */
    w->queue = some_leaf(leaves, nleaves, nowners, 3);
    w->priority = (int32_t)pick(5);
    random_per(w, &w->per);
    w->replicas = 1 + pick(4);
    uint32_t mask = 1 + pick((1u << w->nclusters) - 1);
    for (uint32_t c = 0; c < w->nclusters; c++)
        if (mask & (1u << c))
            w->allowed[w->nallowed++] = c;
    w->spread = (int)pick(2);
    w->now = 100 + (int64_t)pick(60);
    if (w->ngangs && pick(5) == 0)
        w->cooling_gangs[w->ncooling_gangs++] = queue_entry_id(w->g[pick((uint32_t)w->ngangs)].e);
    if (pick(8) == 0)
        w->cooling_queues[w->ncooling_queues++] = leaves[pick((uint32_t)nleaves)];
    return 1;
}

static void free_world(struct rm_world *w)
{
    for (size_t c = 0; c < RM_CLUSTERS_MAX; c++)
        queue_resvec_close(&w->room[c]);
    for (size_t i = 0; i < w->ngangs; i++)
        for (size_t c = 0; c < RM_CLUSTERS_MAX; c++)
            queue_resvec_close(&w->g[i].share[c]);
    queue_resvec_close(&w->per);
    queue_resvec_close(&w->fleet);
    queue_tree_free(w->t);
}

static size_t gang_index(const struct rm_world *w, const struct queue_entry *e)
{
    for (size_t i = 0; i < w->ngangs; i++)
        if (w->g[i].e == e)
            return i;
    return SIZE_MAX;
}

static int on_path(const struct queue_node *x, const struct queue_node *leaf)
{
    for (const struct queue_node *q = leaf; q; q = queue_node_parent(q))
        if (q == x)
            return 1;
    return 0;
}

/* Checks that hold for any answer the engine gives, exact or within a budget. */
static void check_sound(struct rm_model *rm, struct queue_reclaim *rc, const char *which)
{
    struct rm_world *w = rm->w;
    size_t n = queue_reclaim_count(rc), set[RM_GANGS_MAX];
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        set[i] = gang_index(w, queue_reclaim_victim(rc, i)->gang);
        bad += set[i] == SIZE_MAX || !rm->eligible[set[i]];
        bad += set[i] != SIZE_MAX && !rm_useful(w, set[i]); /* never freed in vain */
    }
    if (bad) {
        CU_FAIL("a victim that may not go or frees nothing usable");
        return;
    }
    if (queue_reclaim_outcome(rc) == QUEUE_RECLAIM_VICTIMS) {
        CU_ASSERT(n > 0);
        CU_ASSERT(rm_valid(rm, set, n)); /* the gang fits once they are gone */
        for (size_t i = 0; i < n; i++) { /* every victim is needed */
            size_t less[RM_GANGS_MAX], m = 0;
            for (size_t j = 0; j < n; j++)
                if (j != i)
                    less[m++] = set[j];
            if (rm_valid(rm, less, m)) {
                fprintf(stderr, "%s: victim %zu of %zu is not needed\n", which, i, n);
                CU_FAIL("a victim the gang fits without");
            }
        }
        /* No queue off the gang's path ends below its guarantee (or loses what it had under
         * it): their usage only falls, by their victims. */
        for (size_t x = 0; x < rm->m.nn; x++) {
            const struct queue_node *q = rm->m.n[x].q;
            if (on_path(q, w->queue))
                continue;
            for (uint32_t r = 0; r < rm->R; r++) {
                int64_t before = rm->m.n[x].use[r], after = before;
                for (size_t i = 0; i < n; i++)
                    if (on_path(q, queue_entry_queue(w->g[set[i]].e)))
                        after -= queue_resvec_get(queue_entry_request(w->g[set[i]].e), r);
                int64_t g = queue_resvec_get(&queue_node_spec(q)->guarantee, r);
                if (after < (before < g ? before : g)) {
                    fprintf(stderr, "%s: queue %s ends below its guarantee\n", which,
                            queue_node_name(q));
                    CU_FAIL("a lender below its guarantee");
                }
            }
        }
    } else {
        CU_ASSERT_EQUAL(n, 0);
    }
    char buf[1024];
    CU_ASSERT(queue_reclaim_explain_wait(rc, w->t, buf, sizeof(buf)) > 0);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT(queue_reclaim_explain_victim(rc, w->t, i, buf, sizeof(buf)) > 0);
}

static void dump(struct rm_model *rm, const struct rm_answer *ans, struct queue_reclaim *rc)
{
    struct rm_world *w = rm->w;
    char path[256];
    queue_node_path(w->queue, path, sizeof(path));
    fprintf(stderr, "pending in %s prio %d replicas %u spread %d allowed %zu; model %s size %zu,"
            " engine outcome %d count %zu\n", path, w->priority, w->replicas, w->spread,
            w->nallowed, ans->found ? "found" : "none", ans->n, (int)queue_reclaim_outcome(rc),
            queue_reclaim_count(rc));
    for (size_t i = 0; i < w->ngangs; i++) {
        queue_node_path(queue_entry_queue(w->g[i].e), path, sizeof(path));
        fprintf(stderr, "  gang %llu in %s prio %d started %lld eligible %d\n",
                (unsigned long long)queue_entry_id(w->g[i].e), path,
                queue_entry_priority(w->g[i].e), (long long)w->g[i].started, rm->eligible[i]);
    }
    for (size_t i = 0; i < ans->n; i++)
        fprintf(stderr, "  model victim %llu\n",
                (unsigned long long)queue_entry_id(w->g[ans->idx[i]].e));
    for (size_t i = 0; i < queue_reclaim_count(rc); i++)
        fprintf(stderr, "  engine victim %llu\n",
                (unsigned long long)queue_entry_id(queue_reclaim_victim(rc, i)->gang));
}

static void one_world(struct queue_reclaim *rc, struct tally *tl)
{
    struct rm_world w;
    if (!build_world(&w)) {
        free_world(&w);
        return;
    }
    tl->worlds++;
    struct queue_status before[16];
    size_t nq = 0;
    struct rm_model rm;
    rm_model_init(&rm, &w);
    for (size_t x = 0; x < rm.m.nn && nq < 16; x++)
        CU_ASSERT_EQUAL(queue_node_status(w.t, rm.m.n[x].q, &before[nq++]), 0);

    /* Exact: budgets no world here can reach. */
    struct queue_reclaim_req req;
    rm_request(&w, &req);
    req.max_candidates = QUEUE_RECLAIM_CANDIDATES_MAX;
    req.max_nodes = 1u << 30;
    req.max_fits = 1u << 30;
    w.fits_calls = 0;
    CU_ASSERT_EQUAL_FATAL(queue_reclaim_search(rc, w.t, &req), 0);
    struct queue_reclaim_stats st;
    queue_reclaim_stats(rc, &st);
    CU_ASSERT_EQUAL(st.fits_calls, (uint32_t)w.fits_calls);
    tl->engine_fits += st.fits_calls;
    struct rm_answer ans;
    rm_solve(&rm, &ans);
    tl->model_subsets += ans.subsets;
    enum queue_reclaim_outcome out = queue_reclaim_outcome(rc);
    /* Candidates are ranked lazily: all of them unless it fits now or one victim is enough. */
    int agree = st.smallest && (st.truncated ? st.candidates <= ans.ncands
                                             : st.candidates == ans.ncands);
    if (ans.found && ans.n == 0) {
        agree &= out == QUEUE_RECLAIM_NOT_NEEDED;
        tl->not_needed++;
    } else if (ans.found) {
        agree &= out == QUEUE_RECLAIM_VICTIMS && queue_reclaim_count(rc) == ans.n;
        for (size_t i = 0; agree && i < ans.n; i++)
            agree &= queue_reclaim_victim(rc, i)->gang == w.g[ans.idx[i]].e;
        tl->victims++;
        tl->multi += ans.n > 1;
        for (size_t i = 0; agree && i < ans.n; i++)
            tl->within += queue_reclaim_victim(rc, i)->kind == QUEUE_RECLAIM_WITHIN_QUEUE;
    } else {
        if (ans.ncands == 0)
            agree &= out == QUEUE_RECLAIM_NOT_ENTITLED || out == QUEUE_RECLAIM_NO_CANDIDATES;
        else
            agree &= out == QUEUE_RECLAIM_NONE_HELPS;
        tl->not_entitled += out == QUEUE_RECLAIM_NOT_ENTITLED;
        tl->no_cands += out == QUEUE_RECLAIM_NO_CANDIDATES;
        tl->none_helps += out == QUEUE_RECLAIM_NONE_HELPS;
    }
    if (!agree) {
        dump(&rm, &ans, rc);
        CU_FAIL("engine and model disagree");
    }
    check_sound(&rm, rc, "exact");

    /* Default budgets: possibly not the smallest, always sound. */
    rm_request(&w, &req);
    CU_ASSERT_EQUAL_FATAL(queue_reclaim_search(rc, w.t, &req), 0);
    check_sound(&rm, rc, "budget");
    if (ans.found != (queue_reclaim_outcome(rc) == QUEUE_RECLAIM_VICTIMS ||
                      queue_reclaim_outcome(rc) == QUEUE_RECLAIM_NOT_NEEDED)) {
        queue_reclaim_stats(rc, &st);
        CU_ASSERT(!st.smallest); /* only a budget may miss a helping set */
    }

    /* Narrow windows and budgets: still sound, and a claim to be smallest is true. */
    rm_request(&w, &req);
    req.max_candidates = 1 + pick(4);
    req.max_nodes = 1 + pick(40);
    req.max_fits = 1 + pick(20);
    CU_ASSERT_EQUAL_FATAL(queue_reclaim_search(rc, w.t, &req), 0);
    check_sound(&rm, rc, "narrow");
    queue_reclaim_stats(rc, &st);
    out = queue_reclaim_outcome(rc);
    if (st.smallest && out == QUEUE_RECLAIM_VICTIMS && !(ans.found && ans.n == queue_reclaim_count(rc))) {
        dump(&rm, &ans, rc);
        CU_FAIL("a narrow search claims a smallest set the model beats");
    }
    if (st.smallest && out == QUEUE_RECLAIM_NONE_HELPS)
        CU_ASSERT(!ans.found);
    tl->narrow_proven += st.smallest && out == QUEUE_RECLAIM_VICTIMS && st.truncated;

    /* The searches left the tree as it was. */
    for (size_t x = 0; x < nq; x++) {
        struct queue_status after;
        CU_ASSERT_EQUAL(queue_node_status(w.t, rm.m.n[x].q, &after), 0);
        CU_ASSERT_EQUAL(queue_resvec_cmp(&before[x].allocated, &after.allocated), 0);
        CU_ASSERT_EQUAL(queue_resvec_cmp(&before[x].held, &after.held), 0);
        CU_ASSERT(before[x].share == after.share);
        queue_status_close(&after);
        queue_status_close(&before[x]);
    }
    rm_model_close(&rm);
    free_world(&w);
}

static void test_against_model(void)
{
    const char *seed = getenv("MUSTER_SEED");
    const char *cases_env = getenv("MUSTER_RECLAIM_CASES");
    rng = seed ? strtoull(seed, NULL, 10) : 20261126;
    if (rng == 0)
        rng = 1;
    long cases = cases_env ? strtol(cases_env, NULL, 10) : 20000;
    printf("\n  seed %llu, %ld worlds\n", (unsigned long long)rng, cases);
    struct queue_reclaim *rc = queue_reclaim_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
    struct tally tl = {0};
    for (long i = 0; i < cases; i++) {
        one_world(rc, &tl);
        if (CU_get_number_of_failures() > 0) {
            fprintf(stderr, "first failure in world %ld (seed %s)\n", i, seed ? seed : "default");
            break;
        }
    }
    printf("  %ld worlds: %ld with victims (%ld of several, %ld within a queue), %ld fit "
           "already, %ld not entitled, %ld nothing to take, %ld none helps; %ld dry runs by the "
           "engine, %ld subsets by the model; %ld narrow searches proven smallest by the bound\n",
           tl.worlds, tl.victims, tl.multi, tl.within, tl.not_needed, tl.not_entitled,
           tl.no_cands, tl.none_helps, tl.engine_fits, tl.model_subsets, tl.narrow_proven);
    /* The worlds exercised the search, not only its refusals. */
    CU_ASSERT(tl.victims > tl.worlds / 10);
    CU_ASSERT(tl.multi > 0 && tl.within > 0 && tl.none_helps > 0);
    queue_reclaim_free(rc);
}

static CU_TestInfo tests[] = {
    {"victim search against the every-subset model", test_against_model},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("queue/reclaim_property", tests)
