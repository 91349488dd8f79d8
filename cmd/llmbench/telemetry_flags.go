package main

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/runtime"
)

// genaiPerfMetricsURL is GenAI-Perf's default telemetry source, the DCGM
// exporter on the benchmarking host.
const genaiPerfMetricsURL = "http://localhost:9400/metrics"

// telemetryFlags choose what each point scrapes besides the endpoint's own
// /metrics (tried unless --no-server-metrics, dropped quietly when it does
// not answer), and whether anything is scraped at all.
type telemetryFlags struct {
	ServerMetricsURL  []string `name:"server-metrics-url" aliases:"server-metrics-urls" sep:"none" help:"Prometheus /metrics URL to scrape during every point (a DCGM exporter, an inference server); repeatable, or several after one flag as GenAI-Perf takes them. An unreachable URL is a warning."`
	TelemetryInterval string   `default:"333ms" help:"How often telemetry URLs are scraped (GenAI-Perf and AIPerf: 0.33 s); 0 or off scrapes nothing."`
	NoServerMetrics   bool     `name:"no-server-metrics" help:"Do not scrape the endpoint's own /metrics (tried by default, as AIPerf does); --server-metrics-url URLs are still scraped."`
}

// check refuses a URL that is not http(s) and an interval that is
// neither off nor 10 ms or more.
func (f *telemetryFlags) check() error {
	for _, u := range f.ServerMetricsURL {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return invalid("--server-metrics-url: got %q, want an http(s) URL such as %s", runtime.RedactURL(u), genaiPerfMetricsURL)
		}
	}
	if _, err := scrapeInterval(f.TelemetryInterval); err != nil {
		return invalid("--telemetry-interval: %v", err)
	}
	return nil
}

// scrapeInterval reads --telemetry-interval: "off" or a zero duration
// turns scraping off (-1), else a duration of at least 10 ms, so a typo
// cannot hammer the server being measured.
func scrapeInterval(s string) (time.Duration, error) {
	if strings.EqualFold(strings.TrimSpace(s), "off") {
		return -1, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case s == "0":
		return -1, nil
	case err != nil:
		return 0, fmt.Errorf("got %q, want a duration such as 333ms, or 0 or off to scrape nothing", s)
	case d == 0:
		return -1, nil
	case d < 10*time.Millisecond:
		return 0, fmt.Errorf("got %s, want 10ms or more, or 0 or off to scrape nothing", d)
	}
	return d, nil
}

// interval is the parsed --telemetry-interval, -1 when off; check has
// refused a bad one.
func (f *telemetryFlags) interval() time.Duration {
	d, _ := scrapeInterval(f.TelemetryInterval)
	return d
}

// off says scraping is turned off.
func (f *telemetryFlags) off() bool { return f.interval() < 0 }

// apply adds the flags' URLs and interval to an experiment.
func (f *telemetryFlags) apply(e *runtime.Experiment) {
	for _, u := range f.ServerMetricsURL {
		if !slices.Contains(e.Telemetry, u) {
			e.Telemetry = append(e.Telemetry, u)
		}
	}
	e.TelemetryInterval = f.interval()
	e.ServerMetricsOff = e.ServerMetricsOff || f.NoServerMetrics
}

// genaiPerfDefault is what profile and analyze scrape without
// --server-metrics-url: GenAI-Perf's DCGM exporter URL when it answers,
// else nothing, with one warning (not one per point). The warning names
// the URL, not "no GPU telemetry": the endpoint's own /metrics is still
// tried, and may export a GPU (the simulator's, labelled simulated).
func (f *telemetryFlags) genaiPerfDefault(e *env) []string {
	if f.off() {
		return nil // nothing is scraped, so there is nothing to warn of
	}
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
