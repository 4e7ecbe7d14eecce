#!/usr/bin/env bash
# Issue 8 and 15, musterd against muster-sim: the OverridePolicy fault. muster's OverridePolicy
# is deleted right after a spread gang is dispatched; the hub's binding controller renders the
# Works again without the group-name annotation and the scheduler, so the pods no longer point
# at their PodGroup: they start one by one outside the gang (Karmada calls the Deployment
# Healthy), while each member PodGroup, which no pod joins, never runs. muster reads a share as
# running only from its PodGroup's phase, so it rolls the gang back after the gang timeout; the
# next attempt writes the policy again and runs (rule 5). To delete the policy
# before any pod can start, a user's dispatchingOnClusters holds the Works while it is deleted
# (the gang timeout counts from when the user lets them go, rule 6). See docs/testing.md.
# Usage: dispatch_opfault.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_opfault TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
# Closed until the user's hold is on the RB, so nothing is dispatched before it.
# The gang timeout is 3 s (9 s under ASan, where the checks between the hold's release and the
# rollback take longer).
queue q root '{"nvidia.com/gpu":"16"}' "\"state\":\"Closed\",\"gangTimeoutSeconds\":$((3 * SLOW))"
DUMP=/api/v1/bindings/team/spread-deployment
OP=muster-spread-deployment

k create -f "$FIX/spread-deploy.yaml" >/dev/null
wait_until 10 "the RB" eval "k get rb spread-deployment -o name"
k patch rb spread-deployment --type merge \
    -p '{"spec":{"suspension":{"dispatchingOnClusters":{"clusterNames":["east","west"]}}}}' >/dev/null
api PATCH /api/v1/queues/q '{"state":"Open"}' >/dev/null
wait_until 15 "the gang to be dispatched" is_eq True/Success rb_cond spread-deployment Scheduled
wait_until 10 "muster's OverridePolicy" eval "k get op $OP -o name"
works() { # the RB's own Works (not muster's PodGroup Works), as JSON
    k get works -A -o json | jq -c '[.items[] |
        select(.metadata.annotations["resourcebinding.karmada.io/name"] == "spread-deployment") |
        select(.metadata.labels["app.kubernetes.io/managed-by"] != "muster")]'
}
groups() { works | jq -r '[.[] | .spec.workload.manifests[0].spec.template.metadata.annotations["scheduling.k8s.io/group-name"] // "none"] | join(" ")'; }
held() { works | jq -r '[.[].spec.suspendDispatching] | unique | join(",")'; }
expect "$(works | jq length)" 2 "a Work per cluster"
expect "$(held)" true "the user's hold keeps the Works suspended"
groups | grep -q none && dfail "the Works lack the group-name before the fault: $(groups)"

# --- the fault: muster's OverridePolicy goes; the hub renders the Works again without it ---
k delete overridepolicy -n team "$OP" >/dev/null
wait_until 10 "the Works to be rendered without the override" is_eq "none none" groups
expect "$(k get works -A -l app.kubernetes.io/managed-by=muster -o name | wc -l)" 2 \
    "muster's PodGroup Works still there"
# The user lets the Works go: the pods name no PodGroup, so neither share starts.
k patch rb spread-deployment --type merge \
    -p '{"spec":{"suspension":{"dispatchingOnClusters":null}}}' >/dev/null
wait_until 10 "the Works to be dispatched" is_eq "" held
gpus() {
    local v
    v=$(k get cluster "$1" -o jsonpath='{.status.resourceSummary.allocated.nvidia\.com/gpu}')
    echo "${v:-0}"
}
phases() { k get works -A -l app.kubernetes.io/managed-by=muster -o json |
    jq -r '[.items[].status.manifestStatuses[0].status.phase // "none"] | sort | join(" ")'; }
# "Healthy" says nothing about the gang: the PodGroups, which no pod names, are not Running.
wait_until 10 "both shares reported" eval \
    "rbj spread-deployment '{.status.aggregatedStatus[*].health}' | grep -q 'Healthy Healthy'"
phases | grep -q Running && dfail "a PodGroup no pod joins is Running: $(phases)"
expect "$(api GET $DUMP | jq -r .state)" dispatched "muster waits for the gang"

# --- the gang timeout: rolled back ---
wait_until 20 "the rollback" eval "api GET $DUMP | jq -e '.history | map(select(.state == \"rolledback\")) | length > 0'"
hist=$(api GET $DUMP)
jq -e '.history | map(select(.state == "rolledback"))[0].reason | test("gang timeout")' <<<"$hist" \
    >/dev/null || dfail "rollback reason: $hist"
wait_until 10 "the hub to be rolled back" is_eq "true|" \
    rbj spread-deployment '{.spec.suspension.scheduling}|{.spec.clusters}'
expect "$(rbj spread-deployment '{.spec.suspension.dispatching}')" "" "barrier restored"
wait_until 10 "the Works to go" is_eq 0 eval "k get works -A -o name | wc -l"
expect "$(k get op -o name | wc -l)" 0 "no OverridePolicy left"

# --- the next attempt (after the back-off) writes the policy again and runs ---
wait_until 30 "the second attempt to run" is_eq "Healthy Healthy" \
    rbj spread-deployment '{.status.aggregatedStatus[*].health}'
expect "$(k get op -o name)" "overridepolicy.policy.karmada.io/$OP" "muster's policy written again"
groups | grep -q none && dfail "the second attempt's Works lack the group-name: $(groups)"
[ $(($(gpus east) + $(gpus west))) == 12 ] || dfail "not the whole gang runs: $(gpus east)+$(gpus west)"
wait_until 10 "state running" is_eq running eval "api GET $DUMP | jq -r .state"
finish
