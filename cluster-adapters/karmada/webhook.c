/* The ResourceBinding admission webhook's decision (see webhook.h): parse and check the review,
 * decide by operation, resource, opt-out label and workload kind, answer with the hold patch. */
#include "cluster-adapters/karmada/webhook.h"

#include "cluster-adapters/kube/base64.h"
#include "cluster-adapters/kube/json.h"

#include "cluster-adapters/karmada/patch.h"
#include "cluster-adapters/karmada/workload.h"
#include "queue/errors.h"
#include "queue/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const verdict_names[KARMADA_WEBHOOK_VERDICTS] = {
    "held",           "already_held",  "skip_kind", "skip_label",
    "skip_operation", "skip_resource", "refused",   "invalid",
};

const char *karmada_webhook_verdict_name(enum karmada_webhook_verdict v)
{
    return (unsigned)v < KARMADA_WEBHOOK_VERDICTS ? verdict_names[v] : "unknown";
}

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t cap, int rc,
                                                      const char *fmt, ...)
{
    if (cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* A string member that must be present: its value, or NULL with err saying what is wrong. */
static const char *need_str(json_object *o, const char *k, const char *where, char *err, size_t cap)
{
    json_object *v = kube_json_get(o, k);
    if (!v) {
        fail(err, cap, 0, "%s.%s is missing", where, k);
        return NULL;
    }
    if (!json_object_is_type(v, json_type_string)) {
        fail(err, cap, 0, "%s.%s is not a string", where, k);
        return NULL;
    }
    return json_object_get_string(v);
}

static int uid_ok(const char *uid)
{
    size_t n = strlen(uid);
    if (n == 0 || n > KARMADA_WEBHOOK_UID_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (uid[i] < 0x21 || uid[i] > 0x7e || uid[i] == '"' || uid[i] == '\\')
            return 0;
    return 1;
}

/* Parses body strictly: one JSON value, nothing but whitespace after it, within the caps. */
static int parse(const char *body, size_t len, json_object **out, char *err, size_t cap)
{
    *out = NULL;
    if (len > KARMADA_WEBHOOK_REVIEW_MAX)
        return fail(err, cap, MUSTER_ELIMIT, "the review is %zu bytes, above the limit of %d", len,
                    KARMADA_WEBHOOK_REVIEW_MAX);
    if (len == 0)
        return fail(err, cap, MUSTER_EINVAL, "empty body: expected an AdmissionReview");
    struct json_tokener *tok = json_tokener_new_ex(KARMADA_WEBHOOK_DEPTH_MAX);
    if (!tok)
        return MUSTER_ENOMEM;
    /* json-c takes an int length; the cap above keeps len far below INT_MAX. */
    json_object *o = json_tokener_parse_ex(tok, body, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (jerr == json_tokener_continue) {
        /* the text ended inside a value; json-c keeps no object for us */
        json_object_put(o);
        return fail(err, cap, MUSTER_EINVAL, "the body is not JSON: it ends inside a value");
    }
    if (!o || jerr != json_tokener_success) {
        json_object_put(o);
        if (jerr == json_tokener_error_depth)
            return fail(err, cap, MUSTER_ELIMIT, "the body nests deeper than %d",
                        KARMADA_WEBHOOK_DEPTH_MAX);
        return fail(err, cap, MUSTER_EINVAL, "the body is not JSON: %s at byte %zu",
                    json_tokener_error_desc(jerr), used);
    }
    for (size_t i = used; i < len; i++) {
        char c = body[i];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            json_object_put(o);
            return fail(err, cap, MUSTER_EINVAL, "data after the JSON value at byte %zu", i);
        }
    }
    *out = o;
    return 0;
}

/* The base64 (RFC 4648, no line breaks) of a JSON value's compact text, as a new string. */
static json_object *base64_json(json_object *v)
{
    size_t n = 0;
    const char *text = json_object_to_json_string_length(
        v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
    if (!text || n > KARMADA_WEBHOOK_REVIEW_MAX)
        return NULL;
    char *b = muster_malloc(KUBE_BASE64_LEN(n) + 1);
    if (!b)
        return NULL;
    int m = kube_base64_encode((const unsigned char *)text, n, b, KUBE_BASE64_LEN(n) + 1);
    json_object *s = m < 0 ? NULL : json_object_new_string_len(b, m);
    muster_free(b);
    return s;
}

/* Adds k: v to o, consuming v (also when o or v is NULL or the add fails). 1 on failure. */
static int put(json_object *o, const char *k, json_object *v)
{
    if (!o || !v || json_object_object_add(o, k, v) != 0) {
        json_object_put(v);
        return 1;
    }
    return 0;
}

/* The AdmissionReview answer: allowed, with patch when patch is non-NULL. */
/* A denial: allowed false, and the Status the apiserver returns to the creator. */
static int deny(const char *uid, const char *why, json_object **out)
{
    json_object *r = json_object_new_object();
    if (!r)
        return MUSTER_ENOMEM;
    json_object *resp = json_object_new_object(), *st = json_object_new_object();
    int bad = put(r, "apiVersion", json_object_new_string("admission.k8s.io/v1"));
    bad |= put(r, "kind", json_object_new_string("AdmissionReview"));
    bad |= put(resp, "uid", json_object_new_string(uid));
    bad |= put(resp, "allowed", json_object_new_boolean(0));
    bad |= put(st, "code", json_object_new_int(403));
    bad |= put(st, "reason", json_object_new_string("Forbidden"));
    bad |= put(st, "message", json_object_new_string(why));
    bad |= put(resp, "status", st);
    bad |= put(r, "response", resp);
    if (bad) {
        json_object_put(r);
        return MUSTER_ENOMEM;
    }
    *out = r;
    return 0;
}

static int answer(const char *uid, json_object *patch, json_object **out)
{
    json_object *r = json_object_new_object();
    if (!r)
        return MUSTER_ENOMEM;
    json_object *resp = json_object_new_object();
    int bad = put(r, "apiVersion", json_object_new_string("admission.k8s.io/v1"));
    bad |= put(r, "kind", json_object_new_string("AdmissionReview"));
    bad |= put(resp, "uid", json_object_new_string(uid));
    bad |= put(resp, "allowed", json_object_new_boolean(1));
    if (patch) {
        bad |= put(resp, "patchType", json_object_new_string("JSONPatch"));
        bad |= put(resp, "patch", base64_json(patch));
    }
    bad |= put(r, "response", resp);
    if (bad) {
        json_object_put(r);
        return MUSTER_ENOMEM;
    }
    *out = r;
    return 0;
}

enum karmada_webhook_verdict karmada_webhook_rb_verdict(json_object *rb)
{
    json_object *sched =
        kube_json_get(kube_json_get(kube_json_get(rb, "spec"), "suspension"), "scheduling");
    if (same(kube_json_str(kube_json_get(kube_json_get(rb, "metadata"), "labels"),
                           KARMADA_WEBHOOK_SKIP_LABEL),
             "true"))
        return KARMADA_WEBHOOK_SKIP_LABEL_SET;
    if (karmada_workload_kind_of(rb) == KARMADA_WORKLOAD_KIND_NONE)
        return KARMADA_WEBHOOK_SKIP_KIND;
    /* the same test karmada_patch_webhook_hold makes before it answers with an empty patch */
    if (sched && json_object_is_type(sched, json_type_boolean) && json_object_get_boolean(sched))
        return KARMADA_WEBHOOK_ALREADY_HELD;
    return KARMADA_WEBHOOK_HELD;
}

int karmada_webhook_review(const char *body, size_t len, json_object **out,
                           enum karmada_webhook_verdict *verdict, char *err, size_t errcap)
{
    return karmada_webhook_review_with(body, len, NULL, NULL, out, verdict, err, errcap);
}

int karmada_webhook_review_with(const char *body, size_t len, karmada_webhook_refuse_fn refuse,
                                void *ud, json_object **out, enum karmada_webhook_verdict *verdict,
                                char *err, size_t errcap)
{
    char scratch[1];
    if (!err || !errcap) {
        err = scratch;
        errcap = sizeof(scratch);
    }
    err[0] = '\0';
    *out = NULL;
    *verdict = KARMADA_WEBHOOK_INVALID;
    json_object *rv = NULL;
    int rc = parse(body, len, &rv, err, errcap);
    if (rc)
        return rc;
    rc = MUSTER_EINVAL;
    const char *s;
    json_object *req, *obj;
    if (!json_object_is_type(rv, json_type_object)) {
        fail(err, errcap, 0, "the body is not a JSON object: expected an AdmissionReview");
        goto done;
    }
    /* Only v1: the manifest lists admissionReviewVersions ["v1"], so another version is a
     * misconfiguration worth a loud refusal rather than a guess at v1beta1's differences. */
    s = need_str(rv, "apiVersion", "review", err, errcap);
    if (!s)
        goto done;
    if (!same(s, "admission.k8s.io/v1")) {
        fail(err, errcap, 0, "apiVersion is \"%.64s\": only admission.k8s.io/v1 is served", s);
        goto done;
    }
    s = need_str(rv, "kind", "review", err, errcap);
    if (!s)
        goto done;
    if (!same(s, "AdmissionReview")) {
        fail(err, errcap, 0, "kind is \"%.64s\": expected AdmissionReview", s);
        goto done;
    }
    req = kube_json_get(rv, "request");
    if (!req || !json_object_is_type(req, json_type_object)) {
        fail(err, errcap, 0, "request is %s: expected an object",
             req ? "not an object" : "missing");
        goto done;
    }
    const char *uid = need_str(req, "uid", "request", err, errcap);
    if (!uid)
        goto done;
    if (!uid_ok(uid)) {
        fail(err, errcap, 0,
             "request.uid must be 1 to %d printable ASCII characters without quotes or "
             "backslashes",
             KARMADA_WEBHOOK_UID_MAX);
        goto done;
    }
    const char *op = need_str(req, "operation", "request", err, errcap);
    if (!op)
        goto done;
    obj = kube_json_get(req, "object");
    int is_create = same(op, "CREATE");
    /* DELETE carries no object (null); only a CREATE needs one to decide. */
    if (is_create && (!obj || !json_object_is_type(obj, json_type_object))) {
        fail(err, errcap, 0, "request.object is %s: a CREATE review carries the new object",
             obj ? "not an object" : "missing or null");
        goto done;
    }
    rc = 0;
    json_object *patch = NULL;
    json_object *gvk = kube_json_get(req, "kind");
    const char *group = gvk ? kube_json_str(gvk, "group") : NULL,
               *version = gvk ? kube_json_str(gvk, "version") : NULL,
               *kind = gvk ? kube_json_str(gvk, "kind") : NULL;
    int is_rb = gvk ? same(group, "work.karmada.io") && same(version, "v1alpha2") &&
                          same(kind, "ResourceBinding")
                    : same(kube_json_str(obj, "apiVersion"), "work.karmada.io/v1alpha2") &&
                          same(kube_json_str(obj, "kind"), "ResourceBinding");
    if (!is_create)
        *verdict = KARMADA_WEBHOOK_SKIP_OPERATION;
    else if (!is_rb) /* a configuration edited to send other objects: never touch them */
        *verdict = KARMADA_WEBHOOK_SKIP_RESOURCE;
    else
        *verdict = karmada_webhook_rb_verdict(obj);
    /* The kind is known when HELD, so spec.resource and thereby spec are objects: the only
     * failure left in karmada_patch_webhook_hold is out of memory. */
    char why[512];
    int no = *verdict == KARMADA_WEBHOOK_HELD && refuse ? refuse(ud, obj, why, sizeof why) : 0;
    if (no < 0) {
        rc = MUSTER_EBUSY;
        goto done;
    }
    if (no) {
        *verdict = KARMADA_WEBHOOK_REFUSED;
        rc = deny(uid, why, out);
        goto done;
    }
    if (*verdict == KARMADA_WEBHOOK_HELD)
        rc = karmada_patch_webhook_hold(obj, &patch);
    if (!rc)
        rc = answer(uid, patch, out);
    json_object_put(patch);
    if (rc == MUSTER_EINVAL) /* cannot happen (see above); never leave err empty on an error */
        fail(err, errcap, 0, "request.object.spec is not an object");
    if (rc)
        *verdict = KARMADA_WEBHOOK_INVALID;
done:
    json_object_put(rv);
    return rc;
}
