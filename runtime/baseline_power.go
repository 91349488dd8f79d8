package runtime

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// WeakGate is a baseline gate that could not fail at its own tolerance
// with the planned sample: its minimum detectable change, estimated from
// the baseline before sending, is above the tolerance (SPEC §13, "Power
// before sending").
type WeakGate struct {
	Experiment string
	Gate       metrics.Gate
	// Point is where the change is hardest to detect.
	Point plan.Params
	// MDC is the smallest change (a fraction) the judge could call real
	// there; +Inf when none could be.
	MDC       float64
	Tolerance float64
	// BaselineRuns is how many runs of the point the baseline holds.
	BaselineRuns int
}

func (w WeakGate) Error() string {
	return fmt.Sprintf("experiment %q: gate %q is too weak for its tolerance: %s", w.Experiment, w.Gate.Source, w.Advice())
}

// Advice says what the gate can detect and what would make it
// conclusive: against runs that vary, more runs; against one run, more
// of everything, or a statistic less far out in the tail.
func (w WeakGate) Advice() string {
	what := "cannot call any change real at " + w.Point.Label()
	if !math.IsInf(w.MDC, 1) {
		what = fmt.Sprintf("can only detect changes above %.0f%% at %s, and its tolerance is %.0f%%", 100*w.MDC, w.Point.Label(), 100*w.Tolerance)
	}
	help := "use repeats = 3 on both sides, a baseline folder of several runs, or more requests"
	if w.BaselineRuns >= 2 {
		help = fmt.Sprintf("its %d baseline runs vary too much from one to the next: use repeats = 3 (the candidate's runs count too), a longer baseline history, or a wider tolerance", w.BaselineRuns)
	} else if p, ok := strings.CutPrefix(w.Gate.Stat, "p"); ok && atLeast(p, 95) {
		help += ", or a statistic less far in the tail (p90 instead of " + w.Gate.Stat + ")"
	}
	return fmt.Sprintf("%s with this baseline %s; %s; --allow-weak-gates runs it anyway", w.Gate.Name(), what, help)
}

// WeakGates are e's baseline gates that could not fail at their
// tolerance against the baseline b, each at its weakest point: a gate
// whose minimum detectable change exceeds a positive tolerance, or that
// can detect nothing. Gates the baseline cannot judge before the run
// (a point it lacks, one run against repeats) are left to the run.
func WeakGates(e *plan.Experiment, b *Baseline) ([]WeakGate, error) {
	if b == nil {
		return nil, nil
	}
	points, err := e.Points()
	if err != nil {
		return nil, nil // chosen while running: judged then
	}
	var weak []WeakGate
	for _, g := range e.Gates {
		if !g.Baseline {
			continue
		}
		w, err := weakest(e, b, g, points)
		if err != nil {
			return nil, err
		}
		if w != nil {
			weak = append(weak, *w)
		}
	}
	return weak, nil
}

// weakest is g at its least detectable point, when that is too weak.
func weakest(e *plan.Experiment, b *Baseline, g metrics.Gate, points []plan.PointSpec) (*WeakGate, error) {
	tol := g.Tolerance()
	var worst *WeakGate
	for _, p := range points {
		if !g.Applies(p.Params) {
			continue
		}
		runs, err := b.Runs(p.Params, g.Component)
		if errors.Is(err, ErrNoBaselinePoint) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("baseline %s: point %s: %w", b.Path, p.Params.Label(), err)
		}
		mdc, err := g.PlannedMDC(runs, e.Repeats, b.judgeOptions())
		if err != nil || math.IsNaN(mdc) {
			continue // the run will say what is missing
		}
		if worst == nil || mdc > worst.MDC {
			worst = &WeakGate{Experiment: e.Name, Gate: g, Point: p.Params, MDC: mdc, Tolerance: tol, BaselineRuns: len(runs)}
		}
	}
	if worst == nil || !(math.IsInf(worst.MDC, 1) || (tol > 0 && worst.MDC > tol)) {
		return nil, nil
	}
	return worst, nil
}

// atLeast reports whether the number s is at least v.
func atLeast(s string, v float64) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f >= v
}
