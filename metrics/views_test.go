package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// viewRecords is the hand-worked run of every view test (times in ms):
//
//	R1 sent 0,  chunks 10 20 30 40, done 45, ISL 10, OSL 4
//	R2 sent 5,  chunks 25 65,       done 70, ISL 20, OSL 3
//	R3 sent 10, chunk  30,          done 30, ISL 5,  OSL 1
//	R4 sent 15, HTTP 500,           done 50, ISL 8
//	R5 sent 20, canceled,           done 80, ISL 7
//
// (all 1 s after the clock's origin, since a Sent of 0 means "never
// sent"), so TTFT = 10, 20, 20; latency (to the last chunk) = 40, 60, 20;
// the responses end 45, 65 and 20 ms after their sends; chunk gaps are
// 10 10 10 40; and the wall time, first send to the last end of any
// request, is 80 ms.
func viewRecords() []Record {
	at := func(v int64) int64 { return ms(1000 + v) }
	c := func(v ...int64) []int64 {
		for i := range v {
			v[i] = at(v[i])
		}
		return v
	}
	return []Record{
		{Sent: at(0), Chunks: c(10, 20, 30, 40), Done: at(45), InputTokens: 10, OutputTokens: 4},
		{Sent: at(5), Chunks: c(25, 65), Done: at(70), InputTokens: 20, OutputTokens: 3},
		{Sent: at(10), Chunks: c(30), Done: at(30), InputTokens: 5, OutputTokens: 1},
		{Sent: at(15), Done: at(50), InputTokens: 8, Err: &Failure{Class: ErrHTTP, Status: 500}},
		{Sent: at(20), Done: at(80), InputTokens: 7, Err: &Failure{Class: ErrCanceled}},
	}
}

// near fails unless got is within 1e-9 (relative) of want.
func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestViewVLLM(t *testing.T) {
	v := Summarize(viewRecords(), Options{}).Views.VLLM
	if v.Completed != 3 || v.Failed != 2 || v.TotalInput != 35 || v.TotalOutput != 8 {
		t.Errorf("completed, failed, input, output = %d, %d, %d, %d; want 3, 2, 35, 8",
			v.Completed, v.Failed, v.TotalInput, v.TotalOutput)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"duration (s)", v.Duration, 0.08},
		{"request throughput", v.RequestThroughput, 37.5},         // 3 / 0.08
		{"output throughput", v.OutputThroughput, 100},            // 8 / 0.08
		{"total token throughput", v.TotalTokenThroughput, 537.5}, // (35 + 8) / 0.08
		// Every chunk arrived in the first second after the first send.
		{"peak output tokens/s", v.MaxOutputTokensPerS, 7},
		// TTFT 10, 20, 20: mean 16.67, median 20, std √(200/9), p99 at rank 1.98 = 20.
		{"mean TTFT", v.TTFT.Mean, 50.0 / 3},
		{"median TTFT", v.TTFT.Median, 20},
		{"std TTFT", v.TTFT.Std, math.Sqrt(200.0 / 9)},
		{"p99 TTFT", v.TTFT.P99, 20},
		// TPOT (E2EL − TTFT)/(OSL − 1): R1 30/3 = 10, R2 40/2 = 20; R3 (OSL 1) has none.
		{"mean TPOT", v.TPOT.Mean, 15},
		{"median TPOT", v.TPOT.Median, 15},
		{"std TPOT", v.TPOT.Std, 5},
		{"p99 TPOT", v.TPOT.P99, 19.9}, // 10 + 10·0.99
		// ITL pools the gaps 10 10 10 40: mean 17.5, median 10, std √168.75, p99 = 10 + 30·0.97.
		{"mean ITL", v.ITL.Mean, 17.5},
		{"median ITL", v.ITL.Median, 10},
		{"std ITL", v.ITL.Std, math.Sqrt(168.75)},
		{"p99 ITL", v.ITL.P99, 39.1},
		// E2EL 40, 60, 20: mean 40, median 40, p99 = 40 + 20·0.98.
		{"mean E2EL", v.E2EL.Mean, 40},
		{"median E2EL", v.E2EL.Median, 40},
		{"p99 E2EL", v.E2EL.P99, 59.6},
	} {
		near(t, c.what, c.got, c.want)
	}
	if v.TPOT.Count != 2 || v.ITL.Count != 4 {
		t.Errorf("TPOT, ITL counts = %d, %d; want 2, 4", v.TPOT.Count, v.ITL.Count)
	}
	// [0,40], [5,65] and [10,30] (send to last chunk) all overlap at 10 ms.
	if v.MaxConcurrentRequests != 3 {
		t.Errorf("peak concurrent requests = %d, want 3", v.MaxConcurrentRequests)
	}
}

