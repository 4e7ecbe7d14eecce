# Shared by leader_failover.sh and sigterm.sh: a muster-sim with two member clusters, the Lease's
# namespace, a `team` namespace whose batch Jobs a PropagationPolicy hands to muster, a raw watch
# of the team's ResourceBindings, musterd processes with --leader-elect on one database, and
# batch Job templates. Source after lib.sh with SIM and MUSTERD set.

LEASE_S=2
RENEW_MS=1500
RETRY_MS=500
ELECT=(--leader-elect --leader-elect-lease-duration ${LEASE_S}s
       --leader-elect-renew-deadline ${RENEW_MS}ms --leader-elect-retry-period ${RETRY_MS}ms)
MD_PIDS=()
WATCH_PID=

k() { kubectl --request-timeout=10s "$@"; }

now_ms() { echo $(($(date +%s%N) / 1000000)); }

ha_cleanup() {
    local p
    for p in "${MD_PIDS[@]}" $WATCH_PID ${STREAM_PID:-}; do
        kill -KILL "$p" 2>/dev/null || true
    done
    if [ -n "${MUSTER_KEEP_TMP:-}" ]; then
        [ -n "$SIM_PID" ] && kill -KILL "$SIM_PID" 2>/dev/null
        echo "kept $TMP" >&2
        return 0
    fi
    cleanup
}
trap ha_cleanup EXIT

# Every musterd's output goes with a failure: the story of who led when.
fail() {
    echo "FAIL: $*" >&2
    local f
    for f in "$TMP"/md*.out "$TMP"/md*.err; do
        [ -s "$f" ] && grep -v "following (Lease held" "$f" | sed "s#^#$(basename "$f"): #" | tail -25 >&2
    done
    [ -f "$TMP/sim.err" ] && sed 's/^/muster-sim: /' "$TMP/sim.err" >&2
    exit 1
}

start_sim() {
    cat >"$TMP/scenario.yaml" <<'YAML'
clusters:
  - name: east
    nodes:
      - count: 4
        allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
  - name: west
    nodes:
      - count: 2
        allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
objects:
  - {apiVersion: v1, kind: Namespace, metadata: {name: muster-system}}
  - {apiVersion: v1, kind: Namespace, metadata: {name: team}}
  - apiVersion: policy.karmada.io/v1alpha1
    kind: PropagationPolicy
    metadata: {name: to-muster, namespace: team}
    spec:
      schedulerName: muster
      resourceSelectors:
        - {apiVersion: batch/v1, kind: Job}
      placement:
        clusterAffinity:
          clusterNames: [east, west]
        replicaScheduling:
          replicaSchedulingType: Divided
          replicaDivisionPreference: Weighted
YAML
    "$SIM" --listen 127.0.0.1:0 --scenario "$TMP/scenario.yaml" >"$TMP/sim.out" 2>"$TMP/sim.err" &
    SIM_PID=$!
    wait_port "$TMP/sim.out" http
    cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "$BASE"}}]
contexts: [{name: sim, context: {cluster: sim, user: sim, namespace: team}}]
current-context: sim
users: [{name: sim, user: {}}]
YAML
    # Every change of every team RB, in order, with its type (kubectl -w drops the type).
    curl -sN "$BASE/apis/work.karmada.io/v1alpha2/namespaces/team/resourcebindings?watch=1" \
        >"$TMP/rb-watch.jsonl" 2>/dev/null &
    WATCH_PID=$!
}

# start_md N [flags...]: musterd number N on the shared database, output in md$N.out/err; sets
# MD_PID and MD_API (its admin API's base URL) once it serves.
start_md() {
    local n=$1
    shift
    "$MUSTERD" --kubeconfig "$KUBECONFIG" --db "$TMP/muster.db" --listen 127.0.0.1:0 \
        "${ELECT[@]}" "$@" >"$TMP/md$n.out" 2>"$TMP/md$n.err" &
    MD_PID=$!
    MD_PIDS+=("$MD_PID")
    local port=
    for _ in $(seq 400); do
        port=$(sed -n 's#^admin API: http://127.0.0.1:\([0-9]*\)/.*#\1#p' "$TMP/md$n.out" 2>/dev/null || true)
        [ -n "$port" ] && break
        kill -0 "$MD_PID" 2>/dev/null || fail "musterd $n exited at start"
        sleep 0.025
    done
    [ -n "$port" ] || fail "musterd $n did not report its admin API port"
    MD_API=http://127.0.0.1:$port
}

# wait_line N REGEX [TRIES]: waits (25 ms steps) until md$N.out has a line matching REGEX.
wait_line() {
    for _ in $(seq "${3:-400}"); do
        grep -q "$2" "$TMP/md$1.out" && return 0
        sleep 0.025
    done
    fail "musterd $1 never printed /$2/"
}

