#!/usr/bin/env bash
# `make image`: builds the container image from deploy/Dockerfile with buildah (no Docker engine
# needed; chroot isolation), then runs `musterd --demo` inside it and asks /healthz.
#
# When Debian's image cannot be pulled (no registry reachable), the base is made from Debian
# packages with mmdebstrap — the same bookworm packages from the apt sources this machine uses —
# imported as localhost/muster-debian:12 and passed in as the Dockerfile's BASE/RUNTIME_BASE.
#
# Environment: IMAGE (tag, default localhost/musterd:dev), BASE_IMAGE (skip the pull/mmdebstrap
# choice), IMAGE_SMOKE_PORT (default 18080), IMAGE_SMOKE=0 to skip the /healthz check.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh image

tag=${IMAGE:-localhost/musterd:dev}
port=${IMAGE_SMOKE_PORT:-18080}
work=build/image
mkdir -p "$work"
export BUILDAH_ISOLATION=chroot

base=${BASE_IMAGE:-}
if [ -z "$base" ]; then
  if timeout 60 buildah pull -q docker.io/library/debian:12 >/dev/null 2>&1; then
    base=docker.io/library/debian:12
  else
    base=localhost/muster-debian:12
    if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
      echo "image: no registry reachable; making $base from Debian packages (mmdebstrap)"
      # The mirror this machine's apt uses, so the base is reachable wherever apt is.
      mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
      [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
      rm -f "$work/debian-12.tar"
      mmdebstrap --quiet --variant=apt --include=ca-certificates bookworm "$work/debian-12.tar" "$mirror"
      printf 'FROM scratch\nADD debian-12.tar /\nENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nCMD ["/bin/bash"]\n' \
        > "$work/Containerfile.base"
      buildah bud -q --layers=false -f "$work/Containerfile.base" -t "$base" "$work" >/dev/null
    fi
  fi
fi
echo "image: building $tag on $base"
buildah bud --build-arg BASE="$base" --build-arg RUNTIME_BASE="$base" -f deploy/Dockerfile -t "$tag" .

[ "${IMAGE_SMOKE:-1}" = 0 ] && exit 0
# Smoke test: the image's musterd --demo answers /healthz. buildah run uses the host's network
# with chroot isolation, so the port is on this machine's loopback.
ctr=$(buildah from -q "$tag")
log="$work/smoke.log"
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; buildah rm "$ctr" >/dev/null 2>&1 || true; }
trap cleanup EXIT
buildah run "$ctr" -- /usr/local/bin/musterd --demo --db /tmp/demo.db --listen "127.0.0.1:$port" \
  --scenario /usr/local/share/muster/scenarios/demo.yaml >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  if body=$(curl -fsS "http://127.0.0.1:$port/healthz" 2>/dev/null); then
    echo "image: $tag runs musterd --demo; /healthz answered: $body"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.3
done
echo "image: musterd --demo in $tag did not answer /healthz; its output:" >&2
cat "$log" >&2
exit 1
