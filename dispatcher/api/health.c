/* The probes: GET /healthz (the process answers) and GET /readyz (the engine agrees with the
 * database and the hub is listed and watched; a missing hub prerequisite or a full
 * resource-name table is said, not failed). */
#include "dispatcher/api/api_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
    /* Something missing or full keeps /readyz at 200, said line by line: the RB webhook
     * (failurePolicy Fail) must keep answering, and what does not need the missing piece
     * (known resource names, members that have the PodGroup CRD, Volcano Jobs) still works.
     * The log and the metrics carry the alarm too. */
    const char *missing =
        c->srv->app.disp.degraded ? c->srv->app.disp.degraded(c->srv->app.disp.ud) : NULL;
    const struct queue_resnames *names = queue_tree_resnames(c->srv->app.tree);
    int full = queue_resnames_refused(names) || queue_resnames_count(names) >= QUEUE_RESNAMES_MAX;
    if ((missing && *missing) || full) {
        char msg[320] = "";
        if (full)
            snprintf(msg, sizeof(msg),
                     "the resource name table is full (%u of %d names; %" PRIu64
                     " refused): new resource names are refused, in queue specs and in "
                     "cluster capacities, until a restart forgets the unused ones\n",
                     queue_resnames_count(names), QUEUE_RESNAMES_MAX,
                     queue_resnames_refused(names));
        h2o_iovec_t body =
            h2o_concat(&c->req->pool, h2o_iovec_init(H2O_STRLIT("ok, degraded:\n")),
                       h2o_iovec_init(missing ? missing : "", missing ? strlen(missing) : 0),
                       h2o_iovec_init(msg, strlen(msg)));
        api__send_text(c->req, 200, "text/plain; charset=utf-8", body.base, body.len);
        return;
    }
    api__send_text(c->req, 200, "text/plain; charset=utf-8", H2O_STRLIT("ok\n"));
}
