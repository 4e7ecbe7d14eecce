#!/usr/bin/env bash
# musterctl end to end against a running `musterd --demo`: tables, -o json/yaml round trips
# through apply, create/get/delete, apply -f run twice (the second changes nothing, the audit log
# does not grow), the server's errors on stderr with a non-zero exit, bindings of the demo's
# ledger, 501s, the config file and environment, and bearer-token roles.
# Usage: musterctl.sh PATH/TO/musterd PATH/TO/musterctl PATH/TO/scenario.yaml
set -euo pipefail

MUSTERD=$1
CTL=$2
SCENARIO=$3
NAME=musterctl
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TMP"
unset MUSTER_SERVER MUSTER_TOKEN MUSTER_CONFIG

# start_musterd DB [flags...]: starts the demo with the admin API on an ephemeral port, sets
# SIM_PID (lib.sh's cleanup kills it) and SERVER.
start_musterd() {
    local db=$1
    shift
    "$MUSTERD" --demo --demo-seconds 120 --scenario "$SCENARIO" --db "$db" --listen 127.0.0.1:0 "$@" >sim.out 2>sim.err &
    SIM_PID=$!
    local port=
    for _ in $(seq 200); do
        port=$(sed -n 's#^admin API: http://127.0.0.1:\([0-9]*\)/.*#\1#p' sim.out 2>/dev/null || true)
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || fail "musterd did not report its admin API port"
    SERVER=http://127.0.0.1:$port
}

stop_musterd() {
    kill -TERM "$SIM_PID"
    wait "$SIM_PID" || fail "musterd exited with $?"
    SIM_PID=
}

# ctl ARGS...: runs musterctl, stdout to out, stderr to err, exit code in RC.
ctl() {
    RC=0
    "$CTL" "$@" >out 2>err || RC=$?
}

audit_rows() {
    curl -sf "$SERVER/api/v1/audit?limit=1000" | grep -o '"action"' | wc -l
}

# ---- without a token file: everyone is admin on loopback ----
start_musterd demo.db

ctl version
expect "$RC $(cat out)" "0 musterctl 0.1.0" "version"

ctl --server "$SERVER" get queues
expect "$RC" 0 "get queues: exit code"
expect "$(head -1 out | tr -s ' ')" "NAME PARENT WEIGHT PRIORITY STATE GPU PENDING ADMITTED RECLAIM" \
    "get queues: header"
expect "$(awk 'NR > 1 {print $1}' out | tr '\n' ' ')" \
    "batch default nlp production research root serving vision " "get queues: names"
expect "$(awk '$1 == "nlp" {print $2, $3, $5}' out)" "research 2 Open" "get queues: nlp row"

export MUSTER_SERVER=$SERVER

WIDE="STRATEGY GUARANTEE DESERVED CAPABILITY SHARE RECLAIMABLE WITHIN-QUEUE MIN-RUNTIME MAX/MIN"
WIDE="$WIDE COOLDOWN BORROWED LENT PREEMPTED NAMESPACES NS-LIMITS OWNER-LIMITS LOCALQUEUES"
ctl get queues -o wide
expect "$(head -1 out | tr -s ' ')" \
    "NAME PARENT WEIGHT PRIORITY STATE GPU PENDING ADMITTED RECLAIM $WIDE" \
    "wide: header"
expect "$(awk '$1 == "serving" {print $10, $11, $12, $13}' out)" \
    "StrictFIFO nvidia.com/gpu=8 nvidia.com/gpu=10,cpu=128,memory=1Ti <none>" "wide: serving row"

# -o json and -o yaml are read back by apply (YAML is a superset of JSON): every queue the server
# printed parses, and applying what the server said changes nothing.
ctl get queues -o json
expect "$RC" 0 "get -o json"
grep -q '^  "items": \[$' out ||
    fail "get -o json: not pretty-printed {\"items\": [...]}: $(head -3 out)"
