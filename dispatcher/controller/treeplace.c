/* Placement of a gang read as a tree of groups (issue 20; the tree is karmada/groups.h, the
 * search dispatcher/composite.c): the dispatch cycle's place() hands a gang with a tree here, and
 * its shares become the pods of the leaves each cluster got. Groups are never split between
 * clusters, topology constraints hold, and a gang that does not fit says which level fails where
 * (docs/composite.md). */
#include "dispatcher/controller/ctl_int.h"

#include "cluster-adapters/karmada/gang_split.h"
#include "cluster-adapters/karmada/workload_groups.h"
#include "dispatcher/composite.h"

struct level_ctx {
    struct ctl *c;
    const uint32_t *idx; /* the candidates' indexes in the fleet */
};

static const char *level_of(void *ud, uint32_t cluster, const char *level)
{
    const struct level_ctx *x = ud;
    return karmada_group_level_value(x->c->fleet.cl[x->idx[cluster]].obj, level);
}

uint32_t ctl__tree_shares(const struct karmada_group_tree *t, const int32_t *cluster, uint32_t ncl,
                          int64_t target, struct ctl_tree_share *out)
{
    uint32_t n = 0;
    int64_t taken = 0;
    for (uint32_t i = 0; i < t->n && taken < target; i++) {
        if (cluster[i] < 0 || (uint32_t)cluster[i] >= ncl || t->g[i].pods == 0)
            continue;
        if (taken + t->g[i].pods > target)
            return 0; /* a group would be cut to meet the count: not this placement */
        uint32_t j = 0;
        while (j < n && out[j].cluster != (uint32_t)cluster[i])
            j++;
        if (j == n)
            out[n++] = (struct ctl_tree_share){(uint32_t)cluster[i], 0};
        out[j].pods += t->g[i].pods;
        taken += t->g[i].pods;
    }
    return taken == target ? n : 0;
}

/* The leaf of one group of b's set j (a JobSet's replicated job j): its first Job's leaf. The
 * leaves follow the replicated jobs with pods in template order, each one's Jobs in a run from
 * "<name>-0" (workload_groups.c), whether under the replicated job's group or under a
 * CompositePodGroup template's. NULL for a set without pods. */
static const struct karmada_group *set_leaf(const struct binding *b, uint32_t j)
{
    if (j >= b->ncomp || b->comp[j].replicas <= 0)
        return NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < j; i++)
        k += b->comp[i].replicas > 0;
    for (uint32_t g = 1; g < b->tree.n; g++) {
        const struct karmada_group *l = &b->tree.g[g];
        size_t len = strlen(l->name);
        if (l->pods == 0 || len < 2 || strcmp(l->name + len - 2, "-0") != 0)
            continue;
        if (k == 0)
            return l;
        k--; /* an earlier replicated job's first Job */
    }
    return NULL;
}

/* The pods of one group of b's set j; 0 for a set without pods. */
static uint32_t set_pods(const struct binding *b, uint32_t j)
{
    const struct karmada_group *l = set_leaf(b, j);
    return l ? l->pods : 0;
}

/* The pods of one group of b's set j that its member-side gang must hold: the leaf's min_count
 * when below its pods (a Workload API pod group template's minCount, issue 20), else 0 (every
 * pod, what every other source's leaf asks). */
static uint32_t set_group_min(const struct binding *b, uint32_t j)
{
    const struct karmada_group *l = set_leaf(b, j);
    return l && l->pods && l->min_count < l->pods ? l->min_count : 0;
}

uint32_t ctl__split_nsets(const struct binding *b)
{
    return b->split_sets > 1 ? b->split_sets : 1;
}

/* The cells from the groups the row recorded per share and set: each share's groups hold
 * exactly its replicas. */
static int split_from_groups(const struct binding *b, uint32_t nsets,
                             struct karmada_gang_split *cells)
{
    int jobset = b->kind == KARMADA_WORKLOAD_KIND_JOBSET;
    for (uint32_t i = 0; i < b->nshares; i++) {
        int64_t pods = 0, groups = 0;
        for (uint32_t j = 0; j < nsets; j++) {
            uint32_t g = b->shares[i].groups[j];
            uint32_t p = jobset ? set_pods(b, j) : b->split_pods;
            if (g && !p)
                return 0;
            pods += (int64_t)g * p;
            groups += g;
        }
        if (!groups || pods != b->shares[i].replicas)
            return 0;
    }
    for (uint32_t i = 0; i < b->nshares; i++)
        for (uint32_t j = 0; j < nsets; j++) {
            uint32_t g = b->shares[i].groups[j];
            cells[i * nsets + j] = (struct karmada_gang_split){
                .groups = g, .min_groups = g, .group_min = jobset ? set_group_min(b, j) : 0};
        }
    return 1;
}

