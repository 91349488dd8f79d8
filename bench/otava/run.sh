#!/bin/sh
# Apache Otava against llmbench's change point detector on otava-test-data's
# patterns (docs/compare.md, "Change points"). Installs Otava into a private
# venv (never a dependency of llmbench; CI does not run this), builds the
# llmbench side (bench/otava), and writes results.md and results.json here.
#   bench/otava/run.sh [SEEDS]        (default 10 seeds: 1100 series, ~3 min)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${OTAVA_VENV:-${TMPDIR:-/tmp}/llmbench-otava-venv}
seeds=${1:-10}
if [ ! -x "$venv/bin/python" ]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install --quiet apache-otava==0.8.0 otava-test-data==0.1.9
fi
detector=$(mktemp -d)/otava-detector
(cd "$root" && go build -o "$detector" ./bench/otava)
"$venv/bin/python" "$here/compare.py" --detector "$detector" --seeds "$seeds" --out "$here"
