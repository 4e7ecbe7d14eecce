/* The commit protocol (docs/dispatcher.md): one function per step, the requests each sends,
 * and what an answer moves on to. */
#include "dispatcher/controller/ctl_int.h"

#include "cluster-adapters/kube/jsonwrite.h"

static int send_again(struct ctl *c, struct binding *b, struct request_ctx *rq);
static void step_done(struct ctl *c, struct binding *b);
static const char *step_crash_one(enum step st);

void ctl__split_key(const char *key, char *ns, size_t nscap, const char **name)
{
    const char *slash = strchr(key, '/');
    size_t l = slash ? (size_t)(slash - key) : 0;
    *name = slash ? slash + 1 : key;
    if (nscap == 0)
        return;
    if (l >= nscap)
        l = nscap - 1;
    memcpy(ns, key, l);
    ns[l] = '\0';
}

static int rb_path(const struct binding *b, char *buf, size_t cap)
{
    char ns[256];
    const char *name;
    ctl__split_key(b->key, ns, sizeof ns, &name);
    return karmada_path_rb(buf, cap, ns, name);
}

static void retry_later(struct ctl *c, struct binding *b)
{
    struct ctl_act *a = ctl__act_w(c, b);
    a->retry_ms = a->retry_ms ? a->retry_ms * 2 : CTL_RETRY_INITIAL_MS;
    if (a->retry_ms > CTL_RETRY_MAX_MS)
        a->retry_ms = CTL_RETRY_MAX_MS;
    a->retry_at = now_ms(c) + (int64_t)a->retry_ms;
    if (!b->in_retry) {
        a->rnext = c->retry;
        c->retry = b;
        b->in_retry = 1;
    }
}

void ctl__on_response(int err, const struct kube_response *resp, void *ud)
{
    struct request_ctx *rq = ud;
    struct ctl *c = rq->c;
    struct binding *b = rq->b;
    enum step step = rq->step;
    int tolerate = rq->tolerate, side = rq->side;
    if (b && err == MUSTER_EEXIST && rq->again_body && !b->gone && send_again(c, b, rq) == 0)
        return; /* the replacing patch is in flight in its place */
    muster_free(rq->again_path);
    muster_free(rq->again_body);
    int want_body = rq->want_body;
    muster_free(rq);
    if (!b)
        return; /* an orphan's delete: the next sweep sees whether it went */
    if (side) {
        b->side_inflight--;
        /* 409: the RB changed since it was read; the next sweep writes from the newer read */
        if (err && err != MUSTER_ENOENT && err != MUSTER_ECANCELED) {
            if (err != MUSTER_ECONFLICT)
                c->st.hub_errors++;
            b->cond_dirty = 1; /* written again by a later sweep */
        } else if (!err) {
            b->cond_acked++;
        }
        ctl__maybe_free(c, b);
        return;
    }
    b->inflight--;
    json_object *acc = NULL, *more = NULL;
    if (!err && want_body && resp->body && step == S_BARRIER && ctl__act(b)->reply &&
        json_object_object_get_ex(ctl__act(b)->reply, "items", &acc) &&
        json_object_is_type(acc, json_type_array) &&
        json_object_object_get_ex(resp->body, "items", &more) &&
        json_object_is_type(more, json_type_array)) {
        /* the barrier's lists, one per share's namespace: their items together */
        for (size_t i = 0; i < json_object_array_length(more); i++)
            json_object_array_add(acc, json_object_get(json_object_array_get_idx(more, i)));
    } else if (!err && want_body && resp->body) {
        struct ctl_act *a = ctl__act_w(c, b);
        json_object_put(a->reply);
        a->reply = json_object_get(resp->body);
    }
    int rb_step = step != S_OBJECTS && step != S_BARRIER && step != S_U_DELETE &&
                  step != S_R_WORKS && step != S_RESIZE_WORKS && step != S_RESIZE_DROP &&
                  step != S_POLICY;
    if (step == S_STATUS &&
        (err == MUSTER_ECONFLICT || (err == MUSTER_EINVAL && !ctl__act(b)->status_reread))) {
        /* The JSON patch's test failed (422: the conditions or the generation are not as
         * read), or an older musterd's conditional merge patch met 409: read the RB again and
         * rebuild, so no condition Karmada wrote meanwhile is overwritten. */
        b->step = S_STATUS_READ;
        err = 0;
    }
    if (err && err != tolerate) {
        if (err == MUSTER_ENOENT && rb_step) {
            b->rb_missing = 1; /* the RB is gone; its delete event releases it */
        } else if (err != MUSTER_ECANCELED) {
            b->step_failed = 1;
            c->st.hub_errors++;
            if (ctl__act(b)->retry_ms >= CTL_RETRY_MAX_MS / 2)
                ctl__logf(c, "%s: %s step %d keeps failing: %s", b->key, ctl__state_names[b->st],
                          step,
                          resp->status.message[0] ? resp->status.message : muster_strerror(err));
        }
    }
    if (b->inflight > 0) {
        if (!err || err == tolerate)
            disp_crashpoint(step_crash_one(step));
        return;
    }
    if (b->gone) {
        ctl__maybe_free(c, b);
        return;
    }
    if (b->rb_missing) {
        b->rb_missing = 0;
        b->step_failed = 0;
        if (b->st == B_DONE && b->needs_objects && b->assign) {
            b->step = S_R_WORKS; /* released already: the RB went, its Works go too */
            ctl__step_run(c, b);
        }
        return;
    }
    if (b->step_failed) {
        b->step_failed = 0;
        retry_later(c, b);
    } else if (b->step == S_STATUS_READ && step == S_STATUS) {
        ctl__step_run(c, b);
    } else {
        if (b->act)
            b->act->retry_ms = 0;
        ctl__act_trim(b); /* a pending binding's hold, say: it keeps none */
        step_done(c, b);
    }
}

/* Sends one request of b's current step; body is consumed. want_body keeps the answer in
 * its ctl_act's reply; again_path (a create's object path) makes a 409 AlreadyExists replace the
 * existing object with body by a merge patch. */
/* send_req_ex with the body as text (NULL: none): what a body written without a tree sends
 * (kube/jsonwrite.h); bad: its writer failed. */
static void send_req_text(struct ctl *c, struct binding *b, enum kube_verb verb, const char *path,
                          const char *sub, const char *txt, int bad, int tolerate, int want_body,
                          const char *again_path)
{
    struct request_ctx *rq = muster_calloc(1, sizeof(*rq));
    /* Only deletes and reads go without a body: a builder that returned NULL failed. */
    if (!rq || bad || (!txt && verb != KUBE_DELETE && verb != KUBE_GET && verb != KUBE_LIST)) {
        muster_free(rq);
        b->step_failed = 1;
        return;
    }
    *rq = (struct request_ctx){c, b, b->step, tolerate, 0, verb, want_body, NULL, NULL};
    if (want_body && (b->act || b->cond_acked))
        ctl__act_w(c, b)->reply_acked = b->cond_acked; /* the answer shows every condition
                                                          acknowledged */
    if (again_path) {
        rq->again_path = muster_strdup(again_path);
        rq->again_body = muster_strdup(txt);
        if (!rq->again_path || !rq->again_body) {
            muster_free(rq->again_path);
            muster_free(rq->again_body);
            muster_free(rq);
            b->step_failed = 1;
            return;
        }
    }
    struct kube_request req = {
        .verb = verb, .path = path, .subresource = sub, .body = txt, .discard_body = !want_body};
    b->inflight++;
    int rc = kube_request(c->kube, &req, ctl__on_response, rq);
    if (rc) {
        b->inflight--;
        muster_free(rq->again_path);
        muster_free(rq->again_body);
        muster_free(rq);
        b->step_failed = 1;
    }
}

