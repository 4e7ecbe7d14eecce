#!/usr/bin/env bash
# Issue 19, "each member gets the gang object it understands", musterd against muster-sim: east
# speaks Volcano, west coscheduling (tests/fixtures/dispatch/dialects.yaml). A spread gang over
# both gets a Volcano PodGroup in east and a scheduler-plugins PodGroup in west, each with
# minMember = that cluster's share, the pods pointed at them per cluster, and runs; then an
# operator sets west to YuniKorn through the admin API and a new gang gets YuniKorn's task-group
# annotations there instead of an object; set to none, west takes one pod of a spread gang and
# no more. Every write is checked against the CRDs.
# CASE workload-api: west speaks the Kubernetes Workload API instead (dialects-workload-api.yaml),
# as Kubernetes 1.37 serves it: the spread gang gets a Volcano PodGroup in east and a
# scheduling.k8s.io/v1beta1 PodGroup in west (gang.minCount = west's share; checked against the
# schema written from Kubernetes' types.go), west's pods name it in
# spec.schedulingGroup.podGroupName, both run, west's PodGroup reports
# PodGroupInitiallyScheduled; the gangDialect override accepts and shows workload-api.
# CASE workload-api-v1alpha2: the same with west and the hub on Kubernetes 1.36
# (workloadAPI: v1alpha2, hubWorkloadAPI: v1alpha2): a scheduling.k8s.io/v1alpha2 PodGroup that
# reports PodGroupScheduled; east overridden to workload-api would get v1beta1 (its
# apiEnablements list neither).
# Usage: dispatch_dialects.sh MUSTER_SIM MUSTERD SOURCE_DIR
#        [coscheduling|workload-api|workload-api-v1alpha2]
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3 CASE=${4:-coscheduling}
NAME=dispatch_dialects_$CASE TEST_NS=team
[ "$CASE" == coscheduling ] && NAME=dispatch_dialects
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

case $CASE in
coscheduling) start_sim "$FIX/dialects.yaml" ;;
workload-api) start_sim "$FIX/dialects-workload-api.yaml" ;;
workload-api-v1alpha2)
    { echo "hubWorkloadAPI: v1alpha2"; sed 's/workloadAPI: true/workloadAPI: v1alpha2/' \
        "$FIX/dialects-workload-api.yaml"; } >"$TMP/dialects-v1alpha2.yaml"
    start_sim "$TMP/dialects-v1alpha2.yaml"
    ;;
*) dfail "CASE: coscheduling, workload-api or workload-api-v1alpha2" ;;
esac
# the Workload API version west serves and the condition its kube-scheduler sets
WLV=v1beta1 WLCOND=PodGroupInitiallyScheduled
[ "$CASE" == workload-api-v1alpha2 ] && WLV=v1alpha2 WLCOND=PodGroupScheduled
start_musterd
queue q root '{"nvidia.com/gpu":"16"}' '"gangTimeoutSeconds":30'

# --- each member's dialect, detected from status.apiEnablements ---
dialect() { api GET "/api/v1/clusters/$1" | jq -r '.gangDialect + "/" + .gangDialectSource'; }
WEST=coscheduling
[ "$CASE" != coscheduling ] && WEST=workload-api
wait_until 10 "west detected as $WEST" is_eq "$WEST/detected" dialect west
expect "$(dialect east)" volcano/detected "east's dialect"

