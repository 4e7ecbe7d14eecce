/* What the simulated Karmada controllers share (private to cluster-adapters/sim: karmada.c and
 * the controller files beside it). Not for use outside the simulator's Karmada. */
#ifndef MUSTER_SIM_KARMADA_INT_H
#define MUSTER_SIM_KARMADA_INT_H

#include "cluster-adapters/sim/karmada.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct sim_resource;

#define PERMANENT_ID_LABEL "resourcebinding.karmada.io/permanent-id"
#define WORK_NS_PREFIX "karmada-es-"
#define BINDING_FINALIZER "karmada.io/binding-controller" /* util.BindingControllerFinalizer */
#define EXECUTION_FINALIZER                                                                        \
    "karmada.io/execution-controller" /* util.ExecutionControllerFinalizer */
#define MAX_RES 32                    /* distinct resource names across a scenario's nodes */
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
    int unknown; /* not Ready, and its status no longer posted (SIM_CLUSTER_UNKNOWN) */
    /* The work status controller reflects nothing from it into its Works' status (a fault:
     * sim_karmada_pause_work_status); the member runs on, and its Cluster status is posted. */
    int work_status_paused;
    /* What the member's API server serves: its status.apiEnablements, and what the execution
     * controller can create there (scenario `volcano: false` leaves Volcano's groups out). */
    sim_api_set api;
    int dirty; /* deferred mode: a sync is due */
    time_t ready_since;
    struct node *nodes;
    size_t nnodes;
    json_object *models; /* spec.resourceModels as served */
    /* models as numbers: grades x ranges */
    size_t ngrades, nranges;
    struct grade_range *ranges; /* ngrades * nranges */
    /* The member's objects (what the execution controller applied from the cluster's Works,
     * PodGroups included), kept as C structs so that a sync places only the shares that are not
     * running yet: the objects by key ("namespace/name/Kind/apiVersion"), and its PodGroups by
     * "namespace/name". */
    struct mwork **works;
    size_t nworks, capworks;
    struct pgref *pgs;
    size_t npgs, cappgs;
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

/* The OverridePolicy informer: its copy of a policy, and an event not delivered yet. */
struct op_cached {
    char *key; /* "namespace/name" */
    json_object *obj;
};

struct op_pending {
    int64_t due; /* ms, on the options' clock */
    enum sim_event_type type;
    json_object *obj, *prev;
};

struct sim_karmada {
    struct sim_karmada_options opts;
    sim_api_set hub_hidden; /* what the karmada-apiserver does not serve */
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
    /* The informer cache renders read (sorted by key), and the events it has not delivered
     * yet, oldest first from qhead. */
    struct op_cached *opc;
    size_t nopc, capopc;
    struct op_pending *opq;
    size_t qhead, nopq, capopq;
    /* What the last TrainJob's pod sets point into (interpret_kinds.c): its runtime and the
     * pod specs merged with its resourcesPerNode */
    json_object *kind19_scratch;
    sim_karmada_admit_fn admit; /* RB creates through the hub's webhooks, or NULL */
    void *admit_data;
    struct keyset admitting; /* "namespace/name" of RBs whose admission is in flight */
    void (*on_override_due)(void *data, int64_t delay_ms);
    void *due_data;
    int evicting; /* some RB has graceful eviction tasks: the tick looks at them */
    /* Templates whose RB create was denied: the detector retries each (docs/sim.md). */
    struct detect_retry *retries;
    size_t nretries, capretries;
};

/* A template the detector failed to bind, tried again at `due` (the sim's clock, seconds). */
struct detect_retry {
    char api_version[128], kind[64], ns[NAME_MAX_LEN], name[NAME_MAX_LEN];
    unsigned failures;
    time_t due;
};

struct pod_set {
    int64_t replicas;
    json_object *spec;
};

#define DURATION_ANNOTATION "sim.muster.io/duration"
#define GROUP_ANNOTATION "scheduling.k8s.io/group-name"
/* scheduler-plugins' coscheduling PodGroup and the label that names it on a pod */
#define COSCHED_API_VERSION "scheduling.x-k8s.io/v1alpha1"
#define COSCHED_LABEL "scheduling.x-k8s.io/pod-group"
/* The Kubernetes Workload API (GenericWorkload): its PodGroup, named by the pod spec's
 * schedulingGroup.podGroupName, in 1.36's version (staging/src/k8s.io/api/scheduling/v1alpha2/
 * types.go) and 1.37's (scheduling/v1beta1/types.go), and the condition each version's
 * kube-scheduler sets (PodGroupScheduled, renamed PodGroupInitiallyScheduled in v1beta1) */
