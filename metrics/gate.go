package metrics

// Gate is one pass/fail condition of a scenario, parsed once when the
// scenario loads (SPEC §6): `METRIC[.STAT] OP VALUE[UNIT] [@ POINT]`, e.g.
// "ttft.p99 < 500ms @ concurrency=16", "error_rate < 1%",
// "ttft.p99 <= baseline * 1.10". Values are held in the metric's native
// unit (ns for times, a ratio for rates), so evaluating a gate is a plain
// comparison with the Summary.
type Gate struct {
	// Source is the gate as written, for messages and reports.
	Source string
	// Metric is the SPEC §2 name: ttft, ttst, itl, request_latency, isl,
	// osl, output_token_throughput, output_token_throughput_per_user,
	// request_throughput, request_goodput, error_rate, schedule_lag, ...
	Metric string
	// Stat is avg, min, max, std, p50, p99.9, ...; empty for avg-only
	// metrics, where it means the run value.
	Stat string
	// Op is one of <, <=, >, >=, ==, !=.
	Op string
	// Value is the limit in the metric's native unit. With Baseline set it
	// is the factor applied to the baseline's value instead.
	Value float64
	// Baseline marks a gate relative to a baseline run.
	Baseline bool
	// At restricts the gate to the sweep points matching every condition
	// (e.g. concurrency=16); empty means every point.
	At []PointCondition
}

// PointCondition selects sweep points by one load parameter.
type PointCondition struct {
	// Param is concurrency, rate, input_tokens or output_tokens.
	Param string
	Value float64
}
