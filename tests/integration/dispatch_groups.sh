#!/usr/bin/env bash
# Issue 20, first slice: scheduling.muster.io/group-size cuts a divisible gang into groups that
# placement never splits between clusters. 4 shards of 8 one-GPU pods spread over two clusters
# of 20 GPUs go 16 + 16 (the roomiest-first spread would send 20 + 12 and cut a shard in two),
# each member's PodGroup asking for its whole share; a gang whose group no single cluster holds
# waits with NoClusterFit naming the group and the largest block.
# Usage: dispatch_groups.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_groups TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"

start_sim "$SRC/tests/fixtures/dispatch/two-clusters-20gpu.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"64"}'
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
pg_min() { # CLUSTER NAME: minMember of muster's PodGroup for NAME there, or "none"
    curl -sf "$BASE/debug/sim/clusters/$1/objects" |
        jq -r --arg n "muster-$2" '[.items[] | select(.kind == "PodGroup" and .metadata.name == $n) | .spec.minMember][0] // "none"'
}
# sharded NAME REPLICAS GROUP
sharded() {
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: team
  labels: {app: $1, volcano.sh/queue-name: q}
  annotations: {scheduling.muster.io/placement: spread, scheduling.muster.io/group-size: "$3"}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - {name: shard, image: registry.example/trainer:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}
YAML
}

sharded tp 32 8
wait_until 30 "the sharded gang to run" is_eq running state tp-deployment
expect "$(rbj tp-deployment '{.spec.clusters[*].replicas}')" "16 16" \
    "spec.clusters in whole shards: 16 + 16, none cut"
expect "$(pg_min east tp-deployment) $(pg_min west tp-deployment)" "16 16" \
    "each member's PodGroup asks for its whole share"

# once tp has gone the fleet has 40 GPUs free, and still no single cluster holds a group of 24
k delete deployment tp >/dev/null
wait_until 30 "tp's GPUs back" is_eq 0 eval "api GET /api/v1/queues/q | jq -r '.status.allocated[\"nvidia.com/gpu\"] // \"0\"'"
sharded big 24 24
wait_until 20 "big to wait" is_eq "False/NoClusterFit" rb_cond big-deployment Scheduled
msg=$(rb_cond_msg big-deployment Scheduled)
[[ "$msg" == 'group group-0 (24 × {cpu: 1, nvidia.com/gpu: 1}) fits in no single cluster: largest free block is 20 on '* ]] ||
    dfail "the group's reason: $msg"
finish
