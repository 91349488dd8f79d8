package builtins

import (
	"strings"
	"testing"
)

// endpoint(reset_prefix_cache = True) asks for the server's prefix cache
// to be emptied before every run (issue 28 item 3); it reads back, shows
// in the endpoint's description, and a non-bool is refused naming it.
func TestEndpointResetPrefixCache(t *testing.T) {
	path := writeScenario(t, "scenario.star", `
def main(ctx):
    e = endpoint("http://example:8000", "m", reset_prefix_cache = True)
    if e.reset_prefix_cache != True or endpoint("http://example:8000", "m").reset_prefix_cache != False:
        fail("reset_prefix_cache reads back as %r" % e.reset_prefix_cache)
    return experiment("x", e, synthetic(10, 10), concurrency(1), requests = 5)
`)
	scen, err := Load(path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ep := scen.Experiments[0].Endpoint
	if !ep.ResetPrefixCache || !strings.Contains(ep.String(), "reset_prefix_cache=True") {
		t.Errorf("plan endpoint %s: ResetPrefixCache %v", ep, ep.ResetPrefixCache)
	}
	le := loadErr(t, writeScenario(t, "scenario.star", `
def main(ctx):
    return experiment("x", endpoint("http://example:8000", "m", reset_prefix_cache = "yes"), synthetic(10, 10), concurrency(1), requests = 5)
`), Options{})
	if msg := le.Error(); !strings.Contains(msg, "reset_prefix_cache") || !strings.Contains(msg, "scenario.star:3:") {
		t.Errorf("reset_prefix_cache=\"yes\": %s", msg)
	}
	// A gRPC endpoint has no HTTP root to POST the reset to.
	le = loadErr(t, writeScenario(t, "scenario.star", `
def main(ctx):
    return experiment("x", endpoint("grpc://127.0.0.1:8001", "m", api = "triton", reset_prefix_cache = True), synthetic(10, 10), concurrency(1), requests = 5)
`), Options{})
	if msg := le.Error(); !strings.Contains(msg, `reset_prefix_cache with api="triton"`) || !strings.Contains(msg, "scenario.star:3:") {
		t.Errorf("api=triton: %s", msg)
	}
}
