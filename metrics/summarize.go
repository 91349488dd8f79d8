package metrics

// Options are the choices of a run that change its summary.
type Options struct {
	// Goodput lists the SLOs a request must all meet to count towards
	// request_goodput; with none, Summary.RequestGoodput is nil.
	Goodput []SLO
}

// Summarize reduces a run's measured records (warmup excluded) to its
// Summary, with GenAI-Perf's definitions (SPEC §2):
//   - failed records count in Failed, ErrorRate and Errors, and nowhere
//     else: not in latency statistics, throughputs or the duration;
//   - a completed record without content chunks counts in Completed and in
//     request_throughput (GenAI-Perf counts every exported request there)
//     but has no latency values and is not in RequestCount;
//   - the duration runs from the first send to the last content chunk, both
//     over requests with content;
//   - request_goodput counts the requests meeting every SLO, each judged on
//     its own values (see SLO.Met), over the same duration.
//
// Records are taken in the order given, which is the order numpy would sum
// them in: records in a GenAI-Perf export's order reproduce its averages
// bit for bit.
func Summarize(records []Record, opts Options) Summary {
	a := NewAccumulator(opts)
	for i := range records {
		a.Add(&records[i])
	}
	return a.Summary()
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
