/* Hub prerequisites (docs/operations.md): the gang-object APIs served by the karmada-apiserver
 * (Volcano's, scheduler-plugins' and the Workload API's PodGroups), for placement, /readyz and
 * the log. */
#include "dispatcher/controller/ctl_int.h"

/* The gang-object APIs a member's PodGroup Work may carry, and where to ask for them. */
static const struct hub_api_row {
    const char *path;  /* the group-version's discovery document */
    const char *gv;    /* for the log and /readyz */
    const char *whose; /* what it is */
} hub_apis[CTL_HUB_APIS] = {
    [CTL_HUB_VOLCANO] = {"/apis/scheduling.volcano.sh/v1beta1", "scheduling.volcano.sh/v1beta1",
                         "Volcano's PodGroup CRD"},
    [CTL_HUB_COSCHEDULING] = {"/apis/scheduling.x-k8s.io/v1alpha1", "scheduling.x-k8s.io/v1alpha1",
                              "scheduler-plugins' PodGroup CRD"},
    [CTL_HUB_WL_V1BETA1] = {"/apis/scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1beta1",
                            "the Workload API (Kubernetes 1.37)"},
    [CTL_HUB_WL_V1ALPHA2] = {"/apis/scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1alpha2",
                             "the Workload API (Kubernetes 1.36)"},
};

