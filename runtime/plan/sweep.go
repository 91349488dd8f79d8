package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// Sweep varies the load across points. Exactly one of Params, Saturation
// or Search is set.
type Sweep struct {
	// Params is a grid: every combination of every parameter's values.
	Params     []SweepParam `json:"grid,omitempty"`
	Saturation *Saturation  `json:"until_saturation,omitempty"`
	Search     *Search      `json:"search,omitempty"`
}

// SweepParam is one swept parameter with its values in order.
type SweepParam struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
}

// Saturation grows the load geometrically until throughput stops growing
// (less than Growth per step) or p99 TTFT exceeds TTFTFactor times the
// lowest-load value, or Limit is reached (SPEC §6 until_saturation()).
type Saturation struct {
	Over       string  `json:"over"`
	Start      float64 `json:"start"`
	Factor     float64 `json:"factor"`
	Limit      float64 `json:"limit"`
	Growth     float64 `json:"growth"` // a ratio: 0.05 for "5%"
	TTFTFactor float64 `json:"ttft_factor"`
}

// Search finds the largest load meeting Gate by bisection between Lo and
// Hi, to a relative Precision (SPEC §6 search()).
type Search struct {
	Gate      metrics.Gate `json:"-"` // stored as written (MarshalJSON)
	Over      string       `json:"over"`
	Lo        float64      `json:"lo"`
	Hi        float64      `json:"hi"`
	Precision float64      `json:"precision"` // a ratio: 0.05 for "5%"
}

// Driver is the step-by-step saturation driver for this sweep.
func (s *Saturation) Driver() metrics.Saturator {
	rule := metrics.SaturationRule{Growth: s.Growth, TTFTFactor: s.TTFTFactor}
	return metrics.Saturator{Start: s.Start, Factor: s.Factor, Limit: s.Limit,
		Integer: s.Over == metrics.ParamConcurrency, Rule: rule, Param: s.Over}
}

// Driver is the bisection driver for this search.
func (s *Search) Driver() metrics.Searcher {
	return metrics.Searcher{Gate: s.Gate, Lo: s.Lo, Hi: s.Hi, Precision: s.Precision, Integer: s.Over == metrics.ParamConcurrency}
}

// String renders the sweep as the sweep(...), until_saturation(...) or
// search(...) call that declared it.
func (s *Sweep) String() string {
	switch {
	case s == nil:
		return "None"
	case s.Saturation != nil:
		t := s.Saturation
		return fmt.Sprintf("until_saturation(start=%s, factor=%s, limit=%s, growth=%s, ttft_factor=%s, over=%s)",
			Num(t.Start), Num(t.Factor), Num(t.Limit), strconv.Quote(Percent(t.Growth)), Num(t.TTFTFactor), strconv.Quote(t.Over))
	case s.Search != nil:
		t := s.Search
		return fmt.Sprintf("search(%s, over=%s, lo=%s, hi=%s, precision=%s)",
			strconv.Quote(t.Gate.Source), strconv.Quote(t.Over), Num(t.Lo), Num(t.Hi), strconv.Quote(Percent(t.Precision)))
	}
	args := make([]string, len(s.Params))
	for i, p := range s.Params {
		vals := make([]string, len(p.Values))
		for j, v := range p.Values {
			vals[j] = Num(v)
		}
		args[i] = p.Name + "=[" + strings.Join(vals, ", ") + "]"
	}
	return "sweep(" + strings.Join(args, ", ") + ")"
}

// Percent writes a ratio as a percentage, hiding float noise (0.07 is
// "7%", not "7.000000000000001%").
func Percent(r float64) string { return strconv.FormatFloat(r*100, 'g', 12, 64) + "%" }
