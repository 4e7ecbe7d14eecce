/* Tests for dispatcher/controller.c: the dispatch loop against an in-process simulated hub
 * (reached through muster's own client over a loopback socket), with a real SQLite ledger.
 * A gang is held, admitted, placed, and dispatched through the commit protocol (PodGroup Work,
 * OverridePolicy, RB patches, Scheduled=True); a restart on the same database dispatches
 * nothing twice; a finished job releases its usage; a workload naming an unknown queue waits
 * with the reason on its RB; a gang no cluster holds waits, and goes once a finished job frees
 * room (the remembered verdict and cached rooms give way). The integration scripts cover the
 * rest over separate processes. */
#include "cluster-adapters/kube/client.h"
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/hub.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "dispatcher/api.h"
#include "dispatcher/controller.h"
#include "dispatcher/demo.h"
#include "dispatcher/recovery.h"
#include "queue/errors.h"
#include "testing.h"
#include "hub_testing.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char scenario_text[] =
    "clusters:\n"
    "  - name: east\n"
    "    nodes: [{count: 4, allocatable: {cpu: \"64\", memory: 512Gi, pods: \"110\", "
    "nvidia.com/gpu: \"8\"}}]\n"
    "  - name: west\n"
    "    nodes: [{count: 1, allocatable: {cpu: \"64\", memory: 512Gi, pods: \"110\", "
    "nvidia.com/gpu: \"8\"}}]\n"
    "objects:\n"
    "  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}\n"
    "  - apiVersion: policy.karmada.io/v1alpha1\n"
    "    kind: PropagationPolicy\n"
    "    metadata: {name: to-muster, namespace: team}\n"
    "    spec:\n"
    "      schedulerName: muster\n"
    "      resourceSelectors: [{apiVersion: batch/v1, kind: Job}, {apiVersion: "
    "jobset.x-k8s.io/v1alpha2, kind: JobSet}]\n"
    "      placement:\n"
    "        clusterAffinity: {clusterNames: [east, west]}\n"
    "        replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: "
    "Weighted}\n";

/* Written before scenario_text by env_start when set (a test's own top-level keys). */
static const char *scenario_head;

struct env {
    uv_loop_t loop;
    uv_timer_t wake;
    struct sim_hub *hub;
    struct kube_config kcfg;
    struct kube_client *kube;
    struct store *s;
    struct queue_tree *t;
    struct ctl *ctl;
    char db[512];
    char scenario[512];
};

static void on_wake(uv_timer_t *h)
{
    (void)h;
}

/* Runs the loop until pred(e) holds or ms pass; returns pred's last value. */
static int pump_until(struct env *e, int (*pred)(struct env *e, void *arg), void *arg, int ms)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (pred(e, arg))
            return 1;
        uv_run(&e->loop, UV_RUN_ONCE);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (el > ms)
            return pred(e, arg);
    }
}

static int synced(struct env *e, void *arg)
{
    (void)arg;
    return ctl_synced(e->ctl);
}

/* ctl_options.fence: open unless a test closes it. */
static int fence_open = 1;
static int fence(void *ud)
{
    return *(int *)ud;
}

static void ctl_up(struct env *e)
{
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char err[256];
    CU_ASSERT_EQUAL_FATAL(disp_load(e->s, t, NULL, err, sizeof err), 0);
    e->t = t;
    CU_ASSERT_EQUAL_FATAL(disp_demo_seed_queues(e->s, e->t), 0);
    FILE *quiet = getenv("CTL_TEST_LOG") ? stderr : fopen("/dev/null", "w");
    struct ctl_options o = {.log = quiet, .backoff_initial_ms = 200, .fence = fence,
                            .fence_ud = &fence_open};
    CU_ASSERT_EQUAL_FATAL(ctl_new(&e->loop, e->kube, e->s, e->t, &o, &e->ctl), 0);
    CU_ASSERT_EQUAL_FATAL(ctl_start(e->ctl), 0);
    CU_ASSERT_FATAL(pump_until(e, synced, NULL, 10000));
}

static void stopped(void *ud)
{
    *(int *)ud = 1;
}

static int flag_set(struct env *e, void *arg)
{
    (void)e;
    return *(int *)arg;
}

static void ctl_down(struct env *e)
{
    int done = 0;
    ctl_stop(e->ctl, 2000, stopped, &done);
    CU_ASSERT_FATAL(pump_until(e, flag_set, &done, 5000));
    ctl_free(e->ctl);
    e->ctl = NULL;
    queue_tree_free(e->t);
    e->t = NULL;
}

