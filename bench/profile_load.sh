#!/bin/sh
# profile_load.sh BINARY [SECONDS] [PORT]: a CPU profile of the load phase
# of `llmbench profile` with every artifact on (2,400 requests × 200
# tokens, concurrency 64, against `llmbench sim` in its own process), as
# docs/performance.md quotes it (issue 30, item 5). perf attaches to the
# running client 2 s after it starts, for SECONDS (default 12) of its
# load phase, and prints the top functions by cumulative CPU ("children")
# and by their own CPU ("self").
set -eu
LC_ALL=C
bin=$1 seconds=${2:-12} port=${3:-18311}
dir=$(mktemp -d)
"$bin" sim --addr 127.0.0.1:$port --ttft 1ms --itl 2ms --itl-per-seq 0s --prefill-per-token 0s \
	--jitter 0 --max-batch 1024 >"$dir/sim.log" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null; rm -rf "$dir"' EXIT
sleep 1
"$bin" profile -u 127.0.0.1:$port -m bench --streaming --concurrency 64 --request-count 2400 \
	--output-tokens-mean 200 --output-tokens-stddev 0 --synthetic-input-tokens-mean 32 \
	--synthetic-input-tokens-stddev 0 --artifact-dir "$dir/artifacts" >"$dir/profile.log" 2>&1 &
pid=$!
sleep 2
echo "load average $(cut -d' ' -f1 /proc/loadavg)"
perf record -q -F 999 -g -p $pid -o "$dir/perf.data" -- sleep "$seconds" 2>/dev/null
wait $pid
echo "load average $(cut -d' ' -f1 /proc/loadavg)"
echo "== cumulative (children)"
perf report -q -i "$dir/perf.data" --children --sort symbol --stdio -g none 2>/dev/null >"$dir/children.txt"
head -45 "$dir/children.txt"
echo "== cumulative: the client's own work per token (SSE, framing, JSON scan, the record)"
grep -E 'streamState\)\.apply|decoder\)\.decode|scanner\)\.scan$|SSEParser\)\.Next|connBody\)\.next|watchedConn\)\.Read|time\.Since' "$dir/children.txt" | head -10
echo "== cumulative: the records' way (reduction, sink, artifacts), GC, allocation"
grep -E 'reduction|pointSink|ProfileExport|appendEntry|records\.|tokenCounter|gcBgMarkWorker|mallocgc|bgsweep|scavenge' "$dir/children.txt" | head -20
echo "== self"
perf report -q -i "$dir/perf.data" --no-children --sort symbol --stdio -g none 2>/dev/null | head -30
