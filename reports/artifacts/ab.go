package artifacts

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/ab"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// ABPairs are the A/B points as compare.json judges them: side A's
// rounds against side B's, paired, on the experiment's baseline gates
// (DefaultMetrics without any).
func ABPairs(exp *plan.Experiment, res *ab.Result) []comparison.Pair {
	var gates []metrics.Gate
	for _, g := range exp.Gates {
		if g.Baseline {
			gates = append(gates, g)
		}
	}
	a, b := res.Sides[engine.SideA].Points, res.Sides[engine.SideB].Points
	pairs := make([]comparison.Pair, 0, len(b))
	for i := range min(len(a), len(b)) {
		ra, rb := a[i].Repeats, b[i].Repeats
		pairs = append(pairs, comparison.Pair{Experiment: exp.Name, Label: b[i].Params.Label(), Gates: gates,
			Baseline: runtime.RoundRuns(ra, "", exp.CostPerHour), Candidate: runtime.RoundRuns(rb, "", exp.CostPerHour),
			Components: func(name string) ([]metrics.RunData, []metrics.RunData, error) {
				return runtime.RoundRuns(ra, name, exp.CostPerHour), runtime.RoundRuns(rb, name, exp.CostPerHour), nil
			}})
	}
	return pairs
}

// WithABComparison adds the A/B experiments' points, judged paired, to
// the run's comparison with its baselines (compare.json); nil when there
// is neither.
func WithABComparison(base *comparison.Report, pairs []comparison.Pair) (*comparison.Report, error) {
	if len(pairs) == 0 {
		return base, nil
	}
	opt := comparison.DefaultOptions()
	opt.Judge.Paired = true
	r, err := comparison.Build("a (ab=)", "b (endpoint=)", pairs, opt)
	if err != nil {
		return base, failure.Runf("comparing the A/B sides: %w", err)
	}
	if base == nil {
		return r, nil
	}
	base.Points = append(base.Points, r.Points...)
	base.Warnings = append(base.Warnings, r.Warnings...)
	return base, nil
}

// WriteRoundPlots draws, per point and baseline gate (or headline
// metric without any), the metric in each round on both sides into
// OUT/<experiment>/<point>/plots/; a plot that cannot be written is a
// warning on stderr, the run's results being written already.
func WriteRoundPlots(stderr io.Writer, out string, exp *plan.Experiment, res *ab.Result) {
	a, b := res.Sides[engine.SideA].Points, res.Sides[engine.SideB].Points
	for i := range min(len(a), len(b)) {
		var rounds []plots.Rounds
		for _, g := range roundGates(exp, &b[i]) {
			r := plots.Rounds{Experiment: exp.Name, Point: b[i].Params.Label(), Metric: g.gate.Name(), Unit: g.gate.Metric.Unit, Verdict: g.verdict}
			r.A, r.B = roundValues(g.gate, a[i].Repeats, exp), roundValues(g.gate, b[i].Repeats, exp)
			rounds = append(rounds, r)
		}
		dir := filepath.Join(out, exp.Name, b[i].Params.Label(), "plots")
		if _, err := plots.WriteRoundsPlots(dir, rounds); err != nil {
			fmt.Fprintf(stderr, "llmbench: warning: A/B round plots of %s: %v\n", b[i].Params.Label(), err)
		}
	}
}

type roundGate struct {
	gate    metrics.Gate
	verdict string
}

// roundGates are what a point's round plots show: its judged baseline
// gates with their verdicts, or ttft.p50 and itl.p50 without any.
func roundGates(exp *plan.Experiment, p *runtime.PointResult) []roundGate {
	var out []roundGate
	for _, r := range p.Gates {
		if r.Gate.Baseline && r.Comparison != nil {
			c := r.Comparison
			out = append(out, roundGate{r.Gate, fmt.Sprintf("%s: %+.1f%% [≥ %+.1f%%, ≤ %+.1f%%] by %s",
				c.Verdict, 100*(c.Interval.Ratio-1), 100*(c.Interval.Low-1), 100*(c.Interval.High-1), c.Interval.Method)})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, name := range []string{"ttft.p50", "itl.p50"} {
		if g, err := metrics.BaselineGate(name, 0.1); err == nil {
			out = append(out, roundGate{gate: g})
		}
	}
	return out
}

// roundValues is g's metric in each round, in report units.
func roundValues(g metrics.Gate, rounds []*runtime.Outcome, exp *plan.Experiment) []float64 {
	var vs []float64
	for _, run := range runtime.RoundRuns(rounds, g.Component, exp.CostPerHour) {
		v, err := g.MeasureRun(run)
		if err != nil {
			continue
		}
		shown, _ := metrics.InReportUnits(g.Name(), v)
		vs = append(vs, shown)
	}
	return vs
}
