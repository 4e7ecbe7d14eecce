/* GET /metrics: the queue gauges and the API's own counters in Prometheus text format 0.0.4,
 * followed by the dispatcher's registry (dispatcher/metrics.c, which also writes the text);
 * docs/metrics.md. */
#include "dispatcher/api/api_int.h"

#include "dispatcher/metrics.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <inttypes.h>
#include <string.h>

/* A queue and its live status, gathered once per scrape. */
struct mqueue {
    const struct queue_node *q;
    struct queue_status st;
};

struct mwalk {
    struct mqueue *qs;
    size_t n, cap;
    const struct queue_tree *t;
};

static int metrics_walk_cb(void *ud, const struct queue_node *q)
{
    struct mwalk *w = ud;
    if (w->n == w->cap)
        return MUSTER_ELIMIT; /* the tree grew under us: never, the walk is on our thread */
    struct mqueue *m = &w->qs[w->n];
    memset(m, 0, sizeof(*m));
    m->q = q;
    int rc = queue_node_status(w->t, q, &m->st);
    if (rc)
        return rc;
    w->n++;
    return 0;
}

/* One family of per-queue, per-resource gauges; which picks the vector. */
enum mvec { MV_ALLOCATED, MV_GUARANTEE, MV_DESERVED, MV_CAPABILITY };

static void metrics_resvecs(struct disp_metrics_text *b, const struct mwalk *w,
                            const struct queue_resnames *rn, enum mvec which, const char *name,
                            const char *help)
{
    disp_metrics_text_family(b, name, "gauge", help);
    for (size_t i = 0; i < w->n; i++) {
        const struct queue_spec *sp = queue_node_spec(w->qs[i].q);
        const struct queue_resvec *v = which == MV_ALLOCATED   ? &w->qs[i].st.allocated
                                       : which == MV_GUARANTEE ? &sp->guarantee
                                       : which == MV_DESERVED  ? &sp->deserved
                                                               : &sp->capability;
        for (uint32_t k = 0; k < v->len; k++) {
            disp_metrics_text_printf(b, "%s{queue=\"", name);
            disp_metrics_text_label(b, queue_node_name(w->qs[i].q));
            disp_metrics_text_printf(b, "\",resource=\"");
            disp_metrics_text_label(b, queue_resnames_name(rn, v->items[k].id));
            disp_metrics_text_printf(b, "\"} ");
            disp_metrics_text_milli(b, v->items[k].milli);
        }
    }
}

static void metrics_counts(struct disp_metrics_text *b, const struct mwalk *w, int what,
                           const char *name, const char *type, const char *help)
{
    disp_metrics_text_family(b, name, type, help);
    for (size_t i = 0; i < w->n; i++) {
        disp_metrics_text_printf(b, "%s{queue=\"", name);
        disp_metrics_text_label(b, queue_node_name(w->qs[i].q));
        if (what == 0)
            disp_metrics_text_printf(b, "\"} %" PRIu64 "\n", w->qs[i].st.pending);
        else if (what == 1)
            disp_metrics_text_printf(b, "\"} %" PRIu64 "\n", w->qs[i].st.admitted);
        else {
            disp_metrics_text_printf(b, "\"} ");
            disp_metrics_text_double(b, w->qs[i].st.share); /* +Inf when deserved is 0 */
            disp_metrics_text_printf(b, "\n");
        }
    }
}

