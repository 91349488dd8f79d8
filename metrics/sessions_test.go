package metrics

import (
	"math"
	"testing"
)

// turn builds a completed turn of a conversation, times in ns.
func turn(session string, n int, last bool, sent int64, chunks ...int64) Record {
	return Record{Session: session, Turn: n, LastTurn: last, Sent: sent, Chunks: chunks,
		Done: chunks[len(chunks)-1], InputTokens: 10 * n, OutputTokens: len(chunks)}
}

// TestSessionSummaryByHand: session a completes its two turns, b fails on
// its second, c is cut after its first (its last turn never came).
func TestSessionSummaryByHand(t *testing.T) {
	failed := Record{Session: "b", Turn: 2, Sent: 40, Done: 45, Err: &Failure{Class: ErrHTTP, Status: 500}}
	recs := []Record{
		turn("a", 1, false, 0, 10, 20),
		turn("b", 1, false, 5, 25),
		turn("c", 1, false, 30, 45, 60),
		failed,
		turn("a", 2, true, 50, 70, 90, 100),
	}
	acc := NewAccumulator(Options{})
	for i := range recs {
		acc.Add(&recs[i])
	}
	sum := acc.Summary()
	s := sum.Sessions
	if s == nil || s.Sessions != 3 || s.Completed != 1 || s.Failed != 1 || s.Cut != 1 {
		t.Fatalf("sessions %+v, want 3: a completed, b failed, c cut", s)
	}
	// a: first send 0, last response 100.
	if s.Duration.Count != 1 || s.Duration.Avg != 100 {
		t.Errorf("duration %+v, want a's 100 ns alone", s.Duration)
	}
	// Completed turns: a 2, b 1, c 1.
	if math.Abs(s.Turns.Avg-4.0/3) > 1e-12 || s.Turns.Max != 2 {
		t.Errorf("turns avg %v max %v, want 4/3 and 2", s.Turns.Avg, s.Turns.Max)
	}
	// One completed session over the point's 100 ns (first send 0, last chunk 100).
	if sum.Duration != 100 || s.Throughput != 1e7 {
		t.Errorf("throughput %v sessions/s over %d ns, want 1e7 over 100", s.Throughput, sum.Duration)
	}
	if len(s.PerTurn) != 2 {
		t.Fatalf("%d turn indices, want 2", len(s.PerTurn))
	}
	// Turn 1: TTFT a 10, b 20, c 15; ISL 10 each.
	if t1 := s.PerTurn[0]; t1.Turn != 1 || t1.Requests != 3 || t1.TimeToFirstToken.Avg != 15 || t1.InputSequenceLength.Avg != 10 {
		t.Errorf("turn 1 %+v (ttft %v), want 3 requests, TTFT avg 15, ISL 10", t1, t1.TimeToFirstToken.Avg)
	}
	// Turn 2: only a's (b's failed): TTFT 20, latency 50, ISL 20.
	if t2 := s.PerTurn[1]; t2.Requests != 1 || t2.TimeToFirstToken.Avg != 20 || t2.RequestLatency.Avg != 50 || t2.InputSequenceLength.Avg != 20 {
		t.Errorf("turn 2 %+v, want a's turn alone: TTFT 20, latency 50, ISL 20", t2)
	}
	// GenAI-Perf's per-session statistics: a sent 2 requests and 5 output
	// tokens over its span 0..100 ns; b one request of 1 token over 5..25.
	if len(s.BySession) != 3 {
		t.Fatalf("%d per-session summaries, want 3", len(s.BySession))
	}
	a, b := s.BySession[0], s.BySession[1]
	if a.ID != "a" || a.Summary.RequestCount != 2 || a.Summary.RequestThroughput != 2e7 || a.Summary.OutputTokenThroughput != 5e7 {
		t.Errorf("session a %+v, want 2 requests at 2e7/s and 5e7 tokens/s", a.Summary)
	}
	if b.ID != "b" || b.Summary.RequestCount != 1 || b.Summary.Duration != 20 || b.Summary.RequestThroughput != 5e7 {
		t.Errorf("session b %+v, want its one completed request over 20 ns", b.Summary)
	}
}

func TestSingleTurnRequestsHaveNoSessions(t *testing.T) {
	acc := NewAccumulator(Options{})
	r := Record{Sent: 1, Chunks: []int64{5}, Done: 5, OutputTokens: 1}
	acc.Add(&r)
	if s := acc.Summary().Sessions; s != nil {
		t.Errorf("sessions %+v for a single-turn request, want nil", s)
	}
}
