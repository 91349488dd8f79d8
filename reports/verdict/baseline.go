package verdict

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// GateComparison is a baseline gate's judgement as gates.json carries it:
// the relative change candidate/baseline − 1 with its one-sided bounds,
// how it was obtained, the verdict, and what the judge says beside it
// (Judgement), as compare.json words them.
type GateComparison struct {
	Change     Bound    `json:"change"`
	Interval   Interval `json:"interval"`
	Confidence float64  `json:"confidence"`
	Method     string   `json:"method"`
	// Verdict is regression (the gate fails), improvement, no significant
	// change, or inconclusive (it passes with a warning unless
	// --fail-on-inconclusive).
	Verdict     string  `json:"verdict"`
	PRegression float64 `json:"p_regression"`
	Judgement
}

// withBaseline adds to v what the baseline says about g: the baseline's
// value beside every gate, and for a baseline gate its comparison (or
// why it was skipped).
func withBaseline(v *Verdict, g runtime.GateResult) {
	if g.Baseline != nil {
		b := g.Gate.InReportUnits(*g.Baseline)
		v.Baseline = &b
	}
	switch {
	case g.Skipped != "":
		v.Skipped, v.Message = g.Skipped, "skipped: "+g.Skipped
		return
	case g.Err != nil:
		return
	case g.Comparison == nil:
		if v.Baseline != nil {
			v.Message += fmt.Sprintf("; baseline %s", reportValue(g.Gate, *g.Baseline))
		}
		return
	}
	c := g.Comparison
	ri := c.Interval
	gc := &GateComparison{Change: Bound(ri.Ratio - 1), Interval: NewInterval(ri.Low, ri.High), Confidence: ri.Confidence,
		Method: string(ri.Method), Verdict: string(c.Verdict), PRegression: c.PRegression, Judgement: JudgementOf(*c)}
	v.Comparison = gc
	v.Message = fmt.Sprintf("%s = %s vs baseline %s: %+.1f%% %s at %g%%, %s (limit %s)%s",
		g.Gate.Metric.Name+stat(g.Gate), reportValue(g.Gate, c.Candidate), reportValue(g.Gate, c.Baseline),
		100*(ri.Ratio-1), gc.Interval.Explained(gc.Unbounded), 100*ri.Confidence, c.Verdict, limitText(g.Gate),
		Then(gc.Detects(), gc.Adjustment))
	if c.Verdict == metrics.VerdictInconclusive && g.Passed {
		v.Warning = "inconclusive: the runs cannot tell whether the limit holds; passed (--fail-on-inconclusive fails it)"
	}
	if g.Warning != "" {
		v.Warning = strings.TrimPrefix(v.Warning+"; "+g.Warning, "; ")
	}
}

func stat(g metrics.Gate) string {
	if g.Stat == "" {
		return ""
	}
	return "." + g.Stat
}

// limitText is the gate's limit as written canonically: "<= baseline * 1.1".
func limitText(g metrics.Gate) string {
	if g.Value == 1 {
		return g.Op + " baseline"
	}
	return fmt.Sprintf("%s baseline * %g", g.Op, g.Value)
}

// reportValue is a native value of g's metric in report units with the
// unit: "123.40 ms", "0.50%", "812.00 tokens/s".
func reportValue(g metrics.Gate, native float64) string {
	return FormatValue(g.Metric.Display(native), g.Metric.Unit)
}

// FormatValue writes a value in report units with its unit, as every
// verdict and comparison shows one: two decimals, "%" without a space.
func FormatValue(v float64, unit string) string {
	switch unit {
	case "":
		return fmt.Sprintf("%.2f", v)
	case "%":
		return fmt.Sprintf("%.2f%%", v)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}
