#!/usr/bin/env bash
# Issue 19, "one gang, several objects" (docs/dispatcher.md, "One gang, several RBs"): the plain
# Pods of a Kueue pod group, one RB each, are admitted, placed and released as one gang.
# (a) Three Pods of group "sample-group" (label kueue.x-k8s.io/pod-group-name, annotation
#     kueue.x-k8s.io/pod-group-total-count "3", as Kueue's kueue-pod-group.yaml example writes
#     them): the first two wait, held, and say "2 of 3 pods present"; the third arrives and all
#     three (one of them of another shape) are dispatched together to one cluster, each RB
#     lifted, the member's PodGroup minMember 3 with the summed minResources, the queue holding
#     the sum. They finish (sim.muster.io/duration) and the
#     queue's usage goes back to 0, every member's row released.
# (b) musterd killed while two of three wait, and again while the three run: nothing is counted
#     twice, and the gang is followed and released whole.
# (c) A group of three Pods of 4 GPUs in a queue of 8: all present, it waits whole on its
#     queue, none of its RBs placed or lifted; one deleted, the others wait for it again.
# (d) Two plain Pods labelled scheduling.x-k8s.io/pod-group with the hub's coscheduling PodGroup
#     (minMember 2): the first waits, both go together, one member PodGroup of 2, released.
# (e) musterd ended at the protocol's step boundaries (dispatch.ledger, dispatch.objects.one,
#     dispatch.assign, dispatch.lift) while a group is dispatched: it converges whole.
# (f) The lead's Pod deleted while musterd is down mid-protocol: the other members undo their
#     placement and wait again; the Pod back, the gang forms anew and runs.
# Usage: dispatch_podgroup.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_podgroup TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
# Kueue's LocalQueue names: a muster queue of the same name takes each (docs/queue.md)
queue user-queue root '{"nvidia.com/gpu":"16"}'
queue tight root '{"nvidia.com/gpu":"8"}'
k create -f - >/dev/null <<'YAML'
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: pods-to-muster, namespace: team}
spec:
  schedulerName: muster
  resourceSelectors: [{apiVersion: v1, kind: Pod}]
  placement:
    clusterAffinity: {clusterNames: [east, west]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
YAML
B=/api/v1/bindings/team
state() { api GET "$B/$1-pod" | jq -r .state; }
reason() { api GET "$B/$1-pod" | jq -r .reason; }
used() { api GET "/api/v1/queues/$1" | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
# NAME GROUP QUEUE GPUS [DURATION]: one plain Pod of a Kueue pod group of 3
pod() {
    k create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: $3
    kueue.x-k8s.io/pod-group-name: "$2"
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "3"
    ${5:+sim.muster.io/duration: $5}
spec:
  restartPolicy: Never
  containers:
  - name: sleep
    image: busybox
    command: [sleep]
    args: [3s]
    resources:
      requests: {cpu: "1", nvidia.com/gpu: "$4"}
YAML
}

# (a) two of three: they wait, held
pod sample-a sample-group user-queue 1 8s
pod sample-b sample-group user-queue 1 8s
for p in sample-a sample-b; do
    wait_until 20 "$p to wait for its group" is_eq \
        "pod group sample-group: 2 of 3 pods present; the gang is queued once all are" reason $p
    expect "$(state $p)" pending "$p waits"
    expect "$(rbj $p-pod '{.spec.suspension.scheduling}')" true "$p is held"
    expect "$(rbj $p-pod '{.spec.clusters}')" "" "$p is not placed"
done
wait_until 10 "the wait on the RB's condition" is_eq "False/Unschedulable" rb_cond sample-a-pod Scheduled
expect "$(used user-queue)" 0 "nothing admitted while the group is incomplete"

# the third: all three together
pod sample-c sample-group user-queue 2 8s # another shape: Kueue's groups may mix roles
for p in sample-a sample-b sample-c; do
    wait_until 20 "$p to be dispatched" is_eq false rbj $p-pod '{.spec.suspension.scheduling}'
done
cl=$(rbj sample-a-pod '{.spec.clusters[0].name}')
for p in sample-a sample-b sample-c; do
    expect "$(rb_clusters $p-pod)" "$cl=1 " "$p placed with the others, on $cl"
done
expect "$(used user-queue)" 4 "the queue holds the gang's sum (1 + 1 + 2 GPUs)"
# one read of the member's objects: the gang's one PodGroup, whichever pod leads it (the pods
# run 8 s, so a slow machine still finds it before they finish)
pgs=$(curl -sf "$BASE/debug/sim/clusters/$cl/objects" |
    jq -c '[.items[] | select(.kind == "PodGroup" and (.metadata.name | test("^muster-sample-[abc]-pod$")))]')
expect "$(jq length <<<"$pgs")" 1 "one PodGroup for the group"
lead=$(jq -r '.[0].metadata.name | ltrimstr("muster-") | rtrimstr("-pod")' <<<"$pgs")
expect "$(jq -r '.[0].spec.minMember' <<<"$pgs")" 3 "the member's PodGroup holds the 3 pods"
expect "$(jq -r '.[0].spec.minResources["nvidia.com/gpu"]' <<<"$pgs")" 4 \
    "its minResources is the gang's sum"
for p in sample-a sample-b sample-c; do
    expect "$(member "$cl" Pod "$p" '.metadata.annotations["scheduling.k8s.io/group-name"]')" \
        "muster-$lead-pod" "$p joins the gang's PodGroup"
done
for p in sample-a sample-b sample-c; do
    wait_until 20 "$p to run" is_eq running state $p
done
# they finish: the gang is released, every member's row with it
for p in sample-a sample-b sample-c; do
    wait_until 30 "$p to be released" is_eq released state $p
done
expect "$(used user-queue)" 0 "the gang's usage is released"

# (b) a restart: while two of three wait, and while the three run (musterd killed each time):
#     the ledger says who is in the gang, so the waiting pods still wait, the running gang is
#     counted once (its lead's entry, not once per pod), followed and released whole
pod r-a r-group user-queue 1 8s
pod r-b r-group user-queue 1 8s
wait_until 20 "r-a to wait" is_eq \
    "pod group r-group: 2 of 3 pods present; the gang is queued once all are" reason r-a
kill -KILL "$MUSTERD_PID"
wait "$MUSTERD_PID" 2>/dev/null || true
start_musterd
wait_until 20 "r-b to wait again after the restart" is_eq \
    "pod group r-group: 2 of 3 pods present; the gang is queued once all are" reason r-b
expect "$(used user-queue)" 0 "nothing admitted after the restart"
pod r-c r-group user-queue 1 8s
for p in r-a r-b r-c; do wait_until 20 "$p to run" is_eq running state $p; done
cl=$(rbj r-a-pod '{.spec.clusters[0].name}')
kill -KILL "$MUSTERD_PID"
wait "$MUSTERD_PID" 2>/dev/null || true
start_musterd
for p in r-a r-b r-c; do
    wait_until 10 "$p to be followed after the restart" is_eq running state $p
    expect "$(rb_clusters $p-pod)" "$cl=1 " "$p still placed on $cl"
    expect "$(rbj $p-pod '{.spec.suspension.scheduling}')" false "$p still lifted"
done
expect "$(used user-queue)" 3 "the running gang is counted once after the restart"
for p in r-a r-b r-c; do wait_until 30 "$p to be released" is_eq released state $p; done
expect "$(used user-queue)" 0 "the gang's usage is released after the restart"

# (c) a group that does not fit its queue waits whole
for p in big-a big-b big-c; do pod $p big-group tight 4; done
for p in big-a big-b big-c; do
    wait_until 20 "$p to be present" is_eq pending state $p
done
wait_until 20 "the gang to wait on its queue" is_eq "False/QuotaExceeded" rb_cond big-a-pod Scheduled
for p in big-b big-c; do
    wait_until 20 "$p to wait with the gang" is_eq "False/Unschedulable" rb_cond $p-pod Scheduled
done
sleep 1 # a wrong admission of one pod would have happened by now (nothing to poll for)
for p in big-a big-b big-c; do
    expect "$(state $p)" pending "$p still waits"
    expect "$(rbj $p-pod '{.spec.clusters}')" "" "$p is not placed"
    expect "$(rbj $p-pod '{.spec.suspension.scheduling}')" true "$p is held"
done
expect "$(used tight)" 0 "nothing of the group admitted"
# one of them deleted: the others wait for it again, and the gang forms anew when it is back
k delete pod big-b >/dev/null
for p in big-a big-c; do
    wait_until 20 "$p to wait for its group again" is_eq \
        "pod group big-group: 2 of 3 pods present; the gang is queued once all are" reason $p
done
pod big-b big-group tight 4
wait_until 20 "the gang to wait on its queue again" is_eq "False/QuotaExceeded" rb_cond big-a-pod Scheduled
for p in big-a big-b big-c; do
    wait_until 20 "$p to be pending again" is_eq pending state $p
    expect "$(rbj $p-pod '{.spec.clusters}')" "" "$p is not placed"
done
expect "$(used tight)" 0 "nothing of the group admitted"

# (d) a coscheduling group of separate Pods: the hub's PodGroup (minMember 2) is the gang's size
k create -f - >/dev/null <<'YAML'
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: cs-group, namespace: team}
spec: {minMember: 2, scheduleTimeoutSeconds: 30}
YAML
cspod() {
    k create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: team
  labels: {scheduling.x-k8s.io/pod-group: cs-group, volcano.sh/queue-name: user-queue}
  annotations: {sim.muster.io/duration: 3s}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}
YAML
}
cspod cs-a
wait_until 20 "cs-a to wait for its group" is_eq \
    "pod group cs-group: 1 of 2 pods present; the gang is queued once all are" reason cs-a
