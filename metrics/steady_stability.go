package metrics

import (
	"fmt"
	"math"
)

// StabilityRule is perf_analyzer's windowed stop, which GenAI-Perf's
// --measurement-interval and --stability-percentage ask for: the point is
// measured in windows of Window, and stops once the last StableWindows
// windows agree — for both their throughput and their mean latency the
// largest over the smallest is within 1 + Percentage/100 — or after
// MaxWindows windows, not stable. The requests of the windows before the
// stable ones are the point's warm-up, left out as perf_analyzer leaves
// them out (it reports the stable windows merged).
type StabilityRule struct {
	Window     int64   `json:"window_ns"`
	Percentage float64 `json:"percentage"`
	MaxWindows int     `json:"max_windows"`
}

// StableWindows is how many last windows must agree: perf_analyzer's
// stability window, 3.
const StableWindows = 3

// DefaultMaxWindows is perf_analyzer's --max-trials default.
const DefaultMaxWindows = 10

// Validate reports the first value out of range.
func (r StabilityRule) Validate() error {
	switch {
	case r.Window <= 0:
		return fmt.Errorf("window: want a positive duration, got %d ns", r.Window)
	case !(r.Percentage > 0) || math.IsInf(r.Percentage, 0):
		return fmt.Errorf("stability percentage: want a positive share such as 10 (%%), got %g", r.Percentage)
	case r.MaxWindows < StableWindows:
		return fmt.Errorf("max windows: want at least %d, got %d", StableWindows, r.MaxWindows)
	}
	return nil
}

// StabilityWindow is one measurement window: the requests that finished
// in it, their rate and their mean latency.
type StabilityWindow struct {
	Start    int64 `json:"start_ns"`
	End      int64 `json:"end_ns"`
	Requests int   `json:"requests"`
	// Throughput is finished requests per second of the window.
	Throughput float64 `json:"throughput"`
	// Latency is their mean request latency, 0 with none.
	Latency float64 `json:"latency_ns"`
	sum     float64
}

// windowChecker applies a StabilityRule to records as they finish. Its
// windows start at the first record's send; a window closes when a record
// finishes after its end, so no timer is needed: a point always has a
// next record until it stops.
type windowChecker struct {
	rule    StabilityRule
	windows []StabilityWindow
	cur     *StabilityWindow
	// before counts the records finished before the current window.
	before, added int
	last          *SteadyCheck
}

func (c *windowChecker) add(r *Record) *SteadyCheck {
	c.added++
	if c.cur == nil {
		c.cur = &StabilityWindow{Start: r.Sent, End: r.Sent + c.rule.Window}
	}
	var chk *SteadyCheck
	for r.Done >= c.cur.End {
		c.close()
		chk = c.check()
		c.last = chk
	}
	c.cur.Requests++
	if r.Err == nil {
		c.cur.sum += float64(r.Done - r.Sent)
	}
	return chk
}

// close ends the current window and opens the next.
func (c *windowChecker) close() {
	w := *c.cur
	w.Throughput = float64(w.Requests) / (float64(c.rule.Window) / 1e9)
	if w.Requests > 0 {
		w.Latency = w.sum / float64(w.Requests)
	}
	c.windows = append(c.windows, w)
	c.cur = &StabilityWindow{Start: w.End, End: w.End + c.rule.Window}
}

// check judges the windows closed so far: the warm-up is every record
// before the last StableWindows windows.
func (c *windowChecker) check() *SteadyCheck {
	n := len(c.windows)
	chk := &SteadyCheck{Windows: append([]StabilityWindow(nil), c.windows...)}
	first := max(0, n-StableWindows)
	for i, w := range c.windows {
		if i < first {
			chk.Warmup += w.Requests
		}
		chk.Requests += w.Requests
	}
	if n >= StableWindows {
		last := c.windows[first:]
		tput, lat := spread(last, func(w StabilityWindow) float64 { return w.Throughput }), spread(last, func(w StabilityWindow) float64 { return w.Latency })
		chk.Widths = []SteadyWidth{{Metric: "throughput", Width: tput}, {Metric: "latency", Width: lat}}
		chk.Met = tput <= c.rule.Percentage/100 && lat <= c.rule.Percentage/100
	}
	return chk
}

// spread is max/min − 1 over the windows (+Inf when the smallest is 0).
func spread(ws []StabilityWindow, v func(StabilityWindow) float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, w := range ws {
		lo, hi = math.Min(lo, v(w)), math.Max(hi, v(w))
	}
	if !(lo > 0) {
		return math.Inf(1)
	}
	return hi/lo - 1
}
