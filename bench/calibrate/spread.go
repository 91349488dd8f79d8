package main

import (
	"fmt"
	"github.com/llmbench/llmbench/runtime/calibrate"

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
	runs := append(st.Pool("history", c.HistoryRuns), st.Pool("same", c.SameRuns)...)
	if len(runs) < 2 {
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nRun-to-run spread of the unchanged server (%d runs):\n\n", len(runs))
	b.WriteString("| Metric | Median | SD of ln across runs | Robust SD of ln (1.4826 × MAD) | Smallest / median | Largest / median |\n|---|---|---|---|---|---|\n")
	line := func(name string, unit func(float64) string, vals []float64) {
		s := calibrate.LogSpread(vals)
		fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.2f | %.2f |\n", name, unit(s.Median), s.SD, s.Robust, s.Min/s.Median, s.Max/s.Median)
	}
	if c.isSim() {
		var drift []float64
		for _, r := range runs {
			drift = append(drift, r.Drift)
		}
		line("drift factor (asked: σ = "+calibrate.Pct(c.Sim.Drift)+")", func(v float64) string { return fmt.Sprintf("%.3f", v) }, drift)
	}
	for i, g := range family {
		var vals []float64
		for _, r := range runs {
			v, err := g.MeasureRun(data(r))
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
