package builtins

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
)

// writeScenario writes files into a fresh folder and returns the path of
// the first, the scenario.
func writeScenario(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, files[0])
}

// loadErr loads a scenario that must fail with a *LoadError.
func loadErr(t *testing.T, path string, opts Options) *LoadError {
	t.Helper()
	_, err := Load(path, nil, opts)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("got %T %v, want *LoadError", err, err)
	}
	return le
}

const minimal = `
def main(ctx):
    return experiment("x", sim(), synthetic(10, 10), concurrency(1), requests = 5)
`

func TestLoadErrorPrintsPositionThenBacktrace(t *testing.T) {
	path := writeScenario(t, "scenario.star", `
def build(n):
    return experiment("x", sim(), synthetic(1), concurrency(1),
        requests = n)

def main(ctx):
    return build("many")
`)
	le := loadErr(t, path, Options{})
	want := path + `:4:9: experiment: for parameter requests: got "many", want an int >= 1 or "auto"
Traceback (most recent call last):
  ` + path + `:7:17: in main
  ` + path + `:3:22: in build`
	if le.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", le.Error(), want)
	}
	if le.File != path || le.Line != 4 || le.Col != 9 || le.Msg != `experiment: for parameter requests: got "many", want an int >= 1 or "auto"` {
		t.Errorf("fields: %+v", le)
	}
}

func TestSyntaxAndResolveErrors(t *testing.T) {
	le := loadErr(t, writeScenario(t, "s.star", "def main(ctx:\n    pass\n"), Options{})
	if le.Line != 1 || !strings.Contains(le.Msg, "want ')'") || le.Backtrace != "" {
		t.Errorf("syntax error: %+v", le)
	}
	le = loadErr(t, writeScenario(t, "s.star", "x = enpoint\ny = concurency(1)\n"), Options{})
	// Every undefined name at once, each with its position and the builtin meant.
	if le.Line != 1 || le.Col != 5 || !strings.HasPrefix(le.Msg, "undefined: enpoint (did you mean endpoint?)\n") ||
		!strings.HasSuffix(le.Msg, "s.star:2:5: undefined: concurency (did you mean concurrency?)") {
		t.Errorf("resolve error: %+v", le)
	}
}

func TestMissingOrBrokenMainAndCheck(t *testing.T) {
	for src, want := range map[string]string{
		"x = 1":                        "no main(ctx) function",
		"main = 1":                     "main: got int, want a function main(ctx)",
		minimal + "check = 1":          "check: got int, want a function check(results)",
		"def main():\n    return None": "function main accepts no arguments (1 given)",
	} {
		le := loadErr(t, writeScenario(t, "s.star", src), Options{})
		if !strings.Contains(le.Msg, want) {
			t.Errorf("%q: got %q, want %q", src, le.Msg, want)
		}
	}
}

func TestUnreadableScenarioIsAnOSError(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "missing.star"), nil, Options{})
	var le *LoadError
	if !errors.Is(err, fs.ErrNotExist) || errors.As(err, &le) {
		t.Errorf("got %v", err)
	}
}

func TestStepLimitStopsRunawayScripts(t *testing.T) {
	path := writeScenario(t, "s.star", "def main(ctx):\n    while True:\n        pass\n")
	le := loadErr(t, path, Options{MaxSteps: 10_000})
	if le.Msg != "too many steps: the scenario ran more than 10000 Starlark steps (a loop or recursion that never ends?)" ||
		!strings.Contains(le.Backtrace, "in main") {
		t.Errorf("got %+v", le)
	}
	// The default limit still lets a real scenario build a large plan.
	big := writeScenario(t, "s.star", `
def main(ctx):
    return [experiment("e%d" % i, sim(), synthetic(100, 10), concurrency(1), sweep = sweep(concurrency = pow2(1, 1024)))
            for i in range(200)]
`)
	if _, err := Load(big, nil, Options{}); err != nil {
		t.Fatal(err)
	}
}

