#!/usr/bin/env bash
# The crash test of issue 4: musterd killed with SIGKILL at random points while a stream of
# workloads comes in, restarted on the same database against the same muster-sim each time.
# At the end (stream stopped, musterd converged) tests/tools/dispatch_check.c checks: no
# overlapping dispatches (event log and ledger), every RB that fits dispatched, usage equals the
# admitted requests, no orphan PodGroup Work or OverridePolicy, nothing half done.
# MUSTER_CRASH_POINTS sets the number of kills (default 50), MUSTER_CRASH_SEED the randomness.
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
echo "dispatch_crash: $POINTS kill points, seed $SEED (MUSTER_CRASH_SEED=$SEED to replay)"

start_sim
start_musterd
create_queue
start_stream
RANDOM=$SEED
for k in $(seq "$POINTS"); do
    # a random point: anywhere from start-up (informers syncing, reconciling) to mid-stream
    sleep "0.$(printf %03d $((RANDOM % 700)))"
    kill -KILL "$MD_PID"
    wait "$MD_PID" 2>/dev/null || true
    echo "--- kill $k" >>"$TMP/md.out"
    start_musterd
done
stop_stream
converge 90
finish
echo "dispatch_crash: ok ($POINTS kills)"