cp out all.json
ctl apply -f all.json
expect "$RC" 0 "apply the server's own JSON: exit code ($(cat err))"
expect "$(cut -d' ' -f2 out | sort -u)" "unchanged" "apply the server's own JSON"
expect "$(wc -l <out)" 8 "apply the server's own JSON: one line per queue"
ctl get queue nlp -o yaml
expect "$(sed -n '1,3p' out | tr '\n' ' ')" "name: nlp parent: research weight: 2 " "get -o yaml"
grep -q '^  nvidia.com/gpu: "4"$' out || fail "get -o yaml: guarantee not as written: $(cat out)"
"$CTL" apply -f - <out >out2 || fail "apply of the server's YAML from stdin"
expect "$(cat out2)" "queue/nlp unchanged" "apply the server's own YAML"

# create, get, delete
ctl create queue team-x --parent root --weight 2 --priority 5 --strategy StrictFIFO \
    --deserved cpu=4,nvidia.com/gpu=2 --guarantee nvidia.com/gpu=1 --capability nvidia.com/gpu=4
expect "$RC $(cat out)" "0 queue/team-x created" "create queue"
GPU=nvidia.com/gpu
ctl get queues team-x -o wide
expect "$(tail -n +2 out | tr -s ' ')" \
    "team-x root 2 5 Open 0/2 0 0 - StrictFIFO $GPU=1 cpu=4,$GPU=2 $GPU=4 0.000 true Never 0s 0 0s <none> <none> 0/0 <none> <none> <none> <none>" \
    "get the created queue"
# tenancy (issue 21): apply shows and keeps a queue's namespaceSelector, namespaceLimits and
# localQueues; applying the same file again changes nothing; a file without them removes them
cat >tenant.yaml <<'YAML'
name: tenant
parent: root
namespaceSelector:
  matchLabels: {org: research}
  matchExpressions: [{key: tier, operator: In, values: [gpu]}]
namespaceLimits: {gangs: 2, resources: {nvidia.com/gpu: "8"}}
ownerLimits: {gangs: 1}
localQueues: [lab/gpu]
YAML
ctl apply -f tenant.yaml
expect "$RC $(cat out)" "0 queue/tenant created" "apply a queue with tenancy"
ctl get queues tenant -o wide
grep -q 'org=research,tier in (gpu) *gangs=2,nvidia.com/gpu=8 *gangs=1 *lab/gpu$' out ||
    fail "wide: tenancy columns: $(cat out)"
ctl apply -f tenant.yaml
expect "$(cat out)" "queue/tenant unchanged" "apply the same tenancy again"
printf 'name: tenant\nparent: root\n' >plain.yaml
ctl apply -f plain.yaml
expect "$(cat out)" "queue/tenant configured" "apply without tenancy"
ctl describe queue tenant
expect "$(sed -n 's/^Namespaces: *//p' out)" "(its parent's)" "describe: no selector of its own"
ctl delete queue tenant
# reclaim and preemption fields (issue 18): durations come back in their shortest form
ctl create queue team-p --parent root --reclaimable false --within-queue LowerPriority \
    --min-runtime 600s --max-per-minute 3 --cooldown 2m
expect "$RC $(cat out)" "0 queue/team-p created" "create queue with preemption fields"
ctl describe queue team-p
expect "$(awk '$1 == "Reclaimable:" {print $2}' out)" false "describe: reclaimable"
expect "$(sed -n 's/^Preemption: *//p' out)" \
    "withinQueue=LowerPriority, minRuntime=10m, maxPerMinute=3, cooldown=2m" "describe: preemption"
expect "$(sed -n 's/^  Preempted: *//p' out)" "made 0, suffered 0" "describe: preemptions"
grep -q '^  Lent: *<none>$' out || fail "describe: no Lent line: $(cat out)"
ctl create queue team-q --parent root --reclaimable maybe
expect "$RC $(cat err)" "2 musterctl: --reclaimable: expected true or false, got maybe" \
    "bad --reclaimable"
ctl create queue team-q --parent root --min-runtime 10
expect "$RC" 1 "bad --min-runtime: exit code"
grep -q '\[field preemption.minRuntime\]$' err || fail "bad --min-runtime: $(cat err)"
ctl delete queue team-p
expect "$RC" 0 "delete team-p"
ctl create queue team-x --parent root
expect "$RC $(cat out)" "1 " "create an existing queue"
expect "$(cat err)" "Error from server (AlreadyExists): queue team-x already exists [field name]" \
    "create an existing queue: message"
