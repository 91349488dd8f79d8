package runtime

import (
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
)

// Scenario is a loaded, validated scenario file: plain Go values that the
// engine runs without ever touching the interpreter again (Skycfg-style).
type Scenario struct {
	// File is the scenario's path as given on the command line.
	File string
	// Experiments are what main(ctx) returned, in order.
	Experiments []Experiment
	// Check runs the script's check(results) after every experiment has
	// run; nil when the script defines none. It returns the failures the
	// script raised with fail(), or an error for a script fault.
	Check func(results []ExperimentResult) error
}

// Experiment is one experiment of a scenario (SPEC §6 experiment()).
type Experiment struct {
	Name     string
	Endpoint Endpoint
	Dataset  dataset.Source
	// Load is the base load; a sweep varies one or more of its parameters.
	Load Load
	// Requests, Duration or (for conversations) Sessions ends each
	// point's measurement.
	Requests int
	Duration time.Duration
	Sessions int
	// Steady, when set, makes Requests or Duration the cap of an auto
	// point (requests="auto", duration="auto") that stops once the rule
	// is met.
	Steady *metrics.SteadyRule
	// Warmup requests precede each point's measurement, excluded from it.
	Warmup int
	// Sweep is nil for a single point.
	Sweep *Sweep
	// Planned, when set, are the experiment's points as its caller
	// compiled them, run in order instead of a sweep's (GenAI-Perf's
	// analyze derives each point from its flags); Sweep then only
	// describes them.
	Planned []PointSpec
	Gates   []metrics.Gate
	Goodput []metrics.SLO
	// Repeats runs each point this many times (at least 1).
	Repeats int
	// Telemetry lists Prometheus /metrics URLs to scrape during each point
	// (the endpoint's own /metrics is tried too).
	Telemetry []string
	// TelemetryInterval is the scrape period; 0 means 0.33 s, and a
	// negative one (--telemetry-interval off) scrapes nothing at all.
	TelemetryInterval time.Duration
	// ServerMetricsOff leaves the endpoint's own /metrics unscraped
	// (--no-server-metrics, endpoint(server_metrics = False)); URLs in
	// Telemetry are still scraped.
	ServerMetricsOff bool
	// CostPerHour prices the deployment, in Currency ("EUR" when empty).
	CostPerHour float64
	Currency    string
	// Baseline names a stored result set to compare with, as the
	// scenario or --baseline gave it.
	Baseline string
	// Against is that result set loaded, which baseline gates compare
	// with; nil when there is none (the gates are then skipped, which
	// only --allow-missing-baseline lets happen).
	Against *Baseline
	Tags    map[string]string
	// Seed makes datasets and arrival schedules reproducible.
	Seed uint64
	// PointSeeds gives each point prompts of its own, drawn with the
	// dataset's seeds mixed with the point's parameters (PointSeed);
	// false sends the same prompts at every point (a scenario's
	// same_prompts=True, and GenAI-Perf's single seed in profile and
	// analyze).
	PointSeeds bool
	// ErrorBudget, when set, abandons the run once a point's failures
	// exceed it; nil lets every failure be data.
	ErrorBudget *ErrorBudget
	// Shard is this process's part of a sharded run (--shard I/N); the
	// zero value runs the whole experiment.
	Shard Shard
	// Rendezvous, when set, starts every point at an instant all shards
	// agreed on.
	Rendezvous Rendezvous
}

// Sweep varies the load across points. Exactly one of Params, Saturation
// or Search is set.
type Sweep struct {
	// Params is a grid: every combination of every parameter's values.
	Params     []SweepParam
	Saturation *Saturation
	Search     *Search
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
	Gate      metrics.Gate
	Over      string
	Lo, Hi    float64
	Precision float64 // a ratio: 0.05 for "5%"
}

// ExperimentResult is what an experiment measured, point by point.
type ExperimentResult struct {
	Experiment *Experiment
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
	Params Params
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
	// Skipped says why a baseline gate was not judged (no baseline, or
	// none at this point, under --allow-missing-baseline); it then counts
	// as passed, as that flag asks, and every report says it was skipped.
	Skipped string
}

// Converses reports whether the experiment's dataset is made of
// multi-turn sessions, so its closed loop counts sessions, not requests.
func (e *Experiment) Converses() bool {
	_, ok := dataset.Sessioned(e.Dataset)
	return ok
}
