package genaiperf

import (
	"math"
	"slices"

	"github.com/llmbench/llmbench/metrics"
)

// exampleSummary is the Summary of the run behind the shared example
// profile_export_genai_perf.json: two streaming chat requests, statistics
// as numpy computed them in native units (ns, tokens, tokens/s).
func exampleSummary() *metrics.Summary {
	goodput := 142.85714285714286
	return &metrics.Summary{
		RequestLatency:    &metrics.Distribution{Count: 2, Avg: 12000000.0, Min: 11000000.0, Max: 13000000.0, Std: 1000000.0, P1: 11020000.0, P5: 11100000.0, P10: 11200000.0, P25: 11500000.0, P50: 12000000.0, P75: 12500000.0, P90: 12800000.0, P95: 12900000.0, P99: 12980000.0},
		TimeToFirstToken:  &metrics.Distribution{Count: 2, Avg: 4500000.0, Min: 4000000.0, Max: 5000000.0, Std: 500000.0, P1: 4010000.0, P5: 4050000.0, P10: 4100000.0, P25: 4250000.0, P50: 4500000.0, P75: 4750000.0, P90: 4900000.0, P95: 4950000.0, P99: 4990000.0},
		TimeToSecondToken: &metrics.Distribution{Count: 2, Avg: 3500000.0, Min: 3000000.0, Max: 4000000.0, Std: 500000.0, P1: 3010000.0, P5: 3050000.0, P10: 3100000.0, P25: 3250000.0, P50: 3500000.0, P75: 3750000.0, P90: 3900000.0, P95: 3950000.0, P99: 3990000.0},
		InterTokenLatency: &metrics.Distribution{Count: 2, Avg: 2550000.0, Min: 1600000.0, Max: 3500000.0, Std: 950000.0, P1: 1619000.0, P5: 1695000.0, P10: 1790000.0, P25: 2075000.0, P50: 2550000.0, P75: 3025000.0, P90: 3310000.0, P95: 3405000.0, P99: 3481000.0},
		OutputTokenThroughputPerUser: &metrics.Distribution{Count: 2, Avg: 455.3571428571429, Min: 285.7142857142857, Max: 625.0, Std: 169.64285714285714,
			P1: 289.1071428571429, P5: 302.67857142857144, P10: 319.64285714285717, P25: 370.5357142857143, P50: 455.3571428571429, P75: 540.1785714285714, P90: 591.0714285714286, P95: 608.0357142857142, P99: 621.6071428571429},
		OutputSequenceLength:  &metrics.Distribution{Count: 2, Avg: 4.5, Min: 3.0, Max: 6.0, Std: 1.5, P1: 3.03, P5: 3.15, P10: 3.3, P25: 3.75, P50: 4.5, P75: 5.25, P90: 5.7, P95: 5.85, P99: 5.97},
		InputSequenceLength:   &metrics.Distribution{Count: 2, Avg: 3.5, Min: 3.0, Max: 4.0, Std: 0.5, P1: 3.01, P5: 3.05, P10: 3.1, P25: 3.25, P50: 3.5, P75: 3.75, P90: 3.9, P95: 3.95, P99: 3.99},
		OutputTokenThroughput: 642.8571428571429,
		RequestThroughput:     142.85714285714286,
		RequestGoodput:        &goodput,
		RequestCount:          2,
		Completed:             2,
		Duration:              14000000,
	}
}

// exampleRun is the configuration printed in the example's input_config;
// GenAI-Perf counted its tokens with a tokenizer named after the model.
func exampleRun() *Run {
	r := DefaultRun("my/model")
	r.Tokenizer = "my/model"
	r.Streaming = true
	r.Stimulus = Stimulus{Concurrency: 2}
	r.Goodput = []Goodput{{"time_to_first_token", 5.0}, {"request_latency", 13.0}}
	return &r
}

