package metrics

import (
	"fmt"
	"slices"
)

// The server's token totals and finish reasons (issue 28 item 4): what
// it says it prefilled and generated over the window, to set beside the
// client's ISL and OSL sums, and why its requests stopped, so a run
// whose requests ended at max_tokens ("length") is told from one whose
// model stopped on its own ("stop"). Read from vLLM 0.32's
// vllm:prompt_tokens_total (every prompt token, cached ones included,
// counted at prefill), vllm:generation_tokens_total (counted at each
// decode step), vllm:prompt_tokens_cached_total and
// vllm:request_success_total{finished_reason} (counted as each request
// finishes); SGLang's prompt, generation and cached token counters.
//
// These count events, so they are differenced between scrapes as the
// latency histograms are (the last scrape at or before the window's
// start, the first at or after its end), not interpolated at the edges
// as energy is: a request's last tokens generated just before the end
// are counted whole, and a count is never fractional.

// FinishReason is how many requests finished for one reason.
type FinishReason struct {
	Reason string
	Count  float64
}

// readTokens fills the token totals and the finish reasons.
func (srv *ServerTelemetry) readTokens(d *telemetryData, picks []serverSource, w TelemetryWindow) {
	srv.PromptTokens = srv.eventTotal(d, picks, w, "prompt-token", func(e *serverEngine) []seriesRef { return e.promptTokens })
	srv.GenerationTokens = srv.eventTotal(d, picks, w, "generation-token", func(e *serverEngine) []seriesRef { return e.generationTokens })
	srv.CachedPromptTokens = srv.eventTotal(d, picks, w, "cached prompt-token", func(e *serverEngine) []seriesRef { return e.cachedPromptTokens })
	srv.FinishReasons = finishReasons(d, picks, w)
}

// eventTotal sums an event counter's increase between the window's
// bracketing scrapes over every source that exports it; what names the
// counter in messages.
func (srv *ServerTelemetry) eventTotal(d *telemetryData, picks []serverSource, w TelemetryWindow, what string,
	refs func(*serverEngine) []seriesRef) TelemetryValue {
	return srv.sumSources(picks, what, func(p serverSource) (float64, bool, string) {
		series := chosenSeries(d, p.source, refs(p.engine))
		if len(series) == 0 {
			return 0, false, ""
		}
		n, why := eventIncrease(d, p.source, series, w)
		return n, true, why
	})
}

// eventIncrease is Σ over series of each one's increase from the last
// scrape of source at or before the window's start to the first at or
// after its end; a series not yet exposed at a scrape counts 0 there
// (vLLM's labelled counters appear on first use).
func eventIncrease(d *telemetryData, source string, series []*telemetrySeries, w TelemetryWindow) (float64, string) {
	scrapes := d.scrapes[source]
	i0, _ := slices.BinarySearch(scrapes, w.Start+1)
	i1, _ := slices.BinarySearch(scrapes, w.End)
	switch {
	case i0 == 0:
		return 0, fmt.Sprintf("%s: no scrape of %s at or before the point's start", series[0].name, source)
	case i1 == len(scrapes):
		return 0, fmt.Sprintf("%s: no scrape of %s at or after the point's end", series[0].name, source)
	}
	t0, t1 := scrapes[i0-1], scrapes[i1]
	var sum float64
	for _, s := range series {
		inc := valueAt(s, t1) - valueAt(s, t0)
		if inc < 0 {
			return 0, fmt.Sprintf("%s on %s went back during the point (server restart?)", s.name, source)
		}
		sum += inc
	}
	return sum, ""
}

// finishReasons is each reason's count over the window, summed over the
// sources, reasons in the order the server lists them; nil when no source
// exports the counter or one cannot be differenced over the window.
func finishReasons(d *telemetryData, picks []serverSource, w TelemetryWindow) []FinishReason {
	var out []FinishReason
	for _, p := range picks {
		e := p.engine
		if e.finishReasonLabel == "" {
			continue
		}
		byReason := map[string][]*telemetrySeries{}
		var reasons []string
		for _, s := range d.byName[e.finishReasons.name] {
			r := s.label(e.finishReasonLabel)
			if s.source != p.source || r == "" {
				continue
			}
			if byReason[r] == nil {
				reasons = append(reasons, r)
			}
			byReason[r] = append(byReason[r], s)
		}
		for _, r := range reasons {
			n, why := eventIncrease(d, p.source, byReason[r], w)
			if why != "" {
				return nil
			}
			i := slices.IndexFunc(out, func(f FinishReason) bool { return f.Reason == r })
			if i < 0 {
				out = append(out, FinishReason{Reason: r})
				i = len(out) - 1
			}
			out[i].Count += n
		}
	}
	return out
}

// Finished is how many requests finished for reason over the window,
// 0 when none did or the server does not say.
func (s *ServerTelemetry) Finished(reason string) float64 {
	for _, f := range s.FinishReasons {
		if f.Reason == reason {
			return f.Count
		}
	}
	return 0
}