ctl create queue team-y --parent nope
expect "$RC" 1 "bad parent: exit code"
expect "$(cat err)" "Error from server (Invalid): parent queue nope does not exist [field parent]" \
    "bad parent: the 422 message and field"
ctl create queue team-y --parent root --weight many
expect "$RC $(cat err)" "2 musterctl: --weight: not an integer: many" "bad --weight"
ctl create queue team-y
expect "$RC" 2 "create without --parent"
ctl delete queue team-x
expect "$RC $(cat out)" "0 queue/team-x deleted" "delete queue"
ctl get queue team-x
expect "$RC $(cat err)" "1 Error from server (NotFound): queue team-x not found" \
    "get a deleted queue"
ctl delete queue research
expect "$RC" 1 "delete a queue with children: exit code"
grep -q '^Error from server (Conflict): ' err || fail "delete research: $(cat err)"

# Issue 23, item 7: a name is checked to be a name of its kind before it is escaped into a
# path, so it cannot walk to another route; a missing argument is named, not "unknown command".
ctl create queue authz-target --parent root
expect "$RC" 0 "create authz-target"
ctl delete queue ../queues/authz-target
expect "$RC" 2 "delete queue ../queues/authz-target: exit code"
grep -q '^musterctl: ../queues/authz-target: not a queue name' err ||
    fail "delete queue ../queues/authz-target: $(cat err)"
ctl get queue authz-target
expect "$RC $(awk 'NR == 2 {print $1}' out)" "0 authz-target" "authz-target survives"
ctl get queues ../audit
expect "$RC $(wc -c <out)" "2 0" "get queues ../audit: exit code, nothing printed"
ctl describe binding ../../audit
expect "$RC $(wc -c <out)" "2 0" "describe binding ../../audit"
ctl delete queue authz-target
expect "$RC" 0 "delete authz-target"
ctl get
expect "$RC $(head -1 err)" "2 musterctl: get: say what to get: queues, bindings or clusters" \
    "get without a kind"
ctl create queue
expect "$RC $(head -1 err)" \
    "2 musterctl: create queue: the queue's NAME is missing (create queue NAME --parent PARENT)" \
    "create queue without a name"
ctl delete queue
expect "$RC $(head -1 err)" "2 musterctl: delete queue: the queue's NAME is missing (delete queue NAME)" \
    "delete queue without a name"
ctl describe queue
expect "$RC $(head -1 err)" "2 musterctl: describe queue: the queue's NAME is missing" \
    "describe queue without a name"
ctl describe
expect "$RC $(head -1 err)" \
    "2 musterctl: describe: say what to describe: binding NAMESPACE/NAME or queue NAME" \
    "describe without a kind"
ctl describe queue nlp
expect "$RC $(awk '$1 == "Parent:" {print $2}' out)" "0 research" "describe queue nlp"
grep -q '^  Pending: ' out || fail "describe queue: no status: $(cat out)"
ctl describe queue nlp -o json
expect "$RC $(grep -c '"parent": "research"' out)" "0 1" "describe queue -o json"

# apply -f: two queues, Kubernetes-style multi-document with a list in one document; twice.
cat >queues.yaml <<'YAML'
# the ml team
---
- name: ml
  parent: root
  weight: 3
  guarantee: {nvidia.com/gpu: 2}
  deserved:
    cpu: 8
    nvidia.com/gpu: "4"
  preemption: {minRuntime: 600s, cooldown: 0s}
---
apiVersion: muster.io/v1alpha1
kind: Queue
metadata:
  name: ml-small
spec:
  parent: ml
  priority: 2
  reclaimable: false
  deserved: {nvidia.com/gpu: 2}
  guarantee: {nvidia.com/gpu: 1}
YAML
before=$(audit_rows)
ctl apply -f queues.yaml
expect "$RC $(tr '\n' ' ' <out)" "0 queue/ml created queue/ml-small created " \
    "apply: first run"
mid=$(audit_rows)
expect "$mid" "$((before + 2))" "apply: first run writes two audit rows"
ctl apply -f queues.yaml
expect "$RC $(tr '\n' ' ' <out)" "0 queue/ml unchanged queue/ml-small unchanged " \
    "apply: second run"
