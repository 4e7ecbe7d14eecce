/* A binding's life before dispatch: the tables by key and template, reading the RB and its
 * template, queueing, the waiting reason, and the RB and template events. */
#include "dispatcher/controller/ctl_int.h"

#include "cluster-adapters/karmada/gang_split.h"
#include "cluster-adapters/karmada/workload_groups.h"
#include "cluster-adapters/kube/frozen.h"
#include "cluster-adapters/kube/jsonwrite.h"

const char *const ctl__state_names[] = {"waiting",  "parked",     "undoing", "backoff", "pending",
                                        "admitted", "dispatched", "running", "done"};

__attribute__((format(printf, 2, 3))) void ctl__logf(struct ctl *c, const char *fmt, ...)
{
    char ts[32];
    rfc3339(now_ms(c), ts, sizeof ts);
    fprintf(c->log, "%s musterd: ", ts);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->log, fmt, ap);
    va_end(ap);
    fputc('\n', c->log);
    fflush(c->log);
}

int ctl__tables_grow(struct ctl *c)
{
    size_t n = c->nbuckets ? c->nbuckets * 2 : 1024;
    struct binding **k = muster_calloc(n, sizeof(*k)), **t = muster_calloc(n, sizeof(*t));
    if (!k || !t) {
        muster_free(k);
        muster_free(t);
        return MUSTER_ENOMEM;
    }
    for (size_t i = 0; i < c->nbuckets; i++) {
        for (struct binding *b = c->bykey[i], *nx; b; b = nx) {
            nx = b->hnext;
            size_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, b->key) & (n - 1);
            b->hnext = k[h];
            k[h] = b;
        }
        for (struct binding *b = c->bytkey[i], *nx; b; b = nx) {
            nx = b->tnext;
            size_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, b->tkey) & (n - 1);
            b->tnext = t[h];
            t[h] = b;
        }
    }
    muster_free(c->bykey);
    muster_free(c->bytkey);
    c->bykey = k;
    c->bytkey = t;
    c->nbuckets = n;
    return 0;
}

struct binding *ctl__find_key(const struct ctl *c, const char *key)
{
    if (!c->nbuckets)
        return NULL;
    for (struct binding *b =
             c->bykey[queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, key) & (c->nbuckets - 1)];
         b; b = b->hnext)
        if (strcmp(b->key, key) == 0)
            return b;
    return NULL;
}

static struct binding *find_tkey(const struct ctl *c, const char *tkey)
{
    if (!c->nbuckets || !tkey[0])
        return NULL;
    for (struct binding *b =
             c->bytkey[queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, tkey) & (c->nbuckets - 1)];
         b; b = b->tnext)
        if (strcmp(b->tkey, tkey) == 0)
            return b;
    return NULL;
}

static void tkey_unlink(struct ctl *c, struct binding *b)
{
    if (!b->tkey[0])
        return;
    struct binding **p =
        &c->bytkey[queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, b->tkey) & (c->nbuckets - 1)];
    while (*p && *p != b)
        p = &(*p)->tnext;
    if (*p)
        *p = b->tnext;
    b->tnext = NULL;
}

char ctl__tkey_none[1];

/* The room ctl__binding_new left after b's key for its template key, or NULL. */
static char *tkey_room(struct binding *b)
{
    return b->tkey_room ? b->key + strlen(b->key) + 1 : NULL;
}

static void tkey_set(struct ctl *c, struct binding *b, const char *tkey)
{
    if (strcmp(b->tkey, tkey) == 0)
        return;
    tkey_unlink(c, b);
    size_t n = strlen(tkey);
    char *room = tkey_room(b);
    char *k = !n                          ? ctl__tkey_none
              : room && n < b->tkey_room ? room
                                         : muster_malloc(n + 1);
    if (b->tkey != ctl__tkey_none && b->tkey != room)
        muster_free(b->tkey);
    b->tkey =
        k ? k : ctl__tkey_none; /* out of memory: found by no template, as before it had one */
    if (b->tkey == ctl__tkey_none)
        return;
    memcpy(b->tkey, tkey, n + 1);
    size_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, b->tkey) & (c->nbuckets - 1);
    b->tnext = c->bytkey[h];
    c->bytkey[h] = b;
}

static void list_unlink(struct binding *b)
{
    if (!b->list)
        return;
    b->prev->next = b->next;
    b->next->prev = b->prev;
    b->prev = b->next = NULL;
    b->list = 0;
}

static void list_push(struct binding *head, struct binding *b, int which)
{
    list_unlink(b);
    b->prev = head->prev;
    b->next = head;
    head->prev->next = b;
    head->prev = b;
    b->list = which;
}

static void list_push_front(struct binding *head, struct binding *b, int which)
{
    list_unlink(b);
    b->next = head->next;
    b->prev = head;
    head->next->prev = b;
    head->next = b;
    b->list = which;
}

struct binding *ctl__binding_new(struct ctl *c, const char *key, size_t tkey_len)
{
    if ((c->nbindings + 1) * 2 > c->nbuckets * 3 && ctl__tables_grow(c))
        return NULL;
    size_t kl = strnlen(key, CTL_KEY_MAX - 1);
    size_t room = tkey_len && tkey_len < UINT8_MAX ? tkey_len + 1 : 0;
    struct binding *b = muster_calloc(1, sizeof(*b) + kl + 1 + room);
    if (!b)
        return NULL;
    b->key = (char *)(b + 1);
    memcpy(b->key, key, kl);
    b->tkey_room = (uint8_t)room;
    b->tkey = ctl__tkey_none;
    b->queue = "";
    size_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, key) & (c->nbuckets - 1);
    b->hnext = c->bykey[h];
    c->bykey[h] = b;
    c->nbindings++;
    return b;
}

void ctl__binding_clear_read(struct binding *b)
{
    for (uint32_t i = 0; i < b->ncomp; i++)
        queue_resvec_close(&b->comp[i].req);
    muster_free(b->comp);
    b->comp = NULL;
    queue_resvec_close(&b->gang);
    b->ncomp = 0;
}

static void msg_release(char *m);

/* b->msg holds the reason, then the message: "reason\0message\0". */
const char *ctl__binding_reason(const struct binding *b)
{
    return b->msg ? b->msg : "";
}

const char *ctl__binding_msg(const struct binding *b)
{
    return b->msg ? b->msg + strlen(b->msg) + 1 : "";
}

const struct ctl_act ctl__act_none;

struct ctl_act *ctl__act_w(struct ctl *c, struct binding *b)
{
    if (b->act)
        return b->act;
    b->act = muster_calloc(1, sizeof *b->act);
    if (b->act)
        return b->act;
    static struct ctl_act sink;
    ctl__fatal(c, "out of memory");
    memset(&sink, 0, sizeof sink);
    return &sink;
}

