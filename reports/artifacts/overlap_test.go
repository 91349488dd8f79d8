package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/runtime/failure"
)

// TestCheckOutputApart: an output that is, contains or lies inside an
// input is refused (exit 2) naming the flag and both paths, however the
// paths are spelled (relative, "..", a symbolic link, not yet existing).
func TestCheckOutputApart(t *testing.T) {
	tmp := t.TempDir()
	for _, d := range []string{"s0/e/c2", "s1", "other"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "s0/e/c2/records.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tmp, "s0"), filepath.Join(tmp, "link")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(tmp)
	for _, c := range []struct {
		out    string
		inputs []string
		want   string // "" for apart
	}{
		{"s0", []string{"s0", "s1"}, "is the input s0"},
		{"./s1/", []string{"s0", "s1"}, "is the input s1"},
		{"s0/merged", []string{"s0", "s1"}, "lies inside the input s0"},
		{".", []string{"s0", "s1"}, "contains the input s0"},
		{"link", []string{"s0"}, "is the input s0"},
		{"link/new/deeper", []string{"s0"}, "lies inside the input s0"},
		{"other/../s0/e", []string{"s0"}, "lies inside the input s0"},
		{tmp + "/s0/e/c2/records.parquet", []string{"link/e/c2/records.parquet"}, "is the input"},
		{"s0/e/c2/records.parquet/x", []string{"s0/e/c2/records.parquet"}, "lies inside"},
		{"merged", []string{"s0", "s1"}, ""},
		{"s0-merged", []string{"s0"}, ""},
		{"other/out.json", []string{"s0", ""}, ""},
		{"", []string{"s0"}, ""},
	} {
		err := CheckOutputApart("--out", c.out, c.inputs...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("--out %s over %v: %v", c.out, c.inputs, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("--out %s over %v: got %v, want an error with %q", c.out, c.inputs, err, c.want)
		case c.want != "" && (!strings.Contains(err.Error(), "--out "+c.out) || failure.ClassOf(err) != failure.Input):
			t.Errorf("--out %s over %v: %v does not name the flag and output, or is not bad input", c.out, c.inputs, err)
		}
	}
}
