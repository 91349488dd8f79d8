package metrics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// steadyRecord is a completed streamed request whose TTFT is ttft ns and
// whose ITL is itl ns over 3 chunks.
func steadyRecord(ttft, itl float64) *Record {
	sent := int64(1e9)
	first := sent + int64(ttft)
	return &Record{Sent: sent, Chunks: []int64{first, first + int64(itl), first + 2*int64(itl)},
		Done: first + 2*int64(itl), InputTokens: 10, OutputTokens: 3}
}

// TestSteadyCheckerStopsOnTheRule feeds iid exponential latencies: the
// checks fall at 100, 150, 200, ... records, widths shrink as n grows, and
// the first check that meets the rule is the one whose widths are all
// within CI while the one before was not.
func TestSteadyCheckerStopsOnTheRule(t *testing.T) {
	rule := SteadyRule{CI: 0.15, Confidence: 0.95, MinRequests: 100}
	c := NewSteadyChecker(rule, SteadyMetrics(true))
	rng := rand.New(rand.NewPCG(3, 3))
	var checks []SteadyCheck
	for n := 0; n < 20000; n++ {
		if chk := c.Add(steadyRecord(1e6*(20+10*rng.ExpFloat64()), 1e6*(5+rng.ExpFloat64()))); chk != nil {
			checks = append(checks, *chk)
			if chk.Met {
				break
			}
		}
	}
	last := checks[len(checks)-1]
	if !last.Met {
		t.Fatalf("never met after %d records", last.Requests)
	}
	if len(checks) < 2 || checks[len(checks)-2].Met {
		t.Fatalf("want the check before the stop unmet, got %+v", checks)
	}
	if checks[0].Requests != 100 || checks[1].Requests != 150 {
		t.Errorf("checks at %d, %d: want 100, 150", checks[0].Requests, checks[1].Requests)
	}
	for _, w := range last.Widths {
		if w.Width > rule.CI || !(w.Low <= w.Estimate && w.Estimate <= w.High) {
			t.Errorf("%s: %+v not within ±%g around its estimate", w.Metric, w, rule.CI)
		}
	}
	if prev := checks[len(checks)-2]; prev.Widest() <= rule.CI {
		t.Errorf("check before the stop had widest %g, want > %g", prev.Widest(), rule.CI)
	}
	t.Logf("stopped at %d records after %d checks, widest %.3f (before: %.3f)", last.Requests, len(checks), last.Widest(), checks[len(checks)-2].Widest())
}

// TestSteadyCheckerDropsWarmup: 200 slow requests then steady ones; the
// check's warm-up covers them and the p50 is the steady one's.
func TestSteadyCheckerDropsWarmup(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var rows [][]float64
	for n := range 1000 {
		base := 20.0
		if n < 200 {
			base = 60
		}
		rows = append(rows, []float64{base + rng.NormFloat64(), math.NaN()})
	}
	chk := SteadyRows(SteadyRule{CI: 0.05, Confidence: 0.95, MinRequests: 100}, []*Metric{TTFT, ITL}, rows)
	if chk.Warmup < 200 || chk.Warmup > 210 {
		t.Errorf("warmup = %d, want 200..210", chk.Warmup)
	}
	if p50 := chk.Widths[0].Estimate; math.Abs(p50-20) > 0.5 {
		t.Errorf("ttft.p50 = %g after the cut, want about 20", p50)
	}
	if chk.Met || !math.IsInf(chk.Widths[2].Width, 1) {
		t.Errorf("no ITL values: want itl unbounded and the rule unmet, got %+v", chk)
	}
}

// TestSteadyWidthJSON: an unbounded width is null and reads back as +Inf.
func TestSteadyWidthJSON(t *testing.T) {
	b, err := json.Marshal(SteadyWidth{Metric: "ttft.p99", Estimate: 2, Low: 1, High: math.Inf(1), Width: math.Inf(1)})
	if err != nil || string(b) != `{"metric":"ttft.p99","estimate_ns":2,"low_ns":1,"high_ns":null,"width":null}` {
		t.Fatalf("%s %v", b, err)
	}
	var w SteadyWidth
	if err := json.Unmarshal(b, &w); err != nil || !math.IsInf(w.Width, 1) || w.Low != 1 {
		t.Fatalf("%+v %v", w, err)
	}
}

// TestSteadyRuleValidate names the parameter at fault.
func TestSteadyRuleValidate(t *testing.T) {
	ok := SteadyRule{CI: 0.05, Confidence: 0.95, MinRequests: 100, MaxRequests: 1000}
	for _, c := range []struct {
		edit func(*SteadyRule)
		want string
	}{
		{func(r *SteadyRule) { r.CI = 0 }, "ci: want a relative half-width in (0, 1) such as 0.05, got 0"},
		{func(r *SteadyRule) { r.Confidence = 1 }, "confidence: want a level in (0, 1) such as 0.95, got 1"},
		{func(r *SteadyRule) { r.MinRequests = 5 }, "min_requests: want at least 50, got 5"},
		{func(r *SteadyRule) { r.MaxRequests = 50 }, "max_requests: want at least min_requests (100), got 50"},
	} {
		r := ok
		c.edit(&r)
		if err := r.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Error(err)
	}
}

// TestAccumulatorSkipsWarmup: a warm-up-flagged record is counted as
// such and enters no metric; the summary equals that of the others alone.
func TestAccumulatorSkipsWarmup(t *testing.T) {
	slow, fast := steadyRecord(90e6, 9e6), steadyRecord(10e6, 1e6)
	slow.Warmup = true
	with, without := NewAccumulator(Options{}), NewAccumulator(Options{})
	with.Add(slow)
	with.Add(fast)
	without.Add(fast)
	a, b := with.Summary(), without.Summary()
	if a.Warmup != 1 || a.Completed != 1 || a.TimeToFirstToken.Max != 10e6 {
		t.Fatalf("got warmup %d, completed %d, ttft max %g; want 1, 1, 1e7", a.Warmup, a.Completed, a.TimeToFirstToken.Max)
	}
	a.Warmup = 0
	if ja, jb := mustJSON(t, a), mustJSON(t, b); ja != jb {
		t.Errorf("summary with a warm-up row differs:\n%s\n%s", ja, jb)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSteadyNonStreaming: a whole-response point is judged on request
// latency alone (its TTFT is its latency and it has no ITL).
func TestSteadyNonStreaming(t *testing.T) {
	c := NewSteadyChecker(SteadyRule{CI: 0.5, Confidence: 0.95, MinRequests: 50}, SteadyMetrics(false))
	var chk *SteadyCheck
	for i := range 50 { // 100..104 ms, repeated: every batch of 5 has the same mean, so MSER cuts nothing
		sent, lat := int64(1e9), int64(100e6+float64(i%5)*1e6)
		chk = c.Add(&Record{Sent: sent, Chunks: []int64{sent + lat}, Done: sent + lat, OutputTokens: 4})
	}
	if chk == nil || len(chk.Widths) != 2 || chk.Widths[0].Metric != "request_latency.p50" || chk.Widths[1].Metric != "request_latency.p99" {
		t.Fatalf("check %+v, want request_latency.p50 and .p99", chk)
	}
	if got := chk.Widths[0].Estimate; got != 102e6 || chk.Warmup != 0 {
		t.Errorf("request_latency.p50 = %g after a cut of %d, want 102e6 and none", got, chk.Warmup)
	}
}