expect "$(audit_rows)" "$mid" "apply: second run writes no audit row"
sed -i 's/weight: 3/weight: 4/' queues.yaml
ctl apply -f queues.yaml
expect "$RC $(tr '\n' ' ' <out)" "0 queue/ml configured queue/ml-small unchanged " \
    "apply: a changed weight"
expect "$(audit_rows)" "$((mid + 1))" "apply: the update writes one audit row"
ctl get queue ml
expect "$(awk 'NR == 2 {print $3}' out)" 4 "apply: the new weight is served"
ctl apply -f queues.yaml
expect "$(tr '\n' ' ' <out)" "queue/ml unchanged queue/ml-small unchanged " "apply: third run"

cat >bad.yaml <<'YAML'
- name: bad-child
  parent: ml
  guarantee: {cpu: 100}
- name: ml
  parent: root
  weight: 4
  guarantee: {nvidia.com/gpu: 2}
  deserved: {cpu: 8, nvidia.com/gpu: "4"}
  preemption: {minRuntime: 10m}
YAML
ctl apply -f bad.yaml
expect "$RC" 1 "apply with a bad entry: exit code"
expect "$(cat out)" "queue/ml unchanged" "apply goes on after a bad entry"
grep -q '^Error from server (Invalid): .*\[field guarantee.cpu\]$' err ||
    fail "apply 422: $(cat err)"
printf 'name: [unclosed\n' >broken.yaml
ctl apply -f broken.yaml
expect "$RC" 1 "apply of broken YAML"
grep -q '^musterctl: broken.yaml:[0-9]*:[0-9]*: ' err || fail "broken YAML: $(cat err)"
ctl apply -f missing.yaml
expect "$RC $(cat err)" "1 musterctl: missing.yaml: No such file or directory" \
    "apply of a missing file"
ctl delete queue ml-small
ctl delete queue ml
expect "$RC" 0 "delete ml"

# bindings: served from the demo's ledger; an unknown one is the server's 404, non-zero
ctl get bindings -o json
expect "$RC" 0 "get bindings: exit code"
grep -q '"items"' out || fail "get bindings: $(cat out)"
# The demo's workloads reach the hub, the dispatcher holds them as RBs and the ledger lists them.
job=
for _ in $(seq 100); do
    ctl get bindings -o json
    job=$(grep -m1 -o '"name": "[a-z]*-[0-9]*-[a-z]*"' out | cut -d'"' -f4 || true)
    [ -n "$job" ] && break
    sleep 0.1
done
[ -n "$job" ] || fail "get bindings: no demo binding in $(cat out)"
ctl explain binding "team-vision/$job" -o json
expect "$RC" 0 "explain binding team-vision/$job: exit code"
grep -q '"history"' out || fail "explain binding team-vision/$job: $(cat out)"
ctl explain binding team/job-1
expect "$RC $(cat err)" \
    "1 Error from server (NotFound): binding team/job-1 not found: muster has no record of it" \
    "explain binding: unknown"
# bindings as a table, like queues; -o wide; one binding; describe with its history
ctl get bindings
expect "$RC $(head -1 out | tr -s ' ')" "0 NAMESPACE NAME QUEUE STATE PRIORITY POSITION" \
    "get bindings: table header"
grep -q "^team-vision *$job " out || fail "get bindings: no row for $job: $(cat out)"
ctl get bindings -o wide
expect "$(head -1 out | tr -s ' ')" \
    "NAMESPACE NAME QUEUE STATE PRIORITY POSITION CLUSTERS REQUEST REASON" "get bindings -o wide"
ctl get binding "team-vision/$job"
expect "$RC $(awk 'NR == 2 {print $1, $2}' out)" "0 team-vision $job" "get one binding"
ctl get bindings -o yaml
grep -q "^- namespace: team-vision$" out || fail "get bindings -o yaml: $(head -5 out)"
ctl describe binding "team-vision/$job"
expect "$RC $(awk '$1 == "Name:" {print $2}' out)" "0 team-vision/$job" "describe binding"
grep -q '^History:$' out || fail "describe binding: no history: $(cat out)"
grep -q '^Reason: ' out || fail "describe binding: no reason: $(cat out)"
grep -q '^  ID  *STATE  *QUEUE' out || fail "describe binding: no history table: $(cat out)"
ctl describe binding team/job-1
expect "$RC" 1 "describe an unknown binding"

