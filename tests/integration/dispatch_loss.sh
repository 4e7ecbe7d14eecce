#!/usr/bin/env bash
# Issue 17, musterd against muster-sim: a member cluster lost under a dispatched gang, one
# point per CASE (docs/dispatcher.md, "A cluster lost"; docs/sim.md, "How tests drive a lost
# cluster"):
#   notready-requeue  a single-cluster gang's cluster stops answering; past --cluster-lost-grace
#                     (2s here) the gang is rolled back whole and requeued in its place, without
#                     back-off (onClusterLoss: Requeue, the default); while its queue is closed it
#                     waits and its condition names the loss; then it runs elsewhere
#   notready-replace  a spread gang loses one of its two clusters; onClusterLoss: Replace moves
#                     that share, whole, to the third cluster, and the share that runs stays
#   taint             a NoExecute taint the gang does not tolerate (no taint manager running:
#                     muster's own judgment), Requeue
#   eviction          Karmada's eviction written into the RB (spec.clusters without the cluster,
#                     a graceful eviction task, as GracefulEvictCluster writes them), Replace
#   tree-replace      (issue 20) a gang of whole groups required in one fabric (a Cluster label)
#                     loses its cluster; the only Replace that holds its groups breaks the
#                     fabric, so it is requeued whole instead (onClusterLoss: Replace)
# Every write is checked against the CRDs.
# Usage: dispatch_loss.sh MUSTER_SIM MUSTERD SOURCE_DIR CASE
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3 CASE=$4
NAME=dispatch_loss_$CASE TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

ready() {
    curl -sf -X PUT -H 'Content-Type: application/json' --data "{\"ready\":$2}" \
        "$BASE/debug/sim/clusters/$1/ready" >/dev/null || dfail "PUT $1/ready $2"
}
state() { api GET "$DUMP" | jq -r .state; }
rows() { api GET "$DUMP" | jq "[.history[] | select(.state == \"$1\")] | length"; }
row_reason() { api GET "$DUMP" | jq -r "[.history[] | select(.state == \"$1\")] | .[0].reason"; }
losses() {
    curl -sf "$API/metrics" |
        sed -n "s/^muster_cluster_losses_total{trigger=\"$1\",decision=\"$2\"} //p"
}
muster_works() { k get works -n "karmada-es-$1" -l app.kubernetes.io/managed-by=muster -o name | wc -l; }
# muster's Works there not being deleted (a NotReady member keeps a deleting Work: its
# finalizer waits for the member to answer, as Karmada's execution controller does)
muster_works_kept() {
    k get works -n "karmada-es-$1" -l app.kubernetes.io/managed-by=muster -o json |
        jq '[.items[] | select(.metadata.deletionTimestamp == null)] | length'
}
lists() { rb_clusters "$1" | grep -qw "$2=[0-9]*"; }
not_lists() { ! lists "$@"; }
replicas_of() { rb_clusters "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# Requeue: rolled back whole, requeued without back-off, in its place; placed elsewhere.
requeue_case() { # TRIGGER_REGEX METRIC_TRIGGER LOSE_CMD...
    local re=$1 trig=$2
    shift 2
    queue q root '{"nvidia.com/gpu":"24"}'
    DUMP=/api/v1/bindings/team/solo-deployment
    k create -f "$FIX/solo-deploy.yaml" >/dev/null
    wait_until 20 "the gang to run" is_eq running state
    lost=$(rbj solo-deployment '{.spec.clusters[0].name}')
    created=$(api GET "$DUMP" | jq .createdAtMs)
    # A closed queue leaves a running gang alone; the requeued one will wait there.
    api PATCH /api/v1/queues/q '{"state":"Closed"}' >/dev/null
    "$@" "$lost"
    wait_until 15 "the loss to roll the gang back" is_eq 1 rows rolledback
    reason=$(row_reason rolledback)
    echo "rolled back: $reason"
    [[ "$reason" =~ ^cluster\ $lost\ lost:\ $re\;\ requeued\ \(onClusterLoss:\ Requeue\)$ ]] ||
        dfail "rolledback reason: $reason"
    expect "$(api GET "$DUMP" | jq -c '[.history[] | select(.state == "rolledback")][0].loss |
        [.cluster, .trigger, .decision, .from[0].name]')" "[\"$lost\",\"$trig\",\"Requeue\",\"$lost\"]" \
        "the ledger's loss record"
    expect "$(losses "$trig" requeued)" 1 "muster_cluster_losses_total{trigger=$trig}"
    expect "$(curl -sf "$API/metrics" |
        sed -n 's/^muster_rollbacks_total{reason="cluster-lost"} //p')" 1 "counted as cluster-lost"
    # the hub undone whole; nothing of muster's left in the lost cluster's namespace
    wait_until 10 "the hub to be rolled back" is_eq "true|" \
        rbj solo-deployment '{.spec.suspension.scheduling}|{.spec.clusters}'
    wait_until 10 "muster's Works there to be deleted" is_eq 0 muster_works_kept "$lost"
    # It keeps its place in line and says why it waits: the API and the RB's condition.
    expect "$(api GET "$DUMP" | jq .createdAtMs)" "$created" "its place in line (createdAtMs)"
    wait_until 10 "the condition to name the loss" eval \
        "rb_cond_msg solo-deployment Scheduled | grep -q 'requeued after cluster $lost was lost'"
    echo "waiting: $(rb_cond_msg solo-deployment Scheduled)"
    api GET '/api/v1/bindings?queue=q' | jq -r '.items[0].reason' |
        grep -q "requeued after cluster $lost was lost" || dfail "the API's reason names no loss"
    # A restart still says why it waits (the pending row carries the loss record).
    kill -TERM "$MUSTERD_PID"
    wait "$MUSTERD_PID" || dfail "musterd exit status $?"
    MUSTERD_PID=
    start_musterd "${MD_ARGS[@]}"
    wait_until 10 "the restarted musterd to name the loss" eval \
        "api GET '/api/v1/bindings?queue=q' | jq -r '.items[0].reason' | grep -q 'requeued after cluster $lost was lost'"
    # No back-off: opened, it runs at once (a failure would wait 10 s first), not where it was.
    api PATCH /api/v1/queues/q '{"state":"Open"}' >/dev/null
    wait_until 8 "the gang to run again" is_eq running state
    not_lists solo-deployment "$lost" || dfail "placed again on the lost $lost"
    expect "$(api GET "$DUMP" | jq .createdAtMs)" "$created" "same place in line"
    echo "running again on $(rb_clusters solo-deployment)"
}