int ctl__split_fill(const struct binding *b, struct karmada_gang_split *cells)
{
    uint32_t nsets = ctl__split_nsets(b);
    if (!b->split_pods || nsets > CTL_SPLIT_SETS_MAX)
        return 0;
    int recorded = 0;
    for (uint32_t i = 0; i < b->nshares && !recorded; i++)
        for (uint32_t j = 0; j < nsets; j++)
            recorded |= b->shares[i].groups[j] != 0;
    if (recorded)
        return split_from_groups(b, nsets, cells);
    if (nsets != 1)
        return 0; /* which replicated job's Jobs went where is not in the replicas */
    /* one set and a row from before the groups were kept: derived from the replicas */
    for (uint32_t i = 0; i < b->nshares; i++)
        if (b->shares[i].replicas <= 0 || (uint32_t)b->shares[i].replicas % b->split_pods)
            return 0;
    for (uint32_t i = 0; i < b->nshares; i++) {
        uint32_t g = (uint32_t)b->shares[i].replicas / b->split_pods;
        cells[i] = (struct karmada_gang_split){
            .groups = g,
            .min_groups = g,
            .group_min = b->kind == KARMADA_WORKLOAD_KIND_JOBSET ? set_group_min(b, 0) : 0};
    }
    return 1;
}

int64_t ctl__share_comp_pods(const struct binding *b, const struct share *sh, uint32_t j)
{
    if (b->ncomp == 1)
        return sh->replicas;
    if (b->split_pods && b->kind == KARMADA_WORKLOAD_KIND_LWS && b->ncomp == 2) {
        int64_t groups = sh->replicas / b->split_pods;
        return j == 0 ? groups : sh->replicas - groups;
    }
    if (b->split_pods && b->kind == KARMADA_WORKLOAD_KIND_JOBSET && j < CTL_SPLIT_SETS_MAX)
        return (int64_t)sh->groups[j] * set_pods(b, j);
    return b->comp[j].replicas;
}

/* The shares of a split gang's placement (issue 20): the clusters in order of their first leaf
 * in tree order (the order the offsets follow, kept on the row), each share's pods those of its
 * whole groups as karmada_gang_split_from_tree counts them. 1 with b->shares set, 0 when not
 * every group is placed (the commit is all or nothing; the reason is set) unless b is a JobSet
 * at fewer Jobs (ctl__jobset_min: what t's placement holds), or MUSTER_ENOMEM. t is b's tree,
 * or the tree of the Jobs a JobSet at fewer Jobs tries (c->tree_view). */