static void send_req_ex(struct ctl *c, struct binding *b, enum kube_verb verb, const char *path,
                        const char *sub, json_object *body, int tolerate, int want_body,
                        const char *again_path)
{
    /* A JSON patch's tests compare strings as their JSON text on the apiserver
     * (evanphx/json-patch), which never escapes '/'. Printed by the writer: json-c's
     * JSON_C_TO_STRING_PLAIN bytes, without the print buffer json-c keeps on the tree. */
    char stack[4096];
    struct kube_jw w;
    kube_jw_init(&w, stack, sizeof stack, verb != KUBE_JSON_PATCH);
    if (body)
        kube_jw_json(&w, body);
    /* a builder that returned NULL failed, unless the verb sends no body */
    send_req_text(c, b, verb, path, sub, body ? w.buf : NULL, w.bad, tolerate, want_body,
                  again_path);
    kube_jw_free(&w);
    json_object_put(body);
}

static void send_req(struct ctl *c, struct binding *b, enum kube_verb verb, const char *path,
                     const char *sub, json_object *body, int tolerate)
{
    send_req_ex(c, b, verb, path, sub, body, tolerate, 0, NULL);
}

/* A create met an object of the same name (an earlier attempt's Work whose delete did not get
 * through, say): the object is replaced by a merge patch carrying this attempt's whole body (a
 * merge patch replaces the manifests array whole). The request keeps b's count in flight.
 * Returns 0, or a MUSTER_* code when nothing was sent (the 409 then stands as a failure). */
static int send_again(struct ctl *c, struct binding *b, struct request_ctx *rq)
{
    struct request_ctx *n = muster_calloc(1, sizeof(*n));
    if (!n)
        return MUSTER_ENOMEM;
    *n = (struct request_ctx){c, b, rq->step, 0, 0, KUBE_MERGE_PATCH, 0, NULL, NULL};
    struct kube_request req = {.verb = KUBE_MERGE_PATCH,
                               .path = rq->again_path,
                               .body = rq->again_body,
                               .discard_body = 1};
    int rc = kube_request(c->kube, &req, ctl__on_response, n);
    if (rc) {
        muster_free(n);
        return rc;
    }
    muster_free(rq->again_path);
    muster_free(rq->again_body);
    muster_free(rq);
    return 0;
}

/* Sends body (taken) as a merge patch of b's RB status, outside the steps (a side request, as
 * condition writes are). 0 when nothing could be sent (out of memory), else 1. */
static int send_status_side(struct ctl *c, struct binding *b, json_object *body)
{
    char path[KUBE_MAX_URL_BYTES / 4];
    const char *txt = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
    struct request_ctx *rq = muster_malloc(sizeof(*rq));
    if (!rq || !txt) {
        muster_free(rq);
        json_object_put(body);
        return 0;
    }
    *rq = (struct request_ctx){c, b, S_NONE, 0, 1, KUBE_MERGE_PATCH, 0, NULL, NULL};
    rb_path(b, path, sizeof path);
    struct kube_request req = {.verb = KUBE_MERGE_PATCH,
                               .path = path,
                               .subresource = KARMADA_PATH_RB_STATUS,
                               .body = txt,
                               .discard_body = 1};
    b->side_inflight++;
    int rc = kube_request(c->kube, &req, ctl__on_response, rq);
    if (rc) {
        b->side_inflight--;
        muster_free(rq);
    } else {
        c->st.conditions_written++;
    }
    json_object_put(body);
    return rc == 0;
}

/* Writes b's waiting condition when it changed: a status merge patch outside the steps. */
int ctl__send_condition(struct ctl *c, struct binding *b)
{
    char ts[32];
    json_object *body = NULL;
    rfc3339(now_ms(c), ts, sizeof ts);
    b->cond_dirty = 0;
    if (!ctl__binding_reason(b)[0] ||
        karmada_patch_waiting(ctl__rb(c, b), ctl__binding_reason(b), ctl__binding_msg(b), ts,
                              &body) ||
        !body)
        return 0;
    if (!send_status_side(c, b, body))
        b->cond_dirty = 1; /* written again by a later sweep */
    return 1;
}

int ctl__send_scheduled(struct ctl *c, struct binding *b)
{
    char ts[32];
    json_object *body = NULL;
    rfc3339(now_ms(c), ts, sizeof ts);
    b->cond_dirty = 0;
    char fewer[256] = ""; /* a JobSet at fewer Jobs says so again (issue 20) */
    ctl__jobset_min_sentence(b, fewer, sizeof fewer);
    if (karmada_patch_condition(ctl__rb(c, b), "Scheduled", "True", "Success",
                                fewer[0] ? fewer : KARMADA_GANG_SCHEDULED_MESSAGE, ts, 0, &body) ||
        !body)
        return 0; /* already says so */
    send_status_side(c, b, body);
    return 1;
}

void ctl__fill_gang_input(struct ctl *c, struct binding *b, struct karmada_gang_input *in,
                          struct karmada_gang_share *gs)
{
    for (uint32_t i = 0; i < b->nshares && i < 256; i++) {
        gs[i] = (struct karmada_gang_share){b->shares[i].cluster, b->shares[i].replicas};
        c->gang_dialects[i] = ctl__cluster_dialect(c, b->shares[i].cluster, NULL);
        c->gang_wl_versions[i] = ctl__cluster_wl_version(c, b->shares[i].cluster);
        c->gang_net_topo[i] = ctl__cluster_nettopo(c, b->shares[i].cluster);
    }
    /* gangobj reads what the workload read found; re-read into the scratch (the RB and the
     * template are the ones admitted). */
    ctl__workload_read(c, ctl__rb(c, b), ctl__tmpl(c, b));
    if (b->soft && c->w.min_member > b->min_member)
        c->w.min_member = b->min_member; /* a YuniKorn Soft gang past its timeout (soft.c) */
    /* The gang objects are those of what its shares hold: a gang admitted at its minimum, or
     * with a scale up waiting, holds fewer replicas than its RB asks for, and its PodGroups'
     * minMember is then each share's part of min-member (docs/dispatcher.md, "Partial
     * admission"). */
    int32_t held = 0;
    for (uint32_t i = 0; i < b->nshares; i++)
        held += b->shares[i].replicas;
    /* a split (issue 20): each share's whole groups, as the row records them per share and set
     * (or, for one set, derived from the replicas), in row order, so a restart rebuilds the
     * same cells, counts and offsets (docs/dispatcher.md) */
    int split = b->nshares <= 256 && ctl__split_fill(b, c->gang_split);
    if (!split && c->w.ncomponents == 1 && held > 0 && held < c->w.replicas) {
        c->w.replicas = held;
        c->w.components[0].replicas = held;
    }
    int folded = !split && b->pg_folded && c->w.ncomponents == 1 && held > 0;
    if (folded) {
        /* a pod group's lead: its PodGroup holds every pod of the gang (podgroup.c) */
        c->w.replicas = held;
        c->w.components[0].replicas = held;
        c->w.min_member = held;
    }
    *in = (struct karmada_gang_input){.rb = ctl__rb(c, b),
                                      .w = &c->w,
                                      .names = c->names,
                                      .shares = gs,
                                      .nshares = b->nshares,
                                      .pod_scheduler = c->pod_scheduler,
                                      .tmpl = ctl__tmpl(c, b),
                                      .dialects = c->gang_dialects,
                                      .wl_versions = c->gang_wl_versions,
                                      .gang_timeout_s =
                                          (int32_t)(ctl__queue_timeout_ms(c, b->queue) / 1000),
                                      .gang_request = folded ? &b->gang : NULL,
                                      .split = split ? c->gang_split : NULL,
                                      .nsets = split ? ctl__split_nsets(b) : 0,
                                      .member_topo = &ctl__act(b)->mtopo,
                                      .net_topo = c->gang_net_topo};
    if (ctl__act(b)->mtopo.share.tier == KARMADA_NETTOPO_TIER_NAMED ||
        ctl__act(b)->mtopo.group.tier == KARMADA_NETTOPO_TIER_NAMED) {
        /* the binding keeps no tier name: read again from the objects admitted, as c->w is */
        struct karmada_member_topo t;
        if (!karmada_member_topo_read_names(&t, &c->gang_topo_names, &c->w, split, in->rb, in->tmpl,
                                            NULL, 0))
            in->topo_names = &c->gang_topo_names;
    }
}

