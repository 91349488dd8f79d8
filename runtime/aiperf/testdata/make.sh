#!/usr/bin/env bash
# Regenerates aiperf/: AIPerf 0.13.0 (PyPI `aiperf`, in a private venv)
# against the llmbench simulator, 24 requests of 32 synthetic input and 12
# output tokens at 8 req/s after 3 warm-up requests, streamed, with the
# simulator failing some requests (HTTP 500) and cutting some streams, so
# the file holds warm-up, completed and failed records. The simulator
# stands in for a real server: the files' format is AIPerf's whatever the
# server. The tokenizer is the real Llama 3 one from ../shared/vllmcpu.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${AIPERF_VENV:-$HOME/.cache/llmbench-peers/aiperf}
[ -x "$venv/bin/aiperf" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q aiperf==0.13.0; }
llmbench sim --addr 127.0.0.1:18743 --seed 7 --error-rate-500 0.1 --reset-rate 0.1 & sim=$!
trap 'kill $sim' EXIT
sleep 1
out=$(mktemp -d)
"$venv/bin/aiperf" profile -m llmbench-sim --url http://127.0.0.1:18743 --endpoint-type chat --streaming \
  --tokenizer /root/.cache/llmbench-vllmcpu/model --synthetic-input-tokens-mean 32 --output-tokens-mean 12 \
  --extra-inputs ignore_eos:true --request-count 24 --warmup-request-count 3 --request-rate 8 \
  --random-seed 1 --artifact-dir "$out" > "$out/console.txt"
rm -rf "$here/aiperf" && mkdir -p "$here/aiperf"
cp "$out/profile_export.jsonl" "$out/profile_export_aiperf.json" "$here/aiperf/"
