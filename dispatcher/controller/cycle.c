/* The dispatch cycle: the engine offers gangs in fair order, placement finds clusters for the
 * whole gang, and an admitted gang is reserved and written to the ledger. */
#include "dispatcher/controller/ctl_int.h"

/* What placing a gang found. */
enum place_verdict {
    PLACE_FITS,   /* b->shares hold a placement of the whole gang */
    PLACE_NO_FIT, /* no placement exists now: b's reason says why (NoClusterFit) */
    PLACE_FAILED, /* out of memory: tried again next cycle */
};

int ctl__cluster_allows(struct ctl *c, struct binding *b, const struct cluster *k)
{
    (void)ctl__rb(c, b); /* the constraints point into it: thawed when b let it go (cool.c) */
    ctl__placement_terms(c, b);
    return karmada_workload_allows_cluster(&c->aw, k->obj);
}

int ctl__shares_reserve(struct binding *b, uint32_t n)
{
    if (n > b->nshares || !b->shares) {
        struct share *s = muster_realloc(b->shares, (n ? n : 1) * sizeof(*s));
        if (!s)
            return MUSTER_ENOMEM;
        b->shares = s;
    }
    memset(b->shares, 0, (n ? n : 1) * sizeof(*b->shares));
    b->nshares = n;
    return 0;
}

/* The replicas of every component fit in k together (a Volcano Job goes whole to one
 * cluster). Works on a deep copy, so k is unchanged. Returns the room left for the first
 * component's shape afterwards (the best fit is the least), or -1 when it does not fit. */
int64_t ctl__fits_all_components(const struct binding *b, const struct disp_cluster_cap *k)
{
    struct disp_cluster_cap t = {.name = k->name, .ngrades = k->ngrades};
    struct disp_grade g[64];
    int64_t left = -1;
    int ok = k->ngrades <= 64 && !queue_resvec_copy(&t.free, &k->free);
    memset(g, 0, sizeof g);
    for (uint32_t i = 0; ok && i < k->ngrades; i++) {
        g[i].nodes = k->grades[i].nodes;
        ok = !queue_resvec_copy(&g[i].min, &k->grades[i].min);
    }
    t.grades = g;
    ok = ok && !disp_cluster_cap_copy_parts(&t, k);
    for (uint32_t j = 0; ok && j < b->ncomp; j++)
        ok = !disp_cluster_reserve(&t, &b->comp[j].req, (uint64_t)b->comp[j].replicas);
    if (ok) {
        uint64_t f = b->ncomp ? disp_cluster_fits(&t, &b->comp[0].req) : 0;
        left = f > INT64_MAX ? INT64_MAX : (int64_t)f;
    }
    queue_resvec_close(&t.free);
    disp_cluster_cap_close_parts(&t);
    for (uint32_t i = 0; i < k->ngrades && i < 64; i++)
        queue_resvec_close(&g[i].min);
    return left;
}

/* disp_cluster_fits on k's cap, remembered for the last replica shape asked until cap
 * changes: gangs of one shape are placed many times between two changes of a cluster. */
static uint64_t cluster_fits(struct cluster *k, const struct queue_resvec *replica)
{
    if (k->fit_ver == k->cap_ver && k->fit_ver && queue_resvec_cmp(&k->fit_shape, replica) == 0)
        return k->fit_val;
    uint64_t f = disp_cluster_fits(&k->cap, replica);
    if (!queue_resvec_copy(&k->fit_shape, replica)) {
        k->fit_val = f;
        k->fit_ver = k->cap_ver;
    } else {
        k->fit_ver = 0;
    }
    return f;
}

/* The member APIs b's placement asks for, in assign mode (Karmada's scheduler, which checks
 * the template's own kind with its APIEnablement plugin, is bypassed there): 1 a gang dialect
 * (a member-side gang: not for a gang of min-member 1, which a member of dialect none may
 * take), 2 Volcano Jobs (its Work is the Job), 4 Volcano's network topology (a required member
 * topology: hard only where the member's Volcano knows its racks, gang_nettopo.h), 8 its tier
 * names (a required member topology that names its tier: Volcano v1.14 or later). */
static int place_needs(const struct binding *b)
{
    return !b->assign ? 0
                      : (b->needs_objects && b->min_member > 1 ? 1 : 0) |
                            (b->kind == KARMADA_WORKLOAD_KIND_VCJOB ? 2 : 0) |
                            (ctl__mtopo_required(b) ? 4 : 0) |
                            (ctl__mtopo_names_required(b) ? 8 : 0) |
                            (int)(KARMADA_WORKLOAD_KIND_API_BIT(b->kind) << 8);
}

/* b's allowed clusters, as words. */
static void allow_words(const struct binding *b, uint64_t w[CTL_ALLOW_WORDS])
{
    w[0] = b->allow0;
    for (int k = 1; k < CTL_ALLOW_WORDS; k++)
        w[k] = b->allow_hi ? b->allow_hi[k - 1] : 0;
}

static int allow_same(const uint64_t w[CTL_ALLOW_WORDS], const struct binding *b)
{
    uint64_t bw[CTL_ALLOW_WORDS];
    allow_words(b, bw);
    return memcmp(w, bw, sizeof bw) == 0;
}

/* b is a one-component gang that asks what the last NoClusterFit verdict's gang asked, of
 * the same clusters, and no cap has changed since: it does not fit either. */
static int nofit_same(const struct ctl *c, const struct binding *b, uint32_t nallow)
{
    return c->nl.valid && c->nl.cap_changes == c->fleet.cap_changes &&
           c->nl.epoch == c->fleet.epoch && c->nl.spread == b->spread &&
           c->nl.needs == place_needs(b) && c->nl.comp_replicas == b->comp[0].replicas &&
           c->nl.replicas == b->replicas && c->nl.ncl == nallow &&
           allow_same(c->nl.allow, b) &&
           queue_resvec_cmp(&c->nl.req, &b->comp[0].req) == 0;
}

