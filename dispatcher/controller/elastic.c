/* Partial admission of elastic gangs (issue 17; docs/dispatcher.md, "Partial admission"): a gang
 * that opted in waits in the engine with its minimum, is admitted whole when the whole fits,
 * and otherwise at min-member, the rest recorded on its row as a waiting delta before any
 * request; once dispatched that delta grows the gang through the scale-up path (resize.c). */
#include "dispatcher/controller/ctl_int.h"

enum ctl_elastic ctl__elastic_judge(int elastic, int whole_quota, int whole_fits, int min_quota,
                                    int min_fits)
{
    if (whole_quota && whole_fits)
        return ELASTIC_WHOLE;
    if (elastic && min_quota && min_fits)
        return ELASTIC_MIN;
    return ELASTIC_WAIT;
}

int ctl__elastic_split(const struct comp *comp, uint32_t ncomp, int32_t min_member,
                       const struct queue_resvec *gang, uint32_t pods, struct queue_resvec *at_min,
                       struct queue_resvec *delta, int32_t *dreplicas)
{
    queue_resvec_clear(at_min);
    queue_resvec_clear(delta);
    if (ncomp != 1 || min_member < 1 || min_member >= comp[0].replicas)
        return MUSTER_EINVAL;
    int rc = ctl__gang_at(comp, ncomp, min_member, at_min);
    if (!rc && queue_resvec_get(gang, pods) == 0)
        rc = queue_resvec_set(at_min, pods, 0);
    for (uint32_t i = 0; !rc && i < gang->len; i++) {
        int64_t d = gang->items[i].milli - queue_resvec_get(at_min, gang->items[i].id);
        if (d > 0)
            rc = queue_resvec_set(delta, gang->items[i].id, d);
    }
    if (rc) {
        queue_resvec_clear(at_min);
        queue_resvec_clear(delta);
        return rc;
    }
    *dreplicas = comp[0].replicas - min_member;
    return 0;
}

int ctl__engine_request(struct ctl *c, const struct binding *b, struct queue_resvec *out,
                        const struct queue_resvec **req)
{
    *req = &b->gang;
    if (b->split_pods && ctl__jobset_min(b)) {
        /* a JobSet at fewer Jobs (issue 20): offered once its minimum passes the queues */
        int rc = ctl__jobset_leaves_request(b, NULL, out);
        if (!rc)
            *req = out;
        return rc;
    }
    if (!b->elastic)
        return 0;
    uint32_t pods;
    struct queue_resvec delta = {0};
    int32_t dr;
    int rc = queue_resnames_intern(c->names, "pods", 4, &pods);
    if (!rc)
        rc = ctl__elastic_split(b->comp, b->ncomp, ctl__elastic_min(b), &b->gang, pods, out, &delta,
                                &dr);
    queue_resvec_close(&delta);
    if (rc == MUSTER_EINVAL)
        return 0; /* not splittable after all: it waits whole */
    if (!rc)
        *req = out;
    return rc;
}

int ctl__tree_min(const struct binding *b)
{
    return b->tree.n > 1 && b->tree.g[0].source == KARMADA_GROUP_SOURCE_GROUP_SIZE &&
           b->tree.g[1].pods > 0 && b->tree.g[0].min_count >= 1 &&
           b->tree.g[0].min_count < b->tree.n - 1 && b->assign && b->ncomp == 1 && !b->split_pods &&
           b->kind != KARMADA_WORKLOAD_KIND_VCJOB;
}

int32_t ctl__elastic_unit(const struct binding *b)
{
    return ctl__tree_min(b) ? (int32_t)b->tree.g[1].pods : 1;
}

