package genaiperf

import (
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// csvTelemetryStats are the statistics of the CSV's GPU table, in
// GenAI-Perf's column order.
var csvTelemetryStats = []string{"avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25", "p10", "p5", "p1"}

// telemetryStats is GenAI-Perf's "telemetry_stats": per DCGM field, in
// its field order, {"unit", "<gpu key>": {statistics}}, a constant field
// (power limit, total memory) with avg only; nil when no GPU was seen, so
// the key is left out as GenAI-Perf leaves it out.
func telemetryStats(t *metrics.TelemetrySummary) *object {
	if t == nil || len(t.GPUs) == 0 {
		return nil
	}
	out := &object{}
	for _, f := range metrics.TelemetryFields {
		var field *object
		for i := range t.GPUs {
			d := t.GPUs[i].Field(f.Name)
			if d == nil {
				continue
			}
			if field == nil {
				field = (&object{}).set("unit", f.Unit)
			}
			field.set(t.GPUs[i].GenAIPerfKey, gpuStats(d, f.Constant))
		}
		if field != nil {
			out.set(f.Name, field)
		}
	}
	return out
}

func gpuStats(d *metrics.Distribution, constant bool) *object {
	o := &object{}
	if constant {
		return o.set("avg", d.Avg)
	}
	for _, name := range jsonStats {
		o.set(name, stat(d, name))
	}
	return o
}

// writeTelemetryCSV appends GenAI-Perf's GPU tables: a blank row, the
// statistics of every non-constant field per GPU, a blank row, and the
// constants as Metric,GPU,Value. Nothing without GPUs.
func writeTelemetryCSV(cw *pyCSV, t *metrics.TelemetrySummary) {
	if t == nil || len(t.GPUs) == 0 {
		return
	}
	cw.row()
	cw.row(append([]string{"Metric", "GPU"}, csvTelemetryStats...)...)
	eachGPUField(t, false, func(label, gpu string, d *metrics.Distribution) {
		cw.row(append([]string{label, gpu}, statCells(d, csvTelemetryStats)...)...)
	})
	cw.row()
	cw.row("Metric", "GPU", "Value")
	eachGPUField(t, true, func(label, gpu string, d *metrics.Distribution) {
		cw.row(label, gpu, pyComma2(d.Avg))
	})
}

// eachGPUField calls fn for every (field, GPU) measured, fields in
// GenAI-Perf's order, constant ones or the others.
func eachGPUField(t *metrics.TelemetrySummary, constant bool, fn func(label, gpu string, d *metrics.Distribution)) {
	for _, f := range metrics.TelemetryFields {
		if f.Constant != constant {
			continue
		}
		for i := range t.GPUs {
			if d := t.GPUs[i].Field(f.Name); d != nil {
				fn(telemetryLabel(f), t.GPUs[i].GenAIPerfKey, d)
			}
		}
	}
}

// telemetryLabel is GenAI-Perf's CSV row title of a field: each word
// capitalised, "gpu" upper-cased, the unit in parentheses ("GPU Power
// Usage (W)", "Energy Consumption (MJ)").
func telemetryLabel(f metrics.TelemetryField) string {
	words := strings.Split(f.Name, "_")
	for i, w := range words {
		if w == "gpu" {
			words[i] = "GPU"
		} else if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ") + " (" + f.Unit + ")"
}
