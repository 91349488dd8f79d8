package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// installMark names the one step of each recipe the test does not run:
// it installs llmbench, and the test's own build is first on PATH instead.
const installMark = "go install github.com/llmbench/llmbench/cmd/llmbench@"

// recipeSize makes the recipes' scenario small through its PERF_*
// variables: one run of 120 requests of 8 tokens at concurrency 8.
var recipeSize = []string{"PERF_REQUESTS=120", "PERF_CONCURRENCY=8", "PERF_OUTPUT_TOKENS=8", "PERF_REPEATS=1"}

// recipePoint is the one point recipeSize measures.
const recipePoint = "concurrency8"

// The recipes' baseline history in the test: historyMains runs of main
// build it, keeping the last historyKept (BASELINE_RUNS), so the oldest
// is seen leaving; a pull request is then judged on historyKept runs,
// and says so (historyNote).
const (
	historyMains = 3
	historyKept  = 2
	historyNote  = "llmbench: baseline of chat: 2 runs in "
)

// baselineRuns is BASELINE_RUNS in a job: historyKept on main; one more
// on a pull request, whose history then reads as still filling, so the
// recipe lets a gate too weak for the short history warn (whether it is
// weak depends on how this machine's runs scattered, which a test must
// not).
func baselineRuns(pullRequest bool) int {
	if pullRequest {
		return historyKept + 1
	}
	return historyKept
}

// ciRecipes is what docs/ci.md gives: the scenario and the two CI files.
type ciRecipes struct {
	scenario string
	github   *yamlNode
	gitlab   *yamlNode
}

// TestCIRecipes runs the shell steps of docs/ci.md's GitHub Actions and
// GitLab CI recipes, as those CIs would, against two `llmbench sim`
// servers, one failing a fifth of its requests: a main run keeps its
// baseline; a pull request on the same server is compared with it, the
// comparison in its summary, its exit code what its gates.json says; one
// on the failing server fails its error_rate gate while the always()
// steps still report. Which verdict a measured difference gets is not
// judged here (the simulators' timing follows this machine's load): the
// baseline gates' decisions are TestBaselineGateDecisions', exactly.
func TestCIRecipes(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "unzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing; docs/ci.md's recipes need it", tool)
			}
			t.Skipf("%s is missing; docs/ci.md's recipes need it", tool)
		}
	}
	b, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var r ciRecipes
	r.scenario = fencedBlock(t, doc, "# perf/scenario.star")
	shipped, err := os.ReadFile("../../scenarios/ci-gate.star")
	if err != nil {
		t.Fatal(err)
	}
	if afterFirstLine(r.scenario) != afterFirstLine(string(shipped)) {
		t.Errorf("docs/ci.md's perf/scenario.star is not scenarios/ci-gate.star (after their first lines)")
	}
	for name, dst := range map[string]**yamlNode{"# .github/workflows/perf.yml": &r.github, "# .gitlab-ci.yml": &r.gitlab} {
		if *dst, err = parseYAMLSubset(fencedBlock(t, doc, name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	fast := startSimCommand(t, "--itl", "20ms", "--itl-per-seq", "0ms", "--jitter", "0.05", "--seed", "1")
	failing := startSimCommand(t, "--itl", "20ms", "--itl-per-seq", "0ms", "--jitter", "0.05", "--seed", "2", "--error-rate-500", "0.2")
	t.Run("github", func(t *testing.T) { t.Parallel(); testGitHubRecipe(t, r, fast, failing) })
	t.Run("gitlab", func(t *testing.T) { t.Parallel(); testGitLabRecipe(t, r, fast, failing) })
}

func afterFirstLine(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}

// startSimCommand serves `llmbench sim` on a free port of 127.0.0.1 until
// the test ends, and returns its base URL (".../v1").
func startSimCommand(t *testing.T, args ...string) string {
	t.Helper()
	out, errs := startSim(t, args...)
	go func() { _, _ = io.Copy(io.Discard, errs) }() // its log must never fill the pipe
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("llmbench sim %v: %v", args, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	for _, f := range strings.Fields(line) {
		if strings.HasPrefix(f, "http://") {
			return f
		}
	}
	t.Fatalf("llmbench sim printed no URL: %q", line)
	return ""
}

// startSim starts `llmbench sim` on a free port of 127.0.0.1, stopped
// (SIGINT) when the test ends, and gives its stdout and stderr.
func startSim(t *testing.T, args ...string) (stdout, stderr *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"sim", "--addr", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	return bufio.NewReader(out), bufio.NewReader(errs)
}

// newCheckout is a job's fresh working folder holding the repository's
// files the recipes use.
func newCheckout(t *testing.T, r ciRecipes) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "perf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "perf", "scenario.star"), []byte(r.scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// jobEnv is the environment of a CI job: this machine's, less anything a
// CI or the scenario reads (so a test run inside a real CI is not
// confused by it), the test's llmbench first on PATH, the recipe's own
// variables, then the given ones.
func jobEnv(vars *yamlNode, set ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH", k == "CI", k == "TOKENIZER",
			strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "RUNNER_"), strings.HasPrefix(k, "CI_"),
			strings.HasPrefix(k, "GITLAB_"), strings.HasPrefix(k, "LLM_"), strings.HasPrefix(k, "PERF_"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"), "CI=true")
	for _, e := range vars.Map {
		env = append(env, e.Key+"="+e.Value)
	}
	env = append(env, recipeSize...)
	return append(env, set...) // later values win (os/exec keeps the last of a key)
}

// runShell runs a step as both CIs run bash steps here: bash -eo pipefail.
func runShell(t *testing.T, dir string, env []string, script string) cliResult {
	t.Helper()
	cmd := exec.Command("bash", "-eo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	return execute(t, cmd)
}

// copyTree copies the folder src to dst (which must not exist), as a
// cache restore or an artifact download would.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// historyRuns are the names of the runs a baseline history folder holds,
// in name order, each checked to hold its point's records.
func historyRuns(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("the baseline history: %v", err)
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "chat", recipePoint, "records.parquet")); err != nil {
			t.Errorf("the baseline history's %s: %v", e.Name(), err)
		}
		names = append(names, e.Name())
	}
	return names
}

func readFileString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
	}
	return string(b)
}

// isRunStep says whether a step (or item) runs the scenario.
func isRunStep(script string) bool { return strings.Contains(script, "llmbench run ") }

// exitFollowsGates checks that a run step's exit code is what the run's
// gates.json says: 1 when a gate failed, 0 when none did.
func exitFollowsGates(t *testing.T, what string, run cliResult, gatesFile string) {
	t.Helper()
	var g struct{ Failed int }
	if b, err := os.ReadFile(gatesFile); err != nil || json.Unmarshal(b, &g) != nil {
		t.Fatalf("%s: %v\n%s%s", what, err, run.stdout, run.stderr)
	}
	if want := min(g.Failed, 1); run.code != want {
		t.Errorf("%s: run step exit %d, but %d gates failed\n%s%s", what, run.code, g.Failed, run.stdout, run.stderr)
	}
	for _, line := range strings.Split(run.stdout, "\n") {
		if strings.Contains(line, "<= baseline") || strings.Contains(line, ">= baseline") {
			t.Logf("%s: %s", what, strings.TrimSpace(line))
		}
	}
}
