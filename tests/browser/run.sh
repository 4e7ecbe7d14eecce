#!/usr/bin/env bash
# Runs one browser test (tests/browser/*.test.js) against musterd: installs playwright-core from
# tests/browser/package-lock.json when node_modules is missing or older than the lock file (so a
# second run, or an offline one after the first, needs no network), then runs the script with
# node. The browser is Debian's chromium; playwright never downloads one.
# Usage: run.sh TEST.js PATH/TO/musterd SOURCE_DIR BUILD_DIR
set -euo pipefail

TEST=$1
MUSTERD=$2
SRC=$3
BUILD=$4
HERE=$(cd "$(dirname "$0")" && pwd)

command -v node >/dev/null || { echo "browser test: node is missing (deploy/install-deps.sh test installs it)" >&2; exit 1; }
CHROMIUM=${MUSTER_CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "browser test: $CHROMIUM is missing (deploy/install-deps.sh test installs chromium)" >&2; exit 1; }

# Both builds' tests may run at once (ctest -j): one npm ci at a time, and only when needed.
stamp="$HERE/node_modules/.muster-lock"
(
    flock 9
    if ! cmp -s "$HERE/package-lock.json" "$stamp" 2>/dev/null; then
        npm ci --prefix "$HERE" --no-audit --no-fund --loglevel=error
        cp "$HERE/package-lock.json" "$stamp"
    fi
) 9>"$HERE/.npm-ci.lock"

mkdir -p "$BUILD/screenshots" "$BUILD/test-tmp"
exec node "$HERE/$TEST" --musterd "$MUSTERD" --source "$SRC" --build "$BUILD" --chromium "$CHROMIUM"