void api__handle_metrics(struct api_call *c)
{
    struct api_server *s = c->srv;
    struct mwalk w = {NULL, 0, queue_tree_count(s->app.tree), s->app.tree};
    struct disp_metrics_text b = {0};
    w.qs = muster_calloc(w.cap ? w.cap : 1, sizeof(*w.qs));
    int rc = w.qs ? queue_tree_walk(s->app.tree, metrics_walk_cb, &w) : MUSTER_ENOMEM;
    if (!rc) {
        const struct queue_resnames *rn = queue_tree_resnames(s->app.tree);
        metrics_resvecs(&b, &w, rn, MV_ALLOCATED, "muster_queue_allocated",
                        "Admitted usage of the queue's subtree, per resource (cores, bytes, "
                        "units).");
        metrics_resvecs(&b, &w, rn, MV_GUARANTEE, "muster_queue_guarantee",
                        "Capacity guaranteed to the queue, per resource.");
        metrics_resvecs(&b, &w, rn, MV_DESERVED, "muster_queue_deserved",
                        "The queue's fair share target, per resource.");
        metrics_resvecs(&b, &w, rn, MV_CAPABILITY, "muster_queue_capability",
                        "The queue's hard limit, per resource; absent when unlimited.");
        metrics_counts(&b, &w, 0, "muster_queue_pending", "gauge",
                       "Workloads waiting in the queue's subtree.");
        metrics_counts(&b, &w, 1, "muster_queue_admitted", "gauge",
                       "Workloads admitted in the queue's subtree.");
        metrics_counts(&b, &w, 2, "muster_queue_share", "gauge",
                       "Weighted dominant share of deserved (fair order: lowest first).");
        disp_metrics_text_family(
            &b, "muster_api_requests_total", "counter",
            "Admin API requests answered, by method, route template and status code.");
        for (size_t i = 0; i < s->nreqs; i++)
            disp_metrics_text_printf(
                &b,
                "muster_api_requests_total{method=\"%s\",route=\"%s\",code=\"%d\"} "
                "%" PRIu64 "\n",
                s->reqs[i].method, s->reqs[i].route, s->reqs[i].code, s->reqs[i].n);
        disp_metrics_text_family(
            &b, "muster_api_requests_dropped_series_total", "counter",
            "Requests not counted by series because the series table was full.");
        disp_metrics_text_printf(&b, "muster_api_requests_dropped_series_total %" PRIu64 "\n",
                                 s->reqs_dropped);
        disp_metrics_text_family(&b, "muster_audit_writes_total", "counter",
                                 "Changes committed to the store with their audit row, by action.");
        for (size_t i = 0; i < API_AUDIT_NACTIONS; i++)
            disp_metrics_text_printf(&b, "muster_audit_writes_total{action=\"%s\"} %" PRIu64 "\n",
                                     api__audit_actions[i], s->audit_writes[i]);
        disp_metrics_text_family(
            &b, "muster_webhook_reviews_total", "counter",
            "AdmissionReviews answered by the ResourceBinding webhook, by result.");
        for (int i = 0; i < KARMADA_WEBHOOK_VERDICTS; i++)
            disp_metrics_text_printf(&b,
                                     "muster_webhook_reviews_total{result=\"%s\"} %" PRIu64 "\n",
                                     karmada_webhook_verdict_name((enum karmada_webhook_verdict)i),
                                     s->webhook_reviews[i]);
        disp_metrics_text_family(&b, "muster_resource_names", "gauge",
                                 "Distinct resource names known (queue specs, clusters, "
                                 "workloads); at muster_resource_names_max new ones are refused.");
        disp_metrics_text_printf(&b, "muster_resource_names %u\n", queue_resnames_count(rn));
        disp_metrics_text_family(&b, "muster_resource_names_max", "gauge",
                                 "The most distinct resource names muster holds.");
        disp_metrics_text_printf(&b, "muster_resource_names_max %d\n", QUEUE_RESNAMES_MAX);
        disp_metrics_text_family(&b, "muster_resource_names_refused_total", "counter",
                                 "New resource names refused because the table was full.");
        disp_metrics_text_printf(&b, "muster_resource_names_refused_total %" PRIu64 "\n",
                                 queue_resnames_refused(rn));
        /* The dispatcher's own families follow the queue gauges (docs/metrics.md). */
        if (s->app.metrics && !b.bad &&
            disp_metrics_render(s->app.metrics, &b.p, &b.len, &b.cap) != 0)
            b.bad = 1;
    }
    for (size_t i = 0; i < w.n; i++)
        queue_status_close(&w.qs[i].st);
    muster_free(w.qs);
    if (rc || b.bad)
        api__send_json(c->req, 500, NULL);
    else
        api__send_text(c->req, 200, "text/plain; version=0.0.4; charset=utf-8", b.p, b.len);
    muster_free(b.p);
}
