/* The simulated Karmada control plane (see karmada.h): the shared helpers, the scenario's
 * clusters, and the routing of store events to the controllers in the files beside it. */
#include "cluster-adapters/sim/karmada.h"

#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/rbstatus.h"
#include "cluster-adapters/sim/detector.h"
#include "cluster-adapters/sim/execution.h"
#include "cluster-adapters/sim/binding.h"
#include "cluster-adapters/sim/override.h"
#include "cluster-adapters/sim/taint.h"
#include "cluster-adapters/sim/cluster.h"
#include "cluster-adapters/sim/gracefuleviction.h"

#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/quantity.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/sim/work_webhook.h"
#include "cluster-adapters/kube/errors.h"
#include "cluster-adapters/kube/json.h"
#include "queue/mem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const struct sim_resource *sim__res_of(const char *group, const char *version, const char *plural)
{
    return sim_resource_find(group, strlen(group), version, strlen(version), plural,
                             strlen(plural));
}

time_t sim__clock_now(struct sim_karmada *k)
{
    return k->now ? k->now() : time(NULL);
}

json_object *sim__get_path(json_object *o, const char *a, const char *b, const char *c)
{
    const char *keys[] = {a, b, c};
    return kube_json_pathv(o, keys, 3);
}

const char *sim__get_str(json_object *o, const char *a, const char *b, const char *c)
{
    return kube_json_path_str(o, a, b, c, NULL);
}

/* A new object holding references to o's members: enough to change top-level keys of a
 * stored (read-only) object without copying what stays, since the store copies what it keeps.
 * NULL when o is not an object or memory runs out. */
json_object *sim__shallow_copy(json_object *o)
{
    if (!json_object_is_type(o, json_type_object))
        return NULL;
    json_object *c = json_object_new_object();
    if (!c)
        return NULL;
    json_object_object_foreach(o, key, v)
    {
        json_object_object_add(c, key, json_object_get(v));
    }
    return c;
}

int sim__res_index(struct sim_karmada *k, const char *name, int add)
{
    for (size_t i = 0; i < k->nres; i++)
        if (strcmp(k->res[i], name) == 0)
            return (int)i;
    if (!add || k->nres == MAX_RES)
        return -1;
    k->res[k->nres] = muster_strdup(name);
    if (!k->res[k->nres])
        return -1;
    return (int)k->nres++;
}

/* ---- scenario: clusters and nodes ---- */

/* Karmada's default resource models (the cluster mutating webhook's defaults): nine grades of
 * cpu and memory ranges, the last one unbounded. */
static const char *const default_cpu[] = {"0", "1", "2", "4", "8", "16", "32", "64", "128"};
static const char *const default_mem[] = {"0",     "4Gi",   "16Gi",  "32Gi", "64Gi",
                                          "128Gi", "256Gi", "512Gi", "1Ti"};

static json_object *default_models(void)
{
    json_object *models = json_object_new_array();
    for (int g = 0; g < 9; g++) {
        json_object *m = json_object_new_object();
        json_object_object_add(m, "grade", json_object_new_int(g));
        json_object *ranges = json_object_new_array();
        for (int r = 0; r < 2; r++) {
            const char *const *v = r == 0 ? default_cpu : default_mem;
            json_object *rg = json_object_new_object();
            json_object_object_add(rg, "name", json_object_new_string(r == 0 ? "cpu" : "memory"));
            json_object_object_add(rg, "min", json_object_new_string(v[g]));
            json_object_object_add(
                rg, "max", json_object_new_string(g < 8 ? v[g + 1] : "9223372036854775807"));
            json_object_array_add(ranges, rg);
        }
        json_object_object_add(m, "ranges", ranges);
        json_object_array_add(models, m);
    }
    return models;
}

static int fail(char *err, size_t cap, const char *fmt, const char *a, size_t i, const char *b)
{
    snprintf(err, cap, fmt, a, i, b);
    return MUSTER_EINVAL;
}

