package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/telemetry"
)

// TelemetryPlan is what a point scrapes while it runs (SPEC §8).
type TelemetryPlan struct {
	// URLs are the Prometheus endpoints given (telemetry=[...],
	// endpoint(server_metrics=), --server-metrics-urls).
	URLs []string
	// Interval is the scrape period; 0 means 0.33 s, as GenAI-Perf and
	// AIPerf scrape.
	Interval time.Duration
	// Discover also scrapes the endpoint's own /metrics when it answers,
	// as AIPerf does, so a vLLM or sim:// endpoint's metrics come without
	// a URL; one that does not answer is dropped without a warning.
	Discover bool
}

// telemetryPlan is what the experiment's points scrape: its URLs, and the
// endpoint's own /metrics — except the simulator's when URLs are given,
// whose made-up GPU would be added to the real ones.
func (e *Experiment) telemetryPlan() TelemetryPlan {
	return TelemetryPlan{URLs: e.Telemetry, Interval: e.TelemetryInterval, Discover: !(e.Endpoint.IsSim() && len(e.Telemetry) > 0)}
}

// telemetryWindow is the measured span of a run for its telemetry: its
// first send to its last content chunk, its output tokens, its price.
func telemetryWindow(s *metrics.Summary, costPerHour float64, currency string) metrics.TelemetryWindow {
	w := metrics.TelemetryWindow{Start: s.Start, End: s.End, CostPerHour: costPerHour, Currency: currency}
	if d := s.OutputSequenceLength; d != nil {
		w.OutputTokens = d.Avg * float64(d.Count)
	}
	return w
}

// shardWindow marks a shard's window as holding only its share of the
// point's tokens: every shard scrapes the same exporters, whose energy is
// the whole server's, so a shard's J/token and cost per token would be N
// times the point's.
func shardWindow(w metrics.TelemetryWindow, shard *ShardRun) metrics.TelemetryWindow {
	if shard != nil && shard.Count > 1 {
		w.Share = fmt.Sprintf("shard %d of %d sent only its share of the point's tokens while every shard loads the same GPUs; llmbench merge gives the point's",
			shard.Index, shard.Count)
	}
	return w
}

// PointTelemetry is what was scraped during one run of a point and what
// it comes to over the run's window.
type PointTelemetry struct {
	// URLs are the endpoints scraped, without credentials.
	URLs    []string
	Samples []metrics.TelemetrySample
	Reports []telemetry.Report
	Summary metrics.TelemetrySummary
	// Warnings say which URLs were dropped and why (they never stop a
	// run).
	Warnings []string
}

// AllWarnings are the scraper's warnings, then the reduction's (a
// simulated source left out beside real ones): what reports print.
func (pt *PointTelemetry) AllWarnings() []string {
	return slices.Concat(pt.Warnings, pt.Summary.Warnings)
}

// telemetryRun scrapes during one run.
type telemetryRun struct {
	scraper  *telemetry.Scraper
	interval time.Duration
	mu       sync.Mutex
	// scrapes are the sink's batches as they came, joined once the point
	// is over: appending each to one slice would copy everything kept so
	// far each time it grew, mid-point, beside the requests.
	scrapes [][]metrics.TelemetrySample
	// latest is each source's newest scrape time, for waiting until a
	// scrape after the last response.
	latest   map[string]int64
	warnings []string
}

// startTelemetry probes the plan's URLs and starts scraping those that
// answer; nil when there is nothing to scrape. bases are the endpoint's
// resolved replica URLs (a simulator's real address for sim://): each
// replica's own /metrics is discovered.
func startTelemetry(ctx context.Context, plan TelemetryPlan, bases []string, clock *transport.Clock) *telemetryRun {
	t := &telemetryRun{latest: map[string]int64{}, interval: plan.Interval}
	if t.interval <= 0 {
		t.interval = telemetry.DefaultInterval
	}
	urls := slices.Clone(plan.URLs)
	for _, base := range bases {
		if own := metricsURLOf(base); plan.Discover && own != "" && !slices.Contains(urls, own) && t.answers(ctx, own, clock) {
			urls = append(urls, own)
		}
	}
	if len(urls) == 0 {
		return nil
	}
	s, err := telemetry.New(telemetry.Config{URLs: urls, Interval: t.interval, Clock: clock, Sink: t.take})
	if err != nil {
		t.warnings = append(t.warnings, "telemetry: "+strings.TrimPrefix(err.Error(), "telemetry: "))
		return t
	}
	for _, w := range s.Probe(ctx) {
		t.warnings = append(t.warnings, "telemetry: "+strings.TrimPrefix(w.Error(), "telemetry: "))
	}
	if len(s.URLs()) == 0 || s.Start(ctx) != nil {
		return t
	}
	t.scraper = s
	t.waitFor(ctx, len(s.URLs()), 0) // a scrape before the first send: counters must bracket the window
	return t
}

