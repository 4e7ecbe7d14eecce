#!/usr/bin/env bash
# Issue 20, scale down aligned to groups: a group-size gang (4 groups of 4 two-GPU pods,
# min-member 8, so 2 groups) placed 2 + 2 over two clusters of 20 GPUs is scaled with kubectl:
# - to 12: 3 whole groups, 2 + 1 (the last-placed cluster gives up a group), each member's
#   PodGroup minMember its part of min-member in whole groups (8 and 4, not 6 and 3);
# - to 10, not a whole number of groups: not followed, Scheduled=False with the reason, the
#   placement and the row as they were;
# - to 4, below min-member: the same, with the min-member sentence; musterd restarted;
# - to 8: followed, the cluster with a single group freed whole (not 4 + 4), its PodGroup Work
#   deleted, Scheduled=True again.
# Every write is checked against the CRDs.
# Usage: dispatch_scale_groups.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_scale_groups TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"

start_sim "$SRC/tests/fixtures/dispatch/two-clusters-20gpu.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"64"}'
DUMP=/api/v1/bindings/team/tp-deployment
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
pg_mins() { echo "$(member "$first" PodGroup muster-tp-deployment .spec.minMember) $(member "$last" PodGroup muster-tp-deployment .spec.minMember)"; }
row_gpus() { api GET $DUMP | jq -r '.request["nvidia.com/gpu"]'; }

k create -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tp
  namespace: team
  labels: {app: tp, volcano.sh/queue-name: q}
  annotations: {scheduling.muster.io/placement: spread, scheduling.muster.io/group-size: "4", scheduling.muster.io/min-member: "8"}
spec:
  replicas: 16
  selector: {matchLabels: {app: tp}}
  template:
    metadata: {labels: {app: tp}}
    spec:
      containers:
        - {name: c, image: registry.example/trainer:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}}
YAML
wait_until 30 "tp to run" is_eq running state tp-deployment
first=$(rbj tp-deployment '{.spec.clusters[0].name}')
last=$(rbj tp-deployment '{.spec.clusters[1].name}')
expect "$(rb_clusters tp-deployment)" "$first=8 $last=8 " "2 + 2 groups"
# min-member 8 = 2 of 4 groups: a group in each
expect "$(pg_mins)" "4 4" "each PodGroup's part of min-member"

# --- to 12: 3 whole groups, the last-placed cluster gives up one ---
k scale deployment tp --replicas=12 >/dev/null
wait_until 20 "spec.clusters in 3 whole groups" is_eq "$first=8 $last=4 " rb_clusters tp-deployment
expect "$(row_gpus)" 24 "the row holds 12 pods"
api GET $DUMP | jq -e '.history[-1].reason | test("scaled down from 16 to 12 replicas")' >/dev/null ||
    dfail "the row's reason: $(api GET $DUMP | jq -c '.history[-1]')"
# 2 of 3 groups: ceil(2 x 2 / 3) = 2 and ceil(1 x 2 / 3) = 1 groups (pods alone: 6 and 3)
wait_until 10 "the PodGroups in whole groups" is_eq "8 4" pg_mins
wait_until 10 "the member Deployments 8 and 4" is_eq "8 4" eval \
    "echo \$(member $first Deployment tp .spec.replicas) \$(member $last Deployment tp .spec.replicas)"
expect "$(state tp-deployment)" running "it runs on"

# --- to 10: no whole number of groups, not followed ---
k scale deployment tp --replicas=10 >/dev/null
wait_until 20 "the refusal on the RB" is_eq "False/Unschedulable" rb_cond tp-deployment Scheduled
msg=$(rb_cond_msg tp-deployment Scheduled)
[[ "$msg" == "change not followed: template annotation scheduling.muster.io/group-size: 10 replicas are not a whole number of groups of 4; it runs on as placed (12 replicas)" ]] ||
    dfail "the refusal's sentence: $msg"
expect "$(rb_clusters tp-deployment)" "$first=8 $last=4 " "the placement as it was"
expect "$(row_gpus)" 24 "the row as it was"
expect "$(pg_mins)" "8 4" "the PodGroups as they were"
expect "$(state tp-deployment)" running "it runs on"

# --- to 4: below min-member 8, not followed ---
k scale deployment tp --replicas=4 >/dev/null
wait_until 20 "the min-member refusal" eval \
    "rb_cond_msg tp-deployment Scheduled | grep -q 'min-member: 8 is more than the workload.s 4 replicas; it runs on as placed (12 replicas)'"
expect "$(rb_clusters tp-deployment)" "$first=8 $last=4 " "the placement as it was"

# a musterd started since knows the refusal only from the RB: it still runs as placed
kill -TERM "$MUSTERD_PID"
wait "$MUSTERD_PID" || true
start_musterd
wait_until 20 "the row read back" is_eq running state tp-deployment
expect "$(rb_clusters tp-deployment)" "$first=8 $last=4 " "the placement as it was, after the restart"
expect "$(row_gpus)" 24 "the row as it was, after the restart"

# --- to 8: followed, the cluster of one group freed whole ---
k scale deployment tp --replicas=8 >/dev/null
wait_until 20 "spec.clusters on one cluster" is_eq "$first=8 " rb_clusters tp-deployment
wait_until 10 "Scheduled=True again" is_eq "True/Success" rb_cond tp-deployment Scheduled
expect "$(row_gpus)" 16 "the row holds 8 pods"
wait_until 10 "the kept PodGroup's minMember" is_eq 8 member "$first" PodGroup muster-tp-deployment .spec.minMember
wait_until 10 "the freed cluster's PodGroup gone" is_eq none member "$last" PodGroup muster-tp-deployment .spec.minMember
expect "$(api GET $DUMP | jq '[.history[] | select(.state == "rolledback")] | length')" 0 "no rollback"
finish