static void env_start(struct env *e, const char *name)
{
    memset(e, 0, sizeof(*e));
    signal(SIGPIPE, SIG_IGN);
    test_tmp_path(e->scenario, sizeof e->scenario, "ctl-scenario.yaml");
    FILE *f = fopen(e->scenario, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    if (scenario_head)
        fputs(scenario_head, f);
    fputs(scenario_text, f);
    fclose(f);
    test_tmp_path(e->db, sizeof e->db, name);
    remove(e->db);
    char err[512];
    CU_ASSERT_EQUAL_FATAL(store_open(e->db, NULL, &e->s, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(uv_loop_init(&e->loop), 0);
    uv_timer_init(&e->loop, &e->wake);
    uv_timer_start(&e->wake, on_wake, 5, 5);
    struct sim_hub_config hc = {.server = {.host = "127.0.0.1"}, .scenario = e->scenario};
    test_hub_start(&e->loop, &hc, &e->hub);
    test_hub_kubeconfig(e->hub, "test", &e->kcfg);
    struct kube_client_opts ko = {.qps = -1};
    CU_ASSERT_EQUAL_FATAL(kube_client_new(&e->loop, &e->kcfg, &ko, &e->kube), 0);
}

static void env_stop(struct env *e)
{
    if (e->ctl)
        ctl_down(e);
    kube_client_close(e->kube, NULL, NULL);
    sim_hub_shutdown(e->hub, NULL, NULL);
    uv_close((uv_handle_t *)&e->wake, NULL);
    uv_run(&e->loop, UV_RUN_DEFAULT);
    CU_ASSERT_EQUAL(uv_loop_close(&e->loop), 0);
    sim_hub_free(e->hub);
    kube_config_close(&e->kcfg);
    store_close(e->s);
    remove(e->db);
    remove(e->scenario);
}

static const struct sim_resource *res(const char *group, const char *version, const char *name)
{
    return sim_resource_find(group, strlen(group), version, strlen(version), name, strlen(name));
}

static void created(int err, const struct kube_response *resp, void *ud)
{
    (void)resp;
    *(int *)ud = err ? 2 : 1;
}

static void create_job_cpu(struct env *e, const char *name, const char *queue, int pods,
                           int gpus, const char *cpu, const char *duration)
{
    char text[1536];
    snprintf(text, sizeof text,
             "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"%s\","
             "\"namespace\":\"team\",\"labels\":{\"volcano.sh/queue-name\":\"%s\"},"
             "\"annotations\":{%s%s%s}},\"spec\":{\"parallelism\":%d,\"completions\":%d,"
             "\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":"
             "\"main\",\"image\":\"x\",\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"%d\","
             "\"cpu\":\"%s\",\"memory\":\"8Gi\"}}}]}}}}",
             name, queue, duration ? "\"sim.muster.io/duration\":\"" : "",
             duration ? duration : "", duration ? "\"" : "", pods, pods, gpus, cpu);
    /* Through the API server, as a user's kubectl would: the hub's detector reacts to it. */
    struct kube_request req = {.verb = KUBE_CREATE,
                               .path = "/apis/batch/v1/namespaces/team/jobs",
                               .body = text};
    int done = 0;
    CU_ASSERT_EQUAL_FATAL(kube_request(e->kube, &req, created, &done), 0);
    CU_ASSERT_FATAL(pump_until(e, flag_set, &done, 5000));
    CU_ASSERT_EQUAL(done, 1);
}

static void create_job(struct env *e, const char *name, const char *queue, int pods, int gpus,
                       const char *duration)
{
    create_job_cpu(e, name, queue, pods, gpus, "4", duration);
}

static json_object *get_obj(struct env *e, const struct sim_resource *r, const char *ns,
                            const char *name)
{
    json_object *o = NULL, *st = NULL;
    if (sim_store_get(sim_hub_store(e->hub), r, ns, name, &o, &st))
        o = NULL;
    json_object_put(st);
    return o;
}

static json_object *at(json_object *o, const char *a, const char *b)
{
    json_object *v = NULL, *w = NULL;
    if (!o || !json_object_object_get_ex(o, a, &v))
        return NULL;
    if (!b)
        return v;
    return json_object_object_get_ex(v, b, &w) ? w : NULL;
}

static const char *condition(json_object *rb, const char *type, const char *field)
{
    json_object *conds = at(rb, "status", "conditions");
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = json_object_get_string(at(c, "type", NULL));
        if (t && strcmp(t, type) == 0)
            return json_object_get_string(at(c, field, NULL));
    }
    return NULL;
}

struct rbwait {
    const char *name;
    int want; /* 1 dispatched, 2 waiting with a Scheduled=False condition */
};

static int rb_state(struct env *e, void *arg)
{
    struct rbwait *w = arg;
    json_object *rb = get_obj(e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team",
                              w->name);
    int ok = 0;
    if (rb && w->want == 1) {
        json_object *cl = at(rb, "spec", "clusters");
        json_object *sched = at(at(rb, "spec", "suspension"), "scheduling", NULL);
        const char *st = condition(rb, "Scheduled", "status");
        ok = cl && json_object_array_length(cl) > 0 && sched && !json_object_get_boolean(sched) &&
             st && strcmp(st, "True") == 0;
    } else if (rb && w->want == 2) {
        const char *st = condition(rb, "Scheduled", "status");
        ok = st && strcmp(st, "False") == 0;
    }
    json_object_put(rb);
    return ok;
}

struct rowcount {
    const char *binding;
    int rows, live;
    char state[16];
    int64_t id; /* the newest row's */
    int barrier, user_dispatching;
};

static int count_cb(void *ud, const struct store_ledger_row *r)
{
    struct rowcount *c = ud;
    c->rows++;
    if (strcmp(r->state, "released") != 0 && strcmp(r->state, "rolledback") != 0) {
        c->live++;
    }
    snprintf(c->state, sizeof c->state, "%s", r->state);
    c->id = r->id;
    c->barrier = r->barrier;
    c->user_dispatching = r->user_dispatching;
    return 0;
}

static struct rowcount rows_of(struct env *e, const char *binding)
{
    struct rowcount c = {binding, 0, 0, "", 0, 0, 0};
    CU_ASSERT_EQUAL(store_ledger_foreach_binding(e->s, binding, count_cb, &c), 0);
    return c;
}

static int ledger_state(struct env *e, void *arg)
{
    const char **want = arg;
    struct rowcount c = rows_of(e, want[0]);
    return strcmp(c.state, want[1]) == 0;
}

/* A gang goes out whole through the commit protocol, and a restart does not send it again. */
static void test_dispatch_and_restart(void)
{
    struct env e;
    env_start(&e, "ctl-dispatch.db");
    ctl_up(&e);
    create_job(&e, "train", "nlp", 2, 4, NULL); /* 8 GPUs: west (one node of 8) fits best */
    struct rbwait w = {"train-job", 1};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));

    json_object *rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"),
                              "team", "train-job");
    json_object *cl = at(rb, "spec", "clusters");
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(cl), 1);
    const char *cluster = json_object_get_string(at(json_object_array_get_idx(cl, 0), "name",
                                                    NULL));
    CU_ASSERT_EQUAL(json_object_get_int(at(json_object_array_get_idx(cl, 0), "replicas", NULL)),
                    2);
    CU_ASSERT_PTR_NOT_NULL(at(at(rb, "metadata", "annotations"),
                              "policy.karmada.io/applied-placement", NULL));
    CU_ASSERT_STRING_EQUAL(condition(rb, "Scheduled", "reason"), "Success");
    int64_t gen = json_object_get_int64(at(rb, "metadata", "generation"));
    /* the PodGroup Work in that cluster, released, and the OverridePolicy */
    char ns[64];
    snprintf(ns, sizeof ns, "karmada-es-%s", cluster);
    json_object *wk = get_obj(&e, res("work.karmada.io", "v1alpha1", "works"), ns,
                              "muster-pg-team.train-job");
    CU_ASSERT_PTR_NOT_NULL_FATAL(wk);
    CU_ASSERT_FALSE(json_object_get_boolean(at(at(wk, "spec", NULL), "suspendDispatching",
                                               NULL)));
    json_object *m = json_object_array_get_idx(at(at(wk, "spec", "workload"), "manifests", NULL),
                                               0);
    CU_ASSERT_EQUAL(json_object_get_int(at(at(m, "spec", NULL), "minMember", NULL)), 2);
    json_object_put(wk);
    json_object *op = get_obj(&e, res("policy.karmada.io", "v1alpha1", "overridepolicies"),
                              "team", "muster-train-job");
    CU_ASSERT_PTR_NOT_NULL(op);
    json_object_put(op);
    json_object_put(rb);
    const char *want[] = {"team/train-job", "running"};
    CU_ASSERT(pump_until(&e, ledger_state, (void *)want, 10000));
    struct rowcount c = rows_of(&e, "team/train-job");
    CU_ASSERT_EQUAL(c.rows, 1);

    /* Restart on the same database: reconciled, nothing dispatched again. */
    ctl_down(&e);
    ctl_up(&e);
    for (int i = 0; i < 50; i++)
        uv_run(&e.loop, UV_RUN_ONCE);
    c = rows_of(&e, "team/train-job");
    CU_ASSERT_EQUAL(c.rows, 1);
    CU_ASSERT_EQUAL(c.live, 1);
    rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team",
                 "train-job");
    CU_ASSERT_EQUAL(json_object_get_int64(at(rb, "metadata", "generation")), gen);
    json_object_put(rb);
    env_stop(&e);
}

