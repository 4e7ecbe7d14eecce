/* Gang placement over a cluster snapshot (see placement.h). */
#include "dispatcher/placement.h"

#include "queue/errors.h"
#include "queue/mem.h"

#include <string.h>

/* How many of `replica` fit in `room`, resource by resource (absent in room = 0, unless
 * `absent_unbounded`, for a grade that does not describe a resource). */
static uint64_t fits_in(const struct queue_resvec *room, const struct queue_resvec *replica,
                        int absent_unbounded)
{
    uint64_t best = UINT64_MAX;
    uint32_t j = 0;
    for (uint32_t i = 0; i < replica->len; i++) {
        int64_t need = replica->items[i].milli;
        if (need <= 0)
            continue;
        while (j < room->len && room->items[j].id < replica->items[i].id)
            j++;
        int present = j < room->len && room->items[j].id == replica->items[i].id;
        if (!present && absent_unbounded)
            continue;
        int64_t have = present ? room->items[j].milli : 0;
        uint64_t k = have > 0 ? (uint64_t)(have / need) : 0;
        if (k < best)
            best = k;
    }
    return best;
}

static uint64_t model_bound(const struct disp_cluster_cap *c, const struct queue_resvec *replica)
{
    uint64_t total = 0;
    for (uint32_t g = 0; g < c->ngrades; g++) {
        if (c->grades[g].nodes == 0)
            continue; /* no node of this grade: it holds nothing, whatever it describes */
        uint64_t per = fits_in(&c->grades[g].min, replica, 1), add;
        if (per == UINT64_MAX)
            return UINT64_MAX;
        if (__builtin_mul_overflow(per, c->grades[g].nodes, &add) ||
            __builtin_add_overflow(total, add, &total))
            return UINT64_MAX;
    }
    return total;
}

/* What c's part-taken nodes hold of replica, added to *total; 1 when that is without bound. */
static int parts_bound(const struct disp_cluster_cap *c, const struct queue_resvec *replica,
                       uint64_t *total)
{
    for (uint32_t i = 0; i < c->npart; i++) {
        uint64_t per = fits_in(&c->part[i], replica, 1);
        if (per == UINT64_MAX || __builtin_add_overflow(*total, per, total))
            return 1;
    }
    return 0;
}

void disp_cluster_cap_close_parts(struct disp_cluster_cap *c)
{
    for (uint32_t i = 0; i < c->npart; i++)
        queue_resvec_close(&c->part[i]);
    c->npart = 0;
}

int disp_cluster_cap_copy_parts(struct disp_cluster_cap *dst, const struct disp_cluster_cap *src)
{
    disp_cluster_cap_close_parts(dst);
    for (uint32_t i = 0; i < src->npart; i++) {
        memset(&dst->part[i], 0, sizeof(dst->part[i]));
        if (queue_resvec_copy(&dst->part[i], &src->part[i])) {
            queue_resvec_close(&dst->part[i]);
            disp_cluster_cap_close_parts(dst);
            return MUSTER_ENOMEM;
        }
        dst->npart = i + 1;
    }
    return 0;
}

uint64_t disp_cluster_fits(const struct disp_cluster_cap *c, const struct queue_resvec *replica)
{
    uint64_t sum = fits_in(&c->free, replica, 0);
    if (!c->ngrades)
        return sum;
    uint64_t nodes = model_bound(c, replica);
    if (nodes != UINT64_MAX && parts_bound(c, replica, &nodes))
        nodes = UINT64_MAX;
    return nodes < sum ? nodes : sum;
}

/* room less k replicas, for the resources room describes (an absent one is not bounded);
 * what is used up stays as an explicit 0. */
static int take_from(struct queue_resvec *room, const struct queue_resvec *replica, uint64_t k)
{
    for (uint32_t i = 0; i < replica->len; i++) {
        int64_t need = replica->items[i].milli, have, used;
        uint32_t id = replica->items[i].id;
        int present = 0;
        for (uint32_t j = 0; j < room->len && !present; j++)
            present = room->items[j].id == id;
        if (need <= 0 || !present)
            continue;
        have = queue_resvec_get(room, id);
        if (__builtin_mul_overflow(need, (int64_t)k, &used) || used > have)
            used = have > 0 ? have : 0;
        if (queue_resvec_put(room, id, have > 0 ? have - used : have))
            return MUSTER_ENOMEM;
    }
    return 0;
}