/* The input of member m of lead b's pod group (podgroup.c): m's RB and template, its own pods
 * on the lead's cluster, its pods pointed at the lead's PodGroup. */
static void fill_member_input(struct ctl *c, const struct binding *b, struct binding *m,
                              struct karmada_gang_input *in, struct karmada_gang_share *gs)
{
    gs[0] = (struct karmada_gang_share){b->nshares ? b->shares[0].cluster : "",
                                        m == b ? b->pg_own_replicas : m->replicas};
    c->gang_dialects[0] = ctl__cluster_dialect(c, gs[0].cluster, NULL);
    ctl__workload_read(c, ctl__rb(c, m), ctl__tmpl(c, m));
    c->w.min_member = c->w.replicas; /* the gang's minMember is on the lead's PodGroup */
    *in = (struct karmada_gang_input){.rb = ctl__rb(c, m),
                                      .w = &c->w,
                                      .names = c->names,
                                      .shares = gs,
                                      .nshares = 1,
                                      .pod_scheduler = c->pod_scheduler,
                                      .tmpl = ctl__tmpl(c, m),
                                      .dialects = c->gang_dialects,
                                      .gang_timeout_s =
                                          (int32_t)(ctl__queue_timeout_ms(c, b->queue) / 1000),
                                      .group_rb_name = NULL};
    const char *slash = strchr(b->key, '/');
    in->group_rb_name = slash ? slash + 1 : b->key;
}

static void work_path(const char *cluster, const char *name, char *buf, size_t cap)
{
    karmada_path_work(buf, cap, cluster, name);
}

static void policy_path(const struct binding *b, int one, char *buf, size_t cap)
{
    char ns[256], pname[KARMADA_GANG_NAME_MAX + 1];
    const char *name;
    ctl__split_key(b->key, ns, sizeof ns, &name);
    karmada_gang_policy_name(name, pname, sizeof pname);
    karmada_path_policy(buf, cap, ns, one ? pname : NULL);
}

/* muster's PodGroup Work for b in cluster, as its watch last saw it, or NULL. */
json_object *ctl__own_work(struct ctl *c, const struct binding *b, const char *cluster)
{
    char ns[256], wname[KARMADA_GANG_NAME_MAX + 1], wns[CTL_CLUSTER_NAME_MAX + 16];
    const char *name;
    ctl__split_key(b->key, ns, sizeof ns, &name);
    karmada_gang_work_name(ns, name, wname, sizeof wname);
    karmada_path_execution_namespace(wns, sizeof wns, cluster);
    return kube_informer_get(&c->works, wns, wname);
}

/* Every share's PodGroup Work reports Applied: the member holds this attempt's PodGroup. */
static int works_applied(struct ctl *c, const struct binding *b)
{
    for (uint32_t i = 0; i < b->nshares; i++)
        if (karmada_gang_dialect_has_work(ctl__cluster_dialect(c, b->shares[i].cluster, NULL)) &&
            !karmada_gang_work_applied(ctl__own_work(c, b, b->shares[i].cluster)))
            return 0;
    return 1;
}

/* The barrier is not rendered everywhere yet: list the Works again after the back-off. */
static void recheck_later(struct ctl *c, struct binding *b)
{
    struct ctl_act *a = ctl__act_w(c, b);
    a->recheck_ms = a->recheck_ms ? a->recheck_ms * 2 : CTL_BARRIER_RECHECK_MS;
    if (a->recheck_ms > CTL_BARRIER_RECHECK_MAX_MS)
        a->recheck_ms = CTL_BARRIER_RECHECK_MAX_MS;
    a->retry_at = now_ms(c) + a->recheck_ms;
    if (!b->in_retry) {
        a->rnext = c->retry;
        c->retry = b;
        b->in_retry = 1;
    }
    ctl__soon_arm(c, a->retry_at);
}

/* A forward step of a binding released meanwhile (finished, or its RB went) goes no further:
 * what it made is deleted instead. Scheduled=True still goes to an RB that stays (its shares
 * were placed and lifted, and Karmada's RB-status controller needs lastScheduledTime), then
 * the delete follows (step_done). */
static int forward_step(const struct binding *b)
{
    enum step st = b->step;
    if (st == S_STATUS || st == S_STATUS_READ)
        return b->gone || kube_json_path(b->rb, "metadata", "deletionTimestamp", NULL) != NULL;
    return st == S_OBJECTS || st == S_APPLIED || st == S_ASSIGN || st == S_BARRIER ||
           st == S_LIFT || st == S_ASSIGN_LIFT || st == S_RESIZE_WORKS || st == S_RESIZE_CLUSTERS ||
           st == S_RESIZE_DROP;
}

/* What every step's sender needs: the RB's path and the name of its PodGroup Works. */
struct step_ctx {
    char path[KUBE_MAX_URL_BYTES / 4];
    char wname[KARMADA_GANG_NAME_MAX + 1];
};

/* A sender returns STEP_SENT when it sent its requests (or failed to: b->step_failed), and
 * STEP_HANDLED when it finished the step itself (nothing to send, or a step that waits). */
enum step_sent { STEP_SENT, STEP_HANDLED };

static enum step_sent send_hold(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    json_object *body = NULL;
    if (karmada_patch_hold(ctl__rb(c, b), &body) || !body) {
        b->step = S_NONE;
        return STEP_HANDLED;
    }
    send_req(c, b, KUBE_MERGE_PATCH, x->path, NULL, body, 0);
    return STEP_SENT;
}

/* The resourceVersion of a template as read (0 when it has none). */
static int64_t template_rv(json_object *t)
{
    const char *rv = kube_json_path_str(t, "metadata", "resourceVersion", NULL);
    return rv ? strtoll(rv, NULL, 10) : 0;
}

int ctl__policy_listed(struct ctl *c, const struct binding *b)
{
    char ns[256], pname[KARMADA_GANG_NAME_MAX + 1];
    const char *name;
    ctl__split_key(b->key, ns, sizeof ns, &name);
    karmada_gang_policy_name(name, pname, sizeof pname);
    return kube_informer_get(&c->policies, ns, pname) != NULL;
}

/* The one-RB, unsplit gangs whose policy may be left out, and only while none of muster's is on
 * the hub: one an earlier attempt, an older musterd or another --pod-scheduler left would be
 * applied over the template, and only a write corrects it. */
static int policy_may_skip(struct ctl *c, struct binding *b, const struct karmada_gang_input *in)
{
    struct binding **rbs;
    /* a pod group's members name the lead's PodGroup through their policies */
    return !in->split && !b->split_pods && !b->pg && ctl__pg_rbs(b, &rbs) <= 1 &&
           !ctl__policy_listed(c, b);
}

/* The policy b's gang gets, built against its template as the informer has it now: a gang in
 * play keeps the template it was admitted with (its PodGroups are built as it was placed), but
 * Karmada renders the pods from the current one, and the policy's overriders are shaped by it.
 * *skip: the template already reads as that policy would make it and nothing else stands in the
 * way (docs/gangobj.md, "A template that names its PodGroup"); *rv the resourceVersion of the
 * template judged. A new object, or NULL (no policy for this kind, or out of memory). */
static json_object *policy_judge(struct ctl *c, struct binding *b,
                                 const struct karmada_gang_input *filled, int *skip, int64_t *rv)
{
    struct karmada_gang_input in = *filled;
    json_object *now = ctl__template_of(c, ctl__rb(c, b));
    if (now)
        in.tmpl = now;
    *rv = template_rv(in.tmpl);
    json_object *op = karmada_gang_override_policy(&in);
    *skip = op && policy_may_skip(c, b, &in) && karmada_gang_policy_in_template(op, in.tmpl) &&
            !ctl__policy_contested(c, op, in.tmpl);
    return op;
}

