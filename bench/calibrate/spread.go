package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// spreadTable says how much the unchanged server's runs differ from each
// other, metric by metric: the run-to-run noise every verdict is judged
// against. On the simulator the drift factor's own row is the variation
// asked for; a metric spread wider than it is the machine's doing (load,
// scheduling stalls), and its largest run over the median shows how
// heavy the tail of that noise is.
func spreadTable(st *store, c config) (string, error) {
	family, err := gateFamily(c.Tolerance)
	if err != nil {
		return "", err
	}
	runs := append(st.pool("history", c.HistoryRuns), st.pool("same", c.SameRuns)...)
	if len(runs) < 2 {
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nRun-to-run spread of the unchanged server (%d runs):\n\n", len(runs))
	b.WriteString("| Metric | Median | SD of ln across runs | Robust SD of ln (1.4826 × MAD) | Smallest / median | Largest / median |\n|---|---|---|---|---|---|\n")
	line := func(name string, unit func(float64) string, vals []float64) {
		s := logSpread(vals)
		fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.2f | %.2f |\n", name, unit(s.median), s.sd, s.robust, s.min/s.median, s.max/s.median)
	}
	if c.isSim() {
		var drift []float64
		for _, r := range runs {
			drift = append(drift, r.Drift)
		}
		line("drift factor (asked: σ = "+pct(c.Sim.Drift)+")", func(v float64) string { return fmt.Sprintf("%.3f", v) }, drift)
	}
	for i, g := range family {
		var vals []float64
		for _, r := range runs {
			v, err := g.MeasureRun(r.data())
			if err != nil {
				return "", err
			}
			vals = append(vals, v)
		}
		line(gateNames[i], func(v float64) string { return inUnits(gateNames[i], v) }, vals)
	}
	return b.String(), nil
}

// inUnits writes a metric's native value as reports do.
func inUnits(metric string, native float64) string {
	v, unit := metrics.InReportUnits(metric, native)
	return fmt.Sprintf("%.4g %s", v, unit)
}

// spreadOf is what spreadTable shows of one metric.
type spreadOf struct {
	median, min, max, sd, robust float64
}

// logSpread is the spread of ln v: its standard deviation and its robust
// counterpart 1.4826 × the median absolute deviation (the SD without the
// outliers), with the median, smallest and largest values.
func logSpread(v []float64) spreadOf {
	s := slices.Clone(v)
	slices.Sort(s)
	logs := make([]float64, len(s))
	for i, x := range s {
		logs[i] = math.Log(x)
	}
	m := median(logs)
	var sum, sq float64
	dev := make([]float64, len(logs))
	for i, l := range logs {
		sum += l
		dev[i] = math.Abs(l - m)
	}
	mean := sum / float64(len(logs))
	for _, l := range logs {
		sq += (l - mean) * (l - mean)
	}
	return spreadOf{median: math.Exp(m), min: s[0], max: s[len(s)-1],
		sd: math.Sqrt(sq / float64(len(logs)-1)), robust: 1.4826 * median(dev)}
}
