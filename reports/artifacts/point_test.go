package artifacts

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/internal/golden"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// pointFixture is a measured point with two dataset components, two
// replicas, the client's CPU share, and an interrupt, and its run
// description.
func pointFixture() (plan.Params, *runtime.Outcome) {
	params := plan.Params{metrics.ParamConcurrency: 1}
	out := outcome(streamed(30))
	share := 0.25
	out.Summary.Client = &metrics.ClientVerdict{CPUShare: &share, Cores: 2}
	for i, url := range []string{"http://a:8000", "http://b:8000"} {
		out.Replicas = append(out.Replicas, runtime.ReplicaSummary{Index: i, URL: url, Summary: out.Components[i].Summary})
	}
	out.Interrupted = true
	out.Counting = runtime.Counting{Mode: runtime.ByUsage}
	return params, out
}

// A point's console block, byte for byte: GenAI-Perf's table, per
// component and per replica, the client, prompts, artifacts, partial.
func TestPointConsoleGolden(t *testing.T) {
	params, out := pointFixture()
	run := scenarioRun(experiment(), params, out, "v0.0.0-test")
	var b bytes.Buffer
	if err := pointConsole(&run, out, "OUT/e/concurrency1")(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "point_console.txt", b.Bytes())
}

// writePoint writes the GenAI-Perf summary files into the point's folder
// (created), telemetry.parquet only with telemetry, and prints the
// point's console block.
func TestWritePointFiles(t *testing.T) {
	params, out := pointFixture()
	run := scenarioRun(experiment(), params, out, "v0.0.0-test")
	dir := repeatDir(pointDir(t.TempDir(), "e", params), 1)
	var console bytes.Buffer
	if err := writePoint(&console, dir, &run, out); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"profile_export_genai_perf.csv", "profile_export_genai_perf.json"}; !equal(names, want) {
		t.Errorf("point folder holds %v, want %v", names, want)
	}
	var want bytes.Buffer
	if err := pointConsole(&run, out, dir)(&want); err != nil {
		t.Fatal(err)
	}
	if console.String() != want.String() {
		t.Errorf("writePoint printed\n%s\nwant the point's console block\n%s", console.String(), want.String())
	}
	if err := writePoint(io.Discard, filepath.Join(dir, "profile_export_genai_perf.csv", "x"), &run, out); err == nil {
		t.Error("a point folder that cannot be made is not an error")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A scenario point writes into OUT/<experiment>/<label>/, its first
// repeat there (GenAI-Perf's layout) and the others below it.
func TestLayout(t *testing.T) {
	d := pointDir("OUT", "chat", plan.Params{metrics.ParamConcurrency: 16})
	for _, c := range []struct{ got, want string }{
		{d, filepath.Join("OUT", "chat", "concurrency16")},
		{repeatDir(d, 0), d},
		{repeatDir(d, 1), d},
		{repeatDir(d, 3), filepath.Join(d, "repeat3")},
	} {
		if c.got != c.want {
			t.Errorf("%s, want %s", c.got, c.want)
		}
	}
}