static int load_models(struct sim_karmada *k, struct cluster *c, char *err, size_t cap)
{
    size_t ng = json_object_array_length(c->models);
    json_object *first =
        sim__get_path(json_object_array_get_idx(c->models, 0), "ranges", NULL, NULL);
    size_t nr = json_object_is_type(first, json_type_array) ? json_object_array_length(first) : 0;
    if (ng == 0 || nr == 0)
        return 0;
    c->ranges = muster_calloc(ng * nr, sizeof(*c->ranges));
    if (!c->ranges)
        return MUSTER_ENOMEM;
    c->ngrades = ng;
    c->nranges = nr;
    for (size_t g = 0; g < ng; g++) {
        json_object *ranges =
            sim__get_path(json_object_array_get_idx(c->models, g), "ranges", NULL, NULL);
        if (!json_object_is_type(ranges, json_type_array) || json_object_array_length(ranges) != nr)
            return fail(err, cap,
                        "clusters[%s].resourceModels[%zu]%s: every grade needs the same "
                        "ranges",
                        c->name, g, "");
        for (size_t r = 0; r < nr; r++) {
            json_object *rg = json_object_array_get_idx(ranges, r);
            const char *name = sim__get_str(rg, "name", NULL, NULL);
            const char *min = sim__get_str(rg, "min", NULL, NULL);
            int64_t v = 0;
            if (!name || !min || sim_qty_parse(min, &v) < 0)
                return fail(err, cap,
                            "clusters[%s].resourceModels[%zu].ranges: %s needs a name "
                            "and a quantity min",
                            c->name, g, name ? name : "a range");
            c->ranges[g * nr + r].res = sim__res_index(k, name, 0);
            c->ranges[g * nr + r].min = v;
        }
    }
    return 0;
}

