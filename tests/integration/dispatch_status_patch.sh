#!/usr/bin/env bash
# Issue 22, musterd against muster-sim: Scheduled=True is an RFC 6902 JSON patch of /status
# tested against the RB as read (docs/dispatcher.md, step 6). Karmada's status aggregation
# (FullyApplied, aggregatedStatus) writes the RB while the barrier holds it and again after the
# lift; the patch keeps what it wrote and meets no 409 and no 422. A gang that waited first
# (Scheduled=False written by muster) gets its condition replaced in place; one dispatched at
# once gets it appended. Either way the RB ends with exactly one Scheduled condition.
# Usage: dispatch_status_patch.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_status_patch TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"0"}'

# --- a gang that waits first: muster writes Scheduled=False, then the queue grows ---
k create -f "$FIX/solo-deploy.yaml" >/dev/null
wait_until 15 "solo to wait for q" is_eq False/QuotaExceeded rb_cond solo-deployment Scheduled
api PATCH /api/v1/queues/q '{"capability":{"nvidia.com/gpu":"8"}}' >/dev/null
wait_until 20 "solo to be scheduled" is_eq True/Success rb_cond solo-deployment Scheduled
rb=$(k get rb solo-deployment -o json)
expect "$(jq -r '[.status.conditions[] | select(.type == "Scheduled")] | length' <<<"$rb")" 1 \
    "one Scheduled condition (replaced in place)"
expect "$(jq -r '.status.conditions[0].type' <<<"$rb")" Scheduled "Scheduled where it was"
expect "$(jq -r '.status.schedulerObservedGeneration == .metadata.generation' <<<"$rb")" true \
    "schedulerObservedGeneration is the generation"
expect "$(jq -r '.status.lastScheduledTime != null' <<<"$rb")" true "lastScheduledTime written"
# Karmada's aggregation is kept, and carries on after the status write (lastScheduledTime)
wait_until 15 "FullyApplied True" is_eq True/FullyAppliedSuccess rb_cond solo-deployment FullyApplied
expect "$(k get rb solo-deployment -o json | jq -r '[.status.conditions[] | select(.type == "Scheduled")] | length')" \
    1 "still one Scheduled condition"
expect "$(k get rb solo-deployment -o json | jq -r '.status.aggregatedStatus | length')" 1 \
    "aggregatedStatus kept"

# --- a gang dispatched at once: Scheduled appended after Karmada's FullyApplied ---
sed 's/name: solo$/name: solo2/; s/app: solo}/app: solo2}/g; s/app: solo,/app: solo2,/' \
    "$FIX/solo-deploy.yaml" | k create -f - >/dev/null
wait_until 20 "solo2 to be scheduled" is_eq True/Success rb_cond solo2-deployment Scheduled
rb=$(k get rb solo2-deployment -o json)
expect "$(jq -r '[.status.conditions[].type] | join(",")' <<<"$rb")" FullyApplied,Scheduled \
    "appended after FullyApplied, which muster never wrote"
expect "$(jq -r '.status.schedulerObservedGeneration == .metadata.generation' <<<"$rb")" true \
    "schedulerObservedGeneration is the generation"

# --- no status write conflicted, none failed its test ---
m=$(curl -sf "$API/metrics")
expect "$(sed -n 's/^muster_hub_requests_total{verb="patch",code="409"} //p' <<<"$m")" "" \
    "no patch met 409"
expect "$(sed -n 's/^muster_hub_requests_total{verb="patch",code="422"} //p' <<<"$m")" "" \
    "no patch met 422"
finish
