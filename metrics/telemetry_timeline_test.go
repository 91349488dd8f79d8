package metrics

import (
	"math"
	"slices"
	"testing"
)

// TestTimeline: vllmGauges' running, waiting and KV-cache sums per scrape
// (3, 5, 7; 1, 3, 4; 80, 60, 70 %), and two GPUs' total power at each of
// four scrapes, whose values inside a window are the ones the summary's
// distribution was computed from.
func TestTimeline(t *testing.T) {
	samples := vllmGauges("v:8000")
	for i, w := range []float64{100, 110, 120, 130} {
		at := float64(i)
		samples = append(samples, dcgm(at, "d:9400", "0", "DCGM_FI_DEV_POWER_USAGE", w),
			dcgm(at, "d:9400", "1", "DCGM_FI_DEV_POWER_USAGE", w+100))
	}
	tl := TimelineOf(samples)
	check := func(what string, got []TimedValue, at, want []float64) {
		t.Helper()
		var gotAt, gotV []float64
		for _, v := range got {
			gotAt, gotV = append(gotAt, float64(v.Time)/1e9), append(gotV, v.Value)
		}
		if !slices.Equal(gotAt, at) || !slices.EqualFunc(gotV, want, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }) {
			t.Errorf("%s at %v = %v, want %v at %v", what, gotAt, gotV, want, at)
		}
	}
	check("running", tl.Running, []float64{1, 2, 3}, []float64{3, 5, 7})
	check("waiting", tl.Waiting, []float64{1, 2, 3}, []float64{1, 3, 4})
	check("kv cache", tl.KVCacheUsage, []float64{1, 2, 3}, []float64{80, 60, 70})
	check("power", tl.Power, []float64{0, 1, 2, 3}, []float64{300, 320, 340, 360})
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(2.5)})
	if s.Power == nil || s.Power.Count != 2 || s.Power.Avg != 330 {
		t.Errorf("summary power %+v, want the timeline's 320 and 340 W", s.Power)
	}
	if empty := TimelineOf(nil); empty.Power != nil || empty.Running != nil || empty.KVCacheUsage != nil {
		t.Errorf("no samples gave %+v", empty)
	}
}
