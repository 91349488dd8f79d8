package regression

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime/failure"
)

// LengthTolerance is how far apart two points' mean ISL (or OSL) may be
// and still count as the same dataset: 5% of the larger, and more than
// one token. Sampled lengths move the mean of a short run by a few
// percent (normal(300, 30) over 100 requests: 1% standard error); a
// different dataset moves it by far more.
const LengthTolerance = 0.05

// Difference is one reason two points (or sets) measured different
// things, in words: "model: baseline a, candidate b".
type Difference struct {
	// Point names the baseline points it concerns; "" for the whole set
	// (every matched pair, or no pair at all).
	Point string
	// What is the property: model, endpoint type, streaming, dataset,
	// mean ISL, mean OSL, token counting, load, load points, size.
	What                string
	Baseline, Candidate string
	// Warning marks a difference that does not make the pair
	// incomparable (or that Force let through).
	Warning bool
}

func (d Difference) String() string {
	s := fmt.Sprintf("%s: baseline %s, candidate %s", d.What, d.Baseline, d.Candidate)
	if d.Point != "" {
		s = d.Point + ": " + s
	}
	return s
}

// IncomparableError lists every difference that makes two result sets
// incomparable. It is bad input (exit 2): the user named the wrong run.
type IncomparableError struct {
	Differences []Difference
}

func (e *IncomparableError) Error() string {
	parts := make([]string, len(e.Differences))
	for i, d := range e.Differences {
		parts[i] = d.String()
	}
	return "the result sets are not comparable (--force compares them anyway): " + strings.Join(parts, "; ")
}

// FailureClass makes the error an Input failure.
func (e *IncomparableError) FailureClass() failure.Class { return failure.Input }

// CheckOptions tune Check.
type CheckOptions struct {
	// Force turns every difference into a warning.
	Force bool
}

// Check says whether the matched points measured the same thing. It
// returns every difference; those that are not warnings also come back
// as an *IncomparableError, unless opt.Force. A set that shares no load
// point with the other is a "load points" difference; points missing on
// one side only are the caller's to judge (see Matching).
func Check(m Matching, opt CheckOptions) ([]Difference, error) {
	var diffs []Difference
	if len(m.Pairs) == 0 {
		diffs = append(diffs, Difference{What: "load points", Baseline: labels(m.OnlyBaseline), Candidate: labels(m.OnlyCandidate)})
	}
	var each []Difference
	for _, p := range m.Pairs {
		each = append(each, compareDescriptions(p)...)
	}
	diffs = append(diffs, merged(each, len(m.Pairs))...)
	var fatal []Difference
	for i := range diffs {
		if opt.Force {
			diffs[i].Warning = true
		}
		if !diffs[i].Warning {
			fatal = append(fatal, diffs[i])
		}
	}
	if len(fatal) > 0 {
		return diffs, &IncomparableError{Differences: fatal}
	}
	return diffs, nil
}

// compareDescriptions lists how one pair's descriptions differ. A
// different size (requests per run, repeats) is a warning: both sides
// measured the same thing, one more of it, which changes how sure a
// verdict can be, not what it compares (docs/ci.md promises the warning). An
// imported GenAI-Perf point is judged by model, endpoint type, load and
// mean ISL/OSL only: its streaming is guessed from its chunks and its
// token counting chosen at import, so those differences are warnings,
// and it carries no dataset description.
func compareDescriptions(p Pair) []Difference {
	a, b := p.Baseline.Desc, p.Candidate.Desc
	imported := a.Imported || b.Imported
	var out []Difference
	add := func(what, x, y string, warning bool) {
		if x != y {
			out = append(out, Difference{Point: p.Baseline.Name(), What: what, Baseline: x, Candidate: y, Warning: warning})
		}
	}
	add("model", orNone(strings.Join(a.Models, ", ")), orNone(strings.Join(b.Models, ", ")), false)
	add("endpoint type", orNone(a.API), orNone(b.API), false)
	add("streaming", onOff(a.Stream), onOff(b.Stream), imported)
	add("token counting", orNone(a.TokenCounting), orNone(b.TokenCounting), imported)
	if a.Dataset != "" && b.Dataset != "" {
		add("dataset", a.Dataset, b.Dataset, false)
	}
	if lengthsDiffer(a.MeanISL, b.MeanISL) {
		add("mean ISL", tokens(a.MeanISL), tokens(b.MeanISL), false)
	}
	if lengthsDiffer(a.MeanOSL, b.MeanOSL) {
		add("mean OSL", tokens(a.MeanOSL), tokens(b.MeanOSL), false)
	}
	add("load", a.Load, b.Load, false)
	if a.Size != "" && b.Size != "" {
		add("size", a.Size, b.Size, true)
	}
	return out
}

// merged says a difference shared by several pairs once, naming its
// points, or none when every pair has it (the whole set differs): a
// different model is one line, not one per point.
func merged(diffs []Difference, pairs int) []Difference {
	var out []Difference
	var points [][]string
	for _, d := range diffs {
		i := slices.IndexFunc(out, func(o Difference) bool {
			return o.What == d.What && o.Baseline == d.Baseline && o.Candidate == d.Candidate && o.Warning == d.Warning
		})
		if i < 0 {
			out, points = append(out, d), append(points, nil)
			i = len(out) - 1
		}
		points[i] = append(points[i], d.Point)
	}
	for i := range out {
		out[i].Point = strings.Join(points[i], ", ")
		if len(points[i]) == pairs && pairs > 1 {
			out[i].Point = ""
		}
	}
	return out
}

// lengthsDiffer applies LengthTolerance.
func lengthsDiffer(x, y float64) bool {
	d := math.Abs(x - y)
	return d > 1 && d > LengthTolerance*math.Max(math.Abs(x), math.Abs(y))
}

func tokens(v float64) string { return fmt.Sprintf("%.1f tokens", v) }

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// labels names points for a "load points" difference.
func labels(points []*storedrun.Point) string {
	if len(points) == 0 {
		return "(none)"
	}
	names := make([]string, len(points))
	for i, p := range points {
		names[i] = p.Name()
	}
	return strings.Join(names, ", ")
}
