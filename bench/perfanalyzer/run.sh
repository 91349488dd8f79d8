#!/usr/bin/env bash
# run.sh measures client CPU per streamed token of perf_analyzer 2.52.0 and
# `llmbench profile` under the same load (see compare.py), after building
# both: perf_analyzer through setup.sh, llmbench from this checkout.
#
#   bench/perfanalyzer/run.sh                      # 3 rounds of 600 and 2,400 requests
#   bench/perfanalyzer/run.sh --rounds 5 --sizes 2400
#
# Flags go to compare.py (--help lists them). The table is printed and
# written into bench/perfanalyzer/results.md between its
# <!-- perfanalyzer:table --> markers; one JSON line per run is appended to
# $PA_CACHE/runs.jsonl.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PA_CACHE:-$HOME/.cache/llmbench-perfanalyzer}

pa=$("$here/setup.sh" | tail -n 1)
(cd "$repo" && go build -o "$cache/llmbench" ./cmd/llmbench)
# The last commit that changed llmbench's code (this folder's own commits
# and documentation change nothing measured).
code=(. ':!bench/perfanalyzer' ':!docs' ':!*.md')
commit=$(git -C "$repo" log -1 --format=%h -- "${code[@]}")
[[ -z $(git -C "$repo" status --porcelain -- "${code[@]}") ]] || commit+=" (with uncommitted changes)"
exec python3 "$here/compare.py" --llmbench "$cache/llmbench" --pa "$pa" \
  --results "$here/results.md" --raw "$cache/runs.jsonl" \
  --llmbench-commit "$commit" "$@"
