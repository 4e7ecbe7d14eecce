#!/usr/bin/env bash
# Issue 20 end to end, CompositePodGroup templates (KEP-6012) as levels of a gang's tree: the
# JobSet of dispatch_composite_workload.sh (4 shards x 8 one-GPU pods, 2 evaluators x 4,
# placement spread; tests/fixtures/workloads/jobset-workload.yaml) structured by a hub Workload
# whose compositePodGroupTemplates hold its pod group templates
# (workload-jobset-composite.yaml: "training", a gang of at least 3 of its shard Jobs, each a
# gang of 6; "evaluation", basic, over the evaluator Jobs, each a gang of 3), over two clusters
# of 20 GPUs (composite-20gpu.yaml). First the Workload asks training for 5 of its 4 child
# groups: the JobSet waits with the sentence naming the composite and nothing is placed. The
# Workload replaced by the fixture, musterd reads the JobSet again and splits it only at Job
# boundaries: 2 shards and 1 evaluator in each cluster, each cluster's PodGroup holding its
# Jobs at their templates' minimums (subGroupSize 6 and 3, minMember 15).
# Usage: dispatch_composite_cpg.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_composite_cpg TEST_NS=team
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
workload() { # the fixture with training's minGroupCount $1
    k create --dry-run=client -o json -f "$FIX/workloads/workload-jobset-composite.yaml" |
        jq --argjson m "$1" '.spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount = $m'
}

workload 5 | k create -f - >/dev/null
k create --dry-run=client -o json -f "$FIX/workloads/jobset-workload.yaml" |
    jq 'del(.metadata.uid, .metadata.resourceVersion) |
        .metadata.labels["kueue.x-k8s.io/queue-name"] = "q"' | k create -f - >/dev/null
wait_until 30 "the JobSet to wait on its Workload's composite" is_eq "False/Unschedulable" \
    rb_cond $RB Scheduled
expect "$(rb_cond_msg $RB Scheduled)" "Workload wlsets-wl: composite pod group template \
training's gang minGroupCount 5 is more than its 4 child groups, so its CompositePodGroup could \
never be scheduled" "the reason names the composite and its minGroupCount"
expect "$(rb_clusters $RB)" "" "nothing placed while it waits"

workload 3 | k replace -f - >/dev/null
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
    expect "$(jq -c '[.spec.subGroupPolicy[] | [.name, .subGroupSize, .minSubGroups]]' <<<"$pg")" \
        '[["shard",6,2],["eval",3,1]]' "$c: a subgroup per replicated job at its template's minCount"
done
finish
