package metrics

import "slices"

// guideMergeNS is GuideLLM's threshold for merging nearby events of a
// time-weighted distribution (threshold=1e-4 s).
const guideMergeNS = 100_000

// guideLLMView is GuideLLM's GenerativeMetrics.compile over the records
// (src/guidellm/benchmark/schemas/metrics.py, with the per-request
// definitions of src/guidellm/schemas/request_stats.py): the latency
// table over successful requests, the throughput table over every request
// in the benchmark window (first send to the last request's end).
func (a *Accumulator) guideLLMView(s *Summary) GuideLLMView {
	v := GuideLLMView{Successful: s.Completed, Incomplete: a.views.incomplete}
	v.Errored = s.Failed - v.Incomplete
	v.Total = v.Successful + v.Incomplete + v.Errored
	n := len(a.requests)
	latency, ttft, ttfot, ones := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	itl, itlW, tpot, tpotW := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range a.requests {
		x := a.views.reqs[i]
		ones[i] = 1
		latency[i] = float64(x.end-x.sent) / 1e9
		ttft[i] = float64(r.ttft) / 1e6
		if x.ttfot >= 0 {
			ttfot[i] = float64(x.ttfot) / 1e6
		}
		// inter_token_latency_ms, weighted by output tokens − 1.
		if r.osl > 1 {
			itl[i], itlW[i] = float64(r.latency-r.ttft)/1e6/float64(r.osl-1), float64(r.osl-1)
		}
		// time_per_output_token_ms: to the last token, over every output
		// token, weighted by them.
		if r.osl > 0 {
			tpot[i], tpotW[i] = float64(r.latency)/1e6/float64(r.osl), float64(r.osl)
		}
	}
	v.RequestLatency = weightedDist(latency, ones, -1)
	v.TTFT = weightedDist(ttft, ones, -1)
	v.TTFOT = weightedDist(ttfot, ones, -1)
	v.ITL = weightedDist(itl, itlW, -1)
	v.TPOT = weightedDist(tpot, tpotW, -1)

	spans := a.spans()
	start, end := a.busyFirst, a.busyLast
	v.RequestConcurrency = guideConcurrency(spans, start, end)
	if end > start {
		// The time-weighted mean of GuideLLM's rate distribution: each
		// event's rate over its local duration, weighted by that duration,
		// which telescopes to events / window.
		window := float64(end-start) / 1e9
		v.Duration = window
		v.RequestsPerSecond = float64(len(spans)) / window
		v.PromptTokensPerSecond = float64(a.views.islAll) / window
		v.OutputTokensPerSecond = float64(a.views.oslAll) / window
		v.TokensPerSecond = float64(a.views.islAll+a.views.oslAll) / window
	}
	return v
}

// timedDelta is a change of a time-weighted quantity at an instant.
type timedDelta struct {
	t     int64
	delta float64
}

// guideConcurrency is GuideLLM's concurrency_distribution_from_timings of
// the spans over [start, end]: the number in flight between consecutive
// events, weighted by how long it lasted.
func guideConcurrency(spans []span, start, end int64) GuideLLMDist {
	var events []timedDelta
	count := 0
	for _, s := range spans {
		if s.end < start || s.start > end {
			continue
		}
		count++
		events = append(events, timedDelta{s.start, 1}, timedDelta{s.end, -1})
	}
	events = mergeNearby(events)
	if len(events) > 0 {
		i, _ := slices.BinarySearchFunc(events, start, func(e timedDelta, t int64) int { return cmpInt(e.t, t) })
		var prior float64
		for _, e := range events[:i] {
			prior += e.delta
		}
		events = append([]timedDelta{{start, prior}}, events[i:]...)
		j := len(events)
		for j > 0 && events[j-1].t > end {
			j--
		}
		events = append(events[:j], timedDelta{end, 0})
	}
	var level float64
	levels := make([]float64, len(events))
	for i, e := range events {
		level += e.delta
		levels[i] = max(level, 0)
	}
	if len(events) <= 1 {
		if count == 0 {
			return weightedDist(nil, nil, 0)
		}
		return weightedDist(levels[:1], []float64{1}, -1)
	}
	durations := make([]float64, len(events)-1)
	positive := false
	for i := range durations {
		durations[i] = max(float64(events[i+1].t-events[i].t)/1e9, 0)
		positive = positive || durations[i] > 0
	}
	if !positive {
		return weightedDist(nil, nil, count)
	}
	return weightedDist(levels[:len(levels)-1], durations, count)
}

// mergeNearby sorts the events, sums those at the same instant, then
// merges every run of events within guideMergeNS of the run's first into
// it (GuideLLM's _merge_sorted_times_with_weights).
func mergeNearby(events []timedDelta) []timedDelta {
	slices.SortStableFunc(events, func(x, y timedDelta) int { return cmpInt(x.t, y.t) })
	var out []timedDelta
	for _, e := range events {
		if n := len(out); n > 0 && e.t-out[n-1].t <= guideMergeNS {
			out[n-1].delta += e.delta
			continue
		}
		out = append(out, e)
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
