#!/usr/bin/env bash
# Installs muster's build and test dependencies from Debian 12 packages.
# Idempotent: asks apt only for what is missing, so a second run is quick and offline-safe.
# Usage: deploy/install-deps.sh [build|test|demo|bench|image]   (each includes build)
set -euo pipefail

want=${1:-test}
build_pkgs=(build-essential cmake pkg-config libuv1-dev libcurl4-openssl-dev libjson-c-dev
            libsqlite3-dev libssl-dev libcunit1-dev libyaml-dev libh2o-dev)
test_pkgs=(openssl curl jq clang libclang-rt-14-dev chromium)
bench_pkgs=(wrk nginx-light)
image_pkgs=(buildah mmdebstrap curl)

pkgs=("${build_pkgs[@]}")
case "$want" in
  build|demo) ;;
  test) pkgs+=("${test_pkgs[@]}") ;;
  bench) pkgs+=("${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
  image) pkgs+=("${image_pkgs[@]}") ;;
  *) echo "install-deps.sh: unknown set '$want' (build, demo, test, bench, image)" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# kubectl may come from another package (e.g. a cloud SDK); only install Debian's when none is there.
if { [ "$want" = test ] || [ "$want" = bench ]; } && ! command -v kubectl >/dev/null 2>&1; then
  missing+=(kubernetes-client)
fi

# The browser tests run node (playwright-core from npm): Debian's nodejs and npm unless a node is
# already on the PATH (nodesource or nvm installs conflict with Debian's package).
if { [ "$want" = test ] || [ "$want" = bench ]; } && ! command -v node >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
