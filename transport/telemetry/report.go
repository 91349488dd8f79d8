package telemetry

import (
	"context"
	"time"
)

// Report is what scraping one URL came to between a Start and its Stop:
// enough to tell "this exporter gave data throughout" from "it died at
// 12:03 and the energy figures stop there".
type Report struct {
	// URL is the URL as it may be shown (no credentials); Source is its
	// host:port, the samples' Source.
	URL, Source string
	// Start and End are the span covered, ns on the run's clock.
	Start, End int64
	// Attempts counts the scrapes that finished (a scrape cut by Stop is
	// not one); Successes and Failures split them.
	Attempts, Successes, Failures int
	// FirstError is the first failure's text, "" if none failed.
	FirstError string
	// Skipped counts the ticks passed over because the scrape before was
	// still running: a URL slower than the interval shows here.
	Skipped int
	// Samples counts the samples sent to the sink.
	Samples int
	// Gaps are the spans longer than twice the interval without a
	// successful scrape: from the last success (or Start) to the next (or
	// End).
	Gaps []Gap
	// CPU is the thread CPU time spent reading and parsing the bodies of
	// the successful scrapes (see onThread for what it leaves out), and
	// CPUMax the most one of them took; both zero outside Linux.
	CPU, CPUMax time.Duration
}

// CPUPerScrape is the mean CPU time of one successful scrape.
func (r Report) CPUPerScrape() time.Duration {
	if r.Successes == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.Successes)
}

// Gap is a span with no successful scrape, ns on the run's clock.
type Gap struct {
	Start, End int64
}

// worker scrapes one URL for one run and keeps its report. Only its own
// goroutine touches it until Stop has waited for that goroutine.
type worker struct {
	fetcher
	report Report
	lastOK int64
	// now asks for a scrape before the next tick (ScrapeNow); it holds
	// one request, so asking twice while one is pending asks once.
	now chan struct{}
}

func (w *worker) begin(start int64) {
	w.report = Report{URL: w.display, Source: w.source, Start: start}
	w.lastOK = start
}

// loop scrapes at start + k × interval until ctx ends. After a scrape it
// moves to the first tick still ahead, counting the ones it passed.
func (w *worker) loop(ctx context.Context, start int64, cfg Config) {
	interval := int64(cfg.Interval)
	timer := time.NewTimer(time.Until(w.clock.Time(start)))
	defer timer.Stop()
	for tick := int64(0); ; {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-w.now:
		}
		if cfg.beforeScrape != nil {
			cfg.beforeScrape(w.display)
		}
		r := w.scrape(ctx, cfg.Timeout)
		if r.err != nil && ctx.Err() != nil {
			return // cut by Stop: neither a success nor the server's failure
		}
		w.record(r, cfg)
		if cfg.afterScrape != nil {
			cfg.afterScrape(w.display, r.err)
		}
		next, skipped := nextTick(start, w.clock.Now(), interval, tick)
		w.report.Skipped += skipped
		tick = next
		timer.Reset(time.Until(w.clock.Time(start + tick*interval)))
	}
}

// nextTick is the schedule as a pure function, vegeta's pacer style: the
// first tick k > tick with start + k × interval still ahead of now, and
// how many ticks were passed over to reach it. Ticks are fixed multiples
// of the interval from start, so a slow scrape shifts nothing after it.
func nextTick(start, now, interval, tick int64) (next int64, skipped int) {
	next = max((now-start)/interval+1, tick+1)
	return next, int(next - tick - 1)
}

func (w *worker) record(r result, cfg Config) {
	w.report.Attempts++
	if r.err != nil {
		w.report.Failures++
		if w.report.FirstError == "" {
			w.report.FirstError = r.err.Error()
		}
		return
	}
	w.report.Successes++
	w.report.Samples += len(r.samples)
	w.report.CPU += r.cpu
	w.report.CPUMax = max(w.report.CPUMax, r.cpu)
	w.gapUntil(r.sent, cfg.Interval) // on the samples' stamps: a gap is where they stop
	w.lastOK = r.sent
	if len(r.samples) > 0 {
		cfg.Sink(r.samples)
	}
}

// gapUntil records the span since the last success if it is longer than
// twice the interval: one missed scrape is jitter, two in a row is a hole
// in the data.
func (w *worker) gapUntil(t int64, interval time.Duration) {
	if t-w.lastOK > 2*int64(interval) {
		w.report.Gaps = append(w.report.Gaps, Gap{Start: w.lastOK, End: t})
	}
}

func (w *worker) finish(end int64, interval time.Duration) Report {
	w.gapUntil(end, interval)
	w.report.End = end
	return w.report
}
