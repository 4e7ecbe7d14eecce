#!/usr/bin/env bash
# Issue 20 end to end: a JobSet or LeaderWorkerSet split by groups over several clusters.
# Two clusters of five 4-GPU nodes (20 GPUs each, composite-20gpu.yaml):
#   (a) a JobSet of 4 shards x 8 one-GPU pods without the opt-in waits whole for one cluster
#       (NoClusterFit: none holds 32 GPUs);
#   (b) the same JobSet with scheduling.muster.io/placement: spread runs split, 2 shards in each
#       cluster, none cut: each cluster's rendered JobSet has replicatedJobs[0].replicas 2 and
#       the group offset of its share (0 and 2, total 4), each member's PodGroup minMember 16
#       with a subGroupPolicy of 2 subgroups of 8; musterd is killed after one object of the
#       split and after the barrier check, and each restart goes on from the row; it runs, and is
#       released "completed" once both copies are;
#   (c) a LeaderWorkerSet of 3 groups (a CPU leader and 4 workers of 2 GPUs: 8 GPUs a group)
#       split 2 + 1 (a cluster holds 2 groups), the leader and its workers never apart: the
#       rendered copies have spec.replicas 2 and 1, offsets 0 and 2, PodGroups of 10 and 5.
# Every write is checked against the CRDs.
# Usage: dispatch_composite.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_composite TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures

start_sim "$FIX/dispatch/composite-20gpu.yaml"
start_musterd
queue q root '{"cpu":"256","nvidia.com/gpu":"40"}'
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
released() { api GET "/api/v1/bindings/team/$1" | jq -e '.history | any(.state == "released" and .reason == "completed")'; }
# jobset NAME ANNOTATIONS_JSON: the fixture's JobSet, queued in q
jobset() {
    k create --dry-run=client -o json -f "$FIX/dispatch/composite-jobset-4x8.yaml" |
        jq --arg n "$1" --argjson a "$2" '.metadata.name = $n |
            .metadata.labels["kueue.x-k8s.io/queue-name"] = "q" | .metadata.annotations = $a' |
        k create -f - >/dev/null
}
# rendered CLUSTER KIND: the manifest Karmada rendered for the template in CLUSTER's Work
rendered() {
    k get works -n "karmada-es-$1" -o json |
        jq -c --arg k "$2" '[.items[].spec.workload.manifests[0] | select(.kind == $k)] | .[0]'
}
# podgroup CLUSTER RB: muster's PodGroup in CLUSTER for RB
podgroup() { k get work "muster-pg-team.$2" -n "karmada-es-$1" -o json | jq -c '.spec.workload.manifests[0]'; }
# share_index RB CLUSTER: the position of CLUSTER in the RB's spec.clusters
share_index() { rbj "$1" '{.spec.clusters[*].name}' | tr ' ' '\n' | grep -nx "$2" | cut -d: -f1; }

# (a) no opt-in: whole in one cluster, and none holds it
jobset whole '{}'
wait_until 20 "the JobSet without the opt-in to wait" is_eq False/NoClusterFit \
    rb_cond whole-jobset Scheduled
m=$(rb_cond_msg whole-jobset Scheduled)
echo "whole: $m"
[[ "$m" == *"it goes whole to one cluster unless scheduling.muster.io/placement: spread lets its groups part"* ]] ||
    dfail "the reason says how its shards could part: $m"
expect "$(rbj whole-jobset '{.spec.clusters}')" "" "nothing placed without the opt-in"
k delete jobset whole >/dev/null
wait_until 20 "the waiting JobSet's RB to go" eval '! k get rb whole-jobset -o name'

