/* Private to dispatcher/composite.c (the search) and composite_why.c (the explanation): the
 * search's state, and what the explanation borrows from it. */
#ifndef MUSTER_DISPATCHER_COMPOSITE_INT_H
#define MUSTER_DISPATCHER_COMPOSITE_INT_H

#include "dispatcher/composite.h"

#include <stdint.h>

#define COMP_LEVEL_CLUSTER 0 /* levels[0] is "cluster": each cluster its own domain */
#define COMP_NLEVELS (DISP_COMPOSITE_LEVELS_MAX + 1)
#define COMP_RES_MAX 16    /* resources the bounds look at; more only weakens them */
#define COMP_SHAPES_MAX 16 /* leaf shapes (pods x pod) the room bound tracks; more: not bounded */
#define COMP_UNBOUNDED INT64_MAX

/* One topology constraint of one group, and what the search has placed under it. */
struct comp_con {
    uint32_t g;
    uint32_t level;
    enum karmada_topo_mode mode;
    uint32_t k;
    int required;
    uint32_t n;    /* pack: placed leaves under g */
    int32_t dom;   /* pack: the domain of the first of them */
    uint32_t bad;  /* pack: placed leaves outside it (or in no domain) */
    uint32_t *cnt; /* spread: placed leaves per domain */
    uint32_t distinct;
};

/* A cluster's working copy: reservations are made here and undone on the way back. */
struct comp_cluster {
    struct disp_cluster_cap cap;
    uint64_t whole;   /* sum of its grades' nodes */
    uint32_t leaves;  /* placed here */
    uint32_t cls;     /* the first cluster identical to it in room and level values */
    uint32_t clsnext; /* the next one of its class, or UINT32_MAX */
};

/* A cluster's state before a leaf's reservation, one per depth. */
struct comp_undo {
    struct queue_resvec free;
    struct queue_resvec part[DISP_PARTIAL_MAX];
    uint32_t npart;
    uint64_t *nodes;
    uint64_t whole;
};

struct comp_cand {
    uint32_t c;
    uint64_t fit;
    int used;
    int gain; /* minus the preferred packs it breaks */
};

struct comp_search {
    const struct disp_composite_in *in;
    const struct karmada_group *g;
    uint32_t n, ncl, nl;
    uint32_t *leaf; /* leaf group indexes in tree order; a depth is a position here */
    uint32_t *nch, *need, *und, *pl, *chd;
    struct comp_con *con;
    uint32_t ncon, nprefs;
    uint32_t *lcon, *lcon_at; /* constraints on a leaf and its ancestors: lcon[lcon_at[d]..] */
    const char *levels[COMP_NLEVELS];
    uint32_t nlevels;
    int32_t *dom[COMP_NLEVELS]; /* [level][cluster]: domain id or -1 */
    uint32_t ndom[COMP_NLEVELS];
    const char **dname[COMP_NLEVELS]; /* [level][domain]: the value */
    struct comp_cluster *cl;
    struct comp_undo *u;
    int32_t *asg, *best_asg;
    int *fitany, *same_prev;
    uint32_t nres, res[COMP_RES_MAX];
    uint64_t *rem_pods; /* [nl + 1] pods of the leaves that fit somewhere, from d on */
    int64_t *rem_dem;   /* [(nl + 1) * nres] suffix demand of the leaves that fit somewhere */
    int64_t *maxnode;   /* [nres] most one whole node holds; COMP_UNBOUNDED */
    int nodeless;       /* a cluster without models: opens no node for any amount */
    int64_t *freeinit;  /* [ncl * nres] */
    uint32_t *order;    /* [nres * ncl] clusters by initial free, most first */
    int64_t *proom;     /* [ncl * nres] room of part-taken nodes; COMP_UNBOUNDED */
    int64_t pfin[COMP_RES_MAX];  /* over all clusters: the finite part-taken room... */
    uint32_t pinf[COMP_RES_MAX]; /* ...and how many clusters' is without bound */
    uint32_t *ustack, nused;
    uint64_t *stamp; /* [ncl] per class: the step that offered an unused member of it */
    /* Room per leaf shape: how many more leaves of shape k cluster c holds node by node
     * (slots[k * ncl + c]), kept as reservations come and go. */
    uint32_t nshapes;
    const struct karmada_group *shape[COMP_SHAPES_MAX];
    uint32_t *shape_of;  /* [nl] shape index, or COMP_SHAPES_MAX when untracked */
    uint64_t *slots;     /* [nshapes * ncl] */
    uint64_t *slots0;    /* [nshapes * ncl] the same before any reservation */
    uint32_t *sorder;    /* [nshapes * ncl] clusters by slots0, most first */
    uint32_t *srank;     /* [nshapes * ncl] a cluster's place in sorder */
    uint32_t *run_end;   /* [nl] the last depth of the run of identical siblings d is in */
    uint32_t *rem_shape; /* [(nl + 1) * COMP_SHAPES_MAX] fitting leaves of each shape from d on */
    uint64_t *rem_free_pods;   /* [nl + 1] pods of fitting untracked leaves from d on */
    uint32_t *rem_free_leaves; /* [nl + 1] how many */
    uint8_t *root_ok;          /* [ncl] clusters the root's required constraints allow... */
    int32_t root_key[KARMADA_GROUP_TOPO_MAX + 1]; /* ...for these root pack domains */
    int root_valid;
    uint32_t chp_root;       /* root's children with a placed leaf */
    uint32_t *ustack_greedy; /* [nl] the explanation's placements, to undo them */
    struct comp_cand *cand;  /* [nl * ncl] */
    uint64_t placed_pods, opened, steps, budget;
    uint32_t packs_broken;
    int have, stopped, err;
    struct disp_composite_score best;
};

/* Writes out->why. */
void disp__composite_why(struct disp_composite_result *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Whether leaf position d may use cluster c at all, whatever else is placed: every required
 * constraint on it or above it needs a value of its level there. */
int disp__composite_static_ok(const struct comp_search *s, uint32_t d, uint32_t c);

/* Places leaf position d in cluster c: reserves its pods and updates the search's counts. 1 when
 * placed; 0 when c does not hold it or on MUSTER_ENOMEM (s->err), nothing changed either way.
 * Undone, last placed first, by disp__composite_unplace_leaf. */
int disp__composite_place_leaf(struct comp_search *s, uint32_t d, uint32_t c);
void disp__composite_unplace_leaf(struct comp_search *s, uint32_t d, uint32_t c);

/* After a search that found nothing: fills out->why. 0 or MUSTER_ENOMEM. */
int disp__composite_explain(struct comp_search *s, struct disp_composite_result *out);

#endif
