// Package plan owns the plan of a benchmark: one experiment's plain Go
// values (endpoint, dataset, load, stop, sweep, gates, goodput, repeats,
// seed, price), built by builtins from a scenario or by gpflags from
// GenAI-Perf's flags. The same type is validated apart from running it
// (Validate, as k6 validates an executor's config), run by runtime and
// its engine, shown by `llmbench check` (String), stored with every
// point's records as its own JSON, hashed by the checkpoint and listed in
// report.html. Nothing here runs anything or knows a file, a flag or a
// run's wiring (a loaded baseline, a shard): those are runtime.Options.
// It imports only leaves: metrics, runtime/dataset, runtime/failure and
// transport's value types.
package plan