static int load_cluster(struct sim_karmada *k, json_object *spec, size_t idx, time_t now, char *err,
                        size_t cap)
{
    struct cluster *c = &k->clusters[idx];
    const char *name = sim__get_str(spec, "name", NULL, NULL);
    if (!name || !name[0] || strlen(name) >= sizeof(c->name))
        return fail(err, cap, "scenario: clusters[%s%zu]%s: name is required (at most 63 chars)",
                    "", idx, "");
    snprintf(c->name, sizeof(c->name), "%s", name);
    json_object *ready = sim__get_path(spec, "ready", NULL, NULL);
    c->ready = ready ? json_object_get_boolean(ready) : 1;
    c->ready_since = now;
    /* A member is a plain Kubernetes cluster: Karmada's own APIs are served only by the
     * karmada-apiserver. Volcano's (its Job and PodGroup CRDs) are there unless the scenario
     * says `volcano: false`. */
    c->api = sim_api_without(
        sim_api_without(sim_api_without(SIM_API_ALL, "cluster.karmada.io", NULL, NULL),
                        "work.karmada.io", NULL, NULL),
        "policy.karmada.io", NULL, NULL);
    json_object *volcano = sim__get_path(spec, "volcano", NULL, NULL);
    if (volcano && !json_object_is_type(volcano, json_type_boolean)) {
        snprintf(err, cap, "scenario: clusters[%s].volcano: true or false", name);
        return MUSTER_EINVAL;
    }
    if (volcano && !json_object_get_boolean(volcano))
        c->api = sim_api_without(sim_api_without(c->api, "batch.volcano.sh", NULL, NULL),
                                 "scheduling.volcano.sh", NULL, NULL);
    /* The gang APIs muster reads on the hub only (coscheduling's CRD, the Workload API's alpha
     * version) are not on a plain member: `withGroups: [scheduling.x-k8s.io, ...]` adds them
     * (every version of each group named), and `coscheduling: true` adds scheduler-plugins'
     * PodGroup CRD with its Coscheduling plugin in the default scheduler. */
    c->api =
        sim_api_without(sim_api_without(sim_api_without(c->api, "scheduling.x-k8s.io", NULL, NULL),
                                        "scheduling.k8s.io", "v1alpha2", NULL),
                        "scheduling.k8s.io", "v1beta1", NULL);
    /* Volcano's HyperNodes (network topology, Volcano v1.12 and later) likewise: `withGroups:
     * [topology.volcano.sh]` adds them */
    c->api = sim_api_without(c->api, "topology.volcano.sh", NULL, NULL);
    json_object *cosched = sim__get_path(spec, "coscheduling", NULL, NULL);
    if (cosched && !json_object_is_type(cosched, json_type_boolean)) {
        snprintf(err, cap, "scenario: clusters[%s].coscheduling: true or false", name);
        return MUSTER_EINVAL;
    }
    if (cosched && json_object_get_boolean(cosched))
        c->api |= SIM_API_ALL & ~sim_api_without(SIM_API_ALL, "scheduling.x-k8s.io", NULL, NULL);
    /* `workloadAPI: true`: the member's API server serves the Workload API as Kubernetes 1.37
     * does (scheduling.k8s.io/v1beta1 podgroups and workloads, the GenericWorkload gate on);
     * `workloadAPI: v1alpha2` as 1.36 did; either way kube-scheduler gangs pods by it
     * (member.c) */
    json_object *wlapi = sim__get_path(spec, "workloadAPI", NULL, NULL);
    const char *wlv = NULL;
    if (json_object_is_type(wlapi, json_type_boolean))
        wlv = json_object_get_boolean(wlapi) ? "v1beta1" : NULL;
    else if (json_object_is_type(wlapi, json_type_string) &&
             (strcmp(json_object_get_string(wlapi), "v1beta1") == 0 ||
              strcmp(json_object_get_string(wlapi), "v1alpha2") == 0))
        wlv = json_object_get_string(wlapi);
    else if (wlapi) {
        snprintf(err, cap, "scenario: clusters[%s].workloadAPI: true, false, v1beta1 or v1alpha2",
                 name);
        return MUSTER_EINVAL;
    }
    if (wlv)
        c->api |= SIM_API_ALL & ~sim_api_without(SIM_API_ALL, "scheduling.k8s.io", wlv, NULL);
    json_object *with = sim__get_path(spec, "withGroups", NULL, NULL);
    if (with && !json_object_is_type(with, json_type_array)) {
        snprintf(err, cap, "scenario: clusters[%s].withGroups: a list of API groups", name);
        return MUSTER_EINVAL;
    }
    for (size_t g = 0; with && g < json_object_array_length(with); g++) {
        json_object *gn = json_object_array_get_idx(with, g);
        if (!json_object_is_type(gn, json_type_string) || !json_object_get_string_len(gn)) {
            snprintf(err, cap, "scenario: clusters[%s].withGroups[%zu]: an API group", name, g);
            return MUSTER_EINVAL;
        }
        c->api |=
            SIM_API_ALL & ~sim_api_without(SIM_API_ALL, json_object_get_string(gn), NULL, NULL);
    }
    /* `withoutGroups: [jobset.x-k8s.io, ...]`: API groups (CRDs) the member does not serve */
    json_object *wg = sim__get_path(spec, "withoutGroups", NULL, NULL);
    if (wg && !json_object_is_type(wg, json_type_array)) {
        snprintf(err, cap, "scenario: clusters[%s].withoutGroups: a list of API groups", name);
        return MUSTER_EINVAL;
    }
    for (size_t g = 0; wg && g < json_object_array_length(wg); g++) {
        json_object *gn = json_object_array_get_idx(wg, g);
        if (!json_object_is_type(gn, json_type_string) || !json_object_get_string_len(gn)) {
            snprintf(err, cap, "scenario: clusters[%s].withoutGroups[%zu]: an API group", name, g);
            return MUSTER_EINVAL;
        }
        c->api = sim_api_without(c->api, json_object_get_string(gn), NULL, NULL);
    }
    json_object *groups = sim__get_path(spec, "nodes", NULL, NULL);
    size_t total = 0;
    for (size_t g = 0;
         json_object_is_type(groups, json_type_array) && g < json_object_array_length(groups);
         g++) {
        json_object *cnt = sim__get_path(json_object_array_get_idx(groups, g), "count", NULL, NULL);
        int64_t n = cnt ? json_object_get_int64(cnt) : 1;
        if (n < 0 || n > 100000)
            return fail(err, cap, "scenario: clusters[%s].nodes[%zu].count%s: must be 0..100000",
                        name, g, "");
        total += (size_t)n;
    }
    c->nodes = muster_calloc(total ? total : 1, sizeof(*c->nodes));
    if (!c->nodes)
        return MUSTER_ENOMEM;
    size_t at = 0;
    for (size_t g = 0;
         json_object_is_type(groups, json_type_array) && g < json_object_array_length(groups);
         g++) {
        json_object *grp = json_object_array_get_idx(groups, g);
        json_object *cnt = sim__get_path(grp, "count", NULL, NULL);
        int64_t n = cnt ? json_object_get_int64(cnt) : 1;
        json_object *alloc = sim__get_path(grp, "allocatable", NULL, NULL);
        if (!json_object_is_type(alloc, json_type_object))
            return fail(err, cap,
                        "scenario: clusters[%s].nodes[%zu].allocatable%s: a map of "
                        "resource quantities is required",
                        name, g, "");
        struct node proto;
        memset(&proto, 0, sizeof(proto));
        json_object_object_foreach(alloc, rname, v)
        {
            int64_t q = 0;
            int i = sim__res_index(k, rname, 1);
            if (i < 0)
                return fail(err, cap,
                            "scenario: clusters[%s].nodes[%zu]: more than 32 resource "
                            "names (%s)",
                            name, g, rname);
            if (sim_qty_parse(json_object_get_string(v), &q) < 0)
                return fail(err, cap,
                            "scenario: clusters[%s].nodes[%zu].allocatable.%s: not a "
                            "quantity",
                            name, g, rname);
            proto.alloc[i] = q;
        }
        for (int64_t j = 0; j < n; j++)
            c->nodes[at++] = proto;
    }
    c->nnodes = total;
    json_object *models = sim__get_path(spec, "resourceModels", NULL, NULL);
    if (models)
        json_object_deep_copy(models, &c->models, NULL);
    else
        c->models = default_models();
    return 0;
}

