#!/usr/bin/env bash
# deploy/: `kubectl kustomize deploy/` renders; the rendered objects are applied to muster-sim
# with `kubectl apply --validate=false` (twice: the second apply changes nothing) and read back
# with jsonpath: the kinds, the ClusterRole's rules exactly (and that they grant every request of
# tests/fixtures/rbac/requests.log, checked by rbac_check.sh), the Deployment's probes, security
# context, resources and flags, the webhook's policy and selectors, and that the Secrets are
# templates. Then the sample PropagationPolicy. Shell and kubectl only: CI is a fresh Debian 12
# without python3 or jq.
# With a musterd binary as third argument it also runs musterd against a muster-sim that logs
# every request (--access-log), lets it dispatch and release a Deployment, stops it with SIGTERM
# (exit 0), and checks with rbac_check.sh that the ClusterRole grants every request it made.
# Usage: deploy.sh PATH/TO/muster-sim SOURCE_DIR [PATH/TO/musterd]
set -euo pipefail

SIM=$1
SRC=$2
MUSTERD=${3:-}
NAME=deploy
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
MD_PID=
stop_all() {
    if [ -n "$MD_PID" ]; then kill -KILL "$MD_PID" 2>/dev/null || true; fi
    cleanup
}
trap stop_all EXIT

k() { kubectl --request-timeout=10s "$@"; }

# --- render ---
kubectl kustomize "$SRC/deploy" >"$TMP/rendered.yaml" 2>"$TMP/kustomize.err" ||
    fail "kubectl kustomize deploy/: $(cat "$TMP/kustomize.err")"
expect "$(grep '^kind:' "$TMP/rendered.yaml" | sort | tr '\n' ' ')" \
    "kind: ClusterRole kind: ClusterRoleBinding kind: Deployment kind: MutatingWebhookConfiguration kind: Namespace kind: PersistentVolumeClaim kind: Secret kind: Secret kind: Secret kind: Secret kind: Service kind: ServiceAccount " \
    "rendered kinds"
# The two halves render on their own too (one per API server on a real hub).
kubectl kustomize "$SRC/deploy/host" >/dev/null || fail "deploy/host does not render"
kubectl kustomize "$SRC/deploy/karmada" >/dev/null || fail "deploy/karmada does not render"

# --- apply to muster-sim ---
"$SIM" --listen 127.0.0.1:0 >"$TMP/sim.out" 2>"$TMP/sim.err" &
SIM_PID=$!
wait_port "$TMP/sim.out" http
cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "$BASE"}}]
contexts: [{name: sim, context: {cluster: sim, user: sim, namespace: default}}]
current-context: sim
users: [{name: sim, user: {}}]
YAML
k apply --validate=false -f "$TMP/rendered.yaml" >"$TMP/apply.out" 2>"$TMP/apply.err" ||
    fail "kubectl apply: $(cat "$TMP/apply.err")"
expect "$(grep -c ' created$' "$TMP/apply.out")" 12 "objects created: $(cat "$TMP/apply.out")"
k apply --validate=false -f "$TMP/rendered.yaml" >"$TMP/apply2.out" 2>"$TMP/apply2.err" ||
    fail "second kubectl apply: $(cat "$TMP/apply2.err")"
expect "$(grep -c ' unchanged$' "$TMP/apply2.out")" 12 "second apply: $(cat "$TMP/apply2.out")"

NS=muster-system
for o in namespace/$NS clusterrole/muster clusterrolebinding/muster \
    mutatingwebhookconfiguration/muster; do
    k get "$o" -o name >/dev/null || fail "$o not stored"
done
for o in serviceaccount/muster secret/muster-token secret/muster-tokens secret/muster-tls \
    secret/muster-hub-kubeconfig service/muster persistentvolumeclaim/muster-data \
    deployment/musterd; do
    k -n $NS get "$o" -o name >/dev/null || fail "$o not stored in $NS"
done

# --- RBAC: exactly these rules (group|resources|verbs), nothing more ---
rules=$(k get clusterrole muster -o \
    jsonpath='{range .rules[*]}{.apiGroups[*]}|{.resources[*]}|{.verbs[*]}{"\n"}{end}' | sort)
