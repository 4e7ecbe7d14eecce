/* The mutating admission webhook for ResourceBindings: an AdmissionReview (admission.k8s.io/v1)
 * in, an AdmissionReview out that holds a new RB of a kind muster queues (spec.suspension.
 * scheduling: true, merged into any suspension already there) and lets everything else pass
 * unchanged. A pure function of the request bytes, so it is fuzzed (tests/fuzz/fuzz_webhook.c);
 * dispatcher/api/admission.c serves it at POST /admission/resourcebindings. docs/webhook.md. */
#ifndef MUSTER_KARMADA_WEBHOOK_H
#define MUSTER_KARMADA_WEBHOOK_H

#include <json-c/json.h>
#include <stddef.h>

/* The route the API server serves it at (the MutatingWebhookConfiguration's clientConfig). */
#define KARMADA_WEBHOOK_PATH "/admission/resourcebindings"
/* The opt-out label on an RB: with value "true" the RB is never held by the webhook. The
 * manifest's objectSelector excludes such RBs before the apiserver calls us; the check here
 * keeps the rule true when the selector is missing or edited. */
#define KARMADA_WEBHOOK_SKIP_LABEL "scheduling.muster.io/skip"
/* The largest review accepted. It equals the admin API's cap on any body (API_GUARD_BODY_MAX,
 * dispatcher/reqguard.h), above which the API answers 413 before routing; an RB holds no
 * template, so real reviews are a few KiB. */
#define KARMADA_WEBHOOK_REVIEW_MAX (128 * 1024)
/* JSON nesting accepted: an RB's placement nests about 10 deep under request.object; the cap
 * only stops a hostile body from costing stack in json-c. */
#define KARMADA_WEBHOOK_DEPTH_MAX 64
/* request.uid: the apiserver sends a UUID; anything longer or not printable ASCII is refused so
 * that what we echo back is always a clean JSON string. */
#define KARMADA_WEBHOOK_UID_MAX 128

/* What the webhook did with one review; each is a label value of muster_webhook_reviews_total. */
enum karmada_webhook_verdict {
    KARMADA_WEBHOOK_HELD,           /* patched: spec.suspension.scheduling set to true */
    KARMADA_WEBHOOK_ALREADY_HELD,   /* scheduling was already true: allowed, no patch */
    KARMADA_WEBHOOK_SKIP_KIND,      /* the RB binds a kind muster does not queue */
    KARMADA_WEBHOOK_SKIP_LABEL_SET, /* the RB carries scheduling.muster.io/skip: "true" */
    KARMADA_WEBHOOK_SKIP_OPERATION, /* not a CREATE (UPDATE, DELETE, CONNECT) */
    KARMADA_WEBHOOK_SKIP_RESOURCE,  /* not a work.karmada.io/v1alpha2 ResourceBinding */
    KARMADA_WEBHOOK_REFUSED,        /* denied: its queue does not admit its namespace */
    KARMADA_WEBHOOK_INVALID,        /* malformed review: HTTP 400/413, no AdmissionReview */
    KARMADA_WEBHOOK_VERDICTS
};

/* The verdict's metric label: "held", "already_held", "skip_kind", "skip_label",
 * "skip_operation", "skip_resource", "refused", "invalid". */
const char *karmada_webhook_verdict_name(enum karmada_webhook_verdict v);

/* The rule for one ResourceBinding as read (borrowed), shared by the webhook and the watch
 * path so that an RB created while the webhook was down is held by the same rule:
 * SKIP_LABEL_SET (opt-out label), SKIP_KIND (a kind muster does not queue), ALREADY_HELD
 * (spec.suspension.scheduling is true) or HELD (it should be held: send karmada_patch_hold from
 * the watch, karmada_patch_webhook_hold from the webhook). It does not know whether muster
 * itself released the RB: the watch path must skip RBs its ledger shows as dispatched. */
enum karmada_webhook_verdict karmada_webhook_rb_verdict(json_object *rb);

/* Decides one review: body[0..len) is the request body the apiserver posted.
 * On success returns 0, *out is the AdmissionReview to answer with (a new object owned by the
 * caller: response.uid = request.uid, allowed true, and for HELD patchType "JSONPatch" and patch
 * = base64 of the RFC 6902 patch from karmada_patch_webhook_hold) and *verdict says why.
 * A malformed review returns MUSTER_EINVAL (answer HTTP 400) or MUSTER_ELIMIT (over
 * KARMADA_WEBHOOK_REVIEW_MAX or KARMADA_WEBHOOK_DEPTH_MAX: 413) with *out NULL, *verdict INVALID
 * and a sentence in err[0..errcap) naming the field ("request.uid is missing"). MUSTER_ENOMEM when
 * an allocation fails. Never keeps a reference to body. */
int karmada_webhook_review(const char *body, size_t len, json_object **out,
                           enum karmada_webhook_verdict *verdict, char *err, size_t errcap);

/* Asked about an RB the webhook would hold: 1 to deny its creation, with why[0..cap) the
 * message the apiserver hands back to its creator (Karmada's detector puts it in an
 * ApplyPolicyFailed event on the template), 0 to hold it, -1 when it cannot tell yet. */
typedef int (*karmada_webhook_refuse_fn)(void *ud, json_object *rb, char *why, size_t cap);

/* karmada_webhook_review, with refuse (NULL: never) asked about each RB it would hold: a
 * refusal answers allowed: false with status 403 Forbidden and the message, verdict REFUSED;
 * "cannot tell yet" returns MUSTER_EBUSY with *out NULL (the caller asks again later). */
int karmada_webhook_review_with(const char *body, size_t len, karmada_webhook_refuse_fn refuse,
                                void *ud, json_object **out,
                                enum karmada_webhook_verdict *verdict, char *err, size_t errcap);

#endif