static int create_object(struct sim_karmada *k, json_object *obj, char *err, size_t cap)
{
    const struct sim_resource *r = sim_resource_by_kind(sim__get_str(obj, "apiVersion", NULL, NULL),
                                                        sim__get_str(obj, "kind", NULL, NULL));
    if (!r) {
        snprintf(err, cap, "scenario: objects: %s %s is not a served kind",
                 sim__get_str(obj, "apiVersion", NULL, NULL)
                     ? sim__get_str(obj, "apiVersion", NULL, NULL)
                     : "?",
                 sim__get_str(obj, "kind", NULL, NULL) ? sim__get_str(obj, "kind", NULL, NULL)
                                                       : "?");
        return MUSTER_EINVAL;
    }
    const char *ns = sim_meta_str(obj, "namespace");
    json_object *st = NULL;
    int rc = sim_store_create(k->store, r, r->namespaced ? (ns ? ns : "default") : NULL, obj,
                              sim__clock_now(k), SIM_WRITE_INTERNAL, NULL, &st);
    if (rc < 0) {
        json_object *m = NULL;
        json_object_object_get_ex(st, "message", &m);
        snprintf(err, cap, "scenario: objects: %s", m ? json_object_get_string(m) : "rejected");
    }
    json_object_put(st);
    return rc == MUSTER_EEXIST ? 0 : rc;
}

void sim__ensure_namespace(struct sim_karmada *k, const char *name)
{
    const struct sim_resource *nsr = sim__res_of("", "v1", "namespaces");
    if (sim_store_get(k->store, nsr, NULL, name, NULL, NULL) == 0)
        return; /* every render asks: spare the refused create and its Status */
    json_object *o = json_object_new_object();
    json_object *m = json_object_new_object();
    json_object_object_add(m, "name", json_object_new_string(name));
    json_object_object_add(o, "metadata", m);
    sim_store_create(k->store, nsr, NULL, o, sim__clock_now(k), SIM_WRITE_INTERNAL, NULL, NULL);
    json_object_put(o);
}

static void create_cluster_object(struct sim_karmada *k, struct cluster *c, json_object *spec)
{
    json_object *o = json_object_new_object();
    json_object *m = json_object_new_object();
    json_object_object_add(m, "name", json_object_new_string(c->name));
    json_object *labels = sim__get_path(spec, "labels", NULL, NULL);
    if (labels) {
        json_object *copy = NULL;
        json_object_deep_copy(labels, &copy, NULL);
        json_object_object_add(m, "labels", copy);
    }
    json_object_object_add(o, "metadata", m);
    json_object *s = json_object_new_object();
    char buf[128], uid[40];
    snprintf(buf, sizeof(buf), "https://%s.member.sim:6443", c->name);
    sim_uuid(uid, sizeof(uid));
    json_object_object_add(s, "id", json_object_new_string(uid));
    json_object_object_add(s, "syncMode", json_object_new_string("Push"));
    json_object_object_add(s, "apiEndpoint", json_object_new_string(buf));
    static const char *const copied[] = {"region", "zone", "provider", "taints"};
    for (size_t i = 0; i < 4; i++) {
        json_object *v = sim__get_path(spec, copied[i], NULL, NULL);
        if (v) {
            json_object *copy = NULL;
            json_object_deep_copy(v, &copy, NULL);
            json_object_object_add(s, copied[i], copy);
        }
    }
    json_object_object_add(s, "resourceModels", json_object_get(c->models));
    json_object_object_add(o, "spec", s);
    sim_store_create(k->store, sim__res_of("cluster.karmada.io", "v1alpha1", "clusters"), NULL, o,
                     sim__clock_now(k), SIM_WRITE_INTERNAL, NULL, NULL);
    json_object_put(o);
    snprintf(buf, sizeof(buf), WORK_NS_PREFIX "%s", c->name);
    sim__ensure_namespace(k, buf);
}

/* ---- event routing ---- */

