#!/bin/sh
# A clone with nothing beside it must build and pass its tests (issue 15): no code, script or
# CMake file may read outside the repository through ../shared. docs/ may still say where the
# reference copies in tests/fixtures/reference came from. Args: SOURCE_DIR.
set -u
src=$1
if [ ! -f "$src/tests/fixtures/reference/crds/SOURCES.md" ] ||
    [ ! -f "$src/tests/fixtures/reference/LICENSE-Apache-2.0" ]; then
    echo "tests/fixtures/reference is incomplete: SOURCES.md or LICENSE-Apache-2.0 missing" >&2
    exit 1
fi
hits=$(grep -rnI -e '\.\./shared/' "$src" \
    --exclude-dir=.git --exclude-dir=docs --exclude-dir='build' --exclude-dir='build-*' \
    --exclude-dir=node_modules --exclude=standalone.sh)
if [ -n "$hits" ]; then
    echo "these lines read ../shared; use the copies in tests/fixtures/reference:" >&2
    echo "$hits" >&2
    exit 1
fi
echo "ok: nothing outside docs/ reads ../shared"
