/* The PodGroups on the hub that workloads' pods name (issue 19, docs/workload.md "Gang
 * dialects"): the workload reader looks them up in optional informers (Volcano's,
 * coscheduling's and the Workload API's PodGroups, the last at v1beta1 and at v1alpha2, of which
 * a hub serves one), and a PodGroup's add, change or delete
 * re-reads the bindings whose last read asked for it, as a template's change does. The index
 * maps "dialect/ns/name" to the bindings that asked; a binding asks for at most one. A
 * TrainJob's runtime (TrainingRuntime, ClusterTrainingRuntime) is looked up and indexed the same
 * way, under "rt/ns/name" and "crt//name". */
#include "dispatcher/controller/ctl_int.h"

#include "cluster-adapters/karmada/workload_groups.h"

#include "queue/hash.h"

struct ctl_hubpg_ent {
    struct ctl_hubpg_ent *next;
    struct binding *b;
    char key[]; /* "d/ns/name" */
};

static int watch_of(enum karmada_workload_dialect d)
{
    return d == KARMADA_WORKLOAD_DIALECT_VOLCANO        ? CTL_W_VCPODGROUPS
           : d == KARMADA_WORKLOAD_DIALECT_COSCHEDULING ? CTL_W_COSCHEDPODGROUPS
           : d == KARMADA_WORKLOAD_DIALECT_WORKLOAD_API ? CTL_W_WLPODGROUPS
                                                        : -1;
}

static json_object *lookup(void *ud, enum karmada_workload_dialect d, const char *ns,
                           const char *name, int *served)
{
    struct ctl *c = ud;
    int id = watch_of(d);
    *served = 0;
    if (id < 0)
        return NULL;
    /* The Workload API: 1.37's v1beta1 when the hub serves it, else 1.36's v1alpha2 (1.37
     * removed it); the spec muster reads is the same in both. */
    if (id == CTL_W_WLPODGROUPS && !c->watch.tags[CTL_W_WLPODGROUPS_V1BETA1].absent)
        id = CTL_W_WLPODGROUPS_V1BETA1;
    snprintf(c->hubpg.asked, sizeof c->hubpg.asked, "%d/%s/%s", (int)d, ns, name);
    /* a hub without the CRD (the informer's list answered 404) serves none of that kind */
    *served = !c->watch.tags[id].absent;
    return kube_informer_get((struct kube_informer *)((char *)c + ctl__watches[id].informer), ns,
                             name);
}

/* A TrainJob's runtime, asked for under "rt/ns/name" (a TrainingRuntime) or "crt//name" (a
 * ClusterTrainingRuntime); a TrainJob reads no pod dialect, so it asks for nothing else. */
static json_object *lookup_runtime(void *ud, int cluster_scoped, const char *ns, const char *name,
                                   int *served)
{
    struct ctl *c = ud;
    int id = cluster_scoped ? CTL_W_CLUSTERTRAININGRUNTIMES : CTL_W_TRAININGRUNTIMES;
    snprintf(c->hubpg.asked, sizeof c->hubpg.asked, "%s/%s/%s", cluster_scoped ? "crt" : "rt",
             cluster_scoped || !ns ? "" : ns, name);
    *served = !c->watch.tags[id].absent;
    return kube_informer_get((struct kube_informer *)((char *)c + ctl__watches[id].informer),
                             cluster_scoped ? NULL : ns, name);
}

int ctl__workload_read(struct ctl *c, json_object *rb, json_object *tmpl)
{
    char own[KARMADA_GANG_NAME_MAX + 1];
    const char *rbname = kube_json_path_str(rb, "metadata", "name", NULL);
    /* muster makes that PodGroup only for the RBs it places (assign mode) */
    const char *sn = kube_json_path_str(rb, "spec", "schedulerName", NULL);
    if (!sn || strcmp(sn, c->scheduler) != 0)
        rbname = NULL;
    const struct karmada_workload_hub hub = {
        lookup, c, lookup_runtime,
        rbname && karmada_gang_podgroup_name(rbname, own, sizeof own) == 0 ? own : NULL};
    c->hubpg.asked[0] = '\0';
    return karmada_workload_read_hub(&c->w, c->names, rb, tmpl, &hub);
}

