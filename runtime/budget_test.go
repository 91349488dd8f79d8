package runtime

import (
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// The budget is judged over at least budgetFloor requests (or the
// point's planned count when smaller), then over those finished.
func TestBudgetMeter(t *testing.T) {
	fail := metrics.Record{Err: &metrics.Failure{Class: metrics.ErrHTTP, Status: 500}}
	ok := metrics.Record{}
	for _, c := range []struct {
		name    string
		rate    float64
		planned int
		seq     string // f = failed, o = completed
		stopsAt int    // 1-based record that exceeds it; 0: never
	}{
		{"zero budget stops at the first failure", 0, 100, "ooof", 4},
		{"5% of the floor of 20 is 1 failure", 0.05, 100, "foof", 4},
		{"after the floor the rate is over finished", 0.05, 100, "foooooooooooooooooooooof", 24},
		{"a short point is judged over its planned count", 0.2, 5, "ofof", 4},
		{"within budget", 0.5, 10, "fofofofofo", 0},
		{"duration-bound points use the floor", 0.1, 0, "ffoff", 4},
	} {
		m := newBudgetMeter(&plan.ErrorBudget{MaxRate: c.rate}, c.planned)
		got := 0
		for i, r := range c.seq {
			rec := ok
			if r == 'f' {
				rec = fail
			}
			if m.add(&rec) && got == 0 {
				got = i + 1
			}
		}
		if got != c.stopsAt {
			t.Errorf("%s: stops at record %d, want %d", c.name, got, c.stopsAt)
		}
	}
	var none *budgetMeter
	if none.add(&fail) {
		t.Error("no budget stopped a run")
	}
}

func TestParseErrorBudget(t *testing.T) {
	for in, want := range map[string]float64{"5%": 0.05, " 0.05 ": 0.05, "0": 0, "100%": 1, "12.5 %": 0.125} {
		b, err := plan.ParseErrorBudget(in)
		if err != nil || b.MaxRate < want-1e-12 || b.MaxRate > want+1e-12 {
			t.Errorf("%q: %v, %v; want %g", in, b, err, want)
		}
	}
	for _, in := range []string{"", "abc", "5%%", "101%", "-0.1", "NaN", "Inf", "1.5"} {
		if _, err := plan.ParseErrorBudget(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