static int is(const struct sim_resource *r, const char *group, const char *plural)
{
    return strcmp(r->group, group) == 0 && strcmp(r->plural, plural) == 0;
}

/* 1 for a MODIFIED event that changed nothing but status (and the resourceVersion). */
int sim__cluster_listed(json_object *names, const char *cluster)
{
    for (size_t i = 0;
         json_object_is_type(names, json_type_array) && i < json_object_array_length(names); i++) {
        json_object *e = json_object_array_get_idx(names, i);
        const char *n = json_object_is_type(e, json_type_string)
                            ? json_object_get_string(e)
                            : sim__get_str(e, "name", NULL, NULL);
        if (n && strcmp(n, cluster) == 0)
            return 1;
    }
    return 0;
}

int sim__status_only(const struct sim_event *ev)
{
    if (ev->type != SIM_EVENT_MODIFIED || !ev->prev)
        return 0;
    json_object *a = sim__get_path(ev->obj, "spec", NULL, NULL);
    json_object *b = sim__get_path(ev->prev, "spec", NULL, NULL);
    if (!json_object_equal(a, b))
        return 0;
    static const char *const meta[] = {"labels", "annotations", "ownerReferences", "finalizers",
                                       "deletionTimestamp"};
    for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
        if (!json_object_equal(sim__get_path(ev->obj, "metadata", meta[i], NULL),
                               sim__get_path(ev->prev, "metadata", meta[i], NULL)))
            return 0;
    return 1;
}

/* A Work event: the execution controller reconciles spec and deletion changes of the Works of
 * its clusters; the RB status controller re-aggregates the Work's RB when the Work's status
 * changed or it went (workPredicateFn). */
static void on_work(struct sim_karmada *k, const struct sim_event *ev)
{
    sim__index_work(k, ev);
    const char *ns = sim_meta_str(ev->obj, "namespace");
    size_t plen = strlen(WORK_NS_PREFIX);
    struct cluster *c =
        ns && strncmp(ns, WORK_NS_PREFIX, plen) == 0 ? sim__find_cluster(k, ns + plen) : NULL;
    if (c && ev->type != SIM_EVENT_DELETED && !sim__status_only(ev))
        sim__execution_reconcile(k, c, ev->obj);
    int status_changed = ev->type == SIM_EVENT_DELETED ||
                         (ev->type == SIM_EVENT_MODIFIED && ev->prev &&
                          !json_object_equal(sim__get_path(ev->obj, "status", NULL, NULL),
                                             sim__get_path(ev->prev, "status", NULL, NULL)));
    if (status_changed)
        sim__aggregate_binding(
            k,
            sim__get_str(ev->obj, "metadata", "annotations",
                         "resourcebinding.karmada.io/namespace"),
            sim__get_str(ev->obj, "metadata", "annotations", "resourcebinding.karmada.io/name"));
}

static void on_event(void *data, const struct sim_event *ev)
{
    struct sim_karmada *k = data;
    const struct sim_resource *r = ev->res;
    if (sim__is_workload(r)) {
        /* eventfilter.SpecificationChanged: a status write is no reason to apply the policy. */
        if (sim__status_only(ev))
            return;
        if (ev->type == SIM_EVENT_DELETED)
            sim__forget_workload(k, ev->obj);
        else
            sim__detect(k, ev->obj);
    } else if (is(r, "policy.karmada.io", "propagationpolicies")) {
        if (ev->type != SIM_EVENT_DELETED)
            sim__policy_changed(k, ev->obj);
    } else if (is(r, "policy.karmada.io", "overridepolicies")) {
        sim__override_event(k, ev);
    } else if (is(r, "work.karmada.io", "resourcebindings")) {
        sim__graceful_eviction_event(k, ev);
        if (sim__rbstatus_wants(ev))
            sim__aggregate_binding(k, sim_meta_str(ev->obj, "namespace"),
                                   sim_meta_str(ev->obj, "name"));
        if (sim__status_only(ev))
            return; /* aggregatedStatus and muster's conditions change no Work */
        if (ev->type == SIM_EVENT_DELETED) {
            const char *pid = sim__get_str(ev->obj, "metadata", "labels", PERMANENT_ID_LABEL);
            if (pid)
                sim__prune_works(k, pid, NULL);
        } else {
            sim__sync_binding(k, ev->obj);
            sim__taint_check_binding(k, ev->obj);
        }
    } else if (is(r, "cluster.karmada.io", "clusters")) {
        sim__cluster_taint_by_condition(k, ev);
        sim__taint_cluster_changed(k, ev);
    } else if (is(r, "work.karmada.io", "works")) {
        on_work(k, ev);
    }
}

