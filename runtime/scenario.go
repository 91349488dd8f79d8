package runtime

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Scenario is a loaded, validated scenario file: plain Go values that the
// engine runs without ever touching the interpreter again (Skycfg-style).
type Scenario struct {
	// File is the scenario's path as given on the command line.
	File string
	// Experiments are what main(ctx) returned, in order.
	Experiments []plan.Experiment
	// Check runs the script's check(results) after every experiment has
	// run; nil when the script defines none. It returns the failures the
	// script raised with fail(), or an error for a script fault.
	Check func(results []ExperimentResult) error
}

// ExperimentResult is what an experiment measured, point by point.
type ExperimentResult struct {
	Experiment *plan.Experiment
	// Points are in the order they ran: a grid's order, a saturation
	// sweep's growing loads, a search's probes.
	Points []PointResult
	// Capacity is the capacity analysis of the points, made once when the
	// experiment ends.
	Capacity *Capacity
}

// SaturationResult says where throughput stopped growing or latency blew
// up, and which rule said so.
type SaturationResult struct {
	// Saturated is false when no rule held: the capacity is then only the
	// highest load tried.
	Saturated bool
	// Point indexes Points: the last load before gains stopped, or the
	// highest load tried when not saturated.
	Point int
	// Reason is the rule that held (or why the sweep stopped), in words.
	Reason string
	// Source says who decided: SaturationByRule or SaturationBySweep.
	Source string
}

// SearchResult is the largest load found meeting the search gate.
type SearchResult struct {
	Found bool
	Best  float64
	// Point indexes Points at the best load when Found.
	Point int
}

// PointResult is one measured point.
type PointResult struct {
	// Params are the point's load and swept values; Params.Label() names
	// it in paths and tables.
	Params plan.Params
	// Outcome holds the records and the summary of the first repeat, the
	// one gates and artifacts are judged and written from when repeats=1.
	Outcome *Outcome
	// Repeats holds every repeat's outcome (Repeats[0] == Outcome); with
	// more than one, RepeatStats has the spread of each headline metric.
	Repeats     []*Outcome
	RepeatStats map[string]metrics.RepeatStat
	Gates       []GateResult
}

// GateResult is a gate evaluated at one point.
type GateResult struct {
	Gate     metrics.Gate
	Measured float64
	Passed   bool
	// Err says why the gate could not be evaluated (metric not measured).
	Err error
	// Baseline is the gate's statistic in the baseline's same point, in
	// native units, shown beside every gate; nil without a baseline.
	Baseline *float64
	// Comparison is a baseline gate's judgement: the ratio to the
	// baseline with its interval, and the verdict (an inconclusive one
	// passes with a warning unless Baseline.FailOnInconclusive).
	Comparison *metrics.Comparison
	// Warning says what a baseline gate's reader must know about its
	// comparison: the two sides' prefix-cache hit shares differ
	// (metrics.CacheShareWarning, as compare warns); "" otherwise.
	Warning string
	// Skipped says why a baseline gate was not judged (no baseline, or
	// none at this point, under --allow-missing-baseline); it then counts
	// as passed, as that flag asks, and every report says it was skipped.
	Skipped string
}