want=$(sort <<'EOF'
work.karmada.io|resourcebindings|get list watch patch
work.karmada.io|resourcebindings/status|patch
work.karmada.io|works|create delete list watch patch
cluster.karmada.io|clusters|get list watch
policy.karmada.io|overridepolicies|create delete list watch get patch
policy.karmada.io|clusteroverridepolicies|list watch
apps|deployments statefulsets|get list watch
batch|jobs|get list watch
batch.volcano.sh|jobs|get list watch
jobset.x-k8s.io|jobsets|get list watch
leaderworkerset.x-k8s.io|leaderworkersets|get list watch
kubeflow.org|pytorchjobs mpijobs|get list watch
ray.io|rayclusters rayjobs|get list watch
trainer.kubeflow.org|trainjobs trainingruntimes clustertrainingruntimes|get list watch
|pods|get list watch
|namespaces|get list watch
scheduling.k8s.io|priorityclasses|get list watch
scheduling.volcano.sh scheduling.x-k8s.io scheduling.k8s.io|podgroups|get list watch
scheduling.k8s.io|workloads|get list watch
coordination.k8s.io|leases|get create update
|events|create
events.k8s.io|events|create
EOF
)
expect "$rules" "$want" "ClusterRole rules"
# The rules cover every request the dispatch loop makes (tests/fixtures/rbac/requests.log) and
# refuse what musterd must never do.
CHECK=$(dirname "$0")/rbac_check.sh
printf '%s\n' "$rules" >"$TMP/rules"
"$CHECK" "$SRC/tests/fixtures/rbac/requests.log" "$TMP/rules" >"$TMP/rbac.out" ||
    fail "requests outside the ClusterRole: $(cat "$TMP/rbac.out")"
L='127.0.0.1 - - [22/Nov/2026:03:00:00 +0000] "'
for r in "DELETE /apis/work.karmada.io/v1alpha2/namespaces/ml/resourcebindings/x" \
    "PUT /apis/work.karmada.io/v1alpha1/namespaces/karmada-es-a/works/w" \
    "GET /api/v1/namespaces/muster-system/secrets/muster-token" \
    "PATCH /apis/coordination.k8s.io/v1/namespaces/muster-system/leases/musterd" \
    "DELETE /apis/work.karmada.io/v1alpha1/namespaces/karmada-es-a/works"; do
    printf '%s%s HTTP/1.1" 200 1 "-" "x"\n' "$L" "$r" >"$TMP/one.log"
    if "$CHECK" "$TMP/one.log" "$TMP/rules" >"$TMP/rbac.out"; then
        fail "rbac_check.sh let through: $r"
    fi
    grep -q "^not granted: " "$TMP/rbac.out" || fail "rbac_check.sh on $r: $(cat "$TMP/rbac.out")"
done
expect "$(k get clusterrolebinding muster -o jsonpath='{.roleRef.kind}/{.roleRef.name} {.subjects[0].kind}/{.subjects[0].namespace}/{.subjects[0].name}')" \
    "ClusterRole/muster ServiceAccount/muster-system/muster" "ClusterRoleBinding"

# --- the Deployment ---
dj() { k -n $NS get deployment musterd -o jsonpath="$1"; }
c='.spec.template.spec.containers[0]'
expect "$(dj '{.spec.replicas} {.spec.strategy.type}')" "1 Recreate" "one replica, Recreate"
expect "$(dj "{$c.livenessProbe.httpGet.path} {$c.livenessProbe.httpGet.scheme} {$c.readinessProbe.httpGet.path} {$c.readinessProbe.httpGet.scheme}")" \
    "/healthz HTTPS /readyz HTTPS" "probes"
expect "$(dj "{$c.securityContext.runAsNonRoot} {$c.securityContext.readOnlyRootFilesystem} {$c.securityContext.allowPrivilegeEscalation} {$c.securityContext.capabilities.drop} {$c.securityContext.seccompProfile.type}")" \
    'true true false ["ALL"] RuntimeDefault' "container security context"
expect "$(dj '{.spec.template.spec.securityContext.runAsNonRoot} {.spec.template.spec.securityContext.seccompProfile.type} {.spec.template.spec.automountServiceAccountToken}')" \
    "true RuntimeDefault false" "pod security context"
for f in requests.cpu requests.memory limits.memory; do
    [ -n "$(dj "{$c.resources.$f}")" ] || fail "resources.$f is not set"
done
args=$(dj "{$c.args}")
for a in --leader-elect --db=/var/lib/muster/muster.db --tls-cert-file= --token-auth-file= \
    --kubeconfig=; do
    [[ "$args" == *"\"$a"* ]] || fail "musterd args lack $a: $args"
done
expect "$(dj '{.spec.template.spec.volumes[?(@.name=="data")].persistentVolumeClaim.claimName}')" \
    "muster-data" "the database on the PVC"
expect "$(k -n $NS get pvc muster-data -o jsonpath='{.spec.accessModes}')" '["ReadWriteOnce"]' \
    "PVC access mode"