struct admitting {
    struct sim_karmada *k;
    char ns[NAME_MAX_LEN];
    char key[2 * NAME_MAX_LEN + 2];
    /* the template it binds and the policy that claimed it, for a denial's event and retry */
    char api_version[128], kind[64], tname[NAME_MAX_LEN], policy[2 * NAME_MAX_LEN + 2];
};

static struct detect_retry *retry_find(struct sim_karmada *k, const struct admitting *a)
{
    for (size_t i = 0; i < k->nretries; i++) {
        struct detect_retry *r = &k->retries[i];
        if (strcmp(r->ns, a->ns) == 0 && strcmp(r->name, a->tname) == 0 &&
            strcmp(r->kind, a->kind) == 0 && strcmp(r->api_version, a->api_version) == 0)
            return r;
    }
    return NULL;
}

/* The detector's ApplyPolicy failed (pkg/detector/detector.go): a Warning event
 * ApplyPolicyFailed on the template from "resource-detector", and the key requeued with the
 * controller's exponential back-off (5 ms doubling to 1000 s, ratelimiterflag.go), here in
 * whole seconds of the sim's clock: 1 s, 2 s, 4 s, ... 1000 s. */
static void detect_failed(struct sim_karmada *k, const struct admitting *a, const char *message)
{
    time_t now = sim__clock_now(k);
    const struct sim_resource *tr = sim_resource_by_kind(a->api_version, a->kind);
    json_object *tmpl = NULL;
    if (!tr || sim_store_get(k->store, tr, a->ns, a->tname, &tmpl, NULL) < 0)
        return; /* the template is gone: nothing to requeue */
    char ts[40];
    sim_format_time(now, ts, sizeof ts);
    json_object *ev = json_object_new_object(), *md = json_object_new_object(),
                *io = json_object_new_object(), *src = json_object_new_object();
    char gen[NAME_MAX_LEN + 2], msg[1024];
    snprintf(gen, sizeof gen, "%.200s.", a->tname);
    snprintf(msg, sizeof msg, "Apply policy(%s) failed: %s", a->policy, message ? message : "");
    json_object_object_add(md, "generateName", json_object_new_string(gen));
    json_object_object_add(md, "namespace", json_object_new_string(a->ns));
    json_object_object_add(ev, "metadata", md);
    json_object_object_add(io, "apiVersion", json_object_new_string(a->api_version));
    json_object_object_add(io, "kind", json_object_new_string(a->kind));
    json_object_object_add(io, "namespace", json_object_new_string(a->ns));
    json_object_object_add(io, "name", json_object_new_string(a->tname));
    const char *uid = sim_meta_str(tmpl, "uid");
    if (uid)
        json_object_object_add(io, "uid", json_object_new_string(uid));
    json_object_object_add(ev, "involvedObject", io);
    json_object_object_add(ev, "reason", json_object_new_string("ApplyPolicyFailed"));
    json_object_object_add(ev, "message", json_object_new_string(msg));
    json_object_object_add(ev, "type", json_object_new_string("Warning"));
    json_object_object_add(src, "component", json_object_new_string("resource-detector"));
    json_object_object_add(ev, "source", src);
    json_object_object_add(ev, "firstTimestamp", json_object_new_string(ts));
    json_object_object_add(ev, "lastTimestamp", json_object_new_string(ts));
    json_object_object_add(ev, "count", json_object_new_int(1));
    sim_store_create(k->store, sim__res_of("", "v1", "events"), a->ns, ev, now, SIM_WRITE_INTERNAL,
                     NULL, NULL);
    json_object_put(ev);
    json_object_put(tmpl);
    struct detect_retry *r = retry_find(k, a);
    if (!r) {
        if (k->nretries == k->capretries) {
            size_t cap = k->capretries ? k->capretries * 2 : 8;
            struct detect_retry *n = muster_realloc(k->retries, cap * sizeof(*n));
            if (!n)
                return;
            k->retries = n;
            k->capretries = cap;
        }
        r = &k->retries[k->nretries++];
        memset(r, 0, sizeof *r);
        snprintf(r->api_version, sizeof r->api_version, "%s", a->api_version);
        snprintf(r->kind, sizeof r->kind, "%s", a->kind);
        snprintf(r->ns, sizeof r->ns, "%s", a->ns);
        snprintf(r->name, sizeof r->name, "%s", a->tname);
    }
    r->failures++;
    time_t delay = r->failures >= 10 ? 1000 : (time_t)1 << (r->failures - 1);
    r->due = now + (delay > 1000 ? 1000 : delay);
}

