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
	// Metric is what the gate bounds, an entry of the Catalogue (never a
	// report-only one); ParseGate resolves GenAI-Perf's long names
	// (time_to_first_token...) to it. Held, not its name, so that nothing
	// downstream parses the gate's text again.
	Metric *Metric
	// PerGPU, for gpu_power and gpu_utilization, judges every GPU on its
	// own samples instead of the total power (or mean utilisation) across
	// GPUs at each scrape: "gpu_power.per_gpu.max < 700W" holds when no GPU
	// drew 700 W, "gpu_utilization.per_gpu > 50%" when every GPU's average
	// was above 50%. Written METRIC.per_gpu[.STAT].
	PerGPU bool
	// Stat is avg, min, max, std or a percentile p0..p100 (p50, p99.9) for
	// distribution metrics, avg when the gate names none; empty for
	// run-level metrics (throughputs, goodput, error_rate, energy, cost),
	// which have one value per run.
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
	// Component, when set, judges the gate on one dataset component of a
	// mix ("@ component=chat") instead of the whole point.
	Component string
	// Replica, when set, judges the gate on the requests one replica of
	// the endpoint served ("@ replica=1": index 1 of its URL list).
	Replica *int
	// Stage, when set, judges the gate on the requests sent during one
	// stage of a stages() load ("@ stage=hold", "@ stage=2"): the stage's
	// name or its index from 0, as written.
	Stage string
	// Currency is the unit of a cost_per_mtok gate ("USD"): as written
	// ("cost_per_mtok <= 2 USD"), or the experiment's currency given by
	// PriceIn, so that reports say what the limit is counted in. Empty
	// for other metrics.
	Currency string
}

// PointCondition selects sweep points by one load parameter.
type PointCondition struct {
	// Param is concurrency, rate, input_tokens or output_tokens.
	Param string
	Value float64
}

// Needs is what the run must do for g's metric to be measured.
func (g Gate) Needs() Need {
	if g.Metric == nil {
		return NeedNothing
	}
	return g.Metric.Need
}