static int split_shares(struct ctl *c, struct binding *b, const struct karmada_group_tree *t,
                        const int32_t *cluster, uint32_t ncl, const uint32_t *idx)
{
    int32_t share_of[KARMADA_GROUPS_MAX];
    int32_t share_at[256];
    uint32_t cand[256], nsh = 0;
    for (uint32_t i = 0; i < ncl && i < 256; i++)
        share_at[i] = -1;
    for (uint32_t g = 0; g < t->n && g < KARMADA_GROUPS_MAX; g++) {
        share_of[g] = -1;
        if (t->g[g].pods == 0 || cluster[g] < 0 || (uint32_t)cluster[g] >= ncl || cluster[g] >= 256)
            continue;
        if (share_at[cluster[g]] < 0) {
            cand[nsh] = (uint32_t)cluster[g];
            share_at[cluster[g]] = (int32_t)nsh++;
        }
        share_of[g] = share_at[cluster[g]];
    }
    uint32_t nsets = ctl__split_nsets(b);
    struct karmada_gang_split *cells = muster_malloc((size_t)(nsh ? nsh : 1) * nsets * sizeof(*cells));
    int32_t replicas[256];
    int64_t sum = 0;
    if (!cells)
        return MUSTER_ENOMEM;
    /* the workload as its template says (c->w is the read's scratch: read again for b) */
    int rc = ctl__workload_read(c, ctl__rb(c, b), ctl__tmpl(c, b));
    if (!rc)
        rc = karmada_gang_split_from_tree(&c->w, ctl__tmpl(c, b), t, share_of, nsh, cells, nsets,
                                          replicas);
    for (uint32_t i = 0; !rc && i < nsh; i++)
        sum += replicas[i];
    /* A JobSet whose composites need fewer Jobs than it has runs what the search placed: the
     * search held every level to its min_count, and its objects count the Jobs admitted (the
     * rest never runs: JobSet's replicatedJobs are immutable, so no delta waits). */
    int fewer = sum > 0 && sum < b->replicas && ctl__jobset_min(b);
    if (rc || !nsh || (sum != b->replicas && !fewer)) {
        muster_free(cells);
        ctl__set_reason(b, "NoClusterFit",
                        "only part of its %" PRId32 " pods can be placed in whole groups "
                        "over the allowed Ready clusters",
                        b->replicas);
        return 0;
    }
    if (ctl__shares_reserve(b, nsh)) {
        muster_free(cells);
        return MUSTER_ENOMEM;
    }
    for (uint32_t i = 0; i < nsh; i++) {
        snprintf(b->shares[i].cluster, sizeof b->shares[i].cluster, "%s",
                 c->fleet.cl[idx[cand[i]]].name);
        b->shares[i].replicas = replicas[i];
        /* recorded with the share (the row's clusters), so a restart builds these counts
         * rather than guess them from the replicas */
        for (uint32_t j = 0; j < nsets; j++)
            b->shares[i].groups[j] = (uint16_t)cells[(size_t)i * nsets + j].groups;
    }
    b->nshares = nsh;
    muster_free(cells);
    return 1;
}

int64_t ctl__vcjob_min_tree(const struct karmada_group_tree *t, struct karmada_group *buf,
                            uint32_t cap, struct karmada_group_tree *out)
{
    int64_t pods = 0, all = 0;
    out->g = buf;
    out->n = 0;
    if (t->n < 2 || cap < 2 || t->g[0].source != KARMADA_GROUP_SOURCE_VCJOB_TASK)
        return 0;
    buf[0] = t->g[0];
    out->n = 1;
    for (uint32_t i = 1; i < t->n; i++) {
        const struct karmada_group *g = &t->g[i];
        if (g->parent != 0) {
            const struct karmada_group *p =
                g->parent > 0 && (uint32_t)g->parent < i ? &t->g[g->parent] : NULL;
            if (!p || p->parent != 0 || p->pods != 0 || g->pods == 0) {
                out->n = 0; /* not the tree of tasks workload_groups.c reads */
                return 0;
            }
            continue; /* a partition: counted with its task below */
        }
        /* a task: its own leaf, or the first of its partitions standing for the ones needed */
        int64_t task_pods = g->pods, need = g->min_count < g->pods ? g->min_count : g->pods;
        const struct karmada_group *shape = g;
        if (g->pods == 0) {
            need = 0;
            shape = NULL;
            for (uint32_t j = i + 1; j < t->n && t->g[j].parent != 0; j++) {
                if (t->g[j].parent != (int32_t)i)
                    continue;
                task_pods += t->g[j].pods;
                need += t->g[j].min_count ? t->g[j].pods : 0;
                shape = shape ? shape : &t->g[j];
            }
            if (!shape) {
                out->n = 0;
                return 0;
            }
        }
        all += task_pods;
        if (need == 0)
            continue; /* a task the job's minimum does not need: Volcano lets it wait */
        if (out->n >= cap) {
            out->n = 0;
            return 0;
        }
        buf[out->n] = *shape;
        memcpy(buf[out->n].name, g->name, sizeof(buf[out->n].name));
        buf[out->n].parent = 0;
        buf[out->n].ntopo = g->ntopo;
        memcpy(buf[out->n].topo, g->topo, sizeof(buf[out->n].topo));
        buf[out->n].pods = (uint32_t)need;
        buf[out->n].min_count = g->pods ? g->min_count : (uint32_t)need;
        pods += need;
        out->n++;
    }
    buf[0].min_count = out->n - 1;
    if (out->n < 2 || pods >= all) {
        out->n = 0;
        return 0;
    }
    return pods;
}

/* b kept whole in one cluster could be split by groups had its user opted in (a JobSet of
 * several Jobs, a LeaderWorkerSet of several groups): its reason says how. */
