package metrics

// The load metrics say how the client actually drove the server, so a
// report can show when the client, not the server, shaped the numbers
// (SPEC §3). They cover every measured request, failed ones included: a
// failed request was sent and held a slot all the same. A record whose Sent
// is 0 never left the client and is left out.

// scheduleLag is the distribution of Sent − Scheduled over open-loop
// requests (Scheduled != 0); nil in a closed loop.
func scheduleLag(records []Record) *Distribution {
	var lags []float64
	for i := range records {
		r := &records[i]
		if r.Scheduled != 0 && r.Sent != 0 {
			lags = append(lags, float64(r.Sent-r.Scheduled))
		}
	}
	return NewDistribution(lags)
}

// achievedRequestRate is the send rate the client reached: n−1 intervals
// over the span from the first send to the last, in requests/s; 0 with
// fewer than two sends or a zero span.
func achievedRequestRate(records []Record) float64 {
	n, first, last := 0, int64(0), int64(0)
	for i := range records {
		sent := records[i].Sent
		if sent == 0 {
			continue
		}
		if n == 0 || sent < first {
			first = sent
		}
		last = max(last, sent)
		n++
	}
	if n < 2 {
		return 0
	}
	return perSecond(float64(n-1), last-first)
}

// meanConcurrency is the time-weighted number of requests in flight over
// [first send, last end]. A sweep adding 1 at each send and removing 1 at
// each end integrates to Σ(end − sent), so the mean is that sum over the
// span, computed exactly in integer ns. A request ends at Done, or at its
// last chunk when Done was not recorded.
func meanConcurrency(records []Record) float64 {
	var busy, first, last int64
	for i := range records {
		r := &records[i]
		if r.Sent == 0 {
			continue
		}
		end := r.Done
		if end == 0 && len(r.Chunks) > 0 {
			end = r.Chunks[len(r.Chunks)-1]
		}
		end = max(end, r.Sent)
		if first == 0 || r.Sent < first {
			first = r.Sent
		}
		last = max(last, end)
		busy += end - r.Sent
	}
	if last <= first {
		return 0
	}
	return float64(busy) / float64(last-first)
}

// perSecond divides a count by a span in ns as GenAI-Perf does, converting
// the span to seconds first (count / (ns/1e9)), which is not always the
// same float as count*1e9/ns. A span ≤ 0 gives 0 rather than Inf.
func perSecond(count float64, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return count / (float64(ns) / 1e9)
}
