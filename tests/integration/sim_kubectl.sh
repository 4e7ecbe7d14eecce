#!/usr/bin/env bash
# The real kubectl against muster-sim over a loopback socket: discovery, create, get, watch,
# merge/JSON/status patches, conflicts, selectors, paging, delete, 410 on old watches, and a
# clean exit on SIGTERM. Usage: sim_kubectl.sh PATH/TO/muster-sim FIXTURE_DIR
set -euo pipefail

SIM=$1
FIX=$2
NAME=sim_kubectl
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# expect_match ACTUAL REGEX WHAT
expect_match() {
    [[ "$1" =~ $2 ]] || fail "$3: [$1] does not match /$2/"
}

"$SIM" --listen 127.0.0.1:0 --bookmark-interval 1 --history 50 >"$TMP/sim.out" 2>"$TMP/sim.err" &
SIM_PID=$!
wait_port "$TMP/sim.out" http

cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: sim
  cluster:
    server: $BASE
contexts:
- name: sim
  context:
    cluster: sim
    user: sim
    namespace: default
current-context: sim
users:
- name: sim
  user: {}
YAML

k() { kubectl --request-timeout=10s "$@"; }

# --- discovery: kubectl falls back from aggregated discovery and lists every resource ---
res=$(k api-resources --no-headers | tr -s ' ')
for line in "resourcebindings rb work.karmada.io/v1alpha2 true ResourceBinding" \
            "clusterresourcebindings crb work.karmada.io/v1alpha2 false ClusterResourceBinding" \
            "works wk work.karmada.io/v1alpha1 true Work" \
            "clusters cluster.karmada.io/v1alpha1 false Cluster" \
            "overridepolicies op policy.karmada.io/v1alpha1 true OverridePolicy" \
            "clusteroverridepolicies cop policy.karmada.io/v1alpha1 false ClusterOverridePolicy" \
            "propagationpolicies pp policy.karmada.io/v1alpha1 true PropagationPolicy" \
            "jobs vcjob,vj batch.volcano.sh/v1alpha1 true Job" \
            "podgroups pg,podgroup-v1beta1 scheduling.volcano.sh/v1beta1 true PodGroup" \
            "queues q,queue-v1beta1 scheduling.volcano.sh/v1beta1 false Queue" \
            "priorityclasses pc scheduling.k8s.io/v1 false PriorityClass" \
            "deployments deploy apps/v1 true Deployment" \
            "statefulsets sts apps/v1 true StatefulSet" \
            "jobs batch/v1 true Job" \
            "leases coordination.k8s.io/v1 true Lease" \
            "namespaces ns v1 false Namespace" \
            "events ev v1 true Event" \
            "pods po v1 true Pod" \
            "secrets v1 true Secret" \
            "serviceaccounts sa v1 true ServiceAccount" \
            "services svc v1 true Service" \
            "persistentvolumeclaims pvc v1 true PersistentVolumeClaim" \
            "clusterroles rbac.authorization.k8s.io/v1 false ClusterRole" \
            "clusterrolebindings rbac.authorization.k8s.io/v1 false ClusterRoleBinding" \
            "mutatingwebhookconfigurations admissionregistration.k8s.io/v1 false MutatingWebhookConfiguration" \
            "jobsets jobset.x-k8s.io/v1alpha2 true JobSet" \
            "leaderworkersets lws leaderworkerset.x-k8s.io/v1 true LeaderWorkerSet" \
            "pytorchjobs kubeflow.org/v1 true PyTorchJob" \
            "mpijobs kubeflow.org/v1 true MPIJob" \
            "rayclusters ray.io/v1 true RayCluster" \
            "rayjobs ray.io/v1 true RayJob" \
            "trainjobs trainer.kubeflow.org/v1alpha1 true TrainJob" \
            "trainingruntimes trainer.kubeflow.org/v1alpha1 true TrainingRuntime" \
            "clustertrainingruntimes trainer.kubeflow.org/v1alpha1 false ClusterTrainingRuntime" \
            "podgroups pg,pgs scheduling.x-k8s.io/v1alpha1 true PodGroup" \
            "podgroups scheduling.k8s.io/v1beta1 true PodGroup" \
            "workloads scheduling.k8s.io/v1beta1 true Workload" \
            "hypernodes hn topology.volcano.sh/v1alpha1 false HyperNode"; do
    grep -qxF "$line" <<<"$res" || fail "api-resources lacks [$line]; got:
$res"
done
expect "$(wc -l <<<"$res" | tr -d ' ')" 38 "api-resources count"
expect "$(k api-resources --api-group=work.karmada.io -o name | sort | tr '\n' ' ')" \
    "clusterresourcebindings.work.karmada.io resourcebindings.work.karmada.io works.work.karmada.io " \
    "api-resources -o name"
expect "$(k version -o json | grep -o '"gitVersion": "[^"]*"' | tail -1)" \
    '"gitVersion": "v1.32.0-muster-sim"' "server version"

# --- create ---
expect "$(k create -f "$FIX/rb-train.yaml")" \
    "resourcebinding.work.karmada.io/train-deployment created" "create"
out=$(k create -f "$FIX/rb-train.yaml" 2>&1 || true)
expect_match "$out" '^Error from server \(AlreadyExists\): error when creating ".*rb-train.yaml": resourcebindings.work.karmada.io "train-deployment" already exists$' \
    "second create"

# --- get -o json: server-set fields exact, status dropped on create ---
jp() { k get rb train-deployment -o jsonpath="$1"; }
expect "$(jp '{.metadata.generation}')" 1 "generation after create"
expect_match "$(jp '{.metadata.uid}')" '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' "uid"
expect_match "$(jp '{.metadata.creationTimestamp}')" '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' "creationTimestamp"
rv1=$(jp '{.metadata.resourceVersion}')
expect_match "$rv1" '^[0-9]+$' "resourceVersion"
expect "$(jp '{.status}')" "" "status is dropped on create (status subresource)"
json=$(k get rb -o json)
expect_match "$json" '"kind": "List"' "get -o json list kind"
expect "$(k get rb -o jsonpath='{.items[*].metadata.name}')" "train-deployment" "list names"
expect "$(k get rb -o jsonpath='{.items[0].spec.replicaRequirements.resourceRequest.nvidia\.com/gpu}')" \
    "1" "nested spec field"
expect "$(k get rb -o jsonpath='{.items[0].metadata.labels.resourcebinding\.karmada\.io/permanent-id}')" \
    "5f0c1a2e-7a4b-4c39-9d2e-3b1f6a8c9d01" "permanent-id label"
out=$(k get rb nope 2>&1 || true)
expect "$out" 'Error from server (NotFound): resourcebindings.work.karmada.io "nope" not found' "get missing"

# --- watch in the background, then change the object ---
k get rb --watch-only --output-watch-events \
    -o jsonpath='{.type} {.object.metadata.name} {.object.metadata.generation} {.object.spec.suspension.scheduling} {.object.spec.replicas} {.object.status.schedulerObservedGeneration}{"\n"}' \
    >"$TMP/watch.out" 2>"$TMP/watch.err" &
WATCH_PID=$!
# Wait until the watch is registered (kubectl lists first, then watches): the server reports
# its live watchers.
# (A captured string, not a pipe: with pipefail, grep -q closing early fails the pipeline.)
watching=
for _ in $(seq 200); do
    dbg=$(curl -sf "$BASE/debug/sim/events?since=999999999")
    if [[ "$dbg" == *'"watchers":1,'* ]]; then
        watching=yes
        break
    fi
    sleep 0.05
done
[ -n "$watching" ] || fail "kubectl get -w did not start watching"

expect "$(k patch rb train-deployment --type merge -p '{"spec":{"suspension":{"scheduling":false}}}')" \
    "resourcebinding.work.karmada.io/train-deployment patched" "merge patch"
expect "$(jp '{.metadata.generation}')" 2 "generation after spec patch"
expect "$(jp '{.spec.suspension.scheduling}')" false "patched field"

# Status subresource: status changes, spec in the same patch is ignored, generation stays.
expect "$(k patch rb train-deployment --subresource=status --type merge \
    -p '{"status":{"schedulerObservedGeneration":2},"spec":{"replicas":9}}')" \
    "resourcebinding.work.karmada.io/train-deployment patched" "status patch"
expect "$(jp '{.status.schedulerObservedGeneration} {.spec.replicas} {.metadata.generation}')" \
    "2 4 2" "status patch effect"
# kubectl get prints the CRD's printer columns from the server's Table.
k patch rb train-deployment --subresource=status --type merge -p \
    '{"status":{"conditions":[{"type":"Scheduled","status":"False","reason":"QuotaExceeded","message":"queue vision is full","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
table=$(k get rb train-deployment | tr -s ' ')
expect "$(head -1 <<<"$table")" "NAME SCHEDULED FULLYAPPLIED AGE" "kubectl get table header"
expect_match "$(tail -1 <<<"$table")" '^train-deployment False [0-9]+s$' "kubectl get table row"
expect "$(k get rb | tr -s ' ' | head -1)" "NAME SCHEDULED FULLYAPPLIED AGE" "table for lists"
# A status written through the main resource is ignored (no new version either).
rv_before=$(jp '{.metadata.resourceVersion}')
out=$(k patch rb train-deployment --type merge -p '{"status":{"schedulerObservedGeneration":5}}')
expect "$out" "resourcebinding.work.karmada.io/train-deployment patched (no change)" "main status patch"
expect "$(jp '{.status.schedulerObservedGeneration} {.metadata.resourceVersion}')" \
    "2 $rv_before" "main-resource status write ignored"

# JSON patch: test + replace, and a failing test is a 422 that changes nothing.
expect "$(k patch rb train-deployment --type json \
    -p '[{"op":"test","path":"/spec/replicas","value":4},{"op":"replace","path":"/spec/replicas","value":6}]')" \
    "resourcebinding.work.karmada.io/train-deployment patched" "json patch"
expect "$(jp '{.spec.replicas} {.metadata.generation}')" "6 3" "json patch effect"
out=$(k patch rb train-deployment --type json -p '[{"op":"test","path":"/spec/replicas","value":4}]' 2>&1 || true)
expect_match "$out" 'is invalid|rejected our request' "failed json patch test"
expect "$(jp '{.spec.replicas}')" 6 "failed json patch changed nothing"

# Update with a stale resourceVersion: 409 Conflict.
k get rb train-deployment -o json >"$TMP/stale.json"
k patch rb train-deployment --type merge -p '{"metadata":{"labels":{"touched":"yes"}}}' >/dev/null
out=$(k replace -f "$TMP/stale.json" 2>&1 || true)
expect_match "$out" '^Error from server \(Conflict\): error when replacing ".*stale.json": Operation cannot be fulfilled on resourcebindings.work.karmada.io "train-deployment": the object has been modified; please apply your changes to the latest version and try again$' \
    "stale replace"

# --- client-side apply (merge patch with last-applied-configuration) ---
sed -e 's/name: train-deployment/name: applied-deployment/' "$FIX/rb-train.yaml" >"$TMP/applied.yaml"
expect "$(k apply -f "$TMP/applied.yaml")" "resourcebinding.work.karmada.io/applied-deployment created" "apply (create)"
sed -i 's/replicas: 4/replicas: 5/' "$TMP/applied.yaml"
expect "$(k apply -f "$TMP/applied.yaml")" "resourcebinding.work.karmada.io/applied-deployment configured" "apply (configure)"
expect "$(k get rb applied-deployment -o jsonpath='{.spec.replicas} {.metadata.generation}')" "5 2" "applied change"
k delete rb applied-deployment >/dev/null

# --- selectors and paging ---
for i in 1 2 3 4 5; do
    sed -e "s/name: train-deployment/name: extra-$i-deployment/" -e "s/team: vision/team: nlp/" \
        "$FIX/rb-train.yaml" | k create -f - >/dev/null
done
expect "$(k get rb -l team=vision -o name)" "resourcebinding.work.karmada.io/train-deployment" "label ="
expect "$(k get rb -l 'team notin (vision),touched!=yes' -o name | wc -l | tr -d ' ')" 5 "label notin/!="
expect "$(k get rb -l '!touched' -o name | wc -l | tr -d ' ')" 5 "label !exists"
expect "$(k get rb --field-selector metadata.name=extra-3-deployment -o name)" \
    "resourcebinding.work.karmada.io/extra-3-deployment" "field selector"
names=$(k get rb --chunk-size=2 -o name -v=6 2>"$TMP/chunk.err" | tr '\n' ' ')
expect "$names" "resourcebinding.work.karmada.io/extra-1-deployment resourcebinding.work.karmada.io/extra-2-deployment resourcebinding.work.karmada.io/extra-3-deployment resourcebinding.work.karmada.io/extra-4-deployment resourcebinding.work.karmada.io/extra-5-deployment resourcebinding.work.karmada.io/train-deployment " \
    "paged list in key order"
expect "$(grep -c 'continue=' "$TMP/chunk.err")" 2 "continue requests for 6 items in pages of 2"
page=$(curl -sf "$BASE/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings?limit=4")
expect_match "$page" '"remainingItemCount":2' "remainingItemCount"
expect_match "$page" '"continue":"[A-Za-z0-9_-]+"' "continue token"

# --- raw Status bodies ---
body=$(curl -s -o - -w '%{http_code}' "$BASE/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings/nope")
expect "$body" '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourcebindings.work.karmada.io \"nope\" not found","reason":"NotFound","details":{"name":"nope","group":"work.karmada.io","kind":"resourcebindings"},"code":404}
404' \
    "404 Status body"
body=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data '{"metadata":{"name":"x"},"spec":[1]}' "$BASE/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings")
expect "$body" 422 "spec must be an object"
body=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data '{"metadata":{"name":"x"}' "$BASE/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings")
expect "$body" 400 "broken JSON"
body=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data '{"metadata":{"name":"x"}}' "$BASE/apis/work.karmada.io/v1alpha2/namespaces/nowhere/resourcebindings")
expect "$body" 404 "create in a missing namespace"
body=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary @<(head -c 4000000 /dev/zero | tr '\0' ' ') "$BASE/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings")
expect "$body" 413 "oversized body"

