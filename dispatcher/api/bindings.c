/* GET /api/v1/bindings[/{namespace}/{name}]: the live ledger rows, filtered, in the engine's
 * order within a queue and paged by sort key, with each row's place in line and the reason it
 * waits; and one binding with its history. */
#include "dispatcher/api/api_int.h"

#include "cluster-adapters/kube/resources.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The live states a client may filter on (released and rolledback rows are history only). */
static const char *const binding_states[] = {"pending", "admitted", "dispatched", "running"};

#define NBSTATES (sizeof(binding_states) / sizeof(binding_states[0]))

#define API_WALK_STOP 1 /* a foreach callback's "page full": not an error */

/* Where a live row stands in a list. Listing one queue puts the rows pending in the engine
 * first (section 0) in the engine's order within a leaf (higher priority, then older, then lower
 * id: queue/order.c), then the others (section 1) by ledger id. Without queue= every row is in
 * section 1: ledger id order. The continue token is the key of a page's last row. */
struct bkey {
    int64_t section, prio, created, id;
};

static int bkey_cmp(const void *pa, const void *pb)
{
    const struct bkey *a = pa, *b = pb;
    if (a->section != b->section)
        return a->section < b->section ? -1 : 1;
    if (a->prio != b->prio)
        return a->prio > b->prio ? -1 : 1;
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int bkey_parse(const char *v, struct bkey *k)
{
    int64_t f[4];
    const char *p = v;
    for (int i = 0; i < 4; i++) {
        char *end;
        errno = 0;
        long long n = strtoll(p, &end, 10);
        if (errno || end == p || *end != (i < 3 ? '.' : '\0'))
            return MUSTER_EINVAL;
        f[i] = n;
        p = end + 1;
    }
    if (f[0] < 0 || f[0] > 1 || f[3] < 0)
        return MUSTER_EINVAL;
    *k = (struct bkey){f[0], f[1], f[2], f[3]};
    return 0;
}

/* The engine's entry of a ledger row, or NULL (a row whose queue is gone is held outside it). */
static struct queue_entry *row_entry(struct api_server *s, const struct store_ledger_row *row)
{
    return queue_tree_entry(s->app.tree, (uint64_t)row->id);
}

static int entry_pending(const struct queue_entry *e)
{
    return e && queue_entry_state(e) == QUEUE_ENTRY_PENDING;
}

/* Why row waits or stands where it is, into buf ("" when there is nothing to say). A pending
 * entry gets the engine's own admission check, so the sentence is what the next cycle will
 * meet; the stored reason is what the dispatcher last recorded. */
static void binding_reason(struct api_server *s, const struct store_ledger_row *row,
                           const struct queue_entry *e, char *buf, size_t cap)
{
    if (s->app.disp.binding_reason) {
        const char *r = s->app.disp.binding_reason(s->app.disp.ud, row->id);
        if (r && *r) {
            snprintf(buf, cap, "%s", r);
            return;
        }
    }
    const struct queue_node *q = queue_tree_find(s->app.tree, row->queue);
    if (!q) {
        snprintf(buf, cap, "queue %s does not exist", row->queue);
        return;
    }
    if (entry_pending(e) && strcmp(row->state, "pending") == 0) {
        struct queue_limit why;
        if (queue_tree_can_admit(s->app.tree, queue_entry_queue(e), queue_entry_request(e), &why))
            snprintf(buf, cap, "waiting for the next dispatch cycle");
        else if (queue_limit_explain(s->app.tree, &why, buf, cap) < 0 && !buf[0])
            snprintf(buf, cap, "does not fit its queue");
        return;
    }
    if (strcmp(row->state, "pending") == 0 && !e && queue_node_children(q) > 0) {
        snprintf(buf, cap, "queue %s has child queues: work waits only in leaf queues", row->queue);
        return;
    }
    snprintf(buf, cap, "%s", row->reason ? row->reason : "");
}

/* The request as canonical quantities; the stored text if it does not parse (never after a
 * successful start-up, which validated every live row). */
static struct json_object *request_json(struct api_server *s, const char *text)
{
    struct queue_resvec v = {0};
    char err[128];
    /* A read never keeps a name: whatever parsing interned is forgotten once printed. */
    struct queue_resnames *names = queue_tree_resnames(s->app.tree);
    uint32_t mark = queue_resnames_mark(names);
    struct json_object *o = kube_resvec_parse_text(names, text, "request", &v, err, sizeof(err))
                                ? api__stored_json(text)
                                : kube_resvec_json(names, &v);
    queue_resvec_close(&v);
    queue_resnames_rollback(names, mark);
    return o;
}

/* The row's waiting delta (a scale up, or the rest of a gang admitted at its minimum): how
 * many replicas and what they ask for in all, since when, and why they wait. */
static struct json_object *grow_json(struct api_server *s, const struct store_ledger_row *row,
                                     const char *reason)
{
    struct json_object *rec = json_tokener_parse(row->grow);
    struct json_object *o = json_object_new_object(), *v;
    int bad = !o;
    if (json_object_object_get_ex(rec, "replicas", &v))
        api__obj_add(o, "replicas", json_object_new_int(json_object_get_int(v)), &bad);
    if (json_object_object_get_ex(rec, "request", &v))
        api__obj_add(o, "request",
                     request_json(s, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN)),
                     &bad);
    if (json_object_object_get_ex(rec, "since", &v))
        api__obj_add(o, "sinceMs", json_object_new_int64(json_object_get_int64(v)), &bad);
    const char *why = strcmp(row->state, "admitted") == 0
                          ? "queued once the admitted part is dispatched"
                      : reason && strncmp(reason, "scale up by ", 12) == 0
                          ? reason
                          : "waiting for the next dispatch cycle";
    api__obj_add(o, "reason", json_object_new_string(why), &bad);
    json_object_put(rec);
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* A ledger row as the API shows it. position > 0 is added (a pending entry's place in line);
 * reason is added when not empty. */
static struct json_object *binding_json(struct api_server *s, const struct store_ledger_row *row,
                                        uint64_t position, const char *reason)
{
    struct json_object *o = json_object_new_object();
    int bad = !o;
    if (!o)
        return NULL;
    const char *slash = strchr(row->binding, '/');
    if (slash)
        api__obj_add(o, "namespace",
                     json_object_new_string_len(row->binding, (int)(slash - row->binding)), &bad);
    else
        api__obj_add(o, "namespace", json_object_new_string(""), &bad);
    api__obj_add(o, "name", json_object_new_string(slash ? slash + 1 : row->binding), &bad);
    api__obj_add(o, "uid", json_object_new_string(row->uid ? row->uid : ""), &bad);
    api__obj_add(o, "queue", json_object_new_string(row->queue), &bad);
    api__obj_add(o, "state", json_object_new_string(row->state), &bad);
    api__obj_add(o, "request", request_json(s, row->request), &bad);
    api__obj_add(o, "priority", json_object_new_int64(row->priority), &bad);
    api__obj_add(o, "createdAtMs", json_object_new_int64(row->created_at), &bad);
    if (row->admitted_at)
        api__obj_add(o, "admittedAtMs", json_object_new_int64(row->admitted_at), &bad);
    api__obj_add(o, "updatedAtMs", json_object_new_int64(row->updated_at), &bad);
    api__obj_add(o, "clusters", api__stored_json(row->clusters ? row->clusters : "[]"), &bad);
    if (position)
        api__obj_add(o, "position", json_object_new_int64((int64_t)position), &bad);
    if (reason && reason[0])
        api__obj_add(o, "reason", json_object_new_string(reason), &bad);
    if (row->grow && row->grow[0] && strcmp(row->state, "pending") != 0)
        api__obj_add(o, "grow", grow_json(s, row, reason), &bad);
    if (bad) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

struct bslot {
    int64_t id;
    size_t idx; /* place in the page */
    int section0;
};

struct blist {
    struct api_server *srv;
    const char *queue; /* NULL: every queue, in ledger id order */
    const char *state; /* NULL: every live state */
    const char *name;  /* NULL: every binding; else a substring of "namespace/name" */
    const char *ns;    /* NULL: every namespace; else exactly this one */
    size_t nslen;
    struct bkey after;
    int has_after;
    size_t want; /* rows to collect before stopping early (id order only) */
    struct bkey *keys;
    size_t n, cap;
    /* the second walk: the page's rows by id, and where each goes in the page */
    struct bslot *byid;
    struct json_object **objs;
    size_t npage;
    uint64_t first_pos; /* engine position of the page's first row when it is in section 0 */
};

static int blist_match(const struct blist *l, const struct store_ledger_row *row)
{
    return (!l->queue || strcmp(row->queue, l->queue) == 0) &&
           (!l->state || strcmp(row->state, l->state) == 0) &&
           (!l->name || strstr(row->binding, l->name) != NULL) &&
           (!l->ns ||
            (strncmp(row->binding, l->ns, l->nslen) == 0 && row->binding[l->nslen] == '/'));
}

/* First walk: the keys of the matching rows after the continue key. */
static int blist_keys_cb(void *ud, const struct store_ledger_row *row)
{
    struct blist *l = ud;
    if (!blist_match(l, row))
        return 0;
    struct bkey k = {1, 0, 0, row->id};
    struct queue_entry *e = l->queue ? row_entry(l->srv, row) : NULL;
    if (entry_pending(e) && strcmp(row->state, "pending") == 0)
        k = (struct bkey){0, queue_entry_priority(e), queue_entry_created(e), row->id};
    if (l->has_after && bkey_cmp(&k, &l->after) <= 0)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct bkey *g = muster_realloc(l->keys, cap * sizeof(*g));
        if (!g)
            return MUSTER_ENOMEM;
        l->keys = g;
        l->cap = cap;
    }
    l->keys[l->n++] = k;
    /* Rows come in id order: without queue= the page is the first rows past the token. */
    return !l->queue && l->n == l->want ? API_WALK_STOP : 0;
}

static int bslot_cmp(const void *pa, const void *pb)
{
    const struct bslot *a = pa, *b = pb;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Second walk: the page's rows as JSON, each into its place. */
static int blist_rows_cb(void *ud, const struct store_ledger_row *row)
{
    struct blist *l = ud;
    struct bslot probe = {.id = row->id};
    struct bslot *hit = bsearch(&probe, l->byid, l->npage, sizeof(probe), bslot_cmp);
    if (!hit)
        return 0;
    size_t idx = hit->idx;
    struct queue_entry *e = row_entry(l->srv, row);
    uint64_t pos = 0;
    if (entry_pending(e) && strcmp(row->state, "pending") == 0) {
        if (hit->section0 && l->first_pos > 0)
            /* Section 0 of a queue's list is the engine's own order with no gap (every pending
             * entry has its pending row), and it starts the page: counting on from the first
             * row saves an O(pending in the queue) walk per row. */
            pos = l->first_pos + idx;
        else
            pos = queue_entry_position(l->srv->app.tree, e);
    }
    char reason[512];
    binding_reason(l->srv, row, e, reason, sizeof(reason));
    l->objs[idx] = binding_json(l->srv, row, pos, reason);
    return l->objs[idx] ? 0 : MUSTER_ENOMEM;
}

/* Reads queue=, state=, name= and namespace=: 0, or a 400 already sent. name is a plain
 * substring of "namespace/name" (the dashboard's search box), matched as it is sent; namespace
 * is one namespace, whole. */
static int binding_filters(struct api_call *c, char *queue, size_t qcap, char *state, size_t scap,
                           char *name, size_t ncap, char *ns, size_t nscap, struct blist *l)
{
    int gotns = api__query_param(c->req, "namespace", ns, nscap);
    if (gotns < 0 || (gotns && (!ns[0] || !queue_name_valid(ns, strlen(ns)) || strlen(ns) > 63))) {
        api__send_fail(c->req, 400, "BadRequest",
                       "namespace must be a namespace name (a DNS label of 1 to 63 bytes)");
        return MUSTER_EINVAL;
    }
    l->ns = gotns ? ns : NULL;
    l->nslen = gotns ? strlen(ns) : 0;
    int gotn = api__query_param(c->req, "name", name, ncap);
    if (gotn < 0 || (gotn && !api__url_unescape(name))) {
        api__send_fail(c->req, 400, "BadRequest", "name must be at most %zu bytes, URL-encoded",
                       ncap - 1);
        return MUSTER_EINVAL;
    }
    l->name = gotn && name[0] ? name : NULL;
    int got = api__query_param(c->req, "queue", queue, qcap);
    if (got < 0 || (got && (!queue[0] || strlen(queue) > QUEUE_NAME_MAX))) {
        api__send_fail(c->req, 400, "BadRequest", "queue must be a queue name of 1 to %d bytes",
                       QUEUE_NAME_MAX);
        return MUSTER_EINVAL;
    }
    l->queue = got ? queue : NULL;
    got = api__query_param(c->req, "state", state, scap);
    if (got) {
        size_t i = 0;
        while (got > 0 && i < NBSTATES && strcmp(state, binding_states[i]) != 0)
            i++;
        if (got < 0 || i == NBSTATES) {
            api__send_fail(c->req, 400, "BadRequest",
                           "state %.32s%s is not a live binding state; use pending, admitted, "
                           "dispatched or running (finished attempts are in a binding's history)",
                           got < 0 ? "" : state, got < 0 ? "(too long)" : "");
            return MUSTER_EINVAL;
        }
        l->state = binding_states[i];
    }
    return 0;
}

static void blist_close(struct blist *l)
{
    if (l->objs)
        for (size_t i = 0; i < l->npage; i++)
            json_object_put(l->objs[i]);
    muster_free(l->objs);
    muster_free(l->byid);
    muster_free(l->keys);
}

/* GET /api/v1/bindings: two walks of the live ledger (no row is copied): the first collects the
 * sort keys of the matching rows, the second renders the page's rows. */
void api__handle_binding_list(struct api_call *c)
{
    struct blist l = {.srv = c->srv};
    char queue[API_QUERY_VALUE_MAX], state[API_QUERY_VALUE_MAX], name[API_QUERY_VALUE_MAX],
        ns[API_QUERY_VALUE_MAX];
    struct api_page pg;
    if (api__page_parse(c->req, &pg))
        return;
    size_t limit = pg.limit;
    if (binding_filters(c, queue, sizeof(queue), state, sizeof(state), name, sizeof(name), ns,
                        sizeof(ns), &l))
        return;
    if (pg.cont && bkey_parse(pg.cont, &l.after)) {
        api__page_refuse(c->req);
        return;
    }
    l.has_after = pg.cont != NULL;
    l.want = limit + 1; /* one row more than the page tells whether another page follows */
    struct store *st = c->srv->app.store;
    int rc = store_ledger_foreach_live(st, blist_keys_cb, &l);
    if (rc && rc != API_WALK_STOP)
        goto fail;
    if (l.queue && l.n)
        qsort(l.keys, l.n, sizeof(*l.keys), bkey_cmp);
    l.npage = l.n > limit ? limit : l.n;
    rc = MUSTER_ENOMEM;
    l.byid = muster_calloc(l.npage ? l.npage : 1, sizeof(*l.byid));
    l.objs = muster_calloc(l.npage ? l.npage : 1, sizeof(*l.objs));
    if (!l.byid || !l.objs)
        goto fail;
    for (size_t i = 0; i < l.npage; i++)
        l.byid[i] = (struct bslot){l.keys[i].id, i, l.keys[i].section == 0};
    qsort(l.byid, l.npage, sizeof(*l.byid), bslot_cmp);
    if (l.npage && l.keys[0].section == 0)
        l.first_pos = queue_entry_position(
            c->srv->app.tree, queue_tree_entry(c->srv->app.tree, (uint64_t)l.keys[0].id));
    rc = l.npage ? store_ledger_foreach_live(st, blist_rows_cb, &l) : 0;
    if (rc)
        goto fail;
    struct json_object *items = json_object_new_array_ext((int)l.npage);
    if (!items) {
        rc = MUSTER_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < l.npage; i++) {
        /* A row cannot vanish between the walks (both run in this call), so every slot is
         * filled; skip rather than send null if that ever changes. */
        if (l.objs[i] && !json_object_array_add(items, l.objs[i]))
            l.objs[i] = NULL;
    }
    char next[96];
    const char *cont_out = NULL;
    if (l.n > limit) {
        const struct bkey *k = &l.keys[limit - 1];
        snprintf(next, sizeof(next), "%" PRId64 ".%" PRId64 ".%" PRId64 ".%" PRId64, k->section,
                 k->prio, k->created, k->id);
        cont_out = next;
    }
    blist_close(&l);
    api__send_page(c->req, items, cont_out);
    return;
fail:
    blist_close(&l);
    if (rc == MUSTER_ENOMEM)
        api__send_json(c->req, 500, NULL);
    else
        api__send_fail(c->req, 500, "StoreError", "reading the ledger: %s", store_errmsg(st));
}

struct bone {
    struct api_server *srv;
    struct json_object *history;
    struct json_object *top; /* the live row, else the newest finished one */
    int top_live;
    int bad;
};

static int history_cb(void *ud, const struct store_ledger_row *row)
{
    struct bone *b = ud;
    int live = 0;
    for (size_t i = 0; i < NBSTATES; i++)
        live |= strcmp(row->state, binding_states[i]) == 0;
    struct json_object *h = json_object_new_object();
    int bad = !h;
    if (h) {
        api__obj_add(h, "id", json_object_new_int64(row->id), &bad);
        api__obj_add(h, "state", json_object_new_string(row->state), &bad);
        api__obj_add(h, "queue", json_object_new_string(row->queue), &bad);
        if (row->reason && row->reason[0])
            api__obj_add(h, "reason", json_object_new_string(row->reason), &bad);
        api__obj_add(h, "createdAtMs", json_object_new_int64(row->created_at), &bad);
        if (row->admitted_at)
            api__obj_add(h, "admittedAtMs", json_object_new_int64(row->admitted_at), &bad);
        api__obj_add(h, "updatedAtMs", json_object_new_int64(row->updated_at), &bad);
        api__obj_add(h, "clusters", api__stored_json(row->clusters ? row->clusters : "[]"), &bad);
        if (row->loss)
            api__obj_add(h, "loss", api__stored_json(row->loss), &bad);
    }
    if (bad || json_object_array_add(b->history, h)) {
        json_object_put(h);
        return MUSTER_ENOMEM;
    }
    /* Rows come oldest first: a later finished row replaces an earlier one, never a live one. */
    if (b->top_live)
        return 0;
    uint64_t pos = 0;
    char reason[512] = "";
    if (live) {
        struct queue_entry *e = row_entry(b->srv, row);
        if (entry_pending(e) && strcmp(row->state, "pending") == 0)
            pos = queue_entry_position(b->srv->app.tree, e);
        binding_reason(b->srv, row, e, reason, sizeof(reason));
    } else {
        snprintf(reason, sizeof(reason), "%s", row->reason ? row->reason : "");
    }
    struct json_object *top = binding_json(b->srv, row, pos, reason);
    if (!top)
        return MUSTER_ENOMEM;
    json_object_put(b->top);
    b->top = top;
    b->top_live = live;
    return 0;
}

/* GET /api/v1/bindings/{namespace}/{name}: c->name holds "namespace/name". */
void api__handle_binding_get(struct api_call *c)
{
    struct bone b = {.srv = c->srv, .history = json_object_new_array()};
    if (!b.history) {
        api__send_json(c->req, 500, NULL);
        return;
    }
    int rc = store_ledger_foreach_binding(c->srv->app.store, c->name, history_cb, &b);
    if (rc || !b.top) {
        json_object_put(b.history);
        json_object_put(b.top);
        if (rc == MUSTER_ENOMEM)
            api__send_json(c->req, 500, NULL);
        else if (rc)
            api__send_fail(c->req, 500, "StoreError", "reading the ledger: %s",
                           store_errmsg(c->srv->app.store));
        else
            api__send_fail(c->req, 404, "NotFound",
                           "binding %s not found: muster has no record of it", c->name);
        return;
    }
    if (json_object_object_add(b.top, "history", b.history)) {
        json_object_put(b.history);
        json_object_put(b.top);
        api__send_json(c->req, 500, NULL);
        return;
    }
    api__send_json(c->req, 200, b.top);
}
