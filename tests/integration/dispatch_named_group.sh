#!/usr/bin/env bash
# Issue 22, musterd against muster-sim: a Deployment whose pod template already names muster's
# PodGroup (scheduling.k8s.io/group-name: muster-<RB name>) and schedulerName volcano needs no
# OverridePolicy, so no barrier waits for one: its PodGroup Work, once Applied, is followed by one
# patch that places and lifts it, then Scheduled=True: 3 writes (1 create, 2 patches) where a
# plain Deployment takes 5 (2 creates, 3 patches). Its member PodGroup is Running with the pods
# the sim rendered naming it. musterd killed after the PodGroup Work and started again goes on to
# the one patch (the template still says it all: no policy). A running gang whose template stops
# naming the group gets muster's policy at once, and a new RB of such a template gets it at its
# dispatch; so does a template edited while musterd is down (after step 2, or while running).
# A ClusterOverridePolicy that overrides the scheduler keeps muster's policy (applied last, it
# wins); a user's OverridePolicy on another path does not (docs/gangobj.md, "A template that
# names its PodGroup").
# Usage: dispatch_named_group.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_named_group TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

# hub requests that finished, summed over codes: VERB
reqs() {
    curl -sf "$API/metrics" |
        awk -v v="$1" 'index($0, "muster_hub_requests_total{verb=\"" v "\"") == 1 {s += $2} END {print s + 0}'
}
# solo-deploy.yaml renamed to $1, its pod template naming muster's PodGroup when $2 is 1
deploy() {
    local y
    y=$(sed "s/name: solo\$/name: $1/; s/app: solo}/app: $1}/g; s/app: solo,/app: $1,/" "$FIX/solo-deploy.yaml")
    if [ "$2" = 1 ]; then
        y=$(sed "s#^      labels: {app: $1}#      labels: {app: $1}\n      annotations: {scheduling.k8s.io/group-name: muster-$1-deployment}#; s#^    spec:\$#    spec:\n      schedulerName: volcano#" <<<"$y")
    fi
    k create -f - <<<"$y" >/dev/null
}
op_of() { k get op "muster-$1-deployment" -o name 2>/dev/null || true; }

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"8"}'

# --- a named template: 3 writes, no policy ---
c0=$(reqs create) p0=$(reqs patch)
deploy named 1
wait_until 20 "named to be scheduled" is_eq True/Success rb_cond named-deployment Scheduled
expect "$(rbj named-deployment '{.spec.suspension.scheduling}')" false "named lifted"
expect "$(rbj named-deployment '{.spec.suspension.dispatching}')" "" "no barrier was raised"
cl=$(rbj named-deployment '{.spec.clusters[0].name}')
pgw=$(k get works -n "karmada-es-$cl" -l app.kubernetes.io/managed-by=muster -o json)
expect "$(jq '.items | length' <<<"$pgw")" 1 "one PodGroup Work in $cl"
expect "$(jq -r '.items[0].spec.workload.manifests[0].metadata.name' <<<"$pgw")" \
    muster-named-deployment "the PodGroup is the one the template names"
wait_until 20 "the PodGroup to run" is_eq Running eval \
    "k get works -n karmada-es-$cl -l app.kubernetes.io/managed-by=muster -o jsonpath='{.items[0].status.manifestStatuses[0].status.phase}'"
pid=$(rbj named-deployment '{.metadata.labels.resourcebinding\.karmada\.io/permanent-id}')
dw=$(k get works -n "karmada-es-$cl" -l "resourcebinding.karmada.io/permanent-id=$pid" -o json)
expect "$(jq -r '.items[0].spec.workload.manifests[0].spec.template.metadata.annotations["scheduling.k8s.io/group-name"]' <<<"$dw")" \
    muster-named-deployment "the rendered pods name it"
expect "$(jq -r '.items[0].spec.workload.manifests[0].spec.template.spec.schedulerName' <<<"$dw")" \
    volcano "and Volcano"
expect "$(op_of named)" "" "no OverridePolicy"
wait_until 10 "the status write to finish" is_eq $((p0 + 2)) reqs patch
expect "$(reqs create)" $((c0 + 1)) "one create (the PodGroup Work)"
expect "$(reqs patch)" $((p0 + 2)) "two patches (placement with lift, status)"
expect "$(api GET /api/v1/bindings/team/named-deployment | jq -r .state)" running "named running"

# --- a plain template beside it: the policy and the barrier, 5 writes ---
c0=$(reqs create) p0=$(reqs patch)
deploy plain 0
wait_until 20 "plain to be scheduled" is_eq True/Success rb_cond plain-deployment Scheduled
expect "$(op_of plain)" overridepolicy.policy.karmada.io/muster-plain-deployment "plain's policy"
wait_until 10 "plain's status write to finish" is_eq $((p0 + 3)) reqs patch
expect "$(reqs create)" $((c0 + 2)) "two creates (the PodGroup Work and the policy)"

# --- killed once the PodGroup Work is made: the restart goes on with the one patch ---
api PATCH /api/v1/queues/q '{"capability":{"nvidia.com/gpu":"12"}}' >/dev/null
kill -KILL "$MUSTERD_PID"
wait "$MUSTERD_PID" 2>/dev/null || true
MUSTERD_PID=
MUSTER_CRASH_AT=dispatch.objects start_musterd
deploy again 1
wait_until 20 "musterd to die at dispatch.objects" eval "! kill -0 $MUSTERD_PID"
grep -q "crash point dispatch.objects reached" "$TMP/musterd.err" || dfail "no crash line"
MUSTERD_PID=
start_musterd
wait_until 20 "again to be scheduled" is_eq True/Success rb_cond again-deployment Scheduled
expect "$(rbj again-deployment '{.spec.suspension.dispatching}')" "" "no barrier after the restart"
expect "$(op_of again)" "" "no OverridePolicy after the restart"
expect "$(api GET /api/v1/bindings/team/again-deployment | jq -r .state)" running "again running"

