# Shared set-up for the dispatch_*.sh scripts: muster-sim (with --validate-writes against the
# reference CRDs) and musterd over real sockets, kubectl against the hub, curl against the admin
# API. Source after setting NAME, SIM, MUSTERD and SRC. See docs/testing.md.
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MUSTERD_PID=
CRDS=$SRC/tests/fixtures/reference/crds
# ASan builds are several times slower: every wait scales with this.
SLOW=${MUSTER_TEST_SLOW:-1}
case "$MUSTERD" in *asan*) SLOW=3 ;; esac

dispatch_cleanup() {
    if [ -n "$MUSTERD_PID" ] && kill -0 "$MUSTERD_PID" 2>/dev/null; then
        kill -KILL "$MUSTERD_PID" 2>/dev/null || true
    fi
    cleanup
}
trap dispatch_cleanup EXIT

dfail() {
    [ -n "${API:-}" ] && [ -n "${DUMP:-}" ] && curl -s "$API$DUMP" >&2 && echo >&2
    [ -n "${MUSTER_TEST_DEBUG:-}" ] && kubectl get rb -A -o yaml >&2
    [ -f "$TMP/musterd.err" ] && tail -40 "$TMP/musterd.err" | sed 's/^/musterd: /' >&2
    fail "$@"
}

k() { kubectl --request-timeout=10s "$@"; }

# start_sim SCENARIO [FLAGS...]: muster-sim validating writes; sets BASE and the kubeconfig.
start_sim() {
    local scenario=$1
    shift
    "$SIM" --listen 127.0.0.1:0 --scenario "$scenario" --validate-writes "$CRDS" "$@" \
        >"$TMP/sim.out" 2>"$TMP/sim.err" &
    SIM_PID=$!
    wait_port "$TMP/sim.out" http
    cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "$BASE"}}]
contexts: [{name: sim, context: {cluster: sim, user: sim, namespace: ${TEST_NS:-default}}}]
current-context: sim
users: [{name: sim, user: {}}]
YAML
}

# start_musterd [FLAGS...]: musterd against the hub; sets API (the admin API's base URL).
start_musterd() {
    # emptied here, not only by the child's redirection: a restart must not read the admin API
    # line a killed musterd left there before the new one truncates it
    : >"$TMP/musterd.out"
    "$MUSTERD" --kubeconfig "$KUBECONFIG" --db "$TMP/muster.db" --listen 127.0.0.1:0 \
        --kube-api-qps -1 "$@" >"$TMP/musterd.out" 2>"$TMP/musterd.err" &
    MUSTERD_PID=$!
    API=
    for _ in $(seq 200); do
        API=$( (sed -n 's#^admin API: \(http://127.0.0.1:[0-9]*\)/.*#\1#p' "$TMP/musterd.out" 2>/dev/null || true) | head -1)
        [ -n "$API" ] && break
        kill -0 "$MUSTERD_PID" 2>/dev/null || dfail "musterd exited: $(cat "$TMP/musterd.err")"
        sleep 0.05
    done
    [ -n "$API" ] || dfail "musterd did not report its admin API"
}

# api METHOD PATH [BODY]: the admin API; prints the body, fails on a non-2xx answer.
api() {
    local out code
    out=$(curl -s -w '\n%{http_code}' -X "$1" -H 'Content-Type: application/json' \
        ${3:+--data "$3"} "$API$2")
    code=${out##*$'\n'}
    out=${out%$'\n'*}
    [[ "$code" == 2* ]] || dfail "$1 $2: $code $out"
    printf '%s' "$out"
}

# queue NAME PARENT CAPABILITY_JSON [EXTRA_JSON_FIELDS]
queue() {
    api POST /api/v1/queues "{\"name\":\"$1\",\"parent\":\"$2\",\"capability\":$3${4:+,$4}}" >/dev/null
}

# wait_until SECONDS WHAT CMD...: polls CMD (every 0.2 s) until it succeeds; SECONDS scale with SLOW.
wait_until() {
    local t=$1 what=$2
    shift 2
    local end=$((SECONDS + t * SLOW))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || dfail "timed out waiting for $what"
        sleep 0.2
    done
}

# rbj NAME JSONPATH (in TEST_NS)
rbj() { k get rb "$1" -o jsonpath="$2"; }
# the RB's condition TYPE as STATUS/REASON
rb_cond() {
    rbj "$1" "{.status.conditions[?(@.type==\"$2\")].status}/{.status.conditions[?(@.type==\"$2\")].reason}"
}
rb_cond_msg() { rbj "$1" "{.status.conditions[?(@.type==\"$2\")].message}"; }
is_eq() { [ "$("${@:2}")" == "$1" ]; }

# the RB's spec.clusters as "name=replicas ..."
rb_clusters() { rbj "$1" '{range .spec.clusters[*]}{.name}={.replicas} {end}'; }

# member CLUSTER KIND NAME JQ: a field of a member object as the sim's member holds it, or "none"
member() {
    curl -sf "$BASE/debug/sim/clusters/$1/objects" |
        jq -r "[.items[] | select(.kind == \"$2\" and .metadata.name == \"$3\") | $4][0] // \"none\""
}

# finish: rejected == EXPECT_REJECTED (0 unless the script made bad writes itself) and checked > 0 on the hub's schema validation, musterd exits 0 on
# SIGTERM, then PASS.
finish() {
    local v
    v=$(curl -sf "$BASE/debug/sim/validation") || dfail "GET /debug/sim/validation"
    [ "$(jq -r .rejected <<<"$v")" == "${EXPECT_REJECTED:-0}" ] ||
        dfail "writes refused by the CRD schemas: $v"
    [ "$(jq -r .checked <<<"$v")" -gt 0 ] || dfail "no write was validated: $v"
    kill -TERM "$MUSTERD_PID"
    local rc=0
    wait "$MUSTERD_PID" || rc=$?
    MUSTERD_PID=
    [ "$rc" == 0 ] || dfail "musterd exit status $rc"
    kill -TERM "$SIM_PID"
    rc=0
    wait "$SIM_PID" || rc=$?
    SIM_PID=
    [ "$rc" == 0 ] || fail "muster-sim exit status $rc"
    echo "validation: $v"
    echo PASS
}