static int64_t gpu_used(struct env *e, const char *queue)
{
    struct queue_status st;
    uint32_t id;
    if (queue_resnames_find(queue_tree_resnames(e->t), "nvidia.com/gpu", 14, &id))
        return -1;
    if (queue_node_status(e->t, queue_tree_find(e->t, queue), &st))
        return -1;
    int64_t v = queue_resvec_get(&st.allocated, id);
    queue_status_close(&st);
    return v;
}

/* A finished job releases its queue's usage at once. */
static void test_release_on_completion(void)
{
    struct env e;
    env_start(&e, "ctl-release.db");
    ctl_up(&e);
    create_job(&e, "short", "vision", 1, 2, "1s");
    const char *want[] = {"team/short-job", "released"};
    CU_ASSERT(pump_until(&e, ledger_state, (void *)want, 15000));
    CU_ASSERT_EQUAL(gpu_used(&e, "vision"), 0);
    env_stop(&e);
}

/* A workload naming a queue that does not exist waits, held, with the reason on its RB. */
static void test_unknown_queue_waits(void)
{
    struct env e;
    env_start(&e, "ctl-unknown.db");
    ctl_up(&e);
    create_job(&e, "lost", "no-such-queue", 1, 1, NULL);
    struct rbwait w = {"lost-job", 2};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    json_object *rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"),
                              "team", "lost-job");
    CU_ASSERT_STRING_EQUAL(condition(rb, "Scheduled", "reason"), "Unschedulable");
    const char *msg = condition(rb, "Scheduled", "message");
    CU_ASSERT(msg && strstr(msg, "no-such-queue"));
    json_object *cl = at(rb, "spec", "clusters");
    CU_ASSERT(!cl || json_object_array_length(cl) == 0);
    json_object *sched = at(at(rb, "spec", "suspension"), "scheduling", NULL);
    CU_ASSERT(sched && json_object_get_boolean(sched));
    json_object_put(rb);
    env_stop(&e);
}

/* A queue change re-reads every parked binding once. A binding that stays parked goes back
 * to the tail of the waiting list, so a walk to the list's end never ended with two or more of
 * them: musterd spun inside POST /api/v1/queues (the browser tests hung). The alarm turns a
 * hang into a failure. */
static void test_queue_change_with_parked(void)
{
    struct env e;
    env_start(&e, "ctl-parked.db");
    ctl_up(&e);
    create_job(&e, "lost-a", "no-such-queue", 1, 1, NULL);
    create_job(&e, "lost-b", "no-such-queue-either", 1, 1, NULL);
    struct rbwait wa = {"lost-a-job", 2}, wb = {"lost-b-job", 2};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &wa, 10000));
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &wb, 10000));
    struct api_dispatcher hooks;
    ctl_api_hooks(e.ctl, &hooks);
    alarm(20);
    hooks.queues_changed(hooks.ud, "some-queue");
    alarm(0);
    struct ctl_stats st;
    ctl_get_stats(e.ctl, &st);
    CU_ASSERT(st.parked >= 2);
    env_stop(&e);
}

/* RBs that arrive while no dispatch loop runs (musterd down, or a follower before it leads) are
 * listed by the first watch and must be queued by start-up reconciliation, not skipped. */
static void test_rbs_created_while_down(void)
{
    struct env e;
    env_start(&e, "ctl-down.db");
    create_job(&e, "early", "nlp", 1, 1, NULL);
    ctl_up(&e);
    struct rbwait w = {"early-job", 1};
    CU_ASSERT(pump_until(&e, rb_state, &w, 10000));
    struct rowcount c = rows_of(&e, "team/early-job");
    CU_ASSERT_EQUAL(c.rows, 1);
    env_stop(&e);
}

/* With the fence down (leadership lapsed by the clock, ctl_set_leading(0) not yet come) nothing
 * is decided or written: no ledger row, the RB neither placed nor released. */
