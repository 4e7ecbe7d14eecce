/* The karmada-apiserver's mutating admission for ResourceBinding creates: every webhook of every
 * MutatingWebhookConfiguration in the store whose rules match resourcebindings CREATE is called
 * in name order with an admission.k8s.io/v1 AdmissionReview (POST to clientConfig.url, TLS
 * verified with clientConfig.caBundle), its base64 JSONPatch applied, its failurePolicy and
 * timeoutSeconds obeyed (k8s.io/apiserver pkg/admission/plugin/webhook/mutating/dispatcher.go).
 * Calls run on the hub's loop through the kube client (libcurl multi driven by libuv), never
 * blocking it. */
#include "cluster-adapters/sim/webhook_call.h"

#include "cluster-adapters/kube/base64.h"
#include "cluster-adapters/kube/client.h"
#include "cluster-adapters/kube/kubeconfig.h"
#include "cluster-adapters/sim/karmada_int.h"
#include "cluster-adapters/sim/patch.h"
#include "cluster-adapters/sim/resources.h"
#include "cluster-adapters/sim/store.h"
#include "cluster-adapters/kube/errors.h"
#include "queue/mem.h"

#include <stdio.h>
#include <string.h>

#define WEBHOOK_DEFAULT_TIMEOUT_S 10 /* admissionregistration/v1 default timeoutSeconds */
#define WEBHOOK_MAX_HOOKS 16         /* per create: more than any hub registers */
#define WEBHOOK_MSG 1024

struct hook {
    char name[NAME_MAX_LEN];
    char *url;
    unsigned char *ca;
    size_t ca_len;
    int ignore; /* failurePolicy Ignore */
    long timeout_s;
};

struct wh_call;

struct sim_webhooks {
    uv_loop_t *loop;
    struct sim_store *store;
    struct wh_call *live; /* calls in flight, for shutdown */
    int closing;
};

/* One admission of one object: the hooks still to call, the object as patched so far. */
struct wh_call {
    struct sim_webhooks *w;
    struct wh_call *next, *prev;
    struct hook hooks[WEBHOOK_MAX_HOOKS];
    size_t nhooks, at;
    json_object *obj;
    const struct sim_resource *r;
    char ns[NAME_MAX_LEN];
    char uid[40];
    sim_webhooks_done_cb done;
    void *data;
    /* The hook being called. */
    struct kube_config cfg;
    struct kube_client *client;
    /* Decided while its client closes: finish with this once it has. */
    int decided, decided_rc;
    char decided_msg[WEBHOOK_MSG];
};

int sim_webhooks_new(uv_loop_t *loop, struct sim_store *store, struct sim_webhooks **out)
{
    struct sim_webhooks *w = muster_calloc(1, sizeof(*w));
    if (!w)
        return MUSTER_ENOMEM;
    w->loop = loop;
    w->store = store;
    *out = w;
    return 0;
}

static int list_has(json_object *list, const char *want)
{
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        const char *v = json_object_get_string(json_object_array_get_idx(list, i));
        if (v && (strcmp(v, "*") == 0 || strcmp(v, want) == 0))
            return 1;
    }
    return 0;
}

/* 1 when a rule of hook matches CREATE of r (apiGroups, apiVersions, resources, operations). */
static int hook_matches(json_object *hook, const struct sim_resource *r)
{
    json_object *rules = sim__get_path(hook, "rules", NULL, NULL);
    for (size_t i = 0;
         json_object_is_type(rules, json_type_array) && i < json_object_array_length(rules); i++) {
        json_object *rule = json_object_array_get_idx(rules, i);
        if (list_has(sim__get_path(rule, "operations", NULL, NULL), "CREATE") &&
            list_has(sim__get_path(rule, "apiGroups", NULL, NULL), r->group) &&
            list_has(sim__get_path(rule, "apiVersions", NULL, NULL), r->version) &&
            list_has(sim__get_path(rule, "resources", NULL, NULL), r->plural))
            return 1;
    }
    return 0;
}

struct collect {
    struct wh_call *call;
    const struct sim_resource *r;
};