/* policy_judge on b's input, filled here. */
static json_object *policy_now(struct ctl *c, struct binding *b, int *skip, int64_t *rv)
{
    struct karmada_gang_share gs[256];
    struct karmada_gang_input in;
    *skip = 0;
    *rv = 0;
    if (b->nshares == 0 || b->nshares > 256)
        return NULL;
    ctl__fill_gang_input(c, b, &in, gs);
    return policy_judge(c, b, &in, skip, rv);
}

/* Remembers that b's objects were made without its policy, for the template at rv. */
static void policy_skipped(struct ctl *c, struct binding *b, int skip, int64_t rv)
{
    if (!skip && !b->act)
        return;
    struct ctl_act *a = ctl__act_w(c, b);
    a->no_policy = (uint8_t)skip;
    a->policy_rv = skip ? rv : 0;
}

int ctl__policy_skip_now(struct ctl *c, struct binding *b)
{
    int skip;
    int64_t rv;
    json_object_put(policy_now(c, b, &skip, &rv));
    return skip;
}

struct contest {
    json_object *op, *tmpl;
    const char *ns;
    int hit;
};

static void contest_one(void *ud, json_object *p)
{
    struct contest *x = ud;
    const char *ns = kube_json_path_str(p, "metadata", "namespace", NULL);
    if (x->hit || (x->ns && (!ns || strcmp(ns, x->ns) != 0)))
        return;
    x->hit = karmada_gang_policy_contested(x->op, p, x->tmpl);
}

int ctl__policy_contested(struct ctl *c, json_object *op, json_object *tmpl)
{
    struct contest x = {op, tmpl, kube_json_path_str(tmpl, "metadata", "namespace", NULL), 0};
    if (!x.ns)
        return 1;
    kube_informer_foreach(&c->user_policies, contest_one, &x);
    x.ns = NULL;
    if (!x.hit)
        kube_informer_foreach(&c->cluster_policies, contest_one, &x);
    return x.hit;
}

void ctl__policy_memo(struct ctl *c, struct binding *b)
{
    int skip;
    int64_t rv;
    json_object_put(policy_now(c, b, &skip, &rv));
    policy_skipped(c, b, 1, rv);
}

static enum step_sent send_policy(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    (void)x;
    int skip;
    int64_t rv;
    json_object *op = policy_now(c, b, &skip, &rv);
    if (!op) {
        b->step_failed = 1;
        return STEP_SENT;
    }
    char pp[KUBE_MAX_URL_BYTES / 4], one[KUBE_MAX_URL_BYTES / 4];
    policy_path(b, 0, pp, sizeof pp);
    policy_path(b, 1, one, sizeof one);
    send_req_ex(c, b, KUBE_CREATE, pp, NULL, op, 0, 0, one);
    return STEP_SENT;
}

void ctl__policy_follow(struct ctl *c, struct binding *b, int startup)
{
    /* a gang that has its policy keeps it: one deleted by hand is the opfault case, rolled back
     * through its PodGroups (docs/testing.md); start-up cannot tell, and judges every one */
    if ((!startup && !ctl__act(b)->no_policy) || (b->st != B_DISPATCHED && b->st != B_RUNNING) ||
        !b->assign || !b->needs_objects || b->step != S_NONE || b->inflight || b->lw_pending ||
        b->gone || b->nshares == 0 || b->nshares > 256 || ctl__policy_listed(c, b))
        return;
    /* each version of the template is judged once (the informer may not show a policy just
     * made yet) */
    int64_t seen = template_rv(ctl__template_of(c, ctl__rb(c, b)));
    if (seen && ctl__act(b)->policy_rv == seen)
        return;
    int skip;
    int64_t rv;
    json_object_put(policy_now(c, b, &skip, &rv));
    struct ctl_act *a = ctl__act_w(c, b);
    a->policy_rv = rv;
    a->no_policy = (uint8_t)skip;
    if (skip)
        return;
    b->step = S_POLICY;
    ctl__step_run(c, b);
}

static enum step_sent send_objects(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    struct karmada_gang_share gs[256];
    struct karmada_gang_input in;
    ctl__fill_gang_input(c, b, &in, gs);
    /* The policy first: created once per RB and kept (docs/gangobj.md). One that exists
     * is merge-patched with this body: a no-op when it is the same (no new generation, so
     * Karmada renders nothing again), a correction when an older musterd wrote it per
     * cluster (its rules would miss a cluster of this placement). None when the template
     * already says what it would. */
    int skip = 0;
    int64_t rv = 0;
    /* judged on the input just filled: one read of the workload for the step */
    json_object *op = b->nshares && b->nshares <= 256 ? policy_judge(c, b, &in, &skip, &rv) : NULL;
    policy_skipped(c, b, skip, rv);
    if (skip) {
        json_object_put(op);
        op = NULL;
    }
    if (!op && (in.split || b->split_pods))
        b->step_failed = 1; /* a split's counts are in its policy: never go on without it (nor
                             * without its cells: every cluster would run the whole template) */
    if (op) {
        char pp[KUBE_MAX_URL_BYTES / 4], one[KUBE_MAX_URL_BYTES / 4];
        policy_path(b, 0, pp, sizeof pp);
        policy_path(b, 1, one, sizeof one);
        send_req_ex(c, b, KUBE_CREATE, pp, NULL, op, 0, 0, one);
    }
    for (uint32_t i = 0; i < b->nshares; i++) {
        char wp[KUBE_MAX_URL_BYTES / 4], one[KUBE_MAX_URL_BYTES / 4];
        if (!karmada_gang_share_has_work(&in, i))
            continue; /* YuniKorn or none: the policy alone carries the gang */
        work_path(b->shares[i].cluster, NULL, wp, sizeof wp);
        work_path(b->shares[i].cluster, x->wname, one, sizeof one);
        send_req_ex(c, b, KUBE_CREATE, wp, NULL, karmada_gang_podgroup_work(&in, i), 0, 0, one);
    }
    /* a pod group's other RBs: each its own policy, naming the lead's PodGroup */
    struct binding **rbs;
    uint32_t nrbs = ctl__pg_rbs(b, &rbs);
    for (uint32_t r = 0; r < nrbs; r++) {
        if (rbs[r] == b)
            continue;
        fill_member_input(c, b, rbs[r], &in, gs);
        json_object *mp = karmada_gang_override_policy(&in);
        if (!mp) {
            b->step_failed = 1;
            continue;
        }
        char pp[KUBE_MAX_URL_BYTES / 4], one[KUBE_MAX_URL_BYTES / 4];
        policy_path(rbs[r], 0, pp, sizeof pp);
        policy_path(rbs[r], 1, one, sizeof one);
        send_req_ex(c, b, KUBE_CREATE, pp, NULL, mp, 0, 0, one);
    }
    return STEP_SENT;
}

static enum step_sent send_applied(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    /* Nothing to send: the Works' watch events run this again (work_changed). */
    if (works_applied(c, b))
        step_done(c, b);
    return STEP_HANDLED;
}

/* What the placement patch reads of a gang input (karmada_patch_assign: the RB and the
 * shares): the workload is not read again for it, once per dispatch less (issue 22's CPU). */
static void assign_input(struct ctl *c, struct binding *b, struct karmada_gang_input *in,
                         struct karmada_gang_share *gs)
{
    for (uint32_t i = 0; i < b->nshares && i < 256; i++)
        gs[i] = (struct karmada_gang_share){b->shares[i].cluster, b->shares[i].replicas};
    *in = (struct karmada_gang_input){.rb = ctl__rb(c, b), .shares = gs, .nshares = b->nshares};
}

