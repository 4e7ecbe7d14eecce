/* The demo's queues and workload stream (see demo.h). */
#include "dispatcher/demo.h"

#include "cluster-adapters/karmada/paths.h"
#include "dispatcher/recovery.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The demo tree: two organisations, four teams, one StrictFIFO queue. */
static const struct demo_queue {
    const char *name, *parent, *strategy;
    int weight, priority;
    const char *guarantee, *deserved, *capability;
} demo_queues[] = {
    {"research", NULL, "BestEffortFIFO", 1, 0, "{\"nvidia.com/gpu\":\"8\"}",
     "{\"nvidia.com/gpu\":\"20\",\"cpu\":\"256\",\"memory\":\"2Ti\"}",
     "{\"nvidia.com/gpu\":\"32\"}"},
    {"nlp", "research", "BestEffortFIFO", 2, 0, "{\"nvidia.com/gpu\":\"4\"}",
     "{\"nvidia.com/gpu\":\"10\",\"cpu\":\"128\",\"memory\":\"1Ti\"}", "{}"},
    {"vision", "research", "BestEffortFIFO", 1, 0, "{\"nvidia.com/gpu\":\"4\"}",
     "{\"nvidia.com/gpu\":\"10\",\"cpu\":\"128\",\"memory\":\"1Ti\"}", "{}"},
    {"production", NULL, "BestEffortFIFO", 1, 10, "{\"nvidia.com/gpu\":\"12\"}",
     "{\"nvidia.com/gpu\":\"20\",\"cpu\":\"256\",\"memory\":\"2Ti\"}",
     "{\"nvidia.com/gpu\":\"36\"}"},
    {"serving", "production", "StrictFIFO", 1, 0, "{\"nvidia.com/gpu\":\"8\"}",
     "{\"nvidia.com/gpu\":\"10\",\"cpu\":\"128\",\"memory\":\"1Ti\"}", "{}"},
    {"batch", "production", "BestEffortFIFO", 1, 0, "{\"nvidia.com/gpu\":\"4\"}",
     "{\"nvidia.com/gpu\":\"10\",\"cpu\":\"128\",\"memory\":\"1Ti\"}", "{}"},
};
static const char *const demo_leaves[] = {"nlp", "vision", "serving", "batch", "default"};

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int disp_demo_seed_queues(struct store *s, struct queue_tree *t)
{
    if (queue_tree_find(t, "research"))
        return 0;
    struct queue_resnames *names = queue_tree_resnames(t);
    int64_t at = wall_ms();
    int rc = store_begin(s);
    for (size_t i = 0; !rc && i < sizeof(demo_queues) / sizeof(demo_queues[0]); i++) {
        const struct demo_queue *q = &demo_queues[i];
        /* batch gets a short gang timeout so the demo shows rollbacks (below) */
        int64_t timeout = strcmp(q->name, "batch") == 0 ? 30000 : 300000;
        struct store_queue row = {.name = q->name,
                                  .parent = q->parent ? q->parent : "root",
                                  .weight = q->weight,
                                  .priority = q->priority,
                                  .state = "Open",
                                  .queueing_strategy = q->strategy,
                                  .guarantee = q->guarantee,
                                  .deserved = q->deserved,
                                  .capability = q->capability,
                                  .gang_timeout_ms = timeout,
                                  .resource_version = 1,
                                  .created_at = at,
                                  .updated_at = at,
                                  .on_cluster_loss = "Requeue"};
        struct queue_spec spec;
        char err[256];
        struct queue_error qe;
        rc = store_queue_put(s, &row);
        if (!rc)
            rc = disp_queue_spec_from_row(names, &row, &spec, err, sizeof(err));
        if (!rc) {
            rc = queue_tree_create(t, &spec, &qe);
            disp_queue_spec_close(&spec);
        }
    }
    if (rc) {
        store_rollback(s);
        return rc;
    }
    return store_commit(s);
}

/* ---- the workload stream ---- */

struct doomed {
    char name[64];
    int64_t at; /* unix ms: delete the Deployment then */
};

