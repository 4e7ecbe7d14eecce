/* Tenancy (issue 21, docs/queue.md "Tenancy"): which namespaces may submit to which queue, a
 * namespace's default queue, and YuniKorn's dotted queue paths. A queue's namespaceSelector is
 * kept by the store (the engine has no use for it); a child without one inherits its nearest
 * ancestor's. The hub's namespaces are watched for their labels and the default-queue
 * annotation only. A refused binding is parked with its ledger row (its place in line kept),
 * and is judged again when its namespace's labels or any queue change. What is admitted stays:
 * a selector narrowed later does not evict running work. */
#include "dispatcher/controller/ctl_int.h"

#include "cluster-adapters/kube/selector.h"

/* ---- the queues' selectors, from the store ---- */

/* The LocalQueues q takes, into c->ten.lq (sorted after the walk). */
static int lq_add(struct ctl *c, const struct store_queue *q)
{
    json_object *l = json_tokener_parse(q->local_queues);
    size_t n = json_object_is_type(l, json_type_array) ? json_object_array_length(l) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *k = json_object_get_string(json_object_array_get_idx(l, i));
        if (!k)
            continue;
        if (c->ten.nlq == c->ten.caplq) {
            size_t cap = c->ten.caplq ? c->ten.caplq * 2 : 16;
            struct ctl_local_queue *nv = muster_realloc(c->ten.lq, cap * sizeof(*nv));
            if (!nv) {
                json_object_put(l);
                return MUSTER_ENOMEM;
            }
            c->ten.lq = nv;
            c->ten.caplq = cap;
        }
        struct ctl_local_queue *e = &c->ten.lq[c->ten.nlq++];
        snprintf(e->key, sizeof e->key, "%s", k);
        snprintf(e->queue, sizeof e->queue, "%s", q->name);
    }
    json_object_put(l);
    return 0;
}

static int lq_order(const void *a, const void *b)
{
    return strcmp(((const struct ctl_local_queue *)a)->key,
                  ((const struct ctl_local_queue *)b)->key);
}

static const char *const tenant_word[CTL_NTENANTS] = {"namespace", "owner"};
static const char *const limits_field[CTL_NTENANTS] = {"namespaceLimits", "ownerLimits"};

/* A queue's namespaceLimits or ownerLimits text into l; 0, or a sentence in why for a row the
 * API would not have taken (one written by hand). */
static int limits_read(struct ctl *c, const char *text, enum ctl_tenant who, struct ctl_limit *l,
                       char *why, size_t cap)
{
    json_object *o = json_tokener_parse(text);
    json_object *g = kube_json_get(o, "gangs");
    json_object *r = kube_json_get(o, "resources");
    int rc = 0;
    if (!json_object_is_type(o, json_type_object) ||
        (g && (!json_object_is_type(g, json_type_int) || json_object_get_int64(g) < 1))) {
        snprintf(why, cap, "not {gangs, resources}");
        rc = MUSTER_EINVAL;
    } else if (r) {
        /* a listed 0 is a limit (none of it), as in a capability */
        char what[48];
        snprintf(what, sizeof what, "%s.resources", limits_field[who]);
        rc = kube_resvec_parse_limits(c->names, r, what, &l->max_res, why, cap);
    }
    if (!rc) {
        l->on = 1;
        l->max_gangs = g ? json_object_get_int64(g) : 0;
    } else {
        queue_resvec_close(&l->max_res);
    }
    json_object_put(o);
    return rc;
}

