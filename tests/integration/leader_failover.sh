#!/usr/bin/env bash
# Leader election end to end (issue 7, Proof): two musterd --leader-elect on one database against
# one muster-sim, a stream of batch Jobs, and the leader killed with SIGKILL $MUSTER_FAILOVERS
# times (default 20), a replacement started as the new follower each time.
#   - each time the follower takes over (prints "leading") no sooner than lease - retry - 300 ms
#     after the kill (the old leader's last renewal was at most one retry period and one
#     attempt's requests before it) and within lease + retry (+ MUSTER_TAKEOVER_SLACK_MS, default
#     500, for a loaded machine);
#   - a frozen leader (SIGSTOP) is replaced the same way and, thawed (SIGCONT), writes nothing
#     and exits non-zero;
#   - a follower refuses changes (POST /api/v1/queues: 503 NotLeader, nothing changed) and
#     serves reads, which show the leader's changes within a retry period;
#   - at the end: from a watch of every RB change, no RB's placement ever changed or was
#     cleared once set, and each was placed at most once; every Job that fits was dispatched or
#     finished, the one that cannot fit is pending; every live ledger row's RB exists with its
#     uid; queue usage in GET /api/v1/queues equals the dispatched, unfinished RBs' requests;
#     after a SIGTERM hand-over (the follower takes over within one retry period) no muster
#     Work or OverridePolicy is an orphan and every dispatched RB has its own.
# Shell, kubectl and jq (deploy/install-deps.sh's test set).
# Usage: leader_failover.sh PATH/TO/muster-sim PATH/TO/musterd
set -euo pipefail

SIM=$1
MUSTERD=$2
NAME=leader_failover
FAILOVERS=${MUSTER_FAILOVERS:-20}
SLACK_MS=${MUSTER_TAKEOVER_SLACK_MS:-500}
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=ha_lib.sh
. "$(dirname "$0")/ha_lib.sh"
cd "$TMP"

start_sim

# --- two candidates: the first leads, the second follows ---
start_md 0
LEADER=0 LEADER_PID=$MD_PID LEADER_API=$MD_API
wait_line 0 '^musterd: leading'
wait_line 0 'reconciled with the hub'
start_md 1
FOLLOWER=1 FOLLOWER_PID=$MD_PID FOLLOWER_API=$MD_API
wait_line 1 '^musterd: following until it holds the Lease'
NEXT=2

post_queue() { # URL NAME -> "code reason"
    curl -s -o "$TMP/post.out" -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
        "$1/api/v1/queues" -d "{\"name\":\"$2\",\"parent\":\"root\",\"weight\":1}"
}
metric() { curl -s "$1/metrics" | awk -v n="$2" '$1 == n {print $2}'; }
get_code() { curl -s -o /dev/null -w '%{http_code}' "$1"; }

