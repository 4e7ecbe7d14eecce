#!/usr/bin/env bash
# SIGTERM (issue 7, Proof): musterd --leader-elect, leading under a stream of batch Jobs with a
# burst just created, gets SIGTERM and
#   - exits 0 within --grace-period (measured), saying it released the Lease and flushed the
#     ledger;
#   - the Lease then has an empty holderIdentity (client-go's ReleaseOnCancel);
#   - a follower's SIGTERM: exit 0, the Lease untouched;
#   - the ledger is consistent: a musterd restarted on the same database takes the released
#     Lease at once, reconciles, and at the end every Job that fits was dispatched or finished,
#     the live rows are exactly the unfinished Jobs' with their RBs, the queue's usage is theirs,
#     and from a watch of every RB change nothing was dispatched twice, re-placed or undone;
#   - after one more SIGTERM and restart no muster Work or OverridePolicy is an orphan.
# Shell, kubectl and jq (deploy/install-deps.sh's test set).
# Usage: sigterm.sh PATH/TO/muster-sim PATH/TO/musterd
set -euo pipefail

SIM=$1
MUSTERD=$2
NAME=sigterm
GRACE_S=5
SLACK_MS=${MUSTER_TAKEOVER_SLACK_MS:-500}
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=ha_lib.sh
. "$(dirname "$0")/ha_lib.sh"
cd "$TMP"

# sigterm_md N PID: SIGTERM, then the exit status must be 0 within the grace period, the Lease
# released and the ledger flushed; the Lease's holder must be empty.
sigterm_md() {
    local t0 rc=0 dt
    t0=$(now_ms)
    kill -TERM "$2"
    wait "$2" || rc=$?
    dt=$(($(now_ms) - t0))
    expect "$rc" 0 "musterd $1's exit status after SIGTERM ($(tail -3 "$TMP/md$1.err"))"
    echo "musterd $1 exited $dt ms after SIGTERM (grace period ${GRACE_S}s)"
    [ "$dt" -le $((GRACE_S * 1000)) ] || fail "musterd $1 took $dt ms to exit after SIGTERM"
    grep -q '^musterd: Lease released$' "$TMP/md$1.out" ||
        fail "musterd $1 did not say it released the Lease"
    grep -q 'the ledger is flushed$' "$TMP/md$1.out" ||
        fail "musterd $1 did not say it flushed the ledger"
    expect "$(k get lease -n muster-system musterd -o jsonpath='{.spec.holderIdentity}|{.spec.leaseDurationSeconds}')" \
        "|1" "the Lease after musterd $1's SIGTERM (holder|duration)"
}

# start_leader N: musterd N on the shared database takes the (released) Lease at its first
# attempt and reconciles; sets API.
start_leader() {
    local t0 dt
    t0=$(now_ms)
    start_md "$1" --grace-period "$GRACE_S"
    PID=$MD_PID API=$MD_API
    wait_line "$1" '^musterd: leading'
    dt=$(($(now_ms) - t0))
    [ "$dt" -le $((RETRY_MS + 1000 + SLACK_MS)) ] ||
        fail "musterd $1 took $dt ms to take a released Lease"
    wait_line "$1" 'reconciled with the hub'
}

start_sim
start_leader 0
expect "$(curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
    "$API/api/v1/queues" -d '{"name":"q","parent":"root","weight":1}')" 201 "POST /api/v1/queues"
expect "$(k get lease -n muster-system musterd -o jsonpath='{.spec.holderIdentity}')" \
    "$(sed -n 's/^musterd: leading (Lease muster-system\/musterd held by \(.*\))$/\1/p' md0.out)" \
    "the Lease's holder while musterd 0 leads"

# A follower's SIGTERM: exit 0 at once, the Lease untouched (it never held it).
start_md f --grace-period "$GRACE_S"
wait_line f '^musterd: following until it holds the Lease'
holder=$(k get lease -n muster-system musterd -o jsonpath='{.spec.holderIdentity}')
t0=$(now_ms)
kill -TERM "$MD_PID"
rc=0
wait "$MD_PID" || rc=$?
expect "$rc" 0 "a follower's exit status after SIGTERM"
echo "the follower exited $(($(now_ms) - t0)) ms after SIGTERM"
expect "$(k get lease -n muster-system musterd -o jsonpath='{.spec.holderIdentity}')" "$holder" \
    "the Lease's holder after a follower's SIGTERM"

stream &
STREAM_PID=$!
sleep 3
# A burst, so the SIGTERM finds dispatches in flight.
for i in $(seq 10); do job "burst$i" $((i % 3 + 1)) 1 3s; done | k create -f - >/dev/null
sleep 0.0$((RANDOM % 10))
sigterm_md 0 "$PID"
kill -KILL "$STREAM_PID"
wait "$STREAM_PID" 2>/dev/null || true
STREAM_PID=

# Restarted on the same database.
start_leader 1
end_state "$API"
sigterm_md 1 "$PID"
start_leader 2
check_orphans
sigterm_md 2 "$PID"
echo "sigterm: ok ($NJOBS Jobs)"
