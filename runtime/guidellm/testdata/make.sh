#!/usr/bin/env bash
# Regenerates benchmarks.json: GuideLLM 0.8.1 (PyPI `guidellm`, in a
# private venv) against the llmbench simulator, two benchmarks (concurrency
# 1 and 4, 12 requests each, 32 synthetic input and 12 output tokens,
# streamed), the simulator failing some requests (HTTP 500), so the file
# holds a sweep of two points with completed and errored requests. The
# tokenizer is the real Llama 3 one from ../shared/vllmcpu.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${GUIDELLM_VENV:-$HOME/.cache/llmbench-peers/guidellm}
[ -x "$venv/bin/guidellm" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q guidellm==0.8.1; }
llmbench sim --addr 127.0.0.1:18744 --seed 7 --error-rate-500 0.1 & sim=$!
trap 'kill $sim' EXIT
sleep 1
"$venv/bin/guidellm" run --backend kind=openai_http,target=http://127.0.0.1:18744,model=llmbench-sim \
  --profile kind=concurrent,streams=1 --override profile.streams 1,4 \
  --constraint kind=max_requests,count=12 \
  --data kind=synthetic_text,prompt_tokens=32,output_tokens=12 \
  --tokenizer kind=hf_auto,model=/root/.cache/llmbench-vllmcpu/model \
  --output kind=json,path="$here/benchmarks.json" --disable-progress > /dev/null
