package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
)

// Defaults, after GenAI-Perf and AIPerf, so telemetry from llmbench and
// from them is sampled alike.
const (
	// DefaultInterval is GenAI-Perf's and AIPerf's 0.33 s between scrapes.
	DefaultInterval = 333 * time.Millisecond
	// DefaultProbeTimeout is GenAI-Perf's 5 s for a URL to answer at
	// startup before it is skipped.
	DefaultProbeTimeout = 5 * time.Second
	// DefaultMaxBody bounds one exposition. An 8-GPU dcgm-exporter page
	// with every field enabled is under 1 MiB and vLLM's about 100 KiB,
	// so 16 MiB is generous for any real exporter and still a bound on
	// what a broken one can make us hold.
	DefaultMaxBody = 16 << 20
	// MinInterval keeps a mistyped interval from hammering the server
	// being measured.
	MinInterval = 10 * time.Millisecond
	// maxTimeout is GenAI-Perf's per-GET timeout, the longest a scrape
	// waits by default.
	maxTimeout = 5 * time.Second
)

// Config says what to scrape, how often, and where the samples go.
type Config struct {
	// URLs are the Prometheus endpoints, e.g. http://gpu1:9400/metrics
	// (dcgm-exporter) and http://gpu1:8000/metrics (vLLM). Credentials in
	// them (user info, a token in the query) are sent but never shown.
	URLs []string
	// Interval is the time between scrape ticks, DefaultInterval if zero.
	Interval time.Duration
	// Timeout bounds one scrape, headers and body. Zero means
	// min(5 s, 10 × Interval): a scrape still unanswered after ten
	// intervals has already left a gap in the data and has better odds
	// on a fresh try than by waiting, while the 5 s cap is GenAI-Perf's
	// per-GET timeout, so a long interval never waits longer than it
	// would. A timeout longer than the interval is allowed: the ticks a
	// slow scrape overlaps are skipped, never stacked.
	Timeout time.Duration
	// ProbeTimeout bounds the startup check of each URL (Probe),
	// DefaultProbeTimeout if zero.
	ProbeTimeout time.Duration
	// MaxBody bounds an exposition's size, DefaultMaxBody if zero; a
	// larger body is a failed scrape.
	MaxBody int64
	// Clock stamps samples. It must be the clock the run's request records
	// use, so samples line up with sends and responses.
	Clock *transport.Clock
	// Sink receives each successful scrape's samples. It is called from
	// the scraping goroutines, never on the request path: calls for
	// different URLs may run at the same time, calls for one URL come one
	// at a time in time order, and none comes after Stop returns. The
	// slice is the sink's to keep. A sink that blocks delays only its
	// URL's next scrape (seen as skipped ticks and gaps), never a request.
	Sink func([]metrics.TelemetrySample)

	// beforeScrape and afterScrape, when set (by tests), hear of every
	// scrape starting and of every counted one ending, so a test can act
	// mid-scrape and wait for failures instead of sleeping.
	beforeScrape func(url string)
	afterScrape  func(url string, err error)
}

// Validate lists every problem with c, defaults applied, so a scenario
// author sees them all at once. It never quotes a URL it cannot parse.
func (c Config) Validate() []error {
	c = c.withDefaults()
	var errs []error
	if len(c.URLs) == 0 {
		errs = append(errs, errors.New("telemetry: no URLs to scrape"))
	}
	seen := map[string]bool{}
	for i, raw := range c.URLs {
		t, err := parseTarget(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("telemetry: URL %d: %w", i+1, err))
			continue
		}
		if seen[raw] {
			errs = append(errs, fmt.Errorf("telemetry: %s is listed twice", t.display))
		}
		seen[raw] = true
	}
	if c.Interval < MinInterval {
		errs = append(errs, fmt.Errorf("telemetry: interval %v is below the %v minimum", c.Interval, MinInterval))
	}
	if c.Timeout <= 0 || c.ProbeTimeout <= 0 {
		errs = append(errs, errors.New("telemetry: timeouts must be positive"))
	}
	if c.MaxBody <= 0 {
		errs = append(errs, errors.New("telemetry: the body limit must be positive"))
	}
	if c.Clock == nil {
		errs = append(errs, errors.New("telemetry: no clock: samples must share the request records' clock"))
	}
	if c.Sink == nil {
		errs = append(errs, errors.New("telemetry: no sink for the samples"))
	}
	return errs
}

func (c Config) withDefaults() Config {
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.Timeout == 0 {
		c.Timeout = min(maxTimeout, 10*c.Interval)
	}
	if c.ProbeTimeout == 0 {
		c.ProbeTimeout = DefaultProbeTimeout
	}
	if c.MaxBody == 0 {
		c.MaxBody = DefaultMaxBody
	}
	return c
}