void sim__detect_retry_tick(struct sim_karmada *k)
{
    time_t now = sim__clock_now(k);
    for (size_t i = 0; i < k->nretries;) {
        struct detect_retry *r = &k->retries[i];
        if (r->due > now) {
            i++;
            continue;
        }
        const struct sim_resource *tr = sim_resource_by_kind(r->api_version, r->kind);
        json_object *tmpl = NULL;
        if (tr && sim_store_get(k->store, tr, r->ns, r->name, &tmpl, NULL) == 0) {
            r->due = now + 1000; /* until the create's answer: success drops it, a denial
                                    sets the next back-off */
            sim__detect(k, tmpl);
            json_object_put(tmpl);
            i++;
        } else {
            k->retries[i] = k->retries[--k->nretries]; /* the template is gone */
        }
    }
}

static void admitted(void *data, int rc, json_object *obj, const char *message)
{
    struct admitting *a = data;
    struct sim_karmada *k = a->k;
    sim__keyset_remove(&k->admitting, a->key);
    struct detect_retry *r = retry_find(k, a);
    if (rc == 0 && r)
        k->retries[r - k->retries] = k->retries[--k->nretries]; /* bound at last */
    if (rc == 0) {
        json_object *st = NULL;
        if (sim_store_create(k->store,
                             sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings"), a->ns,
                             obj, sim__clock_now(k), SIM_WRITE_INTERNAL, NULL, &st) < 0)
            fprintf(stderr, "muster-sim: detector: %s\n",
                    sim__get_str(st, "message", NULL, NULL)
                        ? sim__get_str(st, "message", NULL, NULL)
                        : "create refused");
        json_object_put(st);
    } else if (rc != MUSTER_ECANCELED) {
        /* The detector's create failed; Karmada requeues it, the sim tries again on the
         * template's next change. */
        fprintf(stderr, "muster-sim: detector: resourcebindings.work.karmada.io \"%s\": %s\n",
                a->key, message ? message : "refused");
        detect_failed(k, a, message);
    }
    muster_free(a);
}

void sim__admit_binding(struct sim_karmada *k, const char *ns, json_object *rb)
{
    const struct sim_resource *rbr = sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    if (k->admit) {
        struct admitting *a = muster_calloc(1, sizeof(*a));
        if (!a)
            return;
        a->k = k;
        snprintf(a->ns, sizeof(a->ns), "%s", ns);
        snprintf(a->key, sizeof(a->key), "%s/%s", ns, sim_meta_str(rb, "name"));
        const char *av = sim__get_str(rb, "spec", "resource", "apiVersion");
        const char *kd = sim__get_str(rb, "spec", "resource", "kind");
        const char *tn = sim__get_str(rb, "spec", "resource", "name");
        const char *pn =
            sim__get_str(rb, "metadata", "annotations", "propagationpolicy.karmada.io/name");
        snprintf(a->api_version, sizeof a->api_version, "%s", av ? av : "");
        snprintf(a->kind, sizeof a->kind, "%s", kd ? kd : "");
        snprintf(a->tname, sizeof a->tname, "%s", tn ? tn : "");
        snprintf(a->policy, sizeof a->policy, "%s/%s", ns, pn ? pn : "");
        if (sim__keyset_has(&k->admitting, a->key)) {
            muster_free(a); /* one create in flight per RB */
            return;
        }
        int rc = k->admit(k->admit_data, ns, rb, admitted, a);
        if (rc == 0) {
            sim__keyset_add(&k->admitting, a->key);
            return;
        }
        muster_free(a);
        if (rc < 0)
            return;
    }
    /* No webhook registered: held, as muster's admission webhook leaves every new RB (the sim
     * stands in for it). */
    json_object *spec = sim__get_path(rb, "spec", NULL, NULL);
    json_object *susp = sim__get_path(spec, "suspension", NULL, NULL);
    if (!susp) {
        susp = json_object_new_object();
        json_object_object_add(spec, "suspension", susp);
    }
    json_object_object_add(susp, "scheduling", json_object_new_boolean(1));
    sim_store_create(k->store, rbr, ns, rb, sim__clock_now(k), SIM_WRITE_INTERNAL | SIM_WRITE_SHARE,
                     NULL, NULL);
}

void sim_karmada_set_binding_admission(struct sim_karmada *k, sim_karmada_admit_fn fn, void *data)
{
    k->admit = fn;
    k->admit_data = data;
}

void sim_karmada_set_hub_hidden(struct sim_karmada *k, sim_api_set hidden)
{
    k->hub_hidden = hidden;
}

