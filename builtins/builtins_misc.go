package builtins

import (
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// universe lists the builtins every scenario and standard-library module
// sees: SPEC §6's API, plus struct() for grouping values (as the
// standard library's presets do).
func universe() starlark.StringDict {
	u := starlark.StringDict{}
	for _, b := range []*starlark.Builtin{
		starlark.NewBuiltin("endpoint", endpointBuiltin),
		starlark.NewBuiltin("sim", simBuiltin),
		starlark.NewBuiltin("synthetic", syntheticBuiltin),
		starlark.NewBuiltin("jsonl", jsonlBuiltin),
		starlark.NewBuiltin("sharegpt", sharegptBuiltin),
		starlark.NewBuiltin("trace", traceBuiltin),
		starlark.NewBuiltin("mix", mixBuiltin),
		starlark.NewBuiltin("conversations", conversationsBuiltin),
		starlark.NewBuiltin("rankings", rankingsBuiltin),
		starlark.NewBuiltin("image", imageBuiltin),
		starlark.NewBuiltin("audio", audioBuiltin),
		starlark.NewBuiltin("fixed", fixedBuiltin),
		starlark.NewBuiltin("normal", normalBuiltin),
		starlark.NewBuiltin("uniform", uniformBuiltin),
		starlark.NewBuiltin("lognormal", lognormalBuiltin),
		starlark.NewBuiltin("choice", choiceBuiltin),
		starlark.NewBuiltin("concurrency", concurrencyBuiltin),
		starlark.NewBuiltin("rate", rateBuiltin),
		starlark.NewBuiltin("replay", replayBuiltin),
		starlark.NewBuiltin("users", usersBuiltin),
		starlark.NewBuiltin("stages", stagesBuiltin),
		starlark.NewBuiltin("experiment", experimentBuiltin),
		starlark.NewBuiltin("sweep", sweepBuiltin),
		starlark.NewBuiltin("ab", abBuiltin),
		starlark.NewBuiltin("pow2", pow2Builtin),
		starlark.NewBuiltin("until_saturation", untilSaturationBuiltin),
		starlark.NewBuiltin("search", searchBuiltin),
		starlark.NewBuiltin("steady", steadyBuiltin),
		starlark.NewBuiltin("env", envBuiltin),
		starlark.NewBuiltin("fail", failBuiltin),
		starlark.NewBuiltin("struct", starlarkstruct.Make),
	} {
		u[b.Name()] = b
	}
	return u
}

// env(name, default=None): an environment variable, or default when it is
// unset — how scenarios read API keys and targets without writing them
// down (SPEC §5).
func envBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var def starlark.Value = starlark.None
	if err := unpack(b.Name(), args, kwargs, "name", &name, "default?", &def); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, paramErrorf(b.Name(), "name", "got an empty string, want a variable name")
	}
	lookup := Options{}.lookupEnv
	s := sessionOf(thread)
	if s != nil {
		lookup = s.opts.lookupEnv
	}
	v, ok := lookup(name)
	if !ok {
		return def, nil
	}
	if s != nil {
		s.files.allowOutside(v) // a path from the environment, like one from -D, may be absolute
	}
	return starlark.String(v), nil
}

// fail(*args, sep=" "): stop with an error. In check(results) it is how a
// scenario fails the run (a *CheckFailure, exit 1); anywhere else it is a
// scenario error. Arguments print as print() prints them.
func failBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sep := " "
	if err := unpack(b.Name(), nil, kwargs, "sep?", &sep); err != nil {
		return nil, err
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if s, ok := a.(starlark.String); ok {
			parts[i] = string(s)
		} else {
			parts[i] = a.String()
		}
	}
	return nil, &failError{msg: strings.Join(parts, sep)}
}