static int ten_cb(void *ud, const struct store_queue *q)
{
    struct ctl *c = ud;
    if (q->local_queues && lq_add(c, q))
        return MUSTER_ENOMEM;
    if (!q->namespace_selector && !q->namespace_limits && !q->owner_limits)
        return 0;
    if (c->ten.n == c->ten.cap) {
        size_t cap = c->ten.cap ? c->ten.cap * 2 : 16;
        struct ctl_ten_queue *n = muster_realloc(c->ten.v, cap * sizeof(*n));
        if (!n)
            return MUSTER_ENOMEM;
        c->ten.v = n;
        c->ten.cap = cap;
    }
    struct ctl_ten_queue *t = &c->ten.v[c->ten.n];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", q->name);
    char why[256];
    if (q->namespace_selector) {
        t->sel = json_tokener_parse(q->namespace_selector);
        if (!t->sel || kube_selector_check(t->sel, "namespaceSelector", why, sizeof why)) {
            /* the API checked it before the store took it: a row written by hand */
            ctl__logf(c, "queue %s: namespaceSelector ignored: %s", q->name,
                      t->sel ? why : "not JSON");
            json_object_put(t->sel);
            t->sel = NULL;
        }
    }
    const char *texts[CTL_NTENANTS] = {q->namespace_limits, q->owner_limits};
    int limited = 0;
    for (int k = 0; k < CTL_NTENANTS; k++) {
        if (texts[k] && limits_read(c, texts[k], (enum ctl_tenant)k, &t->lim[k], why, sizeof why))
            ctl__logf(c, "queue %s: %s ignored: %s", q->name, limits_field[k], why);
        limited |= t->lim[k].on;
    }
    if (!t->sel && !limited)
        return 0;
    c->ten.nlimited += limited;
    c->ten.n++;
    return 0;
}

static void ten_clear(struct ctl *c)
{
    for (size_t i = 0; i < c->ten.n; i++) {
        json_object_put(c->ten.v[i].sel);
        for (int k = 0; k < CTL_NTENANTS; k++)
            queue_resvec_close(&c->ten.v[i].lim[k].max_res);
    }
    c->ten.n = 0;
    c->ten.nlq = 0;
    c->ten.nlimited = 0;
}

void ctl__tenancy_refresh(struct ctl *c)
{
    ten_clear(c);
    /* store_queue_foreach walks the rows by name, so the table is sorted for the search */
    if (store_queue_foreach(c->s, ten_cb, c))
        ctl__logf(c, "reading the queues' namespace selectors: %s", store_errmsg(c->s));
    if (c->ten.nlq) /* qsort of a NULL array is undefined even for 0 elements */
        qsort(c->ten.lq, c->ten.nlq, sizeof(*c->ten.lq), lq_order);
}

void ctl__tenancy_close(struct ctl *c)
{
    ten_clear(c);
    for (size_t i = 0; i < c->ten.capuse; i++)
        queue_resvec_close(&c->ten.use[i].use);
    muster_free(c->ten.use);
    muster_free(c->ten.v);
    muster_free(c->ten.lq);
    c->ten.v = NULL;
    c->ten.lq = NULL;
    c->ten.cap = c->ten.caplq = 0;
}

struct ten_probe {
    const struct ctl_ten_queue *v;
    const char *key;
};

static int ten_cmp(const void *ctx, size_t i)
{
    const struct ten_probe *p = ctx;
    return strcmp(p->v[i].name, p->key);
}

static const struct ctl_ten_queue *ten_find(const struct ctl *c, const char *queue)
{
    struct ten_probe p = {c->ten.v, queue};
    size_t i = queue_search_lower(0, c->ten.n, ten_cmp, &p);
    return i < c->ten.n && strcmp(c->ten.v[i].name, queue) == 0 ? &c->ten.v[i] : NULL;
}

static json_object *own_selector(const struct ctl *c, const char *queue)
{
    const struct ctl_ten_queue *t = ten_find(c, queue);
    return t ? t->sel : NULL;
}

json_object *ctl__tenancy_selector(const struct ctl *c, const char *queue, const char **from)
{
    const struct queue_node *q = queue_tree_find(c->t, queue);
    for (; q; q = queue_node_parent(q)) {
        json_object *sel = own_selector(c, queue_node_name(q));
        if (sel) {
            if (from)
                *from = queue_node_name(q);
            return sel;
        }
    }
    return NULL;
}

struct lq_probe {
    const struct ctl_local_queue *v;
    const char *key;
};

static int lq_cmp(const void *ctx, size_t i)
{
    const struct lq_probe *p = ctx;
    return strcmp(p->v[i].key, p->key);
}

const char *ctl__tenancy_local_queue(const struct ctl *c, const char *ns, const char *name)
{
    char key[2 * QUEUE_NAME_MAX + 2];
    snprintf(key, sizeof key, "%s/%s", ns, name);
    struct lq_probe p = {c->ten.lq, key};
    size_t i = queue_search_lower(0, c->ten.nlq, lq_cmp, &p);
    return i < c->ten.nlq && strcmp(c->ten.lq[i].key, key) == 0 ? c->ten.lq[i].queue : NULL;
}

