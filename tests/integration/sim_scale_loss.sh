#!/usr/bin/env bash
# Issue 17, the hub's side, with the real kubectl against muster-sim: `kubectl scale` of a
# Deployment and a StatefulSet (the scale subresource) reaches the RB's spec.replicas through
# Karmada's detector; then a member cluster is lost: it stops answering (Ready False), the
# cluster controller taints it NoSchedule, a NoExecute taint makes the taint manager evict the
# RB (spec.clusters loses it, a graceful eviction task appears, stamped by the graceful eviction
# controller), the health monitor's Unknown swaps the NoSchedule taint, and Ready again lifts it.
# Usage: sim_scale_loss.sh PATH/TO/muster-sim SOURCE_DIR
set -euo pipefail

SIM=$1
SRC=$2
NAME=sim_scale_loss
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

"$SIM" --listen 127.0.0.1:0 --scenario "$SRC/deploy/scenarios/scale-loss.yaml" \
    --feature-gates Failover=true --enable-no-execute-taint-eviction true \
    >"$TMP/sim.out" 2>"$TMP/sim.err" &
SIM_PID=$!
wait_port "$TMP/sim.out" http
cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "$BASE"}}]
contexts: [{name: sim, context: {cluster: sim, user: sim, namespace: team}}]
current-context: sim
users: [{name: sim, user: {}}]
YAML
k() { kubectl --request-timeout=10s "$@"; }
rbj() { k get rb "$1" -o jsonpath="$2"; }
cj() { k get cluster "$1" -o jsonpath="$2"; }
ready() {
    curl -sf -X PUT -H 'Content-Type: application/json' --data "{\"ready\":$2}" \
        "$BASE/debug/sim/clusters/$1/ready" >/dev/null || fail "PUT $1/ready $2"
}
# eventually ACTUAL_CMD EXPECTED WHAT: the controllers answer within the write, but the member
# clusters are recomputed every 10 ms; allow a second.
eventually() {
    local got
    for _ in $(seq 50); do
        got=$(eval "$1")
        [ "$got" == "$2" ] && return 0
        sleep 0.02
    done
    fail "$3: expected [$2], got [$got]"
}

# --- kubectl scale: the Deployment, its Scale, its RB ---
expect "$(rbj web-deployment '{.spec.replicas}')" 2 "RB replicas from the scenario"
k scale deployment web --replicas=5 >/dev/null
expect "$(k get deployment web -o jsonpath='{.spec.replicas} {.metadata.generation}')" "5 2" \
    "kubectl scale changed the Deployment"
expect "$(k get --raw /apis/apps/v1/namespaces/team/deployments/web/scale |
    jq -c '[.kind, .apiVersion, .spec.replicas, .status.selector]')" \
    '["Scale","autoscaling/v1",5,"app=web"]' "the Scale"
eventually "rbj web-deployment '{.spec.replicas}'" 5 "the detector rewrote the RB's replicas"
expect "$(rbj web-deployment '{.spec.replicaRequirements.resourceRequest}')" \
    '{"cpu":"1","memory":"1Gi"}' "RB replicaRequirements"
# A stale resourceVersion is a Conflict, as on /status.
code=$(k get --raw /apis/apps/v1/namespaces/team/deployments/web/scale |
    jq -c '.metadata.resourceVersion = "1" | .spec.replicas = 1' |
    curl -s -o "$TMP/conflict.json" -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
        --data-binary @- "$BASE/apis/apps/v1/namespaces/team/deployments/web/scale")
expect "$code $(jq -r .reason "$TMP/conflict.json")" "409 Conflict" "stale Scale"
expect "$(k get deployment web -o jsonpath='{.spec.replicas}')" 5 "nothing stored on 409"
# A StatefulSet is a template too; kubectl scale finds statefulsets/scale in discovery.
k apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: team}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: registry.example/db:1, resources: {requests: {cpu: "2"}}}]}
YAML
eventually "rbj db-statefulset '{.spec.replicas}'" 1 "StatefulSet RB"
k scale statefulset db --replicas=3 >/dev/null
eventually "rbj db-statefulset '{.spec.replicas}'" 3 "kubectl scale statefulset reached the RB"

