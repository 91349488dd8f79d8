package main

import (
	"fmt"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/gpflags"
)

// genaiPerfDefault is what profile and analyze scrape without
// --server-metrics-url: GenAI-Perf's DCGM exporter URL when it answers,
// else nothing, with one warning (not one per point). The warning names
// the URL, not "no GPU telemetry": the endpoint's own /metrics is still
// tried, and may export a GPU (the simulator's, labelled simulated).
func genaiPerfDefault(f *gpflags.Telemetry, e *env) []string {
	if f.Off() {
		return nil // nothing is scraped, so there is nothing to warn of
	}
	if len(f.ServerMetricsURL) > 0 {
		return f.ServerMetricsURL
	}
	if err := runtime.ProbeTelemetry(e.ctx, gpflags.GenAIPerfMetricsURL); err != nil {
		fmt.Fprintf(e.stderr, "llmbench: warning: GenAI-Perf's default DCGM exporter %s does not answer (%v); give --server-metrics-url to scrape one elsewhere\n",
			gpflags.GenAIPerfMetricsURL, err)
		return nil
	}
	return []string{gpflags.GenAIPerfMetricsURL}
}
