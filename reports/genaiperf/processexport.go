package genaiperf

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// ExportRun is one run of a folder GenAI-Perf's process-export-files
// aggregates: its perf_analyzer export and its profile_export_genai_perf.json.
type ExportRun struct {
	Export, GenAIPerf string
}

// Aggregate is what process-export-files takes from the runs besides their
// requests: GenAI-Perf sums the runs' own throughputs (they ran at the same
// time on several machines, so the whole served their sum) instead of
// recomputing them from the merged requests, and averages or takes the
// maximum of their GPU telemetry.
type Aggregate struct {
	Runs []ExportRun
	// RequestThroughput and OutputTokenThroughput are the sums of the
	// runs' "avg" (process_export_files.py, MergedProfileParser).
	RequestThroughput, OutputTokenThroughput float64
	// Telemetry is the runs' telemetry_stats aggregated: per field and GPU
	// the mean of the runs' averages for power, utilisation and energy, the
	// maximum for every other field (TelemetryStatsAggregator); nil when no
	// run had any.
	Telemetry *object
	// Config is the first run's input_config, whose sections GenAI-Perf
	// configures itself from and echoes (model names, endpoint, load,
	// inputs, tokenizer).
	Config map[string]json.RawMessage
	// InputPath is the folder as given (-d), echoed in process.input_path.
	InputPath string
}

// FindExportRuns reads the folder process-export-files -d names: every
// subfolder holding a profile_export_genai_perf.json (or another
// X_genai_perf.json) and the perf_analyzer export X.json beside it is one
// run, in the order of the subfolders' names. GenAI-Perf takes the first
// *.json without "_genai_perf" in its name, which can be inputs.json; the
// export named by the statistics file is the one that file was computed
// from.
func FindExportRuns(dir string) ([]ExportRun, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var runs []ExportRun
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		stats, _ := filepath.Glob(filepath.Join(dir, e.Name(), "*_genai_perf.json"))
		slices.Sort(stats)
		for _, s := range stats {
			export := strings.TrimSuffix(s, "_genai_perf.json") + ".json"
			if _, err := os.Stat(export); err == nil {
				runs = append(runs, ExportRun{Export: export, GenAIPerf: s})
				break
			}
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no subfolder holds a profile_export.json and its profile_export_genai_perf.json (one subfolder per run)", dir)
	}
	return runs, nil
}

// AggregateRuns reads each run's statistics file for what GenAI-Perf sums
// and aggregates.
func AggregateRuns(runs []ExportRun) (*Aggregate, error) {
	agg := &Aggregate{Runs: runs}
	var telemetry []map[string]map[string]json.RawMessage
	for _, r := range runs {
		var doc struct {
			RequestThroughput     *struct{ Avg float64 }                `json:"request_throughput"`
			OutputTokenThroughput *struct{ Avg float64 }                `json:"output_token_throughput"`
			Telemetry             map[string]map[string]json.RawMessage `json:"telemetry_stats"`
			InputConfig           map[string]json.RawMessage            `json:"input_config"`
		}
		b, err := os.ReadFile(r.GenAIPerf)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", r.GenAIPerf, err)
		}
		if doc.RequestThroughput != nil {
			agg.RequestThroughput += doc.RequestThroughput.Avg
		}
		if doc.OutputTokenThroughput != nil {
			agg.OutputTokenThroughput += doc.OutputTokenThroughput.Avg
		}
		if len(doc.Telemetry) > 0 {
			telemetry = append(telemetry, doc.Telemetry)
		}
		if agg.Config == nil {
			agg.Config = doc.InputConfig
		}
	}
	t, err := aggregateTelemetry(telemetry)
	agg.Telemetry = t
	return agg, err
}

// aggregateTelemetry is TelemetryStatsAggregator: the first run's fields,
// each with its unit and, per GPU any run saw, the mean (power,
// utilisation, energy) or maximum of the runs' averages. GPUs come in
// sorted order: GenAI-Perf's come from a Python set, in no fixed order.
func aggregateTelemetry(runs []map[string]map[string]json.RawMessage) (*object, error) {
	if len(runs) == 0 {
		return nil, nil
	}
	out := &object{}
	for _, f := range telemetryFieldOrder(runs[0]) {
		field := &object{}
		var unit string
		_ = json.Unmarshal(runs[0][f]["unit"], &unit)
		field.set("unit", unit)
		for _, gpu := range gpuKeys(runs, f) {
			var values []float64
			for _, r := range runs {
				var s struct{ Avg *float64 }
				if raw, ok := r[f][gpu]; ok && json.Unmarshal(raw, &s) == nil && s.Avg != nil {
					values = append(values, *s.Avg)
				}
			}
			if len(values) > 0 {
				field.set(gpu, (&object{}).set("avg", aggregateValue(f, values)))
			}
		}
		out.set(f, field)
	}
	return out, nil
}

