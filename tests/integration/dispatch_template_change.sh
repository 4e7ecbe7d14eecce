#!/usr/bin/env bash
# Issue 15, musterd against muster-sim: the template's labels change in the middle of a dispatch.
# Karmada's detector then re-applies the PropagationPolicy, which resets the RB's
# spec.suspension.dispatching (MergePolicySuspension), so the RB's own barrier vanishes and the
# binding controller renders the Works unsuspended. The OverridePolicy is not in them yet (the
# override manager renders from a cache, here 4 s behind): musterd, which judges the barrier on
# the rendered Works before it lifts anything, rolls the gang back instead of lifting, and the
# next attempt runs with the policy in every Work. Every write is checked against the CRDs.
# Usage: dispatch_template_change.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_template_change TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml" --override-cache-lag-ms 4000
start_musterd
queue q root '{"nvidia.com/gpu":"16"}' '"gangTimeoutSeconds":60'
DUMP=/api/v1/bindings/team/spread-deployment

k create -f "$FIX/spread-deploy.yaml" >/dev/null
# spec.clusters is set (step 3) while the barrier check waits for the policy to be rendered in:
# the RB is still held, the Works Karmada rendered suspended.
wait_until 15 "spec.clusters set, still held" eval \
    "[ -n \"\$(rb_clusters spread-deployment)\" ] && [ \"\$(rbj spread-deployment '{.spec.suspension.scheduling}')\" == true ]"
pid=$(rbj spread-deployment '{.metadata.labels.resourcebinding\.karmada\.io/permanent-id}')
rendered() { k get works -A -l "resourcebinding.karmada.io/permanent-id=$pid" -o json; }
expect "$(rendered | jq -r '[.items[].spec.suspendDispatching] | unique | join(",")')" true \
    "the rendered Works suspended while the policy is not in them"
expect "$(api GET $DUMP | jq -r .state)" admitted "not lifted before the policy is rendered in"
# muster's PodGroup Works were created unsuspended and Applied before spec.clusters was set.
expect "$(k get works -A -l app.kubernetes.io/managed-by=muster -o json | jq -r '[.items[] | (.spec.suspendDispatching // false | tostring) + "/" + ([.status.conditions[]? | select(.type == "Applied") | .status] | join(""))] | unique | join(",")')" \
    false/True "PodGroup Works unsuspended and Applied"

# --- a user relabels the Deployment mid-dispatch ---
k label deploy spread team.example/tier=gold >/dev/null
wait_until 15 "the rollback" eval "api GET $DUMP | jq -e '.history | map(select(.state == \"rolledback\")) | length > 0'"
hist=$(api GET $DUMP)
jq -e '.history | map(select(.state == "rolledback"))[0].reason | test("barrier vanished")' <<<"$hist" \
    >/dev/null || dfail "rollback reason: $hist"
echo "rolled back: $(jq -r '.history | map(select(.state == "rolledback"))[0].reason' <<<"$hist")"
expect "$(curl -sf "$API/metrics" | sed -n 's/^muster_rollbacks_total{reason="barrier-vanished"} //p')" 1 \
    "counted as barrier-vanished"
wait_until 10 "the hub to be rolled back" is_eq "true|" \
    rbj spread-deployment '{.spec.suspension.scheduling}|{.spec.clusters}'

# --- the next attempt (after the 10 s back-off) finds the policy rendered in, and runs ---
wait_until 40 "the second attempt to run" is_eq running eval "api GET $DUMP | jq -r .state"
expect "$(rendered | jq -r '[.items[].metadata.annotations["policy.karmada.io/applied-overrides"] | fromjson | map(.policyName) | index("muster-spread-deployment") != null] | unique | join(",")')" \
    true "muster's policy in every rendered Work"
expect "$(rendered | jq -r '[.items[].spec.workload.manifests[0].spec.template.metadata.annotations["scheduling.k8s.io/group-name"]] | unique | join(",")')" \
    muster-spread-deployment "every share's pods name the gang's PodGroup"
expect "$(k get works -A -l app.kubernetes.io/managed-by=muster -o json | jq -r '[.items[].status.manifestStatuses[0].status.phase] | unique | join(",")')" \
    Running "every member PodGroup Running"
expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 12 "q allocated once"
finish
