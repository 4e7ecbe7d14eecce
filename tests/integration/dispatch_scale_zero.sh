#!/usr/bin/env bash
# Issue 17, musterd against muster-sim, driven with `kubectl scale`: a running Deployment scaled
# to 0 holds nothing. Its row is released ("scaled to 0"), the queue's usage drops at once, its
# placement is undone (spec.clusters cleared, held again) and its PodGroup Works deleted then,
# not at the orphan sweep; it waits with "scaled to 0: holds nothing" in its condition, and
# scaled up again it is queued as new and runs. A Deployment created with 0 replicas is not
# queued either and says so. Every write is checked against the CRDs.
# Usage: dispatch_scale_zero.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_scale_zero TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"16"}'
DUMP=/api/v1/bindings/team/spread-deployment
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
works() { k get works -A -l "scheduling.muster.io/binding-uid=$1" -o name | wc -l; }

k create -f "$FIX/spread-deploy.yaml" >/dev/null
wait_until 20 "the gang to run" is_eq running state spread-deployment
uid=$(rbj spread-deployment '{.metadata.uid}')
expect "$(works "$uid")" 2 "a PodGroup Work per share"
expect "$(gpus)" 12 "q holds the gang"

# --- kubectl scale to 0 ---
t0=$SECONDS
k scale deployment spread --replicas=0 >/dev/null
wait_until 5 "q's usage to drop" is_eq 0 gpus
api GET $DUMP | jq -e '[.history[] | select(.state == "released" and .reason == "scaled to 0")] | length == 1' \
    >/dev/null || dfail "no row released as scaled to 0: $(api GET $DUMP | jq -c .history)"
wait_until 5 "its PodGroup Works to go" is_eq 0 works "$uid"
[ $((SECONDS - t0)) -lt 10 ] || dfail "the Works went at the sweep, not at the release"
wait_until 10 "spec.clusters cleared" is_eq "" rb_clusters spread-deployment
expect "$(rbj spread-deployment '{.spec.suspension.scheduling}')" true "held again"
wait_until 10 "the condition to say so" is_eq "False/ScaledToZero" rb_cond spread-deployment Scheduled
expect "$(rb_cond_msg spread-deployment Scheduled)" "scaled to 0: holds nothing" "its message"
expect "$(api GET $DUMP | jq -r '.state + "/" + .reason')" "pending/scaled to 0: holds nothing" \
    "listed with its row and reason"
expect "$(api GET /api/v1/queues/q | jq -r .status.pending)" 0 "not in the queue"

# A Deployment made with 0 replicas is not queued either, and is told why (not "request must
# name at least one resource").
k create -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: idle, namespace: team, labels: {app: idle, volcano.sh/queue-name: q}}
spec:
  replicas: 0
  selector: {matchLabels: {app: idle}}
  template:
    metadata: {labels: {app: idle}}
    spec:
      containers:
        - {name: i, image: registry.example/i:1, resources: {requests: {cpu: "1"}}}
YAML
wait_until 10 "the idle Deployment's condition" is_eq "False/ScaledToZero" rb_cond idle-deployment Scheduled
expect "$(rb_cond_msg idle-deployment Scheduled)" "scaled to 0: holds nothing" "its message"

# A restart finds its pending row holding nothing: not queued, parked again.
kill -TERM "$MUSTERD_PID"
wait "$MUSTERD_PID" || dfail "musterd exit status $?"
start_musterd
wait_until 10 "musterd to lead again" eval "api GET /readyz"
wait_until 10 "parked again after the restart" is_eq "pending/scaled to 0: holds nothing" \
    eval "api GET $DUMP | jq -r '.state + \"/\" + .reason'"

# --- scaled up again: queued as new ---
k scale deployment spread --replicas=2 >/dev/null
wait_until 20 "the gang to run again" is_eq running state spread-deployment
expect "$(gpus)" 4 "q holds the new size"
expect "$(rb_cond spread-deployment Scheduled)" "True/Success" "Scheduled again"
expect "$(works "$uid")" 1 "one PodGroup Work: two replicas fit one cluster"
finish
