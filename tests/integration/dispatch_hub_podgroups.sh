#!/usr/bin/env bash
# Issue 19, the read side: any dialect defines the gang (docs/workload.md, "Gang dialects").
# (a) A Deployment of 4 whose pods name a Volcano PodGroup (annotation
#     scheduling.k8s.io/group-name) that is not on the hub yet waits, and its condition names the
#     PodGroup; once the PodGroup is created on the hub with minMember 3 (and queue q, which the
#     Deployment does not name), the binding is read again, queued in q and dispatched, and the
#     member's PodGroup says minMember 3.
# (b) The same with a coscheduling PodGroup (label scheduling.x-k8s.io/pod-group) created first
#     with minMember 3: kubectl creates and lists it on the hub, and the member's PodGroup says 3.
# (c) A YuniKorn Soft gang (task groups of 4, placeholderTimeoutInSeconds=2
#     gangSchedulingStyle=Soft) in a queue with room for 2 of its 4 replicas waits whole, then is
#     admitted without the gang guarantee once its timeout passed: its admission says so, it
#     runs at min-member 1 (1 replica, the rest waiting as a scale up) and the member's PodGroup
#     says minMember 1. A Hard gang of the same shape beside it still waits.
# (d) A Deployment whose pod spec names a Workload API PodGroup (Kubernetes 1.37,
#     scheduling.k8s.io/v1beta1, spec.schedulingGroup.podGroupName) with gang.minCount 2: the
#     member's PodGroup says minMember 2.
# Usage: dispatch_hub_podgroups.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_hub_podgroups TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"16"}'
queue small root '{"nvidia.com/gpu":"4"}'
state() { api GET "/api/v1/bindings/team/$1" | jq -r .state; }
# NAME REPLICAS POD_METADATA (flow YAML: the pod template's labels and annotations) [QUEUE_LABEL]
deploy() {
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: team
  labels: {app: $1${4:+, volcano.sh/queue-name: $4}}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: $3
    spec:
      containers:
        - {name: c, image: registry.example/c:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}
YAML
}

# (a) Volcano: the Deployment first, its PodGroup after
deploy vc 4 '{labels: {app: vc}, annotations: {scheduling.k8s.io/group-name: flyte-task-pg}}'
wait_until 20 "the Volcano gang to wait for its PodGroup" is_eq "False/Unschedulable" \
    rb_cond vc-deployment Scheduled
msg=$(rb_cond_msg vc-deployment Scheduled)
echo "$msg" | grep -q "waiting for the Volcano PodGroup team/flyte-task-pg" ||
    dfail "the condition names the PodGroup: $msg"
expect "$(rbj vc-deployment '{.spec.clusters}')" "" "no placement while it waits"
k create -f - >/dev/null <<'YAML'
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: flyte-task-pg, namespace: team}
spec: {minMember: 3, queue: q, minResources: {nvidia.com/gpu: "3"}}
YAML
wait_until 20 "the Volcano gang to run" is_eq running state vc-deployment
expect "$(api GET /api/v1/bindings/team/vc-deployment | jq -r .queue)" q \
    "the queue comes from the PodGroup's spec.queue"
cl=$(rbj vc-deployment '{.spec.clusters[0].name}')
wait_until 10 "the member's PodGroup" is_eq 3 member "$cl" PodGroup muster-vc-deployment .spec.minMember

# (b) coscheduling: the PodGroup first, through kubectl
k create -f - >/dev/null <<'YAML'
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: nginx, namespace: team}
spec: {minMember: 3, scheduleTimeoutSeconds: 10}
YAML
expect "$(k get podgroups.scheduling.x-k8s.io -o jsonpath='{.items[*].spec.minMember}')" 3 \
    "kubectl lists the hub's coscheduling PodGroup"
expect "$(k get cluster east -o jsonpath='{.status.apiEnablements[*].groupVersion}' | tr ' ' '\n' |
    grep -c -e scheduling.x-k8s.io -e scheduling.k8s.io/v1alpha2 -e scheduling.k8s.io/v1beta1 || true)" 0 \
    "a plain member serves neither hub-only gang API"