void ctl__act_set_mtopo(struct ctl *c, struct binding *b, const struct karmada_member_topo *t)
{
    if (b->act || t->share.tier || t->share.required || t->group.tier || t->group.required)
        ctl__act_w(c, b)->mtopo = *t;
}

void ctl__act_set_tree_placed(struct ctl *c, struct binding *b, int64_t pods)
{
    if (b->act || pods)
        ctl__act_w(c, b)->tree_placed = pods;
}

void ctl__act_set_nofit_unproven(struct ctl *c, struct binding *b, int unproven)
{
    if (b->act || unproven)
        ctl__act_w(c, b)->nofit_unproven = unproven;
}

void ctl__act_trim(struct binding *b)
{
    struct ctl_act *a = b->act;
    /* retry_at is read only while it is in the retry list (every entry sets it first) */
    if (!a || a->admitted_at || a->dispatched_at || a->retry_ms || (a->retry_at && b->in_retry) ||
        a->aseq || a->ndropped || a->resize_rv || a->preempted_at || a->rc_until || a->rc_wait ||
        a->rcm.searched || a->rcm.found_nothing || a->rcm.change_seq || a->recheck_ms ||
        a->resume || a->reread_due || a->resize_owed || a->reply || a->fresh || a->loss ||
        a->hubpg || a->tree_placed || a->mtopo.share.tier || a->mtopo.share.required ||
        a->mtopo.group.tier || a->mtopo.group.required || a->nofit_unproven || a->reply_acked ||
        a->fresh_acked || a->status_reread || a->rnext || a->no_policy || a->status_waited ||
        a->policy_rv)
        return;
    muster_free(a->dropped); /* none listed: the array is only kept for the next shrink */
    muster_free(a);
    b->act = NULL;
}

void ctl__byid_set(struct ctl *c, struct binding *b, int64_t id)
{
    if (b->ledger_id && b->ledger_id != id && queue_idmap_get(&c->byid, (uint64_t)b->ledger_id) == b)
        queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    b->ledger_id = id;
    /* as before: out of memory leaves it unfound by id, which reconcile and the flush survive */
    (void)queue_idmap_put(&c->byid, (uint64_t)id, b);
}

int ctl__uid_other(const struct binding *b, const char *uid)
{
    char ub[CTL_UID_MAX];
    return uid && ctl__uid(b, ub)[0] && strcmp(ub, uid) != 0;
}

/* Always the text in buf, so a caller may read buf or the answer alike. */
const char *ctl__uid(const struct binding *b, char buf[CTL_UID_MAX])
{
    if (b->ids_bin)
        kube_uuid_text(b->ids, buf);
    else
        snprintf(buf, CTL_UID_MAX, "%s", b->ids_text ? b->ids_text : "");
    return buf;
}

const char *ctl__pid(const struct binding *b, char buf[CTL_UID_MAX])
{
    if (b->ids_bin)
        kube_uuid_text(b->ids + 16, buf);
    else
        snprintf(buf, CTL_UID_MAX, "%s", b->ids_text ? b->ids_text + strlen(b->ids_text) + 1 : "");
    return buf;
}

int ctl__binding_set_ids(struct binding *b, const char *uid, const char *pid)
{
    char ub[CTL_UID_MAX], pb[CTL_UID_MAX];
    if (!uid)
        uid = "";
    /* as the arrays they were: at most CTL_UID_MAX - 1 characters each; copied, as uid or pid
     * may be the old ids about to be replaced */
    size_t ul = strnlen(uid, CTL_UID_MAX - 1);
    memcpy(ub, uid, ul);
    ub[ul] = '\0';
    const char *old_pid = ctl__pid(b, pb);
    if (!pid)
        pid = old_pid;
    size_t pl = strnlen(pid, CTL_UID_MAX - 1);
    memmove(pb, pid, pl);
    pb[pl] = '\0';
    uint8_t bin[32];
    if (kube_uuid_pack(ub, ul, bin) == 0 && kube_uuid_pack(pb, pl, bin + 16) == 0) {
        muster_free(b->ids_text);
        b->ids_text = NULL;
        memcpy(b->ids, bin, sizeof bin);
        b->ids_bin = 1;
        return 0;
    }
    char *m = ul + pl ? muster_malloc(ul + pl + 2) : NULL;
    if (m) {
        memcpy(m, ub, ul + 1);
        memcpy(m + ul + 1, pb, pl + 1);
    }
    muster_free(b->ids_text);
    b->ids_text = m;
    b->ids_bin = 0;
    return m || !(ul + pl) ? 0 : MUSTER_ENOMEM;
}

const char *ctl__queue_intern(struct ctl *c, const char *q)
{
    if (!q[0])
        return "";
    if ((c->qn.n + 1) * 2 > c->qn.cap) {
        uint32_t cap = c->qn.cap ? c->qn.cap * 2 : 64;
        char **v = muster_calloc(cap, sizeof *v);
        if (!v)
            return NULL;
        for (uint32_t i = 0; i < c->qn.cap; i++) {
            if (!c->qn.v[i])
                continue;
            uint64_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, c->qn.v[i]);
            while (v[h & (cap - 1)])
                h++;
            v[h & (cap - 1)] = c->qn.v[i];
        }
        muster_free(c->qn.v);
        c->qn.v = v;
        c->qn.cap = cap;
    }
    uint64_t h = queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, q);
    for (;; h++) {
        char *e = c->qn.v[h & (c->qn.cap - 1)];
        if (!e)
            break;
        if (strcmp(e, q) == 0)
            return e;
    }
    /* as the array it was: at most QUEUE_NAME_MAX characters */
    size_t n = strnlen(q, QUEUE_NAME_MAX);
    char *e = muster_malloc(n + 1);
    if (!e)
        return NULL;
    memcpy(e, q, n);
    e[n] = '\0';
    if (n < strlen(q)) { /* a longer name is kept cut, as it was: one copy of the cut name */
        const char *cut = ctl__queue_intern(c, e);
        muster_free(e);
        return cut;
    }
    c->qn.v[h & (c->qn.cap - 1)] = e;
    c->qn.n++;
    return e;
}

int ctl__binding_set_queue(struct ctl *c, struct binding *b, const char *q)
{
    const char *e = ctl__queue_intern(c, q);
    b->queue = e ? e : "";
    return e ? 0 : MUSTER_ENOMEM;
}