# the dispatcher serves the clusters it watches
ctl get clusters
expect "$RC" 0 "get clusters: exit code ($(cat err))"
expect "$(head -1 out | tr -s ' ')" "NAME READY DIALECT GPU GPU-USED GPU-RESERVED GPU-FREE FITS" \
    "get clusters: table header"
grep -q '^gpu-east' out || fail "get clusters: no gpu-east row in $(cat out)"
grep -qE '^gpu-east +(True|False) +volcano ' out ||
    fail "get clusters: gpu-east (Volcano's podgroups served) not shown as volcano: $(cat out)"
ctl get clusters -o wide
grep -q 'CAPACITY *ALLOCATED *RESERVED *FREE *LABELS$' out || fail "clusters -o wide: $(head -1 out)"
ctl get cluster gpu-east -o json
grep -q '"name": "gpu-east"' out || fail "get cluster -o json: $(cat out)"
ctl get cluster ../bindings
expect "$RC" 2 "get cluster ../bindings"
ctl explain binding no-slash
expect "$RC" 2 "explain binding without a namespace"

ctl -o toml get queues
expect "$RC" 2 "bad -o"
ctl get widgets
expect "$RC" 2 "unknown kind"
ctl --server http://127.0.0.1:1 get queues
expect "$RC" 1 "unreachable server"
grep -q '^musterctl: GET http://127.0.0.1:1/api/v1/queues' err || fail "unreachable: $(cat err)"
ctl --server http://ada:pa55word@127.0.0.1:1 get queues
if grep -q pa55word err; then fail "a password in the server URL was printed: $(cat err)"; fi
ctl --token "$(printf 'abc\r\nX-Evil: 1')" get queues
expect "$RC $(cat err)" "1 musterctl: the token contains a control character" "a token with CR LF"
stop_musterd

# ---- --reclaim: the unused guarantee of a reclaimable queue is lent, and shown so ----
RC=0
"$MUSTERD" --reclaim maybe >out 2>err || RC=$?
expect "$RC $(cat err)" "2 musterd: --reclaim: expected on or off, got maybe" "musterd --reclaim maybe"
start_musterd reclaim.db --reclaim on
export MUSTER_SERVER=$SERVER
grep -q '^reclaim: on' sim.out || fail "musterd --reclaim on: not said at start: $(cat sim.out)"
ctl create queue lender --parent root --guarantee nvidia.com/gpu=1 --deserved nvidia.com/gpu=1
expect "$RC $(cat err)" "0 " "reclaim on: create lender"
ctl create queue keeper --parent root --guarantee cpu=1 --deserved cpu=1 --reclaimable false
ctl get queues lender
expect "$(awk 'NR == 2 {print $9}' out)" lends "reclaim on: lender lends"
ctl get queues keeper
expect "$(awk 'NR == 2 {print $9}' out)" - "reclaim on: a queue that is not reclaimable lends nothing"
ctl describe queue lender
expect "$(sed -n 's/^  Lent: *//p' out)" "nvidia.com/gpu=1" "reclaim on: describe shows lent"
stop_musterd
start_musterd reclaim.db
export MUSTER_SERVER=$SERVER
grep -q '^reclaim: off' sim.out || fail "musterd without --reclaim: not said at start"
ctl get queues lender
expect "$(awk 'NR == 2 {print $9}' out)" - "reclaim off: nothing lent"
stop_musterd

# ---- bearer tokens: config file, environment, flags ----
VIEWER=viewer-token-0123456789
ADMIN=admin-token-9876543210
printf '%s,vera,viewer\n%s,ada,admin\n' "$VIEWER" "$ADMIN" >tokens.csv
start_musterd auth.db --token-auth-file tokens.csv
export MUSTER_SERVER=$SERVER

ctl get queues
expect "$RC" 1 "no token: exit code"
grep -q '^Error from server (Unauthorized): ' err || fail "no token: $(cat err)"

