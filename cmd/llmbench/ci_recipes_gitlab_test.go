package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const (
	glProject  = "42"
	glMR       = "7"
	glJobToken = "job-token-secret"
	glAPIToken = "project-access-token"
)

// glAPI stands in for the GitLab API the recipe calls: the default
// branch's latest perf artifacts (with the job token) and merge request
// notes (with the access token).
type glAPI struct {
	mu        sync.Mutex
	artifacts []byte // the zip of main's last successful perf job; nil before one
	downloads int
	notes     []string
	unknown   []string
}

func (a *glAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v4/projects/"+glProject+"/jobs/artifacts/main/download" &&
		r.URL.Query().Get("job") == "perf":
		if r.Header.Get("JOB-TOKEN") != glJobToken {
			http.Error(w, `{"message":"401 Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		if a.artifacts == nil {
			http.Error(w, `{"message":"404 Not found"}`, http.StatusNotFound)
			return
		}
		a.downloads++
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write(a.artifacts)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v4/projects/"+glProject+"/merge_requests/"+glMR+"/notes":
		if r.Header.Get("PRIVATE-TOKEN") != glAPIToken {
			http.Error(w, `{"message":"401 Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.notes = append(a.notes, r.PostForm.Get("body"))
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":1}`))
	default:
		a.unknown = append(a.unknown, r.Method+" "+r.URL.String())
		http.Error(w, `{"message":"404 Not found"}`, http.StatusNotFound)
	}
}

// glJob is what one simulated GitLab CI job left.
type glJob struct {
	dir       string
	script    cliResult // before_script and script, run as one shell as GitLab does
	downloads int       // artifact archives the job fetched
	notes     []string  // merge request notes after_script posted
}

func testGitLabRecipe(t *testing.T, r ciRecipes, fast, failing string) {
	perf := r.gitlab.get("perf")
	art := perf.get("artifacts")
	paths := flowList(art.get("paths"))
	junit := art.get("reports").get("junit").Value
	if art.get("when").Value != "always" || len(paths) == 0 || junit == "" {
		t.Fatalf("artifacts: when %q, paths %q, junit %q; want when: always, the results and a JUnit report",
			art.get("when").Value, paths, junit)
	}
	api := &glAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	jobs := 0
	job := func(source, url string) func() glJob {
		return func() glJob { jobs++; return runGitLabJob(t, perf, r, source, url, srv.URL, api, jobs) }
	}

	first := job("merge_request_event", fast)()
	if first.script.code != 0 || !strings.Contains(first.script.stdout, "3 skipped (no baseline)") || first.downloads != 0 {
		t.Fatalf("MR before any main run: exit %d, want 0 with the baseline gates skipped\n%s%s", first.script.code, first.script.stdout, first.script.stderr)
	}

	var mains []glJob
	for i := range historyMains {
		main := job("push", fast)()
		if main.script.code != 0 || len(main.notes) != 0 || main.downloads != min(i, 1) || !strings.Contains(main.script.stdout, "3 skipped (no baseline)") {
			t.Fatalf("main run %d: exit %d, %d notes, %d downloads\n%s%s", i+1, main.script.code, len(main.notes), main.downloads, main.script.stdout, main.script.stderr)
		}
		api.mu.Lock()
		api.artifacts = zipArtifacts(t, main.dir, paths) // the job passed: its artifacts are the latest successful ones
		api.mu.Unlock()
		mains = append(mains, main)
	}
	history := historyRuns(t, filepath.Join(mains[len(mains)-1].dir, "history"))
	if len(history) != historyKept || !strings.HasSuffix(history[0], fmt.Sprintf("-%d", historyMains)) {
		t.Errorf("the last main run's history holds %q, want the last %d main runs", history, historyKept)
	}

	same := job("merge_request_event", fast)()
	exitFollowsGates(t, "MR, same server", same.script, filepath.Join(same.dir, "results", "gates.json"))
	if same.script.code > 1 || !strings.Contains(same.script.stdout, "vs baseline") || same.downloads != 1 || !strings.Contains(same.script.stderr, historyNote) {
		t.Fatalf("MR, same server: exit %d, %d downloads, want judged against %q\n%s%s", same.script.code, same.downloads, historyNote, same.script.stdout, same.script.stderr)
	}
	if got := historyRuns(t, filepath.Join(same.dir, "history")); !slices.Equal(got, history) {
		t.Errorf("MR, same server: main's history/ unpacked as %q, want %q", got, history)
	}
	if _, err := os.Stat(filepath.Join(same.dir, "results", "compare.json")); err != nil {
		t.Error(err)
	}

	failed := job("merge_request_event", failing)()
	if failed.script.code != 1 || !strings.Contains(failed.script.stdout, "✗ error_rate < 1%") {
		t.Fatalf("MR, failing server: exit %d, want 1 naming error_rate\n%s%s", failed.script.code, failed.script.stdout, failed.script.stderr)
	}

	for _, c := range []struct {
		what string
		j    glJob
		want []string
	}{
		{"MR before any main run", first, []string{"skipped: no baseline"}},
		{"MR, same server", same, []string{"llmbench compare", "vs baseline"}},
		{"MR, failing server", failed, []string{"❌", "itl.p50"}},
	} {
		if len(c.j.notes) != 1 {
			t.Errorf("%s: %d notes posted, want 1", c.what, len(c.j.notes))
			continue
		}
		for _, want := range c.want {
			if !strings.Contains(c.j.notes[0], want) {
				t.Errorf("%s: the note lacks %q:\n%s", c.what, want, c.j.notes[0])
			}
		}
	}
	for i, j := range append([]glJob{first, same, failed}, mains...) {
		for _, p := range append(paths, junit) {
			if _, err := os.Stat(filepath.Join(j.dir, p)); err != nil && (i > 0 || p != "history/") { // no history before main ran
				t.Errorf("artifacts: %v", err)
			}
		}
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.unknown) > 0 {
		t.Errorf("requests the recipe should not make: %q", api.unknown)
	}
}

// runGitLabJob runs the job's shell in a fresh checkout as a GitLab runner
// would for a pipeline of source against the server at url: before_script
// and script in one shell (the install left out), then after_script in
// another, whatever the script's exit.
func runGitLabJob(t *testing.T, perf *yamlNode, r ciRecipes, source, url, api string, a *glAPI, id int) glJob {
	t.Helper()
	j := glJob{dir: newCheckout(t, r)}
	set := []string{"GITLAB_CI=true", "CI_PIPELINE_SOURCE=" + source, "CI_PROJECT_ID=" + glProject, "CI_JOB_ID=" + strconv.Itoa(id),
		"BASELINE_RUNS=" + strconv.Itoa(baselineRuns(source == "merge_request_event")),
		"CI_API_V4_URL=" + api + "/api/v4", "CI_JOB_TOKEN=" + glJobToken, "CI_DEFAULT_BRANCH=main",
		"CI_JOB_NAME=perf", "CI_PROJECT_DIR=" + j.dir, "GITLAB_TOKEN=" + glAPIToken, "LLM_URL=" + url}
	if source == "merge_request_event" {
		set = append(set, "CI_MERGE_REQUEST_IID="+glMR, "CI_COMMIT_REF_NAME=feature",
			"CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=feature")
	} else {
		set = append(set, "CI_COMMIT_BRANCH=main", "CI_COMMIT_REF_NAME=main")
	}
	env := jobEnv(perf.get("variables"), set...)

	var script []string
	installs, runs := 0, 0
	for _, key := range []string{"before_script", "script"} {
		for _, item := range perf.get(key).Items {
			switch {
			case strings.Contains(item.Value, installMark):
				installs++
			case item.Value == "":
				t.Errorf("%s: an item that is not a command: %+v", key, item)
			default:
				if isRunStep(item.Value) {
					runs++
				}
				script = append(script, strings.TrimSuffix(item.Value, "\n"))
			}
		}
	}
	if installs != 1 || runs != 1 {
		t.Errorf("%d install items and %d items running the scenario, want one each", installs, runs)
	}
	a.mu.Lock()
	downloads, notes := a.downloads, len(a.notes)
	a.mu.Unlock()
	j.script = runShell(t, j.dir, env, strings.Join(script, "\n"))

	for _, item := range perf.get("after_script").Items {
		if res := runShell(t, j.dir, env, item.Value); res.code != 0 {
			t.Errorf("%s: after_script exit %d\n%s%s", source, res.code, res.stdout, res.stderr)
		}
	}
	a.mu.Lock()
	j.downloads, j.notes = a.downloads-downloads, slices.Clone(a.notes[notes:])
	a.mu.Unlock()
	return j
}

// zipArtifacts archives the job's artifact paths as GitLab does: entries
// named by their path in the project folder ("results/summary.md").
func zipArtifacts(t *testing.T, dir string, paths []string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range paths {
		err := filepath.WalkDir(filepath.Join(dir, p), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			name := filepath.ToSlash(rel)
			if d.IsDir() {
				_, err = zw.Create(name + "/")
				return err
			}
			w, err := zw.Create(name)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