static void binding_free(struct ctl *c, struct binding *b)
{
    struct binding **p =
        &c->bykey[queue_hash_fnv1a64_str(QUEUE_HASH_FNV64_BASIS, b->key) & (c->nbuckets - 1)];
    while (*p && *p != b)
        p = &(*p)->hnext;
    if (*p)
        *p = b->hnext;
    tkey_unlink(c, b);
    ctl__hubpg_forget(c, b);
    ctl__pg_forget(c, b);
    if (b->list == 2)
        ctl__shares_untrack(c, b);
    list_unlink(b);
    if (b->in_retry) {
        struct binding **r = &c->retry;
        while (*r && *r != b)
            r = &(*r)->act->rnext; /* in the retry list: it has its ctl_act */
        if (*r)
            *r = b->act->rnext;
    }
    if (b->ledger_id)
        queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    if (c->sweep.cursor == b)
        c->sweep.cursor = NULL;
    ctl__cool_forget(c, b);
    ctl__binding_destroy(b);
    c->nbindings--;
}

/* Frees b and what it holds; it is in no table or list any more (or the tables go too). */
void ctl__binding_destroy(struct binding *b)
{
    if (b->act) {
        muster_free(b->act->rc_wait);
        muster_free(b->act->dropped);
        json_object_put(b->act->reply);
        json_object_put(b->act->fresh);
        muster_free(b->act->loss);
        muster_free(b->act);
    }
    json_object_put(b->rb);
    json_object_put(b->tmpl);
    ctl__binding_clear_read(b);
    muster_free(b->owner);
    muster_free(b->allow_hi);
    muster_free(b->shares);
    karmada_group_tree_close(&b->tree);
    if (b->grow)
        queue_resvec_close(&b->grow->req);
    muster_free(b->grow);
    if (b->tkey != ctl__tkey_none && b->tkey != tkey_room(b))
        muster_free(b->tkey);
    msg_release(b->msg);
    muster_free(b->ids_text);
    muster_free(b);
}

/* A binding whose RB went is freed once no request and no ledger write refers to it. */
void ctl__maybe_free(struct ctl *c, struct binding *b)
{
    if (b->gone && b->inflight == 0 && b->lw_pending == 0 && b->side_inflight == 0)
        binding_free(c, b);
}

void ctl__set_state(struct ctl *c, struct binding *b, enum bstate st)
{
    int was_active = b->list == 2;
    b->st = st;
    if (st >= B_ADMITTED && st <= B_RUNNING) {
        /* in play: it holds its RB and template from here on (cool.c), so the protocol's
         * steps may read them as they are */
        if (!was_active) {
            (void)ctl__rb(c, b);
            (void)ctl__tmpl(c, b);
        }
        /* running gangs at the front, the others at the back: the tick's timeout walk
         * (loop.c) stops at the first running one instead of visiting every running gang
         * five times a second */
        if (st == B_RUNNING) {
            ctl__cool_later(c, b); /* running: its RB tree may go once it is idle (cool.c) */
            list_push_front(&c->active, b, 2);
        } else {
            list_push(&c->active, b, 2);
        }
        if (!was_active)
            ctl__shares_track(c, b);
        return;
    }
    if (was_active)
        ctl__shares_untrack(c, b);
    ctl__act_trim(b); /* back to waiting, or done: what is left of the protocol may go */
    if (st == B_DONE) {
        list_unlink(b);
        ctl__cool_later(c, b); /* its RB tree may go too (cool.c) */
        return;
    }
    if (b->list != 1)
        b->waiting_since = now_ms(c);
    list_push(&c->waiting, b, 1);
}

/* Waiting reasons are shared, counted by reference: pending bindings mostly wait with the same
 * sentence (their queue's or the fleet's), and a copy each was 64 bytes of every one of a
 * million. One table for the process: the controller runs on one thread, and a sentence means
 * the same in any instance. b->msg points at the text of its entry. */
struct msg_ent {
    struct msg_ent *next;
    uint32_t refs;
    uint32_t len; /* of text, both NULs included */
    char text[];
};
static struct {
    struct msg_ent **v;
    size_t cap, n; /* cap: a power of two, or 0 with v NULL */
} msgs;

static struct msg_ent *msg_ent_of(const char *m)
{
    return (struct msg_ent *)(void *)(m - offsetof(struct msg_ent, text));
}

static int msgs_grow(void)
{
    size_t cap = msgs.cap ? msgs.cap * 2 : 64;
    struct msg_ent **v = muster_calloc(cap, sizeof *v);
    if (!v)
        return MUSTER_ENOMEM;
    for (size_t i = 0; i < msgs.cap; i++)
        for (struct msg_ent *e = msgs.v[i], *nx; e; e = nx) {
            nx = e->next;
            size_t h = queue_hash_fnv1a64(QUEUE_HASH_FNV64_BASIS, e->text, e->len) & (cap - 1);
            e->next = v[h];
            v[h] = e;
        }
    muster_free(msgs.v);
    msgs.v = v;
    msgs.cap = cap;
    return 0;
}

/* A reference to the shared copy of text[0..len) (a reason, NUL, a message, NUL); NULL when out
 * of memory. */
static char *msg_intern(const char *text, size_t len)
{
    if (msgs.n >= msgs.cap && msgs_grow() && !msgs.cap)
        return NULL;
    size_t h = queue_hash_fnv1a64(QUEUE_HASH_FNV64_BASIS, text, len) & (msgs.cap - 1);
    for (struct msg_ent *e = msgs.v[h]; e; e = e->next)
        if (e->len == len && memcmp(e->text, text, len) == 0) {
            e->refs++;
            return e->text;
        }
    struct msg_ent *e = muster_malloc(sizeof *e + len);
    if (!e)
        return NULL;
    memcpy(e->text, text, len);
    e->len = (uint32_t)len;
    e->refs = 1;
    e->next = msgs.v[h];
    msgs.v[h] = e;
    msgs.n++;
    return e->text;
}

static void msg_release(char *m)
{
    if (!m)
        return;
    struct msg_ent *e = msg_ent_of(m);
    if (--e->refs)
        return;
    struct msg_ent **p =
        &msgs.v[queue_hash_fnv1a64(QUEUE_HASH_FNV64_BASIS, e->text, e->len) & (msgs.cap - 1)];
    while (*p != e)
        p = &(*p)->next;
    *p = e->next;
    muster_free(e);
    if (--msgs.n == 0) { /* the last one: nothing is left for a leak check to find */
        muster_free(msgs.v);
        msgs.v = NULL;
        msgs.cap = 0;
    }
}

