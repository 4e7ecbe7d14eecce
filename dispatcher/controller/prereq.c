/* Hub prerequisites (docs/operations.md): the PodGroup CRD served by the karmada-apiserver,
 * for /readyz and the log. */
#include "dispatcher/controller/ctl_int.h"

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

static void prereq_answer(int err, const struct kube_response *resp, void *ud)
{
    struct ctl *c = ud;
    c->pre.inflight = 0;
    c->pre.call = NULL;
    /* counted as an open handle while in flight, so a stopping controller waits for it */
    c->handles_open--;
    if (err == MUSTER_ECANCELED || c->stopping) {
        ctl__stop_maybe_done(c);
        return;
    }
    int was = c->pre.hub_pg;
    if (err == MUSTER_ENOENT) {
        c->pre.hub_pg = 0;
    } else if (err) {
        ctl__logf(c, "checking the hub for the PodGroup CRD: %s (checked again in %d s)",
                  resp->status.message[0] ? resp->status.message : muster_strerror(err),
                  CTL_SWEEP_ORPHANS_MS / 1000);
        return;
    } else {
        json_object *rs = kube_json_get(resp->body, "resources");
        c->pre.hub_pg = 0;
        for (size_t i = 0;
             rs && json_object_is_type(rs, json_type_array) && i < json_object_array_length(rs);
             i++) {
            const char *n = kube_json_str(json_object_array_get_idx(rs, i), "name");
            if (n && strcmp(n, "podgroups") == 0)
                c->pre.hub_pg = 1;
        }
    }
    if (was != c->pre.hub_pg) {
        c->fleet.epoch++; /* "no cluster fits" verdicts made without it no longer hold */
        c->cyc.wanted = 1;
        c->cyc.forced = 1;
        if (c->pre.hub_pg == 1 && was == 0)
            ctl__logf(c,
                      "the karmada-apiserver serves scheduling.volcano.sh/v1beta1 podgroups now");
        ctl__kick(c);
    }
    ctl__missing_refresh(c);
}

/* Discovery of the PodGroup CRD on the karmada-apiserver: a Work's manifest kind must resolve
 * there (Karmada's execution controller maps it with the hub's RESTMapper). */
void ctl__prereq_check(struct ctl *c)
{
    if (c->pre.inflight || c->pre.hub_pg == 1 || c->stopping)
        return;
    c->pre.last = now_ms(c);
    struct kube_request req = {.verb = KUBE_GET, .path = "/apis/scheduling.volcano.sh/v1beta1"};
    if (kube_request_start(c->kube, &req, prereq_answer, c, &c->pre.call) == 0) {
        c->pre.inflight = 1;
        c->handles_open++;
    }
}
