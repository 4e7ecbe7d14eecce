#!/usr/bin/env python3
"""Trims an upstream CRD to what muster's tests need (tests/fixtures/reference/crds/SOURCES.md):
keeps the one served version named, drops every `description`, and replaces each embedded
PodSpec (a schema whose properties hold `containers`) by an object that preserves unknown fields,
so the kind's own structure (replicas, replicated jobs, worker groups, ...) is still validated
while the file stays small. Usage: trim_crd.py IN.yaml VERSION > OUT.yaml"""
import sys
import yaml


def trim(node):
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict) and "containers" in props:
            return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        return {k: trim(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [trim(v) for v in node]
    return node


def main():
    src, version = sys.argv[1], sys.argv[2]
    with open(src) as f:
        crd = yaml.safe_load(f)
    crd["spec"]["versions"] = [trim(v) for v in crd["spec"]["versions"] if v["name"] == version]
    if not crd["spec"]["versions"]:
        sys.exit(f"{src}: no version {version}")
    crd["spec"]["versions"][0]["storage"] = True
    for k in ("creationTimestamp",):
        crd.get("metadata", {}).pop(k, None)
    print(f"# Trimmed by tests/tools/trim_crd.py from {src.split('/')[-1]} (see SOURCES.md).")
    yaml.safe_dump(crd, sys.stdout, sort_keys=False, width=100)


main()
