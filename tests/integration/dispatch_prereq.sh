#!/usr/bin/env bash
# Issue 15, "Hub prerequisites are checked at start-up", musterd against muster-sim over sockets.
# (a) A member without Volcano (scenario volcano: false: its Cluster's status.apiEnablements,
# written as Karmada's cluster status controller writes them, list no Volcano group): /readyz
# says "ok, degraded:" naming it; a Deployment gang and a Volcano Job that fit only there wait
# with a reason naming the missing API and that member, and nothing of theirs reaches it; once a
# member with Volcano is Ready, both are dispatched there. (b) A karmada-apiserver without the
# PodGroup CRD (muster-sim --no-podgroup-crd): /readyz degraded naming the CRD, logged once; a
# Deployment gang (which needs PodGroup Works) waits saying so, a Volcano Job (no PodGroup
# Work) is still dispatched. (c) A karmada-apiserver without scheduler-plugins' PodGroup CRD
# (scenario hubCoscheduling: false) and a coscheduling member: /readyz names the member; a gang
# that needs a PodGroup there waits naming it (it may take one pod of a spread gang, which needs
# none), one that fits the Volcano member goes there, and no PodGroup Work reaches the
# coscheduling member. Every write is checked against the CRDs. See
# docs/operations.md.
# Usage: dispatch_prereq.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_prereq TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

readyz() { curl -s -w ' %{http_code}' "$API/readyz"; }
# deploy NAME GPUS: a one-replica Deployment gang in queue q
deploy() {
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: team, labels: {volcano.sh/queue-name: q}}
spec:
  replicas: ${3:-1}
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - {name: c, image: registry.example/c:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "$2"}}}
YAML
}
# vcjob NAME GPUS: a Volcano Job of one task, one pod
vcjob() {
    k create -f - >/dev/null <<YAML
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: $1, namespace: team}
spec:
  queue: q
  minAvailable: 1
  schedulerName: volcano
  tasks:
    - name: w
      replicas: 1
      template:
        spec:
          containers:
            - {name: w, image: registry.example/w:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "$2"}}}