struct disp_demo_gen {
    uv_timer_t timer;
    struct kube_client *kube;
    struct disp_demo_gen_options opt;
    uint64_t rng, seq, created;
    struct doomed doomed[256];
    size_t ndoomed;
    int64_t next_flaky; /* unix ms */
    char flaky_policy[64];
    int64_t flaky_fix_at; /* unix ms: delete the breaking policy then */
    /* Requests made and not answered yet: their callbacks get g, so g outlives them. A close
     * comes at SIGTERM, while a create may be on the wire; the client answers every one, at the
     * latest with MUSTER_ECANCELED when it closes. */
    unsigned inflight;
    int timer_closed;
    void (*done)(void *ud);
    void *done_ud;
};

static uint64_t rnd(struct disp_demo_gen *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

/* Once closed, g goes when its timer has closed and the last of its requests is answered. */
static void gen_maybe_free(struct disp_demo_gen *g)
{
    if (!g->timer_closed || g->inflight)
        return;
    void (*done)(void *) = g->done;
    void *ud = g->done_ud;
    muster_free(g);
    if (done)
        done(ud);
}

static void created_cb(int err, const struct kube_response *resp, void *ud)
{
    struct disp_demo_gen *g = ud;
    (void)resp;
    g->inflight--;
    if (!err)
        g->created++;
    gen_maybe_free(g);
}

static void ignore_cb(int err, const struct kube_response *resp, void *ud)
{
    struct disp_demo_gen *g = ud;
    (void)err, (void)resp;
    g->inflight--;
    gen_maybe_free(g);
}

static void request(struct disp_demo_gen *g, const struct kube_request *req, kube_response_cb cb)
{
    if (kube_request(g->kube, req, cb, g) == 0)
        g->inflight++;
}

static void post(struct disp_demo_gen *g, const char *group, const char *version,
                 const char *resource, const char *body)
{
    char path[256];
    if (kube_path(path, sizeof path, group, version, DISP_DEMO_NAMESPACE, resource, NULL))
        return;
    struct kube_request req = {.verb = KUBE_CREATE, .path = path, .body = body};
    request(g, &req, created_cb);
}

/* GPUs per pod and pods per gang, weighted toward the small jobs a real fleet sees most. */
static void shape(struct disp_demo_gen *g, unsigned *gpus, unsigned *pods)
{
    static const unsigned gpu_per[] = {1, 1, 2, 2, 4, 8};
    static const unsigned pods_n[] = {1, 1, 2, 2, 3, 4};
    *gpus = gpu_per[rnd(g) % 6];
    *pods = pods_n[rnd(g) % 6];
    if (*gpus * *pods > 16)
        *pods = 16 / *gpus;
}

static void make_job(struct disp_demo_gen *g, const char *queue, uint64_t id)
{
    unsigned gpus, pods;
    shape(g, &gpus, &pods);
    unsigned secs = 15 + (unsigned)(rnd(g) % 45);
    int spread = pods > 1 && rnd(g) % 3 == 0;
    char body[1536];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"train-%" PRIu64
             "\",\"namespace\":\"" DISP_DEMO_NAMESPACE "\",\"labels\":{\"volcano.sh/queue-name\":"
             "\"%s\"},\"annotations\":{\"sim.muster.io/duration\":\"%us\"%s}},\"spec\":{"
             "\"parallelism\":%u,\"completions\":%u,\"template\":{\"spec\":{\"restartPolicy\":"
             "\"Never\",\"containers\":[{\"name\":\"train\",\"image\":\"trainer:latest\","
             "\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"%u\",\"cpu\":\"%u\",\"memory\":"
             "\"%uGi\"},\"limits\":{\"nvidia.com/gpu\":\"%u\"}}}]}}}}",
             id, queue, secs, spread ? ",\"scheduling.muster.io/placement\":\"spread\"" : "", pods,
             pods, gpus, gpus * 8, gpus * 64, gpus);
    post(g, "batch", "v1", "jobs", body);
}

