#!/usr/bin/env bash
# Regenerates GenAI-Perf's own templates, as `genai-perf create-template`
# (GenAI-Perf 0.0.16 from PyPI, in a private venv) writes them: the plain
# one and the commented one (-v). The tests read them back and hold
# llmbench create-template's output to the plain one byte for byte.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${GENAIPERF_VENV:-$HOME/.cache/llmbench-peers/genaiperf}
[ -x "$venv/bin/genai-perf" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q genai-perf==0.0.16; }
tmp=$(mktemp -d)
(cd "$tmp" && "$venv/bin/genai-perf" create-template > /dev/null && "$venv/bin/genai-perf" create-template -v -f verbose.yaml > /dev/null)
cp "$tmp/genai_perf_config.yaml" "$here/genai_perf_config.yaml"
cp "$tmp/verbose.yaml" "$here/genai_perf_config.verbose.yaml"
