#!/usr/bin/env bash
# Issue 20, a tree admitted at its minimum (docs/composite.md, "Admitted at its minimum"), against
# muster-sim, every write checked against the CRDs. Two clusters of 5 four-GPU nodes; a blocker
# fills one. tp (32 one-GPU pods, group-size 8, min-member 16: the root needs 2 of its 4 groups,
# no elastic opt-in) cannot fit whole: it is admitted with the 2 groups the free cluster holds.
# musterd is armed to die right after that admission's ledger row (crash point elastic.ledger)
# and restarted on the same database: it converges to the same admission. spec.clusters, the
# member's Deployment and PodGroup say the minimum, the ledger row holds it and records the 2
# other groups as a waiting delta, and the RB's condition says why they wait. Before all that a
# tree whose minimum fits no node (big) waits, naming the group that fits nowhere and the level
# that needs it. Once the blocker goes, tp's rest is admitted in whole groups on the freed cluster.
# Last, a Volcano Job whose whole fits no cluster goes whole where its minimum fits.
# CASE above: a smaller blocker leaves room for 3 of tp's 4 groups (2 in one cluster, 1 in the
# other, 4 GPUs free in each): tp is admitted with 3 groups, musterd again killed on the row and
# restarted (a row above the minimum is read back as held), and its last group waits with 8 GPUs
# free in the fleet, 4 per cluster: no cluster holds a whole group, so it is not cut 4 + 4; once
# the blocker goes it lands whole.
# Usage: dispatch_tree_min.sh MUSTER_SIM MUSTERD SOURCE_DIR [min|above]
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3 CASE=${4:-min}
NAME=dispatch_tree_min_$CASE TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"

start_sim "$SRC/tests/fixtures/dispatch/two-clusters-20gpu.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"64"}'
DUMP=/api/v1/bindings/team/tp-deployment
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
deploy() { # NAME REPLICAS GPUS_PER_POD ANNOTATIONS
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: team
  labels: {app: $1, volcano.sh/queue-name: q}
  annotations: {$4}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - {name: c, image: registry.example/trainer:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "$3"}}}
YAML
}
TREE='scheduling.muster.io/placement: spread, scheduling.muster.io/group-size: "8", scheduling.muster.io/min-member: "16"'

# admit_tp: tp created with musterd armed to die on its partial admission's ledger row, then
# musterd restarted on the same database
admit_tp() {
    kill -TERM "$MUSTERD_PID"
    wait "$MUSTERD_PID" || true
    export MUSTER_CRASH_AT=elastic.ledger
    start_musterd
    unset MUSTER_CRASH_AT
    deploy tp 32 1 "$TREE"
    wait_until 20 "musterd to die at elastic.ledger" eval "! kill -0 $MUSTERD_PID"
    wait "$MUSTERD_PID" || true
    grep -q "crash point elastic.ledger reached" "$TMP/musterd.err" ||
        dfail "musterd did not reach elastic.ledger: $(tail -5 "$TMP/musterd.err")"
    expect "$(rbj tp-deployment '{.spec.clusters}')" "" "nothing requested before the row"
    start_musterd
}

