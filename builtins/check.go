package builtins

import (
	"errors"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime"
)

// checkFunc wraps the script's check(results) as Scenario.Check. It runs
// on a thread of its own, with the same limits as loading: fail() in it is
// a *CheckFailure (the run failed a custom gate), anything else a
// *LoadError (the script is broken).
func (s *session) checkFunc(path string, v starlark.Value) (func([]runtime.ExperimentResult) error, error) {
	fn, ok := v.(starlark.Callable)
	if !ok {
		return nil, &LoadError{File: path, Msg: fmt.Sprintf("check: got %s, want a function check(results)", v.Type())}
	}
	return func(results []runtime.ExperimentResult) error {
		thread, stop := newThread("check "+path, s)
		defer stop()
		_, err := starlark.Call(thread, fn, starlark.Tuple{newResults(results)}, nil)
		if err == nil {
			return nil
		}
		le := s.fault(path, err)
		var fe *failError
		if errors.As(err, &fe) {
			return &CheckFailure{Messages: []string{fe.msg}, Where: le.Position()}
		}
		return le
	}, nil
}
