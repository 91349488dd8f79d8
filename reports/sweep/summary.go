package sweep

import (
	"encoding/json"
	"io"
	"math"

	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/runtime"
)

// SummarySchema names the layout of summary.json (docs/summary-json.md).
// It changes only when a reader would misread the old layout; keys may be
// added without a change.
const SummarySchema = "llmbench.summary/v1"

type summaryFile struct {
	Schema      string            `json:"schema"`
	Scenario    string            `json:"scenario"`
	Units       map[string]string `json:"units"`
	Partial     bool              `json:"partial"`
	Experiments []experimentJSON  `json:"experiments"`
	// ErrorAlarms are the points whose errors passed the default error
	// budget with nothing set to judge them (the run exits 3); absent
	// when there are none.
	ErrorAlarms []runtime.ErrorAlarm `json:"error_alarms,omitempty"`
}

type experimentJSON struct {
	Name       string          `json:"name"`
	LoadParam  string          `json:"load_param"`
	Points     []pointJSON     `json:"points"`
	Knees      []kneeJSON      `json:"knees"`
	MaxGoodput *pointRefJSON   `json:"max_goodput"`
	Saturation *saturationJSON `json:"saturation"`
	Search     *searchJSON     `json:"search,omitempty"`
	// CacheShift warns that the points' prefix-cache hit shares differ by
	// more than metrics.CacheShiftThreshold; absent when they do not.
	CacheShift *cacheShiftJSON `json:"cache_shift,omitempty"`
	// Note says why knee, max goodput and saturation are missing.
	Note string `json:"note,omitempty"`
}

type kneeJSON struct {
	Gate      string   `json:"gate"`
	Found     bool     `json:"found"`
	Point     *int     `json:"point"`
	Label     string   `json:"label,omitempty"`
	Load      *float64 `json:"load"`
	EveryLoad bool     `json:"met_at_every_load"`
}

type pointRefJSON struct {
	Point          int     `json:"point"`
	Label          string  `json:"label"`
	Load           float64 `json:"load"`
	RequestGoodput float64 `json:"request_goodput"`
}

type saturationJSON struct {
	Saturated bool     `json:"saturated"`
	Point     *int     `json:"point"`
	Label     string   `json:"label,omitempty"`
	Load      *float64 `json:"load"`
	Reason    string   `json:"reason"`
	// Source is "until_saturation" when the sweep grew the load until a
	// rule held, "rule" when the default rule judged a grid's points.
	Source string `json:"source"`
}

type searchJSON struct {
	Gate  string   `json:"gate,omitempty"`
	Over  string   `json:"over,omitempty"`
	Found bool     `json:"found"`
	Best  *float64 `json:"best"`
	Point *int     `json:"point"`
	Label string   `json:"label,omitempty"`
	Tried int      `json:"points_tried"`
}

// SummaryJSON writes summary.json: every experiment and every point (its
// parameters, label, headline metrics in report units, errors, gate
// results and repeat statistics), with each experiment's knees, max
// goodput, saturation and search result, so a program can read what the
// console table says without parsing it. partial marks a run known to be
// partial beyond its points: one whose point a crash left nothing of,
// which `report` leaves out of the results. The schema is SummarySchema,
// documented in docs/summary-json.md.
func SummaryJSON(scenario string, results []runtime.ExperimentResult, partial bool) reports.Reporter {
	f := summaryFile{Schema: SummarySchema, Scenario: scenario, Units: summaryUnits, Experiments: []experimentJSON{}, Partial: partial}
	for i := range results {
		ej := experimentOf(&results[i])
		for _, p := range ej.Points {
			f.Partial = f.Partial || p.Partial
		}
		f.Experiments = append(f.Experiments, ej)
	}
	f.ErrorAlarms = runtime.ErrorAlarms(results)
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(f)
	}
}

// summaryUnits states the units once, so no key needs a unit suffix.
var summaryUnits = map[string]string{
	"time": "ms", "throughput": "per second", "tokens": "tokens",
	"error_rate": "%", "spread": "%",
}

func experimentOf(res *runtime.ExperimentResult) experimentJSON {
	c := res.Analysis()
	param := c.Param
	ej := experimentJSON{LoadParam: param, Points: []pointJSON{}, Knees: []kneeJSON{}, Note: c.Note}
	if res.Experiment != nil {
		ej.Name = res.Experiment.Name
	}
	for i := range res.Points {
		ej.Points = append(ej.Points, pointOf(i, &res.Points[i]))
	}
	for _, k := range c.Knees {
		kj := kneeJSON{Gate: k.Gate.String(), Found: k.Found, EveryLoad: k.EveryLoad}
		if k.Found {
			kj.Point, kj.Label, kj.Load = ref(res, k.Point, param)
		}
		ej.Knees = append(ej.Knees, kj)
	}
	if c.MaxGoodput >= 0 {
		p := &res.Points[c.MaxGoodput]
		ej.MaxGoodput = &pointRefJSON{Point: c.MaxGoodput, Label: p.Params.Label(), Load: p.Params[param],
			RequestGoodput: *p.Outcome.Summary.RequestGoodput}
	}
	if s := c.Saturation; s != nil {
		sj := &saturationJSON{Saturated: s.Saturated, Reason: s.Reason, Source: s.Source}
		sj.Point, sj.Label, sj.Load = ref(res, s.Point, param)
		ej.Saturation = sj
	}
	ej.Search = searchOf(res, c)
	ej.CacheShift = cacheShiftOf(res, param)
	return ej
}

func searchOf(res *runtime.ExperimentResult, c *runtime.Capacity) *searchJSON {
	s := c.Search
	if s == nil {
		return nil
	}
	sj := &searchJSON{Found: s.Found, Tried: len(res.Points)}
	if e := res.Experiment; e != nil && e.Sweep != nil && e.Sweep.Search != nil {
		sj.Gate, sj.Over = e.Sweep.Search.Gate.String(), e.Sweep.Search.Over
	}
	if s.Found {
		sj.Best = num(s.Best)
		sj.Point, sj.Label, _ = ref(res, s.Point, sj.Over)
	}
	return sj
}

// ref names point i, or nothing when i is not a point.
func ref(res *runtime.ExperimentResult, i int, param string) (*int, string, *float64) {
	if i < 0 || i >= len(res.Points) {
		return nil, "", nil
	}
	p := &res.Points[i]
	var load *float64
	if v, ok := p.Params[param]; ok {
		load = num(v)
	}
	return &i, p.Params.Label(), load
}

// num is v for JSON, nil (null) for NaN or ±Inf, which JSON cannot hold.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
