# crash_lib.sh: shared by dispatch_crash.sh and dispatch_faults.sh: a muster-sim with an object event log, a
# musterd on a fixed database that can be killed and restarted, a stream of workloads created
# over curl, and the end-state check (tests/tools/dispatch_check.c).
# Set MUSTERD, SIM, CHECK and NAME, then source lib.sh and this.

MD_PID=
STREAM_PID=
NS=crash
Q=q1

dispatch_cleanup() {
    [ -n "$STREAM_PID" ] && kill "$STREAM_PID" 2>/dev/null
    [ -n "$MD_PID" ] && kill -KILL "$MD_PID" 2>/dev/null
    # MUSTER_KEEP_TMP=DIR: keep the logs, the event log and the database there
    [ -n "${MUSTER_KEEP_TMP:-}" ] && rm -rf "$MUSTER_KEEP_TMP" && cp -r "$TMP" "$MUSTER_KEEP_TMP"
    cleanup
}
trap dispatch_cleanup EXIT

dfail() {
    if [ -n "${API:-}" ]; then
        curl -s "$API/api/v1/clusters" >"$TMP/clusters.json" || true
        curl -s "$API/api/v1/bindings?limit=1000" >"$TMP/bindings.json" || true
    fi
    [ -f "$TMP/md.err" ] && tail -20 "$TMP/md.err" | sed 's/^/musterd: /' >&2
    [ -f "$TMP/md.out" ] && grep -v ' synced: ' "$TMP/md.out" | tail -20 | sed 's/^/musterd: /' >&2
    fail "$@"
}

write_scenario() {
    cat >"$TMP/scenario.yaml" <<'YAML'
clusters:
  - name: c1
    nodes:
      - {count: 4, allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
  - name: c2
    nodes:
      - {count: 4, allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
  - name: c3
    nodes:
      - {count: 2, allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
objects:
  - {apiVersion: v1, kind: Namespace, metadata: {name: crash}}
  - apiVersion: policy.karmada.io/v1alpha1
    kind: PropagationPolicy
    metadata: {name: to-muster, namespace: crash}
    spec:
      schedulerName: muster
      resourceSelectors:
        - {apiVersion: apps/v1, kind: Deployment}
        - {apiVersion: batch/v1, kind: Job}
        - {apiVersion: batch.volcano.sh/v1alpha1, kind: Job}
      placement:
        clusterAffinity: {clusterNames: [c1, c2, c3]}
        replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}
YAML
}

# start_sim [fault flags...]: sets SIM_PID, BASE and the kubeconfig.
start_sim() {
    write_scenario
    : >"$TMP/sim.out" # lib.sh's wait_port reads it at once (set -e: a missing file ends the test)
    "$SIM" --listen 127.0.0.1:0 --scenario "$TMP/scenario.yaml" --event-log "$TMP/events.log" \
        --event-log-objects 1 "$@" >"$TMP/sim.out" 2>"$TMP/sim.err" &
    SIM_PID=$!
    wait_port "$TMP/sim.out" http
    cat >"$KUBECONFIG" <<KC
apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "$BASE"}}]
contexts: [{name: sim, context: {cluster: sim, user: sim, namespace: $NS}}]
current-context: sim
users: [{name: sim, user: {}}]
KC
}

# start_musterd: on $TMP/muster.db, appending to md.err; sets MD_PID and API once the admin API
# listens.
start_musterd() {
    if [ -f "$TMP/md.out" ]; then cat "$TMP/md.out" >>"$TMP/md.log"; fi
    : >"$TMP/md.out"
    "$MUSTERD" --kubeconfig "$KUBECONFIG" --db "$TMP/muster.db" --listen 127.0.0.1:0 \
        --kube-api-qps -1 >"$TMP/md.out" 2>>"$TMP/md.err" &
    MD_PID=$!
    local port=
    for _ in $(seq 400); do
        port=$(sed -n 's#^admin API: http://127.0.0.1:\([0-9]*\)/.*#\1#p' "$TMP/md.out" || true)
        [ -n "$port" ] && break
        kill -0 "$MD_PID" 2>/dev/null || dfail "musterd exited at start-up"
        sleep 0.02
    done
    [ -n "$port" ] || dfail "musterd did not report its admin API port"
    API=http://127.0.0.1:$port
}

create_queue() {
    curl -sf -XPOST "$API/api/v1/queues" -H 'Content-Type: application/json' \
        -d "{\"name\":\"$Q\",\"parent\":\"root\",\"deserved\":{\"cpu\":\"100\"},\"capability\":{\"cpu\":\"120\"},\"gangTimeoutSeconds\":20}" \
        >/dev/null || dfail "could not create queue $Q"
}

post() { # RESOURCE-PATH BODY
    local try code
    for try in 1 2 3 4 5 6 7 8 9 10; do
        code=$(curl -s -o /dev/null -w '%{http_code}' -XPOST "$BASE/$1" \
            -H 'Content-Type: application/json' -d "$2")
        case $code in 201 | 409) return 0 ;; esac
        sleep 0.05
    done
    echo "stream: POST $1: $code" >&2
}

delete() { # PATH
    local try code
    for try in 1 2 3 4 5 6 7 8 9 10; do
        code=$(curl -s -o /dev/null -w '%{http_code}' -XDELETE "$BASE/$1")
        case $code in 200 | 404) return 0 ;; esac
        sleep 0.05
    done
}