func TestViewGuideLLM(t *testing.T) {
	v := Summarize(viewRecords(), Options{}).Views.GuideLLM
	if v.Successful != 3 || v.Incomplete != 1 || v.Errored != 1 || v.Total != 5 {
		t.Errorf("successful, incomplete, errored, total = %d, %d, %d, %d; want 3, 1, 1, 5",
			v.Successful, v.Incomplete, v.Errored, v.Total)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"duration (s)", v.Duration, 0.08},
		// Latency to the end of the response, s: 0.045, 0.065, 0.020.
		{"mean latency", v.RequestLatency.Mean, 0.13 / 3},
		{"median latency", v.RequestLatency.Median, 0.045}, // cdf 1/3, 2/3, 1: first ≥ 0.5
		{"p95 latency", v.RequestLatency.P95, 0.065},
		// TTFT 10, 20, 20 ms: no interpolation, so the median is 20.
		{"median TTFT", v.TTFT.Median, 20},
		{"mode TTFT", v.TTFT.Mode, 20},
		{"median TTFOT", v.TTFOT.Median, 20},
		// ITL (last − first)/(OSL − 1), weighted by OSL − 1: 10 ms ×3, 20 ms ×2
		// (R3's weight is 0): mean 14, median 10, variance .6·16 + .4·36 = 24.
		{"mean ITL", v.ITL.Mean, 14},
		{"median ITL", v.ITL.Median, 10},
		{"p95 ITL", v.ITL.P95, 20},
		{"std ITL", v.ITL.StdDev, math.Sqrt(24)},
		// TPOT latency/OSL weighted by OSL: 40/4 = 10 ×4, 60/3 = 20 ×3, 20/1 = 20 ×1:
		// mean 15 (= 120 ms / 8 tokens), median 10 (cdf reaches .5 at 10).
		{"mean TPOT", v.TPOT.Mean, 15},
		{"median TPOT", v.TPOT.Median, 10},
		{"total TPOT", v.TPOT.TotalSum, 120},
		// In flight over [0, 80] ([0,45] [5,70] [10,30] [15,50] [20,80]): 1 for
		// 15 ms, 2 for 25, 3 for 10, 4 for 20, 5 for 10: mean 225/80, median 2
		// (cdf .1875, .5, ...).
		{"mean concurrency", v.RequestConcurrency.Mean, 2.8125},
		{"median concurrency", v.RequestConcurrency.Median, 2},
		{"max concurrency", v.RequestConcurrency.Max, 5},
		// All requests over the 0.08 s window: 5 requests, 50 prompt, 8 output tokens.
		{"requests/s", v.RequestsPerSecond, 62.5},
		{"prompt tokens/s", v.PromptTokensPerSecond, 625},
		{"output tokens/s", v.OutputTokensPerSecond, 100},
		{"tokens/s", v.TokensPerSecond, 725},
	} {
		near(t, c.what, c.got, c.want)
	}
	if v.ITL.Count != 5 || v.TPOT.Count != 8 || v.TTFT.Count != 3 || v.RequestConcurrency.Count != 5 {
		t.Errorf("ITL, TPOT, TTFT, concurrency counts = %d, %d, %d, %d; want 5, 8, 3, 5",
			v.ITL.Count, v.TPOT.Count, v.TTFT.Count, v.RequestConcurrency.Count)
	}
}

