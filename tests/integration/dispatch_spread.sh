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

start_sim "$FIX/two-clusters.yaml" --event-log "$TMP/events.log" --event-log-objects 1
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
uid=$(rbj spread-deployment '{.metadata.uid}')
for cl in east:$e west:$w; do
    c=${cl%%:*} n=${cl#*:}
    pgw=$(k get works -n "karmada-es-$c" -l "app.kubernetes.io/managed-by=muster" -o json)
    expect "$(jq '.items | length' <<<"$pgw")" 1 "one PodGroup Work in karmada-es-$c"
    # muster's own label, never Karmada's permanent id (issue 15: status aggregation aborts on
    # a permanent-id Work without the RB's resource), and Karmada's CreateOrUpdateWork shape.
    expect "$(jq -r '.items[0].metadata.labels["scheduling.muster.io/binding-uid"]' <<<"$pgw")" \
        "$uid" "$c PodGroup Work binding-uid"
    expect "$(jq -r '[.items[0], .items[0].spec.workload.manifests[0]] | map(.metadata.labels["resourcebinding.karmada.io/permanent-id"] // "none") | join(" ")' <<<"$pgw")" \
        "none none" "$c no permanent-id on the Work or its PodGroup"
    expect "$(jq -r '.items[0].metadata.finalizers | join(",")' <<<"$pgw")" \
        karmada.io/execution-controller "$c the execution controller's finalizer"
    expect "$(jq -r '.items[0].spec.suspendDispatching // false' <<<"$pgw")" false \
        "$c PodGroup Work never suspended"
    expect "$(jq -r '.items[0].spec.workload.manifests | length' <<<"$pgw")" 1 "$c one manifest"
    pg=$(jq -c '.items[0].spec.workload.manifests[0]' <<<"$pgw")
    expect "$(jq -r '[.metadata.labels["karmada.io/managed"], .metadata.annotations["work.karmada.io/name"], .metadata.annotations["work.karmada.io/namespace"]] | join(" ")' <<<"$pg")" \
        "true muster-pg-team.spread-deployment karmada-es-$c" "$c manifest marked as Karmada's"
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
# The order on the hub (the sim's event log): every PodGroup Work Applied before spec.clusters
# was set; the rendered Works never released before muster's policy was in them.
applied=$(jq -r --arg u "$uid" 'select(.resource == "works" and .object.metadata.labels["scheduling.muster.io/binding-uid"] == $u and ([.object.status.conditions[]? | select(.type == "Applied" and .status == "True")] | length) > 0) | "\(.namespace) \(.resourceVersion)"' "$TMP/events.log" |
    sort -k1,1 -k2,2n | awk '!seen[$1]++ {print $2}' | sort -n | tail -1)
placed=$(jq -r --arg u "$uid" 'select(.resource == "resourcebindings" and .object.metadata.uid == $u and (.object.spec.clusters // [] | length) > 0) | .resourceVersion | tonumber' "$TMP/events.log" | sort -n | head -1)
[ -n "$applied" ] && [ -n "$placed" ] && [ "$applied" -lt "$placed" ] ||
    dfail "PodGroup Works Applied (last at $applied) not all before spec.clusters (at $placed)"
released_bare=$(jq -r --arg p "$pid" 'select(.resource == "works" and .object.metadata.labels["resourcebinding.karmada.io/permanent-id"] == $p and (.object.spec.suspendDispatching // false) == false and ((.object.metadata.annotations["policy.karmada.io/applied-overrides"] // "[]") | fromjson | map(.policyName) | index("muster-spread-deployment")) == null) | .resourceVersion' "$TMP/events.log" | head -3)
expect "$released_bare" "" "no rendered Work released without muster's policy"
op=$(k get op -o json | jq -c '[.items[] | select(.metadata.labels["app.kubernetes.io/managed-by"] == "muster")]')
expect "$(jq 'length' <<<"$op")" 1 "one OverridePolicy"
expect "$(jq -r '.[0].spec.resourceSelectors[0] | .apiVersion + " " + .kind + " " + .namespace + " " + .name' <<<"$op")" \
    "apps/v1 Deployment team spread" "OverridePolicy selector"
expect "$(jq -r '[.[0].spec.overrideRules[] | .targetCluster // "every cluster"] | join(" ")' <<<"$op")" \
    "every cluster" "one rule for every cluster"
# The rendered Works carry muster's policy (the barrier check waited for it).
expect "$(k get works -A -l "resourcebinding.karmada.io/permanent-id=$pid" -o json | jq -r '[.items[].metadata.annotations["policy.karmada.io/applied-overrides"] | fromjson | map(.policyName) | index("muster-spread-deployment") != null] | unique | join(",")')" \
    true "muster's policy in every rendered Work"
# Running, as muster sees it, and the usage counted once.
wait_until 10 "state running" is_eq running \
    eval "curl -sf $API/api/v1/bindings/team/spread-deployment | jq -r .state"
expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 12 "q allocated"

# --- rule 10 (second half): deleting the Deployment releases its usage ---
k delete deploy spread >/dev/null
wait_until 10 "q usage to drop" is_eq 0 \
    eval "api GET /api/v1/queues/q | jq -r '.status.allocated[\"nvidia.com/gpu\"] // \"0\"'"
# muster deletes its PodGroup Works at once; Karmada deletes the member PodGroups through
# the finalizer.
wait_until 10 "muster's PodGroup Works to go" is_eq 0 \
    eval "k get works -A -l app.kubernetes.io/managed-by=muster -o name | wc -l"
wait_until 10 "every Work to go" is_eq 0 eval "k get works -A -o name | wc -l"
for c in east west; do
    expect "$(curl -sf "$BASE/debug/sim/clusters/$c/objects" | jq '[.items[] | select(.kind == "PodGroup")] | length')" \
        0 "no PodGroup left in $c"
done
# The policy outlives the release (deleting it would re-render Works); with the RB gone, the
# template's garbage collection or muster's orphan sweep (every 30 s, by binding uid) takes it.
wait_until 40 "the orphan OverridePolicy to go" is_eq 0 eval "k get op -o name | wc -l"
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
wait_until 10 "PodGroup Works deleted" is_eq 0 \
    eval "k get works -A -l app.kubernetes.io/managed-by=muster -o name | wc -l"
expect "$(k get op -o name | sort | tr '\n' ' ')" \
    "overridepolicy.policy.karmada.io/muster-spread-deployment overridepolicy.policy.karmada.io/zz-break-gang " \
    "muster's policy kept over the rollback"
expect "$(rbj spread-deployment '{.spec.suspension.dispatching}')" "" "barrier restored"
wait_until 10 "east's half to stop" is_eq "0 0" eval 'echo $(gpus east) $(gpus west)'
wait_until 10 "no Work left on any cluster" is_eq 0 eval "k get works -A -o name | wc -l"
for c in east west; do
    expect "$(curl -sf "$BASE/debug/sim/clusters/$c/objects" | jq '[.items[] | select(.kind == "PodGroup")] | length')" \
        0 "the rolled-back attempt's PodGroup gone from $c"
done
# The fault goes; the next attempt (after the back-off) dispatches the gang and it runs.
k delete op zz-break-gang >/dev/null
wait_until 30 "the second attempt to run" is_eq "Healthy Healthy" \
    rbj spread-deployment '{.status.aggregatedStatus[*].health}'
expect "$(rbj spread-deployment '{.spec.suspension.scheduling}')" false "second attempt lifted"
finish