# job NAME PARALLELISM CPU DURATION [QUEUE]: a batch Job template (one YAML document).
job() {
    cat <<YAML
---
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: team
  labels: {volcano.sh/queue-name: ${5:-q}}
  annotations: {sim.muster.io/duration: $4}
spec:
  parallelism: $2
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox
          resources: {requests: {cpu: "$3", memory: 1Gi}}
YAML
}

# stream [PREFIX]: two Jobs every 0.4 s (each kubectl create takes its time too), 1-3 pods of 1
# cpu, 3 s each, in queue q; run it in the background and kill it.
stream() {
    local i=0 p=${1:-s}
    while :; do
        { job "$p$i" $((i % 3 + 1)) 1 3s; job "$p$((i + 1))" $(((i + 1) % 3 + 1)) 1 3s; } |
            k create -f - >/dev/null 2>>"$TMP/stream.err" || true
        i=$((i + 2))
        sleep 0.4
    done
}

# rb_state: one line per team RB: name, placement (cluster=replicas,...), scheduling suspended
# (true/false).
rb_state() {
    k get rb -o json | jq -r '.items[] | [.metadata.name,
        ((.spec.clusters // []) | map("\(.name)=\(.replicas)") | join(",")),
        (.spec.suspension.scheduling // false | tostring)] | @tsv' | sort
}

# check_watch: from every RB change the watch saw, each RB's placement goes from empty to a
# value at most once and never from one value to another: no RB was dispatched twice, nor
# re-placed while a dispatch of it was half done. Prints the number of placements per RB as
# "name count" lines to $TMP/placements.
check_watch() {
    jq -r 'select(.type == "ADDED" or .type == "MODIFIED" or .type == "DELETED") |
        [.type, .object.metadata.name, .object.metadata.resourceVersion,
         ((.object.spec.clusters // []) | map("\(.name)=\(.replicas)") | join(",")),
         (.object.spec.suspension.scheduling // false | tostring)] | @tsv' \
        "$TMP/rb-watch.jsonl" >"$TMP/rb-changes.tsv" || fail "the RB watch is not JSON lines"
    [ -s "$TMP/rb-changes.tsv" ] || fail "the RB watch saw nothing"
    awk -F'\t' -v out="$TMP/placements" '
        $1 == "DELETED" { print "deleted " $2 > "/dev/stderr"; bad = 1; next }
        {
            p = place[$2]; seen[$2] = 1
            if (p != "" && $4 != "" && $4 != p) {
                printf "%s: placement %s changed to %s at resourceVersion %s without being cleared\n", $2, p, $4, $3 > "/dev/stderr"; bad = 1
            }
            if (p != "" && $4 == "") { printf "%s: placement %s cleared at resourceVersion %s (undone)\n", $2, p, $3 > "/dev/stderr"; bad = 1 }
            if (p == "" && $4 != "") n[$2]++
            place[$2] = $4
        }
        END { for (r in seen) print r, n[r] + 0 > out; exit bad }' "$TMP/rb-changes.tsv" 2>"$TMP/watch-violations" ||
        fail "RB placements: $(head -20 "$TMP/watch-violations")"
}

# end_state API: long Jobs that stay running and one that cannot fit anywhere are created, then
# once the stream has drained: every Job that fits was dispatched or finished, the one that does
# not is pending and held, the live ledger rows (of the musterd at API) are exactly those three and
# their RBs exist with the rows' uids, queue q's usage is the running Jobs' requests, every RB
# has exactly one ledger row ever, and from the watch no RB was dispatched twice, re-placed or
# undone. Sets NJOBS.
end_state() {
    local api=$1 live bad b
    { job long1 2 1 600s; job long2 3 1 600s; job huge 1 100 600s; } | k create -f - >/dev/null
    JOBS=$(k get jobs -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | sort)
    NJOBS=$(echo "$JOBS" | wc -l)
    # Every RB exists, every one but huge is placed and no longer suspended, every short Job has
    # finished and the ledger has no live row but long1, long2 and huge.
    for _ in $(seq 600); do
        rb_state >"$TMP/rbs.tsv"
        live=$(curl -sf "$api/api/v1/bindings" | jq -r '.items[] | "\(.name) \(.state)"' |
            sort | tr '\n' ' ')
        if [ "$(wc -l <"$TMP/rbs.tsv")" -eq "$NJOBS" ] &&
            [ "$(awk -F'\t' '$1 != "huge-job" && ($2 == "" || $3 == "true")' "$TMP/rbs.tsv" | wc -l)" -eq 0 ] &&
            [ "$live" = "huge-job pending long1-job running long2-job running " ]; then
            break
        fi
        sleep 0.1
    done
    expect "$(wc -l <"$TMP/rbs.tsv")" "$NJOBS" "one RB per Job"
    bad=$(awk -F'\t' '$1 != "huge-job" && ($2 == "" || $3 == "true") {print $1}' "$TMP/rbs.tsv" | tr '\n' ' ')
    expect "$bad" "" "RBs of Jobs that fit but were not dispatched"
    expect "$(awk -F'\t' '$1 == "huge-job" {print $2 "|" $3}' "$TMP/rbs.tsv")" "|true" \
        "the Job that fits nowhere: not placed, still held"
    expect "$live" "huge-job pending long1-job running long2-job running " "the live ledger rows"
    curl -sf "$api/api/v1/bindings" >"$TMP/bindings.json"
    # Every live row's RB exists with the row's uid.
    for b in $(jq -r '.items[] | "\(.name)=\(.uid)"' "$TMP/bindings.json"); do
        expect "$(k get rb "${b%%=*}" -o jsonpath='{.metadata.uid}')" "${b#*=}" "uid of RB ${b%%=*}"
    done
    # Usage: long1 and long2 hold 5 pods of 1 cpu and 1Gi; huge holds nothing.
    jq -r '.status.allocated | "\(.cpu) \(.memory)"' <(curl -sf "$api/api/v1/queues/q") >"$TMP/alloc"
    expect "$(cat "$TMP/alloc")" "5 5Gi" "queue q's allocated (the dispatched, unfinished RBs)"
    expect "$(curl -sf "$api/api/v1/queues/q" | jq -r '.status | "\(.admitted) \(.pending)"')" \
        "2 1" "queue q's admitted and pending workloads"

    # The ledger's side: one row per binding, ever (a second dispatch or a rollback adds one).
    # (one curl for every binding, its answers concatenated JSON objects, paced under the admin
    # API's per-client rate limit of 50 requests a second)
    curl -sf --rate 40/s $(cut -f1 "$TMP/rbs.tsv" | sed "s#^#$api/api/v1/bindings/team/#") |
        jq -r '"\(.name) \(.history | length) \(.state)"' >"$TMP/history"
    expect "$(wc -l <"$TMP/history")" "$NJOBS" "bindings the ledger knows"
    expect "$(awk '$2 != 1' "$TMP/history" | tr '\n' ' ')" "" "bindings with more than one ledger row"
    expect "$(cut -d' ' -f3 "$TMP/history" | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')" \
        "pending=1 released=$((NJOBS - 3)) running=2 " "the ledger's states, one row per RB"

    # No RB dispatched twice, none re-placed or undone.
    check_watch
    expect "$(awk '$2 != 1 && $1 != "huge-job"' "$TMP/placements" | tr '\n' ' ')" "" \
        "RBs not placed exactly once"
    expect "$(awk '$1 == "huge-job" {print $2}' "$TMP/placements")" 0 "placements of huge-job"
    expect "$(wc -l <"$TMP/placements")" "$NJOBS" "RBs the watch saw"
}

# check_orphans: no muster Work without its dispatched binding, no OverridePolicy without its
# RB: every muster Work is the PodGroup Work of long1 or long2 in a cluster its RB lists; every
# muster OverridePolicy belongs to an RB that exists with the uid of its binding-uid label (muster
# keeps a policy for its RB's life: issue 15, docs/gangobj.md), long1 and long2 each have theirs.
# Call after a start-up reconciliation that came after the short Jobs finished (the periodic
# sweep runs every 30 s).
check_orphans() {
    for _ in $(seq 100); do
        k get works -A -l app.kubernetes.io/managed-by=muster -o json |
            jq -r '.items[] | "\(.metadata.annotations["scheduling.muster.io/binding"]) \(.metadata.namespace | ltrimstr("karmada-es-"))"' |
            sort >"$TMP/pg-works"
        k get op -A -l app.kubernetes.io/managed-by=muster -o json |
            jq -r '.items[] | "\(.metadata.annotations["scheduling.muster.io/binding"]) \(.metadata.labels["scheduling.muster.io/binding-uid"])"' |
            sort >"$TMP/ops"
        k get rb -o json | jq -r '.items[] | "\(.metadata.namespace)/\(.metadata.name) \(.metadata.uid)"' |
            sort >"$TMP/rb-uids"
        k get rb long1-job long2-job -o json |
            jq -r '.items[] | .metadata.name as $n | .spec.clusters[] | "team/\($n) \(.name)"' |
            sort >"$TMP/want-works"
        comm -23 "$TMP/ops" "$TMP/rb-uids" >"$TMP/orphan-ops"
        cmp -s "$TMP/pg-works" "$TMP/want-works" && [ ! -s "$TMP/orphan-ops" ] && break
        sleep 0.1
    done
    expect "$(tr '\n' ' ' <"$TMP/pg-works")" "$(tr '\n' ' ' <"$TMP/want-works")" \
        "muster's PodGroup Works (binding cluster)"
    expect "$(tr '\n' ' ' <"$TMP/orphan-ops")" "" "muster's OverridePolicies whose RB is gone"
    expect "$(cut -d' ' -f1 "$TMP/ops" | grep -c '^team/long[12]-job$')" 2 \
        "long1's and long2's OverridePolicies"
}
