/* The simulated Karmada control plane (see karmada.h): clusters and their status, the
 * detector and the binding controller, all driven by store events. */
#include "cluster-adapters/sim/karmada.h"

#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/quantity.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define PERMANENT_ID_LABEL "resourcebinding.karmada.io/permanent-id"
#define WORK_NS_PREFIX "karmada-es-"
#define MAX_RES 32 /* distinct resource names across a scenario's nodes */
#define NAME_MAX_LEN 254

struct node {
    int64_t alloc[MAX_RES];
    int64_t used[MAX_RES];
};

struct grade_range {
    int res;     /* index into k->res, or -1 for a resource no node has */
    int64_t min; /* milli */
};

struct mwork;
struct pgref;

struct cluster {
    char name[64];
    int ready;
    int dirty; /* deferred mode: a sync is due */
    time_t ready_since;
    struct node *nodes;
    size_t nnodes;
    json_object *models; /* spec.resourceModels as served */
    /* models as numbers: grades x ranges */
    size_t ngrades, nranges;
    struct grade_range *ranges; /* ngrades * nranges */
    /* The member's mirror of karmada-es-<name>, kept from Work events so that a sync walks C
     * structs instead of JSON and places only the shares that are not running yet: the Works by
     * name, the PodGroups of dispatched Works by name (duplicates kept), and the RBs muster
     * gangs here (sorted, one entry per muster PodGroup Work, dispatched or not). */
    struct mwork **works;
    size_t nworks, capworks;
    struct pgref *pgs;
    size_t npgs, cappgs;
    const char **gangs;
    size_t ngangs, capgangs;
    /* The nodes hold exactly the running shares (and those started since), placed in start
     * order. Set when that no longer holds (a running share changed, left or finished; a
     * PodGroup or gang it depends on changed; readiness changed): the next sync places every
     * running share again from empty nodes. */
    int full;
    int64_t alloc_run[MAX_RES]; /* the Pending pods of the shares the nodes hold */
    /* What a sync looks at, so it costs what changed rather than the cluster's size: the shares
     * of dispatched Works not running yet, in Work order (placed on every sync), and the Works
     * changed since the last sync (reported when their state moved). */
    struct pend *pending;
    size_t npending, cappending;
    struct mwork **touched;
    size_t ntouched, captouched;
    int timed; /* some share has a scripted duration: syncs look for finished ones */
    /* What the running shares depend on, counted: "g<SEP>PodGroup" for a share naming a
     * PodGroup, "r<SEP>ns/name" for a share of an RB that muster's gang marker gates. A change
     * to one of these that a running share depends on forces a full placement. */
    struct dep *deps;
    size_t ndeps, capdeps;
    /* The shares of dispatched Works that name a PodGroup, by the group's name: a PodGroup's
     * report reads its members without walking the cluster. */
    struct pend *members;
    size_t nmembers, capmembers;
};

struct dep {
    char *key;
    size_t n;
};

struct pend {
    struct mwork *mw;
    size_t unit; /* index into mw->units */
};

/* A sorted set of strings, walked by prefix. */
struct keyset {
    char **v;
    size_t n, cap;
};

#define OP_SEP "\x1f"

struct pid_ref {
    char *pid;
    char *key; /* "namespace/name" of a Work carrying the pid label */
};

/* A workload share running (or waiting) on a member: one workload manifest of one Work. Kept
 * with the Work's mirror across syncs so running shares keep their nodes and scripted durations
 * can elapse. */
struct share {
    time_t started;   /* 0: not running yet */
    uint64_t seq;     /* start order, the tie-break among shares started in the same second */
    int64_t duration; /* scripted run time in seconds; 0: until removed */
    int finished;
    /* What was last reported, so a sync writes only what changed. */
    int reported;
    int64_t reported_running, reported_desired;
    int reported_finished;
    /* Per-pod requests (npods x MAX_RES), parsed once per Work generation. */
    int64_t gen;
    int64_t *reqs;
    int64_t npods;
};

struct sim_karmada {
    struct sim_store *store;
    struct sim_store_watch *watch;
    time_t (*now)(void);
    char *res[MAX_RES];
    size_t nres;
    struct cluster *clusters;
    size_t nclusters;
    uint64_t start_seq;           /* shares started so far, fleet-wide */
    int deferred;                 /* cluster syncs wait for sim_karmada_flush */
    void (*on_dirty)(void *data); /* deferred mode: told when a cluster is first marked */
    void *dirty_data;
    /* Works by RB permanent id, sorted by (pid, "namespace/name"): pruning on every RB sync
     * must not scan every Work of the fleet. */
    struct pid_ref *refs;
    size_t nrefs, caprefs;
    /* OverridePolicies by what they may select, so rendering a Work reads only the policies
     * that can apply to its template, not every policy of the namespace. Keys (fields joined
     * by OP_SEP, which no Kubernetes name contains): named "ns, apiVersion, kind, template,
     * policy" for a selector naming its template; wild "ns, policy" for a policy that may
     * select templates by other means (a selector without a name, or no selectors at all). */
    struct keyset op_named, op_wild;
};

static const struct sim_resource *res_of(const char *group, const char *version, const char *plural)
{
    return sim_resource_find(group, strlen(group), version, strlen(version), plural,
                             strlen(plural));
}

static time_t clock_now(struct sim_karmada *k)
{
    return k->now ? k->now() : time(NULL);
}

static json_object *get_path(json_object *o, const char *a, const char *b, const char *c)
{
    json_object *v = o;
    const char *keys[] = {a, b, c};
    for (int i = 0; i < 3 && keys[i] && v; i++) {
        json_object *n = NULL;
        if (!json_object_is_type(v, json_type_object) || !json_object_object_get_ex(v, keys[i], &n))
            return NULL;
        v = n;
    }
    return v;
}

static const char *get_str(json_object *o, const char *a, const char *b, const char *c)
{
    json_object *v = get_path(o, a, b, c);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A new object holding references to o's members: enough to change top-level keys of a
 * stored (read-only) object without copying what stays, since the store copies what it keeps.
 * NULL when o is not an object or memory runs out. */
static json_object *shallow_copy(json_object *o)
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

static int res_index(struct sim_karmada *k, const char *name, int add)
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

/* ---- pod requests and the Volcano Job interpreter ---- */

static void add_requests(json_object *sum, json_object *reqs, int take_max)
{
    json_object_object_foreach(reqs, name, v)
    {
        int64_t add = 0, have = 0;
        if (sim_qty_parse(json_object_get_string(v), &add) < 0)
            continue;
        json_object *cur = NULL;
        if (json_object_object_get_ex(sum, name, &cur))
            sim_qty_parse(json_object_get_string(cur), &have);
        int64_t next = take_max ? (add > have ? add : have) : have + add;
        char buf[40];
        sim_qty_format(next, buf, sizeof(buf));
        json_object_object_add(sum, name, json_object_new_string(buf));
    }
}

/* A container's requests; with limits_default, a resource it only limits counts at its limit,
 * as the member's API server defaults a missing request when it admits the pod. NULL when it
 * names none. New reference. */
static json_object *container_requests(json_object *ct, int limits_default)
{
    json_object *reqs = get_path(ct, "resources", "requests", NULL);
    json_object *lims = limits_default ? get_path(ct, "resources", "limits", NULL) : NULL;
    if (!json_object_is_type(lims, json_type_object) || !json_object_object_length(lims))
        return json_object_is_type(reqs, json_type_object) ? json_object_get(reqs) : NULL;
    json_object *out = NULL;
    if (json_object_is_type(reqs, json_type_object))
        json_object_deep_copy(reqs, &out, NULL);
    else
        out = json_object_new_object();
    json_object_object_foreach(lims, name, v)
    {
        if (!json_object_object_get_ex(out, name, NULL))
            json_object_object_add(out, name, json_object_get(v));
    }
    return out;
}

static json_object *pod_requests(json_object *pod_spec, int limits_default)
{
    json_object *sum = json_object_new_object();
    json_object *containers = get_path(pod_spec, "containers", NULL, NULL);
    size_t n =
        json_object_is_type(containers, json_type_array) ? json_object_array_length(containers) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *reqs =
            container_requests(json_object_array_get_idx(containers, i), limits_default);
        if (reqs && n == 1) {
            json_object_put(sum);
            sum = NULL;
            json_object_deep_copy(reqs, &sum, NULL);
        } else if (reqs) {
            add_requests(sum, reqs, 0);
        }
        json_object_put(reqs);
    }
    json_object *inits = get_path(pod_spec, "initContainers", NULL, NULL);
    for (size_t i = 0;
         json_object_is_type(inits, json_type_array) && i < json_object_array_length(inits); i++) {
        json_object *reqs =
            container_requests(json_object_array_get_idx(inits, i), limits_default);
        if (reqs)
            add_requests(sum, reqs, 1);
        json_object_put(reqs);
    }
    return sum;
}

json_object *sim_karmada_pod_requests(json_object *pod_spec)
{
    return pod_requests(pod_spec, 0);
}

json_object *sim_karmada_pod_effective_requests(json_object *pod_spec)
{
    return pod_requests(pod_spec, 1);
}

json_object *sim_karmada_vcjob_components(json_object *job)
{
    json_object *out = json_object_new_array();
    json_object *tasks = get_path(job, "spec", "tasks", NULL);
    for (size_t i = 0;
         json_object_is_type(tasks, json_type_array) && i < json_object_array_length(tasks); i++) {
        json_object *t = json_object_array_get_idx(tasks, i);
        json_object *c = json_object_new_object();
        const char *name = get_str(t, "name", NULL, NULL);
        char fallback[32];
        snprintf(fallback, sizeof(fallback), "task-%zu", i);
        json_object_object_add(c, "name", json_object_new_string(name ? name : fallback));
        json_object *min = get_path(t, "minAvailable", NULL, NULL);
        json_object_object_add(c, "replicas",
                               json_object_new_int(min ? json_object_get_int(min) : 1));
        json_object *rr = json_object_new_object();
        json_object_object_add(rr, "resourceRequest",
                               sim_karmada_pod_requests(get_path(t, "template", "spec", NULL)));
        json_object_object_add(c, "replicaRequirements", rr);
        json_object_array_add(out, c);
    }
    return out;
}

/* The pod templates a workload runs: (replicas, pod spec) pairs; returns how many (<= max). */
struct pod_set {
    int64_t replicas;
    json_object *spec;
};

static size_t workload_pods(json_object *obj, struct pod_set *out, size_t max)
{
    const char *av = get_str(obj, "apiVersion", NULL, NULL);
    const char *kind = get_str(obj, "kind", NULL, NULL);
    if (!av || !kind)
        return 0;
    json_object *v;
    if (strcmp(av, "apps/v1") == 0 && strcmp(kind, "Deployment") == 0) {
        v = get_path(obj, "spec", "replicas", NULL);
        out[0].replicas = v ? json_object_get_int64(v) : 1;
        out[0].spec = get_path(obj, "spec", "template", "spec");
        return 1;
    }
    if (strcmp(av, "batch/v1") == 0 && strcmp(kind, "Job") == 0) {
        v = get_path(obj, "spec", "parallelism", NULL);
        out[0].replicas = v ? json_object_get_int64(v) : 1;
        out[0].spec = get_path(obj, "spec", "template", "spec");
        return 1;
    }
    if (strcmp(av, "v1") == 0 && strcmp(kind, "Pod") == 0) {
        out[0].replicas = 1;
        out[0].spec = get_path(obj, "spec", NULL, NULL);
        return 1;
    }
    if (strcmp(av, "batch.volcano.sh/v1alpha1") == 0 && strcmp(kind, "Job") == 0) {
        json_object *tasks = get_path(obj, "spec", "tasks", NULL);
        size_t n = 0;
        for (size_t i = 0; json_object_is_type(tasks, json_type_array) &&
                           i < json_object_array_length(tasks) && n < max;
             i++) {
            json_object *t = json_object_array_get_idx(tasks, i);
            v = get_path(t, "replicas", NULL, NULL);
            out[n].replicas = v ? json_object_get_int64(v) : 1;
            out[n].spec = get_path(t, "template", "spec", NULL);
            n++;
        }
        return n;
    }
    return 0;
}

static int is_workload(const struct sim_resource *r)
{
    return (strcmp(r->group, "apps") == 0 && strcmp(r->plural, "deployments") == 0) ||
           (strcmp(r->group, "batch") == 0 && strcmp(r->plural, "jobs") == 0) ||
           (strcmp(r->group, "batch.volcano.sh") == 0 && strcmp(r->plural, "jobs") == 0) ||
           (r->group[0] == '\0' && strcmp(r->plural, "pods") == 0);
}

/* ---- cluster status ---- */

static struct cluster *find_cluster(struct sim_karmada *k, const char *name)
{
    for (size_t i = 0; i < k->nclusters; i++)
        if (strcmp(k->clusters[i].name, name) == 0)
            return &k->clusters[i];
    return NULL;
}

/* Places one pod of per-pod requests req first-fit on c's nodes; returns its node's index, or
 * c->nnodes when it fits nowhere (Pending, which Karmada counts as "allocating"). */
static size_t place_one(struct sim_karmada *k, struct cluster *c, const int64_t *req)
{
    size_t n;
    for (n = 0; n < c->nnodes; n++) {
        struct node *nd = &c->nodes[n];
        int fits = 1;
        for (size_t i = 0; i < k->nres && fits; i++)
            fits = nd->used[i] + req[i] <= nd->alloc[i];
        if (fits) {
            for (size_t i = 0; i < k->nres; i++)
                nd->used[i] += req[i];
            break;
        }
    }
    return n;
}

/* ---- member clusters: shares, gangs, durations, reported status ---- */

#define DURATION_ANNOTATION "sim.muster.io/duration"
#define GROUP_ANNOTATION "scheduling.k8s.io/group-name"
/* muster's PodGroup Works (dispatcher/gangobj.h): the RB they gang, "namespace/name" */
#define MANAGED_BY_LABEL "app.kubernetes.io/managed-by"
#define MANAGED_BY_MUSTER "muster"
#define GANG_BINDING_ANNOTATION "scheduling.muster.io/binding"
#define MAX_PODS 100000 /* per share: more than any scenario asks for */

static void work_name(json_object *rb, char *buf, size_t cap);
static void cluster_sync(struct sim_karmada *k, struct cluster *c);

