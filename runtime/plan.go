// Package runtime measures experiments: it expands a plan into points,
// runs each (the simulator or the endpoint, telemetry, package engine's
// schedulers), reduces the records with token counts into summaries, and
// owns sweeps, searches, repeats, baselines and checkpoints. It holds
// plain Go plan values; nothing here knows about Starlark or flags.
package runtime

import "github.com/llmbench/llmbench/runtime/engine"

// The plan of a point and the scheduler's values are package engine's;
// these names keep them where the rest of llmbench reads the plan.
type (
	Arrival  = engine.Arrival
	Load     = engine.Load
	Stop     = engine.Stop
	Point    = engine.Point
	Shard    = engine.Shard
	Halt     = engine.Halt
	Progress = engine.Progress
	Request  = engine.Request
)

// The arrival processes (engine.Constant, engine.Poisson, engine.Gamma).
const (
	Constant = engine.Constant
	Poisson  = engine.Poisson
	Gamma    = engine.Gamma
)