// numpyDist computes a Distribution as GenAI-Perf's statistics do (numpy
// mean, population std, linear-interpolation percentiles), for test cases
// given as plain value lists.
func numpyDist(values ...float64) *metrics.Distribution {
	v := slices.Sorted(slices.Values(values))
	n := float64(len(v))
	sum, sq := 0.0, 0.0
	for _, x := range v {
		sum += x
	}
	avg := sum / n
	for _, x := range v {
		sq += (x - avg) * (x - avg)
	}
	pct := func(p float64) float64 {
		pos := p / 100 * (n - 1)
		lo := math.Floor(pos)
		hi := math.Min(lo+1, n-1)
		return v[int(lo)] + (v[int(hi)]-v[int(lo)])*(pos-lo)
	}
	return &metrics.Distribution{
		Count: len(v), Avg: avg, Min: v[0], Max: v[len(v)-1], Std: math.Sqrt(sq / n),
		P1: pct(1), P5: pct(5), P10: pct(10), P25: pct(25), P50: pct(50),
		P75: pct(75), P90: pct(90), P95: pct(95), P99: pct(99),
	}
}

// ms converts milliseconds to the ns Summary holds.
func ms(values ...float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = v * 1e6
	}
	return out
}

// exporterTestSummary is the Summary of GenAI-Perf's exporter unit tests
// (test_console_exporter.py, test_csv_exporter.py): three requests with
// TTFT 7/8/9 ms, TTST 1/2/3 ms, latency 4/5/6 ms, ITL 10/11/12 ms, per-user
// throughput 4/5/6, OSL 1/2/3, ISL 5/6/7, 456 tokens/s, 123 requests/s.
func exporterTestSummary() *metrics.Summary {
	return &metrics.Summary{
		TimeToFirstToken:             numpyDist(ms(7, 8, 9)...),
		TimeToSecondToken:            numpyDist(ms(1, 2, 3)...),
		RequestLatency:               numpyDist(ms(4, 5, 6)...),
		InterTokenLatency:            numpyDist(ms(10, 11, 12)...),
		OutputTokenThroughputPerUser: numpyDist(4, 5, 6),
		OutputSequenceLength:         numpyDist(1, 2, 3),
		InputSequenceLength:          numpyDist(5, 6, 7),
		OutputTokenThroughput:        456,
		RequestThroughput:            123,
		RequestCount:                 3,
		Completed:                    3,
	}
}

// embeddingsTestSummary is test_embedding_output's Summary.
func embeddingsTestSummary() *metrics.Summary {
	return &metrics.Summary{
		RequestLatency:    numpyDist(ms(4, 5, 6)...),
		RequestThroughput: 123,
		RequestCount:      3,
		Completed:         3,
	}
}

// troubledSummary is a run with everything llmbench adds: failures,
// reasoning (TTFO), an open-loop schedule, pooled chunk gaps, big numbers.
func troubledSummary() *metrics.Summary {
	s := exporterTestSummary()
	s.OutputTokenThroughput = 12345.678
	s.RequestCount, s.Completed, s.Failed = 3, 3, 15
	s.ErrorRate = 15.0 / 18
	s.Errors = []metrics.ErrorCount{
		{Class: metrics.ErrHTTP, Status: 500, Message: "upstream\noverloaded", Count: 12},
		{Class: metrics.ErrTimeout, Message: "no chunk for 30s", Count: 3},
	}
	s.TimeToFirstOutputToken = numpyDist(ms(400, 410.5, 1600)...)
	s.ScheduleLag = numpyDist(10_000, 20_000, 1_370_000)
	s.TTFTFromSchedule = numpyDist(ms(8, 9.5, 420)...)
	s.RequestLatencyFromSchedule = numpyDist(ms(10, 15, 430)...)
	s.ChunkGap = numpyDist(ms(9, 10, 11, 12)...)
	s.AchievedRequestRate = 9.87
	s.MeanConcurrency = 3.5
	goodput := 98.5
	s.RequestGoodput = &goodput
	return s
}
