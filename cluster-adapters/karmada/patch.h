/* Every patch muster writes to a ResourceBinding: to hold it and to say why it waits (built
 * from the RB as read, merged into what is there, never replacing `suspension.dispatching` or
 * other conditions, and empty when nothing would change, so a steady state writes nothing), and
 * the RB patches of the dispatch commit protocol (DESIGN.md "The commit protocol",
 * docs/gangobj.md). The dispatcher asks for these and never spells an RB field itself.
 *
 * One style for all of them: int karmada_patch_xxx(..., json_object **out), returning 0 or a
 * MUSTER_* code, *out a new object owned by the caller (NULL on any failure). A json_object *
 * return with NULL for ENOMEM would not do: several builders have a second outcome besides
 * "out of memory" that the caller must tell apart, "nothing to change" (a 0 with *out NULL:
 * hold, waiting, condition) and "the input is wrong" (MUSTER_EINVAL: webhook_hold without a
 * spec, assign without shares, a dispatching value outside the enum). */
#ifndef MUSTER_KARMADA_PATCH_H
#define MUSTER_KARMADA_PATCH_H

#include "cluster-adapters/karmada/gang.h"

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

/* What a protocol patch does with spec.suspension.dispatching. Muster sets the barrier
 * (dispatching true) only when the user had not; releasing or rolling back restores what the
 * user had, and KEEP leaves the member out of the patch (muster did not set the barrier). */
enum karmada_dispatching {
    KARMADA_DISPATCHING_KEEP,   /* not in the patch: left as it is */
    KARMADA_DISPATCHING_REMOVE, /* null: removed (the RB had none) */
    KARMADA_DISPATCHING_FALSE,
    KARMADA_DISPATCHING_TRUE,
};

/* The value to restore from what a read found (karmada_workload.suspend_dispatching and the
 * ledger's user_dispatching: -1 absent, 0 false, 1 true): REMOVE, FALSE or TRUE. */
enum karmada_dispatching karmada_dispatching_from(int found);

/* The RB merge patches of the protocol. Each returns 0 with *out set, MUSTER_ENOMEM, or
 * MUSTER_EINVAL as said; *out is NULL on failure.
 * assign (step 3): spec.clusters [{name, replicas}] from the shares, the applied-placement
 *   annotation (the JSON text of spec.placement as karmada-scheduler writes it, "{}" when
 *   absent), and when barrier != 0 spec.suspension.dispatching: true. Other suspension members
 *   are never touched. MUSTER_EINVAL when in has no shares or an entry without a cluster.
 * assign_lift (steps 3 and 5 at once, when there is nothing to create and so no barrier): the
 *   assign patch without the barrier and with spec.suspension.scheduling: false.
 * release (step 5): spec.suspension.scheduling: false, and dispatching as user_dispatching says
 *   (KEEP when muster did not set the barrier). MUSTER_EINVAL for a value outside the enum.
 * resume (resume mode): spec.suspension.scheduling: false only.
 * rollback barrier: spec.suspension.dispatching: true.
 * rollback clear: spec.clusters null, spec.gracefulEvictionTasks null (the whole gang is taken
 *   back: an eviction task must not meet the next placement), applied-placement annotation
 *   null, spec.suspension.scheduling true, dispatching as in release. After a rollback barrier
 *   the barrier is muster's: pass the user's value, not KEEP, or dispatching stays suspended. */
int karmada_patch_assign(const struct karmada_gang_input *in, int barrier, json_object **out);
int karmada_patch_assign_lift(const struct karmada_gang_input *in, json_object **out);
int karmada_patch_release(enum karmada_dispatching user_dispatching, json_object **out);
int karmada_patch_resume(json_object **out);
int karmada_patch_rollback_barrier(json_object **out);
int karmada_patch_rollback_clear(enum karmada_dispatching user_dispatching, json_object **out);

/* /status merge patch: condition Scheduled=True reason Success with
 * KARMADA_GANG_SCHEDULED_MESSAGE, every other condition kept (karmada_patch_condition),
 * lastTransitionTime changed only when the status flips, observedGeneration and
 * status.schedulerObservedGeneration = metadata.generation, status.lastScheduledTime = now
 * (RFC 3339), and metadata.resourceVersion = rb's, so the patch fails with 409 rather than
 * overwrite conditions written since rb was read (rebuild it from a fresh read then). Always a
 * patch, since lastScheduledTime moves. 0, MUSTER_EINVAL (now NULL) or MUSTER_ENOMEM. */
int karmada_patch_status_scheduled(json_object *rb, const char *now, json_object **out);

/* The same as an RFC 6902 JSON patch of /status (application/json-patch+json), which needs no
 * resourceVersion: a concurrent aggregatedStatus or FullyApplied write by Karmada no longer
 * conflicts. It tests metadata.generation (when read) and what it touches as rb shows it, then
 * writes exactly the Scheduled condition, status.schedulerObservedGeneration and
 * status.lastScheduledTime:
 *   - a Scheduled condition at index i: its type, status, reason, lastTransitionTime and
 *     observedGeneration tested (absent ones against null), then replaced at i;
 *   - a conditions list without one: each entry's type tested at its index, then appended;
 *   - no list: tested absent, then added; no status: tested absent, then added whole.
 * A failed test is kube-apiserver's 422: read the RB again and rebuild. Serialize it without
 * escaping '/' (JSON_C_TO_STRING_NOSLASHESCAPE): the apiserver compares strings as JSON text.
 * 0, MUSTER_EINVAL (now NULL) or MUSTER_ENOMEM; *out is the array of operations. */
int karmada_patch_status_scheduled_ops(json_object *rb, const char *now, json_object **out);
/* The same with msg (NULL or "": KARMADA_GANG_SCHEDULED_MESSAGE) as the condition's message:
 * a gang admitted at less than it asked for says so where its user looks (issue 20, a JobSet
 * at fewer Jobs). The message is never tested, so a changed one needs no read. */
int karmada_patch_status_scheduled_msg_ops(json_object *rb, const char *now, const char *msg,
                                           json_object **out);

struct kube_jw;
/* The same operations written as text into w (kube/jsonwrite.h; w made without slash
 * escaping): the bytes karmada_patch_status_scheduled_ops's tree prints as, without the tree
 * (issue 22: one per dispatched RB); msg (NULL or "": KARMADA_GANG_SCHEDULED_MESSAGE) is the
 * condition's message. 0, or MUSTER_EINVAL (now NULL); out of memory is w->bad. */
int karmada_patch_status_scheduled_ops_write(json_object *rb, const char *now, const char *msg,
                                             struct kube_jw *w);

#endif
