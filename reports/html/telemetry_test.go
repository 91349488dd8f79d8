package html

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/runtime"
)

const (
	gapWarning     = "telemetry: gpu-node:9400: 3 of 90 scrapes failed (first: connection refused); no samples for 1.2s"
	droppedWarning = "GET http://dcgm:9400/metrics: connection refused; dropped: not scraped in this run"
	energyWhy      = "no energy counter sample at or before the window's start"
	knownCostPM    = 3.47
)

// withTelemetry scrapes the sweep fixture's points as a run would: at
// concurrency1 two H100s and a vLLM server, every value known, at
// concurrency4 a GPU whose energy counter missed the window's start, at
// concurrency16 nothing. concurrency1's samples (power and the running
// batch, a scrape before the first send to one after the last response)
// are drawn into its plots/ folder under pointsDir.
func withTelemetry(t *testing.T, res *runtime.ExperimentResult, pointsDir string) {
	t.Helper()
	h100 := func(key string) metrics.GPUTelemetry {
		return metrics.GPUTelemetry{GenAIPerfKey: key, ModelName: "NVIDIA H100 80GB HBM3"}
	}
	known := func(v float64) metrics.TelemetryValue { return metrics.TelemetryValue{Value: v, OK: true} }
	first := res.Points[0].Outcome
	client := first.Summary.TimeToFirstToken.Avg
	w := metrics.TelemetryWindow{Start: first.Summary.Start, End: first.Summary.End, OutputTokens: 31200,
		CostPerHour: 4, Currency: "USD"}
	full := metrics.TelemetrySummary{Window: w, GPUs: []metrics.GPUTelemetry{h100("gpu0"), h100("gpu1")},
		Power: metrics.NewDistribution([]float64{600, 650, 700}), Utilization: metrics.NewDistribution([]float64{80, 90}),
		Energy: known(39000), AveragePower: known(650), EnergyPerToken: known(1.25), TokensPerJoule: known(0.8),
		CostPerMillionTokens: known(knownCostPM),
		Server: metrics.ServerTelemetry{Engines: []string{"vllm"},
			Running: metrics.NewDistribution([]float64{6, 8}), Waiting: metrics.NewDistribution([]float64{0, 3}),
			KVCacheUsage: metrics.NewDistribution([]float64{50, 92.5}), PrefixCacheHitRate: known(0.4), Preemptions: known(2),
			Latencies: []metrics.ServerLatency{{Metric: metrics.LatencyTTFT, Count: 60, Mean: client - 1.5e6, OK: true}}}}
	var samples []metrics.TelemetrySample
	gpu := []metrics.Label{{Name: "UUID", Value: "GPU-0"}, {Name: "gpu", Value: "0"}}
	for at := w.Start - 3e8; at <= w.End+3e8; at += 3.3e8 {
		samples = append(samples,
			metrics.TelemetrySample{Time: at, Source: "gpu-node:9400", Name: "DCGM_FI_DEV_POWER_USAGE", Labels: gpu, Value: 650},
			metrics.TelemetrySample{Time: at, Source: "vllm:8000", Name: "vllm:num_requests_running", Value: 7})
	}
	first.Telemetry = &runtime.PointTelemetry{URLs: []string{"http://gpu-node:9400/metrics", "http://vllm:8000/metrics"},
		Samples: samples, Summary: full, Warnings: []string{gapWarning, "telemetry: telemetry: " + droppedWarning}}
	label := res.Points[0].Params.Label()
	imgs, err := plots.RenderTelemetryPlots(label, first.Telemetry)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plots.WriteImages(filepath.Join(pointsDir, label, "plots"), imgs); err != nil {
		t.Fatal(err)
	}

	unknown := metrics.TelemetryValue{Why: energyWhy}
	partial := metrics.TelemetrySummary{Window: w, GPUs: []metrics.GPUTelemetry{h100("gpu0")},
		Power: metrics.NewDistribution([]float64{400}), Energy: unknown, AveragePower: unknown, EnergyPerToken: unknown,
		TokensPerJoule: unknown, CostPerMillionTokens: known(2.5)}
	res.Points[1].Outcome.Telemetry = &runtime.PointTelemetry{URLs: []string{"http://gpu-node:9400/metrics"},
		Samples: samples[:1], Summary: partial, Warnings: []string{"telemetry: telemetry: " + droppedWarning}}
}

