#!/usr/bin/env bash
# The production musterd carries no simulator (issue 16): `nm` lists no sim_ symbol and nothing
# of cluster-adapters/kube/schema.c (kube_schema_*) or kube/discovery.c (kube_discovery_*), and,
# when the binary has debug information, no compile unit from cluster-adapters/sim/ or those two
# files. muster-sim is checked the other way round, so a pattern that can never match (a renamed
# prefix, a stripped binary) fails here instead of passing quietly.
# Usage: musterd_symbols.sh PATH/TO/musterd PATH/TO/muster-sim
set -euo pipefail

MUSTERD=$1
SIM=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v nm >/dev/null || fail "nm is missing (binutils)"

BANNED=' (sim_|kube_schema_|kube_discovery_)'
syms=$(nm "$MUSTERD") || fail "nm $MUSTERD"
[ -n "$syms" ] || fail "$MUSTERD has no symbol table (stripped?)"
grep -q ' disp_demo_hub_start$' <<<"$syms" || fail "$MUSTERD lacks disp_demo_hub_start: not musterd?"
bad=$(grep -E "$BANNED" <<<"$syms" || true)
[ -z "$bad" ] || fail "$MUSTERD links simulator or schema/discovery code:
$(head -20 <<<"$bad")
($(wc -l <<<"$bad") symbols)"

simsyms=$(nm "$SIM") || fail "nm $SIM"
grep -q ' sim_hub_start$' <<<"$simsyms" || fail "$SIM lacks sim_hub_start: the check above proves nothing"
grep -q ' kube_schema_validate$' <<<"$simsyms" || fail "$SIM lacks kube_schema_validate"

# Compile units, when there is debug information (RelWithDebInfo, Debug): a static function of a
# simulator file would not carry the sim_ prefix, its compile unit still names the file.
if command -v readelf >/dev/null && readelf -S "$MUSTERD" | grep -q '\.debug_info'; then
    units=$(readelf --debug-dump=info "$MUSTERD" 2>/dev/null |
        sed -n 's/.*DW_AT_name *: *\(([^)]*): *\)\{0,1\}\(.*\.c\)$/\2/p' | sort -u)
    grep -q 'dispatcher/demo_hub\.c$' <<<"$units" || fail "no compile units found in $MUSTERD's debug info"
    bad=$(grep -E 'cluster-adapters/sim/|kube/schema\.c$|kube/discovery\.c$' <<<"$units" || true)
    [ -z "$bad" ] || fail "$MUSTERD has compile units of: $bad"
fi
echo "ok: $MUSTERD has no sim_, kube_schema_ or kube_discovery_ symbol ($(wc -l <<<"$syms") symbols)"