if [ "$CASE" = above ]; then
    # 2 x 4 GPUs: one cluster keeps 12, room for 1 group; the other 2 groups
    deploy blocker 2 4 'team.example/role: blocker'
    wait_until 20 "the blocker to run" is_eq running state blocker-deployment
    bl=$(rbj blocker-deployment '{.spec.clusters[0].name}')
    ot=east
    [ "$bl" != east ] || ot=west
    admit_tp
    wait_until 30 "tp to run with 3 groups" is_eq running state tp-deployment
    cl=$(rb_clusters tp-deployment)
    [ "$cl" = "$ot=16 $bl=8 " ] || [ "$cl" = "$bl=8 $ot=16 " ] ||
        dfail "spec.clusters: 2 groups on $ot, 1 on $bl: [$cl]"
    expect "$(api GET $DUMP | jq -c '[.request["nvidia.com/gpu"], .grow.replicas]')" '["24",8]' \
        "the row holds 3 groups and records the fourth"
    expect "$(api GET $DUMP | jq '.history | length')" 1 "one ledger row across the restart"
    api GET $DUMP | jq -e '[.history[].reason] | any(test("admitted with 3 of its 4 groups of 8 \\(its minimum is 2\\): the whole does not fit; 1 more group \\(8 replicas\\) waits as a scale up"))' \
        >/dev/null || dfail "the row's reason: $(api GET $DUMP | jq -c '[.history[].reason]')"
    wait_until 10 "the member Deployments to run 16 and 8" is_eq "16 8" eval \
        "echo \$(member $ot Deployment tp .spec.replicas) \$(member $bl Deployment tp .spec.replicas)"
    # min-member 16 (2 groups) over 3 groups held, in whole groups: ceil(2 x 2 / 3) and
    # ceil(1 x 2 / 3) groups of 8 (pods alone would say 11 and 6: a group cut in the member)
    expect "$(member "$ot" PodGroup muster-tp-deployment .spec.minMember) $(member "$bl" PodGroup muster-tp-deployment .spec.minMember)" \
        "16 8" "each PodGroup's part of min-member, in whole groups"
    wait_until 10 "the last group to wait on NoClusterFit" is_eq "False/NoClusterFit" rb_cond tp-deployment Scheduled
    msg=$(rb_cond_msg tp-deployment Scheduled)
    [[ "$msg" == "scale up by 8 replicas waits: no set of its allowed Ready clusters holds 8 more replicas in whole groups of 8 node by node ("*"holds 0, "*"holds 0)" ]] ||
        dfail "the condition says no cluster holds the whole group: $msg"
    expect "$(rb_clusters tp-deployment | wc -w)" 2 "the group is not cut 4 + 4"
    k delete deployment blocker >/dev/null
    wait_until 30 "the last group on the freed cluster" is_eq "east=16 west=16 " eval \
        "rb_clusters tp-deployment | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/^ //'"
    wait_until 20 "the grown tp to run" is_eq running state tp-deployment
    expect "$(api GET $DUMP | jq -r '.grow // "none"')" none "nothing of tp waits any more"
    finish
    exit 0
fi

# a tree whose minimum (1 of its 2 groups of 2 five-GPU pods) fits no node, though the fleet's
# sum holds it: not admitted in part, and its reason names the group and the level
deploy big 4 5 'scheduling.muster.io/placement: spread, scheduling.muster.io/group-size: "2", scheduling.muster.io/min-member: "2"'
wait_until 20 "big to wait" is_eq "False/NoClusterFit" rb_cond big-deployment Scheduled
msg=$(rb_cond_msg big-deployment Scheduled)
[[ "$msg" == "group group-0 (2 × {cpu: 1, nvidia.com/gpu: 5}) fits in no single cluster: largest free block is 0 on "*"; the gang needs 1 of its 2 groups, 0 fit"* ]] ||
    dfail "big's reason names the level: $msg"
expect "$(state big-deployment)" pending "big is not admitted in part"
expect "$(rbj big-deployment '{.spec.clusters}')" "" "big has no placement"

# 5 x 4 GPUs: one whole cluster
deploy blocker 5 4 'team.example/role: blocker'
wait_until 20 "the blocker to run" is_eq running state blocker-deployment
bl=$(rbj blocker-deployment '{.spec.clusters[0].name}')
ot=east
[ "$bl" != east ] || ot=west

# the admission of tp at its minimum is the first partial admission: musterd dies on its row
admit_tp

wait_until 30 "tp to run at its minimum" is_eq running state tp-deployment
expect "$(rb_clusters tp-deployment)" "$ot=16 " "spec.clusters holds its 2 groups on the free cluster"
expect "$(api GET $DUMP | jq -r '.request["nvidia.com/gpu"]')" 16 "the row holds the minimum"
expect "$(api GET $DUMP | jq -c '[.grow.replicas, .grow.request["nvidia.com/gpu"]]')" '[16,"16"]' \
    "the row records the 2 other groups as the waiting delta"
api GET $DUMP | jq -e '[.history[].reason] | any(test("admitted with 2 of its 4 groups of 8 \\(its minimum is 2\\): the whole does not fit; 2 more groups \\(16 replicas\\) wait as a scale up"))' \
    >/dev/null || dfail "the row's reason: $(api GET $DUMP | jq -c '[.history[].reason]')"
