package telemetry

import (
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
)

// collector is a sink that keeps every scrape it is given.
type collector struct {
	mu      sync.Mutex
	scrapes [][]metrics.TelemetrySample
}

func (c *collector) sink(samples []metrics.TelemetrySample) {
	c.mu.Lock()
	c.scrapes = append(c.scrapes, samples)
	c.mu.Unlock()
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.scrapes)
}

// bySource returns the scrapes of one source, in the order received.
func (c *collector) bySource(source string) [][]metrics.TelemetrySample {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out [][]metrics.TelemetrySample
	for _, s := range c.scrapes {
		if len(s) > 0 && s[0].Source == source {
			out = append(out, s)
		}
	}
	return out
}

// failures counts the failed scrapes the scraper reports through its test
// hook, per display URL, so tests wait for events instead of sleeping.
type failures struct {
	mu sync.Mutex
	n  map[string]int
	ok map[string]int
}

func (f *failures) hook(url string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n, f.ok = map[string]int{}, map[string]int{}
	}
	if err != nil {
		f.n[url]++
	} else {
		f.ok[url]++
	}
}

func (f *failures) failed(url string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[url]
}

// waitUntil polls cond; the deadline only guards against a hang (tests
// never assert on wall time), so it is generous for a loaded CI machine.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// newTestScraper builds a scraper with short test intervals, changed by
// edit, and a collector and failure hook attached.
func newTestScraper(t *testing.T, urls []string, edit func(*Config)) (*Scraper, *collector, *failures) {
	t.Helper()
	c, f := &collector{}, &failures{}
	cfg := Config{
		URLs:         urls,
		Interval:     20 * time.Millisecond,
		Timeout:      500 * time.Millisecond,
		ProbeTimeout: 2 * time.Second,
		Clock:        transport.NewClock(),
		Sink:         c.sink,
		afterScrape:  f.hook,
	}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, c, f
}

// sampleNamed finds the first sample of a name whose labels include
// every pair in want (name, value, ...).
func sampleNamed(samples []metrics.TelemetrySample, name string, want ...string) (metrics.TelemetrySample, bool) {
next:
	for _, s := range samples {
		if s.Name != name {
			continue
		}
		for i := 0; i+1 < len(want); i += 2 {
			if s.Label(want[i]) != want[i+1] {
				continue next
			}
		}
		return s, true
	}
	return metrics.TelemetrySample{}, false
}
