#!/bin/sh
# streams_rss.sh BINARY STREAMS [PORT]: the whole-process memory of
# `llmbench profile` holding STREAMS streams open at once against
# `llmbench sim` in its own process (issue 30, item 4). Every stream gets
# 60 tokens, one every 500 ms after a 1 s TTFT, so all of them are open
# together for ~25 s. Prints the profile process's resident set sampled
# every second (VmRSS, kB) and its peak (VmHWM), plus the 1-minute load
# average. RSS growth per stream is the difference of two runs' peaks
# over the difference of their stream counts:
#
#   sh bench/streams_rss.sh /tmp/llmbench 2000; sh bench/streams_rss.sh /tmp/llmbench 10000
set -eu
bin=$1 streams=$2 port=${3:-18310}
dir=$(mktemp -d)
"$bin" sim --addr 127.0.0.1:$port --ttft 1s --itl 500ms --itl-per-seq 0s --prefill-per-token 0s \
	--jitter 0 --max-batch "$streams" --output-tokens 60 >"$dir/sim.log" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null; rm -rf "$dir"' EXIT
sleep 1
"$bin" profile -u 127.0.0.1:$port -m bench --streaming --concurrency "$streams" --request-count "$streams" \
	--output-tokens-mean 60 --output-tokens-stddev 0 --synthetic-input-tokens-mean 16 \
	--synthetic-input-tokens-stddev 0 --artifact-dir "$dir/artifacts" >"$dir/profile.log" 2>&1 &
pid=$!
peak=0
while kill -0 $pid 2>/dev/null; do
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
	hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
	[ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
	echo "rss_kB=${rss:-0} load=$(cut -d' ' -f1 /proc/loadavg)"
	sleep 1
done
wait $pid || { echo "profile failed:"; tail -20 "$dir/profile.log"; exit 1; }
grep -i "request count\|error\|CLIENT" "$dir/profile.log" | head -5 || true
echo "streams=$streams peak_rss_kB=$peak load=$(cut -d' ' -f1 /proc/loadavg)"