/* ---- which queue ---- */

int ctl__queue_resolve(const struct ctl *c, const struct karmada_workload *w, const char *ns,
                       char *out, size_t cap, char *why, size_t whycap)
{
    snprintf(out, cap, "%s", w->queue);
    if (!w->queue_explicit) {
        /* the namespace's own default replaces the global one */
        const char *dq = ctl__tenancy_default_queue(c, ns);
        if (dq && !queue_name_valid(dq, strlen(dq))) {
            snprintf(why, whycap,
                     "namespace %s: annotation " CTL_DEFAULT_QUEUE_ANNOTATION
                     " \"%.63s\" is not a valid queue name",
                     ns, dq);
            return MUSTER_EINVAL;
        }
        if (dq)
            snprintf(out, cap, "%s", dq);
    } else if (strstr(w->queue_source, KARMADA_WORKLOAD_KUEUE_QUEUE_KEY)) {
        /* the LocalQueue ns/name: the queue that takes it, else (as before LocalQueues were
         * mapped) the queue of that name */
        const char *to = ctl__tenancy_local_queue(c, ns, w->queue);
        if (to) {
            snprintf(out, cap, "%s", to);
        } else if (!queue_tree_find(c->t, w->queue)) {
            snprintf(why, whycap,
                     "Kueue LocalQueue %s/%s: no queue takes it (localQueues) and no queue is "
                     "named %s",
                     ns, w->queue, w->queue);
            return MUSTER_EINVAL;
        }
    } else if (strstr(w->queue_source, KARMADA_WORKLOAD_YUNIKORN_QUEUE_KEY)) {
        return ctl__tenancy_path(c, w->queue, out, cap, why, whycap);
    }
    return 0;
}

int ctl__tenancy_refuses(struct ctl *c, json_object *rb, char *why, size_t cap)
{
    if (!ctl__leads(c) || !c->reconciled || c->stopping || (!c->ten.n && !c->ten.nlq))
        return 0;
    const char *ns = kube_json_path_str(rb, "metadata", "namespace", NULL);
    json_object *tmpl = ns ? ctl__template_of(c, rb) : NULL;
    if (ns && !tmpl)
        return -1; /* Karmada made the RB as it saw the template; our watch may not have yet */
    if (!tmpl || ctl__workload_read(c, rb, tmpl))
        return 0;
    char queue[QUEUE_NAME_MAX + 1], unused[KARMADA_WORKLOAD_MSG_MAX];
    if (ctl__queue_resolve(c, &c->w, ns, queue, sizeof queue, unused, sizeof unused) ||
        !queue_tree_find(c->t, queue))
        return 0;
    return !ctl__tenancy_admits(c, queue, ns, why, cap);
}

/* ---- the hub's namespaces ---- */

json_object *ctl__namespace_prune(json_object *ns)
{
    /* What tenancy reads: the name, the labels and one annotation. A cluster's thousands of
     * namespaces then cost little each. */
    json_object *md = kube_json_get(ns, "metadata");
    json_object *out = json_object_new_object(), *m = NULL;
    int bad = !out;
    m = kube_json_add_obj(out, "metadata", &bad);
    static const char *const keep[] = {"name", "resourceVersion", "uid"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        const char *v = kube_json_str(md, keep[i]);
        if (v)
            kube_json_add_str(m, keep[i], v, &bad);
    }
    json_object *labels = kube_json_obj(md, "labels");
    if (labels)
        kube_json_add(m, "labels", json_object_get(labels), &bad);
    const char *dq = kube_json_str(kube_json_obj(md, "annotations"), CTL_DEFAULT_QUEUE_ANNOTATION);
    if (dq) {
        json_object *a = kube_json_add_obj(m, "annotations", &bad);
        kube_json_add_str(a, CTL_DEFAULT_QUEUE_ANNOTATION, dq, &bad);
    }
    if (bad) {
        json_object_put(out);
        return json_object_get(ns); /* kept whole rather than lost */
    }
    return out;
}

