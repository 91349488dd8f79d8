package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/llmbench/llmbench"

// allowedImports is DESIGN.md's one-way flow: which llmbench packages each
// top-level package may import (its own subpackages are always allowed).
var allowedImports = map[string][]string{
	"metrics":   {},
	"transport": {"metrics"},
	"runtime":   {"transport", "metrics"},
	"reports":   {"metrics", "runtime"},
	"builtins":  {"runtime", "transport", "metrics", "stdlib"},
	"bench":     {"runtime", "transport", "metrics", "reports"}, // bench/calibrate judges with the code compare runs
	"stdlib":    {},
	"cmd":       {"*"},
}

// onlyImportedBy confines third-party libraries to one layer each.
var onlyImportedBy = map[string][]string{
	"go.starlark.net":             {"builtins", "cmd"},
	"github.com/valyala/fasthttp": {"transport", "cmd"},
	"google.golang.org/grpc":      {"transport", "cmd"},
}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module+"/")
		layer := strings.Split(pkg, "/")[0]
		for _, imp := range fields[1:] {
			checkImport(t, pkg, layer, imp)
		}
	}
}

func checkImport(t *testing.T, pkg, layer, imp string) {
	t.Helper()
	for lib, layers := range onlyImportedBy {
		if (imp == lib || strings.HasPrefix(imp, lib+"/")) && !slices.Contains(layers, layer) {
			t.Errorf("%s imports %s; only %v may", pkg, imp, layers)
		}
	}
	if !strings.HasPrefix(imp, module+"/") {
		return
	}
	target := strings.Split(strings.TrimPrefix(imp, module+"/"), "/")[0]
	allowed, known := allowedImports[layer]
	if !known {
		t.Errorf("package %s is in no layer of DESIGN.md", pkg)
		return
	}
	if target != layer && !slices.Contains(allowed, target) && !slices.Contains(allowed, "*") {
		t.Errorf("%s imports %s: %s may import only %v", pkg, imp, layer, allowed)
	}
}
