#!/usr/bin/env bash
# Issue 20, a JobSet admitted at fewer Jobs than it has (docs/composite.md, "A JobSet at fewer
# Jobs"), against muster-sim, every write checked against the CRDs. The JobSet of
# dispatch_composite_cpg.sh without its evaluators (4 shards x 8 one-GPU pods), structured by a
# hub Workload whose composite "training" needs 3 of its 4 shard Jobs (each a gang of 6 of its 8
# pods). The clusters of composite-20gpu.yaml, one of them smaller, so that only 3 shards fit:
# CASE spread (placement spread): east 5 nodes of 4 GPUs (2 shards), west 3 (1 shard): 2 + 1;
# CASE single (no spread, so one cluster): east 6 nodes (3 shards), west 3: 3 in east, written
#   as a split over one cluster;
# CASE quota (spread): both clusters of 5 nodes hold the whole, but its queue takes 24 GPUs: the
#   JobSet is offered at its minimum, the search places all 4 shards, the queue refuses them, one
#   Job is given up and the 3 placed again: 2 + 1.
# CASE minimum (spread): both clusters of 5 nodes, a queue of 24 GPUs, and the evaluators kept:
#   one composite "all" over both templates needs 4 of its 6 Jobs, so its minimum (2 evaluators
#   and 2 shards, 24 GPUs) passes the queue and the engine offers it. Stepping down gives up the
#   last Jobs in tree order (the evaluators) and ends at 4 shards, 32 GPUs, which the queue
#   refuses; the minimum the engine offered is the last size tried, and it runs at that: 2
#   shards and 2 evaluators, 24 GPUs.
# CASE refused: as minimum, but each evaluator Job is one pod of 5 GPUs, which no 4-GPU node
#   holds, and the queue takes 26 GPUs: the minimum (2 evaluators and 2 shards, 26 GPUs) passes
#   the queue but cannot be placed, and the 4 shards placed (32) are over it, so the queues
#   refuse every size placed. The JobSet waits saying so as an ordinary gang refused by its
#   queue does (Scheduled=False/QuotaExceeded, the queue's limit, on the RB and the admin API),
#   not NoClusterFit; the queue raised to 32 GPUs, it runs at those 4 shards.
# musterd is armed to die right after the admission's ledger row (crash point elastic.ledger)
# and restarted on the same database: it converges to the same admission. Then: the member
# JobSets' replicas add up to 3 Jobs, their offsets are contiguous over a total of 3, each
# member PodGroup's minMember is its Jobs x 6, the queue holds 24 GPUs, the row and the RB's
# Scheduled condition say why the fourth Job never runs. musterd restarted once more: nothing
# changes. CASE spread then loses west to a NoExecute taint: the split is requeued asking for
# all 4 Jobs, waits while east alone is below training's minimum, and runs at 3 again once
# west is back.
# Usage: dispatch_composite_min.sh MUSTER_SIM MUSTERD SOURCE_DIR [spread|single|quota|minimum|refused]
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3 CASE=${4:-spread}
NAME=dispatch_composite_min_$CASE TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures
RB=wlsets-jobset
OFF=scheduling.muster.io/group-offset TOT=scheduling.muster.io/group-total

mkdir -p "$TMP"
east=5 west=3 gpus=40
[ "$CASE" = single ] && east=6
[ "$CASE" = quota ] && west=5 gpus=24
[ "$CASE" = minimum ] && west=5 gpus=24
[ "$CASE" = refused ] && west=5 gpus=26
# east's and west's node counts (the fixture has 5 each)
awk -v e=$east -v w=$west 'BEGIN { n = 0 } /count: 5/ { n++; sub(/count: 5/, "count: " (n == 1 ? e : w)) } 1' \
    "$FIX/dispatch/composite-20gpu.yaml" >"$TMP/clusters.yaml"
start_sim "$TMP/clusters.yaml"
start_musterd
queue q root "{\"cpu\":\"256\",\"nvidia.com/gpu\":\"$gpus\"}"
state() { api GET "/api/v1/bindings/team/$RB" | jq -r .state; }
rendered() {
    k get works -n "karmada-es-$1" -o json |
        jq -c '[.items[].spec.workload.manifests[0] | select(.kind == "JobSet")] | .[0]'
}
podgroup() { k get work "muster-pg-team.$RB" -n "karmada-es-$1" -o json | jq -c '.spec.workload.manifests[0]'; }

