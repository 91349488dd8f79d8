// Package runtime measures experiments: it expands a plan into points,
// runs each (the simulator or the endpoint, telemetry, package engine's
// schedulers), reduces the records with token counts into summaries, and
// owns sweeps, searches, repeats, baselines and checkpoints. The plan it
// runs is package plan's plain values; the wiring of one run (a loaded
// baseline, a shard, a rendezvous) comes beside it as Options. Nothing
// here knows about Starlark or flags.
package runtime

import (
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// The plan is package plan's; these names keep it where the rest of
// llmbench reads a run.
type (
	Experiment  = plan.Experiment
	Endpoint    = plan.Endpoint
	Sweep       = plan.Sweep
	SweepParam  = plan.SweepParam
	Saturation  = plan.Saturation
	Search      = plan.Search
	PointSpec   = plan.PointSpec
	Params      = plan.Params
	ErrorBudget = plan.ErrorBudget
	PlanError   = plan.PlanError
	Arrival     = plan.Arrival
	Load        = plan.Load
	Stop        = plan.Stop
)

// The scheduler's values are package engine's.
type (
	Point    = engine.Point
	Shard    = engine.Shard
	Halt     = engine.Halt
	Progress = engine.Progress
	Request  = engine.Request
)

// Poisson is plan.Poisson, the arrivals a swept rate defaults to.
const Poisson = plan.Poisson

// The replica and model selections (plan.Endpoint).
const (
	RoundRobin    = plan.RoundRobin
	LeastInFlight = plan.LeastInFlight
	RandomModel   = plan.RandomModel
)

// Plan helpers kept under their old names for runtime's callers.
var (
	ParamsOf         = plan.ParamsOf
	CheckHeader      = plan.CheckHeader
	ParseErrorBudget = plan.ParseErrorBudget
	ParseShare       = plan.ParseShare
	RedactURL        = plan.RedactURL
	RedactText       = plan.RedactText
)
