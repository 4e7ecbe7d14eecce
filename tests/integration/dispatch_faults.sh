#!/usr/bin/env bash
# Fault injection (issue 4): the crash test's stream against muster-sim answering 5 % of
# requests with 500/429, ending every watch after 50 events and keeping only 200 events of
# history (so resumed watches meet 410 Expired) converges to the same end-state checks.
# Usage: dispatch_faults.sh PATH/TO/musterd PATH/TO/muster-sim PATH/TO/muster-dispatch-check
set -euo pipefail

MUSTERD=$1
SIM=$2
CHECK=$3
NAME=dispatch_faults
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=crash_lib.sh
. "$(dirname "$0")/crash_lib.sh"

SEED=${MUSTER_FAULT_SEED:-$$}
echo "dispatch_faults: seed $SEED"
start_sim --fault-error-rate 0.05 --seed "$SEED" --fault-drop-watch-after 50 --history 200
start_musterd
create_queue
start_stream
sleep "${MUSTER_FAULT_SECONDS:-20}"
stop_stream
converge 120
finish
grep -c 'too old\|410\|Expired' "$TMP/md.err" >/dev/null || true
echo "dispatch_faults: ok"
