/* Topology inside a member (issue 20, "passes the group structure down in the member's
 * dialect"): the racks of one cluster, which muster cannot see, stated to the member's Volcano
 * as network-topology fields of the PodGroups muster writes there. Read from muster's
 * annotations, detected from a Cluster's status.apiEnablements, written by gang.c and
 * gang_split.c. Pure: json-c in and out, no I/O. docs/gangobj.md, "Network topology inside a
 * member".
 *
 * Volcano's fields (volcano-sh/apis pkg/apis/scheduling/v1beta1/types.go NetworkTopologySpec):
 * {mode: hard|soft, highestTierAllowed: N}, where N is the highest HyperNode tier
 * (topology.volcano.sh/v1alpha1 HyperNode spec.tier; tier 1 is the switch nearest the nodes) the
 * pods may cross. PodGroup spec.networkTopology and the Volcano Job's spec.networkTopology
 * arrived with the HyperNode CRD in Volcano v1.12.0; subGroupPolicy[].networkTopology and
 * highestTierName in v1.14.0. */
#ifndef MUSTER_KARMADA_GANG_NETTOPO_H
#define MUSTER_KARMADA_GANG_NETTOPO_H

#include "cluster-adapters/karmada/workload.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* The annotations (template first, then the RB), each a HyperNode tier (a whole number >= 1):
 *   scheduling.muster.io/member-topology-required: "2"   each cluster's share of the gang
 *                                                          within one tier-2 HyperNode (hard)
 *   scheduling.muster.io/member-topology-preferred: "1"  ... if the member can (soft)
 *   scheduling.muster.io/member-group-topology-required: "1"   each group within one tier-1
 *                                                                HyperNode (hard)
 *   scheduling.muster.io/member-group-topology-preferred: "1" */
#define KARMADA_NETTOPO_REQUIRED "scheduling.muster.io/member-topology-required"
#define KARMADA_NETTOPO_PREFERRED "scheduling.muster.io/member-topology-preferred"
#define KARMADA_NETTOPO_GROUP_REQUIRED "scheduling.muster.io/member-group-topology-required"
#define KARMADA_NETTOPO_GROUP_PREFERRED "scheduling.muster.io/member-group-topology-preferred"
/* The API whose presence in a Cluster's apiEnablements says its Volcano has network topology. */
#define KARMADA_NETTOPO_API_GROUP_VERSION "topology.volcano.sh/v1alpha1"
#define KARMADA_NETTOPO_API_RESOURCE "hypernodes"
/* A tier past this is refused: Volcano's own examples stop at 3 or 4 tiers; a typo is likelier */
#define KARMADA_NETTOPO_TIER_MAX 16
/* A tier stated by name (Volcano's highestTierName, v1.14.0: a HyperNode spec.tierName) rather
 * than by number: struct karmada_nettopo.tier holds this, the name is read again where the
 * objects are built (karmada_member_topo_read_names), so a binding keeps no string for it. */
#define KARMADA_NETTOPO_TIER_NAMED UINT32_MAX
#define KARMADA_NETTOPO_NAME_MAX 63
/* Whether a member's Volcano reads highestTierName: the Cluster label (an operator's word,
 * "true" or "false") first, else its apiEnablements listing shard.volcano.sh/v1alpha1
 * nodeshards, a CRD Volcano's chart installs from v1.14.0 on, the release that added
 * highestTierName (v1.12 and v1.13 serve the same HyperNode resource, so that cannot tell). */
#define KARMADA_NETTOPO_NAMES_LABEL "scheduling.muster.io/volcano-tier-names"
#define KARMADA_NETTOPO_NAMES_API_GROUP_VERSION "shard.volcano.sh/v1alpha1"
#define KARMADA_NETTOPO_NAMES_API_RESOURCE "nodeshards"

/* One network-topology constraint: tier 0 is none, KARMADA_NETTOPO_TIER_NAMED a tier by name. */
struct karmada_nettopo {
    uint32_t tier;
    int required; /* 1: mode hard; 0: mode soft */
};

/* What a workload asks of the members' racks. */
struct karmada_member_topo {
    struct karmada_nettopo share; /* each cluster's share: the PodGroup's spec.networkTopology */
    struct karmada_nettopo group; /* each group: subGroupPolicy[].networkTopology */
};

/* Reads the annotations above from tmpl's metadata, else rb's, into *out (zeroed first). w is
 * the workload karmada_workload_read found in the same objects, split 1 when it is placed group
 * by group (a JobSet or LeaderWorkerSet with placement spread: its PodGroups carry a
 * subGroupPolicy). Returns 0, or MUSTER_EINVAL with a sentence fit for the RB's Scheduled=False
 * condition in why[0..cap) (reason Unschedulable) when a value is not a tier in
 * 1..KARMADA_NETTOPO_TIER_MAX, when both the required and the preferred key of one scope are set
 * (Volcano's networkTopology has one mode), when the kind gets no PodGroup from muster (a Volcano
 * Job states its own spec.networkTopology; a JobSet or LeaderWorkerSet kept whole gets no
 * objects), or when the group keys are set on a workload whose pods no member can tell apart by
 * group (only a split JobSet's or LeaderWorkerSet's subGroupPolicy names each group). */
int karmada_member_topo_read(struct karmada_member_topo *out, const struct karmada_workload *w,
                             int split, json_object *rb, json_object *tmpl, char *why, size_t cap);

/* The tier names of the scopes stated by name ("" for the others). */
struct karmada_member_topo_names {
    char share[KARMADA_NETTOPO_NAME_MAX + 1];
    char group[KARMADA_NETTOPO_NAME_MAX + 1];
};

/* karmada_member_topo_read, and the names of the scopes stated by name into *names (NULL: not
 * kept). A value that is a tier name (a letter, then letters, digits, '-', '_' or '.', ending in
 * a letter or digit, at most KARMADA_NETTOPO_NAME_MAX) reads as KARMADA_NETTOPO_TIER_NAMED. */
int karmada_member_topo_read_names(struct karmada_member_topo *out,
                                   struct karmada_member_topo_names *names,
                                   const struct karmada_workload *w, int split, json_object *rb,
                                   json_object *tmpl, char *why, size_t cap);

/* 1 when the member's Volcano reads highestTierName (KARMADA_NETTOPO_NAMES_LABEL "true", or no
 * such label and status.apiEnablements list shard.volcano.sh/v1alpha1 nodeshards), else 0. */
int karmada_member_topo_names_detect(json_object *cluster);

/* 1 when the Cluster's status.apiEnablements list topology.volcano.sh/v1alpha1 hypernodes (the
 * member's Volcano is v1.12 or later and has the HyperNode CRD), else 0 (a Cluster that reports
 * no apiEnablements yet included: nothing is written for racks nobody has described). */
int karmada_member_topo_detect(json_object *cluster);

/* Adds {"mode": "hard"|"soft", "highestTierAllowed": tier} as obj["networkTopology"] when
 * t->tier > 0, or {"mode", "highestTierName": name} for a tier by name when name is a name
 * (the member reads names); nothing otherwise (a named tier and name NULL or "" included).
 * *bad set on ENOMEM (kube_json_add's sticky flag). */
void karmada_nettopo_write(json_object *obj, const struct karmada_nettopo *t, const char *name,
                           int *bad);

#endif
