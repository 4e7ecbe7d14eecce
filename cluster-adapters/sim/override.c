/* Karmada's override manager (pkg/util/overridemanager/overridemanager.go) as the binding
 * controller uses it: the OverridePolicies of a namespace, indexed by what they may select,
 * applied to a rendered manifest in name order, and the re-render of the bindings a policy
 * change touches (binding controller policy handlers). */

#include "cluster-adapters/sim/interpret.h"
#include "cluster-adapters/sim/member.h"
#include "cluster-adapters/sim/rbstatus.h"
#include "cluster-adapters/sim/detector.h"
#include "cluster-adapters/sim/binding.h"
#include "cluster-adapters/sim/override.h"

#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/quantity.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "queue/errors.h"
#include "queue/search.h"
#include "queue/mem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void op_index(struct sim_karmada *k, json_object *op, int add);
static void index_override(struct sim_karmada *k, const struct sim_event *ev);
static void overrides_changed(struct sim_karmada *k, const struct sim_event *ev);

static int opc_cmp(const struct op_cached *c, const char *key)
{
    return strcmp(c->key, key);
}

static size_t opc_lower_bound(const struct sim_karmada *k, const char *key)
{
    return queue_search_str(k->opc, k->nopc, sizeof(*k->opc), offsetof(struct op_cached, key), key);
}

/* The cached policy ns/name (borrowed), or NULL. */
static json_object *cache_get(struct sim_karmada *k, const char *ns, const char *name)
{
    char key[2 * NAME_MAX_LEN + 2];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    size_t i = opc_lower_bound(k, key);
    return i < k->nopc && opc_cmp(&k->opc[i], key) == 0 ? k->opc[i].obj : NULL;
}

/* Sets (obj != NULL) or drops the cached copy of obj's policy. */
static void cache_put(struct sim_karmada *k, json_object *of, int drop)
{
    char key[2 * NAME_MAX_LEN + 2];
    const char *ns = sim_meta_str(of, "namespace"), *name = sim_meta_str(of, "name");
    if (!ns || !name)
        return;
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    size_t i = opc_lower_bound(k, key);
    int found = i < k->nopc && opc_cmp(&k->opc[i], key) == 0;
    if (drop) {
        if (found) {
            muster_free(k->opc[i].key);
            json_object_put(k->opc[i].obj);
            memmove(&k->opc[i], &k->opc[i + 1], (k->nopc - i - 1) * sizeof(*k->opc));
            k->nopc--;
        }
        return;
    }
    if (found) {
        json_object_put(k->opc[i].obj);
        k->opc[i].obj = json_object_get(of);
        return;
    }
    if (k->nopc == k->capopc) {
        size_t cap = k->capopc ? k->capopc * 2 : 64;
        struct op_cached *v = muster_realloc(k->opc, cap * sizeof(*v));
        if (!v)
            return; /* the policy is then not applied: degrade, never crash */
        k->opc = v;
        k->capopc = cap;
    }
    char *kk = muster_strdup(key);
    if (!kk)
        return;
    memmove(&k->opc[i + 1], &k->opc[i], (k->nopc - i) * sizeof(*k->opc));
    k->opc[i] = (struct op_cached){kk, json_object_get(of)};
    k->nopc++;
}

/* The informer delivers ev: cache and index follow it, then the binding controller's policy
 * handler re-renders what it touches. */
static void deliver(struct sim_karmada *k, const struct sim_event *ev)
{
    cache_put(k, ev->obj, ev->type == SIM_EVENT_DELETED);
    index_override(k, ev);
    overrides_changed(k, ev);
}

