/* Rebuilds the queue engine from the store at start-up (see recovery.h). */
#include "dispatcher/recovery.h"

#include "cluster-adapters/kube/resources.h"
#include "dispatcher/errors.h"
#include "queue/hash.h"
#include "queue/idmap.h"
#include "queue/mem.h"

#include <stdio.h>
#include <string.h>

struct qrow {
    struct queue_spec spec;
    char *name, *parent;
    int done;
};

struct qload {
    struct queue_tree *t;
    struct qrow *rows;
    size_t n, cap;
    char *err;
    size_t errcap;
};

static void qrow_close(struct qrow *r)
{
    muster_free(r->name);
    muster_free(r->parent);
    disp_queue_spec_close(&r->spec);
}

int disp_queue_spec_from_row(struct queue_resnames *names, const struct store_queue *q,
                             struct queue_spec *spec, char *err, size_t errcap)
{
    memset(spec, 0, sizeof(*spec));
    spec->name = q->name;
    spec->parent = q->parent;
    if (q->weight < 1 || q->weight > 1000000 || q->priority < INT32_MIN ||
        q->priority > INT32_MAX) {
        snprintf(err, errcap, "weight or priority out of range");
        return MUSTER_EINVAL;
    }
    spec->weight = (int32_t)q->weight;
    spec->priority = (int32_t)q->priority;
    if (queue_state_parse(q->state, &spec->state) ||
        queue_strategy_parse(q->queueing_strategy, &spec->strategy)) {
        snprintf(err, errcap, "unknown state or queueing strategy");
        return MUSTER_EINVAL;
    }
    if ((q->within_queue && queue_within_parse(q->within_queue, &spec->within_queue)) ||
        q->preempt_per_minute < 0 || q->preempt_per_minute > QUEUE_PREEMPT_PER_MINUTE_MAX) {
        snprintf(err, errcap, "unknown preemption.withinQueue or maxPerMinute out of range");
        return MUSTER_EINVAL;
    }
    spec->reclaimable = q->not_reclaimable ? QUEUE_NOT_RECLAIMABLE : QUEUE_RECLAIMABLE;
    spec->min_runtime = q->min_runtime_ms; /* the dispatcher's unit for the engine: ms */
    spec->max_per_minute = (int32_t)q->preempt_per_minute;
    spec->cooldown = q->preempt_cooldown_ms;
    if (q->on_cluster_loss && queue_on_loss_parse(q->on_cluster_loss, &spec->on_cluster_loss)) {
        snprintf(err, errcap, "unknown onClusterLoss");
        return MUSTER_EINVAL;
    }
    int rc = kube_resvec_parse_text(names, q->guarantee, "guarantee", &spec->guarantee, err,
                                    errcap);
    if (!rc)
        rc = kube_resvec_parse_text(names, q->deserved, "deserved", &spec->deserved, err, errcap);
    if (!rc)
        rc = kube_resvec_parse_limits_text(names, q->capability, "capability", &spec->capability,
                                           err, errcap);
    if (rc)
        disp_queue_spec_close(spec);
    return rc;
}

void disp_queue_spec_close(struct queue_spec *spec)
{
    queue_resvec_close(&spec->guarantee);
    queue_resvec_close(&spec->deserved);
    queue_resvec_close(&spec->capability);
}

static int queue_row_cb(void *ud, const struct store_queue *q)
{
    struct qload *l = ud;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct qrow *rows = muster_realloc(l->rows, cap * sizeof(*rows));
        if (!rows)
            return MUSTER_ENOMEM;
        l->rows = rows;
        l->cap = cap;
    }
    struct qrow *r = &l->rows[l->n];
    memset(r, 0, sizeof(*r));
    r->name = muster_strdup(q->name);
    r->parent = q->parent ? muster_strdup(q->parent) : NULL;
    if (!r->name || (q->parent && !r->parent)) {
        qrow_close(r);
        return MUSTER_ENOMEM;
    }
    l->n++;
    char why[256];
    int rc = disp_queue_spec_from_row(queue_tree_resnames(l->t), q, &r->spec, why, sizeof(why));
    r->spec.name = r->name; /* the copies outlive the callback's row */
    r->spec.parent = r->parent;
    if (rc) {
        snprintf(l->err, l->errcap, "queue %s in the database: %s", q->name, why);
        return rc == MUSTER_ENOMEM ? rc : MUSTER_ESTORE;
    }
    return 0;
}

/* Applies rows parents first: each pass applies every row whose parent is already there. */
static int apply_queues(struct qload *l, size_t *applied)
{
    size_t left = l->n;
    while (left) {
        size_t progress = 0;
        for (size_t i = 0; i < l->n; i++) {
            struct qrow *r = &l->rows[i];
            const char *parent = r->parent ? r->parent : QUEUE_ROOT;
            int is_root = strcmp(r->name, QUEUE_ROOT) == 0;
            if (r->done || (!is_root && !queue_tree_find(l->t, parent)))
                continue;
            struct queue_error qe;
            int exists = queue_tree_find(l->t, r->name) != NULL;
            int rc = exists ? queue_tree_update(l->t, &r->spec, &qe)
                            : queue_tree_create(l->t, &r->spec, &qe);
            if (rc) {
                snprintf(l->err, l->errcap, "queue %s in the database: %s: %s", r->name,
                         qe.field, qe.msg);
                return MUSTER_ESTORE;
            }
            r->done = 1;
            progress++;
            left--;
        }
        if (!progress) {
            for (size_t i = 0; i < l->n; i++)
                if (!l->rows[i].done)
                    snprintf(l->err, l->errcap, "queue %s in the database: parent %s is missing",
                             l->rows[i].name, l->rows[i].parent ? l->rows[i].parent : "root");
            return MUSTER_ESTORE;
        }
    }
    *applied = l->n;
    return 0;
}

