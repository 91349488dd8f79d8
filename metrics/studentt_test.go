package metrics

import (
	"math"
	"testing"
)

// Known values (scipy.stats.t): the two-sided p of t = 4.5 with 4
// degrees of freedom, of t = 30 with 4, and the 97.5% quantile with 4.
func TestStudentTKnownValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"twoSidedPT(4.5, 4)", twoSidedPT(4.5, 4), 0.010822550462608247},
		{"twoSidedPT(-4.5, 4)", twoSidedPT(-4.5, 4), 0.010822550462608247},
		{"twoSidedPT(30, 4)", twoSidedPT(30, 4), 7.352856097661218e-06},
		{"twoSidedPT(0, 4)", twoSidedPT(0, 4), 1},
		{"twoSidedPT(+Inf, 4)", twoSidedPT(math.Inf(1), 4), 0},
		{"studentTQuantile(0.975, 4)", studentTQuantile(0.975, 4), 2.7764451051977987},
	} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1e-6, c.want) {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	if !math.IsNaN(twoSidedPT(math.NaN(), 4)) || !math.IsNaN(twoSidedPT(1, 0)) {
		t.Error("twoSidedPT of a NaN t or df 0 is not NaN")
	}
}
