package metrics

// aiperfView is AIPerf's record metrics (aiperf/metrics/types/*) over the
// completed requests: TTFT, TTST, request latency, ISL and OSL as
// GenAI-Perf's; inter_token_latency the unrounded (latency − TTFT) /
// (OSL − 1) of every request with OSL ≥ 2; the per-user throughput
// 1 / ITL in seconds where ITL is not 0; the benchmark duration from the
// first completed request's send to the last response; request_count the
// completed requests.
func (a *Accumulator) aiperfView(s *Summary) AIPerfView {
	var itl, tps []float64
	for _, r := range a.requests {
		if r.osl < 2 {
			continue
		}
		v := float64(r.latency-r.ttft) / float64(r.osl-1)
		itl = append(itl, v)
		if v != 0 {
			// AIPerf converts ns to s as value * (1 / 1_000_000_000).
			tps = append(tps, 1/(v*(1.0/1e9)))
		}
	}
	v := AIPerfView{
		TimeToFirstToken: s.TimeToFirstToken, TimeToSecondToken: s.TimeToSecondToken,
		RequestLatency: s.RequestLatency, OutputSequenceLength: s.OutputSequenceLength,
		InputSequenceLength: s.InputSequenceLength, InterTokenLatency: NewDistribution(itl),
		OutputTokenThroughputPerUser: NewDistribution(tps), RequestGoodput: s.RequestGoodput,
		RequestCount: s.Completed, ErrorRequestCount: s.Failed,
	}
	if a.count > 0 && a.views.hasCompleted {
		v.BenchmarkDuration = a.last - min(a.views.completedSent, a.firstSent)
	}
	v.OutputTokenThroughput = perSecond(float64(a.oslSum), v.BenchmarkDuration)
	v.RequestThroughput = perSecond(float64(v.RequestCount), v.BenchmarkDuration)
	return v
}

// Summary is the view as a Summary holding AIPerf's values of the
// metrics both tools define, so that a report reads AIPerf's numbers
// through the catalogue exactly as it reads GenAI-Perf's (the Summary
// itself).
func (v *AIPerfView) Summary() *Summary {
	return &Summary{
		TimeToFirstToken: v.TimeToFirstToken, TimeToSecondToken: v.TimeToSecondToken,
		RequestLatency: v.RequestLatency, InterTokenLatency: v.InterTokenLatency,
		OutputTokenThroughputPerUser: v.OutputTokenThroughputPerUser,
		OutputSequenceLength:         v.OutputSequenceLength, InputSequenceLength: v.InputSequenceLength,
		OutputTokenThroughput: v.OutputTokenThroughput, RequestThroughput: v.RequestThroughput,
		RequestGoodput: v.RequestGoodput, RequestCount: v.RequestCount,
		Completed: v.RequestCount, Failed: v.ErrorRequestCount, Duration: v.BenchmarkDuration,
	}
}
