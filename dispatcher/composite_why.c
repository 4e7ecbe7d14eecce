/* Why a composite gang is not placed: the sentence for the RB's condition (composite.h; the
 * rules in docs/composite.md, "When nothing fits"). */
#include "dispatcher/composite.h"
#include "dispatcher/composite_int.h"

#include "queue/errors.h"
#include "queue/mem.h"
#include "queue/quantity.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void fmt_pod(const struct comp_search *s, const struct karmada_group *g, char *buf,
                    size_t cap)
{
    size_t l = (size_t)snprintf(buf, cap, "%" PRIu32 " × {", g->pods);
    int first = 1;
    for (uint32_t i = 0; i < g->pod.len && l < cap; i++) {
        const char *name =
            s->in->names ? queue_resnames_name(s->in->names, g->pod.items[i].id) : NULL;
        if (name && strcmp(name, "pods") == 0)
            continue; /* one per pod: implied */
        char q[48];
        if (queue_qty_format_auto(g->pod.items[i].milli, q, sizeof q) < 0)
            snprintf(q, sizeof q, "%" PRId64 "m", g->pod.items[i].milli);
        if (name)
            l += (size_t)snprintf(buf + l, cap - l, "%s%s: %s", first ? "" : ", ", name, q);
        else
            l += (size_t)snprintf(buf + l, cap - l, "%sresource#%" PRIu32 ": %s", first ? "" : ", ",
                                  g->pod.items[i].id, q);
        first = 0;
    }
    if (l < cap)
        snprintf(buf + l, cap - l, "}");
}

static const char *gname(const struct comp_search *s, uint32_t g)
{
    return g == 0 ? "the whole gang" : s->g[g].name;
}

/* Whether group g can be placed, counting leaves that fit somewhere alone (static_ok and
 * room in one cluster), min_count and required spreads that have too few domains. */
static int static_feasible(const struct comp_search *s, uint32_t g, const int *leaf_ok)
{
    if (s->nch[g] == 0)
        return leaf_ok[g];
    for (uint32_t i = 0; i < s->ncon; i++) {
        const struct comp_con *k = &s->con[i];
        if (k->g != g || !k->required)
            continue;
        if (k->mode == KARMADA_TOPO_SPREAD && s->ndom[k->level] < k->k)
            return 0;
        if (k->mode == KARMADA_TOPO_PACK && s->ndom[k->level] == 0)
            return 0;
    }
    uint32_t ok = 0;
    for (uint32_t c = g + 1; c < s->n; c++)
        if (s->g[c].parent == (int32_t)g)
            ok += static_feasible(s, c, leaf_ok);
    return ok >= s->need[g];
}

/* The leaf message: where it fits best, or that it fits only where the constraints say no. */
static void explain_leaf(const struct comp_search *s, uint32_t d, struct disp_composite_result *out,
                         const char *ctx)
{
    const struct karmada_group *lg = &s->g[s->leaf[d]];
    char pod[160];
    fmt_pod(s, lg, pod, sizeof pod);
    uint64_t most = 0;
    int32_t at = -1;
    int fits_elsewhere = 0;
    for (uint32_t c = 0; c < s->ncl; c++) {
        uint64_t f = disp_cluster_fits(&s->in->clusters[c], &lg->pod);
        fits_elsewhere |= f >= lg->pods;
        if (at < 0 || f > most) {
            most = f;
            at = (int32_t)c;
        }
    }
    if (s->ncl == 0) {
        disp__composite_why(out, "group %s (%s): no Ready cluster is allowed%s", lg->name, pod,
                            ctx);
    } else if (fits_elsewhere) {
        /* room there is, in clusters a required level leaves out */
        const char *lvl = "?";
        for (uint32_t i = s->lcon_at[d]; i < s->lcon_at[d + 1]; i++) {
            const struct comp_con *k = &s->con[s->lcon[i]];
            if (k->required && k->level != COMP_LEVEL_CLUSTER) {
                lvl = s->levels[k->level];
                break;
            }
        }
        disp__composite_why(out,
                            "group %s (%s) fits only in clusters without a %s, which its required "
                            "topology cannot use%s",
                            lg->name, pod, lvl, ctx);
    } else {
        disp__composite_why(
            out,
            "group %s (%s) fits in no single cluster: largest free block is %" PRIu64 " on %s%s",
            lg->name, pod, most, s->in->clusters[at].name, ctx);
    }
}

/* Greedy count of g's children that fit when g is held to domain dm of level: each child's
 * leaves first fit, in tree order, over that domain's clusters; a child that does not fit whole
 * gives its room back. An estimate for the message, not a proof. */
static int under(const struct comp_search *s, uint32_t x, uint32_t g)
{
    int32_t y = (int32_t)x;
    while (y >= 0 && y != (int32_t)g)
        y = s->g[y].parent;
    return y >= 0;
}

static uint32_t greedy_in_domain(struct comp_search *s, uint32_t g, uint32_t level, int32_t dm,
                                 uint32_t *stack)
{
    uint32_t fitted = 0, top = 0;
    for (uint32_t ch = g + 1; ch < s->n && !s->err; ch++) {
        if (s->g[ch].parent != (int32_t)g)
            continue;
        uint32_t mark = top;
        int ok = 1;
        for (uint32_t d = 0; d < s->nl && ok; d++) {
            if (!under(s, s->leaf[d], ch))
                continue;
            uint32_t c = 0;
            while (c < s->ncl && !(s->dom[level][c] == dm && disp__composite_place_leaf(s, d, c)))
                c++;
            if (c < s->ncl)
                stack[top++] = d;
            else
                ok = 0;
        }
        if (ok) {
            fitted++;
            continue;
        }
        while (top > mark) { /* a child that does not fit whole gives its room back */
            top--;
            disp__composite_unplace_leaf(s, stack[top], (uint32_t)s->asg[stack[top]]);
        }
    }
    while (top > 0) {
        top--;
        disp__composite_unplace_leaf(s, stack[top], (uint32_t)s->asg[stack[top]]);
    }
    return fitted;
}

