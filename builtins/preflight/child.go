package preflight

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/llmbench/llmbench/builtins"
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// request is what the parent hands the child on its standard input: the
// scenario as the parent loads it (the environment is inherited) and, for
// check(), the results it is called with.
type request struct {
	File   string
	Vars   map[string]string
	Memory int64
	CPU    time.Duration
	// Check asks for check(Results) instead of loading alone.
	Check   bool
	Results []experimentRun
}

// experimentRun is an ExperimentResult as it crosses to the child: the
// experiment's name (the child loads the plan itself) and its points in
// run order. The capacity analysis is made again from them, as `llmbench
// report` does; distributions keep their statistics, not their values, so
// check()'s stats.percentile() answers only for the fixed percentiles
// there (see Distribution.Percentile).
type experimentRun struct {
	Name   string
	Points []pointRun
}

type pointRun struct {
	Params  plan.Params
	Repeats []runtime.Outcome
	Gates   []gateRun
}

// gateRun is a GateResult with its gate as written and its error as text.
type gateRun struct {
	Source   string
	Measured float64
	Passed   bool
	Err      string
}

func transferOf(results []runtime.ExperimentResult) []experimentRun {
	out := make([]experimentRun, 0, len(results))
	for _, r := range results {
		if r.Experiment == nil {
			continue
		}
		er := experimentRun{Name: r.Experiment.Name}
		for _, p := range r.Points {
			pr := pointRun{Params: p.Params}
			repeats := p.Repeats
			if len(repeats) == 0 && p.Outcome != nil {
				repeats = []*runtime.Outcome{p.Outcome}
			}
			for _, o := range repeats {
				if o != nil {
					c := *o
					c.RecordsErr = nil // an error value does not travel; check() never sees it
					c.Series = nil     // nor what baseline gates compared
					if c.Telemetry != nil {
						t := *c.Telemetry
						t.Samples, t.Reports = nil, nil // check() reads the summary only
						c.Telemetry = &t
					}
					pr.Repeats = append(pr.Repeats, c)
				}
			}
			for _, g := range p.Gates {
				gr := gateRun{Source: g.Gate.Source, Measured: g.Measured, Passed: g.Passed}
				if g.Err != nil {
					gr.Err = g.Err.Error()
				}
				pr.Gates = append(pr.Gates, gr)
			}
			er.Points = append(er.Points, pr)
		}
		out = append(out, er)
	}
	return out
}

// results rebuilds the ExperimentResults check() is called with around
// the experiments the child loaded itself.
func results(scen *runtime.Scenario, runs []experimentRun) ([]runtime.ExperimentResult, error) {
	out := make([]runtime.ExperimentResult, 0, len(runs))
	for _, er := range runs {
		exp := findExperiment(scen, er.Name)
		if exp == nil {
			return nil, fmt.Errorf("experiment %q is not in the scenario any more", er.Name)
		}
		res := runtime.ExperimentResult{Experiment: exp}
		for _, pr := range er.Points {
			p := runtime.PointResult{Params: pr.Params}
			for i := range pr.Repeats {
				p.Repeats = append(p.Repeats, &pr.Repeats[i])
			}
			if len(p.Repeats) > 0 {
				p.Outcome = p.Repeats[0]
			}
			for _, gr := range pr.Gates {
				g, err := metrics.ParseStoredGate(gr.Source) // judged already: read as it was
				if err != nil {
					return nil, err
				}
				r := runtime.GateResult{Gate: g, Measured: gr.Measured, Passed: gr.Passed}
				if gr.Err != "" {
					r.Err = errors.New(gr.Err)
				}
				p.Gates = append(p.Gates, r)
			}
			res.Points = append(res.Points, p)
		}
		if !hasNilOutcome(res.Points) {
			res.Capacity = runtime.AnalyzeCapacity(&res, runtime.ReplayDecisions(exp, res.Points))
		}
		out = append(out, res)
	}
	return out, nil
}

func findExperiment(scen *runtime.Scenario, name string) *plan.Experiment {
	for i := range scen.Experiments {
		if scen.Experiments[i].Name == name {
			return &scen.Experiments[i]
		}
	}
	return nil
}

func hasNilOutcome(points []runtime.PointResult) bool {
	for _, p := range points {
		if p.Outcome == nil {
			return true
		}
	}
	return false
}

// Serve is the child: it reads a request from stdin, sets the memory
// limit and evaluates the scenario, and writes doneLine to stdout when
// the evaluation finished — with or without a scenario error, which the
// parent finds again when it evaluates. Dying by the limit is the other
// answer. What the scenario prints is dropped: the parent's evaluation
// prints it.
func Serve(stdin io.Reader, stdout io.Writer) error {
	var req request
	if err := gob.NewDecoder(stdin).Decode(&req); err != nil {
		return fmt.Errorf("%s: reading the request: %w", ChildCommand, err)
	}
	opts := builtins.Options{Print: func(string, string) {}}
	if !req.Check {
		if err := setLimits(req.Memory, req.CPU); err != nil {
			return err
		}
		_, _ = builtins.Load(req.File, req.Vars, opts)
	} else if err := serveCheck(req, opts); err != nil {
		return err
	}
	_, err := io.WriteString(stdout, doneLine)
	return err
}

// serveCheck loads the scenario and rebuilds the results unbounded — the
// load had its own preflight, the results fit in the parent — and then
// runs check() under the limit, so the limit is check()'s own.
func serveCheck(req request, opts builtins.Options) error {
	scen, err := builtins.Load(req.File, req.Vars, opts)
	if err != nil || scen.Check == nil {
		return nil // the scenario changed since the run loaded it: the parent's check() will tell
	}
	res, err := results(scen, req.Results)
	if err != nil {
		return nil
	}
	if err := setLimits(req.Memory, req.CPU); err != nil {
		return err
	}
	_ = scen.Check(res)
	return nil
}
