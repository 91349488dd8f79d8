#!/bin/sh
# perf_analyzer.sh BINARY [ROUNDS] [PORT]: llmbench beside perf_analyzer
# (issue 30, item 3's second half). Both load the same `llmbench sim`
# process with the same prompts (llmbench's inputs.json, which is
# GenAI-Perf's input file) — 200 streamed tokens a request, concurrency 64,
# 600 and 2,400 requests — in alternating rounds, each as a process of its
# own timed by /usr/bin/time (user+sys); prints CPU per content token, the
# ratio and the 1-minute load average; then, in 2,400-request runs, the
# CPU of each in the same window of its load phase (window below).
#
# perf_analyzer 2.52.0 is the binary inside PyPI's tritonclient==2.52.0
# manylinux wheel. It needs glibc 2.38 and GLIBCXX_3.4.32, newer than
# Debian 12's, so Debian 13's libc6, libstdc++6 and libgcc-s1 are
# downloaded with apt (a private source list and cache: the machine's apt
# configuration is not touched), unpacked into PA_ROOT and the binary is
# started through their ld-linux with --library-path. PA_ROOT (default
# /tmp/perf_analyzer-2.52.0) keeps them between runs.
set -eu
bin=$1 rounds=${2:-3} port=${3:-18315}
root=${PA_ROOT:-/tmp/perf_analyzer-2.52.0}
libs=$root/libs/usr/lib/x86_64-linux-gnu
pa=$root/wheel/tritonclient-2.52.0.data/data/bin/perf_analyzer

fetch() {
	mkdir -p "$root/wheel" "$root/debs" "$root/libs" "$root/apt/lists/partial" "$root/apt/cache/archives/partial"
	pip download tritonclient==2.52.0 --no-deps --only-binary=:all: --platform manylinux1_x86_64 \
		--python-version 3.11 -d "$root" >/dev/null
	python3 -m zipfile -e "$root/tritonclient-2.52.0-py3-none-manylinux1_x86_64.whl" "$root/wheel"
	chmod +x "$pa"
	echo "deb [trusted=yes] http://deb.debian.org/debian trixie main" >"$root/apt/trixie.list"
	set -- -o Dir::Etc::SourceList="$root/apt/trixie.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$root/apt/lists" -o Dir::Cache="$root/apt/cache" -o Dir::State::status=/dev/null
	apt-get "$@" update >/dev/null
	(cd "$root/debs" && apt-get "$@" download libc6 libstdc++6 libgcc-s1 >/dev/null 2>&1)
	for deb in "$root"/debs/*.deb; do dpkg-deb -x "$deb" "$root/libs"; done
}
[ -x "$pa" ] && [ -e "$libs/ld-linux-x86-64.so.2" ] || fetch
"$libs/ld-linux-x86-64.so.2" --library-path "$libs:/lib/x86_64-linux-gnu" "$pa" --version

dir=$(mktemp -d)
"$bin" sim --addr 127.0.0.1:$port --ttft 1ms --itl 2ms --itl-per-seq 0s --prefill-per-token 0s \
	--jitter 0 --max-batch 1024 >"$dir/sim.log" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null; rm -rf "$dir"' EXIT
sleep 1

# cpu CMD...: the command's user+sys seconds.
cpu() {
	/usr/bin/time -f "%U %S" -o "$dir/time" "$@" >"$dir/out.log" 2>&1 || { head -5 "$dir/out.log" >&2; exit 1; }
	awk '{print $1 + $2}' "$dir/time"
}

# window CMD...: the command's CPU seconds between 2 s and 10 s after its
# start, its load phase at 2,400 requests (about 15 s against this
# simulator): the simulator paces the tokens (64 streams, one token every
# 2 ms each), so both clients receive the same tokens in the window.
window() {
	"$@" >"$dir/out.log" 2>&1 &
	pid=$!
	sleep 2
	t0=$(awk '{print $14 + $15}' /proc/$pid/stat)
	sleep 8
	t1=$(awk '{print $14 + $15}' /proc/$pid/stat)
	wait $pid || { head -5 "$dir/out.log" >&2; exit 1; }
	awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN { print (b - a) / hz }'
}

for requests in 600 2400; do
	for round in $(seq 1 "$rounds"); do
		load=$(cut -d' ' -f1 /proc/loadavg)
		rm -rf "$dir/lb" "$dir/pa_export.json" # perf_analyzer refuses to overwrite its export
		lb=$(cpu "$bin" profile -u 127.0.0.1:$port -m bench --streaming --concurrency 64 --request-count $requests \
			--output-tokens-mean 200 --output-tokens-stddev 0 --synthetic-input-tokens-mean 32 \
			--synthetic-input-tokens-stddev 0 --artifact-dir "$dir/lb")
		inputs=$(find "$dir/lb" -name inputs.json)
		pacpu=$(cpu "$libs/ld-linux-x86-64.so.2" --library-path "$libs:/lib/x86_64-linux-gnu" "$pa" -m bench --async \
			--stability-percentage 999 --request-count $requests -i http --concurrency-range 64 --service-kind openai \
			--endpoint v1/chat/completions --input-data "$inputs" --profile-export-file "$dir/pa_export.json" \
			-u 127.0.0.1:$port)
		tokens=$((requests * 200))
		awk -v r=$requests -v n=$round -v lb="$lb" -v pa="$pacpu" -v t=$tokens -v l0="$load" -v l1="$(cut -d' ' -f1 /proc/loadavg)" \
			'BEGIN { printf "requests=%d round=%d llmbench=%.2f µs/token perf_analyzer=%.2f µs/token llmbench/perf_analyzer=%.2f load=%s→%s\n", r, n, lb*1e6/t, pa*1e6/t, lb/pa, l0, l1 }'
	done
done

# The load phase alone: CPU in the same window of each client's run.
for round in $(seq 1 "$rounds"); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	rm -rf "$dir/lb" "$dir/pa_export.json"
	lb=$(window "$bin" profile -u 127.0.0.1:$port -m bench --streaming --concurrency 64 --request-count 2400 \
		--output-tokens-mean 200 --output-tokens-stddev 0 --synthetic-input-tokens-mean 32 \
		--synthetic-input-tokens-stddev 0 --artifact-dir "$dir/lb")
	inputs=$(find "$dir/lb" -name inputs.json)
	pacpu=$(window "$libs/ld-linux-x86-64.so.2" --library-path "$libs:/lib/x86_64-linux-gnu" "$pa" -m bench --async \
		--stability-percentage 999 --request-count 2400 -i http --concurrency-range 64 --service-kind openai \
		--endpoint v1/chat/completions --input-data "$inputs" --profile-export-file "$dir/pa_export.json" \
		-u 127.0.0.1:$port)
	awk -v n=$round -v lb="$lb" -v pa="$pacpu" -v l0="$load" -v l1="$(cut -d' ' -f1 /proc/loadavg)" \
		'BEGIN { printf "load phase (2 s to 10 s) round=%d llmbench=%.2f s perf_analyzer=%.2f s llmbench/perf_analyzer=%.2f load=%s→%s\n", n, lb, pa, lb/pa, l0, l1 }'
done