body=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data '{"metadata":{"name":"x"}}' "$BASE/apis/work.karmada.io/v1alpha2/resourcebindings")
expect "$body" 405 "create without a namespace in the path"
body=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/vnd.kubernetes.protobuf' \
    --data 'k8s' "$BASE/api/v1/namespaces")
expect "$body" 415 "protobuf body"

# --- server-side dry runs change nothing ---
rv_dry=$(jp '{.metadata.resourceVersion}')
expect "$(k patch rb train-deployment --type merge --dry-run=server -p '{"spec":{"replicas":99}}' -o jsonpath='{.spec.replicas}')" \
    99 "dry-run patch result"
expect "$(k delete rb train-deployment --dry-run=server)" \
    'resourcebinding.work.karmada.io "train-deployment" deleted (server dry run)' "dry-run delete"
sed -e 's/name: train-deployment/name: dry-deployment/' "$FIX/rb-train.yaml" | k create --dry-run=server -f - >/dev/null
expect "$(jp '{.spec.replicas} {.metadata.resourceVersion}')" "6 $rv_dry" "dry runs changed nothing"
out=$(k get rb dry-deployment 2>&1 || true)
expect_match "$out" 'NotFound' "dry-run create stored nothing"

# --- delete ---
expect "$(k delete rb train-deployment)" 'resourcebinding.work.karmada.io "train-deployment" deleted' "delete"
out=$(k get rb train-deployment 2>&1 || true)
expect "$out" 'Error from server (NotFound): resourcebindings.work.karmada.io "train-deployment" not found' "get after delete"

