// Package transport owns every byte llmbench sends or receives: the fasthttp
// client, the SSE stream parser, OpenAI request bodies and response decoding.
// It fills metrics.Record values and knows nothing about load or scenarios.
package transport

import "time"

// Clock stamps events in nanoseconds since the Unix epoch without ever
// reading the wall clock after it starts: each stamp is the wall time at
// start plus the monotonic time elapsed since. Gaps between stamps are
// therefore immune to NTP steps, yet the values still line up with
// perf_analyzer's epoch-based timestamps.
type Clock struct {
	start   time.Time
	startNs int64
}

// NewClock starts a clock at the current instant.
func NewClock() *Clock {
	now := time.Now()
	return &Clock{start: now, startNs: now.UnixNano()}
}

// Now returns the current time in ns since the Unix epoch, monotonic.
func (c *Clock) Now() int64 { return c.startNs + int64(time.Since(c.start)) }

// FromTime is the stamp of a wall-clock instant — one another process
// announced (a shared start). It is read as wall time even when t carries
// a monotonic reading, so every process given the same instant gets the
// same stamp.
func (c *Clock) FromTime(t time.Time) int64 {
	return c.startNs + int64(t.Round(0).Sub(c.start.Round(0)))
}

// Time converts a stamp back into a time.Time carrying the monotonic
// reading, so it can be used for sleeping until a planned instant.
func (c *Clock) Time(ns int64) time.Time { return c.start.Add(time.Duration(ns - c.startNs)) }

// Timer fires once the clock reaches the stamp at (at once when it has):
// what a scheduler sleeps on until a planned instant. stop releases it
// early, as time.Timer's Stop does.
func (c *Clock) Timer(at int64) (fired <-chan time.Time, stop func() bool) {
	t := time.NewTimer(time.Until(c.Time(at)))
	return t.C, t.Stop
}
