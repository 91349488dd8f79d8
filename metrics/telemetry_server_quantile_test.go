package metrics

import (
	"errors"
	"math"
	"testing"
)

// vLLM 0.32's request_queue_time_seconds buckets start at 0.3 s. With
// every queue time near 0.02 ms all observations land in (0, 0.3], and
// histogram_quantile's interpolation puts p50 at 150 ms and p99 at 297 ms
// — figures no request came near. The bucket is what is measured: p50 and
// p99 are "≤ 300 ms".
func TestQueueTimeQuantilesAreTheirBucket(t *testing.T) {
	inf := math.Inf(+1)
	b := []HistogramBucket{{0.3, 20}, {0.5, 20}, {0.8, 20}, {inf, 20}}
	if got := HistogramQuantile(0.5, b); math.Abs(got-0.15) > 1e-12 {
		t.Fatalf("interpolated p50 %v, want 0.15 (the misleading figure)", got)
	}
	for _, q := range []float64{0.5, 0.99} {
		r, ok := HistogramQuantileBucket(q, b)
		if !ok || r != (HistogramRange{0, 0.3}) {
			t.Errorf("p%g bucket %+v %v, want (0, 0.3]", 100*q, r, ok)
		}
		if got := r.Format(1e3, "ms"); got != "≤ 300 ms" {
			t.Errorf("p%g says %q, want \"≤ 300 ms\"", 100*q, got)
		}
	}
}

// vLLM's TTFT buckets around 0.1–0.25 s: with 100 observations, 90 at or
// below 0.1 s and 10 in (0.1, 0.25], p99 (rank 99) is in (0.1, 0.25]
// — interpolated 0.235 s, above a client maximum of, say, 150 ms, which is
// why only the bucket is said. A quantile only the +Inf bucket reaches is
// "> the highest finite bound".
func TestTTFTQuantileBucketRanges(t *testing.T) {
	inf := math.Inf(+1)
	b := []HistogramBucket{{0.02, 0}, {0.04, 30}, {0.06, 60}, {0.08, 80}, {0.1, 90}, {0.25, 100}, {0.5, 100}, {inf, 100}}
	for _, c := range []struct {
		q    float64
		want HistogramRange
		says string
	}{
		{0.99, HistogramRange{0.1, 0.25}, "in (100, 250] ms"},
		{0.5, HistogramRange{0.04, 0.06}, "in (40, 60] ms"},
		{0.1, HistogramRange{0.02, 0.04}, "in (20, 40] ms"},
	} {
		r, ok := HistogramQuantileBucket(c.q, b)
		if !ok || r != c.want || r.Format(1e3, "ms") != c.says {
			t.Errorf("p%g: %+v %v %q, want %+v %q", 100*c.q, r, ok, r.Format(1e3, "ms"), c.want, c.says)
		}
	}
	over := []HistogramBucket{{0.1, 1}, {0.25, 2}, {inf, 10}}
	if r, ok := HistogramQuantileBucket(0.99, over); !ok || r.Format(1e3, "ms") != "> 250 ms" {
		t.Errorf("p99 above every finite bound: %+v %v %q, want \"> 250 ms\"", r, ok, r.Format(1e3, "ms"))
	}
	for _, bad := range [][]HistogramBucket{nil, {{0.1, 1}}, {{0.1, 0}, {inf, 0}}, {{0.1, 1}, {0.2, 2}}} {
		if r, ok := HistogramQuantileBucket(0.5, bad); ok {
			t.Errorf("%v: bucket %+v, want none (HistogramQuantile is NaN)", bad, r)
		}
	}
}

// The reduction carries the bucket of each quantile: TestServerLatency's
// histogram (10 ≤ 0.1 s, 30 ≤ 0.2 s, 50 in all) has p50 in (0.1, 0.2] and
// p99 above 0.2 s, whatever the interpolation says.
func TestServerLatencyCarriesBuckets(t *testing.T) {
	var samples []TelemetrySample
	samples = append(samples, ttftHistogram(0, "0", 5, 8, 10, 1.5)...)
	samples = append(samples, ttftHistogram(10, "0", 15, 38, 60, 15.5)...)
	samples = append(samples, tsample(0, "v:8000", "vllm:num_requests_running", 0))
	ts := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(9)})
	l := ts.Server.Latency(LatencyTTFT)
	if l == nil || !l.OK {
		t.Fatalf("ttft %+v", l)
	}
	if l.P50In == nil || *l.P50In != (HistogramRange{0.1, 0.2}) || l.P99In == nil || !math.IsInf(l.P99In.Upper, +1) || l.P99In.Lower != 0.2 {
		t.Errorf("p50 in %+v, p99 in %+v; want (0.1, 0.2] and (0.2, +Inf]", l.P50In, l.P99In)
	}
}

// A non-streamed run's client "TTFT" is its whole request (one chunk), so
// it is never set beside the server's TTFT (before: "client 1411 ms: +1369
// ms network + client"); its request latency is.
func TestNonStreamedComparesRequestLatencyOnly(t *testing.T) {
	server := &TelemetrySummary{Server: ServerTelemetry{Latencies: []ServerLatency{
		{Metric: LatencyTTFT, OK: true, Count: 3, Mean: 42e6},
		{Metric: LatencyRequestLatency, OK: true, Count: 3, Mean: 1360e6},
	}}}
	whole := []float64{1400e6, 1411e6, 1422e6}
	client := &Summary{TimeToFirstToken: NewDistribution(whole), RequestLatency: NewDistribution(whole)}
	if g, err := CompareServerLatency(LatencyTTFT, client, server); !errors.Is(err, ErrNoFirstToken) || !errors.Is(err, ErrNotMeasured) {
		t.Errorf("non-streamed TTFT compared: %+v, %v; want ErrNoFirstToken", g, err)
	}
	g, err := CompareServerLatency(LatencyRequestLatency, client, server)
	if err != nil || !g.Difference.OK || math.Abs(g.Difference.Value-51e6) > 1e-3 {
		t.Errorf("request latency gap %+v, %v; want 1411 − 1360 = 51 ms", g, err)
	}
	client.TimeToSecondToken = NewDistribution([]float64{5e6, 5e6, 5e6})
	if _, err := CompareServerLatency(LatencyTTFT, client, server); err != nil {
		t.Errorf("streamed TTFT not compared: %v", err)
	}
}