# A follower refuses changes and says why; nothing changes anywhere; reads work.
follower_refuses() { # NAME
    expect "$(post_queue "$FOLLOWER_API" "$1")" 503 "POST /api/v1/queues to the follower"
    expect "$(jq -r .reason "$TMP/post.out")" NotLeader "the follower's 503 reason"
    expect "$(get_code "$FOLLOWER_API/api/v1/queues")" 200 "GET /api/v1/queues on the follower"
    expect "$(get_code "$FOLLOWER_API/api/v1/queues/$1")" 404 "the refused queue on the follower"
    expect "$(get_code "$LEADER_API/api/v1/queues/$1")" 404 "the refused queue on the leader"
    expect "$(curl -s -o /dev/null -w '%{http_code}' -XDELETE "$FOLLOWER_API/api/v1/queues/q")" \
        503 "DELETE /api/v1/queues/q on the follower"
    expect "$(get_code "$LEADER_API/api/v1/queues/q")" 200 "q after the follower refused its delete"
    # The follower's reads follow the leader's changes within a retry period (it reloads the
    # store), not only what it loaded when it started.
    expect "$(post_queue "$LEADER_API" "seen$1")" 201 "POST /api/v1/queues seen$1 to the leader"
    local t0 dt
    t0=$(now_ms)
    for _ in $(seq 100); do
        [ "$(get_code "$FOLLOWER_API/api/v1/queues/seen$1")" = 200 ] && break
        sleep 0.02
    done
    dt=$(($(now_ms) - t0))
    expect "$(get_code "$FOLLOWER_API/api/v1/queues/seen$1")" 200 "the leader's new queue on the follower"
    [ "$dt" -le $((RETRY_MS + SLACK_MS)) ] || fail "the follower showed the leader's new queue after $dt ms"
    # /metrics: who leads, and the electors' counters.
    expect "$(metric "$LEADER_API" muster_leader_is_leader) $(metric "$FOLLOWER_API" muster_leader_is_leader)" \
        "1 0" "muster_leader_is_leader on the leader and the follower"
    expect "$(metric "$LEADER_API" muster_leader_transitions_total) $(metric "$FOLLOWER_API" muster_leader_transitions_total)" \
        "1 0" "muster_leader_transitions_total on the leader and the follower"
    [ "$(metric "$LEADER_API" muster_leader_writes_total)" -gt 0 ] || fail "the leader wrote no Lease"
    [ "$(metric "$FOLLOWER_API" muster_leader_attempts_total)" -gt 0 ] || fail "the follower never read the Lease"
    expect "$(metric "$FOLLOWER_API" muster_leader_writes_total)" 0 "the follower's Lease writes"
    # It reloaded for the new queue, and reloads nothing while the leader commits nothing.
    local r0 r1
    r0=$(metric "$FOLLOWER_API" muster_follower_reloads_total)
    [ "$r0" -gt 0 ] || fail "the follower never reloaded the store"
    [ -z "${QUIET_LEADER:-}" ] && return 0
    sleep $((RETRY_MS * 4 / 1000 + 1))
    r1=$(metric "$FOLLOWER_API" muster_follower_reloads_total)
    expect "$r1" "$r0" "the follower's reloads over 4 retry periods of an idle leader"
}

expect "$(post_queue "$LEADER_API" q)" 201 "POST /api/v1/queues to the leader ($(cat "$TMP/post.out"))"
QUIET_LEADER=1 follower_refuses refused

# --- the workload stream ---
stream &
STREAM_PID=$!

# --- failovers ---
MIN=$((LEASE_S * 1000 - RETRY_MS - 300))
MAX=$((LEASE_S * 1000 + RETRY_MS + SLACK_MS))
TIMES=()
for f in $(seq "$FAILOVERS"); do
    # Kill at a random point of the leader's work: 0-0.4 s after it reconciled, or (every other
    # round) 0-20 ms after a burst of four Jobs, while their dispatches may be half done.
    sleep "0.$((RANDOM % 5))"
    if [ $((f % 2)) -eq 0 ]; then
        for i in 1 2 3 4; do job "b$f-$i" $((i % 3 + 1)) 1 3s; done | k create -f - >/dev/null
        sleep "0.0$((RANDOM % 2))$((RANDOM % 10))"
    fi
    t0=$(now_ms)
    kill -KILL "$LEADER_PID"
    wait "$LEADER_PID" 2>/dev/null || true
    for _ in $(seq 400); do
        grep -q '^musterd: leading' "$TMP/md$FOLLOWER.out" && break
        sleep 0.01
    done
    t1=$(now_ms)
    grep -q '^musterd: leading' "$TMP/md$FOLLOWER.out" ||
        fail "failover $f: musterd $FOLLOWER never took over"
    dt=$((t1 - t0))
    TIMES+=("$dt")
    [ "$dt" -ge "$MIN" ] || fail "failover $f: took over $dt ms after the kill, before the lease could expire ($MIN ms)"
    [ "$dt" -le "$MAX" ] || fail "failover $f: took over $dt ms after the kill (at most $MAX ms)"
    LEADER=$FOLLOWER LEADER_PID=$FOLLOWER_PID LEADER_API=$FOLLOWER_API
    start_md "$NEXT"
    FOLLOWER=$NEXT FOLLOWER_PID=$MD_PID FOLLOWER_API=$MD_API
    NEXT=$((NEXT + 1))
    wait_line "$FOLLOWER" '^musterd: following until it holds the Lease'
    wait_line "$LEADER" 'reconciled with the hub'
    [ $((f % 5)) -eq 0 ] && follower_refuses "refused$f"
    grep -q 'lost the Lease' "$TMP/md$LEADER.err" && fail "failover $f: the new leader lost the Lease"