static void test_fence_down_writes_nothing(void)
{
    struct env e;
    env_start(&e, "ctl-fence.db");
    ctl_up(&e);
    fence_open = 0;
    create_job(&e, "fenced", "nlp", 1, 2, NULL);
    for (int i = 0; i < 100; i++) /* a second of ticks and events */
        uv_run(&e.loop, UV_RUN_ONCE);
    struct rowcount c = rows_of(&e, "team/fenced-job");
    CU_ASSERT_EQUAL(c.rows, 0);
    json_object *rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"),
                              "team", "fenced-job");
    CU_ASSERT_PTR_NOT_NULL(rb);
    json_object *cl = at(rb, "spec", "clusters");
    CU_ASSERT(!cl || json_object_array_length(cl) == 0);
    CU_ASSERT_PTR_NULL(at(rb, "status", "conditions"));
    json_object_put(rb);
    struct ctl_stats st;
    ctl_get_stats(e.ctl, &st);
    CU_ASSERT_EQUAL(st.admitted, 0);
    CU_ASSERT_EQUAL(st.ledger_batches, 0);
    fence_open = 1;
    env_stop(&e);
}

/* A gang no cluster holds node by node waits, and is not placed again while the clusters only
 * lose room; once a cluster it may use has room again (a job there finished), it goes there.
 * Fails if the remembered verdict, or a cluster's cached room, outlives the room freed. */
static void test_nofit_until_room_frees(void)
{
    struct env e;
    env_start(&e, "ctl-nofit.db");
    ctl_up(&e);
    /* 40 cpu a pod: one per 64-cpu node. east's four nodes, then west's one. */
    create_job_cpu(&e, "fill", "default", 4, 0, "40", NULL);
    struct rbwait w = {"fill-job", 1};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    create_job_cpu(&e, "brief", "default", 1, 0, "40", "2s");
    w.name = "brief-job";
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    /* room in the sum (96 + 24 cpu), none on any node */
    create_job_cpu(&e, "late", "default", 1, 0, "40", NULL);
    struct rbwait late = {"late-job", 2};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &late, 10000));
    json_object *rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"),
                              "team", "late-job");
    CU_ASSERT_STRING_EQUAL(condition(rb, "Scheduled", "reason"), "NoClusterFit");
    json_object_put(rb);
    late.want = 1;
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &late, 8000)); /* brief runs 2 s */
    rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team",
                 "late-job");
    json_object *cl = at(rb, "spec", "clusters");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(json_object_array_get_idx(cl, 0), "name",
                                                     NULL)),
                           "west");
    json_object_put(rb);
    env_stop(&e);
}

static void delete_job(struct env *e, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/apis/batch/v1/namespaces/team/jobs/%s", name);
    struct kube_request req = {.verb = KUBE_DELETE, .path = path};
    int done = 0;
    CU_ASSERT_EQUAL_FATAL(kube_request(e->kube, &req, created, &done), 0);
    CU_ASSERT_FATAL(pump_until(e, flag_set, &done, 5000));
    CU_ASSERT_EQUAL(done, 1);
}

/* Issue 20: a gang read as a tree of groups (two groups of one 30-CPU pod, group-size) that no
 * cluster holds node by node waits, and its NoClusterFit verdict is remembered as a flat
 * gang's is: passes of the engine for other gangs (each offers it first, the older) do not
 * search its tree again while no cluster it may use grows. Once a cluster it may use grows
 * (a job there is deleted), it is searched again and goes there. */
/* arg: {cluster, cpu}: the Cluster's status.resourceSummary.allocated.cpu is cpu (its pods
 * have started and been counted: the cluster stops changing) */
static int cluster_allocated(struct env *e, void *arg)
{
    const char *const *want = arg;
    json_object *k = get_obj(e, res("cluster.karmada.io", "v1alpha1", "clusters"), NULL, want[0]);
    json_object *rs = at(at(k, "status", "resourceSummary"), "allocated", "cpu");
    int ok = rs && strcmp(json_object_get_string(rs), want[1]) == 0;
    json_object_put(k);
    return ok;
}

static void test_tree_nofit_remembered(void)
{
    struct env e;
    env_start(&e, "ctl-treenofit.db");
    ctl_up(&e);
    /* 40 CPUs a pod: one on each of east's four 64-CPU nodes, then west's one, 24 left each */
    create_job_cpu(&e, "fill", "default", 4, 0, "40", NULL);
    struct rbwait w = {"fill-job", 1};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    create_job_cpu(&e, "hold", "default", 1, 0, "40", NULL);
    w.name = "hold-job";
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    const char *east[] = {"east", "160"}, *west[] = {"west", "40"};
    CU_ASSERT_FATAL(pump_until(&e, cluster_allocated, east, 10000));
    CU_ASSERT_FATAL(pump_until(&e, cluster_allocated, west, 10000));
    char text[1536];
    snprintf(text, sizeof text,
             "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"tree\","
             "\"namespace\":\"team\",\"labels\":{\"volcano.sh/queue-name\":\"default\"},"
             "\"annotations\":{\"scheduling.muster.io/group-size\":\"1\"}},\"spec\":{"
             "\"parallelism\":2,\"completions\":2,\"template\":{\"spec\":{\"restartPolicy\":"
             "\"Never\",\"containers\":[{\"name\":\"main\",\"image\":\"x\",\"resources\":{"
             "\"requests\":{\"cpu\":\"30\",\"memory\":\"1Gi\"}}}]}}}}");
    struct kube_request req = {.verb = KUBE_CREATE,
                               .path = "/apis/batch/v1/namespaces/team/jobs",
                               .body = text};
    int done = 0;
    CU_ASSERT_EQUAL_FATAL(kube_request(e.kube, &req, created, &done), 0);
    CU_ASSERT_FATAL(pump_until(&e, flag_set, &done, 5000));
    struct rbwait tree = {"tree-job", 2};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &tree, 10000));
    json_object *rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"),
                              "team", "tree-job");
    CU_ASSERT_STRING_EQUAL(condition(rb, "Scheduled", "reason"), "NoClusterFit");
    CU_ASSERT_PTR_NOT_NULL(strstr(condition(rb, "Scheduled", "message"), "group-0"));
    json_object_put(rb);
    struct ctl_stats st0, st1;
    ctl_get_stats(e.ctl, &st0);
    CU_ASSERT(st0.tree_searches >= 1);

    /* three gangs no node holds (70 CPUs a pod), each a pass of its own that offers the
     * older tree first; none changes a cluster, so nothing it may use grows */
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "big%d", i);
        create_job_cpu(&e, name, "default", 1, 0, "70", NULL);
        snprintf(name, sizeof name, "big%d-job", i);
        struct rbwait big = {name, 2};
        CU_ASSERT_FATAL(pump_until(&e, rb_state, &big, 10000));
    }
    ctl_get_stats(e.ctl, &st1);
    CU_ASSERT(st1.cycles > st0.cycles);
    CU_ASSERT_EQUAL(st1.tree_searches, st0.tree_searches); /* fails when the memo is skipped */
    tree.want = 2;
    CU_ASSERT(rb_state(&e, &tree)); /* still waiting */

    delete_job(&e, "hold"); /* west grows back to 64 CPUs once its pod is gone */
    tree.want = 1;
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &tree, 10000));
    ctl_get_stats(e.ctl, &st1);
    CU_ASSERT(st1.tree_searches > st0.tree_searches);
    rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team", "tree-job");
    json_object *cl = at(rb, "spec", "clusters");
    CU_ASSERT_EQUAL(json_object_array_length(cl), 1);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(at(json_object_array_get_idx(cl, 0), "name",
                                                     NULL)),
                           "west");
    json_object_put(rb);
    env_stop(&e);
}

