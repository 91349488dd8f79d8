package plots

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// withTelemetry gives every point of the sweep fixture but the first
// (unscraped) a telemetry summary: power that grows with the load up to a
// 700 W limit, energy per token falling as throughput grows, and, with a
// price, the cost per million tokens that price and throughput give.
func withTelemetry(res *runtime.ExperimentResult, costPerHour float64, currency string) *runtime.ExperimentResult {
	for i := range res.Points {
		if i == 0 {
			continue
		}
		o := res.Points[i].Outcome
		c := res.Points[i].Params[metrics.ParamConcurrency]
		watts := 250 + 450*(1-math.Exp(-c/16))
		thr := o.Summary.OutputTokenThroughput
		t := metrics.TelemetrySummary{Window: metrics.TelemetryWindow{Start: 0, End: 60e9, OutputTokens: thr * 60,
			CostPerHour: costPerHour, Currency: currency}}
		t.Power = metrics.NewDistribution([]float64{watts * 0.95, watts, watts * 1.1})
		t.AveragePower = metrics.TelemetryValue{Value: watts, OK: true}
		t.Energy = metrics.TelemetryValue{Value: watts * 60, OK: true}
		t.EnergyPerToken = metrics.TelemetryValue{Value: watts / thr, OK: true}
		t.TokensPerJoule = metrics.TelemetryValue{Value: thr / watts, OK: true}
		t.CostPerMillionTokens = metrics.TelemetryValue{Why: "no price was given (cost_per_hour=)"}
		if costPerHour > 0 {
			v, _ := metrics.CostPerMillionTokens(costPerHour, thr)
			t.CostPerMillionTokens = metrics.TelemetryValue{Value: v, OK: true}
		}
		t.GPUs = []metrics.GPUTelemetry{{GenAIPerfKey: "gpu0", Fields: []metrics.GPUField{
			{TelemetryField: metrics.TelemetryFields[1], Stats: metrics.NewDistribution([]float64{700})}}}}
		o.Telemetry = &runtime.PointTelemetry{Summary: t}
	}
	return res
}