# own_work CLUSTER GANG: muster's PodGroup Work for the gang's RB in CLUSTER (JSON, or "null")
own_work() {
    k get works -n "karmada-es-$1" -l app.kubernetes.io/managed-by=muster -o json |
        jq -c --arg n "muster-pg-team.$2-deployment" '[.items[] | select(.metadata.name == $n)][0]'
}
# pod_tmpl CLUSTER GANG: the pod template Karmada rendered for CLUSTER (the OverridePolicy in)
pod_tmpl() {
    local pid
    pid=$(rbj "$2-deployment" '{.metadata.labels.resourcebinding\.karmada\.io/permanent-id}')
    k get works -n "karmada-es-$1" -l "resourcebinding.karmada.io/permanent-id=$pid" -o json |
        jq -c '[.items[] | select(.metadata.labels["app.kubernetes.io/managed-by"] != "muster")][0].spec.workload.manifests[0].spec.template'
}
# member_pg CLUSTER GANG: the PodGroup as the member holds it
member_pg() {
    curl -sf "$BASE/debug/sim/clusters/$1/objects" |
        jq -c --arg n "muster-$2-deployment" '[.items[] | select(.kind == "PodGroup" and .metadata.name == $n)][0]'
}
# share CLUSTER GANG: the cluster's replicas in the RB's spec.clusters
share() { rb_clusters "$2-deployment" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

if [ "$CASE" != coscheduling ]; then
    expect "$(api GET /api/v1/clusters/west | jq -r .workloadAPIVersion)" "scheduling.k8s.io/$WLV" \
        "west's Workload API version"
    expect "$(api GET /api/v1/clusters/east | jq -r '.workloadAPIVersion // "none"')" none \
        "no Workload API version for a Volcano member"
    # --- a spread gang over a Volcano member and a Workload API member ---
    k create -f "$FIX/spread-deploy.yaml" >/dev/null
    wait_until 30 "the spread gang to run" is_eq "Healthy Healthy" \
        rbj spread-deployment '{.status.aggregatedStatus[*].health}'
    e=$(share east spread) w=$(share west spread)
    [ -n "$e" ] && [ -n "$w" ] && [ $((e + w)) == 6 ] || dfail "spec.clusters: $(rb_clusters spread-deployment)"
    pg=$(member_pg east spread)
    expect "$(jq -r '.apiVersion + " " + (.spec.minMember|tostring)' <<<"$pg")" \
        "scheduling.volcano.sh/v1beta1 $e" "east: a Volcano PodGroup of its share"
    # west: the Workload API's PodGroup, gang.minCount = its share, nothing else in its spec
    pg=$(member_pg west spread)
    expect "$(jq -r '.apiVersion + " " + (.spec.schedulingPolicy.gang.minCount|tostring) + " " + (.spec | keys | join(","))' <<<"$pg")" \
        "scheduling.k8s.io/$WLV $w schedulingPolicy" "west: a Workload API PodGroup of its share"
    t=$(pod_tmpl west spread)
    expect "$(jq -r '[.spec.schedulingGroup.podGroupName, (.spec.schedulerName // "default"), (.metadata.annotations["scheduling.k8s.io/group-name"] // "none"), (.metadata.labels["scheduling.x-k8s.io/pod-group"] // "none")] | join(" ")' <<<"$t")" \
        "muster-spread-deployment default none none" "west: pods name the Workload API PodGroup"
    t=$(pod_tmpl east spread)
    expect "$(jq -r '[(.spec.schedulingGroup.podGroupName // "none"), .spec.schedulerName] | join(" ")' <<<"$t")" \
        "none volcano" "east: pods keep to Volcano"
    expect "$(own_work east spread | jq -r '.status.manifestStatuses[0].status.phase')" Running \
        "east PodGroup Running"
    expect "$(own_work west spread | jq -r --arg c "$WLCOND" '.status.manifestStatuses[0].status.conditions[] | select(.type == $c) | .status + "/" + .reason')" \
        True/Scheduled "west PodGroup scheduled ($WLCOND)"
    expect "$(api GET /api/v1/bindings/team/spread-deployment | jq -r .state)" running "the gang runs"
    op=$(k get op muster-spread-deployment -o json)
    expect "$(jq -r '[.spec.overrideRules[].targetCluster.clusterNames[0]] | sort | join(" ")' <<<"$op")" \
        "east west" "one rule per member dialect"
    # musterctl get clusters shows each member's dialect
    ctl=$(dirname "$MUSTERD")/musterctl
    [ -x "$ctl" ] || dfail "no musterctl beside musterd"
    expect "$(MUSTER_SERVER=$API "$ctl" get clusters | awk '$1 == "west" || $1 == "east" {print $1 "=" $3}' | sort | tr '\n' ' ')" \
        "east=volcano west=workload-api " "musterctl get clusters: DIALECT"
    # the override: set, shown, and detection back
    expect "$(api PATCH /api/v1/clusters/east '{"gangDialect":"workload-api"}' | jq -r '.gangDialect + "/" + .gangDialectSource + " " + .workloadAPIVersion')" \
        "workload-api/override scheduling.k8s.io/v1beta1" "east overridden (its apiEnablements list no Workload API: v1beta1)"
    expect "$(api PATCH /api/v1/clusters/east '{"gangDialect":null}' | jq -r '.gangDialect + "/" + .gangDialectSource')" \
        volcano/detected "east detected again"
    k delete deployment spread >/dev/null
    wait_until 20 "the gang's Works to go" is_eq null own_work west spread
    finish
    exit 0
fi

# --- a spread gang over a Volcano member and a coscheduling member ---
k create -f "$FIX/spread-deploy.yaml" >/dev/null
wait_until 30 "the spread gang to run" is_eq "Healthy Healthy" \
    rbj spread-deployment '{.status.aggregatedStatus[*].health}'
e=$(share east spread) w=$(share west spread)
[ -n "$e" ] && [ -n "$w" ] && [ $((e + w)) == 6 ] || dfail "spec.clusters: $(rb_clusters spread-deployment)"
expect "$(rb_cond spread-deployment Scheduled)" True/Success "Scheduled"
# east: Volcano's PodGroup, the group-name annotation and schedulerName volcano
pg=$(member_pg east spread)
expect "$(jq -r '.apiVersion + " " + (.spec.minMember|tostring) + " " + .spec.queue' <<<"$pg")" \
    "scheduling.volcano.sh/v1beta1 $e q" "east: a Volcano PodGroup of its share"
t=$(pod_tmpl east spread)
expect "$(jq -r '[.metadata.annotations["scheduling.k8s.io/group-name"], .spec.schedulerName, (.metadata.labels["scheduling.x-k8s.io/pod-group"] // "none")] | join(" ")' <<<"$t")" \
    "muster-spread-deployment volcano none" "east: pods point at the Volcano group"
# west: scheduler-plugins' PodGroup (no queue: its type has none; the gang timeout), the
# pod-group label, the template's own scheduler
pg=$(member_pg west spread)
expect "$(jq -r '.apiVersion + " " + (.spec.minMember|tostring) + " " + (.spec.queue // "none") + " " + (.spec.scheduleTimeoutSeconds|tostring) + " " + .spec.minResources["nvidia.com/gpu"]' <<<"$pg")" \
    "scheduling.x-k8s.io/v1alpha1 $w none 30 $((2 * w))" "west: a coscheduling PodGroup of its share"
t=$(pod_tmpl west spread)
expect "$(jq -r '[.metadata.labels["scheduling.x-k8s.io/pod-group"], .metadata.labels.app, (.spec.schedulerName // "default"), (.metadata.annotations["scheduling.k8s.io/group-name"] // "none")] | join(" ")' <<<"$t")" \
    "muster-spread-deployment spread default none" "west: pods labelled with the coscheduling group"
# each member's PodGroup reported Running through its Work (Karmada reflects the status)
expect "$(own_work east spread | jq -r '.status.manifestStatuses[0].status.phase')" Running \
    "east PodGroup Running"
expect "$(own_work west spread | jq -r '.status.manifestStatuses[0].status.phase')" Running \
    "west PodGroup Running"
op=$(k get op muster-spread-deployment -o json)
expect "$(jq -r '[.spec.overrideRules[].targetCluster.clusterNames[0]] | sort | join(" ")' <<<"$op")" \
    "east west" "one rule per member dialect"

# --- the operator overrides west to YuniKorn ---
code=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
    --data '{"gangDialect":"slurm"}' "$API/api/v1/clusters/west")
