#!/usr/bin/env bash
# Issue 20: topology levels across the fleet. Four clusters in two regions (us-east: east-a and
# east-b, 20 GPUs each; us-west: west-a with 12 and west-b with 20), shards of 8 one-GPU pods
# (scheduling.muster.io/group-size) spread over clusters:
#   - 5 shards "in one region" (required) wait: no region holds 5 whole shards (us-east 4, us-west
#     3), though the fleet does (2 + 2 + 1 over three clusters), and the reason names the level;
#   - the same 5 shards with the region only preferred run over three clusters, none cut;
#   - 4 shards in one region run in us-east, the only region that holds them, each cluster
#     holding whole shards.
# Usage: dispatch_topology.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_topology TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"

start_sim "$SRC/tests/fixtures/dispatch/four-clusters-regions.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"128"}'
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
# sharded NAME REPLICAS ANNOTATION: shards of 8 one-GPU pods, spread, with one topology annotation
sharded() {
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: team
  labels: {app: $1, volcano.sh/queue-name: q}
  annotations: {scheduling.muster.io/placement: spread, scheduling.muster.io/group-size: "8", $3}
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
# every share of NAME a whole number of shards
whole_shards() {
    for r in $(rbj "$1" '{.spec.clusters[*].replicas}'); do
        [ $((r % 8)) -eq 0 ] || return 1
    done
}

sharded five 40 'scheduling.muster.io/topology-required: region'
wait_until 20 "five shards in one region to wait" is_eq "False/NoClusterFit" \
    rb_cond five-deployment Scheduled
msg=$(rb_cond_msg five-deployment Scheduled)
echo "why: $msg"
[[ "$msg" == *region* && "$msg" == *us-east* ]] || dfail "the reason names the level and where: $msg"
expect "$(rbj five-deployment '{.spec.clusters}')" "" "nothing placed while it waits"
expect "$(gpus)" 0 "q holds nothing for it"

# the region only preferred: broken, since nothing else fits; whole shards over three clusters
k delete deployment five >/dev/null
sharded fivep 40 'scheduling.muster.io/topology-preferred: region'
wait_until 30 "five shards with the region preferred to run" is_eq running state fivep-deployment
whole_shards fivep-deployment || dfail "a shard was cut: $(rb_clusters fivep-deployment)"
expect "$(rbj fivep-deployment '{.spec.clusters[*].name}' | wc -w)" 3 "over three clusters"
k delete deployment fivep >/dev/null
wait_until 30 "fivep's GPUs back" is_eq 0 gpus

# four shards in one region: only us-east holds them
sharded four 32 'scheduling.muster.io/topology-required: region'
wait_until 30 "four shards in one region to run" is_eq running state four-deployment
expect "$(rbj four-deployment '{.spec.clusters[*].name}' | tr ' ' '\n' | sort | tr '\n' ' ')" \
    "east-a east-b " "both us-east clusters, nothing in us-west"
whole_shards four-deployment || dfail "a shard was cut: $(rb_clusters four-deployment)"
finish
