package engine

import (
	"math"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/plan"
)

// TestStagedPoissonCountsMatchTheProfile: a Poisson stages() schedule's
// arrivals per stage average the profile's ∫rate — [(3s, 0→4), (4s, 4),
// (3s, 4→0)]: 6, 16, 6 — over 2000 fixed seeds, spread over the seed space (so the test is exact;
// each mean's standard error is √(λ/2000) ≤ 0.09, and the tolerance 0.3
// is over 3 of them), and their variance is the mean's, as a Poisson
// process's counts are.
func TestStagedPoissonCountsMatchTheProfile(t *testing.T) {
	l := plan.Load{Rate: 4, Arrival: plan.Poisson, Burstiness: 1, Stages: &plan.Stages{List: []plan.Stage{
		{Duration: 3 * time.Second, Target: 4}, {Duration: 4 * time.Second, Target: 4}, {Duration: 3 * time.Second, Target: 0}}}}
	const seeds = 2000
	var sum, sumSq [3]float64
	for seed := range uint64(seeds) {
		s := newSchedule(l, seed*0x9e3779b97f4a7c15+1)
		var n [3]float64
		for {
			at := s.next()
			if at >= s.end()-plan.StageSlack {
				break
			}
			n[l.StageAt(at)]++
		}
		for i := range n {
			sum[i] += n[i]
			sumSq[i] += n[i] * n[i]
		}
	}
	for i, want := range []float64{6, 16, 6} {
		mean := sum[i] / seeds
		variance := sumSq[i]/seeds - mean*mean
		if math.Abs(mean-want) > 0.3 || math.Abs(variance/want-1) > 0.15 {
			t.Errorf("stage %d: mean %.3f, variance %.3f over %d seeds; want both ≈ %g", i, mean, variance, seeds, want)
		}
		t.Logf("stage %d: mean %.3f, variance %.3f (∫rate %g)", i, mean, variance, want)
	}
}
