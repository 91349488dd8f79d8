package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// ServerTelemetry is what the inference server itself exported over a
// point (vLLM, SGLang, TGI, TensorRT-LLM: telemetry_server_names.go).
//
// Queue lengths and KV-cache use are gauges sampled at each scrape; their
// distributions are over the scrapes inside the window, one value per
// scrape: a sample mean, which at the scraper's fixed 0.33 s period is the
// time-weighted mean up to the window's edges, and which also gives the
// percentiles a gate can ask for.
type ServerTelemetry struct {
	// Engines are the servers recognised among the sources, in table
	// order ("vllm").
	Engines []string
	// Running and Waiting are the requests in the running batch and in the
	// queue, summed across engines and sources at each scrape.
	Running, Waiting *Distribution
	// KVCacheUsage is the KV-cache use in %, of the fullest engine at each
	// scrape: an engine near full is what limits the point, and a mean
	// across engines would hide it.
	KVCacheUsage *Distribution
	// PrefixCacheHitRate is Δhits / Δqueries over the window, a ratio from
	// 0 to 1, the counters interpolated at the window's edges as energy is.
	PrefixCacheHitRate TelemetryValue
	// Preemptions is the increase of the preemption counter (SGLang:
	// retractions) over the window.
	Preemptions TelemetryValue
	// PromptTokens, GenerationTokens and CachedPromptTokens are the
	// increases of the server's token counters over the window: every
	// prompt token it prefilled (chat template and cached tokens
	// included), every token it generated, the prompt tokens its cache
	// served (telemetry_server_tokens.go).
	PromptTokens, GenerationTokens, CachedPromptTokens TelemetryValue
	// FinishReasons are the requests that finished in the window by why
	// ("length", "stop", ...), in the server's order; nil when it exports
	// no such counter.
	FinishReasons []FinishReason
	// Latencies are the server's latency histograms differenced over the
	// window, in latencyMetrics order; only those some source exports.
	Latencies []ServerLatency

	notes []string
}

// Latency returns the server's latency of a metric (LatencyTTFT, ...),
// nil when no source exports it.
func (s *ServerTelemetry) Latency(metric string) *ServerLatency {
	for i := range s.Latencies {
		if s.Latencies[i].Metric == metric {
			return &s.Latencies[i]
		}
	}
	return nil
}

// serverSource is one scraped source and the engine it was recognised as.
type serverSource struct {
	source string
	engine *serverEngine
}