static int split_would_help(const struct binding *b)
{
    /* a JobSet at fewer Jobs is a split over one cluster without spread: spread still helps */
    if ((b->split_pods && b->spread) || !b->tree.n || !b->tree.g[0].indivisible || !b->ncomp)
        return 0;
    uint32_t leaves = 0;
    for (uint32_t i = 0; i < b->tree.n; i++)
        leaves += b->tree.g[i].pods > 0;
    return (b->kind == KARMADA_WORKLOAD_KIND_JOBSET && leaves > 1) ||
           (b->kind == KARMADA_WORKLOAD_KIND_LWS && b->comp[0].replicas > 1);
}

int ctl__place_tree(struct ctl *c, struct binding *b, const struct disp_cluster_cap *caps,
                    const uint32_t *idx, uint32_t n)
{
    struct disp_cluster_cap sc[256];
    uint32_t sidx[256];
    if (b->split_pods) {
        /* a split's groups are written per cluster for Volcano and coscheduling members only
         * (gang_split.h): YuniKorn's task groups and the Workload API take none */
        uint32_t m = 0;
        for (uint32_t i = 0; i < n && i < 256; i++) {
            enum karmada_gang_dialect d = ctl__cluster_dialect(c, c->fleet.cl[idx[i]].name, NULL);
            if (d == KARMADA_GANG_DIALECT_VOLCANO || d == KARMADA_GANG_DIALECT_COSCHEDULING) {
                sc[m] = caps[i];
                sidx[m++] = idx[i];
            }
        }
        caps = sc;
        idx = sidx;
        n = m;
    }
    struct level_ctx x = {c, idx};
    /* A gang with a group minimum placed at fewer pods than its tree holds (elastic.c, at its
     * minimum or whole groups above it) is placed as the tree of its first groups: a prefix of
     * the array is a tree, its leaves are alike, and the search then keeps every constraint
     * for exactly the groups admitted (taking some of a larger placement could break a
     * spread). */
    struct karmada_group_tree view = b->tree;
    if (c->tree_view && b->split_pods && ctl__jobset_min(b))
        view = *c->tree_view; /* a JobSet at fewer Jobs stepping down (cycle.c jobset_offer) */
    int32_t unit = ctl__elastic_unit(b);
    if (ctl__tree_min(b) && b->comp[0].replicas % unit == 0 &&
        (uint32_t)(b->comp[0].replicas / unit) < view.n - 1)
        view.n = 1 + (uint32_t)(b->comp[0].replicas / unit);
    struct disp_composite_in in = {.tree = &view,
                                   .clusters = caps,
                                   .nclusters = n,
                                   .level_value = level_of,
                                   .ud = &x,
                                   .names = c->names};
    struct disp_composite_result r;
    memset(&r, 0, sizeof r);
    int rc = n ? disp_composite_place(&in, &r) : 0;
    ctl__act_set_tree_placed(c, b, !rc && r.placed ? (int64_t)r.score.pods : 0);
    c->st.tree_searches += n != 0;
    /* A search the budget stopped proves nothing: with other room (less, even) it may find what
     * it missed, so its verdict is not kept while no cluster grows (cycle.c nofit_holds). A
     * search that ran out of branches did see every placement: room that only shrinks, under
     * the same constraints, cannot make one. */
    ctl__act_set_nofit_unproven(c, b, n && !rc && !r.complete);
    if (rc == MUSTER_ENOMEM) {
        disp_composite_result_close(&r);
        return rc;
    }
    /* A Volcano Job whose whole fits in no cluster goes where its minimum does (every task at
     * its minAvailable): the Job is still written whole, and its member's Volcano starts the
     * rest as room frees (docs/composite.md, "Admitted at its minimum"). */
    struct karmada_group mbuf[KARMADA_WORKLOAD_COMPONENTS_MAX + 1];
    struct karmada_group_tree mt = {0};
    int64_t min_pods =
        !rc && n && !r.placed && b->kind == KARMADA_WORKLOAD_KIND_VCJOB
            ? ctl__vcjob_min_tree(&b->tree, mbuf, KARMADA_WORKLOAD_COMPONENTS_MAX + 1, &mt)
            : 0;
    if (min_pods > 0) {
        struct disp_composite_result mr;
        memset(&mr, 0, sizeof mr);
        in.tree = &mt;
        int mrc = disp_composite_place(&in, &mr);
        if (mrc == MUSTER_ENOMEM) {
            disp_composite_result_close(&mr);
            disp_composite_result_close(&r);
            return mrc;
        }
        if (!mrc && mr.placed) {
            disp_composite_result_close(&r);
            r = mr; /* owned by r from here */
            view = mt;
            ctl__act_set_tree_placed(c, b, (int64_t)r.score.pods);
        } else {
            disp_composite_result_close(&mr);
            size_t l = strlen(r.why);
            snprintf(r.why + l, sizeof r.why - l,
                     "; not even its minimum (%" PRId64 " of its %" PRId32
                     " pods, each task at its minAvailable) fits in one cluster",
                     min_pods, b->replicas);
        }
    }
    if (rc || !n || !r.placed) {
        if (!n)
            ctl__set_reason(b, "NoClusterFit", "no allowed Ready cluster can hold a group of it");
        else
            ctl__set_reason(b, rc ? "Unschedulable" : "NoClusterFit", "%s%s", r.why,
                            !rc && split_would_help(b)
                                ? "; it goes whole to one cluster unless "
                                  "scheduling.muster.io/placement: spread lets its groups part"
                                : "");
        disp_composite_result_close(&r);
        return 0;
    }
    if (b->split_pods) {
        rc = split_shares(c, b, &view, r.cluster, n, idx);
        disp_composite_result_close(&r);
        return rc;
    }
    struct ctl_tree_share ts[256];
    /* Several shapes (a Volcano Job's tasks, a LeaderWorkerSet's leader and workers) go whole
     * to one cluster (the root is indivisible for them, workload_groups.c): one share of all
     * its replicas, every pod counted by its own shape when the cycle reserves it. */
    int64_t target = b->ncomp == 1 ? b->comp[0].replicas : 0;
    for (uint32_t i = 0; b->ncomp > 1 && i < b->ncomp; i++)
        target += b->comp[i].replicas;
    /* a Volcano Job at its minimum: its one cluster is what counts */
    if (view.g == mbuf)
        target = ctl__act(b)->tree_placed;
    uint32_t got = ctl__tree_shares(&view, r.cluster, n, target, ts);
    if (b->ncomp > 1 && got == 1)
        ts[0].pods = (uint64_t)b->replicas;
    else if (b->ncomp > 1)
        got = 0;
    disp_composite_result_close(&r);
    if (!got) {
        /* Fewer groups than the gang asks for fit (the search places what it can, at least the
         * tree's min_count; only a gang admitted at its minimum takes fewer, elastic.c). */
        ctl__set_reason(b, "NoClusterFit",
                        "only part of its %" PRId64 " pods can be placed in whole groups "
                        "over the allowed Ready clusters",
                        target);
        return 0;
    }
    if (ctl__shares_reserve(b, got))
        return MUSTER_ENOMEM;
    for (uint32_t i = 0; i < got; i++) {
        snprintf(b->shares[i].cluster, sizeof b->shares[i].cluster, "%s",
                 c->fleet.cl[idx[ts[i].cluster]].name);
        b->shares[i].replicas = (int32_t)ts[i].pods;
    }
    b->nshares = got;
    return 1;
}

