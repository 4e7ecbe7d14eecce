#!/usr/bin/env bash
# Issue 17, partial admission against muster-sim (docs/dispatcher.md, "Partial admission").
# CASE quota: an elastic Deployment (4 replicas of 2 GPUs, min-member 2, elastic "true") in a
# queue where only 2 of its replicas fit beside a blocker is admitted at its minimum:
# spec.clusters and the member's Deployment say 2 replicas, its PodGroup's minMember is 2, the
# ledger row holds 4 GPUs and the API shows the 2 replicas that wait (grow). A plain gang of
# the same shape (the same min-member, not elastic) stays pending. Once the blocker goes, the
# elastic gang grows to 4 through the scale-up path, and the plain one still waits.
# CASE nofit: the queue and the fleet's sum have room, the nodes do not: a spread elastic
# Deployment (4 x 3 GPUs, min-member 2) beside a blocker that leaves one node 2 GPUs finds no
# placement of 4 (three 4-GPU nodes hold one replica each), so it is placed and admitted at 2,
# and its rest waits NoClusterFit with what each cluster holds; once the blocker goes the rest is
# placed, and each PodGroup's minMember is its part of the minimum. Every write is checked against the CRDs.
# Usage: dispatch_elastic.sh MUSTER_SIM MUSTERD SOURCE_DIR quota|nofit
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3 CASE=$4
NAME=dispatch_elastic_$CASE TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
case $CASE in
quota) queue q root '{"nvidia.com/gpu":"8"}' ;;
nofit) queue q root '{"nvidia.com/gpu":"32"}' ;; # the nodes decide
*) fail "unknown case $CASE" ;;
esac
DUMP=/api/v1/bindings/team/elastic-deployment
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
deploy() { # NAME REPLICAS ANNOTATIONS [GPUS_PER_REPLICA]
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: team
  labels: {app: $1, volcano.sh/queue-name: q}
  annotations: {$3}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - {name: c, image: registry.example/c:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "${4:-2}"}}}
YAML
}


if [ "$CASE" = nofit ]; then
    # 1 x 2 GPUs on one node: that node keeps 2 GPUs, too few for a 3-GPU replica
    deploy blocker 1 'team.example/role: blocker'
    wait_until 20 "the blocker to run" is_eq running state blocker-deployment
    bl=$(rbj blocker-deployment '{.spec.clusters[0].name}')
    other=east
    [ "$bl" != east ] || other=west
    # 4 x 3 GPUs: the queue and the fleet's sum take 12 more, but only 3 nodes hold 3 GPUs
    deploy elastic 4 'scheduling.muster.io/placement: spread, scheduling.muster.io/min-member: "2", scheduling.muster.io/elastic: "true"' 3
    wait_until 20 "the elastic gang to run at its minimum" is_eq running state elastic-deployment
    expect "$(rb_clusters elastic-deployment)" "$other=2 " "the minimum in the roomiest cluster"
    expect "$(gpus)" 8 "q holds the blocker and the minimum"
    api GET $DUMP | jq -e '[.history[].reason] | any(test("admitted at its minimum, 2 of 4 replicas"))' \
        >/dev/null || dfail "the row's reason: $(api GET $DUMP | jq -c '.history')"
    expect "$(api GET $DUMP | jq -c '[.grow.replicas, .grow.request["nvidia.com/gpu"]]')" \
        '[2,"6"]' "the API shows the rest waiting"
    wait_until 10 "the member's Deployment to run 2" is_eq 2 member "$other" Deployment elastic .spec.replicas
    expect "$(member "$other" PodGroup muster-elastic-deployment .spec.minMember)" 2 \
        "the PodGroup guarantees the minimum"
    wait_until 10 "the rest to wait on NoClusterFit" is_eq "False/NoClusterFit" \
        rb_cond elastic-deployment Scheduled
    msg=$(rb_cond_msg elastic-deployment Scheduled)
    echo "$msg" | grep -q "scale up by 2 replicas waits: no set of its allowed Ready clusters holds 2 more replicas node by node" ||
        dfail "the condition names the rest: $msg"
    k delete deployment blocker >/dev/null
    wait_until 20 "the rest on the freed cluster" is_eq "$other=2 $bl=2 " rb_clusters elastic-deployment
    wait_until 20 "the grown gang to run" is_eq running state elastic-deployment
    wait_until 10 "the member Deployments to follow" is_eq "2 2" eval \
        "echo \$(member $other Deployment elastic .spec.replicas) \$(member $bl Deployment elastic .spec.replicas)"
    # the minimum's 2 over the shares: ceil(2 x 2 / 4) each
    wait_until 10 "each PodGroup's part of the minimum" is_eq "1 1" eval \
        "echo \$(member $other PodGroup muster-elastic-deployment .spec.minMember) \$(member $bl PodGroup muster-elastic-deployment .spec.minMember)"
    expect "$(api GET $DUMP | jq -r '.grow // "none"')" none "nothing waits any more"
    wait_until 10 "q to hold the whole gang" is_eq 12 gpus
    wait_until 10 "Scheduled=True again" is_eq "True/Success" rb_cond elastic-deployment Scheduled
    finish
    exit 0
