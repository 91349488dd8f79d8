package builtins

import (
	"strings"
	"testing"
)

// gateScenario is an experiment with the given gates and extra
// experiment() arguments.
func gateScenario(gates, extra string) string {
	return `
def main(ctx):
    return experiment(name="g", endpoint=endpoint(url="sim://", model="m"), dataset=synthetic(input_tokens=fixed(10)),
        traffic=concurrency(1), requests=5, gates=[` + gates + `]` + extra + `)
`
}

// TestBareRatioGateIsRefusedInTheLiteral: "error_rate < 1" passed a run
// with 45% errors (1 is 100%); a scenario that writes it is refused at
// the 1 inside the string, with the hint.
func TestBareRatioGateIsRefusedInTheLiteral(t *testing.T) {
	le := loadErr(t, writeScenario(t, "s.star", gateScenario(`"error_rate < 1"`, "")), Options{})
	// The gate's text starts at column 53 of line 4; the 1 is its 14th byte.
	if le.Line != 4 || le.Col != 53+13 || !strings.Contains(le.Msg, "did you mean 1%?") {
		t.Errorf("got %d:%d %q, want 4:66 and did you mean 1%%?", le.Line, le.Col, le.Msg)
	}
}

// TestCostGateTakesTheExperimentsCurrency: a cost gate is counted in
// cost_per_hour's currency (EUR unless currency= says otherwise), and a
// gate written in another currency is refused.
func TestCostGateTakesTheExperimentsCurrency(t *testing.T) {
	for _, c := range []struct{ extra, want string }{
		{`, cost_per_hour=3.5, currency="USD"`, "USD"},
		{`, cost_per_hour=3.5`, "EUR"},
	} {
		scen, err := Load(writeScenario(t, "s.star", gateScenario(`"cost_per_mtok <= 2"`, c.extra)), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := scen.Experiments[0].Gates[0]
		if g.Currency != c.want || !strings.Contains(g.Describe(1), c.want+" per Mtok") {
			t.Errorf("%s: currency %q, %s; want %s", c.extra, g.Currency, g.Describe(1), c.want)
		}
	}
	le := loadErr(t, writeScenario(t, "s.star", gateScenario(`"cost_per_mtok <= 2 EUR"`, `, cost_per_hour=3.5, currency="USD"`)), Options{})
	if !strings.Contains(le.Msg, "is in EUR, but the deployment is priced in USD") {
		t.Errorf("got %q", le.Msg)
	}
}