static int64_t now_ms(struct sim_karmada *k)
{
    if (k->opts.now_ms)
        return k->opts.now_ms();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sim__override_event(struct sim_karmada *k, const struct sim_event *ev)
{
    if (k->opts.override_lag_ms <= 0 && k->nopq == k->qhead) {
        deliver(k, ev);
        return;
    }
    if (k->nopq == k->capopq && k->qhead) {
        /* Compact the delivered head away before growing (nothing to move while the queue
         * has never held anything: memmove on its NULL array is undefined). */
        memmove(k->opq, k->opq + k->qhead, (k->nopq - k->qhead) * sizeof(*k->opq));
        k->nopq -= k->qhead;
        k->qhead = 0;
    }
    if (k->nopq == k->capopq) {
        size_t cap = k->capopq ? k->capopq * 2 : 64;
        struct op_pending *v = muster_realloc(k->opq, cap * sizeof(*v));
        if (!v) {
            deliver(k, ev); /* at once rather than never */
            return;
        }
        k->opq = v;
        k->capopq = cap;
    }
    int was_empty = k->nopq == k->qhead;
    k->opq[k->nopq++] = (struct op_pending){now_ms(k) + k->opts.override_lag_ms, ev->type,
                                            json_object_get(ev->obj), json_object_get(ev->prev)};
    if (was_empty && k->on_override_due)
        k->on_override_due(k->due_data, k->opts.override_lag_ms);
}

int64_t sim_karmada_override_sync(struct sim_karmada *k)
{
    int64_t t = now_ms(k);
    while (k->qhead < k->nopq && k->opq[k->qhead].due <= t) {
        struct op_pending p = k->opq[k->qhead++];
        struct sim_event ev = {p.type, 0,
                               sim__res_of("policy.karmada.io", "v1alpha1", "overridepolicies"),
                               p.obj, p.prev};
        deliver(k, &ev);
        json_object_put(p.obj);
        json_object_put(p.prev);
    }
    if (k->qhead == k->nopq) {
        k->qhead = k->nopq = 0;
        return -1;
    }
    return k->opq[k->qhead].due - t;
}

void sim_karmada_on_override_due(struct sim_karmada *k, void (*cb)(void *data, int64_t delay_ms),
                                 void *data)
{
    k->on_override_due = cb;
    k->due_data = data;
}

void sim__override_seed(void *data, json_object *op)
{
    struct sim_karmada *k = data;
    cache_put(k, op, 0);
    op_index(k, op, 1);
}

void sim__override_free(struct sim_karmada *k)
{
    for (size_t i = 0; i < k->nopc; i++) {
        muster_free(k->opc[i].key);
        json_object_put(k->opc[i].obj);
    }
    muster_free(k->opc);
    for (size_t i = k->qhead; i < k->nopq; i++) {
        json_object_put(k->opq[i].obj);
        json_object_put(k->opq[i].prev);
    }
    muster_free(k->opq);
    sim__keyset_free(&k->op_named);
    sim__keyset_free(&k->op_wild);
}

/* 1 when OverridePolicy op selects tmpl (no resourceSelectors: everything in its namespace). */
static int override_selects(json_object *op, json_object *tmpl)
{
    json_object *sels = sim__get_path(op, "spec", "resourceSelectors", NULL);
    int selected = !sels;
    for (size_t s = 0; !selected && json_object_is_type(sels, json_type_array) &&
                       s < json_object_array_length(sels);
         s++)
        selected = sim__selector_matches(json_object_array_get_idx(sels, s), tmpl);
    return selected;
}

/* Karmada's implicit priority of op for tmpl (pkg/util/selector.go
 * ResourceMatchSelectorsPriority: the highest of its selectors that match; no selectors:
 * PriorityMatchAll): a selector by name 3, by labels 2, matching all of the kind 1. The override
 * manager applies policies in ascending priority, then name, so the most specific is applied
 * last and wins. */
static int override_priority(json_object *op, json_object *tmpl)
{
    json_object *sels = sim__get_path(op, "spec", "resourceSelectors", NULL);
    size_t n = json_object_is_type(sels, json_type_array) ? json_object_array_length(sels) : 0;
    int best = 1;
    for (size_t s = 0; s < n; s++) {
        json_object *rs = json_object_array_get_idx(sels, s);
        if (!sim__selector_matches(rs, tmpl))
            continue;
        const char *name = sim__get_str(rs, "name", NULL, NULL);
        int p = name && *name ? 3 : sim__get_path(rs, "labelSelector", NULL, NULL) ? 2 : 1;
        if (p > best)
            best = p;
    }
    return best;
}

struct op_order {
    const char *name;
    int priority;
};

static int op_order_cmp(const void *a, const void *b)
{
    const struct op_order *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* ---- the OverridePolicy index ---- */

/* Index of the first key >= key. */
static size_t keyset_lower_bound(const struct keyset *ks, const char *key)
{
    return queue_search_str(ks->v, ks->n, sizeof(*ks->v), 0, key);
}

int sim__keyset_add(struct keyset *ks, const char *key)
{
    size_t i = keyset_lower_bound(ks, key);
    if (i < ks->n && strcmp(ks->v[i], key) == 0)
        return 0;
    if (ks->n == ks->cap) {
        size_t cap = ks->cap ? ks->cap * 2 : 64;
        char **v = muster_realloc(ks->v, cap * sizeof(*v));
        if (!v)
            return MUSTER_ENOMEM;
        ks->v = v;
        ks->cap = cap;
    }
    char *kk = muster_strdup(key);
    if (!kk)
        return MUSTER_ENOMEM;
    memmove(&ks->v[i + 1], &ks->v[i], (ks->n - i) * sizeof(*ks->v));
    ks->v[i] = kk;
    ks->n++;
    return 0;
}

void sim__keyset_remove(struct keyset *ks, const char *key)
{
    size_t i = keyset_lower_bound(ks, key);
    if (i == ks->n || strcmp(ks->v[i], key) != 0)
        return;
    muster_free(ks->v[i]);
    memmove(&ks->v[i], &ks->v[i + 1], (ks->n - i - 1) * sizeof(*ks->v));
    ks->n--;
}

int sim__keyset_has(const struct keyset *ks, const char *key)
{
    size_t i = keyset_lower_bound(ks, key);
    return i < ks->n && strcmp(ks->v[i], key) == 0;
}

void sim__keyset_free(struct keyset *ks)
{
    for (size_t i = 0; i < ks->n; i++)
        muster_free(ks->v[i]);
    muster_free(ks->v);
    memset(ks, 0, sizeof(*ks));
}

/* Adds (add = 1) or removes op's keys. The keys follow override_selects: a missing
 * resourceSelectors selects everything (wild), one that is not an array selects nothing. A
 * selector naming no template is wild; selector_matches still decides at render time, so the
 * index only has to never miss a policy that may select. */
static void op_index(struct sim_karmada *k, json_object *op, int add)
{
    const char *ns = sim_meta_str(op, "namespace");
    const char *name = sim_meta_str(op, "name");
    if (!ns || !name)
        return;
    json_object *sels = sim__get_path(op, "spec", "resourceSelectors", NULL);
    int wild = !sels;
    char key[6 * NAME_MAX_LEN];
    for (size_t i = 0;
         json_object_is_type(sels, json_type_array) && i < json_object_array_length(sels); i++) {
        json_object *sel = json_object_array_get_idx(sels, i);
        const char *av = sim__get_str(sel, "apiVersion", NULL, NULL);
        const char *kind = sim__get_str(sel, "kind", NULL, NULL);
        const char *tname = sim__get_str(sel, "name", NULL, NULL);
        if (!av || !kind || !tname || !tname[0]) {
            wild = 1;
            continue;
        }
        snprintf(key, sizeof(key), "%s" OP_SEP "%s" OP_SEP "%s" OP_SEP "%s" OP_SEP "%s", ns, av,
                 kind, tname, name);
        if (add)
            sim__keyset_add(&k->op_named, key); /* on failure the policy is not applied: degrade */
        else
            sim__keyset_remove(&k->op_named, key);
    }
    if (!wild)
        return;
    snprintf(key, sizeof(key), "%s" OP_SEP "%s", ns, name);
    if (add)
        sim__keyset_add(&k->op_wild, key);
    else
        sim__keyset_remove(&k->op_wild, key);
}

/* Keeps the index in step with an OverridePolicy event (DELETED carries the last state). */
static void index_override(struct sim_karmada *k, const struct sim_event *ev)
{
    if (ev->type == SIM_EVENT_MODIFIED && ev->prev)
        op_index(k, ev->prev, 0);
    op_index(k, ev->obj, ev->type != SIM_EVENT_DELETED);
}

/* The policy names (the keys' last field) of the keys of ks starting with prefix, appended to
 * *names (grown as needed). Returns 0 or MUSTER_ENOMEM. */
static int op_candidates(const struct keyset *ks, const char *prefix, const char ***names,
                         size_t *n, size_t *cap)
{
    size_t plen = strlen(prefix);
    for (size_t i = keyset_lower_bound(ks, prefix);
         i < ks->n && strncmp(ks->v[i], prefix, plen) == 0; i++) {
        if (*n == *cap) {
            size_t c = *cap ? *cap * 2 : 16;
            const char **v = muster_realloc(*names, c * sizeof(*v));
            if (!v)
                return MUSTER_ENOMEM;
            *names = v;
            *cap = c;
        }
        (*names)[(*n)++] = ks->v[i] + plen;
    }
    return 0;
}

/* Applies op's plaintext overriders for cluster to *tmpl. */
static void apply_override(json_object *op, const char *cluster, json_object **tmpl,
                           json_object *applied)
{
    json_object *rules = sim__get_path(op, "spec", "overrideRules", NULL);
    for (size_t r = 0;
         json_object_is_type(rules, json_type_array) && r < json_object_array_length(rules); r++) {
        json_object *rule = json_object_array_get_idx(rules, r);
        json_object *target = sim__get_path(rule, "targetCluster", "clusterNames", NULL);
        if (target && !sim__cluster_listed(target, cluster))
            continue;
        json_object *plain = sim__get_path(rule, "overriders", "plaintext", NULL);
        if (!json_object_is_type(plain, json_type_array))
            continue;
        json_object *ops = json_object_new_array();
        for (size_t p = 0; p < json_object_array_length(plain); p++) {
            json_object *o = json_object_array_get_idx(plain, p);
            json_object *jp = json_object_new_object();
            const char *oper = sim__get_str(o, "operator", NULL, NULL);
            const char *path = sim__get_str(o, "path", NULL, NULL);
            json_object_object_add(jp, "op", json_object_new_string(oper ? oper : "replace"));
            json_object_object_add(jp, "path", json_object_new_string(path ? path : ""));
            json_object *v = sim__get_path(o, "value", NULL, NULL);
            if (v)
                json_object_object_add(jp, "value", json_object_get(v));
            json_object_array_add(ops, jp);
        }
        json_object *patched = NULL;
        char err[256];
        /* Karmada fails the whole render on a bad overrider; the sim skips the rule. */
        if (sim_json_patch(*tmpl, ops, &patched, err, sizeof(err)) == 0) {
            json_object_put(*tmpl);
            *tmpl = patched;
            /* AppliedOverrides.Add: one shadow per rule applied, the rule's overriders. */
            json_object *item = json_object_new_object();
            json_object_object_add(item, "policyName",
                                   json_object_new_string(sim_meta_str(op, "name")));
            json_object_object_add(item, "overriders",
                                   json_object_get(sim__get_path(rule, "overriders", NULL, NULL)));
            json_object_array_add(applied, item);
        }
        json_object_put(ops);
    }
}

/* Applies the plaintext overriders of every OverridePolicy in ns that selects tmpl and targets
 * cluster, in name order as Karmada sorts them. The candidates come from the index, looked up
 * by the template as it is before any overrider ran (an overrider renaming the template does
 * not bring in policies naming the new name). */
void sim__apply_overrides(struct sim_karmada *k, const char *ns, const char *cluster,
                          json_object **tmpl, json_object *applied)
{
    if (!ns)
        return;
    const char *av = sim__get_str(*tmpl, "apiVersion", NULL, NULL);
    const char *kind = sim__get_str(*tmpl, "kind", NULL, NULL);
    const char *tname = sim_meta_str(*tmpl, "name");
    char prefix[6 * NAME_MAX_LEN];
    const char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    if (av && kind && tname) {
        snprintf(prefix, sizeof(prefix), "%s" OP_SEP "%s" OP_SEP "%s" OP_SEP "%s" OP_SEP, ns, av,
                 kind, tname);
        rc = op_candidates(&k->op_named, prefix, &names, &n, &cap);
    }
    snprintf(prefix, sizeof(prefix), "%s" OP_SEP, ns);
    if (rc == 0)
        rc = op_candidates(&k->op_wild, prefix, &names, &n, &cap);
    if (rc < 0) {
        muster_free(names);
        return;
    }
    /* Sorted copies of the names: applying an overrider writes nothing, so the keys stay. */
    if (n) /* names stays NULL when no policy is a candidate */
        qsort(names, n, sizeof(*names), sim__str_cmp);
    /* The informer's copies (they lag the store by the configured delay) that select the
     * template, once each, in the override manager's order (getOverridersFromOverridePolicies) */
    struct op_order *order = n ? muster_malloc(n * sizeof(*order)) : NULL;
    size_t m = 0;
    for (size_t i = 0; order && i < n; i++) {
        if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
            continue; /* several selectors of one policy name the template */
        json_object *op = cache_get(k, ns, names[i]);
        if (op && override_selects(op, *tmpl))
            order[m++] = (struct op_order){names[i], override_priority(op, *tmpl)};
    }
    if (m)
        qsort(order, m, sizeof(*order), op_order_cmp);
    for (size_t i = 0; i < m; i++)
        apply_override(cache_get(k, ns, order[i].name), cluster, tmpl, applied);
    muster_free(order);
    muster_free(names);
}

/* 1 when op may select the template av/kind/name (checked on the RB's spec.resource, before
 * the template is read for namespace and labels). */
static int override_may_select(json_object *op, const char *av, const char *kind, const char *name)
{
    json_object *sels = sim__get_path(op, "spec", "resourceSelectors", NULL);
    if (!sels)
        return 1;
    for (size_t s = 0;
         json_object_is_type(sels, json_type_array) && s < json_object_array_length(sels); s++) {
        json_object *sel = json_object_array_get_idx(sels, s);
        const char *sav = sim__get_str(sel, "apiVersion", NULL, NULL);
        const char *skind = sim__get_str(sel, "kind", NULL, NULL);
        const char *sname = sim__get_str(sel, "name", NULL, NULL);
        if (sav && skind && strcmp(sav, av) == 0 && strcmp(skind, kind) == 0 &&
            (!sname || !sname[0] || strcmp(sname, name) == 0))
            return 1;
    }
    return 0;
}

/* Karmada's binding controller re-syncs the bindings an OverridePolicy selects whenever the
 * policy is created, updated or deleted: their Works are rendered again with (or without) its
 * overriders. ev is the policy's event; prev (updates) selects too, so a binding the policy
 * stops selecting loses its overrides. */
/* The RB of each template a policy names ("<name>-<kind>", lower case, the detector's naming),
 * synced directly: a policy whose every selector names its template (muster's, one per RB)
 * needs no walk over the namespace's RBs, which would make N policies cost N x N. Returns 0 when
 * some selector (in the policy or its previous version) names no template: walk instead. */
static int resync_named(struct sim_karmada *k, const struct sim_resource *rbr, const char *ns,
                        const struct sim_event *ev)
{
    json_object *versions[2] = {ev->obj, ev->prev};
    for (int v = 0; v < 2; v++) {
        json_object *sels =
            versions[v] ? sim__get_path(versions[v], "spec", "resourceSelectors", NULL) : NULL;
        if (versions[v] && !json_object_is_type(sels, json_type_array))
            return 0;
        for (size_t i = 0; sels && i < json_object_array_length(sels); i++) {
            json_object *sel = json_object_array_get_idx(sels, i);
            if (!sim__get_str(sel, "name", NULL, NULL) || !sim__get_str(sel, "kind", NULL, NULL))
                return 0;
        }
    }
    for (int v = 0; v < 2; v++) {
        json_object *sels =
            versions[v] ? sim__get_path(versions[v], "spec", "resourceSelectors", NULL) : NULL;
        for (size_t i = 0; sels && i < json_object_array_length(sels); i++) {
            json_object *sel = json_object_array_get_idx(sels, i);
            const char *sns = sim__get_str(sel, "namespace", NULL, NULL);
            if (sns && strcmp(sns, ns) != 0)
                continue;
            char name[NAME_MAX_LEN];
            snprintf(name, sizeof name, "%s-%s", sim__get_str(sel, "name", NULL, NULL),
                     sim__get_str(sel, "kind", NULL, NULL));
            for (char *p = name; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            json_object *cur = NULL;
            if (sim_store_get(k->store, rbr, ns, name, &cur, NULL) < 0)
                continue;
            const char *av = sim__get_str(cur, "spec", "resource", "apiVersion");
            const char *kind = sim__get_str(cur, "spec", "resource", "kind");
            const char *tname = sim__get_str(cur, "spec", "resource", "name");
            if (av && kind && tname &&
                (override_may_select(ev->obj, av, kind, tname) ||
                 (ev->prev && override_may_select(ev->prev, av, kind, tname))))
                sim__sync_binding(k, cur);
            json_object_put(cur);
        }
    }
    return 1;
}

static void overrides_changed(struct sim_karmada *k, const struct sim_event *ev)
{
    if (ev->type == SIM_EVENT_MODIFIED && ev->prev &&
        json_object_equal(sim__get_path(ev->obj, "spec", NULL, NULL),
                          sim__get_path(ev->prev, "spec", NULL, NULL)))
        return; /* metadata only: the render is the same */
    const char *ns = sim_meta_str(ev->obj, "namespace");
    const struct sim_resource *rbr = sim__res_of("work.karmada.io", "v1alpha2", "resourcebindings");
    if (ns && resync_named(k, rbr, ns, ev))
        return;
    json_object *list = NULL;
    if (!ns || sim_store_list(k->store, rbr, ns, NULL, &list, NULL) < 0)
        return;
    json_object *items = json_object_object_get(list, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *rb = json_object_array_get_idx(items, i);
        const char *av = sim__get_str(rb, "spec", "resource", "apiVersion");
        const char *kind = sim__get_str(rb, "spec", "resource", "kind");
        const char *tns = sim__get_str(rb, "spec", "resource", "namespace");
        const char *tname = sim__get_str(rb, "spec", "resource", "name");
        if (!av || !kind || !tname ||
            (!override_may_select(ev->obj, av, kind, tname) &&
             !(ev->prev && override_may_select(ev->prev, av, kind, tname))))
            continue;
        const struct sim_resource *r = sim_resource_by_kind(av, kind);
        json_object *tmpl = NULL;
        if (!r || sim_store_get(k->store, r, r->namespaced ? tns : NULL, tname, &tmpl, NULL) < 0)
            continue;
        int selected =
            override_selects(ev->obj, tmpl) || (ev->prev && override_selects(ev->prev, tmpl));
        json_object_put(tmpl);
        if (!selected)
            continue;
        /* The listed copy may be stale by now (earlier syncs write status): read it again. */
        json_object *cur = NULL;
        if (sim_store_get(k->store, rbr, ns, sim_meta_str(rb, "name"), &cur, NULL) < 0)
            continue;
        sim__sync_binding(k, cur);
        json_object_put(cur);
    }
    json_object_put(list);
}