// telemetryPoint is a point scraped every 0.33 s from 1 s before its
// 10 s window to 1 s after: one GPU whose power and energy counter follow
// the load, and a vLLM server whose batch fills to 8 by 3 s, then queues
// up to 5 more, its KV cache filling with it.
func telemetryPoint() *runtime.PointTelemetry {
	const start = int64(1_700_000_000e9)
	gpu := []metrics.Label{{Name: "UUID", Value: "GPU-0"}, {Name: "gpu", Value: "0"}, {Name: "modelName", Value: "NVIDIA H100"}}
	var samples []metrics.TelemetrySample
	energy := 1e9 // mJ
	for k := 0; ; k++ {
		at := -1 + 0.33*float64(k)
		if at > 11 {
			break
		}
		running, waiting := 0.0, 0.0
		if at >= 0 && at <= 10 {
			running = min(8, math.Ceil(at*8/3))
			waiting = min(5, max(0, math.Floor(at-4)))
		}
		watts := 90 + 60*running
		energy += watts * 330 // mJ over 0.33 s
		t := start + int64(at*1e9)
		add := func(src, name string, v float64, labels []metrics.Label) {
			samples = append(samples, metrics.TelemetrySample{Time: t, Source: src, Name: name, Labels: labels, Value: v})
		}
		add("dcgm:9400", "DCGM_FI_DEV_POWER_USAGE", watts, gpu)
		add("dcgm:9400", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", energy, gpu)
		add("vllm:8000", "vllm:num_requests_running", running, nil)
		add("vllm:8000", "vllm:num_requests_waiting", waiting, nil)
		add("vllm:8000", "vllm:kv_cache_usage_perc", running/8*0.9, nil)
	}
	w := metrics.TelemetryWindow{Start: start, End: start + 10e9, OutputTokens: 4000}
	return &runtime.PointTelemetry{Samples: samples, Summary: metrics.ReduceTelemetry(samples, w)}
}

// checkFigure decodes a PNG, checks its size and that coloured series
// were drawn, as checkPNG does for one-panel plots.
func checkFigure(t *testing.T, img Image, panels int) {
	t.Helper()
	m, err := png.Decode(bytes.NewReader(img.PNG))
	if err != nil {
		t.Fatalf("%s: %v", img.Name, err)
	}
	want := image.Rect(0, 0, int(Width.Dots(96)), int(panelsHeight(panels).Dots(96)+0.5))
	if m.Bounds() != want {
		t.Errorf("%s: size %v, want %v for %d panels", img.Name, m.Bounds(), want, panels)
	}
	if n := colouredPixels(m); n < 200*panels {
		t.Errorf("%s: only %d coloured pixels: nothing plotted", img.Name, n)
	}
}

func TestTelemetrySweepPlots(t *testing.T) {
	dir := outDir(t)
	paths, err := WriteSweepPlots(dir, withTelemetry(sweepResult(false, false), 4, "USD"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"chat-" + StemThroughputTTFT + ".png", "chat-" + StemThroughputITL + ".png",
		"chat-" + StemThreeAxes + ".png", "chat-" + StemGPUPower + ".png"}
	if got := names(paths); !slices.Equal(got, want) {
		t.Fatalf("wrote %v, want %v", got, want)
	}
	checkPNG(t, filepath.Join(dir, want[3]))
	imgs, err := RenderTelemetrySweepPlots(withTelemetry(sweepResult(false, false), 4, "USD"))
	if err != nil || len(imgs) != 2 {
		t.Fatalf("rendered %d telemetry sweep plots: %v", len(imgs), err)
	}
	checkFigure(t, imgs[0], 3)
}

// The panels are the quantities measured: without a price the figure is
// throughput and energy; the cost panel names the run's currency, EUR by
// default; points without telemetry are left out of the telemetry panels.
func TestThreeAxesPanels(t *testing.T) {
	d := newSweepData(withTelemetry(sweepResult(false, false), 0, ""))
	panels, err := threeAxes(d)
	if err != nil || len(panels) != 2 {
		t.Fatalf("no price: %d panels (%v), want throughput and energy", len(panels), err)
	}
	if got := panels[1].Y.Label.Text; got != "energy per output token (J/token)" {
		t.Errorf("energy panel's axis %q", got)
	}
	for _, tc := range []struct{ currency, want string }{{"", "EUR"}, {"USD", "USD"}} {
		d := newSweepData(withKnee(t, withTelemetry(sweepResult(false, false), 4, tc.currency), "ttft.p99 < 500ms"))
		panels, err := threeAxes(d)
		if err != nil || len(panels) != 3 {
			t.Fatalf("%d panels (%v), want three", len(panels), err)
		}
		if got := panels[2].Y.Label.Text; got != tc.want+" per million output tokens" {
			t.Errorf("currency %q: cost axis %q", tc.currency, got)
		}
		// Marks are named once, in the top panel; every panel spans the
		// same loads.
		for i, p := range panels {
			if p.X.Min != 1 || p.X.Max != 128 || p.Y.Min != 0 {
				t.Errorf("panel %d spans x [%g, %g], y from %g; want [1, 128] from 0", i, p.X.Min, p.X.Max, p.Y.Min)
			}
			if h := p.Legend.Rectangle(draw.Canvas{}).Size().Y; (i == 0) != (h > 0) {
				t.Errorf("panel %d has a legend %v high: want the marks named in the top panel only", i, h)
			}
		}
	}
	energy := alongLoad(d, telemetryValue(func(s *metrics.TelemetrySummary) metrics.TelemetryValue { return s.EnergyPerToken }))
	if len(energy.xys) != len(d.pts)-1 || energy.xys[0].X != 2 {
		t.Errorf("energy at loads %v: want every point but the unscraped c=1", xs(energy.xys))
	}
}

// A sweep without telemetry, or with a single point, gets no telemetry
// plot.
func TestTelemetrySweepPlotsAbsent(t *testing.T) {
	if imgs, err := RenderTelemetrySweepPlots(sweepResult(true, true)); err != nil || len(imgs) != 0 {
		t.Errorf("no telemetry: rendered %d plots, %v", len(imgs), err)
	}
	one := withTelemetry(sweepResult(false, false), 4, "")
	one.Points = one.Points[1:2]
	if imgs, err := RenderTelemetrySweepPlots(one); err != nil || len(imgs) != 0 {
		t.Errorf("one point: rendered %d plots, %v", len(imgs), err)
	}
}

// The power plot shows the summed power limit, so the headroom shows.
func TestPowerVsLoad(t *testing.T) {
	p, err := powerVsLoad(newSweepData(withTelemetry(sweepResult(false, false), 0, "")))
	if err != nil || p == nil {
		t.Fatalf("no power plot: %v", err)
	}
	if gpus, limit := sweepGPUs(newSweepData(withTelemetry(sweepResult(false, false), 0, ""))); gpus != 1 || limit != 700 {
		t.Errorf("%d GPUs limited to %g W, want 1 GPU at 700 W", gpus, limit)
	}
}

func TestTelemetryPointPlot(t *testing.T) {
	pt := telemetryPoint()
	dir := outDir(t)
	imgs, err := RenderTelemetryPlots("chat / concurrency8", pt)
	if err != nil || len(imgs) != 1 {
		t.Fatalf("rendered %d: %v", len(imgs), err)
	}
	paths, err := WriteImages(dir, imgs)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(paths); !slices.Equal(got, []string{FileTelemetry}) || !slices.Equal(TelemetryFiles(dir), paths) {
		t.Fatalf("wrote %v, listed %v", got, TelemetryFiles(dir))
	}
	checkFigure(t, imgs[0], 3)
	if s := pt.Summary.Server; s.Running == nil || s.Running.Max != 8 || s.Waiting.Max != 5 {
		t.Fatalf("fixture's server %+v", s)
	}
}

// Only the panels measured are drawn: a DCGM exporter alone gives power
// only; no samples, or no telemetry, give nothing.
func TestTelemetryPointPlotPanels(t *testing.T) {
	pt := telemetryPoint()
	var gpuOnly []metrics.TelemetrySample
	for _, s := range pt.Samples {
		if s.Source == "dcgm:9400" {
			gpuOnly = append(gpuOnly, s)
		}
	}
	pt.Samples = gpuOnly
	imgs, err := RenderTelemetryPlots("", pt)
	if err != nil || len(imgs) != 1 {
		t.Fatalf("GPU only: rendered %d: %v", len(imgs), err)
	}
	checkFigure(t, imgs[0], 1)
	// A point whose window is empty (nothing completed) is still drawn,
	// from its first scrape, without window edges.
	pt.Summary.Window = metrics.TelemetryWindow{}
	if imgs, err := RenderTelemetryPlots("", pt); err != nil || len(imgs) != 1 {
		t.Errorf("empty window: rendered %d: %v", len(imgs), err)
	}
	for name, pt := range map[string]*runtime.PointTelemetry{"nil": nil, "no samples": {Warnings: []string{"x"}}} {
		if imgs, err := RenderTelemetryPlots("", pt); err != nil || len(imgs) != 0 {
			t.Errorf("%s: rendered %d, %v", name, len(imgs), err)
		}
	}
	if paths := TelemetryFiles(t.TempDir()); paths != nil {
		t.Errorf("empty folder lists %v", paths)
	}
}

func TestThreeDigits(t *testing.T) {
	for v, want := range map[float64]string{2: "2.00", 1.157: "1.16", 0.6361: "0.636", 1895.7: "1896", 0.00421: "0.00421", 0: "0"} {
		if got := threeDigits(v); got != want {
			t.Errorf("threeDigits(%g) = %q, want %q", v, got, want)
		}
	}
}