/* "90", "90s", "5m", "2h" in seconds; 0 when absent or malformed (runs forever). */
static int64_t parse_duration(const char *s)
{
    if (!s || !*s)
        return 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (v <= 0)
        return 0;
    if (!*end || strcmp(end, "s") == 0)
        return v;
    if (strcmp(end, "m") == 0)
        return v * 60;
    if (strcmp(end, "h") == 0)
        return v * 3600;
    return 0;
}

static json_object *pod_template_meta(json_object *obj)
{
    const char *kind = get_str(obj, "kind", NULL, NULL);
    if (kind && strcmp(kind, "Pod") == 0)
        return get_path(obj, "metadata", NULL, NULL);
    return get_path(obj, "spec", "template", "metadata");
}

/* One workload manifest of a Work, as the member runs it. */
struct unit {
    struct mwork *mw;
    size_t manifest;
    json_object *obj;    /* the manifest, borrowed from mw->obj */
    struct share *share; /* &mw->shares[manifest] */
    int64_t desired;     /* pods asked for */
    int64_t vc_min;      /* a Volcano Job's own gang (minAvailable, else every pod); -1: none */
    const char *group;   /* the PodGroup its pods name, or NULL */
    int64_t duration;    /* scripted, from the manifest's annotation */
    /* Decided when placed. */
    int64_t running, gang;
    int waiting_for_group; /* names a PodGroup that does not exist in the cluster */
    int in_run;            /* the nodes hold its pods as a running share */
    int changed;           /* differs from what was last reported */
};

/* A Work of a member's namespace: what the sync needs of it, read once per change. */
struct mwork {
    char *name;
    json_object *obj;   /* the Work as last changed other than by a status write */
    int dispatched;     /* spec.suspendDispatching is not true */
    int has_status;     /* the current Work has a status */
    int pg_touched;     /* one of its PodGroups' member shares changed in this sync */
    int touched;        /* listed in the cluster's touched Works */
    const char *marker; /* a muster PodGroup Work: the RB it gangs ("ns/name"), from obj */
    char *rb;           /* "namespace/name" of the Work's RB (its annotations), or NULL */
    int64_t gen;
    struct unit *units;
    size_t nunits;
    struct share *shares; /* by manifest index, kept across updates of the Work */
    size_t nshares;
};

