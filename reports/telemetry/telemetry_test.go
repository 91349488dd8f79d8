package telemetry

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// gpuSamples are one GPU drawing 400 W, its energy counter rising at that
// rate, scraped every second from 0 to 10 s.
func gpuSamples() []metrics.TelemetrySample {
	labels := []metrics.Label{{Name: "UUID", Value: "GPU-1"}, {Name: "gpu", Value: "0"}, {Name: "modelName", Value: "H100"}}
	var out []metrics.TelemetrySample
	for s := int64(0); s <= 10; s++ {
		t := s * 1e9
		out = append(out,
			metrics.TelemetrySample{Time: t, Source: "h:9400", Name: "DCGM_FI_DEV_POWER_USAGE", Labels: labels, Value: 400},
			metrics.TelemetrySample{Time: t, Source: "h:9400", Name: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", Labels: labels, Value: float64(s) * 400e3})
	}
	return out
}

// The block and the console say what was measured, in their units: 2 s
// at 400 W is 800 J, over 1600 tokens 0.5 J/token; an unknown value is
// null with its reason.
func TestBlockAndConsole(t *testing.T) {
	w := metrics.TelemetryWindow{Start: 3e9, End: 5e9, OutputTokens: 1600, CostPerHour: 3.6}
	pt := &runtime.PointTelemetry{Samples: gpuSamples(), Summary: metrics.ReduceTelemetry(gpuSamples(), w), Warnings: []string{"telemetry: x dropped"}}
	b := BlockOf(pt, &metrics.Summary{})
	if b.EnergyJ.Value == nil || *b.EnergyJ.Value != 800 || *b.EnergyPerToken.Value != 0.5 || *b.AveragePowerW.Value != 400 {
		t.Errorf("block energy %+v, J/token %+v, power %+v", b.EnergyJ, b.EnergyPerToken, b.AveragePowerW)
	}
	// 1600 tokens in 2 s is 800 tokens/s: 3.6 / (800 × 3600) × 1e6 = 1.25 per million.
	if b.CostPerMTok.Value == nil || *b.CostPerMTok.Value != 1.25 || b.Currency != "EUR" {
		t.Errorf("cost %+v %s", b.CostPerMTok, b.Currency)
	}
	if b.Server.PrefixCacheHitRate.Value != nil || b.Server.PrefixCacheHitRate.Why == "" {
		t.Errorf("a DCGM-only source has no prefix-cache hit rate, and says why: %+v", b.Server.PrefixCacheHitRate)
	}
	js, err := json.Marshal(b)
	if err != nil || !strings.Contains(string(js), `"prefix_cache_hit_rate":{"value":null,"why":`) {
		t.Errorf("JSON (%v): %s", err, js)
	}
	var con bytes.Buffer
	WriteConsole(&con, pt, &metrics.Summary{})
	for _, want := range []string{"GPU: 1 (gpu0 H100), 400.0 W avg", "800.0 J over the point", "0.500 J/token (2.00 tokens/J)",
		"1.25 EUR per million output tokens", "warning: telemetry: x dropped"} {
		if !strings.Contains(con.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, con.String())
		}
	}
	if WriteConsole(&con, nil, nil); BlockOf(nil, nil) != nil {
		t.Error("no telemetry must give no block")
	}
}
