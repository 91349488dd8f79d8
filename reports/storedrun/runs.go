package storedrun

import (
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// Runs are the point's repeats as a comparison reads them
// (metrics.Gate.Sample), whole (component "") or for one dataset component:
// each repeat's summary, and the first repeat's series of the metrics
// track names (as gates name them, each with per-request values), read
// from its records now. Gate.Sample reads per-request values from the first
// run only, so no other repeat's requests are read again, and a series
// keeps a few numbers per request, never the records. Summarize must
// have run. An auto point's warm-up requests are in no series, as they
// are in no summary.
func (p *Point) Runs(track []*metrics.Metric, component string) ([]metrics.RunData, error) {
	out := make([]metrics.RunData, len(p.Repeats))
	for i, rep := range p.Repeats {
		var series *metrics.Series
		if i == 0 {
			var err error
			if series, err = metrics.NewSeries(track...); err != nil {
				return nil, err
			}
		}
		var part *metrics.Accumulator
		if component != "" {
			part = metrics.NewAccumulator(metrics.Options{Goodput: p.Goodput})
		}
		if series != nil || part != nil {
			err := rep.Each(func(r *metrics.Record) error {
				if component != "" && r.Component != component {
					return nil
				}
				if part != nil {
					part.Add(r)
				}
				addMeasured(series, r)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		out[i] = metrics.RunData{Summary: &rep.Outcome.Summary, Series: series, CostPerHour: p.CostPerHour}
		if part != nil {
			s := part.Summary()
			out[i].Summary = &s
		} else if t := rep.Outcome.Telemetry; t != nil {
			out[i].Telemetry = &t.Summary
		}
	}
	return out, nil
}

// HasComponent reports whether any repeat of the point sent requests of
// the dataset component. Summarize must have run.
func (p *Point) HasComponent(name string) bool {
	return slices.Contains(p.componentNames(), name)
}

// ComponentNames lists the point's dataset components for a message.
func (p *Point) ComponentNames() string {
	names := p.componentNames()
	if len(names) == 0 {
		return "none: its dataset is not a mix()"
	}
	return strings.Join(names, ", ")
}

func (p *Point) componentNames() []string {
	var names []string
	for _, r := range p.Repeats {
		for _, c := range r.components {
			if !slices.Contains(names, c) {
				names = append(names, c)
			}
		}
	}
	slices.Sort(names)
	return names
}