/* Issue 23, item 5: with the resource-name table full, a cluster capacity naming a resource
 * muster does not know yet ("pods" here) cannot be read; that is logged, never skipped
 * silently, and the refusal is counted for the metrics and /readyz. */
static void test_full_name_table_is_logged(void)
{
    struct env e;
    env_start(&e, "ctl-fullnames.db");
    struct queue_tree *t = queue_tree_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char err[256];
    CU_ASSERT_EQUAL_FATAL(disp_load(e.s, t, NULL, err, sizeof err), 0);
    e.t = t;
    CU_ASSERT_EQUAL_FATAL(disp_demo_seed_queues(e.s, e.t), 0);
    struct queue_resnames *rn = queue_tree_resnames(t);
    uint32_t id;
    CU_ASSERT_EQUAL(queue_resnames_find(rn, "pods", 4, &id), MUSTER_ENOENT);
    char name[32];
    for (uint32_t i = queue_resnames_count(rn); i < QUEUE_RESNAMES_MAX; i++) {
        snprintf(name, sizeof name, "example.com/r%u", i);
        CU_ASSERT_EQUAL_FATAL(queue_resnames_intern(rn, name, strlen(name), &id), 0);
    }
    FILE *log = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    struct ctl_options o = {
        .log = log, .backoff_initial_ms = 200, .fence = fence, .fence_ud = &fence_open};
    CU_ASSERT_EQUAL_FATAL(ctl_new(&e.loop, e.kube, e.s, e.t, &o, &e.ctl), 0);
    CU_ASSERT_EQUAL_FATAL(ctl_start(e.ctl), 0);
    CU_ASSERT_FATAL(pump_until(&e, synced, NULL, 10000));
    CU_ASSERT(queue_resnames_refused(rn) > 0);
    char text[8192];
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = '\0';
    static const char *const want[] = {
        "cluster east: status.resourceSummary.allocatable: pods: too many distinct resource "
        "names (the resource name table is full",
        "cluster west: status.resourceSummary.allocatable: pods: too many distinct resource "
        "names (the resource name table is full"};
    for (size_t i = 0; i < 2; i++) {
        if (!strstr(text, want[i]))
            fprintf(stderr, "missing in the log: %s\nlog:\n%s\n", want[i], text);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, want[i]));
    }
    env_stop(&e);
    fclose(log);
}

/* A merge patch to RB team/name through the API server, as another client would send it. */
static void patch_rb(struct env *e, const char *name, const char *body)
{
    char path[256];
    snprintf(path, sizeof path,
             "/apis/work.karmada.io/v1alpha2/namespaces/team/resourcebindings/%s", name);
    struct kube_request req = {.verb = KUBE_MERGE_PATCH, .path = path, .body = body};
    int done = 0;
    CU_ASSERT_EQUAL_FATAL(kube_request(e->kube, &req, created, &done), 0);
    CU_ASSERT_FATAL(pump_until(e, flag_set, &done, 5000));
    CU_ASSERT_EQUAL(done, 1);
}

static int64_t rb_generation_of(struct env *e, const char *name)
{
    json_object *rb = get_obj(e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team",
                              name);
    int64_t g = json_object_get_int64(at(rb, "metadata", "generation"));
    json_object_put(rb);
    return g;
}

/* Issue 15, crash recovery defect 1: musterd killed after the hub acknowledged the lift but
 * before the "dispatched" row was committed. The ledger says admitted; the restart must see
 * the dispatch done on the hub and record it, not send the placement patch (and muster's
 * dispatching barrier) to the lifted RB again. */
static void test_restart_after_lift_sends_nothing_again(void)
{
    struct env e;
    env_start(&e, "ctl-lifted.db");
    ctl_up(&e);
    create_job(&e, "lifted", "nlp", 2, 4, NULL);
    struct rbwait w = {"lifted-job", 1};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    const char *want[] = {"team/lifted-job", "running"};
    CU_ASSERT_FATAL(pump_until(&e, ledger_state, (void *)want, 10000));
    ctl_down(&e);
    /* the crash: the row as it stood between the lift's answer and the next commit */
    struct rowcount c = rows_of(&e, "team/lifted-job");
    struct store_ledger_row row = {.id = c.id, .state = "admitted", .updated_at = 1,
                                   .mode = "assign", .barrier = c.barrier,
                                   .user_dispatching = c.user_dispatching};
    CU_ASSERT_EQUAL_FATAL(store_ledger_write_batch(e.s, &row, 1), 0);
    int64_t gen = rb_generation_of(&e, "lifted-job");
    ctl_up(&e);
    const char *back[] = {"team/lifted-job", "running"};
    CU_ASSERT(pump_until(&e, ledger_state, (void *)back, 10000));
    for (int i = 0; i < 50; i++)
        uv_run(&e.loop, UV_RUN_ONCE);
    /* no spec patch at all: the barrier was not raised and lowered again */
    CU_ASSERT_EQUAL(rb_generation_of(&e, "lifted-job"), gen);
    c = rows_of(&e, "team/lifted-job");
    CU_ASSERT_EQUAL(c.rows, 1);
    CU_ASSERT_EQUAL(c.live, 1);
    env_stop(&e);
}

