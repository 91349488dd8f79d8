package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// lowLimit is the Starlark memory limit of these tests: low enough that a
// runaway scenario stops at it long before the shared machine notices.
var lowLimit = []string{"LLMBENCH_STARLARK_MEMORY_LIMIT=512MiB"}

// runCapped is runCLIEnv with the address space of llmbench itself capped
// by the shell (ulimit -v, which its children inherit and only lower), a
// safety net should the preflight under test let a 16 GB allocation
// through. The cap leaves room for the 4 GB go.starlark.net reserves
// unbacked at start-up and the runtime's own reservations.
func runCapped(t *testing.T, dir string, env []string, args ...string) cliResult {
	t.Helper()
	if runtime.GOOS != "linux" {
		return runCLIEnv(t, dir, env, args...)
	}
	return runCommand(t, exec.Command("sh", append([]string{"-c", `ulimit -v 10485760 && exec "$0" "$@"`, binary}, args...)...), dir, env)
}

func limitsFixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "limits", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Scenarios that would take all the memory, all the time or a 100,000-line
// traceback end with exit 2 and a short message naming the file (and the
// place, where the interpreter knows it) — never a Go panic, a hang or
// the kernel's OOM killer.
func TestRunawayScenariosAreExitTwo(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the memory limit is enforced on Linux only")
	}
	const memory = "the scenario needed more than 512 MiB of memory while loading (the Starlark memory limit: raise it with --starlark-memory-limit or LLMBENCH_STARLARK_MEMORY_LIMIT, 0 turns it off)"
	const steps = "too many steps: the scenario ran more than 10000000 Starlark steps (a loop or recursion that never ends?)"
	for _, c := range []struct {
		file, at, want string
	}{
		{"list_repeat.star", "", memory},
		{"list_range.star", "", memory},
		{"string_doubling.star", "", memory},
		{"string_repeat.star", ":3:16", "repeat count 17179869184 too large"},
		{"dict_loop.star", ":4:5", steps},
		{"range_loop.star", ":3:5", steps},
		{"while_loop.star", ":1:1", steps}, // the interpreter places a while loop's steps at its function
		// Under 512 MiB the Go stack of 100,000 nested calls is what runs
		// out; under the default limit it is "Starlark stack overflow:
		// more than 100000 nested calls", with the traceback cut to 11 lines.
		{"recursion.star", "", memory},
	} {
		file := limitsFixture(t, c.file)
		r := runCapped(t, t.TempDir(), lowLimit, "check", file)
		first, _, _ := strings.Cut(r.stderr, "\n")
		if r.code != 2 || first != "llmbench: "+file+c.at+": "+c.want {
			t.Errorf("%s: exit %d, first line\n%s\nwant\nllmbench: %s%s: %s", c.file, r.code, first, file, c.at, c.want)
		}
		if n := strings.Count(r.stderr, "\n"); n > 15 || strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
			t.Errorf("%s: %d lines of stderr:\n%s", c.file, n, r.stderr)
		}
	}
}

// A builtin that never ends between two steps is stopped by the CPU limit.
func TestBuiltinThatNeverEndsIsExitTwo(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the limits are enforced on Linux only")
	}
	file := limitsFixture(t, "nested_str.star")
	r := runCapped(t, t.TempDir(), append(lowLimit, "LLMBENCH_STARLARK_CPU_LIMIT=1s"), "check", file)
	if r.code != 2 || !strings.HasPrefix(r.stderr, "llmbench: "+file+": the scenario computed for more than 1s of processor time while loading") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// A scenario that allocates moderately loads, runs and checks under the
// low limit, and prints its print() lines once (the child's are dropped).
func TestModerateScenarioWorksUnderTheLimit(t *testing.T) {
	t.Parallel()
	file := limitsFixture(t, "moderate.star")
	if r := runCapped(t, t.TempDir(), lowLimit, "check", file); r.code != 0 {
		t.Fatalf("check: exit %d, stderr %s", r.code, r.stderr)
	}
	r := runCapped(t, t.TempDir(), lowLimit, "run", file, "--no-plots")
	if r.code != 0 || strings.Count(r.stdout, "check saw 1 point(s) and 1000000 items\n") != 1 || strings.Contains(r.stderr, "not applied") {
		t.Errorf("run: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

// check() over the limit is a scenario error (exit 2) after the run's
// files are written: the points' records before check() runs, the
// verdicts (check() failed) after.
func TestCheckOverTheLimitKeepsTheRun(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the memory limit is enforced on Linux only")
	}
	dir := t.TempDir()
	file := limitsFixture(t, "check_alloc.star")
	r := runCapped(t, dir, lowLimit, "run", file, "--no-plots")
	want := "llmbench: " + file + ": check(): needed more than 512 MiB of memory (the Starlark memory limit: "
	if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "goroutine") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
	for _, f := range []string{"gates.json", "summary.json", "ok/concurrency1/records.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Errorf("run files: %v", err)
		}
	}
}

func TestStarlarkLimitFlags(t *testing.T) {
	file := limitsFixture(t, "while_loop.star")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--starlark-memory-limit", "1MiB"}, `llmbench: --starlark-memory-limit: got "1MiB", want at least 64 MiB (or 0 for no limit)`},
		{[]string{"--starlark-memory-limit", "lots"}, `llmbench: --starlark-memory-limit: got "lots", want a size such as 4GiB or 512MiB, or 0 for no limit`},
		{[]string{"--starlark-cpu-limit=-1s"}, "llmbench: --starlark-cpu-limit: got -1s, want a duration of at least 1s, or 0 for no limit"},
	} {
		r := runCLI(t, t.TempDir(), append([]string{"check", file}, c.args...)...)
		if r.code != 2 || strings.TrimSpace(r.stderr) != c.want {
			t.Errorf("%q: exit %d, stderr %q; want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	// 0 turns the preflight off: the step limit still holds.
	r := runCLI(t, t.TempDir(), "check", file, "--starlark-memory-limit", "0", "--starlark-cpu-limit", "0")
	if r.code != 2 || !strings.Contains(r.stderr, "too many steps") {
		t.Errorf("limits off: exit %d, stderr %q", r.code, r.stderr)
	}
}