/* b->allow again if the cluster set or b's constraints changed since it was computed. */
static void allow_refresh(struct ctl *c, struct binding *b)
{
    if (b->allow_epoch == c->fleet.epoch)
        return;
    uint64_t w[CTL_ALLOW_WORDS] = {0}, hi = 0;
    for (uint32_t j = 0; j < c->fleet.ncl && j < CTL_ALLOW_MAX; j++)
        if (ctl__cluster_allows(c, b, &c->fleet.cl[j]))
            w[j >> 6] |= UINT64_C(1) << (j & 63);
    for (int k = 1; k < CTL_ALLOW_WORDS; k++)
        hi |= w[k];
    b->allow0 = w[0];
    if (hi && !b->allow_hi &&
        !(b->allow_hi = muster_malloc((CTL_ALLOW_WORDS - 1) * sizeof *b->allow_hi))) {
        ctl__fatal(c, "out of memory");
        return;
    }
    if (hi) {
        memcpy(b->allow_hi, w + 1, (CTL_ALLOW_WORDS - 1) * sizeof *b->allow_hi);
    } else {
        muster_free(b->allow_hi);
        b->allow_hi = NULL;
    }
    b->allow_epoch = c->fleet.epoch;
}

/* Cluster i of the fleet is one place() would consider for b (reclaim's dry run asks the same
 * question): allowed by b's placement, serving the APIs it needs, not lost to it, Ready. */
int ctl__place_usable(struct ctl *c, struct binding *b, uint32_t i)
{
    if (i >= 256)
        return 0;
    allow_refresh(c, b);
    struct cluster *k = &c->fleet.cl[i];
    int needs = place_needs(b);
    if (!ctl__allowed(b, i) || ctl__cluster_lacks(k, needs))
        return 0;
    int evicting = kube_json_path(ctl__rb(c, b), "spec", "gracefulEvictionTasks", NULL) != NULL;
    if (k->ready && (k->noexec || evicting) && ctl__cluster_lost_to(c, b, k))
        return 0;
    return k->ready;
}

/* Finds where b's whole gang goes in this cycle's snapshot and fills b->shares; PLACE_FITS
 * when it fits, PLACE_NO_FIT with the NoClusterFit sentence set when it does not. */
