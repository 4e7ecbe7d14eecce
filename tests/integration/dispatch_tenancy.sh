#!/usr/bin/env bash
# Issue 21, musterd against muster-sim: which namespaces may submit to which queue
# (docs/queue.md, "Tenancy").
# - research sets a namespaceSelector (org=research) and nlp under it inherits it: a gang from an
#   unlabelled namespace is parked, its condition naming the queue and the inherited selector;
#   labelling the namespace (kubectl label) lets it run.
# - a namespace's scheduling.muster.io/default-queue annotation replaces "default".
# - a YuniKorn path root.research.nlp is queue nlp; root.open.nlp is parked with the reason.
# - narrowing the selector parks a waiting gang of a namespace it no longer admits; the running
#   gang keeps running.
# - a bad selector is refused with 422 naming the field, and the store keeps the queue as it was.
# Usage: dispatch_tenancy.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_tenancy TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd --owner-annotation example.com/owner
# (team comes with the scenario; kubectl create namespace sends protobuf, which muster-sim does not decode: docs/sim.md)
for ns in lab; do printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n' $ns | k create -f - >/dev/null; done
k create -f - >/dev/null <<'YAML'
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: to-muster, namespace: lab}
spec:
  schedulerName: muster
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: {clusterNames: [east, west]}
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
YAML
k annotate namespace lab scheduling.muster.io/default-queue=open >/dev/null
queue research root '{"nvidia.com/gpu":"16"}' '"namespaceSelector":{"matchLabels":{"org":"research"}}'
queue nlp research '{"nvidia.com/gpu":"6"}'
queue open root '{"nvidia.com/gpu":"8"}'
state() { api GET "/api/v1/bindings/$1" | jq -r .state; }
reason() { api GET "/api/v1/bindings/$1" | jq -r '.reason // ""'; }
bqueue() { api GET "/api/v1/bindings/$1" | jq -r .queue; }
# deploy NAMESPACE NAME REPLICAS [LABEL=VALUE]: 2 GPUs a replica
deploy() {
    local labels="app: $2"
    [ -n "${4:-}" ] && labels="$labels, ${4%%=*}: ${4#*=}"
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $2, namespace: $1, labels: {$labels}}
spec:
  replicas: $3
  selector: {matchLabels: {app: $2}}
  template:
    metadata: {labels: {app: $2}}
    spec:
      containers:
        - {name: c, image: registry.example/c:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}}}
YAML
}

# --- refused by the inherited selector, then admitted once the namespace is labelled ---
deploy team first 1 volcano.sh/queue-name=nlp
DUMP=/api/v1/bindings/team/first-deployment
wait_until 20 "first to be parked" is_eq "False/Unschedulable" rb_cond first-deployment Scheduled
msg=$(rb_cond_msg first-deployment Scheduled)
[[ "$msg" == *"namespace team may not submit to queue nlp: the namespaceSelector it inherits from queue research does not match (label org is not research)"* ]] ||
    dfail "the condition says who refused it and why: $msg"
[[ "$(reason team/first-deployment)" == *"inherits from queue research"* ]] ||
    dfail "the API says why: $(reason team/first-deployment)"
expect "$(rbj first-deployment '{.spec.clusters}')" "" "a parked gang is placed nowhere"
k label namespace team org=research >/dev/null
wait_until 20 "first to run once team is labelled" is_eq running state team/first-deployment

# --- a namespace's default queue ---
deploy lab plain 1
wait_until 20 "plain to run" is_eq running state lab/plain-deployment
expect "$(bqueue lab/plain-deployment)" open "the lab namespace's default queue"

# --- Kueue LocalQueues: lab/gpu feeds open; an unmapped name is parked with what was looked up ---
api PATCH /api/v1/queues/open '{"localQueues":["lab/gpu"]}' >/dev/null
deploy lab kq 1 kueue.x-k8s.io/queue-name=gpu
wait_until 20 "kq to run" is_eq running state lab/kq-deployment
expect "$(bqueue lab/kq-deployment)" open "LocalQueue lab/gpu is taken by open"
deploy lab kqbad 1 kueue.x-k8s.io/queue-name=nomap
lab_cond() { k -n lab get rb "$1" -o jsonpath='{.status.conditions[?(@.type=="Scheduled")].status}/{.status.conditions[?(@.type=="Scheduled")].reason}'; }
wait_until 20 "kqbad to be parked" is_eq "False/Unschedulable" lab_cond kqbad-deployment
msg=$(k -n lab get rb kqbad-deployment -o jsonpath='{.status.conditions[?(@.type=="Scheduled")].message}')
[[ "$msg" == *"Kueue LocalQueue lab/nomap: no queue takes it (localQueues) and no queue is named nomap"* ]] ||
    dfail "the LocalQueue's reason: $msg"
