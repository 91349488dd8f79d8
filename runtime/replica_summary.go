package runtime

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// ReplicaSummary is one replica's share of a point, reduced with the same
// definitions as the whole. URL is the replica as the endpoint gave it,
// credentials removed.
type ReplicaSummary struct {
	Index   int             `json:"index"`
	URL     string          `json:"url"`
	Summary metrics.Summary `json:"summary"`
}

// ReplicaAccumulators summarize each replica of a point on its own as the
// records stream by; URLs (two or more) and Goodput set, it is ready.
type ReplicaAccumulators struct {
	URLs    []string
	Goodput []metrics.SLO
	parts   []*metrics.Accumulator
}

// Add takes one record; with one URL nothing is kept.
func (c *ReplicaAccumulators) Add(r *metrics.Record) {
	if len(c.URLs) < 2 || r.Replica < 0 || r.Replica >= len(c.URLs) {
		return
	}
	if c.parts == nil {
		c.parts = make([]*metrics.Accumulator, len(c.URLs))
	}
	if c.parts[r.Replica] == nil {
		c.parts[r.Replica] = metrics.NewAccumulator(metrics.Options{Goodput: c.Goodput})
	}
	c.parts[r.Replica].Add(r)
}

// Summaries are the replicas in URL order, one that served nothing with
// an empty summary; nil for an endpoint with one URL.
func (c *ReplicaAccumulators) Summaries() []ReplicaSummary {
	if len(c.URLs) < 2 {
		return nil
	}
	out := make([]ReplicaSummary, len(c.URLs))
	for i, u := range c.URLs {
		out[i] = ReplicaSummary{Index: i, URL: plan.RedactURL(u)}
		if c.parts != nil && c.parts[i] != nil {
			out[i].Summary = c.parts[i].Summary()
		}
	}
	return out
}

// replicaSummary is what a gate "@ replica=i" is judged on: that
// replica's share, or an empty summary when it served nothing here, so
// the gate fails as unmeasured rather than passing.
func (o *Outcome) replicaSummary(i int) *metrics.Summary {
	for j := range o.Replicas {
		if o.Replicas[j].Index == i {
			return &o.Replicas[j].Summary
		}
	}
	return &metrics.Summary{}
}
