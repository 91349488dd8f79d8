//go:build linux

package preflight

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/builtins"
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// childEnv makes the test binary the preflight child: the tests point
// Guard.Command at it.
const childEnv = "LLMBENCH_PREFLIGHT_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// A safety net for the shared machine: were the preflight broken, the
	// scenarios below would ask this process for 16 GB; with this limit
	// (inherited by the children, which only lower it) they fail instead.
	if used, err := addressSpace(); err == nil {
		_ = lower(syscall.RLIMIT_AS, uint64(used)+2<<30)
	}
	os.Exit(m.Run())
}

// testGuard runs the test binary as the child, with a low memory limit.
func testGuard(t *testing.T) Guard {
	t.Setenv(childEnv, "1")
	return Guard{Memory: 256 << 20, CPU: time.Minute, Command: []string{os.Args[0]}}
}

func loadErr(t *testing.T, g Guard, path string) *builtins.LoadError {
	t.Helper()
	_, err := g.Load(context.Background(), path, nil, builtins.Options{})
	var le *builtins.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("%s: got %T %v, want a *builtins.LoadError", path, err, err)
	}
	return le
}

func TestMemoryLimitStopsOneHugeAllocation(t *testing.T) {
	le := loadErr(t, testGuard(t), "testdata/alloc_list.star")
	var me *MemoryLimitError
	if !errors.As(le, &me) || me.Limit != 256<<20 || le.File != "testdata/alloc_list.star" || le.Line != 0 {
		t.Fatalf("got %#v", le)
	}
	want := "testdata/alloc_list.star: the scenario needed more than 256 MiB of memory while loading (the Starlark memory limit: " +
		"raise it with --starlark-memory-limit or LLMBENCH_STARLARK_MEMORY_LIMIT, 0 turns it off)"
	if le.Error() != want || failure.ClassOf(le) != failure.Input {
		t.Errorf("got %q\nwant %q", le.Error(), want)
	}
}

func TestCPULimitStopsABuiltinThatNeverEnds(t *testing.T) {
	g := testGuard(t)
	// No memory limit: this test is about the CPU limit, and the address
	// space a loaded machine's runtime reserves could trip 256 MiB first.
	g.CPU, g.Memory = time.Second, 0
	le := loadErr(t, g, "testdata/nested_str.star")
	var ce *CPULimitError
	if !errors.As(le, &ce) || !strings.HasPrefix(le.Error(), "testdata/nested_str.star: the scenario computed for more than 1s of processor time while loading") {
		t.Errorf("got %q", le.Error())
	}
}

// A scenario that fits loads as without a preflight, its own errors
// included; its check() gets a preflight of its own, with the results.
func TestAScenarioThatFitsLoadsAndChecks(t *testing.T) {
	g := testGuard(t)
	le := loadErr(t, g, "testdata/syntax.star")
	if le.Line != 1 || !strings.Contains(le.Msg, "want ')'") {
		t.Errorf("syntax error: %+v", le)
	}
	scen, err := g.Load(context.Background(), "testdata/moderate.star", nil, builtins.Options{})
	if err != nil {
		// How the child died says whether the scenario or the machine was
		// short of memory (one clean-clone CI run failed here, once).
		var me *MemoryLimitError
		if errors.As(err, &me) {
			t.Fatalf("%v; the child died with %q", err, me.Crash)
		}
		t.Fatal(err)
	}
	err = scen.Check([]runtime.ExperimentResult{sampleResult(&scen.Experiments[0])})
	var cf *builtins.CheckFailure
	if !errors.As(err, &cf) || cf.Messages[0] != "saw 1 points, ttft.p99 100.0, 1 gate(s) passed, 1000000 items" {
		t.Errorf("check: %v", err)
	}
}

