package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/llmbench/llmbench"

// allowedImports is DESIGN.md's one-way flow between layers: which
// top-level llmbench packages each top-level package (with its
// subpackages) may import.
var allowedImports = map[string][]string{
	"metrics":   {},
	"transport": {"metrics"},
	"runtime":   {"transport", "metrics"},
	"reports":   {"metrics", "runtime"},
	"builtins":  {"runtime", "transport", "metrics", "stdlib"},
	"bench":     {"runtime", "transport", "metrics", "reports"}, // bench/calibrate judges with the code compare runs
	"stdlib":    {},
	"deploy":    {},
	"cmd":       {"*"},
}

// withinLayer is the flow inside each layer, package by package: which
// packages of its own layer each may import ("*": any). Every package has
// a row, so a new one takes its place on purpose. Data moves one way here
// too: the simulator is a server, not a client of transport; runtime's
// dataset and tokenizer are leaves it uses, never the other way; among
// reports/, each output's package owns its files and reads results,
// artifacts alone wires them into a run's folder, and a page (html)
// reads what the console tables say (sweep, telemetry, verdict) without
// them knowing of it.
var withinLayer = map[string][]string{
	"metrics": {},

	"transport":             {"transport/tritonpb"},
	"transport/rendezvous":  {},
	"transport/sim":         {"transport/tritonpb"},
	"transport/slowdown":    {}, // a proxy on net/http alone: no client of transport, no part of the simulator
	"transport/livemetrics": {}, // live export's network I/O (remote write, OTLP): a client of its receivers alone
	"transport/telemetry":   {"transport"},
	"transport/tritonpb":    {},

	"runtime":        {"runtime/dataset", "runtime/engine", "runtime/failure", "runtime/plan", "runtime/tokenizer"},
	"runtime/engine": {"runtime/dataset", "runtime/plan"},
	// plan is the plan's plain values: the engine and runtime run it,
	// nothing of running it is here.
	"runtime/plan":     {"runtime/dataset", "runtime/failure"},
	"runtime/dataset":  {},
	"runtime/failure":  {},
	"runtime/paexport": {},
	// calibrate runs a scenario's plan through runtime and judges it with
	// runtime's gates: above runtime, beside gpflags.
	"runtime/calibrate": {"runtime", "runtime/engine", "runtime/failure", "runtime/plan"},
	// Other tools' result files read back into records, each alone.
	"runtime/vllmbench": {},
	"runtime/aiperf":    {},
	"runtime/guidellm":  {},
	"runtime/tokenizer": {},
	// ab runs an experiment's points as interleaved A/B rounds through
	// runtime's executor: above runtime, beside gpflags.
	"runtime/ab": {"runtime", "runtime/engine", "runtime/failure", "runtime/plan"},
	// gpconfig turns GenAI-Perf's YAML into its flags, knowing no flag's meaning.
	"runtime/gpconfig": {"runtime/failure", "runtime/gpflags"},
	// gpflags turns GenAI-Perf's flags into runtime's plan: above runtime.
	"runtime/gpflags": {"runtime", "runtime/dataset", "runtime/engine", "runtime/failure", "runtime/plan"},

	"reports":                 {},
	"reports/internal/golden": {},
	"reports/genaiperf":       {},
	"reports/records":         {},
	"reports/progress":        {},
	// live samples running points for --live-metrics; the exporters are
	// transport's, wired in by the command.
	"reports/live":       {},
	"reports/verdict":    {"reports"},
	"reports/telemetry":  {"reports"},
	"reports/views":      {"reports/genaiperf"},
	"reports/sweep":      {"reports", "reports/telemetry", "reports/views"},
	"reports/plots":      {"reports/genaiperf", "reports/telemetry"},
	"reports/comparison": {"reports", "reports/plots", "reports/verdict"},
	"reports/html":       {"reports", "reports/comparison", "reports/plots", "reports/sweep", "reports/telemetry", "reports/verdict"},
	"reports/artifacts":  {"*"},
	"reports/storedrun":  {"reports/genaiperf", "reports/records", "reports/verdict"},
	// storedruntest writes fixture runs with artifacts' real writers.
	"reports/storedrun/storedruntest": {"*"},
	"reports/regression":              {"reports/comparison", "reports/storedrun"},

	"builtins":                         {"builtins/addrspace/afterstarlark"},
	"builtins/addrspace":               {},
	"builtins/addrspace/afterstarlark": {"builtins/addrspace"},
	"builtins/preflight":               {"builtins"},

	"bench":           {},
	"bench/calibrate": {},
	"bench/ab":        {},
	"bench/otava":     {},
	"stdlib":          {},
	"deploy":          {},
	"cmd/llmbench":    {"*"},
}

// onlyImportedBy confines third-party libraries to one layer each.
var onlyImportedBy = map[string][]string{
	"go.starlark.net":             {"builtins", "cmd"},
	"github.com/valyala/fasthttp": {"transport", "cmd"},
	"google.golang.org/grpc":      {"transport", "cmd"},
	"go.opentelemetry.io/otel":    {"transport"},
}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module+"/")
		if _, ok := withinLayer[pkg]; !ok {
			t.Errorf("package %s has no row in withinLayer: say which packages of its layer it may import", pkg)
		}
		for _, imp := range fields[1:] {
			for _, problem := range importProblems(pkg, imp) {
				t.Error(problem)
			}
		}
	}
}

// importProblems says how pkg importing imp breaks the rules, if it does.
func importProblems(pkg, imp string) []string {
	var problems []string
	layer := layerOf(pkg)
	for lib, layers := range onlyImportedBy {
		if (imp == lib || strings.HasPrefix(imp, lib+"/")) && !slices.Contains(layers, layer) {
			problems = append(problems, fmt.Sprintf("%s imports %s; only %v may", pkg, imp, layers))
		}
	}
	if !strings.HasPrefix(imp, module+"/") {
		return problems
	}
	target := strings.TrimPrefix(imp, module+"/")
	allowed, known := allowedImports[layer]
	switch {
	case !known:
		problems = append(problems, fmt.Sprintf("package %s is in no layer of DESIGN.md", pkg))
	case layerOf(target) != layer:
		if !slices.Contains(allowed, layerOf(target)) && !slices.Contains(allowed, "*") {
			problems = append(problems, fmt.Sprintf("%s imports %s: %s may import only %v", pkg, imp, layer, allowed))
		}
	case !slices.Contains(withinLayer[pkg], target) && !slices.Contains(withinLayer[pkg], "*"):
		problems = append(problems, fmt.Sprintf("%s imports %s: within %s it may import only %v", pkg, target, layer, withinLayer[pkg]))
	}
	return problems
}

// layerOf is a package's top-level folder.
func layerOf(pkg string) string {
	layer, _, _ := strings.Cut(pkg, "/")
	return layer
}

// The rules catch what they are for: a subpackage reaching back into its
// parent, one writer reaching into another, a layer reaching up.
func TestImportRulesCatch(t *testing.T) {
	for _, c := range []struct{ pkg, imp string }{
		{"runtime/dataset", "runtime"},
		{"runtime/plan", "runtime/engine"},
		{"transport/sim", "transport"},
		{"reports/plots", "reports/html"},
		{"reports/sweep", "reports/artifacts"},
		{"metrics", "runtime"},
		{"reports/html", "go.starlark.net"},
	} {
		imp := c.imp
		if !strings.Contains(imp, ".") {
			imp = module + "/" + imp
		}
		if len(importProblems(c.pkg, imp)) == 0 {
			t.Errorf("%s importing %s is allowed", c.pkg, c.imp)
		}
	}
}
