package gpflags

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Plan is what valid flags describe before the point is named: the
// endpoint, the prompts, the point and the goodput SLOs.
type Plan struct {
	Endpoint plan.Endpoint
	Dataset  dataset.Source
	Point    engine.Point
	Goodput  []metrics.SLO
}

// Plan validates the flags and turns them into what they describe. The
// tokenizer is loaded here, so a bad one is refused before any traffic,
// and so are prompts that would not fit in memory.
func (c *Profile) Plan() (Plan, error) {
	if err := c.validate(); err != nil {
		return Plan{}, err
	}
	endpoint, err := c.Server()
	if err != nil {
		return Plan{}, err
	}
	slos, err := ParseGoodput(c.Goodput)
	if err != nil {
		return Plan{}, err
	}
	if c.Tokenizer != "" {
		if _, err := runtime.LoadTokenizerRevision(c.Tokenizer, c.TokenizerRevision); err != nil {
			return Plan{}, failure.Inputf("--tokenizer: %w", err)
		}
	}
	if _, err := runtime.ParseCountMode(c.TokenCount, c.Tokenizer != ""); err != nil {
		return Plan{}, failure.Inputf("--token-count: %w", err)
	}
	src, err := c.Source()
	if err != nil {
		return Plan{}, err
	}
	if err := checkDatasetMemory(src); err != nil {
		return Plan{}, err
	}
	return Plan{Endpoint: endpoint, Dataset: src, Point: c.Point(), Goodput: slos}, nil
}

// Experiment is the one-point experiment p runs as, named name (the
// GenAI-Perf folder), so that profile and analyze run through the same
// executor as run; the point is its only planned one.
func (c *Profile) Experiment(name string, p Plan) (*plan.Experiment, plan.PointSpec, error) {
	exp := &plan.Experiment{Name: name, Endpoint: p.Endpoint, Dataset: p.Dataset, Load: p.Point.Load, Requests: p.Point.Stop.Requests,
		Duration: p.Point.Stop.Duration, Sessions: p.Point.Stop.Sessions, Warmup: p.Point.Warmup, Seed: p.Point.Seed, Goodput: p.Goodput, Repeats: 1}
	c.Telemetry.Apply(exp)
	point := plan.PointSpec{Params: plan.ParamsOf(p.Point.Load), Load: p.Point.Load, Dataset: p.Dataset, Stop: p.Point.Stop}
	exp.Planned = []plan.PointSpec{point}
	if c.MaxErrorRate != "" {
		var err error
		if exp.ErrorBudget, err = plan.ParseErrorBudget(c.MaxErrorRate); err != nil {
			return nil, plan.PointSpec{}, failure.Inputf("--max-error-rate: %w", err)
		}
	}
	return exp, point, nil
}

// ParseGoodput reads GenAI-Perf's --goodput metric:value SLOs.
func ParseGoodput(specs []string) ([]metrics.SLO, error) {
	slos := make([]metrics.SLO, 0, len(specs))
	for _, spec := range specs {
		slo, err := metrics.ParseGoodput(spec)
		if err != nil {
			return nil, failure.Inputf("--goodput: %w", err)
		}
		slos = append(slos, slo)
	}
	return slos, nil
}