func TestViewLLMPerf(t *testing.T) {
	v := Summarize(viewRecords(), Options{}).Views.LLMPerf
	if v.NumRequestsStarted != 5 || v.NumErrors != 2 || v.NumCompletedRequests != 3 {
		t.Errorf("started, errors, completed = %d, %d, %d; want 5, 2, 3", v.NumRequestsStarted, v.NumErrors, v.NumCompletedRequests)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		// ITL = time to the last chunk / chunks: 0.040/4, 0.060/2, 0.020/1 s.
		{"mean ITL", v.InterTokenLatency.Mean, 0.02},
		{"p50 ITL", v.InterTokenLatency.P50, 0.02},
		{"p99 ITL", v.InterTokenLatency.P99, 0.0298}, // 0.02 + 0.01·0.98
		{"stddev ITL (ddof 1)", *v.InterTokenLatency.Stddev, 0.01},
		{"min TTFT", v.TTFT.Min, 0.01},
		{"mean E2E", v.EndToEndLatency.Mean, 0.13 / 3},
		{"max E2E", v.EndToEndLatency.Max, 0.065},
		// OSL / E2E: 4/0.045, 3/0.065, 1/0.02.
		{"max request throughput", v.RequestOutputThroughput.Max, 4 / 0.045},
		{"min request throughput", v.RequestOutputThroughput.Min, 3 / 0.065},
		{"mean output tokens", v.NumberOutputTokens.Mean, 8.0 / 3},
		{"error rate", v.ErrorRate, 0.4},
		{"overall throughput", v.MeanOutputThroughput, 100},  // 8 / 0.08 s wall
		{"completed per minute", v.CompletedPerMinute, 2250}, // 3 / 0.08 · 60
		{"wall time", v.WallTime, 0.08},
	} {
		near(t, c.what, c.got, c.want)
	}
}

func TestViewAIPerf(t *testing.T) {
	s := Summarize(viewRecords(), Options{})
	v := s.Views.AIPerf
	if v.TimeToFirstToken != s.TimeToFirstToken || v.RequestCount != 3 || v.ErrorRequestCount != 2 {
		t.Errorf("TTFT shared %v, request count %d, errors %d; want true, 3, 2",
			v.TimeToFirstToken == s.TimeToFirstToken, v.RequestCount, v.ErrorRequestCount)
	}
	// ITL (latency − TTFT)/(OSL − 1): 30/3 = 10 ms, 40/2 = 20 ms; R3 has OSL 1.
	near(t, "mean ITL (ns)", v.InterTokenLatency.Avg, 1.5e7)
	// 1 / ITL s: 100 and 50 tokens/s/user.
	near(t, "max TPS/user", v.OutputTokenThroughputPerUser.Max, 100)
	near(t, "min TPS/user", v.OutputTokenThroughputPerUser.Min, 50)
	// First completed send (0) to the last completed chunk (65 ms).
	if v.BenchmarkDuration != ms(65) {
		t.Errorf("benchmark duration = %d, want %d", v.BenchmarkDuration, ms(65))
	}
	near(t, "output token throughput", v.OutputTokenThroughput, 8/0.065)
	near(t, "request throughput", v.RequestThroughput, 3/0.065)
}

// TestViewAIPerfUnrounded: a 10 ns decode over 4 token gaps is an ITL of
// 2.5 ns; GenAI-Perf rounds it half to even (2), AIPerf keeps it, so the
// per-user throughputs are 5e8 and 4e8 tokens/s.
func TestViewAIPerfUnrounded(t *testing.T) {
	s := Summarize([]Record{{Sent: 1, Chunks: []int64{101, 111}, Done: 111, OutputTokens: 5}}, Options{})
	same(t, "GenAI-Perf ITL", s.InterTokenLatency.Avg, 2)
	same(t, "AIPerf ITL", s.Views.AIPerf.InterTokenLatency.Avg, 2.5)
	itl := 2.0
	same(t, "GenAI-Perf TPS/user", s.OutputTokenThroughputPerUser.Avg, 1/(itl/1e9)) // 4.9999999999999994e8
	same(t, "AIPerf TPS/user", s.Views.AIPerf.OutputTokenThroughputPerUser.Avg, 4e8)
}

// TestGuideConcurrencyMerge: events within 0.1 ms of a run's first are
// merged into it, as GuideLLM merges them. Spans [0, 10 ms] and
// [0.05 ms, 10.05 ms] over a window ending at 10.05 ms: the two starts
// merge at 0 and the two ends at 10 ms, so 2 are in flight for 10 ms (not 1
// for 0.05 ms, then 2, then 1) and 0 for the last 0.05 ms.
func TestGuideConcurrencyMerge(t *testing.T) {
	d := guideConcurrency([]span{{0, ms(10)}, {50_000, ms(10) + 50_000}}, 0, ms(10)+50_000)
	same(t, "min", d.Min, 0)
	same(t, "median", d.Median, 2)
	near(t, "mean", d.Mean, 2*10/10.05)
	if d.Count != 2 {
		t.Errorf("count = %d, want 2", d.Count)
	}
}

