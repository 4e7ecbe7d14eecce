/* Gang placement over a cluster snapshot (see placement.h). */
#include "dispatcher/placement.h"

#include "queue/errors.h"

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

uint64_t disp_cluster_fits(const struct disp_cluster_cap *c, const struct queue_resvec *replica)
{
    uint64_t sum = fits_in(&c->free, replica, 0);
    if (!c->ngrades)
        return sum;
    uint64_t nodes = model_bound(c, replica);
    return nodes < sum ? nodes : sum;
}

int disp_cluster_reserve(struct disp_cluster_cap *c, const struct queue_resvec *replica,
                         uint64_t n)
{
    if (n == 0)
        return 0;
    if (disp_cluster_fits(c, replica) < n)
        return MUSTER_ERANGE;
    /* Nodes first (they cannot fail now), then the summary, each checked for overflow. */
    uint64_t left = n;
    for (uint32_t g = 0; g < c->ngrades && left; g++) {
        uint64_t per = fits_in(&c->grades[g].min, replica, 1);
        if (per == 0 || c->grades[g].nodes == 0)
            continue;
        if (per == UINT64_MAX) { /* this grade does not limit the replica at all */
            left = 0;
            break;
        }
        uint64_t need_nodes = (left + per - 1) / per;
        uint64_t take = need_nodes < c->grades[g].nodes ? need_nodes : c->grades[g].nodes;
        c->grades[g].nodes -= take;
        left = take * per >= left ? 0 : left - take * per;
    }
    for (uint32_t i = 0; i < replica->len; i++) {
        int64_t need = replica->items[i].milli, total;
        if (need <= 0)
            continue;
        if (__builtin_mul_overflow(need, (int64_t)n, &total))
            return MUSTER_ERANGE;
        int64_t have = queue_resvec_get(&c->free, replica->items[i].id);
        /* fits() said these are there; set cannot grow the vector since the id is present. */
        (void)queue_resvec_set(&c->free, replica->items[i].id, have - total);
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

uint32_t disp_place_fits(const struct disp_cluster_cap *clusters, const uint64_t *fits,
                         uint32_t n, uint64_t replicas, enum disp_spread mode,
                         struct disp_share *out)
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
