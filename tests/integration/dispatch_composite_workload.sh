#!/usr/bin/env bash
# Issue 20 end to end, the Kubernetes Workload API as the source of a gang's groups: a JobSet of
# 4 shards x 8 one-GPU pods and 2 evaluators x 4 (tests/fixtures/workloads/jobset-workload.yaml,
# placement spread) whose replicated jobs name the pod group templates of a hub Workload
# (workload-jobset.yaml: a shard's Job a gang of 6, an evaluator's of 3), over two clusters of
# 20 GPUs (composite-20gpu.yaml). Created before its Workload, the JobSet waits with the reason
# naming it; once the Workload is on the hub, musterd reads the JobSet again (the Workload
# informer's add) and splits it only at group boundaries: 2 shards and 1 evaluator in each
# cluster, no Job cut. Each cluster's PodGroup holds exactly its groups with the Workload's
# per-group minimums: subGroupSize 6 for its shards, 3 for its evaluator, minMember 2 x 6 + 3.
# Every write is checked against the CRDs.
# Usage: dispatch_composite_workload.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_composite_workload TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures
RB=wlsets-jobset

start_sim "$FIX/dispatch/composite-20gpu.yaml"
start_musterd
queue q root '{"cpu":"256","nvidia.com/gpu":"40"}'
state() { api GET "/api/v1/bindings/team/$RB" | jq -r .state; }
rendered() {
    k get works -n "karmada-es-$1" -o json |
        jq -c '[.items[].spec.workload.manifests[0] | select(.kind == "JobSet")] | .[0]'
}
podgroup_work() { k get work "muster-pg-team.$RB" -n "karmada-es-$1" -o json; }

k create --dry-run=client -o json -f "$FIX/workloads/jobset-workload.yaml" |
    jq 'del(.metadata.uid, .metadata.resourceVersion) |
        .metadata.labels["kueue.x-k8s.io/queue-name"] = "q"' | k create -f - >/dev/null
wait_until 30 "the JobSet to wait for its Workload" is_eq "False/Unschedulable" rb_cond $RB Scheduled
expect "$(rb_cond_msg $RB Scheduled)" "waiting for the Workload (scheduling.k8s.io/v1beta1) whose \
spec.controllerRef names JobSet wlsets to be created on the hub: its replicated jobs name pod \
group templates (annotation scheduling.k8s.io/group-template-name)" "the reason names the Workload"
expect "$(rb_clusters $RB)" "" "nothing placed while it waits"

k create -f "$FIX/workloads/workload-jobset.yaml" >/dev/null
wait_until 30 "the split JobSet to run" is_eq running state
cl=$(rb_clusters $RB)
case "$cl" in "east=20 west=20 " | "west=20 east=20 ") ;; *) dfail "spec.clusters: [$cl]" ;; esac
expect "$(api GET "/api/v1/bindings/team/$RB" | jq -c '[.clusters[] | {name, groups}] |
    sort_by(.name)')" '[{"name":"east","groups":[2,1]},{"name":"west","groups":[2,1]}]' \
    "the row keeps each share's Jobs per replicated job"
expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 40 \
    "q holds the JobSet's 40 GPUs"
for c in east west; do
    m=$(rendered $c)
    expect "$(jq -c '[.spec.replicatedJobs[] | .replicas]' <<<"$m")" "[2,1]" \
        "$c: its copy runs 2 whole shards and 1 whole evaluator"
    expect "$(jq -c '[.spec.replicatedJobs[] | .template.spec.parallelism]' <<<"$m")" "[8,4]" \
        "$c: no Job cut"
    pg=$(podgroup_work $c | jq -c '.spec.workload.manifests[0]')
    expect "$(jq -r '.spec.minMember' <<<"$pg")" 15 "$c: PodGroup minMember 2 x 6 + 1 x 3"
    expect "$(jq -r '.spec.minResources["nvidia.com/gpu"]' <<<"$pg")" 15 "$c: PodGroup GPUs"
    expect "$(jq -c '[.spec.subGroupPolicy[] | [.name, .subGroupSize, .minSubGroups,
        .labelSelector.matchLabels["jobset.sigs.k8s.io/replicatedjob-name"]]]' <<<"$pg")" \
        '[["shard",6,2,"shard"],["eval",3,1,"eval"]]' "$c: a subgroup per pod group template"
done
finish