func TestCheckOverTheLimitIsAScenarioError(t *testing.T) {
	g := testGuard(t)
	scen, err := g.Load(context.Background(), "testdata/check_alloc.star", nil, builtins.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = scen.Check([]runtime.ExperimentResult{sampleResult(&scen.Experiments[0])})
	var le *builtins.LoadError
	var me *MemoryLimitError
	if !errors.As(err, &le) || !errors.As(err, &me) || !strings.HasPrefix(le.Error(), "testdata/check_alloc.star: needed more than 256 MiB of memory (") {
		t.Errorf("got %v", err)
	}
}

// check() in the child sees what it sees in the parent: points, their
// params, summaries and gates, and the capacity analysis.
func TestResultsCrossToTheChild(t *testing.T) {
	scen, err := builtins.Load("testdata/moderate.star", nil, builtins.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exp := &scen.Experiments[0]
	want := sampleResult(exp)
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(request{Check: true, Results: transferOf([]runtime.ExperimentResult{want})}); err != nil {
		t.Fatal(err)
	}
	var req request
	if err := gob.NewDecoder(&buf).Decode(&req); err != nil {
		t.Fatal(err)
	}
	got, err := results(scen, req.Results)
	if err != nil {
		t.Fatal(err)
	}
	gp, wp := got[0].Points[0], want.Points[0]
	if got[0].Experiment != exp || !reflect.DeepEqual(gp.Params, wp.Params) ||
		gp.Outcome.Summary.TimeToFirstToken.P99 != wp.Outcome.Summary.TimeToFirstToken.P99 ||
		gp.Outcome.Summary.TimeToFirstToken.Count != wp.Outcome.Summary.TimeToFirstToken.Count ||
		gp.Outcome.Summary.Errors[0] != wp.Outcome.Summary.Errors[0] || len(gp.Repeats) != 1 {
		t.Errorf("point: got %+v, want %+v", gp, wp)
	}
	if len(gp.Gates) != 1 || gp.Gates[0].Gate.Source != "ttft.p99 < 10s" || !gp.Gates[0].Passed || gp.Gates[0].Measured != wp.Gates[0].Measured {
		t.Errorf("gates: got %+v, want %+v", gp.Gates, wp.Gates)
	}
	if !reflect.DeepEqual(got[0].Capacity.Order, want.Capacity.Order) || got[0].Capacity.MaxGoodput != want.Capacity.MaxGoodput {
		t.Errorf("capacity: got %+v, want %+v", got[0].Capacity, want.Capacity)
	}
}

// sampleResult is one point of exp whose four requests took 100 ms to
// first token.
func sampleResult(exp *plan.Experiment) runtime.ExperimentResult {
	d := metrics.NewDistribution([]float64{1e8, 1e8, 1e8, 1e8})
	out := &runtime.Outcome{Summary: metrics.Summary{TimeToFirstToken: d, RequestCount: 4, Completed: 4, Failed: 1,
		Errors: []metrics.ErrorCount{{Class: "http", Status: 500, Message: "boom", Count: 1}}},
		RecordsErr: errors.New("disk full")}
	pr := runtime.PointResult{Params: plan.Params{"concurrency": 1}, Outcome: out, Repeats: []*runtime.Outcome{out}}
	pr.Gates = runtime.EvaluateGates(exp, nil, pr.Params, out)
	res := runtime.ExperimentResult{Experiment: exp, Points: []runtime.PointResult{pr}}
	res.Capacity = runtime.AnalyzeCapacity(&res, nil)
	return res
}

// A child that crashes for another reason is a failure of llmbench (exit
// 3) showing the line that says why, not the goroutine dump after it; a
// child that cannot be started leaves the scenario unbounded, not unrun.
func TestOtherChildFailures(t *testing.T) {
	g := Guard{Memory: 256 << 20, Command: []string{"sh", "-c", "cat >/dev/null; echo 'panic: boom' >&2; echo 'goroutine 1 [running]:' >&2; exit 2"}}
	_, err := g.Load(context.Background(), "testdata/moderate.star", nil, builtins.Options{})
	if failure.ClassOf(err) != failure.Run || err.Error() != "testdata/moderate.star: loading the scenario in a child process failed: panic: boom" {
		t.Errorf("crash: %v", err)
	}
	g.Command = []string{"/nonexistent/llmbench"}
	if _, err := g.Load(context.Background(), "testdata/moderate.star", nil, builtins.Options{}); err != nil {
		t.Errorf("no child: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.Command = []string{"sleep", "60"}
	if _, err := g.Load(ctx, "testdata/moderate.star", nil, builtins.Options{}); failure.ClassOf(err) != failure.Interrupted {
		t.Errorf("interrupted: %v", err)
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "512MiB": 512 << 20, "512m": 512 << 20, "2G": 2 << 30,
		"1.5GiB": 3 << 29, "2gb": 2 << 30, "0": 0, "off": 0, "1073741824": 1 << 30} {
		if got, err := ParseLimit(in); err != nil || got != want {
			t.Errorf("ParseLimit(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1GiB", "1MiB", "4 parsecs"} {
		if _, err := ParseLimit(in); err == nil {
			t.Errorf("ParseLimit(%q) accepted", in)
		}
	}
	for n, want := range map[int64]string{4 << 30: "4 GiB", 512 << 20: "512 MiB", 3 << 29: "1.5 GiB", 100: "100 bytes"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
	if d := DefaultLimit(); d < MinLimit || d > 4<<30 {
		t.Errorf("DefaultLimit() = %d", d)
	}
}
