/* GET /api/v1/audit: the audit rows every queue change writes with it, oldest first, paged by
 * row id; and the names of the audit actions. */
#include "dispatcher/api/api_int.h"

#include "queue/errors.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The audit actions, in the order of audit_writes. */
const char *const api__audit_actions[API_AUDIT_NACTIONS] = {
    "queue.create", "queue.update", "queue.patch", "queue.delete", "cluster.patch"};

struct audit_page {
    struct json_object *items;
    int64_t last;
    int bad;
};

static int audit_cb(void *ud, int64_t id, const struct store_audit *rec)
{
    struct audit_page *p = ud;
    struct json_object *o = json_object_new_object();
    int bad = !o;
    if (o) {
        api__obj_add(o, "id", json_object_new_int64(id), &bad);
        api__obj_add(o, "atMs", json_object_new_int64(rec->at), &bad);
        api__obj_add(o, "actor", json_object_new_string(rec->actor), &bad);
        api__obj_add(o, "action", json_object_new_string(rec->action), &bad);
        api__obj_add(o, "object", json_object_new_string(rec->object), &bad);
        json_object_object_add(o, "before", api__stored_json(rec->before));
        json_object_object_add(o, "after", api__stored_json(rec->after));
    }
    if (bad || json_object_array_add(p->items, o)) {
        json_object_put(o);
        p->bad = 1;
        return MUSTER_ENOMEM;
    }
    p->last = id;
    return 0;
}

void api__handle_audit_list(struct api_call *c)
{
    struct api_page pg;
    if (api__page_parse(c->req, &pg))
        return;
    size_t limit = pg.limit;
    int64_t after = 0; /* the token is the id of the previous page's last row */
    if (pg.cont) {
        char *end;
        errno = 0;
        long long v = strtoll(pg.cont, &end, 10);
        if (errno || end == pg.cont || *end || v < 0) {
            api__page_refuse(c->req);
            return;
        }
        after = v;
    }
    /* ?queue=Q: the changes of that queue only (its audit object "queues/Q") */
    char queue[QUEUE_NAME_MAX + 1], object[QUEUE_NAME_MAX + 16];
    int qp = api__query_param(c->req, "queue", queue, sizeof(queue));
    if (qp < 0 || (qp == 1 && (!api__url_unescape(queue) ||
                               !queue_name_valid(queue, strlen(queue))))) {
        api__send_fail(c->req, 400, "BadRequest", "queue must be a queue name");
        return;
    }
    if (qp == 1)
        snprintf(object, sizeof(object), "queues/%s", queue);
    struct audit_page p = {json_object_new_array(), 0, 0};
    if (!p.items) {
        api__send_json(c->req, 500, NULL);
        return;
    }
    /* One row more than the page tells whether another page follows. */
    int rc = store_audit_foreach_object(c->srv->app.store, qp == 1 ? object : NULL, after,
                                        limit + 1, audit_cb, &p);
    if (rc) {
        json_object_put(p.items);
        api__send_fail(c->req, 500, "StoreError", "reading the audit log: %s",
                       store_errmsg(c->srv->app.store));
        return;
    }
    char next[24];
    const char *cont_out = NULL;
    if (json_object_array_length(p.items) > limit) {
        json_object_array_del_idx(p.items, limit, 1);
        struct json_object *lastobj = json_object_array_get_idx(p.items, limit - 1);
        struct json_object *idobj = NULL;
        json_object_object_get_ex(lastobj, "id", &idobj);
        snprintf(next, sizeof(next), "%" PRId64, json_object_get_int64(idobj));
        cont_out = next;
    }
    api__send_page(c->req, p.items, cont_out);
}
