package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// A gate "@ component=NAME" is judged on that dataset component alone,
// alone or with a point; check() reads p.components[NAME]; the verdict
// files name the component; a component the mix lacks is a load error.
func TestComponentGates(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
target = endpoint(url = "sim://?itl=1ms&ttft=2ms", model = "m")
short = synthetic(input_tokens = fixed(10), output_tokens = fixed(5), name = "short")
long = synthetic(input_tokens = fixed(100), output_tokens = fixed(5), name = "long")

def main(ctx):
    return experiment(name = "e", endpoint = target, dataset = mix([short, long]), traffic = concurrency(2),
                      requests = 20, sweep = sweep(concurrency = [1, 2]),
                      gates = ["osl.avg == 5 @ component=short", "isl.avg < 20 @ concurrency=2, component=long"])

def check(results):
    p = results["e"].points[0]
    if p.components["short"].osl.avg != 5 or p.components["long"].completed < 1:
        fail("components: %s" % p.components)
`)
	junit, md := filepath.Join(dir, "gates.xml"), filepath.Join(dir, "summary.md")
	r := runCLI(t, dir, "run", file, "--no-plots", "--junit", junit, "--summary-md", md)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the long component's ISL gate fails)\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"✓ osl.avg == 5 @ component=short [e/concurrency1]",
		"✓ osl.avg == 5 @ component=short [e/concurrency2]",
		"✗ isl.avg < 20 @ concurrency=2, component=long [e/concurrency2]",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("console lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "check()") && strings.Contains(r.stdout, "✗ check()") {
		t.Errorf("check() failed:\n%s", r.stdout)
	}
	for _, f := range []string{junit, md, filepath.Join(dir, "out", "gates.json")} {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), "component=long") {
			t.Errorf("%s does not name the component gate: %v\n%s", f, err, b)
		}
	}

	_, bad := writeScenario(t, `
target = endpoint(url = "sim://", model = "m")
def main(ctx):
    return experiment(name = "e", endpoint = target, traffic = concurrency(1), requests = 2,
        dataset = mix([synthetic(10, 5, name = "a"), synthetic(10, 5, name = "b")]),
        gates = ["ttft.p99 < 1s @ component=c"])
`)
	r = runCLI(t, dir, "check", bad)
	if r.code != 2 || !strings.Contains(r.stderr, `s.star:6:9: experiment: for parameter gates: gate "ttft.p99 < 1s @ component=c" judges component "c", but the mix has "a", "b"`) {
		t.Errorf("unknown component: exit %d, stderr %q", r.code, r.stderr)
	}
}

// componentPlan is a mix of two components, short and long prompts,
// with a baseline gate on the short ones' ITL, comparing with base.
func componentPlan(t *testing.T, base string) plan.Experiment {
	e := storedruntest.Chat("e", 160)
	e.Load.Concurrency, e.Baseline = 4, base
	e.Dataset = plan.Described(`mix([synthetic(input_tokens = fixed(10), output_tokens = fixed(8), name = "short"), ` +
		`synthetic(input_tokens = fixed(100), output_tokens = fixed(8), name = "long")])`)
	e.Gates = storedruntest.Gates(t, "itl.p50 <= baseline * 1.10 @ component=short")
	return e
}

// componentRecords are n requests of each component whose tokens come
// itl apart, the long ones after the short ones.
func componentRecords(n int, itl time.Duration) []metrics.Record {
	short := storedruntest.Make(n, storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: itl, ISL: 10, Component: "short"})
	long := storedruntest.Make(n, storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: itl, ISL: 100, Component: "long",
		Start: time.Unix(0, short[n-1].Done).Add(time.Millisecond)})
	recs := append(short, long...)
	for i := range recs {
		recs[i].ID, recs[i].Entry = int64(i), i
	}
	return recs
}

// Per-component comparisons, exactly (runs written by storedruntest,
// every token gap planned): a baseline gate "@ component=NAME", judged by
// merge as run judges it, and compare --metrics METRIC@component=NAME
// judge one component of a mix, 50% slower per token; a component the
// runs lack is named.
func TestComponentComparisons(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := storedruntest.Run(t, filepath.Join(dir, "base"), "s.star", componentPlan(t, ""), storedruntest.Same(componentRecords(80, 4*time.Millisecond)))
	var shards []string
	for i := range 2 {
		shards = append(shards, storedruntest.Shard(t, filepath.Join(dir, "shards", fmt.Sprint(i)), "s.star", componentPlan(t, base),
			engine.Shard{Index: i, Count: 2}, storedruntest.Same(componentRecords(40, 6*time.Millisecond))))
	}
	r := runCLI(t, dir, append(append([]string{"merge"}, shards...), "--out", "slow")...)
	if r.code != 1 || !strings.Contains(r.stdout, "✗ itl.p50 <= baseline * 1.10 @ component=short [e/concurrency4]: itl.p50 = 6.00 ms vs baseline 4.00 ms: +50.0%") {
		t.Errorf("50%% slower: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, dir, "compare", "base", "slow", "--metrics", "itl.p50@component=long,ttft.p50@component=short")
	if r.code != 1 || !strings.Contains(r.stdout, "itl.p50@component=long") || !strings.Contains(r.stderr, "itl.p50@component=long +50.0%") {
		t.Errorf("compare per component: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range []struct{ metrics, want string }{
		{"itl.p50@component=chat", `has no requests of dataset component "chat" (it has long, short)`},
		{"itl.p50@chat", "want METRIC[.STAT] or METRIC[.STAT]@component=NAME"},
	} {
		if r := runCLI(t, dir, "compare", "base", "slow", "--metrics", c.metrics); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("--metrics %s: exit %d\n%s", c.metrics, r.code, r.stderr)
		}
	}
}