static void collect_hooks(void *data, json_object *cfg)
{
    struct collect *c = data;
    json_object *hooks = sim__get_path(cfg, "webhooks", NULL, NULL);
    for (size_t i = 0; json_object_is_type(hooks, json_type_array) &&
                       i < json_object_array_length(hooks) && c->call->nhooks < WEBHOOK_MAX_HOOKS;
         i++) {
        json_object *h = json_object_array_get_idx(hooks, i);
        const char *url = sim__get_str(h, "clientConfig", "url", NULL);
        if (!hook_matches(h, c->r))
            continue;
        struct hook *dst = &c->call->hooks[c->call->nhooks++];
        const char *name = sim__get_str(h, "name", NULL, NULL);
        snprintf(dst->name, sizeof(dst->name), "%s", name ? name : "");
        /* A service reference cannot be reached from the sim: the call then fails. */
        dst->url = muster_strdup(url ? url : "");
        const char *ca = sim__get_str(h, "clientConfig", "caBundle", NULL);
        if (ca && ca[0])
            kube_base64_decode(ca, strlen(ca), &dst->ca, &dst->ca_len);
        const char *fp = sim__get_str(h, "failurePolicy", NULL, NULL);
        dst->ignore = fp && strcmp(fp, "Ignore") == 0;
        json_object *ts = sim__get_path(h, "timeoutSeconds", NULL, NULL);
        dst->timeout_s = ts ? json_object_get_int64(ts) : WEBHOOK_DEFAULT_TIMEOUT_S;
        if (dst->timeout_s <= 0)
            dst->timeout_s = WEBHOOK_DEFAULT_TIMEOUT_S;
    }
}

static void call_free(struct wh_call *call)
{
    for (size_t i = 0; i < call->nhooks; i++) {
        muster_free(call->hooks[i].url);
        muster_free(call->hooks[i].ca);
    }
    json_object_put(call->obj);
    muster_free(call);
}

static void unlink_call(struct wh_call *call)
{
    if (call->prev)
        call->prev->next = call->next;
    else
        call->w->live = call->next;
    if (call->next)
        call->next->prev = call->prev;
    call->next = call->prev = NULL;
}

/* The outcome reaches the caller, and the call is freed. */
static void finish(struct wh_call *call, int rc, const char *message)
{
    unlink_call(call);
    if (call->done)
        call->done(call->data, rc, rc == 0 ? call->obj : NULL, message);
    call_free(call);
}

static void next_hook(struct wh_call *call);

static void client_closed(void *ud)
{
    struct wh_call *call = ud;
    kube_config_close(&call->cfg);
    call->client = NULL;
    if (call->w->closing)
        finish(call, MUSTER_ECANCELED, "the hub is shutting down");
    else if (call->decided)
        finish(call, call->decided_rc, call->decided_msg);
    else
        next_hook(call);
}

static void decide(struct wh_call *call, int rc, const char *msg)
{
    call->decided = 1;
    call->decided_rc = rc;
    snprintf(call->decided_msg, sizeof(call->decided_msg), "%s", msg);
}

/* A failed call: failurePolicy Ignore goes on unpatched, Fail refuses the request with the
 * apiserver's wording. */
static void failed(struct wh_call *call, const char *why)
{
    const struct hook *h = &call->hooks[call->at];
    if (h->ignore) {
        call->at++;
        return;
    }
    char msg[WEBHOOK_MSG];
    snprintf(msg, sizeof(msg),
             "Internal error occurred: failed calling webhook \"%s\": failed to call webhook: "
             "Post \"%s\": %s",
             h->name, h->url, why);
    decide(call, MUSTER_EIO, msg);
}