// aggregateValue is the mean for power, utilisation and energy, the
// maximum otherwise (GenAI-Perf's branch for "gpu_memory_usage", a sum,
// names no field it writes, so it never applies).
func aggregateValue(field string, values []float64) float64 {
	switch field {
	case "gpu_power_usage", "gpu_utilization", "energy_consumption":
		sum := 0.0
		for _, v := range values {
			sum += v
		}
		return sum / float64(len(values))
	}
	return slices.Max(values)
}

// gpuKeys are the GPU keys of field in any run, sorted.
func gpuKeys(runs []map[string]map[string]json.RawMessage, field string) []string {
	var keys []string
	for _, r := range runs {
		for k := range r[field] {
			if k != "unit" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// telemetryFieldOrder lists a telemetry_stats object's fields in
// GenAI-Perf's field order (the order its files hold them), then any it
// does not know by name, sorted.
func telemetryFieldOrder(stats map[string]map[string]json.RawMessage) []string {
	var fields []string
	for _, f := range metrics.TelemetryFields {
		if _, ok := stats[f.Name]; ok {
			fields = append(fields, f.Name)
		}
	}
	var rest []string
	for f := range stats {
		if !slices.Contains(fields, f) {
			rest = append(rest, f)
		}
	}
	slices.Sort(rest)
	return append(fields, rest...)
}

// Apply makes a summary of the merged requests process-export-files'
// statistics: the runs' summed throughputs in place of the merged
// requests' own, the runs' telemetry aggregated (the JSON's
// telemetry_stats, the CSV's GPU tables with the average alone), and the
// first run's configuration echoed, as GenAI-Perf's subcommand "process".
func (a *Aggregate) Apply(r *Run, s *metrics.Summary) {
	s.RequestThroughput, s.OutputTokenThroughput = a.RequestThroughput, a.OutputTokenThroughput
	r.Subcommand, r.aggregate = "process", a
}

// echoedSections are the input_config sections process-export-files
// takes from the first run.
var echoedSections = []string{"model_names", "analyze", "endpoint", "perf_analyzer", "input", "tokenizer"}

// echoedOr is the first run's section when this run is an aggregate that
// has it, built otherwise.
func (r *Run) echoedOr(section string, built any) any {
	if r.aggregate == nil || !slices.Contains(echoedSections, section) {
		return built
	}
	if raw, ok := r.aggregate.Config[section]; ok {
		return raw
	}
	return built
}

// writeAggregatedTelemetryCSV is GenAI-Perf's GPU tables of aggregated
// telemetry: each field's average with its other statistics at 0.00 (an
// aggregate keeps only the average), the constants as Metric,GPU,Value.
func writeAggregatedTelemetryCSV(cw *pyCSV, t *object) {
	row := func(constant bool, fn func(label, gpu string, avg float64)) {
		for _, f := range metrics.TelemetryFields {
			field, ok := t.get(f.Name).(*object)
			if !ok || f.Constant != constant {
				continue
			}
			for i, gpu := range field.keys {
				if stats, ok := field.vals[i].(*object); ok && gpu != "unit" {
					avg, _ := stats.get("avg").(float64)
					fn(telemetryLabel(f), gpu, avg)
				}
			}
		}
	}
	cw.row()
	cw.row(append([]string{"Metric", "GPU"}, csvTelemetryStats...)...)
	row(false, func(label, gpu string, avg float64) {
		cells := []string{label, gpu, pyComma2(avg)}
		for range csvTelemetryStats[1:] {
			cells = append(cells, "0.00")
		}
		cw.row(cells...)
	})
	cw.row()
	cw.row("Metric", "GPU", "Value")
	row(true, func(label, gpu string, avg float64) { cw.row(label, gpu, pyComma2(avg)) })
}
