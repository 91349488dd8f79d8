package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrNotMeasured is wrapped by Gate.Measure when the run has no value for
// the gate's metric (no request had two content chunks for ttst, no
// goodput SLOs for request_goodput, no telemetry for gpu_power, no
// requests at all for error_rate), so callers can tell "could not be
// evaluated" from "failed".
var ErrNotMeasured = errors.New("not measured in this run")

// Applies reports whether the gate is to be evaluated at a sweep point
// with these load parameters: every @ condition must name a parameter the
// point has, with the same value. A gate without conditions applies
// everywhere.
func (g Gate) Applies(params map[string]float64) bool {
	for _, c := range g.At {
		if v, ok := params[c.Param]; !ok || v != c.Value {
			return false
		}
	}
	return true
}

// Measure returns the gate's metric statistic from a point's Summary, in
// the metric's native unit (ns for times, a ratio for error_rate, per
// second for throughputs), ready for Check. It is an error wrapping
// ErrNotMeasured, never a panic, when the run has no such value.
func (g Gate) Measure(s *Summary) (float64, error) {
	m := g.Metric
	switch {
	case m == nil:
		return math.NaN(), errors.New("a gate without a metric")
	case s == nil:
		return g.notMeasured("")
	case m.distribution != nil:
		d := m.distribution(s)
		if d == nil {
			return g.notMeasured("")
		}
		return g.statistic(d)
	case m.value != nil:
		v, ok := m.value(s)
		if !ok || m.unmeasuredWhenEmpty && s.Completed+s.Failed == 0 {
			return g.notMeasured("")
		}
		return v, nil
	}
	return g.notMeasured("")
}

// statistic picks the gate's statistic from a distribution; an empty Stat
// (a hand-built gate) is the average, as when none is written.
func (g Gate) statistic(d *Distribution) (float64, error) {
	switch g.Stat {
	case "avg", "":
		return d.Avg, nil
	case "min":
		return d.Min, nil
	case "max":
		return d.Max, nil
	case "std":
		return d.Std, nil
	}
	p, ok := percentileOf(g.Stat)
	if !ok || p > 100 {
		return math.NaN(), fmt.Errorf("%s: unknown statistic %q", g.Name(), g.Stat)
	}
	v := d.Percentile(p)
	if math.IsNaN(v) {
		return math.NaN(), fmt.Errorf("%s: this summary kept only the fixed percentiles (p1 p5 p10 p25 p50 p75 p90 p95 p99), not the values %s needs", g.Name(), g.Stat)
	}
	return v, nil
}

// Check reports whether a measured value, in native units, passes the
// gate: compared with Value, or with Value × baseline for a baseline gate
// (baseline being the same statistic measured in the baseline run). A NaN
// on either side fails, whatever the operator.
func (g Gate) Check(measured, baseline float64) bool {
	limit := g.Value
	if g.Baseline {
		limit *= baseline
	}
	if math.IsNaN(measured) || math.IsNaN(limit) {
		return false
	}
	switch g.Op {
	case "<":
		return measured < limit
	case "<=":
		return measured <= limit
	case ">":
		return measured > limit
	case ">=":
		return measured >= limit
	case "==":
		return measured == limit
	case "!=":
		return measured != limit
	}
	return false
}

// Describe renders a measured value against the limit in report units (ms
// for times, % for ratios), for console ✓/✗ lines and JUnit failure
// messages: "ttft.p99 = 612.30 ms, limit < 500 ms".
func (g Gate) Describe(measured float64) string {
	var q quantity = -1
	unit := ""
	if m := g.Metric; m != nil {
		q, unit = m.q, m.Unit
	}
	if g.Currency != "" {
		unit = g.Currency + " " + unit // "USD per Mtok"
	}
	toDisplay, _ := q.displayConversions()
	got := strconv.FormatFloat(toDisplay(measured), 'f', 2, 64)
	limit := "baseline"
	switch {
	case g.Baseline && g.Value != 1:
		limit += " * " + plainNumber(g.Value)
	case !g.Baseline:
		limit = g.displayValue(q)
	}
	if unit != "" {
		got = withUnit(got, unit)
		if !g.Baseline {
			limit = withUnit(limit, unit)
		}
	}
	return fmt.Sprintf("%s = %s, limit %s %s", g.Name(), got, g.Op, limit)
}

// InReportUnits converts a value of g's metric from its native unit to
// what every report prints (ms for times, % for ratios), as Describe
// does.
func (g Gate) InReportUnits(native float64) float64 {
	if g.Metric == nil {
		return native
	}
	return g.Metric.Display(native)
}

// withUnit appends a unit, with a space except for %.
func withUnit(number, unit string) string {
	if unit == "%" {
		return number + unit
	}
	return number + " " + unit
}

// displayValue renders Value in report units, exactly when a short
// decimal does, else to float64's shortest form of the converted value:
// a description is read by people, not parsed.
func (g Gate) displayValue(q quantity) string {
	toDisplay, fromDisplay := q.displayConversions()
	if t, ok := decimalIn(g.Value, toDisplay, fromDisplay); ok {
		return t
	}
	return strconv.FormatFloat(toDisplay(g.Value), 'g', -1, 64)
}

// String renders the gate in canonical form: short metric name, explicit
// statistic, value in report units where exact (ms for times, % for
// ratios), conditions in the order written. ParseGate of it gives back
// the same gate (but for Source), so it is what reports and gates.json
// show as the gate's identity.
func (g Gate) String() string {
	var b strings.Builder
	b.WriteString(g.Name())
	b.WriteString(" " + g.Op + " ")
	switch {
	case g.Baseline && g.Value == 1:
		b.WriteString("baseline")
	case g.Baseline:
		b.WriteString("baseline * " + plainNumber(g.Value))
	default:
		b.WriteString(g.canonicalValue())
	}
	conds := make([]string, 0, len(g.At)+1)
	for _, c := range g.At {
		conds = append(conds, c.Param+"="+plainNumber(c.Value))
	}
	if g.Component != "" {
		conds = append(conds, componentKey+"="+g.Component)
	}
	if g.Replica != nil {
		conds = append(conds, replicaKey+"="+strconv.Itoa(*g.Replica))
	}
	if g.Stage != "" {
		conds = append(conds, stageKey+"="+g.Stage)
	}
	if len(conds) > 0 {
		b.WriteString(" @ " + strings.Join(conds, ", "))
	}
	return b.String()
}

// canonicalValue writes Value with the unit ParseGate reads it back in
// exactly: ms or else ns for times, % or else a bare ratio for ratios, a
// bare number otherwise.
func (g Gate) canonicalValue() string {
	m := g.Metric
	if m == nil {
		return plainNumber(g.Value)
	}
	toDisplay, fromDisplay := m.q.displayConversions()
	t, exact := decimalIn(g.Value, toDisplay, fromDisplay)
	switch {
	case m.q == quantityTime && exact:
		return t + "ms"
	case m.q == quantityTime:
		return plainNumber(g.Value) + "ns"
	case m.q == quantityRatio && exact:
		return t + "%"
	case g.Currency != "":
		return plainNumber(g.Value) + " " + g.Currency
	}
	return plainNumber(g.Value)
}

// Name is METRIC, METRIC.STAT or METRIC.per_gpu.STAT: the gate's
// subject as messages and reports show it, and as Gate.Sample and
// `llmbench compare --metrics` read it.
func (g Gate) Name() string {
	m := g.Metric.String()
	if g.PerGPU {
		m += "." + perGPUKey
	}
	if g.Stat == "" {
		return m
	}
	return m + "." + g.Stat
}