// telemetryReport renders the sweep fixture with telemetry, its plots
// drawn as a run draws them, as report-telemetry.html in a temporary
// folder, or in LLMBENCH_HTML_KEEP to look at it.
func telemetryReport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if keep := os.Getenv("LLMBENCH_HTML_KEEP"); keep != "" {
		dir = keep
	}
	points := filepath.Join(dir, "points")
	results, verdicts := sweepFixture(t, points)
	withTelemetry(t, &results[0], points)
	tel, err := plots.RenderTelemetrySweepPlots(&results[0])
	if err != nil || len(tel) != 2 {
		t.Fatalf("rendered %d telemetry sweep plots: %v", len(tel), err)
	}
	rep := Report{Title: "llmbench · telemetry", Results: results, Verdicts: verdicts,
		Plots:     must(PlotGroups(results, nil, filesIn(t, points, plots.PointFiles))),
		Telemetry: must(TelemetryPlotGroups(results, map[string][]plots.Image{"chat-mix": tel}, filesIn(t, points, plots.TelemetryFiles)))}
	var b bytes.Buffer
	if err := writePage(&b, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report-telemetry.html"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// section is the page's telemetry section.
func section(t *testing.T, page string) string {
	t.Helper()
	i := strings.Index(page, "<h3>Telemetry</h3>")
	if i < 0 {
		t.Fatal("no telemetry section")
	}
	end := strings.Index(page[i:], "<h3>Dataset components")
	if end < 0 {
		t.Fatal("the telemetry section is not before the dataset components")
	}
	return page[i : i+end]
}

func TestTelemetrySection(t *testing.T) {
	s := section(t, telemetryReport(t))
	for _, want := range []string{
		"<code>http://gpu-node:9400/metrics</code>, <code>http://vllm:8000/metrics</code>",
		// concurrency1: 2 GPUs; power avg 650, p99 650 + 0.98·50 = 699;
		// 39 kJ; J/token; tokens/J; cost; utilisation 85 %.
		`<td class="l">concurrency1</td><td class="l">2 × NVIDIA H100 80GB HBM3</td><td>650.0</td><td>699.0</td><td>39.00</td><td>1.250</td><td>0.80</td><td>3.47</td><td>85</td>`,
		"<th>USD / 1M output tokens</th>",
		// concurrency4: energy unknown, its price still gives a cost.
		`<td class="l">concurrency4</td><td class="l">1 × NVIDIA H100 80GB HBM3</td><td>400.0</td><td>400.0</td><td>–</td><td>–</td><td>–</td><td>2.50</td><td>–</td>`,
		"energy, energy per output token, tokens per joule unknown at concurrency4: " + strings.ReplaceAll(energyWhy, "'", "&#39;"),
		// The server: running, waiting, KV cache peak, prefix-cache hits
		// 40 %, 2 preemptions, its TTFT 1.5 ms under the client's.
		`<td class="l">concurrency1</td><td class="l">vllm</td><td>7.0 / 8</td><td>1.5 / 3</td><td>92.5</td><td>40.0</td><td>2</td>`,
		"<td>&#43;1.50</td>", // html/template's "+"
		"concurrency1: " + strings.TrimPrefix(gapWarning, "telemetry: "),
		"concurrency1, concurrency4: " + droppedWarning,
		"no telemetry samples at concurrency16",
		"<h4>Along the sweep</h4>", `alt="chat-mix-throughput_energy_cost_vs_load"`, `alt="chat-mix-gpu_power_vs_load"`,
		"<h4>Over time, per point</h4>", `alt="concurrency1: telemetry_over_time"`, "<figcaption>concurrency1</figcaption>",
		`<figure class="tall">`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("telemetry section lacks %q", want)
		}
	}
	if n := strings.Count(s, `<td class="l">vllm</td>`); n != 1 {
		t.Errorf("%d server rows, want concurrency1's only", n)
	}
	if n := len(regexp.MustCompile(`<img [^>]*src="data:image/png;base64,`).FindAllString(s, -1)); n != 3 {
		t.Errorf("%d embedded telemetry plots, want the two sweep figures and concurrency1's timeline", n)
	}
}

// The server TTFT beside the client's is concurrency1's client mean less
// 1.5 ms, both printed.
func TestTelemetryServerLatency(t *testing.T) {
	results, _ := sweepFixture(t, t.TempDir())
	withTelemetry(t, &results[0], t.TempDir())
	v := newTelemetryView(&results[0])
	client := results[0].Points[0].Outcome.Summary.TimeToFirstToken.Avg / 1e6
	r := v.Server[0]
	if r.Compared != "TTFT" || r.ClientMean != num(client) || r.ServerMean != num(client-1.5) || r.ServerTTFT != num(client-1.5) || r.Difference != "+1.50" {
		t.Errorf("%s: server %s ms, client %s ms, difference %s; want TTFT %.2f, %.2f, +1.50", r.Compared, r.ServerMean, r.ClientMean, r.Difference,
			client-1.5, client)
	}
}

