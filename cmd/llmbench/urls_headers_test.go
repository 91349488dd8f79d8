package main

import (
	"strings"
	"testing"
)

// A port the address cannot have — past 65535, 0, not a number — is bad
// input (exit 2, the flag or the scenario's line named), not an
// unreachable server (exit 3) found by dialing it.
func TestInvalidPortsAreBadInput(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"127.0.0.1:99999", "127.0.0.1:0", "127.0.0.1:abc", "http://[::1]:70000", "https://h:65536/v1", "http://h:-1"} {
		r := runCLI(t, t.TempDir(), "profile", "-m", "m", "-u", u, "--request-count", "1")
		if r.code != 2 || !strings.Contains(r.stderr, "--url") || !strings.Contains(r.stderr, "port") {
			t.Errorf("-u %s: exit %d, stderr %q; want exit 2 naming --url and the port", u, r.code, r.stderr)
		}
		_, file := writeScenario(t, `
def main(ctx):
    return [experiment(name = "e", endpoint = endpoint(url = "`+u+`", model = "m"),
                       dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)), traffic = concurrency(1), requests = 1)]
`)
		r = runCLI(t, t.TempDir(), "check", file)
		if r.code != 2 || !strings.Contains(r.stderr, "s.star:3:") || !strings.Contains(r.stderr, "port") {
			t.Errorf("endpoint(url=%q): exit %d, stderr %q; want exit 2 at s.star:3 naming the port", u, r.code, r.stderr)
		}
	}
}

// Host, Content-Length and Transfer-Encoding are the client's to set (the
// URL's host, each body's length); given with -H or endpoint(headers=)
// they would misroute or misframe every request, so they are refused with
// the reason (exit 2), whatever their case.
func TestReservedHeadersAreRefused(t *testing.T) {
	for _, h := range []struct{ header, reason string }{
		{"Host: other.example", "the URL's host"},
		{"content-length: 5", "each request's body"},
		{"Transfer-Encoding: chunked", "each request's body"},
	} {
		r := runCLI(t, t.TempDir(), "profile", "-m", "m", "-u", "sim://", "--request-count", "1", "-H", h.header)
		name, _, _ := strings.Cut(h.header, ":")
		if r.code != 2 || !strings.Contains(r.stderr, "--header") || !strings.Contains(r.stderr, name) || !strings.Contains(r.stderr, h.reason) {
			t.Errorf("-H %q: exit %d, stderr %q; want exit 2 naming --header, %s and %q", h.header, r.code, r.stderr, name, h.reason)
		}
		_, file := writeScenario(t, `
def main(ctx):
    return [experiment(name = "e", endpoint = endpoint(url = "sim://", model = "m", headers = {"`+name+`": "5"}),
                       dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)), traffic = concurrency(1), requests = 1)]
`)
		r = runCLI(t, t.TempDir(), "check", file)
		if r.code != 2 || !strings.Contains(r.stderr, "s.star:3:") || !strings.Contains(r.stderr, h.reason) {
			t.Errorf("headers={%q: ...}: exit %d, stderr %q; want exit 2 at s.star:3 with %q", name, r.code, r.stderr, h.reason)
		}
	}
}