done
# A frozen leader (SIGSTOP, as a stalled VM or node): the follower takes over; thawed, the old
# one finds its renew deadline long past, writes nothing (the fence) and exits non-zero.
sleep 0.3
kill -STOP "$LEADER_PID"
t0=$(now_ms)
wait_line "$FOLLOWER" '^musterd: leading'
echo "takeover from a frozen leader: $(($(now_ms) - t0)) ms"
sleep 0.5
kill -CONT "$LEADER_PID"
rc=0
wait "$LEADER_PID" || rc=$?
[ "$rc" -ne 0 ] || fail "the thawed old leader exited 0"
grep -q 'lost the Lease' "$TMP/md$LEADER.err" || fail "the thawed old leader did not say it lost the Lease"
LEADER=$FOLLOWER LEADER_PID=$FOLLOWER_PID LEADER_API=$FOLLOWER_API
start_md "$NEXT"
FOLLOWER=$NEXT FOLLOWER_PID=$MD_PID FOLLOWER_API=$MD_API
NEXT=$((NEXT + 1))
wait_line "$FOLLOWER" '^musterd: following until it holds the Lease'
wait_line "$LEADER" 'reconciled with the hub'
sleep 1

kill -KILL "$STREAM_PID"
wait "$STREAM_PID" 2>/dev/null || true
STREAM_PID=
sorted=$(printf '%s\n' "${TIMES[@]}" | sort -n | tr '\n' ' ')
echo "takeover after SIGKILL, ms (lease ${LEASE_S}s, retry ${RETRY_MS}ms), sorted: $sorted"
echo "half-done dispatches the new leaders resumed: $(cat "$TMP"/md*.out |
    sed -n 's/.*reconciled with the hub: .* resuming \([0-9]*\) half-done.*/\1/p' | awk '{n += $1} END {print n + 0}')"

end_state "$LEADER_API"

# --- SIGTERM hand-over: the follower takes over at its next retry, sweeps orphans ---
t0=$(now_ms)
kill -TERM "$LEADER_PID"
for _ in $(seq 400); do
    grep -q '^musterd: leading' "$TMP/md$FOLLOWER.out" && break
    sleep 0.01
done
dt=$(($(now_ms) - t0))
grep -q '^musterd: leading' "$TMP/md$FOLLOWER.out" || fail "no takeover after SIGTERM"
rc=0
wait "$LEADER_PID" || rc=$?
expect "$rc" 0 "the old leader's exit status after SIGTERM"
echo "takeover after SIGTERM: $dt ms"
[ "$dt" -le $((RETRY_MS + 1000 + SLACK_MS)) ] ||
    fail "takeover $dt ms after a SIGTERM (the release should hand over within one retry)"
LEADER=$FOLLOWER LEADER_PID=$FOLLOWER_PID LEADER_API=$FOLLOWER_API
wait_line "$LEADER" 'reconciled with the hub'

check_orphans

# The last leader stops cleanly too.
kill -TERM "$LEADER_PID"
rc=0
wait "$LEADER_PID" || rc=$?
expect "$rc" 0 "the last leader's exit status after SIGTERM"
expect "$(k get lease -n muster-system musterd -o jsonpath='{.spec.holderIdentity}')" "" \
    "the Lease's holder after the last leader's SIGTERM"
echo "leader_failover: ok ($FAILOVERS failovers, $NJOBS Jobs)"