// answers probes one discovered URL quietly.
func (t *telemetryRun) answers(ctx context.Context, u string, clock *transport.Clock) bool {
	s, err := telemetry.New(telemetry.Config{URLs: []string{u}, Clock: clock, ProbeTimeout: 2 * time.Second,
		Sink: func([]metrics.TelemetrySample) {}})
	return err == nil && len(s.Probe(ctx)) == 0
}

// metricsURLOf is the /metrics of the server at base, its API path
// dropped ("http://h:8000/v1" → "http://h:8000/metrics"); "" for a base
// that is not an http(s) URL.
func metricsURLOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	u.Path, u.RawQuery, u.Fragment = "/metrics", "", ""
	u.User = nil // the endpoint's credentials are for its API, not sent on to a guessed URL
	return u.String()
}

func (t *telemetryRun) take(batch []metrics.TelemetrySample) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scrapes = append(t.scrapes, batch)
	for i := range batch {
		t.latest[batch[i].Source] = max(t.latest[batch[i].Source], batch[i].Time)
	}
}

// finish waits for every source to be scraped once after the last
// response (counters must bracket the window), then stops and reduces
// the samples over the run's measured window.
func (t *telemetryRun) finish(ctx context.Context, window metrics.TelemetryWindow) *PointTelemetry {
	if t == nil {
		return nil
	}
	pt := &PointTelemetry{Warnings: t.warnings}
	if t.scraper == nil {
		return pt
	}
	t.waitFor(ctx, len(t.scraper.URLs()), window.End)
	pt.Reports = t.scraper.Stop()
	pt.URLs = t.scraper.URLs()
	t.mu.Lock()
	pt.Samples = slices.Concat(t.scrapes...)
	t.scrapes = nil
	t.mu.Unlock()
	pt.Summary = metrics.ReduceTelemetry(pt.Samples, window)
	for _, r := range pt.Reports {
		if r.Failures > 0 {
			pt.Warnings = append(pt.Warnings, gapWarning(r))
		}
	}
	return pt
}

// waitFor waits until each of n sources has been scraped at or after
// instant (0: once at all), giving up after three intervals and the
// scrape timeout, at once when interrupted: a source that never answers
// then shows as a gap, and an energy it could not know.
func (t *telemetryRun) waitFor(ctx context.Context, n int, instant int64) {
	deadline := time.Now().Add(3*t.interval + t.scraper.Timeout())
	for ctx.Err() == nil && !t.scrapedAfter(n, instant) && time.Now().Before(deadline) {
		time.Sleep(t.interval / 16)
	}
}

func (t *telemetryRun) scrapedAfter(n int, instant int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.latest) < n {
		return false
	}
	for _, at := range t.latest {
		if at < instant {
			return false
		}
	}
	return true
}

// gapWarning says what a source's failures cost: how many scrapes failed,
// the first error, and the gaps left in its samples.
func gapWarning(r telemetry.Report) string {
	var b strings.Builder
	b.WriteString("telemetry: " + r.Source + ": " + strconv.Itoa(r.Failures) + " of " + strconv.Itoa(r.Attempts) + " scrapes failed")
	if r.FirstError != "" {
		b.WriteString(" (first: " + r.FirstError + ")")
	}
	for _, g := range r.Gaps {
		b.WriteString("; no samples for " + time.Duration(g.End-g.Start).Round(time.Millisecond).String())
	}
	return b.String()
}

// ProbeTelemetry says whether u answers with a Prometheus exposition
// within GenAI-Perf's 5 s: nil, or why not.
func ProbeTelemetry(ctx context.Context, u string) error {
	s, err := telemetry.New(telemetry.Config{URLs: []string{u}, Clock: transport.NewClock(), Sink: func([]metrics.TelemetrySample) {}})
	if err != nil {
		return err
	}
	if errs := s.Probe(ctx); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// telemetryAccount is how a point's scrapes went, kept with its samples
// (telemetry.parquet's metadata) so a rebuilt point reports them too.
type telemetryAccount struct {
	URLs     []string           `json:"urls"`
	Reports  []telemetry.Report `json:"reports"`
	Warnings []string           `json:"warnings"`
}

// Account is the scrapes' account as JSON.
func (pt *PointTelemetry) Account() (string, error) {
	b, err := json.Marshal(telemetryAccount{URLs: pt.URLs, Reports: pt.Reports, Warnings: pt.Warnings})
	return string(b), err
}

// RebuildTelemetry is a stored point's telemetry from its samples and
// account, reduced over the summary's window as the run reduced it.
func RebuildTelemetry(samples []metrics.TelemetrySample, account string, s *metrics.Summary, costPerHour float64, currency string) (*PointTelemetry, error) {
	pt := &PointTelemetry{Samples: samples, Summary: metrics.ReduceTelemetry(samples, telemetryWindow(s, costPerHour, currency))}
	if account != "" {
		var a telemetryAccount
		if err := json.Unmarshal([]byte(account), &a); err != nil {
			return pt, fmt.Errorf("telemetry account: %w", err)
		}
		pt.URLs, pt.Reports, pt.Warnings = a.URLs, a.Reports, a.Warnings
	}
	return pt, nil
}