static enum place_verdict place(struct ctl *c, struct binding *b)
{
    struct disp_cluster_cap caps[256];
    uint32_t idx[256], n = 0, notready = 0;
    uint8_t one_pod[256]; /* a member of no gang dialect: one pod of a spread gang at most */
    char nr[128] = "";
    ctl__act_set_tree_placed(c, b, 0);
    allow_refresh(c, b);
    uint32_t nallow = c->fleet.ncl < 256 ? c->fleet.ncl : 256;
    ctl__act_set_nofit_unproven(c, b, 0); /* set by a tree search that its budget stops */
    int needs_pg = b->needs_objects && b->assign;
    if (needs_pg && c->pre.hub_pg == 0) {
        /* Karmada's execution controller cannot map a PodGroup manifest: its Works would
         * never apply. Not guessed around: the gang waits, and says why. */
        ctl__set_reason(
            b, "Unschedulable",
            "the karmada-apiserver does not serve scheduling.volcano.sh/v1beta1 "
            "podgroups: install Volcano's PodGroup CRD on the hub (docs/operations.md)");
        return PLACE_NO_FIT;
    }
    if (b->ncomp == 1 && b->tree.n == 0 && nofit_same(c, b, nallow)) {
        ctl__set_reason(b, c->nl.reason, "%s", c->nl.msg);
        return PLACE_NO_FIT;
    }
    uint32_t nopg = 0;
    char np[128] = "";
    int needs = place_needs(b);
    /* a cluster lost to it (loss.c) is judged only where one can be: a NoExecute taint on the
     * cluster, or eviction tasks on the RB (read once here, not per cluster) */
    int evicting = kube_json_path(ctl__rb(c, b), "spec", "gracefulEvictionTasks", NULL) != NULL;
    for (uint32_t i = 0; i < c->fleet.ncl && n < 256; i++) {
        struct cluster *k = &c->fleet.cl[i];
        if (!ctl__allowed(b, i))
            continue;
        /* A member of no gang dialect may still take one pod of a spread gang: a share of one
         * needs no member-side gang (docs/gangobj.md, "Dialects"). */
        int one = (needs & 1) && b->spread && b->ncomp == 1 &&
                  ctl__cluster_lacks(k, needs) && !ctl__cluster_lacks(k, needs & ~1);
        if (ctl__cluster_lacks(k, needs) && !one) {
            if (nopg++ < 3)
                snprintf(np + strlen(np), sizeof np - strlen(np), "%s%s", nopg > 1 ? ", " : "",
                         k->name);
            continue;
        }
        if (k->ready && (k->noexec || evicting) && ctl__cluster_lost_to(c, b, k))
            continue; /* a NoExecute taint it no longer tolerates, or Karmada evicts it */
        if (!k->ready) {
            if (notready++ < 3)
                snprintf(nr + strlen(nr), sizeof nr - strlen(nr), "%s%s", notready > 1 ? ", " : "",
                         k->name);
            continue;
        }
        caps[n] = k->cap;
        one_pod[n] = (uint8_t)one;
        idx[n++] = i;
    }
    if (b->ncomp == 0) {
        ctl__set_reason(b, "Unschedulable", "the workload has no replicas to place");
        return PLACE_NO_FIT;
    }
    int tree_nofit = 0; /* the composite search's sentence is set: add what was left out */
    if (b->tree.n > 0) {
        /* issue 20: split only at group boundaries, topology constraints held. A member of no
         * gang dialect takes no group (a group needs its member-side gang). */
        struct disp_cluster_cap tc[256];
        uint32_t tidx[256], tn = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!one_pod[i]) {
                tc[tn] = caps[i];
                tidx[tn++] = idx[i];
            }
        int rc = tn ? ctl__place_tree(c, b, tc, tidx, tn) : 0;
        if (rc < 0)
            return PLACE_FAILED;
        if (rc)
            return PLACE_FITS;
        tree_nofit = tn > 0;
    } else if (b->ncomp == 1) {
        struct disp_share out[256];
        uint64_t fits[256];
        for (uint32_t i = 0; i < n; i++) {
            fits[i] = cluster_fits(&c->fleet.cl[idx[i]], &b->comp[0].req);
            if (one_pod[i] && fits[i] > 1)
                fits[i] = 1;
        }
        /* a group-size gang has a tree, placed above: here every replica is its own group */
        uint32_t got = n ? disp_place_fits(caps, fits, n, (uint64_t)b->comp[0].replicas,
                                           b->spread ? DISP_SPREAD : DISP_SINGLE_CLUSTER, out)
                         : 0;
        if (got) {
            if (ctl__shares_reserve(b, got))
                return PLACE_FAILED;
            for (uint32_t i = 0; i < got; i++) {
                snprintf(b->shares[i].cluster, sizeof b->shares[i].cluster, "%s",
                         c->fleet.cl[idx[out[i].cluster]].name);
                b->shares[i].replicas = (int32_t)out[i].replicas;
            }
            return PLACE_FITS;
        }
    } else {
        int64_t best = -1;
        uint32_t at = 0;
        for (uint32_t i = 0; i < n; i++) {
            int64_t left = ctl__fits_all_components(b, &caps[i]);
            if (left >= 0 && (best < 0 || left < best)) {
                best = left;
                at = i;
            }
        }
        if (best >= 0) {
            if (ctl__shares_reserve(b, 1))
                return PLACE_FAILED;
            snprintf(b->shares[0].cluster, sizeof b->shares[0].cluster, "%s",
                     c->fleet.cl[idx[at]].name);
            b->shares[0].replicas = b->replicas;
            return PLACE_FITS;
        }
    }
    /* Why not: what each allowed Ready cluster holds of the (first) replica shape. */
    char req[160] = "", holds[320] = "";
    json_object *rj = kube_resvec_json(c->names, &b->comp[0].req);
    if (rj)
        json_object_object_del(rj, "pods"); /* implied: one per replica */
    snprintf(req, sizeof req, "%s",
             rj ? json_object_to_json_string_ext(rj, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE)
                : "?");
    json_object_put(rj);
    for (uint32_t i = 0; i < n && i < 4; i++) {
        uint64_t f = cluster_fits(&c->fleet.cl[idx[i]], &b->comp[0].req);
        size_t l = strlen(holds);
        if (one_pod[i] && f > 1)
            f = 1;
        snprintf(holds + l, sizeof holds - l, "%s%s holds %" PRIu64 "%s", i ? ", " : "",
                 caps[i].name, f, one_pod[i] ? " (no gang dialect: one pod)" : "");
    }
    /* The members left out for lack of the API, named in every verdict: the gang may fit
     * only there (docs/operations.md, "Hub prerequisites"). */
    char kapi[96];
    const char *gv = NULL, *res = NULL;
    if ((needs >> 8) && karmada_workload_kind_api(b->kind, &gv, &res) == 0)
        snprintf(kapi, sizeof kapi, "%ss (no %s %s", karmada_workload_kind_name(b->kind), gv, res);
    const char *api = (needs >> 8) && gv ? kapi
                      : (needs & 2)      ? "Volcano Jobs (no batch.volcano.sh/v1alpha1 jobs"
                      : (needs & 8)      ? "Volcano network topology tier names for its "
                                           "required member topology by tier name (Volcano "
                                           "v1.14 or later: the Cluster label "
                                           "scheduling.muster.io/volcano-tier-names: \"true\", "
                                           "or shard.volcano.sh/v1alpha1 nodeshards"
                      : (needs & 4)      ? "Volcano network topology for its required member "
                                           "topology (Volcano's dialect, with "
                                           "topology.volcano.sh/v1alpha1 hypernodes"
                                         : NULL;
    /* a member of dialect none: no gang object it understands (docs/gangobj.md, "Dialects") */
    static const char nodialect[] =
        "speaking no gang dialect (no scheduling.volcano.sh/v1beta1, scheduling.x-k8s.io/v1alpha1 "
        "or scheduling.k8s.io podgroups in status.apiEnablements or on the hub, or gangDialect "
        "none)";
    char lack[384] = "";
    if (nopg && !api)
        snprintf(lack, sizeof lack, "; %s: %s", nodialect, np);
    else if (nopg)
        snprintf(lack, sizeof lack, "; not serving %s in status.apiEnablements): %s", api, np);
    if (tree_nofit) {
        char tm[KARMADA_WORKLOAD_MSG_MAX];
        snprintf(tm, sizeof tm, "%s", ctl__binding_msg(b));
        char reason[16];
        snprintf(reason, sizeof reason, "%s", ctl__binding_reason(b));
        ctl__set_reason(b, reason, "%s%s%s%s", tm, notready ? "; not Ready: " : "", nr, lack);
    } else if (n == 0 && nopg && !api)
        ctl__set_reason(b, "NoClusterFit",
                        "the gang needs a member-side gang of %" PRId32
                        " pods and no allowed Ready cluster can hold one, %s: %s%s%s",
                        b->min_member, nodialect, np, notready ? "; not Ready: " : "", nr);
    else if (n == 0 && nopg)
        ctl__set_reason(b, "NoClusterFit",
                        "no allowed Ready cluster serves %s in status.apiEnablements: %s)%s%s%s",
                        api, np, notready ? "; not Ready: " : "", nr, "");
    else if (n == 0)
        ctl__set_reason(b, "NoClusterFit", "no Ready cluster is allowed by its placement%s%s%s",
                        notready ? " (not Ready: " : "", nr, notready ? ")" : "");
    else
        ctl__set_reason(b, "NoClusterFit",
                        "%s: no %s holds %" PRId32 " replicas of %s node by node "
                        "(%s%s%s%s)",
                        b->ncomp > 1 ? karmada_workload_kind_name(b->kind) : "gang",
                        b->spread ? "set of allowed Ready clusters"
                                  : "single allowed Ready cluster",
                        b->replicas, req, holds, notready ? "; not Ready: " : "", nr, lack);
    if (b->ncomp == 1 && b->tree.n == 0 && !queue_resvec_copy(&c->nl.req, &b->comp[0].req)) {
        c->nl.valid = 1;
        c->nl.cap_changes = c->fleet.cap_changes;
        c->nl.epoch = c->fleet.epoch;
        c->nl.comp_replicas = b->comp[0].replicas;
        c->nl.replicas = b->replicas;
        c->nl.spread = b->spread;
        c->nl.needs = needs;
        c->nl.ncl = nallow;
        allow_words(b, c->nl.allow);
        snprintf(c->nl.reason, sizeof c->nl.reason, "%s", ctl__binding_reason(b));
        /* b->msg is sized to fit */
        snprintf(c->nl.msg, sizeof c->nl.msg, "%s", ctl__binding_msg(b));
    }
    return PLACE_NO_FIT;
}