static enum step_sent send_assign(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    struct karmada_gang_share gs[256];
    struct karmada_gang_input in;
    json_object *body = NULL;
    struct binding **rbs0;
    if (b->pg_folded)
        fill_member_input(c, b, b, &in, gs); /* a pod group's lead: its own RB, its own pods */
    else if (ctl__pg_rbs(b, &rbs0) <= 1)
        assign_input(c, b, &in, gs);
    else
        ctl__fill_gang_input(c, b, &in, gs);
    /* S_ASSIGN_LIFT: one patch, placement and the suspension lifted together (nothing else to
     * create, so no barrier is needed) */
    if (b->step == S_ASSIGN_LIFT)
        karmada_patch_assign_lift(&in, &body);
    else
        karmada_patch_assign(&in, 1, &body);
    send_req_ex(c, b, KUBE_MERGE_PATCH, x->path, NULL, body, 0, b->step == S_ASSIGN_LIFT, NULL);
    struct binding **rbs;
    uint32_t nrbs = ctl__pg_rbs(b, &rbs);
    for (uint32_t r = 0; r < nrbs; r++) {
        char mp[KUBE_MAX_URL_BYTES / 4];
        if (rbs[r] == b)
            continue;
        fill_member_input(c, b, rbs[r], &in, gs);
        body = NULL;
        if (b->step == S_ASSIGN_LIFT)
            karmada_patch_assign_lift(&in, &body);
        else
            karmada_patch_assign(&in, 1, &body);
        rb_path(rbs[r], mp, sizeof mp);
        send_req(c, b, KUBE_MERGE_PATCH, mp, NULL, body, 0);
    }
    return STEP_SENT;
}

static enum step_sent send_barrier(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    /* The Works Karmada rendered for the RB carry its permanent id (its webhook and
     * binding controller); muster's own carry none. They live in each share's execution
     * namespace (names.GenerateExecutionSpaceName): one list per share there, so the
     * apiserver reads that member's Works only, not every Work of the hub (a label selector
     * is not indexed; docs/dispatcher.md, "The barrier's lists"). */
    char wp[KUBE_MAX_URL_BYTES / 4], sel[KARMADA_WORKLOAD_LABEL_VALUE_MAX + 64];
    char pb[CTL_UID_MAX];
    karmada_path_works_selector(sel, sizeof sel, ctl__pid(b, pb));
    struct binding **rbs;
    uint32_t nrbs = ctl__pg_rbs(b, &rbs);
    char gsel[4096];
    if (nrbs > 1) {
        /* a pod group: the Works of every member's RB, in one list */
        size_t at =
            (size_t)snprintf(gsel, sizeof gsel, "%s in (", KARMADA_WORKLOAD_PERMANENT_ID_LABEL);
        for (uint32_t r = 0; r < nrbs && at < sizeof gsel; r++)
            at += (size_t)snprintf(gsel + at, sizeof gsel - at, "%s%s", r ? "," : "",
                                   ctl__pid(rbs[r], pb));
        if (at + 2 >= sizeof gsel) {
            b->step_failed = 1;
            return STEP_SENT;
        }
        snprintf(gsel + at, sizeof gsel - at, ")");
    }
    ctl__reply_drop(b); /* the lists' items are gathered here (ctl__on_response) */
    if (b->nshares == 0)
        b->step_failed = 1; /* nothing placed: nothing to judge */
    for (uint32_t i = 0; i < b->nshares && !b->step_failed; i++) {
        struct request_ctx *rq = muster_calloc(1, sizeof(*rq));
        if (!rq) {
            b->step_failed = 1;
            break;
        }
        *rq = (struct request_ctx){c, b, b->step, 0, 0, KUBE_LIST, 1, NULL, NULL};
        work_path(b->shares[i].cluster, NULL, wp, sizeof wp);
        struct kube_request req = {
            .verb = KUBE_LIST, .path = wp, .label_selector = nrbs > 1 ? gsel : sel};
        b->inflight++;
        if (kube_request(c->kube, &req, ctl__on_response, rq)) {
            b->inflight--;
            muster_free(rq);
            b->step_failed = 1;
        }
    }
    return STEP_SENT;
}

/* What spec.suspension.dispatching goes back to at the lift or an undo: the user's value
 * when muster set the barrier itself, else left as it is. */
static enum karmada_dispatching dispatching_restored(const struct binding *b)
{
    return b->barrier ? karmada_dispatching_from(b->user_dispatching) : KARMADA_DISPATCHING_KEEP;
}

static enum step_sent send_lift(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    json_object *body = NULL;
    karmada_patch_release(dispatching_restored(b), &body);
    send_req_ex(c, b, KUBE_MERGE_PATCH, x->path, NULL, body, 0, 1, NULL);
    struct binding **rbs; /* a pod group's RBs are lifted together, after the one barrier */
    uint32_t nrbs = ctl__pg_rbs(b, &rbs);
    for (uint32_t r = 0; r < nrbs; r++) {
        char mp[KUBE_MAX_URL_BYTES / 4];
        if (rbs[r] == b)
            continue;
        body = NULL;
        karmada_patch_release(dispatching_restored(rbs[r]), &body);
        rb_path(rbs[r], mp, sizeof mp);
        send_req(c, b, KUBE_MERGE_PATCH, mp, NULL, body, 0);
    }
    return STEP_SENT;
}

static enum step_sent send_status_read(struct ctl *c, struct binding *b, const struct step_ctx *x);

/* rb's status lists a condition of this type. */
static int has_condition(json_object *rb, const char *type)
{
    json_object *conds = kube_json_path(rb, "status", "conditions", NULL);
    size_t n = json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = kube_json_str(json_object_array_get_idx(conds, i), "type");
        if (t && strcmp(t, type) == 0)
            return 1;
    }
    return 0;
}

static enum step_sent send_status(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    if (b->side_inflight) {
        /* A waiting condition (Scheduled=False) still on its way (the client retries a
         * 429 after a second) would land after this one and undo it: wait for it. */
        b->step_failed = 1;
        return STEP_SENT;
    }
    char ts[32];
    rfc3339(now_ms(c), ts, sizeof ts);
    /* From the newest read of the RB: the answer to muster's last patch or a fresh get,
     * unless the watch has brought a newer one since. */
    json_object *from = ctl__rb(c, b);
    const struct ctl_act *a = ctl__act(b);
    const char *frv = kube_json_str(kube_json_get(a->fresh, "metadata"), "resourceVersion");
    const char *crv = kube_json_str(kube_json_get(ctl__rb(c, b), "metadata"), "resourceVersion");
    if (frv && (!crv || strtoll(frv, NULL, 10) > strtoll(crv, NULL, 10)))
        from = a->fresh;
    /* The JSON patch appends Scheduled when the read shows none: only muster writes it on its
     * RBs, so the read must show every condition write of muster's acknowledged so far (one
     * acknowledged after the request this read answers was sent may not be in it, nor in an
     * older watch event): else read first. */
    if (!has_condition(from, "Scheduled") && b->cond_acked != (a->fresh ? a->fresh_acked : 0)) {
        b->step = S_STATUS_READ;
        return send_status_read(c, b, x);
    }
    /* Placed and lifted in one patch over PodGroup Works (a template naming its PodGroup), the
     * RB has no status yet, and Karmada's first aggregation (FullyApplied, aggregatedStatus)
     * follows as soon as the Works apply: a patch made now would test for no status and meet
     * it (422, a read, the patch again). Once, the write waits one back-off for the watch to
     * bring it. Behind the barrier the held Works were aggregated before the lift. */
    if (b->needs_objects && !kube_json_get(from, "status") && !ctl__act(b)->status_waited) {
        ctl__act_w(c, b)->status_waited = 1;
        b->step_failed = 1;
        return STEP_SENT;
    }
    json_object *body = NULL;
    {
        /* a JobSet at fewer Jobs says which run and why the rest never does (issue 20); written
         * as text: the bytes the operations' tree printed as (JSON patch: slashes unescaped, as
         * send_req_ex prints it), without building it (issue 22) */
        char fewer[256] = "";
        ctl__jobset_min_sentence(b, fewer, sizeof fewer);
        char stack[2048];
        struct kube_jw w;
        kube_jw_init(&w, stack, sizeof stack, 0);
        int bad = karmada_patch_status_scheduled_ops_write(from, ts, fewer, &w) != 0 || w.bad;
        send_req_text(c, b, KUBE_JSON_PATCH, x->path, KARMADA_PATH_RB_STATUS, bad ? NULL : w.buf,
                      bad, 0, 0, NULL);
        kube_jw_free(&w);
    }
    struct binding **rbs;
    uint32_t nrbs = ctl__pg_rbs(b, &rbs);
    for (uint32_t r = 0; r < nrbs; r++) {
        char mp[KUBE_MAX_URL_BYTES / 4];
        if (rbs[r] == b || rbs[r]->gone)
            continue;
        body = NULL;
        rb_path(rbs[r], mp, sizeof mp);
        /* A member's read comes from the watch only: when it shows no Scheduled though one of
         * muster's condition writes to it was acknowledged, it may predate that write, so the
         * member gets the merge patch conditional on its resourceVersion (a 409 instead of a
         * second Scheduled condition). A member's 409 or 422 is met again by the whole step
         * after the lead's read. */
        if (!has_condition(rbs[r]->rb, "Scheduled") && rbs[r]->cond_acked) {
            karmada_patch_status_scheduled(rbs[r]->rb, ts, &body);
            send_req(c, b, KUBE_MERGE_PATCH, mp, KARMADA_PATH_RB_STATUS, body, MUSTER_ENOENT);
            continue;
        }
        karmada_patch_status_scheduled_ops(rbs[r]->rb, ts, &body);
        send_req(c, b, KUBE_JSON_PATCH, mp, KARMADA_PATH_RB_STATUS, body, MUSTER_ENOENT);
    }
    return STEP_SENT;
}

