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

	runplan "github.com/llmbench/llmbench/runtime/plan"

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
// endpoint's own /metrics — unless turned off, or the simulator's when
// URLs are given, whose made-up GPU would be added to the real ones.
// Scraping off (a negative interval) is an empty plan: nothing is
// probed, nothing scraped.
func telemetryPlan(e *runplan.Experiment) TelemetryPlan {
	if e.TelemetryInterval < 0 {
		return TelemetryPlan{}
	}
	return TelemetryPlan{URLs: e.Telemetry, Interval: e.TelemetryInterval,
		Discover: !e.ServerMetricsOff && !(e.Endpoint.IsSim() && len(e.Telemetry) > 0)}
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
	// ServerWindow is the span the server's own figures (Summary.Server)
	// cover and the requests each side counted in it; nil when no
	// scrape was kept.
	ServerWindow *ServerWindow
	// TokenChecks set the client's ISL/OSL sums beside the server's
	// token counters (checkTokens); empty when they cannot be compared.
	TokenChecks []TokenCheck
}

// ServerWindow is the server side of a point's window. The server's
// counters and histograms are differenced between two scrapes, each
// stamped with when it was sent: Start, the first sent after the
// warm-up's last response (or the last before the first send when there
// was no warm-up), so warm-up requests never enter server figures; End,
// the first sent after the point's last response, so the last request
// always does — both at least serverSettle after the response. Requests that finished between the warm-up's end and
// Start are in the client's figures only.
type ServerWindow struct {
	Start     int64 `json:"start"`
	End       int64 `json:"end"`
	WarmupEnd int64 `json:"warmup_end,omitempty"`
	// ServerCount is how many requests the server's request-latency (or
	// else TTFT) histogram counted in the window, -1 when it exports
	// neither; ClientCount the point's completed measured requests, and
	// ClientInWindow those of them that finished after Start.
	ServerCount    float64 `json:"server_count"`
	ClientCount    int     `json:"client_count"`
	ClientInWindow int     `json:"client_in_window"`
	// ServerTTFTCount is how many first tokens the server's TTFT
	// histogram counted in the window (-1 when it has none), and
	// ClientTTFTInWindow how many of the client's completed requests had
	// their first chunk after Start: in an open loop whose warm-up
	// overlaps the measured requests, a request can finish inside the
	// window and have had its first token before it.
	ServerTTFTCount    float64 `json:"server_ttft_count"`
	ClientTTFTInWindow int     `json:"client_ttft_in_window"`
}

// mismatch is the warning a count that differs deserves, naming both;
// "" when they agree or the server counts nothing.
func (w *ServerWindow) mismatch() string {
	if w == nil || w.ServerCount < 0 || w.ServerCount == float64(w.ClientCount) {
		return ""
	}
	msg := fmt.Sprintf("telemetry: the server counted %.0f requests in its window, the client %d", w.ServerCount, w.ClientCount)
	if lost := w.ClientCount - w.ClientInWindow; lost > 0 {
		msg += fmt.Sprintf(" (%d of them finished while the warm-up's last requests were still running, before the first scrape after the warm-up, so the server's figures leave them out)", lost)
	} else if w.ServerCount > float64(w.ClientCount) {
		msg += " (another client's requests, or ones the server finished late, are in the server's figures)"
	}
	return msg
}

// ttftMismatch is the warning a TTFT count that differs from the
// client's deserves, when the request counts agree (else mismatch has
// said it); "" otherwise.
func (w *ServerWindow) ttftMismatch() string {
	if w == nil || w.ServerTTFTCount < 0 || w.ServerTTFTCount == float64(w.ClientCount) || w.mismatch() != "" {
		return ""
	}
	msg := fmt.Sprintf("telemetry: the server's TTFT histogram counted %.0f first tokens in its window, the client %d requests", w.ServerTTFTCount, w.ClientCount)
	if early := w.ClientCount - w.ClientTTFTInWindow; early > 0 {
		msg += fmt.Sprintf(" (%d of them had their first token while the warm-up was still running, before the first scrape after it, so the server's TTFT leaves them out: an open loop's warm-up overlaps its measured requests)", early)
	}
	return msg
}

// AllWarnings are the scraper's warnings, then the reduction's (a
// simulated source left out beside real ones): what reports print.
func (pt *PointTelemetry) AllWarnings() []string {
	return slices.Concat(pt.Warnings, pt.Summary.Warnings)
}

// telemetryRun scrapes during one run.
type telemetryRun struct {
	scraper  *telemetry.Scraper
	clock    *transport.Clock
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
	// warmups is how many warm-up requests the point sends (0 when not
	// known in advance, as for sessions); warmed counts those finished
	// and warmEnd is the latest one's end. The last of them asks for a
	// scrape at once: the server window's start.
	warmups, warmed int
	warmEnd         int64
	// dones and firsts are the ends and first chunks of the completed
	// measured requests, to count those inside the server's window.
	dones, firsts []int64
}

