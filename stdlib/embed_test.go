package stdlib

import (
	"io/fs"
	"strings"
	"testing"
)

// The library ships presets.star, and every module opens with a docstring
// saying what it is for (package builtins tests that each one loads).
func TestModulesAreEmbeddedAndDocumented(t *testing.T) {
	names, err := fs.Glob(FS(), "*.star")
	if err != nil || len(names) == 0 {
		t.Fatalf("modules %v, %v", names, err)
	}
	if !strings.Contains(strings.Join(names, " "), "presets.star") {
		t.Errorf("no presets.star in %v", names)
	}
	for _, n := range names {
		src, err := fs.ReadFile(FS(), n)
		if err != nil || !strings.HasPrefix(string(src), `"""`) {
			t.Errorf("%s: want a module docstring first (err %v)", n, err)
		}
	}
}