/* Issue 15, crash recovery defect 2: a half-done dispatch of muster's found at start-up (RB
 * placed, scheduling suspended, muster's dispatching barrier up, no live row) is undone and
 * dispatched again at once. Its admission must not take the barrier muster itself set, still in
 * the start-up list's copy of the RB, for the user's value and restore it at the lift. */
static void test_undo_then_dispatch_restores_no_barrier(void)
{
    struct env e;
    env_start(&e, "ctl-barrier.db");
    create_job(&e, "half", "nlp", 2, 4, NULL);
    for (int i = 0; i < 20; i++) /* the detector makes the RB */
        uv_run(&e.loop, UV_RUN_ONCE);
    patch_rb(&e, "half-job",
             "{\"spec\":{\"clusters\":[{\"name\":\"west\",\"replicas\":2}],"
             "\"suspension\":{\"scheduling\":true,\"dispatching\":true}}}");
    ctl_up(&e);
    struct rbwait w = {"half-job", 1};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    for (int i = 0; i < 50; i++)
        uv_run(&e.loop, UV_RUN_ONCE);
    json_object *rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"),
                              "team", "half-job");
    json_object *susp = at(rb, "spec", "suspension");
    json_object *disp = at(susp, "dispatching", NULL);
    CU_ASSERT(!disp || !json_object_get_boolean(disp));
    json_object *sched = at(susp, "scheduling", NULL);
    CU_ASSERT(sched && !json_object_get_boolean(sched));
    json_object_put(rb);
    struct rowcount c = rows_of(&e, "team/half-job");
    CU_ASSERT_NOT_EQUAL(c.user_dispatching, 1);
    env_stop(&e);
}

struct condwait {
    const char *rb, *reason;
};

static int rb_reason_is(struct env *e, void *arg)
{
    struct condwait *w = arg;
    json_object *rb = get_obj(e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team",
                              w->rb);
    const char *r = condition(rb, "Scheduled", "reason");
    int ok = r && strcmp(r, w->reason) == 0;
    json_object_put(rb);
    return ok;
}

static void patch_job_annotation(struct env *e, const char *name, const char *value_json)
{
    char path[256], body[256];
    snprintf(path, sizeof path, "/apis/batch/v1/namespaces/team/jobs/%s", name);
    snprintf(body, sizeof body,
             "{\"metadata\":{\"annotations\":{\"scheduling.muster.io/placement\":%s}}}",
             value_json);
    struct kube_request req = {.verb = KUBE_MERGE_PATCH, .path = path, .body = body};
    int done = 0;
    CU_ASSERT_EQUAL_FATAL(kube_request(e->kube, &req, created, &done), 0);
    CU_ASSERT_FATAL(pump_until(e, flag_set, &done, 5000));
    CU_ASSERT_EQUAL(done, 1);
}

/* Issue 15, crash recovery defect 3: a waiting binding that turns unreadable (here its placement
 * annotation) is parked and keeps its live row: the admin API lists it with the reason, before
 * and after a restart, and it waits again once the template is fixed. The row used to be
 * released: the list dropped it, and the next start-up took the released row for a finished
 * workload and never looked at the binding again. */
static void test_parked_binding_keeps_its_row(void)
{
    struct env e;
    env_start(&e, "ctl-parked.db");
    ctl_up(&e);
    create_job_cpu(&e, "turn", "nlp", 1, 0, "100", NULL); /* no 64-cpu node holds it */
    struct condwait nofit = {"turn-job", "NoClusterFit"};
    CU_ASSERT_FATAL(pump_until(&e, rb_reason_is, &nofit, 10000));
    CU_ASSERT_EQUAL(rows_of(&e, "team/turn-job").live, 1);
    patch_job_annotation(&e, "turn", "\"sideways\"");
    struct condwait bad = {"turn-job", "Unschedulable"};
    CU_ASSERT_FATAL(pump_until(&e, rb_reason_is, &bad, 10000));
    struct rowcount c = rows_of(&e, "team/turn-job");
    CU_ASSERT_EQUAL(c.live, 1);
    CU_ASSERT_STRING_EQUAL(c.state, "pending");
    ctl_down(&e);
    ctl_up(&e);
    for (int i = 0; i < 50; i++)
        uv_run(&e.loop, UV_RUN_ONCE);
    CU_ASSERT_EQUAL(rows_of(&e, "team/turn-job").live, 1);
    patch_job_annotation(&e, "turn", "null");
    CU_ASSERT(pump_until(&e, rb_reason_is, &nofit, 10000));
    CU_ASSERT_EQUAL(rows_of(&e, "team/turn-job").live, 1);
    env_stop(&e);
}

/* A dispatched gang whose RB was held again while musterd was down is not whole: its row goes
 * back to admitted and the protocol finishes from the objects (the placement is there), ending
 * lifted with no barrier of muster's left and the row dispatched again. */