if [ "$CASE" = refused ] || [ "$CASE" = minimum ]; then
    k create --dry-run=client -o json -f "$FIX/workloads/workload-jobset-composite.yaml" |
        jq --arg c "$CASE" '.spec.compositePodGroupTemplates = [{name: "all",
                schedulingPolicy: {gang: {minGroupCount: 4}},
                podGroupTemplates: (.spec.compositePodGroupTemplates | map(.podGroupTemplates[0]))}] |
            if $c == "refused" then
                .spec.compositePodGroupTemplates[0].podGroupTemplates[1].schedulingPolicy.gang.minCount = 1
            else . end' |
        k create -f - >/dev/null
    k create --dry-run=client -o json -f "$FIX/workloads/jobset-workload.yaml" |
        jq --arg c "$CASE" 'del(.metadata.uid, .metadata.resourceVersion) |
            .metadata.labels["kueue.x-k8s.io/queue-name"] = "q" |
            if $c == "refused" then
                .spec.replicatedJobs[1].template.spec.parallelism = 1 |
                .spec.replicatedJobs[1].template.spec.completions = 1 |
                .spec.replicatedJobs[1].template.spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"] = 5
            else . end' | k create -f - >/dev/null
    DUMP=/api/v1/bindings/team/$RB
    if [ "$CASE" = minimum ]; then
        wait_until 30 "the JobSet to run at its minimum" is_eq running state
        expect "$(api GET "/api/v1/bindings/team/$RB" | jq -c '[.clusters[].groups] | transpose | map(add)')" \
            "[2,2]" "2 shards and 2 evaluators: the minimum its queue took"
        expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 24 \
            "q holds the minimum's 24 GPUs"
        expect "$(api GET "/api/v1/bindings/team/$RB" | jq -r '.request["nvidia.com/gpu"]')" 24 \
            "the row's request is the minimum's"
        finish
        exit 0
    fi
    why="queue q: nvidia.com/gpu 0 of 26 in use, needs 32 (at 4 of its 6 Jobs, the fewest it \
steps down to while every level keeps its minimum)"
    wait_until 30 "the RB to say its queue refuses it" is_eq "False/QuotaExceeded" rb_cond $RB Scheduled
    expect "$(rb_cond_msg $RB Scheduled)" "$why" "the RB's Scheduled message"
    expect "$(api GET "/api/v1/bindings/team/$RB" | jq -r .reason)" "$why" "the binding's reason"
    expect "$(state)" pending "the JobSet waits"
    expect "$(rbj $RB '{.spec.clusters}')" "" "nothing placed"
    api PATCH /api/v1/queues/q '{"capability":{"cpu":"256","nvidia.com/gpu":"32"}}' >/dev/null
    wait_until 30 "the JobSet to run at 4 shards" is_eq running state
    expect "$(api GET "/api/v1/bindings/team/$RB" | jq -c '[.clusters[].groups] | transpose | map(add)')" \
        "[4,0]" "4 shards and no evaluator"
    expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 32 \
        "q holds the 4 shards' 32 GPUs"
    finish
    exit 0
fi
k create --dry-run=client -o json -f "$FIX/workloads/workload-jobset-composite.yaml" |
    jq 'del(.spec.compositePodGroupTemplates[1])' | k create -f - >/dev/null
k create --dry-run=client -o json -f "$FIX/workloads/jobset-workload.yaml" |
    jq --arg c "$CASE" 'del(.metadata.uid, .metadata.resourceVersion, .spec.replicatedJobs[1]) |
        .metadata.labels["kueue.x-k8s.io/queue-name"] = "q" |
        if $c == "single" then del(.metadata.annotations) else . end' >"$TMP/jobset.json"

# the admission, musterd dying on its row and restarted
kill -TERM "$MUSTERD_PID"
wait "$MUSTERD_PID" || true
export MUSTER_CRASH_AT=elastic.ledger
start_musterd
unset MUSTER_CRASH_AT
k create -f "$TMP/jobset.json" >/dev/null
wait_until 30 "musterd to die at elastic.ledger" eval "! kill -0 $MUSTERD_PID"
wait "$MUSTERD_PID" || true
grep -q "crash point elastic.ledger reached" "$TMP/musterd.err" ||
    dfail "musterd did not reach elastic.ledger: $(tail -5 "$TMP/musterd.err")"
expect "$(rbj $RB '{.spec.clusters}')" "" "nothing requested before the row"
start_musterd
wait_until 30 "the JobSet to run at 3 Jobs" is_eq running state

