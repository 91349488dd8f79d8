package artifacts

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/telemetry"
	"github.com/llmbench/llmbench/runtime"
)

// writePoint writes a measured point's GenAI-Perf summary files (JSON and
// CSV) and its telemetry.parquet into dir and prints its console block
// (pointConsole). What needs the records
// themselves — records.parquet, profile_export.json, inputs.json and the
// point plots — was written while the point ran: see pointSink.
func writePoint(stdout io.Writer, dir string, r *genaiperf.Run, out *runtime.Outcome) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r.Partial = out.Interrupted
	if err := describeTelemetry(r, out); err != nil {
		return err
	}
	if out.Telemetry != nil {
		account, err := out.Telemetry.Account()
		if err != nil {
			return err
		}
		if err := WriteFile(filepath.Join(dir, records.TelemetryFile), func(w io.Writer) error {
			return records.WriteTelemetry(w, out.Telemetry.Samples, account)
		}); err != nil {
			return err
		}
	}
	jsonName, csvName := genaiperf.ExportFileNames(r.ProfileExportFile)
	if err := WriteFile(filepath.Join(dir, jsonName), func(w io.Writer) error { return genaiperf.WriteJSON(w, r, &out.Summary) }); err != nil {
		return err
	}
	if err := WriteFile(filepath.Join(dir, csvName), func(w io.Writer) error { return genaiperf.WriteCSV(w, r, &out.Summary) }); err != nil {
		return err
	}
	return pointConsole(r, out, dir)(stdout)
}

// pointConsole is a measured point's console block: GenAI-Perf's table,
// then per component, per replica and per turn, the telemetry, whether
// the client kept up and the steady state, where its prompts came from
// and its files went, and whether it is partial.
func pointConsole(r *genaiperf.Run, out *runtime.Outcome, dir string) reports.Reporter {
	return func(w io.Writer) error {
		if err := genaiperf.WriteConsole(w, r, &out.Summary); err != nil {
			return err
		}
		writeComponents(w, out.Components)
		writeReplicas(w, out.Replicas)
		writeStages(w, out.Stages)
		writeSessions(w, out.Summary.Sessions)
		writeTelemetryLines(w, out)
		writeClientLine(w, out.Summary.Client)
		writeSteadyLine(w, out.Steady)
		fmt.Fprintf(w, "Prompts: %s; ISL and OSL counted by %s\n", promptSource(r), r.TokenCounting)
		fmt.Fprintf(w, "Artifacts: %s\n", dir)
		var err error
		switch {
		case out.Aborted != nil:
			_, err = fmt.Fprintf(w, "PARTIAL: stopped by the error budget (%d of %d requests failed); these numbers cover only what was measured.\n", out.Aborted.Failed, out.Aborted.Finished)
		case out.Interrupted:
			_, err = fmt.Fprintln(w, "PARTIAL: interrupted before the point's stop condition; these numbers cover only what was measured.")
		}
		return err
	}
}

// describeTelemetry gives the GenAI-Perf files the point's telemetry:
// telemetry_stats and the GPU tables, and llmbench's own block.
func describeTelemetry(r *genaiperf.Run, out *runtime.Outcome) error {
	if out.Telemetry == nil {
		return nil
	}
	r.Telemetry = &out.Telemetry.Summary
	block, err := json.Marshal(telemetry.BlockOf(out.Telemetry, &out.Summary))
	r.TelemetryBlock = block
	return err
}

// writeClientLine says whether the client kept up: a CLIENT-LIMITED
// warning with its reasons, else its CPU share when it could be told.
func writeClientLine(w io.Writer, v *metrics.ClientVerdict) {
	switch {
	case v == nil:
	case v.Limited:
		fmt.Fprintf(w, "CLIENT-LIMITED: %s; these numbers measure the client, not the server (--strict makes this exit 3)\n", strings.Join(v.Reasons, "; "))
	case v.CapBound:
		fmt.Fprintf(w, "Client: kept its load; %s\n", strings.Join(v.Reasons, "; "))
	case v.CPUShare != nil:
		fmt.Fprintf(w, "Client: %.0f%% of %d cores, kept its load\n", 100**v.CPUShare, v.Cores)
	}
}

// writeSteadyLine says what an auto point's steady-state rule did; a
// point that hit its cap is a warning: its percentiles are not known to
// the asked precision.
func writeSteadyLine(w io.Writer, s *runtime.SteadyOutcome) {
	if s == nil {
		return
	}
	if s.Converged {
		fmt.Fprintf(w, "Steady state: %s\n", s.Summary())
		return
	}
	advice := "raise the cap or widen ci"
	if s.Rule.Stability != nil {
		advice = "lengthen --measurement-interval or raise --stability-percentage (perf_analyzer would have stopped with an error)"
	}
	fmt.Fprintf(w, "WARNING: steady state %s; %s\n", s.Summary(), advice)
}

// writeTelemetryLines prints the point's telemetry under its table.
func writeTelemetryLines(w io.Writer, out *runtime.Outcome) {
	telemetry.Console(out.Telemetry, &out.Summary)(w)
}

// promptSource says where the prompts came from, since ISL means
// different things for token-exact and word-based prompts.
func promptSource(r *genaiperf.Run) string {
	switch {
	case r.InputFile != "":
		return "from " + r.InputFile
	case r.Tokenizer != "":
		return "synthetic, token-exact under " + r.Tokenizer
	}
	return "synthetic, built-in English words (give --tokenizer for token-exact prompts)"
}

func firstModel(r *genaiperf.Run) string {
	if len(r.Models) == 0 {
		return ""
	}
	return r.Models[0]
}

// writeComponents prints headline metrics per dataset component when a
// point's requests came from a mix, so one component's slow tail cannot
// hide inside the blend. Each component is summarized from its own records
// with the same definitions as the whole.
func writeComponents(w io.Writer, parts []runtime.ComponentSummary) {
	if len(parts) < 2 {
		return
	}
	fmt.Fprintf(w, "Per component: %-14s %8s %7s %10s %10s %10s %10s %8s\n",
		"component", "requests", "errors", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "OSL avg")
	for _, c := range parts {
		s := &c.Summary
		fmt.Fprintf(w, "               %-14s %8d %7d %10s %10s %10s %10s %8s\n", c.Name, s.Completed, s.Failed,
			msText(s.TimeToFirstToken, 50), msText(s.TimeToFirstToken, 99),
			msText(s.InterTokenLatency, 50), msText(s.InterTokenLatency, 99), avgText(s.OutputSequenceLength))
	}
}

// writeReplicas prints headline metrics per replica when the endpoint
// spread its requests over several, so one slow replica shows instead of
// hiding in the blend.
func writeReplicas(w io.Writer, reps []runtime.ReplicaSummary) {
	if len(reps) < 2 {
		return
	}
	fmt.Fprintf(w, "Per replica:   %-3s %-28s %8s %7s %10s %10s %10s %10s %12s\n",
		"#", "url", "requests", "errors", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "output tok/s")
	for _, r := range reps {
		s := &r.Summary
		fmt.Fprintf(w, "               %-3d %-28s %8d %7d %10s %10s %10s %10s %12.1f\n", r.Index, r.URL, s.Completed, s.Failed,
			msText(s.TimeToFirstToken, 50), msText(s.TimeToFirstToken, 99),
			msText(s.InterTokenLatency, 50), msText(s.InterTokenLatency, 99), s.OutputTokenThroughput)
	}
}

func msText(d *metrics.Distribution, p float64) string {
	if d == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f ms", d.Percentile(p)/1e6)
}

func avgText(d *metrics.Distribution) string {
	if d == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f", d.Avg)
}
