package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ghCache stands in for GitHub's Actions cache between the jobs of one
// test: what actions/cache/save stored last, under which key and path
// (a restore by prefix gets the newest), and how many jobs ran (each
// job's GITHUB_RUN_ID).
type ghCache struct {
	key, path, dir string
	runs           int
}

// ghJob is what one simulated GitHub Actions job left.
type ghJob struct {
	dir      string
	summary  string            // what the steps appended to $GITHUB_STEP_SUMMARY
	comment  string            // the file the sticky comment would post ("" when it did not run)
	uploaded bool              // actions/upload-artifact ran on an existing path
	restored bool              // actions/cache/restore found a cache
	saved    bool              // actions/cache/save stored one
	steps    map[string]string // step name → "exit N", "skipped" or "not run (install)"
	run      cliResult         // the step running the scenario
}

const (
	mainSHA = "1111111111111111111111111111111111111111"
	prSHA   = "2222222222222222222222222222222222222222"
)

func testGitHubRecipe(t *testing.T, r ciRecipes, fast, failing string) {
	job := r.github.get("jobs").Map
	if len(job) != 1 {
		t.Fatalf("the workflow has %d jobs, want 1", len(job))
	}
	perf := job[0]
	if got := perf.get("defaults").get("run").get("shell").Value; got != "bash" {
		t.Errorf("defaults.run.shell = %q, want bash (bash -eo pipefail is how the test runs the steps)", got)
	}
	cache := &ghCache{}

	for i := range historyMains {
		main := runGitHubJob(t, perf, r, "push", fast, cache)
		what := fmt.Sprintf("main run %d", i+1)
		if main.run.code != 0 || !strings.Contains(main.run.stdout, "3 skipped (no baseline)") {
			t.Fatalf("%s: run step exit %d\n%s%s", what, main.run.code, main.run.stdout, main.run.stderr)
		}
		if !main.saved || cache.path != "history/" || !strings.HasPrefix(cache.key, "llmbench-history-") {
			t.Fatalf("%s: history not saved: %+v", what, cache)
		}
		if main.comment != "" || main.restored != (i > 0) || !main.uploaded || !strings.Contains(main.summary, "skipped: no baseline") {
			t.Errorf("%s: comment %q, restored %v, uploaded %v, summary:\n%s", what, main.comment, main.restored, main.uploaded, main.summary)
		}
	}
	history := historyRuns(t, cache.dir)
	if len(history) != historyKept || !strings.HasSuffix(history[0], fmt.Sprintf("-%d", historyMains-1)) {
		t.Errorf("the saved history holds %q, want the last %d main runs", history, historyKept)
	}

	same := runGitHubJob(t, perf, r, "pull_request", fast, cache)
	exitFollowsGates(t, "PR, same server", same.run, filepath.Join(same.dir, "results", "gates.json"))
	if same.run.code > 1 || !same.restored || !strings.Contains(same.run.stdout, "vs baseline") || !strings.Contains(same.run.stderr, historyNote) {
		t.Fatalf("PR, same server: run step exit %d, restored %v, want judged against %q\n%s%s", same.run.code, same.restored, historyNote, same.run.stdout, same.run.stderr)
	}
	for _, want := range []string{"vs baseline", "llmbench compare", "itl.p50"} {
		if !strings.Contains(same.summary, want) {
			t.Errorf("PR, same server: job summary lacks %q:\n%s", want, same.summary)
		}
	}
	if same.comment == "" || same.comment != readFileString(t, filepath.Join(same.dir, "results", "summary.md")) {
		t.Errorf("PR, same server: the comment would post %q", same.comment)
	}
	if _, err := os.Stat(filepath.Join(same.dir, "results", "compare.json")); err != nil || !same.uploaded || same.saved {
		t.Errorf("PR, same server: compare.json %v, uploaded %v, saved %v", err, same.uploaded, same.saved)
	}
	if got := historyRuns(t, filepath.Join(same.dir, "history")); !slices.Equal(got, history) {
		t.Errorf("a pull request changed its history/: %q, was %q", got, history)
	}

	failed := runGitHubJob(t, perf, r, "pull_request", failing, cache)
	if failed.run.code != 1 || !strings.Contains(failed.run.stdout, "✗ error_rate < 1%") {
		t.Fatalf("PR, failing server: run step exit %d, want 1 naming error_rate\n%s%s", failed.run.code, failed.run.stdout, failed.run.stderr)
	}
	if !strings.Contains(failed.summary, "❌") || !strings.Contains(failed.summary, "itl.p50") || failed.comment == "" || !failed.uploaded {
		t.Errorf("PR, failing server: the always() steps did not report: comment %v, uploaded %v, summary:\n%s",
			failed.comment != "", failed.uploaded, failed.summary)
	}
	if got := historyRuns(t, filepath.Join(failed.dir, "history")); !slices.Equal(got, history) || failed.saved || !slices.Equal(historyRuns(t, cache.dir), history) {
		t.Errorf("PR, failing server: the failing run changed history/ (%q) or saved a cache (%v)", got, failed.saved)
	}
	t.Logf("steps of the failing pull request: %v", failed.steps)
}