static void on_response(int err, const struct kube_response *resp, void *ud)
{
    struct wh_call *call = ud;
    if (call->w->closing)
        return; /* the shutdown closes the client; client_closed finishes */
    const struct hook *h = &call->hooks[call->at];
    if (err < 0) {
        failed(call, resp->status.message[0] ? resp->status.message : kube_strerror(err));
    } else {
        json_object *r = sim__get_path(resp->body, "response", NULL, NULL);
        json_object *allowed = sim__get_path(r, "allowed", NULL, NULL);
        const char *uid = sim__get_str(r, "uid", NULL, NULL);
        const char *patch = sim__get_str(r, "patch", NULL, NULL);
        if (!r || !allowed || !uid || strcmp(uid, call->uid) != 0) {
            failed(call, "expected response.uid and response.allowed");
        } else if (!json_object_get_boolean(allowed)) {
            const char *m = sim__get_str(r, "status", "message", NULL);
            char msg[WEBHOOK_MSG];
            snprintf(msg, sizeof(msg), "admission webhook \"%s\" denied the request%s%s", h->name,
                     m ? ": " : "", m ? m : "");
            decide(call, MUSTER_EFORBIDDEN, msg);
        } else if (patch && patch[0]) {
            unsigned char *raw = NULL;
            size_t rawlen = 0;
            json_object *ops = NULL, *patched = NULL;
            char perr[256] = "";
            if (kube_base64_decode(patch, strlen(patch), &raw, &rawlen) == 0)
                ops = json_tokener_parse((const char *)raw);
            muster_free(raw);
            if (!ops || sim_json_patch(call->obj, ops, &patched, perr, sizeof(perr)) < 0) {
                failed(call, perr[0] ? perr : "the patch is not a JSON patch");
            } else {
                json_object_put(call->obj);
                call->obj = patched;
                call->at++;
            }
            json_object_put(ops);
        } else {
            call->at++;
        }
    }
    kube_client_close(call->client, client_closed, call);
}

static json_object *review(struct wh_call *call)
{
    const struct sim_resource *r = call->r;
    json_object *gvk = json_object_new_object();
    json_object_object_add(gvk, "group", json_object_new_string(r->group));
    json_object_object_add(gvk, "version", json_object_new_string(r->version));
    json_object_object_add(gvk, "kind", json_object_new_string(r->kind));
    json_object *gvr = json_object_new_object();
    json_object_object_add(gvr, "group", json_object_new_string(r->group));
    json_object_object_add(gvr, "version", json_object_new_string(r->version));
    json_object_object_add(gvr, "resource", json_object_new_string(r->plural));
    json_object *req = json_object_new_object();
    json_object_object_add(req, "uid", json_object_new_string(call->uid));
    json_object_object_add(req, "kind", json_object_get(gvk));
    json_object_object_add(req, "resource", json_object_get(gvr));
    json_object_object_add(req, "requestKind", gvk);
    json_object_object_add(req, "requestResource", gvr);
    const char *name = sim_meta_str(call->obj, "name");
    json_object_object_add(req, "name", json_object_new_string(name ? name : ""));
    if (call->ns[0])
        json_object_object_add(req, "namespace", json_object_new_string(call->ns));
    json_object_object_add(req, "operation", json_object_new_string("CREATE"));
    json_object *user = json_object_new_object();
    json_object_object_add(
        user, "username",
        json_object_new_string("system:serviceaccount:karmada-system:karmada-controller-manager"));
    json_object_object_add(req, "userInfo", user);
    json_object_object_add(req, "object", json_object_get(call->obj));
    json_object_object_add(req, "oldObject", NULL);
    json_object_object_add(req, "dryRun", json_object_new_boolean(0));
    json_object *opts = json_object_new_object();
    json_object_object_add(opts, "apiVersion", json_object_new_string("meta.k8s.io/v1"));
    json_object_object_add(opts, "kind", json_object_new_string("CreateOptions"));
    json_object_object_add(req, "options", opts);
    json_object *rev = json_object_new_object();
    json_object_object_add(rev, "apiVersion", json_object_new_string("admission.k8s.io/v1"));
    json_object_object_add(rev, "kind", json_object_new_string("AdmissionReview"));
    json_object_object_add(rev, "request", req);
    return rev;
}

