package telemetry

import (
	"math"
	"slices"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// Block is a point's telemetry as llmbench's JSON files carry it (the
// "telemetry" key of profile_export_genai_perf.json's "llmbench" block and
// of each point in summary.json). Energy, power and cost are llmbench's
// own figures (the counter's delta over the window), beside GenAI-Perf's
// telemetry_stats over the raw counter. A value that could not be known is
// null with a "why". Simulated says every figure is the simulator's, made
// up (metrics.SimulatedMarker); its sources, GPUs and server say so too.
type Block struct {
	Simulated      bool     `json:"simulated"`
	Sources        []Source `json:"sources"`
	GPUs           []GPU    `json:"gpus"`
	EnergyJ        Value    `json:"energy_j"`
	AveragePowerW  Value    `json:"average_power_w"`
	PowerW         *Stats   `json:"power_w,omitempty"`
	UtilizationPct *Stats   `json:"utilization_pct,omitempty"`
	EnergyPerToken Value    `json:"energy_per_token_j"`
	TokensPerJoule Value    `json:"tokens_per_joule"`
	CostPerMTok    Value    `json:"cost_per_million_tokens"`
	Currency       string   `json:"currency"`
	Server         Server   `json:"server"`
	ServerVsClient []Gap    `json:"server_vs_client"`
	Notes          []string `json:"notes"`
	Warnings       []string `json:"warnings"`
	Window         [2]int64 `json:"window_ns"`
	// ServerWindow is the span the server's figures cover, with the
	// requests the server and the client counted in it.
	ServerWindow *runtime.ServerWindow `json:"server_window,omitempty"`
	// TokenChecks are the client's ISL/OSL sums beside the server's token
	// counters over the same requests.
	TokenChecks []runtime.TokenCheck `json:"token_checks,omitempty"`
	Samples     int                  `json:"samples"`
}

// Source is one scraped URL and how its scrapes went. Simulated marks
// the simulator's page; LeftOut one that no figure reads, since real
// exporters were scraped beside it.
type Source struct {
	URL            string     `json:"url"`
	Simulated      bool       `json:"simulated"`
	LeftOut        bool       `json:"left_out"`
	Attempts       int        `json:"attempts"`
	Failures       int        `json:"failures"`
	FirstError     string     `json:"first_error,omitempty"`
	Gaps           [][2]int64 `json:"gaps_ns"`
	CPUPerScrapeMS float64    `json:"cpu_per_scrape_ms"`
}

// GPU is one GPU's energy and power over the point.
type GPU struct {
	Key           string `json:"key"`
	Source        string `json:"source"`
	UUID          string `json:"uuid,omitempty"`
	Model         string `json:"model,omitempty"`
	Simulated     bool   `json:"simulated"`
	EnergyJ       Value  `json:"energy_j"`
	AveragePowerW Value  `json:"average_power_w"`
}

// Server is the inference server's own view of the point.
type Server struct {
	Engines            []string `json:"engines"`
	Simulated          bool     `json:"simulated"`
	Running            *Stats   `json:"running,omitempty"`
	Waiting            *Stats   `json:"waiting,omitempty"`
	KVCacheUsagePct    *Stats   `json:"kv_cache_usage_pct,omitempty"`
	PrefixCacheHitRate Value    `json:"prefix_cache_hit_rate"`
	Preemptions        Value    `json:"preemptions"`
	// PromptTokens, GenerationTokens and CachedPromptTokens are the
	// server's token counters over its window; FinishReasons its finished
	// requests by why they stopped ("length": at max_tokens, "stop": the
	// model ended), absent when it exports none.
	PromptTokens       Value              `json:"prompt_tokens"`
	GenerationTokens   Value              `json:"generation_tokens"`
	CachedPromptTokens Value              `json:"cached_prompt_tokens"`
	FinishReasons      map[string]float64 `json:"finish_reasons,omitempty"`
	Latencies          []Latency          `json:"latencies"`
}

// Latency is one of the server's latency histograms over the point, ms.
// The mean is exact (Δsum/Δcount); a quantile is known only to the
// histogram bucket it falls in, so each is its bucket, with
// histogram_quantile's interpolation inside it beside (what a Grafana
// panel shows, not a measurement: with wide buckets it can lie far from
// every request). Null when unknown.
type Latency struct {
	Metric string    `json:"metric"`
	Count  float64   `json:"count"`
	MeanMS *float64  `json:"mean_ms"`
	P50    *Quantile `json:"p50"`
	P90    *Quantile `json:"p90"`
	P99    *Quantile `json:"p99"`
	Why    string    `json:"why,omitempty"`
}

// Quantile is a server quantile read from a histogram: BucketMS is the
// bucket it lies in, [lower, upper] meaning (lower, upper] ms, upper null
// when it lies above the highest finite bound; InterpolatedMS is
// histogram_quantile's value.
type Quantile struct {
	BucketMS       [2]*float64 `json:"bucket_ms"`
	InterpolatedMS *float64    `json:"interpolated_ms"`
}

// Gap is the server's mean beside the client's, ms, between like
// quantities only (TTFT when the client timed a first token, request
// latency always): the difference is what happens outside the server's
// clock (Covers: the server's front end, the network and the client),
// null with a "why" when the server's mean is the longer (its window held
// other requests).
type Gap struct {
	Metric       string   `json:"metric"`
	ClientMS     float64  `json:"client_ms"`
	ServerMS     float64  `json:"server_ms"`
	ClientCount  float64  `json:"client_count"`
	ServerCount  float64  `json:"server_count"`
	DifferenceMS *float64 `json:"difference_ms"`
	Covers       string   `json:"difference_covers"`
	Why          string   `json:"why,omitempty"`
}

// Stats are a sampled quantity's avg, max and p99.
type Stats struct {
	Avg float64 `json:"avg"`
	Max float64 `json:"max"`
	P99 float64 `json:"p99"`
}

// Value is a number or null with the reason it is unknown.
type Value struct {
	Value *float64 `json:"value"`
	Why   string   `json:"why,omitempty"`
}

// BlockOf is a point's telemetry block; nil when nothing was scraped.
func BlockOf(pt *runtime.PointTelemetry, client *metrics.Summary) *Block {
	if pt == nil {
		return nil
	}
	t := &pt.Summary
	b := &Block{Simulated: t.Simulated, EnergyJ: value(t.Energy), AveragePowerW: value(t.AveragePower), PowerW: stats(t.Power, 1),
		UtilizationPct: stats(t.Utilization, 1), EnergyPerToken: value(t.EnergyPerToken), TokensPerJoule: value(t.TokensPerJoule),
		CostPerMTok: value(t.CostPerMillionTokens), Currency: Currency(t), Server: serverOf(&t.Server, t.Simulated),
		Notes: nonNil(t.Notes), Warnings: nonNil(pt.AllWarnings()), Window: [2]int64{t.Window.Start, t.Window.End},
		Samples: len(pt.Samples), GPUs: []GPU{}, Sources: []Source{}, ServerVsClient: []Gap{}, ServerWindow: pt.ServerWindow,
		TokenChecks: pt.TokenChecks}
	for _, r := range pt.Reports {
		s := Source{URL: r.Source, Simulated: slices.Contains(t.SimulatedSources, r.Source),
			LeftOut: slices.Contains(t.SimulatedLeftOut, r.Source), Attempts: r.Attempts, Failures: r.Failures, FirstError: r.FirstError, Gaps: [][2]int64{},
			CPUPerScrapeMS: float64(r.CPUPerScrape().Microseconds()) / 1e3}
		for _, g := range r.Gaps {
			s.Gaps = append(s.Gaps, [2]int64{g.Start, g.End})
		}
		b.Sources = append(b.Sources, s)
	}
	for _, g := range t.GPUs {
		b.GPUs = append(b.GPUs, GPU{Key: g.GenAIPerfKey, Source: g.ID.Source, UUID: g.ID.UUID, Model: g.ModelName,
			Simulated: g.Simulated, EnergyJ: value(g.Energy), AveragePowerW: value(g.AveragePower)})
	}
	for _, m := range []string{metrics.LatencyTTFT, metrics.LatencyRequestLatency} {
		if gap, err := metrics.CompareServerLatency(m, client, t); err == nil {
			d := scaled(gap.Difference, 1e-6)
			b.ServerVsClient = append(b.ServerVsClient, Gap{Metric: m, ClientMS: gap.Client / 1e6, ServerMS: gap.Server / 1e6,
				ClientCount: gap.ClientCount, ServerCount: gap.ServerCount, DifferenceMS: d.Value, Covers: metrics.GapName, Why: d.Why})
		}
	}
	return b
}

// serverOf is the server part; simulated says the server is the
// simulator.
func serverOf(s *metrics.ServerTelemetry, simulated bool) Server {
	out := Server{Engines: nonNil(s.Engines), Simulated: simulated && len(s.Engines) > 0, Running: stats(s.Running, 1), Waiting: stats(s.Waiting, 1),
		KVCacheUsagePct: stats(s.KVCacheUsage, 1), PrefixCacheHitRate: value(s.PrefixCacheHitRate),
		Preemptions: value(s.Preemptions), PromptTokens: value(s.PromptTokens), GenerationTokens: value(s.GenerationTokens),
		CachedPromptTokens: value(s.CachedPromptTokens), Latencies: []Latency{}}
	for _, f := range s.FinishReasons {
		if out.FinishReasons == nil {
			out.FinishReasons = map[string]float64{}
		}
		out.FinishReasons[f.Reason] = f.Count
	}
	for _, l := range s.Latencies {
		out.Latencies = append(out.Latencies, Latency{Metric: l.Metric, Count: l.Count, MeanMS: ms(l.Mean), P50: quantile(l.P50In, l.P50),
			P90: quantile(l.P90In, l.P90), P99: quantile(l.P99In, l.P99), Why: l.Why})
	}
	return out
}

// quantile is a server quantile's bucket (seconds) and interpolation
// (ns) in ms; nil when the histogram cannot say.
func quantile(in *metrics.HistogramRange, interpolated float64) *Quantile {
	if in == nil {
		return nil
	}
	return &Quantile{BucketMS: [2]*float64{ms(in.Lower * 1e9), ms(in.Upper * 1e9)}, InterpolatedMS: ms(interpolated)}
}

func value(v metrics.TelemetryValue) Value {
	if !v.OK || math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
		return Value{Why: v.Why}
	}
	x := v.Value
	return Value{Value: &x}
}

// scaled is v times scale, as a Value.
func scaled(v metrics.TelemetryValue, scale float64) Value {
	v.Value *= scale
	return value(v)
}

func stats(d *metrics.Distribution, scale float64) *Stats {
	if d == nil || d.Count == 0 {
		return nil
	}
	return &Stats{Avg: d.Avg * scale, Max: d.Max * scale, P99: d.Percentile(99) * scale}
}

func ms(ns float64) *float64 {
	if math.IsNaN(ns) || math.IsInf(ns, 0) {
		return nil
	}
	v := ns / 1e6
	return &v
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
