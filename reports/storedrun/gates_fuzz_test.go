package storedrun

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/verdict"
)

// FuzzReadGates feeds the gates.json reader (report and compare read a
// run's verdicts and the gates they judged back from it) arbitrary bytes,
// seeded with what verdict.JSON writes. It returns an error naming
// the file, or verdicts whose gates parse, each once per experiment, and
// which, written again, read back the same.
func FuzzReadGates(f *testing.F) {
	m := 12.5
	for _, r := range []*verdict.Report{
		{Verdicts: []verdict.Verdict{{Experiment: "e", Point: "concurrency8", Gate: "p99(ttft) < 500ms", Passed: true, Measured: &m, Message: "12.5 ms < 500 ms"},
			{Experiment: "e", Point: "concurrency8", Gate: "error_rate < 1%", Message: "not measured"},
			{Experiment: "e", Gate: verdict.CheckGate, Passed: true}}, Check: verdict.CheckPassed},
		{Verdicts: []verdict.Verdict{{Experiment: "e", Point: "p", Gate: "mean(itl) vs baseline < +5%", Baseline: &m, Warning: "inconclusive",
			Comparison: &verdict.GateComparison{Change: 0.02, Interval: verdict.Interval{-0.01, verdict.Bound(math.Inf(1))}, Confidence: 0.95,
				Method: "bootstrap", Verdict: "inconclusive"}}}, Partial: true},
		{},
	} {
		var b bytes.Buffer
		if err := verdict.JSON(r)(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	for _, s := range []string{"", "null", "{}", `{"verdicts":null}`, `{"verdicts":[{"gate":"p99(ttft) <"}]}`, `{"verdicts":[{"comparison":{"interval":[null,null]}}]}`,
		`{"verdicts":[{"comparison":{"interval":[1]}}]}`, `{"verdicts":[{"measured":1e400}]}`, `{"verdicts":[{}]}`} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, GatesFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		doc, err := ReadVerdicts(dir)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name %s", err, path)
			}
			return
		}
		checkGates(t, doc.Verdicts)
		var b bytes.Buffer
		if err := verdict.JSON(&verdict.Report{Verdicts: doc.Verdicts, Partial: doc.Partial, Check: doc.Check})(&b); err != nil {
			t.Fatalf("verdicts read back do not write: %v", err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := ReadVerdicts(dir)
		if doc.Check == "" {
			doc.Check = verdict.CheckNotDefined // what verdict.JSON writes for none
		}
		if err != nil || !reflect.DeepEqual(again, doc) && !(len(again.Verdicts) == 0 && len(doc.Verdicts) == 0) {
			t.Fatalf("read %+v, written again and read back as %+v, %v", doc, again, err)
		}
	})
}

// checkGates checks what GatesOf makes of verdicts: an error naming a
// gate, or every gate but check()'s, parsed, once per experiment.
func checkGates(t *testing.T, vs []verdict.Verdict) {
	t.Helper()
	gates, err := GatesOf(vs)
	if err != nil {
		if !strings.Contains(err.Error(), "gate ") {
			t.Fatalf("GatesOf: %v: want an error naming the gate", err)
		}
		return
	}
	want := map[string]map[string]bool{}
	for _, v := range vs {
		if v.Gate != verdict.CheckGate {
			if want[v.Experiment] == nil {
				want[v.Experiment] = map[string]bool{}
			}
			want[v.Experiment][v.Gate] = true
		}
	}
	for exp, gs := range gates {
		if len(gs) != len(want[exp]) {
			t.Fatalf("experiment %q: %d gates from %d distinct", exp, len(gs), len(want[exp]))
		}
		for _, g := range gs {
			if _, err := metrics.ParseStoredGate(g.Source); err != nil || !want[exp][g.Source] {
				t.Fatalf("experiment %q: gate %q (%v)", exp, g.Source, err)
			}
		}
	}
}
