/* The gang object each member is given (docs/gangobj.md, "Dialects"): the dialect detected from
 * a Cluster's status.apiEnablements, or the one an operator set through the admin API and the
 * store keeps (schema/0009_cluster_dialect.sql). */
#include "dispatcher/controller/ctl_int.h"

static const struct ctl_dialect_override *override_of(const struct ctl *c, const char *name)
{
    for (uint32_t i = 0; i < c->ndov; i++)
        if (strcmp(c->dov[i].name, name) == 0)
            return &c->dov[i];
    return NULL;
}

enum karmada_gang_dialect ctl__cluster_dialect(const struct ctl *c, const char *name, int *override)
{
    const struct ctl_dialect_override *o = override_of(c, name);
    if (override)
        *override = o != NULL;
    if (o)
        return o->dialect;
    for (uint32_t i = 0; i < c->fleet.ncl; i++)
        if (strcmp(c->fleet.cl[i].name, name) == 0)
            return c->fleet.cl[i].dialect_detected;
    return KARMADA_GANG_DIALECT_VOLCANO;
}

enum karmada_gang_wl_version ctl__cluster_wl_version(const struct ctl *c, const char *name)
{
    /* an override to workload-api takes the version the member serves too: the PodGroup must
     * be one its API server knows (v1beta1 when its apiEnablements say nothing) */
    for (uint32_t i = 0; i < c->fleet.ncl; i++)
        if (strcmp(c->fleet.cl[i].name, name) == 0)
            return c->fleet.cl[i].wl_version;
    return KARMADA_GANG_WL_V1BETA1;
}

int ctl__cluster_nettopo(const struct ctl *c, const char *name)
{
    for (uint32_t i = 0; i < c->fleet.ncl; i++)
        if (strcmp(c->fleet.cl[i].name, name) == 0)
            return (!c->fleet.cl[i].no_nettopo ? 1 : 0) | (!c->fleet.cl[i].no_tiernames ? 2 : 0);
    return 0;
}

enum karmada_gang_dialect ctl__cluster_dialect_apply(struct ctl *c, struct cluster *k)
{
    int over;
    enum karmada_gang_dialect d = ctl__cluster_dialect(c, k->name, &over);
    /* A dialect whose PodGroup the karmada-apiserver does not serve is as good as none there:
     * Karmada's execution controller would never apply the Work (prereq.c). */
    int hub_lacks = karmada_gang_dialect_gangs(d) && !ctl__hub_serves(c, d, k->wl_version);
    int no_pg = !karmada_gang_dialect_gangs(d) || hub_lacks;
    /* networkTopology is Volcano's: a member of another dialect (an override included) takes
     * none, HyperNodes or not */
    int no_nt = !k->hypernodes || d != KARMADA_GANG_DIALECT_VOLCANO || no_pg;
    if (no_nt != k->no_nettopo) {
        k->no_nettopo = no_nt;
        c->fleet.epoch++; /* where a gang with a required member topology may go changed */
    }
    int no_tn = no_nt || !k->tiernames;
    if (no_tn != k->no_tiernames) {
        k->no_tiernames = no_tn;
        c->fleet.epoch++; /* where a gang whose required member tier is a name may go */
    }
    if (no_pg != k->no_podgroups) {
        k->no_podgroups = no_pg;
        c->fleet.epoch++; /* where a gang that needs a member-side gang may go changed */
        ctl__logf(
            c, "cluster %s: %s", k->name,
            !no_pg      ? "speaks a gang dialect again"
            : hub_lacks ? "its gang dialect's PodGroup API is not served by the karmada-apiserver "
                          "(Karmada could not apply its PodGroup Works): gangs that need a "
                          "member-side gang are not placed there until it is"
            : over      ? "gangDialect set to none by an operator: gangs that need a "
                          "member-side gang are not placed there"
                        : "status.apiEnablements lists no Volcano (scheduling.volcano.sh/v1beta1), "
                          "coscheduling (scheduling.x-k8s.io/v1alpha1) or Workload API "
                          "(scheduling.k8s.io/v1beta1 or v1alpha2) podgroups: gangs that need a "
                          "member-side gang are not placed there until it does");
        ctl__missing_refresh(c);
    }
    return d;
}

struct load {
    struct ctl_dialect_override *v;
    uint32_t n, cap;
};

static int load_one(void *ud, const char *name, const char *dialect)
{
    struct load *l = ud;
    enum karmada_gang_dialect d;
    if (strlen(name) >= CTL_CLUSTER_NAME_MAX || karmada_gang_dialect_parse(dialect, &d))
        return 0; /* the table's CHECK keeps these out; a name too long names no cluster */
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        struct ctl_dialect_override *n = muster_realloc(l->v, cap * sizeof(*n));
        if (!n)
            return MUSTER_ENOMEM;
        l->v = n;
        l->cap = cap;
    }
    snprintf(l->v[l->n].name, sizeof l->v[l->n].name, "%s", name);
    l->v[l->n++].dialect = d;
    return 0;
}

int ctl__dialects_refresh(struct ctl *c)
{
    struct load l = {0};
    int rc = store_cluster_dialect_foreach(c->s, load_one, &l);
    if (rc) {
        muster_free(l.v);
        ctl__logf(c, "gang dialect overrides not read again: %s", store_errmsg(c->s));
        return rc;
    }
    muster_free(c->dov);
    c->dov = l.v;
    c->ndov = l.n;
    for (uint32_t i = 0; i < c->fleet.ncl; i++)
        ctl__cluster_dialect_apply(c, &c->fleet.cl[i]);
    return 0;
}