# (b) spread: 2 shards in each cluster, none cut. musterd dies once after one object of the
# split is acknowledged and once after the barrier check, before the lift: each restart rebuilds
# the split from the row's shares and goes on with the same objects.
# crashed POINT: musterd reached the crash point armed and exited
crashed() {
    wait_until 30 "musterd to crash at $1" eval '! kill -0 $MUSTERD_PID'
    wait "$MUSTERD_PID" || true
    grep -q "crash point $1 reached" "$TMP/musterd.err" || dfail "musterd did not stop at $1"
}
kill -TERM "$MUSTERD_PID"
wait "$MUSTERD_PID" || dfail "musterd exit status $?"
export MUSTER_CRASH_AT=dispatch.objects.one
start_musterd
jobset train '{"scheduling.muster.io/placement": "spread", "sim.muster.io/duration": "6s"}'
crashed dispatch.objects.one
export MUSTER_CRASH_AT=dispatch.barrier
start_musterd
crashed dispatch.barrier
unset MUSTER_CRASH_AT
start_musterd
wait_until 30 "the split JobSet to run" is_eq running state train-jobset
cl=$(rb_clusters train-jobset)
case "$cl" in "east=16 west=16 " | "west=16 east=16 ") ;; *) dfail "spec.clusters: [$cl]" ;; esac
expect "$(gpus)" 32 "q holds the JobSet's 32 GPUs"
for c in east west; do
    off=$((($(share_index train-jobset $c) - 1) * 2))
    m=$(rendered $c JobSet)
    expect "$(jq -r '.spec.replicatedJobs[0].replicas' <<<"$m")" 2 "$c: its copy runs 2 shards"
    expect "$(jq -r '.spec.replicatedJobs[0].template.spec.template.metadata.annotations |
        [.["scheduling.muster.io/group-offset"], .["scheduling.muster.io/group-total"],
         .["scheduling.k8s.io/group-name"]] | join(" ")' <<<"$m")" "$off 4 muster-train-jobset" \
        "$c: offset, total and PodGroup on its pods"
    expect "$(jq -r '.spec.replicatedJobs[0].template.spec.template.spec.schedulerName' <<<"$m")" \
        volcano "$c: its pods go to Volcano"
    pg=$(podgroup $c train-jobset)
    expect "$(jq -r '.spec.minMember' <<<"$pg")" 16 "$c: PodGroup minMember"
    expect "$(jq -r '.spec.minResources["nvidia.com/gpu"]' <<<"$pg")" 16 "$c: PodGroup GPUs"
    expect "$(jq -c '.spec.subGroupPolicy[0] | [.name, .subGroupSize, .minSubGroups,
        .matchLabelKeys[0]]' <<<"$pg")" '["shard",8,2,"jobset.sigs.k8s.io/job-index"]' \
        "$c: one subgroup per shard"
done
wait_until 30 "the split JobSet to complete and be released" released train-jobset
wait_until 30 "its GPUs back" is_eq 0 gpus

# (c) a LeaderWorkerSet: 3 groups of a CPU leader and 4 workers of 2 GPUs, 2 + 1
k create -f - >/dev/null <<YAML
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve
  namespace: team
  labels: {kueue.x-k8s.io/queue-name: q}
  annotations: {scheduling.muster.io/placement: spread}
spec:
  replicas: 3
  leaderWorkerTemplate:
    size: 5
    leaderTemplate:
      spec:
        containers:
          - {name: leader, image: registry.example/serve:1, resources: {requests: {cpu: "1"}}}
    workerTemplate:
      spec:
        containers:
          - name: worker
            image: registry.example/serve:1
            resources: {requests: {cpu: "1"}, limits: {nvidia.com/gpu: 2}}
YAML
rb=serve-leaderworkerset
wait_until 30 "the split LeaderWorkerSet to run" is_eq running state $rb
cl=$(rb_clusters $rb)
case "$cl" in "east=10 west=5 " | "west=10 east=5 " | "east=5 west=10 " | "west=5 east=10 ") ;;
*) dfail "spec.clusters: [$cl]" ;; esac
expect "$(gpus)" 24 "q holds the LeaderWorkerSet's 24 GPUs"
for c in east west; do
    at=$(share_index $rb $c)
    pods=$(rbj $rb "{.spec.clusters[$((at - 1))].replicas}")
    groups=$((pods / 5))
    # the offset: the groups of the share before it
    off=0
    [ "$at" == 2 ] && off=$(($(rbj $rb '{.spec.clusters[0].replicas}') / 5))
    m=$(rendered $c LeaderWorkerSet)
    expect "$(jq -r '.spec.replicas' <<<"$m")" $groups "$c: its copy runs its groups"
    for tp in leaderTemplate workerTemplate; do
        expect "$(jq -r --arg t $tp '.spec.leaderWorkerTemplate[$t].metadata.annotations |
            [.["scheduling.muster.io/group-offset"], .["scheduling.muster.io/group-total"]] |
            join(" ")' <<<"$m")" "$off 3" "$c: $tp offset and total"
    done
    pg=$(podgroup $c $rb)
    expect "$(jq -r '.spec.minMember' <<<"$pg")" $pods "$c: PodGroup minMember"
    expect "$(jq -r '.spec.minResources["nvidia.com/gpu"]' <<<"$pg")" $((groups * 8)) \
        "$c: PodGroup GPUs (workers only)"
    expect "$(jq -c '.spec.subGroupPolicy[0] | [.subGroupSize, .minSubGroups,
        .matchLabelKeys[0]]' <<<"$pg")" "[5,$groups,\"leaderworkerset.sigs.k8s.io/group-index\"]" \
        "$c: one subgroup per group"
done
finish
