package metrics

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// batchServer is a synthetic server with a batch capacity: throughput
// grows with load up to capacity and stays flat beyond; TTFT stays flat.
func batchServer(capacity float64) func(load float64) LoadPoint {
	return func(load float64) LoadPoint {
		return sweepPoint(load, 100*math.Min(load, capacity), 100)
	}
}

// runSaturator drives s the way the runtime does, measuring each load on
// server, and returns the loads run, the final load and the reason.
func runSaturator(t *testing.T, s Saturator, server func(float64) LoadPoint) (loads []float64, final float64, reason string) {
	t.Helper()
	var measured []LoadPoint
	for range 100 {
		load, done, why := s.Next(measured)
		if done {
			return loads, load, why
		}
		if n := len(loads); n > 0 && load <= loads[n-1] {
			t.Fatalf("load %v after %v: the sequence must increase", load, loads[n-1])
		}
		loads = append(loads, load)
		measured = append(measured, server(load))
	}
	t.Fatalf("no end after 100 steps: %v", loads)
	return nil, 0, ""
}

func TestSaturator(t *testing.T) {
	never := func(load float64) LoadPoint { return sweepPoint(load, 100*load, 100) }
	conc := func(start, factor, limit float64) Saturator {
		return Saturator{Start: start, Factor: factor, Limit: limit, Integer: true,
			Rule: DefaultSaturationRule(), Param: "concurrency"}
	}
	cases := []struct {
		name       string
		s          Saturator
		server     func(float64) LoadPoint
		wantLoads  []float64
		wantFinal  float64
		wantReason string
	}{
		{
			// Stops one step past the batch capacity, reporting it.
			name: "stops when throughput flattens", s: conc(1, 2, 1024), server: batchServer(16),
			wantLoads: []float64{1, 2, 4, 8, 16, 32}, wantFinal: 16,
			wantReason: "output token throughput did not grow (< 5%) from concurrency 16 to 32",
		},
		{
			name: "capacity between steps", s: conc(1, 2, 1024), server: batchServer(24),
			wantLoads: []float64{1, 2, 4, 8, 16, 32, 64}, wantFinal: 32,
			wantReason: "output token throughput did not grow (< 5%) from concurrency 32 to 64",
		},
		{
			name: "capped at the limit", s: conc(1, 2, 100), server: never,
			wantLoads: []float64{1, 2, 4, 8, 16, 32, 64, 100}, wantFinal: 100,
			wantReason: "reached the limit (concurrency 100) without saturating",
		},
		{
			name: "limit on a step", s: conc(1, 2, 64), server: never,
			wantLoads: []float64{1, 2, 4, 8, 16, 32, 64}, wantFinal: 64,
			wantReason: "reached the limit (concurrency 64) without saturating",
		},
		{
			// The rule is checked before the limit: saturation at the
			// limit is reported as saturation.
			name: "saturates at the limit", s: conc(1, 2, 32), server: batchServer(16),
			wantLoads: []float64{1, 2, 4, 8, 16, 32}, wantFinal: 16,
			wantReason: "from concurrency 16 to 32",
		},
		{
			name: "saturates at the first step", s: conc(4, 2, 1024), server: batchServer(2),
			wantLoads: []float64{4, 8}, wantFinal: 4, wantReason: "from concurrency 4 to 8",
		},
		{
			// Whole loads round up: 1.5, 4.5, 7.5 become 2, 5, 8.
			name: "integer rounding up", s: conc(1, 1.5, 10), server: never,
			wantLoads: []float64{1, 2, 3, 5, 8, 10}, wantFinal: 10, wantReason: "reached the limit (concurrency 10)",
		},
		{
			// 10 × 1.1 is 11.000000000000002 in floating point: 11, not 12.
			name: "floating-point error is not rounded up", s: conc(10, 1.1, 14), server: never,
			wantLoads: []float64{10, 11, 13, 14}, wantFinal: 14, wantReason: "reached the limit",
		},
		{
			// A factor too small to reach the next whole number still
			// advances by one.
			name: "small factor advances by one", s: conc(1, 1.01, 4), server: never,
			wantLoads: []float64{1, 2, 3, 4}, wantFinal: 4, wantReason: "reached the limit",
		},
		{
			name: "fractional rate",
			s:    Saturator{Start: 0.5, Factor: 2, Limit: 5, Rule: DefaultSaturationRule(), Param: "rate"}, server: never,
			wantLoads: []float64{0.5, 1, 2, 4, 5}, wantFinal: 5, wantReason: "reached the limit (rate 5)",
		},
		{
			name: "fractional rate saturating",
			s:    Saturator{Start: 0.25, Factor: 1.5, Limit: 100, Rule: DefaultSaturationRule(), Param: "rate"}, server: batchServer(1),
			wantLoads: []float64{0.25, 0.375, 0.5625, 0.84375, 1.265625, 1.8984375}, wantFinal: 1.265625,
			wantReason: "did not grow (< 5%) from rate 1.265625 to 1.8984375",
		},
		{
			name: "TTFT rule stops it", s: conc(1, 2, 1024),
			server: func(load float64) LoadPoint {
				return sweepPoint(load, 100*load, 100*math.Max(1, load/4))
			},
			wantLoads: []float64{1, 2, 4, 8, 16}, wantFinal: 8,
			wantReason: "p99 TTFT 400 ms at concurrency 16 is 4.0× (> 2×) the lowest load's 100 ms at concurrency 1",
		},
		{
			name: "start above the limit", s: conc(8, 2, 4), server: never,
			wantFinal: 0, wantReason: "start 8 is above the limit 4",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loads, final, reason := runSaturator(t, c.s, c.server)
			if !slices.Equal(loads, c.wantLoads) {
				t.Errorf("loads %v, want %v", loads, c.wantLoads)
			}
			if final != c.wantFinal {
				t.Errorf("final load %v, want %v", final, c.wantFinal)
			}
			if !strings.Contains(reason, c.wantReason) {
				t.Errorf("reason %q does not contain %q", reason, c.wantReason)
			}
		})
	}
}