// reduceServer recognises each source's engine and reduces its metrics.
func reduceServer(d *telemetryData, w TelemetryWindow) ServerTelemetry {
	var srv ServerTelemetry
	var picks []serverSource
	for _, src := range sortedKeys(d.scrapes) {
		if e := engineOf(d, src); e != nil {
			picks = append(picks, serverSource{src, e})
			if !slices.Contains(srv.Engines, e.name) {
				srv.Engines = append(srv.Engines, e.name)
			}
		}
	}
	if len(picks) == 0 {
		none := unknownValue("no inference-server metrics among the telemetry URLs")
		srv.PrefixCacheHitRate, srv.Preemptions = none, none
		srv.PromptTokens, srv.GenerationTokens, srv.CachedPromptTokens = none, none, none
		return srv
	}
	srv.Running = serverGauge(d, picks, w, func(e *serverEngine) []seriesRef { return e.running }, sumOf)
	srv.Waiting = serverGauge(d, picks, w, func(e *serverEngine) []seriesRef { return e.waiting }, sumOf)
	srv.KVCacheUsage = serverGauge(d, picks, w, func(e *serverEngine) []seriesRef { return e.kvCache }, maxOf).Scaled(100)
	srv.PrefixCacheHitRate = prefixHitRate(d, picks, w)
	srv.Preemptions = srv.counterTotal(d, picks, w, "preemption", func(e *serverEngine) []seriesRef { return e.preemptions })
	srv.readTokens(d, picks, w)
	srv.Latencies = serverLatencies(d, picks, w, &srv.notes)
	return srv
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// engineOf is the first engine any of whose names the source exports.
func engineOf(d *telemetryData, source string) *serverEngine {
	for i := range serverEngines {
		e := &serverEngines[i]
		for _, name := range e.names() {
			if slices.ContainsFunc(d.byName[name], func(s *telemetrySeries) bool { return s.source == source }) {
				return e
			}
		}
	}
	return nil
}

// chosenSeries are the source's series of the first alternative it
// exports.
func chosenSeries(d *telemetryData, source string, alternatives []seriesRef) []*telemetrySeries {
	for _, r := range alternatives {
		var out []*telemetrySeries
		for _, s := range d.byName[r.name] {
			if s.source == source && r.matches(s) {
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// serverGauge aligns a gauge's series (every engine label, every source)
// per scrape inside the window and combines them.
func serverGauge(d *telemetryData, picks []serverSource, w TelemetryWindow,
	refs func(*serverEngine) []seriesRef, combine func([]float64) float64) *Distribution {
	var list [][]point
	for _, p := range picks {
		for _, s := range chosenSeries(d, p.source, refs(p.engine)) {
			if in := inWindow(s.points, w); len(in) > 0 {
				list = append(list, in)
			}
		}
	}
	return NewDistribution(alignedValues(list, combine))
}

// counterIncrease is Σ over a source's chosen series of each counter's
// increase over the window. found is false when the source exports none.
// A series first seen after an earlier scrape of its source was created
// in between, so it counts from zero at that scrape (vLLM's and the
// metrics crate's labelled counters appear on first use).
func counterIncrease(d *telemetryData, p serverSource, w TelemetryWindow, refs []seriesRef) (sum float64, found bool, why string) {
	for _, s := range chosenSeries(d, p.source, refs) {
		found = true
		pts := s.points
		scrapes := d.scrapes[p.source]
		if i, _ := slices.BinarySearch(scrapes, pts[0].t); i > 0 {
			pts = append([]point{{scrapes[i-1], 0}}, pts...)
		}
		delta, _, missing := counterDelta(pts, w.Start, w.End)
		if missing != "" {
			return 0, true, fmt.Sprintf("%s on %s: %s", s.name, p.source, missing)
		}
		sum += delta
	}
	return sum, found, ""
}

// counterTotal sums a counter's increase over every source that exports
// it; what names the counter in messages.
func (srv *ServerTelemetry) counterTotal(d *telemetryData, picks []serverSource, w TelemetryWindow, what string,
	refs func(*serverEngine) []seriesRef) TelemetryValue {
	return srv.sumSources(picks, what, func(p serverSource) (float64, bool, string) {
		return counterIncrease(d, p, w, refs(p.engine))
	})
}

// sumSources sums read over the sources; a source without the counter
// (found false) is left out and said in a note, a counter that cannot be
// read (why) makes the total unknown, and so does no source having it.
func (srv *ServerTelemetry) sumSources(picks []serverSource, what string, read func(serverSource) (v float64, found bool, why string)) TelemetryValue {
	var sum float64
	var with, without []string
	for _, p := range picks {
		v, found, why := read(p)
		switch {
		case why != "":
			return unknownValue("%s", why)
		case !found:
			without = append(without, p.source)
			continue
		}
		sum += v
		with = append(with, p.source)
	}
	if len(with) == 0 {
		return unknownValue("the server (%s) exports no %s counter", strings.Join(srv.Engines, ", "), what)
	}
	if len(without) > 0 {
		srv.notes = append(srv.notes, fmt.Sprintf("the %s count covers %s only; %s export no %s counter",
			what, strings.Join(with, ", "), strings.Join(without, ", "), what))
	}
	return knownValue(sum)
}

// prefixHitRate is Δhits / Δqueries summed over the sources that export
// both (or hits and misses).
func prefixHitRate(d *telemetryData, picks []serverSource, w TelemetryWindow) TelemetryValue {
	var hits, queries float64
	seen, hitsOnly := false, false
	for _, p := range picks {
		h, foundH, why := counterIncrease(d, p, w, p.engine.prefixHits)
		q, foundQ, whyQ := counterIncrease(d, p, w, p.engine.prefixQueries)
		if !foundQ && len(p.engine.prefixMisses) > 0 {
			var m float64
			m, foundQ, whyQ = counterIncrease(d, p, w, p.engine.prefixMisses)
			q = h + m
		}
		if why == "" {
			why = whyQ
		}
		switch {
		case why != "":
			return unknownValue("%s", why)
		case foundH && foundQ:
			hits, queries, seen = hits+h, queries+q, true
		case foundH:
			hitsOnly = true
		}
	}
	switch {
	case !seen && hitsOnly:
		return unknownValue("the server exports prefix-cache hits but no queries to divide them by")
	case !seen:
		return unknownValue("the server exports no prefix-cache counters")
	case queries <= 0:
		return unknownValue("the prefix cache was not queried during the point")
	}
	return knownValue(hits / queries)
}
