package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestModelNameNeverMakesAPath: a model name given with -m that holds
// control characters (a newline, a terminal escape) or path separators
// reaches no folder name as such: profile writes one artifact folder, its
// name printable, directly under --artifact-dir.
func TestModelNameNeverMakesAPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := "evil\x1b[31m\nname\\..\\x/../y\x7f\u0085"
	r := runCLI(t, dir, "profile", "-m", model, "-u", "sim://?itl=1ms&ttft=1ms", "--request-count", "2", "--artifact-dir", "a")
	if r.code != 0 {
		t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || !entries[0].IsDir() {
		t.Fatalf("artifact dir holds %v, want one point folder", entries)
	}
	name := entries[0].Name()
	if strings.IndexFunc(name, unicode.IsControl) >= 0 || strings.ContainsAny(name, `/\`) {
		t.Errorf("folder name %q holds a control character or a path separator", name)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", name, "records.parquet")); err != nil {
		t.Errorf("the point's files are not in %q: %v", name, err)
	}
}
