/* Karmada's Work mutating webhook (pkg/webhook/work/mutating.go), as a store admission hook. */
#ifndef MUSTER_SIM_WORK_WEBHOOK_H
#define MUSTER_SIM_WORK_WEBHOOK_H

#include <json-c/json.h>

struct sim_resource;

/* A sim_store_admit_cb: for works.work.karmada.io, *out gets the Work with a
 * work.karmada.io/permanent-id label (a new UUID when missing) and every manifest passed
 * through sim_work_webhook_manifest; other resources are left alone (*out NULL). Returns 0 or
 * MUSTER_ENOMEM. data is unused. */
int sim_work_webhook_admit(void *data, const struct sim_resource *r, json_object *obj,
                           json_object **out);

/* util.SetLabelsAndAnnotationsForWorkload on a copy of manifest: the
 * resourcetemplate.karmada.io/managed-annotations record, label work.karmada.io/permanent-id
 * (when work_pid is not NULL), the resourcetemplate.karmada.io/managed-labels record. Returns
 * the new manifest (nested values shared with manifest), or NULL when it is not an object or
 * memory ran out. */
json_object *sim_work_webhook_manifest(json_object *manifest, const char *work_pid);

#endif