void sim_karmada_set_options(struct sim_karmada *k, const struct sim_karmada_options *opts)
{
    k->opts = *opts;
}

void sim_karmada_defer(struct sim_karmada *k, void (*on_dirty)(void *data), void *data)
{
    k->deferred = 1;
    k->on_dirty = on_dirty;
    k->dirty_data = data;
}

int sim_karmada_flush(struct sim_karmada *k)
{
    int synced = 0;
    for (size_t i = 0; i < k->nclusters; i++) {
        if (!k->clusters[i].dirty)
            continue;
        k->clusters[i].dirty = 0;
        sim__cluster_sync(k, &k->clusters[i]);
        synced++;
    }
    return synced;
}

int sim_karmada_new(struct sim_store *store, json_object *scenario, time_t (*now)(void),
                    struct sim_karmada **out, char *err, size_t errcap)
{
    struct sim_karmada *k = muster_calloc(1, sizeof(*k));
    if (!k)
        return MUSTER_ENOMEM;
    k->store = store;
    k->now = now;
    json_object *clusters = sim__get_path(scenario, "clusters", NULL, NULL);
    size_t n =
        json_object_is_type(clusters, json_type_array) ? json_object_array_length(clusters) : 0;
    int rc = 0;
    if (n) {
        k->clusters = muster_calloc(n, sizeof(*k->clusters));
        if (!k->clusters)
            rc = MUSTER_ENOMEM;
        k->nclusters = n;
    }
    time_t t = sim__clock_now(k);
    /* Nodes first, so every resource name is known before models are resolved. */
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = load_cluster(k, json_object_array_get_idx(clusters, i), i, t, err, errcap);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (strcmp(k->clusters[i].name, k->clusters[j].name) == 0) {
                snprintf(err, errcap, "scenario: clusters: %s is listed twice",
                         k->clusters[i].name);
                rc = MUSTER_EINVAL;
            }
        if (rc == 0)
            rc = load_models(k, &k->clusters[i], err, errcap);
    }
    if (rc == 0)
        rc = sim_store_watch(store, sim_store_rv(store), on_event, k, &k->watch, NULL);
    /* The karmada-webhook: every Work written from here on is mutated as Karmada's is. */
    if (rc == 0)
        sim_store_set_admission(store, sim_work_webhook_admit, NULL);
    /* The watch starts now: policies already stored are indexed from the store. */
    if (rc == 0)
        sim_store_each(store, sim__res_of("policy.karmada.io", "v1alpha1", "overridepolicies"),
                       sim__override_seed, k);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        create_cluster_object(k, &k->clusters[i], json_object_array_get_idx(clusters, i));
        sim__cluster_sync(k, &k->clusters[i]);
    }
    json_object *objects = sim__get_path(scenario, "objects", NULL, NULL);
    for (size_t i = 0; rc == 0 && json_object_is_type(objects, json_type_array) &&
                       i < json_object_array_length(objects);
         i++)
        rc = create_object(k, json_object_array_get_idx(objects, i), err, errcap);
    if (rc < 0) {
        sim_karmada_free(k);
        return rc;
    }
    *out = k;
    return 0;
}

void sim_karmada_free(struct sim_karmada *k)
{
    if (!k)
        return;
    sim_store_unwatch(k->store, k->watch);
    sim_store_set_admission(k->store, NULL, NULL);
    json_object_put(k->kind19_scratch);
    for (size_t i = 0; i < k->nclusters; i++) {
        muster_free(k->clusters[i].nodes);
        muster_free(k->clusters[i].ranges);
        json_object_put(k->clusters[i].models);
        for (size_t w = 0; w < k->clusters[i].nworks; w++)
            sim__mwork_free(k->clusters[i].works[w]);
        muster_free(k->clusters[i].works);
        muster_free(k->clusters[i].pgs);
        muster_free(k->clusters[i].pending);
        muster_free(k->clusters[i].touched);
        sim__deps_reset(&k->clusters[i]);
        muster_free(k->clusters[i].deps);
        muster_free(k->clusters[i].members);
    }
    muster_free(k->clusters);
    for (size_t i = 0; i < k->nrefs; i++) {
        muster_free(k->refs[i].pid);
        muster_free(k->refs[i].key);
    }
    muster_free(k->refs);
    sim__override_free(k);
    sim__keyset_free(&k->admitting);
    muster_free(k->retries);
    for (size_t i = 0; i < k->nres; i++)
        muster_free(k->res[i]);
    muster_free(k);
}