struct pgref {
    const char *name; /* borrowed from mw->obj */
    int64_t min_member;
    struct mwork *mw;
};

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Index of the first PodGroup named >= name. */
static size_t pgs_lower_bound(const struct cluster *c, const char *name)
{
    size_t lo = 0, hi = c->npgs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->pgs[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const struct pgref *pgs_find(const struct cluster *c, const char *name)
{
    size_t i = pgs_lower_bound(c, name);
    return i < c->npgs && strcmp(c->pgs[i].name, name) == 0 ? &c->pgs[i] : NULL;
}

static int pgs_add(struct cluster *c, const char *name, int64_t min, struct mwork *mw)
{
    if (c->npgs == c->cappgs) {
        size_t cap = c->cappgs ? c->cappgs * 2 : 16;
        struct pgref *v = muster_realloc(c->pgs, cap * sizeof(*v));
        if (!v)
            return MUSTER_ENOMEM;
        c->pgs = v;
        c->cappgs = cap;
    }
    size_t i = pgs_lower_bound(c, name);
    memmove(&c->pgs[i + 1], &c->pgs[i], (c->npgs - i) * sizeof(*c->pgs));
    c->pgs[i] = (struct pgref){name, min, mw};
    c->npgs++;
    return 0;
}

static void pgs_remove(struct cluster *c, const char *name, const struct mwork *mw)
{
    for (size_t i = pgs_lower_bound(c, name); i < c->npgs && strcmp(c->pgs[i].name, name) == 0;
         i++) {
        if (c->pgs[i].mw == mw) {
            memmove(&c->pgs[i], &c->pgs[i + 1], (c->npgs - i - 1) * sizeof(*c->pgs));
            c->npgs--;
            return;
        }
    }
}

static size_t gangs_lower_bound(const struct cluster *c, const char *rb)
{
    size_t lo = 0, hi = c->ngangs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->gangs[mid], rb) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int gangs_has(const struct cluster *c, const char *rb)
{
    size_t i = gangs_lower_bound(c, rb);
    return i < c->ngangs && strcmp(c->gangs[i], rb) == 0;
}

static int gangs_add(struct cluster *c, const char *rb)
{
    if (c->ngangs == c->capgangs) {
        size_t cap = c->capgangs ? c->capgangs * 2 : 16;
        const char **v = muster_realloc(c->gangs, cap * sizeof(*v));
        if (!v)
            return MUSTER_ENOMEM;
        c->gangs = v;
        c->capgangs = cap;
    }
    size_t i = gangs_lower_bound(c, rb);
    memmove(&c->gangs[i + 1], &c->gangs[i], (c->ngangs - i) * sizeof(*c->gangs));
    c->gangs[i] = rb;
    c->ngangs++;
    return 0;
}

/* Removes the entry borrowed from exactly rb (another Work may gang the same RB). */
static void gangs_remove(struct cluster *c, const char *rb)
{
    for (size_t i = gangs_lower_bound(c, rb); i < c->ngangs && strcmp(c->gangs[i], rb) == 0; i++) {
        if (c->gangs[i] == rb) {
            memmove(&c->gangs[i], &c->gangs[i + 1], (c->ngangs - i - 1) * sizeof(*c->gangs));
            c->ngangs--;
            return;
        }
    }
}

/* The dependency of a running share as a deps key; 0 when it has none (a Volcano Job gangs
 * itself, an ungated share of an RB nobody gangs depends on nothing). */
static int dep_key(const struct unit *u, char *buf, size_t cap)
{
    if (u->group)
        snprintf(buf, cap, "g" OP_SEP "%s", u->group);
    else if (u->vc_min < 0 && u->mw->rb)
        snprintf(buf, cap, "r" OP_SEP "%s", u->mw->rb);
    else
        return 0;
    return 1;
}

static size_t deps_lower_bound(const struct cluster *c, const char *key)
{
    size_t lo = 0, hi = c->ndeps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->deps[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Counts u, which the nodes now hold, under its dependency. */
static void deps_add(struct cluster *c, const struct unit *u)
{
    char key[2 * NAME_MAX_LEN + 8];
    if (!dep_key(u, key, sizeof(key)))
        return;
    size_t i = deps_lower_bound(c, key);
    if (i < c->ndeps && strcmp(c->deps[i].key, key) == 0) {
        c->deps[i].n++;
        return;
    }
    char *k = muster_strdup(key);
    if (c->ndeps == c->capdeps && k) {
        size_t cap = c->capdeps ? c->capdeps * 2 : 16;
        struct dep *v = muster_realloc(c->deps, cap * sizeof(*v));
        if (v) {
            c->deps = v;
            c->capdeps = cap;
        }
    }
    if (!k || c->ndeps == c->capdeps) {
        muster_free(k);
        c->full = 1; /* unrecorded: the next sync places everything and counts again */
        return;
    }
    memmove(&c->deps[i + 1], &c->deps[i], (c->ndeps - i) * sizeof(*c->deps));
    c->deps[i] = (struct dep){k, 1};
    c->ndeps++;
}

static void deps_reset(struct cluster *c)
{
    for (size_t i = 0; i < c->ndeps; i++)
        muster_free(c->deps[i].key);
    c->ndeps = 0;
}

/* 1 when a share the nodes hold depends on PodGroup group (group != NULL) or on whether muster
 * gangs RB rb: a change to either moves running pods. Counts are kept from the last full
 * placement on, and only consulted while no full placement is due. */
static int running_depends(const struct cluster *c, const char *group, const char *rb)
{
    char key[2 * NAME_MAX_LEN + 8];
    snprintf(key, sizeof(key), "%s" OP_SEP "%s", group ? "g" : "r", group ? group : rb);
    size_t i = deps_lower_bound(c, key);
    return i < c->ndeps && strcmp(c->deps[i].key, key) == 0 && c->deps[i].n > 0;
}

static int pend_cmp(const struct pend *p, const struct mwork *mw, size_t unit)
{
    int c = strcmp(p->mw->name, mw->name);
    return c ? c : (p->unit > unit) - (p->unit < unit);
}

/* Index of the first pending share >= (mw, unit) in Work order. */
static size_t pending_lower_bound(const struct cluster *c, const struct mwork *mw, size_t unit)
{
    size_t lo = 0, hi = c->npending;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pend_cmp(&c->pending[mid], mw, unit) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void pending_add(struct cluster *c, struct mwork *mw, size_t unit)
{
    if (c->npending == c->cappending) {
        size_t cap = c->cappending ? c->cappending * 2 : 16;
        struct pend *v = muster_realloc(c->pending, cap * sizeof(*v));
        if (!v) {
            c->full = 1; /* the full pass finds it again */
            return;
        }
        c->pending = v;
        c->cappending = cap;
    }
    size_t i = pending_lower_bound(c, mw, unit);
    memmove(&c->pending[i + 1], &c->pending[i], (c->npending - i) * sizeof(*c->pending));
    c->pending[i] = (struct pend){mw, unit};
    c->npending++;
}

static void pending_remove_work(struct cluster *c, const struct mwork *mw)
{
    size_t i = pending_lower_bound(c, mw, 0), j = i;
    while (j < c->npending && c->pending[j].mw == mw)
        j++;
    if (j == i)
        return; /* none (pending may still be NULL) */
    memmove(&c->pending[i], &c->pending[j], (c->npending - j) * sizeof(*c->pending));
    c->npending -= j - i;
}

static const char *member_group(const struct pend *p)
{
    return p->mw->units[p->unit].group;
}

static size_t members_lower_bound(const struct cluster *c, const char *group)
{
    size_t lo = 0, hi = c->nmembers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(member_group(&c->members[mid]), group) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void members_add(struct cluster *c, struct mwork *mw, size_t unit)
{
    if (c->nmembers == c->capmembers) {
        size_t cap = c->capmembers ? c->capmembers * 2 : 16;
        struct pend *v = muster_realloc(c->members, cap * sizeof(*v));
        if (!v)
            return; /* its PodGroup reports without it: degrade, never crash */
        c->members = v;
        c->capmembers = cap;
    }
    size_t i = members_lower_bound(c, mw->units[unit].group);
    memmove(&c->members[i + 1], &c->members[i], (c->nmembers - i) * sizeof(*c->members));
    c->members[i] = (struct pend){mw, unit};
    c->nmembers++;
}

static void members_remove(struct cluster *c, const struct mwork *mw, size_t unit)
{
    for (size_t i = members_lower_bound(c, mw->units[unit].group);
         i < c->nmembers && strcmp(member_group(&c->members[i]), mw->units[unit].group) == 0; i++) {
        if (c->members[i].mw == mw && c->members[i].unit == unit) {
            memmove(&c->members[i], &c->members[i + 1],
                    (c->nmembers - i - 1) * sizeof(*c->members));
            c->nmembers--;
            return;
        }
    }
}

/* Lists mw among the Works the next sync reports on. */
static void touch(struct cluster *c, struct mwork *mw)
{
    if (mw->touched)
        return;
    if (c->ntouched == c->captouched) {
        size_t cap = c->captouched ? c->captouched * 2 : 16;
        struct mwork **v = muster_realloc(c->touched, cap * sizeof(*v));
        if (!v)
            return; /* its report waits for its next change: degrade, never crash */
        c->touched = v;
        c->captouched = cap;
    }
    c->touched[c->ntouched++] = mw;
    mw->touched = 1;
}

static void untouch(struct cluster *c, struct mwork *mw)
{
    for (size_t i = 0; mw->touched && i < c->ntouched; i++) {
        if (c->touched[i] == mw) {
            c->touched[i] = c->touched[--c->ntouched];
            mw->touched = 0;
        }
    }
}

/* Drops what mw contributed to the mirror (its units, PodGroups and gang), flagging a full
 * placement when running pods depended on any of it. Its shares stay. */
static void mwork_clear(struct cluster *c, struct mwork *mw)
{
    for (size_t i = 0; i < mw->nunits; i++)
        if (mw->units[i].in_run)
            c->full = 1;
    pending_remove_work(c, mw);
    for (size_t i = 0; mw->dispatched && i < mw->nunits; i++)
        if (mw->units[i].group)
            members_remove(c, mw, i);
    muster_free(mw->units);
    mw->units = NULL;
    mw->nunits = 0;
    json_object *manifests = get_path(mw->obj, "spec", "workload", "manifests");
    for (size_t m = 0; mw->dispatched && m < json_object_array_length(manifests); m++) {
        json_object *pg = json_object_array_get_idx(manifests, m);
        const char *kind = get_str(pg, "kind", NULL, NULL);
        const char *name = sim_meta_str(pg, "name");
        if (!kind || strcmp(kind, "PodGroup") != 0 || !name)
            continue;
        pgs_remove(c, name, mw);
        if (!c->full && running_depends(c, name, NULL))
            c->full = 1;
    }
    if (mw->marker) {
        gangs_remove(c, mw->marker);
        if (!c->full && running_depends(c, NULL, mw->marker))
            c->full = 1;
    }
    mw->marker = NULL;
    muster_free(mw->rb);
    mw->rb = NULL;
    json_object_put(mw->obj);
    mw->obj = NULL;
}

/* Reads Work obj into mw (cleared), adding its PodGroups and gang to c's mirror. */
static void mwork_fill(struct cluster *c, struct mwork *mw, json_object *obj)
{
    mw->obj = json_object_get(obj);
    touch(c, mw);
    json_object *susp = get_path(obj, "spec", "suspendDispatching", NULL);
    mw->dispatched = !(susp && json_object_get_boolean(susp));
    mw->has_status = get_path(obj, "status", NULL, NULL) != NULL;
    json_object *g = get_path(obj, "metadata", "generation", NULL);
    mw->gen = g ? json_object_get_int64(g) : 0;
    const char *by = get_str(obj, "metadata", "labels", MANAGED_BY_LABEL);
    const char *gang = get_str(obj, "metadata", "annotations", GANG_BINDING_ANNOTATION);
    if (by && gang && strcmp(by, MANAGED_BY_MUSTER) == 0 && gangs_add(c, gang) == 0) {
        mw->marker = gang;
        if (!c->full && running_depends(c, NULL, gang))
            c->full = 1;
    }
    const char *rbns =
        get_str(obj, "metadata", "annotations", "resourcebinding.karmada.io/namespace");
    const char *rbname = get_str(obj, "metadata", "annotations", "resourcebinding.karmada.io/name");
    if (rbns && rbname) {
        size_t len = strlen(rbns) + strlen(rbname) + 2;
        mw->rb = muster_malloc(len);
        if (mw->rb)
            snprintf(mw->rb, len, "%s/%s", rbns, rbname);
    }
    json_object *manifests = get_path(obj, "spec", "workload", "manifests");
    size_t n = json_object_array_length(manifests);
    if (n > mw->nshares) {
        struct share *v = muster_realloc(mw->shares, n * sizeof(*v));
        if (!v)
            return; /* the Work then runs nothing: the simulation degrades, never crashes */
        memset(v + mw->nshares, 0, (n - mw->nshares) * sizeof(*v));
        mw->shares = v;
        mw->nshares = n;
    }
    mw->units = muster_calloc(n ? n : 1, sizeof(*mw->units));
    if (!mw->units)
        return;
    for (size_t m = 0; m < n; m++) {
        json_object *man = json_object_array_get_idx(manifests, m);
        struct pod_set sets[16];
        size_t nsets = workload_pods(man, sets, 16);
        if (!nsets) {
            const char *kind = get_str(man, "kind", NULL, NULL);
            const char *name = sim_meta_str(man, "name");
            if (mw->dispatched && kind && strcmp(kind, "PodGroup") == 0 && name) {
                json_object *mm = get_path(man, "spec", "minMember", NULL);
                if (pgs_add(c, name, mm ? json_object_get_int64(mm) : 1, mw) == 0 && !c->full &&
                    running_depends(c, name, NULL))
                    c->full = 1;
            }
            continue;
        }
        struct unit *u = &mw->units[mw->nunits++];
        u->mw = mw;
        u->manifest = m;
        u->obj = man;
        u->share = &mw->shares[m];
        for (size_t s = 0; s < nsets; s++)
            u->desired += sets[s].replicas;
        u->duration = parse_duration(get_str(man, "metadata", "annotations", DURATION_ANNOTATION));
        u->vc_min = -1;
        const char *av = get_str(man, "apiVersion", NULL, NULL);
        if (strcmp(av, "batch.volcano.sh/v1alpha1") == 0) {
            /* Volcano makes the job's own PodGroup: minAvailable, else every pod. */
            json_object *min = get_path(man, "spec", "minAvailable", NULL);
            u->vc_min = min ? json_object_get_int64(min) : u->desired;
        } else {
            u->group = get_str(pod_template_meta(man), "annotations", GROUP_ANNOTATION, NULL);
        }
        if (u->duration)
            c->timed = 1;
        if (mw->dispatched && u->group)
            members_add(c, mw, mw->nunits - 1);
        if (!mw->dispatched || u->share->finished)
            continue;
        if (u->share->started)
            c->full = 1; /* a running share coming back is placed with the others */
        else
            pending_add(c, mw, mw->nunits - 1);
    }
}

static void mwork_free(struct mwork *mw)
{
    if (!mw)
        return;
    for (size_t i = 0; i < mw->nshares; i++)
        muster_free(mw->shares[i].reqs);
    muster_free(mw->shares);
    muster_free(mw->units);
    muster_free(mw->rb);
    json_object_put(mw->obj);
    muster_free(mw->name);
    muster_free(mw);
}

static size_t works_lower_bound(const struct cluster *c, const char *name)
{
    size_t lo = 0, hi = c->nworks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->works[mid]->name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int status_only(const struct sim_event *ev);

/* Keeps c's mirror in step with an event of one of its Works. Returns 1 when the member must
 * sync (0: a status write, which never moves a pod). */
static int mirror_work(struct cluster *c, const struct sim_event *ev)
{
    const char *name = sim_meta_str(ev->obj, "name");
    if (!name)
        return 0;
    size_t i = works_lower_bound(c, name);
    struct mwork *mw = i < c->nworks && strcmp(c->works[i]->name, name) == 0 ? c->works[i] : NULL;
    if (ev->type == SIM_EVENT_DELETED) {
        if (mw) {
            mwork_clear(c, mw);
            untouch(c, mw);
            memmove(&c->works[i], &c->works[i + 1], (c->nworks - i - 1) * sizeof(*c->works));
            c->nworks--;
            mwork_free(mw);
        }
        return 1;
    }
    if (status_only(ev)) {
        if (mw)
            mw->has_status = get_path(ev->obj, "status", NULL, NULL) != NULL;
        return 0;
    }
    if (mw) {
        mwork_clear(c, mw);
    } else {
        if (c->nworks == c->capworks) {
            size_t cap = c->capworks ? c->capworks * 2 : 16;
            struct mwork **v = muster_realloc(c->works, cap * sizeof(*v));
            if (!v)
                return 1;
            c->works = v;
            c->capworks = cap;
        }
        mw = muster_calloc(1, sizeof(*mw));
        if (mw)
            mw->name = muster_strdup(name);
        if (!mw || !mw->name) {
            mwork_free(mw);
            return 1;
        }
        memmove(&c->works[i + 1], &c->works[i], (c->nworks - i) * sizeof(*c->works));
        c->works[i] = mw;
        c->nworks++;
    }
    mwork_fill(c, mw, ev->obj);
    return 1;
}

/* Per-pod requests of every pod of obj, in pod-set order, into reqs (npods x MAX_RES). Pods
 * asking for a resource no node has get that request set impossibly high. */
static int64_t expand_pods(struct sim_karmada *k, json_object *obj, int64_t **reqs)
{
    struct pod_set sets[16];
    size_t n = workload_pods(obj, sets, 16);
    int64_t total = 0;
    for (size_t s = 0; s < n; s++)
        total += sets[s].replicas > 0 ? sets[s].replicas : 0;
    if (total > MAX_PODS)
        total = MAX_PODS;
    *reqs = muster_calloc((size_t)(total ? total : 1), MAX_RES * sizeof(int64_t));
    if (!*reqs)
        return 0;
    int64_t at = 0;
    int pods = res_index(k, "pods", 0);
    for (size_t s = 0; s < n && at < total; s++) {
        int64_t req[MAX_RES] = {0};
        /* the member places pods as its API server admitted them: requests defaulted to limits */
        json_object *r = sim_karmada_pod_effective_requests(sets[s].spec);
        json_object_object_foreach(r, name, v)
        {
            int64_t q = 0;
            if (sim_qty_parse(json_object_get_string(v), &q) < 0 || q <= 0)
                continue;
            int i = res_index(k, name, 0);
            if (i < 0) {
                /* No node has it: park the demand on "pods" beyond any node's reach. */
                if (pods >= 0)
                    req[pods] = INT64_MAX / 4;
            } else {
                req[i] += q;
            }
        }
        json_object_put(r);
        if (pods >= 0 && req[pods] < INT64_MAX / 4)
            req[pods] += 1000;
        for (int64_t p = 0; p < sets[s].replicas && at < total; p++)
            memcpy(*reqs + at++ * MAX_RES, req, sizeof(req));
    }
    return total;
}

/* Places pods [from, to) of reqs; all_or_nothing undoes a partial placement. Returns how many
 * were placed. */
static int64_t place_pods(struct sim_karmada *k, struct cluster *c, const int64_t *reqs,
                          int64_t from, int64_t to, int all_or_nothing)
{
    if (to <= from)
        return 0;
    /* Where each pod went, to take a gang off again (cheaper than saving every node). */
    size_t *at = all_or_nothing ? muster_malloc((size_t)(to - from) * sizeof(*at)) : NULL;
    if (all_or_nothing && !at)
        return 0;
    int64_t placed = 0;
    for (int64_t p = from; p < to; p++) {
        size_t n = place_one(k, c, reqs + p * MAX_RES);
        if (n < c->nnodes) {
            if (at)
                at[placed] = n;
            placed++;
        } else if (all_or_nothing) {
            break; /* the gang cannot start: whatever else would fit is taken off anyway */
        }
    }
    if (all_or_nothing && placed < to - from) {
        for (int64_t j = 0; j < placed; j++)
            for (size_t i = 0; i < k->nres; i++)
                c->nodes[at[j]].used[i] -= reqs[(from + j) * MAX_RES + i];
        placed = 0;
    }
    muster_free(at);
    return placed;
}

static void set_int(json_object *o, const char *key, int64_t v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

/* The status a member would report for a workload share. */
static json_object *share_status(const struct unit *u, const char *ts_start)
{
    json_object *st = json_object_new_object();
    const char *kind = get_str(u->obj, "kind", NULL, NULL);
    const char *av = get_str(u->obj, "apiVersion", NULL, NULL);
    int done = u->share && u->share->finished;
    if (strcmp(av, "apps/v1") == 0) {
        set_int(st, "replicas", u->desired);
        set_int(st, "updatedReplicas", u->desired);
        set_int(st, "readyReplicas", u->running);
        set_int(st, "availableReplicas", u->running);
    } else if (strcmp(av, "batch.volcano.sh/v1alpha1") == 0) {
        json_object *state = json_object_new_object();
        json_object_object_add(state, "phase",
                               json_object_new_string(done         ? "Completed"
                                                      : u->running ? "Running"
                                                                   : "Pending"));
        json_object_object_add(st, "state", state);
        set_int(st, "minAvailable", u->gang);
        set_int(st, "running", u->running);
        set_int(st, "pending", done ? 0 : u->desired - u->running);
        set_int(st, "succeeded", done ? u->desired : 0);
    } else if (strcmp(kind, "Job") == 0) {
        set_int(st, "active", u->running);
        set_int(st, "succeeded", done ? u->desired : 0);
        if (ts_start)
            json_object_object_add(st, "startTime", json_object_new_string(ts_start));
    } else {
        json_object_object_add(st, "phase",
                               json_object_new_string(done         ? "Succeeded"
                                                      : u->running ? "Running"
                                                                   : "Pending"));
    }
    return st;
}

static const char *health_of(const struct unit *u)
{
    if (u->share && u->share->finished)
        return "Healthy";
    return u->running == u->desired ? "Healthy" : "Unhealthy";
}

static json_object *identifier(json_object *obj, size_t ordinal)
{
    json_object *id = json_object_new_object();
    const char *av = get_str(obj, "apiVersion", NULL, NULL);
    const char *kind = get_str(obj, "kind", NULL, NULL);
    const struct sim_resource *r = sim_resource_by_kind(av, kind);
    const char *slash = av ? strchr(av, '/') : NULL;
    char group[128] = "";
    if (slash)
        snprintf(group, sizeof(group), "%.*s", (int)(slash - av), av);
    set_int(id, "ordinal", (int64_t)ordinal);
    json_object_object_add(id, "group", json_object_new_string(group));
    json_object_object_add(id, "version", json_object_new_string(slash ? slash + 1 : av ? av : ""));
    json_object_object_add(id, "kind", json_object_new_string(kind ? kind : ""));
    json_object_object_add(id, "resource", json_object_new_string(r ? r->plural : ""));
    const char *ns = sim_meta_str(obj, "namespace");
    if (ns)
        json_object_object_add(id, "namespace", json_object_new_string(ns));
    const char *name = sim_meta_str(obj, "name");
    json_object_object_add(id, "name", json_object_new_string(name ? name : ""));
    return id;
}

/* What Volcano reports for a PodGroup: its member pods running, and Running once minMember of
 * them are (Completed when its shares finished). */
static void report_podgroup(json_object *entry, json_object *pg, const struct cluster *c)
{
    const char *name = sim_meta_str(pg, "name");
    json_object *mm = get_path(pg, "spec", "minMember", NULL);
    int64_t min = mm ? json_object_get_int64(mm) : 1, running = 0, succeeded = 0, members = 0;
    for (size_t i = name ? members_lower_bound(c, name) : c->nmembers;
         i < c->nmembers && strcmp(member_group(&c->members[i]), name) == 0; i++) {
        const struct unit *u = &c->members[i].mw->units[c->members[i].unit];
        members++;
        running += u->running;
        if (u->share->finished)
            succeeded += u->desired;
    }
    const char *phase = members && succeeded && !running ? "Completed"
                        : members && running >= min      ? "Running"
                                                         : "Pending";
    json_object *st = json_object_new_object();
    json_object_object_add(st, "phase", json_object_new_string(phase));
    set_int(st, "running", running);
    if (succeeded)
        set_int(st, "succeeded", succeeded);
    json_object_object_add(entry, "status", st);
    json_object_object_add(
        entry, "health",
        json_object_new_string(strcmp(phase, "Pending") ? "Healthy" : "Unhealthy"));
}

/* Writes what the member reports for one Work: Applied, and one manifestStatus per manifest. */
static void report_work(struct sim_karmada *k, struct cluster *c, struct mwork *mw)
{
    char ns[96];
    snprintf(ns, sizeof(ns), WORK_NS_PREFIX "%s", c->name);
    const struct sim_resource *wr = res_of("work.karmada.io", "v1alpha1", "works");
    json_object *work = NULL, *copy = NULL;
    if (sim_store_get(k->store, wr, ns, mw->name, &work, NULL) < 0)
        return;
    copy = shallow_copy(work);
    if (!copy) {
        json_object_put(work);
        return;
    }
    json_object *status = json_object_new_object();
    json_object *cond = json_object_new_object();
    json_object_object_add(cond, "type", json_object_new_string("Applied"));
    json_object_object_add(cond, "status", json_object_new_string("True"));
    json_object_object_add(cond, "reason", json_object_new_string("AppliedSuccessful"));
    json_object_object_add(cond, "message",
                           json_object_new_string("Manifest has been successfully applied"));
    const char *created = sim_meta_str(work, "creationTimestamp");
    json_object_object_add(cond, "lastTransitionTime",
                           json_object_new_string(created ? created : ""));
    json_object *conds = json_object_new_array();
    json_object_array_add(conds, cond);
    json_object_object_add(status, "conditions", conds);
    json_object *ms = json_object_new_array();
    json_object *manifests = get_path(work, "spec", "workload", "manifests");
    for (size_t m = 0; m < json_object_array_length(manifests); m++) {
        json_object *obj = json_object_array_get_idx(manifests, m);
        json_object *e = json_object_new_object();
        json_object_object_add(e, "identifier", identifier(obj, m));
        struct unit *u = NULL;
        for (size_t i = 0; i < mw->nunits && !u; i++)
            if (mw->units[i].manifest == m)
                u = &mw->units[i];
        const char *kind = get_str(obj, "kind", NULL, NULL);
        if (u) {
            char ts[32] = "";
            if (u->share->started)
                sim_format_time(u->share->started, ts, sizeof(ts));
            json_object_object_add(e, "status", share_status(u, ts[0] ? ts : NULL));
            json_object_object_add(e, "health", json_object_new_string(health_of(u)));
        } else if (kind && strcmp(kind, "PodGroup") == 0) {
            report_podgroup(e, obj, c);
        } else {
            json_object_object_add(e, "health", json_object_new_string("Healthy"));
        }
        json_object_array_add(ms, e);
    }
    json_object_object_add(status, "manifestStatuses", ms);
    /* The status event reaches the mirror later when this runs inside a delivery. */
    if (json_object_equal(status, get_path(work, "status", NULL, NULL))) {
        json_object_put(status);
        mw->has_status = 1;
    } else {
        json_object_object_add(copy, "status", status);
        if (sim_store_update(k->store, wr, ns, mw->name, copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE,
                             NULL, NULL) == 0)
            mw->has_status = 1;
    }
    json_object_put(copy);
    json_object_put(work);
}

/* Karmada's FullyApplied condition: True once every cluster in spec.clusters reported its Work
 * applied. Other conditions (muster's Scheduled) are kept; an unchanged condition keeps its
 * lastTransitionTime. */
static void set_fully_applied(struct sim_karmada *k, json_object *rb, json_object *status,
                              json_object *agg)
{
    json_object *clusters = get_path(rb, "spec", "clusters", NULL);
    size_t want =
        json_object_is_type(clusters, json_type_array) ? json_object_array_length(clusters) : 0;
    size_t have = 0;
    for (size_t i = 0; i < want; i++) {
        const char *cn = get_str(json_object_array_get_idx(clusters, i), "name", NULL, NULL);
        for (size_t j = 0; cn && j < json_object_array_length(agg); j++) {
            json_object *e = json_object_array_get_idx(agg, j);
            json_object *applied = get_path(e, "applied", NULL, NULL);
            const char *en = get_str(e, "clusterName", NULL, NULL);
            if (en && strcmp(en, cn) == 0 && applied && json_object_get_boolean(applied))
                have++;
        }
    }
    const char *value = want && have == want ? "True" : "False";
    json_object *conds = get_path(status, "conditions", NULL, NULL);
    if (!json_object_is_type(conds, json_type_array)) {
        conds = json_object_new_array();
        json_object_object_add(status, "conditions", conds);
    }
    json_object *cond = NULL;
    for (size_t i = 0; i < json_object_array_length(conds) && !cond; i++) {
        const char *t = get_str(json_object_array_get_idx(conds, i), "type", NULL, NULL);
        if (t && strcmp(t, "FullyApplied") == 0)
            cond = json_object_array_get_idx(conds, i);
    }
    const char *cur = get_str(cond, "status", NULL, NULL);
    if (cur && strcmp(cur, value) == 0)
        return;
    if (!cond) {
        cond = json_object_new_object();
        json_object_array_add(conds, cond);
    }
    char ts[32];
    sim_format_time(clock_now(k), ts, sizeof(ts));
    json_object_object_add(cond, "type", json_object_new_string("FullyApplied"));
    json_object_object_add(cond, "status", json_object_new_string(value));
    json_object_object_add(
        cond, "reason",
        json_object_new_string(value[0] == 'T' ? "FullyAppliedSuccess" : "FullyAppliedFailed"));
    json_object_object_add(cond, "message",
                           json_object_new_string(value[0] == 'T'
                                                      ? "All works have been successfully applied"
                                                      : "Failed to apply all works"));
    json_object_object_add(cond, "lastTransitionTime", json_object_new_string(ts));
}

/* Karmada's status aggregation: the RB's own Work in cluster reports into
 * status.aggregatedStatus[cluster]. */
static void aggregate(struct sim_karmada *k, const char *cluster, json_object *work,
                      const struct unit *u)
{
    const char *rbname =
        get_str(work, "metadata", "annotations", "resourcebinding.karmada.io/name");
    const char *rbns =
        get_str(work, "metadata", "annotations", "resourcebinding.karmada.io/namespace");
    if (!rbname || !rbns)
        return;
    const struct sim_resource *rbr = res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    json_object *rb = NULL, *copy = NULL;
    if (sim_store_get(k->store, rbr, rbns, rbname, &rb, NULL) < 0)
        return;
    char wname[NAME_MAX_LEN];
    work_name(rb, wname, sizeof(wname));
    if (strcmp(wname, sim_meta_str(work, "name")) != 0) {
        json_object_put(rb); /* muster's PodGroup Works are not the RB's own */
        return;
    }
    /* Only status changes, and set_fully_applied edits it in place: copy just that. */
    copy = shallow_copy(rb);
    json_object *status = NULL;
    if (copy && get_path(rb, "status", NULL, NULL))
        json_object_deep_copy(get_path(rb, "status", NULL, NULL), &status, NULL);
    else if (copy)
        status = json_object_new_object();
    json_object_put(rb);
    if (!copy || !status) {
        json_object_put(copy);
        json_object_put(status);
        return;
    }
    json_object_object_add(copy, "status", status);
    json_object *old = get_path(status, "aggregatedStatus", NULL, NULL);
    json_object *agg = json_object_new_array();
    json_object *entry = json_object_new_object();
    json_object_object_add(entry, "clusterName", json_object_new_string(cluster));
    char ts[32] = "";
    if (u->share && u->share->started)
        sim_format_time(u->share->started, ts, sizeof(ts));
    json_object_object_add(entry, "status", share_status(u, ts[0] ? ts : NULL));
    json_object_object_add(entry, "applied", json_object_new_boolean(1));
    json_object_object_add(entry, "health", json_object_new_string(health_of(u)));
    /* Sorted by cluster name, one entry per cluster. */
    int added = 0;
    for (size_t i = 0;
         json_object_is_type(old, json_type_array) && i < json_object_array_length(old); i++) {
        json_object *e = json_object_array_get_idx(old, i);
        const char *cn = get_str(e, "clusterName", NULL, NULL);
        if (cn && strcmp(cn, cluster) == 0)
            continue;
        if (!added && cn && strcmp(cn, cluster) > 0) {
            json_object_array_add(agg, entry);
            added = 1;
        }
        json_object_array_add(agg, json_object_get(e));
    }
    if (!added)
        json_object_array_add(agg, entry);
    json_object_object_add(status, "aggregatedStatus", agg);
    set_fully_applied(k, copy, status, agg);
    sim_store_update(k->store, rbr, rbns, rbname, copy, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL,
                     NULL);
    json_object_put(copy);
}

/* Decides u's gang and whether it waits for its PodGroup, from the cluster's PodGroups and the
 * RBs muster gangs here. */
static void gate(const struct cluster *c, struct unit *u)
{
    u->waiting_for_group = 0;
    u->gang = 0;
    if (u->vc_min >= 0) {
        u->gang = u->vc_min;
    } else if (u->group) {
        const struct pgref *pg = pgs_find(c, u->group);
        u->waiting_for_group = !pg;
        u->gang = pg ? pg->min_member : 0;
    } else if (u->mw->rb && gangs_has(c, u->mw->rb)) {
        /* muster gangs this RB here: pods that name no PodGroup never start */
        u->waiting_for_group = 1;
    }
    if (u->gang > u->desired)
        u->gang = u->desired;
}

/* Places u's pods on the nodes as they are (its gang all or nothing, then the rest one by one)
 * and adds the requests of the pods left Pending to pending. */
static void place_unit(struct sim_karmada *k, struct cluster *c, struct unit *u, int64_t *pending)
{
    struct share *sh = u->share;
    if (!sh->reqs || sh->gen != u->mw->gen) {
        muster_free(sh->reqs);
        sh->npods = expand_pods(k, u->obj, &sh->reqs);
        sh->gen = u->mw->gen;
    }
    const int64_t *reqs = sh->reqs;
    int64_t total = reqs ? sh->npods : 0, placed = 0;
    if (!u->waiting_for_group && c->ready) {
        placed = place_pods(k, c, reqs, 0, u->gang, 1);
        if (placed == u->gang)
            placed += place_pods(k, c, reqs, u->gang, total, 0);
    }
    for (int64_t p = placed; p < total; p++)
        for (size_t r = 0; r < k->nres; r++)
            if (reqs[p * MAX_RES + r] < INT64_MAX / 4)
                pending[r] += reqs[p * MAX_RES + r];
    u->running = placed;
}

static int run_cmp(const void *pa, const void *pb)
{
    const struct unit *a = *(const struct unit *const *)pa, *b = *(const struct unit *const *)pb;
    if (a->share->started != b->share->started)
        return a->share->started < b->share->started ? -1 : 1;
    return a->share->seq < b->share->seq ? -1 : a->share->seq > b->share->seq;
}

/* Places every running share again from empty nodes, oldest first, as the member's scheduler
 * would find them: each keeps the nodes it had unless something before it changed. */
static void place_running(struct sim_karmada *k, struct cluster *c)
{
    for (size_t n = 0; n < c->nnodes; n++)
        memset(c->nodes[n].used, 0, sizeof(c->nodes[n].used));
    memset(c->alloc_run, 0, sizeof(c->alloc_run));
    size_t nrun = 0;
    for (size_t w = 0; w < c->nworks; w++)
        for (size_t i = 0; i < c->works[w]->nunits; i++) {
            struct unit *u = &c->works[w]->units[i];
            u->in_run = 0;
            u->running = 0; /* a finished share's pods are gone */
            nrun += c->works[w]->dispatched && u->share->started && !u->share->finished;
        }
    struct unit **run = muster_malloc((nrun ? nrun : 1) * sizeof(*run));
    if (!run)
        return; /* nothing runs until the next full sync: degrade, never crash */
    size_t at = 0;
    for (size_t w = 0; w < c->nworks; w++)
        for (size_t i = 0; c->works[w]->dispatched && i < c->works[w]->nunits; i++) {
            struct unit *u = &c->works[w]->units[i];
            if (u->share->started && !u->share->finished)
                run[at++] = u;
        }
    qsort(run, nrun, sizeof(*run), run_cmp);
    c->full = 0;
    deps_reset(c);
    for (size_t i = 0; i < nrun; i++) {
        gate(c, run[i]);
        place_unit(k, c, run[i], c->alloc_run);
        run[i]->in_run = 1;
        deps_add(c, run[i]);
    }
    muster_free(run);
    c->npending = 0;
    c->timed = 0;
    for (size_t w = 0; w < c->nworks; w++) {
        struct mwork *mw = c->works[w];
        touch(c, mw); /* any running share may have moved */
        for (size_t i = 0; i < mw->nunits; i++) {
            const struct unit *u = &mw->units[i];
            c->timed |= u->duration != 0;
            if (mw->dispatched && !u->share->started && !u->share->finished)
                pending_add(c, mw, i);
        }
    }
}

/* Runs the member: places every dispatched share (running ones first, oldest first), gangs all
 * or nothing, finishes shares whose scripted duration is over, and reports through Work status
 * and the RBs' aggregatedStatus. Returns the Pending demand in allocating.
 *
 * The nodes carry the running shares from one sync to the next, so a sync places only the
 * shares not running yet, in Work order, unless c->full says the running ones moved; placing
 * them again would find the same nodes (first fit, same order, same state). */
static int mwork_name_cmp(const void *pa, const void *pb)
{
    return strcmp((*(const struct mwork *const *)pa)->name,
                  (*(const struct mwork *const *)pb)->name);
}

static void run_member(struct sim_karmada *k, struct cluster *c, int64_t *allocating)
{
    time_t now = clock_now(k);
    for (size_t w = 0; c->timed && w < c->nworks; w++) {
        struct mwork *mw = c->works[w];
        for (size_t i = 0; mw->dispatched && i < mw->nunits; i++) {
            struct unit *u = &mw->units[i];
            struct share *sh = u->share;
            sh->duration = u->duration;
            if (sh->started && !sh->finished && u->duration && now - sh->started >= u->duration) {
                sh->finished = 1; /* done: its pods are gone and free their nodes */
                c->full = 1;
            }
        }
    }
    if (c->full)
        place_running(k, c);
    int64_t pending[MAX_RES] = {0};
    size_t kept = 0;
    for (size_t j = 0; j < c->npending; j++) {
        struct mwork *mw = c->pending[j].mw;
        struct unit *u = &mw->units[c->pending[j].unit];
        struct share *sh = u->share;
        int64_t left[MAX_RES] = {0};
        gate(c, u);
        place_unit(k, c, u, left);
        int64_t *into = pending;
        if (u->running > 0 && u->running >= u->gang) {
            sh->started = now;
            sh->seq = ++k->start_seq;
            u->in_run = 1;
            deps_add(c, u);
            into = c->alloc_run;
        } else {
            c->pending[kept++] = c->pending[j];
        }
        for (size_t r = 0; r < k->nres; r++)
            into[r] += left[r];
        if (u->running != sh->reported_running || !sh->reported)
            touch(c, mw);
    }
    c->npending = kept;
    for (size_t r = 0; r < k->nres; r++)
        allocating[r] = c->alloc_run[r] + pending[r];
    /* Report what changed, Work by Work, then into each RB: a sync costs writes only for
     * shares whose state moved, and looks only at the Works that changed or were placed. The
     * list grows while it is walked: a changed share touches its PodGroup's Work. */
    for (size_t t = 0; t < c->ntouched; t++) {
        struct mwork *mw = c->touched[t];
        for (size_t i = 0; mw->dispatched && i < mw->nunits; i++) {
            struct unit *u = &mw->units[i];
            struct share *sh = u->share;
            u->changed = !sh->reported || sh->reported_running != u->running ||
                         sh->reported_desired != u->desired ||
                         sh->reported_finished != sh->finished;
            /* A PodGroup's Work reports again when one of its member shares changed. */
            if (!u->changed || !u->group)
                continue;
            for (size_t p = pgs_lower_bound(c, u->group);
                 p < c->npgs && strcmp(c->pgs[p].name, u->group) == 0; p++) {
                c->pgs[p].mw->pg_touched = 1;
                touch(c, c->pgs[p].mw);
            }
        }
    }
    if (c->ntouched) /* touched is NULL until the first Work is touched */
        qsort(c->touched, c->ntouched, sizeof(*c->touched), mwork_name_cmp);
    for (size_t t = 0; t < c->ntouched; t++) {
        struct mwork *mw = c->touched[t];
        if (!mw->dispatched)
            continue;
        int changed = !mw->has_status || mw->pg_touched;
        for (size_t i = 0; i < mw->nunits && !changed; i++)
            changed = mw->units[i].changed;
        if (changed)
            report_work(k, c, mw);
    }
    for (size_t t = 0; t < c->ntouched; t++) {
        struct mwork *mw = c->touched[t];
        for (size_t i = 0; mw->dispatched && i < mw->nunits; i++) {
            struct unit *u = &mw->units[i];
            if (u->manifest == 0 && u->changed)
                aggregate(k, c->name, mw->obj, u);
            u->changed = 0;
            u->share->reported = 1;
            u->share->reported_running = u->running;
            u->share->reported_desired = u->desired;
            u->share->reported_finished = u->share->finished;
        }
        mw->pg_touched = 0;
        mw->touched = 0;
    }
    c->ntouched = 0;
}

void sim_karmada_tick(struct sim_karmada *k)
{
    /* Only scripted durations change anything with time alone. */
    int timed = 0;
    time_t now = clock_now(k);
    for (size_t ci = 0; ci < k->nclusters && !timed; ci++) {
        const struct cluster *c = &k->clusters[ci];
        for (size_t w = 0; w < c->nworks && !timed; w++)
            for (size_t i = 0; i < c->works[w]->nshares && !timed; i++) {
                const struct share *sh = &c->works[w]->shares[i];
                timed = sh->started && !sh->finished && sh->duration &&
                        now - sh->started >= sh->duration;
            }
    }
    for (size_t i = 0; timed && i < k->nclusters; i++)
        cluster_sync(k, &k->clusters[i]);
}

static json_object *resource_list(struct sim_karmada *k, const int64_t *v)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < k->nres; i++) {
        char buf[40];
        sim_qty_format(v[i], buf, sizeof(buf));
        json_object_object_add(o, k->res[i], json_object_new_string(buf));
    }
    return o;
}

static int node_grade(const struct cluster *c, const struct node *nd)
{
    int grade = (int)c->ngrades - 1;
    for (size_t r = 0; r < c->nranges; r++) {
        /* The last grade whose minimum the node's free amount reaches (Karmada's
         * searchLastLessElement), minimised over the model's resources. */
        int idx = 0;
        for (size_t g = 0; g < c->ngrades; g++) {
            const struct grade_range *gr = &c->ranges[g * c->nranges + r];
            int64_t free_amt = gr->res >= 0 ? nd->alloc[gr->res] - nd->used[gr->res] : 0;
            if (gr->min <= free_amt)
                idx = (int)g;
        }
        if (idx < grade)
            grade = idx;
    }
    return grade;
}

static void cluster_sync(struct sim_karmada *k, struct cluster *c)
{
    struct {
        int64_t allocating[MAX_RES];
    } u;
    memset(&u, 0, sizeof(u));
    run_member(k, c, u.allocating);

    int64_t alloc[MAX_RES] = {0}, used[MAX_RES] = {0};
    for (size_t n = 0; n < c->nnodes; n++)
        for (size_t i = 0; i < k->nres; i++) {
            alloc[i] += c->nodes[n].alloc[i];
            used[i] += c->nodes[n].used[i];
        }
    json_object *cur = NULL;
    const struct sim_resource *cr = res_of("cluster.karmada.io", "v1alpha1", "clusters");
    if (sim_store_get(k->store, cr, NULL, c->name, &cur, NULL) < 0)
        return;
    json_object *next = shallow_copy(cur);
    if (!next) {
        json_object_put(cur);
        return;
    }
    json_object *status = json_object_new_object();
    json_object_object_add(status, "kubernetesVersion", json_object_new_string("v1.32.0"));
    json_object *cond = json_object_new_object();
    char ts[32];
    sim_format_time(c->ready_since, ts, sizeof(ts));
    json_object_object_add(cond, "type", json_object_new_string("Ready"));
    json_object_object_add(cond, "status", json_object_new_string(c->ready ? "True" : "False"));
    json_object_object_add(cond, "reason",
                           json_object_new_string(c->ready ? "ClusterReady" : "ClusterNotReady"));
    json_object_object_add(cond, "message",
                           json_object_new_string(c->ready ? "cluster is healthy and ready to "
                                                             "accept workloads"
                                                           : "cluster is not reachable"));
    json_object_object_add(cond, "lastTransitionTime", json_object_new_string(ts));
    json_object *conds = json_object_new_array();
    json_object_array_add(conds, cond);
    json_object_object_add(status, "conditions", conds);
    json_object *ns = json_object_new_object();
    json_object_object_add(ns, "totalNum", json_object_new_int((int)c->nnodes));
    json_object_object_add(ns, "readyNum", json_object_new_int(c->ready ? (int)c->nnodes : 0));
    json_object_object_add(status, "nodeSummary", ns);
    json_object *sum = json_object_new_object();
    json_object_object_add(sum, "allocatable", resource_list(k, alloc));
    json_object_object_add(sum, "allocating", resource_list(k, u.allocating));
    json_object_object_add(sum, "allocated", resource_list(k, used));
    json_object *models = json_object_new_array();
    if (c->ngrades) {
        int64_t counts[64] = {0};
        for (size_t n = 0; n < c->nnodes; n++) {
            int g = node_grade(c, &c->nodes[n]);
            if (g >= 0 && g < 64)
                counts[g]++;
        }
        for (size_t g = 0; g < c->ngrades && g < 64; g++) {
            json_object *m = json_object_new_object();
            json_object_object_add(m, "grade", json_object_new_int((int)g));
            json_object_object_add(m, "count", json_object_new_int64(counts[g]));
            json_object_array_add(models, m);
        }
    }
    json_object_object_add(sum, "allocatableModelings", models);
    json_object_object_add(status, "resourceSummary", sum);
    /* Most syncs change nothing here (a Work arrived suspended, a policy re-rendered one):
     * compare before handing the store a whole Cluster to copy. */
    if (!json_object_equal(status, get_path(cur, "status", NULL, NULL))) {
        json_object_object_add(next, "status", status);
        sim_store_update(k->store, cr, NULL, c->name, next, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE,
                         NULL, NULL);
    } else {
        json_object_put(status);
    }
    json_object_put(next);
    json_object_put(cur);
}

int sim_karmada_set_ready(struct sim_karmada *k, const char *name, int ready)
{
    struct cluster *c = find_cluster(k, name);
    if (!c)
        return MUSTER_ENOENT;
    if (c->ready != !!ready) {
        c->ready = !!ready;
        c->ready_since = clock_now(k);
        c->full = 1; /* a NotReady member runs nothing; a Ready one places everything again */
    }
    cluster_sync(k, c);
    return 0;
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
    json_object *first = get_path(json_object_array_get_idx(c->models, 0), "ranges", NULL, NULL);
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
            get_path(json_object_array_get_idx(c->models, g), "ranges", NULL, NULL);
        if (!json_object_is_type(ranges, json_type_array) || json_object_array_length(ranges) != nr)
            return fail(err, cap,
                        "clusters[%s].resourceModels[%zu]%s: every grade needs the same "
                        "ranges",
                        c->name, g, "");
        for (size_t r = 0; r < nr; r++) {
            json_object *rg = json_object_array_get_idx(ranges, r);
            const char *name = get_str(rg, "name", NULL, NULL);
            const char *min = get_str(rg, "min", NULL, NULL);
            int64_t v = 0;
            if (!name || !min || sim_qty_parse(min, &v) < 0)
                return fail(err, cap,
                            "clusters[%s].resourceModels[%zu].ranges: %s needs a name "
                            "and a quantity min",
                            c->name, g, name ? name : "a range");
            c->ranges[g * nr + r].res = res_index(k, name, 0);
            c->ranges[g * nr + r].min = v;
        }
    }
    return 0;
}

static int load_cluster(struct sim_karmada *k, json_object *spec, size_t idx, time_t now, char *err,
                        size_t cap)
{
    struct cluster *c = &k->clusters[idx];
    const char *name = get_str(spec, "name", NULL, NULL);
    if (!name || !name[0] || strlen(name) >= sizeof(c->name))
        return fail(err, cap, "scenario: clusters[%s%zu]%s: name is required (at most 63 chars)",
                    "", idx, "");
    snprintf(c->name, sizeof(c->name), "%s", name);
    json_object *ready = get_path(spec, "ready", NULL, NULL);
    c->ready = ready ? json_object_get_boolean(ready) : 1;
    c->ready_since = now;
    json_object *groups = get_path(spec, "nodes", NULL, NULL);
    size_t total = 0;
    for (size_t g = 0;
         json_object_is_type(groups, json_type_array) && g < json_object_array_length(groups);
         g++) {
        json_object *cnt = get_path(json_object_array_get_idx(groups, g), "count", NULL, NULL);
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
        json_object *cnt = get_path(grp, "count", NULL, NULL);
        int64_t n = cnt ? json_object_get_int64(cnt) : 1;
        json_object *alloc = get_path(grp, "allocatable", NULL, NULL);
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
            int i = res_index(k, rname, 1);
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
    json_object *models = get_path(spec, "resourceModels", NULL, NULL);
    if (models)
        json_object_deep_copy(models, &c->models, NULL);
    else
        c->models = default_models();
    return 0;
}

static int create_object(struct sim_karmada *k, json_object *obj, char *err, size_t cap)
{
    const struct sim_resource *r = sim_resource_by_kind(get_str(obj, "apiVersion", NULL, NULL),
                                                        get_str(obj, "kind", NULL, NULL));
    if (!r) {
        snprintf(err, cap, "scenario: objects: %s %s is not a served kind",
                 get_str(obj, "apiVersion", NULL, NULL) ? get_str(obj, "apiVersion", NULL, NULL)
                                                        : "?",
                 get_str(obj, "kind", NULL, NULL) ? get_str(obj, "kind", NULL, NULL) : "?");
        return MUSTER_EINVAL;
    }
    const char *ns = sim_meta_str(obj, "namespace");
    json_object *st = NULL;
    int rc = sim_store_create(k->store, r, r->namespaced ? (ns ? ns : "default") : NULL, obj,
                              clock_now(k), SIM_WRITE_INTERNAL, NULL, &st);
    if (rc < 0) {
        json_object *m = NULL;
        json_object_object_get_ex(st, "message", &m);
        snprintf(err, cap, "scenario: objects: %s", m ? json_object_get_string(m) : "rejected");
    }
    json_object_put(st);
    return rc == MUSTER_EEXIST ? 0 : rc;
}

static void ensure_namespace(struct sim_karmada *k, const char *name)
{
    const struct sim_resource *nsr = res_of("", "v1", "namespaces");
    if (sim_store_get(k->store, nsr, NULL, name, NULL, NULL) == 0)
        return; /* every render asks: spare the refused create and its Status */
    json_object *o = json_object_new_object();
    json_object *m = json_object_new_object();
    json_object_object_add(m, "name", json_object_new_string(name));
    json_object_object_add(o, "metadata", m);
    sim_store_create(k->store, nsr, NULL, o, clock_now(k), SIM_WRITE_INTERNAL, NULL, NULL);
    json_object_put(o);
}

static void create_cluster_object(struct sim_karmada *k, struct cluster *c, json_object *spec)
{
    json_object *o = json_object_new_object();
    json_object *m = json_object_new_object();
    json_object_object_add(m, "name", json_object_new_string(c->name));
    json_object *labels = get_path(spec, "labels", NULL, NULL);
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
        json_object *v = get_path(spec, copied[i], NULL, NULL);
        if (v) {
            json_object *copy = NULL;
            json_object_deep_copy(v, &copy, NULL);
            json_object_object_add(s, copied[i], copy);
        }
    }
    json_object_object_add(s, "resourceModels", json_object_get(c->models));
    json_object_object_add(o, "spec", s);
    sim_store_create(k->store, res_of("cluster.karmada.io", "v1alpha1", "clusters"), NULL, o,
                     clock_now(k), SIM_WRITE_INTERNAL, NULL, NULL);
    json_object_put(o);
    snprintf(buf, sizeof(buf), WORK_NS_PREFIX "%s", c->name);
    ensure_namespace(k, buf);
}

/* ---- detector ---- */

static int labels_match(json_object *selector, json_object *obj)
{
    json_object *ml = get_path(selector, "matchLabels", NULL, NULL);
    if (!ml)
        return 1;
    json_object_object_foreach(ml, key, want)
    {
        const char *have = get_str(obj, "metadata", "labels", key);
        if (!have || strcmp(have, json_object_get_string(want)) != 0)
            return 0;
    }
    return 1;
}

static int selector_matches(json_object *sel, json_object *obj)
{
    const char *av = get_str(sel, "apiVersion", NULL, NULL);
    const char *kind = get_str(sel, "kind", NULL, NULL);
    const char *name = get_str(sel, "name", NULL, NULL);
    const char *ns = get_str(sel, "namespace", NULL, NULL);
    const char *oav = get_str(obj, "apiVersion", NULL, NULL);
    const char *okind = get_str(obj, "kind", NULL, NULL);
    if (!av || !kind || !oav || !okind || strcmp(av, oav) != 0 || strcmp(kind, okind) != 0)
        return 0;
    if (name && name[0] && strcmp(name, sim_meta_str(obj, "name")) != 0)
        return 0;
    const char *ons = sim_meta_str(obj, "namespace");
    if (ns && ns[0] && (!ons || strcmp(ns, ons) != 0))
        return 0;
    json_object *ls = get_path(sel, "labelSelector", NULL, NULL);
    return !ls || labels_match(ls, obj);
}

static int policy_matches(json_object *policy, json_object *obj)
{
    json_object *sels = get_path(policy, "spec", "resourceSelectors", NULL);
    for (size_t i = 0;
         json_object_is_type(sels, json_type_array) && i < json_object_array_length(sels); i++)
        if (selector_matches(json_object_array_get_idx(sels, i), obj))
            return 1;
    return 0;
}

/* The PropagationPolicy in obj's namespace that claims it: highest spec.priority, then name. */
static json_object *find_policy(struct sim_karmada *k, json_object *obj)
{
    const char *ns = sim_meta_str(obj, "namespace");
    json_object *list = NULL;
    if (!ns ||
        sim_store_list(k->store, res_of("policy.karmada.io", "v1alpha1", "propagationpolicies"), ns,
                       NULL, &list, NULL) < 0)
        return NULL;
    json_object *best = NULL;
    int best_prio = 0;
    json_object *items = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *p = json_object_array_get_idx(items, i);
        if (!policy_matches(p, obj))
            continue;
        json_object *pr = get_path(p, "spec", "priority", NULL);
        int prio = pr ? json_object_get_int(pr) : 0;
        if (!best || prio > best_prio) {
            best = p;
            best_prio = prio;
        }
    }
    json_object_get(best);
    json_object_put(list);
    return best;
}

static void rb_name(json_object *obj, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s-%s", sim_meta_str(obj, "name"), get_str(obj, "kind", NULL, NULL));
    for (char *p = buf; *p; p++)
        *p = (char)tolower((unsigned char)*p);
}

static void copy_into(json_object *dst, const char *key, json_object *src)
{
    if (!src) {
        json_object_object_del(dst, key);
        return;
    }
    json_object *c = NULL;
    json_object_deep_copy(src, &c, NULL);
    json_object_object_add(dst, key, c);
}

/* Fills the spec fields the detector owns from the template and the policy. */
static void fill_rb_spec(json_object *spec, json_object *obj, json_object *policy)
{
    json_object *res = json_object_new_object();
    static const char *const keys[] = {"apiVersion", "kind"};
    for (size_t i = 0; i < 2; i++)
        json_object_object_add(res, keys[i],
                               json_object_new_string(get_str(obj, keys[i], NULL, NULL)));
    static const char *const meta[] = {"namespace", "name", "uid", "resourceVersion"};
    for (size_t i = 0; i < 4; i++)
        json_object_object_add(res, meta[i], json_object_new_string(sim_meta_str(obj, meta[i])));
    json_object_object_add(spec, "resource", res);

    const char *av = get_str(obj, "apiVersion", NULL, NULL);
    if (strcmp(av, "batch.volcano.sh/v1alpha1") == 0) {
        json_object_object_del(spec, "replicas");
        json_object_object_del(spec, "replicaRequirements");
        json_object_object_add(spec, "components", sim_karmada_vcjob_components(obj));
    } else {
        struct pod_set ps[1];
        if (workload_pods(obj, ps, 1) == 1) {
            json_object_object_add(spec, "replicas", json_object_new_int64(ps[0].replicas));
            json_object *rr = json_object_new_object();
            json_object_object_add(rr, "resourceRequest", sim_karmada_pod_requests(ps[0].spec));
            const char *pc = get_str(ps[0].spec, "priorityClassName", NULL, NULL);
            if (pc)
                json_object_object_add(rr, "priorityClassName", json_object_new_string(pc));
            json_object *claim = json_object_new_object();
            json_object *v = get_path(ps[0].spec, "nodeSelector", NULL, NULL);
            if (v)
                copy_into(claim, "nodeSelector", v);
            v = get_path(ps[0].spec, "tolerations", NULL, NULL);
            if (v)
                copy_into(claim, "tolerations", v);
            v = get_path(ps[0].spec, "affinity", "nodeAffinity",
                         "requiredDuringSchedulingIgnoredDuringExecution");
            if (v)
                copy_into(claim, "hardNodeAffinity", v);
            if (json_object_object_length(claim))
                json_object_object_add(rr, "nodeClaim", claim);
            else
                json_object_put(claim);
            json_object_object_add(rr, "namespace",
                                   json_object_new_string(sim_meta_str(obj, "namespace")));
            json_object_object_add(spec, "replicaRequirements", rr);
        }
    }
    copy_into(spec, "placement", get_path(policy, "spec", "placement", NULL));
    const char *sched = get_str(policy, "spec", "schedulerName", NULL);
    json_object_object_add(spec, "schedulerName",
                           json_object_new_string(sched ? sched : "default-scheduler"));
    json_object *cr = get_path(policy, "spec", "conflictResolution", NULL);
    json_object_object_add(spec, "conflictResolution",
                           cr ? json_object_get(cr) : json_object_new_string("Abort"));
}

static void detect(struct sim_karmada *k, json_object *obj)
{
    json_object *policy = find_policy(k, obj);
    if (!policy)
        return; /* Karmada leaves templates no policy claims alone */
    const struct sim_resource *rbr = res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    const char *ns = sim_meta_str(obj, "namespace");
    char name[NAME_MAX_LEN];
    rb_name(obj, name, sizeof(name));
    json_object *cur = NULL;
    if (sim_store_get(k->store, rbr, ns, name, &cur, NULL) == 0) {
        /* Refresh: the detector rewrites what it owns and keeps suspension, clusters and
         * everything the scheduler or muster wrote. */
        json_object *next = NULL;
        json_object_deep_copy(cur, &next, NULL);
        json_object *spec = get_path(next, "spec", NULL, NULL);
        if (!spec) {
            spec = json_object_new_object();
            json_object_object_add(next, "spec", spec);
        }
        fill_rb_spec(spec, obj, policy);
        sim_store_update(k->store, rbr, ns, name, next, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL,
                         NULL);
        json_object_put(next);
        json_object_put(cur);
        json_object_put(policy);
        return;
    }
    json_object *rb = json_object_new_object();
    json_object *meta = json_object_new_object();
    json_object_object_add(meta, "name", json_object_new_string(name));
    json_object *labels = json_object_new_object();
    char uid[40];
    sim_uuid(uid, sizeof(uid));
    json_object_object_add(labels, PERMANENT_ID_LABEL, json_object_new_string(uid));
    const char *ppid =
        get_str(policy, "metadata", "labels", "propagationpolicy.karmada.io/permanent-id");
    if (ppid)
        json_object_object_add(labels, "propagationpolicy.karmada.io/permanent-id",
                               json_object_new_string(ppid));
    json_object_object_add(meta, "labels", labels);
    json_object *ann = json_object_new_object();
    json_object_object_add(ann, "propagationpolicy.karmada.io/name",
                           json_object_new_string(sim_meta_str(policy, "name")));
    json_object_object_add(ann, "propagationpolicy.karmada.io/namespace",
                           json_object_new_string(ns));
    json_object_object_add(meta, "annotations", ann);
    json_object *owners = json_object_new_array();
    json_object *owner = json_object_new_object();
    json_object_object_add(owner, "apiVersion",
                           json_object_new_string(get_str(obj, "apiVersion", NULL, NULL)));
    json_object_object_add(owner, "kind", json_object_new_string(get_str(obj, "kind", NULL, NULL)));
    json_object_object_add(owner, "name", json_object_new_string(sim_meta_str(obj, "name")));
    json_object_object_add(owner, "uid", json_object_new_string(sim_meta_str(obj, "uid")));
    json_object_object_add(owner, "controller", json_object_new_boolean(1));
    json_object_object_add(owner, "blockOwnerDeletion", json_object_new_boolean(1));
    json_object_array_add(owners, owner);
    json_object_object_add(meta, "ownerReferences", owners);
    json_object_object_add(rb, "metadata", meta);
    json_object *spec = json_object_new_object();
    fill_rb_spec(spec, obj, policy);
    /* Held, as muster's admission webhook leaves every new RB. */
    json_object *susp = json_object_new_object();
    json_object_object_add(susp, "scheduling", json_object_new_boolean(1));
    json_object_object_add(spec, "suspension", susp);
    json_object_object_add(rb, "spec", spec);
    sim_store_create(k->store, rbr, ns, rb, clock_now(k), SIM_WRITE_INTERNAL | SIM_WRITE_SHARE,
                     NULL, NULL);
    json_object_put(rb);
    json_object_put(policy);
}

static void forget_workload(struct sim_karmada *k, json_object *obj)
{
    /* Garbage collection of the owned RB (the binding controller then removes its Works). */
    const struct sim_resource *rbr = res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    char name[NAME_MAX_LEN];
    rb_name(obj, name, sizeof(name));
    const char *ns = sim_meta_str(obj, "namespace");
    json_object *rb = NULL;
    if (sim_store_get(k->store, rbr, ns, name, &rb, NULL) < 0)
        return;
    json_object *owner =
        json_object_array_get_idx(get_path(rb, "metadata", "ownerReferences", NULL), 0);
    const char *ouid = get_str(owner, "uid", NULL, NULL);
    if (ouid && strcmp(ouid, sim_meta_str(obj, "uid")) == 0)
        sim_store_delete(k->store, rbr, ns, name, NULL, NULL, clock_now(k), NULL, NULL);
    json_object_put(rb);
}

struct each_workload {
    struct sim_karmada *k;
    const struct sim_resource *r;
    const char *ns;
};

static void detect_one(void *data, json_object *obj)
{
    struct each_workload *e = data;
    const char *ns = sim_meta_str(obj, "namespace");
    if (ns && strcmp(ns, e->ns) == 0)
        detect(e->k, obj);
}

static void policy_changed(struct sim_karmada *k, json_object *policy)
{
    for (size_t i = 0; i < sim_resource_count(); i++) {
        const struct sim_resource *r = sim_resource_at(i);
        if (!is_workload(r))
            continue;
        struct each_workload e = {k, r, sim_meta_str(policy, "namespace")};
        sim_store_each(k->store, r, detect_one, &e);
    }
}

/* ---- binding controller ---- */

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

/* "<name>-<hash>" in the spirit of Karmada's names.GenerateWorkName (the hash function differs;
 * see docs/sim.md). */
static void work_name(json_object *rb, char *buf, size_t cap)
{
    char key[3 * NAME_MAX_LEN];
    const char *ns = get_str(rb, "spec", "resource", "namespace");
    const char *name = get_str(rb, "spec", "resource", "name");
    const char *kind = get_str(rb, "spec", "resource", "kind");
    snprintf(key, sizeof(key), "%s-%s-%s", ns ? ns : "", name ? name : "", kind ? kind : "");
    for (char *p = key; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    snprintf(buf, cap, "%.200s-%x", name ? name : "work", fnv1a(key));
}

static int cluster_listed(json_object *names, const char *cluster)
{
    for (size_t i = 0;
         json_object_is_type(names, json_type_array) && i < json_object_array_length(names); i++) {
        json_object *e = json_object_array_get_idx(names, i);
        const char *n = json_object_is_type(e, json_type_string) ? json_object_get_string(e)
                                                                 : get_str(e, "name", NULL, NULL);
        if (n && strcmp(n, cluster) == 0)
            return 1;
    }
    return 0;
}

/* 1 when OverridePolicy op selects tmpl (no resourceSelectors: everything in its namespace). */
static int override_selects(json_object *op, json_object *tmpl)
{
    json_object *sels = get_path(op, "spec", "resourceSelectors", NULL);
    int selected = !sels;
    for (size_t s = 0; !selected && json_object_is_type(sels, json_type_array) &&
                       s < json_object_array_length(sels);
         s++)
        selected = selector_matches(json_object_array_get_idx(sels, s), tmpl);
    return selected;
}

/* ---- the OverridePolicy index ---- */

/* Index of the first key >= key. */
static size_t keyset_lower_bound(const struct keyset *ks, const char *key)
{
    size_t lo = 0, hi = ks->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ks->v[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int keyset_add(struct keyset *ks, const char *key)
{
    size_t i = keyset_lower_bound(ks, key);
    if (i < ks->n && strcmp(ks->v[i], key) == 0)
        return 0;
    if (ks->n == ks->cap) {
        size_t cap = ks->cap ? ks->cap * 2 : 64;
        char **v = muster_realloc(ks->v, cap * sizeof(*v));
        if (!v)
            return MUSTER_ENOMEM;
        ks->v = v;
        ks->cap = cap;
    }
    char *kk = muster_strdup(key);
    if (!kk)
        return MUSTER_ENOMEM;
    memmove(&ks->v[i + 1], &ks->v[i], (ks->n - i) * sizeof(*ks->v));
    ks->v[i] = kk;
    ks->n++;
    return 0;
}

static void keyset_remove(struct keyset *ks, const char *key)
{
    size_t i = keyset_lower_bound(ks, key);
    if (i == ks->n || strcmp(ks->v[i], key) != 0)
        return;
    muster_free(ks->v[i]);
    memmove(&ks->v[i], &ks->v[i + 1], (ks->n - i - 1) * sizeof(*ks->v));
    ks->n--;
}

static void keyset_free(struct keyset *ks)
{
    for (size_t i = 0; i < ks->n; i++)
        muster_free(ks->v[i]);
    muster_free(ks->v);
    memset(ks, 0, sizeof(*ks));
}

/* Adds (add = 1) or removes op's keys. The keys follow override_selects: a missing
 * resourceSelectors selects everything (wild), one that is not an array selects nothing. A
 * selector naming no template is wild; selector_matches still decides at render time, so the
 * index only has to never miss a policy that may select. */
static void op_index(struct sim_karmada *k, json_object *op, int add)
{
    const char *ns = sim_meta_str(op, "namespace");
    const char *name = sim_meta_str(op, "name");
    if (!ns || !name)
        return;
    json_object *sels = get_path(op, "spec", "resourceSelectors", NULL);
    int wild = !sels;
    char key[6 * NAME_MAX_LEN];
    for (size_t i = 0;
         json_object_is_type(sels, json_type_array) && i < json_object_array_length(sels); i++) {
        json_object *sel = json_object_array_get_idx(sels, i);
        const char *av = get_str(sel, "apiVersion", NULL, NULL);
        const char *kind = get_str(sel, "kind", NULL, NULL);
        const char *tname = get_str(sel, "name", NULL, NULL);
        if (!av || !kind || !tname || !tname[0]) {
            wild = 1;
            continue;
        }
        snprintf(key, sizeof(key), "%s" OP_SEP "%s" OP_SEP "%s" OP_SEP "%s" OP_SEP "%s", ns, av,
                 kind, tname, name);
        if (add)
            keyset_add(&k->op_named, key); /* on failure the policy is not applied: degrade */
        else
            keyset_remove(&k->op_named, key);
    }
    if (!wild)
        return;
    snprintf(key, sizeof(key), "%s" OP_SEP "%s", ns, name);
    if (add)
        keyset_add(&k->op_wild, key);
    else
        keyset_remove(&k->op_wild, key);
}

/* Keeps the index in step with an OverridePolicy event (DELETED carries the last state). */
static void index_override(struct sim_karmada *k, const struct sim_event *ev)
{
    if (ev->type == SIM_EVENT_MODIFIED && ev->prev)
        op_index(k, ev->prev, 0);
    op_index(k, ev->obj, ev->type != SIM_EVENT_DELETED);
}

static void index_override_existing(void *data, json_object *op)
{
    op_index(data, op, 1);
}

/* The policy names (the keys' last field) of the keys of ks starting with prefix, appended to
 * *names (grown as needed). Returns 0 or MUSTER_ENOMEM. */
static int op_candidates(const struct keyset *ks, const char *prefix, const char ***names,
                         size_t *n, size_t *cap)
{
    size_t plen = strlen(prefix);
    for (size_t i = keyset_lower_bound(ks, prefix);
         i < ks->n && strncmp(ks->v[i], prefix, plen) == 0; i++) {
        if (*n == *cap) {
            size_t c = *cap ? *cap * 2 : 16;
            const char **v = muster_realloc(*names, c * sizeof(*v));
            if (!v)
                return MUSTER_ENOMEM;
            *names = v;
            *cap = c;
        }
        (*names)[(*n)++] = ks->v[i] + plen;
    }
    return 0;
}

/* Applies op's plaintext overriders for cluster to *tmpl. */
static void apply_override(json_object *op, const char *cluster, json_object **tmpl)
{
    json_object *rules = get_path(op, "spec", "overrideRules", NULL);
    for (size_t r = 0;
         json_object_is_type(rules, json_type_array) && r < json_object_array_length(rules); r++) {
        json_object *rule = json_object_array_get_idx(rules, r);
        json_object *target = get_path(rule, "targetCluster", "clusterNames", NULL);
        if (target && !cluster_listed(target, cluster))
            continue;
        json_object *plain = get_path(rule, "overriders", "plaintext", NULL);
        if (!json_object_is_type(plain, json_type_array))
            continue;
        json_object *ops = json_object_new_array();
        for (size_t p = 0; p < json_object_array_length(plain); p++) {
            json_object *o = json_object_array_get_idx(plain, p);
            json_object *jp = json_object_new_object();
            const char *oper = get_str(o, "operator", NULL, NULL);
            const char *path = get_str(o, "path", NULL, NULL);
            json_object_object_add(jp, "op", json_object_new_string(oper ? oper : "replace"));
            json_object_object_add(jp, "path", json_object_new_string(path ? path : ""));
            json_object *v = get_path(o, "value", NULL, NULL);
            if (v)
                json_object_object_add(jp, "value", json_object_get(v));
            json_object_array_add(ops, jp);
        }
        json_object *patched = NULL;
        char err[256];
        /* Karmada fails the whole render on a bad overrider; the sim skips the rule. */
        if (sim_json_patch(*tmpl, ops, &patched, err, sizeof(err)) == 0) {
            json_object_put(*tmpl);
            *tmpl = patched;
        }
        json_object_put(ops);
    }
}

/* Applies the plaintext overriders of every OverridePolicy in ns that selects tmpl and targets
 * cluster, in name order as Karmada sorts them. The candidates come from the index, looked up
 * by the template as it is before any overrider ran (an overrider renaming the template does
 * not bring in policies naming the new name). */
static void apply_overrides(struct sim_karmada *k, const char *ns, const char *cluster,
                            json_object **tmpl)
{
    if (!ns)
        return;
    const char *av = get_str(*tmpl, "apiVersion", NULL, NULL);
    const char *kind = get_str(*tmpl, "kind", NULL, NULL);
    const char *tname = sim_meta_str(*tmpl, "name");
    char prefix[6 * NAME_MAX_LEN];
    const char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    if (av && kind && tname) {
        snprintf(prefix, sizeof(prefix), "%s" OP_SEP "%s" OP_SEP "%s" OP_SEP "%s" OP_SEP, ns, av,
                 kind, tname);
        rc = op_candidates(&k->op_named, prefix, &names, &n, &cap);
    }
    snprintf(prefix, sizeof(prefix), "%s" OP_SEP, ns);
    if (rc == 0)
        rc = op_candidates(&k->op_wild, prefix, &names, &n, &cap);
    if (rc < 0) {
        muster_free(names);
        return;
    }
    /* Sorted copies of the names: applying an overrider writes nothing, so the keys stay. */
    if (n) /* names stays NULL when no policy is a candidate */
        qsort(names, n, sizeof(*names), str_cmp);
    const struct sim_resource *opr = res_of("policy.karmada.io", "v1alpha1", "overridepolicies");
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
            continue; /* several selectors of one policy name the template */
        json_object *op = NULL;
        if (sim_store_get(k->store, opr, ns, names[i], &op, NULL) < 0)
            continue;
        if (override_selects(op, *tmpl))
            apply_override(op, cluster, tmpl);
        json_object_put(op);
    }
    muster_free(names);
}

static json_object *render_manifest(struct sim_karmada *k, json_object *rb, json_object *target)
{
    const char *av = get_str(rb, "spec", "resource", "apiVersion");
    const char *kind = get_str(rb, "spec", "resource", "kind");
    const char *ns = get_str(rb, "spec", "resource", "namespace");
    const char *name = get_str(rb, "spec", "resource", "name");
    const struct sim_resource *r = sim_resource_by_kind(av, kind);
    json_object *tmpl = NULL;
    if (!r || !name || sim_store_get(k->store, r, r->namespaced ? ns : NULL, name, &tmpl, NULL) < 0)
        return NULL;
    /* The template is read-only: new objects for the levels edited here (the top, metadata,
     * spec), references to the rest; overriders copy what they patch. */
    json_object *copy = shallow_copy(tmpl);
    json_object *meta = shallow_copy(get_path(tmpl, "metadata", NULL, NULL));
    json_object *spec = shallow_copy(get_path(tmpl, "spec", NULL, NULL));
    json_object_put(tmpl);
    if (!copy || !meta) {
        json_object_put(copy);
        json_object_put(meta);
        json_object_put(spec);
        return NULL;
    }
    json_object_object_add(copy, "metadata", meta);
    if (spec)
        json_object_object_add(copy, "spec", spec);
    static const char *const strip[] = {"uid",        "resourceVersion", "creationTimestamp",
                                        "generation", "managedFields",   "ownerReferences",
                                        "selfLink"};
    for (size_t i = 0; i < sizeof(strip) / sizeof(strip[0]); i++)
        json_object_object_del(meta, strip[i]);
    json_object_object_del(copy, "status");
    /* Divided placement: the member runs its share. */
    json_object *replicas = get_path(target, "replicas", NULL, NULL);
    if (replicas && spec && strcmp(av, "apps/v1") == 0 && strcmp(kind, "Deployment") == 0)
        json_object_object_add(spec, "replicas", json_object_get(replicas));
    else if (replicas && spec && strcmp(av, "batch/v1") == 0 && strcmp(kind, "Job") == 0)
        json_object_object_add(spec, "parallelism", json_object_get(replicas));
    apply_overrides(k, ns, get_str(target, "name", NULL, NULL), &copy);
    return copy;
}

static int dispatching_suspended(json_object *rb, const char *cluster)
{
    json_object *d = get_path(rb, "spec", "suspension", "dispatching");
    if (d && json_object_get_boolean(d))
        return 1;
    json_object *on = get_path(rb, "spec", "suspension", "dispatchingOnClusters");
    return on && cluster_listed(get_path(on, "clusterNames", NULL, NULL), cluster);
}

static void ensure_work(struct sim_karmada *k, json_object *rb, json_object *target)
{
    const char *cluster = get_str(target, "name", NULL, NULL);
    if (!cluster)
        return;
    json_object *manifest = render_manifest(k, rb, target);
    if (!manifest)
        return;
    const struct sim_resource *wr = res_of("work.karmada.io", "v1alpha1", "works");
    char ns[NAME_MAX_LEN], name[NAME_MAX_LEN];
    snprintf(ns, sizeof(ns), WORK_NS_PREFIX "%.200s", cluster);
    ensure_namespace(k, ns);
    work_name(rb, name, sizeof(name));
    json_object *cur = NULL, *work = NULL;
    int exists = sim_store_get(k->store, wr, ns, name, &cur, NULL) == 0;
    /* The stored Work is read-only: copy the levels this changes, share the rest. */
    work = exists ? shallow_copy(cur) : json_object_new_object();
    json_object *meta = NULL;
    if (exists && work) {
        meta = shallow_copy(get_path(cur, "metadata", NULL, NULL));
        static const char *const maps[] = {"labels", "annotations"};
        for (size_t i = 0; meta && i < 2; i++) {
            json_object *was = get_path(meta, maps[i], NULL, NULL);
            json_object *sub = shallow_copy(was);
            if (was && !sub) {
                json_object_put(meta); /* never edit the stored maps in place */
                meta = NULL;
            } else if (sub) {
                json_object_object_add(meta, maps[i], sub);
            }
        }
        if (meta) {
            json_object_object_add(work, "metadata", meta);
        } else {
            json_object_put(work);
            work = NULL;
        }
    }
    json_object_put(cur);
    if (!work)
        return;
    meta = get_path(work, "metadata", NULL, NULL);
    if (!meta) {
        meta = json_object_new_object();
        json_object_object_add(meta, "name", json_object_new_string(name));
        json_object_object_add(work, "metadata", meta);
    }
    json_object *labels = get_path(meta, "labels", NULL, NULL);
    if (!labels) {
        labels = json_object_new_object();
        json_object_object_add(meta, "labels", labels);
    }
    const char *pid = get_str(rb, "metadata", "labels", PERMANENT_ID_LABEL);
    if (pid)
        json_object_object_add(labels, PERMANENT_ID_LABEL, json_object_new_string(pid));
    if (!get_str(labels, "work.karmada.io/permanent-id", NULL, NULL)) {
        char uid[40];
        sim_uuid(uid, sizeof(uid));
        json_object_object_add(labels, "work.karmada.io/permanent-id", json_object_new_string(uid));
    }
    json_object *ann = get_path(meta, "annotations", NULL, NULL);
    if (!ann) {
        ann = json_object_new_object();
        json_object_object_add(meta, "annotations", ann);
    }
    json_object_object_add(ann, "resourcebinding.karmada.io/name",
                           json_object_new_string(sim_meta_str(rb, "name")));
    json_object_object_add(ann, "resourcebinding.karmada.io/namespace",
                           json_object_new_string(sim_meta_str(rb, "namespace")));
    json_object *spec = json_object_new_object();
    json_object *wl = json_object_new_object();
    json_object *manifests = json_object_new_array();
    json_object_array_add(manifests, manifest);
    json_object_object_add(wl, "manifests", manifests);
    json_object_object_add(spec, "workload", wl);
    if (dispatching_suspended(rb, cluster))
        json_object_object_add(spec, "suspendDispatching", json_object_new_boolean(1));
    json_object_object_add(work, "spec", spec);
    if (exists)
        sim_store_update(k->store, wr, ns, name, work, SIM_WRITE_INTERNAL | SIM_WRITE_SHARE, NULL,
                         NULL);
    else
        sim_store_create(k->store, wr, ns, work, clock_now(k), SIM_WRITE_INTERNAL | SIM_WRITE_SHARE,
                         NULL, NULL);
    json_object_put(work);
}

/* Deletes the Works labelled with permanent id pid outside the clusters listed in keep (NULL:
 * delete all of them). */
static int ref_cmp(const char *pid, const char *key, const struct pid_ref *r)
{
    int c = strcmp(pid, r->pid);
    return c ? c : strcmp(key, r->key);
}

/* Index of the first ref >= (pid, key). */
static size_t ref_lower_bound(const struct sim_karmada *k, const char *pid, const char *key)
{
    size_t lo = 0, hi = k->nrefs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ref_cmp(pid, key, &k->refs[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void ref_add(struct sim_karmada *k, const char *pid, const char *key)
{
    size_t i = ref_lower_bound(k, pid, key);
    if (i < k->nrefs && ref_cmp(pid, key, &k->refs[i]) == 0)
        return;
    if (k->nrefs == k->caprefs) {
        size_t cap = k->caprefs ? k->caprefs * 2 : 64;
        struct pid_ref *v = muster_realloc(k->refs, cap * sizeof(*v));
        if (!v)
            return; /* the Work is then not pruned; the simulation degrades, never crashes */
        k->refs = v;
        k->caprefs = cap;
    }
    char *p = muster_strdup(pid), *kk = muster_strdup(key);
    if (!p || !kk) {
        muster_free(p);
        muster_free(kk);
        return;
    }
    memmove(&k->refs[i + 1], &k->refs[i], (k->nrefs - i) * sizeof(*k->refs));
    k->refs[i].pid = p;
    k->refs[i].key = kk;
    k->nrefs++;
}

static void ref_remove(struct sim_karmada *k, const char *pid, const char *key)
{
    size_t i = ref_lower_bound(k, pid, key);
    if (i == k->nrefs || ref_cmp(pid, key, &k->refs[i]) != 0)
        return;
    muster_free(k->refs[i].pid);
    muster_free(k->refs[i].key);
    memmove(&k->refs[i], &k->refs[i + 1], (k->nrefs - i - 1) * sizeof(*k->refs));
    k->nrefs--;
}

/* Keeps the permanent-id index in step with a Work event. */
static void index_work(struct sim_karmada *k, const struct sim_event *ev)
{
    const char *ns = sim_meta_str(ev->obj, "namespace");
    const char *name = sim_meta_str(ev->obj, "name");
    if (!ns || !name)
        return;
    char key[2 * NAME_MAX_LEN];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    const char *pid = get_str(ev->obj, "metadata", "labels", PERMANENT_ID_LABEL);
    const char *old = ev->prev ? get_str(ev->prev, "metadata", "labels", PERMANENT_ID_LABEL) : NULL;
    if (old && (ev->type == SIM_EVENT_DELETED || !pid || strcmp(old, pid) != 0))
        ref_remove(k, old, key);
    if (pid && ev->type == SIM_EVENT_DELETED)
        ref_remove(k, pid, key);
    else if (pid)
        ref_add(k, pid, key);
}

/* Deletes the Works labelled with permanent id pid outside the clusters listed in keep (NULL:
 * delete all of them). */
static void prune_works(struct sim_karmada *k, const char *pid, json_object *keep)
{
    size_t i = ref_lower_bound(k, pid, ""), n = 0;
    while (i + n < k->nrefs && strcmp(k->refs[i + n].pid, pid) == 0)
        n++;
    if (!n)
        return;
    /* Deleting edits the index (through the DELETED events): work on a copy of the keys. */
    char(*keys)[2 * NAME_MAX_LEN] = muster_malloc(n * sizeof(*keys));
    if (!keys)
        return;
    for (size_t j = 0; j < n; j++)
        snprintf(keys[j], sizeof(keys[j]), "%s", k->refs[i + j].key);
    const struct sim_resource *wr = res_of("work.karmada.io", "v1alpha1", "works");
    size_t plen = strlen(WORK_NS_PREFIX);
    for (size_t j = 0; j < n; j++) {
        char *slash = strchr(keys[j], '/');
        if (!slash)
            continue;
        *slash = '\0';
        const char *ns = keys[j];
        if (strncmp(ns, WORK_NS_PREFIX, plen) != 0)
            continue;
        if (keep && cluster_listed(keep, ns + plen))
            continue;
        sim_store_delete(k->store, wr, ns, slash + 1, NULL, NULL, clock_now(k), NULL, NULL);
    }
    muster_free(keys);
}

/* Karmada aggregates status from the Works that exist: a cluster that left spec.clusters leaves
 * status.aggregatedStatus too (and FullyApplied is re-evaluated). */
static void drop_stale_status(struct sim_karmada *k, json_object *rb)
{
    json_object *agg = get_path(rb, "status", "aggregatedStatus", NULL);
    json_object *clusters = get_path(rb, "spec", "clusters", NULL);
    size_t n = json_object_is_type(agg, json_type_array) ? json_object_array_length(agg) : 0;
    int stale = 0;
    for (size_t i = 0; i < n && !stale; i++) {
        const char *cn = get_str(json_object_array_get_idx(agg, i), "clusterName", NULL, NULL);
        stale = !cn || !cluster_listed(clusters, cn);
    }
    if (!stale)
        return;
    json_object *copy = NULL;
    json_object_deep_copy(rb, &copy, NULL);
    if (!copy)
        return;
    json_object *status = get_path(copy, "status", NULL, NULL);
    json_object *kept = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(agg, i);
        const char *cn = get_str(e, "clusterName", NULL, NULL);
        if (cn && cluster_listed(clusters, cn)) {
            json_object *c = NULL;
            json_object_deep_copy(e, &c, NULL);
            json_object_array_add(kept, c);
        }
    }
    if (json_object_array_length(kept))
        json_object_object_add(status, "aggregatedStatus", kept);
    else {
        json_object_put(kept);
        json_object_object_del(status, "aggregatedStatus");
        kept = NULL;
    }
    json_object *empty = kept ? NULL : json_object_new_array();
    set_fully_applied(k, copy, status, kept ? kept : empty);
    json_object_put(empty);
    sim_store_update(k->store, res_of("work.karmada.io", "v1alpha2", "resourcebindings"),
                     sim_meta_str(rb, "namespace"), sim_meta_str(rb, "name"), copy,
                     SIM_WRITE_INTERNAL, NULL, NULL);
    json_object_put(copy);
}

static void sync_binding(struct sim_karmada *k, json_object *rb)
{
    json_object *clusters = get_path(rb, "spec", "clusters", NULL);
    const char *pid = get_str(rb, "metadata", "labels", PERMANENT_ID_LABEL);
    for (size_t i = 0;
         json_object_is_type(clusters, json_type_array) && i < json_object_array_length(clusters);
         i++)
        ensure_work(k, rb, json_object_array_get_idx(clusters, i));
    if (!pid)
        return;
    /* No spec.clusters means no cluster keeps a Work. */
    json_object *none = clusters ? NULL : json_object_new_array();
    prune_works(k, pid, clusters ? clusters : none);
    json_object_put(none);
    drop_stale_status(k, rb);
}

/* 1 when op may select the template av/kind/name (checked on the RB's spec.resource, before
 * the template is read for namespace and labels). */
static int override_may_select(json_object *op, const char *av, const char *kind, const char *name)
{
    json_object *sels = get_path(op, "spec", "resourceSelectors", NULL);
    if (!sels)
        return 1;
    for (size_t s = 0;
         json_object_is_type(sels, json_type_array) && s < json_object_array_length(sels); s++) {
        json_object *sel = json_object_array_get_idx(sels, s);
        const char *sav = get_str(sel, "apiVersion", NULL, NULL);
        const char *skind = get_str(sel, "kind", NULL, NULL);
        const char *sname = get_str(sel, "name", NULL, NULL);
        if (sav && skind && strcmp(sav, av) == 0 && strcmp(skind, kind) == 0 &&
            (!sname || !sname[0] || strcmp(sname, name) == 0))
            return 1;
    }
    return 0;
}

/* Karmada's binding controller re-syncs the bindings an OverridePolicy selects whenever the
 * policy is created, updated or deleted: their Works are rendered again with (or without) its
 * overriders. ev is the policy's event; prev (updates) selects too, so a binding the policy
 * stops selecting loses its overrides. */
/* The RB of each template a policy names ("<name>-<kind>", lower case, the detector's naming),
 * synced directly: a policy whose every selector names its template (muster's, one per RB)
 * needs no walk over the namespace's RBs, which would make N policies cost N x N. Returns 0 when
 * some selector (in the policy or its previous version) names no template: walk instead. */
static int resync_named(struct sim_karmada *k, const struct sim_resource *rbr, const char *ns,
                        const struct sim_event *ev)
{
    json_object *versions[2] = {ev->obj, ev->prev};
    for (int v = 0; v < 2; v++) {
        json_object *sels =
            versions[v] ? get_path(versions[v], "spec", "resourceSelectors", NULL) : NULL;
        if (versions[v] && !json_object_is_type(sels, json_type_array))
            return 0;
        for (size_t i = 0; sels && i < json_object_array_length(sels); i++) {
            json_object *sel = json_object_array_get_idx(sels, i);
            if (!get_str(sel, "name", NULL, NULL) || !get_str(sel, "kind", NULL, NULL))
                return 0;
        }
    }
    for (int v = 0; v < 2; v++) {
        json_object *sels =
            versions[v] ? get_path(versions[v], "spec", "resourceSelectors", NULL) : NULL;
        for (size_t i = 0; sels && i < json_object_array_length(sels); i++) {
            json_object *sel = json_object_array_get_idx(sels, i);
            const char *sns = get_str(sel, "namespace", NULL, NULL);
            if (sns && strcmp(sns, ns) != 0)
                continue;
            char name[NAME_MAX_LEN];
            snprintf(name, sizeof name, "%s-%s", get_str(sel, "name", NULL, NULL),
                     get_str(sel, "kind", NULL, NULL));
            for (char *p = name; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            json_object *cur = NULL;
            if (sim_store_get(k->store, rbr, ns, name, &cur, NULL) < 0)
                continue;
            const char *av = get_str(cur, "spec", "resource", "apiVersion");
            const char *kind = get_str(cur, "spec", "resource", "kind");
            const char *tname = get_str(cur, "spec", "resource", "name");
            if (av && kind && tname &&
                (override_may_select(ev->obj, av, kind, tname) ||
                 (ev->prev && override_may_select(ev->prev, av, kind, tname))))
                sync_binding(k, cur);
            json_object_put(cur);
        }
    }
    return 1;
}

static void overrides_changed(struct sim_karmada *k, const struct sim_event *ev)
{
    if (ev->type == SIM_EVENT_MODIFIED && ev->prev &&
        json_object_equal(get_path(ev->obj, "spec", NULL, NULL),
                          get_path(ev->prev, "spec", NULL, NULL)))
        return; /* metadata only: the render is the same */
    const char *ns = sim_meta_str(ev->obj, "namespace");
    const struct sim_resource *rbr = res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    if (ns && resync_named(k, rbr, ns, ev))
        return;
    json_object *list = NULL;
    if (!ns || sim_store_list(k->store, rbr, ns, NULL, &list, NULL) < 0)
        return;
    json_object *items = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *rb = json_object_array_get_idx(items, i);
        const char *av = get_str(rb, "spec", "resource", "apiVersion");
        const char *kind = get_str(rb, "spec", "resource", "kind");
        const char *tns = get_str(rb, "spec", "resource", "namespace");
        const char *tname = get_str(rb, "spec", "resource", "name");
        if (!av || !kind || !tname ||
            (!override_may_select(ev->obj, av, kind, tname) &&
             !(ev->prev && override_may_select(ev->prev, av, kind, tname))))
            continue;
        const struct sim_resource *r = sim_resource_by_kind(av, kind);
        json_object *tmpl = NULL;
        if (!r || sim_store_get(k->store, r, r->namespaced ? tns : NULL, tname, &tmpl, NULL) < 0)
            continue;
        int selected =
            override_selects(ev->obj, tmpl) || (ev->prev && override_selects(ev->prev, tmpl));
        json_object_put(tmpl);
        if (!selected)
            continue;
        /* The listed copy may be stale by now (earlier syncs write status): read it again. */
        json_object *cur = NULL;
        if (sim_store_get(k->store, rbr, ns, sim_meta_str(rb, "name"), &cur, NULL) < 0)
            continue;
        sync_binding(k, cur);
        json_object_put(cur);
    }
    json_object_put(list);
}

/* ---- event routing ---- */

static int is(const struct sim_resource *r, const char *group, const char *plural)
{
    return strcmp(r->group, group) == 0 && strcmp(r->plural, plural) == 0;
}

/* 1 for a MODIFIED event that changed nothing but status (and the resourceVersion). */
static int status_only(const struct sim_event *ev)
{
    if (ev->type != SIM_EVENT_MODIFIED || !ev->prev)
        return 0;
    json_object *a = get_path(ev->obj, "spec", NULL, NULL);
    json_object *b = get_path(ev->prev, "spec", NULL, NULL);
    if (!json_object_equal(a, b))
        return 0;
    static const char *const meta[] = {"labels", "annotations", "ownerReferences"};
    for (size_t i = 0; i < 3; i++)
        if (!json_object_equal(get_path(ev->obj, "metadata", meta[i], NULL),
                               get_path(ev->prev, "metadata", meta[i], NULL)))
            return 0;
    return 1;
}

static void on_event(void *data, const struct sim_event *ev)
{
    struct sim_karmada *k = data;
    const struct sim_resource *r = ev->res;
    if (is_workload(r)) {
        if (ev->type == SIM_EVENT_DELETED)
            forget_workload(k, ev->obj);
        else
            detect(k, ev->obj);
    } else if (is(r, "policy.karmada.io", "propagationpolicies")) {
        if (ev->type != SIM_EVENT_DELETED)
            policy_changed(k, ev->obj);
    } else if (is(r, "policy.karmada.io", "overridepolicies")) {
        index_override(k, ev);
        overrides_changed(k, ev);
    } else if (is(r, "work.karmada.io", "resourcebindings")) {
        if (status_only(ev))
            return; /* aggregatedStatus and muster's conditions change no Work */
        if (ev->type == SIM_EVENT_DELETED) {
            const char *pid = get_str(ev->obj, "metadata", "labels", PERMANENT_ID_LABEL);
            if (pid)
                prune_works(k, pid, NULL);
        } else {
            sync_binding(k, ev->obj);
        }
    } else if (is(r, "work.karmada.io", "works")) {
        index_work(k, ev);
        const char *ns = sim_meta_str(ev->obj, "namespace");
        size_t plen = strlen(WORK_NS_PREFIX);
        struct cluster *c =
            ns && strncmp(ns, WORK_NS_PREFIX, plen) == 0 ? find_cluster(k, ns + plen) : NULL;
        /* A Work's status is the member's own report: it never moves a pod. */
        if (!c || !mirror_work(c, ev))
            return;
        if (!k->deferred) {
            cluster_sync(k, c);
        } else if (!c->dirty) {
            c->dirty = 1;
            if (k->on_dirty)
                k->on_dirty(k->dirty_data);
        }
    }
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
        cluster_sync(k, &k->clusters[i]);
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
    json_object *clusters = get_path(scenario, "clusters", NULL, NULL);
    size_t n =
        json_object_is_type(clusters, json_type_array) ? json_object_array_length(clusters) : 0;
    int rc = 0;
    if (n) {
        k->clusters = muster_calloc(n, sizeof(*k->clusters));
        if (!k->clusters)
            rc = MUSTER_ENOMEM;
        k->nclusters = n;
    }
    time_t t = clock_now(k);
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
    /* The watch starts now: policies already stored are indexed from the store. */
    if (rc == 0)
        sim_store_each(store, res_of("policy.karmada.io", "v1alpha1", "overridepolicies"),
                       index_override_existing, k);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        create_cluster_object(k, &k->clusters[i], json_object_array_get_idx(clusters, i));
        cluster_sync(k, &k->clusters[i]);
    }
    json_object *objects = get_path(scenario, "objects", NULL, NULL);
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
    for (size_t i = 0; i < k->nclusters; i++) {
        muster_free(k->clusters[i].nodes);
        muster_free(k->clusters[i].ranges);
        json_object_put(k->clusters[i].models);
        for (size_t w = 0; w < k->clusters[i].nworks; w++)
            mwork_free(k->clusters[i].works[w]);
        muster_free(k->clusters[i].works);
        muster_free(k->clusters[i].pgs);
        muster_free(k->clusters[i].gangs);
        muster_free(k->clusters[i].pending);
        muster_free(k->clusters[i].touched);
        deps_reset(&k->clusters[i]);
        muster_free(k->clusters[i].deps);
        muster_free(k->clusters[i].members);
    }
    muster_free(k->clusters);
    for (size_t i = 0; i < k->nrefs; i++) {
        muster_free(k->refs[i].pid);
        muster_free(k->refs[i].key);
    }
    muster_free(k->refs);
    keyset_free(&k->op_named);
    keyset_free(&k->op_wild);
    for (size_t i = 0; i < k->nres; i++)
        muster_free(k->res[i]);
    muster_free(k);
}
