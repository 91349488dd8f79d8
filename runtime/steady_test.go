package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// recordSink keeps the records a point writes, in order.
type recordSink struct {
	mu   sync.Mutex
	recs []metrics.Record
}

func (s *recordSink) Write(recs ...metrics.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, recs...)
	return nil
}

// runAuto measures one requests="auto" point against the simulator with
// the given jitter and returns its outcome and records.
func runAuto(t *testing.T, jitter float64, rule metrics.SteadyRule) (*Outcome, []metrics.Record) {
	t.Helper()
	entries, err := dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: 2}, Entries: 10}.Build(10)
	if err != nil {
		t.Fatal(err)
	}
	sink := &recordSink{}
	url := fmt.Sprintf("sim://?ttft=400ms&itl=200ms&itl_per_seq=0ms&prefill_per_token=0s&max_batch=256&jitter=%g", jitter)
	job := Job{Endpoint: plan.Endpoint{URL: url, API: transport.Chat, Stream: true, Model: "m", Timeout: 60e9},
		Entries: entries, Count: ByChunks, Records: sink,
		Point: engine.Point{Load: plan.Load{Concurrency: 128}, Stop: plan.Stop{Requests: rule.MaxRequests, Steady: &rule}, Grace: 5 * time.Second}}
	out, err := Execute(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Steady == nil || out.Interrupted {
		t.Fatalf("steady outcome %+v, interrupted %v", out.Steady, out.Interrupted)
	}
	return out, sink.recs
}

// replayChecks feeds the written records to a fresh checker: the checks
// it makes on the first n are those the run made.
func replayChecks(rule metrics.SteadyRule, recs []metrics.Record, n int) []metrics.SteadyCheck {
	c := metrics.NewSteadyChecker(rule, metrics.SteadyMetrics(true))
	var checks []metrics.SteadyCheck
	for i := range recs[:n] {
		r := recs[i]
		r.Warmup = false
		if chk := c.Add(&r); chk != nil {
			checks = append(checks, *chk)
		}
	}
	return checks
}

// TestAutoStopsOnTheRule: requests="auto" against the simulator stops at
// the first check that meets the rule — the check a batch earlier did
// not — recomputed from the written records, or at its cap, not
// converged, when the measured times (a loaded machine's, a race
// detector's) never meet it; either way the warm-up is counted, and its
// records, written before the cut was known, are not flagged. When the rule is met on which latencies is
// TestNoisierServerNeedsMore's, on planned ones.
func TestAutoStopsOnTheRule(t *testing.T) {
	rule := metrics.SteadyRule{CI: 0.05, Confidence: 0.95, MinRequests: 100, MaxRequests: 2000}
	out, recs := runAuto(t, 0.02, rule)
	s := out.Steady
	t.Logf("%s; measured %d; widths %+v", s.Summary(), s.Measured, s.Check.Widths)
	if s.Converged {
		checkStopOnTheRule(t, rule, s, recs)
	} else if s.Requests != rule.MaxRequests || s.Measured != rule.MaxRequests || s.Check.Met || len(recs) != s.Measured {
		t.Errorf("not converged: %+v with %d records written, want the cap of %d reached", s, len(recs), rule.MaxRequests)
	}
	for i, r := range recs {
		if r.Warmup { // written as it finished, before the cut was known
			t.Fatalf("record %d was written flagged warmup; the cut (the first %d) is saved with the outcome", i, s.Warmup)
		}
	}
	if out.Summary.Warmup != s.Warmup || out.Summary.Completed+out.Summary.Failed != s.Measured-s.Warmup {
		t.Errorf("summary has %d warm-up and %d measured, want %d and %d",
			out.Summary.Warmup, out.Summary.Completed+out.Summary.Failed, s.Warmup, s.Measured-s.Warmup)
	}
}

// checkStopOnTheRule checks a converged point against its written
// records: the check that met the rule is the one they replay to, and the
// one before it did not meet it.
func checkStopOnTheRule(t *testing.T, rule metrics.SteadyRule, s *SteadyOutcome, recs []metrics.Record) {
	t.Helper()
	// Requests in flight, and those sent while the reduction caught up
	// with the stopping record, finish and count after the stop.
	if !s.Check.Met || s.Requests >= rule.MaxRequests || s.Measured < s.Requests || len(recs) != s.Measured {
		t.Errorf("needed %d, measured %d, wrote %d: want the stop before the cap", s.Requests, s.Measured, len(recs))
	}
	checks := replayChecks(rule, recs, s.Requests)
	last := checks[len(checks)-1]
	if last.Requests != s.Requests || !last.Met || last.Warmup != s.Warmup || last.Widest() != s.Check.Widest() {
		t.Errorf("replayed check %+v, want the run's %+v", last, s.Check)
	}
	if len(checks) < 2 || checks[len(checks)-2].Met {
		t.Errorf("the check a batch before the stop met the rule too: %+v", checks)
	} else if s.Previous == nil || s.Previous.Requests != checks[len(checks)-2].Requests {
		t.Errorf("previous check %+v, want at %d", s.Previous, checks[len(checks)-2].Requests)
	}
}