// runGitHubJob runs the job's steps in a fresh checkout as GitHub would for
// event against the server at url: shell steps for real, the few actions
// simulated.
func runGitHubJob(t *testing.T, perf *yamlNode, r ciRecipes, event, url string, cache *ghCache) ghJob {
	t.Helper()
	j := ghJob{dir: newCheckout(t, r), steps: map[string]string{}}
	summaryFile := filepath.Join(t.TempDir(), "step_summary")
	sha, ref := mainSHA, "refs/heads/main"
	cache.runs++
	set := []string{"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + event, "GITHUB_STEP_SUMMARY=" + summaryFile,
		"GITHUB_RUN_ID=" + strconv.Itoa(cache.runs), "BASELINE_RUNS=" + strconv.Itoa(baselineRuns(event == "pull_request")),
		"GITHUB_WORKSPACE=" + j.dir, "RUNNER_TEMP=" + t.TempDir(), "GITHUB_REPOSITORY=your-org/app", "LLM_URL=" + url}
	if event == "pull_request" {
		sha, ref = prSHA, "refs/pull/7/merge"
		set = append(set, "GITHUB_BASE_REF=main", "GITHUB_HEAD_REF=feature")
	}
	env := jobEnv(perf.get("env"), append(set, "GITHUB_SHA="+sha, "GITHUB_REF="+ref)...)
	expr := map[string]string{"github.sha": sha, "github.event.pull_request.base.sha": mainSHA}

	failed, installs, runs := false, 0, 0
	for i, step := range perf.get("steps").Items {
		name := step.get("name").Value
		if name == "" {
			name = step.get("uses").Value
		}
		cond := step.get("if").Value
		if run := step.get("run").Value; run != "" {
			if cond != "" && cond != "always()" {
				t.Errorf("step %d (%s): if: %q; a shell step's branching belongs in the shell, its if: may only be always()", i, name, cond)
			}
			if strings.Contains(run, "${{") {
				t.Errorf("step %d (%s): a ${{ }} expression in run:, which the shell outside GitHub cannot read", i, name)
			}
		}
		if !ghCondition(t, cond, event, failed, j.dir) {
			j.steps[name] = "skipped"
			continue
		}
		if run := step.get("run").Value; run != "" {
			if strings.Contains(run, installMark) {
				installs++
				j.steps[name] = "not run (install)"
				continue
			}
			res := runShell(t, j.dir, env, run)
			j.steps[name] = "exit " + strconv.Itoa(res.code)
			if isRunStep(run) {
				runs++
				j.run = res
			} else if res.code != 0 {
				t.Errorf("%s: step %q: exit %d\n%s%s", event, name, res.code, res.stdout, res.stderr)
			}
			failed = failed || res.code != 0
			continue
		}
		j.steps[name] = "simulated"
		ghAction(t, &j, step, expr, cache)
	}
	if installs != 1 || runs != 1 {
		t.Errorf("%d install steps and %d steps running the scenario, want one each", installs, runs)
	}
	if b, err := os.ReadFile(summaryFile); err == nil {
		j.summary = string(b)
	}
	return j
}

