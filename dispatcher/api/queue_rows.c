/* The queue rows, mirrored from the store in memory and sorted by name, so reads do not touch
 * SQLite and a list page is a binary search (struct api_qrow in api_int.h); and
 * api_server_reload, which re-reads them for a new leader's engine. */
#include "dispatcher/api/api_int.h"

#include "dispatcher/errors.h"
#include "queue/errors.h"
#include "queue/search.h"
#include "queue/mem.h"

#include <json-c/json.h>
#include <stddef.h>
#include <string.h>

void api__qrow_close(struct api_qrow *r)
{
    for (int i = 0; i < 3; i++)
        json_object_put(r->parsed[i]);
    muster_free(r->name);
    muster_free(r->parent);
    muster_free(r->state);
    muster_free(r->strategy);
    muster_free(r->guarantee);
    muster_free(r->deserved);
    muster_free(r->capability);
    muster_free(r->ns_selector);
    muster_free(r->local_queues);
    muster_free(r->ns_limits);
    muster_free(r->owner_limits);
    memset(r, 0, sizeof(*r));
}

static int dup_or_null(const char *s, char **out)
{
    *out = NULL;
    if (!s)
        return 0;
    *out = muster_strdup(s);
    return *out ? 0 : MUSTER_ENOMEM;
}

static int qrow_from_store(struct api_qrow *r, const struct store_queue *q)
{
    memset(r, 0, sizeof(*r));
    int rc = dup_or_null(q->name, &r->name);
    if (!rc)
        rc = dup_or_null(q->parent, &r->parent);
    if (!rc)
        rc = dup_or_null(q->state, &r->state);
    if (!rc)
        rc = dup_or_null(q->queueing_strategy, &r->strategy);
    if (!rc)
        rc = dup_or_null(q->guarantee ? q->guarantee : "{}", &r->guarantee);
    if (!rc)
        rc = dup_or_null(q->deserved ? q->deserved : "{}", &r->deserved);
    if (!rc)
        rc = dup_or_null(q->capability ? q->capability : "{}", &r->capability);
    if (!rc)
        rc = dup_or_null(q->namespace_selector, &r->ns_selector);
    if (!rc)
        rc = dup_or_null(q->local_queues, &r->local_queues);
    if (!rc)
        rc = dup_or_null(q->namespace_limits, &r->ns_limits);
    if (!rc)
        rc = dup_or_null(q->owner_limits, &r->owner_limits);
    if (rc) {
        api__qrow_close(r);
        return rc;
    }
    r->weight = q->weight;
    r->priority = q->priority;
    r->gang_timeout_ms = q->gang_timeout_ms;
    enum queue_on_loss l = QUEUE_ON_LOSS_REQUEUE;
    if (q->on_cluster_loss)
        (void)queue_on_loss_parse(q->on_cluster_loss, &l); /* the store checked it */
    r->on_loss = queue_on_loss_name(l);
    r->rv = q->resource_version;
    r->created_at = q->created_at;
    r->updated_at = q->updated_at;
    r->not_reclaimable = q->not_reclaimable;
    /* the store checked the name; NULL is the default */
    if (q->within_queue && queue_within_parse(q->within_queue, &r->within_queue)) {
        api__qrow_close(r);
        return MUSTER_ESTORE;
    }
    r->min_runtime_ms = q->min_runtime_ms;
    r->preempt_per_minute = q->preempt_per_minute;
    r->preempt_cooldown_ms = q->preempt_cooldown_ms;
    r->preemptions_made = q->preemptions_made;
    r->preemptions_suffered = q->preemptions_suffered;
    return 0;
}

void api__qrow_to_store(const struct api_qrow *r, struct store_queue *q)
{
    memset(q, 0, sizeof(*q));
    q->name = r->name;
    q->parent = r->parent;
    q->weight = r->weight;
    q->priority = r->priority;
    q->state = r->state;
    q->queueing_strategy = r->strategy;
    q->guarantee = r->guarantee;
    q->deserved = r->deserved;
    q->capability = r->capability;
    q->gang_timeout_ms = r->gang_timeout_ms;
    q->on_cluster_loss = r->on_loss;
    q->namespace_selector = r->ns_selector;
    q->local_queues = r->local_queues;
    q->namespace_limits = r->ns_limits;
    q->owner_limits = r->owner_limits;
    q->resource_version = r->rv;
    q->created_at = r->created_at;
    q->updated_at = r->updated_at;
    q->not_reclaimable = r->not_reclaimable;
    q->within_queue = queue_within_name(r->within_queue);
    q->min_runtime_ms = r->min_runtime_ms;
    q->preempt_per_minute = r->preempt_per_minute;
    q->preempt_cooldown_ms = r->preempt_cooldown_ms;
}