static enum step_sent send_status_read(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    send_req_ex(c, b, KUBE_GET, x->path, NULL, NULL, 0, 1, NULL);
    return STEP_SENT;
}

static enum step_sent send_resume(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    json_object *body = NULL;
    karmada_patch_resume(&body);
    send_req(c, b, KUBE_MERGE_PATCH, x->path, NULL, body, 0);
    return STEP_SENT;
}

static enum step_sent send_undo_barrier(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    json_object *body = NULL;
    karmada_patch_rollback_barrier(&body);
    send_req(c, b, KUBE_MERGE_PATCH, x->path, NULL, body, 0);
    struct binding **rbs;
    uint32_t nrbs = ctl__pg_rbs(b, &rbs);
    for (uint32_t r = 0; r < nrbs; r++) {
        char mp[KUBE_MAX_URL_BYTES / 4];
        if (rbs[r] == b || rbs[r]->gone)
            continue;
        body = NULL;
        karmada_patch_rollback_barrier(&body);
        rb_path(rbs[r], mp, sizeof mp);
        send_req(c, b, KUBE_MERGE_PATCH, mp, NULL, body, MUSTER_ENOENT);
    }
    return STEP_SENT;
}

static enum step_sent send_undo_clear(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    json_object *body = NULL;
    if (b->assign)
        karmada_patch_rollback_clear(dispatching_restored(b), &body);
    else if (karmada_patch_hold(ctl__rb(c, b), &body) || !body) {
        step_done(c, b);
        return STEP_HANDLED;
    }
    send_req(c, b, KUBE_MERGE_PATCH, x->path, NULL, body, 0);
    struct binding **rbs;
    uint32_t nrbs = ctl__pg_rbs(b, &rbs);
    for (uint32_t r = 0; r < nrbs; r++) {
        char mp[KUBE_MAX_URL_BYTES / 4];
        if (rbs[r] == b || rbs[r]->gone)
            continue;
        body = NULL;
        karmada_patch_rollback_clear(dispatching_restored(rbs[r]), &body);
        rb_path(rbs[r], mp, sizeof mp);
        send_req(c, b, KUBE_MERGE_PATCH, mp, NULL, body, MUSTER_ENOENT);
    }
    return STEP_SENT;
}

/* muster's Works in every cluster it placed in, and in any the hub lists (an adopted or
 * half-undone dispatch); 404 counts as done. The OverridePolicy stays. */
static enum step_sent send_delete_works(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    for (uint32_t i = 0; i < b->nshares; i++) {
        char wp[KUBE_MAX_URL_BYTES / 4];
        work_path(b->shares[i].cluster, x->wname, wp, sizeof wp);
        send_req(c, b, KUBE_DELETE, wp, NULL, NULL, MUSTER_ENOENT);
    }
    json_object *cl = kube_json_path(ctl__rb(c, b), "spec", "clusters", NULL);
    for (size_t i = 0; cl && i < json_object_array_length(cl); i++) {
        const char *cn = kube_json_str(json_object_array_get_idx(cl, i), "name");
        int mine = 0;
        for (uint32_t j = 0; cn && j < b->nshares; j++)
            mine |= strcmp(b->shares[j].cluster, cn) == 0;
        if (!cn || mine || strlen(cn) >= CTL_CLUSTER_NAME_MAX)
            continue;
        char wp[KUBE_MAX_URL_BYTES / 4];
        work_path(cn, x->wname, wp, sizeof wp);
        send_req(c, b, KUBE_DELETE, wp, NULL, NULL, MUSTER_ENOENT);
    }
    return STEP_SENT;
}

/* A shrunk gang's PodGroup Works, one per kept share, merge-patched with the Work its new share
 * builds (minMember and minResources follow; a merge patch replaces the manifests array
 * whole). 404 counts as done: a Work that is gone has nothing to shrink. */
static enum step_sent send_resize_works(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    struct karmada_gang_share gs[256];
    struct karmada_gang_input in;
    ctl__fill_gang_input(c, b, &in, gs);
    for (uint32_t i = 0; i < b->nshares; i++) {
        char wp[KUBE_MAX_URL_BYTES / 4];
        if (!karmada_gang_share_has_work(&in, i))
            continue;
        work_path(b->shares[i].cluster, x->wname, wp, sizeof wp);
        send_req(c, b, KUBE_MERGE_PATCH, wp, NULL, karmada_gang_podgroup_work(&in, i),
                 MUSTER_ENOENT);
    }
    return STEP_SENT;
}

/* spec.clusters and the applied-placement annotation rewritten with the new shares, without
 * the barrier (the shares run): Karmada renders each member's replicas from spec.clusters. The
 * answer's resourceVersion tells later RB events from older ones (resize_rv). */
static enum step_sent send_resize_clusters(struct ctl *c, struct binding *b,
                                           const struct step_ctx *x)
{
    struct karmada_gang_share gs[256];
    struct karmada_gang_input in;
    json_object *body = NULL;
    ctl__fill_gang_input(c, b, &in, gs);
    karmada_patch_assign(&in, 0, &body);
    send_req_ex(c, b, KUBE_MERGE_PATCH, x->path, NULL, body, 0, 1, NULL);
    return STEP_SENT;
}

/* The PodGroup Works of the clusters the gang left, once spec.clusters no longer lists them
 * (Karmada deletes the member's pods there first); 404 counts as done. */
static enum step_sent send_resize_drop(struct ctl *c, struct binding *b, const struct step_ctx *x)
{
    for (uint32_t i = 0; i < ctl__act(b)->ndropped; i++) {
        char wp[KUBE_MAX_URL_BYTES / 4];
        work_path(ctl__act(b)->dropped[i], x->wname, wp, sizeof wp);
        send_req(c, b, KUBE_DELETE, wp, NULL, NULL, MUSTER_ENOENT);
    }
    return STEP_SENT;
}

