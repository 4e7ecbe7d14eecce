#!/usr/bin/env bash
# Issue 15, musterd against muster-sim: someone else changes a dispatched RB. First a person (as
# the descheduler might) rewrites the replicas of spec.clusters; then Karmada's taint manager, on
# a NoExecute taint, evicts a cluster (spec.gracefulEvictionTasks): since issue 17 a cluster lost
# (docs/dispatcher.md, "A cluster lost"), under the queue's default onClusterLoss: Requeue. Each
# time musterd compares the RB with its ledger row, rolls the gang back whole (never left
# half-running) and queues it again; the second time the next attempt lands where the gang may
# still go. Every write is checked against the CRDs.
# Usage: dispatch_external.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_external TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml" --feature-gates Failover=true --enable-no-execute-taint-eviction true
start_musterd
queue q root '{"nvidia.com/gpu":"16"}'
DUMP=/api/v1/bindings/team/spread-deployment
rolledback() { api GET $DUMP | jq '[.history[] | select(.state == "rolledback")] | length'; }
last_reason() { api GET $DUMP | jq -r '[.history[] | select(.state == "rolledback")] | .[-1].reason'; }

k create -f "$FIX/spread-deploy.yaml" >/dev/null
wait_until 20 "the gang to run" is_eq running eval "api GET $DUMP | jq -r .state"
before=$(rb_clusters spread-deployment)

# --- spec.clusters' replicas rewritten by someone else: rolled back whole, requeued ---
k patch rb spread-deployment --type merge -p "{\"spec\":{\"clusters\":$(rbj spread-deployment \
    '{.spec.clusters}' | jq -c '.[0].replicas -= 1 | .[1].replicas += 1')}}" >/dev/null
wait_until 10 "the rollback" is_eq 1 rolledback
last_reason | grep -q 'spec.clusters was changed by someone else' || dfail "reason: $(last_reason)"
expect "$(curl -sf "$API/metrics" | sed -n 's/^muster_rollbacks_total{reason="placement-changed"} //p')" 1 \
    "counted as placement-changed"
wait_until 10 "the hub to be rolled back" is_eq "true|" \
    rbj spread-deployment '{.spec.suspension.scheduling}|{.spec.clusters}'
wait_until 10 "muster's Works to go" is_eq 0 \
    eval "k get works -A -l app.kubernetes.io/managed-by=muster -o name | wc -l"
# After the back-off (10 s) muster places it again, whole.
wait_until 40 "the second attempt to run" is_eq running eval "api GET $DUMP | jq -r .state"
expect "$(rb_clusters spread-deployment)" "$before" "placed again as muster decides"

# --- the taint manager evicts west: gracefulEvictionTasks, rolled back whole ---
k patch cluster west --type merge \
    -p '{"spec":{"taints":[{"key":"maintenance","value":"now","effect":"NoExecute"}]}}' >/dev/null
wait_until 15 "the second rollback" is_eq 2 rolledback
last_reason | grep -qE '^cluster west lost: .*; requeued \(onClusterLoss: Requeue\)$' ||
    dfail "reason: $(last_reason)"
echo "rolled back: $(last_reason)"
# 6 x 2 GPUs do not fit in east's 8 alone: the gang waits whole rather than run half.
wait_until 10 "nothing of the gang left running" is_eq 0 eval \
    "k get works -A -l app.kubernetes.io/managed-by=muster -o name | wc -l"
wait_until 15 "the gang to wait, held" is_eq true rbj spread-deployment '{.spec.suspension.scheduling}'
expect "$(rb_clusters spread-deployment)" "" "no half placement"
# The taint goes: the gang runs again across both clusters.
k patch cluster west --type merge -p '{"spec":{"taints":null}}' >/dev/null
wait_until 40 "the third attempt to run" is_eq running eval "api GET $DUMP | jq -r .state"
finish