/* Requests repeat (workloads come in a few sizes), so each distinct text is parsed once. */
struct req_cache_item {
    char *text;
    struct queue_resvec vec;
    struct req_cache_item *next;
};

struct lload {
    struct queue_tree *t;
    struct queue_idmap cache; /* FNV-1a of the text -> chain of items */
    size_t cached;
    struct disp_load_stats *st;
    char *err;
    size_t errcap;
};

#define REQ_CACHE_MAX 65536 /* bound the cache: a ledger of all-distinct requests parses each */

static int request_of(struct lload *l, const struct store_ledger_row *row,
                      const struct queue_resvec **out, struct queue_resvec *scratch)
{
    uint64_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, row->request);
    for (struct req_cache_item *it = queue_idmap_get(&l->cache, h); it; it = it->next) {
        if (strcmp(it->text, row->request) == 0) {
            *out = &it->vec;
            return 0;
        }
    }
    char why[256];
    int rc = kube_resvec_parse_text(queue_tree_resnames(l->t), row->request, "request", scratch,
                                    why, sizeof(why));
    if (rc) {
        snprintf(l->err, l->errcap, "ledger row %lld in the database: %s", (long long)row->id,
                 why);
        return MUSTER_ESTORE;
    }
    *out = scratch;
    if (l->cached >= REQ_CACHE_MAX)
        return 0;
    struct req_cache_item *it = muster_calloc(1, sizeof(*it));
    if (!it)
        return 0;
    it->text = muster_strdup(row->request);
    if (!it->text || queue_resvec_copy(&it->vec, scratch)) {
        muster_free(it->text);
        queue_resvec_close(&it->vec);
        muster_free(it);
        return 0;
    }
    it->next = queue_idmap_get(&l->cache, h);
    if (queue_idmap_put(&l->cache, h, it)) {
        muster_free(it->text);
        queue_resvec_close(&it->vec);
        muster_free(it);
        return 0;
    }
    l->cached++;
    return 0;
}

static void cache_free_cb(void *ud, void *val)
{
    (void)ud;
    for (struct req_cache_item *it = val, *next; it; it = next) {
        next = it->next;
        muster_free(it->text);
        queue_resvec_close(&it->vec);
        muster_free(it);
    }
}

static int ledger_row_cb(void *ud, const struct store_ledger_row *row)
{
    struct lload *l = ud;
    if (row->gang_lead > 0) {
        /* a member of a gang of several RBs: its lead's entry holds the whole gang
         * (schema/0011_pod_groups.sql) */
        if (strcmp(row->state, "pending") != 0)
            l->st->admitted++;
        return 0;
    }
    struct queue_resvec scratch = {0};
    const struct queue_resvec *req;
    int rc = request_of(l, row, &req, &scratch);
    if (rc) {
        queue_resvec_close(&scratch);
        return rc;
    }
    int admitted = strcmp(row->state, "pending") != 0;
    if (!admitted && req->len == 0) {
        /* a workload scaled to 0 keeps its pending row but holds nothing: it is not queued,
         * and the dispatcher parks it with that reason (docs/dispatcher.md) */
        queue_resvec_close(&scratch);
        return 0;
    }
    struct queue_entry_spec es = {(uint64_t)row->id, row->queue,
                                  row->priority < INT32_MIN   ? INT32_MIN
                                  : row->priority > INT32_MAX ? INT32_MAX
                                                              : (int32_t)row->priority,
                                  row->created_at, req};
    struct queue_error qe;
    rc = admitted ? queue_entry_add_admitted(l->t, &es, NULL, &qe)
                  : queue_entry_add(l->t, &es, NULL, &qe);
    queue_resvec_close(&scratch);
    if (rc == MUSTER_ENOENT || rc == MUSTER_ENOTLEAF) {
        l->st->orphans++; /* its queue went away: the dispatcher holds it with that reason */
        return 0;
    }
    if (rc) {
        snprintf(l->err, l->errcap, "ledger row %lld in the database: %s: %s", (long long)row->id,
                 qe.field, qe.msg);
        return rc == MUSTER_ENOMEM ? rc : MUSTER_ESTORE;
    }
    if (admitted)
        l->st->admitted++;
    else
        l->st->pending++;
    return 0;
}

int disp_load(struct store *s, struct queue_tree *t, struct disp_load_stats *st, char *err,
              size_t errcap)
{
    struct disp_load_stats local;
    char scratch_err[1];
    if (!st)
        st = &local;
    if (!err || !errcap) {
        err = scratch_err;
        errcap = sizeof(scratch_err);
    }
    memset(st, 0, sizeof(*st));
    err[0] = '\0';
    struct qload ql = {.t = t, .err = err, .errcap = errcap};
    int rc = store_queue_foreach(s, queue_row_cb, &ql);
    if (rc && !err[0])
        snprintf(err, errcap, "reading queues: %s", store_errmsg(s));
    if (!rc)
        rc = apply_queues(&ql, &st->queues);
    for (size_t i = 0; i < ql.n; i++)
        qrow_close(&ql.rows[i]);
    muster_free(ql.rows);
    if (rc)
        return rc;

    struct lload ll = {.t = t, .st = st, .err = err, .errcap = errcap};
    queue_idmap_init(&ll.cache);
    rc = store_ledger_foreach_live(s, ledger_row_cb, &ll);
    if (rc && !err[0])
        snprintf(err, errcap, "reading the ledger: %s", store_errmsg(s));
    queue_idmap_each(&ll.cache, cache_free_cb, NULL);
    queue_idmap_close(&ll.cache);
    return rc;
}