/* Each step: its sender, the crash point (crashpoint.h) passed when every request of the step
 * is acknowledged, and the one passed at each acknowledgement of a step that sends several
 * while others are still out (some PodGroup Works made, others not). The names are listed in
 * docs/dispatcher.md. The barrier check passes its point only when it lets the lift go
 * (barrier_judged): a check that lists the Works again is no boundary. */
static const struct step_def {
    enum step_sent (*send)(struct ctl *c, struct binding *b, const struct step_ctx *x);
    const char *crash_done, *crash_one;
} steps[] = {
    [S_NONE] = {NULL, NULL, NULL},
    [S_OBJECTS] = {send_objects, "dispatch.objects", "dispatch.objects.one"},
    [S_APPLIED] = {send_applied, "dispatch.applied", NULL},
    [S_ASSIGN] = {send_assign, "dispatch.assign", NULL},
    [S_BARRIER] = {send_barrier, NULL, NULL},
    [S_LIFT] = {send_lift, "dispatch.lift", NULL},
    [S_ASSIGN_LIFT] = {send_assign, "dispatch.assign-lift", NULL},
    [S_STATUS] = {send_status, "dispatch.status", NULL},
    [S_STATUS_READ] = {send_status_read, NULL, NULL},
    [S_RESUME] = {send_resume, "dispatch.resume", NULL},
    [S_U_BARRIER] = {send_undo_barrier, "rollback.barrier", NULL},
    [S_U_CLEAR] = {send_undo_clear, "rollback.clear", NULL},
    [S_U_DELETE] = {send_delete_works, "rollback.objects", "rollback.objects.one"},
    [S_R_WORKS] = {send_delete_works, "release.objects", NULL},
    [S_HOLD] = {send_hold, "hold", NULL},
    [S_RESIZE_WORKS] = {send_resize_works, "resize.works", NULL},
    [S_RESIZE_CLUSTERS] = {send_resize_clusters, "resize.clusters", NULL},
    [S_RESIZE_DROP] = {send_resize_drop, "resize.drop", NULL},
    [S_POLICY] = {send_policy, NULL, NULL},
};

static const char *step_crash_one(enum step st)
{
    return steps[st].crash_one;
}

/* Sends b's current step. */
void ctl__step_run(struct ctl *c, struct binding *b)
{
    if (!ctl__leads(c) || c->stopping)
        return;
    if (b->st == B_DONE && forward_step(b))
        b->step = ctl__step_released(b);
    if (b->step == S_NONE)
        return;
    struct step_ctx x;
    char ns[256];
    const char *name;
    ctl__split_key(b->key, ns, sizeof ns, &name);
    rb_path(b, x.path, sizeof x.path);
    karmada_gang_work_name(ns, name, x.wname, sizeof x.wname);
    b->step_failed = 0;
    if (steps[b->step].send(c, b, &x) == STEP_HANDLED)
        return;
    if (b->inflight == 0) {
        /* nothing could be sent (out of memory) or nothing was needed */
        if (b->step_failed)
            retry_later(c, b);
        else
            step_done(c, b);
    }
}

/* Where a forward step goes once its binding is released: to deleting the Works it made, or
 * nowhere. */
enum step ctl__step_released(const struct binding *b)
{
    return b->needs_objects && b->assign ? S_R_WORKS : S_NONE;
}

/* The step after b's current one is acknowledged. The barrier check's answer decides its own
 * next step (barrier_judged), except for a binding released meanwhile. */
enum step ctl__step_next(const struct binding *b)
{
    switch (b->step) {
    case S_OBJECTS:
        return b->st == B_DONE ? ctl__step_released(b) : S_APPLIED;
    case S_APPLIED:
        return b->st == B_DONE ? ctl__step_released(b) : S_ASSIGN;
    case S_ASSIGN:
        return b->st == B_DONE ? ctl__step_released(b) : S_BARRIER;
    case S_BARRIER:
        return b->st == B_DONE ? ctl__step_released(b) : S_LIFT;
    case S_LIFT:
    case S_ASSIGN_LIFT:
    case S_STATUS_READ:
        return S_STATUS;
    case S_U_BARRIER:
        return S_U_CLEAR;
    case S_U_CLEAR:
        /* Last, muster's own Works: Karmada deletes their member PodGroups through the
         * finalizer. Without them there is nothing of muster's to delete. */
        return b->assign && b->needs_objects ? S_U_DELETE : S_NONE;
    case S_STATUS:
        /* released while the forward steps finished: its Works go */
        return b->st == B_DONE ? ctl__step_released(b) : S_NONE;
    case S_RESIZE_WORKS:
        /* the PodGroups first: a member never runs fewer pods than its PodGroup's minMember */
        return b->st == B_DONE ? ctl__step_released(b) : S_RESIZE_CLUSTERS;
    case S_RESIZE_CLUSTERS:
        if (b->st == B_DONE)
            return ctl__step_released(b);
        return ctl__act(b)->ndropped && b->needs_objects ? S_RESIZE_DROP : S_NONE;
    case S_RESIZE_DROP:
        return b->st == B_DONE ? ctl__step_released(b) : S_NONE;
    case S_POLICY:
        return b->st == B_DONE ? ctl__step_released(b) : S_NONE;
    case S_RESUME:
    case S_U_DELETE:
    case S_HOLD:
    case S_R_WORKS:
    case S_NONE:
        break;
    }
    return S_NONE;
}

enum step ctl__assign_step(struct ctl *c, struct binding *b)
{
    /* The policy was made at step 2: the barrier proves it rendered, whatever the template
     * says now (and no second read of the workload is spent on the common case). */
    if (!ctl__act(b)->no_policy)
        return S_ASSIGN;
    int skip;
    int64_t rv;
    json_object_put(policy_now(c, b, &skip, &rv));
    if (skip && rv == ctl__act(b)->policy_rv)
        return S_ASSIGN_LIFT;
    /* the template changed since step 2 (or something now stands in the way): step 2 again,
     * which judges the template as it is now */
    policy_skipped(c, b, 0, 0);
    return S_OBJECTS;
}

/* The first step of b's dispatch, by mode and kind. */
enum step ctl__forward_first(const struct binding *b)
{
    if (!b->assign)
        return S_RESUME;
    return b->needs_objects ? S_OBJECTS : S_ASSIGN_LIFT;
}

/* The first step of undoing b's dispatch: the barrier first while the hub may carry any of
 * its placement, only the Works' deletes when nothing was placed, and for a gang without
 * Works the one patch that clears it. */
enum step ctl__undo_first(struct ctl *c, const struct binding *b)
{
    if (b->assign && b->needs_objects && (b->nshares || ctl__rb_nclusters(ctl__rb_of(c, b))))
        return S_U_BARRIER;
    if (b->assign && b->needs_objects)
        return S_U_DELETE;
    return S_U_CLEAR;
}

void ctl__undo_start(struct ctl *c, struct binding *b)
{
    ctl__set_state(c, b, B_UNDO);
    b->step = ctl__undo_first(c, b);
    ctl__step_run(c, b);
}

/* The undo's last request is acknowledged (the Works' deletes, after the clear; the clear
 * itself for a gang without Works). The binding waits again only once the RB watch shows the
 * clear too: until then the cached RB may be the one from before it, with muster's own
 * dispatching barrier, and the next admission would record that as the user's value and
 * restore it at the lift (an RB released with the barrier still on). binding_react comes back
 * here when the event arrives. */
void ctl__undo_finish(struct ctl *c, struct binding *b)
{
    if (b->assign && ctl__rb_nclusters(ctl__rb(c, b)) > 0)
        return;
    ctl__engine_add(c, b);
}