// TestChunkClockPastLimit: once the pooled gaps move to their histogram
// the peak per second is counted over whole milliseconds, the chunks of
// the requests before the move included, and comes out as the exact count
// does (a limit the run never reaches) when no chunk is near a second's
// edge. Three requests sent at 0.3 ms (the origin): chunks at 0.1 s (×3),
// 1.5 s (×2), 1.6 s (×2) and 1.7 s (×2); under a limit of 5 the third
// request's gap takes the pool past it. 3 in second 0, 6 in second 1.
func TestChunkClockPastLimit(t *testing.T) {
	defer func(n int) { GapExactLimit = n }(GapExactLimit)
	recs := []Record{
		{Sent: 300_000, Chunks: []int64{ms(100), ms(100), ms(100)}},
		{Sent: 300_000, Chunks: []int64{ms(1500), ms(1500), ms(1600), ms(1600)}},
		{Sent: 300_000, Chunks: []int64{ms(1700), ms(1700)}},
	}
	for _, limit := range []int{5, 1 << 21} {
		GapExactLimit = limit
		a := NewAccumulator(Options{})
		for i := range recs {
			a.Add(&recs[i])
		}
		if past := limit == 5; (a.views.chunks.perMS != nil) != past || (a.gaps.hist != nil) != past {
			t.Errorf("limit %d: millisecond counts %v, histogram %v; want both %v",
				limit, a.views.chunks.perMS != nil, a.gaps.hist != nil, past)
		}
		if got := a.peakPerSecond(300_000); got != 6 {
			t.Errorf("limit %d: peak = %d, want 6", limit, got)
		}
	}
}

// TestChunkTimesAreTheRecords: the chunk times read back from the pooled
// gaps are every completed request's chunks, in the order added, whatever
// the records between them (failed, empty, one chunk, warm-up) and after a
// summary was taken (its distribution must not reorder the pool).
func TestChunkTimesAreTheRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := NewAccumulator(Options{})
	var want []int64
	for i := range 300 {
		r := Record{ID: int64(i), Sent: rng.Int64N(1e12), OutputTokens: 1}
		at := r.Sent
		for range rng.IntN(6) {
			at += rng.Int64N(3e9)
			r.Chunks = append(r.Chunks, at)
		}
		switch rng.IntN(8) {
		case 0:
			r.Err = &Failure{Class: ErrHTTP, Status: 500}
		case 1:
			r.Warmup = true
		}
		a.Add(&r)
		if r.Err == nil && !r.Warmup {
			want = append(want, r.Chunks...)
		}
		if i == 150 {
			a.Summary()
		}
	}
	if got := slices.Collect(a.chunkTimes(len(a.requests))); !slices.Equal(got, want) {
		t.Errorf("chunk times read back differ from the records'\ngot  %v\nwant %v", got, want)
	}
}

// TestWeightedDistEmpty: no weight at all is GuideLLM's all-zero summary.
func TestWeightedDistEmpty(t *testing.T) {
	d := weightedDist([]float64{0, 0}, []float64{0, 0}, -1)
	if d != (GuideLLMDist{}) {
		t.Errorf("got %+v, want zeros", d)
	}
}

// TestSecondCountsFarSeconds: a second past the indexed range (a clock
// gone wrong) is still counted, apart, and the peak is over both.
func TestSecondCountsFarSeconds(t *testing.T) {
	var c secondCounts
	c.add(0, 2)
	c.add(3, 1)
	c.add(3, 4)
	c.add(maxIndexedSecond+5, 6)
	c.add(maxIndexedSecond+5, 1)
	if len(c.indexed) != 4 {
		t.Errorf("indexed %d seconds, want 4", len(c.indexed))
	}
	if got := c.peak(); got != 7 {
		t.Errorf("peak = %d, want 7 (the far second)", got)
	}
	c.add(1, 9)
	if got := c.peak(); got != 9 {
		t.Errorf("peak = %d, want 9", got)
	}
}
