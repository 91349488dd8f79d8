package storedrun

// The reader of records files of schema version 1, written before points
// saved their plan (runtime.PointRecord): what they stored of it has to be
// read back from display strings — the experiment from the GenAI-Perf run
// description, point parameters from labels, gates from gates.json, token
// counting from its printed form. Files of version 2 and later never come
// here.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// describeV1 reads a version 1 file's goodput, counting and parameters
// from its run description.
func (r *Repeat) describeV1() error {
	run := &r.Described
	slos, err := goodputOf(run.Goodput)
	if err != nil {
		return err
	}
	r.Goodput, r.Counting, r.Partial = slos, countingOf(run.TokenCounting), r.Meta.Recovered
	// A profile point's label is its GenAI-Perf folder name, which names
	// no parameter: its load is the run's stimulus.
	if r.Params, err = pointParams(r.Meta.Point, run); err != nil {
		r.Params = withStimulus(plan.Params{}, run)
	}
	return nil
}

// v1Experiment is the experiment as far as a version 1 point's stored run
// description tells it: what report.html lists and what its gates are
// judged with. Its sweep is not stored; the reports find the load
// parameter from the points.
func v1Experiment(name string, p *Repeat, gates []metrics.Gate) (*plan.Experiment, error) {
	run := &p.Described
	ep := plan.Endpoint{URL: p.Meta.EndpointURL, API: plan.API(run.EndpointType), Stream: run.Streaming,
		Model: run.Models[0], Tokenizer: run.Tokenizer}
	if len(run.Models) > 1 {
		ep.Models, ep.ModelSelection = run.Models, run.ModelSelection
	}
	if run.Endpoint != "" {
		ep.Path = "/" + run.Endpoint
	}
	exp := &plan.Experiment{Name: name, Endpoint: ep, Dataset: plan.Described(""), Requests: run.RequestCount,
		Duration: time.Duration(run.MeasurementInterval) * time.Millisecond, Warmup: run.WarmupRequestCount,
		Seed: uint64(run.RandomSeed), Repeats: 1, Goodput: p.Goodput}
	for _, g := range gates {
		if err := g.PriceIn("EUR"); err != nil { // a version 1 plan had no currency
			return nil, fmt.Errorf("experiment %q: %w", name, err)
		}
		exp.Gates = append(exp.Gates, g)
	}
	return exp, nil
}

// labelParams maps the names in point labels to sweep parameters: run
// names a point by its parameters ("concurrency8-input_tokens512"),
// analyze by GenAI-Perf's objective ("input_sequence_length512").
var labelParams = map[string]string{
	"concurrency": metrics.ParamConcurrency, "request_rate": metrics.ParamRate,
	"replay_speed": metrics.ParamReplaySpeed, "input_tokens": metrics.ParamInputTokens,
	"output_tokens": metrics.ParamOutputTokens, "input_sequence_length": metrics.ParamInputTokens,
	"output_sequence_length": metrics.ParamOutputTokens,
}

// pointParams reads a point's parameters back from its label, which
// holds every swept value (the run description keeps the load only, and
// not a replay's speed), then takes a load the label does not name (an
// analyze token sweep's) from the run's stimulus, as analyze sets it.
func pointParams(label string, run *genaiperf.Run) (plan.Params, error) {
	params := plan.Params{}
	for part := range strings.SplitSeq(label, "-") {
		i := strings.IndexFunc(part, func(r rune) bool { return r >= '0' && r <= '9' })
		if i <= 0 {
			return nil, fmt.Errorf("point label %q: %q is not a parameter and its value", label, part)
		}
		name, ok := labelParams[part[:i]]
		v, err := strconv.ParseFloat(part[i:], 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("point label %q: %q is not a parameter and its value", label, part)
		}
		params[name] = v
	}
	return withStimulus(params, run), nil
}

// withStimulus adds the run's stimulus to params that name no load.
func withStimulus(params plan.Params, run *genaiperf.Run) plan.Params {
	_, c := params[metrics.ParamConcurrency]
	_, r := params[metrics.ParamRate]
	_, s := params[metrics.ParamReplaySpeed]
	switch {
	case c || r || s:
	case run.Stimulus.Mode() == "request_rate":
		params[metrics.ParamRate] = run.Stimulus.RequestRate
	default:
		params[metrics.ParamConcurrency] = float64(max(run.Stimulus.Concurrency, 1))
	}
	return params
}

// v1Load is a point's load as a scenario writes it; the lowest point's
// stands for the experiment's base load in report.html.
func v1Load(params plan.Params, run *genaiperf.Run) plan.Load {
	return plan.Load{Concurrency: int(params[metrics.ParamConcurrency]), Rate: params[metrics.ParamRate],
		ReplaySpeed: params[metrics.ParamReplaySpeed], Arrival: plan.Arrival(run.RequestDistribution)}
}

// countingOf reads back a run's token counting as runtime.Counting.String
// wrote it: "usage", or "usage (3 requests without usage counted by
// chunks)".
func countingOf(s string) runtime.Counting {
	mode, rest, _ := strings.Cut(s, " (")
	c := runtime.Counting{Mode: runtime.CountMode(mode)}
	fmt.Sscanf(rest, "%d", &c.Fallbacks)
	return c
}

// goodputOf turns the stored goodput SLOs back into metrics.SLO values.
func goodputOf(gs []genaiperf.Goodput) ([]metrics.SLO, error) {
	slos := make([]metrics.SLO, 0, len(gs))
	for _, g := range gs {
		slo, err := metrics.ParseGoodput(fmt.Sprintf("%s:%v", g.Name, g.Value))
		if err != nil {
			return nil, err
		}
		slos = append(slos, slo)
	}
	return slos, nil
}