# Replace: the lost share moves, whole; the other share runs on, untouched.
replace_case() { # TRIGGER_REGEX METRIC_TRIGGER LOSE_CMD...
    local re=$1 trig=$2
    shift 2
    queue q root '{"nvidia.com/gpu":"24"}' '"onClusterLoss":"Replace"'
    expect "$(api GET /api/v1/queues/q | jq -r .onClusterLoss)" Replace "the queue's policy"
    DUMP=/api/v1/bindings/team/spread-deployment
    k create -f "$FIX/spread-deploy.yaml" >/dev/null
    wait_until 20 "the gang to run" is_eq running state
    local before
    before=$(rb_clusters spread-deployment)
    # the cluster with the smaller share is lost; the other keeps running
    lost=$(rbj spread-deployment '{range .spec.clusters[*]}{.replicas} {.name}{"\n"}{end}' |
        sort -n | head -1 | cut -d' ' -f2)
    keep=$(rbj spread-deployment '{range .spec.clusters[*]}{.replicas} {.name}{"\n"}{end}' |
        sort -n | tail -1 | cut -d' ' -f2)
    moved=$(replicas_of spread-deployment "$lost")
    kept=$(replicas_of spread-deployment "$keep")
    echo "placed: $before; losing $lost ($moved replicas)"
    "$@" "$lost" "$keep" "$kept"
    wait_until 20 "the share to move" not_lists spread-deployment "$lost"
    wait_until 20 "the gang to run again" is_eq running state
    after=$(rb_clusters spread-deployment)
    echo "replaced: $after"
    total=0
    for r in $(rbj spread-deployment '{.spec.clusters[*].replicas}'); do total=$((total + r)); done
    expect "$total" 6 "the whole gang placed"
    [ "$(replicas_of spread-deployment "$keep")" -ge "$kept" ] || dfail "$keep's share shrank: $after"
    expect "$(rows rolledback)" 0 "no rollback: the running share stayed"
    reason=$(api GET "$DUMP" | jq -r '.history[-1].reason')
    echo "reason: $reason"
    [[ "$reason" =~ ^cluster\ $lost\ lost:\ $re\;\ its\ $moved\ replicas\ replaced\ on\ [a-z]+\ \(onClusterLoss:\ Replace\)$ ]] ||
        dfail "replace reason: $reason"
    api GET '/api/v1/bindings?queue=q' | jq -r '.items[0].reason' |
        grep -q "cluster $lost lost" || dfail "the API's reason names no loss"
    expect "$(api GET "$DUMP" | jq -c '.history[-1].loss | [.cluster, .trigger, .decision,
        (.from | map("\(.name)=\(.replicas)") | join(" ") + " ")]')" \
        "[\"$lost\",\"$trig\",\"Replace\",\"$before\"]" "the ledger's loss record"
    expect "$(losses "$trig" replaced)" 1 "muster_cluster_losses_total{trigger=$trig,decision=replaced}"
    # the moved share's PodGroup Work was made where it went; muster's barrier is down again
    for c in $(rbj spread-deployment '{.spec.clusters[*].name}'); do
        expect "$(muster_works "$c")" 1 "muster's PodGroup Work in $c"
    done
    expect "$(rbj spread-deployment '{.spec.suspension.scheduling}|{.spec.suspension.dispatching}')" \
        "false|" "lifted, no barrier left"
    # the lost share's PodGroup Work deleted at the Replace, not left to the 30 s orphan sweep
    wait_until 5 "the lost share's Work to be deleted" is_eq 0 muster_works_kept "$lost"
}

