package runtime

import (
	"strconv"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// StageSummary is one stage's share of a stages() point — the requests
// sent during it — reduced with the same definitions as the whole.
// Throughputs count its requests over its own span, from the first send
// to the last completion. Name is the stage's name as the scenario gave
// it ("" when it gave none); Label is how reports show it.
type StageSummary struct {
	Index   int             `json:"index"`
	Name    string          `json:"name,omitempty"`
	Label   string          `json:"label"`
	Target  float64         `json:"target"`
	Summary metrics.Summary `json:"summary"`
}

// StageAccumulators summarize each stage of a stages() point on its own
// as the records stream by; Load (a stages() one) and Goodput set, it is
// ready.
type StageAccumulators struct {
	Load    plan.Load
	Goodput []metrics.SLO
	parts   []*metrics.Accumulator
}

// Add takes one record; without stages nothing is kept.
func (c *StageAccumulators) Add(r *metrics.Record) {
	n := len(c.Load.StageList())
	if n == 0 || r.Stage < 0 || r.Stage >= n {
		return
	}
	if c.parts == nil {
		c.parts = make([]*metrics.Accumulator, n)
	}
	if c.parts[r.Stage] == nil {
		c.parts[r.Stage] = metrics.NewAccumulator(metrics.Options{Goodput: c.Goodput})
	}
	c.parts[r.Stage].Add(r)
}

// Summaries are the stages in order, one that sent nothing (a stage at
// rate 0) with an empty summary; nil for a load without stages.
func (c *StageAccumulators) Summaries() []StageSummary {
	list := c.Load.StageList()
	if len(list) == 0 {
		return nil
	}
	out := make([]StageSummary, len(list))
	for i, s := range list {
		out[i] = StageSummary{Index: i, Name: s.Name, Label: c.Load.StageLabel(i), Target: s.Target}
		if c.parts != nil && c.parts[i] != nil {
			out[i].Summary = c.parts[i].Summary()
		}
	}
	return out
}

// stageSummary is what a gate "@ stage=SEL" is judged on: the stage named
// SEL, or else the one of index SEL; an empty summary when there is none
// (the scenario refused that already), so the gate fails as unmeasured
// rather than passing.
func (o *Outcome) stageSummary(sel string) *metrics.Summary {
	for j := range o.Stages {
		if o.Stages[j].Name == sel {
			return &o.Stages[j].Summary
		}
	}
	for j := range o.Stages {
		if strconv.Itoa(o.Stages[j].Index) == sel {
			return &o.Stages[j].Summary
		}
	}
	return &metrics.Summary{}
}