void ctl__set_reason(struct binding *b, const char *reason, const char *fmt, ...)
{
    char msg[KARMADA_WORKLOAD_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A gang requeued after a cluster was lost says so while it waits, whatever else it waits
     * for (loss.c): the loss is why it is not running. */
    static const char after[] = "requeued after cluster ";
    const struct ctl_loss *l = ctl__act(b)->loss;
    if (l && !l->replace_wanted && !l->replaced && strncmp(msg, after, sizeof after - 1) != 0) {
        size_t n = strlen(msg);
        snprintf(msg + n, sizeof msg - n, " (%s%s was lost: %s)", after, l->cluster, l->detail);
    }
    /* the reason as the 16-byte array it was: at most 15 characters */
    size_t rl = strnlen(reason, 15), n = strlen(msg);
    if (strcmp(ctl__binding_reason(b), reason) != 0 || strcmp(ctl__binding_msg(b), msg) != 0) {
        char both[16 + KARMADA_WORKLOAD_MSG_MAX];
        memcpy(both, reason, rl);
        both[rl] = '\0';
        memcpy(both + rl + 1, msg, n + 1);
        char *m = rl + n ? msg_intern(both, rl + n + 2) : NULL;
        if (!m && n)
            m = msg_intern(both, rl + 2); /* out of memory: the reason without its sentence */
        msg_release(b->msg);
        b->msg = m;
        b->cond_dirty = 1;
    }
}

/* The "binding" event's data as json-c printed the tree it was built as until issue 22 (keys in
 * that order, slashes unescaped): written straight into text, a publish per state change. */
void ctl__binding_event_text(struct kube_jw *w, struct ctl *c, const struct binding *b,
                             const char *state, const char *reason)
{
    const char *slash = strchr(b->key, '/');
    kube_jw_lit(w, "{\"namespace\":");
    kube_jw_strn(w, b->key, (size_t)(slash - b->key));
    kube_jw_lit(w, ",\"name\":");
    kube_jw_str(w, slash + 1);
    kube_jw_lit(w, ",\"queue\":");
    kube_jw_str(w, b->queue);
    kube_jw_lit(w, ",\"state\":");
    kube_jw_str(w, state);
    kube_jw_lit(w, ",\"reason\":");
    kube_jw_str(w, reason ? reason : "");
    kube_jw_lit(w, ",\"clusters\":[");
    for (uint32_t i = 0; i < b->nshares; i++) {
        kube_jw_lit(w, i ? ",{\"name\":" : "{\"name\":");
        kube_jw_str(w, b->shares[i].cluster);
        kube_jw_lit(w, ",\"replicas\":");
        kube_jw_int64(w, b->shares[i].replicas);
        kube_jw_raw(w, "}", 1);
    }
    kube_jw_lit(w, "],\"request\":");
    kube_resvec_write(w, c->names, &b->gang);
    kube_jw_raw(w, "}", 1);
}

void ctl__publish_binding(struct ctl *c, const struct binding *b, const char *state,
                          const char *reason)
{
    if (!c->opt.events)
        return;
    char stack[1024];
    struct kube_jw w;
    kube_jw_init(&w, stack, sizeof stack, 0);
    ctl__binding_event_text(&w, c, b, state, reason);
    if (!w.bad)
        disp_events_publish_text(c->opt.events, "binding", w.buf, w.len);
    kube_jw_free(&w);
    kube_jw_init(&w, stack, sizeof stack, 0);
    kube_jw_lit(&w, "{\"name\":");
    kube_jw_str(&w, b->queue);
    kube_jw_raw(&w, "}", 1);
    if (!w.bad)
        disp_events_publish_text(c->opt.events, "queue", w.buf, w.len);
    kube_jw_free(&w);
}

void ctl__notice(struct ctl *c, const char *level, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctl__logf(c, "%s", msg);
    if (!c->opt.events)
        return;
    json_object *o = json_object_new_object();
    if (!o)
        return;
    json_object_object_add(o, "level", json_object_new_string(level));
    json_object_object_add(o, "message", json_object_new_string(msg));
    disp_events_publish(c->opt.events, "notice", o);
}

static int tmpl_index(enum karmada_workload_kind k)
{
    switch (k) {
    case KARMADA_WORKLOAD_KIND_DEPLOYMENT:
        return 0;
    case KARMADA_WORKLOAD_KIND_JOB:
        return 1;
    case KARMADA_WORKLOAD_KIND_VCJOB:
        return 2;
    case KARMADA_WORKLOAD_KIND_POD:
        return 3;
    case KARMADA_WORKLOAD_KIND_STATEFULSET:
        return 4;
    case KARMADA_WORKLOAD_KIND_JOBSET:
        return 5;
    case KARMADA_WORKLOAD_KIND_LWS:
        return 6;
    case KARMADA_WORKLOAD_KIND_PYTORCHJOB:
        return 7;
    case KARMADA_WORKLOAD_KIND_MPIJOB:
        return 8;
    case KARMADA_WORKLOAD_KIND_RAYCLUSTER:
        return 9;
    case KARMADA_WORKLOAD_KIND_RAYJOB:
        return 10;
    case KARMADA_WORKLOAD_KIND_TRAINJOB:
        return 11;
    default:
        return -1;
    }
}

/* The template key of an RB: "<informer>/<namespace>/<name>" of spec.resource. */
static void rb_tkey(json_object *rb, enum karmada_workload_kind kind, char *buf, size_t cap)
{
    json_object *res = kube_json_path(rb, "spec", "resource", NULL);
    const char *ns = kube_json_str(res, "namespace"), *name = kube_json_str(res, "name");
    int ti = tmpl_index(kind);
    if (ti < 0 || !name) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, cap, "%d/%s/%s", ti, ns ? ns : "", name);
}

/* src into room (its items, and pods at 1 pod when it has none: each replica is one pod, and a
 * node's pod limit bounds placement as Karmada's estimator has it; the queues do not count
 * pods); the number of items written. */
static uint32_t req_fill(struct queue_res *room, const struct queue_resvec *src, uint32_t pods)
{
    uint32_t n = 0, i = 0;
    int have = queue_resvec_get(src, pods) != 0;
    for (; i < src->len && (have || src->items[i].id < pods); i++)
        room[n++] = src->items[i];
    if (!have)
        room[n++] = (struct queue_res){pods, 1000};
    for (; i < src->len; i++)
        room[n++] = src->items[i];
    return n;
}

/* b's components and its gang's request from w, in one allocation (b->comp): their vectors
 * borrow its room (queue_resvec_borrow). A pending gang's three small vectors were three
 * allocations of their own, 112 bytes of every pending binding with malloc's headers and
 * rounding for 72 of data (issue 22). */
static int read_vectors(struct binding *b, const struct karmada_workload *w, uint32_t pods)
{
    size_t nc = w->ncomponents ? w->ncomponents : 1, items = w->gang.len;
    for (uint32_t i = 0; i < w->ncomponents; i++)
        items += w->components[i].request.len + 1;
    char *blk = muster_calloc(1, nc * sizeof(struct comp) + items * sizeof(struct queue_res));
    if (!blk)
        return MUSTER_ENOMEM;
    b->comp = (struct comp *)blk;
    b->ncomp = w->ncomponents;
    struct queue_res *room = (struct queue_res *)(blk + nc * sizeof(struct comp));
    for (uint32_t i = 0; i < w->ncomponents; i++) {
        b->comp[i].replicas = w->components[i].replicas;
        uint32_t n = req_fill(room, &w->components[i].request, pods);
        queue_resvec_borrow(&b->comp[i].req, room, n);
        room += n;
    }
    if (w->gang.len)
        memcpy(room, w->gang.items, w->gang.len * sizeof(*room));
    queue_resvec_borrow(&b->gang, room, w->gang.len);
    return 0;
}