# gang NAME REPLICAS ANNOTATIONS [PIN]: two-GPU pods; PIN a cluster for its own policy
gang() {
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: team
  labels: {app: $1, volcano.sh/queue-name: q${4:+, pin: $4}}
  annotations: {$3}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - {name: w, image: registry.example/w:1, resources: {requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "2"}}}
YAML
}
# pin_policies CLUSTER...: a policy per cluster for the gangs labelled pin: CLUSTER
pin_policies() {
    local c
    for c in "$@"; do
        k create -f - >/dev/null <<YAML
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: to-$c, namespace: team}
spec:
  priority: 10
  schedulerName: muster
  resourceSelectors:
    - {apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {pin: $c}}}
  placement:
    clusterAffinity: {clusterNames: [$c]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
YAML
    done
}
gang_state() { api GET "/api/v1/bindings/team/$1-deployment" | jq -r .state; }

lose_notready() { ready "$1" false; }
lose_taint() {
    k patch cluster "$1" --type merge \
        -p '{"spec":{"taints":[{"key":"maintenance","value":"now","effect":"NoExecute"}]}}' >/dev/null
}
# As Karmada's GracefulEvictCluster writes it: the cluster leaves spec.clusters and a task names it.
lose_evicted() {
    k patch rb spread-deployment --type merge -p "{\"spec\":{\"clusters\":[{\"name\":\"$2\",\"replicas\":$3}],\"gracefulEvictionTasks\":[{\"fromCluster\":\"$1\",\"replicas\":2,\"reason\":\"ApplicationFailure\",\"producer\":\"ApplicationFailover\",\"purgeMode\":\"Gracefully\"}]}}" \
        >/dev/null
}

case "$CASE" in
notready-requeue)
    start_sim "$FIX/three-clusters.yaml"
    MD_ARGS=(--cluster-lost-grace 2s)
    start_musterd "${MD_ARGS[@]}"
    requeue_case 'NotReady for [0-9]+s' NotReady lose_notready
    ready "$lost" true
    ;;
notready-replace)
    start_sim "$FIX/three-clusters.yaml"
    start_musterd --cluster-lost-grace 2s
    replace_case 'NotReady for [0-9]+s' NotReady lose_notready
    ready "$lost" true
    ;;
taint)
    start_sim "$FIX/three-clusters.yaml"
    MD_ARGS=()
    start_musterd
    requeue_case 'taint maintenance=now:NoExecute is not tolerated by spec.placement.clusterTolerations' \
        NoExecute lose_taint
    ;;
eviction)
    start_sim "$FIX/three-clusters.yaml" --feature-gates Failover=true \
        --enable-no-execute-taint-eviction true
    start_musterd
    replace_case 'evicted by Karmada \(spec.gracefulEvictionTasks: ApplicationFailure by ApplicationFailover\)' \
        Evicted lose_evicted
    ;;