static void reserve_shares(struct ctl *c, const struct binding *b)
{
    for (uint32_t i = 0; i < b->nshares; i++) {
        struct cluster *k = ctl__cluster_find(c, b->shares[i].cluster);
        if (k)
            ctl__cap_take(c, k, b, &b->shares[i]);
    }
}

/* The clusters the hub lists in the RB's spec.clusters, beside muster's shares: an undo
 * deletes Works in both. */
int ctl__rb_lists_cluster(json_object *rb, const char *cluster)
{
    json_object *cl = kube_json_path(rb, "spec", "clusters", NULL);
    for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
        const char *n = kube_json_str(json_object_array_get_idx(cl, i), "name");
        if (n && strcmp(n, cluster) == 0)
            return 1;
    }
    return 0;
}

size_t ctl__rb_nclusters(json_object *rb)
{
    json_object *cl = kube_json_path(rb, "spec", "clusters", NULL);
    return cl && json_object_is_type(cl, json_type_array) ? json_object_array_length(cl) : 0;
}

int ctl__rb_dispatching(json_object *rb)
{
    return kube_json_bool(kube_json_path(rb, "spec", "suspension", NULL), "dispatching");
}

/* The user keeps the dispatching of a dispatched gang suspended (muster's own barrier is lifted
 * by then): spec.suspension.dispatching, or dispatchingOnClusters naming one of its clusters.
 * Its shares cannot start, and that is no failure: the gang timeout waits. */
int ctl__user_holds_dispatching(struct ctl *c, const struct binding *b)
{
    json_object *susp = kube_json_path(ctl__rb_of(c, b), "spec", "suspension", NULL);
    if (!susp)
        return 0;
    if (kube_json_bool(susp, "dispatching") == 1)
        return 1;
    json_object *names =
        kube_json_get(kube_json_get(susp, "dispatchingOnClusters"), "clusterNames");
    for (size_t i = 0; names && i < json_object_array_length(names); i++) {
        const char *n = json_object_get_string(json_object_array_get_idx(names, i));
        for (uint32_t j = 0; n && j < b->nshares; j++)
            if (strcmp(n, b->shares[j].cluster) == 0)
                return 1;
    }
    return 0;
}

static int nofit_holds(const struct ctl *c, struct binding *b);

/* The request of b (one component) at `size` replicas, as its queues count it. */
static int request_at(struct ctl *c, const struct binding *b, int32_t size,
                      struct queue_resvec *out)
{
    uint32_t pods;
    int32_t dr;
    struct queue_resvec delta = {0};
    if (size == b->replicas)
        return queue_resvec_copy(out, &b->gang);
    int rc = queue_resnames_intern(c->names, "pods", 4, &pods);
    if (!rc)
        rc = ctl__elastic_split(b->comp, b->ncomp, size, &b->gang, pods, out, &delta, &dr);
    queue_resvec_close(&delta);
    return rc;
}

struct tree_quota {
    struct ctl *c;
    const struct binding *b;
    struct queue_entry *e;
};

/* The queues of e's path take b at size replicas now. */
static int tree_quota_takes(void *ud, int32_t size)
{
    struct tree_quota *q = ud;
    struct queue_resvec at = {0};
    int ok = !request_at(q->c, q->b, size, &at) &&
             queue_tree_can_admit(q->c->t, queue_entry_queue(q->e), &at, NULL);
    queue_resvec_close(&at);
    return ok;
}

/* A gang with a group minimum (issue 20, docs/composite.md "Admitted at its minimum") offered
 * by the engine (its entry holds the minimum): the search places what fits of the whole tree,
 * and the gang is admitted at the most whole groups of that the queues take, whole when all,
 * never below the minimum. PLACE_FITS with e admitted (counted at that size) and b->shares set
 * (*partial: b held there, the rest in b->grow); otherwise as elastic_offer. */
