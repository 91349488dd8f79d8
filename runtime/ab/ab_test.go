package ab

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

func experiment(t *testing.T, requests, rounds int) *plan.Experiment {
	t.Helper()
	// TTFT, not ITL: a request whose four chunks arrive in one read (one
	// arrival stamp) has an ITL of 0, which a loaded machine makes happen
	// (go test ./... failed so once), and a round of two or three requests
	// then has an itl.p50 of 0, which no ratio can be judged on: the
	// paired judging this fixture is for falls through to "not
	// comparable". A TTFT is never 0.
	gate, err := metrics.ParseGate("ttft.p50 <= baseline * 1.10")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := metrics.ParseGate("error_rate < 1%")
	if err != nil {
		t.Fatal(err)
	}
	ep := func(u string) plan.Endpoint {
		return plan.Endpoint{URL: u, Model: "m", API: transport.Chat, Stream: true, TokenCount: "auto",
			Timeout: time.Minute, IdleTimeout: transport.DefaultIdleTimeout}
	}
	return &plan.Experiment{Name: "e", Endpoint: ep("sim://?itl=1ms&ttft=1ms"),
		Dataset: dataset.Synthetic{Input: dataset.Fixed{N: 8}, Output: dataset.Fixed{N: 4}, Entries: requests},
		Load:    plan.Load{Concurrency: 2}, Requests: requests, Repeats: 1, Gates: []metrics.Gate{gate, abs},
		AB: &plan.AB{Baseline: ep("sim://?itl=1ms&ttft=1ms"), Rounds: rounds, Mode: plan.ABModeABBA}}
}

// Each side's point holds its rounds as runs, each round its share of
// the requests; side B carries the baseline gate judged paired, side A
// only the absolute gate.
func TestRunJudgesRoundsPaired(t *testing.T) {
	res, err := Run(context.Background(), experiment(t, 10, 4), runtime.Options{}, Observers{})
	if err != nil {
		t.Fatal(err)
	}
	shares := []int{2, 3, 2, 3} // 10 requests in 4 rounds, split exactly
	for s, side := range res.Sides {
		if len(side.Points) != 1 || len(side.Points[0].Repeats) != 4 {
			t.Fatalf("side %s: %d points; want one of 4 rounds", engine.Side(s), len(side.Points))
		}
		for i, out := range side.Points[0].Repeats {
			if out.Summary.Completed != shares[i] {
				t.Errorf("side %s round %d: %d requests, want %d", engine.Side(s), i, out.Summary.Completed, shares[i])
			}
		}
	}
	a, b := res.Sides[engine.SideA].Points[0].Gates, res.Sides[engine.SideB].Points[0].Gates
	if len(a) != 1 || a[0].Gate.Baseline {
		t.Errorf("side a gates %v; want the absolute gate alone", a)
	}
	if len(b) != 2 || b[0].Comparison == nil || b[0].Comparison.Interval.Method != metrics.MethodPairedRounds || b[0].Comparison.BaselineRuns != 4 {
		t.Errorf("side b's baseline gate: %+v; want judged by paired-rounds over 4 rounds", b[0])
	}
}

// A side that is down stops the run before anything is sent, naming it.
func TestRunNamesTheSideThatIsDown(t *testing.T) {
	e := experiment(t, 4, 2)
	e.AB.Baseline.URL = "http://127.0.0.1:1"
	res, err := Run(context.Background(), e, runtime.Options{}, Observers{})
	if err == nil || !strings.Contains(err.Error(), "side a, the baseline (ab=, --baseline-url) http://127.0.0.1:1") || res != nil {
		t.Errorf("got %v, %v; want no result and an error naming side a", res, err)
	}
}

// Duet runs both sides' rounds at once; the same results come back
// (run with -race, it also shows the two sides share nothing unguarded).
func TestRunDuet(t *testing.T) {
	e := experiment(t, 8, 2)
	e.AB.Mode = plan.ABModeDuet
	res, err := Run(context.Background(), e, runtime.Options{}, Observers{})
	if err != nil {
		t.Fatal(err)
	}
	for s, side := range res.Sides {
		if n := len(side.Points[0].Repeats); n != 2 || side.Points[0].Repeats[1].Summary.Completed != 4 {
			t.Errorf("side %s: %d rounds; want 2 of 4 requests", engine.Side(s), n)
		}
	}
}
