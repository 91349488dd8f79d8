package html

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/telemetry"
	"github.com/llmbench/llmbench/runtime"
)

// telemetryView is an experiment's telemetry section (SPEC §8): what the
// GPUs drew and what a token cost, what the server itself saw, and what
// went wrong scraping, one row per point so loads compare down a column.
// Its numbers are telemetry.BlockOf's, so the page says what
// profile_export_genai_perf.json and summary.json say.
type telemetryView struct {
	// Sources are the URLs scraped, credentials removed.
	Sources []string
	// Energy has a row per point whose GPUs were scraped; Cost says
	// whether its cost column is shown (some point had a price) and in
	// which currency.
	Energy   []energyRow
	Cost     bool
	Currency string
	// Server has a row per point whose inference server was recognised.
	Server []serverRow
	// Unknown says, per reason, which values could not be known where.
	Unknown []string
	// Warnings are the scrapers' (URLs dropped, scrapes failed, gaps);
	// Notes the reductions' (values ignored, counters reset).
	Warnings, Notes []string
	// SweepPlots and PointPlots are the experiment's telemetry plots,
	// embedded by buildPage.
	SweepPlots []imageView
	PointPlots []plotView
}

type energyRow struct {
	Point, GPUs, PowerAvg, PowerP99, Energy, PerToken, TokensPerJ, Cost, Utilization string
}

// serverRow is a point's server figures. ServerTTFT is the server's exact
// mean and ServerTTFTP99 the histogram bucket its p99 falls in, never a
// point a client p99 could be read against. Compared is the quantity whose
// means are set side by side — TTFT when the client timed a first token,
// else request latency (a non-streamed client's TTFT is its whole answer)
// — and Difference is client − server (metrics.GapName).
type serverRow struct {
	Point, Engines, Running, Waiting, KVPeak, PrefixHits, Preemptions string
	ServerTTFT, ServerTTFTP99                                         string
	Compared, ClientMean, ServerMean, Difference                      string
}

// newTelemetryView gathers the experiment's telemetry; nil when no point
// was scraped, so a run without telemetry shows no trace of it.
func newTelemetryView(res *runtime.ExperimentResult) *telemetryView {
	v := &telemetryView{}
	unknown := &unknownValues{}
	var unscraped []string
	warnings := &pointLines{}
	seen := false
	for i := range res.Points {
		pt := &res.Points[i]
		if pt.Outcome == nil {
			continue
		}
		label, tel := pt.Params.Label(), pt.Outcome.Telemetry
		if tel == nil {
			unscraped = append(unscraped, label)
			continue
		}
		seen = true
		for _, w := range tel.AllWarnings() {
			warnings.add(label, w)
		}
		for _, u := range tel.URLs {
			if !slices.Contains(v.Sources, u) {
				v.Sources = append(v.Sources, u)
			}
		}
		if len(tel.Samples) == 0 {
			unscraped = append(unscraped, label)
			continue
		}
		for _, n := range tel.Summary.Notes {
			v.Notes = append(v.Notes, label+": "+n)
		}
		b := telemetry.BlockOf(tel, &pt.Outcome.Summary)
		if len(b.GPUs) > 0 || b.PowerW != nil {
			v.Energy = append(v.Energy, newEnergyRow(label, b, unknown))
			v.Cost = v.Cost || tel.Summary.Window.CostPerHour > 0
			if v.Currency == "" {
				v.Currency = b.Currency
			}
		}
		if len(b.Server.Engines) > 0 {
			v.Server = append(v.Server, newServerRow(label, b, unknown))
		}
	}
	if !seen {
		return nil
	}
	v.Warnings = warnings.lines()
	if len(unscraped) > 0 {
		v.Warnings = append(v.Warnings, "no telemetry samples at "+strings.Join(unscraped, ", "))
	}
	if !v.Cost {
		unknown.drop("cost per million output tokens")
	}
	v.Unknown = unknown.lines()
	return v
}