size_t ctl__rb_tkey_len(json_object *rb)
{
    json_object *res = kube_json_path(rb, "spec", "resource", NULL);
    const char *ns = kube_json_str(res, "namespace"), *name = kube_json_str(res, "name");
    return name ? 4 + (ns ? strlen(ns) : 0) + strlen(name) : 0;
}

static int64_t rb_generation(json_object *rb)
{
    json_object *g = kube_json_path(rb, "metadata", "generation", NULL);
    return g ? json_object_get_int64(g) : 0;
}

static int64_t rb_created_ms(json_object *rb)
{
    const char *ts = kube_json_str(kube_json_get(rb, "metadata"), "creationTimestamp");
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!ts || !strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm))
        return 0;
    return (int64_t)timegm(&tm) * 1000;
}

/* Reads the RB and its template into b. 0 when it can be queued; otherwise b is left with the
 * reason it cannot (WAIT_TEMPLATE, or a condition reason and message) and a MUSTER_* code. */
json_object *ctl__template_of(const struct ctl *c, json_object *rb)
{
    int ti = tmpl_index(karmada_workload_kind_of(rb));
    json_object *res = kube_json_path(rb, "spec", "resource", NULL);
    return ti >= 0 ? kube_informer_get(&c->tmpl[ti], kube_json_str(res, "namespace"),
                                       kube_json_str(res, "name"))
                   : NULL;
}

