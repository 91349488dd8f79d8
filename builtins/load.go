package builtins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Load executes the scenario at path with -D values vars and returns its
// validated plan. Script faults are *LoadError; an unreadable file is
// the plain os error.
func Load(path string, vars map[string]string, opts Options) (*runtime.Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, failure.New(failure.Input, err) // the user named the file
	}
	return loadSource(path, src, vars, opts)
}

// loadSource is Load on source already in memory (tests feed it chunks of
// a test file, keeping the file's line numbers).
func loadSource(path string, src []byte, vars map[string]string, opts Options) (*runtime.Scenario, error) {
	s, err := newSession(path, vars, opts)
	if err != nil {
		return nil, err
	}
	defer s.files.close()
	thread, stop := newThread("load "+path, s)
	defer stop()
	globals, err := s.exec(thread, s.key, src)
	if err != nil {
		return nil, s.fault(path, err)
	}
	scen := &runtime.Scenario{File: path}
	if _, ok := globals["main"]; ok || !opts.mainOptional {
		if scen.Experiments, err = s.callMain(thread, path, globals); err != nil {
			return nil, err
		}
	}
	if check, ok := globals["check"]; ok {
		if scen.Check, err = s.checkFunc(path, check); err != nil {
			return nil, err
		}
	}
	return scen, nil
}

func newSession(path string, vars map[string]string, opts Options) (*session, error) {
	files, err := openFolder(path, vars)
	if err != nil {
		return nil, err
	}
	s := &session{opts: opts, files: files, scenario: path, key: filepath.Base(path), vars: vars, predeclared: universe(),
		modules: map[string]*module{}, sources: map[string][]byte{}}
	for k, v := range opts.predeclared {
		s.predeclared[k] = v
	}
	return s, nil
}

// callMain calls main(ctx) and checks what it returned: one experiment or
// a list of them, with distinct names.
func (s *session) callMain(thread *starlark.Thread, path string, globals starlark.StringDict) ([]plan.Experiment, error) {
	mainFn, ok := globals["main"].(starlark.Callable)
	if !ok {
		msg := "no main(ctx) function: a scenario defines main(ctx) returning its experiments"
		if globals["main"] != nil {
			msg = fmt.Sprintf("main: got %s, want a function main(ctx)", globals["main"].Type())
		}
		return nil, &LoadError{File: path, Msg: msg}
	}
	v, err := starlark.Call(thread, mainFn, starlark.Tuple{newContext(s.vars)}, nil)
	if err != nil {
		return nil, s.fault(path, err)
	}
	values, err := experimentsOf(v)
	if err != nil {
		le := &LoadError{File: path, Msg: "main: " + err.Error(), Err: err}
		if fn, ok := mainFn.(*starlark.Function); ok {
			setPos(le, s.returnOf(fn))
		}
		return nil, le
	}
	exps := make([]plan.Experiment, len(values))
	seen := make(map[string]bool, len(values)) // a set, not a scan of those before: 100k experiments check in seconds
	for i, ev := range values {
		if seen[ev.plan.Name] {
			return nil, errorAt(ev.stack, fmt.Errorf("experiment: two experiments are named %q; names must be unique", ev.plan.Name))
		}
		seen[ev.plan.Name] = true
		if err := runtime.Validate(&ev.plan); err != nil {
			return nil, s.planError(ev, err)
		}
		exps[i] = ev.plan
	}
	return exps, nil
}

// planError places what the runtime refuses in an experiment's plan at
// the experiment() argument at fault, as an argument error would be, so
// `llmbench check` refuses exactly what `run` would. Every problem is
// listed; the first decides the position.
func (s *session) planError(ev *experimentValue, err error) *LoadError {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
		var pe *plan.PlanError
		if errors.As(e, &pe) {
			msgs[i] = paramError("experiment", pe.Param, pe.Err).Error()
		}
	}
	le := errorAt(ev.stack, fmt.Errorf("%s", strings.Join(msgs, "\n")))
	le.Err = err
	s.refine(le)
	return le
}

// experimentsOf accepts one experiment or a non-empty list or tuple.
func experimentsOf(v starlark.Value) ([]*experimentValue, error) {
	if e, ok := v.(*experimentValue); ok {
		return []*experimentValue{e}, nil
	}
	seq, ok := v.(starlark.Indexable)
	if _, isStr := v.(starlark.String); !ok || isStr {
		return nil, fmt.Errorf("got %s, want an experiment or a list of experiments", v.Type())
	}
	if seq.Len() == 0 {
		return nil, fmt.Errorf("got an empty list, want at least one experiment")
	}
	out := make([]*experimentValue, seq.Len())
	for i := range out {
		e, ok := seq.Index(i).(*experimentValue)
		if !ok {
			return nil, fmt.Errorf("at index %d: got %s, want experiment", i, seq.Index(i).Type())
		}
		out[i] = e
	}
	return out, nil
}

// newContext is main's ctx: ctx.vars is a frozen dict of the -D values,
// so ctx.vars.get("requests", "200") and ctx.vars["x"] work as in Python.
func newContext(vars map[string]string) starlark.Value {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	d := starlark.NewDict(len(vars))
	for _, k := range keys {
		_ = d.SetKey(starlark.String(k), starlark.String(vars[k]))
	}
	attrs := starlark.StringDict{"vars": d}
	// The description names the keys only: -D may carry secrets.
	return newObjectValue("context", fmt.Sprintf("context(vars=<%s>)", strings.Join(keys, ", ")), attrs)
}

// objectValue is a plain attribute holder (ctx) with no Go plan behind it.
type objectValue struct{ object }

func newObjectValue(typ, desc string, attrs starlark.StringDict) *objectValue {
	return &objectValue{object: newObject(typ, desc, attrs, false)}
}
