package main

import (
	"time"

	"github.com/llmbench/llmbench/builtins/preflight"
)

// preflightCmd is the child a scenario is first evaluated in, under the
// Starlark memory limit (builtins/preflight). It is not for users.
type preflightCmd struct{}

func (preflightCmd) Run(e *env) error { return preflight.Serve(e.stdin, e.stdout) }

// starlarkFlags bound a scenario's evaluation (run and check alike).
type starlarkFlags struct {
	StarlarkMemoryLimit string        `name:"starlark-memory-limit" env:"LLMBENCH_STARLARK_MEMORY_LIMIT" placeholder:"SIZE" help:"Memory the scenario's Starlark may use while loading and in check(), e.g. 4GiB or 512MiB; 0 turns the limit off (default: 4GiB, or half the machine's memory when less)."`
	StarlarkCPULimit    time.Duration `name:"starlark-cpu-limit" env:"LLMBENCH_STARLARK_CPU_LIMIT" default:"2m" placeholder:"DURATION" help:"Processor time the scenario's Starlark may use while loading and in check(); 0 turns the limit off."`
}

// guard is the preflight the flags ask for.
func (f *starlarkFlags) guard() (preflight.Guard, error) {
	g := preflight.Guard{Memory: preflight.DefaultLimit(), CPU: f.StarlarkCPULimit}
	if f.StarlarkCPULimit < 0 || (f.StarlarkCPULimit > 0 && f.StarlarkCPULimit < time.Second) {
		return g, invalid("--starlark-cpu-limit: got %s, want a duration of at least 1s, or 0 for no limit", f.StarlarkCPULimit)
	}
	if f.StarlarkMemoryLimit != "" {
		limit, err := preflight.ParseLimit(f.StarlarkMemoryLimit)
		if err != nil {
			return g, invalid("--starlark-memory-limit: %v", err)
		}
		g.Memory = limit
	}
	return g, nil
}