static void test_dispatched_held_again_is_lifted(void)
{
    struct env e;
    env_start(&e, "ctl-reheld.db");
    ctl_up(&e);
    create_job(&e, "reheld", "nlp", 2, 4, NULL);
    struct rbwait w = {"reheld-job", 1};
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    const char *running[] = {"team/reheld-job", "running"};
    CU_ASSERT_FATAL(pump_until(&e, ledger_state, (void *)running, 10000));
    ctl_down(&e);
    patch_rb(&e, "reheld-job", "{\"spec\":{\"suspension\":{\"scheduling\":true}}}");
    ctl_up(&e);
    CU_ASSERT_FATAL(pump_until(&e, rb_state, &w, 10000));
    const char *again[] = {"team/reheld-job", "running"};
    CU_ASSERT(pump_until(&e, ledger_state, (void *)again, 10000));
    json_object *rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"),
                              "team", "reheld-job");
    json_object *disp = at(at(rb, "spec", "suspension"), "dispatching", NULL);
    CU_ASSERT(!disp || !json_object_get_boolean(disp));
    json_object_put(rb);
    struct rowcount c = rows_of(&e, "team/reheld-job");
    CU_ASSERT_EQUAL(c.rows, 1);
    env_stop(&e);
}

/* A job that finished at once, released before Scheduled=True was acknowledged, and musterd
 * died between (the campaign's kills at release.ledger): the restart writes it. The status is
 * removed here to stand for the write that never landed. */
static void test_released_before_status_gets_it(void)
{
    struct env e;
    env_start(&e, "ctl-status.db");
    ctl_up(&e);
    create_job(&e, "quick", "vision", 1, 2, "1s");
    const char *want[] = {"team/quick-job", "released"};
    CU_ASSERT_FATAL(pump_until(&e, ledger_state, (void *)want, 15000));
    ctl_down(&e);
    struct kube_request req = {
        .verb = KUBE_MERGE_PATCH,
        .path = "/apis/work.karmada.io/v1alpha2/namespaces/team/resourcebindings/quick-job",
        .subresource = "status",
        .body = "{\"status\":{\"conditions\":null}}"};
    int done = 0;
    CU_ASSERT_EQUAL_FATAL(kube_request(e.kube, &req, created, &done), 0);
    CU_ASSERT_FATAL(pump_until(&e, flag_set, &done, 5000));
    struct condwait ok = {"quick-job", "Success"};
    CU_ASSERT_FALSE(rb_reason_is(&e, &ok));
    ctl_up(&e);
    CU_ASSERT(pump_until(&e, rb_reason_is, &ok, 10000));
    CU_ASSERT_EQUAL(rows_of(&e, "team/quick-job").rows, 1);
    env_stop(&e);
}

/* The Workload API PodGroup the pods name (docs/workload.md, "Gang dialects") is looked up at
 * the version the hub serves: v1beta1 (Kubernetes 1.37, the sim's default) or v1alpha2 (1.36,
 * hubWorkloadAPI: v1alpha2). One of the other version, put in the hub's store behind its API,
 * is not read: the gang waits for its PodGroup; one of the served version lets it go. */
static void hub_wl_read(const char *head, const char *served, const char *other)
{
    scenario_head = head;
    struct env e;
    env_start(&e, "ctl-hubwl.db");
    scenario_head = NULL;
    ctl_up(&e);
    static const char pg_fmt[] =
        "{\"apiVersion\":\"scheduling.k8s.io/%s\",\"kind\":\"PodGroup\",\"metadata\":"
        "{\"name\":\"pg\",\"namespace\":\"team\"},\"spec\":{\"schedulingPolicy\":"
        "{\"gang\":{\"minCount\":2}}}}";
    char text[512];
    snprintf(text, sizeof text, pg_fmt, other);
    json_object *pg = json_tokener_parse(text);
    CU_ASSERT_EQUAL_FATAL(sim_store_create(sim_hub_store(e.hub),
                                           res("scheduling.k8s.io", other, "podgroups"), "team", pg,
                                           time(NULL), 0, NULL, NULL),
                          0);
    json_object_put(pg);
    static const char job[] =
        "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"wl\","
        "\"namespace\":\"team\",\"labels\":{\"volcano.sh/queue-name\":\"nlp\"}},\"spec\":"
        "{\"parallelism\":2,\"completions\":2,\"template\":{\"spec\":{\"restartPolicy\":"
        "\"Never\",\"schedulingGroup\":{\"podGroupName\":\"pg\"},\"containers\":[{\"name\":"
        "\"main\",\"image\":\"x\",\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"1\","
        "\"cpu\":\"1\"}}}]}}}}";
    struct kube_request req = {
        .verb = KUBE_CREATE, .path = "/apis/batch/v1/namespaces/team/jobs", .body = job};
    int done = 0;
    CU_ASSERT_EQUAL_FATAL(kube_request(e.kube, &req, created, &done), 0);
    CU_ASSERT_FATAL(pump_until(&e, flag_set, &done, 5000));
    CU_ASSERT_EQUAL(done, 1);
    struct rbwait w = {"wl-job", 2};
    int waited = pump_until(&e, rb_state, &w, 10000);
    json_object *rb =
        get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team", "wl-job");
    if (!waited)
        fprintf(stderr, "\n%s: %s\n", served, json_object_to_json_string(rb));
    CU_ASSERT_FATAL(waited);
    const char *msg = condition(rb, "Scheduled", "message");
    CU_ASSERT(msg && strstr(msg, "waiting for the Workload API PodGroup team/pg"));
    if (!msg || !strstr(msg, "waiting for the Workload API PodGroup team/pg"))
        fprintf(stderr, "\n%s: %s\n", served, msg ? msg : "(no message)");
    json_object_put(rb);
    /* the served version's PodGroup appears: the gang is read again and goes */
    snprintf(text, sizeof text, pg_fmt, served);
    pg = json_tokener_parse(text);
    CU_ASSERT_EQUAL_FATAL(sim_store_create(sim_hub_store(e.hub),
                                           res("scheduling.k8s.io", served, "podgroups"), "team",
                                           pg, time(NULL), 0, NULL, NULL),
                          0);
    json_object_put(pg);
    w.want = 1;
    int went = pump_until(&e, rb_state, &w, 10000);
    CU_ASSERT(went);
    if (!went) {
        rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team", "wl-job");
        msg = condition(rb, "Scheduled", "message");
        fprintf(stderr, "\n%s: still %s\n", served, msg ? msg : "(no message)");
        json_object_put(rb);
    }
    env_stop(&e);
}

