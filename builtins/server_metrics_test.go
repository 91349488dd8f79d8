package builtins

import (
	"slices"
	"strings"
	"testing"
)

// endpoint(server_metrics = False) leaves the endpoint's own /metrics
// unscraped; a list still adds URLs and keeps it; True is refused naming
// the parameter (issue 28 item 5: scraping is a choice).
func TestServerMetricsFalseTurnsOffTheEndpointsOwn(t *testing.T) {
	path := writeScenario(t, "scenario.star", `
def main(ctx):
    off = endpoint("http://example:8000", "m", server_metrics = False)
    on = endpoint("http://example:8000", "m", server_metrics = ["http://gpu:9400/metrics"])
    if off.server_metrics != False:
        fail("server_metrics reads back as %r" % off.server_metrics)
    return [experiment("off", off, synthetic(10, 10), concurrency(1), requests = 5),
            experiment("on", on, synthetic(10, 10), concurrency(1), requests = 5)]
`)
	scen, err := Load(path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	off, on := scen.Experiments[0], scen.Experiments[1]
	if !off.ServerMetricsOff || len(off.Telemetry) != 0 {
		t.Errorf("server_metrics=False: off %v, telemetry %v; want the endpoint's own /metrics off and no URLs", off.ServerMetricsOff, off.Telemetry)
	}
	if on.ServerMetricsOff || !slices.Equal(on.Telemetry, []string{"http://gpu:9400/metrics"}) {
		t.Errorf("server_metrics=[...]: off %v, telemetry %v", on.ServerMetricsOff, on.Telemetry)
	}
	le := loadErr(t, writeScenario(t, "scenario.star", `
def main(ctx):
    return experiment("x", endpoint("http://example:8000", "m", server_metrics = True), synthetic(10, 10), concurrency(1), requests = 5)
`), Options{})
	if msg := le.Error(); !strings.Contains(msg, "server_metrics") || !strings.Contains(msg, "got True") || !strings.Contains(msg, "scenario.star:3:") {
		t.Errorf("server_metrics=True: %s", msg)
	}
}
