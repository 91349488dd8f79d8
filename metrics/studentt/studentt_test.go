package studentt

import (
	"math"
	"testing"
)

// Known values (scipy.stats.t): the two-sided p of t = 4.5 with 4
// degrees of freedom, of t = 30 with 4, and the 97.5% quantile with 4.
func TestKnownValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"TwoSidedP(4.5, 4)", TwoSidedP(4.5, 4), 0.010822550462608247},
		{"TwoSidedP(-4.5, 4)", TwoSidedP(-4.5, 4), 0.010822550462608247},
		{"TwoSidedP(30, 4)", TwoSidedP(30, 4), 7.352856097661218e-06},
		{"TwoSidedP(0, 4)", TwoSidedP(0, 4), 1},
		{"TwoSidedP(+Inf, 4)", TwoSidedP(math.Inf(1), 4), 0},
		{"Quantile(0.975, 4)", Quantile(0.975, 4), 2.7764451051977987},
	} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1e-6, c.want) {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	if !math.IsNaN(TwoSidedP(math.NaN(), 4)) || !math.IsNaN(TwoSidedP(1, 0)) {
		t.Error("TwoSidedP of a NaN t or df 0 is not NaN")
	}
}