void ctl__mark_dispatched(struct ctl *c, struct binding *b)
{
    int64_t now = now_ms(c);
    ctl__act_w(c, b)->dispatched_at = now;
    ctl__set_state(c, b, B_DISPATCHED);
    ctl__grow_queued(c, b); /* a partial admission's rest, on its row since the admission */
    struct lwrite *w = ctl__lw_add(c, b, LW_DISPATCHED, "dispatched");
    if (!w) {
        ctl__fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    w->row.dispatched_at = now;
    ctl__pg_mirror(c, b, B_DISPATCHED, "dispatched", "dispatched as one gang");
    c->st.dispatched++;
    if (c->opt.metrics)
        disp_metrics_dispatch_latency(c->opt.metrics,
                                      (double)(now - ctl__act(b)->admitted_at) / 1000.0);
    if (c->opt.events)
        disp_events_record_dispatch(c->opt.events, now, (double)(now - ctl__act(b)->admitted_at));
    ctl__publish_binding(c, b, "dispatched", "");
}

/* The rendered Works, as the barrier check listed them: lift, check again, or roll back. */
/* One RB's rendered Works among items (all of them for a plain gang; a pod group's list holds
 * every member's, told apart by the permanent-id label). */
static enum karmada_gang_rendered rb_rendered(struct ctl *c, const struct binding *lead,
                                              const struct binding *m, json_object *items,
                                              char *why, size_t cap)
{
    char ns[256], pname[KARMADA_GANG_NAME_MAX + 1];
    const char *name;
    ctl__split_key(m->key, ns, sizeof ns, &name);
    karmada_gang_policy_name(name, pname, sizeof pname);
    struct karmada_gang_share gs[256];
    enum karmada_gang_dialect ds[256];
    if (!lead->pg_folded) {
        for (uint32_t i = 0; i < lead->nshares; i++) {
            gs[i] = (struct karmada_gang_share){lead->shares[i].cluster, lead->shares[i].replicas};
            ds[i] = ctl__cluster_dialect(c, lead->shares[i].cluster, NULL);
        }
        /* a split's every cluster has a rule, a member of dialect none included (its count):
         * no Work of it may go out before it names the policy (gang_split.h) */
        if (lead->split_pods)
            return karmada_gang_rendered_judge(items, gs, lead->nshares, pname, why, cap);
        return karmada_gang_rendered_judge_dialects(items, gs, ds, lead->nshares, pname, why, cap);
    }
    json_object *mine = json_object_new_array();
    for (size_t i = 0; mine && i < json_object_array_length(items); i++) {
        json_object *it = json_object_array_get_idx(items, i);
        const char *pid =
            kube_json_path_str(it, "metadata", "labels", KARMADA_WORKLOAD_PERMANENT_ID_LABEL, NULL);
        char pb[CTL_UID_MAX];
        if (pid && strcmp(pid, ctl__pid(m, pb)) == 0)
            json_object_array_add(mine, json_object_get(it));
    }
    gs[0] = (struct karmada_gang_share){lead->nshares ? lead->shares[0].cluster : "",
                                        m == lead ? lead->pg_own_replicas : m->replicas};
    ds[0] = ctl__cluster_dialect(c, gs[0].cluster, NULL);
    enum karmada_gang_rendered r =
        mine ? karmada_gang_rendered_judge_dialects(mine, gs, ds, 1, pname, why, cap)
             : KARMADA_GANG_RENDERED_WAIT;
    json_object_put(mine);
    return r;
}

/* The rendered Works, as the barrier check listed them: lift, check again, or roll back. */
static void barrier_judged(struct ctl *c, struct binding *b)
{
    char why[200] = "";
    json_object *items = kube_json_get(ctl__act(b)->reply, "items");
    struct binding **rbs;
    uint32_t nrbs = ctl__pg_rbs(b, &rbs);
    enum karmada_gang_rendered r = KARMADA_GANG_RENDERED_READY;
    /* every RB of a pod group must be ready before any is lifted; one vanished rolls all back */
    for (uint32_t k = 0; k < nrbs && r != KARMADA_GANG_RENDERED_VANISHED; k++) {
        if (rbs[k]->gone)
            continue;
        enum karmada_gang_rendered one = rb_rendered(c, b, rbs[k], items, why, sizeof why);
        if (one == KARMADA_GANG_RENDERED_VANISHED ||
            ((one == KARMADA_GANG_RENDERED_WAIT || one == KARMADA_GANG_RENDERED_MISSING) &&
             r != KARMADA_GANG_RENDERED_WAIT))
            r = one;
        else if (r == KARMADA_GANG_RENDERED_READY && one == KARMADA_GANG_RENDERED_OPEN)
            r = one;
    }
    ctl__reply_drop(b);
    switch (r) {
    case KARMADA_GANG_RENDERED_READY:
    case KARMADA_GANG_RENDERED_OPEN:
        disp_crashpoint("dispatch.barrier"); /* judged: the lift is next */
        if (b->act)
            b->act->recheck_ms = 0;
        b->step = S_LIFT;
        ctl__step_run(c, b);
        return;
    case KARMADA_GANG_RENDERED_VANISHED: {
        char msg[256];
        snprintf(msg, sizeof msg, "the dispatching barrier vanished before the lift (%s)", why);
        b->step = S_NONE;
        ctl__rollback(c, b, msg);
        return;
    }
    case KARMADA_GANG_RENDERED_WAIT:
    case KARMADA_GANG_RENDERED_MISSING:
        recheck_later(c, b);
        return;
    }
}

static void keep_fresh(struct binding *b)
{
    struct ctl_act *a = b->act;
    if (!a)
        return; /* no answer to keep, and none kept: all of it reads as zero already */
    json_object_put(a->fresh);
    a->fresh = a->reply;
    a->fresh_acked = a->reply_acked;
    a->reply = NULL;
}

/* Every request of b's step is acknowledged: act on what it did, then run the next step. */
static void step_done(struct ctl *c, struct binding *b)
{
    enum step done = b->step;
    disp_crashpoint(steps[done].crash_done);
    if (done == S_BARRIER && b->st != B_DONE) {
        barrier_judged(c, b);
        return;
    }
    if (done == S_LIFT || done == S_ASSIGN_LIFT || done == S_STATUS_READ)
        keep_fresh(b); /* the RB as the lift left it: the status patch is built from it */
    if (done == S_LIFT || done == S_ASSIGN_LIFT || done == S_RESUME)
        ctl__mark_dispatched(c, b);
    if (done == S_STATUS && b->act) {
        b->act->status_waited = 0;
        json_object_put(b->act->fresh);
        b->act->fresh = NULL;
        b->act->status_reread = 0;
    }
    if (done == S_STATUS_READ)
        ctl__act_w(c, b)->status_reread = 1;
    if (done == S_RESIZE_CLUSTERS) {
        const char *rv =
            kube_json_str(kube_json_get(ctl__act(b)->reply, "metadata"), "resourceVersion");
        ctl__act_w(c, b)->resize_rv = rv ? strtoll(rv, NULL, 10) : 0;
        ctl__reply_drop(b);
    }
    if (done == S_RESIZE_DROP)
        if (b->act)
            b->act->ndropped = 0;
    b->step = ctl__step_next(b);
    if (b->step == S_ASSIGN && done == S_APPLIED)
        b->step = ctl__assign_step(c, b);
    if (b->step == S_NONE && ctl__act(b)->resize_owed &&
        (b->st == B_DISPATCHED || b->st == B_RUNNING)) {
        ctl__resize_resume(c, b); /* a shrink committed while the step was out */
        return;
    }
    if (ctl__reread_owed(b)) {
        ctl__binding_react(c, b, 0); /* the RB changed while the step was out */
        return;
    }
    if (b->step == S_NONE && (b->st == B_DISPATCHED || b->st == B_RUNNING)) {
        ctl__policy_follow(c, b, 0); /* a template event while the step was out */
        if (b->step != S_NONE)
            return;
    }
    if ((done == S_U_CLEAR || done == S_U_DELETE) && b->step == S_NONE) {
        b->nshares = 0;
        if (b->st == B_UNDO)
            ctl__undo_finish(c, b);
        return;
    }
    ctl__step_run(c, b);
}