// A runaway recursion stops at a limit with a message of a few lines: the
// traceback keeps its first and last frames and says how many it left out.
func TestDeepRecursionTracebackIsCut(t *testing.T) {
	path := writeScenario(t, "s.star", "def f(n):\n    return f(n + 1)\n\ndef main(ctx):\n    return f(0)\n")
	le := loadErr(t, path, Options{MaxSteps: 30_000})
	lines := strings.Split(le.Error(), "\n")
	if len(lines) != 13 || !strings.HasPrefix(le.Msg, "too many steps") || !strings.HasPrefix(lines[0], path+":2:") {
		t.Fatalf("got %d lines:\n%s", len(lines), le.Error())
	}
	omitted := lines[7]
	if !strings.HasPrefix(omitted, "  … ") || !strings.HasSuffix(omitted, " frames omitted …") ||
		lines[2] != "  "+path+":5:13: in main" || !strings.HasSuffix(lines[12], ": in f") {
		t.Errorf("traceback:\n%s", le.Error())
	}
	// A short stack is shown whole.
	short := writeScenario(t, "s.star", "def f(n):\n    return f(n - 1) if n else fail(\"bottom\")\n\ndef main(ctx):\n    return f(9)\n")
	if le := loadErr(t, short, Options{}); strings.Contains(le.Backtrace, "omitted") || strings.Count(le.Backtrace, "in f") != 10 {
		t.Errorf("short stack:\n%s", le.Error())
	}
}

func TestCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := writeScenario(t, "s.star", "def main(ctx):\n    while True:\n        pass\n")
	le := loadErr(t, path, Options{Context: ctx})
	if !strings.Contains(le.Msg, "context canceled") {
		t.Errorf("got %+v", le)
	}
}