int ctl__binding_read(struct ctl *c, struct binding *b)
{
    json_object *rb = ctl__rb(c, b);
    if (!rb)
        return MUSTER_ENOENT; /* gone from the hub: its delete event follows */
    enum karmada_workload_kind kind = karmada_workload_kind_of(rb);
    char tkey[CTL_TKEY_MAX];
    rb_tkey(rb, kind, tkey, sizeof tkey);
    tkey_set(c, b, tkey);
    json_object *tmpl = ctl__template_of(c, rb);
    if (!tmpl)
        return MUSTER_ENOENT;
    int rc = ctl__workload_read(c, rb, tmpl);
    ctl__hubpg_note(c, b); /* before the outcome: a PodGroup it waits for re-reads it */
    b->kind = c->w.kind;
    b->nofit_memo = 0; /* what it asks for may have changed */
    if (rc) {
        const char *why = karmada_workload_condition_reason(c->w.reason);
        ctl__set_reason(b, why ? why : "Unschedulable", "%s", c->w.message);
        return rc;
    }
    json_object *keep = json_object_get(tmpl); /* before the put: it may be the same object */
    json_object_put(b->tmpl);
    b->tmpl = keep;
    ctl__cool_later(c, b);
    const struct karmada_workload *w = &c->w;
    /* issue 20: a JobSet or LeaderWorkerSet opted in to a split by groups (placement spread)
     * gets per-cluster objects */
    uint32_t split_pods = 0, split_sets = 0;
    if (karmada_gang_split_kind(w) && w->placement == KARMADA_WORKLOAD_SPREAD &&
        !karmada_workload_assigns(w, c->scheduler)) {
        /* only muster's own placement writes the per-cluster counts: Karmada's scheduler would
         * send the whole template to every cluster it picks */
        ctl__set_reason(b, "Unschedulable",
                        "placement spread splits a %s by groups only when muster places it "
                        "(the PropagationPolicy's schedulerName %s); remove the %s annotation "
                        "or set it to single-cluster",
                        karmada_workload_kind_name(w->kind), c->scheduler,
                        KARMADA_WORKLOAD_PLACEMENT_ANNOTATION);
        return MUSTER_EINVAL;
    }
    if (karmada_gang_split_kind(w) && w->placement == KARMADA_WORKLOAD_SPREAD) {
        struct karmada_gang_set sets[KARMADA_GANG_SPLIT_SETS_MAX];
        uint32_t nsets = 0;
        int rc2 = karmada_gang_split_sets(w, tmpl, sets, KARMADA_GANG_SPLIT_SETS_MAX, &nsets);
        for (uint32_t j = 0; !rc2 && j < nsets; j++) {
            if (sets[j].groups && !sets[j].group_pods) {
                /* its Jobs run no pod, so no tree leaf says where they go: each cluster's
                 * count of them would be a guess */
                ctl__set_reason(b, "Unschedulable",
                                "placement spread: replicated job %s has %" PRIu32
                                " Jobs of no pod (parallelism or completions 0), which muster "
                                "cannot place by groups; give them pods or drop them",
                                sets[j].name, sets[j].groups);
                return MUSTER_EINVAL;
            }
            if (sets[j].groups > UINT16_MAX)
                rc2 = MUSTER_EINVAL;
            if (!split_pods && sets[j].groups)
                split_pods = sets[j].group_pods;
        }
        if (rc2 || nsets > CTL_SPLIT_SETS_MAX || !split_pods) {
            ctl__set_reason(b, "Unschedulable",
                            "placement spread: the %s's groups cannot be split (a set of "
                            "groups with pods is needed)",
                            karmada_workload_kind_name(w->kind));
            return MUSTER_EINVAL;
        }
        split_sets = nsets;
    }
    if ((karmada_gang_needs_objects(w) || split_pods) && !w->permanent_id[0]) {
        ctl__set_reason(b, "Unschedulable", "waiting for Karmada to label it with %s",
                        KARMADA_WORKLOAD_PERMANENT_ID_LABEL);
        return MUSTER_EINVAL;
    }
    b->generation = rb_generation(rb);
    b->assign = karmada_workload_assigns(w, c->scheduler);
    b->spread = w->placement == KARMADA_WORKLOAD_SPREAD;
    b->needs_objects = karmada_gang_needs_objects(w) || split_pods;
    b->split_pods = split_pods;
    b->split_sets = split_sets;
    b->replicas = w->replicas;
    b->min_member = w->min_member;
    b->group_size = w->group_size > 0 ? w->group_size : 1;
    b->priority = w->priority;
    if (w->priority_from == KARMADA_WORKLOAD_PRIORITY_CLASS) {
        json_object *pc = kube_informer_get(&c->prios, NULL, w->priority_class);
        json_object *v = kube_json_get(pc, "value");
        b->priority = v ? json_object_get_int(v) : 0;
    }
    char ns[QUEUE_NAME_MAX + 1], why[KARMADA_WORKLOAD_MSG_MAX];
    const char *nm;
    ctl__split_key(b->key, ns, sizeof ns, &nm);
    char queue[QUEUE_NAME_MAX + 1];
    int qrc = ctl__queue_resolve(c, w, ns, queue, sizeof queue, why, sizeof why);
    if (ctl__binding_set_queue(c, b, queue))
        return MUSTER_ENOMEM;
    if (qrc) {
        ctl__set_reason(b, "Unschedulable", "%s", why);
        return MUSTER_EINVAL;
    }
    ctl__binding_clear_read(b);
    const char *owner =
        c->opt.owner_annotation
            ? kube_json_path_str(b->tmpl, "metadata", "annotations", c->opt.owner_annotation, NULL)
            : NULL;
    /* kept apart from the read's other parts: a resize that goes back to what it read before
     * (resize.c) keeps the owner too */
    muster_free(b->owner);
    b->owner = NULL;
    if (owner && owner[0]) {
        b->owner = muster_malloc(CTL_OWNER_MAX + 1);
        if (!b->owner)
            return MUSTER_ENOMEM;
        snprintf(b->owner, CTL_OWNER_MAX + 1, "%s", owner);
    }
    uint32_t pods;
    if (queue_resnames_intern(c->names, "pods", 4, &pods))
        return MUSTER_ENOMEM;
    if (read_vectors(b, w, pods))
        return MUSTER_ENOMEM;
    /* Partial admission needs muster's own placement of replicas of one shape: Karmada renders
     * each member's replicas from spec.clusters (binding/common.go ensureWork, ReviseReplica). */
    /* the gang's groups (issue 20): read once the components are, from the same objects */
    struct karmada_groups_error gerr;
    int grc = ctl__groups_read(c, b, w, rb, &gerr);
    if (grc == MUSTER_ENOMEM)
        return grc;
    if (grc) {
        const char *cond = karmada_workload_condition_reason(gerr.reason);
        ctl__set_reason(b, cond ? cond : "Unschedulable", "%s", gerr.message);
        return MUSTER_EINVAL;
    }
    if (!b->split_pods && ctl__jobset_min(b)) {
        /* issue 20: a JobSet whose composites may leave Jobs out is written as a split even in
         * one cluster (without spread its root stays in one): the cluster's rule counts the
         * Jobs admitted there (docs/composite.md, "A JobSet at fewer Jobs") */
        struct karmada_gang_set sets[KARMADA_GANG_SPLIT_SETS_MAX];
        uint32_t nsets = 0, gp = 0;
        int ok = !karmada_gang_split_sets(w, tmpl, sets, KARMADA_GANG_SPLIT_SETS_MAX, &nsets) &&
                 nsets <= CTL_SPLIT_SETS_MAX;
        for (uint32_t j = 0; ok && j < nsets; j++) {
            ok = sets[j].groups <= UINT16_MAX && (!sets[j].groups || sets[j].group_pods);
            if (!gp && sets[j].groups)
                gp = sets[j].group_pods;
        }
        if (ok && gp && !w->permanent_id[0]) {
            ctl__set_reason(b, "Unschedulable", "waiting for Karmada to label it with %s",
                            KARMADA_WORKLOAD_PERMANENT_ID_LABEL);
            return MUSTER_EINVAL;
        }
        if (ok && gp) {
            b->split_pods = gp;
            b->split_sets = nsets;
            b->needs_objects = 1;
        }
    }
    /* what it asks of the members' racks, checked with its groups (split: its PodGroups carry
     * a subGroupPolicy) */
    char twhy[KARMADA_WORKLOAD_MSG_MAX];
    struct karmada_member_topo mt;
    int trc = karmada_member_topo_read(&mt, w, b->split_pods != 0, rb, b->tmpl, twhy, sizeof twhy);
    ctl__act_set_mtopo(c, b, &mt);
    if (trc) {
        ctl__set_reason(b, "Unschedulable", "%s", twhy);
        return MUSTER_EINVAL;
    }
    b->elastic = w->elastic && b->assign && w->ncomponents == 1 && !b->split_pods &&
                 w->kind != KARMADA_WORKLOAD_KIND_VCJOB && w->min_member >= 1;
    /* issue 20: a tree whose levels need fewer groups than it has is admitted at what fits of
     * it, at least its minimum, without the opt-in (docs/composite.md) */
    if (ctl__tree_min(b))
        b->elastic = 1;
    const char *uid = kube_json_str(kube_json_get(rb, "metadata"), "uid");
    if (ctl__binding_set_ids(b, uid, w->permanent_id))
        return MUSTER_ENOMEM;
    if (!b->created_at)
        b->created_at = rb_created_ms(rb);
    if (!b->created_at)
        b->created_at = now_ms(c);
    ctl__soft_apply(c, b, w);
    /* a Pod of a larger group joins it; the gang's lead reads as the whole gang */
    ctl__pg_note(c, b, w);
    if (b->pg && b->pg->lead == b && b->pg->nin && ctl__pg_fold(c, b))
        return MUSTER_ENOMEM;
    return 0;
}

/* Puts a pending binding into the engine (it is eligible: held, nothing of an earlier
 * dispatch left on the hub, back-off over). */