const char *ctl__tenancy_default_queue(const struct ctl *c, const char *ns)
{
    json_object *o = kube_informer_get(&c->namespaces, NULL, ns);
    const char *q =
        kube_json_path_str(o, "metadata", "annotations", CTL_DEFAULT_QUEUE_ANNOTATION, NULL);
    return q && q[0] ? q : NULL;
}

int ctl__tenancy_admits(const struct ctl *c, const char *queue, const char *ns, char *why,
                        size_t cap)
{
    const char *from = NULL;
    json_object *sel = ctl__tenancy_selector(c, queue, &from);
    if (!sel)
        return 1;
    json_object *o = kube_informer_get(&c->namespaces, NULL, ns);
    char term[256];
    if (!o) {
        snprintf(why, cap,
                 "queue %s admits namespaces by a namespaceSelector%s%s, and namespace %s has "
                 "not been seen on the hub",
                 queue, strcmp(from, queue) != 0 ? " inherited from " : "",
                 strcmp(from, queue) != 0 ? from : "", ns);
        return 0;
    }
    if (kube_selector_matches(sel, kube_json_path(o, "metadata", "labels", NULL), term,
                              sizeof term))
        return 1;
    if (strcmp(from, queue) == 0)
        snprintf(why, cap,
                 "namespace %s may not submit to queue %s: its namespaceSelector does not match "
                 "(%s)",
                 ns, queue, term);
    else
        snprintf(why, cap,
                 "namespace %s may not submit to queue %s: the namespaceSelector it inherits "
                 "from queue %s does not match (%s)",
                 ns, queue, from, term);
    return 0;
}

/* ---- YuniKorn's queue paths ---- */

int ctl__tenancy_path(const struct ctl *c, const char *path, char *leaf, size_t cap, char *why,
                      size_t whycap)
{
    /* A queue named with the dots itself is that queue (muster's names may hold dots). */
    if (queue_tree_find(c->t, path) || !strchr(path, '.')) {
        snprintf(leaf, cap, "%s", path);
        return 0;
    }
    /* root.a.b names b, whose parent is a, whose parent is root: the segments are read right
     * to left beside the queue's ancestors. */
    const char *dot = strrchr(path, '.');
    snprintf(leaf, cap, "%s", dot + 1);
    const struct queue_node *q = queue_tree_find(c->t, leaf);
    if (!q)
        return 0; /* it waits for its queue like a binding naming any unknown queue */
    const struct queue_node *child = q, *p = queue_node_parent(q);
    for (size_t end = (size_t)(dot - path);; child = p, p = queue_node_parent(p)) {
        size_t start = end;
        while (start > 0 && path[start - 1] != '.')
            start--;
        size_t wl = end - start;
        if (!p || strlen(queue_node_name(p)) != wl ||
            strncmp(queue_node_name(p), path + start, wl) != 0) {
            snprintf(why, whycap, "YuniKorn queue path %s: queue %s is under %s, not %.*s", path,
                     queue_node_name(child), p ? queue_node_name(p) : "nothing", (int)wl,
                     path + start);
            return MUSTER_EINVAL;
        }
        if (start == 0)
            return 0;
        end = start - 1;
    }
}

/* ---- namespaceLimits ---- */

struct use_probe {
    const struct ctl_ns_use *v;
    const char *key;
};

static int use_cmp(const void *ctx, size_t i)
{
    const struct use_probe *p = ctx;
    return strcmp(p->v[i].key, p->key);
}

