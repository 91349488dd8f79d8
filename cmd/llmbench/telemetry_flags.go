package main

import (
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/llmbench/llmbench/runtime"
)

// genaiPerfMetricsURL is GenAI-Perf's default telemetry source, the DCGM
// exporter on the benchmarking host.
const genaiPerfMetricsURL = "http://localhost:9400/metrics"

// telemetryFlags choose what each point scrapes besides the endpoint's own
// /metrics (always tried, dropped quietly when it does not answer).
type telemetryFlags struct {
	ServerMetricsURL  []string      `name:"server-metrics-url" aliases:"server-metrics-urls" sep:"none" help:"Prometheus /metrics URL to scrape during every point (a DCGM exporter, an inference server); repeatable, or several after one flag as GenAI-Perf takes them. An unreachable URL is a warning."`
	TelemetryInterval time.Duration `default:"333ms" help:"How often telemetry URLs are scraped (GenAI-Perf and AIPerf: 0.33 s)."`
}

// check refuses a URL that is not http(s) and an interval under 10 ms.
func (f *telemetryFlags) check() error {
	for _, u := range f.ServerMetricsURL {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return invalid("--server-metrics-url: got %q, want an http(s) URL such as %s", runtime.RedactURL(u), genaiPerfMetricsURL)
		}
	}
	if f.TelemetryInterval < 10*time.Millisecond {
		return invalid("--telemetry-interval: got %s, want 10ms or more", f.TelemetryInterval)
	}
	return nil
}

// apply adds the flags' URLs and interval to an experiment.
func (f *telemetryFlags) apply(e *runtime.Experiment) {
	for _, u := range f.ServerMetricsURL {
		if !slices.Contains(e.Telemetry, u) {
			e.Telemetry = append(e.Telemetry, u)
		}
	}
	e.TelemetryInterval = f.TelemetryInterval
}

// genaiPerfDefault is what profile and analyze scrape without
// --server-metrics-url: GenAI-Perf's DCGM exporter URL when it answers,
// else nothing, with one warning (not one per point). The warning names
// the URL, not "no GPU telemetry": the endpoint's own /metrics is still
// tried, and may export a GPU (the simulator's, labelled simulated).
func (f *telemetryFlags) genaiPerfDefault(e *env) []string {
	if len(f.ServerMetricsURL) > 0 {
		return f.ServerMetricsURL
	}
	if err := runtime.ProbeTelemetry(e.ctx, genaiPerfMetricsURL); err != nil {
		fmt.Fprintf(e.stderr, "llmbench: warning: GenAI-Perf's default DCGM exporter %s does not answer (%v); give --server-metrics-url to scrape one elsewhere\n",
			genaiPerfMetricsURL, err)
		return nil
	}
	return []string{genaiPerfMetricsURL}
}