fi

# 2 x 2 GPUs of q's 8: 4 left, room for 2 of the elastic gang's 4 replicas
deploy blocker 2 'team.example/role: blocker'
wait_until 20 "the blocker to run" is_eq running state blocker-deployment
expect "$(gpus)" 4 "q holds the blocker"

deploy elastic 4 'scheduling.muster.io/min-member: "2", scheduling.muster.io/elastic: "true"'
wait_until 20 "the elastic gang to run at its minimum" is_eq running state elastic-deployment
cl=$(rbj elastic-deployment '{.spec.clusters[0].name}')
expect "$(rb_clusters elastic-deployment)" "$cl=2 " "spec.clusters holds its minimum"
expect "$(gpus)" 8 "q holds the blocker and the minimum"
expect "$(api GET $DUMP | jq -r '.request["nvidia.com/gpu"]')" 4 "the row holds the minimum"
expect "$(api GET $DUMP | jq -c '[.grow.replicas, .grow.request["nvidia.com/gpu"]]')" '[2,"4"]' \
    "the API shows the rest waiting"
api GET $DUMP | jq -e '[.history[].reason] | any(test("admitted at its minimum, 2 of 4 replicas"))' \
    >/dev/null || dfail "the row's reason: $(api GET $DUMP | jq -c '.history')"
wait_until 10 "the member's Deployment to run 2" is_eq 2 member "$cl" Deployment elastic .spec.replicas
expect "$(member "$cl" PodGroup muster-elastic-deployment .spec.minMember)" 2 \
    "the PodGroup guarantees the minimum"
wait_until 10 "the rest to wait on QuotaExceeded" is_eq "False/QuotaExceeded" \
    rb_cond elastic-deployment Scheduled
msg=$(rb_cond_msg elastic-deployment Scheduled)
echo "$msg" | grep -q "scale up by 2 replicas waits: queue q: nvidia.com/gpu" ||
    dfail "the condition names the rest: $msg"
api GET $DUMP | jq -e '.grow.reason | test("scale up by 2 replicas waits")' >/dev/null ||
    dfail "the API says why the rest waits: $(api GET $DUMP | jq -c .grow)"

# the same shape and minimum without the opt-in: all or nothing, it waits
deploy plain 4 'scheduling.muster.io/min-member: "2"'
wait_until 10 "the plain gang to wait on QuotaExceeded" is_eq "False/QuotaExceeded" \
    rb_cond plain-deployment Scheduled
expect "$(state plain-deployment)" pending "the plain gang is not admitted in part"
expect "$(rbj plain-deployment '{.spec.clusters}')" "" "the plain gang has no placement"

# the blocker goes: its room is the elastic gang's rest (first in line: its creation)
k delete deployment blocker >/dev/null
wait_until 20 "the elastic gang to grow to 4" is_eq "$cl=4 " rb_clusters elastic-deployment
wait_until 20 "the grown gang to run" is_eq running state elastic-deployment
wait_until 10 "the member's Deployment to run 4" is_eq 4 member "$cl" Deployment elastic .spec.replicas
expect "$(api GET $DUMP | jq -r '.request["nvidia.com/gpu"]')" 8 "the row holds the whole gang"
expect "$(api GET $DUMP | jq -r '.grow // "none"')" none "nothing waits any more"
wait_until 10 "q to hold the whole gang" is_eq 8 gpus
# the gang guarantee stays the minimum: ceil(4 x 2 / 4)
wait_until 10 "the PodGroup's minMember" is_eq 2 member "$cl" PodGroup muster-elastic-deployment .spec.minMember
wait_until 10 "Scheduled=True again" is_eq "True/Success" rb_cond elastic-deployment Scheduled
expect "$(state plain-deployment)" pending "the plain gang still waits"
expect "$(api GET $DUMP | jq '[.history[] | select(.state == "rolledback")] | length')" 0 \
    "no rollback"
finish
