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
void disp_metrics_release(struct disp_metrics *m, const char *reason);

/* Histograms, in seconds: muster_admission_wait_seconds (RB seen to admitted),
 * muster_dispatch_latency_seconds (admitted to RB released to its clusters),
 * muster_cycle_duration_seconds. */
void disp_metrics_admission_wait(struct disp_metrics *m, double seconds);
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

/* Appends the exposition text of every series to *buf (realloc'd; *len and *cap updated).
 * Returns 0 or MUSTER_ENOMEM. */
int disp_metrics_render(const struct disp_metrics *m, char **buf, size_t *len, size_t *cap);

#endif
