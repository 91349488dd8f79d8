package metrics

import (
	"strings"
	"testing"
)

// The client rules on constructed inputs, each against its threshold.
func TestJudgeClient(t *testing.T) {
	lag := func(ms float64) *Distribution { return NewDistribution([]float64{ms * 1e6}) }
	cases := []struct {
		name    string
		in      ClientInput
		limited bool
		reason  string
	}{
		{"idle client", ClientInput{CPUSeconds: 0.2, WallSeconds: 10, Cores: 2, TargetConcurrency: 8,
			Summary: &Summary{MeanConcurrency: 7.9}}, false, ""},
		{"busy CPU", ClientInput{CPUSeconds: 19, WallSeconds: 10, Cores: 2, TargetConcurrency: 8,
			Summary: &Summary{MeanConcurrency: 7.9}}, true, "the client used 95% of its 2 cores"},
		{"CPU shared with the simulator", ClientInput{CPUSeconds: 19, WallSeconds: 10, Cores: 2, SharedProcess: true,
			TargetConcurrency: 8, Summary: &Summary{MeanConcurrency: 7.9}}, false, "not judged"},
		{"closed loop short of its target", ClientInput{WallSeconds: 10, Cores: 2, TargetConcurrency: 8,
			Summary: &Summary{MeanConcurrency: 6, Completed: 80}}, true, "kept 6.0 of 8 requests in flight"},
		{"a short closed loop drains at its end", ClientInput{WallSeconds: 10, Cores: 2, TargetConcurrency: 16,
			Summary: &Summary{MeanConcurrency: 12, Completed: 20}}, false, ""},
		{"open loop behind its schedule", ClientInput{WallSeconds: 10, Cores: 2, TargetRate: 1000,
			Summary: &Summary{AchievedRequestRate: 800, ScheduleLag: lag(230)}}, true, "sent 800.0/s of 1000.0/s, p99 schedule lag 230 ms"},
		{"open loop a little short but on time", ClientInput{WallSeconds: 10, Cores: 2, TargetRate: 1000,
			Summary: &Summary{AchievedRequestRate: 900, ScheduleLag: lag(2)}}, false, ""},
		{"open loop held by its cap", ClientInput{WallSeconds: 10, Cores: 2, TargetRate: 100, MaxConcurrency: 1,
			Summary: &Summary{AchievedRequestRate: 10, ScheduleLag: lag(5000), MeanConcurrency: 1}}, false, "waited for the max_concurrency cap of 1"},
	}
	for _, c := range cases {
		v := JudgeClient(c.in)
		if v.Limited != c.limited || !strings.Contains(strings.Join(v.Reasons, "; "), c.reason) {
			t.Errorf("%s: limited %v, reasons %q; want %v with %q", c.name, v.Limited, v.Reasons, c.limited, c.reason)
		}
	}
	g := mustParseGate(t, "client_limited == 0")
	if v, err := g.Measure(&Summary{Client: &ClientVerdict{Limited: true}}); err != nil || v != 1 || g.Check(v, 0) {
		t.Errorf("client_limited gate: %v %v", v, err)
	}
}