static void test_hub_workload_api_versions(void)
{
    hub_wl_read(NULL, "v1beta1", "v1alpha2");
    hub_wl_read("hubWorkloadAPI: v1alpha2\n", "v1alpha2", "v1beta1");
}

/* A JobSet whose replicated job names a pod group template (issue 20, docs/workload.md "The
 * Kubernetes Workload API") takes its groups from the hub Workload whose spec.controllerRef names
 * it, at the version the hub serves. One of the other version is not read: the JobSet waits,
 * its reason naming the Workload; one of the served version appearing reads it again (the
 * Workload informer's add) and it goes. */
static void hub_wl_tree(const char *head, const char *served, const char *other)
{
    scenario_head = head;
    struct env e;
    env_start(&e, "ctl-hubwltree.db");
    scenario_head = NULL;
    ctl_up(&e);
    static const char wl_fmt[] =
        "{\"apiVersion\":\"scheduling.k8s.io/%s\",\"kind\":\"Workload\",\"metadata\":"
        "{\"name\":\"js-wl\",\"namespace\":\"team\"},\"spec\":{\"controllerRef\":"
        "{\"apiGroup\":\"jobset.x-k8s.io\",\"kind\":\"JobSet\",\"name\":\"js\"},"
        "\"podGroupTemplates\":[{\"name\":\"w\",\"schedulingPolicy\":{\"gang\":"
        "{\"minCount\":1}}}]}}";
    char text[512];
    snprintf(text, sizeof text, wl_fmt, other);
    json_object *wl = json_tokener_parse(text);
    CU_ASSERT_EQUAL_FATAL(sim_store_create(sim_hub_store(e.hub),
                                           res("scheduling.k8s.io", other, "workloads"), "team", wl,
                                           time(NULL), 0, NULL, NULL),
                          0);
    json_object_put(wl);
    static const char js[] =
        "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"metadata\":"
        "{\"name\":\"js\",\"namespace\":\"team\",\"labels\":{\"volcano.sh/queue-name\":"
        "\"nlp\"}},\"spec\":{\"replicatedJobs\":[{\"name\":\"w\",\"replicas\":2,"
        "\"template\":{\"metadata\":{\"annotations\":{\"scheduling.k8s.io/"
        "group-template-name\":\"w\"}},\"spec\":{\"parallelism\":2,\"completions\":2,"
        "\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":"
        "\"main\",\"image\":\"x\",\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"1\","
        "\"cpu\":\"1\"}}}]}}}}}]}}";
    struct kube_request req = {.verb = KUBE_CREATE,
                               .path = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/team/jobsets",
                               .body = js};
    int done = 0;
    CU_ASSERT_EQUAL_FATAL(kube_request(e.kube, &req, created, &done), 0);
    CU_ASSERT_FATAL(pump_until(&e, flag_set, &done, 5000));
    CU_ASSERT_EQUAL(done, 1);
    struct rbwait w = {"js-jobset", 2};
    int waited = pump_until(&e, rb_state, &w, 10000);
    CU_ASSERT_FATAL(waited);
    json_object *rb =
        get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team", "js-jobset");
    const char *msg = condition(rb, "Scheduled", "message");
    char want[160];
    snprintf(want, sizeof want,
             "waiting for the Workload (scheduling.k8s.io/%s) whose spec.controllerRef names "
             "JobSet js to be created on the hub",
             served);
    CU_ASSERT(msg && strstr(msg, want));
    if (!msg || !strstr(msg, want))
        fprintf(stderr, "\n%s: %s\n", served, msg ? msg : "(no message)");
    json_object_put(rb);
    snprintf(text, sizeof text, wl_fmt, served);
    wl = json_tokener_parse(text);
    CU_ASSERT_EQUAL_FATAL(sim_store_create(sim_hub_store(e.hub),
                                           res("scheduling.k8s.io", served, "workloads"), "team",
                                           wl, time(NULL), 0, NULL, NULL),
                          0);
    json_object_put(wl);
    w.want = 1;
    int went = pump_until(&e, rb_state, &w, 10000);
    CU_ASSERT(went);
    if (!went) {
        rb = get_obj(&e, res("work.karmada.io", "v1alpha2", "resourcebindings"), "team",
                     "js-jobset");
        msg = condition(rb, "Scheduled", "message");
        fprintf(stderr, "\n%s: still %s\n", served, msg ? msg : "(no message)");
        json_object_put(rb);
    }
    env_stop(&e);
}

static void test_hub_workload_tree_versions(void)
{
    hub_wl_tree(NULL, "v1beta1", "v1alpha2");
    hub_wl_tree("hubWorkloadAPI: v1alpha2\n", "v1alpha2", "v1beta1");
}

static CU_TestInfo tests[] = {
    {"dispatch, then restart", test_dispatch_and_restart},
    {"release on completion", test_release_on_completion},
    {"unknown queue waits", test_unknown_queue_waits},
    {"a queue change with several parked bindings returns", test_queue_change_with_parked},
    {"a full resource-name table is logged, not skipped silently", test_full_name_table_is_logged},
    {"RBs created while no loop ran", test_rbs_created_while_down},
    {"fence down: nothing written", test_fence_down_writes_nothing},
    {"no cluster fit until room frees", test_nofit_until_room_frees},
    {"a tree gang's no-fit remembered until a cluster grows", test_tree_nofit_remembered},
    {"restart after the lift sends nothing again", test_restart_after_lift_sends_nothing_again},
    {"undo, then dispatch: no barrier restored", test_undo_then_dispatch_restores_no_barrier},
    {"a parked binding keeps its row", test_parked_binding_keeps_its_row},
    {"dispatched, held again: lifted again", test_dispatched_held_again_is_lifted},
    {"released before Scheduled=True: written at start-up", test_released_before_status_gets_it},
    {"the hub's Workload API PodGroup read at the version served", test_hub_workload_api_versions},
    {"a JobSet's Workload read at the version served, waited for", test_hub_workload_tree_versions},
    CU_TEST_INFO_NULL,
};

MUSTER_TEST_MAIN("dispatcher/controller", tests)
