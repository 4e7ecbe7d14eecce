#!/usr/bin/env bash
# Issue 15: the webhook path end to end. musterd serves its RB admission webhook over TLS; a
# MutatingWebhookConfiguration registered on muster-sim makes the simulated apiserver call it on
# every RB create, as kube-apiserver would (AdmissionReview, the caBundle, failurePolicy Fail).
# The RB Karmada's detector creates must be stored held from its first version on (the sim's
# event log shows the ADDED object), musterd must count the review, and the gang must then be
# dispatched as usual.
# CASE tenancy (issue 21): musterd --webhook-tenancy on denies the RB of a namespace its queue's
# namespaceSelector does not admit; Karmada's detector (as muster-sim plays it) records an
# ApplyPolicyFailed event on the template with the webhook's message and retries with back-off,
# so once the namespace is labelled the RB is created, held and dispatched.
# Usage: dispatch_webhook.sh MUSTER_SIM MUSTERD SOURCE_DIR [hold|tenancy]
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3 CASE=${4:-hold}
NAME=dispatch_webhook_$CASE TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml" --event-log "$TMP/events.jsonl" --event-log-objects 1

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$TMP/s.key" \
    -out "$TMP/s.crt" -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -days 1 2>/dev/null
"$MUSTERD" --kubeconfig "$KUBECONFIG" --db "$TMP/muster.db" --listen 127.0.0.1:0 \
    --kube-api-qps -1 --tls-cert-file "$TMP/s.crt" --tls-private-key-file "$TMP/s.key" \
    $([ "$CASE" = tenancy ] && echo --webhook-tenancy on) \
    >"$TMP/musterd.out" 2>"$TMP/musterd.err" &
MUSTERD_PID=$!
HOOK=
for _ in $(seq 200); do
    HOOK=$( (sed -n 's#^admin API: \(https://127.0.0.1:[0-9]*\)/.*#\1#p' "$TMP/musterd.out" 2>/dev/null || true) | head -1)
    [ -n "$HOOK" ] && break
    kill -0 "$MUSTERD_PID" 2>/dev/null || dfail "musterd exited: $(cat "$TMP/musterd.err")"
    sleep 0.05
done
[ -n "$HOOK" ] || dfail "musterd did not report its admin API"

CA=$(base64 -w0 <"$TMP/s.crt")
k create -f - >/dev/null <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: muster}
webhooks:
  - name: rb.muster.io
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 5
    clientConfig:
      url: $HOOK/admission/resourcebindings
      caBundle: $CA
    rules:
      - apiGroups: ["work.karmada.io"]
        apiVersions: ["v1alpha2"]
        operations: ["CREATE"]
        resources: ["resourcebindings"]
YAML

if [ "$CASE" = tenancy ]; then
    sapi() { curl -sf --cacert "$TMP/s.crt" -X "$1" -H 'Content-Type: application/json' ${3:+--data "$3"} "$HOOK$2"; }
    sapi POST /api/v1/queues '{"name":"research","namespaceSelector":{"matchLabels":{"org":"research"}}}' >/dev/null ||
        dfail "creating the queue research"
    k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: denied, namespace: team, labels: {volcano.sh/queue-name: research}}
spec:
  replicas: 1
  selector: {matchLabels: {app: denied}}
  template:
    metadata: {labels: {app: denied}}
    spec:
      containers:
        - {name: c, image: busybox, resources: {requests: {cpu: "1"}}}
YAML
    # (muster-sim serves only metadata.name/namespace field selectors: filtered here instead)
    ev() { k get events -o json | jq -r "[.items[] | select(.reason == \"ApplyPolicyFailed\")][0] | $1 // empty"; }
    ev_msg() { ev .message; }
    wait_until 20 "an ApplyPolicyFailed event on the Deployment" eval '[ -n "$(ev_msg)" ]'
    msg=$(ev_msg)
    [[ "$msg" == *'admission webhook "rb.muster.io" denied the request: namespace team may not submit to queue research: its namespaceSelector does not match (label org is not research)'* ]] ||
        dfail "the event carries the webhook's message: $msg"
    expect "$(ev '"\(.involvedObject.kind)/\(.involvedObject.name) \(.type) \(.source.component)"')" \
        "Deployment/denied Warning resource-detector" "the event, as Karmada's detector records it"
    k get rb denied-deployment >/dev/null 2>&1 && dfail "the denied RB was created"
    m=$(curl -s --cacert "$TMP/s.crt" "$HOOK/metrics")
    grep -Eq '^muster_webhook_reviews_total\{result="refused"\} [1-9]' <<<"$m" ||
        dfail "musterd counted no refusal: $(grep muster_webhook <<<"$m" | head -9)"
    # the detector retries with back-off: once the namespace is admitted the RB is made, held
    k label namespace team org=research >/dev/null
    wait_until 30 "the RB once team is labelled" k get rb denied-deployment
    wait_until 30 "denied-deployment Scheduled=True" is_eq True/Success rb_cond denied-deployment Scheduled
    kill -TERM "$MUSTERD_PID"
    rc=0
    wait "$MUSTERD_PID" || rc=$?
    MUSTERD_PID=
    [ "$rc" == 0 ] || dfail "musterd exit status $rc after SIGTERM"
    echo "$NAME: ok"
    exit 0
fi

k create -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: hooked, namespace: team}
spec:
  replicas: 1
  selector: {matchLabels: {app: hooked}}
  template:
    metadata: {labels: {app: hooked}}
    spec:
      containers:
        - name: c
          image: busybox
          resources: {requests: {cpu: "1"}}
YAML
wait_until 20 "the RB hooked-deployment" k get rb hooked-deployment
# The first stored version carries the hold, and musterd counted a review: the simulated
# apiserver called the webhook over TLS before it stored the RB (without the configuration the
# count stays 0 and this test fails there).
first=$(jq -c 'select(.type == "ADDED" and .resource == "resourcebindings" and .name == "hooked-deployment") | .object.spec.suspension' "$TMP/events.jsonl" | head -1)
[ "$(jq -r .scheduling <<<"$first")" == true ] ||
    dfail "the RB's first version was not held by the webhook: suspension $first"
m=$(curl -s --cacert "$TMP/s.crt" "$HOOK/metrics")
grep -Eq '^muster_webhook_[a-z_]*total\{[^}]*\} [1-9]' <<<"$m" ||
    dfail "musterd counted no webhook verdict: $(grep muster_webhook <<<"$m" | head -5)"

# The gang is then dispatched as any other (queue default).
wait_until 30 "hooked-deployment Scheduled=True" is_eq True/Success rb_cond hooked-deployment Scheduled

kill -TERM "$MUSTERD_PID"
rc=0
wait "$MUSTERD_PID" || rc=$?
MUSTERD_PID=
[ "$rc" == 0 ] || dfail "musterd exit status $rc after SIGTERM"
echo "$NAME: ok"
