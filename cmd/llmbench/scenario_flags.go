package main

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/builtins"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// scenarioFlags are what run and check both take, so that check refuses
// exactly what run would refuse before sending anything.
type scenarioFlags struct {
	File   string   `arg:"" type:"path" help:"Scenario file (.star)."`
	Define []string `short:"D" sep:"none" help:"key=value visible to the scenario as ctx.vars (repeatable)."`
	outputFlags
	starlarkFlags
	baselineFlags
	logFlags
}

// load loads and validates the scenario, then refuses an output place
// that cannot be written or that would land on one of its inputs.
func (f *scenarioFlags) load(e *env) (*runtime.Scenario, error) {
	scen, err := loadScenario(e, f.File, f.Define, &f.starlarkFlags)
	if err != nil {
		return nil, err
	}
	if err := f.outputFlags.check(); err != nil {
		return nil, err
	}
	return scen, checkApart(f.outputFlags.paths(), scenarioInputs(f.File, &f.baselineFlags, scen)...)
}

// outputFlags are where a run writes; check takes them too, to refuse an
// unwritable place before a run would have sent anything.
type outputFlags struct {
	Out       string `default:"out" help:"Directory for results: OUT/<experiment>/<point>/ and per-run files."`
	Junit     string `type:"path" help:"Also write JUnit XML (one testcase per gate) to this file."`
	SummaryMd string `name:"summary-md" type:"path" help:"Also write a Markdown summary to this file."`
}

// check refuses an output place that cannot be written, naming its flag.
func (o *outputFlags) check() error {
	if err := artifacts.CheckDir(o.Out); err != nil {
		return invalid("--out: %w", err)
	}
	for _, f := range []struct{ flag, path string }{{"--junit", o.Junit}, {"--summary-md", o.SummaryMd}} {
		if f.path == "" {
			continue
		}
		if err := artifacts.CheckFile(f.path); err != nil {
			return invalid("%s: %w", f.flag, err)
		}
	}
	return nil
}

// loadScenario loads and validates a scenario; every problem is exit 2.
// The script's print() output goes to stdout as plain lines, as a user
// debugging a scenario expects (in main() and in check() alike). Loading,
// and check() later, are first tried in a child process under the
// Starlark memory limit.
func loadScenario(e *env, file string, defines []string, sf *starlarkFlags) (*runtime.Scenario, error) {
	vars := map[string]string{}
	for _, d := range defines {
		k, v, ok := strings.Cut(d, "=")
		if !ok || k == "" {
			return nil, invalid("-D: got %q, want key=value", d)
		}
		vars[k] = v
	}
	guard, err := sf.guard()
	if err != nil {
		return nil, err
	}
	printPlain := func(_, msg string) { fmt.Fprintln(e.stdout, msg) }
	return guard.Load(e.ctx, file, vars, builtins.Options{Print: printPlain}) // its errors are input errors
}

// replan rebuilds every plan of the scenario with what the command line
// overrides: each is copied, changed by edit and validated again, so no
// validated plan is changed in place.
func replan(scen *runtime.Scenario, edit func(*plan.Experiment) error) error {
	plans := make([]plan.Experiment, len(scen.Experiments))
	for i, exp := range scen.Experiments {
		if err := edit(&exp); err != nil {
			return err
		}
		if err := runtime.Validate(&exp); err != nil {
			return invalid("%w", err)
		}
		plans[i] = exp
	}
	scen.Experiments = plans
	return nil
}
