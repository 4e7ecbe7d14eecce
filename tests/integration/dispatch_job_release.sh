#!/usr/bin/env bash
# Issue 17, musterd against muster-sim: a finished Job releases its reservation and muster
# deletes its PodGroup Works at the release itself, well before the 30 s orphan sweep; Karmada's
# execution controller then removes the member PodGroups through the finalizer. The Job is made
# to finish by muster-sim (`sim.muster.io/duration`, docs/sim.md). Every write is checked
# against the CRDs.
# Usage: dispatch_job_release.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_job_release TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"16"}'
DUMP=/api/v1/bindings/team/train-job
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
state() { api GET $DUMP | jq -r .state; }
pgs() {
    local n=0 c
    for c in east west; do
        n=$((n + $(curl -sf "$BASE/debug/sim/clusters/$c/objects" | jq '[.items[] | select(.kind == "PodGroup")] | length')))
    done
    echo $n
}

# 6 pods of 2 GPUs spread over both clusters, finishing 3 s after they start.
k create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team
  labels: {volcano.sh/queue-name: q}
  annotations: {scheduling.muster.io/placement: spread, sim.muster.io/duration: 3s}
spec:
  parallelism: 6
  completions: 6
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: t
          image: registry.example/t:1
          resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}
YAML
wait_until 20 "the Job to run" is_eq running state
uid=$(rbj train-job '{.metadata.uid}')
works() { k get works -A -l "scheduling.muster.io/binding-uid=$uid" -o name | wc -l; }
expect "$(works)" 2 "a PodGroup Work per share"
expect "$(pgs)" 2 "a member PodGroup per share"
expect "$(gpus)" 12 "q holds the Job"
t0=$SECONDS

wait_until 20 "the Job to finish and be released" is_eq released state
t1=$SECONDS
api GET $DUMP | jq -e '.history[-1].reason == "completed"' >/dev/null ||
    dfail "released for: $(api GET $DUMP | jq -c '.history[-1]')"
expect "$(gpus)" 0 "q's usage dropped with the release"
# At the release itself: within two seconds of it, not at the 30 s sweep.
wait_until 2 "its PodGroup Works to go at the release" is_eq 0 works
wait_until 5 "the member PodGroups to go" is_eq 0 pgs
echo "ran $((t1 - t0)) s, Works gone $((SECONDS - t1)) s after the release"
[ $((SECONDS - t1)) -lt 10 ] || dfail "the Works went late"
finish
