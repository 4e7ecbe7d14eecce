#!/usr/bin/env bash
# Issue 19's kinds, musterd against muster-sim with Karmada's default feature gates: one object
# of each (JobSet, LeaderWorkerSet, PyTorchJob, MPIJob, RayCluster, RayJob, TrainJob; the upstream examples
# of tests/fixtures/workloads) is created with kubectl; Karmada's detector makes an RB with no
# replicas, requirements or components; the webhook rule holds it, musterd reads the gang from
# the template, admits it in its queue and places it whole on one cluster (spec.clusters has one
# entry with every pod), although the policy says Divided; the JobSet on west, the one member
# whose apiEnablements list the JobSet CRD. The batch kinds (JobSet, PyTorchJob,
# MPIJob, RayJob, TrainJob) run 4 s in the simulated members and are released as completed when their
# controllers' status says so; the LeaderWorkerSet and the RayCluster run on, holding their
# share of the queue. Every write is checked against the CRDs.
# The TrainJob (Kubeflow Trainer's multi-step example) is created before the TrainingRuntime it
# names: its RB waits (Unschedulable, naming the runtime) until the runtime is created on the
# hub, then it is read again, with the runtime's pods and the TrainJob's numNodes and
# resourcesPerNode (1 initializer pod + 2 nodes of 2 CPU), and placed whole.
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

# fixture RB-name pods cpu gpu components finishes: the whole gang of each, as
# tests/unit/karmada/test_workload_kinds.c reads it, the names of Karmada's components, and
# whether it is a batch kind that completes
KINDS=(
    "jobset paralleljobs-jobset 5 4500m 0 - yes"
    "lws leaderworkerset-multi-template-leaderworkerset 12 600m 0 - no"
    "pytorchjob pytorch-dist-mnist-gloo-pytorchjob 2 0 2 master,worker yes"
    "mpijob tensorflow-mnist-mpijob 3 5 0 - yes"
    "raycluster raycluster-kuberay-raycluster 2 2 0 ray-head,workergroup no"
    "rayjob rayjob-sample-rayjob 2 1200m 0 ray-head,small-group yes"
    "trainjob multi-step-example-trainjob 3 4 0 - yes"
)
for row in "${KINDS[@]}"; do
    read -r fx _ _ _ _ _ fin <<<"$row"
    dur='{}'
    [ "$fin" == yes ] && dur='{"sim.muster.io/duration": "4s"}'
    # the upstream example as a user would create it: no uid or resourceVersion, in queue q
    k create --dry-run=client -o json -f "$FIX/workloads/$fx.yaml" |
        jq --argjson dur "$dur" 'del(.metadata.uid, .metadata.resourceVersion) |
            .metadata.labels["kueue.x-k8s.io/queue-name"] = "q" |
            .metadata.annotations = ((.metadata.annotations // {}) + $dur)' |
        k create -f - >/dev/null
done
# the TrainJob waits for its TrainingRuntime, which is not on the hub yet, and is read again
# when it is created
tj=multi-step-example-trainjob
wait_until 10 "the RB $tj" eval "k get rb $tj -o name"
wait_until 20 "the TrainJob to wait for its runtime" is_eq False/Unschedulable rb_cond $tj Scheduled
msg=$(rb_cond_msg $tj Scheduled)
grep -qF "waiting for the TrainingRuntime torch-with-dataset-init in namespace team that the \
TrainJob names (spec.runtimeRef) to be created on the hub" <<<"$msg" ||
    dfail "the TrainJob's wait names its runtime: $msg"
expect "$(rbj $tj '{.spec.clusters}')" "" "no placement while the TrainJob waits"
k create -f "$FIX/workloads/trainingruntime-torch-with-dataset-init.yaml" >/dev/null
# the binding's history holds a release for REASON
released() { api GET "/api/v1/bindings/team/$1" | jq -e --arg r "$2" '.history | any(.state == "released" and .reason == $r)'; }

for row in "${KINDS[@]}"; do
    read -r fx rb pods cpu gpu comps _ <<<"$row"
    wait_until 10 "the RB $rb" eval "k get rb $rb -o name"
    expect "$(rbj "$rb" '{.spec.replicas}{.spec.replicaRequirements}')" "" \
        "$fx: no replica interpretation"
    want=
    [ "$CASE" == components ] && [ "$comps" != - ] && want=$comps
    expect "$(k get rb "$rb" -o json | jq -r '[.spec.components[]?.name] | join(",")')" "$want" \
        "$fx: spec.components ($CASE)"
    wait_until 20 "$fx to be dispatched" is_eq True/Success rb_cond "$rb" Scheduled
    clusters=$(rb_clusters "$rb")
    case "$fx:$clusters" in jobset:"west=$pods " | [!j]*:"east=$pods " | [!j]*:"west=$pods ") ;;
    *) dfail "$fx: spec.clusters: [$clusters]" ;;
    esac
    b=$(api GET "/api/v1/bindings/team/$rb")
    expect "$(jq -r .queue <<<"$b")" q "$fx: queued in q"
    expect "$(jq -r '.request.cpu // "0"' <<<"$b")" "$cpu" "$fx: the gang's CPU"
    expect "$(jq -r '.request["nvidia.com/gpu"] // "0"' <<<"$b")" "$gpu" "$fx: the gang's GPUs"
    jq -e '.admittedAtMs > 0 and (.state | IN("admitted", "dispatched", "running", "released"))' \
        <<<"$b" >/dev/null || dfail "$fx: not admitted: $b"
done
# the batch kinds finish and are released; the others run on
for row in "${KINDS[@]}"; do
    read -r fx rb _ _ _ _ fin <<<"$row"
    if [ "$fin" == yes ]; then
        wait_until 30 "$fx to complete and be released" released "$rb" completed
    else
        wait_until 10 "$fx to run" is_eq running eval "api GET /api/v1/bindings/team/$rb | jq -r .state"
    fi
done
for rb in leaderworkerset-multi-template-leaderworkerset raycluster-kuberay-raycluster; do
    expect "$(api GET "/api/v1/bindings/team/$rb" | jq -r .state)" running "$rb still runs"
done
q=$(api GET /api/v1/queues/q)
expect "$(jq -r '.status.allocated["nvidia.com/gpu"] // "0"' <<<"$q")" 0 "the PyTorchJob's GPUs freed"
expect "$(jq -r '.status.allocated.cpu' <<<"$q")" 2600m "q holds the LWS's and the RayCluster's CPU"
finish