// Scraper scrapes a set of Prometheus endpoints, each on its own
// goroutine, for as long as a benchmark point runs. Use it as
// New → Probe (optional, once) → Start → Stop, and Start → Stop again for
// the next point: the URLs Probe dropped stay dropped, and each Stop
// reports on the scrapes since its Start. Its methods may be called from
// any goroutine.
type Scraper struct {
	cfg    Config
	client *http.Client

	mu      sync.Mutex
	targets []target
	run     *run
}

// run is one Start..Stop span.
type run struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	workers []*worker
}

// New checks cfg and returns a scraper that has not scraped yet.
func New(cfg Config) (*Scraper, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	cfg = cfg.withDefaults()
	s := &Scraper{cfg: cfg, client: newClient(len(cfg.URLs))}
	for _, raw := range cfg.URLs {
		t, _ := parseTarget(raw) // Validate parsed them all
		s.targets = append(s.targets, t)
	}
	return s, nil
}

// Interval is the scrape interval in force, defaults applied.
func (s *Scraper) Interval() time.Duration { return s.cfg.Interval }

// Timeout is the per-scrape timeout in force, defaults applied.
func (s *Scraper) Timeout() time.Duration { return s.cfg.Timeout }

// Probe scrapes every URL once, all at the same time, and keeps only
// those that answer HTTP 200 with a parsable exposition within
// ProbeTimeout, as GenAI-Perf does at startup. Each URL dropped comes back
// as a warning for the caller to print (this package never logs); an
// unreachable metrics URL is a warning, never a crash (SPEC §8). The
// samples read are not sent to the sink: a probe precedes the point.
func (s *Scraper) Probe(ctx context.Context) []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run != nil {
		return []error{errors.New("telemetry: Probe called while scraping")}
	}
	errs := make([]error, len(s.targets))
	var wg sync.WaitGroup
	for i, t := range s.targets {
		wg.Go(func() {
			r := s.newWorker(t).scrape(ctx, s.cfg.ProbeTimeout)
			errs[i] = r.err
		})
	}
	wg.Wait()
	var kept []target
	var warnings []error
	for i, t := range s.targets {
		if errs[i] != nil {
			warnings = append(warnings, fmt.Errorf("%w; dropped: not scraped in this run", errs[i]))
			continue
		}
		kept = append(kept, t)
	}
	s.targets = kept
	return warnings
}

// URLs are the URLs being scraped (those Probe kept), as they may be
// shown: without credentials.
func (s *Scraper) URLs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.targets))
	for i, t := range s.targets {
		out[i] = t.display
	}
	return out
}

// Start begins scraping every URL on its own goroutine, so a slow one
// never delays the others, and returns at once. Each goroutine scrapes at
// the ticks start + k × Interval, all URLs on the same ticks; a scrape
// never overlaps its predecessor, and a tick that passes while one is
// still running is skipped (and counted) rather than queued, so the
// schedule never drifts. Scraping stops at Stop or when ctx ends.
func (s *Scraper) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run != nil {
		return errors.New("telemetry: Start called twice without Stop")
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &run{cancel: cancel}
	start := s.cfg.Clock.Now()
	for _, t := range s.targets {
		w := s.newWorker(t)
		w.begin(start)
		r.workers = append(r.workers, w)
		r.wg.Go(func() { w.loop(ctx, start, s.cfg) })
	}
	s.run = r
	return nil
}

// Stop ends scraping, waits for the goroutines (a scrape in flight is
// cut, and not counted), and returns one Report per URL in URL order. A
// URL silent since its last success gets a final gap up to now, so an
// exporter that died mid-run shows where. Stop without Start returns nil.
func (s *Scraper) Stop() []Report {
	s.mu.Lock()
	r := s.run
	s.run = nil
	s.mu.Unlock()
	if r == nil {
		return nil
	}
	r.cancel()
	r.wg.Wait()
	end := s.cfg.Clock.Now()
	reports := make([]Report, len(r.workers))
	for i, w := range r.workers {
		reports[i] = w.finish(end, s.cfg.Interval)
	}
	s.client.CloseIdleConnections()
	return reports
}

// ScrapeNow asks every URL for a scrape at once instead of at its next
// tick, and returns without waiting for it: the runtime calls it the
// moment a warm-up or a point ends, so the scrape that bounds the
// server's window is sent right after the last response rather than up
// to an interval later. A URL whose scrape is in flight scrapes again as
// soon as that one ends. Without Start it does nothing.
func (s *Scraper) ScrapeNow() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil {
		return
	}
	for _, w := range s.run.workers {
		select {
		case w.now <- struct{}{}:
		default: // one is already asked for
		}
	}
}

func (s *Scraper) newWorker(t target) *worker {
	return &worker{fetcher: fetcher{target: t, client: s.client, clock: s.cfg.Clock,
		maxBody: s.cfg.MaxBody, parser: newParser()}, now: make(chan struct{}, 1)}
}
