#!/usr/bin/env bash
# muster-sim with the demo scenario, driven by kubectl the way muster drives a Karmada hub:
# cluster capacity, the detector's RB, muster's two-phase dispatch through the binding
# controller, a cluster going NotReady, garbage collection, and the --event-log file.
# Usage: sim_karmada.sh PATH/TO/muster-sim SOURCE_DIR
set -euo pipefail

SIM=$1
SRC=$2
NAME=sim_karmada
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

"$SIM" --listen 127.0.0.1:0 --scenario "$SRC/tests/fixtures/sim/karmada-fleet.yaml" \
    --event-log "$TMP/events.jsonl" --access-log "$TMP/access.log" >"$TMP/sim.out" 2>"$TMP/sim.err" &
SIM_PID=$!
wait_port "$TMP/sim.out" http
cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "$BASE"}}]
contexts: [{name: sim, context: {cluster: sim, user: sim, namespace: team-vision}}]
current-context: sim
users: [{name: sim, user: {}}]
YAML
k() { kubectl --request-timeout=10s "$@"; }
cj() { k get cluster "$1" -o jsonpath="$2"; }

# --- clusters from the scenario ---
expect "$(k get clusters -o name | tr '\n' ' ')" \
    "cluster.cluster.karmada.io/gpu-east cluster.cluster.karmada.io/gpu-lab cluster.cluster.karmada.io/gpu-west " \
    "clusters"
expect "$(cj gpu-east '{.status.resourceSummary.allocatable}')" \
    '{"cpu":"448","memory":"4352Gi","nvidia.com/gpu":"32","pods":"660"}' "gpu-east allocatable"
expect "$(cj gpu-east '{range .status.resourceSummary.allocatableModelings[*]}{.grade}={.count} {end}')" \
    "0=0 1=0 2=0 3=0 4=0 5=2 6=0 7=4 8=0 " "gpu-east modelings"
expect "$(cj gpu-east '{range .status.conditions[*]}{.type}={.status}/{.reason} {end}')" \
    "CompleteAPIEnablements=True/Complete Ready=True/ClusterReady " "gpu-east Ready, APIs collected"
expect "$(cj gpu-east '{.status.apiEnablements[?(@.groupVersion=="scheduling.volcano.sh/v1beta1")].resources[*].name}')" \
    "podgroups queues" "gpu-east serves Volcano's PodGroups"
expect "$(cj gpu-lab '{.status.conditions[0].status}/{.status.conditions[0].reason}')" \
    "False/ClusterNotReachable" "gpu-lab NotReady from the scenario"
expect "$(cj gpu-west '{.spec.resourceModels[8].ranges[0].name} {.spec.resourceModels[8].ranges[0].min} {.spec.resourceModels[8].ranges[0].max}')" \
    "cpu 128 9223372036854775807" "default resource models"
expect "$(k get ns -o name | grep -c karmada-es-)" 3 "execution namespaces"

# --- the detector ---
expect "$(k create -f "$SRC/tests/fixtures/sim/deploy-train.yaml")" "deployment.apps/train created" \
    "create the Deployment"
rbj() { k get rb train-deployment -o jsonpath="$1"; }
expect "$(rbj '{.spec.resource.kind}/{.spec.resource.name} {.spec.replicas} {.spec.schedulerName} {.spec.suspension.scheduling}')" \
    "Deployment/train 4 muster true" "RB from the detector"
expect "$(rbj '{.spec.replicaRequirements.resourceRequest}')" \
    '{"cpu":"8","memory":"64Gi","nvidia.com/gpu":"2"}' "replicaRequirements"
expect "$(rbj '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].uid}')" \
    "Deployment/train $(k get deploy train -o jsonpath='{.metadata.uid}')" "owner reference"
pid=$(rbj '{.metadata.labels.resourcebinding\.karmada\.io/permanent-id}')
[[ "$pid" =~ ^[0-9a-f-]{36}$ ]] || fail "permanent-id label: [$pid]"

# --- muster's dispatch: clusters + dispatching suspended, then released ---
k patch rb train-deployment --type merge -p \
    '{"spec":{"clusters":[{"name":"gpu-east","replicas":3},{"name":"gpu-west","replicas":1}],"suspension":{"dispatching":true}}}' >/dev/null
expect "$(k get works -A -o jsonpath='{range .items[*]}{.metadata.namespace}:{.spec.suspendDispatching} {end}')" \
    "karmada-es-gpu-east:true karmada-es-gpu-west:true " "Works rendered, dispatching suspended"
expect "$(cj gpu-east '{.status.resourceSummary.allocated.cpu}')" 0 "nothing runs while suspended"
k patch rb train-deployment --type merge -p '{"spec":{"suspension":{"scheduling":false,"dispatching":null}}}' >/dev/null
expect "$(k get works -n karmada-es-gpu-east -o jsonpath='{.items[0].spec.workload.manifests[0].spec.replicas} {.items[0].metadata.labels.resourcebinding\.karmada\.io/permanent-id}')" \
    "3 $pid" "gpu-east Work"
expect "$(cj gpu-east '{.status.resourceSummary.allocated}')" \
    '{"cpu":"24","memory":"192Gi","nvidia.com/gpu":"6","pods":"3"}' "gpu-east allocated"