// The server's TTFT p99 is its histogram bucket, never a bare figure; a
// non-streamed point compares request latency, not the server's TTFT with
// the client's whole answer (before: the TTFT columns set 42 ms against
// the whole request).
func TestTelemetryServerBucketAndNonStreamed(t *testing.T) {
	results, _ := sweepFixture(t, t.TempDir())
	withTelemetry(t, &results[0], t.TempDir())
	out := results[0].Points[0].Outcome
	lat := &out.Telemetry.Summary.Server.Latencies
	(*lat)[0].P99In = &metrics.HistogramRange{Lower: 0.1, Upper: 0.25}
	*lat = append(*lat, metrics.ServerLatency{Metric: metrics.LatencyRequestLatency, OK: true, Count: 60, Mean: out.Summary.RequestLatency.Avg - 7e6})
	out.Summary.TimeToSecondToken = nil // one chunk per response: not streamed
	r := newTelemetryView(&results[0]).Server[0]
	if r.ServerTTFTP99 != "in (100, 250]" {
		t.Errorf("server TTFT p99 cell %q, want \"in (100, 250]\"", r.ServerTTFTP99)
	}
	if r.Compared != "request latency" || r.ClientMean != num(out.Summary.RequestLatency.Avg/1e6) || r.Difference != "+7.00" {
		t.Errorf("non-streamed row compares %q: client %s, difference %s; want request latency, +7.00", r.Compared, r.ClientMean, r.Difference)
	}
}

// A run without telemetry shows none of it: no section, no column, no
// plot, no price.
func TestNoTelemetryNoSection(t *testing.T) {
	page := string(writeFixtureReport(t, t.TempDir()))
	// The temporary folder, shown in the configuration, is named after
	// the test: look for the section's heading, not the word.
	for _, bad := range []string{"<h3>Telemetry", "J / output token", "Inference server", "Along the sweep",
		"Over time, per point", "telemetry_over_time", "energy_cost", "gpu_power", "price"} {
		if strings.Contains(page, bad) {
			i := strings.Index(page, bad)
			t.Errorf("a run without telemetry shows %q: %s", bad, page[max(0, i-100):i+50])
		}
	}
	results, _ := sweepFixture(t, t.TempDir())
	if v := newTelemetryView(&results[0]); v != nil {
		t.Errorf("telemetry view %+v without telemetry", v)
	}
	if groups := must(TelemetryPlotGroups(results, nil, filesIn(t, t.TempDir(), plots.TelemetryFiles))); len(groups) != 0 {
		t.Errorf("telemetry plot groups %+v without telemetry", groups)
	}
}

// Without a price no cost column is shown, nor a line per point saying
// the cost is unknown.
func TestTelemetryWithoutPrice(t *testing.T) {
	results, _ := sweepFixture(t, t.TempDir())
	withTelemetry(t, &results[0], t.TempDir())
	for _, i := range []int{0, 1} {
		tel := results[0].Points[i].Outcome.Telemetry
		tel.Summary.Window.CostPerHour = 0
		tel.Summary.CostPerMillionTokens = metrics.TelemetryValue{Why: "no price was given (cost_per_hour=)"}
	}
	var b bytes.Buffer
	if err := writePage(&b, Report{Results: results}); err != nil {
		t.Fatal(err)
	}
	s := section(t, b.String())
	if strings.Contains(s, "1M output tokens") || strings.Contains(s, "cost_per_hour") {
		t.Errorf("a run without a price shows a cost:\n%s", s)
	}
	if !strings.Contains(s, "<td>1.250</td><td>0.80</td><td>85</td>") {
		t.Errorf("the energy row lost its cells without the cost column:\n%s", s)
	}
}

// A warning every point gave is said once, naming the points.
func TestTelemetryWarningsOnce(t *testing.T) {
	s := section(t, telemetryReport(t))
	if n := strings.Count(s, droppedWarning); n != 1 {
		t.Errorf("the dropped URL is warned about %d times, want once for both points", n)
	}
}

// The simulator's figures say so in the page (its GPUs and its server),
// and a server TTFT above the client's is not a negative difference: the
// cell says the windows differ.
func TestTelemetrySimulatedAndWindowsDiffer(t *testing.T) {
	results, _ := sweepFixture(t, t.TempDir())
	withTelemetry(t, &results[0], t.TempDir())
	tel := results[0].Points[0].Outcome.Telemetry
	tel.Summary.Simulated = true
	tel.Summary.Server.Latencies[0].Mean = results[0].Points[0].Outcome.Summary.TimeToFirstToken.Avg + 4e6
	v := newTelemetryView(&results[0])
	if r := v.Energy[0]; r.GPUs != "2 × NVIDIA H100 80GB HBM3 (simulated)" {
		t.Errorf("GPUs cell %q", r.GPUs)
	}
	if r := v.Server[0]; r.Engines != "vllm (simulated)" || r.Difference != metrics.WindowsDiffer {
		t.Errorf("server row: engines %q, difference %q", r.Engines, r.Difference)
	}
	if r := v.Energy[1]; strings.Contains(r.GPUs, "simulated") {
		t.Errorf("a real point's GPUs cell %q", r.GPUs)
	}
}