expect "$(api GET $DUMP | jq '.history | length')" 1 \
    "one ledger row, admitted once, across the restart"
wait_until 10 "the member's Deployment to run 16" is_eq 16 member "$ot" Deployment tp .spec.replicas
expect "$(member "$bl" Deployment tp .spec.replicas)" none "nothing of tp on the full cluster"
expect "$(member "$ot" PodGroup muster-tp-deployment .spec.minMember)" 16 \
    "the PodGroup guarantees the minimum"
wait_until 10 "q to hold the blocker and the minimum" is_eq 36 gpus
wait_until 10 "the rest to wait on NoClusterFit" is_eq "False/NoClusterFit" rb_cond tp-deployment Scheduled
msg=$(rb_cond_msg tp-deployment Scheduled)
# the fleet's 4 free GPUs are short of the rest before any placement is tried
[[ "$msg" == "scale up by 16 replicas waits: fleet: nvidia.com/gpu 36 of 40 in use, needs 16" ]] ||
    dfail "the condition names the waiting groups: $msg"

# the blocker goes: tp's rest (in line from tp's creation) goes there in whole groups
k delete deployment blocker >/dev/null
wait_until 30 "tp's rest on the freed cluster" is_eq "$ot=16 $bl=16 " rb_clusters tp-deployment
wait_until 20 "the grown tp to run" is_eq running state tp-deployment
wait_until 10 "the member Deployments to follow" is_eq "16 16" eval \
    "echo \$(member $ot Deployment tp .spec.replicas) \$(member $bl Deployment tp .spec.replicas)"
# min-member 16 over 32 held: ceil(16 x 16 / 32) each
wait_until 10 "each PodGroup's part of the minimum" is_eq "8 8" eval \
    "echo \$(member $ot PodGroup muster-tp-deployment .spec.minMember) \$(member $bl PodGroup muster-tp-deployment .spec.minMember)"
expect "$(api GET $DUMP | jq -r '.grow // "none"')" none "nothing of tp waits any more"
expect "$(api GET $DUMP | jq '[.history[] | select(.state == "rolledback")] | length')" 0 "no rollback"
expect "$(state big-deployment)" pending "big still waits"

# 4 GPUs free in each cluster, 8 in all: a Volcano Job of a ps and 5 one-GPU workers
# (minAvailable 3, the workers' 2: the ps and 2 workers) fits whole in neither, its minimum in either. The Job
# goes whole to one cluster, the queue counts it whole, and the member's Volcano runs it at its
# minimum (the sim gangs spec.minAvailable; the other pods wait Pending there).
k create -f - >/dev/null <<YAML
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vj, namespace: team}
spec:
  minAvailable: 3
  schedulerName: volcano
  queue: q
  tasks:
    - {replicas: 1, name: ps, template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: registry.example/ps:1, resources: {requests: {cpu: "1"}}}]}}}
    - {replicas: 5, minAvailable: 2, name: worker, template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: registry.example/w:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}]}}}
YAML
VJ=/api/v1/bindings/team/vj-job
wait_until 20 "the Volcano Job to run at its minimum" is_eq running eval "api GET $VJ | jq -r .state"
vc=$(rbj vj-job '{.spec.clusters[0].name}')
expect "$(rb_clusters vj-job)" "$vc=6 " "the Job goes whole to one cluster"
expect "$(api GET $VJ | jq -r '.request["nvidia.com/gpu"]')" 5 "the queue counts the whole Job"
api GET $VJ | jq -e '[.history[].reason] | any(. == "admitted at its minimum on '"$vc"': 3 of its 6 pods fit there (each task at its minAvailable); Volcano starts the other 3 as room frees")' \
    >/dev/null || dfail "the Volcano Job's reason: $(api GET $VJ | jq -c '[.history[].reason]')"
expect "$(member "$vc" Job vj '[.spec.tasks[].replicas] | map(tostring) | join(",")')" "1,5" \
    "the member's Job is whole"
expect "$(member "$vc" Job vj .status.state.phase)" Running "Volcano runs it at its minimum"
wait_until 10 "Scheduled=True" is_eq "True/Success" rb_cond vj-job Scheduled
finish
