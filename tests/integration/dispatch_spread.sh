#!/usr/bin/env bash
# Issue 4 and issue 8, musterd against muster-sim: a spread gang lands whole across two clusters
# and runs only because of the PodGroup Works and the OverridePolicy muster wrote (rule 3); a
# gang whose pods cannot join their PodGroup stays Pending, is rolled back after the gang
# timeout and dispatched again once the fault is gone (rule 5); deleting the template releases
# the usage (rule 10). Every write is checked against the CRDs (rule 11). See docs/testing.md.
# Usage: dispatch_spread.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_spread TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"16"}' '"gangTimeoutSeconds":3'

# --- rule 3: a spread gang lands whole across two clusters ---
k create -f "$FIX/spread-deploy.yaml" >/dev/null
wait_until 20 "the spread gang to run" is_eq "Healthy Healthy" \
    rbj spread-deployment '{.status.aggregatedStatus[*].health}'
clusters=$(rb_clusters spread-deployment)
e=$(sed -n 's/.*east=\([0-9]*\).*/\1/p' <<<"$clusters")
w=$(sed -n 's/.*west=\([0-9]*\).*/\1/p' <<<"$clusters")
[ -n "$e" ] && [ -n "$w" ] && [ $((e + w)) == 6 ] || dfail "spec.clusters: [$clusters]"
expect "$(rbj spread-deployment '{.spec.suspension.scheduling}')" false "scheduling lifted"
expect "$(rbj spread-deployment '{.spec.suspension.dispatching}')" "" "barrier removed"
expect "$(rb_cond spread-deployment Scheduled)" True/Success "Scheduled"
pid=$(rbj spread-deployment '{.metadata.labels.resourcebinding\.karmada\.io/permanent-id}')
for cl in east:$e west:$w; do
    c=${cl%%:*} n=${cl#*:}
    pgw=$(k get works -n "karmada-es-$c" -l "app.kubernetes.io/managed-by=muster" -o json)
    expect "$(jq '.items | length' <<<"$pgw")" 1 "one PodGroup Work in karmada-es-$c"
    expect "$(jq -r '.items[0].metadata.labels["resourcebinding.karmada.io/permanent-id"]' <<<"$pgw")" \
        "$pid" "$c PodGroup Work permanent-id"
    expect "$(jq -r '.items[0].spec.workload.manifests | length' <<<"$pgw")" 1 "$c one manifest"
    pg=$(jq -c '.items[0].spec.workload.manifests[0]' <<<"$pgw")
    expect "$(jq -r '.kind + " " + (.spec.minMember|tostring) + " " + .spec.queue' <<<"$pg")" \
        "PodGroup $n q" "$c PodGroup minMember = share"
    expect "$(jq -r '.spec.minResources["nvidia.com/gpu"]' <<<"$pg")" $((2 * n)) "$c minResources"
    expect "$(jq -r '.items[0].status.manifestStatuses[0].status.phase' <<<"$pgw")" Running \
        "$c PodGroup Running"
    group=$(jq -r .metadata.name <<<"$pg")
    # The Deployment Work the binding controller rendered carries the override.
    dw=$(k get works -n "karmada-es-$c" -l "resourcebinding.karmada.io/permanent-id=$pid" -o json |
        jq -c '[.items[] | select(.metadata.labels["app.kubernetes.io/managed-by"] != "muster")]')
    expect "$(jq 'length' <<<"$dw")" 1 "$c one Deployment Work"
    expect "$(jq -r '.[0].spec.workload.manifests[0].spec.replicas' <<<"$dw")" "$n" "$c replicas"
    tmpl=$(jq -c '.[0].spec.workload.manifests[0].spec.template' <<<"$dw")
    expect "$(jq -r '.metadata.annotations["scheduling.k8s.io/group-name"]' <<<"$tmpl")" "$group" \
        "$c pod template group-name"
    expect "$(jq -r '.metadata.annotations["team.example/owner"]' <<<"$tmpl")" vision \
        "$c the template's own annotation kept"
    expect "$(jq -r '.spec.schedulerName' <<<"$tmpl")" volcano "$c pod schedulerName"
done
op=$(k get op -o json | jq -c '[.items[] | select(.metadata.labels["app.kubernetes.io/managed-by"] == "muster")]')
expect "$(jq 'length' <<<"$op")" 1 "one OverridePolicy"
expect "$(jq -r '.[0].spec.resourceSelectors[0] | .apiVersion + " " + .kind + " " + .namespace + " " + .name' <<<"$op")" \
    "apps/v1 Deployment team spread" "OverridePolicy selector"
expect "$(jq -r '[.[0].spec.overrideRules[].targetCluster.clusterNames | join(",")] | sort | join(" ")' <<<"$op")" \
    "east west" "one rule per cluster"
# Running, as muster sees it, and the usage counted once.
wait_until 10 "state running" is_eq running \
    eval "curl -sf $API/api/v1/bindings/team/spread-deployment | jq -r .state"
expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 12 "q allocated"

# --- rule 10 (second half): deleting the Deployment releases its usage ---
k delete deploy spread >/dev/null
wait_until 10 "q usage to drop" is_eq 0 \
    eval "api GET /api/v1/queues/q | jq -r '.status.allocated[\"nvidia.com/gpu\"] // \"0\"'"
wait_until 10 "the OverridePolicy to go" is_eq 0 eval "k get op -o name | wc -l"
expect "$(k get works -A -o name | wc -l)" 0 "no Works left"
hist=$(api GET /api/v1/bindings/team/spread-deployment)
jq -e '.state == "done" or .state == "released"' <<<"$hist" >/dev/null ||
    dfail "released binding: $hist"

DUMP=/api/v1/bindings/team/spread-deployment
# --- rule 5: a share that cannot start is rolled back, then dispatched again ---
k create -f "$FIX/break-gang-op.yaml" >/dev/null
k create -f "$FIX/spread-deploy.yaml" >/dev/null
wait_until 15 "the broken gang to be dispatched" is_eq "false" \
    rbj spread-deployment '{.spec.suspension.scheduling}'
sleep 1
agg() { rbj spread-deployment "{.status.aggregatedStatus[?(@.clusterName==\"$1\")].health}"; }
wait_until 10 "east's share to run" is_eq Healthy agg east
expect "$(agg west)" Unhealthy "west's share pending while its pods name no PodGroup"
gpus() {
    local v
    v=$(k get cluster "$1" -o jsonpath='{.status.resourceSummary.allocated.nvidia\.com/gpu}')
    echo "${v:-0}"
}
[ "$(gpus east)" -gt 0 ] || dfail "east's half of the gang is not running"
# The gang timeout is 3 s: the rollback follows.
wait_until 20 "the rollback" eval "api GET /api/v1/bindings/team/spread-deployment | jq -e '.history | map(select(.state == \"rolledback\")) | length > 0'"
hist=$(api GET /api/v1/bindings/team/spread-deployment)
jq -e '.history | map(select(.state == "rolledback"))[0].reason | test("gang timeout")' <<<"$hist" \
    >/dev/null || dfail "rollback reason: $hist"
wait_until 10 "the hub to be rolled back" is_eq "true|" \
    rbj spread-deployment '{.spec.suspension.scheduling}|{.spec.clusters}'
expect "$(k get works -A -l app.kubernetes.io/managed-by=muster -o name | wc -l)" 0 \
    "PodGroup Works deleted"
expect "$(k get op -o name)" "overridepolicy.policy.karmada.io/zz-break-gang" "muster's policy deleted"
expect "$(rbj spread-deployment '{.spec.suspension.dispatching}')" "" "barrier restored"
wait_until 10 "east's half to stop" is_eq "0 0" eval 'echo $(gpus east) $(gpus west)'
expect "$(k get works -A -o name | wc -l)" 0 "no Work left on any cluster"
# The fault goes; the next attempt (after the back-off) dispatches the gang and it runs.
k delete op zz-break-gang >/dev/null
wait_until 30 "the second attempt to run" is_eq "Healthy Healthy" \
    rbj spread-deployment '{.status.aggregatedStatus[*].health}'
expect "$(rbj spread-deployment '{.spec.suspension.scheduling}')" false "second attempt lifted"
finish