expect "$(k -n $NS get svc muster -o jsonpath='{.spec.ports[0].port}/{.spec.ports[0].targetPort} {.spec.selector.app\.kubernetes\.io/component}')" \
    "8443/https musterd" "Service"
expect "$(dj '{.spec.template.metadata.labels.app\.kubernetes\.io/component}')" "musterd" \
    "the Service selects the pods"

# --- the webhook ---
wj() { k get mutatingwebhookconfiguration muster -o jsonpath="{.webhooks[0]$1}"; }
expect "$(wj '.failurePolicy') $(wj '.sideEffects') $(wj '.timeoutSeconds') $(wj '.admissionReviewVersions')" \
    'Fail None 5 ["v1"]' "webhook policy"
expect "$(wj '.rules[0].apiGroups') $(wj '.rules[0].apiVersions') $(wj '.rules[0].operations') $(wj '.rules[0].resources')" \
    '["work.karmada.io"] ["v1alpha2"] ["CREATE"] ["resourcebindings"]' "webhook rules"
expect "$(wj '.clientConfig.url')" \
    "https://muster.muster-system.svc:8443/admission/resourcebindings" "webhook URL"
expect "$(wj '.objectSelector.matchExpressions[0].key') $(wj '.objectSelector.matchExpressions[0].operator') $(wj '.objectSelector.matchExpressions[0].values')" \
    'scheduling.muster.io/skip NotIn ["true"]' "opt-out objectSelector"
[ -n "$(wj '.clientConfig.caBundle')" ] || fail "caBundle placeholder missing"
[[ "$(wj '.matchConditions[0].expression')" == *'"v1/Pod"'* ]] || fail "matchConditions"

# --- Secrets are templates, never real credentials ---
for s in muster-tokens muster-tls muster-hub-kubeconfig; do
    k -n $NS get secret $s -o yaml | grep -q REPLACE-WITH || fail "secret $s is not a template"
done

# --- the sample PropagationPolicy ---
k apply --validate=false -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: ml-team}
EOF
k apply --validate=false -f "$SRC/deploy/samples/propagationpolicy.yaml" >/dev/null ||
    fail "sample PropagationPolicy"
expect "$(k -n ml-team get pp volcano-jobs -o jsonpath='{.spec.schedulerName} {.spec.resourceSelectors[0].kind}')" \
    "muster Job" "sample PropagationPolicy"

# --- the requests musterd really makes are the ones the ClusterRole grants ---
if [ -n "$MUSTERD" ]; then
    kill -TERM "$SIM_PID" 2>/dev/null || true
    wait "$SIM_PID" 2>/dev/null || true
    "$SIM" --listen 127.0.0.1:0 --scenario "$SRC/deploy/scenarios/demo.yaml" \
        --access-log "$TMP/access.log" >"$TMP/sim.out" 2>"$TMP/sim.err" &
    SIM_PID=$!
    wait_port "$TMP/sim.out" http
    cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "$BASE"}}]
contexts: [{name: sim, context: {cluster: sim, user: sim, namespace: team-vision}}]
current-context: sim
users: [{name: sim, user: {}}]
YAML
    "$MUSTERD" --kubeconfig "$KUBECONFIG" --db "$TMP/muster.db" --listen 127.0.0.1:0 \
        >"$TMP/musterd.out" 2>"$TMP/musterd.err" &
    MD_PID=$!
    k create -f "$SRC/tests/fixtures/sim/deploy-train.yaml" >/dev/null
    for _ in $(seq 100); do
        [ "$(k get rb train-deployment -o jsonpath='{.status.conditions[?(@.type=="Scheduled")].status}' 2>/dev/null)" = True ] && break
        sleep 0.1
    done
    expect "$(k get rb train-deployment -o jsonpath='{.status.conditions[?(@.type=="Scheduled")].status}')" \
        True "musterd dispatched the Deployment"
    k delete deployment train >/dev/null
    sleep 1
    kill -TERM "$MD_PID"
    rc=0
    wait "$MD_PID" || rc=$?
    MD_PID=
    expect "$rc" 0 "musterd exit status after SIGTERM ($(tail -3 "$TMP/musterd.err"))"
    grep '"musterd"$' "$TMP/access.log" >"$TMP/musterd-requests.log" || true
    [ -s "$TMP/musterd-requests.log" ] || fail "no request from musterd in the access log"
    "$CHECK" "$TMP/musterd-requests.log" "$TMP/rules" >"$TMP/rbac.out" ||
        fail "musterd made requests outside the ClusterRole: $(cat "$TMP/rbac.out")"
fi

echo "deploy: ok"
