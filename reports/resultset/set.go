package resultset

import (
	"cmp"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// Set is one result set: every point a path held, in experiment and load
// order.
type Set struct {
	// Path is the path the set was loaded from, as given.
	Path   string
	Points []*Point
	// Start is the earliest request sent in any of its records: what a
	// history of runs is ordered by (folder times change when copied).
	Start time.Time
}

// Point is one load point of one experiment with all its repeats: the
// unit a comparison judges.
type Point struct {
	// Experiment is the experiment's name; "" for a profile point and an
	// imported export, which belong to no experiment.
	Experiment string
	Params     runtime.Params
	// Scenario is the scenario file's name ("" for profile and analyze).
	Scenario string
	Desc     Description
	// Repeats are the point's runs in repeat order; the statistics use
	// the variation between them when there are two or more.
	Repeats []*Repeat
	// Goodput are the SLOs its goodput was judged against.
	Goodput []metrics.SLO
	// CostPerHour is its experiment's price (cost_per_hour=), 0 without.
	CostPerHour float64
}

// Label names the point as its folder does: "concurrency16".
func (p *Point) Label() string { return p.Params.Label() }

// Name names the point for people: "chat / concurrency16", or the label
// alone for a point of no experiment.
func (p *Point) Name() string {
	if p.Experiment == "" {
		return p.Label()
	}
	return p.Experiment + " / " + p.Label()
}

// Repeat is one run of a point.
type Repeat struct {
	// Index counts from 1.
	Index int
	// Source is the file it was read from.
	Source string
	// Records are the measured requests in send order (the order the
	// statistics' time blocks need), failed ones included.
	Records []metrics.Record
	Summary metrics.Summary
	// Partial is set for a run interrupted or recovered from a kill.
	Partial bool
	// Telemetry is what the run's scrapes came to (telemetry.parquet);
	// nil when none was scraped.
	Telemetry *metrics.TelemetrySummary
}

// Description is what decides whether two points measured the same
// thing (see Check).
type Description struct {
	Models []string
	// API is the endpoint type: chat, completions, embeddings, ...
	API    string
	Stream bool
	// TokenCounting is the mode ISL and OSL were counted in (tokenizer,
	// usage, chunks).
	TokenCounting string
	// Dataset is the dataset as the scenario described it; "" when the
	// source does not say (an imported export, a version 1 records file).
	Dataset string
	// MeanISL and MeanOSL are over the completed requests of every repeat.
	MeanISL, MeanOSL float64
	// Load is the point's load in words: "concurrency 16", "rate 10/s poisson".
	Load string
	// Imported marks a point read from a profile_export.json.
	Imported bool
}

// Options says how to load a set.
type Options struct {
	// Stderr receives notes (a killed run's file recovered); nil drops them.
	Stderr io.Writer
	// Import counts the tokens of an imported export.
	Import ImportOptions
}

// finish sorts the points and their records and computes what spans
// repeats: the start time and the mean sequence lengths.
func (s *Set) finish() {
	slices.SortStableFunc(s.Points, func(a, b *Point) int {
		return cmp.Or(strings.Compare(a.Scenario, b.Scenario), strings.Compare(a.Experiment, b.Experiment), a.Params.Compare(b.Params))
	})
	for _, p := range s.Points {
		slices.SortFunc(p.Repeats, func(a, b *Repeat) int { return cmp.Compare(a.Index, b.Index) })
		for _, r := range p.Repeats {
			sortBySend(r.Records)
			if len(r.Records) > 0 && r.Records[0].Sent > 0 && (s.Start.IsZero() || r.Records[0].Sent < s.Start.UnixNano()) {
				s.Start = time.Unix(0, r.Records[0].Sent)
			}
		}
		p.Desc.MeanISL, p.Desc.MeanOSL = meanLengths(p.Repeats)
	}
}

// sortBySend orders records by send time, then by ID for requests sent
// in the same nanosecond.
func sortBySend(recs []metrics.Record) {
	slices.SortStableFunc(recs, func(a, b metrics.Record) int {
		return cmp.Or(cmp.Compare(a.Sent, b.Sent), cmp.Compare(a.ID, b.ID))
	})
}

// meanLengths are the mean ISL and OSL over every repeat's completed
// requests, each repeat weighted by its count.
func meanLengths(reps []*Repeat) (isl, osl float64) {
	mean := func(d func(*metrics.Summary) *metrics.Distribution) float64 {
		var sum float64
		var n int
		for _, r := range reps {
			if x := d(&r.Summary); x != nil {
				sum += x.Avg * float64(x.Count)
				n += x.Count
			}
		}
		if n == 0 {
			return 0
		}
		return sum / float64(n)
	}
	return mean(func(s *metrics.Summary) *metrics.Distribution { return s.InputSequenceLength }),
		mean(func(s *metrics.Summary) *metrics.Distribution { return s.OutputSequenceLength })
}

// loadText is a point's load in words.
func loadText(p runtime.Params, arrival string) string {
	name, v, ok := p.Load()
	switch {
	case !ok:
		return "unknown load"
	case name == metrics.ParamRate && arrival != "":
		return "rate " + num(v) + "/s " + arrival
	case name == metrics.ParamRate:
		return "rate " + num(v) + "/s"
	case name == metrics.ParamReplaySpeed:
		return "replay speed " + num(v)
	}
	return name + " " + num(v)
}

// Runs are the point's repeats as the comparison statistics read them
// (metrics.SampleOf): each repeat's summary and send-ordered records.
func (p *Point) Runs() []metrics.RunData {
	out := make([]metrics.RunData, len(p.Repeats))
	for i, r := range p.Repeats {
		out[i] = metrics.RunData{Summary: &r.Summary, Records: r.Records, Telemetry: r.Telemetry, CostPerHour: p.CostPerHour}
	}
	return out
}

// Experiments are the names of the set's experiments, in point order.
func (s *Set) Experiments() []string {
	var names []string
	for _, p := range s.Points {
		if p.Experiment != "" && !slices.Contains(names, p.Experiment) {
			names = append(names, p.Experiment)
		}
	}
	return names
}

// Only is the set restricted to the points of one experiment — or, for a
// set whose points belong to no experiment (a profile folder, an
// imported export), the whole set.
func (s *Set) Only(experiment string) *Set {
	return &Set{Path: s.Path, Points: s.pointsOf(experiment), Start: s.Start}
}