static void make_vcjob(struct disp_demo_gen *g, const char *queue, uint64_t id)
{
    unsigned gpus, pods;
    shape(g, &gpus, &pods);
    unsigned secs = 15 + (unsigned)(rnd(g) % 45);
    char body[2048];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{"
             "\"name\":\"dist-%" PRIu64 "\",\"namespace\":\"" DISP_DEMO_NAMESPACE "\","
             "\"annotations\":{\"sim.muster.io/duration\":\"%us\"}},\"spec\":{\"queue\":\"%s\","
             "\"schedulerName\":\"volcano\",\"minAvailable\":%u,\"tasks\":[{\"name\":\"ps\","
             "\"replicas\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":\"ps\",\"image\":"
             "\"ps:latest\",\"resources\":{\"requests\":{\"cpu\":\"4\",\"memory\":\"16Gi\"}}}]}}},"
             "{\"name\":\"worker\",\"replicas\":%u,\"template\":{\"spec\":{\"containers\":[{"
             "\"name\":\"worker\",\"image\":\"worker:latest\",\"resources\":{\"requests\":{"
             "\"nvidia.com/gpu\":\"%u\",\"cpu\":\"%u\",\"memory\":\"%uGi\"},\"limits\":{"
             "\"nvidia.com/gpu\":\"%u\"}}}]}}}]}}",
             id, secs, queue, pods + 1, pods, gpus, gpus * 8, gpus * 64, gpus);
    post(g, "batch.volcano.sh", "v1alpha1", "jobs", body);
}

static void make_deployment(struct disp_demo_gen *g, const char *queue, uint64_t id)
{
    unsigned gpus = 1 + (unsigned)(rnd(g) % 2), pods = 1 + (unsigned)(rnd(g) % 2);
    char body[1536];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
             "\"serve-%" PRIu64 "\",\"namespace\":\"" DISP_DEMO_NAMESPACE "\",\"labels\":{"
             "\"volcano.sh/queue-name\":\"%s\"}},\"spec\":{\"replicas\":%u,\"selector\":{"
             "\"matchLabels\":{\"app\":\"serve-%" PRIu64 "\"}},\"template\":{\"metadata\":{"
             "\"labels\":{\"app\":\"serve-%" PRIu64 "\"}},\"spec\":{\"containers\":[{\"name\":"
             "\"serve\",\"image\":\"server:latest\",\"resources\":{\"requests\":{"
             "\"nvidia.com/gpu\":\"%u\",\"cpu\":\"%u\",\"memory\":\"%uGi\"},\"limits\":{"
             "\"nvidia.com/gpu\":\"%u\"}}}]}}}}",
             id, queue, pods, id, id, gpus, gpus * 8, gpus * 64, gpus);
    post(g, "apps", "v1", "deployments", body);
    if (g->ndoomed < sizeof g->doomed / sizeof g->doomed[0]) {
        struct doomed *d = &g->doomed[g->ndoomed++];
        snprintf(d->name, sizeof d->name, "serve-%" PRIu64, id);
        d->at = wall_ms() + 60000 + (int64_t)(rnd(g) % 60000);
    }
}

/* Now and then a gang that cannot start: a Deployment in queue batch (gang timeout 30 s) with
 * a user's OverridePolicy pointing its pods at a PodGroup that does not exist, so no share
 * runs and muster rolls the whole gang back. The policy is removed a little later, and the
 * requeued gang then runs: what a member that could not start a share looks like. */
static void make_flaky(struct disp_demo_gen *g, uint64_t id, int64_t now)
{
    char body[1024];
    snprintf(g->flaky_policy, sizeof g->flaky_policy, "zz-break-flaky-%" PRIu64, id);
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"policy.karmada.io/v1alpha1\",\"kind\":\"OverridePolicy\","
             "\"metadata\":{\"name\":\"%s\",\"namespace\":\"" DISP_DEMO_NAMESPACE "\"},"
             "\"spec\":{\"resourceSelectors\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
             "\"Deployment\",\"namespace\":\"" DISP_DEMO_NAMESPACE "\",\"name\":\"flaky-%" PRIu64
             "\"}],\"overrideRules\":[{\"overriders\":{\"plaintext\":[{\"path\":"
             "\"/spec/template/metadata/annotations/scheduling.k8s.io~1group-name\","
             "\"operator\":\"add\",\"value\":\"no-such-group\"}]}}]}}",
             g->flaky_policy, id);
    post(g, "policy.karmada.io", "v1alpha1", "overridepolicies", body);
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
             "\"flaky-%" PRIu64 "\",\"namespace\":\"" DISP_DEMO_NAMESPACE "\",\"labels\":{"
             "\"volcano.sh/queue-name\":\"batch\"}},\"spec\":{\"replicas\":2,\"selector\":{"
             "\"matchLabels\":{\"app\":\"flaky\"}},\"template\":{\"metadata\":{\"labels\":{"
             "\"app\":\"flaky\"},\"annotations\":{}},\"spec\":{\"containers\":[{\"name\":"
             "\"serve\",\"image\":\"server:latest\",\"resources\":{\"requests\":{"
             "\"nvidia.com/gpu\":\"1\",\"cpu\":\"4\",\"memory\":\"32Gi\"}}}]}}}}",
             id);
    post(g, "apps", "v1", "deployments", body);
    if (g->ndoomed < sizeof g->doomed / sizeof g->doomed[0]) {
        struct doomed *d = &g->doomed[g->ndoomed++];
        snprintf(d->name, sizeof d->name, "flaky-%" PRIu64, id);
        d->at = now + 150000;
    }
    g->flaky_fix_at = now + 45000;
    g->next_flaky = now + 120000;
}