YAML
}
works_in() { k get works -n "karmada-es-$1" -o name | wc -l; }
own_works_in() { k get works -n "karmada-es-$1" -l app.kubernetes.io/managed-by=muster -o name | wc -l; }
ready() {
    expect "$(curl -s -X PUT -H 'Content-Type: application/json' --data "{\"ready\":$2}" \
        "$BASE/debug/sim/clusters/$1/ready")" "{\"ready\":$2}" "$1 ready=$2"
}
# stop: musterd and the hub end cleanly (finish's checks, for the first half)
stop() {
    local v rc=0
    v=$(curl -sf "$BASE/debug/sim/validation") || dfail "GET /debug/sim/validation"
    [ "$(jq -r .rejected <<<"$v")" == 0 ] || dfail "writes refused by the CRD schemas: $v"
    kill -TERM "$MUSTERD_PID"
    wait "$MUSTERD_PID" || rc=$?
    MUSTERD_PID=
    [ "$rc" == 0 ] || dfail "musterd exit status $rc"
    kill -TERM "$SIM_PID"
    wait "$SIM_PID" || rc=$?
    SIM_PID=
    [ "$rc" == 0 ] || fail "muster-sim exit status $rc"
}

# --- (a) a member without Volcano ---
start_sim "$FIX/prereq.yaml"
expect "$(k get cluster east -o jsonpath='{.status.apiEnablements[*].groupVersion}' | tr ' ' '\n' | grep -c volcano || true)" \
    0 "east's apiEnablements list no Volcano group"
expect "$(k get cluster west -o jsonpath='{.status.apiEnablements[?(@.groupVersion=="scheduling.volcano.sh/v1beta1")].resources[*].name}')" \
    "podgroups queues" "west serves PodGroups"
expect "$(k get cluster north -o jsonpath='{.status.apiEnablements}')" "" "north (never Ready) reports none"
start_musterd
queue q root '{"nvidia.com/gpu":"64"}'
wait_until 10 "/readyz to name east" eval "readyz | grep -q 'not given gangs that need one: east$'"
r=$(readyz)
echo "readyz: $r"
[[ "$r" == "ok, degraded:"* && "$r" == *" 200" ]] || dfail "/readyz: $r"
grep -q "not given Volcano Jobs: east$" <<<"$r" || dfail "/readyz does not name east for Volcano Jobs: $r"
grep -q north <<<"$r" && dfail "/readyz judges north, which reports no apiEnablements: $r"
grep -q "karmada-apiserver" <<<"$r" && dfail "/readyz: the hub has the CRD: $r"

# two pods of 5 GPUs: a gang of 2 needs a member-side gang, which east (no dialect) cannot hold,
# and west's 4-GPU nodes hold none
deploy big 5 2
vcjob vbig 8
DUMP=/api/v1/bindings/team/big-deployment
wait_until 15 "big to wait" is_eq False/NoClusterFit rb_cond big-deployment Scheduled
wait_until 15 "vbig to wait" is_eq False/NoClusterFit rb_cond vbig-job Scheduled
m=$(rb_cond_msg big-deployment Scheduled)
echo "big: $m"
[[ "$m" == *"speaking no gang dialect (no scheduling.volcano.sh/v1beta1, scheduling.x-k8s.io/v1alpha1 or scheduling.k8s.io podgroups in status.apiEnablements or on the hub, or gangDialect none): east"* ]] ||
    dfail "big's reason does not name east's missing gang dialect: $m"
m=$(rb_cond_msg vbig-job Scheduled)
echo "vbig: $m"
[[ "$m" == *"not serving Volcano Jobs (no batch.volcano.sh/v1alpha1 jobs in status.apiEnablements): east"* ]] ||
    dfail "vbig's reason does not name east's missing Volcano Job support: $m"
sleep 1
for rb in big-deployment vbig-job; do
    expect "$(rb_clusters $rb)|$(rbj $rb '{.spec.suspension.scheduling}')" "|true" "$rb not placed"
done
expect "$(works_in east)" 0 "no Work in east"
# A gang of two that needs no more than west holds still goes (the loop is alive; west has Volcano).
deploy small 4 2
wait_until 15 "small on west" is_eq "west=2 " rb_clusters small-deployment
# A gang of one pod needs no member-side gang: east (no dialect) takes it, with no Work.
deploy one 8
wait_until 15 "one on east" is_eq "east=1 " rb_clusters one-deployment
expect "$(own_works_in east)" 0 "no PodGroup Work in east for a gang of one"
# north, with Volcano, becomes Ready: its apiEnablements appear and both gangs land there, one
# after the other (big's two pods leave neither of north's nodes the 8 GPUs vbig asks).
ready north true
wait_until 10 "north's apiEnablements" eval "k get cluster north -o jsonpath='{.status.apiEnablements[*].groupVersion}' | grep -q scheduling.volcano.sh/v1beta1"
wait_until 20 "big on north" is_eq "north=2 " rb_clusters big-deployment
wait_until 20 "big to run" is_eq Healthy rbj big-deployment '{.status.aggregatedStatus[0].health}'
expect "$(rb_cond big-deployment Scheduled)" True/Success "big Scheduled"
k delete deployment big >/dev/null
wait_until 20 "vbig on north" is_eq "north=1 " rb_clusters vbig-job
expect "$(own_works_in east)" 0 "still no PodGroup Work in east"
r=$(readyz)
grep -q "not given gangs that need one: east$" <<<"$r" || dfail "/readyz no longer names east: $r"
stop

# --- (b) a karmada-apiserver without the PodGroup CRD ---
# a fresh database, and no old port or admin API line for the start-up helpers to read
rm -f "$TMP/muster.db"* "$TMP/sim.out" "$TMP/musterd.out" "$TMP/musterd.err"
start_sim "$FIX/two-clusters.yaml" --no-podgroup-crd
expect "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/apis/scheduling.volcano.sh/v1beta1/podgroups")" \
    404 "the hub serves no podgroups"