int32_t ctl__elastic_min(const struct binding *b)
{
    if (!ctl__tree_min(b))
        return b->min_member;
    int64_t m = ctl__tree_min_pods(&b->tree, 0);
    return m > INT32_MAX ? INT32_MAX : (int32_t)m;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t ctl__tree_min_pods(const struct karmada_group_tree *t, uint32_t at)
{
    if (at >= t->n)
        return 0;
    if (t->g[at].pods > 0)
        return t->g[at].pods;
    /* the min_count smallest children: what the level needs at the least (a group's parent
     * is before it in the array, so its children follow it) */
    int64_t kids[KARMADA_GROUPS_MAX];
    uint32_t nk = 0;
    for (uint32_t i = at + 1; i < t->n && nk < KARMADA_GROUPS_MAX; i++)
        if (t->g[i].parent == (int32_t)at)
            kids[nk++] = ctl__tree_min_pods(t, i);
    qsort(kids, nk, sizeof kids[0], cmp_i64);
    uint32_t need = t->g[at].min_count ? t->g[at].min_count : 1;
    if (need > nk)
        need = nk;
    int64_t sum = 0;
    for (uint32_t i = 0; i < need; i++)
        sum += kids[i];
    return sum;
}

int32_t ctl__tree_admit_size(int32_t whole, int32_t min, int32_t unit, int64_t placed,
                             int (*quota)(void *ud, int32_t size), void *ud)
{
    if (unit < 1 || min < 1 || min > whole || placed < min)
        return 0;
    int64_t top = placed < whole ? placed : whole;
    top = min + (top - min) / unit * unit; /* whole groups above the minimum */
    for (int64_t s = top; s > min; s -= unit)
        if (quota(ud, (int32_t)s))
            return (int32_t)s;
    return min; /* the engine offered its entry: the queues take at least the minimum */
}

int ctl__elastic_hold_at(struct ctl *c, struct binding *b, int32_t at_replicas)
{
    uint32_t pods;
    struct queue_resvec at = {0};
    struct ctl_grow *g = muster_calloc(1, sizeof(*g));
    int32_t dr = 0;
    int rc = g ? queue_resnames_intern(c->names, "pods", 4, &pods) : MUSTER_ENOMEM;
    if (!rc)
        rc = ctl__elastic_split(b->comp, b->ncomp, at_replicas, &b->gang, pods, &at, &g->req, &dr);
    if (rc || b->grow) {
        queue_resvec_close(&at);
        if (g)
            queue_resvec_close(&g->req);
        muster_free(g);
        return rc ? rc : MUSTER_EINVAL;
    }
    g->replicas = dr;
    g->since = b->created_at; /* the rest keeps the gang's place in line */
    b->grow = g;
    queue_resvec_close(&b->gang);
    b->gang = at;
    b->replicas = at_replicas;
    b->comp[0].replicas = at_replicas;
    return 0;
}

int ctl__elastic_hold_min(struct ctl *c, struct binding *b)
{
    return ctl__elastic_hold_at(c, b, ctl__elastic_min(b));
}

void ctl__elastic_restore(struct ctl *c, struct binding *b, const char *grow_record)
{
    int32_t held = 0;
    for (uint32_t i = 0; i < b->nshares; i++)
        held += b->shares[i].replicas;
    /* a gang with a group minimum (issue 20) may have been admitted above it, in whole groups */
    int32_t min = ctl__elastic_min(b), unit = ctl__elastic_unit(b);
    int at = held == min || (ctl__tree_min(b) && held > min && (held - min) % unit == 0);
    if (!grow_record || !grow_record[0] || b->grow || !b->elastic || !at || b->replicas <= held)
        return; /* not a partial admission's row: followed as the row and the RB say */
    int rc = ctl__elastic_hold_at(c, b, held);
    if (rc == MUSTER_ENOMEM)
        ctl__fatal(c, "out of memory");
    if (rc)
        return;
    /* the row's record wins for its place in line (the split above is what the RB asks now) */
    json_object *o = json_tokener_parse(grow_record);
    json_object *s = kube_json_get(o, "since");
    if (s)
        b->grow->since = json_object_get_int64(s);
    json_object_put(o);
}

void ctl__elastic_whole(struct binding *b)
{
    struct ctl_grow *g = b->grow;
    if (!g || b->ncomp != 1 || g->admitted)
        return;
    if (queue_resvec_add(&b->gang, &g->req))
        return; /* kept at what it held: a re-read of the RB asks again */
    b->replicas += g->replicas;
    b->comp[0].replicas += g->replicas;
}