expect "$(rbj cs-a-pod '{.spec.clusters}')" "" "cs-a is not placed alone"
cspod cs-b
for p in cs-a cs-b; do wait_until 20 "$p to run" is_eq running state $p; done
cl=$(rbj cs-a-pod '{.spec.clusters[0].name}')
expect "$(rb_clusters cs-b-pod)" "$cl=1 " "cs-b placed with cs-a"
n=0
for p in cs-a cs-b; do
    v=$(member "$cl" PodGroup "muster-$p-pod" .spec.minMember)
    [ "$v" == none ] || { expect "$v" 2 "the member's PodGroup holds both pods"; n=$((n + 1)); }
done
expect "$n" 1 "one member PodGroup for the coscheduling group"
for p in cs-a cs-b; do wait_until 30 "$p to be released" is_eq released state $p; done
expect "$(used user-queue)" 0 "the coscheduling gang's usage is released"

# (e) musterd ended at a step boundary of the gang's commit protocol (MUSTER_CRASH_AT), then
#     started again on the same database: the gang converges whole (every RB placed once on one
#     cluster and lifted, counted once) and is released
n=0
for point in dispatch.ledger dispatch.objects.one dispatch.assign dispatch.lift; do
    n=$((n + 1))
    kill -TERM "$MUSTERD_PID"
    wait "$MUSTERD_PID" || dfail "musterd did not stop cleanly before $point"
    export MUSTER_CRASH_AT=$point
    start_musterd
    unset MUSTER_CRASH_AT
    for p in a b c; do pod "x$n-$p" "x$n-group" user-queue 1 3s; done
    wait_until 20 "musterd to end itself at $point" eval '! kill -0 "$MUSTERD_PID" 2>/dev/null'
    rc=0
    wait "$MUSTERD_PID" || rc=$?
    expect "$rc" 137 "musterd's exit at $point"
    grep -q "crash point $point reached" "$TMP/musterd.err" || dfail "no crash at $point"
    start_musterd
    for p in a b c; do wait_until 20 "x$n-$p to run after $point" is_eq running state "x$n-$p"; done
    cl=$(rbj "x$n-a-pod" '{.spec.clusters[0].name}')
    for p in a b c; do
        expect "$(rb_clusters "x$n-$p-pod")" "$cl=1 " "x$n-$p placed with the others after $point"
        expect "$(rbj "x$n-$p-pod" '{.spec.suspension.dispatching}')" "" "x$n-$p has no barrier left"
    done
    expect "$(used user-queue)" 3 "the gang counted once after $point"
    for p in a b c; do wait_until 30 "x$n-$p to be released" is_eq released state "x$n-$p"; done
    expect "$(used user-queue)" 0 "released after $point"
