package main

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// blackHole is a server that accepts, reads each request and never
// answers; it returns its host:port.
func blackHole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit); ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err == nil {
					<-quit
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// A run against a server that never answers ends within the idle timeout
// (not the 2-minute request timeout): every request is a timeout, so the
// run could not be carried out (exit 3) — from profile's flag and from a
// scenario's endpoint(idle_timeout=) alike.
func TestBlackHoleEndsWithinIdleTimeout(t *testing.T) {
	t.Parallel()
	addr := blackHole(t)
	_, file := writeScenario(t, `
def main(ctx):
    return [experiment(name = "hole", endpoint = endpoint(url = "`+addr+`", model = "m", timeout = "2m", idle_timeout = "300ms"),
                       dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)), traffic = concurrency(2), requests = 4)]
`)
	for name, args := range map[string][]string{
		"profile": {"profile", "-m", "m", "-u", addr, "--streaming", "--request-count", "4", "--concurrency", "2",
			"--request-timeout", "2m", "--stream-idle-timeout", "300ms"},
		"run": {"run", file, "--no-plots"},
	} {
		start := time.Now()
		r := runCLI(t, t.TempDir(), args...)
		took := time.Since(start)
		if r.code != 3 || !strings.Contains(r.stderr, "timeout") || took > time.Minute {
			t.Errorf("%s: exit %d after %s, stderr %q; want exit 3 naming the timeout, well within the request timeout", name, r.code, took, r.stderr)
		}
	}
}
