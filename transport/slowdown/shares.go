// Package slowdown owns the slowdown proxy: an in-process HTTP reverse
// proxy, on 127.0.0.1, in front of an OpenAI-compatible server, that makes
// the server look slower by a known share of its own measured times.
// Calibrating a regression judge needs candidates whose true change is
// known; against a real server the only way to get one is to slow the
// server down on purpose, by an amount relative to what it does.
//
// The proxy stamps each server-sent event as it arrives from upstream and
// releases it later by a schedule (Shares.Release) that widens exactly the
// gap it is asked to: an ITL share stretches every gap between events
// after the first and leaves TTFT alone (holding every event back by one
// constant would shift them all and leave the gaps unchanged), a TTFT
// share delays the first event and with it the rest, a Throughput share
// stretches the whole response's time. Bytes pass through unchanged:
// status, headers, the request body and its Authorization, the SSE
// framing, [DONE] and usage chunks; each event is flushed as it is
// released. A response that is not an event stream is one event: its
// whole body, released at once.
//
// All shares 0 is a pure pass-through through the same code, so an A/A
// comparison sends both sides through the proxy and its own overhead
// cancels. The proxy logs nothing: headers carry secrets.
package slowdown

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Shares are how much slower the proxy makes a response, each a fraction
// of the time it measured (0.1 is 10%). They add up: each share adds its
// own hold, computed from the upstream's times.
type Shares struct {
	// ITL widens every gap between consecutive events after the first by
	// this share of the gap; the first event is not delayed.
	ITL float64
	// TTFT delays the first event by this share of its time from the
	// request being forwarded, and every later event by the same amount.
	TTFT float64
	// Throughput stretches the whole response: an event that arrived t
	// after the request was forwarded is released at (1+Throughput)·t.
	Throughput float64
}

// Release is when the proxy lets an event go, measured like its inputs
// from the moment the request was forwarded upstream: first is when the
// response's first event arrived, arrival when this one did (arrival ≥
// first; for the first event, arrival = first). It is the event's arrival
// plus each share's hold:
//
//	TTFT·first + ITL·(arrival − first) + Throughput·arrival
//
// so the gap between two events k−1 and k grows by (ITL + Throughput)·gap,
// the first event by (TTFT + Throughput)·first.
func (s Shares) Release(first, arrival time.Duration) time.Duration {
	hold := s.TTFT*float64(first) + s.ITL*float64(arrival-first) + s.Throughput*float64(arrival)
	return arrival + time.Duration(math.Round(hold))
}

// shareKeys are the names ParseShares and String use, in String's order.
var shareKeys = []struct {
	name string
	of   func(*Shares) *float64
}{
	{"itl", func(s *Shares) *float64 { return &s.ITL }},
	{"ttft", func(s *Shares) *float64 { return &s.TTFT }},
	{"throughput", func(s *Shares) *float64 { return &s.Throughput }},
}

// ParseShares reads a --slowdown value: comma-separated key=share pairs,
// keys itl, ttft and throughput, each share a percentage ("10%") or a
// fraction ("0.1"), e.g. "itl=10%,ttft=5%". "" and "none" are all zero.
// An error names the key (or the pair) that is wrong.
func ParseShares(text string) (Shares, error) {
	var s Shares
	text = strings.TrimSpace(text)
	if text == "" || text == "none" {
		return s, nil
	}
	seen := map[string]bool{}
	for _, pair := range strings.Split(text, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		key = strings.TrimSpace(key)
		if !ok {
			return Shares{}, fmt.Errorf("slowdown: %q is not key=share (e.g. itl=10%%)", pair)
		}
		field := s.field(key)
		if field == nil {
			return Shares{}, fmt.Errorf("slowdown: unknown key %q, want itl, ttft or throughput", key)
		}
		if seen[key] {
			return Shares{}, fmt.Errorf("slowdown: %s is given twice", key)
		}
		seen[key] = true
		share, err := parseShare(strings.TrimSpace(value))
		if err != nil {
			return Shares{}, fmt.Errorf("slowdown: %s: %v", key, err)
		}
		*field = share
	}
	return s, nil
}

func (s *Shares) field(key string) *float64 {
	for _, k := range shareKeys {
		if k.name == key {
			return k.of(s)
		}
	}
	return nil
}

// parseShare reads "10%" as 0.1 and "0.1" as 0.1; a share must be finite
// and not negative (a proxy cannot make a server faster).
func parseShare(v string) (float64, error) {
	text, percent := strings.CutSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a share (want e.g. 10%% or 0.1)", v)
	}
	if percent {
		f /= 100
	}
	if f < 0 {
		return 0, fmt.Errorf("must be >= 0, got %s (a proxy can only slow a server down)", v)
	}
	return f, nil
}

// Validate checks shares built in code rather than parsed: each finite
// and not negative.
func (s Shares) Validate() error {
	for _, k := range shareKeys {
		if v := *k.of(&s); !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("slowdown: %s must be a finite share >= 0, got %g", k.name, v)
		}
	}
	return nil
}

// String writes s as ParseShares reads it: the non-zero shares as
// percentages ("itl=25%"), or "none".
func (s Shares) String() string {
	var parts []string
	for _, k := range shareKeys {
		if v := *k.of(&s); v != 0 {
			parts = append(parts, k.name+"="+strconv.FormatFloat(v*100, 'g', 6, 64)+"%")
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}
