package main

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Credentials given in a header, in the URL's user info or query, or in the
// endpoint path's query are used for the requests and reach no artifact.
func TestCredentialsReachNoArtifact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", "sim://", "--streaming", "--request-count", "4",
		"--endpoint", "/v1/chat/completions?api_key=SECRET-PATH", "-H", "Authorization: Bearer SECRET-HEADER",
		"--generate-plots")
	if r.code != 0 {
		t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
	}
	for _, out := range []string{r.stdout, r.stderr} {
		if strings.Contains(out, "SECRET") {
			t.Errorf("a credential reached the console:\n%s", out)
		}
	}
	assertNoSecretIn(t, dir)
}

// --api-key is sent as a bearer token; neither it nor the URL's user info
// and query reach the console, the JSON log, an artifact, check's plan or
// the unreachable-target error.
func TestAPIKeyAndURLCredentialsReachNoLogOrArtifact(t *testing.T) {
	var auth []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" { // the endpoint's own /metrics, probed for telemetry
			if a := r.Header.Get("Authorization"); a != "" {
				t.Errorf("the endpoint's credentials went to its /metrics: %q", a)
			}
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":"one two"},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":5,"completion_tokens":2}}`))
	}))
	defer srv.Close()
	credURL := strings.Replace(srv.URL, "http://", "http://user:SECRET-PW@", 1) + "/?api_key=SECRET-Q"
	dir := t.TempDir()
	var outputs []string
	for _, format := range []string{"json", "console"} {
		r := runCLI(t, dir, "--log-format", format, "profile", "-m", "m", "-u", credURL, "--request-count", "3",
			"--api-key", "SECRET-KEY", "--artifact-dir", filepath.Join(dir, format))
		if r.code != 0 {
			t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
		}
		outputs = append(outputs, r.stdout, r.stderr)
	}
	if len(auth) == 0 || auth[0] != "Bearer SECRET-KEY" {
		t.Errorf("the server saw Authorization %q, want the bearer token", auth)
	}
	_, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "http://user:SECRET-PW@127.0.0.1:1/?token=SECRET-Q", model = "m"),
                      dataset = synthetic(input_tokens = 8, output_tokens = 4), traffic = concurrency(1), requests = 2)
`)
	if r := runCLI(t, dir, "check", file); r.code != 0 {
		t.Fatalf("check: exit %d\n%s", r.code, r.stderr)
	} else {
		outputs = append(outputs, r.stdout, r.stderr)
	}
	r := runCLI(t, dir, "--log-format", "json", "run", file, "--out", filepath.Join(dir, "run"), "--no-plots")
	if r.code != 3 || !strings.Contains(r.stderr, "target unreachable: http://127.0.0.1:1/") {
		t.Errorf("run against the unreachable target: exit %d\n%s", r.code, r.stderr)
	}
	outputs = append(outputs, r.stdout, r.stderr)
	for _, out := range outputs {
		if strings.Contains(out, "SECRET") {
			t.Errorf("a credential reached the console or a log:\n%s", out)
		}
	}
	assertNoSecretIn(t, dir)
}

// assertNoSecretIn fails for every file under dir holding "SECRET".
func assertNoSecretIn(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), "SECRET") && !strings.HasSuffix(path, ".star") {
			t.Errorf("%s holds a credential", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