static int str_same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Same spec fields (maps compared as the text we would store). */
int api__qrow_same_spec(const struct api_qrow *a, const struct api_qrow *b)
{
    return str_same(a->name, b->name) && str_same(a->parent, b->parent) &&
           str_same(a->state, b->state) && str_same(a->strategy, b->strategy) &&
           str_same(a->guarantee, b->guarantee) && str_same(a->deserved, b->deserved) &&
           str_same(a->capability, b->capability) && a->weight == b->weight &&
           a->priority == b->priority && a->gang_timeout_ms == b->gang_timeout_ms &&
           a->not_reclaimable == b->not_reclaimable && a->within_queue == b->within_queue &&
           a->min_runtime_ms == b->min_runtime_ms &&
           a->preempt_per_minute == b->preempt_per_minute &&
           a->preempt_cooldown_ms == b->preempt_cooldown_ms && str_same(a->on_loss, b->on_loss) &&
           str_same(a->ns_selector, b->ns_selector) && str_same(a->local_queues, b->local_queues) &&
           str_same(a->ns_limits, b->ns_limits) && str_same(a->owner_limits, b->owner_limits);
}

size_t api__rows_lower_bound(const struct api_server *s, const char *name)
{
    return queue_search_str(s->rows, s->nrows, sizeof(*s->rows), offsetof(struct api_qrow, name),
                            name);
}

struct api_qrow *api__rows_find(struct api_server *s, const char *name)
{
    size_t i = api__rows_lower_bound(s, name);
    return i < s->nrows && strcmp(s->rows[i].name, name) == 0 ? &s->rows[i] : NULL;
}

int api__rows_reserve(struct api_server *s)
{
    if (s->nrows < s->caprows)
        return 0;
    size_t nc = s->caprows ? s->caprows * 2 : 16;
    struct api_qrow *g = muster_realloc(s->rows, nc * sizeof(*g));
    if (!g)
        return MUSTER_ENOMEM;
    s->rows = g;
    s->caprows = nc;
    return 0;
}

/* Puts r (taking its strings) in place of the row of the same name, or inserts it. The caller
 * reserved room first, so this cannot fail. */
void api__rows_put(struct api_server *s, struct api_qrow *r)
{
    s->rows_gen++;
    size_t i = api__rows_lower_bound(s, r->name);
    if (i < s->nrows && strcmp(s->rows[i].name, r->name) == 0) {
        api__qrow_close(&s->rows[i]);
    } else {
        memmove(&s->rows[i + 1], &s->rows[i], (s->nrows - i) * sizeof(*s->rows));
        s->nrows++;
    }
    s->rows[i] = *r;
    memset(r, 0, sizeof(*r));
}

void api__rows_remove(struct api_server *s, const char *name)
{
    s->rows_gen++;
    size_t i = api__rows_lower_bound(s, name);
    if (i >= s->nrows || strcmp(s->rows[i].name, name) != 0)
        return;
    api__qrow_close(&s->rows[i]);
    memmove(&s->rows[i], &s->rows[i + 1], (s->nrows - i - 1) * sizeof(*s->rows));
    s->nrows--;
}

static int load_row_cb(void *ud, const struct store_queue *q)
{
    struct api_server *s = ud;
    int rc = api__rows_reserve(s);
    if (rc)
        return rc;
    /* store_queue_foreach walks in name order, so appending keeps the array sorted. */
    rc = qrow_from_store(&s->rows[s->nrows], q);
    if (!rc)
        s->nrows++;
    return rc;
}

int api__rows_load(struct api_server *s)
{
    s->rows_gen++;
    return store_queue_foreach(s->app.store, load_row_cb, s);
}

void api__rows_free(struct api_server *s)
{
    for (size_t i = 0; i < s->nrows; i++)
        api__qrow_close(&s->rows[i]);
    muster_free(s->rows);
    s->rows = NULL;
    s->nrows = s->caprows = 0;
    api__snapshot_close(&s->qlist);
}

void api_server_preemptions_add(struct api_server *s, const char *queue, int64_t made,
                                int64_t suffered)
{
    struct api_qrow *r = s && queue ? api__rows_find(s, queue) : NULL;
    if (!r)
        return;
    r->preemptions_made += made;
    r->preemptions_suffered += suffered;
    s->rows_gen++; /* a cached list page shows the old counts */
}

int api_server_reload(struct api_server *s, struct queue_tree *t)
{
    s->rows_gen++;
    for (size_t i = 0; i < s->nrows; i++)
        api__qrow_close(&s->rows[i]);
    s->nrows = 0;
    s->app.tree = t;
    s->degraded = 0;
    int rc = api__rows_load(s);
    if (rc)
        s->degraded = 1; /* /readyz says so until a restart */
    return rc;
}
