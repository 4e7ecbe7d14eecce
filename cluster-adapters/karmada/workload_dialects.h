/* Reading the gang as other dialects state it on a workload's pods: YuniKorn task groups and
 * scheduling policy, Kueue pod groups, a coscheduling (scheduler-plugins) PodGroup label and a
 * Volcano PodGroup annotation (docs/workload.md, "Gang dialects"). Pure: json-c in, fields of
 * struct karmada_workload out. */
#ifndef MUSTER_KARMADA_WORKLOAD_DIALECTS_H
#define MUSTER_KARMADA_WORKLOAD_DIALECTS_H

#include "cluster-adapters/karmada/workload.h"

#include <json-c/json.h>

/* For workload.c's read: validates every dialect key found on the pod metadata of tmpl (the pod
 * template's for a Deployment, StatefulSet or Job, the Pod's own; a Volcano Job has none) and
 * fills w's dialect, group_name, group_total, task_groups, task_group_min, task_group,
 * gang_timeout_s and gang_soft. w->kind and w->replicas must be read already. Returns 0, or
 * MUSTER_EINVAL / MUSTER_ELIMIT with w's reason INVALID and a message naming the key. */
int karmada__workload_read_dialects(struct karmada_workload *w, json_object *tmpl);

/* For workload.c's read, after the above: when the pods name a coscheduling or Volcano PodGroup,
 * looks it up through hub in the template's namespace and fills group_found, group_min,
 * group_queue, group_priority_class (and gang_timeout_s from a coscheduling PodGroup's
 * scheduleTimeoutSeconds when nothing set it). Fails REFUSED for a Volcano PodGroup the hub
 * serves but does not hold, INVALID for malformed fields. */
int karmada__workload_read_hub_group(struct karmada_workload *w,
                                     const struct karmada_workload_hub *hub, json_object *rb,
                                     json_object *tmpl);

#endif
