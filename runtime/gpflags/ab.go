package gpflags

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// AB are `llmbench ab`'s own flags beside profile's: the baseline side's
// server and how the point is cut into rounds (plan.AB). The -u servers
// are the candidate, side B; --baseline-url the baseline, side A, with
// every other profile flag (model, endpoint type, headers...) alike.
type AB struct {
	BaselineURL []string `name:"baseline-url" required:"" sep:"none" help:"The baseline server (side A) the -u server (side B, the candidate) is judged against, in -u's forms; repeat for replicas."`
	Rounds      int      `default:"8" help:"Rounds per side (>= 2): each a 1/N share of --request-count or --measurement-interval; round i of A is paired with round i of B."`
	ABMode      string   `name:"ab-mode" default:"abba" help:"abba: the sides' rounds alternate A B B A A B B A (one machine, one server at a time); duet: both sides' rounds at the same time (servers on separate hardware)."`
	ABWarmup    *int     `name:"ab-warmup" help:"Warm-up requests sent to each side before its first round (default: --warmup-request-count)."`
}

// Apply makes exp, profile's experiment of the -u server, an A/B
// experiment against --baseline-url, refusing rounds < 2 and an unknown
// mode by their flags.
func (f *AB) Apply(p *Profile, exp *plan.Experiment) error {
	base := *p
	base.URL = f.BaselineURL
	ep, err := base.Server()
	if err != nil {
		return failure.Inputf("--baseline-url: %w", err)
	}
	ab := plan.AB{Baseline: ep, Rounds: f.Rounds, Mode: f.ABMode, Warmup: f.ABWarmup}
	switch {
	case f.Rounds < 2:
		return failure.Inputf("--rounds: got %d, want 2 or more (each side's rounds are paired with the other's)", f.Rounds)
	case f.ABMode != plan.ABModeABBA && f.ABMode != plan.ABModeDuet:
		return failure.Inputf("--ab-mode: got %q, want %s or %s", f.ABMode, plan.ABModeABBA, plan.ABModeDuet)
	case exp.Requests > 0 && exp.Requests < f.Rounds:
		return failure.Inputf("--rounds: got %d rounds for %d requests per side, want at least one request per round (raise --request-count)", f.Rounds, exp.Requests)
	case f.ABWarmup != nil && *f.ABWarmup < 0:
		return failure.Inputf("--ab-warmup: got %d, want 0 or more", *f.ABWarmup)
	}
	exp.AB = &ab
	return nil
}

// ABGates are the baseline gates an ab point is judged on: each metric
// named (compare's DefaultMetrics when none) at its tolerance, "ttft.p99
// <= baseline * 1.10".
func ABGates(names []string, tolerance func(name string) float64) ([]metrics.Gate, error) {
	gates := make([]metrics.Gate, 0, len(names))
	for _, name := range names {
		g, err := metrics.BaselineGate(name, tolerance(name))
		if err != nil {
			return nil, failure.Inputf("--metrics %s: %w", name, err)
		}
		gates = append(gates, g)
	}
	return gates, nil
}
