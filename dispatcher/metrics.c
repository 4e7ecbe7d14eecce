/* The dispatcher's metrics (see metrics.h). Placeholder bodies so the dispatch loop can count
 * while the registry is written (issue 5). */
#include "dispatcher/metrics.h"

#include "queue/mem.h"

struct disp_metrics {
    int unused;
};

struct disp_metrics *disp_metrics_new(void)
{
    return muster_calloc(1, sizeof(struct disp_metrics));
}

void disp_metrics_free(struct disp_metrics *m)
{
    muster_free(m);
}

void disp_metrics_admission(struct disp_metrics *m, const char *queue) { (void)m, (void)queue; }
void disp_metrics_rollback(struct disp_metrics *m, const char *reason) { (void)m, (void)reason; }
void disp_metrics_requeue(struct disp_metrics *m) { (void)m; }
void disp_metrics_release(struct disp_metrics *m, const char *reason) { (void)m, (void)reason; }
void disp_metrics_admission_wait(struct disp_metrics *m, double s) { (void)m, (void)s; }
void disp_metrics_dispatch_latency(struct disp_metrics *m, double s) { (void)m, (void)s; }
void disp_metrics_cycle(struct disp_metrics *m, double s) { (void)m, (void)s; }
void disp_metrics_hub_request(struct disp_metrics *m, const char *verb, int code)
{
    (void)m, (void)verb, (void)code;
}
void disp_metrics_watch_restart(struct disp_metrics *m, const char *r) { (void)m, (void)r; }
void disp_metrics_cluster_capacity(struct disp_metrics *m, const char *c, const char *r,
                                   int64_t v)
{
    (void)m, (void)c, (void)r, (void)v;
}
void disp_metrics_cluster_reserved(struct disp_metrics *m, const char *c, const char *r,
                                   int64_t v)
{
    (void)m, (void)c, (void)r, (void)v;
}
void disp_metrics_cluster_forget(struct disp_metrics *m, const char *c) { (void)m, (void)c; }
int disp_metrics_render(const struct disp_metrics *m, char **buf, size_t *len, size_t *cap)
{
    (void)m, (void)buf, (void)len, (void)cap;
    return 0;
}
