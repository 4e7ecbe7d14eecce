#!/usr/bin/env bash
# Issue 15: musterd killed deterministically at each named step boundary of the commit protocol,
# rollback and release (MUSTER_CRASH_AT, docs/dispatcher.md "Crash points"), one run per point:
# a fresh muster-sim and database, a small set of workloads that passes every boundary, musterd
# ends itself at the point (exit 137, as SIGKILL leaves it), is started again on the same
# database without the point, and must converge (tests/tools/dispatch_check.c): every RB that
# fits dispatched, once per admitted ledger row, no barrier or half-suspended RB left, no
# placement patch sent twice, usage equal to the ledger and the hub, no orphan gang object.
# A point the scenario never reaches fails the test: the names stay true to the code.
# MUSTER_CRASH_ONLY=NAME[,NAME...] runs only those points.
# Usage: dispatch_crashpoints.sh PATH/TO/musterd PATH/TO/muster-sim PATH/TO/muster-dispatch-check
set -euo pipefail

MUSTERD=$1
SIM=$2
CHECK=$3
NAME=dispatch_crashpoints
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=crash_lib.sh
. "$(dirname "$0")/crash_lib.sh"

# The points and what makes the scenario pass them; "rollback" points add a gang that cannot
# start (a user's OverridePolicy sends its pods in c2 and c3 to a PodGroup that does not exist),
# rolled back after the queue's 2 s gang timeout; the fault goes when musterd dies, so the
# attempt after the back-off (10 s) runs. "loss" and "replace" points add a Deployment whose
# cluster, once it runs there, gets a NoExecute taint it does not tolerate (a cluster lost,
# docs/dispatcher.md "A cluster lost"), under a queue with onClusterLoss Requeue / Replace; the
# taint goes when musterd dies. Every other run is without them, and scales two Deployments once
# they run (issue 17): sd, spread over two clusters, down from 9 to 4 replicas (its row shrinks,
# its PodGroup Works and spec.clusters follow, the cluster it leaves loses its Work), and zd to 0
# (released, its placement undone). "grow" points add instead a Deployment gd, spread, scaled up
# from 2 to 5 replicas once it runs (issue 17, docs/dispatcher.md "Scale up"): its delta is
# recorded on its row (grow.ledger), admitted and folded into the row, which goes back to
# admitted with the grown placement (grow.admit); the commit protocol's points then run again.
# "elastic" points cap the queue at 7 cpu and add an elastic spread Deployment ed (8 x 1 cpu,
# min-member 2; docs/dispatcher.md "Partial admission") that never fits whole under that cap:
# it is admitted at its minimum (elastic.ledger: the row holds 2 replicas and records the other
# 6 as its delta; vj and dd take 5 cpu, sj waits), and once it is lifted (Scheduled=False says
# that its rest waits) the cap goes up to 200 cpu,
# so the rest is admitted (grow.admit) and sj runs. After the crash the cap goes up (if it had
# not), so both converge. "named" points run only a Deployment nd whose pod template names
# muster's PodGroup and Volcano itself (docs/gangobj.md, "A template that names its PodGroup"):
# no policy, its PodGroup Work, then one patch placing and lifting it.
POINTS=(
    queue.ledger hold requeue.ledger dispatch.ledger dispatch.objects.one dispatch.objects
    dispatch.applied dispatch.assign dispatch.barrier dispatch.lift dispatch.assign-lift
    dispatch.dispatched dispatch.status follow.running release.ledger release.objects
    resize.ledger resize.works resize.clusters resize.drop resize.zero
    rollback:rollback.ledger rollback:rollback.barrier rollback:rollback.clear
    rollback:rollback.objects.one rollback:rollback.objects
    loss:loss.ledger replace:loss.replace.ledger
    grow:grow.ledger grow:grow.admit
    elastic:elastic.ledger elastic:grow.admit
    named:dispatch.objects named:dispatch.applied named:dispatch.assign-lift
)

BREAK='{"apiVersion":"policy.karmada.io/v1alpha1","kind":"OverridePolicy","metadata":{"name":"zz-break","namespace":"crash"},"spec":{"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"crash","name":"broken"}],"overrideRules":[{"targetCluster":{"clusterNames":["c2","c3"]},"overriders":{"plaintext":[{"path":"/spec/template/metadata/annotations/scheduling.k8s.io~1group-name","operator":"add","value":"no-such-group"}]}}]}}'

NAMED='{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nd","labels":{"volcano.sh/queue-name":"'$Q'"},"annotations":{"scheduling.muster.io/placement":"spread"}},"spec":{"replicas":20,"selector":{"matchLabels":{"app":"nd"}},"template":{"metadata":{"labels":{"app":"nd"},"annotations":{"scheduling.k8s.io/group-name":"muster-nd-deployment"}},"spec":{"schedulerName":"volcano","containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"4"}}}]}}}}'

