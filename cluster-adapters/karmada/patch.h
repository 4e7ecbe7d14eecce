/* The patches muster writes to a ResourceBinding to hold it and to say why it waits: built
 * from the RB as read, merged into what is there (never replacing `suspension.dispatching` or
 * other conditions), and empty when nothing would change, so a steady state writes nothing. */
#ifndef MUSTER_KARMADA_PATCH_H
#define MUSTER_KARMADA_PATCH_H

#include <json-c/json.h>

/* JSON merge patch for the RB that sets spec.suspension.scheduling to true, or NULL in *out
 * when it already is. Merge patches merge objects member by member, so `dispatching` and
 * `dispatchingOnClusters` survive. Returns 0 or MUSTER_ENOMEM; *out is owned by the caller. */
int karmada_patch_hold(json_object *rb, json_object **out);

/* The admission webhook's form of the same (a JSON patch, RFC 6902, as AdmissionReview wants):
 * `add /spec/suspension {"scheduling":true}` only when spec.suspension is absent, otherwise
 * `add /spec/suspension/scheduling true`, which keeps the other members; an empty array when
 * scheduling is already true. MUSTER_EINVAL when rb has no spec object. */
int karmada_patch_webhook_hold(json_object *rb, json_object **out);

/* JSON merge patch for the RB's /status setting condition Scheduled to False with reason
 * (QuotaExceeded, NoClusterFit, Unschedulable) and message, keeping every other condition as
 * it is (a merge patch replaces arrays whole). lastTransitionTime changes only when the status
 * flips; observedGeneration is the RB's metadata.generation; metadata.resourceVersion is the
 * RB's when it has one, so the API server refuses (409) a patch built from a stale read. NULL
 * in *out when the condition already says exactly this. now is RFC 3339
 * ("2026-11-22T02:20:00Z"). */
int karmada_patch_waiting(json_object *rb, const char *reason, const char *message, const char *now,
                         json_object **out);

/* The one place RB conditions are merged (karmada_patch_waiting and the dispatch commit's
 * Scheduled=True both use it): a /status merge patch {"status":{"conditions":[...]}} that sets
 * condition `type` to status, reason and message and carries every other condition of rb
 * unchanged, in its place (a new one goes last). lastTransitionTime is now unless the
 * condition already had this status; observedGeneration is rb's metadata.generation. When the
 * condition already says exactly this, *out is NULL unless force is set (a caller that writes
 * more than the condition). Returns 0 or MUSTER_ENOMEM; *out is owned by the caller and may
 * share the copied conditions with rb by reference, so neither may be modified in place. */
int karmada_patch_condition(json_object *rb, const char *type, const char *status,
                           const char *reason, const char *message, const char *now, int force,
                           json_object **out);

#endif
