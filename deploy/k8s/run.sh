#!/usr/bin/env bash
# One distributed run, start to verdict: apply the shard Job (kustomization
# in this folder), wait until it is Complete or Failed, run the merge Job,
# print its output and exit with its exit code, which is llmbench merge's
# verdict (0 every gate held, 1 a gate or check() failed, 2 bad input). A failed shard Job still runs
# the merge, which then names the missing or failed shard.
#
#   deploy/k8s/run.sh                  # namespace from kubectl's context
#   NAMESPACE=bench TIMEOUT=3h deploy/k8s/run.sh
#   KUSTOMIZE_DIR=deploy/single-node deploy/k8s/run.sh   # an overlay instead
#
# Results stay in the llmbench-results volume: /results/shard-I per shard,
# /results/merged for the merged run (README tells how to copy them out).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
timeout=${TIMEOUT:-2h}
kustomize_dir=${KUSTOMIZE_DIR:-$here}
ns=()
if [ -n "${NAMESPACE:-}" ]; then ns=(-n "$NAMESPACE"); fi
k() { kubectl "${ns[@]}" "$@"; }

# finished JOB: prints Complete or Failed once the Job has that condition,
# nothing while it runs.
finished() {
  k get job "$1" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{"\n"}{end}' |
    grep -x -m1 -E 'Complete|Failed' || true
}

# await JOB: waits for Complete or Failed (kubectl wait watches one condition
# only, and a failed Job never becomes Complete), at most $timeout.
await() {
  k wait --for=condition=complete --timeout="$timeout" "job/$1" >/dev/null 2>&1 &
  local ok=$!
  k wait --for=condition=failed --timeout="$timeout" "job/$1" >/dev/null 2>&1 &
  local failed=$!
  wait -n "$ok" "$failed" || true
  kill "$ok" "$failed" 2>/dev/null || true
  wait "$ok" "$failed" 2>/dev/null || true
  local state
  state=$(finished "$1")
  if [ -z "$state" ]; then
    echo "run.sh: job/$1 neither Complete nor Failed after $timeout" >&2
    exit 124
  fi
  echo "job/$1: $state" >&2
}

# barrier_secret: a fresh random token for the shards' barrier, in the
# Secret job.yaml reads (LLMBENCH_BARRIER_TOKEN). It goes through a pipe
# only: never a file, never a command line that ps would show.
barrier_secret() {
  local token
  token=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: llmbench-barrier\n  labels:\n    app.kubernetes.io/name: llmbench\ntype: Opaque\nstringData:\n  token: %s\n' "$token" |
    k apply -f - >/dev/null
}

# Jobs are immutable and a finished one would satisfy the waits at once.
k delete job llmbench-merge llmbench-shard --ignore-not-found --wait=true
barrier_secret
k apply -k "$kustomize_dir"
await llmbench-shard

k apply -f "$here/merge-job.yaml"
await llmbench-merge
k logs job/llmbench-merge --all-containers=true || true

code=$(k get pods -l batch.kubernetes.io/job-name=llmbench-merge \
  -o jsonpath='{.items[0].status.containerStatuses[0].state.terminated.exitCode}')
echo "llmbench merge exited $code" >&2
exit "${code:-1}"
