#!/usr/bin/env bash
# Checks that every request in a muster-sim access log (--access-log, Apache combined format) is
# one a ClusterRole grants, so the RBAC in deploy/karmada/rbac.yaml can be proven to cover what
# musterd really does against the hub. Prints each request outside the rules and exits 1 if
# there is any; exits 0 otherwise.
# Usage: rbac_check.sh ACCESS_LOG RULES
#   RULES: one rule per line, "apiGroups|resources|verbs" with space-separated lists, as
#   kubectl get clusterrole X -o jsonpath='{range .rules[*]}{.apiGroups[*]}|{.resources[*]}|{.verbs[*]}{"\n"}{end}'
#   prints it (the core group is empty).
# Discovery and health (/api, /apis, /apis/G[/V], /version, /openapi/..., /healthz, /livez,
# /readyz) are not resources: every authenticated user may read them (system:discovery).
set -euo pipefail

LOG=$1
RULES=$2

awk -v rules="$RULES" '
BEGIN {
    n = 0
    while ((getline line < rules) > 0) {
        if (line == "") continue
        split(line, f, "|")
        n++; g[n] = " " f[1] " "; r[n] = " " f[2] " "; v[n] = " " f[3] " "
        if (f[1] == "") g[n] = "  "
    }
    bad = 0
}
# the request line is the first quoted field: "METHOD TARGET PROTO"
{
    q = index($0, "\"")
    if (!q) next
    rest = substr($0, q + 1)
    split(rest, req, " ")
    method = req[1]; target = req[2]
    path = target; query = ""
    p = index(target, "?")
    if (p) { path = substr(target, 1, p - 1); query = "&" substr(target, p + 1) "&" }
    if (path ~ /^\/(version|healthz|livez|readyz|openapi)(\/|$)/ || path ~ /^\/api\/?$/ ||
        path ~ /^\/apis(\/[^\/]+(\/[^\/]+)?)?\/?$/ || path ~ /^\/api\/v1\/?$/ || path ~ /^\/debug\//)
        next
    ns = split(path, s, "/")
    # s[1] is empty; core: s[2]=api s[3]=v1; groups: s[2]=apis s[3]=G s[4]=V
    if (s[2] == "api") { group = ""; i = 4 } else if (s[2] == "apis") { group = s[3]; i = 5 }
    else { print "not a resource path: " method " " target; bad = 1; next }
    if (s[i] == "namespaces" && ns >= i + 2) i += 2      # namespaces/NS/<resource>...
    res = s[i]; name = ""; subr = ""
    if (ns >= i + 1) name = s[i + 1]
    if (ns >= i + 2) subr = s[i + 2]
    key = res
    if (subr != "") key = res "/" subr
    if (method == "GET") {
        if (name != "") verb = "get"
        else if (query ~ /&watch=(true|1)&/) verb = "watch"
        else verb = "list"
    }
    else if (method == "POST") verb = "create"
    else if (method == "PUT") verb = "update"
    else if (method == "PATCH") verb = "patch"
    else if (method == "DELETE") {
        if (name != "") verb = "delete"
        else verb = "deletecollection"
    }
    else verb = tolower(method)
    ok = 0
    for (k = 1; k <= n && !ok; k++)
        if (index(g[k], " " group " ") && (index(r[k], " " key " ") || index(r[k], " * ")) &&
            (index(v[k], " " verb " ") || index(v[k], " * ")))
            ok = 1
    if (!ok) {
        gname = group
        if (gname == "") gname = "core"
        print "not granted: " verb " " gname "/" key " (" method " " target ")"
        bad = 1
    }
}
END { exit bad }
' "$LOG"