# --- a running gang's template stops naming the group: muster writes the policy at once ---
k patch deployment again --type json \
    -p '[{"op":"remove","path":"/spec/template/metadata/annotations/scheduling.k8s.io~1group-name"}]' >/dev/null
wait_until 20 "again's policy" is_eq overridepolicy.policy.karmada.io/muster-again-deployment op_of again
expect "$(api GET /api/v1/bindings/team/again-deployment | jq -r .state)" running "again still running"

# --- the template stops naming the group: its next dispatch makes the policy ---
k delete deployment named >/dev/null
wait_until 20 "named to be released" eval "[ \"\$(curl -s $API/api/v1/bindings/team/named-deployment | jq -r .state)\" != running ]"
deploy named 0
wait_until 20 "named again to be scheduled" is_eq True/Success rb_cond named-deployment Scheduled
expect "$(op_of named)" overridepolicy.policy.karmada.io/muster-named-deployment \
    "a template naming nothing gets the policy"
expect "$(curl -sf "$API/metrics" | grep -c 'muster_hub_requests_total{verb="patch",code="4' || true)" 0 \
    "no patch was refused (no 409, no 422: the status write waited for Karmada's aggregation)"

# room for four more gangs: the first ones go
k delete deployment named plain again >/dev/null
for d in named plain again; do
    wait_until 20 "$d to be released" eval "[ \"\$(curl -s $API/api/v1/bindings/team/$d-deployment | jq -r .state)\" != running ]"
done
api PATCH /api/v1/queues/q '{"capability":{"nvidia.com/gpu":"16"}}' >/dev/null
unname() { # DEPLOYMENT: its pod template no longer names the group
    k patch deployment "$1" --type json \
        -p '[{"op":"remove","path":"/spec/template/metadata/annotations/scheduling.k8s.io~1group-name"}]' >/dev/null
}
rendered_group() { # RB: the group the pods of its rendered Work name
    local pid
    pid=$(rbj "$1" '{.metadata.labels.resourcebinding\.karmada\.io/permanent-id}')
    k get works -A -l "resourcebinding.karmada.io/permanent-id=$pid" -o json |
        jq -r '.items[0].spec.workload.manifests[0].spec.template.metadata.annotations["scheduling.k8s.io/group-name"] // "none"'
}

# --- the template stops naming the group while musterd is down after step 2: the restart
#     judges the template as it is now, makes the policy and takes the barrier ---
kill -KILL "$MUSTERD_PID"
wait "$MUSTERD_PID" 2>/dev/null || true
MUSTERD_PID=
MUSTER_CRASH_AT=dispatch.objects start_musterd
deploy edit 1
wait_until 20 "musterd to die at dispatch.objects" eval "! kill -0 $MUSTERD_PID"
MUSTERD_PID=
unname edit
start_musterd
wait_until 20 "edit to be scheduled" is_eq True/Success rb_cond edit-deployment Scheduled
expect "$(op_of edit)" overridepolicy.policy.karmada.io/muster-edit-deployment \
    "edited after step 2: the policy"
expect "$(rendered_group edit-deployment)" muster-edit-deployment "its pods name the group (the policy's)"

# --- a running gang's template edited while musterd is down: the restart writes the policy ---
deploy down 1
wait_until 20 "down to be scheduled" is_eq True/Success rb_cond down-deployment Scheduled
expect "$(op_of down)" "" "down: no policy"
kill -KILL "$MUSTERD_PID"
wait "$MUSTERD_PID" 2>/dev/null || true
MUSTERD_PID=
unname down
start_musterd
wait_until 20 "down's policy after the restart" is_eq \
    overridepolicy.policy.karmada.io/muster-down-deployment op_of down

# --- a ClusterOverridePolicy that sets the scheduler of Deployments would win over the
#     template without muster's own policy, applied last: the policy is kept ---
k create -f - >/dev/null <<'JSON'
{"apiVersion": "policy.karmada.io/v1alpha1", "kind": "ClusterOverridePolicy",
 "metadata": {"name": "route-deployments"},
 "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
          "overrideRules": [{"overriders": {"plaintext": [
            {"path": "/spec/template/spec/schedulerName", "operator": "replace",
             "value": "other-scheduler"}]}}]}}
JSON
# ... while a user's OverridePolicy on another path of the template stands in no way
k create -f - >/dev/null <<'JSON'
{"apiVersion": "policy.karmada.io/v1alpha1", "kind": "OverridePolicy",
 "metadata": {"name": "mirror-images", "namespace": "team"},
 "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "free"}],
          "overrideRules": [{"overriders": {"plaintext": [
            {"path": "/spec/template/spec/containers/0/image", "operator": "replace",
             "value": "mirror.example/trainer:1"}]}}]}}
JSON
sleep "$SLOW" # its watch event reaches musterd's informer (nothing shows it over the API)
deploy contest 1
wait_until 20 "contest to be scheduled" is_eq True/Success rb_cond contest-deployment Scheduled
expect "$(op_of contest)" overridepolicy.policy.karmada.io/muster-contest-deployment \
    "a ClusterOverridePolicy on the scheduler: muster's policy kept"
k delete clusteroverridepolicy route-deployments >/dev/null
sleep "$SLOW"
deploy free 1
wait_until 20 "free to be scheduled" is_eq True/Success rb_cond free-deployment Scheduled
expect "$(op_of free)" "" "a user's policy on the image only: no policy"
finish