// TestNoisierServerNeedsMore: the steady reduction halts a point on
// planned latencies (400 ms TTFT, 200 ms ITL, seeded) later for a server
// whose jitter is 0.9 than for one whose jitter is 0.02, and the halt
// fires exactly at the check that met the rule.
func TestNoisierServerNeedsMore(t *testing.T) {
	rule := metrics.SteadyRule{CI: 0.05, Confidence: 0.95, MinRequests: 100, MaxRequests: 8000}
	needed := map[float64]int{}
	for _, jitter := range []float64{0.02, 0.9} {
		halt := engine.NewHalt()
		red := newSteadyReduction(rule, true, halt)
		rng := rand.New(rand.NewPCG(7, 7))
		noisy := func(mean float64) float64 { return mean * (1 + jitter*(2*rng.Float64()-1)) }
		n := 0
		for ; n < rule.MaxRequests && !halt.Stopped(); n++ {
			sent := int64(n) * 1e6
			first := sent + int64(noisy(400e6))
			rec := metrics.Record{ID: int64(n), Sent: sent, Chunks: []int64{first, first + int64(noisy(200e6))}, OutputTokens: 2}
			rec.Done = rec.Chunks[1]
			red.add(rec)
		}
		_, out := red.finish()
		if !out.Converged || out.Requests != n {
			t.Fatalf("jitter %g: %+v after %d records, want converged at the record that halted", jitter, out, n)
		}
		needed[jitter] = out.Requests
	}
	t.Logf("needed: quiet %d, noisy %d", needed[0.02], needed[0.9])
	if needed[0.9] <= needed[0.02] {
		t.Errorf("noisy server needed %d requests, quiet %d: want more for the noisy one", needed[0.9], needed[0.02])
	}
}

// TestAutoCapIsNotConverged: a rule too strict for the cap runs to the
// cap and says it did not converge, its deciding check over every request.
func TestAutoCapIsNotConverged(t *testing.T) {
	rule := metrics.SteadyRule{CI: 0.001, Confidence: 0.95, MinRequests: 100, MaxRequests: 300}
	out, recs := runAuto(t, 0.3, rule)
	s := out.Steady
	t.Log(s.Summary())
	if s.Converged || s.Requests != 300 || s.Measured != 300 || len(recs) != 300 || s.Check.Met || s.Check.Requests != 300 {
		t.Errorf("got %+v, want not converged at the cap of 300", s)
	}
}

// TestAutoPointWritesRecordsAsTheyFinish: an auto point hands each
// record to Job.Records as it finishes, unflagged, not all at once when
// the point ends (when its warm-up cut is known), so a killed auto point
// keeps what it measured and the writers hold nothing back. The point's
// summary still leaves out the warm-up the outcome names. synctest.Wait
// lets the reduction take every record given, with no clock involved.
func TestAutoPointWritesRecordsAsTheyFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := &recordSink{}
		rule := metrics.SteadyRule{CI: 0.05, Confidence: 0.95, MinRequests: metrics.MinSteadyRequests, MaxRequests: 1000}
		job := &Job{Endpoint: plan.Endpoint{Stream: true}, Count: ByChunks, Records: sink,
			Point: engine.Point{Stop: plan.Stop{Requests: rule.MaxRequests, Steady: &rule}}}
		red := newReduction(job, []engine.Request{{Text: "hi", Words: 1}}, func() {})
		const n = 20
		for i := range n {
			sent := int64(i) * 1e6
			red.take(metrics.Record{ID: int64(i), Sent: sent, Chunks: []int64{sent + 4e8, sent + 6e8}, Done: sent + 6e8, Output: "ab", ChunkEnds: []int32{1, 2}})
		}
		synctest.Wait() // the reduction has taken all n and waits for more
		sink.mu.Lock()
		written := len(sink.recs)
		sink.mu.Unlock()
		if written != n {
			t.Errorf("%d of %d finished records written while the auto point runs, want all", written, n)
		}
		red.wait()
		s := red.steadyOut
		if s == nil || s.Measured != n {
			t.Fatalf("steady outcome %+v, want %d measured", s, n)
		}
		if sum := red.whole.Summary(); sum.Warmup != s.Warmup || sum.Completed != n-s.Warmup {
			t.Errorf("summary has %d warm-up and %d completed, want %d and %d", sum.Warmup, sum.Completed, s.Warmup, n-s.Warmup)
		}
		for i, r := range sink.recs {
			if r.Warmup || r.Output != "ab" {
				t.Fatalf("record %d written as %+v, want unflagged and whole", i, r)
			}
		}
	})
}