ELASTIC='{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"ed","labels":{"volcano.sh/queue-name":"'$Q'"},"annotations":{"scheduling.muster.io/placement":"spread","scheduling.muster.io/min-member":"2","scheduling.muster.io/elastic":"true"}},"spec":{"replicas":8,"selector":{"matchLabels":{"app":"ed"}},"template":{"metadata":{"labels":{"app":"ed"}},"spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"1"}}}]}}}}'

uncap() { # the queue's capability back to the other runs' 200 cpu
    curl -sf -XPATCH "$API/api/v1/queues/$Q" -H 'Content-Type: application/merge-patch+json' \
        -d '{"capability":{"cpu":"200"}}' >/dev/null || dfail "could not raise $Q's capability"
}

patch() { # PATH BODY: a JSON merge patch, as a user's kubectl would send it
    local try code
    for try in 1 2 3 4 5 6 7 8 9 10; do
        code=$(curl -s -o /dev/null -w '%{http_code}' -XPATCH "$BASE/$1" \
            -H 'Content-Type: application/merge-patch+json' -d "$2")
        [ "$code" = 200 ] && return 0
        sleep 0.05
    done
    dfail "PATCH $1: $code"
}

running() { # RB: placed and lifted, Scheduled=True (dispatched, not only admitted)
    curl -sf "$BASE/apis/work.karmada.io/v1alpha2/namespaces/$NS/resourcebindings/$1" |
        jq -e '(.spec.clusters | length > 0) and .spec.suspension.scheduling == false and
               ([.status.conditions[]? | select(.type == "Scheduled" and .status == "True")] | length == 1)' \
            >/dev/null 2>&1
}

lifted() { # RB: placed and lifted (its Scheduled may say that a scale up waits)
    curl -sf "$BASE/apis/work.karmada.io/v1alpha2/namespaces/$NS/resourcebindings/$1" |
        jq -e '(.spec.clusters | length > 0) and .spec.suspension.scheduling == false' \
            >/dev/null 2>&1
}

# lost_cluster: the cluster the Deployment ld runs in, once muster lifted its hold; else "".
lost_cluster() {
    curl -sf "$BASE/apis/work.karmada.io/v1alpha2/namespaces/$NS/resourcebindings/ld-deployment" |
        jq -r 'if .spec.suspension.scheduling == false then (.spec.clusters // [])[0].name // ""
               else "" end' 2>/dev/null || true
}