/* c->pre.missing: every prerequisite found missing, one sentence each, for /readyz and the log. */
void ctl__missing_refresh(struct ctl *c)
{
    char old[sizeof c->pre.missing];
    memcpy(old, c->pre.missing, sizeof old);
    c->pre.missing[0] = '\0';
    size_t l = 0;
    if (c->pre.hub_pg == 0)
        l += (size_t)snprintf(c->pre.missing + l, sizeof c->pre.missing - l,
                              "the karmada-apiserver does not serve scheduling.volcano.sh/v1beta1 "
                              "podgroups (install Volcano's PodGroup CRD on the hub): gangs of "
                              "Deployments, Jobs and Pods are not dispatched\n");
    /* the members of a dialect whose PodGroup the hub cannot carry */
    for (int a = CTL_HUB_COSCHEDULING; a < CTL_HUB_APIS; a++) {
        char names[256] = "";
        for (uint32_t i = 0; c->pre.hub_api[a] == 0 && i < c->fleet.ncl; i++) {
            const struct cluster *k = &c->fleet.cl[i];
            size_t nl = strlen(names);
            if (ctl__hub_api_of(ctl__cluster_dialect(c, k->name, NULL), k->wl_version) ==
                (enum ctl_hub_api)a)
                snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "", k->name);
        }
        if (names[0] && l < sizeof c->pre.missing)
            l += (size_t)snprintf(c->pre.missing + l, sizeof c->pre.missing - l,
                                  "the karmada-apiserver does not serve %s podgroups (%s), so "
                                  "Karmada cannot apply these members' PodGroups: %s\n",
                                  hub_apis[a].gv, hub_apis[a].whose, names);
    }
    /* one line per missing member API, naming the members */
    for (int api = 0; api < 2; api++) {
        int first = 1;
        for (uint32_t i = 0; i < c->fleet.ncl && l < sizeof c->pre.missing; i++) {
            if (!(api ? c->fleet.cl[i].no_vcjobs : c->fleet.cl[i].no_podgroups))
                continue;
            l += (size_t)snprintf(
                c->pre.missing + l, sizeof c->pre.missing - l, "%s%s",
                !first ? ", "
                : api  ? "members without Volcano Job support (status.apiEnablements lists no "
                         "batch.volcano.sh/v1alpha1 jobs), not given Volcano Jobs: "
                       : "members speaking no gang dialect (status.apiEnablements lists no "
                         "scheduling.volcano.sh/v1beta1, scheduling.x-k8s.io/v1alpha1, "
                         "scheduling.k8s.io/v1beta1 or scheduling.k8s.io/v1alpha2 podgroups, or "
                         "gangDialect none), not given "
                         "gangs that need one: ",
                c->fleet.cl[i].name);
            first = 0;
        }
        if (!first && l < sizeof c->pre.missing)
            l += (size_t)snprintf(c->pre.missing + l, sizeof c->pre.missing - l, "\n");
    }
    /* each line once, when it appears or changes (a line names its members) */
    for (const char *p = c->pre.missing; *p;) {
        size_t n = strcspn(p, "\n");
        int seen = 0;
        for (const char *q = old; *q && !seen;) {
            size_t m = strcspn(q, "\n");
            seen = m == n && memcmp(p, q, n) == 0;
            q += m + (q[m] == '\n');
        }
        if (!seen)
            ctl__logf(c, "running degraded: %.*s", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

enum ctl_hub_api ctl__hub_api_of(enum karmada_gang_dialect d, enum karmada_gang_wl_version v)
{
    switch (d) {
    case KARMADA_GANG_DIALECT_VOLCANO:
        return CTL_HUB_VOLCANO;
    case KARMADA_GANG_DIALECT_COSCHEDULING:
        return CTL_HUB_COSCHEDULING;
    case KARMADA_GANG_DIALECT_WORKLOAD_API:
        return v == KARMADA_GANG_WL_V1ALPHA2 ? CTL_HUB_WL_V1ALPHA2 : CTL_HUB_WL_V1BETA1;
    default:
        return CTL_HUB_APIS;
    }
}

int ctl__hub_serves(const struct ctl *c, enum karmada_gang_dialect d,
                    enum karmada_gang_wl_version v)
{
    enum ctl_hub_api a = ctl__hub_api_of(d, v);
    /* Volcano's is judged for every gang at once (cycle.c: the gang waits saying so), as
     * before dialects existed */
    return a == CTL_HUB_APIS || a == CTL_HUB_VOLCANO || c->pre.hub_api[a] != 0;
}

/* The members whose dialect's PodGroup the hub cannot carry take no gang that needs one
 * (dialects.c), judged again for every member when an answer changes. */
static void members_again(struct ctl *c)
{
    for (uint32_t i = 0; i < c->fleet.ncl; i++)
        ctl__cluster_dialect_apply(c, &c->fleet.cl[i]);
}

static void prereq_answer(int err, const struct kube_response *resp, void *ud)
{
    struct ctl_prereq_ask *ask = ud;
    struct ctl *c = ask->c;
    enum ctl_hub_api a = ask->api;
    c->pre.inflight--;
    c->pre.call[a] = NULL;
    /* counted as an open handle while in flight, so a stopping controller waits for it */
    c->handles_open--;
    if (err == MUSTER_ECANCELED || c->stopping) {
        ctl__stop_maybe_done(c);
        return;
    }
    int was = c->pre.hub_api[a];
    if (err == MUSTER_ENOENT) {
        c->pre.hub_api[a] = 0;
    } else if (err) {
        ctl__logf(c, "checking the hub for %s (%s): %s (checked again in %d s)", hub_apis[a].whose,
                  hub_apis[a].gv,
                  resp->status.message[0] ? resp->status.message : muster_strerror(err),
                  CTL_SWEEP_ORPHANS_MS / 1000);
        return;
    } else {
        json_object *rs = kube_json_get(resp->body, "resources");
        c->pre.hub_api[a] = 0;
        for (size_t i = 0;
             rs && json_object_is_type(rs, json_type_array) && i < json_object_array_length(rs);
             i++) {
            const char *n = kube_json_str(json_object_array_get_idx(rs, i), "name");
            if (n && strcmp(n, "podgroups") == 0)
                c->pre.hub_api[a] = 1;
        }
    }
    if (was != c->pre.hub_api[a]) {
        c->pre.hub_pg = c->pre.hub_api[CTL_HUB_VOLCANO];
        c->fleet.epoch++; /* "no cluster fits" verdicts made without it no longer hold */
        c->cyc.wanted = 1;
        c->cyc.forced = 1;
        if (c->pre.hub_api[a] == 1 && was == 0)
            ctl__logf(c, "the karmada-apiserver serves %s podgroups now", hub_apis[a].gv);
        if (a != CTL_HUB_VOLCANO)
            members_again(c);
        ctl__kick(c);
    }
    ctl__missing_refresh(c);
}

/* Discovery of the gang-object APIs on the karmada-apiserver: a Work's manifest kind must
 * resolve there (Karmada's execution controller maps it with the hub's RESTMapper). Each one
 * not served yet is asked again at every orphan sweep. */
void ctl__prereq_check(struct ctl *c)
{
    if (c->stopping)
        return;
    c->pre.last = now_ms(c);
    for (int a = 0; a < CTL_HUB_APIS; a++) {
        if (c->pre.call[a] || c->pre.hub_api[a] == 1)
            continue;
        c->pre.ask[a] = (struct ctl_prereq_ask){c, (enum ctl_hub_api)a};
        struct kube_request req = {.verb = KUBE_GET, .path = hub_apis[a].path};
        if (kube_request_start(c->kube, &req, prereq_answer, &c->pre.ask[a], &c->pre.call[a]) ==
            0) {
            c->pre.inflight++;
            c->handles_open++;
        }
    }
}