/* Calls the next hook, or reports the outcome when none is left. */
static void next_hook(struct wh_call *call)
{
    while (!call->decided && call->at < call->nhooks) {
        const struct hook *h = &call->hooks[call->at];
        /* "scheme://host[:port]" and the path after it. */
        const char *scheme = strstr(h->url, "://");
        const char *slash = scheme ? strchr(scheme + 3, '/') : NULL;
        memset(&call->cfg, 0, sizeof(call->cfg));
        if (scheme)
            call->cfg.server =
                muster_strndup(h->url, slash ? (size_t)(slash - h->url) : strlen(h->url));
        if (h->ca_len) {
            call->cfg.ca = muster_malloc(h->ca_len);
            if (call->cfg.ca) {
                memcpy(call->cfg.ca, h->ca, h->ca_len);
                call->cfg.ca_len = h->ca_len;
            }
        }
        struct kube_client_opts opts = {.timeout_ms = h->timeout_s * 1000,
                                        .connect_timeout_ms = h->timeout_s * 1000,
                                        .max_retries = -1,
                                        .user_agent = "muster-sim (kube-apiserver admission)"};
        int rc = call->cfg.server ? kube_client_new(call->w->loop, &call->cfg, &opts, &call->client)
                                  : MUSTER_EINVAL;
        json_object *rev = rc == 0 ? review(call) : NULL;
        const char *body = rev ? json_object_to_json_string_ext(rev, JSON_C_TO_STRING_PLAIN) : NULL;
        struct kube_request req = {.verb = KUBE_CREATE, .path = slash ? slash : "/", .body = body};
        if (rc == 0)
            rc = kube_request(call->client, &req, on_response, call);
        json_object_put(rev);
        if (rc == 0)
            return; /* on_response goes on */
        failed(call, scheme ? kube_strerror(rc) : "the sim reaches webhooks by url only");
        if (call->client) {
            kube_client_close(call->client, client_closed, call);
            return;
        }
        kube_config_close(&call->cfg);
    }
    if (call->decided)
        finish(call, call->decided_rc, call->decided_msg);
    else
        finish(call, 0, NULL);
}

int sim_webhooks_admit_create(struct sim_webhooks *w, const struct sim_resource *r, const char *ns,
                              json_object *obj, sim_webhooks_done_cb done, void *data)
{
    if (!w || w->closing)
        return 1;
    struct wh_call *call = muster_calloc(1, sizeof(*call));
    if (!call)
        return MUSTER_ENOMEM;
    call->w = w;
    call->r = r;
    struct collect c = {call, r};
    sim_store_each(
        w->store,
        sim__res_of("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"),
        collect_hooks, &c);
    if (!call->nhooks) {
        call_free(call);
        return 1;
    }
    json_object_deep_copy(obj, &call->obj, NULL);
    snprintf(call->ns, sizeof(call->ns), "%s", ns ? ns : "");
    /* The create handler sets the object's namespace from the request's before admission
     * (apiserver/pkg/endpoints/handlers/create.go: EnsureObjectNamespaceMatchesRequestNamespace),
     * so a webhook reads it in request.object. */
    json_object *md = call->obj ? sim__get_path(call->obj, "metadata", NULL, NULL) : NULL;
    if (r->namespaced && ns && ns[0] && json_object_is_type(md, json_type_object))
        json_object_object_add(md, "namespace", json_object_new_string(ns));
    sim_uuid(call->uid, sizeof(call->uid));
    call->done = done;
    call->data = data;
    call->next = w->live;
    if (w->live)
        w->live->prev = call;
    w->live = call;
    next_hook(call);
    return 0;
}

void sim_webhooks_shutdown(struct sim_webhooks *w)
{
    if (!w)
        return;
    w->closing = 1;
    /* Each live call's client closes; its close callback finishes the call. */
    for (struct wh_call *c = w->live; c; c = c->next)
        if (c->client)
            kube_client_close(c->client, client_closed, c);
}

void sim_webhooks_free(struct sim_webhooks *w)
{
    if (!w)
        return;
    while (w->live) {
        struct wh_call *c = w->live;
        unlink_call(c);
        call_free(c);
    }
    muster_free(w);
}
