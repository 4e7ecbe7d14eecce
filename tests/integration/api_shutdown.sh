#!/usr/bin/env bash
# Issue 23, item 1: musterd serving HTTPS (HTTP/2 by ALPN) answers an over-large HTTP/2 body with
# a 413 (h2o 2.2.5 alone resets the stream with REFUSED_STREAM, which clients retry), and after
# SIGTERM exits within --grace-period whatever its clients hold open: an upload still in flight
# over HTTP/2, a TLS connection that never sent a request.
# Usage: api_shutdown.sh PATH/TO/musterd PATH/TO/scenario.yaml
set -euo pipefail

MUSTERD=$1
SCENARIO=$2
NAME=api_shutdown
GRACE_S=2
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TMP"

now_ms() { date +%s%3N; }
HOLD_PIDS=()
stop_holders() {
    for p in "${HOLD_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap 'stop_holders; cleanup' EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout s.key \
    -out s.crt -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -days 1 2>/dev/null

"$MUSTERD" --demo --scenario "$SCENARIO" --db demo.db --listen 127.0.0.1:0 \
    --tls-cert-file s.crt --tls-private-key-file s.key --grace-period "$GRACE_S" \
    >md.out 2>md.err &
SIM_PID=$!
port=
for _ in $(seq 200); do
    port=$(sed -n 's#^admin API: https://127.0.0.1:\([0-9]*\)/.*#\1#p' md.out 2>/dev/null || true)
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || fail "musterd did not report its admin API port: $(cat md.err)"
URL=https://127.0.0.1:$port

# 200 KiB over HTTP/2: a JSON 413, not a reset stream; on the webhook and on a queue route.
head -c 204800 /dev/zero | tr '\0' ' ' >big.json
for path in /admission/resourcebindings /api/v1/queues; do
    got=$(curl -s --cacert s.crt --http2 -o big.out -w '%{http_code} %{http_version}' \
        -H 'Content-Type: application/json' --data-binary @big.json "$URL$path" || true)
    expect "$got" "413 2" "200 KiB over HTTP/2 to $path (status, HTTP version)"
    grep -q '"reason":"RequestEntityTooLarge"' big.out || fail "413 body: $(cat big.out)"
done

# Hold the server: an HTTP/2 upload at 1 KiB/s (100 s to finish) and a TLS connection that
# completed its handshake and sent nothing.
head -c 102400 /dev/zero | tr '\0' ' ' >slow.json
curl -s --cacert s.crt --http2 --limit-rate 1k -o /dev/null -H 'Content-Type: application/json' \
    --data-binary @slow.json "$URL/api/v1/queues" &
HOLD_PIDS+=($!)
# (its input is a sleep that holds nothing of the test's output, so ctest never waits for it)
exec 3< <(exec sleep 60 2>/dev/null)
HOLD_PIDS+=($!)
openssl s_client -quiet -alpn h2 -connect "127.0.0.1:$port" <&3 >/dev/null 2>&1 &
HOLD_PIDS+=($!)
exec 3<&-
sleep 1

t0=$(now_ms)
kill -TERM "$SIM_PID"
for _ in $(seq 300); do
    kill -0 "$SIM_PID" 2>/dev/null || break
    sleep 0.05
done
if kill -0 "$SIM_PID" 2>/dev/null; then
    fail "musterd still runs $(($(now_ms) - t0)) ms after SIGTERM (grace ${GRACE_S}s): $(tail -3 md.err)"
fi
rc=0
wait "$SIM_PID" || rc=$?
SIM_PID=
dt=$(($(now_ms) - t0))
echo "musterd exited $dt ms after SIGTERM (grace period ${GRACE_S}s)"
expect "$rc" 0 "exit status after SIGTERM ($(tail -3 md.err))"
[ "$dt" -le $((GRACE_S * 1000 + 300)) ] || fail "musterd took $dt ms to exit (grace ${GRACE_S}s)"
if grep -q 'still open' md.err; then fail "handles were left open: $(cat md.err)"; fi
grep -q 'the ledger is flushed$' md.out || fail "musterd did not say it flushed the ledger"
echo "api_shutdown: ok"
