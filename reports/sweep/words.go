package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// analysisNotes name the knee, the max-goodput point, the saturation
// point and a search's answer in words under the table: a reader should
// not have to find the capacity in the numbers.
func analysisNotes(res *runtime.ExperimentResult, c *runtime.Capacity) []Note {
	var knee Note
	switch k := c.Knee; {
	case k == nil:
		knee = Note{"Knee", "– (no latency gate to judge it by)"}
	case c.Note != "":
		knee = Note{"Knee (" + k.Gate.String() + ")", c.Note}
	default:
		knee = Note{"Knee (" + k.Gate.String() + ")", kneeWords(res, c, *k)}
	}
	notes := []Note{knee, {"Max goodput", maxGoodputWords(res, c)}, {"Saturation", saturationWords(res, c)}}
	if s := c.Search; s != nil {
		notes = append(notes, Note{"Search", searchWords(res, s)})
	}
	return notes
}

func kneeWords(res *runtime.ExperimentResult, c *runtime.Capacity, k runtime.Knee) string {
	switch {
	case !k.Found:
		return fmt.Sprintf("none: even the lowest load, %s, misses it", pointName(&res.Points[c.Order[0]], c.Param))
	case k.EveryLoad:
		return fmt.Sprintf("%s; the gate held at every load tried, so the knee is at least that", pointName(&res.Points[k.Point], c.Param))
	}
	return fmt.Sprintf("%s, the highest load meeting it before it first fails", pointName(&res.Points[k.Point], c.Param))
}

func maxGoodputWords(res *runtime.ExperimentResult, c *runtime.Capacity) string {
	if c.MaxGoodput < 0 {
		return "– (no goodput measured: give goodput SLOs)"
	}
	p := &res.Points[c.MaxGoodput]
	return fmt.Sprintf("%s req/s at %s", fixed(*p.Outcome.Summary.RequestGoodput, 2), pointName(p, c.Param))
}

// saturationWords says where the sweep saturated and by which rule, or
// that it never did, in which case the capacity it reports is only the
// highest load tried.
func saturationWords(res *runtime.ExperimentResult, c *runtime.Capacity) string {
	s := c.Saturation
	switch {
	case s == nil && c.Note != "":
		return c.Note
	case s == nil && c.Param == metrics.ParamUsers:
		return "– (not analysed: a users() sweep spreads one total rate over more users, so its load does not grow)"
	case s == nil && slices.Contains(metrics.LoadParams, c.Param):
		return "– (not analysed: fewer than two points ran to their end, so there is no trend)"
	case s == nil:
		return fmt.Sprintf("– (not analysed: a %s sweep holds the load fixed)", c.Param)
	case s.Saturated && s.Point >= 0 && s.Point < len(res.Points):
		return fmt.Sprintf("at %s: %s", pointName(&res.Points[s.Point], c.Param), s.Reason)
	case s.Saturated:
		return s.Reason
	case strings.HasPrefix(s.Reason, "never saturated"):
		return s.Reason
	}
	return "never saturated: " + s.Reason
}

func searchWords(res *runtime.ExperimentResult, s *runtime.SearchResult) string {
	gate, over := "the gate", "load"
	if e := res.Experiment; e != nil && e.Sweep != nil && e.Sweep.Search != nil {
		gate, over = e.Sweep.Search.Gate.String(), e.Sweep.Search.Over
	}
	if !s.Found {
		return fmt.Sprintf("no %s tried meets %s", over, gate)
	}
	return fmt.Sprintf("the largest %s meeting %s is %s (%d points tried)", over, gate, plain(s.Best), len(res.Points))
}

// pointName is a point in words: "concurrency 16", or its label when it
// has no value for param.
func pointName(p *runtime.PointResult, param string) string {
	if v, ok := p.Params[param]; ok {
		return loadName(param, v)
	}
	return p.Params.Label()
}

// plain prints a parameter value as the shortest decimal: 16, 2.5.
func plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// fixed prints v with decimals, "–" for a value that was not measured.
func fixed(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// ms converts ns to ms as GenAI-Perf scales (a product, not a quotient),
// so the table's digits match the GenAI-Perf files'.
func ms(ns float64) float64 { return ns * 1e-6 }
