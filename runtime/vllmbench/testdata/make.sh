#!/usr/bin/env bash
# Regenerates vllm-bench-serve.json: `vllm bench serve` (vLLM 0.32, from
# ../shared/vllmcpu's venv) against the llmbench simulator, 40 requests of
# 32 random input and 12 output tokens at concurrency 4, every request's
# values saved (--save-detailed). The simulator stands in for vLLM: the
# file's format is vllm bench's whatever the server, and it starts in a
# second.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
llmbench sim --addr 127.0.0.1:18731 & sim=$!
trap 'kill $sim' EXIT
sleep 1
source /root/.cache/llmbench-vllmcpu/venv/bin/activate
vllm bench serve --backend openai-chat --base-url http://127.0.0.1:18731 --endpoint /v1/chat/completions \
  --model llmbench-sim --tokenizer /root/.cache/llmbench-vllmcpu/model --dataset-name random \
  --random-input-len 32 --random-output-len 12 --num-prompts 40 --max-concurrency 4 --ignore-eos \
  --save-result --save-detailed --result-dir "$here" --result-filename vllm-bench-serve.json