expect "$code" 422 "a dialect muster does not know"
expect "$(api PATCH /api/v1/clusters/west '{"gangDialect":"yunikorn"}' | jq -r '.gangDialect + "/" + .gangDialectSource')" \
    yunikorn/override "west overridden"
expect "$(api GET '/api/v1/audit' | jq -r '[.items[] | select(.action == "cluster.patch")][0] | .object + " " + .after.gangDialect')" \
    "clusters/west yunikorn" "the override audited"
k delete deployment spread >/dev/null
wait_until 20 "the first gang's Works to go" is_eq null own_work east spread
sed 's/name: spread$/name: second/; s/app: spread/app: second/g' "$FIX/spread-deploy.yaml" |
    k create -f - >/dev/null
wait_until 30 "the second gang to run" is_eq "Healthy Healthy" \
    rbj second-deployment '{.status.aggregatedStatus[*].health}'
e=$(share east second) w=$(share west second)
[ -n "$e" ] && [ -n "$w" ] && [ $((e + w)) == 6 ] || dfail "spec.clusters: $(rb_clusters second-deployment)"
expect "$(own_work west second)" null "west: no PodGroup Work for YuniKorn"
expect "$(member_pg west second)" null "west: no PodGroup in the member"
expect "$(member_pg east second | jq -r '.spec.minMember')" "$e" "east keeps its Volcano PodGroup"
t=$(pod_tmpl west second)
expect "$(jq -r '[.spec.schedulerName, .metadata.annotations["yunikorn.apache.org/task-group-name"], .metadata.annotations["yunikorn.apache.org/app-id"], .metadata.annotations["yunikorn.apache.org/schedulingPolicyParameters"]] | join("|")' <<<"$t")" \
    "yunikorn|muster|muster-pg-team.second-deployment|placeholderTimeoutInSeconds=30 gangSchedulingStyle=Hard" \
    "west: YuniKorn's annotations"