/* The usage of key, made (zero) when absent and make is set; NULL when absent (or no memory). */
static struct ctl_ns_use *use_at(struct ctl *c, const char *key, int make)
{
    struct use_probe p = {c->ten.use, key};
    size_t i = queue_search_lower(0, c->ten.nuse, use_cmp, &p);
    if (i < c->ten.nuse && strcmp(c->ten.use[i].key, key) == 0)
        return &c->ten.use[i];
    if (!make)
        return NULL;
    if (c->ten.nuse == c->ten.capuse) {
        size_t cap = c->ten.capuse ? c->ten.capuse * 2 : 16;
        struct ctl_ns_use *n = muster_realloc(c->ten.use, cap * sizeof(*n));
        if (!n)
            return NULL;
        memset(n + c->ten.capuse, 0, (cap - c->ten.capuse) * sizeof(*n));
        c->ten.use = n;
        c->ten.capuse = cap;
    }
    /* the slot past the end keeps its vector's buffer: moved into place, not lost */
    struct ctl_ns_use spare = c->ten.use[c->ten.nuse];
    memmove(&c->ten.use[i + 1], &c->ten.use[i], (c->ten.nuse - i) * sizeof(*c->ten.use));
    c->ten.use[i] = spare;
    c->ten.nuse++;
    struct ctl_ns_use *u = &c->ten.use[i];
    snprintf(u->key, sizeof u->key, "%s", key);
    u->gangs = 0;
    queue_resvec_clear(&u->use);
    return u;
}

typedef int (*limit_fn)(struct ctl *c, const struct binding *b, const struct ctl_ten_queue *t,
                        enum ctl_tenant who, const char *tenant, const char *key, void *ud);

/* Calls fn for each limit over b (its namespace's, and its owner's when it has one) in each
 * limited queue over b's queue, itself included, with the usage key; stops at a non-zero. */
static void each_limit(struct ctl *c, const struct binding *b, limit_fn fn, void *ud)
{
    char ns[QUEUE_NAME_MAX + 1];
    const char *nm;
    ctl__split_key(b->key, ns, sizeof ns, &nm);
    const char *tenant[CTL_NTENANTS] = {ns, b->owner};
    for (const struct queue_node *q = queue_tree_find(c->t, b->queue); q;
         q = queue_node_parent(q)) {
        const struct ctl_ten_queue *t = ten_find(c, queue_node_name(q));
        for (int k = 0; t && k < CTL_NTENANTS; k++) {
            if (!t->lim[k].on || !tenant[k])
                continue;
            char key[sizeof c->ten.use[0].key];
            /* '@' is in no namespace name, so an owner never meets a namespace's count */
            snprintf(key, sizeof key, "%s/%s%s", t->name, k == CTL_TENANT_OWNER ? "@" : "",
                     tenant[k]);
            if (fn(c, b, t, (enum ctl_tenant)k, tenant[k], key, ud))
                return;
        }
    }
}

static int count_in(struct ctl *c, const struct binding *b, const struct ctl_ten_queue *t,
                    enum ctl_tenant who, const char *tenant, const char *key, void *ud)
{
    (void)t;
    (void)who;
    (void)tenant;
    (void)ud;
    struct ctl_ns_use *u = use_at(c, key, 1);
    if (u) {
        u->gangs++;
        if (queue_resvec_add(&u->use, &b->gang) == 0)
            return 0;
    }
    ctl__logf(c, "tenant limits: cannot count %s (out of memory or overflow)", b->key);
    return 0;
}

static int holds_capacity(enum bstate st)
{
    return st == B_ADMITTED || st == B_DISPATCHED || st == B_RUNNING;
}

void ctl__tenancy_usage(struct ctl *c)
{
    c->ten.nuse = 0;
    if (!c->ten.nlimited)
        return;
    for (size_t i = 0; i < c->nbuckets; i++)
        for (const struct binding *b = c->bykey[i]; b; b = b->hnext)
            if (holds_capacity(b->st))
                each_limit(c, b, count_in, NULL);
}

void ctl__tenancy_admitted(struct ctl *c, const struct binding *b)
{
    if (c->ten.nlimited)
        each_limit(c, b, count_in, NULL);
}

struct limit_verdict {
    char *why;
    size_t cap;
    int over;
};