out=$(curl -s -w '\n%{http_code}' -X PATCH -H 'Content-Type: application/merge-patch+json' \
    --data '{"localQueues":["lab/gpu"]}' "$API/api/v1/queues/research")
expect "${out##*$'\n'}" 409 "a LocalQueue feeds one queue"

# --- YuniKorn paths ---
deploy team yk 1 yunikorn.apache.org/queue=root.research.nlp
wait_until 20 "yk to run" is_eq running state team/yk-deployment
expect "$(bqueue team/yk-deployment)" nlp "root.research.nlp is nlp"
deploy team ykbad 1 yunikorn.apache.org/queue=root.open.nlp
wait_until 20 "ykbad to be parked" is_eq "False/Unschedulable" rb_cond ykbad-deployment Scheduled
msg=$(rb_cond_msg ykbad-deployment Scheduled)
[[ "$msg" == *"YuniKorn queue path root.open.nlp: queue nlp is under research, not open"* ]] ||
    dfail "the path's reason: $msg"

# --- narrowing the selector parks what waits, and leaves what runs ---
deploy team waiter 2 volcano.sh/queue-name=nlp # 4 GPUs; nlp holds 4 of its 6 already
wait_until 20 "waiter to wait on its quota" is_eq "False/QuotaExceeded" rb_cond waiter-deployment Scheduled
api PATCH /api/v1/queues/research '{"namespaceSelector":{"matchLabels":{"org":"other"}}}' >/dev/null
wait_until 20 "waiter to be parked by the narrowed selector" is_eq "False/Unschedulable" \
    rb_cond waiter-deployment Scheduled
[[ "$(rb_cond_msg waiter-deployment Scheduled)" == *"label org is not other"* ]] ||
    dfail "the narrowed selector's reason: $(rb_cond_msg waiter-deployment Scheduled)"
expect "$(state team/first-deployment)" running "what runs keeps running"
# and widening it back (null: the queue sets none) lets it queue again, in its place
api PATCH /api/v1/queues/research '{"namespaceSelector":null}' >/dev/null
wait_until 20 "waiter back on its quota" is_eq "False/QuotaExceeded" rb_cond waiter-deployment Scheduled
expect "$(api GET /api/v1/queues/research | jq -c '.namespaceSelector // "none"')" '"none"' \
    "null removed the selector"

# --- namespaceLimits: a tenant's third gang waits while another tenant's runs ---
queue shared root '{"nvidia.com/gpu":"8"}' '"namespaceLimits":{"gangs":2,"resources":{"nvidia.com/gpu":"4"}}'
for i in 1 2 3; do deploy team t$i 1 volcano.sh/queue-name=shared; done
deploy lab l1 1 volcano.sh/queue-name=shared
wait_until 20 "lab's gang to run beside team's" is_eq running state lab/l1-deployment
wait_until 20 "two of team's gangs to run" is_eq 2 eval \
    "api GET '/api/v1/bindings?queue=shared&state=running' | jq '[.items[] | select(.namespace == \"team\")] | length'"
third=$(api GET '/api/v1/bindings?queue=shared' | jq -r '[.items[] | select(.namespace == "team" and .state == "pending")][0].name')
[ -n "$third" ] && [ "$third" != null ] || dfail "no team gang waits in shared"
wait_until 20 "the third to say why" is_eq "False/QuotaExceeded" rb_cond "$third" Scheduled
msg=$(rb_cond_msg "$third" Scheduled)
[[ "$msg" == *"namespace team holds 2 gang(s) in queue shared, the most a namespace may (namespaceLimits.gangs 2)"* ]] ||
    dfail "the namespace limit's reason: $msg"