func newEnergyRow(point string, b *telemetry.Block, u *unknownValues) energyRow {
	r := energyRow{Point: point, GPUs: gpuWords(b.GPUs, b.Simulated), PowerAvg: absent, PowerP99: absent, Utilization: absent,
		Energy:     u.value(point, "energy", b.EnergyJ, 1e-3, "%.2f"),
		PerToken:   u.value(point, "energy per output token", b.EnergyPerToken, 1, "%.3f"),
		TokensPerJ: u.value(point, "tokens per joule", b.TokensPerJoule, 1, "%.2f"),
		Cost:       u.value(point, "cost per million output tokens", b.CostPerMTok, 1, "%.2f")}
	if s := b.PowerW; s != nil {
		r.PowerAvg, r.PowerP99 = fmt.Sprintf("%.1f", s.Avg), fmt.Sprintf("%.1f", s.P99)
	}
	if s := b.UtilizationPct; s != nil {
		r.Utilization = fmt.Sprintf("%.0f", s.Avg)
	}
	return r
}

func newServerRow(point string, b *telemetry.Block, u *unknownValues) serverRow {
	s := &b.Server
	engines := strings.Join(s.Engines, ", ")
	if s.Simulated {
		engines += simulatedWord
	}
	r := serverRow{Point: point, Engines: engines,
		Running: avgMax(s.Running), Waiting: avgMax(s.Waiting), KVPeak: absent,
		PrefixHits:  u.value(point, "prefix-cache hit rate", s.PrefixCacheHitRate, 100, "%.1f"),
		Preemptions: u.value(point, "preemptions", s.Preemptions, 1, "%.0f"),
		ServerTTFT:  absent, ServerTTFTP99: absent, Compared: absent, ClientMean: absent, ServerMean: absent, Difference: absent}
	if s.KVCacheUsagePct != nil {
		r.KVPeak = fmt.Sprintf("%.1f", s.KVCacheUsagePct.Max)
	}
	for _, l := range s.Latencies {
		if l.Metric != metrics.LatencyTTFT {
			continue
		}
		if l.MeanMS != nil {
			r.ServerTTFT = fmt.Sprintf("%.2f", *l.MeanMS)
		}
		if l.P99 != nil {
			r.ServerTTFTP99 = bucketWords(l.P99.BucketMS)
		}
	}
	if len(b.ServerVsClient) == 0 {
		return r
	}
	g := b.ServerVsClient[0] // TTFT when compared, else request latency
	r.Compared, r.ClientMean, r.ServerMean = comparedNames[g.Metric], fmt.Sprintf("%.2f", g.ClientMS), fmt.Sprintf("%.2f", g.ServerMS)
	r.Difference = metrics.WindowsDiffer
	if g.DifferenceMS != nil {
		r.Difference = fmt.Sprintf("%+.2f", *g.DifferenceMS)
	}
	return r
}

// comparedNames name the quantities a server row compares.
var comparedNames = map[string]string{metrics.LatencyTTFT: "TTFT", metrics.LatencyRequestLatency: "request latency"}

// bucketWords says a quantile's bucket, ms, as the console does.
func bucketWords(b [2]*float64) string {
	r := metrics.HistogramRange{Upper: math.Inf(+1)} // a null upper bound is +Inf
	if b[0] != nil {
		r.Lower = *b[0] / 1e3
	}
	if b[1] != nil {
		r.Upper = *b[1] / 1e3
	}
	return strings.TrimSpace(r.Format(1e3, ""))
}

// avgMax prints a queue length as "avg / max".
func avgMax(s *telemetry.Stats) string {
	if s == nil {
		return absent
	}
	return fmt.Sprintf("%.1f / %.0f", s.Avg, s.Max)
}

// simulatedWord follows what the simulator made up, in a cell.
const simulatedWord = " (simulated)"

// gpuWords counts the GPUs by model: "2 × NVIDIA H100 80GB HBM3", and
// "(simulated)" after the simulator's.
func gpuWords(gpus []telemetry.GPU, simulated bool) string {
	if len(gpus) == 0 {
		return absent
	}
	var models []string
	count := map[string]int{}
	for _, g := range gpus {
		m := g.Model
		if m == "" {
			m = "GPU"
		}
		if count[m] == 0 {
			models = append(models, m)
		}
		count[m]++
	}
	parts := make([]string, len(models))
	for i, m := range models {
		parts[i] = fmt.Sprintf("%d × %s", count[m], m)
	}
	words := strings.Join(parts, ", ")
	if simulated {
		words += simulatedWord
	}
	return words
}

// unknownValues collects why values could not be known, by quantity and
// reason, so a reason shared by every point is said once, not per cell.
type unknownValues struct {
	order  []string
	points map[string][]string
}