static size_t bucket(const struct ctl *c, const char *key)
{
    return queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, key) & (CTL_HUBPG_BUCKETS - 1);
}

void ctl__hubpg_forget(struct ctl *c, struct binding *b)
{
    struct ctl_hubpg_ent *e = ctl__act(b)->hubpg;
    if (!e)
        return;
    struct ctl_hubpg_ent **p = &c->hubpg.v[bucket(c, e->key)];
    while (*p && *p != e)
        p = &(*p)->next;
    if (*p)
        *p = e->next;
    muster_free(e);
    b->act->hubpg = NULL;
}

void ctl__hubpg_note(struct ctl *c, struct binding *b)
{
    const char *key = c->hubpg.asked;
    const struct ctl_hubpg_ent *was = ctl__act(b)->hubpg;
    if (was && strcmp(was->key, key) == 0)
        return;
    ctl__hubpg_forget(c, b);
    if (!key[0])
        return;
    if (!c->hubpg.v) {
        c->hubpg.v = muster_calloc(CTL_HUBPG_BUCKETS, sizeof(*c->hubpg.v));
        if (!c->hubpg.v)
            return; /* out of memory: re-read on its RB's or template's next change only */
    }
    size_t n = strlen(key);
    struct ctl_hubpg_ent *e = muster_malloc(sizeof(*e) + n + 1);
    if (!e)
        return;
    memcpy(e->key, key, n + 1);
    e->b = b;
    size_t h = bucket(c, key);
    e->next = c->hubpg.v[h];
    c->hubpg.v[h] = e;
    ctl__act_w(c, b)->hubpg = e;
}

