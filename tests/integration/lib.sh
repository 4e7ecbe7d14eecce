# Shared set-up for the integration scripts: a private scratch directory and HOME (kubectl
# caches discovery there), fail/expect helpers, and a cleanup that kills muster-sim.
# Source it after setting NAME; it sets TMP, HOME, KUBECONFIG and SIM_PID.

TMP=${MUSTER_TEST_TMP:-/tmp}/$NAME.$$
mkdir -p "$TMP/home"
export HOME=$TMP/home
export KUBECONFIG=$TMP/kubeconfig
SIM_PID=

fail() {
    echo "FAIL: $*" >&2
    [ -f "$TMP/sim.err" ] && sed 's/^/muster-sim: /' "$TMP/sim.err" >&2
    exit 1
}

cleanup() {
    if [ -n "$SIM_PID" ] && kill -0 "$SIM_PID" 2>/dev/null; then
        kill -KILL "$SIM_PID" 2>/dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# expect ACTUAL EXPECTED WHAT
expect() {
    [ "$1" == "$2" ] || fail "$3: expected [$2], got [$1]"
}

# wait_port FILE SCHEME: waits for muster-sim's "listening on SCHEME://127.0.0.1:PORT" line in
# FILE and sets PORT and BASE.
wait_port() {
    PORT=
    for _ in $(seq 100); do
        # the background job may not have opened FILE yet: a missing file is not yet a failure
        PORT=$(sed -n "s#^muster-sim: listening on $2://127.0.0.1:\\([0-9]*\\)\$#\\1#p" "$1" \
            2>/dev/null || true)
        [ -n "$PORT" ] && break
        sleep 0.05
    done
    [ -n "$PORT" ] || fail "muster-sim did not report its port"
    BASE=$2://127.0.0.1:$PORT
}
