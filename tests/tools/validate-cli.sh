#!/bin/sh
# Checks the muster-validate command: a valid fixture exits 0, a broken object exits 1 with the
# apiserver-style message on stderr, and a missing CRD exits 2. Args: BINARY SOURCE_DIR.
set -u
bin=$1
src=$2
crds=$src/tests/fixtures/reference/crds
rb=$crds/karmada_work.karmada.io_resourcebindings.yaml
if [ ! -f "$rb" ]; then
    echo "reference CRDs missing: $rb (part of the repository: tests/fixtures/reference)" >&2
    exit 1
fi
"$bin" "$rb" v1alpha2 < "$src/tests/fixtures/objects/resourcebinding.json" || {
    echo "valid ResourceBinding rejected" >&2
    exit 1
}
out=$(printf 'spec:\n  resource: {apiVersion: v1, kind: Pod, name: p}\n  replicas: x\n' |
    "$bin" "$rb" v1alpha2 2>&1)
rc=$?
if [ $rc -ne 1 ] || [ "$out" != 'spec.replicas: Invalid value: "x": must be of type integer' ]; then
    echo "invalid object: exit $rc, output: $out" >&2
    exit 1
fi
"$bin" "$crds/no-such.yaml" v1 < /dev/null 2>/dev/null
rc=$?
if [ $rc -ne 2 ]; then
    echo "missing CRD: exit $rc, want 2" >&2
    exit 1
fi
echo "muster-validate: ok"