int ctl__engine_add(struct ctl *c, struct binding *b)
{
    if (b->replicas == 0) {
        /* A Deployment scaled to 0 (or any workload without replicas): nothing to hold, so
         * not queued; its row stays, and a scale up replaces it (binding_reread). */
        ctl__set_reason(b, CTL_REASON_SCALED_TO_ZERO, "scaled to 0: holds nothing");
        ctl__engine_forget(c, b);
        ctl__set_state(c, b, B_PARKED);
        return 0;
    }
    if (b->not_before > now_ms(c)) {
        ctl__set_state(c, b, B_BACKOFF);
        return 0;
    }
    if (b->pg && ctl__pg_gate(c, b))
        return 0; /* its pod group waits for members, or its lead holds the entry */
    struct queue_resvec at_min = {0};
    const struct queue_resvec *req;
    if (ctl__engine_request(c, b, &at_min, &req)) {
        queue_resvec_close(&at_min);
        ctl__fatal(c, "out of memory");
        return MUSTER_ENOMEM;
    }
    struct queue_entry_spec es = {.id = (uint64_t)b->ledger_id,
                                  .queue = b->queue,
                                  .priority = b->priority,
                                  .created_at = b->created_at,
                                  .request = req};
    struct queue_error qe;
    struct queue_entry *e = queue_tree_entry(c->t, (uint64_t)b->ledger_id);
    if (e && queue_entry_state(e) == QUEUE_ENTRY_PENDING &&
        queue_resvec_cmp(queue_entry_request(e), req) != 0) {
        /* loaded from its row (the whole gang) while an elastic gang waits with its minimum,
         * or the other way round after the annotation changed */
        queue_entry_remove(c->t, e);
        e = NULL;
    }
    char ns[QUEUE_NAME_MAX + 1], why[KARMADA_WORKLOAD_MSG_MAX];
    const char *nm;
    ctl__split_key(b->key, ns, sizeof ns, &nm);
    if (!e && !ctl__tenancy_admits(c, b->queue, ns, why, sizeof why)) {
        /* parked with its row: its place in line is kept for when a label or the selector
         * changes (tenancy.c judges it again then) */
        queue_resvec_close(&at_min);
        ctl__set_reason(b, "Unschedulable", "%s", why);
        ctl__set_state(c, b, B_PARKED);
        return MUSTER_EFORBIDDEN;
    }
    int rc = e ? 0 : queue_entry_add(c->t, &es, &e, &qe);
    queue_resvec_close(&at_min);
    if (rc == MUSTER_ENOENT) {
        ctl__set_reason(b, "Unschedulable",
                        "queue %s does not exist; the binding waits until it is "
                        "created",
                        b->queue);
        ctl__set_state(c, b, B_PARKED);
        return rc;
    }
    if (rc) {
        ctl__set_reason(b, "Unschedulable", "queue %s cannot take it: %s", b->queue, qe.msg);
        ctl__set_state(c, b, B_PARKED);
        return rc;
    }
    ctl__set_state(c, b, B_PENDING);
    c->cyc.wanted = 1;
    c->cyc.forced = 1;
    ctl__kick(c);
    return 0;
}

/* A binding whose RB was read: a new ledger row (pending), unless its queue does not exist, in
 * which case it is parked (held, told why, no row: the hub remembers it for us). */
static void binding_enqueue(struct ctl *c, struct binding *b)
{
    /* A queue that does not exist yet still gets the row: the binding is then listed by the
     * admin API with its reason, and keeps its place in line for when the queue comes;
     * engine_add parks it once the row is written. */
    struct lwrite *w = ctl__lw_add(c, b, LW_NEW, "pending");
    if (!w || ctl__lw_fill_new(c, w, b)) {
        ctl__fatal(c, "out of memory");
        return;
    }
    b->st = B_PENDING; /* until the row is written; engine_add decides */
    c->st.held++;
}

/* The webhook's rule, so an RB created while the webhook was down is treated the same: a kind
 * muster does not queue, or the opt-out label, leaves it alone. */
int ctl__rb_skipped(json_object *rb)
{
    enum karmada_webhook_verdict v = karmada_webhook_rb_verdict(rb);
    return v == KARMADA_WEBHOOK_SKIP_KIND || v == KARMADA_WEBHOOK_SKIP_LABEL_SET;
}

void ctl__hold_if_needed(struct ctl *c, struct binding *b)
{
    if (b->inflight || b->step != S_NONE || b->gone)
        return;
    json_object *susp = kube_json_path(ctl__rb(c, b), "spec", "suspension", NULL);
    if (kube_json_bool(susp, "scheduling") == 1)
        return;
    b->step = S_HOLD;
    ctl__step_run(c, b);
}

/* A binding without a live row, or parked: read it and queue it if it can be. */
void ctl__binding_try_queue(struct ctl *c, struct binding *b)
{
    int rc = ctl__binding_read(c, b);
    if (rc == MUSTER_ENOENT && b->st == B_WAIT_TEMPLATE) {
        ctl__set_state(c, b, B_WAIT_TEMPLATE);
        ctl__hold_if_needed(c, b);
        return;
    }
    if (rc) {
        ctl__set_state(c, b, B_PARKED);
        if (rc == MUSTER_ENOENT)
            ctl__set_reason(b, "Unschedulable", "its resource template %s was not found", b->tkey);
        ctl__hold_if_needed(c, b);
        return;
    }
    if (b->ledger_id)
        ctl__engine_add(c, b);
    else
        binding_enqueue(c, b);
    if (b->st == B_PARKED)
        ctl__hold_if_needed(c, b);
}

/* A binding with a live pending row whose RB or template changed (waiting, or parked): if what
 * it asks for changed, its row is replaced (same place in line), so the ledger always says what
 * is queued. One that can no longer be read (refused, invalid, its template gone) is parked and
 * keeps its row: the admin API lists it with the reason, and a restart finds a live row and
 * parks it again. Releasing the row instead dropped it from the list, and the next start-up
 * took the released row for a finished workload (done: never held, told or queued again). */
static void binding_reread(struct ctl *c, struct binding *b)
{
    const char *queue = b->queue; /* interned: it stays */
    struct queue_resvec gang = {0};
    int32_t prio = b->priority;
    if (queue_resvec_copy(&gang, &b->gang))
        return;
    int rc = ctl__binding_read(c, b);
    int same = !rc && strcmp(queue, b->queue) == 0 && prio == b->priority &&
               queue_resvec_cmp(&gang, &b->gang) == 0;
    queue_resvec_close(&gang);
    if (rc) {
        ctl__engine_forget(c, b);
        ctl__set_state(c, b, rc == MUSTER_ENOENT ? B_WAIT_TEMPLATE : B_PARKED);
        if (rc == MUSTER_ENOENT)
            ctl__set_reason(b, "Unschedulable", "its resource template %s was not found", b->tkey);
        ctl__hold_if_needed(c, b);
        return;
    }
    if (same) {
        if (b->st != B_PENDING && b->st != B_BACKOFF) {
            ctl__engine_add(c, b); /* readable again, asking for what its row says */
            if (b->st == B_PARKED)
                ctl__hold_if_needed(c, b);
        }
        return;
    }
    ctl__pg_member_changed(c, b);
    ctl__engine_forget(c, b);
    struct lwrite *w = ctl__lw_add(c, b, LW_REPLACE_OLD, "released");
    if (!w) {
        ctl__fatal(c, "out of memory");
        return;
    }
    w->row.id = b->ledger_id;
    snprintf(w->reason, sizeof w->reason, "the workload changed while it waited");
    w->row.reason = w->reason;
    queue_idmap_del(&c->byid, (uint64_t)b->ledger_id);
    b->ledger_id = 0;
    binding_enqueue(c, b);
}

