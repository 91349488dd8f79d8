package metrics

// WindowRates turns a whole-run rate (tokens or requests per second) into
// a time series the block bootstrap can resample: the run from start to
// end (ns) is cut into ⌊(end − start)/width⌋ windows of width ns, and
// each window's rate is the sum of the amounts whose time falls in it,
// divided by the width in seconds. The remainder after the last whole
// window is dropped. For output_token_throughput pass each completed
// request's Done and OutputTokens; for request_throughput, Done and 1.
//
// The mean of the window rates is the run's rate over its whole windows
// (Σ amounts / covered duration), close to but not exactly the Summary's
// throughput, which divides by first send to last completion. Tokens are
// credited to the window of the request's completion, so a window shorter
// than a request's latency is lumpy; use windows several latencies long
// (1 s for chat-sized requests, more for long generations), and at least
// about 30 of them for a usable interval.
func WindowRates(times []int64, amounts []float64, start, end, width int64) []float64 {
	if width <= 0 || end <= start {
		return nil
	}
	n := int((end - start) / width)
	rates := make([]float64, n)
	seconds := float64(width) / 1e9
	for i, t := range times {
		w := int((t - start) / width)
		if t < start || w >= n {
			continue
		}
		rates[w] += amounts[i] / seconds
	}
	return rates
}
