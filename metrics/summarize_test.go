package metrics

import (
	"reflect"
	"testing"
)

// ms converts milliseconds to the nanoseconds records hold.
func ms(v int64) int64 { return v * 1_000_000 }

// TestSummarizeDuration: the duration runs from the first send to the last
// content chunk over completed requests with content only; the request
// throughput still counts every completed request.
func TestSummarizeDuration(t *testing.T) {
	records := []Record{
		// Failed, sent first and with a partial chunk: outside everything but Failed.
		{Sent: ms(0), Chunks: []int64{ms(150)}, Err: &Failure{Class: ErrReset}},
		// Completed without content (role-only chunk, [DONE]): sent early, ends late.
		{Sent: ms(5), Done: ms(200), InputTokens: 2},
		{Sent: ms(10), Chunks: []int64{ms(20), ms(100)}, InputTokens: 3, OutputTokens: 4},
		{Sent: ms(30), Chunks: []int64{ms(40), ms(80)}, InputTokens: 5, OutputTokens: 5},
	}
	s := Summarize(records, Options{})
	// max(100, 80) − min(10, 30) = 90 ms.
	if s.Duration != ms(90) {
		t.Errorf("Duration = %d, want %d", s.Duration, ms(90))
	}
	if s.Completed != 3 || s.Failed != 1 || s.RequestCount != 2 {
		t.Errorf("Completed, Failed, RequestCount = %d, %d, %d; want 3, 1, 2", s.Completed, s.Failed, s.RequestCount)
	}
	// 3 completed / 0.09 s (GenAI-Perf's len(requests) includes the one without content).
	same(t, "RequestThroughput", s.RequestThroughput, 33.333333333333336)
	// (4 + 5) tokens / 0.09 s.
	same(t, "OutputTokenThroughput", s.OutputTokenThroughput, 100)
	// The request without content has no ISL entry either: [3, 5].
	same(t, "ISL avg", s.InputSequenceLength.Avg, 4)
	// ttft 10 and 10 ms, latency 90 and 50 ms; the failed and empty requests add nothing.
	if s.TimeToFirstToken.Count != 2 || s.RequestLatency.Count != 2 {
		t.Errorf("TTFT, latency counts = %d, %d; want 2, 2", s.TimeToFirstToken.Count, s.RequestLatency.Count)
	}
	same(t, "latency avg", s.RequestLatency.Avg, float64(ms(70)))
	same(t, "ErrorRate", s.ErrorRate, 0.25)
	if s.RequestGoodput != nil {
		t.Error("RequestGoodput set without SLOs")
	}
}

// TestSummarizeFailures: failed requests are counted and grouped, never
// measured.
func TestSummarizeFailures(t *testing.T) {
	fail := func(c ErrorClass, status int, msg string) Record {
		// A fast partial stream that would lower every latency if it counted.
		return Record{Sent: ms(0), Chunks: []int64{ms(1), ms(2)}, OutputTokens: 9, Err: &Failure{c, status, msg}}
	}
	records := []Record{
		fail(ErrHTTP, 500, "boom"),
		{Sent: ms(0), Chunks: []int64{ms(10), ms(20)}, OutputTokens: 2},
		fail(ErrTimeout, 0, "idle"),
		fail(ErrHTTP, 429, "slow down"),
		fail(ErrConnect, 0, "refused"),
		{Sent: ms(0), Chunks: []int64{ms(10), ms(30)}, OutputTokens: 2},
		fail(ErrHTTP, 500, "boom"),
		fail(ErrHTTP, 429, "slow down"),
		fail(ErrConnect, 0, "refused"),
		{Sent: ms(0), Chunks: []int64{ms(10), ms(40)}, OutputTokens: 2},
	}
	s := Summarize(records, Options{})
	if s.Completed != 3 || s.Failed != 7 {
		t.Errorf("Completed, Failed = %d, %d; want 3, 7", s.Completed, s.Failed)
	}
	same(t, "ErrorRate", s.ErrorRate, 0.7) // 7 / 10
	// Twos first; among them class "connect" < "http", then status 429 < 500.
	want := []ErrorCount{
		{ErrConnect, 0, "refused", 2},
		{ErrHTTP, 429, "slow down", 2},
		{ErrHTTP, 500, "boom", 2},
		{ErrTimeout, 0, "idle", 1},
	}
	if !reflect.DeepEqual(s.Errors, want) {
		t.Errorf("Errors = %+v, want %+v", s.Errors, want)
	}
	// Only the completed ones: ttft 10 ms each, latency 20, 30, 40 ms.
	same(t, "ttft min", s.TimeToFirstToken.Min, float64(ms(10)))
	same(t, "latency avg", s.RequestLatency.Avg, float64(ms(30)))
	// OSL 2+2+2 over 40 ms: 6/0.04 = 150.
	same(t, "OutputTokenThroughput", s.OutputTokenThroughput, 150)
	same(t, "RequestThroughput", s.RequestThroughput, 75) // 3/0.04
}

