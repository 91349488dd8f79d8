// Package comparison writes what `llmbench compare` concluded: the
// console table, compare.json, the Markdown summary for a pull request,
// JUnit XML, and a history's series for the trend plots. Build compares
// every metric of every pair of points with metrics' statistics, judging
// a point's metrics as one family (Holm); its Reporters (Table, JSON,
// Markdown, JUnit, Trend) render the resulting metrics.Comparison values.
package comparison

import (
	"slices"

	"github.com/llmbench/llmbench/metrics"
)

// Report is the comparison of a candidate result set with a baseline.
type Report struct {
	Baseline, Candidate string
	// Tolerance is the default --max-regression, a fraction.
	Tolerance  float64
	Confidence float64
	Points     []Point
	// Warnings are differences that --force or the rules let through
	// (another token counting mode of an imported run...).
	Warnings []string
	// Unmatched names points present on one side only.
	Unmatched []string
	// History is the change points over the history this comparison is
	// the newest of (FindChangePoints); nil for a comparison alone.
	History *ChangePoints
}

// Point is one matched point's comparisons, family-adjusted (Holm).
type Point struct {
	Experiment, Label string
	Metrics           []metrics.Comparison
}

// Count is how many gated comparisons reached verdict v: an
// informational metric fails nothing, so it is not counted.
func (r *Report) Count(v metrics.Verdict) int { return len(r.with(v)) }

// Regressions are the gated comparisons judged regressions, in point
// order.
func (r *Report) Regressions() []Named { return r.with(metrics.VerdictRegression) }

// with are the gated comparisons that reached verdict v, in point order.
func (r *Report) with(v metrics.Verdict) []Named {
	var out []Named
	for _, c := range r.all() {
		if c.Verdict == v && !c.Informational {
			out = append(out, c)
		}
	}
	return out
}

// apart splits comparisons into the gated ones and the informational
// ones, each in its order, for writers that show the second apart.
func apart[C any](cs []C, informational func(C) bool) (gated, info []C) {
	for _, c := range cs {
		if informational(c) {
			info = append(info, c)
		} else {
			gated = append(gated, c)
		}
	}
	return gated, info
}

// Named is a comparison with the point it belongs to.
type Named struct {
	Point string
	metrics.Comparison
}

func (p Point) name() string {
	if p.Experiment == "" {
		return p.Label
	}
	return p.Experiment + "/" + p.Label
}

// byVerdict orders comparisons regressions first, then inconclusive ones,
// so a short summary shows what needs attention.
func byVerdict(cs []Named) []Named {
	rank := map[metrics.Verdict]int{metrics.VerdictRegression: 0, metrics.VerdictInconclusive: 1,
		metrics.VerdictImprovement: 2, metrics.VerdictWithinTolerance: 3, metrics.VerdictNoChange: 4}
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b Named) int { return rank[a.Verdict] - rank[b.Verdict] })
	return out
}

func (r *Report) all() []Named {
	var out []Named
	for _, p := range r.Points {
		for _, c := range p.Metrics {
			out = append(out, Named{Point: p.name(), Comparison: c})
		}
	}
	return out
}
