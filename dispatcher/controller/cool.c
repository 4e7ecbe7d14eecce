/* Bindings that wait hold no tree (issue 22: a million pending RBs in under 1 GiB), and
 * gangs that run hold no RB tree.
 *
 * The RB and template informers cache their objects packed (kube/frozen.h). A binding keeps a
 * reference to its RB and template trees only while it is in play: read on an event, placed by
 * a cycle, admitted, dispatched, followed. Once per loop iteration, after the events (a uv check
 * handle), every binding that took a tree in that iteration and now only waits (pending, in
 * back-off, parked, waiting for its template, nothing in flight) lets its trees go, and the
 * informers let go of what they thawed. ctl__rb and ctl__tmpl thaw them back from the informers
 * when a waiting binding is looked at again: by the cycle that places it, a condition write, a
 * re-read. What a cycle needs of a waiting gang (its request, queue, allowed clusters) is in the
 * binding itself.
 *
 * A running (or finished) gang with nothing in flight lets its RB tree go too: about 18 KiB of
 * json-c objects (the status Karmada aggregates into it) that every running gang held until
 * its RB went, so a fleet's running gangs cost more than a million pending ones. Its RB is
 * only read again on an event (which brings the new tree), by a check of its clusters or its
 * progress, or when it goes back into play (a loss, a resize, a rollback), and what it reads
 * then is the informer's copy: the RB of its last event, which is what it held. It keeps its
 * template: a re-read of a running gang that is refused (resize.c) goes back to the template
 * it was decided on, which the informer may no longer hold. */
#include "dispatcher/controller/ctl_int.h"

#include "cluster-adapters/kube/json.h"
#include "queue/mem.h"

void ctl__placement_terms(struct ctl *c, const struct binding *b)
{
    json_object *pl = kube_json_path(ctl__rb_of(c, b), "spec", "placement", NULL);
    json_object *affs = kube_json_get(pl, "clusterAffinities");
    c->aw.affinity = kube_json_get(pl, "clusterAffinity");
    /* as the workload read has it (workload_clusters.c): an empty list is no list, not a list
     * no cluster matches */
    c->aw.affinities =
        json_object_is_type(affs, json_type_array) && json_object_array_length(affs) ? affs : NULL;
    c->aw.tolerations = kube_json_get(pl, "clusterTolerations");
}

void ctl__cool_later(struct ctl *c, struct binding *b)
{
    if (b->cool_at)
        return;
    if (c->cool.n == c->cool.cap) {
        size_t cap = c->cool.cap ? c->cool.cap * 2 : 1024;
        struct binding **v = muster_realloc(c->cool.v, cap * sizeof(*v));
        if (!v)
            return; /* it keeps its trees: more memory, same behaviour */
        c->cool.v = v;
        c->cool.cap = cap;
    }
    c->cool.v[c->cool.n++] = b;
    c->cool.fresh++;
    b->cool_at = (uint32_t)c->cool.n;
}

void ctl__cool_forget(struct ctl *c, struct binding *b)
{
    if (!b->cool_at)
        return;
    struct binding *last = c->cool.v[--c->cool.n];
    c->cool.v[b->cool_at - 1] = last;
    last->cool_at = b->cool_at;
    b->cool_at = 0;
}

/* Waiting: what it reads again comes from the informers as they are then, which is what its
 * next event would have brought. A gang in play keeps the exact objects it was decided on. */
static int waiting_state(const struct binding *b)
{
    return (b->st == B_PENDING || b->st == B_BACKOFF || b->st == B_PARKED ||
            b->st == B_WAIT_TEMPLATE) &&
           !b->gone && !b->pg && !b->grow && !ctl__act(b)->loss;
}

/* ... with nothing of it in flight: a step's answer is judged against the RB it was sent for.
 * A row not written yet is no obstacle: the flush reads the RB again through ctl__rb. */
static int settled(const struct binding *b)
{
    return b->step == S_NONE && !b->inflight && !b->side_inflight && !ctl__act(b)->reread_due &&
           !b->rb_behind && !ctl__act(b)->resize_owed && !ctl__act(b)->reply && !ctl__act(b)->fresh;
}

/* Running or finished, and nothing that keeps it in play for long (a loss or a scale-up
 * pending, a pod group, gone): its RB tree may go once it is idle. Only once reconciled: until
 * then reconcile.c reads what each binding holds against its row (and ctl__cool_reconciled
 * notes the running ones then). */
static int followed(const struct ctl *c, const struct binding *b)
{
    return (b->st == B_RUNNING || b->st == B_DONE) && c->reconciled && !b->gone && !b->pg &&
           !b->grow && !ctl__act(b)->loss;
}

/* ... with its rows written and nothing in flight */
static int followed_idle(const struct ctl *c, const struct binding *b)
{
    return followed(c, b) && !b->lw_pending && settled(b);
}

void ctl__cool_run(struct ctl *c)
{
    size_t keep = 0;
    for (size_t i = 0; i < c->cool.n; i++) {
        struct binding *b = c->cool.v[i];
        b->cool_at = 0;
        if (!waiting_state(b)) {
            if (followed_idle(c, b)) {
                json_object_put(b->rb);
                b->rb = NULL;
            } else if (followed(c, b)) {
                /* a running one whose row or request is still on its way (the move to
                 * running is written in the same step): looked at again next iteration, as
                 * nothing else brings it back once its last RB event is past */
                c->cool.v[keep++] = b;
                b->cool_at = (uint32_t)keep;
            }
            /* else in play: it keeps its trees, and leaves the list (it comes back when it
             * next takes its RB: an event, a thaw, or its state moving) */
            continue;
        }
        if (!settled(b)) {
            c->cool.v[keep++] = b; /* looked at again next iteration */
            b->cool_at = (uint32_t)keep;
            continue;
        }
        json_object_put(b->rb);
        json_object_put(b->tmpl);
        b->rb = b->tmpl = NULL;
    }
    c->cool.n = keep;
    c->cool.fresh = 0;
    kube_informer_trim(&c->rbs);
    kube_informer_trim(&c->policies);
    for (int i = 0; i < CTL_NTMPL; i++)
        kube_informer_trim(&c->tmpl[i]);
}

void ctl__cool_reconciled(struct ctl *c)
{
    /* the running gangs read at start-up: the first chance to let their RB trees go */
    for (struct binding *b = c->active.next; b != &c->active && b->st == B_RUNNING; b = b->next)
        ctl__cool_later(c, b);
}

json_object *ctl__rb(struct ctl *c, struct binding *b)
{
    if (b->rb || b->gone)
        return b->rb;
    char ns[256];
    const char *name;
    ctl__split_key(b->key, ns, sizeof ns, &name);
    json_object *rb = kube_informer_get(&c->rbs, ns, name);
    if (!rb)
        return NULL;
    b->rb = json_object_get(rb);
    ctl__cool_later(c, b);
    return b->rb;
}

json_object *ctl__rb_of(struct ctl *c, const struct binding *b)
{
    /* the tree is a cache of the informer's copy: thawing it back changes nothing b means */
    return ctl__rb(c, (struct binding *)b);
}

json_object *ctl__tmpl(struct ctl *c, struct binding *b)
{
    if (b->tmpl)
        return b->tmpl;
    json_object *rb = ctl__rb(c, b);
    json_object *t = rb ? ctl__template_of(c, rb) : NULL;
    if (!t)
        return NULL;
    b->tmpl = json_object_get(t);
    ctl__cool_later(c, b);
    return b->tmpl;
}
