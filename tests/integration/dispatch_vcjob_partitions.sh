#!/usr/bin/env bash
# Issue 20, a Volcano Job's task partitions (Volcano v1.14's partitionPolicy, docs/workload.md
# "Group trees") as its groups, against muster-sim. Two clusters of 5 four-GPU nodes (20 GPUs
# each). vp: a ps and 32 one-GPU workers in 4 partitions of 8, minPartitions 2: the whole (32
# GPUs) fits in neither cluster, its minimum (the ps and 2 whole partitions, 17 pods) in either.
# It goes whole to one cluster, where its member's Volcano starts the minimum; the member's Job
# keeps the partitionPolicy (Volcano makes the partitions' subGroupPolicy from it), and the
# reason counts the minimum by partitions. Before it, vbig (minPartitions 3: 24 GPUs) waits,
# saying not even its minimum fits one cluster, and is deleted. vbad (32 replicas in 3
# partitions of 8) is refused with Volcano's admission's reason, before anything reaches a
# member.
# Usage: dispatch_vcjob_partitions.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_vcjob_partitions TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"

start_sim "$SRC/tests/fixtures/dispatch/two-clusters-20gpu.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"100"}'
B=/api/v1/bindings/team
vcjob() { # NAME TOTAL_PARTITIONS MIN_PARTITIONS
    k create -f - >/dev/null <<YAML
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: $1, namespace: team}
spec:
  schedulerName: volcano
  queue: q
  tasks:
    - {replicas: 1, name: ps, template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: registry.example/ps:1, resources: {requests: {cpu: "1"}}}]}}}
    - replicas: 32
      name: worker
      partitionPolicy: {totalPartitions: $2, partitionSize: 8, minPartitions: $3}
      template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: registry.example/w:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}]}}
YAML
}

vcjob vbig 4 3
wait_until 20 "vbig to wait" is_eq pending eval "api GET $B/vbig-job | jq -r .state"
wait_until 20 "vbig's reason" eval "api GET $B/vbig-job | jq -r .reason | grep -q 'not even its minimum (25 of its 33 pods, each task at its minAvailable) fits in one cluster'"

k delete job.batch.volcano.sh vbig >/dev/null

vcjob vp 4 2
wait_until 20 "vp to run at its minimum" is_eq running eval "api GET $B/vp-job | jq -r .state"
vc=$(rbj vp-job '{.spec.clusters[0].name}')
expect "$(rb_clusters vp-job)" "$vc=33 " "the Job goes whole to one cluster"
expect "$(api GET $B/vp-job | jq -r '.request["nvidia.com/gpu"]')" 32 "the queue counts the whole Job"
api GET $B/vp-job | jq -e '[.history[].reason] | any(. == "admitted at its minimum on '"$vc"': 17 of its 33 pods fit there (each task at its minAvailable); Volcano starts the other 16 as room frees")' \
    >/dev/null || dfail "vp's reason: $(api GET $B/vp-job | jq -c '[.history[].reason]')"
expect "$(member "$vc" Job vp '.spec.tasks[1].partitionPolicy | "\(.totalPartitions)x\(.partitionSize) min \(.minPartitions)"')" \
    "4x8 min 2" "the member's Job keeps its partitions"
wait_until 10 "Scheduled=True" is_eq "True/Success" rb_cond vp-job Scheduled

vcjob vbad 3 1
wait_until 20 "vbad refused" is_eq False/Unschedulable rb_cond vbad-job Scheduled
expect "$(rb_cond_msg vbad-job Scheduled)" \
    "the Volcano Job's spec.tasks[1]: its 32 replicas are not totalPartitions 3 x partitionSize 8, as Volcano's admission requires" \
    "vbad's reason on its RB"
expect "$(member east Job vbad .metadata.name)$(member west Job vbad .metadata.name)" nonenone \
    "vbad reaches no member"
finish