static int judge_limit(struct ctl *c, const struct binding *b, const struct ctl_ten_queue *t,
                       enum ctl_tenant who, const char *tenant, const char *key, void *ud)
{
    struct limit_verdict *v = ud;
    const struct ctl_limit *l = &t->lim[who];
    const struct ctl_ns_use *u = use_at(c, key, 0);
    int64_t gangs = u ? u->gangs : 0;
    if (l->max_gangs && gangs + 1 > l->max_gangs) {
        snprintf(v->why, v->cap,
                 "%s %s holds %" PRId64 " gang(s) in queue %s, the most %s %s may (%s.gangs "
                 "%" PRId64 ")",
                 tenant_word[who], tenant, gangs, t->name, who == CTL_TENANT_OWNER ? "an" : "a",
                 tenant_word[who], limits_field[who], l->max_gangs);
        v->over = 1;
        return 1;
    }
    struct queue_resvec sum = {0};
    uint32_t first = 0;
    int fits =
        (!u || queue_resvec_copy(&sum, &u->use) == 0) && queue_resvec_add(&sum, &b->gang) == 0;
    /* an absent resource of max_res is no limit: only the listed ones are compared */
    for (uint32_t i = 0; fits && i < l->max_res.len; i++) {
        first = l->max_res.items[i].id;
        fits = queue_resvec_get(&sum, first) <= l->max_res.items[i].milli;
    }
    if (!fits) {
        char have[32], lim[32];
        queue_qty_format_auto(queue_resvec_get(&sum, first), have, sizeof have);
        queue_qty_format_auto(queue_resvec_get(&l->max_res, first), lim, sizeof lim);
        const char *rn = queue_resnames_name(c->names, first);
        snprintf(v->why, v->cap,
                 "%s %s would hold %s %s in queue %s, more than the %s %s %s may "
                 "(%s.resources)",
                 tenant_word[who], tenant, have, rn ? rn : "?", t->name, lim,
                 who == CTL_TENANT_OWNER ? "an" : "a", tenant_word[who], limits_field[who]);
        v->over = 1;
    }
    queue_resvec_close(&sum);
    return v->over;
}

int ctl__tenancy_within_limits(struct ctl *c, const struct binding *b, char *why, size_t cap)
{
    if (!c->ten.nlimited)
        return 1;
    struct limit_verdict v = {why, cap, 0};
    each_limit(c, b, judge_limit, &v);
    return !v.over;
}

void ctl__tenancy_metrics(struct ctl *c, int64_t now)
{
    if (!c->opt.metrics || now < c->ten.metrics_at)
        return;
    c->ten.metrics_at = now + CTL_NS_METRICS_MS;
    disp_metrics_namespaces_reset(c->opt.metrics);
    for (size_t i = 0; i < c->nbuckets; i++)
        for (const struct binding *b = c->bykey[i]; b; b = b->hnext) {
            int holding = holds_capacity(b->st);
            if (!b->queue[0] ||
                (!holding && b->st != B_PENDING && b->st != B_BACKOFF && b->st != B_PARKED))
                continue;
            char ns[QUEUE_NAME_MAX + 1];
            const char *nm;
            ctl__split_key(b->key, ns, sizeof ns, &nm);
            disp_metrics_namespace_add(c->opt.metrics, b->queue, ns, holding);
        }
}

/* ---- judging again ---- */

void ctl__tenancy_rejudge(struct ctl *c, const char *ns)
{
    if (!ctl__leads(c) || !c->reconciled || c->stopping)
        return;
    int selectors = c->ten.n > 0; /* without any, no pending binding can be refused */
    /* Each waiting binding is visited once: one parked again goes to the tail. */
    struct binding *last = c->waiting.prev;
    for (struct binding *b = c->waiting.next, *nx; b != &c->waiting; b = nx) {
        nx = b->next;
        int end = b == last;
        char bns[256];
        const char *name;
        ctl__split_key(b->key, bns, sizeof bns, &name);
        if (!ns || strcmp(ns, bns) == 0) {
            if (b->st == B_PARKED) {
                ctl__binding_react(c, b, 0);
            } else if (selectors && b->st == B_PENDING && b->ledger_id && !b->lw_pending &&
                       !b->inflight) {
                char why[KARMADA_WORKLOAD_MSG_MAX];
                if (!ctl__tenancy_admits(c, b->queue, bns, why, sizeof why)) {
                    ctl__engine_forget(c, b);
                    ctl__set_reason(b, "Unschedulable", "%s", why);
                    ctl__set_state(c, b, B_PARKED);
                }
            }
        }
        if (end)
            break;
    }
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
    ctl__kick(c);
}

void ctl__namespace_changed(struct ctl *c, json_object *ns)
{
    ctl__tenancy_rejudge(c, kube_json_path_str(ns, "metadata", "name", NULL));
}