deploy cs 4 '{labels: {app: cs, scheduling.x-k8s.io/pod-group: nginx}}' q
wait_until 20 "the coscheduling gang to run" is_eq running state cs-deployment
cl=$(rbj cs-deployment '{.spec.clusters[0].name}')
wait_until 10 "the member's PodGroup" is_eq 3 member "$cl" PodGroup muster-cs-deployment .spec.minMember

# (d) the Workload API (Kubernetes 1.37, scheduling.k8s.io/v1beta1, the hub's version by default;
#     1.36's v1alpha2 is not served): the pod spec names the PodGroup, whose gang.minCount is
#     the gang
k create -f - >/dev/null <<'YAML'
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: training-pg-0, namespace: team}
spec:
  workloadRef: {workloadName: training, templateName: workers}
  schedulingPolicy: {gang: {minCount: 2}}
YAML
k create -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: wl, namespace: team, labels: {app: wl, volcano.sh/queue-name: q}}
spec:
  replicas: 4
  selector: {matchLabels: {app: wl}}
  template:
    metadata: {labels: {app: wl}}
    spec:
      schedulingGroup: {podGroupName: training-pg-0}
      containers:
        - {name: c, image: registry.example/c:1, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}
YAML
wait_until 20 "the Workload API gang to run" is_eq running state wl-deployment
cl=$(rbj wl-deployment '{.spec.clusters[0].name}')
wait_until 10 "the member's PodGroup" is_eq 2 member "$cl" PodGroup muster-wl-deployment .spec.minMember

# (c) YuniKorn: 4 x 1 GPU in a queue of 4 that a blocker holds 2 of
deploy blocker 2 '{labels: {app: blocker}}' small
wait_until 20 "the blocker to run" is_eq running state blocker-deployment
yk() { # NAME STYLE
    deploy "$1" 4 "{labels: {app: $1}, annotations: {yunikorn.apache.org/task-group-name: tg,
      yunikorn.apache.org/schedulingPolicyParameters: 'placeholderTimeoutInSeconds=2 gangSchedulingStyle=$2',
      yunikorn.apache.org/task-groups: '[{\"name\": \"tg\", \"minMember\": 4, \"minResource\": {\"cpu\": \"1\", \"nvidia.com/gpu\": \"1\"}}]'}}" small
}
yk hard Hard
wait_until 10 "the Hard gang to wait" is_eq "False/QuotaExceeded" rb_cond hard-deployment Scheduled
yk soft Soft
wait_until 20 "the Soft gang to run without its guarantee" is_eq running state soft-deployment
DUMP=/api/v1/bindings/team/soft-deployment
api GET $DUMP | jq -e '[.history[].reason] | any(test("admitted without the gang guarantee \\(min-member 1\\): YuniKorn gangSchedulingStyle Soft, its placeholder timeout of 2 s passed; 1 of 4 replicas"))' \
    >/dev/null || dfail "the admission says why: $(api GET $DUMP | jq -c '.history')"
# admitted no sooner than its timeout after its creation (the ledger's own times)
api GET $DUMP | jq -e '.admittedAtMs - .createdAtMs >= 2000' >/dev/null ||
    dfail "admitted before its placeholder timeout: $(api GET $DUMP | jq -c '[.createdAtMs, .admittedAtMs]')"
cl=$(rbj soft-deployment '{.spec.clusters[0].name}')
expect "$(rb_clusters soft-deployment)" "$cl=1 " "placed at min-member 1"
wait_until 10 "the member's PodGroup" is_eq 1 member "$cl" PodGroup muster-soft-deployment .spec.minMember
expect "$(state hard-deployment)" pending "the Hard gang still waits whole"
expect "$(rbj hard-deployment '{.spec.clusters}')" "" "the Hard gang has no placement"
finish
