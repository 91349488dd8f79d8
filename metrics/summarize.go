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
	var s Summary
	var run runValues
	var failures []*Failure
	for i := range records {
		r := &records[i]
		if r.Err != nil {
			s.Failed++
			failures = append(failures, r.Err)
			continue
		}
		s.Completed++
		if m := Derive(r); m.HasContent {
			run.add(r, &m, opts.Goodput)
		}
	}
	run.fill(&s)
	s.RequestThroughput = perSecond(float64(s.Completed), s.Duration)
	if len(opts.Goodput) > 0 {
		goodput := perSecond(float64(run.good), s.Duration)
		s.RequestGoodput = &goodput
	}
	if total := s.Completed + s.Failed; total > 0 {
		s.ErrorRate = float64(s.Failed) / float64(total)
	}
	s.Errors = groupErrors(failures)
	s.ScheduleLag = scheduleLag(records)
	s.AchievedRequestRate = achievedRequestRate(records)
	s.MeanConcurrency = meanConcurrency(records)
	return s
}

// runValues collects the per-request values of the completed requests with
// content, in record order, and the bounds of the benchmark duration.
type runValues struct {
	ttft, ttst, itl, latency, tpsUser, osl, isl, ttfo, gaps []float64

	count, good     int
	itlSum, oslSum  int64
	firstSent, last int64
}

// add takes one completed request with content.
func (v *runValues) add(r *Record, m *RequestMetrics, slos []SLO) {
	if v.count == 0 || r.Sent < v.firstSent {
		v.firstSent = r.Sent
	}
	v.last = max(v.last, r.Chunks[len(r.Chunks)-1])
	v.count++
	v.ttft = append(v.ttft, float64(m.TTFT))
	v.latency = append(v.latency, float64(m.Latency))
	v.osl = append(v.osl, float64(m.OSL))
	v.isl = append(v.isl, float64(m.ISL))
	v.oslSum += int64(m.OSL)
	if m.HasTTST {
		v.ttst = append(v.ttst, float64(m.TTST))
	}
	if m.HasITL {
		v.itl = append(v.itl, float64(m.ITL))
		v.itlSum += m.ITL
	}
	if m.HasTPSUser {
		v.tpsUser = append(v.tpsUser, m.TPSUser)
	}
	if m.HasTTFO {
		v.ttfo = append(v.ttfo, float64(m.TTFO))
	}
	for _, g := range m.ChunkGaps {
		v.gaps = append(v.gaps, float64(g))
	}
	if len(slos) > 0 && meetsAll(slos, m) {
		v.good++
	}
}

// fill sets the distributions, the request count, the duration and the
// output token throughput.
func (v *runValues) fill(s *Summary) {
	s.TimeToFirstToken = NewDistribution(v.ttft)
	s.TimeToSecondToken = NewDistribution(v.ttst)
	// GenAI-Perf drops ITL altogether when its values sum to 0, its guard
	// for non-streaming runs where every ITL came out 0.
	if v.itlSum != 0 {
		s.InterTokenLatency = NewDistribution(v.itl)
	}
	s.RequestLatency = NewDistribution(v.latency)
	s.OutputTokenThroughputPerUser = NewDistribution(v.tpsUser)
	s.OutputSequenceLength = NewDistribution(v.osl)
	s.InputSequenceLength = NewDistribution(v.isl)
	s.TimeToFirstOutputToken = NewDistribution(v.ttfo)
	s.ChunkGap = NewDistribution(v.gaps)
	s.RequestCount = v.count
	if v.count > 0 {
		s.Duration = v.last - v.firstSent
	}
	s.OutputTokenThroughput = perSecond(float64(v.oslSum), s.Duration)
}
