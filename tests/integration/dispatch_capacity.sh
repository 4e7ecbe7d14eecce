#!/usr/bin/env bash
# Issue 4, rule 1 (and rule 10, first half), musterd against muster-sim: capacity is never
# exceeded along the queue tree. Parent p (8 GPUs) has children a and b (6 GPUs each); twelve
# 2-GPU batch Jobs that finish after 2 s are submitted at once, more than fits (b's with the
# GPUs as container limits only, which must count the same). While they run,
# every sample of the admin API's queue status and of the hub's RBs (spec.clusters of the Jobs
# not yet finished) stays within every capability; p reaches its cap; when every Job has
# finished, usage is 0 and every ledger row is `released`. See docs/testing.md.
# Usage: dispatch_capacity.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_capacity TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue p root '{"nvidia.com/gpu":"8"}'
queue a p '{"nvidia.com/gpu":"6"}'
queue b p '{"nvidia.com/gpu":"6"}'

N=6
for q in a b; do
    # b's Jobs write their GPUs as limits alone, as NVIDIA's examples do: Karmada's
    # replicaRequirements then shows none, and muster must count them from the template
    res='{requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "2"}}'
    [ $q == b ] && res='{requests: {cpu: "2", memory: 8Gi}, limits: {nvidia.com/gpu: "2"}}'
    for i in $(seq $N); do
        cat <<YAML
---
apiVersion: batch/v1
kind: Job
metadata:
  name: $q-$i
  namespace: team
  labels: {volcano.sh/queue-name: $q}
  annotations: {sim.muster.io/duration: 2s}
spec:
  parallelism: 1
  completions: 1
  template:
    metadata: {labels: {job: $q-$i}}
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: registry.example/work:1
          resources: $res
YAML
    done
done >"$TMP/jobs.yaml"
k create -f "$TMP/jobs.yaml" >/dev/null

gpu() { api GET "/api/v1/queues/$1" | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
max_p=0 samples=0
end=$((SECONDS + 60 * SLOW))
while :; do
    pa=$(gpu p) aa=$(gpu a) ba=$(gpu b)
    [ "$pa" -le 8 ] && [ "$aa" -le 6 ] && [ "$ba" -le 6 ] ||
        dfail "admitted usage above a capability: p=$pa a=$aa b=$ba"
    [ "$pa" -gt "$max_p" ] && max_p=$pa
    # The hub: GPUs of the Jobs placed (spec.clusters) and not finished, per queue.
    rbs=$(k get rb -o json)
    hub=$(jq -r '[.items[] | select((.spec.clusters // []) | length > 0)
                  | select(([.status.aggregatedStatus[]?.status.succeeded // 0] | add // 0) < 1)
                  | {q: (.metadata.name | split("-")[0]),
                     g: (([.spec.clusters[].replicas] | add) * 2)}]
                 | "\(map(.g) | add // 0) \(map(select(.q == "a").g) | add // 0) \(map(select(.q == "b").g) | add // 0)"' <<<"$rbs")
    read -r hp ha hb <<<"$hub"
    [ "$hp" -le 8 ] && [ "$ha" -le 6 ] && [ "$hb" -le 6 ] ||
        dfail "RBs placed above a capability: p=$hp a=$ha b=$hb"
    samples=$((samples + 1))
    done_n=$(jq '[.items[] | select(([.status.aggregatedStatus[]?.status.succeeded // 0] | add // 0) >= 1)] | length' <<<"$rbs")
    [ "$done_n" == $((2 * N)) ] && break
    [ $SECONDS -lt $end ] || dfail "only $done_n of $((2 * N)) Jobs finished (p=$pa a=$aa b=$ba)"
    sleep 0.1
done
[ "$max_p" == 8 ] || dfail "p never reached its capability (max $max_p): the test proves nothing"
[ "$samples" -ge 5 ] || dfail "only $samples samples"
echo "samples: $samples, p's peak: $max_p GPUs"

# --- rule 10: finished Jobs release their usage; every ledger row ends released ---
wait_until 10 "usage to drop to 0" is_eq 0 gpu p
expect "$(gpu a) $(gpu b)" "0 0" "children's usage"
for q in a b; do
    for i in $(seq $N); do
        wait_until 10 "$q-$i released" is_eq released \
            eval "api GET /api/v1/bindings/team/$q-$i-job | jq -r '.history[-1].state'"
    done
done
expect "$(api GET /api/v1/bindings/team/a-1-job | jq -r '.history[-1].reason')" completed \
    "release reason"
finish
