package telemetry

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/internal/golden"
	"github.com/llmbench/llmbench/runtime"
)

// The console lines and the JSON block of a point whose GPU was scraped
// (energy known, a price set, a warning) and of a point whose vLLM server
// reported its latencies, byte for byte.
func TestTelemetryGolden(t *testing.T) {
	w := metrics.TelemetryWindow{Start: 3e9, End: 5e9, OutputTokens: 1600, CostPerHour: 3.6}
	gpu := &runtime.PointTelemetry{Samples: gpuSamples(), Summary: metrics.ReduceTelemetry(gpuSamples(), w), Warnings: []string{"telemetry: x dropped"}}
	server := &runtime.PointTelemetry{Summary: vllmLatencies(t)}
	client := &metrics.Summary{TimeToFirstToken: metrics.NewDistribution(fill(30, 88e6)), TimeToSecondToken: metrics.NewDistribution(fill(30, 20e6)),
		RequestLatency: metrics.NewDistribution(fill(30, 1411e6))}
	var con, js bytes.Buffer
	for _, c := range []struct {
		pt     *runtime.PointTelemetry
		client *metrics.Summary
	}{{gpu, &metrics.Summary{}}, {server, client}} {
		Console(c.pt, c.client)(&con)
		b, err := json.MarshalIndent(BlockOf(c.pt, c.client), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		js.Write(append(b, '\n'))
	}
	golden.Check(t, "console.txt", con.Bytes())
	golden.Check(t, "block.json", js.Bytes())
}
