#!/usr/bin/env bash
# Issue 17, musterd against muster-sim, driven with `kubectl scale`: a running spread gang is
# scaled up, and the difference is admitted as an admission of its own (docs/dispatcher.md,
# "Scale up"). CASE fits: the delta is placed on the gang's own cluster first and then the other,
# spec.clusters grows, each member PodGroup's minMember follows and the queue's allocated grows.
# CASE waits: another gang fills the queue, so the delta waits with Scheduled=False/QuotaExceeded
# naming the scale up while the running part keeps running (scaled back meanwhile, the wait is
# withdrawn and Scheduled=True comes back; scaled up again, it waits again); once the other gang goes, the delta
# is admitted. Every write is checked against the CRDs.
# Usage: dispatch_scale_up.sh MUSTER_SIM MUSTERD SOURCE_DIR fits|waits
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3 CASE=$4
NAME=dispatch_scale_up_$CASE TEST_NS=team
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

# 3 replicas of 2 GPUs: all in one cluster (8 GPUs each).
sed 's/replicas: 6/replicas: 3/' "$FIX/spread-deploy.yaml" | k create -f - >/dev/null
wait_until 20 "the spread gang to run" is_eq running state spread-deployment
expect "$(gpus)" 6 "q holds the gang"
first=$(rbj spread-deployment '{.spec.clusters[0].name}')
expect "$(rb_clusters spread-deployment)" "$first=3 " "one cluster holds it"
other=east
[ "$first" != east ] || other=west

if [ "$CASE" = waits ]; then
    # 4 x 2 GPUs in the other cluster: 6 + 8 of q's 16; the scale up's 6 more do not fit
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: blocker, namespace: team, labels: {app: blocker, volcano.sh/queue-name: q}}
spec:
  replicas: 4
  selector: {matchLabels: {app: blocker}}
  template:
    metadata: {labels: {app: blocker}}
    spec:
      containers:
        - {name: b, image: registry.example/b:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}}
YAML
    wait_until 20 "the blocker to run" is_eq running state blocker-deployment
    expect "$(gpus)" 14 "q holds both"
fi

# --- kubectl scale: 3 -> 6 replicas ---
k scale deployment spread --replicas=6 >/dev/null

if [ "$CASE" = waits ]; then
    wait_until 20 "the scale up to wait on QuotaExceeded" is_eq "False/QuotaExceeded" \
        rb_cond spread-deployment Scheduled
    msg=$(rb_cond_msg spread-deployment Scheduled)
    echo "$msg" | grep -q "scale up by 3 replicas waits: queue q: nvidia.com/gpu" ||
        dfail "the condition names the scale up: $msg"
    api GET $DUMP | jq -e '.history[-1].reason | test("scale up by 3 replicas asked")' >/dev/null ||
        dfail "the row records the delta: $(api GET $DUMP | jq -c '.history[-1]')"
    expect "$(state spread-deployment)" running "the running part keeps running"
    expect "$(gpus)" 14 "q holds what runs, not the delta"
    expect "$(rb_clusters spread-deployment)" "$first=3 " "spec.clusters unchanged"
    expect "$(pg_min "$first")" 3 "the running PodGroup unchanged"
    # scaled back to what it holds: nothing waits, Scheduled=True again; then up again
    k scale deployment spread --replicas=3 >/dev/null
    wait_until 20 "Scheduled=True once the scale up is withdrawn" is_eq "True/Success" \
        rb_cond spread-deployment Scheduled
    api GET $DUMP | jq -e '[.history[].reason] | any(test("scale up withdrawn"))' >/dev/null ||
        dfail "the row records the withdrawal: $(api GET $DUMP | jq -c '.history[-1]')"
    k scale deployment spread --replicas=6 >/dev/null
    wait_until 20 "the scale up to wait again" is_eq "False/QuotaExceeded" \
        rb_cond spread-deployment Scheduled
    # the blocker goes: its room is the delta's
    k delete deployment blocker >/dev/null
fi

wait_until 20 "the grown gang to run" is_eq running state spread-deployment
wait_until 10 "spec.clusters to grow" is_eq "$first=4 $other=2 " rb_clusters spread-deployment
expect "$(api GET $DUMP | jq -r '.request["nvidia.com/gpu"]')" 12 "the ledger row holds 12 GPUs"
api GET $DUMP | jq -e '[.history[].reason] | any(test("scaled up from 3 to 6 replicas"))' \
    >/dev/null || dfail "the row's reason: $(api GET $DUMP | jq -c '.history[-1]')"
wait_until 10 "q to hold the grown gang" is_eq 12 gpus
wait_until 10 "the PodGroups' minMember to follow" is_eq "4 2" eval \
    "echo \$(pg_min $first) \$(pg_min $other)"
wait_until 10 "Scheduled=True again" is_eq "True/Success" rb_cond spread-deployment Scheduled
expect "$(api GET $DUMP | jq '[.history[] | select(.state == "rolledback")] | length')" 0 \
    "no rollback"
finish