func TestPrintGoesToTheLogWithPosition(t *testing.T) {
	var got []string
	path := writeScenario(t, "s.star", `print("loading", 1)`+minimal)
	_, err := Load(path, nil, Options{Print: func(pos, msg string) { got = append(got, pos+" "+msg) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != path+":1:6 loading 1" {
		t.Errorf("got %q", got)
	}
}

func TestEnvReadsTheProcessEnvironmentByDefault(t *testing.T) {
	t.Setenv("LLMBENCH_TEST_URL", "http://example:8000")
	path := writeScenario(t, "s.star", `
def main(ctx):
    return experiment("x", endpoint(env("LLMBENCH_TEST_URL"), "m"), synthetic(1), concurrency(1))
`)
	scen, err := Load(path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := scen.Experiments[0].Endpoint.URL; got != "http://example:8000" {
		t.Errorf("url %q", got)
	}
}

// A symbolic link inside the folder that leads out of it is refused, for
// loads and data files alike.
func TestSymlinkEscapesAreRefused(t *testing.T) {
	outside := writeScenario(t, "secret.star", "X = 1\n")
	path := writeScenario(t, "s.star", `load("link.star", "X")`+minimal)
	if err := os.Symlink(outside, filepath.Join(filepath.Dir(path), "link.star")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	le := loadErr(t, path, Options{})
	if !strings.Contains(le.Msg, "cannot load link.star") || !strings.Contains(le.Msg, "escapes") {
		t.Errorf("got %+v", le)
	}
	data := writeScenario(t, "s.star", `jsonl("link.jsonl")`+minimal)
	if err := os.Symlink(outside, filepath.Join(filepath.Dir(data), "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if le := loadErr(t, data, Options{}); !strings.Contains(le.Msg, "escapes") {
		t.Errorf("got %+v", le)
	}
}

// An absolute path given with -D may be loaded; any other may not.
func TestAbsolutePathsFromTheCommandLine(t *testing.T) {
	lib := writeScenario(t, "lib.star", "N = 7\n")
	path := writeScenario(t, "s.star", `
def main(ctx):
    return experiment("x", sim(), synthetic(1), concurrency(ctx.vars["n"] and N))
`)
	src := "load(\"" + lib + "\", \"N\")\n"
	if err := os.WriteFile(path, append([]byte(src), mustRead(t, path)...), 0o644); err != nil {
		t.Fatal(err)
	}
	scen, err := Load(path, map[string]string{"n": "1", "lib": lib}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if scen.Experiments[0].Load.Concurrency != 7 {
		t.Errorf("load %+v", scen.Experiments[0].Load)
	}
	if le := loadErr(t, path, Options{}); !strings.Contains(le.Msg, "outside the scenario's folder") {
		t.Errorf("without -D: %+v", le)
	}
}

// A path read with env() comes from outside the file too, so it may be
// absolute; the same path written in the file may not.
func TestAbsolutePathsFromTheEnvironment(t *testing.T) {
	data := writeScenario(t, "prompts.jsonl", `{"text": "hello there"}`+"\n")
	path := writeScenario(t, "s.star", `
def main(ctx):
    return experiment("x", sim(), jsonl(env("PROMPTS")), concurrency(1))
`)
	env := func(name string) (string, bool) { return map[string]string{"PROMPTS": data}[name], name == "PROMPTS" }
	if _, err := Load(path, nil, Options{LookupEnv: env}); err != nil {
		t.Errorf("absolute path from env(): %v", err)
	}
	literal := writeScenario(t, "s.star", "def main(ctx):\n    return experiment(\"x\", sim(), jsonl(\""+data+"\"), concurrency(1))\n")
	if le := loadErr(t, literal, Options{}); !strings.Contains(le.Msg, "outside the scenario's folder") {
		t.Errorf("absolute path literal: %+v", le)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A malformed gate points at the offending character of its literal, and
// the *metrics.GateError is reachable for a caller that wants its parts.
func TestMalformedGatePointsIntoTheLiteral(t *testing.T) {
	path := writeScenario(t, "s.star", `
def main(ctx):
    return experiment("x", sim(), synthetic(1), concurrency(1),
                      gates = ["error_rate < 1%", "ttft.p99 < 500 ms @ concurrency=1", "ttft.p99 ~ 5"])
`)
	le := loadErr(t, path, Options{})
	var ge *metrics.GateError
	if !errors.As(le, &ge) {
		t.Fatalf("no GateError in %v", le)
	}
	// `"ttft.p99 ~ 5"` starts at column 88; the "~" is its 10th byte.
	if ge.Gate != "ttft.p99 ~ 5" || le.Line != 4 || le.Col != 88+ge.Col {
		t.Errorf("gate error %+v at %d:%d", ge, le.Line, le.Col)
	}
	if !strings.HasPrefix(le.Msg, `experiment: for parameter gates: gate "ttft.p99 ~ 5": col 10: `) {
		t.Errorf("msg %q", le.Msg)
	}
}

// A computed gate has no literal: the error points at the gates keyword.
func TestComputedGatePointsAtTheKeyword(t *testing.T) {
	path := writeScenario(t, "s.star", `
def main(ctx):
    return experiment("x", sim(), synthetic(1), concurrency(1), gates = ["ttft.p99 < " + "soon"])
`)
	le := loadErr(t, path, Options{})
	if le.Line != 3 || le.Col != 65 {
		t.Errorf("at %d:%d: %s", le.Line, le.Col, le.Msg)
	}
}

// Two scenarios can load at once: all state is per load.
func TestConcurrentLoads(t *testing.T) {
	path := writeScenario(t, "s.star", `load("@llmbench//presets.star", "presets")`+minimal)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := Load(path, nil, Options{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// experiment() takes its load pattern as traffic: scenario files are plain
// Starlark, and a file still written with `load = ...` (a reserved word)
// gets the parser's position and a message naming traffic.
func TestTrafficParameterAndLegacyLoadHint(t *testing.T) {
	path := writeScenario(t, "s.star", "def main(ctx):\n    return experiment('x', sim(), synthetic(1), traffic = 3)\n")
	le := loadErr(t, path, Options{})
	if le.Msg != "experiment: for parameter traffic: got int, want traffic" || le.Line != 2 || le.Col != 49 {
		t.Errorf("got %d:%d %q", le.Line, le.Col, le.Msg)
	}
	path = writeScenario(t, "s.star", "def main(ctx):\n    return experiment('x', sim(), synthetic(1),\n        load = concurrency(1))\n")
	le = loadErr(t, path, Options{})
	if le.Line != 3 || le.Col != 9 || !strings.Contains(le.Msg, "named traffic") || !strings.Contains(le.Msg, "write traffic = ") {
		t.Errorf("got %d:%d %q", le.Line, le.Col, le.Msg)
	}
}

// File datasets become the runtime's real sources, read relative to the
// scenario's folder, and replay() a runtime.Load with a replay speed: a
// load builds the trace's entries with their timestamps, and the
// experiment replays its whole trace unless told otherwise.
func TestFileDatasetsAndReplayPlan(t *testing.T) {
	path := writeScenario(t, "s.star", `
def main(ctx):
    return [experiment("j", sim(), jsonl("d/p.jsonl"), concurrency(1)),
            experiment("s", sim(), sharegpt("d/s.json"), concurrency(1)),
            experiment("r", sim(), trace("d/t.jsonl"), replay(speed = 2)),
            experiment("m", sim(), mix([jsonl("d/p.jsonl"), trace("d/t.jsonl")]), concurrency(1), requests = 6)]
`, "d/p.jsonl", `{"text": "a b c", "output_length": 4}`+"\n"+`{"text_input": "d e"}`+"\n",
		"d/s.json", `[{"conversations": [{"from": "human", "value": "hi there"}, {"from": "gpt", "value": "hello you all"}]},
 {"conversations": [{"from": "human", "value": "alone"}]}]`,
		"d/t.jsonl", `{"timestamp": 0, "input_length": 600, "output_length": 8, "hash_ids": [1, 2]}`+"\n"+
			`{"timestamp": 250, "input_length": 512, "output_length": 9, "hash_ids": [1]}`+"\n")
	scen, err := Load(path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	want := []struct {
		src  dataset.Source
		desc string
		n    int
	}{
		{dataset.JSONL{Path: filepath.Join(dir, "d/p.jsonl"), Shown: "d/p.jsonl"}, `jsonl("d/p.jsonl")`, 2},
		{dataset.ShareGPT{Path: filepath.Join(dir, "d/s.json"), Shown: "d/s.json"}, `sharegpt("d/s.json")`, 1},
		{dataset.Trace{Path: filepath.Join(dir, "d/t.jsonl"), Shown: "d/t.jsonl", Format: "mooncake"}, `trace("d/t.jsonl", format="mooncake")`, 2},
	}
	for i, w := range want {
		e := scen.Experiments[i]
		if e.Dataset != w.src || e.Dataset.String() != w.desc {
			t.Errorf("%s: dataset %#v (%s), want %#v", e.Name, e.Dataset, e.Dataset, w.src)
		}
		entries, err := e.Dataset.Build(0)
		if err != nil || len(entries) != w.n {
			t.Errorf("%s: Build = %d entries, %v; want %d", e.Name, len(entries), err, w.n)
		}
	}
	r := scen.Experiments[2]
	if r.Load != (plan.Load{ReplaySpeed: 2}) || r.Requests != 0 || r.Duration != 0 {
		t.Errorf("replay planned as %+v, requests %d, duration %v; want ReplaySpeed 2 and the whole trace", r.Load, r.Requests, r.Duration)
	}
	entries, _ := r.Dataset.Build(0)
	if entries[1].At != 250*time.Millisecond || entries[1].Words != 512 || entries[1].MaxTokens != 9 ||
		!strings.HasPrefix(entries[0].Text, entries[1].Text) {
		t.Errorf("trace entries %+v", entries)
	}
	mixed, err := scen.Experiments[3].Dataset.Build(6)
	if err != nil || len(mixed) != 6 {
		t.Errorf("mix of files: %d entries, %v", len(mixed), err)
	}
}

// A malformed dataset file is a load error at the dataset's call, naming
// the data file's line and field.
func TestBadDatasetFileFailsAtLoad(t *testing.T) {
	path := writeScenario(t, "s.star", "def main(ctx):\n    return experiment('x', sim(), trace('t.jsonl'), replay())\n",
		"t.jsonl", `{"timestamp": 0, "input_length": 10}`+"\n\n"+`{"timestamp": 5, "input_length": "10"}`+"\n")
	le := loadErr(t, path, Options{})
	want := "trace: " + filepath.Join(filepath.Dir(path), "t.jsonl") + `:3: input_length: got string "10", want an integer >= 0`
	if le.Msg != want || le.Line != 2 {
		t.Errorf("got line %d %q\nwant line 2 %q", le.Line, le.Msg, want)
	}
}
