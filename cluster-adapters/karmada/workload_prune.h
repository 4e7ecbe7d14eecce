/* What the informers cache of the objects workload.c and gang.c read: a resource template or a
 * ResourceBinding pruned to the fields muster reads, so a million cached objects do not keep
 * their pod specs and managed fields. */
#ifndef MUSTER_KARMADA_WORKLOAD_PRUNE_H
#define MUSTER_KARMADA_WORKLOAD_PRUNE_H

#include "cluster-adapters/karmada/workload.h"

#include <json-c/json.h>

/* What the informers cache of a resource template (Deployment, StatefulSet, batch Job, Volcano
 * Job, Pod): a
 * new object holding only what karmada_workload_read and gang.c read of it, so a million cached
 * templates do not keep their pod specs: apiVersion, kind; metadata name, namespace, uid,
 * resourceVersion, generation, and of labels and annotations only muster's keys (the queue
 * keys, the gang dialects' KARMADA_WORKLOAD_POD_META_KEYS, KARMADA_WORKLOAD_MIN_MEMBER_ANNOTATION,
 * KARMADA_WORKLOAD_PLACEMENT_ANNOTATION, the group-size and the KARMADA_GROUPS_* topology
 * annotations, the KARMADA_NETTOPO_* member topology annotations; an object left empty stays, as gang.c asks whether a
 * pod's annotations exist); spec priorityClassName, minAvailable, queue, podManagementPolicy,
 * tasks[] name and replicas; spec.template metadata (labels and annotations with only the
 * dialects' keys) and spec.template.spec priorityClassName and containers' resources. A value of an unexpected type is kept as it is, so
 * the read of the pruned object fails exactly as the read of the whole one. Values are shared
 * with tmpl, which is not changed. Returns a new reference, or NULL when out of memory.
 * Whatever is added to the reads of templates must be added here (tests/unit/karmada/
 * test_workload.c compares reads and gang objects of whole and pruned fixtures). */
json_object *karmada_workload_prune_template(json_object *tmpl);

/* What the informers cache of a ResourceBinding: rb itself, changed in place, without
 * metadata.managedFields and metadata.ownerReferences, with only the labels muster reads (the
 * queue keys, KARMADA_WORKLOAD_PERMANENT_ID_LABEL, KARMADA_WEBHOOK_SKIP_LABEL) and the annotations
 * it reads (the queue keys, min-member, placement, group-size, the KARMADA_GROUPS_* topology
 * and KARMADA_NETTOPO_* member topology annotations); a labels or annotations object left empty is
 * dropped. spec and status are kept whole: they are read, and status patches carry every
 * condition. Returns a new reference to rb. */
json_object *karmada_workload_prune_binding(json_object *rb);

/* What the informers cache of muster's PodGroup Works: work itself, changed in place, without
 * metadata.managedFields and metadata.ownerReferences, without the metadata of each manifest
 * (muster compares a manifest's spec only) and without each manifest status' identifier and
 * health (muster reads its status). Kept: the Work's own metadata (its labels and annotations
 * name the binding), the manifests' apiVersion, kind and spec, the conditions (Applied). Less
 * to compact at each of a Work's status updates and to hold per running gang (issue 22).
 * Returns a new reference to work. */
json_object *karmada_workload_prune_work(json_object *work);

#endif