tg=$(jq -r '.metadata.annotations["yunikorn.apache.org/task-groups"]' <<<"$t")
expect "$(jq -r '.[0] | .name + " " + (.minMember|tostring) + " " + .minResource["nvidia.com/gpu"]' <<<"$tg")" \
    "muster $w 2" "west: one task group of its share"
# --- west speaks no dialect: it takes one pod of a spread gang (a share of one needs no gang) ---
expect "$(api PATCH /api/v1/clusters/west '{"gangDialect":"none"}' | jq -r .gangDialect)" none \
    "west overridden to none"
k delete deployment second >/dev/null
wait_until 20 "the second gang's Works to go" is_eq null own_work east second
# five pods of 2 GPUs: east's two 4-GPU nodes hold four, west may take only one
sed 's/name: spread$/name: third/; s/app: spread/app: third/g; s/replicas: 6/replicas: 5/' \
    "$FIX/spread-deploy.yaml" | k create -f - >/dev/null
wait_until 30 "the third gang to run" is_eq "Healthy Healthy" \
    rbj third-deployment '{.status.aggregatedStatus[*].health}'
expect "$(share east third) $(share west third)" "4 1" "one pod in west"
expect "$(own_work west third)" null "west: no PodGroup Work"
expect "$(member_pg east third | jq -r '.spec.minMember')" 4 "east's Volcano PodGroup of 4"
t=$(pod_tmpl west third)
expect "$(jq -r '[(.spec.schedulerName // "default"), (.metadata.annotations // {} | keys | map(select(startswith("yunikorn") or startswith("scheduling.k8s.io"))) | length), (.metadata.labels["scheduling.x-k8s.io/pod-group"] // "none")] | join(" ")' <<<"$t")" \
    "default 0 none" "west: pods pointed at no gang"
# six would need two pods in west: it waits
k delete deployment third >/dev/null
wait_until 20 "the third gang's Works to go" is_eq null own_work east third
sed 's/name: spread$/name: fourth/; s/app: spread/app: fourth/g' "$FIX/spread-deploy.yaml" |
    k create -f - >/dev/null
wait_until 15 "the fourth gang to wait" is_eq False/NoClusterFit rb_cond fourth-deployment Scheduled
expect "$(rb_clusters fourth-deployment)" "" "fourth not placed"
m=$(rb_cond_msg fourth-deployment Scheduled)
[[ "$m" == *"west holds 1 (no gang dialect: one pod)"* ]] || dfail "fourth's reason: $m"
k delete deployment fourth >/dev/null
# back to detection
expect "$(api PATCH /api/v1/clusters/west '{"gangDialect":null}' | jq -r '.gangDialect + "/" + .gangDialectSource')" \
    coscheduling/detected "west detected again"
finish