static enum place_verdict tree_offer(struct ctl *c, struct binding *b, struct queue_entry *e,
                                     int *partial, int *refused)
{
    *partial = *refused = 0;
    if (nofit_holds(c, b))
        return PLACE_NO_FIT;
    int32_t whole = b->replicas, min = ctl__elastic_min(b), unit = ctl__elastic_unit(b);
    enum place_verdict v = place(c, b); /* the whole tree: its reason names the failing level */
    if (v == PLACE_FAILED)
        return v;
    struct tree_quota q = {c, b, e};
    int32_t at = ctl__tree_admit_size(
        whole, min, unit, v == PLACE_FITS ? whole : ctl__act(b)->tree_placed, tree_quota_takes, &q);
    if (!at)
        return PLACE_NO_FIT;
    if (at < whole) {
        b->replicas = b->comp[0].replicas = at; /* placed as the tree of its first groups */
        v = place(c, b);
        b->replicas = b->comp[0].replicas = whole;
        if (v != PLACE_FITS)
            return v;
    }
    struct queue_resvec req = {0};
    struct queue_limit why;
    struct queue_error qe;
    if (request_at(c, b, at, &req)) {
        queue_resvec_close(&req);
        return PLACE_FAILED;
    }
    /* the entry holds the minimum: admitted at that, then counted at what it takes */
    if (queue_entry_admit(c->t, e, &why) || (at > min && queue_entry_resize(c->t, e, &req, &qe))) {
        if (queue_entry_state(e) == QUEUE_ENTRY_ADMITTED)
            queue_entry_requeue(c->t, e);
        queue_resvec_close(&req);
        *refused = 1;
        return PLACE_NO_FIT;
    }
    queue_resvec_close(&req);
    if (at < whole && ctl__elastic_hold_at(c, b, at)) {
        queue_entry_requeue(c->t, e);
        return PLACE_FAILED;
    }
    *partial = at < whole;
    return PLACE_FITS;
}

/* A JobSet at fewer Jobs refused by its queues at every size placed, said as an ordinary gang
 * refused by its queue is (loop.c ctl__pending_reason, which finds nothing to say here: the
 * engine offers the entry, its minimum passes): the queues' last refusal (lim, or msg when the
 * entry itself could not be admitted or counted), at `jobs` of its Jobs, the fewest tried. */
static void jobset_refused(struct ctl *c, struct binding *b, const struct queue_limit *lim,
                           const char *msg, uint32_t jobs)
{
    char m[KARMADA_WORKLOAD_MSG_MAX] = "";
    if (!lim)
        snprintf(m, sizeof m, "%s", msg);
    else if (queue_limit_explain(c->t, lim, m, sizeof m) < 0 && !m[0])
        snprintf(m, sizeof m, "does not fit its queue");
    ctl__set_reason(b, strncmp(m, "fleet: ", 7) == 0 ? "NoClusterFit" : "QuotaExceeded",
                    "%s (at %" PRIu32 " of its %" PRIu32
                    " Jobs, the fewest it steps down to while every level keeps its minimum)",
                    m, jobs, ctl__jobset_jobs(b, NULL));
}

/* The Jobs marked in keep (b's tree). */
static uint32_t jobs_kept(const struct binding *b, const uint8_t *keep)
{
    uint32_t n = 0;
    for (uint32_t g = 1; g < b->tree.n; g++)
        n += keep[g] && b->tree.g[g].pods > 0;
    return n;
}

/* One size of a JobSet at fewer Jobs (jobset_offer): the Jobs keep[] marks, asked of its
 * queues, then placed through a view of its tree (buf: room for it). 1 when placed and taken
 * (b->shares hold them, req their request); 0 when not, lim and *lim_jobs saying where the
 * queues last refused; -1 when no view could be made; *rc MUSTER_ENOMEM on failure. */
static int jobset_try(struct ctl *c, struct binding *b, struct queue_entry *e, const uint8_t *keep,
                      struct karmada_group *buf, struct queue_resvec *req, struct queue_limit *lim,
                      uint32_t *lim_jobs, int *rc)
{
    struct queue_limit l; /* lim is left as it was unless the queues refuse */
    *rc = ctl__jobset_leaves_request(b, keep, req);
    if (*rc)
        return 0;
    if (!queue_tree_can_admit(c->t, queue_entry_queue(e), req, &l)) {
        *lim = l;
        *lim_jobs = jobs_kept(b, keep);
        return 0;
    }
    struct karmada_group_tree view = {buf, ctl__jobset_view(&b->tree, keep, buf, b->tree.n)};
    if (!view.n)
        return -1;
    c->tree_view = &view;
    enum place_verdict v = place(c, b);
    c->tree_view = NULL;
    if (v == PLACE_FAILED)
        *rc = MUSTER_ENOMEM;
    if (v != PLACE_FITS || ctl__jobset_request(b, req))
        return 0;
    if (queue_tree_can_admit(c->t, queue_entry_queue(e), req, &l))
        return 1;
    *lim = l;
    ctl__jobset_jobs(b, lim_jobs);
    return 0;
}

/* A JobSet at fewer Jobs (issue 20, docs/composite.md "A JobSet at fewer Jobs") offered by the
 * engine (its entry holds its minimum): the search places the most Jobs it can (all when the
 * whole fits); when its queues do not take them, Jobs are given up one at a time, the last in
 * tree order whose level keeps its min_count, and the rest placed again, until the queues take
 * them; the minimum its entry holds is the last size tried. PLACE_FITS with e admitted, counted at what b's shares run; otherwise *refused when the
 * queues refused every size that was placed (the reason names their last limit, QuotaExceeded),
 * else the placement's verdict. */
