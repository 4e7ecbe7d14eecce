#!/usr/bin/env bash
# Issue 20 end to end: a JobSet of two replicated jobs split by its Jobs over two clusters.
# Two clusters of five 4-GPU nodes (20 GPUs each, composite-20gpu.yaml) and a JobSet of 4 shards
# x 8 one-GPU pods and 2 evaluators x 4 one-GPU pods (tests/fixtures/workloads/jobset-sets.yaml,
# placement spread): 40 GPUs, so the only placement is 2 shards and 1 evaluator in each cluster,
# no Job cut. musterd is killed once after one object of the split is acknowledged: the ledger
# row already holds each share's Jobs per replicated job, and the restart writes the rest from
# it. Once it runs, each cluster's rendered JobSet has replicatedJobs[0].replicas 2 and [1] 1,
# each replicated job's own group offset and total, and its PodGroup gangs 20 pods as a shard
# subgroup (8 x 2) and an evaluator one (4 x 1). musterd is then killed with SIGKILL and
# restarted: it rebuilds the same split from the row and rewrites nothing (the policy and the
# PodGroup Works keep their resourceVersions). Every write is checked against the CRDs.
# Usage: dispatch_composite_sets.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_composite_sets TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures
RB=sets-jobset

start_sim "$FIX/dispatch/composite-20gpu.yaml"
start_musterd
queue q root '{"cpu":"256","nvidia.com/gpu":"40"}'
state() { api GET "/api/v1/bindings/team/$RB" | jq -r .state; }
row_clusters() { api GET "/api/v1/bindings/team/$RB" | jq -c '[.clusters[] | {name, replicas, groups}] | sort_by(.name)'; }
# rendered CLUSTER: the JobSet Karmada rendered for CLUSTER's Work
rendered() {
    k get works -n "karmada-es-$1" -o json |
        jq -c '[.items[].spec.workload.manifests[0] | select(.kind == "JobSet")] | .[0]'
}
podgroup_work() { k get work "muster-pg-team.$RB" -n "karmada-es-$1" -o json; }
policy() { k get overridepolicy "muster-$RB" -o json; }
share_index() { rbj $RB '{.spec.clusters[*].name}' | tr ' ' '\n' | grep -nx "$1" | cut -d: -f1; }
crashed() {
    wait_until 30 "musterd to crash at $1" eval '! kill -0 $MUSTERD_PID'
    wait "$MUSTERD_PID" || true
    grep -q "crash point $1 reached" "$TMP/musterd.err" || dfail "musterd did not stop at $1"
}

kill -TERM "$MUSTERD_PID"
wait "$MUSTERD_PID" || dfail "musterd exit status $?"
export MUSTER_CRASH_AT=dispatch.objects.one
start_musterd
k create --dry-run=client -o json -f "$FIX/workloads/jobset-sets.yaml" |
    jq 'del(.metadata.uid, .metadata.resourceVersion) |
        .metadata.labels["kueue.x-k8s.io/queue-name"] = "q"' | k create -f - >/dev/null
crashed dispatch.objects.one
unset MUSTER_CRASH_AT
start_musterd
# the counts were on the row before any object went out
want='[{"name":"east","replicas":20,"groups":[2,1]},{"name":"west","replicas":20,"groups":[2,1]}]'
expect "$(row_clusters)" "$want" "the row keeps each share's Jobs per replicated job"
wait_until 30 "the split JobSet to run" is_eq running state
cl=$(rb_clusters $RB)
case "$cl" in "east=20 west=20 " | "west=20 east=20 ") ;; *) dfail "spec.clusters: [$cl]" ;; esac
expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 40 \
    "q holds the JobSet's 40 GPUs"

# check_objects: each cluster's copy and PodGroup as the split says
check_objects() {
    local c at m pg
    for c in east west; do
        at=$(($(share_index $c) - 1))
        m=$(rendered $c)
        expect "$(jq -c '[.spec.replicatedJobs[] | .replicas]' <<<"$m")" "[2,1]" \
            "$c: its copy runs 2 shards and 1 evaluator"
        expect "$(jq -r '[.spec.replicatedJobs[] | .template.spec.template.metadata.annotations |
            .["scheduling.muster.io/group-offset"] + "/" + .["scheduling.muster.io/group-total"]]
            | join(" ")' <<<"$m")" "$((at * 2))/4 $at/2" "$c: each replicated job's offset/total"
        expect "$(jq -r '[.spec.replicatedJobs[] | .template.spec.template.spec.schedulerName] |
            join(" ")' <<<"$m")" "volcano volcano" "$c: its pods go to Volcano"
        pg=$(podgroup_work $c | jq -c '.spec.workload.manifests[0]')
        expect "$(jq -r '.spec.minMember' <<<"$pg")" 20 "$c: PodGroup minMember"
        expect "$(jq -r '.spec.minResources["nvidia.com/gpu"]' <<<"$pg")" 20 "$c: PodGroup GPUs"
        expect "$(jq -c '[.spec.subGroupPolicy[] | [.name, .subGroupSize, .minSubGroups,
            .labelSelector.matchLabels["jobset.sigs.k8s.io/replicatedjob-name"]]]' <<<"$pg")" \
            '[["shard",8,2,"shard"],["eval",4,1,"eval"]]' "$c: a subgroup per replicated job"
    done
}
check_objects
# what a restart must leave as it is
versions() {
    echo "$(policy | jq -r .metadata.resourceVersion) $(podgroup_work east |
        jq -r .metadata.resourceVersion) $(podgroup_work west | jq -r .metadata.resourceVersion)"
}
rules=$(policy | jq -cS .spec.overrideRules)
before=$(versions)

# SIGKILL while it runs: the restart rebuilds the same split from the row
kill -KILL "$MUSTERD_PID"
wait "$MUSTERD_PID" || true
start_musterd
wait_until 30 "musterd to reconcile" grep -qs "reconciled with the hub" "$TMP/musterd.out" "$TMP/musterd.err"
expect "$(state)" running "still running after the restart"
expect "$(row_clusters)" "$want" "the row's counts after the restart"
# a rewrite would have been sent by now (nothing to poll for: the check is that none comes)
sleep 1
expect "$(policy | jq -cS .spec.overrideRules)" "$rules" "the same per-cluster rules"
expect "$(versions)" "$before" "the policy and PodGroup Works untouched by the restart"
check_objects
expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 40 \
    "q still holds 40 GPUs"
finish
