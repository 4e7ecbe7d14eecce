#!/usr/bin/env bash
# The crash test of issue 4: musterd killed with SIGKILL at random points while a stream of
# workloads comes in, restarted on the same database against the same muster-sim each time.
# At the end (stream stopped, musterd converged) tests/tools/dispatch_check.c checks: no
# overlapping dispatches (event log and ledger), every RB that fits dispatched, usage equals the
# admitted requests, no orphan PodGroup Work or OverridePolicy, nothing half done.
# MUSTER_CRASH_POINTS sets the number of kills (default 50), MUSTER_CRASH_SEED the randomness.
# MUSTER_CRASH_NAMED=1 (the campaign, `make crash-campaign`): every other restart is armed
# with a named step boundary and a passage (MUSTER_CRASH_AT=NAME:N, docs/dispatcher.md "Crash
# points"), so many kills land exactly on a boundary; musterd ends itself there, or is killed if
# it has not reached it 3 s after the random moment.
# MUSTER_STREAM_PAUSE (seconds between two workloads, default 0.04) and MUSTER_CRASH_CONVERGE
# (seconds allowed to converge, default 90) size a long run: a musterd restarted 1,000 times
# dispatches for a fraction of the time, and the backlog the stream leaves takes the queue's
# capacity minutes to drain.
# Usage: dispatch_crash.sh PATH/TO/musterd PATH/TO/muster-sim PATH/TO/muster-dispatch-check
set -euo pipefail

MUSTERD=$1
SIM=$2
CHECK=$3
NAME=dispatch_crash
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=crash_lib.sh
. "$(dirname "$0")/crash_lib.sh"

POINTS=${MUSTER_CRASH_POINTS:-50}
SEED=${MUSTER_CRASH_SEED:-$$}
NAMED=${MUSTER_CRASH_NAMED:-0}
# the boundaries the stream passes (no resume mode, no adoption, no template change, and no
# rollback: every gang of the stream starts; dispatch_crashpoints.sh kills at those)
NAMES=(queue.ledger dispatch.ledger dispatch.objects.one dispatch.objects dispatch.applied
    dispatch.assign dispatch.barrier dispatch.lift dispatch.assign-lift dispatch.dispatched
    dispatch.status follow.running release.ledger release.objects)
echo "dispatch_crash: $POINTS kill points, seed $SEED (MUSTER_CRASH_SEED=$SEED to replay)"

start_all=$SECONDS
start_sim
start_musterd
create_queue
start_stream
RANDOM=$SEED
named=0 armed=
for k in $(seq "$POINTS"); do
    # a random point: anywhere from start-up (informers syncing, reconciling) to mid-stream
    delay=$((RANDOM % 700))
    if [ -n "$armed" ]; then
        # armed: musterd ends itself at the boundary, given up to 3 s more to reach it
        end=$(($(date +%s%N) / 1000000 + delay + 3000))
        while kill -0 "$MD_PID" 2>/dev/null && [ $(($(date +%s%N) / 1000000)) -lt $end ]; do
            sleep 0.01
        done
    else
        sleep "0.$(printf %03d $delay)"
    fi
    kill -KILL "$MD_PID" 2>/dev/null || true
    rc=0
    wait "$MD_PID" 2>/dev/null || rc=$?
    if [ -n "$armed" ] && grep -q "crash point $armed reached" "$TMP/md.err"; then
        named=$((named + 1))
        echo "--- kill $k: at $armed" >>"$TMP/md.out"
        # one crash line per hit: the next grep must not see this one again
        sed -i "s/crash point $armed reached/crash point $armed was reached/" "$TMP/md.err"
    else
        echo "--- kill $k: SIGKILL ($rc)" >>"$TMP/md.out"
    fi
    armed=
    if [ "$NAMED" = 1 ] && [ "$k" -lt "$POINTS" ] && [ $((RANDOM % 2)) = 0 ]; then
        armed=${NAMES[$((RANDOM % ${#NAMES[@]}))]}
        export MUSTER_CRASH_AT="$armed:$((1 + RANDOM % 5))"
    fi
    start_musterd
    unset MUSTER_CRASH_AT
done
stop_stream
converge "${MUSTER_CRASH_CONVERGE:-90}"
finish
echo "dispatch_crash: ok ($POINTS kills, $named of them at a named boundary, $((POINTS - named)) by SIGKILL; $((POINTS + 1)) starts on one database; $((SECONDS - start_all)) s)"
