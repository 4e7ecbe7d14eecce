/* The probes: GET /healthz (the process answers) and GET /readyz (the engine agrees with the
 * database and the hub is listed and watched; a full resource-name table is said, not failed). */
#include "dispatcher/api/api_int.h"

#include <inttypes.h>
#include <stdio.h>

void api__handle_healthz(struct api_call *c)
{
    api__send_text(c->req, 200, "text/plain; charset=utf-8", H2O_STRLIT("ok\n"));
}

void api__handle_readyz(struct api_call *c)
{
    if (c->srv->degraded) {
        api__send_text(c->req, 503, "text/plain; charset=utf-8",
                       H2O_STRLIT("not ready: the engine and the database disagree; restart\n"));
        return;
    }
    if (c->srv->app.disp.hub_synced && !c->srv->app.disp.hub_synced(c->srv->app.disp.ud)) {
        api__send_text(c->req, 503, "text/plain; charset=utf-8",
                       H2O_STRLIT("not ready: the hub is not listed and watched yet\n"));
        return;
    }
    /* A full resource-name table refuses every new name (queue specs, cluster capacities,
     * workloads) but what is known keeps working: said here, and in the log and the metrics,
     * yet still 200, since taking the pod out of its Service would also stop the webhook that
     * holds every new binding. */
    const struct queue_resnames *names = queue_tree_resnames(c->srv->app.tree);
    if (queue_resnames_refused(names) || queue_resnames_count(names) >= QUEUE_RESNAMES_MAX) {
        char msg[320];
        int n = snprintf(msg, sizeof(msg),
                         "ok: degraded: the resource name table is full (%u of %d names; %" PRIu64
                         " refused): new resource names are refused, in queue specs and in "
                         "cluster capacities, until a restart forgets the unused ones\n",
                         queue_resnames_count(names), QUEUE_RESNAMES_MAX,
                         queue_resnames_refused(names));
        api__send_text(c->req, 200, "text/plain; charset=utf-8", msg,
                       n > 0 && (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
        return;
    }
    api__send_text(c->req, 200, "text/plain; charset=utf-8", H2O_STRLIT("ok\n"));
}