mkdir -p "$HOME/.config/muster"
printf '# musterctl config\nserver: http://127.0.0.1:1\ntoken: "%s"\n' "$VIEWER" \
    >"$HOME/.config/muster/config"
ctl get queues
expect "$RC" 0 "config file token, environment server: exit code ($(cat err))"
ctl create queue team-v --parent root
expect "$RC" 1 "viewer create: exit code"
grep -q '^Error from server (Forbidden): ' err || fail "viewer create: $(cat err)"
MUSTER_TOKEN=$ADMIN ctl create queue team-a --parent root
expect "$RC $(cat out)" "0 queue/team-a created" "environment token beats the config file"
ctl --token "$ADMIN" delete queue team-a
expect "$RC $(cat out)" "0 queue/team-a deleted" "flag token"
MUSTER_TOKEN=$ADMIN ctl --token "$VIEWER" create queue team-b --parent root
expect "$RC" 1 "flag token beats the environment"
printf 'server: %s\ntoken: %s\n' "$SERVER" "$ADMIN" >alt.config
(unset MUSTER_SERVER; MUSTER_CONFIG=alt.config "$CTL" get queue root) >out 2>err ||
    fail "MUSTER_CONFIG: $(cat err)"
printf 'colour: blue\n' >bad.config
MUSTER_CONFIG=bad.config ctl get queues
expect "$RC" 1 "unknown config key"
grep -q 'bad.config:1: unknown key colour' err || fail "bad config: $(cat err)"
# Tokens never appear in anything musterctl prints.
MUSTER_TOKEN=$VIEWER ctl create queue team-v --parent root
if grep -q -e "$VIEWER" -e "$ADMIN" out err; then fail "a token was printed"; fi
stop_musterd

# ---- TLS flags: musterd has no TLS yet, so `openssl s_server -WWW` serves a canned list ----
unset MUSTER_SERVER
rm -f "$HOME/.config/muster/config"
ec() { echo "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"; }
# shellcheck disable=SC2046
openssl req -x509 $(ec) -keyout ca.key -out ca.crt -subj /CN=musterctl-test-ca -days 1 2>/dev/null
# shellcheck disable=SC2046
openssl req $(ec) -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt \
    -days 1 -extfile server.ext 2>/dev/null
mkdir -p www/api/v1
printf '{"items": [{"name": "tls-q", "parent": "root", "weight": 1, "state": "Open"}]}' \
    >"www/api/v1/queues?limit=500"
(cd www && exec openssl s_server -accept 127.0.0.1:0 -cert ../server.crt -key ../server.key -WWW \
    >../sim.out 2>&1) &
SIM_PID=$!
PORT=
for _ in $(seq 200); do
    PORT=$(sed -n 's#^ACCEPT 127.0.0.1:\([0-9]*\)$#\1#p' sim.out)
    [ -n "$PORT" ] && break
    sleep 0.05
done
[ -n "$PORT" ] || fail "openssl s_server did not report its port"
ctl --server "https://127.0.0.1:$PORT" --certificate-authority ca.crt get queues
expect "$RC $(awk 'NR == 2 {print $1}' out)" "0 tls-q" \
    "TLS with --certificate-authority ($(cat err))"
ctl --server "https://127.0.0.1:$PORT" get queues
expect "$RC" 1 "TLS with an unknown CA"
grep -q '^musterctl: GET https://127.0.0.1:[0-9]*/api/v1/queues?limit=500: SSL' err ||
    fail "TLS with an unknown CA: $(cat err)"
ctl --server "https://127.0.0.1:$PORT" --insecure-skip-tls-verify get queues
expect "$RC $(awk 'NR == 2 {print $1}' out)" "0 tls-q" "--insecure-skip-tls-verify"
printf 'server: https://127.0.0.1:%s\ncertificate-authority: ca.crt\n' "$PORT" >tls.config
MUSTER_CONFIG=tls.config ctl get queues
expect "$RC $(awk 'NR == 2 {print $1}' out)" "0 tls-q" "certificate-authority from the config file"
ctl --server "https://127.0.0.1:$PORT" --insecure-skip-tls-verify --certificate-authority ca.crt \
    get queues
expect "$RC" 2 "--insecure-skip-tls-verify with --certificate-authority"
echo "musterctl: ok"