/* Re-reads the bindings indexed under key. */
static void reread(struct ctl *c, const char *key)
{
    /* collected first: a re-read notes its binding again, which may change the chain */
    size_t n = 0;
    for (struct ctl_hubpg_ent *e = c->hubpg.v[bucket(c, key)]; e; e = e->next)
        n += strcmp(e->key, key) == 0;
    if (!n)
        return;
    struct binding **bs = muster_malloc(n * sizeof(*bs));
    if (!bs) {
        ctl__fatal(c, "out of memory");
        return;
    }
    size_t i = 0;
    for (struct ctl_hubpg_ent *e = c->hubpg.v[bucket(c, key)]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            bs[i++] = e->b;
    for (i = 0; i < n; i++)
        ctl__binding_react(c, bs[i], 1);
    muster_free(bs);
}

void ctl__hubpg_changed(struct ctl *c, enum karmada_workload_dialect d, json_object *pg)
{
    if (!c->hubpg.v || !ctl__leads(c) || !c->reconciled || c->stopping)
        return;
    json_object *md = kube_json_get(pg, "metadata");
    const char *ns = kube_json_str(md, "namespace"), *name = kube_json_str(md, "name");
    char key[sizeof c->hubpg.asked];
    snprintf(key, sizeof key, "%d/%s/%s", (int)d, ns ? ns : "", name ? name : "");
    reread(c, key);
}

void ctl__hubrt_changed(struct ctl *c, int cluster_scoped, json_object *rt)
{
    if (!c->hubpg.v || !ctl__leads(c) || !c->reconciled || c->stopping)
        return;
    json_object *md = kube_json_get(rt, "metadata");
    const char *ns = kube_json_str(md, "namespace"), *name = kube_json_str(md, "name");
    char key[sizeof c->hubpg.asked];
    snprintf(key, sizeof key, "%s/%s/%s", cluster_scoped ? "crt" : "rt",
             cluster_scoped || !ns ? "" : ns, name ? name : "");
    reread(c, key);
}

/* ---- the Workload API's Workloads (issue 20) ---- */

/* The JobSet a Workload's spec.controllerRef names (KEP-5547 finds a Job's Workload the same
 * way), or NULL: the only kind whose tree a Workload structures (workload_groups.c). */
static const char *wl_jobset(json_object *wl)
{
    json_object *ref = kube_json_path(wl, "spec", "controllerRef", NULL);
    const char *g = kube_json_str(ref, "apiGroup"), *k = kube_json_str(ref, "kind");
    return g && k && strcmp(g, "jobset.x-k8s.io") == 0 && strcmp(k, "JobSet") == 0
               ? kube_json_str(ref, "name")
               : NULL;
}

struct wl_scan {
    const char *ns, *name;
    json_object *first;
    uint32_t found;
};

static void wl_scan_one(void *ud, json_object *wl)
{
    struct wl_scan *s = ud;
    const char *ns = kube_json_path_str(wl, "metadata", "namespace", NULL);
    const char *jn = wl_jobset(wl);
    if (!jn || !ns || strcmp(ns, s->ns) != 0 || strcmp(jn, s->name) != 0)
        return;
    /* of several (refused as ambiguous), the first by name, so the message does not change */
    const char *a = kube_json_path_str(wl, "metadata", "name", NULL);
    const char *b = kube_json_path_str(s->first, "metadata", "name", NULL);
    if (!s->first || (a && b && strcmp(a, b) < 0))
        s->first = wl;
    s->found++;
}

int ctl__groups_read(struct ctl *c, struct binding *b, const struct karmada_workload *w,
                     json_object *rb, struct karmada_groups_error *err)
{
    if (!karmada_workload_groups_wants_wl(w, b->tmpl))
        return karmada_workload_groups_read(&b->tree, err, c->names, w, rb, b->tmpl);
    /* 1.37's v1beta1 when the hub serves it, else 1.36's v1alpha2: the spec.podGroupTemplates
     * muster reads are the same in both (a hub serves one, as for PodGroups) */
    int id =
        c->watch.tags[CTL_W_WORKLOADS_V1BETA1].absent ? CTL_W_WORKLOADS : CTL_W_WORKLOADS_V1BETA1;
    const char *ns = kube_json_path_str(b->tmpl, "metadata", "namespace", NULL);
    const char *name = kube_json_path_str(b->tmpl, "metadata", "name", NULL);
    struct wl_scan s = {ns ? ns : "", name ? name : "", NULL, 0};
    struct karmada_groups_wl wl = {.served = !c->watch.tags[id].absent,
                                   .version = id == CTL_W_WORKLOADS ? "scheduling.k8s.io/v1alpha2"
                                                                    : "scheduling.k8s.io/v1beta1"};
    if (wl.served)
        kube_informer_foreach((struct kube_informer *)((char *)c + ctl__watches[id].informer),
                              wl_scan_one, &s);
    wl.workload = s.first;
    wl.found = s.found;
    /* a JobSet's read asks for no PodGroup, so the slot is free; were it taken, the PodGroup's
     * own re-read stays */
    if (!ctl__act(b)->hubpg || !ctl__act(b)->hubpg->key[0]) {
        snprintf(c->hubpg.asked, sizeof c->hubpg.asked, "wl/%s/%s", s.ns, s.name);
        ctl__hubpg_note(c, b);
    }
    return karmada_workload_groups_read_wl(&b->tree, err, c->names, w, rb, b->tmpl, &wl);
}

void ctl__hubwl_changed(struct ctl *c, json_object *wl)
{
    if (!c->hubpg.v || !ctl__leads(c) || !c->reconciled || c->stopping)
        return;
    const char *ns = kube_json_path_str(wl, "metadata", "namespace", NULL);
    const char *jn = wl_jobset(wl);
    if (!jn)
        return;
    char key[sizeof c->hubpg.asked];
    snprintf(key, sizeof key, "wl/%s/%s", ns ? ns : "", jn);
    reread(c, key);
}

void ctl__hubpg_close(struct ctl *c)
{
    for (size_t i = 0; c->hubpg.v && i < CTL_HUBPG_BUCKETS; i++)
        for (struct ctl_hubpg_ent *e = c->hubpg.v[i], *nx; e; e = nx) {
            nx = e->next;
            muster_free(e);
        }
    muster_free(c->hubpg.v);
    c->hubpg.v = NULL;
}
