#!/usr/bin/env bash
# Issue 20, topology inside a member: muster passes a gang's rack constraint down as Volcano's
# networkTopology, only to members whose Volcano has HyperNodes. Two Volcano members of 8 GPUs
# (tests/fixtures/dispatch/nettopo.yaml): east lists topology.volcano.sh/v1alpha1 hypernodes in
# its Cluster's status.apiEnablements, west does not.
#   - a spread gang of 12 one-GPU pods with member-topology-preferred: 1 runs over both; east's
#     PodGroup says {mode: soft, highestTierAllowed: 1}, west's says nothing;
#   - the same gang with member-topology-required: 1 may use east only: it waits, and says that
#     west lacks Volcano's network topology; 6 pods with it required run in east alone, hard;
#   - 6 pods with member-topology-required: leaf (a tier by name, Volcano v1.14's
#     highestTierName) wait while no member is known to read names, and run in east, by name,
#     once the operator labels east scheduling.muster.io/volcano-tier-names=true.
# Every write is checked against the CRDs (the vendored Volcano PodGroup has networkTopology).
# Usage: dispatch_nettopo.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_nettopo TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"

start_sim "$SRC/tests/fixtures/dispatch/nettopo.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"16"}'
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
# gang NAME REPLICAS ANNOTATION: a spread Deployment of one-GPU pods
gang() {
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: team
  labels: {app: $1, volcano.sh/queue-name: q}
  annotations: {scheduling.muster.io/placement: spread, $3}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - {name: w, image: registry.example/trainer:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}
YAML
}
# topo CLUSTER GANG: the networkTopology of muster's PodGroup in CLUSTER's Work ("null": none)
topo() {
    k get works -n "karmada-es-$1" -l app.kubernetes.io/managed-by=muster -o json |
        jq -cS --arg n "muster-pg-team.$2-deployment" \
            '[.items[] | select(.metadata.name == $n)][0].spec.workload.manifests[0].spec.networkTopology'
}
# the PodGroup as east's member holds it (what Karmada's execution controller applied)
member_topo() {
    curl -sf "$BASE/debug/sim/clusters/$1/objects" |
        jq -cS --arg n "muster-$2-deployment" \
            '[.items[] | select(.kind == "PodGroup" and .metadata.name == $n)][0].spec.networkTopology'
}

nt() { api GET "/api/v1/clusters/$1" | jq -r .networkTopology; }
wait_until 10 "east to take networkTopology" is_eq true nt east
expect "$(nt west)" false "west takes none (no HyperNodes)"

# --- preferred: both members, the fields only where HyperNodes are ---
gang soft 12 'scheduling.muster.io/member-topology-preferred: "1"'
wait_until 30 "the preferred gang to run" is_eq running state soft-deployment
expect "$(rbj soft-deployment '{.spec.clusters[*].name}' | tr ' ' '\n' | sort | tr '\n' ' ')" \
    "east west " "over both members"
expect "$(topo east soft)" '{"highestTierAllowed":1,"mode":"soft"}' "east's PodGroup"
expect "$(topo west soft)" null "west's PodGroup: no HyperNodes, no networkTopology"
expect "$(member_topo east soft)" '{"highestTierAllowed":1,"mode":"soft"}' "in east's member"
k delete deployment soft >/dev/null
wait_until 30 "soft's GPUs back" is_eq 0 gpus

# --- required: only a member that can keep it ---
gang hard 12 'scheduling.muster.io/member-topology-required: "1"'
wait_until 20 "the required gang of 12 to wait" is_eq "False/NoClusterFit" \
    rb_cond hard-deployment Scheduled
msg=$(rb_cond_msg hard-deployment Scheduled)
echo "why: $msg"
[[ "$msg" == *"topology.volcano.sh/v1alpha1 hypernodes"* && "$msg" == *west* ]] ||
    dfail "the reason names the missing HyperNodes and where: $msg"
expect "$(rbj hard-deployment '{.spec.clusters}')" "" "nothing placed while it waits"
k delete deployment hard >/dev/null
gang hard6 6 'scheduling.muster.io/member-topology-required: "1"'
wait_until 30 "the required gang of 6 to run" is_eq running state hard6-deployment
expect "$(rb_clusters hard6-deployment)" "east=6 " "east alone, though spread"
expect "$(topo east hard6)" '{"highestTierAllowed":1,"mode":"hard"}' "east's PodGroup, hard"

k delete deployment hard6 >/dev/null
wait_until 30 "hard6's GPUs back" is_eq 0 gpus

# --- a tier by name (highestTierName, Volcano v1.14): only members that read names ---
tn() { api GET "/api/v1/clusters/$1" | jq -r .networkTopologyTierNames; }
expect "$(tn east)" false "east's Volcano is not known to read tier names"
gang named 6 'scheduling.muster.io/member-topology-required: leaf'
wait_until 20 "the named gang to wait" is_eq "False/NoClusterFit" rb_cond named-deployment Scheduled
msg=$(rb_cond_msg named-deployment Scheduled)
echo "why: $msg"
[[ "$msg" == *"tier names for its required member topology by tier name"*"scheduling.muster.io/volcano-tier-names"*"shard.volcano.sh/v1alpha1 nodeshards in status.apiEnablements"*east* ]] ||
    dfail "the reason names the missing tier names and where: $msg"
expect "$(rbj named-deployment '{.spec.clusters}')" "" "nothing placed while it waits"
# the operator says east's Volcano is v1.14 or later
k label cluster east scheduling.muster.io/volcano-tier-names=true >/dev/null
wait_until 10 "east to take tier names" is_eq true tn east
wait_until 30 "the named gang to run" is_eq running state named-deployment
expect "$(rb_clusters named-deployment)" "east=6 " "east alone"
expect "$(topo east named)" '{"highestTierName":"leaf","mode":"hard"}' "east's PodGroup, by name"
expect "$(member_topo east named)" '{"highestTierName":"leaf","mode":"hard"}' "in east's member"

# --- a tier that is not one is refused with the reason ---
gang typo 2 'scheduling.muster.io/member-topology-required: "rack 1"'
wait_until 20 "the typo to be refused" is_eq "False/Unschedulable" rb_cond typo-deployment Scheduled
msg=$(rb_cond_msg typo-deployment Scheduled)
[[ "$msg" == *'"rack 1" is not a HyperNode tier'* ]] || dfail "the typo's reason: $msg"
finish
