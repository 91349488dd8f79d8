#!/bin/sh
# streams_rss_ab.sh BASE NEW [ROUNDS]: issue 30 item 4's measure for two
# builds in the same interleaved rounds (default 3): each round runs
# streams_rss.sh at 2,000 and then 10,000 streams with BASE, then with NEW.
# Prints every run's peak, then per build the median peaks and the growth
# per stream, (median peak at 10,000 - median peak at 2,000) / 8,000, in KiB
# (/proc's kB are KiB). A round takes ~2 minutes; keep the machine
# otherwise quiet, and record the load averages printed beside each run.
#
#   go build -o /tmp/llm-new ./cmd/llmbench
#   sh bench/streams_rss_ab.sh /tmp/llm-base /tmp/llm-new
set -eu
base=$1 new=$2 rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
peaks=$(mktemp)
trap 'rm -f "$peaks"' EXIT
for round in $(seq "$rounds"); do
	for side in base new; do
		bin=$base
		[ "$side" = new ] && bin=$new
		for streams in 2000 10000; do
			line=$(sh "$here/streams_rss.sh" "$bin" "$streams" | tail -1)
			echo "round $round $side $(date -u +%H:%M:%S) $line"
			peak=$(echo "$line" | sed -n 's/.*peak_rss_kB=\([0-9]*\).*/\1/p')
			echo "$side $streams ${peak:?no peak in: $line}" >>"$peaks"
		done
	done
done
for side in base new; do
	awk -v side="$side" '
		$1 == side { v[$2] = v[$2] " " $3 }
		function median(list,   a, n, i, j, t) {
			n = split(list, a, " ")
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		END {
			small = median(v[2000]); large = median(v[10000])
			printf "%s: median peak %d kB at 2,000 (%s), %d kB at 10,000 (%s); growth %.2f KiB a stream\n",
				side, small, substr(v[2000], 2), large, substr(v[10000], 2), (large - small) / 8000
		}' "$peaks"
done