static enum place_verdict jobset_offer(struct ctl *c, struct binding *b, struct queue_entry *e,
                                       int *refused)
{
    *refused = 0;
    if (nofit_holds(c, b))
        return PLACE_NO_FIT;
    enum place_verdict v = place(c, b);
    if (v != PLACE_FITS)
        return v;
    struct queue_resvec req = {0};
    struct karmada_group *buf = NULL;
    uint8_t keep[KARMADA_GROUPS_MAX];
    struct queue_limit lim; /* the queues' last refusal, at lim_jobs Jobs */
    uint32_t lim_jobs = 0;
    int rc = ctl__jobset_request(b, &req);
    int takes = !rc && queue_tree_can_admit(c->t, queue_entry_queue(e), &req, &lim);
    if (!rc && !takes)
        ctl__jobset_jobs(b, &lim_jobs);
    if (!rc && !takes && b->tree.n <= KARMADA_GROUPS_MAX) {
        /* the Jobs placed, as the shares hold them per replicated job: the first of each
         * replicated job's run, in tree order (which Jobs does not matter, only how many) */
        uint32_t left[CTL_SPLIT_SETS_MAX] = {0}, nsets = ctl__split_nsets(b);
        for (uint32_t i = 0; i < b->nshares; i++)
            for (uint32_t j = 0; j < nsets && j < CTL_SPLIT_SETS_MAX; j++)
                left[j] += b->shares[i].groups[j];
        memset(keep, 0, b->tree.n);
        /* the runs of leaves are the replicated jobs with pods, in template order */
        uint32_t set = 0;
        while (set < b->ncomp && b->comp[set].replicas <= 0)
            set++;
        for (uint32_t g = 1; g < b->tree.n; g++) {
            const struct karmada_group *l = &b->tree.g[g];
            size_t len = strlen(l->name);
            if (!l->pods)
                continue;
            if (len >= 2 && strcmp(l->name + len - 2, "-0") == 0 && g > 1 && b->tree.g[g - 1].pods)
                do /* a replicated job's first Job after another's run */
                    set++;
                while (set < b->ncomp && b->comp[set].replicas <= 0);
            if (set < CTL_SPLIT_SETS_MAX && left[set]) {
                keep[g] = 1;
                left[set]--;
            }
        }
        for (uint32_t g = b->tree.n; g-- > 1;)
            if (keep[g])
                for (int32_t p = b->tree.g[g].parent; p >= 0; p = b->tree.g[p].parent)
                    keep[p] = 1;
        buf = muster_malloc((size_t)b->tree.n * sizeof(*buf));
        rc = buf ? 0 : MUSTER_ENOMEM;
        int t = 0;
        while (!rc && !takes && t >= 0 && ctl__jobset_step_down(&b->tree, keep)) {
            t = jobset_try(c, b, e, keep, buf, &req, &lim, &lim_jobs, &rc);
            takes = t > 0;
        }
        /* The step-down gives Jobs up last in tree order first, so it can stop above the
         * minimum its engine entry holds (each level's children of the fewest pods), which
         * the queues took when they let the engine offer it: that minimum is the last size
         * tried. */
        if (!rc && !takes) {
            ctl__jobset_min_keep(&b->tree, keep);
            takes = jobset_try(c, b, e, keep, buf, &req, &lim, &lim_jobs, &rc) > 0;
        }
    }
    muster_free(buf);
    struct queue_limit why;
    struct queue_error qe;
    const char *msg = NULL; /* the entry not admitted or not counted: the engine's sentence */
    if (!rc && takes) {
        ctl__jobset_jobs(b, &lim_jobs);
        if (queue_entry_admit(c->t, e, &why)) {
            lim = why;
            takes = 0;
        } else if (queue_entry_resize(c->t, e, &req, &qe)) {
            msg = qe.msg;
            takes = 0;
        }
        if (!takes && queue_entry_state(e) == QUEUE_ENTRY_ADMITTED)
            queue_entry_requeue(c->t, e);
    }
    queue_resvec_close(&req);
    if (rc)
        return PLACE_FAILED;
    if (!takes) {
        b->nshares = 0;
        *refused = 1;
        jobset_refused(c, b, msg ? NULL : &lim, msg, lim_jobs);
        return PLACE_NO_FIT;
    }
    return PLACE_FITS;
}

/* An elastic gang offered by the engine (its entry holds its minimum, so the queues take at
 * least that): whole first, as the user asked, then at min-member. PLACE_FITS with e admitted
 * and b->shares set (*partial: at its minimum, b held there and the rest in b->grow);
 * otherwise *refused when the queues refused it (no placement verdict), else the placement's
 * verdict (its reason names the minimum: even that does not fit). */
static enum place_verdict elastic_offer(struct ctl *c, struct binding *b, struct queue_entry *e,
                                        int *partial, int *refused)
{
    if (ctl__tree_min(b))
        return tree_offer(c, b, e, partial, refused);
    *partial = *refused = 0;
    if (nofit_holds(c, b))
        return PLACE_NO_FIT; /* memoised only when not even its minimum was placed */
    int whole_quota = queue_tree_can_admit(c->t, queue_entry_queue(e), &b->gang, NULL);
    enum place_verdict whole = whole_quota ? place(c, b) : PLACE_NO_FIT;
    if (whole == PLACE_FAILED)
        return PLACE_FAILED;
    struct queue_limit why;
    struct queue_error qe;
    enum place_verdict min = PLACE_NO_FIT;
    if (whole != PLACE_FITS) {
        int32_t r = b->replicas;
        b->replicas = b->comp[0].replicas = b->min_member; /* placed at its minimum */
        min = place(c, b);
        b->replicas = b->comp[0].replicas = r;
        if (min == PLACE_FAILED)
            return PLACE_FAILED;
    }
    switch (ctl__elastic_judge(1, whole_quota, whole == PLACE_FITS, 1, min == PLACE_FITS)) {
    case ELASTIC_WHOLE:
        /* the whole fits every queue of the path: the entry admitted, then counted whole */
        if (queue_entry_admit(c->t, e, &why) || queue_entry_resize(c->t, e, &b->gang, &qe)) {
            if (queue_entry_state(e) == QUEUE_ENTRY_ADMITTED)
                queue_entry_requeue(c->t, e);
            *refused = 1;
            return PLACE_NO_FIT;
        }
        return PLACE_FITS;
    case ELASTIC_MIN:
        if (queue_entry_admit(c->t, e, &why)) {
            *refused = 1;
            return PLACE_NO_FIT;
        }
        if (ctl__elastic_hold_min(c, b)) {
            queue_entry_requeue(c->t, e);
            return PLACE_FAILED;
        }
        *partial = 1;
        return PLACE_FITS;
    case ELASTIC_WAIT:
        break;
    }
    return PLACE_NO_FIT;
}

/* A JobSet admitted at fewer Jobs than it has (ctl__jobset_partial): its row's request is what
 * its shares run (as its engine entry counts it since jobset_offer: counted again here, so the
 * row and the queues never differ) and its reason says why the rest never runs. 0, or
 * MUSTER_ENOMEM (fatal said). */
