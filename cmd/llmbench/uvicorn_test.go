package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A real uvicorn, the HTTP server of vLLM and SGLang, closes idle
// keep-alive connections after its keep-alive timeout (1 s here): an open
// loop at about that rate races the close on every pooled connection. No
// request of a healthy server may be recorded as failed; the races are
// counted as retried instead (testdata/uvicorn/app.py serves SSE chunks
// without a model).
func TestUvicornIdleCloseIsNoError(t *testing.T) {
	t.Parallel()
	port := startUvicorn(t)
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", fmt.Sprintf("127.0.0.1:%d", port), "--streaming",
		"--request-rate", "2", "--request-distribution", "poisson", "--request-count", "30", "--output-tokens-mean", "4")
	if r.code != 0 {
		t.Fatalf("profile: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "Requests: 30 completed, 0 failed") {
		t.Errorf("a healthy uvicorn server got failed requests:\n%s", r.stdout)
	}
	t.Logf("%s", grepLine(r.stdout, "Retried"))
}

// startUvicorn serves testdata/uvicorn/app.py on a free port until the
// test ends; it skips (fails under CI=true) without uvicorn and starlette.
func startUvicorn(t *testing.T) int {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err == nil {
		err = exec.Command(py, "-c", "import uvicorn, starlette").Run()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 with uvicorn and starlette not found (%v); under CI=true .ci/run should have installed them", err)
		}
		t.Skipf("python3 with uvicorn and starlette not found (%v): .ci/run installs them", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(py, "-m", "uvicorn", "app:app", "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"--timeout-keep-alive", "1", "--log-level", "warning")
	cmd.Dir, _ = filepath.Abs("testdata/uvicorn")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Ready when it answers HTTP: a bare TCP dial to a port nothing
	// listens on yet can connect to itself (Linux's simultaneous open when
	// the kernel picks that same port as the source), which once let the
	// test start before uvicorn listened and fail its first request with
	// "connection refused".
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port)); err == nil {
			resp.Body.Close()
			return port
		}
	}
	t.Fatal("uvicorn did not start listening within 30 s")
	return 0
}

func grepLine(text, prefix string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return prefix + ": none"
}
