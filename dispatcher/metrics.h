/* The dispatcher's Prometheus metrics (docs/metrics.md): counters and histograms the dispatch
 * loop updates and the admin API renders after its queue gauges on GET /metrics. One registry
 * per musterd; single-threaded (the loop's thread). */
#ifndef MUSTER_DISPATCHER_METRICS_H
#define MUSTER_DISPATCHER_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct disp_metrics;

struct disp_metrics *disp_metrics_new(void);
void disp_metrics_free(struct disp_metrics *m);

/* muster_admissions_total, muster_rollbacks_total{reason}, muster_requeues_total,
 * muster_releases_total{reason} */
void disp_metrics_admission(struct disp_metrics *m, const char *queue);
void disp_metrics_rollback(struct disp_metrics *m, const char *reason);
void disp_metrics_requeue(struct disp_metrics *m);
/* muster_ledger_commits_total: a batch of ledger rows committed (one transaction). */
void disp_metrics_ledger_commit(struct disp_metrics *m);
void disp_metrics_release(struct disp_metrics *m, const char *reason);
/* muster_cluster_losses_total{trigger, decision}: a dispatched gang lost its share in a cluster
 * (trigger NotReady, NoExecute or Evicted) and its queue's onClusterLoss decided (requeued,
 * replaced). */
void disp_metrics_cluster_loss(struct disp_metrics *m, const char *trigger, const char *decision);

/* Histograms, in seconds: muster_admission_wait_seconds (RB seen to admitted),
 * muster_dispatch_latency_seconds (admitted to RB released to its clusters),
 * muster_cycle_duration_seconds. */
void disp_metrics_admission_wait(struct disp_metrics *m, double seconds);
/* A running gang of queue preempted; reason "reclaim" or "priority" (issue 18). */
void disp_metrics_preemption(struct disp_metrics *m, const char *queue, const char *reason);
/* A gang that preempted is admitted: how long since the preemption was decided. */
void disp_metrics_reclaim_wait(struct disp_metrics *m, double seconds);
void disp_metrics_dispatch_latency(struct disp_metrics *m, double seconds);
void disp_metrics_cycle(struct disp_metrics *m, double seconds);

/* muster_hub_requests_total{verb, code} (code "0" when there was no response) and
 * muster_hub_request_errors_total{verb}, muster_watch_restarts_total{resource}. verb is the
 * Kubernetes verb: get, list, watch, create, update, patch, delete. */
void disp_metrics_hub_request(struct disp_metrics *m, const char *verb, int code);
void disp_metrics_watch_restart(struct disp_metrics *m, const char *resource);

/* Gauges set by the loop: muster_cluster_capacity{cluster, resource},
 * muster_cluster_reserved{cluster, resource} (muster's in-flight reservations), as quantities in
 * milli-units converted to base units when rendered. Setting a series again replaces it;
 * disp_metrics_cluster_forget drops every series of a cluster that left the fleet. */
void disp_metrics_cluster_capacity(struct disp_metrics *m, const char *cluster,
                                   const char *resource, int64_t milli);
void disp_metrics_cluster_reserved(struct disp_metrics *m, const char *cluster,
                                   const char *resource, int64_t milli);
void disp_metrics_cluster_forget(struct disp_metrics *m, const char *cluster);
/* Tenancy (docs/metrics.md): the per-namespace gauges counted again from zero, then one
 * binding added to muster_namespace_gangs (holding) or muster_namespace_pending. At most
 * DISP_METRICS_NS_SERIES_MAX series each; past that the rest go to queue="_other",
 * namespace="_other". */
void disp_metrics_namespaces_reset(struct disp_metrics *m);
void disp_metrics_namespace_add(struct disp_metrics *m, const char *queue, const char *ns,
                                int holding);

/* Leader election (docs/metrics.md): muster_leader_is_leader (gauge) and the elector's
 * muster_leader_{attempts,writes,conflicts,failures,transitions}_total, read from read(ud, out)
 * at every render, after the other families. Without a source (NULL) they are not rendered. */
struct disp_metrics_leader {
    int is_leader;
    uint64_t attempts, writes, conflicts, failures, transitions;
    uint64_t follower_reloads; /* muster_follower_reloads_total */
};
void disp_metrics_leader_source(struct disp_metrics *m,
                                void (*read)(void *ud, struct disp_metrics_leader *out), void *ud);

/* Appends the exposition text of every series to *buf (realloc'd; *len and *cap updated).
 * Returns 0 or MUSTER_ENOMEM. */
int disp_metrics_render(const struct disp_metrics *m, char **buf, size_t *len, size_t *cap);

/* ---- added with the registry (docs/metrics.md) ----
 * Every update above is a no-op on a NULL registry, so a loop built without metrics needs no
 * checks. disp_metrics_admission labels by queue; disp_metrics_hub_request also counts
 * muster_hub_request_errors_total for code 0, 401, 403, 429 and 5xx (404, 409, 410 and 422
 * answer the request and are the protocol's to handle); a code outside 100..599 reads as 0. A
 * NaN observation is ignored. disp_metrics_render writes *buf, *len and *cap back even when it
 * fails (the caller frees *buf either way). */

/* Series one labelled family may hold; updates that would add more are dropped and counted in
 * muster_metrics_dropped_series_total, so label values a bug or a hostile name supplies cannot
 * grow memory or a scrape without bound. 100 clusters x 40 resources fit. */
#define DISP_METRICS_SERIES_MAX 4096
/* Series of each per-namespace family: queues x namespaces can be large on a shared fleet. */
#define DISP_METRICS_NS_SERIES_MAX 1000
/* Longest label value kept (a Kubernetes resource name is at most 317 bytes); longer is dropped
 * and counted like an overflow rather than cut, which could merge two series. */
#define DISP_METRICS_LABEL_MAX 320

/* The upper bounds (seconds) of every histogram's buckets, from 1 ms to 10 min; +Inf is implied.
 * *n gets how many. */
const double *disp_metrics_buckets(size_t *n);

/* The exposition text writer the registry and the admin API's queue gauges share: a growing
 * buffer (muster_realloc) whose first failed allocation sets bad and drops all after it. A
 * zeroed struct is an empty buffer; the owner frees p. */
struct disp_metrics_text {
    char *p;
    size_t len, cap;
    int bad;
};

__attribute__((format(printf, 2, 3))) void disp_metrics_text_printf(struct disp_metrics_text *t,
                                                                    const char *fmt, ...);
/* v escaped as a label value must be: backslash, double quote and newline. */
void disp_metrics_text_label(struct disp_metrics_text *t, const char *v);
/* A sample value from milli-units as an exact decimal in base units (1500 -> 1.5), then '\n'. */
void disp_metrics_text_milli(struct disp_metrics_text *t, int64_t milli);
/* A float sample value as Prometheus reads it: the shortest text that reads back the same
 * double, NaN, +Inf or -Inf. No newline. */
void disp_metrics_text_double(struct disp_metrics_text *t, double v);
/* The # HELP and # TYPE lines of a family. */
void disp_metrics_text_family(struct disp_metrics_text *t, const char *name, const char *type,
                              const char *help);

#endif