static int jobset_fewer(struct ctl *c, struct binding *b, struct lwrite *w)
{
    struct queue_resvec req = {0};
    int rc = ctl__jobset_request(b, &req);
    struct queue_entry *e = rc ? NULL : queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    struct queue_error qe;
    if (e && queue_entry_resize(c->t, e, &req, &qe))
        ctl__notice(c, "warning", "%s: queue %s could not count its Jobs admitted: %s", b->key,
                    b->queue, qe.msg);
    w->request = rc ? NULL : ctl__request_text(c, &req);
    queue_resvec_close(&req);
    if (!w->request) {
        ctl__fatal(c, "out of memory");
        return MUSTER_ENOMEM;
    }
    w->row.request = w->request;
    ctl__jobset_min_sentence(b, w->reason, sizeof w->reason);
    return 0;
}

static void admit(struct ctl *c, struct binding *b, int partial)
{
    int64_t now = now_ms(c);
    struct ctl_act *a = ctl__act_w(c, b); /* admitted: it has protocol state from now on */
    a->admitted_at = now;
    muster_free(a->loss); /* its waiting sentence named the loss; admitted, it is history */
    a->loss = NULL;
    if (a->rc_until) {
        /* it preempted: the room reclaimed for it is taken, others may search */
        if (c->opt.metrics) {
            int64_t decided = a->rc_until - ctl__reclaim_hold_ms(c);
            disp_metrics_reclaim_wait(c->opt.metrics, (double)(now - decided) / 1000.0);
        }
        c->rcl.busy_until = 0;
    }
    a->rc_until = 0;
    muster_free(a->rc_wait);
    a->rc_wait = NULL;
    b->nofit = 0;
    b->nofit_memo = 0;
    if (b->assign && b->needs_objects) {
        b->barrier = 1;
        b->user_dispatching = ctl__rb_dispatching(ctl__rb(c, b));
    } else {
        b->barrier = 0;
    }
    c->fleet.admitting = 1; /* reserve_shares took its shares out of the snapshot already */
    ctl__set_state(c, b, B_ADMITTED);
    c->fleet.admitting = 0;
    /* a JobSet at fewer Jobs (issue 20): its row and its queues hold what runs, from the
     * admission's own transaction (crash point elastic.ledger, as a partial admission's) */
    int jobs_fewer = !partial && ctl__jobset_partial(b);
    struct lwrite *w = ctl__lw_admitted(c, b, partial || jobs_fewer ? LW_ADMIT_MIN : LW_ADMIT, now);
    if (!w)
        return;
    snprintf(w->reason, sizeof w->reason, "admitted");
    w->row.reason = w->reason;
    if (jobs_fewer && jobset_fewer(c, b, w))
        return;
    ctl__pg_mirror(c, b, B_ADMITTED, "admitted", "admitted as one gang"); /* its pod group */
    if (partial) {
        /* The row holds the minimum and records the rest as its waiting delta, both before any
         * request: a restart resumes the minimum's dispatch and queues the rest after it. */
        w->request = ctl__request_text(c, &b->gang);
        w->grow = ctl__grow_record(c, b->grow);
        if (!w->request || !w->grow) {
            ctl__fatal(c, "out of memory");
            return;
        }
        w->row.request = w->request;
        int32_t unit = ctl__elastic_unit(b);
        if (ctl__tree_min(b))
            snprintf(w->reason, sizeof w->reason,
                     "admitted with %" PRId32 " of its %" PRId32 " groups of %" PRId32
                     " (its minimum is %" PRId32 "): the whole does not fit; %" PRId32
                     " more group%s (%" PRId32 " replicas) wait%s as a scale up",
                     b->replicas / unit, (b->replicas + b->grow->replicas) / unit, unit,
                     ctl__elastic_min(b) / unit, b->grow->replicas / unit,
                     b->grow->replicas == unit ? "" : "s", b->grow->replicas,
                     b->grow->replicas == unit ? "s" : "");
        else
            snprintf(w->reason, sizeof w->reason,
                     "admitted at its minimum, %" PRId32 " of %" PRId32
                     " replicas: the whole does not fit; %" PRId32 " more wait as a scale up",
                     b->replicas, b->replicas + b->grow->replicas, b->grow->replicas);
    }
    if (!partial && b->kind == KARMADA_WORKLOAD_KIND_VCJOB && b->assign && b->nshares == 1 &&
        ctl__act(b)->tree_placed > 0 && ctl__act(b)->tree_placed < b->replicas)
        snprintf(
            w->reason, sizeof w->reason,
            "admitted at its minimum on %.63s: %" PRId64 " of its %" PRId32
            " pods fit there (each task at its minAvailable); Volcano starts the other %" PRId64
            " as room frees",
            b->shares[0].cluster, ctl__act(b)->tree_placed, b->replicas,
            (int64_t)b->replicas - ctl__act(b)->tree_placed);
    if (b->soft) /* YuniKorn Soft past its placeholder timeout (soft.c): say so */
        ctl__soft_reason(w->reason, sizeof w->reason, b, partial);
    if (partial || jobs_fewer || b->soft ||
        strncmp(w->reason, "admitted at its minimum on ", 27) == 0)
        ctl__notice(c, "info", "%s: %s", b->key, w->reason);
    c->st.admitted++;
    if (c->opt.metrics) {
        disp_metrics_admission(c->opt.metrics, b->queue);
        disp_metrics_admission_wait(c->opt.metrics, (double)(now - b->created_at) / 1000.0);
    }
    if (c->opt.events)
        disp_events_record_admission(c->opt.events, now, (double)(now - b->created_at));
    ctl__publish_binding(c, b, "admitted", "");
}

/* b's last NoClusterFit verdict still holds: no cluster it may use has grown since, and the
 * cluster set and b's constraints are those it was made against. */