int ctl__tree_cluster_ok(const struct karmada_group_tree *t, json_object *const *kept,
                         uint32_t nk, json_object *cand)
{
    for (uint32_t g = 0; t && g < t->n; g++) {
        for (uint32_t j = 0; j < t->g[g].ntopo; j++) {
            const struct karmada_group_topo *tp = &t->g[g].topo[j];
            if (!tp->required || tp->mode != KARMADA_TOPO_PACK)
                continue;
            const char *v = karmada_group_level_value(cand, tp->level);
            if (!v)
                return 0; /* a required pack never uses a cluster outside its level */
            for (uint32_t i = 0; g == 0 && i < nk; i++) {
                const char *kv = karmada_group_level_value(kept[i], tp->level);
                if (!kv || strcmp(kv, v) != 0)
                    return 0;
            }
        }
    }
    return 1;
}

int ctl__tree_required_ok(const struct karmada_group_tree *t, json_object *const *objs,
                          uint32_t n)
{
    for (uint32_t g = 0; t && g < t->n; g++) {
        for (uint32_t j = 0; j < t->g[g].ntopo; j++) {
            const struct karmada_group_topo *tp = &t->g[g].topo[j];
            if (!tp->required)
                continue;
            uint32_t distinct = 0;
            for (uint32_t i = 0; i < n; i++) {
                const char *v = karmada_group_level_value(objs[i], tp->level);
                if (!v && tp->mode == KARMADA_TOPO_PACK)
                    return 0; /* a required pack never uses a cluster outside its level */
                int seen = !v;
                for (uint32_t k = 0; k < i && !seen; k++) {
                    const char *w = karmada_group_level_value(objs[k], tp->level);
                    seen = w && strcmp(w, v) == 0;
                }
                distinct += !seen;
            }
            if (g == 0 && tp->mode == KARMADA_TOPO_PACK && distinct > 1)
                return 0;
            if (g == 0 && tp->mode == KARMADA_TOPO_SPREAD && distinct < tp->min_domains)
                return 0;
        }
    }
    return 1;
}