static int explain_pack(struct comp_search *s, uint32_t g, struct disp_composite_result *out)
{
    for (uint32_t i = 0; i < s->ncon; i++) {
        const struct comp_con *k = &s->con[i];
        if (k->g != g || !k->required || k->mode != KARMADA_TOPO_PACK || s->nch[g] == 0)
            continue;
        uint32_t bestn = 0;
        int32_t bestd = -1;
        for (uint32_t dm = 0; dm < s->ndom[k->level] && !s->err; dm++) {
            uint32_t f = greedy_in_domain(s, g, k->level, (int32_t)dm, s->ustack_greedy);
            if (bestd < 0 || f > bestn) {
                bestn = f;
                bestd = (int32_t)dm;
            }
        }
        if (bestd >= 0 && bestn < s->need[g]) {
            disp__composite_why(out,
                                "no %s holds %s: %s holds %" PRIu32 " of %" PRIu32
                                " groups (%" PRIu32 " needed)",
                                s->levels[k->level], gname(s, g), s->dname[k->level][bestd], bestn,
                                s->nch[g], s->need[g]);
            return 1;
        }
    }
    for (uint32_t c = g + 1; c < s->n; c++)
        if (s->g[c].parent == (int32_t)g && explain_pack(s, c, out))
            return 1;
    return 0;
}

/* The first reason, from the top of the tree down, that g cannot be placed by the static
 * checks; 1 when one was written. */
static int explain_static(const struct comp_search *s, uint32_t g, const int *leaf_ok,
                          struct disp_composite_result *out)
{
    if (s->nch[g] == 0) {
        for (uint32_t d = 0; d < s->nl; d++)
            if (s->leaf[d] == g) {
                char ctx[160] = "";
                int32_t p = s->g[g].parent;
                if (p >= 0) {
                    uint32_t ok = 0;
                    for (uint32_t c = (uint32_t)p + 1; c < s->n; c++)
                        if (s->g[c].parent == p)
                            ok += static_feasible(s, c, leaf_ok);
                    snprintf(ctx, sizeof ctx,
                             "; %s needs %" PRIu32 " of its %" PRIu32 " groups, %" PRIu32 " fit",
                             p == 0 ? "the gang" : s->g[p].name, s->need[p], s->nch[p], ok);
                }
                explain_leaf(s, d, out, ctx);
                return 1;
            }
        return 0;
    }
    if (s->need[g] > s->nch[g]) {
        disp__composite_why(out, "group %s needs %" PRIu32 " of its children and has only %" PRIu32,
                            s->g[g].name, s->need[g], s->nch[g]);
        return 1;
    }
    for (uint32_t i = 0; i < s->ncon; i++) {
        const struct comp_con *k = &s->con[i];
        if (k->g != g || !k->required)
            continue;
        if (k->mode == KARMADA_TOPO_SPREAD && s->ndom[k->level] < k->k) {
            disp__composite_why(
                out,
                "%s must spread over %" PRIu32 " %ss and the allowed clusters have %" PRIu32 "%s%s",
                gname(s, g), k->k, s->levels[k->level], s->ndom[k->level],
                s->ndom[k->level] ? ": " : "", s->ndom[k->level] ? s->dname[k->level][0] : "");
            return 1;
        }
        if (k->mode == KARMADA_TOPO_PACK && s->ndom[k->level] == 0) {
            disp__composite_why(out, "%s must be in one %s and no allowed cluster has a %s",
                                gname(s, g), s->levels[k->level], s->levels[k->level]);
            return 1;
        }
    }
    for (uint32_t c = g + 1; c < s->n; c++)
        if (s->g[c].parent == (int32_t)g && !static_feasible(s, c, leaf_ok) &&
            explain_static(s, c, leaf_ok, out))
            return 1;
    return 0;
}

int disp__composite_explain(struct comp_search *s, struct disp_composite_result *out)
{
    int *leaf_ok = muster_calloc(s->n, sizeof(int));
    if (!leaf_ok)
        return MUSTER_ENOMEM;
    for (uint32_t d = 0; d < s->nl; d++)
        leaf_ok[s->leaf[d]] = s->fitany[d];
    int done = !static_feasible(s, 0, leaf_ok) && explain_static(s, 0, leaf_ok, out);
    muster_free(leaf_ok);
    if (done)
        return 0;
    /* every part fits somewhere alone: a required pack that no one domain holds? */
    if (!s->stopped && explain_pack(s, 0, out))
        return s->err;
    if (s->stopped)
        disp__composite_why(out,
                            "no placement of the gang (%" PRIu32 " of %" PRIu32
                            " groups) found within the "
                            "search budget of %" PRIu64 " steps",
                            s->need[0], s->nch[0] ? s->nch[0] : 1, s->budget);
    else
        disp__composite_why(out,
                            "no set of allowed clusters holds the gang's %" PRIu32 " of %" PRIu32
                            " groups node by node under its constraints",
                            s->need[0], s->nch[0] ? s->nch[0] : 1);
    return s->err;
}
