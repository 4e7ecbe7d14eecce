#!/usr/bin/env bash
# Issue 17, musterd against muster-sim, driven with `kubectl scale`: a running spread gang is
# scaled down while a second gang waits on QuotaExceeded. The capacity is released at once (the
# ledger row holds the smaller request, the queue's allocated follows), the waiting gang is
# admitted into the room, the kept member PodGroup's minMember follows, spec.clusters is
# rewritten with the new per-cluster replicas and the cluster the gang left loses its PodGroup
# Work. Every write is checked against the CRDs.
# Usage: dispatch_scale_down.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_scale_down TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"16"}'
DUMP=/api/v1/bindings/team/spread-deployment
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
pg_min() { # CLUSTER: minMember of the spread gang's PodGroup there, or "none"
    curl -sf "$BASE/debug/sim/clusters/$1/objects" |
        jq -r '[.items[] | select(.kind == "PodGroup" and .metadata.name == "muster-spread-deployment") | .spec.minMember][0] // "none"'
}

# 6 replicas of 2 GPUs: 4 in one cluster (8 GPUs), the remainder, 2, in the other.
k create -f "$FIX/spread-deploy.yaml" >/dev/null
wait_until 20 "the spread gang to run" is_eq running state spread-deployment
expect "$(gpus)" 12 "q holds the whole gang"
first=$(rbj spread-deployment '{.spec.clusters[0].name}')
last=$(rbj spread-deployment '{.spec.clusters[1].name}')
expect "$(rb_clusters spread-deployment)" "$first=4 $last=2 " "spread: the remainder last"
expect "$(pg_min "$first") $(pg_min "$last")" "4 2" "a PodGroup per share"

# A second gang, 4 x 2 GPUs in one cluster: 12 + 8 is above q's 16.
k create -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: waiter, namespace: team, labels: {app: waiter, volcano.sh/queue-name: q}}
spec:
  replicas: 4
  selector: {matchLabels: {app: waiter}}
  template:
    metadata: {labels: {app: waiter}}
    spec:
      containers:
        - {name: w, image: registry.example/w:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}}
YAML
wait_until 20 "the waiter to wait on QuotaExceeded" is_eq "False/QuotaExceeded" \
    rb_cond waiter-deployment Scheduled
expect "$(state waiter-deployment)" pending "the waiter is pending"

# --- kubectl scale: 6 -> 4 replicas; the last-placed share is the one given up ---
t0=$(date +%s%N)
k scale deployment spread --replicas=4 >/dev/null
wait_until 10 "the waiter to be admitted into the room" eval \
    "[ \"\$(state waiter-deployment)\" != pending ]"
t1=$(date +%s%N)
echo "scale down -> waiter admitted: $(((t1 - t0) / 1000000)) ms"
[ $(((t1 - t0) / 1000000)) -lt $((3000 * SLOW)) ] || dfail "the room came late"
expect "$(api GET $DUMP | jq -r '.request["nvidia.com/gpu"]')" 8 "the ledger row holds 8 GPUs"
api GET $DUMP | jq -e '.history[-1].reason | test("scaled down from 6 to 4 replicas")' >/dev/null ||
    dfail "the row's reason: $(api GET $DUMP | jq -c '.history[-1]')"
expect "$(state spread-deployment)" running "the kept share runs on"
wait_until 10 "q to hold both gangs" is_eq 16 gpus
wait_until 10 "spec.clusters rewritten" is_eq "$first=4 " rb_clusters spread-deployment
wait_until 10 "the kept PodGroup's minMember" is_eq 4 pg_min "$first"
wait_until 10 "the left cluster's PodGroup Work gone" is_eq 0 eval \
    "k get works -n karmada-es-$last -l app.kubernetes.io/managed-by=muster -o name | grep -c spread || true"
wait_until 10 "the left cluster's PodGroup gone" is_eq none pg_min "$last"
wait_until 20 "the waiter to run" is_eq running state waiter-deployment
expect "$(k get work -n "karmada-es-$first" muster-pg-team.spread-deployment -o jsonpath='{.spec.workload.manifests[0].spec.minResources.nvidia\.com/gpu}')" \
    8 "minResources follows the share"
# nothing rolled back on the way: muster's own rewrite is no one else's change
expect "$(api GET $DUMP | jq '[.history[] | select(.state == "rolledback")] | length')" 0 \
    "no rollback"
finish