tree-replace)
    # issue 20: east and north share a fabric, west has its own. A gang of 2 groups of 2
    # two-GPU pods required in one fabric runs in east; north and west keep 4 GPUs free each
    # (a pinned gang in each). east is lost: a Replace into north and west would hold both
    # groups but break the fabric, north alone holds one, so the gang is requeued whole.
    sed -e 's/labels: {region: east}/labels: {region: east, muster.io\/fabric: f1}/' \
        -e 's/labels: {region: north}/labels: {region: north, muster.io\/fabric: f1}/' \
        -e 's/labels: {region: west}/labels: {region: west, muster.io\/fabric: f2}/' \
        "$FIX/three-clusters.yaml" >"$TMP/three-fabrics.yaml"
    start_sim "$TMP/three-fabrics.yaml"
    start_musterd --cluster-lost-grace 2s
    queue q root '{"nvidia.com/gpu":"24"}' '"onClusterLoss":"Replace"'
    DUMP=/api/v1/bindings/team/shards-deployment
    pin_policies north west
    gang shards 4 'scheduling.muster.io/placement: spread, scheduling.muster.io/group-size: "2",
      scheduling.muster.io/topology-required: muster.io/fabric'
    wait_until 20 "the sharded gang to run" is_eq running state
    expect "$(rb_clusters shards-deployment)" "east=4 " "the sharded gang in east (f1)"
    for c in north west; do
        gang "pin-$c" 2 'scheduling.muster.io/placement: single-cluster' "$c"
        wait_until 20 "the pinned gang in $c to run" is_eq running \
            eval "api GET /api/v1/bindings/team/pin-$c-deployment | jq -r .state"
        expect "$(rb_clusters "pin-$c-deployment")" "$c=2 " "pinned to $c"
    done
    ready east false
    wait_until 15 "the loss to roll the gang back" is_eq 1 rows rolledback
    reason=$(row_reason rolledback)
    echo "rolled back: $reason"
    [[ "$reason" == "cluster east lost: NotReady for "*"s; no other allowed Ready cluster holds its 4 replicas: requeued (onClusterLoss: Replace)" ]] ||
        dfail "rolledback reason: $reason"
    not_lists shards-deployment west || dfail "placed in west, outside its fabric"
    ready east true
    ;;
replace-settle)
    # A Replace judged while another gang's share has just started in the only cluster that
    # can take the lost one: that cluster's report already counts the new share (its pods are
    # bound), and muster still reserves it, as it has not seen it run (the sim's work status
    # controller paused for that cluster, as a lagging informer would). Against muster's
    # snapshot the lost share fits nowhere; against the report it fits. Replace waits for the
    # two to agree (the share seen running, then a newer report or 15 s) and replaces there,
    # instead of requeueing the gang whole.
    start_sim "$FIX/three-clusters.yaml"
    start_musterd
    queue q root '{"nvidia.com/gpu":"24"}' '"onClusterLoss":"Replace"'
    pin_policies north east west
    gang full 4 'scheduling.muster.io/placement: single-cluster' north # north: 8 of 8 GPUs
    wait_until 20 "north's gang to run" is_eq running gang_state full
    DUMP=/api/v1/bindings/team/mover-deployment
    gang mover 2 'scheduling.muster.io/placement: single-cluster' # 4 GPUs, east or west
    wait_until 20 "the gang to run" is_eq running state
    lost=$(rbj mover-deployment '{.spec.clusters[0].name}')
    other=east
    [ "$lost" = east ] && other=west
    work_status() {
        curl -sf -X PUT -H 'Content-Type: application/json' --data "{\"paused\":$2}" \
            "$BASE/debug/sim/clusters/$1/workstatus" >/dev/null || dfail "PUT $1/workstatus $2"
    }
    gpus_allocated() {
        k get cluster "$1" -o json | jq -r '.status.resourceSummary.allocated["nvidia.com/gpu"] // "0"'
    }
    work_status "$other" true
    gang late 2 'scheduling.muster.io/placement: single-cluster' "$other" # 4 of $other's 8
    wait_until 20 "$other's report to count the late gang" is_eq 4 gpus_allocated "$other"
    wait_until 20 "the late gang to be lifted" is_eq "false|$other" \
        rbj late-deployment '{.spec.suspension.scheduling}|{.spec.clusters[0].name}'
    expect "$(gang_state late)" dispatched "the late gang not seen running (its Works' status held)"
    lose_taint "$lost"
    wait_until 10 "the loss to be seen" eval "grep -q 'mover-deployment: cluster $lost lost' '$TMP/musterd.out'"
    sleep 2
    expect "$(rows rolledback)" 0 "not requeued while the reports may count the late share twice"
    lists mover-deployment "$lost" || dfail "moved while $other's room was counted twice"
    work_status "$other" false
    t0=$SECONDS
    wait_until 40 "the share to move" lists mover-deployment "$other"
    echo "replaced on $other $((SECONDS - t0)) s after the late gang was seen running: $(rb_clusters mover-deployment)"
    expect "$(rows rolledback)" 0 "no rollback: replaced, not requeued"
    reason=$(api GET "$DUMP" | jq -r '.history[-1].reason')
    [[ "$reason" == "cluster $lost lost: taint maintenance=now:NoExecute is not tolerated by spec.placement.clusterTolerations; its 2 replicas replaced on $other (onClusterLoss: Replace)" ]] ||
        dfail "replace reason: $reason"
    wait_until 20 "the gang to run again" is_eq running state
    expect "$(rb_clusters mover-deployment)" "$other=2 " "the whole share in $other"
    ;;
*)
    fail "unknown case $CASE"
    ;;
esac
finish