// A sweep resumed from its checkpoint asks with the points it has and
// gets the same next load as the uninterrupted run did.
func TestSaturatorResumes(t *testing.T) {
	s := Saturator{Start: 1, Factor: 2, Limit: 1024, Integer: true, Rule: DefaultSaturationRule()}
	server := batchServer(64)
	measured := []LoadPoint{server(1), server(2), server(4)}
	for range 2 {
		if load, done, _ := s.Next(slices.Clone(measured)); load != 8 || done {
			t.Fatalf("Next = %v, %v; want 8, false", load, done)
		}
	}
}

func TestSaturatorValidate(t *testing.T) {
	ok := Saturator{Start: 1, Factor: 2, Limit: 1024, Integer: true, Rule: DefaultSaturationRule()}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*Saturator){
		"zero start":        func(s *Saturator) { s.Start = 0 },
		"fractional start":  func(s *Saturator) { s.Start = 1.5 },
		"factor of one":     func(s *Saturator) { s.Factor = 1 },
		"limit below start": func(s *Saturator) { s.Start, s.Limit = 8, 4 },
		"bad rule":          func(s *Saturator) { s.Rule.Growth = 2 },
	}
	for name, mutate := range bad {
		s := ok
		mutate(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// gatedPoint is a point that meets "ttft.p99 < 500ms" exactly when pass.
func gatedPoint(load float64, pass bool) LoadPoint {
	if pass {
		return sweepPoint(load, 100, 100)
	}
	return sweepPoint(load, 100, 900)
}

// runSearch drives s the way the runtime does against a server meeting
// the gate exactly at loads up to threshold, and returns the points tried.
func runSearch(t *testing.T, s Searcher, threshold float64) []LoadPoint {
	t.Helper()
	var tried []LoadPoint
	for range 100 {
		load, done := s.Next(tried)
		if done {
			if best, _ := s.Result(tried); load != best {
				t.Errorf("Next's final load %v differs from Result's %v", load, best)
			}
			return tried
		}
		if slices.ContainsFunc(tried, func(p LoadPoint) bool { return p.Load == load }) {
			t.Fatalf("load %v probed twice", load)
		}
		if load < s.Lo || load > s.Hi || s.Integer && load != math.Trunc(load) {
			t.Fatalf("probe %v outside [%v, %v] or not whole", load, s.Lo, s.Hi)
		}
		tried = append(tried, gatedPoint(load, load <= threshold))
	}
	t.Fatalf("no end after 100 probes")
	return nil
}

func TestSearcher(t *testing.T) {
	gate := mustParseGate(t, "ttft.p99 < 500ms")
	cases := []struct {
		name      string
		s         Searcher
		threshold float64
		want      float64
		wantOK    bool
		maxProbes int
	}{
		{"integer", Searcher{gate, 1, 1024, 0.05, true}, 37, 37, true, 12},
		{"integer to adjacent", Searcher{gate, 1, 1024, 0.001, true}, 37, 37, true, 14},
		{"integer coarse", Searcher{gate, 1, 1024, 0.25, true}, 37, 0, true, 10},
		{"integer at lo", Searcher{gate, 1, 64, 0.05, true}, 1, 1, true, 9},
		{"integer just below hi", Searcher{gate, 1, 64, 0.001, true}, 63, 63, true, 10},
		{"integer within precision", Searcher{gate, 1, 64, 0.05, true}, 63, 62, true, 9},
		{"integer hi passes", Searcher{gate, 1, 64, 0.05, true}, 100, 64, true, 2},
		{"integer lo fails", Searcher{gate, 4, 64, 0.05, true}, 3, 0, false, 1},
		{"integer bounds rounded inward", Searcher{gate, 1.5, 40.7, 0.05, true}, 37, 37, true, 10},
		{"fractional", Searcher{gate, 0.5, 20, 0.02, false}, 3.7, 0, true, 12},
		{"fractional fine", Searcher{gate, 0.1, 100, 0.001, false}, 3.7, 0, true, 16},
		{"fractional hi passes", Searcher{gate, 0.5, 20, 0.02, false}, 25, 20, true, 2},
		{"fractional lo fails", Searcher{gate, 0.5, 20, 0.02, false}, 0.4, 0, false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.s.Validate(); err != nil {
				t.Fatal(err)
			}
			tried := runSearch(t, c.s, c.threshold)
			if len(tried) > c.maxProbes {
				t.Errorf("%d probes, want at most %d", len(tried), c.maxProbes)
			}
			best, ok := c.s.Result(tried)
			if ok != c.wantOK || c.want != 0 && best != c.want {
				t.Fatalf("Result = %v, %v; want %v, %v (tried %v)", best, ok, c.want, c.wantOK, loadsOf(tried))
			}
			checkAgainstTried(t, c.s, tried, best, ok, c.threshold)
		})
	}
}

// checkAgainstTried checks a search result against the points it ran: the
// best is the largest passing load tried, every tried load above it failed,
// and the lowest failure is within precision of it unless the best is Hi.
func checkAgainstTried(t *testing.T, s Searcher, tried []LoadPoint, best float64, ok bool, threshold float64) {
	t.Helper()
	lowestFail := math.Inf(1)
	maxPass := math.Inf(-1)
	for _, p := range tried {
		if p.Load <= threshold {
			maxPass = math.Max(maxPass, p.Load)
		} else {
			lowestFail = math.Min(lowestFail, p.Load)
		}
	}
	if !ok {
		if !math.IsInf(maxPass, -1) {
			t.Errorf("no result, but %v passed", maxPass)
		}
		return
	}
	if best != maxPass || best > threshold {
		t.Errorf("best %v, largest passing load tried %v, threshold %v", best, maxPass, threshold)
	}
	if best == s.Hi || best == wholeDown(s.Hi) && s.Integer {
		return
	}
	width := (lowestFail - best) / best
	if !(width <= s.Precision || s.Integer && lowestFail-best == 1) {
		t.Errorf("bracket [%v, %v] wider than %v (tried %v)", best, lowestFail, s.Precision, loadsOf(tried))
	}
	if width > s.Precision && !s.Integer {
		t.Errorf("fractional search stopped at width %v", width)
	}
}

func loadsOf(points []LoadPoint) []float64 {
	loads := make([]float64, len(points))
	for i, p := range points {
		loads[i] = p.Load
	}
	return loads
}

func TestSearcherProbeOrder(t *testing.T) {
	s := Searcher{mustParseGate(t, "ttft.p99 < 500ms"), 1, 1024, 0.05, true}
	var got []float64
	tried := runSearch(t, s, 37)
	for _, p := range tried {
		got = append(got, p.Load)
	}
	// lo, hi, then geometric bisection of the bracket.
	want := []float64{1, 1024, 32, 181, 76, 49, 40, 36, 38, 37}
	if !slices.Equal(got, want) {
		t.Errorf("probes %v, want %v", got, want)
	}
}

// A pass above a known failure is noise on the monotone assumption: it
// neither becomes the result nor narrows the bracket.
func TestSearcherNoise(t *testing.T) {
	s := Searcher{mustParseGate(t, "ttft.p99 < 500ms"), 1, 1024, 0.05, true}
	tried := []LoadPoint{gatedPoint(1, true), gatedPoint(1024, false), gatedPoint(32, false), gatedPoint(181, true)}
	if best, ok := s.Result(tried); best != 1 || !ok {
		t.Errorf("Result = %v, %v; want 1, true", best, ok)
	}
	if load, done := s.Next(tried); load != 6 || done {
		t.Errorf("Next = %v, %v; want 6 (between 1 and 32), false", load, done)
	}
	// A load tried twice passes only if it passed both times.
	tried = append(tried, gatedPoint(6, true), gatedPoint(6, false))
	if best, _ := s.Result(tried); best != 1 {
		t.Errorf("Result = %v after a pass and a failure at 6, want 1", best)
	}
	// Points outside [lo, hi] (from another sweep, say) are ignored.
	if best, _ := s.Result(append(tried, gatedPoint(0.5, true), gatedPoint(2000, false))); best != 1 {
		t.Errorf("Result = %v with points outside the bounds, want 1", best)
	}
	if _, ok := s.Result(nil); ok {
		t.Error("Result of nothing tried is ok")
	}
}

func TestSearcherValidate(t *testing.T) {
	gate := mustParseGate(t, "ttft.p99 < 500ms")
	bad := map[string]Searcher{
		"gate with @":       {mustParseGate(t, "ttft.p99 < 500ms @ concurrency=16"), 1, 64, 0.05, true},
		"baseline gate":     {mustParseGate(t, "ttft.p99 <= baseline * 1.1"), 1, 64, 0.05, true},
		"zero lo":           {gate, 0, 64, 0.05, false},
		"hi below lo":       {gate, 8, 4, 0.05, false},
		"no whole load":     {gate, 1.2, 1.8, 0.05, true},
		"zero precision":    {gate, 1, 64, 0, false},
		"precision of 100%": {gate, 1, 64, 1, false},
	}
	for name, s := range bad {
		if err := s.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestWholeRounding(t *testing.T) {
	cases := []struct{ x, up, down float64 }{
		{10 * 1.1, 11, 11}, {4.5, 5, 4}, {3, 3, 3}, {2.9999999999, 3, 3}, {7.2, 8, 7},
	}
	for _, c := range cases {
		if got := wholeUp(c.x); got != c.up {
			t.Errorf("wholeUp(%v) = %v, want %v", c.x, got, c.up)
		}
		if got := wholeDown(c.x); got != c.down {
			t.Errorf("wholeDown(%v) = %v, want %v", c.x, got, c.down)
		}
	}
}
