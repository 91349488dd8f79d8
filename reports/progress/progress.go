// Package progress shows a running point on the terminal: a bar redrawn
// in place on a terminal, a plain line every 10 s in logs, so that a long
// run is never silent. It is the Display a command's artifacts.Session
// drives.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/mattn/go-isatty"
)

// Live is artifacts.Display on W, the terminal's stderr: one point runs
// at a time, and starting the next display ends the previous one
// (repeats of a point run back to back).
type Live struct {
	W    io.Writer
	stop func()
}

// Start shows a point's progress until End or the next Start.
func (l *Live) Start(title string, requests, warmup int) *engine.Progress {
	l.End()
	p := &engine.Progress{}
	l.stop = start(l.W, title, requests, warmup, p)
	return p
}

// End stops the display, leaving its last line.
func (l *Live) End() {
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
}

// progress shows a point's live state on stderr while it runs: a bar
// redrawn in place on a terminal, a plain line every 10 s otherwise (CI
// logs, CI=true), so long runs are never silent and logs stay readable.
type progress struct {
	w     io.Writer
	tty   bool
	title string
	total int // measured requests expected, 0 when unknown
	// warmup is the number of warmup requests sent before them.
	warmup int
	p      *engine.Progress
	start  time.Time
	stop   chan struct{}
	done   chan struct{}

	// On a terminal, a second line shows the last second's figures
	// (panel), from win, sampled into last.
	win   *metrics.LiveWindow
	last  metrics.LiveSample
	drawn bool
}

// start begins reporting on p to w; the returned func ends it.
func start(w io.Writer, title string, total, warmup int, p *engine.Progress) func() {
	pr := &progress{w: w, title: title, total: total, warmup: warmup, p: p, start: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{}), tty: isTerminal(w)}
	if pr.tty {
		pr.win = &metrics.LiveWindow{}
		p.Tap = pr.win.Add
	}
	go pr.loop()
	return func() { close(pr.stop); <-pr.done }
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("CI") != "true" && isatty.IsTerminal(f.Fd())
}

func (pr *progress) loop() {
	defer close(pr.done)
	every := 10 * time.Second
	if pr.tty {
		every = 250 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-pr.stop:
			if pr.tty {
				pr.redraw()
				fmt.Fprintln(pr.w)
			}
			return
		case now := <-t.C:
			if !pr.tty {
				fmt.Fprintln(pr.w, pr.line())
				continue
			}
			if tick%4 == 0 { // every second
				pr.last = pr.win.Take(pr.start, now)
			}
			pr.redraw()
		}
	}
}

// redraw draws the two terminal lines in place: back up over the ones
// drawn before, then the progress line and the panel.
func (pr *progress) redraw() {
	up := ""
	if pr.drawn {
		up = "\033[1A"
	}
	pr.drawn = true
	fmt.Fprintf(pr.w, "\r%s%s\033[K\n%s\033[K", up, pr.line(), panel(pr.last, pr.p.InFlight.Load()))
}

// panel is the terminal's second line, AIPerf's dashboard in a line: the
// last second's throughput, TTFT and ITL p50/p99, errors, and the
// requests in flight now.
func panel(s metrics.LiveSample, inFlight int64) string {
	if s.Interval == 0 { // before the first second's sample
		return fmt.Sprintf("  %d in flight", inFlight)
	}
	quant := func(name string, q *metrics.LiveQuantiles) string {
		if q == nil {
			return name + " –"
		}
		return fmt.Sprintf("%s p50 %.1f p99 %.1f ms", name, q.P50*1e3, q.P99*1e3)
	}
	return fmt.Sprintf("  last %.0fs: %.1f req/s, %.0f tok/s · %s · %s · %d errors · %d in flight",
		s.Interval.Seconds(), s.RequestThroughput, s.OutputChunkThroughput, quant("TTFT", s.TTFT), quant("ITL", s.ITL),
		s.Errors, inFlight)
}

// line renders: point, requests done (of total), live p50 TTFT, chunks/s
// (≈ output tokens/s) and errors.
func (pr *progress) line() string {
	done := pr.p.Completed.Load() + pr.p.Failed.Load()
	elapsed := time.Since(pr.start).Seconds()
	if done == 0 && pr.warmup > 0 {
		return fmt.Sprintf("%s: warming up, %d/%d warmup requests, %.0fs", pr.title, pr.p.Warmup.Load(), pr.warmup, elapsed)
	}
	count := fmt.Sprintf("%d requests", done)
	bar := ""
	if pr.total > 0 {
		count = fmt.Sprintf("%d/%d requests", done, pr.total)
		bar = progressBar(float64(done)/float64(pr.total)) + " "
	}
	return fmt.Sprintf("%s%s: %s, p50 TTFT %.1f ms, %.0f tok/s, %d errors, %.0fs",
		bar, pr.title, count, float64(pr.p.MedianTTFT())/1e6, float64(pr.p.Chunks.Load())/max(elapsed, 1e-9),
		pr.p.Failed.Load(), elapsed)
}

func progressBar(frac float64) string {
	const width = 20
	n := int(min(max(frac, 0), 1) * width)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}