// TestSummarizeGoodputAlignment: GenAI-Perf zips its per-metric lists,
// and the ITL list lacks the single-chunk request A, so zip pairs
// A's TTFT with C's ITL and C's TTFT with B's ITL: ttft [1, 1, 10] and itl
// [1, 1] give (1,1), (1,1) → 2 good. Per request, A has no ITL and B's TTFT
// is 10 ms > 5, so only C is good.
func TestSummarizeGoodputAlignment(t *testing.T) {
	records := []Record{
		{Sent: ms(0), Chunks: []int64{ms(1)}, OutputTokens: 1},                  // A: ttft 1, no itl
		{Sent: ms(1), Chunks: []int64{ms(2), ms(3), ms(4)}, OutputTokens: 3},    // C: ttft 1, itl 1
		{Sent: ms(0), Chunks: []int64{ms(10), ms(11), ms(12)}, OutputTokens: 3}, // B: ttft 10, itl 1
	}
	slos := []SLO{{GoodputTTFT, 5}, {GoodputITL, 2}}
	s := Summarize(records, Options{Goodput: slos})
	if s.RequestGoodput == nil {
		t.Fatal("RequestGoodput nil with SLOs")
	}
	// 1 good / (12 ms − 0) = 1/0.012; GenAI-Perf's zip would give 2/0.012 = 166.66….
	same(t, "RequestGoodput", *s.RequestGoodput, 83.33333333333333)
	// An SLO nobody meets gives 0, not nil.
	s = Summarize(records, Options{Goodput: []SLO{{GoodputRequestLatency, 0.5}}})
	same(t, "RequestGoodput none", *s.RequestGoodput, 0)
}

// TestSummarizeITLAllZero: GenAI-Perf drops inter_token_latency when its
// values sum to 0; TTST and the chunk gaps stay.
func TestSummarizeITLAllZero(t *testing.T) {
	records := []Record{
		{Sent: 0, Chunks: []int64{5, 5}, OutputTokens: 3},
		{Sent: 0, Chunks: []int64{7, 7, 7}, OutputTokens: 4},
	}
	s := Summarize(records, Options{})
	if s.InterTokenLatency != nil || s.OutputTokenThroughputPerUser != nil {
		t.Errorf("ITL %v, TPS/user %v: want both nil", s.InterTokenLatency, s.OutputTokenThroughputPerUser)
	}
	if s.TimeToSecondToken == nil || s.ChunkGap == nil || s.ChunkGap.Count != 3 {
		t.Errorf("TTST %v, ChunkGap %v: want present, 3 gaps", s.TimeToSecondToken, s.ChunkGap)
	}
}

// TestSummarizeAbsentMetrics: metrics without values are nil.
func TestSummarizeAbsentMetrics(t *testing.T) {
	// Non-streaming: one chunk each; ttft == latency; no TTST, ITL, gaps.
	s := Summarize([]Record{
		{Sent: ms(0), Chunks: []int64{ms(30)}, OutputTokens: 10},
		{Sent: ms(10), Chunks: []int64{ms(50)}, OutputTokens: 20},
	}, Options{})
	if s.TimeToSecondToken != nil || s.InterTokenLatency != nil || s.ChunkGap != nil ||
		s.OutputTokenThroughputPerUser != nil || s.TimeToFirstOutputToken != nil || s.ScheduleLag != nil {
		t.Errorf("non-streaming run has values it cannot have: %+v", s)
	}
	// ttft [30, 40] ms equals latency; duration 50 ms.
	same(t, "ttft avg", s.TimeToFirstToken.Avg, float64(ms(35)))
	same(t, "latency avg", s.RequestLatency.Avg, float64(ms(35)))
	same(t, "OutputTokenThroughput", s.OutputTokenThroughput, 600) // 30 / 0.05

	empty := Summarize(nil, Options{Goodput: []SLO{{GoodputTTFT, 1}}})
	zero := 0.0
	if !reflect.DeepEqual(empty, Summary{RequestGoodput: &zero}) {
		t.Errorf("empty run: %+v", empty)
	}
}

// TestSummarizePooled: chunk gaps pool every request's gaps; TTFO
// appears once a request streamed reasoning.
func TestSummarizePooled(t *testing.T) {
	s := Summarize([]Record{
		{Sent: 0, Chunks: []int64{10, 12, 20}, OutputTokens: 3},                         // gaps 2, 8
		{Sent: 0, Chunks: []int64{10, 14}, ReasoningChunks: 1, OutputTokens: 2},         // gap 4, ttfo 14
		{Sent: 0, Chunks: []int64{10}, OutputTokens: 1, Err: &Failure{Class: ErrReset}}, // failed
	}, Options{})
	// Gaps [2, 8, 4]: avg 14/3, min 2, max 8, p50 4.
	same(t, "gap avg", s.ChunkGap.Avg, 14.0/3)
	same(t, "gap p50", s.ChunkGap.P50, 4)
	if s.ChunkGap.Count != 3 || s.TimeToFirstOutputToken == nil || s.TimeToFirstOutputToken.Max != 14 {
		t.Errorf("ChunkGap %+v, TTFO %+v", s.ChunkGap, s.TimeToFirstOutputToken)
	}
}