static void on_timer(uv_timer_t *h)
{
    struct disp_demo_gen *g = h->data;
    int64_t now = wall_ms();
    if (g->flaky_policy[0] && now >= g->flaky_fix_at) {
        char path[256];
        if (!karmada_path_policy(path, sizeof path, DISP_DEMO_NAMESPACE, g->flaky_policy)) {
            struct kube_request req = {.verb = KUBE_DELETE, .path = path};
            request(g, &req, ignore_cb);
        }
        g->flaky_policy[0] = '\0';
    }
    if (!g->flaky_policy[0] && now >= g->next_flaky)
        make_flaky(g, ++g->seq, now);
    for (size_t i = 0; i < g->ndoomed;) {
        if (g->doomed[i].at > now) {
            i++;
            continue;
        }
        char path[256];
        if (!kube_path(path, sizeof path, "apps", "v1", DISP_DEMO_NAMESPACE, "deployments",
                       g->doomed[i].name)) {
            struct kube_request req = {.verb = KUBE_DELETE, .path = path};
            request(g, &req, ignore_cb);
        }
        g->doomed[i] = g->doomed[--g->ndoomed];
    }
    uint64_t max = g->opt.backlog_max ? g->opt.backlog_max : 300;
    if (g->opt.backlog && g->opt.backlog(g->opt.ud) > max)
        return;
    const char *queue = demo_leaves[rnd(g) % (sizeof demo_leaves / sizeof demo_leaves[0])];
    uint64_t id = ++g->seq;
    unsigned kind = (unsigned)(rnd(g) % 10);
    if (kind < 6)
        make_job(g, queue, id);
    else if (kind < 9)
        make_vcjob(g, queue, id);
    else
        make_deployment(g, queue, id);
}

int disp_demo_gen_start(uv_loop_t *loop, struct kube_client *kube,
                        const struct disp_demo_gen_options *opt, struct disp_demo_gen **out)
{
    struct disp_demo_gen *g = muster_calloc(1, sizeof(*g));
    if (!g)
        return MUSTER_ENOMEM;
    g->kube = kube;
    if (opt)
        g->opt = *opt;
    g->rng = g->opt.seed ? g->opt.seed : (uint64_t)wall_ms() | 1;
    /* names stay unique across runs against the same hub */
    g->seq = (uint64_t)wall_ms() % 100000000;
    g->next_flaky = wall_ms() + 3000;
    double rate = g->opt.rate > 0 ? g->opt.rate : 1;
    uint64_t every = (uint64_t)(1000.0 / rate);
    uv_timer_init(loop, &g->timer);
    g->timer.data = g;
    uv_timer_start(&g->timer, on_timer, 200, every ? every : 1);
    *out = g;
    return 0;
}

uint64_t disp_demo_gen_created(const struct disp_demo_gen *g)
{
    return g ? g->created : 0;
}

static void gen_closed(uv_handle_t *h)
{
    struct disp_demo_gen *g = h->data;
    g->timer_closed = 1;
    gen_maybe_free(g);
}

void disp_demo_gen_close_then(struct disp_demo_gen *g, void (*done)(void *ud), void *ud)
{
    if (!g || uv_is_closing((uv_handle_t *)&g->timer))
        return;
    g->done = done;
    g->done_ud = ud;
    uv_close((uv_handle_t *)&g->timer, gen_closed);
}

void disp_demo_gen_close(struct disp_demo_gen *g)
{
    disp_demo_gen_close_then(g, NULL, NULL);
}
