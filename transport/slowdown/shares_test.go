package slowdown

import (
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// Planned release times, by hand. Events arrive 100, 110, 130 and 160 ms
// after the request is forwarded: TTFT 100 ms, gaps 10, 20, 30 ms.
func TestReleaseSchedule(t *testing.T) {
	arrivals := []time.Duration{100 * ms, 110 * ms, 130 * ms, 160 * ms}
	for _, tc := range []struct {
		name   string
		shares Shares
		want   []time.Duration
	}{
		// Nothing held: a pass-through.
		{"none", Shares{}, arrivals},
		// Gaps 10, 20, 30 become 12.5, 25, 37.5; the first event keeps 100.
		{"itl=25%", Shares{ITL: 0.25}, []time.Duration{100 * ms, 112500 * time.Microsecond, 137500 * time.Microsecond, 175 * ms}},
		// Everything 50 ms later (half the TTFT); gaps unchanged.
		{"ttft=50%", Shares{TTFT: 0.5}, []time.Duration{150 * ms, 160 * ms, 180 * ms, 210 * ms}},
		// Every time since forwarding × 1.25: TTFT 125, gaps 12.5, 25, 37.5.
		{"throughput=25%", Shares{Throughput: 0.25}, []time.Duration{125 * ms, 137500 * time.Microsecond, 162500 * time.Microsecond, 200 * ms}},
		// The holds add: 100 + 50 (ttft) first; then gaps × 1.25 on top.
		{"itl=25%,ttft=50%", Shares{ITL: 0.25, TTFT: 0.5}, []time.Duration{150 * ms, 162500 * time.Microsecond, 187500 * time.Microsecond, 225 * ms}},
	} {
		first := arrivals[0]
		for i, a := range arrivals {
			if got := tc.shares.Release(first, a); got != tc.want[i] {
				t.Errorf("%s: event %d arriving at %v released at %v, want %v", tc.name, i, a, got, tc.want[i])
			}
		}
	}
}

// A response that is not an event stream is one event, its whole body:
// arrival = first = 400 ms.
func TestReleaseWholeResponse(t *testing.T) {
	const body = 400 * ms
	for _, tc := range []struct {
		shares Shares
		want   time.Duration
	}{
		{Shares{}, 400 * ms},
		{Shares{ITL: 0.25}, 400 * ms}, // no gaps to widen
		{Shares{TTFT: 0.25}, 500 * ms},
		{Shares{Throughput: 0.25}, 500 * ms},
	} {
		if got := tc.shares.Release(body, body); got != tc.want {
			t.Errorf("%v: whole body released at %v, want %v", tc.shares, got, tc.want)
		}
	}
}

func TestParseShares(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Shares
	}{
		{"", Shares{}},
		{"none", Shares{}},
		{"itl=10%", Shares{ITL: 0.1}},
		{"itl=10%,ttft=5%", Shares{ITL: 0.1, TTFT: 0.05}},
		{" throughput = 0.25 , itl=0 ", Shares{Throughput: 0.25}},
		{"ttft=150%", Shares{TTFT: 1.5}},
	} {
		got, err := ParseShares(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("ParseShares(%q) = %+v, %v; want %+v", tc.text, got, err, tc.want)
		}
		if back, err := ParseShares(got.String()); err != nil || back != got {
			t.Errorf("%+v.String() = %q reads back as %+v, %v", got, got.String(), back, err)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"itl=ten%", `slowdown: itl: "ten%" is not a share`},
		{"itl=-10%", "slowdown: itl: must be >= 0, got -10%"},
		{"ttft=NaN", `slowdown: ttft: "NaN" is not a share`},
		{"throughput=", `slowdown: throughput: "" is not a share`},
		{"tpot=10%", `slowdown: unknown key "tpot", want itl, ttft or throughput`},
		{"itl", `slowdown: "itl" is not key=share`},
		{"itl=1%,itl=2%", "slowdown: itl is given twice"},
	} {
		if _, err := ParseShares(tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseShares(%q) error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestSharesString(t *testing.T) {
	if s := (Shares{ITL: 0.1, Throughput: 0.05}).String(); s != "itl=10%,throughput=5%" {
		t.Errorf("String() = %q", s)
	}
	if s := (Shares{}).String(); s != "none" {
		t.Errorf("zero String() = %q", s)
	}
}
