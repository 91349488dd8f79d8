package builtins

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/stdlib"
)

// Every builtin is exercised by some Starlark test file.
func TestEveryBuiltinHasStarlarkTests(t *testing.T) {
	var all strings.Builder
	files, _ := filepath.Glob("testdata/*.star")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for name := range universe() {
		if !strings.Contains(all.String(), "fails(lambda: "+name+"(") && name != "struct" {
			t.Errorf("no error case for %s() in testdata/*.star", name)
		}
		if !strings.Contains(all.String(), name+"(") {
			t.Errorf("%s() is never called in testdata/*.star", name)
		}
	}
}

// Every standard-library module loads cleanly with the builtins.
func TestStdlibModulesLoad(t *testing.T) {
	names, _ := fs.Glob(stdlib.FS(), "*.star")
	for _, n := range names {
		s, err := newSession("testdata/x.star", nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		thread, stop := newThread("test", s)
		if _, err := s.load(thread, stdlibPrefix+n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		stop()
		s.files.close()
	}
}

// The builtins are documented by SPEC §6 and must keep its names.
func TestUniverseMatchesSpec(t *testing.T) {
	want := "endpoint sim synthetic jsonl sharegpt trace mix conversations rankings image audio fixed normal uniform lognormal choice " +
		"concurrency rate replay users stages experiment ab sweep pow2 until_saturation search steady env fail struct"
	u := universe()
	for _, name := range strings.Fields(want) {
		if _, ok := u[name].(*starlark.Builtin); !ok {
			t.Errorf("missing builtin %s", name)
		}
	}
	if len(u) != len(strings.Fields(want)) {
		t.Errorf("universe has %d names, want %d", len(u), len(strings.Fields(want)))
	}
}
