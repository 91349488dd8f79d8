package gpflags

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// GenAIPerfMetricsURL is GenAI-Perf's default telemetry source, the DCGM
// exporter on the benchmarking host.
const GenAIPerfMetricsURL = "http://localhost:9400/metrics"

// Telemetry choose what each point scrapes besides the endpoint's own
// /metrics (tried unless --no-server-metrics, dropped quietly when it does
// not answer), and whether anything is scraped at all.
type Telemetry struct {
	ServerMetricsURL  []string `name:"server-metrics-url" aliases:"server-metrics-urls" sep:"none" help:"Prometheus /metrics URL to scrape during every point (a DCGM exporter, an inference server); repeatable, or several after one flag as GenAI-Perf takes them. An unreachable URL is a warning."`
	TelemetryInterval string   `default:"333ms" help:"How often telemetry URLs are scraped (GenAI-Perf and AIPerf: 0.33 s); 0 or off scrapes nothing."`
	NoServerMetrics   bool     `name:"no-server-metrics" help:"Do not scrape the endpoint's own /metrics (tried by default, as AIPerf does); --server-metrics-url URLs are still scraped."`
	// ResetPrefixCache sits with the scraping flags because what it
	// protects is the server's prefix-cache hit share they read.
	ResetPrefixCache bool `name:"reset-prefix-cache" help:"Empty the server's prefix cache before every run of every point (vLLM: POST /reset_prefix_cache, served when vLLM runs with VLLM_SERVER_DEV_MODE=1; SGLang: /flush_cache), as vllm bench sweeps do; a reset that fails stops the run."`
}

// Check refuses a URL that is not http(s) and an interval that is
// neither off nor 10 ms or more.
func (f *Telemetry) Check() error {
	for _, u := range f.ServerMetricsURL {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return failure.Inputf("--server-metrics-url: got %q, want an http(s) URL such as %s", plan.RedactURL(u), GenAIPerfMetricsURL)
		}
	}
	if _, err := scrapeInterval(f.TelemetryInterval); err != nil {
		return failure.Inputf("--telemetry-interval: %v", err)
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

// Interval is the parsed --telemetry-interval, -1 when off; check has
// refused a bad one.
func (f *Telemetry) Interval() time.Duration {
	d, _ := scrapeInterval(f.TelemetryInterval)
	return d
}

// Off says scraping is turned off.
func (f *Telemetry) Off() bool { return f.Interval() < 0 }

// Apply adds the flags' URLs and interval to an experiment.
func (f *Telemetry) Apply(e *plan.Experiment) {
	for _, u := range f.ServerMetricsURL {
		if !slices.Contains(e.Telemetry, u) {
			e.Telemetry = append(e.Telemetry, u)
		}
	}
	e.TelemetryInterval = f.Interval()
	e.ServerMetricsOff = e.ServerMetricsOff || f.NoServerMetrics
	e.Endpoint.ResetPrefixCache = e.Endpoint.ResetPrefixCache || f.ResetPrefixCache
}
