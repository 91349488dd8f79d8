package metrics

// vllmView is `vllm bench serve`'s calculate_metrics over the records
// (vllm/benchmarks/serve.py): a request is successful when a content chunk
// arrived; TTFT and E2EL are llmbench's TTFT and request latency; TPOT is
// (E2EL − TTFT) / (OSL − 1) over requests with OSL > 1; ITL pools every
// chunk gap; the duration is the benchmark's wall time.
func (a *Accumulator) vllmView(s *Summary) VLLMView {
	const sToMS = 1000
	v := VLLMView{Completed: len(a.requests), Failed: s.Failed + s.Completed - len(a.requests)}
	wall := a.wallTime()
	v.Duration = float64(wall) / 1e9
	var tpots []float64
	spans := make([]span, len(a.requests))
	origin := int64(0)
	for i, r := range a.requests {
		v.TotalInput += int64(r.isl)
		v.TotalOutput += int64(r.osl)
		if r.osl > 1 {
			// vLLM divides seconds by tokens; so does this.
			tpots = append(tpots, float64(r.latency-r.ttft)/1e9/float64(r.osl-1))
		}
		sent := a.views.reqs[i].sent
		spans[i] = span{sent, sent + r.latency}
		if i == 0 || sent < origin {
			origin = sent
		}
	}
	v.RequestThroughput = perSecond(float64(v.Completed), wall)
	v.OutputThroughput = perSecond(float64(v.TotalOutput), wall)
	v.TotalTokenThroughput = perSecond(float64(v.TotalInput+v.TotalOutput), wall)
	if len(a.requests) > 0 {
		v.MaxOutputTokensPerS = float64(a.peakPerSecond(origin))
		v.MaxConcurrentRequests = peakConcurrency(spans)
	}
	v.TTFT = vllmStatsOf(s.TimeToFirstToken, 1e-6)
	v.E2EL = vllmStatsOf(s.RequestLatency, 1e-6)
	v.ITL = vllmStatsOf(s.ChunkGap, 1e-6)
	v.TPOT = vllmStatsOf(NewDistribution(tpots), sToMS)
	return v
}
