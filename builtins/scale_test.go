package builtins

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manyExperiments is a scenario of n experiments named e0..e(n-1), and
// one more named dup when dup is not "".
func manyExperiments(n int, dup string) string {
	extra := ""
	if dup != "" {
		extra = fmt.Sprintf(` + [experiment(name=%q, endpoint=ep, dataset=ds, traffic=concurrency(1), requests=5)]`, dup)
	}
	return fmt.Sprintf(`
def main(ctx):
    ep = endpoint(url="sim://", model="m")
    ds = synthetic(input_tokens=fixed(10))
    return [experiment(name="e%%d" %% i, endpoint=ep, dataset=ds, traffic=concurrency(1), requests=5) for i in range(%d)]%s
`, n, extra)
}

// TestDuplicateNameAmongManyExperiments: names are checked against a set
// of those seen (a scan of every earlier experiment made `check` of 100k
// experiments quadratic: killed after 300 s); the duplicate is still
// named, at the experiment() that repeats it.
func TestDuplicateNameAmongManyExperiments(t *testing.T) {
	path := writeScenario(t, "many.star", manyExperiments(5000, "e4321"))
	le := loadErr(t, path, Options{})
	if !strings.Contains(le.Msg, `two experiments are named "e4321"`) || le.Line != 5 || le.Col < 100 {
		t.Errorf("got %d:%d %q, want 5:136 (the last experiment()): two experiments are named \"e4321\"", le.Line, le.Col, le.Msg)
	}
	scen, err := Load(writeScenario(t, "many.star", manyExperiments(5000, "")), nil, Options{})
	if err != nil || len(scen.Experiments) != 5000 {
		t.Fatalf("got %v, want 5000 experiments", err)
	}
}

// BenchmarkLoadManyExperiments holds `check`'s cost per experiment: run
// with -bench LoadMany, ns/experiment stays flat from 1k to 16k
// experiments (it grew fourfold with every doubling before).
func BenchmarkLoadManyExperiments(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "many.star")
			if err := os.WriteFile(path, []byte(manyExperiments(n, "")), 0o644); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Load(path, nil, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/experiment")
		})
	}
}