static int nofit_holds(const struct ctl *c, struct binding *b)
{
    if (!b->nofit_memo || b->nofit_epoch != c->fleet.epoch || b->allow_epoch != c->fleet.epoch) {
        b->nofit_memo = 0;
        return 0;
    }
    if (b->nofit_grow == c->fleet.grow_seq)
        return 1;
    for (uint32_t i = 0; i < c->fleet.ncl && i < 256; i++) {
        if (ctl__allowed(b, i) && c->fleet.cl[i].grew > b->nofit_grow) {
            b->nofit_memo = 0;
            return 0;
        }
    }
    b->nofit_grow = c->fleet.grow_seq; /* what grew is no use to it */
    return 1;
}

void ctl__cycle(struct ctl *c)
{
    c->cyc.wanted = 0;
    if (!ctl__leads(c) || !c->reconciled || c->stopping)
        return;
    uint64_t t0 = uv_hrtime();
    if (ctl__cycle_snapshot(c)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    ctl__losses_replace(c);
    ctl__grows_sweep(c);
    if (!c->cyc.forced && !c->cyc.last_cut && c->cyc.last_grow == c->fleet.grow_seq &&
        c->cyc.last_epoch == c->fleet.epoch) {
        if (c->rcl.nwant)
            ctl__reclaim_run(c); /* gangs the tick's sweep found refused (loop.c) */
        return; /* every gang the engine offers would meet the verdict it met last time */
    }
    c->cyc.forced = 0;
    c->cyc.last_grow = c->fleet.grow_seq;
    c->cyc.last_epoch = c->fleet.epoch;
    c->cyc.last_cut = 1; /* until the engine has nothing more to offer */
    ctl__tenancy_usage(c); /* namespaceLimits: what each namespace holds now */
    queue_cycle_begin(c->t);
    unsigned nofit = 0;
    struct queue_entry *e;
    while ((e = queue_cycle_next(c->t))) {
        ctl__cool_point(c);
        if (queue_entry_id(e) & CTL_GROW_ID) { /* a dispatched gang's scale-up (resize.c) */
            if (ctl__grow_offer(c, e) && queue_cycle_skip(c->t, e))
                goto cut;
            continue;
        }
        struct binding *b = queue_idmap_get(&c->byid, queue_entry_id(e));
        if (!b || b->st != B_PENDING) {
            if (queue_cycle_skip(c->t, e))
                goto cut;
            continue;
        }
        char lim[KARMADA_WORKLOAD_MSG_MAX];
        if (!ctl__tenancy_within_limits(c, b, lim, sizeof lim)) {
            /* its namespace's share of the queue is full: no placement, no reclaim */
            ctl__set_reason(b, "QuotaExceeded", "%s", lim);
            b->ns_limited = 1;
            if (queue_cycle_skip(c->t, e))
                goto cut;
            continue;
        }
        b->ns_limited = 0;
        int jsmin = b->split_pods && ctl__jobset_min(b);
        if (jsmin || (b->elastic && b->assign && b->ncomp == 1)) {
            int partial = 0, refused;
            enum place_verdict v = jsmin ? jobset_offer(c, b, e, &refused)
                                         : elastic_offer(c, b, e, &partial, &refused);
            if (v == PLACE_FITS) {
                reserve_shares(c, b);
                admit(c, b, partial);
                ctl__tenancy_admitted(c, b);
                continue;
            }
            if (v == PLACE_NO_FIT && !refused) {
                if (!b->nofit_memo && !ctl__act(b)->nofit_unproven) {
                    b->nofit_memo = 1;
                    b->nofit_grow = c->fleet.grow_seq;
                    b->nofit_epoch = c->fleet.epoch;
                }
                b->nofit = 1;
            }
            if (v == PLACE_NO_FIT && c->opt.reclaim)
                ctl__reclaim_consider(c, b);
            if (queue_cycle_skip(c->t, e) || (!refused && ++nofit >= CTL_CYCLE_NOFIT_MAX))
                goto cut;
            continue;
        }
        if (b->assign) {
            enum place_verdict v = nofit_holds(c, b) ? PLACE_NO_FIT : place(c, b);
            if (v != PLACE_FITS) {
                if (v == PLACE_NO_FIT && !b->nofit_memo && !ctl__act(b)->nofit_unproven) {
                    b->nofit_memo = 1;
                    b->nofit_grow = c->fleet.grow_seq;
                    b->nofit_epoch = c->fleet.epoch;
                }
                b->nofit = 1;
                if (v == PLACE_NO_FIT && c->opt.reclaim)
                    ctl__reclaim_consider(c, b);
                if (queue_cycle_skip(c->t, e) || ++nofit >= CTL_CYCLE_NOFIT_MAX)
                    goto cut;
                continue;
            }
        }
        struct queue_limit why;
        if (queue_entry_admit(c->t, e, &why)) {
            if (c->opt.reclaim)
                ctl__reclaim_consider(c, b);
            if (queue_cycle_skip(c->t, e))
                goto cut;
            continue;
        }
        if (b->assign)
            reserve_shares(c, b);
        else
            b->nshares = 0;
        admit(c, b, 0);
        ctl__tenancy_admitted(c, b);
    }
    c->cyc.last_cut = 0;
cut:
    ctl__grows_fold(c); /* the walk is over: admitted deltas join their gangs */
    if (c->rcl.nwant)
        ctl__reclaim_run(c); /* after the pass: a search must not change the tree under it */
    uint64_t t1 = uv_hrtime();
    c->cyc.next_ns = t1 - t0 >= CTL_CYCLE_PACE_FROM_NS ? t1 + (CTL_CYCLE_DUTY - 1) * (t1 - t0) : 0;
    double ms = (double)(t1 - t0) / 1e6;
    c->st.cycles++;
    c->st.last_cycle_ms = ms;
    if (ms > c->st.max_cycle_ms)
        c->st.max_cycle_ms = ms;
    if (c->opt.metrics)
        disp_metrics_cycle(c->opt.metrics, ms / 1000.0);
}
