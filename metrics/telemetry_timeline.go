package metrics

// TimedValue is one value of a telemetry quantity at one scrape instant,
// on the clock of TelemetrySample.Time.
type TimedValue struct {
	Time  int64
	Value float64
}

// TelemetryTimeline is a point's telemetry as it went over time, one value
// per scrape instant, for plots: the same quantities TelemetrySummary
// reduces to distributions, combined across GPUs, engines and sources the
// same way (alignedValues), so a timeline read inside the window has the
// values those distributions were computed from. It covers every scrape,
// the one before the first send and the one after the last response too,
// so a plot can show where the window's edges fall. A nil slice means no
// source exported the quantity.
type TelemetryTimeline struct {
	// Power is the total power of all GPUs (W), as TelemetrySummary.Power.
	Power []TimedValue
	// Running and Waiting are the server's requests in the running batch
	// and in its queue, summed across engines and sources.
	Running, Waiting []TimedValue
	// KVCacheUsage is the fullest engine's KV-cache use, in %.
	KVCacheUsage []TimedValue
	// Simulated is true when the values are the simulator's made-up ones
	// (TelemetrySummary.Simulated).
	Simulated bool
}

// TimelineOf lays out a point's samples (any order, any mix of sources)
// over time, with the reductions' name tables and cleaning.
func TimelineOf(samples []TelemetrySample) TelemetryTimeline {
	d := prepareTelemetry(samples)
	tl := TelemetryTimeline{Simulated: d.sources.allSimulated()}
	var power [][]point
	for _, g := range collectGPUs(d) {
		if ps := g.fields[fieldPower]; len(ps) > 0 {
			power = append(power, ps)
		}
	}
	tl.Power = alignedTimes(power, sumOf, 1)
	var picks []serverSource
	for _, src := range sortedKeys(d.scrapes) {
		if e := engineOf(d, src); e != nil {
			picks = append(picks, serverSource{src, e})
		}
	}
	gauge := func(refs func(*serverEngine) []seriesRef, combine func([]float64) float64, scale float64) []TimedValue {
		var list [][]point
		for _, p := range picks {
			for _, s := range chosenSeries(d, p.source, refs(p.engine)) {
				list = append(list, s.points)
			}
		}
		return alignedTimes(list, combine, scale)
	}
	tl.Running = gauge(func(e *serverEngine) []seriesRef { return e.running }, sumOf, 1)
	tl.Waiting = gauge(func(e *serverEngine) []seriesRef { return e.waiting }, sumOf, 1)
	tl.KVCacheUsage = gauge(func(e *serverEngine) []seriesRef { return e.kvCache }, maxOf, 100)
	return tl
}

// alignedTimes is alignedValues with the instant of each value, scaled.
// alignedValues keeps only the instants where every series is fresh and
// says nothing of which they were; rather than copy its rules, a clock
// series is added that is sampled at every instant (so never stale, and
// never the reason an instant is dropped) and whose value is the index of
// that instant, which combine hands back beside the combined value.
func alignedTimes(list [][]point, combine func([]float64) float64, scale float64) []TimedValue {
	if len(list) == 0 {
		return nil
	}
	var times []int64
	for _, p := range mergePoints(list...) {
		times = append(times, p.t)
	}
	clock := make([]point, len(times))
	for i, t := range times {
		clock[i] = point{t, float64(i)}
	}
	var out []TimedValue
	alignedValues(append(list[:len(list):len(list)], clock), func(vals []float64) float64 {
		last := len(vals) - 1
		v := combine(vals[:last])
		out = append(out, TimedValue{Time: times[int(vals[last])], Value: v * scale})
		return v
	})
	return out
}