check() {
    local cl want
    cl=$(rb_clusters $RB)
    if [ "$CASE" = single ]; then
        expect "$cl" "east=24 " "spec.clusters: 3 shards in east alone"
        want='[{"name":"east","groups":[3]}]'
    else
        expect "$cl" "east=16 west=8 " "spec.clusters: 2 shards in east, 1 in west"
        want='[{"name":"east","groups":[2]},{"name":"west","groups":[1]}]'
    fi
    expect "$(api GET "/api/v1/bindings/team/$RB" | jq -c '[.clusters[] | {name, groups}]')" \
        "$want" "the row keeps each share's Jobs"
    expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 24 \
        "q holds the 3 Jobs' 24 GPUs, not the JobSet's 32"
    expect "$(api GET "/api/v1/bindings/team/$RB" | jq -r '.request["nvidia.com/gpu"]')" 24 \
        "the row's request is the 3 Jobs'"
    local sum=0 offs="" m n pg
    for c in east west; do
        m=$(rendered "$c")
        if [ "$m" = null ]; then
            [ "$CASE" = single ] && [ "$c" = west ] && continue
            dfail "$c: no JobSet Work"
        fi
        n=$(jq -r '.spec.replicatedJobs[0].replicas' <<<"$m")
        sum=$((sum + n))
        expect "$(jq -r '.spec.replicatedJobs[0].template.spec.parallelism' <<<"$m")" 8 "$c: no Job cut"
        expect "$(jq -r --arg t "$TOT" '.spec.replicatedJobs[0].template.spec.template.metadata.annotations[$t]' <<<"$m")" \
            3 "$c: the group total counts the 3 Jobs admitted"
        offs="$offs$(jq -r --arg o "$OFF" '.spec.replicatedJobs[0].template.spec.template.metadata.annotations[$o]' <<<"$m"):$n "
        pg=$(podgroup "$c")
        expect "$(jq -r .spec.minMember <<<"$pg")" $((n * 6)) "$c: PodGroup minMember $n x 6"
        expect "$(jq -c '[.spec.subGroupPolicy[] | [.name, .subGroupSize, .minSubGroups]]' <<<"$pg")" \
            "[[\"shard\",6,$n]]" "$c: a subgroup of its $n Jobs at the template's minCount"
    done
    expect "$sum" 3 "the member JobSets run 3 Jobs in all"
    if [ "$CASE" = single ]; then
        expect "$offs" "0:3 " "offsets: 0 in east"
    else
        expect "$offs" "0:2 2:1 " "offsets contiguous: east from 0, west from 2"
    fi
    local why="admitted at 3 of its 4 Jobs (composite training needs 3 of 4): the whole does \
not fit; a JobSet's replicatedJobs cannot grow in place, so the other 1 does not run"
    expect "$(rb_cond $RB Scheduled)" "True/Success" "Scheduled"
    expect "$(rb_cond_msg $RB Scheduled)" "$why" "the RB's Scheduled condition says why"
    api GET "/api/v1/bindings/team/$RB" | jq -e --arg w "$why" '[.history[].reason] | any(. == $w)' \
        >/dev/null || dfail "the row's reason: $(api GET "/api/v1/bindings/team/$RB" | jq -c '[.history[].reason]')"
}
check
works_before=$(for c in east west; do k get works -n "karmada-es-$c" -o json | jq -c '[.items[] | {n: .metadata.name, rv: .metadata.resourceVersion}]'; done)

# a restart changes nothing
kill -TERM "$MUSTERD_PID"
wait "$MUSTERD_PID" || true
start_musterd
wait_until 30 "musterd to lead and follow the JobSet" is_eq running state
sleep 1
check
works_after=$(for c in east west; do k get works -n "karmada-es-$c" -o json | jq -c '[.items[] | {n: .metadata.name, rv: .metadata.resourceVersion}]'; done)
expect "$works_after" "$works_before" "no Work rewritten by the restart"

if [ "$CASE" = spread ]; then
    # A rollback asks for every Job again: west lost to a NoExecute taint, the split is
    # requeued whole; east alone holds 2 shards, below training's 3, so it waits; west back, it
    # is admitted at 3 again.
    k patch cluster west --type merge \
        -p '{"spec":{"taints":[{"key":"maintenance","value":"now","effect":"NoExecute"}]}}' >/dev/null
    wait_until 20 "the loss to requeue the JobSet" is_eq pending state
    expect "$(api GET "/api/v1/bindings/team/$RB" | jq -r '.request["nvidia.com/gpu"]')" 32 \
        "requeued, its pending row asks for all 4 Jobs"
    wait_until 20 "its queue to hold nothing" is_eq 0 eval \
        "api GET /api/v1/queues/q | jq -r '.status.allocated[\"nvidia.com/gpu\"] // \"0\"'"
    k patch cluster west --type merge -p '{"spec":{"taints":null}}' >/dev/null
    wait_until 30 "the JobSet to run at 3 Jobs again" is_eq running state
    check
fi
finish