start_musterd
queue q root '{"nvidia.com/gpu":"64"}'
wait_until 10 "/readyz to name the CRD" eval "readyz | grep -q '^the karmada-apiserver does not serve scheduling.volcano.sh/v1beta1 podgroups'"
r=$(readyz)
echo "readyz: $r"
[[ "$r" == "ok, degraded:"* && "$r" == *" 200" ]] || dfail "/readyz: $r"
grep -q "members without" <<<"$r" && dfail "/readyz names members: $r"
deploy div 2
vcjob vj 2
DUMP=/api/v1/bindings/team/div-deployment
wait_until 15 "div to wait" eval "rb_cond_msg div-deployment Scheduled | grep -q 'the karmada-apiserver does not serve scheduling.volcano.sh/v1beta1 podgroups'"
expect "$(rb_cond div-deployment Scheduled)" False/Unschedulable "div condition"
wait_until 15 "vj to run" is_eq Healthy rbj vj-job '{.status.aggregatedStatus[0].health}'
sleep 1
expect "$(rb_clusters div-deployment)|$(rbj div-deployment '{.spec.suspension.scheduling}')" "|true" \
    "div not dispatched"
expect "$(k get works -A -l app.kubernetes.io/managed-by=muster -o name | wc -l)" 0 "no PodGroup Work"
expect "$(cat "$TMP/musterd.out" "$TMP/musterd.err" | grep -c 'running degraded: the karmada-apiserver does not serve')" \
    1 "the degraded line logged once"
stop

# --- (c) a karmada-apiserver without scheduler-plugins' PodGroup CRD ---
# west speaks coscheduling, but Karmada maps a Work's manifest with the hub's RESTMapper, so a
# coscheduling PodGroup Work could never apply there: west takes no gang that needs one.
rm -f "$TMP/muster.db"* "$TMP/sim.out" "$TMP/musterd.out" "$TMP/musterd.err"
{ echo "hubCoscheduling: false"; cat "$FIX/dialects.yaml"; } >"$TMP/no-hub-cosched.yaml"
start_sim "$TMP/no-hub-cosched.yaml"
expect "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/apis/scheduling.x-k8s.io/v1alpha1/podgroups")" \
    404 "the hub serves no coscheduling podgroups"
start_musterd
queue q root '{"nvidia.com/gpu":"64"}'
wait_until 10 "/readyz to name west" eval "readyz | grep -q 'scheduling.x-k8s.io/v1alpha1 podgroups (scheduler-plugins.* PodGroup CRD), so Karmada cannot apply these members.* PodGroups: west$'"
echo "readyz: $(readyz)"
# 4 pods of 4 GPUs spread: east (Volcano, two 4-GPU nodes) holds 2, west would need 2, but a
# member whose gang object the hub cannot carry takes one pod of a spread gang at most (a share
# of one needs no PodGroup), so the gang waits
deploy wide 4 4
DUMP=/api/v1/bindings/team/wide-deployment
k annotate deployment wide scheduling.muster.io/placement=spread >/dev/null
# (read once before its annotation and once after: the spread verdict is the one awaited)
wait_until 15 "wide to wait spread" eval "rb_cond_msg wide-deployment Scheduled | grep -q 'set of allowed Ready clusters'"
expect "$(rb_cond wide-deployment Scheduled)" False/NoClusterFit "wide's condition"
m=$(rb_cond_msg wide-deployment Scheduled)
echo "wide: $m"
[[ "$m" == *"west holds 1 (no gang dialect: one pod)"* ]] || dfail "wide's reason does not name west: $m"
expect "$(rb_clusters wide-deployment)" "" "wide not placed"
# a gang that fits in east alone goes there
deploy pair 4 2
wait_until 15 "pair on east" is_eq "east=2 " rb_clusters pair-deployment
expect "$(k get works -n karmada-es-west -l app.kubernetes.io/managed-by=muster -o name | wc -l)" 0 \
    "no PodGroup Work in west"
finish
