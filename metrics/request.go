package metrics

import "math"

// RequestMetrics is one request's GenAI-Perf metrics (SPEC §2), shared by
// aggregation, goodput and the per-request export. Deriving them is a few
// subtractions, so each reader derives its own (Record.Metrics); the
// per-chunk gaps are read off the record (Record.ChunkGaps), not kept. Times
// are integer nanoseconds, as GenAI-Perf keeps them. A Has flag is false
// where GenAI-Perf has no value for the request, which then contributes
// nothing to that metric's distribution and cannot meet an SLO on it.
type RequestMetrics struct {
	// HasContent is true when at least one content chunk arrived. Without
	// one GenAI-Perf skips the request entirely (TTFT and Latency are left
	// 0, and its ISL and OSL enter no statistic).
	HasContent bool
	// TTFT is first content chunk − sent; Latency is last content chunk −
	// sent (for a non-streaming response both are the completion time).
	TTFT, Latency int64

	// TTST is second content chunk − first: a gap between chunks, not
	// tokens, so two chunks read back to back give about 0.
	HasTTST bool
	TTST    int64

	// ITL is (Latency − TTFT)/(OSL − 1) rounded half to even (Python's
	// round), one value per request; it needs two content chunks and OSL > 1.
	HasITL bool
	ITL    int64

	// TPSUser is output_token_throughput_per_user, 1/(ITL/1e9) tokens/s from
	// the rounded ITL; absent with ITL or when ITL is 0 (GenAI-Perf would
	// divide by zero there).
	HasTPSUser bool
	TPSUser    float64

	// TTFO is the time to the first answer chunk of a reasoning model:
	// chunk number ReasoningChunks − sent; absent when no reasoning was
	// streamed or no answer followed it.
	HasTTFO bool
	TTFO    int64

	// TTFTFromSchedule and LatencyFromSchedule are TTFT and Latency
	// measured from the planned send instant instead of the actual one:
	// first and last content chunk − Scheduled. They count the time a
	// request waited to be sent (behind a concurrency cap or a busy
	// client), which a latency from Sent hides (coordinated omission).
	// Absent in a closed loop (Scheduled 0) and without content.
	HasFromSchedule                       bool
	TTFTFromSchedule, LatencyFromSchedule int64

	// ISL and OSL are the record's input and output token counts.
	ISL, OSL int
}

// Derive computes a request's metrics from its record. It does not look at
// Err: a failed request's partial stream yields values too, and it is the
// caller's choice to keep them (Summarize never does).
func Derive(r *Record) RequestMetrics {
	m := RequestMetrics{ISL: r.InputTokens, OSL: r.OutputTokens}
	c := r.Chunks
	if len(c) == 0 {
		return m
	}
	m.HasContent = true
	m.TTFT = c[0] - r.Sent
	m.Latency = c[len(c)-1] - r.Sent
	if r.Scheduled != 0 {
		m.HasFromSchedule = true
		m.TTFTFromSchedule = c[0] - r.Scheduled
		m.LatencyFromSchedule = c[len(c)-1] - r.Scheduled
	}
	if len(c) >= 2 {
		m.HasTTST, m.TTST = true, c[1]-c[0]
	}
	if len(c) >= 2 && r.OutputTokens > 1 {
		m.HasITL = true
		m.ITL = int64(math.RoundToEven(float64(m.Latency-m.TTFT) / float64(r.OutputTokens-1)))
	}
	if m.HasITL && m.ITL != 0 {
		// GenAI-Perf's expression, kept as is: 1e9/ITL differs from it in
		// the last bit for about a quarter of ITL values.
		m.HasTPSUser, m.TPSUser = true, 1/(float64(m.ITL)/1e9)
	}
	if r.ReasoningChunks > 0 && r.ReasoningChunks < len(c) {
		m.HasTTFO, m.TTFO = true, c[r.ReasoningChunks]-r.Sent
	}
	return m
}
