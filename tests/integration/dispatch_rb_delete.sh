#!/usr/bin/env bash
# Issue 15, musterd against muster-sim: a running gang's ResourceBinding is deleted. Karmada's
# binding controller keeps it with its finalizer while it deletes its own Works, so musterd
# first sees only metadata.deletionTimestamp: the binding is released at once and muster's
# PodGroup Works are deleted right then (not at the next orphan sweep), and Karmada's execution
# controller removes the member PodGroups through their finalizer. (The queue is closed first, so
# an RB the detector may make again for the Deployment waits.) Every write is checked against
# the CRDs.
# Usage: dispatch_rb_delete.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_rb_delete TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"16"}'
DUMP=/api/v1/bindings/team/spread-deployment

k create -f "$FIX/spread-deploy.yaml" >/dev/null
wait_until 20 "the gang to run" is_eq running eval "api GET $DUMP | jq -r .state"
uid=$(rbj spread-deployment '{.metadata.uid}')
pgs() { # member PodGroups, east + west
    local n=0 c
    for c in east west; do
        n=$((n + $(curl -sf "$BASE/debug/sim/clusters/$c/objects" | jq '[.items[] | select(.kind == "PodGroup")] | length')))
    done
    echo $n
}
expect "$(pgs)" 2 "a PodGroup in each member"
expect "$(rbj spread-deployment '{.metadata.finalizers}')" '["karmada.io/binding-controller"]' \
    "Karmada's binding-controller finalizer on the RB"
# Nothing new is admitted: the Deployment's next RB waits.
api PATCH /api/v1/queues/q '{"state":"Closed"}' >/dev/null

# --- the RB is deleted mid-run ---
# Another finalizer (someone else's controller) keeps the RB after Karmada's own is gone, so the
# RB only carries metadata.deletionTimestamp all through: muster must act on that alone.
k patch rb spread-deployment --type merge \
    -p '{"metadata":{"finalizers":["karmada.io/binding-controller","test.muster.io/hold"]}}' >/dev/null
k delete rb spread-deployment --wait=false >/dev/null
wait_until 10 "the RB to carry a deletionTimestamp" eval \
    "[ -n \"\$(rbj spread-deployment '{.metadata.deletionTimestamp}')\" ]"
wait_until 10 "the binding to be released" eval \
    "api GET /api/v1/bindings?queue=q | jq -e '[.items[] | select(.uid == \"$uid\" and .state == \"running\")] | length == 0'"
wait_until 10 "muster's PodGroup Works to go" is_eq 0 \
    eval "k get works -A -l scheduling.muster.io/binding-uid=$uid -o name | wc -l"
wait_until 10 "the member PodGroups to go" is_eq 0 pgs
wait_until 10 "q usage to drop" is_eq 0 \
    eval "api GET /api/v1/queues/q | jq -r '.status.allocated[\"nvidia.com/gpu\"] // \"0\"'"
expect "$(rbj spread-deployment '{.metadata.uid}')" "$uid" "the RB still there, being deleted"
k patch rb spread-deployment --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null
# (Whether the detector makes a new RB for the Deployment that still exists is Karmada's
# business; the closed queue keeps one from running.)
api PATCH /api/v1/queues/q '{"state":"Open"}' >/dev/null
k delete deploy spread >/dev/null
finish