# one_point POINT WITH_ROLLBACK [LOSS_POLICY]
one_point() {
    local point=$1 broken=$2 loss=${3:-} grow=${4:-} elastic=${5:-} named=${6:-} t0=$SECONDS rc=0 tainted=
    rm -f "$TMP/events.log" "$TMP"/muster.db* "$TMP"/md.* "$TMP/doomed" "$TMP/check.out"
    start_sim
    export MUSTER_CRASH_AT=$point
    start_musterd
    unset MUSTER_CRASH_AT
    local cap=200
    [ -n "$elastic" ] && cap=7 # ed fits only at its minimum until uncap
    curl -sf -XPOST "$API/api/v1/queues" -H 'Content-Type: application/json' \
        -d "{\"name\":\"$Q\",\"parent\":\"root\",\"capability\":{\"cpu\":\"$cap\"},\"gangTimeoutSeconds\":2${loss:+,\"onClusterLoss\":\"$loss\"}}" \
        >/dev/null || dfail "$point: could not create queue $Q"
    [ "$broken" = 1 ] && post "apis/policy.karmada.io/v1alpha1/namespaces/$NS/overridepolicies" "$BREAK"
    if [ -n "$named" ]; then
        # 80 cpu, spread over two clusters: two PodGroup Works, no policy
        post "apis/apps/v1/namespaces/$NS/deployments" "$NAMED"
    else
    job sj 9 8 2 1        # 72 cpu, spread over two clusters (64 each at most): two PodGroup
                          # Works and the policy; finishes after 2 s
    vcjob vj 2 1 2        # Volcano Job: placement and lift in one patch
    fi
    deployment dd 2 1     # deleted below: released because its RB goes
    job unfit-x 1 20 1 0  # no node holds it: held, NoClusterFit
    [ "$broken" = 1 ] && deployment broken 9 8 # 72 cpu: spread over two or three clusters
    if [ "$broken" = 0 ] && [ -z "$loss" ] && [ -z "$grow" ] && [ -z "$elastic" ] && [ -z "$named" ]; then
        deployment sd 9 8 # 72 cpu: at most 8 a cluster, so two clusters
        deployment zd 2 1
    fi
    [ -n "$grow" ] && deployment gd 2 8 # scaled up to 5 once it runs
    [ -n "$elastic" ] && post "apis/apps/v1/namespaces/$NS/deployments" "$ELASTIC"
    [ -n "$loss" ] && deployment ld 2 1 # its cluster is lost once it runs
    # the unfit Job waits: a user lifts its hold (musterd holds it again), then its template
    # asks for more (its pending row is replaced)
    patch "apis/work.karmada.io/v1alpha2/namespaces/$NS/resourcebindings/unfit-x-job" \
        '{"spec":{"suspension":{"scheduling":false}}}'
    patch "apis/batch/v1/namespaces/$NS/jobs/unfit-x" '{"spec":{"parallelism":2}}'
    # (an ASan build is several times slower, and the suite runs two tests at once)
    local slow=1
    case "$MUSTERD" in *asan*) slow=3 ;; esac
    local deadline=$((SECONDS + 20 * slow)) deleted=0 scaled=$broken
    [ -n "$loss" ] && scaled=1 # the loss runs scale nothing
    [ -n "$grow" ] && scaled=1 # the grow runs scale gd only
    [ -n "$elastic" ] && scaled=1 # the elastic runs scale nothing
    [ -n "$named" ] && scaled=1 # the named runs scale nothing
    while kill -0 "$MD_PID" 2>/dev/null; do
        [ $SECONDS -lt "$deadline" ] || dfail "$point: musterd never reached the crash point"
        if [ $scaled = 0 ] && [ $((SECONDS - t0)) -ge 2 ] && running sd-deployment &&
            running zd-deployment; then
            patch "apis/apps/v1/namespaces/$NS/deployments/sd/scale" '{"spec":{"replicas":4}}'
            patch "apis/apps/v1/namespaces/$NS/deployments/zd/scale" '{"spec":{"replicas":0}}'
            scaled=1
        fi
        if [ "$grow" = 1 ] && running gd-deployment; then
            patch "apis/apps/v1/namespaces/$NS/deployments/gd/scale" '{"spec":{"replicas":5}}'
            grow=2
        fi
        if [ "$elastic" = 1 ] && lifted ed-deployment; then
            uncap
            elastic=2
        fi
        if [ -n "$loss" ] && [ -z "$tainted" ]; then
            tainted=$(lost_cluster)
            [ -n "$tainted" ] && patch "apis/cluster.karmada.io/v1alpha1/clusters/$tainted" \
                '{"spec":{"taints":[{"key":"crash-loss","effect":"NoExecute"}]}}'
        fi
        if [ $deleted = 0 ] && [ $((SECONDS - t0)) -ge 3 ]; then
            delete "apis/apps/v1/namespaces/$NS/deployments/dd"
            deleted=1
        fi
        sleep 0.05
    done
    wait "$MD_PID" || rc=$?
    MD_PID=
    [ "$rc" = 137 ] || dfail "$point: musterd exited with $rc, not 137"
    grep -q "crash point $point reached" "$TMP/md.err" || dfail "$point: no crash line on stderr"
    [ "$broken" = 1 ] && delete "apis/policy.karmada.io/v1alpha1/namespaces/$NS/overridepolicies/zz-break"
    [ -n "$tainted" ] && patch "apis/cluster.karmada.io/v1alpha1/clusters/$tainted" \
        '{"spec":{"taints":null}}'
    [ $deleted = 1 ] || delete "apis/apps/v1/namespaces/$NS/deployments/dd"
    start_musterd
    [ "$elastic" = 1 ] && uncap
    converge 60
    finish
    echo "$point: converged in $((SECONDS - t0)) s ($(grep -o 'resuming [0-9]* half-done dispatches, undoing [0-9]*' "$TMP/md.out" | tail -1))"
}

start_all=$SECONDS
n=0
for p in "${POINTS[@]}"; do
    broken=0 loss= grow= elastic= named=
    case $p in
    rollback:*) broken=1 p=${p#rollback:} ;;
    loss:*) loss=Requeue p=${p#loss:} ;;
    replace:*) loss=Replace p=${p#replace:} ;;
    grow:*) grow=1 p=${p#grow:} ;;
    elastic:*) elastic=1 p=${p#elastic:} ;;
    named:*) named=1 p=${p#named:} ;;
    esac
    if [ -n "${MUSTER_CRASH_ONLY:-}" ] && [[ ",$MUSTER_CRASH_ONLY," != *",$p,"* ]]; then
        continue
    fi
    one_point "$p" "$broken" "$loss" "$grow" "$elastic" "$named"
    n=$((n + 1))
done
echo "dispatch_crashpoints: ok ($n points, $((SECONDS - start_all)) s)"
