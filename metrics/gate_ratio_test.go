package metrics

import (
	"strings"
	"testing"
)

// TestRatioGatesAreNeverVacuous: a ratio is written as a percentage or a
// fraction below 1, never a bare 1 ("error_rate < 1" was "under 100%"
// and passed a run with 45% errors), and a ratio gate that cannot fail,
// cannot pass, or fails only when every request fails is refused, with
// the column of its value and a hint.
func TestRatioGatesAreNeverVacuous(t *testing.T) {
	refused := []struct{ gate, want string }{
		{"error_rate < 1", `col 14: a bare 1 is the ratio 1, that is 100%: did you mean 1%?`},
		{"error_rate <= 1", `col 15: a bare 1 is the ratio 1, that is 100%: did you mean 1%?`},
		{"error_rate < 1.0", `col 14: a bare 1.0 is the ratio 1, that is 100%: did you mean 1%?`},
		{"kv_cache_usage.max < 1", `col 22: a bare 1 is the ratio 1`},
		{"gpu_utilization > 1", `col 19: a bare 1 is the ratio 1`},
		{"cache_hit_share >= 1", `col 20: a bare 1 is the ratio 1`},
		{"error_rate < 100%", `col 14: error_rate < 100% fails only when every request fails: did you mean 1%?`},
		{"error_rate != 100%", `col 15: error_rate != 100% fails only when every request fails`},
		{"error_rate <= 100%", `col 15: error_rate <= 100% can never fail: error_rate is always between 0% and 100%`},
		{"gpu_utilization.p50 >= 0%", `col 24: gpu_utilization.p50 >= 0% can never fail`},
		{"cache_hit_share >= 0", `col 20: cache_hit_share >= 0 can never fail`},
		{"error_rate < 0%", `col 14: error_rate < 0% can never pass`},
		{"kv_cache_usage > 100%", `col 18: kv_cache_usage.avg > 100% can never pass`},
	}
	for _, c := range refused {
		_, err := ParseGate(c.gate)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseGate(%q) = %v, want an error containing %q", c.gate, err, c.want)
		}
	}
	// Fractions below 1, percentages, and limits at 100% that a real run
	// can break.
	kept := []struct {
		gate  string
		value float64
	}{
		{"error_rate < 1%", 0.01}, {"error_rate < 0.01", 0.01}, {"error_rate <= 0.999", 0.999},
		{"error_rate == 0", 0}, {"error_rate <= 0%", 0}, {"error_rate > 0", 0}, {"error_rate == 100%", 1},
		{"kv_cache_usage.max < 100%", 1}, {"gpu_utilization.per_gpu >= 100%", 1}, {"cache_hit_share > 0.5", 0.5},
	}
	for _, c := range kept {
		g, err := ParseGate(c.gate)
		if err != nil || g.Value != c.value {
			t.Errorf("ParseGate(%q) = %v, %v; want a limit of %v", c.gate, g.Value, err, c.value)
		}
	}
}

// TestRatioGateAtFortyFivePercentErrors is the audit's run: 45 of 100
// requests failed. The gate it wrote, "error_rate < 1", passed it; the
// gate it meant, "error_rate < 1%", fails it.
func TestRatioGateAtFortyFivePercentErrors(t *testing.T) {
	s := &Summary{Completed: 55, Failed: 45, ErrorRate: 45.0 / 100}
	if _, err := ParseGate("error_rate < 1"); err == nil {
		t.Fatal(`"error_rate < 1" was accepted`)
	}
	g := mustParseGate(t, "error_rate < 1%")
	v, err := g.Measure(s)
	if err != nil || v != 0.45 || g.Check(v, 0) {
		t.Errorf("error_rate < 1%% at 45 failed of 100: measured %v (%v), passed %v; want 0.45, failed", v, err, g.Check(v, 0))
	}
}

// TestCostGateKeepsItsCurrency: a cost gate takes the currency of
// cost_per_hour, written or given by the experiment, and every rendering
// names it; another currency is refused rather than converted.
func TestCostGateKeepsItsCurrency(t *testing.T) {
	g := mustParseGate(t, "cost_per_mtok <= 2")
	if err := g.PriceIn("USD"); err != nil {
		t.Fatal(err)
	}
	// 3.5 USD an hour at 192.79 output tokens/s: 3.5 / (192.79 × 3600) × 1e6 = 5.0429 USD per Mtok.
	cost, _ := CostPerMillionTokens(3.5, 192.79)
	if got, want := g.Describe(cost), "cost_per_mtok = 5.04 USD per Mtok, limit <= 2 USD per Mtok"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if got := g.String(); got != "cost_per_mtok <= 2 USD" {
		t.Errorf("String = %q, want cost_per_mtok <= 2 USD", got)
	}
	written := mustParseGate(t, "cost_per_mtok <= 2 EUR")
	if err := written.PriceIn("USD"); err == nil || !strings.Contains(err.Error(), "is in EUR, but the deployment is priced in USD") {
		t.Errorf("a EUR gate on a USD deployment: %v", err)
	}
	if err := written.PriceIn("EUR"); err != nil || written.Currency != "EUR" {
		t.Errorf("a EUR gate on a EUR deployment: %v, %q", err, written.Currency)
	}
	other := mustParseGate(t, "ttft < 5ms")
	if err := other.PriceIn("USD"); err != nil || other.Currency != "" {
		t.Errorf("a ttft gate took a currency: %v, %q", err, other.Currency)
	}
}

// TestStoredGatesAreReadAsJudged: a stored run written before ratio
// gates were checked is read back with its gate as it was judged, not
// refused (llmbench report of an old run must still work).
func TestStoredGatesAreReadAsJudged(t *testing.T) {
	g, err := ParseStoredGate("error_rate < 1")
	if err != nil || g.Value != 1 || g.Op != "<" {
		t.Errorf("ParseStoredGate(error_rate < 1) = %+v, %v; want the limit 1 it was judged with", g, err)
	}
	if _, err := ParseStoredGate("error_rate < 1 ms"); err == nil {
		t.Error("ParseStoredGate accepted a malformed gate")
	}
}
