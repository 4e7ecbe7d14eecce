#!/usr/bin/env bash
# Issue 15, musterd against muster-sim with Karmada's default feature gates
# (MultiplePodTemplatesScheduling off): a Volcano Job's RB has no spec.components, replicas or
# replicaRequirements. musterd reads the gang from the template (Volcano's own
# tf-example-gpu.yaml: 1 ps of 1 CPU, 3 workers of 1 CPU and 1 GPU, minAvailable 4), places the
# job whole in one cluster, writes no PodGroup Work and no OverridePolicy (the member's Volcano
# makes the PodGroup), follows it Running through status.state.phase and releases it when it
# completes. Every write is checked against the CRDs.
# Usage: dispatch_vcjob.sh MUSTER_SIM MUSTERD SOURCE_DIR
set -euo pipefail
SIM=$1 MUSTERD=$2 SRC=$3
NAME=dispatch_vcjob TEST_NS=team
# shellcheck source=dispatch_lib.sh
. "$(dirname "$0")/dispatch_lib.sh"
FIX=$SRC/tests/fixtures/dispatch

start_sim "$FIX/two-clusters.yaml"
start_musterd
queue q root '{"nvidia.com/gpu":"8","cpu":"64"}'
DUMP=/api/v1/bindings/team/tf-gpu-job

# The template of tests/fixtures/workloads/vcjob-tasks.yaml (from Volcano's examples), in queue
# q, running 3 s in the simulated members.
k create -f - >/dev/null <<YAML
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: tf-gpu
  namespace: team
  annotations: {sim.muster.io/duration: 3s}
spec:
  minAvailable: 4
  schedulerName: volcano
  queue: q
  tasks:
    - replicas: 1
      name: ps
      template:
        spec:
          containers:
            - name: tensorflow
              image: volcanosh/example-tf-gpu:0.0.1
              resources: {requests: {cpu: 1}}
          restartPolicy: OnFailure
    - replicas: 3
      name: worker
      template:
        spec:
          containers:
            - name: tensorflow
              image: volcanosh/example-tf-gpu:0.0.1
              resources:
                requests: {cpu: 1, nvidia.com/gpu: 1}
                limits: {nvidia.com/gpu: 1}
          restartPolicy: OnFailure
YAML
wait_until 10 "the RB" eval "k get rb tf-gpu-job -o name"
expect "$(rbj tf-gpu-job '{.spec.components}{.spec.replicas}{.spec.replicaRequirements}')" "" \
    "Karmada's default: no components, replicas or requirements"
wait_until 15 "the job to be dispatched" is_eq True/Success rb_cond tf-gpu-job Scheduled
clusters=$(rb_clusters tf-gpu-job)
case "$clusters" in "east=4 " | "west=4 ") ;; *) dfail "spec.clusters: [$clusters]" ;; esac
expect "$(api GET $DUMP | jq -c '.request')" '{"cpu":"4","nvidia.com/gpu":"3"}' \
    "the gang from the template's tasks"
expect "$(api GET /api/v1/queues/q | jq -r '.status.allocated["nvidia.com/gpu"]')" 3 "q allocated 3 GPUs"
expect "$(k get works -A -l app.kubernetes.io/managed-by=muster -o name | wc -l)" 0 "no PodGroup Work"
expect "$(k get op -o name | wc -l)" 0 "no OverridePolicy"
wait_until 15 "the job to run" is_eq running eval "api GET $DUMP | jq -r .state"
wait_until 20 "the job to complete and be released" is_eq 0 \
    eval "api GET /api/v1/queues/q | jq -r '.status.allocated[\"nvidia.com/gpu\"] // \"0\"'"
hist=$(api GET $DUMP)
jq -e '.history | map(select(.state == "released"))[0].reason == "completed"' <<<"$hist" >/dev/null ||
    dfail "not released as completed: $hist"
finish