done

# (f) the lead's Pod deleted while musterd is down mid-protocol (after dispatch.assign): the
#     other members undo their placement and wait for their group again; the Pod back, the gang
#     forms anew and runs
kill -TERM "$MUSTERD_PID"
wait "$MUSTERD_PID" || dfail "musterd did not stop cleanly before (f)"
export MUSTER_CRASH_AT=dispatch.assign
start_musterd
unset MUSTER_CRASH_AT
for p in a b c; do pod "f-$p" f-group user-queue 1 3s; done
wait_until 20 "musterd to end itself at dispatch.assign" eval '! kill -0 "$MUSTERD_PID" 2>/dev/null'
wait "$MUSTERD_PID" || true
lead=$(grep -o "queued as one gang led by team/f-[abc]-pod" "$TMP/musterd.out" | sed 's#.*team/##; s#-pod$##')
[ -n "$lead" ] || dfail "no lead logged for f-group"
for p in a b c; do
    [ -n "$(rb_clusters "f-$p-pod")" ] || dfail "f-$p was not assigned before the crash"
done
k delete pod "$lead" >/dev/null
wait_until 20 "$lead's RB to go" eval "! kubectl --request-timeout=10s get rb $lead-pod >/dev/null 2>&1"
start_musterd
for p in a b c; do
    [ "f-$p" == "$lead" ] && continue
    wait_until 20 "f-$p to wait for its group again" is_eq \
        "pod group f-group: 2 of 3 pods present; the gang is queued once all are" reason "f-$p"
    wait_until 20 "f-$p's placement undone" is_eq "" rbj "f-$p-pod" '{.spec.clusters}'
    expect "$(rbj "f-$p-pod" '{.spec.suspension.scheduling}')" true "f-$p held again"
    expect "$(state "f-$p")" pending "f-$p pending again"
done
expect "$(used user-queue)" 0 "nothing held while f-group waits"
pod "$lead" f-group user-queue 1 3s
for p in a b c; do wait_until 20 "f-$p to run" is_eq running state "f-$p"; done
expect "$(used user-queue)" 3 "the gang formed anew"
for p in a b c; do wait_until 30 "f-$p to be released" is_eq released state "f-$p"; done
finish