job() { # NAME PODS CPU SECONDS SPREAD
    local ann="\"sim.muster.io/duration\":\"$4s\""
    [ "$5" = 1 ] && ann="$ann,\"scheduling.muster.io/placement\":\"spread\""
    post apis/batch/v1/namespaces/$NS/jobs "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"$1\",\"labels\":{\"volcano.sh/queue-name\":\"$Q\"},\"annotations\":{$ann}},\"spec\":{\"parallelism\":$2,\"completions\":$2,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"$3\"}}}]}}}}"
}

deployment() { # NAME PODS CPU
    post apis/apps/v1/namespaces/$NS/deployments "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"$1\",\"labels\":{\"volcano.sh/queue-name\":\"$Q\"},\"annotations\":{\"scheduling.muster.io/placement\":\"spread\"}},\"spec\":{\"replicas\":$2,\"selector\":{\"matchLabels\":{\"app\":\"$1\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"$1\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"$3\"}}}]}}}}"
}

vcjob() { # NAME WORKERS CPU SECONDS
    post apis/batch.volcano.sh/v1alpha1/namespaces/$NS/jobs "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"$1\",\"annotations\":{\"sim.muster.io/duration\":\"$4s\"}},\"spec\":{\"queue\":\"$Q\",\"schedulerName\":\"volcano\",\"minAvailable\":$(($2 + 1)),\"tasks\":[{\"name\":\"ps\",\"replicas\":1,\"template\":{\"spec\":{\"containers\":[{\"name\":\"ps\",\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}},{\"name\":\"worker\",\"replicas\":$2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"w\",\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"$3\"}}}]}}}]}}"
}

# stream: workloads until $TMP/stop exists, about one every 40 ms (MUSTER_STREAM_PAUSE seconds
# between two, default 0.04): batch Jobs (single-cluster and
# spread) that finish after 1-3 s, Volcano Jobs, Deployments, and now and then a Job no node can
# hold (named unfit-*). Prints how many it made. Deployments never finish, so each is deleted
# later: now and then at random, and the oldest whenever more than STREAM_DEPLOYMENTS_MAX are
# alive. Left to pile up they filled the queue's capability after some 800 workloads and every
# later workload rightly waited QuotaExceeded: a longer run (more kill points) could not
# converge, whatever musterd did (issue 15, crash recovery defect 4).
STREAM_DEPLOYMENTS_MAX=12
stream() {
    local i=0 r
    RANDOM=${SEED:-7}
    while [ ! -e "$TMP/stop" ]; do
        i=$((i + 1))
        r=$((RANDOM % 20))
        if [ $r -lt 12 ]; then
            job "j$i" $((1 + RANDOM % 4)) $((1 + RANDOM % 3)) $((1 + RANDOM % 3)) $((RANDOM % 3 == 0))
        elif [ $r -lt 15 ]; then
            vcjob "v$i" $((1 + RANDOM % 3)) $((1 + RANDOM % 2)) $((1 + RANDOM % 3))
        elif [ $r -lt 18 ]; then
            deployment "d$i" $((1 + RANDOM % 2)) 1
            echo "d$i" >>"$TMP/doomed"
            if [ "$(wc -l <"$TMP/doomed")" -gt $STREAM_DEPLOYMENTS_MAX ]; then
                delete "apis/apps/v1/namespaces/$NS/deployments/$(head -1 "$TMP/doomed")"
                sed -i 1d "$TMP/doomed"
            fi
        elif [ $r -lt 19 ] && [ -s "$TMP/doomed" ]; then
            delete "apis/apps/v1/namespaces/$NS/deployments/$(head -1 "$TMP/doomed")"
            sed -i 1d "$TMP/doomed"
        else
            job "unfit-$i" 1 20 1 0
        fi
        sleep "${MUSTER_STREAM_PAUSE:-0.04}"
    done
    echo "$i" >"$TMP/streamed"
}

start_stream() {
    stream &
    STREAM_PID=$!
}

stop_stream() {
    touch "$TMP/stop"
    wait "$STREAM_PID" || true
    STREAM_PID=
    echo "stream: $(cat "$TMP/streamed") workloads"
}

# converge SECONDS: runs the check until it passes or the time is up (then fails with its
# last report).
converge() {
    local deadline=$((SECONDS + $1))
    while :; do
        if "$CHECK" --events "$TMP/events.log" --hub "$BASE" --api "$API" --namespace $NS \
            --queue $Q --unfit unfit- >"$TMP/check.out" 2>&1; then
            tail -1 "$TMP/check.out"
            return 0
        fi
        if [ $SECONDS -ge $deadline ]; then
            head -30 "$TMP/check.out" >&2
            dfail "no convergence within $1 s"
        fi
        # overlapping dispatches are history: waiting does not mend them
        grep -q 'no empty placement between\|match the ledger' "$TMP/check.out" && {
            head -30 "$TMP/check.out" >&2
            dfail "overlapping dispatches"
        }
        sleep 1
    done
}

# finish: stops musterd and muster-sim with SIGTERM; both must exit 0 (in build-asan a leak or
# memory error report turns that into non-zero) and say nothing of a sanitizer on stderr.
finish() {
    local rc=0
    kill -TERM "$MD_PID"
    wait "$MD_PID" || rc=$?
    MD_PID=
    [ $rc = 0 ] || dfail "musterd exited with $rc on SIGTERM"
    grep -q 'Sanitizer' "$TMP/md.err" && dfail "a sanitizer spoke in musterd's stderr"
    kill -TERM "$SIM_PID"
    wait "$SIM_PID" || rc=$?
    SIM_PID=
    [ $rc = 0 ] || fail "muster-sim exited with $rc on SIGTERM"
    return 0
}