int ctl__tree_fits(struct ctl *c, struct binding *b, const struct disp_cluster_cap *caps,
                   const uint32_t *idx, uint32_t n)
{
    struct disp_cluster_cap sc[256];
    uint32_t sidx[256], m = 0;
    for (uint32_t i = 0; i < n && i < 256; i++) {
        enum karmada_gang_dialect d = ctl__cluster_dialect(c, c->fleet.cl[idx[i]].name, NULL);
        /* as ctl__place_tree: a split's groups go to Volcano and coscheduling members only */
        if (!b->split_pods || d == KARMADA_GANG_DIALECT_VOLCANO ||
            d == KARMADA_GANG_DIALECT_COSCHEDULING) {
            sc[m] = caps[i];
            sidx[m++] = idx[i];
        }
    }
    if (!m)
        return 0;
    struct level_ctx x = {c, sidx};
    struct disp_composite_in in = {.tree = &b->tree,
                                   .clusters = sc,
                                   .nclusters = m,
                                   .level_value = level_of,
                                   .ud = &x,
                                   .names = c->names};
    struct disp_composite_result r;
    memset(&r, 0, sizeof r);
    int rc = disp_composite_place(&in, &r);
    int fits = 0;
    if (!rc && r.placed) {
        int64_t target = 0, placed = 0;
        for (uint32_t i = 0; i < b->ncomp; i++)
            target += b->comp[i].replicas;
        for (uint32_t g = 0; g < b->tree.n; g++)
            placed += r.cluster[g] >= 0 ? b->tree.g[g].pods : 0;
        if (b->split_pods && ctl__jobset_min(b)) {
            /* a JobSet at fewer Jobs is admitted at what the search places (jobset_offer),
             * which never leaves a level below its min_count: at least its minimum */
            fits = 1;
        } else if (b->elastic && ctl__tree_min(b)) {
            /* a group minimum is admitted at what fits in whole groups, at least its minimum
             * (tree_offer), and its engine entry and the search's replicas ask that minimum */
            fits = placed >= ctl__elastic_min(b);
        } else if (b->split_pods || b->ncomp > 1) {
            fits = placed == target; /* every group, as split_shares and place() need */
        } else {
            struct ctl_tree_share ts[256];
            fits = ctl__tree_shares(&b->tree, r.cluster, m, b->comp[0].replicas, ts) > 0;
        }
    }
    disp_composite_result_close(&r);
    return fits;
}

/* ---- a JobSet admitted at fewer Jobs than it has (issue 20; docs/composite.md, "A JobSet at
 * fewer Jobs") */

/* The children of every group of t, counted into kids[0..t->n). */
static void count_kids(const struct karmada_group_tree *t, uint32_t *kids)
{
    memset(kids, 0, (size_t)t->n * sizeof(*kids));
    for (uint32_t g = 1; g < t->n; g++)
        if (t->g[g].parent >= 0 && (uint32_t)t->g[g].parent < g)
            kids[t->g[g].parent]++;
}

int ctl__jobset_min(const struct binding *b)
{
    const struct karmada_group_tree *t = &b->tree;
    if (b->kind != KARMADA_WORKLOAD_KIND_JOBSET || !b->assign || t->n < 2 ||
        t->n > KARMADA_GROUPS_MAX || t->g[0].source != KARMADA_GROUP_SOURCE_WORKLOAD)
        return 0;
    uint32_t kids[KARMADA_GROUPS_MAX];
    count_kids(t, kids);
    for (uint32_t g = 0; g < t->n; g++)
        if (t->g[g].pods == 0 && kids[g] > 0 && t->g[g].min_count < kids[g])
            return 1;
    return 0;
}

