package gpflags

import (
	"strings"
	"testing"
	"time"
)

// --telemetry-interval takes 0 and off to scrape nothing (it refused
// both before issue 28 item 5), and still refuses a typo and an interval
// that would hammer the server.
func TestTelemetryIntervalOff(t *testing.T) {
	for in, want := range map[string]time.Duration{"off": -1, "OFF": -1, "0": -1, "0s": -1, "333ms": 333 * time.Millisecond, "2s": 2 * time.Second} {
		f := Telemetry{TelemetryInterval: in}
		if err := f.Check(); err != nil || f.Interval() != want {
			t.Errorf("%q: %v, %v; want %v", in, f.Interval(), err, want)
		}
	}
	for in, msg := range map[string]string{"5ms": "want 10ms or more, or 0 or off", "fast": `got "fast"`, "-1s": "want 10ms or more"} {
		f := Telemetry{TelemetryInterval: in}
		if err := f.Check(); err == nil || !strings.Contains(err.Error(), "--telemetry-interval") || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v; want an error naming the flag with %q", in, err, msg)
		}
	}
}