// ghAction simulates the actions the recipe uses, on the job's folder.
func ghAction(t *testing.T, j *ghJob, step *yamlNode, expr map[string]string, cache *ghCache) {
	t.Helper()
	uses, _, _ := strings.Cut(step.get("uses").Value, "@")
	with := step.get("with")
	path := with.get("path").Value
	switch uses {
	case "actions/checkout", "actions/setup-go": // the checkout is the job's folder; Go is here
	case "actions/cache/restore":
		key := ghExpand(t, with.get("key").Value, expr)
		prefix := with.get("restore-keys").Value
		if cache.dir == "" || (cache.key != key && !strings.HasPrefix(cache.key, prefix)) {
			return // a miss: the run goes on without a baseline
		}
		if path != cache.path {
			t.Errorf("the cache is restored at %q but saved from %q; GitHub would miss it", path, cache.path)
			return
		}
		copyTree(t, cache.dir, filepath.Join(j.dir, path))
		j.restored = true
	case "actions/cache/save":
		src := filepath.Join(j.dir, path)
		if _, err := os.Stat(src); err != nil {
			t.Errorf("actions/cache/save: %v", err)
			return
		}
		cache.key, cache.path, cache.dir = ghExpand(t, with.get("key").Value, expr), path, filepath.Join(t.TempDir(), "cache")
		copyTree(t, src, cache.dir)
		j.saved = true
	case "actions/upload-artifact":
		_, err := os.Stat(filepath.Join(j.dir, path))
		j.uploaded = err == nil
	case "marocchino/sticky-pull-request-comment":
		b, err := os.ReadFile(filepath.Join(j.dir, path))
		if err != nil {
			t.Errorf("the comment's file: %v", err)
		}
		j.comment = string(b)
	default:
		t.Errorf("action %s is not simulated by this test; teach ghAction what it does", uses)
	}
}

var (
	ghEventCond = regexp.MustCompile(`github\.event_name == '([a-z_]+)'`)
	ghHashFiles = regexp.MustCompile(`hashFiles\('([^']+)'\) != ''`)
	ghExpr      = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
)

// ghCondition evaluates the if: expressions the recipe writes — always(),
// github.event_name == '...', hashFiles('...') != ” joined by && — and
// refuses any other.
func ghCondition(t *testing.T, cond, event string, failed bool, dir string) bool {
	t.Helper()
	rest := cond
	ok := !failed || strings.Contains(cond, "always()")
	rest = strings.ReplaceAll(rest, "always()", "")
	for _, m := range ghEventCond.FindAllStringSubmatch(cond, -1) {
		ok = ok && m[1] == event
	}
	rest = ghEventCond.ReplaceAllString(rest, "")
	for _, m := range ghHashFiles.FindAllStringSubmatch(cond, -1) {
		_, err := os.Stat(filepath.Join(dir, m[1]))
		ok = ok && err == nil
	}
	rest = ghHashFiles.ReplaceAllString(rest, "")
	if strings.Trim(strings.ReplaceAll(rest, "&&", ""), " ") != "" {
		t.Errorf("if: %q is beyond what this test evaluates", cond)
	}
	return ok
}

// ghExpand replaces the ${{ }} expressions of a cache key.
func ghExpand(t *testing.T, s string, expr map[string]string) string {
	t.Helper()
	return ghExpr.ReplaceAllStringFunc(s, func(m string) string {
		name := ghExpr.FindStringSubmatch(m)[1]
		v, ok := expr[name]
		if !ok {
			t.Errorf("expression %s is not simulated by this test", m)
		}
		return v
	})
}