#define WL_API_VERSION "scheduling.k8s.io/v1alpha2"
#define WL_API_VERSION_V1BETA1 "scheduling.k8s.io/v1beta1"
#define WL_SCHEDULED "PodGroupScheduled"
#define WL_SCHEDULED_V1BETA1 "PodGroupInitiallyScheduled"
/* muster's PodGroup Works (cluster-adapters/karmada/gang.h): the RB they gang, "namespace/name" */
#define MANAGED_BY_LABEL "app.kubernetes.io/managed-by"
#define MANAGED_BY_MUSTER "muster"
#define KARMADA_GANG_BINDING_ANNOTATION "scheduling.muster.io/binding"
#define MAX_PODS 100000 /* per share: more than any scenario asks for */
struct unit {
    struct mwork *mw;
    size_t manifest;
    json_object *obj;    /* the manifest, borrowed from mw->obj */
    struct share *share; /* &mw->shares[manifest] */
    int64_t desired;     /* pods asked for */
    int64_t vc_min;      /* a Volcano Job's own gang (minAvailable, else every pod); -1: none */
    const char *group;   /* "namespace/name" of the PodGroup its pods wait for (Volcano's
                            scheduler and a group-name annotation), or NULL */
    char groupkey[2 * NAME_MAX_LEN];
    int64_t duration; /* scripted, from the manifest's annotation */
    /* its pods ask for Volcano's scheduler in a member without Volcano: no scheduler binds
     * them, they stay Pending */
    int unscheduled;
    /* Decided when placed. */
    int64_t running, gang;
    int waiting_for_group; /* names a PodGroup that does not exist in the cluster */
    int in_run;            /* the nodes hold its pods as a running share */
    int changed;           /* differs from what was last reported */
};

/* An object of a member cluster (applied from a Work by the execution controller), with what
 * the member's sync needs of it, read once per change. */
struct mwork {
    char *name;                   /* its key: "namespace/name/Kind/apiVersion" */
    json_object *obj;             /* the object as applied (no status: the member computes that) */
    json_object *status;          /* what the member last reported as its status, or NULL */
    int pg_touched;               /* one of its PodGroup's member shares changed in this sync */
    int fresh;                    /* (re)applied since its status was last reflected */
    int touched;                  /* listed in the cluster's touched objects */
    char pgkey[2 * NAME_MAX_LEN]; /* a PodGroup: "namespace/name"; else "" */
    int64_t gen;                  /* bumped on every apply: cached per-pod requests follow it */
    struct unit *units;
    size_t nunits;
    struct share *shares; /* kept across updates of the object */
    size_t nshares;
};

struct pgref {
    const char *name; /* borrowed from mw->pgkey */
    int64_t min_member;
    struct mwork *mw;
};

/* karmada.c: shared helpers. */
time_t sim__clock_now(struct sim_karmada *k);
void sim__ensure_namespace(struct sim_karmada *k, const char *name);
json_object *sim__get_path(json_object *o, const char *a, const char *b, const char *c);
/* The detector's back-off: templates whose RB create was denied, tried again when due. */
void sim__detect_retry_tick(struct sim_karmada *k);
const char *sim__get_str(json_object *o, const char *a, const char *b, const char *c);
int sim__res_index(struct sim_karmada *k, const char *name, int add);
const struct sim_resource *sim__res_of(const char *group, const char *version, const char *plural);

/* Removes finalizer fin from obj of resource r (binding.c); no write when obj lacks it. */
void sim__finalizer_remove(struct sim_karmada *k, const struct sim_resource *r, json_object *obj,
                           const char *fin);
json_object *sim__shallow_copy(json_object *o);
int sim__status_only(const struct sim_event *ev);

/* 1 when names (an array of cluster names, or of objects with "name") lists cluster. */
int sim__cluster_listed(json_object *names, const char *cluster);

/* Creates the ResourceBinding rb (borrowed) in ns as the karmada-apiserver would: through the
 * hub's mutating admission webhooks for resourcebindings CREATE when one is registered (see
 * webhook_call.h), else at once. */
void sim__admit_binding(struct sim_karmada *k, const char *ns, json_object *rb);

#endif