// startTelemetry probes the plan's URLs and starts scraping those that
// answer; nil when there is nothing to scrape. bases are the endpoint's
// resolved replica URLs (a simulator's real address for sim://): each
// replica's own /metrics is discovered. warmups is how many warm-up
// requests the point sends, 0 when unknown.
func startTelemetry(ctx context.Context, plan TelemetryPlan, bases []string, clock *transport.Clock, warmups int) *telemetryRun {
	t := &telemetryRun{latest: map[string]int64{}, clock: clock, interval: plan.Interval, warmups: warmups}
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
	t.waitFor(ctx, len(s.URLs()), 0, t.patience()) // a scrape before the first send: counters must bracket the window
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

// warmups is how many warm-up requests this process sends for the point
// (a shard's Point.Warmup is already its share), 0 when that is not
// known in advance: sessions warm up in sessions of any number of turns.
// Only the early scrape depends on it: a wrong count asks for one scrape
// too many or leaves the start to the next tick, never a wrong window.
func warmups(job *Job) int {
	if len(job.Sessions) > 0 {
		return 0
	}
	return job.Point.Warmup
}

// warmupDone hears of one finished warm-up request (Point.OnWarmup).
func (t *telemetryRun) warmupDone(done int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.warmed++
	t.warmEnd = max(t.warmEnd, done)
	last := t.warmed == t.warmups
	t.mu.Unlock()
	if last && t.scraper != nil {
		time.AfterFunc(serverSettle, t.scraper.ScrapeNow) // never sleeps on the request's goroutine
	}
}

// serverSettle is how long after a response a scrape must be sent to
// count it: vLLM 0.32's output handler pushes a batch's outputs to the
// requests' queues and records their histograms after, and when it
// yields in between (many outputs, stop-string aborts) the client can
// have its last chunk before the request is counted. A margin this
// size costs the client's window nothing (the scrape only bounds the
// server's) and is far above that handler's step.
const serverSettle = 25 * time.Millisecond

// afterWarmup is Point.AfterWarmup for a point that scrapes: before any
// measured request of a closed loop is sent, it takes the scrape that
// starts the server's window, serverSettle after the warm-up's last
// response; nil when nothing is scraped, so the loop runs as it would.
func (t *telemetryRun) afterWarmup(ctx context.Context) func() {
	if t == nil || t.scraper == nil {
		return nil
	}
	return func() {
		t.mu.Lock()
		from := t.warmEnd + int64(serverSettle)
		t.mu.Unlock()
		t.sleepUntil(ctx, from)
		t.scraper.ScrapeNow()
		// asked for now, so it ends within two timeouts (one in flight,
		// then this one): the measured requests wait no longer than that
		// for a server whose /metrics stopped answering.
		t.waitFor(ctx, len(t.scraper.URLs()), from, 2*t.scraper.Timeout())
	}
}

// sleepUntil waits until instant on the run's clock, or ctx's end.
func (t *telemetryRun) sleepUntil(ctx context.Context, instant int64) {
	if wait := time.Duration(instant - t.clock.Now()); wait > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// observing wraps a point's OnRecord so the ends of its completed
// requests are kept for the server window's count.
func (t *telemetryRun) observing(next func(metrics.Record)) func(metrics.Record) {
	if t == nil || t.scraper == nil {
		return next
	}
	return func(rec metrics.Record) {
		if rec.Err == nil {
			first := rec.Done
			if len(rec.Chunks) > 0 {
				first = rec.Chunks[0]
			}
			t.mu.Lock()
			t.dones = append(t.dones, rec.Done)
			t.firsts = append(t.firsts, first)
			t.mu.Unlock()
		}
		next(rec)
	}
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
	settled := window.End + int64(serverSettle)
	t.sleepUntil(ctx, settled)
	t.scraper.ScrapeNow() // sent after the last response has settled: it ends the server's window
	t.waitFor(ctx, len(t.scraper.URLs()), settled, t.patience())
	pt.Reports = t.scraper.Stop()
	pt.URLs = t.scraper.URLs()
	t.mu.Lock()
	pt.Samples = slices.Concat(t.scrapes...)
	t.scrapes = nil
	warmEnd, dones, firsts := t.warmEnd, t.dones, t.firsts
	t.mu.Unlock()
	sw := &ServerWindow{Start: serverStart(pt.Samples, window.Start, warmEnd), End: serverEnd(pt.Samples, settled),
		WarmupEnd: warmEnd, ClientCount: len(dones)}
	for i, d := range dones {
		if d > sw.Start {
			sw.ClientInWindow++
		}
		if firsts[i] > sw.Start {
			sw.ClientTTFTInWindow++
		}
	}
	pt.Summary = reduceTelemetry(pt.Samples, window, sw)
	pt.ServerWindow = sw
	for _, w := range []string{sw.mismatch(), sw.ttftMismatch()} {
		if w != "" {
			pt.Warnings = append(pt.Warnings, w)
		}
	}
	for _, r := range pt.Reports {
		if r.Failures > 0 {
			pt.Warnings = append(pt.Warnings, gapWarning(r))
		}
	}
	return pt
}

// serverStart is the start of the server's window: the first send, or,
// when the warm-up's last response came later than the last scrape sent
// before it, the first scrape sent after that response (the latest such
// across sources, so every source's start scrape is one).
func serverStart(samples []metrics.TelemetrySample, start, warmEnd int64) int64 {
	if warmEnd == 0 {
		return start
	}
	return max(start, firstScrapeFrom(samples, warmEnd+int64(serverSettle)))
}

// serverEnd is the send time of the scrape that ends the server's
// window: the latest across sources of the first scrape sent at or
// after end (end itself when there is none).
func serverEnd(samples []metrics.TelemetrySample, end int64) int64 {
	return max(end, firstScrapeFrom(samples, end))
}

// firstScrapeFrom is, across sources, the latest of each source's first
// scrape sent at or after from, so that every source has a scrape at or
// before it; 0 when no source has one.
func firstScrapeFrom(samples []metrics.TelemetrySample, from int64) int64 {
	first := map[string]int64{}
	for _, s := range samples {
		if s.Time >= from && (first[s.Source] == 0 || s.Time < first[s.Source]) {
			first[s.Source] = s.Time
		}
	}
	var latest int64
	for _, at := range first {
		latest = max(latest, at)
	}
	return latest
}

// reduceTelemetry reduces the samples over the point's window, the
// server's figures over the server's (which starts later when the
// warm-up ran into the measured requests), and counts the requests the
// server saw in it.
func reduceTelemetry(samples []metrics.TelemetrySample, window metrics.TelemetryWindow, sw *ServerWindow) metrics.TelemetrySummary {
	sum := metrics.ReduceTelemetry(samples, window)
	if sw == nil {
		return sum
	}
	if sw.Start > window.Start {
		w := window
		w.Start = sw.Start
		srv := metrics.ReduceTelemetry(samples, w)
		sum.Server = srv.Server
		for _, n := range srv.Notes {
			if !slices.Contains(sum.Notes, n) {
				sum.Notes = append(sum.Notes, n)
			}
		}
	}
	sw.ServerCount, sw.ServerTTFTCount = -1, -1
	for _, m := range []string{metrics.LatencyRequestLatency, metrics.LatencyTTFT} {
		if l := sum.Server.Latency(m); l != nil && l.OK {
			sw.ServerCount = l.Count
			break
		}
	}
	if l := sum.Server.Latency(metrics.LatencyTTFT); l != nil && l.OK {
		sw.ServerTTFTCount = l.Count
	}
	return sum
}

// waitFor waits until each of n sources has been scraped at or after
// instant (0: once at all), giving up after within, at once when
// interrupted: a source that never answers then shows as a gap, and an
// energy it could not know.
func (t *telemetryRun) waitFor(ctx context.Context, n int, instant int64, within time.Duration) {
	deadline := time.Now().Add(within)
	for ctx.Err() == nil && !t.scrapedAfter(n, instant) && time.Now().Before(deadline) {
		time.Sleep(min(t.interval/16, 20*time.Millisecond)) // a long interval must not make the wait as long
	}
}

// patience is how long a scrape may take to come at a tick: three
// intervals and the scrape timeout.
func (t *telemetryRun) patience() time.Duration { return 3*t.interval + t.scraper.Timeout() }

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
	URLs         []string           `json:"urls"`
	Reports      []telemetry.Report `json:"reports"`
	Warnings     []string           `json:"warnings"`
	ServerWindow *ServerWindow      `json:"server_window,omitempty"`
	TokenChecks  []TokenCheck       `json:"token_checks,omitempty"`
}

// Account is the scrapes' account as JSON.
func (pt *PointTelemetry) Account() (string, error) {
	b, err := json.Marshal(telemetryAccount{URLs: pt.URLs, Reports: pt.Reports, Warnings: pt.Warnings, ServerWindow: pt.ServerWindow,
		TokenChecks: pt.TokenChecks})
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
		pt.URLs, pt.Reports, pt.Warnings, pt.ServerWindow, pt.TokenChecks = a.URLs, a.Reports, a.Warnings, a.ServerWindow, a.TokenChecks
		if pt.ServerWindow != nil {
			pt.Summary = reduceTelemetry(samples, telemetryWindow(s, costPerHour, currency), pt.ServerWindow)
		}
	}
	return pt, nil
}
