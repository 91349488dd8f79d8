package metrics

// llmperfView is LLMPerf's per-request metrics (its OpenAI client,
// src/llmperf/ray_clients/openai_chat_completions_client.py, and
// token_benchmark_ray.py's get_token_throughput_latencies) reduced by
// metrics_summary: inter_token_latency_s is the time to the last content
// chunk (LLMPerf's sum of time_to_next_token, TTFT included) divided by
// the chunks received (0 when no output token was counted); the end to end
// latency runs to the end of the response; throughputs are over the test's
// wall time.
func (a *Accumulator) llmperfView(s *Summary) LLMPerfView {
	n := len(a.requests)
	itl, ttft, e2e, tps := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	isl, osl := make([]float64, 0, n), make([]float64, 0, n)
	var totalOut int64
	for i, r := range a.requests {
		x := a.views.reqs[i]
		v := 0.0
		if r.osl > 0 {
			v = float64(r.latency) / 1e9 / float64(x.chunks)
		}
		itl = append(itl, v)
		ttft = append(ttft, float64(r.ttft)/1e9)
		lat := float64(x.end-x.sent) / 1e9
		e2e = append(e2e, lat)
		if lat > 0 {
			tps = append(tps, float64(r.osl)/lat)
		}
		isl, osl = append(isl, float64(r.isl)), append(osl, float64(r.osl))
		totalOut += int64(r.osl)
	}
	wall := a.wallTime()
	v := LLMPerfView{
		InterTokenLatency: pandasStats(itl), TTFT: pandasStats(ttft), EndToEndLatency: pandasStats(e2e),
		RequestOutputThroughput: pandasStats(tps), NumberInputTokens: pandasStats(isl), NumberOutputTokens: pandasStats(osl),
		NumRequestsStarted: s.Completed + s.Failed, NumErrors: s.Failed, NumCompletedRequests: s.Completed,
		MeanOutputThroughput: perSecond(float64(totalOut), wall), WallTime: float64(wall) / 1e9,
	}
	if v.NumRequestsStarted > 0 {
		v.ErrorRate = float64(v.NumErrors) / float64(v.NumRequestsStarted)
	}
	if wall > 0 {
		v.CompletedPerMinute = float64(v.NumCompletedRequests) / (float64(wall) / 1e9) * 60
	}
	return v
}
