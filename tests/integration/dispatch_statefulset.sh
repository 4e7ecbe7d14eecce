#!/usr/bin/env bash
# Issue 19, musterd against muster-sim: an apps/v1 StatefulSet is held, queued and placed whole
# like a Deployment, its PodGroup Work reaches the member and the member's StatefulSet names it
# (the OverridePolicy on spec.template); `kubectl scale statefulset` down follows issue 17's
# scale-down path (capacity released, minMember follows). A StatefulSet left OrderedReady with a
# gang of more than one waits with the reason. Every write is checked against the CRDs.
# Usage: dispatch_statefulset.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_statefulset TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"16"}'
DUMP=/api/v1/bindings/team/db-statefulset
gpus() { api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"] // "0"'; }
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
member_obj() { # CLUSTER KIND NAME JQ: a field of an object in a member, or "none"
    curl -sf "$BASE/debug/sim/clusters/$1/objects" |
        jq -r --arg k "$2" --arg n "$3" "[.items[] | select(.kind == \$k and .metadata.name == \$n) | $4][0] // \"none\""
}

# 3 replicas of 2 GPUs, Parallel: one cluster (8 GPUs) holds the whole gang.
k create -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: team, labels: {app: db, volcano.sh/queue-name: q}}
spec:
  serviceName: db
  replicas: 3
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
        - {name: db, image: registry.example/db:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}}
YAML
wait_until 20 "the StatefulSet's gang to run" is_eq running state db-statefulset
expect "$(gpus)" 6 "q holds the whole gang"
c=$(rbj db-statefulset '{.spec.clusters[0].name}')
expect "$(rb_clusters db-statefulset)" "$c=3 " "placed whole in one cluster"
expect "$(member_obj "$c" PodGroup muster-db-statefulset .spec.minMember)" 3 "its PodGroup in the member"
expect "$(member_obj "$c" StatefulSet db '.spec.template.metadata.annotations["scheduling.k8s.io/group-name"]')" \
    muster-db-statefulset "the member's pods name the PodGroup"
expect "$(member_obj "$c" StatefulSet db .spec.template.spec.schedulerName)" volcano \
    "the member's pods go to Volcano"

# --- kubectl scale statefulset: 3 -> 2; issue 17's scale-down path ---
k scale statefulset db --replicas=2 >/dev/null
wait_until 10 "q to release one replica" is_eq 4 gpus
api GET $DUMP | jq -e '.history[-1].reason | test("scaled down from 3 to 2 replicas")' >/dev/null ||
    dfail "the row's reason: $(api GET $DUMP | jq -c '.history[-1]')"
wait_until 10 "spec.clusters follows" is_eq "$c=2 " rb_clusters db-statefulset
wait_until 10 "the PodGroup's minMember follows" is_eq 2 member_obj "$c" PodGroup muster-db-statefulset .spec.minMember
expect "$(state db-statefulset)" running "it runs on"
expect "$(api GET $DUMP | jq '[.history[] | select(.state == "rolledback")] | length')" 0 \
    "no rollback"

# --- OrderedReady (the default) with a gang of 2: waits, saying why ---
k create -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ordered, namespace: team, labels: {app: ordered, volcano.sh/queue-name: q}}
spec:
  serviceName: ordered
  replicas: 2
  selector: {matchLabels: {app: ordered}}
  template:
    metadata: {labels: {app: ordered}}
    spec:
      containers:
        - {name: o, image: registry.example/o:1, resources: {requests: {cpu: "1"}}}
YAML
wait_until 20 "the OrderedReady StatefulSet to wait" is_eq "False/Unschedulable" \
    rb_cond ordered-statefulset Scheduled
rb_cond_msg ordered-statefulset Scheduled | grep -q "set spec.podManagementPolicy: Parallel" ||
    dfail "the reason: $(rb_cond_msg ordered-statefulset Scheduled)"
expect "$(rbj ordered-statefulset '{.spec.suspension.scheduling}')" true "it is held"
finish