// value prints a known value scaled, or a dash whose reason is kept.
func (u *unknownValues) value(point, what string, v telemetry.Value, scale float64, format string) string {
	if v.Value != nil {
		return fmt.Sprintf(format, *v.Value*scale)
	}
	key := what + "\x00" + v.Why
	if u.points == nil {
		u.points = map[string][]string{}
	}
	if _, ok := u.points[key]; !ok {
		u.order = append(u.order, key)
	}
	u.points[key] = append(u.points[key], point)
	return absent
}

// drop forgets a quantity whose column is not shown.
func (u *unknownValues) drop(what string) {
	u.order = slices.DeleteFunc(u.order, func(k string) bool { return strings.HasPrefix(k, what+"\x00") })
}

// lines words each reason once for the values and points it left
// unknown: "energy, energy per output token unknown at concurrency1,
// concurrency2: no energy counter sample at or before the window's start".
func (u *unknownValues) lines() []string {
	var keys []string
	whats := map[string][]string{}
	for _, key := range u.order {
		what, why, _ := strings.Cut(key, "\x00")
		line := " unknown at " + strings.Join(u.points[key], ", ")
		if why != "" {
			line += ": " + why
		}
		if whats[line] == nil {
			keys = append(keys, line)
		}
		whats[line] = append(whats[line], what)
	}
	out := make([]string, len(keys))
	for i, line := range keys {
		out[i] = strings.Join(whats[line], ", ") + line
	}
	return out
}

// pointLines collects messages that points share, so a URL dropped at
// every point of a sweep is one line naming the points, not one per point.
type pointLines struct {
	order  []string
	points map[string][]string
}

// add notes that point said text. The section is the telemetry's, so
// the "telemetry: " the runtime starts its warnings with goes.
func (p *pointLines) add(point, text string) {
	for strings.HasPrefix(text, "telemetry: ") {
		text = strings.TrimPrefix(text, "telemetry: ")
	}
	if p.points == nil {
		p.points = map[string][]string{}
	}
	if _, ok := p.points[text]; !ok {
		p.order = append(p.order, text)
	}
	p.points[text] = append(p.points[text], point)
}

// lines words each message after the points that said it.
func (p *pointLines) lines() []string {
	out := make([]string, len(p.order))
	for i, text := range p.order {
		out[i] = strings.Join(p.points[text], ", ") + ": " + text
	}
	return out
}

// TelemetryPlots are one experiment's telemetry plots, shown in its
// telemetry section.
type TelemetryPlots struct {
	// Sweep are the sweep's (plots.RenderTelemetrySweepPlots), embedded
	// as rendered.
	Sweep []plots.Image
	// Points are each point's telemetry over time, one group per point
	// titled with its label.
	Points []PlotGroup
}

// TelemetryPlotGroups lays out each experiment's telemetry plots, keyed
// by experiment name: its sweep's from sweeps (by experiment name, already
// rendered), then each point's telemetry over time from points (nil
// leaves them out). An experiment with neither is absent.
func TelemetryPlotGroups(results []runtime.ExperimentResult, sweeps map[string][]plots.Image,
	points PointImages) (map[string]TelemetryPlots, error) {
	out := map[string]TelemetryPlots{}
	for i := range results {
		res := &results[i]
		name := experimentName(res)
		tp := TelemetryPlots{Sweep: sweeps[name]}
		for j := range res.Points {
			if points == nil {
				break
			}
			pt := &res.Points[j]
			imgs, err := points(name, pt)
			if err != nil {
				return nil, err
			}
			if len(imgs) > 0 {
				tp.Points = append(tp.Points, PlotGroup{Title: pt.Params.Label(), Images: imgs})
			}
		}
		if len(tp.Sweep) > 0 || len(tp.Points) > 0 {
			out[name] = tp
		}
	}
	return out, nil
}

// embedTelemetryPlots embeds an experiment's telemetry plots in its
// telemetry section, opening one for plots whose points' telemetry the
// results no longer hold (points resumed from a checkpoint).
func embedTelemetryPlots(ev *experimentView, tp TelemetryPlots) error {
	if len(tp.Sweep) == 0 && len(tp.Points) == 0 {
		return nil
	}
	sweep, err := embedPlots([]PlotGroup{{Images: tp.Sweep}})
	if err != nil {
		return err
	}
	points, err := embedPlots(tp.Points)
	if err != nil {
		return err
	}
	if ev.Telemetry == nil {
		ev.Telemetry = &telemetryView{}
	}
	if len(sweep) > 0 {
		ev.Telemetry.SweepPlots = sweep[0].Images
	}
	ev.Telemetry.PointPlots = points
	return nil
}