# --- dispatch as muster does: placement with the applied-placement annotation ---
k patch rb web-deployment --type merge -p '{"metadata":{"annotations":{"policy.karmada.io/applied-placement":"{\"clusterAffinity\":{\"clusterNames\":[\"m1\",\"m2\"]}}"}},"spec":{"clusters":[{"name":"m1","replicas":3},{"name":"m2","replicas":2}],"suspension":{"scheduling":false}}}' >/dev/null
eventually "curl -sf $BASE/debug/sim/clusters/m2/objects | jq -r '.items[0].status.readyReplicas'" \
    2 "web runs on m2"

# --- m2 stops answering: Ready False, the cluster controller's NoSchedule taint ---
ready m2 false
expect "$(cj m2 '{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}')" \
    "False/ClusterNotReachable" "m2 NotReady"
expect "$(cj m2 '{range .spec.taints[*]}{.key}:{.effect} {end}')" \
    "cluster.karmada.io/not-ready:NoSchedule " "NoSchedule taint by condition"
expect "$(rbj web-deployment '{.spec.clusters[*].name}')" "m1 m2" "NoSchedule evicts nothing"

# --- a NoExecute taint (an operator's, or a ClusterTaintPolicy's): the taint manager evicts ---
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
k patch cluster m2 --type json -p "[{\"op\":\"add\",\"path\":\"/spec/taints/-\",\"value\":{\"key\":\"cluster.karmada.io/not-ready\",\"effect\":\"NoExecute\",\"timeAdded\":\"$now\"}}]" >/dev/null
expect "$(rbj web-deployment '{.spec.clusters}')" '[{"name":"m1","replicas":3}]' \
    "m2 left spec.clusters"
expect "$(rbj web-deployment '{range .spec.gracefulEvictionTasks[*]}{.fromCluster} {.replicas} {.purgeMode} {.reason} {.producer}{end}')" \
    "m2 2 Gracefully TaintUntolerated TaintManager" "graceful eviction task"
[ -n "$(rbj web-deployment '{.spec.gracefulEvictionTasks[0].creationTimestamp}')" ] ||
    fail "the graceful eviction controller stamps the task"
expect "$(rbj web-deployment '{.spec.suspension.scheduling}')" false "suspension untouched"
# The RB held suspended elsewhere: listed on m2 and not tolerating, it is evicted just the same.
k patch rb db-statefulset --type merge -p '{"metadata":{"annotations":{"policy.karmada.io/applied-placement":"{}"}},"spec":{"clusters":[{"name":"m2","replicas":3}]}}' >/dev/null
expect "$(rbj db-statefulset '{.spec.clusters} {.spec.suspension.scheduling} {.spec.gracefulEvictionTasks[0].fromCluster}')" \
    " true m2" "a suspended muster RB is evicted too"

# --- the health monitor's Unknown swaps the NoSchedule taint; Ready lifts it ---
ready m2 '"Unknown"'
expect "$(cj m2 '{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}')" \
    "Unknown/ClusterStatusUnknown" "m2 Unknown"
expect "$(cj m2 '{range .spec.taints[*]}{.key}:{.effect} {end}')" \
    "cluster.karmada.io/not-ready:NoExecute cluster.karmada.io/unreachable:NoSchedule " \
    "unreachable NoSchedule taint"
ready m2 true
expect "$(cj m2 '{range .spec.taints[*]}{.key}:{.effect} {end}')" \
    "cluster.karmada.io/not-ready:NoExecute " "Ready: NoSchedule taints lifted, NoExecute is not"
k patch cluster m2 --type merge -p '{"spec":{"taints":null}}' >/dev/null
expect "$(cj m2 '{.spec.taints}')" "" "taints removed"
expect "$(rbj web-deployment '{.spec.clusters[*].name}')" "m1" "eviction is not undone"

kill -TERM "$SIM_PID"
wait "$SIM_PID" || fail "muster-sim exited $?"
SIM_PID=
echo "sim_scale_loss: ok"