uint32_t ctl__jobset_jobs(const struct binding *b, uint32_t *held)
{
    uint32_t all = 0, h = 0;
    for (uint32_t g = 1; g < b->tree.n; g++)
        all += b->tree.g[g].pods > 0;
    uint32_t nsets = ctl__split_nsets(b);
    for (uint32_t i = 0; i < b->nshares; i++)
        for (uint32_t j = 0; j < nsets && j < CTL_SPLIT_SETS_MAX; j++)
            h += b->shares[i].groups[j];
    if (held)
        *held = h;
    return all;
}

int ctl__jobset_partial(const struct binding *b)
{
    uint32_t held;
    uint32_t all = ctl__jobset_jobs(b, &held);
    return b->split_pods && ctl__jobset_min(b) && held > 0 && held < all;
}

int ctl__jobset_min_sentence(const struct binding *b, char *buf, size_t cap)
{
    uint32_t held;
    uint32_t all = ctl__jobset_jobs(b, &held);
    if (!cap || !ctl__jobset_partial(b))
        return 0;
    char need[160] = "";
    uint32_t kids[KARMADA_GROUPS_MAX];
    count_kids(&b->tree, kids);
    size_t l = 0;
    for (uint32_t g = 0; g < b->tree.n && l < sizeof need; g++) {
        const struct karmada_group *x = &b->tree.g[g];
        if (x->pods || !kids[g] || x->min_count >= kids[g])
            continue;
        l += (size_t)snprintf(need + l, sizeof need - l,
                              "%scomposite %s needs %" PRIu32 " of %" PRIu32, l ? ", " : "",
                              x->name, x->min_count, kids[g]);
    }
    uint32_t out = all - held;
    snprintf(buf, cap,
             "admitted at %" PRIu32 " of its %" PRIu32 " Jobs (%s): the whole does not fit; a "
             "JobSet's replicatedJobs cannot grow in place, so the other %" PRIu32 " %s not run",
             held, all, need, out, out == 1 ? "does" : "do");
    return 1;
}