# --- the watch saw every change of train-deployment, in order, once ---
for _ in $(seq 100); do
    grep -q '^DELETED train-deployment' "$TMP/watch.out" && break
    sleep 0.05
done
kill "$WATCH_PID" 2>/dev/null || true
wait "$WATCH_PID" 2>/dev/null || true
got=$(grep ' train-deployment ' "$TMP/watch.out" | tr '\n' '|')
expect "$got" "MODIFIED train-deployment 2 false 4 |MODIFIED train-deployment 2 false 4 2|MODIFIED train-deployment 2 false 4 2|MODIFIED train-deployment 3 false 6 2|MODIFIED train-deployment 3 false 6 2|DELETED train-deployment 3 false 6 2|" \
    "watch events for train-deployment"
# ... and the server's own log agrees: same count of changes after the create.
log=$(curl -sf "$BASE/debug/sim/events?since=$rv1")
expect "$(grep -o '"name":"train-deployment"' <<<"$log" | wc -l | tr -d ' ')" 6 "server event log"

# --- watch protocol details over raw HTTP ---
# Too old a resourceVersion: 200 with one ERROR event carrying 410 Expired.
old=$(curl -s -m 5 "$BASE/apis/work.karmada.io/v1alpha2/resourcebindings?watch=1&resourceVersion=1")
expect_match "$old" '^\{"type":"ERROR","object":\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Failure","message":"too old resource version: 1 \([0-9]+\)","reason":"Expired","code":410\}\}$' \
    "watch from an expired resourceVersion"
