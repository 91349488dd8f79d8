package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/reports/comparison"
)

// oneJudgeScenario has three baseline gates on one point: the family
// the run's gates, its compare.json and `llmbench compare` all judge.
const oneJudgeScenario = `
def main(ctx):
    return experiment(
        name = "chat",
        endpoint = sim(ttft = ctx.vars.get("ttft", "20ms"), itl = ctx.vars.get("itl", "2ms"), jitter = 0.05,
                       seed = int(ctx.vars.get("seed", "1"))),
        dataset = synthetic(input_tokens = fixed(32), output_tokens = fixed(12)),
        traffic = concurrency(4),
        requests = 240,
        gates = ["ttft.p99 <= baseline * 1.10", "itl.p50 <= baseline * 1.10",
                 "output_token_throughput >= baseline * 0.90"],
    )
`

// TestOneJudge: on several pairs (the same server, a slower TTFT, a
// slower ITL), each baseline gate's verdict and numbers in gates.json are
// those of the same metric in the run's compare.json and in `llmbench
// compare BASE CAND`: one function judged them with the same inputs.
// The default metrics the gates leave out are there too, labelled
// informational, and fail nothing.
func TestOneJudge(t *testing.T) {
	t.Parallel()
	dir, _ := writeScenario(t, oneJudgeScenario)
	if r := runCLI(t, dir, "run", "s.star", "--out", "base", "--no-plots", "--allow-missing-baseline"); r.code != 0 {
		t.Fatalf("baseline: exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range []struct{ name, set string }{{"same", "seed=2"}, {"slowttft", "ttft=60ms"}, {"slowitl", "itl=4ms"}} {
		r := runCLI(t, dir, "run", "s.star", "-D", c.set, "--out", c.name, "--no-plots", "--baseline", "base", "--allow-weak-gates")
		if r.code > 1 {
			t.Fatalf("%s: exit %d\n%s", c.name, r.code, r.stderr)
		}
		inRun := readComparison(t, filepath.Join(dir, c.name, "compare.json"))
		cmp := runCLI(t, dir, "compare", "base", c.name, "--json", filepath.Join(dir, c.name+".compare.json"))
		if cmp.code != r.code {
			t.Errorf("%s: run exited %d, compare %d\n%s%s", c.name, r.code, cmp.code, cmp.stdout, cmp.stderr)
		}
		standalone := readComparison(t, filepath.Join(dir, c.name+".compare.json"))
		for _, v := range readVerdicts(t, filepath.Join(dir, c.name)) {
			if v.Comparison == nil {
				continue
			}
			metric := strings.Fields(v.Gate)[0]
			for _, f := range []map[string]comparison.FileMetric{inRun, standalone} {
				m, ok := f[metric]
				got := fmt.Sprintf("%s %.9f", m.Verdict, float64(m.Change))
				want := fmt.Sprintf("%s %.9f", v.Comparison.Verdict, v.Comparison.Change)
				if !ok || got != want || m.Informational {
					t.Errorf("%s %s: gates.json says %s, a comparison %s (informational %v)", c.name, metric, want, got, m.Informational)
				}
			}
		}
		if m, ok := inRun["ttft.p50"]; !ok || !m.Informational {
			t.Errorf("%s: ttft.p50 is not shown as informational: %+v", c.name, m)
		}
		t.Logf("%s: exit %d", c.name, r.code)
	}
}

// readComparison is compare.json's metrics of its one point, by name.
func readComparison(t *testing.T, path string) map[string]comparison.FileMetric {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := comparison.ReadJSON(bytes.NewReader(b))
	if err != nil || len(f.Points) != 1 {
		t.Fatalf("%s (%v): %s", path, err, b)
	}
	out := map[string]comparison.FileMetric{}
	for _, m := range f.Points[0].Metrics {
		out[m.Metric] = m
	}
	return out
}