# a running one goes: the third takes its place
running=$(api GET '/api/v1/bindings?queue=shared&state=running' | jq -r '[.items[] | select(.namespace == "team")][0].name')
k delete deployment "${running%-deployment}" >/dev/null
wait_until 20 "the third to run once a team gang left" is_eq running state "team/$third"
# per-namespace gauges (counted again every 5 s)
ns_gauge() { curl -sf "$API/metrics" | sed -n "s/^muster_namespace_$1{queue=\"$2\",namespace=\"$3\"} //p"; }
wait_until 15 "muster_namespace_gangs for team in shared" is_eq 2 ns_gauge gangs shared team
expect "$(ns_gauge gangs shared lab)" 1 "muster_namespace_gangs for lab in shared"
expect "$(ns_gauge pending nlp team)" 2 "muster_namespace_pending: the waiter and ykbad, parked in nlp"
# the resource limit (the gang limit dropped): one more 2-GPU gang would take team to 6 of its 4
# GPUs, while the queue (8) and the fleet still have room for it
api PATCH /api/v1/queues/shared '{"namespaceLimits":{"gangs":null}}' >/dev/null # a merge patch: resources stay
deploy team big 1 volcano.sh/queue-name=shared
wait_until 20 "big to wait on the namespace's GPUs" is_eq "False/QuotaExceeded" rb_cond big-deployment Scheduled
msg=$(rb_cond_msg big-deployment Scheduled)
[[ "$msg" == *"namespace team would hold 6 nvidia.com/gpu in queue shared, more than the 4 a namespace may (namespaceLimits.resources)"* ]] ||
    dfail "the resource limit's reason: $msg"
# the queue itself shrunk to what it holds: the engine offers big no more, so its reason moves
# from the namespace's limit to the queue's (session 13: the namespace's stayed), and back
used=$(api GET /api/v1/queues/shared | jq -r '.status.allocated["nvidia.com/gpu"]')
api PATCH /api/v1/queues/shared "{\"capability\":{\"nvidia.com/gpu\":\"$used\"}}" >/dev/null
wait_until 10 "big to wait on the queue" eval \
    "rb_cond_msg big-deployment Scheduled | grep -qx 'queue shared: nvidia.com/gpu $used of $used in use, needs 2'"
api PATCH /api/v1/queues/shared '{"capability":{"nvidia.com/gpu":"8"}}' >/dev/null
wait_until 10 "big to wait on the namespace's GPUs again" eval \
    "rb_cond_msg big-deployment Scheduled | grep -q 'namespaceLimits.resources'"

# --- ownerLimits: one owner across namespaces (musterd --owner-annotation example.com/owner) ---
queue owned root '{"cpu":"8"}' '"ownerLimits":{"gangs":1}'
owned() { # NAMESPACE NAME OWNER: one CPU-only replica in queue owned
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $2, namespace: $1, labels: {volcano.sh/queue-name: owned},
           annotations: {example.com/owner: $3}}
spec:
  replicas: 1
  selector: {matchLabels: {app: $2}}
  template:
    metadata: {labels: {app: $2}}
    spec:
      containers:
        - {name: c, image: registry.example/c:1, resources: {requests: {cpu: "1"}}}
YAML
}
owned team alice1 alice
wait_until 20 "alice's first gang to run" is_eq running state team/alice1-deployment
owned lab alice2 alice
owned lab bob1 bob
wait_until 20 "bob's gang to run beside alice's" is_eq running state lab/bob1-deployment
wait_until 20 "alice's second to wait" is_eq "False/QuotaExceeded" eval \
    "k -n lab get rb alice2-deployment -o jsonpath='{.status.conditions[?(@.type==\"Scheduled\")].status}/{.status.conditions[?(@.type==\"Scheduled\")].reason}'"
[[ "$(reason lab/alice2-deployment)" == *"owner alice holds 1 gang(s) in queue owned, the most an owner may (ownerLimits.gangs 1)"* ]] ||
    dfail "the owner limit's reason: $(reason lab/alice2-deployment)"

# --- the bindings list by namespace ---
expect "$(api GET '/api/v1/bindings?namespace=lab' | jq -c '[.items[].namespace] | unique')" '["lab"]' \
    "namespace=lab lists lab's bindings only"
expect "$(api GET '/api/v1/bindings?namespace=la' | jq '.items | length')" 0 "a namespace is matched whole"
expect "$(curl -s -o /dev/null -w '%{http_code}' "$API/api/v1/bindings?namespace=Bad_NS")" 400 \
    "a bad namespace is a 400"

# --- a bad selector: 422 naming the field, nothing changed ---
before=$(api GET /api/v1/queues/open | jq -c .)
out=$(curl -s -w '\n%{http_code}' -X PATCH -H 'Content-Type: application/merge-patch+json' \
    --data '{"namespaceSelector":{"matchExpressions":[{"key":"org","operator":"Has"}]}}' \
    "$API/api/v1/queues/open")
expect "${out##*$'\n'}" 422 "a bad operator is refused"
jq -e '.field == "namespaceSelector.matchExpressions[0].operator"' <<<"${out%$'\n'*}" >/dev/null ||
    dfail "the refusal names the field: ${out%$'\n'*}"
expect "$(api GET /api/v1/queues/open | jq -c .)" "$before" "the refused patch changed nothing"
finish