void ctl__binding_react(struct ctl *c, struct binding *b, int template_changed)
{
    if (!ctl__leads(c) || !c->reconciled || c->stopping || b->gone)
        return;
    ctl__loss_rb_seen(b);
    if (ctl__pg_follower(b) && b->st >= B_ADMITTED && b->st <= B_RUNNING) {
        /* a member of an admitted gang: its lead judges the gang, this RB with the others */
        struct binding *lead = b->pg->lead;
        if (lead->st == B_DISPATCHED || lead->st == B_RUNNING)
            ctl__check_progress(c, lead);
        return;
    }
    switch (b->st) {
    case B_WAIT_TEMPLATE:
    case B_PARKED:
        if (b->inflight != 0 && b->step != S_HOLD)
            break;
        if (b->ledger_id && !b->lw_pending)
            binding_reread(c, b); /* parked with its row: the row may need replacing */
        else if (!b->ledger_id)
            ctl__binding_try_queue(c, b);
        break;
    case B_PENDING:
    case B_BACKOFF:
        if (b->lw_pending)
            break; /* its row is not written yet: look again after */
        if (template_changed || rb_generation(ctl__rb(c, b)) != b->generation)
            binding_reread(c, b);
        if (b->st == B_PENDING || b->st == B_BACKOFF)
            ctl__hold_if_needed(c, b);
        break;
    case B_UNDO:
        if (b->step == S_NONE && b->inflight == 0 && !b->lw_pending && b->ledger_id)
            ctl__undo_finish(c, b); /* the clear came back through the watch */
        break;
    case B_DISPATCHED:
    case B_RUNNING:
        ctl__policy_follow(c, b, 0); /* first: a shrink below would leave it for later */
        if (ctl__rb_older_than_resize(c, b))
            break; /* from before muster's own spec.clusters rewrite: nothing new */
        if (ctl__resize_check(c, b, template_changed))
            break; /* it shrank: its row is written first, its placement judged after */
        ctl__check_progress(c, b);
        break;
    default:
        break;
    }
}

void ctl__rb_upsert(struct ctl *c, json_object *rb)
{
    char key[CTL_KEY_MAX];
    obj_key(rb, key, sizeof key);
    struct binding *b = ctl__find_key(c, key);
    if (ctl__rb_skipped(rb)) {
        if (b && !b->ledger_id && b->inflight == 0 && b->side_inflight == 0 && !b->lw_pending)
            binding_free(c, b);
        return;
    }
    const char *uid = kube_json_str(kube_json_get(rb, "metadata"), "uid");
    char ub[CTL_UID_MAX];
    if (b && b->st == B_DONE && ctl__uid_other(b, uid) && !b->inflight &&
        !b->lw_pending && !b->side_inflight) {
        binding_free(c, b); /* a new RB under an old name: start over */
        b = NULL;
    }
    if (!b) {
        b = ctl__binding_new(c, key, ctl__rb_tkey_len(rb));
        if (!b)
            return;
        c->st.seen++;
        ctl__set_state(c, b, B_WAIT_TEMPLATE);
    }
    json_object *keep = json_object_get(rb); /* before the put: it may be the same object */
    /* Its placement constraints are in its spec, which only a new generation changes (the RB
     * has a status subresource): the echo of muster's own condition write keeps the clusters
     * it may use, and so its NoClusterFit verdict (a tree gang's search is not repeated). */
    /* Compared with the generation it was last read at, not with the RB it holds: a binding
     * that waits holds none (cool.c). */
    int64_t g1 = 0;
    const char *ruid = kube_json_path_str(rb, "metadata", "uid", NULL);
    int same_spec = b->generation > 0 && b->rb != rb && ruid &&
                    strcmp(ctl__uid(b, ub), ruid) == 0 &&
                    !kube_json_int64(kube_json_get(rb, "metadata"), "generation", &g1) &&
                    g1 == b->generation;
    json_object_put(b->rb);
    b->rb = keep;
    ctl__cool_later(c, b);
    if (!same_spec) {
        b->allow_epoch = 0;  /* its placement constraints may have changed */
        if (b->nofit_memo) { /* so its NoClusterFit verdict goes: place it again soon */
            c->cyc.wanted = 1;
            c->cyc.forced = 1;
        }
    }
    if (kube_json_path(rb, "metadata", "deletionTimestamp", NULL)) {
        /* Being deleted (Karmada's binding-controller finalizer holds it while it deletes its
         * own Works): released now, and muster's Works deleted with it, not at the next
         * sweep. Nothing else is done for it. */
        if (ctl__leads(c) && c->reconciled && b->ledger_id && b->st != B_DONE && !b->lw_pending)
            ctl__release(c, b, "deleted");
        return;
    }
    ctl__binding_react(c, b, 0);
}

void ctl__rb_gone(struct ctl *c, json_object *rb)
{
    char key[CTL_KEY_MAX];
    obj_key(rb, key, sizeof key);
    struct binding *b = ctl__find_key(c, key);
    if (!b)
        return;
    if (!c->leading || !c->reconciled) {
        /* remembered until reconciliation looks at the ledger */
        json_object_put(b->rb);
        b->rb = NULL;
        return;
    }
    if (b->ledger_id && b->st != B_DONE)
        ctl__release(c, b, "deleted");
    /* A row still being written is released when it lands (ledger_flush). */
    b->gone = 1;
    ctl__maybe_free(c, b);
}

void ctl__tmpl_changed(struct ctl *c, int ti, json_object *obj)
{
    json_object *md = kube_json_get(obj, "metadata");
    char tkey[CTL_TKEY_MAX];
    snprintf(tkey, sizeof tkey, "%d/%s/%s", ti,
             kube_json_str(md, "namespace") ? kube_json_str(md, "namespace") : "",
             kube_json_str(md, "name") ? kube_json_str(md, "name") : "");
    struct binding *b = find_tkey(c, tkey);
    if (b)
        ctl__binding_react(c, b, 1);
}

/* One of muster's PodGroup Works changed (its status: Applied, the member PodGroup's phase) or
 * went: the binding it belongs to may move on. */
void ctl__work_changed(struct ctl *c, json_object *wk, int deleted)
{
    json_object *md = kube_json_get(wk, "metadata");
    const char *key =
        kube_json_str(kube_json_get(md, "annotations"), KARMADA_GANG_BINDING_ANNOTATION);
    struct binding *b = key ? ctl__find_key(c, key) : NULL;
    if (!b || b->gone || !ctl__leads(c) || !c->reconciled || c->stopping)
        return;
    const char *uid = kube_json_str(kube_json_get(md, "labels"), KARMADA_GANG_BINDING_UID_LABEL);
    if (ctl__uid_other(b, uid))
        return; /* an earlier RB's under the same name */
    if (b->step == S_APPLIED && b->inflight == 0 && b->st == B_ADMITTED) {
        if (deleted) {
            /* An earlier attempt's Work, replaced by this attempt's patch, finished its
             * deletion after all: create it again. */
            b->step = S_OBJECTS;
        }
        ctl__step_run(c, b);
        return;
    }
    if (b->st == B_DISPATCHED || b->st == B_RUNNING)
        ctl__check_progress(c, b);
}
