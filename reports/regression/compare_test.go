package regression

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/storedrun"
)

func options() comparison.Options {
	return comparison.Options{Metrics: []string{"ttft.p50", "itl.p50"}, Tolerance: 0.10, Judge: metrics.DefaultJudgeOptions()}
}

// verdicts are a report's verdicts by point and metric.
func verdicts(r *comparison.Report) map[string]metrics.Verdict {
	out := map[string]metrics.Verdict{}
	for _, p := range r.Points {
		for _, c := range p.Metrics {
			out[p.Experiment+"/"+p.Label+" "+c.Metric] = c.Verdict
		}
	}
	return out
}

// Every matched point is judged on every metric: a server 50% slower is
// a regression of TTFT and ITL at each point, the same records are no
// change, and the baseline and candidate are named by their paths.
func TestSetsJudgesEveryPair(t *testing.T) {
	base := writeRun(t, stored{"chat", "m", []float64{1, 2}, 1})
	for _, c := range []struct {
		slow float64
		want metrics.Verdict
	}{{1.5, metrics.VerdictRegression}, {1, metrics.VerdictNoChange}} {
		cand := writeRun(t, stored{"chat", "m", []float64{1, 2}, c.slow})
		r, err := Sets(load(t, base), load(t, cand), options(), false)
		if err != nil {
			t.Fatal(err)
		}
		got := verdicts(r)
		if len(got) != 4 || r.Baseline != base || r.Candidate != cand {
			t.Fatalf("slow %v: %d comparisons of %s against %s, want 2 points × 2 metrics of %s against %s", c.slow, len(got), r.Candidate, r.Baseline, cand, base)
		}
		for name, v := range got {
			if v != c.want {
				t.Errorf("slow %v: %s is %s, want %s", c.slow, name, v, c.want)
			}
		}
	}
}

// Runs of different models are not compared unless forced, and then the
// difference is a warning on the report.
func TestSetsRefusesIncomparable(t *testing.T) {
	base := load(t, writeRun(t, stored{"chat", "m", []float64{1}, 1}))
	cand := load(t, writeRun(t, stored{"chat", "other", []float64{1}, 1}))
	_, err := Sets(base, cand, options(), false)
	var inc *IncomparableError
	if !errors.As(err, &inc) || !strings.Contains(err.Error(), "other") {
		t.Fatalf("comparing models m and other: %v, want an IncomparableError naming the model", err)
	}
	r, err := Sets(base, cand, options(), true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "other") }) || len(r.Points) != 1 {
		t.Errorf("forced: warnings %q and %d points, want the model difference warned of and the point compared", r.Warnings, len(r.Points))
	}
}

// A point measured on one side only is listed, not compared.
func TestSetsListsUnmatchedPoints(t *testing.T) {
	base := load(t, writeRun(t, stored{"chat", "m", []float64{1, 2}, 1}))
	cand := load(t, writeRun(t, stored{"chat", "m", []float64{2, 4}, 1}))
	r, err := Sets(base, cand, options(), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"chat / concurrency1 (baseline only)", "chat / concurrency4 (candidate only)"}
	if len(r.Points) != 1 || r.Points[0].Label != "concurrency2" || !slices.Equal(r.Unmatched, want) {
		t.Errorf("%d points, unmatched %q; want concurrency2 compared and %q", len(r.Points), r.Unmatched, want)
	}
}

// A finished run is compared with the baseline of each experiment that
// has one, only on that experiment's points; with none there is no
// comparison at all.
func TestAgainstBaselines(t *testing.T) {
	runPath := writeRun(t, stored{"chat", "m", []float64{1}, 1.5}, stored{"solo", "m", []float64{1}, 1})
	run := load(t, runPath)
	basePath := writeRun(t, stored{"chat", "m", []float64{1}, 1}, stored{"solo", "m", []float64{1}, 1})
	r, err := AgainstBaselines(run, &Baselines{ByExperiment: map[string]*storedrun.Run{"chat": load(t, basePath)}}, options())
	if err != nil {
		t.Fatal(err)
	}
	if r == nil {
		t.Fatal("no comparison of a run whose experiment has a baseline")
	}
	if len(r.Points) != 1 || r.Points[0].Experiment != "chat" || r.Baseline != basePath {
		t.Fatalf("%d points compared with %s: want chat's one point compared with %s", len(r.Points), r.Baseline, basePath)
	}
	if r.Count(metrics.VerdictRegression) != 2 {
		t.Errorf("chat 50%% slower than its baseline: %v", verdicts(r))
	}
	if r, err := AgainstBaselines(run, &Baselines{}, options()); r != nil || err != nil {
		t.Errorf("no baseline: report %+v, error %v; want neither", r, err)
	}
}
