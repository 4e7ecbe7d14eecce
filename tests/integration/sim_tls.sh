#!/usr/bin/env bash
# muster-sim over TLS with client certificates and a bearer token, driven by kubectl (HTTP/2)
# and curl: certificates are generated here with the openssl CLI.
# Usage: sim_tls.sh PATH/TO/muster-sim
set -euo pipefail

SIM=$1
NAME=sim_tls
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TMP"
ec() { echo "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"; }
# shellcheck disable=SC2046
openssl req -x509 $(ec) -keyout ca.key -out ca.crt -subj /CN=muster-sim-test-ca -days 1 2>/dev/null
# shellcheck disable=SC2046
openssl req $(ec) -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt \
    -days 1 -extfile server.ext 2>/dev/null
# shellcheck disable=SC2046
openssl req $(ec) -keyout client.key -out client.csr -subj /O=system:masters/CN=muster 2>/dev/null
printf 'extendedKeyUsage=clientAuth\n' >client.ext
openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt \
    -days 1 -extfile client.ext 2>/dev/null
echo "t0ken-for-tests" >token

"$SIM" --listen 127.0.0.1:0 --tls-cert server.crt --tls-key server.key --client-ca ca.crt \
    --token-file token >sim.out 2>sim.err &
SIM_PID=$!
wait_port sim.out https

cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: sim
  cluster:
    server: $BASE
    certificate-authority: $TMP/ca.crt
contexts:
- name: sim
  context: {cluster: sim, user: sim}
current-context: sim
users:
- name: sim
  user:
    client-certificate: $TMP/client.crt
    client-key: $TMP/client.key
    token: t0ken-for-tests
YAML

k() { kubectl --request-timeout=10s "$@"; }

expect "$(k get ns -o name | tr '\n' ' ')" \
    "namespace/default namespace/karmada-system namespace/kube-public namespace/kube-system " \
    "kubectl over TLS with a client certificate and a token"

# HTTP/2 is negotiated by ALPN.
expect "$(curl -s --http2 --cacert ca.crt --cert client.crt --key client.key \
    -H 'Authorization: Bearer t0ken-for-tests' -o /dev/null -w '%{http_version} %{http_code}' \
    "$BASE/api/v1/namespaces/default")" "2 200" "HTTP/2 GET"
# No client certificate: the handshake is refused.
if curl -s --cacert ca.crt -o /dev/null "$BASE/healthz"; then
    fail "a client without a certificate was let in"
fi
# Certificate but no token: 401 with a Status.
out=$(curl -s --cacert ca.crt --cert client.crt --key client.key "$BASE/api/v1/namespaces")
expect "$out" '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}' \
    "missing token"

# A watch over HTTP/2 sees a change.
k get ns --watch-only -o name >watch.out 2>watch.err &
WATCH_PID=$!
sleep 1
# (create -f: kubectl's typed generators send protobuf, which muster-sim answers with 415.)
expect "$(printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n' | k create -f -)" \
    "namespace/team-a created" "create over TLS"
for _ in $(seq 100); do
    grep -q team-a watch.out && break
    sleep 0.05
done
kill "$WATCH_PID" 2>/dev/null || true
wait "$WATCH_PID" 2>/dev/null || true
expect "$(cat watch.out)" "namespace/team-a" "watch over HTTP/2"

# An open HTTP/2 watch does not hold up shutdown.
curl -sN --http2 --cacert ca.crt --cert client.crt --key client.key \
    -H 'Authorization: Bearer t0ken-for-tests' "$BASE/api/v1/namespaces?watch=1" >/dev/null 2>&1 &
CURL_PID=$!
sleep 0.3
kill -TERM "$SIM_PID"
rc=0
wait "$SIM_PID" || rc=$?
SIM_PID=
wait "$CURL_PID" 2>/dev/null || true
expect "$rc" 0 "exit status after SIGTERM"
if grep -q "did not close cleanly\|still open" sim.err; then
    fail "event loop did not close cleanly"
fi
echo PASS