expect "$(cj gpu-west '{.status.resourceSummary.allocated.nvidia\.com/gpu}')" 2 "gpu-west allocated"
# The execution controller's member objects, served for tests, with the status they report.
objs=$(curl -sf "$BASE/debug/sim/clusters/gpu-east/objects")
expect "$(jq -r '[.kind] + [.items[] | "\(.kind)/\(.metadata.name) \(.metadata.labels["karmada.io/managed"]) \(.status.readyReplicas)"] | join(" ")' <<<"$objs")" \
    "List Deployment/train true 3" "gpu-east member objects"
expect "$(k get works -n karmada-es-gpu-east -o jsonpath='{.items[0].metadata.finalizers}')" \
    '["karmada.io/execution-controller"]' "the execution controller's finalizer"
expect "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/debug/sim/clusters/nope/objects")" 404 \
    "unknown cluster's objects"

# --- rollback: clusters cleared, Works gone, capacity freed ---
k patch rb train-deployment --type merge -p '{"spec":{"clusters":null,"suspension":{"scheduling":true}}}' >/dev/null
expect "$(k get works -A -o name)" "" "Works removed with spec.clusters"
expect "$(cj gpu-east '{.status.resourceSummary.allocated.cpu}')" 0 "capacity freed"
expect "$(curl -sf "$BASE/debug/sim/clusters/gpu-east/objects" | jq -c .items)" "[]" \
    "member objects deleted through the finalizer"

# --- a cluster goes NotReady (fault injection) ---
expect "$(curl -s -X PUT -H 'Content-Type: application/json' --data '{"ready":false}' \
    "$BASE/debug/sim/clusters/gpu-west/ready")" '{"ready":false}' "NotReady endpoint"
expect "$(cj gpu-west '{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason} {.status.nodeSummary.readyNum}')" \
    "False/ClusterNotReachable 0" "gpu-west NotReady"
expect "$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
    --data '{"ready":true}' "$BASE/debug/sim/clusters/nope/ready")" 404 "unknown cluster"
# the work status controller paused for a member: a bad body is a 400, an unknown cluster a 404,
# GET a 405 (what pausing does is dispatch_loss.sh replace-settle's)
expect "$(curl -s -X PUT -H 'Content-Type: application/json' --data '{"paused":false}' \
    "$BASE/debug/sim/clusters/gpu-east/workstatus")" '{"paused":false}' "work status endpoint"
expect "$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
    --data '{"paused":"yes"}' "$BASE/debug/sim/clusters/gpu-east/workstatus")" 400 "paused not a boolean"
expect "$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
    --data '{"paused":true}' "$BASE/debug/sim/clusters/nope/workstatus")" 404 "work status: unknown cluster"
expect "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/debug/sim/clusters/gpu-east/workstatus")" 405 \
    "work status: GET"

# --- deleting the template garbage-collects the RB ---
k patch rb train-deployment --type merge -p '{"spec":{"clusters":[{"name":"gpu-east","replicas":4}]}}' >/dev/null
expect "$(k get works -A -o name | wc -l | tr -d ' ')" 1 "Work before delete"
k delete deploy train >/dev/null
expect "$(k get rb -o name)" "" "RB collected"
expect "$(k get works -A -o name)" "" "Works collected"

# --- the event log file matches the server's log ---
# The file starts after the four namespaces muster-sim seeds (resourceVersions 1001-1004).
server_log=$(curl -sf "$BASE/debug/sim/events?since=1004")
kill -TERM "$SIM_PID"
rc=0
wait "$SIM_PID" || rc=$?
SIM_PID=
expect "$rc" 0 "exit status"
grep -q '"type":"ADDED","resourceVersion":"[0-9]*","group":"work.karmada.io","resource":"resourcebindings","namespace":"team-vision","name":"train-deployment"' \
    "$TMP/events.jsonl" || fail "event log lacks the RB's ADDED"
expect "$(wc -l <"$TMP/events.jsonl" | tr -d ' ')" "$(grep -o '"type":' <<<"$server_log" | wc -l | tr -d ' ')" \
    "event log file and /debug/sim/events agree"
expect "$(grep -c '"type":"DELETED","resourceVersion":"[0-9]*","group":"work.karmada.io","resource":"works"' "$TMP/events.jsonl")" \
    3 "Work deletions logged (rollback 2, garbage collection 1)"
rvs=$(sed -n 's/.*"resourceVersion":"\([0-9]*\)".*/\1/p' "$TMP/events.jsonl")
expect "$(sort -n <<<"$rvs" | uniq | tr '\n' ' ')" "$(tr '\n' ' ' <<<"$rvs")" \
    "event log strictly increasing, no duplicates"
# The access log has one line per request, with method, path and status.
grep -qE '"PATCH /apis/work.karmada.io/v1alpha2/namespaces/team-vision/resourcebindings/train-deployment(\?[^ ]*)? HTTP/1.1" 200 ' \
    "$TMP/access.log" || fail "access log lacks the RB patch: $(tail -3 "$TMP/access.log")"
grep -q '"PUT /debug/sim/clusters/nope/ready HTTP/1.1" 404 ' "$TMP/access.log" ||
    fail "access log lacks the 404"
echo PASS