int ctl__jobset_request(const struct binding *b, struct queue_resvec *out)
{
    queue_resvec_clear(out);
    int rc = queue_resvec_copy(out, &b->gang);
    uint32_t nsets = ctl__split_nsets(b);
    if (rc || !b->split_pods || b->kind != KARMADA_WORKLOAD_KIND_JOBSET || nsets != b->ncomp)
        return rc ? rc : MUSTER_EINVAL;
    /* the gang less what the Jobs left out would ask, resource by resource of the gang (its
     * request names only what the queues count) */
    for (uint32_t j = 0; j < nsets && j < CTL_SPLIT_SETS_MAX; j++) {
        int64_t held = 0;
        for (uint32_t i = 0; i < b->nshares; i++)
            held += ctl__share_comp_pods(b, &b->shares[i], j);
        int64_t left = (int64_t)b->comp[j].replicas - held;
        if (left < 0)
            return MUSTER_EINVAL;
        for (uint32_t k = 0; left && k < b->gang.len; k++) {
            uint32_t id = b->gang.items[k].id;
            int64_t v = queue_resvec_get(out, id) - left * queue_resvec_get(&b->comp[j].req, id);
            rc = queue_resvec_set(out, id, v > 0 ? v : 0);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The fewest-pods children that meet group g's min_count, marked in keep (recursively). */
static int64_t mark_min(const struct karmada_group_tree *t, uint32_t g, uint8_t *keep, int mark)
{
    if (t->g[g].pods) {
        if (mark)
            keep[g] = 1;
        return t->g[g].pods;
    }
    struct {
        int64_t pods;
        uint32_t at;
    } kids[KARMADA_GROUPS_MAX];
    uint32_t nk = 0;
    for (uint32_t i = g + 1; i < t->n && nk < KARMADA_GROUPS_MAX; i++)
        if (t->g[i].parent == (int32_t)g) {
            kids[nk].pods = mark_min(t, i, keep, 0);
            kids[nk++].at = i;
        }
    /* the stable order of the fewest pods first, as ctl__tree_min_pods sorts them */
    for (uint32_t i = 1; i < nk; i++)
        for (uint32_t j = i; j > 0 && kids[j - 1].pods > kids[j].pods; j--) {
            __typeof__(kids[0]) x = kids[j];
            kids[j] = kids[j - 1];
            kids[j - 1] = x;
        }
    uint32_t need = t->g[g].min_count ? t->g[g].min_count : 1;
    if (need > nk)
        need = nk;
    int64_t sum = 0;
    for (uint32_t i = 0; i < need; i++)
        sum += mark ? mark_min(t, kids[i].at, keep, 1) : kids[i].pods;
    return sum;
}

void ctl__jobset_min_keep(const struct karmada_group_tree *t, uint8_t *keep)
{
    if (t->n == 0 || t->n > KARMADA_GROUPS_MAX)
        return;
    memset(keep, 0, t->n);
    mark_min(t, 0, keep, 1);
}

int ctl__jobset_leaves_request(const struct binding *b, const uint8_t *keep,
                               struct queue_resvec *out)
{
    const struct karmada_group_tree *t = &b->tree;
    uint8_t mk[KARMADA_GROUPS_MAX];
    queue_resvec_clear(out);
    if (t->n == 0 || t->n > KARMADA_GROUPS_MAX)
        return 0;
    if (!keep) {
        ctl__jobset_min_keep(t, mk);
        keep = mk;
    }
    for (uint32_t k = 0; k < b->gang.len; k++) {
        uint32_t id = b->gang.items[k].id;
        int64_t v = 0;
        for (uint32_t g = 0; g < t->n; g++)
            if (keep[g] && t->g[g].pods)
                v += (int64_t)t->g[g].pods * queue_resvec_get(&t->g[g].pod, id);
        int rc = queue_resvec_set(out, id, v);
        if (rc)
            return rc;
    }
    return 0;
}

int ctl__jobset_step_down(const struct karmada_group_tree *t, uint8_t *keep)
{
    uint32_t kids[KARMADA_GROUPS_MAX];
    if (t->n < 2 || t->n > KARMADA_GROUPS_MAX)
        return 0;
    /* the marked children of every group (a group is marked when one of its leaves is) */
    memset(kids, 0, (size_t)t->n * sizeof(*kids));
    for (uint32_t g = t->n; g-- > 1;)
        if (keep[g] && t->g[g].parent >= 0)
            kids[t->g[g].parent]++;
    for (uint32_t g = t->n; g-- > 1;) {
        if (!keep[g] || !t->g[g].pods)
            continue;
        /* up from the leaf: each level loses one child while it loses its last one */
        int ok = 1;
        for (int32_t p = t->g[g].parent; ok && p >= 0; p = t->g[p].parent) {
            uint32_t need = t->g[p].min_count ? t->g[p].min_count : 1;
            if (kids[p] - 1 >= need)
                break; /* this level keeps enough: the ones above keep this child */
            if (kids[p] - 1 > 0 || p == 0)
                ok = 0; /* below its need, or the root emptied */
        }
        if (!ok)
            continue;
        keep[g] = 0;
        for (int32_t p = t->g[g].parent; p >= 0; p = t->g[p].parent) {
            kids[p]--;
            if (kids[p] > 0)
                break;
            keep[p] = 0; /* emptied: no longer a child of its own parent */
        }
        return 1;
    }
    return 0;
}

uint32_t ctl__jobset_view(const struct karmada_group_tree *t, const uint8_t *keep,
                          struct karmada_group *buf, uint32_t cap)
{
    int32_t at[KARMADA_GROUPS_MAX];
    uint8_t live[KARMADA_GROUPS_MAX];
    uint32_t n = 0, leaves = 0;
    if (t->n == 0 || t->n > KARMADA_GROUPS_MAX || cap < t->n)
        return 0;
    /* a group lives while a leaf under it is kept (children after their parents) */
    memset(live, 0, t->n);
    for (uint32_t g = t->n; g-- > 0;) {
        if (t->g[g].pods && keep[g])
            live[g] = 1;
        if (live[g] && t->g[g].parent >= 0)
            live[t->g[g].parent] = 1;
    }
    for (uint32_t g = 0; g < t->n; g++) {
        at[g] = -1;
        if (!live[g])
            continue;
        buf[n] = t->g[g];
        buf[n].parent = t->g[g].parent >= 0 ? at[t->g[g].parent] : -1;
        leaves += t->g[g].pods > 0;
        at[g] = (int32_t)n++;
    }
    /* an inner group needs no more children than it kept */
    for (uint32_t g = 0; g < n; g++) {
        if (buf[g].pods)
            continue;
        uint32_t k = 0;
        for (uint32_t i = g + 1; i < n; i++)
            k += buf[i].parent == (int32_t)g;
        if (buf[g].min_count > k)
            buf[g].min_count = k;
    }
    return leaves ? n : 0;
}
