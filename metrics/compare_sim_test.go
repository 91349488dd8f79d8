package metrics

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// simulatedRun is one run of a simulated server: per-request TTFT, ITL
// and latency in send order and per-second output token rates, each a
// lognormal with AR(1) log noise (φ = 0.8 per request, 0.5 per window):
// the dependence between neighbouring requests that batching causes.
func simulatedRun(rng *rand.Rand, n int) map[string][]float64 {
	return map[string][]float64{
		"ttft":    ar1Lognormal(rng, n, math.Log(80e6), 0.4, 0.8),
		"itl":     ar1Lognormal(rng, n, math.Log(20e6), 0.2, 0.8),
		"latency": ar1Lognormal(rng, n, math.Log(2e9), 0.3, 0.8),
		"windows": ar1Lognormal(rng, 60, math.Log(1000), 0.1, 0.5),
	}
}

// simulatedMetrics are the five metrics judged per run, with the series
// each is computed on.
var simulatedMetrics = []struct{ name, series string }{
	{"ttft.p50", "ttft"}, {"ttft.p99", "ttft"}, {"itl.p50", "itl"},
	{"request_latency.p99", "latency"}, {"output_token_throughput", "windows"},
}

// falseAlarm compares two runs of the same simulated server on the five
// metrics and reports whether any is called a regression, per metric
// alone and after Holm.
func falseAlarm(base, cand map[string][]float64, tol float64, seed uint64) (alone, holm bool, err error) {
	opt := CompareOptions{Tolerance: tol, Confidence: 0.95,
		Bootstrap: BootstrapOptions{Resamples: 500, Seed: seed}}
	cs := make([]Comparison, len(simulatedMetrics))
	for i, m := range simulatedMetrics {
		if cs[i], err = Compare(m.name, Sample{Values: base[m.series]}, Sample{Values: cand[m.series]}, opt); err != nil {
			return false, false, err
		}
		alone = alone || cs[i].Verdict == VerdictRegression
	}
	for _, f := range JudgeFamily(cs, opt.Confidence) {
		holm = holm || f.Verdict == VerdictRegression
	}
	return alone, holm, nil
}

// TestFalsePositiveRate runs 200 identical pairs (two independent runs of
// the same simulated server, n = 500 requests each, B = 500) and counts
// the runs with any of five metrics called a regression at 95%, at
// tolerance 0 (pure significance) and 10%. The nominal family-wise rate
// is at most 2.5% (a regression is one tail of a 95% interval); the test
// fails above a generous 10%. docs/compare.md quotes its log:
//
//	go test -run TestFalsePositiveRate -v ./metrics/
func TestFalsePositiveRate(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation of 200 run pairs; skipped with -short")
	}
	const pairs = 200
	rng := rand.New(rand.NewPCG(2026, 11))
	runs := make([][2]map[string][]float64, pairs)
	for i := range runs {
		runs[i] = [2]map[string][]float64{simulatedRun(rng, 500), simulatedRun(rng, 500)}
	}
	for _, tol := range []float64{0, 0.10} {
		alone, holm := countFalseAlarms(t, runs, tol)
		lo, hi := wilsonInterval(holm, pairs)
		t.Logf("tolerance %.0f%%: false-alarm runs %d/%d = %.1f%% with Holm (95%% Wilson interval %.1f%%–%.1f%%), %d/%d = %.1f%% without",
			tol*100, holm, pairs, 100*float64(holm)/pairs, 100*lo, 100*hi, alone, pairs, 100*float64(alone)/pairs)
		if float64(holm)/pairs > 0.10 {
			t.Errorf("tolerance %v: false-alarm rate %d/%d above 10%%", tol, holm, pairs)
		}
	}
}

// countFalseAlarms judges every pair on two goroutines (the machine
// running the tests has two cores); pair i's bootstrap seed is i + 1, so
// the counts do not depend on scheduling.
func countFalseAlarms(t *testing.T, runs [][2]map[string][]float64, tol float64) (alone, holm int) {
	a, h := make([]bool, len(runs)), make([]bool, len(runs))
	var wg sync.WaitGroup
	for worker := range 2 {
		wg.Go(func() {
			for i := worker; i < len(runs); i += 2 {
				var err error
				if a[i], h[i], err = falseAlarm(runs[i][0], runs[i][1], tol, uint64(i+1)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for i := range runs {
		alone, holm = alone+b2i(a[i]), holm+b2i(h[i])
	}
	return alone, holm
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wilsonInterval is the 95% Wilson score interval of k successes in n.
func wilsonInterval(k, n int) (lo, hi float64) {
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	centre := (p + z*z/(2*nf)) / (1 + z*z/nf)
	half := z / (1 + z*z/nf) * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return math.Max(0, centre-half), math.Min(1, centre+half)
}