# resourceVersion=0: current state as ADDED, then bookmarks with only a resourceVersion.
cur=$(curl -s -m 2.5 "$BASE/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings?watch=true&resourceVersion=0&allowWatchBookmarks=true&labelSelector=team%3Dnlp" || true)
expect "$(grep -c '^{"type":"ADDED"' <<<"$cur")" 5 "initial ADDED events"
expect_match "$cur" '\{"type":"BOOKMARK","object":\{"kind":"ResourceBinding","apiVersion":"work.karmada.io/v1alpha2","metadata":\{"resourceVersion":"[0-9]+"' \
    "bookmark"
# Watch-list (sendInitialEvents): the state, then a bookmark marking the end of it.
wl=$(curl -s -m 1.5 "$BASE/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=team%3Dnlp" || true)
expect "$(head -5 <<<"$wl" | grep -c '^{"type":"ADDED"')" 5 "watch-list initial events"
expect_match "$(sed -n 6p <<<"$wl")" '^\{"type":"BOOKMARK","object":\{"kind":"ResourceBinding","apiVersion":"work.karmada.io/v1alpha2","metadata":\{"resourceVersion":"[0-9]+","creationTimestamp":null,"annotations":\{"k8s.io/initial-events-end":"true"\}\}\}\}$' \
    "watch-list end bookmark"
# timeoutSeconds ends the stream cleanly.
start=$SECONDS
curl -s -m 10 "$BASE/apis/work.karmada.io/v1alpha2/resourcebindings?watch=1&timeoutSeconds=1" >/dev/null ||
    fail "watch with timeoutSeconds did not end cleanly"
[ $((SECONDS - start)) -le 3 ] || fail "timeoutSeconds=1 watch lasted $((SECONDS - start))s"

# --- clean shutdown with an open watch: exit 0, every handle closed ---
curl -sN "$BASE/apis/work.karmada.io/v1alpha2/resourcebindings?watch=1" >/dev/null 2>&1 &
CURL_PID=$!
sleep 0.3
kill -TERM "$SIM_PID"
rc=0
wait "$SIM_PID" || rc=$?
SIM_PID=
wait "$CURL_PID" 2>/dev/null || true
expect "$rc" 0 "muster-sim exit status after SIGTERM"
if grep -q "did not close cleanly\|still open" "$TMP/sim.err"; then
    fail "event loop did not close cleanly"
fi
echo "PASS"
