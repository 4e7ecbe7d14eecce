#!/usr/bin/env bash
# Issue 4 and issue 8, musterd against muster-sim, where gangs may go: a NotReady cluster gets
# nothing (rule 4); a gang that fits in a cluster's sum but not node by node is never dispatched
# and says NoClusterFit (rule 2); a Volcano Job gets no PodGroup Work and lands whole in one
# cluster, and a spread Volcano Job is refused with a reason (rule 9). Every write is checked
# against the CRDs (rule 11). See docs/testing.md.
# Usage: dispatch_placement.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_placement TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"64"}'

# job NAME PARALLELISM GPUS [ANNOTATIONS_JSON]: a batch Job in queue q
job() {
    k create -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: team
  labels: {volcano.sh/queue-name: q}
  annotations: ${4:-{\}}
spec:
  parallelism: $2
  completions: $2
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: registry.example/work:1
          resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "$3"}}
YAML
}
ready() {
    expect "$(curl -s -X PUT -H 'Content-Type: application/json' --data "{\"ready\":$2}" \
        "$BASE/debug/sim/clusters/$1/ready")" "{\"ready\":$2}" "$1 ready=$2"
}
alloc() {
    local v
    v=$(k get cluster "$1" -o jsonpath='{.status.resourceSummary.allocated.nvidia\.com/gpu}')
    echo "${v:-0}"
}
east_works() { k get works -n karmada-es-east -o name | wc -l; }

# --- rule 4: a NotReady cluster gets nothing ---
ready east false
sleep 0.5
job n1 2 4 # fills west (2 nodes x 4 GPUs)
wait_until 15 "n1 on west" is_eq "west=2 " rb_clusters n1-job
job n2 1 4 # would fit east only
DUMP=/api/v1/bindings/team/n2-job
# The Ready fleet (west) is full: no cluster has room (NoClusterFit, message "fleet: ...").
wait_until 15 "n2 to wait" eval "rb_cond_msg n2-job Scheduled | grep -q '^fleet: nvidia.com/gpu 8 of 8 in use, needs 4'"
expect "$(rb_cond n2-job Scheduled)" False/NoClusterFit "n2 condition"
sleep 1
expect "$(rb_clusters n2-job)" "" "n2 not placed"
expect "$(rbj n2-job '{.spec.suspension.scheduling}')" true "n2 held"
expect "$(east_works)" 0 "no Work in the NotReady cluster"
expect "$(alloc east)" 0 "nothing allocated in the NotReady cluster"
# Ready again: n2 lands there.
ready east true
wait_until 15 "n2 on east" is_eq "east=1 " rb_clusters n2-job
wait_until 15 "n2 running" is_eq Healthy rbj n2-job '{.status.aggregatedStatus[0].health}'

# --- rule 2: fits in a cluster's sum, not node by node ---
k delete job n1 >/dev/null # west: 8 GPUs free, 4 per node
wait_until 15 "west to be free" is_eq 0 alloc west
job big 1 8 # one pod of 8 GPUs: west has 8 in sum, no node has more than 4
k create -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: wide
  namespace: team
  labels: {volcano.sh/queue-name: q}
  annotations: {scheduling.muster.io/placement: spread}
spec:
  replicas: 2
  selector: {matchLabels: {app: wide}}
  template:
    metadata: {labels: {app: wide}}
    spec:
      containers:
        - name: c
          image: registry.example/c:1
          resources: {requests: {cpu: "1", nvidia.com/gpu: "6"}}
YAML
DUMP=/api/v1/bindings/team/big-job
wait_until 15 "big to say NoClusterFit" is_eq False/NoClusterFit rb_cond big-job Scheduled
wait_until 15 "wide to say NoClusterFit" is_eq False/NoClusterFit rb_cond wide-deployment Scheduled
expect "$(rb_cond_msg big-job Scheduled)" \
    'gang: no single allowed Ready cluster holds 1 replicas of {"cpu":"2","memory":"8Gi","nvidia.com/gpu":"8"} node by node (east holds 0, west holds 0)' \
    "big's message"
echo "wide: $(rb_cond_msg wide-deployment Scheduled)"
# A gang that fits is still dispatched meanwhile (the loop is alive), and the two never are.
job small 1 2
wait_until 15 "small to run" is_eq Healthy rbj small-job '{.status.aggregatedStatus[0].health}'
sleep 1
for rb in big-job wide-deployment; do
    expect "$(rb_clusters $rb)|$(rbj $rb '{.spec.suspension.scheduling}')" "|true" "$rb never dispatched"
    expect "$(rb_cond $rb Scheduled)" False/NoClusterFit "$rb condition"
done
# The queue shrunk below big's 8 GPUs: the engine offers it no more, so no cycle says
# NoClusterFit again; its reason moves to the queue it now waits for (session 13: it kept the
# stale NoClusterFit before).
api PATCH /api/v1/queues/q '{"capability":{"nvidia.com/gpu":"4"}}' >/dev/null
wait_until 10 "big to say QuotaExceeded" is_eq False/QuotaExceeded rb_cond big-job Scheduled
used=$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')
expect "$(rb_cond_msg big-job Scheduled)" "queue q: nvidia.com/gpu $used of 4 in use, needs 8" "big's message"
expect "$(api GET /api/v1/bindings/team/big-job | jq -r .reason)" \
    "queue q: nvidia.com/gpu $used of 4 in use, needs 8" "big's reason on the API"
api PATCH /api/v1/queues/q '{"capability":{"nvidia.com/gpu":"64"}}' >/dev/null
wait_until 10 "big to say NoClusterFit again" is_eq False/NoClusterFit rb_cond big-job Scheduled
expect "$(k get works -A -o json | jq '[.items[] | select(.metadata.annotations["resourcebinding.karmada.io/name"] == "big-job" or .metadata.annotations["scheduling.muster.io/binding"] == "team/wide-deployment")] | length')" \
    0 "no Work for big or wide"
k delete job big small >/dev/null
k delete deploy wide >/dev/null

# --- rule 9: a Volcano Job lands whole in one cluster, without a PodGroup Work ---
vcjob() {
    k create -f - >/dev/null <<YAML
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: $1
  namespace: team
  annotations: ${2:-{\}}
spec:
  queue: q
  minAvailable: 3
  schedulerName: volcano
  tasks:
    - name: ps
      replicas: 1
      template:
        spec:
          containers:
            - {name: ps, image: registry.example/ps:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}
    - name: worker
      replicas: 2
      template:
        spec:
          containers:
            - {name: w, image: registry.example/w:1, resources: {requests: {cpu: "2", nvidia.com/gpu: "2"}}}
YAML
}
vcjob vj
# 5 GPUs: east has 4 free (n2 runs there), so only west holds it whole.
wait_until 15 "vj to run" is_eq Healthy rbj vj-job '{.status.aggregatedStatus[0].health}'
expect "$(rbj vj-job '{.spec.clusters[*].name}')" west "vj whole in one cluster (west)"
vpid=$(rbj vj-job '{.metadata.labels.resourcebinding\.karmada\.io/permanent-id}')
expect "$(k get works -A -l "app.kubernetes.io/managed-by=muster,resourcebinding.karmada.io/permanent-id=$vpid" -o name | wc -l)" \
    0 "no PodGroup Work for the Volcano Job"
expect "$(k get works -A -l "resourcebinding.karmada.io/permanent-id=$vpid" -o jsonpath='{.items[*].metadata.namespace}')" \
    karmada-es-west "one Work, in west"
expect "$(k get op -o json | jq '[.items[] | select(.spec.resourceSelectors[0].name == "vj")] | length')" \
    0 "no OverridePolicy for the Volcano Job"
w=$(k get works -n karmada-es-west -o json | jq -c '[.items[] | select(.metadata.annotations["resourcebinding.karmada.io/name"] == "vj-job")]')
expect "$(jq -r '.[0].spec.workload.manifests[0] | .kind + " " + ([.spec.tasks[].replicas] | map(tostring) | join(","))' <<<"$w")" \
    "Job 1,2" "the whole job in west's Work"
expect "$(rb_cond vj-job Scheduled)" True/Success "vj Scheduled"
# A spread Volcano Job is refused with a reason.
vcjob vs '{scheduling.muster.io/placement: spread}'
wait_until 15 "vs to be refused" eval "rb_cond_msg vs-job Scheduled | grep -q 'spread is refused for a Volcano Job'"
expect "$(rb_cond vs-job Scheduled)" False/Unschedulable "vs condition"
expect "$(rb_clusters vs-job)|$(rbj vs-job '{.spec.suspension.scheduling}')" "|true" "vs held"
echo "vs: $(rb_cond_msg vs-job Scheduled)"
finish