int disp_cluster_reserve(struct disp_cluster_cap *c, const struct queue_resvec *replica, uint64_t n)
{
    if (n == 0)
        return 0;
    if (disp_cluster_fits(c, replica) < n)
        return MUSTER_ERANGE;
    /* Worked out on copies, then put in place: all or nothing. */
    struct queue_resvec part[DISP_PARTIAL_MAX + 1];
    uint64_t nodes_here[64];
    uint32_t np = c->npart, ng = c->ngrades;
    uint64_t *nodes = ng <= 64 ? nodes_here : muster_malloc(ng * sizeof(*nodes));
    if (!nodes)
        return MUSTER_ENOMEM;
    int rc = 0;
    memset(part, 0, sizeof(part));
    for (uint32_t i = 0; i < np && !rc; i++)
        rc = queue_resvec_copy(&part[i], &c->part[i]);
    for (uint32_t g = 0; g < ng; g++)
        nodes[g] = c->grades[g].nodes;
    uint64_t left = c->ngrades ? n : 0;
    /* part-taken nodes first, so whole nodes stay whole for the big replicas */
    for (uint32_t i = 0; i < np && left && !rc; i++) {
        uint64_t per = fits_in(&part[i], replica, 1);
        if (per == 0)
            continue;
        uint64_t take = per < left ? per : left;
        if (per != UINT64_MAX)
            rc = take_from(&part[i], replica, take);
        left -= take;
    }
    for (uint32_t g = 0; g < ng && left && !rc; g++) {
        uint64_t per = fits_in(&c->grades[g].min, replica, 1);
        if (per == 0 || nodes[g] == 0)
            continue;
        if (per == UINT64_MAX) { /* this grade does not limit the replica at all */
            left = 0;
            break;
        }
        uint64_t need_nodes = left / per + (left % per != 0);
        uint64_t take = need_nodes < nodes[g] ? need_nodes : nodes[g];
        nodes[g] -= take;
        if (take * per <= left) {
            left -= take * per;
            continue;
        }
        /* the last node is only part-taken: what it still holds is kept */
        if (np < DISP_PARTIAL_MAX) {
            rc = queue_resvec_copy(&part[np], &c->grades[g].min);
            np++;
            if (!rc)
                rc = take_from(&part[np - 1], replica, left - (take - 1) * per);
        }
        left = 0;
    }
    for (uint32_t i = 0; i < replica->len && !rc; i++) {
        int64_t need = replica->items[i].milli, total;
        if (need > 0 && __builtin_mul_overflow(need, (int64_t)n, &total))
            rc = MUSTER_ERANGE;
    }
    if (!rc)
        for (uint32_t g = 0; g < ng; g++)
            c->grades[g].nodes = nodes[g];
    if (nodes != nodes_here)
        muster_free(nodes);
    if (rc) {
        for (uint32_t i = 0; i < np; i++)
            queue_resvec_close(&part[i]);
        return rc;
    }
    disp_cluster_cap_close_parts(c);
    /* a node with nothing left of anything it describes is no longer worth keeping */
    for (uint32_t i = 0; i < np; i++) {
        int some = 0;
        for (uint32_t j = 0; j < part[i].len; j++)
            some |= part[i].items[j].milli > 0;
        if (some)
            c->part[c->npart++] = part[i];
        else
            queue_resvec_close(&part[i]);
    }
    for (uint32_t i = 0; i < replica->len; i++) {
        int64_t need = replica->items[i].milli;
        if (need <= 0)
            continue;
        int64_t have = queue_resvec_get(&c->free, replica->items[i].id);
        /* fits() said these are there; set cannot grow the vector since the id is present. */
        (void)queue_resvec_set(&c->free, replica->items[i].id, have - need * (int64_t)n);
    }
    return 0;
}

uint32_t disp_place(const struct disp_cluster_cap *clusters, uint32_t n,
                    const struct queue_resvec *replica, uint64_t replicas, enum disp_spread mode,
                    struct disp_share *out)
{
    uint64_t fits[1024];
    if (n > 1024)
        n = 1024;
    for (uint32_t i = 0; i < n; i++)
        fits[i] = disp_cluster_fits(&clusters[i], replica);
    return disp_place_fits(clusters, fits, n, replicas, mode, out);
}

uint32_t disp_place_fits(const struct disp_cluster_cap *clusters, const uint64_t *fits, uint32_t n,
                         uint64_t replicas, enum disp_spread mode, struct disp_share *out)
{
    if (n == 0 || replicas == 0)
        return 0;
    if (mode == DISP_SINGLE_CLUSTER) {
        int64_t best = -1;
        uint64_t best_left = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t f = fits[i];
            if (f < replicas)
                continue;
            uint64_t left = f - replicas;
            if (best < 0 || left < best_left ||
                (left == best_left && strcmp(clusters[i].name, clusters[best].name) < 0)) {
                best = i;
                best_left = left;
            }
        }
        if (best < 0)
            return 0;
        out[0] = (struct disp_share){(uint32_t)best, replicas};
        return 1;
    }
    /* Spread: roomiest first, so the gang touches as few clusters as it can. A selection sort
     * over the indexes in out keeps this allocation-free; clusters number in the hundreds. */
    uint64_t total = 0;
    uint32_t used = 0;
    uint8_t taken[1024] = {0};
    if (n > sizeof(taken))
        n = sizeof(taken);
    while (total < replicas && used < n) {
        int64_t best = -1;
        uint64_t best_fit = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (taken[i])
                continue;
            uint64_t f = fits[i];
            if (f > best_fit || (f == best_fit && best >= 0 && f > 0 &&
                                 strcmp(clusters[i].name, clusters[best].name) < 0)) {
                best = i;
                best_fit = f;
            }
        }
        if (best < 0 || best_fit == 0)
            return 0;
        taken[best] = 1;
        uint64_t take = replicas - total < best_fit ? replicas - total : best_fit;
        out[used++] = (struct disp_share){(uint32_t)best, take};
        total += take;
    }
    return total == replicas ? used : 0;
}

uint32_t disp_place_groups(const struct disp_cluster_cap *clusters, const uint64_t *fits,
                           uint32_t n, uint64_t replicas, uint64_t group, enum disp_spread mode,
                           struct disp_share *out)
{
    if (group <= 1)
        return disp_place_fits(clusters, fits, n, replicas, mode, out);
    if (replicas % group != 0)
        return 0;
    uint64_t gfits[1024];
    if (n > 1024)
        n = 1024;
    for (uint32_t i = 0; i < n; i++)
        gfits[i] = fits[i] == UINT64_MAX ? UINT64_MAX : fits[i] / group;
    /* the same choice over groups as units: the fewest clusters, the roomiest first, each
     * taking whole groups */
    uint32_t got = disp_place_fits(clusters, gfits, n, replicas / group, mode, out);
    for (uint32_t i = 0; i < got; i++)
        out[i].replicas *= group;
    return got;
}
