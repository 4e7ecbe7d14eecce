#!/usr/bin/env bash
# Issue 19's kinds, musterd against muster-sim with Karmada's default feature gates: one object
# of each (JobSet, LeaderWorkerSet, PyTorchJob, MPIJob, RayCluster, RayJob; the upstream examples
# of tests/fixtures/workloads) is created with kubectl; Karmada's detector makes an RB with no
# replicas, requirements or components; the webhook rule holds it, musterd reads the gang from
# the template, admits it in its queue and places it whole on one cluster (spec.clusters has one
# entry with every pod), although the policy says Divided. Every write is checked against the CRDs.
# CASE components turns MultiplePodTemplatesScheduling on: the RBs of the kinds Karmada's
# thirdparty customizations interpret (PyTorchJob, RayCluster, RayJob) carry spec.components,
# which musterd pairs with the template by name; the others still carry none.
# Usage: dispatch_kinds.sh MUSTER_SIM MUSTERD SOURCE_DIR [default|components]
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3 CASE=${4:-default}
NAME=dispatch_kinds_$CASE TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures

case $CASE in
default) start_sim "$FIX/dispatch/kinds.yaml" ;;
components) start_sim "$FIX/dispatch/kinds.yaml" --feature-gates MultiplePodTemplatesScheduling=true ;;
*) dfail "CASE: default or components" ;;
esac
start_musterd
queue q root '{"cpu":"64","nvidia.com/gpu":"8"}'

# fixture RB-name pods cpu gpu components: the whole gang of each, as
# tests/unit/karmada/test_workload_kinds.c reads it, and the names of Karmada's components
KINDS=(
    "jobset paralleljobs-jobset 5 4500m 0 -"
    "lws leaderworkerset-multi-template-leaderworkerset 12 600m 0 -"
    "pytorchjob pytorch-dist-mnist-gloo-pytorchjob 2 0 2 master,worker"
    "mpijob tensorflow-mnist-mpijob 3 5 0 -"
    "raycluster raycluster-kuberay-raycluster 2 2 0 ray-head,workergroup"
    "rayjob rayjob-sample-rayjob 2 1200m 0 ray-head,small-group"
)
for row in "${KINDS[@]}"; do
    read -r fx _ <<<"$row"
    # the upstream example as a user would create it: no uid or resourceVersion, in queue q
    k create --dry-run=client -o json -f "$FIX/workloads/$fx.yaml" |
        jq 'del(.metadata.uid, .metadata.resourceVersion) |
            .metadata.labels["kueue.x-k8s.io/queue-name"] = "q"' |
        k create -f - >/dev/null
done

for row in "${KINDS[@]}"; do
    read -r fx rb pods cpu gpu comps <<<"$row"
    wait_until 10 "the RB $rb" eval "k get rb $rb -o name"
    expect "$(rbj "$rb" '{.spec.replicas}{.spec.replicaRequirements}')" "" \
        "$fx: no replica interpretation"
    want=
    [ "$CASE" == components ] && [ "$comps" != - ] && want=$comps
    expect "$(k get rb "$rb" -o json | jq -r '[.spec.components[]?.name] | join(",")')" "$want" \
        "$fx: spec.components ($CASE)"
    wait_until 20 "$fx to be dispatched" is_eq True/Success rb_cond "$rb" Scheduled
    clusters=$(rb_clusters "$rb")
    case "$clusters" in "east=$pods " | "west=$pods ") ;; *) dfail "$fx: spec.clusters: [$clusters]" ;; esac
    b=$(api GET "/api/v1/bindings/team/$rb")
    expect "$(jq -r .queue <<<"$b")" q "$fx: queued in q"
    expect "$(jq -r '.request.cpu // "0"' <<<"$b")" "$cpu" "$fx: the gang's CPU"
    expect "$(jq -r '.request["nvidia.com/gpu"] // "0"' <<<"$b")" "$gpu" "$fx: the gang's GPUs"
    jq -e '.admittedAtMs > 0 and (.state | IN("admitted", "dispatched", "running"))' \
        <<<"$b" >/dev/null || dfail "$fx: not admitted: $b"
done
expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 2 \
    "q holds the PyTorchJob's 2 GPUs"
finish
