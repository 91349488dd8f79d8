// Package runtime measures experiments: it expands a plan into points,
// runs each (the simulator or the endpoint, telemetry, package engine's
// schedulers), reduces the records with token counts into summaries, and
// owns sweeps, searches, repeats, baselines and checkpoints. The plan it
// runs is package plan's plain values; the wiring of one run (a loaded
// baseline, a shard, a rendezvous) comes beside it as Options. Nothing
// here knows about Starlark or flags.
package runtime
